"""The official MCP conformance suite gives an ``MCPServer`` the same verdicts with and without errscope.

The suite (npm ``@modelcontextprotocol/conformance``, run by Node 22 from ``tests/npm``) plays the client against
``tests/foreign/servers/everything_server.py`` over streamable HTTP, once plain and once wrapped by
``errscope.instrument``. Verdicts are compared check by check, not by count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.foreign.peers import Check, conformance, python_server_http

pytestmark = pytest.mark.stack

# Each scenario's client gives up on a request after 60 s, so one hung scenario ends a run within ~65 s.
RUN_TIMEOUT = 100.0


def failing(checks: dict[str, Check]) -> dict[str, str]:
    """The checks that did not pass (``FAILURE`` or ``WARNING``), with the suite's reason."""
    return {key: f"{c.status}: {c.error}" for key, c in checks.items() if c.status in {"FAILURE", "WARNING"}}


def test_errscope_changes_no_conformance_verdict(tmp_path: Path) -> None:
    """Every check of every active server scenario has the same status with errscope as without it."""
    with python_server_http("everything_server.py") as url:
        plain = conformance(url, timeout=RUN_TIMEOUT)
    with python_server_http("everything_server.py", "--errscope", str(tmp_path)) as url:
        instrumented = conformance(url, timeout=RUN_TIMEOUT)

    scenarios = {key.split("/")[0] for key in plain}
    assert len(scenarios) >= 30, f"the suite ran only {sorted(scenarios)}"
    both = set(failing(plain)) & set(failing(instrumented))
    print(f"conformance: {len(plain)} checks in {len(scenarios)} scenarios; failing in both: {both or 'none'}")
    for key in sorted(both):
        print(f"  {key}: plain {failing(plain)[key]} | errscope {failing(instrumented)[key]}")
    assert set(instrumented) == set(plain), "errscope changed which checks the suite could run"
    changed = {key: (plain[key].status, instrumented[key].status, instrumented[key].error) for key in plain
               if plain[key].status != instrumented[key].status}
    assert not changed, f"errscope changed verdicts (plain, errscope, why): {changed}"
    assert failing(plain) == {}, f"the server under test fails the suite on its own: {failing(plain)}"

    # errscope really was in the path: the suite's error tool left one classified span with a ref.
    spans = [
        span
        for line in (tmp_path / "traces.jsonl").read_text().splitlines()
        for resource in json.loads(line)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    errors = [s for s in spans if s["name"] == "tools/call test_error_handling"]
    assert len(errors) == 1
    attributes = {a["key"]: next(iter(a["value"].values())) for a in errors[0]["attributes"]}
    assert attributes["errscope.failure_class"] == "unknown" and attributes["errscope.error_ref"].startswith("ERR-")
