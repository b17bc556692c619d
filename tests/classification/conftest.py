"""Fixtures of the classification corpus: the failing upstreams, and how a case is checked."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

import errscope
from errscope import FailureClass
from tests.classification.upstreams import HttpUpstream, closing_listener, full_backlog, silent_listener

HTTP_STATUSES = [
    # (status, Retry-After, class, side effect possible, retry_after): what an HTTP client's status error says
    (400, None, FailureClass.INVALID_INPUT, False, None),
    (401, None, FailureClass.PERMISSION_DENIED, False, None),
    (403, None, FailureClass.PERMISSION_DENIED, False, None),
    (404, None, FailureClass.NOT_FOUND, False, None),
    (413, None, FailureClass.INVALID_INPUT, False, None),  # Content Too Large: smaller arguments fit
    (429, "7", FailureClass.RATE_LIMITED, False, 7.0),
    (429, None, FailureClass.RATE_LIMITED, False, None),
    (500, None, FailureClass.UPSTREAM_UNAVAILABLE, True, None),
    (502, None, FailureClass.UPSTREAM_UNAVAILABLE, True, None),
    (503, "5", FailureClass.UPSTREAM_UNAVAILABLE, False, 5.0),
    (503, None, FailureClass.UPSTREAM_UNAVAILABLE, False, None),
    (504, None, FailureClass.UPSTREAM_UNAVAILABLE, True, None),
]


KNOWN_WRONG = Path(__file__).with_name("known_wrong.txt")
"""Corpus cases errscope still classifies wrongly, one test id a line, ``# why`` after it: each runs as a strict
xfail, so the day a rule fixes it the suite says so and the line goes."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    known = {}
    for line in KNOWN_WRONG.read_text().splitlines():
        test_id, _, why = line.partition("#")
        if test_id.strip():
            known[test_id.strip()] = why.strip() or "classified wrongly"
    for item in items:
        if item.nodeid in known:
            item.add_marker(pytest.mark.xfail(strict=True, reason=known[item.nodeid]))


@pytest.fixture(scope="module")
def upstream() -> Iterator[HttpUpstream]:
    with HttpUpstream() as server:
        yield server


@pytest.fixture
def silent_port() -> Iterator[int]:
    with silent_listener() as port:
        yield port


@pytest.fixture
def backlog_port() -> Iterator[int]:
    with full_backlog() as port:
        yield port


def raised(action: Callable[[], Any]) -> BaseException:
    """Run ``action`` (a function or a coroutine function) and return what it raised, as raised."""
    try:
        result = action()
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except BaseException as exc:  # CancelledError included: it is a case of its own
        return exc
    raise AssertionError(f"{action} did not fail")


def check(exc: BaseException, failure_class: FailureClass, side_effect_possible: bool | None) -> errscope.Classification:
    """Assert the one class and the side-effect fact of ``exc``; return the classification."""
    result = errscope.classify(exc)
    assert (result.failure_class, result.side_effect_possible) == (failure_class, side_effect_possible), (
        f"{type(exc).__module__}.{type(exc).__qualname__}: {exc!r} -> {result.failure_class}, {result.side_effect_possible}"
    )
    return result


async def cancel_while_waiting(call: Coroutine[Any, Any, Any]) -> None:
    """Run ``call`` as a task and cancel it once it is waiting for its answer (raises CancelledError)."""
    task = asyncio.ensure_future(call)
    await asyncio.sleep(0.1)
    task.cancel()
    await task


async def while_pool_is_held(holder: Coroutine[Any, Any, Any], call: Callable[[], Awaitable[Any]]) -> None:
    """Let ``holder`` take the pool's one connection (it stalls), then run ``call``, which must wait for it."""
    held = asyncio.ensure_future(holder)
    await asyncio.sleep(0.1)
    try:
        await call()
    finally:
        held.cancel()


@pytest.fixture
def closing_port() -> Iterator[int]:
    with closing_listener() as port:
        yield port
