"""Automatic retries, decided by failure class (the backoff machinery is ``tenacity``'s).

=====================  ===========================================================================
class / outcome        automatic retry
=====================  ===========================================================================
rate_limited           yes, after ``retry_after`` (from ``_meta`` or the text) plus jitter, while
                       the wait fits ``max_rate_limit_wait`` and the overall ``budget``
upstream_unavailable   only when the call is idempotent (it carries a key, or the tool declares
                       ``idempotentHint``) and the server answered; exponential backoff with jitter
not_found, permission_denied, invalid_input, unknown   never
timeout, session lost mid-call   never: the side effect may have happened (cases D14, D20)
=====================  ===========================================================================

A model-initiated retry is a new logical call that reuses the first call's idempotency key
(``ToolClient.call_tool(..., idempotency_key=previous.idempotency_key)``); it is not counted here.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from tenacity import AsyncRetrying, RetryCallState, retry_if_result, stop_after_attempt, stop_before_delay
from tenacity.wait import wait_exponential_jitter

from errscope._vocabulary import FailureClass, Outcome
from errscope.client._result import ToolCallResult

__all__ = ["RetryPolicy"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Class-driven retry policy for one logical call.

    Attributes:
        max_attempts: attempts per logical call, the first included (1 disables automatic retries).
        budget: seconds after the first attempt's answer past which no new attempt starts.
        max_rate_limit_wait: longest ``retry_after`` errscope waits out itself; longer ones go to the model.
        backoff_initial: first backoff for upstream_unavailable, in seconds.
        backoff_max: cap on one backoff, in seconds.
        jitter: up to this many seconds of random delay added to every wait.
    """

    max_attempts: int = 3
    budget: float = 15.0
    max_rate_limit_wait: float = 10.0
    backoff_initial: float = 0.2
    backoff_max: float = 5.0
    jitter: float = 0.25

    def should_retry(self, result: ToolCallResult, *, idempotent: bool) -> bool:
        """Whether errscope may send this logical call again on its own."""
        if result.outcome is not Outcome.ERROR or result.channel is None:
            return False  # ok, timeout, cancelled, or the server never answered for sure
        if result.failure_class is FailureClass.RATE_LIMITED:
            wait = result.retry_after if result.retry_after is not None else self.backoff_initial
            return wait <= self.max_rate_limit_wait
        if result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            return idempotent
        return False

    def wait_seconds(self, state: RetryCallState) -> float:
        """Seconds to wait before the next attempt (tenacity ``wait`` strategy)."""
        assert state.outcome is not None
        result = state.outcome.result()
        if isinstance(result, ToolCallResult) and result.failure_class is FailureClass.RATE_LIMITED:
            if result.retry_after is not None:
                return result.retry_after + random.uniform(0, self.jitter)
        return wait_exponential_jitter(multiplier=self.backoff_initial, max=self.backoff_max, jitter=self.jitter)(state)

    async def run(
        self,
        attempt: Callable[[int], Awaitable[ToolCallResult]],
        *,
        idempotent: bool,
    ) -> tuple[ToolCallResult, int]:
        """Run ``attempt(n)`` (n = 1, 2, ...) until the policy stops; return the last result and the count."""
        first = await attempt(1)
        if self.max_attempts <= 1 or not self.should_retry(first, idempotent=idempotent):
            return first, 1  # the common case: no retry machinery on the hot path
        count = 0

        async def one() -> ToolCallResult:
            nonlocal count
            count += 1
            return first if count == 1 else await attempt(count)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.budget),
            wait=self.wait_seconds,
            retry=retry_if_result(lambda r: self.should_retry(r, idempotent=idempotent)),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
            sleep=anyio.sleep,
            reraise=True,
        )
        result: ToolCallResult = await retrying(one)
        return result, count
