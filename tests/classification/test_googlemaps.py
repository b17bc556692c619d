"""googlemaps (the Google Maps Platform web services client, over requests) against real HTTP servers on 127.0.0.1.

The APIs answer a refused request with HTTP 200 and a ``status`` word (the "Status codes" table each web service
documents); the client raises ``ApiError(status, error_message)`` for it, ``HTTPError(status_code)`` for a non-200, and
retries 5xx and ``OVER_QUERY_LIMIT`` until ``retry_timeout`` is spent, then raises a bare ``Timeout()``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

googlemaps = pytest.importorskip("googlemaps")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}


def _geocode(url: str, **options: Any) -> Callable[[], Any]:
    client = googlemaps.Client(key="AIzaSyD-test-key-000000000000000000000", timeout=1, retry_timeout=1,
                               queries_per_second=1000, **options)
    # Client.geocode builds its URL on Google's host; _request is where every API call goes, with a base_url
    return lambda: client._request("/maps/api/geocode/json", {"address": "1600 Amphitheatre Pkwy"}, base_url=url)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    ("NOT_FOUND", C.NOT_FOUND, False),  # a place id or a waypoint that resolves to nothing
    ("INVALID_REQUEST", C.INVALID_INPUT, False),
    ("MAX_ELEMENTS_EXCEEDED", C.INVALID_INPUT, False),
    ("MAX_WAYPOINTS_EXCEEDED", C.INVALID_INPUT, False),
    ("REQUEST_DENIED", C.PERMISSION_DENIED, False),
    ("OVER_DAILY_LIMIT", C.PERMISSION_DENIED, False),  # key invalid, billing off, a cap or payment spent
    ("UNKNOWN_ERROR", C.UPSTREAM_UNAVAILABLE, True),
])
def test_api_status(status: str, failure_class: C, side_effect: bool) -> None:
    body = json.dumps({"status": status, "error_message": "The request was refused.", "results": []})
    with answering(200, body, JSON) as port:
        exc = raised(_geocode(f"http://127.0.0.1:{port}"))
    assert isinstance(exc, googlemaps.exceptions.ApiError) and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == status


@pytest.mark.parametrize("retry", [False, True], ids=["no_retry", "retries_spent"])
def test_over_query_limit(retry: bool) -> None:
    body = json.dumps({"status": "OVER_QUERY_LIMIT", "error_message": "You have exceeded your rate-limit."})
    with answering(200, body, JSON) as port:
        exc = raised(_geocode(f"http://127.0.0.1:{port}", retry_over_query_limit=retry))
    # without retries the _OverQueryLimit itself; with them, Timeout() raised inside the handler of the last one
    assert type(exc).__name__ == ("Timeout" if retry else "_OverQueryLimit")
    check(exc, C.RATE_LIMITED, False)


@pytest.mark.parametrize(("status", "failure_class"), [
    (400, C.INVALID_INPUT), (401, C.PERMISSION_DENIED), (403, C.PERMISSION_DENIED), (404, C.NOT_FOUND),
    (429, C.RATE_LIMITED),
])
def test_http_status(status: int, failure_class: C) -> None:
    with answering(status, json.dumps({"error_message": "no"}), JSON) as port:
        exc = raised(_geocode(f"http://127.0.0.1:{port}"))
    assert isinstance(exc, googlemaps.exceptions.HTTPError)
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("status", "side_effect"), [(500, True), (503, False)])
def test_5xx_retries_spent(status: int, side_effect: bool) -> None:
    with answering(status, json.dumps({"error_message": "backend error"}), JSON) as port:
        exc = raised(_geocode(f"http://127.0.0.1:{port}"))
    assert type(exc) is googlemaps.exceptions.Timeout and exc.__context__ is None
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize(("where", "exc_name", "side_effect"), [
    ("refused", "TransportError", False),
    ("unresolvable", "TransportError", False),
    ("silent", "Timeout", True),
    ("closing", "TransportError", True),
])
def test_transport(where: str, exc_name: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(_geocode(f"http://127.0.0.1:{closed_port()}"))
    elif where == "unresolvable":
        exc = raised(_geocode(f"http://{UNRESOLVABLE}:8080"))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(_geocode(f"http://127.0.0.1:{port}"))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(_geocode(f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == exc_name
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
