"""Twisted's HTTP client through treq, against real sockets on 127.0.0.1.

Twisted's errors are its own, none an ``OSError``: a connection never made is a ``ConnectError`` subclass
(``ConnectionRefusedError``, ``TCPTimedOutError``, ``TimeoutError``) or ``DNSLookupError``; the HTTP client wraps what
broke in ``ResponseNeverReceived``/``ResponseFailed``/``RequestTransmissionFailed``, which keep ``Failure`` objects
(``.reasons``), not a chain. treq's ``timeout`` cancels the request: ``ResponseNeverReceived([CancelledError])``. treq
answers every status with a response (no status error), so only transport failures are cases here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closing_listener, silent_listener

treq = pytest.importorskip("treq")
threads = pytest.importorskip("twisted.internet.threads")
defer = pytest.importorskip("twisted.internet.defer")


@pytest.fixture(scope="module")
def reactor() -> Iterator[Any]:
    """Twisted's global reactor, running in a daemon thread of its own: it cannot be restarted after a stop, so it is
    started once and left running for the process."""
    from twisted.internet import reactor as running

    if not running.running:
        threading.Thread(target=running.run, kwargs={"installSignalHandlers": False}, daemon=True).start()
    yield running


def _post(reactor: Any, url: str, timeout: float = 1) -> BaseException:
    """What treq's POST to ``url`` failed with, as treq's Deferred delivered it."""
    async def post() -> None:
        await treq.post(url, data=b'{"order": 17}', timeout=timeout)

    try:
        threads.blockingCallFromThread(reactor, lambda: defer.ensureDeferred(post()))
    except BaseException as exc:
        return exc
    raise AssertionError(f"POST {url} did not fail")


def test_refused(reactor: Any, upstream: HttpUpstream) -> None:
    exc = _post(reactor, upstream.failing("refused"))
    assert type(exc).__module__ == "twisted.internet.error" and not isinstance(exc, OSError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_unresolvable(reactor: Any) -> None:
    check(_post(reactor, f"http://{UNRESOLVABLE}:8080/"), C.UPSTREAM_UNAVAILABLE, False)


def test_connect_timeout(reactor: Any, backlog_port: int) -> None:
    check(_post(reactor, f"http://{HOST}:{backlog_port}/"), C.UPSTREAM_UNAVAILABLE, False)


def test_reset_after_the_request(reactor: Any, upstream: HttpUpstream) -> None:
    exc = _post(reactor, upstream.failing("drop"))
    assert type(exc).__name__ == "ResponseNeverReceived"
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_after_the_request(reactor: Any) -> None:
    with closing_listener(read_first=True) as port:
        exc = _post(reactor, f"http://{HOST}:{port}/")
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_no_answer_in_time(reactor: Any) -> None:
    with silent_listener() as port:
        exc = _post(reactor, f"http://{HOST}:{port}/")
    assert type(exc).__name__ == "ResponseNeverReceived"  # treq cancelled the request it had written
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_to_a_plain_http_port(reactor: Any, upstream: HttpUpstream) -> None:
    check(_post(reactor, upstream.url.replace("http://", "https://")), C.UPSTREAM_UNAVAILABLE, False)
