"""errscope.scrub on the twentieth held-out set (tests/secret_corpus/invoked.py): secrets as commands and tools are
handed them: a configuration command that sets a credential-named key to a value after a space, a secret echoed or
here-stringed into a command that reads a credential from its standard input, a password where one tool's syntax
puts it, a command's quoted word list (Redis ``MONITOR``, argv tuples, RESP), Erlang/Elixir terms, backslash-escaped
single quotes, cookies outside a ``Cookie:`` header, and daemons' credential files with a host before
``user:password``; the same commands, files and cookies without a secret as benign.

Measured once before any fix (the final set, the tree before these rules): recall 89/250, 9/190 benign texts altered;
the RE2 patterns alone 93/250, 12/190. Fixed by kind (tests/secret_corpus/README.md, "Twentieth set"): 244/250, 2/190;
RE2 alone 245/250, 12/190. What is still missed or altered is pinned here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import invoked

KNOWN_GAPS = {
    # ``rclone config update b2 account <id> key <secret>``: the bare word ``key`` after a config verb is too common
    # a word to name a secret (``gsettings set <schema> key ..``).
    "rclone_config_create_pairs",
    # ``smtp.gmail.com:587 user:<pw>`` without Postfix' brackets reads like ``host:port id:count``; and a provider key
    # id as the user (``[..]:587 AKIA..:<pw>``): the id is masked first, and the pair is no longer ``user:password``.
    "postfix_sasl_passwd",
}
# ``login=PROXYPASS connect-fail-limit=2``: ``keyword_space_separated`` reads the value ``PROXYPASS`` as a key
# ending in ``pass`` (a rule older than this set).
KNOWN_FALSE_POSITIVES = {"squid_plain"}
REGEX_ONLY_GAPS = {"rclone_config_create_pairs", "postfix_sasl_passwd"}
# ... and what only Python's checks spare: ``user@host`` after ssh/plink/sshpass (an e-mail's shape), OpenSSL's
# ``-pass env:VAR`` / ``file:/path`` (references) and ``-pbkdf2`` (``-p`` + a word with a digit), ``psk="..."``.
REGEX_ONLY_ALTERED = KNOWN_FALSE_POSITIVES | {
    "short_p_not_password", "sshpass_from_env", "putty_keyfile", "openssl_without_k", "wpa_passphrase_placeholder",
}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("invoked_secrets.jsonl.gz"), corpus.held_out("invoked_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = invoked.invoked()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 250 and len(benign) == 190


def test_invoked_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 6 and len(result.altered) == 2  # recall 244/250, FP 2/190


def test_invoked_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 5 and len(result.altered) == 12  # 245/250, 12/190


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # written after the rules, in other tools' spellings of the same kinds
        ("npm set //registry.npmjs.org/:_authToken npm_AbCdEf1234567890abcdEFGH12345678", "npm_AbCdEf1234567890abcdEFGH12345678"),
        ("conda config --set proxy_servers.password Fern#Stone77", "Fern#Stone77"),
        ("pip config set global.password Fern#Stone77", "Fern#Stone77"),
        ("heroku config:set API_TOKEN Fern#Stone77", "Fern#Stone77"),
        ("echo Fern#Stone77 | az login --service-principal -u app -p @- --tenant t", "Fern#Stone77"),
        ("echo 'Fern#Stone77' | sudo --stdin apt update", "Fern#Stone77"),
        ("7za a -pFern#Stone77 -mhe=on backup.7z docs/", "Fern#Stone77"),
        ("sshpass -p'Fern#Stone77' ssh deploy@db1", "Fern#Stone77"),
        ('set_cookie("sid", "Q7wv2LmX9zRt4KpYx8Nc")', "Q7wv2LmX9zRt4KpYx8Nc"),
        ("[<Cookie connect.sid=s%3AQ7wv2LmX9zRt4KpYx8Nc.abcdefghijklmnop for app.example.com/>]", "Q7wv2LmX9zRt4KpYx8Nc"),
        ('[{<<"password">>,<<"Fern#Stone77">>}]', "Fern#Stone77"),
        ('"AUTH" "Fern#Stone77"', "Fern#Stone77"),
    ],
)
def test_other_spellings_of_these_kinds(text: str, secret: str) -> None:
    assert secret not in scrub(text)


@pytest.mark.parametrize(
    "text",
    [
        "git config --global core.editor vim",
        "echo 'done' | tee -a log.txt",
        "echo build-2024 > /tmp/version",
        "yes | apt-get install curl",
        "yes y | ssh-keygen -q -t ed25519 -N '' -f key",
        "printf '%s\\n' line1 line2 | sudo tee /etc/motd",
        "zip -q -r out.zip dir",
        "{password_min_length,12}",
        "set_cookie('lang', 'en-US')",
        "['auth', 'session', 'token']",
        "kubectl config set-credentials ci --token=$(cat token)",
        "set key 12345",
        "defaults write com.apple.finder AppleShowAllFiles YES",
        "ssh -p 2222 -i ~/.ssh/id_ed25519 deploy@db1.internal uptime",
        ":NickServ!services@irc.example.net NOTICE me :You are now identified",
        "openssl enc -d -aes-256-cbc -pass env:BACKUP_KEY -in a.enc",
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    assert scrub(text) == text


def test_only_the_value_goes() -> None:
    assert scrub("aws configure set aws_secret_access_key Q7wv2LmX9zRt4KpY/x --profile dev") == (
        f"aws configure set aws_secret_access_key {REDACTED} --profile dev"
    )
    assert scrub("echo 'Fern#Stone77' | docker login -u ci --password-stdin") == (
        f"echo '{REDACTED}' | docker login -u ci --password-stdin"
    )


def test_here_string_piped_to_a_reader() -> None:
    assert "Fern#Stone77" not in scrub("cat <<< 'Fern#Stone77' | docker login --password-stdin")


def test_a_cookie_name_in_prose_stays() -> None:
    text = "cookie 'consent_given_2024' set"
    assert scrub(text) == text
