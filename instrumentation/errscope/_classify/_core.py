"""The shapes a classification takes (:class:`Classification`, :class:`Upstream`, :class:`FieldProblem`, ``Rule``)
and :func:`classify`, which the families' rules call on a cause.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

from errscope._scrubbing import scrub
from errscope._vocabulary import FailureClass


_MAX_LABEL: Final = 32
_MAX_ADDRESS: Final = 128

# Resource not found in MCP 2025-11-25 and earlier; clients SHOULD still accept it (spec, Error Codes).
RESOURCE_NOT_FOUND: Final = -32002


@dataclass(frozen=True, slots=True)
class Upstream:
    """What a backing service said. ``address`` is ``host[:port]``: never userinfo, path or query."""

    system: str | None = None
    status: str | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        # System and status become span attributes and metric labels whoever set them (a hook, an
        # author's ToolFailure, record_upstream): one scrubbed line, bounded, never a free text.
        for name, limit in (("system", _MAX_LABEL), ("status", _MAX_LABEL), ("address", _MAX_ADDRESS)):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, " ".join(scrub(str(value)).split())[:limit] or None)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One wrong argument: its dotted path and, when known, what it must be. Never its value."""

    path: str
    expected: str | None = None


@dataclass(frozen=True, slots=True)
class Classification:
    """The result of :func:`classify`.

    Attributes:
        failure_class: the one class the failure lands on.
        retry_after: seconds the upstream asked to wait, when it said so.
        upstream: the upstream's status, when the failure came from one.
        public_message: text the model may read (still scrubbed before sending).
        fields: the wrong arguments, for invalid_input.
        side_effect_possible: ``True`` when the request reached the upstream and then failed (read or
            write timeout, connection dropped after sending, a 5xx from a server that was handling
            it), so its action may have happened; ``False`` when it provably never did (connect
            refused, DNS, connect or pool timeout, TLS handshake, an explicit refusal such as a 4xx,
            503 or a rolled-back statement); ``None`` when the failure does not say.
    """

    failure_class: FailureClass
    retry_after: float | None = None
    upstream: Upstream | None = None
    public_message: str | None = None
    fields: tuple[FieldProblem, ...] = ()
    side_effect_possible: bool | None = None

    def __post_init__(self) -> None:
        # retry_after comes from authors, user rules and upstream headers; it reaches the model text,
        # _meta and the span, so anything but a finite delay >= 0 (RFC 9110 §10.2.3) means "not said".
        if self.retry_after is not None:
            object.__setattr__(self, "retry_after", delay_seconds(self.retry_after))


def delay_seconds(value: object) -> float | None:
    """``value`` as a delay in seconds when it is a finite number >= 0 (or a ``timedelta``), else ``None``."""
    if isinstance(value, datetime.timedelta):  # python-telegram-bot's RetryAfter.retry_after
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


Rule: TypeAlias = Callable[[BaseException], Classification | None]
"""A table entry: returns a classification, or ``None`` to defer to the exception's cause."""

_UNKNOWN: Final = Classification(FailureClass.UNKNOWN)
_UNUSABLE_URL: Final = Classification(FailureClass.UNKNOWN, side_effect_possible=False)
_MAX_CHAIN: Final = 16


_explain: Callable[[BaseException], tuple[Classification, BaseException]] = NotImplemented
""":func:`errscope._classify._entry.explain`, installed when that module is imported: the families' rules classify a
cause through :func:`classify`, and the entry point, which reads the rule table, sits above them."""


def classify(exc: BaseException) -> Classification:
    """Map any exception onto exactly one failure class, with what else it tells (see the table in ``_table``).

    Walks the chain (:func:`walk`); never raises.
    """
    return _explain(exc)[0]
