"""paramiko and asyncssh's client against real failure modes on 127.0.0.1, and against a real SSH
server (asyncssh's, in a thread) that refuses the login.

paramiko raises NoValidConnectionsError (an OSError without errno, the per-address socket errors
in ``.errors``) when every address refused; SSHException when the protocol fails (a peer that closes
or never sends its banner); AuthenticationException (an SSHException) when the login is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import asyncssh
import paramiko
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.ssh_server import asyncssh_server
from tests.classification.upstreams import HOST, HttpUpstream, closed_port, closing_listener, silent_listener


def _connect(port: int, password: str = "wrong") -> Callable[[], None]:
    def connect() -> None:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        try:
            client.connect(HOST, port, username="tool", password=password, timeout=1, banner_timeout=0.5,
                           auth_timeout=1, allow_agent=False, look_for_keys=False)
        finally:
            client.close()

    return connect


@pytest.fixture(scope="module")
def ssh_server() -> Iterator[int]:
    """A real SSH server (asyncssh) where every password is wrong."""
    with asyncssh_server(None) as port:
        yield port


def test_authentication_refused(ssh_server: int) -> None:
    exc = raised(_connect(ssh_server))
    assert isinstance(exc, paramiko.AuthenticationException)
    check(exc, C.PERMISSION_DENIED, False)


def test_connection_refused() -> None:
    exc = raised(_connect(closed_port()))
    assert type(exc) is paramiko.ssh_exception.NoValidConnectionsError
    assert all(isinstance(error, ConnectionRefusedError) for error in exc.errors.values())
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("where", ["closing", "silent", "http"])
def test_no_ssh_banner(upstream: HttpUpstream, where: str) -> None:
    # The banner never came (the peer closed, stayed silent, or speaks HTTP): SSHException is also paramiko's
    # error for a session lost later, but this one came out of SSHClient.connect: no command had been sent.
    with silent_listener() as silent, closing_listener() as closing:
        port = {"closing": closing, "silent": silent, "http": upstream.port}[where]
        exc = raised(_connect(port))
    assert type(exc) is paramiko.SSHException
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.system == "ssh"


def _asyncssh_connect(port: int) -> Callable[[], object]:
    async def connect() -> None:
        async with asyncssh.connect(HOST, port, username="tool", password="wrong", known_hosts=None, client_keys=None,
                                    agent_path=None, login_timeout=0.5):
            pass

    return connect


class TestAsyncssh:
    def test_authentication_refused(self, ssh_server: int) -> None:
        exc = raised(_asyncssh_connect(ssh_server))
        assert type(exc) is asyncssh.PermissionDenied
        check(exc, C.PERMISSION_DENIED, False)

    def test_connection_refused(self) -> None:
        exc = raised(_asyncssh_connect(closed_port()))
        assert type(exc) is ConnectionRefusedError
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_no_banner(self, silent_port: int) -> None:
        # asyncssh's DisconnectError family (reason CONNECTION_LOST): lost before the login finished
        exc = raised(_asyncssh_connect(silent_port))
        assert type(exc) is asyncssh.ConnectionLost
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.fixture(scope="module")
def strict_ssh_server() -> Iterator[int]:
    """A real SSH server (asyncssh) that offers one key exchange and one cipher."""
    with asyncssh_server("pw", kex_algs=["curve25519-sha256"], encryption_algs=["aes256-gcm@openssh.com"]) as port:
        yield port


class TestHandshakeRefused:
    """The SSH transport refused before any login (RFC 4253 §11.1's reasons): nothing was sent."""

    def test_asyncssh_host_key_not_trusted(self, strict_ssh_server: int) -> None:
        stranger = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()
        known_hosts = asyncssh.import_known_hosts(f"[{HOST}]:{strict_ssh_server} {stranger}")

        async def connect() -> None:
            async with asyncssh.connect(HOST, strict_ssh_server, username="tool", password="pw", known_hosts=known_hosts,
                                        client_keys=None, agent_path=None):
                pass

        exc = raised(connect)
        assert type(exc) is asyncssh.HostKeyNotVerifiable
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    @pytest.mark.parametrize("algorithms", [{"kex_algs": ["diffie-hellman-group14-sha256"]},
                                            {"encryption_algs": ["aes128-ctr"]}], ids=["kex", "cipher"])
    def test_asyncssh_no_algorithm_in_common(self, strict_ssh_server: int, algorithms: dict[str, list[str]]) -> None:
        async def connect() -> None:
            async with asyncssh.connect(HOST, strict_ssh_server, username="tool", password="pw", known_hosts=None,
                                        client_keys=None, agent_path=None, **algorithms):
                pass

        exc = raised(connect)
        # KEY_EXCHANGE_FAILED, or CONNECTION_LOST when the server's disconnect overtakes its reason
        assert type(exc) in (asyncssh.KeyExchangeFailed, asyncssh.ConnectionLost)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_paramiko_no_algorithm_in_common(self, strict_ssh_server: int) -> None:
        def connect() -> None:
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
            try:
                client.connect(HOST, strict_ssh_server, username="tool", password="pw", timeout=5, allow_agent=False,
                               look_for_keys=False, disabled_algorithms={"ciphers": ["aes256-gcm@openssh.com"]})
            finally:
                client.close()

        exc = raised(connect)
        assert isinstance(exc, paramiko.SSHException)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_paramiko_unknown_host_rejected(self, ssh_server: int) -> None:
        def connect() -> None:
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.RejectPolicy())
            try:
                client.connect(HOST, ssh_server, username="tool", password="pw", timeout=5, allow_agent=False,
                               look_for_keys=False)
            finally:
                client.close()

        exc = raised(connect)
        assert type(exc) is paramiko.SSHException
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
