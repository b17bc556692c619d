"""opensearch-py (sync over urllib3, async over aiohttp) against real peers on 127.0.0.1.

opensearch-py wraps every transport failure in its own ``ConnectionError("N/A", str(e), e)`` raised inside the
``except`` that caught ``e``: its message repeats the cause's, and the cause, read by its own rules, is what decides.
An answer becomes ``TransportError(status, error type, body)`` and its subclasses, which keep no URL.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

opensearchpy = pytest.importorskip("opensearchpy")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, answering, closed_port, closing_listener, silent_listener  # noqa: E402


def _index_sync(port: int) -> Callable[[], Any]:
    client = opensearchpy.OpenSearch([f"http://{HOST}:{port}"], timeout=1, max_retries=0)
    return lambda: client.index(index="refunds", body={"order": 17}, id="17")


def _index_async(port: int) -> Callable[[], Any]:
    async def index() -> None:
        client = opensearchpy.AsyncOpenSearch([f"http://{HOST}:{port}"], timeout=1, max_retries=0)
        try:
            await client.index(index="refunds", body={"order": 17}, id="17")
        finally:
            await client.close()

    return lambda: asyncio.run(index())


CLIENTS = [pytest.param(_index_sync, id="sync"), pytest.param(_index_async, id="async")]


@pytest.mark.parametrize("client", CLIENTS)
def test_refused_names_the_node(client: Callable[[int], Callable[[], Any]]) -> None:
    port = closed_port()
    exc = raised(client(port))
    assert type(exc) is opensearchpy.ConnectionError
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"


def test_read_timeout_names_the_node() -> None:
    # urllib3's ReadTimeoutError keeps the pool, whose host and port are the node's (the URL it keeps is a path)
    with silent_listener() as port:
        exc = raised(_index_sync(port))
    assert type(exc) is opensearchpy.ConnectionTimeout
    result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"


def test_garbled_status_line_is_the_peer_not_the_request() -> None:
    # aiohttp's parser raises ClientResponseError(status=400) for a status line it cannot read; opensearch-py repeats
    # "400, message=..." in its wrapper's words. The 400 is the parser's: the request went out, the answer is unreadable.
    with closing_listener(b"garbage\r\n\r\n", read_first=True) as port:
        exc = raised(_index_async(port))
    assert type(exc) is opensearchpy.ConnectionError and "400, message=" in str(exc)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
    assert result.upstream is not None
    assert (result.upstream.status, result.upstream.address) == ("HttpProcessingError", f"{HOST}:{port}")


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("status", "error_type", "failure_class"), [
    (400, "mapper_parsing_exception", C.INVALID_INPUT),
    (403, "security_exception", C.PERMISSION_DENIED),
    (404, "index_not_found_exception", C.NOT_FOUND),
    (409, "version_conflict_engine_exception", C.INVALID_INPUT),
    (429, "es_rejected_execution_exception", C.RATE_LIMITED),
    (503, "cluster_block_exception", C.UPSTREAM_UNAVAILABLE),
])
def test_error_answer(client: Callable[[int], Callable[[], Any]], status: int, error_type: str,
                      failure_class: C) -> None:
    body = json.dumps({"error": {"type": error_type, "reason": "refused by the node"}, "status": status})
    with answering(status, body, {"Content-Type": "application/json"}) as port:
        exc = raised(client(port))
    assert isinstance(exc, opensearchpy.TransportError) and exc.status_code == status
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(status)
