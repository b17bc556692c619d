#!/usr/bin/env bash
# Build one of the Go MCP test servers (tests/foreign/go/<sdk>: gosdk = modelcontextprotocol/go-sdk,
# mcpgo = mark3labs/mcp-go) once per machine and print the binary's path. Cached by the hash of the
# server's sources and go.mod/go.sum (+ Go version/platform, + the release asked for): a second call is instant
# and offline.
#
#   scripts/build-foreign-go.sh gosdk|mcpgo [VERSION]
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# VERSION (e.g. v1.2.0) builds the same server on another release of the SDK: the sources are copied into the cache,
# go.mod is pointed at that release (`go get`, modules from the Go proxy) and tidied there; the tree's go.mod/go.sum
# are not touched. Without it the pins in go.mod/go.sum are built as they are (-mod=readonly).
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/own-builds.sh"
sdk="${1:?usage: build-foreign-go.sh gosdk|mcpgo [VERSION]}"
version="${2:-}"
src="$ROOT/tests/foreign/go/$sdk"
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
[ -f "$src/go.mod" ] || { echo "build-foreign-go: no server $src" >&2; exit 2; }
command -v go >/dev/null || { echo "build-foreign-go: go not found on PATH" >&2; exit 2; }
case "$version" in ""|v[0-9]*.[0-9]*.[0-9]*) ;; *) echo "build-foreign-go: bad version $version" >&2; exit 2;; esac

key="$( { cat "$src"/go.mod "$src"/go.sum "$src"/*.go; go env GOVERSION GOOS GOARCH; [ -z "$version" ] || echo "$version"; } | sha256sum | cut -c1-16)"
name="$sdk${version:+@$version}"
out="$CACHE/foreign-go/$name-$key/server"
if [ -x "$out" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$(dirname "$out")"
exec 9>"$CACHE/foreign-go/.lock"
flock 9   # one build at a time per machine (tools.sh and tests may race)
if [ ! -x "$out" ]; then
  start=$SECONDS
  if [ -z "$version" ]; then
    # -mod=readonly: the pins in go.mod/go.sum are the versions tested; -trimpath keeps paths out of stack traces.
    (cd "$src" && go build -mod=readonly -trimpath -ldflags="-s -w" -o "$out.tmp" .) >&2
  else
    module="$(sed -n 's/^require \(github.com\/[^ ]*\) v.*/\1/p' "$src/go.mod" | head -1)"
    work="$(dirname "$out")/src"
    rm -rf "$work" && mkdir -p "$work" && cp "$src"/go.mod "$src"/go.sum "$src"/*.go "$work"/
    (cd "$work" && go get "$module@$version" && go mod tidy && go build -trimpath -ldflags="-s -w" -o "$out.tmp" .) >&2
  fi
  mv -f "$out.tmp" "$out"
  claim_build "$(dirname "$out")" "$ROOT"
  prune_own_builds "$CACHE/foreign-go" "$name" "$name-$key" "$ROOT"   # this checkout's older sources' builds only
  echo "build-foreign-go: built $name in $((SECONDS - start))s: $out" >&2
fi
echo "$out"
