"""A raw JSON-RPC peer over a real stdio subprocess: write exact frames, read exact answers."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

REPO = Path(__file__).resolve().parents[2]
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


STARTUP_S = 60.0
"""Seconds the first frame may take: the server imports mcp, FastMCP and errscope first (~3 s of CPU, far more
on a loaded 2-core machine). Later frames get each call's own timeout."""


class StdioPeer:
    """Starts ``python -m tests.servers.serve STYLE stdio`` and speaks raw lines to it."""

    def __init__(self, style: str, era: str, env: dict[str, str] | None = None) -> None:
        self.era = era
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.servers.serve", style, "stdio"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.process.stderr, self.stderr.append), daemon=True).start()
        self._next_id = 1
        self._heard = False
        if era == LEGACY:
            answer = self.request("initialize", {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "wire-test", "version": "1"},
            })
            assert "result" in answer, answer
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @staticmethod
    def _pump(stream: Any, sink: Any) -> None:
        for line in iter(stream.readline, b""):
            sink(line)

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Add the per-request envelope the 2026-07-28 era requires."""
        if self.era != MODERN:
            return params
        meta = {
            PROTOCOL_VERSION_META_KEY: MODERN,
            CLIENT_CAPABILITIES_META_KEY: {},
            CLIENT_INFO_META_KEY: {"name": "wire-test", "version": "1"},
            **params.get("_meta", {}),
        }
        return {**params, "_meta": meta}

    def request(self, method: str, params: dict[str, Any], *, request_id: int | None = None, timeout: float = 10) -> dict[str, Any]:
        """Send one request and return the response with the same id (notifications are skipped)."""
        if request_id is None:
            request_id = self._next_id
            self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": self.params(params)})
        return self.expect(lambda m: m.get("id") == request_id, timeout=timeout)

    def expect(self, predicate: Any, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + (timeout if self._heard else max(timeout, STARTUP_S))
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching frame; stderr: {b''.join(self.stderr)[-2000:]!r}")
            try:
                message = json.loads(self.lines.get(timeout=remaining))
            except queue.Empty:
                continue
            self._heard = True
            if predicate(message):
                return message

    def silent_for(self, seconds: float) -> list[dict[str, Any]]:
        """Frames that arrived within ``seconds`` (for 'no response' assertions)."""
        time.sleep(seconds)
        frames = []
        while not self.lines.empty():
            frames.append(json.loads(self.lines.get_nowait()))
        return frames

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
