"""gspread (the Google Sheets client, over google-auth's ``AuthorizedSession`` and requests) against a real HTTP server
on 127.0.0.1 in the place of ``sheets.googleapis.com``, answering with Google's own error document
(https://cloud.google.com/apis/design/errors: ``{"error": {"code", "message", "status"}}``).

gspread raises ``APIError`` keeping the ``response`` for any error status; opening a spreadsheet turns a 404 into
``SpreadsheetNotFound`` and a 403 into a bare builtin ``PermissionError``, each raised ``from`` the ``APIError``; a
worksheet title the spreadsheet's metadata does not list is ``WorksheetNotFound`` (no request of its own).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

gspread = pytest.importorskip("gspread")

from google.auth.credentials import AnonymousCredentials  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

KEY = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
METADATA = {"spreadsheetId": KEY, "properties": {"title": "Refunds"},
            "sheets": [{"properties": {"sheetId": 0, "title": "Ledger", "index": 0}}]}


def _open(base: str, monkeypatch: pytest.MonkeyPatch, worksheet: str | None = None) -> Callable[[], Any]:
    monkeypatch.setattr(gspread.http_client, "SPREADSHEET_URL", f"{base}/v4/spreadsheets/%s")

    def run() -> Any:
        spreadsheet = gspread.Client(AnonymousCredentials()).open_by_key(KEY)
        return spreadsheet.worksheet(worksheet) if worksheet else spreadsheet
    return run


def _google_error(status: int, name: str, message: str) -> str:
    return json.dumps({"error": {"code": status, "message": message, "status": name}})


@pytest.mark.parametrize(("status", "name", "message", "exc_name", "failure_class"), [
    (400, "INVALID_ARGUMENT", "Unable to parse range: Ledger!A1:B", "APIError", C.INVALID_INPUT),
    (403, "PERMISSION_DENIED", "The caller does not have permission", "PermissionError", C.PERMISSION_DENIED),
    (404, "NOT_FOUND", "Requested entity was not found.", "SpreadsheetNotFound", C.NOT_FOUND),
    (429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per "
     "minute per user' of service 'sheets.googleapis.com'", "APIError", C.RATE_LIMITED),
    (500, "INTERNAL", "Internal error encountered.", "APIError", C.UPSTREAM_UNAVAILABLE),
    (503, "UNAVAILABLE", "The service is currently unavailable.", "APIError", C.UPSTREAM_UNAVAILABLE),
])
def test_error_document(upstream: HttpUpstream, monkeypatch: pytest.MonkeyPatch, status: int, name: str,
                        message: str, exc_name: str, failure_class: C) -> None:
    exc = raised(_open(upstream.scripted(status, _google_error(status, name, message)), monkeypatch))
    assert type(exc).__name__ == exc_name
    result = check(exc, failure_class, status == 500)
    assert result.upstream is not None and result.upstream.status in (str(status), name)


def test_worksheet_not_listed(upstream: HttpUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    exc = raised(_open(upstream.scripted(200, json.dumps(METADATA)), monkeypatch, worksheet="Refunds 2026"))
    assert type(exc) is gspread.exceptions.WorksheetNotFound
    check(exc, C.NOT_FOUND, None)  # by its name only: whether the call did anything before it, the name does not say


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("drop", True)])
def test_transport(upstream: HttpUpstream, monkeypatch: pytest.MonkeyPatch, where: str, side_effect: bool) -> None:
    exc = raised(_open(upstream.failing(where), monkeypatch))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
