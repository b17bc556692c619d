"""Client side of tests/heldout_cases.md, twenty-fifth round (J424-J426, J428-J430): what foreign MCP servers relay when
a Kafka producer never learned where to send, a driver's pool gave no connection in time, a cluster driver had no node
to send to, S3 timed out waiting for the request, an ORM's optimistic lock found the row changed, or a database aborted
a write that conflicted with another, in the words of the runtimes they are written in (the JVM, Python, Go, Node,
.NET, Ruby, Rust).

The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError`` with the text; every tool is a write with
no hints, so a repeat would re-run it (``answered`` checks each was sent once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, no_argument_note
from tests.client.test_heldout_cases_20 import not_sent
from tests.client.test_heldout_cases_24 import may_have_acted

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


# --- J424: a Kafka producer that never had the topic's metadata, relayed ---------------------------------------------------

async def test_j424_kafka_metadata_never_had_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J424 (dpkp/kafka-python #2240, #607 and #2626: "KafkaTimeoutError: Failed to update metadata after 60.0 secs."
    raised by ``KafkaProducer.send`` from ``_wait_on_metadata``; danielwegener/logback-kafka-appender #114: Java's
    "TimeoutException: Topic logs not present in metadata after 60000 ms."; spring-attic/spring-integration-kafka #169
    and zendesk/maxwell #495: the older Java wording "Failed to update metadata after 60000 ms." under Spring's
    ``KafkaProducerException``; apache/kafka PR #20533; odpi/egeria #5066: the AdminClient's "Timed out waiting to send
    the call", a call no broker was sent). A producer blocks in ``send`` until it knows the topic's
    partitions and their leaders, and gives up after ``max.block.ms`` before the record is even queued: nothing reached a
    broker. Each was read "may have taken effect" (the word "timeout"), so a model was told an event it must not publish
    twice might be out. They are the brokers out of reach, ``upstream_unavailable``, nothing sent. Guard: Java's
    "Expiring 1 record(s) … since batch creation" (a batch that may have been in flight) may have acted."""
    results = await answered(tmp_path, telemetry, {
        "publish_order": "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Failed to update metadata after 60.0 secs.",
        "publish_refund": "org.apache.kafka.common.errors.TimeoutException: Topic refunds not present in metadata after "
                          "60000 ms.",
        "publish_invoice": "org.springframework.kafka.core.KafkaProducerException: Failed to send; nested exception is "
                           "org.apache.kafka.common.errors.TimeoutException: Failed to update metadata after 60000 ms.",
        "create_topic": "org.apache.kafka.common.errors.TimeoutException: Call(callName=createTopics, deadlineMs="
                        "1618841235545, tries=1, nextAllowedTryMs=1618841237639) timed out at 1618841237539 after 1 "
                        "attempt(s)\nCaused by: org.apache.kafka.common.errors.TimeoutException: Timed out waiting to send "
                        "the call. Call: createTopics",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    (tmp_path / "guard").mkdir()
    guard = await answered(tmp_path / "guard", telemetry, {
        "publish_order": "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for orders-0:120001 ms "
                         "has passed since batch creation",
    })
    all_of(guard, FailureClass.UPSTREAM_UNAVAILABLE)
    may_have_acted(guard)


# --- J425: a pool that gave no connection in time, in more drivers' words, relayed -------------------------------------------

async def test_j425_pool_checkout_timeouts_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J425 (mongodb/mongo-python-driver PR #2192 and mongodb/specifications PR #472: the MongoDB drivers'
    ``WaitQueueTimeoutError`` "Timed out while checking out a connection from connection pool", in pymongo's, the Node
    driver's and the Go driver's words; coopernurse/node-pool #299, sequelize/sequelize #10808 and
    salesforce/refocus PR #870: generic-pool's "TimeoutError: ResourceRequest timed out", Sequelize 4's pool;
    somleng/somleng #11: Rails' ``ActiveRecord::ConnectionTimeoutError`` "could not obtain a connection from the pool
    within 5.000 seconds … all pooled connections were in use"). Each pool waited for a connection of its own and gave
    none: no statement was written. The MongoDB and generic-pool ones were read "may have taken effect", Rails' bare
    sentence ``unknown``. They are the database out of reach for now, ``upstream_unavailable``, nothing sent (as
    SQLAlchemy's QueuePool timeout and HikariCP's are read)."""
    results = await answered(tmp_path, telemetry, {
        "create_order": "pymongo.errors.WaitQueueTimeoutError: Timed out while checking out a connection from connection "
                        "pool. maxPoolSize: 10, timeout: 5.0",
        "update_order": "MongoWaitQueueTimeoutError: Timed out while checking out a connection from connection pool",
        "cancel_order": "timed out while checking out a connection from connection pool: context deadline exceeded; "
                        "maxPoolSize: 100, connections in use by cursors: 0, connections in use by transactions: 0, "
                        "connections in use by other operations: 100",
        "refund_order": "TimeoutError: ResourceRequest timed out",
        "ship_order": "could not obtain a connection from the pool within 5.000 seconds (waited 5.001 seconds); all "
                      "pooled connections were in use",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J426: a cluster driver with no node to send to, relayed ------------------------------------------------------------------

async def test_j426_no_node_to_send_to_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J426 (elastic/elasticsearch #13957, #11418, codelibs/fess #1461, alibaba/canal #1798: Elasticsearch's Java
    ``TransportClient`` "NoNodeAvailableException[None of the configured nodes are available: [...]]", thrown by
    ``ensureNodesAreAvailable`` when it holds no connected node; apache/drill #2902 and ing-bank/cassandra-jdbc-wrapper
    #35: the DataStax Java driver's "NoNodeAvailableException: No node was available to execute the query", an empty
    query plan; apache/cassandra-gocql-driver #831, #739 and #915: "gocql: no hosts available in the pool"). The
    driver had no node to write the request to. Each was ``unknown`` (the mapping-gap alert). They are the cluster out
    of reach, ``upstream_unavailable``, nothing sent (as J422's "No Living connections")."""
    results = await answered(tmp_path, telemetry, {
        "index_order": "NoNodeAvailableException[None of the configured nodes are available: [{#transport#-1}"
                       "{search.example.test}{10.0.0.7:9300}]]",
        "save_event": "com.datastax.oss.driver.api.core.NoNodeAvailableException: No node was available to execute the "
                      "query",
        "save_metric": "gocql: no hosts available in the pool",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)


# --- J428: S3's RequestTimeout, relayed -------------------------------------------------------------------------------------

async def test_j428_s3_request_timeout_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J428 (ember-cli-deploy/ember-cli-deploy-s3 #108 and MaayanLab/archs4 #33: S3's "RequestTimeout: Your socket
    connection to the server was not read from or written to within the timeout period. Idle connections will be
    closed.", an upload whose body S3 stopped waiting for; the AWS CLI's and botocore's "An error occurred
    (RequestTimeout) when calling the PutObject operation", the AWS SDK for Java's "(Service: Amazon S3; Status Code:
    400; Error Code: RequestTimeout; …)"; botocore's ``retries/standard.py`` lists ``RequestTimeout`` and
    ``RequestTimeoutException`` among its transient codes). S3 answers 400 when it timed out waiting for the
    request: the object was not stored. Each was read "may have taken effect" (the word "timeout"). They are the store
    out of reach for now, ``upstream_unavailable``, nothing stored; no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "upload_report": "An error occurred (RequestTimeout) when calling the PutObject operation (reached max retries: "
                         "4): Your socket connection to the server was not read from or written to within the timeout "
                         "period. Idle connections will be closed.",
        "upload_invoice": "RequestTimeout: Your socket connection to the server was not read from or written to within "
                          "the timeout period. Idle connections will be closed.",
        "upload_backup": "com.amazonaws.services.s3.model.AmazonS3Exception: Your socket connection to the server was not "
                         "read from or written to within the timeout period. Idle connections will be closed. (Service: "
                         "Amazon S3; Status Code: 400; Error Code: RequestTimeout; Request ID: FAKE0REQ0ID; S3 Extended "
                         "Request ID: FAKE0EXT0ID)",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)


# --- J429: an ORM's optimistic lock that found the row changed, relayed --------------------------------------------------------

async def test_j429_optimistic_lock_conflicts_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J429 (dotnet/efcore PR #1718, #9166, aspnetboilerplate/aspnetboilerplate #2696: EF Core's
    ``DbUpdateConcurrencyException`` "The database operation was expected to affect 1 row(s), but actually affected 0
    row(s); data may have been modified or deleted since entities were loaded."; keycloak/keycloak #30962, osiam/osiam
    #207, zalando-stups/fullstop #306: Hibernate's ``StaleObjectStateException`` "Row was updated or deleted by another
    transaction" under JPA's ``OptimisticLockException`` and Spring's "optimistic locking failed"). An UPDATE whose
    version check matched no row: another writer changed or removed the row since it was read, and nothing was written.
    Each was ``unknown``. errscope reads SQLAlchemy's ``StaleDataError`` as ``invalid_input`` (a conflict with the row's
    current state, HTTP 409/412): the same here, nothing written."""
    results = await answered(tmp_path, telemetry, {
        "rename_order": "Microsoft.EntityFrameworkCore.DbUpdateConcurrencyException: The database operation was expected "
                        "to affect 1 row(s), but actually affected 0 row(s); data may have been modified or deleted since "
                        "entities were loaded.",
        "close_order": "org.springframework.orm.ObjectOptimisticLockingFailureException: Object of class "
                       "[com.example.Order] with identifier [42]: optimistic locking failed; nested exception is "
                       "org.hibernate.StaleObjectStateException: Row was updated or deleted by another transaction (or "
                       "unsaved-value mapping was incorrect) : [com.example.Order#42]",
        "tag_order": "jakarta.persistence.OptimisticLockException: Row was updated or deleted by another transaction (or "
                     "unsaved-value mapping was incorrect) : [com.example.Order#42]",
    })
    all_of(results, FailureClass.INVALID_INPUT)
    not_sent(results)


# --- J430: a write the database aborted for a conflict with another, relayed --------------------------------------------------

async def test_j430_write_conflicts_relayed(tmp_path: Path, telemetry: Any) -> None:
    """J430 (prisma/orm #12814 and #14455, mongodb/mongo-rust-driver #533, payloadcms/payload #4583: MongoDB's code 112
    "WriteConflict error: this operation conflicted with another operation. Please retry your operation or
    multi-document transaction.", labelled ``TransientTransactionError``; GoogleCloudPlatform/python-docs-samples #3548
    and googleapis/python-firestore #571: google-api-core's "Aborted: 409 Too much contention on these documents.
    Please try again."). The database aborted the write because another one touched the same documents: nothing was
    applied, and the same write may succeed if tried again (as PostgreSQL's 40001 and gRPC's ABORTED are read). Prisma's
    and the Rust driver's form was ``unknown``, the Node driver's not known whether it acted, Firestore's
    ``invalid_input`` (its 409): the model told to fix right arguments. They are ``upstream_unavailable``, nothing
    applied, no advice to change the arguments."""
    results = await answered(tmp_path, telemetry, {
        "reserve_seat": "MongoServerError: WriteConflict error: this operation conflicted with another operation. Please "
                        "retry your operation or multi-document transaction.",
        "add_points": "Error in connector: Database error. error code: unknown, error message: Command failed "
                      "(WriteConflict): WriteConflict error: this operation conflicted with another operation. Please "
                      "retry your operation or multi-document transaction.",
        "bump_counter": "google.api_core.exceptions.Aborted: 409 Too much contention on these documents. Please try "
                        "again.",
    })
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    not_sent(results)
    no_argument_note(results)
