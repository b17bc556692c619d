"""Server side of tests/heldout_cases.md, thirtieth round (J465-J468, J471): the root cause lost on the path on-call needs
most.

Each tool fails for real against a peer on 127.0.0.1, and the failure that explains it is out of the exception chain's
sight: a tool that checked the answer's status itself and raised its own error (the status only in a local of the
raising frame), tenacity giving up on a *result* (a ``RetryError`` with no exception anywhere), and a deadline
(``asyncio.timeout``, ``asyncio.wait_for``, ``anyio.fail_after``) that fired while a retry loop slept between refused
attempts. Each asserts the class, whether the request may have been acted on (what the model reads), and
``errscope.upstream.*`` on the tool span; J468 reads the same calls back from exported OTLP-JSON files with ``errscope
explain``'s own code. Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in
process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import backoff
import httpx
import pytest
import requests
import tenacity
from errscope._attributes import (
    ERRSCOPE_RETRY_AFTER,
    ERRSCOPE_UPSTREAM_ADDRESS,
    ERRSCOPE_UPSTREAM_STATUS,
    ERRSCOPE_UPSTREAM_SYSTEM,
)
from errscope.testing import CapturedTelemetry
from mcp import Client
from mcp_types import TextContent

import errscope
from tests.classification.upstreams import HOST, HttpUpstream, closed_port, silent_listener
from tests.server.test_heldout_cases import BUILDERS
from tests.server.test_heldout_cases_24 import facts, failed_call

pytestmark = [pytest.mark.timeout(90)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}
MAYBE_DONE = "may have"


def upstream_of(span: Any) -> tuple[Any, Any, Any]:
    """``errscope.upstream.system``, ``.status`` and ``.address`` of the tool span."""
    attributes = span.attributes
    return (attributes.get(ERRSCOPE_UPSTREAM_SYSTEM), attributes.get(ERRSCOPE_UPSTREAM_STATUS),
            attributes.get(ERRSCOPE_UPSTREAM_ADDRESS))


@pytest.fixture(scope="module")
def upstream() -> Iterator[HttpUpstream]:
    with HttpUpstream() as server:
        yield server


MAINTENANCE = '{"error": {"message": "templates are read-only during maintenance"}}'


# --- J465: the tool's own error, raised beside the answer it checked --------------------------------------------------

def load_template(template_id: str) -> str:
    """Load a contract template (requests, the status checked by hand as most API wrappers do)."""
    response = requests.get(f"{TARGET['url']}/templates/{template_id}", timeout=5)
    if not response.ok:
        raise RuntimeError("Failed to load template")
    return response.text


async def load_agreement(agreement_id: str) -> str:
    """Load an agreement (httpx, the same check)."""
    async with httpx.AsyncClient(timeout=5) as http:
        response = await http.get(f"{TARGET['url']}/agreements/{agreement_id}")
    if response.is_error:
        raise Exception(f"Failed to load agreement {agreement_id}")
    return response.text


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [load_template, load_agreement])
@pytest.mark.parametrize(("status", "headers", "expected", "wait"), [
    (503, {"Retry-After": "30", "Content-Type": "application/json"}, "upstream_unavailable", 30.0),
    (404, {"Content-Type": "application/json"}, "not_found", None),
], ids=["503", "404"])
async def test_j465_own_error_beside_the_answer_it_checked(style: str, tool: Any, status: int, headers: dict[str, str],
                                                         expected: str, wait: float | None, upstream: HttpUpstream,
                                                         telemetry: CapturedTelemetry) -> None:
    """J465 (accordproject/apap #152: every MCP tool checks ``result.ok`` and throws "Failed to load template", dropping
    the status and the body, so a 404, a 400 and a 500 read the same; RageAgainstThePixel/OpenAI-DotNet #486: the
    status behind an MCP failure present in the pipeline but not in the error). The tool raises its own
    ``RuntimeError``/``Exception`` with no chain; the upstream's answer is only a local of the raising frame. It was
    ``unknown`` (the mapping-gap alert) with no upstream on the span: on-call was sent to the tool's code. The answer's
    status decides as any error's would: its class, the wait a 503 asked for, ``errscope.upstream.*`` with the
    address, and a refusal that says nothing was done."""
    TARGET["url"] = upstream.scripted(status, MAINTENANCE, headers)
    span, text = await failed_call(style, telemetry, tool, {tool.__code__.co_varnames[0]: "T-1"})
    assert facts(span) == (expected, False), dict(span.attributes)
    assert upstream_of(span) == ("http", str(status), f"{HOST}:{upstream.port}"), dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_RETRY_AFTER) == wait, dict(span.attributes)
    assert MAYBE_DONE not in text and "Failed to load" not in text, text


def describe_template(template_id: str) -> str:
    """Describe a template: the answer is 200, the tool refuses what it holds."""
    response = requests.get(f"{TARGET['url']}/templates/{template_id}", timeout=5)
    response.raise_for_status()
    if "clauses" not in response.json():
        raise ValueError("template has no clauses")
    return response.text


def template_title(template_id: str) -> str:
    """The template's title, read without checking the status (a 401's body has no ``template``)."""
    response = requests.get(f"{TARGET['url']}/templates/{template_id}", timeout=5)
    return str(response.json()["template"]["title"])


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
async def test_j465_guard_what_the_tool_itself_refused(style: str, upstream: HttpUpstream,
                                                      telemetry: CapturedTelemetry) -> None:
    """J465's guards: a 2xx the tool then refused is the tool's own judgement, and a ``KeyError`` on an error answer's
    body the tool never checked is its own bug (``_PROGRAMMING_ERRORS`` stay ``unknown``, as the held failures of
    ``_held_failure`` do): neither is read as the upstream's answer."""
    TARGET["url"] = upstream.scripted(200, '{"id": "T-1"}', {"Content-Type": "application/json"})
    span, _ = await failed_call(style, telemetry, describe_template, {"template_id": "T-1"})
    assert (facts(span)[0], upstream_of(span)) == ("unknown", (None, None, None)), dict(span.attributes)
    telemetry.exporter.clear()
    TARGET["url"] = upstream.scripted(401, '{"error": "unauthorized"}', {"Content-Type": "application/json"})
    span, _ = await failed_call(style, telemetry, template_title, {"template_id": "T-1"})
    assert (facts(span)[0], upstream_of(span)) == ("unknown", (None, None, None)), dict(span.attributes)


