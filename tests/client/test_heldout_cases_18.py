"""Client side of tests/heldout_cases.md, eighteenth round (J339-J345): what the services MCP servers drive say when
they refuse, relayed as a tool's text: a mail server's reply codes (nodemailer, Gmail, Postfix), PostgREST's error
documents (Supabase), PostgreSQL out of connection slots, Go's dial timeout (kubectl), Envoy's reset reasons (Istio,
Higress), GitHub's GraphQL "Could not resolve to ...", and Elasticsearch's exception types.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope import FailureClass
from errscope.client import RetryPolicy
from tests.client.test_heldout_cases_10 import posts_calling, refused_once
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, classes_of, no_argument_note

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


# --- J339: a mail server's reply codes, relayed ----------------------------------------------------------------------

async def test_j339_smtp_replies_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J339 (nodemailer/nodemailer #1167 and #920, dawidd6/action-send-mail #120: "Invalid login: 535-5.7.8 Username and
    Password not accepted" from Gmail, "535 5.7.3 Authentication unsuccessful" from Exchange; Postfix's "550 5.1.1 ...
    Recipient address rejected: User unknown"; Gmail's "454 4.7.0 Too many login attempts, please try again later" and
    "550-5.4.5 Daily user sending limit exceeded"). An email MCP server relays its SMTP library's error. The reply code and
    its RFC 3463 enhanced code decide, as on smtplib's exception: a refused login is the operator's credential
    (``permission_denied``, not the model's "invalid" input), an unknown mailbox is the record the model named
    (``not_found``), and too many logins or a spent daily sending limit is a rate the server imposes (``rate_limited``)."""
    results = await answered(tmp_path, telemetry, {
        "send_mail": "Error: Invalid login: 535-5.7.8 Username and Password not accepted. Learn more at\n535 5.7.8  "
                     "https://support.google.com/mail/?p=BadCredentials s68sm6561971pjb.38 - gsmtp",
        "send_report": "Invalid login: 535 5.7.3 Authentication unsuccessful",
        "notify_customer": "Can't send mail - all recipients were rejected: 550 5.1.1 <nobody@example.test>: Recipient "
                           "address rejected: User unknown in virtual mailbox table",
        "send_digest": "Error: 454 4.7.0 Too many login attempts, please try again later. - gsmtp",
        "send_invoice": "Message failed: 550-5.4.5 Daily user sending limit exceeded. For more information on Gmail "
                        "sending limits go to\n550 5.4.5  https://support.google.com/a/answer/166852 - gsmtp",
    })
    assert classes_of(results) == {
        "send_mail": (results["send_mail"].channel, FailureClass.PERMISSION_DENIED),
        "send_report": (results["send_report"].channel, FailureClass.PERMISSION_DENIED),
        "notify_customer": (results["notify_customer"].channel, FailureClass.NOT_FOUND),
        "send_digest": (results["send_digest"].channel, FailureClass.RATE_LIMITED),
        "send_invoice": (results["send_invoice"].channel, FailureClass.RATE_LIMITED),
    }, classes_of(results)
    for name in ("send_mail", "send_report", "send_digest", "send_invoice"):
        assert "argument" not in results[name].text.lower() and "Fix the" not in results[name].text, results[name].text


async def test_j339_guard_a_transient_421_stays_the_server_s(tmp_path: Path, telemetry: Any) -> None:
    """J339's guard: a 421 closing the connection with no word of a rate stays the mail server's state."""
    results = await answered(tmp_path, telemetry, {"send_mail": "421 4.3.2 Service shutting down, closing connection"})
    assert results["send_mail"].failure_class is FailureClass.UPSTREAM_UNAVAILABLE, results


# --- J340: PostgREST's error documents (Supabase) ------------------------------------------------------------------

