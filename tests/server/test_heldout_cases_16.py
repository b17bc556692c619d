"""Server side of tests/heldout_cases.md, sixteenth round (J314-J316): real client libraries' refusals a tool raises.

redis-py against a Redis speaker on 127.0.0.1 that answers with Redis's own error replies; pymongo against a mongod
speaker on 127.0.0.1 (the legacy OP_QUERY handshake and OP_MSG commands, BSON from pymongo's own ``bson``) that
answers a command with MongoDB's error document; boto3 and google-auth looking for credentials that are not configured.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import bson
import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, closed_port, per_connection
from tests.server.test_heldout_cases import serving
from tests.server.test_heldout_cases_6 import failed_text

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


def _read_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


@contextmanager
def redis_replying(error: bytes) -> Iterator[int]:
    """A Redis speaker answering every command with the RESP error reply ``-{error}``."""

    def handle(conn: socket.socket) -> None:
        with conn:
            while conn.recv(65536):
                conn.sendall(b"-" + error + b"\r\n")

    with per_connection(handle) as port:
        yield port


@contextmanager
def mongod_replying(reply: dict[str, Any]) -> Iterator[int]:
    """A mongod speaker: a writable primary to the handshake (OP_QUERY ``isMaster``/``hello``, answered with
    OP_REPLY), and ``reply`` to every other command (OP_MSG)."""
    hello = {"ok": 1.0, "isWritablePrimary": True, "ismaster": True, "maxWireVersion": 21, "minWireVersion": 0,
             "maxBsonObjectSize": 16777216, "maxMessageSizeBytes": 48000000, "maxWriteBatchSize": 100000,
             "logicalSessionTimeoutMinutes": 30, "connectionId": 1}

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                while True:
                    length, request_id, _, opcode = struct.unpack("<iiii", _read_exact(conn, 16))
                    body = _read_exact(conn, length - 16)
                    if opcode == 2004:  # OP_QUERY: flags, collection (cstring), skip, limit, the command
                        at = body.index(b"\0", 4) + 9
                    else:  # OP_MSG: flags, section kind 0, the command
                        at = 5
                    command = bson.decode(body[at:at + struct.unpack("<i", body[at:at + 4])[0]])
                    name = next(iter(command)).lower()
                    answer = hello if name in ("hello", "ismaster") else {"ok": 1.0} if name == "endsessions" else reply
                    document = bson.encode(answer)
                    if opcode == 2004:
                        payload, out = struct.pack("<iqii", 8, 0, 0, 1) + document, 1
                    else:
                        payload, out = struct.pack("<I", 0) + b"\0" + document, 2013
                    conn.sendall(struct.pack("<iiii", 16 + len(payload), 2, request_id, out) + payload)
            except (EOFError, OSError):
                return

    with per_connection(handle) as port:
        yield port


# --- J314: Redis refusing a command for its own state -----------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    pytest.param(b"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.", id="BUSY"),
    pytest.param(b"MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. "
                 b"Commands that may modify the data set are disabled, because this instance is configured to report "
                 b"errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check "
                 b"the Redis logs for details about the RDB error.", id="MISCONF"),
    pytest.param(b"NOREPLICAS Not enough good replicas to write.", id="NOREPLICAS"),
])
@pytest.mark.parametrize("style", STYLES)
async def test_j314_redis_that_cannot_take_the_command_now(style: str, reply: bytes,
                                                          telemetry: CapturedTelemetry) -> None:
    """J314 (J308 on the Python side: redis/redis #584 and klren0312/daliy_knowledge #581, "redis.exceptions.ResponseError:
    MISCONF Redis is configured to save RDB snapshots..."; BUSY while a Lua script or function runs; NOREPLICAS under
    ``min-replicas-to-write``). redis-py has classes for LOADING and READONLY (``upstream_unavailable``) but raises these
    as a bare ``ResponseError``, which errscope read as the tool's own bad command (``unknown``). Redis's reply code
    says the server's state: ``upstream_unavailable``, and the command did not run."""
    import redis

    with redis_replying(reply) as port:

        async def save_session(session_id: str) -> str:
            """Store a session in Redis."""
            redis.Redis(host=HOST, port=port, socket_timeout=5).set(f"session:{session_id}", "{}")
            return "saved"

        async with serving(style, "legacy", telemetry, save_session) as served:
            result = await served.call("save_session", {"session_id": "S-1"})
    assert "ERR-" in failed_text(result), result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


