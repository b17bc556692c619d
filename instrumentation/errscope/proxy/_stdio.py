"""The host speaks stdio to the proxy (newline-delimited JSON-RPC, MCP spec, Transports > stdio).

Upstream is a child process (:class:`ChildServer`, restarted on the next request after it dies) or a
streamable HTTP server (:class:`HttpServer`, the SDK's client transport, both protocol eras).
Frames are relayed in order; a frame the proxy does not change is written byte for byte.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import logging
import os
import stat
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any, Final, Protocol

import httpx2
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from errscope._attributes import META_FAILURE_CLASS, META_HTTP_STATUS, META_SIDE_EFFECT_POSSIBLE
from errscope._http import class_for_mcp_endpoint_status, retry_after_from_headers
from errscope._scrubbing import scrub
from errscope._vocabulary import FailureClass
from errscope.client._answer import names_the_session, refusal_may_have_run
from errscope.client._connection import gateway_page
from errscope.proxy import _json
from errscope.proxy._calls import Calls, Message, Scope, parse_error, request_key

__all__ = ["ChildServer", "HttpServer", "serve_stdio"]

logger = logging.getLogger("errscope.proxy")

MAX_FRAME: Final = 64 * 1024 * 1024
"""Bytes of one stdio frame; a longer line is dropped with a log record, never a crash."""
_INIT_TIMEOUT: Final = 30.0
"""Seconds a restarted server has to answer the replayed ``initialize``."""
INIT_SILENCE: Final = 10.0
"""Seconds after which the host's ``initialize``, still unanswered, is said in the host's log (once per request)."""
_STOP_GRACE: Final = 2.0
_MAX_REFUSALS: Final = 1024
"""HTTP refusals remembered until the SDK's stand-in answer for them arrives."""

OnMessage = Callable[[Any, bytes | None], None]
"""Called with each decoded server message and its original frame (``None`` when re-encoded)."""
OnLost = Callable[..., None]
"""Called when the server is gone: with no arguments for every request in flight, or with ``ids`` (the requests whose
answer is lost) and ``sent`` (whether they reached the server: ``False`` when it could not be reached)."""


def encode(message: Any) -> bytes:
    """One stdio frame for ``message``: UTF-8 JSON, or ASCII JSON when it holds a lone surrogate (``"\\ud800"``
    is valid JSON, RFC 8259 §8.2, but encodes to no UTF-8): the escape goes on as an escape. Written by orjson where
    it writes the same value (:func:`errscope.proxy._json.dumps_same`: a tool call's trace context is added on the
    request's path), else by :mod:`json`."""
    data = _json.dumps_same(message)
    if data is not None:
        return data + b"\n"
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode() + b"\n"
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class Upstream(Protocol):
    silent_init_hint: str
    """What to check when the server leaves the host's ``initialize`` unanswered."""

    async def start(self, on_message: OnMessage, on_lost: OnLost) -> None: ...
    async def send(self, message: Any, frame: bytes | None) -> bool: ...
    async def stop(self) -> None: ...


