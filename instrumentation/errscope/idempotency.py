"""Honour idempotency keys in a tool: run once per key, replay the stored result for a repeat.

Clients going through :class:`errscope.client.ToolClient` send a key in the request's ``_meta``
(``io.errscope/idempotency_key``), minted once per logical call and reused by every retry of it,
including a retry the model asks for after a timeout. A tool that changes the world wraps its
side effect so that:

- same key + same arguments: the stored result comes back and the side effect does not run again;
- same key + different arguments: :class:`errscope.InvalidInput` (the key was reused by mistake);
- a repeat that arrives while the first run is still in flight in this process waits for it;
- a run that failed or was cancelled stores nothing, so the retry runs again, and the upstream
  sees the same ``Idempotency-Key`` header (IETF draft "The Idempotency-Key HTTP Header Field")
  and can deduplicate on its side.

Example::

    idempotent = errscope.idempotency.Idempotency()

    @server.tool()
    @keys_honoured
    async def create_cluster(name: str, ctx: Context) -> str:
        async def create(headers: dict[str, str]) -> str:
            response = await http.post(URL, json={"name": name}, headers=headers)
            return response.json()["id"]

        return await idempotent.run(
            idempotency_key_of(ctx), tool="create_cluster", arguments={"name": name}, action=create
        )

Results are kept in an :class:`InMemoryIdempotencyStore` (per process, with a TTL) unless another
:class:`IdempotencyStore` is given (Redis, a database table). In-flight coordination is per process.

Declaring it: a client may repeat a failed or timed-out call only for a tool the server declares
safe to repeat. ``errscope.instrument()`` adds ``_meta["io.errscope/idempotency_key_honoured"]:
true`` to the ``tools/list`` entry of every tool declared one of these explicit ways, on all three
server styles: its function is marked with :func:`keys_honoured` (MCPServer, FastMCP); its name is
declared with :func:`declare_keys_honoured` (any style; the low-level ``Server`` has no function per
tool); its own ``_meta`` says so at registration
(``@server.tool(meta={META_IDEMPOTENCY_KEY_HONOURED: True})``). A tool that has run
:meth:`Idempotency.run` is declared from then on, under the ``tool=`` name it passed. A tool whose
``_meta`` already says ``False`` is left alone. (What a function's code refers to is not looked at:
an Idempotency reached through an attribute, a factory or another module would be missed, and one
held but never used would be taken for a declaration.)
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar, runtime_checkable

import anyio
from opentelemetry import trace

from errscope._call import current_call
from errscope._attributes import (
    ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    ERRSCOPE_IDEMPOTENT_REPLAY,
    META_IDEMPOTENCY_KEY,
    META_IDEMPOTENCY_KEY_HONOURED,
)
from errscope._tables import Table, expiring_table
from errscope.client._keys import key_hash

__all__ = [
    "IDEMPOTENCY_HEADER",
    "Idempotency",
    "IdempotencyStore",
    "InMemoryIdempotencyStore",
    "StoredResult",
    "arguments_fingerprint",
    "declare_keys_honoured",
    "honours_keys",
    "idempotency_headers",
    "idempotency_key_of",
    "keys_honoured",
    "with_keys_honoured",
]

IDEMPOTENCY_HEADER: Final = "Idempotency-Key"
"""The HTTP header the key is forwarded upstream in."""

T = TypeVar("T")

_CURRENT_KEY: contextvars.ContextVar[str | None] = contextvars.ContextVar("errscope_idempotency_key", default=None)

_MARK: Final = "__errscope_keys_honoured__"
F = TypeVar("F", bound=Callable[..., Any])

_HONOURING: set[str] = set()
"""Tool names declared by hand or seen in :meth:`Idempotency.run` (per process)."""


def declare_keys_honoured(*tools: str) -> None:
    """Declare that these tools deduplicate on the errscope idempotency key (per process, by name)."""
    _HONOURING.update(tools)


def keys_honoured(fn: F) -> F:
    """Decorator: the tool ``fn`` deduplicates on the errscope idempotency key (it runs its side
    effect through :meth:`Idempotency.run`, or deduplicates another way), so ``errscope.instrument()``
    declares it in ``tools/list``. Returns ``fn`` itself, marked; goes above or below the server's
    own decorator (``@server.tool()``, ``@app.tool``), which register the same function object.
    A bound method marks its function (every instance's method is then marked)."""
    setattr(getattr(fn, "__func__", fn), _MARK, True)
    return fn


def honours_keys(tool: str, fn: Callable[..., Any] | None = None) -> bool:
    """Whether ``tool`` (implemented by ``fn``, when known) honours errscope idempotency keys: ``fn``
    is marked by :func:`keys_honoured`, or the name was declared by :func:`declare_keys_honoured`
    or has been served by :meth:`Idempotency.run`."""
    return tool in _HONOURING or (fn is not None and _marked(fn))


def with_keys_honoured(tool: str, fn: Callable[..., Any] | None, meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``meta`` plus the honoured-key declaration when ``tool`` honours keys; ``None`` when unchanged."""
    if (meta and META_IDEMPOTENCY_KEY_HONOURED in meta) or not honours_keys(tool, fn):
        return None
    return {**(meta or {}), META_IDEMPOTENCY_KEY_HONOURED: True}


def _marked(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``, or a function it wraps (``functools.wraps``, ``partial``), is marked by :func:`keys_honoured`."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    seen: set[int] = set()
    current: Any = fn
    while current is not None and id(current) not in seen:  # a __wrapped__ cycle ends the walk
        if getattr(current, _MARK, False) is True:
            return True
        seen.add(id(current))
        current = getattr(current, "__wrapped__", None)
    return False


@dataclass(frozen=True, slots=True)
class StoredResult:
    """What a store keeps per key: which call it was (fingerprint) and what it returned."""

    fingerprint: str
    value: Any
    stored_at: float


@runtime_checkable
class IdempotencyStore(Protocol):
    """Where completed results live. Implementations must be safe to call from many tasks."""

    async def get(self, key: str) -> StoredResult | None:
        """The stored result for ``key``, or ``None`` (never stored, or expired)."""
        ...

    async def put(self, key: str, result: StoredResult) -> None:
        """Store ``result`` for ``key`` (the store applies its own TTL)."""
        ...


class InMemoryIdempotencyStore:
    """Per-process store with a TTL and a size bound, expiring on its own.

    A ``cachetools.TTLCache``: expired results are swept on every write and whenever the table
    sizes are read (the ``errscope.table.entries`` metric, ``errscope.table="idempotency_results"``),
    not only when their key comes back; past ``max_entries`` the least recently used go first.

    Args:
        ttl: seconds a result is replayed for.
        max_entries: entries kept at most.
        clock: seconds clock (tests pass a fake one).
    """

    def __init__(
        self, ttl: float = 24 * 3600, *, max_entries: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries = expiring_table(Table.IDEMPOTENCY_RESULTS, maxsize=max_entries, ttl=ttl, timer=clock)

    async def get(self, key: str) -> StoredResult | None:
        entry: StoredResult | None = self._entries.get(key)
        return entry

    async def put(self, key: str, result: StoredResult) -> None:
        self._entries[key] = result

    def now(self) -> float:
        return self._clock()

    def __len__(self) -> int:
        self._entries.expire()
        return len(self._entries)


def arguments_fingerprint(tool: str, arguments: Mapping[str, Any]) -> str:
    """SHA-256 over the tool name and canonical JSON of the arguments (key order does not matter)."""
    canonical = json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def idempotency_key_of(ctx: Any, *, meta_key: str = META_IDEMPOTENCY_KEY) -> str | None:
    """Read the caller's idempotency key from a request context's ``_meta``.

    Accepts an ``MCPServer`` ``Context``, a ``ServerRequestContext``, or a plain ``_meta`` mapping.
    """
    meta: Any = ctx
    if not isinstance(ctx, Mapping):
        request_context = getattr(ctx, "request_context", ctx)
        meta = getattr(request_context, "meta", None)
    if not isinstance(meta, Mapping):
        return None
    value = meta.get(meta_key)
    return value if isinstance(value, str) and 0 < len(value) <= 256 else None


def idempotency_headers() -> dict[str, str]:
    """``{"Idempotency-Key": key}`` inside :meth:`Idempotency.run`, ``{}`` elsewhere: for upstream calls."""
    key = _CURRENT_KEY.get()
    return {IDEMPOTENCY_HEADER: key} if key else {}


class Idempotency:
    """Run a tool's side effect at most once per idempotency key.

    Args:
        store: where results are kept (default: :class:`InMemoryIdempotencyStore` with a 24 h TTL).
    """

    def __init__(self, store: IdempotencyStore | None = None) -> None:
        self.store: IdempotencyStore = store if store is not None else InMemoryIdempotencyStore()
        self._in_flight: dict[str, tuple[str, anyio.Event]] = {}
        self.executions = 0
        self.replays = 0

    async def run(
        self,
        key: str | None,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        action: Callable[[dict[str, str]], Awaitable[T]],
    ) -> T:
        """Run ``action(headers)`` once for ``key``; ``headers`` carries ``Idempotency-Key`` for upstream calls.

        Without a key the action simply runs (nothing to deduplicate on).

        Raises:
            errscope.InvalidInput: ``key`` was used before with different arguments.
        """
        _HONOURING.add(tool)
        if key is None:
            return await action({})
        span = trace.get_current_span()
        hashed = key_hash(key)  # the client's function, so both spans carry the same hash
        span.set_attribute(ERRSCOPE_IDEMPOTENCY_KEY_HASH, hashed)
        call = current_call()  # the tool call errscope is serving: its metric point carries the replay
        if call is not None:
            call.idempotency_key_hash = hashed
        fingerprint = arguments_fingerprint(tool, arguments)
        while True:
            stored = await self.store.get(key)
            if stored is not None:
                self._check(stored.fingerprint, fingerprint)
                self.replays += 1
                span.set_attribute(ERRSCOPE_IDEMPOTENT_REPLAY, True)
                if call is not None:
                    call.replayed = True
                return stored.value  # type: ignore[no-any-return]
            running = self._in_flight.get(key)
            if running is None:
                break
            self._check(running[0], fingerprint)
            await running[1].wait()  # then look at the store again: stored, or failed and free

        done = anyio.Event()
        self._in_flight[key] = (fingerprint, done)
        token = _CURRENT_KEY.set(key)
        try:
            self.executions += 1
            value = await action({IDEMPOTENCY_HEADER: key})
            # The in-memory store ages entries on its own clock; other stores get wall-clock time.
            now = self.store.now() if isinstance(self.store, InMemoryIdempotencyStore) else time.time()
            await self.store.put(key, StoredResult(fingerprint, value, now))
            span.set_attribute(ERRSCOPE_IDEMPOTENT_REPLAY, False)
            return value
        finally:
            _CURRENT_KEY.reset(token)
            self._in_flight.pop(key, None)
            done.set()

    @staticmethod
    def _check(stored: str, fingerprint: str) -> None:
        if stored != fingerprint:
            from errscope._exceptions import InvalidInput

            raise InvalidInput(
                "idempotency key reused with different arguments",
                public_message="this idempotency key was already used with other arguments (a new call gets a new key)",
            )
