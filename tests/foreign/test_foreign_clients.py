"""Foreign clients calling an errscope-instrumented Python server: the TypeScript SDK's and the Go SDK's own clients.

``tests/npm/servers/ts_client.mjs`` lists the tools and calls them through the SDK's ``callTool`` (v2
``@modelcontextprotocol/client``, v1 ``@modelcontextprotocol/sdk`` 1.32 and 1.12.1), which parses every answer
with the SDK's own schemas (v1 also checks a result's ``structuredContent`` against the tool's ``outputSchema``).
The Go client is ``tests/foreign/go/gosdkclient`` (go-sdk's ``ClientSession.CallTool``, which decodes each result
into its ``CallToolResult`` and each content block by type; built by ``scripts/build-foreign-go.sh``). The server
is ``tests/servers/serve.py`` (the catalogue, instrumented) in each style. Every failure must reach the
foreign client as a spec-valid answer it parses without error (MCP 2025-11-25, Tools > Error Handling): a tool
failure or rejected arguments as an ``isError`` result with text content carrying the error ref, which is also in
``_meta``; an unknown tool or a malformed call as JSON-RPC ``-32602``; no secret, path or oversized text; and a call
the client gave up on (its own timeout, which sends ``notifications/cancelled``) leaves no tool running.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from errscope._attributes import META_CHANNEL, META_ERROR_REF, META_FAILURE_CLASS
from tests.foreign.peers import FAKE_SECRET, NPM, REPO, _free_port, _wait_port, go_server, node, node_env

pytestmark = [pytest.mark.stack]

CLIENT = NPM / "servers" / "ts_client.mjs"
PYTHON = str(Path(__import__("sys").executable))
REF = re.compile(r"\bERR-[0-9A-Z]{8}\b")

CALLS: list[tuple[str, str, Any, int | None]] = [
    ("not_found", "get_order", {"order_id": "A-2"}, None),
    ("ok", "get_order", {"order_id": "A-1"}, None),
    ("unknown", "get_ordr", {}, None),
    ("malformed", "get_order", [1, 2], None),
    ("invalid", "schedule_meeting", {"start": "next week", "duration_min": 0}, None),
    ("leak", "leak", {"text": f"key {FAKE_SECRET} at /srv/app/tools.py:12"}, None),
    ("explicit", "explicit_failure", {"text": "the ledger is closed today"}, None),
    ("oversized", "big_failure", {"size": 200_000}, None),
    ("upstream", "send_email", {"to": "fail@example.com", "body": "hi", "api_token": FAKE_SECRET}, None),
    ("timeout", "export_report", {"seconds": 5}, 1000),
    ("after", "get_order", {"order_id": "A-1"}, None),  # the cancel is handled beside it: it may still be landing
    ("in_flight", "in_flight", {}, None),
]
FAILED = ("not_found", "invalid", "leak", "explicit", "oversized", "upstream")


def run_client(sdk: str, *, url: str | None = None, style: str = "mcpserver", tmp: Path) -> dict[str, dict[str, Any]]:
    """The TS client's verdict on each of :data:`CALLS`, by label."""
    calls = json.dumps([[tool, arguments, *([timeout] if timeout else [])] for _, tool, arguments, timeout in CALLS])
    if sdk == "go":
        argv = [go_server("gosdkclient"), "-calls", calls, *(["-url", url] if url else [])]
    else:
        argv = [node(), str(CLIENT), "--sdk", sdk, "--calls", calls, *(["--url", url] if url else [])]
    argv += [] if url else ["--", PYTHON, "-m", "tests.servers.serve", style, "stdio"]
    env = {**node_env(), "PYTHONPATH": f"{REPO / 'instrumentation'}:{REPO}", "ERRSCOPE_OUT": str(tmp)}
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert "get_order" in out["tools"]
    assert len(out["calls"]) == len(CALLS), out
    return {label: answer for (label, *_), answer in zip(CALLS, out["calls"], strict=True)}


