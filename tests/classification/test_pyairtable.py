"""pyairtable (the Airtable Web API's client, over requests) against a real HTTP server on 127.0.0.1.

The server answers in Airtable's error shape (``{"error": {"type": "MODEL_ID_NOT_FOUND", "message": ...}}``, or a bare
``{"error": "NOT_FOUND"}``). pyairtable raises requests' ``HTTPError`` with the error object appended to its
arguments; with ``retry_strategy=False`` nothing is retried and a dead peer is requests' own error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

pyairtable = pytest.importorskip("pyairtable")

import requests  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


def _table(base: str) -> Any:
    api = pyairtable.Api("patTEST.secret", endpoint_url=base, retry_strategy=False, timeout=(0.5, 0.5))
    return api.table("appAAAAAAAAAAAAAA", "tblBBBBBBBBBBBBBB")


def _get(base: str) -> Callable[[], Any]:
    table = _table(base)
    return lambda: table.get("recCCCCCCCCCCCCCC")


def _create(base: str) -> Callable[[], Any]:
    table = _table(base)
    return lambda: table.create({"Name": "refund 17"})


CALLS = [pytest.param(_get, id="get"), pytest.param(_create, id="create")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "error", "failure_class", "side_effect"), [
    (400, {"type": "INVALID_REQUEST_UNKNOWN", "message": "Invalid request: parameter validation failed."},
     C.INVALID_INPUT, False),
    (401, {"type": "AUTHENTICATION_REQUIRED", "message": "Authentication required"}, C.PERMISSION_DENIED, False),
    # Airtable's one answer for a base the token may not see and one that is not there
    (403, {"type": "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
           "message": "Invalid permissions, or the requested model was not found."}, C.PERMISSION_DENIED, False),
    (404, "NOT_FOUND", C.NOT_FOUND, False),
    (404, {"type": "MODEL_ID_NOT_FOUND", "message": "Could not find a record with ID recCCCCCCCCCCCCCC."},
     C.NOT_FOUND, False),
    (413, {"type": "REQUEST_TOO_LARGE", "message": "Request body too large"}, C.INVALID_INPUT, False),
    (422, {"type": "UNKNOWN_FIELD_NAME", "message": "Unknown field name: \"Nmae\""}, C.INVALID_INPUT, False),
    (422, {"type": "INVALID_VALUE_FOR_COLUMN", "message": "Field \"Count\" cannot accept the provided value"},
     C.INVALID_INPUT, False),
    (429, {"type": "RATE_LIMIT_REACHED", "message": "Rate limit exceeded. Please try again later"},
     C.RATE_LIMITED, False),
    (500, {"type": "SERVER_ERROR", "message": "Try again. If the problem persists, contact support."},
     C.UPSTREAM_UNAVAILABLE, True),
    (503, {"type": "SERVICE_UNAVAILABLE", "message": "Service unavailable"}, C.UPSTREAM_UNAVAILABLE, False),
])
def test_api_error(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], status: int, error: Any,
                   failure_class: C, side_effect: bool) -> None:
    exc = raised(call(upstream.scripted(status, json.dumps({"error": error}))))
    assert isinstance(exc, requests.HTTPError) and exc.response is not None and exc.response.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)
    assert result.upstream.address == f"127.0.0.1:{upstream.port}"


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    check(raised(_create(upstream.failing(where))), C.UPSTREAM_UNAVAILABLE, side_effect)

