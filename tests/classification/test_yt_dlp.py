"""yt-dlp (a media tool's downloader) against real HTTP servers on 127.0.0.1, through its generic extractor.

yt-dlp reports every failure as one ``DownloadError`` whose text is its own line ("ERROR: [generic] v: Unable to
download webpage: HTTP Error 404: ...") and keeps what it caught, the extractor's error over its networking layer's
``HTTPError`` (the status) or ``TransportError`` (the urllib3 failure under it), as its ``exc_info``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests.adapters

_REQUESTS_SOCKS = requests.adapters.SOCKSProxyManager
yt_dlp = pytest.importorskip("yt_dlp")
import yt_dlp.networking  # noqa: E402  (its requests handler, imported now: what it replaces is put back below)

# yt-dlp replaces requests' SOCKS proxy manager with its own on import (yt_dlp/networking/_requests.py): every other
# test of this process would go through it (test_proxies' requests cases)
requests.adapters.SOCKSProxyManager = _REQUESTS_SOCKS

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener  # noqa: E402


def _extract(url: str) -> Callable[[], Any]:
    def run() -> None:
        options = {"quiet": True, "no_warnings": True, "socket_timeout": 1, "retries": 0, "extractor_retries": 0,
                   "logger": _Silent()}
        with yt_dlp.YoutubeDL(options) as ydl:
            ydl.extract_info(url, download=False)
    return run


class _Silent:
    def debug(self, msg: str) -> None: ...
    def warning(self, msg: str) -> None: ...
    def error(self, msg: str) -> None: ...


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),  # a video site's refusal of the client
    (404, C.NOT_FOUND, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool) -> None:
    exc = raised(_extract(upstream.scripted(status, "no", {"Content-Type": "text/html"}) + "/watch"))
    assert isinstance(exc, yt_dlp.utils.DownloadError) and f"HTTP Error {status}" in str(exc)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("stall", True), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_extract(upstream.failing(where) + "/watch"))
    assert isinstance(exc, yt_dlp.utils.DownloadError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_closed_after_the_request() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_extract(f"http://{HOST}:{port}/watch"))
    assert "Remote end closed connection" in str(exc)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_to_a_plain_server(upstream: HttpUpstream) -> None:
    exc = raised(_extract(f"https://{HOST}:{upstream.port}/watch"))
    assert "SSL" in str(exc)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
