"""Message brokers' clients against real failure modes on 127.0.0.1 (no broker runs here):
pika (RabbitMQ, AMQP 0-9-1), kafka-python and aiokafka.

pika's BlockingConnection raises AMQPConnectionError (or its connector's error) when the
connection cannot be opened: nothing was published. kafka-python's producer gives up waiting for
the cluster's metadata with KafkaTimeoutError, a timeout whose type does not say whether a record went out; aiokafka's
producer cannot bootstrap with KafkaConnectionError, which it also raises for a connection lost
under a request: neither says whether anything was delivered.
"""

from __future__ import annotations

import aiokafka
import aiokafka.errors
import kafka
import kafka.errors
import pika
import pika.exceptions
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port, closing_listener, silent_listener


class TestPika:
    @pytest.mark.parametrize(("where", "kind"), [
        ("refused", pika.exceptions.AMQPConnectionError),
        ("closing", pika.exceptions.IncompatibleProtocolError),  # closed before the protocol header's answer
        ("silent", pika.exceptions.AMQPConnectionError),  # the connection workflow timed out
        ("http", pika.exceptions.AMQPConnectionError),  # a server that is not a broker
    ])
    def test_cannot_connect(self, upstream: HttpUpstream, where: str, kind: type) -> None:
        with silent_listener() as silent, closing_listener() as closing:
            port = {"refused": closed_port(), "closing": closing, "silent": silent, "http": upstream.port}[where]
            params = pika.ConnectionParameters(HOST, port, connection_attempts=1, socket_timeout=0.3, stack_timeout=0.5)
            exc = raised(lambda: pika.BlockingConnection(params))
        assert isinstance(exc, kind | pika.adapters.utils.connection_workflow.AMQPConnectorException)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.system == "amqp"


class TestKafka:
    @pytest.mark.parametrize("where", ["refused", "closing"])
    def test_producer_cannot_bootstrap(self, where: str) -> None:
        with closing_listener() as closing:
            port = closed_port() if where == "refused" else closing
            # api_version pinned: no version probe, the send itself waits for the cluster's metadata
            producer = kafka.KafkaProducer(bootstrap_servers=f"{HOST}:{port}", max_block_ms=500,
                                           request_timeout_ms=500, api_version=(2, 8))
            try:
                exc = raised(lambda: producer.send("orders", b"x").get(2))
            finally:
                producer.close(timeout=0)
        assert isinstance(exc, kafka.errors.KafkaTimeoutError)
        # "Failed to update metadata after 0.5 secs." out of send()'s wait for the topic's metadata: the record was never
        # queued, so nothing was produced (heldout J423; as aiokafka's "Unable to bootstrap from" below)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestAiokafka:
    @pytest.mark.parametrize("where", ["refused", "closing", "silent"])
    def test_producer_cannot_bootstrap(self, where: str) -> None:
        async def start(port: int) -> None:
            producer = aiokafka.AIOKafkaProducer(bootstrap_servers=f"{HOST}:{port}", request_timeout_ms=500,
                                                 api_version="2.8.0")
            try:
                await producer.start()
            finally:
                await producer.stop()

        with silent_listener() as silent, closing_listener() as closing:
            port = {"refused": closed_port(), "closing": closing, "silent": silent}[where]
            exc = raised(lambda: start(port))
        assert type(exc) is aiokafka.errors.KafkaConnectionError
        # "Unable to bootstrap from [...]": no broker's metadata was had, so nothing was produced (J384/J385)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
