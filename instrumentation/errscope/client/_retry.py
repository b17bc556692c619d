"""Automatic retries: only what is safe, decided from what the server declares.

A key attached by the client proves nothing; what counts is the server's word that a repeat is
harmless (DESIGN.md, "Idempotency keys"). A tool is *safe to repeat* when its latest ``tools/list``
entry says ``annotations.readOnlyHint: true`` or ``annotations.idempotentHint: true`` (MCP spec,
Tools > ToolAnnotations), or ``_meta["io.errscope/idempotency_key_honoured"]: true`` (errscope
servers declare it for tools using :class:`errscope.idempotency.Idempotency`) and the call carries a
key. It is read again before every retry: a ``notifications/tools/list_changed`` that withdraws the
promise stops the retries of a call in flight.

Independently of the tool, an attempt that certainly never reached it (*undelivered*) may be sent
again at the transport layer (issue #11): nothing ran, so nothing can run twice.

=========================================  ===============================================================
ending of a retryable class                automatic retry
=========================================  ===============================================================
undelivered: connect refused, connect or   yes, for any tool: it was never applied (RFC 9110 §9.2.2: a
pool timeout, no session, HTTP 404 to a    non-idempotent request may be retried automatically when the
stale ``Mcp-Session-Id`` (a new session    client can detect that it was never applied); HTTP 429 (RFC
is opened), HTTP 429 to the POST, a        6585 §4) refuses to process it
JSON-RPC error the server declared
harmless (``side_effect_possible: false``)
or whose code means the request was
rejected before dispatch (-32700, -32600,
-32601, -32602; JSON-RPC 2.0 §5.1)
any other JSON-RPC error (-32603,          only when the tool is safe to repeat: servers raise them after
-32000.., application codes)               the tool ran (FastMCP's ``ErrorHandlingMiddleware`` turns
                                           every tool exception into -32603/-32000)
``isError`` result                         only when the tool is safe to repeat: the tool ran, and may
                                           have done part of its work (an e-mail sent, then a 503)
timeout, connection lost after the         only when the tool is safe to repeat (a timeout also needs
request was written, unreadable answer     ``retry_timeouts``)
circuit breaker open                       never: the breaker says fail fast
not_found, permission_denied,              never
invalid_input, unknown
=========================================  ===============================================================

Waits: ``retry_after`` (from ``_meta``, the text, or an HTTP ``Retry-After`` header, delay-seconds or
HTTP-date) plus jitter when the server gave one and it fits ``max_rate_limit_wait``; otherwise
exponential backoff with jitter (never a burst), all within the per-call ``budget`` and
``max_attempts``. The machinery is ``tenacity``'s.

A model-initiated retry is a new logical call that reuses the first call's idempotency key
(``ToolClient.call_tool(..., idempotency_key=previous.idempotency_key)``); it is not counted here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Protocol

import anyio
from tenacity import AsyncRetrying, RetryCallState, retry_if_result, stop_after_attempt, stop_before_delay
from tenacity.wait import wait_exponential_jitter

from errscope._vocabulary import FailureClass, Outcome
from errscope.client._result import ToolCallResult

__all__ = ["STOP_REASONS", "Repeatable", "RetryPolicy"]


_RETRYABLE = (FailureClass.RATE_LIMITED, FailureClass.UPSTREAM_UNAVAILABLE)

STOP_REASONS: Final = {
    "not_safe_to_repeat": "{tool} is not declared safe to repeat (annotations.idempotentHint or readOnlyHint, or a "
                          "key the server honours), and the failed call reached it",
    "retry_after_too_long": "the wait the upstream asked for is longer than max_rate_limit_wait",
    "attempts_exhausted": "max_attempts or the retry budget was used up",
    "circuit_open": "the circuit breaker was open",
    "retries_off": "automatic retries are off (max_attempts 1, or retry_timeouts off for a timeout)",
}
"""Why a failure of a class the policy retries got no further attempt (``errscope.retry.stop_reason``), and how
``errscope explain`` words it."""


class Repeatable(Protocol):
    """One logical call as the policy sees it; every member reads the state after the latest attempt."""

    async def attempt(self, number: int) -> ToolCallResult:
        """Send attempt ``number`` (1, 2, ...) and return its outcome."""
        ...

    def safe_to_repeat(self) -> bool:
        """Whether the server's latest declaration makes a repeat of this call harmless."""
        ...

    @property
    def undelivered(self) -> bool:
        """The latest attempt certainly never reached the tool."""
        ...

    @property
    def held(self) -> bool:
        """The latest attempt was held back by the open circuit breaker."""
        ...


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

    def should_retry(self, result: ToolCallResult, *, safe_to_repeat: bool, undelivered: bool = False) -> bool:
        """Whether errscope may send this logical call again on its own (see the module's table).

        Args:
            result: the latest attempt's outcome.
            safe_to_repeat: the server declares a repeat of the call harmless.
            undelivered: the attempt certainly never reached the tool.
        """
        if result.outcome is Outcome.TIMEOUT:
            return safe_to_repeat and self.retry_timeouts
        if result.outcome is not Outcome.ERROR or result.failure_class not in _RETRYABLE:
            return False
        if not (undelivered or safe_to_repeat):
            return False  # it may have run, and nobody promised that running it again is harmless
        if result.failure_class is FailureClass.RATE_LIMITED and result.retry_after is not None:
            return result.retry_after <= self.max_rate_limit_wait
        return True

    def stop_reason(self, result: ToolCallResult, *, safe_to_repeat: bool, undelivered: bool, held: bool) -> str | None:
        """Why no further attempt followed ``result`` (a key of :data:`STOP_REASONS`), for the log record an on-call
        engineer reads; ``None`` when the call succeeded or its class is never retried (the class says why)."""
        retried_class = result.outcome is Outcome.TIMEOUT or (
            result.outcome is Outcome.ERROR and result.failure_class in _RETRYABLE)
        if not retried_class:
            return None
        if held:
            return "circuit_open"
        if self.max_attempts <= 1:
            return "retries_off"
        if result.outcome is Outcome.TIMEOUT:
            if not safe_to_repeat:
                return "not_safe_to_repeat"
            return "attempts_exhausted" if self.retry_timeouts else "retries_off"
        if not (undelivered or safe_to_repeat):
            return "not_safe_to_repeat"
        if (result.failure_class is FailureClass.RATE_LIMITED and result.retry_after is not None
                and result.retry_after > self.max_rate_limit_wait):
            return "retry_after_too_long"
        return "attempts_exhausted"

    def wait_seconds(self, state: RetryCallState) -> float:
        """Seconds to wait before the next attempt (tenacity ``wait`` strategy)."""
        assert state.outcome is not None
        result = state.outcome.result()
        if isinstance(result, ToolCallResult) and result.failure_class is FailureClass.RATE_LIMITED:
            if result.retry_after is not None:
                return result.retry_after + random.uniform(0, self.jitter)
        return wait_exponential_jitter(multiplier=self.backoff_initial, max=self.backoff_max, jitter=self.jitter)(state)

    async def run(self, call: Repeatable, *, first: ToolCallResult | None = None) -> tuple[ToolCallResult, int]:
        """Run ``call.attempt(n)`` (n = 1, 2, ...) until the policy stops; return the last result and the count.

        ``first``: the first attempt's result when the caller has already made it (``ToolClient`` makes it itself
        and comes here only when it did not succeed: one coroutine fewer on every successful call).
        """
        if first is None:
            first = await call.attempt(1)
        if self.max_attempts <= 1 or first.outcome is Outcome.OK:
            return first, 1  # the common case: no retry machinery (nor catalog lookup) on the hot path

        def again(result: ToolCallResult) -> bool:
            return not call.held and self.should_retry(
                result, safe_to_repeat=call.safe_to_repeat(), undelivered=call.undelivered
            )

        if not again(first):
            return first, 1
        count = 0

        async def one() -> ToolCallResult:
            nonlocal count
            count += 1
            return first if count == 1 else await call.attempt(count)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.budget),
            wait=self.wait_seconds,
            retry=retry_if_result(again),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
            sleep=anyio.sleep,
            reraise=True,
        )
        result: ToolCallResult = await retrying(one)
        return result, count
