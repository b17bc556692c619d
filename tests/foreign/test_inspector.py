"""The official MCP Inspector's CLI as a third-party client: what a developer sees when they inspect errscope.

The client is npm ``@modelcontextprotocol/inspector-cli`` 1.0.3 (the ``mcp-inspector-cli`` bin, run as
``mcp-inspector-cli --cli TARGET --method tools/list`` or ``--method tools/call --tool-name X --tool-arg k=v``),
pinned in ``tests/npm`` and run by Node 22. It is pointed at:

1. errscope-instrumented Python servers (``tests/foreign/servers/inspector_server.py``: the tests' tool catalogue on
   ``MCPServer`` and FastMCP, plus ``refund_order``, which runs through :class:`errscope.Idempotency`) over stdio and
   over streamable HTTP on 127.0.0.1;
2. ``errscope proxy`` in front of ``@modelcontextprotocol/server-everything`` and in front of a plain ``MCPServer``
   without errscope (``tests/proxy/plain_server.py``), compared with the same servers inspected directly.

Every assertion reads the JSON the Inspector itself printed. What the Inspector does that a test must live with:

- One method per run, and each ``tools/call`` lists the tools first (to convert the arguments): nothing batches,
  so each case costs a Node start (and, on stdio, a server start). Cases of one target run in parallel, and the
  stdio batches are kept small; the long batches go to one HTTP server.
- A JSON-RPC error reply is printed as one line on stderr, ``Failed to call tool X: MCP error <code>: <message>``,
  with exit status 1 and nothing on stdout: the error's ``data``, where errscope puts the class and the ref of a
  protocol error, is never shown. errscope also writes the ref into the message of other protocol errors, so the
  Inspector shows it there, but not into -32602 ``Unknown tool: <name>`` (the spec's wording, README), whose ref the
  Inspector's user never sees.
- ``--tool-arg`` values are parsed as JSON, then strings are converted by the tool's input schema: ``a=seven`` for
  a ``number`` becomes ``Number("seven")``, NaN, which JSON sends as ``null``. The server is asked about ``null``.
- The CLI finds its own ``package.json`` through ``../package.json`` relative to the *working directory*, and
  stops with "Cannot find module" anywhere else: it runs from its ``build`` directory here.
- ``--tool-arg`` takes several values, so the server command must come before the options (as its README shows);
  after it, a flag of the Inspector's own (``--transport``, ``--header``, ``-e``) would be taken by the Inspector.
- Its SDK client (``@modelcontextprotocol/sdk`` 1.x) refuses, by itself, to call a tool listed with
  ``execution.taskSupport: "required"`` (-32600 "requires task-based execution"): no request reaches the server.

The wire rules asserted (MCP 2025-11-25, Server > Tools > Error Handling, which the Inspector's SDK negotiates): an
unknown tool is a protocol error, JSON-RPC -32602; arguments that break the input schema are a tool execution error
(``isError: true``, SEP-1303), so the model can correct them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, NamedTuple

import pytest

from errscope._attributes import META_IDEMPOTENCY_KEY, META_IDEMPOTENCY_KEY_HONOURED
from errscope._refs import ERROR_REF_PATTERN
from tests.conftest import require
from tests.foreign.peers import FAKE_SECRET, NPM, NPM_BIN, REPO, _free_port, _serving, node_env
from tests.proxy.conftest import EVERYTHING, LOOPBACK, NODE, proxy_command, require_everything, telemetry_text
from tests.proxy.plain_server import SECRET as PLAIN_SECRET

pytestmark = pytest.mark.stack

INSPECTOR: Final = NPM_BIN / "mcp-inspector-cli"
INSPECTOR_BUILD: Final = NPM / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build"
SERVER: Final = Path(__file__).resolve().parent / "servers" / "inspector_server.py"
CATALOGUE_SECRET: Final = "FAKE-PG-PASS-123"
"""The password in the catalogue's DSN (``tests/servers/catalogue.py``), which ``get_order A-100`` raises with."""
REF: Final = ERROR_REF_PATTERN.pattern
TIMEOUT_S: Final = 120.0
"""Seconds one Inspector run may take: Node plus, on stdio, a Python server importing mcp and errscope, on a
machine that may be loaded."""

