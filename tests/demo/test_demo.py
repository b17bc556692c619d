"""``errscope demo`` end to end: real processes, the printed table's values, exactly once, no leaked secret."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_SERVER, load
from errscope.demo.agent import CLIENT_TIMEOUT, RECEIPT_STALL, STEPS
from errscope.demo.payments import PLANTED_SECRETS
from errscope.demo.run import DemoError, _wait_http, read_stats
from tests.demo.conftest import DemoRun

pytestmark = pytest.mark.timeout(240)

EXPECTED = [
    # step, tool, channel, class, upstream status, outcome
    ("corrupted_frame", "refund_order", "protocol", "invalid_input", "-", "error"),
    ("stale_tool", "refund_payment", "protocol", "not_found", "-", "error"),
    ("amount_as_string", "refund_order", "execution", "invalid_input", "-", "error"),
    ("other_tenant", "refund_order", "execution", "not_found", "404", "error"),
    ("rate_limit", "refund_order", "execution", "rate_limited", "429", "error"),
    ("outage", "refund_order", "execution", "upstream_unavailable", "503", "error"),
    ("unexpected_answer", "refund_order", "execution", "upstream_unavailable", "200", "error"),
    ("notify_timeout", "notify_customer", "execution", "upstream_unavailable", "ReadTimeout, maybe applied", "error"),
    ("late_answer", "order_receipt", "-", "upstream_unavailable", "200", "timeout"),
    ("stall", "refund_order", "-", "upstream_unavailable", "no answer", "timeout"),
    ("retry_same_key", "refund_order", "-", "-", "201", "ok"),
]
REF = re.compile(r"^ERR-[0-9A-HJKMNP-TV-Z]{8}$")
TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
SECRET_CORES = {"FAKE", *PLANTED_SECRETS, *(s.split("FAKE", 1)[1][:8] for s in PLANTED_SECRETS)}


LATE = re.compile(r"^timeout, answered (\d+\.\d) s late$")


def _check_table(run: DemoRun, *, late_answer: bool) -> None:
    """``late_answer``: over stdio the blocked tool's answer still reaches the client (after it gave up);
    over streamable HTTP the client cancelled by closing the request's response stream, so nothing arrives."""
    table = run.table()
    late = LATE.match(table[8]["OUTCOME"])
    assert bool(late) is late_answer, table[8]
    if late:
        assert 0 < float(late.group(1)) <= RECEIPT_STALL
        table[8]["OUTCOME"] = "timeout"
    assert [(r["TOOL"], r["CHANNEL"], r["CLASS"], r["UPSTREAM"], r["OUTCOME"]) for r in table] == [
        e[1:] for e in EXPECTED
    ]
    assert [r["step"] for r in run.report["rows"]] == [e[0] for e in EXPECTED] == [s for s, _ in STEPS]
    for row in table[:-1]:
        assert REF.match(row["ERROR REF"]), row
    assert table[-1]["ERROR REF"] == "-"
    assert all(TRACE_ID.match(r["TRACE ID"]) for r in table)
    assert len({r["TRACE ID"] for r in table}) == len(table), "one trace per step"
    assert len({r["ERROR REF"] for r in table}) == len(table)


