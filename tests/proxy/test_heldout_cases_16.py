"""``errscope proxy`` side of tests/heldout_cases.md, sixteenth round (J317, J318): J301-J313's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import call, relay_classes, relayed

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j317_tools_words_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J317 (J301, J306-J308, J304 across the relay: cline/cline #6766 "spawn npx ENOENT", Salesforce's
    "INVALID_SESSION_ID: Session expired or invalid", Redis's WRONGPASS and MISCONF replies relayed by a Node server,
    Google's "Request had insufficient authentication scopes."). The relay's spans take the same classes as the client
    (one classifier), each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "run_sequential_thinking": "Error: spawn npx ENOENT",
        "save_session": "[ErrorReply: MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
                        "persist to disk. Commands that may modify the data set are disabled.]",
        "describe_object": "INVALID_SESSION_ID: Session expired or invalid",
        "get_key": "ErrorReply: WRONGPASS invalid username-password pair or user is disabled.",
        "create_version": "Request had insufficient authentication scopes.",
    })
    assert classes == {
        "run_sequential_thinking": "upstream_unavailable",
        "save_session": "upstream_unavailable",
        "describe_object": "permission_denied",
        "get_key": "permission_denied",
        "create_version": "permission_denied",
    }, classes


async def test_j318_a_32603_for_spawnsync_enoent_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J318 (J302 across the relay: Flux159/mcp-server-kubernetes #254, ``-32603`` "... Failed to get resource: spawnSync
    kubectl ENOENT"). The relay passes the protocol error on with its ref and records ``upstream_unavailable``, not
    ``unknown`` or ``not_found``."""
    message = ("MCP error -32603: Failed to execute kubectl get command: MCP error -32603: Failed to get resource: "
               "spawnSync kubectl ENOENT")
    host, log = relayed(tmp_path, {"kubectl_get": {"error": {"code": -32603, "message": message}}})
    hosts.append(host)
    frame = call(host, 10, "kubectl_get")
    host.close()
    assert frame["error"]["code"] == -32603, frame
    assert "spawnSync kubectl ENOENT" in frame["error"]["message"] and "Ref ERR-" in frame["error"]["message"], frame
    spans = await exported_spans(tmp_path / "out", "tools/call kubectl_get")
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in spans] == ["upstream_unavailable"], spans
    assert len(log.received("tools/call")) == 1
    assert json.dumps(frame).count("ERR-") >= 1
