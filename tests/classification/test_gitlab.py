"""python-gitlab against a real HTTP server on 127.0.0.1 answering in GitLab's REST error shape.

GitLab answers ``{"message": ...}`` (a text, or a field-to-errors object for a 400) or ``{"error": ...}``.
python-gitlab raises ``GitlabAuthenticationError`` for a 401 and ``GitlabHttpError`` for any other error status,
which each manager call re-raises as its operation's class (``GitlabGetError``, ``GitlabCreateError``,
``GitlabListError``, ``GitlabDeleteError``, ``GitlabUpdateError``): all keep the status as ``response_code`` and
the body as ``response_body``, no response object. A dead peer is requests' own exception, raised as is.
``max_retries=0``: python-gitlab's own waits on 429 (``obey_rate_limit``) end at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gitlab
import pytest
from gitlab import exceptions as gitlab_errors

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5


def _gitlab(base: str, timeout: float) -> gitlab.Gitlab:
    return gitlab.Gitlab(base, private_token="glpat-test", timeout=timeout, retry_transient_errors=False)


def _get(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _gitlab(base, timeout).projects.get("group/tool", max_retries=0)


def _create(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _gitlab(base, timeout).projects.get("group/tool", lazy=True).issues.create(
        {"title": "flaky test"}, max_retries=0)


def _list(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _gitlab(base, timeout).projects.get("group/tool", lazy=True).mergerequests.list(
        state="opened", get_all=False, max_retries=0)


def _delete(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _gitlab(base, timeout).projects.get("group/tool", lazy=True).branches.delete("main",
                                                                                                max_retries=0)


CALLS = {"get": (_get, gitlab_errors.GitlabGetError), "create": (_create, gitlab_errors.GitlabCreateError),
         "list": (_list, gitlab_errors.GitlabListError), "delete": (_delete, gitlab_errors.GitlabDeleteError)}


@pytest.mark.parametrize("operation", list(CALLS))
@pytest.mark.parametrize(("status", "body", "failure_class", "side_effect"), [
    pytest.param(400, {"message": {"title": ["can't be blank"]}}, C.INVALID_INPUT, False, id="400-fields"),
    pytest.param(403, {"message": "403 Forbidden"}, C.PERMISSION_DENIED, False, id="403"),
    pytest.param(404, {"message": "404 Project Not Found"}, C.NOT_FOUND, False, id="404"),
    pytest.param(409, {"message": "Branch already exists"}, C.INVALID_INPUT, False, id="409"),
    pytest.param(422, {"message": ["Branch is protected"]}, C.INVALID_INPUT, False, id="422"),
    pytest.param(429, {"message": "Retry later"}, C.RATE_LIMITED, False, id="429"),
    pytest.param(500, {"message": "500 Internal Server Error"}, C.UPSTREAM_UNAVAILABLE, True, id="500"),
    pytest.param(502, {"message": "GitLab is not responding"}, C.UPSTREAM_UNAVAILABLE, True, id="502"),
    pytest.param(503, {"message": "503 Service Unavailable"}, C.UPSTREAM_UNAVAILABLE, False, id="503"),
])
def test_api_error(upstream: HttpUpstream, operation: str, status: int, body: dict[str, Any],
                   failure_class: C, side_effect: bool) -> None:
    call, gitlab_class = CALLS[operation]
    exc = raised(call(upstream.scripted(status, json.dumps(body))))
    assert type(exc) is gitlab_class and exc.response_code == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("operation", list(CALLS))
def test_token_refused(upstream: HttpUpstream, operation: str) -> None:
    exc = raised(CALLS[operation][0](upstream.scripted(401, json.dumps({"message": "401 Unauthorized"}))))
    assert type(exc) is gitlab_errors.GitlabAuthenticationError and exc.response_code == 401
    result = check(exc, C.PERMISSION_DENIED, False)
    assert result.upstream is not None and result.upstream.status == "401"


def test_gateway_page(upstream: HttpUpstream) -> None:
    # nginx's HTML page in front of a restarting GitLab: no JSON, the status decides
    exc = raised(_get(upstream.scripted(502, "<html>502 Bad Gateway</html>", {"Content-Type": "text/html"})))
    assert type(exc) is gitlab_errors.GitlabGetError and exc.response_code == 502
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_answer_not_json(upstream: HttpUpstream) -> None:
    # a 200 whose body is no JSON (a login page a proxy served): python-gitlab's GitlabParsingError over the decoder's
    exc = raised(_get(upstream.scripted(200, "<html>Sign in</html>", {"Content-Type": "text/html"})))
    assert type(exc) is gitlab_errors.GitlabParsingError
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize("operation", ["get", "create"])
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, operation: str, where: str, side_effect: bool) -> None:
    exc = raised(CALLS[operation][0](upstream.failing(where), SHORT))
    assert not isinstance(exc, gitlab_errors.GitlabError)  # requests' own, raised as is
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
