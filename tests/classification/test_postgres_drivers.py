"""PostgreSQL through asyncpg, psycopg2 and SQLAlchemy, against the real server of the corpus.

asyncpg does not use the PEP 249 class names (``UniqueViolationError``, not ``IntegrityError``);
its errors carry the SQLSTATE as ``.sqlstate``. SQLAlchemy wraps the driver's error under the
PEP 249 name and keeps it as ``.orig`` (and ``__cause__``): the SQLSTATE inside still decides.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import psycopg
import psycopg2
import psycopg2.errors
import pytest
import sqlalchemy
import sqlalchemy.exc

from errscope import FailureClass as C
from errscope import Upstream
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, Postgres, postgres_server
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres_server() as server:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE orders (id text PRIMARY KEY, amount numeric NOT NULL CHECK (amount > 0))")
            conn.execute("INSERT INTO orders VALUES ('ord_1', 10)")
            conn.execute("CREATE ROLE reader LOGIN PASSWORD 'corpus-pw'")
            conn.execute("GRANT SELECT ON orders TO reader")
        yield server


# (statement, role, class, SQLSTATE): each refused by the server, so nothing took effect.
REFUSED = [
    pytest.param("INSERT INTO orders VALUES ('ord_1', 5)", "postgres", C.INVALID_INPUT, "23505", id="unique"),
    pytest.param("INSERT INTO orders VALUES ('ord_3', -1)", "postgres", C.INVALID_INPUT, "23514", id="check"),
    pytest.param("SELECT 'forty'::int", "postgres", C.INVALID_INPUT, "22P02", id="invalid-text"),
    pytest.param("SELECT * FROM refunds", "postgres", C.UNKNOWN, "42P01", id="undefined-table"),
    pytest.param("DELETE FROM orders", "reader", C.PERMISSION_DENIED, "42501", id="insufficient-privilege"),
    pytest.param("SET statement_timeout = 200; SELECT pg_sleep(5)", "postgres", C.UPSTREAM_UNAVAILABLE, "57014",
                 id="statement-timeout"),
]


def _asyncpg(pg: Postgres, sql: str, *, user: str = "postgres", password: str = PASSWORD, port: int = 0,
             host: str = HOST) -> Any:
    async def run() -> None:
        conn = await asyncpg.connect(host=host, port=port or pg.port, user=user, password=password,
                                     database="postgres", timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    return run


class TestAsyncpg:
    @pytest.mark.parametrize(("sql", "user", "failure_class", "sqlstate"), REFUSED)
    def test_statement_refused(self, pg: Postgres, sql: str, user: str, failure_class: C, sqlstate: str) -> None:
        exc = raised(_asyncpg(pg, sql, user=user))
        assert isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == sqlstate
        result = check(exc, failure_class, False)
        # asyncpg's errors keep no connection: the Connection whose execute raised it names the server (its _addr)
        assert result.upstream == Upstream("postgresql", sqlstate, f"{HOST}:{pg.port}")

    def test_wrong_password(self, pg: Postgres) -> None:
        # asyncpg speaks the protocol itself and keeps the server's 28P01: the login was refused.
        exc = raised(_asyncpg(pg, "SELECT 1", password="wrong"))
        assert isinstance(exc, asyncpg.InvalidPasswordError)
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream == Upstream("postgresql", "28P01", f"{HOST}:{pg.port}")  # connect's addr names it

    def test_too_many_connections_for_the_role(self, pg: Postgres) -> None:
        async def run() -> None:
            admin = await asyncpg.connect(host=HOST, port=pg.port, user="postgres", password=PASSWORD, database="postgres")
            await admin.execute(f"CREATE ROLE single LOGIN PASSWORD '{PASSWORD}' CONNECTION LIMIT 1")
            try:
                holder = await asyncpg.connect(host=HOST, port=pg.port, user="single", password=PASSWORD,
                                               database="postgres")
                try:
                    await asyncpg.connect(host=HOST, port=pg.port, user="single", password=PASSWORD, database="postgres")
                finally:
                    await holder.close()
            finally:
                await admin.execute("DROP ROLE single")
                await admin.close()

        exc = raised(run)
        assert isinstance(exc, asyncpg.TooManyConnectionsError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream == Upstream("postgresql", "53300", f"{HOST}:{pg.port}")

    def test_connection_refused(self, pg: Postgres) -> None:
        port = closed_port()
        exc = raised(_asyncpg(pg, "SELECT 1", port=port))
        assert isinstance(exc, ConnectionRefusedError | OSError)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{port}"

    def test_name_does_not_resolve(self, pg: Postgres) -> None:
        exc = raised(_asyncpg(pg, "SELECT 1", host=UNRESOLVABLE))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_terminated_mid_statement(self, pg: Postgres) -> None:
        async def run() -> None:
            dsn = f"postgresql://postgres:{PASSWORD}@{HOST}:{pg.port}/postgres"
            victim, admin = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
            try:
                pid = victim.get_server_pid()
                sleeping = asyncio.ensure_future(victim.execute("SELECT pg_sleep(5)"))
                await asyncio.sleep(0.3)
                await admin.execute("SELECT pg_terminate_backend($1)", pid)
                await sleeping
            finally:
                await admin.close()
                victim.terminate()

        exc = raised(run)
        result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{pg.port}"


def _psycopg2(pg: Postgres, sql: str, *, user: str = "postgres", **extra: str) -> Any:
    def run() -> None:
        with psycopg2.connect(pg.dsn(user=user, **extra)) as conn, conn.cursor() as cursor:
            cursor.execute(sql)
        conn.close()

    return run


class TestPsycopg2:
    @pytest.mark.parametrize(("sql", "user", "failure_class", "sqlstate"), REFUSED)
    def test_statement_refused(self, pg: Postgres, sql: str, user: str, failure_class: C, sqlstate: str) -> None:
        exc = raised(_psycopg2(pg, sql, user=user))
        assert isinstance(exc, psycopg2.Error) and exc.pgcode == sqlstate
        result = check(exc, failure_class, False)
        assert result.upstream is not None and result.upstream.status == sqlstate

    def test_connection_refused(self, pg: Postgres) -> None:
        exc = raised(lambda: psycopg2.connect(f"host={HOST} port={closed_port()} user=postgres connect_timeout=5"))
        assert isinstance(exc, psycopg2.OperationalError) and exc.pgcode is None
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_wrong_password(self, pg: Postgres) -> None:
        # libpq keeps no SQLSTATE for a refused login (as with psycopg 3): its text of the failed connection
        # carries the server's 28P01, the credential refused.
        exc = raised(_psycopg2(pg, "SELECT 1", password="wrong"))
        assert isinstance(exc, psycopg2.OperationalError) and exc.pgcode is None
        result = check(exc, C.PERMISSION_DENIED, False)
        assert result.upstream is not None and result.upstream.status == "28P01"

    def test_terminated_mid_statement(self, pg: Postgres) -> None:
        victim = psycopg2.connect(pg.dsn())
        admin = psycopg2.connect(pg.dsn())
        admin.autocommit = True
        pid = victim.get_backend_pid()

        def terminate() -> None:
            time.sleep(0.3)
            with admin.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", (pid,))

        killer = threading.Thread(target=terminate)
        killer.start()
        exc = raised(lambda: victim.cursor().execute("SELECT pg_sleep(5)"))
        killer.join()
        admin.close()
        victim.close()
        assert isinstance(exc, psycopg2.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


def _engine(pg: Postgres, driver: str, *, user: str = "postgres", port: int = 0, **kwargs: Any) -> sqlalchemy.Engine:
    url = sqlalchemy.URL.create(f"postgresql+{driver}", username=user, password=PASSWORD, host=HOST,
                                port=port or pg.port, database="postgres")
    return sqlalchemy.create_engine(url, **kwargs)


@pytest.mark.parametrize("driver", ["psycopg", "psycopg2"])
class TestSqlalchemy:
    @pytest.mark.parametrize(("sql", "user", "failure_class", "sqlstate"), REFUSED)
    def test_statement_refused(self, pg: Postgres, driver: str, sql: str, user: str, failure_class: C,
                               sqlstate: str) -> None:
        engine = _engine(pg, driver, user=user)

        def run() -> None:
            with engine.begin() as conn:
                conn.exec_driver_sql(sql)

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.orig is not None
        result = check(exc, failure_class, False)
        assert result.upstream is not None and result.upstream.status == sqlstate

    def test_connection_refused(self, pg: Postgres, driver: str) -> None:
        engine = _engine(pg, driver, port=closed_port())
        exc = raised(engine.connect)
        assert isinstance(exc, sqlalchemy.exc.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_pool_exhausted(self, pg: Postgres, driver: str) -> None:
        engine = _engine(pg, driver, pool_size=1, max_overflow=0, pool_timeout=0.3)
        with engine.connect():
            exc = raised(engine.connect)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_no_row_for_the_key(self, pg: Postgres, driver: str) -> None:
        # scalar_one() on an empty result: the thing the call named does not exist.
        engine = _engine(pg, driver)

        def run() -> None:
            with engine.connect() as conn:
                conn.execute(sqlalchemy.text("SELECT id FROM orders WHERE id = 'ord_404'")).scalar_one()

        exc = raised(run)
        engine.dispose()
        assert isinstance(exc, sqlalchemy.exc.NoResultFound)
        check(exc, C.NOT_FOUND, None)
