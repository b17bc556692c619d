"""Instructions per tool call in the ``errscope proxy`` process, counted with callgrind (bench/README.md, bench_proxy).

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.callgrind_proxy stdio                # or: http
    python -m bench.callgrind_proxy http --tree /path/to/other/checkout

Runs the proxy under ``valgrind --tool=callgrind --separate-threads=yes --instr-atstart=no`` twice: 50 warm-up calls
uninstrumented (start-up and imports take minutes under callgrind on a shared machine), counting switched on with
``callgrind_control -i on PID``, then 30 calls in one run and 230 in the other. It prints ``(I(230) - I(30)) / 200``
for the main thread (the relay's loop: the request's and the answer's path and the deferred recording) and for the
whole process (the exporter threads too): the instructions of one warm call, teardown cancelled out. Only the proxy
is counted (valgrind does not follow the server it spawns; the client and an HTTP upstream run outside it), which
the machine's load does not change; the exporter threads' timed work moves the whole-process figure between runs
(compare main threads). ``PYTHONHASHSEED=0`` fixes set and dict orders. The set-up is :mod:`bench.bench_proxy`'s:
server-everything's ``echo`` (else the plain Python test server), a raw JSON-RPC client, the proxy exporting
OTLP-JSON files (``--out``). Both runs go side by side (counts do not mind). ``--tree`` may be an older checkout
without this file (a ``git worktree``; link its ``tests/npm/node_modules`` or the plain server is used).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

WARMUP, FEW, MANY = 50, 30, 230


def _valgrind(out: Path) -> list[str]:
    return ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--instr-atstart=no",
            f"--callgrind-out-file={out}", sys.executable]


def _instrument(pid: int) -> None:
    """Switch callgrind's counting on in the valgrind process ``pid`` (never without one: all would get it)."""
    subprocess.run(["callgrind_control", "-i", "on", str(int(pid))], check=True, stdout=subprocess.DEVNULL)


def _env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=f"{tree / 'instrumentation'}{os.pathsep}{tree}")


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout  # Python's imports under valgrind take a minute or more
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"nothing listens on {port}") from None
            time.sleep(0.2)


def _counts(out: Path) -> tuple[int, int]:
    """(main thread, whole process) instructions from callgrind's per-thread files ``out-NN``."""
    threads = {}
    for part in out.parent.glob(out.name + "-[0-9]*"):
        found = re.search(r"^(?:totals|summary):\s*(\d+)", part.read_text(errors="replace"), re.M)
        if found is None:
            raise RuntimeError(f"no totals in {part}")
        threads[int(part.name.rsplit("-", 1)[1])] = int(found.group(1))
    if not threads:
        raise RuntimeError(f"callgrind wrote no {out}-NN files")
    return threads[min(threads)], sum(threads.values())


def _run(transport: str, calls: int, tree: Path, work: Path) -> tuple[int, int]:
    """Relay ``calls`` echo calls through a proxy under callgrind; its (main thread, process) instructions."""
    sys.path[:0] = [str(tree)]
    from bench.bench_proxy import _free_port, _Http, _server, _Stdio  # the set-up of the tree counted

    stdio_command, tool, arguments, http_command = _server()
    out = work / f"callgrind.{transport}.{calls}"
    proxy = [*_valgrind(out), "-m", "errscope.cli", "proxy", "--out", str(work / f"otlp-{calls}")]
    with ExitStack() as stack:
        if transport == "stdio":
            os.environ.update(_env(tree))
            client = _Stdio([*proxy, "--", *stdio_command])  # waits for the initialize answer
            for _ in range(WARMUP):
                client.call(tool, arguments)
            _instrument(client.process.pid)
            for _ in range(calls):
                client.call(tool, arguments)
            assert client.process.stdin is not None
            client.process.stdin.close()  # not client.close(): its 5 s are too few for a proxy under valgrind
            if client.process.wait(600) != 0:
                raise RuntimeError(f"the proxy ended with {client.process.returncode}")
        else:
            upstream, listen = _free_port(), _free_port()
            command, env = http_command(upstream)
            server = subprocess.Popen(command, cwd=tree, env={**os.environ, **env},
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            stack.callback(server.wait)
            stack.callback(server.terminate)
            _wait_listening(upstream, server, 60)
            url = f"http://127.0.0.1:{upstream}/mcp"
            relay = subprocess.Popen([*proxy, "--upstream", url, "--listen", f"127.0.0.1:{listen}"], cwd=tree,
                                     env=_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _wait_listening(listen, relay)
            client = _Http(f"http://127.0.0.1:{listen}/mcp")
            for _ in range(WARMUP):
                client.call(tool, arguments)
            _instrument(relay.pid)
            for _ in range(calls):
                client.call(tool, arguments)
            client.close()
            relay.send_signal(signal.SIGTERM)
            if relay.wait(600) != 0:
                raise RuntimeError(f"the proxy ended with {relay.returncode}")
    return _counts(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", choices=("stdio", "http"))
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout whose instrumentation/ and bench/ are counted (default: this one)")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    tree = args.tree.resolve()
    if args.inner is not None:
        main_thread, process = _run(args.transport, args.inner, tree, args.work)
        print(main_thread, process)
        return 0
    with tempfile.TemporaryDirectory(prefix="errscope-callgrind-proxy-") as work:
        runs = [
            # this file by its path: an older checkout given as --tree may have none
            subprocess.Popen([sys.executable, __file__, args.transport, "--tree", str(tree),
                              "--inner", str(n), "--work", work], cwd=tree, env=_env(tree),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for n in (FEW, MANY)
        ]
        counts = []
        for run in runs:
            stdout, stderr = run.communicate()
            if run.returncode != 0:
                raise RuntimeError(f"callgrind run failed ({run.returncode}):\n{stderr[-2000:]}")
            counts.append(tuple(map(int, stdout.split())))
    (few_main, few_all), (many_main, many_all) = counts
    per_call = (many_main - few_main) // (MANY - FEW), (many_all - few_all) // (MANY - FEW)
    print(f"{args.transport} {tree}: {per_call[0]:,} instructions a call on the main thread, "
          f"{per_call[1]:,} in the whole process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