class _Handshake:
    """The host's ``initialize`` and ``notifications/initialized``, kept to replay into a new upstream session (a
    restarted child, a session the HTTP server forgot: MCP, Lifecycle > Initialization). The server's answer to the
    replayed ``initialize`` is the proxy's own, never relayed to the host.

    Replayed only when the server accepted the host's ``initialize``: a host that probes both eras (the SDK's
    ``server/discover``, then ``initialize``) on a server that took the 2026-07-28 era (no handshake) had its
    ``initialize`` refused, and replaying it would open the new connection in the handshake era (mcp 2.3 decides a
    connection's era by its first request, ``serve_dual_era_loop``), which refuses every later request with -32600."""

    def __init__(self) -> None:
        self.initialize: Message | None = None
        self.initialized: Message | None = None
        self.accepted = False
        """The server answered the host's ``initialize`` with a result."""
        self._unanswered = False
        self._answer: asyncio.Future[None] | None = None

    def remember(self, message: Any) -> bool:
        """Keep ``message`` when it is part of the host's handshake; ``True`` when it was."""
        if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
            self.initialize, self.accepted, self._unanswered = message, False, True
        elif isinstance(message, dict) and message.get("method") == "notifications/initialized":
            self.initialized = message
        else:
            return False
        return True

    def answers_replay(self, message: Any) -> bool:
        """``True`` when ``message`` is the server's answer to the replayed ``initialize`` (the replay then goes on).
        Every server message passes here: the answer to the host's own ``initialize`` is noted."""
        if self._unanswered and isinstance(message, dict) and "method" not in message \
                and self.initialize is not None and message.get("id") == self.initialize.get("id"):
            self.accepted, self._unanswered = "result" in message, False
        if self._answer is None or not isinstance(message, dict) or message.get("id") != _REPLAY_ID:
            return False
        if not self._answer.done():
            self._answer.set_result(None)
        return True

    async def replay(self, send: Callable[[Message], Awaitable[object]]) -> bool:
        """Send the handshake through ``send``; ``False`` when the server gave no answer within ``_INIT_TIMEOUT``
        seconds or ``send`` failed (``OSError``). Nothing to replay (the 2026-07-28 era has no handshake) is ``True``."""
        if self.initialize is None or not self.accepted:
            return True
        self._answer = asyncio.get_running_loop().create_future()
        try:
            await send({**self.initialize, "id": _REPLAY_ID})
            await asyncio.wait_for(asyncio.shield(self._answer), _INIT_TIMEOUT)
            if self.initialized is not None:
                await send(self.initialized)
        except (OSError, TimeoutError):
            return False
        finally:
            self._answer = None
        return True


async def _exit_or_kill(process: asyncio.subprocess.Process) -> None:
    """Wait ``_STOP_GRACE`` seconds for a child whose stdin is closed to exit, then kill it (MCP, Transports >
    stdio: shutdown, which ends in SIGKILL).

    Cancelled during the grace period (a second SIGTERM or Ctrl-C; the runner cancelling every task as it closes),
    the child is killed at once and the cancellation goes on: a child is never left running after the proxy.
    """
    try:
        await asyncio.wait_for(process.wait(), _STOP_GRACE)
    except TimeoutError:
        process.kill()
        await process.wait()
    except BaseException:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        raise


async def _uncancelled(step: Awaitable[None]) -> None:
    """Await ``step`` (bounded in time, asyncio alone: it runs as its own task) to its end even when this task is
    cancelled meanwhile, then go on being cancelled.

    A host stops a stdio server by closing stdin and then sending SIGTERM (MCP, Transports > stdio: shutdown): the
    signal's cancellation can land while the relay is already stopping on the EOF, and would cut the child's grace
    period short.
    """
    running = asyncio.ensure_future(step)
    try:
        await asyncio.shield(running)
    except asyncio.CancelledError:
        await running
        raise


