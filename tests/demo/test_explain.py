"""``errscope explain`` on the demo's output, for every row, and on bad input."""

from __future__ import annotations

import re

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from errscope.demo.agent import CLIENT_TIMEOUT, RECEIPT_STALL
from tests.demo.conftest import ROOT, DemoRun

pytestmark = pytest.mark.timeout(240)


def explain_process(query: str, folder: Path | str) -> subprocess.CompletedProcess[str]:
    """The real command in its own process."""
    return subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(folder)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )


def explain(query: str, folder: Path | str) -> subprocess.CompletedProcess[str]:
    """``errscope.cli.main`` in this process (the same code path, without paying the imports again)."""
    from errscope.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["explain", query, "--from", str(folder)])
    return subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


def sections(output: str) -> dict[str, str]:
    """The numbered sections of one chain, by their title."""
    found: dict[str, list[str]] = {}
    current = "head"
    for line in output.splitlines():
        if line[:2] in {"1.", "2.", "3.", "4.", "5."}:
            current = line[3:].strip()
            found[current] = []
        else:
            found.setdefault(current, []).append(line.strip())
    return {k: "\n".join(v) for k, v in found.items()}


def rows(demo: DemoRun) -> dict[str, dict[str, str]]:
    return {r["step"]: r for r in demo.report["rows"]}


