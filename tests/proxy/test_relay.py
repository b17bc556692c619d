"""The HTTP relay under ``errscope proxy --listen`` (:mod:`errscope.proxy._relay`): framing over real sockets.

The upstream is a server on 127.0.0.1 that answers each path with fixed bytes (parsed with httptools,
like the relay), so the framings a real server may choose (chunked, a length, the end of the
connection) are each certain to be used; the host is a raw socket, so pipelining, HTTP/1.0 and bytes
that are not HTTP can be sent. MCP traffic through the same relay is covered by the other proxy tests.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httptools
import pytest

from errscope._telemetry import ServerTelemetry
from errscope.proxy import _http, _relay
from errscope.proxy._calls import Calls
from errscope.proxy._http import HttpRelay
from errscope.proxy._relay import Relay
from tests.proxy.conftest import free_port, proxy_command

pytestmark = pytest.mark.anyio

ANSWERS = {
    b"/chunked": b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
    b"/length": b"HTTP/1.1 201 Created\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\n\r\nhello",
    b"/until-close": b"HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end",
    b"/tool-failed": b"HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n" + json.dumps(
        {"jsonrpc": "2.0", "id": 3, "result": {"isError": True, "content": [{"type": "text", "text": "HTTP 429 Too Many Requests: rate limit exceeded, retry after 30 seconds"}]}}
    ).encode(),
    # over a 1 KiB bound: a JSON answer, and an SSE stream whose first event is (the answer is the second)
    b"/too-large": b"HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n" + json.dumps(
        {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "x" * 4096}]}}
    ).encode(),
    b"/large-event": b"HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
    + b"event: message\r\ndata: " + json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                                "params": {"level": "info", "data": "y" * 4096}}).encode()
    + b"\r\n\r\nevent: message\r\ndata: " + json.dumps({"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": "done"}]}}).encode() + b"\r\n\r\n",
}


class _Upstream(asyncio.Protocol):
    """Answers each request with ``ANSWERS[path]``; closes the connection after an HTTP/1.0 answer."""

    connections = 0

    def connection_made(self, transport: Any) -> None:
        type(self).connections += 1
        self.transport, self.parser, self.path = transport, httptools.HttpRequestParser(self), b""

    def data_received(self, data: bytes) -> None:
        self.parser.feed_data(data)

    def on_url(self, url: bytes) -> None:
        self.path = url

    def on_message_complete(self) -> None:
        path, _, pieces = self.path.partition(b"?pieces=")
        answer = ANSWERS[path]
        if pieces:  # written a piece at a time, so that the relay reads it in several chunks
            size = int(pieces)
            loop = asyncio.get_running_loop()
            for i, start in enumerate(range(0, len(answer), size)):
                loop.call_later(0.005 * i, self.transport.write, answer[start:start + size])
            loop.call_later(0.005 * (i + 1), self.transport.close)
            return
        self.transport.write(answer)
        if answer.startswith(b"HTTP/1.0"):
            self.transport.close()


class _Answers:
    """The answers read off one connection of the host (status, lower-cased headers, body), with httptools."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.done: list[tuple[int, dict[bytes, bytes], bytes]] = []
        self._headers: dict[bytes, bytes] = {}
        self._body = b""

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.lower()] = value

    def on_body(self, body: bytes) -> None:
        self._body += body

    def on_message_complete(self) -> None:
        self.done.append((self.parser.get_status_code(), self._headers, self._body))
        self._headers, self._body = {}, b""

    async def read(self, reader: asyncio.StreamReader, count: int) -> list[tuple[int, dict[bytes, bytes], bytes]]:
        while len(self.done) < count:
            data = await asyncio.wait_for(reader.read(65536), 10)
            assert data, f"the relay closed the connection after {len(self.done)} of {count} answers"
            self.parser.feed_data(data)
        return self.done


