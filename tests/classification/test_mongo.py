"""pymongo against real failure modes on 127.0.0.1 (no mongod is available here: every case fails
before a server is selected, which is what a tool sees when its database is down or unreachable).

pymongo raises ServerSelectionTimeoutError when no server could be selected within
``serverSelectionTimeoutMS``, whatever the reason (refused, unresolvable, a listener that never
answers the hello, one that closes at once): no operation was sent. It keeps no server object: the address is the
``host:port`` its message starts with (pymongo's ``_raise_connection_failure`` prefix, one per server it tried).
"""

from __future__ import annotations

from collections.abc import Callable

import pymongo
import pytest
from pymongo.errors import ServerSelectionTimeoutError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener, silent_listener


def _insert(host: str, port: int) -> Callable[[], object]:
    client = pymongo.MongoClient(host, port, serverSelectionTimeoutMS=300, connectTimeoutMS=300, socketTimeoutMS=300)
    return lambda: client.shop.orders.insert_one({"sku": "A-1"})


@pytest.mark.parametrize("where", ["refused", "unresolvable", "silent", "closing"])
def test_no_server_selected(where: str) -> None:
    with silent_listener() as silent, closing_listener() as closing:
        host, port = {"refused": (HOST, closed_port()), "unresolvable": (UNRESOLVABLE, 27017),
                      "silent": (HOST, silent), "closing": (HOST, closing)}[where]
        exc = raised(_insert(host, port))
    assert type(exc) is ServerSelectionTimeoutError
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.system == "mongodb"
    assert result.upstream.address == f"{host}:{port}"
