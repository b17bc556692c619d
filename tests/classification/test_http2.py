"""httpx and httpx2 speaking HTTP/2 (prior knowledge, ``h2c``) to a real HTTP/2 server on 127.0.0.1, built on the
``h2`` protocol stack (the one httpcore itself uses), that fails each request the ways RFC 9113 lets it.

A stream reset (RST_STREAM) and a connection shut down (GOAWAY) carry an HTTP/2 error code (RFC 9113 §7). httpcore
raises ``RemoteProtocolError`` over the ``h2`` event itself (``StreamReset``, ``ConnectionTerminated``), so the code
and the last stream the server processed are attributes, not text:

- ``REFUSED_STREAM`` says the stream was closed before any processing (§8.7): safe to retry, nothing done;
- a GOAWAY whose ``last_stream_id`` is below the request's stream says the same of it (§6.8);
- ``ENHANCE_YOUR_CALM`` says the peer is generating excessive load (§7): a rate limit;
- ``HTTP_1_1_REQUIRED`` refuses the request for its protocol: nothing done, the server is not usable so;
- ``INTERNAL_ERROR``, ``CANCEL`` on a request the server was handling: it may have acted.

An error status over HTTP/2 is the same status as over HTTP/1.1.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.errors
import h2.events
import httpx
import httpx2
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST

LIBS = [pytest.param(httpx, id="httpx"), pytest.param(httpx2, id="httpx2")]
E = h2.errors.ErrorCodes


class Http2Upstream:
    """An HTTP/2 server (cleartext, prior knowledge) with one failure per path, answered once the request ended:
    ``/status/<code>[?retry_after=<s>]`` that status; ``/reset/<code>`` RST_STREAM with that error code;
    ``/goaway/<code>`` GOAWAY with that code and ``last_stream_id`` 0 (nothing processed); ``/goaway-after/<code>``
    GOAWAY naming the request's own stream as the last one processed; ``/stall`` no answer."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind((HOST, 0))
        self._sock.listen(16)
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://{HOST}:{self.port}"
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        paths: dict[int, str] = {}
        with sock:
            sock.settimeout(30)
            sock.sendall(conn.data_to_send())
            while not self._stop.is_set():
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        paths[event.stream_id] = dict(event.headers)[":path"]
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        if self._answer(conn, event.stream_id, paths.pop(event.stream_id, "/")):
                            sock.sendall(conn.data_to_send())
                            self._stop.wait(0.5)  # a GOAWAY: let the client read it before the close
                            return
                sock.sendall(conn.data_to_send())

    @staticmethod
    def _answer(conn: h2.connection.H2Connection, stream_id: int, target: str) -> bool:
        """Answer one request; ``True`` when the connection is to close (a GOAWAY was sent)."""
        url = urlsplit(target)
        kind, _, arg = url.path.strip("/").partition("/")
        if kind == "status":
            body = b'{"error": "upstream said no"}'
            headers = [(":status", arg), ("content-type", "application/json"), ("content-length", str(len(body)))]
            headers += [("retry-after", value) for value in parse_qs(url.query).get("retry_after", [])]
            conn.send_headers(stream_id, headers)
            conn.send_data(stream_id, body, end_stream=True)
        elif kind == "reset":
            conn.reset_stream(stream_id, error_code=E[arg])
        elif kind == "goaway":
            conn.close_connection(error_code=E[arg], last_stream_id=0)
            return True
        elif kind == "goaway-after":
            conn.close_connection(error_code=E[arg], last_stream_id=stream_id)
            return True
        elif kind != "stall":
            conn.send_headers(stream_id, [(":status", "200"), ("content-length", "0")], end_stream=True)
        return False


@pytest.fixture(scope="module")
def h2_upstream() -> Iterator[Http2Upstream]:
    server = Http2Upstream()
    yield server
    server.close()


def _post(lib: ModuleType, url: str, read: float = 5.0) -> object:
    with lib.Client(http1=False, http2=True, timeout=lib.Timeout(5.0, read=read)) as client:
        response = client.post(url, json={"order": 1})
        assert response.http_version == "HTTP/2"
        return response.raise_for_status()


