"""py-consul (HashiCorp Consul's HTTP API client, over requests) against real HTTP servers on 127.0.0.1.

Its callbacks raise ``BadRequest`` (400), ``ACLDisabled`` (401), ``ACLPermissionDenied`` (403), ``NotFound`` (404 where
one is not an empty answer), ``ClientError`` (other 4xx) and the base ``ConsulException`` (5xx); none keeps the status
or the response: the 400s, other 4xx and 5xx say it as their text's first word (f"{code} {body}").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

consul = pytest.importorskip("consul")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import answering, closed_port, closing_listener, silent_listener  # noqa: E402

TEXT = {"Content-Type": "text/plain; charset=utf-8", "X-Consul-Index": "17"}


def _kv_get(port: int) -> Callable[[], Any]:
    client = consul.Consul(host="127.0.0.1", port=port, token="acl-token", connections_timeout=1)
    return lambda: client.kv.get("refunds/17")


def _kv_put(port: int) -> Callable[[], Any]:
    client = consul.Consul(host="127.0.0.1", port=port, token="acl-token", connections_timeout=1)
    return lambda: client.kv.put("refunds/17", "done")


CALLS = [pytest.param(_kv_get, id="get"), pytest.param(_kv_put, id="put")]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "body", "exc_name", "failure_class", "side_effect"), [
    (400, "Request decode failed: invalid key", "BadRequest", C.INVALID_INPUT, False),
    (401, "ACL support disabled", "ACLDisabled", C.PERMISSION_DENIED, False),
    (403, "Permission denied: token with AccessorID '1' lacks permission 'key:write'", "ACLPermissionDenied",
     C.PERMISSION_DENIED, False),
    (409, "Conflict", "ClientError", C.INVALID_INPUT, False),
    (413, "Request body too large", "ClientError", C.INVALID_INPUT, False),  # a value over the KV limit (512 KiB)
    (429, "rate limit exceeded, try again later", "ClientError", C.RATE_LIMITED, False),  # the agent's rpc limit
    (500, "rpc error making call: No cluster leader", "ConsulException", C.UPSTREAM_UNAVAILABLE, True),
    (503, "No known Consul servers", "ConsulException", C.UPSTREAM_UNAVAILABLE, False),
])
def test_status(call: Callable[[int], Callable[[], Any]], status: int, body: str, exc_name: str, failure_class: C,
                side_effect: bool) -> None:
    with answering(status, body, TEXT) as port:
        exc = raised(call(port))
    assert type(exc).__module__ == "consul.exceptions" and type(exc).__name__ == exc_name
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_renewing_a_missing_session_is_not_found() -> None:
    # a key read answers 404 as "no such key" (None); renewing a session that expired raises NotFound
    with answering(404, "Session id '17' not found", TEXT) as port:
        exc = raised(lambda: consul.Consul(host="127.0.0.1", port=port, connections_timeout=1).session.renew("17"))
    assert type(exc).__name__ == "NotFound"
    check(exc, C.NOT_FOUND, False)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("silent", True), ("closing", True)])
def test_transport(call: Callable[[int], Callable[[], Any]], where: str, side_effect: bool) -> None:
    if where == "refused":
        exc = raised(call(closed_port()))
    elif where == "silent":
        with silent_listener() as port:
            exc = raised(call(port))
    else:
        with closing_listener(read_first=True) as port:
            exc = raised(call(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
