"""``errscope proxy`` side of tests/heldout_cases.md, fifteenth round (J292, J293): an upstream that answers the host's
notifications, and J283-J285's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import SERVERS, ForeignLog
from tests.client.test_heldout_cases import ok, tool
from tests.proxy.test_heldout_cases_3 import RawHost, proxy_command
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


@pytest.mark.parametrize("answer", [
    pytest.param({"jsonrpc": "2.0", "id": None, "error": {"code": -32601,
                                                          "message": "Method not found: notifications/initialized"}},
                 id="id-null-error"),
    pytest.param({"jsonrpc": "2.0", "id": None, "result": {}}, id="id-null-result"),
    pytest.param({"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}},
                 id="the-initialize-id-again"),
])
async def test_j292_an_upstream_that_answers_the_host_s_notifications(
        tmp_path: Path, hosts: list[RawHost], answer: dict[str, Any]) -> None:
    """J292 (J288 one hop further: pzalutski-pixel/sharplens-mcp #6, yjacquin/fast-mcp #39, oisee/odata_mcp_go PR #33;
    Claude Code and Gemini CLI tear the connection down on such a frame, shaun0927/openchrome #144). The relay forwards
    the host's ``notifications/initialized`` and ``notifications/cancelled``; an answer to either answers no request the
    host made (JSON-RPC 2.0 §4.1), so the relay must not pass it on: the host sees only the answers to its own requests,
    each once, and the session goes on."""
    spec, log = tmp_path / "peer.json", tmp_path / "peer.jsonl"
    spec.write_text(json.dumps({"tools": [tool("search")], "answers": {"search": ok("3 hits")},
                                "notification_answers": [answer]}))
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", f"PEER_SPEC={spec}", f"PEER_LOG={log}", sys.executable,
                                 str(SERVERS / "heldout_peer.py")))
    hosts.append(host)
    seen = []
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    seen += host.frames_until(lambda f: f.get("id") == 0 and "result" in f, timeout=30)
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    host.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    seen += host.frames_until(lambda f: f.get("id") == 1)
    host.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99, "reason": "gone"}})
    host.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"q": "x"}}})
    seen += host.frames_until(lambda f: f.get("id") == 2)
    host.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    seen += host.frames_until(lambda f: f.get("id") == 3)
    host.close()
    answers = [f for f in seen if "method" not in f]
    assert [f.get("id") for f in answers] == [0, 1, 2, 3], answers
    assert answers[2]["result"]["content"][0]["text"] == "3 hits", answers[2]
    assert len(ForeignLog(log).received("initialize")) == 1


async def test_j293_translated_socket_errors_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J293 (J283-J285 across the relay: .NET's ``SocketException (10061)`` with a German sentence, Python's
    "[Errno 11001] getaddrinfo failed" on Windows, Apple's NSURLErrorDomain -1003, Dart's "Failed host lookup"). The
    relay's spans are ``upstream_unavailable``, not ``unknown``; each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "sync_crm": "System.Net.Sockets.SocketException (10061): Es konnte keine Verbindung hergestellt werden, da der "
                    "Zielcomputer die Verbindung verweigerte.",
        "send_fax": "socket.gaierror: [Errno 11001] getaddrinfo failed",
        "find_host": 'Error Domain=NSURLErrorDomain Code=-1003 "Le serveur avec le nom d\'hôte indiqué est introuvable."',
        "fetch_feed": "SocketException: Failed host lookup: 'feeds.example.test'",
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes
