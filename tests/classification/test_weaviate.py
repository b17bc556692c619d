"""weaviate-client 3 (Weaviate's REST client, over requests) against a real HTTP server on 127.0.0.1 that answers the
way Weaviate does: ready, its meta, then the call's answer (``{"error": [{"message": ...}]}``).

The client raises ``UnexpectedStatusCodeException`` (``status_code``, the response kept only in its text) for a
status it does not expect, ``ObjectAlreadyExistsException`` for a 422 whose message says "already exists",
``AuthenticationFailedException`` and, when the server is not ready at start (``startup_period``),
``WeaviateStartUpError`` raised from requests' error. (weaviate-client 4 pins protobuf<7 and an older grpcio than the
corpus's; its REST errors are the same statuses.)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

weaviate = pytest.importorskip("weaviate")

if not hasattr(weaviate, "Client") or getattr(weaviate, "__version__", "3").split(".")[0] != "3":
    pytest.skip("the REST client of weaviate-client 3", allow_module_level=True)

from weaviate import exceptions as weaviate_exceptions  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, silent_listener  # noqa: E402


@contextmanager
def weaviate_server(status: int, body: str) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0]
            if path == "/v1/.well-known/ready":
                code, data = 200, ""
            elif path == "/v1/meta":
                code, data = 200, json.dumps({"hostname": f"http://{HOST}", "modules": {}, "version": "1.24.10"})
            elif path == "/v1/.well-known/openid-configuration":
                code, data = 404, ""
            else:
                code, data = status, body
            payload = data.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((HOST, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _create(url: str, timeout: float = 5) -> Callable[[], Any]:
    def call() -> Any:
        client = weaviate.Client(url, timeout_config=(timeout, timeout), startup_period=None)
        return client.data_object.create({"orderId": "ord_17", "total": 5}, "Order",
                                          uuid="5f0c3a52-8a8e-4ac4-9c1f-5a3c2d1e0f17")
    return call


def _error(message: str) -> str:
    return json.dumps({"error": [{"message": message}]})


@pytest.mark.parametrize(("status", "message", "exc_type", "failure_class", "side_effect"), [
    (401, "anonymous access not enabled, please provide an auth scheme such as OIDC",
     weaviate_exceptions.UnexpectedStatusCodeException, C.PERMISSION_DENIED, False),
    (403, "forbidden: user 'tool' has insufficient permissions to create_data [Order]",
     weaviate_exceptions.UnexpectedStatusCodeException, C.PERMISSION_DENIED, False),
    (422, "invalid object: no such prop with name 'orderId' found in class 'Order' in the schema",
     weaviate_exceptions.UnexpectedStatusCodeException, C.INVALID_INPUT, False),
    (422, "id '5f0c3a52-8a8e-4ac4-9c1f-5a3c2d1e0f17' already exists",
     weaviate_exceptions.ObjectAlreadyExistsException, C.INVALID_INPUT, False),
    (429, "too many requests", weaviate_exceptions.UnexpectedStatusCodeException, C.RATE_LIMITED, False),
    (500, "put object: panic", weaviate_exceptions.UnexpectedStatusCodeException, C.UPSTREAM_UNAVAILABLE, True),
    (503, "node is not ready", weaviate_exceptions.UnexpectedStatusCodeException, C.UPSTREAM_UNAVAILABLE, False),
])
def test_refused(status: int, message: str, exc_type: type, failure_class: C, side_effect: bool) -> None:
    with weaviate_server(status, _error(message)) as url:
        exc = raised(_create(url))
    assert type(exc) is exc_type
    check(exc, failure_class, side_effect)


def test_not_up_at_start() -> None:
    # the client's readiness check at creation (startup_period): WeaviateStartUpError from requests' error
    def start() -> Any:
        return weaviate.Client(f"http://{HOST}:{closed_port()}", startup_period=1)
    exc = raised(start)
    assert type(exc) is weaviate_exceptions.WeaviateStartUpError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_nothing_listens() -> None:
    exc = raised(_create(f"http://{HOST}:{closed_port()}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_answer_times_out() -> None:
    with silent_listener() as port:
        exc = raised(_create(f"http://{HOST}:{port}", timeout=0.5))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)  # requests' ReadTimeout: the request was sent
