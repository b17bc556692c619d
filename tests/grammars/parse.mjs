// Parse query strings with the lezer grammars Grafana's own editors use and report error nodes.
// stdin: one JSON object per line, {"lang": "promql"|"logql"|"traceql", "query": "..."}.
// stdout: one JSON object per input line, {"lang", "query", "errors": [{"from", "to", "text"}]}.
import { createInterface } from "node:readline";
import { parser as promql } from "@prometheus-io/lezer-promql";
import { parser as logql } from "@grafana/lezer-logql";
import { parser as traceql } from "@grafana/lezer-traceql";

const parsers = { promql, logql, traceql };

function errorsOf(lang, query) {
  const parser = parsers[lang];
  if (!parser) return [{ from: 0, to: 0, text: `unknown language ${lang}` }];
  const errors = [];
  parser.parse(query).iterate({
    enter(node) {
      if (node.type.isError) {
        errors.push({ from: node.from, to: node.to, text: query.slice(Math.max(0, node.from - 10), node.to + 10) });
      }
    },
  });
  return errors;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { lang, query } = JSON.parse(line);
  process.stdout.write(JSON.stringify({ lang, query, errors: errorsOf(lang, query) }) + "\n");
}