@asynccontextmanager
async def relaying(upstream_port: int | None = None, *, mcp: bool = False) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """A relay in front of the fixed-answer upstream (or of a port nobody listens on); yields a connection to it."""
    loop = asyncio.get_running_loop()
    _Upstream.connections = 0
    upstream = await loop.create_server(_Upstream, "127.0.0.1", 0)
    port = upstream_port or upstream.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    relay = HttpRelay(url, Calls(ServerTelemetry(), transport="tcp")) if mcp else Relay(url)
    server = await relay.serve("127.0.0.1", 0)
    reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname())
    try:
        yield reader, writer
    finally:
        writer.close()
        server.close()
        relay.close()
        upstream.close()


async def test_pipelined_requests_are_answered_in_order_on_one_upstream_connection() -> None:
    async with relaying() as (reader, writer):
        writer.write(b"GET /chunked HTTP/1.1\r\nhost: x\r\n\r\nGET /length HTTP/1.1\r\nhost: x\r\n\r\n")
        first = await _Answers().read(reader, 2)
        writer.write(b"GET /length HTTP/1.1\r\nhost: x\r\n\r\n")
        [again] = await _Answers().read(reader, 1)
    assert [(status, body) for status, _, body in first] == [(200, b"abcde"), (201, b"hello")]
    assert (again[0], again[2]) == (201, b"hello")
    assert _Upstream.connections == 1  # kept alive between the three requests


async def test_each_framing_reaches_the_host_with_its_status_headers_and_body() -> None:
    async with relaying() as (reader, writer):
        writer.write(b"GET /chunked HTTP/1.1\r\nhost: x\r\n\r\nGET /length HTTP/1.1\r\nhost: x\r\n\r\n"
                     b"GET /until-close HTTP/1.1\r\nhost: x\r\n\r\n")
        chunked, length, until_close = await _Answers().read(reader, 3)
    assert chunked == (200, {b"content-type": b"text/plain", b"transfer-encoding": b"chunked"}, b"abcde")
    assert length == (201, {b"set-cookie": b"a=1", b"content-length": b"5"}, b"hello")
    # An answer that ends with its connection reaches an HTTP/1.1 host chunked, on a connection that stays open.
    assert until_close == (200, {b"content-type": b"text/plain", b"transfer-encoding": b"chunked"}, b"until the end")


async def test_an_http10_host_gets_the_body_ended_by_the_connection() -> None:
    async with relaying() as (reader, writer):
        writer.write(b"GET /chunked HTTP/1.0\r\n\r\n")
        raw = await asyncio.wait_for(reader.read(), 10)  # to the end: the relay closes the connection
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"transfer-encoding" not in head and b"connection: close" in head
    assert body == b"abcde"


