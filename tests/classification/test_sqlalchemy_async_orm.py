"""SQLAlchemy's asyncio engine (over asyncpg and aiosqlite) and its ORM, against the real PostgreSQL of the corpus and
SQLite files in a temp dir.

The asyncio dialects wrap the driver's error twice: SQLAlchemy's ``DBAPIError`` keeps the dialect's adapted
exception as ``.orig``, which keeps asyncpg's own (with its ``.sqlstate``) as ``__cause__``. A connection the
server cut under a statement comes back with ``connection_invalidated`` set. The ORM adds errors of its own:
an optimistic-concurrency check that matched no row (``StaleDataError``: another writer changed or removed the
row), an expired object whose row is gone (``ObjectDeletedError``), a session used after a failed flush
(``PendingRollbackError``: the tool's own bug).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy
import sqlalchemy.exc
import sqlalchemy.orm
import sqlalchemy.orm.exc
from sqlalchemy.ext.asyncio import create_async_engine

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, Postgres, postgres_server
from tests.classification.upstreams import HOST, closed_port


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE orders (id text PRIMARY KEY, amount numeric NOT NULL CHECK (amount > 0))")
            conn.execute("INSERT INTO orders VALUES ('ord_1', 10)")
            conn.execute("CREATE ROLE reader LOGIN PASSWORD 'corpus-pw'")
            conn.execute("GRANT SELECT ON orders TO reader")
        yield server


def _url(pg: Postgres, *, user: str = "postgres", port: int = 0, password: str = PASSWORD) -> sqlalchemy.URL:
    return sqlalchemy.URL.create("postgresql+asyncpg", username=user, password=password, host=HOST,
                                 port=port or pg.port, database="postgres")


def _statement(pg: Postgres, sql: str, *, user: str = "postgres", **engine_options: Any) -> Any:
    async def run() -> None:
        engine = create_async_engine(_url(pg, user=user), **engine_options)
        try:
            async with engine.begin() as conn:
                await conn.exec_driver_sql(sql)
        finally:
            await engine.dispose()

    return run


# (statement, role, class, SQLSTATE): refused by the server, nothing took effect.
REFUSED = [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", "postgres", C.INVALID_INPUT, "23505", id="unique"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", "postgres", C.INVALID_INPUT, "23514", id="check"),
    pytest.param("INSERT INTO orders VALUES ('ord_4', NULL)", "postgres", C.INVALID_INPUT, "23502", id="not-null"),
    pytest.param("SELECT 1/0", "postgres", C.INVALID_INPUT, "22012", id="division-by-zero"),
    pytest.param("SELECT * FROM refunds", "postgres", C.UNKNOWN, "42P01", id="undefined-table"),
    pytest.param("SELEC 1", "postgres", C.UNKNOWN, "42601", id="syntax-error"),
    pytest.param("DELETE FROM orders", "reader", C.PERMISSION_DENIED, "42501", id="insufficient-privilege"),
    pytest.param("SELECT pg_sleep(5)", "postgres", C.UPSTREAM_UNAVAILABLE, "57014", id="statement-timeout"),
]


class TestAsyncEngineOverAsyncpg:
    @pytest.mark.parametrize(("sql", "user", "failure_class", "sqlstate"), REFUSED)
    def test_statement_refused(self, pg: Postgres, sql: str, user: str, failure_class: C, sqlstate: str) -> None:
        # asyncpg prepares each statement (one command only): the server's timeout is a session setting
        options = {"connect_args": {"server_settings": {"statement_timeout": "200"}}}
        exc = raised(_statement(pg, sql, user=user, **options))
        assert isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.orig is not None
        result = check(exc, failure_class, False)
        assert result.upstream is not None and result.upstream.status == sqlstate

    def test_connection_refused(self, pg: Postgres) -> None:
        async def run() -> None:
            engine = create_async_engine(_url(pg, port=closed_port()))
            try:
                async with engine.connect():
                    pass
            finally:
                await engine.dispose()

        exc = raised(run)
        assert isinstance(exc, (sqlalchemy.exc.OperationalError, OSError))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, pg: Postgres) -> None:
        async def run() -> None:
            engine = create_async_engine(_url(pg, password="not-it"))
            try:
                async with engine.connect():
                    pass
            finally:
                await engine.dispose()

        exc = raised(run)
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "28P01"

    def test_pool_exhausted(self, pg: Postgres) -> None:
        async def run() -> None:
            engine = create_async_engine(_url(pg), pool_size=1, max_overflow=0, pool_timeout=0.3)
            try:
                async with engine.connect():
                    async with engine.connect():
                        pass
            finally:
                await engine.dispose()

        exc = raised(run)
        assert isinstance(exc, sqlalchemy.exc.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_terminated_mid_statement(self, pg: Postgres) -> None:
        # The server ends the backend while it runs the statement: the connection is invalidated, and the
        # statement may have done its work before the end.
        def terminate_soon() -> None:
            time.sleep(0.5)
            with psycopg.connect(pg.dsn(), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE query LIKE 'SELECT pg_sleep(5)%'")

        killer = threading.Thread(target=terminate_soon)
        killer.start()
        try:
            exc = raised(_statement(pg, "SELECT pg_sleep(5)"))
        finally:
            killer.join()
        assert isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_own_deadline_mid_statement(self, pg: Postgres) -> None:
        # The tool's asyncio.timeout ends a statement the server is running: it may have taken effect.
        async def run() -> None:
            engine = create_async_engine(_url(pg))
            try:
                async with engine.connect() as conn:
                    async with asyncio.timeout(0.3):
                        await conn.exec_driver_sql("SELECT pg_sleep(5)")
            finally:
                await engine.dispose()

        exc = raised(run)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    path = tmp_path / "orders.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, amount REAL NOT NULL CHECK (amount > 0), "
                     "version INTEGER NOT NULL DEFAULT 1)")
        conn.execute("INSERT INTO orders VALUES ('ord_1', 10, 1)")
        conn.execute("INSERT INTO orders VALUES ('ord_2', 10, 1)")
    conn.close()
    return path


class TestAsyncEngineOverAiosqlite:
    @pytest.mark.parametrize(("sql", "failure_class"), [
        pytest.param("INSERT INTO orders (id, amount) VALUES ('ord_1', 5)", C.INVALID_INPUT, id="unique"),
        pytest.param("INSERT INTO orders (id, amount) VALUES ('ord_9', -1)", C.INVALID_INPUT, id="check"),
        pytest.param("SELECT * FROM refunds", C.UNKNOWN, id="no-such-table"),
    ])
    def test_statement_refused(self, sqlite_db: Path, sql: str, failure_class: C) -> None:
        async def run() -> None:
            engine = create_async_engine(f"sqlite+aiosqlite:///{sqlite_db}")
            try:
                async with engine.begin() as conn:
                    await conn.exec_driver_sql(sql)
            finally:
                await engine.dispose()

        exc = raised(run)
        assert isinstance(exc, sqlalchemy.exc.DBAPIError)
        check(exc, failure_class, False)

    def test_database_locked(self, sqlite_db: Path) -> None:
        holder = sqlite3.connect(sqlite_db)
        holder.execute("BEGIN EXCLUSIVE")

        async def run() -> None:
            engine = create_async_engine(f"sqlite+aiosqlite:///{sqlite_db}", connect_args={"timeout": 0.05})
            try:
                async with engine.begin() as conn:
                    await conn.exec_driver_sql("INSERT INTO orders (id, amount) VALUES ('ord_7', 5)")
            finally:
                await engine.dispose()

        try:
            exc = raised(run)
        finally:
            holder.rollback()
            holder.close()
        assert isinstance(exc, sqlalchemy.exc.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class Base(sqlalchemy.orm.DeclarativeBase):
    pass


class Order(Base):
    __tablename__ = "orders"
    id: sqlalchemy.orm.Mapped[str] = sqlalchemy.orm.mapped_column(primary_key=True)
    amount: sqlalchemy.orm.Mapped[float]
    version: sqlalchemy.orm.Mapped[int] = sqlalchemy.orm.mapped_column()
    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012 (SQLAlchemy's declarative API)


class TestOrm:
    def test_row_changed_by_another_writer(self, sqlite_db: Path) -> None:
        # Optimistic concurrency: the UPDATE names the version it read; another writer bumped it, so no row
        # matched and nothing was written: a conflict with the row's current state (HTTP's 409).
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with sqlalchemy.orm.Session(engine) as session:
                order = session.get(Order, "ord_1")
                assert order is not None
                with engine.begin() as other:
                    other.exec_driver_sql("UPDATE orders SET version = version + 1 WHERE id = 'ord_1'")
                order.amount = 20
                session.commit()

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.orm.exc.StaleDataError)
        check(exc, C.INVALID_INPUT, False)

    def test_row_deleted_under_the_session(self, sqlite_db: Path) -> None:
        # The object's row was deleted by another writer: refreshing its expired attributes finds nothing.
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with sqlalchemy.orm.Session(engine) as session:
                order = session.get(Order, "ord_2")
                assert order is not None
                session.expire(order)
                with engine.begin() as other:
                    other.exec_driver_sql("DELETE FROM orders WHERE id = 'ord_2'")
                _ = order.amount

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.orm.exc.ObjectDeletedError)
        check(exc, C.NOT_FOUND, False)

    def test_no_row_for_the_key(self, sqlite_db: Path) -> None:
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with sqlalchemy.orm.Session(engine) as session:
                session.execute(sqlalchemy.select(Order).where(Order.id == "ord_404")).scalar_one()

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.NoResultFound)
        check(exc, C.NOT_FOUND, None)

    def test_session_used_after_a_failed_flush(self, sqlite_db: Path) -> None:
        # The tool kept using a session whose flush failed without rolling it back: its own bug.
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with sqlalchemy.orm.Session(engine) as session:
                session.add(Order(id="ord_1", amount=5, version=1))
                try:
                    session.flush()
                except sqlalchemy.exc.IntegrityError:
                    pass
                session.execute(sqlalchemy.select(Order)).all()

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.PendingRollbackError)
        check(exc, C.UNKNOWN, None)

    def test_object_of_a_closed_session(self, sqlite_db: Path) -> None:
        # A lazy load on an object whose session is gone: the tool's own bug, nothing reached the database.
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with sqlalchemy.orm.Session(engine) as session:
                order = session.get(Order, "ord_1")
                assert order is not None
                session.expire(order)
            _ = order.amount

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.orm.exc.DetachedInstanceError)
        check(exc, C.UNKNOWN, False)


class TestSchemaMistakes:
    """SQLAlchemy's errors about the tool's own schema and queries: named "NoSuch...", but what is missing is a
    table or a column the code names, not what the model asked for (like PostgreSQL's 42P01, 42703: unknown)."""

    def test_reflect_a_table_that_is_not_there(self, sqlite_db: Path) -> None:
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")
        exc = raised(lambda: sqlalchemy.Table("refunds", sqlalchemy.MetaData(), autoload_with=engine))
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.NoSuchTableError)
        check(exc, C.UNKNOWN, False)

    def test_column_not_in_the_row(self, sqlite_db: Path) -> None:
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with engine.connect() as conn:
                row = conn.execute(sqlalchemy.text("SELECT id, amount FROM orders")).first()
                assert row is not None
                _ = row._mapping["customer"]

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.NoSuchColumnError)
        check(exc, C.UNKNOWN, False)

    def test_more_than_one_row(self, sqlite_db: Path) -> None:
        # scalar_one() where the query matched two rows: the tool's query was not specific enough.
        engine = sqlalchemy.create_engine(f"sqlite:///{sqlite_db}")

        def run() -> None:
            with engine.connect() as conn:
                conn.execute(sqlalchemy.text("SELECT id FROM orders")).scalar_one()

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.MultipleResultsFound)
        check(exc, C.UNKNOWN, None)


class TestPsycopgPool:
    def test_too_many_waiting(self, pg: Postgres) -> None:
        # psycopg_pool's queue of callers waiting for a connection is full (max_waiting): refused at once, client
        # side, like a pool timeout: the database is saturated, nothing was sent. No rate limit an upstream set.
        import psycopg_pool

        async def run() -> None:
            async with psycopg_pool.AsyncConnectionPool(pg.dsn(), min_size=1, max_size=1, max_waiting=1,
                                                        open=False) as pool:
                async with pool.connection():
                    waiting = asyncio.ensure_future(pool.getconn(timeout=2))
                    await asyncio.sleep(0.1)
                    try:
                        await pool.getconn(timeout=2)
                    finally:
                        waiting.cancel()

        exc = raised(run)
        assert type(exc).__name__ == "TooManyRequests"
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