class ChildServer:
    """An MCP server the proxy runs as a child process, speaking stdio.

    The child's stderr reaches the proxy's (the host's log) a line at a time, scrubbed. When the child exits, :meth:`send` starts a
    new one and replays the host's ``initialize`` and ``notifications/initialized`` first, so the
    host's session goes on (2025-11-25 era; the 2026-07-28 era has no handshake to replay).
    """

    # A server that serves only streamable HTTP starts, logs its URL on stderr and never reads stdin.
    silent_init_hint = ("check that the command after -- serves MCP over stdio (a server that serves only streamable"
                        " HTTP is proxied with --upstream URL)")

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.process: asyncio.subprocess.Process | None = None
        self._handshake = _Handshake()
        self._on_message: OnMessage = lambda message, frame: None
        self._on_lost: OnLost = lambda *args, **kwargs: None
        self._reader: asyncio.Task[None] | None = None
        self._log_relay: asyncio.Task[None] | None = None
        self._cannot_start_said = False
        """The host's log was told the command cannot start; said again once it has started."""

    async def start(self, on_message: OnMessage, on_lost: OnLost) -> None:
        self._on_message, self._on_lost = on_message, on_lost
        await self._spawn()

    async def _spawn(self) -> bool:
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=MAX_FRAME,
            )
        except OSError as exc:
            # The OS's words (not found, permission denied) say what to fix; the arguments may hold secrets. Once
            # until it starts: every request tries again and fails the same way.
            if not self._cannot_start_said:
                logger.error("cannot start the MCP server %s: %s (%s); check the command after --, its PATH and"
                             " permissions", self.command[0], type(exc).__name__, exc.strerror or "no reason given")
            self._cannot_start_said = True
            self.process = None
            return False
        self._cannot_start_said = False
        self._reader = asyncio.create_task(self._read(self.process))
        assert self.process.stderr is not None
        self._log_relay = asyncio.create_task(_relay_log(self.process.stderr))
        return True

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        malformed = 0
        try:
            while line := await _readline(process.stdout, "server"):
                message, frame = _decode(line, "server")
                if message is None:
                    if line.strip():
                        malformed += 1
                        _say_malformed(line, malformed)
                    continue
                if not self._handshake.answers_replay(message):
                    self._on_message(message, frame)
        finally:
            if self.process is process:
                self.process = None
                await process.wait()
                logger.warning("the MCP server exited (status %s)", process.returncode)
                self._on_lost()

    async def send(self, message: Any, frame: bytes | None) -> bool:
        self._handshake.remember(message)
        if self.process is None:
            if not isinstance(message, dict) or "id" not in message or not await self._restart(message):
                return False
        try:
            assert self.process is not None and self.process.stdin is not None
            _write_pipe(self.process.stdin, frame if frame is not None else encode(message))
            await self.process.stdin.drain()
        except (OSError, AssertionError):  # the pipe broke: the reader will see EOF and report the loss
            return False
        return True

    async def _restart(self, message: Message) -> bool:
        if not await self._spawn():
            return False
        if message is self._handshake.initialize:
            return True
        if not await self._handshake.replay(self._write):
            logger.error("the restarted MCP server did not answer initialize")
            return False
        logger.warning("the MCP server was restarted")
        return True

    async def _write(self, message: Message) -> None:
        if self.process is None or self.process.stdin is None:
            raise BrokenPipeError("the MCP server exited")
        _write_pipe(self.process.stdin, encode(message))

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        await _uncancelled(_exit_or_kill(process))
        if self._reader is not None:
            self._reader.cancel()
        if self._log_relay is not None:  # the child's last lines, then the pipe's end
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._log_relay, _STOP_GRACE)


def _write_pipe(stdin: asyncio.StreamWriter, data: bytes) -> None:
    """Write ``data`` to a child's stdin; :class:`BrokenPipeError` when its pipe is already closed.

    A child that exits at once closes the pipe before the first write: asyncio's transport drops the bytes (and
    ``drain`` raises ``ConnectionResetError``), uvloop's raises ``RuntimeError`` ("the handler is closed"), which
    crashed the proxy with a traceback instead of answering the call ``upstream_unavailable``.
    """
    if stdin.is_closing():
        raise BrokenPipeError("the MCP server's stdin is closed")
    try:
        stdin.write(data)
    except RuntimeError as exc:  # uvloop: the transport closed between the check and the write
        raise BrokenPipeError("the MCP server's stdin is closed") from exc


_REPLAY_ID: Final = "io.errscope/proxy-replayed-initialize"
"""Request id of the ``initialize`` the proxy replays into a restarted server; its answer is not relayed."""


