"""MariaDB through PyMySQL (and SQLAlchemy over it), against a real server started for this module.

PyMySQL keeps no SQLSTATE; the server's error number is its ``args[0]`` (``1062``, ``1205``), and
that decides over the PEP 249 class PyMySQL files it under.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
import sqlalchemy
import sqlalchemy.exc

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, mariadb_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with mariadb_server() as server_port:
        with _connect(server_port, database=None) as conn, conn.cursor() as cursor:
            cursor.execute("CREATE DATABASE shop")
            cursor.execute("CREATE TABLE shop.orders (id varchar(8) PRIMARY KEY, amount int NOT NULL CHECK (amount > 0))"
                           " ENGINE=InnoDB")
            cursor.execute("INSERT INTO shop.orders VALUES ('ord_1', 10)")
            cursor.execute("CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
            cursor.execute("GRANT SELECT ON shop.orders TO 'reader'@'127.0.0.1'")
            conn.commit()
        yield server_port


def _connect(port: int, *, user: str = "root", password: str = PASSWORD, database: str | None = "shop",
             host: str = HOST) -> Any:
    return pymysql.connect(host=host, port=port, user=user, password=password, database=database,
                           connect_timeout=5, autocommit=True)


def _run(port: int, sql: str, *, user: str = "root") -> Any:
    def run() -> None:
        with _connect(port, user=user) as conn, conn.cursor() as cursor:
            cursor.execute(sql)

    return run


REFUSED = [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", "root", C.INVALID_INPUT, 1062, id="duplicate-1062"),
    pytest.param("INSERT INTO orders VALUES ('ord_2', NULL)", "root", C.INVALID_INPUT, 1048, id="null-1048"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", "root", C.INVALID_INPUT, 4025, id="check-4025"),
    pytest.param("INSERT INTO orders VALUES ('far too long', 1)", "root", C.INVALID_INPUT, 1406, id="too-long-1406"),
    pytest.param("SELECT * FROM refunds", "root", C.UNKNOWN, 1146, id="no-such-table-1146"),
    pytest.param("SELEC 1", "root", C.UNKNOWN, 1064, id="syntax-1064"),
    pytest.param("DELETE FROM orders", "reader", C.PERMISSION_DENIED, 1142, id="table-access-denied-1142"),
    pytest.param("SET STATEMENT max_statement_time=0.2 FOR SELECT SLEEP(5) FROM orders", "root",
                 C.UPSTREAM_UNAVAILABLE, 1969, id="statement-timeout-1969"),
]


@pytest.mark.parametrize(("sql", "user", "failure_class", "code"), REFUSED)
def test_statement_refused(port: int, sql: str, user: str, failure_class: C, code: int) -> None:
    exc = raised(_run(port, sql, user=user))
    assert isinstance(exc, pymysql.Error) and exc.args[0] == code
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(code)


def test_lock_wait_timeout(port: int) -> None:
    with _connect(port) as holder, holder.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.execute("SELECT * FROM orders WHERE id = 'ord_1' FOR UPDATE")

        def waiter() -> None:
            with _connect(port) as conn, conn.cursor() as other:
                other.execute("SET SESSION innodb_lock_wait_timeout = 1")
                other.execute("UPDATE orders SET amount = 11 WHERE id = 'ord_1'")

        exc = raised(waiter)
        cursor.execute("ROLLBACK")
    assert isinstance(exc, pymysql.OperationalError) and exc.args[0] == 1205
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestConnecting:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _connect(closed_port()))
        assert isinstance(exc, pymysql.OperationalError) and exc.args[0] == 2003
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: _connect(3306, host=UNRESOLVABLE))
        assert isinstance(exc, pymysql.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, port: int) -> None:
        # The server answers 1045: a refused login (unlike libpq, the number survives).
        exc = raised(lambda: _connect(port, password="wrong"))
        assert isinstance(exc, pymysql.OperationalError) and exc.args[0] == 1045
        check(exc, C.PERMISSION_DENIED, False)

    def test_unknown_database(self, port: int) -> None:
        exc = raised(lambda: _connect(port, database="no_such_db"))
        assert isinstance(exc, pymysql.OperationalError) and exc.args[0] == 1049
        check(exc, C.UNKNOWN, False)


def test_killed_mid_statement(port: int) -> None:
    with _connect(port) as victim, _connect(port) as admin:
        victim_id = victim.thread_id()

        def kill() -> None:
            time.sleep(0.3)
            with admin.cursor() as cursor:
                cursor.execute(f"KILL {int(victim_id)}")

        killer = threading.Thread(target=kill)
        killer.start()
        exc = raised(lambda: victim.cursor().execute("SELECT SLEEP(5) FROM orders"))
        killer.join()
    assert isinstance(exc, pymysql.OperationalError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_sqlalchemy_over_pymysql(port: int) -> None:
    url = sqlalchemy.URL.create("mysql+pymysql", username="root", password=PASSWORD, host=HOST, port=port,
                                database="shop")
    engine = sqlalchemy.create_engine(url)

    def run() -> None:
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO orders VALUES ('ord_1', 5)")

    exc = raised(run)
    engine.dispose()
    assert isinstance(exc, sqlalchemy.exc.IntegrityError)
    result = check(exc, C.INVALID_INPUT, False)
    assert result.upstream is not None and result.upstream.status == "1062"
