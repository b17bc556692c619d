"""A hostile MCP server for the client's tests: raw JSON-RPC that answers some calls with garbage.

Usage: ``python hostile.py stdio`` or ``python hostile.py http PORT`` (127.0.0.1). Handshake era
2025-11-25. Tools (each name is what it does to its answer):

- ``echo``: a good answer, ``arguments["text"]``.
- stdio: ``bad_utf8_in_text`` (bytes that are not UTF-8 inside the result's text),
  ``bad_utf8_line`` (a line of undecodable bytes instead of an answer, then the answer to nothing),
  ``die`` (the process exits mid-call), ``close_stdout`` (stdout closed, the process lives on).
- http: ``bad_json`` (a truncated JSON body), ``bad_utf8_json`` (a body that is not UTF-8),
  ``http_500`` (an HTTP 500 with a text body), ``refused`` (a real JSON-RPC -32602 error),
  ``refused_at_400`` (the same error at HTTP 400 with ``id: null``, as some servers do),
  ``end_session`` (HTTP 404 to the session, as a server that has ended it answers; a new
  ``initialize`` gets a new session).
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOLS = ["echo", "bad_utf8_in_text", "bad_utf8_line", "die", "close_stdout",
         "bad_json", "bad_utf8_json", "http_500", "refused", "refused_at_400", "end_session"]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The well-formed answer to ``message`` (None for notifications)."""
    rid, method = message.get("id"), message.get("method")
    if rid is None:
        return None
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "hostile", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]}
    elif method == "tools/call":
        text = str((message["params"].get("arguments") or {}).get("text", "ok"))
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def serve_stdio() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        name = message.get("params", {}).get("name") if message.get("method") == "tools/call" else None
        reply = answer(message)
        if reply is None:
            continue
        data = json.dumps(reply).encode()
        if name == "bad_utf8_in_text":
            data = data.replace(b'"ok"', b'"ok \xff\xfe bytes"')
        elif name == "bad_utf8_line":
            data = b"\xff\xfe\xc3(\x80 not text at all"
        elif name == "die":
            os._exit(3)
        elif name == "close_stdout":
            out.close()
            os.close(1)
            for _ in sys.stdin.buffer:  # alive, reading, never answering again
                pass
            return
        out.write(data + b"\n")
        out.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    session = uuid.uuid4().hex

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Mcp-Session-Id", self.session)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(405, b"", "text/plain")

    def do_DELETE(self) -> None:
        self._send(200, b"", "text/plain")

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        reply = answer(message)
        if reply is None:
            self._send(202, b"", "text/plain")
            return
        name = message["params"].get("name") if message.get("method") == "tools/call" else None
        body = json.dumps(reply).encode()
        refusal = {"code": -32602, "message": "Invalid params: amount must be an integer"}
        if name == "bad_json":
            self._send(200, body[: len(body) // 2])
        elif name == "bad_utf8_json":
            self._send(200, body.replace(b'"ok"', b'"ok \xff\xfe"'))
        elif name == "http_500":
            self._send(500, b"Internal Server Error: upstream stack trace here", "text/plain")
        elif name == "refused":
            self._send(200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": refusal}).encode())
        elif name == "end_session":
            Handler.session = uuid.uuid4().hex
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif name == "refused_at_400":
            self._send(400, json.dumps({"jsonrpc": "2.0", "id": None, "error": refusal}).encode())
        else:
            self._send(200, body)


def main() -> None:
    if sys.argv[1] == "stdio":
        serve_stdio()
    else:
        server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
        print("ready", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
