"""Real failure modes on 127.0.0.1, for the classification corpus: raw sockets, no framework.

Each one is what a tool's upstream really does when it fails: a port nobody listens on, a listener
whose accept queue is full (the handshake never completes), a listener that accepts and never reads,
and a small HTTP server whose paths answer a status (with or without ``Retry-After``), stall after
reading the request, drop the connection after reading it, or answer a TLS ClientHello or HTTP/2's preface with a 400;
and a UDP DNS responder whose names pick its answer.
"""

from __future__ import annotations

import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import dns.message
import dns.rcode
import dns.rrset

__all__ = ["HOST", "UNRESOLVABLE", "HttpUpstream", "answering", "closed_port", "closing_listener", "dns_responder",
           "full_backlog", "silent_listener", "wait_ready"]

HOST = "127.0.0.1"
UNRESOLVABLE = "upstream.errscope.invalid"
"""A name under the reserved ``.invalid`` TLD (RFC 6761 §6.4): it never resolves."""
STALL_LIMIT = 30.0
"""Seconds a stalled handler waits at most, should a test forget to stop its server."""


def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and has no listener now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@contextmanager
def dns_responder() -> Iterator[int]:
    """A UDP DNS responder on 127.0.0.1 (RFC 1035 response codes), by the query's first label: ``missing.`` answers
    NXDOMAIN, ``broken.`` SERVFAIL, ``refusing.`` REFUSED, ``empty.`` no records, ``garbage.`` bytes that are no DNS
    message, ``silent.`` nothing; any other name one A record. Yields its port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((HOST, 0))
    codes = {"missing": dns.rcode.NXDOMAIN, "broken": dns.rcode.SERVFAIL, "refusing": dns.rcode.REFUSED,
             "empty": dns.rcode.NOERROR}

    def serve() -> None:
        while True:
            try:
                data, peer = sock.recvfrom(4096)
            except OSError:
                return
            query = dns.message.from_wire(data)
            label = query.question[0].name.labels[0].decode()
            if label == "silent":
                continue
            if label == "garbage":
                sock.sendto(data[:2] + b"\x81", peer)
                continue
            response = dns.message.make_response(query)
            response.set_rcode(codes.get(label, dns.rcode.NOERROR))
            if label not in codes:
                response.answer.append(dns.rrset.from_text(query.question[0].name, 60, "IN", "A", "127.0.0.1"))
            sock.sendto(response.to_wire(), peer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def wait_ready(probe: Callable[[], object], process: subprocess.Popen[bytes], *, seconds: float = 30) -> None:
    """Call ``probe`` until it stops raising, while ``process`` (the server it probes) still runs."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            probe()
            return
        except Exception:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.05)


@contextmanager
def per_connection(handle: Callable[[socket.socket], object]) -> Iterator[int]:
    """A listener on 127.0.0.1 running ``handle(conn)`` in a thread for each connection; yields its port."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(16)

        def serve() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                threading.Thread(target=handle, args=(conn,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        yield int(sock.getsockname()[1])
        sock.shutdown(socket.SHUT_RDWR)


@contextmanager
def silent_listener() -> Iterator[int]:
    """A listener that completes the TCP handshake (kernel backlog) and never reads or answers."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(64)
        yield int(sock.getsockname()[1])


@contextmanager
def closing_listener(greeting: bytes = b"", *, read_first: bool = False) -> Iterator[int]:
    """A listener that accepts each connection, sends ``greeting`` (nothing by default) and closes it:
    a server that is not what the client expects, drops it before its greeting (SSH, SMTP, AMQP), or
    greets with a refusal (SMTP's ``421``). With ``read_first`` it reads the request first, so the
    close is an orderly end of stream (FIN) after the request arrived, not a reset of unread data."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(64)

        def serve() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                with conn:
                    if read_first:
                        conn.recv(65536)
                    conn.sendall(greeting)
                    if read_first:
                        _half_close_and_drain(conn)

        threading.Thread(target=serve, daemon=True).start()
        yield int(sock.getsockname()[1])
        sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() before the descriptor is freed


def _half_close_and_drain(conn: socket.socket) -> None:
    """Ends our side (FIN) and reads what is still on its way until the client closes: a request body
    written after its headers then never meets a closed socket, which the kernel would answer with a
    reset (the client would see a read error instead of an end of stream, depending on timing)."""
    conn.shutdown(socket.SHUT_WR)
    conn.settimeout(5)
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass


@contextmanager
def full_backlog() -> Iterator[int]:
    """A listener whose accept queue is full: Linux drops further SYNs, so a connect times out."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(0)
        port = int(sock.getsockname()[1])
        fillers: list[socket.socket] = []
        try:
            for _ in range(4):  # backlog 0 still queues one; extra ones sit in SYN-SENT
                filler = socket.socket()
                filler.setblocking(False)
                filler.connect_ex((HOST, port))
                fillers.append(filler)
            yield port
        finally:
            for filler in fillers:
                filler.close()


