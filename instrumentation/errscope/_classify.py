"""One classifier: every exception lands on exactly one :class:`~errscope.FailureClass`.

The mapping is a table (``_RULES``), looked up along the exception's MRO and along its chain
(:func:`walk`); wrappers defer inwards, and :func:`explain` also names the root cause. Users
extend it with :func:`register`. Nothing here imports a database driver: DB-API errors (PEP 249)
are recognised by their standard class names.

=====================================  ======================  ========================================
exception                              class                   source of the rule
=====================================  ======================  ========================================
errscope family (``NotFound``, ...)    the leaf's class        the author said so
``httpx.HTTPStatusError``              by status, see below    RFC 9110 §15
``httpx.TimeoutException``,            upstream_unavailable    the upstream did not answer
``httpx.NetworkError``, ``TransportError``
``TimeoutError`` (incl. asyncio)       upstream_unavailable
``ConnectionError``                    upstream_unavailable
``PermissionError``                    permission_denied
``FileNotFoundError``                  not_found
pydantic, jsonschema                   unknown                 raised in the tool: upstream or output data
``ValidationError``
the same, raised by a framework's      invalid_input           SEP-1303: the model can fix its input
argument validation (by where it arose)
PEP 249 ``OperationalError``,          upstream_unavailable    connection lost, server shutting down
``InterfaceError``, ``InternalError``
PEP 249 ``IntegrityError``,            invalid_input           duplicate key, bad value
``DataError``
PEP 249 ``ProgrammingError``,          unknown                 a bug on our side, not the caller's
``NotSupportedError``
``mcp`` ``MCPError``                   by JSON-RPC code        JSON-RPC 2.0 §5.1, MCP spec error codes
``mcp`` ``ToolError`` / wrappers       their ``__cause__``
anything else                          unknown                 a gap in the mapping: it is alerted on
=====================================  ======================  ========================================

HTTP statuses: 400/409/422 invalid_input, 401/403 permission_denied, 404/410 not_found,
429 rate_limited (``Retry-After`` parsed), 408 and 5xx upstream_unavailable, others unknown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final, TypeAlias

import httpx
import pydantic
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
)

from errscope._scrubbing import scrub
from errscope._exceptions import InvalidInput, RateLimited, ToolFailure
from errscope._vocabulary import FailureClass

__all__ = [
    "Classification",
    "FieldProblem",
    "Upstream",
    "argument_problems",
    "class_for_http_status",
    "class_for_jsonrpc_code",
    "classify",
    "explain",
    "http_address",
    "parse_retry_after",
    "register",
]

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
    """

    failure_class: FailureClass
    retry_after: float | None = None
    upstream: Upstream | None = None
    public_message: str | None = None
    fields: tuple[FieldProblem, ...] = ()

    def __post_init__(self) -> None:
        # retry_after comes from authors, user rules and upstream headers; it reaches the model text,
        # _meta and the span, so anything but a finite delay >= 0 (RFC 9110 §10.2.3) means "not said".
        if self.retry_after is not None:
            object.__setattr__(self, "retry_after", delay_seconds(self.retry_after))


def delay_seconds(value: object) -> float | None:
    """``value`` as a delay in seconds when it is a finite number >= 0, else ``None``."""
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
_MAX_CHAIN: Final = 16


def class_for_http_status(status: int) -> FailureClass:
    """Map an HTTP status code to a class (RFC 9110 §15); 2xx/3xx and unmapped 4xx are ``unknown``."""
    if status in (400, 409, 422):
        return FailureClass.INVALID_INPUT
    if status in (401, 403):
        return FailureClass.PERMISSION_DENIED
    if status in (404, 410):
        return FailureClass.NOT_FOUND
    if status == 429:
        return FailureClass.RATE_LIMITED
    if status == 408 or 500 <= status <= 599:
        return FailureClass.UPSTREAM_UNAVAILABLE
    return FailureClass.UNKNOWN


