"""msgraph-sdk (Microsoft Graph's Kiota-generated SDK, over httpx) against a real HTTP server on 127.0.0.1.

The server answers in Graph's OData error shape (``{"error": {"code": "Request_ResourceNotFound", "message": ...}}``).
Kiota raises the generated ``ODataError``, an ``APIError`` that keeps the status as ``response_status_code`` and the
answer's headers as ``response_headers`` (no ``response``); a dead peer is httpx's own error. The adapter is given a
plain ``httpx.AsyncClient``, so Kiota's retry middleware (which would wait out each 429/503) is not in the way.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

msgraph = pytest.importorskip("msgraph")

import httpx  # noqa: E402
from kiota_abstractions.api_error import APIError  # noqa: E402
from kiota_abstractions.authentication import AnonymousAuthenticationProvider  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


def _client(base: str) -> Any:
    adapter = msgraph.GraphRequestAdapter(AnonymousAuthenticationProvider(), client=httpx.AsyncClient(timeout=0.5))
    adapter.base_url = f"{base}/v1.0"
    return msgraph.GraphServiceClient(request_adapter=adapter)


def _get_user(base: str) -> Any:
    return lambda: _client(base).users.by_user_id("ops@example.com").get()


def _send_mail(base: str) -> Any:
    from msgraph.generated.users.item.send_mail.send_mail_post_request_body import SendMailPostRequestBody

    return lambda: _client(base).users.by_user_id("ops@example.com").send_mail.post(SendMailPostRequestBody())


def _run(call: Any) -> BaseException:
    return raised(lambda: asyncio.run(call()))


CALLS = [pytest.param(_get_user, id="get_user"), pytest.param(_send_mail, id="send_mail")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "code", "headers", "failure_class", "side_effect", "wait"), [
    (400, "Request_BadRequest", {}, C.INVALID_INPUT, False, None),
    (401, "InvalidAuthenticationToken", {}, C.PERMISSION_DENIED, False, None),
    (403, "Authorization_RequestDenied", {}, C.PERMISSION_DENIED, False, None),
    (404, "Request_ResourceNotFound", {}, C.NOT_FOUND, False, None),
    (404, "ErrorItemNotFound", {}, C.NOT_FOUND, False, None),
    (409, "ErrorFolderExists", {}, C.INVALID_INPUT, False, None),
    (429, "TooManyRequests", {"Retry-After": "7"}, C.RATE_LIMITED, False, 7.0),  # Graph's throttling
    (429, "ApplicationThrottled", {}, C.RATE_LIMITED, False, None),
    (500, "generalException", {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "serviceNotAvailable", {"Retry-After": "5"}, C.UPSTREAM_UNAVAILABLE, False, 5.0),
    (504, "UnknownError", {}, C.UPSTREAM_UNAVAILABLE, True, None),
])
def test_odata_error(upstream: HttpUpstream, call: Any, status: int, code: str, headers: dict[str, str],
                     failure_class: C, side_effect: bool, wait: float | None) -> None:
    body = json.dumps({"error": {"code": code, "message": "Graph said no",
                                 "innerError": {"request-id": "0b1c", "date": "2026-01-01T00:00:00"}}})
    exc = _run(call(upstream.scripted(status, body, {"Content-Type": "application/json", **headers})))
    assert isinstance(exc, APIError) and exc.response_status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = _run(_get_user(upstream.failing(where)))
    assert isinstance(exc, httpx.TransportError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
