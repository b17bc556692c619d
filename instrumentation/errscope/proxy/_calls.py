"""What the proxy knows about MCP: which relayed messages are tool calls, and what changes in their answers.

Every other message passes through untouched. For each ``tools/call`` the proxy opens one SERVER
span (the same recorder the in-process adapter uses, :class:`errscope._telemetry.ServerTelemetry`),
and when the answer is a failure it rewrites it the way an errscope server would have written it:

- ``isError`` result: read with the client's rules (:func:`errscope.client._answer.read_text`), its
  text replaced by the shaped, scrubbed model message with the error ref (for rejected arguments the
  client's note, which never quotes a value the host sent), ``_meta`` given class, channel and ref
  (:func:`errscope.server._seam.failure_meta`), ``structuredContent`` dropped;
- an ``isError`` result that says the tool is unknown: moved to the protocol channel, JSON-RPC
  -32602 ``Unknown tool: <name>`` (MCP spec, Tools > Error Handling);
- JSON-RPC -32602: the client's note for rejected arguments, the host's arguments cut out of it;
- any other JSON-RPC error: code kept, message scrubbed with stack fragments cut and the ref appended,
  ``data`` scrubbed, its stack traces cut (:func:`errscope._scrubbing.without_stack_traces`), and given class,
  channel and ref;
- an answer whose JSON types a strict host rejects (a float or string ``code``, ``isError: "true"``, both ``result``
  and ``error``): read first as a lax reader reads it (:func:`errscope.client._answer.strict_response`);
- an answer from an errscope server (class already in ``_meta``/``data``): kept as it is;
- a late answer to a call the host cancelled: no span (the call's ended at the cancel), relayed scrubbed.

The upstream server is the span's upstream: system ``mcp``, its address (HTTP), and as status the
JSON-RPC code or ``isError``.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from opentelemetry import context, propagate, trace
from opentelemetry.trace import Span

from errscope import _attributes as attr
from errscope._call import ToolCall
from errscope._classify import Classification, Upstream, class_for_jsonrpc_error
from errscope._foreign_text import (
    about_the_result,
    json_error_message,
    names_no_cause,
    retry_after_from_text,
    safe_excerpt,
    scrub_text,
    without_page,
    without_terminal_escapes,
)
from errscope._messages import MAYBE_DONE_ADVICE, model_message, safe_name, unknown_tool_message
from errscope._root_cause import MAX_MESSAGE
from errscope._scrub_values import scrub_value
from errscope._scrubbing import without_stack_traces
from errscope._telemetry import ServerTelemetry
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.client import _answer as answer
from errscope.client._invalid_params import (
    declared_arguments,
    invalid_params_note,
    missing_required,
    required_missing_note,
    unknown_tool_name,
)
from errscope.server._mcp import _request_id
from errscope.server._seam import failure_meta

__all__ = ["Calls", "Message", "Scope", "parse_error", "request_key"]

Message = dict[str, Any]
"""One JSON-RPC message as decoded from the wire."""

SYSTEM: Final = "mcp"
"""``errscope.upstream.system`` of the relayed server."""
IS_ERROR: Final = "isError"
"""``errscope.upstream.status`` of an ``isError`` answer."""
_MAX_REQUEST_ID: Final = 128
_MAX_IN_FLIGHT: Final = 10_000
"""Requests remembered per scope; past that the oldest is forgotten (a peer that never answers)."""
RECORD_DELAY: Final = 0.002
"""Seconds between a call's answer being written and its span, metric point and log being recorded.

Recorded at once, they take a core (about 0.1 ms of CPU a call) while the host is being woken to read
the answer; on a busy machine that delays the read: about 0.08 ms of median added latency over streamable
HTTP (``bench/bench_proxy.py``). The values do not change: the end time and duration are taken when the
answer is read. Calls ended within the delay are recorded together; :meth:`Calls.flush` records what waits."""
_WAIT_SAID: Final = frozenset({FailureClass.RATE_LIMITED, FailureClass.UPSTREAM_UNAVAILABLE})
"""Classes whose text's "retry after N s" is kept: a 429's and a 503's ``Retry-After`` (RFC 9110 §10.2.3)."""
_LOST_NOT_SENT: Final = "the server is not running and the call was not sent"
_LOST_SENT: Final = "the server stopped before it answered"
"""Said with the advice for a call that may have acted (:func:`errscope._messages.model_message`)."""