class TestStdio:
    """The default run: refund server as a stdio subprocess."""

    def test_finishes_within_a_minute(self, demo: DemoRun) -> None:
        """The whole run (three processes, nine steps, telemetry read back) stays well under 60 s."""
        assert demo.seconds < 60, demo.seconds

    def test_table_values(self, demo: DemoRun) -> None:
        """Classes, channels, upstream statuses and outcomes are the ones the design prescribes per step."""
        _check_table(demo, late_answer=True)

    def test_request_ids(self, demo: DemoRun) -> None:
        """The corrupted frame has no id; the outage and the maintenance page show the client's three attempts;
        others one id each."""
        ids = [r["REQUEST ID"] for r in demo.table()]
        assert ids[0] == "null"
        assert len(ids[5].split(",")) == len(ids[6].split(",")) == 3
        assert all(i.isdigit() for n, i in enumerate(ids) if n not in (0, 5, 6))
        numbers = [int(x) for i in ids[1:] for x in i.split(",")]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)

    def test_upstream_said_is_scrubbed_and_shown(self, demo: DemoRun) -> None:
        """Failures the payments API answered show its body, with the planted credential redacted."""
        said = {r["step"]: r["upstream_said"] for r in demo.report["rows"]}
        for step in ("other_tenant", "rate_limit", "outage"):
            assert "[REDACTED]" in said[step], said[step]
        assert said["other_tenant"].startswith('{"dsn":"postgresql://') and "[REDACTED]@ledger-db" in said["other_tenant"]
        assert said["stall"] == "-" and said["amount_as_string"] == "-" and said["notify_timeout"] == "-"

    def test_exactly_once(self, demo: DemoRun) -> None:
        """The last line proves one refund from the payments API's counter; the retry was a replay."""
        last = demo.stdout.strip().splitlines()[-1]
        assert last.startswith("Exactly once: the payments API applied 1 refund (re_0001, 40.00 EUR on ord_1001)")
        assert "2 requests carried idempotency key #" in last
        assert last.endswith("1 replayed; 1 customer notification sent, not retried.")
        payments = demo.report["payments"]
        assert (payments["refunds_applied"], payments["replays"]) == (1, 1)
        assert (payments["notifications_sent"], payments["receipts_served"]) == (1, 1)
        retry = demo.report["rows"][-1]
        assert retry["model_text"] == "Refunded 40.00 EUR on order ord_1001 (refund re_0001, succeeded)."

    def test_model_texts(self, demo: DemoRun) -> None:
        """What the model read: honest, with the ref, no upstream detail."""
        texts = {r["step"]: r["model_text"] for r in demo.report["rows"]}
        assert "safe to call again" in texts["corrupted_frame"]
        assert texts["stale_tool"].startswith(
            "refund_payment is no longer available. Available: refund_order, notify_customer, order_receipt.")
        assert texts["amount_as_string"].startswith("Invalid arguments for refund_order: `amount` must be a number")
        assert texts["other_tenant"].startswith("refund_order failed: order ord_2002 was not found for this account.")
        assert "Wait about 30 s" in texts["rate_limit"]
        assert texts["stall"].startswith(f"refund_order did not finish within {CLIENT_TIMEOUT:g} s and was cancelled.")
        assert texts["notify_timeout"].startswith(
            "notify_customer failed: a backing service failed after it received the request. The action may have "
            "happened: check whether it took effect before calling again.")
        assert texts["late_answer"].startswith(
            f"order_receipt did not finish within {CLIENT_TIMEOUT:g} s and was cancelled.")
        for row in demo.report["rows"][:-1]:
            assert row["model_text"].rstrip(".").endswith(row["error_ref"])
            assert "dsn" not in row["model_text"] and "[REDACTED]" not in row["model_text"]

    def test_no_planted_secret_anywhere(self, demo: DemoRun) -> None:
        """Not one planted credential (nor its FAKE core) in any file of the output folder or on the terminal."""
        files = [p for p in demo.out.rglob("*") if p.is_file()]
        assert {"traces.jsonl", "logs.jsonl", "metrics.jsonl", "triage.json"} <= {p.name for p in files}
        for path in files:
            text = path.read_text(errors="replace")
            leaked = {s for s in SECRET_CORES if s in text}
            assert not leaked, (path, leaked)
        assert not {s for s in SECRET_CORES if s in demo.stdout + demo.stderr}

    def test_telemetry_shape(self, demo: DemoRun) -> None:
        """One SERVER span per answered attempt; each upstream answer is a CLIENT child span of a tool span."""
        telemetry = load(demo.out)
        servers = [s for s in telemetry.spans if s.kind == SPAN_KIND_SERVER and s.get("mcp.method.name") == "tools/call"]
        # stale, "40", tenant, 429, 3 x 503, 3 x maintenance page, notify, receipt, stall, retry; none for the bad frame
        assert len(servers) == 14
        upstream = [s for s in telemetry.spans if s.kind == SPAN_KIND_CLIENT and s.parent_span_id in
                    {t.span_id for t in servers}]
        assert sorted(str(s.get("http.response.status_code", s.get("http.status_code", "-"))) for s in upstream) == sorted(
            ["404", "429", "503", "503", "503", "200", "200", "200", "-", "200", "-", "201"])
        replayed = [s for s in servers if s.get("errscope.idempotency.replayed") is True]
        assert len(replayed) == 1
        failures = [r for r in telemetry.logs if str(r.body).startswith("tool call failed: ")]
        # stale, "40", tenant, 429, 3 x 503, 3 x maintenance page, notify; never the cancelled stall nor the late receipt
        assert len(failures) == 11
        assert {r.get("errscope.error_ref") for r in failures} <= {s.get("errscope.error_ref") for s in servers}

    def test_server_read_timeout_ran_once_and_says_so(self, demo: DemoRun) -> None:
        """notify_customer's own 1 s read timeout: one request to the payments API (its counter), not retried,
        and the tool span records that the request was sent."""
        row = next(r for r in demo.report["rows"] if r["step"] == "notify_timeout")
        assert (row["attempts"], demo.report["payments"]["notifications_sent"]) == (1, 1)
        spans = load(demo.out).spans_where("errscope.error_ref", row["error_ref"])
        [span] = [s for s in spans if s.kind == SPAN_KIND_SERVER]
        assert span.get("errscope.upstream.status") == "ReadTimeout"
        assert span.get("errscope.side_effect_possible") is True

    def test_late_answer_is_exported(self, demo: DemoRun) -> None:
        """order_receipt blocked the server's event loop past the client's timeout: the server span ends ok after
        RECEIPT_STALL s, and the client exports one late-response log record (ref, request id) and counter."""
        row = next(r for r in demo.report["rows"] if r["step"] == "late_answer")
        agent = load(demo.out / "agent")
        [record] = [r for r in agent.logs if str(r.body).startswith("late response: ")]
        assert record.get("errscope.error_ref") == row["error_ref"]
        assert record.get("jsonrpc.request.id") == row["request_id"]
        elapsed = record.get("errscope.late_response.elapsed")
        after = record.get("errscope.late_response.after_timeout")
        assert elapsed >= RECEIPT_STALL and elapsed - after >= CLIENT_TIMEOUT, (elapsed, after)
        assert record.body == (f"late response: order_receipt finished at {elapsed:.1f} s, {after:.1f} s after the "
                               f"client gave up; the answer was dropped")
        assert row["outcome"] == f"timeout, answered {after:.1f} s late"
        [server] = [s for s in load(demo.out / "refund-server").spans if s.kind == SPAN_KIND_SERVER
                    and s.get("gen_ai.tool.name") == "order_receipt"]
        assert str(server.get("jsonrpc.request.id")) == row["request_id"]
        assert server.get("errscope.outcome") == "ok" and server.duration_ms >= RECEIPT_STALL * 1000
        assert _late_responses_counted(demo.out / "agent" / "metrics.jsonl") == 1

    def test_second_run_replaces_the_first(self, demo: DemoRun, tmp_path: Path) -> None:
        """Running again into a used folder starts from clean files (the exporters append) and keeps others."""
        import shutil

        from tests.demo.conftest import run_demo

        out = tmp_path / "again"
        shutil.copytree(demo.out, out)
        (out / "notes.txt").write_text("mine")
        again = run_demo(out)
        assert again.returncode == 0, again.stderr
        assert len(load(out).logs) == len(load(demo.out).logs)
        refs = {r["error_ref"] for r in again.report["rows"]} - {"-"}
        assert refs.isdisjoint({r["error_ref"] for r in demo.report["rows"]})
        assert refs <= {r.get("errscope.error_ref") for r in load(out).logs}
        assert (out / "notes.txt").read_text() == "mine"


