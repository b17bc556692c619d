"""The state of one server-side tool call, shared by the adapter's layers through a context variable.

The middleware opens it, the seam that sees the tool's exception fills in the classification,
upstream hooks add what the backing service said, and the recorder turns it into one span, one
metric point and, on failure, one log record.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from errscope._classify import Classification, Upstream
from errscope._refs import new_error_ref
from errscope._vocabulary import Channel, Outcome

__all__ = ["ToolCall", "current_call", "note_logged", "record_upstream"]


@dataclass(slots=True)
class ToolCall:
    """Facts about one ``tools/call`` as they become known. Times are in seconds."""

    tool: str | None
    known: bool = True
    request_id: str | None = None
    outcome: Outcome = Outcome.OK
    channel: Channel | None = None
    classification: Classification | None = None
    error_code: int | None = None
    exception: BaseException | None = None
    root: BaseException | None = None
    """The root cause of :attr:`exception` as the classification decided it (:func:`errscope._classify.explain`,
    under the tool's own-code context), when the seam explained it: the span and the log record read this one rather
    than explain the exception again (three walks of its chain a failure, each a pass of the text rules)."""
    reason: str | None = None
    """A sub-reason errscope decided (``invalid_result``), with ``detail`` for the log record only."""
    detail: str | None = None
    upstreams: list[Upstream] = field(default_factory=list)
    upstream_message: str | None = None
    """What the upstream said (the proxy's relayed server): log record only
    (:data:`errscope._attributes.ERRSCOPE_UPSTREAM_MESSAGE`), scrubbed again and cut where it is written."""
    model_text: str | None = None
    """The ``isError`` text this side shaped for the model, ref included: the failure log record carries it
    (:data:`errscope._attributes.ERRSCOPE_MODEL_TEXT`), so ``errscope explain`` shows what the model saw even when
    the host logged nothing."""
    idempotency_key_hash: str | None = None
    replayed: bool = False
    logged: BaseException | None = None
    """The last exception the tool's code logged with its traceback at ERROR or above during the call
    (``logger.exception(...)`` after catching it): the root cause of an ``isError`` result whose text names
    none ("Failed to create the issue."). Set by :func:`note_logged`."""
    finished_after_cancel: Outcome | None = None
    """How the handler ended when it ran to its end after the request was cancelled (a sync tool runs on in its worker
    thread): ``ok`` means it returned, so its effect happened and its answer was dropped. Set by :meth:`cancel`."""
    _error_ref: str | None = field(default=None, init=False, repr=False)

    @property
    def error_ref(self) -> str:
        """The call's ref (``ERR-7K3M9QXZ``), shown only on failure.

        Drawn on first read and fixed from then on, so every log line of the call and its answer
        quote the same ref, and a call that succeeds without logging draws none.
        """
        if self._error_ref is None:
            self._error_ref = new_error_ref()
        return self._error_ref

    @error_ref.setter
    def error_ref(self, ref: str) -> None:
        self._error_ref = ref

    def fail(
        self,
        channel: Channel,
        classification: Classification,
        *,
        code: int | None = None,
        exception: BaseException | None = None,
        root: BaseException | None = None,
    ) -> None:
        """Record the failure; the first one recorded wins (an outer layer never overwrites it)."""
        if self.channel is not None:
            return
        self.outcome = Outcome.ERROR
        self.channel = channel
        self.classification = classification
        self.error_code = code
        self.exception = exception
        self.root = root

    def cancel(self) -> None:
        """End the call as cancelled, whatever its handler did after the cancel: the request gets no
        answer (MCP spec, Cancellation), so no failure or ref reaches anyone. A sync tool runs on in its
        worker thread after ``notifications/cancelled`` and may fail there (tests/heldout_cases.md J94); how it
        ended is kept in :attr:`finished_after_cancel`, for the on-call engineer asking whether it took effect."""
        if self.outcome is not Outcome.CANCELLED:
            self.finished_after_cancel = self.outcome
        self.outcome = Outcome.CANCELLED
        self.channel = self.classification = self.error_code = self.exception = self.root = None
        self.reason = self.detail = None

    @property
    def failed(self) -> bool:
        return self.channel is not None

    @property
    def upstream(self) -> Upstream | None:
        """The upstream that explains the call.

        What the tool's code recorded (hooks, :func:`record_upstream`) names the system and address
        best; the status is the classified exception's, else the last failing record's. The three
        always describe one event: a record of another address than the classified exception's (a
        sibling request of a task group, an earlier call that succeeded) is not merged into it, so a
        refused connection to one host is never shown with the 404 another host answered.
        """
        explicit = self.classification.upstream if self.classification is not None else None
        if not self.upstreams:
            return explicit
        candidates = self.upstreams
        if explicit is not None and explicit.address is not None:
            candidates = [u for u in self.upstreams if u.address in (None, explicit.address)]
            if not candidates:
                return explicit
        recorded = next(
            (u for u in reversed(candidates) if u.status and not u.status.startswith(("1", "2", "3"))),
            candidates[-1],
        )
        if explicit is None:
            return recorded
        return Upstream(recorded.system or explicit.system, explicit.status or recorded.status, recorded.address or explicit.address)


_current: ContextVar[ToolCall | None] = ContextVar("errscope_tool_call", default=None)


def current_call() -> ToolCall | None:
    """The tool call being served in this context, or ``None`` outside one."""
    return _current.get()


def bind_call(call: ToolCall | None) -> object:
    """Make ``call`` current; returns a token for :func:`unbind_call`."""
    return _current.set(call)


def unbind_call(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


def record_upstream(system: str, status: str | int | None, address: str | None = None) -> None:
    """Record what a non-HTTP upstream said, onto the current tool span.

    Args:
        system: ``postgresql``, ``redis``, ``grpc``, ... (OpenTelemetry ``db.system.name`` style values).
        status: the upstream's own status: ``"57P01"``, ``"UNAVAILABLE"``, ``503``.
        address: ``host[:port]``; anything after a ``/``, ``?`` or ``@`` is dropped so no path,
            query or userinfo is ever recorded.

    Outside a tool call this does nothing.
    """
    call = _current.get()
    if call is None:
        return
    call.upstreams.append(Upstream(system, None if status is None else str(status), _host_port(address)))


def note_logged(exc: BaseException) -> None:
    """Keep ``exc``, an exception logged with its traceback during the current tool call, as
    :attr:`ToolCall.logged`; outside a tool call this does nothing."""
    call = _current.get()
    if call is not None:
        call.logged = exc


def _host_port(address: str | None) -> str | None:
    if not address:
        return None
    address = address.split("://", 1)[-1]
    address = address.rsplit("@", 1)[-1]
    for stop in "/?#":
        address = address.split(stop, 1)[0]
    return address or None
