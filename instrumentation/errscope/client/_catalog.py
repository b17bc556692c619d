"""The client's cached tool list, refreshed on ``notifications/tools/list_changed`` and on unknown-tool errors.

Refreshes are single-flight (concurrent callers share one ``tools/list``) and debounced (a burst of
``list_changed`` notifications costs one request). An unknown-tool error triggers at most one
refresh per failed call: never a loop (case D22). Errors from requests that are not ``tools/*``
(a ``resources/list`` probe answered with -32601) never trigger a refresh (case D24).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import anyio
from mcp_types import Tool

__all__ = ["ToolCatalog"]

Fetch = Callable[[], Awaitable[Sequence[Tool]]]


class ToolCatalog:
    """Tools the server offers, by name, as last listed.

    Args:
        debounce: seconds to wait after a ``list_changed`` before re-listing (bursts collapse).
    """

    def __init__(self, *, debounce: float = 0.05) -> None:
        self.debounce = debounce
        self._tools: dict[str, Tool] = {}
        self._listed = False
        self._lock = anyio.Lock()
        self._generation = 0
        self._dirty = False
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

    def is_idempotent(self, name: str) -> bool:
        """Whether the tool declares ``idempotentHint`` (untrusted, but the author's own claim)."""
        tool = self._tools.get(name)
        return bool(tool and tool.annotations and tool.annotations.idempotent_hint)

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

    @property
    def stale(self) -> bool:
        return self._dirty

    async def refresh(self, fetch: Fetch) -> None:
        """Re-list now; callers that arrive while a refresh runs wait for it instead of sending another."""
        generation = self._generation
        async with self._lock:
            if self._generation != generation:
                return  # someone refreshed while we waited for the lock
            tools = await fetch()
            self.replace(tools)
            self._generation += 1
            self.refreshes += 1

    async def refresh_if_stale(self, fetch: Fetch) -> None:
        """Debounced re-list after ``list_changed``."""
        if not self._dirty:
            return
        await anyio.sleep(self.debounce)
        if self._dirty:
            await self.refresh(fetch)
