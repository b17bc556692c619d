"""Secrets inside dumps of bytes: read the bytes back, scrub them as text, mask them in both columns.

A hex dump (``hexdump -C``, ``xxd``, ``od -t x1z``, ``tcpdump -X``, ``tshark -x``, Wireshark's "Follow TCP Stream",
Netty's ``prettyHexDump``, ``lldb``/WinDbg memory reads, ``openssl -debug``, ``curl --trace``, ..) prints each row
as an offset, the bytes in hex and the printable ones again in an ASCII column, cut every 16 bytes: a key sits on
one row and its value on the next, and no rule on a line reads them together. ``curl --trace-ascii`` prints a
payload's lines after their offsets and cuts a line at 64 bytes.

The rule is the layout, not a tool: a **dump row** is a line of an offset (hex digits, ``0x``, WinDbg's backtick,
Netty's and hexyl's bars), then 1-16 bytes in hex (two or four digits a group, separated by spaces, ``-`` or
``┊``), then the ASCII column, which must render exactly those bytes (each printable byte as itself, any other as
one character that is not a letter or a digit; the column's bars, ``>..<``, a space or ``┊`` after its 8th
character and trailing padding allowed). A text row (``NNNN: text``) belongs to a trace when the next row's offset
is its own plus its length (the line went on: it was cut at the width) or plus two (a CR LF ended it). Consecutive
rows of one indentation are one block; the block's bytes, read as ASCII text (one character a byte, NUL for a byte that is no printable character, tab or line break), are scrubbed
as one text, and each byte the scrubber removed is masked where the dump shows it: ``**`` for its hex, ``*`` in
the ASCII column (a text row: ``*``). The layout and the offsets stay, and a masked dump reads back as a mask
(``**`` is the byte ``*``), so scrubbing again changes nothing. The line rules then run on the whole text; on a
dump row they would read a fragment cut at the column's edge (``api_key = "YOUR_`` of a placeholder), so a row
the block's reading left or masked is kept as that reading made it, unless the line rules changed its offset or
hex part.

Python only: reassembling rows needs the bytes of several lines in order, which the Collector's regexes cannot
do (``docs/scrubbing.md``, *What each side cannot do*).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import re2  # type: ignore[import-untyped]

from errscope._patterns import REDACTED

__all__ = ["keep_rows", "mask_dumps", "might_hold_dumps"]

_OFFSET: Final = r"[ \t]*(?:[|│])?(?:0x)?[0-9A-Fa-f]{4,16}(?:`[0-9A-Fa-f]{8})?(?:[:|│]|[ \t]-)?[ \t]+"
_GATE: Final = re2.compile((
    r"(?m)^" + _OFFSET + r"(?:(?:[0-9A-Fa-f]{2}|\*\*){1,2}(?:[ \-]|[ \t]┊[ \t]))+(?:[0-9A-Fa-f]{2}|\*\*)"
    r"|(?m)^[ \t]*[0-9a-f]{4}: [^\n]{64}\n[ \t]*[0-9a-f]{4}: "
).encode())
"""A text holds a dump row (an offset, then two hex bytes) or a trace row cut at 64 characters."""
# a row's parts, on one line already found by the gate's scan (``re``: anchored, bounded, no nested repetition)
_HEX_ROW: Final = re.compile("(" + _OFFSET + ")(.*)")
_TEXT_ROW: Final = re.compile(r"([ \t]*)([0-9a-f]{4}): (.*)")
_AS_TEXT: Final = bytes(b if b in (0x09, 0x0A, 0x0D) or 0x20 <= b < 0x7F else 0 for b in range(256))
"""A block's bytes as text, one character a byte: printable ASCII, tab and line breaks as themselves, any other
byte (a length, a frame header, binary data, a byte of a non-ASCII character) as NUL, a field separator to the
rules (``/proc/PID/environ``'s), and the text stays ASCII (the rules' smaller programs; Latin-1 text of random
bytes sent RE2's DFAs out of memory)."""
_ALNUM: Final = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def might_hold_dumps(text: str) -> bool:
    """Whether ``text`` may hold a dump's rows (one RE2 scan; called on texts with a line break)."""
    # a lone surrogate: U+FFFD, as the rules read it (errscope._scrubbing.without_surrogates)
    return _GATE.search(text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")) is not None


def _hex_bytes(rest: str, base: int) -> list[tuple[int, int, int]]:
    """The (value, start, end) of each byte written in hex at the start of ``rest`` (``start``/``end`` in the
    line, ``base`` the offset of ``rest`` in it), up to 16: groups of one or two bytes (``**`` is a masked byte,
    ``*``), each followed by one to three spaces, a ``-``, hexyl's `` ┊ `` or the line's end."""
    area = _HEX_AREA.match(rest)
    if area is None:
        return []
    out: list[tuple[int, int, int]] = []
    for byte in _BYTE.finditer(rest, 0, area.end()):
        pair = byte.group()
        out.append((0x2A if pair == "**" else int(pair, 16), base + byte.start(), base + byte.end()))
        if len(out) == 16:
            break
    return out


_HEX_AREA: Final = re.compile(r"(?:(?:[0-9A-Fa-f]{2}|\*\*){1,2}(?:[ ]?┊[ ]?|[ \-]{1,3}|$))+")
_BYTE: Final = re.compile(r"[0-9A-Fa-f]{2}|\*\*")
_SHOWN: Final = bytes(b if 0x20 <= b < 0x7F else 0x2E for b in range(256))
"""How most dumps show a byte in their ASCII column: itself when printable, else ``.``."""


_CLOSING_CHARS: Final = " |<│┊"
"""What may follow an ASCII column: padding, its closing bar or ``<``, hexyl's split in the padding."""


def _renders(values: list[int], column: str, at: int = 0, split: bool = True) -> list[int] | None:
    """The index in ``column`` of each byte's character when ``column`` (what follows the hex) renders
    ``values`` (see the module docstring), else None."""
    i, n = at, len(column)
    if at == 0:
        while i < n and column[i] == " ":
            i += 1
        if i < n and column[i] in "|>│":
            i += 1
        else:  # the gap's last spaces may be the column's first characters (space bytes)
            spaces = 0
            while spaces < len(values) and values[spaces] == 0x20:
                spaces += 1
            i -= min(spaces, i - 1)
        # most dumps: ``.`` for every other byte, no split (one comparison)
        shown = bytes(values).translate(_SHOWN).decode("ascii")
        if column.startswith(shown, i) and not column[i + len(shown):].strip(_CLOSING_CHARS):
            return list(range(i, i + len(shown)))
    positions: list[int] = []
    for index, value in enumerate(values):
        if index == 8 and split and i < n and column[i] in " ┊":
            # a split after the 8th character (Wireshark's space, hexyl's ``┊``), unless a space byte is shown there
            rest = _renders(values[8:], column, i + 1, False)
            if rest is not None:
                return positions + rest
            if column[i] == "┊":
                return None
        if i >= n:
            return None
        ch = column[i]
        if 0x20 <= value < 0x7F:
            if ch != chr(value):
                return None
        elif ch in _ALNUM or ch in " \t":
            return None
        positions.append(i)
        i += 1
    return positions if not column[i:].strip(_CLOSING_CHARS) else None


@dataclass(slots=True)
class _Row:
    """One row of a dump: its line, its indentation, its bytes, where each byte's hex digits are in the line (none
    on a trace's text row) and where its character is (-1: not shown, a text row's CR LF)."""

    line: int
    indent: str
    values: list[int]
    hex_at: list[tuple[int, int]]
    ascii_at: list[int]
    text_row: bool


def _hex_row(index: int, line: str) -> _Row | None:
    m = _HEX_ROW.match(line)
    if m is None:
        return None
    lead = m.group(1)
    rest = m.group(2)
    found = _hex_bytes(rest, len(lead))
    # the ASCII column starts after the hex area; fewer bytes than parsed when the column itself began with hex
    for count in range(len(found), 1, -1):
        end = found[count - 1][2]
        column = line[end:]
        if not column.startswith((" ", "|")):
            continue
        values = [v for v, _, _ in found[:count]]
        at = _renders(values, column)
        if at is not None:
            indent = lead[: len(lead) - len(lead.lstrip())]
            return _Row(index, indent, values, [(s, e) for _, s, e in found[:count]], [end + p for p in at], False)
    return None


def _rows(lines: list[str]) -> list[_Row]:
    rows: list[_Row] = []
    for index, line in enumerate(lines):
        row = _hex_row(index, line) if len(line) >= 8 else None
        if row is not None:
            rows.append(row)
    # trace rows: ``NNNN: text``, each next offset its own plus its length (cut at the width) or plus two (CR LF)
    texts = [(i, _TEXT_ROW.match(line)) for i, line in enumerate(lines)]
    taken = {row.line for row in rows}
    for (i, m), (j, n) in zip(texts, texts[1:], strict=False):
        if m is None or n is None or j != i + 1 or i in taken:
            continue
        step = int(n.group(2), 16) - int(m.group(2), 16)
        body = m.group(3)
        if step in (len(body), len(body) + 2) and len(body) >= 8:
            start = len(m.group(1)) + 6
            values = [ord(c) if ord(c) < 256 else 0x3F for c in body]
            shown = [start + k for k in range(len(body))]
            if step == len(body) + 2:
                values, shown = [*values, 0x0D, 0x0A], [*shown, -1, -1]
            rows.append(_Row(i, m.group(1), values, [], shown, True))
    rows.sort(key=lambda r: r.line)
    return rows


def _blocks(rows: list[_Row]) -> list[list[_Row]]:
    blocks: list[list[_Row]] = []
    for row in rows:
        last = blocks[-1][-1] if blocks else None
        if last is not None and (row.line, row.indent, row.text_row) == (last.line + 1, last.indent, last.text_row):
            blocks[-1].append(row)
        else:
            blocks.append([row])
    return blocks


def _removed(text: str, scrubbed: str) -> list[tuple[int, int]]:
    """The spans of ``text`` the scrubber replaced by the marker: ``scrubbed`` is ``text`` with spans replaced,
    so its pieces between markers are ``text``'s in order (each found at its earliest place after the last; a
    later pass of :func:`mask_dumps` masks what an ambiguous place left), else a character diff."""
    pieces = scrubbed.split(REDACTED)
    spans: list[tuple[int, int]] = []
    if len(pieces) > 1 and text.startswith(pieces[0]) and text.endswith(pieces[-1]):
        pos = len(pieces[0])
        for piece in pieces[1:-1]:
            at = text.find(piece, pos + 1)
            if at < 0:
                break
            spans.append((pos, at))
            pos = at + len(piece)
        else:
            last = len(text) - len(pieces[-1])
            if last > pos:
                return [*spans, (pos, last)]
    spans = []
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, text, scrubbed, autojunk=False).get_opcodes():
        if tag != "equal":
            spans.append((i1, max(i2, i1 + 1)))
    return spans


def mask_dumps(text: str, scrub: Callable[[str], str]) -> tuple[str, dict[int, tuple[str, int]]]:
    """``text`` with every secret ``scrub`` finds in a dump's reassembled bytes masked in its rows, and each row of
    a block by line index: the row as the block's reading left it and where its ASCII column starts (for
    :func:`keep_rows`)."""
    lines = text.split("\n")
    kept: dict[int, tuple[str, int]] = {}
    for block in _blocks(_rows(lines)):
        if len(block) < 2:
            continue
        values = [v for row in block for v in row.values]
        hidden = bytearray(len(values))
        plain = bytes(values).translate(_AS_TEXT).decode("ascii")
        for _ in range(3):  # until the masked bytes read back as a mask (one pass but where a place was ambiguous)
            cleaned = scrub(plain)
            if cleaned == plain:
                break
            for start, end in _removed(plain, cleaned):
                hidden[start:end] = b"\x01" * (end - start)
            plain = bytes(0x2A if h else v for v, h in zip(values, hidden, strict=True)).translate(_AS_TEXT).decode("ascii")
        if any(hidden):
            k = 0
            for row in block:
                chars = list(lines[row.line])
                for b in range(len(row.values)):
                    if hidden[k + b]:
                        if row.hex_at:
                            s, e = row.hex_at[b]
                            chars[s:e] = "**"
                        if row.ascii_at[b] >= 0:
                            chars[row.ascii_at[b]] = "*"
                k += len(row.values)
                lines[row.line] = "".join(chars)
        for row in block:
            shown = [p for p in row.ascii_at if p >= 0]
            kept[row.line] = (lines[row.line], min(shown) if shown else len(lines[row.line]))
    return "\n".join(lines), kept


def keep_rows(scrubbed: str, kept: dict[int, tuple[str, int]], line_count: int) -> str:
    """``scrubbed`` with each dump row as its block's reading left it, where the line rules changed no more than
    its ASCII column (a fragment cut at the column's edge is no value) and no line (``line_count`` before)."""
    lines = scrubbed.split("\n")
    if len(lines) != line_count:
        return scrubbed
    for index, (row, column) in kept.items():
        line = lines[index]
        if line != row and line[:column] == row[:column]:
            lines[index] = row
    return "\n".join(lines)
