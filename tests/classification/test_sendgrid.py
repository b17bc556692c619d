"""The SendGrid SDK (python-http-client over urllib) against a real HTTP server on 127.0.0.1: one
exception class per status, each carrying ``status_code`` and the response headers; transport
failures are urllib's own."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Callable
from typing import Any

import pytest
import sendgrid
from python_http_client import exceptions as http_errors

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream


def _send(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = sendgrid.SendGridAPIClient(api_key="SG.errscope", host=base)
    client.client.timeout = timeout
    return lambda: client.client.mail.send.post(request_body={"subject": "hi"})


@pytest.mark.parametrize(("status", "retry_after", "kind", "failure_class", "side_effect", "wait"), [
    (400, None, http_errors.BadRequestsError, C.INVALID_INPUT, False, None),
    (401, None, http_errors.UnauthorizedError, C.PERMISSION_DENIED, False, None),
    (403, None, http_errors.ForbiddenError, C.PERMISSION_DENIED, False, None),
    (404, None, http_errors.NotFoundError, C.NOT_FOUND, False, None),
    (413, None, http_errors.PayloadTooLargeError, C.INVALID_INPUT, False, None),
    (429, "5", http_errors.TooManyRequestsError, C.RATE_LIMITED, False, 5.0),
    (500, None, http_errors.InternalServerError, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, None, http_errors.ServiceUnavailableError, C.UPSTREAM_UNAVAILABLE, False, None),
])
def test_status(upstream: HttpUpstream, status: int, retry_after: str | None, kind: type, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    headers = {"Retry-After": retry_after} if retry_after else {}
    exc = raised(_send(upstream.scripted(status, json.dumps({"errors": [{"message": "no"}]}), headers)))
    assert type(exc) is kind
    assert check(exc, failure_class, side_effect).retry_after == wait


@pytest.mark.parametrize(("where", "kind", "side_effect"), [
    ("refused", urllib.error.URLError, False),
    ("drop", ConnectionResetError, True),
    ("stall", TimeoutError, True),
])
def test_connection(upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
    base = upstream.failing(where)
    exc = raised(_send(base, timeout=0.3))
    assert isinstance(exc, kind)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
