"""Work-tracking and document APIs a tool drives, through their Python clients against real sockets on 127.0.0.1:
Redmine (python-redmine, over requests), Zotero (pyzotero, over httpx2) and Box (box-sdk-gen, over requests).

- python-redmine raises one class per status (``ResourceNotFoundError``, ``ValidationError`` with the body's
  ``errors``, ...) and keeps none; other statuses as ``UnknownError`` with the status in its text.
- pyzotero raises one class per status with the status in its text; on a 429 it waits out ``Backoff``/``Retry-After``
  and retries, and gives up with ``TooManyRetriesError``.
- box-sdk-gen's ``BoxAPIError`` keeps the answer as ``response_info`` (status, headers, the body's ``code``); a
  transport failure is a ``BoxSDKError`` that keeps the requests exception as ``.error``, not chained.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import HTTP_STATUSES, check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener, silent_listener

STATUSES = [*HTTP_STATUSES, (409, None, C.INVALID_INPUT, False, None), (422, None, C.INVALID_INPUT, False, None)]
BOX_CODES = {400: "bad_request", 401: "unauthorized", 403: "access_denied_insufficient_permissions", 404: "not_found",
             409: "item_name_in_use", 413: "file_size_limit_exceeded", 422: "unprocessable_entity",
             429: "rate_limit_exceeded", 500: "internal_server_error", 502: "bad_gateway", 503: "unavailable",
             504: "gateway_timeout"}


def _headers(retry_after: str | None) -> dict[str, str]:
    return {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}


def _redmine(url: str) -> Callable[[], Any]:
    redminelib = pytest.importorskip("redminelib")
    redmine = redminelib.Redmine(url, key="0123456789abcdef", requests={"timeout": 1})
    return lambda: redmine.issue.create(project_id="support", subject="refund order 17")


def _zotero(url: str) -> Callable[[], Any]:
    httpx2 = pytest.importorskip("httpx2")
    zotero = pytest.importorskip("pyzotero.zotero")
    library = zotero.Zotero("475425", "user", "0123456789abcdef", client=httpx2.Client(timeout=1))
    library.endpoint = url  # https://api.zotero.org by default
    return lambda: library.item("ABCD2345")


def _box(url: str) -> Callable[[], Any]:
    box = pytest.importorskip("box_sdk_gen")
    session = box.NetworkSession(
        base_urls=box.BaseUrls(base_url=f"{url}/2.0", upload_url=f"{url}/api/2.0", oauth_2_url=f"{url}/oauth2"),
        retry_strategy=box.BoxRetryStrategy(max_attempts=1, max_retries_on_exception=0))
    client = box.BoxClient(auth=box.BoxDeveloperTokenAuth(token="developer-token"), network_session=session)
    return lambda: client.files.get_file_by_id("12345")


def _body(api: str, status: int) -> str:
    if api == "box":
        return json.dumps({"type": "error", "status": status, "code": BOX_CODES[status], "message": "refused",
                           "request_id": "abc123"})
    if api == "redmine":
        return json.dumps({"errors": ["Subject cannot be blank"]}) if status == 422 else ""
    return "Not found" if status == 404 else "Zotero refused the request"  # the Zotero API answers plain text


CALLS = {"redmine": _redmine, "zotero": _zotero, "box": _box}
NO_HEADERS = {"redmine"}  # pyzotero's status errors are raised from httpx2's, whose response has the headers


@pytest.mark.parametrize("api", list(CALLS))
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_status(upstream: HttpUpstream, api: str, status: int, retry_after: str | None, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    if api == "zotero" and retry_after and status == 429:
        retry_after, wait = "0", None  # pyzotero waits it out before each of its retries, then gives up
    exc = raised(CALLS[api](upstream.scripted(status, _body(api, status), _headers(retry_after))))
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == (None if api in NO_HEADERS else wait)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("api", list(CALLS))
@pytest.mark.parametrize("where", ["refused", "unresolvable"])
def test_cannot_connect(upstream: HttpUpstream, api: str, where: str) -> None:
    check(raised(CALLS[api](upstream.failing(where))), C.UPSTREAM_UNAVAILABLE, False)


# Box's timeouts are fixed, (5, 60) seconds; python-redmine's send against a silent listener outlived the suite's
# timeout although given requests' timeout=1 (not investigated)
@pytest.mark.parametrize("api", ["zotero"])
def test_no_answer(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyzotero passes its own 30 s read timeout with each GET, over the client's: the same ReadTimeout after 1 s
    monkeypatch.setattr("pyzotero._client.DEFAULT_TIMEOUT", 1)
    with silent_listener() as port:
        exc = raised(CALLS[api](f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("api", list(CALLS))
def test_closed_after_the_request(api: str) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(CALLS[api](f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("api", list(CALLS))
def test_tls_to_a_plain_http_port(upstream: HttpUpstream, api: str) -> None:
    check(raised(CALLS[api](upstream.url.replace("http://", "https://"))), C.UPSTREAM_UNAVAILABLE, False)


def test_box_transport_failure_kept_unchained(upstream: HttpUpstream) -> None:
    exc = raised(_box(upstream.failing("refused")))
    assert type(exc).__name__ == "BoxSDKError" and exc.__cause__ is None and exc.__context__ is None
    assert type(exc.error).__name__ == "ConnectionError"  # type: ignore[attr-defined]
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
