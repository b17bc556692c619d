"""The server-side idempotency helper against a real HTTP upstream that counts side effects, and D14."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from errscope import FailureClass, Outcome
from errscope._attributes import ERRSCOPE_IDEMPOTENCY_KEY_HASH, ERRSCOPE_IDEMPOTENT_REPLAY
from errscope.client import RetryPolicy, ToolClient, key_hash
from errscope.idempotency import (
    IDEMPOTENCY_HEADER,
    Idempotency,
    InMemoryIdempotencyStore,
    IdempotencyStore,
    arguments_fingerprint,
    idempotency_headers,
    idempotency_key_of,
)
from tests.client.servers.app import ToolServer, Upstream, serve

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


class TestIdempotencyUnit:
    """The helper on its own: replay, conflict, concurrency, failure, TTL."""

    async def test_same_key_same_arguments_runs_once(self) -> None:
        """A repeated key with the same arguments replays the stored result without running again."""
        idem = Idempotency()
        runs: list[dict[str, str]] = []

        async def act(headers: dict[str, str]) -> str:
            runs.append(headers)
            return "r-1"

        first = await idem.run("k-1", tool="t", arguments={"a": 1, "b": 2}, action=act)
        second = await idem.run("k-1", tool="t", arguments={"b": 2, "a": 1}, action=act)
        assert (first, second, runs) == ("r-1", "r-1", [{IDEMPOTENCY_HEADER: "k-1"}])
        assert (idem.executions, idem.replays) == (1, 1)

    async def test_same_key_different_arguments_is_invalid_input(self) -> None:
        """Reusing a key for different arguments is the caller's mistake: invalid_input."""
        from errscope import InvalidInput

        idem = Idempotency()

        async def act(headers: dict[str, str]) -> str:
            return "ok"

        await idem.run("k", tool="t", arguments={"a": 1}, action=act)
        with pytest.raises(InvalidInput) as caught:
            await idem.run("k", tool="t", arguments={"a": 2}, action=act)
        assert caught.value.failure_class is FailureClass.INVALID_INPUT

    async def test_concurrent_repeat_waits_for_the_first(self) -> None:
        """A repeat that arrives while the first run is in flight waits and gets its result."""
        idem = Idempotency()
        runs = 0

        async def act(headers: dict[str, str]) -> str:
            nonlocal runs
            runs += 1
            await anyio.sleep(0.1)
            return "once"

        results: list[str] = []
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(lambda: _append(results, idem.run("k", tool="t", arguments={}, action=act)))
        assert (runs, results) == (1, ["once"] * 5)

    async def test_failed_or_cancelled_run_stores_nothing(self) -> None:
        """A failure or cancellation leaves the key free, so the retry runs (and the upstream dedups)."""
        idem = Idempotency()
        attempts = 0

        async def flaky(headers: dict[str, str]) -> str:
            nonlocal attempts
            attempts += 1
            if attempts == 1:
                raise ConnectionError("upstream reset")
            if attempts == 2:
                await anyio.sleep(10)
            return "third time"

        with pytest.raises(ConnectionError):
            await idem.run("k", tool="t", arguments={}, action=flaky)
        with anyio.move_on_after(0.05):
            await idem.run("k", tool="t", arguments={}, action=flaky)
        assert await idem.run("k", tool="t", arguments={}, action=flaky) == "third time"
        assert attempts == 3

    async def test_ttl_expires_entries(self) -> None:
        """After the TTL the key is free again."""
        now = [0.0]
        store = InMemoryIdempotencyStore(ttl=10, clock=lambda: now[0])
        idem = Idempotency(store)
        runs = 0

        async def act(headers: dict[str, str]) -> int:
            nonlocal runs
            runs += 1
            return runs

        assert await idem.run("k", tool="t", arguments={}, action=act) == 1
        now[0] = 9.9
        assert await idem.run("k", tool="t", arguments={}, action=act) == 1
        now[0] = 10.0
        assert await idem.run("k", tool="t", arguments={}, action=act) == 2
        assert isinstance(store, IdempotencyStore)

    async def test_no_key_just_runs(self) -> None:
        """Without a key there is nothing to deduplicate on: every call runs, no header is sent."""
        idem = Idempotency()
        seen: list[dict[str, str]] = []

        async def act(headers: dict[str, str]) -> None:
            seen.append(headers)
            seen.append(idempotency_headers())

        await idem.run(None, tool="t", arguments={}, action=act)
        await idem.run(None, tool="t", arguments={}, action=act)
        assert seen == [{}, {}, {}, {}]

    def test_key_is_read_from_meta(self) -> None:
        """The key comes from ``_meta`` (a mapping or anything with ``request_context.meta``)."""
        assert idempotency_key_of({"io.errscope/idempotency_key": "abc"}) == "abc"
        assert idempotency_key_of({"other": "abc"}) is None
        assert idempotency_key_of({"io.errscope/idempotency_key": ""}) is None
        assert arguments_fingerprint("t", {"a": 1, "b": 2}) == arguments_fingerprint("t", {"b": 2, "a": 1})


