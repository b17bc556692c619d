"""The OpenAI and Anthropic Python SDKs against a real HTTP server on 127.0.0.1.

Each SDK is configured with no retries of its own, so the exception is the first failure as the
tool sees it: a status error built from a real response (``status_code``, ``response.headers``),
or a connection/timeout error raised over httpx's.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import anthropic
import openai
import pytest

from errscope import FailureClass as C
from errscope._classify import explain
from tests.classification.conftest import HTTP_STATUSES, check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port

SHORT = 0.3


def _openai(base_url: str, timeout: float = 5) -> Any:
    client = openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0, timeout=timeout)
    return lambda: client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}])


def _anthropic(base_url: str, timeout: float = 5) -> Any:
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=base_url, max_retries=0, timeout=timeout)
    return lambda: client.messages.create(model="claude-test", max_tokens=8, messages=[{"role": "user", "content": "hi"}])


SDKS = [pytest.param((openai, _openai), id="openai"), pytest.param((anthropic, _anthropic), id="anthropic")]

# The body each API sends with an error status (their documented error objects).
_BODIES = {
    "openai": lambda status: {"error": {"message": "upstream said no", "type": "error", "code": str(status)}},
    "anthropic": lambda status: {"type": "error", "error": {"type": "api_error", "message": "upstream said no"}},
}

STATUSES = [
    *HTTP_STATUSES,
    (529, None, C.UPSTREAM_UNAVAILABLE, True, None),  # Anthropic's "overloaded": a 5xx like any other
]


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_status(sdk: tuple[ModuleType, Any], upstream: HttpUpstream, status: int, retry_after: str | None,
                failure_class: C, side_effect: bool, wait: float | None) -> None:
    lib, call = sdk
    headers = {"Retry-After": retry_after} if retry_after else {}
    base = upstream.scripted(status, json.dumps(_BODIES[lib.__name__](status)), headers)
    exc = raised(call(base))
    assert isinstance(exc, lib.APIStatusError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))
    assert result.upstream.address == f"{HOST}:{upstream.port}"
    assert explain(exc)[1] is exc  # the SDK's error (it carries the body), not httpx's it was raised over


@pytest.mark.parametrize("sdk", SDKS)
class TestTransport:
    def test_connection_refused(self, sdk: tuple[ModuleType, Any]) -> None:
        lib, call = sdk
        exc = raised(call(f"http://{HOST}:{closed_port()}"))
        assert type(exc) is lib.APIConnectionError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, sdk: tuple[ModuleType, Any]) -> None:
        lib, call = sdk
        exc = raised(call(f"http://{UNRESOLVABLE}"))
        assert type(exc) is lib.APIConnectionError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_timeout_after_request_read(self, sdk: tuple[ModuleType, Any], upstream: HttpUpstream) -> None:
        lib, call = sdk
        exc = raised(call(f"{upstream.url}/stall", timeout=SHORT))
        assert isinstance(exc, lib.APITimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, sdk: tuple[ModuleType, Any], upstream: HttpUpstream) -> None:
        lib, call = sdk
        exc = raised(call(f"{upstream.url}/drop"))
        assert type(exc) is lib.APIConnectionError
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tls_to_plain_socket(self, sdk: tuple[ModuleType, Any], upstream: HttpUpstream) -> None:
        lib, call = sdk
        exc = raised(call(f"https://{HOST}:{upstream.port}"))
        assert type(exc) is lib.APIConnectionError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
