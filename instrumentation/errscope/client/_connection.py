"""The client's connection to one server: transport, session lifecycle, reconnects, tool listing.

The SDK has no client middleware, so errscope owns the connection: it wraps the transport with a
:class:`~errscope.client._wire.WireTap` and runs the ``mcp.Client`` in a task of its own (so a lost
session can be re-opened from any caller's task). :class:`ServerConnection` is everything
``ToolClient`` knows about "the server is there": it opens a session on demand, re-opens a lost
one (never two at once), and keeps the :class:`~errscope.client._catalog.ToolCatalog` filled.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Final, TextIO
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx2
from mcp import Client
from mcp.client._transport import Transport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from opentelemetry import trace
from opentelemetry.trace import Link, StatusCode

from errscope._attributes import ERROR_TYPE, MCP_METHOD_NAME, RPC_RESPONSE_STATUS_CODE
from errscope._classify import classify
from errscope._foreign_text import safe_excerpt
from errscope._http import class_for_mcp_endpoint_status, retry_after_from_headers
from errscope._messages import safe_name
from errscope._scrubbing import scrub
from errscope._vocabulary import FailureClass
from errscope.client import _answer as answer
from errscope.client._catalog import ToolCatalog
from errscope.client._telemetry import ClientTelemetry
from errscope.client._wire import (
    CURRENT_ATTEMPT,
    UNDECODABLE,
    WireAttempt,
    WireTap,
    observe_http_parsing,
    observe_stdio_parsing,
)

__all__ = ["Connection", "ServerConnection", "Target", "describe", "gateway_page"]

logger = logging.getLogger("errscope.client")

Server = str | StdioServerParameters | Callable[[], Transport]


@dataclass(slots=True, eq=False)
class Connection:
    """One session: its wire tap, the task that runs it, and the ``mcp.Client`` once it is ready."""

    tap: WireTap
    ready: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    client: Client | None = None
    error: BaseException | None = None
    ending: bool = False
    """The session is going away (closed by us, or one of its tasks crashed); its teardown may still run."""
    protocol_version: str | None = None
    """The version negotiated when the session opened (fixed for the session's life)."""

    @property
    def alive(self) -> bool:
        return self.client is not None and not self.ending and not self.done.is_set() and not self.tap.closed


def _exec_refusal(error: BaseException | None) -> str | None:
    """The OS's reason when ``error`` (or one exception of its group) says a stdio server's command could not be run
    at all: not found, not executable, not a directory on its path (``execve(2)``'s ENOENT, EACCES, ENOTDIR)."""
    if isinstance(error, BaseExceptionGroup):
        return next((said for inner in error.exceptions if (said := _exec_refusal(inner)) is not None), None)
    if isinstance(error, (FileNotFoundError, PermissionError, NotADirectoryError)):
        return error.strerror or type(error).__name__
    return None


_NOT_AN_ENDPOINT: Final = frozenset({404, 405})
"""HTTP statuses to the handshake's POST that say the URL is no MCP endpoint (Not Found, Method Not Allowed: a GET-only
page): a wrong path, said once on the ``errscope.client`` logger."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the server refused the session before any call reached it: a policy or an incompatibility that no retry
    changes, so neither an outage nor a breaker failure."""

    failure_class: FailureClass
    reason: str
    """Completes "Tool server X …"."""
    advice: str


def refusal(tap: WireTap) -> Refusal | None:
    """What the handshake on ``tap`` says about a session that did not open, when it was refused rather than lost.

    - The server's ``initialize`` answer named a protocol version the SDK does not speak (MCP 2025-11-25, Lifecycle >
      Version Negotiation: the client SHOULD disconnect): ``unknown``, since only an upgrade of either side helps.
    - The handshake's POST was answered with an HTTP status that refuses access (401, 403, and 421 from the SDKs'
      DNS-rebinding protection: :func:`errscope._http.class_for_mcp_endpoint_status`), or ``initialize`` with an
      error an errscope peer (``errscope proxy``) classed so: ``permission_denied``.
    """
    offered = tap.offered_version
    if offered is not None and offered not in HANDSHAKE_PROTOCOL_VERSIONS:
        return Refusal(
            FailureClass.UNKNOWN,
            f"answered with MCP protocol version {safe_name(offered)!r}, which this client does not support",
            "Don't retry; the server or the client must be upgraded.",
        )
    status, error = tap.handshake_status, tap.handshake_error
    if status is not None and class_for_mcp_endpoint_status(status) is FailureClass.PERMISSION_DENIED:
        said = f"HTTP {status}"
    elif error is not None and answer.declared_class(error.data if isinstance(error.data, dict) else {}) is FailureClass.PERMISSION_DENIED:
        said = safe_excerpt(error.message, limit=160)
    else:
        return None
    return Refusal(FailureClass.PERMISSION_DENIED, f"refused the connection ({said})",
                   "Don't retry; the server's access settings (credentials, allowed hosts) must change.")


@dataclass(slots=True)
class Target:
    """How spans and notes name the server (never userinfo, query or secrets of the address)."""

    display: str
    transport: str | None
    address: str | None
    port: int | None


def _negotiated_version(client: Client) -> str | None:
    try:
        return client.protocol_version
    except Exception:  # boundary: not negotiated
        return None


def describe(server: object) -> Target:
    """How spans and notes name ``server``.

    Raises:
        ValueError: a string that is not an ``http://`` or ``https://`` URL with a host, and
        TypeError: anything but a string, ``StdioServerParameters`` or a callable: no connection can ever be made, so
            the host's code is told where it names the server, not the model "unavailable, try again later" on each call.
    """
    if isinstance(server, str):
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            # The string itself is not repeated: without a scheme the scrubber cannot tell userinfo from a path.
            raise ValueError("ToolClient needs the server's streamable HTTP URL, http:// or https:// and a host, such as"
                             " http://127.0.0.1:8000/mcp")
        host = parts.hostname
        port = parts.port
        netloc = f"[{host}]" if ":" in host else host
        if port is not None:
            netloc = f"{netloc}:{port}"
        return Target(f"{parts.scheme}://{netloc}{parts.path}", "tcp", host or None, port)
    if isinstance(server, StdioServerParameters):
        return Target(os.path.basename(server.command), "pipe", None, None)
    if not callable(server):
        raise TypeError(f"ToolClient needs a streamable HTTP URL, StdioServerParameters or a function returning an mcp"
                        f" transport, not {type(server).__name__}")
    return Target("the tool server", None, None, None)


def _host_stderr(stack: AsyncExitStack) -> TextIO:
    """Where a stdio server's stderr goes: the host's own, as the SDK does (MCP, Transports > stdio: the
    server's log, which clients may capture, forward or ignore), so a server that dies says why; ``/dev/null``
    when the host's stderr has no file descriptor to hand to the process."""
    try:
        sys.stderr.fileno()
        return sys.stderr
    except (AttributeError, OSError, ValueError):
        devnull = open(os.devnull, "w")  # noqa: SIM115 - closed with the connection
        stack.callback(devnull.close)
        return devnull


async def _refuses_the_session(response: Any) -> bool:
    """Whether a 400 to a request that carried ``Mcp-Session-Id`` is a JSON-RPC error about the session
    (:func:`errscope.client._answer.names_the_session`): read as the spec's 404, nothing was processed. The body is
    read here (httpx keeps it for the SDK, which reads it next); any other 400 is left to the SDK."""
    if not response.headers.get("content-type", "").lower().startswith("application/json"):
        return False
    length = response.headers.get("content-length", "0").strip()
    if not length.isdigit() or int(length) > answer.MAX_REFUSAL_BODY:
        return False
    try:
        return answer.names_the_session(await response.aread())
    except httpx2.HTTPError:
        return False


async def gateway_page(response: Any) -> str:
    """The start of a 5xx answer's body (a gateway's error page: Envoy's, Cloudflare's, HAProxy's, Kong's JSON), at most
    :data:`~errscope.client._answer.MAX_REFUSAL_BODY` bytes; empty for an event stream or a body that cannot be read.

    A body of known length is read whole and kept by httpx for the SDK, which reads a JSON one for its JSON-RPC error;
    one of unknown length only when it is no JSON (the SDK never reads it), and only its start."""
    kind = response.headers.get("content-type", "").lower()
    length = response.headers.get("content-length", "").strip()
    try:
        if length.isdigit():
            return "" if int(length) > answer.MAX_REFUSAL_BODY else (await response.aread()).decode("utf-8", "replace")
        if kind.startswith(("application/json", "text/event-stream")):
            return ""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= answer.MAX_REFUSAL_BODY:
                break
    except httpx2.HTTPError:
        return ""
    return b"".join(chunks)[: answer.MAX_REFUSAL_BODY].decode("utf-8", "replace")


def _http_client_with_trace_headers(max_connections: int, session: dict[str, str], tap: WireTap) -> Any:
    """An httpx2 client (the SDK's timeouts) that mirrors ``_meta`` trace keys into W3C headers,
    records the HTTP status and ``Retry-After`` of each attempt's POST on the attempt (the SDK keeps
    neither), remembers the server's ``Mcp-Session-Id`` (2025-era sessions) in ``session["id"]``, and tells
    ``tap`` when the server has ended that session (HTTP 404 to a request carrying it: MCP,
    Transports > Session Management, "MUST start a new session"; or the 400 whose JSON-RPC error speaks of the
    session, which servers built on the TypeScript SDK's examples send instead: :func:`_refuses_the_session`)."""
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    async def copy_trace_headers(request: Any) -> None:
        try:
            body = json.loads(request.content or b"null")
        except (ValueError, RuntimeError, TypeError):
            return
        meta = body.get("params", {}).get("_meta") if isinstance(body, dict) else None
        if not isinstance(meta, dict):
            return
        for key in ("traceparent", "tracestate", "baggage"):
            if isinstance(meta.get(key), str):
                request.headers[key] = meta[key]

    async def remember_session(response: Any) -> None:
        attempt = CURRENT_ATTEMPT.get()  # the POST runs in the sending caller's context
        if attempt is not None and response.request.method == "POST":
            # Every answer of the redirect chain passes here; only the last one can be a redirect left unfollowed.
            attempt.http_redirect = response.status_code if 300 <= response.status_code <= 399 else None
        if attempt is not None and attempt.http_status is None and response.request.method == "POST":
            attempt.http_status = response.status_code
            attempt.http_retry_after = retry_after_from_headers(response.headers.get)
            if response.status_code >= 500:
                page = await gateway_page(response) if response.status_code in (502, 503) else ""
                attempt.gateway_not_forwarded = not answer.refusal_may_have_run(response.status_code, page)
        elif attempt is None and response.status_code >= 400 and response.request.method == "POST":
            tap.handshake_status = tap.handshake_status or response.status_code
        if "mcp-session-id" in response.request.headers and (
            response.status_code == 404 or (response.status_code == 400 and await _refuses_the_session(response))
        ):
            # Not run only when this 404 answered the call's own POST: one to the GET resuming its stream (the POST
            # was taken, the tool may have run; typescript-sdk #2499, a restart or a balancer between) says nothing of it.
            taken = attempt is not None and attempt.http_status is not None and 200 <= attempt.http_status <= 299
            tap.session_ended(refused_the_call=response.request.method == "POST" and not taken)
            return
        value = response.headers.get("mcp-session-id")
        if value:
            session["id"] = value

    # An idle connection is dropped before the common servers drop it (uvicorn's and Node's keep-alive
    # timeout is 5 s, httpx2's expiry too): a POST reusing a connection the server is closing is lost.
    limits = httpx2.Limits(
        max_connections=max_connections, max_keepalive_connections=min(20, max_connections), keepalive_expiry=4.0
    )
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        transport=_OnePostFails(httpx2.AsyncHTTPTransport(limits=limits)),
        event_hooks={"request": [copy_trace_headers], "response": [remember_session]},
    )


