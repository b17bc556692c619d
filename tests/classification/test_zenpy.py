"""Zenpy (Zendesk's API client, over requests) against real HTTP servers on 127.0.0.1 answering Zendesk's error
documents (``{"error": ..., "description": ...}``).

Zenpy raises ``APIException`` (``RecordNotFoundException`` for ``RecordNotFound``) with the JSON body as its text and
the ``response`` kept; an answer that is not JSON is requests' ``HTTPError``; a 429 with ``Retry-After`` is waited out
and retried, and ``RatelimitBudgetExceeded`` ends it once the ``ratelimit_budget`` (seconds) is spent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

zenpy = pytest.importorskip("zenpy")

from zenpy.lib.api_objects import Ticket  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import answering, closed_port, closing_listener, silent_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}


@pytest.fixture(autouse=True)
def _plain_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZENPY_FORCE_SCHEME", "http")  # Zenpy's own switch for a test server


def _client(port: int, **options: Any) -> Any:
    # Zenpy builds "<subdomain>.<domain>": 127.0.0 + 1:<port> is the local server
    return zenpy.Zenpy(subdomain="127.0.0", domain=f"1:{port}", email="agent@shop.example", token="tok", timeout=1,
                       disable_cache=True, **options)


def _show(port: int, **options: Any) -> Callable[[], Any]:
    client = _client(port, **options)
    return lambda: client.tickets(id=17)


def _create(port: int, **options: Any) -> Callable[[], Any]:
    client = _client(port, **options)
    return lambda: client.tickets.create(Ticket(subject="Refund 17", description="Customer asked for a refund"))


CALLS = [pytest.param(_show, id="show"), pytest.param(_create, id="create")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "body", "failure_class", "side_effect"), [
    (400, {"error": "InvalidEndpoint", "description": "Not found"}, C.INVALID_INPUT, False),
    (401, {"error": "Couldn't authenticate you"}, C.PERMISSION_DENIED, False),
    (403, {"error": "Forbidden", "description": "You do not have access to this page."}, C.PERMISSION_DENIED, False),
    (404, {"error": "RecordNotFound", "description": "Not found"}, C.NOT_FOUND, False),
    (409, {"error": "DuplicateValue", "description": "Duplicate value"}, C.INVALID_INPUT, False),
    (422, {"error": "RecordInvalid", "description": "Record validation errors",
           "details": {"subject": [{"description": "Subject: cannot be blank", "error": "BlankValue"}]}},
     C.INVALID_INPUT, False),
    (429, {"error": "TooManyRequests"}, C.RATE_LIMITED, False),
    (500, {"error": "InternalServerError"}, C.UPSTREAM_UNAVAILABLE, True),
    (503, {"error": "ServiceUnavailable", "description": "Maintenance"}, C.UPSTREAM_UNAVAILABLE, False),
])
def test_api_error(call: Callable[..., Callable[[], Any]], status: int, body: dict[str, Any], failure_class: C,
                   side_effect: bool) -> None:
    with answering(status, json.dumps(body), JSON) as port:
        exc = raised(call(port))
    assert isinstance(exc, zenpy.lib.exception.APIException)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_not_json() -> None:
    with answering(502, "<html><body>Bad gateway</body></html>", {"Content-Type": "text/html"}) as port:
        exc = raised(_show(port))
    assert type(exc).__name__ == "HTTPError"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_rate_limit_budget_spent() -> None:
    # a budget of one second: the first Retry-After wait spends it before Zenpy sleeps
    with answering(429, json.dumps({"error": "TooManyRequests"}), {**JSON, "Retry-After": "7"}) as port:
        exc = raised(_show(port, ratelimit_budget=1))
    assert type(exc).__name__ == "RatelimitBudgetExceeded"
    check(exc, C.RATE_LIMITED, False)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("silent", True), ("closing", True)])
def test_transport(call: Callable[..., Callable[[], Any]], where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(call(closed_port()))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(call(port))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(call(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)

