"""Asynchronous clients failing for real on 127.0.0.1: anyio's raw TCP streams, redis.asyncio
(a real redis-server), aiosqlite and aio-pika against dead peers, and httpx-sse's
event stream cut off mid-way."""

from __future__ import annotations

import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import aio_pika
import aiosqlite
import anyio
import httpx
import httpx_sse
import pytest
import redis.asyncio
import redis.asyncio.retry
import redis.exceptions
from redis.backoff import NoBackoff

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import redis_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port, closing_listener

SHORT = 0.3
REQUEST = b"POST /refund HTTP/1.1\r\nHost: upstream\r\nContent-Length: 2\r\n\r\n{}"


class TestAnyioStreams:
    def test_connect_refused(self) -> None:
        exc = raised(lambda: anyio.connect_tcp(HOST, closed_port()))
        assert isinstance(exc, OSError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: anyio.connect_tcp(UNRESOLVABLE, 80))
        assert isinstance(exc, OSError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_peer_closed_before_answering(self) -> None:
        async def exchange(port: int) -> None:
            async with await anyio.connect_tcp(HOST, port) as stream:
                await stream.send(REQUEST)
                await stream.receive()

        with closing_listener(read_first=True) as port:
            exc = raised(lambda: exchange(port))
        assert isinstance(exc, anyio.EndOfStream)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_send_after_reset(self, upstream: HttpUpstream) -> None:
        async def exchange() -> None:
            async with await anyio.connect_tcp(HOST, upstream.port) as stream:
                await stream.send(REQUEST.replace(b"/refund", b"/drop"))
                await anyio.sleep(0.2)  # the server resets the connection
                for _ in range(50):
                    await stream.send(b"x" * 65536)

        exc = raised(exchange)
        assert isinstance(exc, anyio.BrokenResourceError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_deadline_while_waiting_for_answer(self, silent_port: int) -> None:
        async def exchange() -> None:
            async with await anyio.connect_tcp(HOST, silent_port) as stream:
                await stream.send(REQUEST)
                with anyio.fail_after(SHORT):
                    await stream.receive()

        exc = raised(exchange)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.fixture(scope="module")
def redis_port() -> Iterator[int]:
    with redis_server() as port:
        yield port


def _redis(port: int, **options: object) -> redis.asyncio.Redis:
    return redis.asyncio.Redis(host=HOST, port=port, socket_connect_timeout=5,  # type: ignore[arg-type]
                               retry=redis.asyncio.retry.Retry(NoBackoff(), 0), **options)


async def _redis_call(client: redis.asyncio.Redis, *command: object) -> None:
    try:
        await client.execute_command(*command)
    finally:
        await client.aclose()


class TestRedisAsyncio:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _redis_call(_redis(closed_port()), "PING"))
        assert isinstance(exc, redis.exceptions.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_login_refused(self, redis_port: int) -> None:
        exc = raised(lambda: _redis_call(_redis(redis_port, username="refunds", password="wrong"), "PING"))
        assert isinstance(exc, redis.exceptions.AuthenticationError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_read_timeout_after_command_sent(self, redis_port: int) -> None:
        exc = raised(lambda: _redis_call(_redis(redis_port, socket_timeout=SHORT), "BLPOP", "refund-queue", 2))
        assert isinstance(exc, redis.exceptions.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_wrong_type(self, redis_port: int) -> None:
        async def call() -> None:
            client = _redis(redis_port)
            await client.set("refund:1", "x")
            await _redis_call(client, "LPUSH", "refund:1", "y")

        exc = raised(call)
        assert isinstance(exc, redis.exceptions.ResponseError)
        check(exc, C.UNKNOWN, False)


class TestAiosqlite:
    @pytest.fixture
    def database(self, tmp_path: Path) -> Path:
        path = tmp_path / "refunds.db"
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE refunds (id TEXT PRIMARY KEY, amount INTEGER NOT NULL CHECK (amount > 0))")
            db.execute("INSERT INTO refunds VALUES ('r1', 5)")
        return path

    async def _run(self, target: str, *statements: str, timeout: float = 5) -> None:
        async with aiosqlite.connect(target, timeout=timeout, uri=target.startswith("file:")) as db:
            for statement in statements:
                await db.execute(statement)
            await db.commit()

    def test_duplicate_key(self, database: Path) -> None:
        exc = raised(lambda: self._run(str(database), "INSERT INTO refunds VALUES ('r1', 5)"))
        assert isinstance(exc, sqlite3.IntegrityError)
        check(exc, C.INVALID_INPUT, False)

    def test_check_constraint(self, database: Path) -> None:
        exc = raised(lambda: self._run(str(database), "INSERT INTO refunds VALUES ('r2', -1)"))
        assert isinstance(exc, sqlite3.IntegrityError)
        check(exc, C.INVALID_INPUT, False)

    def test_read_only_database(self, database: Path) -> None:
        exc = raised(lambda: self._run(f"file:{database}?mode=ro", "INSERT INTO refunds VALUES ('r3', 5)"))
        assert isinstance(exc, sqlite3.OperationalError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_locked_by_another_writer(self, database: Path) -> None:
        async def contend() -> None:
            async with aiosqlite.connect(database) as holder:
                await holder.execute("BEGIN IMMEDIATE")
                await self._run(str(database), "INSERT INTO refunds VALUES ('r4', 5)", timeout=0.05)

        exc = raised(contend)
        assert isinstance(exc, sqlite3.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_no_such_table(self, database: Path) -> None:
        exc = raised(lambda: self._run(str(database), "SELECT * FROM refund"))
        assert isinstance(exc, sqlite3.OperationalError)
        check(exc, C.UNKNOWN, False)


class TestAioPika:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: aio_pika.connect(f"amqp://guest:guest@{HOST}:{closed_port()}/", timeout=5))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_closed_before_handshake(self, closing_port: int) -> None:
        exc = raised(lambda: aio_pika.connect(f"amqp://guest:guest@{HOST}:{closing_port}/", timeout=5))
        assert type(exc).__module__ == "aiormq.exceptions"
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_handshake_never_answered(self, silent_port: int) -> None:
        # a bare TimeoutError, raised inside aiormq's connect: no message of the tool's had been published
        exc = raised(lambda: aio_pika.connect(f"amqp://guest:guest@{HOST}:{silent_port}/", timeout=SHORT))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.fixture
def cut_stream_port() -> Iterator[int]:
    """An SSE endpoint that sends one event of a chunked stream, then drops the connection."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(8)

        def serve() -> None:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                event = b"event: progress\ndata: {\"done\": 1}\n\n"
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + f"{len(event):x}\r\n".encode() + event + b"\r\n")

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        yield int(sock.getsockname()[1])
        sock.shutdown(socket.SHUT_RDWR)


class TestHttpxSse:
    def test_stream_cut_mid_way(self, cut_stream_port: int) -> None:
        events: list[str] = []

        async def listen() -> None:
            async with httpx.AsyncClient(timeout=5) as client:
                async with httpx_sse.aconnect_sse(client, "GET", f"http://{HOST}:{cut_stream_port}/events") as source:
                    async for event in source.aiter_sse():
                        events.append(event.event)

        exc = raised(listen)
        assert events == ["progress"]
        assert isinstance(exc, httpx.RemoteProtocolError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_not_an_event_stream(self, upstream: HttpUpstream) -> None:
        async def listen() -> None:
            async with httpx.AsyncClient(timeout=5) as client:
                async with httpx_sse.aconnect_sse(client, "GET", f"{upstream.url}/ok") as source:
                    async for _ in source.aiter_sse():
                        pass

        exc = raised(listen)
        assert isinstance(exc, httpx_sse.SSEError)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)

    def test_stream_stalls(self, upstream: HttpUpstream) -> None:
        async def listen() -> None:
            async with httpx.AsyncClient(timeout=httpx.Timeout(5, read=SHORT)) as client:
                async with httpx_sse.aconnect_sse(client, "GET", f"{upstream.url}/stall") as source:
                    async for _ in source.aiter_sse():
                        pass

        exc = raised(listen)
        assert isinstance(exc, httpx.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

