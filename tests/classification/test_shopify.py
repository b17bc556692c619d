"""The Shopify Admin REST API's Python library (``ShopifyAPI``, over pyactiveresource and urllib) against a real HTTP
server on 127.0.0.1 answering with Shopify's own status codes and bodies
(https://shopify.dev/docs/api/usage/response-codes, https://shopify.dev/docs/api/usage/limits: a 429 with
``Retry-After: 2.0``).

pyactiveresource raises one class per status it knows (``BadRequest``, ``UnauthorizedAccess``, ``ForbiddenAccess``,
``ResourceNotFound``, ``ResourceConflict``, ``ResourceInvalid``), ``ClientError`` for any other 4xx and ``ServerError``
for a 5xx, each keeping the status as ``code`` (and the 4xx their ``response``); a failure before any answer is its
base ``Error`` built over urllib's ``URLError`` (raised inside its ``except``), a timeout waiting for the answer the
socket's own ``TimeoutError`` unwrapped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

shopify = pytest.importorskip("shopify")

from pyactiveresource import connection as ar  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    HOST, UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener)


def _find(host: str, port: int, timeout: float = 5) -> Callable[[], Any]:
    def run() -> Any:
        session = shopify.Session(f"http://{host}:{port}", "2024-01", "shpat_0123456789abcdef")
        shopify.ShopifyResource.activate_session(session)
        shopify.ShopifyResource.set_site(f"http://{host}:{port}/admin/api/2024-01")
        shopify.ShopifyResource.timeout = timeout
        try:
            return shopify.Product.find(632910392)
        finally:
            shopify.ShopifyResource.clear_session()
    return run


@pytest.mark.parametrize(("status", "body", "exc_class", "failure_class", "side_effect"), [
    (400, {"errors": {"product": "Required parameter missing or invalid"}}, ar.BadRequest, C.INVALID_INPUT, False),
    (401, {"errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"},
     ar.UnauthorizedAccess, C.PERMISSION_DENIED, False),
    # the shop's plan lapsed (frozen): 402 Payment Required, the operator must pay, as a refused credential
    (402, {"errors": "Unavailable Shop"}, ar.ClientError, C.PERMISSION_DENIED, False),
    (403, {"errors": "[API] This action requires merchant approval for read_products scope."}, ar.ForbiddenAccess,
     C.PERMISSION_DENIED, False),
    (404, {"errors": "Not Found"}, ar.ResourceNotFound, C.NOT_FOUND, False),
    (406, {"errors": "Not Acceptable"}, ar.ClientError, C.UNKNOWN, False),
    (409, {"errors": "Conflict"}, ar.ResourceConflict, C.INVALID_INPUT, False),
    (422, {"errors": {"title": ["can't be blank"]}}, ar.ResourceInvalid, C.INVALID_INPUT, False),
    # 423 Locked (RFC 4918 §11.3, J404): refused whole while the lock holds; Shopify locks a shop after repeated
    # over-limit use or for an account review, which no argument of the model's fixes: upstream_unavailable, as any 423
    (423, {"errors": "This shop is locked"}, ar.ClientError, C.UPSTREAM_UNAVAILABLE, False),
    (500, {"errors": "Internal Server Error"}, ar.ServerError, C.UPSTREAM_UNAVAILABLE, True),
    (503, {"errors": "Unavailable Shop"}, ar.ServerError, C.UPSTREAM_UNAVAILABLE, False),
    (504, {"errors": "Gateway Timeout"}, ar.ServerError, C.UPSTREAM_UNAVAILABLE, True),
])
def test_status(status: int, body: object, exc_class: type[BaseException], failure_class: C,
                side_effect: bool) -> None:
    with answering(status, json.dumps(body)) as port:
        exc = raised(_find(HOST, port))
    assert type(exc) is exc_class and exc.code == status
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("retry_after", "wait"), [("2.0", 2.0), (None, None)])
def test_rate_limited(retry_after: str | None, wait: float | None) -> None:
    # the leaky bucket full: "Exceeded 2 calls per second for api client", and Shopify's decimal Retry-After
    body = json.dumps({"errors": "Exceeded 2 calls per second for api client. Reduce request rates to resume "
                                 "uninterrupted service."})
    with answering(429, body, {"Retry-After": retry_after} if retry_after else {}) as port:
        exc = raised(_find(HOST, port))
    assert type(exc) is ar.ClientError and exc.code == 429
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == wait


def test_refused() -> None:
    exc = raised(_find(HOST, closed_port()))
    assert type(exc) is ar.Error
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_unresolvable() -> None:
    exc = raised(_find(UNRESOLVABLE, 8080))
    assert type(exc) is ar.Error
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_answer_never_comes() -> None:
    with silent_listener() as port:
        exc = raised(_find(HOST, port, timeout=0.5))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_before_answering() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_find(HOST, port))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_handshake_fails() -> None:
    # https:// at a plain HTTP server: urllib's URLError over the SSLError, wrapped in pyactiveresource's Error
    def run() -> Any:
        with answering(200, "{}") as port:
            shopify.ShopifyResource.set_site(f"https://{HOST}:{port}/admin/api/2024-01")
            shopify.ShopifyResource.headers = {"X-Shopify-Access-Token": "shpat_0123456789abcdef"}
            try:
                return shopify.Product.find(632910392)
            finally:
                shopify.ShopifyResource.clear_session()
    exc = raised(run)
    assert type(exc) is ar.Error
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
