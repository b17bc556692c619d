"""geopy's geocoders (Nominatim here; every geocoder shares the adapter and the status table) against real HTTP
servers on 127.0.0.1, over both of its adapters: requests and urllib.

geopy maps each status onto one exception of its own (``ERROR_CODE_MAP``), raised ``from`` the adapter's error that
keeps the status: 503 and 504 become ``GeocoderTimedOut``, a ``TimeoutError``, though an answer came; 429 is
``GeocoderRateLimited`` with the parsed ``Retry-After``; a dead peer is ``GeocoderUnavailable`` or
``GeocoderServiceError`` over the transport's error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

geopy = pytest.importorskip("geopy")

import geopy.adapters  # noqa: E402
from geopy.geocoders import Nominatim  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402

ADAPTERS = [pytest.param(geopy.adapters.RequestsAdapter, id="requests"),
            pytest.param(geopy.adapters.URLLibAdapter, id="urllib")]


def _geocode(host: str, adapter: type) -> Callable[[], Any]:
    geocoder = Nominatim(domain=host, scheme="http", user_agent="errscope-test", timeout=1, adapter_factory=adapter)
    return lambda: geocoder.geocode("Alexanderplatz, Berlin")


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(("status", "retry_after", "exc_name", "failure_class", "side_effect", "wait"), [
    (400, None, "GeocoderQueryError", C.INVALID_INPUT, False, None),
    (401, None, "GeocoderAuthenticationFailure", C.PERMISSION_DENIED, False, None),
    (403, None, "GeocoderInsufficientPrivileges", C.PERMISSION_DENIED, False, None),
    (404, None, "GeocoderServiceError", C.NOT_FOUND, False, None),
    (429, "7", "GeocoderRateLimited", C.RATE_LIMITED, False, 7.0),
    (429, None, "GeocoderRateLimited", C.RATE_LIMITED, False, None),
    (500, None, "GeocoderServiceError", C.UPSTREAM_UNAVAILABLE, True, None),
    (502, None, "GeocoderServiceError", C.UPSTREAM_UNAVAILABLE, True, None),
    # geopy files these under GeocoderTimedOut (a TimeoutError): the status answered, it decides
    (503, None, "GeocoderTimedOut", C.UPSTREAM_UNAVAILABLE, False, None),
    (504, None, "GeocoderTimedOut", C.UPSTREAM_UNAVAILABLE, True, None),
])
def test_status(adapter: type, status: int, retry_after: str | None, exc_name: str, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
    with answering(status, json.dumps({"error": {"code": status, "message": "no"}}), headers) as port:
        exc = raised(_geocode(f"127.0.0.1:{port}", adapter))
    assert type(exc).__module__ == "geopy.exc" and type(exc).__name__ == exc_name
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("silent", True), ("closing", True)])
def test_transport(adapter: type, where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(_geocode(f"127.0.0.1:{closed_port()}", adapter))
    elif where == "unresolvable":
        exc = raised(_geocode(f"{UNRESOLVABLE}:8080", adapter))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(_geocode(f"127.0.0.1:{port}", adapter))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(_geocode(f"127.0.0.1:{port}", adapter))
    assert isinstance(exc, geopy.exc.GeopyError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
