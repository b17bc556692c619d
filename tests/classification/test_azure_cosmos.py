"""azure-cosmos (Azure Cosmos DB's SQL API client, over azure-core's requests transport) against a real HTTP server on
127.0.0.1 that answers the way the Cosmos DB gateway does: the database account it reads when the client is created,
then the call's answer.

Cosmos DB answers a refusal with its status, ``{"code": "NotFound", "message": ...}`` and often an
``x-ms-substatus`` (https://learn.microsoft.com/rest/api/cosmos-db/http-status-codes-for-cosmosdb): 429 with
``x-ms-retry-after-ms`` (the wait in milliseconds, not ``Retry-After``), 449 "Retry With" (a transient write conflict:
nothing was written, send it again), 409 a conflict with an item that is there, 412 an ETag that no longer matches, 413
an item over the size limit. The client raises ``CosmosHttpResponseError`` (an azure-core ``HttpResponseError``) or
its subclasses ``CosmosResourceNotFoundError`` and ``CosmosResourceExistsError``, with ``status_code``,
``sub_status`` and the response's headers; it retries 429 itself (here ``retry_total=0``: once).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

cosmos = pytest.importorskip("azure.cosmos")

from azure.cosmos import exceptions as cosmos_exceptions  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port  # noqa: E402

_KEY = "Y29ycHVzLWtleS1jb3JwdXMta2V5LWNvcnB1cy1rZXk="


def _account(endpoint: str) -> dict[str, Any]:
    location = [{"name": "East US", "databaseAccountEndpoint": endpoint}]
    return {"_self": "", "id": "corpus", "_rid": f"{HOST}", "media": "//media/", "addresses": "//addresses/",
            "_dbs": "//dbs/", "writableLocations": location, "readableLocations": location,
            "enableMultipleWriteLocations": False, "userConsistencyPolicy": {"defaultConsistencyLevel": "Session"},
            "userReplicationPolicy": {"asyncReplication": False, "minReplicaSetSize": 1, "maxReplicasetSize": 4},
            "systemReplicationPolicy": {"minReplicaSetSize": 1, "maxReplicasetSize": 4},
            "readPolicy": {"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
            "queryEngineConfiguration": "{}"}


@contextmanager
def gateway(status: int, body: dict[str, Any] | str, headers: dict[str, str] | None = None) -> Iterator[str]:
    """A Cosmos DB gateway whose account read succeeds and whose every other request answers ``status``."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            endpoint = f"http://{HOST}:{self.server.server_address[1]}/"
            if self.path.split("?")[0] in ("", "/"):
                code, data, extra = 200, json.dumps(_account(endpoint)), {}
            else:
                code, data, extra = status, body if isinstance(body, str) else json.dumps(body), headers or {}
            payload = data.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((HOST, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _read_item(url: str, timeout: float = 5) -> Callable[[], Any]:
    def call() -> Any:
        client = cosmos.CosmosClient(url, credential=_KEY, retry_total=0, retry_backoff_max=1,
                                     connection_timeout=timeout, read_timeout=timeout)
        container = client.get_database_client("shop").get_container_client("orders")
        return container.read_item("ord_17", partition_key="ord_17")
    return call


def _error(code: str, message: str = "the server said no") -> dict[str, str]:
    return {"code": code, "message": message}


@pytest.mark.parametrize(("status", "code", "substatus", "failure_class", "side_effect"), [
    (400, "BadRequest", None, C.INVALID_INPUT, False),
    (401, "Unauthorized", None, C.PERMISSION_DENIED, False),  # the key's signature refused
    (403, "Forbidden", "5301", C.PERMISSION_DENIED, False),  # the identity has no data-plane role
    (404, "NotFound", None, C.NOT_FOUND, False),  # no such item
    (404, "NotFound", "1003", C.NOT_FOUND, False),  # no such container
    (409, "Conflict", None, C.INVALID_INPUT, False),  # an item with that id exists
    (412, "PreconditionFailed", None, C.INVALID_INPUT, False),  # the ETag no longer matches
    (413, "RequestEntityTooLarge", None, C.INVALID_INPUT, False),
    (500, "InternalServerError", None, C.UPSTREAM_UNAVAILABLE, True),
])
def test_refused(status: int, code: str, substatus: str | None, failure_class: C, side_effect: bool) -> None:
    headers = {"x-ms-substatus": substatus} if substatus else {}
    with gateway(status, _error(code), headers) as url:
        exc = raised(_read_item(url))
    assert isinstance(exc, cosmos_exceptions.CosmosHttpResponseError) and exc.status_code == status
    check(exc, failure_class, side_effect)


def test_request_rate_too_large() -> None:
    # 429 with the wait in milliseconds (x-ms-retry-after-ms), after the client's own retries (here none)
    headers = {"x-ms-retry-after-ms": "1500", "x-ms-substatus": "3200"}
    with gateway(429, _error("TooManyRequests", "Request rate is large."), headers) as url:
        exc = raised(_read_item(url))
    assert isinstance(exc, cosmos_exceptions.CosmosHttpResponseError) and exc.status_code == 429
    assert check(exc, C.RATE_LIMITED, False).retry_after == 1.5


def test_retry_with() -> None:
    # 449: a transient conflict with a concurrent write; the gateway applied nothing, the same request may succeed
    with gateway(449, _error("RetryWith", "Conflicting request to resource has been attempted. Retry to avoid "
                                          "conflicts.")) as url:
        exc = raised(_read_item(url))
    assert isinstance(exc, cosmos_exceptions.CosmosHttpResponseError) and exc.status_code == 449
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_nothing_listens() -> None:
    exc = raised(_read_item(f"http://{HOST}:{closed_port()}/"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
