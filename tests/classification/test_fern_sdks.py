"""A Fern-generated SDK (Cohere's, httpx underneath), synchronous and asyncio, against a real HTTP server on
127.0.0.1 with its retries off.

Fern's generated clients raise one subclass of their ``core.ApiError`` per status the API documents
(``BadRequestError``, ``TooManyRequestsError``, Cohere's ``InvalidTokenError`` for its own 498), each keeping
``status_code``, ``headers`` (a dict) and the parsed ``body``; a status it does not document is a bare
``ApiError``; a dead peer is httpx's own exception, raised bare.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import cohere
import pytest
from cohere.core.api_error import ApiError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5
Call = Callable[[str, float], Callable[[], Any]]


def _chat(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = cohere.ClientV2(api_key="co-test", base_url=base, timeout=timeout)
    return lambda: client.chat(model="command-test", messages=[{"role": "user", "content": "hi"}],
                               request_options={"max_retries": 0})


def _chat_async(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = cohere.AsyncClientV2(api_key="co-test", base_url=base, timeout=timeout)
    return lambda: client.chat(model="command-test", messages=[{"role": "user", "content": "hi"}],
                               request_options={"max_retries": 0})


def _embed(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = cohere.ClientV2(api_key="co-test", base_url=base, timeout=timeout)
    return lambda: client.embed(model="embed-test", texts=["hi"], input_type="search_document",
                                embedding_types=["float"], request_options={"max_retries": 0})


CALLS = [pytest.param(_chat, id="chat"), pytest.param(_chat_async, id="chat-async"), pytest.param(_embed, id="embed")]
_BODY = json.dumps({"message": "the upstream said no", "id": "req-1"})


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    (400, None, C.INVALID_INPUT, False, None),
    (401, None, C.PERMISSION_DENIED, False, None),
    (403, None, C.PERMISSION_DENIED, False, None),
    (404, None, C.NOT_FOUND, False, None),
    (422, None, C.INVALID_INPUT, False, None),
    (429, "9", C.RATE_LIMITED, False, 9.0),
    (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (501, None, C.UPSTREAM_UNAVAILABLE, False, None),
    (503, "4", C.UPSTREAM_UNAVAILABLE, False, 4.0),
    (504, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (502, None, C.UPSTREAM_UNAVAILABLE, True, None),  # not documented: the bare ApiError
])
def test_status(upstream: HttpUpstream, call: Call, status: int, retry_after: str | None, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
    exc = raised(call(upstream.scripted(status, _BODY, headers), 5))
    assert isinstance(exc, ApiError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("call", CALLS)
def test_invalid_token_498(upstream: HttpUpstream, call: Call) -> None:
    # Cohere's own status for an API key it does not accept (no IANA status: the SDK's class names it)
    exc = raised(call(upstream.scripted(498, _BODY, {"Content-Type": "application/json"}), 5))
    assert type(exc).__name__ == "InvalidTokenError" and exc.status_code == 498
    result = check(exc, C.PERMISSION_DENIED, False)
    assert result.upstream is not None and result.upstream.status == "498"


@pytest.mark.parametrize("call", CALLS)
def test_success_that_is_not_the_api(upstream: HttpUpstream, call: Call) -> None:
    # a 200 whose body is no JSON (a captive portal, a misrouted proxy): Fern raises its ApiError with the 200
    exc = raised(call(upstream.scripted(200, "<html>hello</html>", {"Content-Type": "text/html"}), 5))
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, call: Call, where: str, side_effect: bool) -> None:
    check(raised(call(upstream.failing(where), SHORT)), C.UPSTREAM_UNAVAILABLE, side_effect)
