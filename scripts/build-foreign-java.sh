#!/usr/bin/env bash
# Build the Java MCP test server (tests/foreign/java, on io.modelcontextprotocol.sdk:mcp from Maven Central) once
# per machine and print the path of a launcher that runs it on stdio. Cached by the hash of its sources, pom.xml
# and the JDK: a second call is instant and offline.
#
#   scripts/build-foreign-java.sh
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# Maven only resolves the pinned jars (into ~/.m2) and writes the classpath; javac compiles the one source file,
# so no Maven build plugins are downloaded. Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
src="$ROOT/tests/foreign/java"
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
for tool in java javac mvn; do
  command -v "$tool" >/dev/null || { echo "build-foreign-java: $tool not found on PATH" >&2; exit 2; }
done

key="$( { cat "$src/pom.xml" "$src"/src/main/java/errscope/*.java; java -version 2>&1; } | sha256sum | cut -c1-16)"
out="$CACHE/foreign-java/server-$key"
if [ -x "$out/server" ]; then
  echo "$out/server"
  exit 0
fi
mkdir -p "$CACHE/foreign-java"
exec 9>"$CACHE/foreign-java/.lock"
flock 9   # one build at a time per machine (tools.sh and tests may race)
if [ ! -x "$out/server" ]; then
  start=$SECONDS
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  mvn -q -B -f "$src/pom.xml" dependency:build-classpath -Dmdep.outputFile="$out.tmp/classpath" >&2
  javac -d "$out.tmp/classes" -cp "$(cat "$out.tmp/classpath")" "$src"/src/main/java/errscope/*.java >&2
  cat > "$out.tmp/server" <<LAUNCH
#!/bin/sh
# -XX:TieredStopAtLevel=1 -Xshare:auto: start fast (tests start the server often); the tools do no heavy work.
exec java -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$out/classes:\$(cat "$out/classpath")" errscope.FailingServer "\$@"
LAUNCH
  chmod +x "$out.tmp/server"
  rm -rf "$out" && mv "$out.tmp" "$out"
  find "$CACHE/foreign-java" -maxdepth 1 -name "server-*" ! -name "server-$key" -exec rm -rf {} +   # older builds
  echo "build-foreign-java: built in $((SECONDS - start))s: $out" >&2
fi
echo "$out/server"
