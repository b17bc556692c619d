"""The floor of ``errscope proxy`` over HTTP: the same two hops with nothing read in between.

``python -m bench.http_passthrough UPSTREAM_URL PORT`` serves on 127.0.0.1:PORT with the proxy's
server (:func:`errscope.proxy._http.http_server`: uvicorn with httptools, on the proxy's event loop)
and relays every request to ``UPSTREAM_URL`` on the proxy's client session
(:func:`errscope.proxy._http.upstream_session`: one aiohttp pool), the headers first, then the body
as it comes (what came with the headers at once, the end with the last read): no JSON-RPC decoded,
no span, no rewriting. ``bench_proxy`` measures it beside the proxy, so the added latency splits into
what this HTTP stack costs and what errscope costs.
"""

from __future__ import annotations

import sys
from typing import Any

import aiohttp

from errscope.cli import _event_loop_runner
from errscope.proxy._http import _as_text, _body, _forwarded, http_server, upstream_session


class Passthrough:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.session: aiohttp.ClientSession | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if self.session is None:
            self.session = upstream_session()
        body = await _body(receive)
        async with self.session.request(scope["method"], self.upstream, headers=_as_text(_forwarded(scope["headers"])), data=body or None) as response:
            await send({"type": "http.response.start", "status": response.status, "headers": _forwarded(response.raw_headers)})
            content = response.content
            chunk = content.read_nowait()  # what came with the headers
            while not content.at_eof():
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                chunk = await content.readany()
            await send({"type": "http.response.body", "body": chunk})


def main() -> None:
    upstream, port = sys.argv[1], int(sys.argv[2])
    _event_loop_runner()(http_server(Passthrough(upstream), "127.0.0.1", port).serve())


if __name__ == "__main__":
    main()
