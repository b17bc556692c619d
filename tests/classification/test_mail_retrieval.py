"""The standard library's mail-retrieval clients, ``imaplib`` and ``poplib``, against scripted
servers on 127.0.0.1 that answer with the protocols' own response codes: IMAP's (RFC 5530, in
brackets after NO/BAD) and POP3's extended ones (RFC 2449 §8, RFC 3206, after -ERR), or that close the connection
after a command: an IMAP change whose completion was lost may have been made; a POP3 session closed before QUIT
removed nothing (RFC 1939 §6)."""

from __future__ import annotations

import imaplib
import poplib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port


@contextmanager
def line_server(greeting: bytes, replies: dict[bytes, bytes]) -> Iterator[int]:
    """A server that sends ``greeting``, then answers each line by its command word (the first
    word, or the second after an IMAP tag) with ``replies[command]`` (``{tag}`` filled in); a
    command it has no reply for closes the connection."""
    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(8)

    def serve(conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as lines:
            conn.sendall(greeting)
            for line in lines:
                words = line.split()
                command = next((word.upper() for word in words[:2] if word.upper() in replies), None)
                if command is None:
                    return
                conn.sendall(replies[command].replace(b"{tag}", words[0]))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()


IMAP_GREETING = b"* OK IMAP4rev1 ready\r\n"
IMAP_CAPABILITY = b"* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n{tag} OK CAPABILITY completed\r\n"


def _imap_login(port: int) -> None:
    imap = imaplib.IMAP4(HOST, port, timeout=5)
    try:
        imap.login("refunds@corp.test", "wrong")
    finally:
        imap.shutdown()


class TestImaplib:
    @pytest.mark.parametrize(("reply", "failure_class"), [
        (b"{tag} NO [AUTHENTICATIONFAILED] Authentication failed\r\n", C.PERMISSION_DENIED),
        (b"{tag} NO [AUTHORIZATIONFAILED] Not allowed to log in as that user\r\n", C.PERMISSION_DENIED),
        (b"{tag} NO [EXPIRED] Password expired\r\n", C.PERMISSION_DENIED),
        (b"{tag} NO [UNAVAILABLE] Backend unavailable, try later\r\n", C.UPSTREAM_UNAVAILABLE),
        (b"{tag} NO [LIMIT] Too many sessions\r\n", C.RATE_LIMITED),
    ])
    def test_login_refused_with_code(self, reply: bytes, failure_class: C) -> None:
        with line_server(IMAP_GREETING, {b"CAPABILITY": IMAP_CAPABILITY, b"LOGIN": reply}) as port:
            exc = raised(lambda: _imap_login(port))
        assert type(exc) is imaplib.IMAP4.error
        check(exc, failure_class, False)

    def test_greeting_says_bye(self) -> None:
        with line_server(b"* BYE [UNAVAILABLE] Server shutting down\r\n", {}) as port:
            exc = raised(lambda: _imap_login(port))
        assert isinstance(exc, imaplib.IMAP4.error)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_closed_after_login_sent(self) -> None:
        with line_server(IMAP_GREETING, {b"CAPABILITY": IMAP_CAPABILITY}) as port:
            exc = raised(lambda: _imap_login(port))
        assert isinstance(exc, imaplib.IMAP4.abort)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)

    @pytest.mark.parametrize("command", ["append", "store"])
    def test_closed_before_a_change_completed(self, command: str) -> None:
        # the command went out (APPEND's message too) and its tagged completion never came: the mailbox may have changed
        replies = {b"CAPABILITY": IMAP_CAPABILITY, b"LOGIN": b"{tag} OK LOGIN completed\r\n",
                   b"SELECT": b"* 1 EXISTS\r\n{tag} OK [READ-WRITE] SELECT completed\r\n", b"APPEND": b"+ Ready\r\n"}

        def change(port: int) -> None:
            imap = imaplib.IMAP4(HOST, port, timeout=5)
            imap.login("refunds@corp.test", "secret")
            if command == "append":
                imap.append("INBOX", None, None, b"Subject: refund 42\r\n\r\napproved\r\n")
            else:
                imap.select("INBOX")
                imap.store("1", "+FLAGS", "\\Deleted")

        with line_server(IMAP_GREETING, replies) as port:
            exc = raised(lambda: change(port))
        assert isinstance(exc, imaplib.IMAP4.abort)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"

    def test_connection_refused(self) -> None:
        exc = raised(lambda: _imap_login(closed_port()))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


def _pop_login(port: int) -> None:
    pop = poplib.POP3(HOST, port, timeout=5)
    try:
        pop.user("refunds")
        pop.pass_("wrong")
    finally:
        pop.close()


class TestPoplib:
    @pytest.mark.parametrize(("reply", "failure_class"), [
        (b"-ERR [AUTH] Invalid credentials\r\n", C.PERMISSION_DENIED),
        (b"-ERR [IN-USE] Mailbox locked by another session\r\n", C.UPSTREAM_UNAVAILABLE),
        (b"-ERR [SYS/TEMP] Storage offline\r\n", C.UPSTREAM_UNAVAILABLE),
        (b"-ERR [LOGIN-DELAY] Wait before logging in again\r\n", C.RATE_LIMITED),
    ])
    def test_login_refused_with_code(self, reply: bytes, failure_class: C) -> None:
        with line_server(b"+OK POP3 ready\r\n", {b"USER": b"+OK\r\n", b"PASS": reply}) as port:
            exc = raised(lambda: _pop_login(port))
        assert isinstance(exc, poplib.error_proto)
        check(exc, failure_class, False)

    def test_greeting_refuses(self) -> None:
        with line_server(b"-ERR [SYS/TEMP] Too busy\r\n", {}) as port:
            exc = raised(lambda: _pop_login(port))
        assert isinstance(exc, poplib.error_proto)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    @pytest.mark.parametrize(("last", "side_effect"), [
        (b"DELE", False),  # a session ended without QUIT never enters UPDATE: nothing is removed (RFC 1939 §6)
        (b"QUIT", True),  # QUIT's answer lost: the marked messages may have been removed
    ])
    def test_closed_after_a_command(self, last: bytes, side_effect: bool) -> None:
        answered = {b"USER": b"+OK\r\n", b"PASS": b"+OK logged in\r\n", b"DELE": b"+OK marked\r\n"}
        replies = {command: reply for command, reply in answered.items() if command != last}  # ``last`` closes it

        def delete(port: int) -> None:
            pop = poplib.POP3(HOST, port, timeout=5)
            pop.user("refunds")
            pop.pass_("secret")
            pop.dele(1)
            pop.quit()

        with line_server(b"+OK POP3 ready\r\n", replies) as port:
            exc = raised(lambda: delete(port))
        assert isinstance(exc, poplib.error_proto) and exc.args == ("-ERR EOF",)  # poplib's words for the closed stream
        result = check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"

    def test_connection_refused(self) -> None:
        exc = raised(lambda: _pop_login(closed_port()))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
