"""``errscope proxy`` side of tests/heldout_cases.md, thirtieth round (J470): a root cause in a foreign server's words,
across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``) standing for servers errscope does
not own (Node, Python without errscope, a LiteLLM-backed agent); the relay is the real ``errscope proxy`` command as a
subprocess; the host is a raw JSON-RPC host on its stdin/stdout. Foreign texts: the software that printed them is a
Node server (undici), a Python server without errscope and an older LiteLLM, none of which runs here as the upstream.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.client.test_heldout_cases_30 import LITELLM
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]

NODE_FETCH = """Failed to initialize MCP client: TypeError: fetch failed
    at async StreamableHTTPClientTransport.send (route.js:20280:30) {
  [cause]: [Error: getaddrinfo ENOTFOUND mcp.example-corp.test] {
    errno: -3008,
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname: 'mcp.example-corp.test'
  }
}"""

DEADLINE_OVER_REFUSAL = """Traceback (most recent call last):
  File "/app/ledger.py", line 14, in post
    await http.post(url, json=entry)
httpx.ConnectError: All connection attempts failed

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/app/ledger.py", line 17, in post
    await asyncio.sleep(5)
asyncio.exceptions.CancelledError

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/app/ledger.py", line 22, in post_ledger
    async with asyncio.timeout(1):
TimeoutError"""


async def test_j470_root_causes_in_foreign_words_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J470 (J469 across the relay: BerriAI/litellm #10184; lobehub/lobehub #8546: Node's "TypeError: fetch failed"
    whose ``[cause]`` is ``getaddrinfo ENOTFOUND``; J467's deadline over a refused attempt as a Python server
    without errscope prints it). The relay's spans for LiteLLM's labelled "Connection error." were ``unknown``; each
    is ``upstream_unavailable``. Node's cause and the printed chain were already right: the innermost failure
    decides, and neither says the call may have taken effect (a name that did not resolve, a refused connection).
    Each call reached the upstream once."""
    texts = {**LITELLM, "list_templates": NODE_FETCH, "post_ledger": DEADLINE_OVER_REFUSAL}
    classes, said = await relay_classes(tmp_path, hosts, texts)
    assert classes == dict.fromkeys(texts, "upstream_unavailable"), classes
    for name in ("list_templates", "post_ledger"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
        assert "may have" not in said[name] and "Traceback" not in said[name], said[name]


async def test_j470_guard_a_status_the_foreign_server_dropped(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J470's guard (accordproject/apap #152 and jd/tenacity #272 as a server errscope does not own relays them):
    "Failed to load template" and tenacity's "RetryError[<Future … state=finished returned Response>]" hold no
    status, no address, no word of the upstream: the relay has nothing to read (J465 and J466 read the answer only
    in process), so they stay ``unknown``, the gap on-call must close in that server."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "load_template": "Error: Failed to load template",
        "check_inventory": "tenacity.RetryError: RetryError[<Future at 0x7f3b2c1d4e50 state=finished returned "
                           "Response>]",
    })
    assert classes == dict.fromkeys(classes, "unknown"), classes
