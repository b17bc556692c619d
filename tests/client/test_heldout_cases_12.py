"""Client side of tests/heldout_cases.md, twelfth round (J230-J242, J249-J252): other APIs' words for a refusal, and the message a
user pasted to on-call.

A tool's ``isError`` text that is an API's own error code or sentence, relayed verbatim by a foreign server: Slack's
``invalid_auth``, GitHub's "Bad credentials", the AWS CLI's "An error occurred (InvalidClientTokenId) ...", Azure's
``AuthorizationFailed``, Oracle's ORA- errors, PostgreSQL's deadlocks, Notion's "Could not find database", an HTTP/2
GOAWAY or a body cut short, and Go's JSON decoder reading an HTML page. Then ``errscope explain`` on what a person
pastes: the whole sentence the user saw, the ref as chat and word processors rewrite it, a ``traceparent``.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases import failed, peer, recorded, tool

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def answered(
    tmp_path: Path, telemetry: Any, texts: dict[str, str], answer: Callable[[str], dict[str, Any]] = failed
) -> dict[str, Any]:
    """Call each tool once through a peer answering with its text (``answer``: an ``isError`` result, by default); the
    results by tool, each checked to have been sent exactly once (no automatic repeat of a tool that is not safe to
    repeat)."""
    params, log = peer(tmp_path, [tool(name) for name in texts], {name: answer(text) for name, text in texts.items()})
    results = {}
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        for name in texts:
            results[name] = await tc.call_tool(name, {"id": "X-1"})
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == sorted(texts), sent
    return results


def assert_classes(results: dict[str, Any], expected: dict[str, FailureClass]) -> None:
    got = {name: (result.channel, result.failure_class) for name, result in results.items()}
    assert got == {name: (Channel.EXECUTION, cls) for name, cls in expected.items()}, got
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text


# --- J230-J236: an API's own code or sentence for a refusal ---------------------------------------------------------

async def test_j230_slack_error_codes(tmp_path: Path, telemetry: Any) -> None:
    """J230 (modelcontextprotocol/servers #1261 and korotovsky/slack-mcp-server #5: ``{"ok":false,"error":"invalid_auth"}``;
    slackapi/node-slack-sdk #1124 and korotovsky/slack-mcp-server #228: "An API error occurred: missing_scope"). Slack
    answers HTTP 200 with an error code: a rejected token, a missing scope, a bot not in the channel are the operator's
    credentials, ``permission_denied``; ``invalid_auth`` is no invalid argument for the model to fix. The model reads the
    code, not the JSON envelope around it."""
    results = await answered(tmp_path, telemetry, {
        "post_message": json.dumps({"ok": False, "error": "invalid_auth"}),
        "add_reaction": "An API error occurred: missing_scope",
        "send_to_channel": '{"ok":false,"error":"not_in_channel","warning":"missing_charset"}',
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.PERMISSION_DENIED))
    assert "Fix the arguments" not in results["post_message"].text
    assert "invalid_auth" in results["post_message"].text and '{"ok"' not in results["post_message"].text, \
        results["post_message"].text


async def test_j231_github_error_bodies_without_a_status(tmp_path: Path, telemetry: Any) -> None:
    """J231 (github/github-mcp-server #201 and obot-platform/obot #3762: "401 Bad credentials"; argos-ci/argos #394:
    the body ``{"message":"Bad credentials",...}`` alone; anmol098/waka-readme-stats #242 and renovatebot/github-action
    #595: "Resource not accessible by integration"). A tool that relays GitHub's JSON error body without the status
    line: both say the token was refused or lacks access, ``permission_denied``, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "create_issue": json.dumps({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}),
        "merge_pull_request": json.dumps({"message": "Resource not accessible by integration",
                                          "documentation_url": "https://docs.github.com/rest/pulls/pulls#merge"}),
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.PERMISSION_DENIED))
    assert "Bad credentials" in results["create_issue"].text


