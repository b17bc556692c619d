"""The documented scale-out example: agents route by trace id to gateways that run the project's config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import require
from tests.integration.collector_harness import collector_binary

pytestmark = pytest.mark.stack

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "deploy" / "scale-out" / "agent.yaml"
GATEWAY = ROOT / "deploy" / "scale-out" / "gateway.yaml"


def test_gateway_overlay_validates_on_the_project_config(tmp_path: Path) -> None:
    """`otelcol validate --config=collector/config.yaml --config=deploy/scale-out/gateway.yaml` succeeds."""
    binary = collector_binary()
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
    for signal, key in (("traces", "traceID"), ("logs", "traceID"), ("metrics", "service")):
        [exporter] = pipelines[signal]["exporters"]
        assert exporter.startswith("load_balancing/") and key == agent["exporters"][exporter]["routing_key"]
