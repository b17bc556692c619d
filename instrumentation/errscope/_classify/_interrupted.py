"""A bare timeout, cancellation or dropped connection, told by the stack it cut off: opening a connection or
waiting for a pool's was not sent.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Final

from errscope._classify._builders import _UNAVAILABLE, _UNAVAILABLE_MAYBE_SENT, _UNAVAILABLE_NOT_SENT
from errscope._classify._chain import cut_off_sleeping, walk
from errscope._classify._core import Classification, _MAX_CHAIN, classify
from errscope._classify._facts import _CONNECTING_FUNCTIONS, _function_name, http_status_of
from errscope._classify._http_errors import _http_status
from errscope._vocabulary import FailureClass


# What a timeout or a cancellation cut off, by the functions on the stack it was raised from (its own traceback,
# and the CancelledError a deadline raises it over: asyncio.timeout, wait_for, anyio.fail_after): opening a
# connection (_CONNECTING_FUNCTIONS) or waiting for a pool's connection (a method of a *Pool* object). Then the
# request had not left. Anywhere else (waiting for the answer) it may have been acted on.
_POOL_WAITS: Final = frozenset({"acquire", "_acquire", "getconn", "get_connection", "wait_for_connection"})
# ... what such a wait is for: a pool's connection, or a lock another holds (filelock's FileLock, asyncio's and
# threading's locks and semaphores): the work it guards never began, as a connection never handed out
_WAITED_ON: Final = re.compile(r"Pool|Lock(?![a-z])|Semaphore|Mutex")


def _modules(exc: BaseException) -> set[object]:
    modules = set()
    tb = exc.__traceback__
    while tb is not None:
        modules.add(tb.tb_frame.f_globals.get("__name__"))
        tb = tb.tb_next
    return modules


def _cut_off_stacks(exc: BaseException) -> list[BaseException]:
    """``exc`` and the cancellation under it that shows where the work was cut off: the first one whose stack
    reaches a module the ones above it do not (a cancellation re-raised by the caller's own cleanup, in the same
    modules, stands over it; an older one under it, handled inside a library, is another story)."""
    stacks, seen = [exc], _modules(exc)
    while isinstance(stacks[-1].__context__, asyncio.CancelledError) and len(stacks) < _MAX_CHAIN:
        stacks.append(stacks[-1].__context__)
        modules = _modules(stacks[-1])
        if not modules <= seen:
            break
        seen |= modules
    return stacks


def _raised_by_pool(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by a connection pool's own method (handing out or making a connection: its
    limit reached), not by a connection it opened."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    name = _function_name(tb.tb_frame)
    return (name in _POOL_WAITS or name == "make_connection") and "Pool" in type(tb.tb_frame.f_locals.get("self")).__name__


def _cut_off_while_connecting(exc: BaseException) -> bool:
    for current in _cut_off_stacks(exc):
        tb = current.__traceback__
        while tb is not None:
            name = _function_name(tb.tb_frame)
            if name in _CONNECTING_FUNCTIONS or (
                    name in _POOL_WAITS and _WAITED_ON.search(type(tb.tb_frame.f_locals.get("self")).__name__)):
                return True
            tb = tb.tb_next
    return False


def _connection_error(exc: BaseException) -> Classification:
    """A ``ConnectionError`` its errno does not place (one a library raised with a text only): the transport failure
    it was raised over, even ``from None`` (ollama's "Failed to connect to Ollama" over httpx's ``ConnectError``),
    says whether the request left, and where it went."""
    result = _UNAVAILABLE(exc)
    inner = exc.__cause__ or exc.__context__
    if result.side_effect_possible is None and inner is not None:
        found = classify(inner)
        if found.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and found.side_effect_possible is not None:
            result = replace(result, side_effect_possible=found.side_effect_possible,
                             upstream=result.upstream or found.upstream)
    return result


def _cut_off(exc: BaseException) -> Classification:
    # An SDK that files an answered status under its timeout class (geopy's GeocoderTimedOut for a 503, 504 or 408,
    # raised ``from`` the adapter's error that keeps it): nothing ran out here, the status answered; it decides.
    cause = exc.__cause__
    if cause is not None and http_status_of(cause) is not None:
        answered = _http_status(cause)
        if answered is not None:
            return answered
    before = _failure_before_the_sleep(exc)
    if before is not None:
        return before
    return (_UNAVAILABLE_NOT_SENT if _cut_off_while_connecting(exc) else _UNAVAILABLE_MAYBE_SENT)(exc)


def _failure_before_the_sleep(exc: BaseException) -> Classification | None:
    """What the attempt before the sleep a deadline cut off said (:func:`cut_off_sleeping`): a retry loop waiting
    between attempts had no request in flight, so the timeout itself tells nothing of the upstream; the last
    attempt's failure (the cancellation's implicit cause when the loop slept inside its ``except`` block, as backoff
    does, else the failure its frames held: a hand-written loop's ``last``; tenacity, and stamina over it, clear their
    last outcome before sleeping) decides the class, the upstream and whether anything may have been acted on (as the
    last attempt decides under a retry library that gave up). ``None`` when the deadline cut off anything but a sleep,
    or the attempt's failure is ``unknown``."""
    for current in _cut_off_stacks(exc):
        if not cut_off_sleeping(current):
            continue
        below = next((failure for failure in walk(current)[1:] if isinstance(failure, Exception)), None)
        if below is None:
            return None
        found = classify(below)
        return None if found.failure_class is FailureClass.UNKNOWN else found
    return None
