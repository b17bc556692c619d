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

Cost: nothing for a text the trigger set did not flag (:data:`TRIGGERS`, entries of the set the patterns already run;
:data:`HINTS`, two more, say which readers a flagged text needs, so its literals are not searched again). A flagged text is read as bytes through the binding (the ``re2`` module's wrappers encode the whole text and
convert offsets on every call); one RE2 scan finds the lines shaped like a header, a prompt, a section or a name
(:data:`_NAMING_LINE`) and only those are read; the SQL and JSON readers run only where their literals are. All
linear: RE2 scans, and Python loops that visit each byte a bounded number of times (a table's rows are read once, the
lines they cover are not read again as names). Python only: the Collector's RE2 patterns cannot relate a cell to
its column (docs/scrubbing.md, "What each side cannot do"; ``tests/test_scrub_tabular.py`` pins the difference).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from errscope._patterns import REDACTED
from errscope._secret_shapes import _is_masked, key_kind, looks_like_password, looks_random

__all__ = ["HINTS", "TRIGGERS", "is_value", "names_secret", "scrub_named_cells"]

_WORD: Final = r"(?:pass|pwd|secret|token|key|credential|auth)"
_W: Final = rf"(?i:{_WORD}|\bvalue\b)"
# a cell separator (a comma or a semicolon without a space after it: a CSV's, not a sentence's or a call's), or two
# spaces after a cell (not an indent)
_CELL_GAP: Final = r"(?:[|\t]|[,;][^ \t\r\n]|│|┬|[^ \t\n]  )"
_NAME_SHAPES: Final = (
    rf"[^\n]*{_W}[^\n]*{_CELL_GAP}[^\n]*|[^\n]*(?:{_CELL_GAP}[^\n]*|[,;]){_W}[^\n]*"  # a header, a two-cell row
    rf"|[^\n]*{_W}[^\n]*[:?>\]\"›][ \t\r]*"  # a prompt, a section, redis' and markup's name lines
    rf"|[ \t]*[\w./-]*{_W}[\w./-]*[ \t\r]*|[ \t]*[?>][^\n]*{_W}\w*[ \t\r]*"  # a key alone, a prompt without its colon
    rf"|[^\n]*[:=][ \t]*\"?[\w./-]*{_W}[\w./-]*\"?[ \t\r]*"  # ``key: db.password`` at the end
)
_NAMES_TRIGGER: Final = (
    rf"(?:{_NAME_SHAPES})\n|\n[^\n]*(?:{_W}[^\n]*{_CELL_GAP}|{_CELL_GAP}[^\n]*{_W})"  # a naming line with a line after it, a last two-cell row
    rf"|\n[ \t]+[\w\-]*(?i:{_WORD})[\w\-]*:[ \t]+[^\s]"  # an indented child, its parent's name above it (``encryption:`` / ``key:``)
)
_SQL_TRIGGER: Final = (
    r"(?i:\)\s*values\s*\(|\bset\s*\(|from\s+stdin)"  # SQL's column list apart from its values
    r"|\[parameters: [\[(]"  # SQLAlchemy's statement with its bound parameters printed apart
    r"|[=(,][ \t]*(?:\$[1-9]|\?(?:[ \t,)';\]]|$))"  # a positional placeholder: an ORM's statement, its parameters apart
)
TRIGGERS: Final = (
    _NAMES_TRIGGER,
    _SQL_TRIGGER,
    rf"(?i:\[\s*\"[^\"\n]*{_WORD}[^\"\n]*\"\s*,)",  # a ["NAME", "value"] pair on one line
    r'(?i:"(?:value|parametervalue)"\s*:\s*"[^"\n]*"\s*,\s*"(?:name|key|parameterkey)")',  # a value before its name
    rf'(?i:{_WORD}[\w.\-]*"[ \t]*:[ \t]*\{{)',  # a parent's name one object above its "value" (compact JSON, one line)
)
"""What a text the pass can change holds: entries of the patterns' trigger set (``_scrubbing._pattern_set``); the pass
runs when one of them matched."""
HINTS: Final = (r"<[tT]", r'alue"|\["|\[ "|\[\n')
"""Entries of the same set that only say which readers a flagged text needs (a ``<t`` of HTML, a literal the JSON
readers start from): the substring searches they replace cost ~40 µs each on 64 KiB (CPython's search of a
two-byte needle), the set's one pass nothing more."""

_UNANCHORED: Final = re2._Anchor.UNANCHORED
_ANCHOR_BOTH: Final = re2._Anchor.ANCHOR_BOTH
Spans = list[tuple[int, int]]


