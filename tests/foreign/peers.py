"""Foreign MCP peers for tests: the TypeScript SDK server, Python servers on HTTP, the conformance suite.

Everything here runs real software installed by ``scripts/tools.sh``: from ``npm ci`` in ``tests/npm``, Node 22 (the
npm ``node`` package), the TypeScript SDK v1 (``@modelcontextprotocol/sdk``) and v2 (``@modelcontextprotocol/server``)
and the official conformance suite (``@modelcontextprotocol/conformance``); the Go, Java and Rust servers of
``tests/foreign/go``, ``tests/foreign/java`` and ``tests/foreign/rust``.
Each helper calls :func:`tests.conftest.require` first, so a test skips on a laptop without them and fails
under ``ERRSCOPE_REQUIRE_STACK=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final, NamedTuple

from mcp.client.stdio import StdioServerParameters

from scripts.stackrun import load_factor
from tests.conftest import require

REPO = Path(__file__).resolve().parents[2]
NPM = REPO / "tests" / "npm"
NPM_BIN = NPM / "node_modules" / ".bin"
TS_FAILING_SERVER = NPM / "servers" / "ts_failing_server.mjs"
PY_SERVERS = Path(__file__).resolve().parent / "servers"
PEER_VENVS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "errscope" / "peers"
"""The throwaway venvs ``scripts/tools.sh`` builds for Python SDKs the project venv cannot hold (``mcp<2``)."""

_RUN_DIR: Final = re.compile(r"^server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$")  # server-<scenario>-<ISO time>
# Not a credential: the TS server puts it into errors so tests can assert it never reaches the model or telemetry.
FAKE_SECRET = "sk_live_51FAKEerrscopeTestKey0000000000000000"


REJECTED_ARGUMENTS: Final = (
    ("wrong_type", "add", {"a": "seven", "b": 2}),
    ("missing", "add", {"a": 1}),
    ("enum", "create_label", {"order_id": "ORD-1234", "weight_kg": 2, "service": "hovercraft"}),
    ("pattern", "create_label", {"order_id": "parcel-17", "weight_kg": 2, "service": "ground"}),
    ("bound", "create_label", {"order_id": "ORD-1234", "weight_kg": -7.25, "service": "ground"}),
)
"""(rule broken, tool, arguments): the calls every failing test server must reject, one rule each."""


def node() -> str:
    """Path of Node 22 from ``tests/npm`` (the system ``node`` may be older than the suite needs)."""
    path = NPM_BIN / "node"
    require(path.exists(), f"Node 22 is not installed in {NPM_BIN} (run scripts/tools.sh)")
    return str(path)


def node_env() -> dict[str, str]:
    """The environment for npm tools: Node 22 first on PATH, so their ``#!/usr/bin/env node`` finds it."""
    node()
    return {**os.environ, "PATH": f"{NPM_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def ts_server_stdio(sdk: str = "v2") -> StdioServerParameters:
    """The TypeScript failing-tools server on stdio, built on SDK ``v2`` or ``v1``."""
    return StdioServerParameters(
        command=node(), args=[str(TS_FAILING_SERVER), "--sdk", sdk, "--transport", "stdio"], cwd=str(NPM)
    )


GO_SDKS = ("gosdk", "mcpgo")
"""The Go MCP servers in ``tests/foreign/go``: the official ``modelcontextprotocol/go-sdk`` and ``mark3labs/mcp-go``."""

GO_OLD_RELEASES = ("gosdk@v1.2.0",)
"""The same servers on an older SDK release whose wording differs: go-sdk 1.2.0 rejects arguments with a JSON-RPC
``-32602 "invalid params: validating ..."`` (1.8 answers ``isError``) and reports ``exclusiveMinimum``/``minimum``
where 1.8 reports the first failing keyword in another order. mcp-go 0.56 words everything as 1.2.1 does (checked
with ``python -m tests.foreign.messages``), so it is not built."""


def go_server(sdk: str) -> str:
    """Path of the Go failing-tools server on ``sdk`` (one of :data:`GO_SDKS`, or ``sdk@version`` as in
    :data:`GO_OLD_RELEASES`), built once per machine.

    ``scripts/build-foreign-go.sh`` builds it on first use (modules from the Go proxy) and answers from its cache
    after that; without Go the test skips, or fails under ``ERRSCOPE_REQUIRE_STACK=1``.
    """
    require(shutil.which("go") is not None, "go is not installed (the Go MCP servers are built with it)")
    build = subprocess.run([str(REPO / "scripts" / "build-foreign-go.sh"), *sdk.split("@", 1)], capture_output=True,
                           text=True, timeout=600, check=False)
    require(build.returncode == 0, f"the {sdk} MCP server did not build: {build.stderr[-2000:]}")
    return build.stdout.strip()


def go_server_stdio(sdk: str) -> StdioServerParameters:
    """The Go failing-tools server on ``sdk`` over stdio."""
    return StdioServerParameters(command=go_server(sdk), args=["--transport", "stdio"])


@contextmanager
def go_server_http(sdk: str) -> Iterator[str]:
    """Run the Go failing-tools server on ``sdk`` over streamable HTTP; yield its ``/mcp`` URL."""
    port = _free_port()
    with _serving([go_server(sdk), "--transport", "http", "--port", str(port)], port, cwd=REPO) as url:
        yield url


PY_FAILING_PEERS = {
    "mcp-1.9": ("mcp1", "mcp1"),  # mcp 1.9.4's bundled FastMCP
    "mcp-1.30": ("fastmcp2", "mcp1"),  # mcp 1.30.0's bundled FastMCP (the release FastMCP 2 pins)
    "fastmcp-2": ("fastmcp2", "fastmcp"),  # FastMCP 2.14.7
}
"""Python SDKs behind ``tests/foreign/servers/py_failing_server.py``: name -> (venv under :data:`PEER_VENVS`, style)."""


def py_failing_stdio(peer: str) -> StdioServerParameters:
    """The Python failing-tools server on ``peer`` (a key of :data:`PY_FAILING_PEERS`) over stdio."""
    venv, style = PY_FAILING_PEERS[peer]
    python = PEER_VENVS / venv / "bin" / "python"
    require(python.exists(), f"the {venv} venv is not built in {PEER_VENVS} (run scripts/tools.sh)")
    return StdioServerParameters(command=str(python), args=[str(PY_SERVERS / "py_failing_server.py"), style])


JAVA_NEW_RELEASE = "2.1.0"
"""A later ``io.modelcontextprotocol.sdk:mcp`` than the pinned 1.1.5 whose wording differs: 2.x validates a call's
arguments against the tool's input schema (networknt json-schema-validator 3) and answers an ``isError`` result
``Tool (add) input validation failed: Validation failed: JSON schema validation errors: [/a: string found, number
expected]``, where 1.x let the arguments into the tool. 2.0.x words it the same; 1.0.x-1.1.x as 1.1.5."""


def java_server_stdio(version: str | None = None) -> StdioServerParameters:
    """The Java failing-tools server (``tests/foreign/java``, the Java MCP SDK) over stdio, built once per machine;
    ``version`` builds it on another release of the SDK (:data:`JAVA_NEW_RELEASE`)."""
    require(all(shutil.which(tool) for tool in ("java", "javac", "mvn")), "java, javac or mvn is not installed")
    build = subprocess.run([str(REPO / "scripts" / "build-foreign-java.sh"), *([version] if version else [])],
                           capture_output=True, text=True, timeout=600, check=False)
    require(build.returncode == 0, f"the Java MCP server did not build: {build.stderr[-2000:]}")
    return StdioServerParameters(command=build.stdout.strip(), args=[])


def rust_server() -> str:
    """Path of the Rust failing-tools server (``tests/foreign/rust``, the official Rust SDK ``rmcp``), built once
    per machine by ``scripts/build-foreign-rust.sh`` (crates from crates.io); without cargo the test skips, or
    fails under ``ERRSCOPE_REQUIRE_STACK=1``."""
    require(shutil.which("cargo") is not None, "cargo is not installed (the Rust MCP server is built with it)")
    build = subprocess.run([str(REPO / "scripts" / "build-foreign-rust.sh")], capture_output=True, text=True,
                           timeout=1200, check=False)
    require(build.returncode == 0, f"the Rust MCP server did not build: {build.stderr[-2000:]}")
    return build.stdout.strip()


def rust_server_stdio(*flags: str) -> StdioServerParameters:
    """The Rust failing-tools server (``rmcp``) over stdio; ``--no-tools`` serves one without the tools capability."""
    return StdioServerParameters(command=rust_server(), args=["--transport", "stdio", *flags])


@contextmanager
def rust_server_http(*flags: str) -> Iterator[str]:
    """Run the Rust failing-tools server (``rmcp``) over streamable HTTP; yield its ``/mcp`` URL."""
    port = _free_port()
    with _serving([rust_server(), "--transport", "http", "--port", str(port), *flags], port, cwd=REPO) as url:
        yield url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Wait until something listens on ``port``: ``timeout`` seconds on an idle machine, stretched by its load per CPU
    (:func:`scripts.stackrun.load_factor`); a server that exits fails at once."""
    start = time.monotonic()
    factor = load_factor()
    while time.monotonic() < start + timeout * factor:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening on 127.0.0.1:{port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
        factor = max(factor, load_factor())
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {time.monotonic() - start:.0f} s ({timeout:g} s "
                       f"stretched x{factor:.1f} for a load of {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


@contextmanager
def _serving(argv: Sequence[str], port: int, *, cwd: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    proc = subprocess.Popen(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        # SIGINT, not SIGTERM: uvicorn re-raises the signal it caught after shutting down, and only SIGINT then
        # unwinds Python (KeyboardInterrupt) so the server's `finally` flushes its telemetry.
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@contextmanager
def ts_server_http(sdk: str = "v2") -> Iterator[str]:
    """Run the TypeScript failing-tools server on streamable HTTP (stateless); yield its ``/mcp`` URL."""
    port = _free_port()
    argv = [node(), str(TS_FAILING_SERVER), "--sdk", sdk, "--transport", "http", "--port", str(port)]
    with _serving(argv, port, cwd=NPM) as url:
        yield url


@contextmanager
def python_server_http(script: str, *args: str) -> Iterator[str]:
    """Run ``tests/foreign/servers/<script> PORT *args`` (a Python MCP server on HTTP); yield its URL."""
    port = _free_port()
    with _serving([sys.executable, str(PY_SERVERS / script), str(port), *args], port, cwd=REPO) as url:
        yield url


class Check(NamedTuple):
    """One conformance check's verdict: ``status`` (``SUCCESS``, ``FAILURE``, ``WARNING``, ``INFO``...) and why."""

    status: str
    error: str | None


def conformance(url: str, *, scenarios: Sequence[str] = (), timeout: float = 120.0) -> dict[str, Check]:
    """Run the official MCP conformance suite's server scenarios against ``url``.

    Args:
        url: the server's streamable HTTP endpoint.
        scenarios: scenario names (``conformance list --server``); empty means the suite's active set.
        timeout: seconds for the whole run; a hung run raises :class:`subprocess.TimeoutExpired`.

    Returns:
        ``{"<scenario>/<check id>": Check}`` for every check; a check id repeated within a scenario gets
        ``#2``, ``#3`` appended.
    """
    cli = NPM_BIN / "conformance"
    require(cli.exists(), f"the conformance suite is not installed in {NPM_BIN} (run scripts/tools.sh)")
    with tempfile.TemporaryDirectory(prefix="errscope-conformance-") as out:
        runs = list(scenarios) or [None]
        for scenario in runs:
            argv = [str(cli), "server", "--url", url, "--output-dir", out]
            if scenario is not None:
                argv += ["--scenario", scenario]
            # Exit status is 1 when any check fails: the caller compares checks, not the exit status.
            subprocess.run(argv, env=node_env(), cwd=out, capture_output=True, timeout=timeout, check=False)
        return _read_checks(Path(out))


def _read_checks(out: Path) -> dict[str, Check]:
    results: dict[str, Check] = {}
    for checks in sorted(out.glob("server-*/checks.json")):
        scenario = _RUN_DIR.sub("", checks.parent.name)
        for check in json.loads(checks.read_text()):
            key = f"{scenario}/{check['id']}"
            n = 2
            while key in results:
                key = f"{scenario}/{check['id']}#{n}"
                n += 1
            results[key] = Check(check["status"], check.get("errorMessage"))
    return results
