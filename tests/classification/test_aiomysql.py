"""MariaDB through aiomysql (asyncio over PyMySQL's protocol code), against a real server started
for this module: the server's error number decides, as with PyMySQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import aiomysql
import pymysql
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import PASSWORD, mariadb_server
from tests.classification.upstreams import HOST, closed_port

SHORT = 0.3


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with mariadb_server() as server_port:
        async def setup() -> None:
            async with aiomysql.connect(host=HOST, port=server_port, user="root", password=PASSWORD) as conn:
                async with conn.cursor() as cursor:
                    await cursor.execute("CREATE DATABASE shop")
                    await cursor.execute("CREATE TABLE shop.refunds (id varchar(8) PRIMARY KEY,"
                                         " amount int NOT NULL CHECK (amount > 0)) ENGINE=InnoDB")
                    await cursor.execute("INSERT INTO shop.refunds VALUES ('r1', 5)")
                    await cursor.execute("CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
                    await cursor.execute("GRANT SELECT ON shop.refunds TO 'reader'@'127.0.0.1'")
                await conn.commit()

        asyncio.run(setup())
        yield server_port


async def _run(port: int, *statements: str, user: str = "root", password: str = PASSWORD, **options: Any) -> None:
    async with aiomysql.connect(host=HOST, port=port, user=user, password=password, db="shop", connect_timeout=5,
                                **options) as conn:
        async with conn.cursor() as cursor:
            for statement in statements:
                await cursor.execute(statement)
        await conn.commit()


class TestAiomysql:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _run(closed_port(), "SELECT 1"))
        assert isinstance(exc, pymysql.err.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_login_refused(self, port: int) -> None:
        exc = raised(lambda: _run(port, "SELECT 1", password="wrong"))
        assert isinstance(exc, pymysql.err.OperationalError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_duplicate_key(self, port: int) -> None:
        exc = raised(lambda: _run(port, "INSERT INTO refunds VALUES ('r1', 5)"))
        assert isinstance(exc, pymysql.err.IntegrityError)
        check(exc, C.INVALID_INPUT, False)

    def test_check_constraint(self, port: int) -> None:
        exc = raised(lambda: _run(port, "INSERT INTO refunds VALUES ('r2', -1)"))
        check(exc, C.INVALID_INPUT, False)

    def test_table_access_denied(self, port: int) -> None:
        exc = raised(lambda: _run(port, "DELETE FROM refunds", user="reader"))
        check(exc, C.PERMISSION_DENIED, False)

    def test_no_such_table(self, port: int) -> None:
        exc = raised(lambda: _run(port, "SELECT * FROM refund"))
        assert isinstance(exc, pymysql.err.ProgrammingError)
        check(exc, C.UNKNOWN, False)

    def test_statement_timeout(self, port: int) -> None:
        exc = raised(lambda: _run(port, "SET STATEMENT max_statement_time=0.2 FOR SELECT SLEEP(2) FROM refunds"))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_cancelled_while_waiting(self, port: int) -> None:
        async def call() -> None:
            await asyncio.wait_for(_run(port, "SELECT SLEEP(2)"), SHORT)

        exc = raised(call)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)