class TestEveryRow:
    """Each row of the table, looked up by its ref (or, for the success, by trace id and request id)."""

    @pytest.mark.parametrize("step", ["corrupted_frame", "stale_tool", "amount_as_string", "other_tenant",
                                      "rate_limit", "outage", "unexpected_answer", "notify_timeout",
                                      "late_answer", "stall"])
    def test_by_ref_shows_what_the_model_saw(self, demo: DemoRun, step: str) -> None:
        """The chain starts with the exact text the model read, under the row's ref and trace."""
        row = rows(demo)[step]
        result = explain(row["error_ref"], demo.out)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        head = result.stdout.splitlines()[0]
        assert head.startswith(f"{row['error_ref']}  tool={row['tool']}  trace={row['trace_id']}")
        assert row["model_text"] in sections(result.stdout)["what the model saw"]

    @pytest.mark.parametrize(("step", "status", "exception"), [
        ("other_tenant", "404", "errscope.NotFound"),
        ("rate_limit", "429", "errscope.RateLimited"),
        ("outage", "503", "errscope.UpstreamUnavailable"),
    ])
    def test_upstream_failures_reach_the_upstream_event(self, demo: DemoRun, step: str, status: str,
                                                       exception: str) -> None:
        """Ref -> tool span -> upstream child span with its status -> log record with the scrubbed body."""
        row = rows(demo)[step]
        part = sections(explain(row["error_ref"], demo.out).stdout)
        assert part["tool span"].startswith("tools/call refund_order  [SERVER, errscope-demo-refunds]")
        assert f"errscope.upstream.status={status}" in part["tool span"]
        assert f"status {status}" in part["upstream"] and "/v1/orders/" in part["upstream"]
        assert f"exception.type={exception}" in part["log record"]
        assert "[REDACTED]" in part["log record"] and "FAKE" not in part["log record"]
        assert "idempotency key hash" in part["client view"]

    def test_unexpected_answer_shows_its_root_cause_and_fingerprint(self, demo: DemoRun) -> None:
        """The maintenance page's JSONDecodeError is the root, on span and log alike (the upstream's fault:
        `upstream_unavailable`, not a gap in the mapping)."""
        row = rows(demo)["unexpected_answer"]
        assert row["failure_class"] == "upstream_unavailable"
        part = sections(explain(row["error_ref"], demo.out).stdout)
        assert "root cause json.decoder.JSONDecodeError: " in part["tool span"]
        (fingerprint,) = re.findall(r"fingerprint ([0-9a-f]{16})", part["tool span"])
        assert "exception.type=json.decoder.JSONDecodeError" in part["log record"]
        assert f"errscope.error.fingerprint={fingerprint}" in part["log record"]
        assert "FAKE" not in part["tool span"] + part["log record"]
        assert "status 200" in part["upstream"]

    def test_outage_shows_the_client_retries(self, demo: DemoRun) -> None:
        """Three attempts, each with its own server ref, one idempotency key for all."""
        part = sections(explain(rows(demo)["outage"]["error_ref"], demo.out).stdout)
        assert "3 attempts, 2 retries, 0 timeouts" in part["client view"]
        assert part["client view"].count("attempt ") == 3
        assert len(part["log record"].splitlines()) == 6  # one record per attempt (2 lines each)

    def test_stall_shows_the_timeout_and_the_cancelled_server_call(self, demo: DemoRun) -> None:
        """The client's ref leads to the cancelled SERVER span and its unanswered upstream call."""
        part = sections(explain(rows(demo)["stall"]["error_ref"], demo.out).stdout)
        assert "errscope.outcome=cancelled" in part["tool span"]
        assert "no answer" in part["upstream"]
        assert f"event cancel_sent: timeout after {CLIENT_TIMEOUT:g}s" in part["client view"]
        assert "1 attempt, 0 retries, 1 timeout;" in part["client view"]

    def test_server_read_timeout_may_have_been_applied(self, demo: DemoRun) -> None:
        """notify_customer's httpx read timeout: sent, so maybe applied; one attempt, no retry."""
        part = sections(explain(rows(demo)["notify_timeout"]["error_ref"], demo.out).stdout)
        assert "status=ERROR upstream_unavailable" in part["tool span"]
        assert "errscope.upstream.status=ReadTimeout" in part["tool span"]
        assert "errscope.side_effect_possible=true" in part["tool span"]
        assert "/notifications  no answer after the request was sent: it may have been applied" in part["upstream"]
        assert "1 attempt, 0 retries, 0 timeouts;" in part["client view"]

    def test_late_answer_is_in_the_chain(self, demo: DemoRun) -> None:
        """The timed-out ref shows the client's late-response record and the server call that finished ok."""
        part = sections(explain(rows(demo)["late_answer"]["error_ref"], demo.out).stdout)
        [(finished, after)] = re.findall(r"INFO late response: order_receipt finished at (\d+\.\d) s, (\d+\.\d) s "
                                         r"after the client gave up; the answer was dropped", part["log record"])
        assert float(finished) >= RECEIPT_STALL - 0.05 and float(finished) - float(after) >= CLIENT_TIMEOUT - 0.1
        assert "errscope.outcome=ok" in part["tool span"] and "status 200" in part["upstream"]
        assert f"event cancel_sent: timeout after {CLIENT_TIMEOUT:g}s" in part["client view"]

    def test_corrupted_frame_has_the_servers_log_record(self, demo: DemoRun) -> None:
        """No request was ever read, so no span: the server's log record carries the ref."""
        part = sections(explain(rows(demo)["corrupted_frame"]["error_ref"], demo.out).stdout)
        assert part["tool span"].startswith("(none")
        assert "malformed frame answered" in part["log record"]
        assert "rpc.response.status_code=-32700" in part["log record"]
        assert "host span: demo step corrupted_frame  [INTERNAL, errscope-demo-agent]  status=ERROR invalid_input" in (
            part["client view"])

    def test_validation_failure_never_reached_the_upstream(self, demo: DemoRun) -> None:
        part = sections(explain(rows(demo)["amount_as_string"]["error_ref"], demo.out).stdout)
        assert "errscope.failure_class=invalid_input" in part["tool span"]
        assert part["upstream"] == "(no upstream call)"

    def test_success_by_trace_id_and_request_id(self, demo: DemoRun) -> None:
        """The successful retry has no ref: its trace id and its request id both find the chain (a replay)."""
        row = rows(demo)["retry_same_key"]
        by_trace = explain(row["trace_id"], demo.out)
        by_id = explain(row["request_id"], demo.out)
        assert by_trace.returncode == by_id.returncode == 0
        for output in (by_trace.stdout, by_id.stdout):
            part = sections(output)
            assert row["model_text"] in part["what the model saw"]
            assert "errscope.idempotency.replayed=true" in part["tool span"]
            assert "status 201" in part["upstream"]

    def test_request_id_of_a_failure(self, demo: DemoRun) -> None:
        row = rows(demo)["other_tenant"]
        result = explain(row["request_id"], demo.out)
        assert result.returncode == 0
        assert result.stdout.startswith(row["error_ref"])

    def test_ref_is_case_insensitive(self, demo: DemoRun) -> None:
        row = rows(demo)["rate_limit"]
        assert explain(row["error_ref"].lower(), demo.out).stdout.startswith(row["error_ref"])


