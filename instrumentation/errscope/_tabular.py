"""Secrets whose name is not beside the value: in a table's header, a name/value pair's other member, the line
before, or a parent. Python only (the Collector's RE2 patterns cannot relate a cell to its column's header).

``scrub_named_cells(text)`` reads the layouts tools print and masks a value whose name (:func:`names_secret`) says
credential and whose shape (:func:`is_value`) is a password's or a random token's:

* a header row naming a column (CSV/TSV/semicolon, ``|``/``│``-delimited Markdown, Org, psql, mysql, ASCII and box
  tables, aws ``--output table``; whitespace-aligned reports, sqlite, sqlcmd, SQL*Plus, pandas, PowerShell): that
  column's cells in the rows below it, up to a blank line; a header with a name column and a value column (``Name``/
  ``Value``, ``Key``/``Value``): a row's value cell when its name cell names a credential;
* a row of two cells whose first names a credential (``password<TAB>…``, psql ``\\x``'s ``api_key | …``);
* a name alone on one line and the value alone on the next: a prompt (``Password:``, ``Enter API token:``), a key or
  path (``etcdctl get``), redis-cli's numbered reply (``3) "api_token"`` / ``4) "…"``), markup (``<dt>``/``<dd>``,
  ``<Name>``/``<Value>``), ``key: ..`` then ``value: ..`` in a log;
* HTML ``<th>``/``<td>`` tables; SQL ``INSERT INTO t (cols) VALUES (..), (..)``, ``UPDATE .. SET (cols) = (..)`` and
  ``COPY t (cols) FROM stdin`` data; JSON ``{"name": .., "value": ..}`` objects in either order
  (``ParameterKey``/``ParameterValue``, tags' ``Key``/``Value``), ``["NAME", "value"]`` pairs and a parent's key
  over its ``"value"`` member (``terraform output -json``);
* an INI section or a YAML mapping named for credentials (``[secrets]``, ``api_keys:``): the values under it.

Cost: nothing for a text the trigger set did not flag (:data:`TRIGGER`, one more trigger in the set the patterns
already run); a flagged text is split into lines once and read with a few RE2 scans, all linear.
"""

from __future__ import annotations

import re
from typing import Final

import re2  # type: ignore[import-untyped]

from errscope._patterns import REDACTED
from errscope import _scrubbing  # imported while _scrubbing compiles its set: its functions are read at call time

__all__ = ["TRIGGER", "is_value", "names_secret", "scrub_named_cells"]

_WORD: Final = r"(?:pass|pwd|secret|token|key|credential|auth)"
TRIGGER: Final = (
    rf"(?i){_WORD}[^\n]*\n"  # a credential word with a line after it: a header, a prompt, a name line, a section
    r"|(?i:\)\s*values\s*\(|\bset\s*\()"  # SQL's column list apart from its values
    rf"|(?i:\[\s*\"[^\"\n]*{_WORD}[^\"\n]*\"\s*,)"  # a ["NAME", "value"] pair on one line
    r'|(?i:"(?:value|parametervalue)"\s*:\s*"[^"\n]*"\s*,\s*"(?:name|key|parameterkey)")'  # a value before its name
)
"""What a text the pass can change holds (RE2, ASCII only; one entry of the patterns' trigger set)."""

_PLACEHOLDER_START: Final = tuple("$%:?<{[(")
_NOT_VALUES: Final = frozenset({"null", "none", "nil", "default", "\\n", "true", "false", "n/a", "na", "undefined", "empty"})
_DATE: Final = re2.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.]+(?:Z|[+-][0-9:]+)?)?")
_PLURAL: Final = re.compile(r"(?i)(?:e?s)$")
_COMPACT_SECRET: Final = re2.compile(r"(?i)[a-z]*(?:pass|passwd|pwd|auth)")


def names_secret(name: str) -> bool:
    """``name`` (a header cell, a key, a path, a section) names a credential: :func:`key_kind` says ``secret``, also
    in the plural (``api_keys``, ``passwords``) or written together (``requirepass``, ``masterauth``)."""
    name = name.strip().strip("\"'`*:[]").strip()
    if not name or len(name) > 60:
        return False
    key = name.replace(" ", "_")
    if _scrubbing.key_kind(key) == "secret":
        return True
    singular = _PLURAL.sub("", key) if key[-1:] in "sS" else ""
    return bool(singular and _scrubbing.key_kind(singular) == "secret") or bool(_COMPACT_SECRET.fullmatch(key))


