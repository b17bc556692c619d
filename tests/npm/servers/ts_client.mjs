// A real TypeScript SDK client that calls a server's tools and prints what its SDK made of each answer.
//
//   node ts_client.mjs --sdk v2|v1|sdk-1-12|sdk-1-24 --calls '<JSON [[name, args, timeoutMs?], ...]>'
//                      (--url http://127.0.0.1:PORT/mcp | -- COMMAND ARG...)
//
// v2 is `@modelcontextprotocol/client`, v1 `@modelcontextprotocol/sdk`, older v1 releases the npm aliases of
// tests/npm/package.json. The client lists the tools first (v1 then checks structured results against each tool's
// outputSchema), then makes each call through the SDK's own `callTool`, which parses the response with the SDK's
// schemas. One JSON document goes to stdout: {"protocolVersion", "tools": [names], "calls": [{"result": ...} |
// {"error": {"name", "code", "message", "data"}}]}. A call the SDK could not parse shows up as an error whose code
// is not the server's (-32602/-32601 come from the server; ZodError/TypeError from the client).
import { parseArgs } from "node:util";

const { values: opts, positionals } = parseArgs({
  options: {
    sdk: { type: "string", default: "v2" },
    calls: { type: "string", default: "[]" },
    url: { type: "string" },
  },
  allowPositionals: true,
});

const V1_PACKAGES = { v1: "@modelcontextprotocol/sdk", "v1-old": "sdk-v1-old" };

async function loadSdk(release) {
  const v1 = V1_PACKAGES[release] ?? (release.startsWith("sdk-1-") ? release : undefined);
  if (v1 !== undefined) {
    const { Client } = await import(`${v1}/client/index.js`);
    const { StdioClientTransport } = await import(`${v1}/client/stdio.js`);
    const { StreamableHTTPClientTransport } = await import(`${v1}/client/streamableHttp.js`);
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, v1: true };
  }
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  return { Client, StdioClientTransport, StreamableHTTPClientTransport };
}

const sdk = await loadSdk(opts.sdk);
const transport = opts.url
  ? new sdk.StreamableHTTPClientTransport(new URL(opts.url))
  : new sdk.StdioClientTransport({ command: positionals[0], args: positionals.slice(1), env: process.env, stderr: "ignore" });
const client = new sdk.Client({ name: `errscope-foreign-${opts.sdk}`, version: "1.0.0" });
const out = { calls: [] };
try {
  await client.connect(transport);
  out.protocolVersion = transport.protocolVersion ?? client.getServerVersion?.()?.version;
  out.tools = (await client.listTools()).tools.map((tool) => tool.name);
  for (const [name, args, timeoutMs] of JSON.parse(opts.calls)) {
    try {
      const options = timeoutMs ? { timeout: timeoutMs } : undefined;
      // v1's callTool(params, resultSchema, options); v2's callTool(params, options)
      const result = sdk.v1
        ? await client.callTool({ name, arguments: args }, undefined, options)
        : await client.callTool({ name, arguments: args }, options);
      out.calls.push({ result });
    } catch (error) {
      out.calls.push({ error: { name: error?.constructor?.name, code: error?.code, message: String(error?.message), data: error?.data } });
    }
  }
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