async def test_j232_aws_cli_error_codes(tmp_path: Path, telemetry: Any) -> None:
    """J232 (awslabs/mcp #4535: "An error occurred (InvalidClientTokenId) ... The security token included in the request is
    invalid."; awslabs/mcp #892: ``{"response":"","error":"An error occurred (InvalidAccessKeyId) ... does not exist in
    our records."}``). The AWS CLI's sentence names the API's code: a refused credential is ``permission_denied``, not
    the argument problem "invalid" reads nor the missing record "does not exist" reads."""
    results = await answered(tmp_path, telemetry, {
        "call_aws": "\nAn error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security "
                    "token included in the request is invalid.\n",
        "s3_sync": json.dumps({"response": "", "error": "\nAn error occurred (InvalidAccessKeyId) when calling the "
                               "ListBuckets operation: The AWS Access Key Id you provided does not exist in our records.\n"}),
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.PERMISSION_DENIED))
    assert '"response"' not in results["s3_sync"].text, results["s3_sync"].text


async def test_j233_aws_throttling_told_as_a_400(tmp_path: Path, telemetry: Any) -> None:
    """J233 (AWS "Error retries and exponential backoff": DynamoDB's ``ProvisionedThroughputExceededException`` and
    ``ThrottlingException`` come as HTTP 400, EC2's ``RequestLimitExceeded`` as 503; awslabs/mcp's servers relay the
    CLI's sentence). The code decides over the 400 a Go SDK prints beside it: ``rate_limited``; and the write is not
    repeated by the client (the tool declares no hint)."""
    results = await answered(tmp_path, telemetry, {
        "put_item": "operation error DynamoDB: PutItem, https response error StatusCode: 400, RequestID: FAKE1, "
                    "ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table "
                    "was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
        "run_instances": "An error occurred (RequestLimitExceeded) when calling the RunInstances operation (reached max "
                         "retries: 4): Request limit exceeded.",
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.RATE_LIMITED))


async def test_j234_azure_authorization_failed(tmp_path: Path, telemetry: Any) -> None:
    """J234 (Azure/vagrant-azure #164, microsoft/vscode-azurestorage #944, cloudquery/cloudquery #16133: Azure Resource
    Manager's ``AuthorizationFailed`` "... does not have authorization to perform action ... or the scope is invalid").
    The identity lacks a role: ``permission_denied``, never the ``invalid_input`` that "the scope is invalid" reads."""
    results = await answered(tmp_path, telemetry, {
        "create_vm": "(AuthorizationFailed) The client 'ops-bot@FAKE.example' with object id '9f980a37-FAKE' does not have "
                     "authorization to perform action 'Microsoft.Compute/virtualMachines/write' over scope "
                     "'/subscriptions/0000-FAKE/resourceGroups/rg-web' or the scope is invalid. If access was recently "
                     "granted, please refresh your credentials.",
    })
    assert_classes(results, {"create_vm": FailureClass.PERMISSION_DENIED})


async def test_j235_oracle_logon_denied_and_no_listener(tmp_path: Path, telemetry: Any) -> None:
    """J235 (oracle/docker-images #696 and oracle/python-oracledb #191: "ORA-01017: invalid username/password; logon
    denied"; MaksymBilenko/docker-oracle-12c #163: "ORA-12541: TNS:no listener"). A refused database login is
    ``permission_denied`` (not ``invalid_input``); a database that is not listening is ``upstream_unavailable`` (not
    ``unknown``)."""
    results = await answered(tmp_path, telemetry, {
        "update_ledger": "ORA-01017: invalid username/password; logon denied",
        "post_journal": "DPY-6005: cannot connect to database. ORA-12541: TNS:no listener",
    })
    assert_classes(results, {"update_ledger": FailureClass.PERMISSION_DENIED,
                             "post_journal": FailureClass.UPSTREAM_UNAVAILABLE})


