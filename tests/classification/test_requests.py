"""requests and urllib3 failing for real on 127.0.0.1 (matched by name: errscope imports neither)."""

from __future__ import annotations

import threading
import time

import pytest
import requests
import urllib3

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


class TestRequests:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: requests.get(f"http://{HOST}:{closed_port()}/", timeout=5))
        assert isinstance(exc, requests.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: requests.get(f"http://{UNRESOLVABLE}/", timeout=5))
        assert isinstance(exc, requests.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connect_timeout(self, backlog_port: int) -> None:
        exc = raised(lambda: requests.get(f"http://{HOST}:{backlog_port}/", timeout=(SHORT, 5)))
        assert isinstance(exc, requests.ConnectTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: requests.post(f"{upstream.url}/stall", json={"a": 1}, timeout=(5, SHORT)))
        assert isinstance(exc, requests.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_read_timeout_listener_never_answers(self, silent_port: int) -> None:
        exc = raised(lambda: requests.post(f"http://{HOST}:{silent_port}/", json={"a": 1}, timeout=(5, SHORT)))
        assert isinstance(exc, requests.ReadTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        # requests files this under ConnectionError too: only the urllib3 error inside tells it apart.
        exc = raised(lambda: requests.post(f"{upstream.url}/drop", json={"a": 1}, timeout=5))
        assert isinstance(exc, requests.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: requests.get(f"https://{HOST}:{upstream.port}/", timeout=5))
        assert isinstance(exc, requests.exceptions.SSLError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
        (401, None, C.PERMISSION_DENIED, False, None),
        (404, None, C.NOT_FOUND, False, None),
        (409, None, C.INVALID_INPUT, False, None),
        (429, "11", C.RATE_LIMITED, False, 11.0),
        (429, None, C.RATE_LIMITED, False, None),
        (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
        (503, None, C.UPSTREAM_UNAVAILABLE, False, None),
    ])
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                    side_effect: bool, wait: float | None) -> None:
        query = f"?retry_after={retry_after}" if retry_after else ""
        exc = raised(lambda: requests.post(f"{upstream.url}/status/{status}{query}", json={}, timeout=5).raise_for_status())
        assert isinstance(exc, requests.HTTPError)
        result = check(exc, failure_class, side_effect)
        assert result.retry_after == wait
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"


class TestUrllib3:
    def test_connection_refused_without_retries(self) -> None:
        http = urllib3.PoolManager(retries=False)
        port = closed_port()
        exc = raised(lambda: http.request("GET", f"http://{HOST}:{port}/", timeout=5))
        assert isinstance(exc, urllib3.exceptions.NewConnectionError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"  # the connection it keeps

    def test_name_does_not_resolve_after_retries(self) -> None:
        http = urllib3.PoolManager(retries=urllib3.Retry(total=1, backoff_factor=0))
        exc = raised(lambda: http.request("GET", f"http://{UNRESOLVABLE}/", timeout=5))
        assert isinstance(exc, urllib3.exceptions.MaxRetryError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.address == UNRESOLVABLE  # HTTP's own port left out

    def test_read_timeout(self, upstream: HttpUpstream) -> None:
        http = urllib3.PoolManager(retries=False)
        exc = raised(lambda: http.request("POST", f"{upstream.url}/stall", body=b"{}",
                                          timeout=urllib3.Timeout(connect=5, read=SHORT)))
        assert isinstance(exc, urllib3.exceptions.ReadTimeoutError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"  # its pool's

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        http = urllib3.PoolManager(retries=False)
        exc = raised(lambda: http.request("POST", f"{upstream.url}/drop", body=b"{}", timeout=5))
        assert isinstance(exc, urllib3.exceptions.ProtocolError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        # it keeps neither a request nor a pool: the pool whose urlopen it was raised through names the host
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"

    def test_pool_exhausted(self, upstream: HttpUpstream) -> None:
        pool = urllib3.HTTPConnectionPool(HOST, upstream.port, maxsize=1, block=True, timeout=5, retries=False)
        holder = threading.Thread(target=lambda: raised(lambda: pool.request("GET", "/stall")), daemon=True)
        holder.start()
        time.sleep(0.2)  # the holder has taken the one connection
        try:
            exc = raised(lambda: pool.urlopen("GET", "/ok", pool_timeout=SHORT))
        finally:
            pool.close()
        assert isinstance(exc, urllib3.exceptions.EmptyPoolError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