def _late_responses_counted(path: Path) -> int:
    """The last exported value of the client's cumulative ``errscope.client.late_responses`` counter."""
    import json

    values = [int(point["asInt"]) for line in path.read_text().splitlines()
              for resource in json.loads(line)["resourceMetrics"] for scope in resource["scopeMetrics"]
              for metric in scope["metrics"] if metric["name"] == "errscope.client.late_responses"
              for point in metric["sum"]["dataPoints"]]
    return values[-1] if values else 0


class TestHttp:
    """``--http``: the same scenario over streamable HTTP."""

    def test_table_values(self, demo_http: DemoRun) -> None:
        """Same classes, channels and statuses as over stdio (the HTTP transport answers the bad frame itself)."""
        _check_table(demo_http, late_answer=False)
        assert demo_http.report["transport"] == "http"

    def test_no_planted_secret_anywhere(self, demo_http: DemoRun) -> None:
        for path in (p for p in demo_http.out.rglob("*") if p.is_file()):
            assert "FAKE" not in path.read_text(errors="replace"), path


def test_bad_output_folder(tmp_path: Path) -> None:
    """An output path that is a file: one clear line, non-zero exit, no traceback."""
    from tests.demo.conftest import run_demo

    target = tmp_path / "a-file"
    target.write_text("x")
    run = run_demo(target, timeout=60)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [f"errscope demo: {target} exists and is not a folder"]


