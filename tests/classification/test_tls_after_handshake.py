"""HTTPS clients whose upstream completed the TLS handshake, read the request, then failed: it closed the connection
with no answer (a TCP FIN with no ``close_notify``, or a ``close_notify``), reset it, never answered, or cut the body
short of its ``Content-Length`` or stalled in it.

The handshake is over, so none of this is the handshake's "nothing sent" (RFC 8446 §2: the request crosses only after
it): the upstream had the request and may have acted, whatever the client files the failure under (urllib3's
``ProtocolError``, http.client's ``RemoteDisconnected`` or ``IncompleteRead``, a bare ``TimeoutError`` out of the
``ssl`` module's read). And the upstream is named: urllib and http.client raise builtins that keep no URL, so the
connection their frames were using (``HTTPConnection.getresponse``) names the host.
"""

from __future__ import annotations

import asyncio
import http.client
import socket
import ssl
import struct
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest
import requests
import urllib3

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, per_connection, read_request as _read_request
from tests.conftest import require_executable

SHORT = 0.3
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = require_executable("openssl")
    tmp = tmp_path_factory.mktemp("tls-after-handshake")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", f"subjectAltName=IP:{HOST}"],
                   check=True, capture_output=True)
    return cert, key


def _close(conn: ssl.SSLSocket) -> None:
    conn.shutdown(socket.SHUT_RDWR)  # SSLSocket.shutdown sends no close_notify: a bare TCP FIN


def _notify(conn: ssl.SSLSocket) -> None:
    conn.unwrap()  # close_notify (RFC 8446 §6.1), then the TCP connection closes


def _reset(conn: ssl.SSLSocket) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close


STOP = threading.Event()
FAILURES: dict[str, Callable[[ssl.SSLSocket], object]] = {
    "closed_without_answer": _close,
    "close_notify_without_answer": _notify,
    "reset_after_request": _reset,
    "never_answered": lambda conn: STOP.wait(5),
    "body_cut_short": lambda conn: (conn.sendall(HEAD + b'{"items": ['), _close(conn)),
    "body_stalls": lambda conn: (conn.sendall(HEAD + b'{"items": ['), STOP.wait(5)),
}


@pytest.fixture(params=list(FAILURES))
def failing(request: pytest.FixtureRequest, certificate: tuple[Path, Path]) -> Iterator[int]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)

    def handle(raw: socket.socket) -> None:
        try:
            with context.wrap_socket(raw, server_side=True) as conn:
                _read_request(conn)
                FAILURES[request.param](conn)
        except OSError:
            pass

    STOP.clear()
    with per_connection(handle) as port:
        yield port
        STOP.set()


def _requests(url: str, cafile: str) -> None:
    requests.post(url, json={"a": 1}, timeout=(5, SHORT), verify=cafile).raise_for_status()


def _urllib3(url: str, cafile: str) -> None:
    urllib3.PoolManager(ca_certs=cafile).request("POST", url, json={"a": 1}, retries=False,
                                                 timeout=urllib3.Timeout(connect=5, read=SHORT))


def _urllib(url: str, cafile: str) -> None:
    context = ssl.create_default_context(cafile=cafile)
    with urllib.request.urlopen(urllib.request.Request(url, data=b'{"a": 1}'), timeout=SHORT, context=context) as answer:
        answer.read()


def _http_client(url: str, cafile: str) -> None:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    connection = http.client.HTTPSConnection(HOST, port, timeout=SHORT, context=ssl.create_default_context(cafile=cafile))
    try:
        connection.request("POST", "/orders", body=b'{"a": 1}', headers={"Content-Type": "application/json"})
        connection.getresponse().read()
    finally:
        connection.close()


def _httpx(url: str, cafile: str) -> None:
    httpx.post(url, json={"a": 1}, timeout=httpx.Timeout(5, read=SHORT), verify=ssl.create_default_context(cafile=cafile))


async def _aiohttp(url: str, cafile: str) -> None:
    context = ssl.create_default_context(cafile=cafile)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5, sock_read=SHORT)) as session:
        async with session.post(url, json={"a": 1}, ssl=context) as answer:
            await answer.read()


CLIENTS = {"requests": _requests, "urllib3": _urllib3, "urllib": _urllib, "http.client": _http_client, "httpx": _httpx,
           "aiohttp": _aiohttp}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_failed_after_the_handshake(client: str, failing: int, certificate: tuple[Path, Path]) -> None:
    url = f"https://{HOST}:{failing}/orders"
    exc = raised(lambda: CLIENTS[client](url, str(certificate[0])))
    assert not isinstance(exc, asyncio.CancelledError)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{failing}", result.upstream
