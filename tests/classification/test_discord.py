"""discord.py's REST client (``discord.http.HTTPClient``, over aiohttp) against a real HTTP server on 127.0.0.1 that
logs the bot in (``GET /users/@me``) and answers every other route with Discord's own error bodies
(https://discord.com/developers/docs/topics/opcodes-and-status-codes#json: ``{"message", "code"}``; a 429's
``{"message", "retry_after", "global"}``, https://discord.com/developers/docs/topics/rate-limits).

discord.py raises ``Forbidden`` (403), ``NotFound`` (404), ``DiscordServerError`` (5xx) and its base
``HTTPException`` for any other status, each keeping ``status`` and Discord's JSON ``code``; a refused token at login
is ``LoginFailure`` raised from the 401's ``HTTPException``. A 429 whose wait is longer than ``max_ratelimit_timeout``
is ``RateLimited`` (only ``retry_after``: no status, no response); one without Discord's ``Via`` header (Cloudflare's
ban page) is the base ``HTTPException``. 500, 502 and 504 are retried with sleeps (not tested: 25 s).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

discord = pytest.importorskip("discord")

from aiohttp import web  # noqa: E402
from discord.http import HTTPClient, Route  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, closing_listener, silent_listener  # noqa: E402

ME = {"id": "80351110224678912", "username": "refunds-bot", "discriminator": "0", "avatar": None, "bot": True}


@asynccontextmanager
async def discord_api(status: int, body: object, headers: dict[str, str] | None = None,
                      login_status: int = 200) -> AsyncIterator[str]:
    async def me(request: web.Request) -> web.Response:
        if login_status != 200:
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=login_status)
        return web.json_response(ME)

    async def other(request: web.Request) -> web.Response:
        text = body if isinstance(body, str) else json.dumps(body)
        return web.Response(status=status, body=text.encode(), headers=headers or {},
                            content_type="text/html" if isinstance(body, str) else "application/json")

    app = web.Application()
    app.router.add_get("/api/v10/users/@me", me)
    app.router.add_route("*", "/{tail:.*}", other)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://{HOST}:{port}/api/v10"
    finally:
        await runner.cleanup()


async def _send(base: str, monkeypatch: pytest.MonkeyPatch, *, max_wait: float | None = None,
                login: bool = True) -> Any:
    monkeypatch.setattr(Route, "BASE", base)
    client = HTTPClient(asyncio.get_running_loop(), max_ratelimit_timeout=max_wait)
    try:
        await client.static_login("bot-token")
        return await client.send_message(41771983423143937, params=discord.http.MultipartParameters(
            payload={"content": "refund 17 done"}, multipart=None, files=None))
    finally:
        await client.close()


def _run(monkeypatch: pytest.MonkeyPatch, status: int, body: object, headers: dict[str, str] | None = None,
         **kwargs: Any) -> Callable[[], Any]:
    async def run() -> Any:
        async with discord_api(status, body, headers, kwargs.pop("login_status", 200)) as base:
            return await _send(base, monkeypatch, **kwargs)
    return run


@pytest.mark.parametrize(("status", "code", "exc_name", "failure_class", "side_effect"), [
    (403, 50013, "Forbidden", C.PERMISSION_DENIED, False),  # Missing Permissions
    (404, 10003, "NotFound", C.NOT_FOUND, False),  # Unknown Channel
    (400, 50035, "HTTPException", C.INVALID_INPUT, False),  # Invalid Form Body
    (401, 0, "HTTPException", C.PERMISSION_DENIED, False),
    (503, 0, "DiscordServerError", C.UPSTREAM_UNAVAILABLE, False),
])
def test_error_status(monkeypatch: pytest.MonkeyPatch, status: int, code: int, exc_name: str, failure_class: C,
                      side_effect: bool) -> None:
    exc = raised(_run(monkeypatch, status, {"message": "the API said no", "code": code}))
    assert type(exc).__name__ == exc_name and exc.status == status and exc.code == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_login_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = raised(_run(monkeypatch, 200, {}, login_status=401))
    assert type(exc) is discord.LoginFailure and type(exc.__cause__) is discord.HTTPException
    check(exc, C.PERMISSION_DENIED, False)


def test_rate_limited_longer_than_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"message": "You are being rate limited.", "retry_after": 64.57, "global": False}
    exc = raised(_run(monkeypatch, 429, body, {"Via": "1.1 google", "Retry-After": "65"}, max_wait=30))
    assert type(exc) is discord.RateLimited and exc.retry_after == 64.57
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == 64.57


def test_banned_by_cloudflare(monkeypatch: pytest.MonkeyPatch) -> None:
    # a 429 without Discord's Via header: Cloudflare's ban page, raised as the base HTTPException
    exc = raised(_run(monkeypatch, 429, "<html>Error 1015: You are being rate limited</html>", {"Retry-After": "1800"}))
    assert type(exc) is discord.HTTPException and exc.status == 429
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == 1800


def _transport(base: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Any]:
    return lambda: _send(base, monkeypatch)


def test_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = raised(_transport(f"http://{HOST}:{closed_port()}/api/v10", monkeypatch))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_answering(monkeypatch: pytest.MonkeyPatch) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_transport(f"http://{HOST}:{port}/api/v10", monkeypatch))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_answer_never_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> Any:
        with silent_listener() as port:
            return await asyncio.wait_for(_send(f"http://{HOST}:{port}/api/v10", monkeypatch), 0.5)
    exc = raised(run)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_handshake_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # https:// at a plain HTTP server: the handshake fails before the login request left
    async def run() -> Any:
        async with discord_api(200, {}) as base:
            return await _send(base.replace("http://", "https://"), monkeypatch)
    exc = raised(run)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
