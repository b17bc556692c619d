"""Client side of tests/heldout_cases.md, twenty-second round (J389-J396, J398): what foreign MCP servers relay when an
HTTP/2 stream was reset, a gRPC server was draining, a DNS server failed, or a forward proxy refused the ``CONNECT``
tunnel, in the words of the runtimes they are written in (.NET, Rust's hyper and h2, Node, Go, curl, httpx, libpq).

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text; every tool is a write with
no hints, so a repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import RetryPolicy, ToolClient

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.client.test_heldout_cases_20 import not_sent

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def may_have_acted(results: dict[str, Any]) -> None:
    """Each failure says the upstream may have acted: ``side_effect_possible`` and "may have taken effect"."""
    for name, result in results.items():
        assert result.side_effect_possible is True, (name, result)
        assert "may have taken effect" in result.text, (name, result.text)


# --- J389: .NET's words for an HTTP/2 stream reset -------------------------------------------------------------------

async def test_j389_dotnet_http2_stream_resets(tmp_path: Path, telemetry: Any) -> None:
    """J389 (dotnet/corefx PR #39047: REFUSED_STREAM "indicates that the stream has not been processed and should be
    retried"; .NET 7+'s ``HttpProtocolException``: "The HTTP/2 server reset the stream. HTTP/2 error code
    'REFUSED_STREAM' (0x7)."). A .NET server relays SocketsHttpHandler's HTTP/2 failures. They were ``unknown`` (the
    mapping-gap alert), and "sent invalid data … PROTOCOL_ERROR" ``invalid_input`` (the model told to fix its
    arguments). Read with the HTTP/2 code table (RFC 9113 §7): REFUSED_STREAM was closed before any processing (§8.7),
    not "may have"; INTERNAL_ERROR and PROTOCOL_ERROR on a request the server had may have come after it acted."""
    refused = await answered(tmp_path, telemetry, {
        "create_invoice": "System.Net.Http.HttpRequestException: An error occurred while sending the request. ---> "
                          "System.Net.Http.HttpProtocolException: The HTTP/2 server reset the stream. HTTP/2 error code "
                          "'REFUSED_STREAM' (0x7).",
    })
    all_of(refused, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(refused)
    (tmp_path / "acted").mkdir()
    acted = await answered(tmp_path / "acted", telemetry, {
        "post_ledger": "System.Net.Http.HttpProtocolException: The HTTP/2 server reset the stream. HTTP/2 error code "
                       "'INTERNAL_ERROR' (0x2).",
        "sync_orders": "System.Net.Http.HttpProtocolException: The HTTP/2 server sent invalid data on the connection. "
                       "HTTP/2 error code 'PROTOCOL_ERROR' (0x1).",
    })
    all_of(acted, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(acted)


# --- J390: hyper's, the h2 crate's and Node's words for the same codes -------------------------------------------------

async def test_j390_rust_and_node_http2_resets(tmp_path: Path, telemetry: Any) -> None:
    """J390 (JuliaWeb/HTTP.jl #1294 and PR #1298, lysine-dev/okhttp #6700, sindresorhus/got #1285: REFUSED_STREAM is
    "guaranteed unprocessed, hence safe to retry"; reqwest's "http2 error: stream error received: refused stream before
    processing any application logic", hyper's Debug ``Reset(StreamId(1), REFUSED_STREAM, Remote)``, Node's "Stream
    closed with error code NGHTTP2_CANCEL"). Rust and Node servers relay them. The h2 crate prints its description in
    place of the code's name: the refused ones were ``unknown``; Node's CANCEL and h2's INTERNAL_ERROR did not say
    whether the server had acted. Refused: never processed; the others may have acted."""
    refused = await answered(tmp_path, telemetry, {
        "send_payout": "error sending request for url (https://api.example.test/v1/payouts): http2 error: stream error "
                       "received: refused stream before processing any application logic",
        "book_slot": "hyper::Error(Http2, Error { kind: Reset(StreamId(1), REFUSED_STREAM, Remote) })",
    })
    all_of(refused, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(refused)
    (tmp_path / "acted").mkdir()
    acted = await answered(tmp_path / "acted", telemetry, {
        "send_sms": "http2 error: stream error received: unexpected internal error encountered",
        "upload_doc": "RequestError: Stream closed with error code NGHTTP2_CANCEL",
    })
    all_of(acted, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(acted)


# --- J391: httpx's HTTP/2 events relayed as text -----------------------------------------------------------------------

async def test_j391_httpx_h2_events_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J391 (encode/httpx #3463 and pydantic/httpx2 #876: "httpx.RemoteProtocolError: <StreamReset stream_id:1,
    error_code:ErrorCodes.INTERNAL_ERROR, remote_reset:True>"). A Python server that catches httpx's error relays
    ``str(exc)``: h2's event printed. On the exception errscope reads the event's ``error_code`` (INTERNAL_ERROR may
    have acted, REFUSED_STREAM not; a GOAWAY with ``last_stream_id`` 0 processed nothing, RFC 9113 §6.8); the same
    events as text said neither. Read with the same table."""
    acted = await answered(tmp_path, telemetry, {
        "charge_card": "httpx.RemoteProtocolError: <StreamReset stream_id:1, error_code:ErrorCodes.INTERNAL_ERROR, "
                       "remote_reset:True>",
        "post_entry": "<ConnectionTerminated error_code:ErrorCodes.INTERNAL_ERROR, last_stream_id:3, additional_data:None>",
    })
    all_of(acted, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(acted)
    (tmp_path / "none").mkdir()
    none = await answered(tmp_path / "none", telemetry, {
        "refund": "<ConnectionTerminated error_code:ErrorCodes.NO_ERROR, last_stream_id:0, additional_data:None>",
    })
    all_of(none, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(none)


# --- J392: a gRPC stream a draining server refused ------------------------------------------------------------------

async def test_j392_grpc_streams_a_server_never_took(tmp_path: Path, telemetry: Any) -> None:
    """J392 (grpc-go's ``statusGoAway``, "rpc error: code = Unavailable desc = the stream is rejected because server is
    draining the connection": a stream above the GOAWAY's last stream id, which grpc-go marks unprocessed and retries
    transparently; RFC 9113 §6.8; grpc-java's NettyClientHandler "Abrupt GOAWAY closed unsent stream", and
    stargate/stargate #2209 for its "sent stream" form). Go and Java servers relay them after their own retries.
    grpc-java's was read "may have taken effect" (by "GOAWAY"): its stream was never written. Guard: "… closed sent
    stream" may have been processed."""
    results = await answered(tmp_path, telemetry, {
        "transfer": "rpc error: code = Unavailable desc = the stream is rejected because server is draining the "
                    "connection",
        "reserve_seat": "io.grpc.StatusRuntimeException: UNAVAILABLE: Abrupt GOAWAY closed unsent stream. HTTP/2 error "
                        "code: NO_ERROR",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "sent").mkdir()
    sent = await answered(tmp_path / "sent", telemetry, {
        "book_room": "io.grpc.StatusRuntimeException: UNAVAILABLE: Abrupt GOAWAY closed sent stream. HTTP/2 error code: "
                     "NO_ERROR",
    })
    may_have_acted(sent)


# --- J393: a DNS server that failed to answer ------------------------------------------------------------------------

async def test_j393_dns_servfail_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J393 (rthalley/dnspython's ``NoNameservers``: "All nameservers failed to answer the query api.example.test. IN A:
    Server Do53:10.0.0.2@53 answered SERVFAIL"; Node's dns module over c-ares: "queryA ESERVFAIL api.example.test").
    A DNS tool and a Node server relay a resolver's SERVFAIL (RFC 1035 §4.1.1 RCODE 2): ``unknown`` until now, where
    the exceptions themselves are ``upstream_unavailable`` (dnspython's, aiodns'). The DNS server failed, not the
    name: no ``not_found``, and no "may have" (a query changes nothing)."""
    results = await answered(tmp_path, telemetry, {
        "lookup_mx": "dns.resolver.NoNameservers: All nameservers failed to answer the query mail.example.test. IN MX: "
                     "Server Do53:10.0.0.2@53 answered SERVFAIL",
        "resolve_host": "Error: queryA ESERVFAIL api.example.test",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J394: a forward proxy that refused the tunnel -------------------------------------------------------------------

async def test_j394_proxy_refused_the_tunnel(tmp_path: Path, telemetry: Any) -> None:
    """J394 (erebe/wstunnel #545: .NET's "The proxy tunnel request to proxy '…' failed with status code '…'."; undici's
    ProxyAgent "Proxy response (502) !== 200 when HTTP Tunneling"; curl's "CONNECT tunnel failed, response 502";
    vulnersCom/api PR #62, cubewise-code/tm1py #531). Servers behind an ``HTTPS_PROXY`` relay the proxy's refusal of
    ``CONNECT`` (RFC 9110 §9.3.6: any answer but a 2xx refuses the tunnel). The origin was never reached, whatever
    the status: a 502 or 503 from the proxy was read "may have taken effect" (as an origin's 502 would be). 407 is the
    proxy's credential refused (``permission_denied``), the others ``upstream_unavailable``."""
    results = await answered(tmp_path, telemetry, {
        "create_ticket": "System.Net.Http.HttpRequestException: The proxy tunnel request to proxy "
                         "'http://proxy.example.test:3128/' failed with status code '502'.",
        "post_message": "TypeError: fetch failed\n  [cause]: RequestAbortedError [AbortError]: Proxy response (502) !== "
                        "200 when HTTP Tunneling",
        "put_object": "curl: (56) CONNECT tunnel failed, response 503",
        "open_pr": "System.Net.Http.HttpRequestException: The proxy tunnel request to proxy "
                   "'http://proxy.example.test:3128/' failed with status code '407'.",
    })
    assert {name: result.failure_class for name, result in results.items()} == {
        "create_ticket": FailureClass.UPSTREAM_UNAVAILABLE,
        "post_message": FailureClass.UPSTREAM_UNAVAILABLE,
        "put_object": FailureClass.UPSTREAM_UNAVAILABLE,
        "open_pr": FailureClass.PERMISSION_DENIED,
    }
    not_sent(results)


# --- J395: Go's net/http printing only the proxy's reason phrase -------------------------------------------------------

async def test_j395_go_proxy_refusal_by_reason_phrase(tmp_path: Path, telemetry: Any) -> None:
    """J395 (erebe/wstunnel #544 and tinyproxy/tinyproxy #532: proxies refusing ``CONNECT``; Go's ``Transport.dialConn``
    returns a proxy's non-200 answer to ``CONNECT`` as an error of its reason phrase alone: 'Post "https://…": Proxy
    Authentication Required'). Go servers relay it. An origin's answer never becomes an error in net/http, so a
    ``url.Error`` of a reason phrase alone is the proxy's: never forwarded. "Bad Gateway" was read as an origin's 502
    that may have acted, "Forbidden" and "Proxy Authentication Required" as "not known"; now class by the phrase's
    status, not "may have"."""
    results = await answered(tmp_path, telemetry, {
        "create_charge": 'Post "https://api.example.test/v1/charges": Bad Gateway',
        "list_repos": 'Get "https://api.example.test/user/repos": Forbidden',
        "send_mail": 'Post "https://api.example.test/v3/mail/send": Proxy Authentication Required',
    })
    assert {name: result.failure_class for name, result in results.items()} == {
        "create_charge": FailureClass.UPSTREAM_UNAVAILABLE,
        "list_repos": FailureClass.PERMISSION_DENIED,
        "send_mail": FailureClass.PERMISSION_DENIED,
    }
    not_sent(results)


# --- J396: libpq's "before or while processing the request" ----------------------------------------------------------

async def test_j396_libpq_connection_closed_under_a_statement(tmp_path: Path, telemetry: Any) -> None:
    """J396 (ThetaTau/CMT #250, a COMMIT that failed so; uclouvain/osis-portal #1164, StatCan/aaw #776: "server closed the
    connection unexpectedly This probably means the server terminated abnormally before or while processing the
    request."). A server over
    PostgreSQL relays libpq's message after an UPDATE. It said "not known"; libpq's own words say the server may have
    been processing the statement: may have taken effect (DESIGN: reached, then dropped)."""
    results = await answered(tmp_path, telemetry, {
        "apply_discount": "psycopg2.OperationalError: server closed the connection unexpectedly\n\tThis probably means "
                          "the server terminated abnormally\n\tbefore or while processing the request.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(results)


# --- J398: the on-call path for a refused HTTP/2 stream ---------------------------------------------------------------

async def test_j398_explain_names_a_refused_stream_not_unknown(tmp_path: Path) -> None:
    """J398 (J389 on the on-call path: a user quoting "create_invoice failed … Ref ERR-…"). ``errscope explain`` on the
    sentence the model was shown finds the call and names ``upstream_unavailable`` (the outage panel), not ``unknown``
    (the mapping-gap alert on-call would have chased), and the span says nothing was done upstream."""
    from errscope._setup import configure_telemetry

    from tests.client.test_heldout_cases import failed, peer, tool
    from tests.client.test_oncall_explain import explain

    text = ("System.Net.Http.HttpProtocolException: The HTTP/2 server reset the stream. HTTP/2 error code "
            "'REFUSED_STREAM' (0x7).")
    params, log = peer(tmp_path, [tool("create_invoice")], {"create_invoice": failed(text)})
    host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
    try:
        async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tc:
            result = await tc.call_tool("create_invoice", {"customer": "C-1"})
    finally:
        host.shutdown()
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is not True, result
    said = explain(result.text, tmp_path)
    assert result.error_ref in said and "errscope.failure_class=upstream_unavailable" in said, said
    assert "failure_class=unknown" not in said, said
    assert len(log.received("tools/call")) == 1
