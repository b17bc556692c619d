"""Client side of tests/heldout_cases.md, tenth round (J191-J199): how long a refusal asks to wait, and the HTTP a
corporate network puts between a host and its MCP server.

``Retry-After`` as an HTTP-date, absurdly large or malformed; the IETF ``RateLimit`` fields without ``Retry-After``; a
corporate proxy's 407; an endpoint that moved (301 on a POST) or that sends one tool's calls elsewhere (308); a server
that asks, in the SSE ``retry:`` field, to be reconnected an hour later; ``errscope explain`` on a ref the client made
from an HTTP refusal; certificate failures in other runtimes' words; an answer an event store replays twice.

``ToolClient`` drives a real ``MCPServer`` over streamable HTTP on 127.0.0.1, behind an ASGI gate that answers what a
gateway, a rate limiter or a proxy answers (``tests/client/test_heldout_cases_3.py``); J209 uses the raw stdio peer
(``servers/heldout_peer.py``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context

from errscope import FailureClass, Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases import recorded
from tests.client.test_heldout_cases_3 import MemoryEventStore, answer, gated, issues_server, refusing

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def posts_calling(seen: list[bytes], tool_name: str) -> int:
    return sum(1 for body in seen if f'"{tool_name}"'.encode() in body)


async def refused_once(telemetry: Any, tool_name: str, status: int, body: bytes, *headers: tuple[bytes, bytes],
                       retry: RetryPolicy | None = None) -> tuple[Any, Any, list[bytes], float, Any]:
    """Call ``tool_name`` through a gate that refuses it with ``status``/``headers``, then ``status``; returns the
    refused result, the next call's, the refused request bodies, the refused call's duration and the server."""
    from tests.client.servers.app import serve

    server = issues_server()
    seen: list[bytes] = []
    gate = refusing(tool_name, status, body, *headers, seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=retry, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool(tool_name, {"query": "crash"})
            elapsed = time.monotonic() - started
            after = await tc.call_tool("status", {})
    return result, after, seen, elapsed, server


async def test_j191_retry_after_as_an_http_date(telemetry: Any) -> None:
    """J191 (RFC 9110 §10.2.3: ``Retry-After`` is delay-seconds *or* an HTTP-date; AstroVela/vane PR #170 review, a
    ``float()``-only parser took ``Thu, 13 Aug 2026 15:37:13 GMT`` as malformed and retried early; marqov-dev/marqov-sdk
    PR #95, the date form became ``retry_after=None``; acmesh-official/acme.sh #7201). A 429 whose ``Retry-After`` is a
    date 40 s ahead: ``rate_limited``, the wait read from the date (about 40 s, never the default), not run, one POST
    (40 s is more than the client waits out itself), and the next call works."""
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=40), usegmt=True)
    result, after, seen, elapsed, server = await refused_once(
        telemetry, "search_issues", 429, b"Too Many Requests", (b"retry-after", when.encode()))
    assert result.failure_class is FailureClass.RATE_LIMITED and result.side_effect_possible is False, result
    assert result.retry_after is not None and 30 <= result.retry_after <= 41, result.retry_after
    # The ref is random letters and digits (it can spell GMT): the date is looked for in the rest.
    assert "GMT" not in result.text.replace(result.error_ref, "") and "Ref ERR-" in result.text, result.text
    assert posts_calling(seen, "search_issues") == 1 and server.ran == [] and elapsed < 5
    assert after.text == "up"


@pytest.mark.parametrize(("value", "longest"), [
    ("99999999999", 86400.0),  # 3,000 years: a misconfigured limiter
    ("-3", 0.0),  # not delay-seconds (RFC 9110 §10.2.3: 1*DIGIT); JavaScript's Date.parse reads it as a year
    ("1.5", 1.5),  # not delay-seconds either; lenient readers take 1.5
    ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0),  # a date in the past: no wait at all
])
async def test_j192_an_absurd_or_malformed_retry_after(telemetry: Any, value: str, longest: float) -> None:
    """J192 (PostHog/posthog PR #62861: ``Retry-After`` honoured unconditionally slept a tool call for an hour, three
    times; mastra-ai/mastra #23778: ``-3`` and ``1.5`` parsed as years, every retry stalled for the cap;
    smart-mcp-proxy/mcpproxy-go PR #1042 caps the window). The refusal is ``rate_limited`` and not run; the wait
    errscope reports is never negative nor longer than a day, the model text quotes no absurd number, and the call
    ends well inside its timeout (no silent sleep on a value nobody can act on)."""
    result, after, seen, elapsed, server = await refused_once(
        telemetry, "search_issues", 429, b"Too Many Requests", (b"retry-after", value.encode()))
    assert result.failure_class is FailureClass.RATE_LIMITED and result.side_effect_possible is False, result
    assert result.retry_after is None or 0 <= result.retry_after <= longest, result.retry_after
    assert "99999999999" not in result.text and "Ref ERR-" in result.text, result.text
    assert server.ran == [] and elapsed < 5, (server.ran, elapsed)
    assert after.text == "up"


@pytest.mark.parametrize("headers", [
    # draft-ietf-httpapi-ratelimit-headers-09 and later: structured fields, `t` = seconds until quota resets
    ((b"ratelimit-policy", b'"default";q=100;w=60'), (b"ratelimit", b'"default";r=0;t=25')),
    # the older drafts (-03 to -07) that express-rate-limit and Kong still send
    ((b"ratelimit-limit", b"100"), (b"ratelimit-remaining", b"0"), (b"ratelimit-reset", b"25")),
], ids=["structured", "draft-07"])
async def test_j193_ietf_ratelimit_fields_without_retry_after(telemetry: Any, headers: tuple[tuple[bytes, bytes], ...]) -> None:
    """J193 (modelcontextprotocol/typescript-sdk #1892: "Neither ``Retry-After`` nor the IETF draft-standard
    ``RateLimit-*`` headers are read"; auth0/go-auth0 #258, the reset header ignored). A 429 that says when the quota
    resets only in the IETF ``RateLimit`` fields: the wait (25 s) is read from them, as ``Retry-After`` would be."""
    result, after, seen, elapsed, server = await refused_once(telemetry, "search_issues", 429, b"Too Many Requests", *headers)
    assert result.failure_class is FailureClass.RATE_LIMITED and result.side_effect_possible is False, result
    assert result.retry_after is not None and 20 <= result.retry_after <= 25, result.retry_after
    assert "25 s" in result.text, result.text
    assert posts_calling(seen, "search_issues") == 1 and server.ran == []
    assert after.text == "up"


PROXY_PAGE = (b"<html><head><title>407 Proxy Authentication Required</title></head><body>Access to FAKE-corp proxy "
              b"denied for user FAKE\\jdoe, session=FAKE-PROXY-SESSION-7</body></html>")


async def test_j194_a_corporate_proxy_answering_407(telemetry: Any) -> None:
    """J194 (google/mcp-security #198 and MicrosoftDocs/mcp #5: MCP hosts behind corporate proxies failing with
    transport wording; RFC 9110 §15.5.8: 407 is 401's twin for the proxy, "the client needs to authenticate itself in
    order to use a proxy"). The proxy refused the request before it reached the server: ``permission_denied`` (a
    credential to set, not an outage a retry fixes), not run, sent once, and no realm, user or session from the
    proxy's page reaches the model or telemetry."""
    result, after, seen, elapsed, server = await refused_once(
        telemetry, "search_issues", 407, PROXY_PAGE,
        (b"proxy-authenticate", b'Basic realm="FAKE-corp-proxy"'), (b"content-type", b"text/html"),
        retry=RetryPolicy())
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert posts_calling(seen, "search_issues") == 1 and elapsed < 5
    for fragment in ("FAKE-corp-proxy", "FAKE-PROXY-SESSION-7", "jdoe", "<html"):
        assert fragment not in result.text and fragment not in recorded(telemetry), fragment
    assert "Ref ERR-" in result.text and after.text == "up"


async def test_j195_an_endpoint_that_moved_with_301(telemetry: Any) -> None:
    """J195 (modelcontextprotocol/modelcontextprotocol #2755: a POST answered ``301`` to ``https://`` was followed as a
    bodiless GET, the server answered 400, and clients looped through discovery for days; nasa/earthdata-mcp #50;
    modelcontextprotocol/python-sdk PR #3397: a POST follows only a same-origin 307/308). Every POST to ``/mcp`` gets
    ``301 Moved Permanently`` to ``/v2/mcp``: the call fails within seconds as not run, with a ref and a class (not the
    mapping gap), no HTML, and the client does not loop (a bounded number of requests)."""
    from tests.client.servers.app import serve

    server = issues_server()
    requests: list[str] = []
    moved = b"<html><body><h1>301 Moved Permanently</h1><hr>nginx</body></html>"

    async def gate(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        requests.append(f"{method} {scope['path']}")
        if scope["path"] == "/mcp":
            return await answer(send, 301, moved, (b"location", b"/v2/mcp"), (b"content-type", b"text/html"))
        return False

    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=4, connect_timeout=4, retry=RetryPolicy(), **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("search_issues", {"query": "crash"})
            elapsed = time.monotonic() - started
    assert result.outcome is Outcome.ERROR and result.side_effect_possible is False, result
    assert result.failure_class is not FailureClass.UNKNOWN, result
    assert elapsed < 6 and len(requests) <= 12, (elapsed, requests)
    assert server.ran == [] and "<html" not in result.text and "Ref ERR-" in result.text, result.text


async def test_j196_one_tools_calls_sent_elsewhere_with_308(telemetry: Any) -> None:
    """J196 (danny-avila/LibreChat #12849: Coda's MCP server answers document-scoped tool calls with ``308 Permanent
    Redirect`` to ``/apis/mcp/docs/{id}``; a client that did not follow it failed every such call with an empty error;
    RFC 9110 §15.4.9: 308 keeps the method and body). The 308 on the same origin is followed with its body: the
    call answers, and the tool ran exactly once."""
    from tests.client.servers.app import serve

    server = issues_server()
    redirected: list[str] = []

    async def gate(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        if scope["path"] == "/mcp" and method == "POST" and b'"search_issues"' in body:
            return await answer(send, 308, b"", (b"location", b"/mcp/docs/FAKE-42"))
        if scope["path"].startswith("/mcp/docs/"):
            redirected.append(method)
            scope["path"], scope["raw_path"] = "/mcp", b"/mcp"  # the document's endpoint: the same server here
        return False

    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=None, **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert (result.outcome, result.text) == (Outcome.OK, "3 issues match crash"), result
    assert server.ran == ["crash"] and redirected == ["POST"], (server.ran, redirected)


async def test_j197_a_server_asking_to_be_reconnected_an_hour_later(telemetry: Any) -> None:
    """J197 (modelcontextprotocol/ruby-sdk PR #504: a server that primes a stream, closes it and sends a large
    ``retry:`` kept the caller waiting as long as it liked, since no I/O timeout covers a sleep;
    modelcontextprotocol/typescript-sdk PR #2673: a sticky ``retry`` "could stall reconnects for days"). The tool
    closes its SSE stream after the priming event, whose ``retry:`` is one hour, then finishes. The call ends by the
    client's own deadline as a timeout that may have run (the tool did run, once), the POST is never re-sent, and
    the next call on the client answers."""
    from mcp.server.mcpserver import MCPServer

    from tests.client.servers.app import serve

    server = MCPServer("reports")
    runs: list[str] = []
    posts: list[bytes] = []

    @server.tool()
    async def export_report(month: str, ctx: Context) -> str:
        runs.append(month)
        await ctx.close_sse_stream()
        await anyio.sleep(0.3)
        return f"report {month} exported"

    @server.tool()
    def status() -> str:
        return "up"

    async def watch(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        if method == "POST" and b'"export_report"' in body:
            posts.append(body)
        return False

    app = server.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=3_600_000)
    async with serve(gated(app, watch)) as base:
        async with ToolClient(base + "/mcp", timeout=2, retry=RetryPolicy(), mode="legacy", **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("export_report", {"month": "2026-01"})
            elapsed = time.monotonic() - started
            with anyio.fail_after(10):
                after = await tc.call_tool("status", {})
    if result.outcome is not Outcome.OK:  # a client may also resume at once; it must not wait the hour
        assert result.outcome is Outcome.TIMEOUT and result.side_effect_possible is not False, result
    assert elapsed < 6, elapsed
    assert runs == ["2026-01"] and len(posts) == 1, (runs, len(posts))
    assert after.text == "up"


async def test_j198_explain_a_ref_the_client_made_from_a_refusal(tmp_path: Path) -> None:
    """J198 (the on-call path when no server span exists: a gateway's 429 never reached an instrumented server, so the
    client's ref is the only thread; modelcontextprotocol/typescript-sdk #1892, the status and wait were lost before
    any code saw them). ``errscope explain`` on the ref the model quoted (with the sentence's full stop) finds the
    client's attempt and shows the class, the HTTP status and the wait."""
    from errscope._explain import find_chains, render
    from errscope._otlp_json import load
    from errscope._setup import configure_telemetry
    from tests.client.servers.app import serve

    out = tmp_path / "telemetry"
    exported = configure_telemetry("host-test", output_dir=out, set_global=False)
    server = issues_server()
    gate = refusing("search_issues", 429, b"Too Many Requests", (b"retry-after", b"45"))
    try:
        async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
            async with ToolClient(base + "/mcp", timeout=5, tracer_provider=exported.tracer_provider,
                                  meter_provider=exported.meter_provider) as tc:
                result = await tc.call_tool("search_issues", {"query": "crash"})
    finally:
        exported.shutdown()
    assert result.error_ref and f"{result.error_ref}" in result.text
    (chain,) = find_chains(load(out), result.error_ref + ".")
    text = render(chain)
    assert "rate_limited" in text and "429" in text and "45" in text, text


CERTIFICATE_FAILURES = {
    # Node (elastic/mcp-server-elasticsearch #65, jspm/project #311): the name is not in the certificate
    "search_logs": "Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: Host: "
                   "es.FAKE-corp.example. is not in the cert's altnames: DNS:*.other.example",
    # node-fetch and Node's own code (AuraFriday/Fusion-360-MCP-Server #6: "mcp-remote fails with CERT_HAS_EXPIRED")
    "get_invoice": "request to https://billing.FAKE-corp.example/v1/invoices failed, reason: certificate has expired",
    "get_receipt": "CERT_HAS_EXPIRED",
    # Java (skshukla/tlsdemo #2, google/conscrypt #852: a corporate proxy re-signing HTTPS)
    "create_lead": 'I/O error on POST request for "https://crm.FAKE-corp.example/api/leads": PKIX path building failed: '
                   "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path "
                   "to requested target",
    "update_lead": "javax.net.ssl.SSLHandshakeException: No subject alternative DNS name matching crm.FAKE-corp.example found.",
    "close_lead": "java.security.cert.CertificateExpiredException: NotAfter: Mon Jan 05 23:59:59 UTC 2026",
    # .NET
    "book_room": "The SSL connection could not be established, see inner exception. The remote certificate is invalid "
                 "because of errors in the certificate chain: NotTimeValid",
    "free_room": "The remote certificate is invalid according to the validation procedure: RemoteCertificateNameMismatch",
    # Rust (rustls) and curl
    "sync_repo": "invalid peer certificate: NotValidForName",
    "fetch_feed": "curl: (60) SSL certificate problem: certificate has expired",
    "fetch_page": "curl: (60) SSL: no alternative certificate subject name matches target host name 'api.FAKE-corp.example'",
}


async def test_j209_certificate_failures_in_other_runtimes_words(tmp_path: Path) -> None:
    """J209 (elastic/mcp-server-elasticsearch #65: a tool's error "Hostname/IP does not match certificate's altnames";
    AuraFriday/Fusion-360-MCP-Server #6: ``CERT_HAS_EXPIRED``; skshukla/tlsdemo #2 and google/conscrypt #852: Java's
    "PKIX path building failed" behind a re-signing proxy). Foreign servers' tools relay their upstream's certificate
    failure, expired or issued for another name, in Node's, Java's, .NET's, rustls' and curl's words. Each is
    ``upstream_unavailable`` (the upstream could not be reached securely), never ``unknown`` nor the caller's
    ``invalid_input`` that "INVALID" and "NotValidForName" would suggest."""
    from tests.client.test_heldout_cases import failed, peer, tool

    params, _ = peer(tmp_path, [tool(name) for name in CERTIFICATE_FAILURES],
                     {name: failed(text) for name, text in CERTIFICATE_FAILURES.items()})
    async with ToolClient(params, timeout=5, retry=None) as tc:
        classes = {name: (await tc.call_tool(name, {})).failure_class for name in CERTIFICATE_FAILURES}
    assert classes == dict.fromkeys(CERTIFICATE_FAILURES, FailureClass.UPSTREAM_UNAVAILABLE), classes


class TwiceReplayingEventStore(MemoryEventStore):
    """An at-least-once event store (a Redis stream read by two consumers, a retried write): every event it replays,
    it sends twice."""

    def __init__(self) -> None:
        super().__init__()
        self.sent_twice: list[Any] = []

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        async def twice(event: Any) -> None:
            self.sent_twice.append(event)
            await send_callback(event)
            await send_callback(event)

        return await super().replay_events_after(last_event_id, twice)


async def test_j210_an_answer_replayed_twice_on_resume_counts_once(telemetry: Any) -> None:
    """J210 (MCP 2025-11-25, Transports > Resumability and Redelivery: the server replays what the client missed after
    ``Last-Event-ID``; an at-least-once event store sends it twice; J12: two answers for one request). The tool closes
    its stream after the priming event and answers while the client waits its ``retry:`` interval; on the resumed
    stream the store sends the answer twice. The call is one success: one POST, the tool ran once, one client span and
    one metric point, both ``ok``, and no late-answer or failure record for the duplicate."""
    from mcp.server.mcpserver import MCPServer

    from tests.client.servers.app import serve

    server = MCPServer("reports")
    runs: list[str] = []
    posts: list[bytes] = []

    @server.tool()
    async def export_report(month: str, ctx: Context) -> str:
        runs.append(month)
        await ctx.close_sse_stream()
        await anyio.sleep(0.1)
        return f"report {month} exported"

    async def watch(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        if method == "POST" and b'"export_report"' in body:
            posts.append(body)
        return False

    store = TwiceReplayingEventStore()
    app = server.streamable_http_app(host="127.0.0.1", event_store=store, retry_interval=600)
    async with serve(gated(app, watch)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=RetryPolicy(), mode="legacy", **telemetry.providers) as tc:
            result = await tc.call_tool("export_report", {"month": "2026-01"})
            await anyio.sleep(0.5)  # room for the duplicate to be read
            after = await tc.call_tool("export_report", {"month": "2026-02"})
    assert (result.outcome, result.text) == (Outcome.OK, "report 2026-01 exported"), result
    assert any("2026-01 exported" in str(event) for event in store.sent_twice), store.sent_twice  # it was replayed
    assert after.outcome is Outcome.OK and runs == ["2026-01", "2026-02"] and len(posts) == 2, (after, runs, len(posts))
    spans = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert all(s.attributes.get("errscope.outcome") in (None, "ok") for s in spans), [dict(s.attributes) for s in spans]
    assert len(spans) == 2 and not any(s.attributes.get("errscope.failure_class") for s in spans)
    points = telemetry.histogram_points("mcp.client.operation.duration")
    assert sum(p.count for p in points) == 2, points
    assert "late" not in recorded(telemetry).lower(), recorded(telemetry)


async def test_j212_an_endpoint_that_redirects_to_itself(telemetry: Any) -> None:
    """J212 (elastic/docs-builder PR #2728: an MCP endpoint's redirect to itself, "an infinite 301 loop", with Cursor
    stuck in "Loading tools" / "fetch failed"; the same loop for the POST a ``tools/call`` rides on). Once the session
    is open, every POST calling ``search_issues`` gets ``307`` to the same URL: the client's HTTP stack gives up
    (``TooManyRedirects``). The call fails at once as ``upstream_unavailable`` that did not run (every answer was a
    redirect), with a ref; the session survives and the next call answers."""
    from tests.client.servers.app import serve

    server = issues_server()
    loops: list[float] = []

    async def gate(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        if method == "POST" and b'"search_issues"' in body:
            loops.append(time.monotonic())
            return await answer(send, 307, b"", (b"location", b"/mcp"))
        return False

    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=RetryPolicy(), **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("search_issues", {"query": "crash"})
            elapsed = time.monotonic() - started
            after = await tc.call_tool("status", {})
    assert result.outcome is Outcome.ERROR and result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and "Ref ERR-" in result.text, result
    assert server.ran == [] and elapsed < 5 and len(loops) <= 3 * 21, (server.ran, elapsed, len(loops))
    assert after.text == "up"
