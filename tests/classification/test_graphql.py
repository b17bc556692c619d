"""gql (the GraphQL client) over its requests and httpx transports against a real HTTP server on
127.0.0.1. A GraphQL server answers most failures with HTTP 200 and an ``errors`` list (GraphQL
spec §7.1.2): the code in ``extensions.code`` (Apollo Server's built-in codes, Shopify's
``THROTTLED``) or GitHub's ``type`` says what happened; gql raises TransportQueryError carrying
that list. An error status is TransportServerError (``code``), a dead peer TransportConnectionFailed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportProtocolError, TransportQueryError, TransportServerError
from gql.transport.httpx import HTTPXTransport
from gql.transport.requests import RequestsHTTPTransport

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

QUERY = gql("query { order(id: 1) { id } }")
TRANSPORTS = [pytest.param(RequestsHTTPTransport, id="requests"), pytest.param(HTTPXTransport, id="httpx")]


def _execute(transport: type, url: str, timeout: float = 5) -> Callable[[], Any]:
    extra = {"retries": 0} if transport is RequestsHTTPTransport else {}
    client = Client(transport=transport(url=url, timeout=timeout, **extra), fetch_schema_from_transport=False)
    return lambda: client.execute(QUERY)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("error", "failure_class", "side_effect"), [
    pytest.param({"extensions": {"code": "UNAUTHENTICATED"}}, C.PERMISSION_DENIED, False, id="UNAUTHENTICATED"),
    pytest.param({"extensions": {"code": "FORBIDDEN"}}, C.PERMISSION_DENIED, False, id="FORBIDDEN"),
    pytest.param({"extensions": {"code": "BAD_USER_INPUT"}}, C.INVALID_INPUT, False, id="BAD_USER_INPUT"),
    # the tool's own query document does not fit the schema: a bug, not the caller's
    pytest.param({"extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}, C.UNKNOWN, False, id="VALIDATION_FAILED"),
    pytest.param({"extensions": {"code": "THROTTLED"}}, C.RATE_LIMITED, False, id="THROTTLED"),  # Shopify's cost limit
    pytest.param({"extensions": {"code": "INTERNAL_SERVER_ERROR"}}, C.UPSTREAM_UNAVAILABLE, True, id="INTERNAL"),
    pytest.param({"type": "NOT_FOUND", "path": ["order"]}, C.NOT_FOUND, False, id="type-NOT_FOUND"),  # GitHub's API
    pytest.param({"type": "RATE_LIMITED"}, C.RATE_LIMITED, False, id="type-RATE_LIMITED"),
])
def test_errors_in_the_result(upstream: HttpUpstream, transport: type, error: dict[str, Any], failure_class: C,
                              side_effect: bool) -> None:
    body = json.dumps({"data": None, "errors": [{"message": "refused", **error}]})
    exc = raised(_execute(transport, upstream.scripted(200, body)))
    assert isinstance(exc, TransportQueryError)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (429, C.RATE_LIMITED, False),
    (502, C.UPSTREAM_UNAVAILABLE, True),
])
def test_error_status(upstream: HttpUpstream, transport: type, status: int, failure_class: C, side_effect: bool) -> None:
    exc = raised(_execute(transport, upstream.scripted(status, "no")))
    assert isinstance(exc, TransportServerError) and exc.code == status
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_answer_that_is_not_graphql(upstream: HttpUpstream, transport: type) -> None:
    # a 200 from something that is not the GraphQL server (a captive portal, a proxy's page): it answered
    exc = raised(_execute(transport, upstream.scripted(200, "<html>sign in</html>", {"Content-Type": "text/html"})))
    assert isinstance(exc, TransportProtocolError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("drop", True), ("stall", True)])
def test_connection(upstream: HttpUpstream, transport: type, where: str, side_effect: bool) -> None:
    exc = raised(_execute(transport, upstream.failing(where), timeout=0.3))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