_JSONRPC_CLASSES: Final = {
    PARSE_ERROR: FailureClass.INVALID_INPUT,
    INVALID_REQUEST: FailureClass.INVALID_INPUT,
    INVALID_PARAMS: FailureClass.INVALID_INPUT,
    METHOD_NOT_FOUND: FailureClass.NOT_FOUND,
    RESOURCE_NOT_FOUND: FailureClass.NOT_FOUND,
    INTERNAL_ERROR: FailureClass.UNKNOWN,
    REQUEST_TIMEOUT: FailureClass.UPSTREAM_UNAVAILABLE,
    CONNECTION_CLOSED: FailureClass.UPSTREAM_UNAVAILABLE,
}


def class_for_jsonrpc_code(code: int) -> FailureClass:
    """Map a JSON-RPC error code (JSON-RPC 2.0 §5.1, MCP spec "Error Codes") to a class.

    -32001/-32000 are the SDK's local timeout and closed connection; a peer using that band for
    something else is indistinguishable by code alone (reference/mcp-sdk-2.3.md, pitfall 10).
    """
    return _JSONRPC_CLASSES.get(code, FailureClass.UNKNOWN)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse an HTTP ``Retry-After`` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.

    Returns seconds (>= 0), or ``None`` when absent or unparseable.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def http_address(url: httpx.URL) -> str:
    """``host[:port]`` of ``url``: never userinfo, path or query."""
    return f"{url.host}:{url.port}" if url.port else url.host


def _http_status_error(exc: BaseException) -> Classification:
    assert isinstance(exc, httpx.HTTPStatusError)
    response = exc.response
    cls = class_for_http_status(response.status_code)
    retry_after = parse_retry_after(response.headers.get("retry-after")) if cls is FailureClass.RATE_LIMITED else None
    upstream = Upstream("http", str(response.status_code), http_address(exc.request.url))
    return Classification(cls, retry_after=retry_after, upstream=upstream)


def _http_transport_error(exc: BaseException) -> Classification:
    assert isinstance(exc, httpx.TransportError)
    address = None
    try:
        address = http_address(exc.request.url)
    except RuntimeError:  # the error was raised without a request attached
        pass
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("http", type(exc).__name__, address))


def _tool_failure(exc: BaseException) -> Classification:
    assert isinstance(exc, ToolFailure)
    upstream = None
    if exc.upstream_status or exc.upstream_system:
        upstream = Upstream(exc.upstream_system, exc.upstream_status)
    fields: tuple[FieldProblem, ...] = ()
    if isinstance(exc, InvalidInput) and exc.field:
        fields = (FieldProblem(exc.field, exc.expected),)
    cause = classify(exc.__cause__) if exc.__cause__ is not None else None
    return Classification(
        exc.failure_class,
        retry_after=exc.retry_after if isinstance(exc, RateLimited) else (cause.retry_after if cause else None),
        upstream=upstream or (cause.upstream if cause else None),
        public_message=exc.public_message,
        fields=fields,
    )


def _pydantic_validation(exc: BaseException) -> Classification:
    # Raised inside the tool (upstream data, its own models) or by an output check: the model's
    # arguments were fine, so it is not invalid_input. The argument-validation seams of the
    # frameworks wrap theirs (see _mcp_tool_error, the FastMCP adapter): argument_problems.
    return _UNKNOWN


def argument_problems(exc: pydantic.ValidationError) -> Classification:
    """``invalid_input`` naming each wrong field, for a ``ValidationError`` of the *arguments*.

    Only an argument-validation seam calls this (where the error arose decides, not its text): a
    framework validating the call's arguments before the tool runs. Never echoes a value.
    """
    fields = tuple(
        FieldProblem(".".join(str(part) for part in error["loc"]) or "arguments", _PYDANTIC_EXPECTED.get(error["type"]))
        for error in exc.errors(include_input=False, include_url=False)
    )
    return Classification(FailureClass.INVALID_INPUT, fields=fields)


# pydantic error types -> what the value must be (https://docs.pydantic.dev/latest/errors/validation_errors/)
_PYDANTIC_EXPECTED: Final = {
    "missing": "present",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "datetime_type": "an ISO-8601 date-time",
    "datetime_parsing": "an ISO-8601 date-time",
    "date_parsing": "an ISO-8601 date",
}


