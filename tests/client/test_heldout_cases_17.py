"""Client side of tests/heldout_cases.md, seventeenth round (J319-J327, J333-J335, J337): what MCP servers relay when
the thing a tool drives went away or ran out (a browser, an account's credit or standing, a database file that cannot be
written, a stream the runtime cut, a server a gateway waited for), output-schema complaints a gateway passes on, another
framework's ``-32001``, a Java server's serialised exception in a 401, a node provider's key in its RPC URL, a model
provider's size limit, and a failure that names no cause for a call missing a required argument.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it (``answered`` checks each was sent once). J328 drives a real ``MCPServer`` over streamable HTTP
behind an ASGI gate (``tests/client/test_heldout_cases_3.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases import peer, recorded, tool
from tests.client.test_heldout_cases_10 import posts_calling, refused_once
from tests.client.test_heldout_cases_12 import answered

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def classes_of(results: dict[str, Any]) -> dict[str, tuple[Channel | None, FailureClass | None]]:
    return {name: (result.channel, result.failure_class) for name, result in results.items()}


def all_of(results: dict[str, Any], failure_class: FailureClass) -> None:
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, failure_class))
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text


def no_argument_note(results: dict[str, Any]) -> None:
    """Nothing the model passed is at fault: no advice to fix arguments."""
    for result in results.values():
        assert "argument" not in result.text.lower() and "Fix the" not in result.text, result.text


# --- J319: the browser a tool drives went away --------------------------------------------------------------------

async def test_j319_the_browser_a_tool_drives_was_closed(tmp_path: Path, telemetry: Any) -> None:
    """J319 (microsoft/playwright-mcp #1597: "Error: browserBackend.callTool: Target page, context or browser has been
    closed" on every call after the first; executeautomation/mcp-playwright #63: "Navigation failed: page.goto: Target page,
    context or browser has been closed"; microsoft/playwright #37289 ``locator.click``; Puppeteer's "Protocol error
    (Runtime.callFunctionOn): Target closed." and "Browser has been closed."). The browser process the tool drives is
    gone: a backing service out of reach until it is started again (``upstream_unavailable``), not the model's error
    and not ``unknown``. Whether a click landed before the page closed the text does not say (no "not done" claim)."""
    results = await answered(tmp_path, telemetry, {
        "browser_snapshot": "Error: browserBackend.callTool: Target page, context or browser has been closed",
        "browser_navigate": "Navigation failed: page.goto: Target page, context or browser has been closed",
        "browser_click": "Error: locator.click: Target page, context or browser has been closed\nBrowser logs:",
        "evaluate": "Protocol error (Runtime.callFunctionOn): Target closed.",
        "screenshot": "Error: Browser has been closed.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)


async def test_j319_guard_a_closed_record_is_no_closed_browser(tmp_path: Path, telemetry: Any) -> None:
    """J319's guard: a record the caller named that is closed (an issue, an account) is not a browser gone."""
    results = await answered(tmp_path, telemetry, {
        "comment_issue": "Issue #42 has been closed and is locked",
    })
    assert results["comment_issue"].failure_class is not FailureClass.UPSTREAM_UNAVAILABLE, results


# --- J320: an account out of credit -------------------------------------------------------------------------------

async def test_j320_an_account_out_of_credit(tmp_path: Path, telemetry: Any) -> None:
    """J320 (anthropics/claude-code #4684 and #4208, BeehiveInnovations/pal-mcp-server #125: ``Error: 400
    {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic
    API. Please go to Plans & Billing to upgrade or purchase credits."}}`` from a tool that calls the API; firecrawl/firecrawl
    #2460 and #2189: the 402 "Insufficient credits to perform this request."; serenorg/x402-mcp-server #36: ``{"error":
    "Insufficient credit balance"}``; a bare "402 Payment Required"). The operator's account must be paid for: no argument
    fixes it and waiting does not refill it (``permission_denied``: "ask the user"), though Anthropic words it as an
    ``invalid_request_error`` behind a 400."""
    results = await answered(tmp_path, telemetry, {
        "review_code": 'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance '
                       'is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase '
                       'credits."},"request_id":"req_011FAKE"}',
        "crawl_site": "Insufficient credits to perform this request. For more credits, you can upgrade your plan at "
                      "https://firecrawl.dev/pricing or try changing the request limit to a lower value.",
        "pay_for_query": json.dumps({"error": "Insufficient credit balance", "minimumRequired": "1.00",
                                     "depositEndpoint": "/api/credits/confirm-deposit"}),
        "fetch_report": "Request failed: 402 Payment Required",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


# --- J321: a database file that cannot be written -----------------------------------------------------------------

async def test_j321_sqlite_s_readonly_database(tmp_path: Path, telemetry: Any) -> None:
    """J321 (Helmi/claude-simone #33: "Failed to log activity: attempt to write a readonly database" from a Node MCP
    server's SQLite store; Tencent/wcdb #193 "(code 1032, errno 0)"; d03n3rfr1tz3/TS3-Bot #5, .NET's
    ``SQLiteException``; fr-ser/grafana-sqlite-datasource PR #168). SQLite refused the write because the file or its
    directory is read-only for the server's user (SQLITE_READONLY): the operating system's refusal, fixed by the
    operator, as ``PermissionError`` is (``permission_denied``), and nothing was written."""
    results = await answered(tmp_path, telemetry, {
        "log_activity": "Failed to log activity: attempt to write a readonly database",
        "save_note": "SqliteError: attempt to write a readonly database (code 1032, errno 0)",
        "clean": "System.Data.SQLite.SQLiteException: attempt to write a readonly database\r\n"
                 "attempt to write a readonly database",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    for result in results.values():
        assert result.side_effect_possible is not True, result


# --- J322: a response stream the runtime cut ----------------------------------------------------------------------

async def test_j322_undici_s_terminated(tmp_path: Path, telemetry: Any) -> None:
    """J322 (modelcontextprotocol/typescript-sdk #949 and #1211, google-gemini/gemini-cli #4333 and #4474, tidewave-ai/
    tidewave_phoenix #66: "SSE stream disconnected: TypeError: terminated" / "Error reading SSE stream: TypeError:
    terminated"; androidStern-personal/openclaw-mcp-adapter PR #13: a gateway relaying it as a tool's failure). Node's
    fetch (undici) ends a body it was reading with ``TypeError: terminated`` when the connection closes: the upstream
    was reached and stopped answering, ``upstream_unavailable``, and the request may have been acted on (as "other
    side closed" is, J120)."""
    results = await answered(tmp_path, telemetry, {
        "query_flights": "Error: SSE stream disconnected: TypeError: terminated",
        "list_docs": "Error reading SSE stream: TypeError: terminated",
        "run_report": "TypeError: terminated",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is True, result


# --- J323-J324: a gateway relaying an output-schema complaint -----------------------------------------------------

async def test_j323_an_output_schema_complaint_as_a_tool_error(tmp_path: Path, telemetry: Any) -> None:
    """J323 (IBM/mcp-context-forge #4042: a gateway's ``isError`` "Output validation error: outputSchema defined but no
    structured output returned" for every BigQuery call; yamadashy/repomix #833 and MCPJam/inspector PR #1513: the
    TypeScript SDK's "MCP error -32602: Structured content does not match the tool's output schema: data should NOT
    have additional properties" and "MCP error -32600: Tool x has an output schema but did not return structured
    content", relayed as a tool's text). The complaint is about what the upstream tool returned, after it ran: never
    the model's arguments (no "Fix the arguments", not ``invalid_input``), the effect may have happened (as J21
    and J103 say of errscope's own check), and the call is not repeated."""
    results = await answered(tmp_path, telemetry, {
        "list_dataset_ids": "Output validation error: outputSchema defined but no structured output returned",
        "pack_codebase": "MCP error -32602: Structured content does not match the tool's output schema: data should NOT "
                         "have additional properties",
        "get_weather": "MCP error -32600: Tool get_weather has an output schema but did not return structured content",
    })
    for name, result in results.items():
        assert result.outcome is Outcome.ERROR and result.channel is Channel.EXECUTION, (name, result)
        assert result.failure_class is not FailureClass.INVALID_INPUT, (name, result)
        assert result.side_effect_possible is not False, (name, result)
        assert "Ref ERR-" in result.text
    no_argument_note(results)


async def test_j324_an_output_schema_complaint_as_a_32602(tmp_path: Path, telemetry: Any) -> None:
    """J324 (J323's TypeScript SDK words as a gateway's own ``-32602``: a proxy whose SDK client rejected its upstream's
    result answers the host with the SDK's ``McpError`` code, yamadashy/repomix #833). ``-32602`` is the one code the
    client turns into a note about the arguments (DESIGN.md), but this message names the *result's* schema: no
    argument note, no re-list, not ``invalid_input``, sent once; the tool may have acted."""
    message = ("MCP error -32602: Structured content does not match the tool's output schema: data should NOT have "
               "additional properties")
    params, log = peer(tmp_path, [tool("pack_codebase", properties={"directory": {"type": "string"}})],
                       {"pack_codebase": {"error": {"code": -32602, "message": message}}})
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        result = await tc.call_tool("pack_codebase", {"directory": "/src"})
    assert (result.outcome, result.channel) == (Outcome.ERROR, Channel.PROTOCOL), result
    assert result.failure_class is not FailureClass.INVALID_INPUT, result
    assert "argument" not in result.text.lower() and "Fix the" not in result.text, result.text
    assert result.side_effect_possible is not False, result
    assert len(log.received("tools/call")) == 1 and len(log.received("tools/list")) == 1


# --- J325: another framework's -32001 --------------------------------------------------------------------------------

async def test_j325_fastmcp_s_32001_not_found_is_no_timeout(tmp_path: Path, telemetry: Any) -> None:
    """J325 (PrefectHQ/fastmcp #3038 and PR #3041: FastMCP's ``ErrorHandlingMiddleware`` answered a tool's or a resource's
    ``NotFoundError`` with ``-32001`` "Not found: …" / "Resource not found"; -32001 is also the code the SDKs give their
    *own* request timeout, "MCP error -32001: Request timed out"). An answer on the wire with -32001 is the server's: the
    call was answered (outcome ``error``, not ``timeout``), the record is missing (``not_found``), and nothing says it
    timed out or may have happened."""
    params, log = peer(tmp_path, [tool("get_order"), tool("get_invoice")], {
        "get_order": {"error": {"code": -32001, "message": "Not found: Order A-17 not found"}},
        "get_invoice": {"error": {"code": -32001, "message": "Resource not found"}},
    })
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        results = {name: await tc.call_tool(name, {"id": "A-17"}) for name in ("get_order", "get_invoice")}
    for name, result in results.items():
        assert (result.outcome, result.channel, result.failure_class) == (
            Outcome.ERROR, Channel.PROTOCOL, FailureClass.NOT_FOUND), (name, result)
        assert "timed out" not in result.text.lower() and result.side_effect_possible is not True, (name, result)
    assert len(log.received("tools/call")) == 2


# --- J326: an Ethereum node provider's key in its RPC URL --------------------------------------------------------

INFURA_KEY = "9aa3d95b3bc440fa88ea12eaa4456161"
ALCHEMY_KEY = "Zx8pQr2sT9uVw3yA1bC4dE5fG6hI7jK8"
ANKR_KEY = "3f1e2d4c5b6a79881726354433221100aabbccddeeff00112233445566778899"


async def test_j326_a_node_provider_s_key_in_an_rpc_url(tmp_path: Path, telemetry: Any) -> None:
    """J326 (oceanprotocol/provider #287 "Provider is leaking the Infura Key on 503 error message" and #521;
    0xPolygon/cdk-erigon #1529 "RPC URL Leak in error message"; mcpdotdirect/evm-mcp-server PR #36: an EVM MCP server's
    errors carrying "RPC endpoint URLs"). Ethereum node providers put the project key in the URL's path (Infura's
    ``/v3/<key>``, Alchemy's ``/v2/<key>``, Ankr's ``/<chain>/<key>``), and ethers.js prints the URL into its errors. The
    key is a credential: it never reaches the model or telemetry; the node out of reach is ``upstream_unavailable``."""
    results = await answered(tmp_path, telemetry, {
        "get_balance": 'missing response (requestBody="{\\"method\\":\\"eth_chainId\\",\\"id\\":42,\\"jsonrpc\\":\\"2.0\\"}", '
                       'requestMethod="POST", serverError={"errno":-111,"code":"ECONNREFUSED"}, '
                       f'url="https://mainnet.infura.io/v3/{INFURA_KEY}", code=SERVER_ERROR, version=web/5.7.1)',
        "get_block": f"request to https://eth-mainnet.g.alchemy.com/v2/{ALCHEMY_KEY} failed, reason: connect ETIMEDOUT",
        "send_tx": f"Error: getaddrinfo ENOTFOUND rpc.ankr.com (url: https://rpc.ankr.com/eth/{ANKR_KEY})",
    })
    everything = recorded(telemetry)
    for key in (INFURA_KEY, ALCHEMY_KEY, ANKR_KEY):
        assert all(key not in result.text for result in results.values()), key
        assert key not in everything, key
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)


# --- J327: a Java server's serialised exception in a 401 ---------------------------------------------------------

JAVA_MCP_ERROR = json.dumps({
    "cause": None,
    "stackTrace": [
        {"classLoaderName": "app", "declaringClass": "io.modelcontextprotocol.spec.McpError$Builder",
         "fileName": "McpError.java", "lineNumber": 72, "methodName": "build"},
        {"declaringClass": "org.openmetadata.mcp.server.transport.OAuthHttpStatelessServerTransportProvider",
         "fileName": "OAuthHttpStatelessServerTransportProvider.java", "lineNumber": 311,
         "methodName": "sendAuthErrorWithChallenge"},
        {"declaringClass": "org.eclipse.jetty.server.handler.HandlerWrapper", "fileName": "HandlerWrapper.java",
         "lineNumber": 127, "methodName": "handle"},
    ] * 20,
    "jsonRpcError": {"code": -32001, "message": "Authentication required", "data": None},
    "message": "Authentication required",
    "localizedMessage": "Authentication required",
    "suppressed": [],
}).encode()


async def test_j327_a_java_server_s_serialised_exception_in_a_401(telemetry: Any) -> None:
    """J327 (open-metadata/OpenMetadata #31871: an unauthenticated ``POST /mcp`` answered 401 with a 13.8 KB body, the Java
    SDK's ``McpError`` serialised by Jackson with ``stackTrace`` (60 frames), ``cause``, ``suppressed`` and
    ``jsonRpcError``). The 401 says the credential is missing (``permission_denied``, not run, sent once); none of the
    server's frames, class names or file names reach the model or telemetry."""
    result, after, seen, _, server = await refused_once(
        telemetry, "search_issues", 401, JAVA_MCP_ERROR, (b"content-type", b"application/json"),
        (b"www-authenticate", b'Bearer realm="FAKE-openmetadata"'), retry=RetryPolicy())
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert result.side_effect_possible is False and server.ran == [], result
    assert posts_calling(seen, "search_issues") == 1
    everything = recorded(telemetry)
    for fragment in ("McpError.java", "declaringClass", "stackTrace", "org.eclipse.jetty", "sendAuthErrorWithChallenge"):
        assert fragment not in result.text and fragment not in everything, fragment
    assert "Ref ERR-" in result.text and after.text == "up"


# --- J333: a gateway that gave up waiting for its server to start ------------------------------------------------

async def test_j333_a_gateway_waiting_for_its_server_to_be_ready(tmp_path: Path, telemetry: Any) -> None:
    """J333 (obot-platform/obot #3557: ``/tools`` calls failing with "timed out waiting for MCP server to be ready" from a
    gateway that starts the MCP server it fronts). The gateway never forwarded the call: ``upstream_unavailable``, and
    nothing may have happened (unlike "timed out waiting for the response", which may have acted); sent once."""
    results = await answered(tmp_path, telemetry, {
        "list_repos": "timed out waiting for MCP server to be ready",
        "search_code": "Error: timed out waiting for the server to start",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for result in results.values():
        assert result.side_effect_possible is not True and "may have taken effect" not in result.text, result


async def test_j333_guard_waiting_for_the_answer_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J333's guard: a timeout waiting for the *answer* came after the request was sent: it may have acted."""
    results = await answered(tmp_path, telemetry, {"transfer": "timed out waiting for the response"})
    assert results["transfer"].side_effect_possible is True, results


# --- J334-J335: an AI provider's refusals a tool relays ----------------------------------------------------------

async def test_j334_the_operator_s_account_shut_or_not_cleared(tmp_path: Path, telemetry: Any) -> None:
    """J334 (anthropics/claude-code #72457 and #19028, CherryHQ/cherry-studio #3340: "400 {"type":"error","error":{"type":
    "invalid_request_error","message":"This organization has been disabled."}}"; danny-avila/LibreChat #7323 and
    microsoft/vscode #260670: OpenAI's "Your organization must be verified to use the model `o3`", sent as a 404 or a 400;
    google-gemini/gemini-cli #1993 and harry0703/MoneyPrinterTurbo #160: Gemini's 400 FAILED_PRECONDITION "User location
    is not supported for the API use."). A tool that calls a model provider relays its refusal of the operator's
    account: the user must act (``permission_denied``), though the envelope's 400, 404 or ``invalid_request_error`` would
    read as the model's arguments or a missing record."""
    results = await answered(tmp_path, telemetry, {
        "second_opinion": 'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"This organization '
                          'has been disabled."},"request_id":"req_011FAKE"}',
        "deep_think": "404 Your organization must be verified to use the model `o3`. Please go to: "
                      "https://platform.openai.com/settings/organization/general and click on Verify Organization. If you "
                      "just verified, it can take up to 15 minutes for access to propagate.",
        "summarize": "400 FAILED_PRECONDITION. {'error': {'code': 400, 'message': 'User location is not supported for the "
                     "API use.', 'status': 'FAILED_PRECONDITION'}}",
    })
    all_of(results, FailureClass.PERMISSION_DENIED)
    no_argument_note(results)


async def test_j335_more_input_than_the_model_a_tool_calls_can_take(tmp_path: Path, telemetry: Any) -> None:
    """J335 (ThinkInAIXYZ/deepchat #245: "400 This model's maximum context length is 65536 tokens. However, you requested
    329791 tokens"; nanbingxyz/5ire #268; anomalyco/opencode #1092: "AI_APICallError: prompt is too long: 210171 tokens >
    200000 maximum"; OpenAI's ``context_length_exceeded``). A tool that hands the model's input to a language model was
    refused for its size: as a 413, smaller input fits (``invalid_input``), not ``unknown``; nothing was generated."""
    results = await answered(tmp_path, telemetry, {
        "summarize_repo": "This model's maximum context length is 65536 tokens. However, you requested 329791 tokens "
                          "(321599 in the messages, 8192 in the completion). Please reduce the length of the messages or "
                          "completion.",
        "review_files": "AI_APICallError: prompt is too long: 210171 tokens > 200000 maximum",
        "translate": json.dumps({"error": {"message": "Input exceeds the model's maximum context length.",
                                           "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    })
    all_of(results, FailureClass.INVALID_INPUT)
    for result in results.values():
        assert result.side_effect_possible is not True, result


# --- J337: a failure that names no cause, for a call missing a required argument ------------------------------------

DIARY_SCHEMA = {"properties": {"agent_name": {"type": "string"}, "entry": {"type": "string"}},
                "required": ["agent_name", "entry"]}


@pytest.mark.parametrize("answer", [
    pytest.param({"error": {"code": -32000, "message": "Internal tool error"}}, id="protocol-32000"),
    pytest.param({"result": {"content": [{"type": "text", "text": "Internal tool error"}], "isError": True}},
                 id="isError"),
])
async def test_j337_a_causeless_failure_for_a_call_missing_a_required_argument(
        tmp_path: Path, telemetry: Any, answer: dict[str, Any]) -> None:
    """J337 (MemPalace/mempalace #1574: ``mempalace_diary_write`` called without its required ``agent_name`` answered
    "MCP error -32000: Internal tool error"; an agent "will go hunt for server-side bugs when the actual fix is a one-line
    caller change"). The server says nothing of the cause, and the call lacked an argument the listed ``inputSchema``
    requires: the model is told which one (``invalid_input``, the argument named), sent once, never retried."""
    params, log = peer(tmp_path, [tool("mempalace_diary_write", **DIARY_SCHEMA)], {"mempalace_diary_write": answer})
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        result = await tc.call_tool("mempalace_diary_write", {"entry": "TEST entry without agent_name"})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.INVALID_INPUT), result
    assert "agent_name" in result.text and "Ref ERR-" in result.text, result.text
    assert "TEST entry" not in result.text, result.text  # the model's own value is not echoed back
    assert len(log.received("tools/call")) == 1


async def test_j337_guard_a_complete_call_is_no_argument_problem(tmp_path: Path, telemetry: Any) -> None:
    """J337's guard: the same answer to a call that sent every required argument says nothing the model can fix."""
    params, _ = peer(tmp_path, [tool("mempalace_diary_write", **DIARY_SCHEMA)],
                     {"mempalace_diary_write": {"error": {"code": -32000, "message": "Internal tool error"}}})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("mempalace_diary_write", {"agent_name": "a", "entry": "e"})
    assert result.failure_class is not FailureClass.INVALID_INPUT, result
    assert "argument" not in result.text.lower(), result.text
