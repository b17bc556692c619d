"""Text encodings failing for real when a tool reads or writes a file: a Latin-1 file read as UTF-8 (``open``,
``pathlib``, ``codecs.open``), a binary file read as text, an encoding chardet guessed that does not hold for the whole
file, a name that is no codec, and text a narrow encoding cannot write.

All are builtins (``UnicodeDecodeError``, ``UnicodeEncodeError``, ``LookupError``) raised the same way for an
upstream's answer the tool decodes (tests/heldout_cases.md J187: no fault of the arguments) as for a file the call
named, and the type does not say whose bytes they were: the model is never told to fix arguments that may have been
fine, so ``unknown``; whether anything was done before the decode failed the exception does not say. These guard
against reading the codec's words ("invalid start byte", "unknown encoding") as the caller's.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

chardet = pytest.importorskip("chardet")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("encodings")
    (root / "customers.csv").write_bytes("id,name\n17,Müller\n18,Françoise\n".encode("latin-1"))
    (root / "logo.png").write_bytes(bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)))
    # mostly ASCII with one UTF-8 sequence early and a Latin-1 byte late: chardet's guess from the start does not hold
    (root / "mixed.txt").write_bytes("café\n".encode() + b"plain line\n" * 200 + "Müller\n".encode("latin-1"))
    return root


def _read_as_guessed(path: Path) -> str:
    data = path.read_bytes()
    guess = chardet.detect(data[:64])["encoding"] or "utf-8"
    return data.decode(guess)


def _read_text(path: Path) -> str:
    with open(path, encoding="utf-8") as stream:
        return stream.read()


CALLS: dict[str, Callable[[Path], Any]] = {
    "open_latin1_as_utf8": lambda root: _read_text(root / "customers.csv"),
    "pathlib_latin1_as_utf8": lambda root: (root / "customers.csv").read_text(encoding="utf-8"),
    "codecs_open_binary": lambda root: codecs.open(str(root / "logo.png"), encoding="utf-8").read(),
    "chardet_guess_wrong": lambda root: _read_as_guessed(root / "mixed.txt"),
    "no_such_codec": lambda root: (root / "customers.csv").read_text(encoding="utf-9"),
    "ascii_cannot_write": lambda root: (root / "out.txt").write_text("Müller", encoding="ascii"),
}


@pytest.mark.parametrize(("call", "exc_type"), [
    ("open_latin1_as_utf8", UnicodeDecodeError),
    ("pathlib_latin1_as_utf8", UnicodeDecodeError),
    ("codecs_open_binary", UnicodeDecodeError),
    ("chardet_guess_wrong", UnicodeDecodeError),
    ("no_such_codec", LookupError),
    ("ascii_cannot_write", UnicodeEncodeError),
])
def test_codec_refused(files: Path, call: str, exc_type: type[Exception]) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc) is exc_type, repr(exc)
    check(exc, C.UNKNOWN, None)
