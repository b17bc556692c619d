// A stdio MCP server on the Java MCP SDK (io.modelcontextprotocol.sdk:mcp) whose tools fail every way.
//
//   java -cp <classpath> errscope.FailingServer
//
// The tools mirror tests/npm/servers/ts_failing_server.mjs: arguments of the wrong type or missing (which the SDK
// does not check against the declared JSON Schema, so the tool's own code fails on them), a tool throwing (its
// message holds a fake secret), a tool reporting its own failure as an isError result, a quota, a slow tool and
// one that kills the process.
// FAKE_SECRET is not a credential: tests assert it never reaches the model text or telemetry.
package errscope;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

public final class FailingServer {
    static final String FAKE_SECRET = "sk_live_51FAKEerrscopeTestKey0000000000000000";
    static final McpJsonMapper JSON = McpJsonDefaults.getMapper();

    // The SDK checks no arguments against the input schema (only structured output against the output schema):
    // a tool reads its arguments itself, so a wrong type fails inside the tool, as in Java servers in the wild.
    static SyncToolSpecification tool(String name, String schema,
            BiFunction<McpSyncServerExchange, Map<String, Object>, CallToolResult> handler) {
        Tool tool = Tool.builder().name(name).description(name.replace('_', ' ')).inputSchema(JSON, schema).build();
        return SyncToolSpecification.builder().tool(tool)
                .callHandler((exchange, request) -> handler.apply(exchange, request.arguments())).build();
    }

    static CallToolResult text(String text) {
        return CallToolResult.builder().addTextContent(text).build();
    }

    static CallToolResult failed(String text) {
        return CallToolResult.builder().addTextContent(text).isError(true).build();
    }

    static double number(Object value) {
        return ((Number) value).doubleValue();
    }

    public static void main(String[] args) {
        String numbers = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
                + "\"required\":[\"a\",\"b\"]}";
        String label = "{\"type\":\"object\",\"properties\":{"
                + "\"order_id\":{\"type\":\"string\",\"pattern\":\"^ORD-\\\\d{4}$\"},"
                + "\"weight_kg\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":30},"
                + "\"service\":{\"type\":\"string\",\"enum\":[\"ground\",\"express\"]}},"
                + "\"required\":[\"order_id\",\"weight_kg\",\"service\"]}";
        String oneString = "{\"type\":\"object\",\"properties\":{\"%s\":{\"type\":\"string\"}},\"required\":[\"%s\"]}";
        String oneNumber = "{\"type\":\"object\",\"properties\":{\"%s\":{\"type\":\"number\"}},\"required\":[\"%s\"]}";
        List<SyncToolSpecification> tools = List.of(
                tool("add", numbers, (ex, a) -> text(String.valueOf((long) (number(a.get("a")) + number(a.get("b")))))),
                tool("create_label", label, (ex, a) -> text("label for " + a.get("order_id"))),
                tool("find_order", oneString.formatted("order_id", "order_id"),
                        (ex, a) -> failed("Order " + a.get("order_id") + " not found (404)")),
                tool("charge_card", oneNumber.formatted("amount", "amount"), (ex, a) -> {
                    throw new IllegalStateException("payments API refused the connection (Connection refused); "
                            + "request had Authorization: Bearer " + FAKE_SECRET);
                }),
                tool("export_report", oneString.formatted("month", "month"), (ex, a) -> {
                    try {
                        return text(Map.of("token", FAKE_SECRET).get("rows").toString());
                    } catch (NullPointerException e) {  // a careless author's report: the whole stack trace
                        var trace = new java.io.StringWriter();
                        e.printStackTrace(new java.io.PrintWriter(trace));
                        return failed("export of " + a.get("month") + " failed (token " + FAKE_SECRET + "): " + trace);
                    }
                }),
                tool("search", oneString.formatted("query", "query"),
                        (ex, a) -> failed("429 Too Many Requests: rate limit exceeded, retry after 2 seconds")),
                tool("sleep", oneNumber.formatted("seconds", "seconds"), (ex, a) -> {
                    try {
                        Thread.sleep((long) (number(a.get("seconds")) * 1000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return text("slept");
                }),
                tool("explode", "{\"type\":\"object\",\"properties\":{}}", (ex, a) -> {
                    Runtime.getRuntime().halt(3);  // the JVM dies mid-call, as on an OOM kill
                    return text("unreachable");
                }));
        McpServer.sync(new StdioServerTransportProvider(JSON))
                .serverInfo("errscope-java-failing", "1.0.0")
                .capabilities(ServerCapabilities.builder().tools(true).build())
                .tools(tools)
                .build();
    }
}
