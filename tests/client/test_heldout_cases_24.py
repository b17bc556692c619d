"""Client side of tests/heldout_cases.md, twenty-fourth round (J414, J416-J420): what foreign MCP servers relay when an
LLM provider's per-day limit names its wait in hours, a Go service's database pool had a bad connection, .NET refused a
certificate through its validation callback, a JVM service never got or lost its JDBC connection, a Prisma or PgJDBC
connection dropped under a statement, or a MongoDB client was used before it was connected, in the words of the runtimes
they are written in (Go, .NET, the JVM, Node).

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text (or, where said, mcp-go's
-32603 error); every tool is a write with no hints unless the case says otherwise, so a repeat would re-run it
(``answered`` checks each was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import Channel, FailureClass
from errscope.client import RetryPolicy, ToolClient

from tests.client.test_heldout_cases import failed, peer
from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.client.test_heldout_cases_20 import not_sent
from tests.client.test_heldout_cases_23 import json_rpc_error, protocol_not_sent

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def may_have_acted(results: dict[str, Any]) -> None:
    """Each failure says the upstream may have acted: the connection failed while the statement was out."""
    for name, result in results.items():
        assert result.side_effect_possible is True, (name, result)
        assert "may have" in result.text, (name, result.text)


# --- J414: a per-day limit whose wait is told in hours, relayed ----------------------------------------------------------

GROQ_RPD = ("Error code: 429 - {'error': {'message': 'Rate limit reached for model `llama-3.3-70b-versatile` in "
            "organization `org_FAKE` service tier `on_demand` on requests per day (RPD): Limit 1000, Used 1000, "
            "Requested 1. Please try again in 1h2m3.4s. Visit https://console.groq.com/docs/rate-limits for more "
            "information.', 'type': 'requests', 'code': 'rate_limit_exceeded'}}")
OPENAI_TPD = ("Rate limit reached for gpt-4o-mini in organization org-FAKE on tokens per day (TPD): Limit 2000000, Used "
              "1999210, Requested 1200. Please try again in 8h38m24s. Visit https://platform.openai.com/account/"
              "rate-limits to learn more.")
TELEGRAM = "429 Too Many Requests: retry after 24 hour"


@pytest.mark.parametrize(("text", "wait", "said"), [
    (GROQ_RPD, 3723.4, "Wait about 62 min"),
    (OPENAI_TPD, 31104.0, "Wait about 9 h"),
    (TELEGRAM, 86400.0, "Wait about 24 h"),
])
async def test_j414_a_wait_in_hours_relayed(tmp_path: Path, telemetry: Any, text: str, wait: float, said: str) -> None:
    """J414 (danielmiessler/Fabric #364: Groq's 429 "… on tokens per minute (TPM) … Please try again in
    50.597142857s."; the same OpenAI-compatible sentence on a per-day (RPD/TPD) limit prints the wait as a Go
    ``time.Duration``, "1h2m3.4s", "8h38m24s"; tdlib/td #396: Telegram's "retry after 24 hour", #1937 "retry after
    3600"). A read-only tool (``readOnlyHint``: safe to repeat) relays its provider's
    per-day limit. The wait was read as ``None`` for the Go durations (the number before "h" had no known unit) and as
    24 s for "24 hour": errscope re-sent the call on its own within seconds, each time spending a request of a spent
    day's budget, and told the model no wait or the wrong one. Rule: a stated wait is read whole, every part of a
    composite duration summed, hours a unit; a wait longer than ``max_rate_limit_wait`` goes to the model
    (``retry_after_too_long``), never an automatic repeat (RFC 6585 §4: the 429 asks the client to wait)."""
    params, log = peer(tmp_path, [{"name": "summarise", "inputSchema": {"type": "object"},
                                   "annotations": {"readOnlyHint": True}}], {"summarise": failed(text)})
    async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        result = await tc.call_tool("summarise", {"id": "X-1"})
    assert (result.channel, result.failure_class) == (Channel.EXECUTION, FailureClass.RATE_LIMITED)
    assert result.retry_after == pytest.approx(wait), result
    assert said in result.text, result.text
    assert len(log.received("tools/call")) == 1, "a wait of hours is not waited out by a repeat"
    assert RetryPolicy().stop_reason(result, safe_to_repeat=True, undelivered=False, held=False) == \
        "retry_after_too_long"


# --- J416: Go's database/sql with a bad connection, relayed -----------------------------------------------------------

async def test_j416_go_bad_database_connections_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J416 (go-sql-driver/mysql #1385 and #1147: "driver: bad connection" returned to the application; PR #151: "The
    database/sql package only retries if it encounters an ErrBadConn"; database/sql/driver: "ErrBadConn should NOT be
    returned if there's a possibility that the database server might have performed the operation"; go-sql-driver's
    packets.go ``writePacket`` returns ``errBadConnNoWrite`` (ErrBadConn) only when nothing of the packet was written,
    ``ErrInvalidConn`` "invalid connection" once part of it was or the answer's read failed). Go servers relay them, as ``isError`` text and as mcp-go's -32603. "driver: bad
    connection" was ``unknown``; "invalid connection" was ``invalid_input`` ("invalid"), the model told to fix its
    arguments. Both are the database out of reach: ``upstream_unavailable``; ErrBadConn sent nothing, ErrInvalidConn
    may have acted. Guard: "invalid connection string" stays the tool's configuration."""
    results = await answered(tmp_path, telemetry, {
        "create_order": 'Exec "INSERT INTO orders (sku) VALUES (?)": driver: bad connection',
        "update_stock": "driver: bad connection",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "lost").mkdir()
    lost = await answered(tmp_path / "lost", telemetry, {
        "record_payment": "[mysql] 2026/05/01 10:00:00 packets.go:37: unexpected EOF\ninvalid connection",
        "close_invoice": "invalid connection",
    })
    all_of(lost, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(lost)
    (tmp_path / "protocol").mkdir()
    protocol_not_sent(await answered(tmp_path / "protocol", telemetry, answer=json_rpc_error, texts={
        "create_order": "driver: bad connection",
    }), FailureClass.UPSTREAM_UNAVAILABLE)
    (tmp_path / "guard").mkdir()
    guard = await answered(tmp_path / "guard", telemetry, {"open_db": "invalid connection string: missing host"})
    assert guard["open_db"].failure_class is not FailureClass.UPSTREAM_UNAVAILABLE, guard


# --- J417: .NET refusing a certificate through its validation callback, relayed ------------------------------------------------

async def test_j417_dotnet_certificate_callback_refusal_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J417 (dotnet/MQTTnet #1266: "The remote certificate was rejected by the provided
    RemoteCertificateValidationCallback" for a broker's self-signed certificate, .NET 5+'s SslStream wording when the
    application's validation callback returns false (dotnet/runtime PR #40110); jstedfast/MailKit #511, a certificate
    MailKit could not validate, and MailKit's ``SslHandshakeException`` "An error occurred while attempting to establish an SSL or TLS
    connection."). .NET servers relay them. The callback's type name was read as an API error code of the "validation"
    family (``invalid_input``: the model told to fix its arguments) and MailKit's sentence was ``unknown``. A certificate
    refused in the handshake is the upstream out of reach, ``upstream_unavailable``, nothing sent (as every other
    runtime's certificate refusal); a callable's type name (``…Callback``, ``…Handler``) is no error code."""
    results = await answered(tmp_path, telemetry, {
        "query_orders": "Npgsql.NpgsqlException (0x80004005): Exception while connecting\n ---> "
                        "System.Security.Authentication.AuthenticationException: The remote certificate was rejected "
                        "by the provided RemoteCertificateValidationCallback.",
        "send_receipt": "MailKit.Security.SslHandshakeException: An error occurred while attempting to establish an SSL "
                        "or TLS connection.",
        "fetch_report": "System.Net.Http.HttpRequestException: The SSL connection could not be established, see inner "
                        "exception. ---> System.Security.Authentication.AuthenticationException: The remote "
                        "certificate was rejected by the provided RemoteCertificateValidationCallback.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    for result in results.values():
        assert "Fix the arguments" not in result.text, result.text


# --- J418: a JDBC connection never had, relayed --------------------------------------------------------------------------

async def test_j418_jdbc_connection_never_had_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J418 (brettwooldridge/HikariCP #1867 and #1849, thx/RAP #630: "Could not open JPA EntityManager for transaction;
    nested exception is org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection"; Spring's
    ``CannotGetJdbcConnectionException`` "Failed to obtain JDBC Connection" (DataSourceUtils); MySQL Connector/J's
    ``CommunicationsException`` "Communications link failure … The driver has not received any packets from the
    server.", its wording when no packet ever arrived on the connection). Spring and Hibernate services relay a database connection the pool or the driver never gave; MySQL
    speaks first in its protocol, so a connection that received no packet never carried a statement. Hibernate's and
    Spring's were ``unknown``; Connector/J's "not known" whether it acted. All are the database out of reach,
    ``upstream_unavailable``, nothing sent. Guard: a refused login under "Failed to obtain JDBC Connection" stays
    ``permission_denied``."""
    results = await answered(tmp_path, telemetry, {
        "create_order": "org.springframework.transaction.CannotCreateTransactionException: Could not open JPA "
                        "EntityManager for transaction; nested exception is org.hibernate.exception."
                        "JDBCConnectionException: Unable to acquire JDBC Connection",
        "cancel_order": "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection",
        "refund_order": "com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure\n\nThe last "
                        "packet sent successfully to the server was 0 milliseconds ago. The driver has not received any "
                        "packets from the server.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "guard").mkdir()
    guard = await answered(tmp_path / "guard", telemetry, {
        "open_ledger": "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection; "
                       "nested exception is java.sql.SQLException: Access denied for user 'app'@'10.0.0.5' (using "
                       "password: YES)",
    })
    all_of(guard, FailureClass.PERMISSION_DENIED)


# --- J419: a database connection lost under a statement, relayed ----------------------------------------------------------

async def test_j419_connection_lost_under_a_statement_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J419 (quartz-scheduler/quartz #1108, 2ndQuadrant/pglogical #191, CDCgov/prime-simplereport #1505:
    "org.postgresql.util.PSQLException: An I/O error occurred while sending to the backend." from
    ``QueryExecutorImpl.execute``, at a commit among others; prisma/orm #16978: "Invalid `….findUnique()` invocation …
    Server has closed the connection." under a query, #10169: "Error: P1017: Server has closed the connection."). PgJDBC's ``QueryExecutorImpl`` raises it for an ``IOException`` anywhere in
    the exchange, the answer's read included; Prisma's P1017 comes when the server ends the connection under a query.
    Both were ``unknown`` (the mapping-gap alert) and said nothing of the statement. They are the database lost,
    ``upstream_unavailable``, and the statement may have been applied (as libpq's "before or while processing the
    request" is read): the model is told so, and the write is not repeated."""
    results = await answered(tmp_path, telemetry, {
        "transfer_funds": "org.postgresql.util.PSQLException: An I/O error occurred while sending to the backend.",
        "create_user": "Invalid `prisma.user.create()` invocation:\n\nServer has closed the connection.",
        "close_account": "PrismaClientUnknownRequestError: Error: P1017: Server has closed the connection.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(results)


# --- J420: a client used before it was connected, relayed ------------------------------------------------------------------

async def test_j420_client_not_connected_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J420 (ilovepixelart/ts-migrate-mongoose #274 and flying-dice/dcs-dropzone-mod-manager #31: the Node driver's
    ``MongoNotConnectedError`` "Client must be connected before running operations"; Automattic/mongoose #11816 and
    mongodb/node-mongodb-native PR #2889: "MongoClient must be connected to perform this operation"; raised when
    code runs an operation on a client it never connected or already closed). It read as ``invalid_input`` ("must
    be"): the model told to fix arguments that were right, and to try again with others. The client's own state is the
    tool's failure: ``unknown`` (as round 21 read TypeORM's "Driver not Connected"), no advice to change arguments.
    Guard: "must be at most 100" stays the caller's ``invalid_input``."""
    results = await answered(tmp_path, telemetry, {
        "find_orders": "MongoNotConnectedError: Client must be connected before running operations",
        "count_orders": '{"name":"MongoNotConnectedError","message":"MongoClient must be connected to perform this '
                        'operation"}',
    })
    all_of(results, FailureClass.UNKNOWN)
    for result in results.values():
        assert "Fix the arguments" not in result.text, result.text
    (tmp_path / "guard").mkdir()
    guard = await answered(tmp_path / "guard", telemetry, {"set_limit": "'amount' must be at most 100"})
    all_of(guard, FailureClass.INVALID_INPUT)


# --- J421: .NET clients that never had a connection, relayed ------------------------------------------------------------------

async def test_j421_dotnet_clients_never_connected_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J421 (StackExchange/StackExchange.Redis #1583 and #1955: "No connection is active/available to service this
    operation: EXEC; UnableToConnect on …" and "… SET keyName ; It was not possible to connect to the redis
    server(s). ConnectTimeout"; openchain/mongodb-storage #3: the MongoDB .NET driver's "MongoConnectionException: An
    exception occurred while opening a connection to the server."; rabbitmq/rabbitmq-dotnet-client #416 and #1054,
    dotnet-architecture/eShopOnContainers #638: "BrokerUnreachableException: None of the specified endpoints were
    reachable"). .NET services relay their client's refusal to send: the multiplexer had no connected endpoint, the
    driver failed while opening its connection, the factory reached no broker. StackExchange.Redis's were "not known"
    whether they acted, the MongoDB and RabbitMQ ones ``unknown``. None had a connection to write the command on:
    ``upstream_unavailable``, nothing sent."""
    results = await answered(tmp_path, telemetry, {
        "cache_order": "StackExchange.Redis.RedisConnectionException: No connection is active/available to service "
                       "this operation: SET order:A-1; UnableToConnect on cache.example.test:6380/Interactive, "
                       "Initializing/NotStarted, last: NONE, origin: BeginConnectAsync",
        "lock_order": "StackExchange.Redis.RedisConnectionException: It was not possible to connect to the redis "
                      "server(s). ConnectTimeout",
        "save_profile": "MongoDB.Driver.MongoConnectionException: An exception occurred while opening a connection to "
                        "the server. ---> System.Net.Sockets.SocketException (111): Connection refused",
        "publish_event": "RabbitMQ.Client.Exceptions.BrokerUnreachableException: None of the specified endpoints were "
                         "reachable",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J422: a cluster client with no node to send to, and a broker that forced the connection closed, relayed ---------------------

async def test_j422_no_node_to_send_to_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J422 (elastic/elasticsearch-js #196 and #775: "Error: No Living connections", the client's connection pool with no
    node alive; neo4j/neo4j-javascript-driver #516 and neo4j-contrib/neodash #128: "Neo4jError: Could not perform
    discovery. No routing servers available. Known routing table: …"). Node servers relay a cluster client that had
    no node to send the request to: each was ``unknown`` (the mapping-gap alert). Nothing was sent:
    ``upstream_unavailable``, not "may have taken effect"."""
    results = await answered(tmp_path, telemetry, {
        "search_docs": "NoLivingConnectionsError: There are no living connections",
        "index_doc": "Error: No Living connections",
        "link_nodes": "Neo4jError: Could not perform discovery. No routing servers available. Known routing table: "
                      "RoutingTable[database=default database, expirationTime=0, currentTime=1577163952726, routers=[], "
                      "readers=[], writers=[]]",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


async def test_j422_broker_forced_the_connection_closed_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J422, a broker ending the connection (Cloud-CV/EvalAI #1113: pika's "ConnectionClosed: (320, "CONNECTION_FORCED -
    broker forced connection closure with reason 'shutdown'")"; storj-archived/complex #63: amqplib's "Connection
    closed: 320 (CONNECTION-FORCED) …"; jxsl13/amqpx #55: Go's "Exception (320) Reason: …"). AMQP 0-9-1's reply code
    320 connection-forced: an operator or a node shutting down closed the connection. py-amqp's ``ConnectionForced``
    text was ``unknown``. The broker is out of reach for now: ``upstream_unavailable`` (whether the publish it cut off
    was taken is not known, as pika's exception is read)."""
    results = await answered(tmp_path, telemetry, {
        "publish_event": "amqp.exceptions.ConnectionForced: (0, 0): (320) CONNECTION_FORCED - broker forced connection "
                         "closure with reason 'shutdown'",
        "enqueue_job": "Exception (320) Reason: \"CONNECTION_FORCED - broker forced connection closure with reason "
                       "'shutdown'\"",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
