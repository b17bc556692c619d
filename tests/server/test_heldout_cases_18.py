"""Server side of tests/heldout_cases.md, eighteenth round (J346): smtplib against a real SMTP server on 127.0.0.1
(aiosmtpd) that limits the sender: Gmail's "550 5.4.5 Daily user sending limit exceeded" and "454 4.7.0 Too many login
attempts".

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process.
"""

from __future__ import annotations

import smtplib
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, answering
from tests.server.test_heldout_cases import everything_recorded, serving
from tests.server.test_heldout_cases_6 import failed_text

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
LIMITS = {
    "daily": "550 5.4.5 Daily user sending limit exceeded. For more information on Gmail sending limits go to "
             "https://support.google.com/a/answer/166852 - gsmtp",
    "logins": "454 4.7.0 Too many login attempts, please try again later. - gsmtp",
}


class _Limiting:
    async def handle_MAIL(  # noqa: N802 - aiosmtpd's hook names
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        local = address.split("@")[0]
        if local in LIMITS:
            return LIMITS[local]
        envelope.mail_from = address
        return "250 OK"


@pytest.fixture(scope="module")
def smtp_port() -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = int(probe.getsockname()[1])
    controller = Controller(_Limiting(), hostname=HOST, port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


@pytest.mark.parametrize("limit", sorted(LIMITS))
@pytest.mark.parametrize("style", STYLES)
async def test_j346_a_mail_server_limiting_the_sender(style: str, limit: str, smtp_port: int,
                                                      telemetry: CapturedTelemetry) -> None:
    """J346 (J339 on the Python side: Gmail's "550-5.4.5 Daily user sending limit exceeded" and "454 4.7.0 Too many login
    attempts, please try again later", which email MCP servers meet through smtplib). ``SMTPSenderRefused`` carries the
    reply: the 550 is no unknown mailbox (its enhanced code 5.4.5 and its words say the sender is limited) and the 454 no
    mere transient fault: both ``rate_limited``, nothing sent (side effect false)."""

    async def send_mail(to: str, body: str) -> str:
        """Send a plain-text email."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = f"{limit}@example.test", to, "Report"
        message.set_content(body)
        with smtplib.SMTP(HOST, smtp_port, timeout=5) as client:
            client.send_message(message)
        return "sent"

    async with serving(style, "legacy", telemetry, send_mail) as served:
        result = await served.call("send_mail", {"to": "ops@example.test", "body": "weekly"})
    assert "ERR-" in failed_text(result), result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "rate_limited", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


# --- J349: OpenWeatherMap's key in the URL requests prints ----------------------------------------------------------

APPID = "9f1c2e8a7b6d5c4e3f2a1b0c9d8e7f6a"


@pytest.mark.parametrize("style", STYLES)
async def test_j349_openweathermap_s_appid_in_the_url_requests_prints(style: str, telemetry: CapturedTelemetry) -> None:
    """J349 (UFAL-DSG/alex PR #179: OpenWeatherMap's key "added into the requests" and kept out of the logs;
    nomadcoders/fokin-weather #4 and HaringeyMobile/World-Weather #10: the key is the ``appid``/``APPID`` query parameter).
    A weather tool's ``requests.get(...).raise_for_status()`` on a 401 raises ``HTTPError("401 Client Error: Unauthorized
    for url: http://…/data/2.5/weather?q=Paris&appid=<key>")``. The key never reaches the model, a span or a log record;
    the class is ``permission_denied`` (the operator's key)."""
    import requests

    with answering(401, b'{"cod":401, "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 '
                        b'for more info."}', {"content-type": "application/json"}) as port:

        async def current_weather(city: str) -> str:
            """The current weather in a city."""
            answer = requests.get(f"http://{HOST}:{port}/data/2.5/weather",
                                  params={"q": city, "units": "metric", "appid": APPID}, timeout=5)
            answer.raise_for_status()
            return str(answer.json()["main"]["temp"])

        async with serving(style, "legacy", telemetry, current_weather) as served:
            result = await served.call("current_weather", {"city": "Paris"})
    text = failed_text(result)
    assert "ERR-" in text and APPID not in text, text
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(span.attributes)
    assert APPID not in everything_recorded(telemetry)
