"""errscope.scrub on the twenty-first held-out set (tests/secret_corpus/decoys.py), benign-heavy: what stands where a
secret would go and is none (references and placeholders of every config system, a secret's NAME in a secret manager,
digests and ids under key-like names, public keys and fingerprints, masks and truncations, SOPS ciphertext, settings
and documentation about passwords), beside the same shapes holding a real (fake) value.

Measured once before any fix of this set (after the by-kind fixes of the other sets' false positives): recall 71/80,
16/200 benign lines altered; the RE2 patterns alone 71/80, 38/200. The misses were a value echoed into a command that
stores a secret (``printf '..' | docker secret create``, ``echo -n '..' | gcloud secrets create``) and a quoted
``--secret-string '..'``; the false positives a Vault path in Ansible's ``hashi_vault`` lookup, Spring's
``${X:changeme}``, ``--secret=redis-auth`` (a secret's name), CI cache keys ending in a SHA-256, SOPS' ``ENC[..]``.
Fixed by kind (README, Scrubbing): 80/80, 0/200; RE2 alone 80/80, 28/200. What RE2 alone still alters is pinned here.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import decoys

KNOWN_GAPS: set[str] = set()
KNOWN_FALSE_POSITIVES: set[str] = set()
REGEX_ONLY_GAPS = KNOWN_GAPS
# RE2 alone alters what only Python's checks spare (README, "What each side cannot do"): a lookup key's qualifier
# before ``-`` or a space (``Idempotency-Key:``; ``idempotency_key=``, ``dedup_key`` and ``publicKey`` the RE2 rule
# reads), SOPS' ``ENC[..]``, a digest's alphabet after a tool's name, masks that keep an end (``sk-...abcd``,
# ``****1234``), a Vault path and a placeholder default, a secret's name after ``--secret=``, an OpenPGP key id, a word
# of prose after ``Secret:``.
REGEX_ONLY_ALTERED = {
    "idempotency_and_dedup_keys", "sops_ciphertext", "cache_keys_with_digests", "masked_and_truncated",
    "ansible_refs", "secret_manager_names", "pgp_public_listing", "spring_placeholders", "password_docs_prose",
}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("decoys_secrets.jsonl.gz"), corpus.held_out("decoys_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = decoys.decoys()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 80 and len(benign) == 200
    assert len({line["format"] for line in secrets}) == 20 and len({line["category"] for line in benign}) == 25


def test_decoys_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 0 and len(result.altered) == 0  # recall 80/80, FP 0/200


def test_decoys_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 0 and len(result.altered) == 28  # 80/80, 28/200


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


@pytest.mark.parametrize(
    "text",
    [
        # other spellings of this set's benign kinds, written after the rules
        "KeyName=alias/prod-signing kms_key_id=mrk-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d",
        "SessionId: 7f9c2ba4-e88f-4f21-9b5c-1d2e3f4a5b6c",
        "token_path: /var/run/secrets/kubernetes.io/serviceaccount/token",
        "secret_name: payments-api-key",
        "vault_secret: kv/data/prod/payments:api_key",
        "password: ${DB_PASSWORD:example}",
        "Cache restored from key: Windows-npm-4f1c9b2e7d3a8f6e5b4c3d2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e",
        "api_key: ENC[AES256_GCM,data:Zm9vYmFyYmF6cXV4,iv:MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=,tag:YWJjZGVmZ2hpamtsbW5vcA==,type:str]",
        "ktutil: addent -password -p deploy@CORP.EXAMPLE.NET -k 2 -e aes256-cts",
        "Secret: stored in the team vault, ask #platform",
        "api_key: sk-ant-...9Qx2",
        "gpg: using RSA key 9A3F5C7E1B2D4F60",
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    assert scrub(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("printf '%s' 'Kq7#mW2pZx9!' | kubectl create secret generic db --from-file=password=/dev/stdin", "Kq7#mW2pZx9!"),
        ("echo 'Rt5$vB8nQ2wL' | docker login registry.example.com -u ci --password-stdin", "Rt5$vB8nQ2wL"),
        ("aws secretsmanager create-secret --name prod/db --secret-string 'Hx3@pL9qW7zN'", "Hx3@pL9qW7zN"),
        ("spring.datasource.password=${DB_PASSWORD:Zx8#Lm2qW9vB}", "Zx8#Lm2qW9vB"),
        ("db-password: Zx8#Lm2qW9vB", "Zx8#Lm2qW9vB"),
    ],
)
def test_secrets_of_these_shapes_go(text: str, secret: str) -> None:
    out = scrub(text)
    assert secret not in out and REDACTED in out
