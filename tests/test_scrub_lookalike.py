"""errscope.scrub on a third held-out set (tests/secret_corpus/lookalike.py), written before reading
the rules in detail and weighted to benign look-alikes: config keys named like secrets with setting
values, token counts, ids, digests, base64 payloads, URLs, JWT headers, public keys, placeholders,
masks and references; secrets in MCP tool arguments, LLM and bot keys, XML, TOML, HCL, JAAS.

Measured once before any fix: Python recall 105/120, 9/120 benign lines altered; the RE2 patterns
alone (the Collector) recall 105/120, 13/120 altered. Fixed by kind (docs/scrubbing.md): Python
114/120, 5/120; RE2 alone 114/120, 7/120; after the fifth set (mcpstack) Python 114/120, 3/120
(a ``session_id=`` is an identifier); after the tenth (atrest) 117/120 in both (Oracle's ``sqlplus
user/pw@//host``). What is still missed or altered is pinned
here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations


import re2  # type: ignore[import-untyped]

from errscope import scrub
from errscope._patterns import combined_regex, combined_replacement
from tests import corpus
from tests.secret_corpus import lookalike

KNOWN_GAPS = {
    # (Oracle's ``sqlplus user/password@//host`` is read since the tenth set: the connect string after Oracle's tools.)
    # A password under a header whose name is a vendor's and ends in ``Key`` (``X-ClickHouse-Key``):
    # symbols break the 16-character run the compound-key rule needs.
    "clickhouse_header_key",
}
KNOWN_FALSE_POSITIVES: set[str] = set()
# The RE2 patterns alone also alter what only the Python-side checks spare (docs/scrubbing.md, "What each
# side cannot do"): ``"publicKey": "<base64>"`` (the word before the camelCase noun), ``secret_header = X-Hub-Signature-256``
# (the key's last token ``header``, a header's name), ``cache key: pip-<sha256>`` (the word before the noun, a digest's
# alphabet) and ``api_key=sk-...PaR5`` (an ellipsis keeps the ends of a masked key). (``session_id=`` left this list when
# a key ending in ``id`` stopped being a credential's name in RE2 too.)
REGEX_ONLY_ALTERED = {"api_key_header_names", "hash_ids", "masked_secrets"}  # ``publicKey`` left: RE2 reads the word now


def test_files_are_generated() -> None:
    secrets, benign = lookalike.lookalike()
    assert corpus.held_out("lookalike_secrets.jsonl.gz") == secrets
    assert corpus.held_out("lookalike_benign.jsonl.gz") == benign
    assert len(secrets) == 120 and len(benign) == 120


def test_lookalike_score() -> None:
    result = corpus.score(scrub, corpus.held_out("lookalike_secrets.jsonl.gz"), corpus.held_out("lookalike_benign.jsonl.gz"))
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 3 and len(result.altered) == 0  # recall 117/120, FP 0/120


def test_lookalike_regex_only_is_what_the_collector_runs() -> None:
    combined = re2.compile(combined_regex())
    replacement = combined_replacement("python")
    result = corpus.score(
        lambda text: combined.sub(replacement, text),
        corpus.held_out("lookalike_secrets.jsonl.gz"),
        corpus.held_out("lookalike_benign.jsonl.gz"),
    )
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.altered) == 3


def test_numbers_masks_tags_and_references_are_not_values() -> None:
    regex = re2.compile(combined_regex())
    for text in (
        '{"progressToken": 17, "progress": 3}',
        "token: 0",
        "missing required secret: STRIPE_KEY",
        "password=xxxxxxxx",
        "password: !env_var DB_PASSWORD",
        "password: vault:secret/data/app#db",
        "DB_PASSWORD=op://Prod/db/password",
        "api_key=SecretStr('***')",
        "- name: DB_PASSWORD\n  value: $(DB_PASSWORD)",
    ):
        assert scrub(text) == text
        assert regex.search(text) is None, text


def test_named_value_pairs_and_short_values_still_go() -> None:
    regex = re2.compile(combined_regex())
    for text, secret in (
        ('<add key="ClientSecret" value="Quartz#7715meadow" />', "Quartz#7715meadow"),
        ("- name: DB_PASSWORD\n  value: Quartz#7715meadow", "Quartz#7715meadow"),
        ('{"field": "dbPassword", "value": "Quartz#7715meadow"}', "Quartz#7715meadow"),
        ("token: 7715a", "7715a"),
        ("password=hunter", "hunter"),
        ("password=Hunter", "Hunter"),
        ("password=xenon:Ab", "xenon:Ab"),
    ):
        assert secret not in scrub(text)
        assert secret not in regex.sub("", text), text