def is_value(cell: str, *, noun: bool = False) -> bool:
    """``cell`` holds a credential's value: not empty, a mask, ``NULL``, a flag, a date, a placeholder (``$1``, ``?``,
    ``%s``, ``:name``, ``<x>``, ``${X}``), and shaped like a password or a random token (``noun``: random only, for a
    name that only mentions a credential, ``password_hash``)."""
    value = cell.strip().strip("\"'`").strip()
    if len(value) < 6 or " " in value or REDACTED in value or value.lower() in _NOT_VALUES or value.startswith(_PLACEHOLDER_START):
        return False
    data = value.encode("utf-8", "surrogateescape")
    if _scrubbing._is_masked(data) or _DATE.fullmatch(value):
        return False
    return _scrubbing.looks_random(data) or (not noun and _scrubbing.looks_like_password(data))


def _column_secret(name: str) -> int:
    """2: the column names a credential; 1: it mentions one (``password_hash``); 0: neither."""
    if names_secret(name):
        return 2
    return 1 if _scrubbing.key_kind(name.strip().strip("\"'`").replace(" ", "_")) == "noun" else 0


# --- splitting a line into cells, each with its span in the text
_RULE_CHARS: Final = frozenset("-=+|:─━┼├┤┌┐└┘┬┴│╞╡╪═║╔╗╚╝╤╧╟╢╠╣╬ \t\r")
_GAP: Final = re2.compile(r"\S+(?: \S+)*")  # cells of an aligned table: runs with single spaces inside
_LABEL: Final = re2.compile(r"[A-Za-z_][\w .\-/]{0,40}")
Cell = tuple[str, int, int]


def _is_rule(line: str) -> bool:
    return bool(line.strip()) and set(line) <= _RULE_CHARS


def _split(line: str, offset: int, sep: str) -> list[Cell]:
    """Cells of ``line`` by ``sep`` (" " for an aligned table), stripped of blanks and a CSV cell's quotes."""
    cells: list[Cell] = []
    if sep == " ":
        for m in _GAP.finditer(line):
            cells.append((m.group(0), offset + m.start(), offset + m.end()))
        return cells
    start = 0
    body = line
    if sep in "|│║":
        # the table's edges (``|``, ``||`` of aws, ``│`` of boxes) are no cells
        lead = len(body) - len(body.lstrip(" |│║"))
        trail = len(body.rstrip(" |│║\r"))
        start, body = lead, body[lead:trail]
    pos = 0
    while pos <= len(body):
        end = body.find(sep, pos)
        if end < 0:
            end = len(body)
        raw = body[pos:end]
        a, b = pos, end
        while a < b and body[a] in " \t\r":
            a += 1
        while b > a and body[b - 1] in " \t\r":
            b -= 1
        if b - a >= 2 and body[a] == body[b - 1] and body[a] in "\"'":
            a, b = a + 1, b - 1
        cells.append((body[a:b], offset + start + a, offset + start + b))
        del raw
        pos = end + 1
    return cells


def _separator(line: str) -> str:
    for sep in ("│", "|", "\t", ",", ";"):  # a double-ruled box (``║ a │ b ║``) splits on its inner ``│``
        if sep in line:
            return sep
    return " "


def _header_cells(line: str, offset: int) -> tuple[str, list[Cell]] | None:
    """The header's separator and cells when ``line`` reads as a header: 2+ cells, each a short label."""
    if line.startswith("┌─") and line.rstrip().endswith("┐"):  # ClickHouse writes the names into the top border
        names = line.replace("─", " ").replace("┌", " ").replace("┐", " ")
        cells = _split(names.replace("┬", "│"), offset, "│")
        sep = "│"
    else:
        sep = _separator(line)
        cells = _split(line, offset, sep)
    if len(cells) < 2 or not all(_LABEL.fullmatch(c[0]) for c in cells if c[0]):
        return None
    return sep, cells


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0])


