"""Issue #13's sink holes, each through the real component: httpx spans, structlog's pipeline,
the seam's payload scrubbing, and the linear-time guarantee on hostile input."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest
import structlog

from errscope import scrub
from errscope._call import ToolCall
from errscope._classify import Classification
from errscope._patterns import PATTERNS
from errscope._scrubbing import REDACTED, key_kind, scrub_value
from errscope._upstream import instrument_httpx
from errscope._vocabulary import Channel, FailureClass
from errscope.processors import ScrubValues
from errscope.server._seam import protocol_error
from errscope.testing import CapturedTelemetry
from mcp.shared.exceptions import MCPError

KEY = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"
TOKEN = "Ab3dE5gH7jK9mN1pQ3sT5vX7"


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_port() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def test_every_url_attribute_of_an_httpx_span_is_scrubbed(http_port: int) -> None:
    """Old (``http.url``) and stable (``url.full``) conventions alike: no query secret survives."""
    telemetry = CapturedTelemetry()
    try:
        instrument_httpx(tracer_provider=telemetry.tracer_provider, meter_provider=telemetry.meter_provider)
        httpx.get(f"http://127.0.0.1:{http_port}/v1/data?api_key={KEY}&access_token={TOKEN}&page=2")
        (span,) = telemetry.spans()
        url_attributes = {k: v for k, v in span.attributes.items() if isinstance(v, str) and "://" in v}
        assert url_attributes, span.attributes
        for value in url_attributes.values():
            assert KEY not in value and TOKEN not in value
            assert value.endswith(f"/v1/data?api_key={REDACTED}&access_token={REDACTED}&page=2")
    finally:
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

        HTTPXClientInstrumentor().uninstrument()
        telemetry.close()


def test_structlog_scrub_values_redacts_by_key() -> None:
    """A user's structlog line through errscope's processor: ``password=`` goes whatever it looks like."""
    lines: list[str] = []
    structlog.configure(
        processors=[ScrubValues(), structlog.processors.JSONRenderer()],
        logger_factory=structlog.ReturnLoggerFactory(),
    )
    try:
        lines.append(structlog.get_logger().info("login", password="FAKE-PW-20", user="app", max_tokens=4096))
    finally:
        structlog.reset_defaults()
    event = json.loads(lines[0])
    assert event == {"event": "login", "password": REDACTED, "user": "app", "max_tokens": 4096}


def test_seam_payloads_by_key() -> None:
    """What the seam hands the client (``MCPError.data``; ``structuredContent`` and ``_meta`` of an
    error result go through the same ``_scrub_payload`` call): redacted by key, no key trusted."""
    error = MCPError(-32000, "db failed", data={"db_password": "FAKE-PW-17", "nested": {"apiKey": 1234}, "rows": 3})
    call = ToolCall(tool="query")
    call.fail(Channel.PROTOCOL, Classification(FailureClass.UNKNOWN), code=-32000)
    scrubbed = protocol_error(error, call)
    assert scrubbed.message == f"db failed (Ref {call.error_ref})"
    assert {k: v for k, v in scrubbed.data.items() if not k.startswith("io.errscope/")} == {
        "db_password": REDACTED, "nested": {"apiKey": REDACTED}, "rows": 3
    }
    # a tool's payload trusts no key name: request_id is just a name there
    assert scrub_value({"request_id": f"password={KEY}"}, trust_safe_keys=False) == {"request_id": f"password={REDACTED}"}


def test_a_pair_that_names_its_value_is_read_by_that_name() -> None:
    """Settings as a list of name/value pairs (a container's ``env``, CloudFormation's parameters, AWS tags, a HAR's
    headers) are redacted as the same pairs are in text; the names stay readable, other pairs stay whole."""
    error = MCPError(-32000, "deploy failed", data={
        "env": [{"name": "DB_PASSWORD", "value": "FAKE-PW-31"}, {"name": "LOG_LEVEL", "value": "debug"}],
        "Parameters": [{"ParameterKey": "MasterUserPassword", "ParameterValue": "FAKE-PW-32"}, {"ParameterKey": "Env", "ParameterValue": "prod"}],
        "headers": [{"name": "Authorization", "value": "Token FAKEtoken33abcdef"}, {"name": "Accept", "value": "text/html"}],
        "Tags": [{"Key": "api_token", "Value": 4242}, {"Key": "team", "Value": "payments"}],
        "api": {"key": "a1b2c3d4e5f6a7b8c9d0e1f2", "value": "prod"},  # a key kept in the name slot is still a key
    })
    call = ToolCall(tool="deploy")
    call.fail(Channel.PROTOCOL, Classification(FailureClass.UNKNOWN), code=-32000)
    data = protocol_error(error, call).data
    assert data["env"] == [{"name": "DB_PASSWORD", "value": REDACTED}, {"name": "LOG_LEVEL", "value": "debug"}]
    assert data["Parameters"] == [
        {"ParameterKey": "MasterUserPassword", "ParameterValue": REDACTED}, {"ParameterKey": "Env", "ParameterValue": "prod"}
    ]
    assert data["headers"] == [{"name": "Authorization", "value": REDACTED}, {"name": "Accept", "value": "text/html"}]
    assert data["Tags"] == [{"Key": "api_token", "Value": REDACTED}, {"Key": "team", "Value": "payments"}]
    assert data["api"] == {"key": REDACTED, "value": "prod"}
    # (name, value) items, as HTTP clients keep headers and query parameters; a list of names is no pair
    listed = scrub_value({"headers": [("X-Api-Key", "FAKEkey34Qz8vLm2"), ("Accept", "text/html")], "params": [["password", "FAKE-PW-35"]], "missing": ["password", "email"]})
    assert listed == {"headers": [("X-Api-Key", REDACTED), ("Accept", "text/html")], "params": [["password", REDACTED]], "missing": ["password", "email"]}
    printed = scrub(json.dumps(error.data))  # the same pairs as text, by the text rules
    assert not any(f"FAKE-PW-3{n}" in printed for n in (1, 2)) and "FAKEtoken33" not in printed


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("password", "secret"),
        ("db_password", "secret"),
        ("client_secret_v2", "secret"),
        ("my_client_secret_value", "secret"),
        ("authToken2", "secret"),
        ("x-api-key", "secret"),
        ("routing_key", "secret"),
        ("password_policy", "noun"),
        ("session_ticket", "noun"),
        ("session_id", ""),  # names a session (MCP's Mcp-Session-Id); a session cookie goes by the cookie rule
        ("progressToken", ""),  # MCP's progress id
        ("cache_key", "noun"),
        ("max_tokens", ""),
        ("tokenizer", ""),
        ("keyboard_layout", ""),
        ("request_id", ""),
    ],
)
def test_key_kind_by_token_split(key: str, kind: str) -> None:
    assert key_kind(key) == kind


def test_noun_keys_redact_only_credential_shaped_values() -> None:
    payload = {"password_policy": "strict", "session_timeout": 3600, "session_ticket": KEY, "cache_key": "user:42:profile"}
    assert scrub_value(payload) == {**payload, "session_ticket": REDACTED}


def test_multiline_yaml_value_ends_at_its_real_end() -> None:
    text = "config error:\ndb:\n  password:\n    FAKE-PW-13\n  host: db.internal.example\n"
    assert scrub(text) == f"config error:\ndb:\n  password:\n    {REDACTED}\n  host: db.internal.example\n"


# --- ReDoS: linear time on hostile input ------------------------------------------------------------------


def _alphabets() -> list[str]:
    """Long runs of each pattern's alphabet: the characters its regex is built from, repeated."""
    runs = {
        "a" * 8 + "@",  # the e-mail pattern was quadratic under a backtracking engine
        "password=",
        "Authorization: ",
        "https://u:",
        "/hooks/",
        "Pwd=",
        "client_secret_v2=",
        "sk-",
        "a_",
        "-----BEGIN PRIVATE KEY-----",
        "eyJ",
        "0123456789",
        "Ab1+/=",
        "token ",
        "key: |\n  ",
    }
    runs |= {p.hints[0] for p in PATTERNS if p.hints}
    return sorted(runs)


