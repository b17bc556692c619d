"""The scripted agent: a host calling the refund server through :class:`errscope.client.ToolClient`.

It plays the model's part in the design's whole flow, one step per message the model reads:

1. a corrupted (non-JSON) frame reaches the server;
2. a call to ``refund_payment``, a name from a stale tool list;
3. ``amount`` sent as the string ``"40"``;
4. an order that belongs to another tenant;
5. a rate limit (``Retry-After`` too long for the client to wait out);
6. an upstream outage (the client retries on its own: the call carries an idempotency key);
7. an HTML maintenance page where the tool expects JSON, on every attempt: the upstream's fault,
   ``upstream_unavailable`` (retried with the same key: the tool is safe to repeat), and the root
   cause (``JSONDecodeError``) and its fingerprint on the span and log;
8. a server-side read timeout: ``notify_customer`` (not safe to repeat) gives up on the payments
   API, which took the message and stalled; the client does not retry it, and the model reads that
   the message may have gone out;
9. a late answer: ``order_receipt`` blocks the server's event loop (a sync HTTP call in ``async def``)
   past the client's timeout, so its answer arrives after the client gave up and is recorded;
10. a stall past the client's timeout (the refund went through, the answer never came);
11. the model's retry with the same idempotency key: the refund, exactly once.

Each step runs in its own trace (an INTERNAL ``demo step`` span the client spans nest under) and
ends with one log record of what the model was shown (:data:`MODEL_TEXT`: ``ToolClient``'s for a call
that did not succeed, the agent's otherwise), so ``errscope explain`` can show the model's side next to
the server's.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

import anyio
import httpx
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, Tool
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from errscope import _attributes as attr
from errscope._classify import class_for_jsonrpc_code
from errscope._explain import MODEL_TEXT
from errscope._refs import ERROR_REF_PATTERN, new_error_ref
from errscope._streams import ReceiveStreamProxy
from errscope._vocabulary import Channel, Outcome
from errscope.client import ConnectionState, RetryPolicy, TimeoutPolicy, ToolCallResult, ToolClient, key_hash

__all__ = ["CLIENT_TIMEOUT", "MODEL_TEXT", "STEPS", "AgentError", "AgentNote", "FrameInjector", "run_agent"]

STEP: Final = "errscope.demo.step"
"""Log and span attribute: which step of the script this is."""

CLIENT_TIMEOUT: Final = 2.5
"""The client's idle timeout in seconds (room for a loaded 2-core machine); the payments API's stall is longer."""
STALL_SECONDS: Final = 8.0
RATE_LIMIT_RETRY_AFTER: Final = 30
"""Longer than the client's ``max_rate_limit_wait``, so the model hears about it."""
NOTIFY_STALL: Final = 3.0
"""Seconds the payments API holds a notification's answer: past ``notify_customer``'s own 1 s read timeout."""
RECEIPT_STALL: Final = CLIENT_TIMEOUT + 1.0
"""Seconds the receipt takes; ``order_receipt`` blocks the refund server that long, the client gives up before."""
NOTIFY_MESSAGE: Final = "Your refund of 40.00 EUR is on its way."
STALE_TOOL: Final = "refund_payment"
"""The tool's name before the server renamed it to ``refund_order``."""
REFUND_ORDER: Final = "ord_1001"
OTHER_TENANT_ORDER: Final = "ord_2002"
AMOUNT: Final = 40.0

STEPS: Final = (
    ("corrupted_frame", "a corrupted (non-JSON) frame"),
    ("stale_tool", "a tool name from a stale list"),
    ("amount_as_string", 'amount sent as the string "40"'),
    ("other_tenant", "another tenant's order"),
    ("rate_limit", "a rate limit"),
    ("outage", "an upstream outage"),
    ("unexpected_answer", "an answer the tool does not expect"),
    ("notify_timeout", "a server-side read timeout (not safe to repeat)"),
    ("late_answer", "an answer after the client gave up"),
    ("stall", "a stall past the client timeout"),
    ("retry_same_key", "the retry with the same idempotency key"),
)
"""(step id, what it shows), in order."""

_log = logging.getLogger("errscope.demo.agent")


class AgentError(Exception):
    """The agent could not walk its script (no refund server, the payments API gone); ``str()`` is one line."""


@dataclass
class AgentNote:
    """One message the model saw, with what the host knows about it."""

    step: str
    tool: str
    text: str
    outcome: str
    round: int = 1
    channel: str | None = None
    failure_class: str | None = None
    error_ref: str | None = None
    request_ids: list[str] = field(default_factory=list)
    trace_id: str = ""
    attempts: int = 1
    idempotency_key_hash: str | None = None
    retry_after: float | None = None
    logged_by_client: bool = field(default=False, repr=False)
    """``ToolClient`` logged what the model saw (every call that did not succeed): the agent does not repeat it."""

    def to_json(self) -> dict[str, Any]:
        note = asdict(self)
        del note["logged_by_client"]
        return note


class _RawFrame:
    """Stands in for a JSON-RPC message: the SDK's stdio writer sends ``model_dump_json()`` verbatim."""

    def __init__(self, text: str) -> None:
        self.text = text

    def model_dump_json(self, **_: Any) -> str:
        return self.text

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return {"raw": self.text}


