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
  # tests/grammars: the query grammars; tests/npm: foreign MCP peers (TypeScript SDK, server-everything,
  # the conformance suite) and Node 22 for the suite.
  for dir in tests/grammars tests/npm; do
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
      (cd "$dir" && npm ci --silent --no-audit --no-fund)
    fi
  done
else
  echo "tools: npm not found; query grammar and npm peer tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi
