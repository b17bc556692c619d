"""kubernetes_asyncio (the OpenAPI-generated asyncio client of the Kubernetes API, over aiohttp) against real HTTP
servers on 127.0.0.1: the API server's ``Status`` answers, and aiohttp's own errors for a dead peer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import pytest

k8s = pytest.importorskip("kubernetes_asyncio.client")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "AlreadyExists", 422: "Invalid",
           429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}


def _read_pod(url: str) -> Callable[[], Awaitable[object]]:
    async def run() -> object:
        config = k8s.Configuration(host=url)
        config.api_key = {"authorization": "Bearer token"}
        async with k8s.ApiClient(config) as api:
            return await k8s.CoreV1Api(api).read_namespaced_pod("worker", "default", _request_timeout=1)
    return run


@pytest.mark.parametrize(("status", "failure_class", "side_effect", "wait"), [
    (401, C.PERMISSION_DENIED, False, None),
    (403, C.PERMISSION_DENIED, False, None),
    (404, C.NOT_FOUND, False, None),
    (409, C.INVALID_INPUT, False, None),
    (422, C.INVALID_INPUT, False, None),
    (429, C.RATE_LIMITED, False, 3.0),  # the API server's priority and fairness: Retry-After
    (500, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_status(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool, wait: float | None) -> None:
    body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "no",
                       "reason": REASONS[status], "code": status})
    exc = raised(_read_pod(upstream.scripted(status, body, {"Retry-After": "3"} if status == 429 else None)))
    assert type(exc) is k8s.exceptions.ApiException and exc.status == status
    assert check(exc, failure_class, side_effect).retry_after == wait


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("stall", True), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_read_pod(upstream.failing(where)))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
