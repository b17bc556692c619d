"""Real processes, real wire: stdio subprocesses spoken to in raw frames, streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.servers.wire import LEGACY, MODERN, REPO, STARTUP_S, StdioPeer

STYLES = ["lowlevel", "mcpserver", "fastmcp"]


@pytest.fixture(scope="module", params=[(s, e) for s in STYLES for e in (LEGACY, MODERN)], ids=lambda p: f"{p[0]}-{p[1]}")
def peer(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    style, era = request.param
    out = tmp_path_factory.mktemp("telemetry")
    peer = StdioPeer(style, era, env={"ERRSCOPE_OUT": str(out)})
    peer.out = out  # type: ignore[attr-defined]
    yield peer
    peer.close()


def tool_call(peer: StdioPeer, name: str, arguments: Any, **kwargs: Any) -> dict[str, Any]:
    return peer.request("tools/call", {"name": name, "arguments": arguments}, **kwargs)


class TestStdio:
    def test_unknown_tool_is_a_protocol_error(self, peer: StdioPeer) -> None:
        """D01 on the wire: an error member with -32602 "Unknown tool: get_ordr", no result member."""
        answer = tool_call(peer, "get_ordr", {"order_id": "A-1"}, request_id=3)
        assert "result" not in answer
        assert (answer["id"], answer["error"]["code"], answer["error"]["message"]) == (3, -32602, "Unknown tool: get_ordr")

    def test_malformed_frames_are_answered_and_serving_goes_on(self, peer: StdioPeer) -> None:
        """Non-JSON gets -32700, JSON that is not JSON-RPC gets -32600 (id null); the next call is served."""
        peer.send_raw(b"this is not json {\n")
        parse = peer.expect(lambda m: m.get("id") is None and "error" in m)
        assert parse["error"]["code"] == -32700 and "Ref ERR-" in parse["error"]["message"]
        peer.send_raw(b'{"hello": 1}\n')
        invalid = peer.expect(lambda m: m.get("id") is None and "error" in m)
        assert invalid["error"]["code"] == -32600
        answer = tool_call(peer, "get_order", {"order_id": "A-1"})
        assert answer["result"]["isError"] is False

    def test_non_utf8_bytes(self, peer: StdioPeer) -> None:
        """Invalid UTF-8 inside a frame is replaced, the call answered on the execution channel."""
        frame = {"jsonrpc": "2.0", "id": 901, "method": "tools/call",
                 "params": peer.params({"name": "get_order", "arguments": {"order_id": "PLACEHOLDER"}})}
        peer.send_raw(json.dumps(frame).encode().replace(b"PLACEHOLDER", b"\xff\xfe") + b"\n")
        answer = peer.expect(lambda m: m.get("id") == 901)
        assert answer["result"]["isError"] is True
        assert answer["result"]["_meta"]["io.errscope/failure_class"] == "not_found"

    def test_arguments_not_an_object(self, peer: StdioPeer) -> None:
        """D16: a structurally malformed request (arguments is a string) is JSON-RPC -32602."""
        answer = tool_call(peer, "schedule_meeting", "start=now")
        assert answer["error"]["code"] == -32602

    def test_wrongly_typed_and_missing_arguments(self, peer: StdioPeer) -> None:
        """Schema violations are execution errors the model can read."""
        answer = tool_call(peer, "schedule_meeting", {"duration_min": "ninety"})
        result = answer["result"]
        assert result["isError"] is True and result["_meta"]["io.errscope/failure_class"] == "invalid_input"
        text = result["content"][0]["text"]
        assert "`duration_min` must be an integer from 1 to 480" in text and "`start` is required" in text

    def test_crash_reaches_no_wire_and_no_stderr(self, peer: StdioPeer) -> None:
        """D06 over stdio: the secret is in neither the answer nor the server's stderr (SDK logs included)."""
        answer = tool_call(peer, "get_order", {"order_id": "A-100"})
        assert "FAKE-PG-PASS-123" not in json.dumps(answer)
        time.sleep(0.2)
        assert b"FAKE-PG-PASS-123" not in b"".join(peer.stderr)

    def test_cancelled_request_gets_no_response(self, peer: StdioPeer) -> None:
        """D12 (server): cancel frees the handler, sends nothing for that id, in-flight returns to 0."""
        peer.send({"jsonrpc": "2.0", "id": 950, "method": "tools/call",
                   "params": peer.params({"name": "export_report", "arguments": {"seconds": 30}})})
        time.sleep(0.5)
        peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 950, "reason": "timeout after 0.5s"}})
        frames = peer.silent_for(1.0)
        assert [f for f in frames if f.get("id") == 950] == []
        answer = tool_call(peer, "in_flight", {})
        assert answer["result"]["content"][0]["text"] == "0"


