"""httpx and the MCP SDK's fork of it (``httpx2``/``httpcore2``), failing for real on 127.0.0.1.

The two share one exception hierarchy; each case runs against both, so a rule written for one and
forgotten for the other fails here.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import httpx
import httpcore
import httpcore2
import httpx2
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import HTTP_STATUSES, cancel_while_waiting, check, raised, while_pool_is_held
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

LIBS = [pytest.param(httpx, id="httpx"), pytest.param(httpx2, id="httpx2")]
SHORT = 0.3
"""Seconds: every timeout of a case (the failure is local, so it comes at once or never)."""


def _timeout(lib: ModuleType, **parts: float) -> Any:
    return lib.Timeout(parts.pop("timeout", 5.0), **parts)


@pytest.mark.parametrize("lib", LIBS)
class TestTransport:
    def test_connection_refused(self, lib: ModuleType) -> None:
        exc = raised(lambda: lib.get(f"http://{HOST}:{closed_port()}/", timeout=5))
        assert isinstance(exc, lib.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, lib: ModuleType) -> None:
        exc = raised(lambda: lib.get(f"http://{UNRESOLVABLE}/", timeout=5))
        assert isinstance(exc, lib.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connect_timeout(self, lib: ModuleType, backlog_port: int) -> None:
        exc = raised(lambda: lib.get(f"http://{HOST}:{backlog_port}/", timeout=_timeout(lib, connect=SHORT)))
        assert isinstance(exc, lib.ConnectTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_listener_never_answers(self, lib: ModuleType, silent_port: int) -> None:
        exc = raised(lambda: lib.post(f"http://{HOST}:{silent_port}/", json={"a": 1}, timeout=_timeout(lib, read=SHORT)))
        assert isinstance(exc, lib.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_read_timeout_after_request_read(self, lib: ModuleType, upstream: HttpUpstream) -> None:
        exc = raised(lambda: lib.post(f"{upstream.url}/stall", json={"a": 1}, timeout=_timeout(lib, read=SHORT)))
        assert isinstance(exc, lib.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_write_timeout(self, lib: ModuleType, silent_port: int) -> None:
        body = b"x" * (64 << 20)  # more than the kernel buffers: the write blocks
        exc = raised(lambda: lib.post(f"http://{HOST}:{silent_port}/", content=body, timeout=_timeout(lib, write=SHORT)))
        assert isinstance(exc, lib.WriteTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, lib: ModuleType, upstream: HttpUpstream) -> None:
        exc = raised(lambda: lib.post(f"{upstream.url}/drop", json={"a": 1}, timeout=5))
        assert isinstance(exc, lib.TransportError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tls_to_plain_socket(self, lib: ModuleType, upstream: HttpUpstream) -> None:
        exc = raised(lambda: lib.get(f"https://{HOST}:{upstream.port}/", timeout=5))
        assert isinstance(exc, lib.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_pool_exhausted(self, lib: ModuleType, upstream: HttpUpstream) -> None:
        async def two_calls() -> None:
            limits = lib.Limits(max_connections=1)
            async with lib.AsyncClient(limits=limits, timeout=_timeout(lib, pool=SHORT)) as client:
                await while_pool_is_held(client.get(f"{upstream.url}/stall"), lambda: client.get(f"{upstream.url}/ok"))

        exc = raised(two_calls)
        assert isinstance(exc, lib.PoolTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_cancelled_while_waiting_for_the_answer(self, lib: ModuleType, upstream: HttpUpstream) -> None:
        async def cancelled() -> None:
            async with lib.AsyncClient(timeout=5) as client:
                await cancel_while_waiting(client.post(f"{upstream.url}/stall", json={"a": 1}))

        exc = raised(cancelled)
        assert isinstance(exc, asyncio.CancelledError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), HTTP_STATUSES)
def test_status(lib: ModuleType, upstream: HttpUpstream, status: int, retry_after: str | None,
                failure_class: C, side_effect: bool, wait: float | None) -> None:
    query = f"?retry_after={retry_after}" if retry_after else ""
    exc = raised(lambda: lib.post(f"{upstream.url}/status/{status}{query}", json={}, timeout=5).raise_for_status())
    assert isinstance(exc, lib.HTTPStatusError)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))
    assert result.upstream.address == f"{HOST}:{upstream.port}"


@pytest.mark.parametrize("core", [pytest.param(httpcore, id="httpcore"), pytest.param(httpcore2, id="httpcore2")])
class TestHttpcoreDirectly:
    """The transport layer under httpx/httpx2, for a tool (or an SDK path) that lets its errors escape."""

    def test_connection_refused(self, core: ModuleType) -> None:
        def request() -> None:
            with core.ConnectionPool() as pool:
                pool.request("GET", f"http://{HOST}:{closed_port()}/")

        exc = raised(request)
        assert isinstance(exc, core.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, core: ModuleType, upstream: HttpUpstream) -> None:
        def request() -> None:
            with core.ConnectionPool() as pool:
                pool.request("POST", f"{upstream.url}/stall", content=b"{}", extensions={"timeout": {"read": SHORT}})

        exc = raised(request)
        assert isinstance(exc, core.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)
