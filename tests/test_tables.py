"""Bookkeeping tables expire on their own and report their sizes (issue #16 item 6)."""

from __future__ import annotations

import gc

import anyio

from errscope._tables import Table, expiring_table, owned_table, table_sizes, track
from errscope._telemetry import ServerTelemetry
from errscope.idempotency import InMemoryIdempotencyStore, StoredResult
from errscope.testing import CapturedTelemetry


def _entries_metric(telemetry: CapturedTelemetry) -> dict[str, int]:
    data = telemetry.reader.get_metrics_data()
    return {
        point.attributes["errscope.table"]: point.value
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "errscope.table.entries"
        for point in metric.data.data_points
    }


class TestIdempotencyStore:
    def test_expires_without_its_keys_coming_back(self) -> None:
        """Entries past the TTL leave the table when sizes are read, no lookup of their key needed."""
        now = [0.0]
        store = InMemoryIdempotencyStore(ttl=10, clock=lambda: now[0])
        for i in range(100):
            anyio.run(store.put, f"k{i}", StoredResult("f", i, now[0]))
        assert store._entries.currsize == 100
        now[0] = 10.0
        table_sizes()  # what a metric export does
        assert store._entries.currsize == 0

    def test_a_write_sweeps_the_expired(self) -> None:
        """A put sweeps every expired entry, so a busy store never holds more than one TTL's worth."""
        now = [0.0]
        store = InMemoryIdempotencyStore(ttl=10, clock=lambda: now[0])
        for i in range(50):
            anyio.run(store.put, f"old{i}", StoredResult("f", i, now[0]))
        now[0] = 11.0
        anyio.run(store.put, "new", StoredResult("f", 0, now[0]))
        assert store._entries.currsize == 1
        assert anyio.run(store.get, "old1") is None and anyio.run(store.get, "new") is not None

    def test_size_bound(self) -> None:
        """Past max_entries the least recently used entries go."""
        store = InMemoryIdempotencyStore(ttl=100, max_entries=10)
        for i in range(25):
            anyio.run(store.put, f"k{i}", StoredResult("f", i, 0))
        assert len(store) == 10
        assert anyio.run(store.get, "k24") is not None and anyio.run(store.get, "k0") is None


class TestSizesMetric:
    def test_up_down_counter_per_table(self) -> None:
        """errscope.table.entries reports each table kind under one bounded attribute value."""
        telemetry = CapturedTelemetry()
        ServerTelemetry(**telemetry.providers)
        gc.collect()  # tables earlier tests left behind as garbage
        before = _entries_metric(telemetry)
        assert set(before) == {table.value for table in Table}
        store = InMemoryIdempotencyStore(ttl=100)
        for i in range(7):
            anyio.run(store.put, f"k{i}", StoredResult("f", i, 0))
        pending = owned_table(Table.WIRE_PENDING)
        pending.update({1: None, 2: None})
        marker = type("Connection", (), {})()
        track(Table.CONNECTIONS, marker)
        after = _entries_metric(telemetry)
        assert after["idempotency_results"] - before["idempotency_results"] == 7
        assert after["wire_pending"] - before["wire_pending"] == 2
        assert after["connections"] - before["connections"] == 1
        del store, pending, marker
        gc.collect()
        assert _entries_metric(telemetry) == before  # garbage tables are no longer counted
        telemetry.close()

    def test_registered_once_per_provider(self) -> None:
        """Two servers and a client on one meter provider report each table once, not three times."""
        from errscope.client._telemetry import ClientTelemetry

        telemetry = CapturedTelemetry()
        ServerTelemetry(**telemetry.providers)
        ServerTelemetry(**telemetry.providers)
        ClientTelemetry(**telemetry.providers)
        cache = expiring_table(Table.TOOL_SCHEMAS, maxsize=4, ttl=60)
        base = table_sizes()[Table.TOOL_SCHEMAS]
        cache["x"] = 1
        assert _entries_metric(telemetry)["tool_schemas"] == base + 1
        telemetry.close()


def test_sizes_read_on_another_thread_while_tables_change() -> None:
    """The metric reader's thread sweeps and counts while the owner writes: no error, the table stays whole.

    The reader must really have run alongside the writes: the writer starts once the reader has read, and
    the reader saw the table at more than one size while it changed.
    """
    import threading

    cache = expiring_table(Table.TOOL_SCHEMAS, maxsize=100, ttl=0.0005)
    base = table_sizes()[Table.TOOL_SCHEMAS]
    stop, reading = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    seen: list[int] = []

    def read_sizes() -> None:
        while not stop.is_set():
            try:
                seen.append(table_sizes()[Table.TOOL_SCHEMAS] - base)
            except BaseException as exc:  # recorded, asserted below
                errors.append(exc)
            reading.set()

    reader = threading.Thread(target=read_sizes)
    reader.start()
    try:
        assert reading.wait(10), "the reader thread never read"
        before = len(seen)
        for i in range(50_000):
            cache[i % 300] = i
            cache.get(i % 77)
            cache.pop(i % 33, None)
        during = seen[before:]
    finally:
        stop.set()
        reader.join()
    assert errors == []
    assert len(during) >= 2 and len(set(during)) >= 2, f"the reader did not overlap the writes: {during[:10]}"
    assert all(0 <= size <= 100 for size in during), "a size read mid-change exceeds the table's bound"
    cache.expire()
    cache["last"] = 1
    assert cache["last"] == 1 and len(cache) <= 100