LEAK: Final = (
    "Traceback (most recent call last):\n"
    '  File "/srv/billing/charge.py", line 41, in charge\n'
    f"RuntimeError: card processor said no to key {FAKE_SECRET}"
)
"""What ``leak`` raises: a traceback with a planted fake key (the Inspector passes it as a plain string)."""


class Shown(NamedTuple):
    """What one Inspector run printed: its exit status, the JSON on stdout (``None`` when there was none) and
    its stderr without the v1 deprecation notice."""

    code: int
    result: dict[str, Any] | None
    error: str


class Call(NamedTuple):
    """One ``tools/call``: the tool, ``--tool-arg`` pairs (raw, as typed on a command line) and ``--tool-metadata``."""

    tool: str
    arguments: Mapping[str, str] = {}
    meta: Mapping[str, str] = {}


LIST: Final = None
"""A case that runs ``--method tools/list``; a tuple of strings is a case given as the Inspector's own options."""


def _environment(extra: Mapping[str, str]) -> dict[str, str]:
    require(INSPECTOR.exists(), f"the MCP Inspector CLI is not installed in {NPM_BIN} (scripts/tools.sh runs npm ci)")
    # The Inspector's stdio servers inherit its environment; its working directory is its own build folder, so the
    # worktree goes on the path for `python -m errscope.cli` and `python -m tests...`.
    path = os.pathsep.join([str(REPO / "instrumentation"), str(REPO), os.environ.get("PYTHONPATH", "")])
    return {**node_env(), "PYTHONPATH": path, **extra}


