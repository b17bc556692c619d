"""Behind ``errscope proxy``, a foreign server's error text that prints a wrapped error chain: the innermost cause
decides the class and whether the request may have been delivered, and survives into the proxy's log record, where
``errscope explain REF`` (on the sentence the user pasted) shows it.

The server (``tests/proxy/chained_server.py``, a plain Python ``MCPServer`` without errscope) fails for real against
listeners on 127.0.0.1 (a closed port, a stalled listener, an HTTP status) and prints the real failure as Java's
``printStackTrace``, Go's ``%w`` chain, Rust's anyhow (``{:?}`` and ``{:#}``), Python's "caused by:" and Node's
``[cause]:`` would. The outer contexts name what was being attempted ("Permission check …", "invalid refund
request …", "Not authorized to finish …"): read as the failure, they would send the on-call engineer to the wrong
team and tell the model to fix arguments or ask for access it already has.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters, get_default_environment

from errscope.client import ToolClient
from tests.classification.upstreams import HttpUpstream
from tests.proxy.chained_server import SECRET
from tests.proxy.conftest import ROOT, proxy_command, telemetry_text
from tests.proxy.test_oncall_foreign import explain

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

CHAINED = [sys.executable, "-m", "tests.proxy.chained_server", "stdio"]

# (style, where the upstream fails) -> (class, may have been delivered, the innermost cause's words in the log record)
CASES: dict[tuple[str, str], tuple[str, bool | None, str]] = {
    ("java", "refused"): ("upstream_unavailable", None, "Caused by: java.net.ConnectException: Connection refused"),
    ("java", "stall"): ("upstream_unavailable", True, "Caused by: java.net.SocketTimeoutException: Read timed out"),
    ("java", "503"): ("upstream_unavailable", None, "503 Upstream"),
    ("go", "refused"): ("upstream_unavailable", None, "connect: connection refused"),
    ("go", "stall"): ("upstream_unavailable", True, "context deadline exceeded"),
    ("rust_debug", "refused"): ("upstream_unavailable", None, "Connection refused"),
    ("rust_debug", "stall"): ("upstream_unavailable", True, "operation timed out"),
    ("rust_alt", "429"): ("rate_limited", None, "HTTP status client error (429 Upstream)"),
    ("python", "404"): ("not_found", None, "404 Upstream"),
    ("node", "refused"): ("upstream_unavailable", None, "[cause]: Error: Connection refused"),
    ("node", "stall"): ("upstream_unavailable", True, "[cause]: Error: Read timed out"),
    ("python", "refused"): ("upstream_unavailable", None, "caused by: ConnectError: Connection refused"),
    ("python", "stall"): ("upstream_unavailable", True, "caused by: ReadTimeout: Read timed out"),
    ("rust_alt", "refused"): ("upstream_unavailable", None, "tcp connect error: Connection refused (os error 111)"),
    ("rust_alt", "stall"): ("upstream_unavailable", True, "operation timed out"),
    ("go_acl", "refused"): ("upstream_unavailable", None, "connect: connection refused"),
}


def _url(upstream: HttpUpstream, where: str) -> str:
    if where in ("refused", "stall"):
        return f"{upstream.failing(where)}/v1/refunds"
    return f"{upstream.url}/status/{where}"


async def test_the_innermost_cause_of_a_foreign_chain_survives_the_proxy(tmp_path: Path) -> None:
    """Each chain's class, delivery fact and innermost cause: on the model's result, the proxy's span and its log record
    (through ``errscope explain`` on the model's text), the outer context's secret nowhere."""
    command = proxy_command(tmp_path, "--", *CHAINED)
    # This checkout's errscope in the proxy, whatever the venv has installed (the SDK passes no PYTHONPATH on its own).
    env = {**get_default_environment(), "PYTHONPATH": f"{ROOT / 'instrumentation'}{os.pathsep}{ROOT}"}
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    results = {}
    with HttpUpstream() as upstream:
        async with ToolClient(params, timeout=20, retry=None) as tools:
            for style, where in CASES:
                results[style, where] = await tools.call_tool("call_upstream", {"style": style,
                                                                                "url": _url(upstream, where)})
    wrong = {}
    for case, (failure_class, delivered, cause) in CASES.items():
        result = results[case]
        assert SECRET not in result.text and "Caused by" not in result.text, (case, result.text)
        assert result.error_ref and result.error_ref in result.text, (case, result.text)
        said = explain(result.text, tmp_path)
        seen = (result.failure_class.value if result.failure_class else None, result.side_effect_possible,
                f"errscope.failure_class={failure_class}" in said, cause in said, SECRET in said)
        if seen != (failure_class, delivered, True, True, False):
            wrong[case] = (seen, said)
        assert "errscope.upstream.system=mcp  errscope.upstream.status=isError" in said, said
    assert not wrong, "\n\n".join(f"{case}: {seen}\n{said}" for case, (seen, said) in wrong.items())
    assert SECRET not in telemetry_text(tmp_path)
