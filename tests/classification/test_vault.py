"""hvac, HashiCorp Vault's client, against a local upstream answering Vault's error format
(``{"errors": [...]}``) with each status."""

from __future__ import annotations

import json
from typing import Any

import hvac
import hvac.exceptions
import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

CASES = [
    # (status, Retry-After sent, class, side effect possible)
    (400, None, C.INVALID_INPUT, False),
    (401, None, C.PERMISSION_DENIED, False),
    (403, None, C.PERMISSION_DENIED, False),
    (404, None, C.NOT_FOUND, False),
    (429, "9", C.RATE_LIMITED, False),
    (500, None, C.UPSTREAM_UNAVAILABLE, True),
    (502, None, C.UPSTREAM_UNAVAILABLE, True),
    (503, "3", C.UPSTREAM_UNAVAILABLE, False),
]


def _vault(base_url: str) -> Any:
    client = hvac.Client(url=base_url, token="corpus-token", timeout=5)
    return client.secrets.kv.v2.read_secret_version(path="payments/api-key", raise_on_deleted_version=True)


class TestHvac:
    """hvac raises one class per status (InvalidRequest, Forbidden, InvalidPath, RateLimitExceeded,
    InternalServerError, VaultDown, ...), each carrying nothing but Vault's error strings: no status,
    no headers, so no ``Retry-After`` either."""

    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect"), CASES)
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                    side_effect: bool) -> None:
        headers = {"Retry-After": retry_after} if retry_after else {}
        url = upstream.scripted(status, json.dumps({"errors": ["upstream said no"]}), headers)
        exc = raised(lambda: _vault(url))
        assert isinstance(exc, hvac.exceptions.VaultError)
        assert check(exc, failure_class, side_effect).retry_after is None

    def test_connection_refused(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _vault(upstream.failing("refused")))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
