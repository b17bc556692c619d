"""errscope.scrub on a fourth held-out set (tests/secret_corpus/wrapped.py), written by another author
before reading the rules: secrets encoded or embedded in what MCP errors carry (URL-encoded and
form bodies, JSON escaped once and twice, HTML entities, bytes reprs, SQL statements, argv and
process listings, logfmt/CEF/syslog, HTTP/2 and gRPC metadata, GraphQL variables, config dumps of
Go, C#, PHP and Perl, tokens split by a line wrap, non-ASCII separators, unusual alphabets).

Measured once before any fix: recall 108/204 (0.529), 0/104 benign lines altered, the same with the
RE2 patterns alone (the Collector). Fixed by kind (docs/scrubbing.md): 201/204, 0/104, the same with
RE2 alone. What is still missed is pinned here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import wrapped

KNOWN_GAPS = {
    # A token named in another language's prose, with no key and no separator: ``le jeton d'API
    # «...» a expiré``. The password has its words in 15 languages; token words have only English.
    "guillemets_prose",
}
KNOWN_FALSE_POSITIVES: set[str] = set()


def test_files_are_generated() -> None:
    secrets, benign = wrapped.wrapped()
    assert corpus.held_out("wrapped_secrets.jsonl.gz") == secrets
    assert corpus.held_out("wrapped_benign.jsonl.gz") == benign
    assert len(secrets) == 204 and len(benign) == 104


def test_wrapped_score() -> None:
    result = corpus.score(scrub, corpus.held_out("wrapped_secrets.jsonl.gz"), corpus.held_out("wrapped_benign.jsonl.gz"))
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 3 and len(result.altered) == 0  # recall 201/204, FP 0/104


def test_wrapped_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(
        corpus.regex_only,
        corpus.held_out("wrapped_secrets.jsonl.gz"),
        corpus.held_out("wrapped_benign.jsonl.gz"),
    )
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert not result.altered


def test_triggers_and_guard_admit_every_match_here() -> None:
    """The set's triggers and the Collector's GUARD admit every match on these lines too."""
    corpus.assert_rules_admitted(line["text"] for line in corpus.held_out("wrapped_secrets.jsonl.gz") + corpus.held_out("wrapped_benign.jsonl.gz"))


def test_encoded_and_escaped_separators() -> None:
    """The key's separator as encodings write it; the key stays readable."""
    for text, expected in (
        ("q=user%3Dsvc%26password%3DFern%21Stone77", f"q=user%3Dsvc%26password%3D{REDACTED}"),
        ('{"log": "{\\\\\\"password\\\\\\":\\\\\\"Fern!Stone77\\\\\\"}"}', f'{{"log": "{{\\\\\\"password\\\\\\":\\\\\\"{REDACTED}\\\\\\"}}"}}'),
        ("{&quot;client_secret&quot;:&quot;Q7wv2LmX9zRt4KpY&quot;}", f"{{&quot;client_secret&quot;:&quot;{REDACTED}&quot;}}"),
        # a bare value runs to ASCII whitespace or punctuation: full-width ``，`` and what follows go too
        # (non-ASCII terminators in the value classes grew the keyword programs by a third)
        ("密码：Fern!Stone77，请检查", f"密码：{REDACTED}"),
        ("    [db_pass] => Fern!Stone77\n", f"    [db_pass] => {REDACTED}\n"),
        ('  ["password"]=>\n  string(12) "Fern!Stone77"', f'  ["password"]=>\n  string(12) "{REDACTED}"'),
        ("{'X-Amz-Security-Token': b'IQoJb3JpZ2luX2Vj7Q'}", f"{{'X-Amz-Security-Token': b'{REDACTED}'}}"),
        ('{"password": "\\u00d6ffnung-432"}', f'{{"password": "{REDACTED}"}}'),
    ):
        assert scrub(text) == expected, text
        assert REDACTED in corpus.regex_only(text) and "Stone77" not in corpus.regex_only(text), text


def test_pairs_sql_and_tools_leave_their_look_alikes() -> None:
    for text in (
        'required: ["password", "email"]',  # a list of field names is no (name, value) pair
        "ValueError: ('token', 'expired')",  # an exception's args: words
        "the record identified by order_id was not found",  # prose, no quote and no digit
        "ALTER ROLE app WITH PASSWORD 'REDACTED'",
        "CREATE USER 'app'@'%' IDENTIFIED BY '********'",
        "CREATE USER 'app'@'%' IDENTIFIED WITH caching_sha2_password",
        'redis-cli -a "$REDIS_PASSWORD" ping',
        "keytool -list -keystore t.jks -storepass:env STOREPASS",
        "level=info msg=bypass bypass=true",
        # a form's (field, message) errors and an exception's args: sentences and capitalised words
        "ValidationError: [('password', 'This password is too common.'), ('email', 'Enter a valid email.')]",
        "KeyError: ('token', 'Expired')",
        "('api_key', 'Missing')",
        "the record identified by ord_2002 was not found",  # prose names a record, even with a digit
        "row identified by id42 was deleted",
        "bcp dbo.orders out orders.dat -S db -T -a 4096",  # -a: bcp's, sqlcmd's and osql's packet size
        'sqlcmd -S tcp:sql01 -a 8192 -Q "SELECT 1"',
    ):
        assert scrub(text) == text, text
        assert corpus.regex_only(text) == text, text


def test_a_wrapped_token_goes_whole_and_the_next_line_stays() -> None:
    head, tail = "XFdqDkmjc9TEwDmdOqqy2TCy1s873R", "h1fDhsbvT4xD6Bj7jocF9hdZUzNb1r"
    assert scrub(f"Authorization: Bearer {head}\n    {tail}\n    (retrying)") == (
        f"Authorization: Bearer {REDACTED}\n    (retrying)"
    )
    assert scrub(f"GITHUB_TOKEN={head}\n{tail}") == f"GITHUB_TOKEN={REDACTED}"
    # a next line that is not a bare run of token characters is the log's next line
    for after in ("Content-Type: application/json", "  description of the request", "  at Foo.bar(Foo.java:12)"):
        assert scrub(f"Bearer {head}\n{after}") == f"Bearer {REDACTED}\n{after}"


def test_unquoted_identified_by_and_pairs_with_a_credential_shape_still_go() -> None:
    for text, expected in (
        ("headers [('X-Api-Token', 'Q7wvLmXzRtKpYabc')]", f"headers [('X-Api-Token', '{REDACTED}')]"),
        ("ALTER USER scott IDENTIFIED BY tiger42 ACCOUNT UNLOCK", f"ALTER USER scott IDENTIFIED BY {REDACTED} ACCOUNT UNLOCK"),
        ("CREATE DATABASE LINK l CONNECT TO app IDENTIFIED BY Fern7Stone USING 'x'",
         f"CREATE DATABASE LINK l CONNECT TO app IDENTIFIED BY {REDACTED} USING 'x'"),
    ):
        assert scrub(text) == expected, text


@pytest.mark.xfail(strict=True, reason="a wrapped rest is any 8+ token characters; RE2 has no lookahead to say "
                   "'not a word', and requiring a digit would leave ~1 in 4 short random rests in place")
def test_a_next_line_that_is_one_word_is_not_a_wrapped_token() -> None:
    """A log's next line of one word (a traceback's header, a status) is the log's, not the token's rest."""
    head = "XFdqDkmjc9TEwDmdOqqy2TCy1s873R"
    for after in ("Traceback", "    retrying", "  Unauthorized"):
        assert scrub(f"Authorization: Bearer {head}\n{after}") == f"Authorization: Bearer {REDACTED}\n{after}"
