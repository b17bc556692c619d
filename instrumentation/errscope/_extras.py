"""Which optional extra installs a module, and the one message that names it when the module is missing.

The base install (``pip install mcp-errscope``) is the library on the OpenTelemetry API; the SDK, the exporters
and what the ``errscope`` command runs on come with the ``cli`` extra (``pyproject.toml``,
``[project.optional-dependencies]``). A feature that needs one says so in words, not with a bare
``ModuleNotFoundError`` from deep inside its imports.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final
from urllib.parse import unquote, urlsplit

__all__ = ["EXTRA_MODULES", "MissingExtra", "extra_providing", "install_command", "needs_extra"]

EXTRA_MODULES: Final[dict[str, dict[str, str]]] = {
    # extra -> {distribution in pyproject's extra: the module it installs}; tests/test_extras.py keeps this in step
    # with pyproject.toml
    "cli": {
        "opentelemetry-sdk": "opentelemetry.sdk",
        "opentelemetry-exporter-otlp-proto-http": "opentelemetry.exporter.otlp.proto.http",
        "opentelemetry-exporter-otlp-json-file": "opentelemetry.exporter.otlp.json.file",
        "rich": "rich",
        "uvicorn": "uvicorn",
        "httptools": "httptools",
        "uvloop": "uvloop",
        "orjson": "orjson",
        "starlette": "starlette",
    },
    "fastmcp": {"fastmcp": "fastmcp"},
}
"""For each extra, the import name of each distribution it installs."""


class MissingExtra(ModuleNotFoundError):
    """A feature's optional dependency is not installed; the message names the extra and the command that installs it.

    A ``ModuleNotFoundError`` (``name`` is the missing module), so code that catches that or ``ImportError`` still does.
    """


def extra_providing(module: str) -> str | None:
    """The extra whose distributions install ``module`` (a dotted name, or one of its parents), or ``None``."""
    if module in ("", "opentelemetry"):  # the API's namespace: the base install has it
        return None
    for extra, modules in EXTRA_MODULES.items():
        for provided in modules.values():
            # `opentelemetry.sdk.trace` is the SDK's; `opentelemetry.exporter` missing means every exporter under it is
            if f"{module}.".startswith(f"{provided}.") or provided.startswith(f"{module}."):
                return extra
    return None


def install_command(extra: str) -> str:
    """The command that adds ``extra`` to the environment this interpreter runs in.

    Where mcp-errscope was installed from a local folder (a checkout: it is not on PyPI yet), that folder, as pip
    recorded it (PEP 610 ``direct_url.json``), editable again if it was; else the distribution's name.
    """
    from importlib import metadata

    target = f"mcp-errscope[{extra}]"
    editable = False
    try:
        recorded = metadata.distribution("mcp-errscope").read_text("direct_url.json")
        origin = json.loads(recorded) if recorded else {}
    except (metadata.PackageNotFoundError, ValueError):
        origin = {}
    url = urlsplit(str(origin.get("url", "")))
    if url.scheme == "file" and url.path:
        target = f"{unquote(url.path)}[{extra}]"
        editable = bool((origin.get("dir_info") or {}).get("editable"))
    return f"{shlex.quote(sys.executable)} -m pip install {'-e ' if editable else ''}{shlex.quote(target)}"


@contextmanager
def needs_extra(feature: str) -> Iterator[None]:
    """Run the imports of ``feature``; a module an extra installs that is missing raises :class:`MissingExtra`.

    Args:
        feature: what the user called, as they would name it (``"configure_telemetry()"``, ``"errscope demo"``).

    Raises:
        MissingExtra: ``feature needs the `cli` extra, which is not installed here (no module named 'rich'):
            /venv/bin/python -m pip install 'mcp-errscope[cli]'`` (:func:`install_command`). A missing module no
            extra installs propagates unchanged.
    """
    try:
        yield
    except MissingExtra:
        raise
    except ModuleNotFoundError as exc:
        extra = extra_providing(exc.name or "")
        if extra is None:
            raise
        raise MissingExtra(
            f"{feature} needs the `{extra}` extra, which is not installed here (no module named {exc.name!r}): "
            + install_command(extra),
            name=exc.name,
        ) from exc
