"""py-trello (the Trello REST API's client, over requests) against a real HTTP server on 127.0.0.1 in the place of
``api.trello.com`` (its ``http_service``, a requests ``Session`` that sends the client's requests there), answering
with Trello's own answers (plain-text refusals: ``invalid token``, ``The requested resource was not found.``; a 429's
JSON ``{"error": "API_TOKEN_LIMIT_EXCEEDED", "message"}``, https://developer.atlassian.com/cloud/trello/guides/rest-api/rate-limits/).

py-trello raises ``Unauthorized`` for a 401 and ``ResourceUnavailable`` for any other error status, keeping the
status only as the private ``_status`` and in its text ("... (HTTP status: 404)"); requests' own errors escape.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import requests

trello = pytest.importorskip("trello")

# py-trello injects pyOpenSSL into urllib3 at import when it is installed (impacket brings it): undone, so the rest of
# the corpus keeps the standard library's ssl whatever order the modules run in
try:
    from urllib3.contrib import pyopenssl as _pyopenssl

    _pyopenssl.extract_from_urllib3()
except ImportError:  # no pyOpenSSL: nothing was injected
    pass

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


class _Towards(requests.Session):
    """Sends what the client addresses to api.trello.com to ``base`` instead."""

    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return super().request(method, url.replace("https://api.trello.com", self.base), *args, **kwargs)


def _card(base: str) -> Callable[[], Any]:
    client = trello.TrelloClient(api_key="key", api_secret="token", http_service=_Towards(base))
    return lambda: client.get_card("5abbe4b7ddc1b351ef961414")


@pytest.mark.parametrize(("status", "body", "exc_name", "failure_class", "side_effect"), [
    (400, "invalid id", "ResourceUnavailable", C.INVALID_INPUT, False),
    (401, "invalid token", "Unauthorized", C.PERMISSION_DENIED, False),
    (403, "unauthorized card permission requested", "ResourceUnavailable", C.PERMISSION_DENIED, False),
    (404, "The requested resource was not found.", "ResourceUnavailable", C.NOT_FOUND, False),
    (429, json.dumps({"error": "API_TOKEN_LIMIT_EXCEEDED", "message": "Rate limit exceeded"}), "ResourceUnavailable",
     C.RATE_LIMITED, False),
    (500, "Internal Server Error", "ResourceUnavailable", C.UPSTREAM_UNAVAILABLE, True),
    (503, "Service Unavailable", "ResourceUnavailable", C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(upstream: HttpUpstream, status: int, body: str, exc_name: str, failure_class: C,
                side_effect: bool) -> None:
    exc = raised(_card(upstream.scripted(status, body, {"Content-Type": "text/plain; charset=utf-8"})))
    assert type(exc).__name__ == exc_name and exc._status == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_card(upstream.failing(where)))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
