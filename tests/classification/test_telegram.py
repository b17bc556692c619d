"""python-telegram-bot (its httpx transport) against a real HTTP server on 127.0.0.1 that answers as the Bot API does.

The Bot API answers ``{"ok": false, "error_code": ..., "description": ...}`` with the same HTTP status
(https://core.telegram.org/bots/api#making-requests), and ``parameters`` for flood control
(``retry_after``) and a group upgraded to a supergroup (``migrate_to_chat_id``). python-telegram-bot keeps
no status: it raises one class per status (``BadRequest`` 400, ``InvalidToken`` 401/404, ``Forbidden`` 403,
``Conflict`` 409, ``NetworkError`` for any other), ``RetryAfter`` and ``ChatMigrated`` for the parameters,
and wraps httpx's own errors as ``TimedOut``/``NetworkError`` raised from them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from telegram import Bot, error
from telegram.request import HTTPXRequest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5


def _send(base: str, timeout: float = 5, **request: Any) -> Callable[[], Coroutine[Any, Any, Any]]:
    async def send() -> None:
        transport = HTTPXRequest(connect_timeout=timeout, read_timeout=timeout, write_timeout=timeout, **request)
        await transport.initialize()
        try:
            bot = Bot("123456:test-token", base_url=f"{base}/bot", request=transport)
            await bot.send_message(chat_id=42, text="your order shipped")
        finally:
            await transport.shutdown()

    return send


def _answer(status: int, description: str, **parameters: int) -> str:
    return json.dumps({"ok": False, "error_code": status, "description": description,
                       **({"parameters": parameters} if parameters else {})})


@pytest.mark.parametrize(("status", "description", "kind", "failure_class", "side_effect"), [
    (400, "Bad Request: message text is empty", error.BadRequest, C.INVALID_INPUT, False),
    (400, "Bad Request: chat not found", error.BadRequest, C.INVALID_INPUT, False),
    (401, "Unauthorized", error.InvalidToken, C.PERMISSION_DENIED, False),
    (404, "Not Found", error.InvalidToken, C.PERMISSION_DENIED, False),  # the Bot API's answer to a malformed token
    (403, "Forbidden: bot was blocked by the user", error.Forbidden, C.PERMISSION_DENIED, False),
    (409, "Conflict: terminated by other getUpdates request", error.Conflict, C.INVALID_INPUT, False),
    # any other status: python-telegram-bot's NetworkError with the description only (a 5xx: its fate is not known)
    (500, "Internal Server Error", error.NetworkError, C.UPSTREAM_UNAVAILABLE, None),
    (502, "Bad Gateway", error.NetworkError, C.UPSTREAM_UNAVAILABLE, None),
])
def test_refused(upstream: HttpUpstream, status: int, description: str, kind: type[Exception], failure_class: C,
                 side_effect: bool | None) -> None:
    exc = raised(_send(upstream.scripted(status, _answer(status, description))))
    assert type(exc) is kind
    result = check(exc, failure_class, side_effect)
    if status in (400, 403, 409):  # the one status its class stands for
        assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("telegram", str(status))


def test_flood_control(upstream: HttpUpstream) -> None:
    exc = raised(_send(upstream.scripted(429, _answer(429, "Too Many Requests: retry after 7", retry_after=7))))
    assert isinstance(exc, error.RetryAfter)
    assert check(exc, C.RATE_LIMITED, False).retry_after == 7.0


def test_chat_migrated(upstream: HttpUpstream) -> None:
    # the group became a supergroup under a new id: the call named a chat id that no longer takes messages
    body = _answer(400, "Bad Request: group chat was upgraded to a supergroup chat", migrate_to_chat_id=-100123)
    exc = raised(_send(upstream.scripted(400, body)))
    assert isinstance(exc, error.ChatMigrated)
    check(exc, C.INVALID_INPUT, False)


def test_answer_not_json(upstream: HttpUpstream) -> None:
    # a 200 that is no Bot API answer (a proxy's page): "Invalid server response", raised from the JSON error
    exc = raised(_send(upstream.scripted(200, "<html>hello</html>", {"Content-Type": "text/html"})))
    assert type(exc) is error.TelegramError
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", error.NetworkError, False),
    ("unresolvable", error.NetworkError, False),
    ("drop", error.NetworkError, True),
    ("stall", error.TimedOut, True),
])
def test_transport(upstream: HttpUpstream, where: str, kind: type[Exception], side_effect: bool) -> None:
    exc = raised(_send(upstream.failing(where), SHORT))
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_connect_timeout(backlog_port: int) -> None:
    exc = raised(_send(f"http://127.0.0.1:{backlog_port}", SHORT))
    assert type(exc) is error.TimedOut
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
