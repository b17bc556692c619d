"""Every bookkeeping table errscope keeps: bounded, expiring on its own, and its size observable.

A table is a ``cachetools.TTLCache``: an entry lives at most ``ttl`` seconds and the table holds at
most ``maxsize`` entries (least recently used go first). Expired entries are swept on every write
and every time the sizes are read, so a table that stops being used still empties. The sizes are
read on the metric reader's thread while the event loop uses the tables, so every access to a
table holds its lock (cachetools caches are not thread-safe by themselves). Sizes are
reported as one asynchronous up-down counter, ``errscope.table.entries`` (unit ``{entry}``, summed
over live tables of a kind), with one attribute, ``errscope.table``, from the closed set
:class:`Table` (OpenTelemetry metrics API: an additive count that goes up and down is an
``ObservableUpDownCounter``).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sized
from enum import StrEnum
from typing import Any

from cachetools import TTLCache
from opentelemetry.metrics import CallbackOptions, MeterProvider, Observation, get_meter, get_meter_provider

from errscope._attributes import ERRSCOPE_TABLE, ERRSCOPE_TABLE_ENTRIES
from errscope._version import __version__

__all__ = ["ExpiringTable", "OwnedTable", "Table", "expiring_table", "observe_table_sizes", "owned_table", "table_sizes", "track"]


class Table(StrEnum):
    """The tables errscope keeps (the values of the ``errscope.table`` attribute)."""

    IDEMPOTENCY_RESULTS = "idempotency_results"
    """Server: results replayed for a repeated idempotency key."""
    TOOL_SCHEMAS = "tool_schemas"
    """Server (FastMCP): tool schemas looked up for argument validation."""
    WIRE_PENDING = "wire_pending"
    """Client: requests written on a connection and not yet answered."""
    WIRE_RECENT = "wire_recent"
    """Client: tool-call attempts that ended without their answer, whose late answers are still recognised."""
    KEY_LINKS = "key_links"
    """Client: span links of a logical call, for a retry that reuses its idempotency key."""
    CONNECTIONS = "connections"
    """Client: live connections (one wire tap each)."""


_live: dict[Table, dict[int, weakref.ref[Any]]] = {table: {} for table in Table}
"""Members per table by ``id()``, held weakly: a member leaves the count when it is garbage.
(Tables are mappings, so unhashable: a ``WeakSet`` cannot hold them.)"""


def _count(table: Table, member: object) -> None:
    members = _live[table]
    key = id(member)
    members[key] = weakref.ref(member, lambda _ref: members.pop(key, None))


class ExpiringTable(TTLCache[Any, Any]):
    """A ``TTLCache`` whose every access holds one re-entrant lock (the sizes are read on another thread)."""

    def __init__(self, maxsize: int, ttl: float, timer: Callable[[], float]) -> None:
        super().__init__(maxsize=maxsize, ttl=ttl, timer=timer)
        self._lock = threading.RLock()

    def __getitem__(self, key: Any) -> Any:
        with self._lock:
            return super().__getitem__(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        with self._lock:
            super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        with self._lock:
            super().__delitem__(key)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return super().__contains__(key)

    def __len__(self) -> int:
        with self._lock:
            return super().__len__()

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            return super().get(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        with self._lock:
            return super().pop(key, *default)

    def expire(self, time: float | None = None) -> Any:
        with self._lock:
            return super().expire(time)


def expiring_table(
    table: Table, *, maxsize: int, ttl: float, timer: Callable[[], float] = time.monotonic
) -> ExpiringTable:
    """A new :class:`ExpiringTable` counted under ``table``; it stops being counted when it is garbage."""
    cache = ExpiringTable(maxsize=maxsize, ttl=ttl, timer=timer)
    _count(table, cache)
    return cache


class OwnedTable(dict[Any, Any]):
    """A plain table whose owner empties it (entries leave when their request ends), counted all the same."""


def owned_table(table: Table) -> OwnedTable:
    """A new :class:`OwnedTable` counted under ``table``."""
    owned = OwnedTable()
    _count(table, owned)
    return owned


def track(table: Table, owner: object) -> None:
    """Count ``owner`` as one entry of ``table`` while it is alive (a connection, say)."""
    _count(table, owner)


def table_sizes() -> dict[Table, int]:
    """Live entries per table, after sweeping what has expired."""
    sizes: dict[Table, int] = {}
    for table, members in _live.items():
        total = 0
        for ref in tuple(members.copy().values()):  # GC may drop members meanwhile
            member = ref()
            if member is None:
                continue
            if isinstance(member, TTLCache):
                member.expire()
            total += len(member) if isinstance(member, Sized) else 1
        sizes[table] = total
    return sizes


def _observe(_options: CallbackOptions) -> Iterable[Observation]:
    try:
        sizes = table_sizes()
    except Exception:  # boundary: a metric read never breaks anything; this export just lacks the sizes
        return []
    return [Observation(size, {ERRSCOPE_TABLE: table.value}) for table, size in sizes.items()]


_observed: weakref.WeakSet[Any] = weakref.WeakSet()


def observe_table_sizes(meter_provider: MeterProvider | None = None) -> None:
    """Report :func:`table_sizes` through ``meter_provider`` (default: the global one).

    Once per provider, under the ``errscope`` scope, whether a server, a client or both use it:
    the tables are process-wide, and a second registration would count them twice.
    """
    provider = meter_provider if meter_provider is not None else get_meter_provider()
    try:
        if provider in _observed:
            return
        _observed.add(provider)
    except TypeError:  # a provider that cannot be weakly referenced: registered each time
        pass
    meter = get_meter("errscope", __version__, meter_provider=provider)
    meter.create_observable_up_down_counter(
        ERRSCOPE_TABLE_ENTRIES,
        callbacks=[_observe],
        unit="{entry}",
        description="Live entries in errscope's bookkeeping tables (bounded, expiring).",
    )
