"""Server side of tests/heldout_cases.md, fourteenth round (J268-J273, J282): a root cause the server must find on foreign
ground, and real transport failures in odd states.

A gateway's tool whose upstream MCP server (a real foreign stdio process) answers -32603 with a generic message and the
cause only in ``error.data``; a tool connecting to a Unix socket that is not there with a plain ``socket``; a mail tool
whose SMTP port speaks another protocol or refuses in its greeting; TLS spoken to a plain port and a socket the peer
half-closed (already right, kept as guards); a hand-written retry loop that gives up with a message only, and a background job whose failure the tool retrieved
and reported with its own exception (the raising frame still holds the cause).

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process; every upstream is a
real socket on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import smtplib
import socket
import ssl
from pathlib import Path

import anyio
import httpx
import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, closed_port, closing_listener
from tests.server.test_heldout_cases import serving
from tests.server.test_heldout_cases_6 import failed_text, relay, upstream_peer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


@pytest.mark.parametrize("style", STYLES)
async def test_j268_a_gateway_tool_whose_upstream_keeps_the_cause_in_error_data(
        style: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J268 (J263 one hop further: an rmcp server's ``McpError::internal_error("IO operation failed",
    Some(json!({"error": e.to_string()})))`` reached by a gateway's tool through the real SDK client, which raises
    ``MCPError`` with that ``data``). The gateway's span takes the class from the cause in ``data``
    (``upstream_unavailable``, ``rate_limited``), not ``unknown`` from the generic message, and the answer carries a
    ref."""
    params = upstream_peer(tmp_path, {
        "write_file": {"error": {"code": -32603, "message": "IO operation failed", "data": {
            "error": "error sending request for url (http://storage.internal:9000/b/f): client error (Connect): tcp "
                     "connect error: Connection refused (os error 111)"}}},
        "post_status": {"error": {"code": -32603, "message": "Internal error", "data": {
            "status": 429, "error": {"message": "quota exhausted for this minute"}}}},
    })

    async def ask(tool: str) -> str:
        """Relay a call to the upstream MCP server."""
        return await relay(params, tool)

    async with serving(style, "legacy", telemetry, ask) as served:
        results = [await served.call("ask", {"tool": name}) for name in ("write_file", "post_status")]
    for result in results:
        assert "ERR-" in failed_text(result), result
    spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert [s.attributes[ERRSCOPE_FAILURE_CLASS] for s in spans] == ["upstream_unavailable", "rate_limited"]


