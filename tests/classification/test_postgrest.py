"""postgrest-py (Supabase's database client) against a local upstream answering PostgREST's error
format: ``{"code", "message", "details", "hint"}``, where ``code`` is the database's SQLSTATE, and
a gateway's plain error page, where it is the HTTP status. The exception keeps no status of its own."""

from __future__ import annotations

import json

import httpx
import pytest
from postgrest import SyncPostgrestClient
from postgrest.exceptions import APIError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream


def _insert(base_url: str) -> object:
    with httpx.Client(base_url=base_url, timeout=5) as http, \
            SyncPostgrestClient(base_url, http_client=http, retry_enabled=False) as client:
        return client.table("refunds").insert({"id": "r1", "amount": 5}).execute()


def _postgrest_error(code: str, message: str) -> str:
    return json.dumps({"code": code, "message": message, "details": None, "hint": None})


@pytest.mark.parametrize(("status", "code", "failure_class", "side_effect"), [
    (409, "23505", C.INVALID_INPUT, False),  # unique_violation
    (409, "23503", C.INVALID_INPUT, False),  # foreign_key_violation
    (400, "22P02", C.INVALID_INPUT, False),  # invalid_text_representation
    (403, "42501", C.PERMISSION_DENIED, False),  # insufficient_privilege (row-level security)
    (404, "42P01", C.UNKNOWN, False),  # undefined_table: our query is wrong
    (500, "57014", C.UPSTREAM_UNAVAILABLE, False),  # query_canceled: the statement timeout, rolled back
    (503, "53300", C.UPSTREAM_UNAVAILABLE, False),  # too_many_connections
])
def test_database_error(upstream: HttpUpstream, status: int, code: str, failure_class: C, side_effect: bool) -> None:
    url = upstream.scripted(status, _postgrest_error(code, "the database said no"))
    exc = raised(lambda: _insert(url))
    assert isinstance(exc, APIError) and exc.code == code
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
    (429, C.RATE_LIMITED, False),
])
def test_gateway_error_page(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool) -> None:
    url = upstream.scripted(status, "<html>bad gateway</html>", {"Content-Type": "text/html"})
    exc = raised(lambda: _insert(url))
    assert isinstance(exc, APIError) and exc.code == str(status)
    check(exc, failure_class, side_effect)


def test_connection_refused(upstream: HttpUpstream) -> None:
    exc = raised(lambda: _insert(upstream.failing("refused")))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
