// A real TypeScript SDK server whose tools fail every way a foreign MCP server can fail.
//
//   node ts_failing_server.mjs --sdk v2|v1|v1-old|sdk-1-12|sdk-1-24 --transport stdio|http [--port N]
//
// v2 is `@modelcontextprotocol/server` (McpServer + createMcpHandler), v1 is `@modelcontextprotocol/sdk`
// (McpServer + StreamableHTTPServerTransport); older v1 releases are npm aliases of the same package (see
// tests/npm/package.json): v1-old (`sdk-v1-old`, 1.17.5, zod 3), sdk-1-12 (1.12.1, zod 3) and sdk-1-24 (1.24.3,
// zod 4). All register the same tools, so a test can compare how SDK releases put the same failure on the
// wire. On HTTP it prints `listening <port>` once it accepts.
// FAKE_SECRET is not a credential: tests assert it never reaches the model text or telemetry.
import http from "node:http";
import net from "node:net";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    sdk: { type: "string", default: "v2" },
    transport: { type: "string", default: "stdio" },
    port: { type: "string", default: "0" },
  },
});

export const FAKE_SECRET = "sk_live_51FAKEerrscopeTestKey0000000000000000";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const V1_PACKAGES = { v1: "@modelcontextprotocol/sdk", "v1-old": "sdk-v1-old" };

// Each release validates with the zod it depends on (zod 4 at the top, zod 3 nested under the older aliases).
async function loadSdk(release) {
  const v1 = V1_PACKAGES[release] ?? (release.startsWith("sdk-1-") ? release : undefined);
  if (v1 !== undefined) {
    const mcp = `${v1}/server/mcp.js`;
    const { McpServer } = await import(mcp);
    const { McpError } = await import(`${v1}/types.js`);
    const { z } = createRequire(import.meta.resolve(mcp))("zod");
    return { McpServer, ProtocolError: McpError, z, package: v1 };
  }
  const { McpServer, ProtocolError } = await import("@modelcontextprotocol/server");
  const { z } = await import("zod");
  return { McpServer, ProtocolError, z };
}

const sdk = await loadSdk(opts.sdk);
const z = sdk.z;
const schema = (shape) => (sdk.package ? shape : z.object(shape));
const text = (t) => [{ type: "text", text: t }];

// The progress token and the notifier differ between the majors' handler contexts.
function progressOf(ctx) {
  const meta = ctx?.mcpReq?._meta ?? ctx?._meta;
  const notify = ctx?.mcpReq?.notify ?? ctx?.sendNotification;
  return { token: meta?.progressToken, notify };
}

// A payments API on 127.0.0.1 that reads each request whole, then stalls or hangs up without answering.
const paymentsApis = {};
async function paymentsApi(behaviour) {
  if (!paymentsApis[behaviour]) {
    const api = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => (behaviour === "hang_up" ? req.socket.destroy() : undefined));
    });
    await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
    api.unref();
    paymentsApis[behaviour] = `http://127.0.0.1:${api.address().port}`;
  }
  return paymentsApis[behaviour];
}

// A port on 127.0.0.1 that accepts and closes every connection at once: a TLS client there never gets its handshake.
let tlsDropper;
async function tlsDroppedPort() {
  if (!tlsDropper) {
    tlsDropper = net.createServer((socket) => socket.destroy());
    await new Promise((resolve) => tlsDropper.listen(0, "127.0.0.1", resolve));
    tlsDropper.unref();
  }
  return tlsDropper.address().port;
}