_NAME_COLUMNS: Final = frozenset({"name", "key", "parameterkey", "variable", "field", "optionname", "setting"})
_VALUE_COLUMNS: Final = frozenset({"value", "parametervalue", "data"})


def _table(lines: list[tuple[str, int]], i: int, spans: list[tuple[int, int]]) -> int:
    """Read a table whose header may be ``lines[i]``; record the secret cells' spans; return the next line to read."""
    line, offset = lines[i]
    header = _header_cells(line, offset)
    if header is None:
        return i + 1
    sep, head = header
    kinds = [_column_secret(c[0]) for c in head]
    lowered = [c[0].lower().replace(" ", "") for c in head]
    name_col = next((k for k, h in enumerate(lowered) if h in _NAME_COLUMNS), -1)
    value_col = next((k for k, h in enumerate(lowered) if h in _VALUE_COLUMNS), -1)
    pairs = name_col >= 0 and value_col >= 0
    if not any(kinds) and not pairs:
        return i + 1
    # columns of an aligned table: from each name's start to the next one's
    bounds = [(head[k][1] - offset, head[k + 1][1] - offset if k + 1 < len(head) else 1 << 30) for k in range(len(head))]
    j = i + 1
    while j < len(lines):
        row, row_offset = lines[j]
        if not row.strip():
            break
        if _is_rule(row):
            j += 1
            continue
        cells = _split(row, row_offset, sep)
        if sep == " ":
            placed: list[Cell | None] = [None] * len(head)
            for cell in cells:
                at = (cell[1] - row_offset, cell[2] - row_offset)
                k = max(range(len(head)), key=lambda c: _overlap(bounds[c], at))
                if _overlap(bounds[k], at) > 0 and placed[k] is None:
                    placed[k] = cell
            row_cells = placed
        elif len(cells) == len(head):
            row_cells = list(cells)
        else:
            break
        for k, cell in enumerate(row_cells):
            if cell is None:
                continue
            if kinds[k] and is_value(cell[0], noun=kinds[k] == 1):
                spans.append((cell[1], cell[2]))
        if pairs:
            name, value = row_cells[name_col], row_cells[value_col]
            if name is not None and value is not None and names_secret(name[0]) and is_value(value[0]):
                spans.append((value[1], value[2]))
        j += 1
    return j


def _pair_row(line: str, offset: int, spans: list[tuple[int, int]]) -> None:
    """``password<TAB>value``, ``api_key | value``, ``DB_PASSWORD      value``: two cells, the first a credential's name."""
    sep = next((s for s in ("\t", "|", "│") if s in line), " ")
    if sep == " " and "  " not in line:
        return
    cells = _split(line, offset, sep)
    if len(cells) == 2 and names_secret(cells[0][0]) and _LABEL.fullmatch(cells[0][0]) and is_value(cells[1][0]):
        spans.append((cells[1][1], cells[1][2]))


# --- a name on one line, the value on the next
_REDIS: Final = re2.compile(r'\s*([0-9]+)\) "(.*)"\s*')
_PROMPT: Final = re2.compile(
    r"(?i)[?>\s]*(?:[a-z']+ ){0,4}(?:password|passphrase|passcode|pin|token|secret|api[ _-]?key|access key)\b[^\n]{0,80}?[:?›>]?\s*"
)
_BARE_KEY: Final = re2.compile(r"\s*([\w./-]+):?\s*")
_MARKUP: Final = re2.compile(r"\s*<([A-Za-z][\w:-]*)[^<>]*>([^<>]{1,300})</([A-Za-z][\w:-]*)>\s*")
_LOG_NAME: Final = re2.compile(r"(?i).*\b(?:key|field|name|setting|param(?:eter)?)\s*[:=]\s*\"?([\w./-]+)\"?\s*")
_LOG_VALUE: Final = re2.compile(r"(?i)(.*\bvalue\s*[:=]\s*\"?)(\S+?)\"?\s*")
_ANSWER: Final = re2.compile(r"\s*(?:[>?]\s+)?(\S+)\s*")


