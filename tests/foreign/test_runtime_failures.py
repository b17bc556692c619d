"""Real runtime failure texts, read by the one classifier the client and the proxy share.

Node's ``fetch`` and ``node:http``, Go's ``net/http``, Java's ``java.net.http.HttpClient``, OkHttp and Apache HttpClient
5, Rust's ``reqwest``, Perl's ``HTTP::Tiny``, Python's ``urllib.request`` and the ``curl`` CLI each make a request to an
upstream on 127.0.0.1 that fails for real (:mod:`tests.foreign.faulty_upstream`: a closed port, a connect that times
out, a reset or a close after the request was read, a body cut off, a stall past the client's own timeout, TLS to a
plaintext port, a self-signed certificate, a name that cannot resolve, HTTP 404/401/403/429/503), and print the failure
the way an MCP server in that language puts it into its tool error (:mod:`tests.foreign.runtime_probes`). Each text is
then answered as an ``isError`` result by a foreign stdio peer (``tests/client/servers/heldout_peer.py``) and read (a)
by ``errscope.client.ToolClient`` and (b) by ``errscope proxy`` in front of the same peer. Expected values come from
what each fault is (:data:`FAULTS`): its class, and whether the request may have been processed (a reset or a close
after the request was read, a body cut off, a read timeout) or provably never reached the upstream (refused, a connect
timeout, not resolved, TLS handshake failed).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope._attributes import META_FAILURE_CLASS, META_SIDE_EFFECT_POSSIBLE
from errscope._foreign_text import classify_text, never_reached, says_maybe_acted
from errscope.client import ToolCallResult, ToolClient
from tests.client.test_heldout_cases import SERVERS, failed, tool
from tests.foreign.faulty_upstream import FAULTS, STATUSES, faulty_upstreams
from tests.foreign.runtime_probes import CASES, CLIENTS, run_probe
from tests.proxy.conftest import proxy_command

pytestmark = [pytest.mark.stack, pytest.mark.timeout(240)]

UNDICI_BARE: Final = pytest.mark.xfail(strict=True, reason=(
    "undici's bare String(err) is 'TypeError: fetch failed' for a refused connect, a failed name lookup and a TLS "
    "handshake alike, and for a reset after the request was sent: only its cause (fetch_cause/) says which, so the "
    "bare text is read as 'may have been processed' (the class is right)"))
REQWEST_BARE: Final = pytest.mark.xfail(strict=True, reason=(
    "reqwest's Display prints no source: 'error sending request for url (…)' for a refused connect, a failed name "
    "lookup and a TLS handshake alike, and for a reset after the request was sent or a timeout: only its source chain "
    "(reqwest_alt/, reqwest_debug/) says which, so the bare text is read as 'may have been processed' (the class is "
    "right)"))
REQWEST_BODY: Final = pytest.mark.xfail(strict=True, reason=(
    "reqwest's Display is 'error decoding response body for url (…)' for a body cut off and for a body that is not what "
    "the caller expected (a serde failure, the tool's own problem with the upstream's data) alike: only its source "
    "chain says the connection ended (reqwest_alt/cut, reqwest_debug/cut)"))
CURL_STATUS: Final = pytest.mark.xfail(strict=True, reason=(
    "curl's exit code 22 is any HTTP status >= 400 (curl(1) EXIT CODES): a failed command that keeps only the code and "
    "not curl's line (curl/: 'The requested URL returned error: 404') cannot tell a 404 from a 401, a 429 or a 503"))
TOTAL_TIMEOUT: Final = pytest.mark.xfail(strict=True, reason=(
    "a client whose one timeout covers the whole exchange words its expiry the same in the connect as in the wait for "
    "the answer (Node's AbortSignal.timeout 'The operation was aborted due to timeout', Go's 'context deadline exceeded "
    "(Client.Timeout exceeded while awaiting headers)', reqwest's 'operation timed out', curl's bare exit code 28): the "
    "text cannot say the connect never completed, so it is read as 'may have been processed' (the class is right)"))
NEVER_SENT: Final = ("refused", "dns", "tls_plain", "self_signed")
AMBIGUOUS: Final = {
    **{f"fetch/{fault}": UNDICI_BARE for fault in NEVER_SENT},
    **{f"reqwest/{fault}": REQWEST_BARE for fault in NEVER_SENT},
    "reqwest/cut": REQWEST_BODY,
    **{f"{client}/connect_timeout": TOTAL_TIMEOUT
       for client in ("fetch", "fetch_cause", "http", "go", "reqwest", "reqwest_alt", "reqwest_debug", "curl_exit")},
    **{f"curl_exit/{status}": CURL_STATUS for status in STATUSES},
}


def params() -> list[Any]:
    return [pytest.param(case, id=case, marks=AMBIGUOUS.get(case, ())) for case in CASES]


def runtime_of(case: str) -> str:
    client = case.split("/")[0]
    return next(runtime for runtime, clients in CLIENTS.items() if client in clients)


def tool_name(case: str) -> str:
    return case.replace("/", "__")


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with faulty_upstreams(tmp_path_factory.mktemp("upstreams")) as urls:
        yield urls


@pytest.fixture(scope="module")
def texts(upstreams: dict[str, str]) -> Callable[[str], dict[str, str | None]]:
    """``texts(runtime)``: its probe's texts, the probe run once per module."""
    seen: dict[str, dict[str, str | None]] = {}

    def of(runtime: str) -> dict[str, str | None]:
        if runtime not in seen:
            seen[runtime] = run_probe(runtime, upstreams)
        return seen[runtime]

    return of