async def test_j236_postgres_deadlock_and_too_many_clients_in_words(tmp_path: Path, telemetry: Any) -> None:
    """J236 (alphaonedev/ai-memory-mcp #3520: a 40P01 deadlock in an MCP server's statement; divviup/janus PR #995 and
    eclipse-vertx/vertx-sql-client #480: "deadlock detected"; PostgreSQL's "could not serialize access" and "sorry, too
    many clients already"). A Go or Node server relays the database's words: rolled back or refused, nothing applied,
    ``upstream_unavailable`` as errscope reads SQLSTATE classes 40 and 53 on a driver's exception; not ``unknown``; the
    write is not repeated by the client."""
    results = await answered(tmp_path, telemetry, {
        "transfer_funds": "ERROR: deadlock detected (SQLSTATE 40P01)",
        "reserve_seat": "ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)",
        "save_draft": "failed to connect to `host=db.internal user=app database=app`: server error (FATAL: sorry, too "
                      "many clients already (SQLSTATE 53300))",
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.UPSTREAM_UNAVAILABLE))


async def test_j249_a_sqlstate_printed_into_the_text(tmp_path: Path, telemetry: Any) -> None:
    """J249 (tgdrive/teldrive #212 and flanksource/config-db #827: pgx's "ERROR: duplicate key value violates unique
    constraint … (SQLSTATE 23505)"; PDO's "SQLSTATE[23000]: Integrity constraint violation"; PostgreSQL's 57P01 and 53300).
    The SQLSTATE a driver prints is read with the table errscope reads on a driver's exception: a constraint the arguments
    broke is ``invalid_input``, a terminated connection or exhausted slots ``upstream_unavailable``, a missing table the
    tool's own query names ``unknown`` (the tool's bug, not the record the model asked for)."""
    results = await answered(tmp_path, telemetry, {
        "create_upload": 'ERROR: duplicate key value violates unique constraint "uploads_pkey" (SQLSTATE 23505)',
        "register_user": "SQLSTATE[23000]: Integrity constraint violation: 1062 Duplicate entry 'a@FAKE.example' for key "
                         "'users_email_unique'",
        "close_ticket": "FATAL: terminating connection due to administrator command (SQLSTATE 57P01)",
        "open_ticket": "FATAL: remaining connection slots are reserved for non-replication superuser connections "
                       "(SQLSTATE 53300)",
        "list_orders": 'ERROR: relation "orderz" does not exist (SQLSTATE 42P01)',
    })
    assert_classes(results, {"create_upload": FailureClass.INVALID_INPUT, "register_user": FailureClass.INVALID_INPUT,
                             "close_ticket": FailureClass.UPSTREAM_UNAVAILABLE,
                             "open_ticket": FailureClass.UPSTREAM_UNAVAILABLE, "list_orders": FailureClass.UNKNOWN})


async def test_j250_mysql_and_sqlite_connection_words(tmp_path: Path, telemetry: Any) -> None:
    """J250 (trellix-enterprise/mysql-audit #83, wuzehv/blog #24, otland/forgottenserver #367: "MySQL server has gone
    away" (2006), "Lost connection to MySQL server during query" (2013); SQLite's "database is locked" (SQLITE_BUSY)).
    The words of the client errors errscope reads by number on a driver's exception: ``upstream_unavailable``, not
    ``unknown``; the writes are not repeated by the client."""
    results = await answered(tmp_path, telemetry, {
        "save_player": "Error 2006 (HY000): MySQL server has gone away",
        "delete_session": "Lost connection to MySQL server during query",
        "append_note": "SQLITE_BUSY: database is locked",
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.UPSTREAM_UNAVAILABLE))


async def test_j251_a_gateway_s_body_without_its_status(tmp_path: Path, telemetry: Any) -> None:
    """J251 (higress-group/higress #3640: an MCP call through Higress failing "upstream connect error or disconnect/reset
    before headers. reset reason: connection termination"; istio/istio #22482; Kong/kong #3518 and #7156:
    ``{"message":"failure to get a peer from the ring-balancer"}``; Kong/kong #1874 and #4661: "An invalid response was
    received from the upstream server."; haproxy's "No server is available to handle this request" (percolatestudio/
    atmosphere #81); resilience4j's "CircuitBreaker … is OPEN and does not permit further calls"). A tool relays the
    gateway's body without the status line: ``upstream_unavailable`` (Kong's "invalid response" is no invalid argument),
    never ``unknown``; the writes are not repeated by the client."""
    results = await answered(tmp_path, telemetry, {
        "create_invoice": "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
        "refund_invoice": "upstream connect error or disconnect/reset before headers. retried and the latest reset reason: "
                          "remote connection failure, transport failure reason: delayed connect error: 111",
        "book_slot": json.dumps({"message": "failure to get a peer from the ring-balancer"}),
        "cancel_slot": "An invalid response was received from the upstream server.",
        "send_sms": "no healthy upstream",
        "charge_card": "<html><body><h1>Service Unavailable</h1>\nNo server is available to handle this request.\n"
                       "</body></html>",
        "ship_order": "CircuitBreaker 'warehouse' is OPEN and does not permit further calls",
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.UPSTREAM_UNAVAILABLE))


