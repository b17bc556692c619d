"""wikipedia (the MediaWiki API client many MCP servers wrap, over requests) against a real HTTP server on 127.0.0.1
that answers as MediaWiki's ``api.php`` does.

The library raises ``PageError`` for a title that names no page, ``DisambiguationError`` (with the ``options``) for a
disambiguation page, ``HTTPTimeoutError`` for the search backend's "HTTP request timed out." and its base
``WikipediaException`` for any other API error, keeping only MediaWiki's ``info`` text as ``error``. It reads every
answer as JSON without looking at the status: an HTML error page is requests' ``JSONDecodeError`` with the response.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

wikipedia = pytest.importorskip("wikipedia")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

JSON = {"Content-Type": "application/json"}


@pytest.fixture(autouse=True)
def _api_url() -> Iterator[None]:
    saved = wikipedia.wikipedia.API_URL
    yield
    wikipedia.wikipedia.API_URL = saved


def _serve(upstream: HttpUpstream, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    wikipedia.wikipedia.API_URL = upstream.scripted(status, text, headers if headers is not None else JSON) + "/w/api.php"


def test_no_such_page(upstream: HttpUpstream) -> None:
    _serve(upstream, 200, {"query": {"pages": {"-1": {"ns": 0, "title": "Zzyzx Refund", "missing": ""}}}})
    exc = raised(lambda: wikipedia.page("Zzyzx Refund", auto_suggest=False))
    assert isinstance(exc, wikipedia.exceptions.PageError)
    check(exc, C.NOT_FOUND, False)


def test_disambiguation(upstream: HttpUpstream) -> None:
    links = "".join(f"<li><a href='/wiki/{t}' title='{t}'>{t}</a></li>" for t in ("Mercury (planet)", "Mercury (element)"))
    _serve(upstream, 200, {"query": {"pages": {"123": {
        "pageid": 123, "ns": 0, "title": "Mercury", "fullurl": "https://en.wikipedia.org/wiki/Mercury",
        "pageprops": {"disambiguation": ""}, "revisions": [{"*": f"<div><ul>{links}</ul></div>"}]}}}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BeautifulSoup's GuessedAtParserWarning
        exc = raised(lambda: wikipedia.page("Mercury", auto_suggest=False))
    assert isinstance(exc, wikipedia.exceptions.DisambiguationError) and "Mercury (planet)" in exc.options
    check(exc, C.INVALID_INPUT, False)  # the caller picks one of the options


@pytest.mark.parametrize(("code", "info", "failure_class", "side_effect"), [
    ("ratelimited", "You've exceeded your rate limit. Please wait some time and try again.", C.RATE_LIMITED, False),
    ("readapidenied", "You need read permission to use this module.", C.PERMISSION_DENIED, False),
    ("maxlag", "Waiting for 10.64.48.35: 7 seconds lagged.", C.UPSTREAM_UNAVAILABLE, None),  # replicas behind
    # HTTPTimeoutError: the API took the request and its search backend timed out behind it: it may have acted
    ("srsearch-text-disabled", "HTTP request timed out.", C.UPSTREAM_UNAVAILABLE, True),
])
def test_api_error(upstream: HttpUpstream, code: str, info: str, failure_class: C, side_effect: bool | None) -> None:
    _serve(upstream, 200, {"error": {"code": code, "info": info}})
    exc = raised(lambda: wikipedia.search("refund policy"))
    assert isinstance(exc, wikipedia.exceptions.WikipediaException)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("status", "headers", "failure_class", "side_effect", "wait"), [
    (403, {}, C.PERMISSION_DENIED, False, None),  # a User-Agent policy refusal
    (429, {"Retry-After": "7"}, C.RATE_LIMITED, False, 7.0),
    (500, {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, {}, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_error_page(upstream: HttpUpstream, status: int, headers: dict[str, str], failure_class: C,
                    side_effect: bool, wait: float | None) -> None:
    _serve(upstream, status, "<html><body>Wikimedia Error</body></html>", {"Content-Type": "text/html", **headers})
    exc = raised(lambda: wikipedia.search("refund policy"))
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    wikipedia.wikipedia.API_URL = upstream.failing(where) + "/w/api.php"
    check(raised(lambda: wikipedia.search("refund policy")), C.UPSTREAM_UNAVAILABLE, side_effect)
