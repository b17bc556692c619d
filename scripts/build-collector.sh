#!/usr/bin/env bash
# Build the errscope OpenTelemetry Collector with the official builder (OCB) once per machine and print
# the binary's path. Cached by the hash of collector/builder-config.yaml (+ the participle patch below, Go version/platform), so a
# second call is instant. Also: `scripts/build-collector.sh telemetrygen` installs and prints telemetrygen
# (the load generator bench/bench_collector.py uses), cached the same way.
#
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# Build logs go to <cache>/otelcol/last-build.log; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MANIFEST="$ROOT/collector/builder-config.yaml"
OTEL_VERSION=v0.161.0
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"

if ! command -v go >/dev/null; then
  echo "build-collector: go not found on PATH" >&2
  exit 2
fi
mkdir -p "$CACHE/bin" "$CACHE/otelcol"

# go install <pkg>@<version> into the cache, under a versioned name; prints the path.
go_tool() {
  local pkg="$1" name="$2" dest="$CACHE/bin/$2-$OTEL_VERSION"
  if [ ! -x "$dest" ]; then
    local tmp
    tmp="$(mktemp -d "$CACHE/bin/.install.XXXXXX")"
    echo "build-collector: go install $pkg@$OTEL_VERSION" >&2
    GOBIN="$tmp" go install "$pkg@$OTEL_VERSION" >&2
    mv -f "$tmp/$name" "$dest"
    rm -rf "$tmp"
  fi
  echo "$dest"
}

exec 9>"$CACHE/.lock"
# one build at a time per machine (tools.sh, tests and bench may race); a wait of minutes is said, not silent
if ! flock -n 9; then
  echo "build-collector: waiting for another build to finish (lock $CACHE/.lock)" >&2
  flock 9
fi

if [ "${1:-}" = "telemetrygen" ]; then
  go_tool github.com/open-telemetry/opentelemetry-collector-contrib/cmd/telemetrygen telemetrygen
  exit 0
fi

# OTTL's parser (participle) unquotes a string literal by appending one character at a time to a Go string:
# time and garbage quadratic in the literal's length. Each scrubbing statement of collector/config.yaml holds
# the ~42 KB combined pattern, and the Collector parses each of them twice (validating, then building): that
# was 8.7 s of a start on a quiet machine, over 60 s at load ~17. The build replaces participle with the
# same release whose unquote appends to a strings.Builder (the same string, linear). The version is the one
# OTTL's own go.mod requires. PARTICIPLE_PATCH names the edit in the cache key.
PARTICIPLE_PATCH="unquote-strings-builder-1"
patch_participle() {  # $1: directory to copy the patched module into
  local version dir
  version="$(go mod download -json "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl@$OTEL_VERSION" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p' | xargs grep -m1 'github.com/alecthomas/participle/v2 ' | awk '{print $2}')"
  dir="$(go mod download -json "github.com/alecthomas/participle/v2@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$version" ] && [ -f "$dir/map.go" ] || { echo "build-collector: participle not found ($version)" >&2; return 1; }
  cp -r "$dir" "$1"
  chmod -R u+w "$1"
  perl -0pi -e 's/\tout := ""\n(\tfor s != "" \{\n.*?\n)\t\tout \+= string\(value\)\n\t\}\n\treturn out, nil/\tvar out strings.Builder\n\tout.Grow(len(s))\n$1\t\tout.WriteRune(value)\n\t}\n\treturn out.String(), nil/s' "$1/map.go"
  grep -q 'out.WriteRune(value)' "$1/map.go" || { echo "build-collector: participle $version: unquote not patched" >&2; return 1; }
  echo "$version"
}

key="$( { cat "$MANIFEST"; echo "$PARTICIPLE_PATCH"; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)"
out="$CACHE/otelcol/$key/otelcol-errscope"
if [ -x "$out" ]; then
  echo "$out"
  exit 0
fi

builder="$(go_tool go.opentelemetry.io/collector/cmd/builder builder)"
work="$(mktemp -d "$CACHE/otelcol/.build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$MANIFEST" "$work/builder-config.yaml"
participle_version="$(patch_participle "$work/participle")"
# the manifest ends with its `replaces:` list (the generated go.mod is in $work/_build)
printf '  - github.com/alecthomas/participle/v2 => %s\n' "$work/participle" >>"$work/builder-config.yaml"
log="$CACHE/otelcol/last-build.log"
echo "build-collector: building otelcol-errscope ($key, participle $participle_version patched); this takes minutes the first time, log: $log" >&2
start=$SECONDS
if ! (cd "$work" && "$builder" --config=builder-config.yaml --ldflags="-s -w") >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "build-collector: build failed (full log: $log)" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
mv -f "$work/_build/otelcol-errscope" "$out.tmp"
mv -f "$out.tmp" "$out"
echo "build-collector: built in $((SECONDS - start))s: $out" >&2
echo "$out"
