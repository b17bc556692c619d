"""The C#, Kotlin, Swift, Ruby and PHP MCP SDKs' own words, read as families through the client's real paths.

Each wording below is what that SDK's server answers, copied from its source (message strings only; the snapshot
and the file:line are cited per case). ``ToolClient`` talks to a raw stdio peer (``servers/heldout_peer.py``) that
replays the SDK's exact JSON-RPC answer; the test asserts the failure class, the model's note (the argument named,
never the value sent) and whether the client re-listed the tools (an unknown tool, MCP 2025-11-25, Tools > Error
Handling). A second table pins the variants one replay does not show, through the same reading functions.

Snapshots read: modelcontextprotocol/csharp-sdk ``609499b2``, kotlin-sdk ``a06d699d``, swift-sdk ``6132fd4``,
ruby-sdk ``fcb1ac9`` (with davishmcclurg/json_schemer's messages, ``lib/json_schemer/draft202012/vocab/*.rb``),
php-sdk ``c882401``; community: cloudwalk/hermes-mcp ``622d058`` (with zoedsoupe/peri ``15c9190``),
php-mcp/server ``d2c5833``. Spring AI's MCP server runs on the Java SDK (``tests/foreign/test_java_server.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass
from errscope._classify import class_for_jsonrpc_error
from errscope.client import ToolClient
from errscope.client._answer import read_text
from errscope.client._invalid_params import invalid_params_note
from tests.client.test_heldout_cases import failed, peer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


TOOLS: list[dict[str, Any]] = [
    {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                    "required": ["a", "b"]}},
    {"name": "search", "inputSchema": {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 3}, "limit": {"type": "integer", "maximum": 100},
                       "mode": {"type": "string", "enum": ["fast", "slow"]}},
        "required": ["query"], "additionalProperties": False}},
    {"name": "calculate", "inputSchema": {"type": "object", "properties": {"expression": {"type": "string"}}}},
    {"name": "get_forecast", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
]


def error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **({"data": data} if data is not None else {})}}


@dataclass(frozen=True)
class Shape:
    """One SDK answer: the call, the answer replayed, and what the client must make of it."""

    case: str
    tool: str
    arguments: dict[str, Any]
    answer: dict[str, Any]
    failure_class: FailureClass
    channel: Channel
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    relist: bool = False
    args_note: bool = field(default=False)
    """The model's text is the invalid-arguments note."""


