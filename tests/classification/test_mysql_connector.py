"""MariaDB through Oracle's mysql-connector-python (its pure-Python protocol) against a real server started for this
module (the same refusals as test_mysql's PyMySQL cases, and the connector's own timeouts and pool).

mysql-connector keeps the server's error number as ``errno`` and its SQLSTATE as ``sqlstate``, and files errors
under PEP 249's classes by the number (``mysql.connector.errors``); the client's own numbers (2003 cannot
connect, 2005 unknown host, 2013 lost during a query, 2055 lost while reading the answer) come the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import mysql.connector
import mysql.connector.pooling
import pytest
from mysql.connector import errors

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, mariadb_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port

IMPLEMENTATIONS = [pytest.param(True, id="pure")]  # its C extension is a separate wheel (mysql-connector-python-cext)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with mariadb_server() as server_port:
        conn = _connect(server_port, database=None)
        cursor = conn.cursor()
        cursor.execute("CREATE DATABASE shop")
        cursor.execute("CREATE TABLE shop.orders (id varchar(8) PRIMARY KEY, amount int NOT NULL CHECK (amount > 0))"
                       " ENGINE=InnoDB")
        cursor.execute("INSERT INTO shop.orders VALUES ('ord_1', 10)")
        cursor.execute("CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
        cursor.execute("GRANT SELECT ON shop.orders TO 'reader'@'127.0.0.1'")
        conn.close()
        yield server_port


def _connect(port: int, *, user: str = "root", password: str = PASSWORD, database: str | None = "shop",
             host: str = HOST, use_pure: bool = True) -> Any:
    return mysql.connector.connect(host=host, port=port, user=user, password=password, database=database,
                                   connection_timeout=5, autocommit=True, use_pure=use_pure)


def _run(port: int, sql: str, *, user: str = "root", use_pure: bool = True) -> Any:
    def run() -> None:
        conn = _connect(port, user=user, use_pure=use_pure)
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            cursor.fetchall()  # an error inside the answer's rows (max_statement_time) comes as they are read
        finally:
            conn.close()

    return run


REFUSED = [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", "root", C.INVALID_INPUT, 1062, id="duplicate-1062"),
    pytest.param("INSERT INTO orders VALUES ('ord_2', NULL)", "root", C.INVALID_INPUT, 1048, id="null-1048"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", "root", C.INVALID_INPUT, 4025, id="check-4025"),
    pytest.param("INSERT INTO orders VALUES ('far too long', 1)", "root", C.INVALID_INPUT, 1406, id="too-long-1406"),
    pytest.param("SELECT * FROM refunds", "root", C.UNKNOWN, 1146, id="no-such-table-1146"),
    pytest.param("SELECT refund FROM orders", "root", C.UNKNOWN, 1054, id="no-such-column-1054"),
    pytest.param("SELEC 1", "root", C.UNKNOWN, 1064, id="syntax-1064"),
    pytest.param("DELETE FROM orders", "reader", C.PERMISSION_DENIED, 1142, id="table-access-denied-1142"),
    pytest.param("SET STATEMENT max_statement_time=0.2 FOR SELECT SLEEP(5) FROM orders", "root",
                 C.UPSTREAM_UNAVAILABLE, 1969, id="statement-timeout-1969"),
]


@pytest.mark.parametrize("use_pure", IMPLEMENTATIONS)
@pytest.mark.parametrize(("sql", "user", "failure_class", "code"), REFUSED)
def test_statement_refused(port: int, sql: str, user: str, failure_class: C, code: int, use_pure: bool) -> None:
    exc = raised(_run(port, sql, user=user, use_pure=use_pure))
    assert isinstance(exc, errors.Error) and exc.errno == code
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(code)


@pytest.mark.parametrize("use_pure", IMPLEMENTATIONS)
def test_lock_wait_timeout(port: int, use_pure: bool) -> None:
    holder = _connect(port)
    cursor = holder.cursor(buffered=True)
    cursor.execute("BEGIN")
    cursor.execute("SELECT * FROM orders WHERE id = 'ord_1' FOR UPDATE")

    def waiter() -> None:
        conn = _connect(port, use_pure=use_pure)
        try:
            other = conn.cursor()
            other.execute("SET SESSION innodb_lock_wait_timeout = 1")
            other.execute("UPDATE orders SET amount = 11 WHERE id = 'ord_1'")
        finally:
            conn.close()

    exc = raised(waiter)
    cursor.execute("ROLLBACK")
    holder.close()
    assert isinstance(exc, errors.Error) and exc.errno == 1205
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("use_pure", IMPLEMENTATIONS)
class TestConnecting:
    def test_connection_refused(self, use_pure: bool) -> None:
        exc = raised(lambda: _connect(closed_port(), use_pure=use_pure))
        assert isinstance(exc, errors.Error) and exc.errno == 2003
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, use_pure: bool) -> None:
        exc = raised(lambda: _connect(3306, host=UNRESOLVABLE, use_pure=use_pure))
        assert isinstance(exc, errors.Error)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_server_never_greets(self, silent_port: int, use_pure: bool) -> None:
        # the TCP handshake completes and no greeting comes: the connect's own timeout
        def connect() -> Any:
            return mysql.connector.connect(host=HOST, port=silent_port, user="root", password=PASSWORD,
                                           connection_timeout=1, use_pure=use_pure)

        check(raised(connect), C.UPSTREAM_UNAVAILABLE, False)

    def test_peer_closes_before_greeting(self, closing_port: int, use_pure: bool) -> None:
        check(raised(lambda: _connect(closing_port, use_pure=use_pure)), C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, port: int, use_pure: bool) -> None:
        exc = raised(lambda: _connect(port, password="wrong", use_pure=use_pure))
        assert isinstance(exc, errors.ProgrammingError) and exc.errno == 1045
        check(exc, C.PERMISSION_DENIED, False)

    def test_unknown_database(self, port: int, use_pure: bool) -> None:
        exc = raised(lambda: _connect(port, database="no_such_db", use_pure=use_pure))
        assert isinstance(exc, errors.Error) and exc.errno == 1049
        check(exc, C.UNKNOWN, False)

    def test_database_not_granted(self, port: int, use_pure: bool) -> None:
        exc = raised(lambda: _connect(port, user="reader", database="mysql", use_pure=use_pure))
        assert isinstance(exc, errors.Error) and exc.errno == 1044
        check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("use_pure", IMPLEMENTATIONS)
def test_killed_mid_statement(port: int, use_pure: bool) -> None:
    victim, admin = _connect(port, use_pure=use_pure), _connect(port)
    victim_id = victim.connection_id

    def kill() -> None:
        time.sleep(0.3)
        admin.cursor().execute(f"KILL {int(victim_id)}")

    killer = threading.Thread(target=kill)
    killer.start()
    exc = raised(lambda: victim.cursor().execute("SELECT SLEEP(5) FROM orders"))
    killer.join()
    admin.close()
    assert isinstance(exc, errors.Error)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_read_timeout(port: int) -> None:
    # read_timeout: the statement went out and its answer did not come in time
    conn = mysql.connector.connect(host=HOST, port=port, user="root", password=PASSWORD, database="shop",
                                   use_pure=True, read_timeout=1)
    try:
        exc = raised(lambda: conn.cursor().execute("SELECT SLEEP(5)"))
    finally:
        conn.close()
    assert isinstance(exc, errors.ReadTimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_pool_exhausted(port: int) -> None:
    pool = mysql.connector.pooling.MySQLConnectionPool(pool_size=1, host=HOST, port=port, user="root",
                                                       password=PASSWORD, database="shop", use_pure=True)
    held = pool.get_connection()
    try:
        exc = raised(pool.get_connection)
    finally:
        held.close()
    assert isinstance(exc, errors.PoolError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
