"""confluent-kafka (librdkafka) against librdkafka's own mock cluster (``test.mock.num.brokers``: a real Kafka
protocol broker in process, on 127.0.0.1) and against sockets that refuse, never answer or close.

confluent-kafka raises ``KafkaException`` holding a ``KafkaError`` (``args[0]``): librdkafka's name for it, local
(``_TRANSPORT``, ``_MSG_TIMED_OUT``, ``_INVALID_ARG``) or the broker's Kafka protocol error
(``UNKNOWN_TOPIC_OR_PART``, ``MSG_SIZE_TOO_LARGE``), and whether it is retriable. A produce's failure comes to
the delivery callback; a tool raises it as ``KafkaException(err)``, the library's own idiom.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, closing_listener, silent_listener

_QUIET = logging.getLogger("tests.classification.librdkafka")
_QUIET.disabled = True  # librdkafka's connection-refused chatter


def _failure_name(exc: BaseException) -> str:
    assert isinstance(exc, KafkaException)
    return str(exc.args[0].name())


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The mock cluster's bootstrap address: a Producer owns it while the module runs."""
    owner = Producer({"test.mock.num.brokers": 1, "logger": _QUIET})
    broker = next(iter(owner.list_topics(timeout=5).brokers.values()))
    yield f"{broker.host}:{broker.port}"
    owner.flush(1)


@pytest.fixture
def dead_port(request: pytest.FixtureRequest) -> Iterator[int]:
    if request.param == "refused":
        yield closed_port()
    else:
        with (silent_listener() if request.param == "silent" else closing_listener()) as port:
            yield port


def _deliver(producer: Producer, value: bytes, flush: float = 5) -> None:
    failures: list[Any] = []
    producer.produce("orders", value, on_delivery=lambda err, msg: failures.append(err))
    producer.flush(flush)
    if failures and failures[0] is not None:
        raise KafkaException(failures[0])


DEAD = [pytest.param(where, id=where) for where in ("refused", "silent", "closing")]


@pytest.mark.parametrize("dead_port", DEAD, indirect=True)
def test_metadata_unreachable(dead_port: int) -> None:
    admin = AdminClient({"bootstrap.servers": f"{HOST}:{dead_port}", "logger": _QUIET, "socket.timeout.ms": 500})
    exc = raised(lambda: admin.list_topics(timeout=1))
    assert _failure_name(exc) == "_TRANSPORT"
    result = check(exc, C.UPSTREAM_UNAVAILABLE, None)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("kafka", "_TRANSPORT")


@pytest.mark.parametrize("dead_port", DEAD, indirect=True)
def test_message_timed_out(dead_port: int) -> None:
    # the delivery report of a message no broker took in message.timeout.ms: librdkafka cannot say it was not written
    producer = Producer({"bootstrap.servers": f"{HOST}:{dead_port}", "logger": _QUIET, "message.timeout.ms": 500})
    exc = raised(lambda: _deliver(producer, b"order-1", flush=3))
    assert _failure_name(exc) == "_MSG_TIMED_OUT"
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_admin_request_timed_out() -> None:
    admin = AdminClient({"bootstrap.servers": f"{HOST}:{closed_port()}", "logger": _QUIET})
    exc = raised(lambda: admin.create_topics([NewTopic("orders", 1, 1)], request_timeout=1)["orders"].result())
    assert _failure_name(exc) == "_TIMED_OUT"
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_message_too_large(cluster: str) -> None:
    # over message.max.bytes: refused by produce() itself, before it is queued
    producer = Producer({"bootstrap.servers": cluster, "logger": _QUIET, "message.max.bytes": 2000})
    exc = raised(lambda: producer.produce("orders", b"x" * 5000))
    assert _failure_name(exc) == "MSG_SIZE_TOO_LARGE"
    check(exc, C.INVALID_INPUT, False)


def test_topic_not_there(cluster: str) -> None:
    consumer = Consumer({"bootstrap.servers": cluster, "group.id": "shipping", "logger": _QUIET,
                         "allow.auto.create.topics": False})
    consumer.subscribe(["refunds"])

    def poll() -> None:
        for _ in range(20):
            message = consumer.poll(0.25)
            if message is not None and message.error():
                raise KafkaException(message.error())

    try:
        exc = raised(poll)
    finally:
        consumer.close()
    assert _failure_name(exc) == "UNKNOWN_TOPIC_OR_PART"
    result = check(exc, C.NOT_FOUND, False)
    assert result.upstream is not None and result.upstream.status == "UNKNOWN_TOPIC_OR_PART"


def test_commit_with_nothing_consumed(cluster: str) -> None:
    consumer = Consumer({"bootstrap.servers": cluster, "group.id": "billing", "logger": _QUIET})
    try:
        exc = raised(lambda: consumer.commit(asynchronous=False))
    finally:
        consumer.close()
    assert _failure_name(exc) == "_NO_OFFSET"
    check(exc, C.UNKNOWN, False)


def test_transaction_call_out_of_order(cluster: str) -> None:
    producer = Producer({"bootstrap.servers": cluster, "logger": _QUIET, "transactional.id": "orders-tx"})
    producer.init_transactions(5)
    exc = raised(lambda: producer.commit_transaction(1))
    assert _failure_name(exc) == "_STATE"
    check(exc, C.UNKNOWN, False)


def test_unknown_configuration_property() -> None:
    exc = raised(lambda: Producer({"bootstrap.servers": f"{HOST}:9092", "no.such.property": 1}))
    assert _failure_name(exc) == "_INVALID_ARG"
    check(exc, C.UNKNOWN, False)
