"""notion-client (sync and async, over httpx) against a real HTTP server on 127.0.0.1, with its
retries off. An error status is APIResponseError with ``status`` and Notion's ``code``
(https://developers.notion.com/reference/status-codes); a timeout is its RequestTimeoutError
raised over httpx's; other transport failures are httpx's own."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import notion_client
import pytest
from notion_client.errors import APIResponseError, HTTPResponseError, RequestTimeoutError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream


def _sync(base: str, timeout_ms: int = 5000) -> Callable[[], Any]:
    client = notion_client.Client(auth="secret_errscope", base_url=base, timeout_ms=timeout_ms, retry=False)
    return lambda: client.pages.retrieve(page_id="59833787-2cf9-4fdf-8782-e53db20768a5")


def _async(base: str, timeout_ms: int = 5000) -> Callable[[], Any]:
    async def call() -> None:
        async with notion_client.AsyncClient(auth="secret_errscope", base_url=base, timeout_ms=timeout_ms,
                                             retry=False) as client:
            await client.pages.retrieve(page_id="59833787-2cf9-4fdf-8782-e53db20768a5")

    return call


CLIENTS = [pytest.param(_sync, id="sync"), pytest.param(_async, id="async")]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("status", "code", "retry_after", "failure_class", "side_effect", "wait"), [
    (400, "validation_error", None, C.INVALID_INPUT, False, None),
    (401, "unauthorized", None, C.PERMISSION_DENIED, False, None),
    (403, "restricted_resource", None, C.PERMISSION_DENIED, False, None),
    (404, "object_not_found", None, C.NOT_FOUND, False, None),
    (409, "conflict_error", None, C.INVALID_INPUT, False, None),
    (429, "rate_limited", "2", C.RATE_LIMITED, False, 2.0),
    (500, "internal_server_error", None, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "service_unavailable", None, C.UPSTREAM_UNAVAILABLE, False, None),
    (504, "gateway_timeout", None, C.UPSTREAM_UNAVAILABLE, True, None),
])
def test_status(client: Callable[..., Any], upstream: HttpUpstream, status: int, code: str, retry_after: str | None,
                failure_class: C, side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    body = json.dumps({"object": "error", "status": status, "code": code, "message": "upstream said no"})
    exc = raised(client(upstream.scripted(status, body, headers)))
    assert isinstance(exc, APIResponseError) and exc.status == status
    assert check(exc, failure_class, side_effect).retry_after == wait


@pytest.mark.parametrize("client", CLIENTS)
def test_gateway_answer_without_notion_body(client: Callable[..., Any], upstream: HttpUpstream) -> None:
    exc = raised(client(upstream.scripted(502, "<html>bad gateway</html>", {"Content-Type": "text/html"})))
    assert isinstance(exc, HTTPResponseError) and not isinstance(exc, APIResponseError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", httpx.ConnectError, False),
    ("drop", httpx.ReadError, True),
    ("stall", RequestTimeoutError, True),
])
def test_connection(client: Callable[..., Any], upstream: HttpUpstream, where: str, kind: type,
                    side_effect: bool) -> None:
    base = upstream.failing(where)
    exc = raised(client(base, timeout_ms=300))
    assert isinstance(exc, kind)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
