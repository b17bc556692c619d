"""TLS servers that refuse the client during the handshake, on 127.0.0.1: mutual TLS without a client
certificate or with one from another CA (the server's alert: certificate_required, unknown_ca; RFC 8446 §6.2),
over TLS 1.3 (the client has already written its request when the alert arrives) and TLS 1.2 (the handshake
fails), and a server that speaks only TLS 1.3 to a client capped at 1.2 (protocol_version).

The certificates (a CA, the server's, a client's, and a client's from another CA) are made by the ``openssl``
command; the server is the standard library's ``ssl`` in a thread. The server rejected the connection before
it read any request: nothing was acted on. A refused client certificate is the tool's credential refused:
``permission_denied``; a protocol the two sides do not share is ``upstream_unavailable``.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import tempfile
import threading
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import pytest
import requests

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST
from tests.conftest import require_executable


@dataclass(frozen=True)
class Pki:
    directory: Path

    def __getitem__(self, name: str) -> str:
        return str(self.directory / name)


def _issue(openssl: str, pki: Path, name: str, subject: str, issuer: str | None, *extensions: str) -> None:
    key, cert = pki / f"{name}.key", pki / f"{name}.pem"
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key)]
    if issuer is None:  # a CA
        subprocess.run([openssl, "req", "-x509", *ec, "-out", str(cert), "-days", "1", "-subj", subject,
                        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=keyCertSign"],
                       check=True, capture_output=True)
        return
    csr = pki / f"{name}.csr"
    subprocess.run([openssl, "req", "-new", *ec, "-out", str(csr), "-subj", subject], check=True, capture_output=True)
    ext = pki / f"{name}.ext"
    ext.write_text("\n".join(extensions) + "\n")
    subprocess.run([openssl, "x509", "-req", "-in", str(csr), "-CA", str(pki / f"{issuer}.pem"), "-CAkey",
                    str(pki / f"{issuer}.key"), "-CAcreateserial", "-out", str(cert), "-days", "1", "-extfile",
                    str(ext)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki() -> Iterator[Pki]:
    openssl = require_executable("openssl")
    with tempfile.TemporaryDirectory(prefix="errscope-pki-") as tmp:
        directory = Path(tmp)
        _issue(openssl, directory, "ca", "/CN=corpus CA", None)
        _issue(openssl, directory, "other-ca", "/CN=someone else's CA", None)
        _issue(openssl, directory, "server", "/CN=localhost", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1",
               "extendedKeyUsage=serverAuth")
        _issue(openssl, directory, "client", "/CN=tool", "ca", "extendedKeyUsage=clientAuth")
        _issue(openssl, directory, "stranger", "/CN=tool", "other-ca", "extendedKeyUsage=clientAuth")
        yield Pki(directory)


def _refuse(context: ssl.SSLContext, conn: socket.socket) -> None:
    """Run the server's side of the handshake over memory buffers, so that when it fails (the point) the alert
    it wrote is sent, and the connection then closes the way a server does that reads what the client had sent
    (no reset that would overtake the alert)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_side=True)
    conn.settimeout(2)
    try:
        while True:
            try:
                tls.do_handshake()
                return  # no case of this module gets here
            except ssl.SSLWantReadError:
                conn.sendall(outgoing.read())
                data = conn.recv(65536)
                if not data:
                    return
                incoming.write(data)
    except ssl.SSLError:
        try:
            conn.sendall(outgoing.read())
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):
                pass
        except OSError:
            pass
    except OSError:
        pass
    finally:
        conn.close()


def _serve(context: ssl.SSLContext) -> Iterator[int]:
    with socket.socket() as listener:
        listener.bind((HOST, 0))
        listener.listen(16)

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=_refuse, args=(context, conn), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        yield int(listener.getsockname()[1])
        listener.shutdown(socket.SHUT_RDWR)


SERVERS = {
    # name: (the server's TLS versions, whether it asks for a client certificate)
    "mtls_1.3": (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_3, True),
    "mtls_1.2": (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_2, True),
    "only_1.3": (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_3, False),
}


@pytest.fixture(scope="module")
def servers(pki: Pki) -> Iterator[dict[str, int]]:
    ports: dict[str, int] = {}
    running = []
    for name, (lowest, highest, mutual) in SERVERS.items():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version, context.maximum_version = lowest, highest
        context.load_cert_chain(pki["server.pem"], pki["server.key"])
        if mutual:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(pki["ca.pem"])
        server = _serve(context)
        ports[name] = next(server)
        running.append(server)
    yield ports
    for server in running:
        next(server, None)


@dataclass(frozen=True)
class Attempt:
    """A client's TLS settings: trust the corpus CA, present ``cert`` (or none), speak TLS up to ``highest``."""

    url: str
    cafile: str
    cert: tuple[str, str] | None
    highest: ssl.TLSVersion | None

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.cafile)
        if self.cert is not None:
            context.load_cert_chain(*self.cert)
        if self.highest is not None:
            context.maximum_version = self.highest
        return context


def _ssl_socket(attempt: Attempt) -> None:
    port = int(attempt.url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection((HOST, port), timeout=5) as raw:
        with attempt.context().wrap_socket(raw, server_hostname=HOST) as conn:
            conn.sendall(b"GET / HTTP/1.1\r\nHost: upstream\r\n\r\n")
            conn.recv(65536)


def _urllib(attempt: Attempt) -> None:
    with urllib.request.urlopen(attempt.url, timeout=5, context=attempt.context()) as response:
        response.read()


def _requests(attempt: Attempt) -> None:
    requests.get(attempt.url, timeout=5, verify=attempt.cafile, cert=attempt.cert)


async def _aiohttp(attempt: Attempt) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(attempt.url, ssl=attempt.context()) as response:
            await response.read()


CLIENTS: dict[str, Callable[[Attempt], Any]] = {
    "ssl": _ssl_socket,
    "urllib": _urllib,
    "httpx": lambda attempt: httpx.get(attempt.url, timeout=5, verify=attempt.context()),
    "aiohttp": _aiohttp,
    "requests": _requests,
}

CASES = [
    # (server, client certificate, the client's highest version, class)
    ("mtls_1.3", None, None, C.PERMISSION_DENIED),
    ("mtls_1.3", "stranger", None, C.PERMISSION_DENIED),
    ("mtls_1.2", None, None, C.PERMISSION_DENIED),
    ("mtls_1.2", "stranger", None, C.PERMISSION_DENIED),
    ("only_1.3", None, ssl.TLSVersion.TLSv1_2, C.UPSTREAM_UNAVAILABLE),
]


@pytest.mark.parametrize(("client", "server", "cert", "highest", "failure_class"), [
    pytest.param(client, *case, id=f"{client}-{case[0]}-{case[1] or 'no_cert'}{'-client_1.2' if case[2] else ''}")
    for case in CASES for client in CLIENTS
    if not (client == "requests" and case[2])])  # requests takes no TLS version cap without an adapter of its own
def test_handshake_refused(pki: Pki, servers: dict[str, int], client: str, server: str, cert: str | None,
                           highest: ssl.TLSVersion | None, failure_class: C) -> None:
    attempt = Attempt(f"https://{HOST}:{servers[server]}/", pki["ca.pem"],
                      (pki[f"{cert}.pem"], pki[f"{cert}.key"]) if cert else None, highest)
    exc = raised(lambda: CLIENTS[client](attempt))
    check(exc, failure_class, False)