def inspect(target: Sequence[str], case: Call | tuple[str, ...] | None, env: Mapping[str, str]) -> Shown:
    """Run the Inspector CLI once against ``target`` (a command line, or a URL and ``--transport http``)."""
    options = ["--method", "tools/list"]
    if isinstance(case, Call):
        options = ["--method", "tools/call", "--tool-name", case.tool]
        for key, value in case.arguments.items():
            options += ["--tool-arg", f"{key}={value}"]
        for key, value in case.meta.items():
            options += ["--tool-metadata", f"{key}={value}"]
    elif case is not None:
        options = list(case)
    run = subprocess.run([str(INSPECTOR), "--cli", *target, *options], cwd=INSPECTOR_BUILD, env=dict(env),
                         capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    error = re.sub(r"⚠️ +@modelcontextprotocol/inspector v1 is deprecated\.\n.*\n.*security fixes only\.\n", "",
                   run.stderr)
    return Shown(run.returncode, json.loads(run.stdout) if run.stdout.strip() else None, error.strip())


def inspect_all(target: Sequence[str], cases: Mapping[str, Call | tuple[str, ...] | None], **env: str) -> dict[str, Shown]:
    """Run every case (label -> :class:`Call` or :data:`LIST`) against ``target``, a few at a time."""
    environment = _environment(env)
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = {label: pool.submit(inspect, target, case, environment) for label, case in cases.items()}
        return {label: run.result() for label, run in runs.items()}


def shaped(shown: Shown, failure_class: str) -> str:
    """Assert an ``isError`` result as errscope shapes it; return its one text (ending with the ref in ``_meta``)."""
    assert shown.code == 0 and shown.result is not None, shown
    assert shown.result["isError"] is True
    [block] = shown.result["content"]
    text = block["text"]
    ref = re.fullmatch(rf"[^\n]+ Ref ({REF})", text)
    assert ref is not None, text
    meta = shown.result["_meta"]
    assert meta["io.errscope/error_ref"] == ref.group(1)
    assert (meta["io.errscope/failure_class"], meta["io.errscope/channel"]) == (failure_class, "execution")
    assert "structuredContent" not in shown.result
    return str(text)


def ref_of(shown: Shown) -> str:
    """The error ref an ``isError`` result carries in ``_meta``."""
    assert shown.result is not None, shown
    return str(shown.result["_meta"]["io.errscope/error_ref"])


def protocol_error(shown: Shown, code: int, message: str) -> None:
    """Assert the Inspector got a JSON-RPC error: exit 1, nothing on stdout, its one line on stderr."""
    assert (shown.code, shown.result) == (1, None), shown
    assert f"MCP error {code}: {message}" in shown.error, shown.error


def clean(shown: Shown, *secrets: str) -> None:
    """Nothing the Inspector printed holds a secret, a traceback or a source path."""
    printed = json.dumps(shown.result) + shown.error
    for needle in (*secrets, "Traceback", 'File "', "/srv/", "postgresql://"):
        assert needle not in printed, needle


def tools_by_name(shown: Shown) -> dict[str, dict[str, Any]]:
    assert shown.code == 0 and shown.result is not None, shown
    return {tool["name"]: tool for tool in shown.result["tools"]}


# --- 1. errscope-instrumented servers --------------------------------------------------------------------------

STDIO_CASES: Final = {
    "list": LIST,
    "raises": Call("get_order", {"order_id": "A-100"}),
    "unknown": Call("no_such_tool", {"x": "1"}),
}
TRACE_ID: Final = "4bf92f3577b34da6a3ce929d0e0e4736"
"""A W3C trace id the Inspector sends in the call's ``_meta.traceparent`` (``--tool-metadata``)."""
HTTP_CASES: Final = {
    **STDIO_CASES,
    "traceback": Call("leak", {"text": LEAK}),
    "not_found": Call("get_order", {"order_id": "B-7"}),
    "bad_arguments": Call("schedule_meeting", {"start": "yesterday", "duration_min": "0"}),
    "missing_argument": Call("get_order"),
    "ok": Call("get_order", {"order_id": "A-1"}, {"traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01"}),
    "refund": Call("refund_order", {"order_id": "A-1", "amount": "5"}, {META_IDEMPOTENCY_KEY: "inspector-key-1"}),
    "refund_again": Call("refund_order", {"order_id": "A-1", "amount": "5"}, {META_IDEMPOTENCY_KEY: "inspector-key-1"}),
}


def assert_instrumented(seen: dict[str, Shown], telemetry: str) -> None:
    """What every errscope-instrumented server shows the Inspector, whatever the style and transport; the ref it
    shows leads to the server's own telemetry (``telemetry``: everything the server exported)."""
    tools = tools_by_name(seen["list"])
    assert tools["refund_order"]["_meta"][META_IDEMPOTENCY_KEY_HONOURED] is True
    assert META_IDEMPOTENCY_KEY_HONOURED not in tools["get_order"].get("_meta", {})
    assert shaped(seen["raises"], "upstream_unavailable").startswith(
        "get_order failed: a backing service is unavailable. Try again later")
    clean(seen["raises"], CATALOGUE_SECRET)
    assert ref_of(seen["raises"]) in telemetry and CATALOGUE_SECRET not in telemetry
    # MCP 2025-11-25: an unknown tool is a protocol error (a plain MCPServer answers it with isError, see below).
    # errscope's ref for it travels in the error's `data`, which the Inspector does not print (README: the message
    # is the spec's own "Unknown tool: <name>").
    assert seen["unknown"].error.splitlines()[0] == (
        "Failed to call tool no_such_tool: MCP error -32602: Unknown tool: no_such_tool")


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
def test_instrumented_server_over_stdio(style: str, tmp_path: Path) -> None:
    """The Inspector starts the server itself: declarations, a shaped failure and an unknown tool on stdio."""
    seen = inspect_all([sys.executable, str(SERVER), style, "stdio"], STDIO_CASES, ERRSCOPE_OUT=str(tmp_path))
    assert_instrumented(seen, telemetry_text(tmp_path))


@contextmanager
def instrumented_http(style: str, out: Path) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "ERRSCOPE_OUT": str(out)}
    with _serving([sys.executable, str(SERVER), style, "http", str(port)], port, cwd=REPO, env=env) as url:
        yield url


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
def test_instrumented_server_over_http(style: str, tmp_path: Path) -> None:
    """Over streamable HTTP: every failure shape, arguments the schema rejects, a success carrying trace context,
    and an idempotency key sent as ``--tool-metadata`` that makes a repeat replay instead of refunding twice."""
    with instrumented_http(style, tmp_path) as url:
        seen = inspect_all([url, "--transport", "http"], HTTP_CASES)
    spans = telemetry_text(tmp_path)
    assert_instrumented(seen, spans)
    assert shaped(seen["traceback"], "unknown") == (
        f"leak failed: an unexpected error occurred. Do not retry blindly; tell the user and quote the reference. "
        f"Ref {ref_of(seen['traceback'])}")
    clean(seen["traceback"], FAKE_SECRET)
    assert shaped(seen["not_found"], "not_found").startswith("get_order failed: the requested item was not found.")
    # SEP-1303: input validation is a tool execution error, worded from the schema.
    assert shaped(seen["bad_arguments"], "invalid_input").startswith(
        "Invalid arguments for schedule_meeting: `duration_min` must be an integer from 1 to 480; "
        "`start` must be an ISO-8601 date-time. Fix the arguments and call again.")
    assert shaped(seen["missing_argument"], "invalid_input").startswith(
        "Invalid arguments for get_order: `order_id` is required.")
    ok = seen["ok"].result
    assert ok is not None and ok["isError"] is False
    assert ok["content"] == [{"type": "text", "text": "order A-1: 2 items, 40.00 EUR"}]
    assert not any(key.startswith("io.errscope/") for key in ok.get("_meta", {}))
    # Two calls with one key, in flight together: one refund ran, both got its result.
    refunds = [seen[label].result for label in ("refund", "refund_again")]
    assert refunds[0] == refunds[1], refunds
    assert refunds[0] is not None and refunds[0]["content"][0]["text"] == "refunded 5 on A-1 (refund #1)"
    assert TRACE_ID in spans  # the Inspector's _meta traceparent parents the tool span
    for secret in (CATALOGUE_SECRET, FAKE_SECRET):
        assert secret not in spans