class HttpServer:
    """A streamable HTTP MCP server behind a stdio host, through the SDK's client transport.

    When the server refuses a request's POST with an HTTP error status and no JSON-RPC body, the SDK
    stands in an error frame whose message ("Server returned an error response") has lost the status
    and ``Retry-After``; the proxy puts them back into that frame's message, so the call is classified
    by what the server said (429: rate limited, with its wait; 401/403: access) and a stdio host learns
    it (smart-mcp-proxy/mcpproxy-go PR #1042, modelcontextprotocol/typescript-sdk #1892). Whether the call may
    have run is the client's rule (:func:`errscope.client._answer.refusal_may_have_run`), in the frame's ``data``
    (``side_effect_possible``): a 4xx refuses the request as a whole, whatever the body (a 404 to a dead session,
    MCP, Transports > Session Management; tests/heldout_cases.md J116, J117); a 5xx, 503 included, may come after
    the call ran, unless a gateway's page says it never reached the server (J77, J348).

    A server that no longer knows the session (HTTP 404 to a request carrying ``Mcp-Session-Id``, or the 400 whose
    JSON-RPC error names the session, as servers built from the TypeScript SDK's examples answer) gets a new one
    before the next request: a new transport, the host's ``initialize`` and ``notifications/initialized`` replayed
    ("MUST start a new session", MCP, Transports > Session Management). The refused call is answered
    ``upstream_unavailable``, not run, so the host may send it again (J178).
    """

    silent_init_hint = "check that --upstream is the server's MCP endpoint and that the server is not stuck"

    def __init__(self, url: str) -> None:
        self.url = url
        self._stack = AsyncExitStack()
        self._write: Any = None
        self._pump: asyncio.Task[None] | None = None
        self._on_message: OnMessage = lambda message, frame: None
        self._on_lost: OnLost = lambda *args, **kwargs: None
        self._handshake = _Handshake()
        self._unanswered: dict[str, bool] = {}
        """Requests whose POST failed below HTTP (bounded), by id: whether the request may have reached the server.
        The SDK's stand-in error for each is answered as the proxy answers a call to a server that stopped."""
        self._unreachable_said = False
        self._version: str | None = None
        """The protocol version the server answered ``initialize`` with: stamped as ``MCP-Protocol-Version`` on every
        later request (MCP 2025-06-18 and later, Transports > Protocol Version Header: the client MUST send it; a server
        without it assumes 2025-03-26, with no resumable streams)."""
        self._session_gone = False
        """The server said it no longer knows the session: the next request opens a new one."""
        self._opening: asyncio.Lock = asyncio.Lock()
        """Held while a new session opens: requests wait for it, never overtake the replayed handshake."""
        self._refusals: dict[str, tuple[str | None, bool | None, FailureClass | None, int]] = {}
        """For requests the server refused, by request id (bounded): what its HTTP answer said (``None``: the
        body's own message stands), whether the request may have been acted on, for the handshake the
        refusal's class, and the HTTP status."""

    async def _note_refusal(self, response: Any) -> None:
        self._unreachable_said = False  # it answers: the next failure to reach it is said again
        content_type = response.headers.get("content-type", "")
        redirect = 300 <= response.status_code <= 399  # followed within the origin, or left for the SDK to refuse
        refused = response.status_code >= 400 or redirect
        if response.request.method != "POST" or not refused or "event-stream" in content_type:
            return
        try:
            message = json.loads(response.request.content or b"null")
        except (ValueError, RuntimeError):
            return
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return
        said: str | None = None
        refused_as: FailureClass | None = None
        if "mcp-session-id" in response.request.headers and (
            response.status_code == 404
            or (response.status_code == 400 and "json" in content_type and names_the_session(await response.aread()))
        ):
            # The session is gone (MCP, Transports > Session Management), not a thing "not found" nor bad arguments.
            self._session_gone = True
            said = f"The MCP server no longer knows the session (HTTP {response.status_code}); a new one is opened"
            refused_as = FailureClass.UPSTREAM_UNAVAILABLE
        # A JSON-RPC body is the server's own answer, relayed with its own message (a gateway's JSON is none).
        elif redirect:
            # The SDK follows a POST's 307/308 within the origin (up to its budget) and fails the request on any other
            # (-32600 "Redirect to … not followed"): when this is the last answer, the request reached no tool.
            said = f"The MCP server answered HTTP {response.status_code}, a redirect that was not followed"
        elif response.status_code != 404 and not ("json" in content_type and _is_jsonrpc(await response.aread())):
            said = f"The MCP server answered HTTP {response.status_code} {response.reason_phrase}".rstrip()
            wait = retry_after_from_headers(response.headers.get)
            if wait is not None:
                said += f"; retry after {wait:g} s"
            if message["method"] == "initialize":
                # No call span covers the handshake: its class goes to the host, which says why no session opened
                # (421 from the SDKs' DNS-rebinding protection reads as no class from the words alone).
                refused_as = class_for_mcp_endpoint_status(response.status_code)
        if message["method"] == "initialize" and not self._session_gone:
            # The host only learns that no session opened; what to fix belongs in the proxy's log (the host's).
            logger.error("the MCP server at %s refused initialize with HTTP %d %s; %s", scrub(self.url),
                         response.status_code, scrub(response.reason_phrase), _refused_initialize_hint(response.status_code))
        if len(self._refusals) >= _MAX_REFUSALS:
            self._refusals.pop(next(iter(self._refusals)))
        # The client's rule (J77): a 5xx may come after the call ran, unless a gateway says it never reached the server.
        status = response.status_code
        page = await gateway_page(response) if status in (502, 503) else ""
        side_effect = not redirect and refusal_may_have_run(status, page)
        self._refusals[json.dumps(message["id"])] = (said, side_effect, refused_as, response.status_code)

    def _note_transport_failure(self, request: Any, exc: Exception, *, sent: bool) -> None:
        """A POST failed below HTTP (refused, reset, timed out): remember its request for the SDK's stand-in answer.

        ``sent``: whether the request may have reached the server (``False`` for a connection never made: nothing was
        sent, RFC 9110 §9.2.2 does not apply)."""
        try:
            message = json.loads(request.content or b"null")
        except (ValueError, RuntimeError):
            return
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return
        if len(self._unanswered) >= _MAX_REFUSALS:
            self._unanswered.pop(next(iter(self._unanswered)))
        self._unanswered[json.dumps(message["id"])] = sent
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if not sent:
            # Once until the server answers again: every call fails the same way while it is down.
            if not self._unreachable_said:
                logger.error("cannot reach the MCP server at %s (%s); requests are answered as not sent until it"
                             " answers: check --upstream and that the server is running", scrub(self.url), reason)
            self._unreachable_said = True
        else:
            logger.warning("the MCP server at %s dropped a request before answering (%s); it may have acted on it",
                           scrub(self.url), reason)

    async def start(self, on_message: OnMessage, on_lost: OnLost) -> None:
        self._on_message, self._on_lost = on_message, on_lost
        await self._open()

    async def _open(self) -> None:
        from mcp.client.streamable_http import streamable_http_client

        http = await self._stack.enter_async_context(_AnsweringClient(self._note_transport_failure))
        http.event_hooks["response"].append(self._note_refusal)
        read, self._write = await self._stack.enter_async_context(streamable_http_client(self.url, http_client=http))

        async def pump() -> None:
            async for item in read:
                if isinstance(item, Exception):
                    logger.warning("streamable HTTP transport: %s", type(item).__name__)
                    continue
                message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                self._note_version(message)
                if self._handshake.answers_replay(message):
                    continue
                sent = self._unanswered.pop(json.dumps(message.get("id")), None) if "id" in message else None
                if sent is not None and "error" in message:  # the SDK's stand-in for a POST that failed below HTTP
                    self._on_lost(ids=[message["id"]], sent=sent)
                    continue
                refusal = self._refusals.pop(json.dumps(message.get("id")), None) if "id" in message else None
                if refusal is not None and isinstance(message.get("error"), dict):
                    message["error"] = _refused(message["error"], *refusal)
                self._on_message(message, None)
            self._on_lost()

        self._pump = asyncio.create_task(pump())

    async def send(self, message: Any, frame: bytes | None) -> bool:
        is_request = not self._handshake.remember(message) and isinstance(message, dict) and "id" in message
        if is_request and (self._session_gone or self._opening.locked()):
            async with self._opening:
                if self._session_gone and not await self._new_session():
                    return False
        return await self._send(message)

    def _note_version(self, message: Any) -> None:
        """Remember the version of the server's answer to ``initialize`` (the host's or the replayed one)."""
        initialize = self._handshake.initialize
        if not isinstance(message, dict) or initialize is None or message.get("id") not in (initialize.get("id"), _REPLAY_ID):
            return
        result = message.get("result")
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str) and version not in MODERN_PROTOCOL_VERSIONS and "serverInfo" in result:
            self._version = version

    async def _send(self, message: Any) -> bool:
        from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
        from mcp.shared.message import ClientMessageMetadata, SessionMessage
        from mcp_types import jsonrpc_message_adapter
        from pydantic import ValidationError

        try:
            parsed = jsonrpc_message_adapter.validate_python(message, by_name=False)
        except ValidationError:
            logger.warning("not a JSON-RPC message; dropped")
            return False
        initializing = isinstance(message, dict) and message.get("method") == "initialize"
        if self._version is not None and not initializing:
            # The SDK's transport sends the header only as its ClientSession stamps it; the proxy's messages are raw.
            stamp = ClientMessageMetadata(headers={MCP_PROTOCOL_VERSION_HEADER: self._version})
            await self._write.send(SessionMessage(parsed, metadata=stamp))
        else:
            await self._write.send(SessionMessage(parsed))
        return True

    async def _new_session(self) -> bool:
        """A new transport (no session id) and the host's handshake replayed into it; its answer is not relayed."""
        self._session_gone = False
        self._version = None  # the replayed initialize's answer names the new session's
        await self._close()
        await self._open()
        if not await self._handshake.replay(self._send):
            logger.error("the MCP server did not answer initialize on a new session")
            return False
        logger.warning("the MCP server had ended the session; a new one was opened")
        return True

    async def _close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
        await self._stack.aclose()
        self._stack = AsyncExitStack()

    async def stop(self) -> None:
        await self._close()


