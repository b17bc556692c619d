"""Late responses: an answer that arrives after the client gave up on the attempt.

A late answer is always recorded and never acted on (nothing raised, re-sent or disconnected):

- the counter ``errscope.client.late_responses`` goes up;
- while the attempt's span is still open (it stays open ``late_response_grace`` seconds after a
  timeout), a ``late_response`` span event;
- after that, an INFO record on the ``errscope.client`` logger (exported with errscope's log
  pipeline) carrying the attempt's error ref and JSON-RPC id, so ``errscope explain ERR-…`` shows
  "the tool finished at 3.0 s, 2.0 s after the client gave up".
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import anyio
from opentelemetry.metrics import Counter
from opentelemetry.trace import Span

from errscope._attributes import (
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT,
    ERRSCOPE_LATE_RESPONSE_ELAPSED,
    GEN_AI_TOOL_NAME,
    JSONRPC_REQUEST_ID,
    MCP_METHOD_NAME,
)
from errscope._messages import safe_name

__all__ = ["LATE_RESPONSE_EVENT", "LateWatch", "end_after"]

logger = logging.getLogger("errscope.client")

LATE_RESPONSE_EVENT = "late_response"


@dataclass(slots=True, eq=False)
class LateWatch:
    """One attempt's record of an answer that comes after the client stopped waiting.

    ``gave_up_at`` and ``ref`` are filled in when the attempt ends; :meth:`arrived` is the wire
    tap's ``on_late`` callback.
    """

    span: Span
    counter: Counter
    tool: str
    started: float
    request_id: Any = None
    gave_up_at: float | None = None
    ref: str | None = None

    def arrived(self) -> None:
        now = time.perf_counter()
        attributes: dict[str, Any] = {ERRSCOPE_LATE_RESPONSE_ELAPSED: round(now - self.started, 3)}
        if self.gave_up_at is not None:
            attributes[ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT] = round(now - self.gave_up_at, 3)
        if self.ref:
            attributes[ERRSCOPE_ERROR_REF] = self.ref
        if self.request_id is not None:
            attributes[JSONRPC_REQUEST_ID] = str(self.request_id)
        self.counter.add(1, {MCP_METHOD_NAME: "tools/call"})
        if self.span.is_recording():
            self.span.add_event(LATE_RESPONSE_EVENT, attributes)
            return
        after = attributes.get(ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT)
        logger.info(
            "late response: %s finished at %.1f s%s; the answer was dropped",
            safe_name(self.tool),
            attributes[ERRSCOPE_LATE_RESPONSE_ELAPSED],
            f", {after:.1f} s after the client gave up" if after is not None else "",
            extra={**attributes, GEN_AI_TOOL_NAME: safe_name(self.tool)},
        )


async def end_after(span: Span, delay: float) -> None:
    """End ``span`` after ``delay`` seconds (or when the client shuts down)."""
    try:
        await anyio.sleep(delay)
    finally:
        span.end()
