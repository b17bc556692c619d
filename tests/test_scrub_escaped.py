"""errscope.scrub on the twenty-second held-out set (tests/secret_corpus/escaped.py): secrets that carry the escaping
rules of the text around them: a value holding its container's escaped quote (JSON's and a shell's ``\\"``, SQL's and
YAML's ``''``, ADO's ``""``), a container quoted again by doubling (JSON in a CSV cell, a dict in an SQL literal), the
separator or the quotes written as a code (nginx's ``\\x22``, ``\\u0022``, ``&#34;``, quoted-printable, RFC 2047 encoded
words, ``%3A%20``, a URL nested URL-encoded in a parameter), shell escaping inside a value (``\\ ``, ``$'..'``, cmd's
``^``, make's ``$$``), CDATA and TOML multi-line strings, and argv with its NULs escaped; the same escapes around no
secret as benign.

Measured once before any fix (the final set, the tree before these rules): recall 121/225, 2/150 benign texts
altered; the RE2 patterns alone 115/225, 5/150. Fixed by kind (tests/secret_corpus/README.md, "Twenty-second set"):
211/225, 0/150; RE2 alone 205/225, 5/150. What is still missed or altered is pinned here, so that a fix, or a
regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import escaped

KNOWN_GAPS = {
    # ``echo "SMTP_PASSWORD=\"..\"..\""``: a value opened by an escaped quote inside a double-quoted string ends at the
    # next escaped quote (JSON in JSON reads the same way), so an escaped quote inside it ends it early.
    "shell_double_quoted_escapes",
    # ``'\''`` inside a value that is itself inside single quotes (``sh -c 'curl -u u:'\''<pw>'\'' ..'``) and
    # ``-p'..'"'"'..'``: the quoting nests two levels; the rules read one.
    "shell_single_quote_reopened",
    # ``CREATE ROLE .. PASSWORD 'a''b'`` and ``N'a''b'``: an older space-separated rule takes the value to the first
    # quote before the SQL clause rule runs.
    "sql_doubled_single_quote",
    # ``-H $'Authorization: Token a\'b'``: the header rule stops at the escaped quote; the ANSI-C rule reads only a
    # value right after ``=``.
    "ansi_c_quoting",
    # ``setx API_TOKEN ab^<cd``: cmd's caret before ``<``, ``>`` ends the bare value.
    "cmd_caret_escapes",
}
KNOWN_FALSE_POSITIVES: set[str] = set()
# RE2 alone also misses ``password: 'a''b'`` in a YAML flow mapping (a rule starting at the space before the key takes
# the value to its first quote and wins the leftmost pass);
REGEX_ONLY_GAPS = KNOWN_GAPS | {"yaml_single_quoted_doubled"}
# and alters what Python's checks spare: ``\u0022changeme\u0022``, a JSON-escaped mask (``"\u002a\u002a\u002a\u002a"``)
# and quoted-printable's ``=3D`` before a placeholder (``api_key=3D<set in dashboard>``). (ADO's empty ``Password="";``
# stays since the piped set: a connection string's quoted value needs a first character that opens no placeholder.)
REGEX_ONLY_ALTERED = {"escaped_json_placeholders", "json_masked_escaped", "qp_headers_plain"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("escaped_secrets.jsonl.gz"), corpus.held_out("escaped_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = escaped.escaped()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 225 and len(benign) == 150


def test_escaped_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 14 and len(result.altered) == 0  # recall 211/225, FP 0/150


def test_escaped_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 20 and len(result.altered) == 4  # 205/225, 4/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # written after the rules, in other formats' spellings of the same kinds
        ('{"refresh_token": "Q7wv2LmX9\\"zRt4KpYx8N", "ok": false}', "zRt4KpYx8N"),
        ('set -x; PGPASSWORD="Fern\\$Stone77" psql', "Stone77"),
        ('"{""secret"": ""Fern#Stone77""}"', "Fern#Stone77"),
        ("SELECT '{''api_key'': ''Q7wv2LmX9zRt4KpYx8N''}'::jsonb", "Q7wv2LmX9zRt4KpYx8N"),
        ("<db.password><![CDATA[Fern&Stone77]]></db.password>", "Fern&Stone77"),
        ("argv: nc\\x00--token\\x00Q7wv2LmX9zRt4KpYx8N", "Q7wv2LmX9zRt4KpYx8N"),
        ("export SECRET=$'Fern\\'Stone77'", "Stone77"),
        ("env MYSQL_PWD=Fern\\ Stone77 mysql", "Stone77"),
        ("passphrase=3D=22Fern-Stone77=22", "Fern-Stone77"),
        ("Subject: =?iso-8859-1?Q?Kennwort_Passwort=3A_Fern-Stone77?=", "Fern-Stone77"),
        ("?state=msg%3Dapi_key%3A%20Q7wv2LmX9zRt4KpYx8N", "Q7wv2LmX9zRt4KpYx8N"),
        ("?u=postgres%3A%2F%2Fapp%3AFern-Stone77%40db%3A5432%2Fx", "Fern-Stone77"),
        ('api_token = """Q7wv2LmX9zRt4KpYx8N"""', "Q7wv2LmX9zRt4KpYx8N"),
        ("<input id='k' name='api_key' value='Q7wv2LmX9zRt4KpYx8N'>", "Q7wv2LmX9zRt4KpYx8N"),
        ("$db_password = 'Fern\\'Stone77';", "Stone77"),
        ("{'password': 'Fern\\'Stone\"77'}", "Stone"),
        ('password => "Fern\\"Stone77"', "Stone77"),
        ('$env:API_TOKEN = "Q7wv2Lm`"X9zRt4KpYx8N"', "X9zRt4KpYx8N"),
        ('"{\\"password\\": \\"Fern\\\\\\"Stone77\\"}"', "Stone77"),
    ],
)
def test_other_spellings_of_these_kinds(text: str, secret: str) -> None:
    assert secret not in scrub(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"msg":"field \\"password\\" is required","code":"E42"}',
        '{"etag":"\\"9f86d081884c7d659a2feaa0c55ad015\\""}',
        '"{""password"": """", ""user"": ""alice""}"',
        "'{''password'': ''********''}'",
        "<password><![CDATA[]]></password>",
        "<token><![CDATA[{{ vault_token }}]]></token>",
        "cmdline: app\\x00--password-file\\x00/run/secrets/pw",
        "cmdline: psql\\x00--no-password\\x00app",
        "IFS=$'\\n\\t'",
        "export PASSWORD=$'$PASSWORD_FROM_VAULT'",
        "cd ~/My\\ Documents",
        "Content-Type: text/plain; charset=3D\"utf-8\"",
        "Subject: =?UTF-8?Q?Your_password_was_changed?=",
        "GET /?msg=password%3A%20too%20short",
        "?next=https%3A%2F%2Fapp.example.com%3A8443%2Forders",
        'description = """Rotate the token every 90 days."""',
        '<input type="password" name="password" value="">',
        '{"password":"\\u2022\\u2022\\u2022\\u2022"}',
        "token=3D<paste your token here>",
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    assert scrub(text) == text


def test_only_the_value_goes() -> None:
    assert scrub('{"password":"Fern\\"Stone77","user":"app"}') == f'{{"password":"{REDACTED}","user":"app"}}'
    assert scrub("<apiKey><![CDATA[Q7wv2LmX9zRt4KpYx8N]]></apiKey>") == f"<apiKey><![CDATA[{REDACTED}]]></apiKey>"
    assert scrub("?next=https%3A%2F%2Fapp%3AFern-Stone77%40db.internal%2F") == (
        f"?next=https%3A%2F%2F{REDACTED}%40db.internal%2F"
    )


@pytest.mark.xfail(strict=True, reason="two levels of shell quoting ('\\'' inside a single-quoted argument): one is read")
def test_nested_shell_quoting() -> None:
    assert "Stone77" not in scrub("sh -c 'mysql -p'\\''Fern'\\''Stone77'\\'' app'")
