"""Client side of tests/heldout_cases.md, twentieth round (J364, J365, J367-J369, J371, J373, J374): what foreign MCP
servers relay when the service behind them failed in its own protocol's words (OpenAI's Responses API's 424 Failed
Dependency, Go's resolver timing out and net/http giving up before it had a connection, a gRPC message over its size
limit, GitHub's rate limits answered as 403), the pages a router answers when it has no backend for an MCP server
(Traefik, OpenShift), a keyword connection string whose password has spaces, and the on-call path for one of them.

J364/J365/J367/J368/J371: the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it (``answered`` checks each was sent once). J369/J373: ``ToolClient`` drives a real ``MCPServer``
over streamable HTTP on 127.0.0.1 behind an ASGI gate that answers as the router does
(``tests/client/test_heldout_cases_3.py``). J374: ``errscope explain`` over the host's exported telemetry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import RetryPolicy, ToolClient

from tests.client.test_heldout_cases import failed, peer, tool
from tests.client.test_heldout_cases_3 import Gate, answer, gated, issues_server
from tests.client.test_heldout_cases_10 import posts_calling, refused_once
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.server.test_heldout_cases import everything_recorded

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

HTML = (b"content-type", b"text/html; charset=UTF-8")


def not_sent(results: dict[str, Any]) -> None:
    """Each failure says nothing was done upstream: no "may have taken effect"."""
    for name, result in results.items():
        assert result.side_effect_possible is not True, (name, result)
        assert "may have" not in result.text, (name, result.text)


# --- J364: OpenAI's Responses API answering 424 Failed Dependency, relayed --------------------------------------------

async def test_j364_a_failed_dependency_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J364 (microsoft/agent-framework #1210: "MCP Connector error. Http status: 424, error details: Error retrieving tool
    list from MCP server: 'Generic_MCP_Server'. Http status code: 424 (Failed Dependency)"; agentgateway/agentgateway #383
    and RageAgainstThePixel/OpenAI-DotNet #486, the same 424 from OpenAI's JavaScript and .NET clients). An agent
    server whose tool asks OpenAI's Responses API to use a remote MCP server relays the API's refusal. RFC 4918 §11.4:
    424 says the method could not be performed because an action it depended on failed: a service behind the one
    asked is out of reach (``upstream_unavailable``, not the ``unknown`` alert), and nothing was performed."""
    results = await answered(tmp_path, telemetry, {
        "ask_agent": "MCP Connector error. Http status: 424, error details: Error retrieving tool list from MCP server: "
                     "'Generic_MCP_Server'. Http status code: 424 (Failed Dependency)",
        "plan_trip": "APIError: 424 Error retrieving tool list from MCP server: 'agentgateway'. Http status code: 424 "
                     "(Failed Dependency)",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J365: a name that never resolved, a connection never had -------------------------------------------------------

async def test_j365_go_and_node_words_for_a_request_never_sent(tmp_path: Path, telemetry: Any) -> None:
    """J365 (cyfdecyf/cow #352 "dial tcp: lookup wenku.baidu.com on 8.8.8.8:53: read udp …: i/o timeout" and
    HyNetworks/hysteria #726 "lookup abcgames.com on …:53: read udp …: i/o timeout": Go's resolver timing out;
    docker/for-linux #1078, docker/for-win #5983, DeepVAC/TorchPod #64: net/http's "request canceled while waiting for
    connection (Client.Timeout exceeded while awaiting headers)", its errRequestCanceledConn; Node's "getaddrinfo
    EAI_AGAIN"; github/github-mcp-server #2037 and go-github's RateLimitError "…, not making remote request"). Go and Node
    MCP servers relay them. Each says the request was never written: the name did not resolve, no connection was had,
    the client refused to send. ``upstream_unavailable`` (the last ``rate_limited``) and not "may have taken effect":
    Go's "i/o timeout" and "Client.Timeout" alone read as a wait for an answer."""
    results = await answered(tmp_path, telemetry, {
        "sync_repo": 'Get "https://registry.example.test/v2/": dial tcp: lookup registry.example.test on 10.0.0.2:53: '
                     'read udp 10.0.0.9:43426->10.0.0.2:53: i/o timeout',
        "fetch_feed": "resolve error: lookup feeds.example.test: i/o timeout",
        "pull_image": 'Error response from daemon: Get "https://registry.example.test/v2/": net/http: request canceled '
                      'while waiting for connection (Client.Timeout exceeded while awaiting headers)',
        "post_note": "Error: getaddrinfo EAI_AGAIN api.example.test",
        "create_issue": 'failed to create issue: POST https://api.github.com/repos/o/r/issues: 403 API rate limit of 5000 '
                        'still exceeded until 2026-07-01 12:00:00 +0000 UTC, not making remote request. '
                        '[rate reset in 9m12s]',
    })
    assert {name: result.failure_class for name, result in results.items()} == {
        "sync_repo": FailureClass.UPSTREAM_UNAVAILABLE,
        "fetch_feed": FailureClass.UPSTREAM_UNAVAILABLE,
        "pull_image": FailureClass.UPSTREAM_UNAVAILABLE,
        "post_note": FailureClass.UPSTREAM_UNAVAILABLE,
        "create_issue": FailureClass.RATE_LIMITED,
    }
    not_sent(results)


async def test_j365_guard_a_timeout_waiting_for_the_answer_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J365's guard: net/http's "request canceled (Client.Timeout exceeded while awaiting headers)" without "while
    waiting for connection", and a read on an open connection timing out, came after the request was written: the
    upstream may have acted."""
    results = await answered(tmp_path, telemetry, {
        "post_payment": 'Post "https://pay.example.test/v1/charges": net/http: request canceled (Client.Timeout exceeded '
                        'while awaiting headers)',
        "post_refund": 'Post "https://pay.example.test/v1/refunds": read tcp 10.0.0.5:51234->10.0.0.7:443: i/o timeout',
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for name, result in results.items():
        assert result.side_effect_possible is True, (name, result)


# --- J367: a gRPC message over its size limit, relayed ---------------------------------------------------------------

async def test_j367_a_grpc_message_over_its_size_limit_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J367 (grpc/grpc-node #1093 "Error: 8 RESOURCE_EXHAUSTED: Received message larger than max (4794074 vs. 4194304)";
    enfein/mieru #166 and zeromicro/go-zero #3494, grpc-go's "rpc error: code = ResourceExhausted desc = grpc: received
    message larger than max (4977817 vs. 4194304)"; grpc/grpc-dotnet #1962, 'Status(StatusCode="ResourceExhausted",
    Detail="Received message exceeds the maximum configured message size.")'; J366 relayed). RESOURCE_EXHAUSTED is also
    every gRPC runtime's status for a message over its size limit: no wait makes it fit (``rate_limited`` sent the
    model to retry the same call later); a smaller request or answer does, as a 413 (``invalid_input``). J262 read the
    .NET form as a quota; this round revises it. A quota stays ``rate_limited`` (guard)."""
    results = await answered(tmp_path, telemetry, {
        "export_rows": "Error: 8 RESOURCE_EXHAUSTED: Received message larger than max (4794074 vs. 4194304)",
        "list_users": "set config failed: rpc error: code = ResourceExhausted desc = grpc: received message larger than "
                      "max (4977817 vs. 4194304)",
        "render_report": 'Grpc.Core.RpcException: Status(StatusCode="ResourceExhausted", Detail="Received message exceeds '
                         'the maximum configured message size.")',
        "upload_blob": "rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (9000000 "
                       "vs. 4194304)",
        "translate": "rpc error: code = ResourceExhausted desc = Quota exceeded for quota metric 'requests' and limit "
                     "'requests per minute'",
    })
    assert {name: result.failure_class for name, result in results.items()} == {
        "export_rows": FailureClass.INVALID_INPUT,
        "list_users": FailureClass.INVALID_INPUT,
        "render_report": FailureClass.INVALID_INPUT,
        "upload_blob": FailureClass.INVALID_INPUT,
        "translate": FailureClass.RATE_LIMITED,
    }
    assert results["upload_blob"].side_effect_possible is not True, results["upload_blob"]


# --- J368: GitHub's rate limits answered as 403 ----------------------------------------------------------------------

async def test_j368_github_s_rate_limits_as_403(tmp_path: Path, telemetry: Any) -> None:
    """J368 (github/github-mcp-server #2037: an agent tripping GitHub's rate limit through the server; app-sre/github-mirror
    PR #62: PyGithub's "RateLimitExceededException: 403 {… "message": "You have exceeded a secondary rate limit. Please
    wait a few minutes before you try again."}"; hisxo/gitGraber #41; GitHub's REST docs: primary and secondary limits
    answer 403 or 429). A Go server relays go-github's text, where the 403 came before the words: ``permission_denied``
    sent the model to ask for access it has. A 403 that says it is a rate limit is ``rate_limited``; a 403 for a token's
    missing scope stays ``permission_denied`` (guard)."""
    results = await answered(tmp_path, telemetry, {
        "list_pulls": "failed to list pull requests: GET https://api.github.com/repos/o/r/pulls: 403 You have exceeded a "
                      "secondary rate limit. Please wait a few minutes before you try again. [rate limit was reset at "
                      "2026-07-01 12:00:00 +0000 UTC]",
        "search_code": 'RateLimitExceededException: 403 {"message": "API rate limit exceeded for 203.0.113.9.", '
                       '"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}',
        "create_issue": "failed to create issue: POST https://api.github.com/repos/o/r/issues: 403 Resource not accessible "
                        "by integration []",
    })
    assert {name: result.failure_class for name, result in results.items()} == {
        "list_pulls": FailureClass.RATE_LIMITED,
        "search_code": FailureClass.RATE_LIMITED,
        "create_issue": FailureClass.PERMISSION_DENIED,
    }


# --- J369/J373: a router with no backend for the MCP server ----------------------------------------------------------

OPENSHIFT_PAGE = (
    b"<html><head><title>Application is not available</title></head><body><h1>Application is not available</h1>"
    b"<p>The application is currently not serving requests at this endpoint. It may not have been started or is still "
    b"starting.</p><p>Possible reasons you are seeing this page:</p><ul><li><strong>The host doesn't exist.</strong> "
    b"Make sure the hostname was typed correctly and that a route matching this hostname exists.</li><li><strong>Route "
    b"and path matches, but all pods are down.</strong> Make sure that the resources exposed by this route (pods, "
    b"services, deployment configs, etc) have at least one pod running.</li></ul></body></html>"
)


@pytest.mark.parametrize(("body", "headers"), [
    (b"no available server", ((b"content-type", b"text/plain; charset=utf-8"),)),
    (OPENSHIFT_PAGE, (HTML, (b"cache-control", b"private, max-age=0, no-cache, no-store"))),
], ids=["traefik", "openshift"])
async def test_j369_a_router_with_no_backend_for_the_server(telemetry: Any, body: bytes,
                                                          headers: tuple[tuple[bytes, bytes], ...]) -> None:
    """J369 (traefik/traefik PR #8170: "Traefik returns a 503 response code when a Router has been matched but there are
    no servers ready to handle the request", its body "no available server"; GovAlta/ui-components #4090: an MCP server
    behind OpenShift's router answered Claude Code with the router's page "Application is not available … Route and path
    matches, but all pods are down"). The router had no backend to forward the ``tools/call`` to: the tool never ran
    (``upstream_unavailable``, side effect false, no "may have"), and the next call works."""
    result, after, _, _, server = await refused_once(telemetry, "search_issues", 503, body, *headers)
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert "may have" not in result.text and "Ref ERR-" in result.text, result.text
    assert after.text == "up"


def refusing_first(tool_name: str, times: int, status: int, body: bytes, *headers: tuple[bytes, bytes],
                   seen: list[bytes]) -> Gate:
    """A gate answering the first ``times`` POSTs that call ``tool_name`` itself (each noted in ``seen``), then letting
    them through: a router whose backend came back."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "POST" or f'"{tool_name}"'.encode() not in request:
            return False
        seen.append(request)
        return len(seen) <= times and await answer(send, status, body, *headers)

    return gate


async def test_j373_a_call_no_backend_received_is_sent_again(telemetry: Any) -> None:
    """J373 (J369 under a retry policy; traefik/traefik PR #8170: the 503 comes from the router while its service has no
    server ready, as during a rolling restart). A call the router never forwarded did not happen, so the client may
    send it again at the transport layer (DESIGN: a protocol-channel failure that means "the call did not happen"), even
    for a tool not declared safe to repeat: sent twice, run once, answered."""
    from tests.client.servers.app import serve

    server = issues_server()
    seen: list[bytes] = []
    gate = refusing_first("search_issues", 1, 503, b"no available server", (b"content-type", b"text/plain"), seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert result.text == "3 issues match crash", result
    assert posts_calling(seen, "search_issues") == 2 and server.ran == ["crash"], (seen, server.ran)


# --- J371: a keyword connection string whose password has spaces -----------------------------------------------------

async def test_j371_a_connection_string_password_with_spaces(tmp_path: Path, telemetry: Any) -> None:
    """J371 (npgsql/npgsql #1104 and #1329: a connection string "Server=…;Port=5432;User Id=MyUser; Password=MyPassword;
    Database=…" printed to the console; psycopg/psycopg2 #87: passwords with spaces; PowerDNS/pdns #459, a backend
    logging its whole connect string on failure). A .NET MCP server relays a connection failure with its connection
    string; ADO.NET, Npgsql and ODBC read an unquoted value to the ``;``, so a password with spaces is one value. The
    scrubber stopped at the first space and the rest of the password reached the model and the span."""
    results = await answered(tmp_path, telemetry, {
        "query_orders": "Npgsql.NpgsqlException: Failed to connect to 10.0.0.7:5432 using Host=pg-1;Username=app;"
                        "Password=Fern Stone FAKE77 gale;Database=shop",
        "query_stock": "Login failed for connection string 'Server=sql-1;Database=shop;User Id=app; Password=correct horse "
                       "FAKEstaple 9; Encrypt=True'",
    })
    recorded = everything_recorded(telemetry)
    for name, tail in (("query_orders", "FAKE77 gale"), ("query_stock", "FAKEstaple")):
        assert tail not in results[name].text and tail not in recorded, (name, results[name].text)
        assert "Ref ERR-" in results[name].text, results[name].text


# --- J374: the on-call path for a rate limit answered as 403 ----------------------------------------------------------

async def test_j374_explain_names_a_403_rate_limit_as_a_rate_limit(tmp_path: Path) -> None:
    """J374 (J368 on the on-call path: a user quotes "list_pulls failed … Ref ERR-…" after an agent tripped GitHub's
    secondary rate limit through github/github-mcp-server, #2037). ``errscope explain`` on the sentence the model was
    shown finds the call and names ``rate_limited``, the dashboard's rate-limit panel, not ``permission_denied`` (a
    credential to fix)."""
    from errscope._setup import configure_telemetry

    from tests.client.test_oncall_explain import explain

    text = ("failed to list pull requests: GET https://api.github.com/repos/o/r/pulls: 403 You have exceeded a secondary "
            "rate limit. Please wait a few minutes before you try again.")
    params, log = peer(tmp_path, [tool("list_pulls")], {"list_pulls": failed(text)})
    host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
    try:
        async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tc:
            result = await tc.call_tool("list_pulls", {"repo": "o/r"})
    finally:
        host.shutdown()
    assert result.failure_class is FailureClass.RATE_LIMITED, result
    said = explain(result.text, tmp_path)
    assert result.error_ref in said and "errscope.failure_class=rate_limited" in said, said
    assert "permission_denied" not in said, said
    assert len(log.received("tools/call")) == 1
