"""What a host gets back for every tool call: the model's text plus the structured facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from mcp_types import CallToolResult, ElicitRequestURLParams, ErrorData

from errscope._vocabulary import Channel, FailureClass, Outcome

__all__ = ["ADVICE", "ToolCallResult"]

ADVICE: Final[dict[FailureClass, str]] = {
    FailureClass.PERMISSION_DENIED: "Don't retry; ask the user for access.",
    FailureClass.NOT_FOUND: "Check the identifier before calling again.",
    FailureClass.RATE_LIMITED: "Wait before calling again.",
    FailureClass.UPSTREAM_UNAVAILABLE: "The service could not be reached; you may try again later.",
    FailureClass.INVALID_INPUT: "Fix the arguments and call again.",
    FailureClass.UNKNOWN: "Don't retry right away; quote the ref if you report it.",
}
"""Per-class advice for the model. None of it is a blanket "retry now" (case D04)."""


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """The outcome of one logical tool call through :class:`errscope.client.ToolClient`.

    Attributes:
        tool: the tool name the caller asked for.
        text: what to hand the model: short, honest, scrubbed. On success, the tool's own text.
        outcome: ``ok``, ``error``, ``timeout`` or ``cancelled``.
        channel: ``protocol`` or ``execution`` for failures that reached a server; ``None`` otherwise.
        failure_class: the class of a failure; ``None`` on success.
        error_ref: the ref quoted in ``text`` (the server's, or one minted here for local failures).
        retryable: whether calling again later can help (per the class; never for timeouts unless keyed).
        retry_after: seconds to wait before calling again, when known.
        attempts: how many attempts errscope made (automatic retries included).
        idempotency_key: the key every attempt carried; pass it back to retry this logical call.
        result: the server's ``CallToolResult`` when one arrived, whole (``text`` may be cut).
        request_ids: the JSON-RPC ids of the attempts, in order (for triage).
        side_effect_possible: for a failure, ``True`` when the call may have taken effect (a timeout,
            a session lost after the request was written, a server saying so in
            ``_meta["io.errscope/side_effect_possible"]``), ``False`` when no request reached the
            server (breaker open, no connection); ``None`` when nothing is known or on success.
        error: the JSON-RPC error object exactly as the server sent it (code, message, ``data``),
            for errors whose ``data`` the host must act on, e.g. ``-32042`` URL elicitation.
        elicitations: for ``-32042``, the URL elicitations the user must complete (MCP spec,
            Elicitation > URL mode): each has ``url``, ``message`` and ``elicitation_id``.
        text_truncated: ``True`` when ``text`` was cut to the client's ``max_model_text``.
    """

    tool: str
    text: str
    outcome: Outcome
    channel: Channel | None = None
    failure_class: FailureClass | None = None
    error_ref: str | None = None
    retryable: bool = False
    retry_after: float | None = None
    attempts: int = 1
    idempotency_key: str | None = None
    result: CallToolResult | None = field(default=None, repr=False)
    request_ids: tuple[Any, ...] = ()
    side_effect_possible: bool | None = None
    error: ErrorData | None = field(default=None, repr=False)
    elicitations: tuple[ElicitRequestURLParams, ...] = ()
    text_truncated: bool = False

    @property
    def ok(self) -> bool:
        """``True`` when the tool ran and succeeded."""
        return self.outcome is Outcome.OK

    @property
    def side_effect_unknown(self) -> bool:
        """``True`` when the call may or may not have taken effect (a timeout, a session lost mid-call,
        or a server that said so)."""
        return self.outcome is Outcome.TIMEOUT or self.side_effect_possible is True
