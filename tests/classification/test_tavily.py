"""tavily-python (the Tavily search API's client, over requests) against a real HTTP server on 127.0.0.1.

Tavily raises one exception class per status and keeps neither the status nor the headers
(``TavilyClient._handle_error_response``): ``BadRequestError`` (400), ``InvalidAPIKeyError`` (401), ``ForbiddenError``
(403, and the usage limits 432 "plan's set usage limit" and 433 "pay-as-you-go limit"), ``UsageLimitExceededError``
(429), each with the answer's ``detail.error`` text; any other status is requests' ``HTTPError``. A timeout is its own
``TimeoutError`` (not the builtin) raised over requests' ``Timeout``; other transport failures are requests' own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

tavily = pytest.importorskip("tavily")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


def _search(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = tavily.TavilyClient(api_key="tvly-test", api_base_url=base)
    return lambda: client.search("who maintains errscope", timeout=timeout)


def _extract(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = tavily.TavilyClient(api_key="tvly-test", api_base_url=base)
    return lambda: client.extract(["https://example.invalid/"], timeout=timeout)


def _detail(text: str) -> str:
    return json.dumps({"detail": {"error": text}})


@pytest.mark.parametrize("call", [pytest.param(_search, id="search"), pytest.param(_extract, id="extract")])
@pytest.mark.parametrize(("status", "text", "exc_name", "failure_class"), [
    (400, "Query is too long. Max query length is 400 characters.", "BadRequestError", C.INVALID_INPUT),
    (401, "Unauthorized: missing or invalid API key.", "InvalidAPIKeyError", C.PERMISSION_DENIED),
    (403, "This request is forbidden.", "ForbiddenError", C.PERMISSION_DENIED),
    # the plan's monthly credits and the pay-as-you-go cap: a usage quota spent, as Google's dailyLimitExceeded
    (432, "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com",
     "ForbiddenError", C.RATE_LIMITED),
    (433, "This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.",
     "ForbiddenError", C.RATE_LIMITED),
    (429, "Your request has been blocked due to excessive requests. Please reduce rate of requests.",
     "UsageLimitExceededError", C.RATE_LIMITED),
])
def test_refused(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int, text: str,
                 exc_name: str, failure_class: C) -> None:
    exc = raised(call(upstream.scripted(status, _detail(text), {"Retry-After": "7"})))
    assert type(exc).__module__ == "tavily.errors" and type(exc).__name__ == exc_name
    result = check(exc, failure_class, False)
    assert result.retry_after is None  # Tavily keeps no header


@pytest.mark.parametrize(("status", "headers", "failure_class", "side_effect", "wait"), [
    (404, {}, C.NOT_FOUND, False, None),
    (500, {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (502, {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, {"Retry-After": "5"}, C.UPSTREAM_UNAVAILABLE, False, 5.0),
])
def test_other_status(upstream: HttpUpstream, status: int, headers: dict[str, str], failure_class: C,
                      side_effect: bool, wait: float | None) -> None:
    exc = raised(_search(upstream.scripted(status, _detail("no"), headers)))
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_search(upstream.failing(where), 0.5))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)

