"""SFTP clients (paramiko's SFTPClient, asyncssh's) against a real SFTP server on 127.0.0.1: asyncssh's
SFTPServer in a thread, rooted (``chroot``) in a temp dir, with one policy of its own: ``/archive`` is
read-only, refused with SFTP's ``SSH_FX_PERMISSION_DENIED`` (the tests run as root, whom file modes do not
stop). The status codes are SFTP's (draft-ietf-secsh-filexfer-13 §9.1).

paramiko turns ``NO_SUCH_FILE``/``PERMISSION_DENIED`` into ``OSError(ENOENT/EACCES)`` (so
``FileNotFoundError``/``PermissionError``) and every other status into an ``OSError`` with no errno;
asyncssh raises one ``SFTPError`` subclass per status, the code kept as ``.code``. A refused file operation
did nothing on the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import asyncssh
import paramiko
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.ssh_server import asyncssh_server
from tests.classification.upstreams import HOST

PASSWORD = "sftp-secret"
READ_ONLY = "/archive"
CRASH = "/crash"


class _ReadOnlyArchive(asyncssh.SFTPServer):
    """The file system under the chroot, except that nothing under ``/archive`` may be written or removed."""

    def _refuse_under_archive(self, path: bytes) -> None:
        if path.decode().startswith(READ_ONLY):
            raise asyncssh.SFTPPermissionDenied(f"{READ_ONLY} is read-only")

    def open(self, path: bytes, pflags: int, attrs: asyncssh.SFTPAttrs) -> object:
        if pflags & (asyncssh.FXF_WRITE | asyncssh.FXF_CREAT | asyncssh.FXF_APPEND):
            self._refuse_under_archive(path)
        return super().open(path, pflags, attrs)

    def open56(self, path: bytes, desired_access: int, flags: int, attrs: asyncssh.SFTPAttrs) -> object:
        if desired_access & (asyncssh.ACE4_WRITE_DATA | asyncssh.ACE4_APPEND_DATA):
            self._refuse_under_archive(path)
        return super().open56(path, desired_access, flags, attrs)

    def remove(self, path: bytes) -> None:
        self._refuse_under_archive(path)
        super().remove(path)

    def stat(self, path: bytes) -> object:
        if path.decode().startswith(CRASH):  # the server goes away under the request
            self.channel.get_connection().abort()
            return asyncio.Event().wait()
        return super().stat(path)


@pytest.fixture(scope="module")
def sftp_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    root = tmp_path_factory.mktemp("sftp-root")
    (root / "archive").mkdir()
    (root / "archive" / "2025.csv").write_text("id,total\n1,10\n")
    (root / "inbox").mkdir()
    (root / "inbox" / "keep").mkdir()
    (root / "inbox" / "keep" / "a.txt").write_text("a")
    with asyncssh_server(PASSWORD, sftp_version=6,
                         sftp_factory=lambda chan: _ReadOnlyArchive(chan, chroot=str(root).encode())) as port:
        yield port


def _paramiko(port: int, operation: Callable[[paramiko.SFTPClient], object], password: str = PASSWORD,
              ) -> Callable[[], None]:
    def run() -> None:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        try:
            client.connect(HOST, port, username="tool", password=password, timeout=5, allow_agent=False,
                           look_for_keys=False)
            with client.open_sftp() as sftp:
                operation(sftp)
        finally:
            client.close()

    return run


def _asyncssh(port: int, operation: Callable[[asyncssh.SFTPClient], Any]) -> Callable[[], Any]:
    async def run() -> None:
        async with asyncssh.connect(HOST, port, username="tool", password=PASSWORD, known_hosts=None,
                                    client_keys=None, agent_path=None) as connection:
            async with connection.start_sftp_client(sftp_version=6) as sftp:
                await operation(sftp)

    return run


def _write(sftp: paramiko.SFTPClient, path: str) -> None:
    with sftp.open(path, "w") as remote:
        remote.write(b"x")


class TestParamiko:
    @pytest.mark.parametrize("operation", [
        pytest.param(lambda sftp: sftp.open("/reports/missing.csv").read(), id="open"),
        pytest.param(lambda sftp: sftp.stat("/reports/missing.csv"), id="stat"),
        pytest.param(lambda sftp: sftp.listdir("/reports"), id="listdir"),
        pytest.param(lambda sftp: sftp.remove("/inbox/missing.txt"), id="remove"),
        pytest.param(lambda sftp: sftp.get("/reports/missing.csv", "/dev/null"), id="get"),
    ])
    def test_no_such_file(self, sftp_port: int, operation: Callable[[paramiko.SFTPClient], object]) -> None:
        exc = raised(_paramiko(sftp_port, operation))
        assert type(exc) is FileNotFoundError
        check(exc, C.NOT_FOUND, False)

    @pytest.mark.parametrize("operation", [
        pytest.param(lambda sftp: _write(sftp, f"{READ_ONLY}/2026.csv"), id="write"),
        pytest.param(lambda sftp: sftp.remove(f"{READ_ONLY}/2025.csv"), id="remove"),
    ])
    def test_permission_denied(self, sftp_port: int, operation: Callable[[paramiko.SFTPClient], object]) -> None:
        exc = raised(_paramiko(sftp_port, operation))
        assert type(exc) is PermissionError
        check(exc, C.PERMISSION_DENIED, False)

    def test_wrong_password(self, sftp_port: int) -> None:
        exc = raised(_paramiko(sftp_port, lambda sftp: sftp.listdir("/"), password="stale"))
        assert isinstance(exc, paramiko.AuthenticationException)
        check(exc, C.PERMISSION_DENIED, False)

    def test_server_goes_away_under_a_request(self, sftp_port: int) -> None:
        # SSHException("Server connection dropped") over an EOFError: paramiko's error for any protocol failure
        exc = raised(_paramiko(sftp_port, lambda sftp: sftp.stat(f"{CRASH}/report.csv")))
        assert type(exc) is paramiko.SSHException
        check(exc, C.UPSTREAM_UNAVAILABLE, None)


class TestAsyncssh:
    @pytest.mark.parametrize("operation", [
        pytest.param(lambda sftp: sftp.stat("/reports/missing.csv"), id="stat"),
        pytest.param(lambda sftp: sftp.get("/reports/missing.csv", "/dev/null"), id="get"),
        pytest.param(lambda sftp: sftp.remove("/inbox/missing.txt"), id="remove"),
    ])
    def test_no_such_file(self, sftp_port: int, operation: Callable[[asyncssh.SFTPClient], Any]) -> None:
        exc = raised(_asyncssh(sftp_port, operation))
        assert isinstance(exc, asyncssh.SFTPNoSuchFile | asyncssh.SFTPNoSuchPath)
        check(exc, C.NOT_FOUND, False)

    def test_permission_denied(self, sftp_port: int) -> None:
        async def write(sftp: asyncssh.SFTPClient) -> None:
            async with sftp.open(f"{READ_ONLY}/2026.csv", "w") as remote:
                await remote.write("x")

        exc = raised(_asyncssh(sftp_port, write))
        assert type(exc) is asyncssh.SFTPPermissionDenied
        check(exc, C.PERMISSION_DENIED, False)

    def test_already_exists(self, sftp_port: int) -> None:
        exc = raised(_asyncssh(sftp_port, lambda sftp: sftp.mkdir("/inbox")))
        assert isinstance(exc, asyncssh.SFTPError)
        check(exc, C.INVALID_INPUT, False)

    def test_directory_not_empty(self, sftp_port: int) -> None:
        exc = raised(_asyncssh(sftp_port, lambda sftp: sftp.rmdir("/inbox/keep")))
        assert isinstance(exc, asyncssh.SFTPError)
        check(exc, C.INVALID_INPUT, False)


    @pytest.mark.parametrize("operation", [
        pytest.param(lambda sftp: sftp.open("/inbox"), id="open_a_directory"),
        pytest.param(lambda sftp: sftp.listdir(f"{READ_ONLY}/2025.csv"), id="list_a_file"),
        pytest.param(lambda sftp: sftp.rename(f"{READ_ONLY}/2025.csv", "/inbox"), id="rename_onto_existing"),
    ])
    def test_path_does_not_fit(self, sftp_port: int, operation: Callable[[asyncssh.SFTPClient], Any]) -> None:
        exc = raised(_asyncssh(sftp_port, operation))
        assert isinstance(exc, asyncssh.SFTPFileIsADirectory | asyncssh.SFTPNotADirectory
                          | asyncssh.SFTPFileAlreadyExists)
        check(exc, C.INVALID_INPUT, False)

    def test_server_goes_away_under_a_request(self, sftp_port: int) -> None:
        # the SSH connection's own error (reason CONNECTION_LOST), not the SFTP layer's: it does not say
        # whether the request had gone out
        exc = raised(_asyncssh(sftp_port, lambda sftp: sftp.stat(f"{CRASH}/report.csv")))
        assert type(exc) is asyncssh.ConnectionLost
        check(exc, C.UPSTREAM_UNAVAILABLE, None)


class TestParamikoVersion3Failures:
    """SFTP v3 (paramiko's only version) has no status for these: the server answers ``SSH_FX_FAILURE`` with a
    text, and paramiko raises an ``OSError`` with that text and no errno."""

    @pytest.mark.parametrize("operation", [
        pytest.param(lambda sftp: sftp.mkdir("/inbox"), id="mkdir_existing"),
        pytest.param(lambda sftp: sftp.rmdir("/inbox/keep"), id="rmdir_not_empty"),
    ])
    def test_refused_with_failure(self, sftp_port: int, operation: Callable[[paramiko.SFTPClient], object]) -> None:
        exc = raised(_paramiko(sftp_port, operation))
        assert type(exc) is OSError and exc.errno is None
        check(exc, C.INVALID_INPUT, False)
