"""Run the runtime probes of ``tests/foreign/probes`` against :mod:`tests.foreign.faulty_upstream` and collect the
failure texts they print: real HTTP clients of other runtimes failing on real faults, no text written by hand.

Each probe is one process per runtime that makes every request and prints one JSON object
``{"<client>/<fault>": text}``, so a session pays each runtime's start-up once:

- ``node`` (Node 22 from ``tests/npm``, the one CI installs): ``fetch/`` (undici, ``String(err)``), ``fetch_cause/``
  (``err.message`` plus its ``cause``'s message, as servers add it), ``http/`` (``node:http``/``node:https``);
- ``go`` (``net/http``, ``err.Error()``), built once into the Go build cache and ``~/.cache/errscope/probes``;
- ``java`` (``java.net.http.HttpClient``): ``java/`` (``e.toString()``) and ``java_chain/`` (with each cause on a
  "Caused by: " line);
- ``jvm`` (OkHttp 5 and Apache HttpClient 5 from Maven Central): ``okhttp/``, ``apache/`` (``e.toString()``),
  ``okhttp_chain/``, ``apache_chain/`` (with the causes) and ``okhttp_msg/``, ``apache_msg/`` (``e.getMessage()``
  alone, as Spring AI's tool exception processor hands it to the model); both JVM probes are compiled once by
  ``scripts/build-foreign-java-probe.sh``;
- ``rust`` (``reqwest`` on rustls): ``reqwest/`` (its ``Display``, which prints no source), ``reqwest_alt/`` and
  ``reqwest_debug/`` (``anyhow``'s ``{:#}`` and ``{:?}``: the source chain on one line, or under "Caused by:"), built
  with the Rust MCP test server by ``scripts/build-foreign-rust.sh`` (one package, one target dir);
- ``perl`` (core ``HTTP::Tiny``, https through ``IO::Socket::SSL``): ``tiny/`` ("599 Internal Exception: <the
  exception>" for a failure it made up itself);
- ``python`` (``urllib.request``, as a server outside errscope prints it): ``urllib/`` (``str(e)``) and ``urllib_line/``
  (the traceback's last line);
- ``curl`` (the CLI): ``curl/`` (its error line, "curl: (7) ...") and ``curl_exit/`` (Python's ``CalledProcessError``:
  the command and curl's exit code only).

Without a runtime the caller's test skips (fails under ``ERRSCOPE_REQUIRE_STACK=1``: :func:`tests.conftest.require`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from tests.conftest import require
from tests.foreign.faulty_upstream import FAULTS
from tests.foreign.peers import node, rust_server

REPO: Final = Path(__file__).resolve().parents[2]
PROBES: Final = Path(__file__).resolve().parent / "probes"
CACHE: Final = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "errscope" / "probes"
TIMEOUT_MS: Final = 1500
"""Each client's own timeout: the ``stall`` upstream holds the request past it and ``connect_timeout`` the connect;
every other fault ends far sooner."""

CLIENTS: Final = {"node": ("fetch", "fetch_cause", "http"), "go": ("go",), "java": ("java", "java_chain"),
                  "jvm": ("okhttp", "okhttp_chain", "okhttp_msg", "apache", "apache_chain", "apache_msg"),
                  "rust": ("reqwest", "reqwest_alt", "reqwest_debug"), "perl": ("tiny",),
                  "python": ("urllib", "urllib_line"), "curl": ("curl", "curl_exit")}
"""Runtime -> the prefixes of the texts its probe prints."""
CASES: Final = tuple(f"{client}/{fault}" for clients in CLIENTS.values() for client in clients for fault in FAULTS)


def _go_probe() -> list[str]:
    require(shutil.which("go") is not None, "go is not installed (the Go runtime probe is built with it)")
    source = PROBES / "probe.go"
    binary = CACHE / f"go-{hashlib.sha256(source.read_bytes()).hexdigest()[:16]}" / "probe"
    if not binary.exists():
        binary.parent.mkdir(parents=True, exist_ok=True)
        built = subprocess.run(["go", "build", "-o", str(binary), str(source)], capture_output=True, text=True,
                               timeout=300, check=False)
        require(built.returncode == 0, f"the Go probe did not build: {built.stderr[-2000:]}")
    return [str(binary)]


def _jvm_probe(main: str) -> list[str]:
    require(all(shutil.which(tool) for tool in ("java", "javac", "mvn")),
            "java, javac or mvn is not installed (the JVM runtime probes are built with them)")
    build = subprocess.run([str(REPO / "scripts" / "build-foreign-java-probe.sh")], capture_output=True, text=True,
                           timeout=600, check=False)
    require(build.returncode == 0, f"the JVM probes did not build: {build.stderr[-2000:]}")
    return [build.stdout.strip(), main]


def _rust_probe() -> list[str]:
    probe = Path(rust_server()).with_name("reqwest-probe")  # built beside the server (scripts/build-foreign-rust.sh)
    require(probe.exists(), f"the reqwest probe was not built beside the Rust MCP server: {probe}")
    return [str(probe)]


def _perl_probe() -> list[str]:
    require(shutil.which("perl") is not None, "perl is not installed (the HTTP::Tiny runtime probe runs on it)")
    ssl = subprocess.run(["perl", "-MIO::Socket::SSL", "-e1"], capture_output=True, check=False, timeout=60)
    require(ssl.returncode == 0, "IO::Socket::SSL is not installed (HTTP::Tiny's https; Debian: libio-socket-ssl-perl)")
    return ["perl", str(PROBES / "probe.pl")]


def _curl_probe() -> list[str]:
    require(shutil.which("curl") is not None, "curl is not installed (the curl runtime probe runs it)")
    return [sys.executable, str(PROBES / "probe_curl.py")]


def probe_command(runtime: str) -> list[str]:
    """The argv that runs ``runtime``'s probe (skips, or fails under ``ERRSCOPE_REQUIRE_STACK=1``, without it)."""
    commands = {"node": lambda: [node(), str(PROBES / "probe.mjs")], "go": _go_probe,
                "java": lambda: _jvm_probe("Probe"), "jvm": lambda: _jvm_probe("LibraryProbe"),
                "rust": _rust_probe, "perl": _perl_probe, "curl": _curl_probe,
                "python": lambda: [sys.executable, str(PROBES / "probe_urllib.py")]}
    return commands[runtime]()


def run_probe(runtime: str, urls: dict[str, str]) -> dict[str, str | None]:
    """``runtime``'s probe run once against ``urls`` (``{fault: url}``): ``{"<client>/<fault>": text}``, ``None``
    for a request that did not fail."""
    argv = [*probe_command(runtime), str(TIMEOUT_MS), *(f"{fault}={url}" for fault, url in urls.items())]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, f"the {runtime} probe failed: {done.stderr[-2000:]}"
    texts: dict[str, str | None] = json.loads(done.stdout)
    return texts
