"""google-api-python-client (the discovery-based client of Drive, Gmail, Calendar, YouTube, Sheets...) built from a
discovery document whose ``rootUrl`` is a real HTTP server on 127.0.0.1 answering Google's JSON error format.

``HttpError`` keeps the HTTP status (``status_code``, from httplib2's response), the URI it requested, and the
error's ``errors[].reason`` or ``details[]`` (``error_details``). The one case where the status misleads: the
older Google APIs answer a usage limit with **403** and the reason says so (``userRateLimitExceeded``,
``rateLimitExceeded``, ``dailyLimitExceeded``, ``quotaExceeded``: the Drive, Calendar and YouTube "Resolve errors"
guides), as the ``google.rpc.ErrorInfo`` detail does on newer ones (``RATE_LIMIT_EXCEEDED``). Those are rate limits,
not a refused credential. google-api-core (google-cloud-*) keeps the same reasons (``errors``; ErrorInfo's
``reason`` beside its ``domain``), so one rule reads both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httplib2
import pytest
from google.api_core import exceptions as google_errors
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from googleapiclient import discovery
from googleapiclient.errors import HttpError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _discovery(root: str) -> dict[str, Any]:
    return {
        "kind": "discovery#restDescription", "discoveryVersion": "v1", "id": "orders:v1", "name": "orders",
        "version": "v1", "protocol": "rest", "rootUrl": f"{root}/", "servicePath": "orders/v1/", "batchPath": "batch",
        "resources": {"orders": {"methods": {
            "get": {"id": "orders.orders.get", "path": "orders/{orderId}", "httpMethod": "GET",
                    "parameters": {"orderId": {"type": "string", "required": True, "location": "path"}},
                    "parameterOrder": ["orderId"]},
            "insert": {"id": "orders.orders.insert", "path": "orders", "httpMethod": "POST",
                       "request": {"$ref": "Order"}},
        }}},
        "schemas": {"Order": {"id": "Order", "type": "object", "properties": {"item": {"type": "string"}}}},
    }


def _insert(root: str, timeout: float = 5) -> Callable[[], Any]:
    service = discovery.build_from_document(_discovery(root), http=httplib2.Http(timeout=timeout))
    return lambda: service.orders().insert(body={"item": "A-17"}).execute(num_retries=0)


def google_error(status: int, reason: str, grpc_status: str, detail_reason: str | None = None) -> str:
    error: dict[str, Any] = {"code": status, "message": "upstream said no", "status": grpc_status}
    if detail_reason is None:
        error["errors"] = [{"domain": "usageLimits" if "imit" in reason else "global", "reason": reason,
                            "message": "upstream said no"}]
    else:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": detail_reason,
                             "domain": "googleapis.com", "metadata": {"service": "orders.googleapis.com"}}]
    return json.dumps({"error": error})


@pytest.mark.parametrize(("status", "reason", "grpc_status", "failure_class", "side_effect"), [
    (400, "invalid", "INVALID_ARGUMENT", C.INVALID_INPUT, False),
    (401, "authError", "UNAUTHENTICATED", C.PERMISSION_DENIED, False),
    (403, "insufficientPermissions", "PERMISSION_DENIED", C.PERMISSION_DENIED, False),
    (403, "userRateLimitExceeded", "PERMISSION_DENIED", C.RATE_LIMITED, False),
    (403, "rateLimitExceeded", "PERMISSION_DENIED", C.RATE_LIMITED, False),
    (403, "dailyLimitExceeded", "PERMISSION_DENIED", C.RATE_LIMITED, False),
    (403, "quotaExceeded", "PERMISSION_DENIED", C.RATE_LIMITED, False),  # YouTube Data API's daily quota
    (404, "notFound", "NOT_FOUND", C.NOT_FOUND, False),
    (409, "conflict", "ABORTED", C.INVALID_INPUT, False),
    (500, "backendError", "INTERNAL", C.UPSTREAM_UNAVAILABLE, True),
    (503, "backendError", "UNAVAILABLE", C.UPSTREAM_UNAVAILABLE, False),
])
def test_http_error(upstream: HttpUpstream, status: int, reason: str, grpc_status: str, failure_class: C,
                    side_effect: bool) -> None:
    exc = raised(_insert(upstream.scripted(status, google_error(status, reason, grpc_status))))
    assert isinstance(exc, HttpError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))
    assert result.upstream.address == f"{HOST}:{upstream.port}"


def test_error_info_rate_limit_on_a_403(upstream: HttpUpstream) -> None:
    body = google_error(403, "", "PERMISSION_DENIED", detail_reason="RATE_LIMIT_EXCEEDED")
    exc = raised(_insert(upstream.scripted(403, body)))
    assert isinstance(exc, HttpError)
    check(exc, C.RATE_LIMITED, False)


def test_error_info_of_a_refused_credential(upstream: HttpUpstream) -> None:
    body = google_error(403, "", "PERMISSION_DENIED", detail_reason="ACCESS_TOKEN_SCOPE_INSUFFICIENT")
    exc = raised(_insert(upstream.scripted(403, body)))
    assert isinstance(exc, HttpError)
    check(exc, C.PERMISSION_DENIED, False)


def test_too_many_requests_with_retry_after(upstream: HttpUpstream) -> None:
    body = google_error(429, "rateLimitExceeded", "RESOURCE_EXHAUSTED")
    exc = raised(_insert(upstream.scripted(429, body, {"Retry-After": "12"})))
    assert isinstance(exc, HttpError)
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == 12.0


def test_non_json_error_page(upstream: HttpUpstream) -> None:
    """A load balancer's HTML 502 in front of the API: the status alone decides."""
    page = "<html><body>Bad Gateway</body></html>"
    exc = raised(_insert(upstream.scripted(502, page, {"Content-Type": "text/html"})))
    assert isinstance(exc, HttpError) and exc.status_code == 502
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_refused() -> None:
    exc = raised(_insert(f"http://{HOST}:{closed_port()}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_read_timeout(upstream: HttpUpstream) -> None:
    exc = raised(_insert(f"{upstream.url}/stall", timeout=0.3))
    assert isinstance(exc, TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def _storage_get(base: str) -> Callable[[], Any]:
    client = storage.Client(project="p", credentials=AnonymousCredentials(), client_options={"api_endpoint": base})
    return lambda: client.get_bucket("orders", timeout=5, retry=None)


@pytest.mark.parametrize(("reason", "failure_class"), [
    ("userRateLimitExceeded", C.RATE_LIMITED),
    ("rateLimitExceeded", C.RATE_LIMITED),
    ("forbidden", C.PERMISSION_DENIED),
])
def test_google_cloud_storage_403(upstream: HttpUpstream, reason: str, failure_class: C) -> None:
    """The same reasons through google-api-core (``Forbidden.errors``), as Cloud Storage's JSON API sends them."""
    exc = raised(_storage_get(upstream.scripted(403, google_error(403, reason, "PERMISSION_DENIED"))))
    assert isinstance(exc, google_errors.Forbidden)
    check(exc, failure_class, False)


def test_google_cloud_error_info_on_a_403(upstream: HttpUpstream) -> None:
    """google-api-core reads the ErrorInfo detail into ``reason`` and ``domain``."""
    body = google_error(403, "", "PERMISSION_DENIED", detail_reason="RATE_LIMIT_EXCEEDED")
    exc = raised(_storage_get(upstream.scripted(403, body)))
    assert isinstance(exc, google_errors.Forbidden) and exc.reason == "RATE_LIMIT_EXCEEDED"
    check(exc, C.RATE_LIMITED, False)
