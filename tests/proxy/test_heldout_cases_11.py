"""``errscope proxy`` side of tests/heldout_cases.md, eleventh round (J228, J229): where the detail of a failure hides,
carried across the relay.

A ``-32602`` whose message is only "Invalid params" and whose argument problems are a zod issue array in
``error.data``; an ``isError`` text that is an upstream API's JSON error document with a key inside.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from tests.client.test_heldout_cases import failed
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_8 import raw_host

pytestmark = [pytest.mark.timeout(60)]


SECRET = "sk-proj-FAKEbead1234567890abcdefFAKE0987654321"


def call(host: RawHost, request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    host.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    return host.frames_until(lambda f: f.get("id") == request_id)[-1]


def said(frame: dict[str, Any]) -> str:
    """What the host's model can read from an answer: the error's message and data, or the result's text."""
    if "error" in frame:
        return json.dumps(frame["error"])
    return " ".join(block.get("text", "") for block in frame["result"].get("content", []))


def test_j228_zod_issues_only_in_error_data_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J228 (J214 behind the relay: punkpeye/fastmcp #1). The upstream answers ``-32602 Invalid params`` with the zod
    issue array only in ``error.data``; the host's answer names ``order_id`` as required, and the value the host sent
    (a pasted key) is not echoed."""
    issues = [{"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["order_id"],
               "message": "Required"}]
    host = raw_host(tmp_path, {"refund_order": {"error": {"code": -32602, "message": "Invalid params",
                                                          "data": issues}}})
    hosts.append(host)
    frame = call(host, 7, "refund_order", {"note": f"use {SECRET}"})
    text = said(frame)
    assert "`order_id`" in text and "required" in text.lower(), frame
    assert "FAKE" not in text, frame


@pytest.mark.anyio
async def test_j229_an_api_error_document_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J229 (J217 behind the relay: micasa-dev/micasa #156, earendil-works/pi #4092). The upstream tool's ``isError``
    text is OpenAI's 401 document with the rejected key: the host reads "Incorrect API key provided" without the JSON
    around it or the key, and the relay's span says ``permission_denied``."""
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}.", "type": "invalid_request_error",
                                 "param": None, "code": "invalid_api_key"}})
    host = raw_host(tmp_path, {"summarise": failed(body)})
    hosts.append(host)
    frame = call(host, 8, "summarise", {"url": "https://docs.example.test/a"})
    host.close()
    text = said(frame)
    assert frame["result"]["isError"] is True, frame
    assert "Incorrect API key provided" in text, text
    for fragment in ("FAKE", '{"error"', "invalid_request_error"):
        assert fragment not in text, (fragment, text)
    spans = await exported_spans(tmp_path / "out", "tools/call summarise")
    assert spans and all(s.attributes.get(ERRSCOPE_FAILURE_CLASS) == "permission_denied" for s in spans), spans
