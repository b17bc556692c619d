"""Certificate failures against a real TLS server on 127.0.0.1 with a self-signed certificate.

The certificate (made by the ``openssl`` command for ``localhost``) is either not trusted at all,
or trusted and reached by another name (127.0.0.1): the handshake fails before any request byte
is sent, whatever the client library.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx
import pytest
import requests
import websockets.asyncio.client

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST
from tests.conftest import require_executable


@dataclass(frozen=True)
class TlsServer:
    port: int
    cafile: str

    def url(self, host: str = "localhost", scheme: str = "https") -> str:
        return f"{scheme}://{host}:{self.port}/"


@pytest.fixture(scope="module")
def tls() -> Iterator[TlsServer]:
    openssl = require_executable("openssl")
    with tempfile.TemporaryDirectory(prefix="errscope-tls-") as tmp:
        cert, key = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
        subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                       check=True, capture_output=True)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        listener = socket.socket()
        listener.bind((HOST, 0))
        listener.listen(16)

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                try:  # the client aborts the handshake: that is the point
                    with context.wrap_socket(conn, server_side=True) as tls_conn:
                        tls_conn.recv(65536)
                        tls_conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass

        threading.Thread(target=serve, daemon=True).start()
        yield TlsServer(int(listener.getsockname()[1]), str(cert))
        listener.close()


CASES = ["self-signed", "wrong-name"]
"""Not trusted at all (the default trust store), or trusted and reached under another name."""


def _target(tls: TlsServer, case: str) -> tuple[str, ssl.SSLContext]:
    if case == "self-signed":
        return tls.url("localhost"), ssl.create_default_context()
    return tls.url(HOST), ssl.create_default_context(cafile=tls.cafile)


@pytest.mark.parametrize("case", CASES)
class TestCertificate:
    def test_ssl_socket(self, tls: TlsServer, case: str) -> None:
        url, context = _target(tls, case)
        host = url.split("//")[1].split(":")[0]

        def handshake() -> None:
            with socket.create_connection((HOST, tls.port), timeout=5) as sock:
                context.wrap_socket(sock, server_hostname=host)

        exc = raised(handshake)
        assert isinstance(exc, ssl.SSLCertVerificationError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_urllib(self, tls: TlsServer, case: str) -> None:
        url, context = _target(tls, case)
        exc = raised(lambda: urllib.request.urlopen(url, data=b"{}", timeout=5, context=context))
        assert isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, ssl.SSLCertVerificationError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_httpx(self, tls: TlsServer, case: str) -> None:
        url, context = _target(tls, case)
        exc = raised(lambda: httpx.post(url, json={}, verify=context, timeout=5))
        assert isinstance(exc, httpx.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_requests(self, tls: TlsServer, case: str) -> None:
        url, _ = _target(tls, case)
        verify: bool | str = True if case == "self-signed" else tls.cafile
        exc = raised(lambda: requests.post(url, json={}, verify=verify, timeout=5))
        assert isinstance(exc, requests.exceptions.SSLError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_aiohttp(self, tls: TlsServer, case: str) -> None:
        url, context = _target(tls, case)

        async def post() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.post(url, json={}, ssl=context, timeout=aiohttp.ClientTimeout(total=5)):
                    pass

        exc = raised(post)
        assert isinstance(exc, aiohttp.ClientConnectorCertificateError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_websockets(self, tls: TlsServer, case: str) -> None:
        url, context = _target(tls, case)

        async def connect() -> None:
            async with websockets.asyncio.client.connect(url.replace("https", "wss"), ssl=context, open_timeout=5):
                pass

        exc = raised(connect)
        assert isinstance(exc, ssl.SSLCertVerificationError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
