"""The Algolia API client (``algoliasearch`` v4, its sync transport over requests) against a real HTTP server on
127.0.0.1 as its one host, answering with Algolia's own error bodies (https://www.algolia.com/doc/rest-api/search/:
``{"message", "status"}``).

The sync transport (requests) and the asyncio one (aiohttp) behave alike. The transport retries a 5xx and a timeout on the next host and, with none left, raises
``AlgoliaUnreachableHostException`` (no status, no cause: only its name says no host served the call); a 4xx is
``RequestException(message, status_code)``; a 429 is retried after its ``Retry-After`` up to
``max_rate_limit_retries`` times first. A refused connection is not caught: requests' ``ConnectionError`` escapes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("algoliasearch")

from algoliasearch.http.exceptions import AlgoliaUnreachableHostException, RequestException  # noqa: E402
from algoliasearch.http.hosts import Host, HostsCollection  # noqa: E402
from algoliasearch.search.client import SearchClient, SearchClientSync  # noqa: E402
from algoliasearch.search.config import SearchConfig  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    HOST, answering, closed_port, closing_listener, silent_listener)


def _config(port: int, timeout_ms: int) -> SearchConfig:
    config = SearchConfig("ERRSCOPE1", "search-key")
    config.hosts = HostsCollection([Host(HOST, scheme="http", port=port)])
    config.read_timeout = config.connect_timeout = timeout_ms
    config.max_rate_limit_retries = 0
    return config


def _sync(port: int, timeout_ms: int = 5000) -> Callable[[], Any]:
    def run() -> Any:
        with SearchClientSync.create_with_config(_config(port, timeout_ms)) as client:
            return client.get_object("refunds", "17")
    return run


def _async(port: int, timeout_ms: int = 5000) -> Callable[[], Any]:
    async def run() -> Any:
        async with SearchClient.create_with_config(_config(port, timeout_ms)) as client:
            return await client.get_object("refunds", "17")
    return run


CLIENTS = [pytest.param(_sync, id="sync"), pytest.param(_async, id="asyncio")]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("status", "message", "failure_class"), [
    (400, "Invalid syntax for filter: 'status = refunded'", C.INVALID_INPUT),
    (403, "Invalid Application-ID or API key", C.PERMISSION_DENIED),
    (404, "ObjectID does not exist", C.NOT_FOUND),
    (404, "Index does not exist", C.NOT_FOUND),
    (413, "Record at the position 0 objectID=17 is too big size=12000/10000 bytes", C.INVALID_INPUT),
    (429, "Too many requests", C.RATE_LIMITED),
])
def test_refused_request(client: Callable[..., Callable[[], Any]], status: int, message: str,
                         failure_class: C) -> None:
    with answering(status, json.dumps({"message": message, "status": status})) as port:
        exc = raised(client(port))
    assert type(exc) is RequestException and exc.status_code == status
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("status", [500, 502, 503])
def test_no_host_left_after_a_server_error(client: Callable[..., Callable[[], Any]], status: int) -> None:
    # retried on the next host, and there is none: the status is not kept, nor whether the host acted
    with answering(status, json.dumps({"message": "Internal error", "status": status})) as port:
        exc = raised(client(port))
    assert type(exc) is AlgoliaUnreachableHostException
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize("client", CLIENTS)
def test_no_host_left_after_a_timeout(client: Callable[..., Callable[[], Any]]) -> None:
    with silent_listener() as port:
        exc = raised(client(port, timeout_ms=300))
    assert type(exc) is AlgoliaUnreachableHostException
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize("client", CLIENTS)
def test_refused(client: Callable[..., Callable[[], Any]]) -> None:
    exc = raised(client(closed_port()))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", CLIENTS)
def test_closed_before_answering(client: Callable[..., Callable[[], Any]]) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(client(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
