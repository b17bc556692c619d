"""Server side of tests/heldout_cases.md, fourth round (J87-J89, J94, J96): a root cause lost on the way to the answer and the
span: exception groups from task groups (nested, with cancelled siblings, with several real failures) and an
upstream error wrapped by a sync tool running in a worker thread.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, spoken to in process by the real SDK client in
both protocol eras; the upstream of J89 is a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

import errscope
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import everything_recorded, text_of
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

DSN = "postgresql://svc:FAKE-PG-PW-4@db.internal.example:5432/orders"


def tool_spans(telemetry: CapturedTelemetry) -> list[Any]:
    return [s for s in telemetry.spans() if (s.attributes or {}).get("mcp.method.name") == "tools/call"]


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j87_nested_task_groups_with_a_cancelled_sibling(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J87 (sailingsam/tryjarvis PR #13: the real error sits two task groups deep, ``e.exceptions[0]`` only reaches the
    inner group, and siblings "merely cancelled on the way out" must be stepped over; IBM/mcp-context-forge #1902:
    "Tool invocation failed: unhandled errors in a TaskGroup (1 sub-exception)"). A tool fans out in a task group
    inside a task group; one branch's database connection is refused while the other is cancelled. The model reads
    an ``upstream_unavailable`` failure with a ref, never the group's wording or the DSN; the span carries the
    class, and no telemetry holds the DSN's credentials."""
    server = BUILDERS[style]()

    @server.tool()
    async def sync_orders(region: str) -> str:
        """Copy a region's orders from the primary database."""

        async def copy() -> None:
            await anyio.sleep(0.01)
            raise ConnectionRefusedError(f"could not connect to {DSN}")

        async with anyio.create_task_group() as outer:
            outer.start_soon(anyio.sleep, 10)

            async def inner_group() -> None:
                async with anyio.create_task_group() as inner:
                    inner.start_soon(anyio.sleep, 10)
                    inner.start_soon(copy)

            outer.start_soon(inner_group)
        return "copied"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        result = await client.call_tool("sync_orders", {"region": "eu"})
    text = text_of(result)
    assert result.is_error and "ERR-" in text, text
    for fragment in ("TaskGroup", "sub-exception", "FAKE-PG-PW-4", "db.internal.example"):
        assert fragment not in text, fragment
    for secret in ("FAKE-PG-PW-4", "svc:"):  # the host may be recorded (errscope.upstream.address), the credentials never
        assert secret not in everything_recorded(telemetry), secret
    assert [s.attributes.get("errscope.failure_class") for s in tool_spans(telemetry)] == ["upstream_unavailable"]


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j88_a_group_of_several_real_failures_is_not_unknown(style: str, telemetry: CapturedTelemetry) -> None:
    """J88 (xorbitsai/xagent PR #2207: a group's related exceptions walked in level order, each one logged, rather than
    the group's summary; microsoft/autogen PR #5900: "the error includes the actual details from all exceptions in
    the exception group"). Two parallel lookups fail at once, one with a 403 and one with a missing record: an
    ``ExceptionGroup`` of two real failures. The class is one of theirs (``permission_denied`` or ``not_found``),
    never ``unknown`` (whose rate is the mapping-gap alert, DESIGN.md), and the text has no group wording."""
    server = BUILDERS[style]()

    @server.tool()
    async def load_account(account: str) -> str:
        """Load an account's profile and its billing record in parallel."""

        async def profile() -> None:
            raise PermissionError("403 Forbidden: token lacks accounts:read")

        async def billing() -> None:
            raise LookupError(f"404 Not Found: no billing record for {account}")

        async with anyio.create_task_group() as tg:
            tg.start_soon(profile)
            tg.start_soon(billing)
        return "loaded"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("load_account", {"account": "AC-9"})
    text = text_of(result)
    assert result.is_error and "ERR-" in text and "TaskGroup" not in text and "sub-exception" not in text, text
    [span] = tool_spans(telemetry)
    assert span.attributes.get("errscope.failure_class") in ("permission_denied", "not_found"), dict(span.attributes)


