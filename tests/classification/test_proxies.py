"""A tool's HTTP clients going out through a forward proxy on 127.0.0.1 that refuses the tunnel.

Two kinds of proxy, each a real socket speaking its protocol's refusal:

- an HTTP proxy answering ``CONNECT`` with an error status (RFC 9110 §9.3.6): 407 Proxy Authentication Required (the
  tool's proxy credential refused, §15.5.8: like a 401), 403 (the proxy's policy forbids that destination), 502/503
  (the proxy could not reach the upstream, or is overloaded);
- a SOCKS5 proxy (RFC 1928) answering the CONNECT request with a reply code, or refusing the login (RFC 1929).

Either way the tunnel never opened, so the request never reached the upstream: no side effect. The class follows
what the proxy said: a refused credential or a forbidden destination is ``permission_denied`` (a retry will not
help, a setting will), an unreachable upstream ``upstream_unavailable``.

httpx/httpcore and the standard library keep the proxy's status only in a text; aiohttp keeps it as ``status``
(``ClientHttpProxyError``), python-socks (under aiohttp-socks and httpx-socks) as ``error_code``.
"""

from __future__ import annotations

import socket
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import aiohttp
import aiohttp_socks
import httpx
import httpx2
import httpx_socks
import pytest
import python_socks
import python_socks.sync
import requests
import urllib3

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, closing_listener, per_connection

TARGET = "https://api.orders.example/v1/orders"
"""Never reached: the proxy refuses the tunnel before any byte goes to it."""

REASONS = {403: "Forbidden", 407: "Proxy Authentication Required", 502: "Bad Gateway", 503: "Service Unavailable"}


@contextmanager
def http_proxy(status: int) -> Iterator[str]:
    """An HTTP proxy that answers every CONNECT with ``status`` (and a challenge on 407), then closes."""
    challenge = 'Proxy-Authenticate: Basic realm="egress"\r\n' if status == 407 else ""
    answer = (f"HTTP/1.1 {status} {REASONS[status]}\r\n{challenge}Content-Length: 0\r\nConnection: close\r\n\r\n")
    with closing_listener(answer.encode(), read_first=True) as port:
        yield f"http://{HOST}:{port}"


@contextmanager
def socks5_proxy(reply: int | None = None, *, refuse_login: bool = False) -> Iterator[str]:
    """A SOCKS5 proxy (RFC 1928) that answers a CONNECT request with ``reply``; with ``refuse_login`` it asks for
    a username and password (RFC 1929) and refuses them."""

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(512)  # version, methods
                if refuse_login:
                    conn.sendall(b"\x05\x02")
                    conn.recv(512)
                    conn.sendall(b"\x01\x01")  # RFC 1929 §2: a status other than 0 is a failure
                    return
                conn.sendall(b"\x05\x00")
                conn.recv(512)  # the CONNECT request
                conn.sendall(b"\x05" + bytes([reply or 1]) + b"\x00\x01" + b"\x00" * 6)
            except OSError:
                return

    with per_connection(handle) as port:
        yield f"{HOST}:{port}"


def _httpx(lib: Any) -> Callable[[str], Callable[[], object]]:
    return lambda proxy: lambda: lib.get(TARGET, proxy=proxy, timeout=5)


def _aiohttp(proxy: str) -> Callable[[], object]:
    async def call() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
            async with session.get(TARGET, proxy=proxy) as response:
                await response.read()

    return call


def _aiohttp_socks(proxy: str) -> Callable[[], object]:
    async def call() -> None:
        connector = aiohttp_socks.ProxyConnector.from_url(proxy)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=5)) as session:
            async with session.get(TARGET) as response:
                await response.read()

    return call


def _httpx_socks(proxy: str) -> Callable[[], object]:
    def call() -> None:
        with httpx.Client(transport=httpx_socks.SyncProxyTransport.from_url(proxy), timeout=5) as client:
            client.get(TARGET)

    return call


