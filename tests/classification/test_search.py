"""The Elasticsearch and OpenSearch clients (over urllib3) against a real HTTP server on 127.0.0.1.

Elasticsearch: an error status is an ApiError subclass with ``status_code`` and the response in
``meta`` (its headers too); a transport failure is elastic-transport's ConnectionError or
ConnectionTimeout raised from urllib3's. OpenSearch (the fork of the older client): a TransportError
subclass with ``status_code`` and the body, not the headers. No retries: ``max_retries=0``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import elastic_transport
import elasticsearch
import opensearchpy
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, silent_listener


def _get(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = elasticsearch.Elasticsearch(base, max_retries=0, retry_on_timeout=False, request_timeout=timeout)
    return lambda: client.get(index="orders", id="1")


@pytest.mark.parametrize(("status", "retry_after", "kind", "failure_class", "side_effect", "wait"), [
    (400, None, elasticsearch.BadRequestError, C.INVALID_INPUT, False, None),
    (401, None, elasticsearch.AuthenticationException, C.PERMISSION_DENIED, False, None),
    (403, None, elasticsearch.AuthorizationException, C.PERMISSION_DENIED, False, None),
    (404, None, elasticsearch.NotFoundError, C.NOT_FOUND, False, None),
    (409, None, elasticsearch.ConflictError, C.INVALID_INPUT, False, None),  # version conflict
    (429, "5", elasticsearch.ApiError, C.RATE_LIMITED, False, 5.0),  # es_rejected_execution_exception
    (500, None, elasticsearch.ApiError, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, None, elasticsearch.ApiError, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_elasticsearch_status(upstream: HttpUpstream, status: int, retry_after: str | None, kind: type,
                              failure_class: C, side_effect: bool, wait: float | None) -> None:
    headers = {"X-Elastic-Product": "Elasticsearch", **({"Retry-After": retry_after} if retry_after else {})}
    body = json.dumps({"error": {"type": "x", "reason": "upstream said no"}, "status": status})
    exc = raised(_get(upstream.scripted(status, body, headers)))
    assert type(exc) is kind and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    # the node that answered, from the response meta (elastic-transport keeps no URL on an ApiError)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", elastic_transport.ConnectionError, False),
    ("unresolvable", elastic_transport.ConnectionError, False),
    ("drop", elastic_transport.ConnectionError, True),
    ("stall", elastic_transport.ConnectionTimeout, True),
    ("silent", elastic_transport.ConnectionTimeout, True),
])
def test_elasticsearch_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    with silent_listener() as silent:
        base = f"http://{HOST}:{silent}" if where == "silent" else upstream.failing(where)
        exc = raised(_get(base, timeout=0.3))
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def _opensearch_get(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = opensearchpy.OpenSearch(base, max_retries=0, retry_on_timeout=False, timeout=timeout)
    return lambda: client.get(index="orders", id="1")


@pytest.mark.parametrize(("status", "kind", "failure_class", "side_effect"), [
    (400, opensearchpy.RequestError, C.INVALID_INPUT, False),
    (401, opensearchpy.AuthenticationException, C.PERMISSION_DENIED, False),
    (403, opensearchpy.AuthorizationException, C.PERMISSION_DENIED, False),
    (404, opensearchpy.NotFoundError, C.NOT_FOUND, False),
    (409, opensearchpy.ConflictError, C.INVALID_INPUT, False),
    (429, opensearchpy.TransportError, C.RATE_LIMITED, False),  # its Retry-After is not kept by the client
    (500, opensearchpy.TransportError, C.UPSTREAM_UNAVAILABLE, True),
    (503, opensearchpy.TransportError, C.UPSTREAM_UNAVAILABLE, False),
])
def test_opensearch_status(upstream: HttpUpstream, status: int, kind: type, failure_class: C,
                           side_effect: bool) -> None:
    body = json.dumps({"error": {"type": "x", "reason": "upstream said no"}, "status": status})
    exc = raised(_opensearch_get(upstream.scripted(status, body, {"Retry-After": "5"})))
    assert type(exc) is kind and exc.status_code == status
    assert check(exc, failure_class, side_effect).retry_after is None


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", opensearchpy.ConnectionError, False),
    ("unresolvable", opensearchpy.ConnectionError, False),
    ("drop", opensearchpy.ConnectionError, True),
    ("stall", opensearchpy.ConnectionTimeout, True),
])
def test_opensearch_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    base = upstream.failing(where)
    exc = raised(_opensearch_get(base, timeout=0.3))
    assert type(exc) is kind
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
