"""Real servers and the real ``errscope proxy`` command as subprocesses, on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import require
from tests.foreign.peers import _wait_port as wait_port

if TYPE_CHECKING:
    from tests.proxy.test_heldout_cases_3 import RawHost

ROOT = Path(__file__).resolve().parents[2]
NPM = ROOT / "tests" / "npm" / "node_modules"
NODE = NPM / ".bin" / "node"
EVERYTHING = NPM / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
LOOPBACK = ["--require", str(ROOT / "tests" / "npm" / "servers" / "loopback.cjs")]
"""Node options that keep server-everything's HTTP server on 127.0.0.1 (it names no host)."""
PLAIN = [sys.executable, "-m", "tests.proxy.plain_server"]


@pytest.fixture
def hosts() -> Iterator[list[RawHost]]:
    """The raw hosts a test starts (it appends them); each is closed when the test ends."""
    started: list[RawHost] = []
    yield started
    for host in started:
        host.close()


def require_everything() -> None:
    require(NODE.exists() and EVERYTHING.exists(), "tests/npm is not installed (scripts/tools.sh runs npm ci)")


def proxy_command(out: Path, *args: str) -> list[str]:
    """``errscope proxy --out OUT ARGS...`` with this interpreter."""
    return [sys.executable, "-m", "errscope.cli", "proxy", "--out", str(out), *args]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` until it accepts connections on ``port``; stop it afterwards (SIGTERM, then kill)."""
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)
    try:
        wait_port(port, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def telemetry_text(out: Path) -> str:
    """Everything the proxy exported (OTLP-JSON spans, metrics, logs) as one string."""
    return "".join(path.read_text() for path in sorted(out.glob("*.jsonl")))


async def call_all(target: Any, calls: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Make each of ``calls`` (label -> tool, arguments) on ``target``, then a ``slow_report`` with progress.

    Returns, per label, the channel (``"execution"`` for ``isError``, ``"protocol"`` for a JSON-RPC error, ``None``
    for a success), the text and ``_meta``/``data`` (and the code of a protocol error); under ``"progress"`` the
    report's text and the progress values seen.
    """
    seen: dict[str, Any] = {}
    async with Client(target) as client:
        for label, (tool, arguments) in calls.items():
            try:
                result = await client.call_tool(tool, arguments)
                seen[label] = {"channel": "execution" if result.is_error else None, "text": result.content[0].text,
                               "meta": result.meta or {}}
            except MCPError as exc:
                seen[label] = {"channel": "protocol", "code": exc.code, "text": exc.message, "meta": exc.data or {}}
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        done = await client.call_tool("slow_report", {"steps": 3, "delay_ms": 20}, progress_callback=on_progress)
        seen["progress"] = {"text": done.content[0].text, "values": progress}
    return seen