async function closedPort() {
  const probe = http.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function build() {
  const server = new sdk.McpServer({ name: `errscope-ts-failing-${opts.sdk}`, version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: schema({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: text(String(a + b)) }),
  );
  server.registerTool(
    "create_label",
    {
      description: "Create a shipping label",
      inputSchema: schema({
        order_id: z.string().regex(/^ORD-\d{4}$/),
        weight_kg: z.number().positive().max(30),
        service: z.enum(["ground", "express"]),
        email: z.string().email().optional(),
      }),
    },
    async ({ order_id }) => ({ content: text(`label for ${order_id}`) }),
  );
  server.registerTool(
    "ship",
    {
      description: "Ship items to an address",
      inputSchema: schema({
        address: z.object({ city: z.string(), zip: z.string().regex(/^\d{5}$/) }),
        items: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })),
      }),
    },
    async ({ items }) => ({ content: text(`shipping ${items.length} items`) }),
  );
  server.registerTool(
    "find_order",
    { description: "Look an order up", inputSchema: schema({ order_id: z.string() }) },
    async ({ order_id }) => ({ isError: true, content: text(`Order ${order_id} not found (404)`) }),
  );
  server.registerTool(
    "charge_card",
    { description: "Charge a card through the payments API", inputSchema: schema({ amount: z.number() }) },
    async () => {
      throw new Error(`payments API refused the connection (ECONNREFUSED); request had Authorization: Bearer ${FAKE_SECRET}`);
    },
  );
  server.registerTool(
    "protocol_error",
    { description: "Raise a protocol error with the given code", inputSchema: schema({ code: z.number().int() }) },
    async ({ code }) => {
      throw new sdk.ProtocolError(code, `deliberate protocol error ${code} (key ${FAKE_SECRET})`);
    },
  );
  server.registerTool(
    "search",
    { description: "Search, with a quota", inputSchema: schema({ query: z.string() }) },
    async () => ({ isError: true, content: text("429 Too Many Requests: rate limit exceeded, retry after 2 seconds") }),
  );
  server.registerTool(
    "refund_via_api",
    {
      description: "Refund through the payments API (a local one that stalls, or hangs up once it has the request)",
      inputSchema: schema({ api: z.enum(["stall", "hang_up", "refused", "tls_dropped"]), with_cause: z.boolean().optional() }),
    },
    async ({ api, with_cause }) => {
      // Node's own fetch (undici) against a real socket: the error texts are the runtime's, not ours. undici says
      // only "fetch failed"; a careful tool adds its cause ("other side closed", "connect ECONNREFUSED …").
      const url = api === "refused" ? `http://127.0.0.1:${await closedPort()}/refunds`
        : api === "tls_dropped" ? `https://127.0.0.1:${await tlsDroppedPort()}/refunds` : `${await paymentsApi(api)}/refunds`;
      try {
        await fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(300) });
      } catch (e) {
        if (with_cause && e.cause) throw new Error(`${e.message} (${e.cause.message})`);
        throw e;
      }
      return { content: text("refunded") };
    },
  );
  server.registerTool(
    "slow_report",
    { description: "Report progress, then finish", inputSchema: schema({ steps: z.number().int(), delay_ms: z.number() }) },
    async ({ steps, delay_ms }, ctx) => {
      const { token, notify } = progressOf(ctx);
      for (let i = 1; i <= steps; i++) {
        await sleep(delay_ms);
        if (token !== undefined && notify) {
          await notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
        }
      }
      return { content: text(`report done after ${steps} steps`) };
    },
  );
  return server;
}

// Node's http server in front of the v2 web-standard handler (what @modelcontextprotocol/node's toNodeHandler does).
async function v2HttpListener() {
  const { createMcpHandler } = await import("@modelcontextprotocol/server");
  const handler = createMcpHandler(() => build());
  return async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  };
}

// v1: one stateless transport and server per request, the SDK's documented stateless pattern.
async function v1HttpListener() {
  const { StreamableHTTPServerTransport } = await import(`${sdk.package}/server/streamableHttp.js`);
  return async (req, res) => {
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}

if (opts.transport === "stdio") {
  if (sdk.package) {
    const { StdioServerTransport } = await import(`${sdk.package}/server/stdio.js`);
    await build().connect(new StdioServerTransport());
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/server/stdio");
    await build().connect(new StdioServerTransport());
  }
} else {
  const listener = sdk.package ? await v1HttpListener() : await v2HttpListener();
  const httpServer = http.createServer((req, res) => {
    listener(req, res).catch((err) => {
      process.stderr.write(`http handler failed: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  httpServer.listen(Number(opts.port), "127.0.0.1", () => {
    process.stdout.write(`listening ${httpServer.address().port}\n`);
  });
}
