"""Collect the exact words real MCP SDKs use to reject bad tool arguments and unknown tools.

``python -m tests.foreign.messages --write`` runs every SDK it can find (the TypeScript SDK v2, v1 and older
v1 releases 1.24, 1.17 and 1.12 from ``tests/npm``; the ``mcp`` 2.x SDK's ``MCPServer`` and FastMCP 4 from the
project venv; FastMCP 2 and 3, and the ``mcp`` 1.x SDK's FastMCP (1.30 and 1.9) and low-level ``Server``, from
the throwaway venvs ``scripts/tools.sh`` builds;
the Go SDKs ``go-sdk`` and ``mcp-go`` from ``tests/foreign/go``; the Rust SDK ``rmcp`` from ``tests/foreign/rust``),
makes the same bad calls on each over stdio with raw JSON-RPC, and writes what came back to
``tests/foreign/data/invalid_params_corpus.json``. The tests read that file, and one of them re-runs the capture
to check the file still says what the SDKs say.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tests.foreign.peers import NPM, PEER_VENVS, REPO, TS_FAILING_SERVER

CORPUS: Final = Path(__file__).parent / "data" / "invalid_params_corpus.json"
PY_SERVER: Final = Path(__file__).parent / "servers" / "py_validation_server.py"
GO_SERVERS: Final = Path(__file__).parent / "go"
RUST_SERVER: Final = Path(__file__).parent / "rust"
PROTOCOL_VERSION: Final = "2025-06-18"  # the handshake every SDK here accepts


@dataclass(frozen=True)
class Case:
    """One bad call and what its rejection must tell the model, read from the tools' schemas (not from output).

    ``expect`` maps each argument the note must name to words of which at least one must appear in what the
    note says it must be; ``None`` for an unknown tool.
    """

    name: str
    tool: str
    arguments: Any
    expect: dict[str, tuple[str, ...]] | None
    sent_values: tuple[str, ...] = ()


CASES: Final = (
    Case("wrong-type", "add", {"a": "seven", "b": 2}, {"a": ("number",)}, ("seven",)),
    Case("missing", "add", {"a": 1}, {"b": ("required",)}),
    Case(
        "constraints",
        "create_label",
        {"order_id": "x-17", "weight_kg": -1, "service": "airmail"},
        {"order_id": ("ORD", "pattern", "format"), "weight_kg": ("greater than 0",), "service": ("ground",)},
        ("x-17", "airmail"),
    ),
    Case(
        "too-big",
        "create_label",
        {"order_id": "ORD-1234", "weight_kg": 31, "service": "ground"},
        {"weight_kg": ("at most 30",)},
        ("31",),
    ),
    Case(
        "nested",
        "ship",
        {"address": {"city": 75001, "zip": "7500"}, "items": [{"sku": "A-1", "qty": 0}]},
        {"address.city": ("string",), "address.zip": ("matching", "format", "like"), "items.0.qty": ("at least 1",)},
        ("75001", "7500"),
    ),
    Case("not-an-object", "add", [1, 2], {}),
    Case("unknown-tool", "refund_everything", {}, None),
)


@dataclass(frozen=True)
class Peer:
    """An SDK to ask: how to start its server, and how to read the versions that shape its wording."""

    name: str
    argv: Callable[[], list[str] | None]  # None when the SDK is not installed here
    versions: Callable[[], dict[str, str]]


def _npm_version(package: str) -> str:
    return str(json.loads((NPM / "node_modules" / package / "package.json").read_text())["version"])


def _ts(release: str, package: str, zod: str, name: str | None = None) -> Peer:
    def argv() -> list[str] | None:
        node = NPM / "node_modules" / ".bin" / "node"
        if not (node.exists() and (NPM / "node_modules" / package).exists()):
            return None
        return [str(node), str(TS_FAILING_SERVER), "--sdk", release, "--transport", "stdio"]

    return Peer(name or f"ts-sdk-{release}", argv, lambda: {package: _npm_version(package), "zod": _npm_version(zod)})


def _python(name: str, python: Path, style: str, distribution: str) -> Peer:
    def argv() -> list[str] | None:
        return [str(python), str(PY_SERVER), style] if python.exists() else None

    def versions() -> dict[str, str]:
        distributions = list(dict.fromkeys([distribution, "mcp", "pydantic"]))
        code = f"import json,importlib.metadata as m;print(json.dumps({{d:m.version(d) for d in {distributions!r}}}))"
        out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True, timeout=30)
        return dict(json.loads(out.stdout))

    return Peer(name, argv, versions)


def _go(sdk: str, module: str, release: str | None = None) -> Peer:
    def argv() -> list[str] | None:
        build = subprocess.run([str(REPO / "scripts" / "build-foreign-go.sh"), sdk, *([release] if release else [])],
                               capture_output=True, text=True, timeout=600, check=False)
        return [build.stdout.strip(), "--transport", "stdio"] if build.returncode == 0 else None

    def versions() -> dict[str, str]:
        if release:
            return {module: release}
        pins = (GO_SERVERS / sdk / "go.mod").read_text()
        pin = re.search(rf"^\s*(?:require\s+)?{re.escape(module)} (\S+)", pins, re.M)
        return {module: pin[1] if pin else "?"}

    return Peer(f"go-{sdk}" + (f"-{release.lstrip('v')}" if release else ""), argv, versions)


def _rust() -> Peer:
    def argv() -> list[str] | None:
        build = subprocess.run([str(REPO / "scripts" / "build-foreign-rust.sh")], capture_output=True, text=True,
                               timeout=1200, check=False)
        return [build.stdout.strip(), "--transport", "stdio"] if build.returncode == 0 else None

    def versions() -> dict[str, str]:
        lock = (RUST_SERVER / "Cargo.lock").read_text()
        pins = dict(re.findall(r'^name = "(rmcp|serde_json)"\nversion = "([^"]+)"', lock, re.M))
        return {crate: pins.get(crate, "?") for crate in ("rmcp", "serde_json")}

    return Peer("rust-rmcp", argv, versions)


PEERS: Final = (
    _ts("v2", "@modelcontextprotocol/server", "zod"),
    _ts("v1", "@modelcontextprotocol/sdk", "zod"),
    _ts("v1-old", "sdk-v1-old", "sdk-v1-old/node_modules/zod"),
    # Older v1 releases (npm aliases): -32602 with zod 3's JSON issues (1.12), the same inside isError (1.24, zod 4).
    _ts("sdk-1-12", "sdk-1-12", "sdk-1-12/node_modules/zod", "ts-sdk-1.12"),
    _ts("sdk-1-24", "sdk-1-24", "zod", "ts-sdk-1.24"),
    _python("py-mcpserver", Path(sys.executable), "mcpserver", "mcp"),
    _python("py-fastmcp4", Path(sys.executable), "fastmcp", "fastmcp"),
    _python("py-fastmcp3", PEER_VENVS / "fastmcp3" / "bin" / "python", "fastmcp", "fastmcp"),
    _python("py-fastmcp2", PEER_VENVS / "fastmcp2" / "bin" / "python", "fastmcp", "fastmcp"),
    # The mcp 1.x SDK, from FastMCP 2's venv (it pins mcp<2): its bundled FastMCP and its low-level Server.
    _python("py-mcp1-fastmcp", PEER_VENVS / "fastmcp2" / "bin" / "python", "mcp1-fastmcp", "mcp"),
    _python("py-mcp1-lowlevel", PEER_VENVS / "fastmcp2" / "bin" / "python", "mcp1-lowlevel", "mcp"),
    # An older mcp 1.x (1.9.4, its own venv): its FastMCP; its low-level Server checked no arguments then.
    _python("py-mcp1.9-fastmcp", PEER_VENVS / "mcp1" / "bin" / "python", "mcp1-fastmcp", "mcp"),
    # The Go SDKs' servers (tests/foreign/go), built by scripts/build-foreign-go.sh.
    _go("gosdk", "github.com/modelcontextprotocol/go-sdk"),
    _go("mcpgo", "github.com/mark3labs/mcp-go"),
    # go-sdk 1.2.0 (scripts/build-foreign-go.sh gosdk v1.2.0): -32602 "invalid params: validating ...", where 1.8
    # answers isError; mcp-go 0.56 words everything as 1.2.1 does, so no older mcp-go is captured.
    _go("gosdk", "github.com/modelcontextprotocol/go-sdk", "v1.2.0"),
    # The official Rust SDK's server (tests/foreign/rust), built by scripts/build-foreign-rust.sh: serde's words.
    _rust(),
)


def _rejection(response: dict[str, Any]) -> dict[str, Any] | None:
    """The rejection in a tools/call response: a JSON-RPC error or an ``isError`` result; ``None`` if it ran."""
    if "error" in response:
        return {"channel": "protocol", "code": response["error"]["code"], "message": response["error"]["message"]}
    result = response["result"]
    if not result.get("isError"):
        return None
    text = "\n".join(block.get("text", "") for block in result.get("content", []))
    return {"channel": "execution", "code": None, "message": text}


def capture(peer: Peer, *, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Make every bad call of :data:`CASES` on ``peer`` over stdio; return one record per rejected call."""
    argv = peer.argv()
    if argv is None:
        raise FileNotFoundError(f"{peer.name} is not installed (run scripts/tools.sh)")
    hello = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "capture", "version": "1"}}
    frames = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ] + [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": case.tool, "arguments": case.arguments}}
        for n, case in enumerate(CASES, start=1)
    ]
    stdin = "".join(json.dumps(frame) + "\n" for frame in frames)
    # Closing stdin after the last call would race the answers on some SDKs: keep it open until all are in.
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(stdin)
        proc.stdin.flush()
        responses: dict[int, dict[str, Any]] = {}
        with ThreadPoolExecutor(1) as pool:
            while len(responses) < len(CASES) + 1:
                line = pool.submit(proc.stdout.readline).result(timeout=timeout)
                if not line:
                    raise RuntimeError(f"{peer.name} closed stdout after {len(responses)} responses")
                frame = json.loads(line)
                if "id" in frame and ("result" in frame or "error" in frame):
                    responses[int(frame["id"])] = frame
    finally:
        proc.kill()
        proc.wait(5)
    records = []
    for n, case in enumerate(CASES, start=1):
        rejection = _rejection(responses[n])
        if rejection is not None:
            records.append({"peer": peer.name, "case": case.name, **rejection})
    return records


