"""Soak: hundreds of reconnects and mixed tool calls against a real errscope server; RSS and table sizes.

``python -m bench.soak [--cycles N] [--seconds S]`` (``make soak``: ten minutes). Prints one JSON
line. The server is the test catalogue (``MCPServer`` with errscope) as a real streamable HTTP
process on 127.0.0.1. Each cycle drops the client's session (as a lost connection would), and the
next call re-opens it; then an answered call, a tool failure, an unknown tool (which re-lists) and,
every tenth cycle, a call that times out and is cancelled. Figures are taken after a warm-up and at
the end, both after a full garbage collection: the client's RSS, the server's RSS and every
errscope table (``errscope._tables``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider

from errscope._tables import table_sizes
from errscope.client import CircuitBreaker, ToolClient

REPO = Path(__file__).resolve().parent.parent
WARM_UP = 10


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size in MiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _snapshot(server_pid: int) -> dict[str, Any]:
    gc.collect()
    return {
        "rss_mb": rss_mb(),
        "server_rss_mb": rss_mb(server_pid),
        "tables": {table.value: size for table, size in table_sizes().items()},
    }


async def _soak(url: str, server_pid: int, *, cycles: int | None, seconds: float | None) -> dict[str, Any]:
    calls = reconnects = 0
    outcomes: dict[str, int] = {}
    # Real SDK providers with nothing exported: spans and points are made, none are kept.
    providers = {"tracer_provider": TracerProvider(), "meter_provider": MeterProvider([InMemoryMetricReader()])}
    async with ToolClient(
        url, timeout=10, late_response_grace=0, breaker=CircuitBreaker(failure_threshold=10_000), **providers
    ) as tc:
        start: dict[str, Any] = {}
        started = time.monotonic()
        cycle = 0
        while (cycles is None or cycle < cycles + WARM_UP) and (
            seconds is None or time.monotonic() - started < seconds
        ):
            if cycle == WARM_UP:
                start = _snapshot(server_pid)
            current = tc.connection.current
            if current is not None:  # the session is lost; the next call re-opens it
                tc.connection.close()
                await current.done.wait()
                reconnects += 1
            batch = [
                tc.call_tool("get_order", {"order_id": "A-1"}),
                tc.call_tool("read_registry_key", {"path": "HKLM"}),
                tc.call_tool("no_such_tool", {}),
            ]
            if cycle % 10 == 0:
                batch.append(tc.call_tool("export_report", {"seconds": 5}, timeout=1.0))
            for pending in batch:
                result = await pending
                calls += 1
                outcomes[result.outcome.value] = outcomes.get(result.outcome.value, 0) + 1
            cycle += 1
        elapsed = time.monotonic() - started
    end = _snapshot(server_pid)
    return {
        "cycles": cycle,
        "reconnects": reconnects,
        "calls": calls,
        "outcomes": outcomes,
        "seconds": round(elapsed, 1),
        "start": start,
        "end": end,
    }


def run(*, cycles: int | None = 300, seconds: float | None = None) -> dict[str, Any]:
    """Serve the catalogue on a free port, soak it, stop it; returns the report."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "tests.servers.serve", "mcpserver", "http", str(port)],
            cwd=REPO,
            env={**os.environ, "ERRSCOPE_OUT": out},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the soak server did not start")
                time.sleep(0.05)
            return anyio.run(lambda: _soak(f"http://127.0.0.1:{port}/mcp", server.pid, cycles=cycles, seconds=seconds))
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=None, help="reconnect cycles after the warm-up")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    args = parser.parse_args()
    cycles = args.cycles if args.cycles is not None or args.seconds is not None else 300
    print(json.dumps({"bench": "soak", **run(cycles=cycles, seconds=args.seconds)}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
