"""``errscope proxy`` side of tests/heldout_cases.md, twentieth round (J372): J364's, J365's, J367's, J368's and J371's
words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j372_failed_dependencies_resolvers_grpc_limits_and_github_behind_a_proxy(
        tmp_path: Path, hosts: list[RawHost]) -> None:
    """J372 (J364, J365, J367, J368 and J371 across the relay: microsoft/agent-framework #1210, cyfdecyf/cow #352,
    docker/for-linux #1078, grpc/grpc-node #1093, github/github-mcp-server #2037, npgsql/npgsql #1104). The relay's spans
    take the client's classes (one classifier), a request the resolver or the connection pool never let out is not
    "may have taken effect" on the relay's span, a connection string's spaced password reaches neither the host nor
    the span, and each call reached the upstream once."""
    classes, said = await relay_classes(tmp_path, hosts, {
        "ask_agent": "MCP Connector error. Http status: 424, error details: Error retrieving tool list from MCP server: "
                     "'Generic_MCP_Server'. Http status code: 424 (Failed Dependency)",
        "sync_repo": 'Get "https://registry.example.test/v2/": dial tcp: lookup registry.example.test on 10.0.0.2:53: '
                     'read udp 10.0.0.9:43426->10.0.0.2:53: i/o timeout',
        "pull_image": 'Get "https://registry.example.test/v2/": net/http: request canceled while waiting for connection '
                      '(Client.Timeout exceeded while awaiting headers)',
        "export_rows": "Error: 8 RESOURCE_EXHAUSTED: Received message larger than max (4794074 vs. 4194304)",
        "list_pulls": "GET https://api.github.com/repos/o/r/pulls: 403 You have exceeded a secondary rate limit. Please "
                      "wait a few minutes before you try again.",
        "query_orders": "Failed to connect using Host=pg-1;Username=app;Password=Fern Stone FAKE77 gale;Database=shop",
    })
    assert classes == {
        "ask_agent": "upstream_unavailable",
        "sync_repo": "upstream_unavailable",
        "pull_image": "upstream_unavailable",
        "export_rows": "invalid_input",
        "list_pulls": "rate_limited",
        "query_orders": "upstream_unavailable",
    }, classes
    for name in ("sync_repo", "pull_image"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
    spans = await exported_spans(tmp_path / "out", "tools/call query_orders")
    assert "FAKE77 gale" not in said["query_orders"] and "FAKE77 gale" not in str(dict(spans[0].attributes)), said
