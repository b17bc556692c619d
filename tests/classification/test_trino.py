"""trino-python-client (DB-API over Trino's HTTP protocol) against a real HTTP server on 127.0.0.1 that speaks it.

A failed query is answered 200 with the statement's ``error`` object (``errorName`` from
``io.trino.spi.StandardErrorCode``, ``errorType`` USER_ERROR / INTERNAL_ERROR / INSUFFICIENT_RESOURCES / EXTERNAL); the
client raises ``TrinoUserError`` (a DB-API ProgrammingError), ``TrinoExternalError`` (an OperationalError) or
``TrinoQueryError``. A refused HTTP answer is ``HttpError("error 401: ...")`` (``Http502Error``/``503``/``504`` for
those), its status kept only in the text; a dead peer is ``TrinoConnectionError`` over requests' error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

trino = pytest.importorskip("trino")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    UNRESOLVABLE,
    answering,
    closed_port,
    closing_listener,
    silent_listener,
)


def _query(port: int, host: str = "127.0.0.1") -> Callable[[], Any]:
    def run() -> Any:
        conn = trino.dbapi.connect(host=host, port=port, user="bot", http_scheme="http", request_timeout=0.5,
                                   max_attempts=1)
        cursor = conn.cursor()
        cursor.execute("SELECT * FROM hive.sales.refunds")
        return cursor.fetchall()

    return run


def _failed(error_type: str, name: str, code: int) -> str:
    return json.dumps({"id": "20260101_000000_00000_abcde", "infoUri": "http://127.0.0.1/ui/", "stats": {"state": "FAILED"},
                       "error": {"message": f"{name.lower()}: it failed", "errorCode": code, "errorName": name,
                                 "errorType": error_type, "failureInfo": {"type": "io.trino.spi.TrinoException"}}})


@pytest.mark.parametrize(("error_type", "name", "code", "failure_class", "side_effect"), [
    # the statement as written names what is not there or does not parse: the tool's own SQL (SQLSTATE class 42)
    ("USER_ERROR", "TABLE_NOT_FOUND", 46, C.UNKNOWN, False),
    ("USER_ERROR", "CATALOG_NOT_FOUND", 44, C.UNKNOWN, False),
    ("USER_ERROR", "SYNTAX_ERROR", 1, C.UNKNOWN, False),
    ("USER_ERROR", "PERMISSION_DENIED", 4, C.PERMISSION_DENIED, False),  # access control refused (42501)
    ("USER_ERROR", "DIVISION_BY_ZERO", 8, C.INVALID_INPUT, False),  # the data's values (class 22)
    ("USER_ERROR", "INVALID_CAST_ARGUMENT", 13, C.INVALID_INPUT, False),
    ("USER_ERROR", "INVALID_FUNCTION_ARGUMENT", 7, C.INVALID_INPUT, False),
    ("USER_ERROR", "EXCEEDED_TIME_LIMIT", 9, C.UPSTREAM_UNAVAILABLE, False),  # query_max_execution_time (57014)
    ("USER_ERROR", "ADMINISTRATIVELY_KILLED", 6, C.UPSTREAM_UNAVAILABLE, True),  # killed midway: writes may stay
    ("INTERNAL_ERROR", "GENERIC_INTERNAL_ERROR", 65536, C.UPSTREAM_UNAVAILABLE, None),
    ("INTERNAL_ERROR", "NO_NODES_AVAILABLE", 65544, C.UPSTREAM_UNAVAILABLE, False),
    ("INTERNAL_ERROR", "SERVER_STARTING_UP", 65546, C.UPSTREAM_UNAVAILABLE, False),
    ("INSUFFICIENT_RESOURCES", "QUERY_QUEUE_FULL", 131074, C.UPSTREAM_UNAVAILABLE, False),
    ("INSUFFICIENT_RESOURCES", "EXCEEDED_LOCAL_MEMORY_LIMIT", 131079, C.UPSTREAM_UNAVAILABLE, False),
    ("EXTERNAL", "HIVE_METASTORE_ERROR", 16777216, C.UPSTREAM_UNAVAILABLE, None),  # the connector's source failed
])
def test_query_failed(error_type: str, name: str, code: int, failure_class: C, side_effect: bool | None) -> None:
    with answering(200, _failed(error_type, name, code)) as port:
        exc = raised(_query(port))
    assert isinstance(exc, trino.exceptions.TrinoQueryError) and exc.error_name == name
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("trino", name)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (400, C.INVALID_INPUT, False),
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
    (504, C.UPSTREAM_UNAVAILABLE, True),
])
def test_http_status(status: int, failure_class: C, side_effect: bool) -> None:
    with answering(status, "no") as port:
        exc = raised(_query(port))
    assert isinstance(exc, trino.exceptions.HttpError)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


def test_refused() -> None:
    check(raised(_query(closed_port())), C.UPSTREAM_UNAVAILABLE, False)


def test_unresolvable() -> None:
    check(raised(_query(8080, UNRESOLVABLE)), C.UPSTREAM_UNAVAILABLE, False)


def test_closed_after_the_statement() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_query(port))
    assert isinstance(exc, trino.exceptions.TrinoConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_never_answered() -> None:
    with silent_listener() as port:
        exc = raised(_query(port))
    assert isinstance(exc, trino.exceptions.TrinoConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
