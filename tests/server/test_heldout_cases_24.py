"""Server side of tests/heldout_cases.md, twenty-fourth round (J413, J415): real libraries failing in a tool, each on
127.0.0.1: the OpenAI and Groq SDKs answered a per-day rate limit whose wait is told only in the message, and
redis-py/valkey-py timing out while their connection is made (the TCP connect, or the handshake before any command).

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_RETRY_AFTER, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, HttpUpstream, full_backlog, per_connection, silent_listener
from tests.server.test_heldout_cases import serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}


async def failed_call(style: str, telemetry: CapturedTelemetry, tool: Any, arguments: dict[str, Any]) -> tuple[Any, str]:
    """Call ``tool`` once on a served ``style`` server; the call's span and the text the model read, checked to be an
    ``isError`` result."""
    async with serving(style, "legacy", telemetry, tool) as served:
        result = await served.call(tool.__name__, arguments)
    assert not isinstance(result, Exception) and result.is_error, result
    return served.span(), " ".join(getattr(part, "text", "") for part in result.content)


def facts(span: Any) -> tuple[Any, Any]:
    return span.attributes.get(ERRSCOPE_FAILURE_CLASS), span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE)


# --- J413: an LLM provider's per-day limit, its wait told in the message ----------------------------------------------------

GROQ_RPD = ("Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_FAKE` service tier `on_demand` "
            "on requests per day (RPD): Limit 1000, Used 1000, Requested 1. Please try again in 1h2m3.4s. Visit "
            "https://console.groq.com/docs/rate-limits for more information.")


async def summarise_with_openai(text: str) -> str:
    """Summarise a text (the OpenAI SDK against an OpenAI-compatible endpoint, no retries of its own)."""
    import openai

    client = openai.AsyncOpenAI(base_url=f"{TARGET['url']}/openai/v1", api_key="FAKE-KEY", max_retries=0)
    answer = await client.chat.completions.create(model="llama-3.3-70b-versatile",
                                                  messages=[{"role": "user", "content": text}])
    return answer.choices[0].message.content or ""


async def summarise_with_groq(text: str) -> str:
    """Summarise a text (the Groq SDK, no retries of its own)."""
    import groq

    client = groq.AsyncGroq(base_url=TARGET["url"], api_key="FAKE-KEY", max_retries=0)
    answer = await client.chat.completions.create(model="llama-3.3-70b-versatile",
                                                  messages=[{"role": "user", "content": text}])
    return answer.choices[0].message.content or ""


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [summarise_with_openai, summarise_with_groq])
async def test_j413_per_day_limit_wait_in_the_message(style: str, tool: Any, telemetry: CapturedTelemetry) -> None:
    """J413 (danielmiessler/Fabric #364: Groq's 429 body ``{"error": {"message": "Rate limit reached for model … Please
    try again in 50.597142857s. …", "type": "tokens", "code": "rate_limit_exceeded"}}``; on a per-day limit the same
    sentence prints a Go ``time.Duration``, "1h2m3.4s"; no ``Retry-After`` header came here). The OpenAI and Groq SDKs
    raise ``RateLimitError`` over it. The wait was dropped (``retry_after`` absent): the model was told to wait "a
    moment", and a client would retry a limit that resets in an hour. Rule: when no header (or Google's RetryInfo) gives
    the wait, the wait the answer's message states is read, every part of a composite duration summed (3723.4 s)."""
    body = json.dumps({"error": {"message": GROQ_RPD, "type": "requests", "code": "rate_limit_exceeded"}})
    with HttpUpstream() as upstream:
        TARGET["url"] = upstream.scripted(429, body, {"Content-Type": "application/json"})
        span, text = await failed_call(style, telemetry, tool, {"text": "a long report"})
    assert facts(span) == ("rate_limited", False), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_RETRY_AFTER) == pytest.approx(3723.4), dict(span.attributes)
    assert "Wait about 3723 s" in text, text


