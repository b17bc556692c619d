"""smtplib (standard library) and aiosmtplib against a real SMTP server on 127.0.0.1 (aiosmtpd) whose
handlers refuse with the reply codes mail servers send (RFC 5321 §4.2, RFC 4954 §6 for AUTH, with
RFC 3463 enhanced codes), a greeting that refuses service (421), a listener that closes at once, and a server that
drops the session mid-transaction (after the final dot the mail may have been taken: RFC 1047).

The reply code decides: 4yz transient (upstream_unavailable), 535 and 5.7.x denials, 550 "mailbox
unavailable" (not_found), 552/553 a message or address the server will not take (invalid_input);
a refused command never sent the mail on. aiosmtplib names the code ``code``: it must not be read as
an HTTP status.
"""

from __future__ import annotations

import smtplib
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from errscope import FailureClass as C
from errscope import Upstream
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, closing_listener, per_connection

# The recipient's local part picks the handler's reply; "data-" ones are accepted and refused at DATA.
REPLIES = {
    "gone": "550 5.1.1 No such user",
    "busy": "450 4.2.1 Mailbox busy, try again later",
    "relay": "550 5.7.1 Relaying denied",
    "badname": "553 5.1.3 Mailbox name not allowed",
    "data-full": "452 4.3.1 Insufficient system storage",
    "data-big": "552 5.3.4 Message size exceeds fixed limit",
}


