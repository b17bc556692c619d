"""Public cases D01, D04, D08, D12, D18, D20, D22, D24 against real servers (stdio subprocesses, HTTP).

Timeouts are scaled down (the cases say 5 s / 10 s / 60 s; we use fractions of a second) so the
suite stays fast; the behaviour under test does not depend on the scale. D14 lives in
test_idempotency.py because it needs the server-side helper and a real HTTP upstream.

Where a case's "Expected" puts the failure class in ``error.type`` (D01, D04, D12), DESIGN.md wins:
``error.type`` follows the semantic conventions (the JSON-RPC code as a string, ``tool_error`` for
an ``isError`` result, ``timeout`` for a local timeout) and the class goes in
``errscope.failure_class``. Likewise ``rpc.jsonrpc.error_code`` is spelled
``rpc.response.status_code`` (the MCP conventions' attribute).
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import (
    ERROR_TYPE,
    ERRSCOPE_ATTEMPT,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_SIDE_EFFECT_POSSIBLE,
    JSONRPC_REQUEST_ID,
    ERRSCOPE_PROGRESS_NOTIFICATIONS,
    META_IDEMPOTENCY_KEY,
    RPC_RESPONSE_STATUS_CODE,
    SERVER_ADDRESS,
    SERVER_PORT,
    TOOL_ERROR,
)
from errscope.client import ConnectionState, RetryPolicy, TimeoutPolicy, ToolClient, key_hash

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

REF = re.compile(r"Ref ERR-[0-9A-HJKMNP-TV-Z]{8}\.$")


def span_attrs(telemetry: Any, name: str) -> list[dict[str, Any]]:
    return [dict(s.attributes or {}) for s in telemetry.spans(name)]


class TestD01UnknownTool:
    """D01 (client side): both ways a foreign server reports an unknown tool end in one honest note."""

    @pytest.mark.parametrize("style", ["protocol", "iserror"])
    async def test_unknown_tool_is_relisted_once_and_named(self, foreign: Any, telemetry: Any, style: str) -> None:
        """-32602 "Unknown tool" and the D01-style isError wrapper both re-list once and list what exists."""
        params, log = foreign("d01")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("get_ordr", {"order_id": "A-1", "style": style})
        assert result.failure_class is FailureClass.NOT_FOUND
        assert result.text.startswith("Tool `get_ordr` does not exist. Available: get_order, list_orders. Ref ERR-")
        assert len(log.received("tools/list")) == 2  # the initial listing + exactly one refresh
        assert len(log.received("tools/call")) == 1  # never retried: the tool is still missing
        expected_channel = Channel.PROTOCOL if style == "protocol" else Channel.EXECUTION
        assert result.channel is expected_channel


class TestD04RetryByClass:
    """D04: each isError class gets its own advice; nothing is a blanket "retry now"."""

    EXPECTED = [
        ("delete_branch", FailureClass.PERMISSION_DENIED, "Don't retry; ask the user for access."),
        ("get_issue", FailureClass.NOT_FOUND, "Check the identifier"),
        ("search_code", FailureClass.RATE_LIMITED, "Wait about 30 s"),
        ("create_issue", FailureClass.UPSTREAM_UNAVAILABLE, "The service could not be reached; you may try again later."),
    ]

    @pytest.mark.parametrize("scenario", ["d04", "d04_hinted"])
    async def test_each_class_gets_its_own_note(self, foreign: Any, telemetry: Any, scenario: str) -> None:
        """Foreign text-only results and class-hinted results classify the same way, in order."""
        params, log = foreign(scenario)
        retry = RetryPolicy(backoff_initial=0.01, backoff_max=0.02, jitter=0.01)
        async with ToolClient(params, timeout=2, retry=retry, **telemetry.providers) as tc:
            results = [await tc.call_tool(name, {}) for name, _, _ in self.EXPECTED]
            assert tc.state is ConnectionState.CONNECTED  # the run did not abort
        for result, (name, cls, advice) in zip(results, self.EXPECTED, strict=True):
            assert (result.tool, result.failure_class, result.channel) == (name, cls, Channel.EXECUTION)
            assert advice in result.text
            assert "retry now" not in result.text.lower()
            assert REF.search(result.text)
        assert results[2].retry_after == 30.0
        calls = [r["tool"] for r in log.events("call")]
        # permission/not-found never retried; a 30 s retry-after is the model's to wait out, not ours;
        # an isError 503 of a tool the server never declared safe to repeat is not repeated, key or not.
        assert calls.count("delete_branch") == 1 and calls.count("get_issue") == 1
        assert calls.count("search_code") == 1 and calls.count("create_issue") == 1
        for attrs in span_attrs(telemetry, "tools/call delete_branch"):
            assert attrs[ERROR_TYPE] == TOOL_ERROR
            assert attrs[ERRSCOPE_FAILURE_CLASS] == "permission_denied"
        if scenario == "d04_hinted":
            assert all(r.error_ref == "ERR-SRVREF01" for r in results)

    async def test_short_retry_after_is_waited_out(self, tmp_path: Any, telemetry: Any) -> None:
        """A rate limit within the policy's wait is retried after retry_after plus jitter (tool safe to repeat)."""
        from tests.client.helpers import scripted_server

        params = scripted_server(
            tmp_path,
            [{"isError": True, "text": "429 Too Many Requests, retry after 0.2s"}, {"text": "done"}],
            idempotent=True,
        )
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            started = anyio.current_time()
            result = await tc.call_tool("scripted", {})
            waited = anyio.current_time() - started
        assert (result.outcome, result.attempts, result.text) == (Outcome.OK, 2, "done")
        assert waited >= 0.2