def test_telemetry_files_carry_the_wire_ref(tmp_path: Path) -> None:
    """The ref the wire answered with is on the span and the log record the process exported."""
    peer = StdioPeer("mcpserver", LEGACY, env={"ERRSCOPE_OUT": str(tmp_path)})
    try:
        answer = tool_call(peer, "read_registry_key", {"path": "HKLM"})
    finally:
        peer.close()
    ref = answer["result"]["_meta"]["io.errscope/error_ref"]
    spans = [
        span
        for line in (tmp_path / "traces.jsonl").read_text().splitlines()
        for resource in json.loads(line)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    (span,) = [s for s in spans if {"key": "errscope.error_ref", "value": {"stringValue": ref}} in s["attributes"]]
    assert span["name"] == "tools/call read_registry_key" and span["status"]["message"] == "permission_denied"
    assert ref in (tmp_path / "logs.jsonl").read_text()


def test_unreachable_otlp_endpoint_never_blocks_a_call(tmp_path: Path) -> None:
    """With the collector down, calls are answered promptly and the process still exits."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]  # closed again before use: nothing listens there
    peer = StdioPeer("lowlevel", LEGACY, env={"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{dead_port}"})
    try:
        started = time.monotonic()
        for _ in range(5):
            assert "result" in tool_call(peer, "read_registry_key", {"path": "HKLM"})
        assert time.monotonic() - started < 3.0
    finally:
        started = time.monotonic()
        peer.close()
    assert peer.process.returncode is not None and time.monotonic() - started < 15


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module", params=STYLES)
def http_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    out = tmp_path_factory.mktemp("http-telemetry")
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.servers.serve", request.param, "http", str(port)],
        cwd=REPO,
        env={**__import__("os").environ, "ERRSCOPE_OUT": str(out)},
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + STARTUP_S
    while True:
        try:
            httpx.get(url, timeout=0.5)
            break
        except httpx.TransportError:
            assert process.poll() is None and time.monotonic() < deadline, f"the {request.param} server never listened"
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=15)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_streamable_http(http_server: str, mode: str, anyio_backend: str) -> None:
    """Over streamable HTTP in both eras: unknown tool, crash and bad arguments on their channels."""
    async with Client(http_server, mode=mode) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("get_ordr", {"order_id": "A-1"})
        assert (unknown.value.code, unknown.value.message) == (-32602, "Unknown tool: get_ordr")
        crash = await client.call_tool("get_order", {"order_id": "A-100"})
        assert crash.is_error and "FAKE-PG-PASS-123" not in crash.model_dump_json()
        assert crash.meta["io.errscope/failure_class"] == "upstream_unavailable"
        bad = await client.call_tool("schedule_meeting", {"start": "next tuesday", "duration_min": 30})
        assert bad.is_error and "`start` must be an ISO-8601 date-time" in bad.content[0].text


def test_http_non_json_body(http_server: str) -> None:
    """A non-JSON POST body is answered -32700 by the transport, and the server keeps serving."""
    response = httpx.post(
        http_server,
        content=b"this is not json {",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
        timeout=5,
    )
    assert response.status_code == 400 and "-32700" in response.text
