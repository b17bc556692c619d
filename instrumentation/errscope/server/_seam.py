"""The seam every server style routes a tool invocation through: the one place that sees the exception.

It answers, for every framework alike:

- unknown tool: protocol channel, JSON-RPC -32602 ``Unknown tool: <name>``, class not_found, no
  tool code runs (MCP spec, Tools > Error Handling);
- arguments that break the input schema: execution channel, invalid_input, a schema-derived hint
  (SEP-1303);
- an exception from the tool: classified once, answered as an ``isError`` result whose text is
  shaped for the model and carries the error ref; ``_meta`` carries class, ref, retry-after and
  whether the side effect may have happened;
- an ``MCPError`` the tool raised on purpose: kept on the protocol channel, message scrubbed.
  *On purpose* means the tool's own code raised it (``raise MCPError(INVALID_PARAMS, ...)``); an
  ``MCPError`` raised by the SDK's session machinery (``mcp.client``, ``mcp.shared``) answers a
  request the tool sent to a peer (a downstream MCP server timing out with -32001, closing with
  -32000, or answering its own protocol error) and is the tool's failure: an ``isError`` result
  classified by its code. To forward a downstream's protocol error on purpose, raise a new
  ``MCPError`` from the tool's code (``raise MCPError(exc.code, exc.message) from exc``). Not on
  purpose either: -32700 Parse error and -32600 Invalid Request, which say the request itself could
  not be read (JSON-RPC 2.0 §5.1) while a request that reached the tool was; such an ``MCPError`` is
  the tool's failure, class unknown (a tool that could not parse its upstream's answer);
- a result that breaks the tool's declared ``outputSchema``, or lacks the ``structuredContent``
  a declared schema requires (MCP spec, Tools > Output Schema): not sent as a success but as an
  ``isError`` result, class unknown, reason ``invalid_result``, text "<tool> produced an invalid
  result", the broken fields on the log record only;
- an ``isError`` result the tool built itself: kept, its text scrubbed and given a ref.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    EmbeddedResource,
    TextContent,
    TextResourceContents,
)

from errscope import _attributes as attr
from errscope._call import ToolCall
from errscope._classify import Classification, FieldProblem, classify, explain, own_code, raised_in
from errscope._foreign_text import classify_text
from errscope._http import class_for_http_status
from errscope._messages import (
    MAX_PUBLIC_MESSAGE,
    field_sentence,
    invalid_result_message,
    model_message,
    unknown_tool_message,
)
from errscope._scrub_values import scrub_value
from errscope._scrubbing import scrub, without_stack_traces
from errscope._validation import FINITE, ArgumentValidator, non_finite_path
from errscope._vocabulary import Channel, FailureClass

__all__ = ["InvalidResult", "ToolInfo", "ToolSeam", "failure_meta", "idempotent_hint", "protocol_error"]

_MAX_TEXT: Final = 4096


INVALID_RESULT: Final = "invalid_result"
"""``errscope.failure_reason`` of a result that broke the tool's declared output schema."""
_PEER_MODULES: Final = ("mcp.client", "mcp.shared")
"""Where the SDK raises ``MCPError`` for a request this process sent: a peer's answer or a timeout."""
_FRAMEWORKS: Final = ("mcp.server", "fastmcp")
"""Where the server frameworks wrap a tool's exception (``__cause__`` holds the tool's own)."""
_ABOUT_THE_REQUEST: Final = frozenset({PARSE_ERROR, INVALID_REQUEST})
"""JSON-RPC codes that say the request could not be read (JSON-RPC 2.0 §5.1): false from a tool that ran."""


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """What the server declares about a tool: its name, JSON Schemas for arguments and result, and
    whether repeating it is safe (``annotations.idempotentHint``).

    ``output_schema`` is checked by the seam; ``None`` when undeclared, or when the framework
    checks it itself and reports a failure as :class:`InvalidResult`. ``package`` is the top-level package that
    defines the tool's function (or the low-level server's handler): its code is the tool's own, not a library's,
    even when the server is installed in site-packages beside them (``errscope._classify.own_code``).
    """

    name: str
    input_schema: Mapping[str, Any] | None = None
    idempotent: bool = False
    output_schema: Mapping[str, Any] | None = None
    package: str | None = None


def idempotent_hint(annotations: Any) -> bool:
    """``annotations.idempotentHint`` of a tool as the SDKs model it (snake or camel case); default false."""
    for name in ("idempotent_hint", "idempotentHint"):
        value = getattr(annotations, name, None)
        if value is not None:
            return value is True
    return False