class TestD08CredentialsInUrl:
    """D08: a refused connection is reported without the URL's credentials anywhere."""

    URL = "http://client:FAKE_URL_CRED_9x@127.0.0.1:1/mcp?api_key=FAKE_QS_TOKEN_9x#frag"

    async def test_refused_connection_leaks_nothing(self, telemetry: Any) -> None:
        """Text, spans, metric points and the result's repr are free of user-info, query and fragment."""
        async with ToolClient(self.URL, timeout=0.1, connect_timeout=0.1, **telemetry.providers) as tc:
            tools = await tc.list_tools()
            result = await tc.call_tool("echo", {"text": "hi"})
        assert tools == []
        assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert result.text.startswith("Tool server http://127.0.0.1:1/mcp is unavailable; no request was sent. Ref ERR-")
        dump = repr(result) + "".join(
            f"{s.name}{dict(s.attributes or {})}{s.status}{[e.attributes for e in s.events]}" for s in telemetry.spans()
        )
        dump += repr(telemetry.histogram_points("mcp.client.operation.duration"))
        for secret in ("FAKE_URL_CRED_9x", "FAKE_QS_TOKEN_9x", "#frag", "client:"):
            assert secret not in dump
        spans = span_attrs(telemetry, "tools/call echo")  # one per attempt: nothing was sent, so it is re-sent
        assert len(spans) == result.attempts == 3
        assert {(attrs[SERVER_ADDRESS], attrs[SERVER_PORT]) for attrs in spans} == {("127.0.0.1", 1)}