async def test_j252_a_gateway_s_authentication_refusal_in_words(tmp_path: Path, telemetry: Any) -> None:
    """J252 (envoyproxy/envoy #34227 and istio/istio #54018: Envoy's jwt_authn answers "Jwt verification fails" and "Jwt
    is expired"; Kong's key-auth and basic-auth: "No API key found in request", "Invalid authentication credentials").
    The gateway refused the tool's credential: ``permission_denied``; never the ``invalid_input`` "Invalid …" reads."""
    results = await answered(tmp_path, telemetry, {
        "list_claims": "Jwt verification fails",
        "get_claim": "Jwt is expired",
        "file_claim": json.dumps({"message": "No API key found in request"}),
        "close_claim": json.dumps({"message": "Invalid authentication credentials"}),
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.PERMISSION_DENIED))


# --- J237-J239: a record not found, an answer cut short, a page where JSON was expected -----------------------------

async def test_j237_notion_could_not_find(tmp_path: Path, telemetry: Any) -> None:
    """J237 (zxjlm/NoteTrail #2, egordm/notionsci #4, notion-dotnet/notion-sdk-net #457: notion-client's
    ``APIResponseError: Could not find database with ID: … Make sure the relevant pages and databases are shared with
    your integration.``). The message without its ``object_not_found`` code or 404: ``not_found``, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "add_row": "notion_client.errors.APIResponseError: Could not find database with ID: "
                   "5dfca790-3787-4290-b22d-ec916bdc9f07. Make sure the relevant pages and databases are shared with "
                   "your integration.",
    })
    assert_classes(results, {"add_row": FailureClass.NOT_FOUND})


async def test_j238_connections_wound_down_in_words(tmp_path: Path, telemetry: Any) -> None:
    """J238 (DefangLabs/defang #710, kalbasit/ncps #631, supabase-community/supabase-go #28: Go's "http2: server sent
    GOAWAY and closed the connection"; eliranwong/biblemate #40 and a2aproject/a2a-samples #144: httpx's "peer closed
    connection without sending complete message body (incomplete chunked read)"; urllib3's "Connection broken:
    IncompleteRead"; Python's SSLEOFError). A tool whose upstream went away mid-answer: ``upstream_unavailable``, not
    ``unknown``, and the client does not repeat the write itself."""
    results = await answered(tmp_path, telemetry, {
        "publish_post": 'Post "https://api.FAKE.example/v1/posts": http2: server sent GOAWAY and closed the connection; '
                        'LastStreamID=1999, ErrCode=NO_ERROR, debug=""',
        "send_digest": "peer closed connection without sending complete message body (incomplete chunked read)",
        "sync_contacts": "('Connection broken: IncompleteRead(0 bytes read, 512 more expected)', IncompleteRead(0 bytes "
                         "read, 512 more expected))",
        "upload_file": "[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1006)",
    })
    assert_classes(results, dict.fromkeys(results, FailureClass.UPSTREAM_UNAVAILABLE))


async def test_j239_go_json_decoder_on_an_html_page(tmp_path: Path, telemetry: Any) -> None:
    """J239 (iwechatcom/iwechat #2: "invalid character '<' looking for beginning of value" when an upstream answered a
    page; arvindand/maven-tools-mcp #1: JavaScript's "Unexpected token '<', "<!DOCTYPE "... is not valid JSON"). The
    tool could not read its upstream's answer: the caller's arguments were fine, so never ``invalid_input`` (the
    J186 rule for a tool's own ``JSONDecodeError``)."""
    results = await answered(tmp_path, telemetry, {
        "fetch_rates": "decode rates: invalid character '<' looking for beginning of value",
        "fetch_quotes": "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
    })
    for name, result in results.items():
        assert result.failure_class is not FailureClass.INVALID_INPUT, (name, result)
        assert "argument" not in result.text.lower(), result.text
    assert "FAKE" not in recorded(telemetry)


# --- J240-J242: what a person pastes into `errscope explain` ---------------------------------------------------------

async def explained_run(tmp_path: Path) -> tuple[Any, Path]:
    """One real failed call (a foreign server's "order not found") with telemetry exported to files; the result and
    the directory ``errscope explain --from`` reads."""
    from errscope._setup import configure_telemetry

    out = tmp_path / "telemetry"
    exported = configure_telemetry("host-test", output_dir=out, set_global=False)
    params, _ = peer(tmp_path, [tool("find_order")], {"find_order": failed("Order A-1001 was not found")})
    try:
        async with ToolClient(params, timeout=3, tracer_provider=exported.tracer_provider,
                              meter_provider=exported.meter_provider) as tc:
            result = await tc.call_tool("find_order", {"order_id": "A-1001"})
    finally:
        exported.shutdown()
    assert result.failure_class is FailureClass.NOT_FOUND and result.error_ref, result
    return result, out


def explain(out: Path, query: str) -> str:
    """``errscope explain QUERY --from OUT`` as an on-call engineer runs it; its output (the command must succeed)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (query, done.stderr)
    return done.stdout


async def test_j240_explain_the_whole_sentence_the_user_saw(tmp_path: Path) -> None:
    """J240 (DESIGN.md: from the message a user saw to the upstream event in one lookup; JanssenProject/jans #345: an id
    carried to the error page so support can find the log). The engineer pastes the support ticket's sentence, ref
    inside: ``errscope explain`` finds the chain, as for the bare ref."""
    result, out = await explained_run(tmp_path)
    ticket = f'Customer says: "It kept saying it couldn\'t find my order. {result.text.strip()}" - please check'
    text = explain(out, ticket)
    assert result.error_ref in text and "not_found" in text and "find_order" in text, text


async def test_j241_explain_a_ref_rewritten_by_chat_and_word_processors(tmp_path: Path) -> None:
    """J241 (Crockford base32, crockford.com/base32.html: hyphens inside a symbol string are ignored when decoding; chat
    clients and word processors turn "-" into a dash, insert zero-width characters, and full-width input methods
    type full-width letters). Each retyped form of the ref finds the same chain."""
    from errscope._explain import find_chains, render
    from errscope._otlp_json import load

    result, out = await explained_run(tmp_path)
    telemetry = load(out)
    ref = result.error_ref
    body = ref[4:]
    for quoted in (ref.replace("-", "\u2013"),  # en dash (autocorrect)
                   ref.replace("-", "\u2011"),  # non-breaking hyphen
                   "\uff25\uff32\uff32-" + body,  # full-width "ERR"
                   ref[:6] + "\u200b" + ref[6:],  # a zero-width space from a web page
                   f"ERR-{body[:4]}-{body[4:]}",  # grouped in fours, as read aloud
                   f"ERR {body.lower()}"):  # typed from a phone call
        (chain,) = find_chains(telemetry, quoted)  # what ``errscope explain`` runs (J240 runs the command itself)
        text = render(chain)
        assert ref in text and "not_found" in text, (quoted, text)


async def test_j242_explain_a_traceparent(tmp_path: Path) -> None:
    """J242 (W3C Trace Context §3.2: ``traceparent`` = version-traceid-parentid-flags; an engineer copies the header from
    a proxy's access log). The value holds the trace id: ``errscope explain`` finds that trace's chain."""
    from errscope._otlp_json import load

    result, out = await explained_run(tmp_path)
    spans = [s for s in load(out).spans if s.get("errscope.error_ref") == result.error_ref]
    assert spans, "no span carries the ref"
    trace_id = spans[0].trace_id
    text = explain(out, f"traceparent: 00-{trace_id}-{'b7ad6b7169203331'}-01")
    assert result.error_ref in text and "not_found" in text, text
