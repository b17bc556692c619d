"""PyJWT's ``PyJWKClient`` (a tool verifying a caller's token fetches its issuer's JWKS) against real HTTP servers on
127.0.0.1.

It fetches with urllib and reraises every ``URLError`` (an error status included) and timeout as
``PyJWKClientConnectionError('Fail to fetch data from the url, err: "…"')``, ``from`` the original; a JWKS without
keys is its ``PyJWKSetError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

jwt = pytest.importorskip("jwt")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener  # noqa: E402

TOKEN = jwt.encode({"sub": "tool"}, "k" * 32, algorithm="HS256", headers={"kid": "key-1"})


def _signing_key(url: str) -> Callable[[], Any]:
    return lambda: jwt.PyJWKClient(url, timeout=1, cache_jwk_set=False).get_signing_key_from_jwt(TOKEN)


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (403, C.PERMISSION_DENIED, False),
    (404, C.NOT_FOUND, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool) -> None:
    exc = raised(_signing_key(upstream.scripted(status, "no") + "/jwks.json"))
    assert isinstance(exc, jwt.PyJWKClientConnectionError) and f"HTTP Error {status}" in str(exc)
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_signing_key(upstream.failing(where) + "/jwks.json"))
    assert isinstance(exc, jwt.PyJWKClientConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_reset_after_the_request(upstream: HttpUpstream) -> None:
    # PyJWKClient catches URLError and TimeoutError only: the reset comes through as the builtin
    exc = raised(_signing_key(upstream.failing("drop") + "/jwks.json"))
    assert isinstance(exc, ConnectionResetError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_closed_after_the_request() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_signing_key(f"http://{HOST}:{port}/jwks.json"))
    assert isinstance(exc, jwt.PyJWKClientConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_tls_to_a_plain_server(upstream: HttpUpstream) -> None:
    exc = raised(_signing_key(f"https://{HOST}:{upstream.port}/jwks.json"))
    assert isinstance(exc, jwt.PyJWKClientConnectionError) and "SSL" in str(exc)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_answer_that_is_no_json(upstream: HttpUpstream) -> None:
    # json.load(response) inside the client: the JWKS endpoint's own answer, a page that is no JWK Set
    exc = raised(_signing_key(upstream.scripted(200, "<html>sign in</html>", {"Content-Type": "text/html"})))
    assert type(exc).__name__ == "JSONDecodeError"
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
