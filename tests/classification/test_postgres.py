"""PostgreSQL through psycopg 3 (and psycopg_pool), against a real server started for this module.

The driver's DB-API class is not the whole story: psycopg files an insufficient privilege under
``ProgrammingError`` and a statement timeout under ``OperationalError``; the SQLSTATE decides.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import errors
from psycopg_pool import ConnectionPool

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import Postgres, postgres_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE customers (id int PRIMARY KEY)")
            conn.execute("CREATE TABLE orders (id text PRIMARY KEY, amount numeric NOT NULL CHECK (amount > 0), "
                         "customer int REFERENCES customers(id), note varchar(8))")
            conn.execute("INSERT INTO orders VALUES ('ord_1', 10, NULL, NULL)")
            conn.execute("CREATE ROLE reader LOGIN PASSWORD 'corpus-pw'")
            conn.execute("GRANT SELECT ON orders TO reader")
            conn.execute("CREATE ROLE archived NOLOGIN PASSWORD 'corpus-pw'")
        yield server


def _run(pg: Postgres, sql: str, *, user: str = "postgres", **options: str) -> None:
    with psycopg.connect(pg.dsn(user=user, **options)) as conn:
        conn.execute(sql)


class TestConnecting:
    def test_connection_refused(self, pg: Postgres) -> None:
        exc = raised(lambda: psycopg.connect(f"host={HOST} port={closed_port()} user=postgres connect_timeout=5"))
        assert isinstance(exc, psycopg.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        # psycopg resolves the name itself and keeps nothing of the resolver's error but its text
        # (no pgconn, no cause): raised out of Connection.connect, so no statement was sent.
        exc = raised(lambda: psycopg.connect(f"host={UNRESOLVABLE} user=postgres connect_timeout=5"))
        assert isinstance(exc, psycopg.OperationalError) and exc.pgconn is None and exc.__cause__ is None
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    # libpq keeps no SQLSTATE for a refused login: the server's 28P01 (invalid_password, class 28 invalid
    # authorization specification) reaches only libpq's text of the failed connection. The credential was
    # refused, nothing ran, and trying again with the same one cannot succeed.
    def test_wrong_password(self, pg: Postgres) -> None:
        exc = raised(lambda: psycopg.connect(pg.dsn(password="wrong")))
        assert isinstance(exc, psycopg.OperationalError) and exc.sqlstate is None
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "28P01"

    def test_role_not_permitted_to_log_in(self, pg: Postgres) -> None:
        # the password is right, the role may not log in: 28000 (miscinit.c InitializeSessionUserId)
        exc = raised(lambda: psycopg.connect(pg.dsn(user="archived", password="corpus-pw")))
        assert isinstance(exc, psycopg.OperationalError) and exc.sqlstate is None
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "28000"

    def test_the_same_words_raised_by_a_tool_name_no_server(self, pg: Postgres) -> None:
        # Only a connection the driver failed to open carries the server's answer: the libpq text of the wrong
        # password, raised again by the tool's own code, is the tool's words (public case D06: upstream_unavailable).
        text = str(raised(lambda: psycopg.connect(pg.dsn(password="wrong"))))
        assert "FATAL:  password authentication failed" in text

        def tool() -> None:
            raise psycopg.OperationalError(text)

        result = check(raised(tool), C.UPSTREAM_UNAVAILABLE, None)
        assert result.upstream is None or result.upstream.status != "28P01"

    def test_unknown_database(self, pg: Postgres) -> None:
        exc = raised(lambda: psycopg.connect(pg.dsn(dbname="no_such_db")))
        assert isinstance(exc, psycopg.OperationalError) and exc.sqlstate is None
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_pool_exhausted(self, pg: Postgres) -> None:
        with ConnectionPool(pg.dsn(), min_size=1, max_size=1, timeout=0.3, open=True) as pool:
            with pool.connection():
                exc = raised(lambda: pool.getconn())
        assert isinstance(exc, psycopg.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize(("sql", "user", "failure_class"), [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", "postgres", C.INVALID_INPUT, id="unique-23505"),
    pytest.param("INSERT INTO orders VALUES ('ord_2', NULL)", "postgres", C.INVALID_INPUT, id="not-null-23502"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", "postgres", C.INVALID_INPUT, id="check-23514"),
    pytest.param("INSERT INTO orders VALUES ('ord_4', 1, 42)", "postgres", C.INVALID_INPUT, id="foreign-key-23503"),
    pytest.param("SELECT 'forty'::int", "postgres", C.INVALID_INPUT, id="invalid-text-22P02"),
    pytest.param("SELECT 1 / 0", "postgres", C.INVALID_INPUT, id="division-by-zero-22012"),
    pytest.param("INSERT INTO orders VALUES ('ord_5', 1, NULL, 'far too long')", "postgres", C.INVALID_INPUT,
                 id="string-too-long-22001"),
    pytest.param("SELECT * FROM refunds", "postgres", C.UNKNOWN, id="undefined-table-42P01"),
    pytest.param("SELEC 1", "postgres", C.UNKNOWN, id="syntax-error-42601"),
    pytest.param("DELETE FROM orders", "reader", C.PERMISSION_DENIED, id="insufficient-privilege-42501"),
    pytest.param("SET TRANSACTION READ ONLY; INSERT INTO orders VALUES ('ord_6', 1)", "postgres", C.UNKNOWN,
                 id="read-only-transaction-25006"),
])
def test_statement_refused(pg: Postgres, sql: str, user: str, failure_class: C) -> None:
    exc = raised(lambda: _run(pg, sql, user=user))
    assert isinstance(exc, psycopg.Error) and exc.sqlstate
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == exc.sqlstate


def test_statement_timeout(pg: Postgres) -> None:
    exc = raised(lambda: _run(pg, "SELECT pg_sleep(5)", options="-c statement_timeout=200"))
    assert isinstance(exc, errors.QueryCanceled)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_lock_timeout(pg: Postgres) -> None:
    with psycopg.connect(pg.dsn()) as holder:
        holder.execute("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE")
        exc = raised(lambda: _run(pg, "SELECT * FROM orders", options="-c lock_timeout=200"))
    assert isinstance(exc, errors.LockNotAvailable)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_serialization_failure(pg: Postgres) -> None:
    with psycopg.connect(pg.dsn()) as first, psycopg.connect(pg.dsn(), autocommit=True) as second:
        first.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        first.execute("SELECT amount FROM orders WHERE id = 'ord_1'")
        second.execute("UPDATE orders SET amount = amount + 1 WHERE id = 'ord_1'")
        exc = raised(lambda: first.execute("UPDATE orders SET amount = amount + 1 WHERE id = 'ord_1'"))
    assert isinstance(exc, errors.SerializationFailure)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_terminated_mid_statement(pg: Postgres) -> None:
    # The statement was running when the server ended the session: its fate is not known.
    with psycopg.connect(pg.dsn(), autocommit=True) as victim, psycopg.connect(pg.dsn(), autocommit=True) as admin:
        pid = victim.info.backend_pid

        def terminate() -> None:
            time.sleep(0.3)
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

        killer = threading.Thread(target=terminate)
        killer.start()
        exc = raised(lambda: victim.execute("SELECT pg_sleep(5)"))
        killer.join()
    assert isinstance(exc, psycopg.OperationalError)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
    # the error keeps no pgconn once the session ended: the Connection whose execute raised it names the server (info)
    assert result.upstream is not None and result.upstream.address == f"{HOST}:{pg.port}"
