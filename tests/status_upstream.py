"""A real local HTTP upstream for tools to call: ``GET /status/<code>`` answers with that status.

Shared by the traffic generators (``tests.dashboards.feed``, ``tests.deploy.scale_out_traffic``): the
status a tool's upstream call gets decides the failure class errscope records.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _StatusHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a pooled client reuses its connections
    retry_after: str | None = None

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        code = int(self.path.rsplit("/", 1)[-1])
        self.send_response(code)
        if code == 429 and self.retry_after is not None:
            self.send_header("Retry-After", self.retry_after)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def status_upstream(*, retry_after: str | None = None) -> Iterator[str]:
    """Serve on a free port of 127.0.0.1 until the block ends; yields the base URL.

    Args:
        retry_after: the ``Retry-After`` header value sent with a 429 (RFC 9110 §10.2.3); none by default.
    """
    handler = type("StatusHandler", (_StatusHandler,), {"retry_after": retry_after})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
