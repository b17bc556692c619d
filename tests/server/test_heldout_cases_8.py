"""Server side of tests/heldout_cases.md, eighth round (J170-J172): exceptions that fight back. An exception whose own
``__str__`` raises (the SDK's and FastMCP's wrappers format it in an f-string), a tool that recurses until
``RecursionError`` (a thousand frames), and a secret kept in an exception's ``args`` or PEP 678 notes but not in
its ``str``.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` and the real SDK client in process.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import CallToolResult

from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import everything_recorded, serving, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TOKEN = "ghp_FAKE0123456789abcdefghijklmnopqrstuv"


def exception_event(span: Any) -> dict[str, Any]:
    (event,) = [e for e in span.events if e.name == "exception"]
    return dict(event.attributes or {})


class LedgerEntryError(Exception):
    """A hand-written exception whose ``__str__`` itself fails (it formats a field the constructor never set)."""

    def __str__(self) -> str:
        return f"ledger entry {self.entry_id} rejected"  # type: ignore[attr-defined]


@pytest.mark.parametrize("style", STYLES)
async def test_j170_an_exception_whose_str_raises(style: str, telemetry: CapturedTelemetry) -> None:
    """J170 (Python's own "--- Logging error ---" and Sentry's "<exception str() failed>": an exception whose ``__str__``
    raises; the SDK's ``Error executing tool {name}: {e}`` and FastMCP's ``f"Error calling tool {key!r}: {e}"`` call it
    inside their own ``except``). The call still gets an ``isError`` result with a ref (no -32603, no dropped
    connection), the span records the tool's own exception type as the root cause, and the next call works."""

    async def post_entry(amount: int) -> str:
        """Post a ledger entry."""
        raise LedgerEntryError()

    async def ping() -> str:
        """Liveness."""
        return "pong"

    async with serving(style, "legacy", telemetry, post_entry, ping) as served:
        result = await served.call("post_entry", {"amount": 5})
        after = await served.call("ping")
    assert isinstance(result, CallToolResult) and result.is_error, result
    assert "ERR-" in text_of(result) and "entry_id" not in text_of(result), text_of(result)
    assert isinstance(after, CallToolResult) and text_of(after) == "pong"
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "post_entry"]
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "unknown" and span.attributes.get(ERRSCOPE_ERROR_REF)
    assert exception_event(span)["exception.type"].endswith("LedgerEntryError"), exception_event(span)


@pytest.mark.parametrize("style", STYLES)
async def test_j171_a_tool_that_recurses_until_recursion_error(style: str, telemetry: CapturedTelemetry) -> None:
    """J171 (a tool walking a cyclic JSON or ORM graph recursively: "maximum recursion depth exceeded", with a thousand
    identical frames; error trackers keep the innermost frames and a bound). The call fails with a ref, the span's
    stack trace is bounded and ends where it was raised, and the server, whose stack recovered, answers the next call."""

    def depth(node: dict[str, Any]) -> int:
        return 1 + max((depth(child) for child in node["children"]), default=0)

    async def tree_depth(root_id: str) -> int:
        """Depth of a category tree."""
        node: dict[str, Any] = {"children": []}
        node["children"].append(node)  # a category that is its own child
        return depth(node)

    async def ping() -> str:
        """Liveness."""
        return "pong"

    async with serving(style, "legacy", telemetry, tree_depth, ping) as served:
        result = await served.call("tree_depth", {"root_id": "c-1"})
        after = await served.call("ping")
    assert isinstance(result, CallToolResult) and result.is_error and "ERR-" in text_of(result), result
    assert isinstance(after, CallToolResult) and text_of(after) == "pong"
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "tree_depth"]
    event = exception_event(span)
    assert event["exception.type"] == "RecursionError", event
    assert 0 < len(event["exception.stacktrace"]) <= 8192 and "in depth" in event["exception.stacktrace"], event


class PaymentDeclined(Exception):
    """A payment client's exception: ``args`` hold the request it failed on, ``__str__`` only the reason."""

    def __init__(self, reason: str, request: dict[str, Any]) -> None:
        super().__init__(reason, request)
        self.reason = reason

    def __str__(self) -> str:
        return f"payment declined: {self.reason}"


@pytest.mark.parametrize("style", STYLES)
async def test_j172_a_secret_in_an_exceptions_args_and_notes(style: str, telemetry: CapturedTelemetry,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """J172 (exceptions that keep the failed request in ``args`` (``repr(exc)`` and ``exc.args`` show it, ``str`` does
    not), and PEP 678 notes added on the way up (``traceback`` prints them under the exception): both hold the caller's
    token. Neither the model text, nor any span, event or log record, errscope's or the SDK's, holds it; the class
    still comes from the reason."""

    async def charge(amount: int) -> str:
        """Charge a card."""
        try:
            raise PaymentDeclined("card expired", {"headers": {"Authorization": f"Bearer {TOKEN}"}, "amount": amount})
        except PaymentDeclined as exc:
            exc.add_note(f"while calling https://api.payments.example/v1/charges with token={TOKEN}")
            raise

    async with serving(style, "legacy", telemetry, charge) as served:
        result = await served.call("charge", {"amount": 5})
    assert isinstance(result, CallToolResult) and result.is_error and "ERR-" in text_of(result), result
    assert TOKEN not in text_of(result)
    assert TOKEN not in everything_recorded(telemetry)
    assert TOKEN not in caplog.text
