"""SDKs generated from an OpenAPI document (OpenAPI Generator's Python client, urllib3 underneath: HubSpot's;
Pinecone's, its generated core wrapped in its own ``pinecone.errors``), against a real HTTP server on 127.0.0.1
with their retries off.

The generated client raises ``ApiException`` subclasses per status (``UnauthorizedException``,
``NotFoundException``, ``ServiceException``) keeping ``status``, ``headers`` and ``body``; a dead peer is
urllib3's own exception (HubSpot) or the SDK's ``PineconeConnectionError`` raised from the transport's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hubspot import HubSpot
from pinecone import Pinecone, RetryConfig

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5
Call = Callable[[str, float], Callable[[], Any]]


def _hubspot(base: str, timeout: float = 5) -> Callable[[], Any]:
    contacts = HubSpot(access_token="pat-test", host=base, retry=False).crm.contacts.basic_api
    return lambda: contacts.get_by_id("1", _request_timeout=timeout)


def _pinecone(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = Pinecone(api_key="pc-test", host=base, timeout=timeout, retry_config=RetryConfig(max_retries=0))
    return lambda: client.describe_index("orders")


SDKS = [pytest.param(_hubspot, id="hubspot"), pytest.param(_pinecone, id="pinecone")]
_BODY = json.dumps({"status": "error", "message": "the upstream said no", "category": "OBJECT_NOT_FOUND",
                    "error": {"code": "NOT_FOUND", "message": "the upstream said no"}})


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
    (400, None, C.INVALID_INPUT, False, None),
    (401, None, C.PERMISSION_DENIED, False, None),
    (403, None, C.PERMISSION_DENIED, False, None),
    (404, None, C.NOT_FOUND, False, None),
    (409, None, C.INVALID_INPUT, False, None),
    (429, "3", C.RATE_LIMITED, False, 3.0),
    (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, "2", C.UPSTREAM_UNAVAILABLE, False, 2.0),
])
def test_status(upstream: HttpUpstream, sdk: Call, status: int, retry_after: str | None, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
    exc = raised(sdk(upstream.scripted(status, _BODY, headers), 5))
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_connection(upstream: HttpUpstream, sdk: Call, where: str, side_effect: bool) -> None:
    check(raised(sdk(upstream.failing(where), 5)), C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize("sdk", SDKS)
def test_read_timeout(upstream: HttpUpstream, sdk: Call) -> None:
    check(raised(sdk(upstream.failing("stall"), SHORT)), C.UPSTREAM_UNAVAILABLE, True)