def _seconds(text: str) -> float:
    """CPU seconds of this thread, best of three: time spent descheduled on a loaded machine is not counted
    (wall time made 4x read as 13x at load average 10)."""
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        scrub(text)
        best = min(best, time.thread_time() - start)
    return best


@pytest.mark.parametrize("surrogate", [False, True], ids=["utf8", "lone-surrogates"])
def test_adversarial_inputs_take_linear_time(surrogate: bool) -> None:
    """64 KiB against 16 KiB of each hostile run: 4x the input costs 4-6x the time (a single
    64 KiB match runs a little slower per byte than a 16 KiB one); quadratic would be 16x, the
    old e-mail ReDoS (9 s for 64 KiB) far more. Ratios within one run, never a wall-clock bound."""
    worst = []
    for run in _alphabets():
        unit = run + ("\ud800" if surrogate else "")
        small = (unit * (16 * 1024 // len(unit) + 1))[: 16 * 1024]
        large = (unit * (64 * 1024 // len(unit) + 1))[: 64 * 1024]
        # the least disturbed of three comparisons: noise only ever inflates a ratio
        ratio = min(_seconds(large) / max(_seconds(small), 1e-6) for _ in range(3))
        worst.append((ratio, run))
    ratio, run = max(worst)
    assert ratio < 12, f"{run!r}: 4x the input took {ratio:.1f}x the time"


def test_lone_surrogates_are_made_safe_not_passed_through() -> None:
    out = scrub("password=Hunter22x \ud800 tail")
    assert out == f"password={REDACTED} \ufffd tail"


def test_library_record_with_the_key_in_the_template_and_the_secret_in_an_argument() -> None:
    """"password=%s" with the secret as the argument, or a scheme in the template: the formatted line is scrubbed."""
    import logging

    from errscope._logfilter import scrub_record

    for template, value in (("connecting with password=%s", "hunter2Secret99"), ("Authorization: Bearer %s", "Q7abcdefghijklmnop1234")):
        record = logging.LogRecord("httpx", logging.INFO, __file__, 1, template, (value,), None)
        scrub_record(record)
        assert value not in record.getMessage() and "[REDACTED]" in record.getMessage()
    plain = logging.LogRecord("httpx", logging.INFO, __file__, 1, "HTTP Request: %s %s", ("GET", "http://api.example/v1"), None)
    scrub_record(plain)
    assert ("HTTP Request: %s %s", ("GET", "http://api.example/v1")) == (plain.msg, plain.args)  # structure kept


def test_text_and_structured_sinks_agree_on_qualified_key_names() -> None:
    """``<qualifier>_key`` is one list for the regexes and the key check: text and dicts redact alike."""
    from errscope._patterns import KEY_QUALIFIERS

    value = "Q7abcdefghijklmnop1234"
    for qualifier in KEY_QUALIFIERS:
        key = f"{qualifier}_key"
        assert value not in scrub(f"{key}={value}"), key
        assert value not in str(scrub_value({key: value})), key
