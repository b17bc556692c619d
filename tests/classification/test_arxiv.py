"""The ``arxiv`` package (the arXiv API's Python wrapper, over requests) against a real HTTP server on 127.0.0.1 in
the place of ``export.arxiv.org`` (``Client.query_url_format``).

arxiv retries a non-200 answer and a requests ``ConnectionError`` ``num_retries`` times, then raises the last: its
``HTTPError(url, retry, status)`` (the status kept as ``status``, no response, no headers), or requests' own error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

arxiv = pytest.importorskip("arxiv")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, answering, closed_port, closing_listener  # noqa: E402

ERROR_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>arXiv Query: search_query=&amp;id_list=1234.12345</title>
<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id><title>Error</title>
<summary>incorrect id format for 1234.12345</summary></entry></feed>"""


def _search(port: int, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Any]:
    monkeypatch.setattr(arxiv.Client, "query_url_format", f"http://{HOST}:{port}/api/query?{{}}")
    client = arxiv.Client(page_size=5, delay_seconds=0, num_retries=1)
    return lambda: list(client.results(arxiv.Search(query="refund ledgers", max_results=5)))


@pytest.mark.parametrize(("status", "headers", "failure_class", "side_effect"), [
    (400, {}, C.INVALID_INPUT, False),
    (403, {}, C.PERMISSION_DENIED, False),  # arXiv's block of a client that ignored its limits
    (429, {"Retry-After": "30"}, C.RATE_LIMITED, False),
    (500, {}, C.UPSTREAM_UNAVAILABLE, True),
    (503, {"Retry-After": "10"}, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(monkeypatch: pytest.MonkeyPatch, status: int, headers: dict[str, str], failure_class: C,
                side_effect: bool) -> None:
    with answering(status, ERROR_FEED, {"Content-Type": "application/atom+xml", **headers}) as port:
        exc = raised(_search(port, monkeypatch))
    assert type(exc) is arxiv.HTTPError and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = raised(_search(closed_port(), monkeypatch))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_answering(monkeypatch: pytest.MonkeyPatch) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_search(port, monkeypatch))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
