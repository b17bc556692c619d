"""Nothing raw crosses to the model or to telemetry: foreign servers' secrets are scrubbed on the client."""

from __future__ import annotations

from typing import Any

import pytest

import errscope
import errscope.client
from errscope._messages import MAX_NAME, safe_name
from errscope.client import RetryPolicy, TimeoutPolicy, ToolCatalog, ToolClient, invalid_params_note
from errscope.client import _shaping as shape
from errscope.client._deadline import TimeoutKind
from tests.client.helpers import scripted_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SECRETS = ("FAKE-PG-PASS-123", "tok-FAKE-77", "sk-FAKEFAKEFAKEFAKE1234", "svc:")


@pytest.mark.parametrize(
    "response",
    [
        {"isError": True, "text": "could not connect to postgresql://svc:FAKE-PG-PASS-123@db.internal.example:5432/x"},
        {"isError": True, "text": "upstream said 401: Authorization: Bearer tok-FAKE-77 rejected"},
        {"error": {"code": -32603, "message": "boom api_key=sk-FAKEFAKEFAKEFAKE1234", "data": {"dsn": "svc:FAKE-PG-PASS-123"}}},
        {"error": {"code": -32602, "message": "password=FAKE-PG-PASS-123 is invalid", "data": "tok-FAKE-77"}},
        {"error": {"code": -32050, "message": "db postgresql://svc:FAKE-PG-PASS-123@db/x unavailable"}},
    ],
)
async def test_foreign_secrets_never_reach_model_or_spans(tmp_path: Any, telemetry: Any, response: dict[str, Any]) -> None:
    """Excerpts of foreign text are scrubbed; spans carry only closed-set values, never server text."""
    params = scripted_server(tmp_path, [response])
    async with ToolClient(params, timeout=2, retry=RetryPolicy(max_attempts=1), **telemetry.providers) as tc:
        result = await tc.call_tool("scripted", {})
    assert result.failure_class is not None
    dump = result.text + "".join(
        f"{s.name}{dict(s.attributes or {})}{s.status.description}{[(e.name, e.attributes) for e in s.events]}"
        for s in telemetry.spans()
    )
    dump += repr(telemetry.histogram_points("mcp.client.operation.duration"))
    for secret in SECRETS:
        assert secret not in dump, secret


def test_public_names_are_sorted_and_exported() -> None:
    """errscope.client's __all__ is sorted and every name resolves; the root re-exports the main ones."""
    assert errscope.client.__all__ == sorted(errscope.client.__all__)
    for name in errscope.client.__all__:
        assert getattr(errscope.client, name) is not None
    for name in ("ToolClient", "ToolCallResult", "RetryPolicy", "TimeoutPolicy", "CircuitBreaker", "Idempotency"):
        assert name in errscope.__all__


TOOL_SECRET = "ghp_" + "FAKE" * 9  # built at run time: no token-shaped literal in the file
HOSTILE_NAMES = [f"refund?token={TOOL_SECRET}", "r" * 5120]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=["secret", "5KB"])
@pytest.mark.parametrize(
    "response",
    [
        {"isError": True, "text": "503 Service Unavailable"},
        {"error": {"code": -32050, "message": "backend refused"}},
        {"error": {"code": -32042, "message": "needs a browser step", "data": {"elicitations": []}}},
    ],
    ids=["isError", "protocol", "elicitation"],
)
async def test_the_tool_name_is_echoed_safe(tmp_path: Any, response: dict[str, Any], name: str) -> None:
    """The model's text names the tool as ``safe_name`` gives it (scrubbed, at most ``MAX_NAME`` characters), never raw."""
    async with ToolClient(scripted_server(tmp_path, [response]), timeout=5, retry=RetryPolicy(max_attempts=1)) as tc:
        result = await tc.call_tool(name, {})
    assert result.failure_class is not None
    assert safe_name(name) in result.text and TOOL_SECRET not in result.text and "r" * (MAX_NAME + 1) not in result.text


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=["secret", "5KB"])
def test_every_client_head_echoes_the_safe_name(name: str) -> None:
    """Each head the client builds itself (timeouts, rejections, unknown tools) uses the same safe name."""
    catalog = ToolCatalog()
    heads = [
        shape.timed_out(name, TimeoutKind.IDLE, TimeoutPolicy(), hint=None).text,
        shape.timed_out(name, TimeoutKind.CEILING, TimeoutPolicy(), hint=None).text,
        invalid_params_note(name, "Input validation error: a: Expected string, received number"),
        shape.unknown_tool_head(name, catalog, listed_before=False, was_known=False),
        shape.unknown_tool_head(name, catalog, listed_before=False, was_known=True),
    ]
    for head in heads:
        assert safe_name(name) in head and TOOL_SECRET not in head and "r" * (MAX_NAME + 1) not in head, head
