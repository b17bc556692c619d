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
from errscope._scrub_values import scrub_value
from errscope._scrubbing import REDACTED
from errscope._secret_shapes import key_kind
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


def _protocol_data(data: object) -> object:
    """``data`` as the seam hands it to the client in an ``MCPError`` (errscope's own ``_meta`` members left out)."""
    call = ToolCall(tool="probe")
    call.fail(Channel.PROTOCOL, Classification(FailureClass.UNKNOWN), code=-32000)
    scrubbed = protocol_error(MCPError(-32000, "failed", data=data), call).data
    return {k: v for k, v in scrubbed.items() if not str(k).startswith("io.errscope/")}


def _wire(value: object) -> str:
    """What the SDK writes for a value inside a message (``model_dump_json``: dataclasses, models, sets as JSON)."""
    import pydantic_core

    return pydantic_core.to_json(value).decode()


def test_record_objects_in_error_data_are_scrubbed_by_their_fields() -> None:
    """A dataclass, a pydantic model, an attrs-less SimpleNamespace, a named tuple and a set in ``MCPError.data`` reach
    the wire as JSON (pydantic serialises them); each is scrubbed by its fields as the same fields printed are, and
    keeps its type (a frozen dataclass too)."""
    import dataclasses
    import types
    from collections import namedtuple

    import pydantic

    @dataclasses.dataclass(frozen=True)
    class Creds:
        user: str
        password: str

    class Settings(pydantic.BaseModel):
        region: str
        api_key: str

    Login = namedtuple("Login", "user password")
    data = _protocol_data({
        "creds": Creds("app", "FAKE-pw-41"), "settings": Settings(region="eu", api_key="FAKEkey42Qz8vLm2Xw"),
        "ns": types.SimpleNamespace(user="app", token="FAKE-tok-43x"), "login": Login("app", "FAKE-pw-44"),
        "tokens": {"ghp_FAKE45a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"}, "blob": memoryview(b"api_key=FAKEkey46Qz8vLm2Xw"),
    })
    assert isinstance(data["creds"], Creds) and data["creds"] == Creds("app", REDACTED)
    assert isinstance(data["settings"], Settings) and data["settings"].api_key == REDACTED and data["settings"].region == "eu"
    assert vars(data["ns"]) == {"user": "app", "token": REDACTED}
    assert data["login"] == Login("app", REDACTED) and type(data["login"]) is Login
    assert data["tokens"] == {REDACTED} and data["blob"] == f"api_key={REDACTED}"
    assert "FAKE" not in _wire({k: v for k, v in data.items() if k != "ns"})  # (the SDK cannot serialise a namespace)
    # a dataclass handed as the whole data keeps its place under "detail"
    call = ToolCall(tool="probe")
    call.fail(Channel.PROTOCOL, Classification(FailureClass.UNKNOWN), code=-32000)
    assert protocol_error(MCPError(-32000, "x", data=Creds("app", "FAKE-pw-47")), call).data["detail"] == Creds("app", REDACTED)


def test_keys_are_read_as_the_text_rules_read_them() -> None:
    """A key can hold the secret (a token keying a cache, a ``password=…`` or ``Bearer …`` used as a name) or name it
    in another spelling: an Enum member, a tuple path, another language, a run-together word, a one-time code."""
    import enum

    class Field(enum.Enum):
        PASSWORD = "password"

    data = _protocol_data({
        "ghp_FAKE51a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6": "octocat", f"Bearer {TOKEN}": 1, "password=FAKE-pw-52": True,
        Field.PASSWORD: "FAKE-pw-53", ("db", "password"): "FAKE-pw-54",
        "Passwort": "FAKE-pw-55", "contraseña": "FAKE-pw-56", "密码": "FAKE-pw-57", "PGPASSWORD": "FAKE-pw-58",
        "mnemonic": "FAKE abandon ability able about", "SecretString": "FAKE-pw-59", "API密钥": "FAKEkey60Qz8vLm2Xw",
        "otp_code": 482913, "cvv": 123, "mfa_code": "482913", "hmac": "e80a1593d4d0ebc85a451162221a1f1b",
    })
    assert "FAKE" not in json.dumps({str(k): v for k, v in data.items()}) and TOKEN not in json.dumps({str(k): v for k, v in data.items()})
    assert data[REDACTED] == "octocat" and data[f"Bearer {REDACTED}"] == 1 and data[f"password={REDACTED}"] is True
    assert data[Field.PASSWORD] == REDACTED and data[("db", "password")] == REDACTED
    assert all(data[k] == REDACTED for k in ("Passwort", "contraseña", "密码", "otp_code", "cvv", "mfa_code", "hmac"))


