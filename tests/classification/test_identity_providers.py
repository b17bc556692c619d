"""Identity providers' SDKs against real HTTP servers on 127.0.0.1: python-keycloak (over requests) and
auth0-python's Authentication API client (over requests).

A token endpoint refuses a grant with an OAuth error document (RFC 6749 §5.2: ``error``, ``error_description``),
mostly as a 400 or 401: the code, not the status, says the credential was refused (``invalid_grant``). python-keycloak
keeps the raw body as ``response_body`` (bytes) beside ``response_code``; auth0-python's ``Auth0Error`` keeps
``status_code`` and the parsed ``error`` as ``error_code``, its ``RateLimitError`` the ``x-ratelimit-reset`` time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

keycloak = pytest.importorskip("keycloak")
auth0_authentication = pytest.importorskip("auth0.authentication")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import UNRESOLVABLE, answering, closed_port, closing_listener, silent_listener  # noqa: E402

JSON = {"Content-Type": "application/json"}


def _keycloak_token(url: str) -> Callable[[], Any]:
    client = keycloak.KeycloakOpenID(server_url=url, realm_name="shop", client_id="refunds-tool",
                                     client_secret_key="s3cret", timeout=1)
    return lambda: client.token("agent", "wrong-password")


def _keycloak_admin_user(url: str) -> Callable[[], Any]:
    # the admin API with a token already in hand: GET /admin/realms/shop/users/17
    admin = keycloak.KeycloakAdmin(server_url=url, realm_name="shop", token={"access_token": "tok", "expires_in": 300},
                                   timeout=1)
    return lambda: admin.get_user("17")


def _auth0_token(url: str) -> Callable[[], Any]:
    client = auth0_authentication.GetToken(url.split("//", 1)[1], "refunds-tool", client_secret="s3cret",
                                           protocol="http", timeout=1)
    return lambda: client.client_credentials(audience="https://api.shop.example")


TOKEN_CALLS = [pytest.param(_keycloak_token, id="keycloak"), pytest.param(_auth0_token, id="auth0")]


@pytest.mark.parametrize("call", TOKEN_CALLS)
@pytest.mark.parametrize(("status", "code", "failure_class"), [
    (401, "invalid_client", C.PERMISSION_DENIED),
    (401, "unauthorized_client", C.PERMISSION_DENIED),
    (400, "invalid_grant", C.PERMISSION_DENIED),  # Keycloak's "Invalid user credentials", "Account disabled"
    (403, "access_denied", C.PERMISSION_DENIED),
    (400, "invalid_scope", C.PERMISSION_DENIED),
    (400, "unsupported_grant_type", C.UNKNOWN),  # the tool's own request: no argument of the caller's is wrong
    (400, "invalid_request", C.UNKNOWN),
])
def test_token_refused(call: Callable[[str], Callable[[], Any]], status: int, code: str, failure_class: C) -> None:
    body = json.dumps({"error": code, "error_description": "Invalid user credentials"})
    with answering(status, body, JSON) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    assert type(exc).__module__ in ("keycloak.exceptions", "auth0.authentication.exceptions")
    result = check(exc, failure_class, False)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("oauth", code)


@pytest.mark.parametrize("call", [*TOKEN_CALLS, pytest.param(_keycloak_admin_user, id="keycloak_admin")])
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (400, C.INVALID_INPUT, False),
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),
    (404, C.NOT_FOUND, False),  # a realm or user that is not there
    (409, C.INVALID_INPUT, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(call: Callable[[str], Callable[[], Any]], status: int, failure_class: C, side_effect: bool) -> None:
    # an answer with no OAuth error in it (a proxy's page, an admin API's {"errorMessage": ...}): the status decides
    body = json.dumps({"errorMessage": "Request refused", "message": "Request refused"})
    with answering(status, body, JSON) as port:
        exc = raised(call(f"http://127.0.0.1:{port}"))
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


def test_auth0_rate_limited_keeps_its_reset() -> None:
    with answering(429, json.dumps({"error": "too_many_requests", "error_description": "Global limit"}),
                   {**JSON, "Retry-After": "7", "x-ratelimit-reset": "4102444800"}) as port:
        exc = raised(_auth0_token(f"http://127.0.0.1:{port}"))
    assert type(exc).__name__ == "RateLimitError" and exc.reset_at == 4102444800
    assert check(exc, C.RATE_LIMITED, False).retry_after == 7.0


@pytest.mark.parametrize("call", TOKEN_CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("silent", True), ("closing", True)])
def test_transport(call: Callable[[str], Callable[[], Any]], where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(call(f"http://127.0.0.1:{closed_port()}"))
    elif where == "unresolvable":
        exc = raised(call(f"http://{UNRESOLVABLE}:8080"))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(call(f"http://127.0.0.1:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