class _Rx:
    """An RE2 program called through the binding on bytes (the ``re2`` module's wrappers encode the whole text and
    convert offsets on every call: ~10 µs a call on a 64 KiB text)."""

    __slots__ = ("match",)

    def __init__(self, pattern: str) -> None:
        self.match: Any = re2.compile(pattern.encode())._regexp.Match

    def full(self, data: bytes, pos: int = 0, end: int = -1) -> Spans | None:
        spans = self.match(_ANCHOR_BOTH, data, pos, len(data) if end < 0 else end)
        return spans if spans[0][0] >= 0 else None

    def search(self, data: bytes, pos: int = 0, end: int = -1) -> Spans | None:
        spans = self.match(_UNANCHORED, data, pos, len(data) if end < 0 else end)
        return spans if spans[0][0] >= 0 else None

    def finditer(self, data: bytes) -> Iterator[Spans]:
        pos, n = 0, len(data)
        while pos <= n:
            spans = self.match(_UNANCHORED, data, pos, n)
            if spans[0][0] < 0:
                return
            yield spans
            pos = spans[0][1] + (spans[0][1] == spans[0][0])


def _g(data: bytes, spans: Spans, group: int) -> bytes:
    return data[spans[group][0] : spans[group][1]]


_PLACEHOLDER_START: Final = tuple(b"$%:?<{[(")
_NOT_VALUES: Final = frozenset({b"null", b"none", b"nil", b"default", b"\\n", b"true", b"false", b"n/a", b"na", b"undefined", b"empty"})
_DATE: Final = _Rx(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.]+(?:Z|[+-][0-9:]+)?)?")
# A dotted path of names without a digit, or of lower-case packages and a class's name: code's reference to a class or
# module (Airflow's ``[secrets]`` ``backend = airflow.providers...SecretsManagerBackend``, Hadoop's
# ``org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider``), or a host name: a setting, not a credential.
_DOTTED_NAME: Final = _Rx(r"[A-Za-z_]+(?:\.[A-Za-z_]+){2,}|[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*){2,}\.[A-Z][A-Za-z_]*")
_COMPACT_SECRET: Final = _Rx(r"(?i)[a-z]*(?:pass|passwd|pwd|auth)")
_REDACTED: Final = REDACTED.encode()
_STRIP: Final = b" \t\r\"'`"


def names_secret(name: str | bytes) -> bool:
    """``name`` (a header cell, a key, a path, a section) names a credential: :func:`~errscope._secret_shapes.key_kind`
    says ``secret``, also in the plural (``api_keys``, ``passwords``) or written together (``requirepass``,
    ``masterauth``)."""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    name = name.strip().strip("\"'`*:[]").strip()
    if not name or len(name) > 60:
        return False
    key = name.replace(" ", "_")
    if key_kind(key) == "secret":
        return True
    if key[-1:] in "sS":
        singular = key[:-2] if key[-2:].lower() == "es" and key_kind(key[:-2]) == "secret" else key[:-1]
        if key_kind(singular) == "secret":
            return True
    return _COMPACT_SECRET.full(key.encode()) is not None


def is_value(cell: str | bytes, *, noun: bool = False) -> bool:
    """``cell`` holds a credential's value: not empty, a mask, ``NULL``, a flag, a date, a placeholder (``$1``, ``?``,
    ``%s``, ``:name``, ``<x>``, ``${X}``), no words with spaces between, and shaped like a password or a random token
    (``noun``: random only, for a name that only mentions a credential, ``password_hash``)."""
    value = (cell.encode("utf-8", "surrogateescape") if isinstance(cell, str) else cell).strip(_STRIP)
    if len(value) < 6 or 32 in value or value[0] in _PLACEHOLDER_START or _REDACTED in value:
        return False
    if value.lower() in _NOT_VALUES or _is_masked(value) or _DATE.full(value) is not None:
        return False
    if 46 in value and _DOTTED_NAME.full(value) is not None:  # 46: ``.``, looked up as an int (a memchr)
        return False
    return looks_random(value) or (not noun and looks_like_password(value))


def _column_secret(name: bytes) -> int:
    """2: the column names a credential; 1: it mentions one (``password_hash``); 0: neither."""
    if names_secret(name):
        return 2
    text = name.decode("utf-8", "replace").strip().strip("\"'`").replace(" ", "_")
    return 1 if key_kind(text) == "noun" else 0


# --- splitting a line into cells, each with its span in the text
_RULE_BYTES: Final = bytes(sorted(set("-=+|:─━┼├┤┌┐└┘┬┴│╞╡╪═║╔╗╚╝╤╧╟╢╠╣╬ \t\r".encode())))  # (the box characters' UTF-8 bytes)
_GAP: Final = _Rx(r"\S+(?: \S+)*")  # cells of an aligned table: runs with single spaces inside
_LABEL: Final = _Rx(r"[A-Za-z_][\w.\-/]*(?: [\w.\-/]+){0,3}")  # a column's name: up to four words (checked: 40 bytes)
_BOX, _DOUBLE_BOX = "│".encode(), "║".encode()
_SEPARATORS: Final = (_BOX, b"|", b"\t", b",", b";")  # a double-ruled box (``║ a │ b ║``) splits on its inner ``│``
_EDGES: Final = b" |\t\r" + _BOX + _DOUBLE_BOX
Cell = tuple[bytes, int, int]