class _Refusing:
    async def handle_MAIL(  # noqa: N802 - aiosmtpd's hook names
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if address.startswith("shutdown@"):
            return "421 4.3.2 Service shutting down"
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(  # noqa: N802
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        local = address.split("@")[0]
        if local in REPLIES and not local.startswith("data-"):
            return REPLIES[local]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        return REPLIES.get(envelope.rcpt_tos[0].split("@")[0], "250 OK")


def _deny(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
    return AuthResult(success=False, handled=False)


@pytest.fixture(scope="module")
def smtp_port() -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = int(probe.getsockname()[1])
    controller = Controller(_Refusing(), hostname=HOST, port=port, authenticator=_deny, auth_require_tls=False)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


@pytest.fixture
def refusing_greeting() -> Iterator[int]:
    """A server whose greeting is ``421``: service not available (RFC 5321 §3.1)."""
    with closing_listener(b"421 4.3.2 Service not available, closing transmission channel\r\n") as port:
        yield port


def _message(sender: str, recipient: str) -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, recipient, "hi"
    message.set_content("hello")
    return message


# (sender, recipient, smtplib's exception, class): a reply code each
CASES = [
    ("tool@example.org", "gone@example.org", smtplib.SMTPRecipientsRefused, C.NOT_FOUND, "550"),
    ("tool@example.org", "busy@example.org", smtplib.SMTPRecipientsRefused, C.UPSTREAM_UNAVAILABLE, "450"),
    ("tool@example.org", "relay@example.org", smtplib.SMTPRecipientsRefused, C.PERMISSION_DENIED, "550"),
    ("tool@example.org", "badname@example.org", smtplib.SMTPRecipientsRefused, C.INVALID_INPUT, "553"),
    ("shutdown@example.org", "ok@example.org", smtplib.SMTPSenderRefused, C.UPSTREAM_UNAVAILABLE, "421"),
    ("tool@example.org", "data-full@example.org", smtplib.SMTPDataError, C.UPSTREAM_UNAVAILABLE, "452"),
    ("tool@example.org", "data-big@example.org", smtplib.SMTPDataError, C.INVALID_INPUT, "552"),
]


class TestSmtplib:
    @pytest.mark.parametrize(("sender", "recipient", "kind", "failure_class", "code"), CASES)
    def test_reply(self, smtp_port: int, sender: str, recipient: str, kind: type, failure_class: C, code: str) -> None:
        def send() -> None:
            with smtplib.SMTP(HOST, smtp_port, timeout=5) as client:
                client.send_message(_message(sender, recipient))

        exc = raised(send)
        assert type(exc) is kind
        result = check(exc, failure_class, False)
        assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("smtp", code)

    def test_authentication_failed(self, smtp_port: int) -> None:
        def login() -> None:
            with smtplib.SMTP(HOST, smtp_port, timeout=5) as client:
                client.login("tool", "wrong")

        exc = raised(login)
        assert type(exc) is smtplib.SMTPAuthenticationError and exc.smtp_code == 535
        check(exc, C.PERMISSION_DENIED, False)

    def test_greeting_refuses_service(self, refusing_greeting: int) -> None:
        exc = raised(lambda: smtplib.SMTP(HOST, refusing_greeting, timeout=5))
        assert type(exc) is smtplib.SMTPConnectError and exc.smtp_code == 421
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connection_refused(self) -> None:
        exc = raised(lambda: smtplib.SMTP(HOST, closed_port(), timeout=5))
        assert type(exc) is ConnectionRefusedError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_server_closes_before_greeting(self, closing_port: int) -> None:
        exc = raised(lambda: smtplib.SMTP(HOST, closing_port, timeout=5))
        assert type(exc) is smtplib.SMTPServerDisconnected  # raised in SMTP.connect: no mail was sent
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestAiosmtplib:
    @pytest.mark.parametrize(("sender", "recipient", "kind", "failure_class", "code"), CASES)
    def test_reply(self, smtp_port: int, sender: str, recipient: str, kind: type, failure_class: C, code: str) -> None:
        exc = raised(lambda: aiosmtplib.send(_message(sender, recipient), hostname=HOST, port=smtp_port, timeout=5))
        assert isinstance(exc, aiosmtplib.SMTPException)
        result = check(exc, failure_class, False)
        assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("smtp", code)

    def test_authentication_failed(self, smtp_port: int) -> None:
        exc = raised(lambda: aiosmtplib.send(_message("tool@example.org", "ok@example.org"), hostname=HOST,
                                             port=smtp_port, username="tool", password="wrong", timeout=5))
        assert type(exc) is aiosmtplib.SMTPAuthenticationError and exc.code == 535
        check(exc, C.PERMISSION_DENIED, False)

    def test_greeting_refuses_service(self, refusing_greeting: int) -> None:
        exc = raised(lambda: aiosmtplib.SMTP(hostname=HOST, port=refusing_greeting, timeout=5).connect())
        assert isinstance(exc, aiosmtplib.SMTPConnectResponseError) and exc.code == 421
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connection_refused(self) -> None:
        exc = raised(lambda: aiosmtplib.SMTP(hostname=HOST, port=closed_port(), timeout=5).connect())
        assert type(exc) is aiosmtplib.SMTPConnectError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_greeting_never_comes(self, silent_port: int) -> None:
        exc = raised(lambda: aiosmtplib.SMTP(hostname=HOST, port=silent_port, timeout=0.3).connect())
        assert isinstance(exc, aiosmtplib.SMTPConnectTimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_server_closes_before_greeting(self, closing_port: int) -> None:
        exc = raised(lambda: aiosmtplib.SMTP(hostname=HOST, port=closing_port, timeout=5).connect())
        assert type(exc) is aiosmtplib.SMTPConnectError  # raised while connecting: nothing was sent
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


def _dropping_at(step: bytes) -> Any:
    """An SMTP server (RFC 5321's replies, a raw socket) that closes the connection with no reply when the client
    sends ``step``: a command's first word, or ``b"."``, the line that ends the message data."""

    def handle(conn: socket.socket) -> None:
        with conn:
            lines = conn.makefile("rb")
            conn.sendall(b"220 mx.example.org ESMTP\r\n")
            for line in lines:
                if line.split(b" ")[0].strip().upper() == step or line == step + b"\r\n":
                    return
                command = line[:4].upper()
                if command in (b"EHLO", b"HELO"):
                    conn.sendall(b"250 mx.example.org\r\n")
                elif command == b"DATA":
                    conn.sendall(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                elif command in (b"MAIL", b"RCPT"):
                    conn.sendall(b"250 OK\r\n")

    return handle


def _smtplib_send(port: int) -> None:
    with smtplib.SMTP(HOST, port, timeout=5) as client:
        client.send_message(_message("tool@example.org", "ok@example.org"))


async def _aiosmtplib_send(port: int) -> None:
    await aiosmtplib.send(_message("tool@example.org", "ok@example.org"), hostname=HOST, port=port, timeout=5)


@pytest.mark.parametrize("client", ["smtplib", "aiosmtplib"])
@pytest.mark.parametrize(("step", "side_effect"), [
    (b"MAIL", None),  # an envelope command: no mail is taken before the data's reply, but the session's state is open
    (b"DATA", True),  # in the client's data(): whether the message had gone out is not told apart (the safe reading)
    (b".", True),  # the whole message went out, its reply was lost: delivered, and a resend duplicates it (RFC 1047)
], ids=["mail", "data", "final_dot"])
def test_server_drops_the_session(client: str, step: bytes, side_effect: bool | None) -> None:
    with per_connection(_dropping_at(step)) as port:
        exc = raised(lambda: (_smtplib_send if client == "smtplib" else _aiosmtplib_send)(port))
    assert type(exc) is (smtplib.SMTPServerDisconnected if client == "smtplib" else aiosmtplib.SMTPServerDisconnected)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
    assert result.upstream == Upstream("smtp", "SMTPServerDisconnected")
