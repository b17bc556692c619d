"""docker-compose.yml is valid against the Compose Specification and wires the stack the way the repo expects.

No Docker engine runs here (DESIGN.md), so the file is validated structurally: the vendored Compose
Specification JSON schema, every bind-mounted path, the image pins, the ports, the healthchecks, and every
name one file expects another to use (Collector release, Grafana provisioning paths, service addresses).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from dashboards.inventory import load_yaml
from dashboards.provisioning import DASHBOARDS_MOUNT
from tests.conftest import require_executable
from scripts.stackrun import PROMETHEUS_FLAGS

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
SCHEMA = Path(__file__).parent / "schemas" / "compose-spec.json"
GRAFANA_PROVISIONING = "/etc/grafana/provisioning"  # Grafana's default paths.provisioning
SERVICES = {"otel-collector", "tempo", "loki", "prometheus", "grafana", "demo"}
EXACT_TAG = re.compile(r"^[a-z0-9./_-]+:v?\d+\.\d+\.\d+(-[a-z0-9.]+)?$")
_VAR = re.compile(r"\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}")


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def _dotenv() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def _interpolate(value: str) -> str:
    env = _dotenv()
    return _VAR.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)


def _service(name: str) -> dict[str, Any]:
    return _compose()["services"][name]


def _binds(service: dict[str, Any]) -> list[tuple[str, str]]:
    binds = []
    for volume in service.get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("."):
            binds.append((source, target))
    return binds


class TestSchema:
    def test_validates_against_compose_spec(self) -> None:
        """The file is valid under the Compose Specification JSON schema."""
        schema = json.loads(SCHEMA.read_text())
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in
                  jsonschema.Draft7Validator(schema).iter_errors(_compose())]
        assert [] == errors

    def test_schema_rejects_a_broken_file(self) -> None:
        """The vendored schema is strict enough to catch a typo (so the check above means something)."""
        schema = json.loads(SCHEMA.read_text())
        broken = _compose()
        broken["services"]["grafana"]["healthcheck"]["intervall"] = "10s"
        assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))

    def test_has_the_stack_services(self) -> None:
        """Collector, Tempo, Loki, Prometheus, Grafana and the demo traffic."""
        assert SERVICES == set(_compose()["services"])


class TestPinsAndEnv:
    def test_every_image_is_an_exact_version_from_env(self) -> None:
        """Images come from .env and are pinned to an exact version (no latest, no floating minor)."""
        for name, service in _compose()["services"].items():
            image = service["image"]
            if name == "demo":
                assert image.endswith(":local") and service["build"]["args"]["PYTHON_IMAGE"] == "${PYTHON_IMAGE}"
                continue
            assert _VAR.fullmatch(image), (name, image)
            assert EXACT_TAG.match(_interpolate(image)), (name, _interpolate(image))
        assert EXACT_TAG.match(_dotenv()["PYTHON_IMAGE"].split("-")[0])

    def test_collector_image_is_the_builder_manifest_release(self) -> None:
        """otel/opentelemetry-collector-contrib:<tag> is the release every module of the builder manifest pins."""
        manifest = yaml.safe_load((ROOT / "collector" / "builder-config.yaml").read_text())
        versions = {entry["gomod"].split()[1] for kind in ("receivers", "processors", "exporters", "connectors",
                                                           "extensions") for entry in manifest.get(kind, [])}
        releases = {v.lstrip("v") for v in versions if not v.startswith("v1.")}
        assert 1 == len(releases), releases
        image = _interpolate(_service("otel-collector")["image"])
        assert f"otel/opentelemetry-collector-contrib:{releases.pop()}" == image

    def test_every_variable_is_defined_or_defaulted(self) -> None:
        """Each ${VAR} in the compose file is in .env or has a default."""
        env = _dotenv()
        for name, default in _VAR.findall(COMPOSE.read_text()):
            assert name in env or default, name

    def test_dockerfile_default_base_is_the_pinned_one(self) -> None:
        """The Dockerfile's default PYTHON_IMAGE equals .env's, and what it copies exists."""
        text = (ROOT / "Dockerfile").read_text()
        assert f"ARG PYTHON_IMAGE={_dotenv()['PYTHON_IMAGE']}" in text
        for line in text.splitlines():
            if line.startswith("COPY "):
                for source in line.split()[1:-1]:
                    assert (ROOT / source).exists(), source
        assert os.access(ROOT / "deploy" / "demo" / "loop.sh", os.X_OK)


class TestWiring:
    def test_ports_published_on_loopback_only(self) -> None:
        """Nothing of the stack is reachable from the network by default."""
        for name, service in _compose()["services"].items():
            for port in service.get("ports", []):
                assert str(port).startswith("127.0.0.1:"), (name, port)

    def test_every_service_has_a_healthcheck_and_waits_for_healthy_dependencies(self) -> None:
        """Healthchecks everywhere; depends_on always waits for service_healthy."""
        services = _compose()["services"]
        for name, service in services.items():
            assert service["healthcheck"]["test"], name
            for dependency, condition in service.get("depends_on", {}).items():
                assert {"condition": "service_healthy"} == condition, (name, dependency)
                assert "healthcheck" in services[dependency]

    def test_bind_mounts_exist_and_data_uses_named_volumes(self) -> None:
        """Every bind-mounted path exists in the repo; state lives in declared named volumes."""
        compose = _compose()
        declared = set(compose["volumes"])
        for name, service in compose["services"].items():
            for volume in service.get("volumes", []):
                source = volume.split(":")[0]
                if source.startswith("."):
                    assert (ROOT / source).exists(), (name, source)
                else:
                    assert source in declared, (name, source)

    def test_grafana_provisioning_paths(self) -> None:
        """Provisioning is mounted where Grafana reads it, with the subdirectories Grafana scans."""
        grafana = _service("grafana")
        binds = dict((target, source) for source, target in _binds(grafana))
        assert "GF_PATHS_PROVISIONING" not in grafana["environment"]
        source = ROOT / binds[GRAFANA_PROVISIONING]
        for kind in ("datasources", "dashboards", "alerting"):
            assert list((source / kind).glob("*.yaml")), kind
        assert (ROOT / binds[DASHBOARDS_MOUNT]).resolve() == (ROOT / "deploy" / "grafana" / "dashboards").resolve()
        home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
        assert home.startswith(DASHBOARDS_MOUNT + "/")
        assert (ROOT / binds[DASHBOARDS_MOUNT] / home.rsplit("/", 1)[1]).exists()

    def test_grafana_anonymous_viewer_and_admin_password_from_env(self) -> None:
        """Anonymous access is read-only; the admin password comes from the environment with a documented default."""
        env = _service("grafana")["environment"]
        assert ("true", "Viewer") == (env["GF_AUTH_ANONYMOUS_ENABLED"], env["GF_AUTH_ANONYMOUS_ORG_ROLE"])
        assert _VAR.fullmatch(env["GF_SECURITY_ADMIN_PASSWORD"]).group(1) == "GRAFANA_ADMIN_PASSWORD"
        assert "GRAFANA_ADMIN_PASSWORD" in _dotenv()

    def test_contact_point_variables_reach_grafana(self) -> None:
        """Every ${ERRSCOPE_*} the alerting provisioning reads is set on the Grafana service."""
        text = (ROOT / "deploy" / "grafana" / "provisioning" / "alerting" / "errscope-contact-points.yaml").read_text()
        wanted = set(re.findall(r"(?<!\$)\$\{(ERRSCOPE_[A-Z_]+)\}", text))
        assert wanted and wanted <= set(_service("grafana")["environment"])

    def test_datasource_urls_are_compose_services(self) -> None:
        """Grafana's datasource URLs name the compose services and the ports their configs listen on."""
        sources = {ds["type"]: ds["url"] for ds in load_yaml(
            ROOT / "deploy" / "grafana" / "provisioning" / "datasources" / "errscope.yaml")["datasources"]}
        tempo = yaml.safe_load((ROOT / "deploy" / "tempo" / "tempo.yaml").read_text())
        loki = yaml.safe_load((ROOT / "deploy" / "loki" / "loki.yaml").read_text())
        assert "http://prometheus:9090" == sources["prometheus"]
        assert f"http://tempo:{tempo['server']['http_listen_port']}" == sources["tempo"]
        assert f"http://loki:{loki['server']['http_listen_port']}" == sources["loki"]

    def test_collector_exports_to_the_compose_services(self) -> None:
        """The Collector's endpoint variables point at Tempo's OTLP receiver, Loki's OTLP path, Prometheus' write API."""
        env = _service("otel-collector")["environment"]
        config = (ROOT / "collector" / "config.yaml").read_text()
        for variable in env:
            assert f"${{env:{variable}" in config, variable
        tempo = yaml.safe_load((ROOT / "deploy" / "tempo" / "tempo.yaml").read_text())
        grpc = tempo["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]
        assert f"tempo:{grpc.rsplit(':', 1)[1]}" == env["ERRSCOPE_TEMPO_ENDPOINT"]
        assert "http://loki:3100/otlp" == env["ERRSCOPE_LOKI_ENDPOINT"]
        assert "http://prometheus:9090/api/v1/write" == env["ERRSCOPE_PROMETHEUS_REMOTE_WRITE_ENDPOINT"]

    def test_demo_sends_to_the_collector(self) -> None:
        """The demo exports OTLP/HTTP to the collector service, which publishes 4317/4318 for your own servers."""
        demo = _service("demo")
        assert "http://otel-collector:4318" == demo["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"]
        assert {"127.0.0.1:4317:4317", "127.0.0.1:4318:4318"} == set(_service("otel-collector")["ports"])


class TestPrometheus:
    def test_same_flags_as_the_tests(self) -> None:
        """Compose runs Prometheus with the flags tests/dashboards uses: remote-write receiver, exemplar storage."""
        command = _service("prometheus")["command"]
        assert set(PROMETHEUS_FLAGS) <= set(command)
        assert ("./deploy/prometheus/prometheus.yml", "/etc/prometheus/prometheus.yml") in _binds(_service("prometheus"))
        assert "--config.file=/etc/prometheus/prometheus.yml" in command

    def test_promtool_check_config(self) -> None:
        """The mounted Prometheus config is valid."""
        promtool = require_executable("promtool")
        result = subprocess.run([promtool, "check", "config", str(ROOT / "deploy" / "prometheus" / "prometheus.yml")],  # noqa: S603
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("service", "config", "mount"), [("tempo", "deploy/tempo/tempo.yaml", "/var/tempo"),
                                                         ("loki", "deploy/loki/loki.yaml", "/loki")])
def test_backend_state_lives_on_its_named_volume(service: str, config: str, mount: str) -> None:
    """Every filesystem path in the Tempo/Loki config is under the service's named volume."""
    volumes = {v.split(":")[1]: v.split(":")[0] for v in _service(service)["volumes"]}
    assert not volumes[mount].startswith(".")
    paths = re.findall(r"(?:path|directory|path_prefix):\s*(/\S+)", (ROOT / config).read_text())
    assert paths and all(p.startswith(mount + "/") or p == mount for p in paths), paths


def test_collector_healthcheck_command_passes_on_the_mounted_config() -> None:
    """The collector's healthcheck (`validate` on the mounted config, with the service's environment only)
    succeeds with the real binary of the same release."""
    from tests.integration.collector_harness import collector_binary

    binary = collector_binary()
    service = _service("otel-collector")
    command = service["healthcheck"]["test"]
    assert ["CMD", "/otelcol-contrib", "validate"] == command[:3]
    mounts = {target: source for source, target in _binds(service)}
    args = [arg.replace(target, str(ROOT / source)) for arg in command[3:] for target, source in mounts.items()
            if target in arg]
    assert [f"--config={ROOT / 'collector' / 'config.yaml'}"] == args
    env = {"PATH": os.environ.get("PATH", ""), **{k: str(v) for k, v in service["environment"].items()}}
    result = subprocess.run([str(binary), "validate", *args], capture_output=True, text=True, env=env,  # noqa: S603
                            timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_port_table_matches_the_published_ports() -> None:
    """The README's port table lists exactly the ports docker-compose.yml publishes."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Bring up the stack", 1)[1].split("\n## ", 1)[0]
    documented = {int(p) for row in re.findall(r"^\| ([0-9 /]+) \|", section, re.M) for p in row.split("/")}
    published = {int(str(port).split(":")[1]) for service in _compose()["services"].values()
                 for port in service.get("ports", [])}
    assert published == documented
