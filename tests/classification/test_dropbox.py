"""The Dropbox SDK (over requests) against a real HTTP server on 127.0.0.1 that answers in the Dropbox API's shapes.

The SDK builds ``https://api.dropboxapi.com/2/<route>`` itself; the session it is given carries an adapter that sends
each request to the local server instead (the only stand-in: the SDK, requests and the server are real). A route's
own refusal (409 "Endpoint-specific error") is ``ApiError`` holding the route's error union (``path`` /
``not_found``), no status; 400 is ``BadInputError``, 401 ``AuthError``, 429 ``RateLimitError`` with its ``backoff``,
5xx ``InternalServerError``; a dead peer is requests' own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

dropbox = pytest.importorskip("dropbox")

import requests  # noqa: E402
from requests.adapters import HTTPAdapter  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

JSON = {"Content-Type": "application/json"}


class _ToLocal(HTTPAdapter):
    """Sends what the SDK addresses to Dropbox's hosts to ``base`` (path kept)."""

    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        request.url = f"{self.base}/{str(request.url).split('/', 3)[3]}"
        return super().send(request, **kwargs)


def _call(base: str, route: str) -> Callable[[], Any]:
    session = requests.Session()
    session.mount("https://", _ToLocal(base))
    dbx = dropbox.Dropbox(oauth2_access_token="sl.test-token", session=session, max_retries_on_error=0,
                          max_retries_on_rate_limit=0, timeout=0.5)
    return {
        "get_metadata": lambda: dbx.files_get_metadata("/refunds/17.pdf"),
        "download": lambda: dbx.files_download("/refunds"),
        "upload": lambda: dbx.files_upload(b"%PDF-1.7", "/refunds/17.pdf"),
        "move": lambda: dbx.files_move_v2("/refunds/17.pdf", "/archive/17.pdf"),
    }[route]


def _union(*tags: str) -> dict[str, Any]:
    """``("path", "not_found")`` as the wire's nested union: ``{".tag": "path", "path": {".tag": "not_found"}}``."""
    inner: dict[str, Any] = {".tag": tags[-1]}
    for tag in reversed(tags[:-1]):
        inner = {".tag": tag, tag: inner}
    return inner


def _write_failed(*tags: str) -> dict[str, Any]:
    # files/upload's UploadError.path is a struct (UploadWriteFailed) whose ``reason`` is a WriteError
    return {".tag": "path", "reason": _union(*tags), "upload_session_id": "AAAAAAAAAAA"}


@pytest.mark.parametrize(("route", "error", "failure_class", "status"), [
    ("get_metadata", _union("path", "not_found"), C.NOT_FOUND, "path/not_found"),
    ("get_metadata", _union("path", "malformed_path"), C.INVALID_INPUT, "path/malformed_path"),
    ("get_metadata", _union("path", "restricted_content"), C.PERMISSION_DENIED, "path/restricted_content"),
    ("download", _union("path", "not_file"), C.INVALID_INPUT, "path/not_file"),
    ("upload", _write_failed("conflict", "file"), C.INVALID_INPUT, "path/conflict/file"),
    ("upload", _write_failed("no_write_permission"), C.PERMISSION_DENIED, "path/no_write_permission"),
    ("upload", _write_failed("disallowed_name"), C.INVALID_INPUT, "path/disallowed_name"),
    ("upload", _write_failed("too_many_write_operations"), C.RATE_LIMITED, "path/too_many_write_operations"),
    ("move", _union("from_lookup", "not_found"), C.NOT_FOUND, "from_lookup/not_found"),
    ("move", _union("to", "conflict", "folder"), C.INVALID_INPUT, "to/conflict/folder"),
    ("move", _union("cant_move_folder_into_itself"), C.INVALID_INPUT, "cant_move_folder_into_itself"),
])
def test_route_error(upstream: HttpUpstream, route: str, error: dict[str, Any], failure_class: C, status: str) -> None:
    body = json.dumps({"error_summary": f"{status}/..", "error": error})
    exc = raised(_call(upstream.scripted(409, body, JSON), route))
    assert isinstance(exc, dropbox.exceptions.ApiError)
    result = check(exc, failure_class, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("dropbox", status)


@pytest.mark.parametrize("tag", ["invalid_access_token", "expired_access_token", "missing_scope"])
def test_auth_error(upstream: HttpUpstream, tag: str) -> None:
    error: dict[str, Any] = {".tag": tag, **({"required_scope": "files.metadata.read"} if tag == "missing_scope" else {})}
    body = json.dumps({"error_summary": f"{tag}/..", "error": error})
    exc = raised(_call(upstream.scripted(401, body, JSON), "get_metadata"))
    assert isinstance(exc, dropbox.exceptions.AuthError)
    check(exc, C.PERMISSION_DENIED, False)


def test_rate_limited_with_a_json_body(upstream: HttpUpstream) -> None:
    body = json.dumps({"error_summary": "too_many_requests/..",
                       "error": {"reason": {".tag": "too_many_requests"}, "retry_after": 7}})
    exc = raised(_call(upstream.scripted(429, body, JSON), "upload"))
    assert isinstance(exc, dropbox.exceptions.RateLimitError) and exc.backoff == 7
    assert check(exc, C.RATE_LIMITED, False).retry_after == 7.0


def test_rate_limited_with_retry_after(upstream: HttpUpstream) -> None:
    exc = raised(_call(upstream.scripted(429, "slow down", {"Content-Type": "text/plain", "Retry-After": "9"}),
                       "get_metadata"))
    assert isinstance(exc, dropbox.exceptions.RateLimitError) and exc.backoff == 9
    assert check(exc, C.RATE_LIMITED, False).retry_after == 9.0


@pytest.mark.parametrize(("status", "exc_name", "failure_class", "side_effect"), [
    (400, "BadInputError", C.INVALID_INPUT, False),
    (500, "InternalServerError", C.UPSTREAM_UNAVAILABLE, True),
    (503, "InternalServerError", C.UPSTREAM_UNAVAILABLE, False),
])
def test_http_error(upstream: HttpUpstream, status: int, exc_name: str, failure_class: C, side_effect: bool) -> None:
    text = "Error in call to API function \"files/get_metadata\": request body: path: did not match pattern"
    exc = raised(_call(upstream.scripted(status, text, {"Content-Type": "text/plain"}), "get_metadata"))
    assert type(exc).__name__ == exc_name
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    check(raised(_call(upstream.failing(where), "upload")), C.UPSTREAM_UNAVAILABLE, side_effect)
