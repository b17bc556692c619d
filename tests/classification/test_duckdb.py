"""DuckDB, in process (the engine of many data tools), raising its own exception types: each a PEP 249 class
(``ConstraintException`` an ``IntegrityError``, ``CatalogException`` a ``ProgrammingError``, ``IOException`` an
``OperationalError``) or, for some, only ``DatabaseError`` (``PermissionException``, ``InterruptException``). DuckDB
keeps no error code: the type is all it says.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised


@pytest.fixture
def db() -> Iterator[Any]:
    conn = duckdb.connect()
    conn.execute("CREATE TABLE orders (id VARCHAR PRIMARY KEY, amount INTEGER NOT NULL CHECK (amount > 0))")
    conn.execute("INSERT INTO orders VALUES ('ord_1', 10)")
    yield conn
    conn.close()


@pytest.mark.parametrize(("sql", "kind", "failure_class"), [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", duckdb.ConstraintException, C.INVALID_INPUT, id="duplicate"),
    pytest.param("INSERT INTO orders VALUES ('ord_2', NULL)", duckdb.ConstraintException, C.INVALID_INPUT, id="null"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", duckdb.ConstraintException, C.INVALID_INPUT, id="check"),
    pytest.param("SELECT 'abc'::INTEGER", duckdb.ConversionException, C.INVALID_INPUT, id="conversion"),
    pytest.param("SELECT 300::TINYINT", duckdb.ConversionException, C.INVALID_INPUT, id="out-of-range-cast"),
    pytest.param("SELECT 2147483647::INTEGER + 1", duckdb.OutOfRangeException, C.INVALID_INPUT, id="overflow"),
    pytest.param("SELECT * FROM refunds", duckdb.CatalogException, C.UNKNOWN, id="no-such-table"),
    pytest.param("SELECT refund FROM orders", duckdb.BinderException, C.UNKNOWN, id="no-such-column"),
    pytest.param("SELEC 1", duckdb.ParserException, C.UNKNOWN, id="syntax"),
])
def test_statement_refused(db: Any, sql: str, kind: type[Exception], failure_class: C) -> None:
    exc = raised(lambda: db.execute(sql))
    assert isinstance(exc, kind)
    check(exc, failure_class, False)


def test_file_access_disabled() -> None:
    # enable_external_access=false: the engine refuses to touch the file system (a sandboxed SQL tool)
    conn = duckdb.connect(config={"enable_external_access": False})
    exc = raised(lambda: conn.execute("SELECT * FROM read_csv('/etc/hostname')"))
    conn.close()
    assert isinstance(exc, duckdb.PermissionException)
    check(exc, C.PERMISSION_DENIED, False)


def test_interrupted() -> None:
    # Connection.interrupt() from another thread (a tool's deadline): the statement is aborted, nothing applied
    conn = duckdb.connect()

    def interrupt() -> None:
        time.sleep(0.3)
        conn.interrupt()

    threading.Thread(target=interrupt).start()
    exc = raised(lambda: conn.execute("SELECT count(*) FROM range(1000000000000) a").fetchall())
    conn.close()
    assert isinstance(exc, duckdb.InterruptException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_memory_limit() -> None:
    conn = duckdb.connect(config={"memory_limit": "10MB", "temp_directory": ""})
    exc = raised(lambda: conn.execute("SELECT count(*) FROM (SELECT range::VARCHAR || repeat('x', 40) AS s "
                                      "FROM range(10000000) ORDER BY s)").fetchall())
    conn.close()
    assert isinstance(exc, duckdb.OutOfMemoryException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_write_conflict(tmp_path: Path) -> None:
    # two transactions update one row: the second is refused and its transaction can only roll back
    conn = duckdb.connect(str(tmp_path / "shop.db"))
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
    conn.execute("INSERT INTO t VALUES (1, 1)")
    first, second = conn.cursor(), conn.cursor()
    first.execute("BEGIN")
    second.execute("BEGIN")
    first.execute("UPDATE t SET v = 2 WHERE id = 1")
    exc = raised(lambda: second.execute("UPDATE t SET v = 3 WHERE id = 1"))
    first.execute("ROLLBACK")
    conn.close()
    assert isinstance(exc, duckdb.TransactionException)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_file_locked_by_another_process(tmp_path: Path) -> None:
    # the database file is open for writing in another process (another MCP server, a notebook): the lock is refused
    path = tmp_path / "shop.db"
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, sys; c = duckdb.connect({str(path)!r}); "
                               "print('open', flush=True); sys.stdin.read()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"open\n"
        exc = raised(lambda: duckdb.connect(str(path)))
    finally:
        holder.kill()
        holder.wait()
    assert isinstance(exc, duckdb.IOException)
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
