# mcp-errscope: every target bootstraps what it needs; `make test` works on a fresh clone.
PY      ?= python3.11
VENV    := .venv
PYTHON  := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

.PHONY: all demo test bench dashboards check-generated stack collector tools clean

all: test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(PYTHON) -m pip install -q --upgrade pip
	$(PYTHON) -m pip install -q -e '.[dev,fastmcp]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/errscope demo

# Build the optional real components (collector, grammar packages) when the toolchains exist;
# tests that need them fail under ERRSCOPE_REQUIRE_STACK=1 and skip with a reason otherwise.
tools: $(STAMP)
	@scripts/tools.sh

test: tools
	$(PYTHON) -m pytest

bench: $(STAMP)
	$(PYTHON) -m bench

dashboards: $(STAMP)
	$(PYTHON) -m dashboards

check-generated: $(STAMP)
	$(PYTHON) -m dashboards
	$(PYTHON) -m collector.generate
	git diff --exit-code -- deploy/ collector/

collector: $(STAMP)
	@scripts/build-collector.sh

stack: tools
	$(PYTHON) scripts/stack.py $(STACK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build dist
