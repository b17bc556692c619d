"""The host-facing result: every way an attempt can end becomes one :class:`ToolCallResult`.

Each function here turns one kind of ending (a result, a protocol error, a timeout, a local
failure) into the model's text (head, per-class advice, ref) and the structured facts. Nothing in
this module touches the wire or the span: it only reads what arrived.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from mcp_types import CallToolResult, ElicitationRequiredErrorData, ErrorData, Tool
from pydantic import ValidationError

from errscope._attributes import ERROR_TYPE, TOOL_ERROR
from errscope._classify import class_for_jsonrpc_error
from errscope._foreign_text import (
    json_error_message,
    relays_ended_session,
    retry_after_from_text,
    safe_excerpt,
    says_nothing,
)
from errscope._messages import safe_name
from errscope._refs import new_error_ref
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.client._catalog import ToolCatalog
from errscope.client._deadline import TimeoutKind, TimeoutPolicy
from errscope.client import _answer as answer
from errscope.client._invalid_params import (
    declared_arguments,
    invalid_params_note,
    missing_required,
    required_missing_note,
)
from errscope.client._result import ADVICE, ToolCallResult

__all__ = [
    "MAX_RETRY_AFTER",
    "elicitation_required",
    "failure",
    "from_result",
    "local_failure",
    "other_protocol_error",
    "refused_http_rate_limit",
    "required_missing",
    "result_rejected",
    "timed_out",
    "timed_out_unsent",
    "unknown_tool_head",
]

MAX_LISTED = 20
"""Tool names of a server's list named to the model in one unknown-tool note."""
MAX_RETRY_AFTER: Final = 86_400.0
"""A peer's ``retry_after`` is clamped to one day: a longer wait is not advice a model can act on."""
_MAYBE_DONE: Final = "It may have taken effect; check before calling again."


def failure(
    tool: str,
    channel: Channel | None,
    cls: FailureClass,
    head: str,
    *,
    ref: str | None = None,
    retry_after: float | None = None,
    advice: str | None = None,
    result: CallToolResult | None = None,
    outcome: Outcome = Outcome.ERROR,
    side_effect_possible: bool | None = None,
) -> ToolCallResult:
    """The result of a failed attempt: ``head``, the class's advice, and the ref (minted if absent)."""
    ref = ref or new_error_ref()
    retry_after = clamp_retry_after(retry_after)
    if advice is None:
        advice = ADVICE[cls]
        if cls is FailureClass.RATE_LIMITED and retry_after is not None:
            advice = f"Wait about {seconds(retry_after)} before calling again."
    text = " ".join(part for part in (head.strip(), advice.strip(), f"Ref {ref}.") if part)
    retryable = cls in (FailureClass.RATE_LIMITED, FailureClass.UPSTREAM_UNAVAILABLE)
    return ToolCallResult(
        tool=tool,
        text=text,
        outcome=outcome,
        channel=channel,
        failure_class=cls,
        error_ref=ref,
        retryable=retryable,
        retry_after=retry_after,
        result=result,
        side_effect_possible=side_effect_possible,
    )


def local_failure(tool: str, head: str, *, side_effect_possible: bool) -> ToolCallResult:
    """A failure the client saw itself (no usable answer from the server)."""
    return failure(
        tool, None, FailureClass.UPSTREAM_UNAVAILABLE, head, advice="", side_effect_possible=side_effect_possible
    )


def timed_out(
    tool: str,
    fired: TimeoutKind,
    policy: TimeoutPolicy,
    *,
    hint: str | None,
    idle_seconds: float | None = None,
) -> ToolCallResult:
    """A timer ended the attempt: the side effect may have happened, and the note says so."""
    shown = safe_name(tool)
    if fired is TimeoutKind.CEILING:
        head = f"{shown} did not finish within the {seconds(policy.hard_ceiling)} limit and was cancelled."
    else:
        idle = idle_seconds if idle_seconds is not None else policy.idle
        head = f"{shown} did not finish within {seconds(idle)} and was cancelled."
    if hint:
        head += " The request may have been accepted: " + safe_excerpt(hint, limit=200).rstrip(".") + "."
    else:
        head += " Part of the work may already have been done; check before retrying."
    return failure(
        tool, None, FailureClass.UPSTREAM_UNAVAILABLE, head, advice="", outcome=Outcome.TIMEOUT, side_effect_possible=True
    )


def timed_out_unsent(tool: str, fired: TimeoutKind, policy: TimeoutPolicy) -> ToolCallResult:
    """A timer ended the attempt before its request was handed to the transport (the writer was still busy with
    earlier messages, or the server was not reading): nothing was sent, so nothing ran."""
    limit = policy.hard_ceiling if fired is TimeoutKind.CEILING else policy.idle
    head = (
        f"{safe_name(tool)} could not be sent to the tool server within {seconds(limit)} (the connection was busy); "
        "nothing was run, so calling again is safe."
    )
    return failure(
        tool, None, FailureClass.UPSTREAM_UNAVAILABLE, head, advice="", outcome=Outcome.TIMEOUT, side_effect_possible=False
    )