def text_of(texts: Callable[[str], dict[str, str | None]], case: str) -> str:
    text = texts(runtime_of(case)).get(case)
    assert text, f"{case}: the request did not fail"
    return text


def _peer(folder: Path, answers: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    spec = folder / "peer.json"
    spec.write_text(json.dumps({"tools": [tool(tool_name(case)) for case in answers],
                                "answers": {tool_name(case): failed(text) for case, text in answers.items()}}))
    # the whole environment: the proxy must import this checkout's errscope (PYTHONPATH), as the client does
    return [sys.executable, str(SERVERS / "heldout_peer.py")], {**os.environ, "PEER_SPEC": str(spec)}


def _call_all(server: StdioServerParameters, cases: list[str]) -> dict[str, ToolCallResult]:
    async def session() -> dict[str, ToolCallResult]:
        async with ToolClient(server, timeout=20, retry=None) as tc:
            return {case: await tc.call_tool(tool_name(case), {}) for case in cases}

    return anyio.run(session, backend="asyncio")


@pytest.fixture(scope="module")
def read(texts: Callable[[str], dict[str, str | None]], tmp_path_factory: pytest.TempPathFactory,
         ) -> Callable[[str, str], ToolCallResult]:
    """``read(way, case)``: ``case``'s text answered by the peer and read by ``ToolClient`` directly (``"client"``)
    or through ``errscope proxy`` (``"proxy"``); one session per runtime and way."""
    seen: dict[tuple[str, str], dict[str, ToolCallResult]] = {}

    def of(way: str, case: str) -> ToolCallResult:
        runtime = runtime_of(case)
        if (way, runtime) not in seen:
            answers = {key: text for key, text in texts(runtime).items() if text}
            folder = tmp_path_factory.mktemp(f"{way}-{runtime}")
            command, env = _peer(folder, answers)
            if way == "proxy":
                command = proxy_command(folder / "out", "--", *command)
            server = StdioServerParameters(command=command[0], args=command[1:], env=env)
            seen[way, runtime] = _call_all(server, list(answers))
        return seen[way, runtime][case]

    return of


@pytest.mark.parametrize("case", params())
def test_the_text_says_what_the_fault_is(case: str, texts: Callable[[str], dict[str, str | None]]) -> None:
    """The shared text rules: the class, and never reached / may have been processed, as the fault is."""
    text = text_of(texts, case)
    fault = FAULTS[case.split("/")[1]]
    assert (classify_text(text).value, says_maybe_acted(text)) == (fault.failure_class, fault.may_have_acted), text
    assert never_reached(text) is not fault.sent, text


@pytest.mark.parametrize("case", params())
def test_the_client_reads_the_real_text(case: str, read: Callable[[str, str], ToolCallResult]) -> None:
    """``ToolClient`` against the foreign peer: the class, and "may have taken effect" only when it may have."""
    result = read("client", case)
    fault = FAULTS[case.split("/")[1]]
    assert result.failure_class is FailureClass(fault.failure_class), result.text
    assert (result.side_effect_possible is True) is fault.may_have_acted, result.text
    assert ("It may have taken effect" in result.text) is fault.may_have_acted, result.text


@pytest.mark.parametrize("case", params())
def test_the_proxy_reads_the_real_text(case: str, read: Callable[[str, str], ToolCallResult]) -> None:
    """``errscope proxy`` in front of the same peer declares the same class and side-effect reading in ``_meta``."""
    result = read("proxy", case)
    fault = FAULTS[case.split("/")[1]]
    meta = result.result.meta if result.result is not None else None
    assert meta is not None, result
    assert meta.get(META_FAILURE_CLASS) == fault.failure_class, (meta, result.text)
    assert (meta.get(META_SIDE_EFFECT_POSSIBLE) is True) is fault.may_have_acted, (meta, result.text)
    assert result.failure_class is FailureClass(fault.failure_class), result.text