_NOT_SENT: Final = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout, httpx2.UnsupportedProtocol)
"""Transport failures that leave the request unsent: no connection was made (``ProxyError`` may follow a sent one)."""


class _AnsweringClient(httpx2.AsyncClient):
    """The SDK's HTTP client, which answers a POST that fails below HTTP instead of raising.

    The SDK's streamable HTTP client runs each POST in its transport's task group without catching transport errors:
    one refused connection (the server down, a wrong ``--upstream`` port) or one connection reset mid-answer (the
    server killed) ended the whole relay with a traceback, every other call in flight unanswered. Here such a POST
    gets a stand-in 502 (the SDK then answers its request with a JSON-RPC error), a body that breaks off ends where it
    broke, and ``on_failure(request, exc, sent=...)`` says which request it was, so :class:`HttpServer` answers it as
    the proxy answers a call to a stopped server. Other methods (the SDK's GET stream, its DELETE) raise as before:
    the SDK handles those.
    """

    def __init__(self, on_failure: Callable[..., None]) -> None:
        from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

        # The timeouts of the SDK's create_mcp_http_client().
        super().__init__(timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT))
        self._on_failure = on_failure

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:  # type: ignore[override]
        try:
            response = await super().send(request, **kwargs)
        except httpx2.TransportError as exc:
            if request.method != "POST":
                raise
            self._on_failure(request, exc, sent=not isinstance(exc, _NOT_SENT))
            return httpx2.Response(502, request=request)
        if request.method == "POST" and isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _BrokenOff(response.stream, lambda exc: self._on_failure(request, exc, sent=True))
        return response