def _mcp_error(exc: BaseException) -> Classification:
    assert isinstance(exc, MCPError)
    return Classification(class_for_jsonrpc_code(exc.code))


def _mcp_tool_error(exc: BaseException) -> Classification | None:
    # MCPServer wraps everything in ToolError/UnexpectedToolError; the cause says what happened.
    # Its argument validation (Tool.run) is the one plain ToolError over a pydantic error: the
    # caller's arguments; an UnexpectedToolError over one is the tool's body or its output.
    if type(exc) is ToolError and isinstance(exc.__cause__, pydantic.ValidationError):
        return argument_problems(exc.__cause__)
    if exc.__cause__ is not None:
        return None
    if str(exc).startswith("Unknown tool"):
        return Classification(FailureClass.NOT_FOUND)
    return Classification(FailureClass.UNKNOWN, public_message=str(exc))


_UNIQUE_KEY: Final = re.compile(r"Key \(([A-Za-z_][A-Za-z0-9_]*(?:, ?[A-Za-z_][A-Za-z0-9_]*)*)\)=")


def _dbapi_integrity(exc: BaseException) -> Classification:
    # PostgreSQL's detail names the violated key's columns, never just the value: keep the columns only.
    match = _UNIQUE_KEY.search(str(exc))
    status = _sqlstate(exc)
    upstream = Upstream("db", status) if status else None
    if match and "already exists" in str(exc):
        column = match.group(1)
        return Classification(
            FailureClass.INVALID_INPUT,
            upstream=upstream,
            public_message=f"a record with this {column} already exists",
            fields=(FieldProblem(column, "unique"),),
        )
    return Classification(FailureClass.INVALID_INPUT, upstream=upstream)


def _sqlstate(exc: BaseException) -> str | None:
    # psycopg 3 exposes .sqlstate, psycopg2 .pgcode; other drivers have neither.
    for attribute in ("sqlstate", "pgcode"):
        value = getattr(exc, attribute, None)
        if isinstance(value, str) and value:
            return value
    return None


def _dbapi(failure_class: FailureClass) -> Rule:
    def rule(exc: BaseException) -> Classification:
        status = _sqlstate(exc)
        return Classification(failure_class, upstream=Upstream("db", status) if status else None)

    return rule


def _fixed(failure_class: FailureClass) -> Rule:
    result = Classification(failure_class)
    return lambda exc: result


def _defer(exc: BaseException) -> None:
    return None


# PEP 249 standard exception names, matched by class name so no driver is imported.
_DBAPI_RULES: Final[dict[str, Rule]] = {
    "IntegrityError": _dbapi_integrity,
    "DataError": _dbapi(FailureClass.INVALID_INPUT),
    "OperationalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InterfaceError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InternalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "ProgrammingError": _dbapi(FailureClass.UNKNOWN),
    "NotSupportedError": _dbapi(FailureClass.UNKNOWN),
}

# Exceptions of optional libraries, matched by "module.qualname" so they are never imported here.
_NAMED_RULES: Final[dict[str, Rule]] = {
    "jsonschema.exceptions.ValidationError": _fixed(FailureClass.UNKNOWN),  # data inside the tool, not arguments
}

_RULES: dict[type[BaseException], Rule] = {
    ToolFailure: _tool_failure,
    httpx.HTTPStatusError: _http_status_error,
    httpx.TransportError: _http_transport_error,
    pydantic.ValidationError: _pydantic_validation,
    MCPError: _mcp_error,
    ToolError: _mcp_tool_error,
    TimeoutError: _fixed(FailureClass.UPSTREAM_UNAVAILABLE),
    ConnectionError: _fixed(FailureClass.UPSTREAM_UNAVAILABLE),
    PermissionError: _fixed(FailureClass.PERMISSION_DENIED),
    FileNotFoundError: _fixed(FailureClass.NOT_FOUND),
    BaseExceptionGroup: _defer,
}


