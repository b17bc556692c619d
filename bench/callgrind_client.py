"""Instructions per tool call on the client side, counted with callgrind (the figures of bench_client's docstring).

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.callgrind_client errscope            # or: bare
    python -m bench.callgrind_client errscope --tree /path/to/other/checkout
    python -m bench.callgrind_client errscope --warm [--calls 320]

Runs the client process under ``valgrind --tool=callgrind`` twice, once with 20 calls and once with 120,
and prints ``(I(120) - I(20)) / 100``: the instructions of one warm call, start-up, imports, the session's
opening and teardown cancelled out. Only the client process is counted (valgrind does not follow the
stdio server it spawns), which the machine's load does not change. ``PYTHONHASHSEED=0`` fixes set and dict
orders. Both sides use the same set-up as :mod:`bench.bench_client`: tool ``echo`` of the plain stdio
server, spans to memory through a ``SimpleSpanProcessor`` (the global provider, so the bare client records
its own ``MCP send`` span), a ``MeterProvider`` with an in-memory reader.

``--warm`` runs the process with callgrind's instrumentation off (``--instr-atstart=no``) and switches it on
(``callgrind_control -i on PID``, this process's pid only) after 20 warm calls and off after the measured ones:
start-up is not simulated at all, so a count takes about 2 minutes instead of 7, and it counts warm calls only
(``(I(calls) - I(20)) / (calls - 20)``, the same subtraction).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FEW, MANY = 20, 120


def _calls(mode: str, n: int, flag: str | None = None) -> None:
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

        async def measured(call: Any) -> None:
            if flag is None:
                for _ in range(n):
                    await call()
                return
            for _ in range(FEW):  # warm, uninstrumented
                await call()
            Path(f"{flag}.tmp").write_text(str(os.getpid()))
            os.replace(f"{flag}.tmp", f"{flag}.ready")  # whole, never half-written
            while not os.path.exists(f"{flag}.go"):
                await anyio.sleep(0.05)
            for _ in range(n):
                await call()
            Path(f"{flag}.done").write_text("")
            while not os.path.exists(f"{flag}.exit"):
                await anyio.sleep(0.05)

        if mode == "bare":
            async with Client(params) as client:

                async def bare_call() -> None:
                    await client.call_tool("echo", {"text": "x"})
                    exporter.clear()

                await measured(bare_call)
        else:
            async with ToolClient(params, timeout=30, tracer_provider=provider, meter_provider=meter_provider) as tc:

                async def errscope_call() -> None:
                    result = await tc.call_tool("echo", {"text": "x"})
                    assert result.ok, result.text
                    exporter.clear()

                await measured(errscope_call)

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


def _wait_for(path: str, run: subprocess.Popen[str]) -> None:
    while not os.path.exists(path):
        if run.poll() is not None:
            raise RuntimeError(f"callgrind run ended early ({run.returncode}):\n{run.stderr.read()[-2000:] if run.stderr else ''}")
        time.sleep(0.1)


def _warm_instructions(mode: str, n: int, tree: Path) -> int:
    """Instructions of the whole process with instrumentation on only around ``n`` calls after the warm-up."""
    flag = tempfile.mktemp(prefix="errscope-callgrind-client-")
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=f"{tree / 'instrumentation'}{os.pathsep}{tree}")
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null", sys.executable,
               "-m", "bench.callgrind_client", mode, "--inner", str(n), "--flag", flag]
    run = subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(f"{flag}.ready", run)
        pid = Path(f"{flag}.ready").read_text().strip()
        if pid != str(run.pid):  # valgrind runs the program in its own process: never address another one
            raise RuntimeError(f"callgrind run reported pid {pid!r}, started {run.pid}")
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, stdout=subprocess.DEVNULL)
        Path(f"{flag}.go").write_text("")
        _wait_for(f"{flag}.done", run)
        subprocess.run(["callgrind_control", "-i", "off", pid], check=True, stdout=subprocess.DEVNULL)
        Path(f"{flag}.exit").write_text("")
        return _instructions(run)
    finally:
        if run.poll() is None:
            run.kill()
        for suffix in (".ready", ".go", ".done", ".exit"):
            Path(f"{flag}{suffix}").unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("bare", "errscope"))
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout whose instrumentation/ and bench/ are counted (default: this one)")
    parser.add_argument("--warm", action="store_true", help="count warm calls only, start-up not simulated (faster)")
    parser.add_argument("--calls", type=int, default=MANY, help=f"calls counted with --warm (default {MANY})")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--flag", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner is not None:
        _calls(args.mode, args.inner, args.flag)
        return 0
    if args.warm:  # one after the other: each waits on its own flag files
        few, many = _warm_instructions(args.mode, FEW, args.tree), _warm_instructions(args.mode, args.calls, args.tree)
        print(f"{args.mode} {args.tree} (warm): {(many - few) // (args.calls - FEW):,} instructions a call")
        return 0
    runs = _start(args.mode, FEW, args.tree), _start(args.mode, MANY, args.tree)  # side by side: counts do not mind
    few, many = _instructions(runs[0]), _instructions(runs[1])
    print(f"{args.mode} {args.tree}: {(many - few) // (MANY - FEW):,} instructions a call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
