"""The standard library's archive and stream-compression readers on real files the call names: ``zipfile``,
``tarfile`` (with Python's extraction filters), ``gzip``, ``bz2`` and ``lzma``.

An archive that is not one (``BadZipFile``, ``tarfile.ReadError``, ``gzip.BadGzipFile``, ``lzma.LZMAError``), and a
member whose path leads out of the target directory that the ``data`` filter refuses (``tarfile``'s
``OutsideDestinationError``, a ``FilterError``/``TarError``): the archive the call pointed at is not one the tool can
take, and another would be: ``invalid_input``, nothing extracted. A member name the archive does not hold is
``zipfile``'s builtin ``KeyError`` (text "There is no item named ..."): a builtin that is as often the tool's own
bug, a known gap; ``bz2``'s bare ``OSError("Invalid data stream")`` too (no errno, a text only).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("archives")
    (root / "notes.txt").write_text("refund 17: 20.00\n" * 20)
    with zipfile.ZipFile(root / "bundle.zip", "w") as bundle:
        bundle.writestr("report.csv", "id,amount\n17,20.00\n")
    whole = (root / "bundle.zip").read_bytes()
    (root / "cut.zip").write_bytes(whole[: len(whole) - 30])
    with tarfile.open(root / "escape.tar", "w") as archive:
        member = tarfile.TarInfo("../../etc/cron.d/job")
        member.size = 4
        archive.addfile(member, io.BytesIO(b"x=1\n"))
    return root


def _gunzip(path: Path) -> bytes:
    with gzip.open(path) as stream:
        return stream.read()


def _bunzip(path: Path) -> bytes:
    with bz2.open(path) as stream:
        return stream.read()


def _unxz(path: Path) -> bytes:
    with lzma.open(path) as stream:
        return stream.read()


def _extract(path: Path, target: Path) -> None:
    with tarfile.open(path) as archive:
        archive.extractall(target, filter="data")


CALLS: dict[str, Callable[[Path], Any]] = {
    "zip_of_text": lambda root: zipfile.ZipFile(root / "notes.txt"),
    "zip_cut_off": lambda root: zipfile.ZipFile(root / "cut.zip"),
    "zip_member_missing": lambda root: zipfile.ZipFile(root / "bundle.zip").read("summary.csv"),
    "tar_of_text": lambda root: tarfile.open(root / "notes.txt"),
    "tar_member_escapes": lambda root: _extract(root / "escape.tar", root / "out"),
    "gzip_of_text": lambda root: _gunzip(root / "notes.txt"),
    "bz2_of_text": lambda root: _bunzip(root / "notes.txt"),
    "xz_of_text": lambda root: _unxz(root / "notes.txt"),
    "zip_missing": lambda root: zipfile.ZipFile(root / "backup.zip"),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class"), [
    ("zip_of_text", "BadZipFile", C.INVALID_INPUT),
    ("zip_cut_off", "BadZipFile", C.INVALID_INPUT),
    ("zip_member_missing", "KeyError", C.NOT_FOUND),  # zipfile's KeyError("There is no item named 'x' ..."): its words
    ("tar_of_text", "ReadError", C.INVALID_INPUT),
    ("tar_member_escapes", "OutsideDestinationError", C.INVALID_INPUT),
    ("gzip_of_text", "BadGzipFile", C.INVALID_INPUT),
    ("bz2_of_text", "OSError", C.INVALID_INPUT),  # bz2's bare OSError('Invalid data stream'), no errno: its words
    ("xz_of_text", "LZMAError", C.INVALID_INPUT),
    ("zip_missing", "FileNotFoundError", C.NOT_FOUND),
])
def test_archive_refused(files: Path, call: str, exc_name: str, failure_class: C) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, False)
