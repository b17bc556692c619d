"""Exceptions no rule knows by type or attribute, raised for real: the words their types are named
with decide (the last resort before ``unknown``). The standard library's smtplib and subprocess
stand for any library errscope has never heard of."""

from __future__ import annotations

import smtplib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST


@pytest.fixture
def smtp_port(request: pytest.FixtureRequest) -> Iterator[int]:
    """An SMTP server on 127.0.0.1 that greets, then refuses the login (535) or hangs up."""
    hang_up = request.param == "hang-up"
    with socket.socket() as listener:
        listener.bind((HOST, 0))
        listener.listen(4)

        def serve() -> None:
            conn, _ = listener.accept()
            with conn, conn.makefile("rb") as lines:
                conn.sendall(b"220 upstream ESMTP\r\n")
                lines.readline()  # EHLO
                if hang_up:
                    return
                conn.sendall(b"250-upstream\r\n250 AUTH PLAIN\r\n")
                lines.readline()  # AUTH PLAIN ...
                conn.sendall(b"535 5.7.8 Authentication credentials invalid\r\n")
                lines.readline()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        yield int(listener.getsockname()[1])
        thread.join(5)


def _login(port: int) -> None:
    with smtplib.SMTP(HOST, port, timeout=5) as smtp:
        smtp.login("mailer", "wrong")


@pytest.mark.parametrize("smtp_port", ["refuse-login"], indirect=True)
def test_smtp_login_refused(smtp_port: int) -> None:
    exc = raised(lambda: _login(smtp_port))
    assert isinstance(exc, smtplib.SMTPAuthenticationError)
    check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("smtp_port", ["hang-up"], indirect=True)
def test_smtp_server_hangs_up(smtp_port: int) -> None:
    exc = raised(lambda: _login(smtp_port))
    assert isinstance(exc, smtplib.SMTPServerDisconnected)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_subprocess_timeout() -> None:
    # A helper program that outlives its deadline: it had started and ran until it was killed, so whatever it does
    # may have happened (a timeout after the request left; test_process_runners has sh's, plumbum's and invoke's).
    exc = raised(lambda: subprocess.run([sys.executable, "-c", "import time; time.sleep(5)"], timeout=0.3))
    assert isinstance(exc, subprocess.TimeoutExpired)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_a_bug_stays_unknown() -> None:
    exc = raised(lambda: subprocess.run([sys.executable, "-c", "raise SystemExit(3)"], check=True))
    assert isinstance(exc, subprocess.CalledProcessError)
    check(exc, C.UNKNOWN, None)
