"""The documented scale-out example: agents route by trace id to gateways that run the project's config.

The gateway overlay is validated by the real Collector binary on top of ``collector/config.yaml``; the
agent config uses the contrib ``loadbalancing`` exporter, which the errscope build does not include, so it
is checked structurally (every pipeline component defined, traces keyed by trace id).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import require
from tests.dashboards._stack import collector_binary

pytestmark = pytest.mark.stack

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "deploy" / "scale-out" / "agent.yaml"
GATEWAY = ROOT / "deploy" / "scale-out" / "gateway.yaml"


def test_gateway_overlay_validates_on_the_project_config(tmp_path: Path) -> None:
    """`otelcol validate --config=collector/config.yaml --config=deploy/scale-out/gateway.yaml` succeeds."""
    binary = collector_binary()
    require(binary is not None, "go is not installed, so the Collector cannot be built (scripts/build-collector.sh)")
    env = {**os.environ, "ERRSCOPE_COLLECTOR_FILE_DIR": str(tmp_path)}
    result = subprocess.run(  # noqa: S603 - fixed argv
        [str(binary), "validate", f"--config={ROOT / 'collector' / 'config.yaml'}", f"--config={GATEWAY}"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_gateway_overlay_only_retargets_existing_exporters() -> None:
    """The overlay adds no component: it configures exporters the base config already defines."""
    base = yaml.safe_load((ROOT / "collector" / "config.yaml").read_text())
    overlay = yaml.safe_load(GATEWAY.read_text())
    assert {"exporters"} == set(overlay)
    assert set(overlay["exporters"]) <= set(base["exporters"])


def test_agent_routes_traces_by_trace_id_to_gateways() -> None:
    """Traces (and logs) are load-balanced by trace id, so tail sampling on a gateway sees whole traces."""
    agent = yaml.safe_load(AGENT.read_text())
    pipelines = agent["service"]["pipelines"]
    [exporter] = pipelines["traces"]["exporters"]
    config = agent["exporters"][exporter]
    assert exporter.startswith("loadbalancing") and "traceID" == config["routing_key"]
    assert "dns" in config["resolver"] and config["resolver"]["dns"]["port"] == 4317
    for name, pipeline in pipelines.items():
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in agent[kind], (name, component)