# --- 2. errscope proxy in front of servers without errscope -------------------------------------------------------

EVERYTHING_CASES: Final = {
    "list": LIST,
    "echo": Call("echo", {"message": "hello from the Inspector"}),
    "sum": Call("get-sum", {"a": "2", "b": "3.5"}),
    "structured": Call("get-structured-content", {"location": "Chicago"}),
    "not_a_number": Call("get-sum", {"a": "seven", "b": "2"}),
    "not_in_enum": Call("get-annotated-message", {"messageType": "loud"}),
    "unknown": Call("no_such_tool", {"x": "1"}),
    "task_only": Call("simulate-research-query", {"topic": "error budgets"}),
}
EVERYTHING_DIRECT: Final = ("list", "echo", "sum", "structured", "not_a_number", "unknown")
"""The cases also run against the server directly (the others assert only what the proxy answers)."""


def test_proxy_in_front_of_server_everything(tmp_path: Path) -> None:
    """server-everything (TypeScript SDK) inspected directly and through ``errscope proxy --listen``: the same
    listing and successes; its ``isError`` wraps of -32602 become errscope's note, and an unknown tool (which the
    TypeScript SDK wraps in ``isError`` too) the -32602 the spec asks for."""
    require_everything()
    upstream, listen = _free_port(), _free_port()
    server = [str(NODE), *LOOPBACK, str(EVERYTHING), "streamableHttp"]
    with _serving(server, upstream, cwd=REPO, env={**os.environ, "PORT": str(upstream)}):
        url = f"http://127.0.0.1:{upstream}/mcp"
        direct = inspect_all([url, "--transport", "http"], {key: EVERYTHING_CASES[key] for key in EVERYTHING_DIRECT})
        with _serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen, cwd=REPO):
            proxied = inspect_all([f"http://127.0.0.1:{listen}/mcp", "--transport", "http"], EVERYTHING_CASES)
    assert proxied["list"] == direct["list"]
    for label in ("echo", "sum", "structured"):
        assert direct[label].result is not None and not direct[label].result.get("isError"), direct[label]
        assert proxied[label] == direct[label], label
    assert direct["sum"].result["content"][0]["text"] == "The sum of 2 and 3.5 is 5.5."  # type: ignore[index]
    # The Inspector sent null for "seven" (Number("seven") is NaN); the SDK wraps its -32602 in isError.
    assert direct["not_a_number"].result["content"][0]["text"] == (  # type: ignore[index]
        "MCP error -32602: Input validation error: Invalid arguments for tool get-sum: "
        "Invalid input: expected number, received null at a")
    assert shaped(proxied["not_a_number"], "invalid_input").startswith(
        "get-sum was rejected: invalid arguments — `a` must be a number. Fix the arguments and call again.")
    assert shaped(proxied["not_in_enum"], "invalid_input").startswith(
        "get-annotated-message was rejected: invalid arguments — `messageType` must be one of error, success, debug.")
    assert direct["unknown"].result == {  # type: ignore[comparison-overlap]
        "content": [{"type": "text", "text": "MCP error -32602: Tool no_such_tool not found"}], "isError": True}
    protocol_error(proxied["unknown"], -32602, "Unknown tool: no_such_tool")
    # The Inspector's own SDK client refuses a tool listed with taskSupport "required": the proxy never sees it.
    protocol_error(proxied["task_only"], -32600, 'Tool "simulate-research-query" requires task-based execution.')
    spans = telemetry_text(tmp_path)
    assert '"tools/call echo"' in spans and "tools/call simulate-research-query" not in spans