class _BrokenOff(httpx2.AsyncByteStream):
    """A response body that ends where the connection broke, after telling ``on_failure``."""

    def __init__(self, stream: httpx2.AsyncByteStream, on_failure: Callable[[Exception], None]) -> None:
        self._stream = stream
        self._on_failure = on_failure

    async def __aiter__(self) -> Any:
        try:
            async for chunk in self._stream:
                yield chunk
        except httpx2.TransportError as exc:
            self._on_failure(exc)

    async def aclose(self) -> None:
        await self._stream.aclose()


def _refused_initialize_hint(status: int) -> str:
    """What to check when the server behind ``--upstream`` refuses the host's ``initialize`` with HTTP ``status``."""
    if status in (404, 405) or 300 <= status <= 399:
        return ("check that --upstream is the server's MCP endpoint, path included (streamable HTTP servers commonly"
                " serve /mcp; a redirect is not followed)")
    if status in (401, 403):
        return ("the server wants credentials, and a stdio host's proxy sends none: run errscope proxy with --listen"
                " behind an HTTP host, which passes the host's Authorization header on")
    if status == 421:
        return "the server's DNS-rebinding protection refused the Host header: allow the host --upstream names"
    return "check the server's own log"


def _refused(error: Message, said: str | None, side_effect_possible: bool | None, cls: FailureClass | None,
             status: int) -> Message:
    """``error`` with the HTTP answer's words (when the body had none), whether the request may have run, the
    refusal's class when one is known, and its HTTP status (:data:`META_HTTP_STATUS`: the call's upstream event)."""
    error = {**error, "message": said} if said is not None else dict(error)
    data = error.get("data")
    if data is None or isinstance(data, dict):
        extra: dict[str, Any] = {META_HTTP_STATUS: status}
        if side_effect_possible is not None:
            extra[META_SIDE_EFFECT_POSSIBLE] = side_effect_possible
        if cls is not None and cls is not FailureClass.UNKNOWN:
            extra[META_FAILURE_CLASS] = cls.value
        if extra:
            error["data"] = {**(data or {}), **extra}
    return error


