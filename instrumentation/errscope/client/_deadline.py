"""Timeouts that progress can extend, under a hard ceiling (MCP spec, Cancellation > Timeouts).

The SDK's per-request timeout ignores progress (reference/mcp-sdk-2.3.md, pitfall 9), so errscope
runs each attempt with no SDK timeout under its own timer: on asyncio the standard library's
:class:`asyncio.Timeout` (Python 3.11+; it cancels the task, as anyio's scopes do on asyncio, for a
tenth of the Python an :class:`anyio.CancelScope` runs to enter, exit, and be walked by every SDK
checkpoint), on any other event loop (trio) an :class:`anyio.CancelScope` with a deadline:

- the *idle* timer restarts on every ``notifications/progress`` for this request;
- the *ceiling* is fixed at the start and never moves ("SHOULD always enforce a maximum timeout").

When the timer fires, the SDK sees a caller cancellation and writes exactly one
``notifications/cancelled`` for the request id (errscope's wire tap rewrites its reason to say
which timer fired). Progress arriving after the call ended touches nothing: the SDK drops a
token it no longer tracks, and :meth:`CallDeadline.touch` is a no-op once the scope has exited.
"""

from __future__ import annotations

import asyncio
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
    """One attempt's timers: create, run the call under :meth:`timer` (asyncio) or :attr:`scope`, call
    :meth:`touch` on progress.

    On asyncio :attr:`timer` is an :class:`asyncio.Timeout` (entered with ``async with``; when it fires it raises
    ``TimeoutError``, which the caller hands to :meth:`caught`) and :attr:`scope` is ``None``; on any other
    event loop :attr:`timer` is ``None`` and :attr:`scope` an :class:`anyio.CancelScope` (entered with ``with``;
    it swallows its own cancellation). Times are the event loop's clock in seconds (anyio's on asyncio too).
    """

    __slots__ = ("_caught", "_done", "ceiling_at", "policy", "progress_events", "scope", "timer")

    def __init__(self, policy: TimeoutPolicy) -> None:
        self.policy = policy
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): anyio's cancel scope
            loop = None
        now = loop.time() if loop is not None else anyio.current_time()
        self.ceiling_at = now + policy.hard_ceiling
        first = min(now + policy.idle, self.ceiling_at)
        self.progress_events = 0
        self._done = self._caught = False
        self.timer: asyncio.Timeout | None = asyncio.timeout_at(first) if loop is not None else None
        self.scope: anyio.CancelScope | None = None if loop is not None else anyio.CancelScope(deadline=first)

    @property
    def deadline(self) -> float:
        """When the call is abandoned unless progress comes first (event loop clock, seconds)."""
        if self.timer is not None:
            when = self.timer.when()
            assert when is not None
            return when
        assert self.scope is not None
        return self.scope.deadline

    def _next_deadline(self) -> float:
        return min(self._now() + self.policy.idle, self.ceiling_at)

    def touch(self) -> None:
        """A progress notification for this request arrived: restart the idle timer (never past the ceiling)."""
        if self._done:
            return
        self.progress_events += 1
        if self.timer is not None:
            if not self.timer.expired():  # a timer that has fired is not re-armed (nor can it be)
                try:
                    self.timer.reschedule(self._next_deadline())
                except RuntimeError:
                    # The timer has exited without :meth:`finish` (the host's cancellation ended the call) and
                    # the SDK ran this progress callback in a task of its own afterwards (mcp's dispatcher spawns
                    # one per notification): asyncio.Timeout.reschedule refuses an exited timer. Late progress
                    # touches nothing (module docstring; MCP spec, Utilities > Progress: progress belongs to a request
                    # in flight and stops when it completes).
                    self._done = True
        else:
            assert self.scope is not None
            self.scope.deadline = self._next_deadline()

    def finish(self) -> None:
        """The call ended; later progress changes nothing."""
        self._done = True

    def caught(self, error: TimeoutError) -> bool:
        """Whether ``error``, raised out of :attr:`timer`, is the timer's own (it then counts as :attr:`fired`).

        ``asyncio.Timeout`` turns only its own cancellation into ``TimeoutError``, raised from the
        ``CancelledError``; a ``TimeoutError`` of the call's own (a transport's bounded write) is not the timer's.
        """
        self._caught = (
            self.timer is not None and self.timer.expired() and isinstance(error.__cause__, asyncio.CancelledError)
        )
        return self._caught

    @property
    def fired(self) -> TimeoutKind | None:
        """Which timer ended the call, or ``None`` if neither did."""
        if not (self._caught if self.timer is not None else self.scope is not None and self.scope.cancelled_caught):
            return None
        return TimeoutKind.CEILING if self._now() >= self.ceiling_at - 1e-3 else TimeoutKind.IDLE

    def _now(self) -> float:
        return asyncio.get_running_loop().time() if self.timer is not None else anyio.current_time()

    def cancel_reason(self) -> str | None:
        """The ``notifications/cancelled`` reason if a timer has run out now, else ``None`` (caller cancel)."""
        now = self._now()
        if now >= self.ceiling_at - 1e-3:
            return f"timeout after {self.policy.hard_ceiling:g}s (hard limit)"
        if now >= self.deadline - 1e-3:
            return f"timeout after {self.policy.idle:g}s"
        return None
