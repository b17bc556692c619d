"""A twenty-sixth held-out set: secrets as chat, wiki, mail and document editors carry them.

    python -m tests.secret_corpus.richtext   # rewrites richtext_*.jsonl.gz here

The other sets hold a value after its key and a separator, however quoted, escaped, typed or continued, in what
programs print. Text that people wrote and an editor stored reaches an MCP error too, and often: the most used MCP
servers read and write Slack, Notion, Confluence, Jira, Gmail/Outlook and Word documents, and their errors quote the
message, page or block they failed on. Editors put their own markup between a label and its value, and a rule that
wants ``key`` then ``:``/``=`` then the value finds a closing tag, a code span's backtick, an entity, a typographic
space or the next node of a document tree there. Written from each editor's documented storage format before
reading the rules. Kinds (each a family of formats):

- Markdown as people write it in chat and READMEs: a key in a code span and its value in another
  (```DB_PASSWORD` = `..```), cells of a table with emphasis or code (``| **Password** | `..` |``), the markup
  escaped by an exporter (``\\*\\*password\\*\\*: ..``), a label and its value in a fenced block or code span on the
  next line;
- HTML from rich-text editors and mail clients: a label in ``<b>``/``<strong>``/``<th>``/``<dt>`` and the value in
  ``<code>``/``<td>``/``<dd>`` after it, ``&nbsp;`` as the separator's space, Outlook's label and value in two
  ``<p class=MsoNormal>`` paragraphs; Confluence's storage format; Word's ``document.xml`` runs (``<w:t>``);
- document trees as JSON: Atlassian Document Format (Jira/Confluence cloud), Notion's rich text, Slack's Block Kit
  ``rich_text``: the label and the value are two text nodes, the value's marked as code;
- wiki and markup languages: Jira wiki (``{{..}}`` monospace), MediaWiki tables (``| password || ..``), Org and
  AsciiDoc description lists (``- Password :: ..``, ``*Password*:: ..``), RTF (``{\\b Password:} ..\\par``);
- typography that editors and keyboards insert: a no-break, narrow no-break or thin space around the separator
  (French puts one before ``:``), a zero-width space or a soft hyphen inside or after the key, smart quotes and
  dashes (``–password``) — the last two already handled, kept as the kind's controls.

Benign: the same markup around no credential, each category saying why: masked values (``••••••••``, ``********``,
``[REDACTED]``), placeholders (``<your-api-key>``, ``YOUR_API_KEY``, ``${DB_PASSWORD}``), settings under secret
words (``Password policy``, ``token_ttl``), ids, commit SHAs, UUIDs, trace ids, invoice numbers, prose with smart
quotes, dashes and typographic spaces, mentions with zero-width spaces, references to where a secret is kept.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). No benign line holds an e-mail address. 20 secret formats x 10 and 30 benign categories x 5.
``tests/test_scrub_richtext.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import json

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: richtext() seeds it


def tok() -> str:
    return pick(rnd(_r.randint(24, 40)), rnd(40, HEX), rnd(43, B64URL), "FAKE" + rnd(28, ALNUM))


def secret() -> str:
    return pick(fpw(), tok(), tok())


def label() -> str:
    """A label as people write it: words, any case."""
    return pick("Password", "password", "API key", "API Key", "Token", "Access token", "Client secret", "DB password",
                "Secret key", "api_key", "Admin password", "Bot token")


def env_key() -> str:
    return pick("DB_PASSWORD", "API_KEY", "SLACK_BOT_TOKEN", "CLIENT_SECRET", "POSTGRES_PASSWORD", "STRIPE_SECRET_KEY",
                "api_key", "access_token", "password", "OPENAI_API_KEY")


def jdump(obj: object) -> str:
    return pick(json.dumps(obj), json.dumps(obj, separators=(",", ":")), json.dumps(obj, ensure_ascii=False))


# --- document trees, from each product's documented JSON ---------------------------------------------------------


def adf(lab: str, value: str) -> str:
    """Atlassian Document Format: a paragraph of two text nodes, the label ``strong``, the value ``code``."""
    return jdump({"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": lab + pick(": ", ":", " "), "marks": [{"type": "strong"}]},
        {"type": "text", "text": value, "marks": [{"type": "code"}]}]}]})


def notion(lab: str, value: str) -> str:
    """Notion's rich text array (``annotations`` on every node)."""
    def node(text: str, bold: bool, code: bool) -> dict[str, object]:
        return {"type": "text", "text": {"content": text, "link": None},
                "annotations": {"bold": bold, "italic": False, "strikethrough": False, "underline": False,
                                "code": code, "color": "default"}, "plain_text": text, "href": None}
    return jdump({"object": "block", "type": "paragraph",
                  "paragraph": {"rich_text": [node(lab + pick(": ", ":", " "), True, False), node(value, False, True)]}})


