"""The triage table: one row per message the model saw, joined from the agent's notes and the telemetry.

The agent knows what the model was shown (text, ref, class, request ids, trace id). What the
upstream answered is known only to the server, and only through its telemetry: the tool span's
``errscope.upstream.*`` attributes and the failure's log record (``exception.message``, scrubbed
by errscope before it was exported). So the table is built from the exported OTLP-JSON files, the
same ones ``errscope explain`` reads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_MESSAGE
from opentelemetry.semconv.attributes.http_attributes import HTTP_RESPONSE_STATUS_CODE
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from errscope import _attributes as attr
from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_SERVER, Span, Telemetry
from errscope.client._late import LATE_RESPONSE_EVENT
from errscope.demo.agent import AgentNote

__all__ = ["COLUMNS", "Row", "build_rows", "plain_table", "rich_table"]

NONE: Final = "-"
SAID_WIDTH: Final = 64
"""Characters of what the upstream said shown in a cell (explain shows all of it)."""

COLUMNS: Final = (
    ("error_ref", "ERROR REF"),
    ("tool", "TOOL"),
    ("channel", "CHANNEL"),
    ("failure_class", "CLASS"),
    ("request_id", "REQUEST ID"),
    ("upstream_status", "UPSTREAM"),
    ("upstream_said", "UPSTREAM SAID (SCRUBBED)"),
    ("outcome", "OUTCOME"),
    ("trace_id", "TRACE ID"),
)
"""(row field, header), in display order."""


@dataclass(frozen=True)
class Row:
    """One line of the table; ``-`` where a value does not apply."""

    step: str
    error_ref: str
    tool: str
    channel: str
    failure_class: str
    request_id: str
    upstream_status: str
    upstream_said: str
    outcome: str
    trace_id: str
    attempts: int
    model_text: str
    round: int = 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _tool_span(telemetry: Telemetry, note: AgentNote) -> Span | None:
    """The server span that answered what the model saw (the last attempt's, or the one with the ref)."""
    candidates = [s for s in telemetry.trace(note.trace_id)
                  if s.kind == SPAN_KIND_SERVER and s.get(attr.MCP_METHOD_NAME) == "tools/call"]
    if note.error_ref:
        for span in candidates:
            if span.get(attr.ERRSCOPE_ERROR_REF) == note.error_ref:
                return span
    if note.request_ids:
        last = note.request_ids[-1]
        matching = [s for s in candidates if str(s.get(attr.JSONRPC_REQUEST_ID)) == last]
        if matching:
            return matching[-1]
    return candidates[-1] if candidates else None


def _upstream_status(telemetry: Telemetry, span: Span | None) -> str:
    answer = _upstream_answer(telemetry, span)
    # A request that reached the upstream and then failed (read timeout, dropped, 5xx) may have been applied.
    if span is not None and span.get(attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE) is True:
        return f"{answer}, maybe applied" if answer != NONE else "maybe applied"
    return answer


def _upstream_answer(telemetry: Telemetry, span: Span | None) -> str:
    if span is None:
        return NONE
    status = span.get(attr.ERRSCOPE_UPSTREAM_STATUS)
    if status:
        return str(status)
    for child in telemetry.children(span):
        if child.kind == SPAN_KIND_CLIENT:
            code = child.get(HTTP_RESPONSE_STATUS_CODE, child.get("http.status_code"))  # stable, then pre-1.21 name
            if code is not None:
                return str(code)
            return "no answer"
    return NONE


def _said(telemetry: Telemetry, span: Span | None) -> str:
    if span is None or not span.get(attr.ERRSCOPE_ERROR_REF):
        return NONE
    for record in telemetry.logs_where(attr.ERRSCOPE_ERROR_REF, span.get(attr.ERRSCOPE_ERROR_REF)):
        message = record.get(EXCEPTION_MESSAGE)
        if message and span.get(attr.ERRSCOPE_UPSTREAM_STATUS):
            return " ".join(str(message).split())
    return NONE


def _late_by(telemetry: Telemetry, note: AgentNote) -> float | None:
    """Seconds after the client gave up that the answer came, from the client's late-response record."""
    if not note.error_ref:
        return None
    # A log record once the attempt's span had closed, a span event while it was open.
    found = [r.get(attr.ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT)
             for r in telemetry.logs_where(attr.ERRSCOPE_ERROR_REF, note.error_ref)]
    found += [event.get(attr.ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT)
              for span in telemetry.spans_where(attr.ERRSCOPE_ERROR_REF, note.error_ref)
              if span.kind == SPAN_KIND_CLIENT
              for name, event in span.events if name == LATE_RESPONSE_EVENT]
    seconds = [float(s) for s in found if s is not None]
    return seconds[0] if seconds else None


def _outcome(telemetry: Telemetry, note: AgentNote) -> str:
    late = _late_by(telemetry, note)
    return note.outcome if late is None else f"{note.outcome}, answered {late:.1f} s late"


def build_rows(notes: list[AgentNote], telemetry: Telemetry) -> list[Row]:
    """Join each note with the server's telemetry of the same trace."""
    rows = []
    for note in notes:
        span = _tool_span(telemetry, note)
        status = _upstream_status(telemetry, span)
        rows.append(
            Row(
                step=note.step,
                error_ref=note.error_ref or NONE,
                tool=note.tool,
                channel=note.channel or NONE,
                failure_class=note.failure_class or NONE,
                request_id=",".join(note.request_ids) or NONE,
                upstream_status=status,
                upstream_said=_said(telemetry, span),
                outcome=_outcome(telemetry, note),
                trace_id=note.trace_id or NONE,
                attempts=note.attempts,
                model_text=note.text,
                round=note.round,
            )
        )
    return rows


def _cell(row: Row, name: str) -> str:
    value = str(getattr(row, name))
    if name == "upstream_said" and len(value) > SAID_WIDTH:
        value = value[: SAID_WIDTH - 1] + "…"
    return value


def plain_table(rows: list[Row]) -> str:
    """Fixed-width columns, two spaces apart; every column starts where its header starts."""
    headers = [header for _, header in COLUMNS]
    cells = [[_cell(row, name) for name, _ in COLUMNS] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)


# What a terminal too narrow for the whole table gives up: the trace ids' tails, then these columns in this order (the
# ref, which `errscope explain` takes, and what happened stay; triage.json keeps every column).
_DROPPED_FIRST: Final = ("upstream_said", "request_id", "trace_id", "channel", "upstream_status")
_NO_WRAP: Final = ("error_ref", "tool", "failure_class", "trace_id")
SHORT_TRACE_ID: Final = 8
"""Hex digits of a trace id a narrow terminal shows (``eeed0fd6…``)."""


def rich_table(rows: list[Row], title: str, width: int | None = None) -> Table | None:
    """The rows as a rich table. ``width`` (a terminal's columns): a table wider than it gets each column at least
    its longest word (a name, a ref, a class whole), the trace ids cut, and then leaves out the least useful columns
    (``_DROPPED_FIRST``), named in the caption, where rich alone squeezed columns to nothing (at 80 columns, six of
    the nine) or folded their words a letter a line; ``None`` when even the ref, tool, class and outcome do not fit."""
    names = [name for name, _ in COLUMNS]
    columns = _columns(rows, names, short_trace=False)
    if width is None or _room(columns, width) >= sum(c.most for c in columns):
        return _rich_table(title, columns, None)
    for dropped in range(len(_DROPPED_FIRST) + 1):
        kept = [name for name in names if name not in _DROPPED_FIRST[:dropped]]
        columns = _columns(rows, kept, short_trace=True)
        widths = _widths(columns, width)
        if widths is not None:
            break
    else:
        return None
    table = _rich_table(title, columns, widths)
    said = ["trace ids cut"] if "trace_id" in kept else []
    left_out = [header for name, header in COLUMNS if name not in kept]
    if left_out:
        said.append(f"left out: {', '.join(left_out)}")
    table.caption = f"At this width {'; '.join(said)}: every column is in triage.json."
    return table


@dataclass(frozen=True)
class _Column:
    name: str
    cells: list[str]
    least: int
    """Its longest word (a cell that must not wrap: the whole cell); a header may wrap at its spaces."""
    most: int


def _columns(rows: list[Row], names: list[str], *, short_trace: bool) -> list[_Column]:
    columns = []
    for name in names:
        cells = [_cell(row, name) for row in rows]
        if name == "trace_id" and short_trace:
            cells = [cell[:SHORT_TRACE_ID] + "…" if len(cell) > SHORT_TRACE_ID else cell for cell in cells]
        words = cells if name in _NO_WRAP else [word for cell in cells for word in cell.split()]
        header = dict(COLUMNS)[name]
        least = max(map(cell_len, [*words, *header.split()]))
        if name == "upstream_said":  # a JSON body is one long word: folded, in a quarter of its cut width
            least = min(least, SAID_WIDTH // 4)
        columns.append(_Column(name, cells, least, max(map(cell_len, [*cells, header]))))
    return columns


def _room(columns: list[_Column], width: int) -> int:
    """What a table ``width`` wide leaves for the cells: padding 2 and a border 1 a column, and the last border."""
    return width - 3 * len(columns) - 1


def _widths(columns: list[_Column], width: int) -> list[int] | None:
    """Each column's width in a table ``width`` wide, or ``None`` when their narrowest do not fit."""
    spare = _room(columns, width) - sum(c.least for c in columns)
    if spare < 0:
        return None
    # what is left goes to the columns that wrap, by how much more they would take
    wants = [c.most - c.least for c in columns]
    total = sum(wants) or 1
    return [c.least + min(want, spare * want // total) for c, want in zip(columns, wants, strict=True)]


def _rich_table(title: str, columns: list[_Column], widths: list[int] | None) -> Table:
    table = Table(title=title, show_lines=False, header_style="bold", expand=False)
    styles = {"error_ref": "bold", "failure_class": "magenta", "outcome": "", "trace_id": "dim"}
    headers = dict(COLUMNS)
    for i, column in enumerate(columns):
        table.add_column(headers[column.name], style=styles.get(column.name, ""), overflow="fold",
                         no_wrap=column.name in _NO_WRAP, width=widths[i] if widths else None)
    for i in range(len(columns[0].cells) if columns else 0):
        cells = []
        for column in columns:
            cell = column.cells[i]
            if column.name == "outcome":
                cells.append(f"[green]{cell}[/]" if cell == "ok" else f"[red]{_escape(cell)}[/]")
            else:
                cells.append(_escape(cell))
        table.add_row(*cells)
    return table


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_rows(console: Console, rows: list[Row], title: str) -> None:
    """Rich table on a terminal (as wide as it is), plain text otherwise."""
    table = rich_table(rows, title, console.width) if console.is_terminal else None
    if table is not None:
        console.print(table)
    else:
        print(title)
        print(plain_table(rows))
