#!/usr/bin/env bash
# Build one of the Go MCP test servers (tests/foreign/go/<sdk>: gosdk = modelcontextprotocol/go-sdk,
# mcpgo = mark3labs/mcp-go) once per machine and print the binary's path. Cached by the hash of the
# server's sources and go.mod/go.sum (+ Go version/platform): a second call is instant and offline.
#
#   scripts/build-foreign-go.sh gosdk|mcpgo
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
sdk="${1:?usage: build-foreign-go.sh gosdk|mcpgo}"
src="$ROOT/tests/foreign/go/$sdk"
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
[ -f "$src/go.mod" ] || { echo "build-foreign-go: no server $src" >&2; exit 2; }
command -v go >/dev/null || { echo "build-foreign-go: go not found on PATH" >&2; exit 2; }

key="$( { cat "$src"/go.mod "$src"/go.sum "$src"/*.go; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)"
out="$CACHE/foreign-go/$sdk-$key/server"
if [ -x "$out" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$(dirname "$out")"
exec 9>"$CACHE/foreign-go/.lock"
flock 9   # one build at a time per machine (tools.sh and tests may race)
if [ ! -x "$out" ]; then
  start=$SECONDS
  # -mod=readonly: the pins in go.mod/go.sum are the versions tested; -trimpath keeps paths out of stack traces.
  (cd "$src" && go build -mod=readonly -trimpath -ldflags="-s -w" -o "$out.tmp" .) >&2
  mv -f "$out.tmp" "$out"
  find "$CACHE/foreign-go" -maxdepth 1 -name "$sdk-*" ! -name "$sdk-$key" -exec rm -rf {} +   # older sources' builds
  echo "build-foreign-go: built $sdk in $((SECONDS - start))s: $out" >&2
fi
echo "$out"
