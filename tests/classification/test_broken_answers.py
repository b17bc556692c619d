"""HTTP clients whose upstream read the request and then answered wrongly: the connection closed with no
answer (FIN, not a reset), a body cut short of its ``Content-Length``, a chunked body cut mid-chunk, and a
peer that is no HTTP server at all (an SSH banner on the port).

Each peer is a real socket on 127.0.0.1 that reads the request first (``closing_listener(read_first=True)``),
so every case is a request that arrived: the upstream may have acted on it, and the class is
``upstream_unavailable`` (the answer was lost, not refused) whatever the client calls it.

And a whole answer that is not what the tool expects (a maintenance page in HTML with a 200, where the tool
reads JSON): when the HTTP client's own ``json()`` fails, the upstream did not answer as its API does
(``upstream_unavailable``; whether it acted is open: the page may be a load balancer's); the tool's own
``json.loads`` of the bytes does not say whose text it was: ``unknown`` (see test_unreadable_answers).
"""

from __future__ import annotations

import http.client
import json
import urllib.request
from collections.abc import Callable, Iterator

import aiohttp
import httpx
import httpx2
import pytest
import requests
import urllib3

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, answering, closing_listener

ANSWERS = {
    "closed_without_answer": b"",
    "body_shorter_than_content_length": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n"
                                        b'{"items": [',
    "chunked_body_cut": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b'40\r\n{"items": [',
    "not_an_http_server": b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n",
}


def _httpx(lib: object) -> Callable[[str], object]:
    return lambda url: lib.post(url, json={"a": 1}, timeout=5)  # type: ignore[attr-defined]


async def _aiohttp(url: str) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        async with session.post(url, json={"a": 1}) as response:
            await response.read()


def _urllib3(url: str) -> object:
    return urllib3.request("POST", url, json={"a": 1}, retries=False, timeout=5)


def _urllib(url: str) -> bytes:
    request = urllib.request.Request(url, data=b'{"a": 1}', headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.read()


def _http_client(url: str) -> bytes:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    connection = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        connection.request("POST", "/orders", body=b'{"a": 1}', headers={"Content-Type": "application/json"})
        return connection.getresponse().read()
    finally:
        connection.close()


CLIENTS = {
    "httpx": _httpx(httpx),
    "httpx2": _httpx(httpx2),
    "aiohttp": _aiohttp,
    "requests": lambda url: requests.post(url, json={"a": 1}, timeout=5),
    "urllib3": _urllib3,
    "urllib": _urllib,
    "http.client": _http_client,
}


@pytest.fixture(params=list(ANSWERS))
def peer(request: pytest.FixtureRequest) -> Iterator[str]:
    with closing_listener(ANSWERS[request.param], read_first=True) as port:
        yield f"http://{HOST}:{port}/orders"


@pytest.mark.parametrize("client", list(CLIENTS))
def test_answer_lost_after_the_request_arrived(client: str, peer: str) -> None:
    exc = raised(lambda: CLIENTS[client](peer))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


async def _aiohttp_json(url: str) -> object:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        async with session.get(url) as response:
            return await response.json()


JSON_READERS = {
    "httpx": lambda url: httpx.get(url, timeout=5).json(),
    "httpx2": lambda url: httpx2.get(url, timeout=5).json(),
    "requests": lambda url: requests.get(url, timeout=5).json(),
    "aiohttp": _aiohttp_json,
    "urllib": lambda url: json.loads(_urllib_get(url)),
}


def _urllib_get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read()


@pytest.mark.parametrize("client", list(JSON_READERS))
def test_answer_the_tool_cannot_read(client: str) -> None:
    page = "<html><body><h1>Down for maintenance</h1></body></html>"
    with answering(200, page, {"Content-Type": "text/html"}) as port:
        exc = raised(lambda: JSON_READERS[client](f"http://{HOST}:{port}/v1/orders"))
    assert isinstance(exc, ValueError | aiohttp.ContentTypeError)  # aiohttp checks the Content-Type first
    check(exc, C.UNKNOWN if client == "urllib" else C.UPSTREAM_UNAVAILABLE, None)