def _first_separator(line: bytes) -> bytes:
    """The first of :data:`_SEPARATORS` ``line`` holds, else ``b" "``. Searched with ``find`` and single bytes as ints:
    ``bytes in bytes`` first tries its needle as an int and raises and clears a TypeError (~1,800 instructions each,
    callgrind), five of them on every name line."""
    if line.find(_BOX) >= 0:
        return _BOX
    for sep, byte in _SEPARATOR_BYTES:
        if byte in line:
            return sep
    return b" "


_SEPARATOR_BYTES: Final = ((b"|", 124), (b"\t", 9), (b",", 44), (b";", 59))  # _SEPARATORS after the box, in order


def _is_rule(line: bytes) -> bool:
    """A table's rule line (``---+---``, ``═══``): nothing but rule characters (a C-level strip, no Python loop)."""
    return not line.strip(_RULE_BYTES) and bool(line.strip())


def _split(line: bytes, offset: int, sep: bytes) -> list[Cell]:
    """Cells of ``line`` by ``sep`` (b" " for an aligned table), stripped of blanks and a CSV cell's quotes."""
    cells: list[Cell] = []
    if sep == b" ":
        for m in _GAP.finditer(line):
            cells.append((line[m[0][0] : m[0][1]], offset + m[0][0], offset + m[0][1]))
        return cells
    start, body = 0, line
    if sep in (b"|", _BOX):
        # the table's edges (``|``, ``||`` of aws, ``│``/``║`` of boxes) are no cells
        start = len(body) - len(body.lstrip(_EDGES))
        body = body[start : len(body.rstrip(_EDGES))]
    pos, n = 0, len(body)
    while pos <= n:
        end = body.find(sep, pos)
        if end < 0:
            end = n
        a, b = pos, end
        while a < b and body[a] in b" \t\r":
            a += 1
        while b > a and body[b - 1] in b" \t\r":
            b -= 1
        if b - a >= 2 and body[a] == body[b - 1] and body[a] in b"\"'":
            a, b = a + 1, b - 1
        cells.append((body[a:b], offset + start + a, offset + start + b))
        pos = end + len(sep)
    return cells


def _header_cells(line: bytes, offset: int) -> tuple[bytes, list[Cell]] | None:
    """The header's separator and cells when ``line`` reads as a header: 2+ cells, each a short label."""
    if line.startswith("┌─".encode()):  # ClickHouse writes the names into the top border
        names = line.replace("─".encode(), b"   ").replace("┌".encode(), b"   ").replace("┐".encode(), b"   ")
        cells, sep = _split(names.replace("┬".encode(), _BOX), offset, _BOX), _BOX
    else:
        sep = _first_separator(line)
        cells = _split(line, offset, sep)
    if len(cells) < 2 or not all(len(c[0]) <= 40 and _LABEL.full(c[0]) is not None for c in cells if c[0]):
        return None
    return sep, cells


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0])


_MAX_ROW: Final = 4096
"""A table's row is a line of at most this many bytes (a longer line ends the table: the cost of a row stays bounded)."""
_NAME_COLUMNS: Final = frozenset({b"name", b"key", b"parameterkey", b"variable", b"field", b"optionname", b"setting"})
_VALUE_COLUMNS: Final = frozenset({b"value", b"parametervalue", b"data"})
_KEY_NAME_COLUMNS: Final = frozenset({b"keyname", b"key_name"})


def _table(line: bytes, offset: int, rows: Iterator[tuple[bytes, int]], spans: Spans) -> int:
    """Read a table whose header may be ``line`` (at ``offset``), its ``rows`` after it; record the secret cells' spans;
    return where the last row read ends (0: no table)."""
    if line.find(b"  ") < 0 and _first_separator(line) == b" " and not line.startswith("┌─".encode()):
        return 0
    header = _header_cells(line, offset)
    if header is None:
        return 0
    sep, head = header
    kinds = [_column_secret(c[0]) for c in head]
    lowered = [c[0].lower().replace(b" ", b"") for c in head]
    name_col = next((k for k, h in enumerate(lowered) if h in _NAME_COLUMNS), -1)
    value_col = next((k for k, h in enumerate(lowered) if h in _VALUE_COLUMNS), -1)
    # a list of keys (``KeyName``/``Value``: Azure's ``listKeys``): each row is a key, whatever its name (``key1``)
    keys_listed = name_col < 0 and value_col >= 0 and any(h in _KEY_NAME_COLUMNS for h in lowered)
    if keys_listed:
        name_col = next(k for k, h in enumerate(lowered) if h in _KEY_NAME_COLUMNS)
    pairs = name_col >= 0 and value_col >= 0
    if not any(kinds) and not pairs:
        return 0
    # columns of an aligned table: from each name's start to the next one's
    bounds = [(head[k][1] - offset, head[k + 1][1] - offset if k + 1 < len(head) else 1 << 30) for k in range(len(head))]
    done = 0
    for row, row_offset in rows:
        if not row.strip() or len(row) > _MAX_ROW:
            break
        done = row_offset + len(row)
        if _is_rule(row):
            continue
        cells = _split(row, row_offset, sep)
        row_cells: list[Cell | None]
        if sep == b" ":
            row_cells = [None] * len(head)
            for cell in cells:
                at = (cell[1] - row_offset, cell[2] - row_offset)
                k = max(range(len(head)), key=lambda c: _overlap(bounds[c], at))
                if _overlap(bounds[k], at) > 0 and row_cells[k] is None:
                    row_cells[k] = cell
        elif len(cells) == len(head):
            row_cells = list(cells)
        else:
            break
        for k, cell in enumerate(row_cells):
            if cell is not None and kinds[k] and is_value(cell[0], noun=kinds[k] == 1):
                spans.append((cell[1], cell[2]))
        if pairs:
            name, value = row_cells[name_col], row_cells[value_col]
            if name is not None and value is not None and (keys_listed or names_secret(name[0])) and is_value(value[0]):
                spans.append((value[1], value[2]))
    return done


