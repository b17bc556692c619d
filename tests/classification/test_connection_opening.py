"""Clients whose connection never finished opening, on 127.0.0.1: a TLS handshake the peer never answers (a
listener that accepts and never reads), an HTTP proxy that never answers the ``CONNECT`` of an HTTPS request, a
WebSocket server that never answers the opening handshake.

No byte of the caller's request crossed: TLS carries no application data before the handshake completes (RFC 8446
§2), a request through a proxy tunnel is written only after the proxy's 2xx to ``CONNECT`` (RFC 9110 §9.3.6), a
WebSocket client sends no data frame before the server's 101 (RFC 6455 §4.1). Several clients file these under their
read timeout all the same (urllib3's ``ReadTimeoutError`` and requests' ``ReadTimeout`` for a handshake or a tunnel,
httpx's ``ReadTimeout`` for the tunnel, websocket-client's ``WebSocketTimeoutException``): the phase, read from the
stack the timeout was raised through, decides that nothing was sent. The controls: the same read timeout once the
request did cross (plain HTTP through the same silent proxy, which has the request and may have forwarded it).
"""

from __future__ import annotations

import http.client
import imaplib
import smtplib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import aiohttp
import httpx
import pytest
import requests
import urllib3
import websocket

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, silent_listener

SHORT = 0.3
TARGET = "example.invalid"
"""The upstream behind the proxy: never resolved, the proxy is asked to reach it (RFC 6761 §6.4)."""


async def _aiohttp(url: str) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5, sock_connect=SHORT)) as session:
        await session.get(url)


def _http_client(port: int) -> None:
    connection = http.client.HTTPSConnection(HOST, port, timeout=SHORT)
    try:
        connection.request("POST", "/orders", body=b"{}")
    finally:
        connection.close()


HANDSHAKES: dict[str, tuple[Callable[[int], object], type[BaseException], bool]] = {
    # client: (call, exception it raises, whether the upstream's address is kept)
    "requests": (lambda port: requests.post(f"https://{HOST}:{port}/orders", json={}, timeout=SHORT),
                 requests.ReadTimeout, True),
    "urllib3": (lambda port: urllib3.request("POST", f"https://{HOST}:{port}/orders", json={}, retries=False,
                                             timeout=SHORT), urllib3.exceptions.ReadTimeoutError, True),
    "httpx": (lambda port: httpx.post(f"https://{HOST}:{port}/orders", json={}, timeout=SHORT),
              httpx.ConnectTimeout, True),
    "aiohttp": (lambda port: _aiohttp(f"https://{HOST}:{port}/orders"), aiohttp.ConnectionTimeoutError, True),
    "urllib": (lambda port: urllib.request.urlopen(f"https://{HOST}:{port}/orders", data=b"{}", timeout=SHORT),
               urllib.error.URLError, False),
    "http.client": (_http_client, TimeoutError, False),
    "websocket-client": (lambda port: websocket.create_connection(f"wss://{HOST}:{port}/", timeout=SHORT),
                         TimeoutError, False),
    "smtplib": (lambda port: smtplib.SMTP_SSL(HOST, port, timeout=SHORT), TimeoutError, False),
    "imaplib": (lambda port: imaplib.IMAP4_SSL(HOST, port, timeout=SHORT), TimeoutError, False),
}


@pytest.fixture
def silent_port() -> Iterator[int]:
    with silent_listener() as port:
        yield port


@pytest.mark.parametrize("client", list(HANDSHAKES))
def test_tls_handshake_never_answered(silent_port: int, client: str) -> None:
    """A TLS handshake the peer never answers timed out before any request byte: not sent, whatever its class."""
    call, exc_type, addressed = HANDSHAKES[client]
    exc = raised(lambda: call(silent_port))
    assert isinstance(exc, exc_type)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    if addressed:
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{silent_port}"


TUNNELS: dict[str, Callable[[str, str], object]] = {
    "requests": lambda proxy, url: requests.post(url, json={}, proxies={"http": proxy, "https": proxy}, timeout=SHORT),
    "httpx": lambda proxy, url: httpx.post(url, json={}, proxy=proxy, timeout=SHORT),
}


@pytest.mark.parametrize("client", list(TUNNELS))
def test_proxy_never_answers_the_tunnel(silent_port: int, client: str) -> None:
    """An HTTPS request through a proxy that never answers its ``CONNECT``: the tunnel never opened, the request never
    left; the upstream named is the one the tool asked for."""
    exc = raised(lambda: TUNNELS[client](f"http://{HOST}:{silent_port}", f"https://{TARGET}/orders"))
    assert isinstance(exc, (requests.ReadTimeout, httpx.ReadTimeout))
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.address == TARGET


def test_plain_http_through_a_proxy_that_never_answers(silent_port: int) -> None:
    """The control: a plain HTTP request is written to the proxy whole (no tunnel), which may have forwarded it."""
    exc = raised(lambda: TUNNELS["requests"](f"http://{HOST}:{silent_port}", f"http://{TARGET}/orders"))
    assert isinstance(exc, requests.ReadTimeout)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_websocket_opening_handshake_never_answered(silent_port: int) -> None:
    """websocket-client's timeout waiting for the server's 101: no message was sent (an unanswered message after the
    handshake, in test_websocket_client, may have been acted on)."""
    exc = raised(lambda: websocket.create_connection(f"ws://{HOST}:{silent_port}/", timeout=SHORT))
    assert isinstance(exc, websocket.WebSocketTimeoutException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
