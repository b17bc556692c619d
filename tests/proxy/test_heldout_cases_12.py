"""``errscope proxy`` side of tests/heldout_cases.md, twelfth round (J243-J245): other APIs' words for a refusal, carried
across the relay, and ``errscope explain`` on the relay's ref as the host's user pasted it.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``, logging every frame it received);
the relay is the real ``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS
from tests.client.conftest import SERVERS, ForeignLog
from tests.client.test_heldout_cases import failed, tool
from tests.proxy.test_heldout_cases_3 import RawHost, proxy_command
from tests.proxy.test_heldout_cases_5 import exported_spans

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


def relayed(tmp_path: Path, answers: dict[str, Any]) -> tuple[RawHost, ForeignLog]:
    """A raw host, initialised, talking to ``errscope proxy`` (telemetry to ``tmp_path/out``) in front of the foreign
    peer answering as ``answers``; and the peer's log of what reached it."""
    spec = tmp_path / "peer.json"
    spec.write_text(json.dumps({"tools": [tool(name) for name in answers], "answers": answers}))
    log = tmp_path / "peer.jsonl"
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", f"PEER_SPEC={spec}", f"PEER_LOG={log}", sys.executable,
                                 str(SERVERS / "heldout_peer.py")))
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    host.frames_until(lambda f: f.get("id") == 0, timeout=30)
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    host.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    host.frames_until(lambda f: f.get("id") == 1)
    return host, ForeignLog(log)


def call(host: RawHost, request_id: int, name: str) -> dict[str, Any]:
    host.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": name, "arguments": {"id": "X-1"}}})
    return host.frames_until(lambda f: f.get("id") == request_id)[-1]


def text_of(frame: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in frame["result"].get("content", []))


async def relay_classes(tmp_path: Path, hosts: list[RawHost], texts: dict[str, str]) -> tuple[dict[str, str],
                                                                                                  dict[str, str]]:
    """Each tool called once through the relay; (the relay span's class by tool, the host's text by tool). Every
    tool reached the upstream exactly once."""
    host, log = relayed(tmp_path, {name: failed(text) for name, text in texts.items()})
    hosts.append(host)
    said = {}
    for request_id, name in enumerate(texts, start=10):
        frame = call(host, request_id, name)
        assert frame["result"]["isError"] is True, frame
        said[name] = text_of(frame)
    host.close()
    classes = {}
    for name in texts:
        spans = await exported_spans(tmp_path / "out", f"tools/call {name}")
        assert len(spans) == 1, (name, spans)
        classes[name] = spans[0].attributes.get(ERRSCOPE_FAILURE_CLASS)
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == sorted(texts), sent
    return classes, said


async def test_j243_api_refusals_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J243 (J230, J232, J234, J235 across the relay: modelcontextprotocol/servers #1261, awslabs/mcp #4535, Azure/vagrant-azure
    #164, oracle/docker-images #696). The upstream's tools relay Slack's ``invalid_auth``, the AWS CLI's
    ``InvalidClientTokenId`` sentence, Azure's ``AuthorizationFailed`` and Oracle's ORA-01017: the relay's spans say
    ``permission_denied`` for each, and the host reads Slack's code, not its JSON envelope."""
    classes, said = await relay_classes(tmp_path, hosts, {
        "post_message": json.dumps({"ok": False, "error": "invalid_auth"}),
        "call_aws": "An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security "
                    "token included in the request is invalid.",
        "create_vm": "(AuthorizationFailed) The client 'ops-bot@FAKE.example' with object id '9f98-FAKE' does not have "
                     "authorization to perform action 'Microsoft.Compute/virtualMachines/write' over scope "
                     "'/subscriptions/0000-FAKE' or the scope is invalid.",
        "update_ledger": "ORA-01017: invalid username/password; logon denied",
    })
    assert classes == dict.fromkeys(classes, "permission_denied"), classes
    assert "invalid_auth" in said["post_message"] and '{"ok"' not in said["post_message"], said["post_message"]


async def test_j244_rolled_back_or_cut_short_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J244 (J236, J238 across the relay: alphaonedev/ai-memory-mcp #3520, DefangLabs/defang #710, eliranwong/biblemate
    #40). A deadlock, a GOAWAY and a body cut short, told in words by the upstream's write tools: the relay's spans say
    ``upstream_unavailable`` (not ``unknown``) and each write reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "transfer_funds": "ERROR: deadlock detected (SQLSTATE 40P01)",
        "publish_post": 'Post "https://api.FAKE.example/v1/posts": http2: server sent GOAWAY and closed the connection; '
                        'LastStreamID=1999, ErrCode=NO_ERROR, debug=""',
        "send_digest": "peer closed connection without sending complete message body (incomplete chunked read)",
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes


async def test_j245_explain_the_relay_s_ref_as_the_user_pasted_it(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J245 (J240, J241 on the relay's telemetry). The host's user pastes the whole answer they saw, its hyphen turned
    into an en dash by their chat client: ``errscope explain --from`` the relay's directory finds the relay's span for
    that ref, with its class."""
    host, _ = relayed(tmp_path, {"find_order": failed("Order A-1001 was not found")})
    hosts.append(host)
    frame = call(host, 10, "find_order")
    host.close()
    seen = text_of(frame)
    spans = await exported_spans(tmp_path / "out", "tools/call find_order")
    assert spans, "the relay exported no span"
    ref = spans[0].attributes.get(ERRSCOPE_ERROR_REF)
    assert ref and ref in seen, (ref, seen)
    pasted = f"user: it said \u201c{seen.replace(ref, ref.replace('-', chr(0x2013)))}\u201d"
    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", pasted, "--from", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (pasted, done.stderr)
    assert ref in done.stdout and "not_found" in done.stdout, done.stdout
