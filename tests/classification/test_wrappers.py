"""Real failures as a tool sees them through the wrappers around them: retries (tenacity), task
groups (asyncio, anyio: exception groups), deadlines (anyio, asyncio) and executors.

The failure inside each one is real (a refused connection, a 429, a stalled upstream); the class
and the root cause come from it, not from the wrapper.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import pickle
import socket
from collections.abc import Callable

import anyio
import httpx
import tenacity

from errscope import FailureClass as C
from errscope._classify import explain
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _refused() -> None:
    httpx.get(f"http://{HOST}:{closed_port()}/", timeout=5)


class TestTenacity:
    def test_retry_error_over_refused_connection(self) -> None:
        retrying = tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none())(_refused)
        exc = raised(retrying)
        assert isinstance(exc, tenacity.RetryError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert type(explain(exc)[1]) is httpx.ConnectError

    def test_retry_error_over_rate_limit(self, upstream: HttpUpstream) -> None:
        @tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none())
        def call() -> None:
            httpx.get(f"{upstream.url}/status/429?retry_after=3", timeout=5).raise_for_status()

        exc = raised(call)
        assert isinstance(exc, tenacity.RetryError)
        result = check(exc, C.RATE_LIMITED, False)
        assert result.retry_after == 3.0

    def test_async_retry_error_over_read_timeout(self, upstream: HttpUpstream) -> None:
        @tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none())
        async def call() -> None:
            async with httpx.AsyncClient(timeout=httpx.Timeout(5, read=0.2)) as client:
                await client.post(f"{upstream.url}/stall", json={})

        exc = raised(call)
        assert isinstance(exc, tenacity.RetryError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)
        assert type(explain(exc)[1]) is httpx.ReadTimeout


class TestGroups:
    def test_asyncio_task_group(self, upstream: HttpUpstream) -> None:
        async def batch() -> None:
            async with httpx.AsyncClient(timeout=5) as client, asyncio.TaskGroup() as group:
                group.create_task(client.get(f"{upstream.url}/status/404"))  # fine: no raise_for_status
                group.create_task(client.get(f"http://{HOST}:{closed_port()}/"))

        exc = raised(batch)
        assert isinstance(exc, ExceptionGroup)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_anyio_task_group_with_a_plain_bug_first(self, upstream: HttpUpstream) -> None:
        # The first member is a bug no rule knows; the refused connection beside it is what a rule
        # knows. The fetch is shielded so the bug's cancellation lets it fail for real, not cancelled.
        async def batch() -> None:
            async def bug() -> None:
                raise KeyError("sku")

            async def fetch() -> None:
                with anyio.CancelScope(shield=True):
                    async with httpx.AsyncClient(timeout=5) as client:
                        await client.get(f"http://{HOST}:{closed_port()}/")

            async with anyio.create_task_group() as group:
                group.start_soon(bug)
                group.start_soon(fetch)

        exc = raised(lambda: anyio.run(batch))
        assert isinstance(exc, ExceptionGroup) and [type(e) for e in exc.exceptions] == [KeyError, httpx.ConnectError]
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_asyncio_gather(self, upstream: HttpUpstream) -> None:
        async def both() -> None:
            async with httpx.AsyncClient(timeout=5) as client:
                responses = await asyncio.gather(client.get(f"{upstream.url}/ok"),
                                                 client.get(f"{upstream.url}/status/403"))
                for response in responses:
                    response.raise_for_status()

        exc = raised(both)
        check(exc, C.PERMISSION_DENIED, False)


class TestDeadlines:
    def test_anyio_fail_after(self, upstream: HttpUpstream) -> None:
        async def call() -> None:
            async with httpx.AsyncClient(timeout=5) as client:
                # connected first: on a loaded machine a 0.3 s deadline could end the connect itself (never sent)
                await client.get(f"{upstream.url}/ok")
                with anyio.fail_after(0.3):
                    await client.post(f"{upstream.url}/stall", json={})

        exc = raised(lambda: anyio.run(call))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_asyncio_wait_for(self, upstream: HttpUpstream) -> None:
        async def call() -> None:
            async with httpx.AsyncClient(timeout=5) as client:
                await client.get(f"{upstream.url}/ok")  # connected first, as above
                await asyncio.wait_for(client.post(f"{upstream.url}/stall", json={}), 0.3)

        exc = raised(call)
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_future_result_timeout(self, upstream: HttpUpstream) -> None:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(httpx.post, f"{upstream.url}/stall", json={}, timeout=1)
            exc = raised(lambda: future.result(timeout=0.2))
        assert isinstance(exc, TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


class TestExecutors:
    def test_thread_pool_reraises_the_real_failure(self) -> None:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            exc = raised(pool.submit(_refused).result)
        assert isinstance(exc, httpx.ConnectError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_anyio_to_thread(self, upstream: HttpUpstream) -> None:
        def call() -> None:
            httpx.get(f"{upstream.url}/status/404", timeout=5).raise_for_status()

        exc = raised(lambda: anyio.run(anyio.to_thread.run_sync, call))
        assert isinstance(exc, httpx.HTTPStatusError)
        check(exc, C.NOT_FOUND, False)

    def test_asyncio_to_thread_over_a_reset(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: asyncio.to_thread(httpx.post, f"{upstream.url}/drop", json={}, timeout=5))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_httpx_timeout_names_the_library_exception(upstream: HttpUpstream) -> None:
    """The root of a read timeout is ``httpx.ReadTimeout`` (it says which phase), not the builtin it wraps."""
    exc = raised(lambda: httpx.post(f"{upstream.url}/stall", json={}, timeout=httpx.Timeout(5, read=0.2)))
    assert isinstance(exc, httpx.ReadTimeout)
    assert explain(exc)[1] is exc


class TestLeafRoots:
    """An exception whose rule has no answer for it and that holds nothing inside is still the root
    under a tool's wrapper: a rule looking at a builtin type (EOFError, OSError) does not hide it."""

    @staticmethod
    def _wrapped(action: Callable[[], object]) -> BaseException:
        def tool() -> None:
            try:
                action()
            except Exception as exc:
                raise RuntimeError("Error executing tool refund_order") from exc

        return raised(tool)

    def test_truncated_pickle(self) -> None:
        exc = self._wrapped(lambda: pickle.loads(b""))
        assert type(explain(exc)[1]) is EOFError
        check(exc, C.UNKNOWN, None)

    def test_socket_option_refused_by_the_kernel(self) -> None:
        def set_option() -> None:
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, 9999, 1)  # no such option: ENOPROTOOPT

        exc = self._wrapped(set_option)
        assert type(explain(exc)[1]) is OSError
        check(exc, C.UNKNOWN, None)


def test_pep_479_wrapper_defers_to_the_stop_iteration_it_wraps() -> None:
    """A ``StopIteration`` escaping a coroutine or generator becomes Python's ``RuntimeError("... raised
    StopIteration")`` (PEP 479), raised ``from`` it: the wrapper says nothing, the ``next()`` on an empty
    iterator is the root. A ``StopIteration`` under a library's ``raise ... from None`` (json's decoder) is not."""

    async def first_row() -> str:
        return next(iter([]))

    def rows():  # type: ignore[no-untyped-def]
        yield next(iter([]))

    for run in (lambda: asyncio.run(first_row()), lambda: list(rows())):
        try:
            run()
        except RuntimeError as exc:
            classification, root = explain(exc)
        assert type(root) is StopIteration and classification.failure_class is C.UNKNOWN, root
    try:
        __import__("json").loads("[1,")
    except ValueError as exc:
        assert type(explain(exc)[1]).__name__ == "JSONDecodeError"
