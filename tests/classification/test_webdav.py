"""webdav4 (WebDAV over httpx: Nextcloud, ownCloud, SharePoint-style file stores) against real HTTP servers on
127.0.0.1.

webdav4 raises its own ``HTTPError`` ("received 403 (…)", the response kept) for a status it has no class for,
``ResourceNotFound`` for a 404 and ``InsufficientStorage`` for RFC 4918's 507, neither keeping the status; a dead
peer is httpx's own exception.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

webdav4_client = pytest.importorskip("webdav4.client")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener  # noqa: E402


def _client(url: str) -> Any:
    return webdav4_client.Client(url, auth=("tool", "pw"), timeout=1)


def _list(url: str) -> Callable[[], Any]:
    return lambda: _client(url).ls("/reports")


def _upload(url: str) -> Callable[[], Any]:
    return lambda: _client(url).upload_fileobj(io.BytesIO(b"quarterly"), "/reports/q3.txt", overwrite=True)


@pytest.mark.parametrize("call", [_list, _upload], ids=["PROPFIND", "PUT"])
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),
    (409, C.INVALID_INPUT, False),  # RFC 4918 §9.7.1: a PUT under a collection that does not exist
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(upstream: HttpUpstream, call: Callable[[str], Callable[[], Any]], status: int, failure_class: C,
                side_effect: bool) -> None:
    exc = raised(call(upstream.scripted(status, "no", {"Content-Type": "text/plain"})))
    assert type(exc) is webdav4_client.HTTPError and exc.status_code == status
    check(exc, failure_class, side_effect)


def test_not_found(upstream: HttpUpstream) -> None:
    exc = raised(_list(upstream.scripted(404, "no", {"Content-Type": "text/plain"})))
    assert type(exc) is webdav4_client.ResourceNotFound
    check(exc, C.NOT_FOUND, None)  # the status is not kept: as every name-only NotFound


def test_insufficient_storage(upstream: HttpUpstream) -> None:
    exc = raised(_upload(upstream.scripted(507, "no", {"Content-Type": "text/plain"})))
    assert type(exc) is webdav4_client.InsufficientStorage
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("stall", True), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_upload(upstream.failing(where)))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_closed_after_the_request() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_list(f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
