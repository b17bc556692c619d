"""SQLite through the standard library's sqlite3, failing for real in a temp dir.

sqlite3 files a locked database, a missing table and a syntax error all under ``OperationalError``:
SQLite's own result code (``sqlite_errorname``, https://sqlite.org/rescode.html) tells them apart.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "orders.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, amount REAL NOT NULL CHECK (amount > 0), "
                     "customer INTEGER REFERENCES customers(id))")
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY)")
        conn.execute("CREATE TABLE strict_orders (id INTEGER PRIMARY KEY, amount REAL NOT NULL) STRICT")
        conn.execute("INSERT INTO orders VALUES ('ord_1', 10, NULL)")
    return path


def _execute(path: Path | str, sql: str, *params: object, uri: bool = False) -> None:
    conn = sqlite3.connect(path, timeout=0.05, uri=uri)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def test_database_locked(db: Path) -> None:
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = raised(lambda: _execute(db, "INSERT INTO orders VALUES ('ord_2', 5, NULL)"))
    finally:
        holder.rollback()
        holder.close()
    assert isinstance(exc, sqlite3.OperationalError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize(("sql", "params", "failure_class"), [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5, NULL)", (), C.INVALID_INPUT, id="unique"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', NULL, NULL)", (), C.INVALID_INPUT, id="not-null"),
    pytest.param("INSERT INTO orders VALUES ('ord_4', -1, NULL)", (), C.INVALID_INPUT, id="check"),
    pytest.param("INSERT INTO orders VALUES ('ord_5', 1, 42)", (), C.INVALID_INPUT, id="foreign-key"),
    pytest.param("INSERT INTO strict_orders VALUES (1, ?)", ("forty",), C.INVALID_INPUT, id="strict-datatype"),
    pytest.param("SELECT * FROM refunds", (), C.UNKNOWN, id="no-such-table"),
    pytest.param("SELEC * FROM orders", (), C.UNKNOWN, id="syntax-error"),
])
def test_statement_refused(db: Path, sql: str, params: tuple[object, ...], failure_class: C) -> None:
    exc = raised(lambda: _execute(db, sql, *params))
    assert isinstance(exc, sqlite3.Error)
    check(exc, failure_class, False)


def test_read_only_database(db: Path) -> None:
    exc = raised(lambda: _execute(f"file:{db}?mode=ro", "DELETE FROM orders", uri=True))
    assert isinstance(exc, sqlite3.OperationalError)
    check(exc, C.PERMISSION_DENIED, False)


def test_cannot_open(tmp_path: Path) -> None:
    exc = raised(lambda: _execute(tmp_path / "missing-dir" / "x.db", "SELECT 1"))
    assert isinstance(exc, sqlite3.OperationalError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_interrupted(db: Path) -> None:
    conn = sqlite3.connect(db)
    timer = threading.Timer(0.1, conn.interrupt)
    timer.start()
    try:
        exc = raised(lambda: conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n").fetchall())
    finally:
        timer.cancel()
        conn.close()
    assert isinstance(exc, sqlite3.OperationalError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_connection(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.close()
    exc = raised(lambda: conn.execute("SELECT 1"))
    assert isinstance(exc, sqlite3.ProgrammingError)
    check(exc, C.UNKNOWN, False)
