"""A tool's own deadline (``asyncio.timeout``, ``asyncio.wait_for``, ``anyio.fail_after``) around real clients,
and asyncpg's own timeouts against a real PostgreSQL: each raises a bare ``TimeoutError``, and only where it cut
the work off says whether the request had left.

Cut off while the connection was being opened (a listener whose accept queue is full, a server that never
answers the startup) or while waiting for a pool's connection: nothing was sent. Cut off while waiting for the
answer to a request the server read (a handler that stalls, ``pg_sleep``): it may have been acted on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator

import aiohttp
import anyio
import asyncpg
import httpx
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, Postgres, postgres_server
from tests.classification.upstreams import HOST, HttpUpstream

SHORT = 0.3
"""Seconds: a deadline that ends while connecting to a listener whose accept queue is full (it never connects)."""
SETTLED = 2.0
"""Seconds: a deadline that ends while waiting for the answer; the connection is open well before (anyio and httpx
resolve even an IP address in a worker thread, and httpx builds its SSL context first: over 0.6 s on a loaded machine)."""


async def _asyncio_timeout(call: Awaitable[object], seconds: float = SHORT) -> None:
    async with asyncio.timeout(seconds):
        await call


async def _wait_for(call: Awaitable[object], seconds: float = SHORT) -> None:
    await asyncio.wait_for(call, seconds)


async def _fail_after(call: Awaitable[object], seconds: float = SHORT) -> None:
    with anyio.fail_after(seconds):
        await call


DEADLINES = [pytest.param(_asyncio_timeout, id="asyncio.timeout"), pytest.param(_wait_for, id="wait_for"),
             pytest.param(_fail_after, id="anyio.fail_after")]


async def _httpx(url: str) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        await client.post(url, json={"a": 1})


async def _aiohttp(url: str) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"a": 1}) as response:
            await response.read()


async def _open_connection(url: str) -> None:
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    _, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"POST /stall HTTP/1.1\r\nHost: upstream\r\nContent-Length: 2\r\n\r\n{}")
    await writer.drain()
    await asyncio.sleep(30)  # waiting for an answer that does not come


async def _connect_tcp(url: str) -> None:
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    async with await anyio.connect_tcp(host, int(port)) as stream:
        await stream.send(b"POST /stall HTTP/1.1\r\nHost: upstream\r\nContent-Length: 2\r\n\r\n{}")
        await stream.receive()


CLIENTS = [pytest.param(_httpx, id="httpx"), pytest.param(_aiohttp, id="aiohttp"),
           pytest.param(_open_connection, id="asyncio.open_connection"), pytest.param(_connect_tcp, id="anyio")]

Call = Callable[[str], Awaitable[None]]
Deadline = Callable[..., Awaitable[None]]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("deadline", DEADLINES)
def test_deadline_while_connecting(backlog_port: int, deadline: Deadline, client: Call) -> None:
    exc = raised(lambda: deadline(client(f"http://{HOST}:{backlog_port}/orders")))
    assert type(exc) is TimeoutError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("deadline", DEADLINES)
def test_deadline_while_waiting_for_the_answer(upstream: HttpUpstream, deadline: Deadline, client: Call) -> None:
    exc = raised(lambda: deadline(client(f"{upstream.url}/stall"), SETTLED))
    assert type(exc) is TimeoutError
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_httpx_pool_wait_under_a_deadline(upstream: HttpUpstream) -> None:
    # the one pooled connection is held by a stalled request; the second waits for it when the deadline ends
    async def two_calls() -> None:
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            held = asyncio.ensure_future(client.post(f"{upstream.url}/stall", json={}))
            await asyncio.sleep(0.1)
            try:
                async with asyncio.timeout(SHORT):
                    await client.post(f"{upstream.url}/ok", json={"a": 1})
            finally:
                held.cancel()

    exc = raised(two_calls)
    assert type(exc) is TimeoutError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        yield server


def _asyncpg_connect(port: int, **options: float) -> Awaitable[asyncpg.Connection]:
    return asyncpg.connect(host=HOST, port=port, user="postgres", password=PASSWORD, **options)


class TestAsyncpg:
    def test_connect_timeout(self, silent_port: int) -> None:
        # the TCP handshake completes (kernel backlog), the startup message is never answered
        exc = raised(lambda: _asyncpg_connect(silent_port, timeout=SHORT))
        assert type(exc) is TimeoutError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_pool_acquire_timeout(self, pg: Postgres) -> None:
        async def acquire_second() -> None:
            async with asyncpg.create_pool(host=HOST, port=pg.port, user="postgres", password=PASSWORD,
                                           min_size=1, max_size=1) as pool:
                async with pool.acquire():
                    await pool.acquire(timeout=SHORT)

        exc = raised(acquire_second)
        assert type(exc) is TimeoutError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_statement_timeout(self, pg: Postgres) -> None:
        async def slow() -> None:
            connection = await _asyncpg_connect(pg.port)
            try:
                await connection.execute("SELECT pg_sleep(5)", timeout=SHORT)
            finally:
                await connection.close()

        exc = raised(slow)
        assert type(exc) is TimeoutError
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_command_timeout(self, pg: Postgres) -> None:
        async def slow() -> None:
            connection = await _asyncpg_connect(pg.port, command_timeout=SHORT)
            try:
                await connection.fetch("SELECT pg_sleep(5)")
            finally:
                await connection.close()

        exc = raised(slow)
        assert type(exc) is TimeoutError
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("where", "sent"), [("connecting", False), ("waiting", True)])
def test_fail_after_under_anyio_run(backlog_port: int, upstream: HttpUpstream, client: Call, where: str,
                                    sent: bool) -> None:
    # anyio.run: a cancellation anyio's connect_tcp handled inside itself stays in the chain under the deadline's
    url = f"http://{HOST}:{backlog_port}/orders" if where == "connecting" else f"{upstream.url}/stall"
    exc = raised(lambda: anyio.run(_fail_after, client(url), SHORT if where == "connecting" else SETTLED))
    assert type(exc) is TimeoutError
    check(exc, C.UPSTREAM_UNAVAILABLE, sent)