# --- J471: the SDK's ToolError raised beside the answer the tool checked ---------------------------------------------

def _tool_error(style: str) -> type[Exception]:
    if style == "fastmcp":
        from fastmcp.exceptions import ToolError
    else:
        from mcp.server.mcpserver.exceptions import ToolError
    return ToolError


async def export_sales_report(report_id: str) -> str:
    """Export a report; the tool checks the status and raises the SDK's ``ToolError`` with a message of its own."""
    async with httpx.AsyncClient(timeout=5) as http:
        response = await http.post(f"{TARGET['url']}/reports/{report_id}/export")
    if response.status_code != 200:
        raise TARGET["tool_error"](TARGET["message"].format(status=response.status_code))
    return response.text


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("message", ["Could not export the report.", "Reporting API answered {status}."],
                         ids=["own-words", "status-in-words"])
async def test_j471_tool_error_beside_the_answer_it_checked(style: str, message: str, upstream: HttpUpstream,
                                                            telemetry: CapturedTelemetry) -> None:
    """J471 (modelcontextprotocol/python-sdk PR #1119: tool authors catch or check the HTTP status to word their own
    error for the model; accordproject/apap #152). The SDK's ``ToolError`` (MCPServer's, FastMCP's) is the sanctioned
    way to say a tool failed, and its words are read: "Could not export the report." read ``unknown``, and
    "Reporting API answered 503." ``upstream_unavailable`` with no upstream and "not known" whether it ran. The answer
    the tool held decides what the words leave open (never a class the words decided otherwise): the 503's status and
    address on the span, nothing done upstream."""
    TARGET.update(url=upstream.scripted(503, MAINTENANCE, {"Content-Type": "application/json"}),
                  tool_error=_tool_error(style), message=message)
    span, text = await failed_call(style, telemetry, export_sales_report, {"report_id": "R-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert upstream_of(span) == ("http", "503", f"{HOST}:{upstream.port}"), dict(span.attributes)
    assert MAYBE_DONE not in text, text


# --- J466: tenacity giving up on a result -----------------------------------------------------------------------------

async def check_inventory(sku: str) -> str:
    """Check stock, retried by tenacity while the service answers 5xx (``retry_if_result``)."""

    @tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_none(),
                    retry=tenacity.retry_if_result(lambda response: response.status_code >= 500))
    async def fetch() -> httpx.Response:
        async with httpx.AsyncClient(timeout=5) as http:
            return await http.get(f"{TARGET['url']}/inventory/{sku}")

    return (await fetch()).text


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
async def test_j466_tenacity_gave_up_on_a_result(style: str, upstream: HttpUpstream,
                                                 telemetry: CapturedTelemetry) -> None:
    """J466 (jd/tenacity #272 and #50: retrying on a result ends in a ``RetryError`` that holds no exception, "we would
    anyway raise the RetryError"; Mergifyio/mergify PR #2223: "tenacity hide some informations in sentry when the
    original exception is wrapped into a RetryError"). Three 503s, each a result: ``RetryError[<Future … state=finished
    returned Response>]``, no cause, no context. It was ``unknown``; the last attempt's answer decides (tenacity's
    ``last_attempt`` future): ``upstream_unavailable``, a 503 refused the request, its status and address on the
    span."""
    TARGET["url"] = upstream.scripted(503, MAINTENANCE, {"Content-Type": "application/json"})
    span, text = await failed_call(style, telemetry, check_inventory, {"sku": "SKU-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert upstream_of(span) == ("http", "503", f"{HOST}:{upstream.port}"), dict(span.attributes)
    assert MAYBE_DONE not in text and "RetryError" not in text, text


# --- J467: a deadline that fired while a retry loop slept -------------------------------------------------------------

async def _deadline(kind: str, work: Any) -> None:
    if kind == "asyncio.timeout":
        async with asyncio.timeout(1.0):
            await work()
    elif kind == "asyncio.wait_for":
        await asyncio.wait_for(work(), 1.0)
    else:
        with anyio.fail_after(1.0):
            await work()


async def post_ledger_backoff(entry_id: str) -> str:
    """Post a ledger entry; backoff retries a refused connection every 5 s, under the tool's 1 s deadline."""
    async with httpx.AsyncClient(timeout=5) as http:
        @backoff.on_exception(backoff.constant, httpx.ConnectError, interval=5, jitter=None, max_tries=5)
        async def post() -> None:
            await http.post(f"{TARGET['url']}/ledger", json={"entry": entry_id})

        await _deadline(TARGET["deadline"], post)
    return "posted"


async def post_ledger_loop(entry_id: str) -> str:
    """The same with a hand-written loop that keeps its last failure and sleeps after the ``except`` block."""
    async with httpx.AsyncClient(timeout=5) as http:
        async def post() -> None:
            last: Exception | None = None
            for _ in range(5):
                try:
                    await http.post(f"{TARGET['url']}/ledger", json={"entry": entry_id})
                    return
                except httpx.ConnectError as exc:
                    last = exc
                await asyncio.sleep(5)
            raise RuntimeError("ledger unreachable") from last

        await _deadline(TARGET["deadline"], post)
    return "posted"


async def post_ledger_tenacity(entry_id: str) -> str:
    """The same under tenacity, which clears its last outcome before it sleeps."""
    async with httpx.AsyncClient(timeout=5) as http:
        @tenacity.retry(stop=tenacity.stop_after_attempt(5), wait=tenacity.wait_fixed(5),
                        retry=tenacity.retry_if_exception_type(httpx.ConnectError))
        async def post() -> None:
            await http.post(f"{TARGET['url']}/ledger", json={"entry": entry_id})

        await _deadline(TARGET["deadline"], post)
    return "posted"


DEADLINES = ["asyncio.timeout", "asyncio.wait_for", "anyio.fail_after"]


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [post_ledger_backoff, post_ledger_loop])
@pytest.mark.parametrize("deadline", DEADLINES)
async def test_j467_deadline_cut_off_the_wait_between_refused_attempts(style: str, tool: Any, deadline: str,
                                                                      telemetry: CapturedTelemetry) -> None:
    """J467 (jd/tenacity #529 and PR #661: ``asyncio.wait_for`` around a retried coroutine, the deadline landing between
    attempts; aio-libs/aiohttp #930: a timeout's traceback "misleading into a thought that something was prematurely
    cancelled"). The ledger refuses every connection; the loop sleeps 5 s between attempts and the tool's 1 s deadline
    fires during the first sleep. errscope read the ``TimeoutError`` alone: "may have taken effect", no upstream on
    the span, root ``TimeoutError``. A sleeping task had no request in flight; the attempt before the sleep decides
    (the cancellation's implicit cause, backoff sleeping inside its ``except`` block, or the loop's ``last``): nothing
    was sent, the refused ledger's address on the span."""
    TARGET["url"], TARGET["deadline"] = f"http://{HOST}:{closed_port()}", deadline
    span, text = await failed_call(style, telemetry, tool, {"entry_id": "E-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert upstream_of(span) == ("http", "ConnectError", TARGET["url"].removeprefix("http://")), dict(span.attributes)
    assert MAYBE_DONE not in text, text


@pytest.mark.anyio
@pytest.mark.parametrize("style", STYLES)
async def test_j467_guard_what_the_deadline_cannot_tell(style: str, telemetry: CapturedTelemetry) -> None:
    """J467's guards: a deadline that cut off an attempt waiting for its answer (a listener that never answers) may
    have let it act; and under tenacity (stamina too, built on it) nothing of the refused attempt survives the sleep
    (``prepare_for_next_attempt`` clears ``outcome``), so the timeout stays "may have", with no upstream named."""
    with silent_listener() as port:
        TARGET["url"], TARGET["deadline"] = f"http://{HOST}:{port}", "asyncio.timeout"
        span, text = await failed_call(style, telemetry, post_ledger_backoff, {"entry_id": "E-1"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert MAYBE_DONE in text, text
    telemetry.exporter.clear()
    TARGET["url"] = f"http://{HOST}:{closed_port()}"
    span, _ = await failed_call(style, telemetry, post_ledger_tenacity, {"entry_id": "E-1"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert upstream_of(span) == (None, None, None), dict(span.attributes)


# --- J468: errscope explain on J465's and J467's refs -----------------------------------------------------------------

def exported_call(style: str, folder: Path, tool: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    """One failed call of ``tool``, its telemetry exported to OTLP-JSON files in ``folder``; the result's ``_meta``."""
    from errscope._setup import configure_telemetry

    exported = configure_telemetry(f"oncall-{style}", output_dir=folder, set_global=False)
    server = BUILDERS[style]()
    (server.tool if style == "fastmcp" else server.add_tool)(tool)
    errscope.instrument(server, **exported.providers)
    target = server._mcp_server if style == "fastmcp" else server
    seen: dict[str, Any] = {}

    async def drive() -> None:
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool(tool.__name__, arguments)
            assert result.is_error, result
            seen["text"] = " ".join(b.text for b in result.content if isinstance(b, TextContent))
            seen["meta"] = dict(result.meta or {})

    try:
        anyio.run(drive)
    finally:
        exported.shutdown()
    return seen["meta"]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("case", ["J465", "J467"])
def test_j468_explain_reaches_the_upstream(style: str, case: str, upstream: HttpUpstream, tmp_path: Path) -> None:
    """J468 (J465 and J467 on the on-call path). ``errscope explain REF`` finds the call; its tool span and its one log
    record name the upstream that decided (the templates service's 503 and address; the refused ledger's
    ``ConnectError`` and address), say nothing was done upstream (``errscope.side_effect_possible`` false), and the
    printed chain carries no ``unknown``; the root cause printed is the exception the tool raised (J465: its own
    ``RuntimeError``, whose message stays off the model's text) or the refused connection (J467), not the timeout."""
    from errscope._explain import find_chains, render
    from errscope._otlp_json import load

    if case == "J465":
        TARGET["url"] = upstream.scripted(503, MAINTENANCE, {"Retry-After": "30"})
        meta = exported_call(style, tmp_path, load_template, {"template_id": "T-1"})
        expected, root = ("http", "503", f"{HOST}:{upstream.port}"), "RuntimeError"
    else:
        TARGET["url"], TARGET["deadline"] = f"http://{HOST}:{closed_port()}", "asyncio.timeout"
        meta = exported_call(style, tmp_path, post_ledger_backoff, {"entry_id": "E-1"})
        expected, root = ("http", "ConnectError", TARGET["url"].removeprefix("http://")), "httpx.ConnectError"
    [chain] = find_chains(load(tmp_path), meta.get("io.errscope/error_ref"))
    said = render(chain)
    assert chain.tool is not None, said
    assert chain.tool.get("errscope.failure_class") == "upstream_unavailable", said
    assert chain.tool.get("errscope.side_effect_possible") is False, said
    assert (chain.tool.get("errscope.upstream.system"), chain.tool.get("errscope.upstream.status"),
            chain.tool.get("errscope.upstream.address")) == expected, said
    assert [(r.get("errscope.upstream.address"), r.get("errscope.failure_class")) for r in chain.logs] == [
        (expected[2], "upstream_unavailable")], said
    assert [r.get("exception.type") for r in chain.logs] == [root], said
    assert f"root cause {root}" in said and "unknown" not in said, said
