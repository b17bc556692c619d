// A real MCP server on mark3labs/mcp-go whose tools fail every way a foreign server can fail, for errscope's
// ToolClient and proxy tests.
//
//	mcpgo-server --transport stdio|http [--port N]
//
// Built the way the SDK recommends for new servers (WithInputSchemaValidation, WithRecovery); the failures
// are the SDK's own answers, never errscope's. FakeSecret is not a credential: tests assert it never reaches
// the model text or telemetry.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const FakeSecret = "sk_live_51FAKEerrscopeTestKey0000000000000000"

type handler = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)

func tool(s *server.MCPServer, name, schema string, h handler) {
	s.AddTool(mcp.NewToolWithRawSchema(name, name, json.RawMessage(schema)), h)
}

func num(req mcp.CallToolRequest, key string) float64 { return req.GetFloat(key, 0) }

func build() *server.MCPServer {
	s := server.NewMCPServer("errscope-mcpgo-failing", "1.0.0",
		server.WithToolCapabilities(false), server.WithInputSchemaValidation(), server.WithRecovery())
	tool(s, "add", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(num(req, "a") + num(req, "b"))), nil
		})
	tool(s, "create_label", `{"type":"object","properties":{
		"order_id":{"type":"string","pattern":"^ORD-\\d{4}$"},
		"weight_kg":{"type":"number","exclusiveMinimum":0,"maximum":30},
		"service":{"type":"string","enum":["ground","express"]},
		"email":{"type":"string","format":"email"}},
		"required":["order_id","weight_kg","service"]}`,
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("label for " + req.GetString("order_id", "")), nil
		})
	tool(s, "ship", `{"type":"object","properties":{
		"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^\\d{5}$"}},"required":["city","zip"]},
		"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},
		"required":["address","items"]}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("shipping"), nil
		})
	// A tool reading its arguments with the SDK's own helpers (RequireString, BindArguments), as most mcp-go
	// servers do: its schema leaves the checks to them.
	tool(s, "list_orders", `{"type":"object","properties":{"customer":{},"limit":{}}}`,
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			customer, err := req.RequireString("customer")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			var page struct {
				Limit int `json:"limit"`
			}
			if err := req.BindArguments(&page); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("%d orders of %s", page.Limit, customer)), nil
		})
	tool(s, "find_order", `{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`,
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(fmt.Sprintf("order %s not found", req.GetString("order_id", ""))), nil
		})
	tool(s, "delete_repo", `{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("permission denied: the token lacks the admin scope for this repository"), nil
		})
	tool(s, "search", `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("rate limited by the search backend: too many requests, retry after 2 seconds"), nil
		})
	// mcp-go's documented way to report a failed call the model should see, with the Go error attached.
	tool(s, "charge_card", `{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := errors.New("dial tcp 127.0.0.1:9: connect: connection refused; request had Authorization: Bearer " + FakeSecret)
			return mcp.NewToolResultErrorFromErr("payments API unavailable", err), nil
		})
	// A handler returning a Go error: the SDK answers with a JSON-RPC error (-32603) carrying err.Error().
	tool(s, "refund", `{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("refunds API unavailable: upstream returned 503 (token " + FakeSecret + ")")
		})
	tool(s, "export_report", `{"type":"object","properties":{"month":{"type":"string"}}}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(fmt.Sprintf("export failed: panic: runtime error: invalid memory address or nil pointer dereference (api_key=%s)\n\n%s", FakeSecret, debug.Stack())), nil
		})
	// WithRecovery turns the panic into a JSON-RPC error.
	tool(s, "explode", `{"type":"object","properties":{}}`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var items []int
			return mcp.NewToolResultText(fmt.Sprint(items[3])), nil
		})
	tool(s, "sleep", `{"type":"object","properties":{"seconds":{"type":"number"}},"required":["seconds"]}`,
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(num(req, "seconds") * float64(time.Second))):
				return mcp.NewToolResultText("woke up"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	tool(s, "slow_report", `{"type":"object","properties":{"steps":{"type":"integer"},"delay_ms":{"type":"number"}},"required":["steps","delay_ms"]}`,
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			steps := int(num(req, "steps"))
			for i := 1; i <= steps; i++ {
				time.Sleep(time.Duration(num(req, "delay_ms")) * time.Millisecond)
				if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
					_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": steps})
				}
			}
			return mcp.NewToolResultText(fmt.Sprintf("report done after %d steps", steps)), nil
		})
	return s
}

func main() {
	transport := flag.String("transport", "stdio", "stdio or http")
	port := flag.Int("port", 0, "port on 127.0.0.1 for http")
	flag.Parse()
	s := build()
	if *transport == "stdio" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Fprintf(os.Stderr, "listening %d\n", *port)
	log.Fatal(server.NewStreamableHTTPServer(s).Start(fmt.Sprintf("127.0.0.1:%d", *port)))
}
