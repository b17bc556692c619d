"""Fixtures for the client tests: in-memory telemetry, real stdio and streamable HTTP servers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope.testing import CapturedTelemetry

SERVERS = Path(__file__).parent / "servers"


@pytest.fixture
def telemetry() -> Iterator[CapturedTelemetry]:
    """SDK providers wired to in-memory exporters, passed to ToolClient explicitly."""
    with CapturedTelemetry.installed() as captured:
        yield captured


class ForeignLog:
    """The foreign server's own record of the wire (JSON lines)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]
        return [r for r in rows if kind is None or r["kind"] == kind]

    def received(self, method: str) -> list[dict[str, Any]]:
        return [r for r in self.events("recv") if r["method"] == method]

    async def wait(self, kind: str, count: int, *, method: str | None = None, timeout: float = 10.0) -> None:
        """Poll until the server has logged ``count`` events of ``kind`` (``recv`` of ``method``)."""
        import anyio

        with anyio.fail_after(timeout):
            while len(self.received(method) if method else self.events(kind)) < count:
                await anyio.sleep(0.02)


@pytest.fixture
def foreign(tmp_path: Path) -> Iterator[Any]:
    """Factory: ``foreign("d04")`` → (StdioServerParameters, ForeignLog)."""

    def make(scenario: str) -> tuple[StdioServerParameters, ForeignLog]:
        log = tmp_path / f"foreign-{scenario}.jsonl"
        params = StdioServerParameters(
            command=sys.executable,
            args=[str(SERVERS / "foreign.py"), scenario],
            env={"FOREIGN_LOG": str(log)},
        )
        return params, ForeignLog(log)

    yield make


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port}")


@pytest.fixture
def http_server() -> Iterator[Any]:
    """Factory: start ``servers/<script>`` as ``script http PORT`` and return its MCP URL."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(script: str, *extra: str) -> str:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / script), "http", str(port), *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(proc)
        wait_port(port, timeout=30)  # a loaded 2-core machine takes its time importing the SDK
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def stdio(script: str, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / script), *args])
