"""The stack's processes on 127.0.0.1: start one, wait until it is healthy, stop it (or kill it, to test a crash).

- :class:`Collector`: the binary ``scripts/build-collector.sh`` builds from ``collector/builder-config.yaml``,
  running ``collector/config.yaml`` (or another base config, e.g. ``deploy/scale-out/agent.yaml``) plus
  overlays, every endpoint on a free loopback port;
- :class:`Prometheus`: Debian's ``prometheus`` with ``deploy/prometheus/prometheus.yml`` and the flags
  docker-compose.yml gives it.

Used by ``scripts/stack.py`` (``make stack``), the tests that need the real components and ``bench/``.
It is not in the errscope wheel: it runs this repository's configs, which the wheel does not ship.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Self

ROOT = Path(__file__).resolve().parents[1]
COLLECTOR_CONFIG = ROOT / "collector" / "config.yaml"
OVERLAYS = ROOT / "collector" / "overlays"
BUILD_SCRIPT = ROOT / "scripts" / "build-collector.sh"
BUILD_TIMEOUT_S = 1800
PROMETHEUS_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
PROMETHEUS_FLAGS = ("--web.enable-remote-write-receiver", "--enable-feature=exemplar-storage")
"""The flags docker-compose.yml gives Prometheus too (checked by tests/deploy/test_compose.py)."""


class ToolMissing(RuntimeError):
    """A toolchain or package the process needs is not installed; ``str()`` says which."""


def free_port() -> int:
    """A port nothing listens on right now, on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def built(tool: str = "", *, progress: bool = False) -> str:
    """Path of the Collector (or, with ``tool="telemetrygen"``, of that load generator), built and cached
    per machine by ``scripts/build-collector.sh``; ``progress``: its lines (building, waiting for another build) go
    to this process's stderr, for a person waiting minutes.

    Raises:
        ToolMissing: ``go`` is not on PATH.
        RuntimeError: the build failed (the message ends with the build log's tail, unless ``progress`` showed it).
    """
    if shutil.which("go") is None:
        raise ToolMissing("go is not installed, so the Collector cannot be built (scripts/build-collector.sh)")
    result = subprocess.run(  # noqa: S603 - fixed argv
        [str(BUILD_SCRIPT), *([tool] if tool else [])], stdout=subprocess.PIPE,
        stderr=None if progress else subprocess.PIPE, text=True, timeout=BUILD_TIMEOUT_S, cwd=ROOT, check=False,
    )
    path = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0 or not os.access(path, os.X_OK):
        said = (result.stderr or "")[-4000:]  # with progress, the build's lines are on stderr already
        raise RuntimeError(f"scripts/build-collector.sh {tool} failed ({result.returncode}):\n{said}")
    return path


