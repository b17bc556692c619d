"""The documented scale-out, run: two agents (``deploy/scale-out/agent.yaml``) route by trace id to three gateways
(``collector/config.yaml`` + ``deploy/scale-out/gateway.yaml``, file output, remote write to one Prometheus).

Every process is real: the errscope Collector binary for all five Collectors, Debian's Prometheus. The traffic
(``tests/deploy/scale_out_traffic.py``) is real errscope-instrumented MCP calls whose client reports to agent 1
and whose server (with its upstream HTTP span) reports to agent 2, so a trace's spans meet only at a gateway.
Ground truth is what the SDKs recorded next to their exporters.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from dashboards.inventory import all_queries, concrete
from dashboards.names import Label
from errscope import FailureClass
from scripts import stackrun
from scripts.stackrun import Collector, Prometheus
from tests.conftest import require_executable
from tests.deploy import scale_out_traffic as traffic
from tests.integration.collector_harness import collector_binary, iter_datapoints

# alone: beside another worker's load, traces split across the 2 s decision or reached a gateway twice
pytestmark = [pytest.mark.stack, pytest.mark.alone, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
AGENT = stackrun.SCALE_OUT / "agent.yaml"
GATEWAY = stackrun.SCALE_OUT / "gateway.yaml"
GATEWAYS = 3
SAMPLE_PERCENT = 25
DECISION_WAIT_S = 2
MIXED_CALLS = 30 * traffic.CYCLE  # 1260 calls, 540 of them failures (90 per class)
RESTART_CALLS = 5 * traffic.CYCLE  # per phase: before, while down, after
METRIC_SERVERS = 12  # the agent hashes each service onto a gateway: six once all landed on one (p ~ 1 %)
METRIC_CALLS = METRIC_SERVERS * traffic.CYCLE
PROGRESS_S = 15
BUSY_CPU_S = 0.25
"""CPU seconds the gateways use in one second of settling while they still scrub (idle, a few hundredths)."""
MAX_SETTLE_S = 240
DOWN_S = 6.0
"""How long the restarted gateway stays down (the agents' limit is ERRSCOPE_AGENT_RETRY_MAX_ELAPSED, 300 s)."""


@dataclass
class Sent:
    """What one traffic run recorded next to its exporters."""

    traces: dict[str, dict[str, Any]]
    calls: list[dict[str, Any]]

    def tool_calls(self, failed: bool | None = None) -> dict[str, dict[str, Any]]:
        """Traces of tool calls (``initialize`` and ``tools/list`` have their own), optionally by outcome."""
        return {t: v for t, v in self.traces.items()
                if v.get("tool") and (failed is None or (v["class"] != "ok") == failed)}


@dataclass
class Tiers:
    prometheus: Prometheus
    gateways: list[Collector]
    agents: list[Collector]
    workdir: Path
    runs: int = 0

    def send(self, calls: int, servers: int = 1, prefix: str = "errscope-scale") -> Sent:
        self.runs += 1
        out = self.workdir / f"sent-{self.runs}.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        result = subprocess.run(  # noqa: S603 - fixed argv
            [sys.executable, "-m", "tests.deploy.scale_out_traffic", "--client-otlp", self.agents[0].otlp_http,
             "--server-otlp", self.agents[1].otlp_http, "--calls", str(calls), "--servers", str(servers),
             "--prefix", prefix, "--out", str(out)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
        )
        assert result.returncode == 0, result.stderr[-4000:]
        summary = json.loads(out.read_text())
        return Sent(summary["traces"], summary["calls"])

    def exported(self) -> dict[str, dict[int, list[str]]]:
        """trace id -> gateway index -> span ids that gateway wrote (a span written twice appears twice)."""
        out: dict[str, dict[int, list[str]]] = {}
        for index, gateway in enumerate(self.gateways):
            for batch in gateway.read("traces"):
                for rs in batch.get("resourceSpans", []):
                    for ss in rs.get("scopeSpans", []):
                        for span in ss.get("spans", []):
                            out.setdefault(span["traceId"], {}).setdefault(index, []).append(span["spanId"])
        return out

    def settle(self, sent: Sent, timeout_s: float = 90) -> dict[str, dict[int, list[str]]]:
        """Wait until every failed call's trace is out whole, then one decision wait more for the rest.

        The gateways' scrubbing is CPU-bound and they share the machine, so the wait lasts ``timeout_s`` and goes on
        while they still work (write spans or use CPU): until ``PROGRESS_S`` after they last did, at most
        ``MAX_SETTLE_S`` in all."""
        failed = sent.tool_calls(failed=True)
        start = time.monotonic()
        deadline, written, cpu_s = start + timeout_s, -1, 0.0
        while time.monotonic() < deadline:
            exported = self.exported()
            if all(_whole(trace, exported.get(t)) for t, trace in failed.items()):
                break
            count = sum(len(spans) for gateways in exported.values() for spans in gateways.values())
            used = sum(sum(psutil.Process(gateway.proc.pid).cpu_times()[:2]) for gateway in self.gateways)
            if count > written or used - cpu_s > BUSY_CPU_S:
                deadline = min(start + MAX_SETTLE_S, max(deadline, time.monotonic() + PROGRESS_S))
            written, cpu_s = count, used
            time.sleep(1)
        time.sleep(DECISION_WAIT_S + 1.5)
        return self.exported()


def dropped(agent: Collector) -> int:
    """Spans the agent gave up on. The load_balancing exporter's per-gateway exporters have no
    ``otelcol_exporter_send_failed_*`` metrics (v0.161); the queue logs each drop with its item count."""
    return sum(int(n) for n in re.findall(r'Dropping data\..*?"dropped_items": (\d+)', agent.log()))


def _spans(trace: dict[str, Any]) -> list[str]:
    return sorted(trace["client"] + trace["server"] + trace["upstream"] + trace["other"])


def _whole(trace: dict[str, Any], exported: dict[int, list[str]] | None) -> bool:
    """Every span of the trace, exactly once, in exactly one gateway's output."""
    return exported is not None and len(exported) == 1 and sorted(next(iter(exported.values()))) == _spans(trace)


@pytest.fixture(scope="module")
def tiers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tiers]:
    prometheus_bin = require_executable("prometheus")
    binary = collector_binary()
    workdir = tmp_path_factory.mktemp("scale-out")
    prometheus = Prometheus(workdir / "prometheus", binary=prometheus_bin)
    env = {"ERRSCOPE_SAMPLE_PERCENT": str(SAMPLE_PERCENT), "ERRSCOPE_DECISION_WAIT": f"{DECISION_WAIT_S}s"}
    gateways = [stackrun.gateway(workdir / f"gateway-{i}", binary=binary, env=dict(env)).remote_write(prometheus.url)
                for i in range(GATEWAYS)]
    # A gateway answers an export once it has scrubbed it. Here three gateways, the agents and the traffic share two
    # cores (the mixed burst's 1,260 calls cost the gateways ~170 CPU s), so a request can wait past the agents' 30 s
    # default even on an idle machine, and the agent re-sends what the gateway kept (at-least-once, docs/scale-out.md),
    # writing spans twice. These tests check routing and completeness, so an answer may take the whole retry window;
    # a gateway that is down still fails at once (connection refused).
    export_timeout = {"ERRSCOPE_AGENT_EXPORT_TIMEOUT": "300s"}
    agents = [stackrun.agent(workdir / f"agent-{i}", gateways, binary=binary, env=dict(export_timeout))
              for i in range(2)]
    started: list[Prometheus | Collector] = []
    try:
        for process in (prometheus, *gateways, *agents):
            process.start()
            started.append(process)
        yield Tiers(prometheus, gateways, agents, workdir)
    finally:
        for process in reversed(started):
            process.stop()


