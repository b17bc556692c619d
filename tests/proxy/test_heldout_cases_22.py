"""``errscope proxy`` side of tests/heldout_cases.md, twenty-second round (J397): J389-J394's words across the relay.

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


async def test_j397_http2_resets_dns_and_proxy_refusals_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J397 (J389-J394 across the relay: dotnet/corefx PR #39047, JuliaWeb/HTTP.jl #1294, encode/httpx #3463, grpc-go's
    statusGoAway, dnspython's NoNameservers, erebe/wstunnel #545). The relay's spans take the client's classes (.NET's
    refused stream and the DNS server's failure were ``unknown``); a stream refused before processing and a tunnel the
    proxy refused are not "may have taken effect" on the relay's span, an HTTP/2 INTERNAL_ERROR is; each call reached
    the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "create_invoice": "System.Net.Http.HttpProtocolException: The HTTP/2 server reset the stream. HTTP/2 error code "
                          "'REFUSED_STREAM' (0x7).",
        "send_payout": "http2 error: stream error received: refused stream before processing any application logic",
        "charge_card": "httpx.RemoteProtocolError: <StreamReset stream_id:1, error_code:ErrorCodes.INTERNAL_ERROR, "
                       "remote_reset:True>",
        "lookup_mx": "dns.resolver.NoNameservers: All nameservers failed to answer the query mail.example.test. IN MX: "
                     "Server Do53:10.0.0.2@53 answered SERVFAIL",
        "create_ticket": "System.Net.Http.HttpRequestException: The proxy tunnel request to proxy "
                         "'http://proxy.example.test:3128/' failed with status code '502'.",
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes
    for name in ("create_invoice", "send_payout", "create_ticket"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
    span = (await exported_spans(tmp_path / "out", "tools/call charge_card"))[0]
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True, dict(span.attributes)
