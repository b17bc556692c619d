"""The chain of an exception (:func:`walk`, :func:`path_to`): causes, contexts, group members, and the failure
a raising frame still held (PEP 3134's implicit cause restored).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Final

from errscope._classify._core import _MAX_CHAIN
from errscope._classify._facts import _PROGRAMMING_ERRORS, raised_in, raised_through

_IN_PROCESS_CHANNELS = ("anyio.streams.memory", "trio._channel", "asyncio.queues")
"""Modules of in-process channels between tasks (anyio's memory object streams, trio's memory channels, asyncio's
``Queue``): what they raise (anyio's ``BrokenResourceError``/``ClosedResourceError``/``EndOfStream``, trio's,
``asyncio.QueueShutDown``) says only that the task at the other end went away."""


def _sibling_consequence(exc: BaseException) -> bool:
    """Whether a group member only says that a sibling task ended: raised by an in-process channel whose other end a
    failing sibling closed on its way out (matthewhand/mcp-openapi-proxy #5: the stdio reader's ``BrokenResourceError``
    out of ``anyio/streams/memory.py``). A socket stream's ``BrokenResourceError`` is raised elsewhere and is a failure of
    its own."""
    return raised_in(exc, *_IN_PROCESS_CHANNELS)


def walk(exc: BaseException) -> list[BaseException]:
    """The exception chain of ``exc``, outermost first, at most 16 exceptions, each once.

    Follows what Python's own traceback printer follows (``traceback.TracebackException``): an
    exception group's members in order, then ``__cause__``, else ``__context__``, here even when
    ``raise ... from None`` suppressed it (the on-call engineer needs what the author hid from the
    model); with neither, the failure the raising frame still held (:func:`_held_failure`).
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
        if following is None and not isinstance(current, BaseExceptionGroup):
            following = _held_failure(current)
        if following is not None:
            pending.append(following)
        if isinstance(current, BaseExceptionGroup):
            # depth first, first member first; a member that only says a sibling ended is read after the others
            # (PEP 654 keeps members in the order they were raised, not the order that explains the failure)
            pending.extend(reversed(sorted(current.exceptions, key=_sibling_consequence)))
    return chain


def _held_failure(exc: BaseException) -> BaseException | None:
    """The exception the frame that raised ``exc`` still held, when ``exc`` has no chain: the implicit cause PEP 3134
    would have recorded had ``exc`` been raised inside the ``except`` block that caught it.

    A hand-written retry loop keeps the last failure (``except httpx.TransportError as exc: last = exc``) and raises
    its own ``RuntimeError`` after the loop; a tool that awaited a background task reads ``task.exception()`` and
    raises its own (it holds the task); one that gathered its jobs with ``return_exceptions=True`` holds them in a list.
    First the failure ``exc`` itself keeps (:func:`_kept_failure`). Then only an exception that was itself raised (it
    has a traceback) and is not ``exc``, held by a local of the raising
    frame, as the failure of a future or task held there, or as an item of a list, tuple or set there (``asyncio.wait``'s
    ``done``), counts; the last such local wins (the most recent failure in a loop), and in a collection its first
    failure. A cancellation that cut off a sleep (:func:`cut_off_sleeping`: a deadline that fired while a retry loop
    waited between attempts) reads every frame it passed through, innermost first: a hand-written loop that sleeps
    after its ``except`` block keeps its last attempt's failure in a local (PEP 3134 records nothing there).
    """
    if isinstance(exc, _PROGRAMMING_ERRORS):
        # the tool's own bug (a typo, a wrong type) is no report of what it held: it stays unknown, its own gap
        return None
    kept = _kept_failure(exc)
    if kept is not None:
        return kept
    sleeping = cut_off_sleeping(exc)
    for values in (raising_locals(exc) if not sleeping else _locals_outwards(exc)):
        for value in reversed(values):
            held = _failure_in(value, exc)
            if held is None and isinstance(value, list | tuple | set | frozenset):
                held = next((found for item in list(value)[:64] if (found := _failure_in(item, exc)) is not None), None)
            if held is not None:
                return held
    return None


