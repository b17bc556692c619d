#!/usr/bin/env bash
# Build the Java MCP test server (tests/foreign/java, on io.modelcontextprotocol.sdk:mcp from Maven Central) once
# per machine and print the path of a launcher that runs it on stdio. Cached by the hash of its sources, pom.xml
# and the JDK: a second call is instant and offline.
#
#   scripts/build-foreign-java.sh [VERSION]
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# Maven only resolves the pinned jars (into ~/.m2) and writes the classpath; javac compiles the one source file,
# so no Maven build plugins are downloaded. VERSION (e.g. 2.1.0) builds the same server on another release of
# io.modelcontextprotocol.sdk:mcp: a copy of pom.xml pinned to it is resolved; the tree's pom.xml is not touched.
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/own-builds.sh"
src="$ROOT/tests/foreign/java"
version="${1:-}"
case "$version" in ""|[0-9]*.[0-9]*.[0-9]*) ;; *) echo "build-foreign-java: bad version $version" >&2; exit 2;; esac
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
for tool in java javac mvn; do
  command -v "$tool" >/dev/null || { echo "build-foreign-java: $tool not found on PATH" >&2; exit 2; }
done

key="$( { cat "$src/pom.xml" "$src"/src/main/java/errscope/*.java; java -version 2>&1; [ -z "$version" ] || echo "$version"; } | sha256sum | cut -c1-16)"
name="server${version:+@$version}"
out="$CACHE/foreign-java/$name-$key"
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
  pom="$src/pom.xml"
  if [ -n "$version" ]; then
    pom="$out.tmp/pom.xml"
    sed "s|<artifactId>mcp</artifactId><version>[^<]*</version>|<artifactId>mcp</artifactId><version>$version</version>|" \
      "$src/pom.xml" > "$pom"
  fi
  mvn -q -B -f "$pom" dependency:build-classpath -Dmdep.outputFile="$out.tmp/classpath" >&2
  javac -d "$out.tmp/classes" -cp "$(cat "$out.tmp/classpath")" "$src"/src/main/java/errscope/*.java >&2
  cat > "$out.tmp/server" <<LAUNCH
#!/bin/sh
# -XX:TieredStopAtLevel=1 -Xshare:auto: start fast (tests start the server often); the tools do no heavy work.
exec java -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$out/classes:\$(cat "$out/classpath")" errscope.FailingServer "\$@"
LAUNCH
  chmod +x "$out.tmp/server"
  rm -rf "$out" && mv "$out.tmp" "$out"
  claim_build "$out" "$ROOT"
  prune_own_builds "$CACHE/foreign-java" "$name" "$name-$key" "$ROOT"   # this checkout's older builds only
  echo "build-foreign-java: built in $((SECONDS - start))s: $out" >&2
fi
echo "$out/server"
