"""Client side of tests/heldout_cases.md, sixteenth round (J301-J313): a program that is not installed, and the
operator's credentials and an upstream's state told in the words of the tools MCP servers drive (Node's ``spawn``,
shells, Google's and Microsoft's APIs, Salesforce, Redis, MongoDB, the AWS CLI, kubectl, Shopify).

Each failure here also exists as a Python exception errscope already classes (``FileNotFoundError`` out of
``subprocess``, redis-py's ``AuthenticationError`` and ``BusyLoadingError``, botocore's ``NoCredentialsError``,
``PermissionError``); a foreign server relays the same failure as text, and the same failure must get the same class.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases import peer, tool
from tests.client.test_heldout_cases_12 import answered

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def classes_of(results: dict[str, Any]) -> dict[str, tuple[Channel | None, FailureClass | None]]:
    return {name: (result.channel, result.failure_class) for name, result in results.items()}


def all_of(results: dict[str, Any], failure_class: FailureClass) -> None:
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, failure_class))
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text


def no_argument_note(results: dict[str, Any]) -> None:
    """A refusal of the operator's credentials is no argument for the model to fix (the -32602 note's words)."""
    for result in results.values():
        assert "argument" not in result.text.lower(), result.text


# --- J301-J303: a program that is not installed ---------------------------------------------------------------------

async def test_j301_node_s_spawn_enoent(tmp_path: Path, telemetry: Any) -> None:
    """J301 (cline/cline #1948 and #6766, RooCodeInc/Roo-Code #628, Mintplex-Labs/anything-llm #3854: "Error: spawn npx
    ENOENT" when a host or a gateway starts an MCP server or a CLI whose program is not on its PATH; puppeteer's "Failed to
    launch the browser process! spawn /usr/bin/chromium ENOENT"; EACCES for a program that is not executable). Node's
    ``spawn`` failed before the program ran: a service the tool needs is missing, as a ``FileNotFoundError`` out of
    ``subprocess`` is (``upstream_unavailable``, nothing done), never a missing record for the model to look up."""
    results = await answered(tmp_path, telemetry, {
        "run_sequential_thinking": "Error: spawn npx ENOENT",
        "take_screenshot": "Error: Failed to launch the browser process! spawn /usr/bin/chromium ENOENT\n\n\n"
                           "TROUBLESHOOTING: https://pptr.dev/troubleshooting",
        "build_image": "spawn docker EACCES",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True, result


async def test_j302_a_gateway_s_32603_for_spawnsync_enoent(tmp_path: Path, telemetry: Any) -> None:
    """J302 (Flux159/mcp-server-kubernetes #254: ``{"code":-32603,"message":"MCP error -32603: Failed to execute kubectl get
    command: MCP error -32603: Failed to get resource: spawnSync kubectl ENOENT"}``: the server could not start kubectl).
    A protocol error whose cause is a program not installed: ``upstream_unavailable`` on the protocol channel, sent once,
    and no advice to check an identifier."""
    message = ("MCP error -32603: Failed to execute kubectl get command: MCP error -32603: Failed to get resource: "
               "spawnSync kubectl ENOENT")
    params, log = peer(tmp_path, [tool("kubectl_get")], {"kubectl_get": {"error": {"code": -32603, "message": message}}})
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        result = await tc.call_tool("kubectl_get", {"resourceType": "pods"})
    assert (result.outcome, result.channel, result.failure_class) == (
        Outcome.ERROR, Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is not True, result
    assert "identifier" not in result.text.lower(), result.text
    assert len(log.received("tools/call")) == 1


async def test_j303_shells_words_for_a_program_not_installed(tmp_path: Path, telemetry: Any) -> None:
    """J303 (kubernetes/kubernetes #12573 "kubectl: command not found"; rimusz/coreos-kubernetes-cluster-osx PR #34
    "./gen_kubeconfig: line 6: kubectl: command not found"; dash's "/bin/sh: 1: kubectl: not found"; cmd.exe's "'git' is not
    recognized as an internal or external command"; PowerShell's "The term 'az' is not recognized as the name of a
    cmdlet"; Go's os/exec ``exec: "terraform": executable file not found in $PATH``). A shell tool relaying its shell's
    words for a program that is not there: the shell's 127, which errscope reads on a ``CalledProcessError`` as a program
    that never started (``upstream_unavailable``, nothing done), not ``not_found``."""
    results = await answered(tmp_path, telemetry, {
        "get_pods": "kubectl: command not found",
        "gen_kubeconfig": "./gen_kubeconfig: line 6: kubectl: command not found",
        "run_kubectl": "/bin/sh: 1: kubectl: not found",
        "git_status": "'git' is not recognized as an internal or external command,\r\noperable program or batch file.",
        "az_login": "az : The term 'az' is not recognized as the name of a cmdlet, function, script file, or operable "
                    "program. Check the spelling of the name, or if a path was included, verify that the path is correct "
                    "and try again.",
        "tf_plan": 'exec: "terraform": executable file not found in $PATH',
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True, result


async def test_j303_guard_a_missing_record_stays_not_found(tmp_path: Path, telemetry: Any) -> None:
    """J303's guard: a record, a file or a chat command the caller named, that is not there, is still ``not_found``."""
    results = await answered(tmp_path, telemetry, {
        "run_command": "Error: command not found: /deploy-prod",
        "get_order": "Order 17 not found",
        "read_file": "ENOENT: no such file or directory, open '/data/report.csv'",
    })
    all_of(results, FailureClass.NOT_FOUND)


# --- J304-J310: the operator's credentials refused, in each service's words ------------------------------------------

async def test_j304_google_s_insufficient_authentication_scopes(tmp_path: Path, telemetry: Any) -> None:
    """J304 (sprawz/gtm-mcp-server #7, googleapis/google-api-python-client #915, googleworkspace/python-samples #51: "Request
    had insufficient authentication scopes." when the OAuth grant lacks a scope the call needs; Google's 403
    ``ACCESS_TOKEN_SCOPE_INSUFFICIENT``). The operator's grant must be widened: ``permission_denied``, the step-up case
    of RFC 6750 §3.1 ``insufficient_scope`` in Google's words, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "create_version": "Request had insufficient authentication scopes.",
        "list_files": "Error: Request had insufficient authentication scopes. (reason: ACCESS_TOKEN_SCOPE_INSUFFICIENT)",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


async def test_j305_microsoft_graph_s_insufficient_privileges(tmp_path: Path, telemetry: Any) -> None:
    """J305 (Azure-Samples/ms-identity-python-daemon #8, microsoftgraph/dotnetcore-console-sample #44, Azure/static-web-apps
    #699: Microsoft Graph's 403 ``Authorization_RequestDenied`` "Insufficient privileges to complete the operation." when the
    app registration lacks a permission or admin consent), as the .NET SDK prints it and as its bare message."""
    results = await answered(tmp_path, telemetry, {
        "list_users": "Insufficient privileges to complete the operation.",
        "send_mail": "ServiceException: Code: Authorization_RequestDenied\nMessage: Insufficient privileges to complete "
                     "the operation.",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


async def test_j306_salesforce_s_invalid_session_id(tmp_path: Path, telemetry: Any) -> None:
    """J306 (sorenkrabbe/Chrome-Salesforce-inspector #135 and #228, joeferraro/MavensMate #463, realdoug/omniauth-salesforce
    #30: "INVALID_SESSION_ID: Session expired or invalid", jsforce's ``errorCode: message``; NangoHQ/nango #4344: the REST
    API's ``[{"message": ..., "errorCode": "INVALID_SESSION_ID"}]``). The operator's Salesforce session expired: sign in
    again, ``permission_denied``. The word "invalid" must not make it the model's invalid argument."""
    results = await answered(tmp_path, telemetry, {
        "describe_object": "INVALID_SESSION_ID: Session expired or invalid",
        "query_accounts": "SalesforceRestError: INVALID_SESSION_ID: Session expired or invalid",
        "run_flow": json.dumps([{"message": "This session is not valid for use with the REST API",
                                 "errorCode": "INVALID_SESSION_ID"}]),
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


async def test_j307_redis_refusing_the_login(tmp_path: Path, telemetry: Any) -> None:
    """J307 (redis/node-redis #2857 and #1591, docmost/docmost #365, LogicLabs-OU/OpenArchiver #347: "ErrorReply: WRONGPASS
    invalid username-password pair or user is disabled."; nextcloud/nextcloudpi #1740 "NOAUTH Authentication required.";
    Redis ACL's "NOPERM"). Redis's reply codes for a refused login or an ACL that forbids the command, relayed by a Node
    server: ``permission_denied``, as redis-py's ``AuthenticationError`` and ``NoPermissionError`` are; "invalid
    username-password pair" is no argument of the model's."""
    results = await answered(tmp_path, telemetry, {
        "get_key": "ErrorReply: WRONGPASS invalid username-password pair or user is disabled.",
        "set_key": "ReplyError: NOAUTH Authentication required.",
        "del_key": "NOPERM User mcp has no permissions to run the 'del' command",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


async def test_j308_redis_that_cannot_take_the_command_now(tmp_path: Path, telemetry: Any) -> None:
    """J308 (redis/redis #584, firewalla/firewalla #260, valkey-io/valkey-glide PR #2588, django/channels_redis #118: "MISCONF
    Redis is configured to save RDB snapshots, but it's currently unable to persist to disk"; Redis's LOADING while it
    reads its dataset after a restart, BUSY while a script runs, READONLY from a replica after a failover). Redis refused
    the command because of its own state, for now: ``upstream_unavailable``, nothing applied (the reply is the refusal),
    as redis-py's ``BusyLoadingError`` and ``ReadOnlyError`` are."""
    results = await answered(tmp_path, telemetry, {
        "save_session": "[ErrorReply: MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
                        "persist to disk. Commands that may modify the data set are disabled, because this instance is "
                        "configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error "
                        "option). Please check the Redis logs for details about the RDB error.]",
        "get_cart": "LOADING Redis is loading the dataset in memory",
        "incr_counter": "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
        "push_job": "ReplyError: READONLY You can't write against a read only replica.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True, result


async def test_j309_mongodb_s_requires_authentication(tmp_path: Path, telemetry: Any) -> None:
    """J309 (Automattic/mongoose #7250 and #7618, coollabsio/coolify #2123, electerious/Ackee #308: "MongoServerError: Command
    find requires authentication", MongoDB's code 13 ``Unauthorized`` for a connection that never logged in). The
    operator's connection string lacks its credentials: ``permission_denied``, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "find_orders": "MongoServerError: Command find requires authentication",
        "list_databases": "MongoError: command listDatabases requires authentication",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)


async def test_j310_the_aws_cli_without_credentials(tmp_path: Path, telemetry: Any) -> None:
    """J310 (aws/aws-cli #4684 and #915: "Unable to locate credentials. You can configure credentials by running "aws
    configure"." from the AWS CLI a tool runs; awslabs/mcp #341: the cost-analysis server's ``{"status": "error", "message":
    "The config profile (default) could not be found"}``). No credential to sign with: ``permission_denied`` as botocore's
    ``NoCredentialsError`` is; the missing profile is the operator's configuration, no record the model named."""
    results = await answered(tmp_path, telemetry, {
        "list_buckets": 'Unable to locate credentials. You can configure credentials by running "aws configure".',
        "upload_report": "upload failed: ./report.csv to s3://reports-bucket/report.csv Unable to locate credentials",
        "get_cost": json.dumps({"status": "error", "error_type": "api_error",
                                "message": "The config profile (default) could not be found",
                                "service_code": "AmazonBedrock", "region": "us-east-1"}),
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


# --- J311-J313: an upstream out of reach, a rate and a local refusal in their tools' words ---------------------------

async def test_j311_kubectl_s_refused_connection(tmp_path: Path, telemetry: Any) -> None:
    """J311 (kubernetes/kubectl #737, kubernetes/kubernetes #44665 and #50295: "The connection to the server localhost:8080 was
    refused - did you specify the right host or port?", kubectl with no kubeconfig or a stopped API server). The API
    server was never reached: ``upstream_unavailable``, nothing done."""
    results = await answered(tmp_path, telemetry, {
        "scale_deployment": "The connection to the server localhost:8080 was refused - did you specify the right host or "
                            "port?",
        "get_nodes": "error: The connection to the server 10.0.0.5:6443 was refused - did you specify the right host or "
                     "port?",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is False or result.side_effect_possible is None, result


async def test_j312_shopify_s_calls_per_second(tmp_path: Path, telemetry: Any) -> None:
    """J312 (MONEI/Shopify-api-node #518, craftcms/shopify #136, Shopify/shopify_python_api #256, nozzlegear/ShopifySharp
    #423: "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.", the REST
    Admin API's leaky bucket, relayed without its 429). A rate limit: ``rate_limited``, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "update_draft_order": "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted "
                              "service.",
        "sync_products": 'REST request failed: "Exceeded 4 calls per second for api client. Reduce request rates to '
                         'resume uninterrupted service."',
    })
    all_of(results, FailureClass.RATE_LIMITED)


async def test_j313_eperm_operation_not_permitted(tmp_path: Path, telemetry: Any) -> None:
    """J313 (BloopAI/vibe-kanban #645 "Error: EPERM: operation not permitted, unlink 'D:\\npm-cache\\...'"; anomalyco/opencode
    #23063 "Error: EPERM: operation not permitted, lstat" without macOS Full Disk Access; ThinkInAIXYZ/deepchat #147; a
    Python server's "[Errno 1] Operation not permitted" as text). The operating system refused the tool: ``permission_denied``,
    as Python's ``PermissionError`` for EPERM is, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "delete_file": "Error: EPERM: operation not permitted, unlink 'D:\\npm-cache\\_npx\\71d7\\node_modules\\x.exe'",
        "stat_path": "Error: EPERM: operation not permitted, lstat '/Users/FAKE/Library/Mail'",
        "list_desktop": "[Errno 1] Operation not permitted: '/Users/FAKE/Desktop'",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
