"""The relay itself, seen on the wire: ids, order and unknown methods pass; malformed frames never stop it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.proxy.conftest import ROOT, proxy_command

# A server that answers raw JSON-RPC lines: before each answer it writes a non-JSON line and a
# notification, and it echoes any method it is sent, known or not.
RAW_SERVER = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    sys.stdout.write("this is not JSON\n")
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": message["method"]}}) + "\n")
    result = {"content": [{"type": "text", "text": "ok"}]} if message["method"] == "tools/call" else {"echo": message["method"]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}, separators=(" ,", ":  ")) + "\n")
    sys.stdout.flush()
"""


def test_ids_order_unknown_methods_and_malformed_frames(tmp_path: Path) -> None:
    """A garbage line from the host is answered -32700; one from the server is dropped; everything else is relayed."""
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    frames = [
        b"{not json\n",
        json.dumps({"jsonrpc": "2.0", "id": "a-1", "method": "x/unknown", "params": {"k": 1}}).encode() + b"\n",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {}}}).encode() + b"\n",
    ]
    proxy = subprocess.run(
        proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
        input=b"".join(frames), capture_output=True, cwd=ROOT, timeout=30, check=True,
    )
    lines = proxy.stdout.splitlines()
    received = [json.loads(line) for line in lines]
    assert received[0] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert [m.get("id", m.get("method")) for m in received[1:]] == ["notifications/message", "a-1", "notifications/message", 7]
    # An answer the proxy does not change is relayed byte for byte (the server's odd separators kept).
    assert lines[2] == b'{"jsonrpc":  "2.0" ,"id":  "a-1" ,"result":  {"echo":  "x/unknown"}}'
    assert received[4]["result"]["content"][0]["text"] == "ok"
    assert b"malformed frame from the server" in proxy.stderr


# A server whose first line is a JSON array nested deeper than Python's json module recurses (a hostile
# or broken peer); then it answers every request.
DEEP_SERVER = r"""
import json, sys
sys.stdout.write("[" * 100000 + "\n")
sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        result = {"content": [{"type": "text", "text": "ok"}]}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()
"""


def test_frames_nested_too_deep_to_read_are_malformed(tmp_path: Path) -> None:
    """A frame nested deeper than the JSON reader recurses is a malformed frame on either side: the
    host's gets -32700, the server's is dropped, and the relay goes on (RecursionError is no ValueError)."""
    server = tmp_path / "deep_server.py"
    server.write_text(DEEP_SERVER)
    frames = [
        b"[" * 100000 + b"\n",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {}}}).encode() + b"\n",
    ]
    proxy = subprocess.run(
        proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
        input=b"".join(frames), capture_output=True, cwd=ROOT, timeout=30, check=True,
    )
    received = [json.loads(line) for line in proxy.stdout.splitlines()]
    assert received[0] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert received[1]["id"] == 7 and received[1]["result"]["content"][0]["text"] == "ok"
    assert b"malformed frame from the server" in proxy.stderr


def test_a_lone_surrogate_escape_crosses_the_relay(tmp_path: Path) -> None:
    r"""``"\ud800"`` is valid JSON (RFC 8259 §8.2: an unpaired surrogate escape, whose behaviour is
    unpredictable) but no UTF-8: a frame the proxy re-encodes (the host's call, which gets trace context;
    the server's answer, which gets shaped) must not fail on it. The escape goes on as an escape."""
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {"q": "\ud800"}}}
    proxy = subprocess.run(
        proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
        input=json.dumps(call).encode() + b"\n", capture_output=True, cwd=ROOT, timeout=30, check=True,
    )
    received = [json.loads(line) for line in proxy.stdout.splitlines()]
    assert received[-1]["id"] == 7 and received[-1]["result"]["content"][0]["text"] == "ok", proxy.stderr


