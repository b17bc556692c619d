"""errscope.scrub on a thirteenth held-out set (tests/secret_corpus/logformats.py): credentials as log pipelines
and event formats carry them. logfmt, Go ``slog``/``zap``/``klog``, hclog, structlog, pino, bunyan, Monolog, Rails
``Parameters:``, Python logging's ``extra=`` and ``LogRecord`` args, Elixir metadata, Rust ``tracing`` spans and
JSON, logback/log4j2 MDC and ``contextMap``, Serilog's rendered and compact forms, .NET's JSON console; ECS, GCP
``jsonPayload``/``httpRequest``, CloudTrail ``requestParameters``, CloudWatch Lambda lines, Azure activity
``requestbody``, Datadog, Sentry ``extra``/``contexts``/breadcrumbs, Splunk HEC and Elasticsearch ``_source``;
GELF, RFC 5424 structured data, RFC 3164, CEF, LEEF, Windows event XML; W3C/IIS, Apache, nginx (key=value, JSON,
error log), HAProxy captured headers, ALB/CloudFront, Envoy; journald export/JSON/verbose, CRI and Docker json-file,
Fluent Bit/Fluentd, Logstash rubydebug, Loki push, Kubernetes audit events, OTLP JSON attributes, the Collector's
debug exporter; multi-line records. Benign: the same formats without a credential (trace, span and request ids,
cursors, fingerprints, hashes, durations, ``token_count=``, ``auth=ok``, ``password_changed=true``, masks, base64
payloads, ordinary access log lines, sshd's ``Failed password for``, Windows logon events).

Measured once before any fix: recall 203/212 (0.958), 2/150 benign lines altered; the RE2 patterns alone 203/212,
5/150. The misses were a name/value pair as OTLP JSON (``{"key": "db.password", "value": {"stringValue": ..}}``)
and CloudFormation (``ParameterKey``/``ParameterValue``) write it, a Windows event's ``<Data Name="Password">``,
CloudTrail's ``secretString`` and a ``LogRecord``'s positional ``args``; the false positives an access log's
request line (``"POST /account/reset-password HTTP/1.1"`` read as prose giving the password ``HTTP/1.1``). Fixed by
kind (docs/scrubbing.md): 211/212, 0/150; RE2 alone 211/212, 3/150. What is still missed or altered is pinned here.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from tests import corpus
from tests.secret_corpus import logformats
from errscope._patterns import REDACTED

KNOWN_GAPS = {
    # ``<LogRecord: .., "login with token %s failed">, args=('<pw>',)``: the value is a positional argument of a
    # message template; what names it is a word inside the message, ``%s`` placeholders away.
    "python_logging_extra",
}
KNOWN_FALSE_POSITIVES: set[str] = set()
REGEX_ONLY_GAPS = KNOWN_GAPS
# (Serilog's ``TokenId=<uuid>`` left when a key ending in ``id`` stopped being a credential's name in RE2 too.)
REGEX_ONLY_ALTERED: set[str] = set()


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("logformats_secrets.jsonl.gz"), corpus.held_out("logformats_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = logformats.logformats()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 212 and len(benign) == 150
    assert len({line["format"] for line in secrets}) == 53 and len({line["category"] for line in benign}) == 30


def test_logformats_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 1 and len(result.altered) == 0  # recall 211/212, FP 0/150


def test_logformats_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 1 and len(result.altered) == 0  # 211/212, 0/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


PASSWORD = "FakeMarble#4411tundra"
TOKEN = "Xq7mB2vLp9Rz4KtW8nYc"


@pytest.mark.parametrize(
    "text",
    [
        # a probe of these kinds in spellings the set does not hold (fixed as rules, not kept as set lines)
        '{\n    "Name": "prod/db",\n    "SecretString": "%s",\n    "VersionId": "v1"\n}' % PASSWORD,
        '{"Namespace": "aws:elasticbeanstalk:application:environment", "OptionName": "DB_PASSWORD", "Value": "%s"}' % PASSWORD,
        '{"ParameterKey": "ApiToken", "ParameterValue": "%s", "UsePreviousValue": false}' % TOKEN,
        '{\n  "key": "db.password",\n  "value": {\n    "stringValue": "%s"\n  }\n}' % PASSWORD,
        '{"key":"client_secret","value":{"stringValue":"%s"}}' % TOKEN,
        "<Data Name='Password'>%s</Data>" % PASSWORD,
        '{"requestParameters":{"name":"/prod/db/password","type":"SecureString","value":"%s"}}' % PASSWORD,
        '{\n    "Parameter": {\n        "Name": "/prod/api/token",\n        "Type": "SecureString",\n        "Value": "%s",\n        "Version": 1' % TOKEN,
        '<entry key="db.password">%s</entry>' % PASSWORD,
        '10.0.0.1 - - [02/Dec/2025:12:00:01 +0000] "GET /x HTTP/1.1" 401 0 "-" "-" "Basic ZGVwbG95OkZha2VNYXJibGUjNDQxMXR1bmRyYQ=="',
        '2025-12-02 12:00:01 10.0.0.1 GET /callback code=SplxlOBeZQQYbYS6WxSbIA&state=af0 443 - 203.0.113.9 Mozilla/5.0 - 302 0 0 5',
        '{"url.query": "key=AIzaSyFakeKey4Xq7mB2vLp9Rz4KtW8nYcFAKE&alt=json"}',
        'haproxy[9]: 10.0.0.1:51000 [02/Dec/2025:12:00:01 +0000] fe be/s2 1/0/1/9/11 200 301 - - --NI 3/3/0/0/0 0/0 {Basic ZGVwbG95OkZha2VNYXJibGUjNDQxMXR1bmRyYQ==} "GET / HTTP/1.1"',
    ],
)
def test_other_spellings_of_these_kinds(text: str) -> None:
    out = scrub(text)
    assert not any(s in out for s in (PASSWORD, TOKEN, "ZGVwbG95", "SplxlOBe", "AIzaSy")), out


@pytest.mark.parametrize(
    "text",
    [
        '203.0.113.9 - - [02/Dec/2025:12:00:01 +0000] "POST /oauth/token HTTP/1.1" 200 512 "-" "curl/8.5.0"',
        '10.0.0.1 - - [02/Dec/2025:12:00:01 +0000] "GET /api/v1/token HTTP/2.0" 200 88 "-" "curl/8"',
        '"POST /account/forgot-password HTTP/1.1" 302',
        '[2025-12-02T12:00:01.123Z] "POST /v1/secret HTTP/1.1" 201 - 0 12',
        '2025/12/02 12:00:01 [error] 31#31: *9 request: "POST /oauth2/token HTTP/1.1", host: "id.acme.dev"',
        '{"ParameterKey": "DBPasswordLength", "ParameterValue": "32"}',
        '{"OptionName": "PasswordPolicy", "Value": "strict"}',
        '{"Name": "/prod/db/password_length", "Type": "String", "Value": "32"}',
        '{"Name": "/prod/db/password", "Type": "SecureString", "Value": "[REDACTED]"}',
        '{"key":"code.function","value":{"stringValue":"rotate_token"}}',
        '<Data Name="Password">-</Data>',
        '<Data Name="TokenElevationType">%%1936</Data>',
        '<entry key="password.min.length">12</entry>',
        "tokenString := jwt.SignedString(key)",
        "Basic authentication failed for user deploy",
        "level=debug msg=\"cache miss\" key=user:4711:profile ttl=30",
        "2025-12-02 12:00:01 10.0.0.1 GET /search code=200 443",
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    """Request lines that name a token endpoint, settings and ids under these names, and Windows' empty field."""
    assert scrub(text) == text
    assert corpus.regex_only(text) == text


