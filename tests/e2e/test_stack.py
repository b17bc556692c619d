"""End to end without Docker: ``make stack`` up, the demo as traffic through it, then the triage lookup on
the Collector's exported files, the overview dashboard's queries on Prometheus, no planted secret anywhere,
and a clean stop with nothing left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dashboards.inventory import all_queries, concrete
from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_SERVER, Telemetry, TelemetryError, load
from errscope.demo.payments import PLANTED_SECRETS
from tests.conftest import require_executable
from tests.integration.collector_harness import collector_binary

# alone: the Collector scrubs the demo's spans in the request path, seconds of CPU a batch (bench/README.md,
# bench_collector); beside another worker's suites its answers passed the exporters' timeouts and a stdio server's
# last spans were still unsent when its host killed it (MCP, Lifecycle > Shutdown: stdin closed, SIGTERM, SIGKILL).
pytestmark = [pytest.mark.stack, pytest.mark.alone, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "errscope-demo-refunds"
ROUNDS = 2
SECRETS = ("FAKE", *PLANTED_SECRETS)
UPSTREAM_ROWS = {"other_tenant": "404", "rate_limit": "429", "outage": "503", "notify_timeout": None, "stall": None}
"""Failure rows whose tool call reached the payments API, and the HTTP status of that answer (None: no answer)."""


@dataclass
class RunningStack:
    process: subprocess.Popen[bytes]
    state: Path
    output: Path

    @property
    def info(self) -> dict[str, Any]:
        return json.loads((self.state / "stack.json").read_text())

    def rows(self) -> list[dict[str, Any]]:
        run = self.info["demo_runs"][0]
        return json.loads((Path(run["out"]) / "triage.json").read_text())["rows"]

    def query(self, expr: str, at: float) -> list[dict[str, Any]]:
        url = f"{self.info['prometheus_url']}/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}"})
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback
            body = json.load(response)
        assert body["status"] == "success", body
        return list(body["data"]["result"])

    def prometheus(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.info['prometheus_url']}{path}", timeout=10) as response:  # noqa: S310
            return json.load(response)["data"]

    def collector(self) -> Telemetry:
        return load(self.state / "collector")

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # make and scripts/stack.py: the group we started
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        # make can exit on SIGTERM before scripts/stack.py (same signal) has finished its own stop.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            self.info["status"] == "stopped" and "errscope stack: stopped" in self.output.read_text()
        ):
            time.sleep(0.2)
        return self.process.returncode


def _stack_command(state: Path, *extra: str) -> list[str]:
    args = f"--state {state} --free-ports --traffic-every 0 --rounds {ROUNDS} --decision-wait 5s {' '.join(extra)}"
    # -o: treat the venv stamp as up to date (the suite is already running in it).
    return ["make", "-s", "-o", ".venv/.installed", "stack", f"PYTHON={sys.executable}", f"STACK_ARGS={args}"]


def _clean_env() -> dict[str, str]:
    """Our environment without OTLP settings, nor the flags of a `make test` we may be running under."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith("OTEL_") and k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}


