"""HTTP clients a tool drives whose errors keep the status, or only its text, in their own shapes, against real sockets
on 127.0.0.1: pyTelegramBotAPI (telebot), Pusher Channels' server library (pusher), python-socketio's client (over
python-engineio and requests) and pywinrm (WinRM, over requests).

- telebot's ``ApiTelegramException`` keeps the requests ``Response`` as ``result`` and the body's ``error_code``.
- pusher raises one class per status (``PusherBadRequest``, ``PusherBadAuth``, ``PusherForbidden``) and
  ``PusherBadStatus("503: <body>")`` for the rest: the status in its text only, no headers.
- python-engineio swallows the requests failure and raises ``ConnectionError`` with its text only (no chain), and
  ``ConnectionError("Unexpected status code 503 in server response")`` for a status on the handshake.
- pywinrm raises ``InvalidCredentialsError`` on a 401 and ``WinRMTransportError`` with the status as ``code`` for the
  rest (the body is a SOAP fault only when the server is WinRM); no headers kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import HTTP_STATUSES, check, raised
from tests.classification.upstreams import HOST, answering, closed_port, closing_listener, silent_listener

STATUSES = [*HTTP_STATUSES, (409, None, C.INVALID_INPUT, False, None)]


def _telebot(port: int) -> Callable[[], Any]:
    telebot = pytest.importorskip("telebot")
    apihelper = telebot.apihelper
    apihelper.API_URL = f"http://{HOST}:{port}/bot{{0}}/{{1}}"  # https://api.telegram.org/bot{0}/{1} by default
    apihelper.CONNECT_TIMEOUT, apihelper.READ_TIMEOUT = 1, 1
    bot = telebot.TeleBot("123456:token", threaded=False)
    return lambda: bot.send_message(4242, "refund 17 sent")


def _pusher(port: int) -> Callable[[], Any]:
    pusher = pytest.importorskip("pusher")
    client = pusher.Pusher(app_id="1", key="key", secret="secret", host=HOST, port=port, ssl=False, timeout=1)
    return lambda: client.trigger("orders", "refunded", {"order": 17})


def _socketio(port: int) -> Callable[[], Any]:
    socketio = pytest.importorskip("socketio")
    client = socketio.Client(reconnection=False, request_timeout=1)
    return lambda: client.connect(f"http://{HOST}:{port}", wait_timeout=1, transports=["polling"])


def _winrm(port: int) -> Callable[[], Any]:
    protocol = pytest.importorskip("winrm.protocol")
    winrm = protocol.Protocol(f"http://{HOST}:{port}/wsman", transport="basic", username="admin", password="secret",
                              operation_timeout_sec=1, read_timeout_sec=2)
    return winrm.open_shell


CALLS = {"telebot": _telebot, "pusher": _pusher, "socketio": _socketio, "winrm": _winrm}
KEEPS_HEADERS = {"telebot"}
CONNECTING = {"socketio"}  # its connect() is the handshake: a failure there comes before any event the tool emits


def _body(api: str, status: int) -> str:
    if api == "telebot":  # the Bot API's error shape (https://core.telegram.org/bots/api#making-requests)
        return json.dumps({"ok": False, "error_code": status, "description": "Bad Request: chat not found"
                           if status == 400 else "Telegram said no"})
    return json.dumps({"error": "upstream said no"})


@pytest.mark.parametrize("api", list(CALLS))
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_status(api: str, status: int, retry_after: str | None, failure_class: C, side_effect: bool,
                wait: float | None) -> None:
    with answering(status, _body(api, status), {"Retry-After": retry_after} if retry_after else {}) as port:
        exc = raised(CALLS[api](port))
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == (wait if api in KEEPS_HEADERS else None)


@pytest.mark.parametrize("api", list(CALLS))
def test_refused(api: str) -> None:
    check(raised(CALLS[api](closed_port())), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("api", list(CALLS))
def test_closed_after_the_request(api: str) -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(CALLS[api](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, api not in CONNECTING)


@pytest.mark.parametrize("api", list(CALLS))
def test_no_answer(api: str) -> None:
    with silent_listener() as port:
        exc = raised(CALLS[api](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, api not in CONNECTING)


def test_engineio_keeps_only_the_text() -> None:
    """The case the text reading exists for: no chain below engineio's error, no attribute, only the words."""
    exc = raised(_socketio(closed_port()))
    assert [type(e).__name__ for e in (exc, exc.__context__)] == ["ConnectionError", "ConnectionError"]
    assert exc.__context__.__context__ is None and not vars(exc)  # type: ignore[union-attr]
    assert "Connection refused" in str(exc)


def test_winrm_answer_that_is_not_xml() -> None:
    """A 200 whose body is not WS-Management XML (a proxy's page): ElementTree's ParseError over bytes pywinrm
    already read, with no response object on the stack."""
    with answering(200, "<html>portal</html>x", {"Content-Type": "text/html"}) as port:
        exc = raised(_winrm(port))
    check(exc, C.UPSTREAM_UNAVAILABLE, None)
