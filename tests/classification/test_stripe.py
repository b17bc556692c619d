"""The Stripe SDK against a real HTTP server on 127.0.0.1 (no retries of its own).

Stripe picks its exception class by status (https://docs.stripe.com/api/errors: 400/404
InvalidRequestError, 401 AuthenticationError, 403 PermissionError, 429 RateLimitError, others
APIError) and keeps it as ``http_status``; its APIConnectionError is raised over the requests error.
"""

from __future__ import annotations

import json

import pytest
import requests
import stripe

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream


def _retrieve(base: str, timeout: float = 5) -> object:
    client = stripe.StripeClient("sk_test_errscope", base_addresses={"api": base}, max_network_retries=0,
                                 http_client=stripe.RequestsClient(timeout=timeout))
    return lambda: client.v1.customers.retrieve("cus_1")


_BODY = json.dumps({"error": {"type": "invalid_request_error", "message": "upstream said no"}})


@pytest.mark.parametrize(("status", "retry_after", "kind", "failure_class", "side_effect", "wait"), [
    (400, None, stripe.InvalidRequestError, C.INVALID_INPUT, False, None),
    (401, None, stripe.AuthenticationError, C.PERMISSION_DENIED, False, None),
    (403, None, stripe.PermissionError, C.PERMISSION_DENIED, False, None),
    (404, None, stripe.InvalidRequestError, C.NOT_FOUND, False, None),
    (409, None, stripe.APIError, C.INVALID_INPUT, False, None),  # an idempotency-key conflict
    (429, "3", stripe.RateLimitError, C.RATE_LIMITED, False, 3.0),
    (429, None, stripe.RateLimitError, C.RATE_LIMITED, False, None),
    (500, None, stripe.APIError, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, None, stripe.APIError, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_status(upstream: HttpUpstream, status: int, retry_after: str | None, kind: type, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    exc = raised(_retrieve(upstream.scripted(status, _BODY, headers)))
    assert type(exc) is kind and exc.http_status == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "side_effect", "inner"), [
    ("refused", False, requests.ConnectionError),
    ("unresolvable", False, requests.ConnectionError),
    ("drop", True, requests.ConnectionError),
    ("stall", True, requests.ReadTimeout),
])
def test_connection(upstream: HttpUpstream, where: str, side_effect: bool, inner: type) -> None:
    base = upstream.failing(where)
    exc = raised(_retrieve(base, timeout=0.3 if where == "stall" else 5))
    assert isinstance(exc, stripe.APIConnectionError) and isinstance(exc.__context__, inner)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