@dataclass
class _Process:
    """One child process logging to ``log_path``; subclasses say how to start it and when it is ready."""

    workdir: Path
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False)
    _log: IO[bytes] | None = field(default=None, init=False, repr=False)

    what = "process"

    @property
    def log_path(self) -> Path:
        return self.workdir / f"{self.what}.log"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _spawn(self, argv: list[str], env: dict[str, str] | None, ready: Callable[[], bool], timeout_s: float) -> None:
        """Start ``argv`` and poll ``ready`` every 0.1 s.

        The wait is ``timeout_s`` on an idle machine, stretched by the load per CPU (:func:`load_factor`, at
        most :data:`MAX_LOAD_FACTOR` times): a start that takes 9 s alone took over 60 s at load 17 on two
        cores, and a wait that does not stretch fails the test for the machine's sake. A process that exits
        fails at once, whatever the load.

        Raises:
            RuntimeError: the process exited, or was not ready in time (the message gives the wait, the load,
                the CPU seconds the process used and its log's tail); a late process is stopped first.
        """
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(argv, env=env, stdout=self._log, stderr=subprocess.STDOUT)  # noqa: S603
        start = time.monotonic()
        factor = load_factor()
        while time.monotonic() < start + timeout_s * factor:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.what} exited {self.proc.returncode}:\n{self.log()[-4000:]}")
            try:
                if ready():
                    return
            except OSError:  # not listening yet (urllib's errors are OSErrors too)
                pass
            time.sleep(0.1)
            factor = max(factor, load_factor())
        cpu_s = _cpu_seconds(self.proc.pid)
        elapsed = time.monotonic() - start
        self.stop()
        raise RuntimeError(
            f"{self.what} not ready within {elapsed:.0f}s ({timeout_s:g}s stretched x{factor:.1f} for a load of "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; it used {cpu_s:.1f}s of CPU):\n{self.log()[-4000:]}"
        )

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout_s: float = 20) -> None:
        """SIGTERM (the process flushes what its exporters hold), SIGKILL after ``timeout_s``."""
        if self.running:
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._close_log()

    def kill(self) -> None:
        """SIGKILL: a crash, nothing flushed."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def rss_mib(self) -> float:
        assert self.proc is not None
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0


MAX_LOAD_FACTOR = 10.0


def load_factor() -> float:
    """How much slower than on an idle machine a CPU-bound start is likely to be: the 1-minute load average per
    CPU, at least 1 and at most :data:`MAX_LOAD_FACTOR`. Waits for a process to become ready are stretched by it."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average (not Linux/BSD/macOS)
        return 1.0
    return min(MAX_LOAD_FACTOR, max(1.0, load / (os.cpu_count() or 1)))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` used so far (Linux /proc), 0 when unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _http_ok(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=1) as response:  # noqa: S310 - loopback
        return int(response.status) == 200


@dataclass
class Collector(_Process):
    """One Collector: ``config`` then each overlay as a further ``--config``, ``env`` over the defaults below.

    Overlays are paths, or names of files in ``collector/overlays/``. The defaults bind every endpoint of
    the config's ``ERRSCOPE_COLLECTOR_*`` variables to a free loopback port, point the backend exporters at
    ports where nothing listens, write the file overlay's output to ``workdir`` and shorten the tail-sampling
    decision wait to 1 s. A context manager: a ``workdir`` it made itself is removed on exit.
    """

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="errscope-otelcol-")))
    overlays: list[str | Path] = field(default_factory=lambda: ["file.yaml"])
    env: dict[str, str] = field(default_factory=dict)
    config: Path = COLLECTOR_CONFIG
    binary: str | None = None
    grpc_port: int = field(default_factory=free_port)
    http_port: int = field(default_factory=free_port)
    health_port: int = field(default_factory=free_port)
    telemetry_port: int = field(default_factory=free_port)

    what = "collector"

    def __post_init__(self) -> None:
        self._owns_workdir = self.workdir.name.startswith("errscope-otelcol-") and not any(self.workdir.glob("*"))

    @property
    def otlp_http(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def otlp_grpc(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def command(self) -> list[str]:
        overlays = [o if isinstance(o, Path) else OVERLAYS / o for o in self.overlays]
        return [self.binary or built(), *(f"--config={path}" for path in (self.config, *overlays))]

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

    def remote_write(self, prometheus_url: str) -> Self:
        """Also send metrics to Prometheus by remote write (the file overlay alone replaces that exporter)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        overlay = self.workdir / "remote-write.yaml"
        overlay.write_text(json.dumps(  # JSON is YAML
            {"service": {"pipelines": {"metrics": {"exporters": ["prometheus_remote_write", "file/metrics"]}}}}))
        self.overlays = [*self.overlays, overlay]
        self.env["ERRSCOPE_PROMETHEUS_REMOTE_WRITE_ENDPOINT"] = f"{prometheus_url}/api/v1/write"
        return self

    def validate(self) -> subprocess.CompletedProcess[str]:
        binary, *configs = self.command()
        return subprocess.run(  # noqa: S603 - fixed argv
            [binary, "validate", *configs], env=self.environment(), capture_output=True, text=True, timeout=120,
            check=False,
        )

    def start(self, timeout_s: float = 60) -> Self:
        """Start and wait until the health_check extension answers 200.

        A port another process took between :func:`free_port` and the Collector's bind (it exits with "address
        already in use": tests on other workers pick ports too) is picked again, at most twice.
        """
        for tries_left in (2, 1, 0):
            try:
                self._spawn(self.command(), self.environment(),
                            lambda: _http_ok(f"http://127.0.0.1:{self.health_port}/"), timeout_s)
                return self
            except RuntimeError as exc:
                if tries_left == 0 or "address already in use" not in str(exc):
                    raise
                self._close_log()
                self.log_path.unlink(missing_ok=True)  # the next try's message is its own
                self.grpc_port, self.http_port, self.health_port, self.telemetry_port = (free_port() for _ in range(4))
        return self

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self._owns_workdir and not os.environ.get("ERRSCOPE_KEEP_COLLECTOR_DIRS"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def read(self, signal: str) -> list[dict[str, Any]]:
        """OTLP-JSON objects the file overlay wrote for ``signal`` (``traces``, ``logs``, ``metrics``)."""
        path = self.workdir / f"{signal}.json"
        if not path.exists():
            return []
        out = []
        for line in path.read_text(errors="replace").splitlines():
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:  # a line being written right now
                    pass
        return out

    def metric(self, name: str) -> float:
        """Sum of an internal-telemetry counter over all its label sets, 0 when absent."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.telemetry_port}/metrics", timeout=5) as response:  # noqa: S310
            text = response.read().decode()
        base = name.removesuffix("_total")
        total = 0.0
        for line in text.splitlines():
            for candidate in (base, base + "_total"):
                if line.startswith(candidate) and line[len(candidate) : len(candidate) + 1] in ("{", " "):
                    total += float(line.rsplit(" ", 1)[1])
        return total


@dataclass
class Prometheus(_Process):
    """Prometheus from ``binary`` (Debian's package) with the stack's config and flags, TSDB in ``workdir``."""

    binary: str = ""
    port: int = field(default_factory=free_port)

    what = "prometheus"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 30) -> Self:
        """Start and wait until ``/-/ready`` answers 200.

        Raises:
            ToolMissing: no ``binary`` was given and ``prometheus`` is not on PATH.
        """
        binary = self.binary or shutil.which("prometheus")
        if not binary:
            raise ToolMissing("prometheus is not installed (Debian: apt-get install prometheus)")
        argv = [
            binary,
            f"--config.file={PROMETHEUS_CONFIG}",
            f"--storage.tsdb.path={self.workdir / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            *PROMETHEUS_FLAGS,
        ]
        self._spawn(argv, None, lambda: _http_ok(f"{self.url}/-/ready"), timeout_s)
        return self

    def api(self, path: str, **params: Any) -> Any:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=10) as response:  # noqa: S310 - loopback
            body = json.load(response)
        if body["status"] != "success":
            raise RuntimeError(f"prometheus {path}: {body}")
        return body["data"]

    def query(self, expr: str, at: float) -> list[dict[str, Any]]:
        """Instant query at ``at`` (unix seconds); the vector's samples (a scalar as one sample)."""
        data = self.api("/api/v1/query", query=expr, time=f"{at:.3f}")
        return data["result"] if data["resultType"] == "vector" else [{"metric": {}, "value": data["result"]}]


SCALE_OUT = ROOT / "deploy" / "scale-out"


def gateway(workdir: Path, profile: str = "file.yaml", **options: Any) -> Collector:
    """A gateway of ``deploy/scale-out/``: the project config, ``gateway.yaml``, then a test or bench profile."""
    return Collector(workdir, overlays=[SCALE_OUT / "gateway.yaml", profile], **options)


def agent(workdir: Path, gateways: list[Collector], **options: Any) -> Collector:
    """An agent running ``deploy/scale-out/agent.yaml`` unchanged, its static resolver listing ``gateways``."""
    resolver = {"static": {"hostnames": [g.otlp_grpc for g in gateways]}}
    env = {"ERRSCOPE_GATEWAY_RESOLVER": json.dumps(resolver), **options.pop("env", {})}  # JSON is YAML
    return Collector(workdir, config=SCALE_OUT / "agent.yaml", overlays=[], env=env, **options)
