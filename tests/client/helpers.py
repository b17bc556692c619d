"""Helpers shared by the client tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.client.stdio import StdioServerParameters

SERVERS = Path(__file__).parent / "servers"


def scripted_server(tmp_path: Path, responses: list[dict[str, Any]], *, idempotent: bool = False) -> StdioServerParameters:
    """A foreign stdio server whose n-th tools/call gets ``responses[n]`` (the last one repeats).

    ``idempotent`` makes its one tool declare ``idempotentHint: true`` (safe to repeat).

    Each response is ``{"text": ..., "isError": bool, "meta": {...}}`` or ``{"error": {"code", "message", "data"}}``.
    """
    script = tmp_path / "script.json"
    script.write_text(json.dumps(responses))
    return StdioServerParameters(
        command=sys.executable,
        args=[str(SERVERS / "foreign.py"), "scripted"],
        env={
            "FOREIGN_SCRIPT": str(script),
            "FOREIGN_LOG": str(tmp_path / "scripted.jsonl"),
            **({"FOREIGN_IDEMPOTENT": "1"} if idempotent else {}),
        },
    )
