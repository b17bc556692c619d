"""Latency ``errscope proxy`` adds to a tool call, stdio and streamable HTTP.

The upstream is ``@modelcontextprotocol/server-everything`` from ``tests/npm`` (its ``echo`` tool),
else the plain Python server of the tests. A raw JSON-RPC client (one line per call on stdio, one
POST per call over HTTP) calls the same server directly and through the proxy, in rounds (direct,
proxy, ... call by call) so load drifts hit every path alike; the proxy exports its telemetry to
OTLP-JSON files as it would in use. Over HTTP more paths are measured in the same rounds, each a
floor: ``floor`` (:mod:`bench.http_passthrough`) is the proxy's own relay passing bytes with nothing
read; ``haproxy`` is HAProxy (C) as an HTTP reverse proxy on one thread with kept-alive upstream
connections; ``socat`` (C) relays TCP bytes. So the added latency splits into what any relay costs
on the machine (socat, haproxy), what our Python relay costs (floor) and what errscope costs
(proxy). HAProxy and socat are used when on ``PATH`` (``apt-get install -y haproxy socat``), else
the result says ``haproxy_skipped`` / ``socat_skipped``. Figures are milliseconds per call: median
and p99 of each path, each relay's added median and p99 (the difference to direct), the median
ratio relay / direct, and the CPU time each relay process (and its live children: socat forks one
per connection) spent per call (user + system, from ``/proc``: what the relay costs whatever the
machine's load does to wall time); ``load_average`` is ``/proc/loadavg`` at the end.

Paths are called in a new random order each round (seeded): with a fixed or rotating order every
path always follows the same one and pays for its after-answer work (a proxy's telemetry); rotation
had the floor always right after the proxy, reading 0.1 ms slower than it is.

Measured in December 2026 on this project's shared 2-core machine (load average 5-16 from other work;
wall figures move with it, instruction counts do not). Before/after below are the tree before and after
one change set, run side by side in the same shuffled rounds (3 runs, 1,000 rounds, load 8-9.5):

- streamable HTTP added median: before 0.54-0.61 ms, after **0.38-0.42 ms**; the bare relay in the same
  rounds 0.14-0.18 ms (HAProxy, in full bench runs: 0.14-0.18 ms). CPU a call unchanged, 0.70-0.74 ms
  (bare relay 0.22-0.25, HAProxy 0.16-0.18): the change moves work off the answer's path more than it removes it.
- full bench, after (three runs, load 5.5-9.7): proxy added 0.42, 0.46 and 0.52 ms over HTTP (direct 2.5 ms),
  stdio 0.31 ms: the HTTP goal (< 0.5 ms) is at its edge on this machine, met in two runs of three.
- callgrind (the proxy's main thread, 300 calls; exporter threads apart): 736 k instructions a call before,
  667 k after; on the path from the request's last byte to the upstream write and from the answer's body to
  the host write, 438 k before, 338 k after (-23 %); the bare relay's whole thread: 149 k.

What changed, each kept for its numbers: orjson reads and writes the JSON-RPC (``errscope.proxy._json``,
json wherever orjson would give another value; a digit count in C replaced a regex that cost more than
orjson's parse); a plain success answer skips the strict-response copy; the upstream's attributes join
the span at its end, not its start; a single message's body and SSE events needing no rewrite pass without
the batch and re-join work; and the telemetry of an answered call (span end with its explicit end time,
duration point, log) is recorded 2 ms after the answer is written, calls answered meanwhile together,
flushed before the relay stops. That last step alone: 0.08 ms of median (skipping the telemetry
altogether: 0.11 ms), since recording at once takes a core while the host is woken to read the answer.

What remains, thread CPU in place (a loaded machine's cold caches make each hot microsecond 3-4): the
request's span start and trace-context injection by the OpenTelemetry SDK, about 60 us (the span's id
must exist before the request goes on: it travels in ``_meta``); errscope's reading of the request about
40 us and of the answer about 70 us (SSE split, the id's entry, the success check); the relay itself 120 us.
The deferred recording (about 100 us) and the exporter thread's OTLP encoding still take CPU on a 2-core
machine where the client and the server run too.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

CALLS = int(os.environ.get("ERRSCOPE_BENCH_CALLS", "1000"))
WARMUP = 100
ROOT = Path(__file__).resolve().parents[1]
NPM = ROOT / "tests" / "npm" / "node_modules"
LOOPBACK = ROOT / "tests" / "npm" / "servers" / "loopback.cjs"  # server-everything would listen on every interface
EVERYTHING = [str(NPM / ".bin" / "node"), str(NPM / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js")]
PLAIN = [sys.executable, "-m", "tests.proxy.plain_server"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


def _server() -> tuple[list[str], str, dict[str, Any], Callable[[int], tuple[list[str], dict[str, str]]]]:
    """(stdio command, tool, arguments, http command for a port) of the upstream used."""
    if Path(EVERYTHING[0]).exists():
        return [*EVERYTHING, "stdio"], "echo", {"message": "hi"}, lambda port: ([EVERYTHING[0], "--require", str(LOOPBACK), *EVERYTHING[1:], "streamableHttp"], {"PORT": str(port)})
    return [*PLAIN, "stdio"], "echo", {"text": "hi"}, lambda port: ([*PLAIN, "http", str(port)], {})


def _proxy(out: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "errscope.cli", "proxy", "--out", out, *args]


class _Stdio:
    """One stdio MCP server process spoken to with raw newline-delimited JSON-RPC."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 1
        self.request(INITIALIZE)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        assert self.process.stdout is not None
        while True:
            answer = json.loads(self.process.stdout.readline())
            if answer.get("id") == message["id"]:
                return answer

    def call(self, tool: str, arguments: dict[str, Any]) -> float:
        self.next_id += 1
        started = time.perf_counter()
        answer = self.request({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        elapsed = time.perf_counter() - started
        assert "result" in answer, answer
        return elapsed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


class _Http:
    """One streamable HTTP session spoken to with raw POSTs (2025-11-25 era)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(headers={"accept": "application/json, text/event-stream"}, timeout=30)
        response = self.client.post(url, json=INITIALIZE)
        self.client.headers["mcp-protocol-version"] = "2025-11-25"
        if "mcp-session-id" in response.headers:
            self.client.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.next_id = 1

    def call(self, tool: str, arguments: dict[str, Any]) -> float:
        self.next_id += 1
        started = time.perf_counter()
        response = self.client.post(
            self.url, json={"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        )
        elapsed = time.perf_counter() - started
        assert '"result"' in response.text, response.text
        return elapsed

    def close(self) -> None:
        self.client.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _haproxy(config_dir: str, upstream: int, port: int) -> list[str] | None:
    """HAProxy as an HTTP reverse proxy on one thread with kept-alive upstream connections, if installed."""
    if shutil.which("haproxy") is None:
        return None
    config = Path(config_dir) / "haproxy.cfg"
    config.write_text(
        "global\n  nbthread 1\n"
        "defaults\n  mode http\n  option http-keep-alive\n  http-reuse always\n"
        "  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"
        f"frontend host\n  bind 127.0.0.1:{port}\n  default_backend upstream\n"
        f"backend upstream\n  server mcp 127.0.0.1:{upstream}\n"
    )
    return ["haproxy", "-db", "-f", str(config)]


def _socat(upstream: int, port: int) -> list[str] | None:
    """socat relaying TCP bytes (one process per connection, so one per client here), if installed."""
    if shutil.which("socat") is None:
        return None
    return ["socat", f"TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork", f"TCP:127.0.0.1:{upstream},nodelay"]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its live children (socat forks one per connection).

    proc(5): fields 14 and 15 of /proc/PID/stat, in clock ticks; children from /proc/PID/task/TID/children.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = [int(child) for task in Path(f"/proc/{pid}/task").iterdir() for child in (task / "children").read_text().split()]
    except FileNotFoundError:  # a child that ended meanwhile (the socat of a probe's connection)
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") + sum(map(_cpu_seconds, children))


@contextmanager
def _listening(command: list[str], port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # a Python process can take 20 s to start on a loaded 2-core machine
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{command[0]} did not listen on {port}") from None
                time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        process.wait(10)


def _compare(direct: Any, candidates: dict[str, tuple[Any, int]], tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call ``direct`` and each candidate (client, server pid) in turn, round after round."""
    clients = {"direct": direct, **{name: client for name, (client, _pid) in candidates.items()}}
    for _ in range(WARMUP):
        for client in clients.values():
            client.call(tool, arguments)
    samples: dict[str, list[float]] = {name: [] for name in clients}
    cpu = {name: _cpu_seconds(pid) for name, (_client, pid) in candidates.items()}
    order = list(clients.items())
    shuffle = random.Random(0).shuffle
    for _ in range(CALLS):
        # A new order each round: no path always follows the same one, and so pays for its after-answer
        # work (a proxy's telemetry). Rotating a fixed order would not do: it keeps every path's predecessor.
        shuffle(order)
        for name, client in order:
            samples[name].append(client.call(tool, arguments) * 1000)
    figures: dict[str, Any] = {}
    for name, values in samples.items():
        figures[f"{name}_median_ms"] = round(statistics.median(values), 3)
        figures[f"{name}_p99_ms"] = round(statistics.quantiles(values, n=100)[98], 3)
    for name, (_client, pid) in candidates.items():
        figures[f"{name}_cpu_ms_per_call"] = round((_cpu_seconds(pid) - cpu[name]) / CALLS * 1000, 3)
        figures[f"{name}_added_median_ms"] = round(figures[f"{name}_median_ms"] - figures["direct_median_ms"], 3)
        figures[f"{name}_added_p99_ms"] = round(figures[f"{name}_p99_ms"] - figures["direct_p99_ms"], 3)
        figures[f"{name}_median_ratio"] = round(figures[f"{name}_median_ms"] / figures["direct_median_ms"], 2)
    return figures


def run() -> dict[str, Any]:
    stdio_command, tool, arguments, http_command = _server()
    result: dict[str, Any] = {"calls": CALLS, "upstream": Path(stdio_command[1]).parent.parent.name or stdio_command[-2]}
    with tempfile.TemporaryDirectory(prefix="errscope-bench-proxy-") as out, ExitStack() as stack:
        direct, proxied = _Stdio(stdio_command), _Stdio(_proxy(out + "/stdio", "--", *stdio_command))
        stack.callback(direct.close)
        stack.callback(proxied.close)
        result["stdio"] = _compare(direct, {"proxy": (proxied, proxied.process.pid)}, tool, arguments)

        upstream, listen, floor_listen = _free_port(), _free_port(), _free_port()
        command, env = http_command(upstream)
        stack.enter_context(_listening(command, upstream, env))
        url = f"http://127.0.0.1:{upstream}/mcp"
        proxy = stack.enter_context(_listening(_proxy(out + "/http", "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen, {}))
        floor = stack.enter_context(_listening([sys.executable, "-m", "bench.http_passthrough", url, str(floor_listen)], floor_listen, {}))
        direct = _Http(url)
        stack.callback(direct.close)
        relays = [("proxy", proxy, listen), ("floor", floor, floor_listen)]
        for name, make_command in (("haproxy", lambda port: _haproxy(out, upstream, port)), ("socat", lambda port: _socat(upstream, port))):
            port = _free_port()
            argv = make_command(port)
            if argv is None:
                result[f"{name}_skipped"] = f"not installed (apt-get install -y {name})"
            else:
                relays.append((name, stack.enter_context(_listening(argv, port, {})), port))
        candidates = {}
        for name, process, port in relays:
            client = _Http(f"http://127.0.0.1:{port}/mcp")
            stack.callback(client.close)
            candidates[name] = (client, process.pid)
        result["http"] = _compare(direct, candidates, tool, arguments)
    result["load_average"] = [round(value, 1) for value in os.getloadavg()]
    return result
