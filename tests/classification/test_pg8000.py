"""pg8000 (a pure-Python PostgreSQL driver) and the peewee ORM over psycopg2, against the real server of the corpus.

pg8000 keeps the server's ``ErrorResponse`` as its ``DatabaseError``'s one argument, a dict keyed by the protocol's
field codes (``C`` the SQLSTATE, ``M`` the message: PostgreSQL docs, "Error and Notice Message Fields"), and says
a failed connect in its own words (``InterfaceError("Can't create a connection to host …")``). peewee reraises the
driver's error under its own class of the same PEP 249 name, ``from`` it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pg8000_native = pytest.importorskip("pg8000.native")
peewee = pytest.importorskip("peewee")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.databases import PASSWORD, Postgres, postgres_server  # noqa: E402
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, full_backlog, silent_listener  # noqa: E402


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        conn = pg8000_native.Connection("postgres", host=HOST, port=server.port, password=PASSWORD)
        conn.run("CREATE TABLE orders (id text PRIMARY KEY, amount numeric NOT NULL CHECK (amount > 0))")
        conn.run("INSERT INTO orders VALUES ('ord_1', 10)")
        conn.close()
        yield server


def _connect(port: int, host: str = HOST, **options: Any) -> Any:
    options.setdefault("password", PASSWORD)
    return pg8000_native.Connection("postgres", host=host, port=port, timeout=2, **options)


@pytest.mark.parametrize(("sql", "sqlstate", "failure_class", "side_effect"), [
    ("INSERT INTO orders VALUES ('ord_1', 5)", "23505", C.INVALID_INPUT, False),
    ("INSERT INTO orders VALUES ('ord_2', -5)", "23514", C.INVALID_INPUT, False),
    ("SELECT 1/0", "22012", C.INVALID_INPUT, False),
    ("SELECT * FROM refunds", "42P01", C.UNKNOWN, False),  # the tool's query is wrong
    ("SELEC 1", "42601", C.UNKNOWN, False),
    ("SET statement_timeout = 200; SELECT pg_sleep(5)", "57014", C.UPSTREAM_UNAVAILABLE, False),
])
def test_pg8000_sqlstate(pg: Postgres, sql: str, sqlstate: str, failure_class: C, side_effect: bool) -> None:
    conn = _connect(pg.port)
    try:
        exc = raised(lambda: [conn.run(statement) for statement in sql.split("; ")])
    finally:
        conn.close()
    assert type(exc) is pg8000_native.DatabaseError and exc.args[0]["C"] == sqlstate
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == sqlstate


def test_pg8000_password_refused(pg: Postgres) -> None:
    exc = raised(lambda: _connect(pg.port, password="wrong"))
    assert exc.args[0]["C"] == "28P01"
    check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("where", ["refused", "unresolvable", "backlog"])
def test_pg8000_connect(where: str) -> None:
    if where == "backlog":
        with full_backlog() as port:
            exc = raised(lambda: _connect(port))
    else:
        exc = raised(lambda: _connect(closed_port()) if where == "refused" else _connect(5432, host=UNRESOLVABLE))
    assert type(exc) is pg8000_native.InterfaceError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_pg8000_server_silent_after_connect() -> None:
    with silent_listener() as port:
        exc = raised(lambda: _connect(port))
    assert isinstance(exc, TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)  # raised inside its connect: the startup message, no statement


def test_pg8000_backend_terminated(pg: Postgres) -> None:
    conn = _connect(pg.port)
    pid = conn.run("SELECT pg_backend_pid()")[0][0]
    killer = _connect(pg.port)
    killer.run(f"SELECT pg_terminate_backend({pid})")
    killer.close()
    exc = raised(lambda: conn.run("UPDATE orders SET amount = 11"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def _peewee(pg: Postgres, **options: Any) -> Any:
    options.setdefault("password", PASSWORD)
    return peewee.PostgresqlDatabase("postgres", host=HOST, port=pg.port, user="postgres", connect_timeout=2, **options)


@pytest.mark.parametrize(("sql", "exc_name", "failure_class", "side_effect"), [
    ("INSERT INTO orders VALUES ('ord_1', 5)", "IntegrityError", C.INVALID_INPUT, False),
    ("SELECT * FROM refunds", "ProgrammingError", C.UNKNOWN, False),
    ("SET statement_timeout = 200; SELECT pg_sleep(5)", "OperationalError", C.UPSTREAM_UNAVAILABLE, False),
])
def test_peewee_statement(pg: Postgres, sql: str, exc_name: str, failure_class: C, side_effect: bool) -> None:
    db = _peewee(pg)
    db.connect()
    try:
        exc = raised(lambda: [db.execute_sql(statement) for statement in sql.split("; ")])
    finally:
        db.close()
    assert type(exc).__module__ == "peewee" and type(exc).__name__ == exc_name
    check(exc, failure_class, side_effect)


def test_peewee_password_refused(pg: Postgres) -> None:
    exc = raised(lambda: _peewee(pg, password="wrong").connect())
    assert type(exc) is peewee.OperationalError
    check(exc, C.PERMISSION_DENIED, False)


def test_peewee_refused() -> None:
    db = peewee.PostgresqlDatabase("postgres", host=HOST, port=closed_port(), user="postgres", connect_timeout=1)
    exc = raised(db.connect)
    assert type(exc) is peewee.OperationalError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_peewee_row_not_there(pg: Postgres) -> None:
    class Order(peewee.Model):
        id = peewee.TextField(primary_key=True)

        class Meta:
            database = _peewee(pg)
            table_name = "orders"

    exc = raised(lambda: Order.get_by_id("ord_404"))
    assert isinstance(exc, peewee.DoesNotExist)
    check(exc, C.NOT_FOUND, None)  # as Django's DoesNotExist