def _next_line(name_line: str, value_line: str, value_offset: int, spans: list[tuple[int, int]]) -> None:
    m = _REDIS.fullmatch(name_line)
    if m is not None:
        v = _REDIS.fullmatch(value_line)
        if int(m.group(1)) % 2 and v is not None and names_secret(m.group(2)) and is_value(v.group(2)):
            spans.append((value_offset + v.start(2), value_offset + v.end(2)))
        return
    m = _MARKUP.fullmatch(name_line)
    if m is not None:
        v = _MARKUP.fullmatch(value_line)
        if m.group(1) == m.group(3) and v is not None and names_secret(m.group(2)) and is_value(v.group(2)):
            spans.append((value_offset + v.start(2), value_offset + v.end(2)))
        return
    m = _LOG_NAME.fullmatch(name_line)
    if m is not None:
        v = _LOG_VALUE.fullmatch(value_line)
        if v is not None and names_secret(m.group(1)) and is_value(v.group(2)):
            spans.append((value_offset + v.start(2), value_offset + v.end(2)))
        return
    if _BARE_KEY.fullmatch(name_line) or _PROMPT.fullmatch(name_line):
        key = _BARE_KEY.fullmatch(name_line)
        if key is not None and not names_secret(key.group(1).rsplit("/", 1)[-1]):
            return
        v = _ANSWER.fullmatch(value_line)
        if v is not None and is_value(v.group(1)):
            spans.append((value_offset + v.start(1), value_offset + v.end(1)))


# --- a section or a parent mapping named for credentials
_SECTION: Final = re2.compile(r"\s*\[([\w .\-]+)\]\s*")
_ENTRY: Final = re2.compile(r"\s*[\w.\-]+\s*[=:]\s*(\S+?)\s*")
_PARENT: Final = re2.compile(r"([\w\-]+):\s*")
_CHILD: Final = re2.compile(r"(\s+)(?:- |[\w.\-]+:\s+)(\S+?)\s*")


def _section(lines: list[tuple[str, int]], i: int, spans: list[tuple[int, int]]) -> None:
    line = lines[i][0]
    m = _SECTION.fullmatch(line)
    if m is not None:
        if not names_secret(m.group(1)):
            return
        for row, offset in lines[i + 1 :]:
            if _SECTION.fullmatch(row):
                return
            e = _ENTRY.fullmatch(row)
            if e is not None and is_value(e.group(1)):
                spans.append((offset + e.start(1), offset + e.end(1)))
        return
    m = _PARENT.fullmatch(line)
    if m is None or not names_secret(m.group(1)):
        return
    for row, offset in lines[i + 1 :]:
        c = _CHILD.fullmatch(row)
        if c is None:
            return
        if is_value(c.group(2)):
            spans.append((offset + c.start(2), offset + c.end(2)))


# --- markup, SQL and JSON across lines
_TR: Final = re2.compile(r"(?is)<tr\b[^>]*>(.*?)</tr>")
_TD: Final = re2.compile(r"(?is)<(t[hd])\b[^>]*>(.*?)</t[hd]>")
_SQL_COLUMNS: Final = re2.compile(
    r"(?i)\b(?:insert\s+into|copy)\s+[\w.\"`\[\]]+\s*\(([^()]*)\)\s*(values\s*|from\s+stdin;[ \t]*\r?\n)"
    r"|\bset\s*\(([^()]*)\)\s*=\s*"
)
_OBJECT: Final = re2.compile(r"\{[^{}]*\}")
_NAME_MEMBER: Final = re2.compile(r'"(?:name|Name|key|Key|ParameterKey|OptionName)"\s*:\s*"([^"\\]*)"')
_VALUE_MEMBER: Final = re2.compile(r'"(?:value|Value|ParameterValue)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_PARENT_OBJECT: Final = re2.compile(r'"([^"\\]{1,60})"\s*:\s*\{([^{}]*)\}')
_PAIR: Final = re2.compile(r'\[\s*"([^"\\]{1,60})"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\]')


def _html(text: str, spans: list[tuple[int, int]]) -> None:
    head: list[int] = []
    for row in _TR.finditer(text):
        cells = list(_TD.finditer(text, row.start(1), row.end(1)))
        if cells and all(c.group(1).lower() == "th" for c in cells):
            head = [_column_secret(c.group(2)) for c in cells]
            continue
        for k, cell in enumerate(cells):
            if k < len(head) and head[k] and is_value(cell.group(2), noun=head[k] == 1):
                spans.append((cell.start(2), cell.end(2)))


