"""exa-py (the Exa search API's client, over requests) against a real HTTP server on 127.0.0.1.

Exa raises a bare ``ValueError(f"Request failed with status code {status}: {body}")`` for any error status: the status
survives only in the text (the pattern of many small SDKs and of tools' own ``raise Exception(f"... status
{status}")``). Its read timeout is ``ExaTimeoutError``; other transport failures are requests' own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

exa_py = pytest.importorskip("exa_py")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

JSON = {"Content-Type": "application/json"}


def _search(base: str) -> Callable[[], Any]:
    client = exa_py.Exa(api_key="exa-test-key", base_url=base, timeout=0.5)
    return lambda: client.search("refund policy")


def _contents(base: str) -> Callable[[], Any]:
    client = exa_py.Exa(api_key="exa-test-key", base_url=base, timeout=0.5)
    return lambda: client.get_contents(["https://example.invalid/refunds"])


CALLS = [pytest.param(_search, id="search"), pytest.param(_contents, id="get_contents")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "body", "failure_class", "side_effect"), [
    (400, {"error": "Invalid request body: numResults must be at most 100", "tag": "INVALID_REQUEST_BODY"},
     C.INVALID_INPUT, False),
    (401, {"error": "Invalid API key", "tag": "INVALID_API_KEY"}, C.PERMISSION_DENIED, False),
    (403, {"error": "Forbidden", "tag": "ACCESS_DENIED"}, C.PERMISSION_DENIED, False),
    (404, {"error": "Not found", "tag": "NOT_FOUND"}, C.NOT_FOUND, False),
    (429, {"error": "You've exceeded your rate limit", "tag": "RATE_LIMIT_EXCEEDED"}, C.RATE_LIMITED, False),
    (500, {"error": "Internal server error", "tag": "INTERNAL_ERROR"}, C.UPSTREAM_UNAVAILABLE, True),
    (502, "<html><body>502 Bad Gateway</body></html>", C.UPSTREAM_UNAVAILABLE, True),
    (503, "", C.UPSTREAM_UNAVAILABLE, False),
])
def test_error_status(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], status: int, body: Any,
                      failure_class: C, side_effect: bool) -> None:
    text = json.dumps({"requestId": "0f3c", **body}) if isinstance(body, dict) else body
    exc = raised(call(upstream.scripted(status, text, JSON)))
    assert type(exc) is ValueError and f"status code {status}" in str(exc)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


def test_login_page_with_200(upstream: HttpUpstream) -> None:
    # a proxy's sign-in page where the API's JSON was due: the upstream's answer, not the caller's
    exc = raised(_search(upstream.scripted(200, "<html>Sign in</html>", {"Content-Type": "text/html"})))
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    check(raised(_search(upstream.failing(where))), C.UPSTREAM_UNAVAILABLE, side_effect)