def _pair_row(line: bytes, offset: int, spans: Spans) -> None:
    """``password<TAB>value``, ``api_key | value``, ``DB_PASSWORD      value``: two cells, the first a credential's name."""
    sep = b"\t" if 9 in line else b"|" if 124 in line else _BOX if line.find(_BOX) >= 0 else b" "
    if sep == b" " and line.find(b"  ") < 0:
        return
    cells = _split(line, offset, sep)
    if len(cells) == 2 and _LABEL.full(cells[0][0]) is not None and names_secret(cells[0][0]) and is_value(cells[1][0]):
        spans.append((cells[1][1], cells[1][2]))


# --- a name on one line, the value on the next
_REDIS: Final = _Rx(r'\s*([0-9]+)\) "(.*)"\s*')
_PROMPT: Final = _Rx(
    r"(?i)[?>\s]*(?:[a-z']+ ){0,4}(?:password|passphrase|passcode|pin|token|secret|api[ _-]?key|access key)\b[^\n]{0,80}?[:?›>]?\s*"
)
_BARE_KEY: Final = _Rx(r"\s*([\w./-]+):?\s*")
_MARKUP: Final = _Rx(r"\s*<([A-Za-z][\w:-]*)[^<>]*>([^<>]{1,300})</([A-Za-z][\w:-]*)>\s*")
_LOG_NAME: Final = _Rx(r"(?i).*\b(?:key|field|name|setting|param(?:eter)?)\s*[:=]\s*\"?([\w./-]+)\"?\s*")
_LOG_VALUE: Final = _Rx(r"(?i)(.*\bvalue\s*[:=]\s*\"?)(\S+?)\"?\s*")
_ANSWER: Final = _Rx(r"\s*(?:[>?]\s+)?(\S+)\s*")


_RE2_SPACE: Final = b" \t\n\f\r"  # RE2's ``\s`` (no ``\v``)


def _one_word(line: bytes) -> bool:
    """Necessary for :data:`_ANSWER` to match ``line``: no space inside it but after a leading ``>`` or ``?``."""
    body = line.strip(_RE2_SPACE)
    if body[:1] in (b">", b"?"):
        body = body[1:].lstrip(_RE2_SPACE)
    return 32 not in body and 9 not in body and 10 not in body and 12 not in body and 13 not in body


def _next_line(name_line: bytes, value_line: bytes, value_offset: int, spans: Spans) -> None:
    head = name_line.lstrip()[:1]
    if head.isdigit() and b') "' in name_line:
        m, v = _REDIS.full(name_line), _REDIS.full(value_line)
        if m is not None and v is not None and int(_g(name_line, m, 1)) % 2 and names_secret(_g(name_line, m, 2)) and is_value(_g(value_line, v, 2)):
            spans.append((value_offset + v[2][0], value_offset + v[2][1]))
        return
    if head == b"<":
        m, v = _MARKUP.full(name_line), _MARKUP.full(value_line)
        if (m is not None and v is not None and _g(name_line, m, 1) == _g(name_line, m, 3)
                and names_secret(_g(name_line, m, 2)) and is_value(_g(value_line, v, 2))):
            spans.append((value_offset + v[2][0], value_offset + v[2][1]))
        return
    if value_line.lower().find(b"value") >= 0:
        m = _LOG_NAME.full(name_line)
        if m is not None:
            v = _LOG_VALUE.full(value_line)
            if v is not None and names_secret(_g(name_line, m, 1)) and is_value(_g(value_line, v, 2)):
                spans.append((value_offset + v[2][0], value_offset + v[2][1]))
            return
    if not _one_word(value_line):  # no binding call for a line of words (most lines)
        return
    v = _ANSWER.full(value_line)  # the value alone on its line (after a ``>`` or ``?`` prompt mark)
    if v is None or not is_value(_g(value_line, v, 1)):
        return
    key = _BARE_KEY.full(name_line)
    if (key is not None and names_secret(_g(name_line, key, 1).rsplit(b"/", 1)[-1])) or (key is None and _PROMPT.full(name_line)):
        spans.append((value_offset + v[1][0], value_offset + v[1][1]))


