"""Protocol clients failing for real on 127.0.0.1 against real local servers: XML-RPC
(``xmlrpc.client`` against ``xmlrpc.server``), FTP (``ftplib`` and ``aioftp`` against pyftpdlib),
DNS (dnspython against a local responder) and memcached's client (pymemcache) against dead peers.
"""

from __future__ import annotations

import errno
import ftplib
import os
import tempfile
import threading
import urllib.error
import urllib.request
import xmlrpc.client
from collections.abc import Callable, Iterator
from xmlrpc.server import SimpleXMLRPCServer

import aioftp
import dns.exception
import dns.message
import dns.query
import dns.rcode
import dns.resolver
import dns.rrset
import pymemcache
import pytest
from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.filesystems import AbstractedFS
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port, closing_listener, dns_responder

SHORT = 0.3

# --- XML-RPC -------------------------------------------------------------------------------------


def _refund(order_id: str) -> str:
    if not order_id.startswith("ord_"):
        raise xmlrpc.client.Fault(-32602, "invalid method parameters")  # the interoperability fault codes
    if order_id == "ord_gone":
        raise xmlrpc.client.Fault(-32601, "requested method not found")
    raise RuntimeError("ledger is inconsistent")


@pytest.fixture(scope="module")
def rpc_url() -> Iterator[str]:
    server = SimpleXMLRPCServer((HOST, 0), logRequests=False, allow_none=True)
    server.register_function(_refund, "refund")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://{HOST}:{server.server_address[1]}/RPC2"
    server.shutdown()
    server.server_close()


