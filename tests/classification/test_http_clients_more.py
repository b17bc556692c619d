"""More HTTP clients failing for real on 127.0.0.1: pycurl (libcurl), httplib2 and tornado's client.
None of them shares requests' or httpx's exception classes.
"""

from __future__ import annotations

import io

import httplib2
import pycurl
import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError
from tornado.simple_httpclient import HTTPStreamClosedError, HTTPTimeoutError

from errscope import FailureClass as C
from tests.classification.conftest import HTTP_STATUSES, check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


def _curl(url: str, **options: object) -> None:
    handle = pycurl.Curl()
    handle.setopt(pycurl.URL, url)
    handle.setopt(pycurl.WRITEDATA, io.BytesIO())
    handle.setopt(pycurl.CONNECTTIMEOUT_MS, 5000)
    for name, value in options.items():
        handle.setopt(getattr(pycurl, name), value)
    try:
        handle.perform()
    finally:
        handle.close()


class TestPycurl:
    """libcurl's error numbers (https://curl.se/libcurl/c/libcurl-errors.html) are all pycurl.error says."""

    def test_connection_refused(self) -> None:
        exc = raised(lambda: _curl(f"http://{HOST}:{closed_port()}/"))
        assert isinstance(exc, pycurl.error) and exc.args[0] == pycurl.E_COULDNT_CONNECT
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: _curl(f"http://{UNRESOLVABLE}/"))
        assert isinstance(exc, pycurl.error) and exc.args[0] == pycurl.E_COULDNT_RESOLVE_HOST
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        # CURLE_OPERATION_TIMEDOUT covers the whole transfer, connect included: like a bare socket
        # timeout it cannot tell the phases apart, so the request may have been sent.
        exc = raised(lambda: _curl(f"{upstream.url}/stall", TIMEOUT_MS=int(SHORT * 1000)))
        assert isinstance(exc, pycurl.error) and exc.args[0] == pycurl.E_OPERATION_TIMEDOUT
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _curl(f"{upstream.url}/drop", POSTFIELDS='{"a": 1}'))
        assert isinstance(exc, pycurl.error) and exc.args[0] in (pycurl.E_RECV_ERROR, pycurl.E_GOT_NOTHING)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_closed_without_answer(self, closing_port: int) -> None:
        exc = raised(lambda: _curl(f"http://{HOST}:{closing_port}/", POSTFIELDS='{"a": 1}'))
        assert isinstance(exc, pycurl.error) and exc.args[0] in (pycurl.E_RECV_ERROR, pycurl.E_GOT_NOTHING)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _curl(f"https://{HOST}:{upstream.port}/"))
        assert isinstance(exc, pycurl.error) and exc.args[0] == pycurl.E_SSL_CONNECT_ERROR
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_http_error_status_is_not_told(self, upstream: HttpUpstream) -> None:
        # With FAILONERROR the status stays on the handle, not on the error: libcurl says only
        # "the server answered an error status" (a 404 or a 500 alike): no class, no side-effect fact.
        exc = raised(lambda: _curl(f"{upstream.url}/status/404", FAILONERROR=1))
        assert isinstance(exc, pycurl.error) and exc.args[0] == pycurl.E_HTTP_RETURNED_ERROR
        check(exc, C.UNKNOWN, None)


class TestHttplib2:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: httplib2.Http(timeout=5).request(f"http://{HOST}:{closed_port()}/"))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        # ServerNotFoundError is a name that did not resolve: the upstream is unreachable, no resource is missing.
        exc = raised(lambda: httplib2.Http(timeout=5).request(f"http://{UNRESOLVABLE}/"))
        assert isinstance(exc, httplib2.ServerNotFoundError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: httplib2.Http(timeout=SHORT).request(f"{upstream.url}/stall", "POST", body="{}"))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: httplib2.Http(timeout=5).request(f"{upstream.url}/drop", "POST", body="{}"))
        assert isinstance(exc, ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


async def _tornado_fetch(url: str, **options: object) -> None:
    client = AsyncHTTPClient(force_instance=True)
    try:
        await client.fetch(url, **options)
    finally:
        client.close()


class TestTornado:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _tornado_fetch(f"http://{HOST}:{closed_port()}/"))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_request_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        # Tornado reports its own timeouts and closed streams as the pseudo-status 599.
        exc = raised(lambda: _tornado_fetch(f"{upstream.url}/stall", method="POST", body="{}", request_timeout=SHORT))
        assert isinstance(exc, HTTPTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_stream_closed_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _tornado_fetch(f"{upstream.url}/drop", method="POST", body="{}"))
        assert isinstance(exc, HTTPStreamClosedError | ConnectionResetError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), HTTP_STATUSES)
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                    side_effect: bool | None, wait: float | None) -> None:
        query = f"?retry_after={retry_after}" if retry_after else ""
        exc = raised(lambda: _tornado_fetch(f"{upstream.url}/status/{status}{query}"))
        assert isinstance(exc, HTTPClientError)
        assert check(exc, failure_class, side_effect).retry_after == wait