def test_vault_audit_hmacs_stay() -> None:
    """Vault's audit device writes every secret as its keyed HMAC: its own mask, kept (Python only: the Collector
    cannot look at the value's shape under a token key)."""
    text = ('{"type":"request","auth":{"client_token":"hmac-sha256:5e7f1c2a9b8d4e3f6a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f",'
            '"accessor":"hmac-sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f9"},"request":{"data":{"password":"hmac-sha256:9c8b7a6f5e4d3c2b1a0f"}}}')
    assert scrub(text) == text


@pytest.mark.xfail(strict=True, reason="a CEF custom string before its label; a Secret Manager payload's \"data\" names nothing")
@pytest.mark.parametrize(
    "text",
    [
        "CEF:0|Acme|Gw|1.0|100|Login|5|cs1=%s cs1Label=password" % PASSWORD,
        '{"name": "projects/p/secrets/db/versions/1", "payload": {"data": "%s"}}' % TOKEN,
    ],
)
def test_pinned_gaps_of_these_kinds(text: str) -> None:
    out = scrub(text)
    assert PASSWORD not in out and TOKEN not in out


# A probe with fresh eyes (written apart from the set, after its rules): log lines whose ``Basic``, ``key=``, ``code=``,
# ``auth=``, ``reason=``, ``pass=``, ``pin=`` are ordinary words or ids, and credentials in these rules' shapes written
# otherwise (IIS's ``Basic+..`` where a space was, a query string under other field names). Before the fixes: scrub
# 1/27 altered (the ``&key=`` below, kept apart), 1/10 missed (``Basic+``); the RE2 patterns alone 4/27 and 1/10
# (cache keys with colons before a ``&``). After: 0/26 and 0/10; RE2 alone 1/26 (``api_key_id=ak_2024_0042``: an
# id under a key name, only Python's random check spares it) and 0/10.
PROBE_BENIGN = [
 '127.0.0.1 - - [02/Dec/2026:10:00:00 +0000] "GET /login HTTP/1.1" 401 12 "-" "curl/8.5.0" "Basic realm=\\"api\\""',
 'WWW-Authenticate: Basic realm="Restricted Area 2"',
 'auth_type=Basic user=alice result=denied',
 'Basic HTTP2 support enabled',
 'Using Basic auth with username admin2',
 'mode: Basic Version2Plus',
 'BASIC INTERPRETER v2 loaded',
 'GET /api/items code=200&latency=12',
 'url.query: key=users&sort=desc',
 'msg="lookup" key=sessions:2024:11&ttl=60',
 'event=cache_miss key=user:4711:profile&shard=3',
 'query_string: code=ok&next=/home',
 ' code=HTTP_404&retry=false',
 'auth=none&format=json',
 'reason=password_expired user=bob',
 'reason=token_revoked jti=abc',
 'reason="key rotation pending" attempt=2',
 'password_changed=true user=carol',
 'token_type=Bearer expires_in=3600 scope=read',
 'key_id=k-2024-11 alg=RS256',
 'secret_name=db-creds version=12',
 'pass=3 fail=0 skip=2',
 'pin=v2.1.4 strategy=exact',
 'passes=5 key=primary',
 'token_count=4096 model=gpt-4o',
 'api_key_id=ak_2024_0042 status=active',
]
PROBE_SECRETS = [
 ('10.0.0.5 - - "GET /x HTTP/1.1" 200 5 "Basic YWxpY2U6czNjcjN0UGFzcw=="', 'YWxpY2U6czNjcjN0UGFzcw=='),
 ('captured header {Basic Ym9iOlBAc3N3MHJkMTIz|curl/8}', 'Ym9iOlBAc3N3MHJkMTIz'),
 ('cs(Authorization)=Basic+dXNlcjpodW50ZXIyMDI0', 'dXNlcjpodW50ZXIyMDI0'),
 ('GET /oauth/cb code=4/P7q2xLm9Vt8Kw3Rz&state=af0ifjsldkj', '4/P7q2xLm9Vt8Kw3Rz'),
 ('"query": "auth=Zk8Lq2Vm7Tp3Wk9Rz4Nb&v=2"', 'Zk8Lq2Vm7Tp3Wk9Rz4Nb'),
 ('uri_query=key=AIzaSyA9Kq2Lm7Vp3Rt8Wz4Nb6YdQ1x&cx=01', 'AIzaSyA9Kq2Lm7Vp3Rt8Wz4Nb6YdQ1x'),
 ("url.query='code=Sp3Kq8Lm2Vx7Rb4Wz&state=1'", 'Sp3Kq8Lm2Vx7Rb4Wz'),
 ('reason=rotate new_token=Nt8Kq2Lm7Vp3Rt9Wz4Nb6Yd', 'Nt8Kq2Lm7Vp3Rt9Wz4Nb6Yd'),
 ('db_password="Pw8#kQ2m-Lz7x" reason=login', 'Pw8#kQ2m-Lz7x'),
 ('client_secret: Cs7Kq2Lm9Vp4Rt8Wz3Nb6Yd reason=ok', 'Cs7Kq2Lm9Vp4Rt8Wz3Nb6Yd'),
]
PROBE_REGEX_ONLY_ALTERED: set[str] = set()  # ``api_key_id=ak_2024_0042`` left when ``..._id`` stopped being a key


def test_probe_ordinary_log_lines_stay() -> None:
    assert [line for line in PROBE_BENIGN if scrub(line) != line] == []
    assert {line for line in PROBE_BENIGN if corpus.regex_only(line) != line} == PROBE_REGEX_ONLY_ALTERED


def test_probe_credentials_in_other_spellings_go() -> None:
    for text, secret in PROBE_SECRETS:
        for out in (scrub(text), corpus.regex_only(text)):
            assert REDACTED in out and secret not in out, out
    corpus.assert_rules_admitted(PROBE_BENIGN + [text for text, _ in PROBE_SECRETS])


def test_probe_a_readable_key_in_a_query_string_stays() -> None:
    line = "cs-uri-query: page=2&key=cache_users_2024"
    assert scrub(line) == line
    assert corpus.regex_only(line) != line  # the Collector's RE2 cannot tell a name: it redacts (docs/scrubbing.md)
    for line, secret in (("cs-uri-query: page=2&key=Xq7mB2vLp9Rz4KtW", "Xq7mB2vLp9Rz4KtW"),
                         ("GET /maps?auth=cache_users_2024Zk&page=2", "cache_users_2024Zk")):
        assert secret not in scrub(line) and REDACTED in scrub(line)
