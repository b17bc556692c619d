"""From the ref a user saw to the upstream event, through the wrappers real code puts around the real failure.

Each tool fails for real (httpx, requests, psycopg, SQLAlchemy against listeners on 127.0.0.1) inside a wrapper real
code uses: ``asyncio.TaskGroup``/anyio task groups (one failure, several different ones, nested groups, a cancelled
sibling), tenacity's ``RetryError``, ``backoff``, ``concurrent.futures``, ``asyncio.gather(return_exceptions=True)``,
``run_in_executor``/``anyio.to_thread``, SQLAlchemy's ``DBAPIError``, ``raise X from None``, a client library's own
generic error with the original only in ``__context__``, a tool's ``RuntimeError(f"failed: {e}")`` (text only) and
a tool's own ``isError`` text naming an HTTP status. Served by a low-level ``Server``, an ``MCPServer`` and FastMCP,
exported to OTLP-JSON files as a deployment would, and read back with ``errscope explain``'s own code.

For every case: the class, the upstream status/system/address on the tool span (all three from the same failure:
the one that decided the class), whether the request may have been delivered, the root cause's type on the span,
a model text that is short, carries the ref and no raw exception or secret, and ``errscope explain REF`` printing
the root cause and the upstream.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import backoff
import httpx
import pytest
import requests
import tenacity
from mcp import Client
from mcp_types import CallToolResult, TextContent

import errscope
from tests.classification.upstreams import HOST, HttpUpstream, closed_port

pytestmark = [pytest.mark.timeout(120)]

SECRET = "sk_live_FAKE4eC39HqLyjWDarjtT1zdp7dcX"
"""Planted in what the upstreams answer and the tools' own texts: it must reach neither the model nor telemetry."""

STYLES = ["lowlevel", "mcpserver", "fastmcp"]


class Places:
    """Where the tools' upstreams are: set by the module fixture before any tool runs."""

    http: HttpUpstream
    refused: int
    pg_dsn: str
    pg_address: str


places = Places()


def _url(status: int, retry_after: str | None = None) -> str:
    query = f"?retry_after={retry_after}" if retry_after else ""
    return f"{places.http.url}/status/{status}{query}"


# --- the tools: each one real failure inside one wrapper ----------------------------------------------------------


async def group_one_failure() -> str:
    """Look up stock and prices concurrently (asyncio.TaskGroup): the price service answers 503."""
    async with httpx.AsyncClient(timeout=5) as http, asyncio.TaskGroup() as group:
        group.create_task(http.get(f"{places.http.url}/ok"))

        async def prices() -> None:
            (await http.get(_url(503))).raise_for_status()

        group.create_task(prices())
    return "ok"


async def group_two_failures() -> str:
    """Two lookups fail differently (anyio task group, each shielded so both really fail): the ledger's host refuses
    the connection first, then the catalogue answers 404. The refused connection decides, and the span's status and
    address must be the ledger's, not the 404 the catalogue answered after it."""

    async def ledger() -> None:
        with anyio.CancelScope(shield=True):
            async with httpx.AsyncClient(timeout=5) as http:
                await http.get(f"http://{HOST}:{places.refused}/ledger")

    async def catalogue() -> None:
        with anyio.CancelScope(shield=True):
            await anyio.sleep(0.2)  # after the refusal
            async with httpx.AsyncClient(timeout=5) as http:
                (await http.get(_url(404))).raise_for_status()

    async with anyio.create_task_group() as group:
        group.start_soon(ledger)
        group.start_soon(catalogue)
    return "ok"


async def group_nested() -> str:
    """A task group inside a task group: the inner one's request is rate limited (429, Retry-After: 7)."""

    async def inner() -> None:
        async with httpx.AsyncClient(timeout=5) as http, asyncio.TaskGroup() as group:
            async def search() -> None:
                (await http.get(_url(429, "7"))).raise_for_status()

            group.create_task(search())

    async with asyncio.TaskGroup() as outer:
        outer.create_task(inner())
    return "ok"


