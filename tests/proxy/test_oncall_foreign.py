"""On call behind ``errscope proxy`` in front of a foreign (npm, TypeScript SDK) server: from the ref the model quoted to
the upstream event, with the proxy's folder alone.

The server's own words are the only record of which upstream failed; the proxy's log record must keep the address,
path and further lines it named (scrubbed of credentials), which the model's 300-character excerpt drops.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope.client import ToolClient
from tests.foreign.peers import FAKE_SECRET, node_env, ts_server_stdio
from tests.proxy.conftest import ROOT, proxy_command, telemetry_text

pytestmark = pytest.mark.anyio


def explain(query: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_refused_upstreams_address_reaches_the_proxys_log_record(tmp_path: Path) -> None:
    """Node's fetch to a closed port fails with "fetch failed (connect ECONNREFUSED 127.0.0.1:<port>)": the model's text
    says ``[ip]``, but ``errscope explain`` on the sentence the model saw shows the port that refused, and the
    credential another tool's text carried is still scrubbed."""
    server = ts_server_stdio("v2")
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=server.cwd, env=node_env())
    async with ToolClient(params, timeout=10) as tools:
        refused = await tools.call_tool("refund_via_api", {"api": "refused", "with_cause": True})
        leaked = await tools.call_tool("charge_card", {"amount": 12})
    assert refused.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, refused.text
    assert "[ip]" in refused.text and "127.0.0.1" not in refused.text  # the model gets no address
    said = explain(refused.text, tmp_path)  # the whole sentence the user pasted
    assert re.search(r"errscope\.upstream\.message=fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)", said), said
    said = explain(leaked.text, tmp_path)
    assert "errscope.upstream.message=payments API refused the connection (ECONNREFUSED); request had Authorization:" \
        in said, said
    assert FAKE_SECRET not in said and FAKE_SECRET not in telemetry_text(tmp_path)


async def test_a_missing_file_keeps_its_place_for_the_model_and_its_path_for_the_on_call_engineer(tmp_path: Path) -> None:
    """A Python server's tool opens a file that is not there and passes the OS's words on: "cannot read note: [Errno 2]
    No such file or directory: '/srv/errscope-notes/q3.txt'". The model's text says the path was withheld
    (``'[path]'``, not ``''``, which reads as an empty name the model sent), and the proxy's log record keeps it."""
    from tests.proxy.conftest import PLAIN

    command = proxy_command(tmp_path, "--", *PLAIN, "stdio")
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    async with ToolClient(params, timeout=10) as tools:
        result = await tools.call_tool("read_note", {"name": "q3"})
    assert result.failure_class is FailureClass.NOT_FOUND, result.text
    assert "No such file or directory: '[path]'" in result.text and "/srv" not in result.text, result.text
    said = explain(result.text, tmp_path)
    assert re.search(r"errscope\.upstream\.message=[^\n]*cannot read note: \[Errno 2\] No such file or directory: "
                     r"'/srv/errscope-notes/q3\.txt'", said), said
