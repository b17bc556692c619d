"""python-jenkins (over requests) against a real HTTP server on 127.0.0.1 answering Jenkins-like HTML error pages.

python-jenkins re-raises what requests raised under its own classes, chained: ``NotFoundException`` for a 404,
``JenkinsException`` ("Possibly authentication failed [401]") for 401/403/500, ``BadHTTPException`` from
``get_version``; ``get_job_info`` turns every error status into ``JenkinsException("job[...] does not exist")``,
whatever it was, ``build_job`` lets other statuses' ``HTTPError`` through as is, and a timeout is its
``TimeoutException``. The text lies (a 503 "does not exist"); the ``HTTPError`` it was raised from, with its
response, tells the status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jenkins
import pytest
import requests

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5


def _server(base: str, timeout: float) -> jenkins.Jenkins:
    return jenkins.Jenkins(base, username="ci-bot", password="api-token", timeout=timeout)


def _job_info(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _server(base, timeout).get_job_info("deploy")


def _build(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _server(base, timeout).build_job("deploy", {"ENV": "staging"})


def _version(base: str, timeout: float = 5) -> Callable[[], Any]:
    return lambda: _server(base, timeout).get_version()


CALLS = [pytest.param(_job_info, id="get_job_info"), pytest.param(_build, id="build_job"),
         pytest.param(_version, id="get_version")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (400, C.INVALID_INPUT, False),
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),  # a CSRF crumb refused, a missing Job/Build permission
    (404, C.NOT_FOUND, False),
    (409, C.INVALID_INPUT, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),  # Jenkins starting up or quieting down
])
def test_error_status(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int,
                      failure_class: C, side_effect: bool) -> None:
    exc = raised(call(upstream.scripted(status, "<html><body>Jenkins said no</body></html>",
                                        {"Content-Type": "text/html"})))
    assert isinstance(exc, (jenkins.JenkinsException, requests.HTTPError))
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))
    assert result.upstream.address == f"127.0.0.1:{upstream.port}"


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], where: str,
                   side_effect: bool) -> None:
    exc = raised(call(upstream.failing(where), SHORT))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
