// Preloaded with `node --require`: every server of the process listens on 127.0.0.1 when it names no host.
// server-everything's streamableHttp calls app.listen(PORT), which would bind all interfaces; tests and
// benchmarks here talk to 127.0.0.1 only.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const numeric = typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port));
  if (numeric && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};
