"""``errscope proxy`` side of tests/heldout_cases.md, nineteenth round (J362): J357's, J358's and J361's words across the
relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j362_deadlocks_and_broken_credentials_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J362 (J352, J357, J358 and J361 across the relay: monicahq/monica #2910, FuseCP/FuseCP #56, hjlarry/dify-plugin-
    database #4, kamailio/kamailio #169, openai/openai-python #961, HAProxy's 503 words relayed as a tool's text). The
    relay's spans take the client's classes (one classifier); each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "update_contact": "SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock; try "
                          "restarting transaction",
        "save_order": "Transaction (Process ID 61) was deadlocked on lock resources with another process and has been "
                      "chosen as the deadlock victim. Rerun the transaction.",
        "route_call": "driver error: Unknown MySQL server host '#sipFAKE42@localhost' (2)",
        "ask_model": 'TypeError [ERR_INVALID_CHAR]: Invalid character in header content ["Authorization"]',
        "fetch_page": "upstream answered 503: No server is available to handle this request.",
    })
    assert classes == {
        "update_contact": "upstream_unavailable",
        "save_order": "upstream_unavailable",
        "route_call": "upstream_unavailable",
        "ask_model": "permission_denied",
        "fetch_page": "upstream_unavailable",
    }, classes
