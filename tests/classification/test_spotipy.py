"""spotipy (the Spotify Web API's client, over requests) against a real HTTP server on 127.0.0.1.

The server answers in the Web API's error shape (``{"error": {"status", "message", "reason"}}``). spotipy raises
``SpotifyException`` with ``http_status``, ``reason`` and the answer's ``headers`` (``Retry-After`` on a 429). Its
session retries the statuses in ``status_forcelist`` (429, 500, 502, 503, 504 by default) through urllib3's
``Retry``; once those are spent it raises ``SpotifyException(429, ...)`` over requests' ``RetryError`` whatever the
status was, with urllib3's ``ResponseError`` as its ``reason`` and no headers. A dead peer is requests' own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import spotipy

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5
TRACK = "4iV5W9uYEdYUVa79Axb7Rh"


RETRY_SERVER_ERRORS = (500, 502, 503, 504)
RETRY_RATE_LIMITS = (429,)


def _client(base: str, timeout: float, retried: tuple[int, ...] | None) -> spotipy.Spotify:
    # retried: the statuses the session retries (spotipy's default when None); each such status, once its retries
    # are spent (none here: status_retries=0), comes back as a 429; any other as it came
    options: dict[str, Any] = {} if retried is None else {"status_forcelist": retried}
    client = spotipy.Spotify(auth="BQD-test", requests_timeout=timeout, retries=0, status_retries=0, **options)
    client.prefix = f"{base}/v1/"
    return client


def _track(base: str, timeout: float = 5, retried: tuple[int, ...] | None = None) -> Callable[[], Any]:
    client = _client(base, timeout, retried)
    return lambda: client.track(TRACK)


def _add_to_queue(base: str, timeout: float = 5, retried: tuple[int, ...] | None = None) -> Callable[[], Any]:
    client = _client(base, timeout, retried)
    return lambda: client.add_to_queue(f"spotify:track:{TRACK}")


def _error(status: int, reason: str | None = None) -> str:
    return json.dumps({"error": {"status": status, "message": "the Web API said no",
                                 **({"reason": reason} if reason else {})}})


@pytest.mark.parametrize("call", [pytest.param(_track, id="track"), pytest.param(_add_to_queue, id="add_to_queue")])
@pytest.mark.parametrize(("status", "reason", "headers", "failure_class", "side_effect", "wait"), [
    (400, None, {}, C.INVALID_INPUT, False, None),
    (401, None, {}, C.PERMISSION_DENIED, False, None),
    (403, None, {}, C.PERMISSION_DENIED, False, None),
    # the player endpoints' 403 for an account without Premium (the Web API's "Player error reasons")
    (403, "PREMIUM_REQUIRED", {}, C.PERMISSION_DENIED, False, None),
    (404, None, {}, C.NOT_FOUND, False, None),
    (404, "NO_ACTIVE_DEVICE", {}, C.NOT_FOUND, False, None),
    (429, None, {"Retry-After": "7"}, C.RATE_LIMITED, False, 7.0),
    (500, None, {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (502, None, {}, C.UPSTREAM_UNAVAILABLE, True, None),
    (503, None, {}, C.UPSTREAM_UNAVAILABLE, False, None),
    (503, None, {"Retry-After": "30"}, C.UPSTREAM_UNAVAILABLE, False, 30.0),
])
def test_api_error(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int, reason: str | None,
                   headers: dict[str, str], failure_class: C, side_effect: bool, wait: float | None) -> None:
    # the status comes back as it came when the session does not retry it
    retried = RETRY_SERVER_ERRORS if status == 429 else RETRY_RATE_LIMITS
    exc = raised(call(upstream.scripted(status, _error(status, reason), headers), retried=retried))
    assert isinstance(exc, spotipy.SpotifyException) and exc.http_status == status and exc.reason == reason
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == wait
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (502, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
    (504, C.UPSTREAM_UNAVAILABLE, True),
])
def test_status_retries_spent(upstream: HttpUpstream, status: int, failure_class: C, side_effect: bool) -> None:
    # spotipy's default session: the transient statuses are retried, then reported as 429 whatever they were
    exc = raised(_track(upstream.scripted(status, _error(status))))
    assert isinstance(exc, spotipy.SpotifyException) and exc.http_status == 429
    check(exc, failure_class, side_effect)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_track(upstream.failing(where), SHORT))
    assert not isinstance(exc, spotipy.SpotifyException)  # requests' own, raised as is
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