def _wait(predicate: Any, what: str, stack: RunningStack, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stack.process.poll() is not None:
            pytest.fail(f"make stack exited {stack.process.returncode} while waiting for {what}:\n"
                        f"{stack.output.read_text()[-4000:]}")
        try:
            if predicate():
                return
        except (OSError, ValueError, KeyError, IndexError, TelemetryError):  # not written yet
            pass
        time.sleep(0.5)
    pytest.fail(f"timed out waiting for {what}:\n{stack.output.read_text()[-4000:]}")


def _not_exported(telemetry: Telemetry, failures: list[dict[str, Any]]) -> list[str]:
    """The failures' refs on no exported span, and the steps of calls that reached the server whose server
    ``tools/call`` span is not exported: a timed-out call's server span ends (and is exported) after the client's,
    when the tool it left running finishes."""
    refs = {s.get("errscope.error_ref") for s in telemetry.spans}
    missing = [f"ref {r['error_ref']} ({r['step']})" for r in failures if r["error_ref"] not in refs]
    return missing + [
        f"server span of {r['step']} (trace {r['trace_id']})" for r in failures if r["step"] in UPSTREAM_ROWS
        and not any(s.kind == SPAN_KIND_SERVER and s.get("mcp.method.name") == "tools/call"
                    for s in telemetry.trace(r["trace_id"]))
    ]


def _why_not_exported(stack: RunningStack, failures: list[dict[str, Any]]) -> str:
    """What is missing, and where it was lost: the demo's processes also write their spans to the demo's own folder,
    so a span there and not in the Collector's output was lost after it left the process."""
    collector = stack.collector()
    own = load(Path(stack.info["demo_runs"][0]["out"]))

    def names(telemetry: Telemetry, trace_id: str) -> list[str]:
        return sorted(f"{s.name} [{s.get('errscope.outcome')}]" for s in telemetry.trace(trace_id))

    lines = [f"not exported: {_not_exported(collector, failures)}"]
    for row in failures:
        if _not_exported(collector, [row]):
            lines.append(f"{row['step']} (round {row.get('round')}, trace {row['trace_id']}):\n"
                         f"  the Collector exported {names(collector, row['trace_id'])}\n"
                         f"  the demo's own copy has {names(own, row['trace_id'])}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    require_executable("prometheus")
    require_executable("make")
    collector_binary()  # build (or find cached) before the clock starts
    state = tmp_path_factory.mktemp("stack")
    output = state.parent / f"{state.name}.out"
    with output.open("wb") as sink:
        process = subprocess.Popen(  # noqa: S603 - fixed argv
            _stack_command(state), cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
            env=_clean_env(),
        )
    running = RunningStack(process, state, output)
    try:
        _wait(lambda: running.info["status"] == "ready", "the stack to be ready", running, 120)
        _wait(lambda: len(running.info["demo_runs"]) == 1, "the demo traffic to finish", running, 240)
        failures = [r for r in running.rows() if r["error_ref"] != "-"]
        try:
            _wait(lambda: not _not_exported(running.collector(), failures),
                  "every ref and its server's tool span in the Collector's exported traces", running, 120)
        except pytest.fail.Exception as exc:
            raise AssertionError(_why_not_exported(running, failures)) from exc
        time.sleep(1.0)  # the file exporters' last flush of the same batches
        yield running
    finally:
        running.stop()


class TestStack:
    def test_prints_where_everything_listens(self, stack: RunningStack) -> None:
        """The banner names each endpoint and how to stop."""
        text = stack.output.read_text()
        ports = stack.info["ports"]
        assert f"http://127.0.0.1:{ports['otlp_http']}" in text
        assert f"127.0.0.1:{ports['otlp_grpc']}" in text
        assert f"http://127.0.0.1:{ports['prometheus']}" in text
        assert "Stop: Ctrl-C here, or `kill " in text
        run = stack.info["demo_runs"][0]
        assert run["exit"] == 0, Path(run["log"]).read_text()[-3000:]
        assert run["summary"].startswith(f"Exactly once: the payments API applied {ROUNDS} refunds in {ROUNDS} rounds")

    def test_every_failure_row_is_in_the_exported_traces_with_its_upstream_span(self, stack: RunningStack) -> None:
        """(a) Each ref of the table is on a span the Collector exported; upstream failures keep their child span."""
        telemetry = stack.collector()
        failures = [r for r in stack.rows() if r["error_ref"] != "-"]
        assert len(failures) == 10 * ROUNDS
        for row in failures:
            spans = telemetry.spans_where("errscope.error_ref", row["error_ref"])
            assert spans, row
            assert {s.trace_id for s in spans} == {row["trace_id"]}
            if row["step"] not in UPSTREAM_ROWS:
                continue
            servers = [s for s in telemetry.trace(row["trace_id"])
                       if s.kind == SPAN_KIND_SERVER and s.get("mcp.method.name") == "tools/call"]
            assert servers, row
            tool = servers[-1]
            children = [c for c in telemetry.children(tool) if c.kind == SPAN_KIND_CLIENT]
            assert len(children) == 1, (row, children)
            status = children[0].get("http.response.status_code", children[0].get("http.status_code"))
            expected = UPSTREAM_ROWS[row["step"]]
            assert (str(status) if status is not None else None) == expected, row
            if expected is not None:
                assert tool.get("errscope.upstream.status") == expected
                assert tool.get("errscope.error_ref") == row["error_ref"]

    def test_explain_works_on_the_collector_folder(self, stack: RunningStack) -> None:
        """The triage lookup runs on the Collector's file output, from the ref to the upstream status."""
        from errscope._explain import find_chains, render

        telemetry = stack.collector()
        row = next(r for r in stack.rows() if r["step"] == "other_tenant")
        [chain] = find_chains(telemetry, row["error_ref"])
        text = render(chain)
        assert row["model_text"] in text
        assert "status 404" in text and "exception.type=errscope.NotFound" in text and "[REDACTED]" in text

    def test_overview_failure_ratio_and_class_panels(self, stack: RunningStack) -> None:
        """(b) The overview dashboard's failure-ratio and class panels return the demo's series."""
        variables = {"service": SERVICE, "tool": ".*", "class": ".+"}
        queries = {q.panel_title: concrete(q.text, variables) for q in all_queries()
                   if q.lang == "promql" and q.where.startswith("errscope-overview.json")}
        at = stack.info["demo_runs"][0]["finished"] + 2.0

        def series(title: str, label: str) -> dict[str, float]:
            return {s["metric"].get(label, ""): float(s["value"][1]) for s in stack.query(queries[title], at)}

        _wait(lambda: len(series("Failures per second by class", "errscope_failure_class")) == 4,
              "the class series in Prometheus", stack, 60)
        channel = series("Failure ratio by channel", "errscope_channel")
        assert set(channel) == {"protocol", "execution"}, channel
        assert all(0 < v < 1 for v in channel.values()), channel
        assert channel["execution"] > channel["protocol"]
        per_tool = series("Failure ratio per tool", "gen_ai_tool_name")
        # order_receipt never failed on the server (only the client timed out): no failure series
        assert set(per_tool) == {"refund_order", "notify_customer", "_OTHER"}, per_tool
        assert per_tool["_OTHER"] == per_tool["notify_customer"] == 1.0 and 0 < per_tool["refund_order"] < 1
        classes = series("Failures per second by class", "errscope_failure_class")
        assert set(classes) == {"not_found", "invalid_input", "rate_limited", "upstream_unavailable"}, classes
        assert all(v > 0 for v in classes.values()), classes
        [unknown] = stack.query(queries["Share of failures classed unknown"], at)
        # none: the demo's every failure has a class (the maintenance page is the upstream's); `or vector(0)` makes
        # the panel read 0, not "no data" (tests/dashboards/test_real_prometheus.py checks a share above zero)
        assert float(unknown["value"][1]) == 0.0, unknown
        table = {(s["metric"]["gen_ai_tool_name"], s["metric"]["errscope_failure_class"])
                 for s in stack.query(queries["Failures by tool and class (time range)"], at)}
        assert table == {("refund_order", "invalid_input"), ("refund_order", "not_found"),
                         ("refund_order", "rate_limited"), ("refund_order", "upstream_unavailable"),
                         ("notify_customer", "upstream_unavailable"),
                         ("_OTHER", "not_found")}, table

    def test_no_planted_secret_in_any_export_or_label(self, stack: RunningStack) -> None:
        """(c) Not in the Collector's files, the demo's folders, nor any Prometheus label name or value."""
        files = [p for p in stack.state.rglob("*") if p.is_file() and "prometheus" not in p.parts]
        assert any(p.name == "traces.json" for p in files) and any(p.name == "logs.json" for p in files)
        for path in files:
            text = path.read_text(errors="replace")
            assert not [s for s in SECRETS if s in text], path
        names = stack.prometheus("/api/v1/labels")
        assert "errscope_failure_class" in names
        for name in names:
            values = stack.prometheus(f"/api/v1/label/{name}/values")
            leaked = [v for v in values for s in SECRETS if s in v]
            assert not leaked, (name, leaked)

    def test_second_start_and_taken_port_are_refused(self, stack: RunningStack, tmp_path: Path) -> None:
        """One clear line and exit 1: the same state folder again, or a port the running stack holds."""
        again = subprocess.run(_stack_command(stack.state), cwd=ROOT, capture_output=True, text=True, timeout=120,
                               check=False, env=_clean_env())
        assert again.returncode != 0
        assert f"errscope stack: already running (pid {stack.info['pid']}, state {stack.state})" in again.stderr
        port = stack.info["ports"]["prometheus"]
        taken = subprocess.run(  # noqa: S603 - fixed argv
            [sys.executable, str(ROOT / "scripts" / "stack.py"), "--state", str(tmp_path / "other"),
             "--prometheus-port", str(port), "--otlp-http-port", "0", "--otlp-grpc-port", "0",
             "--collector-health-port", "0", "--collector-metrics-port", "0"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )
        assert taken.returncode == 1
        assert taken.stderr.strip().splitlines() == [
            f"errscope stack: port already in use: 127.0.0.1:{port} (prometheus, --prometheus-port); "
            "stop what holds it, or choose another port (--free-ports picks free ones)"
        ]
        assert taken.stdout == ""  # not "stopping", "stopped": it started nothing
        assert stack.info["status"] == "ready"  # the refusals did not touch the running stack

    def test_stop_leaves_nothing_behind(self, stack: RunningStack) -> None:
        """SIGTERM stops everything the stack started; no process mentions its state folder afterwards."""
        pids = dict(stack.info["pids"])
        assert {"prometheus", "collector"} <= set(pids)
        code = stack.stop()
        assert code is not None
        assert stack.info["status"] == "stopped"
        for name, pid in pids.items():
            assert not _alive(pid), f"{name} (pid {pid}) still running"
        leftovers = [pid for pid in _pids_mentioning(str(stack.state))]
        assert leftovers == []
        assert "errscope stack: stopped" in stack.output.read_text()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state != "Z"


def _pids_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_missing_prometheus_is_one_clear_line(tmp_path: Path) -> None:
    """Without Prometheus on PATH the stack refuses to start, says how to get it, and leaves its state unlocked."""
    env = {**_clean_env(), "PATH": str(Path(sys.executable).parent)}
    command = [sys.executable, str(ROOT / "scripts" / "stack.py"), "--state", str(tmp_path), "--free-ports"]
    for _ in range(2):  # the second attempt proves the first released its lock
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            "errscope stack: prometheus is not installed (Debian: apt-get install prometheus)"]
    assert json.loads((tmp_path / "stack.json").read_text())["status"] == "stopped"


@pytest.mark.parametrize(("args", "code", "says"), [
    ("--help", 0, 'usage: make stack STACK_ARGS="[options]"'),
    ("--traffic-evry 0", 2, "unrecognized arguments: --traffic-evry"),
])
def test_options_are_read_before_the_collector_is_built(tmp_path: Path, args: str, code: int, says: str) -> None:
    """``make stack STACK_ARGS=--help`` (as the README says to run it) and a mistyped option answer at once: the
    Makefile built the Collector first, minutes on a fresh machine, before the options were read."""
    require_executable("make")
    cache = tmp_path / "cache"
    result = subprocess.run(  # noqa: S603 - fixed argv
        ["make", "-s", "-o", ".venv/.installed-runtime", "stack", f"PYTHON={sys.executable}", f"STACK_ARGS={args}"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        env={**_clean_env(), "ERRSCOPE_CACHE_DIR": str(cache)},
    )
    assert result.returncode == code, result.stderr  # make exits 2 for a recipe that failed
    assert says in result.stdout + result.stderr
    assert not cache.exists()  # no build started


def test_a_port_in_use_is_one_line_that_names_free_ports(tmp_path: Path) -> None:
    """A port in use refuses the start in one line that names ``--free-ports``; nothing was started, so nothing is said
    to stop (it printed "stopping" and "stopped" after the refusal)."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = subprocess.run(  # noqa: S603 - fixed argv
            [sys.executable, str(ROOT / "scripts" / "stack.py"), "--state", str(tmp_path), "--prometheus-port",
             str(port), "--otlp-http-port", "0", "--otlp-grpc-port", "0", "--collector-health-port", "0",
             "--collector-metrics-port", "0"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False, env=_clean_env(),
        )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"errscope stack: port already in use: 127.0.0.1:{port} (prometheus, --prometheus-port); "
        "stop what holds it, or choose another port (--free-ports picks free ones)"]
    assert result.stdout == ""