@contextmanager
def answering(status: int, body: bytes | str = b"", headers: dict[str, str] | None = None) -> Iterator[int]:
    """An HTTP server whose every path answers ``status`` with ``headers`` and ``body``: for clients that take
    a host and port, not a base URL (MinIO, ClickHouse), so :meth:`HttpUpstream.scripted`'s path cannot help."""
    with HttpUpstream() as server:
        server.answer_all = (status, [f"{name}: {value}" for name, value in (headers or {}).items()],
                             body.encode() if isinstance(body, str) else body)
        yield server.port


def read_request(conn: socket.socket) -> bytes | None:
    """Read one HTTP request whole (head and a ``Content-Length`` body), so that closing after it sends a FIN, not a
    reset for unread bytes; its head, the bytes read when they open a TLS handshake, ``None`` at a closed connection."""
    data = b""
    conn.settimeout(STALL_LIMIT)
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if data.startswith(b"\x16"):
            return data
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head


class HttpUpstream:
    """A threaded HTTP/1.1 server on 127.0.0.1 with one failure mode per path.

    ``/status/<code>[?retry_after=<value>]`` answers that status (JSON body, ``Connection: close``);
    ``/stall`` reads the request and never answers; ``/drop`` reads the request and resets the
    connection; ``/ok`` answers 200. A TLS ClientHello gets a plain-text 400. Every path under
    ``/stall/`` and ``/drop/`` behaves the same (an SDK appends its own paths to a base URL), and
    :meth:`scripted` makes a base URL under which every path answers one status, headers and body
    (an API's own error format: OpenAI's JSON, S3's XML, DynamoDB's JSON).
    """

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((HOST, 0))
        self._sock.listen(64)
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://{HOST}:{self.port}"
        self._stop = threading.Event()
        self._scripts: list[tuple[int, list[str], bytes]] = []
        self.answer_all: tuple[int, list[str], bytes] | None = None
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def __enter__(self) -> HttpUpstream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def failing(self, where: str) -> str:
        """A base URL that fails one way: ``refused`` (a closed port), ``unresolvable`` (a name that
        never resolves), ``drop`` (reset after the request was read), ``stall`` (never answered)."""
        if where == "refused":
            return f"http://{HOST}:{closed_port()}"
        if where == "unresolvable":
            return f"http://{UNRESOLVABLE}:8080"
        return f"{self.url}/{where}"

    def scripted(self, status: int, body: bytes | str = b"", headers: dict[str, str] | None = None) -> str:
        """A base URL under which every request answers ``status`` with ``headers`` and ``body``."""
        data = body.encode() if isinstance(body, str) else body
        self._scripts.append((status, [f"{name}: {value}" for name, value in (headers or {}).items()], data))
        return f"{self.url}/scripted/{len(self._scripts) - 1}"

    def close(self) -> None:
        self._stop.set()
        # Wake the blocked accept() before the descriptor is freed: a later listener given the same
        # descriptor number would otherwise have its connections accepted by this server's thread.
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(5)
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                head = read_request(conn)
            except OSError:
                return
            if head is None:
                return
            if head.startswith((b"\x16", b"PRI * HTTP/2.0")):  # TLS, or HTTP/2's preface: it speaks HTTP/1.1 only
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
            url = urlsplit(target)
            if self.answer_all is not None:
                self._answer(conn, *self.answer_all)
            elif url.path.split("/")[1] == "stall":
                self._stop.wait(STALL_LIMIT)
            elif url.path.split("/")[1] == "drop":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close
            elif url.path.startswith("/status/"):
                status = int(url.path.rsplit("/", 1)[1])
                query = parse_qs(url.query)
                headers = [f"Retry-After: {value}" for value in query.get("retry_after", [])]
                self._answer(conn, status, headers)
            elif url.path.startswith("/scripted/"):
                status, headers, body = self._scripts[int(url.path.split("/")[2])]
                self._answer(conn, status, headers, body)
            else:
                self._answer(conn, 200, [])

    @staticmethod
    def _answer(conn: socket.socket, status: int, headers: list[str], body: bytes = b'{"error": "upstream said no"}') -> None:
        content_type = [] if any(h.lower().startswith("content-type:") for h in headers) else ["Content-Type: application/json"]
        lines = [f"HTTP/1.1 {status} Upstream", *content_type, f"Content-Length: {len(body)}",
                 "Connection: close", *headers]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