class FrameInjector:
    """A transport factory for :class:`ToolClient` around the SDK's stdio client that can also write a
    raw line to the server and hands back the id-less JSON-RPC errors the server answers with.

    ``mcp.Client`` drops a response whose id is ``null`` (JSON-RPC 2.0 §5: the server could not read
    the id); a host that sends a frame by hand, as this demo does, must watch for it itself.
    """

    def __init__(self, params: StdioServerParameters) -> None:
        self.params = params
        self._write: Any = None
        self._orphans_send, self._orphans = anyio.create_memory_object_stream[JSONRPCError](16)

    def __call__(self) -> Any:
        @asynccontextmanager
        async def transport() -> AsyncIterator[Any]:
            async with stdio_client(self.params, errlog=open(os.devnull, "w")) as (read, write):  # noqa: SIM115
                self._write = write
                yield _Watched(read, self), write

        return transport()

    def _seen(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCError) and message.id is None:
            try:
                self._orphans_send.send_nowait(message)
            except anyio.WouldBlock:
                pass

    async def send_raw(self, line: str, *, wait: float = 5.0) -> JSONRPCError | None:
        """Write ``line`` as one frame and return the id-less error the server answers, if any."""
        if self._write is None:
            raise RuntimeError("the client is not connected")
        await self._write.send(SessionMessage(_RawFrame(line)))  # type: ignore[arg-type]
        with anyio.move_on_after(wait):
            return await self._orphans.receive()
        return None


class _Watched(ReceiveStreamProxy):
    def __init__(self, inner: Any, owner: FrameInjector) -> None:
        super().__init__(inner)
        self._owner = owner

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._owner._seen(item)
        return item


@dataclass
class Target:
    """Where the refund server is: a stdio command, or a streamable HTTP URL."""

    stdio: StdioServerParameters | None = None
    url: str | None = None


Progress = Callable[[str, str], None]


async def run_agent(
    target: Target,
    payments_url: str,
    *,
    on_step: Progress | None = None,
    before_steps: Callable[[], Awaitable[None]] | None = None,
    rounds: int = 1,
) -> list[AgentNote]:
    """Walk :data:`STEPS` against the refund server; return one note per message the model saw.

    ``before_steps`` runs once the client is connected (the demo waits for the payments API there,
    so both processes boot at the same time). ``rounds`` repeats the script on the same connection
    (``make stack`` uses it, so every server-side series grows while one server process lives).
    """
    tracer = trace.get_tracer("errscope.demo.agent")
    notes: list[AgentNote] = []
    injector = FrameInjector(target.stdio) if target.stdio is not None else None
    server: Any = injector if injector is not None else target.url
    client = ToolClient(
        server,
        timeout=TimeoutPolicy(idle=CLIENT_TIMEOUT, ceiling=4 * CLIENT_TIMEOUT),
        # The stall is left to the model (the next step retries it with the same key), not retried here.
        retry=RetryPolicy(max_attempts=3, budget=8.0, max_rate_limit_wait=5.0, backoff_initial=0.2, backoff_max=1.0,
                          retry_timeouts=False),
        late_response_grace=0.2,
        connect_timeout=60.0,
    )
    if injector is not None:
        client.target = replace(client.target, display="refund server (stdio)", transport="pipe")
    # The listing the model's prompt was built from, saved by the host before the server renamed the
    # tool: the fresh listing on connect retires refund_payment, so the model hears "no longer available".
    client.catalog.replace([Tool(name=STALE_TOOL, input_schema={"type": "object"})])
    failure: Exception | None = None
    where = {"step": "connect"}
    async with httpx.AsyncClient(base_url=payments_url, timeout=10) as admin, client:
        try:
            if before_steps is not None:
                await before_steps()
            if client.state is not ConnectionState.CONNECTED:
                raise AgentError(f"could not connect to the refund server ({client.target.display})")

            async def arm(kind: str, count: int, **options: Any) -> None:
                response = await admin.post("/_admin/faults", json={"kind": kind, "count": count, **options})
                response.raise_for_status()

            async def step(name: str, body: Callable[[], Awaitable[AgentNote]]) -> AgentNote:
                where["step"] = name
                if on_step is not None:
                    on_step(name, dict(STEPS)[name])
                attributes = {STEP: name}
                with tracer.start_as_current_span(f"demo step {name}", kind=SpanKind.INTERNAL, attributes=attributes) as span:
                    note = await body()
                    note.step = name
                    note.round = current["round"]
                    note.trace_id = format(span.get_span_context().trace_id, "032x")
                    if note.error_ref:
                        span.set_attribute(attr.ERRSCOPE_ERROR_REF, note.error_ref)
                        span.set_status(StatusCode.ERROR, note.failure_class or note.outcome)
                    if not note.logged_by_client:
                        _shown_to_model(note)
                notes.append(note)
                return note

            last: dict[str, ToolCallResult] = {}
            current = {"round": 1}

            async def call(arguments: dict[str, Any], *, tool: str = "refund_order", key: str | None = None) -> AgentNote:
                result = await client.call_tool(tool, arguments, idempotency_key=key)
                last["result"] = result
                return _note(result)

            for number in range(1, rounds + 1):
                current["round"] = number
                await step("corrupted_frame", lambda: _corrupted_frame(injector, target.url))
                await step("stale_tool", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}, tool=STALE_TOOL))
                await step("amount_as_string", lambda: call({"order_id": REFUND_ORDER, "amount": "40"}))
                await step("other_tenant", lambda: call({"order_id": OTHER_TENANT_ORDER, "amount": AMOUNT}))
                await arm("rate_limit", 1, retry_after=RATE_LIMIT_RETRY_AFTER)
                await step("rate_limit", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}))
                await arm("outage", 3)
                await step("outage", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}))
                await admin.delete("/_admin/faults")
                await arm("maintenance", 3)  # the deploy outlasts the client's three attempts
                await step("unexpected_answer", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}))
                await arm("stall", 1, seconds=NOTIFY_STALL)
                await step("notify_timeout", lambda: call({"order_id": REFUND_ORDER, "message": NOTIFY_MESSAGE},
                                                          tool="notify_customer"))
                # Its answer comes during the next step, while the client reads the connection.
                await arm("stall", 1, seconds=RECEIPT_STALL)
                await step("late_answer", lambda: call({"order_id": REFUND_ORDER}, tool="order_receipt"))
                await arm("stall", 1, seconds=STALL_SECONDS)
                await step("stall", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}))
                # The model was told the refund may have happened; it retries the same logical call.
                stalled_key = last["result"].idempotency_key
                await step("retry_same_key", lambda: call({"order_id": REFUND_ORDER, "amount": AMOUNT}, key=stalled_key))
        except Exception as exc:  # re-raised below, outside the client's task group (no exception group)
            failure = exc
    if isinstance(failure, AgentError):
        raise failure
    if failure is not None:
        raise AgentError(f"the agent stopped at step {where['step']}: {type(failure).__name__}: {failure}") from failure
    return notes


