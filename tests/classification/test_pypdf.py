"""pypdf (the PDF library document MCP servers read PDFs with) on real files the call names: a text file named
``.pdf``, a PDF cut off halfway (an interrupted download), a PDF encrypted with a password the tool does not have (or
gets wrong), and no file at all.

pypdf raises its own ``PdfReadError`` family for a file that is not a whole PDF (``PdfStreamError`` when the bytes end
where the format needs more): the document the call pointed at is not what the format requires, and a call naming a
readable one would succeed, as a 400/422 for a body that does not parse: ``invalid_input``, nothing done. An encrypted
PDF read without its password (``decrypt`` with a wrong one returns ``NOT_DECRYPTED``; reading then raises the same
``FileNotDecryptedError``) lacks the credential that opens it, as a 401 without one: ``permission_denied``. A path
with no file is the ``FileNotFoundError`` pypdf's ``open`` raised: ``not_found``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pypdf = pytest.importorskip("pypdf")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pdfs")
    (root / "invoice.pdf").write_text("Invoice 17\nAmount: 20.00\n")  # a text file someone named .pdf
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=595, height=842)
    writer.write(root / "whole.pdf")
    whole = (root / "whole.pdf").read_bytes()
    (root / "cut.pdf").write_bytes(whole[: len(whole) // 2])
    locked = pypdf.PdfWriter()
    locked.add_blank_page(width=595, height=842)
    locked.encrypt("owner-only")
    locked.write(root / "locked.pdf")
    return root


def _wrong_password(path: Path) -> Any:
    reader = pypdf.PdfReader(path)
    reader.decrypt("guess")
    return reader.pages[0].extract_text()


CALLS: dict[str, Callable[[Path], Any]] = {
    "text_named_pdf": lambda root: pypdf.PdfReader(root / "invoice.pdf").pages[0].extract_text(),
    "cut_off": lambda root: pypdf.PdfReader(root / "cut.pdf").pages[0].extract_text(),
    "strict_text_named_pdf": lambda root: pypdf.PdfReader(root / "invoice.pdf", strict=True),
    "encrypted_no_password": lambda root: pypdf.PdfReader(root / "locked.pdf").pages[0].extract_text(),
    "encrypted_wrong_password": lambda root: _wrong_password(root / "locked.pdf"),
    "missing": lambda root: pypdf.PdfReader(root / "statement-2025.pdf"),
}


@pytest.mark.parametrize(("call", "failure_class"), [
    ("text_named_pdf", C.INVALID_INPUT),
    ("cut_off", C.INVALID_INPUT),
    ("strict_text_named_pdf", C.INVALID_INPUT),
    ("encrypted_no_password", C.PERMISSION_DENIED),
    ("encrypted_wrong_password", C.PERMISSION_DENIED),
    ("missing", C.NOT_FOUND),
])
def test_read_refused(files: Path, call: str, failure_class: C) -> None:
    exc = raised(lambda: CALLS[call](files))
    assert isinstance(exc, pypdf.errors.PyPdfError | FileNotFoundError), repr(exc)
    check(exc, failure_class, False)