def test_values_under_a_secret_key_in_containers_wrappers_lists_and_argv() -> None:
    """``{"password": ["…"]}``, ``{"password": {"S": "…"}}``, several keys under a plural name, a form's
    ``{"field": "password", "value": …}``, a header table, a Postman variable typed ``secret``, a JWK's private member,
    and ``["psql", "--password", "…"]``: each redacted as the same payload printed is."""
    data = _protocol_data({
        "password": ["FAKE-pw-61"], "db_password": ("FAKE-pw-62",), "secret": {"FAKE-pw-63"},
        "api_key": {"S": "FAKEkey64Qz8vLm2Xw"}, "token": {"value": "FAKE-tok-65x"},
        "api_keys": ["FAKEkey66Qz8vLm2Xw", "FAKEkey67Qz8vLm2Xw"], "unseal_keys_b64": ["rUJ0MeAenTWtCL43ogWNXLWFPALkQRw1HCxFgtpzVuA="],
        "form": [{"field": "password", "value": "FAKE-pw-68"}, {"header": "X-Api-Key", "value": "FAKE-pw-69"},
                 {"variable": "DB_PASSWORD", "value": "FAKE-pw-70"}, {"key": "stripe_sk", "value": "faketundra-7399pylon", "type": "secret"}],
        "jwk": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "d": "uOxfZZEbn6CmYoifnvP56t06gbqmOUfaIACMoOW0nwv"},
        "argv": ["psql", "--password", "FAKE-pw-71", "-h", "db"], "args": ["--token", TOKEN],
    })
    assert "FAKE" not in _wire(data) and TOKEN not in _wire(data) and "uOxfZZ" not in _wire(data)
    assert data["password"] == [REDACTED] and data["db_password"] == (REDACTED,) and data["secret"] == {REDACTED}
    assert data["api_key"] == {"S": REDACTED} and data["form"][0] == {"field": "password", "value": REDACTED}
    assert data["jwk"]["x"] == "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"  # the public coordinate stays
    assert data["argv"] == ["psql", "--password", REDACTED, "-h", "db"]
    printed = scrub(json.dumps({k: v for k, v in {"password": ["FAKE-pw-61"], "api_key": {"S": "FAKEkey64Qz8vLm2Xw"}}.items()}))
    assert "FAKE" not in printed  # (what the text rules do with the same payload printed)


def test_rich_text_runs_are_read_as_one_line() -> None:
    """A label run and a value run (Atlassian ADF / ProseMirror, Notion, Slack): the value goes when it has a
    credential's shape; a note after the label stays."""
    adf = {"type": "paragraph", "content": [
        {"type": "text", "text": "API key: ", "marks": [{"type": "strong"}]},
        {"type": "text", "text": "FAKE8F83ioKrjzQRn9rW8JhmnIMRqyqd", "marks": [{"type": "code"}]},
    ]}
    notion = {"rich_text": [
        {"type": "text", "text": {"content": "Admin password ", "link": None}, "plain_text": "Admin password "},
        {"type": "text", "text": {"content": "fakezephyr+1934saffron", "link": None}, "plain_text": "fakezephyr+1934saffron"},
    ]}
    data = _protocol_data({"adf": adf, "notion": notion})
    assert data["adf"]["content"][1]["text"] == REDACTED and data["adf"]["content"][0]["text"] == "API key: "
    assert data["notion"]["rich_text"][1]["text"]["content"] == REDACTED and data["notion"]["rich_text"][1]["plain_text"] == REDACTED
    note = {"content": [{"type": "text", "text": "Bot token: "}, {"type": "text", "text": "changeme-in-vault"}]}
    assert scrub_value(note) == note


def test_structured_benign_payloads_stay_whole() -> None:
    """Ids, hashes, MCP's progress and pagination tokens, token counts, public keys, a ``{"key": "color"}`` pair, a
    form error naming the password field, a JSON schema, a key's translation, placeholders after a scheme, counts
    under plural names, a tokenizer's output, a ``--token-file`` path, a booking's ``confirmation_code``: unchanged."""
    benign = {
        "id": "ord_2002", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "progressToken": "abc123XYZ789defGHI", "nextCursor": "eyJvZmZzZXQiOjEwMH0=", "pageToken": "CAoQAA",
        "max_tokens": 4096, "token_count": 812, "input_tokens": [101, 2023, 318], "tokens": ["the", "cat"],
        "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKE", "pair": {"key": "color", "value": "blue"},
        "error": {"field": "password", "message": "too short"}, "schema": {"password": {"type": "string", "minLength": 8}},
        "i18n": {"label.senha": "Senha", "login.password": "Passwort"}, "signingkey": "3AA5C34371567BD2",
        "headers": {"Authorization": "Bearer ${input:github_token}"}, "postman": {"key": "Authorization", "value": "Bearer {{accessToken}}", "type": "text"},
        "argv": ["gh", "--token-file", "/run/secrets/gh", "-p", "8080"], "compass": "NNE", "confirmation_code": "K7XQ2M",
        "otp_enabled": True, "pin_count": 3, "sort_keys": ["created_at", "id"], "jwk": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"},
        "rows": {1: "a", 2: "b"}, "tags": frozenset({"a"}),
    }
    assert scrub_value(benign, trust_safe_keys=False) == benign
    assert _protocol_data(benign) == benign


def test_log_extras_and_structlog_values_read_containers_under_their_key() -> None:
    """A log record's ``extra=`` and a structlog event (errscope's processor) read a list or a wrapper under a
    secret key as the payload path does."""
    import logging

    from errscope._logfilter import scrub_record

    record = logging.LogRecord("app", logging.INFO, __file__, 1, "login", None, None)
    record.passwords = ["FAKE-pw-81", "FAKEkey82Qz8vLm2Xw"]
    record.db = {"password": {"S": "FAKE-pw-83"}}
    record.tags = {"blue"}
    scrub_record(record)
    assert (record.passwords, record.db, record.tags) == ([REDACTED, REDACTED], {"password": {"S": REDACTED}}, {"blue"})
    lines: list[str] = []
    structlog.configure(processors=[ScrubValues(), structlog.processors.JSONRenderer()], logger_factory=structlog.ReturnLoggerFactory())
    try:
        lines.append(structlog.get_logger().info("deploy", env=[{"name": "DB_PASSWORD", "value": "FAKE-pw-84"}], password=["FAKE-pw-85"]))
    finally:
        structlog.reset_defaults()
    assert json.loads(lines[0]) == {"event": "deploy", "env": [{"name": "DB_PASSWORD", "value": REDACTED}], "password": [REDACTED]}
