"""A file tool's path refused by the kernel itself (open(2), mkdir(2), rmdir(2), rename(2) on a real filesystem): each
errno says what was wrong with the path the call named, and that nothing was done (the syscall refused it whole).

- ``ENOENT``, ``ENOTDIR`` (a component of the path is a file: nothing lives below it), ``ELOOP`` (symbolic links that
  lead to each other: the path resolves to no file): the path names nothing there, ``not_found``;
- ``EISDIR`` (a directory where the call needs a file), ``EEXIST`` and ``ENOTEMPTY`` (a conflict with what is there:
  HTTP's 409, as SFTP's own statuses), ``ENAMETOOLONG`` (longer than ``NAME_MAX``): the call's path is the wrong one
  for the operation, and a call naming another would succeed: ``invalid_input``;
- ``EACCES``, ``EPERM`` (the process may not): ``permission_denied``.

The tests run as root on the build machines, where the kernel skips permission checks (``CAP_DAC_OVERRIDE``): the
refusals are raised with the calling thread's filesystem uid switched to ``nobody`` for the one call (``setfsuid(2)``:
per thread, and the kernel drops the filesystem capabilities with it), a real kernel refusal all the same. Not
``os.seteuid``: glibc applies it to every thread of the test process (a signal to each, then it waits for each), so
the other tests' server threads would run as ``nobody`` too.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised

NOBODY = 65534


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "report.txt").write_text("refund 17: 20.00\n")
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "2026-01.csv").write_text("id,amount\n")
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    private = tmp_path / "private.txt"
    private.write_text("salary data\n")
    private.chmod(0o600)
    tmp_path.chmod(0o755)
    return tmp_path


_libc = ctypes.CDLL(None, use_errno=True)


@contextmanager
def as_nobody() -> Iterator[None]:
    if os.geteuid() != 0:
        yield  # an ordinary user: the kernel checks its permissions anyway
        return
    _libc.setfsuid(NOBODY)  # this thread only (setfsuid(2)); seteuid would change every thread of the process
    try:
        yield
    finally:
        _libc.setfsuid(0)


def _as_nobody(action: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with as_nobody():
            return action()
    return run


CALLS: dict[str, Callable[[Path], Any]] = {
    "open_missing": lambda root: (root / "report-2025.txt").read_text(),
    "list_missing": lambda root: os.listdir(root / "archive"),
    "below_a_file": lambda root: (root / "report.txt" / "summary").read_text(),
    "symlink_loop": lambda root: (root / "loop-a").read_text(),
    "read_a_directory": lambda root: (root / "exports").read_text(),
    "mkdir_existing": lambda root: (root / "exports").mkdir(),
    "rmdir_not_empty": lambda root: (root / "exports").rmdir(),
    "name_too_long": lambda root: (root / ("x" * 300)).write_text("x"),
    "read_private": lambda root: _as_nobody(lambda: (root / "private.txt").read_text())(),
    "write_in_foreign_dir": lambda root: _as_nobody(lambda: (root / "new.txt").write_text("x"))(),
    "chown_as_user": lambda root: _as_nobody(lambda: os.chown(root / "report.txt", 0, 0))(),
}


@pytest.mark.parametrize(("call", "exc_type", "failure_class"), [
    ("open_missing", FileNotFoundError, C.NOT_FOUND),
    ("list_missing", FileNotFoundError, C.NOT_FOUND),
    ("below_a_file", NotADirectoryError, C.NOT_FOUND),
    ("symlink_loop", OSError, C.NOT_FOUND),
    ("read_a_directory", IsADirectoryError, C.INVALID_INPUT),
    ("mkdir_existing", FileExistsError, C.INVALID_INPUT),
    ("rmdir_not_empty", OSError, C.INVALID_INPUT),
    ("name_too_long", OSError, C.INVALID_INPUT),
    ("read_private", PermissionError, C.PERMISSION_DENIED),
    ("write_in_foreign_dir", PermissionError, C.PERMISSION_DENIED),
    ("chown_as_user", PermissionError, C.PERMISSION_DENIED),
])
def test_path_refused(tree: Path, call: str, exc_type: type[OSError], failure_class: C) -> None:
    exc = raised(lambda: CALLS[call](tree))
    assert type(exc) is exc_type and isinstance(exc, OSError) and exc.errno is not None, repr(exc)
    result = check(exc, failure_class, False)
    assert result.upstream is None  # the local filesystem is no upstream with a status


def test_missing_path_under_shutil(tree: Path) -> None:
    # shutil.copy: the same ENOENT, raised a few frames down in the standard library
    import shutil
    exc = raised(lambda: shutil.copy(tree / "report-2025.txt", tree / "exports"))
    assert isinstance(exc, FileNotFoundError)
    check(exc, C.NOT_FOUND, False)
