""":func:`explain`, the entry point: the first rule along the chain that answers decides; the root cause is
the innermost meaningful exception.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Final

from errscope._classify import _core
from errscope._classify._chain import path_to, walk
from errscope._classify._core import Classification, Upstream, _UNKNOWN
from errscope._classify._databases import _db_address, leading_server
from errscope._classify._facts import (
    _frame_address,
    _raised_connecting,
    _request_address,
    frame_endpoint,
    raised_opening,
)
from errscope._classify._http_errors import _held_answer
from errscope._classify._library_words import _library_module, _library_words
from errscope._classify._names import _by_name, _carried_delay
from errscope._classify._table import _lookup
from errscope._exceptions import ToolFailure
from errscope._vocabulary import FailureClass


def explain(exc: BaseException) -> tuple[Classification, BaseException]:
    """Like :func:`classify`, also returning the root cause: the innermost meaningful exception.

    The class is decided by the first exception along :func:`walk` whose rule answers; wrappers
    (rules that return ``None``: ``UnexpectedToolError``, FastMCP's ``ToolError``, exception
    groups, SQLAlchemy's over the driver's error) defer inwards. When no rule answers anywhere,
    an HTTP answer of an error status the chain held out of sight decides (``_held_answer``: a tool's own error raised
    beside the response it checked, tenacity's ``RetryError`` over a result; also when the deciding rule named no
    upstream and read ``unknown`` or the same class, as a ``ToolError``'s words may), then the words the chain's exception
    types are named with (``_by_name``), else the words a library raised one with (``_library_words``), else
    ``unknown``.

    The root cause is the innermost meaningful exception below the decision, whether or not a rule
    matched it: ``UnexpectedToolError("Error executing tool x")`` says nothing, the
    ``RuntimeError`` it wraps does. A library's own exception that a rule knows is a root of its
    own: ``httpx.ReadTimeout`` names the library and the phase, the bare ``TimeoutError`` it was
    raised over does not. Cancellation (``CancelledError``) is never the root. Python's own PEP 479
    ``RuntimeError("coroutine raised StopIteration")`` is a wrapper: the ``StopIteration`` is the
    root. An author's own failure (the ``errscope`` family) is its own root: its message is what
    the author chose to record (the upstream's body, say), its cause is in the stack trace.
    """
    decided: tuple[Classification, BaseException] | None = None
    root = exc
    escaped: BaseException | None = None
    for current in walk(exc):
        if _pep479_wrapper(current):
            escaped = current.__cause__  # Python's wrapper says nothing; the StopIteration it wraps is the bug
            continue
        rule = _lookup(current)
        result: Classification | None = _UNKNOWN
        if rule is not None:
            reading = _READING_A_CAUSE.set(True)
            try:
                result = rule(current)
            except Exception:  # a broken user rule must not break the failure path
                result = _UNKNOWN
            finally:
                _READING_A_CAUSE.reset(reading)
        if result is None:
            if _holds_another(current):
                continue  # a wrapper: neither the decision nor the root
            rule = None  # nothing inside: a leaf its rule has no answer for (an EOFError, an OSError), still the root
        if _meaningful(current) or current is escaped:
            root = current
        if rule is not None:
            decided = result, current
            break
    if decided is None:  # nothing matched: an HTTP answer the chain held out of sight, the names of the chain's
        # types, else a library's own words, explain it
        held = _held_answer(exc, _raised_in_own_code)
        if held is not None:
            return held, root
        chain = walk(exc)
        named = next((found for found in map(_by_name, chain) if found is not None), None)
        if named is None:
            named = next((found for found in map(_library_words, chain) if found is not None), _UNKNOWN)
        return named, root
    if isinstance(decided[1], ToolFailure):  # the author wrote down what happened: that is the root
        return decided
    if decided[0].upstream is None:
        # a rule that read no upstream: nothing (a ToolError's own words, "could not load the report"), or only a
        # class (its "service answered 503"): an answer held out of sight says more, and names the upstream (a rule
        # that read an upstream's own code, ArangoDB's 1501 under its 400, stands)
        held = _held_answer(exc, _raised_in_own_code)
        if held is not None and decided[0].failure_class in (FailureClass.UNKNOWN, held.failure_class):
            return held, _root_below(decided[1])
    # The root sits below the deciding exception, on its own chain (not in a sibling group member).
    path = path_to(exc, decided[1])
    result = _while_opening(_while_connecting(decided[0], path), path)
    return _with_wait(_with_address(result, path), path), _root_below(decided[1])


def _with_address(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` with its upstream's address, when the deciding exception names none and an exception on the path to
    it does: the request a wrapper holds (requests' ``ConnectionError.request`` over urllib3's ``NewConnectionError``,
    which names only its pool) or the connection a driver's error names (:func:`_db_address`), nearest first, else
    the frames' connection, else the server a network failure's message starts with (:func:`leading_server`:
    pymongo's ``host:port: ...``, its ``ServerSelectionTimeoutError`` naming no server otherwise). The
    on-call engineer needs which host failed (DESIGN: upstream address on the tool span); a sibling group member's
    request is never on the path (:func:`path_to`)."""
    upstream = result.upstream
    if upstream is None:
        return result if _READING_A_CAUSE.get() else _named_by_frames(result, path)
    if upstream.address is not None:
        return result
    address = (
        _nearest(path, lambda current: _request_address(current) or _db_address(current))
        or _nearest(path, _frame_address)
        or (_nearest(path, leading_server) if result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE else None)
    )
    return replace(result, upstream=replace(upstream, address=address)) if address else result


def _nearest(path: list[BaseException], read: Callable[[BaseException], Any]) -> Any:
    """What ``read`` finds on the exception nearest the deciding one along ``path``, or ``None``; an exception or a
    frame of a foreign shape that ``read`` cannot take says nothing."""
    for current in reversed(path):
        try:
            found = read(current)
        except Exception:
            found = None
        if found:
            return found
    return None


_READING_A_CAUSE: Final[ContextVar[bool]] = ContextVar("errscope_reading_a_cause", default=False)
"""Set while a rule runs: a rule that classifies the failure it wraps (urllib3's ``ProtocolError`` over
``RemoteDisconnected``) reads what that failure itself names, and names its own upstream when it names none."""


def _named_by_frames(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` with the upstream the connection its frames were using names (:func:`frame_endpoint`), when it is a
    transport failure no rule along the chain named one for: a builtin socket error or http.client's
    ``RemoteDisconnected`` out of urllib, raised through ``HTTPConnection.getresponse``. System ``http`` when that
    connection speaks HTTP; status the exception's type name, as a library's own transport error is named (httpx's
    ``ReadTimeout``)."""
    if result.failure_class is not FailureClass.UPSTREAM_UNAVAILABLE or not (found := _nearest(path, frame_endpoint)):
        return result
    system = "http" if found[1] in ("http", "https") else None
    return replace(result, upstream=Upstream(system, type(path[-1]).__name__, found[0]))


def _while_connecting(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` as not sent, when it leaves open whether the request went out and an exception on the path to it (it
    included) was raised under a connecting function (:func:`_raised_connecting`, of any module): it, or the failure
    it wraps, happened while the connection was being made (ncclient's ``SSHError`` raised in its ``connect`` over
    paramiko's banner error; paramiko's ``ChannelException`` out of the NETCONF subsystem's opening in ncclient's
    ``connect``), before any request of the caller's."""
    if result.failure_class is not FailureClass.UPSTREAM_UNAVAILABLE or result.side_effect_possible is not None:
        return result
    try:
        connecting = any(_raised_connecting(current, anywhere=True) for current in path)
    except Exception:  # a frame of a foreign shape says nothing
        connecting = False
    return replace(result, side_effect_possible=False) if connecting else result


def _while_opening(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` as not sent, when it says the request may have been acted on (a read timeout, a connection lost)
    but the failure it was raised over happened while the connection was still being opened (:func:`raised_opening`:
    a TLS handshake, a proxy tunnel's ``CONNECT``): urllib3 files a TLS handshake that timed out under
    ``ReadTimeoutError``, requests under ``ReadTimeout``; httpcore a ``CONNECT`` the proxy left unanswered under
    ``ReadTimeout``; websocket-client's ``WebSocketTimeoutException`` over the socket's timeout, the server's 101 left
    unread. No byte of the request had crossed (RFC 8446 §2, RFC 9110 §9.3.6, RFC 6455 §4.1). The chain is read along
    the path to the deciding exception, then down from it to the first builtin one (the socket's own error): what lies
    below that is an older failure the library handled (a retry's first attempt), not this one's phase."""
    if result.failure_class is not FailureClass.UPSTREAM_UNAVAILABLE or result.side_effect_possible is not True:
        return result
    try:
        for current in path[:-1] + walk(path[-1]):
            if raised_opening(current):
                return replace(result, side_effect_possible=False)
            if type(current).__module__ == "builtins":
                break
    except Exception:  # a frame of a foreign shape says nothing
        pass
    return result


def _with_wait(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` with the wait an SDK's exception on the path to the deciding one parsed off the answer and kept
    (:func:`_carried_delay`), when the deciding one (the transport's, below it) has none: qdrant-client's
    ResourceExhaustedResponse(retry_after_s) over grpcio's RESOURCE_EXHAUSTED, whose trailer it read."""
    if result.failure_class is not FailureClass.RATE_LIMITED or result.retry_after is not None:
        return result
    for current in reversed(path[:-1]):
        try:
            wait = _carried_delay(current)
        except Exception:  # an attribute of a foreign shape says nothing
            wait = None
        if wait is not None:
            return replace(result, retry_after=wait)
    return result


def _holds_another(exc: BaseException) -> bool:
    return exc.__cause__ is not None or exc.__context__ is not None or isinstance(exc, BaseExceptionGroup)


def _pep479_wrapper(exc: BaseException) -> bool:
    """Python's own ``RuntimeError("coroutine raised StopIteration")`` (PEP 479; also "generator", "async
    generator ... StopAsyncIteration"): raised ``from`` a ``StopIteration`` that escaped a generator or a
    coroutine, e.g. a sync tool's ``next()`` on an empty iterator called from an async wrapper."""
    return type(exc) is RuntimeError and isinstance(exc.__cause__, (StopIteration, StopAsyncIteration))


_CONTROL_FLOW: Final = (StopIteration, StopAsyncIteration, BaseExceptionGroup)


def _meaningful(exc: BaseException) -> bool:
    # Cancellation (asyncio.CancelledError, GeneratorExit) is the mechanics of a timeout or a
    # teardown under the real failure, and a StopIteration under a library's `raise ... from None`
    # (json's decoder) the mechanics of a loop: never the cause.
    return isinstance(exc, Exception) and not isinstance(exc, _CONTROL_FLOW)


def _root_below(decider: BaseException) -> BaseException:
    """The first library exception a rule knows from ``decider`` inwards, else the innermost
    meaningful one. A wrapper always has something inside it (that is what it defers to), so
    the innermost meaningful exception of a chain is never one."""
    chain = [e for e in walk(decider) if _meaningful(e)]
    return next((e for e in chain if type(e).__module__ != "builtins" and _answers(e)), chain[-1] if chain else decider)


def _answers(exc: BaseException) -> bool:
    rule = _lookup(exc)
    try:
        return rule is not None and rule(exc) is not None
    except Exception:
        return False


def _raised_in_own_code(exc: BaseException) -> bool:
    """Whether the frame that raised ``exc`` runs the tool's own code, not a library's (:func:`_library_module`)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and not _library_module(tb.tb_frame.f_globals.get("__name__"))


# errscope._classify._core.classify, which the families call on a cause, delegates to this.
_core._explain = explain
