"""The Meilisearch and Typesense Python clients against a real HTTP server on 127.0.0.1.

meilisearch (requests) raises ``MeilisearchApiError`` for an error answer (``status_code``; ``code``/``type`` from
Meilisearch's ``{"message", "code", "type", "link"}`` body), ``MeilisearchCommunicationError`` over requests'
connection error and ``MeilisearchTimeoutError`` over its timeout. typesense (httpx, sync and asyncio) raises one
class per status (``ObjectNotFound``, ``RequestUnauthorized``, ...; its base ``TypesenseClientError`` for a status it
has no class for, 429), each an ``IOError`` built as ``(status, message)``: the status is only its ``errno``; a dead
node, with its retries off (``num_retries=0``), is httpx's own exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import meilisearch
import pytest
import typesense
from meilisearch import errors as meili_errors
from typesense import exceptions as typesense_errors

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5


def _meili(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = meilisearch.Client(base, "masterKey", timeout=timeout)
    return lambda: client.index("movies").get_document("287947")


def _meili_search(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = meilisearch.Client(base, "masterKey", timeout=timeout)
    return lambda: client.index("movies").search("shazam", {"filter": "genre = horror"})


@pytest.mark.parametrize("call", [pytest.param(_meili, id="get_document"), pytest.param(_meili_search, id="search")])
@pytest.mark.parametrize(("status", "code", "kind", "failure_class", "side_effect"), [
    (404, "document_not_found", "invalid_request", C.NOT_FOUND, False),
    (404, "index_not_found", "invalid_request", C.NOT_FOUND, False),
    (401, "missing_authorization_header", "auth", C.PERMISSION_DENIED, False),
    (403, "invalid_api_key", "auth", C.PERMISSION_DENIED, False),
    (400, "invalid_search_filter", "invalid_request", C.INVALID_INPUT, False),
    (400, "invalid_document_id", "invalid_request", C.INVALID_INPUT, False),
    (413, "payload_too_large", "invalid_request", C.INVALID_INPUT, False),
    (500, "internal", "internal", C.UPSTREAM_UNAVAILABLE, True),
    (503, "", "system", C.UPSTREAM_UNAVAILABLE, False),
    (429, "too_many_search_requests", "system", C.RATE_LIMITED, False),
])
def test_meilisearch_api_error(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int,
                               code: str, kind: str, failure_class: C, side_effect: bool) -> None:
    body = {"message": "the engine said no", "code": code, "type": kind, "link": f"https://docs.meilisearch.com/errors#{code}"}
    exc = raised(call(upstream.scripted(status, json.dumps(body))))
    assert type(exc) is meili_errors.MeilisearchApiError and exc.status_code == status and exc.code == code
    result = check(exc, failure_class, side_effect)
    # the upstream's own code where errscope knows it, else the status
    assert result.upstream is not None and result.upstream.status in (code, str(status))


def test_meilisearch_gateway_page(upstream: HttpUpstream) -> None:
    exc = raised(_meili(upstream.scripted(502, "<html>Bad Gateway</html>", {"Content-Type": "text/html"})))
    assert type(exc) is meili_errors.MeilisearchApiError and exc.status_code == 502
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("where", "meili_class", "side_effect"), [
    ("refused", meili_errors.MeilisearchCommunicationError, False),
    ("unresolvable", meili_errors.MeilisearchCommunicationError, False),
    ("drop", meili_errors.MeilisearchCommunicationError, True),
    ("stall", meili_errors.MeilisearchTimeoutError, True),
])
def test_meilisearch_transport(upstream: HttpUpstream, where: str, meili_class: type[BaseException],
                               side_effect: bool) -> None:
    exc = raised(_meili(upstream.failing(where), SHORT))
    assert type(exc) is meili_class
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def _typesense_config(base: str, timeout: float) -> dict[str, Any]:
    url = urlsplit(base)
    return {"nodes": [{"host": url.hostname, "port": url.port, "protocol": "http", "path": url.path}],
            "api_key": "xyz", "connection_timeout_seconds": timeout, "num_retries": 0}


def _typesense(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = typesense.Client(_typesense_config(base, timeout))
    return lambda: client.collections["books"].documents.search({"q": "harry", "query_by": "title"})


def _typesense_async(base: str, timeout: float = 5) -> Callable[[], Any]:
    async def call() -> Any:
        client = typesense.AsyncClient(_typesense_config(base, timeout))
        return await client.collections["books"].documents.search({"q": "harry", "query_by": "title"})
    return call


TYPESENSE = [pytest.param(_typesense, id="sync"), pytest.param(_typesense_async, id="async")]


@pytest.mark.parametrize("call", TYPESENSE)
@pytest.mark.parametrize(("status", "typesense_class", "failure_class", "side_effect"), [
    (400, typesense_errors.RequestMalformed, C.INVALID_INPUT, False),
    (401, typesense_errors.RequestUnauthorized, C.PERMISSION_DENIED, False),
    (403, typesense_errors.RequestForbidden, C.PERMISSION_DENIED, False),
    (404, typesense_errors.ObjectNotFound, C.NOT_FOUND, False),
    (409, typesense_errors.ObjectAlreadyExists, C.INVALID_INPUT, False),
    (422, typesense_errors.ObjectUnprocessable, C.INVALID_INPUT, False),
    (429, typesense_errors.TypesenseClientError, C.RATE_LIMITED, False),
    (500, typesense_errors.ServerError, C.UPSTREAM_UNAVAILABLE, True),
    (502, typesense_errors.ServerError, C.UPSTREAM_UNAVAILABLE, True),
    (503, typesense_errors.ServiceUnavailable, C.UPSTREAM_UNAVAILABLE, False),
])
def test_typesense_api_error(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int,
                             typesense_class: type[BaseException], failure_class: C, side_effect: bool) -> None:
    exc = raised(call(upstream.scripted(status, json.dumps({"message": "Not Found"}))))
    assert type(exc) is typesense_class and exc.args[0] == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("call", TYPESENSE)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("drop", True), ("stall", True)])
def test_typesense_transport(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], where: str,
                             side_effect: bool) -> None:
    exc = raised(call(upstream.failing(where), SHORT))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
