"""Real PostgreSQL, MariaDB, Redis and memcached servers for the corpus, each on a free port of 127.0.0.1 (in a
temp dir where they keep files).

All come from Debian packages (``postgresql``, ``mariadb-server``, ``redis-server``, ``memcached``; ``.ci/run``
installs them). PostgreSQL refuses to run as root, so under root the cluster belongs to the package's
``postgres`` user; MariaDB's server switches to the package's ``mysql`` user itself.
"""

from __future__ import annotations

import fcntl
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.classification.upstreams import HOST, closed_port, wait_ready
from tests.conftest import require

__all__ = ["Postgres", "mariadb_server", "memcached_server", "postgres_server", "redis_server"]

PASSWORD = "corpus-pw"
"""The password of the corpus's roles (a throwaway cluster on loopback)."""


def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


class Postgres:
    """A running cluster: ``dsn(user=, password=, dbname=)`` builds a libpq connection string."""

    def __init__(self, port: int) -> None:
        self.port = port

    def dsn(self, *, user: str = "postgres", password: str = PASSWORD, dbname: str = "postgres", **extra: str) -> str:
        params = {"host": HOST, "port": str(self.port), "user": user, "password": password, "dbname": dbname,
                  "connect_timeout": "5", **extra}
        return " ".join(f"{key}='{value}'" for key, value in params.items())


@contextmanager
def postgres_server() -> Iterator[Postgres]:
    # Its own directory under /tmp: pytest's tmp_path is private to root, out of reach of postgres.
    with tempfile.TemporaryDirectory(prefix="errscope-pg-") as tmp:
        with _postgres(Path(tmp)) as server:
            yield server


@contextmanager
def _postgres(workdir: Path) -> Iterator[Postgres]:
    bindir = _postgres_bin()
    require(bindir is not None, "PostgreSQL server binaries are not installed (apt-get install postgresql)")
    assert bindir is not None
    owner: list[str] = []
    if os.geteuid() == 0:
        require(_has_user("postgres"), "running as root and there is no 'postgres' user to run PostgreSQL as")
        owner = ["runuser", "-u", "postgres", "--"]
        shutil.chown(workdir, "postgres")
    data = workdir / "data"
    pwfile = workdir / "pw"
    pwfile.write_text(PASSWORD)
    if owner:
        shutil.chown(pwfile, "postgres")
    port = closed_port()
    subprocess.run([*owner, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--pwfile", str(pwfile),
                    "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True)
    options = f"-p {port} -k {workdir} -c listen_addresses={HOST} -c fsync=off -c max_connections=20"
    subprocess.run([*owner, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(workdir / "log"),
                    "-w", "-t", "30", "start"], check=True, capture_output=True)
    try:
        yield Postgres(port)
    finally:
        subprocess.run([*owner, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@contextmanager
def redis_server() -> Iterator[int]:
    executable = shutil.which("redis-server")
    require(executable is not None, "redis-server is not installed (apt-get install redis-server)")
    assert executable is not None
    port = closed_port()
    workdir = tempfile.mkdtemp(prefix="errscope-redis-")
    process = subprocess.Popen(
        [executable, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", workdir,
         "--enable-debug-command", "local"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        wait_ready(redis.Redis(host=HOST, port=port, socket_timeout=1).ping, process)
        yield port
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def memcached_server(*options: str) -> Iterator[int]:
    """A memcached on a free port, started with ``options`` (``-m`` megabytes, ``-M`` to refuse rather than evict)."""
    executable = shutil.which("memcached")
    require(executable is not None, "memcached is not installed (apt-get install memcached)")
    assert executable is not None
    port = closed_port()
    user = ["-u", "memcache" if _has_user("memcache") else "root"] if os.geteuid() == 0 else []
    process = subprocess.Popen([executable, "-l", HOST, "-p", str(port), "-U", "0", *user, *options],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def probe() -> None:
            with socket.create_connection((HOST, port), timeout=1) as sock:
                sock.sendall(b"version\r\n")
                if not sock.recv(64).startswith(b"VERSION"):
                    raise ConnectionError("memcached is not answering yet")

        wait_ready(probe, process)
        yield port
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def mariadb_server() -> Iterator[int]:
    """A MariaDB server on a free port; ``root`` logs in over TCP with :data:`PASSWORD`."""
    server, install = shutil.which("mariadbd", path="/usr/sbin:/usr/bin"), shutil.which("mariadb-install-db")
    require(server is not None and install is not None,
            "MariaDB server binaries are not installed (apt-get install mariadb-server)")
    assert server is not None and install is not None
    workdir = Path(tempfile.mkdtemp(prefix="errscope-mariadb-"))
    user: list[str] = []
    if os.geteuid() == 0:
        require(_has_user("mysql"), "running as root and there is no 'mysql' user to run MariaDB as")
        user = ["--user=mysql"]
        shutil.chown(workdir, "mysql")
    data = workdir / "data"
    # One install at a time on the machine (two xdist workers start a server each; once in a CI run one of two
    # concurrent installs failed), and its own words when it fails.
    with open(Path(tempfile.gettempdir()) / "errscope-mariadb-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        installed = subprocess.run([install, "--no-defaults", f"--datadir={data}",
                                    "--auth-root-authentication-method=normal", "--skip-test-db", *user],
                                   capture_output=True, text=True, check=False)
    if installed.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        raise RuntimeError(f"mariadb-install-db failed ({installed.returncode}): {installed.stderr[-2000:]}")
    port = closed_port()
    process = subprocess.Popen(
        [server, "--no-defaults", f"--datadir={data}", f"--port={port}", f"--bind-address={HOST}",
         f"--socket={workdir}/sock", f"--pid-file={workdir}/pid", f"--log-error={workdir}/err",
         "--skip-log-bin", "--skip-name-resolve", "--innodb-buffer-pool-size=16M", "--max-connections=8", *user],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import pymysql

        def set_password() -> None:
            with pymysql.connect(unix_socket=f"{workdir}/sock", user="root", password="") as conn, conn.cursor() as cursor:
                cursor.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'")
                cursor.execute("ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY %s", (PASSWORD,))
                cursor.execute("GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")

        wait_ready(set_password, process)
        yield port
    finally:
        process.terminate()
        process.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)
