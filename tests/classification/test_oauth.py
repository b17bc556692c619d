"""OAuth 2.0 clients against a real token endpoint on 127.0.0.1 that refuses the grant the way
RFC 6749 §5.2 says (a JSON body ``{"error": "invalid_grant", ...}``, HTTP 400 or 401), RFC 8628 §3.5
(``slow_down``) and §4.1.2.1 (``temporarily_unavailable``, ``server_error``): Authlib's httpx and
requests clients, requests-oauthlib (oauthlib's error classes) and google-auth's refresh.

The OAuth error code decides, not the HTTP status: ``invalid_grant`` comes with a 400, yet the
model's arguments were fine (the tool's refresh token expired or was revoked).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import google.auth.transport.requests
import google.oauth2.credentials
import pytest
from authlib.integrations.httpx_client import OAuth2Client
from authlib.integrations.requests_client import OAuth2Session as AuthlibSession
from requests_oauthlib import OAuth2Session

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _authlib_httpx(token_url: str) -> Callable[[], Any]:
    client = OAuth2Client("client-id", "client-secret")
    return lambda: client.fetch_token(token_url, grant_type="client_credentials")


def _authlib_requests(token_url: str) -> Callable[[], Any]:
    client = AuthlibSession("client-id", "client-secret")
    return lambda: client.fetch_token(token_url, grant_type="client_credentials")


def _requests_oauthlib(token_url: str) -> Callable[[], Any]:
    session = OAuth2Session("client-id", token={"access_token": "a", "refresh_token": "r", "token_type": "Bearer"})
    return lambda: session.refresh_token(token_url, client_id="client-id", client_secret="client-secret")


def _google_auth(token_url: str) -> Callable[[], Any]:
    credentials = google.oauth2.credentials.Credentials(
        token=None, refresh_token="r", token_uri=token_url, client_id="client-id", client_secret="client-secret")
    return lambda: credentials.refresh(google.auth.transport.requests.Request())


CLIENTS = [
    pytest.param(_authlib_httpx, id="authlib-httpx"),
    pytest.param(_authlib_requests, id="authlib-requests"),
    pytest.param(_requests_oauthlib, id="requests-oauthlib"),
    pytest.param(_google_auth, id="google-auth"),
]


@pytest.fixture(autouse=True)
def _plain_http_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    # oauthlib refuses http:// token URLs unless told (its InsecureTransportError has a case of its own below)
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")


REFUSALS = [
    (400, "invalid_grant", C.PERMISSION_DENIED, False),  # the refresh token expired or was revoked
    (401, "invalid_client", C.PERMISSION_DENIED, False),  # the client's own credentials were refused
    (400, "unauthorized_client", C.PERMISSION_DENIED, False),
    (400, "invalid_scope", C.PERMISSION_DENIED, False),  # more scope than the grant allows
    (400, "slow_down", C.RATE_LIMITED, False),  # RFC 8628 §3.5: poll less often
    (400, "unsupported_grant_type", C.UNKNOWN, False),  # the tool's configuration, not the caller's
    (503, "temporarily_unavailable", C.UPSTREAM_UNAVAILABLE, False),
    (500, "server_error", C.UPSTREAM_UNAVAILABLE, True),
]


# google-auth retries a 5xx itself with backoff (seconds of sleep): its refusals are the 4xx ones, and its
# 502 case below.
@pytest.mark.parametrize(("client", "status", "error", "failure_class", "side_effect"), [
    pytest.param(client.values[0], *case, id=f"{case[1]}-{client.id}")
    for client in CLIENTS for case in REFUSALS if not (client.values[0] is _google_auth and case[0] >= 500)
])
def test_token_endpoint_refuses(upstream: HttpUpstream, client: Callable[[str], Callable[[], Any]], status: int,
                                error: str, failure_class: C, side_effect: bool) -> None:
    body = json.dumps({"error": error, "error_description": "refused by the token endpoint"})
    exc = raised(client(upstream.scripted(status, body) + "/token"))
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize("client", CLIENTS)
def test_token_endpoint_refused_connection(client: Callable[[str], Callable[[], Any]]) -> None:
    exc = raised(client(f"http://{HOST}:{closed_port()}/token"))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_oauthlib_refuses_plain_http_before_sending(monkeypatch: pytest.MonkeyPatch, upstream: HttpUpstream) -> None:
    # oauthlib's InsecureTransportError carries its class default status_code 400: no server said it
    monkeypatch.delenv("OAUTHLIB_INSECURE_TRANSPORT")
    exc = raised(_requests_oauthlib(f"{upstream.url}/token"))
    assert type(exc).__name__ == "InsecureTransportError"
    check(exc, C.UNKNOWN, False)


def test_google_auth_refresh_on_a_non_json_5xx(upstream: HttpUpstream) -> None:
    exc = raised(_google_auth(upstream.scripted(502, "<html>bad gateway</html>", {"Content-Type": "text/html"})))
    assert type(exc) is google.auth.exceptions.RefreshError
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
