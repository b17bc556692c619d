"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against server-everything,
directly and through ``errscope proxy --listen``: the same checks pass.

The one documented difference: server-everything answers a call to a tool it lacks (the suite's
``test_*`` tools) with an ``isError`` result, which the suite's loose checks accept; the proxy moves an
unknown tool to the protocol channel (JSON-RPC -32602, MCP spec, Tools > Error Handling), so those
checks fail through it, each with "Unknown tool" as its reason.
"""

from __future__ import annotations

from pathlib import Path

from tests.foreign.peers import conformance
from tests.proxy.conftest import EVERYTHING, NODE, free_port, proxy_command, require_everything, serving


def test_conformance_same_checks_through_the_proxy(tmp_path: Path) -> None:
    """Every check that passes directly passes through the proxy, unless the server lacks the tool it calls."""
    require_everything()
    upstream, listen = free_port(), free_port()
    with serving([str(NODE), str(EVERYTHING), "streamableHttp"], upstream, env={"PORT": str(upstream)}):
        url = f"http://127.0.0.1:{upstream}/mcp"
        direct = conformance(url)
        with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = conformance(f"http://127.0.0.1:{listen}/mcp")
    assert set(proxied) == set(direct) and len(direct) >= 20
    passed = {key for key, check in direct.items() if check.status == "SUCCESS"}
    assert len(passed) >= 10
    lost = {key: proxied[key] for key in passed if proxied[key].status != "SUCCESS"}
    for key, check in lost.items():
        assert check.error is not None and "Unknown tool: test_" in check.error, (key, check)
    assert not {key for key, check in proxied.items() if check.status == "SUCCESS"} - passed
