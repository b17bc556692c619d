"""PRAW (the Reddit API's client, over prawcore and requests) against real HTTP servers on 127.0.0.1: one answers
the OAuth token endpoint, the other the API.

prawcore raises one class per status (``BadRequest``, ``Forbidden``, ``NotFound``, ``Conflict``, ``TooLarge``,
``TooManyRequests`` with its wait, ``UnavailableForLegalReasons``, ``ServerError``), each keeping the ``response``;
a 401/403 whose ``www-authenticate`` names an OAuth error is ``InvalidToken``/``InsufficientScope``; a redirect is
``Redirect`` with its ``path`` (Reddit sends an unknown subreddit to ``/subreddits/search``); a token endpoint's
refusal is ``OAuthException``/``ResponseException``; a dead peer is ``RequestException`` over requests' error.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

praw = pytest.importorskip("praw")

import prawcore  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import answering, closed_port, closing_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}
TOKEN = {"access_token": "reddit-test-token", "token_type": "bearer", "expires_in": 3600, "scope": "*"}


@pytest.fixture(autouse=True)
def _no_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # prawcore retries 5xx and dead connections up to three times with a backoff and has no setting for it (other
    # SDKs' retries=0): the first failure is the one classified
    monkeypatch.setattr(prawcore.sessions.FiniteRetryStrategy, "should_retry_on_failure", lambda self: False)


@pytest.fixture(scope="module")
def token_url() -> Iterator[str]:
    with answering(200, json.dumps(TOKEN), JSON) as port:
        yield f"http://127.0.0.1:{port}"


def _reddit(api_url: str, token_url: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PRAW's warning about running without an async check
        return praw.Reddit(client_id="cid", client_secret="secret", user_agent="errscope-test/1.0",
                           oauth_url=api_url, reddit_url=token_url)


def _hot(api_url: str, token_url: str) -> Callable[[], Any]:
    reddit = _reddit(api_url, token_url)
    return lambda: list(reddit.subreddit("refunds").hot(limit=1))


def _submit(api_url: str, token_url: str) -> Callable[[], Any]:
    reddit = _reddit(api_url, token_url)
    return lambda: reddit.subreddit("refunds").submit("Refund 17", selftext="processed")


CALLS = [pytest.param(_hot, id="hot"), pytest.param(_submit, id="submit")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "headers", "exc_name", "failure_class", "side_effect", "wait"), [
    (400, {}, "BadRequest", C.INVALID_INPUT, False, None),
    (401, {"www-authenticate": 'Bearer realm="reddit", error="invalid_token"'}, "InvalidToken", C.PERMISSION_DENIED,
     False, None),
    (403, {"www-authenticate": 'Bearer realm="reddit", error="insufficient_scope"'}, "InsufficientScope",
     C.PERMISSION_DENIED, False, None),
    (403, {}, "Forbidden", C.PERMISSION_DENIED, False, None),  # a private or banned subreddit
    (404, {}, "NotFound", C.NOT_FOUND, False, None),
    (409, {}, "Conflict", C.INVALID_INPUT, False, None),
    (413, {}, "TooLarge", C.INVALID_INPUT, False, None),
    (429, {"Retry-After": "7", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "7", "x-ratelimit-used": "100"},
     "TooManyRequests", C.RATE_LIMITED, False, 7.0),
    # RFC 7725: access denied by a legal demand (a subreddit blocked in a country); no outage, no retry helps
    (451, {}, "UnavailableForLegalReasons", C.PERMISSION_DENIED, False, None),
    (500, {}, "ServerError", C.UPSTREAM_UNAVAILABLE, True, None),
    (503, {}, "ServerError", C.UPSTREAM_UNAVAILABLE, False, None),
    (504, {}, "ServerError", C.UPSTREAM_UNAVAILABLE, True, None),
])
def test_api_status(token_url: str, call: Callable[[str, str], Callable[[], Any]], status: int,
                    headers: dict[str, str], exc_name: str, failure_class: C, side_effect: bool,
                    wait: float | None) -> None:
    body = json.dumps({"message": "Reddit said no", "error": status})
    with answering(status, body, {**JSON, **headers}) as port:
        exc = raised(call(f"http://127.0.0.1:{port}", token_url))
    assert type(exc).__module__ == "prawcore.exceptions" and type(exc).__name__ == exc_name
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize(("location", "failure_class", "side_effect"), [
    ("/subreddits/search.json?q=refunds", C.NOT_FOUND, False),  # Reddit's answer for a subreddit that is not there
    ("/login/", C.PERMISSION_DENIED, False),  # a write from a read-only session
])
def test_redirected(token_url: str, location: str, failure_class: C, side_effect: bool) -> None:
    with answering(302, "", {"Location": location}) as port:
        exc = raised(_hot(f"http://127.0.0.1:{port}", token_url))
    assert isinstance(exc, prawcore.exceptions.Redirect)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("status", "body", "exc_name"), [
    (401, {"message": "Unauthorized", "error": 401}, "ResponseException"),
    (200, {"error": "invalid_grant"}, "OAuthException"),  # a script app's wrong password
])
def test_token_refused(status: int, body: dict[str, Any], exc_name: str) -> None:
    with answering(status, json.dumps(body), JSON) as port:
        exc = raised(_hot("http://127.0.0.1:1", f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == exc_name
    check(exc, C.PERMISSION_DENIED, False)


def test_refused(token_url: str) -> None:
    exc = raised(_hot(f"http://127.0.0.1:{closed_port()}", token_url))
    assert isinstance(exc, prawcore.exceptions.RequestException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_after_the_request(token_url: str) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_submit(f"http://127.0.0.1:{port}", token_url))
    assert isinstance(exc, prawcore.exceptions.RequestException)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_unauthorized_without_www_authenticate(token_url: str) -> None:
    # Reddit's 401 body with no www-authenticate header: prawcore looks the status up in its OAuth error table
    exc = raised(_hot_401(token_url))
    assert type(exc) is KeyError
    check(exc, C.PERMISSION_DENIED, False)


def _hot_401(token_url: str) -> Callable[[], Any]:
    def run() -> Any:
        with answering(401, json.dumps({"message": "Unauthorized", "error": 401}), JSON) as port:
            return _hot(f"http://127.0.0.1:{port}", token_url)()

    return run