def _said(text: str) -> str:
    """What a failed call's server said, for the proxy's log record (an operator's, never the model's): scrubbed
    whole, an HTML page reduced to its headline, terminal escapes dropped, cut at its first stack frame
    (:func:`~errscope._scrubbing.without_stack_traces`), at most :data:`~errscope._root_cause.MAX_MESSAGE` characters.

    Unlike the model's excerpt (:func:`~errscope._foreign_text.safe_excerpt`, 300 characters) it keeps the addresses,
    file paths and further lines the server named: "connect ECONNREFUSED 10.0.0.5:5432" or "/etc/x not in /srv" is
    the upstream event an on-call engineer looks for, as an instrumented server's ``exception.message`` keeps it."""
    said = without_stack_traces(without_page(scrub_text(without_terminal_escapes(text)))).strip()
    header = _TRACE_HEADER.search(said)  # "stack backtrace:" and the frames a runtime's own format put after it
    if header is not None:
        said = f"{said[: header.start()].rstrip()} [stack trace removed]".lstrip()
    return said if len(said) <= MAX_MESSAGE else said[: MAX_MESSAGE - 1].rstrip() + "…"


_TRACE_HEADER: Final = re.compile(r"^[ \t]*(?:stack[ \t]+backtrace|stack[ \t]*trace|backtrace|traceback)\b.*", re.I | re.M | re.S)
"""The line that opens a stack trace (Rust's ``stack backtrace:``, Node's and Java's ``Stack trace:``, Python's
``Traceback (most recent call last):``): what follows it is frames, whatever their format."""


def parse_error() -> Message:
    """The JSON-RPC 2.0 §5.1 answer to a frame that is not JSON (id ``null``: none could be read)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}


@dataclass(slots=True)
class _InFlight:
    """A request the host sent and the server has not answered; tool calls carry their span."""

    id: Any
    method: str
    sent: bool = False
    call: ToolCall | None = None
    arguments: Mapping[str, Any] | None = None
    """What the host sent: cut out of any rejection note (:func:`without_sent_values`)."""
    span: Span | None = None
    span_context: context.Context | None = None
    """A context holding ``span``: built once for the trace context sent on, and read again for the duration
    point's exemplar when the call is recorded."""
    attributes: dict[str, Any] = field(default_factory=dict)
    started: float = 0.0


@dataclass(slots=True)
class Scope:
    """Where request ids are unique: one stdio connection, one HTTP session, or one HTTP POST."""

    session_id: str | None = None
    protocol_version: str | None = None
    in_flight: dict[str, _InFlight] = field(default_factory=dict)
    cancelled: dict[str, None] = field(default_factory=dict)
    """Tool calls the host cancelled (oldest first): a late answer to one is relayed scrubbed."""
    answered: dict[str, None] = field(default_factory=dict)
    """Requests already answered (oldest first, bounded): another answer with one of these ids answers nothing."""
    unreadable: int = 0
    """Host frames the server can only answer with a ``null`` id (JSON-RPC 2.0 §5: an id it could not read)."""


