#!/usr/bin/env bash
# Build the real components tests run against, when their toolchain is present.
# Each step is cached; a missing toolchain is reported, and tests decide (skip or, in CI, fail).
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v go >/dev/null; then
  # In the background: on a fresh machine the Collector's build (minutes of CPU) overlaps the downloads below.
  (
    scripts/build-collector.sh >/dev/null
    # MCP servers on the Go SDKs (go-sdk, mcp-go) for tests/foreign and tests/proxy; modules from the Go proxy.
    for sdk in gosdk mcpgo; do scripts/build-foreign-go.sh "$sdk" >/dev/null; done
    # ... go-sdk 1.2.0 (its wording differs: -32602 "invalid params: ..."), and go-sdk's client (foreign-client tests)
    scripts/build-foreign-go.sh gosdk v1.2.0 >/dev/null
    scripts/build-foreign-go.sh gosdkclient >/dev/null
  ) &
  go_builds=$!
else
  echo "tools: go not found; collector and Go MCP server tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi

if command -v mvn >/dev/null && command -v javac >/dev/null; then
  # An MCP server on the Java SDK (io.modelcontextprotocol.sdk:mcp) for tests/foreign; jars from Maven Central.
  scripts/build-foreign-java.sh >/dev/null
  scripts/build-foreign-java.sh 2.1.0 >/dev/null   # 2.x validates arguments itself, in networknt's words
  scripts/build-foreign-java-probe.sh >/dev/null    # the JVM runtime probes (java.net.http, OkHttp, Apache HttpClient 5)
else
  echo "tools: mvn/javac not found; the Java MCP server tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi

if command -v cargo >/dev/null; then
  # An MCP server on the official Rust SDK (rmcp) for tests/foreign, and beside it the reqwest runtime probe
  # (tests/foreign/probes/probe.rs, one package and target dir); crates from crates.io (~3 min when fresh).
  # In the background, beside the npm and pip installs below (mostly downloads).
  scripts/build-foreign-rust.sh >/dev/null &
  rust_build=$!
else
  echo "tools: cargo not found; the Rust MCP server tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi

if command -v npm >/dev/null; then
  # tests/grammars: the query grammars; tests/npm: foreign MCP peers (TypeScript SDK, server-everything,
  # the conformance suite, the MCP Inspector CLI) and Node 22 for the suite.
  for dir in tests/grammars tests/npm; do
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
      (cd "$dir" && npm ci --silent --no-audit --no-fund)
    fi
  done
else
  echo "tools: npm not found; query grammar and npm peer tests will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
fi

# FastMCP 2 and 3 and the mcp 1.x SDK need mcp<2, which the project venv cannot hold: each gets its own venv in the
# per-machine cache, used only by tests/foreign (their wording for rejected arguments; servers on them driven by
# ToolClient). mcp1 is an older 1.x release than FastMCP's (pydantic of its time: 1.9 breaks on pydantic 2.12+).
# Rebuilt when the pins change.
peers="${XDG_CACHE_HOME:-$HOME/.cache}/errscope/peers"
mkdir -p "$peers"
exec 8>"$peers/.lock"
flock 8   # one build at a time per machine
for spec in "fastmcp2:fastmcp==2.14.7 mcp==1.30.0 pydantic==2.14.4" \
            "fastmcp3:fastmcp==3.4.11 mcp==1.30.0 pydantic==2.14.4" \
            "mcp1:mcp==1.9.4 pydantic==2.11.7"; do
  venv="$peers/${spec%%:*}" pins="${spec#*:}"
  if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
    rm -rf "$venv"
    # shellcheck disable=SC2086 # one word per pin
    if "${PY:-python3.11}" -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check $pins; then
      echo "$pins" > "$venv/.pins"
    else
      rm -rf "$venv"
      echo "tools: could not build $venv; its corpus test will skip (fail under ERRSCOPE_REQUIRE_STACK=1)" >&2
    fi
  fi
done

if [ -n "${rust_build:-}" ]; then
  wait "$rust_build"   # its failure is this script's
fi
if [ -n "${go_builds:-}" ]; then
  wait "$go_builds"   # its failure is this script's
fi
