"""A foreign stdio MCP server whose tools and answers come from a JSON file (tests/heldout_cases.md).

Usage: ``python heldout_peer.py`` with ``PEER_SPEC`` (the JSON file) and ``PEER_LOG`` (JSON lines: every
frame received). Handshake era: 2025-11-25. The spec::

    {"tools": [<Tool dicts, sent verbatim in tools/list>],
     "answers": {"<tool>": {"result": {...}} | {"error": {...}}
                          | {"hold": true, "on_cancel": {"error": {...}}}   # answer only when cancelled
                          | {"result": {...}, "repeat": 2}},               # the same answer twice
     "page_size": 2,          # optional: tools/list pages of this size, the cursor being the next offset
     "stuck_cursor": true,    # optional: every page is the first, always with the same nextCursor
     "empty_cursor": true,    # optional: the last page carries nextCursor "" and cursor "" is read as the start
                              # (a server whose struct always writes the field: ChesterRa/cccc PR #50)
     "list_changed_on_list": true,  # optional: every tools/list answer is followed by list_changed (microsoft/aspire
                              # PR #14494: a server that announces a change each time it is listed)
     "relist_at": "2", "relist_tools": [...],  # optional: when the page at this cursor is asked for, the listing
                              # becomes relist_tools and list_changed is sent before that page (aaif-goose/goose #10433)
     "notification_answers": [...],  # optional: frames sent back for every notification received (a server
                              # that answers notifications/initialized: sharplens-mcp #6, fast-mcp #39)
     "stdout_noise": ["..."], # optional: lines printed on stdout at start and before every answer (not JSON-RPC)
     "stderr_bytes": 0,       # optional: bytes written to stderr before every tools/call answer
     "list_error": {...},     # optional: every tools/list is answered with this JSON-RPC error
     "list_hold": true,       # optional: no tools/list is ever answered
     "line_end": "\r\n",     # optional: what ends each frame (a Windows server's CRLF)
     "bom": true,             # optional: the first frame starts with a UTF-8 byte order mark
     "id_as_string": true,    # optional: every answer echoes a numeric request id as a string (42 -> "42")
     "protocol_version": "…", # optional: the version the initialize answer names (default 2025-11-25)
     "init_delay": 1.5,       # optional: seconds to wait before answering initialize (a slow start-up)
     "init_hold": true}       # optional: initialize is never answered (a server stuck in its start-up)

An answer may carry ``"after": [<frames>]``: sent right after it, with the string ``"{token}"`` replaced by the
request's ``_meta.progressToken`` (a server whose terminal progress races its answer, anthropics/claude-code #47765).

An answer may also be ``{"raw": "<frame with {id}>"}``: the line is written as latin-1 bytes with the request id in
place of ``{id}``, so a test can send bytes that are not UTF-8 or a frame that is not valid JSON-RPC.

An answer may carry ``"exit": <code>``: the process exits with that code right after sending it, or, when the answer
has neither ``result`` nor ``error``, without answering at all (a server that reads the request and ends, openai/codex
#18977).

An answer may carry ``"before": [<frames>]``: sent before it (a ``notifications/tools/list_changed``), and
``"retool": [<tools>]``: the listing served from then on (a server whose tools changed during the call).

An answer may carry ``"ask": {"method": ..., "params": ...}``: the peer first sends that request to the client (id
``"peer-ask"``), logs the client's reply (``kind="reply"``) and only then answers the call: with the answer when the reply
is a result, with ``"on_refused"`` when it is an error (a tool that needs sampling or elicitation from the host).

``on_cancel`` reproduces the mcp 1.27 server that answered a cancelled request with ``code 0``
(python-sdk #2493); ``repeat`` a server that answers one id twice.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

SPEC = json.loads(open(os.environ["PEER_SPEC"]).read())
LOG = os.environ.get("PEER_LOG")
_lock = threading.Lock()
_held: dict[Any, dict[str, Any]] = {}
_asking: dict[str, tuple[Any, dict[str, Any]]] = {}
_first = [True]


def log(**event: Any) -> None:
    if LOG:
        with _lock, open(LOG, "a") as fh:
            fh.write(json.dumps(event) + "\n")


def send(obj: dict[str, Any]) -> None:
    with _lock:
        sys.stdout.write(frame_text(obj))
        sys.stdout.flush()


def frame_text(obj: Any) -> str:
    bom = "\ufeff" if SPEC.get("bom") and _first[0] else ""
    _first[0] = False
    return bom + json.dumps(obj) + SPEC.get("line_end", "\n")


def noise() -> None:
    with _lock:
        for line in SPEC.get("stdout_noise", ()):
            sys.stdout.write(line + "\n")
        sys.stdout.flush()


def answer(rid: Any, how: dict[str, Any]) -> None:
    noise()
    if "raw" in how:
        with _lock:
            sys.stdout.buffer.write(how["raw"].replace("{id}", json.dumps(rid)).encode("latin-1") + b"\n")
            sys.stdout.flush()
        return
    if SPEC.get("id_as_string") and isinstance(rid, int):
        rid = str(rid)
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
    if "error" in how:
        frame["error"] = how["error"]
    else:
        frame["result"] = how["result"]
    for _ in range(int(how.get("repeat", 1))):
        send(frame)


def listing(cursor: str | None) -> dict[str, Any]:
    tools, size = SPEC["tools"], SPEC.get("page_size")
    if size is None:
        return {"tools": tools, **({"nextCursor": ""} if SPEC.get("empty_cursor") else {})}
    if SPEC.get("stuck_cursor"):
        return {"tools": tools[:size], "nextCursor": "stuck"}
    start = int(cursor or 0)
    page: dict[str, Any] = {"tools": tools[start:start + size]}
    if start + size < len(tools):
        page["nextCursor"] = str(start + size)
    elif SPEC.get("empty_cursor"):
        page["nextCursor"] = ""
    return page


def main() -> None:
    noise()
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        log(kind="recv", method=method, id=rid, params=params)
        if method is None and rid in _asking:
            log(kind="reply", id=rid, result=msg.get("result"), error=msg.get("error"))
            call_id, how = _asking.pop(rid)
            answer(call_id, how if "result" in msg else how["on_refused"])
            continue
        if method == "notifications/cancelled":
            held = _held.pop(params.get("requestId"), None)
            if held is not None and "on_cancel" in held:
                answer(params["requestId"], held["on_cancel"])
            continue
        if "id" not in msg and method is not None:
            for frame in SPEC.get("notification_answers", ()):
                send(frame)
        if rid is None or method is None:
            continue
        if method == "initialize":
            if SPEC.get("init_hold"):
                continue
            time.sleep(SPEC.get("init_delay", 0))
            answer(rid, {"result": {
                "protocolVersion": SPEC.get("protocol_version", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "heldout-peer", "version": "0.0.1"},
            }})
        elif method == "tools/list" and SPEC.get("list_hold"):
            continue
        elif method == "tools/list":
            if "relist_at" in SPEC and params.get("cursor") == SPEC["relist_at"]:
                SPEC["tools"] = SPEC.pop("relist_tools")
                del SPEC["relist_at"]
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            answer(rid, {"error": SPEC["list_error"]} if "list_error" in SPEC else {"result": listing(params.get("cursor"))})
            if SPEC.get("list_changed_on_list"):
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        elif method == "tools/call":
            how = SPEC["answers"].get(params.get("name"))
            if how is None:
                answer(rid, {"error": {"code": -32602, "message": f"Unknown tool: {params.get('name')}"}})
            elif how.get("hold"):
                _held[rid] = how
            elif "ask" in how:
                _asking["peer-ask"] = (rid, how)
                send({"jsonrpc": "2.0", "id": "peer-ask", **how["ask"]})
            elif "result" not in how and "error" not in how and "raw" not in how and "exit" in how:
                os._exit(int(how["exit"]))
            else:
                if "retool" in how:
                    SPEC["tools"] = how["retool"]
                for frame in how.get("before", ()):
                    send(frame)
                if SPEC.get("stderr_bytes"):
                    sys.stderr.write("debug: " + "x" * SPEC["stderr_bytes"] + "\n")
                    sys.stderr.flush()
                answer(rid, how)
                token = json.dumps((params.get("_meta") or {}).get("progressToken"))
                for frame in how.get("after", ()):
                    with _lock:
                        sys.stdout.write(json.dumps(frame).replace('"{token}"', token) + "\n")
                        sys.stdout.flush()
                if "exit" in how:
                    os._exit(int(how["exit"]))
        elif method == "ping":
            answer(rid, {"result": {}})
        else:
            answer(rid, {"error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
