"""Upstreams on 127.0.0.1 that fail the way real servers do, for the runtime probes (``tests/foreign/probes``).

Nothing here writes an error text: each fault is a socket or HTTP behaviour, and the text is whatever the client
runtime makes of it. :func:`faulty_upstreams` yields ``{fault: url}``; :data:`FAULTS` says what each fault is.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import struct
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Final, NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


class Fault(NamedTuple):
    """What a fault is, by what the upstream did (DESIGN.md: classes; "the same holds one hop further down")."""

    failure_class: str
    sent: bool
    """Whether the request reached the upstream: ``False`` for a refused connect, a connect that timed out, a name that
    does not resolve and a TLS handshake that failed (nothing was written to the upstream)."""
    may_have_acted: bool
    """Whether the upstream may have processed it: a reset or a close after it read the request, a body cut off, a read
    timeout. A 4xx or a 503 refuses the request as a whole (RFC 9110 §15.5, §15.6.4): not acted on."""


FAULTS: Final = {
    "refused": Fault("upstream_unavailable", False, False),  # a port nothing listens on
    "reset": Fault("upstream_unavailable", True, True),  # reads the request, then RST (SO_LINGER 0), no answer
    "hangup": Fault("upstream_unavailable", True, True),  # reads the request, then closes (FIN), no answer
    "cut": Fault("upstream_unavailable", True, True),  # 200 with Content-Length 1000, 11 bytes sent, then closed
    "stall": Fault("upstream_unavailable", True, True),  # reads the request, never answers (past the client's timeout)
    # a listener whose accept queue is full (backlog 0, one connection held): Linux drops the SYN, the connect times out
    "connect_timeout": Fault("upstream_unavailable", False, False),
    "tls_plain": Fault("upstream_unavailable", False, False),  # https:// to a plaintext HTTP server
    "self_signed": Fault("upstream_unavailable", False, False),  # https:// to a server whose certificate signed itself
    "dns": Fault("upstream_unavailable", False, False),  # upstream.invalid (RFC 6761: never resolves)
    "404": Fault("not_found", True, False),
    "401": Fault("permission_denied", True, False),
    "403": Fault("permission_denied", True, False),
    "429": Fault("rate_limited", True, False),  # with Retry-After: 7
    "503": Fault("upstream_unavailable", True, False),  # with Retry-After: 7
}
STATUSES: Final = ("404", "401", "403", "429", "503")


class _Statuses(BaseHTTPRequestHandler):
    """Answers ``/status-<status>`` with that status (429 and 503 with ``Retry-After: 7``). Not ``/<status>``: texts
    that quote the URL (reqwest's, a failed curl command's) would carry the status in its path, which no real
    upstream's URL does."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        status = int(self.path.rpartition("-")[2] or 200)
        body = f'{{"error": "status {status}"}}'.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status in (429, 503):
            self.send_header("Retry-After", "7")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _self_signed(folder: Path) -> ssl.SSLContext:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .sign(key, hashes.SHA256()))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


class _Raw:
    """A listening socket whose every connection is handed to ``behave`` on a thread of its own."""

    def __init__(self, behave: str) -> None:
        self.behave = behave
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.closing = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            conn.recv(65536)  # the request (a GET fits one read on loopback)
        except OSError:
            pass
        if self.behave == "reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
            conn.close()
        elif self.behave == "hangup":
            conn.shutdown(socket.SHUT_RDWR)  # FIN: the request read, the answer never written
            conn.close()
        elif self.behave == "cut":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\npartial bod")
            conn.close()
        else:  # stall: hold the connection open, answer nothing
            self.held.append(conn)

    def close(self) -> None:
        self.closing.set()
        self.sock.close()
        for conn in self.held:
            conn.close()


@contextmanager
def _full_backlog() -> Iterator[int]:
    """A port whose listener never accepts and whose accept queue is full: a new connect's SYN is dropped (Linux's
    tcp_conn_request drops it while the queue is full), so a client's connect times out as to a host that does not
    answer, with nothing written. Yields the port."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as listener, socket.socket() as filler:
        filler.connect(listener.getsockname())  # the one queued connection the backlog holds
        yield listener.getsockname()[1]


@contextmanager
def faulty_upstreams(folder: Path) -> Iterator[dict[str, str]]:
    """Start every fault's upstream on 127.0.0.1; yield ``{fault: url}`` (the keys of :data:`FAULTS`)."""
    with ExitStack() as stack:
        plain = ThreadingHTTPServer(("127.0.0.1", 0), _Statuses)
        secure = ThreadingHTTPServer(("127.0.0.1", 0), _Statuses)
        secure.socket = _self_signed(folder).wrap_socket(secure.socket, server_side=True)
        for server in (plain, secure):
            threading.Thread(target=server.serve_forever, daemon=True).start()
            stack.callback(server.server_close)
            stack.callback(server.shutdown)
        raw = {behave: _Raw(behave) for behave in ("reset", "hangup", "cut", "stall")}
        for server in raw.values():
            stack.callback(server.close)
        full = stack.enter_context(_full_backlog())
        with socket.socket() as closed:  # a port that was free a moment ago: nothing listens on it
            closed.bind(("127.0.0.1", 0))
            refused = closed.getsockname()[1]
        p = plain.server_address[1]
        urls = {
            "refused": f"http://127.0.0.1:{refused}/orders",
            **{behave: f"http://127.0.0.1:{server.port}/orders" for behave, server in raw.items()},
            "connect_timeout": f"http://127.0.0.1:{full}/orders",
            "tls_plain": f"https://127.0.0.1:{p}/status-200",
            "self_signed": f"https://127.0.0.1:{secure.server_address[1]}/status-200",
            "dns": "http://upstream.invalid/orders",
            **{status: f"http://127.0.0.1:{p}/status-{status}" for status in STATUSES},
        }
        yield urls
