"""Asana's Python SDK (v5, OpenAPI-generated over urllib3) against real HTTP servers on 127.0.0.1.

``ApiException`` keeps ``status``, ``reason``, ``headers`` and ``body``. The SDK's default ``Retry`` retries 429 and
5xx answers (``status_forcelist``); once spent, urllib3's ``MaxRetryError`` escapes with a ``ResponseError`` reason
whose only trace of the status is its text ("too many 429 error responses"). The SDK's own timeout is urllib3's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

asana = pytest.importorskip("asana")

from urllib3.util.retry import Retry  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}


def _tasks(url: str) -> Any:
    configuration = asana.Configuration()
    configuration.host = url
    configuration.access_token = "1/1234:token"
    # the SDK's own Retry (429 and 5xx forced), with no retries left and no backoff: what it raises once they are spent
    configuration.retry_strategy = Retry(total=0, status_forcelist=[429, 500, 502, 503, 504])
    return asana.TasksApi(asana.ApiClient(configuration))


def _get(url: str) -> Callable[[], Any]:
    api = _tasks(url)
    return lambda: api.get_task("17", {}, _request_timeout=1)


def _create(url: str) -> Callable[[], Any]:
    api = _tasks(url)
    return lambda: api.create_task({"data": {"name": "Refund 17", "workspace": "1"}}, {}, _request_timeout=1)


CALLS = [pytest.param(_get, id="get"), pytest.param(_create, id="create")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "failure_class"), [
    (400, C.INVALID_INPUT), (401, C.PERMISSION_DENIED), (403, C.PERMISSION_DENIED), (404, C.NOT_FOUND),
])
def test_api_error(call: Callable[[str], Callable[[], Any]], status: int, failure_class: C) -> None:
    body = json.dumps({"errors": [{"message": "task: Not a recognized ID: 17", "help": "For more information ..."}]})
    with answering(status, body, JSON) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert isinstance(exc, asana.rest.ApiException) and exc.status == status
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(status)


RETRIED = [
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
    (504, C.UPSTREAM_UNAVAILABLE, True),
]


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), RETRIED)
def test_not_retried_on_post(status: int, failure_class: C, side_effect: bool) -> None:
    # urllib3's Retry retries a status only for idempotent methods: a POST's answer is the ApiException itself
    with answering(status, json.dumps({"errors": [{"message": "no"}]}), {**JSON, "Retry-After": "7"}) as port:
        exc = raised(_create(f"http://127.0.0.1:{port}"))
    assert isinstance(exc, asana.rest.ApiException) and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == (7.0 if status in (429, 503) else None)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
    (504, C.UPSTREAM_UNAVAILABLE, True),
])
def test_retries_spent(status: int, failure_class: C, side_effect: bool) -> None:
    with answering(status, json.dumps({"errors": [{"message": "no"}]}), {**JSON, "Retry-After": "0"}) as port:
        exc = raised(_get(f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == "MaxRetryError" and type(exc.reason).__name__ == "ResponseError"
    result = check(exc, failure_class, side_effect)
    assert result.retry_after is None  # the last answer's headers went with it
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("silent", True), ("closing", True)])
def test_transport(call: Callable[[str], Callable[[], Any]], where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(call(f"http://127.0.0.1:{closed_port()}"))
    elif where == "unresolvable":
        exc = raised(call(f"http://{UNRESOLVABLE}:8080"))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
