"""Server side of tests/heldout_cases.md, nineteenth round (J353-J356): credentials in the places an HTTP library's own
exception prints them: an API key with a stray newline in an ``Authorization`` header httpx and requests refuse to send,
a Telegram bot token in a URL's path, a key in a query parameter whose name does not say "key" the usual way (the
BLS's ``registrationkey``, Plex's ``X-Plex-Token``), an S3 presigned URL's credential, signature and session token, a
password's tail a driver prints as the host name it could not resolve.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process; the tools call
real libraries against sockets on 127.0.0.1 (a closed port, or a server answering).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests
from errscope._attributes import ERRSCOPE_FAILURE_CLASS, ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, answering, closed_port
from tests.server.test_heldout_cases import everything_recorded, serving
from tests.server.test_heldout_cases_6 import failed_text

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


def nowhere_to_be_seen(secret: str, served: Any, result: Any, telemetry: CapturedTelemetry) -> None:
    """``secret`` is in neither the model's text nor anything recorded (spans, events, log records)."""
    text = failed_text(result)
    assert "ERR-" in text and secret not in text, text
    recorded = everything_recorded(telemetry)
    at = recorded.find(secret)
    assert at < 0, recorded[max(0, at - 300): at + 100]


# --- J353: an API key with a stray newline ----------------------------------------------------------------------------

KEY_WITH_NEWLINE = "sk-proj-FAKE9f1c2e8a7b6d5c4e3f2a1b0c9d8e7f6a5b4c"


@pytest.mark.parametrize("library", ["httpx", "requests"])
@pytest.mark.parametrize("style", STYLES)
async def test_j353_a_key_with_a_trailing_newline_is_refused_before_sending(
    style: str, library: str, telemetry: CapturedTelemetry
) -> None:
    """J353 (openai/openai-python #961, langchain-ai/langchain #21261, run-llama/llama_index #9176,
    Zero6992/chatGPT-discord-bot #422: ``httpx.LocalProtocolError: Illegal header value b'Bearer '`` when the key is
    empty, and the same error quoting the whole key when it was read from a file or a secret with its trailing newline;
    requests' ``InvalidHeader`` "Invalid leading whitespace, reserved character(s), or return character(s) in header
    value"). The HTTP library refuses to send the header and prints its value in the exception: the key appears nowhere
    (model text, span, log record); nothing was sent (side effect false); the operator's credential is broken, which the
    model cannot fix (``permission_denied``, not ``unknown``)."""
    with answering(200, b'{"choices": []}', {"content-type": "application/json"}) as port:

        async def ask_model(prompt: str) -> str:
            """Ask the completion API."""
            headers = {"Authorization": f"Bearer {KEY_WITH_NEWLINE}\n"}
            url = f"http://{HOST}:{port}/v1/chat/completions"
            if library == "httpx":  # connects, then h11 refuses the header before writing the request
                async with httpx.AsyncClient() as http:
                    answer = await http.post(url, headers=headers, json={"prompt": prompt})
            else:  # requests checks its headers before connecting
                answer = requests.post(url, headers=headers, json={"prompt": prompt}, timeout=5)
            return answer.text

        async with serving(style, "legacy", telemetry, ask_model) as served:
            result = await served.call("ask_model", {"prompt": "hello"})
    nowhere_to_be_seen(KEY_WITH_NEWLINE, served, result, telemetry)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


# --- J354: a Telegram bot token in the URL's path ---------------------------------------------------------------------

BOT_TOKEN = "7123456789:AAFAKEq1w2e3r4t5y6u7i8o9p0asdfghjkl"


@pytest.mark.parametrize("library", ["httpx", "requests"])
@pytest.mark.parametrize("style", STYLES)
async def test_j354_a_bot_token_in_the_url_path(style: str, library: str, telemetry: CapturedTelemetry) -> None:
    """J354 (eternnoir/pyTelegramBotAPI #2227: "an unmasked token for the bot will be printed" when the connection to the
    Telegram API fails; n24q02m/better-telegram-mcp PR #960: ``httpx`` exceptions embed ``https://api.telegram.org/
    bot<TOKEN>/...`` and a Telegram MCP server raised them as its error; Tracer-Cloud/opensre #6048). A Telegram tool's
    request to a refused port: urllib3's "Max retries exceeded with url: /bot<token>/sendMessage" and httpx's request
    repr carry the token in the path. It appears nowhere; the class is ``upstream_unavailable``, nothing sent."""
    port = closed_port()

    async def send_message(chat_id: str, text: str) -> str:
        """Send a Telegram message."""
        url = f"http://{HOST}:{port}/bot{BOT_TOKEN}/sendMessage"
        if library == "httpx":
            async with httpx.AsyncClient() as http:
                answer = await http.post(url, json={"chat_id": chat_id, "text": text})
        else:
            answer = requests.post(url, json={"chat_id": chat_id, "text": text}, timeout=5)
        return answer.text

    async with serving(style, "legacy", telemetry, send_message) as served:
        result = await served.call("send_message", {"chat_id": "4711", "text": "deploy done"})
    nowhere_to_be_seen(BOT_TOKEN.split(":", 1)[1], served, result, telemetry)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


# --- J355: keys in query parameters -----------------------------------------------------------------------------------

