"""``errscope explain``: from one error ref (or JSON-RPC request id, or trace id) to the upstream event.

Reads a folder of OTLP-JSON files (the demo's output, or a Collector ``file`` exporter folder) and
prints the chain for one failed or successful tool call:

1. what the model was shown (the host's log record, when the host logged it; the text the server or
   ``errscope proxy`` shaped for it, from their failure record);
2. the tool's SERVER span (``tools/call <tool>``: channel, class, outcome, upstream);
3. the upstream child CLIENT span(s) and their HTTP status;
4. the server's log record for the failure (scrubbed detail: what the upstream said);
5. the client's view: its CLIENT span per attempt (timeouts, cancellations, retries, the
   idempotency key's hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final

from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_MESSAGE, EXCEPTION_TYPE
from opentelemetry.semconv.attributes.http_attributes import HTTP_REQUEST_METHOD, HTTP_RESPONSE_STATUS_CODE
from opentelemetry.semconv.attributes.url_attributes import URL_FULL

from errscope import _attributes as attr
from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, SPAN_KIND_SERVER, LogRecord, Span, Telemetry
from errscope._refs import _MISREAD, read_error_ref, read_partial_ref

__all__ = ["MODEL_TEXT", "Chain", "ExplainError", "QueryError", "find_chains", "render"]

MODEL_TEXT: Final = attr.ERRSCOPE_MODEL_TEXT
"""Log attribute of the text a host showed the model (``ToolClient`` writes it for every call that did
not succeed; a host may write it too), or that a server or ``errscope proxy`` shaped for it: section 1."""
FAILURE_LOGGER: Final = "errscope"
"""The logger (the records' instrumentation scope) of every failed call's one record (:mod:`errscope._telemetry`)."""
# A trace id inside what was pasted: a W3C ``traceparent`` ("00-<trace id>-<span id>-01", Trace Context §3.2) or a log
# line's ``trace_id=…``. 32 hex digits standing alone; the all-zero id is invalid (§3.2.2.3).
_TRACE_ID_IN: Final = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")


def _trace_id_in(text: str) -> str | None:
    """The trace id ``text`` is or holds (a ``traceparent`` header value, a log line), lower-cased; ``None`` if none."""
    found = _TRACE_ID_IN.search(text.lower())
    return found.group(0) if found and found.group(0) != "0" * 32 else None
_SPAN_ATTRIBUTES: Final = (
    attr.JSONRPC_REQUEST_ID,
    attr.ERRSCOPE_OUTCOME,
    attr.ERRSCOPE_CHANNEL,
    attr.ERRSCOPE_FAILURE_CLASS,
    attr.ERROR_TYPE,
    attr.RPC_RESPONSE_STATUS_CODE,
    attr.ERRSCOPE_RETRY_AFTER,
    attr.MCP_PROTOCOL_VERSION,
    attr.NETWORK_TRANSPORT,
    attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    attr.ERRSCOPE_IDEMPOTENT_REPLAY,
    attr.ERRSCOPE_FAILURE_REASON,
)


class ExplainError(Exception):
    """Nothing matches, or the query is not a ref, request id or trace id; ``str()`` is one line."""


class QueryError(ExplainError):
    """The query is no ref, request id or trace id at all (empty, a malformed ``ERR-``, a sentence without its ref):
    bad input, which ``errscope explain`` exits 2 for, where "not found" exits 1."""


@dataclass
class Chain:
    """Everything known about one tool call."""

    query: str
    error_ref: str | None
    trace_id: str
    model: list[LogRecord] = field(default_factory=list)
    tool: Span | None = None
    upstream: list[Span] = field(default_factory=list)
    logs: list[LogRecord] = field(default_factory=list)
    client: list[Span] = field(default_factory=list)
    host: list[Span] = field(default_factory=list)
    """Other spans carrying the ref (a host's own span for a failure no tool call recorded)."""
    relays: list[Span] = field(default_factory=list)
    """The SERVER spans of the hops the call passed through before the tool span (``errscope proxy``), outermost first."""
    cut_short: str | None = None
    """The start of the ref the query held, when it was cut short (``ERR-7K3M9``) and completed from the telemetry."""


def _is_tool_span(span: Span) -> bool:
    return span.get(attr.MCP_METHOD_NAME) == "tools/call"


def _server_spans(telemetry: Telemetry, spans: Iterable[Span]) -> list[Span]:
    return [s for s in spans if s.kind == SPAN_KIND_SERVER and _is_tool_span(s)]


def _innermost(telemetry: Telemetry, span: Span) -> Span:
    """The server that ran the call ``span`` served: down through the SERVER ``tools/call`` spans that are its
    direct children (a relay's hop: ``errscope proxy`` continues its trace into the server behind it, which adopts
    no new request of its own), the last one started. A gateway's tool that calls another server is another call:
    its CLIENT span stands between."""
    while hops := [s for s in telemetry.children(span) if s.kind == SPAN_KIND_SERVER and _is_tool_span(s)]:
        span = hops[-1]
    return span


def _relays(telemetry: Telemetry, tool: Span) -> list[Span]:
    """The SERVER ``tools/call`` spans the call passed through before ``tool`` (its direct ancestors), outermost first."""
    hops: list[Span] = []
    parent = telemetry.parent(tool)
    while parent is not None and parent.kind == SPAN_KIND_SERVER and _is_tool_span(parent):
        hops.insert(0, parent)
        parent = telemetry.parent(parent)
    return hops


def _calls(telemetry: Telemetry, servers: Iterable[Span]) -> list[Span]:
    """One tool span per call among ``servers``: each relay's hop and the server behind it are one call."""
    return list({(s.trace_id, s.span_id): s for s in (_innermost(telemetry, span) for span in servers)}.values())


def _chain(telemetry: Telemetry, query: str, trace_id: str, tool: Span | None, ref: str | None) -> Chain:
    tool = None if tool is None else _innermost(telemetry, tool)
    chain = Chain(query=query, error_ref=ref, trace_id=trace_id, tool=tool)
    if tool is not None:
        ref = ref or tool.get(attr.ERRSCOPE_ERROR_REF)
        chain.error_ref = ref
        chain.upstream = [s for s in telemetry.children(tool) if s.kind == SPAN_KIND_CLIENT]
        chain.relays = _relays(telemetry, tool)
    trace = telemetry.trace(trace_id) if trace_id else []
    client = [s for s in trace if s.kind == SPAN_KIND_CLIENT and _is_tool_span(s)]
    if tool is not None and client:
        parent = telemetry.parent(chain.relays[0] if chain.relays else tool)
        direct = [s for s in client if parent is not None and s.span_id == parent.span_id]
        tool_name = tool.get(attr.GEN_AI_TOOL_NAME)
        client = direct + [s for s in client if s not in direct and s.get(attr.GEN_AI_TOOL_NAME) == tool_name]
    client += _linked_attempts(telemetry, client)
    chain.client = sorted(client, key=lambda s: s.start)
    refs = {r for r in (ref, *(s.get(attr.ERRSCOPE_ERROR_REF) for s in chain.client)) if r}
    if tool is not None and tool.get(attr.ERRSCOPE_ERROR_REF):
        refs.add(tool.get(attr.ERRSCOPE_ERROR_REF))
    chain.host = [s for s in trace if s.kind == SPAN_KIND_INTERNAL and s.get(attr.ERRSCOPE_ERROR_REF) in refs]
    chain.logs = sorted((r for r in telemetry.logs if r.get(attr.ERRSCOPE_ERROR_REF) in refs and not _host_record(r)),
                        key=lambda r: r.time)
    model = [r for r in telemetry.logs if r.get(MODEL_TEXT) and (r.get(attr.ERRSCOPE_ERROR_REF) in refs
                                                                 or (trace_id and r.trace_id == trace_id))]
    chain.model = sorted(model, key=lambda r: r.time)
    return chain


def _host_record(record: LogRecord) -> bool:
    """A host's record of what it showed the model (section 1 only); the failure record of a server or of
    ``errscope proxy`` carries the text it shaped too, and stays a log record (section 4)."""
    return bool(record.get(MODEL_TEXT)) and record.scope != FAILURE_LOGGER


def _linked_attempts(telemetry: Telemetry, attempts: list[Span]) -> list[Span]:
    """The earlier attempts of the same logical call that ``attempts`` link to, transitively.

    A host with no span of its own around the call (a bare ``ToolClient``) starts every attempt as a new trace; a
    retry links to the attempts before it (OpenTelemetry span links), as a model-initiated retry that reuses the
    key links to the first call. Only CLIENT ``tools/call`` spans of the same tool are followed.
    """
    tools = {s.get(attr.GEN_AI_TOOL_NAME) for s in attempts}
    seen = {(s.trace_id, s.span_id) for s in attempts}
    todo = [s for s in attempts if s.links]
    if not todo:
        return []
    by_id = {(s.trace_id, s.span_id): s for s in telemetry.spans
             if s.kind == SPAN_KIND_CLIENT and _is_tool_span(s) and s.get(attr.GEN_AI_TOOL_NAME) in tools}
    found: list[Span] = []
    while todo:
        for trace_id, span_id, _ in todo.pop().links:
            other = by_id.get((trace_id, span_id))
            if other is not None and (trace_id, span_id) not in seen:
                seen.add((trace_id, span_id))
                found.append(other)
                todo.append(other)
    return found


def _by_ref(telemetry: Telemetry, ref: str) -> list[Chain]:
    spans = telemetry.spans_where(attr.ERRSCOPE_ERROR_REF, ref)
    servers = _calls(telemetry, _server_spans(telemetry, spans))
    if servers:
        return [_chain(telemetry, ref, s.trace_id, s, ref) for s in servers]
    for span in spans:  # a ref the client minted (timeout, lost session) or a host's step span
        trace = telemetry.trace(span.trace_id)
        tools = _server_spans(telemetry, trace)
        if span.kind == SPAN_KIND_CLIENT:
            tools = [s for s in tools if s.parent_span_id == span.span_id] or tools
        return [_chain(telemetry, ref, span.trace_id, tools[-1] if tools else None, ref)]
    records = telemetry.logs_where(attr.ERRSCOPE_ERROR_REF, ref)
    if records:  # a failure with no span (a malformed frame is answered before any request exists)
        trace_id = next((r.trace_id for r in records if r.trace_id), "")
        tools = _server_spans(telemetry, telemetry.trace(trace_id)) if trace_id else []
        return [_chain(telemetry, ref, trace_id, tools[-1] if tools else None, ref)]
    return []


def _by_request_id(telemetry: Telemetry, request_id: str) -> list[Chain]:
    spans = [s for s in telemetry.spans if _is_tool_span(s) and str(s.get(attr.JSONRPC_REQUEST_ID)) == request_id]
    servers = _calls(telemetry, _server_spans(telemetry, spans))
    if servers:
        return [_chain(telemetry, request_id, s.trace_id, s, None) for s in servers]
    return [_chain(telemetry, request_id, s.trace_id, None, s.get(attr.ERRSCOPE_ERROR_REF)) for s in spans]


def _by_trace_id(telemetry: Telemetry, trace_id: str) -> list[Chain]:
    trace = telemetry.trace(trace_id)
    if not trace:
        return []
    servers = _server_spans(telemetry, trace)
    failed = [s for s in servers if s.get(attr.ERRSCOPE_ERROR_REF)]
    if servers:
        return [_chain(telemetry, trace_id, trace_id, (failed or servers)[-1], None)]
    ref = next((s.get(attr.ERRSCOPE_ERROR_REF) for s in trace if s.get(attr.ERRSCOPE_ERROR_REF)), None)
    return [_chain(telemetry, trace_id, trace_id, None, ref)]


def _by_partial_ref(telemetry: Telemetry, partial: str) -> list[Chain]:
    """The chains of every ref in the telemetry that starts with ``partial``, each marked as completed from it."""
    refs = {r for item in (*telemetry.spans, *telemetry.logs)
            if isinstance(r := item.get(attr.ERRSCOPE_ERROR_REF), str) and r.startswith(partial)}
    chains = [chain for ref in sorted(refs) for chain in _by_ref(telemetry, ref)]
    for chain in chains:
        chain.cut_short = partial
    return chains


def _extent(telemetry: Telemetry) -> str:
    """Whose telemetry the files hold and from when to when (``" of host, payments, <first> to <last> UTC,"``): a "not
    found" then shows whether the call is older than the files, or another service's."""
    items = (*telemetry.spans, *telemetry.logs)
    services = sorted({item.service for item in items if item.service})
    times = sorted(t for t in (*(s.start for s in telemetry.spans), *(r.time for r in telemetry.logs)) if t)
    said = f" of {', '.join(services)}" if services else ""
    if times:
        first, last = (datetime.fromtimestamp(t / 1e9, timezone.utc) for t in (times[0], times[-1]))
        said += f", {first:%Y-%m-%d %H:%M:%S} to {last:%Y-%m-%d %H:%M:%S} UTC,"
    return said


def _searched(telemetry: Telemetry) -> str:
    return ", ".join(sorted({str(path.parent) for path in telemetry.files})) or "-"


def find_chains(telemetry: Telemetry, query: str) -> list[Chain]:
    """Chains for an error ref (``ERR-…``), a trace id (32 hex digits) or a JSON-RPC request id, in that order; a ref
    cut short (``ERR-7K3M9…``, :func:`errscope._refs.read_partial_ref`) gives the chains of every ref here that starts
    with it.

    Raises:
        QueryError: ``query`` holds no ref, trace id or request id that could match, or a ref cut short that no ref
            here starts with.
        ExplainError: nothing in the telemetry matches.
    """
    text = query.strip()
    ref = read_error_ref(text)
    if ref:
        chains = _by_ref(telemetry, ref)
        kind = "error ref"
        text = ref
    elif trace_id := _trace_id_in(text):
        chains = _by_trace_id(telemetry, trace_id)
        kind = "trace id"
        text = trace_id
    elif partial := read_partial_ref(text):
        chains = _by_partial_ref(telemetry, partial)
        kind = "error ref"
        if not chains:
            raise QueryError(f"{partial} is cut short ({len(partial) - 4} of a ref's 8 characters: a host, a preview or"
                             f" a screenshot cut it) and no ref in {_searched(telemetry)} starts with it; paste the"
                             " whole ref, or the JSON-RPC request id from the host's log")
    elif text and len(text) <= 128 and text.isprintable():
        chains = _by_request_id(telemetry, text)
        kind = "JSON-RPC request id"
    else:
        raise QueryError("give an error ref (ERR-XXXXXXXX), a JSON-RPC request id or a 32-digit trace id")
    if not chains and text.upper().startswith("ERR-") and not ref:
        raise QueryError(f"{text} is no error ref: ERR- and 8 characters of 0-9 and A-Z without U"
                         + _did_you_mean(telemetry, text[4:]))
    if not chains and kind == "JSON-RPC request id" and any(c.isspace() for c in text):
        # A sentence pasted from the chat without its "Ref ERR-…" (request ids are numbers or tokens): say what to give.
        raise QueryError(f"no error ref (ERR-XXXXXXXX), trace id or JSON-RPC request id in {text!r}; paste the"
                          " whole message the user saw, with its \"Ref ERR-…\", or the request id from the host's log")
    if not chains and kind == "error ref" and (near := _did_you_mean(telemetry, text[4:])):
        raise ExplainError(f"error ref {text} not found{near}")
    if not chains:
        raise ExplainError(
            f"{kind} {text} not found ({len(telemetry.spans)} spans and {len(telemetry.logs)} log records"
            f"{_extent(telemetry)} searched) in {_searched(telemetry)}; a call older than these records is not in"
            " these files (rotated, or exported elsewhere); a call made seconds"
            " ago may not be written yet (exporters write in batches and at exit; a Collector's tail sampling holds a trace"
            " for its decision wait, 10 s by default), else --from is not the folder"
            " its server and host export to"
            # A host's own refs (its timeout, its -32602 note) are recorded by the host alone; behind a host that
            # exports nothing, the server's or errscope proxy's record of that call is found by its request id.
            + ("; a ref the host made (a timeout, a rejected-arguments note) is only in the host's telemetry: find the"
               " server's record of that call by its JSON-RPC request id" if kind == "error ref" else "")
        )
    return chains


def _did_you_mean(telemetry: Telemetry, typed: str) -> str:
    """``"; did you mean ERR-…?"`` naming the refs in ``telemetry`` one keystroke from ``typed`` (the characters after
    ``ERR-``: one changed, swapped with its neighbour, left out or added), as a ref retyped from a screenshot is;
    ``""`` when none is."""
    typed = typed.replace("-", "").upper().translate(_MISREAD)
    known = {str(r) for r in (*(s.get(attr.ERRSCOPE_ERROR_REF) for s in telemetry.spans),
                              *(r.get(attr.ERRSCOPE_ERROR_REF) for r in telemetry.logs)) if r}
    near = sorted(ref for ref in known if _one_keystroke(typed, ref[4:]))
    return f"; did you mean {' or '.join(near)}?" if near else ""


def _one_keystroke(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one character changed, two neighbours swapped, or one left out or added."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


_CONTINUED: Final = "\n      "
"""How a value's further lines are indented: under its section, past the line's own indent."""


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, bool):
        return "true" if value else "false"
    # A message of several lines (httpx's "...\nFor more information check: ...") stays inside its section.
    return _CONTINUED.join(str(value).splitlines()) if isinstance(value, str) else str(value)


def _pairs(span_or_record: Span | LogRecord, keys: Iterable[str]) -> str:
    return "  ".join(f"{k}={_fmt(span_or_record.get(k))}" for k in keys if span_or_record.get(k) not in (None, ""))


def _no_answer(tool: Span | None, upstream: Span) -> str:
    # The tool span's side-effect fact says which side of "sent" the failure fell on; it is the failing request's
    # (status ERROR). A sibling request that ended without an answer or an error was abandoned when the tool failed
    # (a task group cancels the others): the failing one's fact says nothing of it.
    if not upstream.failed:
        return "no answer: abandoned (cancelled) before a response; it may have been sent"
    sent = tool.get(attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE) if tool is not None else None
    if sent is True:
        return "no answer after the request was sent: it may have been applied"
    if sent is False:
        return "no answer: the request never reached it"
    return "no answer (cancelled or failed before a response)"


def _status(span: Span) -> str:
    if span.failed:
        return f"ERROR {span.status_message}".rstrip().removesuffix(":")  # "ReadTimeout: " of an empty message
    return "OK" if span.status_code == 1 else "unset"


def _stop_reasons(chain: Chain, tool_name: str) -> list[str]:
    """Why the client sent no further attempt, from its record of what the model saw (``errscope.retry.stop_reason``)."""
    from errscope.client._retry import STOP_REASONS

    reasons = dict.fromkeys(str(r.get(attr.ERRSCOPE_RETRY_STOP_REASON)) for r in chain.model
                            if r.get(attr.ERRSCOPE_RETRY_STOP_REASON))
    return [f"   not retried automatically: {STOP_REASONS.get(reason, reason).format(tool=tool_name)} ({reason})"
            for reason in reasons]


def render(chain: Chain) -> str:
    """The chain as plain text, one section per link."""
    tool_name = (chain.tool.get(attr.GEN_AI_TOOL_NAME) if chain.tool else None) or next(
        (s.get(attr.GEN_AI_TOOL_NAME) for s in chain.client), None) or next(
        (r.get(attr.GEN_AI_TOOL_NAME) for r in chain.model), None) or "-"
    head = chain.error_ref or "(no error ref: the call succeeded or was not answered)"
    lines = [f"{head}  tool={tool_name}  trace={chain.trace_id or '-'}", ""]
    if chain.cut_short and chain.error_ref:
        lines.insert(1, f"(the query held {chain.cut_short}…, cut short: {chain.error_ref} is a ref here that starts so)")

    lines.append("1. what the model saw")
    if chain.model:
        for record in chain.model:
            lines.append(f"   {record.get(MODEL_TEXT)}")
            who = "shaped by " if record.scope == FAILURE_LOGGER else "service="
            lines.append(f"   ({_pairs(record, (attr.ERRSCOPE_OUTCOME, attr.JSONRPC_REQUEST_ID))}  {who}{record.service})")
    else:
        lines.append("   (not recorded: the host did not log the text it showed the model)")

    lines.append("2. tool span")
    if chain.tool is not None:
        span = chain.tool
        lines.append(f"   {span.name}  [{span.kind_name}, {span.service}]  {span.duration_ms:.1f} ms  status={_status(span)}")
        lines.append(f"   {_pairs(span, _SPAN_ATTRIBUTES)}")
        upstream = _pairs(span, (attr.ERRSCOPE_UPSTREAM_SYSTEM, attr.ERRSCOPE_UPSTREAM_STATUS,
                                 attr.ERRSCOPE_UPSTREAM_ADDRESS, attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE))
        lines.append(f"   {upstream or 'no upstream recorded'}")
        own = span.get(attr.ERRSCOPE_ERROR_REF)
        relay = next((r for r in chain.relays if r.get(attr.ERRSCOPE_ERROR_REF) == chain.error_ref), None)
        if own and chain.error_ref and own != chain.error_ref and relay is not None:
            lines.append(f"   the server's own ref for this call: {own} ({chain.error_ref} is {relay.service}'s, which"
                         " relayed the call)")
        elif own and chain.error_ref and own != chain.error_ref:
            # The client minted its ref (a timeout, a lost session) and the server then failed under its own.
            lines.append(f"   the server's own ref for this call: {own} (the host's {chain.error_ref} is the client's: "
                         "it gave up or lost the answer first)")
        for name, event in span.events:
            if name == "exception":  # the root cause; its stack trace is on the log record
                message = event.get(EXCEPTION_MESSAGE)
                lines.append(f"   root cause {event.get(EXCEPTION_TYPE)}" + (f": {_fmt(message)}" if message else ""))
                lines.append(f"   fingerprint {span.get(attr.ERRSCOPE_ERROR_FINGERPRINT, '-')}")
            elif name == attr.ERRSCOPE_FINISHED_AFTER_CANCEL:
                ended = event.get(attr.ERRSCOPE_OUTCOME)
                lines.append("   the tool ran to its end after the cancel" + (
                    ": it returned, so its effect happened and the answer was dropped" if ended == "ok"
                    else f" and ended {ended}"))
            else:
                lines.append(f"   event {name} {_fmt(event) if event else ''}".rstrip())
        for hop in chain.relays:  # one call, not several: the server above is the one that ran it
            seen = _pairs(hop, (attr.ERRSCOPE_UPSTREAM_SYSTEM, attr.ERRSCOPE_UPSTREAM_STATUS, attr.ERRSCOPE_UPSTREAM_ADDRESS))
            lines.append(f"   relayed by {hop.service}: {hop.name}  [{hop.kind_name}]  {hop.duration_ms:.1f} ms  "
                         f"status={_status(hop)}  {seen}".rstrip())
    else:
        lines.append("   (none: the server never started a tool call for this; see the log record)")

    lines.append("3. upstream")
    if chain.upstream:
        for span in chain.upstream:
            code = span.get(HTTP_RESPONSE_STATUS_CODE, span.get("http.status_code"))  # stable, then pre-1.21 name
            method = span.get(HTTP_REQUEST_METHOD, span.get("http.method", ""))
            url = span.get(URL_FULL, span.get("http.url", ""))
            answer = f"status {code}" if code is not None else _no_answer(chain.tool, span)
            lines.append(f"   {span.name}  [{span.kind_name}]  {method} {url}  {answer}  {span.duration_ms:.1f} ms  "
                         f"span status={_status(span)}")
    else:
        lines.append("   (no upstream call)")

    lines.append("4. log record")
    if chain.logs:
        for record in chain.logs:
            ref = record.get(attr.ERRSCOPE_ERROR_REF)
            lines.append(f"   {record.severity} {record.body}  ref={ref}  [{record.scope}, {record.service}]")
            detail = _pairs(record, (EXCEPTION_TYPE, EXCEPTION_MESSAGE, attr.ERRSCOPE_ERROR_FINGERPRINT,
                                     attr.ERRSCOPE_FAILURE_REASON, attr.ERRSCOPE_FAILURE_DETAIL,
                                     attr.RPC_RESPONSE_STATUS_CODE, attr.ERRSCOPE_UPSTREAM_SYSTEM,
                                     attr.ERRSCOPE_UPSTREAM_STATUS, attr.ERRSCOPE_UPSTREAM_ADDRESS,
                                     attr.ERRSCOPE_UPSTREAM_MESSAGE))
            if detail:
                lines.append(f"   {detail}")
    else:
        lines.append("   (no log record for this ref)")

    lines.append("5. client view")
    if chain.client:
        for span in chain.client:
            lines.append(f"   attempt {_fmt(span.get(attr.ERRSCOPE_ATTEMPT, 1))}: {span.name}  [{span.service}]  "
                         f"{span.duration_ms:.1f} ms  status={_status(span)}")
            detail = _pairs(span, (attr.JSONRPC_REQUEST_ID, attr.ERRSCOPE_OUTCOME, attr.ERRSCOPE_FAILURE_CLASS,
                                   attr.ERRSCOPE_ERROR_REF, attr.ERROR_TYPE, attr.ERRSCOPE_RETRY_AFTER,
                                   attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH))
            lines.append(f"   {detail}")
            for name, event in span.events:
                reason = event.get("reason")
                lines.append(f"   event {name}" + (f": {reason}" if reason else ""))
        attempts = len(chain.client)
        timeouts = sum(1 for s in chain.client if s.get(attr.ERRSCOPE_OUTCOME) == "timeout")
        keys = sorted({str(s.get(attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH)) for s in chain.client
                       if s.get(attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH)})
        lines.append(f"   {attempts} attempt{'s' if attempts != 1 else ''}, {attempts - 1} "
                     f"retr{'ies' if attempts != 2 else 'y'}, {timeouts} timeout{'s' if timeouts != 1 else ''}; "
                     f"idempotency key hash {', '.join(keys) or '-'}")
    elif chain.host:
        for span in chain.host:
            lines.append(f"   no tool call reached the wire; host span: {span.name}  [{span.kind_name}, {span.service}]  "
                         f"status={_status(span)}")
    else:
        lines.append("   (no client span in this folder)")
    lines.extend(_stop_reasons(chain, tool_name))
    return "\n".join(lines)