# -- a few thousand calls: routing, completeness, sampling ---------------------------------------------------------


@pytest.fixture(scope="module")
def mixed(tiers: Tiers) -> tuple[Sent, dict[str, dict[int, list[str]]]]:
    sent = tiers.send(MIXED_CALLS)
    return sent, tiers.settle(sent)


def test_every_trace_reaches_exactly_one_gateway(mixed: tuple[Sent, dict[str, dict[int, list[str]]]]) -> None:
    """Client spans (agent 1) and server + upstream spans (agent 2) of one trace meet on one gateway, none twice;
    and the trace-id hash spreads traces over all three gateways."""
    sent, exported = mixed
    assert MIXED_CALLS == len(sent.tool_calls())
    mine = {t: exported[t] for t in sent.traces if t in exported}
    split = {t: sorted(g) for t, g in mine.items() if len(g) != 1}
    assert {} == split
    twice = {t: s for t, g in mine.items() for s in g.values() if len(s) != len(set(s))}
    assert {} == twice
    per_gateway = Counter(next(iter(g)) for g in mine.values())
    assert set(range(GATEWAYS)) == set(per_gateway) and min(per_gateway.values()) > len(mine) / GATEWAYS / 2, per_gateway


def test_every_failed_call_trace_is_whole_and_kept(mixed: tuple[Sent, dict[str, dict[int, list[str]]]]) -> None:
    """Each failed call's trace (client span, server span, upstream HTTP span) is kept, whole, on one gateway."""
    sent, exported = mixed
    failed = sent.tool_calls(failed=True)
    assert {c.value for c in FailureClass} == {v["class"] for v in failed.values()}
    assert all((1, 1, 1) == (len(v["client"]), len(v["server"]), len(v["upstream"])) for v in failed.values())
    broken = [t for t, v in failed.items() if not _whole(v, exported.get(t))]
    assert [] == broken