# --- J415: redis-py timing out while its connection is made --------------------------------------------------------------

def _hello_reply(data: bytes) -> bytes:
    """Redis 7's answer to ``HELLO <protover>``: its server, version and protocol, a RESP3 map for 3 (redis-py 8.2's
    default), a flat RESP2 array for 2."""
    resp3 = re.search(rb"HELLO\r\n\$1\r\n3", data, re.I) is not None
    fields = b"$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n7.2.4\r\n$5\r\nproto\r\n:" + (b"3" if resp3 else b"2")
    return (b"%3\r\n" if resp3 else b"*6\r\n") + fields + b"\r\n"


@contextmanager
def redis_stalling_on(command: bytes) -> Iterator[int]:
    """A RESP listener that answers the connection's handshake (HELLO as Redis 7 answers it in RESP2, ``+OK`` to CLIENT
    SETINFO, AUTH, ...) until ``command``, which it reads and never answers."""

    def answer(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                names = re.findall(rb"\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n", data)
                if command in (name.upper() for name in names):
                    conn.recv(65536)  # the command is never answered
                    return
                conn.sendall(b"".join(_hello_reply(data) if name.upper() == b"HELLO" else b"+OK\r\n" for name in names))

    with per_connection(answer) as port:
        yield port


async def reserve_stock(sku: str) -> str:
    """Reserve a unit of stock (redis-py's client, timeouts of 1 s)."""
    import redis.asyncio

    client = redis.asyncio.Redis(host=HOST, port=TARGET["port"], password=TARGET.get("password"),
                                 socket_timeout=1, socket_connect_timeout=1)
    await client.decr(f"stock:{sku}")
    return "reserved"


async def reserve_stock_valkey(sku: str) -> str:
    """Reserve a unit of stock (valkey-py's blocking client, in a worker thread)."""
    import valkey

    def decrement() -> None:
        valkey.Valkey(host=HOST, port=TARGET["port"], password=TARGET.get("password"),
                      socket_timeout=1, socket_connect_timeout=1).decr(f"stock:{sku}")

    await anyio.to_thread.run_sync(decrement)
    return "reserved"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [reserve_stock, reserve_stock_valkey])
@pytest.mark.parametrize("where", ["connect", "handshake", "auth"])
async def test_j415_redis_timeout_while_connecting(style: str, tool: Any, where: str,
                                                   telemetry: CapturedTelemetry) -> None:
    """J415 (CERT-Polska/karton PR #184: a silent server left redis-py's handshake (CLIENT SETNAME) unanswered and it
    raised "Timeout reading from socket"; redis/redis-py #854 and #778, python-arq/arq #260: a Redis host down or slow to
    accept, "Timeout connecting to server"). redis-py's ``connect`` opens the
    socket and then runs the handshake (``on_connect``: HELLO or AUTH, CLIENT SETINFO, SELECT) before any command is
    written. A ``TimeoutError`` from either was read "may have taken effect": the tool's DECR was never sent. Rule: a
    redis/valkey timeout raised inside the connection's ``connect`` sent nothing (as a driver's ``connect()`` error
    is read); ``upstream_unavailable``."""
    stalls = {"connect": full_backlog, "handshake": silent_listener, "auth": silent_listener}[where]
    TARGET["password"] = "FAKE-PASS" if where == "auth" else None
    with stalls() as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, tool, {"sku": "SKU-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert "may have" not in text, text


@pytest.mark.parametrize("style", STYLES)
async def test_j415_guard_a_command_unanswered_may_have_acted(style: str, telemetry: CapturedTelemetry) -> None:
    """J415's guard: a connection whose handshake was answered, and a DECR that was written and never answered, may
    have been applied: "may have taken effect", as before."""
    TARGET["password"] = None
    with redis_stalling_on(b"DECRBY") as port:  # redis-py's decr() sends DECRBY
        TARGET["port"] = port
        span, _ = await failed_call(style, telemetry, reserve_stock, {"sku": "SKU-1"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