class TestD12CancelOnTimeout:
    """D12: exactly one notifications/cancelled per abandoned request, none for initialize."""

    async def test_timeout_sends_one_cancel_with_reason(self, foreign: Any, telemetry: Any) -> None:
        """The server sees one cancel with the timeout as reason, stops, and never answers the id."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=0.5, **telemetry.providers) as tc:
            result = await tc.call_tool("export_report", {"seconds": 120})
            await log.wait("end", 1)
        assert result.outcome is Outcome.TIMEOUT
        assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert result.text.startswith(
            "export_report did not finish within 0.5 s and was cancelled. Part of the work may already have "
            "been done; check before retrying. Ref ERR-"
        )
        (call,) = log.received("tools/call")
        cancels = log.received("notifications/cancelled")
        assert [c["params"] for c in cancels] == [{"requestId": call["id"], "reason": "timeout after 0.5s"}]
        (init,) = log.received("initialize")
        assert all(c["params"]["requestId"] != init["id"] for c in cancels)
        assert [e["in_flight"] for e in log.events("end")] == [0]
        assert len(log.events("cancel_honoured")) == 1
        (span,) = telemetry.spans("tools/call export_report")
        assert span.status.status_code.name == "ERROR"
        attrs = dict(span.attributes or {})
        assert (attrs[ERROR_TYPE], attrs[ERRSCOPE_OUTCOME], attrs[ERRSCOPE_FAILURE_CLASS]) == (
            "timeout",
            "timeout",
            "upstream_unavailable",
        )
        assert [e.name for e in span.events].count("cancel_sent") == 1

    async def test_caller_cancel_sends_one_cancel(self, foreign: Any, telemetry: Any) -> None:
        """The host abandoning the call also sends exactly one cancel; the span says cancelled."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=30, **telemetry.providers) as tc:
            with anyio.move_on_after(0.3):
                await tc.call_tool("export_report", {"seconds": 120})
            await log.wait("end", 1)
            assert tc.state is ConnectionState.CONNECTED
        cancels = log.received("notifications/cancelled")
        assert [c["params"]["reason"] for c in cancels] == ["caller cancelled"]
        (span,) = telemetry.spans("tools/call export_report")
        assert dict(span.attributes or {})[ERRSCOPE_OUTCOME] == "cancelled"
        assert [e.name for e in span.events] == ["cancel_sent"]

    async def test_fifty_timeouts_leave_nothing_running(self, foreign: Any, telemetry: Any) -> None:
        """50 timed-out calls: one cancel per request sent, and the server's in-flight count returns to 0."""
        params, log = foreign("slow")
        breaker_free = {"failure_threshold": 1000}
        from errscope.client import CircuitBreaker

        async with ToolClient(
            params, timeout=0.4, breaker=CircuitBreaker(**breaker_free), **telemetry.providers
        ) as tc:
            results: list[Any] = []

            async def call() -> None:
                results.append(await tc.call_tool("export_report", {"seconds": 120}))

            async with anyio.create_task_group() as tg:
                for _ in range(50):
                    tg.start_soon(call)
            # On a loaded machine a call's 0.4 s can pass while its request waits for the writer: it is never sent,
            # gets no cancel, and says nothing ran.
            sent = sorted(i for r in results for i in r.request_ids)
            assert len(results) == 50 and sent and all(r.outcome is Outcome.TIMEOUT for r in results)
            assert all(r.side_effect_possible is (bool(r.request_ids)) for r in results)
            await log.wait("end", len(sent))
        calls = sorted(c["id"] for c in log.received("tools/call"))
        cancelled = [c["params"]["requestId"] for c in log.received("notifications/cancelled")]
        assert calls == sent and sorted(cancelled) == calls
        assert log.events("end")[-1]["in_flight"] == 0
        assert len(log.events("end")) == len(sent)

    async def test_a_call_still_queued_at_its_deadline_was_never_sent(self, foreign: Any, telemetry: Any) -> None:
        """The server stops reading; a call larger than the pipe's buffer fills it and holds the writer; the call
        queued behind it times out unsent: nothing ran, so it says so, and no cancel goes out for it."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=10, **telemetry.providers) as tc:
            async with anyio.create_task_group() as tg:
                tg.start_soon(tc.call_tool, "stop_reading", {"seconds": 2})
                await log.wait("call", 1)
                tg.start_soon(tc.call_tool, "export_report", {"seconds": 0, "pad": "x" * 300_000})
                await anyio.sleep(0.2)
                queued = await tc.call_tool("export_report", {"seconds": 0}, timeout=0.5)
        assert (queued.outcome, queued.failure_class, queued.side_effect_possible, queued.request_ids) == (
            Outcome.TIMEOUT, FailureClass.UPSTREAM_UNAVAILABLE, False, ()
        )
        assert "nothing was run" in queued.text
        assert len(log.received("tools/call")) == 2 and log.received("notifications/cancelled") == []
        (span,) = [s for s in telemetry.spans("tools/call export_report") if s.attributes[ERRSCOPE_OUTCOME] == "timeout"]
        assert JSONRPC_REQUEST_ID not in span.attributes and span.attributes[ERRSCOPE_SIDE_EFFECT_POSSIBLE] is False

    async def test_initialize_is_never_cancelled(self, foreign: Any) -> None:
        """A server that never answers initialize gets no notifications/cancelled for it."""
        params, log = foreign("hang_init")
        async with ToolClient(params, timeout=0.3, connect_timeout=0.3) as tc:
            result = await tc.call_tool("echo", {})
            assert tc.state is ConnectionState.DISCONNECTED
        assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert log.received("initialize")
        assert log.received("notifications/cancelled") == []

    async def test_progress_resets_idle_timer_but_not_ceiling(self, foreign: Any, telemetry: Any) -> None:
        """Progress keeps a 1 s idle timer alive for 3 s (a gap of 10 notifications: a loaded machine is no timeout);
        the hard ceiling still ends a chatty call."""
        params, log = foreign("slow")
        async with ToolClient(params, **telemetry.providers) as tc:
            seen: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            ok = await tc.call_tool(
                "export_report",
                {"seconds": 3, "progress_every": 0.1},
                timeout=TimeoutPolicy(idle=1, ceiling=10),
                progress_callback=on_progress,
            )
            capped = await tc.call_tool(
                "export_report", {"seconds": 30, "progress_every": 0.1}, timeout=TimeoutPolicy(idle=1, ceiling=2)
            )
            await log.wait("end", 2)
        assert ok.outcome is Outcome.OK and len(seen) >= 20
        first = min(telemetry.spans("tools/call export_report"), key=lambda s: s.start_time or 0)
        assert dict(first.attributes or {})[ERRSCOPE_PROGRESS_NOTIFICATIONS] == len(seen)
        assert capped.outcome is Outcome.TIMEOUT
        assert capped.text.startswith("export_report did not finish within the 2 s limit and was cancelled.")
        reasons = [c["params"]["reason"] for c in log.received("notifications/cancelled")]
        assert reasons == ["timeout after 2s (hard limit)"]
        calls = log.received("tools/call")
        tokens = [c["params"]["_meta"]["progressToken"] for c in calls]
        assert tokens == [c["id"] for c in calls] and len(set(tokens)) == len(tokens)  # unique per call


class TestD18InvalidParams:
    """D18: a -32602 from an older SDK becomes a short note and the turn continues."""

    async def test_note_is_short_and_clean(self, foreign: Any, telemetry: Any) -> None:
        """No exception escapes; paths, stack and data are stripped; no automatic retry."""
        params, log = foreign("d18")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("create_label", {"name": "bug", "color": 12})
            again = await tc.call_tool("create_label", {"name": "bug", "color": "red"})
        assert result.text.startswith(
            "create_label was rejected: invalid arguments — `color` must be a string. Fix the arguments and call "
            "again. Ref ERR-"
        )
        assert len(result.text) <= 300
        for fragment in ("/srv", "handlers.py", "tok-FAKE", "trace", "stack"):
            assert fragment not in result.text
        assert (result.failure_class, result.channel, result.attempts) == (
            FailureClass.INVALID_INPUT,
            Channel.PROTOCOL,
            1,
        )
        assert again.failure_class is FailureClass.INVALID_INPUT  # the connection is still usable
        assert len(log.received("tools/call")) == 2
        attrs = span_attrs(telemetry, "tools/call create_label")[0]
        assert (attrs[RPC_RESPONSE_STATUS_CODE], attrs[ERROR_TYPE]) == ("-32602", "-32602")


class TestD20NoSilentResend:
    """D20: a timed-out call is not re-sent; the model's retry reuses the key, a new call gets a new one."""

    async def test_timeout_retry_and_new_call(self, foreign: Any, telemetry: Any) -> None:
        """One tools/call + one cancel for the first attempt; same key on the model's retry; spans linked."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=0.4, retry=RetryPolicy(max_attempts=3), **telemetry.providers) as tc:
            args = {"from": "ACC-FAKE-1", "to": "ACC-FAKE-2", "amount": 10, "seconds": 0.6}
            first = await tc.call_tool("transfer_funds", args)
            assert first.outcome is Outcome.TIMEOUT and first.attempts == 1
            assert "may already have been done" in first.text
            await log.wait("end", 1)  # the server logged the cancel and stopped
            calls_after_first = log.received("tools/call")
            cancels_after_first = log.received("notifications/cancelled")
            retry = await tc.call_tool("transfer_funds", args, idempotency_key=first.idempotency_key)
            other = await tc.call_tool("transfer_funds", {**args, "amount": 20, "seconds": 0.01})
        assert len(calls_after_first) == 1 and len(cancels_after_first) == 1
        keys = [c["params"]["_meta"][META_IDEMPOTENCY_KEY] for c in log.received("tools/call")]
        assert keys[0] == keys[1] == first.idempotency_key
        assert keys[2] != keys[0] and other.idempotency_key == keys[2]
        assert retry.idempotency_key == first.idempotency_key
        spans = sorted(telemetry.spans("tools/call transfer_funds"), key=lambda s: s.start_time or 0)
        hashes = [dict(s.attributes or {})[ERRSCOPE_IDEMPOTENCY_KEY_HASH] for s in spans]
        assert hashes[0] == hashes[1] == key_hash(first.idempotency_key or "")
        assert first.idempotency_key not in str([dict(s.attributes or {}) for s in spans])
        assert spans[0].context.span_id in [link.context.span_id for link in spans[1].links]
        assert dict(spans[0].attributes or {})[ERRSCOPE_ATTEMPT] == 1


class TestD22ListChanged:
    """D22: list_changed re-lists; a stale call re-lists at most once and names what is available."""

    async def test_catalog_follows_the_server(self, foreign: Any, telemetry: Any) -> None:
        """The catalog updates after the notification; the stale get_doc call gets an honest note."""
        params, log = foreign("d22")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            assert tc.catalog.names == ["search", "get_doc", "change_tools"]
            await tc.call_tool("change_tools", {})
            with anyio.fail_after(3):
                while "summarize" not in tc.catalog.names:
                    await anyio.sleep(0.02)
            listings_before = len(log.received("tools/list"))
            result = await tc.call_tool("get_doc", {"id": "d-1"})
        assert listings_before == 2
        assert result.text.startswith("get_doc is no longer available. Available: search, summarize, change_tools.")
        assert result.failure_class is FailureClass.NOT_FOUND
        assert len(log.received("tools/list")) == 3  # at most one refresh for the failed call
        assert [c["tool"] for c in log.events("call")].count("get_doc") == 1
        (failed,) = telemetry.spans("tools/call get_doc")
        refreshes = telemetry.spans("tools/list")
        assert any(failed.context.span_id in [link.context.span_id for link in s.links] for s in refreshes)


    async def test_tool_that_appears_on_relist_is_called_once_more(self, foreign: Any) -> None:
        """Unknown now but listed after the one refresh: one more attempt, and it succeeds."""
        params, log = foreign("d22")
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("lazy", {})
            again = await tc.call_tool("search", {})
        assert (result.outcome, result.text, result.attempts) == (Outcome.OK, "lazy ok", 2)
        assert len(log.received("tools/list")) == 2
        assert again.ok

    async def test_listed_but_refused_tool_is_not_retried(self, tmp_path: Any) -> None:
        """A server that lists a tool yet calls it unknown gets one refresh and an honest note, no loop."""
        from tests.client.helpers import scripted_server

        params = scripted_server(tmp_path, [{"error": {"code": -32602, "message": "Unknown tool: scripted"}}])
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("scripted", {})
        assert result.attempts == 1
        assert result.text.startswith("The server says scripted does not exist, although it lists it. Available: scripted.")


class TestD24DiscoveryProbe:
    """D24: discovery probes never mark the server down."""

    async def test_unadvertised_capabilities_are_not_probed(self, foreign: Any) -> None:
        """Case (a): nothing is sent for prompts/resources the server did not advertise."""
        params, log = foreign("d24")
        async with ToolClient(params, timeout=2) as tc:
            prompts = await tc.probe("prompts/list")
            resources = await tc.probe("resources/list")
        assert (prompts.sent, resources.sent) == (False, False)
        assert log.received("prompts/list") == [] and log.received("resources/list") == []

    async def test_forced_probe_error_is_request_scoped(self, foreign: Any, telemetry: Any) -> None:
        """Case (b): -32601 stays on the probe's span; CONNECTED; no tools/list refresh; calls still work."""
        params, log = foreign("d24")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            probe = await tc.probe("resources/list", force=True)
            assert tc.state is ConnectionState.CONNECTED
            result = await tc.call_tool("echo", {"text": "still here"})
        assert (probe.sent, probe.ok, probe.code) == (True, False, -32601)
        assert len(log.received("tools/list")) == 1
        assert result.text == "still here"
        (span,) = telemetry.spans("resources/list")
        assert dict(span.attributes or {})[RPC_RESPONSE_STATUS_CODE] == "-32601"
        assert [s for s in telemetry.spans() if s.name.startswith("tools/call")][0].status.status_code.name == "UNSET"