@pytest.mark.parametrize("lib", LIBS)
def test_the_server_speaks_http2(lib: ModuleType, h2_upstream: Http2Upstream) -> None:
    _post(lib, f"{h2_upstream.url}/ok")


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    (404, None, C.NOT_FOUND, False, None),
    (429, "3", C.RATE_LIMITED, False, 3.0),
    (502, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "4", C.UPSTREAM_UNAVAILABLE, False, 4.0),
])
def test_status_over_http2(lib: ModuleType, h2_upstream: Http2Upstream, status: int, retry_after: str | None,
                           failure_class: C, side_effect: bool, wait: float | None) -> None:
    query = f"?retry_after={retry_after}" if retry_after else ""
    exc = raised(lambda: _post(lib, f"{h2_upstream.url}/status/{status}{query}"))
    assert isinstance(exc, lib.HTTPStatusError)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))
    assert result.upstream.address == f"{HOST}:{h2_upstream.port}"


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    ("REFUSED_STREAM", C.UPSTREAM_UNAVAILABLE, False),  # §8.7: closed before any processing
    ("ENHANCE_YOUR_CALM", C.RATE_LIMITED, False),  # §7: excessive load from this client
    ("HTTP_1_1_REQUIRED", C.UPSTREAM_UNAVAILABLE, False),  # refused for its protocol
    ("INTERNAL_ERROR", C.UPSTREAM_UNAVAILABLE, True),  # failed while handling it
    ("CANCEL", C.UPSTREAM_UNAVAILABLE, True),  # the server gave up on a stream it had
])
def test_stream_reset(lib: ModuleType, h2_upstream: Http2Upstream, code: str, failure_class: C,
                      side_effect: bool) -> None:
    exc = raised(lambda: _post(lib, f"{h2_upstream.url}/reset/{code}"))
    assert isinstance(exc, lib.RemoteProtocolError)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http2", code)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize(("code", "failure_class"), [
    ("NO_ERROR", C.UPSTREAM_UNAVAILABLE),  # a graceful shutdown that did not take the request
    ("ENHANCE_YOUR_CALM", C.RATE_LIMITED),
    ("INTERNAL_ERROR", C.UPSTREAM_UNAVAILABLE),
])
def test_goaway_before_the_stream(lib: ModuleType, h2_upstream: Http2Upstream, code: str, failure_class: C) -> None:
    """A GOAWAY whose last processed stream is below the request's (here 0): RFC 9113 §6.8 says that request
    was not processed, whatever the code."""
    exc = raised(lambda: _post(lib, f"{h2_upstream.url}/goaway/{code}"))
    assert isinstance(exc, lib.RemoteProtocolError)
    result = check(exc, failure_class, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http2", code)


@pytest.mark.parametrize("lib", LIBS)
def test_goaway_after_the_stream(lib: ModuleType, h2_upstream: Http2Upstream) -> None:
    """A GOAWAY that counts the request's stream among those it may have processed, and then no answer."""
    exc = raised(lambda: _post(lib, f"{h2_upstream.url}/goaway-after/INTERNAL_ERROR"))
    assert isinstance(exc, lib.RemoteProtocolError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("lib", LIBS)
def test_read_timeout_over_http2(lib: ModuleType, h2_upstream: Http2Upstream) -> None:
    exc = raised(lambda: _post(lib, f"{h2_upstream.url}/stall", read=0.3))
    assert isinstance(exc, lib.ReadTimeout)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("lib", LIBS)
def test_http1_server_spoken_to_in_http2(lib: ModuleType) -> None:
    """Prior knowledge to a server that only speaks HTTP/1.1: it answers the connection preface with a 400 and
    closes; the client reads no HTTP/2 frame. The request never reached an application."""
    from tests.classification.upstreams import HttpUpstream

    with HttpUpstream() as server:
        exc = raised(lambda: _post(lib, f"{server.url}/ok"))
    assert isinstance(exc, lib.TransportError)  # a closed stream or a broken pipe, whichever the client meets first
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
