"""Server side of tests/heldout_cases.md, twenty-seventh round (J441-J449): real transport exceptions of the Python
libraries tools use, each raised for real against a peer on 127.0.0.1 that misbehaves at one point of the exchange:
an answer whose body does not decode by its Content-Encoding (httpx, httpx2, the OpenAI SDK over them), an error
event inside a streamed 200 (the OpenAI and Anthropic SDKs), an answer http.client cannot read (a header line past its
limit, more than 100 header fields), a TLS handshake with a peer that does not speak TLS, urllib3's bare
``ProtocolError`` for a POST it does not retry, aio-pika against a broker that answers another AMQP version, and
psycopg2 (alone and under SQLAlchemy) whose server closes during the startup exchange.

Each asserts the class, the side-effect fact (what the model reads: "may have happened, check before calling again",
or nothing of the kind), and ``errscope.upstream.*`` on the tool span. Real ``MCPServer`` and FastMCP servers with
``errscope.instrument``, the real SDK client in process.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from errscope._attributes import ERRSCOPE_UPSTREAM_ADDRESS, ERRSCOPE_UPSTREAM_STATUS, ERRSCOPE_UPSTREAM_SYSTEM
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, closed_port, per_connection, read_request as _read_request
from tests.server.test_heldout_cases_24 import facts, failed_call

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
TARGET: dict[str, Any] = {}
MAYBE_DONE = "The action may have happened: check whether it took effect before calling again."


def upstream_of(span: Any) -> tuple[Any, Any, Any]:
    """``errscope.upstream.system``, ``.status`` and ``.address`` of the tool span."""
    attributes = span.attributes
    return (attributes.get(ERRSCOPE_UPSTREAM_SYSTEM), attributes.get(ERRSCOPE_UPSTREAM_STATUS),
            attributes.get(ERRSCOPE_UPSTREAM_ADDRESS))


@contextmanager
def answering(reply: bytes, *, read_request: bool | str = True, reset: bool = False) -> Iterator[int]:
    """A TCP listener that reads an HTTP request (``read_request="once"``: one read, whatever it holds, such as a TLS
    ClientHello; false: nothing), writes ``reply`` and closes (with a reset when ``reset``)."""

    def handle(conn: socket.socket) -> None:
        with conn:
            if read_request == "once":
                conn.recv(65536)
            elif read_request:
                _read_request(conn)
            if reply:
                conn.sendall(reply)
            if reset:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")

    with per_connection(handle) as port:
        yield port


def http_answer(status: str, headers: dict[str, str], body: bytes) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in {**headers, "Content-Length": str(len(body))}.items())
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


NOT_GZIP = http_answer("200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip"}, b'{"id": "o-1"}')
NOT_DEFLATE = http_answer("200 OK", {"Content-Type": "application/json", "Content-Encoding": "deflate"}, b"\x00\x01xyz")


# --- J441: httpx's DecodingError for a body that does not decode -----------------------------------------------------

async def create_order_httpx(sku: str) -> str:
    """Create an order (httpx, as most SDKs use it)."""
    import httpx

    async with httpx.AsyncClient() as client:
        answer = await client.post(f"http://{HOST}:{TARGET['port']}/orders", json={"sku": sku})
    return answer.text


async def create_order_httpx2(sku: str) -> str:
    """Create an order (httpx2, the MCP SDK's HTTP stack)."""
    import httpx2

    async with httpx2.AsyncClient() as client:
        answer = await client.post(f"http://{HOST}:{TARGET['port']}/orders", json={"sku": sku})
    return answer.text


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [create_order_httpx, create_order_httpx2])
@pytest.mark.parametrize("reply", [NOT_GZIP, NOT_DEFLATE], ids=["gzip", "deflate"])
async def test_j441_body_that_does_not_decode(style: str, tool: Any, reply: bytes, telemetry: CapturedTelemetry) -> None:
    """J441 (encode/httpx #10: ``DecodingError`` for a gzip, deflate or brotli body that fails to decode;
    langgenius/dify #9275: "Received response with content-encoding: gzip, but failed to decode it. … Error -3 while
    decompressing data: incorrect header check" from an OpenAI-compatible provider). The server took the POST and
    answered 200 with a ``Content-Encoding`` its body does not have. httpx raises ``DecodingError`` from zlib's error;
    errscope read the zlib error as a file the call named that is not its format: ``invalid_input``, "fix the
    arguments" for an order that may have been created. Rule: an HTTP client's decoding error is the upstream's
    answer (as urllib3's ``DecodeError``): ``upstream_unavailable``, may have acted."""
    with answering(reply) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, tool, {"sku": "SKU-1"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert upstream_of(span) == ("http", "DecodingError", f"{HOST}:{port}"), dict(span.attributes)
    assert MAYBE_DONE in text, text


async def unpack_backup(blob_hex: str) -> str:
    """Decompress a backup the caller passed (zlib)."""
    return zlib.decompress(bytes.fromhex(blob_hex)).decode()


@pytest.mark.parametrize("style", STYLES)
async def test_j441_guard_data_the_call_named(style: str, telemetry: CapturedTelemetry) -> None:
    """J441's guard: zlib refusing bytes the caller passed is still the arguments' fault (``invalid_input``)."""
    span, _ = await failed_call(style, telemetry, unpack_backup, {"blob_hex": b"not zlib".hex()})
    assert facts(span) == ("invalid_input", False), dict(span.attributes)


# --- J442: the OpenAI SDK's "Connection error." over that DecodingError -----------------------------------------------

async def summarise(text: str) -> str:
    """Summarise a text (the OpenAI SDK against an OpenAI-compatible endpoint, no retries of its own)."""
    import openai

    client = openai.AsyncOpenAI(base_url=f"http://{HOST}:{TARGET['port']}/v1", api_key="FAKE-KEY", max_retries=0)
    answer = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    return answer.choices[0].message.content or ""


@pytest.mark.parametrize("style", STYLES)
async def test_j442_openai_connection_error_over_decoding(style: str, telemetry: CapturedTelemetry) -> None:
    """J442 (langgenius/dify #9275: an OpenAI-compatible provider's gzip answer that failed to decode). The OpenAI SDK
    raises its bare ``APIConnectionError("Connection error.")`` from httpx's ``DecodingError``; errscope said "not
    known" whether the completion ran and put no ``errscope.upstream.*`` on the span. Rule: J441's; the SDK's wrapper
    defers to the error it was raised from."""
    with answering(NOT_GZIP) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, summarise, {"text": "a report"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert upstream_of(span) == ("http", "DecodingError", f"{HOST}:{port}"), dict(span.attributes)
    assert MAYBE_DONE in text, text


# --- J443: the OpenAI SDK's error event inside a streamed 200 ---------------------------------------------------------

def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)


CHUNK = {"id": "c-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": "The report"}}]}