def from_result(
    tool: str,
    raw: CallToolResult,
    attributes: dict[str, Any],
    *,
    max_text: int,
    input_schema: Mapping[str, Any] | None = None,
    arguments: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    request_ids: tuple[Any, ...] = (),
) -> ToolCallResult | None:
    """A ``CallToolResult`` arrived; ``None`` means a foreign SDK's wrapped unknown-tool error (D01).

    A successful result's text is cut to ``max_text`` characters with a note saying so; the whole
    result stays in :attr:`ToolCallResult.result` for the host. ``input_schema`` is the tool's listed
    schema and ``arguments`` what was sent: together they tell an argument rejection wrapped in
    ``isError`` from any other failure text. A success already carries the logical call's
    ``idempotency_key`` and ``request_ids`` (the common case then builds no second result).
    """
    text = answer.text_of(raw.content, raw.structured_content)
    if not raw.is_error:
        cut = len(text) > max_text
        if cut:
            text = text[:max_text] + f"\n[errscope: output cut to {max_text} of {len(text)} characters.]"
        return ToolCallResult(
            tool=tool,
            text=text,
            outcome=Outcome.OK,
            result=raw,
            text_truncated=cut,
            idempotency_key=idempotency_key,
            request_ids=request_ids,
        )
    attributes[ERROR_TYPE] = TOOL_ERROR
    meta = raw.meta or {}
    side_effect = answer.side_effect_possible(meta)
    server_class = answer.declared_class(meta)
    if server_class is not None:
        # An errscope server already classified, scrubbed and shaped the text.
        retry_after = answer.retry_after(meta)
        ref = answer.error_ref(meta)
        shaped = ref is not None and ref in text  # the server already wrote the model's text
        head = without_ref(safe_excerpt(text, limit=300 if shaped else 240), ref) or f"{safe_name(tool)} failed"
        head = head.rstrip(" .") + "."
        advice = "" if shaped else (_MAYBE_DONE if side_effect else None)
        return failure(
            tool,
            Channel.EXECUTION,
            server_class,
            head,
            ref=ref,
            retry_after=retry_after,
            result=raw,
            advice=advice,
            side_effect_possible=side_effect,
        )
    # An upstream API's JSON error document relayed as the text: read (and shown) by its innermost message and codes.
    # Read whole when the envelope is what says it is about an MCP session (J432: a 404 "Session not found" relayed).
    said = json_error_message(text) or text
    reading = answer.read_text(text if relays_ended_session(text) else said, tool, declared_arguments(input_schema))
    if reading.unknown_tool:
        return None
    if reading.arguments_rejected:
        # Most SDKs (TS 1.2x+/2.x, mcp, FastMCP) answer bad arguments with an isError result, not -32602.
        note = invalid_params_note(tool, text, arguments, input_schema)
        return failure(tool, Channel.EXECUTION, FailureClass.INVALID_INPUT, note, advice="", result=raw)
    cls = reading.failure_class
    if side_effect is None:
        side_effect = reading.side_effect_possible  # e.g. "The operation was aborted due to timeout"
    retry_after = retry_after_from_text(text) if cls is FailureClass.RATE_LIMITED else None
    excerpt = safe_excerpt(said)
    missing = missing_required(input_schema, arguments) if cls is FailureClass.UNKNOWN else ()
    if missing and (not excerpt or says_nothing(excerpt, tool)):
        # A failure that names no cause, for a call that lacked what the listed schema requires: the one thing the
        # model can fix (MCP spec, Tools: servers MUST validate inputs; MemPalace/mempalace #1574 did not)
        return failure(tool, Channel.EXECUTION, FailureClass.INVALID_INPUT, required_missing_note(tool, missing),
                       advice="", result=raw, side_effect_possible=side_effect)
    head = f"{safe_name(tool)} failed: {excerpt}." if excerpt and not says_nothing(excerpt, tool) else f"{safe_name(tool)} failed."
    advice = _MAYBE_DONE if side_effect else None
    return failure(
        tool, Channel.EXECUTION, cls, head, retry_after=retry_after, result=raw, advice=advice,
        side_effect_possible=side_effect,
    )


def sent_again_on_declaration(text: str, ref: str | None, tool: str, attempts: int, basis: str) -> str:
    """``text`` of a call that failed after errscope repeated an attempt that may have run, saying so before the ref:
    the repeat rested only on the server's declaration (MCP, Tools > ToolAnnotations: hints are the author's claim,
    not a guarantee), so each attempt may have taken effect. ``basis`` is the declaration's name as listed."""
    note = f"It was sent {attempts} times, as the server declares {safe_name(tool)} safe to repeat ({basis})."
    tail = f"Ref {ref}."
    if ref and text.endswith(tail):
        return f"{text[: -len(tail)].rstrip()} {note} {tail}"
    return f"{text} {note}"


