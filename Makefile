# mcp-errscope: every target bootstraps what it needs; `make test` works on a fresh clone.
PY      ?= python3.11
VENV    := .venv
PYTHON  := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

.PHONY: all demo test bench soak dashboards check-generated stack collector tools clean

all: test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(PYTHON) -m pip install -q --upgrade pip
	$(PYTHON) -m pip install -q -e '.[cli,dev,fastmcp]'
	touch $(STAMP)

# The demo needs the library and the `cli` extra: on a fresh clone it installs those alone (about half
# the time of the full dev install), and reuses the full install when `make test` made one.
DEMO_STAMP := $(VENV)/.installed-runtime

$(DEMO_STAMP): pyproject.toml
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then :; else \
	  set -e; echo "make demo: installing errscope[cli] into $(VENV) (once; 1-2 min, quiet)"; \
	  $(PY) -m venv $(VENV); $(PYTHON) -m pip install -q -e '.[cli]'; fi
	@touch $@

demo: $(DEMO_STAMP)
	$(VENV)/bin/errscope demo

# Build the optional real components (collector, grammar packages) when the toolchains exist;
# tests that need them fail under ERRSCOPE_REQUIRE_STACK=1 and skip with a reason otherwise.
# They need no venv: `make -j2 test` (.ci/run) builds both at once.
tools:
	@scripts/tools.sh

# pytest-xdist, TEST_WORKERS processes: most tests wait on subprocesses, sockets and timeouts, so more workers
# than cores pay. Tests sharing a module's or a directory's started component run on one worker (the xdist
# groups of tests/conftest.py); TEST_WORKERS=0 runs them all in this process. Tests marked `alone` (timing-bound
# under load: the scale-out's tail sampling) run afterwards with nothing beside them.
# --durations: each run's log lists its slowest tests (setup, call and teardown apart), where CI's time goes.
TEST_WORKERS ?= 2

test: $(STAMP) tools
	$(PYTHON) -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not alone" --durations=40
	$(PYTHON) -m pytest -m alone --durations=10

bench: $(STAMP)
	$(PYTHON) -m bench

# Reconnects and mixed calls for SOAK_SECONDS (default ten minutes): RSS and table sizes at start and end.
SOAK_SECONDS ?= 600
soak: $(STAMP)
	$(PYTHON) -m bench.soak --seconds $(SOAK_SECONDS)

dashboards: $(STAMP)
	$(PYTHON) -m dashboards

check-generated: $(STAMP)
	$(PYTHON) -m dashboards
	$(PYTHON) -m collector.generate
	git diff --exit-code -- deploy/ collector/

# The Collector build needs Go alone; the stack runs it, Prometheus and `errscope demo`, which needs the `cli` extra only.
collector:
	@scripts/build-collector.sh

# scripts/stack.py builds the Collector itself once its options and ports are checked: `STACK_ARGS=--help`, a
# mistyped option or a port in use answer at once, not after a first build's minutes.
stack: $(DEMO_STAMP)
	$(PYTHON) scripts/stack.py $(STACK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build dist
