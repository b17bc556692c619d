"""Supabase Auth's Python client (``supabase-auth``, the ``auth`` of supabase-py, over httpx) against a real HTTP server
on 127.0.0.1 that answers the way Supabase Auth (GoTrue) does.

Supabase Auth names each refusal with an error code (https://supabase.com/docs/guides/auth/debugging/error-codes), in
the body's ``code`` (API version 2024-01-01, which the client asks for and the server names in
``X-Supabase-Api-Version``) or ``error_code`` (older servers), and the code says more than the status: a wrong password
is a 400 ``invalid_credentials``, an unconfirmed email a 400 ``email_not_confirmed``, a sign-up of a taken address a 422
``email_exists``. The client raises ``AuthApiError`` with ``.status`` and ``.code`` ``from`` httpx's
``HTTPStatusError``; a 502/503/504 (and Cloudflare's 520-530) is ``AuthRetryableError``; a transport failure
``AuthRetryableError`` with status 0, raised from httpx's error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

supabase_auth = pytest.importorskip("supabase_auth")

import httpx  # noqa: E402
from supabase_auth.errors import AuthApiError, AuthRetryableError, AuthWeakPasswordError  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402

_VERSIONED = {"X-Supabase-Api-Version": "2024-01-01"}


def _sign_in(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = supabase_auth.SyncGoTrueClient(url=base, headers={"apikey": "anon-key"}, persist_session=False,
                                            http_client=httpx.Client(timeout=timeout))
    return lambda: client.sign_in_with_password({"email": "ada@example.com", "password": "hunter2-hunter2"})


def _get_user(base: str) -> Callable[[], Any]:
    admin = supabase_auth.SyncGoTrueAdminAPI(url=base, headers={"apikey": "service-key",
                                                                "Authorization": "Bearer service-key"})
    return lambda: admin.get_user_by_id("5f0c3a52-8a8e-4ac4-9c1f-5a3c2d1e0f17")


@pytest.mark.parametrize(("status", "code", "failure_class"), [
    (400, "invalid_credentials", C.PERMISSION_DENIED),  # a 400, and the credential is what was refused
    (400, "email_not_confirmed", C.PERMISSION_DENIED),
    (403, "user_banned", C.PERMISSION_DENIED),
    (403, "bad_jwt", C.PERMISSION_DENIED),
    (403, "session_not_found", C.PERMISSION_DENIED),  # the session behind the token is gone: sign in again
    (422, "signup_disabled", C.PERMISSION_DENIED),  # the project refuses new accounts: no argument fixes it
    (400, "validation_failed", C.INVALID_INPUT),
    (400, "email_address_invalid", C.INVALID_INPUT),
    (422, "email_exists", C.INVALID_INPUT),  # a conflict with an account that is there
    (404, "user_not_found", C.NOT_FOUND),
    (429, "over_request_rate_limit", C.RATE_LIMITED),
    (429, "over_email_send_rate_limit", C.RATE_LIMITED),
])
def test_refused_with_a_code(upstream: HttpUpstream, status: int, code: str, failure_class: C) -> None:
    body = json.dumps({"code": code, "message": "the server said no"})
    exc = raised(_sign_in(upstream.scripted(status, body, _VERSIONED)))
    assert type(exc) is AuthApiError and exc.status == status and exc.code == code
    check(exc, failure_class, False)


def test_legacy_error_code(upstream: HttpUpstream) -> None:
    # a server before API version 2024-01-01: the code in error_code, the status in code
    body = json.dumps({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
    exc = raised(_sign_in(upstream.scripted(400, body)))
    assert type(exc) is AuthApiError and exc.code == "invalid_credentials"
    check(exc, C.PERMISSION_DENIED, False)


def test_weak_password(upstream: HttpUpstream) -> None:
    body = json.dumps({"code": "weak_password", "message": "Password should be at least 12 characters.",
                       "weak_password": {"reasons": ["length"]}})
    exc = raised(_sign_in(upstream.scripted(422, body, _VERSIONED)))
    assert type(exc) is AuthWeakPasswordError
    check(exc, C.INVALID_INPUT, False)


def test_admin_lookup_finds_nobody(upstream: HttpUpstream) -> None:
    exc = raised(_get_user(upstream.scripted(404, json.dumps({"code": "user_not_found", "message": "User not found"}),
                                             _VERSIONED)))
    assert type(exc) is AuthApiError
    check(exc, C.NOT_FOUND, False)


@pytest.mark.parametrize(("status", "side_effect"), [(500, True), (502, True), (503, False), (504, True)])
def test_server_failed(upstream: HttpUpstream, status: int, side_effect: bool) -> None:
    code = "unexpected_failure" if status == 500 else "request_timeout"
    exc = raised(_sign_in(upstream.scripted(status, json.dumps({"code": code, "message": "the server said no"}),
                                            _VERSIONED)))
    assert isinstance(exc, (AuthApiError, AuthRetryableError))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_connection(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_sign_in(upstream.failing(where)))
    assert type(exc) is AuthRetryableError and exc.status == 0
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_answer_times_out(upstream: HttpUpstream) -> None:
    exc = raised(_sign_in(upstream.failing("stall"), timeout=0.5))
    assert type(exc) is AuthRetryableError
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