def test_proxy_over_stdio(tmp_path: Path) -> None:
    """The Inspector starting ``errscope proxy`` itself, in front of server-everything and of the plain
    ``MCPServer`` on stdio: the listing is the server's own, an unknown tool becomes -32602, a crash is shaped."""
    require_everything()
    everything = [str(NODE), str(EVERYTHING), "stdio"]
    direct = inspect_all(everything, {"list": LIST})
    # No "--" before the server command: the Inspector CLI drops the first "--" it sees (argparse REMAINDER
    # takes the command without it).
    proxied = inspect_all(proxy_command(tmp_path / "everything", *everything),
                          {"list": LIST, "unknown": Call("no_such_tool")})
    plain = inspect_all(proxy_command(tmp_path / "plain", sys.executable, "-m", "tests.proxy.plain_server", "stdio"),
                        {"crash": Call("crash")})
    assert proxied["list"] == direct["list"]
    protocol_error(proxied["unknown"], -32602, "Unknown tool: no_such_tool")
    assert shaped(plain["crash"], "unknown").startswith("crash failed: Error executing tool crash.")
    clean(plain["crash"], PLAIN_SECRET)
    proxy_telemetry = telemetry_text(tmp_path / "plain")
    assert ref_of(plain["crash"]) in proxy_telemetry and PLAIN_SECRET not in proxy_telemetry


