"""A per-server circuit breaker that counts transport failures only.

Only failures that prove the server could not be reached count: connection refused, session
lost mid-call, a timeout with no response. An ``isError`` result or a JSON-RPC error proves the
server answered, so it counts as a success for the breaker.

The libraries we looked at (``purgatory``, ``aiobreaker``, ``pybreaker``) count exceptions raised
inside a guarded block; our failures are *results* classified after the fact, and an exception-
driven breaker would need every result re-raised to be counted. The state machine is small
enough to keep here, with an injectable clock for tests::

    CLOSED --threshold consecutive failures--> OPEN --reset_after elapsed--> HALF_OPEN
    HALF_OPEN --trial succeeds--> CLOSED        HALF_OPEN --trial fails--> OPEN
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum

__all__ = ["BreakerState", "CircuitBreaker"]


class BreakerState(StrEnum):
    """Where the breaker is. ``OPEN`` means calls fail fast without touching the wire."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Consecutive-transport-failure breaker for one server.

    Args:
        failure_threshold: consecutive transport failures that open the breaker.
        reset_after: seconds the breaker stays open before letting one trial call through.
        clock: monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        failure_threshold: int = 5,
        reset_after: float = 30.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.failure_threshold = failure_threshold
        self.reset_after = reset_after
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False

    @property
    def state(self) -> BreakerState:
        """The current state; ``OPEN`` turns into ``HALF_OPEN`` once ``reset_after`` has elapsed."""
        if self._opened_at is None:
            return BreakerState.CLOSED
        if self._clock() - self._opened_at >= self.reset_after:
            return BreakerState.HALF_OPEN
        return BreakerState.OPEN

    def would_allow(self) -> bool:
        """Whether :meth:`allow` could let a call through now (does not claim the half-open trial)."""
        state = self.state
        return state is BreakerState.CLOSED or (state is BreakerState.HALF_OPEN and not self._trial_in_flight)

    def allow(self) -> bool:
        """Return whether a call may go out now; in ``HALF_OPEN`` only one trial is let through."""
        if self._opened_at is None:  # closed: the common case
            return True
        state = self.state
        if state is BreakerState.CLOSED:
            return True
        if state is BreakerState.HALF_OPEN and not self._trial_in_flight:
            self._trial_in_flight = True
            return True
        return False

    def record_success(self) -> None:
        """The server answered (any JSON-RPC result or error): close the breaker."""
        self._failures = 0
        self._opened_at = None
        self._trial_in_flight = False

    def record_failure(self) -> None:
        """A transport failure: count it, and open (or re-open) the breaker at the threshold."""
        self._failures += 1
        self._trial_in_flight = False
        if self._opened_at is not None or self._failures >= self.failure_threshold:
            self._opened_at = self._clock()

    def release(self) -> None:
        """A let-through call ended without evidence either way (e.g. the caller cancelled it)."""
        self._trial_in_flight = False
