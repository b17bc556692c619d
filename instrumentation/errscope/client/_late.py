"""Late responses: an answer that arrives after the client gave up on the attempt.

A timed-out attempt's span stays open for ``late_response_grace`` seconds, so an answer that
arrives in that window is a span event on it. Nothing is ever re-sent or raised for a late answer.
"""

from __future__ import annotations

import anyio
from opentelemetry.trace import Span

__all__ = ["end_after"]


async def end_after(span: Span, delay: float) -> None:
    """End ``span`` after ``delay`` seconds (or when the client shuts down)."""
    try:
        await anyio.sleep(delay)
    finally:
        span.end()
