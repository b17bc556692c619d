"""A tool's file lock held by another process or thread, and a directory watcher on a path that is not there: filelock
(``FileLock``, ``SoftFileLock``), the standard library's ``fcntl.flock`` with ``LOCK_NB``, watchdog.

A lock another holds is the file being busy for now, as SQLite's ``SQLITE_BUSY`` ("database is locked"): another
writer, retry later, ``upstream_unavailable``; the tool never got the lock, so it did nothing
(``side_effect_possible`` False). filelock's ``Timeout`` is a builtin ``TimeoutError`` raised from its own
``acquire``: the wait was for a lock, not for an answer. ``flock`` refuses at once with
``BlockingIOError`` (``EAGAIN``/``EWOULDBLOCK``). watchdog's observer on a directory that is not there raises the
``FileNotFoundError`` of inotify's watch: ``not_found``.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

filelock = pytest.importorskip("filelock")
watchdog_observers = pytest.importorskip("watchdog.observers")

from watchdog.events import FileSystemEventHandler  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture
def held_lock(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "ledger.csv.lock"
    ready, release = threading.Event(), threading.Event()

    def holder() -> None:  # another thread holds it, as another request of the same server would
        with filelock.FileLock(path, thread_local=False, is_singleton=False):
            ready.set()
            release.wait(10)

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    ready.wait(5)
    yield path
    release.set()
    thread.join(5)


def test_filelock_timeout(held_lock: Path) -> None:
    exc = raised(lambda: filelock.FileLock(held_lock, is_singleton=False).acquire(timeout=0.2))
    assert type(exc) is filelock.Timeout and isinstance(exc, TimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_filelock_non_blocking(held_lock: Path) -> None:
    exc = raised(lambda: filelock.FileLock(held_lock, is_singleton=False).acquire(blocking=False))
    assert type(exc) is filelock.Timeout
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_soft_file_lock_timeout(tmp_path: Path) -> None:
    path = tmp_path / "export.lock"
    first = filelock.SoftFileLock(path, is_singleton=False)
    first.acquire()
    try:
        exc = raised(lambda: filelock.SoftFileLock(path, is_singleton=False).acquire(timeout=0.2))
    finally:
        first.release()
    assert type(exc) is filelock.Timeout
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_flock_held(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    path.write_text("id,amount\n")
    # flock locks belong to the open file description: a second open of the same file contends even in one process
    with path.open("r+") as holder, path.open("r+") as second:
        fcntl.flock(holder, fcntl.LOCK_EX)
        exc = raised(lambda: fcntl.flock(second, fcntl.LOCK_EX | fcntl.LOCK_NB))
    assert type(exc) is BlockingIOError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_watch_missing_directory(tmp_path: Path) -> None:
    observer = watchdog_observers.Observer()

    def watch() -> None:
        observer.schedule(FileSystemEventHandler(), str(tmp_path / "inbox"), recursive=True)
        observer.start()

    try:
        exc = raised(watch)
    finally:
        if observer.is_alive():
            observer.stop()
            observer.join(5)
    assert isinstance(exc, FileNotFoundError)
    check(exc, C.NOT_FOUND, False)
