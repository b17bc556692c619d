"""Clients of a local service over a Unix domain socket (Docker's ``/var/run/docker.sock``, PostgreSQL's
``/var/run/postgresql``, a Redis or memcached socket, a sidecar's HTTP socket) when the service does not run:
the socket file is not there (``connect(2)``: ENOENT), or it is there and nobody listens (ECONNREFUSED).

Either way the service cannot be reached and nothing was sent: ``upstream_unavailable``, not the
``not_found`` a missing file means to a tool that reads one.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import asyncpg
import docker
import httpx
import httpx2
import psycopg
import pymemcache
import pymysql
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from errscope import FailureClass as C
from tests.classification.conftest import check, raised

PG_PORT = 5432


@dataclass
class Socket:
    """Where a service's socket should be: ``path`` itself, and ``directory`` (PostgreSQL's clients take the
    directory and add ``.s.PGSQL.<port>``)."""

    directory: Path
    path: Path


@pytest.fixture(params=["not_there", "nobody_listens"])
def service_socket(request: pytest.FixtureRequest) -> Iterator[Socket]:
    # its own short directory: a socket's path must fit sun_path (108 bytes), pytest's tmp_path may not
    directory = Path(tempfile.mkdtemp(prefix="errscope-uds-"))
    try:
        path = directory / "service.sock"
        if request.param == "nobody_listens":
            for name in (path, directory / f".s.PGSQL.{PG_PORT}"):
                with socket.socket(socket.AF_UNIX) as sock:
                    sock.bind(str(name))  # the file stays after close: a server that died without cleaning up
        yield Socket(directory, path)
    finally:
        shutil.rmtree(directory)


async def _asyncio(where: Socket) -> None:
    await asyncio.open_unix_connection(str(where.path))


async def _anyio(where: Socket) -> None:
    await anyio.connect_unix(where.path)


async def _aiohttp(where: Socket) -> None:
    async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(where.path))) as session:
        await session.post("http://sidecar/v1/jobs", json={"a": 1})


async def _asyncpg(where: Socket) -> None:
    await asyncpg.connect(host=str(where.directory), port=PG_PORT, user="tool", timeout=5)


CLIENTS: dict[str, Callable[[Socket], Any]] = {
    "asyncio": _asyncio,
    "anyio": _anyio,
    "httpx": lambda where: httpx.Client(transport=httpx.HTTPTransport(uds=str(where.path))).post(
        "http://sidecar/v1/jobs", json={"a": 1}),
    "httpx2": lambda where: httpx2.Client(transport=httpx2.HTTPTransport(uds=str(where.path))).post(
        "http://sidecar/v1/jobs", json={"a": 1}),
    "aiohttp": _aiohttp,
    "docker": lambda where: docker.DockerClient(base_url=f"unix://{where.path}", timeout=5).containers.list(),
    "redis": lambda where: redis.Redis(unix_socket_path=str(where.path), socket_timeout=5,
                                             retry=Retry(NoBackoff(), 0)).get("session"),
    "pymemcache": lambda where: pymemcache.Client(str(where.path), connect_timeout=5).get("session"),
    "pymysql": lambda where: pymysql.connect(unix_socket=str(where.path), user="tool", connect_timeout=5),
    "psycopg": lambda where: psycopg.connect(host=str(where.directory), port=PG_PORT, user="tool", connect_timeout=5),
    "asyncpg": _asyncpg,
}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_service_not_running(client: str, service_socket: Socket) -> None:
    exc = raised(lambda: CLIENTS[client](service_socket))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_plain_socket_connect(service_socket: Socket) -> None:
    # socket.connect is C: no frame of a connecting function says what the ENOENT was about
    def reach_the_service() -> None:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(service_socket.path))

    exc = raised(reach_the_service)
    assert isinstance(exc, FileNotFoundError | ConnectionRefusedError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