def _is_request_id(value: Any) -> bool:
    """A string or an integer (MCP spec, Basic > Requests: the id MUST NOT be ``null``). A frame with any
    other id is not a request the proxy tracks, and an answer with one (``null``: the answer to a frame the
    server could not read, JSON-RPC 2.0 §5) belongs to no call (python-sdk #2057)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _scrubbed_error(message: Message) -> Message:
    """A JSON-RPC error answering a request other than ``tools/call`` (``resources/read``, ``prompts/get``, ...),
    as the host gets it: no span and no ref (the proxy records tool calls only), but nothing raw crosses either.
    Its code is kept; its message is scrubbed and cut at its first stack frame; its ``data`` is scrubbed and loses
    its stack traces (:func:`errscope._scrubbing.without_stack_traces`). A resource's or prompt's failure is
    worded by the server's own code as freely as a tool's (``ResourceError(f"...{exc}")``, the raw ``str(e)`` the
    ``mcp`` SDK sends as code 0 on the 2025-11-25 era), so it is scrubbed the same way. An error that holds
    nothing to remove is returned as it came (the relay then writes the server's bytes)."""
    error = message.get("error")
    if not isinstance(error, dict):
        return message
    shaped = dict(error)
    if isinstance(error.get("message"), str):
        shaped["message"] = without_stack_traces(scrub_text(without_terminal_escapes(error["message"])))
    if "data" in error:
        shaped["data"] = scrub_value(without_stack_traces(error["data"]), trust_safe_keys=False)
    return message if shaped == error else {**message, "error": shaped}


def request_key(request_id: Any) -> str:
    """The in-flight key of a request id: 1 and "1" are different JSON-RPC ids (JSON-RPC 2.0 §4), and
    ``repr`` keeps them apart (a string's starts with a quote) for a fraction of what ``json.dumps`` costs."""
    return repr(request_id)


class Calls:
    """The proxy's bookkeeping for one upstream server.

    Args:
        telemetry: the span, metric and log recorder.
        transport: ``network.transport`` of the host's side: ``pipe`` (stdio) or ``tcp`` (HTTP).
        upstream_address: ``host[:port]`` of an HTTP upstream; ``None`` for a child process.
    """

    def __init__(self, telemetry: ServerTelemetry, *, transport: str, upstream_address: str | None = None) -> None:
        self.telemetry = telemetry
        self.transport = transport
        self.upstream = Upstream(SYSTEM, None, upstream_address)
        self.tools: frozenset[str] | None = None
        """Tool names of the server's last complete ``tools/list`` answer; ``None`` until one is seen."""
        self._listed_tools: dict[str, Mapping[str, Any]] = {}
        """Each listed tool as the server described it (its ``inputSchema``, its ``execution``)."""
        self._listing: dict[str, Mapping[str, Any]] = {}
        self._unrecorded: list[Callable[[], None]] = []
        """Ended calls whose telemetry waits for :data:`RECORD_DELAY` (recorded in order by :meth:`flush`)."""
        self._flush_loop: asyncio.AbstractEventLoop | None = None
        self._open: dict[int, _InFlight] = {}
        """Tool calls whose span is open, in any scope (by the entry's identity): ended by :meth:`abandon_all`."""

    # -- host -> server ---------------------------------------------------------------------------
    def from_host(self, scope: Scope, message: Any) -> Any:
        """Note a message the host sends; returns the message to forward (a tool call gains trace context)."""
        if not isinstance(message, dict) or "method" not in message or not _is_request_id(message.get("id")):
            if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
                self._cancelled(scope, message.get("params"))
            elif not isinstance(message, dict) or "id" in message or not (
                    "method" in message or "result" in message or "error" in message):
                scope.unreadable += 1  # a request with a null or odd id, or no message at all: answered with id null
            return message
        method = message["method"]
        scope.answered.pop(request_key(message["id"]), None)  # the id used again: its answer is awaited again
        if len(scope.in_flight) >= _MAX_IN_FLIGHT:
            forgotten = scope.in_flight.pop(next(iter(scope.in_flight)))
            if forgotten.call is not None:
                forgotten.call.outcome = Outcome.TIMEOUT  # never answered: whether it ran is unknown
                self._finish(forgotten)
        entry = _InFlight(message["id"], method if isinstance(method, str) else "")
        scope.in_flight[request_key(message["id"])] = entry
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else None
        if meta and isinstance(meta.get(PROTOCOL_VERSION_META_KEY), str):
            scope.protocol_version = meta[PROTOCOL_VERSION_META_KEY]
        if method != "tools/call":
            return message
        return self._start_call(scope, entry, message, params, meta)

    def _start_call(self, scope: Scope, entry: _InFlight, message: Message, params: Message, meta: Message | None) -> Message:
        name = params.get("name")
        tool = safe_name(name) if isinstance(name, str) else None
        attributes: dict[str, Any] = {
            attr.MCP_METHOD_NAME: "tools/call",
            attr.GEN_AI_OPERATION_NAME: attr.EXECUTE_TOOL,
            attr.JSONRPC_REQUEST_ID: _request_id(entry.id),
            attr.NETWORK_TRANSPORT: self.transport,
        }
        if tool is not None:
            attributes[attr.GEN_AI_TOOL_NAME] = tool
        # The upstream's system and address are set at the call's end (from call.upstreams), after its
        # answer is written: every attribute given to the span's start costs the request its time.
        if scope.protocol_version:
            attributes[attr.MCP_PROTOCOL_VERSION] = scope.protocol_version
        if scope.session_id:
            attributes[attr.MCP_SESSION_ID] = scope.session_id[:_MAX_REQUEST_ID]
        known = tool is not None and (self.tools is None or tool in self.tools)
        call = ToolCall(tool=tool, known=known, request_id=attributes[attr.JSONRPC_REQUEST_ID])
        call.upstreams.append(self.upstream)
        span = self.telemetry.start("tools/call", attributes, self.telemetry.parent_context(meta, None))
        entry.call, entry.span, entry.attributes, entry.started = call, span, attributes, time.perf_counter()
        self._open[id(entry)] = entry
        arguments = params.get("arguments")
        entry.arguments = arguments if isinstance(arguments, dict) else None
        # The server continues the proxy's trace: its spans become children of this one.
        carrier: dict[str, str] = {}
        entry.span_context = trace.set_span_in_context(span)
        propagate.inject(carrier, context=entry.span_context)
        if not carrier:
            return message
        return {**message, "params": {**params, "_meta": {**(meta or {}), **carrier}}}

    def sent(self, scope: Scope, message: Any) -> None:
        """The message was handed to the upstream: if it now fails, it may have taken effect."""
        if isinstance(message, dict) and "id" in message and "method" in message:
            entry = scope.in_flight.get(request_key(message["id"]))
            if entry is not None:
                entry.sent = True

    def _cancelled(self, scope: Scope, params: Any) -> None:
        # A cancelled request gets no response (MCP spec, Utilities > Cancellation): its span ends now.
        if not isinstance(params, dict) or "requestId" not in params:
            return
        key = request_key(params["requestId"])
        entry = scope.in_flight.pop(key, None)
        if entry is not None and entry.call is not None:
            entry.call.outcome = Outcome.CANCELLED
            self._finish(entry)
            if len(scope.cancelled) >= _MAX_IN_FLIGHT:
                scope.cancelled.pop(next(iter(scope.cancelled)))
            scope.cancelled[key] = None

    # -- server -> host ---------------------------------------------------------------------------
    def answers_nothing(self, scope: Scope, message: Any) -> bool:
        """Whether ``message`` is an answer to no request the host made: one with a ``null`` or no id when the host
        sent nothing the server could not read (the server answered a notification: JSON-RPC 2.0 §4.1 "The Server
        MUST NOT reply to a Notification"), or a second answer to a request already answered. Hosts tear the
        connection down on such a frame (Claude Code's "unknown message ID", a schema error on ``"id": null``), so
        the relay drops it. A late answer to a cancelled call is not one of these (:attr:`Scope.cancelled`)."""
        if not isinstance(message, dict) or "method" in message or not ("result" in message or "error" in message):
            return False
        request_id = message.get("id")
        if not _is_request_id(request_id):
            if scope.unreadable:
                scope.unreadable -= 1
                return False
            return True
        key = request_key(request_id)
        return key in scope.answered and key not in scope.in_flight and key not in scope.cancelled

    def from_server(self, scope: Scope, message: Any) -> Any:
        """Note a message the server sends; returns what the host receives (a failed tool call shaped)."""
        if not isinstance(message, dict) or "method" in message or not _is_request_id(message.get("id")):
            return message  # server-to-client requests, notifications and id-less answers pass untouched
        key = request_key(message["id"])
        entry = scope.in_flight.pop(key, None)
        if entry is not None:
            if len(scope.answered) >= _MAX_IN_FLIGHT:
                scope.answered.pop(next(iter(scope.answered)))
            scope.answered[key] = None
        if entry is None:
            if scope.cancelled.pop(key, 0) is None:
                # The host ignores it (MCP spec, Utilities > Cancellation) but may log it: no span, scrubbed.
                scrubbed = scrub_value(message, trust_safe_keys=False)
                return message if scrubbed == message else scrubbed
            return message
        if entry.method == "initialize" and isinstance(message.get("result"), dict):
            version = message["result"].get("protocolVersion")
            scope.protocol_version = version if isinstance(version, str) else scope.protocol_version
        elif entry.method == "tools/list" and isinstance(message.get("result"), dict):
            self._listed(message["result"])
        if entry.call is None:
            return _scrubbed_error(message) if "error" in message else message
        try:
            return self._answer(entry, message)
        finally:
            self._finish(entry)

    def _listed(self, result: Message) -> None:
        tools = result.get("tools")
        if isinstance(tools, list):
            self._listing.update(
                (tool["name"], tool) for tool in tools if isinstance(tool, dict) and isinstance(tool.get("name"), str)
            )
        if not result.get("nextCursor"):  # the last page (MCP spec, Utilities > Pagination)
            self.tools, self._listed_tools, self._listing = frozenset(self._listing), self._listing, {}

    def _schema(self, tool: str | None) -> Mapping[str, Any] | None:
        """The listed tool's ``inputSchema``: its argument names and what each must be."""
        schema = self._listed_tools.get(tool or "", {}).get("inputSchema")
        return schema if isinstance(schema, Mapping) else None

    def _runs_only_as_task(self, tool: str | None) -> bool:
        """The listing says ``execution.taskSupport: "required"`` (MCP 2025-11-25, Tasks > Tool-Level Negotiation)."""
        execution = self._listed_tools.get(tool or "", {}).get("execution")
        return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"

    def _answer(self, entry: _InFlight, message: Message) -> Message:
        call = entry.call
        assert call is not None
        result = message.get("result")
        if "error" not in message and type(result) is dict and result.get("isError", False) is False:
            return message  # a success, which strict_response would pass as it came: nothing to copy
        message, ran = answer.strict_response(message)
        if isinstance(message.get("error"), dict):
            return self._protocol_error(entry, message, message["error"], ran=ran)
        result = message.get("result")
        if isinstance(result, dict) and result.get("isError") is True:
            return self._error_result(entry, message, result)
        return message

    def _error_result(self, entry: _InFlight, message: Message, result: Message) -> Message:
        call = entry.call
        assert call is not None
        meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
        content = result.get("content")
        text = answer.text_of(content if isinstance(content, list) else None, result.get("structuredContent"))
        wrapped = answer.wrapped_protocol_error(text)
        if wrapped is not None and wrapped[0] == METHOD_NOT_FOUND and self._runs_only_as_task(call.tool):
            # The TypeScript SDK's isError wrap of a task-only tool's -32601: relayed as that protocol error.
            error = {"code": METHOD_NOT_FOUND, "message": wrapped[1]}
            return self._protocol_error(entry, {k: v for k, v in message.items() if k != "result"}, error)
        reading = self._read(call, text)
        if reading.unknown_tool:
            return self._unknown_tool(entry, message, INVALID_PARAMS)
        upstream = Upstream(SYSTEM, IS_ERROR, self.upstream.address)
        if self._adopt_declared(call, Channel.EXECUTION, meta, upstream):
            return message
        if reading.arguments_rejected:
            # Most SDKs answer bad arguments with an isError result: the client's note, values never quoted.
            classification = Classification(FailureClass.INVALID_INPUT, upstream=upstream)
            call.fail(Channel.EXECUTION, classification)
            note = invalid_params_note(call.tool or "tool", text, entry.arguments, self._schema(call.tool))
            model_text = f"{note} Ref {call.error_ref}"
        elif reading.failure_class is FailureClass.UNKNOWN and names_no_cause(text) and (
                missing := missing_required(self._schema(call.tool), entry.arguments)):
            # a failure naming no cause for a call that lacked a required argument (J337, as the client reads it)
            call.fail(Channel.EXECUTION, Classification(FailureClass.INVALID_INPUT, upstream=upstream))
            model_text = f"{required_missing_note(call.tool or 'tool', missing)} Ref {call.error_ref}"
        else:
            # The server's own words for the log record (the model gets a shorter excerpt); never for rejected
            # arguments, whose reports echo what the host sent (arguments are recorded only on opt-in).
            call.upstream_message = _said(text)
            cls = reading.failure_class
            if cls is FailureClass.INVALID_INPUT:  # one problem a line: keep them all, not the first
                text = "; ".join(line.strip() for line in text.splitlines() if line.strip())
            classification = Classification(
                cls,
                retry_after=retry_after_from_text(text) if cls in _WAIT_SAID else None,
                upstream=upstream,
                side_effect_possible=reading.side_effect_possible,
                # an upstream API's JSON error document: the model reads its innermost message, not the envelope
                public_message=safe_excerpt(json_error_message(text) or text, limit=300) or None,
            )
            call.fail(Channel.EXECUTION, classification)
            model_text = model_message(call.tool or "tool", classification, call.error_ref)
        shaped = {key: value for key, value in result.items() if key not in ("content", "structuredContent", "_meta")}
        shaped["content"] = [{"type": "text", "text": model_text}]
        call.model_text = model_text
        shaped["_meta"] = {**scrub_value(meta), **failure_meta(call)}
        return {**message, "result": shaped}

    def _protocol_error(self, entry: _InFlight, message: Message, error: Message, *, ran: bool = False) -> Message:
        call = entry.call
        assert call is not None
        code = error.get("code") if isinstance(error.get("code"), int) else INTERNAL_ERROR
        text = error.get("message") if isinstance(error.get("message"), str) else ""
        data = error.get("data")
        unknown = any(self._read(call, said).unknown_tool for said in answer.error_texts(text, data))
        task_only = code == METHOD_NOT_FOUND and self._runs_only_as_task(call.tool)
        if (code == METHOD_NOT_FOUND and not task_only) or unknown:
            return self._unknown_tool(entry, message, code if code == METHOD_NOT_FOUND else INVALID_PARAMS)
        upstream = Upstream(SYSTEM, str(code), self.upstream.address)
        refused_with = data.get(attr.META_HTTP_STATUS) if isinstance(data, dict) else None
        if type(refused_with) is int and 100 <= refused_with <= 599:
            # The HTTP answer is the call's upstream event: recorded, so it names the system over the relay's default.
            upstream = Upstream("http", str(refused_with), self.upstream.address)
            call.upstreams.append(upstream)
        if self._adopt_declared(call, Channel.PROTOCOL, data if isinstance(data, dict) else {}, upstream, code=code):
            return message
        # Whether the call may have run: as the peer (or the proxy's HTTP client, J116) said, else from the code.
        declared = answer.side_effect_possible(data) if isinstance(data, dict) else None
        side_effect = True if ran else False if answer.not_run(code, data) else declared
        about_result = code == INVALID_PARAMS and any(about_the_result(said) for said in answer.error_texts(text, data))
        if about_result:
            # the upstream's check of its tool's *result* (after it ran), not the host's arguments (J332)
            call.upstream_message = _said(text)
            classification = Classification(FailureClass.UNKNOWN, upstream=upstream, side_effect_possible=True)
            shaped_text = safe_excerpt(text, limit=300) or "Error"
        elif code == INVALID_PARAMS:
            classification = Classification(FailureClass.INVALID_INPUT, upstream=upstream, side_effect_possible=False)
            shaped_text = invalid_params_note(
                call.tool or "tool", text, entry.arguments, self._schema(call.tool), data=data
            )
        elif task_only:
            # The request lacked the task the tool requires (as bad arguments would): the tool exists and did not run.
            classification = Classification(FailureClass.INVALID_INPUT, upstream=upstream, side_effect_possible=False)
            shaped_text = safe_excerpt(text, limit=300) or "This tool runs only as a task"
        elif names_no_cause(text) and (missing := missing_required(self._schema(call.tool), entry.arguments)):
            # a protocol error naming no cause for a call that lacked a required argument (J337, as the client reads it)
            classification = Classification(FailureClass.INVALID_INPUT, upstream=upstream,
                                            side_effect_possible=side_effect)
            shaped_text = required_missing_note(call.tool or "tool", missing)
        else:
            call.upstream_message = _said(text)
            cls = class_for_jsonrpc_error(code, text, data)
            if type(refused_with) is int and 300 <= refused_with <= 399:
                # The SDK's -32600 stands in for a redirect it would not follow: no fault of the host's request.
                cls = FailureClass.UPSTREAM_UNAVAILABLE
            retry_after = retry_after_from_text(text) if cls in _WAIT_SAID else None
            maybe_done = side_effect is not True and answer.reached_and_failed(code, data, cls, text)
            side_effect = True if maybe_done else side_effect
            classification = Classification(cls, retry_after=retry_after, upstream=upstream, side_effect_possible=side_effect)
            shaped_text = safe_excerpt(text, limit=300) or "Error"
            if maybe_done:  # as the client tells its model (J481): a host reads only this message
                shaped_text = f"{shaped_text.rstrip('. ')}. {MAYBE_DONE_ADVICE}"
        call.fail(Channel.PROTOCOL, classification, code=code)
        shaped_error: Message = {"code": code, "message": f"{shaped_text.rstrip('. ')} (Ref {call.error_ref})"}
        if isinstance(data, dict):
            shaped_error["data"] = {**scrub_value(without_stack_traces(data)), **failure_meta(call)}
        else:
            detail = scrub_value(without_stack_traces(data))
            shaped_error["data"] = failure_meta(call) if data is None else {"detail": detail, **failure_meta(call)}
        return {**message, "error": shaped_error}

    def _read(self, call: ToolCall, text: str) -> answer.TextReading:
        # A listed tool whose text mentions an unknown tool is a tool failing about another tool, unless the text names
        # the tool itself ("Tool send_invoice disabled": the TypeScript SDK's answer for a tool taken off its list).
        listed = self.tools is not None and call.tool in self.tools
        declared = declared_arguments(self._schema(call.tool))
        itself = call.tool is not None and unknown_tool_name(text) == call.tool
        return answer.read_text(text, call.tool if itself or not listed else None, declared)

    def _unknown_tool(self, entry: _InFlight, message: Message, code: int) -> Message:
        call = entry.call
        assert call is not None
        call.known = False
        call.fail(Channel.PROTOCOL, Classification(FailureClass.NOT_FOUND, upstream=Upstream(SYSTEM, str(code), self.upstream.address)), code=code)
        error = {"code": code, "message": unknown_tool_message(call.tool or ""), "data": failure_meta(call)}
        return {"jsonrpc": message.get("jsonrpc", "2.0"), "id": message["id"], "error": error}

    @staticmethod
    def _adopt_declared(call: ToolCall, channel: Channel, fields: Mapping[str, Any], upstream: Upstream, *, code: int | None = None) -> bool:
        # An errscope server behind the proxy already classified, scrubbed and shaped its answer.
        declared = answer.declared_class(fields)
        if declared is None:
            return False
        call.error_ref = answer.error_ref(fields) or call.error_ref
        call.fail(channel, Classification(declared, upstream=upstream), code=code)
        return True

    # -- the upstream went away ------------------------------------------------------------------
    def lost(self, scope: Scope, *, keys: Iterable[str] | None = None, sent: bool | None = None) -> list[Message]:
        """Answer every request in flight in ``scope`` (or those of ``keys``): the server is gone.

        A tool call the server may have received is answered on the execution channel as
        ``upstream_unavailable`` with ``side_effect_possible`` true; a request never sent, and any
        other method, gets JSON-RPC -32000 (connection closed), which means it did not happen.
        ``sent`` overrides what the relay knows (an HTTP upstream that could not be reached: ``False``).
        """
        answers = []
        for key in list(scope.in_flight if keys is None else keys):
            entry = scope.in_flight.pop(key, None)
            if entry is not None:
                if sent is not None:
                    entry.sent = sent
                answers.append(self._lost_answer(entry, modern=scope.protocol_version in MODERN_PROTOCOL_VERSIONS))
        return answers

    def _lost_answer(self, entry: _InFlight, *, modern: bool) -> Message:
        call = entry.call
        reply: Message = {"jsonrpc": "2.0", "id": entry.id}
        if call is None:
            said = "the MCP server stopped" if entry.sent else "the MCP server could not be reached; the request was not sent"
            reply["error"] = {"code": CONNECTION_CLOSED, "message": f"Connection closed: {said}"}
            return reply
        classification = Classification(
            FailureClass.UPSTREAM_UNAVAILABLE,
            upstream=Upstream(SYSTEM, "unavailable", self.upstream.address),
            public_message=_LOST_SENT if entry.sent else _LOST_NOT_SENT,
            side_effect_possible=entry.sent,
        )
        entry.attributes[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] = entry.sent
        if entry.sent:
            call.fail(Channel.EXECUTION, classification)
            text = call.model_text = model_message(call.tool or "tool", classification, call.error_ref)
            meta = {**failure_meta(call), attr.META_SIDE_EFFECT_POSSIBLE: True}
            reply["result"] = {"content": [{"type": "text", "text": text}], "isError": True, "_meta": meta}
            if modern:  # 2026-07-28 results carry their type (reference/mcp-sdk-2.3.md, pitfall 6)
                reply["result"]["resultType"] = "complete"
        else:
            call.fail(Channel.PROTOCOL, classification, code=CONNECTION_CLOSED)
            meta = {**failure_meta(call), attr.META_SIDE_EFFECT_POSSIBLE: False}
            message = f"Connection closed: {_LOST_NOT_SENT} (Ref {call.error_ref})"
            reply["error"] = {"code": CONNECTION_CLOSED, "message": message, "data": meta}
        self._finish(entry)
        return reply

    def abandon(self, scope: Scope) -> None:
        """End the spans of calls that will get no answer through this scope (a stream the host closed)."""
        for entry in scope.in_flight.values():
            if entry.call is not None:
                entry.call.outcome = Outcome.CANCELLED
                self._finish(entry)
        scope.in_flight.clear()

    def abandon_all(self) -> None:
        """End the spans of the calls still open in every scope, as :meth:`abandon` does for one (the proxy stops: an
        HTTP relay keeps no list of its exchanges, and their answers will not come through it)."""
        for entry in list(self._open.values()):
            if entry.call is not None:
                entry.call.outcome = Outcome.CANCELLED
            self._finish(entry)

    def _finish(self, entry: _InFlight) -> None:
        if entry.span is None:
            return
        span, entry.span = entry.span, None
        self._open.pop(id(entry), None)
        if attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE in entry.attributes:
            span.set_attribute(attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE, entry.attributes[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE])
        # The call ends now, when its answer is read; it is recorded after the answer is written.
        record = functools.partial(self.telemetry.finish, span, entry.call, entry.attributes,
                                   time.perf_counter() - entry.started, entry.span_context, end_time=time.time_ns())
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop running: record now
            record()
            return
        if not self._unrecorded or self._flush_loop is not loop:
            self._flush_loop = loop
            loop.call_later(RECORD_DELAY, self.flush)
        self._unrecorded.append(record)

    def flush(self) -> None:
        """Record the telemetry of every ended call that waits for it (the relay calls this before it stops)."""
        unrecorded, self._unrecorded = self._unrecorded, []
        for record in unrecorded:
            record()