def test_kept_share_of_successful_traces_is_the_sampling_percentage(
    mixed: tuple[Sent, dict[str, dict[int, list[str]]]],
) -> None:
    """Successful traces are kept whole or not at all, in the configured share within 4 standard deviations
    of the binomial (the probabilistic policy hashes the trace id: independent of the gateway a trace hit)."""
    sent, exported = mixed
    ok = sent.tool_calls(failed=False)
    kept = [t for t in ok if t in exported]
    assert [] == [t for t in kept if not _whole(ok[t], exported[t])]
    p = SAMPLE_PERCENT / 100
    tolerance = 4 * math.sqrt(p * (1 - p) / len(ok))
    assert abs(len(kept) / len(ok) - p) <= tolerance, (len(kept), len(ok), tolerance)


# -- a gateway killed and restarted in the middle ------------------------------------------------------------------


def test_gateway_killed_and_restarted_loses_and_splits_no_failed_call_trace(tiers: Tiers) -> None:
    """SIGKILL one gateway between two bursts, send a burst while it is down, restart it, send another: every
    failed call's trace of the three bursts is whole on one gateway, and the agents dropped nothing.

    What guarantees it: the static resolver keeps the dead gateway in the ring (its traces are not re-routed, so
    not split), and each agent's per-gateway sending_queue + retry_on_failure (agent.yaml) hold its requests
    until it answers again. A trace the gateway held undecided when killed is lost (tail sampling keeps it in
    memory); the first burst is out before the kill.
    """
    victim = tiers.gateways[1]
    before = tiers.send(RESTART_CALLS)
    tiers.settle(before)
    victim.kill()
    down_since = time.monotonic()
    during = tiers.send(RESTART_CALLS)
    time.sleep(max(0.0, DOWN_S - (time.monotonic() - down_since)))
    victim.start()
    after = tiers.send(RESTART_CALLS)
    everything = Sent({**before.traces, **during.traces, **after.traces}, [])
    exported = tiers.settle(everything, timeout_s=120)

    failed = everything.tool_calls(failed=True)
    assert 3 * RESTART_CALLS == len(everything.tool_calls())
    broken = {t: (_burst(t, before, during), exported.get(t), v) for t, v in failed.items() if not _whole(v, exported.get(t))}
    assert {} == broken
    held = [t for t in during.tool_calls(failed=True) if 1 in exported.get(t, {})]
    assert held, "no failed call of the burst sent while the gateway was down was routed to it"
    assert [0, 0] == [dropped(agent) for agent in tiers.agents]


def _burst(trace: str, before: Sent, during: Sent) -> str:
    return "before" if trace in before.traces else "during" if trace in during.traces else "after"


# -- metrics from many servers through several gateways ------------------------------------------------------------


