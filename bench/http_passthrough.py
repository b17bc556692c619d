"""The floor of ``errscope proxy`` over HTTP: the same two hops with nothing read in between.

``python -m bench.http_passthrough UPSTREAM_URL PORT`` serves on 127.0.0.1:PORT with the proxy's
server (uvicorn, httptools, uvloop) and relays every request to ``UPSTREAM_URL`` with the proxy's
client (one pooled aiohttp session), streaming the body back as it comes: no JSON-RPC decoded, no
span, no rewriting. ``bench_proxy`` measures it beside the proxy, so the added latency splits into
what the HTTP libraries cost and what errscope costs.
"""

from __future__ import annotations

import sys
from typing import Any

import aiohttp
import uvicorn

from errscope.cli import _event_loop_runner
from errscope.proxy._http import _as_text, _body, _forwarded


class Passthrough:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.session: aiohttp.ClientSession | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if self.session is None:
            self.session = aiohttp.ClientSession(auto_decompress=False, skip_auto_headers=("User-Agent", "Accept-Encoding"))
        body = await _body(receive)
        async with self.session.request(scope["method"], self.upstream, headers=_as_text(_forwarded(scope["headers"])), data=body or None) as response:
            await send({"type": "http.response.start", "status": response.status, "headers": _forwarded(response.raw_headers)})
            async for chunk in response.content.iter_any():
                if response.content.at_eof():
                    await send({"type": "http.response.body", "body": chunk})
                    return
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})


def main() -> None:
    upstream, port = sys.argv[1], int(sys.argv[2])
    config = uvicorn.Config(
        Passthrough(upstream), host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off",
        proxy_headers=False, server_header=False, date_header=False,
    )
    _event_loop_runner()(uvicorn.Server(config).serve())


if __name__ == "__main__":
    main()