async def summarise_streamed(text: str) -> str:
    """Summarise a text, streamed (the OpenAI SDK, no retries of its own)."""
    import openai

    client = openai.AsyncOpenAI(base_url=f"http://{HOST}:{TARGET['port']}/v1", api_key="FAKE-KEY", max_retries=0)
    parts = []
    async for chunk in await client.chat.completions.create(model="m", stream=True,
                                                            messages=[{"role": "user", "content": text}]):
        parts.append(chunk.choices[0].delta.content or "")
    return "".join(parts)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("error", "expected"), [
    ({"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"},
     ("upstream_unavailable", True, "server_error")),
    ({"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"},
     ("rate_limited", False, "rate_limit_exceeded")),
], ids=["server_error", "rate_limit"])
async def test_j443_openai_error_event_in_stream(style: str, error: dict[str, Any], expected: tuple[Any, ...],
                                                 telemetry: CapturedTelemetry) -> None:
    """J443 (openai/openai-python #1625: ``openai.APIError: The server had an error processing your request …``
    raised from ``_streaming.py`` mid-stream under LangChain's ``astream_events``; #1160: every in-stream error is one
    ``APIError`` whose type is only in ``body``). The answer began (200, a first chunk) and then carried
    ``data: {"error": {...}}``; the SDK raises ``APIError`` with no status. errscope read it ``unknown`` (the
    mapping-gap alert) with nothing on the span. Rule: an SDK's error with the API's error object as ``body`` and no
    error status (none, or the stream's 2xx) is read by the object's ``type``/``code`` family; a server-side one came
    after the request was accepted and may have acted; ``errscope.upstream.status`` is that type."""
    failure_class, acted, status = expected
    body = sse(CHUNK, {"error": error})
    with answering(http_answer("200 OK", {"Content-Type": "text/event-stream"}, body)) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, summarise_streamed, {"text": "a report"})
    assert facts(span) == (failure_class, acted), dict(span.attributes)
    assert upstream_of(span) == ("http", status, f"{HOST}:{port}"), dict(span.attributes)
    assert (MAYBE_DONE in text) is acted, text