async def _append(results: list[str], awaitable: Any) -> None:
    results.append(await awaitable)


class TestAgainstRealUpstream:
    """Client → instrumented MCP server (streamable HTTP) → Starlette upstream, all on 127.0.0.1."""

    async def test_retries_with_one_key_apply_once(self, telemetry: Any) -> None:
        """Three calls with one key apply one charge upstream; the server records the replay."""
        upstream = Upstream()
        async with serve(upstream.app()) as upstream_url:
            rig = ToolServer(upstream_url + "/", telemetry.providers)
            async with serve(rig.build().streamable_http_app()) as base:
                async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
                    first = await tc.call_tool("charge", {"account": "ACC-FAKE-1", "amount": 10})
                    again = await tc.call_tool(
                        "charge", {"account": "ACC-FAKE-1", "amount": 10}, idempotency_key=first.idempotency_key
                    )
                    third = await tc.call_tool(
                        "charge", {"account": "ACC-FAKE-1", "amount": 10}, idempotency_key=first.idempotency_key
                    )
                    misuse = await tc.call_tool(
                        "charge", {"account": "ACC-FAKE-1", "amount": 99}, idempotency_key=first.idempotency_key
                    )
        assert (first.text, again.text, third.text) == ("ch-1", "ch-1", "ch-1")
        assert upstream.effects == 1 and upstream.keys_seen == [first.idempotency_key]
        assert misuse.failure_class is FailureClass.INVALID_INPUT
        server_spans = [s for s in telemetry.spans("tools/call charge") if s.kind.name == "SERVER"]
        replays = [dict(s.attributes or {}).get(ERRSCOPE_IDEMPOTENT_REPLAY) for s in server_spans]
        assert replays[:3] == [False, True, True]
        hashes = {dict(s.attributes or {}).get(ERRSCOPE_IDEMPOTENCY_KEY_HASH) for s in server_spans}
        assert hashes == {key_hash(first.idempotency_key or "")}

    async def test_d14_timeout_then_same_key_then_new_key(self, telemetry: Any) -> None:
        """D14: the create times out (honest note, no automatic retry); the same key gets the stored
        cluster id and no second cluster; a new key is a new cluster (the note told the model to list first)."""
        upstream = Upstream(cluster_ready_after=0.8)
        async with serve(upstream.app()) as upstream_url:
            rig = ToolServer(upstream_url + "/", telemetry.providers)
            async with serve(rig.build().streamable_http_app()) as base:
                # The model, not the client, retries the timed-out create (the tool is declared safe to repeat).
                retry = RetryPolicy(retry_timeouts=False)
                async with ToolClient(base + "/mcp", timeout=0.4, retry=retry, **telemetry.providers) as tc:
                    first = await tc.call_tool(
                        "create_cluster",
                        {"name": "etl-nightly-FAKE"},
                        timeout_hint="'etl-nightly-FAKE' may already exist; list clusters before creating again",
                    )
                    await anyio.sleep(0.6)
                    same = await tc.call_tool(
                        "create_cluster", {"name": "etl-nightly-FAKE"}, idempotency_key=first.idempotency_key
                    )
                    clusters_after_same_key = len(upstream.clusters)
                    new = await tc.call_tool("create_cluster", {"name": "etl-nightly-FAKE"}, timeout=3)
                    with anyio.fail_after(5):
                        while rig.in_flight:
                            await anyio.sleep(0.02)
        assert first.outcome is Outcome.TIMEOUT and first.attempts == 1
        assert first.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert first.text.startswith(
            "create_cluster did not finish within 0.4 s and was cancelled. The request may have been accepted: "
            "'etl-nightly-FAKE' may already exist; list clusters before creating again. Ref ERR-"
        )
        assert (same.outcome, same.text) == (Outcome.OK, "0000-FAKE")
        assert clusters_after_same_key == 1
        assert new.text == "0001-FAKE" and len(upstream.clusters) == 2
        client_spans = [s for s in telemetry.spans("tools/call create_cluster") if s.kind.name == "CLIENT"]
        first_span = min(client_spans, key=lambda s: s.start_time or 0)
        attrs = dict(first_span.attributes or {})
        assert attrs["errscope.outcome"] == "timeout"
        assert attrs[ERRSCOPE_IDEMPOTENCY_KEY_HASH] == key_hash(first.idempotency_key or "")