class InvalidResult(Exception):
    """Raised by an adapter when its framework's own output check rejected the tool's result."""

    def __init__(self, problems: tuple[FieldProblem, ...]) -> None:
        super().__init__("the tool's result does not match its outputSchema")
        self.problems = problems


def failure_meta(call: ToolCall) -> dict[str, Any]:
    """The ``_meta`` errscope puts on a failed result (or JSON-RPC error ``data``) for clients."""
    assert call.classification is not None and call.channel is not None
    meta: dict[str, Any] = {
        attr.META_FAILURE_CLASS: call.classification.failure_class.value,
        attr.META_ERROR_REF: call.error_ref,
        attr.META_CHANNEL: call.channel.value,
    }
    if call.classification.retry_after is not None:
        meta[attr.META_RETRY_AFTER] = call.classification.retry_after
    if call.classification.side_effect_possible is not None:
        meta[attr.META_SIDE_EFFECT_POSSIBLE] = call.classification.side_effect_possible
    return meta


class ToolSeam:
    """Runs one tool invocation under errscope's rules. Stateless apart from compiled validators.

    Args:
        validate_arguments: check arguments against the declared input schema first.
    """

    def __init__(self, *, validate_arguments: bool = True) -> None:
        self.validator = ArgumentValidator() if validate_arguments else None

    def unknown_tool(self, call: ToolCall, name: str) -> MCPError:
        """Record an unknown tool on ``call`` and return the JSON-RPC error to raise."""
        call.known = False
        call.fail(Channel.PROTOCOL, Classification(FailureClass.NOT_FOUND), code=INVALID_PARAMS)
        return MCPError(INVALID_PARAMS, unknown_tool_message(name), data=failure_meta(call))

    async def run(
        self,
        call: ToolCall,
        name: str,
        info: ToolInfo | None,
        arguments: Any,
        invoke: Callable[[], Awaitable[Any]],
    ) -> Any:
        """Invoke the tool, or answer for it. ``info`` is ``None`` when the registry lacks ``name``.

        Raises:
            MCPError: for an unknown tool, or one the tool raised on purpose (scrubbed).
        """
        if info is None:
            raise self.unknown_tool(call, name)
        with own_code(info.package):  # what the tool's own code raised is read as the author's, not a library's
            return await self._run(call, name, info, arguments, invoke)

    async def _run(
        self,
        call: ToolCall,
        name: str,
        info: ToolInfo,
        arguments: Any,
        invoke: Callable[[], Awaitable[Any]],
    ) -> Any:
        if self.validator is not None:
            problems = self.validator.problems(info.input_schema, arguments if arguments is not None else {})
            if problems:
                return self.fail(call, name, Classification(FailureClass.INVALID_INPUT, fields=problems))
        try:
            result = await invoke()
        except MCPError as exc:
            if call.failed:  # already answered (an unknown tool found late): keep that answer
                raise
            if raised_in(exc, *_PEER_MODULES):  # a client inside the tool: the tool's failure, not its decision
                return self.fail(call, name, classify(exc), exc, idempotent=info.idempotent)
            if exc.code in _ABOUT_THE_REQUEST:
                return self.fail(call, name, Classification(FailureClass.UNKNOWN), exc, idempotent=info.idempotent)
            call.fail(Channel.PROTOCOL, classify(exc), code=exc.code, exception=exc)
            raise protocol_error(exc, call) from None
        except InvalidResult as exc:
            return self.invalid_result(call, name, exc.problems)
        except asyncio.CancelledError as exc:
            if _being_cancelled():
                raise  # the request itself is cancelled (the client's notifications/cancelled, shutdown)
            # Nobody cancelled this request: an operation inside the tool was (anyio's cancel scopes leak
            # CancelledError out of a failed connection, e.g. the tool's own MCP client). That is the tool's
            # failure; left to propagate, it ends the whole session (HKUDS/nanobot PR #1728, python-sdk #1830).
            classification, root = explain(exc)
            return self.fail(call, name, classification, exc, root=root, idempotent=info.idempotent)
        except BaseException as exc:
            if _from_outside(exc):
                raise
            lone = deliberate_protocol_error(exc)
            # the tool's own MCPError, wrapped by its task group: still the tool's decision
            if lone is not None and lone.code not in _ABOUT_THE_REQUEST:
                call.fail(Channel.PROTOCOL, classify(lone), code=lone.code, exception=lone)
                raise protocol_error(lone, call) from None
            # Any BaseException too: a library's sys.exit() inside one tool call is that call's failure,
            # not the end of the server and of every session on it (python-sdk #396), and so is a timeout
            # library's BaseException (gevent's Timeout, func_timeout's) or a task group's
            # BaseExceptionGroup holding one: none is an Exception, each passes `except Exception`.
            classification, root = explain(exc)
            return self.fail(call, name, classification, exc, root=root, idempotent=info.idempotent)
        if getattr(result, "is_error", False) is True:  # CallToolResult, or a framework's equivalent
            return self.own_error_result(call, result)
        structured = getattr(result, "structured_content", None)
        if isinstance(structured, (dict, list)):
            # NaN or Infinity in a result: no JSON number (RFC 8259 §6); serialised as null it breaks the declared
            # type at the host ("Invalid structured content"), or the frame. The tool's bug, told as one (J298).
            non_finite = non_finite_path(structured, [])
            if non_finite is not None:
                path = ".".join(map(str, ["structuredContent", *non_finite]))
                return self.invalid_result(call, name, (FieldProblem(path, FINITE),))
        if info.output_schema is not None and self.validator is not None and hasattr(result, "structured_content"):
            structured = result.structured_content
            problems = (
                self.validator.problems(info.output_schema, structured, root="structuredContent")
                if structured is not None
                else (FieldProblem("structuredContent", "present"),)
            )
            if problems:
                return self.invalid_result(call, name, problems)
        return result

    def invalid_result(self, call: ToolCall, name: str, problems: tuple[FieldProblem, ...]) -> CallToolResult:
        """Record a result that broke the declared output schema, and answer ``isError`` instead."""
        call.fail(Channel.EXECUTION, Classification(FailureClass.UNKNOWN))
        call.reason = INVALID_RESULT
        call.detail = field_sentence(problems)
        text = invalid_result_message(name, call.error_ref)
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=failure_meta(call))

    def fail(
        self,
        call: ToolCall,
        name: str,
        classification: Classification,
        exception: BaseException | None = None,
        *,
        root: BaseException | None = None,
        idempotent: bool = False,
    ) -> CallToolResult:
        """Record an execution failure on ``call`` (``root``: ``exception``'s root cause, when explained) and build the
        ``isError`` result the model reads."""
        call.fail(Channel.EXECUTION, classification, exception=exception, root=root)
        text = call.model_text = model_message(name, classification, call.error_ref, idempotent=idempotent)
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=failure_meta(call))

    def own_error_result(self, call: ToolCall, result: Any) -> CallToolResult:
        """The tool answered ``isError`` itself: keep it, scrub its text, add the ref.

        A class the tool declared under ``_meta[io.errscope/failure_class]`` is honoured; else its text is
        read with the client's rules, as a client or ``errscope proxy`` reads the same result. A text that
        names no cause (``unknown``) defers to the exception the tool logged with its traceback during the
        call (:attr:`errscope._call.ToolCall.logged`), classified as if raised, else to the last failing
        upstream status recorded during the call (:func:`_upstream_class`).
        """
        from errscope.client import _answer as answer

        failure_class = declared = answer.declared_class(result.meta or {})
        if failure_class is None:  # the tool ran: its text names no unknown tool, so no tool name is given
            # the structured body is read when no text tells the failure (MCP 2025-11-25, Tools > Structured Content)
            failure_class = answer.read_text(answer.text_of(result.content, result.structured_content), None).failure_class
        if declared is None and failure_class is FailureClass.UNKNOWN and call.logged is not None:
            # The text names no cause, but the tool logged the exception it caught (``logger.exception``):
            # that is the root cause, its class and its stack on the span and the log record.
            call.fail(Channel.EXECUTION, classify(call.logged), exception=call.logged)
        else:
            if declared is None and failure_class is FailureClass.UNKNOWN:
                # ... else the last failing status an upstream answered during the call (httpx's hooks,
                # record_upstream): the same status the span already carries as errscope.upstream.status.
                failure_class = _upstream_class(call)
            call.fail(Channel.EXECUTION, Classification(failure_class))
        content = [_scrubbed_block(block) for block in result.content]
        content.append(TextContent(type="text", text=f"Ref {call.error_ref}"))
        return CallToolResult(
            content=content,
            is_error=True,
            structured_content=_scrub_payload(result.structured_content),
            _meta={**_scrub_payload(dict(result.meta or {})), **failure_meta(call)},
        )


