"""Server side of tests/heldout_cases.md, twenty-eighth round (J455, J456): a root cause that crossed a process boundary.

A tool runs a worker program (a Python script, as servers that shell out to their own scripts do) with
``subprocess.run(..., check=True, capture_output=True)``; the worker's request to the payments service on 127.0.0.1 is
refused and the worker dies with Python's traceback on stderr. The tool's exception is ``CalledProcessError`` ("…
returned non-zero exit status 1."): the deciding cause is only in its ``stderr`` attribute. Real ``MCPServer`` and FastMCP
servers with ``errscope.instrument``, exported to OTLP-JSON files as a deployment would, read back with ``errscope
explain``'s own code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextContent

import errscope
from tests.classification.upstreams import closed_port
from tests.server.test_heldout_cases import BUILDERS

pytestmark = [pytest.mark.timeout(120)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}

WORKER = """
import sys, requests
requests.post(sys.argv[1], json={"order_id": sys.argv[2]}, timeout=5)
"""


async def refund_by_worker(order_id: str) -> str:
    """Refund an order by running the payments worker script."""
    done = subprocess.run([sys.executable, "-c", WORKER, TARGET["url"], order_id], check=True, capture_output=True,
                          text=True, timeout=60)
    return done.stdout


def run(style: str, folder: Path) -> tuple[str, dict[str, Any]]:
    """One call of the tool, exported to ``folder``: the model's text and the result's ``_meta``."""
    from errscope._setup import configure_telemetry

    exported = configure_telemetry(f"worker-{style}", output_dir=folder, set_global=False)
    server = BUILDERS[style]()
    (server.tool if style == "fastmcp" else server.add_tool)(refund_by_worker)
    errscope.instrument(server, **exported.providers)
    target = server._mcp_server if style == "fastmcp" else server
    seen: dict[str, Any] = {}

    async def drive() -> None:
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool("refund_by_worker", {"order_id": "A-1"})
            assert result.is_error, result
            seen["text"] = " ".join(b.text for b in result.content if isinstance(b, TextContent))
            seen["meta"] = dict(result.meta or {})

    try:
        anyio.run(drive)
    finally:
        exported.shutdown()
    return seen["text"], seen["meta"]


@pytest.mark.parametrize("style", STYLES)
def test_j455_a_worker_programs_refused_request(style: str, tmp_path: Path) -> None:
    """J455 (kaeawc/auto-mobile #2562: "MCP tool errors discard subprocess stderr … surfacing only opaque messages";
    posit-dev/mcptools #82: surface the error the program raised, not the exit status). The worker's stderr ends in
    requests' "Max retries exceeded … Connection refused"; errscope read the printed traceback as the program's own crash:
    ``unknown``, side effect not known. The refused connection decides: ``upstream_unavailable``, nothing sent, and the
    model's text is short, carries the ref and no traceback."""
    TARGET["url"] = f"http://127.0.0.1:{closed_port()}/refunds"
    text, meta = run(style, tmp_path)
    assert meta.get("io.errscope/failure_class") == "upstream_unavailable", (text, meta)
    assert f"Ref {meta.get('io.errscope/error_ref')}" in text, text
    assert "Traceback" not in text and "may have" not in text and len(text) <= 400, text


@pytest.mark.parametrize("style", STYLES)
def test_j456_explain_reaches_the_workers_cause(style: str, tmp_path: Path) -> None:
    """J456 (J455 on the on-call path). ``errscope explain REF`` finds the call; its span says ``upstream_unavailable``
    and that nothing was done upstream (``errscope.side_effect_possible`` false), the upstream's system and address
    are the ones the worker's words name (``errscope.upstream.*``: none was set), and its one log record names the
    root cause ``subprocess.CalledProcessError`` whose scrubbed stack trace is there to open: not the ``unknown`` of a
    crash, which would have sent on-call to the tool's code."""
    from errscope._explain import find_chains, render
    from errscope._otlp_json import load

    port = closed_port()
    TARGET["url"] = f"http://127.0.0.1:{port}/refunds"
    _, meta = run(style, tmp_path)
    ref = meta.get("io.errscope/error_ref")
    [chain] = find_chains(load(tmp_path), ref)
    said = render(chain)
    assert chain.tool is not None, said
    assert chain.tool.get("errscope.failure_class") == "upstream_unavailable", said
    assert chain.tool.get("errscope.side_effect_possible") is False, said
    # the worker's words name the service it could not reach (urllib3's pool): the upstream on-call opens next
    assert (chain.tool.get("errscope.upstream.system"), chain.tool.get("errscope.upstream.address")) == (
        "http", f"127.0.0.1:{port}"), said
    assert [(r.get("errscope.upstream.address"), r.get("errscope.failure_class")) for r in chain.logs] == [
        (f"127.0.0.1:{port}", "upstream_unavailable")], said
    assert "errscope.failure_class=upstream_unavailable" in said and "unknown" not in said, said
    assert [r.get("exception.type") for r in chain.logs] == ["subprocess.CalledProcessError"], said
    assert "root cause subprocess.CalledProcessError" in said, said
