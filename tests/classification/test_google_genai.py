"""google-genai (the Gemini API's SDK) against a real HTTP server on 127.0.0.1, synchronous and asyncio.

The server answers each failure in the Gemini API's documented JSON error shape
(``{"error": {"code", "message", "status", "details"}}``, details being google.rpc messages:
``ErrorInfo`` with its ``reason``, ``RetryInfo`` with its ``retryDelay``). google-genai raises its
``ClientError``/``ServerError`` (``code`` the HTTP status, ``status`` the canonical code's name,
``details`` the parsed body, ``response`` the httpx response); a dead peer is httpx's own exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from google import genai
from google.genai import errors, types

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5
_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_RETRY = "type.googleapis.com/google.rpc.RetryInfo"


def _client(base: str, timeout: float) -> genai.Client:
    return genai.Client(api_key="AIza-test", http_options=types.HttpOptions(base_url=base, timeout=int(timeout * 1000)))


def _generate(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = _client(base, timeout)
    return lambda: client.models.generate_content(model="gemini-test", contents="hi")


def _generate_async(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = _client(base, timeout)
    return lambda: client.aio.models.generate_content(model="gemini-test", contents="hi")


CALLS = [pytest.param(_generate, id="sync"), pytest.param(_generate_async, id="async")]


def _body(status: int, code: str, *details: dict[str, Any]) -> str:
    return json.dumps({"error": {"code": status, "message": "the upstream said no", "status": code,
                                 "details": list(details)}})


def _info(reason: str) -> dict[str, Any]:
    return {"@type": _INFO, "reason": reason, "domain": "googleapis.com", "metadata": {"service": "x.googleapis.com"}}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "code", "details", "failure_class", "side_effect", "wait"), [
    pytest.param(400, "INVALID_ARGUMENT", (), C.INVALID_INPUT, False, None, id="400-invalid-argument"),
    # The Gemini API answers an API key that is not valid with 400 INVALID_ARGUMENT; ErrorInfo's reason says which
    # argument: the credential, not the model's input (https://ai.google.dev/gemini-api/docs/troubleshooting).
    pytest.param(400, "INVALID_ARGUMENT", (_info("API_KEY_INVALID"),), C.PERMISSION_DENIED, False, None,
                 id="400-api-key-invalid"),
    pytest.param(400, "INVALID_ARGUMENT", (_info("API_KEY_EXPIRED"),), C.PERMISSION_DENIED, False, None,
                 id="400-api-key-expired"),
    pytest.param(403, "PERMISSION_DENIED", (_info("SERVICE_DISABLED"),), C.PERMISSION_DENIED, False, None,
                 id="403-service-disabled"),
    pytest.param(403, "PERMISSION_DENIED", (_info("API_KEY_SERVICE_BLOCKED"),), C.PERMISSION_DENIED, False, None,
                 id="403-key-blocked"),
    pytest.param(404, "NOT_FOUND", (), C.NOT_FOUND, False, None, id="404"),
    pytest.param(429, "RESOURCE_EXHAUSTED", (), C.RATE_LIMITED, False, None, id="429"),
    # a quota answer says when to come back in RetryInfo (a protobuf Duration in JSON: "37s"), not in Retry-After
    pytest.param(429, "RESOURCE_EXHAUSTED", (_info("RATE_LIMIT_EXCEEDED"), {"@type": _RETRY, "retryDelay": "37s"}),
                 C.RATE_LIMITED, False, 37.0, id="429-retry-info"),
    pytest.param(429, "RESOURCE_EXHAUSTED", ({"@type": _RETRY, "retryDelay": "1.500s"},),
                 C.RATE_LIMITED, False, 1.5, id="429-retry-info-fraction"),
    pytest.param(500, "INTERNAL", (), C.UPSTREAM_UNAVAILABLE, True, None, id="500"),
    pytest.param(503, "UNAVAILABLE", (), C.UPSTREAM_UNAVAILABLE, False, None, id="503"),
    pytest.param(504, "DEADLINE_EXCEEDED", (), C.UPSTREAM_UNAVAILABLE, True, None, id="504"),
])
def test_api_error(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int, code: str,
                   details: tuple[dict[str, Any], ...], failure_class: C, side_effect: bool, wait: float | None) -> None:
    base = upstream.scripted(status, _body(status, code, *details), {"Content-Type": "application/json"})
    exc = raised(call(base))
    assert isinstance(exc, errors.APIError) and exc.code == status and exc.status == code
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)
    assert result.upstream.address == f"127.0.0.1:{upstream.port}"


@pytest.mark.parametrize("call", CALLS)
def test_not_json_error_page(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]]) -> None:
    # an intermediary's HTML page: google-genai keeps its text and the reason phrase; the status decides
    exc = raised(call(upstream.scripted(502, "<html>Bad Gateway</html>", {"Content-Type": "text/html"})))
    assert isinstance(exc, errors.ServerError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], where: str,
                   side_effect: bool) -> None:
    exc = raised(call(upstream.failing(where), SHORT))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