def _python_socks(proxy: str) -> Callable[[], object]:
    return lambda: python_socks.sync.Proxy.from_url(proxy).connect("api.orders.example", 443, timeout=5)


def _urllib(proxy: str) -> Callable[[], object]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"https": proxy}))
    return lambda: opener.open(TARGET, timeout=5).read()


HTTP_PROXY_CLIENTS: dict[str, Callable[[str], Callable[[], object]]] = {
    "httpx": _httpx(httpx),
    "httpx2": _httpx(httpx2),
    "requests": lambda proxy: lambda: requests.get(TARGET, proxies={"https": proxy}, timeout=5),
    "urllib3": lambda proxy: lambda: urllib3.ProxyManager(proxy).request("GET", TARGET, retries=False, timeout=5),
    "urllib": _urllib,
    "aiohttp": _aiohttp,
    "aiohttp-socks": _aiohttp_socks,
    "httpx-socks": _httpx_socks,
    "python-socks": _python_socks,
}


@pytest.mark.parametrize("client", list(HTTP_PROXY_CLIENTS))
@pytest.mark.parametrize(("status", "failure_class"), [
    (407, C.PERMISSION_DENIED),
    (403, C.PERMISSION_DENIED),
    (502, C.UPSTREAM_UNAVAILABLE),
    (503, C.UPSTREAM_UNAVAILABLE),
])
def test_http_proxy_refuses_the_tunnel(client: str, status: int, failure_class: C) -> None:
    with http_proxy(status) as proxy:
        exc = raised(HTTP_PROXY_CLIENTS[client](proxy))
    check(exc, failure_class, False)


SOCKS_CLIENTS: dict[str, Callable[[str], Callable[[], object]]] = {
    "aiohttp-socks": _aiohttp_socks,
    "httpx-socks": _httpx_socks,
    "python-socks": _python_socks,
    # socks5h: the proxy resolves the name, as the others do by default (socks5:// makes PySocks resolve it here first,
    # and the target's made-up name fails before the proxy answers)
    "requests": lambda proxy: lambda: requests.get(TARGET, proxies={"https": proxy.replace("socks5://", "socks5h://", 1)},
                                                   timeout=5),
}


@pytest.mark.parametrize("client", list(SOCKS_CLIENTS))
@pytest.mark.parametrize(("reply", "failure_class"), [
    (0x01, C.UPSTREAM_UNAVAILABLE),  # general SOCKS server failure
    (0x02, C.PERMISSION_DENIED),  # connection not allowed by ruleset
    (0x03, C.UPSTREAM_UNAVAILABLE),  # network unreachable
    (0x04, C.UPSTREAM_UNAVAILABLE),  # host unreachable
    (0x05, C.UPSTREAM_UNAVAILABLE),  # connection refused
    (0x06, C.UPSTREAM_UNAVAILABLE),  # TTL expired
])
def test_socks5_proxy_refuses_the_connection(client: str, reply: int, failure_class: C) -> None:
    with socks5_proxy(reply) as address:
        exc = raised(SOCKS_CLIENTS[client](f"socks5://{address}"))
    check(exc, failure_class, False)


@pytest.mark.parametrize("client", list(SOCKS_CLIENTS))
def test_socks5_proxy_refuses_the_login(client: str) -> None:
    with socks5_proxy(refuse_login=True) as address:
        exc = raised(SOCKS_CLIENTS[client](f"socks5://user:wrong@{address}"))
    check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("client", ["aiohttp-socks", "httpx-socks", "python-socks"])
def test_socks_proxy_not_running(client: str) -> None:
    exc = raised(SOCKS_CLIENTS[client](f"socks5://{HOST}:{closed_port()}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_python_socks_keeps_the_code() -> None:
    with socks5_proxy(0x02) as address:
        exc = raised(_python_socks(f"socks5://{address}"))
    assert isinstance(exc, python_socks.ProxyError) and exc.error_code == 0x02
