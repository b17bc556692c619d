"""What an exception carries, read without importing its library: an HTTP status, a response header, the
upstream's address, its message, the module and functions it was raised in.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import Any, Final, NamedTuple
from urllib.parse import urlsplit

from errscope._classify._core import Classification, Upstream
from errscope._http import (
    class_for_http_status,
    no_requests_remain,
    retry_after_from_headers,
    side_effect_for_http_status,
)
from errscope._vocabulary import FailureClass


_DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def http_address(url: Any) -> str | None:
    """``host[:port]`` of ``url`` (a string, or an httpx/httpx2/yarl URL): never userinfo, path or query. An IPv6
    literal keeps its brackets (``[::1]:8080``). The scheme's default port is left out (``https://a:443/`` is ``a``),
    as the WHATWG URL Standard's serializer and httpx do, so one upstream has one address whichever client saw it."""
    if isinstance(url, str):
        try:
            parts = urlsplit(url)
            host, port, scheme = parts.hostname, parts.port, parts.scheme
        except ValueError:
            return None
    else:
        host, port, scheme = getattr(url, "host", None), getattr(url, "port", None), getattr(url, "scheme", None)
    if not host:
        return None
    host = str(host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 literal: bracketed as in a URL (RFC 3986 §3.2.2), so the port stays apart
    if port and _DEFAULT_PORTS.get(str(scheme).lower()) == port:
        port = None
    return f"{host}:{port}" if port else host


def _status_classification(status: int, header: Callable[[str], str | None], address: str | None) -> Classification:
    # Retry-After accompanies 429 (RFC 6585 §4) and 503 (RFC 9110 §10.2.3). A 403 that says when to
    # come back, or that no requests remain (X-RateLimit-Remaining: 0), is a rate limit: GitHub's
    # primary and secondary limits ("Rate limits for the REST API"), GitLab's and others' the same way.
    failure_class = class_for_http_status(status)
    if status == 451:
        # Unavailable For Legal Reasons (RFC 7725 §3): access to the resource denied by a legal demand, for this
        # client or region; no retry changes it. Read so only on an HTTP answer's status (SMTP's and FTP's 451 is
        # "local error in processing"): the shared table, which also reads numbers in prose, leaves it unknown.
        failure_class = FailureClass.PERMISSION_DENIED
    if status == 403 and (header("Retry-After") is not None or no_requests_remain(header)):
        failure_class = FailureClass.RATE_LIMITED
    waits = failure_class is FailureClass.RATE_LIMITED or status == 503
    return Classification(
        failure_class,
        retry_after=retry_after_from_headers(header) if waits else None,
        upstream=Upstream("http", str(status), address),
        side_effect_possible=side_effect_for_http_status(status),
    )


def _attribute(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property that raises (httpx's .request when none is attached)
        return None


def _error_status(value: object) -> int | None:
    # An SDK that keeps the status as text ("503": postgrest-py's code for a non-PostgREST error page)
    if isinstance(value, str) and len(value) == 3 and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and 400 <= value <= 599 else None


_STATUS_ATTRIBUTES: Final = ("status_code", "http_status", "status", "code", "errcode", "response_code",
                              "response_status_code")

_RESPONSE_ATTRIBUTES: Final = ("response", "req", "response_info", "result")
"""Where an SDK's error keeps the HTTP answer it was raised for: ``response`` (httpx, requests and most SDKs), ``req``
(pynetbox's ``RequestError``: the requests ``Response``, despite the name), ``response_info`` (the Box SDK's
``BoxAPIError``: status, headers and body), ``result`` (pyTelegramBotAPI's ``ApiTelegramException``: the requests
``Response``). Only an object with an error status counts as one."""


def _responses(exc: BaseException) -> list[Any]:
    """The answer objects ``exc`` keeps (:data:`_RESPONSE_ATTRIBUTES`), in that order; a mapping is no answer object
    (botocore's ``response`` dict: see ``_api_error``)."""
    found = (_attribute(exc, name) for name in _RESPONSE_ATTRIBUTES)
    return [owner for owner in found if owner is not None and not isinstance(owner, Mapping)]


def http_status_of(exc: BaseException) -> int | None:
    """The HTTP error status (400-599) an exception carries, in the attribute shapes HTTP clients
    and API SDKs use: ``status_code`` (OpenAI, Anthropic), ``http_status`` (Stripe), ``status``
    (aiohttp), ``code`` (urllib, google-api-core, tornado), ``errcode`` (xmlrpc.client), ``response_code``
    (python-gitlab), ``response_status_code`` (Kiota's ``APIError``: msgraph-sdk), or its answer's (``response``,
    ``req``, ``response_info``: :data:`_RESPONSE_ATTRIBUTES`) ``status_code``/``status`` (httpx, requests,
    websockets, pynetbox, the Box SDK), or its ``context``'s ``http-code``
    (databricks-sql-connector), or its ``args`` as ``(message, status, reason, ...)`` (Mastodon.py); else an
    ``OSError`` built as ``IOError(status, message)`` (typesense: its ``errno`` is the status, no errno any system
    defines). ``None`` when it carries none."""
    for owner in (exc, *_responses(exc)):
        for name in _STATUS_ATTRIBUTES if owner is exc else ("status_code", "status"):
            status = _error_status(_attribute(owner, name))
            if status is not None:
                return status
    status = _context_status(exc)
    if status is not None:
        return status
    status = _args_status(exc)
    if status is not None:
        return status
    if isinstance(exc, OSError) and exc.errno not in errno.errorcode:  # errnos end near 140 (Linux), WSA's at 10000
        return _error_status(exc.errno)
    return None


def _args_status(exc: BaseException) -> int | None:
    """The status an SDK passes positionally between its message and the answer's reason phrase, as it raises
    ``Error(message, response.status_code, response.reason, detail)`` (Mastodon.py's ``MastodonAPIError`` family):
    a text, an integer status, then a text (the reason may be ``None`` over HTTP/2, which has none). Not an
    ``OSError``: its ``(errno, strerror)`` is read as an errno."""
    args = exc.args if isinstance(exc.args, tuple) else ()
    if len(args) < 3 or isinstance(exc, OSError) or not isinstance(args[0], str) or type(args[1]) is not int:
        return None
    return _error_status(args[1]) if isinstance(args[2], (str, type(None))) else None


def _context_status(exc: BaseException) -> int | None:
    """The HTTP status in an exception's ``context`` mapping (databricks-sql-connector's ``RequestError``: its
    ``"http-code"``, a driver's PEP 249 error whose HTTP request the endpoint refused)."""
    context = _attribute(exc, "context")
    return _error_status(context.get("http-code")) if isinstance(context, Mapping) else None


def _response_header(exc: BaseException, name: str) -> str | None:
    """A response header the exception carries: on itself (``headers``: PyGithub, kubernetes,
    xmlrpc.client; ``resp_headers``: websocket-client; ``response_headers``: Kiota's APIError), its answer's
    (:data:`_RESPONSE_ATTRIBUTES`: httpx, requests, SDKs), its ``meta`` (elastic-transport) or its ``resp`` (googleapiclient: httplib2's
    response, a dict). A dict is searched without regard to case (lowercased keys; header names are
    case-insensitive, RFC 9110 §5.1)."""
    for owner, attribute in ((exc, "headers"), (exc, "resp_headers"), (exc, "response_headers"),
                             *((owner, "headers") for owner in _responses(exc)),
                             (_attribute(exc, "meta"), "headers"), (exc, "resp")):
        headers = _attribute(owner, attribute)
        if isinstance(headers, dict):  # incl. httplib2's Response (googleapiclient's HttpError.resp): lowercased keys
            value = next((v for k, v in headers.items() if isinstance(k, str) and k.lower() == name.lower()), None)
        else:
            get = _attribute(headers, "get")
            if not callable(get):
                continue
            try:
                value = get(name)
            except Exception:
                continue
        if isinstance(value, str):
            return value
    return None


def _request_address(exc: BaseException) -> str | None:
    # httpx/openai: .request.url; aiohttp: .request_info.url; requests: .response.url; urllib: .url;
    # googleapiclient: .uri; pynetbox: .req.url. The response's URL first: it names the request that was answered, where an SDK may keep
    # a placeholder request of its own (LiteLLM's APIError: ``httpx.Request("POST", "https://api.openai.com/v1")``)
    for owner, name in ((_attribute(exc, "response"), None), (exc, "request"), (exc, "request_info"),
                        (_attribute(exc, "req"), None), (exc, None)):
        target = _attribute(owner, name) if name else owner
        for url in (_attribute(target, "url"), _attribute(target, "uri")):
            if url is not None and not callable(url):
                address = http_address(url)
                if address:
                    return address
    # elastic-transport's ApiError (elasticsearch 8+): its response ``meta`` names the ``node`` (NodeConfig: scheme,
    # host, port) that answered, and keeps no URL
    address = _endpoint_address(_attribute(_attribute(exc, "meta"), "node"))
    if address:
        return address
    return _connection_address(exc)


def _connection_address(exc: BaseException) -> str | None:
    """``host[:port]`` of the connection or pool an exception keeps when it keeps no URL: urllib3's ``conn``
    (``NewConnectionError``) and ``pool`` (``MaxRetryError``, ``ReadTimeoutError``: the URL it keeps is a path), the
    connection a ``ConnectTimeoutError`` is raised with, aiohttp's ``ClientConnectorError`` itself (``host``,
    ``port``)."""
    first = exc.args[0] if exc.args else None
    for owner, name in ((exc, "conn"), (exc, "pool"), (first, None), (exc, None)):
        address = _endpoint_address(_attribute(owner, name) if name else owner)  # one at a time: urllib3 2 warns
        if address:                                                              # on a deprecated ``pool``
            return address
    return None


def _frame_address(exc: BaseException) -> str | None:
    """``host[:port]`` of the connection a frame ``exc`` was raised through was using (:func:`frame_endpoint`)."""
    found = frame_endpoint(exc)
    return found[0] if found else None


def frame_endpoint(exc: BaseException) -> tuple[str, str | None] | None:
    """``(host[:port], scheme)`` of the connection a frame ``exc`` was raised through was using, innermost frame first
    (the library's before the caller's), for the failures that keep neither a request nor a connection (a connection
    reset, a socket read timeout, a dropped keep-alive, an API error an SDK parsed off the answer). Per frame, its
    ``self``: a connection or pool (http.client's ``HTTPConnection``, urllib3's pool in ``urlopen``), the pool an
    answer came from (urllib3's ``HTTPResponse._pool``, which botocore's ``StreamingBody`` reads), a connection's
    ``info`` (psycopg's), a ``(host, port)`` pair as sockets name a peer (asyncpg's ``Connection._addr``, websockets'
    ``remote_address``), an absolute ``url`` (aiohttp's ``ClientResponse``), an SDK client's endpoint (``base_url``:
    OpenAI's, Anthropic's; ``endpoint_url``, boto3's ``meta.endpoint_url``); else its locals
    (:func:`_local_endpoints`: aiohttp's ``ClientSession._request`` under a total timeout, a connect). The scheme is
    ``None`` where the frame does not say."""
    for frame in reversed(raised_through(exc)):
        try:
            local = frame.f_locals
        except Exception:  # a frame whose locals cannot be read says nothing
            continue
        for endpoint in chain(_owner_endpoints(local.get("self")), _local_endpoints(local)):
            address = http_address(endpoint) if endpoint is not None else None
            if address:
                return address, endpoint.scheme
    return None


def _owner_endpoints(owner: object) -> Iterator[_Endpoint | None]:
    """The endpoints a frame's ``self`` may name, in :func:`frame_endpoint`'s order (read lazily: the first wins)."""
    if owner is None:
        return
    yield _endpoint_of(owner)
    yield _endpoint_of(_attribute(owner, "_pool"))
    yield _endpoint_of(_attribute(owner, "info"))
    yield _pair_endpoint(_attribute(owner, "_addr"))
    yield _pair_endpoint(_attribute(owner, "remote_address"))
    for name in ("url", "base_url", "endpoint_url"):
        yield _url_endpoint(_attribute(owner, name))
    yield _url_endpoint(_attribute(_attribute(owner, "meta"), "endpoint_url"))


def _local_endpoints(local: Mapping[str, object]) -> Iterator[_Endpoint | None]:
    """The endpoints a frame's locals name: its ``url``, or the ``(host, port)`` it connects to (``address`` of
    ``socket.create_connection``, ``addr`` of asyncpg's ``connect_utils._connect_addr``)."""
    yield _url_endpoint(local.get("url"))
    yield _pair_endpoint(local.get("address"))
    yield _pair_endpoint(local.get("addr"))


def raised_through(exc: BaseException) -> list[Any]:
    """The frames of ``exc``'s traceback, outermost first (the tool's, then the libraries' it called)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _url_endpoint(url: object) -> _Endpoint | None:
    """An absolute URL (a string, or an httpx/yarl URL) as host, port and scheme; ``None`` for a path or anything else."""
    if isinstance(url, str):
        if "://" not in url:
            return None
        try:
            parts = urlsplit(url)
            host, port, scheme = parts.hostname, parts.port, parts.scheme
        except ValueError:
            return None
    elif url is not None and not callable(url) and _attribute(url, "scheme"):
        host, port, scheme = _attribute(url, "host"), _attribute(url, "port"), _attribute(url, "scheme")
    else:
        return None
    if not isinstance(host, str) or not host:
        return None
    return _Endpoint(host, port if isinstance(port, int) else 0, str(scheme).lower())


def _pair_endpoint(pair: object) -> _Endpoint | None:
    """A ``(host, port)`` pair as a socket names its peer (``getpeername()``: IPv6's has flow info and scope after
    them; asyncpg's ``Connection._addr``, websockets' ``remote_address``)."""
    if isinstance(pair, tuple) and len(pair) in (2, 4) and isinstance(pair[0], str) and type(pair[1]) is int:
        return _Endpoint(pair[0], pair[1], None) if _HOST.fullmatch(pair[0]) else None
    return None


def _endpoint_address(owner: object) -> str | None:
    """``host[:port]`` of a connection or pool (:func:`_endpoint_of`)."""
    endpoint = _endpoint_of(owner)
    return http_address(endpoint) if endpoint is not None else None


def _endpoint_of(owner: object) -> _Endpoint | None:
    """An object with a ``host`` (text) and a ``port`` (an integer): a connection or a pool. The
    port of its scheme (its ``scheme``, else its ``default_port``), or with neither HTTP's and HTTPS's own ports (80,
    443), is left out as :func:`http_address` leaves it out of a URL."""
    host, port = _attribute(owner, "host"), _attribute(owner, "port")
    if not (isinstance(host, str) and isinstance(port, int) and not isinstance(port, bool)):
        return None
    # a host a URL helper cut at a password's unencoded "@" keeps the password's tail (J356): never userinfo
    host = host.rpartition("@")[2]
    if not _HOST.fullmatch(host):
        return None
    scheme = _attribute(owner, "scheme")
    if not isinstance(scheme, str):
        known = _attribute(owner, "default_port")
        known = known if isinstance(known, int) else port
        scheme = next((name for name, port_of in _DEFAULT_PORTS.items() if port_of == known), None)
    return _Endpoint(host, port, scheme)


_HOST: Final = re.compile(r"[\w.-]+|\[?[0-9A-Fa-f:.]+(?:%\w+)?\]?")
"""A host name (RFC 1123 labels; underscores as found in practice) or an IP literal: nothing else is an address."""


class _Endpoint(NamedTuple):
    host: str
    port: int
    scheme: str | None


_PROGRAMMING_ERRORS: Final = (AttributeError, NameError, TypeError, LookupError, AssertionError, ImportError,
                              SyntaxError, NotImplementedError)


def _message_of(exc: BaseException) -> str:
    """``str(exc)``, or ``""`` when its ``__str__`` raises (J170)."""
    try:
        text = str(exc)
    except Exception:
        return ""
    return text if isinstance(text, str) else ""


# Functions that open a connection (a driver's connect, the socket's, asyncio's and anyio's): an error raised
# while one of them ran came before any request of the caller's was sent. A TLS handshake is part of opening one:
# no application data crosses before it completes (RFC 8446 §2; the ssl module's ``SSLSocket.do_handshake``, which
# ``SSLContext.wrap_socket`` runs, asyncio's ``SSLProtocol._do_handshake``).
_CONNECTING_FUNCTIONS: Final = frozenset({"connect", "_connect", "connect_tcp", "connect_unix", "sock_connect",
                                          "create_connection", "open_connection", "start_connection",
                                          "establish_connection",  # netmiko's session set-up
                                          "do_handshake", "_do_handshake"})


def _function_name(frame: Any) -> str:
    # Cython-compiled modules (cassandra-driver's) name their code objects "package.module.Class.method"
    return str(frame.f_code.co_name).rpartition(".")[2]


def _raised_connecting(exc: BaseException, package: str | None = None, *, anywhere: bool = False) -> bool:
    """Whether ``exc`` came out of a connecting function (``_CONNECTING_FUNCTIONS``, or a connection object's
    constructor: :func:`_constructs_a_connection`) of ``package`` (default: the exception's own library; PEP 249's
    ``connect()``, ``Connection.connect``, pg8000's ``Connection(...)``; ``anywhere``: of any module): no connection
    existed, so no statement was sent."""
    package = package or type(exc).__module__.partition(".")[0]
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if ((_function_name(frame) in _CONNECTING_FUNCTIONS or _constructs_a_connection(frame))
                and (anywhere or str(frame.f_globals.get("__name__", "")).partition(".")[0] == package)):
            return True
        tb = tb.tb_next
    return False


# Functions that run while a connection is still being opened, whatever a library files the failure under: a TLS
# handshake (RFC 8446 §2: no application data crosses before it completes; ``SSLSocket.do_handshake``, asyncio's
# ``SSLProtocol._do_handshake``), a proxy tunnel's ``CONNECT`` exchange (RFC 9110 §9.3.6: the request to the upstream
# is written only into the tunnel, after a 2xx; http.client's ``HTTPConnection._tunnel``, urllib3's override). urllib3
# files a handshake or a tunnel that timed out under ``ReadTimeoutError`` (its ``_raise_timeout`` knows only the
# connection's read timeout), requests under ``ReadTimeout``; httpcore files a ``CONNECT`` left unanswered under its
# ``ReadTimeout``. A WebSocket's opening handshake likewise (RFC 6455 §4.1: the client sends no data frame before the
# server's 101 is read; websocket-client's ``_handshake.handshake`` files the 101 left unread under its
# ``WebSocketTimeoutException``).
_OPENING_FUNCTIONS: Final = frozenset({"do_handshake", "_do_handshake", "handshake", "_tunnel"})


def raised_opening(exc: BaseException) -> bool:
    """Whether ``exc`` came out of opening a connection that no request of the caller's had crossed yet: a TLS or
    WebSocket opening handshake or a proxy tunnel's set-up (:data:`_OPENING_FUNCTIONS`), or a frame handling a
    ``CONNECT`` request (its local ``request``, as httpcore's ``HTTP11Connection.handle_request`` for the tunnel its
    ``TunnelHTTPConnection`` opens). Only these frames, never a function merely named ``connect``: a timeout raised
    through a tool's own ``connect()`` that then sends its request says nothing of the phase."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if _function_name(frame) in _OPENING_FUNCTIONS:
            return True
        try:
            method = _attribute(frame.f_locals.get("request"), "method")
        except Exception:  # a frame whose locals cannot be read says nothing
            method = None
        if method in (b"CONNECT", "CONNECT"):
            return True
        tb = tb.tb_next
    return False


def _constructs_a_connection(frame: Any) -> bool:
    """Whether ``frame`` runs the constructor of a connection object (``__init__`` of a class whose name, or a base's,
    ends in ``Connection``): drivers that open their connection there (pg8000's ``CoreConnection.__init__`` writes
    the startup message and reads the server's answer, pika's ``BlockingConnection``) have no connection to send a
    statement on until it returns; the object is not there for the caller to use before."""
    if _function_name(frame) != "__init__":
        return False
    try:
        owner = frame.f_locals.get("self")
    except Exception:  # a frame whose locals cannot be read says nothing
        return False
    return owner is not None and any(klass.__name__.endswith("Connection") for klass in type(owner).__mro__)


# The names of a driver's function that reads the server's bytes off its socket (pg8000's ``_read``, a
# ``read_exactly``, ``recv_packet``): an error it raised itself on an end of stream, outside a connect, came while
# the statement it had written waited for its answer.
_READING_FUNCTION: Final = re.compile(r"_*(?:read|recv)(?:_?(?:exactly|bytes|packet|message|response|into))?")


def _raised_reading(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is a reading function (:data:`_READING_FUNCTION`) of the
    exception's own library."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    package = type(exc).__module__.partition(".")[0]
    return (_READING_FUNCTION.fullmatch(_function_name(tb.tb_frame)) is not None
            and str(tb.tb_frame.f_globals.get("__name__", "")).partition(".")[0] == package)


def raised_in(exc: BaseException, *modules: str) -> bool:
    """Whether the innermost frame of ``exc``'s traceback runs code of one of ``modules`` (a module, or any
    module of a package: ``"mcp.client"`` covers ``mcp.client.session``)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    name = tb.tb_frame.f_globals.get("__name__") if tb is not None else None
    return isinstance(name, str) and any(name == module or name.startswith(module + ".") for module in modules)


def _qualname(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}"
