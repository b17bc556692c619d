"""Chroma's HTTP client (``chromadb.HttpClient``, from the HTTP-only ``chromadb-client`` package, over httpx) against a
real HTTP server on 127.0.0.1 that answers the way a Chroma server does: the tenant and database the client checks when
it is created, then the call's answer.

A Chroma server answers a refusal with ``{"error": "<name>", "message": ...}`` and a status; the client raises the
``chromadb.errors`` class registered under that name (``errors.error_types``: ``NotFoundError``,
``UniqueConstraintError``, ``InvalidArgumentError``, ``AuthError`` (``ChromaAuthError``), ``AuthorizationError``,
``RateLimitError``, ``QuotaError``, ``InternalError``, ...) and keeps no status, no response
(``BaseHTTPClient._raise_chroma_error``): the class name is all that is left. An answer that is not Chroma's (a proxy's
HTML, an unregistered name) is a bare ``Exception(resp.text)`` raised while handling httpx's ``HTTPStatusError``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

chromadb = pytest.importorskip("chromadb")

from chromadb import errors as chroma_errors  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, closing_listener  # noqa: E402

_TENANT = {"name": "default_tenant"}
_DATABASE = {"id": "5f0c3a52-8a8e-4ac4-9c1f-5a3c2d1e0f17", "name": "default_database", "tenant": "default_tenant"}


@contextmanager
def chroma(status: int, body: str, content_type: str = "application/json") -> Iterator[int]:
    """A Chroma server whose tenant and database exist and whose every other path answers ``status`` and ``body``."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            path = self.path.split("?")[0].rstrip("/")
            if path == "/api/v2/tenants/default_tenant":
                code, data, kind = 200, json.dumps(_TENANT), "application/json"
            elif path == "/api/v2/tenants/default_tenant/databases/default_database":
                code, data, kind = 200, json.dumps(_DATABASE), "application/json"
            elif path == "/api/v2/auth/identity":
                code, data, kind = 200, json.dumps({"user_id": "", "tenant": "default_tenant",
                                                    "databases": ["default_database"]}), "application/json"
            else:
                code, data, kind = status, body, content_type
            payload = data.encode()
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((HOST, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def _get_collection(port: int) -> Callable[[], Any]:
    return lambda: chromadb.HttpClient(host=HOST, port=port).get_collection("refunds")


def _error(name: str, message: str = "the server said no") -> str:
    return json.dumps({"error": name, "message": message})


@pytest.mark.parametrize(("status", "name", "exc_type", "failure_class", "side_effect"), [
    (404, "NotFoundError", chroma_errors.NotFoundError, C.NOT_FOUND, False),  # "Collection [refunds] does not exist"
    (409, "UniqueConstraintError", chroma_errors.UniqueConstraintError, C.INVALID_INPUT, False),  # already exists
    (409, "IDAlreadyExists", chroma_errors.IDAlreadyExistsError, C.INVALID_INPUT, False),
    (400, "InvalidArgumentError", chroma_errors.InvalidArgumentError, C.INVALID_INPUT, False),
    (400, "InvalidDimension", chroma_errors.InvalidDimensionException, C.INVALID_INPUT, False),  # embedding's size
    (400, "DuplicateID", chroma_errors.DuplicateIDError, C.INVALID_INPUT, False),
    (413, "BatchSizeExceededError", chroma_errors.BatchSizeExceededError, C.INVALID_INPUT, False),  # smaller fits
    (403, "AuthError", chroma_errors.ChromaAuthError, C.PERMISSION_DENIED, False),
    (403, "AuthorizationError", chroma_errors.AuthorizationError, C.PERMISSION_DENIED, False),
    (429, "RateLimitError", chroma_errors.RateLimitError, C.RATE_LIMITED, False),
    # Chroma Cloud's plan limits (records per write, collection size): waiting does not help, a smaller request may
    (400, "QuotaError", chroma_errors.QuotaError, C.INVALID_INPUT, False),
    # the server failed under the call: no status kept to say more, whether it applied is open
    (500, "InternalError", chroma_errors.InternalError, C.UPSTREAM_UNAVAILABLE, None),
])
def test_refused(status: int, name: str, exc_type: type, failure_class: C, side_effect: bool | None) -> None:
    with chroma(status, _error(name)) as port:
        exc = raised(_get_collection(port))
    assert type(exc) is exc_type
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),  # an auth proxy in front of the server
    (404, C.NOT_FOUND, False),
    (429, C.RATE_LIMITED, False),
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_answer_that_is_not_chromas(status: int, failure_class: C, side_effect: bool) -> None:
    # a proxy's page: Exception(resp.text), raised while handling httpx's HTTPStatusError (which keeps the status)
    with chroma(status, "<html><body>upstream said no</body></html>", "text/html") as port:
        exc = raised(_get_collection(port))
    assert type(exc) is Exception
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_nothing_listens() -> None:
    exc = raised(_get_collection(closed_port()))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_answering() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_get_collection(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
