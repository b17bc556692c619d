"""The base install (no extra) is the library; what needs an extra says which, and how to install it, in one line."""

from __future__ import annotations

import importlib
import os
import shlex
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata, util
from pathlib import Path

import pytest

from errscope._extras import EXTRA_MODULES, MissingExtra, extra_providing, install_command, needs_extra

ROOT = Path(__file__).resolve().parents[1]

# What `pip install mcp-errscope` lacks and the `cli` extra adds (uvicorn and Starlette come with `mcp` itself).
# Taken out of this environment by a meta path finder that answers for them as the import system does for a module
# no path holds (ModuleNotFoundError naming the first missing package): the way to see the base install without
# building a second venv per run. `pip install /path/to/mcp-errscope` into an empty venv gave the same names.
_NOT_IN_BASE = ("opentelemetry.sdk", "opentelemetry.exporter", "rich", "httptools", "uvloop", "orjson")
_PRELUDE = f"""
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if any(name == m or name.startswith(m + ".") for m in {_NOT_IN_BASE!r}):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""


def _run_without_cli_extra(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    prelude = _PRELUDE
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "instrumentation"), str(ROOT)])}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)


def test_the_library_imports_and_instruments_without_the_cli_extra() -> None:
    """``import errscope`` and ``errscope.instrument()`` on an MCPServer need neither the SDK nor an exporter."""
    done = _run_without_cli_extra("""
        import errscope
        from mcp.server.mcpserver import MCPServer
        errscope.instrument(MCPServer("payments"))
        print("instrumented")
    """)
    assert (done.returncode, done.stdout) == (0, "instrumented\n"), done.stderr


@pytest.mark.parametrize(
    ("code", "feature"),
    [
        ("import errscope; errscope.configure_telemetry('payments', output_dir='errscope-out')",
         "errscope.configure_telemetry()"),
        ("import errscope.testing", "errscope.testing"),
    ],
)
def test_a_feature_of_the_cli_extra_names_it(code: str, feature: str) -> None:
    """configure_telemetry() and errscope.testing raise MissingExtra (an ImportError) naming the extra and the
    command that installs it, not a ModuleNotFoundError from inside the SDK's imports."""
    done = _run_without_cli_extra(f"""
        from errscope._extras import MissingExtra
        try:
            {code}
        except MissingExtra as exc:
            assert isinstance(exc, ImportError) and exc.name == "opentelemetry.sdk", exc.name
            print(exc)
    """)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert said.startswith(f"{feature} needs the `cli` extra, which is not installed here (no module named "
                           "'opentelemetry.sdk'): "), said
    assert said.endswith(install_command("cli")), said


@pytest.mark.parametrize(
    ("argv", "missing"),
    [(["demo", "--out", "{tmp}/out"], "rich"), (["proxy", "--out", "{tmp}/out", "--", "cat"], "httptools")],
)
def test_the_command_without_its_extra_is_one_line(argv: list[str], missing: str, tmp_path: Path) -> None:
    """``errscope demo`` / ``errscope proxy`` on the base install: one line on stderr and exit 1, not a traceback."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    done = _run_without_cli_extra("from errscope.cli import main; raise SystemExit(main(sys.argv[1:]))", *argv)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (f"errscope {argv[0]}: this command needs the `cli` extra, which is not installed here "
                           f"(no module named {missing!r}): {install_command('cli')}\n")


def test_explain_needs_no_extra(tmp_path: Path) -> None:
    """``errscope explain`` reads files with the standard library: on the base install it answers as usual."""
    done = _run_without_cli_extra("from errscope.cli import main; raise SystemExit(main(sys.argv[1:]))",
                                  "explain", "ERR-7K3M9QXZ", "--from", str(tmp_path / "none"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"errscope explain: {tmp_path / 'none'} does not exist"), done.stderr


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("opentelemetry.sdk", "cli"),
        ("opentelemetry.sdk.trace", "cli"),
        ("opentelemetry.exporter", "cli"),  # no exporter at all: its namespace is missing
        ("opentelemetry.exporter.otlp.json.file", "cli"),
        ("rich", "cli"),
        ("rich.console", "cli"),
        ("fastmcp", "fastmcp"),
        ("opentelemetry", None),  # the API: the base install's
        ("richtext", None),
        ("numpy", None),
        ("", None),
    ],
)
def test_extra_providing(module: str, extra: str | None) -> None:
    """A module, or a parent or child of one, an extra installs is that extra's; any other name is none's."""
    assert extra_providing(module) == extra


def test_a_module_no_extra_installs_propagates_unchanged() -> None:
    """A missing module that is not an extra's is a broken install or a bug: its own error, not advice to install."""
    with pytest.raises(ModuleNotFoundError) as raised, needs_extra("this"):
        importlib.import_module("errscope_no_such_module")
    assert type(raised.value) is ModuleNotFoundError


def test_each_extras_modules_match_pyproject() -> None:
    """EXTRA_MODULES lists every distribution of the ``cli`` and ``fastmcp`` extras, and each module is what that
    distribution installs here."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, modules in EXTRA_MODULES.items():
        named = {metadata.Distribution.from_name(_name(r)).name.lower().replace("_", "-") for r in extras[extra]}
        assert set(modules) == named, extra
        owners = metadata.packages_distributions()
        for distribution, module in modules.items():
            assert util.find_spec(module) is not None, module
            # the distribution, or one it requires (fastmcp 4 is a meta-package over fastmcp-slim), ships the module
            shipped_by = {d.lower() for d in owners.get(module.partition(".")[0], ())}
            candidates = {distribution} | {_name(r).lower() for r in metadata.requires(distribution) or ()}
            assert shipped_by & candidates, (distribution, module, shipped_by)
            if module.startswith("opentelemetry."):  # a namespace: the submodule's own files
                files = {str(f) for f in metadata.files(distribution) or ()}
                assert any(f.startswith(module.replace(".", "/") + "/") for f in files), (distribution, module)


def _name(requirement: str) -> str:
    for stop in "<>=!;[ ~":
        requirement = requirement.partition(stop)[0]
    return requirement.strip()


def test_install_command_names_where_errscope_came_from() -> None:
    """Installed from a checkout (it is not on PyPI yet), the command installs the extra from that folder, editable
    if it was, with this interpreter's pip (PEP 610's direct_url.json)."""
    command = install_command("cli")
    assert command.startswith(f"{shlex.quote(sys.executable)} -m pip install "), command
    words = shlex.split(command)
    assert words[-1].endswith("[cli]")
    folder = words[-1].removesuffix("[cli]")
    if folder != "mcp-errscope":
        assert tomllib.loads((Path(folder) / "pyproject.toml").read_text())["project"]["name"] == "mcp-errscope"


def test_missing_extra_is_a_module_not_found_error() -> None:
    """Code that already catches ModuleNotFoundError or ImportError still catches it."""
    assert issubclass(MissingExtra, ModuleNotFoundError)