def _is_jsonrpc(body: bytes) -> bool:
    """Whether ``body`` holds a JSON-RPC message (JSON-RPC 2.0 §4-5): an object with ``"jsonrpc": "2.0"``."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0"


_LOG_LINE: Final = 64 * 1024
"""Bytes of a child's stderr line relayed as one piece; a longer line is scrubbed and relayed in pieces this long."""


async def _relay_log(stream: asyncio.StreamReader) -> None:
    """Copy a child server's stderr to the proxy's, each line through :func:`~errscope._scrubbing.scrub`: a server
    logs the same secrets its error texts carry (a crash's environment dump, a connection string), and the host
    keeps its servers' stderr in its own log (MCP spec, Transports > stdio: the server MAY write UTF-8 log lines
    to stderr, the client MAY capture them). Bytes that are not UTF-8 become U+FFFD."""
    pending = b""
    while chunk := await stream.read(_LOG_LINE):
        *lines, pending = (pending + chunk).split(b"\n")
        if len(pending) >= _LOG_LINE:
            lines.append(pending)
            pending = b""
        _write_log(lines)
    if pending:
        _write_log([pending])


def _write_log(lines: list[bytes]) -> None:
    try:
        sys.stderr.write("".join(scrub(line.decode("utf-8", "replace")) + "\n" for line in lines))
        sys.stderr.flush()
    except (OSError, ValueError):  # the host closed our stderr: its log is gone, the relay goes on
        pass


async def _readline(stream: asyncio.StreamReader, side: str) -> bytes:
    while True:
        try:
            return await stream.readline()
        except ValueError:  # longer than MAX_FRAME: the rest of the line is discarded by the reader
            logger.warning("a frame from the %s longer than %d bytes was dropped", side, MAX_FRAME)


def _decode(frame: bytes, side: str) -> tuple[Any | None, bytes | None]:
    """The message in ``frame`` (``None`` for a blank or malformed one) and the bytes to relay for it.

    MCP messages are UTF-8 (MCP spec, Basic > Messages): bytes that are not are replaced with U+FFFD, so a
    server's bad byte costs one character of its answer, not the whole answer (and the host's call its
    timeout); such a frame is re-encoded, never relayed byte for byte (NousResearch/hermes-agent PR #46104,
    modelcontextprotocol/python-sdk PR #2302).

    A Windows peer's framing is relayed as plain MCP stdio: its byte order mark dropped (RFC 8259 §8.1: a parser
    MAY ignore one) and a CRLF ending relayed as LF (MCP spec, Transports > stdio: messages are delimited by
    newlines; python-sdk #2433), so a strict peer on the other side reads it.
    """
    if not frame.strip():
        return None, None
    frame = frame.removeprefix(codecs.BOM_UTF8)
    if frame.endswith(b"\r\n"):
        frame = frame[:-2] + b"\n"
    try:
        return _json.loads(frame), frame  # orjson where it reads the same value: every answer is read
    except UnicodeDecodeError:
        logger.warning("a frame from the %s held bytes that are not UTF-8; replaced with U+FFFD", side)
        try:
            return json.loads(frame.decode("utf-8", "replace")), None
        except (ValueError, RecursionError):
            pass
    except (ValueError, RecursionError):  # nested deeper than the reader recurses: malformed too
        pass
    return None, None


_MALFORMED_SAID: Final = 3
"""Malformed frames from one server process that get a line of their own; the rest are dropped without one."""


def _say_malformed(frame: bytes, count: int) -> None:
    """Log the ``count``-th malformed frame of a server process: its start (scrubbed) and, the first time, the usual
    cause (a server that prints a banner or logs to stdout, which is the MCP stream); a server that writes nothing but
    text would otherwise flood the host's log with one line per line."""
    if count <= _MALFORMED_SAID:
        start = scrub(frame[:60].decode("utf-8", "replace").strip())
        hint = ("; a stdio MCP server must write only JSON-RPC messages to stdout (its own output goes to stderr)"
                if count == 1 else "")
        logger.warning("a malformed frame from the server was dropped (%d bytes: %r)%s", len(frame), start, hint)
    elif count == _MALFORMED_SAID + 1:
        logger.warning("further malformed frames from this server are dropped without a line each")