def slack_blocks(lab: str, value: str) -> str:
    """Slack Block Kit ``rich_text`` (what a message's ``blocks`` hold)."""
    return jdump({"type": "rich_text", "block_id": rnd(5, ALNUM), "elements": [{"type": "rich_text_section", "elements": [
        {"type": "text", "text": lab + pick(": ", ":", " "), "style": {"bold": True}},
        {"type": "text", "text": value, "style": {"code": True}}]}]})


def docx_runs(lab: str, value: str) -> str:
    """WordprocessingML: a paragraph of runs, the value in a run of its own."""
    bold = "<w:rPr><w:b/></w:rPr>"
    mono = '<w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas"/></w:rPr>'
    return (f'<w:p><w:r>{pick(bold, "")}<w:t xml:space="preserve">{lab}: </w:t></w:r>'
            f'<w:r>{pick(mono, "")}<w:t>{value}</w:t></w:r></w:p>')


# --- secrets ------------------------------------------------------------------------------------------------------

NBSP, NNBSP, THIN, ZWSP, SHY, WJ = "\u00a0", "\u202f", "\u2009", "\u200b", "\u00ad", "\u2060"

SECRETS: list[tuple[str, str, Maker]] = [
    ("markdown_code_spans", "log", one(secret,
        lambda s: f"`{env_key()}` = `{s}`",
        lambda s: f"Set `{env_key()}`: `{s}` in the staging env",
        lambda s: f"- `{env_key()}` → `{s}`",
        lambda s: f"> `{env_key()}`=`{s}`")),
    ("markdown_table_cells", "log", one(secret,
        lambda s: f"| Name | Value |\n|---|---|\n| **{label()}** | `{s}` |",
        lambda s: f"| `{env_key()}` | `{s}` | rotated 2026-01-02 |",
        lambda s: f"| *{label()}* | {s} |",
        lambda s: f"|**{label()}**|`{s}`|")),
    ("markdown_escaped_by_exporter", "log", one(secret,
        lambda s: f"\\*\\*{label()}\\*\\*: {s}",
        lambda s: f"{label()}: \\`{s}\\`",
        lambda s: f"\\*\\*{label()}:\\*\\* \\`{s}\\`",
        lambda s: f"\\_{label()}\\_: {s}")),
    ("markdown_label_then_code", "log", one(secret,
        lambda s: f"**{label()}**\n`{s}`",
        lambda s: f"{label()}:\n```\n{s}\n```",
        lambda s: f"### {label()}\n\n```text\n{s}\n```",
        lambda s: f"**{label()}:**\n\n`{s}`")),
    ("html_label_markup", "log", one(secret,
        lambda s: f"<p><b>{label()}</b>: <code>{s}</code></p>",
        lambda s: f"<strong>{label()}:</strong> <code>{s}</code>",
        lambda s: f"<dl><dt>{label()}</dt><dd>{s}</dd></dl>",
        lambda s: f"<tr><th>{label()}</th><td><code>{s}</code></td></tr>",
        lambda s: f"<li><em>{label()}</em> - <tt>{s}</tt></li>")),
    ("html_nbsp_separator", "log", one(secret,
        lambda s: f"{label()}:&nbsp;{s}",
        lambda s: f"<div>{label()}:&nbsp;<span>{s}</span></div>",
        lambda s: f"**{label()}:**&nbsp;{s}",
        lambda s: f"{label()}&nbsp;:&nbsp;{s}<br>",
        lambda s: f"<p>{label()}:&#160;{s}</p>")),
    ("outlook_paragraphs", "log", one(secret,
        lambda s: f'<p class=MsoNormal>{label()}:<o:p></o:p></p>\n<p class=MsoNormal>{s}<o:p></o:p></p>',
        lambda s: f'<p class="MsoNormal"><b>{label()}<o:p></o:p></b></p><p class="MsoNormal"><span style="font-family:Consolas">{s}</span><o:p></o:p></p>',
        lambda s: f'<div>{label()}:</div><div>{s}</div>')),
    ("confluence_storage", "log", one(secret,
        lambda s: f"<p><strong>{label()}</strong>: <code>{s}</code></p>",
        lambda s: f"<table><tbody><tr><td><p>{label()}</p></td><td><p><code>{s}</code></p></td></tr></tbody></table>",
        lambda s: f'<ac:structured-macro ac:name="code"><ac:parameter ac:name="title">{label()}</ac:parameter><ac:plain-text-body><![CDATA[{s}]]></ac:plain-text-body></ac:structured-macro>')),
    ("word_document_runs", "log", one(secret, lambda s: docx_runs(label(), s))),
    ("atlassian_document_format", "log", one(secret, lambda s: adf(label(), s))),
    ("notion_rich_text", "log", one(secret, lambda s: notion(label(), s))),
    ("slack_block_kit", "log", one(secret, lambda s: slack_blocks(label(), s))),
    ("jira_wiki_markup", "log", one(secret,
        lambda s: f"{label()}: {{{{{s}}}}}",
        lambda s: f"*{label()}:* {{{{{s}}}}}",
        lambda s: f"||Field||Value||\n|{label()}|{{{{{s}}}}}|",
        lambda s: f"* {label()}: {{color:#de350b}}{s}{{color}}")),
    ("mediawiki_table", "log", one(secret,
        lambda s: f'{{| class="wikitable"\n|-\n| {label()} || {s}\n|}}',
        lambda s: f"|-\n! {label()}\n| {s}",
        lambda s: f"| {label()} || <code>{s}</code>")),
    ("org_asciidoc_lists", "log", one(secret,
        lambda s: f"- {label()} :: {s}",
        lambda s: f"*{label()}*:: {s}",
        lambda s: f"{label()}::\n  {s}",
        lambda s: f"| {label()} | ={s}= |")),
    ("rtf_text", "log", one(secret,
        lambda s: f"{{\\rtf1\\ansi\\deff0 {{\\b {label()}:}} {s}\\par}}",
        lambda s: f"{{\\rtf1 {label()}: {{\\f1 {s}}}\\par}}",
        lambda s: f"\\pard {label()}:\\tab {s}\\par")),
    ("typographic_spaces", "log", one(secret,
        lambda s: f"{label()}{NBSP}={NBSP}{s}",
        lambda s: f"{label()}{NNBSP}: {s}",
        lambda s: f"Mot de passe{NBSP}: {s}",
        lambda s: f"{env_key()}{THIN}={THIN}{s}")),
    ("invisible_characters", "log", one(secret,
        lambda s: f"pass{SHY}word: {s}",
        lambda s: f"{label()}{ZWSP}: {s}",
        lambda s: f"{env_key()}{WJ}={s}",
        lambda s: f"{label()}:{ZWSP} {s}")),
    ("smart_quotes_and_dashes", "log", one(secret,
        lambda s: f"{label()}: “{s}”",
        lambda s: f"{env_key()}=‘{s}’",
        lambda s: f"mysql –u admin –password={s}",
        lambda s: f"docker login —password “{s}” registry.example.com")),
    ("slack_mrkdwn", "log", one(secret,
        lambda s: f"*{label()}:* `{s}`",
        lambda s: f"_{label()}_: `{s}`",
        lambda s: json.dumps({"type": "mrkdwn", "text": f"*{label()}*: `{s}`"}))),
]


