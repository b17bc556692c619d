"""smbprotocol's ``smbclient`` (SMB 2/3 in pure Python) against a real SMB server on 127.0.0.1: impacket's
``SimpleSMBServer`` (SMB2 dialect, NTLM logons), sharing a read-only directory, and dead addresses.

An SMB server answers a request it refuses with an NTSTATUS value (MS-SMB2 §2.2.2, MS-ERREF §2.3.1).
smbprotocol raises one ``SMBResponseException`` subclass per value it knows (``LogonFailure``, ``AccessDenied``, ...),
keeping it as ``status``; smbclient's file functions turn it into ``SMBOSError`` (an ``OSError``) keeping it as
``ntstatus``, with an errno only for the few values it maps (``ENOENT`` for a missing name; 0 for the others:
``STATUS_NO_SUCH_FILE``, ``STATUS_ACCESS_DENIED``). A refused connection is a ``ValueError`` raised over the
socket's ``ConnectionRefusedError``; no answer to the NEGOTIATE in time is a bare ``SMBException`` (its text only).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

smbclient = pytest.importorskip("smbclient")
smbserver = pytest.importorskip("impacket.smbserver")

from impacket import ntlm  # noqa: E402
from smbprotocol import exceptions as smb_errors  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, closing_listener, silent_listener  # noqa: E402

USER, PASSWORD = "refunds", "s3cret"


@pytest.fixture(scope="module")
def smb_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    share = tmp_path_factory.mktemp("share")
    (share / "ledger.csv").write_text("id,amount\n17,20.00\n")
    server = smbserver.SimpleSMBServer(listenAddress=HOST, listenPort=0)
    server.setSMB2Support(True)
    server.addShare("DATA", str(share), "refund ledgers", readOnly="yes")
    server.addCredential(USER, 1000, ntlm.compute_lmhash(PASSWORD), ntlm.compute_nthash(PASSWORD))
    port = int(server.getServer().server_address[1])
    threading.Thread(target=server.start, daemon=True).start()
    time.sleep(0.2)
    yield port
    smbclient.reset_connection_cache()  # an open client session keeps its server thread, which stop() joins
    server.stop()


def _session(port: int, password: str = PASSWORD, timeout: float = 5) -> Any:
    smbclient.reset_connection_cache()
    return smbclient.register_session(HOST, username=USER, password=password, port=port, connection_timeout=timeout)


def test_logon_refused(smb_port: int) -> None:
    exc = raised(lambda: _session(smb_port, "not-the-password"))
    assert type(exc) is smb_errors.LogonFailure and exc.status == 0xC000006D
    result = check(exc, C.PERMISSION_DENIED, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("smb", "0xC000006D")


FILE_CALLS: dict[str, Callable[[int], Any]] = {
    "open_missing_file": lambda port: smbclient.open_file(rf"\\{HOST}\DATA\refund-18.csv", port=port).read(),
    "list_missing_directory": lambda port: smbclient.listdir(rf"\\{HOST}\DATA\2026", port=port),
    "stat_missing_file": lambda port: smbclient.stat(rf"\\{HOST}\DATA\refund-18.csv", port=port),
    "missing_share": lambda port: smbclient.listdir(rf"\\{HOST}\ARCHIVE", port=port),
    "write_read_only_share": lambda port: smbclient.open_file(rf"\\{HOST}\DATA\refund-18.csv", mode="w",
                                                              port=port).write("18,5.00\n"),
}


@pytest.mark.parametrize(("call", "failure_class"), [
    ("open_missing_file", C.NOT_FOUND),
    ("list_missing_directory", C.NOT_FOUND),
    ("stat_missing_file", C.NOT_FOUND),
    ("missing_share", C.NOT_FOUND),
    ("write_read_only_share", C.PERMISSION_DENIED),
])
def test_file_call_refused(smb_port: int, call: str, failure_class: C) -> None:
    _session(smb_port)
    exc = raised(lambda: FILE_CALLS[call](smb_port))
    assert isinstance(exc, smb_errors.SMBOSError)
    check(exc, failure_class, False)


def test_refused() -> None:
    exc = raised(lambda: _session(closed_port()))
    assert type(exc) is ValueError and isinstance(exc.__cause__ or exc.__context__, ConnectionRefusedError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_negotiate_never_answered() -> None:
    with silent_listener() as port:
        exc = raised(lambda: _session(port, timeout=0.5))
    assert type(exc) is smb_errors.SMBException
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_negotiating() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(lambda: _session(port, timeout=1))
    assert type(exc) is smb_errors.SMBConnectionClosed  # raised in Connection.connect: no file operation was sent
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


