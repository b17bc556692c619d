#!/usr/bin/env bash
# Build the JVM runtime probes (tests/foreign/probes: Probe.java on java.net.http, java/LibraryProbe.java on OkHttp and
# Apache HttpClient 5 from Maven Central) once per machine and print the path of a launcher that runs one of them:
# `probe Probe|LibraryProbe ARGS...`. Cached by the hash of the sources, pom.xml and the JDK: a second call is instant
# and offline.
#
#   scripts/build-foreign-java-probe.sh
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# Maven only resolves the pinned jars (into ~/.m2) and writes the classpath; javac compiles the two source files, so no
# Maven build plugins are downloaded. Builds of other sources (another worktree's, an older commit's) are left alone:
# each is a few classes and a classpath file (the jars are shared in ~/.m2), and a test run elsewhere may be using it.
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
src="$ROOT/tests/foreign/probes"
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
for tool in java javac mvn; do
  command -v "$tool" >/dev/null || { echo "build-foreign-java-probe: $tool not found on PATH" >&2; exit 2; }
done

key="$( { cat "$src/java/pom.xml" "$src/java/LibraryProbe.java" "$src/Probe.java"; java -version 2>&1; } | sha256sum | cut -c1-16)"
out="$CACHE/foreign-java/probe-$key"
if [ -x "$out/probe" ]; then
  echo "$out/probe"
  exit 0
fi
mkdir -p "$CACHE/foreign-java"
exec 9>"$CACHE/foreign-java/.lock"
flock 9   # one build at a time per machine (tools.sh and tests may race)
if [ ! -x "$out/probe" ]; then
  start=$SECONDS
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  mvn -q -B -f "$src/java/pom.xml" dependency:build-classpath -Dmdep.outputFile="$out.tmp/classpath" >&2
  javac -nowarn -d "$out.tmp/classes" -cp "$(cat "$out.tmp/classpath")" "$src/Probe.java" "$src/java/LibraryProbe.java" >&2
  cat > "$out.tmp/probe" <<LAUNCH
#!/bin/sh
# -XX:TieredStopAtLevel=1 -Xshare:auto: start fast; a probe makes a few requests and exits.
exec java -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$out/classes:\$(cat "$out/classpath")" "\$@"
LAUNCH
  chmod +x "$out.tmp/probe"
  rm -rf "$out" && mv "$out.tmp" "$out"
  echo "build-foreign-java-probe: built in $((SECONDS - start))s: $out" >&2
fi
echo "$out/probe"
