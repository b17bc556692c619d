module errscope.bench/collectorregex

go 1.22
