#!/usr/bin/env bash
# Build the real components tests run against, when their toolchain is present.
# Each step is cached; a missing toolchain is reported, and tests decide (skip or, in CI, fail).
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v go >/dev/null; then
  scripts/build-collector.sh >/dev/null
else
  echo "tools: go not found; collector tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi

if command -v npm >/dev/null; then
  if [ ! -d tests/grammars/node_modules ] || [ tests/grammars/package-lock.json -nt tests/grammars/node_modules ]; then
    (cd tests/grammars && npm ci --silent --no-audit --no-fund)
  fi
else
  echo "tools: npm not found; query grammar tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi
