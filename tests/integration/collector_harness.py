"""Run the real errscope collector on 127.0.0.1 for tests and benchmarks.

The binary comes from scripts/build-collector.sh (built once per machine, cached). Every endpoint
is a free loopback port; the file overlay writes OTLP-JSON lines that tests read back. Nothing
here talks to anything but 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import httpx

from tests.conftest import require

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "collector" / "config.yaml"
OVERLAYS = REPO / "collector" / "overlays"
BUILD_SCRIPT = REPO / "scripts" / "build-collector.sh"
BUILD_TIMEOUT_S = 1800


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_binary: str | None = None


def collector_binary() -> str:
    """Path of the built collector; skips (or fails under ERRSCOPE_REQUIRE_STACK=1) without Go."""
    global _binary
    if _binary is not None:
        return _binary
    require(
        shutil.which("go") is not None,
        "go is not installed (needed to build the collector)",
    )
    proc = subprocess.run(
        [str(BUILD_SCRIPT)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        cwd=REPO,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/build-collector.sh failed:\n{proc.stderr[-4000:]}")
    _binary = proc.stdout.strip().splitlines()[-1]
    return _binary


def tool_binary(name: str) -> str:
    """telemetrygen and friends, installed by scripts/build-collector.sh <name> (cached)."""
    require(shutil.which("go") is not None, "go is not installed")
    proc = subprocess.run(
        [str(BUILD_SCRIPT), name],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        cwd=REPO,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"scripts/build-collector.sh {name} failed:\n{proc.stderr[-4000:]}"
        )
    return proc.stdout.strip().splitlines()[-1]


@dataclass
class Collector:
    """One collector process. Use as a context manager; ``env`` overrides the config's variables."""

    overlays: list[str] = field(default_factory=lambda: ["file.yaml"])
    env: dict[str, str] = field(default_factory=dict)
    config: Path = CONFIG
    workdir: Path = field(
        default_factory=lambda: Path(tempfile.mkdtemp(prefix="errscope-otelcol-"))
    )

    def __post_init__(self) -> None:
        # a workdir we made ourselves is removed on exit; one passed in (make stack) is kept
        self._owns_workdir = (
            self.workdir.name.startswith("errscope-otelcol-")
            and self.workdir.is_dir()
            and not any(self.workdir.iterdir())
        )
        self.grpc_port = free_port()
        self.http_port = free_port()
        self.health_port = free_port()
        self.telemetry_port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = self.workdir / "collector.log"

    @property
    def otlp_http(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def otlp_grpc(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def command(self) -> list[str]:
        args = [collector_binary(), f"--config={self.config}"]
        args += [f"--config={OVERLAYS / name}" for name in self.overlays]
        return args

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env.update(
            ERRSCOPE_COLLECTOR_FILE_DIR=str(self.workdir),
            ERRSCOPE_COLLECTOR_OTLP_GRPC_ENDPOINT=self.otlp_grpc,
            ERRSCOPE_COLLECTOR_OTLP_HTTP_ENDPOINT=f"127.0.0.1:{self.http_port}",
            ERRSCOPE_COLLECTOR_HEALTH_ENDPOINT=f"127.0.0.1:{self.health_port}",
            ERRSCOPE_COLLECTOR_TELEMETRY_HOST="127.0.0.1",
            ERRSCOPE_COLLECTOR_TELEMETRY_PORT=str(self.telemetry_port),
            # compose defaults point at hosts that do not exist here; keep every exporter local
            ERRSCOPE_TEMPO_ENDPOINT=f"127.0.0.1:{free_port()}",
            ERRSCOPE_LOKI_ENDPOINT=f"http://127.0.0.1:{free_port()}/otlp",
            ERRSCOPE_PROMETHEUS_REMOTE_WRITE_ENDPOINT=f"http://127.0.0.1:{free_port()}/api/v1/write",
            ERRSCOPE_DECISION_WAIT="1s",
        )
        env.update(self.env)
        return env

    def validate(self) -> subprocess.CompletedProcess[str]:
        cmd = self.command()
        return subprocess.run(
            [cmd[0], "validate", *cmd[1:]],
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def start(self, timeout_s: float = 60) -> Collector:
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            self.command(), env=self.environment(), stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"collector exited {self.proc.returncode}:\n{self.log()[-4000:]}"
                )
            try:
                if (
                    httpx.get(
                        f"http://127.0.0.1:{self.health_port}/", timeout=1
                    ).status_code
                    == 200
                ):
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"collector not healthy within {timeout_s}s:\n{self.log()[-4000:]}"
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def rss_mib(self) -> float:
        assert self.proc is not None
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self._owns_workdir and not os.environ.get("ERRSCOPE_KEEP_COLLECTOR_DIRS"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    # --- sending and reading -------------------------------------------------------------------

    def post(
        self, signal: str, payload: dict[str, Any], timeout_s: float = 30
    ) -> httpx.Response:
        response = httpx.post(
            f"{self.otlp_http}/v1/{signal}", json=payload, timeout=timeout_s
        )
        response.raise_for_status()
        return response

    def read(self, signal: str) -> list[dict[str, Any]]:
        path = self.workdir / f"{signal}.json"
        if not path.exists():
            return []
        out = []
        for line in path.read_text(errors="replace").splitlines():
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:  # a line being written right now
                    pass
        return out

    def metric(self, name: str) -> float:
        """Sum of an internal-telemetry counter (all label sets), 0 when absent."""
        text = httpx.get(
            f"http://127.0.0.1:{self.telemetry_port}/metrics", timeout=5
        ).text
        base = name.removesuffix("_total")
        total = 0.0
        for line in text.splitlines():
            for candidate in (base, base + "_total"):
                if line.startswith(candidate) and line[
                    len(candidate) : len(candidate) + 1
                ] in ("{", " "):
                    total += float(line.rsplit(" ", 1)[1])
        return total


# --- OTLP JSON builders ------------------------------------------------------------------------------


def attr(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": any_value(value)}


def any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [attr(k, v) for k, v in value.items()]}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes_of(obj: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: plain(a.get("value", {})) for a in obj.get("attributes", [])}


def plain(value: dict[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "kvlistValue" in value:
        return {
            a["key"]: plain(a.get("value", {}))
            for a in value["kvlistValue"].get("values", [])
        }
    if "arrayValue" in value:
        return [plain(v) for v in value["arrayValue"].get("values", [])]
    for key in ("intValue", "doubleValue", "boolValue"):
        if key in value:
            return value[key]
    return None


def iter_spans(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(resource, span) pairs of every span in file-exporter trace lines."""
    for batch in batches:
        for rs in batch.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for span in ss.get("spans", []):
                    yield rs.get("resource", {}), span


def iter_logs(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for batch in batches:
        for rl in batch.get("resourceLogs", []):
            for sl in rl.get("scopeLogs", []):
                for record in sl.get("logRecords", []):
                    yield rl.get("resource", {}), record


def iter_datapoints(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for batch in batches:
        for rm in batch.get("resourceMetrics", []):
            for sm in rm.get("scopeMetrics", []):
                for metric in sm.get("metrics", []):
                    for kind in ("gauge", "sum", "histogram"):
                        for dp in metric.get(kind, {}).get("dataPoints", []):
                            yield rm.get("resource", {}), dp


def wait_for(predicate: Any, timeout_s: float, interval_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return bool(predicate())
