"""python-oracledb in its thin mode (pure Python, no Oracle Client libraries), synchronous and asyncio, against
sockets on 127.0.0.1 that are no Oracle listener: a closed port, a name that does not resolve, a peer that closes
at once or after reading the connect packet, and one that answers as HTTP.

oracledb raises PEP 249 classes whose ``args[0]`` is its error object (``full_code`` ``DPY-6005``: cannot
connect), raised from the socket's own error or from its own ``DPY-4011`` (the peer closed the connection).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import oracledb
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener


def _connect(host: str, port: int, is_async: bool) -> Callable[[], Any]:
    settings = {"user": "shop", "password": "corpus-pw", "host": host, "port": port, "service_name": "shop",
                "tcp_connect_timeout": 2, "retry_count": 0}
    if not is_async:
        return lambda: oracledb.connect(**settings)

    async def connect() -> None:
        await oracledb.connect_async(**settings)

    return connect


MODES = [pytest.param(False, id="sync"), pytest.param(True, id="asyncio")]


@pytest.mark.parametrize("is_async", MODES)
class TestThinConnect:
    def test_connection_refused(self, is_async: bool) -> None:
        exc = raised(_connect(HOST, closed_port(), is_async))
        assert isinstance(exc, oracledb.OperationalError) and exc.args[0].full_code == "DPY-6005"
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, is_async: bool) -> None:
        check(raised(_connect(UNRESOLVABLE, 1521, is_async)), C.UPSTREAM_UNAVAILABLE, False)

    @pytest.mark.parametrize("read_first", [False, True], ids=["closes-at-once", "closes-after-connect-packet"])
    def test_peer_closes(self, is_async: bool, read_first: bool) -> None:
        with closing_listener(read_first=read_first) as port:
            exc = raised(_connect(HOST, port, is_async))
        assert isinstance(exc, oracledb.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_not_an_oracle_listener(self, is_async: bool) -> None:
        # another service on the port answers the connect packet with its own words (an HTTP 400): no TNS answer
        answer = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        with closing_listener(answer, read_first=True) as port:
            exc = raised(_connect(HOST, port, is_async))
        assert isinstance(exc, oracledb.Error)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
