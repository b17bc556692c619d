"""Server side of tests/heldout_cases.md, seventeenth round (J328-J329): real libraries' failures a tool raises.

Python's ``sqlite3`` writing to a database file the server's user may only read; ``requests`` calling an Ethereum node
provider's JSON-RPC URL, the project key in its path, on a closed port of 127.0.0.1 (urllib3 prints the path into its
message).

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, closed_port
from tests.server.test_heldout_cases import everything_recorded, serving
from tests.server.test_heldout_cases_6 import failed_text

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


# --- J328: SQLite's read-only database ----------------------------------------------------------------------------------

@pytest.mark.parametrize("opened", ["read-only-uri", "query-only"])
@pytest.mark.parametrize("style", STYLES)
async def test_j328_sqlite_s_readonly_database(style: str, opened: str, tmp_path: Path,
                                               telemetry: CapturedTelemetry) -> None:
    """J328 (J321 on the Python side: Helmi/claude-simone #33 "attempt to write a readonly database" from an MCP server's
    activity log; runekaagaard/mcp-alchemy #35, SQLite opened ``mode=ro``, and ``PRAGMA query_only``; fr-ser/grafana-sqlite-datasource PR #168, a
    database whose file or directory the user cannot write). ``sqlite3.OperationalError`` with ``sqlite_errorname``
    ``SQLITE_READONLY``: the database refused the write for the file's permissions or the way the operator opened it,
    as ``PermissionError`` is refused (``permission_denied``); nothing was written (side effect false). ``SQLITE_BUSY``
    ("database is locked") stays the upstream's (J236)."""
    path = tmp_path / "activity.db"
    with sqlite3.connect(path) as setup:
        setup.execute("create table activity (note text)")
    setup.close()
    target = f"file:{path}?mode=ro" if opened == "read-only-uri" else str(path)

    async def log_activity(note: str) -> str:
        """Append a note to the activity log."""
        db = sqlite3.connect(target, uri=opened == "read-only-uri")
        if opened == "query-only":  # the operator's read-only switch (PRAGMA query_only), the same SQLITE_READONLY
            db.execute("pragma query_only = on")
        try:
            db.execute("insert into activity values (?)", (note,))
            db.commit()
        finally:
            db.close()
        return "logged"

    async with serving(style, "legacy", telemetry, log_activity) as served:
        result = await served.call("log_activity", {"note": "deployed"})
    assert "ERR-" in failed_text(result), result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
    assert "argument" not in failed_text(result).lower()


# --- J329: a node provider's key in the URL path urllib3 prints --------------------------------------------------------

PROJECT_KEY = "9aa3d95b3bc440fa88ea12eaa4456161"


@pytest.mark.parametrize("style", STYLES)
async def test_j329_a_node_provider_s_key_in_the_url_requests_prints(style: str, telemetry: CapturedTelemetry) -> None:
    """J329 (J326 on the Python side: oceanprotocol/provider #287 "Provider is leaking the Infura Key on 503 error message";
    0xPolygon/cdk-erigon #1529). ``requests`` posting to ``http://127.0.0.1:<closed>/v3/<project key>`` raises
    ``ConnectionError("HTTPConnectionPool(host='127.0.0.1', port=…): Max retries exceeded with url: /v3/<key> (Caused by
    NewConnectionError(...))")``. The key in the URL path is a credential: it is in no model text, span attribute, event,
    status or log record; the class is ``upstream_unavailable`` and nothing was sent."""
    import requests

    url = f"http://{HOST}:{closed_port()}/v3/{PROJECT_KEY}"

    async def get_balance(address: str) -> str:
        """Read an account's balance from the Ethereum node."""
        answer = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
                                          "params": [address, "latest"]}, timeout=5)
        return str(answer.json()["result"])

    async with serving(style, "legacy", telemetry, get_balance) as served:
        result = await served.call("get_balance", {"address": "0x0000000000000000000000000000000000000000"})
    text = failed_text(result)
    assert "ERR-" in text, result
    assert PROJECT_KEY not in text and PROJECT_KEY not in everything_recorded(telemetry)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
