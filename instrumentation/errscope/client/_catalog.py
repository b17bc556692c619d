"""The client's cached tool list, refreshed on ``notifications/tools/list_changed`` and on unknown-tool errors.

Refreshes are single-flight (concurrent callers share one ``tools/list``) and debounced (a burst of
``list_changed`` notifications costs one request). An unknown-tool error triggers at most one
refresh per failed call: never a loop (case D22), and those refreshes are rate limited per server
with exponential backoff while they find nothing new (three calls to a vanished tool cost one
``tools/list``, not three). Errors from requests that are not ``tools/*`` (a ``resources/list``
probe answered with -32601) never trigger a refresh (case D24).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence

import anyio
import pydantic
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCResponse, Tool
from mcp_types.methods import validate_server_result

from errscope._attributes import META_IDEMPOTENCY_KEY_HONOURED

__all__ = ["ToolCatalog", "usable_listing"]

logger = logging.getLogger("errscope.client")

Fetch = Callable[[], Awaitable[Sequence[Tool]]]


class ToolCatalog:
    """Tools the server offers, by name, as last listed.

    Args:
        debounce: seconds to wait after a ``list_changed`` before re-listing (bursts collapse).
        unknown_backoff: (first, longest) seconds between re-lists caused by unknown-tool errors;
            the wait doubles while re-listing finds nothing new and resets when the list changes.
        clock: monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        *,
        debounce: float = 0.05,
        unknown_backoff: tuple[float, float] = (1.0, 60.0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.debounce = debounce
        self.unknown_backoff = unknown_backoff
        self._clock = clock
        self._unknown_delay = unknown_backoff[0]
        self._unknown_next = float("-inf")
        self._tools: dict[str, Tool] = {}
        self._listed = False
        self._lock = anyio.Lock()
        self._generation = 0
        self._dirty = False
        self._changes = 0
        """``list_changed`` notifications seen: one arriving during a fetch leaves the new listing stale."""
        self._changed_delay = debounce
        self._changed_next = float("-inf")
        self.refreshes = 0
        self.retired: set[str] = set()
        """Names listed once and gone since: "no longer available" rather than "does not exist"."""

    @property
    def listed(self) -> bool:
        """Whether a listing has been fetched at least once."""
        return self._listed

    @property
    def names(self) -> list[str]:
        """Tool names in the server's order."""
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        """The cached tool, or ``None``."""
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def is_safe_to_repeat(self, name: str, *, keyed: bool) -> bool:
        """Whether the server declares a repeat of the call harmless, as last listed.

        MCP spec, Tools > ToolAnnotations (the author's own claim, which is what a retry rests on):
        ``readOnlyHint: true`` (the tool does not modify its environment; ``idempotentHint`` is then
        meaningless) or ``idempotentHint: true`` (repeating it with the same arguments has no
        additional effect; ``destructiveHint`` does not change that). Or the call carries an
        idempotency key (``keyed``) and the tool's ``_meta`` declares
        ``io.errscope/idempotency_key_honoured: true`` (the server deduplicates on the key).
        A tool not in the listing is not safe to repeat.
        """
        return self.repeat_basis(name, keyed=keyed) is not None

    def repeat_basis(self, name: str, *, keyed: bool) -> str | None:
        """The declaration that makes a repeat of the call harmless, as last listed (see :meth:`is_safe_to_repeat`),
        named as the server wrote it: ``"readOnlyHint"``, ``"idempotentHint"`` or the ``_meta`` key; ``None`` when
        the server declares nothing that allows one."""
        tool = self._tools.get(name)
        if tool is None:
            return None
        hints = tool.annotations
        if hints is not None and hints.read_only_hint is True:
            return "readOnlyHint"
        if hints is not None and hints.idempotent_hint is True:
            return "idempotentHint"
        if keyed and tool.meta is not None and tool.meta.get(META_IDEMPOTENCY_KEY_HONOURED) is True:
            return META_IDEMPOTENCY_KEY_HONOURED
        return None

    def replace(self, tools: Sequence[Tool]) -> None:
        """Install a fresh listing."""
        fresh = {tool.name: tool for tool in tools}
        self.retired |= set(self._tools) - set(fresh)
        self.retired -= set(fresh)
        self._tools = fresh
        self._listed = True
        self._dirty = False

    def mark_stale(self) -> None:
        """A ``list_changed`` arrived: the next :meth:`refresh_if_stale` re-lists."""
        self._dirty = True
        self._changes += 1

    @property
    def stale(self) -> bool:
        return self._dirty

    async def refresh(self, fetch: Fetch) -> None:
        """Re-list now; callers that arrive while a refresh runs wait for it instead of sending another."""
        generation = self._generation
        async with self._lock:
            if self._generation != generation:
                return  # someone refreshed while we waited for the lock
            changes = self._changes
            tools = await fetch()
            self.replace(tools)
            # A list_changed during the fetch: the pages may predate it (aaif-goose/goose #10433), so stay stale.
            self._dirty = self._changes != changes
            self._generation += 1
            self.refreshes += 1

    async def refresh_after_unknown(self, fetch: Fetch) -> bool:
        """Re-list after an unknown-tool error unless one did so within the backoff; ``True`` if it ran."""
        if self._clock() < self._unknown_next:
            return False
        before = list(self._tools)
        await self.refresh(fetch)
        low, high = self.unknown_backoff
        self._unknown_delay = low if list(self._tools) != before else min(self._unknown_delay * 2, high)
        self._unknown_next = self._clock() + self._unknown_delay
        return True

    async def refresh_if_stale(self, fetch: Fetch, *, notified: bool = False) -> None:
        """Debounced re-list after ``list_changed``.

        Args:
            fetch: the ``tools/list`` walk.
            notified: called for the notification itself (in the background), not for a call about to go out. Such
                re-lists back off while they find the listing unchanged (the wait doubles from ``debounce`` up to
                the unknown-tool backoff's longest; a changed listing resets it): a server that announces a change
                every time it is listed would otherwise be listed in a loop (microsoft/aspire PR #14494). A call or
                :meth:`~errscope.client.ToolClient.list_tools` still re-lists a stale catalogue first.
        """
        if not self._dirty or (notified and self._clock() < self._changed_next):
            return
        await anyio.sleep(self.debounce)
        before = dict(self._tools)
        for _ in range(2):  # a refresh already running may predate the change: then once more
            if not self._dirty:
                break
            await self.refresh(fetch)
        if notified:
            unchanged = self._tools == before
            self._changed_delay = min(self._changed_delay * 2, self.unknown_backoff[1]) if unchanged else self.debounce
            self._changed_next = self._clock() + self._changed_delay


def usable_listing(item: SessionMessage, version: str) -> SessionMessage:
    """A ``tools/list`` response without the tools whose definitions break the MCP schema of ``version``.

    The SDK validates a page as a whole, so one tool with an unusable definition (an ``inputSchema``
    whose ``type`` is not ``object``; MCP spec, Tools > Tool) would take every other tool of the server
    with it, listing and calls alike (anthropics/claude-code #88049). Each such tool is dropped alone,
    with a warning naming it; a page whose tools all validate is passed on untouched.
    """
    message = item.message
    assert isinstance(message, JSONRPCResponse)
    tools = message.result.get("tools")
    try:
        validate_server_result("tools/list", version, message.result)
        return item
    except pydantic.ValidationError:
        if not isinstance(tools, list):
            return item  # not a listing at all: the SDK's own error says so
    except (KeyError, ValueError):
        return item  # an era this SDK does not know: its own check decides
    kept = []
    for entry in tools:
        try:
            validate_server_result("tools/list", version, {"tools": [entry]})  # the SDK's own check, one tool
        except pydantic.ValidationError as exc:
            name = entry.get("name") if isinstance(entry, dict) else None
            where = ".".join(str(part) for part in exc.errors()[0]["loc"][2:])  # after "tools.0"
            logger.warning("tool %.64r left out of the listing: its definition breaks the MCP schema at %s", name, where)
            continue
        kept.append(entry)
    result = {**message.result, "tools": kept}
    return SessionMessage(message=message.model_copy(update={"result": result}), metadata=item.metadata)