def _upstream_class(call: ToolCall) -> FailureClass:
    """The class of the last failing upstream status recorded on ``call``: an HTTP status by RFC 9110's
    table (:func:`errscope._http.class_for_http_status`), a named status (gRPC's ``UNAVAILABLE``) by the
    foreign-text rules; ``unknown`` when none failed."""
    upstream = call.upstream  # no classification yet: the last failing record, else the last one
    status = upstream.status if upstream is not None else None
    if not status or status.startswith(("1", "2", "3")):
        return FailureClass.UNKNOWN
    return class_for_http_status(int(status)) if status.isdigit() else classify_text(status)


def _scrubbed_block(block: Any) -> Any:
    # Text a client may show the model: text blocks and embedded text resources. Binary blocks
    # (image, audio, blob) pass unchanged: scrubbing base64 could only corrupt it.
    if isinstance(block, TextContent):
        return TextContent(type="text", text=scrub(block.text)[:_MAX_TEXT])
    if isinstance(block, EmbeddedResource) and isinstance(block.resource, TextResourceContents):
        resource = block.resource.model_copy(update={"text": scrub(block.resource.text)[:_MAX_TEXT]})
        return block.model_copy(update={"resource": resource})
    return block


def _scrub_payload(value: Any) -> Any:
    """:func:`scrub_value` for what a tool hands the client: no key is trusted (``request_id``
    in a tool's payload is just a name the tool chose), secret-bearing keys are redacted."""
    return scrub_value(value, trust_safe_keys=False)