async def group_with_cancelled_sibling() -> str:
    """The refund request stalls and is cancelled when the ledger's read times out: the read timeout decides (the
    ledger received the request: it may have acted); the cancelled sibling is no cause."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(5, read=0.3)) as http, asyncio.TaskGroup() as group:
        async def refund() -> None:
            async with httpx.AsyncClient(timeout=10) as slow:
                await slow.post(f"{places.http.url}/stall/refunds", json={})

        async def ledger() -> None:
            await http.post(f"{places.http.url}/stall/ledger", json={})

        group.create_task(refund())
        group.create_task(ledger())
    return "ok"


async def tenacity_retries() -> str:
    """tenacity gives up after three 503s: its RetryError holds the last attempt's exception."""

    @tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_none())
    async def fetch() -> None:
        async with httpx.AsyncClient(timeout=5) as http:
            (await http.get(_url(503))).raise_for_status()

    await fetch()
    return "ok"


async def backoff_retries() -> str:
    """backoff gives up after two 502s and re-raises the last one."""

    @backoff.on_exception(backoff.constant, httpx.HTTPStatusError, max_tries=2, interval=0, jitter=None)
    async def fetch() -> None:
        async with httpx.AsyncClient(timeout=5) as http:
            (await http.get(_url(502))).raise_for_status()

    await fetch()
    return "ok"


async def futures_pool() -> str:
    """A thread pool runs the lookups (requests); ``Future.result()`` re-raises the 404 the worker got."""
    loop = asyncio.get_running_loop()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        future = pool.submit(lambda: requests.get(_url(404), timeout=5).raise_for_status())
        await loop.run_in_executor(None, future.result)
    return "ok"


