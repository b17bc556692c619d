"""On call from the sentence the model was shown to why the client did or did not try again.

A host that wraps no span of its own around a call (a bare ``ToolClient`` in an agent loop) starts each attempt as a
new trace; the retries link to the attempts before them. ``errscope explain`` on the final ref must show every attempt
of the logical call, not "1 attempt, 0 retries", and for a failure of a class the policy retries, say why no further
attempt went (``errscope.retry.stop_reason`` on the client's record of what the model saw): the tool is not declared
safe to repeat (DESIGN.md, "Idempotency keys"), or the attempts ran out.

Real: an errscope-instrumented ``MCPServer`` on stdio (``tests/client/servers/oncall_orders.py``), httpx against a real
HTTP upstream on 127.0.0.1 that answers 503, ``ToolClient`` exporting to files, ``errscope explain`` as a command.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope._setup import configure_telemetry
from errscope.client import RetryPolicy, ToolClient
from tests.classification.upstreams import HttpUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

SERVER = Path(__file__).parent / "servers" / "oncall_orders.py"
ROOT = Path(__file__).resolve().parents[2]


def explain(query: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_retries_and_a_refused_retry_read_from_the_models_text(tmp_path: Path) -> None:
    """``get_quote`` (idempotentHint) fails 503 three times: explain on the sentence the model saw lists attempts 1-3
    with their request ids and says the attempts ran out. ``send_email`` (no hint) fails 503 once: explain says it was
    not retried because the tool is not declared safe to repeat."""
    with HttpUpstream() as upstream:
        base = upstream.scripted(503, b'{"error":"mail relay down"}', {"Content-Type": "application/json"})
        host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER), base, str(tmp_path / "server")],
                                       cwd=str(ROOT))
        try:
            async with ToolClient(params, timeout=10, retry=RetryPolicy(backoff_initial=0.05, jitter=0.05),
                                  tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tools:
                quote = await tools.call_tool("get_quote", {"sku": "BOOT-42"})
                email = await tools.call_tool("send_email", {"to": "ops@example.com"})
        finally:
            host.shutdown()
    assert quote.failure_class is email.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, (quote.text, email.text)
    assert (quote.attempts, email.attempts) == (3, 1)

    said = explain(quote.text, tmp_path)
    attempts = re.findall(r"attempt (\d): tools/call get_quote", said)
    assert attempts == ["1", "2", "3"], said
    for request_id in quote.request_ids:
        assert f"jsonrpc.request.id={request_id}" in said, said
    assert "3 attempts, 2 retries" in said and "(attempts_exhausted)" in said, said

    said = explain(email.text, tmp_path)
    assert "1 attempt, 0 retries" in said, said
    assert "not retried automatically: send_email is not declared safe to repeat" in said, said
    assert "(not_safe_to_repeat)" in said, said
    # The server's log record says what the upstream answered.
    assert '{"error":"mail relay down"}' in said, said


async def test_a_tool_that_finished_after_the_client_gave_up(tmp_path: Path) -> None:
    """The client times out on ``build_report`` (a sync tool) and sends ``notifications/cancelled``; the worker thread
    runs on, files the report with the upstream and returns; the answer is dropped. The model was told the work may
    have been done; explain on its sentence says it was: the server span (outcome ``cancelled``) carries
    ``errscope.finished_after_cancel`` with outcome ``ok``, and the upstream call made after the cancel is listed."""
    with HttpUpstream() as upstream:
        base = upstream.scripted(201, b'{"id":"rep_1"}', {"Content-Type": "application/json"})
        host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER), base, str(tmp_path / "server")],
                                       cwd=str(ROOT))
        try:
            async with ToolClient(params, timeout=1.0, tracer_provider=host.tracer_provider,
                                  meter_provider=host.meter_provider) as tools:
                report = await tools.call_tool("build_report", {"seconds": 2.0})
                await tools.call_tool("get_quote", {"sku": "after"})  # the session lives on until the thread is done
        finally:
            host.shutdown()
    assert report.outcome.value == "timeout" and report.side_effect_possible is True, report.text
    said = explain(report.text, tmp_path)
    assert "errscope.outcome=cancelled" in said, said
    assert "the tool ran to its end after the cancel: it returned, so its effect happened" in said, said
    assert re.search(r"POST http://127\.0\.0\.1:\d+/\S*/reports  status 201", said), said


def _ended(outcome: str, failure_class: str | None = None, retry_after: float | None = None):
    from errscope import Outcome
    from errscope.client import ToolCallResult

    return ToolCallResult(tool="t", text="", outcome=Outcome(outcome),
                          failure_class=FailureClass(failure_class) if failure_class else None, retry_after=retry_after)


@pytest.mark.parametrize(
    ("ended", "policy", "facts", "reason"),
    [
        (("ok",), {}, {}, None),
        (("error", "not_found"), {}, {}, None),  # never retried: the class says why
        (("error", "upstream_unavailable"), {}, {"safe_to_repeat": False}, "not_safe_to_repeat"),
        (("error", "upstream_unavailable"), {}, {"safe_to_repeat": False, "undelivered": True}, "attempts_exhausted"),
        (("error", "rate_limited", 30.0), {}, {"safe_to_repeat": True}, "retry_after_too_long"),
        (("error", "rate_limited", 2.0), {}, {"safe_to_repeat": True}, "attempts_exhausted"),
        (("timeout", "upstream_unavailable"), {}, {"safe_to_repeat": False}, "not_safe_to_repeat"),
        (("timeout", "upstream_unavailable"), {"retry_timeouts": False}, {"safe_to_repeat": True}, "retries_off"),
        (("error", "upstream_unavailable"), {"max_attempts": 1}, {"safe_to_repeat": True}, "retries_off"),
        (("error", "upstream_unavailable"), {}, {"safe_to_repeat": True, "held": True}, "circuit_open"),
    ],
)
def test_stop_reason_follows_the_retry_table(ended: tuple, policy: dict, facts: dict, reason: str | None) -> None:
    """Why no further attempt went, per the module table of :mod:`errscope.client._retry` (defaults: max_attempts 3,
    max_rate_limit_wait 10 s)."""
    from errscope.client._retry import STOP_REASONS

    facts = {"safe_to_repeat": False, "undelivered": False, "held": False, **facts}
    assert RetryPolicy(**policy).stop_reason(_ended(*ended), **facts) == reason
    assert reason is None or reason in STOP_REASONS
