"""Library log records are scrubbed by default: a fresh process, ``logging.basicConfig(level=DEBUG)``,
real httpx/httpx2/urllib3 requests to a real local HTTP server, uvicorn's own access formatter,
asyncio's unretrieved-exception report. Nothing but ``import errscope`` is configured."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PASSWORD = "FAKE-PW-42x"
QUERY_KEY = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

SCRIPT = textwrap.dedent(
    f"""
    import asyncio, gc, logging, sys, threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s|%(message)s")
    import errscope  # the only errscope line
    import httpx, httpx2, urllib3, uvicorn.logging

    class Ok(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    url = f"http://bot:{PASSWORD}@127.0.0.1:{{port}}/mcp?api_key={QUERY_KEY}"
    httpx.get(url)
    httpx2.get(url)
    urllib3.PoolManager().request("GET", url)

    # uvicorn's access formatter unpacks record.args: the record must keep its structure
    access = logging.getLogger("uvicorn.access")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(uvicorn.logging.AccessFormatter('ACCESS %(client_addr)s "%(request_line)s" %(status_code)s', use_colors=False))
    access.addHandler(handler)
    access.propagate = False
    access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/callback?token={GH}", "1.1", 200)

    async def main():
        async def fail():
            raise RuntimeError("upstream said password={PASSWORD}")
        task = asyncio.get_running_loop().create_task(fail())
        await asyncio.sleep(0)
        del task
    asyncio.run(main(), debug=True)
    gc.collect()
    logging.getLogger("app").info("untouched app record %s", "password-{PASSWORD}")
    """
)


def _run() -> str:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_library_records_are_scrubbed_in_a_fresh_process() -> None:
    out = _run()
    # each library really logged the request (so the absence of secrets means something)
    for logger in ("httpx|HTTP Request: GET", "httpx2", "urllib3.connectionpool|", "asyncio|"):
        assert logger in out, out
    library_lines = [line for line in out.splitlines() if not line.startswith("app|")]
    leaks = [line for line in library_lines if PASSWORD in line or QUERY_KEY in line or GH in line]
    assert leaks == []
    assert "127.0.0.1" in out and "api_key=[REDACTED]" in out
    # the access formatter got its five arguments back and rendered them
    assert 'ACCESS 127.0.0.1:5000 "GET /callback?token=[REDACTED] HTTP/1.1" 200' in out
    # records of the application's own loggers are left to the application
    assert f"app|untouched app record password-{PASSWORD}" in out