async def test_j340_postgrest_error_documents(tmp_path: Path, telemetry: Any) -> None:
    """J340 (supabase-community/supabase-csharp #150 and supabase/supabase-flutter #827: ``{"code":"PGRST301","details":
    null,"hint":null,"message":"JWT expired"}``; supabase/supabase #50124: PGRST303 "JWT issued at future"; supabase/
    supabase-py #1228; the row-level-security refusal ``{"code":"42501",...,"message":"new row violates row-level
    security policy for table \\"orders\\""}``; PGRST116 "JSON object requested, multiple (or no) rows returned" with
    "The result contains 0 rows"). A Supabase MCP server relays PostgREST's error object. Its ``code`` is a PostgreSQL
    SQLSTATE or a PGRST code (https://docs.postgrest.org/en/stable/references/errors.html), read as postgrest-py's
    exception is: 42501 insufficient privilege and the PGRST3xx JWT family are ``permission_denied``; a single row
    asked for and none there is ``not_found``."""
    results = await answered(tmp_path, telemetry, {
        "insert_order": json.dumps({"code": "42501", "details": None, "hint": None,
                                    "message": 'new row violates row-level security policy for table "orders"'}),
        "list_athletes": json.dumps({"code": "PGRST303", "details": None, "hint": None,
                                     "message": "JWT issued at future"}),
        "list_orders": json.dumps({"code": "PGRST301", "details": None, "hint": None, "message": "JWT expired"}),
        "get_order": json.dumps({"code": "PGRST116", "details": "The result contains 0 rows", "hint": None,
                                 "message": "JSON object requested, multiple (or no) rows returned"}),
    })
    assert {name: r.failure_class for name, r in results.items()} == {
        "insert_order": FailureClass.PERMISSION_DENIED,
        "list_athletes": FailureClass.PERMISSION_DENIED,
        "list_orders": FailureClass.PERMISSION_DENIED,
        "get_order": FailureClass.NOT_FOUND,
    }, classes_of(results)
    for result in results.values():
        assert result.side_effect_possible is not True and "Ref ERR-" in result.text, result


# --- J341: PostgreSQL out of connection slots ------------------------------------------------------------------------

