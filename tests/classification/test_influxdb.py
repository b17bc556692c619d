"""influxdb-client (InfluxDB 2's Python client, over urllib3) against a real HTTP server on 127.0.0.1.

The server answers in InfluxDB's error shape (``{"code": "not found", "message": ...}``). The client raises its
OpenAPI-generated ``ApiException`` with ``status``, ``reason``, ``body`` and the answer's ``headers`` for the write API
(synchronous) and the query API alike; with ``retries=0`` a dead peer is urllib3's own error, raised as is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

influxdb_client = pytest.importorskip("influxdb_client")

from influxdb_client.client.write_api import SYNCHRONOUS  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


def _client(base: str) -> Any:
    return influxdb_client.InfluxDBClient(url=base, token="influx-test-token", org="acme", timeout=500, retries=0)


def _write(base: str) -> Callable[[], Any]:
    api = _client(base).write_api(write_options=SYNCHRONOUS)
    return lambda: api.write("refunds", record=influxdb_client.Point("refund").field("amount", 12.5))


def _query(base: str) -> Callable[[], Any]:
    api = _client(base).query_api()
    return lambda: api.query('from(bucket: "refunds") |> range(start: -1h)')


CALLS = [pytest.param(_write, id="write"), pytest.param(_query, id="query")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "code", "headers", "failure_class", "side_effect", "wait"), [
    (400, "invalid", {}, C.INVALID_INPUT, False, None),  # line protocol that does not parse, a Flux error
    (401, "unauthorized", {}, C.PERMISSION_DENIED, False, None),
    (403, "forbidden", {}, C.PERMISSION_DENIED, False, None),
    (404, "not found", {}, C.NOT_FOUND, False, None),  # bucket "refunds" not found
    (413, "request too large", {}, C.INVALID_INPUT, False, None),
    (422, "unprocessable entity", {}, C.INVALID_INPUT, False, None),  # points beyond the retention policy
    (429, "too many requests", {"Retry-After": "7"}, C.RATE_LIMITED, False, 7.0),  # Cloud's write/query limits
    (500, "internal error", {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "unavailable", {"Retry-After": "5"}, C.UPSTREAM_UNAVAILABLE, False, 5.0),
])
def test_api_error(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], status: int, code: str,
                   headers: dict[str, str], failure_class: C, side_effect: bool, wait: float | None) -> None:
    body = json.dumps({"code": code, "message": f"the server said {code}"})
    exc = raised(call(upstream.scripted(status, body, headers)))
    assert type(exc).__name__ == "ApiException" and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], where: str,
                   side_effect: bool) -> None:
    exc = raised(call(upstream.failing(where)))
    assert type(exc).__module__ == "urllib3.exceptions"
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
