"""``errscope proxy`` side of tests/heldout_cases.md, thirty-second round (J487, J491): hosts' and gateways' words for a
call they gave up on or lost, a session the server behind names, and an upstream's refusals for an idempotency key,
carried across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``, logging every frame it received)
standing for gateways on the TypeScript SDK and hosts in Rust and Go, which do not run here; the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_CHANNEL, ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.client.test_heldout_cases import failed
from tests.client.test_heldout_cases_32 import GATEWAY_TIMEOUTS, HOSTS_GAVE_UP, SESSIONS_NAMED, TRANSPORT_CLOSED
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import call, relayed

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j487_hosts_and_gateways_words_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J487 (J481-J483 across the relay: mcp-router #57's -32603 over a -32001 timeout, Zed's, Codex's, OpenHands',
    RockBot's and mcphost's timeouts, Goose's and rmcp's closed transports). The relay's span for each is
    ``upstream_unavailable``; each timeout may have taken effect, on the span and in the host's text; each call reached
    the upstream once."""
    answers = {**{name: {"error": {"code": -32603, "message": text}} for name, text in GATEWAY_TIMEOUTS.items()},
               **{name: failed(text) for name, text in {**HOSTS_GAVE_UP, **TRANSPORT_CLOSED}.items()}}
    host, log = relayed(tmp_path, answers)
    hosts.append(host)
    said = {}
    for request_id, name in enumerate(answers, start=10):
        frame = call(host, request_id, name)
        said[name] = frame["error"]["message"] if "error" in frame else " ".join(
            block.get("text", "") for block in frame["result"]["content"])
    host.close()
    facts = {}
    for name in answers:
        spans = await exported_spans(tmp_path / "out", f"tools/call {name}")
        assert len(spans) == 1, (name, spans)
        facts[name] = (spans[0].attributes.get(ERRSCOPE_CHANNEL), spans[0].attributes.get(ERRSCOPE_FAILURE_CLASS),
                       spans[0].attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE))
    timed_out = {*GATEWAY_TIMEOUTS, *HOSTS_GAVE_UP}
    assert {name: fact[1] for name, fact in facts.items()} == dict.fromkeys(answers, "upstream_unavailable"), facts
    assert {name: fact[0] for name, fact in facts.items() if name in GATEWAY_TIMEOUTS} == dict.fromkeys(
        GATEWAY_TIMEOUTS, "protocol"), facts
    acted = {name: (facts[name][2], "may have" in said[name]) for name in timed_out}
    assert acted == dict.fromkeys(timed_out, (True, True)), (acted, said)
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == sorted(answers), sent


IDEMPOTENCY_REFUSALS = {
    "send_message": "409 Conflict: A request is outstanding for this Idempotency-Key",
    "create_refund": ("There is currently another in-progress request using this Stripe-Idempotency-Key (that probably "
                      "means you submitted twice, and the other request is still going through): FAKE-key-1. Please "
                      "try again later."),
    "send_email": ("Keys for idempotent requests can only be used with the same parameters they were first used with. "
                   "Try using a key other than 'FAKE-key-1' if you meant to execute a different request."),
}


async def test_j491_sessions_and_idempotency_keys_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J491 (J486's sessions across the relay: microsoft/vscode #301591, diegosouzapw/OmniRoute #5169; J492's refusals
    for an idempotency key relayed as a tool's text: the IETF idempotency-key draft's 409 "A request is outstanding for
    this Idempotency-Key", Stripe's in-progress and reused-key sentences). The relay read the sessions ``not_found`` and
    ``invalid_input``, the in-flight keys ``invalid_input`` and ``unknown``, the reused key ``unknown``. Now: the
    sessions ``upstream_unavailable``, never "may have taken effect"; a key still in flight ``upstream_unavailable``, may
    have taken effect (the first request may still act); a key reused with other parameters ``invalid_input``. Each call
    reached the upstream once."""
    texts = {**SESSIONS_NAMED, **IDEMPOTENCY_REFUSALS}
    host, log = relayed(tmp_path, {name: failed(text) for name, text in texts.items()})
    hosts.append(host)
    said = {name: " ".join(block.get("text", "") for block in call(host, request_id, name)["result"]["content"])
            for request_id, name in enumerate(texts, start=10)}
    host.close()
    facts = {}
    for name in texts:
        spans = await exported_spans(tmp_path / "out", f"tools/call {name}")
        assert len(spans) == 1, (name, spans)
        facts[name] = (spans[0].attributes.get(ERRSCOPE_FAILURE_CLASS), spans[0].attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE),
                       "may have" in said[name])
    assert facts == {
        **{name: ("upstream_unavailable", None, False) for name in SESSIONS_NAMED},
        "send_message": ("upstream_unavailable", True, True),
        "create_refund": ("upstream_unavailable", True, True),
        "send_email": ("invalid_input", None, False),
    }, (facts, said)
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == sorted(texts), sent