def test_host_side_redirected_to_files(tmp_path: Path) -> None:
    """``errscope proxy -- server < frames.jsonl > answers.jsonl``: a regular file on either side of the host is read
    and written as a pipe is (pipe transports refuse files: asyncio raises, uvloop aborted the process)."""
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    frames = tmp_path / "frames.jsonl"
    frames.write_bytes(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x/echo"}).encode() + b"\n")
    answers = tmp_path / "answers.jsonl"
    with frames.open("rb") as stdin, answers.open("wb") as stdout:
        proxy = subprocess.run(proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
                               stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, timeout=30)
    assert proxy.returncode == 0, proxy.stderr.decode()[-2000:]
    received = [json.loads(line) for line in answers.read_bytes().splitlines()]
    assert [m.get("id", m.get("method")) for m in received] == ["notifications/message", 1]
    assert received[1]["result"] == {"echo": "x/echo"}


def test_host_side_is_dev_null(tmp_path: Path) -> None:
    """``errscope proxy -- server < /dev/null`` (a service manager's default stdin) ends at once with status 0, and
    ``> /dev/null`` relays as a pipe does: uvloop's pipe transports aborted the process (SIGABRT) on either."""
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    command = proxy_command(tmp_path / "out", "--", sys.executable, str(server))
    nothing = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, cwd=ROOT, timeout=30)
    assert nothing.returncode == 0, nothing.stderr.decode()[-2000:]
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}})
    dropped = subprocess.run(command, input=frame.encode() + b"\n", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             cwd=ROOT, timeout=30)
    assert dropped.returncode == 0, dropped.stderr.decode()[-2000:]
    assert '"errscope.outcome"' in (tmp_path / "out" / "traces.jsonl").read_text()


# A server that prints a banner and logs to stdout (the MCP stream) before it answers.
CHATTY_SERVER = r"""
import json, sys
print("Starting orders server with api_key=sk_live_51HrGq2eZvKYlo2C0123456789ab")
for n in range(10):
    print(f"INFO loaded plugin {n}")
sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message["method"]}}) + "\n")
        sys.stdout.flush()
"""


def test_server_printing_to_stdout_is_said_once_with_the_cause(tmp_path: Path) -> None:
    """Eleven text lines on the server's stdout: three log lines with each line's start (scrubbed), the cause said
    once, then one line for the rest (one line each flooded the host's log); the answer still comes through."""
    server = tmp_path / "chatty_server.py"
    server.write_text(CHATTY_SERVER)
    proxy = subprocess.run(
        proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
        input=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x/echo"}).encode() + b"\n",
        capture_output=True, cwd=ROOT, timeout=30, check=True,
    )
    assert [json.loads(line) for line in proxy.stdout.splitlines()] == [
        {"jsonrpc": "2.0", "id": 1, "result": {"echo": "x/echo"}}]
    said = [line for line in proxy.stderr.decode().splitlines() if "malformed frames" in line or "malformed frame" in line]
    assert len(said) == 4, said
    assert said[0].startswith("errscope proxy: a malformed frame from the server was dropped (")
    assert "'Starting orders server with api_key=[REDACTED]'" in said[0]
    assert "must write only JSON-RPC messages to stdout" in said[0]
    assert said[1].endswith("bytes: 'INFO loaded plugin 0')") and said[2].endswith("bytes: 'INFO loaded plugin 1')")
    assert said[3] == "errscope proxy: further malformed frames from this server are dropped without a line each"
    assert b"sk_live_51HrGq2eZvKYlo2C" not in proxy.stderr


def test_out_is_written_when_an_otlp_endpoint_is_set_too(tmp_path: Path) -> None:
    """``--out DIR`` with ``OTEL_EXPORTER_OTLP_ENDPOINT`` in the environment: the call's span and failure record are in
    DIR as well, so ``errscope explain --from DIR`` finds the ref (DIR was created and left empty: OTLP alone won).
    The host closes stdin right after its call (a batch host): the answer that comes in the server's shutdown grace is
    shaped with its ref like any other (it was relayed raw, without a span, the call abandoned first)."""
    import os

    from tests.proxy.conftest import free_port

    server = tmp_path / "failing_server.py"
    server.write_text(RAW_SERVER.replace('{"content": [{"type": "text", "text": "ok"}]}',
                                         '{"isError": True, "content": [{"type": "text", "text": "order not found"}]}'))
    out = tmp_path / "out"
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get_order", "arguments": {}}}
    environment = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    proxy = subprocess.run(proxy_command(out, "--", sys.executable, str(server)), input=json.dumps(call).encode() + b"\n",
                           capture_output=True, cwd=ROOT, timeout=90, check=True, env=environment)
    answer = [json.loads(line) for line in proxy.stdout.splitlines()][-1]
    assert "_meta" in answer.get("result", {}), (answer, proxy.stderr.decode()[-1500:])
    ref = answer["result"]["_meta"]["io.errscope/error_ref"]
    from errscope.cli import main

    assert main(["explain", ref, "--from", str(out)]) == 0
