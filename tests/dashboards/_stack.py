"""Real Prometheus and a real Collector as processes on 127.0.0.1, for the dashboard and alert tests."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
PROMETHEUS_FLAGS = ("--web.enable-remote-write-receiver", "--enable-feature=exemplar-storage")
"""The flags docker-compose.yml gives Prometheus too (checked by tests/deploy/test_compose.py)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(check: Any, what: str, timeout: float, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} not ready after {timeout}s:\n{log.read_text()[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@dataclass
class Prometheus:
    """A Prometheus server started from the Debian binary with the stack's config and flags."""

    binary: str
    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Prometheus:
        log = self.workdir / "prometheus.log"
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv
            [
                self.binary,
                f"--config.file={PROMETHEUS_CONFIG}",
                f"--storage.tsdb.path={self.workdir / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                *PROMETHEUS_FLAGS,
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        _wait(lambda: urllib.request.urlopen(f"{self.url}/-/ready", timeout=1).status == 200,  # noqa: S310
              "prometheus", 30, self.process, log)
        return self

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def api(self, path: str, **params: Any) -> Any:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=10) as response:  # noqa: S310
            body = json.load(response)
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str, at: float) -> list[dict[str, Any]]:
        """Instant query at ``at`` (unix seconds); the vector's samples."""
        data = self.api("/api/v1/query", query=expr, time=f"{at:.3f}")
        assert data["resultType"] in {"vector", "scalar"}, data
        return data["result"] if data["resultType"] == "vector" else [{"metric": {}, "value": data["result"]}]


PROJECT_CONFIG = ROOT / "collector" / "config.yaml"
FILE_OVERLAY = ROOT / "collector" / "overlays" / "file.yaml"


@dataclass
class Collector:
    """The project's Collector binary writing metrics to Prometheus by remote write, traces and logs to files.

    With the project's ``collector/config.yaml`` (and its ``overlays/file.yaml`` test profile) present, it runs
    that config (scrubbing, tail sampling, the ``prometheus_remote_write`` exporter as configured) with the file
    overlay plus a last overlay that puts remote write back into the metrics pipeline. Without them (an older
    checkout), a minimal otlp → prometheusremotewrite config with exporter defaults.
    """

    binary: str
    workdir: Path
    prometheus_url: str
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    uses_project_config: bool = field(default_factory=lambda: PROJECT_CONFIG.exists() and FILE_OVERLAY.exists())

    @property
    def otlp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def out(self) -> Path:
        return self.workdir / "out"

    def _minimal_config(self) -> str:
        """otlp (HTTP) → prometheusremotewrite (exporter defaults); traces and logs to file exporters."""
        return json.dumps(
            {
                "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{self.port}"}}}},
                "processors": {"batch": {"timeout": "200ms"}},
                "exporters": {
                    "prometheusremotewrite": {"endpoint": f"{self.prometheus_url}/api/v1/write"},
                    "file/traces": {"path": str(self.out / "traces.json")},
                    "file/logs": {"path": str(self.out / "logs.json")},
                },
                "service": {
                    "telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {
                        "metrics": {"receivers": ["otlp"], "processors": ["batch"], "exporters": ["prometheusremotewrite"]},
                        "traces": {"receivers": ["otlp"], "processors": ["batch"], "exporters": ["file/traces"]},
                        "logs": {"receivers": ["otlp"], "processors": ["batch"], "exporters": ["file/logs"]},
                    },
                },
            }
        )

    def _project_args(self) -> tuple[list[str], dict[str, str]]:
        """The project's config + file overlay + remote write back on the metrics pipeline."""
        text = PROJECT_CONFIG.read_text()
        exporter = "prometheus_remote_write" if "\n  prometheus_remote_write:" in text else "prometheusremotewrite"
        overlay = self.workdir / "remote-write-overlay.yaml"
        overlay.write_text(json.dumps(
            {"service": {"pipelines": {"metrics": {"exporters": [exporter, "file/metrics"]}}}}))
        env = {
            "ERRSCOPE_COLLECTOR_OTLP_HTTP_ENDPOINT": f"127.0.0.1:{self.port}",
            "ERRSCOPE_COLLECTOR_OTLP_GRPC_ENDPOINT": f"127.0.0.1:{free_port()}",
            "ERRSCOPE_COLLECTOR_HEALTH_ENDPOINT": f"127.0.0.1:{free_port()}",
            "ERRSCOPE_COLLECTOR_TELEMETRY_HOST": "127.0.0.1",
            "ERRSCOPE_COLLECTOR_TELEMETRY_PORT": str(free_port()),
            "ERRSCOPE_PROMETHEUS_REMOTE_WRITE_ENDPOINT": f"{self.prometheus_url}/api/v1/write",
            "ERRSCOPE_COLLECTOR_FILE_DIR": str(self.out),
            "ERRSCOPE_DECISION_WAIT": "1s",
            "ERRSCOPE_SAMPLE_PERCENT": "100",
        }
        args = [f"--config={PROJECT_CONFIG}", f"--config={FILE_OVERLAY}", f"--config={overlay}"]
        return args, env

    def start(self) -> Collector:
        self.out.mkdir(exist_ok=True)
        if self.uses_project_config:
            args, env = self._project_args()
        else:
            config = self.workdir / "collector.yaml"
            config.write_text(self._minimal_config())  # JSON is YAML
            args, env = [f"--config={config}"], {}
        log = self.workdir / "collector.log"
        self.process = subprocess.Popen(  # noqa: S603 - fixed argv
            [self.binary, *args], stdout=log.open("wb"), stderr=subprocess.STDOUT, env={**os.environ, **env}
        )

        def listening() -> bool:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True

        _wait(listening, "collector", 30, self.process, log)
        return self

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)

    def records(self, signal: str) -> list[dict[str, Any]]:
        """OTLP-JSON lines the file exporter wrote for ``signal`` (``traces`` or ``logs``)."""
        path = self.out / f"{signal}.json"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def collector_binary() -> str | None:
    """The binary ``scripts/build-collector.sh`` builds (cached per machine), or None without Go."""
    if shutil.which("go") is None:
        return None
    result = subprocess.run(  # noqa: S603 - fixed argv
        [str(ROOT / "scripts" / "build-collector.sh")], capture_output=True, text=True, timeout=1800, check=False
    )
    path = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0 or not os.access(path, os.X_OK):
        raise RuntimeError(f"scripts/build-collector.sh failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return path