def without_ref(text: str, ref: str | None) -> str:
    """``text`` without the call's own ref (``Ref ERR-…``, in parentheses or not): the note ends with it, and the
    model reads it once (an errscope server or proxy appends it to its messages too)."""
    if not ref:
        return text
    return re.sub(rf"\s*\(?\bRef {re.escape(ref)}\)?", "", text).replace(ref, "").strip()


def elicitation_required(tool: str, error: ErrorData, ref: str | None) -> ToolCallResult:
    """``-32042``: the user must complete URL elicitations first (MCP spec 2025-11-25, Elicitation >
    URL mode > URLElicitationRequiredError). The host gets the error and the parsed elicitations
    intact; the model is told what the user must do. Class ``permission_denied``: the user has to
    act (typically authorise a third party) before the call can go through."""
    try:
        elicitations = tuple(ElicitationRequiredErrorData.model_validate(error.data).elicitations)
    except ValidationError:
        elicitations = ()
    said = safe_excerpt(elicitations[0].message) if elicitations else ""
    head = f"{safe_name(tool)} needs the user to complete a step in their browser first" + (f" ({said})." if said else ".")
    advice = (
        "Ask the user to open the link the app shows them and finish there, then call again."
        if elicitations
        else "The server did not say how; tell the user the request needs their action."
    )
    shaped = failure(tool, Channel.PROTOCOL, FailureClass.PERMISSION_DENIED, head, ref=ref, advice=advice)
    return replace(shaped, elicitations=elicitations)


def other_protocol_error(
    tool: str, code: int, message: str, data: dict[str, Any], ref: str | None, detail: Any = None
) -> ToolCallResult:
    """A JSON-RPC error that is neither an unknown tool nor invalid arguments (``detail``: its ``data`` as sent, a
    string or an object, read for the cause when the message names none)."""
    server_class = answer.declared_class(data)
    if server_class is not None:
        cls = server_class
    else:
        cls = class_for_jsonrpc_error(code, message, detail)
    retry_after = answer.retry_after(data) or (
        retry_after_from_text(message) if cls is FailureClass.RATE_LIMITED else None
    )
    excerpt = without_ref(safe_excerpt(message), ref)
    shown = safe_name(tool)
    # Only a code that rejects the request itself, or the server's word, says nothing ran (answer.not_run).
    may_have_run = not answer.not_run(code, data)
    verb = "failed on the server" if may_have_run else "was refused by the server"
    head = f"{shown} {verb}: {excerpt}." if excerpt else f"{shown} {verb}."
    # ... and may have acted, unless its words say the upstream was never reached (a refused connect, a program that
    # is not installed)
    maybe_done = answer.reached_and_failed(code, data, cls, message)
    return failure(
        tool,
        Channel.PROTOCOL,
        cls,
        head,
        ref=ref,
        retry_after=retry_after,
        advice=_MAYBE_DONE if maybe_done else None,
        # the server's True, or what the note tells the model; a code that rejected the request ran nothing
        side_effect_possible=(True if answer.side_effect_possible(data) or maybe_done else None) if may_have_run else False,
    )


def required_missing(tool: str, missing: tuple[str, ...], ref: str | None, *, may_have_run: bool) -> ToolCallResult:
    """A protocol error that names no cause (:func:`~errscope._foreign_text.names_no_cause`) for a call that lacked
    arguments the listed schema requires (:func:`~errscope.client._invalid_params.missing_required`): ``invalid_input``
    with a note naming them (MemPalace/mempalace #1574: -32000 "Internal tool error")."""
    return failure(tool, Channel.PROTOCOL, FailureClass.INVALID_INPUT, required_missing_note(tool, missing), ref=ref,
                   advice="", side_effect_possible=None if may_have_run else False)


def result_rejected(tool: str, message: str, ref: str | None) -> ToolCallResult:
    """A -32602 whose words are about the tool's *result* (:func:`~errscope._foreign_text.about_the_result`: an SDK or
    a gateway checking the output schema after the tool ran), not the call's arguments: the server's own fault
    (``unknown``), no argument note, and the tool may have acted (as errscope's own output check says, J21)."""
    excerpt = without_ref(safe_excerpt(message), ref)
    shown = safe_name(tool)
    head = f"{shown} ran, but its result was rejected: {excerpt}." if excerpt else f"{shown} ran, but its result was rejected."
    return failure(tool, Channel.PROTOCOL, FailureClass.UNKNOWN, head, ref=ref, advice=_MAYBE_DONE,
                   side_effect_possible=True)


