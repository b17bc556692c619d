"""The floor of ``errscope proxy`` over HTTP: the proxy's own relay with nothing read in between.

``python -m bench.http_passthrough UPSTREAM_URL PORT`` serves on 127.0.0.1:PORT and relays every
request to ``UPSTREAM_URL``'s origin with :class:`errscope.proxy._relay.Relay`, the relay
``errscope proxy --listen`` is built on (its httptools-parsed connections on the proxy's event loop),
byte for byte: no JSON-RPC decoded, no span, no rewriting. ``bench_proxy`` measures it beside the
proxy, so the added latency splits into what the relay costs and what errscope costs.
"""

from __future__ import annotations

import sys

from errscope.cli import _event_loop_runner
from errscope.proxy._relay import Relay


async def serve(upstream: str, port: int) -> None:
    server = await Relay(upstream).serve("127.0.0.1", port)
    await server.serve_forever()


def main() -> None:
    _event_loop_runner()(serve(sys.argv[1], int(sys.argv[2])))


if __name__ == "__main__":
    main()