def test_overview_counts_calls_exactly_per_tool_and_class(tiers: Tiers) -> None:
    """Six servers' histograms, routed by service over the gateways, remote-written to one Prometheus: the
    overview's "Failures by tool and class" panel counts exactly the failed calls made, per tool and class.

    ``increase()`` extrapolates to the window's edges (Prometheus' rule, not a property of the data), so the
    exact count reads the panel's own selector and aggregation with ``max_over_time`` (a cumulative counter
    without reset); the panel as generated must return the same (tool, class) pairs.
    """
    prefix = "errscope-metrics"
    sent = tiers.send(METRIC_CALLS, servers=METRIC_SERVERS, prefix=prefix)
    services = {f"{prefix}-{i}" for i in range(METRIC_SERVERS)}
    made = Counter({(c["tool"], c["class"]): 0 for c in sent.calls})
    for call in sent.calls:
        if call["class"] != "ok":
            made[(call["tool"], call["class"])] += call["count"]
    failed = {key: n for key, n in made.items() if n}

    [panel] = [q for q in all_queries() if q.panel_title == "Failures by tool and class (time range)"]
    query = concrete(panel.text, {"service": f"{prefix}-.*", "tool": ".*", "class": ".+"})
    exact = re.sub(r"\bincrease\(", "max_over_time(", query)
    assert exact != query

    def counts(expr: str) -> dict[tuple[str, str], float]:
        return {(s["metric"][Label.TOOL], s["metric"][Label.CLASS]): float(s["value"][1])
                for s in tiers.prometheus.query(expr, time.time())}

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and counts(exact) != failed:
        time.sleep(1)
    assert failed == counts(exact)
    assert set(counts(query)) <= set(failed)

    # each service's series left through exactly one gateway, and more than one gateway was used
    via: dict[str, set[int]] = {}
    for index, gateway in enumerate(tiers.gateways):
        for resource, _ in iter_datapoints(gateway.read("metrics")):
            names = [a["value"].get("stringValue") for a in resource.get("attributes", []) if a["key"] == "service.name"]
            if names and names[0] in services:
                via.setdefault(names[0], set()).add(index)
    assert services == set(via) and all(len(g) == 1 for g in via.values()), via
    assert len(set().union(*via.values())) > 1, via


# -- the committed configs ------------------------------------------------------------------------------------------


def test_gateway_overlay_only_retargets_existing_exporters() -> None:
    """The overlay adds no component: it configures exporters the base config already defines."""
    base = yaml.safe_load((ROOT / "collector" / "config.yaml").read_text())
    overlay = yaml.safe_load(GATEWAY.read_text())
    assert {"exporters"} == set(overlay)
    assert set(overlay["exporters"]) <= set(base["exporters"])


def test_agent_routes_traces_and_logs_by_trace_id_and_metrics_by_service() -> None:
    """Traces and logs are load-balanced by trace id (whole traces per gateway), metrics by service."""
    agent = yaml.safe_load(AGENT.read_text())
    pipelines = agent["service"]["pipelines"]
    for signal, key in (("traces", "traceID"), ("logs", "traceID"), ("metrics", "service")):
        [exporter] = pipelines[signal]["exporters"]
        assert exporter.startswith("load_balancing/") and key == agent["exporters"][exporter]["routing_key"]


def test_agent_validates_with_a_dns_resolver(tmp_path: Path) -> None:
    """The production form (a DNS name for the gateways' headless service) loads in the real binary."""
    agent = Collector(tmp_path, config=AGENT, overlays=[], binary=collector_binary(),
                      env={"ERRSCOPE_GATEWAY_RESOLVER": '{dns: {hostname: otelcol-gateway, port: "4317"}}'})
    result = agent.validate()
    assert 0 == result.returncode, result.stdout + result.stderr


def test_a_gateway_down_longer_than_the_retry_window_loses_only_its_share_and_counts_it(
    tiers: Tiers, tmp_path: Path,
) -> None:
    """The limit: an agent whose retry window (ERRSCOPE_AGENT_RETRY_MAX_ELAPSED) is 5 s drops what it holds for a
    gateway that stays down longer, counts every dropped span, and delivers the other gateways' share."""
    short = stackrun.agent(tmp_path, tiers.gateways, binary=collector_binary(),
                           env={"ERRSCOPE_AGENT_RETRY_MAX_ELAPSED": "5s"}).start()
    victim = tiers.gateways[2]
    victim.kill()
    try:
        ids = [os.urandom(16).hex() for _ in range(60)]
        now = time.time_ns()
        spans = [{"traceId": t, "spanId": os.urandom(8).hex(), "name": "tools/call limit", "kind": 2,
                  "startTimeUnixNano": str(now), "endTimeUnixNano": str(now + 1000), "status": {"code": 2}}
                 for t in ids]
        payload = {"resourceSpans": [{"resource": {"attributes": [
            {"key": "service.name", "value": {"stringValue": "errscope-limit"}}]}, "scopeSpans": [{"spans": spans}]}]}
        request = urllib.request.Request(f"{short.otlp_http}/v1/traces", data=json.dumps(payload).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - loopback
            assert 200 == response.status
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and dropped(short) == 0:
            time.sleep(0.5)
        time.sleep(DECISION_WAIT_S + 1.5)
        delivered = [t for t in ids if t in tiers.exported()]
    finally:
        victim.start()
        short.stop()
    assert 0 < dropped(short) < len(ids)
    assert len(ids) == len(delivered) + dropped(short)
