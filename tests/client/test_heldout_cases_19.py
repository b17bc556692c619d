"""Client side of tests/heldout_cases.md, nineteenth round (J351, J352, J357-J359, J361): the pages a CDN, a load balancer
or the Kubernetes API server's service proxy in front of an MCP server answers when it could not reach it (Cloudflare's
52x, HAProxy's, Envoy's and Kong's 503s), a password's tail a foreign server relays as a host name, a database that chose
the call as a deadlock victim, other runtimes refusing to send a credential header.

J351/J352/J359: ``ToolClient`` drives a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind an ASGI gate that answers
as the gateway does (``tests/client/test_heldout_cases_3.py``). J357/J358/J361: the raw stdio peer
(``servers/heldout_peer.py``); every tool is a write with no hints, so a repeat would re-run it (``answered`` checks each
was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import RetryPolicy

from tests.client.test_heldout_cases_10 import posts_calling, refused_once
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.server.test_heldout_cases import everything_recorded

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

HTML = (b"content-type", b"text/html; charset=UTF-8")
CLOUDFLARE = (b"server", b"cloudflare")


def cloudflare_page(status: int, title: str) -> bytes:
    """The shape of Cloudflare's own error page: the code and its title in the page's text."""
    return (f"<!DOCTYPE html><html><head><title>mcp.example.test | {status}: {title}</title></head><body>"
            f"<h1><span>{title}</span> <span>Error code {status}</span></h1><p>Visit cloudflare.com for more "
            f"information.</p><p>Cloudflare Ray ID: 8f1c2e8a7b6d5c4e</p></body></html>").encode()


# --- J351: Cloudflare's pages for an origin it could not connect to ---------------------------------------------------

@pytest.mark.parametrize(("status", "title"), [
    (521, "Web server is down"),
    (522, "Connection timed out"),
    (523, "Origin is unreachable"),
    (525, "SSL handshake failed"),
])
async def test_j351_cloudflare_never_reached_the_mcp_server(telemetry: Any, status: int, title: str) -> None:
    """J351 (coyove/goflyway #119 "522 Origin Connection Time-out": "cloudflare can't connect to your server";
    popcorn-official/popcorn-site #17 and ziglang/www.ziglang.org #34: Cloudflare's 522 page; cloudflare/cloudflare-docs
    PR #26927: 522 is a SYN that got no SYN+ACK, or a request the origin never acknowledged; 521 the origin refused the
    connection, 523 no route to it, 525 the TLS handshake with it failed). A remote MCP server behind Cloudflare: the
    edge answers the ``tools/call`` POST with its own page. The request never reached the server: not run
    (``upstream_unavailable``, side effect false, no "may have"), and the next call works."""
    result, after, _, _, server = await refused_once(
        telemetry, "search_issues", status, cloudflare_page(status, title), HTML, CLOUDFLARE)
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert "may have" not in result.text and "Ref ERR-" in result.text, result.text
    assert after.text == "up"


async def test_j351_guard_a_524_came_after_the_server_took_the_call(telemetry: Any) -> None:
    """J351's guard (Cloudflare's 524 "A timeout occurred": the origin acknowledged the request and did not answer within
    the proxy read timeout). The tool may have acted: side effect possible, and a tool not declared safe to repeat is sent
    once even under a retry policy."""
    result, _, seen, _, _ = await refused_once(
        telemetry, "search_issues", 524, cloudflare_page(524, "A timeout occurred"), HTML, CLOUDFLARE,
        retry=RetryPolicy(backoff_initial=0.01, jitter=0))
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is True, result
    assert posts_calling(seen, "search_issues") == 1


# --- J352: a load balancer with no server to send to ------------------------------------------------------------------

@pytest.mark.parametrize(("status", "body", "server"), [
    (503, b"no healthy upstream", b"envoy"),
    (503, (b"<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n"
           b"</body></html>\n"), b"haproxy"),
    (503, b'{\n  "message":"failure to get a peer from the ring-balancer"\n}', b"kong/3.4.2"),
])
async def test_j352_a_load_balancer_with_no_server_to_send_to(telemetry: Any, status: int, body: bytes,
                                                              server: bytes) -> None:
    """J352 (envoyproxy/envoy and Istio's 503 "no healthy upstream" (response flag UH) when every endpoint of an MCP
    server's cluster is down; HAProxy's 503 page "No server is available to handle this request."; Kong's 503 "failure to
    get a peer from the ring-balancer"). The balancer had no server to forward the call to: nothing ran, the call is
    ``upstream_unavailable`` and not "may have taken effect"."""
    result, after, _, _, mcp_server = await refused_once(
        telemetry, "search_issues", status, body, (b"content-type", b"text/plain"), (b"server", server))
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and mcp_server.ran == [], result
    assert "may have" not in result.text, result.text
    assert after.text == "up"


async def test_j352_guard_nginx_s_bare_502_may_have_run(telemetry: Any) -> None:
    """J352's guard: nginx's page "502 Bad Gateway" is also its answer to an upstream that died mid-request: it says
    nothing of where it failed, so the call may have run (J77)."""
    result, _, seen, _, _ = await refused_once(
        telemetry, "search_issues", 502,
        b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>"
        b"<center>nginx/1.25.3</center></body></html>", HTML, (b"server", b"nginx/1.25.3"),
        retry=RetryPolicy(backoff_initial=0.01, jitter=0))
    assert result.side_effect_possible is True, result
    assert posts_calling(seen, "search_issues") == 1


# --- J358: a deadlock victim, relayed ---------------------------------------------------------------------------------

async def test_j358_a_deadlock_victim_was_rolled_back(tmp_path: Path, telemetry: Any) -> None:
    """J358 (monicahq/monica #2910: "SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock;
    try restarting transaction"; nextcloud/server #6899, processwire/processwire-issues #1551; FuseCP/FuseCP #56: SQL
    Server's "Transaction (Process ID 61) was deadlocked on lock resources with another process and has been chosen as
    the deadlock victim. Rerun the transaction."; PostgreSQL's 40P01 "deadlock detected"). A database MCP server relays
    the driver's error. The database chose the call's transaction as the victim and rolled it back: nothing of it stands
    (side effect false, not "may have taken effect"), and the database asks for the transaction again: a transient
    refusal (``upstream_unavailable``), as psycopg's ``DeadlockDetected`` and ``SerializationFailure`` are read."""
    results = await answered(tmp_path, telemetry, {
        "update_contact": "SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock; try "
                          "restarting transaction (SQL: delete from `cache` where `key` = laravel_cache_contacts)",
        "save_order": "System.Data.SqlClient.SqlException: Transaction (Process ID 61) was deadlocked on lock resources "
                      "with another process and has been chosen as the deadlock victim. Rerun the transaction.",
        "move_stock": "ERROR: deadlock detected\nDETAIL:  Process 4711 waits for ShareLock on transaction 9001; blocked "
                      "by process 4712.\nHINT:  See server log for query details.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for name, result in results.items():
        assert result.side_effect_possible is not True and "may have taken effect" not in result.text, (name, result)


# --- J357: a password's tail in a relayed host name -------------------------------------------------------------------

async def test_j357_a_password_s_tail_relayed_as_a_host_name(tmp_path: Path, telemetry: Any) -> None:
    """J357 (J356 relayed by a foreign server: hjlarry/dify-plugin-database #4, a Dify database plugin's ``PluginInvokeError:
    {"error_type":"OperationalError","message":"(psycopg2.OperationalError) could not translate host name \\"u1tpwd@…\\"
    to address"}``; ankane/pgsync #236 "could not translate host name \"$$$$W0rd01@db_host\""; kamailio/kamailio #169
    "Unknown MySQL server host '#sip@localhost'"). The client's note to the model and its span keep the host and lose
    the password's tail; the class is ``upstream_unavailable``, not sent."""
    results = await answered(tmp_path, telemetry, {
        "run_query": 'PluginInvokeError: {"args":{},"error_type":"OperationalError","message":"(psycopg2.OperationalError) '
                     'could not translate host name \\"u1tpwdFAKE9x@10.0.0.7\\" to address: Name or service not known'
                     '\\n\\n(Background on this error at: https://sqlalche.me/e/20/e3q8)"}',
        "sync_tables": 'could not translate host name "W0rd01FAKEz@db_host" to address: Name does not resolve',
        "route_call": "ERROR: db_mysql [km_my_con.c:114]: db_mysql_new_connection(): driver error: Unknown MySQL server "
                      "host '#sipFAKE42@localhost' (2)",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    recorded_text = everything_recorded(telemetry)
    for name, tail in (("run_query", "u1tpwdFAKE9x"), ("sync_tables", "W0rd01FAKEz"), ("route_call", "sipFAKE42")):
        assert tail not in results[name].text and tail not in recorded_text, (name, results[name].text)
        assert results[name].side_effect_possible is not True, (name, results[name])


# --- J359: the Kubernetes API server's service proxy ------------------------------------------------------------------

async def test_j359_a_service_proxy_that_could_not_dial_the_server(telemetry: Any) -> None:
    """J359 (kubernetes/kubernetes and kubernetes/dashboard reports of the API server's service proxy answering 503 "Error
    trying to reach service: 'dial tcp 10.244.1.7:8080: connect: connection refused'"; Go's reverse proxies print the
    same ``dial tcp … connect: connection refused``). An MCP server reached through ``kubectl proxy``'s
    ``/api/v1/namespaces/…/services/…/proxy/mcp`` path: the proxy never connected to the pod, so the tool never ran (not
    "may have"), and the next call works."""
    result, after, _, _, server = await refused_once(
        telemetry, "search_issues", 503,
        b"Error trying to reach service: 'dial tcp 10.244.1.7:8080: connect: connection refused'",
        (b"content-type", b"text/plain; charset=utf-8"))
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert "may have" not in result.text, result.text
    assert after.text == "up"


# --- J361: other runtimes refusing to send a credential header --------------------------------------------------------

async def test_j361_a_credential_header_other_runtimes_refused(tmp_path: Path, telemetry: Any) -> None:
    """J361 (J353 in other runtimes' words, relayed by foreign MCP servers: Node's ``TypeError [ERR_INVALID_CHAR]: Invalid
    character in header content ["Authorization"]`` for a key read with its newline; Go's ``net/http: invalid header field
    value for "Authorization"``; h11's ``Illegal header value b'Bearer '`` for an empty key). The operator's credential
    is broken and nothing was sent: ``permission_denied``, not ``unknown``, with no advice to fix the arguments."""
    results = await answered(tmp_path, telemetry, {
        "create_issue": 'TypeError [ERR_INVALID_CHAR]: Invalid character in header content ["Authorization"]',
        "post_update": 'Post "https://api.example.test/v1/updates": net/http: invalid header field value for '
                       '"Authorization"',
        "ask_model": "Error while sending message: Illegal header value b'Bearer '",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    for name, result in results.items():
        assert result.side_effect_possible is not True, (name, result)
        assert "argument" not in result.text.lower(), (name, result.text)
