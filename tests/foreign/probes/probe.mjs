// One GET per argument ("name=url") with Node's own HTTP clients, each failure printed the way TypeScript MCP servers
// turn it into a tool error; one JSON object on stdout: {"<client>/<name>": text}. argv: timeout_ms name=url ...
// Clients: "fetch" (global fetch, undici) as String(err); "fetch_cause" as err.message plus its cause's message in
// parentheses (what servers add so "fetch failed" says why); "http" (node:http / node:https) as String(err).
// A status >= 400 (neither client raises on one) becomes `HTTP error ${status}: ${statusText}`, the usual wrapper.
// Timeouts use each API's own: AbortSignal.timeout(ms) passed as `signal`.
import http from "node:http";
import https from "node:https";

const [timeoutMs, ...pairs] = process.argv.slice(2);
const timeout = Number(timeoutMs);

const withCause = (err) => (err && err.cause ? `${err.message} (${err.cause.message ?? String(err.cause)})` : err.message);

async function viaFetch(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeout) });
  if (!res.ok) throw new Error(`HTTP error ${res.status}: ${res.statusText}`);
  return res.text();
}

function viaHttp(url) {
  return new Promise((resolve, reject) => {
    const mod = url.startsWith("https:") ? https : http;
    const req = mod.get(url, { signal: AbortSignal.timeout(timeout) }, (res) => {
      if (res.statusCode >= 400) {
        res.resume();
        reject(new Error(`HTTP error ${res.statusCode}: ${res.statusMessage}`));
        return;
      }
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve(body));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

const out = {};
await Promise.all(pairs.map(async (pair) => {
  const [name, url] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
  try { await viaFetch(url); out[`fetch/${name}`] = out[`fetch_cause/${name}`] = null; } catch (err) {
    out[`fetch/${name}`] = String(err);
    out[`fetch_cause/${name}`] = withCause(err);
  }
  try { await viaHttp(url); out[`http/${name}`] = null; } catch (err) { out[`http/${name}`] = String(err); }
}));
process.stdout.write(JSON.stringify(out));