# --- J444: the Anthropic SDK's overloaded_error inside a streamed 200 -------------------------------------------------

MESSAGE_START = {"type": "message_start", "message": {
    "id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": None,
    "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 0}}}


def anthropic_events(error_type: str, message: str) -> bytes:
    start = f"event: message_start\ndata: {json.dumps(MESSAGE_START)}\n\n"
    error = {"type": "error", "error": {"details": None, "type": error_type, "message": message}}
    return (start + f"event: error\ndata: {json.dumps(error)}\n\n").encode()


async def draft_reply(text: str) -> str:
    """Draft a reply, streamed (the Anthropic SDK, no retries of its own)."""
    import anthropic

    client = anthropic.AsyncAnthropic(base_url=f"http://{HOST}:{TARGET['port']}", api_key="FAKE-KEY", max_retries=0)
    async with client.messages.stream(model="m", max_tokens=64, messages=[{"role": "user", "content": text}]) as stream:
        return await stream.get_final_text()


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("error_type", "message", "expected"), [
    ("overloaded_error", "Overloaded", ("upstream_unavailable", True)),
    ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", ("rate_limited", False)),
], ids=["overloaded", "rate_limit"])
async def test_j444_anthropic_error_event_in_stream(style: str, error_type: str, message: str, expected: tuple[Any, Any],
                                                    telemetry: CapturedTelemetry) -> None:
    """J444 (anthropics/anthropic-sdk-python #1918 and #688, Podden/openwebui_anthropic_api_manifold_pipe #19,
    kharvd/gpt-cli #71: ``anthropic.APIStatusError: {'type': 'error', 'error': {'type': 'overloaded_error', …}}``
    with ``status_code=200``; Anthropic's streaming docs: an in-stream ``overloaded_error`` "would normally correspond
    to an HTTP 529"). errscope put ``errscope.upstream.status`` "200" on the span and said "not known" whether the
    call ran, so the on-call engineer saw a success status on a failure. Rule: J443's (the error event's type
    decides, not the stream's 200)."""
    with answering(http_answer("200 OK", {"Content-Type": "text/event-stream"},
                               anthropic_events(error_type, message))) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, draft_reply, {"text": "a complaint"})
    assert facts(span) == expected, dict(span.attributes)
    assert upstream_of(span) == ("http", error_type, f"{HOST}:{port}"), dict(span.attributes)
    assert (MAYBE_DONE in text) is expected[1], text


# --- J445: http.client unable to read the answer's head ---------------------------------------------------------------

MANY_HEADERS = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Debug-%d: a\r\n" % i for i in range(120)) + b"\r\n"
LONG_HEADER = b"HTTP/1.1 200 OK\r\nSet-Cookie: " + b"a" * 70000 + b"\r\n\r\n"


