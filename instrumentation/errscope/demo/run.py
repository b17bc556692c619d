"""``errscope demo``: start the payments API and the refund server on 127.0.0.1, run the agent, print the table.

Output folder (default ``./errscope-out``)::

    agent/{traces,metrics,logs}.jsonl           the agent's (host's) telemetry
    refund-server/{traces,metrics,logs}.jsonl   the MCP server's telemetry
    triage.json                                 the table's rows and the payments API's counters

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, telemetry goes to that OTLP endpoint (a Collector);
spans and logs are also kept in the folder so the table and ``errscope explain`` work offline.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import httpx
from mcp.client.stdio import StdioServerParameters
from rich.console import Console

from errscope._otlp_json import TelemetryError, load
from errscope._setup import otlp_configured
from errscope.demo import agent, payments, triage
from errscope.demo._telemetry import demo_telemetry

__all__ = ["AGENT_SERVICE", "DemoError", "run_demo"]

AGENT_SERVICE: Final = "errscope-demo-agent"
_OWN: Final = ("agent", "refund-server", "triage.json")
"""What the demo writes in the output folder (and clears at the start of a run)."""
_STARTUP_TIMEOUT: Final = 60.0
"""Seconds the payments API and the HTTP refund server have to listen: the agent's ``connect_timeout`` for the stdio
server, since on a loaded machine a Python server's imports alone took over 20 s (``errscope demo --http`` failed)."""