def register(exc_type: type[BaseException], rule: FailureClass | Rule) -> None:
    """Teach :func:`classify` an exception type of your own.

    Args:
        exc_type: the exception class; subclasses match too, the most specific registration wins.
        rule: a :class:`FailureClass`, or a callable ``(exc) -> Classification | None`` where
            ``None`` defers to the exception's ``__cause__``.
    """
    _RULES[exc_type] = _fixed(rule) if isinstance(rule, FailureClass) else rule


def _lookup(exc: BaseException) -> Rule | None:
    for klass in type(exc).__mro__:
        rule = _RULES.get(klass)
        if rule is not None:
            return rule
        if klass.__module__ != "builtins":
            rule = _NAMED_RULES.get(f"{klass.__module__}.{klass.__qualname__}") or _DBAPI_RULES.get(klass.__name__)
            if rule is not None:
                return rule
    return None


def walk(exc: BaseException) -> list[BaseException]:
    """The exception chain of ``exc``, outermost first, at most 16 exceptions, each once.

    Follows what Python's own traceback printer follows (``traceback.TracebackException``): an
    exception group's members in order, then ``__cause__``, else ``__context__``, here even when
    ``raise ... from None`` suppressed it (the on-call engineer needs what the author hid from the
    model).
    """
    chain: list[BaseException] = []
    seen: set[int] = set()
    pending = [exc]
    while pending and len(chain) < _MAX_CHAIN:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        chain.append(current)
        following = current.__cause__ if current.__cause__ is not None else current.__context__
        if following is not None:
            pending.append(following)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(reversed(current.exceptions))  # depth first, first member first
    return chain


def classify(exc: BaseException) -> Classification:
    """Map any exception onto exactly one failure class, with what else it tells (see module table).

    Walks the chain (:func:`walk`); never raises.
    """
    return explain(exc)[0]


def explain(exc: BaseException) -> tuple[Classification, BaseException]:
    """Like :func:`classify`, also returning the root cause: the innermost meaningful exception.

    The class is decided by the first exception along :func:`walk` whose rule answers; wrappers
    (rules that return ``None``: ``UnexpectedToolError``, FastMCP's ``ToolError``, exception
    groups) defer inwards. The root cause is the innermost exception that is not such a wrapper,
    whether or not a rule matched it: ``UnexpectedToolError("Error executing tool x")`` says
    nothing, the ``RuntimeError`` it wraps does. Cancellation (``CancelledError``) is never the
    root. An author's own failure (the ``errscope`` family) is its own root: its message is what
    the author chose to record (the upstream's body, say), its cause is in the stack trace.
    """
    decided: tuple[Classification, BaseException] | None = None
    root = exc
    for current in walk(exc):
        rule = _lookup(current)
        result: Classification | None = _UNKNOWN
        if rule is not None:
            try:
                result = rule(current)
            except Exception:  # a broken user rule must not break the failure path
                result = _UNKNOWN
        if result is None:  # a wrapper: neither the decision nor the root
            continue
        if _meaningful(current):
            root = current
        if rule is not None:
            decided = result, current
            break
    if decided is None:  # nothing matched: the innermost of the whole chain explains it
        return _UNKNOWN, root
    if isinstance(decided[1], ToolFailure):  # the author wrote down what happened: that is the root
        return decided
    # The root sits below the deciding exception, on its own chain (not in a sibling group member).
    return decided[0], _innermost(decided[1])


_CONTROL_FLOW: Final = (StopIteration, StopAsyncIteration, BaseExceptionGroup)


def _meaningful(exc: BaseException) -> bool:
    # Cancellation (asyncio.CancelledError, GeneratorExit) is the mechanics of a timeout or a
    # teardown under the real failure, and a StopIteration under a library's `raise ... from None`
    # (json's decoder) the mechanics of a loop: never the cause.
    return isinstance(exc, Exception) and not isinstance(exc, _CONTROL_FLOW)


def _innermost(exc: BaseException) -> BaseException:
    # A wrapper always has something inside it (that is what it defers to), so the innermost
    # meaningful exception of a chain is never one.
    return next((e for e in reversed(walk(exc)) if _meaningful(e)), exc)
