// A real TypeScript SDK server (not instrumented by errscope) that counts every tool invocation in a file.
//
//   COUNTER=/path node ts_counting_server.mjs --sdk v2|v1
//
// Over stdio. Every tool first appends one line {"tool", "id"} to $COUNTER (the side effect, counted by
// the server), then, while this id has been seen at most `fail_times` times (always when 0), fails as
// `fail` says: "raise:<text>" throws an Error (an isError result), "protocol:<code>:<text>" throws the
// SDK's protocol error (a JSON-RPC error). Tools: send (no annotations), send_hinted (idempotentHint),
// read_report (readOnlyHint).
import { appendFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({ options: { sdk: { type: "string", default: "v2" } } });
const COUNTER = process.env.COUNTER;

async function loadSdk(release) {
  if (release === "v1") {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
    const { McpError } = await import("@modelcontextprotocol/sdk/types.js");
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { z } = await import("zod");
    return { McpServer, ProtocolError: McpError, StdioServerTransport, z, shape: (s) => s };
  }
  const { McpServer, ProtocolError } = await import("@modelcontextprotocol/server");
  const { StdioServerTransport } = await import("@modelcontextprotocol/server/stdio");
  const { z } = await import("zod");
  return { McpServer, ProtocolError, StdioServerTransport, z, shape: (s) => z.object(s) };
}

const sdk = await loadSdk(opts.sdk);
const z = sdk.z;

function record(tool, id) {
  appendFileSync(COUNTER, JSON.stringify({ tool, id }) + "\n");
  return readFileSync(COUNTER, "utf8").split("\n").filter((l) => l && JSON.parse(l).id === id).length;
}

const server = new sdk.McpServer({ name: `errscope-ts-counting-${opts.sdk}`, version: "1.0.0" });
const annotations = { send: {}, send_hinted: { idempotentHint: true }, read_report: { readOnlyHint: true } };
for (const [name, hints] of Object.entries(annotations)) {
  server.registerTool(
    name,
    {
      description: `Record one invocation (${name}), then fail or answer as asked`,
      inputSchema: sdk.shape({ id: z.string(), fail: z.string().optional(), fail_times: z.number().int().optional() }),
      annotations: hints,
    },
    async ({ id, fail = "", fail_times = 0 }) => {
      const seen = record(name, id);
      if (fail && (fail_times === 0 || seen <= fail_times)) {
        const [kind, ...rest] = fail.split(":");
        if (kind === "raise") throw new Error(rest.join(":"));
        if (kind === "protocol") throw new sdk.ProtocolError(Number(rest[0]), rest.slice(1).join(":"));
      }
      return { content: [{ type: "text", text: `done ${seen}` }] };
    },
  );
}
await server.connect(new sdk.StdioServerTransport());