# --- a section or a parent mapping named for credentials
_SECTION: Final = _Rx(r"\s*\[([\w .\-]+)\]\s*")
_ENTRY: Final = _Rx(r"\s*[\w.\-]+\s*[=:]\s*(\S+?)\s*")
_PARENT: Final = _Rx(r"([\w\-]+):\s*")
_CHILD: Final = _Rx(r"(\s+)(?:- |[\w.\-]+:\s+)(\S+?)\s*")


def _section(line: bytes, rows: Iterator[tuple[bytes, int]], spans: Spans) -> None:
    if line.lstrip()[:1] == b"[":
        m = _SECTION.full(line)
        if m is None or not names_secret(_g(line, m, 1)):
            return
        for row, offset in rows:
            if _SECTION.full(row) is not None:
                return
            e = _ENTRY.full(row)
            if e is not None and is_value(_g(row, e, 1)):
                spans.append((offset + e[1][0], offset + e[1][1]))
        return
    if b":" not in line:
        return
    m = _PARENT.full(line)
    if m is None or not names_secret(_g(line, m, 1)):
        return
    for row, offset in rows:
        c = _CHILD.full(row)
        if c is None:
            return
        if is_value(_g(row, c, 2)):
            spans.append((offset + c[2][0], offset + c[2][1]))


# A child whose name alone only mentions a credential (``key:``), qualified by its parent mapping's name: ESPHome's
# ``encryption:`` / ``key: ..``, ``signing:`` / ``key: ..``. The two names read as one key (``encryption_key``).
_NOUN_CHILD: Final = _Rx(r"([ \t]+)([\w\-]+):[ \t]+([\"']?)(\S+?)([\"']?)[ \t\r]*")
_INDENTED_PARENT: Final = _Rx(r"([ \t]*)([\w\-]+):[ \t\r]*")
_PARENT_LINES: Final = 32
"""How far above a child its parent is looked for (a bound: each child line costs at most this many lines)."""
_INDENTED_CHILD: Final = _Rx(rf"\n[ \t]+[\w\-]*(?i:{_WORD})[\w\-]*:[ \t]+[^\s][^\n]*")


def _qualified_child(line: bytes, data: bytes, start: int, spans: Spans, seen: dict[int, tuple[int, bytes]]) -> None:
    """``seen``: per indentation, the last child's line start and its parent's name (``b""``: none), so siblings
    reuse it: each line above is read once however many siblings share the parent."""
    c = _NOUN_CHILD.full(line)
    if c is None or _g(line, c, 3) != _g(line, c, 5) or key_kind(_g(line, c, 2).decode("utf-8", "replace")) != "noun":
        return
    indent = c[1][1] - c[1][0]
    sibling_at, parent = seen.get(indent, (-1, b""))
    end = start - 1
    for _ in range(_PARENT_LINES):  # the lines before, up to the first one indented less: the parent
        if end <= 0:
            parent = b""
            break
        begin = data.rfind(b"\n", 0, end) + 1
        if begin == sibling_at:  # a sibling's line: its parent is this one's
            break
        above = data[begin:end]
        if above.strip() and len(above) - len(above.lstrip(b" \t")) < indent:
            p = _INDENTED_PARENT.full(above)
            parent = _g(above, p, 2) if p is not None else b""
            break
        end = begin - 1
    else:
        parent = b""
    seen[indent] = (start, parent)
    if parent and names_secret(parent + b"_" + _g(line, c, 2)) and is_value(_g(line, c, 4)):
        spans.append((start + c[4][0], start + c[4][1]))