def check(answers: dict[str, dict[str, Any]], *, cancel_observed: bool) -> None:
    raw = json.dumps(answers)
    assert FAKE_SECRET not in raw and "/srv/app" not in raw and "tools.py" not in raw
    for label in FAILED:
        result = answers[label].get("result")
        assert result is not None, (label, answers[label])  # the client parsed it: no ZodError, no TypeError
        assert result["isError"] is True, label
        assert result["content"] and all(block["type"] == "text" for block in result["content"]), label
        text = " ".join(block["text"] for block in result["content"])
        ref = result["_meta"][META_ERROR_REF]
        assert REF.fullmatch(ref) and ref in text, (label, text)
        assert result["_meta"][META_CHANNEL] == "execution", label
        assert len(text) <= 1000, label
        assert "structuredContent" not in result or result["structuredContent"] is None or isinstance(
            result["structuredContent"], dict), label
    classes = {label: answers[label]["result"]["_meta"][META_FAILURE_CLASS] for label in FAILED}
    assert classes == {"not_found": "not_found", "invalid": "invalid_input", "leak": "unknown", "explicit": "unknown",
                       "oversized": "unknown", "upstream": "upstream_unavailable"}
    invalid = answers["invalid"]["result"]["content"][0]["text"]
    assert "`duration_min`" in invalid and "`start`" in invalid and "next week" not in invalid
    assert answers["explicit"]["result"]["content"][0]["text"] == "the ledger is closed today"
    ok = answers["ok"]["result"]
    assert ok.get("isError") in (None, False) and ok["content"][0]["text"] == "order A-1: 2 items, 40.00 EUR"
    unknown = answers["unknown"]["error"]
    assert unknown["code"] == -32602 and "get_ordr" in unknown["message"]
    assert unknown["data"][META_FAILURE_CLASS] == "not_found" and REF.fullmatch(unknown["data"][META_ERROR_REF])
    assert answers["malformed"]["error"]["code"] == -32602
    # the client's own timeout (it sends notifications/cancelled): v1's McpError -32001, v2's SdkError, Go's deadline
    assert answers["timeout"]["error"]["code"] in (-32001, "REQUEST_TIMEOUT", 0)
    assert answers["after"]["result"]["content"][0]["text"] == "order A-1: 2 items, 40.00 EUR"
    if cancel_observed:  # the cancelled tool stopped: nothing holds the fake lock
        assert answers["in_flight"]["result"]["content"][0]["text"] == "0"


@pytest.mark.parametrize(("sdk", "style"), [("v2", "mcpserver"), ("v2", "fastmcp"), ("v1", "lowlevel"),
                                             ("sdk-1-12", "fastmcp"), ("go", "mcpserver"), ("go", "lowlevel")])
def test_foreign_client_over_stdio(sdk: str, style: str, tmp_path: Path) -> None:
    """Each TS client release, and go-sdk's client (the 2026-07-28 era), parses every answer of a server style."""
    check(run_client(sdk, style=style, tmp=tmp_path), cancel_observed=True)


@pytest.mark.parametrize("sdk", ["v2", "sdk-1-12", "go"])
def test_foreign_client_over_streamable_http(sdk: str, tmp_path: Path) -> None:
    """The newest and an old TS client, and go-sdk's, over streamable HTTP."""
    port = _free_port()
    env = {"PYTHONPATH": f"{REPO / 'instrumentation'}:{REPO}", "ERRSCOPE_OUT": str(tmp_path),
           "PATH": node_env()["PATH"], "HOME": str(Path.home())}
    server = subprocess.Popen([PYTHON, "-m", "tests.servers.serve", "mcpserver", "http", str(port)], cwd=REPO,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, server)
        answers = run_client(sdk, url=f"http://127.0.0.1:{port}/mcp", tmp=tmp_path)
    finally:
        server.terminate()
        server.wait(10)
    check(answers, cancel_observed=False)
