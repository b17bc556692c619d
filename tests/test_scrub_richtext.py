"""errscope.scrub on the twenty-sixth held-out set (tests/secret_corpus/richtext.py): secrets as chat, wiki, mail and
document editors store them: Markdown code spans, tables, exporter escapes and fences; HTML labels and ``&nbsp;``,
Outlook paragraphs, Confluence storage format, Word runs; Atlassian Document Format, Notion rich text and Slack Block
Kit JSON; Jira wiki, MediaWiki tables, Org/AsciiDoc lists, RTF; typographic spaces and invisible characters; the same
markup around no credential (masks, placeholders, ids, settings, references) as benign.

Measured once before any fix (the final set, the tree at 27ed985): recall 46/200, 1/150 benign texts altered; RE2
alone 45/200, 4/150. Fixed by kind (1 pattern: ``markup_gap_value``, a credential's label, at least one piece of
markup, then a value with a letter and a digit): 200/200, 1/150; RE2 alone 189/200, 4/150. What is still missed or
altered is pinned here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import richtext

KNOWN_GAPS: set[str] = set()
# ``password: “xxxxxxxx”``: a value in typographic quotes is read bare, quotes and all, and no longer looks like a
# mask (from before this set).
KNOWN_FALSE_POSITIVES = {"smart_quote_prose"}
# RE2 alone: Notion repeats a text node's value in its ``plain_text`` member, far from the label (Python redacts the
# echo of a value it redacted; RE2 has no backreferences); AsciiDoc's ``DB password::`` with the value on the next line
# is taken by an older rule that stops at the line break.
REGEX_ONLY_GAPS = {"notion_rich_text", "org_asciidoc_lists"}
# RE2 alone also alters a Slack label's closing quote (``"password ", "style"``: ``sql_password_clause`` reads
# ``", "`` as a quoted password; Python's check spares it; from before this set).
REGEX_ONLY_ALTERED = KNOWN_FALSE_POSITIVES | {"slack_blocks_masked"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("richtext_secrets.jsonl.gz"), corpus.held_out("richtext_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = richtext.richtext()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 200 and len(benign) == 150


def test_richtext_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 0 and len(result.altered) == 1  # recall 200/200, FP 1/150


def test_richtext_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 11 and len(result.altered) == 4  # 189/200, 4/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # other editors' and languages' spellings of the same kinds, written after the rule
        ("<tr><td><b>Signing key</b></td><td><tt>Zk3QmP8vR2sLx7Wn</tt></td></tr>", "Zk3QmP8vR2sLx7Wn"),
        ("| `GITLAB_TOKEN` | `glpat-Xq2Lm9Vr7Tn4Ks8Bd1Fg` | ci |", "glpat-Xq2Lm9Vr7Tn4Ks8Bd1Fg"),
        ("Mot de passe\u202f: Fake#harbor9921", "Fake#harbor9921"),
        ('{"type":"text","text":"Token: ","marks":[{"type":"em"}]},{"type":"text","text":"Tq8Lz2Xv4Nw7Pr3K"}', "Tq8Lz2Xv4Nw7Pr3K"),
        ("h2. Access\n*Client secret:* {{Hq2Lz9Xv4Nw7Pr3Ks6}}", "Hq2Lz9Xv4Nw7Pr3Ks6"),
        ("{\\rtf1 {\\b\\fs20 Password:}\\tab Fake!quokka4410\\par}", "Fake!quokka4410"),
        ("api\u2060key\u00a0=\u00a0Rt7Vw2Qx9Lm4Zp8N", "Rt7Vw2Qx9Lm4Zp8N"),
    ],
)
def test_other_spellings_of_these_kinds(text: str, secret: str) -> None:
    out = scrub(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "<p><b>API key</b>: <code>&lt;set in the dashboard&gt;</code></p>",
        "| **Password** | `••••••••` |",
        "**Token lifetime**: 3600 seconds",
        '{"type":"text","text":"Token: ","marks":[{"type":"strong"}]},{"type":"text","text":"see the vault"}',
        "*Secret rotation:* {{weekly}}",
        "Mot de passe\u202f: voir le coffre-fort",
        "`password_min_length` = `12`",
        '{"token": null, "code": 401, "text": "unauthorized"}',
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    assert scrub(text) == text