@pytest.mark.parametrize("style", STYLES)
async def test_j314_guard_a_wrong_command_is_still_the_tool_s_own(style: str, telemetry: CapturedTelemetry) -> None:
    """J314's guard: WRONGTYPE (the tool ran a list command on a string key) is the tool's own mistake: ``unknown``."""
    import redis

    with redis_replying(b"WRONGTYPE Operation against a key holding the wrong kind of value") as port:

        async def push_job(queue: str) -> str:
            """Push a job onto a Redis list."""
            redis.Redis(host=HOST, port=port, socket_timeout=5).lpush(queue, "job")
            return "queued"

        async with serving(style, "legacy", telemetry, push_job) as served:
            await served.call("push_job", {"queue": "jobs"})
    assert served.span().attributes[ERRSCOPE_FAILURE_CLASS] == "unknown"


# --- J315: MongoDB's error codes --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("reply", "expected", "acted"), [
    pytest.param({"ok": 0.0, "errmsg": "command find requires authentication", "code": 13, "codeName": "Unauthorized"},
                 "permission_denied", False, id="13-Unauthorized"),
    pytest.param({"ok": 0.0, "errmsg": "Request rate is large. More Request Units may be needed, so no changes were "
                  "made. Please retry this request later.", "code": 16500, "codeName": "RequestRateTooLarge"},
                 "rate_limited", False, id="16500-cosmos"),
    pytest.param({"ok": 0.0, "errmsg": "ns does not exist: shop.orders", "code": 26, "codeName": "NamespaceNotFound"},
                 "not_found", False, id="26-NamespaceNotFound"),
])
@pytest.mark.parametrize("style", STYLES)
async def test_j315_mongodb_error_codes(style: str, reply: dict[str, Any], expected: str, acted: bool,
                                        telemetry: CapturedTelemetry) -> None:
    """J315 (J309 on the Python side: Automattic/mongoose #7250 "command find requires authentication" code 13
    ``Unauthorized``; Azure Cosmos DB's API for MongoDB answering 16500 "Request rate is large"; 26 ``NamespaceNotFound``).
    pymongo raises a bare ``OperationFailure`` carrying the server's code, which errscope left ``unknown``: MongoDB's
    error codes (error_codes.yml) say the class, as a SQLSTATE does for a SQL database; the server refused the
    command."""
    import pymongo

    with mongod_replying(reply) as port:

        async def find_order(order_id: int) -> str:
            """Find an order."""
            client = pymongo.MongoClient(f"mongodb://{HOST}:{port}/?directConnection=true",
                                         serverSelectionTimeoutMS=5000, retryReads=False)
            try:
                return str(client.shop.orders.find_one({"id": order_id}))
            finally:
                client.close()

        async with serving(style, "legacy", telemetry, find_order) as served:
            result = await served.call("find_order", {"order_id": 7})
    assert "ERR-" in failed_text(result), result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == expected, dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is acted, dict(span.attributes)


# --- J316: no credential configured at all ----------------------------------------------------------------------------

@pytest.mark.parametrize("style", STYLES)
async def test_j316_no_credentials_configured(style: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                              telemetry: CapturedTelemetry) -> None:
    """J316 (awslabs/mcp #341: "The config profile (default) could not be found", botocore's ``ProfileNotFound`` from an
    ``AWS_PROFILE`` the machine has no profile for; google-auth's ``DefaultCredentialsError`` "Your default credentials
    were not found" from ``google.auth.default()`` without Application Default Credentials, e.g. a BigQuery or Vertex MCP
    server started before ``gcloud auth application-default login``). No credential to present, as botocore's
    ``NoCredentialsError``: ``permission_denied``, nothing sent; not ``not_found`` (the model named no profile), not
    ``unknown``."""
    import boto3
    import google.auth

    empty = tmp_path / "empty"
    empty.write_text("")
    for name, value in {"AWS_CONFIG_FILE": str(empty), "AWS_SHARED_CREDENTIALS_FILE": str(empty),
                        "CLOUDSDK_CONFIG": str(tmp_path), "GCE_METADATA_HOST": f"{HOST}:{closed_port()}",
                        "GCE_METADATA_IP": f"{HOST}:{closed_port()}", "NO_GCE_CHECK": "True"}.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)

    async def get_cost(month: str) -> str:
        """Read the month's cost from AWS Cost Explorer."""
        boto3.Session(profile_name="default").client("ce", region_name="us-east-1")
        return "0"

    async def run_query(sql: str) -> str:
        """Run a BigQuery query."""
        google.auth.default(scopes=["https://www.googleapis.com/auth/bigquery"])
        return "[]"

    async with serving(style, "legacy", telemetry, get_cost, run_query) as served:
        for name, arguments in (("get_cost", {"month": "2026-11"}), ("run_query", {"sql": "select 1"})):
            result = await served.call(name, arguments)
            assert "ERR-" in failed_text(result), result
    spans = {s.attributes["gen_ai.tool.name"]: s for s in telemetry.spans()
             if s.attributes.get("mcp.method.name") == "tools/call"}
    for name in ("get_cost", "run_query"):
        assert spans[name].attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(spans[name].attributes)
        assert spans[name].attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(spans[name].attributes)
