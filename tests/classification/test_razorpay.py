"""Razorpay's Python SDK (payments) against real HTTP servers on 127.0.0.1.

The SDK keeps no status: it picks its exception by the answer's ``error.code`` alone
(https://razorpay.com/docs/errors/): ``BAD_REQUEST_ERROR`` for every 4xx, a refused key (401 "Authentication
failed") and a rate limit (429 "Too many requests") included; ``GATEWAY_ERROR`` for a bank's or gateway's failure
while processing a payment; ``SERVER_ERROR`` for Razorpay's own. Transport failures are requests' exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

razorpay = pytest.importorskip("razorpay")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


def _create_order(url: str) -> Callable[[], Any]:
    client = razorpay.Client(auth=("rzp_test_key", "secret"), base_url=url)
    return lambda: client.order.create({"amount": 50000, "currency": "INR", "receipt": "r-1"})


def _body(code: str, description: str) -> str:
    return json.dumps({"error": {"code": code, "description": description, "source": "NA", "step": "NA",
                                 "reason": "NA", "metadata": {}}})


@pytest.mark.parametrize(("status", "code", "description", "exc_name", "failure_class", "side_effect"), [
    (400, "BAD_REQUEST_ERROR", "The amount must be atleast INR 1.00", "BadRequestError", C.INVALID_INPUT, False),
    (401, "BAD_REQUEST_ERROR", "Authentication failed", "BadRequestError", C.PERMISSION_DENIED, False),
    (429, "BAD_REQUEST_ERROR", "Too many requests", "BadRequestError", C.RATE_LIMITED, False),
    (502, "GATEWAY_ERROR", "Payment processing failed due to error at bank or wallet gateway", "GatewayError",
     C.UPSTREAM_UNAVAILABLE, True),
    (500, "SERVER_ERROR", "The server encountered an error. The incident has been reported to admins.",
     "ServerError", C.UPSTREAM_UNAVAILABLE, True),
])
def test_error_code(upstream: HttpUpstream, status: int, code: str, description: str, exc_name: str,
                    failure_class: C, side_effect: bool) -> None:
    exc = raised(_create_order(upstream.scripted(status, _body(code, description))))
    assert type(exc).__module__ == "razorpay.errors" and type(exc).__name__ == exc_name
    check(exc, failure_class, side_effect)


def test_html_error_page(upstream: HttpUpstream) -> None:
    # a 500 from a proxy in front: the SDK's response.json() fails on it
    exc = raised(_create_order(upstream.scripted(500, "<html>oops</html>", {"Content-Type": "text/html"})))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_create_order(upstream.failing(where)))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
