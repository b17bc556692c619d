"""python-docx and openpyxl (the Word and Excel readers of document MCP servers) on real files the call names: a text
file named ``.docx``/``.xlsx`` (no zip package), a file openpyxl does not take by its extension, and no file at all.

A ``.xlsx`` that is no zip package is ``zipfile.BadZipFile``; a ``.txt`` given to ``load_workbook`` openpyxl's
``InvalidFileException``: the document the call pointed at is not one the format requires, and another would succeed:
``invalid_input``, nothing done (as a body that does not parse). A missing workbook is ``FileNotFoundError``:
``not_found``. python-docx raises one ``PackageNotFoundError("Package not found at ...")`` for a missing path *and*
for a file that is no zip package (``PhysPkgReader``: neither a directory nor a zip file): its name reads
``not_found``, right for the first; for the second only the file on disk could tell, so that case is a known gap.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

docx = pytest.importorskip("docx")
openpyxl = pytest.importorskip("openpyxl")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("office")
    (root / "contract.docx").write_text("Contract between A and B\n")
    (root / "budget.xlsx").write_text("month,amount\n2026-01,20.00\n")
    (root / "budget.txt").write_text("month,amount\n")
    return root


CALLS: dict[str, Callable[[Path], Any]] = {
    "docx_missing": lambda root: docx.Document(str(root / "offer.docx")),
    "docx_not_a_package": lambda root: docx.Document(str(root / "contract.docx")),
    "xlsx_not_a_package": lambda root: openpyxl.load_workbook(root / "budget.xlsx"),
    "xlsx_wrong_extension": lambda root: openpyxl.load_workbook(root / "budget.txt"),
    "xlsx_missing": lambda root: openpyxl.load_workbook(root / "forecast.xlsx"),
}


@pytest.mark.parametrize(("call", "exc_name", "failure_class", "side_effect"), [
    ("docx_missing", "PackageNotFoundError", C.NOT_FOUND, None),  # by its name only
    pytest.param("docx_not_a_package", "PackageNotFoundError", C.INVALID_INPUT, False,
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "python-docx raises the same PackageNotFoundError('Package not found at ...') for a file that is "
                     "no zip package as for a missing path: the exception cannot tell them apart"))),
    ("xlsx_not_a_package", "BadZipFile", C.INVALID_INPUT, False),
    ("xlsx_wrong_extension", "InvalidFileException", C.INVALID_INPUT, False),
    ("xlsx_missing", "FileNotFoundError", C.NOT_FOUND, False),
])
def test_open_refused(files: Path, call: str, exc_name: str, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert type(exc).__name__ == exc_name, repr(exc)
    check(exc, failure_class, side_effect)
