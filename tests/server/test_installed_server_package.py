"""An MCP server installed with pip lives in a site-packages directory beside the libraries it calls: the words its
own code raises are the author's, a library's are that library's report (``errscope._classify._library_words``).

Two real wheels (the server ``ledger_mcp`` and the library it calls, ``ledger_client``) are installed by pip with
``--target`` into one directory, as a deployment (a Lambda layer, a vendored dir) does, and imported from there. Both
raise the same builtin in the same words, zipfile's ``KeyError("There is no item named 'x' in the archive")``: the
library's is read (``not_found``), the server's own stays the author's (``unknown``, as any tool's own builtin).
Through each adapter (MCPServer and FastMCP tools, a low-level server's handler) the package that defines the tool is the
tool's own code.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

import errscope
from errscope import FailureClass as C
from errscope._classify import own_code
from errscope.testing import CapturedTelemetry
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

_CLIENT = '''
def read_member(archive: str, name: str) -> str:
    """The member ``name`` of the ledger archive ``archive``."""
    raise KeyError(f"There is no item named {name!r} in the archive")
'''

_SERVER = '''
from ledger_client import read_member


def read_statement(month: str) -> str:
    """Read a month's statement from the ledger archive."""
    return read_member("ledger.zip", f"{month}.csv")


def close_month(month: str) -> str:
    """Close a month's books."""
    raise KeyError(f"There is no item named {month + '.csv'!r} in the archive")


def build_lowlevel():
    """The same tools on a low-level server, whose one handler (this package's) runs them all."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

    tools = {"read_statement": read_statement, "close_month": close_month}
    schema = {"type": "object", "properties": {"month": {"type": "string"}}, "required": ["month"]}

    async def list_tools(ctx, params):
        return ListToolsResult(tools=[Tool(name=name, input_schema=schema) for name in tools])

    async def call_tool(ctx, params):
        text = tools[params.name](**(params.arguments or {}))
        return CallToolResult(content=[TextContent(type="text", text=text)])

    return Server("ledger", on_list_tools=list_tools, on_call_tool=call_tool)
'''


def _wheel(directory: Path, name: str, code: str) -> Path:
    """A pure-Python wheel of one package (PEP 427: the files, METADATA, WHEEL and RECORD with sha256 digests)."""
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": code.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: errscope-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
              for path, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    wheel = directory / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """``ledger_mcp``, imported from the directory pip installed it and ``ledger_client`` into."""
    build = tmp_path_factory.mktemp("wheels")
    target = build / "site"
    wheels = [_wheel(build, "ledger_client", _CLIENT), _wheel(build, "ledger_mcp", _SERVER)]
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target),
                    *map(str, wheels)], check=True, capture_output=True, timeout=120)
    assert sorted(p.name for p in target.glob("*.dist-info")) == ["ledger_client-1.0.dist-info",
                                                                    "ledger_mcp-1.0.dist-info"]
    sys.path.insert(0, str(target))
    try:
        import ledger_mcp

        assert Path(ledger_mcp.__file__).parent.parent == target
        yield ledger_mcp
    finally:
        sys.path.remove(str(target))
        for name in ("ledger_mcp", "ledger_client"):
            sys.modules.pop(name, None)


def _raised(action: Any) -> BaseException:
    try:
        action()
    except BaseException as exc:
        return exc
    raise AssertionError("did not fail")


def test_the_server_package_is_its_own_code_the_library_is_not(ledger: ModuleType) -> None:
    own = _raised(lambda: ledger.close_month("2026-01"))
    library = _raised(lambda: ledger.read_statement("2026-01"))
    # Nothing says whose: both installed packages are read as libraries (a tool function classified outside a server).
    assert errscope.classify(library).failure_class is C.NOT_FOUND
    assert errscope.classify(own).failure_class is C.NOT_FOUND
    with own_code(ledger.close_month):  # what the server adapter says while it runs the tool
        assert errscope.classify(own).failure_class is C.UNKNOWN
        assert errscope.classify(library).failure_class is C.NOT_FOUND


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp", "lowlevel"])
async def test_an_installed_server_through_errscope(ledger: ModuleType, style: str) -> None:
    if style == "lowlevel":
        server = ledger.build_lowlevel()
    else:
        server = BUILDERS[style]()
        server.tool()(ledger.read_statement)
        server.tool()(ledger.close_month)
    with CapturedTelemetry.installed() as telemetry:
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target) as client:
            for tool in ("read_statement", "close_month"):
                assert (await client.call_tool(tool, {"month": "2026-01"})).is_error
        classes = {span.attributes.get("gen_ai.tool.name"): span.attributes.get("errscope.failure_class")
                   for span in telemetry.spans() if span.attributes.get("mcp.method.name") == "tools/call"}
    assert classes == {"read_statement": "not_found", "close_month": "unknown"}