async def test_j341_postgres_out_of_connection_slots(tmp_path: Path, telemetry: Any) -> None:
    """J341 (porsager/postgres #241 and #42, irrdnet/irrd #350, woodpeck/postpass-ops #24: "remaining connection slots are
    reserved for non-replication superuser connections" and, since PostgreSQL 16, "... for roles with the SUPERUSER
    attribute", SQLSTATE 53300 too_many_connections). The database refused a new connection: no statement ran
    (``upstream_unavailable``, nothing applied), as psycopg's ``OperationalError`` with 53300 is read."""
    results = await answered(tmp_path, telemetry, {
        "record_sale": "Error: remaining connection slots are reserved for non-replication superuser connections",
        "query_db": 'connection to server at "db.internal.example" (10.0.0.5), port 5432 failed: FATAL:  remaining '
                    "connection slots are reserved for roles with the SUPERUSER attribute",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True and "may have taken effect" not in result.text, result


# --- J342: Go's dial timeout ----------------------------------------------------------------------------------------

async def test_j342_a_dial_timeout_never_reached_the_server(tmp_path: Path, telemetry: Any) -> None:
    """J342 (kubernetes/minikube #1224 and #1234, kubernetes/kops #1526, kubernetes/kubernetes #21115: "Unable to connect to
    the server: dial tcp 192.168.99.100:8443: i/o timeout", "Get https://…/api: dial tcp …:443: i/o timeout"). A
    Kubernetes MCP server relays kubectl's or client-go's words. ``dial tcp`` is Go's connect: the timeout came before a
    connection existed, so nothing was sent (``upstream_unavailable``, not "may have taken effect"), unlike a ``read
    tcp`` timeout on a request already written (the guard)."""
    results = await answered(tmp_path, telemetry, {
        "scale_deployment": "Unable to connect to the server: dial tcp 192.168.99.100:8443: i/o timeout",
        "delete_pod": "error: couldn't read version from server: Get https://203.0.113.121/api: dial tcp "
                      "203.0.113.121:443: i/o timeout",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True and "may have taken effect" not in result.text, result


async def test_j342_guard_a_read_timeout_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J342's guard: Go's ``read tcp`` timeout came after the request was written: it may have acted."""
    results = await answered(tmp_path, telemetry, {
        "apply_manifest": "read tcp 10.0.0.2:51234->10.0.0.1:6443: i/o timeout"})
    assert results["apply_manifest"].side_effect_possible is True, results


# --- J343: Envoy's reset reasons ------------------------------------------------------------------------------------

async def test_j343_envoy_s_reset_reason_says_whether_it_was_sent(tmp_path: Path, telemetry: Any) -> None:
    """J343 (istio/istio #22482 and envoyproxy/envoy #18511: "upstream connect error or disconnect/reset before headers.
    reset reason: connection failure" (… "delayed connect error: 111"); ProletRevDicta/Prolet #1131: "reset reason:
    overflow"; higress-group/higress #3023 and #3640: an MCP gateway's "call failed, status: 503, response: upstream
    connect error or disconnect/reset before headers. reset reason: connection termination"). Envoy's 503 names why:
    a connection that could not be made or a circuit breaker's overflow never forwarded the request (not "may have
    happened"); a connection terminated or reset after forwarding may have acted. All ``upstream_unavailable``."""
    results = await answered(tmp_path, telemetry, {
        "create_ticket": "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
        "charge_card": "upstream connect error or disconnect/reset before headers. retried and the latest reset reason: "
                       "remote connection failure, transport failure reason: delayed connect error: 111",
        "send_sms": "Error: 503 Service Unavailable: upstream connect error or disconnect/reset before headers. reset "
                    "reason: overflow",
        "book_room": "call failed, status: 503, response: upstream connect error or disconnect/reset before headers. "
                     "reset reason: connection termination",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for name in ("create_ticket", "charge_card", "send_sms"):
        assert results[name].side_effect_possible is not True, (name, results[name])
        assert "may have taken effect" not in results[name].text, results[name].text
    assert results["book_room"].side_effect_possible is True, results["book_room"]


# --- J344: GitHub's GraphQL "Could not resolve to ..." ------------------------------------------------------------

async def test_j344_github_graphql_could_not_resolve(tmp_path: Path, telemetry: Any) -> None:
    """J344 (cli/cli #436: "graphql error: 'Could not resolve to a Repository with the name 'xxx-ios'.'"; refined-github/
    refined-github #8424 "GraphQL: Could not resolve to a Repository with the name 'github-copilot/pro'."; the same API's
    "Could not resolve to an Issue with the number of N" and "... a User with the login of ..."). GitHub's GraphQL API
    says a record the call named is not there (its ``NOT_FOUND`` error type, which the JSON form already read):
    ``not_found``, "check the identifier", not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "get_repo": "GraphQL: Could not resolve to a Repository with the name 'acme/nope'.",
        "get_issue": "graphql error: 'Could not resolve to an Issue with the number of 99999.'",
        "get_user": "Could not resolve to a User with the login of 'ghost-FAKE'.",
    })
    all_of(results, FailureClass.NOT_FOUND)


# --- J345: Elasticsearch's exception types ---------------------------------------------------------------------------

async def test_j345_elasticsearch_exception_types(tmp_path: Path, telemetry: Any) -> None:
    """J345 (NLPchina/elasticsearch-sql #441: ``{"error":{"root_cause":[{"type":"security_exception","reason":"missing
    authentication token for REST request [/_sql]"}],...},"status":401}``; elastic/elasticsearch #34167 "[Elasticsearch
    exception [type=security_exception, reason=missing authentication token for REST request …]]";
    TheHive-Project/TheHiveDocs #188 ``ElasticError(security_exception,…)``; Elasticsearch's 429s
    ``es_rejected_execution_exception`` (a full thread pool queue) and ``circuit_breaking_exception`` "[parent] Data too
    large" marked ``"durability":"TRANSIENT"``). A search MCP server relays Elasticsearch's error: its type names the
    class as elasticsearch-py's ``AuthenticationException``/``ApiError(429)`` are read: a missing credential
    (``permission_denied``), a node refusing load for now (``rate_limited``)."""
    results = await answered(tmp_path, telemetry, {
        "search_logs": json.dumps({"error": {
            "root_cause": [{"type": "security_exception",
                            "reason": "missing authentication token for REST request [/_sql]"}],
            "type": "security_exception", "reason": "missing authentication token for REST request [/_sql]"},
            "status": 401}),
        "search_docs": "[Elasticsearch exception [type=security_exception, reason=missing authentication token for REST "
                       "request [/docs/_search]]]",
        "index_doc": json.dumps({"error": {
            "type": "es_rejected_execution_exception",
            "reason": "rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, "
                      "all_bytes=0, coordinating_operation_bytes=1234, max_coordinating_and_primary_bytes=1000]"},
            "status": 429}),
        "aggregate": json.dumps({"error": {
            "type": "circuit_breaking_exception",
            "reason": "[parent] Data too large, data for [<http_request>] would be [1023mb], which is larger than the "
                      "limit of [986mb]", "bytes_wanted": 1072693248, "bytes_limit": 1033476505,
            "durability": "TRANSIENT"}, "status": 429}),
    })
    assert {name: r.failure_class for name, r in results.items()} == {
        "search_logs": FailureClass.PERMISSION_DENIED,
        "search_docs": FailureClass.PERMISSION_DENIED,
        "index_doc": FailureClass.RATE_LIMITED,
        "aggregate": FailureClass.RATE_LIMITED,
    }, classes_of(results)
    no_argument_note({k: v for k, v in results.items() if k.startswith("search")})


# --- J348: an Envoy 503 in front of the MCP server --------------------------------------------------------------------

ENVOY_NOT_FORWARDED = b"upstream connect error or disconnect/reset before headers. reset reason: connection failure"
ENVOY_CUT_AFTER = b"upstream connect error or disconnect/reset before headers. reset reason: connection termination"


async def test_j348_an_envoy_503_that_never_forwarded_the_call(telemetry: Any) -> None:
    """J348 (istio/istio #22482, envoyproxy/envoy #18511: Envoy's own 503 body "upstream connect error or disconnect/reset
    before headers. reset reason: connection failure" from a mesh in front of an MCP server over streamable HTTP). The
    proxy could not connect to the server: the tool never ran (``upstream_unavailable``, not "may have happened"), the
    text says so, and the next call works."""
    result, after, seen, _, server = await refused_once(
        telemetry, "search_issues", 503, ENVOY_NOT_FORWARDED, (b"content-type", b"text/plain"),
        (b"server", b"envoy"))
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert "may have" not in result.text and "Ref ERR-" in result.text, result.text
    assert after.text == "up"


async def test_j348_an_envoy_503_after_forwarding_is_not_repeated(telemetry: Any) -> None:
    """J348 (higress-group/higress #3023: an MCP gateway's "call failed, status: 503, response: upstream connect error or
    disconnect/reset before headers. reset reason: connection termination" on every tool call; Istio's retry guidance:
    a 503 "UC" came after the request was forwarded). The connection to the server ended after the call was sent: the
    503 does not mean "not handled" here, the tool may have acted, and a tool not declared safe to repeat is sent once
    even under a retry policy (DESIGN.md: only a failure that means the call did not happen may be retried)."""
    result, _, seen, _, _ = await refused_once(
        telemetry, "search_issues", 503, ENVOY_CUT_AFTER, (b"content-type", b"text/plain"), (b"server", b"envoy"),
        retry=RetryPolicy(backoff_initial=0.01, jitter=0))
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is True, result
    assert posts_calling(seen, "search_issues") == 1


# --- J350: no connection or server to send on -------------------------------------------------------------------------

async def test_j350_a_pool_or_server_selection_timeout_sent_nothing(tmp_path: Path, telemetry: Any) -> None:
    """J350 (apache/doris-mcp-server #31 and #74: "Connection acquisition timed out for session mcp_session" from a
    database MCP server; Prisma's P2024 "Timed out fetching a new connection from the connection pool"; Knex's "Timeout
    acquiring a connection. The pool is probably full."; dbcodeio/public #1088: MariaDB's "pool timeout: failed to retrieve
    a connection from pool after 31979ms"; fuel9/DisplayMonkey #131: .NET's "The timeout period elapsed prior to obtaining
    a connection from the pool"; Automattic/mongoose #8263 and #8670: "Server selection timed out after 30000 ms";
    socioboard/Socioboard-5.0 #4: the .NET driver's "A timeout occured after 30000ms selecting a server"). The driver
    timed out before it had a connection or a server to send on: the database is out of reach for now
    (``upstream_unavailable``) and no statement was sent, as SQLAlchemy's QueuePool ``TimeoutError`` and pymongo's
    ``ServerSelectionTimeoutError`` say (side effect false): never "may have taken effect"."""
    results = await answered(tmp_path, telemetry, {
        "exec_query": "Connection acquisition timed out for session mcp_session",
        "update_order": "Invalid `prisma.order.update()` invocation:\n\nTimed out fetching a new connection from the "
                        "connection pool. More info: http://pris.ly/d/connection-pool (Current connection pool timeout: "
                        "10, connection limit: 5)",
        "insert_row": "KnexTimeoutError: Knex: Timeout acquiring a connection. The pool is probably full. Are you "
                      "missing a .transacting(trx) call?",
        "run_sql": "(conn:-1, no: 45028, SQLState: HY000) pool timeout: failed to retrieve a connection from pool after "
                   "31979ms\n    (pool connections: active=10 idle=0 limit=10)",
        "save_display": "The timeout period elapsed prior to obtaining a connection from the pool. This may have occurred "
                        "because all pooled connections were in use and max pool size was reached.",
        "add_note": "MongoServerSelectionError: Server selection timed out after 30000 ms",
        "log_event": "A timeout occured after 30000ms selecting a server using CompositeServerSelector{ Selectors = "
                     "ReadPreferenceServerSelector{ ReadPreference = { Mode = Primary, TagSets = [] } } }.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for name, result in results.items():
        assert result.side_effect_possible is not True and "may have taken effect" not in result.text, (name, result)


async def test_j350_guard_a_connection_lost_under_a_statement_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J350's guard: node-postgres' "Connection terminated unexpectedly" ended a connection a statement was on."""
    results = await answered(tmp_path, telemetry, {"update_order": "Error: Connection terminated unexpectedly"})
    assert results["update_order"].side_effect_possible is True, results