SHAPES: list[Shape] = [
    # ---------------------------------------------------------------- C# (csharp-sdk 609499b2)
    # src/ModelContextProtocol.Core/Server/McpServerImpl.cs:1560: an unknown tool is -32602 "Unknown tool: '<name>'"
    Shape("csharp-unknown-tool", "refund_order", {"id": "o-1"}, error(-32602, "Unknown tool: 'refund_order'"),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, ("does not exist",), relist=True),
    # src/ModelContextProtocol.Core/McpSessionHandler.cs:532: a method without a handler
    Shape("csharp-method", "add", {"a": 1, "b": 2}, error(-32601, "Method 'tools/call' is not available."),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, relist=True),
    # McpServerImpl.cs:1728-1729: a tool's exception becomes an isError text; only an McpException's message is kept
    Shape("csharp-tool-crash", "get_forecast", {"city": "Lyon"}, failed("An error occurred invoking 'get_forecast'."),
          FailureClass.UNKNOWN, Channel.EXECUTION, never=("invalid arguments",)),
    Shape("csharp-mcp-exception", "get_forecast", {"city": "Lyon"},
          failed("An error occurred invoking 'get_forecast': Rate limit exceeded. Try again in 30 seconds."),
          FailureClass.RATE_LIMITED, Channel.EXECUTION),
    # McpSessionHandler.cs:310: any other exception in a request handler
    Shape("csharp-internal", "get_forecast", {"city": "Lyon"}, error(-32603, "An error occurred."),
          FailureClass.UNKNOWN, Channel.PROTOCOL, never=("invalid arguments",)),
    # ---------------------------------------------------------------- Kotlin (kotlin-sdk a06d699d)
    # kotlin-sdk-server/.../server/Server.kt:649: an unknown tool is an isError result "Tool <name> not found"
    Shape("kotlin-unknown-tool", "refund_order", {"id": "o-1"}, failed("Tool refund_order not found"),
          FailureClass.NOT_FOUND, Channel.EXECUTION, ("does not exist",), relist=True),
    # Server.kt:668: "Error executing tool <name>: ${e.message}"; a NullPointerException's message is null
    Shape("kotlin-npe", "get_forecast", {"city": "Lyon"}, failed("Error executing tool get_forecast: null"),
          FailureClass.UNKNOWN, Channel.EXECUTION, never=("invalid arguments",)),
    Shape("kotlin-upstream", "get_forecast", {"city": "Lyon"},
          failed("Error executing tool get_forecast: Connection refused"),
          FailureClass.UPSTREAM_UNAVAILABLE, Channel.EXECUTION),
    # Server.kt:668 around kotlinx.serialization's MissingFieldException (a tool decoding its arguments)
    Shape("kotlin-missing-field", "add", {"a": 1},
          failed("Error executing tool add: Field 'b' is required for type with serial name 'AddArgs', "
                 "but it was missing at path: $"),
          FailureClass.INVALID_INPUT, Channel.EXECUTION, ("`b` is required",), args_note=True),
    # kotlin-sdk-core/.../shared/Protocol.kt:588: no handler for the method
    Shape("kotlin-method", "add", {"a": 1, "b": 2}, error(-32601, "Server does not support tools/call"),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, relist=True),
    # Protocol.kt:950: params that do not decode
    Shape("kotlin-undecodable", "add", {"a": 1, "b": 2}, error(-32602, "Invalid params"),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("add was rejected: invalid arguments",), args_note=True),
    # ---------------------------------------------------------------- Swift (swift-sdk 6132fd4)
    # Sources/MCP/Base/Error.swift:88-89, 145-147 (encode): message "Invalid params: <detail>", data {"detail": ...};
    # the detail is README.md:741's tool check
    Shape("swift-missing", "calculate", {}, error(-32602, "Invalid params: Missing expression parameter",
                                                 {"detail": "Missing expression parameter"}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`expression` is required",), args_note=True),
    # README.md:745: the documented unknown-tool answer names no tool
    Shape("swift-unknown-tool", "refund_order", {"id": "o-1"}, failed("Unknown tool"),
          FailureClass.NOT_FOUND, Channel.EXECUTION, ("does not exist",), relist=True),
    # Sources/MCP/Server/Server.swift:774: any other error is internalError(error.localizedDescription)
    Shape("swift-crash", "get_forecast", {"city": "Lyon"},
          error(-32603, "Internal error: The operation couldn’t be completed. (Forecast.WeatherError error 1.)",
                {"detail": "The operation couldn’t be completed. (Forecast.WeatherError error 1.)"}),
          FailureClass.UNKNOWN, Channel.PROTOCOL, never=("invalid arguments",)),
    # Server.swift:742: no handler for the method
    Shape("swift-method", "add", {"a": 1, "b": 2},
          error(-32601, "Method not found: Unknown method: tools/call", {"detail": "Unknown method: tools/call"}),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, relist=True),
    # ---------------------------------------------------------------- Ruby (ruby-sdk fcb1ac9)
    # lib/mcp/server.rb:1229 + lib/json_rpc_handler.rb:157,162: message "Invalid params", the words only in data
    Shape("ruby-unknown-tool", "refund_order", {"id": "o-1"},
          error(-32602, "Invalid params", "Tool not found: refund_order"),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, ("does not exist",), relist=True),
    # lib/mcp/server.rb:1239: required arguments checked before the tool runs, as an isError result
    Shape("ruby-missing", "add", {}, failed("Missing required arguments: a, b"),
          FailureClass.INVALID_INPUT, Channel.EXECUTION, ("`a` is required", "`b` is required"), args_note=True),
    # lib/mcp/tool/input_schema.rb:23 joins json_schemer's errors (validation.rb:20, 97; validation.rb:245)
    Shape("ruby-schema", "search", {"limit": "ten"},
          failed("Invalid arguments: value at `/limit` is not an integer, object at root is missing required "
                 "properties: query"),
          FailureClass.INVALID_INPUT, Channel.EXECUTION, ("`limit` must be an integer", "`query` is required"),
          never=("ten",), args_note=True),
    Shape("ruby-bound", "search", {"query": "mcp sdks", "limit": 500},
          failed("Invalid arguments: number at `/limit` is greater than: 100"),
          FailureClass.INVALID_INPUT, Channel.EXECUTION, ("`limit` must be at most 100",), never=("500",),
          args_note=True),
    # lib/mcp/server.rb:1285: a tool's exception, its message deliberately dropped
    Shape("ruby-crash", "get_forecast", {"city": "Lyon"},
          error(-32603, "Internal error", "Internal error calling tool get_forecast"),
          FailureClass.UNKNOWN, Channel.PROTOCOL, never=("invalid arguments",)),
    # lib/json_rpc_handler.rb:127: data is the method's name
    Shape("ruby-method", "add", {"a": 1, "b": 2}, error(-32601, "Method not found", "tools/call"),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, relist=True),
    # ---------------------------------------------------------------- PHP (php-sdk c882401)
    # src/Exception/ToolNotFoundException.php:22, answered as -32602 by src/Server/Handler/Request/CallToolHandler.php:78
    Shape("php-unknown-tool", "refund_order", {"id": "o-1"}, error(-32602, 'Tool not found: "refund_order".'),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, ("does not exist",), relist=True),
    # CallToolHandler.php:89-97 with src/Capability/Discovery/SchemaValidator.php:270-276, 225-250 (its sentences)
    Shape("php-schema", "search", {"query": "mcp sdks", "limit": 500, "mode": "turbo"},
          error(-32602, "Invalid parameters for tool 'search': Property '/limit': Number must be less than or equal "
                        "to 100.; Property '/mode': Value must be one of the allowed values: \"fast\", \"slow\".",
                {"validation_errors": [
                    {"pointer": "/limit", "keyword": "maximum", "message": "Number must be less than or equal to 100."},
                    {"pointer": "/mode", "keyword": "enum",
                     "message": "Value must be one of the allowed values: \"fast\", \"slow\"."}]}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`limit` must be at most 100", "`mode` must be one of fast, slow"),
          never=("`Number`", "`Value`", "500", "turbo"), args_note=True),
    # SchemaValidator.php:215-218 at the root pointer: no "Property" prefix
    Shape("php-required", "add", {"a": 1},
          error(-32602, "Invalid parameters for tool 'add': Missing required properties: `b`.",
                {"validation_errors": [{"pointer": "/", "keyword": "required",
                                        "message": "Missing required properties: `b`."}]}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`b` is required",), args_note=True),
    # CallToolHandler.php:170: an unhandled exception, its message not echoed
    Shape("php-crash", "get_forecast", {"city": "Lyon"}, error(-32603, "Error while executing tool"),
          FailureClass.UNKNOWN, Channel.PROTOCOL, never=("invalid arguments",)),
    # src/Server/Protocol.php:349
    Shape("php-method", "add", {"a": 1, "b": 2}, error(-32601, 'No handler found for method "tools/call".'),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, relist=True),
    # ---------------------------------------------------------------- community: hermes-mcp (Elixir), php-mcp/server
    # cloudwalk/hermes-mcp 622d058, lib/hermes/server/handlers/tools.ex:34-35: message "Invalid params", the words in
    # data.message. The tool is listed (a stale listing): only the data says it is gone.
    Shape("hermes-unknown-listed", "get_forecast", {"city": "Lyon"},
          error(-32602, "Invalid params", {"message": "Tool not found: get_forecast"}),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, ("does not exist",), relist=True),
    # tools.ex:44-46 with lib/hermes/server/component/schema.ex:51-58 ("<path>: <message>" joined by "; ") and
    # zoedsoupe/peri 15c9190 lib/peri.ex:1393 ("expected type of %{expected} received %{actual} value")
    Shape("hermes-peri", "search", {"limit": "ten"},
          error(-32602, "Invalid params",
                {"message": 'query: is required; limit: expected type of :integer received "ten" value'}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`query` is required", "`limit` must be an integer"),
          never=("ten",), args_note=True),
    # php-mcp/server d2c5833, src/Dispatcher.php:161 + src/Exception/McpServerException.php:84
    Shape("php-mcp-unknown-tool", "refund_order", {"id": "o-1"},
          error(-32601, "Method not found: Tool 'refund_order' not found."),
          FailureClass.NOT_FOUND, Channel.PROTOCOL, ("does not exist",), relist=True),
    # src/Elements/RegisteredElement.php:108-110: a missing argument answered as -32603: still the caller's mistake
    Shape("php-mcp-missing", "search", {"limit": 5},
          error(-32603, "Missing required argument `query` for App\\Tools\\Search::search."),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL),
    # ---------------------------------------------------------------- -32602 whose specifics are only in data
    Shape("data-field-reason", "search", {"query": "mcp sdks", "limit": 500},
          error(-32602, "Invalid params", {"field": "limit", "reason": "must be at most 100"}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`limit` must be at most 100",), never=("500",),
          args_note=True),
    Shape("data-ajv", "add", {"a": "seven", "b": 2},
          error(-32602, "Invalid params", [{"instancePath": "/a", "schemaPath": "#/properties/a/type", "keyword": "type",
                                             "params": {"type": "number"}, "message": "must be number"}]),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`a` must be a number",), never=("seven",), args_note=True),
    Shape("data-zod", "search", {"query": "ab"},
          error(-32602, "Invalid arguments", {"issues": [{"code": "too_small", "minimum": 3, "type": "string",
                                                          "inclusive": True, "path": ["query"],
                                                          "message": "String must contain at least 3 character(s)"}]}),
          FailureClass.INVALID_INPUT, Channel.PROTOCOL, ("`query` must be at least 3 characters",), args_note=True),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.case for s in SHAPES])
async def test_sdk_answers_through_the_client(shape: Shape, tmp_path: Path) -> None:
    """The replayed SDK answer gets its class, channel, note and re-listing; no value sent is quoted back."""
    params, log = peer(tmp_path, TOOLS, {shape.tool: shape.answer})
    async with ToolClient(params, timeout=5) as tc:
        result = await tc.call_tool(shape.tool, shape.arguments)
    assert (result.failure_class, result.channel) == (shape.failure_class, shape.channel), result.text
    for said in shape.says:
        assert said in result.text, result.text
    for unsaid in shape.never:
        assert unsaid not in result.text, result.text
    assert ("was rejected: invalid arguments" in result.text) is shape.args_note, result.text
    lists = len(log.received("tools/list"))
    assert (lists >= 2) is shape.relist, (lists, result.text)


SEARCH = TOOLS[1]["inputSchema"]


@pytest.mark.parametrize(
    ("message", "says"),
    [
        # json_schemer (ruby-sdk's lib/mcp/tool/input_schema.rb:23 joins them with ", "):
        # validation.rb:22, 28, 67, 77, 107, 117, 127, 137, 147, 157; applicator.rb:303
        ("Invalid arguments: value at `/query` is not a string", "`query` must be a string"),
        ('Invalid arguments: value at `/limit` is not one of the types: ["integer", "null"]',
         "`limit` must be an integer or a null"),
        ('Invalid arguments: value at `/mode` is not one of: ["fast", "slow"]', "`mode` must be one of fast, slow"),
        ('Invalid arguments: value at `/mode` is not: "fast"', '`mode` must be exactly "fast"'),
        ("Invalid arguments: number at `/limit` is greater than or equal to: 100", "`limit` must be less than 100"),
        ("Invalid arguments: number at `/limit` is less than: 1", "`limit` must be at least 1"),
        ("Invalid arguments: number at `/limit` is less than or equal to: 0", "`limit` must be greater than 0"),
        ("Invalid arguments: string length at `/query` is greater than: 200", "`query` must be at most 200 characters"),
        ("Invalid arguments: string length at `/query` is less than: 3", "`query` must be at least 3 characters"),
        ("Invalid arguments: string at `/query` does not match pattern: ^[a-z ]+$",
         "`query` must be a string matching ^[a-z ]+$"),
        ("Invalid arguments: object property at `/verbose` is a disallowed additional property",
         "`verbose` is not an accepted argument"),
        ("Invalid arguments: object at `/filter` is missing required properties: field, op",
         "`filter.field` is required; `filter.op` is required"),
        # PHP SDK (src/Capability/Discovery/SchemaValidator.php:220-316), joined by "; " (CallToolHandler.php:89-92)
        ("Invalid parameters for tool 'search': Property '/limit': Invalid type. Expected `integer`, but received "
         "`string`.", "`limit` must be an integer"),
        ("Invalid parameters for tool 'search': Property '/limit': Number must be strictly greater than 0.",
         "`limit` must be greater than 0"),
        ("Invalid parameters for tool 'search': Property '/query': String must not be longer than 200 characters.",
         "`query` must be at most 200 characters"),
        ("Invalid parameters for tool 'search': Property '/query': String does not match the required pattern: "
         "`^[a-z]+$`.", "`query` must be a string matching ^[a-z]+$"),
        ("Invalid parameters for tool 'search': Property '/mode': Value must be equal to the constant value: "
         '"fast".', '`mode` must be exactly "fast"'),
        ("Invalid parameters for tool 'search': Object contains unexpected additional properties: `verbose`, `debug`.",
         "`verbose` is not an accepted argument; `debug` is not an accepted argument"),
        ("Invalid parameters for tool 'search': Property '/filter': Missing required properties: `op`.",
         "`filter.op` is required"),
        # Ruby SDK's own check (lib/mcp/server.rb:1239), backticked or not
        ("Missing required arguments: query", "`query` is required"),
    ],
)
def test_validator_reports_name_the_argument(message: str, says: str) -> None:
    """json_schemer's and the PHP SDK's reports give the argument's path and rule, never the subject word."""
    reading = read_text(message, "search", frozenset(SEARCH["properties"]))
    assert reading.arguments_rejected, message
    note = invalid_params_note("search", message, {"query": "ab", "limit": "lots"}, SEARCH)
    assert says in note, note
    assert "`Number`" not in note and "`String`" not in note and "`Value`" not in note, note


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"field": "limit", "reason": "must be at most 100"}, "`limit` must be at most 100"),
        ({"param": "query", "error": "is required"}, "`query` is required"),
        ([{"path": ["limit"], "message": "500 is greater than the maximum of 100", "validator": "maximum"}],
         "`limit` must be at most 100"),
        ([{"instancePath": "", "keyword": "required", "params": {"missingProperty": "query"},
           "message": "must have required property 'query'"}], "`query` is required"),
        ([{"dataPath": ".limit", "keyword": "type", "params": {"type": "integer"}, "message": "should be integer"}],
         "`limit` must be an integer"),
        ([{"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["query"],
           "message": "Required"}], "`query` is required"),
        ({"formErrors": [], "fieldErrors": {"limit": ["Expected number, received string"]}}, "`limit` must be a number"),
        ({"errors": {"query": ["The query field is required."]}}, "`query` is required"),
        ({"violations": [{"propertyPath": "limit", "message": "This value should be less than or equal to 100."}]},
         "`limit` must be at most 100"),
        ({"details": {"limit": "must be an integer"}}, "`limit` must be an integer"),
        ({"limit": "must be at most 100"}, "`limit` must be at most 100"),
        ({"detail": "Missing 'query' parameter"}, "`query` is required"),
        ("'query' is a required property", "`query` is required"),
        ({"validation_errors": [{"pointer": "/", "keyword": "required", "message": "Missing required properties: `query`."}]},
         "`query` is required"),
        # Peri (zoedsoupe/peri lib/peri.ex:968, 950, 984, 1245) as hermes-mcp joins it, its "then" spelling too
        ({"message": "limit: should be less then or equal to 100"}, "`limit` must be at most 100"),
        ({"message": "limit: should be greater then 0"}, "`limit` must be greater than 0"),
        ({"message": "limit: should be in the range of 1..100 (inclusive)"}, "`limit` must be between 1 and 100"),
        ({"message": 'mode: expected one of ["fast", "slow"] received "turbo"'}, "`mode` must be one of fast, slow"),
    ],
)
def test_data_alone_names_the_argument(data: Any, says: str) -> None:
    """-32602 with a generic message: ``error.data`` (string, object, issue list, map) names the argument."""
    note = invalid_params_note("search", "Invalid params", {"limit": 500}, SEARCH, data=data)
    assert says in note, note
    assert "500" not in note, note


def test_data_that_names_nothing_adds_no_raw_text() -> None:
    """Structured data without an argument in it never reaches the note raw: only the generic note stays."""
    data = {"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "retryable": False}
    note = invalid_params_note("search", "Invalid params", {"query": "x"}, SEARCH, data=data)
    assert note == "search was rejected: invalid arguments. Fix the arguments and call again.", note


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the SDKs' wrappers around a tool's exception: the class comes from what follows, the wrapper adds nothing
        ("An error occurred invoking 'get_forecast'.", FailureClass.UNKNOWN),  # C# McpServerImpl.cs:1729
        ("An error occurred invoking 'get_forecast': Forecast for Lyon not found", FailureClass.NOT_FOUND),
        ("Error executing tool get_forecast: null", FailureClass.UNKNOWN),  # Kotlin Server.kt:668
        ("Error executing tool get_forecast: Read timed out", FailureClass.UPSTREAM_UNAVAILABLE),
        ("Error executing tool get_forecast: HTTP 429 Too Many Requests", FailureClass.RATE_LIMITED),
        ("Internal error calling tool get_forecast", FailureClass.UNKNOWN),  # Ruby server.rb:1285
    ],
)
def test_tool_exception_wrappers(text: str, expected: FailureClass) -> None:
    """A wrapped tool exception is the tool's failure, never a rejected argument or an unknown tool."""
    reading = read_text(text, "get_forecast", frozenset({"city"}))
    assert (reading.failure_class, reading.unknown_tool, reading.arguments_rejected) == (expected, False, False)


@pytest.mark.parametrize(
    ("code", "message", "expected"),
    [
        # Kotlin Protocol.kt:867 (the SDK's own timer, data {"timeout": ms}); Ruby streamable_http_transport.rb:576
        # (a nested sampling request the client never answered, -32001)
        (-32001, "Request timed out", FailureClass.UPSTREAM_UNAVAILABLE),
        (-32001, "sampling/createMessage request timed out after 30 seconds", FailureClass.UPSTREAM_UNAVAILABLE),
        # Kotlin Protocol.kt:445 / Swift Error.swift:97
        (-32000, "Connection closed", FailureClass.UPSTREAM_UNAVAILABLE),
        # Kotlin Protocol.kt:532: load shed before dispatch, as -32603
        (-32603, "Server is busy: too many in-flight messages", FailureClass.UPSTREAM_UNAVAILABLE),
    ],
)
def test_sdk_protocol_codes(code: int, message: str, expected: FailureClass) -> None:
    """Timeouts, closed connections and a busy server land on their class by code and words."""
    assert class_for_jsonrpc_error(code, message) is expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # kotlinx.serialization decoding a Kotlin SDK tool's arguments, inside Server.kt:668's wrapper
        ("Error executing tool search: Unexpected JSON token at offset 7: Expected numeric literal at path: $.limit",
         "`limit` must be a number"),
        ("Error executing tool search: Unexpected JSON token at offset -1: Failed to parse literal '\"ten\"' as an int "
         "value at path: $.limit", "`limit` must be an integer"),
        ("Error executing tool search: Field 'query' is required for type with serial name 'SearchArgs', but it was "
         "missing at path: $", "`query` is required"),
    ],
)
def test_kotlinx_reports_name_the_argument(text: str, says: str) -> None:
    """kotlinx.serialization's path names the argument; the value it failed on is never quoted."""
    reading = read_text(text, "search", frozenset(SEARCH["properties"]))
    assert reading.arguments_rejected, text
    note = invalid_params_note("search", text, {"limit": "ten"}, SEARCH)
    assert says in note and "ten" not in note, note


@pytest.mark.parametrize(
    "text",
    [
        # the same decoder failing on an upstream's body: the root, or a field the tool does not declare
        "Error executing tool search: Unexpected JSON token at offset 0: Expected start of the object '{', but had "
        "'EOF' instead at path: $",
        "Error executing tool search: Unexpected JSON token at offset 3: Expected numeric literal at path: $.price",
    ],
)
def test_kotlinx_upstream_decoding_is_the_tools_failure(text: str) -> None:
    """A decode failure outside the declared arguments is the tool's own failure, not a rejected call."""
    reading = read_text(text, "search", frozenset(SEARCH["properties"]))
    assert not reading.arguments_rejected and reading.failure_class is FailureClass.UNKNOWN, reading
