"""The distribution's version, for instrumentation scopes."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcp-errscope")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"
