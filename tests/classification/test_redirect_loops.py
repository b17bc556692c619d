"""HTTP clients that gave up following an upstream's redirects, on 127.0.0.1: a path that redirects to itself
(elastic/docs-builder PR #2728: a 301 to itself), and a redirect without a ``Location``.

Every answer was a redirect (RFC 9110 §15.4: the target asks for another request, it did not act), so nothing was
applied; the URL or the upstream's routing must change: ``upstream_unavailable``, not sent, with the upstream's
address. requests, httpx and aiohttp raise their ``TooManyRedirects``; urllib raises its ``HTTPError`` with the 3xx
it would not follow (a loop it saw repeat, no ``Location``), which is no error status and read as nothing known before.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable

import aiohttp
import httpx
import pytest
import requests

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream


async def _aiohttp(url: str) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        await session.get(url)


CLIENTS: dict[str, tuple[Callable[[str], object], type[BaseException]]] = {
    "requests": (lambda url: requests.get(url, timeout=5), requests.TooManyRedirects),
    "httpx": (lambda url: httpx.get(url, follow_redirects=True, timeout=5), httpx.TooManyRedirects),
    "aiohttp": (_aiohttp, aiohttp.TooManyRedirects),
    "urllib": (lambda url: urllib.request.urlopen(url, timeout=5), urllib.error.HTTPError),
}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_redirect_to_itself(client: str) -> None:
    """A 302 whose ``Location`` is its own path: the client gives up, nothing was done, the upstream is named."""
    with HttpUpstream() as server:
        url = server.scripted(302, headers={"Location": "/scripted/0"})  # a new server's first script: its own path
        assert url == f"{server.url}/scripted/0"
        call, exc_type = CLIENTS[client]
        exc = raised(lambda: call(url))
    assert isinstance(exc, exc_type)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{server.port}"


def test_urllib_redirect_without_location(upstream: HttpUpstream) -> None:
    """urllib's ``HTTPError`` for a 301 that names no ``Location``: the status is the upstream's."""
    exc = raised(lambda: urllib.request.urlopen(upstream.scripted(301), timeout=5))
    assert isinstance(exc, urllib.error.HTTPError) and exc.code == 301
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None
    assert (result.upstream.status, result.upstream.address) == ("301", f"{HOST}:{upstream.port}")


def test_urllib_error_status_still_read_as_status(upstream: HttpUpstream) -> None:
    """The control: an ``HTTPError`` with an error status keeps its own reading (a 404 is not there)."""
    exc = raised(lambda: urllib.request.urlopen(upstream.scripted(404), timeout=5))
    assert isinstance(exc, urllib.error.HTTPError)
    result = check(exc, C.NOT_FOUND, False)
    assert result.upstream is not None and result.upstream.status == "404"