async def test_bytes_that_are_not_http_get_400_and_the_connection_closes() -> None:
    async with relaying() as (reader, writer):
        writer.write(b"\x16\x03\x01 a TLS hello to a plain-HTTP port\r\n\r\n")
        raw = await asyncio.wait_for(reader.read(), 10)
    assert raw.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert _Upstream.connections == 0


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
async def test_a_body_over_the_bound_gets_413_and_never_reaches_the_upstream(framing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request body is read whole into memory: one over ``MAX_BODY`` (declared, or chunked and counted as it comes)
    is answered 413 and its connection closed; unbounded, one 400 MiB POST grew the proxy by 1.1 GiB."""
    monkeypatch.setattr(_relay, "MAX_BODY", 1024)
    async with relaying() as (reader, writer):
        if framing == "chunked":
            writer.write(b"POST /mcp HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"
                         + b"400\r\n" + b"x" * 1024 + b"\r\n" + b"1\r\nx\r\n")
        else:
            writer.write(b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 1025\r\n\r\n")
        raw = await asyncio.wait_for(reader.read(), 10)
    assert raw == b"HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    assert _Upstream.connections == 0


async def test_a_body_at_the_bound_is_relayed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is inclusive: a body of exactly ``MAX_BODY`` bytes goes through."""
    monkeypatch.setattr(_relay, "MAX_BODY", 1024)
    async with relaying() as (reader, writer):
        writer.write(b"POST /length HTTP/1.1\r\nhost: x\r\ncontent-length: 1024\r\n\r\n" + b"x" * 1024)
        [(status, _, body)] = await _Answers().read(reader, 1)
    assert (status, body) == (201, b"hello")


async def test_an_upstream_nobody_listens_on_is_502() -> None:
    async with relaying(upstream_port=free_port()) as (reader, writer):
        writer.write(b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}")
        [(status, headers, body)] = await _Answers().read(reader, 1)
    assert (status, headers.get(b"content-length"), body) == (502, b"0", b"")


async def test_a_tool_failure_in_an_answer_ended_by_the_connection_is_shaped() -> None:
    """An answer without a length that ends with its connection is complete, not lost: the proxy reads and shapes it."""
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "charge", "arguments": {}}}
    body = json.dumps(call).encode()
    async with relaying(mcp=True) as (reader, writer):
        writer.write(b"POST /tool-failed HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                     b"content-length: %d\r\n\r\n%s" % (len(body), body))
        [(status, headers, raw)] = await _Answers().read(reader, 1)
    result = json.loads(raw)["result"]
    assert (status, headers[b"content-length"], result["isError"]) == (200, str(len(raw)).encode(), True)
    # The server's failure, read and shaped (a lost answer would be upstream_unavailable).
    assert result["_meta"]["io.errscope/failure_class"] == "rate_limited"
    assert result["content"][0]["text"].endswith(f"Ref {result['_meta']['io.errscope/error_ref']}")


async def test_an_answer_over_the_bound_is_dropped_and_its_call_answered_as_lost(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A JSON answer is held whole to be read: one over ``MAX_BODY`` is dropped (unbounded, a runaway server grew the
    proxy without limit) and its call answered as the server's lost answer: it was sent, so it may have run."""
    monkeypatch.setattr(_http, "MAX_BODY", 1024)
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "export", "arguments": {}}}).encode()
    async with relaying(mcp=True) as (reader, writer):
        writer.write(b"POST /too-large?pieces=300 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                     b"content-length: %d\r\n\r\n%s" % (len(body), body))
        [(status, _, raw)] = await _Answers().read(reader, 1)
    answer = json.loads(raw)
    assert (status, answer["id"], answer["result"]["isError"]) == (200, 3, True)
    assert answer["result"]["_meta"]["io.errscope/failure_class"] == "upstream_unavailable"
    assert answer["result"]["_meta"]["io.errscope/side_effect_possible"] is True
    assert "an answer from the MCP server longer than 1024 bytes was dropped" in caplog.text


@pytest.mark.parametrize("pieces", ["", "?pieces=300"], ids=["whole", "in-pieces"])
async def test_an_event_over_the_bound_is_dropped_and_the_stream_goes_on(
    pieces: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """An SSE event is held until its blank line: one over ``MAX_BODY`` is dropped up to that line (CRLF endings),
    whether it came whole or still open across reads, and the events after it reach the host as they would have."""
    monkeypatch.setattr(_http, "MAX_BODY", 1024)
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "export", "arguments": {}}}).encode()
    async with relaying(mcp=True) as (reader, writer):
        writer.write(b"POST /large-event%s HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                     b"content-length: %d\r\n\r\n%s" % (pieces.encode(), len(body), body))
        [(status, _, raw)] = await _Answers().read(reader, 1)
    assert status == 200 and b"y" * 1024 not in raw
    [data] = [line[len(b"data: "):] for line in raw.split(b"\n") if line.startswith(b"data:")]
    assert json.loads(data) == {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "done"}]}}
    assert "an event from the MCP server longer than 1024 bytes was dropped" in caplog.text


def test_a_listen_address_in_use_is_one_line_and_exit_status_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = proxy_command(tmp_path, "--upstream", "http://127.0.0.1:9/mcp", "--listen", f"127.0.0.1:{port}")
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert f"errscope proxy: cannot listen on 127.0.0.1:{port}: " in done.stderr and "Traceback" not in done.stderr
