"""Automatic retries: only what is safe, decided from what the server declares.

A key attached by the client proves nothing; what counts is the server's word that a repeat is
harmless (DESIGN.md, "Idempotency keys"). A tool is *safe to repeat* when its ``tools/list`` entry
says ``annotations.idempotentHint: true`` or ``_meta["io.errscope/idempotency_key_honoured"]: true``
(errscope servers declare the latter for tools using :class:`errscope.idempotency.Idempotency`)
and the call carries an idempotency key for the server to honour.

=========================================  ===============================================================
ending                                     automatic retry
=========================================  ===============================================================
protocol error, rate_limited /             yes: a JSON-RPC error means the call did not happen (JSON-RPC
upstream_unavailable                       2.0 §5, MCP spec "Error handling"), unless the server said the
                                           side effect was possible
``isError`` result, rate_limited /         only when the tool is safe to repeat: the tool ran, and may
upstream_unavailable                       have done part of its work (an e-mail sent, then a 503)
timeout                                    only when the tool is safe to repeat (``retry_timeouts``)
no answer (no session, breaker open,       never: reported to the model as it is
session lost mid-call)
not_found, permission_denied,              never
invalid_input, unknown
=========================================  ===============================================================

Waits: ``retry_after`` (from ``_meta`` or the text) plus jitter when the server gave one and it fits
``max_rate_limit_wait``; otherwise exponential backoff with jitter (never a burst), all within the
per-call ``budget``. The machinery is ``tenacity``'s.

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

from errscope._vocabulary import Channel, FailureClass, Outcome
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
        retry_timeouts: retry a timed-out attempt of a tool that is safe to repeat.
    """

    max_attempts: int = 3
    budget: float = 15.0
    max_rate_limit_wait: float = 10.0
    backoff_initial: float = 0.2
    backoff_max: float = 5.0
    jitter: float = 0.25
    retry_timeouts: bool = True

    def should_retry(self, result: ToolCallResult, *, safe_to_repeat: bool) -> bool:
        """Whether errscope may send this logical call again on its own (see the module's table)."""
        if result.outcome is Outcome.TIMEOUT:
            return safe_to_repeat and self.retry_timeouts
        if result.outcome is not Outcome.ERROR or result.channel is None:
            return False  # ok, cancelled, or no answer from the server
        if result.failure_class not in (FailureClass.RATE_LIMITED, FailureClass.UPSTREAM_UNAVAILABLE):
            return False
        did_not_happen = result.channel is Channel.PROTOCOL and result.side_effect_possible is not True
        if not (did_not_happen or safe_to_repeat):
            return False
        if result.failure_class is FailureClass.RATE_LIMITED and result.retry_after is not None:
            return result.retry_after <= self.max_rate_limit_wait
        return True

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
        safe_to_repeat: bool,
    ) -> tuple[ToolCallResult, int]:
        """Run ``attempt(n)`` (n = 1, 2, ...) until the policy stops; return the last result and the count."""
        first = await attempt(1)
        if self.max_attempts <= 1 or not self.should_retry(first, safe_to_repeat=safe_to_repeat):
            return first, 1  # the common case: no retry machinery on the hot path
        count = 0

        async def one() -> ToolCallResult:
            nonlocal count
            count += 1
            return first if count == 1 else await attempt(count)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.budget),
            wait=self.wait_seconds,
            retry=retry_if_result(lambda r: self.should_retry(r, safe_to_repeat=safe_to_repeat)),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
            sleep=anyio.sleep,
            reraise=True,
        )
        result: ToolCallResult = await retrying(one)
        return result, count
