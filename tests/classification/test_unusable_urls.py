"""HTTP clients handed a URL they cannot use: no scheme, a scheme they do not speak (``ftp://``), no host.

Each client refuses before it opens any connection, so nothing was sent; and no upstream failed: the URL is
wrong, whoever wrote it (the tool's configuration or the model's argument: the exception does not say), so the
class is ``unknown``, never ``upstream_unavailable`` (which would have a client retry it and a breaker count it).
requests raises ``MissingSchema``/``InvalidSchema``/``InvalidURL``, httpx ``UnsupportedProtocol`` (a
``TransportError``, beside the real ones), aiohttp ``InvalidUrlClientError``/``NonHttpUrlClientError``, the
standard library's ``http.client`` an ``InvalidURL``.
"""

from __future__ import annotations

import http.client
import importlib
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import requests

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port


def _aiohttp(url: str) -> Callable[[], Any]:
    async def run() -> None:
        async with aiohttp.ClientSession() as session, session.get(url):
            pass

    return run


CLIENTS: dict[str, Callable[[str], Callable[[], Any]]] = {
    "requests": lambda url: lambda: requests.get(url, timeout=2),
    "httpx": lambda url: lambda: httpx.get(url, timeout=2),
    "httpx2": lambda url: lambda: httpx2.get(url, timeout=2),
    "httpx-async": lambda url: lambda: _httpx_async(url),
    "aiohttp": _aiohttp,
}


async def _httpx_async(url: str) -> None:
    async with httpx.AsyncClient(timeout=2) as client:
        await client.get(url)


URLS = {
    "no-scheme": "api.example.com/v1/orders",
    "ftp-scheme": f"ftp://{HOST}:{closed_port()}/orders.csv",
    "no-host": "http:///v1/orders",
}


@pytest.mark.parametrize("kind", list(URLS))
@pytest.mark.parametrize("client", list(CLIENTS))
def test_url_the_client_cannot_use(client: str, kind: str) -> None:
    exc = raised(CLIENTS[client](URLS[kind]))
    nothing_tried = not isinstance(exc, requests.ConnectionError | httpx.ConnectError | aiohttp.ClientConnectorError)
    assert nothing_tried
    check(exc, C.UNKNOWN, False)


def test_http_client_control_characters() -> None:
    conn = http.client.HTTPConnection(HOST, closed_port(), timeout=2)
    exc = raised(lambda: conn.request("GET", "/v1/orders?id=ord 1"))
    assert isinstance(exc, http.client.InvalidURL)
    check(exc, C.UNKNOWN, False)


def test_no_host_after_a_library_patched_the_url_checks() -> None:
    """pyzotero's import replaces ``httpx2.URL.is_relative_url`` for the whole process; httpx2 then takes
    ``http:///v1/orders`` to a connection and resolves the empty name. The URL is still what is wrong."""
    importlib.import_module("pyzotero.zotero")
    exc = raised(CLIENTS["httpx2"](URLS["no-host"]))
    assert isinstance(exc, httpx2.ConnectError)
    check(exc, C.UNKNOWN, False)