def runs_only_as_task(tool: Tool | None) -> bool:
    """Whether the listing says ``tool`` must be called as a task (``execution.taskSupport: "required"``, MCP 2025-11-25,
    Tasks > Tool-Level Negotiation). errscope's client makes no task-augmented calls."""
    execution = tool.execution if tool is not None else None
    return execution is not None and execution.task_support == "required"


def task_required(tool: str, ref: str | None, result: CallToolResult | None = None) -> ToolCallResult:
    """-32601 to a listed tool that runs only as a task (MCP 2025-11-25, Tasks > Tool-Level Negotiation: the server
    answers -32601 to a plain call): the tool exists and did not run. ``invalid_input``: the request lacked what the
    tool requires, and this client cannot add it, so the model must not call it again."""
    head = f"{safe_name(tool)} runs only as a task (MCP tasks), which this client does not request; it was not run."
    advice = "Don't call it again; tell the user it needs a client that supports tasks."
    return failure(tool, Channel.PROTOCOL, FailureClass.INVALID_INPUT, head, ref=ref, advice=advice, result=result,
                   side_effect_possible=False)


def refused_http_rate_limit(tool: str, server: str, retry_after: float | None) -> ToolCallResult:
    """HTTP 429 to the POST carrying the call (RFC 6585 §4): the server refused it, so nothing ran."""
    head = f"Tool server {server} is rate limiting requests (HTTP 429); {safe_name(tool)} was not run."
    return failure(tool, None, FailureClass.RATE_LIMITED, head, retry_after=retry_after, side_effect_possible=False)


def refused_http_auth(tool: str, server: str, status: int) -> ToolCallResult:
    """HTTP 401 or 403 to the POST carrying the call (MCP, Authorization > Error Handling; RFC 9110
    §15.5.2, §15.5.4): the server refused the credentials or their scope, so nothing ran. 407 (RFC 9110 §15.5.8):
    a proxy on the way refused them, before the server saw the request."""
    if status == 407:
        head = (
            f"A proxy between this host and tool server {server} refused the request (HTTP 407: proxy credentials "
            f"are missing or wrong); {safe_name(tool)} was not run. The host's proxy settings must change before "
            "calling it."
        )
        return failure(tool, None, FailureClass.PERMISSION_DENIED, head, side_effect_possible=False)
    why = "its credentials are missing, invalid or expired" if status == 401 else "its credentials lack the needed permission"
    head = (
        f"Tool server {server} refused the request (HTTP {status}: {why}); {safe_name(tool)} was not run. "
        "The user or host must authorize again before calling it."
    )
    return failure(tool, None, FailureClass.PERMISSION_DENIED, head, side_effect_possible=False)


def refused_http_too_large(tool: str, server: str) -> ToolCallResult:
    """HTTP 413 to the POST carrying the call (RFC 9110 §15.5.14 Content Too Large; nginx's ``client_max_body_size``,
    uvicorn's and gateways' body limits): refused before it was read, so nothing ran; the same arguments would be
    refused again, smaller ones may pass."""
    head = (
        f"Tool server {server} refused the request as too large (HTTP 413); {safe_name(tool)} was not run. "
        "Call it again with less data (a smaller file, fewer items, a page at a time)."
    )
    return failure(tool, None, FailureClass.INVALID_INPUT, head, advice="", side_effect_possible=False)


def unknown_tool_head(tool: str, catalog: ToolCatalog, *, listed_before: bool, was_known: bool) -> str:
    """The note after re-listing: re-listed, listed-but-refused, gone, or never existed."""
    # Tool names are the peer's words: scrubbed and bounded like any other name echoed to the model.
    available = ", ".join(safe_name(name) for name in catalog.names[:MAX_LISTED]) or "none"
    if len(catalog.names) > MAX_LISTED:
        available += f" and {len(catalog.names) - MAX_LISTED} more"
    shown = safe_name(tool)
    if tool in catalog and not listed_before:
        return f"{shown} was just re-listed by the server."
    if tool in catalog:
        return f"The server says {shown} does not exist, although it lists it. Available: {available}."
    if was_known:
        return f"{shown} is no longer available. Available: {available}."
    return f"Tool `{shown}` does not exist. Available: {available}."


def seconds(value: float) -> str:
    """A wait or a limit as a person would say it: ``"30 s"``, ``"5 min"``, ``"24 h"``."""
    if value < 120:
        return f"{value:g} s"
    if value < 7200:
        return f"{round(value / 60):g} min"
    return f"{round(value / 3600):g} h"


def clamp_retry_after(value: float | None) -> float | None:
    """``None`` for anything that is not a finite wait >= 0; at most :data:`MAX_RETRY_AFTER`."""
    if value is None or math.isnan(value) or value < 0:
        return None
    return min(value, MAX_RETRY_AFTER)
