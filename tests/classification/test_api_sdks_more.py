"""More vendor SDKs a tool calls, against a real HTTP server on 127.0.0.1, each with its own
retries off: mistralai (httpx underneath), huggingface_hub, qdrant-client's REST
client, twilio, jira and atlassian-python-api (requests underneath). Each keeps the HTTP status
its own way (``code``, ``status_code``, ``status``, its ``response``); a dead peer is the
transport's own exception, raised bare or wrapped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from atlassian import Jira as AtlassianJira
from huggingface_hub import HfApi
from jira import JIRA
from mistralai.client import Mistral
from qdrant_client import QdrantClient
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client as TwilioClient

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.3
Call = Callable[[str, float], Callable[[], Any]]


def _mistral(base: str, timeout: float) -> Callable[[], Any]:
    client = Mistral(api_key="mistral-test", server_url=base, timeout_ms=int(timeout * 1000))
    return lambda: client.chat.complete(model="mistral-test", messages=[{"role": "user", "content": "hi"}])


def _huggingface(base: str, timeout: float) -> Callable[[], Any]:
    client = HfApi(endpoint=base, token=False)
    return lambda: client.model_info("acme/orders-model", timeout=timeout)


def _qdrant(base: str, timeout: float) -> Callable[[], Any]:
    client = QdrantClient(url=base, timeout=max(1, round(timeout)), check_compatibility=False)
    return lambda: client.get_collection("orders")


def _twilio(base: str, timeout: float) -> Callable[[], Any]:
    client = TwilioClient("ACtest", "auth-token", http_client=TwilioHttpClient(timeout=timeout))
    client.api.base_url = base
    return lambda: client.api.v2010.accounts("ACtest").messages.create(to="+15550001", from_="+15550002", body="hi")


def _jira(base: str, timeout: float) -> Callable[[], Any]:
    client = JIRA(base, get_server_info=False, max_retries=0, timeout=timeout, basic_auth=("u", "p"))
    return lambda: client.issue("OPS-1")


def _atlassian(base: str, timeout: float) -> Callable[[], Any]:
    client = AtlassianJira(base, username="u", password="p", timeout=max(1, round(timeout)))
    return lambda: client.issue("OPS-1")


SDKS = [pytest.param(call, id=call.__name__.strip("_"))
        for call in (_mistral, _huggingface, _qdrant, _twilio, _jira, _atlassian)]

# A JSON error body; each SDK reads its own fields, none of which errscope needs.
_BODY = json.dumps({"error": {"code": 0, "message": "refused", "status": "X"}, "message": "refused", "code": 20000,
                    "status": {"error": "refused"}, "errorMessages": ["refused"]})


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (404, C.NOT_FOUND, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(upstream: HttpUpstream, sdk: Call, status: int, failure_class: C, side_effect: bool) -> None:
    exc = raised(sdk(upstream.scripted(status, _BODY), 5))
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_connection(upstream: HttpUpstream, sdk: Call, where: str, side_effect: bool) -> None:
    exc = raised(sdk(upstream.failing(where), 5))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize("sdk", [pytest.param(_mistral, id="mistral"),
                                 pytest.param(_twilio, id="twilio"), pytest.param(_jira, id="jira")])
def test_read_timeout(upstream: HttpUpstream, sdk: Call) -> None:
    check(raised(sdk(upstream.failing("stall"), SHORT)), C.UPSTREAM_UNAVAILABLE, True)


def test_qdrant_rate_limit_keeps_retry_after(upstream: HttpUpstream) -> None:
    # qdrant-client raises its own ResourceExhaustedResponse for a 429 (the status itself not kept)
    exc = raised(_qdrant(upstream.scripted(429, _BODY, {"Retry-After": "3"}), 5))
    assert type(exc).__name__ == "ResourceExhaustedResponse"
    assert check(exc, C.RATE_LIMITED, False).retry_after == 3.0


@pytest.mark.parametrize(("status", "code", "failure_class"), [
    # The Hub answers 401 for a repository that does not exist (or is private: it will not say which), naming it
    # in X-Error-Code; huggingface_hub raises RepositoryNotFoundError. The model asked for a name that is not there.
    (401, "RepoNotFound", C.NOT_FOUND),
    (404, "RevisionNotFound", C.NOT_FOUND),
    (403, "GatedRepo", C.PERMISSION_DENIED),
])
def test_huggingface_error_codes(upstream: HttpUpstream, status: int, code: str, failure_class: C) -> None:
    exc = raised(_huggingface(upstream.scripted(status, _BODY, {"X-Error-Code": code}), 5))
    check(exc, failure_class, False)


def test_mistral_validation_error(upstream: HttpUpstream) -> None:
    body = json.dumps({"detail": [{"loc": ["body", "temperature"], "msg": "too high", "type": "value_error"}]})
    exc = raised(_mistral(upstream.scripted(422, body), 5))
    assert type(exc).__name__ == "HTTPValidationError"
    check(exc, C.INVALID_INPUT, False)