class DemoError(Exception):
    """The demo could not run (a process did not start, a port is taken); ``str()`` is one line."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OTEL_METRIC_EXPORT_INTERVAL", "2000")
    # Spans leave within 0.5 s of ending (the SDK's default waits 5 s): a stdio server is stopped by its client (the
    # MCP SDK's stdio_client closes its stdin and kills it 2 s later), and under load its flush at exit lost the last
    # spans.
    env.setdefault("OTEL_BSP_SCHEDULE_DELAY", "500")
    # A batch waits for a slow Collector instead of being dropped: make stack's scrubs a demo round's batches at a
    # few seconds each on a loaded 2-core machine, past the library's 5 s (the exporter does not send a batch twice).
    env.setdefault("OTEL_EXPORTER_OTLP_TIMEOUT", "30")
    # Stable HTTP conventions on the upstream spans (http.response.status_code, url.full), as the
    # triage dashboard queries them.
    env.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "http")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def read_stats(payments_url: str) -> dict[str, Any]:
    """The payments API's counters (``GET /_admin/stats``).

    Raises:
        DemoError: the API is gone or answered no JSON object: one line, not a traceback (a Ctrl-C reaches the API
            with the demo; once, the demo's own KeyboardInterrupt was not raised before this read).
    """
    try:
        response = httpx.get(f"{payments_url}/_admin/stats", timeout=10)
        response.raise_for_status()
        stats = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise DemoError(f"the payments API's counters could not be read ({type(exc).__name__}); it stopped before the"
                        " run's end") from None
    if not isinstance(stats, dict):
        raise DemoError("the payments API's counters could not be read (not a JSON object)")
    return stats


def _wait_http(url: str, process: subprocess.Popen[bytes], what: str) -> None:
    """Wait until ``url`` answers (any status), at most :data:`_STARTUP_TIMEOUT` seconds.

    Raises:
        KeyboardInterrupt: ``process`` ended on SIGINT: a Ctrl-C, which reaches the whole foreground process group
            and can end the child before the demo's own interrupt is raised.
        DemoError: ``process`` exited, or was ended by another signal, or ``url`` never answered.
    """
    deadline = time.monotonic() + _STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if process.returncode == -signal.SIGINT:
                raise KeyboardInterrupt
            if process.returncode < 0:
                ended = f"was ended by {signal.Signals(-process.returncode).name}"
            else:
                ended = f"exited with status {process.returncode}"
            raise DemoError(f"{what} {ended} before it was ready")
        try:
            httpx.get(url, timeout=0.5)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise DemoError(f"{what} did not answer on {url} within {_STARTUP_TIMEOUT:.0f} s")


_FLUSH_SECONDS: Final = 30.0
"""Seconds a terminated server has to flush its telemetry (its OTLP exports, each bounded by the exporter's timeout)."""


@contextmanager
def _process(argv: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``argv``; terminate it when the block ends, and kill it only after :data:`_FLUSH_SECONDS` (it flushes
    its telemetry as it exits: on a loaded machine a 5 s limit lost the last spans a server had not yet exported)."""
    process = subprocess.Popen(  # noqa: S603 - our own module, fixed argv
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_child_env()
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(_FLUSH_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def _prepare(out: Path) -> None:
    try:  # exists() too raises for a name too long or a parent it may not search
        if out.exists() and not out.is_dir():
            raise DemoError(f"{out} exists and is not a folder")
        out.mkdir(parents=True, exist_ok=True)
        for name in _OWN:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    except OSError as exc:  # read-only, permission denied, a parent that cannot hold folders
        raise DemoError(f"cannot write to {out} ({exc.strerror or type(exc).__name__}); give --out a folder you can"
                        " write to") from None


@dataclass
class DemoResult:
    rows: list[triage.Row]
    stats: dict[str, Any]
    exactly_once: bool
    summary: str
    seconds: float


def _exactly_once(stats: dict[str, Any], notes: list[agent.AgentNote], rounds: int) -> tuple[bool, str]:
    """Check the payments API's counters: one refund per round, each retry a replay, one notification per round
    (its call timed out inside the tool and was not retried)."""
    retries = [n for n in notes if n.step == "retry_same_key"]
    applied = int(stats.get("refunds_applied", -1))
    refunds = stats.get("refunds") or []
    by_key = stats.get("requests_by_key_hash") or {}
    counts = [int(by_key.get(n.idempotency_key_hash or "", 0)) for n in retries]
    notified = int(stats.get("notifications_sent", -1))
    ok = (applied == rounds and len(retries) == rounds and all(n.outcome == "ok" for n in retries)
          and all(c == 2 for c in counts) and notified == rounds)
    verdict = "Exactly once" if ok else "NOT exactly once"
    replays = int(stats.get("replays", 0))
    if rounds == 1:
        first = refunds[0] if refunds else None
        what = f"{first['refund_id']}, {first['amount']:.2f} {first['currency']} on {first['order_id']}" if first else "none"
        key = retries[0].idempotency_key_hash if retries else "-"
        line = (f"{verdict}: the payments API applied {applied} refund{'s' if applied != 1 else ''} ({what}); "
                f"{counts[0] if counts else 0} requests carried idempotency key #{key}, {replays} replayed; "
                f"{notified} customer notification{'s' if notified != 1 else ''} sent, not retried.")
    else:
        line = (f"{verdict}: the payments API applied {applied} refunds in {rounds} rounds; each retry's idempotency "
                f"key was sent {'twice' if all(c == 2 for c in counts) else f'{counts} times'}, {replays} replayed; "
                f"{notified} customer notifications sent, not retried.")
    return ok, line


def run_demo(out: Path, *, http: bool = False, rounds: int = 1, console: Console | None = None) -> DemoResult:
    """Run the whole scenario; print progress and the table on ``console``.

    Raises:
        DemoError: a process could not be started.
    """
    console = console or Console()
    started = time.monotonic()
    out = out.resolve()
    _prepare(out)
    payments_port = free_port()
    payments_url = f"http://127.0.0.1:{payments_port}"
    progress = _Progress(console, rounds * len(agent.STEPS) + 2)
    # The payments API runs as a plain script (it needs nothing from errscope, so it skips the
    # package's imports); it boots while the refund server starts.
    payments_argv = [sys.executable, str(Path(payments.__file__)), "--port", str(payments_port)]
    server_argv = [sys.executable, "-m", "errscope.demo.refund_server", "--payments", payments_url,
                   "--out", str(out / "refund-server")]
    with progress:
        progress.advance("starting the payments API and the refund server")
        with _process(payments_argv) as payments_process:
            telemetry = demo_telemetry(AGENT_SERVICE, out / "agent", metric_interval=2.0)
            try:
                if http:
                    port = free_port()
                    url = f"http://127.0.0.1:{port}/mcp"
                    with _process([*server_argv, "--http", str(port)]) as server_process:
                        _wait_http(f"{payments_url}/healthz", payments_process, "the payments API")
                        _wait_http(url, server_process, "the refund server")
                        notes = anyio.run(_agent, agent.Target(url=url), payments_url, progress, None, rounds)
                        stats = read_stats(payments_url)
                else:
                    params = StdioServerParameters(command=server_argv[0], args=server_argv[1:], env=_child_env())

                    def ready() -> None:
                        try:
                            _wait_http(f"{payments_url}/healthz", payments_process, "the payments API")
                        except DemoError as exc:
                            raise agent.AgentError(str(exc)) from None

                    notes = anyio.run(_agent, agent.Target(stdio=params), payments_url, progress, ready, rounds)
                    stats = read_stats(payments_url)
            except agent.AgentError as exc:
                raise DemoError(str(exc)) from None
            finally:
                progress.advance("flushing telemetry")
                telemetry.shutdown()
        try:
            exported = load(out)
        except TelemetryError as exc:
            raise DemoError(f"the run's telemetry could not be read back: {exc}") from None
        rows = triage.build_rows(notes, exported)
    ok, summary = _exactly_once(stats, notes, rounds)
    seconds = time.monotonic() - started
    (out / "triage.json").write_text(json.dumps({
        "transport": "http" if http else "stdio",
        "rounds": rounds,
        "otlp": otlp_configured(),
        "rows": [r.to_json() for r in rows],
        "exactly_once": ok,
        "summary": summary,
        "payments": {k: stats.get(k) for k in ("refunds_applied", "refunds", "requests", "replays",
                                               "requests_by_key_hash", "notifications_sent",
                                               "receipts_served")},
        "seconds": round(seconds, 2),
    }, indent=2) + "\n")
    return DemoResult(rows, stats, ok, summary, seconds)


async def _agent(
    target: agent.Target,
    payments_url: str,
    progress: _Progress,
    ready: Callable[[], None] | None = None,
    rounds: int = 1,
) -> list[agent.AgentNote]:
    async def wait_ready() -> None:
        if ready is not None:
            await anyio.to_thread.run_sync(ready)

    return await agent.run_agent(target, payments_url, on_step=lambda name, what: progress.advance(what),
                                 before_steps=wait_ready, rounds=rounds)


class _Progress:
    """A rich progress bar on a terminal; silent otherwise."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.total = total
        self._progress: Any = None
        self._task: Any = None
        self._count = 0

    def __enter__(self) -> _Progress:
        if self.console.is_terminal:
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                      TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                      console=self.console, transient=True)
            self._progress.__enter__()
            self._task = self._progress.add_task("errscope demo", total=self.total)
        return self

    def advance(self, what: str) -> None:
        if self._progress is not None:
            if self._count:
                self._progress.advance(self._task)
            self._progress.update(self._task, description=what)
        self._count += 1

    def __exit__(self, *exc_info: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=self.total)
            self._progress.__exit__(*exc_info)

