"""``errscope proxy`` side of tests/heldout_cases.md, eighteenth round (J347): J339-J345's and J350's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j347_service_refusals_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J347 (J339-J345 and J350 across the relay: apache/doris-mcp-server #31, nodemailer/nodemailer #1167, supabase/supabase #50124, porsager/postgres #241,
    kubernetes/minikube #1224, istio/istio #22482, cli/cli #436, NLPchina/elasticsearch-sql #441). The relay's spans take
    the client's classes (one classifier); each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "send_mail": "Error: Invalid login: 535-5.7.8 Username and Password not accepted. Learn more at\n535 5.7.8  "
                     "https://support.google.com/mail/?p=BadCredentials s68sm6561971pjb.38 - gsmtp",
        "send_invoice": "550-5.4.5 Daily user sending limit exceeded.",
        "insert_order": json.dumps({"code": "42501", "details": None, "hint": None,
                                    "message": 'new row violates row-level security policy for table "orders"'}),
        "get_order": json.dumps({"code": "PGRST116", "details": "The result contains 0 rows", "hint": None,
                                 "message": "JSON object requested, multiple (or no) rows returned"}),
        "record_sale": "remaining connection slots are reserved for non-replication superuser connections",
        "get_repo": "GraphQL: Could not resolve to a Repository with the name 'acme/nope'.",
        "index_doc": json.dumps({"error": {"type": "es_rejected_execution_exception",
                                           "reason": "rejected execution of coordinating operation"}, "status": 429}),
        "exec_query": "Connection acquisition timed out for session mcp_session",
    })
    assert classes == {
        "send_mail": "permission_denied",
        "send_invoice": "rate_limited",
        "insert_order": "permission_denied",
        "get_order": "not_found",
        "record_sale": "upstream_unavailable",
        "get_repo": "not_found",
        "index_doc": "rate_limited",
        "exec_query": "upstream_unavailable",
    }, classes
