"""The Resend Python SDK (``resend``, over requests) against a real HTTP server on 127.0.0.1 answering with Resend's
own error bodies (https://resend.com/docs/api-reference/errors: ``{"statusCode", "name", "message"}``).

resend raises one class per (status, ``name``) it knows (``ValidationError``, ``MissingApiKeyError``,
``InvalidApiKeyError``, ``RateLimitError``, ``ApplicationError``, ...) and its base ``ResendError`` for any other,
each keeping the status as ``code`` and the ``name`` as ``error_type``. A transport failure is wrapped twice: its HTTP
client raises ``RuntimeError("Request failed: ...") from`` requests' error, and the request wraps that in a
``ResendError`` it gives ``code=500`` and ``error_type="HttpClientError"`` (inside the ``except``: ``__context__``),
a status no server answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

resend = pytest.importorskip("resend")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

EMAIL = {"from": "refunds@errscope.test", "to": ["buyer@errscope.test"], "subject": "Refund 17", "html": "<p>done</p>"}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Callable[[], Any]]]:
    monkeypatch.setattr(resend, "api_key", "re_123456789")

    def send(base: str) -> Callable[[], Any]:
        def run() -> Any:
            monkeypatch.setattr(resend, "api_url", base)
            return resend.Emails.send(EMAIL)
        return run
    yield send


@pytest.mark.parametrize(("status", "name", "exc_name", "failure_class", "side_effect"), [
    (400, "validation_error", "ValidationError", C.INVALID_INPUT, False),
    (400, "invalid_idempotency_key", "ResendError", C.INVALID_INPUT, False),
    (401, "missing_api_key", "MissingApiKeyError", C.PERMISSION_DENIED, False),
    (401, "restricted_api_key", "ResendError", C.PERMISSION_DENIED, False),
    (403, "invalid_api_key", "InvalidApiKeyError", C.PERMISSION_DENIED, False),
    (404, "not_found", "ResendError", C.NOT_FOUND, False),
    # another request with the key still in progress: busy, and that one may yet act (tests/heldout_cases.md J492)
    (409, "concurrent_idempotent_requests", "ResendError", C.UPSTREAM_UNAVAILABLE, True),
    (422, "missing_required_field", "MissingRequiredFieldsError", C.INVALID_INPUT, False),
    (422, "invalid_from_address", "ResendError", C.INVALID_INPUT, False),
    (429, "rate_limit_exceeded", "RateLimitError", C.RATE_LIMITED, False),
    (429, "daily_quota_exceeded", "RateLimitError", C.RATE_LIMITED, False),
    (500, "application_error", "ApplicationError", C.UPSTREAM_UNAVAILABLE, True),
    (500, "internal_server_error", "ResendError", C.UPSTREAM_UNAVAILABLE, True),
])
def test_error_body(upstream: HttpUpstream, api: Callable[[str], Callable[[], Any]], status: int, name: str,
                    exc_name: str, failure_class: C, side_effect: bool) -> None:
    body = {"statusCode": status, "name": name, "message": "The API said no."}
    exc = raised(api(upstream.scripted(status, json.dumps(body))))
    assert type(exc).__name__ == exc_name and str(exc.code) == str(status) and exc.error_type == name
    check(exc, failure_class, side_effect)


def test_rate_limited_with_retry_after(upstream: HttpUpstream, api: Callable[[str], Callable[[], Any]]) -> None:
    body = {"statusCode": 429, "name": "rate_limit_exceeded", "message": "Too many requests. You can only make 2 "
            "requests per second."}
    exc = raised(api(upstream.scripted(429, json.dumps(body), {"Retry-After": "1", "ratelimit-remaining": "0"})))
    assert type(exc) is resend.exceptions.RateLimitError
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == 1.0


def test_gateway_page(upstream: HttpUpstream, api: Callable[[str], Callable[[], Any]]) -> None:
    exc = raised(api(upstream.scripted(502, "<html>502 Bad Gateway</html>", {"Content-Type": "text/html"})))
    assert isinstance(exc, resend.exceptions.ResendError) and str(exc.code) == "502"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_transport(upstream: HttpUpstream, api: Callable[[str], Callable[[], Any]], where: str,
                   side_effect: bool) -> None:
    # ResendError(code=500, error_type="HttpClientError") over RuntimeError over requests' error: no server said 500
    exc = raised(api(upstream.failing(where)))
    assert type(exc) is resend.exceptions.ResendError and exc.code == 500 and exc.error_type == "HttpClientError"
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_tls_handshake_fails(upstream: HttpUpstream, api: Callable[[str], Callable[[], Any]]) -> None:
    # https:// at a plain HTTP server: requests' SSLError under the made-up 500; nothing was sent
    exc = raised(api(upstream.url.replace("http://", "https://")))
    assert type(exc) is resend.exceptions.ResendError and exc.code == 500
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
