"""More readers a document tool reaches for, each on real files the call names that are not their format: PyMuPDF
(``pymupdf``, the PDF engine of many PDF MCP servers), py7zr, xlrd (legacy ``.xls``), and the standard library's
``csv``, ``configparser``, ``wave`` and ``xml.etree.ElementTree``/``xml.dom.minidom`` (expat).

The same rule as test_pypdf: a format reader's refusal of the bytes (PyMuPDF's ``FileDataError``/``EmptyFileError``,
py7zr's ``Bad7zFile``, ``csv.Error`` and ``wave.Error`` (a format module's bare ``Error``), configparser's
``ParsingError`` family, ElementTree's ``ParseError``, expat's ``ExpatError``): the file the call pointed at is not
the format, another would be read: ``invalid_input``, nothing done. A missing file is not there: ``not_found``
(PyMuPDF raises its own ``FileNotFoundError``, a ``RuntimeError``: by its name only, so whether it acted is open). Two
readers keep only a text: xlrd's ``XLRDError("Unsupported format, or corrupt file: ...")`` and PyMuPDF's builtin
``ValueError("document closed or encrypted")`` for a page of a locked PDF: known gaps.
"""

from __future__ import annotations

import configparser
import csv
import io
import wave
import xml.dom.minidom
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pymupdf = pytest.importorskip("pymupdf")
py7zr = pytest.importorskip("py7zr")
xlrd = pytest.importorskip("xlrd")
pypdf = pytest.importorskip("pypdf")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("readers")
    (root / "invoice.pdf").write_text("Invoice 17\nAmount: 20.00\n")
    (root / "empty.pdf").write_bytes(b"")
    locked = pypdf.PdfWriter()
    locked.add_blank_page(width=595, height=842)
    locked.encrypt("owner-only")
    locked.write(root / "locked.pdf")
    (root / "backup.7z").write_text("not an archive\n")
    (root / "ledger.xls").write_text("id,amount\n17,20.00\n")
    (root / "ledger.csv").write_text('id,note\n17,"refund pending\n')  # a quote never closed
    (root / "settings.ini").write_text("currency = EUR\n[limits]\nrefund = 100\n")
    (root / "memo.wav").write_text("not audio\n")
    (root / "feed.xml").write_text("<feed><entry><title>Refunds</entry></feed>")
    return root


def _csv_rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as stream:
        return list(csv.reader(stream, strict=True))


def _ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser


def _locked_page(path: Path) -> str:
    with pymupdf.open(path) as document:
        return str(document[0].get_text())


CALLS: dict[str, Callable[[Path], Any]] = {
    "mupdf_text_named_pdf": lambda root: pymupdf.open(root / "invoice.pdf"),
    "mupdf_empty_file": lambda root: pymupdf.open(root / "empty.pdf"),
    "mupdf_missing": lambda root: pymupdf.open(root / "statement-2025.pdf"),
    "mupdf_locked_page": lambda root: _locked_page(root / "locked.pdf"),
    "py7zr_text_named_7z": lambda root: py7zr.SevenZipFile(root / "backup.7z"),
    "xlrd_text_named_xls": lambda root: xlrd.open_workbook(root / "ledger.xls"),
    "csv_unclosed_quote": lambda root: _csv_rows(root / "ledger.csv"),
    "configparser_no_section": lambda root: _ini(root / "settings.ini"),
    "wave_not_riff": lambda root: wave.open(str(root / "memo.wav")),
    "elementtree_tags_crossed": lambda root: ElementTree.parse(root / "feed.xml"),
    "minidom_tags_crossed": lambda root: xml.dom.minidom.parse(str(root / "feed.xml")),
    "csv_in_memory": lambda root: list(csv.reader(io.StringIO('id,note\n17,"refund" pending\n'), strict=True)),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class", "side_effect"), [
    ("mupdf_text_named_pdf", "FileDataError", C.INVALID_INPUT, False),
    ("mupdf_empty_file", "EmptyFileError", C.INVALID_INPUT, False),
    ("mupdf_missing", "FileNotFoundError", C.NOT_FOUND, None),
    ("mupdf_locked_page", "ValueError", C.PERMISSION_DENIED, False),  # PyMuPDF's ValueError('document closed or encrypted')
    ("py7zr_text_named_7z", "Bad7zFile", C.INVALID_INPUT, False),
    ("xlrd_text_named_xls", "XLRDError", C.INVALID_INPUT, False),  # its one class; its words: 'Unsupported format, ..'
    ("csv_unclosed_quote", "Error", C.INVALID_INPUT, False),
    ("configparser_no_section", "MissingSectionHeaderError", C.INVALID_INPUT, False),
    ("wave_not_riff", "Error", C.INVALID_INPUT, False),
    ("elementtree_tags_crossed", "ParseError", C.INVALID_INPUT, False),
    ("minidom_tags_crossed", "ExpatError", C.INVALID_INPUT, False),
    ("csv_in_memory", "Error", C.INVALID_INPUT, False),
])
def test_read_refused(files: Path, call: str, exc_name: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, side_effect)
