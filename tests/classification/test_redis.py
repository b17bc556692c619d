"""Redis through redis-py, against a real ``redis-server`` started for this module."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis
import redis.sentinel
from redis.backoff import NoBackoff
from redis.retry import Retry

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import redis_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener, silent_listener

SHORT = 0.3
NO_RETRY = Retry(NoBackoff(), 0)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with redis_server() as server_port:
        admin = redis.Redis(host=HOST, port=server_port)
        admin.execute_command("ACL", "SETUSER", "reader", "on", ">corpus-pw", "~*", "-@all", "+get")
        admin.set("orders", "a string")
        yield server_port


def _client(port: int, **options: object) -> redis.Redis:
    # No retries: redis-py re-sends a command after a lost connection by default; each case is one failure.
    settings: dict[str, object] = {"socket_connect_timeout": 5, "socket_timeout": 5, "retry": NO_RETRY, **options}
    return redis.Redis(host=HOST, port=port, **settings)  # type: ignore[arg-type]


class TestConnecting:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _client(closed_port()).ping())
        assert isinstance(exc, redis.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: redis.Redis(host=UNRESOLVABLE, socket_connect_timeout=5, retry=NO_RETRY).ping())
        assert isinstance(exc, redis.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_connect_timeout(self, backlog_port: int) -> None:
        # redis-py raises one TimeoutError for connect and read; raised inside the connection's connect (the TCP
        # connect, or the handshake before any command) nothing was sent (J415: was "may have been sent")
        exc = raised(lambda: redis.Redis(host=HOST, port=backlog_port, socket_connect_timeout=SHORT, retry=NO_RETRY).ping())
        assert isinstance(exc, redis.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, port: int) -> None:
        exc = raised(lambda: _client(port, username="reader", password="wrong").ping())
        assert isinstance(exc, redis.AuthenticationError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_pool_exhausted(self, port: int) -> None:
        pool = redis.ConnectionPool(host=HOST, port=port, max_connections=1)
        held = pool.get_connection()
        try:
            exc = raised(lambda: pool.get_connection())
        finally:
            pool.release(held)
            pool.disconnect()
        assert isinstance(exc, redis.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestCommands:
    def test_read_timeout_after_command_sent(self, port: int) -> None:
        exc = raised(lambda: _client(port, socket_timeout=SHORT).blpop(["refund-queue"], timeout=2))
        assert isinstance(exc, redis.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_server_stalls(self, port: int) -> None:
        exc = raised(lambda: _client(port, socket_timeout=SHORT).execute_command("DEBUG", "SLEEP", "1"))
        assert isinstance(exc, redis.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_killed_mid_command(self, port: int) -> None:
        victim = _client(port)
        victim.client_setname("victim")

        def kill() -> None:
            time.sleep(0.3)
            admin = _client(port)
            for client in admin.client_list():
                if client.get("name") == "victim":
                    admin.client_kill_filter(_id=client["id"])

        killer = threading.Thread(target=kill)
        killer.start()
        exc = raised(lambda: victim.blpop(["refund-queue"], timeout=3))
        killer.join()
        assert isinstance(exc, redis.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)

    def test_wrong_type(self, port: int) -> None:
        exc = raised(lambda: _client(port).lpush("orders", "x"))
        assert isinstance(exc, redis.ResponseError)
        check(exc, C.UNKNOWN, False)

    def test_no_permission(self, port: int) -> None:
        exc = raised(lambda: _client(port, username="reader", password="corpus-pw").set("orders", "y"))
        assert isinstance(exc, redis.exceptions.NoPermissionError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_watched_key_changed(self, port: int) -> None:
        def transfer() -> None:
            with _client(port).pipeline() as pipe:
                pipe.watch("balance")
                _client(port).set("balance", "changed")
                pipe.multi()
                pipe.set("balance", "mine")
                pipe.execute()

        exc = raised(transfer)
        assert isinstance(exc, redis.WatchError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_out_of_memory(self, port: int) -> None:
        admin = _client(port)
        admin.config_set("maxmemory", "1")
        try:
            exc = raised(lambda: admin.set("refund", "x" * 1024))
        finally:
            admin.config_set("maxmemory", "0")
        assert isinstance(exc, redis.exceptions.OutOfMemoryError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestSentinel:
    """A Sentinel client whose sentinel is not there or never answers: no master was named, no command sent to one;
    the sentinel is the upstream named (not the placeholder localhost:6379 its managed connection holds until then)."""

    @pytest.mark.parametrize("where", ["refused", "silent"])
    def test_no_master_found(self, where: str) -> None:
        with silent_listener() as silent:
            port = closed_port() if where == "refused" else silent
            sentinel = redis.sentinel.Sentinel([(HOST, port)], socket_timeout=SHORT, socket_connect_timeout=SHORT)
            exc = raised(lambda: sentinel.master_for("orders").set("order:1", "paid"))
        assert isinstance(exc, redis.sentinel.MasterNotFoundError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None
        assert (result.upstream.system, result.upstream.address) == ("redis", f"{HOST}:{port}")


def test_dropped_while_the_connection_opens() -> None:
    """A peer that closes each connection at once: redis-py reads the end of stream (or the reset) answering the
    handshake its ``connect`` runs before any command (``on_connect``), so nothing was sent, either way it is read."""
    with closing_listener() as port:
        for _ in range(4):  # end of stream or reset, by timing: both are the same failure
            exc = raised(lambda: _client(port).set("order:1", "paid"))
            assert isinstance(exc, redis.ConnectionError)
            check(exc, C.UPSTREAM_UNAVAILABLE, False)
