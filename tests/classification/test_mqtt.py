"""aiomqtt (over paho-mqtt) talking to an MQTT broker on 127.0.0.1 that refuses it the ways MQTT lets a broker.

The broker is a socket that speaks the protocol's refusals (MQTT 3.1.1 §3.2, MQTT 5.0 §3.2, §3.14): it reads the
client's CONNECT and answers a CONNACK with a return or reason code, or it accepts the session, acknowledges the
subscription and then sends a DISCONNECT with a reason code (MQTT 5). paho turns an MQTT 3.1.1 return code into the
MQTT 5 reason code that means the same (1 -> 0x84 ... 5 -> 0x87), and aiomqtt keeps it as ``rc`` (a paho
``ReasonCode``). A failure on paho's side of the socket is ``rc`` too, but one of paho's own ``MQTTErrorCode``s
(``MQTT_ERR_NO_CONN``): the type tells the two apart.

Reason codes (MQTT 5.0 §2.4, table 2-6): a refused login or authorization is ``permission_denied``; a quota or a
connection rate exceeded is ``rate_limited``; a server unavailable, busy, shutting down or moved is
``upstream_unavailable``. A CONNACK refusal comes before any message: nothing done.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import aiomqtt
from aiomqtt.exceptions import MqttConnectError
import paho.mqtt.client as mqtt
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closed_port, silent_listener


@contextmanager
def broker(connack: bytes, *, after_subscribe: bytes | None = None) -> Iterator[int]:
    """A broker that answers each CONNECT with ``connack``; with ``after_subscribe`` it acknowledges the first
    SUBSCRIBE (granting QoS 0) and then sends those bytes (a DISCONNECT)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        sock.listen(8)

        def serve() -> None:
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                with conn:
                    try:
                        conn.recv(4096)
                        conn.sendall(connack)
                        if after_subscribe is not None:
                            subscribe = conn.recv(4096)
                            packet_id = subscribe[2:4]  # remaining length fits one byte here
                            conn.sendall(b"\x90\x04" + packet_id + b"\x00\x00")  # SUBACK: no properties, QoS 0
                            conn.sendall(after_subscribe)
                            conn.recv(4096)  # until the client closes
                    except OSError:
                        continue

        threading.Thread(target=serve, daemon=True).start()
        yield int(sock.getsockname()[1])
        sock.shutdown(socket.SHUT_RDWR)


def connack311(code: int) -> bytes:
    return b"\x20\x02\x00" + bytes([code])


def connack5(code: int) -> bytes:
    return b"\x20\x03\x00" + bytes([code]) + b"\x00"


async def _connect(port: int, protocol: int, timeout: float = 3) -> None:
    async with aiomqtt.Client(HOST, port, protocol=protocol, timeout=timeout):
        pass


async def _listen(port: int) -> None:
    async with aiomqtt.Client(HOST, port, protocol=mqtt.MQTTv5, timeout=3) as client:
        await client.subscribe("orders/#")
        async for _ in client.messages:
            pass


@pytest.mark.parametrize(("code", "failure_class"), [
    # 1 and 2 (protocol version, identifier) are not raised: paho retries them with MQTT 3.1 until the timeout
    (3, C.UPSTREAM_UNAVAILABLE),  # server unavailable
    (4, C.PERMISSION_DENIED),  # bad user name or password
    (5, C.PERMISSION_DENIED),  # not authorized
])
def test_connack_mqtt311(code: int, failure_class: C) -> None:
    with broker(connack311(code)) as port:
        exc = raised(lambda: _connect(port, mqtt.MQTTv311))
    assert isinstance(exc, MqttConnectError)
    check(exc, failure_class, False)


@pytest.mark.parametrize(("code", "failure_class"), [
    (0x84, C.UPSTREAM_UNAVAILABLE),  # unsupported protocol version: this broker cannot serve the tool
    (0x85, C.UNKNOWN),  # client identifier not valid: the tool's own setting
    (0x86, C.PERMISSION_DENIED),  # bad user name or password
    (0x87, C.PERMISSION_DENIED),  # not authorized
    (0x8A, C.PERMISSION_DENIED),  # banned
    (0x8C, C.PERMISSION_DENIED),  # bad authentication method
    (0x88, C.UPSTREAM_UNAVAILABLE),  # server unavailable
    (0x89, C.UPSTREAM_UNAVAILABLE),  # server busy
    (0x9C, C.UPSTREAM_UNAVAILABLE),  # use another server
    (0x97, C.RATE_LIMITED),  # quota exceeded
    (0x9F, C.RATE_LIMITED),  # connection rate exceeded
    (0x95, C.INVALID_INPUT),  # packet too large
])
def test_connack_mqtt5(code: int, failure_class: C) -> None:
    with broker(connack5(code)) as port:
        exc = raised(lambda: _connect(port, mqtt.MQTTv5))
    assert isinstance(exc, MqttConnectError)
    result = check(exc, failure_class, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("mqtt", str(code))


@pytest.mark.parametrize(("code", "failure_class", "side_effect"), [
    (0x8B, C.UPSTREAM_UNAVAILABLE, None),  # server shutting down: under a subscription, it does not say more
    (0x89, C.UPSTREAM_UNAVAILABLE, None),  # server busy
    (0x87, C.PERMISSION_DENIED, False),  # not authorized
    (0x97, C.RATE_LIMITED, False),  # quota exceeded
    (0x8D, C.UPSTREAM_UNAVAILABLE, None),  # keep alive timeout
])
def test_server_disconnects_the_session(code: int, failure_class: C, side_effect: bool | None) -> None:
    with broker(connack5(0), after_subscribe=b"\xe0\x02" + bytes([code]) + b"\x00") as port:
        exc = raised(lambda: _listen(port))
    # aiomqtt's iterator raises its base MqttError from the MqttCodeError that keeps the DISCONNECT's code
    assert isinstance(exc, aiomqtt.MqttError) and isinstance(exc.__cause__, aiomqtt.MqttCodeError)
    check(exc, failure_class, side_effect)


def test_publish_after_the_broker_closed() -> None:
    """The broker closed the connection; paho refuses the publish locally (``MQTT_ERR_NO_CONN``): not sent."""

    async def publish(port: int) -> None:
        async with aiomqtt.Client(HOST, port, protocol=mqtt.MQTTv311, timeout=3) as client:
            await asyncio.sleep(0.3)  # the broker's close arrives
            await client.publish("orders/1", b"{}", qos=1)

    with broker(connack311(0)) as port:
        exc = raised(lambda: publish(port))
    assert isinstance(exc, aiomqtt.MqttCodeError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_broker_not_running() -> None:
    exc = raised(lambda: _connect(closed_port(), mqtt.MQTTv5))
    assert isinstance(exc, aiomqtt.MqttError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_broker_never_answers_the_connect() -> None:
    """The TCP connection opens, the CONNACK never comes: no session, no message sent."""
    with silent_listener() as port:
        exc = raised(lambda: _connect(port, mqtt.MQTTv5, timeout=0.3))
    assert isinstance(exc, aiomqtt.MqttError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