# --- markup, SQL and JSON across lines
_TR: Final = _Rx(r"(?is)<tr\b[^>]*>(.*?)</tr>")
_TD: Final = _Rx(r"(?is)<(t[hd])\b[^>]*>(.*?)</t[hd]>")
_SQL_COLUMNS: Final = _Rx(
    r"(?i)\b(?:insert\s+into|copy)\s+[\w.\"`\[\]]+\s*\(([^()]*)\)\s*(values\s*|from\s+stdin;[ \t]*\r?\n)"
    r"|\bset\s*\(([^()]*)\)\s*=\s*"
)
_NAMED_MEMBER: Final = _Rx(rf'"(?:name|Name|key|Key|ParameterKey|OptionName)"\s*:\s*"((?i:[^"\\]*{_WORD}[^"\\]*))"')
_VALUE_MEMBER: Final = _Rx(r'"(?:value|Value|ParameterValue)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_PARENT_OBJECT: Final = _Rx(rf'"((?i:[^"\\]{{0,30}}{_WORD}[^"\\]{{0,30}}))"\s*:\s*\{{([^{{}}]*)\}}')
_PAIR: Final = _Rx(rf'\[\s*"((?i:[^"\\]{{0,30}}{_WORD}[^"\\]{{0,30}}))"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\]')
_NAMING_LINE: Final = _Rx(rf"(?m:^)(?:{_NAME_SHAPES})(?m:$)")
"""A line that can name a value: a credential word (or a ``value`` column) and the shape of a header (a separator
of cells), a prompt or a section (its last character), or a name at its end."""


def _html(data: bytes, spans: Spans) -> None:
    head: list[int] = []
    for row in _TR.finditer(data):
        cells = []
        pos, end = row[1]
        while True:
            cell = _TD.search(data, pos, end)
            if cell is None:
                break
            cells.append(cell)
            pos = cell[0][1]
        if cells and all(_g(data, c, 1).lower() == b"th" for c in cells):
            head = [_column_secret(_g(data, c, 2)) for c in cells]
            continue
        for k, cell in enumerate(cells):
            if k < len(head) and head[k] and is_value(_g(data, cell, 2), noun=head[k] == 1):
                spans.append(cell[2])


def _sql_tuples(data: bytes, pos: int, secret_cols: dict[int, int], spans: Spans) -> None:
    """Read ``(v, 'v', f(x)), (..)`` from ``pos``: the string literals in the secret columns."""
    n = len(data)
    while pos < n and data[pos] in b" \t\r\n":
        pos += 1
    while pos < n and data[pos] == 40:  # (
        pos += 1
        col = depth = 0
        while pos < n:
            ch = data[pos]
            if ch == 39:  # a string literal, '' inside it
                end = pos + 1
                while end < n:
                    if data[end] == 39:
                        if end + 1 < n and data[end + 1] == 39:
                            end += 2
                            continue
                        break
                    end += 1
                if depth == 0 and col in secret_cols and is_value(data[pos + 1 : end], noun=secret_cols[col] == 1):
                    spans.append((pos + 1, end))
                pos = end + 1
                continue
            if ch == 40:
                depth += 1
            elif ch == 41:
                if depth == 0:
                    pos += 1
                    break
                depth -= 1
            elif ch == 44 and depth == 0:
                col += 1
            elif ch == 59:  # ;
                return
            pos += 1
        while pos < n and data[pos] in b" \t\r\n,":
            pos += 1


def _sql(data: bytes, spans: Spans) -> None:
    for m in _SQL_COLUMNS.finditer(data):
        columns = _g(data, m, 1) if m[1][0] >= 0 else _g(data, m, 3)
        kinds = {k: kind for k, c in enumerate(columns.split(b",")) if (kind := _column_secret(c.strip().strip(b"\"`[]")))}
        if not kinds:
            continue
        if m[2][0] >= 0 and data[m[2][0] : m[2][0] + 1].lower() == b"f":  # COPY .. FROM stdin: tab-separated rows to ``\.``
            pos = m[0][1]
            while pos < len(data) and not data.startswith(b"\\.", pos):
                end = data.find(b"\n", pos)
                end = len(data) if end < 0 else end
                start = pos
                for k, cell in enumerate(data[pos:end].rstrip(b"\r").split(b"\t")):
                    if k in kinds and is_value(cell, noun=kinds[k] == 1):
                        spans.append((start, start + len(cell)))
                    start += len(cell) + 1
                pos = end + 1
            continue
        _sql_tuples(data, m[0][1], kinds, spans)


# SQLAlchemy's ``StatementError`` (and its echo log) print a statement with placeholders and, apart from it, the bound
# parameters: ``[SQL: INSERT INTO users (name, password) VALUES (?, ?)]`` then ``[parameters: ('bob', '..')]``.
_BOUND_STATEMENT: Final = _Rx(r"\[SQL: ([^\x00]*?)\]\r?\n\[parameters: ")
_PLACEHOLDER: Final = _Rx(r"\?|%s|\$[0-9]+|%\(\w+\)s|:[A-Za-z_]\w*")
_COLUMN_BEFORE: Final = _Rx(r"(?s:.*?)([\w\"`\[\].]+)\s*(?:=|<>|!=|<=|>=|<|>|(?i:\s+(?:not\s+)?like|\s+in\s*\(\s*))\s*")  # anchored at both ends by full(): RE2 matches ``$`` only at the end of the whole text


def _placeholder_columns(statement: bytes) -> list[int]:
    """The secret kind (:func:`_column_secret`) of the column each positional placeholder binds, in order: a
    ``VALUES`` tuple's position in the column list, else the column compared right before it (``WHERE a = ?``,
    ``SET a = ?``)."""
    m = _SQL_COLUMNS.search(statement)
    columns = [c.strip().strip(b"\"`[]") for c in _g(statement, m, 1).split(b",")] if m is not None and m[1][0] >= 0 else []
    values_at = m[0][1] if columns else -1
    kinds: list[int] = []
    pos = 0
    while True:
        ph = _PLACEHOLDER.search(statement, pos)
        if ph is None:
            return kinds
        start, end = ph[0]
        if values_at >= 0 and start >= values_at:
            # the position in the VALUES tuple: commas at depth 0 since its last "("
            opened = statement.rfind(b"(", values_at - 1, start)
            k = statement.count(b",", opened, start)
            kind = _column_secret(columns[k]) if 0 <= k < len(columns) else 0
        else:
            before = _COLUMN_BEFORE.full(statement, max(0, start - 80), start)
            kind = _column_secret(_g(statement, before, 1).rsplit(b".", 1)[-1]) if before is not None else 0
        # ``$n`` (PostgreSQL's numbered parameters) binds the n-th parameter wherever it stands; others bind in order
        number = int(statement[start + 1 : end]) - 1 if statement[start] == 36 and end - start < 5 else len(kinds)
        kinds.extend([0] * (number + 1 - len(kinds)))
        kinds[number] = max(kinds[number], kind)
        pos = end


def _python_tuples(data: bytes, pos: int, kinds: list[int], spans: Spans) -> None:
    """Read the Python reprs ``(1, 'a', None)`` or ``[(..), (..)]`` at ``pos``: the string literals at the positions
    ``kinds`` marks secret."""
    n = len(data)
    depth = col = 0
    while pos < n:
        ch = data[pos]
        if ch in b"'\"":
            end = pos + 1
            while end < n and data[end] != ch and data[end] != 10:
                end += 2 if data[end] == 92 else 1  # a backslash escape
            if depth >= 1 and col < len(kinds) and kinds[col] and is_value(data[pos + 1 : end], noun=kinds[col] == 1):
                spans.append((pos + 1, end))
            pos = end + 1
            continue
        if ch == 40:  # ( a row
            depth += 1
            if depth == 1:
                col = 0
        elif ch == 41:
            depth -= 1
        elif ch == 44 and depth == 1:
            col += 1
        elif ch == 10 or (ch == 93 and depth <= 0):  # the parameters end with their line or the list's "]"
            return
        pos += 1


def _bound_parameters(data: bytes, spans: Spans) -> None:
    for m in _BOUND_STATEMENT.finditer(data):
        kinds = _placeholder_columns(_g(data, m, 1))
        if any(kinds):
            _python_tuples(data, m[0][1] + (data[m[0][1] : m[0][1] + 1] == b"["), kinds, spans)


# ORMs' and drivers' debug logs print a statement with positional placeholders and its bound parameters apart on the
# same line: after the statement (Sequelize's ``..; "a", "b"``, TypeORM's ``-- PARAMETERS: [..]``, Ecto's ``[..]``)
# or in a member before or after it (knex's ``bindings: [..], sql: '..'``, ``params=[..]``, ``args=(..)``). The n-th
# parameter holds the value of the column the n-th placeholder binds (``$n``: the n-th).
_STATEMENT_LINE: Final = _Rx(r"(?i:\b(?:insert\s+into|update|delete\s+from|select|replace\s+into|merge\s+into)\s)[^\n]*")
_NAMED_LIST: Final = _Rx(r"(?i:\b(?:parameters|params|bindings|binds|args)\b)[\"']?[ \t]*[:=][ \t]*[\[(]")
_LIST_AFTER: Final = _Rx(r"[^\[;\n]*?(?:;[ \t]+|[ \t]\[)")  # from the last placeholder: a ``; `` or the first `` [``
_QUOTES: Final = b"'\""
_CREDENTIAL_WORD: Final = _Rx(rf"(?i:{_WORD})")


def _list_items(data: bytes, pos: int, end: int, kinds: list[int], spans: Spans, *, depth: int = 0) -> None:
    """Read a list of literals from ``pos`` (inside its bracket when ``depth`` is 0 and ``data[pos]`` opens one, else a
    bare comma-separated run to ``end``): the quoted literals at the positions ``kinds`` marks secret."""
    if data[pos : pos + 1] in (b"[", b"("):
        pos += 1
    col = 0
    while pos < end:
        ch = data[pos]
        if ch in _QUOTES:
            close = pos + 1
            while close < end and data[close] != ch:
                close += 2 if data[close] == 92 else 1  # a backslash escape
            if depth == 0 and col < len(kinds) and kinds[col] and is_value(data[pos + 1 : close], noun=kinds[col] == 1):
                spans.append((pos + 1, min(close, end)))
            pos = close + 1
            continue
        if ch in b"([{":
            depth += 1
        elif ch in b")]}":
            if depth == 0:
                return
            depth -= 1
        elif ch == 44 and depth == 0:
            col += 1
        pos += 1


def _statement_lines(data: bytes, spans: Spans) -> None:
    for m in _STATEMENT_LINE.finditer(data):
        start, end = m[0]
        named = _NAMED_LIST.search(data, start - 200 if start > 200 else 0, end)
        if named is not None and data.rfind(b"\n", named[0][0], start) < 0:  # a named list on the statement's line
            items = named[0][1] - 1
            statement = data[start : items if items > start else end]
        else:
            last = None
            for ph in _PLACEHOLDER.finditer(data[start:end]):
                last = ph
            if last is None:
                continue
            after = _LIST_AFTER.search(data, start + last[0][1], end)
            if after is None:
                continue
            items = after[0][1] - (data[after[0][1] - 1] == 91)
            statement = data[start:items]
        if _CREDENTIAL_WORD.search(statement) is None:  # no column can name a credential: no parse
            continue
        kinds = _placeholder_columns(statement)
        if any(kinds):
            _list_items(data, items, end, kinds, spans)


_SQL_HINTS: Final = (b"alues", b"ALUES", b"stdin", b"ET (", b"et (", b"ET(", b"et(")  # VALUES, FROM stdin, SET (


def _json(data: bytes, spans: Spans) -> None:
    for name in _NAMED_MEMBER.finditer(data):  # a name member naming a credential: its object's value member
        if not names_secret(_g(data, name, 1)):
            continue
        left, right = data.rfind(b"{", 0, name[0][0]), data.find(b"}", name[0][1])
        if left < 0 or right < 0 or data.find(b"}", left, name[0][0]) >= 0 or data.find(b"{", name[0][1], right) >= 0:
            continue
        value = _VALUE_MEMBER.search(data, left, right)
        if value is not None and is_value(_g(data, value, 1)):
            spans.append(value[1])
    for parent in _PARENT_OBJECT.finditer(data):
        if names_secret(_g(data, parent, 1)):
            value = _VALUE_MEMBER.search(data, parent[2][0], parent[2][1])
            if value is not None and is_value(_g(data, value, 1)):
                spans.append(value[1])
    for pair in _PAIR.finditer(data):
        if names_secret(_g(data, pair, 1)) and is_value(_g(data, pair, 2)):
            spans.append(pair[2])


def _lines_after(data: bytes, end: int) -> Iterator[tuple[bytes, int]]:
    """The lines after the one ending at ``end`` (each without its ``\\r``), with their offsets."""
    n = len(data)
    start = end + 1
    while start <= n and end < n:
        end = data.find(b"\n", start)
        if end < 0:
            end = n
        yield data[start:end].rstrip(b"\r"), start
        start = end + 1


_MAX_NAME_LINE: Final = 400
"""A header, a prompt or a name line is short; a longer line is only read as a table's row."""


def scrub_named_cells(text: str, found: tuple[bool, bool, bool] | None = None) -> str:
    """``text`` with the values named elsewhere (module docstring) replaced by ``[REDACTED]``; ``text`` itself when
    there are none. Only the lines holding a credential word (or a ``value`` column) are read as a header, a name
    line or a section: one RE2 scan finds them.

    ``found``: what the trigger set said of ``text`` (``_scrubbing``), whether it holds :data:`_SQL_TRIGGER`, the
    first of :data:`HINTS` and the second: a reader runs only where its literals are (each necessary for it to find
    anything); None: ``text`` is searched for them here."""
    data = text.encode("utf-8", "surrogateescape")
    spans: Spans = []
    if found is None:
        sql = True
        html = b"<t" in data or b"<T" in data
        json = b'alue"' in data or b'["' in data or b'[ "' in data or b"[\n" in data
    else:
        sql, html, json = found
    if html:
        _html(data, spans)
    # each reader only where its literal is (a memchr or a substring search: no binding call)
    if sql and 40 in data and any(word in data for word in _SQL_HINTS):
        _sql(data, spans)
    if sql and b"[parameters: " in data:
        _bound_parameters(data, spans)
    if sql and (36 in data or 63 in data):  # $ or ?: a placeholder
        _statement_lines(data, spans)
    if json and 34 in data:
        _json(data, spans)
    if 10 in data:  # \n
        seen: dict[int, tuple[int, bytes]] = {}
        for m in _INDENTED_CHILD.finditer(data):
            if m[0][1] - m[0][0] <= _MAX_NAME_LINE:
                _qualified_child(data[m[0][0] + 1 : m[0][1]].rstrip(b"\r"), data, m[0][0] + 1, spans, seen)
        done = 0
        for m in _NAMING_LINE.finditer(data):
            start, end = m[0]
            if start < done or end - start > _MAX_NAME_LINE:  # a table already read these rows; no name line
                continue
            line = data[start:end].rstrip(b"\r")
            if end < len(data):
                nl = data.find(b"\n", end + 1)
                _next_line(line, data[end + 1 : len(data) if nl < 0 else nl].rstrip(b"\r"), end + 1, spans)
            head = line.lstrip()[:1]
            if head == b"[" or line.rstrip()[-1:] == b":":
                _section(line, _lines_after(data, end), spans)
            if line.find(b"  ") >= 0 or _first_separator(line) != b" " or head == _BOX[:1]:
                _pair_row(line, start, spans)
                done = _table(line, start, _lines_after(data, end), spans)
    if not spans:
        return text
    spans.sort()
    pieces: list[bytes] = []
    last = 0
    for start, end in spans:
        if start < last:
            continue
        pieces += (data[last:start], _REDACTED)
        last = end
    pieces.append(data[last:])
    return b"".join(pieces).decode("utf-8", "surrogateescape")