def _sql_tuples(text: str, pos: int, secret_cols: dict[int, int], spans: list[tuple[int, int]]) -> None:
    """Read ``(v, 'v', f(x)), (..)`` from ``pos``: the string literals in the secret columns."""
    n = len(text)
    while pos < n and text[pos] in " \t\r\n":
        pos += 1
    while pos < n and text[pos] == "(":
        pos += 1
        col = depth = 0
        while pos < n:
            ch = text[pos]
            if ch == "'":
                end = pos + 1
                while end < n:
                    if text[end] == "'":
                        if end + 1 < n and text[end + 1] == "'":
                            end += 2
                            continue
                        break
                    end += 1
                if depth == 0 and col in secret_cols and is_value(text[pos + 1 : end], noun=secret_cols[col] == 1):
                    spans.append((pos + 1, end))
                pos = end + 1
                continue
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    pos += 1
                    break
                depth -= 1
            elif ch == "," and depth == 0:
                col += 1
            elif ch == ";":
                return
            pos += 1
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1


def _sql(text: str, spans: list[tuple[int, int]]) -> None:
    for m in _SQL_COLUMNS.finditer(text):
        columns = m.group(1) if m.group(1) is not None else m.group(3)
        kinds = {k: kind for k, c in enumerate(columns.split(",")) if (kind := _column_secret(c.strip().strip("\"`[]")))}
        if not kinds:
            continue
        if m.group(2) is not None and m.group(2)[:1].lower() == "f":  # COPY .. FROM stdin: tab-separated rows to ``\.``
            pos = m.end()
            while pos < len(text) and not text.startswith("\\.", pos):
                end = text.find("\n", pos)
                end = len(text) if end < 0 else end
                start = pos
                for k, cell in enumerate(text[pos:end].rstrip("\r").split("\t")):
                    if k in kinds and is_value(cell, noun=kinds[k] == 1):
                        spans.append((start, start + len(cell)))
                    start += len(cell) + 1
                pos = end + 1
            continue
        _sql_tuples(text, m.end(), kinds, spans)


def _json(text: str, spans: list[tuple[int, int]]) -> None:
    for obj in _OBJECT.finditer(text):
        name = _NAME_MEMBER.search(text, obj.start(), obj.end())
        value = _VALUE_MEMBER.search(text, obj.start(), obj.end())
        if name is not None and value is not None and names_secret(name.group(1)) and is_value(value.group(1)):
            spans.append((value.start(1), value.end(1)))
    for parent in _PARENT_OBJECT.finditer(text):
        if names_secret(parent.group(1)):
            value = _VALUE_MEMBER.search(text, parent.start(2), parent.end(2))
            if value is not None and is_value(value.group(1)):
                spans.append((value.start(1), value.end(1)))
    for pair in _PAIR.finditer(text):
        if names_secret(pair.group(1)) and is_value(pair.group(2)):
            spans.append((pair.start(2), pair.end(2)))


def scrub_named_cells(text: str) -> str:
    """``text`` with the values named elsewhere (module docstring) replaced by ``[REDACTED]``; ``text`` itself when
    there are none."""
    spans: list[tuple[int, int]] = []
    if "<" in text:
        _html(text, spans)
    if "(" in text:
        _sql(text, spans)
    if '"' in text:
        _json(text, spans)
    if "\n" in text:
        lines: list[tuple[str, int]] = []
        offset = 0
        for line in text.split("\n"):
            lines.append((line.rstrip("\r"), offset))
            offset += len(line) + 1
        i = 0
        while i < len(lines):
            line, off = lines[i]
            _pair_row(line, off, spans)
            if i + 1 < len(lines):
                _next_line(line, lines[i + 1][0], lines[i + 1][1], spans)
            _section(lines, i, spans)
            nxt = _table(lines, i, spans)
            i = nxt if nxt > i + 1 else i + 1
    if not spans:
        return text
    spans.sort()
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        if start < last:
            continue
        pieces += (text[last:start], REDACTED)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
