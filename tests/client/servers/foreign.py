"""A "foreign" MCP server speaking raw JSON-RPC over stdio, misbehaving as ../shared/cases describe.

Usage: ``python foreign.py SCENARIO`` with the log path in ``FOREIGN_LOG`` (JSON lines: every frame
received, every cancel honoured, handler starts/ends), so tests can check the wire from the
server's side. Handshake era: 2025-11-25 (``initialize``); ``server/discover`` gets -32601.

Scenarios: d01, d04, d04_hinted, d18, d22, d24, slow, garbage, close, wrong_id, hang_init.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "slow"
LOG = os.environ.get("FOREIGN_LOG")
_lock = threading.RLock()  # re-entered: a count and its log line are written in one critical section
_cancel: dict[Any, threading.Event] = {}
_in_flight = 0
_scripted_calls: list[Any] = []


def log(**event: Any) -> None:
    if LOG:
        with _lock, open(LOG, "a") as fh:
            fh.write(json.dumps({"t": time.monotonic(), **event}) + "\n")


def send(obj: Any) -> None:
    with _lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def raw(line: str) -> None:
    with _lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def tool(name: str, **annotations: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    if annotations:
        spec["annotations"] = annotations
    return spec


TOOLS: dict[str, list[dict[str, Any]]] = {
    "d01": [tool("get_order"), tool("list_orders")],
    "d04": [tool("delete_branch"), tool("get_issue"), tool("search_code"), tool("create_issue")],
    "d18": [tool("create_label")],
    "d22": [tool("search"), tool("get_doc"), tool("change_tools")],
    "d24": [tool("echo")],
    # FOREIGN_IDEMPOTENT=1: the scripted tool declares idempotentHint (safe to repeat).
    "scripted": [tool("scripted", idempotentHint=True) if os.environ.get("FOREIGN_IDEMPOTENT") else tool("scripted")],
    "slow": [tool("export_report"), tool("transfer_funds"), tool("create_cluster"), tool("flaky", idempotentHint=True), tool("stray_progress"),
             tool("stop_reading")],
    "garbage": [tool("echo"), tool("garbage_only")],
    "close": [tool("echo")],
    "wrong_id": [tool("echo")],
}
TOOLS["d04_hinted"] = TOOLS["d04"]
_current_tools = list(TOOLS.get(SCENARIO, []))

D04_TEXT = {
    "delete_branch": ("403 Forbidden: token lacks repo:write", "permission_denied", None),
    "get_issue": ("404 Not Found", "not_found", None),
    "search_code": ("429 Too Many Requests, retry after 30s", "rate_limited", 30),
    "create_issue": ("503 Service Unavailable", "upstream_unavailable", None),
}


def result(rid: Any, res: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": res})


def error(rid: Any, code: int, message: str, data: Any = None) -> None:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": err})


def text_result(text: str, *, is_error: bool = False, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if meta:
        res["_meta"] = meta
    return res


def slow_call(rid: Any, name: str, args: dict[str, Any], meta: dict[str, Any]) -> None:
    global _in_flight
    cancelled = _cancel.setdefault(rid, threading.Event())
    seconds = float(args.get("seconds", 120))
    progress_every = float(args.get("progress_every", 0))
    token = meta.get("progressToken")
    with _lock:
        _in_flight += 1
        log(kind="start", id=rid, tool=name, key=meta.get("io.errscope/idempotency_key"), in_flight=_in_flight)
    started = time.monotonic()
    step = 0
    try:
        while time.monotonic() - started < seconds:
            wait = progress_every if progress_every else seconds
            if cancelled.wait(min(wait, max(0.0, seconds - (time.monotonic() - started)))):
                log(kind="cancel_honoured", id=rid, tool=name)
                return  # the spec: no response for a cancelled request
            if progress_every and name == "stray_progress":
                step += 1
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": "not-a-live-token", "progress": step}})
            elif progress_every and token is not None:
                step += 1
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": step, "total": None},
                    }
                )
        if name == "stray_progress":
            result(rid, text_result("stray done"))
            for i in range(3):  # progress after the result: must change nothing
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": 100 + i}})
            return
        if name == "flaky":
            result(rid, text_result("503 Service Unavailable", is_error=True))
            return
        result(rid, text_result(f"{name} done"))
        log(kind="completed", id=rid, tool=name)
    finally:
        with _lock:
            _in_flight -= 1
            log(kind="end", id=rid, tool=name, in_flight=_in_flight)


def call_tool(rid: Any, params: dict[str, Any]) -> None:
    global _current_tools
    name = params.get("name")
    args = params.get("arguments") or {}
    meta = params.get("_meta") or {}
    log(kind="call", id=rid, tool=name, meta=meta)
    if SCENARIO == "scripted":
        script = json.loads(open(os.environ["FOREIGN_SCRIPT"]).read())
        index = len([1 for _ in _scripted_calls])
        _scripted_calls.append(rid)
        step = script[min(index, len(script) - 1)]
        if "error" in step:
            error(rid, step["error"]["code"], step["error"]["message"], step["error"].get("data"))
        else:
            result(rid, text_result(step["text"], is_error=step.get("isError", False), meta=step.get("meta")))
    elif SCENARIO in ("d04", "d04_hinted"):
        text, cls, retry_after = D04_TEXT[name]
        hint = None
        if SCENARIO == "d04_hinted":
            hint = {"io.errscope/failure_class": cls, "io.errscope/channel": "execution", "io.errscope/error_ref": "ERR-SRVREF01"}
            if retry_after:
                hint["io.errscope/retry_after"] = retry_after
        result(rid, text_result(text, is_error=True, meta=hint))
    elif SCENARIO == "d01":
        if name in ("get_order", "list_orders"):
            result(rid, text_result("ok"))
        elif args.get("style") == "iserror":
            # D01: the SDK wrapped its own protocol error into a tool result.
            result(rid, text_result(f"MCP error -32602: Tool {name} not found", is_error=True))
        else:
            error(rid, -32602, f"Unknown tool: {name}")
    elif SCENARIO == "d18":
        error(
            rid,
            -32602,
            "Input validation error: Invalid arguments for tool create_label: color: Expected string, received "
            "number; trace at /srv/app/FAKE/handlers.py:88",
            data={"stack": "Error\n    at validate (/srv/app/FAKE/handlers.py:88:13)", "token": "tok-FAKE-1"},
        )
    elif SCENARIO == "d22":
        names = [t["name"] for t in _current_tools]
        if name == "lazy" and "lazy" not in names:
            # Registered by the very call that names it (a deploy racing the call): unknown this time.
            _current_tools = [*_current_tools, tool("lazy")]
            error(rid, -32602, "Unknown tool: lazy")
        elif name == "change_tools":
            _current_tools = [tool("search"), tool("summarize"), tool("change_tools")]
            result(rid, text_result("changed"))
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        elif name in names:
            result(rid, text_result(f"{name} ok"))
        else:
            error(rid, -32602, f"Unknown tool: {name}")
    elif SCENARIO == "d24":
        result(rid, text_result(str(args.get("text", "echo"))))
    elif name == "stop_reading":
        time.sleep(float(args.get("seconds", 1)))  # in the reading thread: the client's writes back up meanwhile
        result(rid, text_result("read again"))
    elif SCENARIO == "garbage":
        raw("this is not json {")
        raw('{"hello": 1}')
        if name == "echo":
            result(rid, text_result(str(args.get("text", ""))))
    elif SCENARIO == "close":
        log(kind="closing", id=rid)
        sys.stdout.flush()
        os._exit(0)
    elif SCENARIO == "wrong_id":
        result(rid + 1000 if isinstance(rid, int) else f"{rid}-x", text_result("answer for someone else"))
    else:
        threading.Thread(target=slow_call, args=(rid, name, args, meta), daemon=True).start()


def main() -> None:
    caps: dict[str, Any] = {"tools": {"listChanged": True}} if SCENARIO == "d22" else {"tools": {}}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method = msg.get("method")
        rid = msg.get("id")
        log(kind="recv", method=method, id=rid, params=msg.get("params"))
        if method is None:
            continue
        if rid is None:
            if method == "notifications/cancelled":
                target = (msg.get("params") or {}).get("requestId")
                _cancel.setdefault(target, threading.Event()).set()
            continue
        if method == "initialize":
            if SCENARIO == "hang_init":
                continue
            result(
                rid,
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": caps,
                    "serverInfo": {"name": f"foreign-{SCENARIO}", "version": "0.0.1"},
                },
            )
        elif method == "tools/list":
            result(rid, {"tools": _current_tools})
        elif method == "tools/call":
            call_tool(rid, msg.get("params") or {})
        elif method == "ping":
            result(rid, {})
        else:
            error(rid, -32601, "Method not found", data=method)


if __name__ == "__main__":
    main()
