"""A file tool meeting the limits of the machine it runs on, raised for real: a full filesystem (a 64 KiB tmpfs and
``/dev/full``), a read-only mount, a file-size limit (``RLIMIT_FSIZE``), the process's open-file limit
(``RLIMIT_NOFILE``), a rename across filesystems, an executable that is running.

What the design's vocabulary says of each:

- ``ENOSPC`` (no space left), ``EFBIG`` (over the file-size limit): the machine's own limit, neither the caller's
  arguments nor an upstream's answer (tests/heldout_cases.md J189): ``unknown``; a write may have put part of the
  data down before it failed, so whether it acted is not known;
- ``EMFILE`` (too many open files: the tool's own leak or limit, as a ``MemoryError``), ``EXDEV`` (``os.rename``
  across filesystems: the tool's own bug, ``shutil.move`` copies): ``unknown``, and the syscall refused it whole;
- ``EROFS``: the filesystem refuses every write there, as a read-only share does (test_smb): ``permission_denied``;
- ``ETXTBSY`` (the file is a program that is running): busy for now, as SQLite's ``SQLITE_BUSY`` (another holds
  it), retry later: ``upstream_unavailable``, nothing done.

The tmpfs mounts need ``CAP_SYS_ADMIN`` (root on the build machines): the test process moves into a mount namespace
of its own (``unshare(CLONE_NEWNS)``, propagation private) so no other process sees them; skipped without it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised

_CLONE_NEWNS, _MS_RDONLY, _MS_REC, _MS_PRIVATE = 0x00020000, 1, 0x4000, 0x40000
_libc = ctypes.CDLL(None, use_errno=True)
_own_namespace: list[bool] = []


def _mount_tmpfs(target: Path, *, read_only: bool) -> None:
    if not _own_namespace:
        if _libc.unshare(_CLONE_NEWNS) != 0 or _libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            pytest.skip(f"no mount namespace of our own here: {os.strerror(ctypes.get_errno())}")
        _own_namespace.append(True)
    flags = _MS_RDONLY if read_only else 0
    if _libc.mount(b"tmpfs", str(target).encode(), b"tmpfs", flags, b"size=64k") != 0:
        pytest.skip(f"cannot mount a tmpfs here: {os.strerror(ctypes.get_errno())}")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    target = tmp_path / "disk"
    target.mkdir()
    _mount_tmpfs(target, read_only=False)
    yield target
    _libc.umount2(str(target).encode(), 2)  # MNT_DETACH


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    target = tmp_path / "ro"
    target.mkdir()
    _mount_tmpfs(target, read_only=True)
    yield target
    _libc.umount2(str(target).encode(), 2)


def _write_export(path: Path, size: int) -> None:
    with path.open("wb") as sink:
        for _ in range(size // 4096):
            sink.write(b"x" * 4096)


def test_filesystem_full(small_disk: Path) -> None:
    exc = raised(lambda: _write_export(small_disk / "export.csv", 1 << 20))
    assert type(exc) is OSError and exc.errno == errno.ENOSPC
    check(exc, C.UNKNOWN, None)


def test_dev_full() -> None:
    def write() -> None:
        with open("/dev/full", "w") as sink:
            sink.write("id,amount\n")
            sink.flush()
    exc = raised(write)
    assert type(exc) is OSError and exc.errno == errno.ENOSPC
    check(exc, C.UNKNOWN, None)


def test_copy_onto_a_full_filesystem(small_disk: Path, tmp_path: Path) -> None:
    source = tmp_path / "video.mp4"
    source.write_bytes(os.urandom(256 * 1024))
    exc = raised(lambda: shutil.copy(source, small_disk / "video.mp4"))
    assert isinstance(exc, OSError) and exc.errno == errno.ENOSPC
    check(exc, C.UNKNOWN, None)


def test_read_only_filesystem(read_only_disk: Path) -> None:
    exc = raised(lambda: (read_only_disk / "export.csv").write_text("id,amount\n"))
    assert type(exc) is OSError and exc.errno == errno.EROFS
    check(exc, C.PERMISSION_DENIED, False)


def test_mkdir_on_read_only_filesystem(read_only_disk: Path) -> None:
    exc = raised(lambda: os.makedirs(read_only_disk / "2026" / "01"))
    assert type(exc) is OSError and exc.errno == errno.EROFS
    check(exc, C.PERMISSION_DENIED, False)


def test_file_size_limit(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills the process (setrlimit(2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, hard))
    try:
        exc = raised(lambda: _write_export(tmp_path / "export.csv", 1 << 20))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert type(exc) is OSError and exc.errno == errno.EFBIG
    check(exc, C.UNKNOWN, None)


def test_too_many_open_files(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<p>x</p>")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    handles: list[Any] = []

    def open_all() -> None:
        for _ in range(64):
            handles.append((tmp_path / "page.html").open())

    resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 8, hard))
    try:
        exc = raised(open_all)
    finally:
        for handle in handles:
            handle.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert type(exc) is OSError and exc.errno == errno.EMFILE
    check(exc, C.UNKNOWN, False)


def test_rename_across_filesystems(tmp_path: Path) -> None:
    if os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("/dev/shm is on the same filesystem as the temporary directory here")
    (tmp_path / "upload.bin").write_bytes(b"\x00" * 16)
    target = Path("/dev/shm") / f"errscope-{os.getpid()}-upload.bin"
    exc = raised(lambda: os.rename(tmp_path / "upload.bin", target))
    assert type(exc) is OSError and exc.errno == errno.EXDEV
    check(exc, C.UNKNOWN, False)


@pytest.fixture
def running_program(tmp_path: Path) -> Iterator[Path]:
    program = tmp_path / "converter"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    process = subprocess.Popen([str(program), "30"])
    yield program
    process.kill()
    process.wait()


def test_overwrite_a_running_program(running_program: Path) -> None:
    exc = raised(lambda: running_program.write_bytes(b"#!/bin/sh\n"))
    assert type(exc) is OSError and exc.errno == errno.ETXTBSY
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


