"""A successful HTTP answer a tool cannot read: an upstream on 127.0.0.1 answers 200 with what is not the JSON the
API promised (a proxy's or a login portal's HTML page, an empty body), or JSON whose shape is not the API's.

When the HTTP client's own ``Response.json()`` fails (requests' ``JSONDecodeError``, the ``json.JSONDecodeError``
raised inside httpx's or aiohttp's ``json()``, aiohttp's ``ContentTypeError`` with the 200 it got), the upstream
answered something other than its API: the upstream is at fault (``upstream_unavailable``); whether it acted is
open (the page may be an intermediary's: a load balancer's maintenance page, a proxy's, a login portal's). The same decode error raised by the tool's own ``json.loads`` does not say whose
text it was (the model's arguments, a file): ``unknown``. A schema check of the answer (pydantic, jsonschema)
inside the tool is the tool's data, never the model's input: ``unknown``, not ``invalid_input``.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import aiohttp
import httpx
import jsonschema
import openai
import pydantic
import pytest
import requests
from mistralai.client import Mistral

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

HTML = "<html><body><h1>Sign in to the guest network</h1></body></html>"

# (body, Content-Type): what a 200 carries instead of the API's JSON
UNREADABLE = [
    pytest.param(HTML, "text/html", id="html-page"),
    pytest.param("", "application/json", id="empty-body"),
    pytest.param('{"id": "ord_1", "amount": ', "application/json", id="cut-json"),
]


def _url(upstream: HttpUpstream, body: str, content_type: str) -> str:
    return upstream.scripted(200, body, {"Content-Type": content_type}) + "/v1/orders/ord_1"


@pytest.mark.parametrize(("body", "content_type"), UNREADABLE)
def test_requests_json(upstream: HttpUpstream, body: str, content_type: str) -> None:
    url = _url(upstream, body, content_type)
    exc = raised(lambda: requests.get(url, timeout=5).json())
    assert isinstance(exc, requests.exceptions.JSONDecodeError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize(("body", "content_type"), UNREADABLE)
def test_httpx_json(upstream: HttpUpstream, body: str, content_type: str) -> None:
    url = _url(upstream, body, content_type)
    exc = raised(lambda: httpx.get(url, timeout=5).json())
    assert isinstance(exc, json.JSONDecodeError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


@pytest.mark.parametrize(("body", "content_type"), UNREADABLE)
def test_httpx_async_json(upstream: HttpUpstream, body: str, content_type: str) -> None:
    url = _url(upstream, body, content_type)

    async def run() -> None:
        async with httpx.AsyncClient(timeout=5) as client:
            (await client.get(url)).json()

    exc = raised(run)
    assert isinstance(exc, json.JSONDecodeError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_aiohttp_json_of_a_html_page(upstream: HttpUpstream) -> None:
    # aiohttp checks the Content-Type first: ContentTypeError, a ClientResponseError with the 200 it got.
    url = _url(upstream, HTML, "text/html")

    async def run() -> None:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            await response.json()

    exc = raised(run)
    assert isinstance(exc, aiohttp.ContentTypeError) and exc.status == 200
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_aiohttp_json_of_a_html_error_page(upstream: HttpUpstream) -> None:
    # The same ContentTypeError over a 404's HTML page (the tool did not call raise_for_status): the status decides.
    url = upstream.scripted(404, HTML, {"Content-Type": "text/html"}) + "/v1/orders/ord_1"

    async def run() -> None:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            await response.json()

    exc = raised(run)
    assert isinstance(exc, aiohttp.ContentTypeError) and exc.status == 404
    check(exc, C.NOT_FOUND, False)


def test_aiohttp_json_without_the_type_check(upstream: HttpUpstream) -> None:
    url = _url(upstream, '{"id": ', "application/json")

    async def run() -> None:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            await response.json(content_type=None)

    exc = raised(run)
    assert isinstance(exc, json.JSONDecodeError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_tool_decodes_the_text_itself(upstream: HttpUpstream) -> None:
    # json.loads in the tool's own code: the text could be anything (the model's arguments too): no rule says whose.
    url = _url(upstream, HTML, "text/html")

    def run() -> None:
        with urllib.request.urlopen(url, timeout=5) as response:
            json.loads(response.read())

    exc = raised(run)
    assert isinstance(exc, json.JSONDecodeError)
    check(exc, C.UNKNOWN, None)


class Order(pydantic.BaseModel):
    id: str
    amount: float


@pytest.mark.parametrize("answer", [
    pytest.param('{"id": "ord_1"}', id="missing-field"),
    pytest.param('{"id": "ord_1", "amount": "ten"}', id="wrong-type"),
])
def test_pydantic_check_of_the_answer(upstream: HttpUpstream, answer: str) -> None:
    url = _url(upstream, answer, "application/json")
    exc = raised(lambda: Order.model_validate(httpx.get(url, timeout=5).json()))
    assert isinstance(exc, pydantic.ValidationError)
    check(exc, C.UNKNOWN, None)


def test_pydantic_validate_json_of_the_answer(upstream: HttpUpstream) -> None:
    url = _url(upstream, HTML, "text/html")
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(Order)
    exc = raised(lambda: adapter.validate_json(httpx.get(url, timeout=5).content))
    assert isinstance(exc, pydantic.ValidationError)
    check(exc, C.UNKNOWN, None)


def test_jsonschema_check_of_the_answer(upstream: HttpUpstream) -> None:
    url = _url(upstream, '{"id": 7}', "application/json")
    schema = {"type": "object", "required": ["id", "amount"], "properties": {"id": {"type": "string"}}}
    exc = raised(lambda: jsonschema.validate(requests.get(url, timeout=5).json(), schema))
    assert isinstance(exc, jsonschema.ValidationError)
    check(exc, C.UNKNOWN, None)


def _mistral(base: str) -> Any:
    client = Mistral(api_key="mistral-test", server_url=base, timeout_ms=5000)
    return lambda: client.chat.complete(model="mistral-test", messages=[{"role": "user", "content": "hi"}])


def _openai_strict(base: str) -> Any:
    # strict response validation: the SDK checks the answer against its schema (by default it trusts it)
    client = openai.OpenAI(api_key="sk-test", base_url=base, max_retries=0, _strict_response_validation=True)
    return lambda: client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}])


@pytest.mark.parametrize(("body", "content_type"), [
    pytest.param('{"id": 7}', "application/json", id="not-the-schema"),
    pytest.param(HTML, "text/html", id="html-page"),
])
@pytest.mark.parametrize("sdk", [pytest.param(_mistral, id="mistralai"), pytest.param(_openai_strict, id="openai")])
def test_sdk_cannot_use_a_successful_answer(upstream: HttpUpstream, sdk: Any, body: str, content_type: str) -> None:
    # Speakeasy's ResponseValidationError/SDKError (mistralai) and OpenAI's APIResponseValidationError keep the 200
    # they got: the upstream answered, not as its API does.
    exc = raised(sdk(upstream.scripted(200, body, {"Content-Type": content_type})))
    assert getattr(exc, "status_code", None) == 200 or getattr(getattr(exc, "response", None), "status_code", 0) == 200
    result = check(exc, C.UPSTREAM_UNAVAILABLE, None)
    assert result.upstream is not None and result.upstream.status == "200"
