"""The Ollama client (ollama-python, over httpx) against real sockets on 127.0.0.1.

``ResponseError`` keeps the status as ``status_code`` and the body's ``error`` as its text, no headers (a 429's
``Retry-After`` is gone); a refused or unresolvable host is re-raised ``from None`` as a builtin ``ConnectionError``
("Failed to connect to Ollama") over httpx's ``ConnectError``; a timeout or a dropped answer is httpx's own error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

ollama = pytest.importorskip("ollama")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}


def _chat(url: str) -> Callable[[], Any]:
    client = ollama.Client(host=url, timeout=1)
    return lambda: client.chat(model="llama3.2", messages=[{"role": "user", "content": "refund order 17"}])


def _generate_async(url: str) -> Callable[[], Any]:
    async def run() -> Any:
        return await ollama.AsyncClient(host=url, timeout=1).generate(model="llama3.2", prompt="refund order 17")

    return lambda: asyncio.run(run())


CALLS = [pytest.param(_chat, id="sync"), pytest.param(_generate_async, id="async")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "error", "failure_class", "side_effect"), [
    (400, "invalid options", C.INVALID_INPUT, False),
    (401, "unauthorized", C.PERMISSION_DENIED, False),  # ollama.com's hosted API without a key
    (403, "forbidden", C.PERMISSION_DENIED, False),
    (404, "model 'llama3.2' not found, try pulling it first", C.NOT_FOUND, False),
    (429, "too many requests", C.RATE_LIMITED, False),
    (500, "llama runner process has terminated", C.UPSTREAM_UNAVAILABLE, True),
    (503, "server busy, please try again", C.UPSTREAM_UNAVAILABLE, False),  # OLLAMA_MAX_QUEUE full
])
def test_status(call: Callable[[str], Callable[[], Any]], status: int, error: str, failure_class: C,
                side_effect: bool) -> None:
    with answering(status, json.dumps({"error": error}), {**JSON, "Retry-After": "7"}) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert isinstance(exc, ollama.ResponseError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after is None  # ResponseError keeps no headers
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("where", ["refused", "unresolvable"])
def test_cannot_connect(call: Callable[[str], Callable[[], Any]], where: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}" if where == "refused" else f"http://{UNRESOLVABLE}:11434"
    exc = raised(call(url))
    assert type(exc) is ConnectionError and exc.__suppress_context__
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("call", CALLS)
def test_no_answer(call: Callable[[str], Callable[[], Any]]) -> None:
    with silent_listener() as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == "ReadTimeout"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("call", CALLS)
def test_closed_after_the_request(call: Callable[[str], Callable[[], Any]]) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == "RemoteProtocolError"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