class TestProgressEdges:
    """Issue 3, item 4: progress with an unknown token, or after the result, changes nothing."""

    async def test_unknown_token_does_not_extend_and_late_progress_is_ignored(self, foreign: Any) -> None:
        """Progress for another token does not keep a call alive; progress after the result is harmless."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=0.4) as tc:
            starved = await tc.call_tool("stray_progress", {"seconds": 1.5, "progress_every": 0.1})
            done = await tc.call_tool("stray_progress", {"seconds": 0.05, "progress_every": 0.01})
            await anyio.sleep(0.2)
            after = await tc.call_tool("stray_progress", {"seconds": 0.05})
            assert tc.state is ConnectionState.CONNECTED
        assert starved.outcome is Outcome.TIMEOUT
        assert (done.outcome, after.outcome) == (Outcome.OK, Outcome.OK)
        assert len(log.received("notifications/cancelled")) == 1


class TestD12OverHttp:
    """D12 on streamable HTTP (127.0.0.1): one cancel per abandoned request, and the server stops."""

    @pytest.mark.parametrize(("mode", "expected_cancels"), [("auto", 0), ("legacy", 1)])
    async def test_http_timeout_cancels_once(self, telemetry: Any, mode: str, expected_cancels: int) -> None:
        """The tool stops either way. 2026-07-28 over HTTP: closing the response stream is the cancel
        (spec, Cancellation > Transport-Specific), so no notification; 2025-11-25: exactly one."""
        import json

        from tests.client.servers.app import ToolServer, Upstream, serve

        bodies: list[dict[str, Any]] = []
        upstream = Upstream(cluster_ready_after=60)
        async with serve(upstream.app()) as upstream_url:
            rig = ToolServer(upstream_url + "/", telemetry.providers)
            app = rig.build().streamable_http_app()

            async def recording(scope: Any, receive: Any, send: Any) -> None:
                if scope["type"] != "http" or scope["method"] != "POST":
                    await app(scope, receive, send)
                    return
                chunks: list[bytes] = []

                async def tapped() -> Any:
                    message = await receive()
                    if message["type"] != "http.request":
                        return message
                    chunks.append(message.get("body", b""))
                    if not message.get("more_body"):
                        try:
                            bodies.append(json.loads(b"".join(chunks) or b"null"))
                        except ValueError:
                            pass
                    return message

                await app(scope, tapped, send)

            async with serve(recording) as base:
                retry = RetryPolicy(retry_timeouts=False)  # one abandoned request, not the declared tool's retries
                async with ToolClient(base + "/mcp", timeout=0.5, mode=mode, retry=retry, **telemetry.providers) as tc:
                    result = await tc.call_tool("create_cluster", {"name": "etl-nightly-FAKE"})
                    with anyio.fail_after(5):
                        while rig.in_flight:
                            await anyio.sleep(0.02)
        assert result.outcome is Outcome.TIMEOUT
        (call,) = [b for b in bodies if isinstance(b, dict) and b.get("method") == "tools/call"]
        cancels = [b for b in bodies if isinstance(b, dict) and b.get("method") == "notifications/cancelled"]
        assert [c["params"]["requestId"] for c in cancels] == [call["id"]] * expected_cancels
        assert rig.in_flight == 0
        (span,) = [s for s in telemetry.spans("tools/call create_cluster") if s.kind.name == "CLIENT"]
        # mcp.session.id exists only where the era has sessions (2025-11-25 over HTTP).
        assert ("mcp.session.id" in dict(span.attributes or {})) is (mode == "legacy")


class TestSdkOwnTimeout:
    """A Client-level ``read_timeout_seconds`` (the SDK's own timer) is still reported as a timeout."""

    async def test_sdk_timer_is_a_timeout_not_a_lost_session(self, foreign: Any) -> None:
        """The SDK's local -32001 (no frame on the wire) is a timeout; its one courtesy cancel goes out."""
        params, log = foreign("slow")
        async with ToolClient(params, timeout=30, client_options={"read_timeout_seconds": 0.3}) as tc:
            result = await tc.call_tool("export_report", {"seconds": 120})
            await log.wait("end", 1)
            assert tc.state is ConnectionState.CONNECTED
        assert result.outcome is Outcome.TIMEOUT and result.channel is None
        assert result.text.startswith("export_report did not finish within 0.3 s and was cancelled.")
        cancels = log.received("notifications/cancelled")
        assert [c["params"]["reason"] for c in cancels] == ["timed out after 0.3s"]


class TestIdempotentHint:
    """upstream_unavailable is retried only for idempotent calls: a key, or the tool's idempotentHint."""

    async def test_hint_without_key_is_retried(self, foreign: Any) -> None:
        """With keys off, a tool declaring idempotentHint is still retried on upstream_unavailable."""
        params, log = foreign("slow")
        retry = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.02, jitter=0.01)
        async with ToolClient(params, timeout=2, retry=retry, idempotency_keys=False) as tc:
            result = await tc.call_tool("flaky", {"seconds": 0.01})
        assert (result.failure_class, result.attempts, result.idempotency_key) == (
            FailureClass.UPSTREAM_UNAVAILABLE,
            3,
            None,
        )
        assert all(META_IDEMPOTENCY_KEY not in c["params"].get("_meta", {}) for c in log.received("tools/call"))

    async def test_no_key_no_hint_is_not_retried(self, tmp_path: Any) -> None:
        """With keys off and no hint, a 503 is reported after one attempt."""
        from tests.client.helpers import scripted_server

        params = scripted_server(tmp_path, [{"isError": True, "text": "503 Service Unavailable"}])
        async with ToolClient(params, timeout=2, idempotency_keys=False) as tc:
            result = await tc.call_tool("scripted", {})
        assert (result.failure_class, result.attempts) == (FailureClass.UPSTREAM_UNAVAILABLE, 1)
        assert result.retryable and "you may try again later" in result.text