class _OnePostFails(httpx2.AsyncBaseTransport):
    """An httpx2 transport on which a POST's transport error fails that POST alone.

    mcp 2.3's streamable HTTP client runs each POST as a task of the session's transport and does
    not catch transport errors there: one reset keep-alive connection (``httpx2.ReadError``), a
    refused connect or a pool timeout crashes the session and every call in flight with it. This
    answers such a POST with a bodiless 502, for which the SDK stands in an error frame for that
    request only (the wire tap knows it is not the server's), and leaves the real failure's
    classification, sent or not (:func:`errscope.classify`), on the attempt it carried. GET and
    DELETE errors the SDK handles itself.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as exc:
            if request.method != "POST":
                raise
            attempt = CURRENT_ATTEMPT.get()  # the POST runs in the sending caller's context
            if attempt is not None:
                attempt.transport_failure = classify(exc)
            logger.debug("POST to the tool server failed in transport: %s", type(exc).__qualname__)
            return httpx2.Response(502, request=request)
        if request.method == "POST":
            response.stream = _BodyCutEndsThatPost(response.stream, CURRENT_ATTEMPT.get())
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _BodyCutEndsThatPost(httpx2.AsyncByteStream):
    """A POST's response body whose transport error (the connection cut mid-answer: ``RemoteProtocolError``,
    ``ReadError``) ends that body early instead of raising.

    mcp 2.3 reads a JSON answer's body without catching transport errors, so one cut answer crashed the
    session and every call in flight with it (openai/openai-agents-python PR #2683; tests/heldout_cases.md
    J109). Ended early, the body is an answer the SDK cannot parse (it stands in an error for that request
    alone) or an SSE stream that ended (it resumes from the last event id, or gives up on that request).
    The attempt keeps the real failure: the server had the request, so it may have run.
    """

    def __init__(self, inner: Any, attempt: WireAttempt | None) -> None:
        self._inner = inner
        self._attempt = attempt

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx2.TransportError as exc:
            if self._attempt is not None and self._attempt.transport_failure is None:
                self._attempt.transport_failure = replace(classify(exc), side_effect_possible=True)
            logger.debug("answer from the tool server cut in transport: %s", type(exc).__qualname__)

    async def aclose(self) -> None:
        await self._inner.aclose()


class ServerConnection:
    """Opens, re-opens and lists one server's session; see the module docstring."""

    def __init__(
        self,
        server: Server,
        *,
        catalog: ToolCatalog,
        telemetry: ClientTelemetry,
        mode: str,
        client_options: Mapping[str, Any],
        connect_timeout: float,
        list_timeout: float,
        http_max_connections: int,
    ) -> None:
        self.server = server
        self.catalog = catalog
        self.telemetry = telemetry
        self.mode = mode
        self.client_options = dict(client_options)
        self.connect_timeout = connect_timeout
        self.list_timeout = list_timeout
        self.http_max_connections = http_max_connections
        self.current: Connection | None = None
        self.session: dict[str, str] = {}
        self.tg: anyio.abc.TaskGroup | None = None
        self._lock = anyio.Lock()
        self.exited_at_start = False
        """The last start of a stdio server ended with the process gone before the handshake finished."""
        self.silent_at_start = False
        """The last start of a stdio server ran ``connect_timeout`` seconds without an answer to the handshake."""
        self.start_answer: str | None = None
        """The server's own error answer to ``initialize`` in the last failed start (scrubbed, one line), if it gave
        one: then it did not exit on its own, it refused (``errscope proxy`` whose upstream cannot be reached)."""
        self.not_started: str | None = None
        """Why the OS refused to run a stdio server's command in the last failed start (``No such file or
        directory``, ``Permission denied``): then it has no log of its own to read."""
        self.refused: Refusal | None = None
        """The last start was refused by the server (:func:`refusal`)."""
        self._restart_after = 0.0
        self._restart_backoff = 0.0
        self._not_an_endpoint_said = False
        self._silent_said = False

    @property
    def alive(self) -> bool:
        return self.current is not None and self.current.alive

    @property
    def tap(self) -> WireTap | None:
        return self.current.tap if self.current is not None else None

    @property
    def protocol_version(self) -> str | None:
        conn = self.current
        return conn.protocol_version if conn is not None and conn.client is not None else None

    @property
    def session_id(self) -> str | None:
        return self.session.get("id")

    def close(self) -> None:
        if self.current is not None:
            self.current.scope.cancel()

    def _transport(self, stack: AsyncExitStack, tap: WireTap) -> Transport:
        server = self.server
        if isinstance(server, str):
            self.session = {}
            http = _http_client_with_trace_headers(self.http_max_connections, self.session, tap)
            stack.push_async_callback(http.aclose)
            return streamable_http_client(server, http_client=http)
        if isinstance(server, StdioServerParameters):
            if server.encoding_error_handler == "strict":
                # The SDK's reader dies on the first undecodable byte and then drains the pipe
                # forever, wedging the session: replace and count instead (a protocol fault).
                server = server.model_copy(update={"encoding_error_handler": UNDECODABLE})
            return stdio_client(server, errlog=_host_stderr(stack))
        return server()

    async def _run(self, conn: Connection) -> None:
        try:
            with conn.scope:
                async with AsyncExitStack() as stack, Client(
                    conn.tap.wrap(self._transport(stack, conn.tap)),
                    mode=self.mode,
                    cache=None,
                    message_handler=self._on_message,
                    **self.client_options,
                ) as client:
                    conn.client = client
                    conn.protocol_version = _negotiated_version(client)
                    conn.ready.set()
                    try:
                        await anyio.sleep_forever()
                    finally:
                        # Cancelled: by close(), or by the SDK when a task of the session crashed (its
                        # dispatcher is closed from then on). Teardown can take a while (in-flight
                        # POSTs): no call may use the session meanwhile, and a new one need not wait.
                        conn.ending = True
        except Exception as exc:  # boundary: whatever the transport raised, the connection is gone
            conn.error = exc
            # Types only: errscope's own records are not scrubbed after they are built.
            inner = exc.exceptions if isinstance(exc, BaseExceptionGroup) else ()
            logger.debug("errscope client connection ended: %s %s", type(exc).__name__, [type(e).__name__ for e in inner])
        finally:
            conn.client = None if not conn.ready.is_set() else conn.client
            conn.done.set()
            conn.ready.set()

    def _new_tap(self) -> WireTap:
        if isinstance(self.server, str):  # errscope builds this HTTP transport: its stand-ins are known
            observe_http_parsing()
            return WireTap(stand_ins_possible=True)
        if isinstance(self.server, StdioServerParameters):
            observe_stdio_parsing()
        return WireTap()

    async def ensure(self) -> Connection | None:
        """The live session, opening a new one if there is none; ``None`` if it could not be opened."""
        conn = self.current
        if conn is not None and conn.alive:
            return conn  # the hot path: no lock, no extra turn of the event loop
        async with self._lock:
            conn = self.current
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                conn.scope.cancel()
            if time.monotonic() < self._restart_after:
                return None  # a stdio server that just exited at start-up is not started again yet
            conn = await self._open()
            if not conn.alive and self.mode == "auto" and conn.tap.closed and conn.tap.unanswered("server/discover"):
                # The peer hung up on the era probe instead of answering it (rmcp 1.8 over stdio exits with
                # ExpectedInitializeRequest): a pre-2026 server, spoken to with the initialize handshake
                # from now on, as the SDK's own fallback does for a server that answers the probe with an error.
                logger.info("errscope client: the server ended the connection on server/discover; trying the initialize handshake")
                conn.scope.cancel()
                self.mode = "legacy"
                conn = await self._open()
                if not conn.alive:
                    self.mode = "auto"  # it exits whatever it is sent: a start-up failure, not an era
            if not conn.alive:
                conn.scope.cancel()
                self.refused = refusal(conn.tap)
                self._failed_start(conn)
                return None
            self.exited_at_start = self.silent_at_start = False
            self._restart_backoff, self.refused, self.not_started = 0.0, None, None
            await self._initial_listing(conn)
            return conn

    def _failed_start(self, conn: Connection) -> None:
        # A stdio server that exits before the handshake ends (a failing lifespan, a missing module) would
        # exit again at once, and one that never answers it would keep each attempt waiting connect_timeout: either
        # is started again only after a backoff of 1 s, doubling up to 60 s, so calls meanwhile are answered at
        # once instead of each starting a process that dies or stays silent.
        self.exited_at_start = isinstance(self.server, StdioServerParameters) and conn.done.is_set()
        error = conn.tap.handshake_error
        self.start_answer = None if error is None else safe_excerpt(error.message, limit=160)
        refused = _exec_refusal(conn.error) if isinstance(self.server, StdioServerParameters) else None
        if refused is not None and self.not_started is None:
            # Said once until it starts: the model reads "could not be started", the host's developer what to fix.
            logger.warning("errscope ToolClient: cannot start the tool server %s: %s; check the command, its PATH and"
                           " permissions", scrub(self.server.command), refused)
        self.not_started = refused
        self.silent_at_start = (isinstance(self.server, StdioServerParameters) and error is None and refused is None
                                and self.refused is None and not self.exited_at_start)
        if self.silent_at_start and not self._silent_said:
            # Running, yet no answer to the handshake within connect_timeout: the host's log says what to check.
            self._silent_said = True
            logger.warning("errscope ToolClient: the tool server %s gave no answer to the handshake in %g s; check"
                           " that it serves MCP over stdio (nothing but JSON-RPC on stdout; a server that serves only"
                           " streamable HTTP is reached by its URL), or raise connect_timeout for one that starts slowly",
                           scrub(self.server.command), self.connect_timeout)
        status = conn.tap.handshake_status
        if isinstance(self.server, str) and status in _NOT_AN_ENDPOINT and not self._not_an_endpoint_said:
            # The model reads "unavailable"; the host's developer needs to know the server answered, at another path.
            self._not_an_endpoint_said = True
            logger.warning("errscope ToolClient for %s: the server answered the handshake with HTTP %d; check that the"
                           " URL is its MCP endpoint, path included (streamable HTTP servers commonly serve /mcp)",
                           describe(self.server).display, status)
        if self.exited_at_start or self.silent_at_start:  # a silent one would make each attempt wait connect_timeout
            self._restart_backoff = min(60.0, max(1.0, 2 * self._restart_backoff))
            self._restart_after = time.monotonic() + self._restart_backoff

    async def _open(self) -> Connection:
        assert self.tg is not None, "use ToolClient as an async context manager"
        conn = Connection(tap=self._new_tap())
        self.current = conn
        self.tg.start_soon(self._run, conn)
        with anyio.move_on_after(self.connect_timeout):
            await conn.ready.wait()
        return conn

    async def _initial_listing(self, conn: Connection) -> None:
        assert conn.client is not None
        caps = conn.client.server_capabilities
        if caps.tools is None:
            return
        try:
            with anyio.fail_after(self.list_timeout):
                await self.catalog.refresh(lambda: self._fetch_tools(conn))
        except Exception as exc:  # boundary: a broken listing leaves the catalog empty; calls still go out
            logger.debug("initial tools/list failed (%s)", type(exc).__qualname__)

    async def _fetch_tools(self, conn: Connection) -> Sequence[Tool]:
        assert conn.client is not None
        tools: list[Tool] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(100):
            page = await conn.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None or cursor in seen:  # a cursor that does not advance ends the listing
                break
            seen.add(cursor)
        return tools

    async def _on_message(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/tools/list_changed":
            self.catalog.mark_stale()
            if self.tg is not None:
                self.tg.start_soon(functools.partial(self.refresh_stale, notified=True))
        await anyio.lowlevel.checkpoint()

    async def refresh_stale(self, *, notified: bool = False) -> None:
        """Re-list after ``list_changed`` (debounced by the catalog); failures keep the old listing."""
        conn = self.current
        if conn is None or not conn.alive:
            return
        try:
            await self.catalog.refresh_if_stale(lambda: self.traced_fetch(conn, links=()), notified=notified)
        except Exception as exc:  # boundary: the next unknown-tool error re-lists again
            logger.debug("tools/list refresh after list_changed failed (%s)", type(exc).__qualname__)

    async def traced_fetch(self, conn: Connection, *, links: Sequence[Link]) -> Sequence[Tool]:
        """``tools/list`` (all pages) under a CLIENT span of its own."""
        span = self.telemetry.start_span("tools/list", attributes={MCP_METHOD_NAME: "tools/list"}, links=links)
        try:
            with trace.use_span(span, end_on_exit=False):
                return await self._fetch_tools(conn)
        except MCPError as exc:
            span.set_attributes({ERROR_TYPE: str(exc.code), RPC_RESPONSE_STATUS_CODE: str(exc.code)})
            span.set_status(StatusCode.ERROR)
            raise
        finally:
            span.end()
