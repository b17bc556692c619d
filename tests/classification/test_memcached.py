"""pymemcache against a real memcached (Debian's ``memcached``) started for this module with 2 MB of memory,
told to refuse rather than evict (``-M``), and items of at most 1 MB.

memcached answers ``SERVER_ERROR <text>`` when it cannot carry a command out and ``CLIENT_ERROR <text>`` when
the command does not fit (protocol.txt, "Error strings"); pymemcache raises MemcacheServerError and
MemcacheClientError with the text, and checks keys itself before sending (MemcacheIllegalInputError, a
MemcacheClientError). None of them stored anything.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pymemcache.client.base import Client
from pymemcache.exceptions import MemcacheClientError, MemcacheIllegalInputError, MemcacheServerError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import memcached_server
from tests.classification.upstreams import HOST


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with memcached_server("-m", "2", "-M", "-I", "1m") as port:
        memcached = Client((HOST, port), connect_timeout=5, timeout=5)
        yield memcached
        memcached.close()


def test_out_of_memory(client: Client) -> None:
    def fill() -> None:
        for index in range(64):  # 32 MB of 500 kB items into 2 MB: refused long before the end
            client.set(f"report:{index}", b"y" * 500_000, noreply=False)

    exc = raised(fill)
    assert type(exc) is MemcacheServerError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_item_over_the_size_limit(client: Client) -> None:
    exc = raised(lambda: client.set("report", b"x" * (2 << 20), noreply=False))
    assert type(exc) is MemcacheServerError
    check(exc, C.INVALID_INPUT, False)


def test_increment_a_value_that_is_not_a_number(client: Client) -> None:
    client.set("visits", b"many", noreply=False)
    exc = raised(lambda: client.incr("visits", 1, noreply=False))
    assert type(exc) is MemcacheClientError
    check(exc, C.UNKNOWN, False)


@pytest.mark.parametrize("key", ["session id", "s" * 251], ids=["whitespace", "too_long"])
def test_key_refused_before_sending(client: Client, key: str) -> None:
    exc = raised(lambda: client.get(key))
    assert type(exc) is MemcacheIllegalInputError
    check(exc, C.UNKNOWN, False)
