"""The HTTP relay's own work per call, without sockets (bench/README.md, bench_proxy).

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.relay_replay floor 3000     # the bare relay (bench.http_passthrough's)
    python -m bench.relay_replay proxy 3000     # errscope proxy --listen, exporting OTLP-JSON files to a temp folder

Replays, call after call, the bytes one ``bench_proxy`` call puts on the wire (the raw client's POST of
server-everything's ``echo`` and the server's SSE answer: head, priming event, message event, last chunk, as
captured with strace) into the relay's own connection objects (:class:`errscope.proxy._relay.HostConnection` and
:class:`~errscope.proxy._relay.UpstreamConnection`) on fake transports, in a running uvloop loop, after 300 warm-up
calls. Prints the median microseconds of the request's path (the host's bytes in, up to the upstream write), of the
answer's path (the upstream's bytes in, up to the host write) and of the deferred recording
(:meth:`errscope.proxy._calls.Calls.flush`, run after each call here). No kernel, no wake-ups, warm caches: what the
relay's Python costs, which ``bench_proxy``'s wall figures multiply on a cold machine. Under callgrind the
difference of two call counts gives instructions a call (``valgrind --tool=callgrind --separate-threads=yes``, main
thread; the exporter threads run on their own timers).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time

from errscope.proxy import _relay

REQUEST = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:39102\r\nAccept-Encoding: gzip, deflate, br, zstd\r\nConnection: keep-alive\r\n"
    b"User-Agent: python-httpx/0.28.1\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\n"
    b"mcp-session-id: 4889a6ff-7639-46fb-bf5e-60e20691845c\r\nContent-Length: 104\r\nContent-Type: application/json\r\n\r\n"
    b'{"jsonrpc":"2.0","id":99999,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}'
)
ANSWER = (
    b"HTTP/1.1 200 OK\r\nX-Powered-By: Express\r\nAccess-Control-Allow-Origin: *\r\n"
    b"Access-Control-Expose-Headers: mcp-session-id,last-event-id,mcp-protocol-version\r\n"
    b"cache-control: no-cache, no-transform\r\nconnection: keep-alive\r\ncontent-type: text/event-stream\r\n"
    b"mcp-session-id: 4889a6ff-7639-46fb-bf5e-60e20691845c\r\nx-accel-buffering: no\r\n"
    b"Date: Fri, 04 Dec 2026 13:31:12 GMT\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"31\r\nid: 08320850-7cd1-4aba-8dbd-11742d5d9b83\ndata: \n\n\r\n"
    b'95\r\nevent: message\nid: 9b1e8508-7b54-49f5-925f-6ae116d7ef03\ndata: {"result":{"content":[{"type":"text",'
    b'"text":"Echo: hi"}]},"jsonrpc":"2.0","id":99999}\n\n\r\n'
    b"0\r\n\r\n"
)
UPSTREAM = "http://127.0.0.1:39101/mcp"
WARMUP = 300


class _Transport:
    """What the relay's connections call on an asyncio transport; writes are kept."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.reading = True

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def is_reading(self) -> bool:
        return self.reading

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


async def replay(kind: str, calls_count: int, out: str) -> dict[str, float]:
    calls = None
    if kind == "floor":
        relay = _relay.Relay(UPSTREAM)
    else:
        from errscope._setup import configure_telemetry
        from errscope._telemetry import ServerTelemetry
        from errscope.proxy._calls import Calls
        from errscope.proxy._http import HttpRelay

        configure_telemetry("errscope-proxy", output_dir=out)  # as errscope proxy --out does
        calls = Calls(ServerTelemetry(capture_content=False), transport="tcp", upstream_address=HttpRelay.address(UPSTREAM))
        relay = HttpRelay(UPSTREAM, calls)
    host, host_transport = _relay.HostConnection(relay), _Transport()
    host.connection_made(host_transport)  # type: ignore[arg-type]
    upstream = _relay.UpstreamConnection(relay)
    upstream.connection_made(_Transport())  # type: ignore[arg-type]
    relay.release(upstream)
    gc.collect()
    gc.freeze()  # as errscope proxy does after start-up
    request, answer, recording = [], [], []
    clock = time.perf_counter
    for number in range(WARMUP + calls_count):
        started = clock()
        host.data_received(REQUEST)
        sent = clock()
        upstream.data_received(ANSWER)
        answered = clock()
        if calls is not None:
            calls.flush()
        recorded = clock()
        upstream.idle_since = time.monotonic()  # kept alive: the next call reuses it
        if number >= WARMUP:
            request.append(sent - started)
            answer.append(answered - sent)
            recording.append(recorded - answered)
    assert host_transport.written[-1].endswith(b"0\r\n\r\n"), host_transport.written[-1]
    return {name: round(statistics.median(values) * 1e6, 1) for name, values in
            (("request_us", request), ("answer_us", answer), ("recording_us", recording))}


def main() -> int:
    from errscope.cli import _event_loop_runner

    kind = sys.argv[1] if len(sys.argv) > 1 else "proxy"
    if kind not in ("floor", "proxy"):
        print("usage: python -m bench.relay_replay floor|proxy [CALLS]", file=sys.stderr)
        return 2
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    with tempfile.TemporaryDirectory(prefix="errscope-relay-replay-") as out:
        print(kind, _event_loop_runner()(replay(kind, count, out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
