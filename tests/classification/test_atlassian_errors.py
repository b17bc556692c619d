"""Atlassian's APIs as the two Python clients MCP servers wrap raise them (``atlassian-python-api``'s Confluence and
Jira, ``jira``), against a real HTTP server on 127.0.0.1 answering the way Jira and Confluence do: ``{"errorMessages":
[...], "errors": {field: message}}``.

atlassian-python-api raises requests' ``HTTPError`` with the server's messages as its text, and for some documented
statuses its own ``ApiError`` family (``ApiNotFoundError``, ``ApiPermissionError``, ``ApiConflictError``; a bare
``ApiError`` where Atlassian's docs give two meanings to a 404) inside the ``except`` of that ``HTTPError``, keeping it
as ``reason``. ``jira`` raises ``JIRAError`` with ``status_code`` and the response. Jira answers a login it wants a
CAPTCHA for with 403 and ``X-Authentication-Denied-Reason: CAPTCHA_CHALLENGE``.
(The statuses of every client are in test_api_sdks_more.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

atlassian = pytest.importorskip("atlassian")
jira = pytest.importorskip("jira")

from atlassian import errors as atlassian_errors  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

_JSON = {"Content-Type": "application/json;charset=UTF-8"}


def _body(*messages: str, **fields: str) -> str:
    return json.dumps({"errorMessages": list(messages), "errors": fields})


def _confluence(base: str) -> Any:
    return atlassian.Confluence(url=base, username="tool", password="token", cloud=False)


@pytest.mark.parametrize(("status", "exc_type", "failure_class"), [
    (403, atlassian_errors.ApiPermissionError, C.PERMISSION_DENIED),
    (404, atlassian_errors.ApiError, C.NOT_FOUND),  # "no content with the given id, or no permission to trash it"
    (409, atlassian_errors.ApiConflictError, C.INVALID_INPUT),  # a stale draft
])
def test_confluence_remove_content(upstream: HttpUpstream, status: int, exc_type: type, failure_class: C) -> None:
    exc = raised(lambda: _confluence(upstream.scripted(status, _body("the server said no"), _JSON)).remove_content(
        "17"))
    assert type(exc) is exc_type
    check(exc, failure_class, False)


def test_confluence_page_not_found(upstream: HttpUpstream) -> None:
    base = upstream.scripted(404, _body("No content found with id: ContentId{id=17}"), _JSON)
    exc = raised(lambda: _confluence(base).get_page_by_id("17"))
    check(exc, C.NOT_FOUND, False)


def _jira(base: str) -> Callable[[], Any]:
    def call() -> Any:
        client = jira.JIRA(server=base, basic_auth=("tool", "token"), get_server_info=False, max_retries=0,
                           timeout=5)
        return client.create_issue(project="SHOP", summary="", issuetype={"name": "Task"})
    return call


def test_jira_field_refused(upstream: HttpUpstream) -> None:
    body = _body(summary="You must specify a summary of the issue.")
    exc = raised(_jira(upstream.scripted(400, body, _JSON)))
    assert type(exc).__name__ == "JIRAError"
    check(exc, C.INVALID_INPUT, False)


def test_jira_captcha_challenge(upstream: HttpUpstream) -> None:
    # too many failed logins: Jira wants a CAPTCHA before it takes basic auth again
    headers = {**_JSON, "X-Authentication-Denied-Reason": "CAPTCHA_CHALLENGE; login-url=http://jira/login.jsp",
               "X-Seraph-LoginReason": "AUTHENTICATION_DENIED"}
    exc = raised(_jira(upstream.scripted(403, _body("CAPTCHA_CHALLENGE"), headers)))
    assert type(exc).__name__ == "JIRAError"
    check(exc, C.PERMISSION_DENIED, False)


def test_jira_rate_limited(upstream: HttpUpstream) -> None:
    # Jira Cloud's 429 with Retry-After; the client's own retries off
    exc = raised(_jira(upstream.scripted(429, _body("Rate limit exceeded."), {**_JSON, "Retry-After": "9"})))
    assert type(exc).__name__ == "JIRAError"
    assert check(exc, C.RATE_LIMITED, False).retry_after == 9.0


def test_atlassian_jira_issue_not_found(upstream: HttpUpstream) -> None:
    base = upstream.scripted(404, _body("Issue does not exist or you do not have permission to see it."), _JSON)
    exc = raised(lambda: atlassian.Jira(url=base, username="tool", password="token", cloud=False).get_issue(
        "SHOP-17"))
    check(exc, C.NOT_FOUND, False)