def _is_file(fd: int) -> bool:
    """``fd`` is a regular file (``< frames.jsonl``) or a character device other than a terminal (``/dev/null``: a
    host or service manager that gives the proxy no stdin), read and written in a worker thread. Pipe transports
    refuse a regular file (asyncio raises) and uvloop's abort the process on both (SIGABRT, nothing said)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd))


async def _feed_from_file(fd: int, reader: asyncio.StreamReader) -> None:
    while chunk := await asyncio.to_thread(os.read, fd, 1 << 16):
        reader.feed_data(chunk)
    reader.feed_eof()


class _FileWriter:
    """The host's stdout when it is a regular file: the two calls of a write transport the relay makes."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def close(self) -> None:
        pass


async def serve_stdio(upstream: Upstream, calls: Calls) -> None:
    """Relay between this process's stdin/stdout and ``upstream`` until the host closes stdin."""
    loop = asyncio.get_running_loop()
    host_in = asyncio.StreamReader(limit=MAX_FRAME)
    if _is_file(sys.stdin.fileno()):  # ``< frames.jsonl``, /dev/null: read in a worker thread, a file is never "ready" to poll
        reading = loop.create_task(_feed_from_file(sys.stdin.fileno(), host_in))
    else:
        reading = None
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(host_in), os.fdopen(sys.stdin.fileno(), "rb", 0, closefd=False))
    out_transport: Any
    if _is_file(sys.stdout.fileno()):  # ``> out.jsonl``, /dev/null: written as it comes, a file write does not block
        out_transport = _FileWriter(sys.stdout.fileno())
    else:
        out_transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(sys.stdout.fileno(), "wb", 0, closefd=False))
    scope = Scope()
    # The host's initialize by its id, with the timer that says it is still unanswered: a server that never answers
    # leaves the host waiting in silence, its own timeout the only word (MCP, Lifecycle > Timeouts).
    unanswered: dict[str, asyncio.TimerHandle] = {}

    def say_unanswered() -> None:
        logger.warning("the MCP server has not answered initialize in %g s; %s", INIT_SILENCE, upstream.silent_init_hint)

    def answered(key: str) -> None:
        if timer := unanswered.pop(key, None):
            timer.cancel()

    def to_host(message: Any, frame: bytes | None) -> None:
        if unanswered and "id" in message and "method" not in message:
            answered(request_key(message["id"]))
        if calls.answers_nothing(scope, message):
            logger.warning("an answer to no request of the host (id %s) was dropped",
                           "null" if not isinstance(message.get("id"), (str, int)) else "already answered")
            return
        answer = calls.from_server(scope, message)
        out_transport.write(frame if answer is message and frame is not None else encode(answer))

    def lost(ids: list[Any] | None = None, sent: bool | None = None) -> None:
        keys = None if ids is None else [request_key(i) for i in ids]
        for key in list(unanswered) if keys is None else keys:
            answered(key)
        for answer in calls.lost(scope, keys=keys, sent=sent):
            out_transport.write(encode(answer))

    await upstream.start(to_host, lost)
    try:
        while frame := await _readline(host_in, "host"):
            if not frame.strip():
                continue
            try:
                message = _json.loads(frame)
            except (ValueError, RecursionError):
                logger.warning("a malformed frame from the host was answered with -32700 (%d bytes)", len(frame))
                out_transport.write(encode(parse_error()))
                continue
            forwarded = calls.from_host(scope, message)
            if await upstream.send(forwarded, frame if forwarded is message else None):
                calls.sent(scope, forwarded)
                if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
                    unanswered[request_key(message["id"])] = loop.call_later(INIT_SILENCE, say_unanswered)
            elif isinstance(message, dict) and "id" in message and "method" in message:
                for answer in calls.lost(scope, keys=[request_key(message["id"])]):
                    out_transport.write(encode(answer))
    finally:
        # The host closed stdin (MCP, Transports > stdio: shutdown): the server gets its stdin closed and a grace period,
        # and what it answers meanwhile (a batch host's ``< frames.jsonl``) is shaped and recorded as any answer; only
        # what is still unanswered after that is abandoned (it was relayed raw, without a span, when abandoned first).
        for key in list(unanswered):
            answered(key)
        try:
            await upstream.stop()
        finally:  # a stop signal landing in the stop still loses no answered call's telemetry
            calls.abandon(scope)
            calls.flush()
            out_transport.close()
            if reading is not None:
                reading.cancel()

