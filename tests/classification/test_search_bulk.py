"""The Elasticsearch and OpenSearch clients' bulk helpers (``helpers.bulk``) against a real HTTP server on
127.0.0.1 answering the ``_bulk`` API as the engines do: HTTP 200 with ``"errors": true`` and, per item, its own
``status`` and ``error.type`` (https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk).

The helper raises ``BulkIndexError`` with the failed items (``.errors``: ``[{"index": {"status": 409, "error":
{...}}}]``) and no status of its own: the items' statuses say what went wrong, as each would alone (a version
conflict 409, a rejected execution 429, a mapping failure 400, a missing index 404, unavailable shards 503). The
exception lists only the failed items: others in the same request may have been written, so whether the call
acted is open unless the item's own status says it may have (a 5xx).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import elasticsearch
import elasticsearch.helpers
import opensearchpy
import opensearchpy.helpers
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

# (item status, error type, class, side effect): each item refused by the engine for its own reason
ITEMS = [
    pytest.param(409, "version_conflict_engine_exception", C.INVALID_INPUT, None, id="version-conflict"),
    pytest.param(429, "es_rejected_execution_exception", C.RATE_LIMITED, None, id="rejected-execution"),
    pytest.param(400, "document_parsing_exception", C.INVALID_INPUT, None, id="document-parsing"),
    pytest.param(404, "index_not_found_exception", C.NOT_FOUND, None, id="index-not-found"),
    pytest.param(503, "unavailable_shards_exception", C.UPSTREAM_UNAVAILABLE, None, id="unavailable-shards"),
    pytest.param(500, "illegal_state_exception", C.UPSTREAM_UNAVAILABLE, True, id="internal"),
]

ACTIONS = [{"_index": "orders", "_id": "ord_1", "_op_type": "create", "_source": {"amount": 10}}]


def _bulk_answer(status: int, error_type: str) -> str:
    item = {"create": {"_index": "orders", "_id": "ord_1", "status": status,
                       "error": {"type": error_type, "reason": "the engine refused this document"}}}
    return json.dumps({"took": 3, "errors": True, "items": [item]})


HEADERS = {"Content-Type": "application/json", "X-Elastic-Product": "Elasticsearch"}


def _elasticsearch(base: str) -> Callable[[], Any]:
    client = elasticsearch.Elasticsearch(base, max_retries=0, request_timeout=5)
    return lambda: elasticsearch.helpers.bulk(client, ACTIONS)


def _opensearch(base: str) -> Callable[[], Any]:
    client = opensearchpy.OpenSearch(base, max_retries=0, timeout=5)
    return lambda: opensearchpy.helpers.bulk(client, ACTIONS)


@pytest.mark.parametrize(("status", "error_type", "failure_class", "side_effect"), ITEMS)
@pytest.mark.parametrize("client", ["elasticsearch", "opensearch"])
def test_bulk_item_refused(upstream: HttpUpstream, client: str, status: int, error_type: str, failure_class: C,
                           side_effect: bool | None) -> None:
    base = upstream.scripted(200, _bulk_answer(status, error_type), HEADERS)
    exc = raised((_elasticsearch if client == "elasticsearch" else _opensearch)(base))
    assert type(exc).__name__ == "BulkIndexError"
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("client", ["elasticsearch", "opensearch"])
def test_bulk_with_the_engine_down(upstream: HttpUpstream, client: str) -> None:
    # Not a BulkIndexError: the transport's own error, raised through the helper as it is.
    exc = raised((_elasticsearch if client == "elasticsearch" else _opensearch)(upstream.failing("refused")))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def _scan_answer() -> str:
    # two of five shards failed (a node down): the engine answers 200 with what the other three hold
    return json.dumps({"_scroll_id": "c2Nyb2xsLTE=", "took": 2, "timed_out": False,
                       "_shards": {"total": 5, "successful": 3, "skipped": 0, "failed": 2},
                       "hits": {"total": {"value": 1, "relation": "eq"},
                                "hits": [{"_index": "orders", "_id": "ord_1", "_source": {"amount": 10}}]}})


@pytest.mark.parametrize("client", ["elasticsearch", "opensearch"])
def test_scan_over_failed_shards(upstream: HttpUpstream, client: str) -> None:
    # helpers.scan (raise_on_error) stops at an answer from fewer shards than the index has: ScanError, no status.
    # Some of the index could not be read (its shards unavailable); a read, nothing was changed.
    base = upstream.scripted(200, _scan_answer(), HEADERS)

    def run() -> None:
        if client == "elasticsearch":
            list(elasticsearch.helpers.scan(elasticsearch.Elasticsearch(base, max_retries=0), index="orders"))
        else:
            list(opensearchpy.helpers.scan(opensearchpy.OpenSearch(base, max_retries=0), index="orders"))

    exc = raised(run)
    assert type(exc).__name__ == "ScanError"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