def _note(result: ToolCallResult) -> AgentNote:
    return AgentNote(
        step="",
        tool=result.tool,
        text=result.text,
        outcome=result.outcome.value,
        channel=result.channel.value if result.channel else None,
        failure_class=result.failure_class.value if result.failure_class else None,
        error_ref=result.error_ref,
        request_ids=[str(i) for i in result.request_ids],
        attempts=result.attempts,
        idempotency_key_hash=key_hash(result.idempotency_key) if result.idempotency_key else None,
        retry_after=result.retry_after,
        logged_by_client=not result.ok,
    )


_CORRUPTED: Final = '{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "refund_order", "argum'
"""A tools/call frame cut short in transit: not JSON."""


async def _corrupted_frame(injector: FrameInjector | None, url: str | None) -> AgentNote:
    code: int | None = None
    message = ""
    if injector is not None:
        answer = await injector.send_raw(_CORRUPTED)
        if answer is not None:
            code, message = answer.error.code, answer.error.message
    elif url is not None:
        async with httpx.AsyncClient(timeout=10) as http:
            response = await http.post(url, content=_CORRUPTED.encode(), headers={
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        try:
            error = response.json().get("error") or {}
            code, message = int(error.get("code")), str(error.get("message", ""))
        except (ValueError, TypeError, AttributeError):
            code, message = None, ""
    found = ERROR_REF_PATTERN.search(message)
    ref = found.group(0) if found else new_error_ref()  # the host mints one when the server gave none
    if code is None:
        text = f"refund_order could not be sent: the tool server did not answer a malformed request. Ref {ref}."
        return AgentNote(step="", tool="refund_order", text=text, outcome=Outcome.TIMEOUT.value,
                         failure_class="upstream_unavailable", error_ref=ref, request_ids=["null"])
    text = (f"refund_order was not sent: the request was corrupted on the way and the server could not read it "
            f"(JSON-RPC {code}). Nothing ran; it is safe to call again. Ref {ref}.")
    return AgentNote(step="", tool="refund_order", text=text, outcome=Outcome.ERROR.value,
                     channel=Channel.PROTOCOL.value, failure_class=class_for_jsonrpc_code(code).value,
                     error_ref=ref, request_ids=["null"])


def _shown_to_model(note: AgentNote) -> None:
    extra: dict[str, Any] = {
        STEP: note.step,
        MODEL_TEXT: note.text,
        attr.GEN_AI_TOOL_NAME: note.tool,
        attr.ERRSCOPE_OUTCOME: note.outcome,
        attr.JSONRPC_REQUEST_ID: ",".join(note.request_ids),
        "errscope.attempts": note.attempts,
    }
    for key, value in (
        (attr.ERRSCOPE_ERROR_REF, note.error_ref),
        (attr.ERRSCOPE_CHANNEL, note.channel),
        (attr.ERRSCOPE_FAILURE_CLASS, note.failure_class),
        (attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH, note.idempotency_key_hash),
    ):
        if value is not None:
            extra[key] = value
    _log.info("tool result shown to the model", extra=extra)

