"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against the same server,
directly and through ``errscope proxy --listen``: the same verdict for every check.

The server is ``tests/foreign/servers/everything_server.py``, a plain Python ``MCPServer`` with every
tool, resource and prompt the suite's scenarios call, which passes the whole suite on its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.foreign.peers import conformance, python_server_http
from tests.foreign.test_conformance import RUN_TIMEOUT, failing
from tests.proxy.conftest import free_port, proxy_command, serving

pytestmark = pytest.mark.stack


def test_conformance_same_checks_through_the_proxy(tmp_path: Path) -> None:
    """Every check has the same status through the proxy as directly, and the server passes them all."""
    listen = free_port()
    with python_server_http("everything_server.py") as url:
        direct = conformance(url, timeout=RUN_TIMEOUT)
        with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = conformance(f"http://127.0.0.1:{listen}/mcp", timeout=RUN_TIMEOUT)
    assert len({key.split("/")[0] for key in direct}) >= 30, f"the suite ran only {sorted(direct)}"
    assert failing(direct) == {}, f"the server fails the suite on its own: {failing(direct)}"
    assert set(proxied) == set(direct), "the proxy changed which checks the suite could run"
    changed = {key: (direct[key].status, proxied[key].status, proxied[key].error) for key in direct
               if direct[key].status != proxied[key].status}
    assert not changed, f"the proxy changed verdicts (direct, proxied, why): {changed}"
    # The proxy was in the path: the suite's error tool left one classified span with a ref.
    assert '"tools/call test_error_handling"' in (tmp_path / "traces.jsonl").read_text()