class _RateLimited(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b'{"error":"too many requests"}'
        self.send_response(429)
        self.send_header("Retry-After", "20")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def billing_url() -> Iterator[str]:
    """A billing API on 127.0.0.1 that answers every request 429 with ``Retry-After: 20``."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _RateLimited)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api/invoices"
    httpd.shutdown()


class InvoiceError(Exception):
    """The application's own wrapper exception, as a tool author writes it."""


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("chaining", ["from-exc", "from-none"])
async def test_j89_sync_tool_wrapping_an_upstream_error(style: str, chaining: str, billing_url: str,
                                                        telemetry: CapturedTelemetry) -> None:
    """J89 (spring-projects/spring-ai #4488: exceptions from tools are turned into an error answer "losing all
    stacktrace and cause information"; xorbitsai/xagent PR #2207 review: the handler "never walks the caught
    exception's own ``__cause__``/``__context__`` chain"; 1Panel-dev/MaxKB PR #4366 re-raises ``… from None``). A
    sync tool (run by the SDKs in a worker thread) calls a real billing API with httpx, which answers 429 with
    ``Retry-After: 20``, and re-raises its own ``InvoiceError`` ``from exc`` or ``from None``. ``from None`` hides
    the context from a traceback's display only; the 429 is still the cause (``__context__``), so both answers
    are ``rate_limited`` with the upstream status on the span, and neither shows the internal URL."""
    server = BUILDERS[style]()

    @server.tool()
    def get_invoice(number: str) -> str:
        """Fetch one invoice from the billing API."""
        try:
            httpx.get(f"{billing_url}/{number}", timeout=5).raise_for_status()
        except httpx.HTTPStatusError as exc:
            if chaining == "from-none":
                raise InvoiceError(f"billing lookup failed for {number}") from None
            raise InvoiceError(f"billing lookup failed for {number}") from exc
        return "paid"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("get_invoice", {"number": "INV-7"})
    text = text_of(result)
    assert result.is_error and "ERR-" in text and "/api/invoices" not in text, text
    [span] = tool_spans(telemetry)
    assert span.attributes.get("errscope.failure_class") == "rate_limited", dict(span.attributes)
    assert span.attributes.get("errscope.upstream.status") == "429", dict(span.attributes)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j94_sync_tool_failing_after_the_cancel_ends_cancelled(style: str, telemetry: CapturedTelemetry) -> None:
    """J94 (modelcontextprotocol/python-sdk #2507 and DESIGN.md: sync tools keep running in their worker thread after
    ``notifications/cancelled``; anthropics/claude-code #51073: a late answer to a cancelled request broke the
    client). A sync ``export_ledger`` is cancelled by the client 0.15 s in, then fails in its thread 0.6 s in. The
    request gets no answer (MCP spec, Cancellation), so its SERVER span ends ``cancelled`` like an async tool's,
    with status unset, no failure class and no "tool call failed" record quoting a ref nobody was given; the
    next call works."""
    import time

    server = BUILDERS[style]()
    finished: list[str] = []

    @server.tool()
    def export_ledger(month: str) -> str:
        """Export a month of the ledger (slow, synchronous driver)."""
        time.sleep(0.6)
        finished.append(month)
        raise ConnectionResetError("ledger store reset the connection")

    @server.tool()
    def ping() -> str:
        """Liveness."""
        return "pong"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        with anyio.move_on_after(0.15):
            await client.call_tool("export_ledger", {"month": "2026-01"})
        await anyio.sleep(0.8)
        assert text_of(await client.call_tool("ping", {})) == "pong"
    assert finished == ["2026-01"]  # the thread did run on and fail
    [span] = [s for s in tool_spans(telemetry) if s.name == "tools/call export_ledger"]
    assert span.attributes.get("errscope.outcome") == "cancelled", dict(span.attributes)
    assert "errscope.failure_class" not in span.attributes and span.status.description is None
    assert not [r for r in telemetry.log_records if "export_ledger" in r.getMessage()]


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j96_a_deliberate_protocol_error_inside_a_task_group(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J96 (modelcontextprotocol/python-sdk #1768 and PR #1780: a tool's ``UrlElicitationRequiredError`` became an
    ``isError`` result and the consent URL was lost; IBM/mcp-context-forge #1902 and microsoft/autogen PR #6458: anyio
    wraps even one failing task in an ``ExceptionGroup``). A tool checks authorisation in parallel with its fetch,
    inside a task group; the check raises ``UrlElicitationRequiredError``. The group is only the wrapping: the
    answer is JSON-RPC -32042 with the URL and elicitation id exactly as given (MCP 2025-11-25, Elicitation > URL
    mode). A group holding that error and another real failure stays an execution failure (``isError``)."""
    from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
    from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestURLParams

    server = BUILDERS[style]()
    consent = ElicitRequestURLParams(
        message="Authorize access to your GitHub repositories",
        url="https://auth.example.com/oauth/authorize?client_id=mcp-github&state=el-96",
        elicitation_id="el-96",
    )

    async def authorise() -> None:
        raise UrlElicitationRequiredError([consent])

    @server.tool()
    async def list_private_repos(org: str) -> str:
        """List an organisation's private repositories."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.sleep, 5)  # the fetch, cancelled when the check fails
            tg.start_soon(authorise)
        return "repos"

    @server.tool()
    async def mirror_repos(org: str) -> str:
        """Mirror an organisation's repositories."""

        async def copy() -> None:
            raise ConnectionResetError("mirror target reset the connection")

        async with anyio.create_task_group() as tg:
            tg.start_soon(authorise)
            tg.start_soon(copy)
        return "mirrored"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("list_private_repos", {"org": "FAKE-org"})
        mixed = await client.call_tool("mirror_repos", {"org": "FAKE-org"})
    assert raised.value.code == URL_ELICITATION_REQUIRED, raised.value
    [elicitation] = (raised.value.data or {}).get("elicitations", [])
    assert (elicitation["url"], elicitation["elicitationId"]) == (consent.url, "el-96"), elicitation
    assert mixed.is_error and "ERR-" in text_of(mixed)
