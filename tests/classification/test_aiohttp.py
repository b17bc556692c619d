"""aiohttp's client failing for real on 127.0.0.1 (errscope matches it by name, never imports it)."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import cancel_while_waiting, check, raised, while_pool_is_held
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


async def _request(url: str, method: str = "GET", **timeouts: float) -> None:
    timeout = aiohttp.ClientTimeout(total=5, **timeouts)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        async with session.request(method, url, json={"a": 1}) as response:
            response.raise_for_status()
            await response.read()


class TestTransport:
    def test_connection_refused(self) -> None:
        port = closed_port()
        exc = raised(lambda: _request(f"http://{HOST}:{port}/"))
        assert isinstance(exc, aiohttp.ClientConnectorError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"  # the host and port it keeps

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: _request(f"https://{UNRESOLVABLE}/"))
        assert isinstance(exc, aiohttp.ClientConnectorError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.address == UNRESOLVABLE  # HTTPS's own port left out

    def test_connect_timeout(self, backlog_port: int) -> None:
        exc = raised(lambda: _request(f"http://{HOST}:{backlog_port}/", sock_connect=SHORT))
        assert isinstance(exc, aiohttp.ConnectionTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_listener_never_answers(self, silent_port: int) -> None:
        exc = raised(lambda: _request(f"http://{HOST}:{silent_port}/", "POST", sock_read=SHORT))
        assert isinstance(exc, aiohttp.SocketTimeoutError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        # it keeps no request: the response it was raised through names the host
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{silent_port}"

    def test_total_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        async def stalled() -> None:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=SHORT)) as session:
                async with session.post(f"{upstream.url}/stall", json={"a": 1}) as response:
                    await response.read()

        exc = raised(stalled)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _request(f"{upstream.url}/drop", "POST"))
        assert isinstance(exc, aiohttp.ClientConnectionError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"

    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _request(f"https://{HOST}:{upstream.port}/"))
        assert isinstance(exc, aiohttp.ClientConnectorError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_pool_exhausted(self, upstream: HttpUpstream) -> None:
        async def two_calls() -> None:
            connector = aiohttp.TCPConnector(limit=1)
            timeout = aiohttp.ClientTimeout(total=5, connect=SHORT)  # connect includes waiting for the pool
            async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
                await while_pool_is_held(session.get(f"{upstream.url}/stall"), lambda: session.get(f"{upstream.url}/ok"))

        exc = raised(two_calls)
        assert isinstance(exc, aiohttp.ConnectionTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_cancelled_while_waiting_for_the_answer(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: cancel_while_waiting(_request(f"{upstream.url}/stall", "POST")))
        assert isinstance(exc, asyncio.CancelledError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    (404, None, C.NOT_FOUND, False, None),
    (403, None, C.PERMISSION_DENIED, False, None),
    (422, None, C.INVALID_INPUT, False, None),
    (429, "3", C.RATE_LIMITED, False, 3.0),
    (429, None, C.RATE_LIMITED, False, None),
    (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "9", C.UPSTREAM_UNAVAILABLE, False, 9.0),
])
def test_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    query = f"?retry_after={retry_after}" if retry_after else ""
    exc = raised(lambda: _request(f"{upstream.url}/status/{status}{query}", "POST"))
    assert isinstance(exc, aiohttp.ClientResponseError)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None
    assert (result.upstream.status, result.upstream.address) == (str(status), f"{HOST}:{upstream.port}")
