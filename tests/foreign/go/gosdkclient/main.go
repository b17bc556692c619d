// A real Go MCP client (the official modelcontextprotocol/go-sdk) that calls a server's tools and prints what
// its SDK made of each answer, for errscope's tests of errscope-instrumented servers.
//
//	client -calls '[["name", {args}, timeoutMs?], ...]' [-url http://127.0.0.1:PORT/mcp | -- COMMAND ARG...]
//
// One JSON document goes to stdout: {"tools": [names], "calls": [{"result": CallToolResult} | {"error": {"code",
// "message"}}]}. A result the SDK could not decode shows up as an error with code 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	calls := flag.String("calls", "[]", "the calls, as JSON")
	url := flag.String("url", "", "a streamable HTTP endpoint (else the command after --)")
	flag.Parse()
	var list [][]json.RawMessage
	if err := json.Unmarshal([]byte(*calls), &list); err != nil {
		panic(err)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "errscope-foreign-go", Version: "1.0.0"}, nil)
	var transport mcp.Transport
	if *url != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: *url}
	} else {
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stderr = nil
		transport = &mcp.CommandTransport{Command: cmd}
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		panic(err)
	}
	defer session.Close()
	out := map[string]any{}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	names := []string{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	out["tools"] = names
	answers := []map[string]any{}
	for _, call := range list {
		var name string
		_ = json.Unmarshal(call[0], &name)
		var args any
		_ = json.Unmarshal(call[1], &args)
		callCtx, cancel := ctx, func() {}
		if len(call) > 2 {
			var ms int
			_ = json.Unmarshal(call[2], &ms)
			callCtx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
		}
		result, err := session.CallTool(callCtx, &mcp.CallToolParams{Name: name, Arguments: args})
		cancel()
		if err != nil {
			var wire *jsonrpc.Error
			if errors.As(err, &wire) {
				answers = append(answers, map[string]any{"error": map[string]any{"code": wire.Code, "message": wire.Message, "data": wire.Data}})
			} else {
				answers = append(answers, map[string]any{"error": map[string]any{"code": 0, "message": err.Error()}})
			}
			continue
		}
		answers = append(answers, map[string]any{"result": result})
	}
	out["calls"] = answers
	_ = json.NewEncoder(os.Stdout).Encode(out)
}
