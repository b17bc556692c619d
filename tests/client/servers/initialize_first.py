"""A stdio server that exits unless the first request is ``initialize``, as rmcp 1.8 does.

rmcp 1.8 (the Rust SDK) over stdio answers an opening ``server/discover`` by exiting with
``ExpectedInitializeRequest`` (seen on the wire in tests/foreign; its build takes too long for CI).
This stands in for that behaviour in front of the plain ``MCPServer`` of ``plain_server.py``: the first
line decides, and everything after it is relayed unchanged to and from the real server.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

first = sys.stdin.buffer.readline()
if json.loads(first or b"{}").get("method") != "initialize":
    sys.stderr.write("Error: ExpectedInitializeRequest\n")
    sys.exit(1)
server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("plain_server.py"))], stdin=subprocess.PIPE)
assert server.stdin is not None


def relay() -> None:
    assert server.stdin is not None
    server.stdin.write(first)
    server.stdin.flush()
    for line in sys.stdin.buffer:
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()


threading.Thread(target=relay, daemon=True).start()
sys.exit(server.wait())