async def file_ticket(title: str) -> str:
    """File a ticket (urllib.request, the standard library's client)."""
    import urllib.request

    def post() -> str:
        request = urllib.request.Request(f"http://{HOST}:{TARGET['port']}/tickets", data=json.dumps(
            {"title": title}).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.read().decode()

    return await anyio.to_thread.run_sync(post)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("reply", "status"), [(MANY_HEADERS, "HTTPException"), (LONG_HEADER, "LineTooLong")],
                         ids=["more_than_100_headers", "line_too_long"])
async def test_j445_answer_head_http_client_cannot_read(style: str, reply: bytes, status: str,
                                                        telemetry: CapturedTelemetry,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """J445 (python/cpython #131724: outlook.office365.com answering more than 100 header fields; ansible/ansible
    #82780, instaloader/instaloader #156, httpie/cli #802: ``http.client.HTTPException: got more than 100 headers``;
    a header line past 65536 bytes raises ``LineTooLong``). urllib.request raises both bare, out of
    ``HTTPResponse.begin`` after the POST was written; errscope read them ``unknown``. Rule: http.client's
    ``HTTPException`` raised inside an ``HTTPResponse`` is an answer the client cannot read: ``upstream_unavailable``,
    may have acted, system ``http``."""
    # the standard library's limit: clickhouse_connect, imported by other tests, raises it process-wide to 10,000
    monkeypatch.setattr(http.client, "_MAXHEADERS", 100)
    with answering(reply) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, file_ticket, {"title": "printer on fire"})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    assert upstream_of(span)[:2] == ("http", status), dict(span.attributes)
    assert MAYBE_DONE in text, text


async def reuse_connection(title: str) -> str:
    """Read an answer twice from one http.client connection (the tool's own bug)."""
    import http.client

    connection = http.client.HTTPConnection(HOST, TARGET["port"], timeout=5)
    connection.getresponse()  # nothing was sent: ResponseNotReady
    return title


@pytest.mark.parametrize("style", STYLES)
async def test_j445_guard_the_tools_own_misuse(style: str, telemetry: CapturedTelemetry) -> None:
    """J445's guard: ``ResponseNotReady`` (an ``HTTPException`` outside any response: the tool's own use of the
    connection) stays ``unknown``, nothing sent."""
    TARGET["port"] = closed_port()
    span, text = await failed_call(style, telemetry, reuse_connection, {"title": "x"})
    assert facts(span)[0] == "unknown", dict(span.attributes)
    assert "may have" not in text, text


# --- J446: a TLS handshake with a peer that does not speak TLS --------------------------------------------------------

async def certificate_expiry(host: str) -> str:
    """The days until a host's certificate expires (the ssl module's handshake, as certificate-check tools do)."""

    def check() -> str:
        context = ssl.create_default_context()
        with socket.create_connection((HOST, TARGET["port"]), timeout=5) as sock:
            with context.wrap_socket(sock, server_hostname=host) as tls:
                return str(tls.getpeercert())

    return await anyio.to_thread.run_sync(check)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("reply", "reason"), [
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "WRONG_VERSION_NUMBER"),
    (b"", "UNEXPECTED_EOF_WHILE_READING"),
], ids=["plain_http_port", "closed_in_handshake"])
async def test_j446_tls_handshake_with_no_tls_peer(style: str, reply: bytes, reason: str,
                                                   telemetry: CapturedTelemetry) -> None:
    """J446 (aio-libs/aiohttp #3972 and encode/httpx #646: "[SSL: WRONG_VERSION_NUMBER] wrong version number" for TLS
    to a plain HTTP port; ravendevteam/talon #142: a connectivity check's "urlopen error [SSL: WRONG_VERSION_NUMBER]").
    ``SSLContext.wrap_socket`` runs the handshake; the peer answers plain HTTP, or closes. errscope said "not known"
    whether anything was sent, and named no upstream. Rule: an error raised while a TLS handshake ran
    (``do_handshake``) came before any application data: not sent; an ``ssl.SSLError`` is system ``tls`` with
    OpenSSL's reason as its status."""
    with answering(reply, read_request="once") as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, certificate_expiry, {"host": "shop.example"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert upstream_of(span)[:2] == ("tls", reason), dict(span.attributes)
    assert "may have" not in text, text


# --- J447: urllib3's bare ProtocolError for a POST it does not retry --------------------------------------------------

async def charge_card_urllib3(amount: int) -> str:
    """Charge a card (urllib3's PoolManager with its default Retry: a POST's read error is not retried)."""
    import urllib3

    def post() -> str:
        return urllib3.PoolManager().request("POST", f"http://{HOST}:{TARGET['port']}/charges",
                                             json={"amount": amount}).data.decode()

    return await anyio.to_thread.run_sync(post)


async def charge_card_requests(amount: int) -> str:
    """Charge a card (requests)."""
    import requests

    def post() -> str:
        return requests.post(f"http://{HOST}:{TARGET['port']}/charges", json={"amount": amount}, timeout=5).text

    return await anyio.to_thread.run_sync(post)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [charge_card_urllib3, charge_card_requests])