class TestTerminal:
    """On a terminal: a rich table and a progress display (rendered here into a forced-terminal console)."""

    def test_rich_table_has_every_row(self, demo: DemoRun) -> None:
        import io

        from rich.console import Console

        from errscope.demo import triage

        rows = [triage.Row(**r) for r in demo.report["rows"]]
        console = Console(file=io.StringIO(), force_terminal=True, width=260, color_system=None)
        triage.print_rows(console, rows, "errscope demo")
        out = console.file.getvalue()  # type: ignore[attr-defined]
        assert "┃ ERROR REF" in out and "UPSTREAM SAID (SCRUBBED)" in out
        for row in rows:
            assert row.trace_id in out
            if row.error_ref != "-":
                assert row.error_ref in out

    def test_progress_display(self) -> None:
        import io

        from rich.console import Console

        from errscope.demo.run import _Progress

        console = Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)
        with _Progress(console, 3) as progress:
            for what in ("starting", "a step", "flushing telemetry"):
                progress.advance(what)
        assert "flushing telemetry" in console.file.getvalue()  # type: ignore[attr-defined]

    def test_plain_when_not_a_terminal(self, demo: DemoRun) -> None:
        """Captured stdout has no box drawing and no escape codes."""
        assert "\x1b[" not in demo.stdout and "┃" not in demo.stdout


def test_a_refund_server_that_never_starts_is_one_clear_error() -> None:
    """The agent refuses to walk its script against a server it could not connect to."""
    import sys

    import anyio
    from mcp.client.stdio import StdioServerParameters

    from errscope.demo.agent import AgentError, Target, run_agent

    target = Target(stdio=StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(3)"]))
    with pytest.raises(AgentError, match=r"^could not connect to the refund server \(refund server \(stdio\)\)$"):
        anyio.run(lambda: run_agent(target, "http://127.0.0.1:9"))


def test_the_payments_api_gone_midway_is_one_clear_error(tmp_path: Path) -> None:
    """A failure of the demo's own plumbing stops the agent with one line naming the step, not a traceback."""
    import sys

    import anyio
    from mcp.client.stdio import StdioServerParameters

    from errscope.demo.agent import AgentError, Target, run_agent

    dead = "http://127.0.0.1:9"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "errscope.demo.refund_server", "--payments", dead, "--out", str(tmp_path)],
    )
    with pytest.raises(AgentError, match=r"^the agent stopped at step other_tenant: ConnectError: "):
        anyio.run(lambda: run_agent(Target(stdio=params), dead))


def test_otlp_to_a_dead_collector_still_gives_the_whole_table(tmp_path: Path) -> None:
    """With OTEL_EXPORTER_OTLP_ENDPOINT set and nothing listening, exports give up in bounded time and the
    table is built from the local copy of spans and logs."""
    from tests.demo.conftest import run_demo

    run = run_demo(tmp_path / "out", env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert run.returncode == 0, run.stderr
    assert run.report["otlp"] is True
    _check_table(run, late_answer=True)
    assert not (run.out / "agent" / "metrics.jsonl").exists()  # metrics went (tried) to OTLP only


def test_the_payments_api_gone_before_its_counters_are_read_is_one_clear_error() -> None:
    """The exactly-once proof reads the payments API's counters last; an API gone by then (a Ctrl-C reaches it with
    the demo) is one line naming what could not be read, where it was an httpx traceback."""
    with pytest.raises(DemoError, match=r"^the payments API's counters could not be read \(ConnectError\)"):
        read_stats("http://127.0.0.1:9")


@pytest.mark.parametrize(("sent", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, DemoError)])
def test_a_process_ended_by_a_signal_before_it_was_ready_says_so(sent: signal.Signals, raised: type) -> None:
    """A Ctrl-C during start-up ends the payments API with the demo (one foreground process group): that is the user's
    interrupt (``errscope demo: interrupted``, 130), not the API's failure; another signal is named."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    process.send_signal(sent)
    process.wait(10)
    with pytest.raises(raised) as caught:
        _wait_http("http://127.0.0.1:9", process, "the payments API")
    if raised is DemoError:
        assert str(caught.value) == "the payments API was ended by SIGTERM before it was ready"