class TestBadInput:
    """One clear line on stderr, a non-zero exit, never a traceback."""

    def _fails(self, result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
        assert result.returncode == code, (result.stdout, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("errscope explain: "), result.stderr
        assert "Traceback" not in result.stderr
        for needle in needles:
            assert needle in lines[0]

    def test_unknown_ref(self, demo: DemoRun) -> None:
        self._fails(explain("ERR-00000000", demo.out), 1, "error ref ERR-00000000 not found")

    def test_unknown_trace_and_request_id(self, demo: DemoRun) -> None:
        self._fails(explain("0123456789abcdef" * 2, demo.out), 1, "trace id")
        self._fails(explain("no-such-id", demo.out), 1, "JSON-RPC request id no-such-id not found")

    def test_missing_folder(self, tmp_path: Path) -> None:
        self._fails(explain("ERR-00000000", tmp_path / "nope"), 2, "does not exist")

    def test_not_a_folder(self, tmp_path: Path) -> None:
        (tmp_path / "file").write_text("{}")
        self._fails(explain("ERR-00000000", tmp_path / "file"), 2, "is not a folder")

    def test_empty_folder(self, tmp_path: Path) -> None:
        """A folder with no telemetry is likely the wrong one: the line says what --from takes, as for a missing one."""
        self._fails(explain("ERR-00000000", tmp_path), 2, "holds no telemetry",
                    "; --from takes the folder the server (or errscope proxy) and the host export OTLP-JSON files to")

    def test_empty_files(self, tmp_path: Path) -> None:
        for name in ("traces.jsonl", "logs.jsonl", "metrics.jsonl"):
            (tmp_path / name).write_text("")
        self._fails(explain("ERR-00000000", tmp_path), 2, "no spans and no log records")

    def test_torn_lines_are_left_out_and_named(self, demo: DemoRun, tmp_path: Path) -> None:
        """A process killed mid-write leaves a torn last line (and a disk, garbage bytes): the chain is still found
        from the rest, and stderr names each line left out (the whole folder was refused for one torn line)."""
        copy = tmp_path / "copy"
        shutil.copytree(demo.out, copy)
        traces = copy / "agent" / "traces.jsonl"
        lines = traces.read_text().splitlines()
        traces.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe garbage\n" + lines[-1][: len(lines[-1]) // 2].encode())
        result = explain(rows(demo)["other_tenant"]["error_ref"], copy)
        assert result.returncode == 0, result.stderr
        assert "root cause errscope.NotFound" in sections(result.stdout)["tool span"]
        assert result.stderr.splitlines() == [
            f"errscope explain: left out {traces} line {len(lines) + 1} is not JSON (a corrupt or truncated export)",
            f"errscope explain: left out {traces} line {len(lines) + 2} is not JSON (a corrupt or truncated export)",
        ]

    def test_json_that_is_not_otlp(self, tmp_path: Path) -> None:
        (tmp_path / "logs.json").write_text('{"hello": "world"}\n')
        self._fails(explain("ERR-00000000", tmp_path), 2, "no resourceLogs")

    def test_binary_garbage(self, tmp_path: Path) -> None:
        (tmp_path / "traces.jsonl").write_bytes(b"\xff\xfe\x00garbage")
        self._fails(explain("ERR-00000000", tmp_path), 2, "no spans and no log records", "traces.jsonl line 1 is not JSON")

    def test_unusable_query(self, demo: DemoRun) -> None:
        self._fails(explain("line\nbreak", demo.out), 2, "give an error ref")


class TestRealCommand:
    """The same through the real command, in its own process."""

    def test_a_ref(self, demo: DemoRun) -> None:
        row = rows(demo)["other_tenant"]
        result = explain_process(row["error_ref"], demo.out)
        assert (result.returncode, result.stderr) == (0, "")
        assert "errscope.upstream.status=404" in result.stdout

    def test_bad_input(self, tmp_path: Path) -> None:
        result = explain_process("ERR-00000000", tmp_path / "missing")
        assert result.returncode == 2
        # One line that says what --from wants: a new user's first run is often in another folder.
        assert result.stderr.startswith(f"errscope explain: {tmp_path / 'missing'} does not exist; --from takes the folder")
        assert result.stderr.count("\n") == 1 and "errscope-out" in result.stderr


def test_every_failure_row_of_the_http_run(demo_http: DemoRun) -> None:
    """Over streamable HTTP too, each ref leads back to what the model saw (the bad frame's ref is the host's)."""
    for row in demo_http.report["rows"]:
        query = row["error_ref"] if row["error_ref"] != "-" else row["trace_id"]
        result = explain(query, demo_http.out)
        assert result.returncode == 0, (row, result.stderr)
        assert row["model_text"] in sections(result.stdout)["what the model saw"]
        if row["step"] in ("other_tenant", "rate_limit", "outage"):
            assert f"status {row['upstream_status']}" in sections(result.stdout)["upstream"]
