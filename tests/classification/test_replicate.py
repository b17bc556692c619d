"""Replicate's Python client (over httpx) against real sockets on 127.0.0.1.

``ReplicateError`` is the API's problem details (RFC 7807: ``title``, ``detail``, ``status``), the HTTP status kept
as ``status``, no headers (a 429's ``Retry-After`` is gone). Transport failures are httpx's own, raised bare.
``predictions.create`` is given ``wait``: without it the client sends the request with no timeout at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

replicate = pytest.importorskip("replicate")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import HTTP_STATUSES, check, raised  # noqa: E402
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener, silent_listener  # noqa: E402

VERSION = "5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa"
TITLES = {400: "Bad request", 401: "Unauthenticated", 403: "Forbidden", 404: "Not found", 409: "Conflict",
          413: "Request entity too large", 422: "Input validation failed", 429: "Request was throttled."}


def _create(url: str) -> Callable[[], Any]:
    client = replicate.Client(api_token="r8_test", base_url=url, timeout=1)
    return lambda: client.predictions.create(version=VERSION, input={"prompt": "refund order 17"}, wait=1)


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"),
                         [*HTTP_STATUSES, (409, None, C.INVALID_INPUT, False, None),
                          (422, None, C.INVALID_INPUT, False, None)])
def test_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C, side_effect: bool,
                wait: float | None) -> None:
    body = json.dumps({"title": TITLES.get(status, "Internal server error"), "detail": "prediction refused",
                       "status": status})
    headers = {"Content-Type": "application/problem+json", **({"Retry-After": retry_after} if retry_after else {})}
    exc = raised(_create(upstream.scripted(status, body, headers)))
    assert isinstance(exc, replicate.exceptions.ReplicateError) and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after is None  # ReplicateError keeps no headers
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("where", ["refused", "unresolvable"])
def test_cannot_connect(upstream: HttpUpstream, where: str) -> None:
    exc = raised(_create(upstream.failing(where)))
    assert type(exc).__name__ == "ConnectError"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_no_answer() -> None:
    with silent_listener() as port:
        exc = raised(_create(f"http://{HOST}:{port}"))
    assert type(exc).__name__ == "ReadTimeout"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_after_the_request() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_create(f"http://{HOST}:{port}"))
    assert type(exc).__name__ == "RemoteProtocolError"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_to_a_plain_http_port(upstream: HttpUpstream) -> None:
    exc = raised(_create(upstream.url.replace("http://", "https://")))
    assert type(exc).__name__ == "ConnectError"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
