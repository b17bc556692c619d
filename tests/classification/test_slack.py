"""slack_sdk's WebClient (urllib) and AsyncWebClient (aiohttp) against a real HTTP server on 127.0.0.1.

Slack answers most failures with HTTP 200 and ``{"ok": false, "error": "<code>"}``
(https://api.slack.com/web#evaluating_responses); the SDK raises SlackApiError carrying that
response: the code decides. A rate limit is a 429 with Retry-After; transport failures are the
HTTP stack's own (urllib's, aiohttp's). The SDK's retry handlers are removed: one failure each.
"""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _sync(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = WebClient(token="xoxb-errscope", base_url=base + "/", timeout=timeout)
    client.retry_handlers.clear()
    return lambda: client.chat_postMessage(channel="C1", text="hi")


def _async(base: str, timeout: float = 5) -> Callable[[], Any]:
    async def call() -> None:
        client = AsyncWebClient(token="xoxb-errscope", base_url=base + "/", timeout=timeout)
        client.retry_handlers.clear()
        await client.chat_postMessage(channel="C1", text="hi")

    return call


CLIENTS = [pytest.param(_sync, id="sync"), pytest.param(_async, id="async")]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    # https://api.slack.com/methods/chat.postMessage#errors and the common errors of every method
    ("channel_not_found", C.NOT_FOUND, False),
    ("not_authed", C.PERMISSION_DENIED, False),
    ("invalid_auth", C.PERMISSION_DENIED, False),
    ("missing_scope", C.PERMISSION_DENIED, False),
    ("ratelimited", C.RATE_LIMITED, False),
    ("invalid_arguments", C.INVALID_INPUT, False),
    ("msg_too_long", C.INVALID_INPUT, False),
    ("internal_error", C.UPSTREAM_UNAVAILABLE, True),  # "some aspect of the operation may have succeeded"
    ("fatal_error", C.UPSTREAM_UNAVAILABLE, True),
])
def test_error_code(client: Callable[..., Any], upstream: HttpUpstream, code: str, failure_class: C,
                    side_effect: bool) -> None:
    exc = raised(client(upstream.scripted(200, json.dumps({"ok": False, "error": code}))))
    assert isinstance(exc, SlackApiError) and exc.response.status_code == 200
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("slack", code)


@pytest.mark.parametrize("client", CLIENTS)
def test_rate_limited_with_retry_after(client: Callable[..., Any], upstream: HttpUpstream) -> None:
    base = upstream.scripted(429, json.dumps({"ok": False, "error": "ratelimited"}), {"Retry-After": "4"})
    exc = raised(client(base))
    assert isinstance(exc, SlackApiError) and exc.response.status_code == 429
    assert check(exc, C.RATE_LIMITED, False).retry_after == 4.0


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (404, C.NOT_FOUND, False),  # no such method
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status_without_envelope(client: Callable[..., Any], upstream: HttpUpstream, status: int,
                                 failure_class: C, side_effect: bool) -> None:
    exc = raised(client(upstream.scripted(status, "upstream said no", {"Content-Type": "text/plain"})))
    assert isinstance(exc, SlackApiError) and exc.response.status_code == status
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("client", "kind"), [(_sync, urllib.error.URLError), (_async, aiohttp.ClientConnectorError)])
def test_connection_refused(client: Callable[..., Any], kind: type) -> None:
    exc = raised(client(f"http://{HOST}:{closed_port()}"))
    assert isinstance(exc, kind)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("where", ["drop", "stall"])
def test_sent_then_lost(client: Callable[..., Any], upstream: HttpUpstream, where: str) -> None:
    exc = raised(client(f"{upstream.url}/{where}", timeout=0.3 if where == "stall" else 5))
    assert isinstance(exc, OSError | aiohttp.ClientError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
