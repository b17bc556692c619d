"""Proxy side of tests/heldout_cases.md, eighth round (J173-J178): answers from a foreign upstream whose JSON types or
shape break the JSON-RPC schema a strict host checks (an error ``code`` as a float, ``result`` and ``error`` in one
answer, ``isError`` as a string), and what a foreign upstream must not pass on to the host (a stack trace as the error's
``data`` text, terminal escapes in a failure text). The proxy relays what the upstream meant in a frame every host can
read. And an HTTP upstream that forgets the proxy's session (a restart) gets a new one.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``: no SDK emits these on demand),
the host raw JSON-RPC lines on the proxy's stdin, read back exactly; or, for the session, a real ``MCPServer`` over
streamable HTTP behind a gate answering as the forgetting server does, and ``ToolClient`` as the host.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope import Outcome
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, tool
from tests.client.test_heldout_cases_3 import gated, issues_server
from tests.client.test_heldout_cases_8 import forgets_sessions
from tests.proxy.conftest import proxy_command
from tests.proxy.test_heldout_cases_3 import PEER_SCRIPT, RawHost
from tests.proxy.test_heldout_cases_4 import through
from tests.proxy.test_heldout_cases_5 import exported_spans

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SECRET = "sk_live_FAKE0000000000000000000042"


def raw_host(tmp_path: Path, answers: dict[str, Any]) -> RawHost:
    """A raw host, initialised, talking to ``errscope proxy`` in front of the foreign peer answering as ``answers``."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({"tools": [tool(name) for name in answers], "answers": answers}))
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", f"PEER_SPEC={spec}", sys.executable, PEER_SCRIPT))
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    host.frames_until(lambda f: f.get("id") == 0, timeout=30)
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    host.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    host.frames_until(lambda f: f.get("id") == 1)
    return host


def call(host: RawHost, request_id: int, name: str) -> dict[str, Any]:
    host.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
    return host.frames_until(lambda f: f.get("id") == request_id)[-1]


