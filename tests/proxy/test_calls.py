"""The proxy's bookkeeping (:class:`errscope.proxy._calls.Calls`) fed JSON-RPC messages directly, as the relay does.

The transports are exercised end to end in the other modules; here the rewriting rules are checked one message
at a time. The rejection texts are what a real validator (jsonschema, as the ``mcp`` low-level server uses) says.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from errscope._messages import MAX_NAME, safe_name
from errscope._telemetry import ServerTelemetry
from errscope.proxy._calls import Calls, Scope
from errscope.testing import CapturedTelemetry

SCHEMA = {
    "type": "object",
    "properties": {"auth": {"type": "object", "properties": {"token": {"type": "string", "maxLength": 8}}}},
}


@pytest.fixture
def calls() -> Iterator[Calls]:
    telemetry = CapturedTelemetry()
    yield Calls(ServerTelemetry(**telemetry.providers), transport="pipe")
    telemetry.close()


def _rejection(arguments: dict[str, Any]) -> str:
    with pytest.raises(jsonschema.ValidationError) as raised:
        jsonschema.validate(arguments, SCHEMA)
    return f"Input validation error: {raised.value.message}"


def _call(calls: Calls, scope: Scope, arguments: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sign_in", "arguments": arguments}}
    calls.from_host(scope, request)
    return calls.from_server(scope, {"jsonrpc": "2.0", "id": 1, **answer})  # type: ignore[no-any-return]


class TestRejectedArguments:
    """A rejection the server wrote in prose never reaches the host with a value the host sent, on either channel."""

    def test_invalid_params_error(self, calls: Calls) -> None:
        """-32602: the note is the client's, with the request's arguments cut out at any depth."""
        token = secrets.token_urlsafe(24)
        arguments = {"auth": {"token": token}}
        message = _rejection(arguments)
        assert token in message
        error = _call(calls, Scope(), arguments, {"error": {"code": -32602, "message": message}})["error"]
        assert error["code"] == -32602 and error["message"].startswith("sign_in was rejected: invalid arguments")
        assert token[:12] not in error["message"]

    def test_is_error_result(self, calls: Calls) -> None:
        """An ``isError`` argument rejection gets the same note (not an excerpt of the server's text)."""
        value = "Q" * 10_240
        arguments = {"auth": {"token": value}}
        answer = {"result": {"isError": True, "content": [{"type": "text", "text": _rejection(arguments)}]}}
        result = _call(calls, Scope(), arguments, answer)["result"]
        text = result["content"][0]["text"]
        assert text.startswith("sign_in was rejected: invalid arguments") and "Q" * 12 not in text
        assert result["_meta"]["io.errscope/failure_class"] == "invalid_input"


class TestToolNames:
    """The name the host sent reaches the host's text only as ``safe_name`` gives it."""

    SECRET = "ghp_" + "FAKE" * 9  # built at run time: no token-shaped literal in the file

    @pytest.mark.parametrize("name", [f"refund?token={SECRET}", "r" * 5120], ids=["secret", "5KB"])
    @pytest.mark.parametrize(
        "answer",
        [
            {"result": {"isError": True, "content": [{"type": "text", "text": "503 Service Unavailable"}]}},
            {"result": {"isError": True, "content": [{"type": "text", "text": "Input validation error: a: Required"}]}},
            {"error": {"code": -32602, "message": "Input validation error: a: Required"}},
            {"error": {"code": -32602, "message": "Unknown tool"}},
        ],
        ids=["isError", "isError-arguments", "invalid-params", "unknown"],
    )
    def test_echoed_safe(self, calls: Calls, name: str, answer: dict[str, Any]) -> None:
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}}
        scope = Scope()
        calls.from_host(scope, request)
        shaped = calls.from_server(scope, {"jsonrpc": "2.0", "id": 1, **answer})
        text = shaped["error"]["message"] if "error" in shaped else shaped["result"]["content"][0]["text"]
        assert safe_name(name) in text and self.SECRET not in text and "r" * (MAX_NAME + 1) not in text, text


class TestOtherRequestsErrors:
    """A JSON-RPC error answering a request other than ``tools/call``: no span, but scrubbed as a tool's would be."""

    SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"

    def _answer(self, calls: Calls, method: str, error: dict[str, Any]) -> dict[str, Any]:
        scope = Scope()
        calls.from_host(scope, {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"uri": "notes://monday"}})
        return calls.from_server(scope, {"jsonrpc": "2.0", "id": 7, "error": error})  # type: ignore[no-any-return]

    def test_resource_error_scrubbed(self, calls: Calls) -> None:
        """The message loses the credential and the stack; ``data`` loses its stack field; the code is kept."""
        error = self._answer(calls, "resources/read", {
            "code": -32603,
            "message": f"cannot read note: postgres://notes:{self.SECRET}@10.0.0.7/notes refused\n"
                       '  File "/srv/notes.py", line 9, in read',
            "data": {"stack": "Error\n    at read (/srv/notes.js:9:3)", "token": self.SECRET, "uri": "notes://monday"},
        })["error"]
        assert error["code"] == -32603
        assert self.SECRET not in str(error) and "/srv/" not in str(error)
        assert error["message"].startswith("cannot read note: postgres://[REDACTED]@10.0.0.7/notes refused")
        assert "stack" not in error["data"] and error["data"]["uri"] == "notes://monday"

    def test_clean_error_relayed_as_it_came(self, calls: Calls) -> None:
        """Nothing to remove: the very message object is relayed (the relay then writes the server's bytes)."""
        scope = Scope()
        calls.from_host(scope, {"jsonrpc": "2.0", "id": 7, "method": "prompts/get", "params": {"name": "nosuch"}})
        answer = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "Unknown prompt: nosuch"}}
        assert calls.from_server(scope, answer) is answer
