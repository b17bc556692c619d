"""The retry libraries a tool wraps its calls in (tenacity, backoff, stamina), around failures whose class and
side-effect fact come from where they arose, not from their type alone: a deadline that ends while connecting,
an answer that is no HTTP (aiohttp's own parser status), a Unix socket that is not there, and a body cut short
after the request arrived. The wrapper must not change them: tenacity's RetryError is raised from the last
failure, backoff and stamina re-raise it as it was.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import backoff
import httpx
import pytest
import stamina
import tenacity

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, closing_listener, full_backlog


@pytest.fixture(scope="module")
def peers() -> Iterator[dict[str, str]]:
    with (full_backlog() as backlog, tempfile.TemporaryDirectory(prefix="errscope-uds-") as sockets,
          closing_listener(b"SSH-2.0-OpenSSH_9.2p1\r\n", read_first=True) as not_http,
          closing_listener(b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\n\r\n{\"items\": [", read_first=True) as cut):
        yield {"backlog": f"http://{HOST}:{backlog}/", "socket": str(Path(sockets) / "sidecar.sock"),
               "not_http": f"http://{HOST}:{not_http}/orders", "cut": f"http://{HOST}:{cut}/orders"}


async def _deadline_while_connecting(url: str) -> None:
    async with asyncio.timeout(0.3):
        async with httpx.AsyncClient() as client:
            await client.post(url, json={"a": 1})


async def _aiohttp_post(url: str) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        async with session.post(url, json={"a": 1}) as response:
            await response.read()


FAILURES: dict[str, tuple[Callable[[dict[str, str]], object], C, bool]] = {
    # name: (one attempt, class, side effect possible)
    "deadline_while_connecting": (lambda peers: asyncio.run(_deadline_while_connecting(peers["backlog"])),
                                  C.UPSTREAM_UNAVAILABLE, False),
    "answer_not_http": (lambda peers: asyncio.run(_aiohttp_post(peers["not_http"])), C.UPSTREAM_UNAVAILABLE, True),
    "unix_socket_not_there": (lambda peers: httpx.Client(transport=httpx.HTTPTransport(uds=peers["socket"])).post(
        "http://sidecar/v1/jobs", json={"a": 1}), C.UPSTREAM_UNAVAILABLE, False),
    "body_cut_short": (lambda peers: httpx.post(peers["cut"], json={"a": 1}, timeout=5), C.UPSTREAM_UNAVAILABLE, True),
}

WRAPPERS: dict[str, Callable[[Callable[[], object]], Callable[[], object]]] = {
    "tenacity": tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none()),
    "tenacity_reraise": tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none(), reraise=True),
    "backoff": backoff.on_exception(backoff.constant, Exception, max_tries=2, interval=0, jitter=None),
    "stamina": stamina.retry(on=Exception, attempts=2, wait_initial=0, wait_max=0, wait_jitter=0),
}


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("failure", list(FAILURES))
def test_retried_failure_keeps_its_facts(peers: dict[str, str], failure: str, wrapper: str) -> None:
    attempt, failure_class, side_effect = FAILURES[failure]
    exc = raised(WRAPPERS[wrapper](lambda: attempt(peers)))
    assert isinstance(exc, tenacity.RetryError) == (wrapper == "tenacity")
    check(exc, failure_class, side_effect)