async def gathered() -> str:
    """``asyncio.gather(return_exceptions=True)``; the tool raises its own summary while holding the results."""
    async with httpx.AsyncClient(timeout=5) as http:
        async def get(url: str) -> httpx.Response:
            return (await http.get(url)).raise_for_status()

        results = await asyncio.gather(get(f"{places.http.url}/ok"), get(_url(403)), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise RuntimeError(f"{len(failures)} of {len(results)} lookups failed")
    return "ok"


async def executor_refused() -> str:
    """``loop.run_in_executor`` runs a blocking requests call against a closed port."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, lambda: requests.get(f"http://{HOST}:{places.refused}/v1/orders", timeout=5))
    return "ok"


async def to_thread_postgres() -> str:
    """``anyio.to_thread`` runs psycopg's connect with a wrong password against a real PostgreSQL."""
    import psycopg

    def connect() -> None:
        psycopg.connect(places.pg_dsn.replace("password='", "password='wrong-"), connect_timeout=5).close()

    await anyio.to_thread.run_sync(connect)
    return "ok"


async def sqlalchemy_wrapped() -> str:
    """SQLAlchemy's ``DBAPIError`` (its ``OperationalError``) over psycopg2's: the table is missing."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(f"postgresql+psycopg2://{places.pg_address}", connect_args={"dsn": places.pg_dsn})
    try:
        with engine.connect() as connection:
            connection.execute(sqlalchemy.text("SELECT amount FROM refunds WHERE id = 1"))
    finally:
        engine.dispose()
    return "ok"


async def hidden_from_none() -> str:
    """``raise ... from None`` over a 403: the author hid it from the model, not from on-call."""
    async with httpx.AsyncClient(timeout=5) as http:
        try:
            (await http.get(_url(403))).raise_for_status()
        except httpx.HTTPStatusError:
            raise LookupError("billing account lookup failed") from None
    return "ok"


class PaymentsClientError(Exception):
    """A client library's one generic error: it re-raises whatever happened as itself, the original only in
    ``__context__`` (no ``from``), as many SDKs do."""


async def library_generic_error() -> str:
    """A client library turns a 429 into its own ``PaymentsClientError("request failed")``."""
    async with httpx.AsyncClient(timeout=5) as http:
        try:
            (await http.get(_url(429, "12"))).raise_for_status()
        except Exception:
            raise PaymentsClientError("request failed")  # noqa: B904 - the library's own habit, on purpose
    return "ok"


async def text_only() -> str:
    """The tool keeps only the words: ``RuntimeError(f"failed: {e}")`` raised after the ``except`` block."""
    said = ""
    async with httpx.AsyncClient(timeout=5) as http:
        try:
            (await http.get(_url(404), headers={"Authorization": f"Bearer {SECRET}"})).raise_for_status()
        except httpx.HTTPStatusError as exc:
            said = str(exc)
    raise RuntimeError(f"failed: {said}")


async def own_error_text() -> CallToolResult:
    """The tool answers its own ``isError`` text naming the upstream's status."""
    async with httpx.AsyncClient(timeout=5) as http:
        response = await http.get(_url(503))
    return CallToolResult(content=[TextContent(type="text", text=f"Inventory API returned HTTP {response.status_code}:"
                                               f" service unavailable (key {SECRET})")], is_error=True)


TOOLS: list[Callable[..., Awaitable[Any]]] = [
    group_one_failure, group_two_failures, group_nested, group_with_cancelled_sibling, tenacity_retries,
    backoff_retries, futures_pool, gathered, executor_refused, to_thread_postgres, sqlalchemy_wrapped,
    hidden_from_none, library_generic_error, text_only, own_error_text,
]


@dataclass(frozen=True)
class Expect:
    """What the on-call engineer must find for one tool's failure."""

    failure_class: str
    status: str | None
    system: str | None
    address: str  # "http" (the HTTP upstream), "refused" (the closed port), "pg" (PostgreSQL), or "" (none known)
    delivered: bool | None
    root: str | None  # the root cause's exception.type; None: the tool's own isError text (no exception)
    retry_after: float | None = None


EXPECTED: dict[str, Expect] = {
    "group_one_failure": Expect("upstream_unavailable", "503", "http", "http", False, "httpx.HTTPStatusError"),
    "group_two_failures": Expect("upstream_unavailable", "ConnectError", "http", "refused", False, "httpx.ConnectError"),
    "group_nested": Expect("rate_limited", "429", "http", "http", False, "httpx.HTTPStatusError", 7.0),
    "group_with_cancelled_sibling": Expect("upstream_unavailable", "ReadTimeout", "http", "http", True, "httpx.ReadTimeout"),
    "tenacity_retries": Expect("upstream_unavailable", "503", "http", "http", False, "httpx.HTTPStatusError"),
    "backoff_retries": Expect("upstream_unavailable", "502", "http", "http", True, "httpx.HTTPStatusError"),
    "futures_pool": Expect("not_found", "404", "http", "http", False, "requests.exceptions.HTTPError"),
    "gathered": Expect("permission_denied", "403", "http", "http", False, "httpx.HTTPStatusError"),
    "executor_refused": Expect("upstream_unavailable", "NewConnectionError", "http", "refused", False, "requests.exceptions.ConnectionError"),
    # libpq keeps no SQLSTATE for a refused login; its text carries the server's 28P01 (tests/classification/
    # test_postgres.py): the credential refused, nothing ran
    "to_thread_postgres": Expect("permission_denied", "28P01", "postgresql", "pg", False, "psycopg.OperationalError"),
    "sqlalchemy_wrapped": Expect("unknown", "42P01", "postgresql", "pg", False, "psycopg2.errors.UndefinedTable"),
    "hidden_from_none": Expect("permission_denied", "403", "http", "http", False, "httpx.HTTPStatusError"),
    "library_generic_error": Expect("rate_limited", "429", "http", "http", False, "httpx.HTTPStatusError", 12.0),
    "text_only": Expect("not_found", "404", "http", "http", False, "RuntimeError"),
    "own_error_text": Expect("upstream_unavailable", "503", "http", "http", None, None),
}


# --- the three server styles --------------------------------------------------------------------------------------


def _mcpserver() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("wrappers")
    for tool in TOOLS:
        server.add_tool(tool)
    return server


def _lowlevel() -> Any:
    from mcp.server.lowlevel.server import Server
    from mcp_types import ListToolsResult

    reference = _mcpserver()
    functions = {tool.__name__: tool for tool in TOOLS}

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=await reference.list_tools())

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        result = await functions[params.name](**(params.arguments or {}))
        return result if isinstance(result, CallToolResult) else CallToolResult(
            content=[TextContent(type="text", text=str(result))])

    return Server("wrappers", on_list_tools=list_tools, on_call_tool=call_tool)


def _fastmcp() -> Any:
    from fastmcp import FastMCP

    app = FastMCP("wrappers")
    for tool in TOOLS:
        app.tool(tool)
    return app


BUILD = {"lowlevel": _lowlevel, "mcpserver": _mcpserver, "fastmcp": _fastmcp}


@dataclass
class Run:
    """One style's calls: the model's text per tool, and the exported folder."""

    texts: dict[str, str]
    meta: dict[str, dict[str, Any]]
    folder: Path


