"""Timeouts that progress can extend, under a hard ceiling (MCP spec, Cancellation > Timeouts).

The SDK's per-request timeout ignores progress (reference/mcp-sdk-2.3.md, pitfall 9), so errscope
runs each attempt with no SDK timeout inside its own :class:`anyio.CancelScope`:

- the *idle* timer restarts on every ``notifications/progress`` for this request;
- the *ceiling* is fixed at the start and never moves ("SHOULD always enforce a maximum timeout").

When the scope fires, the SDK sees a caller cancellation and writes exactly one
``notifications/cancelled`` for the request id (errscope's wire tap rewrites its reason to say
which timer fired). Progress arriving after the call ended touches nothing: the SDK drops a
token it no longer tracks, and :meth:`CallDeadline.touch` is a no-op once the scope has exited.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import anyio

__all__ = ["CallDeadline", "TimeoutKind", "TimeoutPolicy"]


class TimeoutKind(StrEnum):
    """Which timer ended the call."""

    IDLE = "idle"
    CEILING = "ceiling"


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """Per-call timing.

    Attributes:
        idle: seconds without a response or progress before the call is abandoned.
        ceiling: seconds after which the call is abandoned whatever progress says; ``None`` means
            ``10 * idle``.

    Raises:
        ValueError: ``idle`` or ``ceiling`` is not a positive number of seconds (``inf``: no timer).
    """

    idle: float = 30.0
    ceiling: float | None = None

    def __post_init__(self) -> None:
        # a timer of zero or less (or NaN) would abandon every call before it is sent: the caller's mistake, said now
        if not self.idle > 0:
            raise ValueError(f"TimeoutPolicy.idle must be a positive number of seconds, not {self.idle!r}")
        if self.ceiling is not None and not self.ceiling > 0:
            raise ValueError(f"TimeoutPolicy.ceiling must be a positive number of seconds or None, not {self.ceiling!r}")

    @property
    def hard_ceiling(self) -> float:
        """The effective ceiling in seconds."""
        return self.ceiling if self.ceiling is not None else 10 * self.idle


class CallDeadline:
    """One attempt's timers: create, enter :attr:`scope`, call :meth:`touch` on progress."""

    __slots__ = ("_done", "ceiling_at", "policy", "progress_events", "scope")

    def __init__(self, policy: TimeoutPolicy) -> None:
        self.policy = policy
        now = anyio.current_time()
        self.ceiling_at = now + policy.hard_ceiling
        self.progress_events = 0
        self._done = False
        self.scope = anyio.CancelScope(deadline=min(now + policy.idle, self.ceiling_at))

    def _next_deadline(self) -> float:
        return min(anyio.current_time() + self.policy.idle, self.ceiling_at)

    def touch(self) -> None:
        """A progress notification for this request arrived: restart the idle timer (never past the ceiling)."""
        if self._done:
            return
        self.progress_events += 1
        self.scope.deadline = self._next_deadline()

    def finish(self) -> None:
        """The call ended; later progress changes nothing."""
        self._done = True

    @property
    def fired(self) -> TimeoutKind | None:
        """Which timer ended the call, or ``None`` if neither did."""
        if not self.scope.cancelled_caught:
            return None
        return TimeoutKind.CEILING if anyio.current_time() >= self.ceiling_at - 1e-3 else TimeoutKind.IDLE

    def cancel_reason(self) -> str | None:
        """The ``notifications/cancelled`` reason if a timer has run out now, else ``None`` (caller cancel)."""
        now = anyio.current_time()
        if now >= self.ceiling_at - 1e-3:
            return f"timeout after {self.policy.hard_ceiling:g}s (hard limit)"
        if now >= self.scope.deadline - 1e-3:
            return f"timeout after {self.policy.idle:g}s"
        return None
