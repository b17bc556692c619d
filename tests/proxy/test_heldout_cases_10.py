"""``errscope proxy`` side of tests/heldout_cases.md, tenth round (J206-J208, J213): how long a refusal asks to wait, and a
corporate proxy's 407 and a redirect loop, carried across the relay to the host; ``errscope explain`` on the ref the relay
made.

The upstream is a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind an ASGI gate (what a rate limiter or a
proxy answers); the relay is the real ``errscope proxy`` command as a subprocess (stdio to the host with
``--upstream URL``, or HTTP with ``--listen``); the host is ``ToolClient``.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope.client import ToolClient
from tests.proxy.conftest import ROOT, free_port, proxy_command, serving, telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]


def _http_date(seconds: int) -> bytes:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds), usegmt=True).encode()


@pytest.mark.parametrize(("headers", "low", "high"), [
    (((b"retry-after", b"DATE+50"),), 40, 51),
    (((b"ratelimit", b'"default";r=0;t=35'), (b"ratelimit-policy", b'"default";q=100;w=60')), 35, 35),
    (((b"ratelimit-remaining", b"0"), (b"ratelimit-reset", b"35")), 35, 35),
], ids=["http-date", "structured", "draft-07"])
async def test_j206_a_429_s_wait_in_any_form_behind_a_stdio_proxy(tmp_path: Path, headers: tuple[tuple[bytes, bytes], ...],
                                                                   low: float, high: float) -> None:
    """J206 (smart-mcp-proxy/mcpproxy-go PR #1042: the relay keeps ``Retry-After`` "in both RFC forms"; typescript-sdk
    #1892: the IETF ``RateLimit`` fields were read by no one; AstroVela/vane PR #170: the date form taken as
    malformed). A stdio host reaches an HTTP upstream through ``errscope proxy --upstream URL``; the upstream's
    limiter refuses ``tools/call`` with 429 and says when to come back only as an HTTP-date, or only in the
    ``RateLimit`` fields. The host reads ``rate_limited`` with that wait and a call that did not run; ``errscope
    explain`` on the ref the host's text quotes shows the 429 and the class."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    headers = tuple((k, _http_date(50) if v == b"DATE+50" else v) for k, v in headers)
    server = issues_server()
    limiter = refusing("search_issues", 429, b"Too Many Requests", *headers)
    out = tmp_path / "relay"
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), limiter)) as base:
        command = proxy_command(out, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
            after = await tc.call_tool("status", {})
    assert server.ran == [] and after.text == "up"
    assert result.failure_class is FailureClass.RATE_LIMITED and result.side_effect_possible is False, result.text
    assert result.retry_after is not None and low <= result.retry_after <= high, (result.retry_after, result.text)
    quoted = result.text[result.text.rindex("ERR-"):].split()[0]  # as the user copies it, punctuation and all
    explained = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", quoted, "--from", str(out)],
                               capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert explained.returncode == 0, (quoted, explained.stderr)
    assert "rate_limited" in explained.stdout and "429" in explained.stdout, explained.stdout


PROXY_PAGE = (b"<html><title>407 Proxy Authentication Required</title><body>FAKE corp gateway: user FAKE\\jdoe, "
              b"ticket FAKE-PROXY-TICKET-77</body></html>")
PROXY_HEADERS = ((b"proxy-authenticate", b'Negotiate, Basic realm="FAKE-corp-gw"'), (b"content-type", b"text/html"))


async def test_j207_a_corporate_proxy_s_407_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J207 (google/mcp-security #198 and MicrosoftDocs/mcp #5: hosts behind corporate proxies; RFC 9110 §15.5.8). The
    HTTP upstream sits behind a proxy that answers ``tools/call`` with 407; a stdio host reaches it through
    ``errscope proxy --upstream``. The host reads ``permission_denied`` (a setting to change), not run, and neither
    the host's text nor the relay's telemetry holds the proxy's realm, user or ticket."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    server = issues_server()
    out = tmp_path / "relay"
    gate = refusing("search_issues", 407, PROXY_PAGE, *PROXY_HEADERS)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        command = proxy_command(out, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
            after = await tc.call_tool("status", {})
    assert server.ran == [] and after.text == "up"
    assert result.failure_class is FailureClass.PERMISSION_DENIED and result.side_effect_possible is False, result.text
    recorded = telemetry_text(out)
    for fragment in ("FAKE-corp-gw", "FAKE-PROXY-TICKET-77", "jdoe"):
        assert fragment not in result.text and fragment not in recorded, fragment


async def test_j208_a_corporate_proxy_s_407_across_an_http_relay(tmp_path: Path) -> None:
    """J208 (the same reports; punkpeye/mcp-proxy and smart-mcp-proxy/mcpproxy-go relays passing HTTP refusals on).
    Through ``errscope proxy --listen`` the upstream's 407 reaches the host's client, which reads
    ``permission_denied`` that did not run, sends it once, and keeps serving the next call."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    server = issues_server()
    seen: list[bytes] = []
    gate = refusing("search_issues", 407, PROXY_PAGE, *PROXY_HEADERS, seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        listen = free_port()
        with serving(proxy_command(tmp_path, "--upstream", base + "/mcp", "--listen", f"127.0.0.1:{listen}"), listen):
            async with ToolClient(f"http://127.0.0.1:{listen}/mcp", timeout=5) as tc:
                result = await tc.call_tool("search_issues", {"query": "crash"})
                after = await tc.call_tool("status", {})
    assert server.ran == [] and len(seen) == 1 and after.text == "up"
    assert result.failure_class is FailureClass.PERMISSION_DENIED and result.side_effect_possible is False, result.text
    assert "FAKE-PROXY-TICKET-77" not in result.text and "FAKE-corp-gw" not in result.text


async def test_j213_an_endpoint_redirecting_a_call_to_itself_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J213 (elastic/docs-builder PR #2728, modelcontextprotocol/python-sdk PR #3397: the SDK under the relay fails a
    request whose redirect it will not follow with -32600 "Redirect to … not followed"). Behind ``errscope proxy
    --upstream``, every POST calling ``search_issues`` gets ``307`` to itself. The stdio host reads
    ``upstream_unavailable`` that did not run (an invalid request of the host's it is not: its arguments were
    fine), and the next call works."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    server = issues_server()
    out = tmp_path / "relay"
    gate = refusing("search_issues", 307, b"", (b"location", b"/mcp"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        command = proxy_command(out, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
            after = await tc.call_tool("status", {})
    assert server.ran == [] and after.text == "up"
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result.text
    assert result.side_effect_possible is False and "Ref ERR-" in result.text, result.text


async def test_a_gateways_503_behind_a_stdio_proxy_is_an_http_upstream_event(tmp_path: Path) -> None:
    """Behind ``errscope proxy --upstream``, a gateway answers ``tools/call`` with a plain-text 503 (Envoy's words):
    the call's span and log record name the HTTP answer as the upstream event (system ``http``, status ``503``), not
    the relay's default ``mcp``, so the triage view shows what on-call must look at."""
    import json

    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    server = issues_server()
    out = tmp_path / "relay"
    body = b"upstream connect error or disconnect/reset before headers. reset reason: connection failure"
    gate = refusing("search_issues", 503, body, (b"content-type", b"text/plain"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        command = proxy_command(out, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5, retry=None) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and server.ran == [], result.text
    spans = [
        {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
        for line in (out / "traces.jsonl").read_text().splitlines()
        for rs in json.loads(line)["resourceSpans"] for ss in rs["scopeSpans"] for span in ss["spans"]
    ]
    records = [
        {a["key"]: next(iter(a["value"].values())) for a in record["attributes"]}
        for line in (out / "logs.jsonl").read_text().splitlines()
        for rl in json.loads(line)["resourceLogs"] for sl in rl["scopeLogs"] for record in sl["logRecords"]
    ]
    for exported in (spans, records):
        (attributes,) = [a for a in exported if a.get("errscope.error_ref") == result.error_ref]
        assert (attributes["errscope.upstream.system"], attributes["errscope.upstream.status"]) == ("http", "503")
