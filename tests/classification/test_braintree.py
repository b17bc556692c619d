"""The Braintree Python SDK (``braintree``, over requests) against real sockets on 127.0.0.1.

braintree raises one class per status and keeps none (``braintree.util.http.Http.raise_exception_from_status``):
``AuthenticationError`` (401), ``AuthorizationError`` (403), ``NotFoundError`` (404), ``RequestTimeoutError`` (408),
``UpgradeRequiredError`` (426), ``TooManyRequestsError`` (429), ``ServerError`` (500), ``ServiceUnavailableError``
(503), ``GatewayTimeoutError`` (504), and ``UnexpectedError("Unexpected HTTP_RESPONSE 502")`` for any other. A
transport failure becomes its own ``ConnectionError``/``ConnectTimeoutError``/``ReadTimeoutError`` (raised inside
the ``except`` of requests' error, so only ``__context__`` keeps it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

braintree = pytest.importorskip("braintree")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    HOST, answering, closed_port, closing_listener, silent_listener)

NOT_FOUND_XML = '<?xml version="1.0" encoding="UTF-8"?>\n<api-error-response><message>Not Found</message></api-error-response>'


def _find(port: int, timeout: float = 5) -> Callable[[], Any]:
    environment = braintree.Environment("errscope", HOST, str(port), f"http://{HOST}:{port}", False, None)
    gateway = braintree.BraintreeGateway(braintree.Configuration(
        environment, merchant_id="merchant_17", public_key="pub", private_key="priv", timeout=timeout,
        wrap_http_exceptions=True))
    return lambda: gateway.customer.find("cust_17")


@pytest.mark.parametrize(("status", "exc_name", "failure_class", "side_effect"), [
    (401, "AuthenticationError", C.PERMISSION_DENIED, False),
    (403, "AuthorizationError", C.PERMISSION_DENIED, False),
    (404, "NotFoundError", C.NOT_FOUND, False),
    (426, "UpgradeRequiredError", C.UNKNOWN, None),  # the SDK's API version is retired: our dependency, not the call
    (429, "TooManyRequestsError", C.RATE_LIMITED, False),
    (500, "ServerError", C.UPSTREAM_UNAVAILABLE, True),
    (503, "ServiceUnavailableError", C.UPSTREAM_UNAVAILABLE, False),
    (504, "GatewayTimeoutError", C.UPSTREAM_UNAVAILABLE, True),
    # the server's 408, but a class named RequestTimeout is as often a client's own wait: whether it acted is open
    (408, "RequestTimeoutError", C.UPSTREAM_UNAVAILABLE, None),
])
def test_status(status: int, exc_name: str, failure_class: C, side_effect: bool) -> None:
    with answering(status, NOT_FOUND_XML, {"Content-Type": "application/xml"}) as port:
        exc = raised(_find(port))
    assert type(exc).__name__ == exc_name and type(exc).__module__.startswith("braintree.exceptions")
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("status", "side_effect"), [(502, True)])
def test_status_without_a_class(status: int, side_effect: bool) -> None:
    # UnexpectedError("Unexpected HTTP_RESPONSE 502"): the status is only in its text
    with answering(status, "<html>Bad Gateway</html>", {"Content-Type": "text/html"}) as port:
        exc = raised(_find(port))
    assert type(exc) is braintree.exceptions.UnexpectedError
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_refused() -> None:
    exc = raised(_find(closed_port()))
    assert type(exc).__name__ == "ConnectionError" and type(exc).__module__.startswith("braintree.exceptions")
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_connect_times_out(backlog_port: int) -> None:
    exc = raised(_find(backlog_port, timeout=0.5))
    assert type(exc).__name__ in ("ConnectTimeoutError", "ConnectionError")
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_answer_times_out() -> None:
    with silent_listener() as port:
        exc = raised(_find(port, timeout=0.5))
    assert type(exc).__name__ == "ReadTimeoutError"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_mid_answer() -> None:
    with closing_listener(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n<customer>", read_first=True) as port:
        exc = raised(_find(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_before_answering() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_find(port))
    assert type(exc).__name__ == "ConnectionError"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)