# --- benign -------------------------------------------------------------------------------------------------------


def _masked() -> str:
    return pick("••••••••", "********", "[REDACTED]", "<redacted>", "***", "xxxxxxxx", "(hidden)")


def _placeholder() -> str:
    return pick("<your-api-key>", "YOUR_API_KEY", "${DB_PASSWORD}", "<PASSWORD>", "{{ api_key }}", "changeme-in-vault")


def _plain_label() -> str:
    return pick("Owner", "Commit", "Build", "Region", "Ticket", "Status", "Trace ID", "Invoice", "Key ID", "Token scopes")


def _plain_value() -> str:
    return pick(rnd(40, HEX), uuid(), f"INV-2026-{_r.randint(1000, 9999)}", "team-payments", "eu-west-1",
                f"#{_r.randint(1000, 99999)}", rnd(32, HEX), "repo, read:org")


BENIGN: list[tuple[str, str, object]] = [
    ("markdown_code_span_masked", "log", lambda: f"`{env_key()}` = `{_masked()}`"),
    ("markdown_code_span_placeholder", "log", lambda: f"`{env_key()}` = `{_placeholder()}`"),
    ("markdown_table_settings", "log", lambda: pick(f"| **Password policy** | {_r.randint(8, 16)} characters |",
        f"| `token_ttl` | `{_r.randint(60, 86400)}` |", f"| **{_plain_label()}** | `{_plain_value()}` |")),
    ("markdown_escaped_plain", "log", lambda: pick(f"\\*\\*Note\\*\\*: run \\`make test\\`", f"API\\_KEY\\_ID: {uuid()}",
        f"\\*\\*{_plain_label()}\\*\\*: {_plain_value()}")),
    ("markdown_label_then_code_plain", "log", lambda: pick(f"**{_plain_label()}**\n`{_plain_value()}`",
        f"{label()}:\n```\n{_masked()}\n```", f"### Rotate the {pick('password', 'API key')}\n\n```text\nmake rotate-secrets\n```")),
    ("html_label_masked", "log", lambda: f"<p><b>{label()}</b>: <code>{_masked()}</code></p>"),
    ("html_label_plain", "log", lambda: pick(f"<p><b>{_plain_label()}</b>: <code>{_plain_value()}</code></p>",
        f"<dl><dt>{_plain_label()}</dt><dd>{_plain_value()}</dd></dl>")),
    ("html_nbsp_plain", "log", lambda: pick(f"Status:&nbsp;OK", f"{label()}:&nbsp;{_masked()}",
        f"{_plain_label()}:&nbsp;{_plain_value()}", f"<p>{label()}:&#160;{_placeholder()}</p>")),
    ("outlook_paragraphs_plain", "log", lambda: pick(
        f'<p class=MsoNormal>{label()}:<o:p></o:p></p>\n<p class=MsoNormal>Please use the reset link we sent separately.<o:p></o:p></p>',
        f'<div>{label()}:</div><div>(sent by SMS)</div>',
        f'<p class=MsoNormal>{_plain_label()}:<o:p></o:p></p>\n<p class=MsoNormal>{_plain_value()}<o:p></o:p></p>')),
    ("confluence_plain", "log", lambda: pick(f"<p><strong>{_plain_label()}</strong>: <code>{_plain_value()}</code></p>",
        f"<p><strong>{label()}</strong>: <code>{_placeholder()}</code></p>")),
    ("confluence_reference", "log", lambda: f"<table><tbody><tr><td><p>{label()}</p></td><td><p>see Vault path <code>secret/data/{pick('db', 'stripe', 'slack')}</code></p></td></tr></tbody></table>"),
    ("word_runs_plain", "log", lambda: docx_runs(_plain_label(), _plain_value())),
    ("word_runs_placeholder", "log", lambda: docx_runs(label(), pick("[to be provided]", _masked()))),
    ("adf_plain", "log", lambda: adf(_plain_label(), _plain_value())),
    ("adf_masked", "log", lambda: adf(label(), pick(_masked(), _placeholder()))),
    ("notion_plain", "log", lambda: notion(_plain_label(), _plain_value())),
    ("notion_placeholder", "log", lambda: notion(label(), pick(_placeholder(), _masked()))),
    ("slack_blocks_plain", "log", lambda: slack_blocks(_plain_label(), _plain_value())),
    ("slack_blocks_masked", "log", lambda: slack_blocks(label(), _masked())),
    ("jira_masked_and_ids", "log", lambda: pick(f"{label()}: {{{{{_masked()}}}}}", f"*Build:* {{{{{_r.randint(100, 9999)}}}}}",
        f"*{_plain_label()}:* {{{{{_plain_value()}}}}}")),
    ("mediawiki_settings", "log", lambda: pick(f"| password_min_length || {_r.randint(8, 16)}",
        f'{{| class="wikitable"\n|-\n| {_plain_label()} || {_plain_value()}\n|}}', f"| {label()} || {_masked()}")),
    ("org_asciidoc_plain", "log", lambda: pick(f"- {_plain_label()} :: {_plain_value()}", f"*Token lifetime*:: {_r.randint(60, 3600)} seconds",
        f"- {label()} :: {_placeholder()}")),
    ("rtf_plain", "log", lambda: pick(f"{{\\rtf1\\ansi\\deff0 {{\\b {_plain_label()}:}} {_plain_value()}\\par}}",
        f"{{\\rtf1 {label()}: {{\\f1 {_masked()}}}\\par}}")),
    ("typographic_spaces_prose", "log", lambda: pick(f"Remarque{NNBSP}: le mot de passe doit contenir {_r.randint(8, 16)} caractères",
        f"Statut{NBSP}: terminé{NNBSP}!", f"{_plain_label()}{NBSP}={NBSP}{_plain_value()}", f"{label()}{NNBSP}: {_masked()}")),
    ("invisible_characters_plain", "log", lambda: pick(f"@{ZWSP}channel the deploy is done", f"pass{SHY}word policy updated: {_r.randint(8, 16)} characters",
        f"{label()}{ZWSP}: {_placeholder()}", f"{_plain_label()}{WJ}={_plain_value()}")),
    ("smart_quote_prose", "log", lambda: pick("the “password” field is required", "Click “Reset token” to rotate it",
        f"{label()}: “{_masked()}”", "‘API key’ must not be empty")),
    ("dash_options_plain", "log", lambda: pick(f"psql –host db.internal –port 5432 –username app", "docker login –username ops registry.example.com",
        f"mysql –u admin –password –h db{_r.randint(1, 9)}.internal")),
    ("slack_mrkdwn_plain", "log", lambda: pick(f"*{_plain_label()}:* `{_plain_value()}`", f"*{label()}:* `{_masked()}`",
        json.dumps({"type": "mrkdwn", "text": f"*{_plain_label()}*: `{_plain_value()}`"}))),
    ("markdown_reference_to_store", "log", lambda: pick(f"**{label()}**: stored in 1Password (vault *Infra*)",
        f"`{env_key()}` is read from `/run/secrets/{pick('db_password', 'api_key')}`", f"| **{label()}** | see `secret/data/app` |")),
    ("markdown_ids_and_hashes", "log", lambda: pick(f"`sha256:{rnd(64, HEX)}`", f"| `{uuid()}` | `{rnd(40, HEX)}` |",
        f"**Commit** `{rnd(40, HEX)}` by @alice")),
]


def richtext() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_26)
    return heldout._records(SECRETS, BENIGN, 10, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = richtext()
    heldout._write(HERE / "richtext_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "richtext_benign.jsonl.gz", benign_rows)
    print(f"richtext: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
