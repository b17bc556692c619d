"""One broken HTTP request fails one call, never the session (found under load in CI).

mcp 2.3's streamable HTTP client lets a transport error of one POST (a reset keep-alive
connection, a refused connect) crash the whole session: every call in flight failed, and calls
made while the session tore down were told "no request was sent" by a session that looked alive.
Here a TCP relay on 127.0.0.1 sits between ``ToolClient`` and a real ``MCPServer``
(``servers/plain_server.py``) and breaks connections the way networks do.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import anyio.abc
import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolClient
from tests.client.conftest import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

MARKER = b"CUT-THIS-CONNECTION"
_GONE = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError)


class Relay:
    """Forwards TCP to the server; closes a connection whose request carries MARKER, unforwarded;
    can stop and start listening (the server "going away" for new connections)."""

    def __init__(self, upstream_port: int, tg: anyio.abc.TaskGroup) -> None:
        self.upstream_port = upstream_port
        self.tg = tg
        self.port = free_port()
        self.cut = 0
        self._listening: anyio.CancelScope | None = None
        self._connections: set[anyio.abc.SocketStream] = set()

    async def listen(self) -> None:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=self.port)
        scope = self._listening = anyio.CancelScope()

        async def serve() -> None:
            with scope:
                async with listener:
                    await listener.serve(self._relay, task_group=self.tg)

        self.tg.start_soon(serve)

    async def go_away(self) -> None:
        """Stop listening and drop every open connection."""
        assert self._listening is not None
        self._listening.cancel()
        for stream in list(self._connections):
            await stream.aclose()

    async def _relay(self, client: anyio.abc.SocketStream) -> None:
        self._connections.add(client)
        try:
            with contextlib.suppress(*_GONE):
                async with client, await anyio.connect_tcp("127.0.0.1", self.upstream_port) as server:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(self._down, server, client, tg.cancel_scope)
                        with contextlib.suppress(*_GONE):
                            async for chunk in client:
                                if MARKER in chunk:
                                    self.cut += 1
                                    break
                                await server.send(chunk)
                        tg.cancel_scope.cancel()
        finally:
            self._connections.discard(client)

    @staticmethod
    async def _down(server: anyio.abc.SocketStream, client: anyio.abc.SocketStream, scope: anyio.CancelScope) -> None:
        with contextlib.suppress(*_GONE):
            async for chunk in server:
                await client.send(chunk)
        scope.cancel()


@pytest.fixture
async def relay(http_server: Any) -> Any:
    url = http_server("plain_server.py")
    async with anyio.create_task_group() as tg:
        relay = Relay(int(url.rsplit(":", 1)[1].split("/")[0]), tg)
        await relay.listen()
        yield relay
        tg.cancel_scope.cancel()


async def test_a_cut_connection_fails_its_call_alone(telemetry: Any, relay: Relay) -> None:
    async with ToolClient(f"http://127.0.0.1:{relay.port}/mcp", **telemetry.providers) as tc:
        assert (await tc.call_tool("echo", {"text": "warm-up"})).ok
        session = tc.connection.current
        results: dict[str, Any] = {}

        async def call(key: str, tool: str, arguments: dict[str, Any]) -> None:
            results[key] = await tc.call_tool(tool, arguments)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "slow", "slow", {"seconds": 1.0})
            await anyio.sleep(0.2)  # the slow call is in flight when the other connection is cut
            tg.start_soon(call, "cut", "echo", {"text": MARKER.decode()})

        assert relay.cut == 1
        cut = results["cut"]
        assert cut.outcome is Outcome.ERROR and cut.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert cut.side_effect_possible is True  # the request was written: the tool may have run
        assert "was lost while echo was running. It may or may not have taken effect" in cut.text
        assert cut.attempts == 1  # echo is not declared safe to repeat
        assert results["slow"].ok and results["slow"].text == "slept 1.0"  # the session survived
        after = await tc.call_tool("echo", {"text": "still here"})
        assert after.ok and after.text == "still here"
        assert tc.connection.current is session  # no reconnect was needed

    [span] = [s for s in telemetry.spans("tools/call echo") if (s.attributes or {}).get("errscope.outcome") == "error"]
    assert span.attributes is not None and span.attributes["error.type"] == "connection_error"


async def test_refused_connect_is_not_sent_and_the_session_recovers(telemetry: Any, relay: Relay) -> None:
    async with ToolClient(f"http://127.0.0.1:{relay.port}/mcp", **telemetry.providers) as tc:
        assert (await tc.call_tool("echo", {"text": "warm-up"})).ok
        session = tc.connection.current
        await relay.go_away()
        refused = await tc.call_tool("echo", {"text": "nobody listens"})
        assert refused.outcome is Outcome.ERROR and refused.side_effect_possible is False
        assert "is unavailable; no request was sent." in refused.text
        await relay.listen()
        back = await tc.call_tool("echo", {"text": "back"})
        assert back.ok and back.text == "back"
        assert tc.connection.current is session
