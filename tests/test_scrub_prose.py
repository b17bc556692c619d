"""errscope.scrub on a fourteenth held-out set (tests/secret_corpus/prose.py): credentials in human-written text as
MCP tools return it when they read tickets, chat, e-mail, wikis, commit messages, PR comments, support transcripts,
calendar notes and Markdown docs. Sentences that hand a credential over (``the password for x is ..``, ``use .. as
the token``, ``changed the root pw to ..``, ``creds are user / ..``), inline code and fenced blocks, Markdown tables
with a secret column, bullet and numbered lists, bold labels, quoted and forwarded mail, HTML mail, Slack and Teams
messages with mentions and emoji, chat answers on the next line, one-time codes, PINs and combinations, recovery
code lists, TOTP setup keys, seed phrases, license keys and passphrases of words. Benign: prose about passwords and
tokens without one, where a secret is kept, placeholders, masks, ordinary words after ``key``/``token``, commit
hashes, ticket ids, versions, product names, booking references, docs links, advice.

Measured once before any fix: recall 92/208 (0.442), 3/150 benign lines altered; the RE2 patterns alone 92/208,
6/150. The misses were the kinds the keyword rules leave out: a copula after a few words (``Password for the staging
box is ..``), ``to``, arrows, dashes, parentheses and Markdown emphasis between the word and the value, the value
before its name (``.. is the password``, ``use .. as the token``), ``user / password``, a question answered on the
next line, numeric codes and PINs, seed phrases, passphrases of words, code lists, grouped TOTP and license keys,
table columns. Fixed by kind (docs/scrubbing.md): 201/208, 3/150; RE2 alone 201/208, 6/150. What is still missed or
altered is pinned here.
"""

from __future__ import annotations

from tests import corpus
from tests.secret_corpus import prose
from errscope import scrub
from errscope._patterns import REDACTED

KNOWN_GAPS = {
    # ``key ➡️ ..`` and ``SSID: .., key: ..``: ``key`` alone names too much that is no credential (``cache key``,
    # ``primary key``, ``Idempotency-Key``), so it counts only qualified (``the key``, ``api key``, ``wifi key``).
    "emoji_arrow_labels",
    "wifi_password",
    # a list of codes, or a seed phrase in a fenced block, with no word naming them before (the only hint is after
    # it, ``^ 24-word seed``, or none at all: ``saving these here``).
    "recovery_codes",
    "seed_phrase_blocks",
    # ``unlock the .p12 with ..``: a verb and a file, no credential word.
    "ssh_key_passphrase",
}
# (``* Secret: managed by External Secrets``, a word of prose where a value goes, and ``API key 2c2a… (hidden)``, a
# value cut for display, left when Python learnt both.)
KNOWN_FALSE_POSITIVES: set[str] = set()
REGEX_ONLY_GAPS = KNOWN_GAPS
# ... and alters what only Python's checks spare: capitals-only placeholders (``export API_KEY=YOUR_API_KEY``), the two
# above. (``api_key = settings.API_KEY`` left when a value without a digit stopped holding ``.`` in RE2 too.)
REGEX_ONLY_ALTERED = {"bullets_without_secret", "masked_values", "placeholders"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("prose_secrets.jsonl.gz"), corpus.held_out("prose_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = prose.prose()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 208 and len(benign) == 150
    assert len({line["format"] for line in secrets}) == 52 and len({line["category"] for line in benign}) == 30


def test_prose_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 7 and len(result.altered) == 0  # recall 201/208, FP 0/150


def test_prose_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 7 and len(result.altered) == 4  # 201/208, 4/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


def test_prose_about_credentials_stays() -> None:
    """Sentences about credentials without one: the value needs a letter and a digit (Python: a password or random
    shape), ``key`` alone is no credential word, and a slash without a credential word needs spaces around it."""
    for text in (
        "the token is only valid for 60 minutes", "Password for the staging box is expired, reset it",
        "the key insight is that retries must be idempotent", "pass rate is 98% on main",
        "the seed phrase is stored offline and never shared with anyone",
        "Idempotency-Key: 103a2663-ca76-4a80-a424-09c8fb8aee6d", "loaded from /lib/x86_64-linux-gnu/libc.so.6",
        "PIN must be 4-6 digits", "exit code 137", "You have 8 backup codes left.",
        "passphrase is required for this key", "Never share your 12-word seed phrase.",
        "| Token type | Lifetime |\n| --- | --- |\n| access | 1h |",
        "I set the password as instructed", "token is now expired", "read / write access to repo2",
        "the token budget is 2000 tokens per request", "commit a1b2c3d4 is the one with the token fix",
    ):
        assert scrub(text) == text


def test_other_spellings_of_these_kinds() -> None:
    """A probe of these kinds in spellings the set does not hold."""
    for prefix, secret, suffix in (
        ("The shared secret for RADIUS is now ", "Tq8#mXp2Lz7k", ""),
        ("rotated the sandbox key, new one is ", "Bq7pXm2kLz9wQ4", " (expires Friday)"),
        ("> the VPN password was reset to ", "Gm7!xQ2pLk9z", "."),
        ("Try ", "Xk9vTq2mLp7wRz4a", " as the bearer token"),
        ("door PIN: ", "4829", " (changes monthly)"),
        ("| Name | Secret |\n|---|---|\n| webhook | ", "whsec9Qm2Xp7Lk4Tz", " |"),
        ("The new password is: ", "Rk7#vQm2Xp9z", ""),
        ("I set the password as ", "Rk7#vQm2Xp9z", " for now"),
        ("new creds: deploy / ", "Rk7#vQm2Xp9z", ""),
    ):
        assert scrub(prefix + secret + suffix) == prefix + REDACTED + suffix