@pytest.mark.parametrize("how", ["closed", "reset", "cut"])
async def test_j447_connection_lost_under_a_post(style: str, tool: Any, how: str, telemetry: CapturedTelemetry) -> None:
    """J447 (urllib3/urllib3 #2751: a POST whose server went down mid-request raises ``ProtocolError`` at once, no
    retry; pallets/quart #79, acheong08/ChatGPT #753: "('Connection aborted.', RemoteDisconnected('Remote end closed
    connection without response'))"). The listener reads the POST and closes, resets, or sends half a body.
    errscope's class and "may have happened" were right, but the span had no ``errscope.upstream.*``: the wrapped
    ``RemoteDisconnected``/``ConnectionResetError`` names no protocol, and urllib3's wrapper deferred to it whole. Rule:
    a wrapper that defers to the error it carries keeps its own upstream when that one names none (system ``http``,
    status ``ProtocolError``; requests' request gives the address)."""
    reply = b"" if how != "cut" else b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"id\""
    with answering(reply, reset=how == "reset") as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, tool, {"amount": 1200})
    assert facts(span) == ("upstream_unavailable", True), dict(span.attributes)
    system, status, address = upstream_of(span)
    # requests raises its own ChunkedEncodingError over a body cut short, ConnectionError over the others
    expected = "ChunkedEncodingError" if (tool, how) == (charge_card_requests, "cut") else "ProtocolError"
    assert (system, status) == ("http", expected), dict(span.attributes)
    if tool is charge_card_requests and how != "cut":  # ChunkedEncodingError keeps no request (left alone)
        assert address == f"{HOST}:{port}", dict(span.attributes)
    assert MAYBE_DONE in text, text


# --- J448: aio-pika against a broker that answers another AMQP version -------------------------------------------------

async def publish_invoice(invoice_id: str) -> str:
    """Publish an invoice event (aio-pika)."""
    import aio_pika

    connection = await aio_pika.connect(f"amqp://app:FAKE-PASS@{HOST}:{TARGET['port']}/", timeout=5)
    async with connection:
        channel = await connection.channel()
        await channel.default_exchange.publish(aio_pika.Message(invoice_id.encode()), routing_key="invoices")
    return "published"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("header", [b"AMQP\x00\x01\x00\x00", b"AMQP\x03\x01\x00\x00", b"AMQP\x00\x00\x09\x01"],
                         ids=["amqp_1_0", "amqp_1_0_sasl", "amqp_0_9_1_refusal"])
