"""A stdio server's own stderr (its log) reaches the host's log through the proxy scrubbed, line by line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.proxy.conftest import ROOT, proxy_command

# Fake secrets in the shapes servers log them: a crash's environment dump and a driver's connection string.
# The last line has no newline: a server that dies mid-line still gets its words to the log.
LOGGING_SERVER = r"""
import json, sys
err = sys.stderr.buffer
err.write(b"starting orders server on stdio\n")
err.write(b"env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY0\n")
err.write(b"connecting to postgresql://orders:FAKE-pw-Zq81v@db.internal:5432/orders \xff\xfe\n")
err.write(b"x" * 200000 + b" token=ghp_FAKE0000aaaaBBBBccccDDDDeeeeFFFF1111\n")
err.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message["method"]}}) + "\n")
        sys.stdout.flush()
err.write(b"shutting down, last password=FAKE-pw-tail9")
err.flush()
"""


def test_the_servers_log_is_scrubbed(tmp_path: Path) -> None:
    server = tmp_path / "logging_server.py"
    server.write_text(LOGGING_SERVER)
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x/echo"}).encode() + b"\n"
    proxy = subprocess.run(proxy_command(tmp_path / "out", "--", sys.executable, str(server)),
                           input=frame, capture_output=True, cwd=ROOT, timeout=30)
    assert proxy.returncode == 0, proxy.stderr.decode()[-2000:]
    assert json.loads(proxy.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {"echo": "x/echo"}}
    log = proxy.stderr.decode()
    for secret in ("wJalrXUtnFEMI", "FAKE-pw-Zq81v", "ghp_FAKE0000", "FAKE-pw-tail9"):
        assert secret not in log
    lines = log.splitlines()
    assert "starting orders server on stdio" in lines
    assert "env: AWS_SECRET_ACCESS_KEY=[REDACTED]" in lines
    assert "connecting to postgresql://[REDACTED]@db.internal:5432/orders \ufffd\ufffd" in lines  # bad bytes as U+FFFD
    assert any(line.startswith("x" * 1000) for line in lines)  # a long line is relayed in pieces, each scrubbed
    assert "shutting down, last password=[REDACTED]" in lines
