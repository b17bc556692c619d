"""More SDKs an MCP server's tools call, against a real HTTP server on 127.0.0.1 speaking each API's error document,
with the SDK's own retries off: Groq (a Stainless SDK over httpx), LiteLLM (its own classes over the provider SDK's;
it files a dead endpoint under a made-up ``InternalServerError(500)`` and a read timeout under ``Timeout(408)``, with
no real answer: the transport failure below decides), LangSmith (requests, its own ``LangSmith*Error``
per status), Firecrawl (requests, its own class per status), Mastodon.py (the status passed positionally:
``MastodonAPIError(message, status, reason, detail)``) and pdpyras, PagerDuty's REST session (``PDHTTPError`` with
the response; ``PDClientError`` raised over the requests error).

402 Payment Required is what these APIs answer when the account's plan or credits are spent (Firecrawl's
"Insufficient credits", LangSmith's plan limits): the operator must pay, no argument or wait fixes it, so
``permission_denied``, nothing done.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import groq
import langsmith
import litellm
import pdpyras
import pytest
import requests
from firecrawl import Firecrawl
from firecrawl.v2.utils import error_handler as firecrawl_errors
from langsmith import utils as langsmith_utils
from mastodon import Mastodon, errors as mastodon_errors
from urllib3.util.retry import Retry

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, answering, closed_port

SHORT = 0.3
Call = Callable[[], Any]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    logging.disable(logging.CRITICAL)  # pdpyras and langsmith log every refused request at WARNING/ERROR
    yield
    logging.disable(logging.NOTSET)


STATUSES = [
    # (status, Retry-After, class, side effect possible, wait)
    (400, None, C.INVALID_INPUT, False, None),
    (401, None, C.PERMISSION_DENIED, False, None),
    (402, None, C.PERMISSION_DENIED, False, None),
    (403, None, C.PERMISSION_DENIED, False, None),
    (404, None, C.NOT_FOUND, False, None),
    (409, None, C.INVALID_INPUT, False, None),
    (422, None, C.INVALID_INPUT, False, None),
    (429, "3", C.RATE_LIMITED, False, 3.0),
    (429, None, C.RATE_LIMITED, False, None),
    (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "5", C.UPSTREAM_UNAVAILABLE, False, 5.0),
    (503, None, C.UPSTREAM_UNAVAILABLE, False, None),
]


# --- Groq ---------------------------------------------------------------------------------------------------------

def _groq(base: str, timeout: float = 5) -> Call:
    client = groq.Groq(api_key="gsk_errscope", base_url=base, max_retries=0, timeout=timeout)
    return lambda: client.chat.completions.create(model="llama-3.3-70b-versatile",
                                                  messages=[{"role": "user", "content": "hi"}])


_GROQ_BODY = json.dumps({"error": {"message": "upstream said no", "type": "invalid_request_error", "code": "x"}})


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_groq_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                     side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    exc = raised(_groq(upstream.scripted(status, _GROQ_BODY, headers)))
    assert isinstance(exc, groq.APIStatusError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None
    assert (result.upstream.system, result.upstream.status, result.upstream.address) == (
        "http", str(status), f"{HOST}:{upstream.port}")


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", groq.APIConnectionError, False),
    ("unresolvable", groq.APIConnectionError, False),
    ("drop", groq.APIConnectionError, True),
    ("stall", groq.APITimeoutError, True),
])
def test_groq_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    exc = raised(_groq(upstream.failing(where), SHORT))
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


# --- LiteLLM ------------------------------------------------------------------------------------------------------

def _litellm(base: str, timeout: float = 5) -> Call:
    litellm.suppress_debug_info = True
    return lambda: litellm.completion(model="openai/gpt-4o-mini", api_base=base, api_key="sk-errscope", timeout=timeout,
                                      messages=[{"role": "user", "content": "hi"}], num_retries=0, max_retries=0)


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_litellm_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                        side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    exc = raised(_litellm(upstream.scripted(status, _GROQ_BODY, headers)))
    assert exc.llm_provider == "openai" and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None
    # the address of the answer, not the placeholder request LiteLLM keeps on its APIError (api.openai.com)
    assert (result.upstream.system, result.upstream.status, result.upstream.address) == (
        "http", str(status), f"{HOST}:{upstream.port}")


@pytest.mark.parametrize(("where", "kind", "side_effect", "status"), [
    ("refused", litellm.exceptions.InternalServerError, False, "ConnectError"),
    ("unresolvable", litellm.exceptions.InternalServerError, False, "ConnectError"),
    ("drop", litellm.exceptions.InternalServerError, True, "ReadError"),
    ("stall", litellm.exceptions.Timeout, True, "ReadTimeout"),
])
def test_litellm_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool, status: str) -> None:
    exc = raised(_litellm(upstream.failing(where), SHORT))
    assert type(exc) is kind and exc.status_code in (500, 408)  # a status no server answered
    result = check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
    assert result.upstream is not None and result.upstream.status == status


# --- LangSmith ----------------------------------------------------------------------------------------------------

def _langsmith(base: str, timeout: float = 5) -> Call:
    client = langsmith.Client(api_url=base, api_key="lsv2_errscope", timeout_ms=int(timeout * 1000),
                              retry_config=Retry(total=0, raise_on_status=False), auto_batch_tracing=False)
    return lambda: client.read_project(project_name="orders")


_LANGSMITH_BODY = json.dumps({"detail": "upstream said no"})


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    case for case in STATUSES if case[1] is None  # LangSmith's errors keep the status in their text only
])
def test_langsmith_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                          side_effect: bool, wait: float | None) -> None:
    exc = raised(_langsmith(upstream.scripted(status, _LANGSMITH_BODY)))
    assert isinstance(exc, langsmith_utils.LangSmithError)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None
    assert (result.upstream.system, result.upstream.status, result.upstream.address) == (
        "http", str(status), f"{HOST}:{upstream.port}")


@pytest.mark.parametrize(("where", "side_effect", "address"), [
    ("refused", False, True),
    ("unresolvable", False, True),
    ("drop", True, False),
    ("stall", True, True),
])
def test_langsmith_connection(upstream: HttpUpstream, where: str, side_effect: bool, address: bool) -> None:
    base = upstream.failing(where)
    exc = raised(_langsmith(base, SHORT))
    assert type(exc) is langsmith_utils.LangSmithConnectionError
    result = check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
    if address:
        assert result.upstream is not None and result.upstream.address == base.split("//")[1].split("/")[0]


# --- Firecrawl ----------------------------------------------------------------------------------------------------

def _firecrawl(base: str, timeout: float = 5) -> Call:
    client = Firecrawl(api_key="fc-errscope", api_url=base, timeout=timeout, max_retries=0)
    return lambda: client.scrape("https://example.com/orders")


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_firecrawl_status(status: int, retry_after: str | None, failure_class: C, side_effect: bool,
                          wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    body = json.dumps({"success": False, "error": "Insufficient credits to perform this request." if status == 402
                       else "upstream said no"})
    with answering(status, body, headers) as port:  # Firecrawl drops a base URL's path: host and port only
        exc = raised(_firecrawl(f"http://{HOST}:{port}"))
    assert isinstance(exc, firecrawl_errors.FirecrawlError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None
    assert (result.upstream.system, result.upstream.status, result.upstream.address) == (
        "http", str(status), f"{HOST}:{port}")


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False)])
def test_firecrawl_connection(where: str, side_effect: bool) -> None:
    base = f"http://{HOST}:{closed_port()}" if where == "refused" else f"http://{UNRESOLVABLE}:8080"
    exc = raised(_firecrawl(base, SHORT))
    assert isinstance(exc, requests.ConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


# --- Mastodon.py --------------------------------------------------------------------------------------------------

def _mastodon(base: str, timeout: float = 5) -> Call:
    client = Mastodon(access_token="errscope", api_base_url=base, version_check_mode="none",
                      request_timeout=timeout, ratelimit_method="throw")
    return lambda: client.status(109_000_000_000_000_001)


@pytest.mark.parametrize(("status", "kind", "failure_class", "side_effect"), [
    (400, mastodon_errors.MastodonAPIError, C.INVALID_INPUT, False),
    (401, mastodon_errors.MastodonUnauthorizedError, C.PERMISSION_DENIED, False),
    (403, mastodon_errors.MastodonAPIError, C.PERMISSION_DENIED, False),
    (404, mastodon_errors.MastodonNotFoundError, C.NOT_FOUND, False),
    (409, mastodon_errors.MastodonAPIError, C.INVALID_INPUT, False),
    (422, mastodon_errors.MastodonAPIError, C.INVALID_INPUT, False),  # "Validation failed: Text can't be blank"
    (500, mastodon_errors.MastodonInternalServerError, C.UPSTREAM_UNAVAILABLE, True),
    (502, mastodon_errors.MastodonBadGatewayError, C.UPSTREAM_UNAVAILABLE, True),
    (503, mastodon_errors.MastodonServiceUnavailableError, C.UPSTREAM_UNAVAILABLE, False),
    (504, mastodon_errors.MastodonGatewayTimeoutError, C.UPSTREAM_UNAVAILABLE, True),
])
def test_mastodon_status(upstream: HttpUpstream, status: int, kind: type, failure_class: C, side_effect: bool) -> None:
    exc = raised(_mastodon(upstream.scripted(status, json.dumps({"error": "upstream said no"}))))
    assert type(exc) is kind and exc.args[1] == status  # the status only as its second argument
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


def test_mastodon_rate_limited(upstream: HttpUpstream) -> None:
    exc = raised(_mastodon(upstream.scripted(429, json.dumps({"error": "Too many requests"}),
                                             {"X-RateLimit-Remaining": "0"})))
    assert type(exc) is mastodon_errors.MastodonRatelimitError
    check(exc, C.RATE_LIMITED, False)


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("drop", True), ("stall", True),
])
def test_mastodon_connection(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_mastodon(upstream.failing(where), SHORT))
    assert isinstance(exc, mastodon_errors.MastodonNetworkError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


# --- pdpyras (PagerDuty) ------------------------------------------------------------------------------------------

def _pagerduty(base: str, timeout: float = 5) -> Call:
    session = pdpyras.APISession("u+errscope")
    session.url, session.timeout = base, timeout
    session.max_network_attempts, session.sleep_timer = 0, 0.01
    session.retry = {429: 1}  # its default retries a 429 without limit
    return lambda: session.rget("/incidents/PXYZ123")


_PAGERDUTY_BODY = json.dumps({"error": {"message": "upstream said no", "code": 2100}})


@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_pagerduty_status(upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                          side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    exc = raised(_pagerduty(upstream.scripted(status, _PAGERDUTY_BODY, headers)))
    assert isinstance(exc, pdpyras.PDHTTPError) and exc.response.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None
    assert (result.upstream.system, result.upstream.status, result.upstream.address) == (
        "http", str(status), f"{HOST}:{upstream.port}")


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("drop", True), ("stall", True),
])
def test_pagerduty_connection(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_pagerduty(upstream.failing(where), SHORT))
    assert type(exc) is pdpyras.PDClientError and isinstance(exc.__cause__, requests.RequestException)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
