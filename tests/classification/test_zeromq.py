"""pyzmq sockets (the transport of Jupyter kernels, Salt, Locust and many in-house RPC services) failing against real
ZeroMQ peers on 127.0.0.1.

ZeroMQ reports failures as ``zmq.ZMQError`` with a POSIX ``errno`` (not an ``OSError``): ``zmq.Again`` (``EAGAIN``) is
a socket timeout (``RCVTIMEO``/``SNDTIMEO``) or a full queue with no peer to take the message; ``EHOSTUNREACH`` a
ROUTER socket (``ROUTER_MANDATORY``) that has no peer of that identity. Which call raised tells whether the message
left: a send that timed out never queued it, a receive that timed out waited for the answer to one that went out.
A socket used out of its pattern's order (``EFSM``: a REQ sending twice) is the tool's own bug.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
import zmq
import zmq.asyncio

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, silent_listener

SHORT = 300
"""Milliseconds: every socket timeout of a case."""


@pytest.fixture
def context() -> Iterator[zmq.Context]:
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


@pytest.fixture
def mute_server(context: zmq.Context) -> Iterator[str]:
    """A REP socket that reads each request and never replies (its worker hung)."""
    rep = context.socket(zmq.REP)
    port = rep.bind_to_random_port(f"tcp://{HOST}")
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            if rep.poll(50):
                rep.recv()

    worker = threading.Thread(target=serve, daemon=True)
    worker.start()
    yield f"tcp://{HOST}:{port}"
    stop.set()
    worker.join(2)
    rep.close(linger=0)


def _socket(context: zmq.Context, kind: int, **options: int) -> zmq.Socket:
    sock = context.socket(kind)
    sock.setsockopt(zmq.LINGER, 0)
    for name, value in options.items():
        sock.setsockopt(getattr(zmq, name), value)
    return sock


def test_request_never_answered(context: zmq.Context, mute_server: str) -> None:
    req = _socket(context, zmq.REQ, RCVTIMEO=SHORT)
    req.connect(mute_server)
    req.send_json({"order": 17})
    exc = raised(req.recv_json)
    assert isinstance(exc, zmq.Again)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_request_to_a_peer_that_is_no_zeromq(context: zmq.Context) -> None:
    """A TCP listener that never speaks ZMTP: ZeroMQ keeps the message queued, the receive times out. The message
    never reached a ZeroMQ peer, but nothing in the error says so: it may have."""
    with silent_listener() as port:
        req = _socket(context, zmq.REQ, RCVTIMEO=SHORT)
        req.connect(f"tcp://{HOST}:{port}")
        req.send(b"order 17")
        exc = raised(req.recv)
    assert isinstance(exc, zmq.Again)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_send_with_no_peer_connected(context: zmq.Context) -> None:
    """A DEALER whose peer never came up: with no pipe the send blocks, and times out without queueing it."""
    dealer = _socket(context, zmq.DEALER, SNDTIMEO=SHORT)
    exc = raised(lambda: dealer.send(b"order 17"))
    assert isinstance(exc, zmq.Again)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_router_has_no_such_peer(context: zmq.Context) -> None:
    router = _socket(context, zmq.ROUTER, ROUTER_MANDATORY=1)
    router.bind_to_random_port(f"tcp://{HOST}")
    exc = raised(lambda: router.send_multipart([b"worker-7", b"", b"order 17"]))
    assert isinstance(exc, zmq.ZMQError) and exc.errno == zmq.EHOSTUNREACH
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_request_socket_used_out_of_order(context: zmq.Context, mute_server: str) -> None:
    req = _socket(context, zmq.REQ)
    req.connect(mute_server)
    req.send(b"order 17")
    exc = raised(lambda: req.send(b"order 18"))
    assert isinstance(exc, zmq.ZMQError) and exc.errno == zmq.EFSM
    check(exc, C.UNKNOWN, False)


def test_asyncio_receive_timeout(mute_server: str) -> None:
    async def ask() -> None:
        ctx = zmq.asyncio.Context()
        req = ctx.socket(zmq.REQ)
        req.setsockopt(zmq.LINGER, 0)
        req.setsockopt(zmq.RCVTIMEO, SHORT)
        req.connect(mute_server)
        try:
            await req.send(b"order 17")
            await req.recv()
        finally:
            ctx.destroy(linger=0)

    exc = raised(ask)
    assert isinstance(exc, zmq.Again)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_asyncio_deadline_while_waiting(mute_server: str) -> None:
    async def ask() -> None:
        ctx = zmq.asyncio.Context()
        req = ctx.socket(zmq.REQ)
        req.setsockopt(zmq.LINGER, 0)
        req.connect(mute_server)
        try:
            await req.send(b"order 17")
            await asyncio.wait_for(req.recv(), SHORT / 1000)
        finally:
            ctx.destroy(linger=0)

    exc = raised(ask)
    assert isinstance(exc, TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
