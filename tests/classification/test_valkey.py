"""valkey-py (the Valkey project's fork of redis-py, its own ``valkey.exceptions``), synchronous and asyncio, against
a real ``redis-server`` started for this module: the same failures as test_redis's, raised by the fork's classes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import valkey
import valkey.asyncio
from valkey.backoff import NoBackoff
from valkey.retry import Retry

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import redis_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port

SHORT = 0.3


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with redis_server() as server_port:
        admin = valkey.Valkey(host=HOST, port=server_port)
        admin.execute_command("ACL", "SETUSER", "reader", "on", ">corpus-pw", "~*", "-@all", "+get")
        admin.set("orders", "a string")
        yield server_port


def _run(is_async: bool, command: Callable[[Any], Any], host: str = HOST, port: int = 6379,
         **options: Any) -> Callable[[], Any]:
    """``command(client)`` on a client of its own with retries off, sync or asyncio."""
    settings = {"socket_connect_timeout": 5, "socket_timeout": 5, **options}
    if not is_async:
        return lambda: command(valkey.Valkey(host=host, port=port, retry=Retry(NoBackoff(), 0), **settings))

    async def run() -> None:
        from valkey.asyncio.retry import Retry as AsyncRetry

        client = valkey.asyncio.Valkey(host=host, port=port, retry=AsyncRetry(NoBackoff(), 0), **settings)
        try:
            await command(client)
        finally:
            await client.aclose()

    return run


MODES = [pytest.param(False, id="sync"), pytest.param(True, id="asyncio")]


@pytest.mark.parametrize("is_async", MODES)
class TestValkey:
    def test_connection_refused(self, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.ping(), port=closed_port()))
        assert isinstance(exc, valkey.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.ping(), host=UNRESOLVABLE))
        assert isinstance(exc, valkey.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, port: int, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.ping(), port=port, username="reader", password="wrong"))
        assert isinstance(exc, valkey.AuthenticationError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_read_timeout_after_command_sent(self, port: int, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.blpop(["refund-queue"], timeout=2), port=port, socket_timeout=SHORT))
        assert isinstance(exc, valkey.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_wrong_type(self, port: int, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.lpush("orders", "x"), port=port))
        assert isinstance(exc, valkey.ResponseError)
        check(exc, C.UNKNOWN, False)

    def test_no_permission(self, port: int, is_async: bool) -> None:
        exc = raised(_run(is_async, lambda c: c.set("orders", "y"), port=port, username="reader", password="corpus-pw"))
        assert isinstance(exc, valkey.exceptions.NoPermissionError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_out_of_memory(self, port: int, is_async: bool) -> None:
        admin = valkey.Valkey(host=HOST, port=port)
        admin.config_set("maxmemory", "1")
        try:
            exc = raised(_run(is_async, lambda c: c.set("refund", "x" * 1024), port=port))
        finally:
            admin.config_set("maxmemory", "0")
        assert isinstance(exc, valkey.exceptions.OutOfMemoryError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_read_only_replica(self, port: int, is_async: bool) -> None:
        # a write sent to a replica (after a failover the client still points at the old primary): refused
        admin = valkey.Valkey(host=HOST, port=port)
        admin.execute_command("REPLICAOF", HOST, str(closed_port()))
        try:
            exc = raised(_run(is_async, lambda c: c.set("refund", "x"), port=port))
        finally:
            admin.execute_command("REPLICAOF", "NO", "ONE")
        assert isinstance(exc, valkey.exceptions.ReadOnlyError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_pool_exhausted(port: int) -> None:
    pool = valkey.ConnectionPool(host=HOST, port=port, max_connections=1)
    held = pool.get_connection("PING")
    try:
        exc = raised(lambda: pool.get_connection("PING"))
    finally:
        pool.release(held)
        pool.disconnect()
    assert isinstance(exc, valkey.ConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_watched_key_changed(port: int) -> None:
    def transfer() -> None:
        with valkey.Valkey(host=HOST, port=port).pipeline() as pipe:
            pipe.watch("balance")
            valkey.Valkey(host=HOST, port=port).set("balance", "changed")
            pipe.multi()
            pipe.set("balance", "mine")
            pipe.execute()

    exc = raised(transfer)
    assert isinstance(exc, valkey.WatchError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_connection_killed_mid_command(port: int) -> None:
    victim = valkey.Valkey(host=HOST, port=port, retry=Retry(NoBackoff(), 0))
    victim.client_setname("victim")

    def kill() -> None:
        time.sleep(0.3)
        admin = valkey.Valkey(host=HOST, port=port)
        for client in admin.client_list():
            if client.get("name") == "victim":
                admin.client_kill_filter(_id=client["id"])

    killer = threading.Thread(target=kill)
    killer.start()
    exc = raised(lambda: victim.blpop(["refund-queue"], timeout=3))
    killer.join()
    assert isinstance(exc, valkey.ConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)


def test_asyncio_cancelled_while_waiting(port: int) -> None:
    async def wait() -> None:
        client = valkey.asyncio.Valkey(host=HOST, port=port)
        try:
            task = asyncio.ensure_future(client.blpop(["refund-queue"], timeout=3))
            await asyncio.sleep(0.2)
            task.cancel()
            await task
        finally:
            await client.aclose()

    check(raised(wait), C.UPSTREAM_UNAVAILABLE, True)
