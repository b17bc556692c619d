"""errscope.scrub on an eighth held-out set (tests/secret_corpus/captured.py), written before reading
the rules: secrets in captured traffic and developer-tool exports (HAR, curl/httpie/wget transcripts,
packet dumps, proxy exports, Postman/Insomnia/Bruno/REST Client files, VCR cassettes, OpenTelemetry
exporter headers and observability vendors' keys, browser storage, keychain and password-manager
CLIs and exports, Windows registry and credential commands, git and package-manager output, mobile
logs); public headers, redacted values, references, request and trace ids, public client keys,
hashes, nonces, consent cookies and transcripts without credentials as benign.

Measured once before any fix: recall 241/296 (0.814), 10/155 benign lines altered (6.5 %); the RE2
patterns alone (the Collector) 237/296, 15/155. The misses were kinds: (name, value) objects whose
name is a header, cookie or parameter (HAR ``{"name": "x-functions-key", "value": ..}``, Postman
``{"key": "stripe_sk", ..}``, a cookies array's ``PHPSESSID``, 1Password's ``"label"``, names with a
space), an Authorization value with its scheme inside such an object, a YAML list item (VCR cassettes'
``Authorization:\\n  - Basic ..``), a ``%20`` between scheme and credential (OTLP headers), a cookie
string in a HAR object or echoed by a console, a password manager's printed password (``pass``,
``gopass``, ``security -w``), KeePass XML's ``<Key>``/``<Value>``, TOTP seeds, ``splunk_hec_token
<uuid>``, ``poetry config http-basic``/``cargo login``, Swift's ``Optional("..")``, the OTLP exporter's
header list; the false positives an Authorization pair whose value is ``Bearer {{var}}``, a consent
cookie's ``name=value`` read as one random run, ``pk_`` publishable keys and ``git@host:path``
remotes read as e-mail addresses. Fixed by kind (docs/scrubbing.md): 280/296, 5/155; RE2 alone 280/296,
14/155. What is still missed or altered is pinned here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import captured

KNOWN_GAPS = {
    # (wget's ``Setting --ftp-password (ftppassword) to <pw>`` left this list with the ``traced`` set's
    # ``credential_set_to_value``.)
    # ``tshark -T fields`` prints ``user:password`` as a bare column after the source address: no key, no scheme.
    "tshark_verbose",
    # Postman's API-key auth ``[{"key": "value", "value": "<key>"}, {"key": "key", "value": "X-API-Key"}]``: the
    # secret's name is the word ``value``.
    "postman_auth_arrays",
    # REST Client's ``Authorization: Basic <user> <password>`` (unencoded, space-separated): the first word after the
    # scheme is taken as the credential, the password after it stays.
    "vscode_rest_client",
    # a header named by the vendor alone (``x-honeycomb-team``) in a printed dict or a collector's ``headers:``
    # map: the name says nothing, and only the OTLP exporter's own header list is read as credentials.
    "otel_sdk_debug_headers", "vendor_ingest_headers",
    # a key inside JSON escaped twice (redux-persist's ``\\\"jwt\\\": \\\"..\\\"``): the value ends at a backslash.
    "local_storage_dump",
    # ``gopass show`` prints a header and a blank line before the password: the secret is two lines after the command.
    "pass_gopass",
}
# a password manager's CSV export: the password is a column named only by the header line above (Python reads the
# header since the ``tabular`` set: ``_tabular``; the Collector's RE2 patterns cannot relate a cell to its header).
REGEX_ONLY_GAPS = KNOWN_GAPS | {"password_manager_csv"}
# (PostHog's ``phc_`` and Datadog RUM's ``pub<hex>`` browser keys, a Sentry DSN under ``NEXT_PUBLIC_`` and git's
# ``user.signingkey`` key id left this list when Python learnt public client keys, public build variables and OpenPGP
# key ids.)
KNOWN_FALSE_POSITIVES: set[str] = set()
# ... and alter: Python's checks that the Collector cannot run: a number under a secret-named key, a cookie string
# without a random run (``OptanonConsent=isGpcEnabled=0``), public client keys and a ``git@host:path`` remote. (JSON
# ``null`` under ``"password"`` left when a lower-case word without a digit needed six letters in RE2 too.)
REGEX_ONLY_ALTERED = {"public_client_keys", "git_benign", "browser_storage_benign", "consent_and_pref_cookies"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("captured_secrets.jsonl.gz"), corpus.held_out("captured_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = captured.captured()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 296 and len(benign) == 155


def test_captured_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 9 and len(result.altered) == 0  # recall 287/296, FP 0/155 (280 before _tabular, 284 before traced)


def test_captured_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 13 and len(result.altered) == 11  # 283/296, 11/155 (280 before traced)


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


SECRET = "Q7rT9xLm2wZkP4vB8nC3"


def test_name_value_objects() -> None:
    """HAR, Postman, Polly.js and CLI JSON give a field as a (name, value) object: the name says secret."""
    for text, expected in (
        (f'{{"name": "Ocp-Apim-Subscription-Key", "value": "{SECRET}"}}', f'{{"name": "Ocp-Apim-Subscription-Key", "value": "{REDACTED}"}}'),
        (f'{{"name": "PHPSESSID", "value": "{SECRET}", "httpOnly": true}}', f'{{"name": "PHPSESSID", "value": "{REDACTED}", "httpOnly": true}}'),
        (f'{{"key": "stripe_sk", "value": "{SECRET}", "type": "secret"}}', f'{{"key": "stripe_sk", "value": "{REDACTED}", "type": "secret"}}'),
        (f'{{"name": "api key", "value": "{SECRET}", "type": 1}}', f'{{"name": "api key", "value": "{REDACTED}", "type": 1}}'),
        ('{"name": "pass", "value": "Wren#4471gale"}', f'{{"name": "pass", "value": "{REDACTED}"}}'),
        (f'"label": "credential",\n  "value": "{SECRET}"', f'"label": "credential",\n  "value": "{REDACTED}"'),
        (f'{{"name": "authorization", "value": "token {SECRET}"}}', f'{{"name": "authorization", "value": "token {REDACTED}"}}'),
        (f'{{"name": "cookie", "value": "_ga=GA1.1.5.6; sid={SECRET}; theme=dark"}}', f'{{"name": "cookie", "value": "{REDACTED}"}}'),
        (f"<NSHTTPCookie version:1 name:session value:{SECRET} path:/>", f"<NSHTTPCookie version:1 name:session value:{REDACTED} path:/>"),
    ):
        assert scrub(text) == expected, text
    for text in (
        '{"key": "Authorization", "value": "Bearer {{accessToken}}", "type": "text"}',
        '{"name": "key", "value": "X-API-Key", "type": "string"}',
        '{"name": "bypass", "value": "true"}',
        '{"name": "Authorization", "value": "[REDACTED]"}',
        '"cookies": [{"name": "theme", "value": "dark"}, {"name": "tz", "value": "Europe%2FBerlin"}]',
        '{"key": "password", "value": "{{adminPassword}}", "type": "default"}',
    ):
        assert scrub(text) == text, text


def test_cassettes_and_exporter_headers() -> None:
    for text, expected in (
        (f"    headers:\n      Authorization:\n      - Basic {SECRET}==\n", f"    headers:\n      Authorization:\n      - Basic {REDACTED}\n"),
        (f"      X-Api-Key:\n      - {SECRET}\n", f"      X-Api-Key:\n      - {REDACTED}\n"),
        (f"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Api-Token%20{SECRET}", f"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Api-Token%20{REDACTED}"),
        (f"-Dotel.exporter.otlp.headers=x-tenant=acme,api-key={SECRET}", f"-Dotel.exporter.otlp.headers=x-tenant=acme,api-key={REDACTED}"),
    ):
        assert scrub(text) == expected, text
    for text in (
        "    headers:\n      Authorization:\n      - Bearer <GITHUB_TOKEN>",
        "OTEL_EXPORTER_OTLP_HEADERS=x-scope-orgid=tenant-1",
        "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20${GRAFANA_BASIC_AUTH}",
    ):
        assert scrub(text) == text, text


def test_password_manager_output() -> None:
    for text, expected in (
        ("$ pass show prod/db\nWren#4471gale\nusername: app", f"$ pass show prod/db\n{REDACTED}\nusername: app"),
        ("$ security find-generic-password -s npm -w\nWren#4471gale", f"$ security find-generic-password -s npm -w\n{REDACTED}"),
        (f"<Key>Password</Key><Value ProtectInMemory=\"True\">{SECRET}</Value>", f"<Key>Password</Key><Value ProtectInMemory=\"True\">{REDACTED}</Value>"),
        ('{"totp": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"}', f'{{"totp": "{REDACTED}"}}'),
        ("+ poetry config http-basic.private ci Wren#4471gale", f"+ poetry config http-basic.private ci {REDACTED}"),
        (f'token: Optional("{SECRET}")', f'token: Optional("{REDACTED}")'),
    ):
        assert scrub(text) == expected, text
    for text in (
        "$ pass ls\nPassword Store\n└── prod",
        "<Key>Title</Key><Value>VPN</Value>",
        "$ which secret-tool\n/usr/bin/secret-tool",
    ):
        assert scrub(text) == text, text


def test_public_halves_and_scp_remotes_stay() -> None:
    for text in (
        "const stripe = Stripe('pk_live_9aSqsa3t3hpWC0luweWQDWoW');",
        "origin\tgit@github.com:acme/app.git (fetch)",
        "Set-Cookie: OptanonConsent=isGpcEnabled=0&datestamp=Sat+Mar+01+2025&version=202401.1.0; Path=/",
    ):
        assert scrub(text) == text, text
    assert scrub("mail alice@example.com: sent") == f"mail {REDACTED}: sent"


def test_password_manager_csv() -> None:
    """A CSV export names the password column only in its header line: Python reads it (``_tabular``), the
    Collector's RE2 patterns do not."""
    text = "name,url,username,password\ngithub.com,https://github.com,alice,Wren#4471gale"
    assert "Wren#4471gale" not in scrub(text)
    assert "Wren#4471gale" in corpus.regex_only(text)


@pytest.mark.xfail(strict=True, reason="REST Client's unencoded 'Basic <user> <password>': the scheme's credential is one word")
def test_rest_client_basic_user_password() -> None:
    assert "Wren#4471gale" not in scrub("Authorization: Basic alice Wren#4471gale")


@pytest.mark.xfail(strict=True, reason="a vendor's header name (x-honeycomb-team) says nothing outside the OTLP header list")
def test_vendor_named_header() -> None:
    assert SECRET not in scrub(f"headers={{'x-honeycomb-team': '{SECRET}'}}")
