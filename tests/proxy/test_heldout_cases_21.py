"""``errscope proxy`` side of tests/heldout_cases.md, twenty-first round (J380, J386): J375-J378's and J381-J384's words
across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j380_pools_selection_connections_and_constraints_behind_a_proxy(
        tmp_path: Path, hosts: list[RawHost]) -> None:
    """J380 (J375-J378 across the relay: langgenius/dify #21437, transact-rs/sqlx #2345, dotnet/SqlClient #1871,
    grpc/grpc-node #1754, Automattic/mongoose #11783, casdoor/casdoor #4466). The relay's spans take the client's classes
    (one classifier; SQL Server's was ``not_found``, Mongo's server selection and the constraint ``unknown``), and a
    request no connection carried is not "may have taken effect" on the relay's span; each call reached the upstream
    once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "save_run": "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, "
                    "timeout 30.00 (Background on this error at: https://sqlalche.me/e/20/3o7r)",
        "store_vectors": "pool timed out while waiting for an open connection",
        "query_sales": "Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error "
                       "occurred while establishing a connection to SQL Server. The server was not found or was not "
                       "accessible.",
        "start_session": "Error: 14 UNAVAILABLE: No connection established",
        "insert_doc": "MongoServerSelectionError: connection <monitor> to 127.0.0.1:27017 closed",
        "import_users": 'pq: duplicate key value violates unique constraint "user_pkey"',
    })
    assert classes == {
        "save_run": "upstream_unavailable",
        "store_vectors": "upstream_unavailable",
        "query_sales": "upstream_unavailable",
        "start_session": "upstream_unavailable",
        "insert_doc": "upstream_unavailable",
        "import_users": "invalid_input",
    }, classes
    for name in ("save_run", "store_vectors", "query_sales", "start_session", "insert_doc"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))


async def test_j386_grpc_waits_llm_sdks_tls_alerts_and_brokers_behind_a_proxy(
        tmp_path: Path, hosts: list[RawHost]) -> None:
    """J386 (J381-J384 across the relay: grpc/grpc-java #11364, mem0ai/mem0 #2759, golang/go #46270, IBM/sarama #731,
    fystack/mpcium #11). The relay's spans take the client's classes (the bare "Connection error.", Go's TLS alert, the
    broker and the responder were ``unknown``), and none that waited for a connection, a handshake, a broker or a
    responder is "may have taken effect" on the relay's span; each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "charge": "io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 0.399783897s. [closed=[], "
                  "open=[[buffered_nanos=2271463709, waiting_for_connection]]]",
        "add_memory": "openai.APIConnectionError: Connection error.",
        "create_completion": 'Post "https://api.example.test/v1/chat/completions": remote error: tls: handshake failure',
        "publish_order": "kafka: client has run out of available brokers to talk to (Is your cluster reachable?)",
        "sign_tx": "nats: no responders available for request",
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes
    for name in ("charge", "create_completion", "publish_order", "sign_tx"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