PLAIN_CASES: Final = {
    "list": LIST,
    "echo": Call("echo", {"text": "hello from the Inspector"}),
    "crash": Call("crash"),
    "forbidden": Call("forbidden"),
    "rate_limited": Call("rate_limited"),
    "refused": Call("refused"),
    "unknown": Call("no_such_tool", {"x": "1"}),
    "not_a_number": Call("slow", {"seconds": "soon"}),
    "missing": Call("echo"),
    "resource": ("--method", "resources/read", "--uri", "notes://monday"),
}
PLAIN_DIRECT: Final = ("list", "echo", "forbidden", "unknown", "resource")


def test_proxy_in_front_of_plain_mcpserver(tmp_path: Path) -> None:
    """A plain ``MCPServer`` inspected directly and through ``errscope proxy``: the same listing and success; each
    failure shaped with its class and a ref, without the planted key or the traceback; the SDK's ``isError``
    "Unknown tool" becomes -32602."""
    upstream, listen = _free_port(), _free_port()
    plain = [sys.executable, "-m", "tests.proxy.plain_server"]
    with _serving([*plain, "http", str(upstream)], upstream, cwd=REPO):
        url = f"http://127.0.0.1:{upstream}/mcp"
        direct = inspect_all([url, "--transport", "http"], {label: PLAIN_CASES[label] for label in PLAIN_DIRECT})
        with _serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen, cwd=REPO):
            proxied = inspect_all([f"http://127.0.0.1:{listen}/mcp", "--transport", "http"], PLAIN_CASES)
    assert proxied["list"] == direct["list"]
    assert proxied["echo"] == direct["echo"]
    assert direct["echo"].result["structuredContent"] == {"result": "hello from the Inspector"}  # type: ignore[index]
    # What the Inspector shows without errscope: the SDK's own words, secret included.
    assert PLAIN_SECRET in direct["forbidden"].result["content"][0]["text"]  # type: ignore[index]
    assert direct["unknown"].result == {  # type: ignore[comparison-overlap]
        "content": [{"type": "text", "text": "Unknown tool: no_such_tool"}], "isError": True}
    assert shaped(proxied["crash"], "unknown").startswith("crash failed: Error executing tool crash.")
    assert shaped(proxied["forbidden"], "permission_denied").startswith(
        "forbidden failed: Error executing tool forbidden: GitHub API 403 Forbidden: token [REDACTED] lacks "
        "repo:write.")
    assert shaped(proxied["rate_limited"], "rate_limited").startswith(
        "rate_limited failed: 429 Too Many Requests, retry after 30s. Wait about 30 s before calling again.")
    assert proxied["rate_limited"].result["_meta"]["io.errscope/retry_after"] == 30  # type: ignore[index]
    assert re.fullmatch(rf"Failed to call tool refused: MCP error -32050: backend refused: api_key=\[REDACTED\] "
                        rf"\(Ref {REF}\)", proxied["refused"].error.splitlines()[0]), proxied["refused"].error
    protocol_error(proxied["unknown"], -32602, "Unknown tool: no_such_tool")
    assert shaped(proxied["not_a_number"], "invalid_input").startswith(
        "slow was rejected: invalid arguments — `seconds` must be a valid number. Fix the arguments and call again.")
    assert shaped(proxied["missing"], "invalid_input").startswith(
        "echo was rejected: invalid arguments — `text` is required.")
    # Not a tool call, so no span and no ref; but the ResourceError's words (which MCPServer sends as the message of
    # a -32603) are scrubbed as a tool's would be, the code kept.
    assert PLAIN_SECRET in direct["resource"].error
    assert proxied["resource"].error.splitlines()[0] == (
        "Failed to read resource notes://monday: MCP error -32603: cannot read note monday: connection to "
        "postgres://[REDACTED]@10.0.0.7:5432/notes refused")
    spans = telemetry_text(tmp_path)
    for shown in proxied.values():
        clean(shown, PLAIN_SECRET)
        if shown.result is not None and shown.result.get("isError"):
            assert ref_of(shown) in spans
    assert PLAIN_SECRET not in spans
