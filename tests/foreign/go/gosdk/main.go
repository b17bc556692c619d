// A real MCP server on the official Go SDK (github.com/modelcontextprotocol/go-sdk) whose tools fail every
// way a foreign server can fail, for errscope's ToolClient and proxy tests.
//
//	gosdk-server --transport stdio|http [--port N]
//
// Arguments are validated by the SDK against each tool's input schema; the failures are the SDK's own
// answers, never errscope's. FakeSecret is not a credential: tests assert it never reaches the model text
// or telemetry.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const FakeSecret = "sk_live_51FAKEerrscopeTestKey0000000000000000"

func text(t string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: t}} }

func failed(t string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: text(t)}
}

type Args map[string]any

func tool(s *mcp.Server, name, schema string, h func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error)) {
	t := &mcp.Tool{Name: name, Description: name, InputSchema: json.RawMessage(schema)}
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, any, error) {
		res, err := h(ctx, req, in)
		return res, nil, err
	})
}

func build() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "errscope-gosdk-failing", Version: "1.0.0"}, nil)
	tool(s, "add", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text(fmt.Sprint(in["a"].(float64) + in["b"].(float64)))}, nil
		})
	tool(s, "create_label", `{"type":"object","properties":{
		"order_id":{"type":"string","pattern":"^ORD-\\d{4}$"},
		"weight_kg":{"type":"number","exclusiveMinimum":0,"maximum":30},
		"service":{"type":"string","enum":["ground","express"]},
		"email":{"type":"string","format":"email"}},
		"required":["order_id","weight_kg","service"]}`,
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text(fmt.Sprint("label for ", in["order_id"]))}, nil
		})
	tool(s, "ship", `{"type":"object","properties":{
		"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^\\d{5}$"}},"required":["city","zip"]},
		"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},
		"required":["address","items"]}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("shipping")}, nil
		})
	tool(s, "find_order", `{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`,
		func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, error) {
			return failed(fmt.Sprintf("order %v not found", in["order_id"])), nil
		})
	tool(s, "delete_repo", `{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return failed("permission denied: the token lacks the admin scope for this repository"), nil
		})
	tool(s, "search", `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return failed("rate limited by the search backend: too many requests, retry after 2 seconds"), nil
		})
	tool(s, "charge_card", `{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return failed("payments API unavailable: dial tcp 127.0.0.1:9: connect: connection refused; request had Authorization: Bearer " + FakeSecret), nil
		})
	// A handler returning a Go error: the SDK turns it into an isError result with err.Error() as the text.
	tool(s, "refund", `{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("refunds API unavailable: %w", errors.New("upstream returned 503 (token "+FakeSecret+")"))
		})
	// The texts careless Go tools send: a recovered panic with its goroutine dump and a key in the message.
	tool(s, "export_report", `{"type":"object","properties":{"month":{"type":"string"}}}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return failed(fmt.Sprintf("export failed: panic: runtime error: invalid memory address or nil pointer dereference (api_key=%s)\n\n%s", FakeSecret, debug.Stack())), nil
		})
	// An oversized answer: a Go error (the SDK puts its text into an isError result) of 2 MiB, the key at its end.
	tool(s, "dump", `{"type":"object","properties":{}}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("upstream returned 502 Bad Gateway: %s (api_key=%s)", strings.Repeat("<td>row</td>", 2<<20/12), FakeSecret)
		})
	// The SDK does not recover handler panics.
	tool(s, "explode", `{"type":"object","properties":{}}`,
		func(context.Context, *mcp.CallToolRequest, Args) (*mcp.CallToolResult, error) {
			var items []int
			return failed(fmt.Sprint(items[3])), nil
		})
	tool(s, "sleep", `{"type":"object","properties":{"seconds":{"type":"number"}},"required":["seconds"]}`,
		func(ctx context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(in["seconds"].(float64) * float64(time.Second))):
				return &mcp.CallToolResult{Content: text("woke up")}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	tool(s, "slow_report", `{"type":"object","properties":{"steps":{"type":"integer"},"delay_ms":{"type":"number"}},"required":["steps","delay_ms"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, error) {
			steps := int(in["steps"].(float64))
			for i := 1; i <= steps; i++ {
				time.Sleep(time.Duration(in["delay_ms"].(float64)) * time.Millisecond)
				if token := req.Params.GetProgressToken(); token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(steps)})
				}
			}
			return &mcp.CallToolResult{Content: text(fmt.Sprintf("report done after %d steps", steps))}, nil
		})
	return s
}

func main() {
	transport := flag.String("transport", "stdio", "stdio or http")
	port := flag.Int("port", 0, "port on 127.0.0.1 for http")
	flag.Parse()
	s := build()
	if *transport == "stdio" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	fmt.Fprintf(os.Stderr, "listening %d\n", *port)
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), mux))
}
