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


def rich_table(rows: list[Row], title: str) -> Table:
    table = Table(title=title, show_lines=False, header_style="bold", expand=False)
    styles = {"error_ref": "bold", "failure_class": "magenta", "outcome": "", "trace_id": "dim"}
    for name, header in COLUMNS:
        table.add_column(header, style=styles.get(name, ""), overflow="fold",
                         no_wrap=name in ("error_ref", "trace_id", "failure_class"))
    for row in rows:
        outcome = row.outcome
        outcome_text = f"[green]{outcome}[/]" if outcome == "ok" else f"[red]{outcome}[/]"
        table.add_row(*[outcome_text if name == "outcome" else _escape(_cell(row, name)) for name, _ in COLUMNS])
    return table


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_rows(console: Console, rows: list[Row], title: str) -> None:
    """Rich table on a terminal, plain text otherwise."""
    if console.is_terminal:
        console.print(rich_table(rows, title))
    else:
        print(title)
        print(plain_table(rows))
