"""pymssql (FreeTDS's DB-Library, bundled in its wheels) connecting to sockets on 127.0.0.1 that are no SQL Server:
a closed port, a name that does not resolve, a listener that never answers the prelogin, one that closes at once
and one that answers as HTTP.

pymssql raises ``pymssql.exceptions.OperationalError`` with DB-Library's number (``20009``: unable to connect) and
its messages in ``args``, raised while handling its own ``_mssql.MSSQLDatabaseException``, from its ``connect``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pymssql
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener, silent_listener


def _connect(host: str, port: int) -> Callable[[], Any]:
    return lambda: pymssql.connect(server=host, port=port, user="sa", password="corpus-pw", database="shop",
                                   login_timeout=1)


@pytest.fixture
def target(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    if request.param == "refused":
        yield HOST, closed_port()
    elif request.param == "unresolvable":
        yield UNRESOLVABLE, 1433
    elif request.param == "silent":
        with silent_listener() as port:
            yield HOST, port
    else:
        answer = b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n" if request.param == "http" else b""
        with closing_listener(answer, read_first=request.param == "http") as port:
            yield HOST, port


@pytest.mark.parametrize("target", ["refused", "unresolvable", "silent", "closing", "http"], indirect=True)
def test_cannot_connect(target: tuple[str, int]) -> None:
    exc = raised(_connect(*target))
    # FreeTDS's code for a login that never completes depends on which of its waits ends first: 20009 (SYBECONN,
    # unable to connect), 20017 (SYBESEOF, unexpected EOF) or, when the connect itself outlives login_timeout on a
    # busy machine, 20002 (SYBEFCON, connection failed, after 20003 timed out)
    assert isinstance(exc, pymssql.OperationalError) and exc.args[0][0] in (20002, 20009, 20017)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
