"""The demo's triage table on terminals of every width: every cell it shows is whole, nothing is squeezed away."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from errscope.demo import triage
from tests.demo.test_demo import EXPECTED

TRACE = "0758f11ddd9d2de813a0c855ed33b54e"
SAID = '{"dsn":"postgresql://[REDACTED]@ledger-db.internal:5432/payments","error":"order ord_2002 not found"}'
ROWS = [
    triage.Row(step=step, error_ref=f"ERR-{i:08d}" if cls != "-" else "-", tool=tool, channel=channel,
               failure_class=cls, request_id="8,9,10" if step == "outage" else str(i), upstream_status=status,
               upstream_said=SAID if status == "404" else "-",
               outcome="timeout, answered 1.1 s late" if step == "late_answer" else outcome,
               trace_id=TRACE, attempts=1, model_text="")
    for i, (step, tool, channel, cls, status, outcome) in enumerate(EXPECTED)
]


def printed(width: int, capsys: pytest.CaptureFixture[str]) -> str:
    console = Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None)
    triage.print_rows(console, ROWS, "errscope demo (stdio): 11 messages the model saw, 13.6 s")
    return console.file.getvalue() + capsys.readouterr().out  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [70, 80, 100, 120, 160, 200])
def test_a_narrow_terminal_keeps_every_shown_cell_whole(width: int, capsys: pytest.CaptureFixture[str]) -> None:
    """At 80 columns rich squeezed six of the nine columns to nothing (``┃┃┃``) and at 120 folded the tool names a
    few letters a line; now each column shown gets its longest word, and what is left out is named."""
    out = printed(width, capsys)
    lines = out.splitlines()
    assert max(map(len, lines)) <= width
    assert "┃┃" not in out and "││" not in out
    for row in ROWS:  # the ref, the tool, the class and the outcome's words, each on one line
        for value in (row.error_ref, row.tool, row.failure_class, *row.outcome.split()):
            assert any(value in line for line in lines), (value, out)
    assert "every column is in triage.json." in " ".join(out.split())  # the caption, wrapped at any width
    assert TRACE not in out  # cut to TRACE[:8] + "…", or left out


def test_what_is_left_out_at_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    out = " ".join(printed(80, capsys).split())
    assert "At this width left out: CHANNEL, REQUEST ID, UPSTREAM, UPSTREAM SAID (SCRUBBED), TRACE ID" in out


def test_trace_ids_cut_where_every_column_fits(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(140, capsys)
    assert f"{TRACE[:8]}…" in out and "ReadTimeout," in out and "8,9,10" in out
    assert "At this width trace ids cut: every column is in triage.json." in " ".join(out.split())


def test_a_wide_terminal_gets_the_whole_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(260, capsys)
    assert TRACE in out and "At this width" not in out
    assert "ReadTimeout, maybe applied" in out and "timeout, answered 1.1 s late" in out


def test_narrower_than_the_four_kept_columns_is_the_plain_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(50, capsys)
    assert out.splitlines()[1].split() == ["ERROR", "REF", "TOOL", "CHANNEL", "CLASS", "REQUEST", "ID", "UPSTREAM",
                                           "UPSTREAM", "SAID", "(SCRUBBED)", "OUTCOME", "TRACE", "ID"]
    assert TRACE in out