@pytest.fixture(scope="module")
def upstreams() -> Iterator[None]:
    from tests.classification.databases import postgres_server

    with HttpUpstream() as http, postgres_server() as pg:
        places.http = http
        places.refused = closed_port()
        places.pg_dsn = pg.dsn()
        places.pg_address = f"{HOST}:{pg.port}"
        yield


@pytest.fixture(scope="module", params=STYLES)
def run(request: pytest.FixtureRequest, upstreams: None, tmp_path_factory: pytest.TempPathFactory) -> Run:
    from errscope._setup import configure_telemetry

    style = str(request.param)
    folder = tmp_path_factory.mktemp(f"wrappers-{style}")
    exported = configure_telemetry(f"wrappers-{style}", output_dir=folder, set_global=False)
    server = BUILD[style]()
    errscope.instrument(server, **exported.providers)
    target = server._mcp_server if style == "fastmcp" else server
    texts: dict[str, str] = {}
    meta: dict[str, dict[str, Any]] = {}

    async def drive() -> None:
        async with Client(target, mode="legacy") as client:
            for tool in TOOLS:
                result = await client.call_tool(tool.__name__, {})
                assert result.is_error, (tool.__name__, result)
                texts[tool.__name__] = " ".join(b.text for b in result.content if isinstance(b, TextContent))
                meta[tool.__name__] = dict(result.meta or {})

    try:
        anyio.run(drive)
    finally:
        exported.shutdown()
    return Run(texts, meta, folder)


def _address(kind: str) -> str | None:
    return {"http": f"{HOST}:{places.http.port}", "refused": f"{HOST}:{places.refused}", "pg": places.pg_address,
            "": None}[kind]


@pytest.mark.parametrize("tool", list(EXPECTED))
def test_root_cause_survives_the_wrapper(run: Run, tool: str) -> None:
    """The class, the upstream that decided it, whether it was delivered, an honest short model text with the ref,
    and ``errscope explain REF`` printing the root cause and the upstream, all from the exported files."""
    from errscope._explain import find_chains, render
    from errscope._otlp_json import load

    expect = EXPECTED[tool]
    text = run.texts[tool]
    ref = run.meta[tool].get("io.errscope/error_ref")
    assert ref and f"Ref {ref}" in text, text
    assert run.meta[tool].get("io.errscope/failure_class") == expect.failure_class, text
    assert len(text) <= 400, text
    for leak in (SECRET, "Traceback", "HTTPStatusError", "ConnectError", "OperationalError", "RetryError",
                 "ExceptionGroup", "PaymentsClientError", "psycopg", "127.0.0.1"):
        assert leak not in text, (leak, text)

    [chain] = find_chains(load(run.folder), ref)
    said = render(chain)
    assert chain.tool is not None, said
    span = chain.tool
    assert span.get("errscope.failure_class") == expect.failure_class, said
    assert (span.get("errscope.upstream.system"), span.get("errscope.upstream.status"),
            span.get("errscope.upstream.address")) == (expect.system, expect.status, _address(expect.address)), said
    assert span.get("errscope.side_effect_possible") == expect.delivered, said
    if expect.retry_after is not None:
        assert span.get("errscope.retry_after") == expect.retry_after, said
    if expect.root is not None:
        assert f"root cause {expect.root}" in said, said
        assert [r.get("exception.type") for r in chain.logs] == [expect.root], said
    assert SECRET not in said and SECRET.removeprefix("sk_live_") not in said, said
    if tool == "group_with_cancelled_sibling":
        # the ledger's request timed out after it was sent; the refund request the group cancelled was abandoned: each
        # child CLIENT span says its own, the tool span's verdict is the failing request's only
        lines = {path: [line for line in said.splitlines() if "[CLIENT]" in line and f"/stall/{path} " in line]
                 for path in ("ledger", "refunds")}
        assert ["it may have been applied" in line for line in lines["ledger"]] == [True], said
        assert ["abandoned (cancelled) before a response" in line for line in lines["refunds"]] == [True], said
    if tool == "group_two_failures":
        # the catalogue's 404 is a sibling's answer: not what the refused ledger "said"
        assert [r.get("errscope.upstream.message") for r in chain.logs] == [None], said


def test_every_tool_has_an_expectation() -> None:
    assert [tool.__name__ for tool in TOOLS] == list(EXPECTED)
    json.dumps([e.__dict__ for e in EXPECTED.values()])
