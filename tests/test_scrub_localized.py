"""errscope.scrub on a twelfth held-out set (tests/secret_corpus/localized.py): credentials as localized apps
write them, under other languages' key names and in their prose. Compound and noun-first keys (``DB_PASSWORT``,
``SENHA_BANCO``, ``mot_de_passe_bdd``, ``HASLO_BAZY``, ``пароль_бд``, ``токен_доступа``, ``MAT_KHAU_DB``),
``mdp``, ``clave``, ``Geheimnis``, ``秘密鍵``; localized log and error messages and CLI output that echo a password
(``Neues Passwort für x: ..``, ``mot de passe « .. »``, ``您的临时密码为：..``, ``パスワード『..』``); full-width
separators after Latin and CJK keys; JSON, YAML, properties, connection strings, env dumps and dict reprs with
localized keys; keys in Turkish, Nordic, Finnish, Czech, Hungarian, Vietnamese, Greek, Arabic, Hebrew and Hindi.
Benign: the same languages without a credential (UI strings, translation files, placeholders and bullet masks,
events and errors about passwords, policy settings, prose, token lifetimes, full-width ordinary fields, schemas,
ticket titles, commit subjects, checksums and ids beside those words).

Measured once before any fix: recall 109/152 (0.717), 7/100 benign lines altered; the RE2 patterns alone the
same. The misses were noun-first compound keys, prose with words between the password word and the colon or a
quote right after it, ``mdp``, ``clave``, ``Geheimnis``; the false positives translations of the key as its value
(``login.password=Passwort``) and bullet masks (``●●●●``). Fixed by kind (docs/scrubbing.md): 151/152, 1/100; RE2
alone 151/152, 7/100. What is still missed or altered is pinned here.
"""

from __future__ import annotations

from tests import corpus
from tests.secret_corpus import localized
from errscope import scrub
from errscope._patterns import REDACTED

KNOWN_GAPS: set[str] = set()
# (``localized_table_rows``, a Markdown table whose header names the password column in another language, is read
# since ``key_kind`` knows the text rules' key words: the table reader asks it what a header names.)
# (``Passwort: siehe Tresor (...)`` left when a word of prose where a value goes stopped being one.)
KNOWN_FALSE_POSITIVES: set[str] = set()
REGEX_ONLY_GAPS = {"localized_table_rows"}  # a cell's position is no regular expression (_tabular)
# ... and alters what only Python's checks spare: the key's translation as its value (``label.senha=Senha``,
# ``"password": "密码"``) and bullet masks (``パスワード：●●●●●●●●``).
REGEX_ONLY_ALTERED = {"i18n_json", "resource_bundles", "localized_masks"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("localized_secrets.jsonl.gz"), corpus.held_out("localized_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = localized.localized()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 152 and len(benign) == 100
    assert len({line["format"] for line in secrets}) == 38 and len({line["category"] for line in benign}) == 25


def test_localized_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 0 and len(result.altered) == 0  # recall 152/152, FP 0/100


def test_localized_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 1 and len(result.altered) == 6  # 151/152, 6/100


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


def test_settings_under_noun_first_keys_stay() -> None:
    """The noun-first rule needs a letter and a digit: counts, dates, flags and words under these keys stay."""
    for text in ("senha_expira_dias=90", "PASSWORT_ABLAUF_TAGE=30", "mdp_obligatoire=false", "senha_forte: verdadeiro",
                 "Passwort zuletzt geändert: 2025-03-01", "пароль.мин_длина=10", "Срок действия токена: 24 часа"):
        assert scrub(text) == text


def test_other_spellings_of_these_kinds() -> None:
    """A probe of these kinds in spellings the set does not hold (fixed as rules, not kept as set lines): an
    apostrophe inside the words before the colon, Italian ``segreto``, Cyrillic prose with spaces, ``clé secrète``
    first in a compound, a word starting with ``ş`` (RE2's ``\\b`` is ASCII), inflections (``şifresi``, ``hasła``)."""
    for prefix, secret in (
        ("Le nouveau mot de passe de l'utilisateur dupont : ", "Tv8#qLm2Xk9p"),
        ("Il tuo codice segreto: ", "Bq7pXm2kLz9w"),
        ("Пароль от базы данных: ", "Gm7!xQ2pLk9z"),
        ("clé_secrète_jwt=", "Jm2#qXp9Lk7zWv4t"),
        ("kullanıcı şifresi: ", "Tq8#mXp2Lz7k"),
        ("Twoje hasła: ", "Tq8#mXp2Lz7k"),
        ("SENHA_DO_BANCO=", "Xk9vTq2mLp7wRz4a"),
    ):
        assert scrub(prefix + secret) == prefix + REDACTED
    for text in ("Le mot de passe de l'utilisateur a expiré : 2025-03-01", "Пароль пользователя был изменён: 2025-03-01",
                 "Kennwort des Kontos svc_backup2: abgelaufen", "haslo_zmienione=2025-03-01"):
        assert scrub(text) == text
