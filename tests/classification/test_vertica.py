"""vertica-python (a pure-Python driver of Vertica's PostgreSQL-derived protocol) against failing peers on 127.0.0.1:
no Vertica server runs here, so only what fails before a login (a port nobody listens on, one whose accept queue
is full, one that never answers, one that refuses TLS).

A connect that reaches no address is its ``ConnectionError`` ("Failed to establish a connection to the primary
server or any backup address."), a server that answers ``N`` to its SSLRequest its ``SSLNotSupported``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

vertica_python = pytest.importorskip("vertica_python")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    HOST,
    UNRESOLVABLE,
    closed_port,
    closing_listener,
    full_backlog,
    silent_listener,
)


def _connect(port: int, host: str = HOST, **options: Any) -> Callable[[], Any]:
    return lambda: vertica_python.connect(host=host, port=port, user="tool", password="pw", database="analytics",
                                          connection_timeout=1, **options)


@pytest.mark.parametrize("where", ["refused", "unresolvable", "backlog"])
def test_no_connection(where: str) -> None:
    if where == "backlog":
        with full_backlog() as port:
            exc = raised(_connect(port))
    else:
        exc = raised(_connect(closed_port()) if where == "refused" else _connect(5433, host=UNRESOLVABLE))
    assert type(exc) is vertica_python.errors.ConnectionError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_server_silent() -> None:
    with silent_listener() as port:
        exc = raised(_connect(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)  # no startup answer: no statement went out


def test_tls_refused() -> None:
    with closing_listener(greeting=b"N") as port:
        exc = raised(_connect(port, ssl=True))
    assert type(exc) is vertica_python.errors.SSLNotSupported
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
