"""Instructions per tool call on the client side, counted with callgrind (the figures of bench_client's docstring).

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.callgrind_client errscope            # or: bare
    python -m bench.callgrind_client errscope --tree /path/to/other/checkout

Runs the client process under ``valgrind --tool=callgrind`` twice, once with 20 calls and once with 120,
and prints ``(I(120) - I(20)) / 100``: the instructions of one warm call, start-up, imports, the session's
opening and teardown cancelled out. Only the client process is counted (valgrind does not follow the
stdio server it spawns), which the machine's load does not change. ``PYTHONHASHSEED=0`` fixes set and dict
orders. Both sides use the same set-up as :mod:`bench.bench_client`: tool ``echo`` of the plain stdio
server, spans to memory through a ``SimpleSpanProcessor`` (the global provider, so the bare client records
its own ``MCP send`` span), a ``MeterProvider`` with an in-memory reader.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

FEW, MANY = 20, 120


def _calls(mode: str, n: int) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from opentelemetry import trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from bench.bench_client import SERVER
    from errscope.client import ToolClient

    async def main() -> None:
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
        if mode == "bare":
            async with Client(params) as client:
                for _ in range(n):
                    await client.call_tool("echo", {"text": "x"})
                    exporter.clear()
        else:
            async with ToolClient(params, timeout=30, tracer_provider=provider, meter_provider=meter_provider) as tc:
                for _ in range(n):
                    result = await tc.call_tool("echo", {"text": "x"})
                    assert result.ok, result.text
                    exporter.clear()

    anyio.run(main)


def _start(mode: str, n: int, tree: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=f"{tree / 'instrumentation'}{os.pathsep}{tree}")
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
               "-m", "bench.callgrind_client", mode, "--inner", str(n)]
    return subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _instructions(run: subprocess.Popen[str]) -> int:
    _, stderr = run.communicate()
    found = re.search(r"refs:\s*([\d,]+)", stderr)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run failed ({run.returncode}):\n{stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("bare", "errscope"))
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout whose instrumentation/ and bench/ are counted (default: this one)")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner is not None:
        _calls(args.mode, args.inner)
        return 0
    runs = _start(args.mode, FEW, args.tree), _start(args.mode, MANY, args.tree)  # side by side: counts do not mind
    few, many = _instructions(runs[0]), _instructions(runs[1])
    print(f"{args.mode} {args.tree}: {(many - few) // (MANY - FEW):,} instructions a call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