REGISTRATION_KEY = "FAKE7c1e9d2b4a6f8e0c3b5d7a9f1e2c4b"
PLEX_TOKEN = "FAKEa1B2c3D4e5F6g7H8"
AMZ_CREDENTIAL = "AKIAFAKE1234567890AB"
AMZ_SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924aFAKE00"
AMZ_TOKEN = "IQoJb3JpZ2luX2VjEFAKEaCXVzLWVhc3QtMSJHMEUCIQDfake1234567890abcdefXYZ"

QUERIES = {
    # OpenBB-finance/OpenBB #6662: the BLS API key, its ``registrationkey`` parameter, in the error shown
    "bls": ({"registrationkey": REGISTRATION_KEY, "catalog": "true"}, [REGISTRATION_KEY], 401),
    # Kometa-Team/Kometa #3472: a Plex request URL with ``X-Plex-Token`` in a 500's error, sent to Discord
    "plex": ({"X-Plex-Token": PLEX_TOKEN}, [PLEX_TOKEN], 401),
    # open-telemetry/opentelemetry-java-instrumentation PR #19422, aws-observability PRs #514/#840: an S3 presigned
    # URL's X-Amz-Credential, X-Amz-Signature and X-Amz-Security-Token
    "s3": ({"X-Amz-Algorithm": "AWS4-HMAC-SHA256",
            "X-Amz-Credential": f"{AMZ_CREDENTIAL}/20250101/us-east-1/s3/aws4_request",
            "X-Amz-Date": "20250101T000000Z", "X-Amz-Expires": "3600", "X-Amz-SignedHeaders": "host",
            "X-Amz-Signature": AMZ_SIGNATURE, "X-Amz-Security-Token": AMZ_TOKEN},
           [AMZ_CREDENTIAL, AMZ_SIGNATURE, AMZ_TOKEN], 403),
}


@pytest.mark.parametrize("service", sorted(QUERIES))
@pytest.mark.parametrize("style", STYLES)
async def test_j355_keys_in_query_parameters(style: str, service: str, telemetry: CapturedTelemetry) -> None:
    """J355. ``requests``' ``raise_for_status()`` prints the whole URL ("401 Client Error: Unauthorized for url:
    http://…?registrationkey=…"). A query parameter named for a credential (``…key``, ``…Token``, AWS SigV4's
    credential, signature and session token) keeps its name and loses its value, everywhere; the refusal is
    ``permission_denied``."""
    params, secrets, status = QUERIES[service]
    with answering(status, b'{"error": "refused"}', {"content-type": "application/json"}) as port:

        async def fetch_series(series: str) -> str:
            """Fetch a data series."""
            answer = requests.get(f"http://{HOST}:{port}/data/{series}", params=params, timeout=5)
            answer.raise_for_status()
            return answer.text

        async with serving(style, "legacy", telemetry, fetch_series) as served:
            result = await served.call("fetch_series", {"series": "CUUR0000SA0"})
    for secret in secrets:
        nowhere_to_be_seen(secret, served, result, telemetry)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(span.attributes)


# --- J356: a password's tail printed as the host name -----------------------------------------------------------------

PASSWORD_TAIL = "Tail9FAKEx7q"
DB_URL = f"postgresql://app:Sup3rFAKE@{PASSWORD_TAIL}@{HOST}:5432/orders"


def _psycopg2() -> None:
    import psycopg2

    psycopg2.connect(DB_URL, connect_timeout=3)


def _psycopg() -> None:
    import psycopg

    psycopg.connect(DB_URL, connect_timeout=3)


def _pymysql() -> None:
    import pymysql

    # PyMySQL takes the host apart; a URL helper split at the first ``@`` hands it the password's tail with the host
    pymysql.connect(host=f"{PASSWORD_TAIL}@{HOST}", user="app", password="Sup3rFAKE", connect_timeout=3)


DRIVERS = {"psycopg2": _psycopg2, "psycopg": _psycopg, "pymysql": _pymysql}


@pytest.mark.parametrize("driver", sorted(DRIVERS))
@pytest.mark.parametrize("style", STYLES)
async def test_j356_a_password_s_tail_printed_as_the_host_name(style: str, driver: str,
                                                              telemetry: CapturedTelemetry) -> None:
    """J356 (hjlarry/dify-plugin-database #4: a database tool's ``(psycopg2.OperationalError) could not translate host name
    "u1tpwd@…" to address``; NeptuneHub/AudioMuse-AI #128 "ssword@hostname.local", fkie-cad/FACT_core #958 "r1@localhost",
    PostgREST/postgrest #2658, kamailio/kamailio #169: MySQL's "Unknown MySQL server host '#sip@localhost'"). A password
    holding an unencoded ``@`` is cut at it, and the driver prints the password's rest as the host it could not resolve:
    libpq's, psycopg 3's and PyMySQL's real errors for such a URL. The tail appears nowhere; the host stays readable;
    the class is ``upstream_unavailable`` (the name never resolved: nothing sent)."""
    connect = DRIVERS[driver]

    async def query_orders(sql: str) -> str:
        """Run a read-only query."""
        connect()
        return "ok"

    async with serving(style, "legacy", telemetry, query_orders) as served:
        result = await served.call("query_orders", {"sql": "select 1"})
    nowhere_to_be_seen(PASSWORD_TAIL, served, result, telemetry)
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
