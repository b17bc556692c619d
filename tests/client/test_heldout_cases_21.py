"""Client side of tests/heldout_cases.md, twenty-first round (J375-J379, J381-J384, J387, J388): what foreign MCP servers relay when the
database or service behind them was never sent the request in its driver's own words (connection pools that name
themselves beside their timeout, MongoDB's server selection, a channel or a TLS session never set up, SQL Server's
"network-related" error), and a statement an integrity constraint refused.

J375-J378: the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a repeat would
re-run it (``answered`` checks each was sent once). J379: a real TypeScript SDK server
(``tests/npm/servers/ts_failing_server.mjs``) whose tool's own ``fetch`` meets a port on 127.0.0.1 that closes every
connection before the TLS handshake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass
from errscope.client import RetryPolicy, ToolClient

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of
from tests.client.test_heldout_cases_20 import not_sent
from tests.foreign.test_ts_server import client

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


# --- J375: a connection pool that gave no connection, in its own words -----------------------------------------------

async def test_j375_pools_that_gave_no_connection(tmp_path: Path, telemetry: Any) -> None:
    """J375 (langgenius/dify #21437, numerique-gouv/ami-notifications-api #375, langflow-ai/langflow #6866: SQLAlchemy's
    "QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00"; transact-rs/sqlx #2345 and
    #3241, postgresml/postgresml #1279: "pool timed out while waiting for an open connection"; go-redis's "redis:
    connection pool timeout"; psycopg_pool's "couldn't get a connection after 30.00 sec"; MariaDB Connector/Node's
    "retrieve connection from pool timeout"; pg-pool's "timeout exceeded when trying to connect"; Sequelize's
    ConnectionAcquireTimeoutError). A tool relays its pool's refusal. The pool never handed over a connection, so no
    statement was sent: ``upstream_unavailable`` and not "may have taken effect", as SQLAlchemy's ``TimeoutError`` and
    httpx's ``PoolTimeout`` are read on the exception (J350 read only the pools that say "acquiring"/"obtaining")."""
    results = await answered(tmp_path, telemetry, {
        "save_run": "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, "
                    "timeout 30.00 (Background on this error at: https://sqlalche.me/e/20/3o7r)",
        "store_vectors": "error returned from database: pool timed out while waiting for an open connection",
        "set_session": "redis: connection pool timeout",
        "insert_event": "psycopg_pool.PoolTimeout: couldn't get a connection after 30.00 sec",
        "update_stock": "SqlError: (conn=-1, no: 45028, SQLState: HY000) retrieve connection from pool timeout after "
                        "10001ms",
        "create_user": "Error: timeout exceeded when trying to connect",
        "add_tag": "SequelizeConnectionAcquireTimeoutError: Operation timeout",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


async def test_j375_guard_a_request_on_a_pooled_connection_may_have_acted(tmp_path: Path, telemetry: Any) -> None:
    """J375's guard: urllib3 names its pool before every failure ("HTTPSConnectionPool(host=…): Read timed out"): a read
    timeout on a connection the request was written to, and a worker pool's task that timed out, may have acted."""
    results = await answered(tmp_path, telemetry, {
        "post_charge": "HTTPSConnectionPool(host='pay.example.test', port=443): Read timed out. (read timeout=10)",
        "run_export": "thread pool task timed out after 30s",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    for name, result in results.items():
        assert result.side_effect_possible is True, (name, result)


# --- J376: a connection, a channel or a TLS session never set up ----------------------------------------------------

async def test_j376_connections_never_established(tmp_path: Path, telemetry: Any) -> None:
    """J376 (dotnet/SqlClient #1871, microsoft/mssql-docker #296, microsoft/azuredatastudio #24683: "A network-related or
    instance-specific error occurred while establishing a connection to SQL Server. The server was not found or was not
    accessible."; grpc/grpc-node #1754 and #1064, wechaty/wechaty #2258: "14 UNAVAILABLE: No connection established";
    GetStream/stream-js #526, ethers-io/ethers.js #4884, websockets/ws #1529: Node's "Client network socket disconnected
    before secure TLS connection was established"; .NET's "The SSL connection could not be established"). A .NET, a
    Node and a gRPC server relay them. None had a connection to write the request on: ``upstream_unavailable``, not
    "may have taken effect". SQL Server's "The server was not found" is no missing record (it was ``not_found``, and
    the model was told to check the identifier it passed)."""
    results = await answered(tmp_path, telemetry, {
        "query_sales": "Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error "
                       "occurred while establishing a connection to SQL Server. The server was not found or was not "
                       "accessible. Verify that the instance name is correct and that SQL Server is configured to allow "
                       "remote connections. (provider: TCP Provider, error: 40 - Could not open a connection to SQL "
                       "Server)",
        "start_session": "Error: 14 UNAVAILABLE: No connection established",
        "post_feed": "Error: Client network socket disconnected before secure TLS connection was established",
        "sync_invoice": "System.Net.Http.HttpRequestException: The SSL connection could not be established, see inner "
                        "exception.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J377: MongoDB's server selection in other drivers' words -------------------------------------------------------

async def test_j377_mongodb_server_selection_in_other_drivers_words(tmp_path: Path, telemetry: Any) -> None:
    """J377 (Automattic/mongoose #11783: "MongoServerSelectionError: connection <monitor> to 127.0.0.1:27017 closed";
    mongodb/mongo-php-driver #501 and #532: "No suitable servers found (`serverSelectionTryOnce` set): [Server closed
    connection. calling ismaster on '…']"; mongodb-js/mongodb-mcp-server's Node driver). The driver picked no server to
    send the operation to: ``upstream_unavailable`` (the Node form was ``unknown``, the mapping-gap alert) and not "may
    have taken effect" (J350 read only the selection's timeout)."""
    results = await answered(tmp_path, telemetry, {
        "insert_doc": "MongoServerSelectionError: connection <monitor> to 127.0.0.1:27017 closed",
        "update_doc": "No suitable servers found (`serverSelectionTryOnce` set): [Server closed connection. calling "
                      "ismaster on 'mongodb.example.test:40000']",
        "delete_doc": "server selection error: context deadline exceeded, current topology: { Type: ReplicaSetNoPrimary, "
                      "Servers: [{ Addr: mongo-0:27017, Type: Unknown, Last error: connection() error occurred during "
                      "connection handshake: EOF }, ] }",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J378: a statement an integrity constraint refused ----------------------------------------------------------------

async def test_j378_integrity_constraints_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J378 (casdoor/casdoor #4466: 'pq: duplicate key value violates unique constraint "user_pkey"'; twentyhq/twenty
    #14275; yugabyte/yugabyte-db #2082; MySQL's 1062 "Duplicate entry … for key …", SQLite's "UNIQUE constraint failed",
    MongoDB's E11000, PostgreSQL's foreign-key and not-null violations). A Go, Node or Java server relays the database's
    refusal. SQLSTATE class 23 is ``invalid_input`` on a driver's exception (the values conflict with what is there; the
    statement was rolled back); the same words relayed were ``unknown`` (and MongoDB's "MongoServerError" read as a
    server error, ``upstream_unavailable``). Nothing was applied: not "may have"."""
    results = await answered(tmp_path, telemetry, {
        "import_users": 'pq: duplicate key value violates unique constraint "user_pkey"',
        "add_member": "Error: Duplicate entry 'a@example.test' for key 'users.email'",
        "save_note": "SqliteError: UNIQUE constraint failed: notes.slug",
        "register": 'MongoServerError: E11000 duplicate key error collection: app.users index: email_1 dup key: { email: '
                    '"a@example.test" }',
        "place_order": 'ERROR: insert or update on table "orders" violates foreign key constraint "orders_user_id_fkey"',
        "rename": 'ERROR: null value in column "name" of relation "users" violates not-null constraint',
    })
    all_of(results, FailureClass.INVALID_INPUT)
    not_sent(results)


# --- J379: a real TypeScript SDK server whose fetch never got its TLS session -----------------------------------------

@pytest.mark.stack
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_j379_a_tls_session_never_set_up_in_a_typescript_server(transport: str, telemetry: Any) -> None:
    """J379 (GetStream/stream-js #526, nextauthjs/next-auth #4503, Nerixyz/instagram_mqtt #10: Node's "Client network
    socket disconnected before secure TLS connection was established", undici's cause under "fetch failed"). The real
    TypeScript SDK server's tool calls Node's ``fetch`` for an https URL on 127.0.0.1 whose port closes every connection
    before the handshake, and relays undici's message with its cause. No TLS session, so no request was written: not
    "may have taken effect" (undici's bare "fetch failed" may have acted: it does not say where it failed)."""
    async with client("v2", transport, telemetry, timeout=10, retry=None) as tc:
        result = await tc.call_tool("refund_via_api", {"api": "tls_dropped", "with_cause": True})
    assert "before secure TLS connection was established" in result.text, result.text
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    not_sent({"refund_via_api": result})


# --- J381: a gRPC deadline that passed before the call had a connection ----------------------------------------------

async def test_j381_grpc_deadlines_waiting_for_a_connection(tmp_path: Path, telemetry: Any) -> None:
    """J381 (grpc/grpc-java #11364: "DEADLINE_EXCEEDED: deadline exceeded after 0.399783897s. [closed=[],
    open=[[buffered_nanos=2271463709, waiting_for_connection]]]", which a maintainer explains as the timeout passing
    "before a stream could be established with the server over which a rpc request could be sent"; grpc-js's "Deadline
    exceeded after 30.001s,…,Waiting for LB pick", as Milvus and Firestore clients relay it). DEADLINE_EXCEEDED alone
    may have acted; these say where the call was when it ran out: never sent. Guard: the same deadline with a
    ``remote_addr`` (the stream was open, the request written) may have acted."""
    results = await answered(tmp_path, telemetry, {
        "charge": "io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 0.399783897s. [closed=[], "
                  "open=[[buffered_nanos=2271463709, waiting_for_connection]]]",
        "load_collection": "Error: 4 DEADLINE_EXCEEDED: Deadline exceeded after 30.001s,name resolution: 0.054s,metadata "
                           "filters: 0.001s,time to current attempt start: 0.001s,Waiting for LB pick",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "guard").mkdir()
    guard = await answered(tmp_path / "guard", telemetry, {
        "refund": "io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 0.399980582s. [closed=[], "
                  "open=[[remote_addr=localhost/127.0.0.1:10016]]]",
    })
    assert guard["refund"].side_effect_possible is True, guard["refund"]


# --- J382: an LLM SDK's bare "Connection error." -----------------------------------------------------------------------

async def test_j382_an_llm_sdk_s_bare_connection_error(tmp_path: Path, telemetry: Any) -> None:
    """J382 (mem0ai/mem0 #2759: an MCP memory server's "openai.APIConnectionError: Connection error."; mcp-use/mcp-use #241:
    "Agent stopped due to an error: Connection error"). The OpenAI and Anthropic SDKs (Python and TypeScript) say only
    "Connection error." when no answer came. A server that calls a model relays it: ``upstream_unavailable``, not the
    ``unknown`` mapping-gap alert (the SDKs' exception is already read so on our side). Whether the request was written
    is not said, so it is not "never sent" either."""
    results = await answered(tmp_path, telemetry, {
        "add_memory": "openai.APIConnectionError: Connection error.",
        "summarise": "Error: Connection error.",
        "ask_model": "Connection error.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)


# --- J383: a TLS alert in Go's words, hyper's connector ---------------------------------------------------------------

async def test_j383_a_handshake_the_peer_refused_and_hyper_s_connector(tmp_path: Path, telemetry: Any) -> None:
    """J383 (golang/go #46270 and #34197 "client: dial: remote error: tls: handshake failure", sashabaranov/go-openai #185,
    domainr/epp #37: Go's words for the peer's TLS alert, no cipher suite or version in common; reqwest before hyper-util,
    "error sending request for url (…): error trying to connect: …", and hyper's connector alone). A Go server relays the
    first (``unknown`` until now), Rust servers the others: read as "may have taken effect" by reqwest's generic words,
    and as an invalid argument the model should fix ("invalid HTTP version parsed") without them. None got past the
    connection: ``upstream_unavailable``, not "may have"; no argument advice."""
    results = await answered(tmp_path, telemetry, {
        "create_completion": "client: dial: remote error: tls: handshake failure",
        "fetch_price": "error sending request for url (https://api.example.test/v1/price): error trying to connect: "
                       "invalid HTTP version parsed",
        "fetch_rate": "error trying to connect: invalid HTTP version parsed",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    for result in results.values():
        assert "argument" not in result.text.lower(), result.text


# --- J384: no broker, no responder -----------------------------------------------------------------------------------

async def test_j384_no_kafka_broker_no_nats_responder(tmp_path: Path, telemetry: Any) -> None:
    """J384 (IBM/sarama #731, #1568, #2891, ricardo-ch/go-kafka #38: "kafka: client has run out of available brokers to
    talk to"; aiokafka's "Unable to bootstrap from"; kafka-python's NoBrokersAvailable; fystack/mpcium #11 and
    micro/go-micro #2741: "nats: no responders available for request"; dotnetcore/CAP #1364: NATS.Client's "No
    responders are available for the request."). Servers that publish relay them. No broker took the message and no
    service subscribed to the subject received the request: ``upstream_unavailable`` (all were ``unknown`` but the
    .NET one), not "may have"."""
    results = await answered(tmp_path, telemetry, {
        "publish_order": "could not initialise producer: kafka: client has run out of available brokers to talk to (Is "
                         "your cluster reachable?)",
        "emit_event": "KafkaConnectionError: Unable to bootstrap from [('10.0.0.7', 9092, <AddressFamily.AF_UNSPEC: 0>)]",
        "send_audit": "kafka.errors.NoBrokersAvailable: NoBrokersAvailable",
        "sign_tx": "Failed to send direct message to sign:direct:8c6f: nats: no responders available for request",
        "notify": "NATS.Client.NATSNoRespondersException: No responders are available for the request.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)



# --- J388: Npgsql's connection lost under a statement ----------------------------------------------------------------

async def test_j388_npgsql_s_stream_failures(tmp_path: Path, telemetry: Any) -> None:
    """J388 (npgsql/npgsql #1192, #1354, #2337, #3955, #5154: "Npgsql.NpgsqlException (0x80004005): Exception while reading
    from stream ---> System.IO.EndOfStreamException: Attempted to read past the end of the stream."). A .NET server over
    PostgreSQL relays Npgsql's failure. It was ``unknown`` (the mapping-gap alert): the connection to the database
    failed, ``upstream_unavailable``. With .NET's end-of-stream cause the answer was being read when the connection
    ended: the UPDATE may have been applied (as Go's ``": EOF"``); without a cause, whether it was sent is not said."""
    results = await answered(tmp_path, telemetry, {
        "update_status": "Npgsql.NpgsqlException (0x80004005): Exception while reading from stream ---> "
                         "System.IO.EndOfStreamException: Attempted to read past the end of the stream.",
        "run_report": "Npgsql.NpgsqlException (0x80004005): Exception while reading from stream",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    assert results["update_status"].side_effect_possible is True, results["update_status"]
    assert "may have taken effect" in results["update_status"].text, results["update_status"].text


# --- J387: the on-call path for SQL Server's "network-related" error --------------------------------------------------

async def test_j387_explain_names_sql_server_out_of_reach_not_a_missing_record(tmp_path: Path) -> None:
    """J387 (J376 on the on-call path: dotnet/SqlClient #1871, a user quoting "query_sales failed … Ref ERR-…" while the
    database was out of reach). ``errscope explain`` on the sentence the model was shown finds the call and names
    ``upstream_unavailable`` (the outage panel), not ``not_found`` ("The server was not found" read as a missing record:
    on-call would have looked for a wrong identifier)."""
    from errscope._setup import configure_telemetry

    from tests.client.test_heldout_cases import failed, peer, tool
    from tests.client.test_oncall_explain import explain

    text = ("Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error occurred "
            "while establishing a connection to SQL Server. The server was not found or was not accessible. (provider: "
            "TCP Provider, error: 40 - Could not open a connection to SQL Server)")
    params, log = peer(tmp_path, [tool("query_sales")], {"query_sales": failed(text)})
    host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
    try:
        async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tc:
            result = await tc.call_tool("query_sales", {"region": "EU"})
    finally:
        host.shutdown()
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    said = explain(result.text, tmp_path)
    assert result.error_ref in said and "errscope.failure_class=upstream_unavailable" in said, said
    assert "not_found" not in said, said
    assert len(log.received("tools/call")) == 1
