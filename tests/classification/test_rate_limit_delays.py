"""Rate limits and overloads that say how long to wait in milliseconds, as Azure's services send them, through the
SDKs tools call them with, against a real HTTP server on 127.0.0.1.

Azure OpenAI answers 429 with ``retry-after-ms`` (and often ``Retry-After`` in whole seconds beside it); Cosmos DB
and other Azure data services with ``x-ms-retry-after-ms`` and no ``Retry-After`` at all. openai-python reads
``retry-after-ms`` first (``BaseClient._calculate_retry_timeout``) and azure-core's ``RetryPolicy`` reads all three
(``azure.core.pipeline.policies._utils.get_retry_after``): the millisecond value is the more precise one and wins.
A tool's own HTTP client (httpx, requests, aiohttp) carries the same headers on its status error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import openai
import pytest
import requests
from azure.core import PipelineClient
from azure.core import exceptions as azure_errors
from azure.core.rest import HttpRequest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

OPENAI_429 = '{"error": {"code": "429", "message": "Requests to the ChatCompletions_Create Operation have exceeded ' \
             'call rate limit of your current OpenAI S0 pricing tier."}}'
COSMOS_429 = '{"code": "TooManyRequests", "message": "Request rate is large."}'


def _chat(client: Any) -> Callable[[], object]:
    return lambda: client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after-ms": "1500"}, 1.5),
    ({"retry-after-ms": "1500", "Retry-After": "2"}, 1.5),  # the precise one wins, as the SDK's retry does
    ({"Retry-After": "2"}, 2.0),
])
def test_azure_openai_429(upstream: HttpUpstream, headers: dict[str, str], wait: float) -> None:
    base = upstream.scripted(429, OPENAI_429, headers)
    client = openai.AzureOpenAI(api_key="k", api_version="2024-10-21", azure_endpoint=base, max_retries=0, timeout=5)
    exc = raised(_chat(client))
    assert isinstance(exc, openai.RateLimitError)
    assert check(exc, C.RATE_LIMITED, False).retry_after == wait


def test_openai_429_in_milliseconds(upstream: HttpUpstream) -> None:
    base = upstream.scripted(429, OPENAI_429, {"retry-after-ms": "250"})
    exc = raised(_chat(openai.OpenAI(api_key="sk-test", base_url=base, max_retries=0, timeout=5)))
    assert isinstance(exc, openai.RateLimitError)
    assert check(exc, C.RATE_LIMITED, False).retry_after == 0.25


def _azure(base: str) -> Callable[[], None]:
    client = PipelineClient(base_url=base, policies=[])  # no RetryPolicy: the first answer is the failure

    def call() -> None:
        response = client.send_request(HttpRequest("POST", f"{base}/dbs/orders/colls/open/docs"))
        response.raise_for_status()

    return call


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (429, C.RATE_LIMITED, False),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_cosmos_style_wait(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool) -> None:
    base = upstream.scripted(status, COSMOS_429, {"x-ms-retry-after-ms": "800", "x-ms-substatus": "3200"})
    exc = raised(_azure(base))
    assert isinstance(exc, azure_errors.HttpResponseError) and exc.status_code == status
    assert check(exc, failure_class, side_effect).retry_after == 0.8


async def _aiohttp_post(url: str) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5), raise_for_status=True) as session:
        async with session.post(url, json={"a": 1}) as response:
            await response.read()


@pytest.mark.parametrize("client", ["httpx", "requests", "aiohttp"])
@pytest.mark.parametrize("header", ["retry-after-ms", "x-ms-retry-after-ms"])
def test_own_http_client(upstream: HttpUpstream, client: str, header: str) -> None:
    url = upstream.scripted(429, COSMOS_429, {header: "1200"})
    call = {
        "httpx": lambda: httpx.post(url, json={"a": 1}, timeout=5).raise_for_status(),
        "requests": lambda: requests.post(url, json={"a": 1}, timeout=5).raise_for_status(),
        "aiohttp": lambda: _aiohttp_post(url),
    }[client]
    exc = raised(call)
    assert check(exc, C.RATE_LIMITED, False).retry_after == 1.2


def test_millisecond_wait_that_is_no_number(upstream: HttpUpstream) -> None:
    """A malformed value says nothing: no wait, the class stays."""
    url = upstream.scripted(429, COSMOS_429, {"retry-after-ms": "soon"})
    exc = raised(lambda: httpx.post(url, json={"a": 1}, timeout=5).raise_for_status())
    assert check(exc, C.RATE_LIMITED, False).retry_after is None