def test_j173_an_error_code_as_a_float_is_relayed_as_an_integer(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J173 (JSON-RPC 2.0 §5.1: the code "MUST be an integer"; the TypeScript SDK's schema (``z.number().int()``) rejects
    ``-32602.0``, so a host behind a relay that copies the number verbatim drops the answer and waits for its timeout;
    errscope's proxy took the float for no code and relayed -32603, an internal error). A foreign upstream writes its
    codes as floats; the host gets the same code as a JSON integer, and the message."""
    hosts.append(host := raw_host(tmp_path, {"get_forecast": {"error": {
        "code": -32602.0, "message": "Invalid params: 'city' is required"}}}))
    answer = call(host, 2, "get_forecast")
    assert "error" in answer and "result" not in answer, answer
    code = answer["error"]["code"]
    assert code == -32602 and isinstance(code, int), answer
    assert "city" in answer["error"]["message"], answer


async def test_j174_an_answer_with_both_result_and_error(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J174 (JSON-RPC 2.0 §5: "both members MUST NOT be included"; a strict host drops such a frame, so the call hangs,
    and a lax one takes the result and reports success). The proxy relays one well-formed answer: the failure, with a
    ref, not a success; its span records a failure that may have run."""
    frame = {"jsonrpc": "2.0", "id": 0, "result": {"content": [{"type": "text", "text": "sent"}]},
             "error": {"code": -32603, "message": "SMTP relay timed out after 30 s"}}
    hosts.append(host := raw_host(tmp_path, {"send_invoice": {"raw": json.dumps(frame).replace('"id": 0', '"id": {id}')}}))
    answer = call(host, 2, "send_invoice")
    assert not ("result" in answer and "error" in answer), answer
    if "result" in answer:
        assert answer["result"].get("isError") is True, answer
        text = " ".join(block.get("text", "") for block in answer["result"]["content"])
    else:
        text = answer["error"]["message"]
    assert "ERR-" in text, answer
    host.close()
    spans = await exported_spans(tmp_path / "out", "tools/call send_invoice", timeout=10)
    assert spans and all(span.attributes[ERRSCOPE_FAILURE_CLASS] != "" for span in spans), spans
    assert all(span.attributes.get("errscope.outcome") == "error" for span in spans), [dict(s.attributes) for s in spans]


async def test_j175_is_error_as_the_string_true_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J175 (J159 one hop further: ``isError: "true"`` from a PHP or Ruby server; the TypeScript SDK's ``z.boolean()``
    rejects the frame, so a host behind a verbatim relay never sees the failure). The host gets ``isError: true`` (a
    JSON boolean), the text with a ref, and the proxy's span the class the text gives."""
    hosts.append(host := raw_host(tmp_path, {"create_invoice": {"result": {
        "content": [{"type": "text", "text": "Permission denied: the API key may not create invoices"}], "isError": "true"}}}))
    answer = call(host, 2, "create_invoice")
    assert answer["result"]["isError"] is True, answer
    assert "ERR-" in answer["result"]["content"][0]["text"], answer
    host.close()
    spans = await exported_spans(tmp_path / "out", "tools/call create_invoice", timeout=10)
    assert [span.attributes[ERRSCOPE_FAILURE_CLASS] for span in spans] == ["permission_denied"], spans


def test_j176_a_stack_trace_as_the_errors_data_text(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J176 (J161 one hop further; modelcontextprotocol/java-sdk PR #519: a Java server's whole stack in ``error.data``;
    Node servers that send ``err.stack``; CWE-209). The upstream's ``data`` is a text: the exception line and 2,000
    frames. The host gets the exception's own words with a note that the trace was removed, no frame, no planted key,
    and a frame of a few hundred bytes, not 70 KB."""
    frames = "".join(f"\tat com.example.billing.Charge.run(Charge.java:{n})\n" for n in range(2000))
    data = f"java.lang.IllegalStateException: upstream rejected key {SECRET}\n{frames}"
    hosts.append(host := raw_host(tmp_path, {"charge": {"error": {"code": -32603, "message": "Internal error", "data": data}}}))
    answer = call(host, 2, "charge")
    said = json.dumps(answer)
    assert "IllegalStateException: upstream rejected key" in said and "stack trace removed" in said, said[:400]
    assert "Charge.java" not in said and SECRET not in said and len(said) < 2000, said[:400]
    assert answer["error"]["code"] == -32603 and "ERR-" in answer["error"]["message"], answer


def test_j177_terminal_escapes_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J177 (J164 one hop further: the proxy rewrites a failure's text for the host, which may print it in a terminal).
    The rewritten text keeps the words and loses every escape sequence whole, not only the ESC byte (a U+FFFD before
    ``[31m`` is still noise, and an OSC 8 link's target still rides along)."""
    text = ("\x1b[31merror\x1b[0m: connection refused by registry.internal.example:5000 "
            "\x1b]8;;https://evil.example/login\x07see the docs\x1b]8;;\x07")
    hosts.append(host := raw_host(tmp_path, {"publish_package": failed(text)}))
    answer = call(host, 2, "publish_package")
    shown = answer["result"]["content"][0]["text"]
    assert "connection refused" in shown and "see the docs" in shown and "ERR-" in shown, shown
    for remnant in ("\x1b", "\ufffd", "[31m", "[0m", "]8;;", "evil.example"):
        assert remnant not in shown, (remnant, shown)


@pytest.mark.parametrize("status", [400, 404])
async def test_j178_an_upstream_that_forgot_the_proxys_session(status: int, tmp_path: Path) -> None:
    """J178 (J167 one hop further; punkpeye/mcp-proxy #14 and punkpeye/fastmcp #121: behind a relay, every call failed
    with "Bad Request: No valid session ID provided" after the server restarted, until the relay was restarted;
    typescript-sdk #1476). ``errscope proxy --upstream`` in front of a server that forgets each session after its first
    call, answering 400 (the TypeScript SDK's examples) or 404 (the spec). The proxy opens a new upstream session (MCP,
    Transports > Session Management: the client "MUST start a new session"), the refused call did not run and is told
    so (not "fix the arguments", not "not found"), and every later call works."""
    from tests.client.servers.app import serve

    server = issues_server()
    seen: list[str] = []
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), forgets_sessions(seen, status))) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=10, connect_timeout=15) as tc:
            results = [await tc.call_tool("search_issues", {"query": query}) for query in "abc"]
    assert len(seen) == 2, seen  # the second and third calls first met the forgotten session
    for result, query in zip(results, "abc", strict=True):
        assert result.outcome is Outcome.OK and result.text == f"3 issues match {query}", result  # re-sent: it did not run
    assert server.ran == ["a", "b", "c"]
