"""pandas (the table reader of data-analysis MCP servers) on real CSV and Excel files the call names: an empty file,
rows with more fields than the header, a quote never closed, a Latin-1 file read as UTF-8, a text file given to ``read_excel``, no file.

``EmptyDataError`` ("No columns to parse from file") and ``ParserError`` ("Error tokenizing data") are
``pandas.errors``' own: the file the call pointed at is not the table the format requires, and another would parse:
``invalid_input``, nothing done. A missing file is ``FileNotFoundError``: ``not_found``. The undecodable bytes are a
builtin ``UnicodeDecodeError``, and ``read_excel`` on a file whose format it cannot determine a builtin
``ValueError``: neither says whose bytes they were (an upstream's answer decoded the same way is no fault of the
arguments: tests/heldout_cases.md J187), so both stay ``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pd = pytest.importorskip("pandas")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tables")
    (root / "empty.csv").write_text("")
    (root / "ragged.csv").write_text("id,amount\n17,20.00\n18,5.00,EUR,late\n")
    (root / "unclosed.csv").write_text('id,amount\n17,"20.00\n18,5.00\n')  # a quote never closed
    (root / "customers.csv").write_bytes("id,name\n17,Müller\n".encode("latin-1"))
    (root / "report.xlsx.txt").write_text("id,amount\n")
    return root


CALLS: dict[str, Callable[[Path], Any]] = {
    "empty": lambda root: pd.read_csv(root / "empty.csv"),
    "ragged": lambda root: pd.read_csv(root / "ragged.csv"),
    "unclosed_quote_python_engine": lambda root: pd.read_csv(root / "unclosed.csv", engine="python"),
    "missing": lambda root: pd.read_csv(root / "orders.csv"),
    "latin1_as_utf8": lambda root: pd.read_csv(root / "customers.csv"),
    "excel_of_text": lambda root: pd.read_excel(root / "report.xlsx.txt"),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class", "side_effect"), [
    ("empty", "EmptyDataError", C.INVALID_INPUT, False),
    ("ragged", "ParserError", C.INVALID_INPUT, False),
    ("unclosed_quote_python_engine", "ParserError", C.INVALID_INPUT, False),
    ("missing", "FileNotFoundError", C.NOT_FOUND, False),
    ("latin1_as_utf8", "UnicodeDecodeError", C.UNKNOWN, None),
    ("excel_of_text", "ValueError", C.UNKNOWN, None),
])
def test_read_refused(files: Path, call: str, exc_name: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, side_effect)
