#!/usr/bin/env bash
# Build the Rust MCP test server (tests/foreign/rust, on the official Rust SDK `rmcp` from crates.io) and, in the same
# package, the reqwest runtime probe (tests/foreign/probes/probe.rs) once per machine and print the server's path; the
# probe is `reqwest-probe` beside it. Cached by the hash of their sources, Cargo.toml/Cargo.lock and the toolchain:
# a second call is instant and offline.
#
#   scripts/build-foreign-rust.sh [VERSION]
#   ERRSCOPE_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/errscope)
#
# A dev build (no optimisation; the tools do no heavy work) with rmcp's default features off, tokio's few and axum
# for the HTTP transport: about 75 s of CPU when fresh (crates from crates.io included); 4.5 min of wall time
# measured on a 2-core machine shared with other builds. A source edit rebuilds only this crate (~10 s).
# The probe adds reqwest, rustls and ring (the crates it shares with the server are built once): +42% when fresh, 138 s
# of CPU (user+sys) for the server alone and 197 s for both, measured one after the other on a loaded 2-core machine
# (the 75 s above was an idle one's): about +30 s on an idle one.
# VERSION (e.g. 3.0.0) builds the same server on another rmcp release: a copy of the crate pinned to it is resolved
# (crates.io) and built in the cache, with its own target dir; the tree's Cargo.toml/Cargo.lock are not touched.
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/own-builds.sh"
src="$ROOT/tests/foreign/rust"
version="${1:-}"
case "$version" in ""|[0-9]*.[0-9]*.[0-9]*) ;; *) echo "build-foreign-rust: bad version $version" >&2; exit 2;; esac
CACHE="${ERRSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/errscope}"
command -v cargo >/dev/null || { echo "build-foreign-rust: cargo not found on PATH" >&2; exit 2; }

probe="$ROOT/tests/foreign/probes/probe.rs"   # Cargo.toml's [[bin]] path ../probes/probe.rs
key="$( { cat "$src/Cargo.toml" "$src/Cargo.lock" "$src"/src/*.rs "$probe"; cargo --version; rustc -vV; [ -z "$version" ] || echo "$version"; } | sha256sum | cut -c1-16)"
name="server${version:+@$version}"
out="$CACHE/foreign-rust/$name-$key/rmcp-failing-server"
if [ -x "$out" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$CACHE/foreign-rust"
exec 9>"$CACHE/foreign-rust/.lock"
flock 9   # one build at a time per machine (tools.sh and tests may race)
if [ ! -x "$out" ]; then
  start=$SECONDS
  # --locked: the pins in Cargo.lock are the versions tested. The target dir is shared between source versions
  # (an edit rebuilds only this crate); the binary is copied out under the sources' hash.
  mkdir -p "$(dirname "$out")"
  if [ -z "$version" ]; then
    CARGO_TARGET_DIR="$CACHE/foreign-rust/target" cargo build --locked --quiet --manifest-path "$src/Cargo.toml" >&2
    cp "$CACHE/foreign-rust/target/debug/reqwest-probe" "$(dirname "$out")/reqwest-probe"
    cp "$CACHE/foreign-rust/target/debug/rmcp-failing-server" "$out.tmp"
  else
    work="$(dirname "$out")/src"
    rm -rf "$work" && mkdir -p "$work" && cp -r "$src/Cargo.toml" "$src/Cargo.lock" "$src/src" "$work"/
    mkdir -p "$(dirname "$work")/probes" && cp "$probe" "$(dirname "$work")/probes/"   # the [[bin]] path
    sed -i "s|^rmcp = { version = \"=[^\"]*\"|rmcp = { version = \"=$version\"|" "$work/Cargo.toml"
    CARGO_TARGET_DIR="$CACHE/foreign-rust/target-$version" cargo build --quiet --manifest-path "$work/Cargo.toml" >&2
    cp "$CACHE/foreign-rust/target-$version/debug/rmcp-failing-server" "$out.tmp"
  fi
  mv -f "$out.tmp" "$out"
  claim_build "$(dirname "$out")" "$ROOT"
  prune_own_builds "$CACHE/foreign-rust" "$name" "$name-$key" "$ROOT"   # this checkout's older builds only
  echo "build-foreign-rust: built in $((SECONDS - start))s: $out" >&2
fi
echo "$out"