def deliberate_protocol_error(exc: BaseException) -> MCPError | None:
    """The ``MCPError`` a tool raised on purpose inside a task group, when that is the whole failure.

    anyio and ``asyncio.TaskGroup`` wrap even one failing task in an exception group (PEP 654), and the
    frameworks wrap that again (MCPServer's ``UnexpectedToolError``, FastMCP's ``ToolError``, followed by
    ``__cause__``). A group whose only member that is not a cancellation is an ``MCPError`` the tool's own
    code raised (its innermost frame outside the SDK and the frameworks: not a peer's answer to a client
    inside the tool, nor a downstream server run in process) keeps the protocol channel the tool chose, e.g. -32042 with its consent URL (MCP 2025-11-25, Elicitation > URL mode; tests/heldout_cases.md
    J96). Any other group is an execution failure, classified by its members.
    """
    current: BaseException | None = exc
    while current is not None and not isinstance(current, BaseExceptionGroup) and raised_in(current, *_FRAMEWORKS):
        current = current.__cause__
    if not isinstance(current, BaseExceptionGroup):
        return None
    cancelled = anyio.get_cancelled_exc_class()
    members = [leaf for leaf in _leaves(current) if not isinstance(leaf, cancelled)]
    lone = members[0] if len(members) == 1 else None
    return lone if isinstance(lone, MCPError) and not raised_in(lone, "mcp", *_FRAMEWORKS) else None


def _leaves(group: BaseExceptionGroup[Any]) -> Iterator[BaseException]:
    for member in group.exceptions:
        if isinstance(member, BaseExceptionGroup):
            yield from _leaves(member)
        else:
            yield member


def _from_outside(exc: BaseException) -> bool:
    """Whether ``exc`` (or a leaf of its group) must pass the seam: it comes from outside the tool. That is
    ``KeyboardInterrupt``, ``GeneratorExit`` (the coroutine is being closed) and the cancellation of this
    request (the running backend's cancel exception while the task is being cancelled)."""
    leaves = list(_leaves(exc)) if isinstance(exc, BaseExceptionGroup) else [exc]
    cancelled = (asyncio.CancelledError, anyio.get_cancelled_exc_class())
    return any(isinstance(leaf, (KeyboardInterrupt, GeneratorExit)) for leaf in leaves) or (
        any(isinstance(leaf, cancelled) for leaf in leaves) and _being_cancelled()
    )


def _being_cancelled() -> bool:
    """Whether the running task has a cancellation requested (``Task.cancelling``, Python 3.11): the way to
    tell a cancellation of this request from a ``CancelledError`` raised by an operation inside it."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no asyncio loop (trio): its Cancelled is not asyncio's CancelledError
        return True
    return task is None or task.cancelling() > 0


def protocol_error(exc: MCPError, call: ToolCall) -> MCPError:
    """``exc`` as the peer gets it: its code, its message scrubbed with the call's ref appended, its
    data scrubbed (stack-trace fields dropped) with the failure ``_meta`` merged in.

    For an ``MCPError`` a tool raised on purpose and for one raised outside the tool seam alike (a
    resource or prompt handler; FastMCP turns every resource failure into one): a failure the user
    may report carries the ref its span and log record have (DESIGN.md, error ref).
    """
    return MCPError(exc.code, f"{scrub(exc.message)[:MAX_PUBLIC_MESSAGE]} (Ref {call.error_ref})", data=_protocol_data(exc.data, call))


def _protocol_data(data: Any, call: ToolCall) -> dict[str, Any]:
    meta = failure_meta(call)
    if isinstance(data, Mapping):
        return {**_scrub_payload(without_stack_traces(data)), **meta}
    if data is None:
        return meta
    return {"detail": _scrub_payload(without_stack_traces(data)), **meta}
