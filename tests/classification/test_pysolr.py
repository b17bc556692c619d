"""pysolr (Apache Solr's client, over requests) against real HTTP servers on 127.0.0.1 answering Solr's own JSON
error document.

pysolr raises one ``SolrError`` for everything: for an error answer its text is "Solr responded with an error (HTTP
<status>): [Reason: <msg>]" (no attribute keeps the status); for a dead peer it is raised ``from`` requests' error
("Failed to connect to server at ...", "Connection to server ... timed out").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

pysolr = pytest.importorskip("pysolr")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402


def _search(url: str) -> Callable[[], Any]:
    return lambda: pysolr.Solr(f"{url}/solr/refunds", timeout=1).search("order_id:17")


def _add(url: str) -> Callable[[], Any]:
    return lambda: pysolr.Solr(f"{url}/solr/refunds", timeout=1, always_commit=True).add([{"id": "17"}])


CALLS = [pytest.param(_search, id="search"), pytest.param(_add, id="add")]


def _solr_error(status: int, msg: str) -> str:
    # Solr's error response (its ResponseUtils: "error": {"metadata": [...], "msg": ..., "code": ...})
    return json.dumps({"responseHeader": {"status": status, "QTime": 1},
                       "error": {"metadata": ["error-class", "org.apache.solr.common.SolrException",
                                              "root-error-class", "org.apache.solr.common.SolrException"],
                                 "msg": msg, "code": status}})


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "msg", "failure_class", "side_effect"), [
    (400, "undefined field order_idx", C.INVALID_INPUT, False),
    (401, "require authentication", C.PERMISSION_DENIED, False),
    (403, "Unauthorized request", C.PERMISSION_DENIED, False),
    (404, "Not Found", C.NOT_FOUND, False),  # no such core or collection
    (409, "version conflict for 17 expected=1 actual=2", C.INVALID_INPUT, False),
    (429, "Too many requests", C.RATE_LIMITED, False),  # Solr 9's rate limiter
    (500, "java.lang.OutOfMemoryError", C.UPSTREAM_UNAVAILABLE, True),
    (503, "no servers hosting shard: shard1", C.UPSTREAM_UNAVAILABLE, False),
])
def test_solr_error(call: Callable[[str], Callable[[], Any]], status: int, msg: str, failure_class: C,
                    side_effect: bool) -> None:
    with answering(status, _solr_error(status, msg), {"Content-Type": "application/json"}) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert type(exc) is pysolr.SolrError and f"(HTTP {status})" in str(exc)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("silent", True), ("closing", True)])
def test_transport(call: Callable[[str], Callable[[], Any]], where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(call(f"http://127.0.0.1:{closed_port()}"))
    elif where == "unresolvable":
        exc = raised(call(f"http://{UNRESOLVABLE}:8983"))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    assert type(exc) is pysolr.SolrError
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