def capture_all(peers: tuple[Peer, ...] = PEERS) -> dict[str, Any]:
    """Capture every installed peer in parallel; the corpus as written to :data:`CORPUS`."""
    installed = [peer for peer in peers if peer.argv() is not None]
    with ThreadPoolExecutor(len(installed) or 1) as pool:
        captured = list(pool.map(capture, installed))
        versions = list(pool.map(lambda peer: peer.versions(), installed))
    return {
        "about": "Rejections of bad tool calls, as real SDKs answer them on stdio. Written by "
        "`python -m tests.foreign.messages --write`; the calls are tests.foreign.messages.CASES.",
        "peers": {peer.name: v for peer, v in zip(installed, versions, strict=True)},
        "messages": [record for records in captured for record in records],
    }


def load() -> dict[str, Any]:
    """The stored corpus."""
    return dict(json.loads(CORPUS.read_text()))


if __name__ == "__main__":
    corpus = capture_all()
    missing = sorted({peer.name for peer in PEERS} - set(corpus["peers"]))
    if "--write" in sys.argv:
        CORPUS.parent.mkdir(exist_ok=True)
        CORPUS.write_text(json.dumps(corpus, indent=2, ensure_ascii=False) + "\n")
    else:
        print(json.dumps(corpus, indent=2, ensure_ascii=False))
    count = f"{len(corpus['messages'])} messages from {len(corpus['peers'])} peers"
    print(f"{count}; not installed: {missing or 'none'}", file=sys.stderr)