def _failure_in(value: object, exc: BaseException) -> BaseException | None:
    """``value`` as a failure that was raised (it has a traceback) and is not ``exc``: itself, or a task's or job's
    (an ``asyncio``/``concurrent.futures`` future that ended in one)."""
    if isinstance(value, asyncio.Future | concurrent.futures.Future):  # a task or job that ended in a failure
        value = value.exception() if value.done() and not value.cancelled() else None
    raised = isinstance(value, Exception) and value is not exc and value.__traceback__ is not None
    return value if raised else None  # type: ignore[return-value]


def raising_locals(exc: BaseException) -> list[list[object]]:
    """The local values of the frame that raised ``exc`` (its traceback's innermost frame), as one list; none when it
    has no traceback or its locals cannot be read."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return []
    try:
        return [list(tb.tb_frame.f_locals.values())]
    except Exception:  # a frame whose locals cannot be read says nothing
        return []


def _locals_outwards(exc: BaseException) -> list[list[object]]:
    """The local values of every frame ``exc`` passed through, innermost first (the sleep, then the retry loop
    around it, then the tool)."""
    found = []
    for frame in reversed(raised_through(exc)):
        try:
            found.append(list(frame.f_locals.values()))
        except Exception:  # a frame whose locals cannot be read says nothing
            continue
    return found


_EVENT_LOOPS: Final = frozenset({"asyncio", "anyio", "trio"})
_SLEEPS: Final = frozenset({"sleep", "sleep_until", "sleep_forever"})


def cut_off_sleeping(exc: BaseException) -> bool:
    """Whether ``exc`` (a cancellation, or a timeout raised where it landed) was raised while its task slept: a
    frame among the innermost three is an event loop's ``sleep`` (``asyncio.sleep``, which anyio's and tenacity's
    sleeps await; trio's ``sleep``/``sleep_until``/``sleep_forever``). A sleeping task had no request in flight: a
    retry loop waiting between attempts, whose last attempt's failure is what the deadline cut short."""
    if isinstance(exc, Exception) and not isinstance(exc, TimeoutError):
        return False
    for frame in raised_through(exc)[-3:]:
        module = str(frame.f_globals.get("__name__", ""))
        if frame.f_code.co_name in _SLEEPS and module.split(".", 1)[0] in _EVENT_LOOPS:
            return True
    return False


def _kept_failure(exc: BaseException) -> BaseException | None:
    """The raised exception ``exc`` keeps as an attribute of its own, its first such: an SDK that catches the
    transport's failure and raises its own error holding it, not chained (the Box SDK's ``BoxSDKError.error``, raised
    after the ``except`` block that caught the requests exception has ended)."""
    try:
        values = list(vars(exc).values())
    except TypeError:  # no __dict__ (a C type's exception)
        return None
    return next((value for value in values
                 if isinstance(value, Exception) and value is not exc and value.__traceback__ is not None), None)


def path_to(exc: BaseException, target: BaseException) -> list[BaseException]:
    """The exceptions from ``exc`` down to ``target`` along :func:`walk`'s links, outermost first (``[exc]`` when
    ``target`` is ``exc``; ``[]`` when ``target`` is not in the chain). An exception group's members other than the
    one ``target`` is under are no part of it: a sibling's failure is another request's (PEP 654)."""
    path: list[BaseException] = []
    seen: set[int] = set()

    def visit(current: BaseException) -> bool:
        if id(current) in seen or len(seen) >= _MAX_CHAIN:
            return False
        seen.add(id(current))
        path.append(current)
        if current is target:
            return True
        following = current.__cause__ if current.__cause__ is not None else current.__context__
        if following is None and not isinstance(current, BaseExceptionGroup):
            following = _held_failure(current)
        members = list(current.exceptions) if isinstance(current, BaseExceptionGroup) else []
        if any(visit(inner) for inner in (*members, *([following] if following is not None else []))):
            return True
        path.pop()
        return False

    visit(exc)
    return path