class TestXmlRpc:
    def test_fault_invalid_params(self, rpc_url: str) -> None:
        exc = raised(lambda: xmlrpc.client.ServerProxy(rpc_url).refund("42"))
        assert isinstance(exc, xmlrpc.client.Fault)
        check(exc, C.INVALID_INPUT, False)

    def test_fault_method_not_found(self, rpc_url: str) -> None:
        exc = raised(lambda: xmlrpc.client.ServerProxy(rpc_url).refund("ord_gone"))
        assert isinstance(exc, xmlrpc.client.Fault)
        check(exc, C.NOT_FOUND, False)

    def test_fault_of_an_exception_in_the_method(self, rpc_url: str) -> None:
        # SimpleXMLRPCServer turns any exception into fault 1: the method ran and failed, no more is said.
        exc = raised(lambda: xmlrpc.client.ServerProxy(rpc_url).refund("ord_1"))
        assert isinstance(exc, xmlrpc.client.Fault) and exc.faultCode == 1
        check(exc, C.UNKNOWN, None)

    def test_wrong_path_is_404(self, rpc_url: str) -> None:
        exc = raised(lambda: xmlrpc.client.ServerProxy(rpc_url.replace("/RPC2", "/nowhere")).refund("ord_1"))
        assert isinstance(exc, xmlrpc.client.ProtocolError) and exc.errcode == 404
        check(exc, C.NOT_FOUND, False)

    @pytest.mark.parametrize(("status", "headers", "failure_class", "side_effect", "wait"), [
        (401, {}, C.PERMISSION_DENIED, False, None),
        (429, {"Retry-After": "4"}, C.RATE_LIMITED, False, 4.0),
        (500, {}, C.UPSTREAM_UNAVAILABLE, True, None),
        (503, {"Retry-After": "2"}, C.UPSTREAM_UNAVAILABLE, False, 2.0),
    ])
    def test_http_status(self, upstream: HttpUpstream, status: int, headers: dict[str, str], failure_class: C,
                         side_effect: bool, wait: float | None) -> None:
        url = upstream.scripted(status, "<html>no</html>", {"Content-Type": "text/html", **headers})
        exc = raised(lambda: xmlrpc.client.ServerProxy(url).refund("ord_1"))
        assert isinstance(exc, xmlrpc.client.ProtocolError)
        assert check(exc, failure_class, side_effect).retry_after == wait

    def test_connection_refused(self) -> None:
        exc = raised(lambda: xmlrpc.client.ServerProxy(f"http://{HOST}:{closed_port()}/").refund("ord_1"))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: xmlrpc.client.ServerProxy(f"{upstream.url}/drop").refund("ord_1"))
        assert isinstance(exc, ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


# --- FTP (RFC 959 reply codes) -------------------------------------------------------------------

USER, PASSWORD = "tool", "ftp-secret"
MAX_CONNECTIONS = 4


class _SessionOnlyFS(AbstractedFS):
    """pyftpdlib's filesystem, except that ``CWD`` moves the FTP session only.

    ``AbstractedFS.chdir`` calls ``os.chdir``: the pytest worker's own directory moved into this server's
    home, and every later test on that worker ran in a deleted directory once the home was removed.
    """

    def chdir(self, path: str) -> None:
        if not self.isdir(path):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
        self.cwd = self.fs2ftp(path)


@pytest.fixture(scope="module")
def ftp_port() -> Iterator[int]:
    with tempfile.TemporaryDirectory(prefix="errscope-ftp-") as home:
        authorizer = DummyAuthorizer()
        authorizer.add_user(USER, PASSWORD, home, perm="elr")
        handler = type("Handler", (FTPHandler,), {"authorizer": authorizer, "banner": "corpus ftp",
                                                  "abstracted_fs": _SessionOnlyFS,
                                                  "auth_failed_timeout": 0})  # no 3 s penalty per refused login
        server = FTPServer((HOST, 0), handler)
        server.max_cons = MAX_CONNECTIONS
        threading.Thread(target=server.serve_forever, kwargs={"timeout": 0.1}, daemon=True).start()
        yield int(server.address[1])
        server.close_all()


def _ftp(port: int, action: Callable[[ftplib.FTP], object] = lambda ftp: None, *, login: bool = True,
         password: str = PASSWORD) -> None:
    """Connect (and log in), run ``action``, and close: a connection left open counts against ``max_cons``."""
    with ftplib.FTP(timeout=5) as ftp:
        ftp.connect(HOST, port)
        if login:
            ftp.login(USER, password)
        action(ftp)


class TestFtplib:
    def test_login_refused(self, ftp_port: int) -> None:
        exc = raised(lambda: _ftp(ftp_port, password="wrong"))
        assert isinstance(exc, ftplib.error_perm) and str(exc).startswith("530")
        check(exc, C.PERMISSION_DENIED, False)

    def test_command_before_login(self, ftp_port: int) -> None:
        exc = raised(lambda: _ftp(ftp_port, lambda ftp: ftp.pwd(), login=False))
        assert isinstance(exc, ftplib.error_perm) and str(exc).startswith("530")
        check(exc, C.PERMISSION_DENIED, False)

    def test_missing_file(self, ftp_port: int) -> None:
        exc = raised(lambda: _ftp(ftp_port, lambda ftp: ftp.retrbinary("RETR invoice-404.pdf", lambda block: None)))
        assert isinstance(exc, ftplib.error_perm) and str(exc).startswith("550")
        check(exc, C.NOT_FOUND, False)

    def test_unknown_command(self, ftp_port: int) -> None:
        exc = raised(lambda: _ftp(ftp_port, lambda ftp: ftp.sendcmd("XFROB")))
        assert isinstance(exc, ftplib.error_perm) and str(exc).startswith("500")
        check(exc, C.UNKNOWN, False)

    def test_too_many_connections(self, ftp_port: int) -> None:
        held: list[ftplib.FTP] = []

        def hold_one_more() -> None:
            for _ in range(MAX_CONNECTIONS + 1):
                ftp = ftplib.FTP(timeout=5)
                held.append(ftp)
                ftp.connect(HOST, ftp_port)

        try:
            exc = raised(hold_one_more)
        finally:
            for ftp in held:
                ftp.close()
        assert isinstance(exc, ftplib.error_temp) and str(exc).startswith("421")
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_greeting_refuses(self) -> None:
        with closing_listener(b"421 Service not available, closing control connection.\r\n") as port:
            exc = raised(lambda: _ftp(port, login=False))
        assert isinstance(exc, ftplib.error_temp)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_closed_before_greeting(self, closing_port: int) -> None:
        exc = raised(lambda: _ftp(closing_port, login=False))
        assert isinstance(exc, EOFError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connection_refused(self) -> None:
        exc = raised(lambda: _ftp(closed_port(), login=False))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


async def _aioftp(port: int, password: str = PASSWORD, *, download: str | None = None) -> None:
    async with aioftp.Client.context(HOST, port, user=USER, password=password, socket_timeout=5) as client:
        if download is not None:
            async with client.download_stream(download) as stream:
                await stream.read()


class TestAioftp:
    def test_login_refused(self, ftp_port: int) -> None:
        exc = raised(lambda: _aioftp(ftp_port, "wrong"))
        assert isinstance(exc, aioftp.StatusCodeError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_missing_file(self, ftp_port: int) -> None:
        exc = raised(lambda: _aioftp(ftp_port, download="invoice-404.pdf"))
        assert isinstance(exc, aioftp.StatusCodeError)
        check(exc, C.NOT_FOUND, False)

    def test_connection_refused(self) -> None:
        exc = raised(lambda: _aioftp(closed_port()))
        assert isinstance(exc, OSError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


# --- DNS (RFC 1035 response codes) ---------------------------------------------------------------

ZONE = "corp.test."


@pytest.fixture(scope="module")
def dns_port() -> Iterator[int]:
    with dns_responder() as port:
        yield port


def _resolve(port: int, name: str) -> object:
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers = [HOST]
    resolver.port = port
    resolver.lifetime = SHORT
    return resolver.resolve(name + "." + ZONE, "A")


class TestDnspython:
    def test_answers(self, dns_port: int) -> None:
        assert _resolve(dns_port, "api") is not None  # the responder itself works

    def test_name_does_not_exist(self, dns_port: int) -> None:
        exc = raised(lambda: _resolve(dns_port, "missing"))
        assert isinstance(exc, dns.resolver.NXDOMAIN)
        check(exc, C.NOT_FOUND, False)

    def test_no_record_of_that_type(self, dns_port: int) -> None:
        exc = raised(lambda: _resolve(dns_port, "empty"))
        assert isinstance(exc, dns.resolver.NoAnswer)
        check(exc, C.NOT_FOUND, False)

    def test_server_failure(self, dns_port: int) -> None:
        exc = raised(lambda: _resolve(dns_port, "broken"))
        assert isinstance(exc, dns.resolver.NoNameservers)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)

    def test_resolver_timeout(self, dns_port: int) -> None:
        exc = raised(lambda: _resolve(dns_port, "silent"))
        assert isinstance(exc, dns.resolver.LifetimeTimeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_query_timeout(self, dns_port: int) -> None:
        query = dns.message.make_query("silent." + ZONE, "A")
        exc = raised(lambda: dns.query.udp(query, HOST, timeout=SHORT, port=dns_port))
        assert isinstance(exc, dns.exception.Timeout)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_tcp_query_refused(self) -> None:
        query = dns.message.make_query("api." + ZONE, "A")
        exc = raised(lambda: dns.query.tcp(query, HOST, timeout=5, port=closed_port()))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


# --- memcached's client against dead peers -------------------------------------------------------


class TestPymemcache:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: pymemcache.Client((HOST, closed_port()), connect_timeout=5).get("session"))
        assert isinstance(exc, ConnectionRefusedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_closed_after_command(self) -> None:
        with closing_listener(read_first=True) as port:
            exc = raised(lambda: pymemcache.Client((HOST, port), timeout=5).get("session"))
        assert isinstance(exc, pymemcache.exceptions.MemcacheUnexpectedCloseError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_read_timeout(self, silent_port: int) -> None:
        exc = raised(lambda: pymemcache.Client((HOST, silent_port), timeout=SHORT).get("session"))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


class TestUrllibFtp:
    """urllib's ftp:// handler wraps ftplib's reply in a URLError (its reason a text, raised over the reply)."""

    def test_missing_file(self, ftp_port: int) -> None:
        url = f"ftp://{USER}:{PASSWORD}@{HOST}:{ftp_port}/invoice-404.pdf"
        exc = raised(lambda: urllib.request.urlopen(url, timeout=5).read())
        assert isinstance(exc, urllib.error.URLError)
        check(exc, C.NOT_FOUND, False)

    def test_login_refused(self, ftp_port: int) -> None:
        url = f"ftp://{USER}:wrong@{HOST}:{ftp_port}/invoice.pdf"
        exc = raised(lambda: urllib.request.urlopen(url, timeout=5).read())
        assert isinstance(exc, urllib.error.URLError)
        check(exc, C.PERMISSION_DENIED, False)