@pytest.mark.parametrize("style", STYLES)
async def test_j269_a_unix_socket_that_is_not_there(style: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J269 (docker's and podman's sockets, a sidecar's ``/run/app.sock``: a tool that talks to a local daemon with a
    plain ``socket.socket(AF_UNIX)``; connect(2) answers ENOENT when the daemon is not running, and Python raises
    ``FileNotFoundError`` with no path). The daemon is not running: ``upstream_unavailable``, nothing sent; not the
    ``not_found`` that tells the model to check an identifier it never gave. A file the tool opens that is not there
    stays ``not_found`` (guard)."""
    missing = tmp_path / "daemon.sock"

    async def list_containers() -> str:
        """List the containers of the local daemon."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(missing))
            sock.sendall(b"GET /containers/json HTTP/1.0\r\n\r\n")
            return sock.recv(65536).decode()

    async def read_note(name: str) -> str:
        """Read a note."""
        return (tmp_path / f"{name}.txt").read_text()

    async with serving(style, "legacy", telemetry, list_containers, read_note) as served:
        daemon = await served.call("list_containers", {})
        note = await served.call("read_note", {"name": "groceries"})
    assert "ERR-" in failed_text(daemon) and "identifier" not in failed_text(daemon), failed_text(daemon)
    spans = {s.attributes["gen_ai.tool.name"]: s.attributes for s in telemetry.spans()
             if s.attributes.get("mcp.method.name") == "tools/call"}
    assert spans["list_containers"][ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", spans["list_containers"]
    assert spans["list_containers"].get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, spans["list_containers"]
    assert spans["read_note"][ERRSCOPE_FAILURE_CLASS] == "not_found", (spans["read_note"], note)


@pytest.mark.parametrize("greeting", [b"SSH-2.0-OpenSSH_9.6\r\n", b"554 mail.example.test no SMTP service here\r\n"],
                         ids=["another_protocol", "554_greeting"])
@pytest.mark.parametrize("style", STYLES)
async def test_j270_a_mail_port_that_is_no_mail_service(style: str, greeting: bytes,
                                                        telemetry: CapturedTelemetry) -> None:
    """J270 (RFC 5321 §3.1: a server that will not serve answers its greeting with 554 "no SMTP service here"; smtplib
    raises ``SMTPConnectError`` for a greeting that is not 220, with code -1 when the port answered no SMTP reply at all,
    e.g. a mail host's port mapped onto an SSH daemon). No mail was taken: ``upstream_unavailable`` that did not run,
    not ``unknown``."""
    with closing_listener(greeting) as port:

        async def send_mail(to: str) -> str:
            """Send a short mail."""
            with smtplib.SMTP(HOST, port, timeout=5) as smtp:
                smtp.sendmail("bot@example.test", [to], "Subject: hi\r\n\r\nhello")
            return "sent"

        async with serving(style, "legacy", telemetry, send_mail) as served:
            result = await served.call("send_mail", {"to": "ops@example.test"})
    assert "ERR-" in failed_text(result), result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


@pytest.mark.parametrize("style", STYLES)
async def test_j271_tls_to_a_plain_port_and_a_half_closed_socket(style: str, telemetry: CapturedTelemetry) -> None:
    """J271 (TLS spoken to a plain-text port: OpenSSL's "[SSL: WRONG_VERSION_NUMBER] wrong version number" from
    ``asyncio.open_connection(ssl=...)``; a peer that half-closes after the request: asyncio's ``IncompleteReadError``
    and anyio's ``EndOfStream``, which carry no message at all). Already right before this round; kept as guards of
    the real exceptions' classes: ``upstream_unavailable`` each, the half-closed reads after the request was sent
    "may have run"."""
    with closing_listener(b"HTTP/1.1 400 Bad Request\r\n\r\n", read_first=True) as plain, \
            closing_listener(b"", read_first=True) as half_closing:

        async def fetch_secure() -> str:
            """Fetch over TLS."""
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            _, writer = await asyncio.open_connection(HOST, plain, ssl=context)
            writer.close()
            return "ok"

        async def read_frame() -> str:
            """Read one length-prefixed frame."""
            reader, writer = await asyncio.open_connection(HOST, half_closing)
            writer.write(b"GET frame\n")
            await writer.drain()
            size = await reader.readexactly(4)
            return (await reader.readexactly(int.from_bytes(size, "big"))).decode()

        async def next_event() -> str:
            """Wait for the next event on the stream."""
            stream = await anyio.connect_tcp(HOST, half_closing)
            async with stream:
                await stream.send(b"SUBSCRIBE\n")
                return (await stream.receive()).decode()

        async with serving(style, "legacy", telemetry, fetch_secure, read_frame, next_event) as served:
            for name in ("fetch_secure", "read_frame", "next_event"):
                assert "ERR-" in failed_text(await served.call(name, {}))
    spans = {s.attributes["gen_ai.tool.name"]: s.attributes for s in telemetry.spans()
             if s.attributes.get("mcp.method.name") == "tools/call"}
    assert {name: a[ERRSCOPE_FAILURE_CLASS] for name, a in spans.items()} == dict.fromkeys(spans, "upstream_unavailable")
    assert spans["read_frame"].get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True
    assert spans["next_event"].get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True


@pytest.mark.parametrize("style", STYLES)
async def test_j272_a_hand_written_retry_loop_that_gives_up_in_words(style: str, telemetry: CapturedTelemetry) -> None:
    """J272 (the pattern across public MCP servers: ``for attempt in range(3): try: ... except httpx.TransportError as
    exc: last = exc`` then ``raise RuntimeError(f"gave up after 3 attempts: {last}")`` after the loop). The root cause,
    a refused connection, reaches neither the chain nor the call's upstream records: the span should say
    ``upstream_unavailable`` with the ``ConnectError`` as its exception event."""
    url = f"http://{HOST}:{closed_port()}/v1/issues"

    async def create_issue(title: str) -> str:
        """Create an issue."""
        last: Exception | None = None
        async with httpx.AsyncClient(timeout=5) as http:
            for _ in range(3):
                try:
                    return (await http.post(url, json={"title": title})).text
                except httpx.TransportError as exc:
                    last = exc
        raise RuntimeError(f"gave up after 3 attempts: {last}")

    async with serving(style, "legacy", telemetry, create_issue) as served:
        result = await served.call("create_issue", {"title": "x"})
    assert "ERR-" in failed_text(result)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
    events = [dict(event.attributes or {}) for event in span.events if event.name == "exception"]
    assert events and events[-1].get("exception.type", "").endswith("ConnectError"), events


@pytest.mark.parametrize("style", STYLES)
async def test_j273_a_background_job_the_tool_awaited(style: str, telemetry: CapturedTelemetry) -> None:
    """J273 (a tool that starts its upstream work as a background task and reports its outcome itself: ``task =
    asyncio.create_task(job())`` ... ``if task.exception(): raise RuntimeError("sync job failed")``; one that gathers
    jobs with ``asyncio.gather(..., return_exceptions=True)`` and raises its own summary). The failure was retrieved,
    not raised inside an ``except``, so nothing chains it; the raising frame still holds it, and it decides:
    ``upstream_unavailable`` with the ``ConnectError`` as the span's exception, not ``unknown``. Guard: a tool that
    holds a handled failure and raises its own declared class (``errscope.InvalidInput``) keeps that class."""
    import errscope

    url = f"http://{HOST}:{closed_port()}/v1/sync"

    async def job() -> str:
        async with httpx.AsyncClient(timeout=5) as http:
            return (await http.post(url)).text

    async def sync_contacts() -> str:
        """Sync contacts in the background and report."""
        task = asyncio.create_task(job())
        await asyncio.wait([task])
        if task.exception() is not None:
            raise RuntimeError("sync job failed")
        return task.result()

    async def sync_calendars() -> str:
        """Sync every calendar."""
        outcomes = await asyncio.gather(job(), job(), return_exceptions=True)
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failures:
            raise RuntimeError(f"{len(failures)} of {len(outcomes)} calendars failed to sync")
        return "synced"

    async def rename_contact(name: str) -> str:
        """Rename a contact (the sync is best effort)."""
        task = asyncio.create_task(job())
        await asyncio.wait([task])
        held = task.exception()
        raise errscope.InvalidInput(f"name {name!r} is too long", public_message="the name is too long") from None \
            if held is not None else None

    async with serving(style, "legacy", telemetry, sync_contacts, sync_calendars, rename_contact) as served:
        for name, arguments in (("sync_contacts", {}), ("sync_calendars", {}), ("rename_contact", {"name": "x" * 9})):
            assert "ERR-" in failed_text(await served.call(name, arguments))
    spans = {s.attributes["gen_ai.tool.name"]: s for s in telemetry.spans()
             if s.attributes.get("mcp.method.name") == "tools/call"}
    classes = {name: span.attributes[ERRSCOPE_FAILURE_CLASS] for name, span in spans.items()}
    assert classes == {"sync_contacts": "upstream_unavailable", "sync_calendars": "upstream_unavailable",
                       "rename_contact": "invalid_input"}, classes
    for name in ("sync_contacts", "sync_calendars"):
        events = [dict(event.attributes or {}) for event in spans[name].events if event.name == "exception"]
        assert events and events[-1].get("exception.type", "").endswith("ConnectError"), (name, events)


_DUPLICATE_SERVER = '''
import sys
import anyio
from tests.servers.catalogue import BUILDERS
import errscope

style, count = sys.argv[1], sys.argv[2]
server = BUILDERS[style]()


async def charge_card(amount: int) -> str:
    """Charge a card (a write; no annotations)."""
    with open(count, "a") as runs:
        runs.write("x")
    await anyio.sleep(1.0)
    return f"charged {amount}"


(server.tool if style == "fastmcp" else server.add_tool)(charge_card)
errscope.instrument(server)
if style == "fastmcp":
    server.run(transport="stdio", show_banner=False)
else:
    server.run()
'''


@pytest.mark.parametrize("style", STYLES)
def test_j282_a_call_sent_again_with_its_id_while_it_runs(style: str, tmp_path: Path) -> None:
    """J282 (a host or an HTTP layer that re-sends a ``tools/call`` after a reconnect or its own timeout, reusing the
    request's id: MCP 2025-11-25, Basic > Requests: the id "MUST NOT have been previously used by the requestor within
    the same session"; the same frame twice is the same request). Both the SDK's ``MCPServer`` and FastMCP ran the
    tool once per frame: a card charged twice. errscope's server answers the second frame with the first's outcome
    once it has one; the tool runs once and both answers carry the same result. A later call reusing the id after the
    first ended is a new request (hosts that number every request 1 exist) and runs."""
    import json
    import os
    import subprocess
    import sys
    import time

    script, count = tmp_path / "server.py", tmp_path / "runs.txt"
    script.write_text(_DUPLICATE_SERVER)
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, str(script), style, str(count)], cwd=root,
                               env={**os.environ, "PYTHONPATH": str(root)}, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None

    def send(frame: dict[str, object]) -> None:
        process.stdin.write(json.dumps(frame) + "\n")
        process.stdin.flush()

    def answer() -> dict[str, object]:
        return json.loads(process.stdout.readline())

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        assert answer()["id"] == 0
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "charge_card", "arguments": {"amount": 5}}}
        send(call)
        time.sleep(0.3)
        send(call)  # the same frame again while the first runs
        answers = [answer(), answer()]
        assert [a["id"] for a in answers] == [5, 5], answers
        assert [a["result"]["content"][0]["text"] for a in answers] == ["charged 5", "charged 5"], answers
        assert count.read_text() == "x", "the tool ran once per frame"
        send(call)  # the id again, after its request ended: a new request
        assert answer()["result"]["content"][0]["text"] == "charged 5"
        assert count.read_text() == "xx"
    finally:
        process.kill()
        process.wait(timeout=10)
