"""PyGithub against a real HTTP server on 127.0.0.1 (``retry=None``: one failure each).

GitHub's rate limits (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api)
come as a 429, or as a 403 with ``x-ratelimit-remaining: 0`` (primary) or ``retry-after``
(secondary): PyGithub raises RateLimitExceededException with ``status`` 403 then, and keeps the
headers with lowercased names. A plain 403 is a permission the token lacks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import requests
from github import Auth, Github, GithubException, RateLimitExceededException, UnknownObjectException

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream


def _get_repo(base: str, timeout: int = 5) -> Callable[[], Any]:
    client = Github(auth=Auth.Token("ghp_errscope"), base_url=base, retry=None, timeout=timeout)
    return lambda: client.get_repo("octo/cat")


_RATE = {"message": "API rate limit exceeded for user.", "documentation_url": "https://docs.github.com/rest"}
_OTHER = {"message": "upstream said no", "documentation_url": "https://docs.github.com/rest"}
_MISSING = {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}


@pytest.mark.parametrize(("status", "headers", "body", "kind", "failure_class", "side_effect", "wait"), [
    (401, {}, _OTHER, GithubException, C.PERMISSION_DENIED, False, None),
    (403, {}, _OTHER, GithubException, C.PERMISSION_DENIED, False, None),
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2000000000"}, _RATE, RateLimitExceededException,
     C.RATE_LIMITED, False, None),
    (403, {"Retry-After": "30"}, _RATE, RateLimitExceededException, C.RATE_LIMITED, False, 30.0),
    (404, {}, _MISSING, UnknownObjectException, C.NOT_FOUND, False, None),
    (409, {}, _OTHER, GithubException, C.INVALID_INPUT, False, None),
    (422, {}, _OTHER, GithubException, C.INVALID_INPUT, False, None),
    (429, {"Retry-After": "9"}, _RATE, GithubException, C.RATE_LIMITED, False, 9.0),
    (500, {}, _OTHER, GithubException, C.UPSTREAM_UNAVAILABLE, True, None),
    (502, {}, _OTHER, GithubException, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, {}, _OTHER, GithubException, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_status(upstream: HttpUpstream, status: int, headers: dict[str, str], body: dict[str, str], kind: type,
                failure_class: C, side_effect: bool, wait: float | None) -> None:
    exc = raised(_get_repo(upstream.scripted(status, json.dumps(body), headers)))
    assert type(exc) is kind and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", requests.ConnectionError, False),
    ("drop", requests.ConnectionError, True),
    ("stall", requests.ReadTimeout, True),
])
def test_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    base = upstream.failing(where)
    exc = raised(_get_repo(base, timeout=1))
    assert isinstance(exc, kind)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
