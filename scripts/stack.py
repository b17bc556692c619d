"""``make stack``: the errscope pipeline without Docker, as processes on 127.0.0.1.

- the Collector built from collector/builder-config.yaml (scripts/build-collector.sh), running the
  repo's collector/config.yaml plus the file-exporter overlay (collector/overlays/file.yaml) and a
  small generated overlay that sends metrics to Prometheus by remote write as well;
- Debian's Prometheus with deploy/prometheus/prometheus.yml and the flags the tests and
  docker-compose.yml use (remote-write receiver, exemplar storage);
- ``errscope demo`` as traffic, exporting OTLP to the Collector.

It runs in the foreground until Ctrl-C or SIGTERM, then stops everything it started. State (logs,
exported files, the TSDB, ``stack.json`` with ports and pids) lives in ``--state`` (default
``.errscope-stack``). Starting it twice on one state folder, or with a port already taken, is
refused with one line on stderr and exit status 1.

Grafana, Tempo and Loki have no Debian packages; they come with ``docker compose up``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.stackrun import Collector, Prometheus, ToolMissing, built, free_port  # noqa: E402 - after the path

DEFAULT_PORTS = {
    "otlp_grpc": 4317,
    "otlp_http": 4318,
    "prometheus": 9090,
    "collector_health": 13133,
    "collector_metrics": 8888,
}
"""The ports docker-compose.yml publishes, so an instrumented server of yours works with either."""
FLAGS = {
    "otlp_grpc": "--otlp-grpc-port",
    "otlp_http": "--otlp-http-port",
    "prometheus": "--prometheus-port",
    "collector_health": "--collector-health-port",
    "collector_metrics": "--collector-metrics-port",
}


class StackError(Exception):
    """Something the user must fix; ``str()`` is one line."""


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class Stack:
    state: Path
    ports: dict[str, int]
    traffic_every: float
    rounds: int
    decision_wait: str
    lock: Any = None
    prometheus: Prometheus | None = None
    collector: Collector | None = None
    demo: subprocess.Popen[bytes] | None = None
    demo_runs: list[dict[str, Any]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)

    # -- refusing to start ------------------------------------------------------------------------
    def acquire(self) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        self.lock = (self.state / "stack.lock").open("a+")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.lock.close()
            self.lock = None  # not ours: never touch the running stack's state
            pid = "?"
            with contextlib.suppress(OSError, ValueError, KeyError):
                pid = json.loads((self.state / "stack.json").read_text())["pid"]
            raise StackError(
                f"already running (pid {pid}, state {self.state}); stop it with Ctrl-C in its terminal or `kill {pid}`"
            ) from None
        taken = [f"127.0.0.1:{port} ({name}, {FLAGS[name]})" for name, port in self.ports.items() if not port_free(port)]
        if taken:
            raise StackError(f"port already in use: {', '.join(taken)}; stop what holds it, or choose another port"
                             " (--free-ports picks free ones)")

    # -- starting ---------------------------------------------------------------------------------
    def start(self) -> None:
        self.prometheus = Prometheus(self.state / "prometheus", port=self.ports["prometheus"])
        try:
            self.prometheus.start()
        except ToolMissing as exc:
            raise StackError(str(exc)) from None
        except RuntimeError as exc:
            raise StackError(f"prometheus did not start: {str(exc).splitlines()[0]} "
                             f"(log: {self.prometheus.log_path})") from None
        try:
            binary = built(progress=True)  # once per machine, minutes: after the options and ports were checked
        except RuntimeError as exc:  # ToolMissing (no go), or the build failed
            raise StackError(str(exc).splitlines()[0]) from None
        self.collector = Collector(
            self.state / "collector",
            overlays=["file.yaml"],
            env={"ERRSCOPE_DECISION_WAIT": self.decision_wait},
            binary=binary,
            grpc_port=self.ports["otlp_grpc"],
            http_port=self.ports["otlp_http"],
            health_port=self.ports["collector_health"],
            telemetry_port=self.ports["collector_metrics"],
        ).remote_write(self.prometheus.url)
        try:
            self.collector.start()
        except RuntimeError as exc:
            raise StackError(f"the collector did not start: {str(exc).splitlines()[0]} "
                             f"(log: {self.collector.log_path})") from None

    def describe(self) -> str:
        p = self.ports
        collector = self.state / "collector"
        every = f"every {self.traffic_every:g} s" if self.traffic_every > 0 else "once"
        return "\n".join([
            f"errscope stack is up (pid {os.getpid()}, state in {self.state})",
            f"  OTLP gRPC       127.0.0.1:{p['otlp_grpc']}           collector; OTEL_EXPORTER_OTLP_ENDPOINT for gRPC",
            f"  OTLP HTTP       http://127.0.0.1:{p['otlp_http']}    collector; OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{p['otlp_http']}",
            f"  collector       health http://127.0.0.1:{p['collector_health']}/  own metrics http://127.0.0.1:{p['collector_metrics']}/metrics",
            f"                  log {collector / 'collector.log'}",
            f"  exported files  {collector}/traces.json logs.json metrics.json   (errscope explain REF --from {collector})",
            f"  Prometheus      http://127.0.0.1:{p['prometheus']}    remote write /api/v1/write, exemplars on; log {self.state / 'prometheus' / 'prometheus.log'}",
            f"  demo traffic    errscope demo --rounds {self.rounds}, {every}; tables in {self.state / 'demo'}",
            "  Grafana, Tempo, Loki: docker compose up (not available as local packages)",
            f"Stop: Ctrl-C here, or `kill {os.getpid()}`; everything started here stops with it.",
        ])

    def write_state(self, status: str) -> None:
        pids = {name: proc.pid for name, proc in (
            ("prometheus", getattr(self.prometheus, "proc", None)),
            ("collector", getattr(self.collector, "proc", None)),
            ("demo", self.demo),
        ) if proc is not None and proc.poll() is None}
        document = {
            "status": status,
            "pid": os.getpid(),
            "ports": self.ports,
            "pids": pids,
            "collector_files": str(self.state / "collector"),
            "prometheus_url": f"http://127.0.0.1:{self.ports['prometheus']}",
            "otlp_http": f"http://127.0.0.1:{self.ports['otlp_http']}",
            "demo_runs": self.demo_runs,
        }
        tmp = self.state / "stack.json.tmp"
        tmp.write_text(json.dumps(document, indent=2) + "\n")
        tmp.replace(self.state / "stack.json")

    # -- traffic ----------------------------------------------------------------------------------
    def traffic(self) -> None:
        number = 0
        while not self.stopping.is_set():
            number += 1
            out = self.state / "demo" / f"run-{number}"
            env = {
                **os.environ,
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{self.ports['otlp_http']}",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_METRIC_EXPORT_INTERVAL": "1000",
                "OTEL_BSP_SCHEDULE_DELAY": "500",
                "OTEL_BLRP_SCHEDULE_DELAY": "500",
            }
            log = (self.state / "demo" / f"run-{number}.log")
            log.parent.mkdir(parents=True, exist_ok=True)
            started = time.time()
            with log.open("wb") as sink:
                self.demo = subprocess.Popen(  # noqa: S603 - fixed argv
                    [sys.executable, "-m", "errscope.cli", "demo", "--out", str(out), "--rounds", str(self.rounds)],
                    cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
                )
                self.write_state("ready")
                code = self.demo.wait()
            self.demo = None
            if self.stopping.is_set():
                break
            summary = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
            self.demo_runs.append({"run": number, "exit": code, "out": str(out), "log": str(log),
                                   "started": started, "finished": time.time(), "summary": summary[0]})
            self.write_state("ready")
            print(f"demo traffic: run {number} exited {code}: {summary[0]}", flush=True)
            if self.traffic_every <= 0:
                break
            self.stopping.wait(self.traffic_every)

    # -- stopping ---------------------------------------------------------------------------------
    def stop(self) -> None:
        self.stopping.set()
        demo = self.demo
        if demo is not None and demo.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(demo.pid, signal.SIGTERM)  # the demo and the servers it started
            try:
                demo.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(demo.pid, signal.SIGKILL)
                demo.wait(5)
        if self.collector is not None:
            self.collector.stop()
        if self.prometheus is not None:
            self.prometheus.stop()
        if self.lock is not None:
            self.write_state("stopped")
            fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="make stack", description=__doc__.splitlines()[0].replace("``", ""),
        # make takes no options of ours: they go through its STACK_ARGS variable
        usage='make stack STACK_ARGS="[options]"  (or: .venv/bin/python scripts/stack.py [options])',
        epilog='e.g. make stack STACK_ARGS="--free-ports --traffic-every 0"',
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--state", type=Path, default=ROOT / ".errscope-stack", help="state folder")
    said = {"otlp_grpc": "the Collector's OTLP gRPC receiver", "otlp_http": "the Collector's OTLP HTTP receiver",
            "prometheus": "Prometheus", "collector_health": "the Collector's health_check",
            "collector_metrics": "the Collector's own metrics"}
    for name, flag in FLAGS.items():
        parser.add_argument(flag, type=int, default=DEFAULT_PORTS[name], dest=name, metavar="PORT", help=said[name])
    parser.add_argument("--free-ports", action="store_true", help="pick free ports instead of the defaults")
    parser.add_argument("--traffic-every", type=float, default=60.0, metavar="SECONDS",
                        help="run the demo again every SECONDS (0: once)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the script per demo run")
    parser.add_argument("--decision-wait", default="10s", help="tail sampling decision wait (the config's default)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    ports = {name: free_port() if args.free_ports else getattr(args, name) for name in FLAGS}
    stack = Stack(args.state.resolve(), ports, args.traffic_every, args.rounds, args.decision_wait)
    received: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        received.append(signum)
        stack.stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        stack.acquire()
        stack.start()
        stack.write_state("ready")
        print(stack.describe(), flush=True)
        traffic = threading.Thread(target=stack.traffic, name="demo-traffic", daemon=True)
        traffic.start()
        while not stack.stopping.is_set():
            stack.stopping.wait(0.5)
    except StackError as exc:
        print(f"errscope stack: {exc}", file=sys.stderr)
        return 1
    finally:
        if stack.lock is not None and not stack.lock.closed:
            started = stack.prometheus is not None  # a refused start (a port in use) stops nothing: said as nothing
            if started:
                print("errscope stack: stopping", flush=True)
            stack.stop()
            if started:
                print("errscope stack: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
