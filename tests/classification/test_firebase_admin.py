"""The Firebase Admin SDK's Realtime Database client (``firebase_admin.db``, over requests) against a real HTTP server on
127.0.0.1 in the place of the database (an ``http://`` database URL is the emulator's: no Google credential is used)
answering with the REST API's own error bodies (https://firebase.google.com/docs/reference/rest/database: ``{"error":
"Permission denied"}``).

firebase_admin raises one ``FirebaseError`` subclass per platform error code it maps the status to
(``_utils._HTTP_STATUS_TO_ERROR_CODE``: ``InvalidArgumentError``, ``UnauthenticatedError``, ``PermissionDeniedError``,
``NotFoundError``, ``FailedPreconditionError``, ``ResourceExhaustedError``, ``InternalError``, ``UnavailableError``,
``UnknownError`` for a status it does not map), each keeping the code as ``code`` and the response as
``http_response``; requests' ``ConnectionError`` becomes ``UnavailableError`` and its ``Timeout``
``DeadlineExceededError``, the error kept as ``cause`` and raised ``from`` it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

firebase_admin = pytest.importorskip("firebase_admin")

from firebase_admin import db, exceptions  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import (  # noqa: E402
    HOST, answering, closed_port, closing_listener, silent_listener)

_APPS = itertools.count()


def _get(port: int, timeout: float = 5) -> Callable[[], Any]:
    def run() -> Any:
        app = firebase_admin.initialize_app(
            firebase_admin.credentials.AnonymousCredentials() if hasattr(firebase_admin.credentials,
                                                                         "AnonymousCredentials") else None,
            {"databaseURL": f"http://{HOST}:{port}?ns=refunds-test", "httpTimeout": timeout},
            name=f"errscope-{next(_APPS)}")
        try:
            return db.reference("/refunds/17", app=app).get()
        finally:
            firebase_admin.delete_app(app)
    return run


@pytest.mark.parametrize(("status", "error", "exc_class", "failure_class", "side_effect"), [
    (400, "Invalid data; couldn't parse JSON object, array, or value.", exceptions.InvalidArgumentError,
     C.INVALID_INPUT, False),
    (401, "Permission denied", exceptions.UnauthenticatedError, C.PERMISSION_DENIED, False),
    (403, "Permission denied", exceptions.PermissionDeniedError, C.PERMISSION_DENIED, False),
    (404, "Not Found", exceptions.NotFoundError, C.NOT_FOUND, False),
    (409, "Conflict", exceptions.ConflictError, C.INVALID_INPUT, False),
    (412, "ETag mismatch", exceptions.FailedPreconditionError, C.INVALID_INPUT, False),
    (429, "Too Many Requests", exceptions.ResourceExhaustedError, C.RATE_LIMITED, False),
    (500, "Internal server error.", exceptions.InternalError, C.UPSTREAM_UNAVAILABLE, True),
    (503, "Service Unavailable", exceptions.UnavailableError, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(status: int, error: str, exc_class: type[BaseException], failure_class: C,
                side_effect: bool) -> None:
    with answering(status, json.dumps({"error": error})) as port:
        exc = raised(_get(port))
    assert type(exc) is exc_class and exc.http_response is not None and exc.http_response.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status in (str(status), exc.code)


def test_status_it_does_not_map() -> None:
    # 402 maps to no platform code: UnknownError, with the response kept; the status says the plan must be paid for
    # (RFC 9110 §15.5.3): the operator's to fix, as a refused credential
    with answering(402, json.dumps({"error": "Payment required: the project's plan is over its limits"})) as port:
        exc = raised(_get(port))
    assert type(exc) is exceptions.UnknownError and exc.http_response.status_code == 402
    check(exc, C.PERMISSION_DENIED, False)


def test_refused() -> None:
    exc = raised(_get(closed_port()))
    assert type(exc) is exceptions.UnavailableError and exc.http_response is None
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_closed_before_answering() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_get(port))
    assert type(exc) is exceptions.UnavailableError
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_answer_never_comes() -> None:
    with silent_listener() as port:
        exc = raised(_get(port, timeout=0.5))
    # the database client's urllib3 Retry turns the read timeout into a MaxRetryError: requests' ConnectionError
    assert type(exc) in (exceptions.DeadlineExceededError, exceptions.UnavailableError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_rate_limited_with_retry_after() -> None:
    # urllib3's Retry honours a 429's Retry-After (4 tries) before firebase_admin raises: a short wait keeps it quick
    with answering(429, json.dumps({"error": "Too Many Requests"}), {"Retry-After": "1"}) as port:
        exc = raised(_get(port))
    assert type(exc) is exceptions.ResourceExhaustedError
    result = check(exc, C.RATE_LIMITED, False)
    assert result.retry_after == 1.0