async def test_j448_broker_answering_another_amqp_version(style: str, header: bytes,
                                                          telemetry: CapturedTelemetry) -> None:
    """J448 (mosquito/aio-pika #161: a broker that "works with pika" refusing aio-pika's connection with
    ``IncompatibleProtocolError``; pika/pika #1515: AMQP 1.0 brokers, ActiveMQ Artemis, Azure Service Bus, Qpid, which
    answer a 0-9-1 client's protocol header with their own and close, AMQP 0-9-1 §4.2.2). aiormq's ``connect`` reads
    that header as a frame and pamqp raises ``AMQPSyntaxError``; errscope read the name ("SyntaxError") as the
    arguments' fault: ``invalid_input``, "fix the arguments" for a broker the operator configured. Rule: a format or
    syntax error raised by a library's code under that library's connecting function is its peer's greeting that did
    not parse: ``upstream_unavailable``, not sent."""
    with answering(header, read_request="once") as port:  # reads the client's protocol header
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, publish_invoice, {"invoice_id": "INV-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    assert "may have" not in text and "Fix the arguments" not in text, text


async def connect(settings_yaml: str) -> str:
    """Connect with the settings the caller passed (a tool whose own function is named ``connect``)."""
    import yaml

    return str(yaml.safe_load(settings_yaml))


@pytest.mark.parametrize("style", STYLES)
async def test_j448_guard_the_tools_own_connect(style: str, telemetry: CapturedTelemetry) -> None:
    """J448's guard: a YAML document the caller passed that does not parse, in a tool named ``connect``, is still the
    arguments' fault (``invalid_input``): the connecting frame is the tool's, not the parser's library's."""
    span, _ = await failed_call(style, telemetry, connect, {"settings_yaml": "hosts: [a"})
    assert facts(span) == ("invalid_input", False), dict(span.attributes)


# --- J449: psycopg2's server closing during the startup exchange ------------------------------------------------------

async def list_orders_psycopg2(customer: str) -> str:
    """List a customer's orders (psycopg2)."""
    import psycopg2

    def query() -> str:
        with psycopg2.connect(host=HOST, port=TARGET["port"], user="app", password="FAKE-PASS", dbname="shop",
                              connect_timeout=5) as connection:
            with connection.cursor() as cursor:
                cursor.execute("SELECT id FROM orders WHERE customer = %s", (customer,))
                return str(cursor.fetchall())

    return await anyio.to_thread.run_sync(query)


async def list_orders_sqlalchemy(customer: str) -> str:
    """List a customer's orders (SQLAlchemy over psycopg2)."""
    import sqlalchemy

    def query() -> str:
        engine = sqlalchemy.create_engine(f"postgresql+psycopg2://app:FAKE-PASS@{HOST}:{TARGET['port']}/shop")
        try:
            with engine.connect() as connection:
                return str(connection.execute(sqlalchemy.text("SELECT id FROM orders WHERE customer = :c"),
                                              {"c": customer}).all())
        finally:
            engine.dispose()

    return await anyio.to_thread.run_sync(query)


@contextmanager
def postgres_peer(how: str) -> Iterator[int]:
    if how == "refused":
        yield closed_port()
        return
    with answering(b"", read_request=False) as port:  # reads nothing: closes on the startup packet
        yield port


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [list_orders_psycopg2, list_orders_sqlalchemy])
@pytest.mark.parametrize("how", ["closed_in_startup", "refused"])
async def test_j449_psycopg2_connection_never_opened(style: str, tool: Any, how: str,
                                                     telemetry: CapturedTelemetry) -> None:
    """J449 (psycopg/psycopg2 #1745: ``connect()`` to Redshift failing "server closed the connection unexpectedly";
    LinOTP/LinOTP #223: ``sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) server closed the connection
    unexpectedly`` behind a Patroni cluster; 101t/jasmin-web-panel #20). psycopg2's ``OperationalError`` from
    ``connect()`` keeps no connection object, so errscope put no ``errscope.upstream.*`` on the span (psycopg 3's
    carried ``postgresql`` and the address): the on-call engineer could not tell which database. Rule: the server
    libpq names in its message ("connection to server at "H" (IP), port P failed") is the upstream's address."""
    with postgres_peer(how) as port:
        TARGET["port"] = port
        span, text = await failed_call(style, telemetry, tool, {"customer": "C-1"})
    assert facts(span) == ("upstream_unavailable", False), dict(span.attributes)
    system, _, address = upstream_of(span)
    assert (system, address) == ("postgresql", f"{HOST}:{port}"), dict(span.attributes)
    assert "may have" not in text, text
