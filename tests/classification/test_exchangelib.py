"""exchangelib (Exchange Web Services: a mail or calendar tool over Exchange or Microsoft 365) against real HTTP
servers on 127.0.0.1.

exchangelib reraises a transport failure as its ``ErrorTimeoutExpired`` ("Reraised from ConnectionError(…)", the
requests error as its cause), and reads an answer that closes the connection (``Connection: close``) as the server
throttling it: its ``ErrorServerBusy``, EWS's code for "the server is busy", back off and retry
(https://learn.microsoft.com/exchange/client-developer/exchange-web-services/ews-throttling-in-exchange).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

exchangelib = pytest.importorskip("exchangelib")

from exchangelib.protocol import BaseProtocol  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


@pytest.fixture(autouse=True)
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BaseProtocol, "TIMEOUT", 1)


def _first_message(url: str) -> Callable[[], Any]:
    def run() -> None:
        config = exchangelib.Configuration(
            service_endpoint=url + "/EWS/Exchange.asmx", credentials=exchangelib.Credentials("tool@corp.test", "pw"),
            auth_type=exchangelib.BASIC, version=exchangelib.Version(build=exchangelib.Build(15, 1)))
        account = exchangelib.Account("tool@corp.test", config=config, autodiscover=False,
                                      access_type=exchangelib.DELEGATE)
        list(account.inbox.all()[:1])
    return run


@pytest.mark.parametrize(("where", "side_effect"), [
    ("refused", False), ("unresolvable", False), ("stall", True), ("drop", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    exc = raised(_first_message(upstream.failing(where)))
    assert type(exc) is exchangelib.errors.ErrorTimeoutExpired
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_server_busy(upstream: HttpUpstream) -> None:
    exc = raised(_first_message(upstream.scripted(503, "busy", {"Content-Type": "text/plain"})))
    assert type(exc) is exchangelib.errors.ErrorServerBusy
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
