"""The standard library's own network stack failing for real on 127.0.0.1: socket, ssl, asyncio, urllib."""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import socket
import ssl
import threading
import urllib.error
import urllib.request

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import cancel_while_waiting, check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3
REQUEST = b"POST /stall HTTP/1.1\r\nHost: upstream\r\nContent-Length: 2\r\n\r\n{}"


def _exchange(port: int, path: str, *, timeout: float = 5) -> bytes:
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(REQUEST.replace(b"/stall", path.encode()))
        return sock.recv(65536)


class TestSocket:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: socket.create_connection((HOST, closed_port()), timeout=5))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: socket.create_connection((UNRESOLVABLE, 80), timeout=5))
        assert isinstance(exc, socket.gaierror)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connect_timeout(self, backlog_port: int) -> None:
        # A bare socket timeout looks the same at connect and at read; the stack it came from does not
        # (socket.create_connection): nothing was sent.
        exc = raised(lambda: socket.create_connection((HOST, backlog_port), timeout=SHORT))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_sent(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _exchange(upstream.port, "/stall", timeout=SHORT))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_reset_after_request_sent(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _exchange(upstream.port, "/drop"))
        assert isinstance(exc, ConnectionResetError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_send_after_reset(self, upstream: HttpUpstream) -> None:
        def send_twice() -> None:
            with socket.create_connection((HOST, upstream.port), timeout=5) as sock:
                sock.sendall(REQUEST.replace(b"/stall", b"/drop"))
                threading.Event().wait(0.2)  # the server resets the connection
                for _ in range(50):
                    sock.sendall(b"x" * 65536)

        exc = raised(send_twice)
        assert isinstance(exc, ConnectionResetError | BrokenPipeError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


class TestSsl:
    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        # Where a TLS failure happened is not in ssl.SSLError's type, but its traceback runs through
        # SSLSocket.do_handshake: before any application data, so nothing was sent (J446).
        def handshake() -> None:
            context = ssl.create_default_context()
            with socket.create_connection((HOST, upstream.port), timeout=5) as sock:
                context.wrap_socket(sock, server_hostname="upstream")

        exc = raised(handshake)
        assert isinstance(exc, ssl.SSLError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.system == "tls", result


class TestAsyncio:
    def test_open_connection_refused(self) -> None:
        exc = raised(lambda: asyncio.open_connection(HOST, closed_port()))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_open_connection_name_does_not_resolve(self) -> None:
        exc = raised(lambda: asyncio.open_connection(UNRESOLVABLE, 80))
        assert isinstance(exc, socket.gaierror)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wait_for_read_timeout(self, upstream: HttpUpstream) -> None:
        async def exchange() -> None:
            reader, writer = await asyncio.open_connection(HOST, upstream.port)
            writer.write(REQUEST)
            try:
                await asyncio.wait_for(reader.read(1), SHORT)
            finally:
                writer.close()

        exc = raised(exchange)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_timeout_context_manager(self, upstream: HttpUpstream) -> None:
        async def exchange() -> None:
            async with asyncio.timeout(SHORT):
                reader, writer = await asyncio.open_connection(HOST, upstream.port)
                writer.write(REQUEST)
                await reader.read(1)

        exc = raised(exchange)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_read_after_reset(self, upstream: HttpUpstream) -> None:
        async def exchange() -> None:
            reader, writer = await asyncio.open_connection(HOST, upstream.port)
            writer.write(REQUEST.replace(b"/stall", b"/drop"))
            await reader.read(1)
            await reader.read(1)

        exc = raised(exchange)
        assert isinstance(exc, ConnectionResetError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_incomplete_read(self, upstream: HttpUpstream) -> None:
        async def exchange() -> None:
            reader, writer = await asyncio.open_connection(HOST, upstream.port)
            writer.write(REQUEST.replace(b"/stall", b"/status/200"))
            await reader.readexactly(1 << 20)  # the answer is shorter, then the server closes

        exc = raised(exchange)
        assert isinstance(exc, asyncio.IncompleteReadError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_cancelled_task(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: cancel_while_waiting(asyncio.to_thread(_exchange, upstream.port, "/stall", timeout=2)))
        assert isinstance(exc, asyncio.CancelledError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


class TestConcurrentFutures:
    def test_cancelled_before_it_ran(self, upstream: HttpUpstream) -> None:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            busy = pool.submit(_exchange, upstream.port, "/stall", timeout=1)
            queued = pool.submit(_exchange, upstream.port, "/ok")
            assert queued.cancel()
            exc = raised(queued.result)
            raised(busy.result)
        assert isinstance(exc, concurrent.futures.CancelledError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestUrllib:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: urllib.request.urlopen(f"http://{HOST}:{closed_port()}/", timeout=5))
        assert isinstance(exc, urllib.error.URLError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: urllib.request.urlopen(f"http://{UNRESOLVABLE}/", timeout=5))
        assert isinstance(exc, urllib.error.URLError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: urllib.request.urlopen(f"{upstream.url}/stall", data=b"{}", timeout=SHORT))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: urllib.request.urlopen(f"{upstream.url}/drop", data=b"{}", timeout=5))
        assert isinstance(exc, ConnectionResetError | http.client.RemoteDisconnected)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: urllib.request.urlopen(f"https://{HOST}:{upstream.port}/", timeout=5))
        assert isinstance(exc, urllib.error.URLError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
        (404, None, C.NOT_FOUND, False, None),
        (429, "4", C.RATE_LIMITED, False, 4.0),
        (429, None, C.RATE_LIMITED, False, None),
        (502, None, C.UPSTREAM_UNAVAILABLE, True, None),
    ])
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                    side_effect: bool, wait: float | None) -> None:
        query = f"?retry_after={retry_after}" if retry_after else ""
        exc = raised(lambda: urllib.request.urlopen(f"{upstream.url}/status/{status}{query}", data=b"{}", timeout=5))
        assert isinstance(exc, urllib.error.HTTPError)
        result = check(exc, failure_class, side_effect)
        assert result.retry_after == wait
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"
