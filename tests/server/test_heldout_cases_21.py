"""Server side of tests/heldout_cases.md, twenty-first round (J385): real Kafka clients raising real exceptions in a
tool when no broker answered the bootstrap.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process; the tools call
aiokafka and kafka-python against a closed port on 127.0.0.1.
"""

from __future__ import annotations

import aiokafka
import anyio
import kafka
import pytest
from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, closed_port
from tests.server.test_heldout_cases import serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


async def publish_with_aiokafka(event: str) -> str:
    """Publish an order event (aiokafka)."""
    producer = aiokafka.AIOKafkaProducer(bootstrap_servers=f"{HOST}:{closed_port()}", request_timeout_ms=1000)
    try:
        await producer.start()
        await producer.send_and_wait("orders", event.encode())
    finally:
        await producer.stop()
    return "published"


async def publish_with_kafka_python(event: str) -> str:
    """Publish an order event (kafka-python, in a worker thread)."""
    def produce() -> None:
        # the same KafkaTimeoutError("Unable to bootstrap from ...") as the default 30 s gives
        producer = kafka.KafkaProducer(bootstrap_servers=f"{HOST}:{closed_port()}", request_timeout_ms=1000, bootstrap_timeout_ms=2000)
        producer.send("orders", event.encode()).get(timeout=2)

    await anyio.to_thread.run_sync(produce)
    return "published"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [publish_with_aiokafka, publish_with_kafka_python])
async def test_j385_no_broker_answered_the_bootstrap(style: str, tool: object, telemetry: CapturedTelemetry) -> None:
    """J385 (IBM/sarama #731 and #1568, Edgio/vflow #183, knative-extensions/eventing-kafka #309: "kafka: client has run
    out of available brokers to talk to (Is your cluster reachable?)"; aiokafka's ``KafkaConnectionError("Unable to
    bootstrap from [...]")`` and kafka-python's ``KafkaTimeoutError("Unable to bootstrap from ...")``). A tool publishes
    an event while no broker answers. The client never had a broker to send the event to: ``upstream_unavailable`` and
    side effect false (it was "not known", and kafka-python's is a ``KafkaTimeoutError``, whose timeout alone reads as
    a wait for an answer)."""
    async with serving(style, "legacy", telemetry, tool) as served:
        result = await served.call(tool.__name__, {"event": '{"order": "A-1"}'})  # type: ignore[attr-defined]
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
