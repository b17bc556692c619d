"""curl_cffi (libcurl with browser TLS fingerprints, a requests-like API) against real sockets on 127.0.0.1.

Its exceptions derive from ``CurlError`` and keep libcurl's error number as ``.code`` (a ``CurlECode``): 7 refused, 6
unresolvable, 28 timed out, 52 closed without an answer, 35 the TLS handshake failed. ``raise_for_status`` raises its
``HTTPError`` with the ``response`` (status and headers) attached.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

requests = pytest.importorskip("curl_cffi.requests")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import HTTP_STATUSES, check, raised  # noqa: E402
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener, silent_listener  # noqa: E402

ERROR_BODY = json.dumps({"error": {"message": "order 17 is not refundable", "code": "refund_denied"}})


def _get(url: str) -> Callable[[], Any]:
    def call() -> None:
        requests.get(f"{url}/v1/orders/17", timeout=1).raise_for_status()
    return call


def _post_async(url: str) -> Callable[[], Any]:
    async def call() -> None:
        async with requests.AsyncSession() as session:
            (await session.post(f"{url}/v1/refunds", json={"order": 17}, timeout=1)).raise_for_status()
    return call


CALLS = [pytest.param(_get, id="sync"), pytest.param(_post_async, id="async")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"),
                         [*HTTP_STATUSES, (409, None, C.INVALID_INPUT, False, None),
                          (422, None, C.INVALID_INPUT, False, None)])
def test_status(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], status: int, retry_after: str | None,
                failure_class: C, side_effect: bool, wait: float | None) -> None:
    headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
    exc = raised(call(upstream.scripted(status, ERROR_BODY, headers)))
    assert isinstance(exc, requests.exceptions.HTTPError)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "error", "code"), [
    ("refused", "ConnectionError", 7),  # CURLE_COULDNT_CONNECT
    ("unresolvable", "DNSError", 6),  # CURLE_COULDNT_RESOLVE_HOST
])
def test_cannot_connect(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], where: str, error: str,
                        code: int) -> None:
    exc = raised(call(upstream.failing(where)))
    assert type(exc).__name__ == error and exc.code == code  # type: ignore[attr-defined]
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("curl", str(code))


@pytest.mark.parametrize("call", CALLS)
def test_no_answer(call: Callable[[str], Callable[[], Any]]) -> None:
    with silent_listener() as port:
        exc = raised(call(f"http://{HOST}:{port}"))
    assert isinstance(exc, requests.exceptions.Timeout) and exc.code == 28  # CURLE_OPERATION_TIMEDOUT, request sent
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("call", CALLS)
def test_closed_after_the_request(call: Callable[[str], Callable[[], Any]]) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(call(f"http://{HOST}:{port}"))
    assert isinstance(exc, requests.exceptions.ConnectionError) and exc.code == 52  # CURLE_GOT_NOTHING
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("call", CALLS)
def test_tls_to_a_plain_http_port(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]]) -> None:
    exc = raised(call(upstream.url.replace("http://", "https://")))
    assert isinstance(exc, requests.exceptions.SSLError) and exc.code == 35  # CURLE_SSL_CONNECT_ERROR: no request
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
