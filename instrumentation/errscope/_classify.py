"""One classifier: every exception lands on exactly one :class:`~errscope.FailureClass`.

The mapping is a table (``_RULES``), looked up along the exception's MRO and along its chain
(:func:`walk`; an exception raised with no chain continues with the failure its raising frame still held, PEP 3134's
implicit cause restored); wrappers defer inwards, and :func:`explain` also names the root cause. Users
extend it with :func:`register`. Nothing here imports a database driver: DB-API errors (PEP 249)
are recognised by their standard class names (asyncpg's by their SQLSTATE); one raised out of the
driver's own ``connect`` never sent a statement.

=====================================  ======================  ========================================
exception                              class                   source of the rule
=====================================  ======================  ========================================
errscope family (``NotFound``, ...)    the leaf's class        the author said so
an HTTP error status carried as        by status, see below    RFC 9110 §15
``status_code``/``http_status``/
``status``/``code``/``response.status_code``
(httpx, requests, aiohttp, urllib,
websockets, OpenAI, Anthropic, Stripe,
PyGithub, google-api-core, azure-core,
kubernetes, docker, elasticsearch, ...)
an API's own error code: AWS           by the code's words,    AWS API error codes; Slack Web API
``Error.Code`` (botocore), Slack's     else its HTTP status    errors
``{"ok": false, "error": ...}``
a GraphQL error's ``extensions.code``  by the code's words;    GraphQL spec §7.1.2; Apollo Server's
or ``type`` (gql); an S3-style         a query document that   error codes
``code`` beside a status (MinIO)       fails validation:
                                       unknown
OAuth 2.0 ``error`` (Authlib,          by the code             RFC 6749 §5.2, §4.1.2.1; RFC 6750 §3.1;
oauthlib, google-auth)                                         RFC 8628 §3.5 (IANA OAuth error registry)
WebSocket close codes (websockets,     by the code; 4400-4599  RFC 6455 §7.4.1, IANA close code registry
httpx-ws)                              as HTTP statuses
SMTP reply codes (smtplib, aiosmtplib) by the code; a refused  RFC 5321 §4.2, §3.1, RFC 4954, RFC 3463
                                       greeting
                                       upstream_unavailable
``grpc.RpcError``; any error whose     by status code          google/rpc/code.proto's HTTP mapping
``status``/``code`` is an enum member
named as a gRPC code (grpclib)
HTTP/2 RST_STREAM / GOAWAY under       by the error code; a    RFC 9113 §7, §8.7, §6.8
httpx/httpcore (the h2 event)          GOAWAY before any
                                       stream: not sent
SOAP faults (zeep ``Fault``)           by the most specific    SOAP 1.1 §4.4.1, SOAP 1.2 §5.4.6,
                                       code: WS-Security,      OASIS WSS 1.1 §12, WS-Addressing 1.0
                                       WS-Addressing, vendor   SOAP Binding §6.4
                                       words, else the side
a proxy refusing the tunnel            by its status (407:     RFC 9110 §15.5.8, RFC 1928 §6
(python-socks, aiohttp-socks,          permission_denied) or
aiohttp's ``ClientHttpProxyError``)    SOCKS reply; not sent
MQTT reason codes (aiomqtt ``rc``),    by the code             MQTT 5.0 §2.4
paho's own error codes
pyzmq ``ZMQError``                     by errno; ``EAGAIN``    zmq_errno(3), POSIX
                                       sent unless a send
                                       raised it
FTP reply codes (ftplib, aioftp)       by the code             RFC 959 §4.2
SFTP status codes (asyncssh)           by the code             draft-ietf-secsh-filexfer-13 §9.1
SSH disconnect reasons (asyncssh)      by the code             RFC 4253 §11.1
a TLS alert the peer sent, under any   by the alert; a client  RFC 8446 §6.2, RFC 5246 §7.2
client's wrapper (its ``reason``)      certificate refused:
                                       permission_denied
memcached ``SERVER_ERROR``,            upstream_unavailable;   memcached protocol.txt
``CLIENT_ERROR`` (pymemcache)          unknown (our command)
IMAP/POP3 bracketed response codes     by the code             RFC 5530, RFC 2449 §8, RFC 3206
(imaplib, poplib)
``xmlrpc.client.Fault``                by its fault code       XML-RPC fault code interoperability
                                       (JSON-RPC's numbers)    (its ``ProtocolError``: ``errcode``)
``pycurl.error``                       by libcurl's number     libcurl-errors
dnspython: no such name or record;     not_found; upstream_    RFC 1035 §4.1.1 RCODE
no server answered, timeout            unavailable
hvac (one class per status)            by the class's status   hvac.utils.raise_for_error
a program that exited with an error:   by its own words on     git's and libcurl's messages; POSIX
``CalledProcessError`` (captured),     stderr (else stdout),   Shell Command Language §2.8.2 (126,
GitPython, sh, plumbum, invoke         read as foreign text;   127)
                                       126/127 and not on the
                                       PATH: never started
Trino's failed query                   by ``errorName``, else  io.trino.spi.StandardErrorCode,
(``TrinoQueryError``)                  ``errorType``           ErrorType
Dropbox ``ApiError``                   by its route error      the Dropbox API's route errors
                                       union's innermost tag
googlemaps ``ApiError``                by its ``status`` word  Google Maps Platform web services'
                                                               "Status codes"
kazoo's ``ZookeeperError``             by ZooKeeper's code     KeeperException.Code
py-consul's exceptions                 by the status that      python-consul's callback (``f"{code}
                                       starts the text         {body}"``)
urllib3 ``ResponseError`` (retries     by the status in its    urllib3 ResponseError.SPECIFIC_ERROR
spent on error statuses)               text
an HTTP error status named in a        by that status          RFC 9110 §15
rule-less exception's message
("status code 429", "HTTP 503")
transport errors: httpx/httpx2,        upstream_unavailable    the upstream did not answer
httpcore/httpcore2, aiohttp,
requests/urllib3, redis-py, websockets,
websocket-client, azure-core, pymongo,
pika, aiormq, paramiko, ldap3,
pymemcache, nats-py, httpx-ws,
cassandra-driver, neo4j, anyio's
byte streams (by their documented
classes); ``EOFError`` out of ftplib
``TimeoutError`` (incl. asyncio),      upstream_unavailable
``ConnectionError``, ``socket.gaierror``,
``ssl.SSLError``, ``OSError`` with a
network errno, ``CancelledError``
``PermissionError``                    permission_denied       (a program that cannot be started, a
``FileNotFoundError``                  not_found               Unix socket that is not there:
                                                               upstream_unavailable)
an ``OSError`` on a local path or      ENOTDIR, ELOOP:         POSIX <errno.h>; the syscall refused
resource by its errno                  not_found; EISDIR,      it whole: not sent (ENOSPC, EDQUOT,
                                       EEXIST, ENOTEMPTY,      EFBIG keep no rule: the machine's,
                                       ENAMETOOLONG: invalid_  heldout J189)
                                       input; EROFS: permis-
                                       sion_denied; ETXTBSY,
                                       EBUSY, EAGAIN: upstream_
                                       unavailable; EMFILE,
                                       ENFILE, EXDEV: unknown
a file format's reader refusing the    invalid_input, not      the file the call named is not its
bytes, by its class words (pypdf,      sent; a password the    format; not over an upstream's answer
Pillow, openpyxl, pandas, lxml, PyYAML, tool lacks (``File-     on the stack (zeep), not JSON's
tomllib, zipfile, tarfile, gzip,       NotDecrypted``): per-   decoder, not a builtin
zstandard, zlib, brotli)               mission_denied
a ``TimeoutError`` cut off waiting     upstream_unavailable,   another holds it: busy, as SQLite's
for a lock (filelock)                  not sent                SQLITE_BUSY
pydantic, jsonschema                   unknown                 raised in the tool: upstream or output data
``ValidationError``
a JSON decode error out of an HTTP     its error status, else  the upstream answered what is not its
client's ``Response.json()``           upstream_unavailable    API's JSON (maybe an intermediary's
(requests, httpx, aiohttp; aiohttp's   (acted: not known)      page); elsewhere (``json.loads`` in
``ContentTypeError`` on a 2xx)                                 the tool): no rule
SQLAlchemy ORM: ``StaleDataError``;    invalid_input (a        the row changed under the unit of
``ObjectDeletedError``;                conflict); not_found;   work (HTTP 409/412); the row is gone;
``DetachedInstanceError``              unknown (not sent)      no session: the tool's own bug
Elasticsearch/OpenSearch               the first failed item's the ``_bulk`` API's per-item status
``BulkIndexError``; ``ScanError``      status; acted: open;    (its shards' answer: some failed)
                                       upstream_unavailable
an SDK's error with no rule that       upstream_unavailable    a successful answer the SDK's schema
carries a 2xx (mistralai's             (acted: open)           or Content-Type check rejected
``ResponseValidationError``, OpenAI's
``APIResponseValidationError``)
a URL the HTTP client cannot use       unknown, not sent       refused before any connection: no
(requests ``MissingSchema``, httpx                             upstream failed, whose URL it was the
``UnsupportedProtocol``, aiohttp,                              type does not say
``http.client.InvalidURL``)
botocore before sending:               permission_denied;      nothing signed or sent (a credential
``NoCredentialsError``,                unknown (not sent)      missing: as a 401 without one)
``PartialCredentialsError``;
``ParamValidationError``, ``NoRegionError``
the same, raised by a framework's      invalid_input           SEP-1303: the model can fix its input
argument validation (by where it arose)
PEP 249 errors with a SQLSTATE, a      by the code             PostgreSQL Appendix A; sqlite.org/rescode;
SQLite result code, a MySQL number,                            MariaDB error codes; ClickHouse ErrorCodes
a ClickHouse code (not an HTTP status);
any error whose ``code`` is a SQLSTATE
(PostgREST: postgrest-py, Supabase)
PEP 249 ``OperationalError``,          upstream_unavailable    connection lost, server shutting down
``InterfaceError``, ``InternalError``
PEP 249 ``IntegrityError``,            invalid_input           duplicate key, bad value
``DataError``
PEP 249 ``ProgrammingError``,          unknown                 a bug on our side, not the caller's
``NotSupportedError``
redis-py auth/ACL errors               permission_denied
redis-py ``ResponseError``             upstream_unavailable    Redis's server-state reply codes (BUSY,
                                       (not run) for a state   MISCONF, NOREPLICAS, ...); others: the
                                       code, else unknown      tool's own command (WRONGTYPE)
pymongo ``OperationFailure``           by the server's code    MongoDB error_codes.yml (13, 18, 16500,
                                                               11000, 26, 50, 91, 10107, ...)
botocore ``ProfileNotFound``,          permission_denied       no credential to present: as
google-auth                            (not sent)              ``NoCredentialsError``
``DefaultCredentialsError``
an NTSTATUS error value kept as        by the value; a         MS-ERREF §2.3.1, MS-SMB2 §2.2.2
``ntstatus``/``status`` (smbclient,    refusal: not acted
smbprotocol)
pymilvus ``MilvusException``           by Milvus's own code    Milvus ``merr`` codes (400-599 there are
                                       (not an HTTP status)    no HTTP statuses)
a 5xx an SDK made up over a transport  the transport failure   no response, no headers: no server
failure (resend's ``code=500``)        decides                 answered it
a Bolt FAILURE's status code           by its classification,  Neo4j status codes
(``Neo.ClientError.Statement.``        category and title      (ClientError, TransientError,
``SyntaxError``: neo4j's ``.code``;                            DatabaseError)
Memgraph's)
a CQL server's ERROR (cassandra-driver by the code             native_protocol_v4.spec §9
``.code``, or its classes for them)
Couchbase ``CouchbaseException``       by ``error_code``       couchbase-cxx-client errc (the SDK's
                                                               ``ExceptionMap``)
python-arango ``ArangoServerError``    by ``errorNum`` where   ArangoDB error codes (1500 killed,
                                       the status misleads,    1501 parse, 1540 unknown function)
                                       else the status
a PEP 249 error whose SQLSTATE is only by the code             Databricks error conditions ("...
in its text; ``context["http-code"]``  by the status           SQLSTATE: 42P01"); RequestError's
(databricks-sql-connector)                                     context
Chroma Cloud ``QuotaError``            invalid_input           a size limit, not usage over time
google-auth ``RefreshError`` with only permission_denied       a credential it cannot renew
its own words (no endpoint's answer)   (not acted)
``mcp`` ``MCPError``                   by JSON-RPC code        JSON-RPC 2.0 §5.1, MCP spec error codes
``mcp`` ``ToolError`` / wrappers       their ``__cause__``
(exception groups, SQLAlchemy's,
tenacity's ``RetryError``)
no rule anywhere in the chain          a class named for an    RFC 9110 §15's reason phrases
                                       HTTP status's phrase    (``ServiceUnavailableError``,
                                       (not 408, 501): that    ``GatewayTimeout``: braintree), then
                                       status; else by the     ``...Throttled...``, ``...NotFound``,
                                       words of the types'     ``...Timeout...``: a last resort
                                       names
anything else                          unknown                 a gap in the mapping: it is alerted on
=====================================  ======================  ========================================

HTTP statuses: 400/409/412/413/416/422/428 invalid_input, 401/403/407/451 permission_denied, 404/410 not_found,
429 rate_limited, 408, 449 (Microsoft's Retry With: Cosmos DB) and 5xx upstream_unavailable, others unknown; a 403
whose Google reason names a request too large (BigQuery's ``responseTooLarge``) is invalid_input; a 403 with
``Retry-After`` or
``X-RateLimit-Remaining: 0`` (GitHub's rate limits), or a Google usage-limit reason
(``userRateLimitExceeded``, ``dailyLimitExceeded``, ErrorInfo's ``RATE_LIMIT_EXCEEDED``) is rate_limited; a 400 whose
ErrorInfo reason names the credential (``API_KEY_INVALID``) is permission_denied; the wait
(Azure's ``retry-after-ms``/``x-ms-retry-after-ms`` first, else ``Retry-After``, else Google's RetryInfo
``retryDelay``) is parsed on
rate limits and 503, the response headers read without regard to case.

Every rule also says whether the failed request may have been acted on
(:attr:`Classification.side_effect_possible`): ``False`` when it never reached the upstream or was
refused as a whole (connect, DNS, TLS handshake, pool, 4xx, 501/503/505, a statement the database
rejected), ``True`` when it was sent and then the answer failed (read or write timeout, connection
dropped, other 5xx, the SDK's -32001/-32000), ``None`` when the exception does not tell. A bare
``TimeoutError`` or ``CancelledError`` (a socket timeout, a tool's own deadline) tells by the stack it cut
off: opening a connection or waiting for a pool's is not sent. An ``OSError`` refusal with an errno
(``ENOENT``, ``EACCES``) did nothing. Optional
libraries are matched by ``module.qualname`` (``_NAMED_RULES``), so none of them is imported.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import enum
import errno
import http.client
import json
import math
import re
import socket
import ssl
import subprocess
import threading
import urllib.error
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Any, Final, TypeAlias
from urllib.parse import urlsplit

import httpx
import httpx2
import pydantic
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
)

from errscope._exceptions import InvalidInput, RateLimited, ToolFailure
from errscope._foreign_text import GRPC_CODES as _GRPC_CODES
from errscope._foreign_text import SQLSTATE_CLASSES as _SQLSTATES
from errscope._foreign_text import api_code_class as _code_family
from errscope._foreign_text import (
    classify_text,
    data_texts,
    is_crash_report,
    json_error_message,
    json_error_parts,
    named_code_class,
    names_no_cause,
    never_reached,
    retry_after_from_text,
    says_maybe_acted,
    sqlstate_in_text,
)
from errscope._http import (
    class_for_http_status,
    no_requests_remain,
    retry_after_from_headers,
    side_effect_for_http_status,
)
from errscope._scrubbing import scrub, without_stack_traces
from errscope._vocabulary import FailureClass

__all__ = [
    "Classification",
    "FieldProblem",
    "Upstream",
    "argument_problems",
    "class_for_jsonrpc_code",
    "classify",
    "explain",
    "http_address",
    "path_to",
    "raised_in",
    "register",
]

_MAX_LABEL: Final = 32
_MAX_ADDRESS: Final = 128

# Resource not found in MCP 2025-11-25 and earlier; clients SHOULD still accept it (spec, Error Codes).
RESOURCE_NOT_FOUND: Final = -32002


@dataclass(frozen=True, slots=True)
class Upstream:
    """What a backing service said. ``address`` is ``host[:port]``: never userinfo, path or query."""

    system: str | None = None
    status: str | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        # System and status become span attributes and metric labels whoever set them (a hook, an
        # author's ToolFailure, record_upstream): one scrubbed line, bounded, never a free text.
        for name, limit in (("system", _MAX_LABEL), ("status", _MAX_LABEL), ("address", _MAX_ADDRESS)):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, " ".join(scrub(str(value)).split())[:limit] or None)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One wrong argument: its dotted path and, when known, what it must be. Never its value."""

    path: str
    expected: str | None = None


@dataclass(frozen=True, slots=True)
class Classification:
    """The result of :func:`classify`.

    Attributes:
        failure_class: the one class the failure lands on.
        retry_after: seconds the upstream asked to wait, when it said so.
        upstream: the upstream's status, when the failure came from one.
        public_message: text the model may read (still scrubbed before sending).
        fields: the wrong arguments, for invalid_input.
        side_effect_possible: ``True`` when the request reached the upstream and then failed (read or
            write timeout, connection dropped after sending, a 5xx from a server that was handling
            it), so its action may have happened; ``False`` when it provably never did (connect
            refused, DNS, connect or pool timeout, TLS handshake, an explicit refusal such as a 4xx,
            503 or a rolled-back statement); ``None`` when the failure does not say.
    """

    failure_class: FailureClass
    retry_after: float | None = None
    upstream: Upstream | None = None
    public_message: str | None = None
    fields: tuple[FieldProblem, ...] = ()
    side_effect_possible: bool | None = None

    def __post_init__(self) -> None:
        # retry_after comes from authors, user rules and upstream headers; it reaches the model text,
        # _meta and the span, so anything but a finite delay >= 0 (RFC 9110 §10.2.3) means "not said".
        if self.retry_after is not None:
            object.__setattr__(self, "retry_after", delay_seconds(self.retry_after))


def delay_seconds(value: object) -> float | None:
    """``value`` as a delay in seconds when it is a finite number >= 0 (or a ``timedelta``), else ``None``."""
    if isinstance(value, datetime.timedelta):  # python-telegram-bot's RetryAfter.retry_after
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


Rule: TypeAlias = Callable[[BaseException], Classification | None]
"""A table entry: returns a classification, or ``None`` to defer to the exception's cause."""

_UNKNOWN: Final = Classification(FailureClass.UNKNOWN)
_UNUSABLE_URL: Final = Classification(FailureClass.UNKNOWN, side_effect_possible=False)
_MAX_CHAIN: Final = 16


_JSONRPC_CLASSES: Final = {
    PARSE_ERROR: FailureClass.INVALID_INPUT,
    INVALID_REQUEST: FailureClass.INVALID_INPUT,
    INVALID_PARAMS: FailureClass.INVALID_INPUT,
    METHOD_NOT_FOUND: FailureClass.NOT_FOUND,
    RESOURCE_NOT_FOUND: FailureClass.NOT_FOUND,
    INTERNAL_ERROR: FailureClass.UNKNOWN,
    REQUEST_TIMEOUT: FailureClass.UPSTREAM_UNAVAILABLE,
    CONNECTION_CLOSED: FailureClass.UPSTREAM_UNAVAILABLE,
    REQUEST_CANCELLED: FailureClass.UPSTREAM_UNAVAILABLE,
}


def class_for_jsonrpc_code(code: int) -> FailureClass:
    """Map a JSON-RPC error code (JSON-RPC 2.0 §5.1, MCP spec "Error Codes") to a class.

    -32001/-32000 are the SDK's local timeout and closed connection; a peer using that band for
    something else is indistinguishable by code alone (reference/mcp-sdk-2.3.md, pitfall 10). -32800 is the
    SDK's answer to a request cancelled on the server's side (``mcp.server.streamable_http.REQUEST_CANCELLED``):
    received for a call this client did not cancel, a gateway or the server gave up on it while it ran
    (mindstone/Super-MCP #1, tests/heldout_cases.md J92), so the service did not complete it.
    """
    return _JSONRPC_CLASSES.get(code, FailureClass.UNKNOWN)


def class_for_jsonrpc_error(code: int, message: str, data: Any = None) -> FailureClass:
    """The class of a JSON-RPC error: by its code, else by its message, else by what its ``data`` says.

    -32603 and the implementation-defined band name no class, and gateways reuse the SDKs' own -32000/-32001
    for other failures (a relayed "Connection closed", a 404 "Session not found"): then the message is read
    with the rules a foreign tool's error text is read with (``classify_text``), so one failure gets one class
    whether the client, ``errscope proxy`` or a gateway's tool (an ``MCPError`` from its upstream) meets it.
    A generic message ("Internal error", "Tool execution failed") leaves the cause to ``data``
    (:func:`~errscope._foreign_text.data_texts`: rmcp's ``internal_error(msg, Some(json!({"error": ...})))``).
    """
    failure_class = class_for_jsonrpc_code(code)
    if failure_class is FailureClass.UNKNOWN or code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
        from_text = classify_text(message)
        if from_text is not FailureClass.UNKNOWN and not names_no_cause(message):
            return from_text
        for said in data_texts(data):
            from_data = classify_text(json_error_message(said) or said)
            if from_data is not FailureClass.UNKNOWN:
                return from_data
        if from_text is not FailureClass.UNKNOWN:
            return from_text
    return failure_class


def http_address(url: Any) -> str | None:
    """``host[:port]`` of ``url`` (a string, or an httpx/httpx2/yarl URL): never userinfo, path or query. An IPv6
    literal keeps its brackets (``[::1]:8080``)."""
    if isinstance(url, str):
        try:
            parts = urlsplit(url)
            host, port = parts.hostname, parts.port
        except ValueError:
            return None
    else:
        host, port = getattr(url, "host", None), getattr(url, "port", None)
    if not host:
        return None
    host = str(host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 literal: bracketed as in a URL (RFC 3986 §3.2.2), so the port stays apart
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


def http_status_of(exc: BaseException) -> int | None:
    """The HTTP error status (400-599) an exception carries, in the attribute shapes HTTP clients
    and API SDKs use: ``status_code`` (OpenAI, Anthropic), ``http_status`` (Stripe), ``status``
    (aiohttp), ``code`` (urllib, google-api-core, tornado), ``errcode`` (xmlrpc.client), ``response_code``
    (python-gitlab), ``response_status_code`` (Kiota's ``APIError``: msgraph-sdk), or its ``response``'s
    ``status_code``/``status`` (httpx, requests, websockets), or its ``context``'s ``http-code``
    (databricks-sql-connector); else an
    ``OSError`` built as ``IOError(status, message)`` (typesense: its ``errno`` is the status, no errno any system
    defines). ``None`` when it carries none."""
    for owner in (exc, _attribute(exc, "response")):
        if owner is None or isinstance(owner, Mapping):  # botocore's response is a dict: see _api_error
            continue
        for name in _STATUS_ATTRIBUTES if owner is exc else ("status_code", "status"):
            status = _error_status(_attribute(owner, name))
            if status is not None:
                return status
    status = _context_status(exc)
    if status is not None:
        return status
    if isinstance(exc, OSError) and exc.errno not in errno.errorcode:  # errnos end near 140 (Linux), WSA's at 10000
        return _error_status(exc.errno)
    return None


def _context_status(exc: BaseException) -> int | None:
    """The HTTP status in an exception's ``context`` mapping (databricks-sql-connector's ``RequestError``: its
    ``"http-code"``, a driver's PEP 249 error whose HTTP request the endpoint refused)."""
    context = _attribute(exc, "context")
    return _error_status(context.get("http-code")) if isinstance(context, Mapping) else None


def _response_header(exc: BaseException, name: str) -> str | None:
    """A response header the exception carries: on itself (``headers``: PyGithub, kubernetes,
    xmlrpc.client; ``resp_headers``: websocket-client; ``response_headers``: Kiota's APIError), its ``response``
    (httpx, requests, SDKs), its ``meta`` (elastic-transport) or its ``resp`` (googleapiclient: httplib2's
    response, a dict). A dict is searched without regard to case (lowercased keys; header names are
    case-insensitive, RFC 9110 §5.1)."""
    for owner, attribute in ((exc, "headers"), (exc, "resp_headers"), (exc, "response_headers"),
                             (_attribute(exc, "response"), "headers"),
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
    # googleapiclient: .uri
    for owner, name in ((exc, "request"), (exc, "request_info"), (exc, None), (_attribute(exc, "response"), None)):
        target = _attribute(owner, name) if name else owner
        for url in (_attribute(target, "url"), _attribute(target, "uri")):
            if url is not None and not callable(url):
                address = http_address(url)
                if address:
                    return address
    return None


# An HTTP client's parser failing on what came back (aiohttp's HttpProcessingError: BadStatusLine, InvalidHeader,
# LineTooLong): it keeps a status of its own making (400), and aiohttp raises its ClientResponseError from it with
# that status. No server said 400: the answer was no HTTP, after the request went out.
_HTTP_PARSE_ERRORS: Final = frozenset({"aiohttp.http_exceptions.HttpProcessingError"})


def _is_http_parse_error(exc: BaseException | None) -> bool:
    return exc is not None and any(f"{klass.__module__}.{klass.__qualname__}" in _HTTP_PARSE_ERRORS
                                   for klass in type(exc).__mro__)


def _no_answer_below(exc: BaseException) -> bool:
    """Whether ``exc`` keeps a status no server answered: it holds no response (no response object, no or empty headers) and
    was raised over a transport failure that got no status of its own (a refused connection, a name that does not
    resolve, a reset, a timeout). An SDK's catch-all that files every client failure under a made-up status (resend's
    ``ResendError(code=500, error_type="HttpClientError")`` over requests' ``ConnectionError``): the failure below
    says what happened, and whether the request left."""
    below = walk(exc)[1:]
    weighing = _weighing()
    if not below or id(exc) in weighing or _attribute(exc, "response") is not None or any(
            _attribute(exc, name) for name in ("headers", "response_headers", "resp_headers")):  # a real answer has some
        return False
    if any(failure is exc or http_status_of(failure) is not None for failure in below):
        return False  # a status below (the one this repeats), or a chain that loops back (``raise e from e``)
    weighing.add(id(exc))
    try:
        inner = classify(below[0])
    finally:
        weighing.discard(id(exc))
    return inner.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and inner.side_effect_possible is not None


_WEIGHING: Final = threading.local()


def _weighing() -> set[int]:
    """The ids of the exceptions :func:`_no_answer_below` is weighing now in this thread: a chain that leads back to
    one answers no. Per thread: another thread classifying the same exception (a failure shared by the callers of one
    future) is not weighing it."""
    ids: set[int] | None = getattr(_WEIGHING, "ids", None)
    if ids is None:
        ids = _WEIGHING.ids = set()
    return ids


def _http_status(exc: BaseException) -> Classification | None:
    status = http_status_of(exc)
    if status is None or _is_http_parse_error(exc.__cause__):
        return None  # none, or the client parser's own: its cause decides
    if status >= 500 and _no_answer_below(exc):
        return None  # no server said so: the transport failure it was raised over decides
    result = _status_classification(status, lambda name: _response_header(exc, name), _request_address(exc))
    # An API that answers 401/403 for what does not exist (so as not to say whether it is private: the Hugging
    # Face Hub) names it in its own error code; the SDK's class says so (RepositoryNotFoundError).
    if status in (401, 403) and _NOT_FOUND_WORDS.search(type(exc).__name__):
        return replace(result, failure_class=FailureClass.NOT_FOUND)
    if result.failure_class is FailureClass.UNKNOWN:
        # A status outside HTTP's registry (Cohere's 498 for a key it refuses, nginx's 499): the SDK's class for it
        # names what it means, and the status stays the upstream's.
        named = _by_name(exc)
        if named is not None and named.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and status < 500:
            # a 4xx is the server's answer: the connection worked, whatever a base class is named (pyactiveresource
            # files every status error under its ConnectionError)
            named = None
        if named is None and _CREDENTIAL_WORDS.search(type(exc).__name__):
            named = Classification(FailureClass.PERMISSION_DENIED)
        if named is not None:
            result = replace(result, failure_class=named.failure_class)
    reasons = _error_reasons(exc) + _body_codes(exc)
    if status == 403 and any(_is_usage_limit(reason) for reason in reasons):
        result = replace(result, failure_class=FailureClass.RATE_LIMITED,
                         retry_after=retry_after_from_headers(lambda name: _response_header(exc, name)))
    # ... and a request too large for it as a 403 too (BigQuery's responseTooLarge: the query's result is over the
    # limit, https://cloud.google.com/bigquery/docs/error-messages): a smaller request fits, no permission is missing
    elif status == 403 and any(_code_family(reason) is FailureClass.INVALID_INPUT for reason in reasons):
        result = replace(result, failure_class=FailureClass.INVALID_INPUT)
    # Google answers a credential it cannot use (an API key not valid, expired) with 400 INVALID_ARGUMENT: ErrorInfo's
    # reason says the argument was the credential, not the model's input (the Gemini API, Maps, Cloud APIs).
    elif status == 400 and any(_code_family(reason) is FailureClass.PERMISSION_DENIED for reason in reasons):
        result = replace(result, failure_class=FailureClass.PERMISSION_DENIED)
    if result.retry_after is None and (result.failure_class is FailureClass.RATE_LIMITED or status == 503):
        result = replace(result, retry_after=_google_retry_delay(exc))
    if result.retry_after is None and result.failure_class is FailureClass.RATE_LIMITED:
        # the wait the SDK parsed off the answer and kept in place of its headers (Dropbox's RateLimitError.backoff)
        result = replace(result, retry_after=_carried_delay(exc))
    return result


# A refused credential in an SDK's class name, read only beside an HTTP status no registry defines (elsewhere an
# ``InvalidToken`` is a parser's or a cipher's: cryptography's Fernet)
_CREDENTIAL_WORDS: Final = re.compile(r"Invalid(?:Api)?(?:Token|Key)")


# Google's usage-limit reasons that do not say "rate limit" in their words (the Drive, Calendar and YouTube APIs'
# "Resolve errors" guides: a 403 with ``dailyLimitExceeded``, ``quotaExceeded``); those that do are read by words.
_USAGE_LIMIT_REASONS: Final = frozenset({"dailylimitexceeded", "dailylimitexceededunreg", "quotaexceeded"})


def _is_usage_limit(reason: str) -> bool:
    words = reason.replace("_", "").lower()
    return words in _USAGE_LIMIT_REASONS or _code_family(reason) is FailureClass.RATE_LIMITED


def _google_details(exc: BaseException) -> list[Mapping[str, Any]]:
    """The google.rpc detail messages (``{"@type": ..., ...}``) of a Google JSON error (AIP-193: ``error.details``)
    an exception carries: google-api-core's ``details`` (a list), googleapiclient's ``error_details``, or the whole
    parsed error body as ``details`` (google-genai's ``APIError``)."""
    found: list[Mapping[str, Any]] = []
    for name in ("details", "error_details"):
        value = _attribute(exc, name)
        if isinstance(value, Mapping):
            error = value.get("error", value)
            value = error.get("details") if isinstance(error, Mapping) else None
        if isinstance(value, list):
            found += [entry for entry in value if isinstance(entry, Mapping)]
    return found


_DURATION: Final = re.compile(r"(\d{1,9})(?:\.(\d{1,9}))?s")


def _google_retry_delay(exc: BaseException) -> float | None:
    """The wait a Google error's google.rpc.RetryInfo gives (``retryDelay``, a protobuf Duration in its JSON form
    ``"37s"``/``"1.5s"``): the Gemini and Cloud APIs say it there, not in ``Retry-After``."""
    for entry in _google_details(exc):
        if str(entry.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = entry.get("retryDelay")
            if isinstance(delay, Mapping):  # the protobuf message as a dict (seconds, nanos; int64 may be text)
                try:
                    return delay_seconds(float(delay.get("seconds") or 0) + float(delay.get("nanos") or 0) / 1e9)
                except (TypeError, ValueError):
                    return None
            match = _DURATION.fullmatch(delay) if isinstance(delay, str) else None
            if match:
                return float(f"{match[1]}.{match[2] or 0}")
    return None


_BODY_CODE_KEYS: Final = ("errorCode", "error_code", "code")


def _body_codes(exc: BaseException) -> list[str]:
    """The API error codes in the parsed error body an SDK keeps beside the status: ``content`` (simple-salesforce:
    Salesforce's ``[{"errorCode": "REQUEST_LIMIT_EXCEEDED", ...}]``), ``body`` (Fern-generated SDKs), ``json_body``
    (Stripe); the top level, the entries of a top-level list and an ``error`` object, as text codes only."""
    codes: list[str] = []
    for name in ("content", "body", "json_body"):
        value = _attribute(exc, name)
        entries = [entry for entry in (value[:10] if isinstance(value, list) else [value]) if isinstance(entry, Mapping)]
        entries += [entry["error"] for entry in entries if isinstance(entry.get("error"), Mapping)]
        for entry in entries:
            codes += [code for key in _BODY_CODE_KEYS
                      if isinstance(code := entry.get(key), str) and code and not code.isdigit()]
    return codes


def _error_reasons(exc: BaseException) -> list[str]:
    """The machine-readable reasons a Google API error carries: its JSON error's ``errors[].reason`` or
    ``details[].reason`` (google.rpc.ErrorInfo), as googleapiclient keeps them (``error_details``), google-api-core
    (``errors``; ErrorInfo's ``reason`` beside its ``domain``, never a reason phrase: urllib's ``reason`` has none)
    and google-genai (the parsed body as ``details``)."""
    reasons = [entry.get("reason") for entry in _google_details(exc)]
    entries = _attribute(exc, "errors")
    if isinstance(entries, list):
        reasons += [entry.get("reason") for entry in entries if isinstance(entry, Mapping)]
    if isinstance(_attribute(exc, "domain"), str):
        reasons.append(_attribute(exc, "reason"))
    return [reason for reason in reasons if isinstance(reason, str) and reason]


# Whether a transport failure may have delivered the request, by the exception's class name in
# httpx/httpx2 and httpcore/httpcore2 (they share one hierarchy): the most specific name decides.
_NOT_SENT: Final = frozenset({"ConnectError", "ConnectTimeout", "PoolTimeout", "UnsupportedProtocol", "ProxyError",
                              "LocalProtocolError", "ConnectionNotAvailable"})
_MAYBE_SENT: Final = frozenset({"ReadTimeout", "WriteTimeout", "ReadError", "WriteError", "RemoteProtocolError",
                                "CloseError"})


def _sent_by_name(exc: BaseException) -> bool | None:
    for klass in type(exc).__mro__:
        names = {klass.__name__, klass.__name__.removesuffix("Error")}  # urllib3, botocore: ReadTimeoutError
        if names & _NOT_SENT:
            return False
        if names & _MAYBE_SENT:
            return True
    return None


# HTTP/2 error codes (RFC 9113 §7, the IANA "HTTP/2 Error Code" registry) a stream reset (RST_STREAM) or a
# connection shutdown (GOAWAY) carries -> (class, may the request have been acted on). REFUSED_STREAM is the
# server's word that the stream was closed before any processing (§8.7); HTTP_1_1_REQUIRED refuses the request
# for its protocol; ENHANCE_YOUR_CALM says the client generates excessive load. Any other code on a request the
# server had may come after it acted.
_HTTP2_ERROR_CODES: Final[dict[int, tuple[str, FailureClass, bool | None]]] = {
    0x0: ("NO_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x1: ("PROTOCOL_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x2: ("INTERNAL_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x3: ("FLOW_CONTROL_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x4: ("SETTINGS_TIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x5: ("STREAM_CLOSED", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x6: ("FRAME_SIZE_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x7: ("REFUSED_STREAM", FailureClass.UPSTREAM_UNAVAILABLE, False),
    0x8: ("CANCEL", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0x9: ("COMPRESSION_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0xA: ("CONNECT_ERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    0xB: ("ENHANCE_YOUR_CALM", FailureClass.RATE_LIMITED, False),
    0xC: ("INADEQUATE_SECURITY", FailureClass.UPSTREAM_UNAVAILABLE, False),
    0xD: ("HTTP_1_1_REQUIRED", FailureClass.UPSTREAM_UNAVAILABLE, False),
}


def _http2_error(exc: BaseException) -> Classification | None:
    """What an HTTP/2 stream reset or GOAWAY says, when the exception carries it: httpcore/httpcore2 raise
    ``RemoteProtocolError`` over the ``h2`` event itself (``StreamReset``: ``error_code``; ``ConnectionTerminated``:
    also ``last_stream_id``, the highest stream the server may have processed, RFC 9113 §6.8). A GOAWAY whose
    ``last_stream_id`` is below the request's stream did not process it, whatever its code."""
    chain = [exc, exc.__cause__ or exc.__context__]
    event = next((arg for current in chain if current is not None for arg in current.args
                  if not isinstance(arg, BaseException | str) and isinstance(_attribute(arg, "error_code"), int)), None)
    if event is None or int(event.error_code) not in _HTTP2_ERROR_CODES:
        return None
    name, failure_class, sent = _HTTP2_ERROR_CODES[int(event.error_code)]
    last_stream = _attribute(event, "last_stream_id")
    stream = _attribute(event, "stream_id")
    if isinstance(last_stream, int) and not isinstance(stream, int):
        # A GOAWAY: streams start at 1, so 0 processed none of ours. A client raises over one only for a stream it
        # covers (httpcore retries a higher one on a new connection): that one may have been processed.
        sent = last_stream != 0
    return Classification(failure_class, upstream=Upstream("http2", name), side_effect_possible=sent)


def _http_transport_error(exc: BaseException) -> Classification:
    if type(exc).__name__ == "UnsupportedProtocol":
        return _UNUSABLE_URL  # a URL without http(s):// (httpx checks it before any connection): no upstream failed
    address = None
    try:
        address = http_address(exc.request.url)  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # raised without a request attached (or by httpcore)
        pass
    http2 = _http2_error(exc)
    if http2 is not None:
        return replace(http2, upstream=replace(http2.upstream or Upstream("http2"), address=address))
    refused = _proxy_refusal(exc, address)
    if refused is not None:
        return refused
    return Classification(
        FailureClass.UPSTREAM_UNAVAILABLE,
        upstream=Upstream("http", type(exc).__name__, address),
        side_effect_possible=_sent_by_name(exc),
    )


_PROXY_STATUS: Final = re.compile(
    r"^\s*([45]\d\d)\s+[A-Za-z]|tunnel connection failed:\s*([45]\d\d)\b|tunnel failed, response ([45]\d\d)\b"
    r"|proxy response \(([45]\d\d)\)",
    re.IGNORECASE,
)
"""The status a forward proxy refused a tunnel with, as the HTTP clients word it: httpcore's ``ProxyError("407 Proxy
Authentication Required")``, urllib3's ``Tunnel connection failed: 407 Proxy Authentication Required``, curl's
``CONNECT tunnel failed, response 407``, undici's ``Proxy response (407) !== 200``. A number elsewhere (a port) is
none."""


_TUNNEL_REFUSED: Final = re.compile(r"Tunnel connection failed: [45]\d\d\b")
"""http.client's own words for a refused ``CONNECT`` (``HTTPConnection._tunnel`` raises a plain ``OSError``), as
urllib3, requests and urllib carry it."""


def _proxy_refusal(exc: BaseException, address: str | None = None) -> Classification | None:
    """A forward proxy's refusal of a ``CONNECT`` tunnel, classed by the proxy's status (RFC 9110 §9.3.6: a 2xx
    opens the tunnel, anything else refuses it): 407 (RFC 9110 §15.5.8) and 401/403 are ``permission_denied`` (the
    proxy credentials or policy; a retry will not change them), the rest ``upstream_unavailable``. The request never
    reached its target. ``None`` when ``exc`` is no proxy error or names no status."""
    texts = [str(exc)] + [str(arg) for arg in getattr(exc, "args", ())[:3] if isinstance(arg, BaseException)]
    if not any(klass.__name__ == "ProxyError" for klass in type(exc).__mro__) and not any(
        _TUNNEL_REFUSED.match(text) for text in texts
    ):
        return None
    match = next((m for m in map(_PROXY_STATUS.search, texts) if m), None)
    if match is None:
        return None
    status = int(next(group for group in match.groups() if group))
    failure_class = FailureClass.PERMISSION_DENIED if status in (401, 403, 407) else FailureClass.UPSTREAM_UNAVAILABLE
    return Classification(failure_class, upstream=Upstream("http", str(status), address), side_effect_possible=False)


def _redirect_loop(exc: BaseException) -> Classification:
    """An HTTP client that gave up following redirects (httpx's and httpx2's, requests' and aiohttp's
    ``TooManyRedirects``): the upstream answers this URL only with redirects, a loop or a chain longer than the
    client follows (elastic/docs-builder PR #2728: a 301 to itself). Every answer was a redirect (RFC 9110 §15.4: the
    target asks for another request, it did not act), so nothing was applied; the URL or the upstream's routing must
    change: ``upstream_unavailable``, not sent, the last status as the upstream's when the client kept it."""
    response = _attribute(exc, "response")
    status = http_status_of(exc) or _attribute(response, "status_code")
    address = _request_address(exc)
    if address is None:
        try:
            address = http_address(exc.request.url)  # type: ignore[attr-defined]
        except (AttributeError, RuntimeError):
            pass
    code = str(status) if isinstance(status, int) and 300 <= status <= 399 else type(exc).__name__
    return Classification(
        FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("http", code, address), side_effect_possible=False
    )


def _proxy_error(exc: BaseException) -> Classification:
    """requests' and urllib3's ``ProxyError``: the proxy's refusal when it names its status, else not sent."""
    return _proxy_refusal(exc, _request_address(exc)) or _unavailable(False, "http")(exc)


def _tool_failure(exc: BaseException) -> Classification:
    assert isinstance(exc, ToolFailure)
    upstream = None
    if exc.upstream_status or exc.upstream_system:
        upstream = Upstream(exc.upstream_system, exc.upstream_status)
    fields: tuple[FieldProblem, ...] = ()
    if isinstance(exc, InvalidInput) and exc.field:
        fields = (FieldProblem(exc.field, exc.expected),)
    cause = classify(exc.__cause__) if exc.__cause__ is not None else None
    return Classification(
        exc.failure_class,
        retry_after=exc.retry_after if isinstance(exc, RateLimited) else (cause.retry_after if cause else None),
        upstream=upstream or (cause.upstream if cause else None),
        public_message=exc.public_message,
        fields=fields,
        side_effect_possible=cause.side_effect_possible if cause else None,
    )


def _pydantic_validation(exc: BaseException) -> Classification:
    # Raised inside the tool (upstream data, its own models) or by an output check: the model's
    # arguments were fine, so it is not invalid_input. The argument-validation seams of the
    # frameworks wrap theirs (see _mcp_tool_error, the FastMCP adapter): argument_problems.
    return _UNKNOWN


def argument_problems(exc: pydantic.ValidationError) -> Classification:
    """``invalid_input`` naming each wrong field, for a ``ValidationError`` of the *arguments*.

    Only an argument-validation seam calls this (where the error arose decides, not its text): a
    framework validating the call's arguments before the tool runs. Never echoes a value.
    """
    fields = tuple(
        FieldProblem(".".join(str(part) for part in error["loc"]) or "arguments", _PYDANTIC_EXPECTED.get(error["type"]))
        for error in exc.errors(include_input=False, include_url=False)
    )
    return Classification(FailureClass.INVALID_INPUT, fields=fields)


# pydantic error types -> what the value must be (https://docs.pydantic.dev/latest/errors/validation_errors/)
_PYDANTIC_EXPECTED: Final = {
    "missing": "present",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "datetime_type": "an ISO-8601 date-time",
    "datetime_parsing": "an ISO-8601 date-time",
    "date_parsing": "an ISO-8601 date",
}


def _mcp_tool_error(exc: BaseException) -> Classification | None:
    # MCPServer wraps everything in ToolError/UnexpectedToolError; the cause says what happened.
    # Its argument validation (Tool.run) is the one plain ToolError over a pydantic error: the
    # caller's arguments; an UnexpectedToolError over one is the tool's body or its output.
    if type(exc) is ToolError and isinstance(exc.__cause__, pydantic.ValidationError):
        return argument_problems(exc.__cause__)
    return tool_error_text(exc)


def tool_error_text(exc: BaseException) -> Classification | None:
    """A ``ToolError`` (MCPServer's or FastMCP's): its cause says what happened; a bare one is only text.

    That text is what the tool's author wrote for the model, and it reaches a client (or ``errscope
    proxy``) as the ``isError`` text: it is read with the client's rules (``classify_text``), so one
    failure gets one class wherever errscope sits.
    """
    if exc.__cause__ is not None:
        return None
    text = str(exc)
    if text.startswith("Unknown tool"):
        return Classification(FailureClass.NOT_FOUND)
    # An upstream API's JSON error document passed on as the message: the model reads its innermost message.
    said = json_error_message(text) or text
    cls = classify_text(said)
    retry_after = retry_after_from_text(text) if cls is FailureClass.RATE_LIMITED else None
    return Classification(cls, retry_after=retry_after, public_message=said)


# An HTTP error status named as one in prose: "status code 429", "status 503", "statusCode: 404", "HTTP 404", "HTTP
# Error 500", "HTTP/1.1 503", "status=502", "(status 401)", "HTTP_RESPONSE 502" (braintree), "response code 404".
# The word decides that the number is a status, never a bare number. (The sign takes the spaces after it: two optional
# runs of ``\s*`` side by side backtrack quadratically over a long run of blanks after the word.)
_STATUS_PHRASE: Final = re.compile(
    r"\b(?:status(?:[ _]?code)?|http(?:/\d(?:\.\d)?| error| status|[ _]response)?|response[ _](?:code|status))"
    r"\s*(?:[:=]\s*)?([45]\d\d)\b", re.I)
# The HTTP clients' own wordings, kept when a tool passes ``str(e)`` on (``RuntimeError(f"failed: {e}")``): httpx's
# "Client error '404 Not Found' for url …" / "Server error '503 …'" (whatever reason the server sent), requests'
# "404 Client Error: Not Found for url: …", aiohttp's "404, message='Not Found', url=…", or any status followed by
# its RFC 9110 §15 reason phrase ("503 Service Unavailable"). The wording decides that the number is a status.
_REASON_PHRASES: Final = "|".join(sorted((re.escape(s.phrase) for s in http.HTTPStatus if s >= 400), key=len,
                                         reverse=True))
_STATUS_WITH_PHRASE: Final = re.compile(
    r"\b(?:client|server) error '([45]\d\d)\b"
    r"|\b([45]\d\d)(?: (?:client|server) error\b|, message=)"
    rf"|\b([45]\d\d) (?:{_REASON_PHRASES})\b", re.I)
_PHRASE_STATUS: Final = {s.phrase.lower(): int(s) for s in http.HTTPStatus if s >= 400}
"""A reason phrase's own status: "503 Service Unavailable" is one, "Order 500 not found" (a record's number before
another status's phrase) is none."""


def _status_with_phrase(text: str) -> re.Match[str] | None:
    """The first :data:`_STATUS_WITH_PHRASE` match whose number and reason phrase (if it is read by its phrase) name
    the same status; ``None`` when there is none."""
    for match in _STATUS_WITH_PHRASE.finditer(text):
        if match.group(3) is None or _PHRASE_STATUS.get(text[match.end(3) + 1:match.end()].lower()) == int(match.group(3)):
            return match
    return None


def _status_in_text(exc: BaseException) -> Classification | None:
    """An exception of a type no rule knows whose message names an HTTP error status (:data:`_STATUS_PHRASE`, else an
    HTTP client's wording or a status with its own reason phrase: :func:`_status_with_phrase`): an
    SDK that raises ``ValueError(f"Request failed with status code {status}: {body}")`` (exa-py), a tool's
    ``raise Exception(f"API returned status {status}")``. Read as that status carried (RFC 9110's table, the status's
    side-effect fact, the upstream ``http`` status), the wait its text gives on a 429/503; an API's JSON document
    after it refines a 400/403 the way a carried status is refined (a refused credential, a usage limit).
    ``None`` for a programming error's message (it names the tool's own code) or no such phrase."""
    if isinstance(exc, _PROGRAMMING_ERRORS):
        return None
    text = _message_of(exc)
    match = _STATUS_PHRASE.search(text) or _status_with_phrase(text)
    if match is None:
        return None
    status = int(next(group for group in match.groups() if group))
    result = _status_named(status, "http")(exc)
    if result.upstream is not None and result.upstream.address is None:
        # the URL the client's wording names after the status ("… for url 'https://api.example/v1/x'")
        url = _URL_AFTER.search(text, match.end())
        address = http_address(url.group(0)) if url else None
        if address:
            result = replace(result, upstream=replace(result.upstream, address=address))
    if status in (400, 403):
        document = _error_document(exc)
        if document is not None and document.failure_class in (FailureClass.PERMISSION_DENIED,
                                                                FailureClass.RATE_LIMITED):
            result = replace(result, failure_class=document.failure_class)
    if result.failure_class is FailureClass.RATE_LIMITED or status == 503:
        result = replace(result, retry_after=retry_after_from_text(text))
    return result


def _error_document(exc: BaseException) -> Classification | None:
    """An exception whose message is an upstream API's JSON error document (``raise RuntimeError(response.text)``):
    classed by that document's innermost codes (an API code family, an HTTP status) and message, read with the
    client's rules (:func:`errscope._foreign_text.classify_text`); ``None`` when it is no such document or says
    nothing the rules know. The HTTP status, when the document gives one, is the upstream's."""
    said = _message_of(exc)
    parts = json_error_parts(said)
    if parts is None:
        # A programming error's message names the tool's own identifiers ("no attribute 'not_found'"), never an API's.
        return None if isinstance(exc, _PROGRAMMING_ERRORS) else _named_api_code(said)
    message, codes = parts
    statuses = [int(code) for code in codes if code.isdigit() and 400 <= int(code) <= 599]
    families = [family for code in codes if not code.isdigit() and (family := _code_family(code)) is not None]
    failure_class = next((family for family in families if family is not FailureClass.UNKNOWN), None)
    if failure_class is None:
        failure_class = classify_text(f"{message} ({', '.join(codes)})" if codes else message)
    if failure_class is FailureClass.UNKNOWN and statuses:
        failure_class = class_for_http_status(statuses[0])
    if failure_class is FailureClass.UNKNOWN:
        return None
    upstream = Upstream("http", str(statuses[0])) if statuses else None
    wait = retry_after_from_text(message) if failure_class is FailureClass.RATE_LIMITED else None
    return Classification(failure_class, retry_after=wait, upstream=upstream)


_URL_AFTER: Final = re.compile(r"\bhttps?://[^\s'\"<>]+")
"""The first URL after a status phrase: the request's, in httpx's, requests' and aiohttp's wordings."""


_PROGRAMMING_ERRORS: Final = (AttributeError, NameError, TypeError, LookupError, AssertionError, ImportError,
                              SyntaxError, NotImplementedError)


def _named_api_code(message: str) -> Classification | None:
    """An exception whose message names an API's own error code in prose (``RuntimeError(f"Slack API error:
    {data['error']}")``, a CLI's "An error occurred (ThrottlingException) when calling ..."): the class that code's
    family names (:func:`errscope._foreign_text.named_code_class`), as on the API's own exception; ``None`` when it
    names none. Words are not read: only a code-shaped token a family knows."""
    failure_class = named_code_class(message)
    if failure_class is None:
        return None
    if failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
        return Classification(failure_class, side_effect_possible=True)
    wait = retry_after_from_text(message) if failure_class is FailureClass.RATE_LIMITED else None
    return Classification(failure_class, retry_after=wait, side_effect_possible=False)


def _message_of(exc: BaseException) -> str:
    """``str(exc)``, or ``""`` when its ``__str__`` raises (J170)."""
    try:
        text = str(exc)
    except Exception:
        return ""
    return text if isinstance(text, str) else ""


_UNIQUE_KEY: Final = re.compile(r"Key \(([A-Za-z_][A-Za-z0-9_]*(?:, ?[A-Za-z_][A-Za-z0-9_]*)*)\)=")


def _dbapi_integrity(exc: BaseException) -> Classification | None:
    if _wraps_driver_error(exc):
        return None
    # PostgreSQL's detail names the violated key's columns, never just the value: keep the columns only.
    match = _UNIQUE_KEY.search(str(exc))
    status = _db_status(exc)
    upstream = Upstream(_db_system(exc), status, _db_address(exc)) if status else None
    if match and "already exists" in str(exc):
        column = match.group(1)
        return Classification(
            FailureClass.INVALID_INPUT,
            upstream=upstream,
            public_message=f"a record with this {column} already exists",
            fields=(FieldProblem(column, "unique"),),
            side_effect_possible=False,
        )
    return Classification(FailureClass.INVALID_INPUT, upstream=upstream, side_effect_possible=False)


_SQLSTATE_SHAPE: Final = re.compile(r"[0-9A-Z]{5}")


def _sqlstate(exc: BaseException) -> str | None:
    # psycopg 3 and asyncpg expose .sqlstate, psycopg2 .pgcode (five characters, SQL standard);
    # PostgREST's error body (postgrest-py, Supabase) passes the database's on as .code.
    for attribute in ("sqlstate", "pgcode", "code"):
        value = getattr(exc, attribute, None)
        if isinstance(value, str) and _SQLSTATE_SHAPE.fullmatch(value):
            return value
    return None


def _printed_sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE a PEP 249 driver's error keeps only in its message (databricks-sql-connector's
    ``ServerOperationError``: Databricks' error conditions end in "SQLSTATE: 42P01",
    https://docs.databricks.com/en/error-messages/index.html), when it has no attribute for one."""
    if _sqlstate(exc) is not None or not any(klass.__name__ in _DBAPI_RULES for klass in type(exc).__mro__[:-2]):
        return None
    return sqlstate_in_text(_message_of(exc)[:2000])


# SQLite primary result codes (https://sqlite.org/rescode.html), from ``sqlite3.Error.sqlite_errorname``.
_SQLITE_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "SQLITE_BUSY": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_LOCKED": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_CANTOPEN": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_FULL": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_IOERR": (FailureClass.UPSTREAM_UNAVAILABLE, None),
    "SQLITE_INTERRUPT": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_READONLY": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_PERM": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_AUTH": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_CONSTRAINT": (FailureClass.INVALID_INPUT, False),
    "SQLITE_MISMATCH": (FailureClass.INVALID_INPUT, False),
    "SQLITE_TOOBIG": (FailureClass.INVALID_INPUT, False),
    "SQLITE_ERROR": (FailureClass.UNKNOWN, False),  # no such table, syntax error: our bug
}


# MySQL/MariaDB error numbers (server: https://mariadb.com/kb/en/mariadb-error-codes/, client CR_*),
# as PyMySQL and mysqlclient give them (``args[0]``) and mysql-connector (``errno``).
_MYSQL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    1044: (FailureClass.PERMISSION_DENIED, False),  # ER_DBACCESS_DENIED_ERROR
    1045: (FailureClass.PERMISSION_DENIED, False),  # ER_ACCESS_DENIED_ERROR (login)
    1142: (FailureClass.PERMISSION_DENIED, False),  # ER_TABLEACCESS_DENIED_ERROR
    1143: (FailureClass.PERMISSION_DENIED, False),  # ER_COLUMNACCESS_DENIED_ERROR
    1227: (FailureClass.PERMISSION_DENIED, False),  # ER_SPECIFIC_ACCESS_DENIED_ERROR
    1048: (FailureClass.INVALID_INPUT, False),  # ER_BAD_NULL_ERROR
    1062: (FailureClass.INVALID_INPUT, False),  # ER_DUP_ENTRY
    1264: (FailureClass.INVALID_INPUT, False),  # ER_WARN_DATA_OUT_OF_RANGE
    1366: (FailureClass.INVALID_INPUT, False),  # ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
    1406: (FailureClass.INVALID_INPUT, False),  # ER_DATA_TOO_LONG
    1451: (FailureClass.INVALID_INPUT, False),  # ER_ROW_IS_REFERENCED_2
    1452: (FailureClass.INVALID_INPUT, False),  # ER_NO_REFERENCED_ROW_2
    4025: (FailureClass.INVALID_INPUT, False),  # ER_CONSTRAINT_FAILED (MariaDB CHECK)
    3819: (FailureClass.INVALID_INPUT, False),  # ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
    1040: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_CON_COUNT_ERROR: too many connections
    1203: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_TOO_MANY_USER_CONNECTIONS
    1205: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_LOCK_WAIT_TIMEOUT: the statement was rolled back
    1213: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_LOCK_DEADLOCK: the transaction was rolled back
    1969: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
    3024: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_QUERY_TIMEOUT (MySQL max_execution_time)
    1053: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # ER_SERVER_SHUTDOWN mid-statement
    1927: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # ER_CONNECTION_KILLED (MariaDB)
    2003: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # CR_CONN_HOST_ERROR: cannot connect
    2005: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # CR_UNKNOWN_HOST
    2006: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # CR_SERVER_GONE_ERROR
    2013: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # CR_SERVER_LOST during the query
    1049: (FailureClass.UNKNOWN, False),  # ER_BAD_DB_ERROR: configuration
    1054: (FailureClass.UNKNOWN, False),  # ER_BAD_FIELD_ERROR: our bug
    1064: (FailureClass.UNKNOWN, False),  # ER_PARSE_ERROR: our bug
    1146: (FailureClass.UNKNOWN, False),  # ER_NO_SUCH_TABLE: our bug
}


# ClickHouse's own error codes (src/Common/ErrorCodes.cpp), what clickhouse-connect and clickhouse-driver keep as
# ``code``. A server-side error aborts the query; ClickHouse has no transaction to leave half-applied for these.
_CLICKHOUSE_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((192, 193, 194, 195, 497, 516), (FailureClass.PERMISSION_DENIED, False)),  # unknown user,
    # wrong password, required password, IP not allowed, ACCESS_DENIED, AUTHENTICATION_FAILED
    **dict.fromkeys((159, 160, 164, 202, 203, 209, 210, 241, 242, 252, 394, 425),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # TIMEOUT_EXCEEDED, TOO_SLOW, READONLY,
    # TOO_MANY_SIMULTANEOUS_QUERIES, NO_FREE_CONNECTION, SOCKET_TIMEOUT, NETWORK_ERROR, MEMORY_LIMIT_EXCEEDED,
    # TABLE_IS_READ_ONLY, TOO_MANY_PARTS, QUERY_WAS_CANCELLED, SYSTEM_ERROR
    **dict.fromkeys((6, 27, 53, 69, 70, 72, 117), (FailureClass.INVALID_INPUT, False)),  # a value that does not
    # parse or fit its column: CANNOT_PARSE_TEXT, CANNOT_PARSE_INPUT_ASSERTION_FAILED, TYPE_MISMATCH,
    # ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, CANNOT_PARSE_NUMBER, INCORRECT_DATA
    **dict.fromkeys((16, 46, 47, 60, 62, 81), (FailureClass.UNKNOWN, False)),  # NO_SUCH_COLUMN_IN_TABLE,
    # UNKNOWN_FUNCTION, UNKNOWN_IDENTIFIER, UNKNOWN_TABLE, SYNTAX_ERROR, UNKNOWN_DATABASE: the tool's query
}
_CLICKHOUSE_DRIVERS: Final = ("clickhouse_connect", "clickhouse_driver")


# OpenTelemetry's ``db.system.name`` values (semantic conventions, database spans) by the driver's top-level package.
_DB_SYSTEMS: Final = {
    **dict.fromkeys(("psycopg", "psycopg2", "asyncpg", "pg8000", "psycopg2cffi"), "postgresql"),
    **dict.fromkeys(("pymysql", "MySQLdb", "mysql", "aiomysql", "asyncmy"), "mysql"),
    "mariadb": "mariadb",
    **dict.fromkeys(("sqlite3", "aiosqlite", "apsw"), "sqlite"),
    **dict.fromkeys(("oracledb", "cx_Oracle"), "oracle.db"),
    **dict.fromkeys(("pymssql", "pytds"), "microsoft.sql_server"),
    **dict.fromkeys(_CLICKHOUSE_DRIVERS, "clickhouse"),
    "duckdb": "duckdb",
    "trino": "trino",
}


def _db_system(exc: BaseException) -> str:
    """The database the driver that raised ``exc`` speaks to (:data:`_DB_SYSTEMS`, OpenTelemetry's
    ``db.system.name`` values), else ``db``: what the triage dashboard groups upstream failures by."""
    return _DB_SYSTEMS.get(type(exc).__module__.partition(".")[0], "db")


_DSN_PAIR: Final = re.compile(r"\b(host|port)='?([^\s']+)")


def _db_address(exc: BaseException) -> str | None:
    """``host:port`` of the connection a driver's error names: psycopg 3's ``Error.pgconn`` (libpq's ``PQhost``/
    ``PQport``, set even when the login failed), psycopg2's ``Error.cursor.connection.info`` (psycopg2 >= 2.8).
    A Unix socket directory is no address. ``None`` when the error names no connection."""
    try:
        pgconn = getattr(exc, "pgconn", None)
        cursor = getattr(exc, "cursor", None)
        info = getattr(getattr(cursor, "connection", None), "info", None)
        # a closed psycopg2 connection refuses ``info`` but keeps its ``dsn`` (password masked): host and port from it
        dsn = getattr(getattr(cursor, "connection", None), "dsn", None)
        parsed = dict(_DSN_PAIR.findall(dsn)) if isinstance(dsn, str) else {}
        for owner in (pgconn, info, type("Dsn", (), {"host": parsed.get("host"), "port": parsed.get("port")})):
            try:
                host, port = getattr(owner, "host", None), getattr(owner, "port", None)
            except Exception:  # libpq's accessors on a closed connection
                continue
            host = host.decode("utf-8", "replace") if isinstance(host, bytes) else host
            port = port.decode("ascii", "replace") if isinstance(port, bytes) else port
            if isinstance(host, str) and host and not host.startswith("/"):
                return f"[{host}]:{port}" if ":" in host and port else f"{host}:{port}" if port else host
    except Exception:  # a closed connection object may refuse to answer
        return None
    return None


def _db_status(exc: BaseException) -> str | None:
    """The database's own code for ``upstream.status``: a MySQL error number (finer than the
    SQLSTATE MySQL maps many numbers onto: 42000 is a syntax error and a denied access), else the SQLSTATE."""
    mysql = _mysql_code(exc)
    return str(mysql) if mysql is not None else _sqlstate(exc) or _printed_sqlstate(exc)


def _mysql_code(exc: BaseException) -> int | None:
    code = getattr(exc, "errno", None)
    if code is None and exc.args:
        code = exc.args[0]
    return code if isinstance(code, int) and not isinstance(code, bool) and code in _MYSQL_CODES else None


def _db_code(exc: BaseException) -> tuple[FailureClass, bool | None] | None:
    """What the database's own error code says, when the driver exposes one."""
    mysql = _mysql_code(exc)
    if mysql is not None:
        return _MYSQL_CODES[mysql]
    status = _sqlstate(exc) or _printed_sqlstate(exc)
    if status is not None:
        return _SQLSTATES.get(status) or _SQLSTATES.get(status[:2])
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(name, str):
        return _SQLITE_CODES.get("_".join(name.split("_")[:2]))
    code = getattr(exc, "code", None)
    if type(exc).__module__.partition(".")[0] in _CLICKHOUSE_DRIVERS and code in _CLICKHOUSE_CODES:
        return _CLICKHOUSE_CODES[code]
    # libpq reports no SQLSTATE for a failed connection attempt; psycopg attaches the connection
    # (Error.pgconn), which never had a server process behind it. Other drivers (psycopg2,
    # PyMySQL) say it by where they raised: inside their own connect().
    if getattr(getattr(exc, "pgconn", None), "backend_pid", None) == 0 or _raised_connecting(exc):
        return FailureClass.UPSTREAM_UNAVAILABLE, False
    # psycopg2 names the cursor whose statement raised (Error.cursor): an OperationalError there
    # without a code is the connection lost under the running statement.
    if type(exc).__name__ == "OperationalError" and getattr(exc, "cursor", None) is not None:
        return FailureClass.UPSTREAM_UNAVAILABLE, True
    return None


# Functions that open a connection (a driver's connect, the socket's, asyncio's and anyio's): an error raised
# while one of them ran came before any request of the caller's was sent.
_CONNECTING_FUNCTIONS: Final = frozenset({"connect", "_connect", "connect_tcp", "connect_unix", "sock_connect",
                                          "create_connection", "open_connection", "start_connection"})


def _function_name(frame: Any) -> str:
    # Cython-compiled modules (cassandra-driver's) name their code objects "package.module.Class.method"
    return str(frame.f_code.co_name).rpartition(".")[2]


def _raised_connecting(exc: BaseException, package: str | None = None, *, anywhere: bool = False) -> bool:
    """Whether ``exc`` came out of a connecting function (``_CONNECTING_FUNCTIONS``) of ``package`` (default:
    the exception's own library; PEP 249's ``connect()``, ``Connection.connect``; ``anywhere``: of any
    module): no connection existed, so no statement was sent."""
    package = package or type(exc).__module__.partition(".")[0]
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if (_function_name(frame) in _CONNECTING_FUNCTIONS
                and (anywhere or str(frame.f_globals.get("__name__", "")).partition(".")[0] == package)):
            return True
        tb = tb.tb_next
    return False


def _wraps_driver_error(exc: BaseException) -> bool:
    # SQLAlchemy's DBAPIError keeps the driver's exception as .orig and raises from it: that one
    # carries the database's code (and, as the root cause, the driver's own words).
    orig = getattr(exc, "orig", None)
    if isinstance(orig, BaseException) and orig in (exc.__cause__, exc.__context__):
        return True
    # A framework's copy of the driver's PEP 249 error under the same standard name, raised from it
    # (Django's DatabaseErrorWrapper: django.db.utils.IntegrityError from psycopg's UniqueViolation):
    # the driver's one carries the code. Only the same name: Django's TransactionManagementError (a
    # ProgrammingError) raised from the IntegrityError that broke the transaction is no copy of it.
    cause = exc.__cause__
    return (cause is not None and type(exc).__name__ in _DBAPI_RULES and _db_code(exc) is None
            and type(exc).__name__ in {klass.__name__ for klass in type(cause).__mro__})


def _dbapi(failure_class: FailureClass, side_effect_possible: bool | None = None) -> Rule:
    def rule(exc: BaseException) -> Classification | None:
        if _wraps_driver_error(exc):
            return None
        if _context_status(exc) is not None:
            # a driver over HTTP whose request the endpoint refused (databricks-sql-connector's RequestError, an
            # OperationalError keeping ``context["http-code"]``): that status, as any HTTP client's
            return _http_status(exc)
        status = _db_status(exc)
        code = _db_code(exc)
        # Without a code of its own, a driver's error raised over its transport's (clickhouse-connect over
        # urllib3, a refused connection) is what that one says.
        inner = exc.__cause__ or exc.__context__
        if code is None and inner is not None and classify(inner).failure_class is not FailureClass.UNKNOWN:
            return None
        cls, side_effect = code or (failure_class, side_effect_possible)
        if side_effect is not False and _raised_connecting(exc):
            # a connection lost before it opened (mysql-connector's 2013 "reading initial communication packet"):
            # no statement of the caller's went out, whatever the code says of one lost mid-query
            side_effect = False
        address = _db_address(exc)  # (reads the driver's connection: once)
        upstream = Upstream(_db_system(exc), status, address) if status or address else None
        return Classification(cls, upstream=upstream, side_effect_possible=side_effect)

    return rule


def _fixed(failure_class: FailureClass, side_effect_possible: bool | None = None) -> Rule:
    result = Classification(failure_class, side_effect_possible=side_effect_possible)
    return lambda exc: result


def _defer(exc: BaseException) -> None:
    return None


# PEP 249 standard exception names, matched by class name so no driver is imported. The database's
# own code (SQLSTATE, SQLite result code) wins over the driver's choice of class: psycopg files an
# insufficient privilege under ProgrammingError, sqlite3 a locked database and a missing table
# both under OperationalError.
_DBAPI_RULES: Final[dict[str, Rule]] = {
    "DatabaseError": _dbapi(FailureClass.UNKNOWN),  # the base of the others: its code decides, else the chain
    "IntegrityError": _dbapi_integrity,
    "DataError": _dbapi(FailureClass.INVALID_INPUT, False),
    "OperationalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InterfaceError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InternalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "ProgrammingError": _dbapi(FailureClass.UNKNOWN, False),
    "NotSupportedError": _dbapi(FailureClass.UNKNOWN, False),
}


# Socket errnos of a network failure -> whether the request may have been delivered (POSIX connect(2),
# send(2), recv(2)): the peer refused or could not be reached, or the connection broke once open.
_NETWORK_ERRNOS: Final = {
    errno.ECONNREFUSED: False,
    errno.ENETUNREACH: False,
    errno.EHOSTUNREACH: False,
    errno.EADDRNOTAVAIL: False,
    errno.ECONNRESET: True,
    errno.ECONNABORTED: True,
    errno.EPIPE: True,
    errno.ETIMEDOUT: True,
}


def _unavailable(side_effect_possible: bool | None, system: str | None = None) -> Rule:
    """upstream_unavailable with what the exception's type (else its errno) tells about delivery."""

    def rule(exc: BaseException) -> Classification:
        upstream = Upstream(system, type(exc).__name__) if system else None
        sent = side_effect_possible
        if sent is None:
            sent = _NETWORK_ERRNOS.get(getattr(exc, "errno", None))  # type: ignore[arg-type]
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream, side_effect_possible=sent)

    return rule


# Redis's reply codes for a command refused because of the server's own state, for now (Redis's error replies start
# with their code, https://redis.io/docs/latest/develop/reference/protocol-spec/#simple-errors; redis-py raises a class
# of its own for LOADING, READONLY, MASTERDOWN, TRYAGAIN, CLUSTERDOWN and OOM, and a bare ResponseError for BUSY (a
# script or function running), MISCONF (it cannot persist its snapshot) and NOREPLICAS (not enough good replicas for
# min-replicas-to-write)): the command did not run.
_REDIS_STATE_CODES: Final = frozenset({"BUSY", "MISCONF", "NOREPLICAS", "MASTERDOWN", "LOADING", "TRYAGAIN",
                                       "CLUSTERDOWN", "READONLY"})


def _redis_reply(exc: BaseException) -> Classification:
    """redis-py's ``ResponseError``: a server-state code (:data:`_REDIS_STATE_CODES`) is an upstream that cannot take
    the command now; any other (WRONGTYPE, ERR wrong number of arguments) is the tool's own command: ``unknown``. The
    server refused it either way: nothing applied."""
    code = str(exc).split(None, 1)[:1]
    if code and code[0] in _REDIS_STATE_CODES:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("redis", code[0]),
                              side_effect_possible=False)
    return Classification(FailureClass.UNKNOWN, side_effect_possible=False)


# MongoDB's server error codes (https://github.com/mongodb/mongo/blob/master/src/mongo/base/error_codes.yml) on an
# ``OperationFailure``: code -> (class, may the command have taken effect). 13 Unauthorized (a connection that never
# logged in, or a user without the role) and 18 AuthenticationFailed; 16500 is Azure Cosmos DB's API for MongoDB's
# TooManyRequests ("Request rate is large"); 11000 DuplicateKey a conflict with what is there (as SQLSTATE 23505);
# 26 NamespaceNotFound; 50 MaxTimeMSExpired and 262 ExceededTimeLimit a command stopped at its time limit (it may have
# applied part); 91 ShutdownInProgress, 189 PrimarySteppedDown, 10107 NotWritablePrimary, 13435
# NotPrimaryNoSecondaryOk, 11600 InterruptedAtShutdown, 11602 InterruptedDueToReplStateChange: the node cannot take it
# now (MongoDB's retryable errors).
_MONGODB_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    13: (FailureClass.PERMISSION_DENIED, False),
    18: (FailureClass.PERMISSION_DENIED, False),
    16500: (FailureClass.RATE_LIMITED, False),
    11000: (FailureClass.INVALID_INPUT, False),
    26: (FailureClass.NOT_FOUND, False),
    50: (FailureClass.UPSTREAM_UNAVAILABLE, True),
    262: (FailureClass.UPSTREAM_UNAVAILABLE, True),
    91: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    189: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    10107: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    13435: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    11600: (FailureClass.UPSTREAM_UNAVAILABLE, None),
    11602: (FailureClass.UPSTREAM_UNAVAILABLE, None),
}


def _mongodb_code(exc: BaseException) -> Classification | None:
    """pymongo's ``OperationFailure`` by the server's error code (:data:`_MONGODB_CODES`), with the code's name as the
    upstream status; ``None`` (the rest of the rules decide) for a code not in the table."""
    code = getattr(exc, "code", None)
    if not isinstance(code, int) or code not in _MONGODB_CODES:
        return None
    failure_class, side_effect = _MONGODB_CODES[code]
    details = getattr(exc, "details", None)
    name = details.get("codeName") if isinstance(details, Mapping) else None
    return Classification(failure_class, upstream=Upstream("mongodb", str(name or code)), side_effect_possible=side_effect)


def raised_in(exc: BaseException, *modules: str) -> bool:
    """Whether the innermost frame of ``exc``'s traceback runs code of one of ``modules`` (a module, or any
    module of a package: ``"mcp.client"`` covers ``mcp.client.session``)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    name = tb.tb_frame.f_globals.get("__name__") if tb is not None else None
    return isinstance(name, str) and any(name == module or name.startswith(module + ".") for module in modules)


def _file_or_program(failure_class: FailureClass) -> Rule:
    # The same errno means "no such file" to a tool reading one, and "the program is not there" when
    # it starts a process (an stdio MCP server, a CLI), or "the socket is not there" when it connects to a
    # Unix socket (connect(2): the service does not run): then a service it needs cannot be reached.
    # One with an errno is the refusal of the call itself (open(2), unlink(2), an SFTP status paramiko maps to
    # ENOENT/EACCES): nothing was done. One an author raised with a text only does not say.
    program = Classification(FailureClass.UPSTREAM_UNAVAILABLE, side_effect_possible=False)
    refused = Classification(failure_class, side_effect_possible=False)
    file = Classification(failure_class)
    missing_socket = failure_class is FailureClass.NOT_FOUND

    def rule(exc: BaseException) -> Classification | None:
        if raised_in(exc, "subprocess") or (missing_socket and (_raised_connecting(exc, anywhere=True) or _unix_socket_missing(exc))):
            return program
        if getattr(exc, "errno", None) is None and not exc.args and exc.__cause__ is not None:
            # raised bare over another failure (gspread's ``raise PermissionError from`` the 403's APIError): it names
            # the class only; the failure it was raised from says whether anything was done
            return None
        return refused if getattr(exc, "errno", None) is not None else file

    return rule


def _unix_socket_missing(exc: BaseException) -> bool:
    """ENOENT with no path, raised where the tool holds a Unix socket: ``socket.connect`` (or ``bind``/``sendto``) on a
    socket file that is not there, called by the tool itself, so no library's connect frame shows it. Every call that
    opens, stats or runs a path names it (``filename``), and a library that maps a peer's status onto ENOENT
    (paramiko's SFTP) raises it holding no Unix socket."""
    if getattr(exc, "errno", None) != errno.ENOENT or getattr(exc, "filename", None) is not None:
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    local_values = tb.tb_frame.f_locals.values() if tb is not None else ()
    return any(isinstance(value, socket.socket) and value.family == socket.AF_UNIX for value in local_values)


# The kernel refusing a call on a local path or resource, by errno (POSIX <errno.h>, Linux errno(3)): the syscall was
# refused whole, nothing done. A path that resolves to no file (a component that is a file, symbolic links that lead to
# each other) is not there, as ENOENT; a path of the wrong kind for the call (a directory where a file is needed, a
# name already taken, a directory not empty: HTTP 409's conflicts; a name over NAME_MAX) is the call's to change; a
# read-only filesystem refuses every write, as a read-only share; a file or device another process holds (a running
# program's text, a mounted device, a lock taken: EAGAIN out of flock's LOCK_NB) is busy for now, as SQLite's
# SQLITE_BUSY; the process's own limits and a rename across filesystems are the tool's (its descriptors, shutil.move
# copies where os.rename cannot). A full disk (ENOSPC, EDQUOT) and a file over RLIMIT_FSIZE (EFBIG) keep no rule:
# the machine's, neither the caller's nor an upstream's (tests/heldout_cases.md J189), and a write may have put part
# of its data down first.
_LOCAL_ERRNOS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((errno.ENOTDIR, errno.ELOOP), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((errno.EISDIR, errno.EEXIST, errno.ENOTEMPTY, errno.ENAMETOOLONG),
                    (FailureClass.INVALID_INPUT, False)),
    errno.EROFS: (FailureClass.PERMISSION_DENIED, False),
    **dict.fromkeys((errno.ETXTBSY, errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((errno.EMFILE, errno.ENFILE, errno.EXDEV), (FailureClass.UNKNOWN, False)),
}


def _os_error(exc: BaseException) -> Classification | None:
    # A plain OSError is a network failure only when its errno says so (ENETUNREACH has no subclass), or when, with
    # none, a connecting function raised it: http.client's proxy tunnel refused ("Tunnel connection failed"),
    # socket.create_connection with no address to try. The connection never opened: nothing was sent.
    if getattr(exc, "errno", None) in _NETWORK_ERRNOS:
        return _UNAVAILABLE(exc)
    local = _LOCAL_ERRNOS.get(getattr(exc, "errno", None))  # type: ignore[arg-type]
    if local is not None:
        if raised_in(exc, "subprocess"):  # starting a program (a path component that is a file, its text busy)
            return _UNAVAILABLE_NOT_SENT(exc)
        return Classification(local[0], side_effect_possible=local[1])
    if getattr(exc, "errno", None) is None and _raised_connecting(exc, anywhere=True):
        return _proxy_refusal(exc) or _UNAVAILABLE_NOT_SENT(exc)
    return None


def _wrapping(inner: Callable[[BaseException], object], fallback: Rule) -> Rule:
    """A library wrapper that carries the real failure as an attribute (``reason``, ``args[0]``, its
    context): that one decides the class and the side-effect fact, else ``fallback`` does."""

    def rule(exc: BaseException) -> Classification:
        wrapped = inner(exc)
        result = classify(wrapped) if isinstance(wrapped, BaseException) and wrapped is not exc else None
        if result is None or result.failure_class is FailureClass.UNKNOWN:
            result = fallback(exc) or _UNKNOWN
        return result

    return rule


def _delivery_from_cause(rule: Rule, *, open_only: bool = False) -> Rule:
    """``rule``, with the delivery fact of the transport failure the exception was raised ``from`` when that one
    knows it (a wrapper whose class says less than its cause: azure-core's aiohttp transport); with ``open_only``,
    only where ``rule`` leaves it open, from the failure it was raised over (the neo4j driver's ServiceUnavailable
    over a read that was reset or timed out on a connection in use: the request was sent; its WriteServiceUnavailable
    raised while handling the server's NotALeader: refused, nothing written)."""

    def decide(exc: BaseException) -> Classification:
        result = rule(exc) or _UNKNOWN
        below = (exc.__cause__ or exc.__context__) if open_only else exc.__cause__
        if below is not None and not (open_only and result.side_effect_possible is not None):
            inner = classify(below)
            if inner.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and inner.side_effect_possible is not None:
                result = replace(result, side_effect_possible=inner.side_effect_possible)
        return result

    return decide


def _never_sent(rule: Rule) -> Rule:
    return lambda exc: replace(rule(exc) or _UNKNOWN, side_effect_possible=False)


def _never_sent_when_connecting(rule: Rule, package: str) -> Rule:
    """``rule``, and not sent when raised inside ``package``'s ``connect`` (see :func:`_raised_connecting`)."""
    return lambda exc: _never_sent(rule)(exc) if _raised_connecting(exc, package) else rule(exc)


def _reason_or_chain(exc: BaseException) -> BaseException | None:
    reason = getattr(exc, "reason", None)
    return reason if isinstance(reason, BaseException) else exc.__cause__ or exc.__context__


def _first_address_error(exc: BaseException) -> object:
    # paramiko's NoValidConnectionsError, cassandra-driver's NoHostAvailable: {address: the error there}
    errors = getattr(exc, "errors", None)
    return next(iter(errors.values()), None) if isinstance(errors, Mapping) else None


def _first_exception_arg(exc: BaseException) -> BaseException | None:
    return next((arg for arg in exc.args if isinstance(arg, BaseException)), None)


def _mcp_error(exc: BaseException) -> Classification:
    assert isinstance(exc, MCPError)
    failure_class = class_for_jsonrpc_error(exc.code, exc.error.message, exc.error.data)
    return Classification(failure_class, side_effect_possible=_JSONRPC_SENT.get(exc.code))


# Whether a JSON-RPC error leaves the request's effect open: the peer refused it before running
# (the -327xx codes, resource not found), or it was sent and the answer never came (the SDK's local
# timeout -32001 and closed connection -32000, a cancellation -32800 mid-run) or the peer failed while
# running it (-32603).
_JSONRPC_SENT: Final = {
    PARSE_ERROR: False,
    INVALID_REQUEST: False,
    METHOD_NOT_FOUND: False,
    INVALID_PARAMS: False,
    RESOURCE_NOT_FOUND: False,
    INTERNAL_ERROR: True,
    REQUEST_TIMEOUT: True,
    CONNECTION_CLOSED: True,
    REQUEST_CANCELLED: True,
}



def _graphql_code(exc: BaseException) -> str | None:
    """The first error code of a GraphQL response's ``errors`` (GraphQL spec §7.1.2) the exception carries
    (gql's TransportQueryError): ``extensions.code`` (Apollo Server, Shopify, Hasura), else ``type`` (GitHub)."""
    errors = _attribute(exc, "errors")
    if not isinstance(errors, list):
        return None
    for error in errors:
        if isinstance(error, Mapping):
            extensions = error.get("extensions")
            code = extensions.get("code") if isinstance(extensions, Mapping) else None
            code = code if isinstance(code, str) and code else error.get("type")
            if isinstance(code, str) and code:
                return code
    return None


def _api_code(exc: BaseException) -> tuple[str, str, int | None] | None:
    """``(system, code, HTTP status)`` of an API error code the exception carries: an error envelope as its
    ``response`` (botocore's ``ClientError.response`` dict, slack_sdk's ``SlackApiError.response``), a GraphQL
    response's ``errors``, or an S3-style ``code`` beside an HTTP status (MinIO's ``S3Error``: ``SlowDown``
    comes as a 503) when the code's words name a class."""
    graphql = _graphql_code(exc)
    if graphql is not None:
        return "graphql", graphql, http_status_of(exc)
    # a value the SDK stored, not a computed alias (aiohttp's deprecated ``code`` is its status)
    code = None if isinstance(getattr(type(exc), "code", None), property) else _attribute(exc, "code")
    if isinstance(code, str) and not code.isdigit() and _sqlstate(exc) is None and _code_family(code) is not None:
        status = http_status_of(exc)
        if status is not None:
            return "http", code, status
    response = _attribute(exc, "response")
    if response is None:
        return None
    if isinstance(response, Mapping):
        error, metadata = response.get("Error"), response.get("ResponseMetadata")
        code = error.get("Code") if isinstance(error, Mapping) else None
        status = metadata.get("HTTPStatusCode") if isinstance(metadata, Mapping) else None
        return ("aws", code, _error_status(status)) if isinstance(code, str) and code else None
    data = _attribute(response, "data")
    if isinstance(data, Mapping) and data.get("ok") is False:
        code = data.get("error")
        status = _error_status(_attribute(response, "status_code"))
        return ("slack", code, status) if isinstance(code, str) and code else None
    return None


def _api_error(exc: BaseException) -> Classification | None:
    found = _api_code(exc)
    if found is None:
        return None
    system, code, status = found
    upstream = Upstream(system, code)
    failure_class = _code_family(code)
    if failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
        sent = side_effect_for_http_status(status) if status is not None else True
        return Classification(failure_class, upstream=upstream, side_effect_possible=sent)
    if failure_class is not None:
        wait = None
        if failure_class is FailureClass.RATE_LIMITED:
            wait = retry_after_from_headers(lambda name: _response_header(exc, name))
        return Classification(failure_class, retry_after=wait, upstream=upstream, side_effect_possible=False)
    if status is None:
        return Classification(FailureClass.UNKNOWN, upstream=upstream)
    return Classification(class_for_http_status(status), upstream=upstream,
                          side_effect_possible=side_effect_for_http_status(status))


# OAuth 2.0 error codes (the IANA "OAuth Extensions Error Registry": RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1,
# RFC 8628 §3.5, OpenID Connect Core §3.1.2.6) -> (class, may it have been acted on). A token endpoint sends
# most of them with HTTP 400, yet the model's arguments were fine: the tool's grant or client was refused.
_OAUTH_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("invalid_client", "invalid_grant", "unauthorized_client", "invalid_scope", "access_denied",
                     "invalid_token", "insufficient_scope", "expired_token", "login_required", "consent_required",
                     "interaction_required", "account_selection_required"), (FailureClass.PERMISSION_DENIED, False)),
    "slow_down": (FailureClass.RATE_LIMITED, False),
    "temporarily_unavailable": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "server_error": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    # the tool's own request or configuration: a bug, not the caller's
    **dict.fromkeys(("invalid_request", "unsupported_grant_type", "unsupported_response_type",
                     "unsupported_token_type"), (FailureClass.UNKNOWN, False)),
}


def _oauth_code(exc: BaseException) -> str | None:
    """The OAuth ``error`` code an exception carries: as its ``error`` beside a ``description`` (Authlib's
    OAuthError, oauthlib's OAuth2Error, whose ``status_code`` is a class default, not the response's), or in
    the token endpoint's JSON error body among its arguments (google-auth's RefreshError)."""
    code = _attribute(exc, "error")
    if isinstance(code, str) and code and hasattr(exc, "description"):
        return code
    code = _attribute(exc, "error_code")  # the token endpoint's error beside its status (auth0-python's Auth0Error)
    if isinstance(code, str) and code in _OAUTH_CODES:
        return code
    body = next((arg for arg in exc.args if isinstance(arg, Mapping)), None)
    code = body.get("error") if body is not None else None
    if isinstance(code, str) and code in _OAUTH_CODES:
        return code
    # the error response (RFC 6749 §5.2: ``error`` beside ``error_description``) kept as the raw body the SDK read
    # (python-keycloak's ``response_body``, bytes), or as its message
    for raw in (_attribute(exc, "response_body"), *exc.args[:1]):
        if isinstance(raw, bytes | str) and len(raw) <= _MAX_OAUTH_BODY and raw[:1] in ("{", b"{"):
            try:
                body = json.loads(raw)
            except ValueError:
                continue
            code = body.get("error") if isinstance(body, Mapping) and "error_description" in body else None
            if isinstance(code, str) and code in _OAUTH_CODES:
                return code
    return None


_MAX_OAUTH_BODY: Final = 8192


def _oauth_error(exc: BaseException) -> Classification | None:
    code = _oauth_code(exc)
    if code is None:
        return None
    # A code outside the registry is the client library's own check (oauthlib's insecure_transport,
    # mismatching_state), raised before or instead of reading an answer.
    failure_class, sent = _OAUTH_CODES.get(code, (FailureClass.UNKNOWN, False))
    wait = None
    if failure_class is FailureClass.RATE_LIMITED:
        wait = retry_after_from_headers(lambda name: _response_header(exc, name))
    return Classification(failure_class, retry_after=wait, upstream=Upstream("oauth", code), side_effect_possible=sent)


# TLS alerts the peer sent (RFC 8446 §6.2, RFC 5246 §7.2), by OpenSSL's reason code for a received alert
# (``ssl.SSLError.reason``: "TLSV13_ALERT_CERTIFICATE_REQUIRED", "SSLV3_ALERT_HANDSHAKE_FAILURE"). The server
# refused the connection before it read a request, even when over TLS 1.3 the client had written it already.
# One about the client's certificate refuses the tool's credential; one about the protocol (no version, cipher
# or extension in common) leaves the upstream unusable. HTTP clients wrap the SSLError (httpx's ReadError,
# aiohttp's ClientOSError, requests' SSLError over urllib3's): what it says decides over the wrapper's type.
_TLS_ALERT: Final = re.compile(r"(?:SSLV3|TLSV1|TLSV13)_(?:ALERT_)?([A-Z_]+)")
_TLS_ALERT_CLASSES: Final = {
    **dict.fromkeys(("CERTIFICATE_REQUIRED", "NO_CERTIFICATE", "BAD_CERTIFICATE", "UNSUPPORTED_CERTIFICATE",
                     "CERTIFICATE_REVOKED", "CERTIFICATE_EXPIRED", "CERTIFICATE_UNKNOWN", "UNKNOWN_CA",
                     "ACCESS_DENIED", "UNKNOWN_PSK_IDENTITY"), FailureClass.PERMISSION_DENIED),
    **dict.fromkeys(("HANDSHAKE_FAILURE", "PROTOCOL_VERSION", "INSUFFICIENT_SECURITY", "INAPPROPRIATE_FALLBACK",
                     "UNRECOGNIZED_NAME", "NO_APPLICATION_PROTOCOL", "MISSING_EXTENSION", "UNSUPPORTED_EXTENSION",
                     "ILLEGAL_PARAMETER"), FailureClass.UPSTREAM_UNAVAILABLE),
}


def _qualname(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}"


def _peer_tls_alert(exc: BaseException) -> str | None:
    """The TLS alert (``_TLS_ALERT_CLASSES``) of an ``ssl.SSLError`` in or under ``exc``: its chain, exceptions
    among its arguments, its ``reason`` (urllib) or ``os_error`` (aiohttp)."""
    pending, seen = [exc], 0
    while pending and seen < _MAX_CHAIN:
        current = pending.pop()
        seen += 1
        if isinstance(current, ssl.SSLError):
            match = _TLS_ALERT.fullmatch(str(getattr(current, "reason", None) or ""))
            if match and match.group(1) in _TLS_ALERT_CLASSES:
                return match.group(1)
        elif _qualname(current) == "OpenSSL.SSL.Error" and current.args and isinstance(current.args[0], list):
            # pyOpenSSL's (urllib3 over it, once injected: py-trello does at import): OpenSSL's error queue as
            # (library, function, reason) tuples, the reason in words ("tlsv13 alert certificate required")
            for entry in current.args[0]:
                reason = str(entry[-1]).upper().replace(" ", "_") if isinstance(entry, tuple) and entry else ""
                match = _TLS_ALERT.fullmatch(reason)
                if match and match.group(1) in _TLS_ALERT_CLASSES:
                    return match.group(1)
        inner = [current.__cause__, current.__context__, _attribute(current, "reason"),
                 _attribute(current, "os_error"), *current.args]
        pending.extend(e for e in inner if isinstance(e, BaseException) and e is not current)
    return None


def _tls_refusal(exc: BaseException) -> Classification | None:
    alert = _peer_tls_alert(exc)
    if alert is None:
        return None
    return Classification(_TLS_ALERT_CLASSES[alert], upstream=Upstream("tls", alert), side_effect_possible=False)


def _decoding_response(exc: BaseException) -> object | None:
    """The HTTP response whose own ``json()`` raised ``exc`` (requests', httpx's, aiohttp's ``Response.json``):
    the frame of a method named ``json`` on an object with an integer ``status_code``/``status`` and ``headers``."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "json":
            owner = frame.f_locals.get("self")
            status = next((_attribute(owner, name) for name in ("status_code", "status")
                           if isinstance(_attribute(owner, name), int)), None)
            if status is not None and _attribute(owner, "headers") is not None:
                return owner
        tb = tb.tb_next
    return None


def _unreadable_answer(exc: BaseException) -> Classification | None:
    """A JSON decode error raised by an HTTP client's ``Response.json()``: the upstream answered with what is not
    the JSON its API promised (a proxy's or a portal's HTML page, an empty or cut body). An error status decides
    (the tool read a 404's page without checking it); else the upstream did not answer as its API does:
    upstream_unavailable. Whether it acted is open: the page may be an intermediary's (a load balancer's
    maintenance page, a proxy's, a login portal's) that never passed the request on. Raised anywhere else (the tool's own ``json.loads``) the text
    could be anyone's, the model's arguments too: no rule (``None``)."""
    response = _decoding_response(exc)
    if response is None:
        return None
    status = next((_attribute(response, name) for name in ("status_code", "status")
                   if isinstance(_attribute(response, name), int)), 0)
    url = _attribute(response, "url")
    address = http_address(url) if url is not None and not callable(url) else None
    headers = _attribute(response, "headers")

    def header(name: str) -> str | None:
        get = _attribute(headers, "get")
        value = get(name) if callable(get) else None
        return value if isinstance(value, str) else None

    if _error_status(status) is not None:
        return _status_classification(status, header, address)
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("http", str(status), address)
                          if status else None, side_effect_possible=None)


def _bulk_item_refused(exc: BaseException) -> Classification | None:
    """Elasticsearch's/OpenSearch's ``BulkIndexError``: the ``_bulk`` API answered 200 with a status per item
    (``.errors``: ``[{"create": {"status": 409, "error": {...}}}]``). The first failed item's status decides as
    the same status would alone; the exception lists only the failed items, so whether the call wrote anything
    (the other items) is open unless that status says the item itself may have been applied (a 5xx)."""
    items = _attribute(exc, "errors")
    for item in items if isinstance(items, list) else ():
        operation = next(iter(item.values()), None) if isinstance(item, Mapping) and len(item) == 1 else None
        status = _error_status(operation.get("status")) if isinstance(operation, Mapping) else None
        if status is not None:
            result = _status_classification(status, lambda name: None, None)
            return replace(result, side_effect_possible=result.side_effect_possible or None)
    return None


def _unavailable_unless_connecting(system: str, package: str | None = None) -> Rule:
    """upstream_unavailable that was not sent when raised inside ``package``'s ``connect`` (the
    connection never opened), else open (a connection lost while in use)."""

    def rule(exc: BaseException) -> Classification:
        sent = False if _raised_connecting(exc, package) else None
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream(system, type(exc).__name__),
                              side_effect_possible=sent)

    return rule


# Where the standard library's line-protocol clients raise a bare EOFError for a server that
# closed the connection (ftplib's getline, multiprocessing's Connection.recv): elsewhere an
# EOFError is no network failure (input(), a truncated pickle).
_EOF_CLIENTS: Final = ("ftplib", "multiprocessing.connection")


def _eof(exc: BaseException) -> Classification | None:
    module = next((name for name in _EOF_CLIENTS if raised_in(exc, name)), None)
    if module is None:
        return None
    package = module.partition(".")[0]
    return _unavailable_unless_connecting(package, package)(exc)


def _xmlrpc_fault(exc: BaseException) -> Classification:
    # XML-RPC faults share JSON-RPC's reserved codes ("Specification for Fault Code Interoperability",
    # xmlrpc-epi): -32602 invalid params, -32601 method not found, ...; other codes are the server's own.
    code = getattr(exc, "faultCode", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return _UNKNOWN
    return Classification(class_for_jsonrpc_code(code), upstream=Upstream("xmlrpc", str(code)),
                          side_effect_possible=_JSONRPC_SENT.get(code))


def _ftp_class(code: int) -> FailureClass:
    """An FTP reply code's class (RFC 959 §4.2): a 4yz reply is transient, the action not taken."""
    if 400 <= code < 500:
        return FailureClass.UPSTREAM_UNAVAILABLE  # 421 closing, 425 no data connection, 450 file busy, 452 storage
    if code in (530, 532):
        return FailureClass.PERMISSION_DENIED  # not logged in, need an account
    if code == 550:
        return FailureClass.NOT_FOUND  # file unavailable
    if code in (501, 553):
        return FailureClass.INVALID_INPUT  # syntax error in parameters, file name not allowed
    if code == 552:
        return FailureClass.UPSTREAM_UNAVAILABLE  # storage allocation exceeded
    return FailureClass.UNKNOWN  # 500/502/503/504: a command we should not have sent


def _ftp_reply(reply: Callable[[Any], object]) -> Rule:
    """The class of an FTP client's error by the server's reply code (``"550"``) it carries. Every
    negative reply refused the command: nothing was done."""

    def rule(exc: BaseException) -> Classification | None:
        code = str(reply(exc))[:3]
        if not code.isdigit():
            return None
        return Classification(_ftp_class(int(code)), upstream=Upstream("ftp", code), side_effect_possible=False)

    return rule


# libcurl's error numbers (https://curl.se/libcurl/c/libcurl-errors.html), what pycurl.error
# carries as args[0] -> (class, may the request have been acted on). CURLE_OPERATION_TIMEDOUT
# covers the whole transfer, connect included: like a bare socket timeout, it may have been sent.
_CURL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    5: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_RESOLVE_PROXY
    6: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_RESOLVE_HOST
    7: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_CONNECT
    35: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # SSL_CONNECT_ERROR: the handshake failed
    60: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # PEER_FAILED_VERIFICATION
    9: (FailureClass.PERMISSION_DENIED, False),  # REMOTE_ACCESS_DENIED
    67: (FailureClass.PERMISSION_DENIED, False),  # LOGIN_DENIED
    78: (FailureClass.NOT_FOUND, False),  # REMOTE_FILE_NOT_FOUND
    18: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # PARTIAL_FILE
    28: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # OPERATION_TIMEDOUT
    52: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # GOT_NOTHING: closed without an answer
    55: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # SEND_ERROR
    56: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # RECV_ERROR
    92: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # HTTP2_STREAM
}


def _curl_error(exc: BaseException) -> Classification:
    code = exc.args[0] if exc.args else None
    if not isinstance(code, int) or code not in _CURL_CODES:
        return _UNKNOWN  # e.g. HTTP_RETURNED_ERROR: the status stays on the handle
    failure_class, sent = _CURL_CODES[code]
    return Classification(failure_class, upstream=Upstream("curl", str(code)), side_effect_possible=sent)


# SOAP fault codes. The code names the side at fault (SOAP 1.1 §4.4.1, SOAP 1.2 Part 1 §5.4.6): the message as sent
# (Client/Sender: a value the service refused, like a 400), the service while processing it (Server/Receiver: it
# may have acted), or the envelope the tool built (VersionMismatch, MustUnderstand, DataEncodingUnknown: a bug).
# A more specific code decides first: SOAP 1.2 subcodes (innermost first), a SOAP 1.1 code in another namespace.
# The standard ones: WS-Security's (OASIS WSS 1.1 SOAP Message Security §12) refuse the credential; WS-Addressing's
# (WS-Addressing 1.0 SOAP Binding §6.4) say the endpoint cannot now, or has no such action (the tool's bug).
_SOAP_SIDES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("Client", "Sender"), (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys(("Server", "Receiver"), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    **dict.fromkeys(("VersionMismatch", "MustUnderstand", "DataEncodingUnknown"), (FailureClass.UNKNOWN, False)),
}
_SOAP_STANDARD_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("UnsupportedSecurityToken", "UnsupportedAlgorithm", "InvalidSecurity", "InvalidSecurityToken",
                     "FailedAuthentication", "FailedCheck", "SecurityTokenUnavailable", "MessageExpired"),
                    (FailureClass.PERMISSION_DENIED, False)),
    "EndpointUnavailable": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    **dict.fromkeys(("ActionNotSupported", "InvalidAddressingHeader", "MessageAddressingHeaderRequired"),
                    (FailureClass.UNKNOWN, False)),
}


def _soap_local_name(code: object) -> str | None:
    """The local part of a fault code: a prefixed name as the envelope spells it (``soap:Client``), a
    ``{namespace}local`` text or an lxml ``QName`` (zeep's subcodes)."""
    local = _attribute(code, "localname")
    text = local if isinstance(local, str) else code if isinstance(code, str) else None
    if not text:
        return None
    return text.rpartition("}")[2].rpartition(":")[2].strip() or None


def _soap_fault(exc: BaseException) -> Classification:
    subcodes = _attribute(exc, "subcodes")
    names = [_soap_local_name(code) for code in (*reversed(subcodes if isinstance(subcodes, list) else []),
                                                 _attribute(exc, "code"))]
    codes = [name for name in names if name]
    if not codes:
        return _UNKNOWN
    upstream = Upstream("soap", codes[0])
    side = _SOAP_SIDES.get(codes[-1].partition(".")[0])
    for code in codes:
        found = _SOAP_STANDARD_CODES.get(code) or _SOAP_SIDES.get(code)
        if found is None and code.partition(".")[0] not in _SOAP_SIDES:
            family = _code_family(code)  # a vendor's code: REQUEST_LIMIT_EXCEEDED, INVALID_SESSION_ID
            if family is not None:
                sent = (side or (family, None))[1] if family is FailureClass.UPSTREAM_UNAVAILABLE else False
                found = family, sent
        if found is not None:
            return Classification(found[0], upstream=upstream, side_effect_possible=found[1])
    failure_class, sent = side or (FailureClass.UNKNOWN, None)
    return Classification(failure_class, upstream=upstream, side_effect_possible=sent)


# SOCKS reply codes (RFC 1928 §6 for SOCKS5; SOCKS4's 91-93) -> class. The proxy answered the CONNECT request with
# them: the tunnel never opened, so nothing reached the upstream. The ruleset forbidding the destination, or the
# identity check failing, is a refusal of the tool's access; the others say the upstream could not be reached.
_SOCKS_REPLIES: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 91), FailureClass.UPSTREAM_UNAVAILABLE),
    **dict.fromkeys((0x02, 92, 93), FailureClass.PERMISSION_DENIED),
}


def _proxy_error_code(exc: BaseException) -> Classification:
    """A forward proxy refused the tunnel (python-socks' and aiohttp-socks' ``ProxyError``): its ``error_code`` is
    the HTTP proxy's status (>= 100) or the SOCKS reply code. Never sent: the upstream was not reached."""
    code = _attribute(exc, "error_code")
    if not isinstance(code, int) or isinstance(code, bool):
        return _unavailable(False, "socks")(exc)  # the proxy's protocol failed, or a refusal without its code
    if code >= 100:
        return Classification(class_for_http_status(code), upstream=Upstream("http", str(code)),
                              side_effect_possible=False)
    return Classification(_SOCKS_REPLIES.get(code, FailureClass.UNKNOWN), upstream=Upstream("socks", str(code)),
                          side_effect_possible=False)


def _proxy_status(exc: BaseException) -> Classification | None:
    """An HTTP proxy's error status answering ``CONNECT`` (aiohttp's ``ClientHttpProxyError``): the tunnel never
    opened, so even a 502 (the proxy could not reach the upstream) sent nothing to it."""
    result = _http_status(exc)
    return replace(result, side_effect_possible=False) if result is not None else None


# MQTT 5.0 reason codes (MQTT 5.0 §2.4, table 2-6) a broker refuses with (CONNACK) or ends a session with
# (DISCONNECT); paho maps an MQTT 3.1.1 CONNACK return code onto the one that means the same. The protocol's, the
# tool's own settings (client id, topic alias, QoS, retained messages not supported): unknown.
_MQTT_REASONS: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((0x86, 0x87, 0x8A, 0x8C), FailureClass.PERMISSION_DENIED),  # bad login, not authorized,
    # banned, bad authentication method
    **dict.fromkeys((0x84, 0x88, 0x89, 0x8B, 0x8D, 0x8E, 0x98, 0x9C, 0x9D, 0xA0), FailureClass.UPSTREAM_UNAVAILABLE),
    # unsupported protocol version, server unavailable, busy, shutting down, keep alive timeout, session taken over,
    # administrative action, use another server, server moved, maximum connect time
    **dict.fromkeys((0x93, 0x96, 0x97, 0x9F), FailureClass.RATE_LIMITED),  # receive maximum exceeded, message rate
    # too high, quota exceeded, connection rate exceeded
    **dict.fromkeys((0x8F, 0x90, 0x95, 0x99), FailureClass.INVALID_INPUT),  # topic filter or name invalid, packet
    # too large, payload format invalid
}
# paho-mqtt's own error codes (paho.mqtt.enums.MQTTErrorCode), for what failed on its side of the socket
_PAHO_ERRORS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((4, 5, 8, 15), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # NO_CONN, CONN_REFUSED, TLS,
    # QUEUE_SIZE: the packet was never written
    **dict.fromkeys((7, 14, 16), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # CONN_LOST, ERRNO, KEEPALIVE
    **dict.fromkeys((11, 12), (FailureClass.PERMISSION_DENIED, False)),  # AUTH, ACL_DENIED
    9: (FailureClass.INVALID_INPUT, False),  # PAYLOAD_SIZE
}
_MQTT_CONNACK: Final = 2  # MQTT control packet type (MQTT 5.0 §2.1.2)


def _mqtt_code(exc: BaseException) -> Classification:
    """aiomqtt's ``MqttCodeError``: its ``rc`` is a paho ``ReasonCode`` the broker sent (it has a ``packetType``)
    or one of paho's own ``MQTTErrorCode``s. A CONNACK refusal came before any message: nothing done; a
    DISCONNECT refuses what the session sent, or, for a broker going away, does not say."""
    rc = _attribute(exc, "rc")
    value = _attribute(rc, "value") if not isinstance(rc, int) else int(rc)
    if not isinstance(value, int) or isinstance(value, bool):
        return _UNKNOWN
    packet_type = _attribute(rc, "packetType")
    if packet_type is None:
        failure_class, sent = _PAHO_ERRORS.get(value, (FailureClass.UNKNOWN, None))
        return Classification(failure_class, side_effect_possible=sent)  # paho's, not the broker's: no status
    failure_class = _MQTT_REASONS.get(value, FailureClass.UNKNOWN)
    sent = None if packet_type != _MQTT_CONNACK and failure_class is FailureClass.UPSTREAM_UNAVAILABLE else False
    return Classification(failure_class, upstream=Upstream("mqtt", str(value)), side_effect_possible=sent)


# ZeroMQ's own errnos beyond POSIX's (zmq.h: ZMQ_HAUSNUMERO + 51...): EFSM, a socket used out of its pattern's order
# (a REQ sending twice), is the tool's bug; nothing was sent.
_ZMQ_EFSM: Final = 156384712 + 51


def _zmq_error(exc: BaseException) -> Classification:
    """pyzmq's ``ZMQError`` by its POSIX ``errno``: ``EAGAIN`` is a socket timeout (RCVTIMEO/SNDTIMEO) or a queue
    no peer takes from: raised by a send, the message was never queued; else it waited for an answer to one that
    left. A network errno (``EHOSTUNREACH``: a ROUTER with no such peer) as a socket's."""
    code = _attribute(exc, "errno")
    name = errno.errorcode.get(code, "EFSM" if code == _ZMQ_EFSM else None) if isinstance(code, int) else None
    upstream = Upstream("zeromq", name)
    if code == errno.EAGAIN:
        sending = False
        tb = exc.__traceback__
        while tb is not None:
            sending = sending or _function_name(tb.tb_frame).lstrip("_").startswith("send")
            tb = tb.tb_next
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream, side_effect_possible=not sending)
    if code in _NETWORK_ERRNOS:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream,
                              side_effect_possible=_NETWORK_ERRNOS[code])
    if code == _ZMQ_EFSM:
        return Classification(FailureClass.UNKNOWN, upstream=upstream, side_effect_possible=False)
    return _UNKNOWN


def _status_named(status: int, system: str) -> Rule:
    """For an SDK that raises one exception class per HTTP status and keeps nothing else (hvac):
    the status its class stands for."""
    result = Classification(class_for_http_status(status), upstream=Upstream(system, str(status)),
                            side_effect_possible=side_effect_for_http_status(status))
    return lambda exc: result


def _websocket_close_class(code: int) -> tuple[FailureClass, bool | None]:
    """A WebSocket close code's class (RFC 6455 §7.4.1; the IANA WebSocket Close Code registry): 3000/3003
    (Unauthorized, Forbidden) and the 4400-4599 codes subprotocols mirror HTTP statuses with (graphql-ws's
    4401, 4403, 4429) by their status; 1008 (policy violation) refuses access, 1007/1009 (invalid payload, too
    big) the message, 1003 (unsupported data) the tool's frame type; 1012/1013 (service restart, try again
    later) refuse for now; any other close under a waiting call (going away, internal error, bad gateway) may
    have come after the message was acted on."""
    if 4400 <= code <= 4599:
        return class_for_http_status(code - 4000), side_effect_for_http_status(code - 4000)
    if code in (3000, 3003, 1008):  # 1008 policy violation: the generic refusal, what servers send a bad credential
        return FailureClass.PERMISSION_DENIED, False
    if code in (1007, 1009):  # a payload that is not what its type promises; a message too big (like a 413)
        return FailureClass.INVALID_INPUT, False
    if code == 1003:  # a frame type the endpoint cannot take: the tool's choice, not the caller's
        return FailureClass.UNKNOWN, False
    return FailureClass.UPSTREAM_UNAVAILABLE, code not in (1012, 1013)


def _websocket_closed(close_code: Callable[[Any], object]) -> Rule:
    def rule(exc: BaseException) -> Classification:
        code = close_code(exc)
        if not isinstance(code, int) or isinstance(code, bool):
            return _unavailable(True, "websocket")(exc)
        failure_class, sent = _websocket_close_class(code)
        return Classification(failure_class, upstream=Upstream("websocket", str(int(code))), side_effect_possible=sent)

    return rule


def _socket_stream_end(exc: BaseException) -> Classification | None:
    # anyio's EndOfStream: the peer closed while we waited to receive. Memory object streams raise
    # it too (a task's channel closed): no upstream there.
    return None if raised_in(exc, "anyio.streams.memory") else _UNAVAILABLE_MAYBE_SENT(exc)


# Mail-retrieval response codes, in brackets after the status: IMAP's (RFC 5530 §3, RFC 9051
# §7.1) after NO/BAD/BYE, POP3's extended ones (RFC 2449 §8, RFC 3206) after -ERR. A refusal
# carrying one did not run the command.
_IMAP_CODES: Final = {
    **dict.fromkeys(("AUTHENTICATIONFAILED", "AUTHORIZATIONFAILED", "EXPIRED", "PRIVACYREQUIRED", "NOPERM"),
                    FailureClass.PERMISSION_DENIED),
    **dict.fromkeys(("UNAVAILABLE", "INUSE", "SERVERBUG", "OVERQUOTA"), FailureClass.UPSTREAM_UNAVAILABLE),
    "LIMIT": FailureClass.RATE_LIMITED,
    **dict.fromkeys(("NONEXISTENT", "TRYCREATE"), FailureClass.NOT_FOUND),
    **dict.fromkeys(("ALREADYEXISTS", "CANNOT"), FailureClass.INVALID_INPUT),
}
_POP_CODES: Final = {
    "AUTH": FailureClass.PERMISSION_DENIED,
    "IN-USE": FailureClass.UPSTREAM_UNAVAILABLE,
    "SYS/TEMP": FailureClass.UPSTREAM_UNAVAILABLE,
    "SYS/PERM": FailureClass.UPSTREAM_UNAVAILABLE,
    "LOGIN-DELAY": FailureClass.RATE_LIMITED,
}
_BRACKETED: Final = re.compile(r"^(?:\* [A-Z]+ |-ERR )?\[([A-Z][A-Z/-]*)[\] ]")


def _response_code(codes: Mapping[str, FailureClass], system: str) -> Rule:
    """The class of a mail client's error by the bracketed response code the server's reply
    (``args[0]``) starts with; without one, no rule answers."""

    def rule(exc: BaseException) -> Classification | None:
        text = exc.args[0] if exc.args else ""
        words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        match = _BRACKETED.match(words.strip())
        if match is None or match.group(1) not in codes:
            return None
        return Classification(codes[match.group(1)], upstream=Upstream(system, match.group(1)),
                              side_effect_possible=False)

    return rule


def _grpc_error(exc: BaseException) -> Classification:
    # grpc.RpcError raised by a call is also a grpc.Call: .code() is a grpc.StatusCode member.
    name = getattr(exc.code(), "name", None)  # type: ignore[attr-defined]
    failure_class, side_effect = _GRPC_CODES.get(name, (FailureClass.UNKNOWN, None))  # type: ignore[arg-type]
    return Classification(failure_class, upstream=Upstream("grpc", name), side_effect_possible=side_effect)


def _grpc_status_name(exc: BaseException) -> str | None:
    """The gRPC status an exception keeps as an enum member named as google/rpc/code.proto names the codes, in its
    ``status`` or ``code`` (grpclib's ``GRPCError.status``, a ``grpclib.const.Status``): read by the name, so every
    gRPC library's enum lands where grpcio's ``StatusCode`` does. ``OK`` is no error. Only an enum named for a
    status or code (``Status``, ``StatusCode``): a job's ``State.UNKNOWN`` is none."""
    for attribute in ("status", "code"):
        value = _attribute(exc, attribute)
        is_status = isinstance(value, enum.Enum) and re.search(r"Status|Code", type(value).__name__) is not None
        name = value.name if is_status else None
        if name in _GRPC_CODES:
            return name
    return None


def _grpc_status(exc: BaseException) -> Classification:
    name = _grpc_status_name(exc)
    failure_class, side_effect = _GRPC_CODES.get(name or "", (FailureClass.UNKNOWN, None))
    return Classification(failure_class, upstream=Upstream("grpc", name), side_effect_possible=side_effect)


# SFTP status codes (draft-ietf-secsh-filexfer-13 §9.1; v3 defines 0-8) -> class. A status answers a request
# the server refused or could not carry out: nothing was done, except where the connection went away under it.
_SFTP_STATUSES: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((2, 10), FailureClass.NOT_FOUND),  # NO_SUCH_FILE, NO_SUCH_PATH
    **dict.fromkeys((3, 12, 22), FailureClass.PERMISSION_DENIED),  # PERMISSION_DENIED, WRITE_PROTECT, CANNOT_DELETE
    # a path or argument that does not fit what is there: FILE_ALREADY_EXISTS, UNKNOWN_PRINCIPAL, DIR_NOT_EMPTY,
    # NOT_A_DIRECTORY, INVALID_FILENAME, LINK_LOOP, INVALID_PARAMETER, FILE_IS_A_DIRECTORY, OWNER_INVALID,
    # GROUP_INVALID, NO_MATCHING_BYTE_RANGE_LOCK
    **dict.fromkeys((11, 16, 18, 19, 20, 21, 23, 24, 29, 30, 31), FailureClass.INVALID_INPUT),
    # the server cannot now: NO_CONNECTION, CONNECTION_LOST, NO_MEDIA, NO_SPACE_ON_FILESYSTEM, QUOTA_EXCEEDED,
    # LOCK_CONFLICT, BYTE_RANGE_LOCK_CONFLICT, BYTE_RANGE_LOCK_REFUSED, DELETE_PENDING, FILE_CORRUPT
    **dict.fromkeys((6, 7, 13, 14, 15, 17, 25, 26, 27, 28), FailureClass.UPSTREAM_UNAVAILABLE),
    # EOF (read past the end), FAILURE (no reason given), BAD_MESSAGE, OP_UNSUPPORTED, INVALID_HANDLE: unknown
}
_SFTP_CONNECTION_LOST: Final = 7


def _sftp_status(exc: BaseException) -> Classification:
    code = getattr(exc, "code", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return _UNKNOWN
    return Classification(_SFTP_STATUSES.get(code, FailureClass.UNKNOWN), upstream=Upstream("sftp", str(code)),
                          side_effect_possible=code == _SFTP_CONNECTION_LOST)


# SSH disconnect reason codes (RFC 4253 §11.1), what asyncssh's DisconnectError keeps as ``code``. The host, the
# login or the key exchange refused come before any session: nothing was sent; nor was it for anything raised
# while the client connects.
_SSH_DISCONNECT_REASONS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((1, 13, 14, 15), (FailureClass.PERMISSION_DENIED, False)),  # HOST_NOT_ALLOWED_TO_CONNECT,
    # AUTH_CANCELLED_BY_USER, NO_MORE_AUTH_METHODS_AVAILABLE, ILLEGAL_USER_NAME
    **dict.fromkeys((3, 8, 9), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # KEY_EXCHANGE_FAILED,
    # PROTOCOL_VERSION_NOT_SUPPORTED, HOST_KEY_NOT_VERIFIABLE
    **dict.fromkeys((2, 5, 6, 7, 10, 11, 12), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # PROTOCOL_ERROR,
    # MAC_ERROR, COMPRESSION_ERROR, SERVICE_NOT_AVAILABLE, CONNECTION_LOST, BY_APPLICATION, TOO_MANY_CONNECTIONS
}


def _ssh_disconnect(exc: BaseException) -> Classification:
    code = getattr(exc, "code", None)
    failure_class, sent = _SSH_DISCONNECT_REASONS.get(code, (FailureClass.UPSTREAM_UNAVAILABLE, None))  # type: ignore[arg-type]
    if _raised_connecting(exc):
        sent = False
    return Classification(failure_class, upstream=Upstream("ssh", str(code)), side_effect_possible=sent)


# SMTP reply codes (RFC 5321 §4.2.2-4.2.3; AUTH: RFC 4954 §6; the enhanced code's class 7, security
# or policy: RFC 3463 §3.8). A 4yz reply is transient ("the action was not taken"), a 5yz one
# permanent; every negative reply refused the command, so nothing was sent on.
_SMTP_ENHANCED_POLICY: Final = re.compile(r"\s*5\.7\.\d")


def _smtp_class(code: int, text: str) -> FailureClass:
    if 400 <= code < 500:
        return FailureClass.UPSTREAM_UNAVAILABLE  # 421 closing, 450 mailbox busy, 451 local error, 452 storage
    if code in (530, 534, 535, 538) or _SMTP_ENHANCED_POLICY.match(text):
        return FailureClass.PERMISSION_DENIED  # authentication required or failed, refused by policy
    if code in (550, 551):
        return FailureClass.NOT_FOUND  # mailbox unavailable, user not local
    if code in (501, 552, 553):
        return FailureClass.INVALID_INPUT  # bad parameters, message too large, mailbox name not allowed
    return FailureClass.UNKNOWN


def _smtp_reply(reply: Callable[[Any], tuple[object, object]]) -> Rule:
    """The class of an SMTP client's error by the server's reply ``(code, text)`` it carries."""

    def rule(exc: BaseException) -> Classification | None:
        code, text = reply(exc)
        if not isinstance(code, int) or isinstance(code, bool):
            return None
        words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        upstream = Upstream("smtp", str(code))
        return Classification(_smtp_class(code, words), upstream=upstream, side_effect_possible=False)

    return rule


def _smtp_connect(exc: BaseException) -> Classification:
    reply = _smtp_reply(lambda error: (error.smtp_code, error.smtp_error))(exc)
    if reply is not None and reply.failure_class is not FailureClass.UNKNOWN:
        return reply
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=reply.upstream if reply else Upstream("smtp", None),
                          side_effect_possible=False)


# The last resort for an exception no rule and no attribute shape explains: the words its type
# and base classes are named with (``QuotaThrottledError``, ``ObjectDoesNotExist``,
# ``UpstreamTimeout``), first match in this order, leaf class first. Builtins never get here.
_NOT_FOUND_WORDS: Final = re.compile(r"NotFound|NoSuch|DoesNotExist|NoResultFound")
# A file format's reader refusing the bytes it was given, by the words its exception is named with: a document that
# is not its format or is cut short (pypdf's PdfReadError/PdfStreamError, Pillow's UnidentifiedImageError and
# DecompressionBombError, openpyxl's InvalidFileException, pandas' EmptyDataError), a syntax error of a text format
# (lxml's XMLSyntaxError, PyYAML's MarkedYAMLError family, tomllib's TOMLDecodeError, ElementTree's and pandas'
# ParseError/ParserError, configparser's ParsingError, expat's ExpatError), an archive or compressed stream that is
# not one (zipfile's BadZipFile, py7zr's Bad7zFile, tarfile's TarError family, gzip's BadGzipFile, LZMAError,
# zstandard's ZstdError; a format module's bare ``error``/``Error`` class is read by its module's name: zlib.error,
# brotli.error, csv.Error, wave.Error), PyMuPDF's FileDataError/EmptyFileError. What the tool read was the file or the data the call named (a document
# tool's whole subject): a call naming another would succeed. Not JSON's decoder (json.JSONDecodeError: a tool decodes
# any text with it, an upstream's answer as often: J186), not a builtin, not a name that says it read an answer
# (botocore's ResponseParserError): those say nothing of whose bytes they were.
_FORMAT_WORDS: Final = re.compile(
    r"Bad[A-Z0-9]\w*File\b|Not[A-Z0-9]\w*File\b|Unidentified|DecompressionBomb|InvalidFile|Corrupt|Malformed|"
    r"(?:Empty|Broken|Damaged|Truncated)(?:Data|File|Document|Image|Archive|Stream)|FileData|"
    r"(?:Pdf|PDF|Xml|XML|Yaml|YAML|Toml|TOML|Csv|CSV|Tar|Zip|Archive)(?=[A-Z])\w*Error|"  # not Target..., Zipcode...
    r"(?:Parse|Parser|Parsing|Scanner|Syntax|Expat)(?:Error|Exception)$|"
    r"(?i:^(?:zlib|brotli|bz2|lzma|zstd|lz4|snappy|csv|wave|aifc|sunau)\w*error$)")
_ANSWER_WORDS: Final = re.compile(r"Response|Reply|Answer|Message|Frame|Packet|Protocol|JSON|Json")


def _answer_on_stack(exc: BaseException) -> bool:
    """Whether a frame ``exc`` was raised through holds an HTTP response (an integer ``status_code``/``status`` and
    ``headers``): the bytes a format reader refused were an upstream's answer (zeep's XMLSyntaxError over a 200 that
    is an HTML page), not a file the call named."""
    tb = exc.__traceback__
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if isinstance(value, (str, bytes, int, float, type(None), Mapping, list, tuple)):
                continue
            status = next((_attribute(value, name) for name in ("status_code", "status")
                           if isinstance(_attribute(value, name), int)), None)
            if status is not None and not isinstance(status, bool) and _attribute(value, "headers") is not None:
                return True
        tb = tb.tb_next
    return False


def _class_words(klass: type[BaseException]) -> str:
    """The name ``klass``'s words are read from: its own, or for a C extension's module-level ``error``/``Error``
    class (zlib's, brotli's, binascii's: named for nothing but where it lives) its module's last part with it."""
    if klass.__name__.lower() != "error":
        return klass.__name__
    return klass.__module__.rpartition(".")[2].lstrip("_") + "Error"
_NAME_WORDS: Final = (
    # ResourceExhausted: gRPC's name for a quota or rate limit (qdrant-client's 429); Ratelimit as one word (zenpy's
    # RatelimitBudgetExceeded: the Retry-After waits it may spend are spent)
    # UsageLimit, QuotaExceeded: a usage quota spent (Tavily's UsageLimitExceededError, its 429)
    (re.compile(r"Rate_?[Ll]imit|Throttl|TooManyRequests|ResourceExhausted|UsageLimit|Quota(?:Exceeded|Exhausted)"),
     FailureClass.RATE_LIMITED, False),
    # an API key refused or never given (Tavily's InvalidAPIKeyError, its 401; MissingAPIKeyError: nothing sent)
    # AuthorizationError: braintree's 403, redis-py's NOPERM (not OAuth's AuthorizationPending: a flow still waiting);
    # no credential to present (azure-identity's CredentialUnavailableError: "required data or state is unavailable",
    # botocore's NoCredentialsError), as a 401 without one, before the "Unavailable" of an outage below
    (re.compile(r"PermissionDenied|AccessDenied|Forbidden|Unauthori[sz]ed|Unauthenticated|Authenticat|"
                r"Authori[sz]ation(?:Error|Exception|Fail)|Credentials?Unavailable|(?:No|Missing|Partial)Credential|"
                r"(?:Invalid|Missing|Expired|Revoked)(?:Api|API)Key|(?:Api|API)Key(?:Invalid|Missing|Expired)|"
                # AuthError as one word (Chroma's ChromaAuthError, its 403), not OAuth's (an OAuth flow's own errors)
                r"(?<!O)Auth(?:Error|Exception)|"
                # a document locked by a password the tool lacks or got wrong (pypdf's FileNotDecryptedError): the
                # credential that opens it, as a 401 without one
                r"NotDecrypted|(?:Wrong|Bad|Incorrect|Invalid|Missing)Password|Password(?:Required|Needed|Incorrect|Invalid)"),
     FailureClass.PERMISSION_DENIED, False),
    (_NOT_FOUND_WORDS, FailureClass.NOT_FOUND, None),
    # HTTP 400's and 422's names (Tavily's BadRequestError): the request's values, refused as a whole; gRPC's
    # INVALID_ARGUMENT and a unique constraint (as SQLSTATE 23505) by name (Chroma's InvalidArgumentError,
    # UniqueConstraintError); a vector of the wrong length for its collection (Chroma's InvalidDimensionException); a
    # request over a size limit (Chroma's BatchSizeExceededError: a smaller batch fits)
    (re.compile(r"Duplicate|AlreadyExists|BadRequest|UnprocessableEntity|InvalidArgument|UniqueConstraint|"
                r"InvalidDimension|DimensionMismatch|SizeExceeded|TooLarge"), FailureClass.INVALID_INPUT, False),
    # a document, archive or compressed stream its format's reader refuses (_FORMAT_WORDS), as a body that does not
    # parse: another file would be read; nothing done
    (_FORMAT_WORDS, FailureClass.INVALID_INPUT, False),
    # a timeout that says whether the operation took effect (Couchbase's SDKs: UnAmbiguousTimeoutException, "the
    # operation was not performed", e.g. never connected; AmbiguousTimeoutException and DurabilityAmbiguousException,
    # "it may have been", https://docs.couchbase.com/python-sdk/current/howtos/error-handling.html)
    (re.compile(r"Un[Aa]mbiguousTimeout"), FailureClass.UPSTREAM_UNAVAILABLE, False),
    (re.compile(r"AmbiguousTimeout|DurabilityAmbiguous"), FailureClass.UPSTREAM_UNAVAILABLE, True),
    # a connection that never opened, or none open when asked to send (stomp.py's ConnectFailedException,
    # NotConnectedException): nothing went out
    (re.compile(r"Connect(ion)?Failed|NotConnected"), FailureClass.UPSTREAM_UNAVAILABLE, False),
    (re.compile(r"Connect(ion)?(Error|Refused|Timeout)|NameResolution|Unreachable"),
     FailureClass.UPSTREAM_UNAVAILABLE, None),
    (re.compile(r"Timeout|TimedOut|Unavailable|ConnectionClosed|Disconnect"), FailureClass.UPSTREAM_UNAVAILABLE, None),
)


# libcurl's CURLE_HTTP_RETURNED_ERROR ("The requested URL returned error: 403"), in git's and curl's stderr; the URL a
# program names in quotes ("unable to access 'https://host/repo.git/'", "repository 'https://...' not found").
_CURL_STATUS: Final = re.compile(r"\breturned error: ([1-5]\d\d)\b")
_QUOTED_URL: Final = re.compile(r"""['"](https?://[^'"\s]+)['"]""")


def _program_output(exc: BaseException) -> list[str]:
    """What the failed program wrote, stderr first: on the exception, or on the result it carries (invoke). Of its
    standard output only the last line: the rest is the program's data (a diff's lines, a test run's names and numbers,
    POSIX keeps diagnostics for stderr), its last line the verdict some programs print there (git's "nothing to
    commit, working tree clean")."""
    texts = []
    for owner in (exc, _attribute(exc, "result")):
        for name in ("stderr", "stdout", "output"):
            value = _attribute(owner, name) if owner is not None else None
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            if isinstance(value, str) and name != "stderr":
                value = next((line for line in reversed(value.splitlines()) if line.strip()), "")
            if isinstance(value, str) and value.strip() and value not in texts:
                texts.append(value)
    return texts


def _exit_status(exc: BaseException) -> int | None:
    for owner, name in ((exc, "returncode"), (exc, "exit_code"), (exc, "retcode"), (exc, "status"),
                        (_attribute(exc, "result"), "exited")):
        value = _attribute(owner, name) if owner is not None else None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


# A shell's own statuses for a command it could not run (POSIX "Shell Command Language" §2.8.2: 127 not found,
# 126 found but not executable): the program never started, as a FileNotFoundError out of subprocess.
_SHELL_COULD_NOT_RUN: Final = frozenset({126, 127})


# A line a program wrote beside its failure that is no failure: a warning, a hint or a note (git's "warning:" and
# "hint:", npm's "npm WARN", Python's "DeprecationWarning: ..."): the program went on after it, so it names nothing
# that failed ("warning: could not connect to the cache" before an exit for another reason). Kept when it says the
# program retried: that failure, repeated until the retries ran out, is what ended it (pip's "WARNING: Retrying (...)
# after connection broken by ...: Connection refused" before "ERROR: Could not find a version", curl's "Warning:
# Problem : timeout. Will retry in 1 seconds", npm's "npm WARN retry").
_ADVICE_LINE: Final = re.compile(
    r"(?im)^[ \t]*(?:(?:warning|hint|note|[\w.]*warning):|npm warn\b)(?![^\n]*\bretr(?:y|ying|ies|ied)\b)[^\n]*\n?")


# A runtime's excerpt of the source line an uncaught error was thrown at, above the error's own line: its position
# ("node:fs:573", "/srv/app.js:12"), the line, a caret under it (V8's and Deno's uncaught-exception print). Its
# numbers are line numbers, no status.
_SOURCE_EXCERPT: Final = re.compile(r"(?m)^[^\s:]+(?::[^\s:]+)*:\d+[ \t]*\n[^\n]*\n[ \t]*\^+[ \t]*$")


def _program_words(output: str) -> str:
    """What a failed program said of its failure: its output without advice lines (:data:`_ADVICE_LINE`), the source
    excerpt of an uncaught error (:data:`_SOURCE_EXCERPT`) and the stack frames under it (Node's, Java's:
    ``without_stack_traces``), whose positions are line numbers and whose names are the program's code. A crash
    report is kept whole."""
    text = _ADVICE_LINE.sub("", output)
    if is_crash_report(text):
        return text  # a crash is read whole: the program's own bug, whatever its frames' words (classify_text)
    return without_stack_traces(_SOURCE_EXCERPT.sub("", text))


def _program_failure(exc: BaseException) -> Classification | None:
    """A program the tool ran that exited with an error status: ``subprocess.CalledProcessError`` (``check=True``
    with the output captured), GitPython's ``GitCommandError`` (the git the official MCP git server drives), sh's
    ``ErrorReturnCode``, plumbum's ``ProcessExecutionError``, invoke's (and so Fabric's) ``UnexpectedExit``.

    A shell's 127 or 126 (the command not found, not executable) is a program that never started:
    upstream_unavailable, nothing done, as a ``FileNotFoundError`` out of ``subprocess``.

    The exit status says only that it failed; what failed is in the program's own words, on stderr (else stdout:
    git's "nothing to commit"). Those are read with the foreign-text rules (``classify_text``: the same words a
    foreign MCP server's text is read by), so one failure gets one class whether a tool raised it or relayed it.
    An HTTP status the program reports in libcurl's words ("The requested URL returned error: 503": git, curl) is
    the upstream's, with the URL's ``host[:port]``. Whether it acted: what the text says of an upstream it did not
    reach or that dropped mid-answer, the status's fact; otherwise not known (a program may fail after doing part of
    its work). ``None`` (its cause decides, else ``unknown``) when no output was captured or nothing in it is known.
    """
    if _exit_status(exc) in _SHELL_COULD_NOT_RUN:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, side_effect_possible=False)
    for output in _program_output(exc):
        text = _program_words(output)
        if not text.strip():
            continue
        failure_class = classify_text(text)
        if failure_class is FailureClass.UNKNOWN:
            continue
        status_match = _CURL_STATUS.search(text)
        status = int(status_match.group(1)) if status_match else None
        url = _QUOTED_URL.search(text)
        upstream = (Upstream("http", str(status), http_address(url.group(1)) if url else None)
                    if status is not None else None)
        if status is not None:
            sent = side_effect_for_http_status(status)
        elif failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            sent = True if says_maybe_acted(text) else False if never_reached(text) else None
        else:
            sent = None
        wait = retry_after_from_text(text) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, upstream=upstream, side_effect_possible=sent)
    return None


# An SDK class named after one HTTP status's reason phrase (RFC 9110 §15, the IANA registry's names: braintree's
# ``ServerError``/``ServiceUnavailableError``/``GatewayTimeoutError``, werkzeug's ``NotFound``, discord.py's
# ``Forbidden``) stands for that status when it keeps none: the status's class and whether the request may have been
# acted on (a 503 refused it whole, a 500 or 504 may come after it acted). The whole name must be the phrase (an
# ``Http``/``HTTP`` prefix, an ``Error``/``Exception`` suffix aside): ``ObjectNotFound`` is read by its words below.
_REASON_AFFIXES: Final = re.compile(r"^(?:http)?(.*?)(?:error|exception)?$")


def _reason_key(name: str) -> str:
    match = _REASON_AFFIXES.match(re.sub(r"[^a-z0-9]", "", name.lower()))
    return match.group(1) if match else name


_REASON_NAMES: Final[dict[str, int]] = {
    # not 501: a library's ``NotImplementedException`` is a feature its client lacks, no server's answer; not 408: a
    # ``RequestTimeout`` is as often the client's own wait for an answer (sent, maybe acted on) as the server's 408
    **{_reason_key(status.phrase): int(status) for status in HTTPStatus if status >= 400 and status not in (408, 501)},
    # older and shorter names: RFC 7231's 413, RFC 4918's 422, a 5xx as a server's error
    "server": 500, "payloadtoolarge": 413, "requestentitytoolarge": 413, "unprocessablecontent": 422,
}


def _reason_named(klass: type[BaseException]) -> int | None:
    return _REASON_NAMES.get(_reason_key(klass.__name__))


def _by_name(exc: BaseException) -> Classification | None:
    for klass in type(exc).__mro__:
        if klass.__module__ == "builtins":
            break
        named = _named_class(exc, klass)
        if named is None:
            continue
        failure_class, sent = named
        if failure_class is FailureClass.PERMISSION_DENIED and classify_text(
                _message_of(exc)) is FailureClass.RATE_LIMITED:
            # a refusal named Forbidden whose words say a usage quota or rate limit is spent (Tavily's 432
            # "exceeds your plan's set usage limit"), as a 403 that says when to come back: a rate limit
            failure_class = FailureClass.RATE_LIMITED
        wait = _carried_delay(exc) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, side_effect_possible=sent)
    return None


def _named_class(exc: BaseException, klass: type[BaseException]) -> tuple[FailureClass, bool | None] | None:
    """What ``klass``'s name says: an HTTP status's reason phrase (that status's class and fact), else the words."""
    status = _reason_named(klass)
    if status is not None and class_for_http_status(status) is not FailureClass.UNKNOWN:
        return class_for_http_status(status), side_effect_for_http_status(status)
    name = _class_words(klass)
    for pattern, failure_class, side_effect in _NAME_WORDS:
        if not pattern.search(name):
            continue
        if pattern is _FORMAT_WORDS and (_ANSWER_WORDS.search(name) or _answer_on_stack(exc)):
            continue  # a reader of a protocol's answer: the upstream's bytes, not a file the call named
        sent = _sent_by_name(exc) if failure_class is FailureClass.UPSTREAM_UNAVAILABLE and side_effect is None \
            else side_effect
        return failure_class, sent
    return None


def _carried_delay(exc: BaseException) -> float | None:
    """The delay a rate-limit exception keeps as a number of seconds (``retry_after``: slack_sdk, pyrate;
    ``retry_after_s``: qdrant-client; ``backoff``: Dropbox), else its response's ``Retry-After``."""
    for name in ("retry_after", "retry_after_s", "retry_after_seconds", "backoff"):
        seconds = delay_seconds(_attribute(exc, name))
        if seconds is not None:
            return seconds
    return retry_after_from_headers(lambda name: _response_header(exc, name))


# librdkafka's error names (rdkafka.h rd_kafka_resp_err_t: ``_``-prefixed local errors; the others are the Kafka
# protocol's error codes, https://kafka.apache.org/protocol#protocol_error_codes) -> (class, may it have acted).
_KAFKA_ERRORS: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("UNKNOWN_TOPIC_OR_PART", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION"), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys(("TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED",
                     "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "SASL_AUTHENTICATION_FAILED",
                     "DELEGATION_TOKEN_AUTHORIZATION_FAILED", "_AUTHENTICATION"), (FailureClass.PERMISSION_DENIED, False)),
    "THROTTLING_QUOTA_EXCEEDED": (FailureClass.RATE_LIMITED, False),
    # the record or the request's own values: a message over the size limit (checked before it is queued), an
    # invalid topic name, partition count or replication factor, a topic that exists already
    **dict.fromkeys(("MSG_SIZE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "TOPIC_EXCEPTION", "INVALID_PARTITIONS",
                     "INVALID_REPLICATION_FACTOR", "INVALID_CONFIG", "POLICY_VIOLATION", "TOPIC_ALREADY_EXISTS",
                     "INVALID_RECORD", "INVALID_TIMESTAMP"), (FailureClass.INVALID_INPUT, False)),
    # no broker to take it: not resolved, none up, TLS failed, no leader or coordinator yet, the local queue full
    **dict.fromkeys(("_RESOLVE", "_ALL_BROKERS_DOWN", "_SSL", "_QUEUE_FULL", "LEADER_NOT_AVAILABLE",
                     "NOT_LEADER_FOR_PARTITION", "BROKER_NOT_AVAILABLE", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR",
                     "COORDINATOR_LOAD_IN_PROGRESS", "NOT_ENOUGH_REPLICAS"), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    # the connection failed or the answer did not come in time: a message may have been written (librdkafka's
    # "possibly persisted")
    **dict.fromkeys(("_TRANSPORT", "_TIMED_OUT", "_MSG_TIMED_OUT", "REQUEST_TIMED_OUT", "NETWORK_EXCEPTION",
                     "_TIMED_OUT_QUEUE"), (FailureClass.UPSTREAM_UNAVAILABLE, None)),
    **dict.fromkeys(("NOT_ENOUGH_REPLICAS_AFTER_APPEND", "KAFKA_STORAGE_ERROR"), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    # the client's own configuration or state (an unknown property, a commit with no offset stored, a transaction
    # call out of order): our code, nothing sent
    **dict.fromkeys(("_INVALID_ARG", "_NO_OFFSET", "_STATE", "_NOT_IMPLEMENTED", "_UNSUPPORTED_FEATURE",
                     "_NOT_CONFIGURED"), (FailureClass.UNKNOWN, False)),
}


# Trino's error names (io.trino.spi.StandardErrorCode) whose class is not their errorType's, read as the SQLSTATE
# table reads PostgreSQL's: a role refused (42501), a value the statement's data cannot take (class 22), a limit that
# cancelled the statement (57014) or an operator's kill (57: what it had written may stay).
_TRINO_NAMES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "PERMISSION_DENIED": (FailureClass.PERMISSION_DENIED, False),
    **dict.fromkeys(("DIVISION_BY_ZERO", "INVALID_CAST_ARGUMENT", "INVALID_FUNCTION_ARGUMENT",
                     "NUMERIC_VALUE_OUT_OF_RANGE", "INVALID_LITERAL", "CONSTRAINT_VIOLATION"),
                    (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys(("EXCEEDED_TIME_LIMIT", "QUERY_REJECTED", "QUERY_HAS_TOO_MANY_STAGES"),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    "ADMINISTRATIVELY_KILLED": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    # the coordinator could not start the query: no worker, starting up, shutting down
    **dict.fromkeys(("NO_NODES_AVAILABLE", "SERVER_STARTING_UP", "SERVER_SHUTTING_DOWN"),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
}
# ... else by its errorType (io.trino.spi.ErrorType): the statement as written (a missing table, a syntax error: the
# SQLSTATE table's class 42, the tool's own query); the cluster out of memory or queue slots (class 53, nothing run);
# the coordinator's own failure or a connector's source (a metastore, a JDBC database) failing under the query.
_TRINO_TYPES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "USER_ERROR": (FailureClass.UNKNOWN, False),
    "INSUFFICIENT_RESOURCES": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "INTERNAL_ERROR": (FailureClass.UPSTREAM_UNAVAILABLE, None),
    "EXTERNAL": (FailureClass.UPSTREAM_UNAVAILABLE, None),
}


def _trino_error(exc: BaseException) -> Classification:
    """trino-python-client's ``TrinoQueryError`` (``TrinoUserError``, ``TrinoExternalError``, ...): the failed
    query's ``errorName`` (:data:`_TRINO_NAMES`), else its ``errorType`` (:data:`_TRINO_TYPES`); the name is the
    upstream status, system ``trino``."""
    name, error_type = _attribute(exc, "error_name"), _attribute(exc, "error_type")
    found = (_TRINO_NAMES.get(name) if isinstance(name, str) else None) or _TRINO_TYPES.get(str(error_type))
    if found is None:
        found = (FailureClass.UNKNOWN, None)
    return Classification(found[0], upstream=Upstream("trino", name) if isinstance(name, str) and name else None,
                          side_effect_possible=found[1])


# An HTTP status an SDK keeps only in its message ("error 503: service unavailable": trino's HttpError)
_STATUS_IN_MESSAGE: Final = re.compile(r"^\s*(?:http )?error:? ([1-5]\d\d)\b", re.I)


def _status_in_message(exc: BaseException) -> Classification | None:
    match = _STATUS_IN_MESSAGE.match(_message_of(exc))
    if match is None:
        return None
    status = int(match.group(1))
    return replace(_status_named(status, "http")(exc), retry_after=None)


# Dropbox's route errors (https://www.dropbox.com/developers/documentation/http/documentation, "Errors": 409
# "Endpoint-specific error", its tags in each route's error union): the innermost tag a class is known for decides.
_DROPBOX_TAGS: Final[dict[str, FailureClass]] = {
    "not_found": FailureClass.NOT_FOUND,
    # a path or name the call gave that cannot be used, or that collides with what is there (HTTP 409's class)
    **dict.fromkeys(("malformed_path", "not_file", "not_folder", "conflict", "disallowed_name",
                     "unsupported_content_type", "cant_copy_shared_folder", "cant_nest_shared_folder",
                     "cant_move_folder_into_itself", "duplicated_or_nested_paths", "cant_transfer_ownership",
                     "invalid_path_root", "invalid_cursor", "reset"), FailureClass.INVALID_INPUT),
    # the account may not write there or read that (content restricted by policy, a team folder, a scope)
    **dict.fromkeys(("no_write_permission", "no_permission", "restricted_content", "team_folder", "access_denied",
                     "email_not_verified", "insufficient_permissions"), FailureClass.PERMISSION_DENIED),
    "too_many_write_operations": FailureClass.RATE_LIMITED,  # the namespace's write lock contended: retry later
}


def _stone_tags(value: object, depth: int = 0) -> list[str]:
    """The tags of a Stone union (Dropbox's SDKs: ``_tag``, its value in ``_value``) and of the unions its structs'
    fields hold, outermost first (``path`` / ``not_found``, as Dropbox's ``error_summary`` reads)."""
    if depth > 6 or value is None:
        return []
    tag = _attribute(value, "_tag")
    if isinstance(tag, str):
        return [tag, *_stone_tags(_attribute(value, "_value"), depth + 1)]
    fields = _attribute(value, "_all_field_names_")
    if isinstance(fields, (set, frozenset, list, tuple)):
        return [tag for name in sorted(fields) for tag in _stone_tags(_attribute(value, name), depth + 1)]
    return []


def _dropbox_api_error(exc: BaseException) -> Classification:
    """Dropbox's ``ApiError``: a route's own refusal (answered 409, or 403/404), with no status kept, only its
    error union. The innermost tag :data:`_DROPBOX_TAGS` or an API code family knows decides; nothing was done (a
    refusal of the request as a whole). The tags are the upstream status, system ``dropbox``."""
    tags = _stone_tags(_attribute(exc, "error"))
    upstream = Upstream("dropbox", "/".join(tags)) if tags else None
    for tag in reversed(tags):
        failure_class = _DROPBOX_TAGS.get(tag) or _code_family(tag)
        if failure_class is not None and failure_class is not FailureClass.UNKNOWN:
            return Classification(failure_class, upstream=upstream, side_effect_possible=False)
    return Classification(FailureClass.UNKNOWN, upstream=upstream, side_effect_possible=False)


def _upstream_words(attribute: str) -> Rule:
    """For an SDK's catch-all error that keeps only the upstream API's own error text (``attribute``): that text,
    read with the foreign-text rules (``classify_text``). An API's error answer refused the request as a whole
    (nothing done) unless its words say it failed midway; ``None`` (the chain, then the type's name, decide) when
    the words say nothing known."""

    def rule(exc: BaseException) -> Classification | None:
        text = _attribute(exc, attribute)
        if not isinstance(text, str) or not text.strip():
            return None
        failure_class = classify_text(text)
        if failure_class is FailureClass.UNKNOWN:
            return None
        if failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            sent = True if says_maybe_acted(text) else False if never_reached(text) else None
        else:
            sent = False
        wait = retry_after_from_text(text) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, side_effect_possible=sent)

    return rule


def _reddit_redirect(exc: BaseException) -> Classification:
    """prawcore's ``Redirect`` (a 301/302 where an API answer was due): Reddit answers a subreddit that does not
    exist by redirecting to its search (``/subreddits/search``), and a write from a read-only session by
    redirecting to ``/login/``; any other redirect says no failure class."""
    path = _attribute(exc, "path")
    if isinstance(path, str) and path.startswith("/subreddits/search"):
        return Classification(FailureClass.NOT_FOUND, side_effect_possible=False)
    if isinstance(path, str) and path.startswith("/login"):
        return Classification(FailureClass.PERMISSION_DENIED, side_effect_possible=False)
    return _UNKNOWN


def _kafka_error(exc: BaseException) -> Classification:
    """confluent-kafka's ``KafkaException``: the ``KafkaError`` it holds (``args[0]``) by its name, else by whether
    librdkafka calls it retriable (a transient broker state: upstream_unavailable)."""
    error = exc.args[0] if exc.args else None
    try:
        name, retriable = error.name(), error.retriable()  # type: ignore[union-attr]
    except Exception:  # not a KafkaError: a message of its own
        return _UNKNOWN
    found = _KAFKA_ERRORS.get(name) if isinstance(name, str) else None
    if found is None:
        found = (FailureClass.UPSTREAM_UNAVAILABLE, None) if retriable is True else (FailureClass.UNKNOWN, None)
    return Classification(found[0], upstream=Upstream("kafka", str(name)), side_effect_possible=found[1])


def _telegram_wait(exc: BaseException) -> float | None:
    # its timedelta as stored: the public ``retry_after`` warns (PTBDeprecationWarning) on each read since v22.2
    stored = delay_seconds(_attribute(exc, "_retry_after"))
    return stored if stored is not None else _carried_delay(exc)


_UNKNOWN_RULE: Final = _fixed(FailureClass.UNKNOWN)
_NOT_THERE: Final = _fixed(FailureClass.NOT_FOUND, False)
_DB_CODE: Final = _dbapi(FailureClass.UNKNOWN)
_UNAVAILABLE_NOT_SENT: Final = _unavailable(False)
_UNAVAILABLE_MAYBE_SENT: Final = _unavailable(True)
_UNAVAILABLE: Final = _unavailable(None)

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


# urllib3's ResponseError.SPECIFIC_ERROR, "too many {status_code} error responses"
_RETRIED_STATUS: Final = re.compile(r"\btoo many ([1-5]\d\d) error responses\b")


def _retried_status(exc: BaseException) -> Classification:
    """The status every retry was answered with (urllib3's ``ResponseError``), as that status carried, no wait: the
    last answer's headers are gone with it. Without one (``GENERIC_ERROR``) an upstream that kept failing."""
    match = _RETRIED_STATUS.search(_message_of(exc))
    if match is None:
        return _unavailable(None, "http")(exc)
    return _status_named(int(match.group(1)), "http")(exc)


# Google Maps Platform web services' ``status`` of a refused request (the Geocoding, Directions, Distance Matrix, Places
# APIs' "Status codes" tables), which googlemaps' ApiError keeps as ``status`` over an HTTP 200. OVER_DAILY_LIMIT is,
# by Google's list, a key missing or invalid, billing not enabled, a self-imposed cap or a payment method gone: the
# account, not the rate; UNKNOWN_ERROR is the server's own failure ("may succeed if you try again").
_MAPS_STATUSES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("NOT_FOUND", "ZERO_RESULTS"), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys(("INVALID_REQUEST", "MAX_ELEMENTS_EXCEEDED", "MAX_DIMENSIONS_EXCEEDED", "MAX_WAYPOINTS_EXCEEDED",
                     "MAX_ROUTE_LENGTH_EXCEEDED"), (FailureClass.INVALID_INPUT, False)),
    "OVER_QUERY_LIMIT": (FailureClass.RATE_LIMITED, False),
    **dict.fromkeys(("REQUEST_DENIED", "OVER_DAILY_LIMIT"), (FailureClass.PERMISSION_DENIED, False)),
    "UNKNOWN_ERROR": (FailureClass.UPSTREAM_UNAVAILABLE, True),
}


def _maps_status(exc: BaseException) -> Classification:
    status = _attribute(exc, "status")
    failure_class, sent = _MAPS_STATUSES.get(status, (FailureClass.UNKNOWN, None)) if isinstance(status, str) else (
        FailureClass.UNKNOWN, None)
    upstream = Upstream("google_maps", status) if isinstance(status, str) else None
    return Classification(failure_class, upstream=upstream, side_effect_possible=sent)


# python-consul (py-consul) raises BadRequest, ClientError and its base ConsulException as f"{code} {body}": the
# status is the message's first word (its ACLDisabled, ACLPermissionDenied and NotFound stand for 401, 403, 404)
_LEADING_STATUS: Final = re.compile(r"([1-5]\d\d) ")


def _consul_status(exc: BaseException) -> Classification | None:
    match = _LEADING_STATUS.match(_message_of(exc))
    return _status_named(int(match.group(1)), "http")(exc) if match else None


# ZooKeeper's error codes (KeeperException.Code; kazoo keeps each as its exception class's ``code``) -> (name, class,
# may the operation have been applied). A code the server answered refused the operation; only a lost connection or
# a timeout leaves it open.
_ZOOKEEPER_CODES: Final[dict[int, tuple[str, FailureClass, bool | None]]] = {
    -101: ("NONODE", FailureClass.NOT_FOUND, False),
    -102: ("NOAUTH", FailureClass.PERMISSION_DENIED, False),
    -115: ("AUTHFAILED", FailureClass.PERMISSION_DENIED, False),
    -103: ("BADVERSION", FailureClass.INVALID_INPUT, False),  # the version the caller expected is stale
    -108: ("NOCHILDRENFOREPHEMERALS", FailureClass.INVALID_INPUT, False),
    -110: ("NODEEXISTS", FailureClass.INVALID_INPUT, False),
    -111: ("NOTEMPTY", FailureClass.INVALID_INPUT, False),
    -114: ("INVALIDACL", FailureClass.INVALID_INPUT, False),
    -8: ("BADARGUMENTS", FailureClass.INVALID_INPUT, False),
    -127: ("THROTTLEDOP", FailureClass.RATE_LIMITED, False),
    -4: ("CONNECTIONLOSS", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -7: ("OPERATIONTIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -122: ("REQUESTTIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -112: ("SESSIONEXPIRED", FailureClass.UPSTREAM_UNAVAILABLE, None),
    -118: ("SESSIONMOVED", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -119: ("NOTREADONLY", FailureClass.UPSTREAM_UNAVAILABLE, False),  # a read-only server took the session
    -13: ("NEWCONFIGNOQUORUM", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -14: ("RECONFIGINPROGRESS", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -1: ("SYSTEMERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -2: ("RUNTIMEINCONSISTENCY", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -3: ("DATAINCONSISTENCY", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -5: ("MARSHALLINGERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -6: ("UNIMPLEMENTED", FailureClass.UNKNOWN, False),
    -123: ("RECONFIGDISABLED", FailureClass.UNKNOWN, False),
}


def _zookeeper_code(exc: BaseException) -> Classification:
    code = _attribute(exc, "code")
    found = _ZOOKEEPER_CODES.get(code) if isinstance(code, int) else None
    if found is None:
        return Classification(FailureClass.UNKNOWN, upstream=Upstream("zookeeper", str(code)))
    name, failure_class, sent = found
    return Classification(failure_class, upstream=Upstream("zookeeper", name), side_effect_possible=sent)


def _kazoo_timeout(exc: BaseException) -> Classification:
    # KazooClient.start() waited for a session that never opened (refused, unresolvable, no answer to the handshake):
    # nothing was sent; elsewhere a request's answer did not come in time.
    tb = exc.__traceback__
    while tb is not None:
        if _function_name(tb.tb_frame) == "start" and str(tb.tb_frame.f_globals.get("__name__")) == "kazoo.client":
            return _unavailable(False, "zookeeper")(exc)
        tb = tb.tb_next
    return _unavailable(True, "zookeeper")(exc)


# Milvus's own error codes (``merr``, pkg/util/merr/errors.go), kept by pymilvus as ``MilvusException.code``. Several
# lie in 400-599 (400 replica not found, 503 channel not available): no HTTP statuses. A refusal of what the call named
# (not there, a value it may not use, a state it must first change: a collection not loaded) did nothing; the
# cluster's own state (not ready, recovering, a replica, channel or node it lacks) refused the call before acting.
_MILVUS_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((100, 200, 300, 700, 800, 1200, 1600, 1603, 1700), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((101, 102, 104, 105, 107, 201, 301, 302, 303, 701, 702, 801, 802, 1100, 1101, 1102, 1601, 1602,
                     1701, 1801, 1802, 1804, 1806), (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys((1400, 1401, 1800), (FailureClass.PERMISSION_DENIED, False)),
    **dict.fromkeys((4, 8, 9, 1807), (FailureClass.RATE_LIMITED, False)),  # request/rate limit, quota
    **dict.fromkeys((1, 2, 3, 6, 7, 11, 12, 103, 106, 202, 305, 400, 401, 500, 501, 503, 504, 600, 601, 602, 901, 902,
                     903, 905, 1303), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((5, 1000, 1001, 1002, 1302, 2000, 65535), (FailureClass.UPSTREAM_UNAVAILABLE, None)),
    10000: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # canceled inside the server, after it started
    10001: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # timed out inside the server
}


def _milvus_error(exc: BaseException) -> Classification | None:
    """pymilvus's ``MilvusException``: a gRPC status its retry gave up on (``code`` a ``grpc.StatusCode``), else
    Milvus's own code (:data:`_MILVUS_CODES`), else the server's verdict it keeps (``is_input_error``: the request
    was the caller's; ``retriable``: the cluster could not now). pymilvus's own default code 1 over another failure
    (a timeout of its retry loop) is no answer: the failure below decides."""
    if _grpc_status_name(exc) is not None:
        return _grpc_status(exc)
    code = _attribute(exc, "code")
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    if code == 1 and (exc.__cause__ is not None and exc.__cause__ is not exc):
        return None
    found = _MILVUS_CODES.get(code)
    if found is None and _attribute(exc, "is_input_error") is True:
        found = (FailureClass.INVALID_INPUT, False)
    elif found is None and _attribute(exc, "retriable") is True:
        found = (FailureClass.UPSTREAM_UNAVAILABLE, False)
    failure_class, side_effect = found or (FailureClass.UNKNOWN, None)
    return Classification(failure_class, upstream=Upstream("milvus", str(code)), side_effect_possible=side_effect)


# NTSTATUS error values (MS-ERREF §2.3.1; severity 3, the top two bits set) an SMB server answers a request with
# (MS-SMB2 §2.2.2): a refused logon or access, a name that is not there, a name or state the request does not fit,
# the server short of a resource. Each answers the request whole, nothing done; a connection or session dropped under
# it may come after it acted.
_NTSTATUS_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((0xC000006D, 0xC000006A, 0xC0000064, 0xC000006E, 0xC000006F, 0xC0000070, 0xC0000071, 0xC0000072,
                     0xC0000193, 0xC0000224, 0xC0000234, 0xC000015B, 0xC0000022, 0xC00000CA, 0xC0000061, 0xC0000121,
                     0xC00000A2), (FailureClass.PERMISSION_DENIED, False)),
    **dict.fromkeys((0xC0000034, 0xC000003A, 0xC000000F, 0xC00000CC, 0xC00000BE, 0xC0000225),
                    (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((0xC0000035, 0xC0000101, 0xC00000BA, 0xC0000103, 0xC0000033, 0xC000000D, 0xC0000011),
                    (FailureClass.INVALID_INPUT, False)),
    # in use by another (a sharing violation, a lock), being deleted, the disk or quota full, the server short
    **dict.fromkeys((0xC0000043, 0xC0000054, 0xC0000056, 0xC000007F, 0xC0000044, 0xC0000205, 0xC00000D0, 0xC000011F,
                     0xC0000466, 0xC000035C), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((0xC00000B5, 0xC000020C, 0xC000020D, 0xC00000C9, 0xC0000203, 0xC0000120),
                    (FailureClass.UPSTREAM_UNAVAILABLE, True)),
}


def _ntstatus_of(exc: BaseException) -> int | None:
    """The NTSTATUS error value an exception keeps: ``ntstatus`` (smbclient's ``SMBOSError``) or ``status``
    (smbprotocol's ``SMBResponseException`` and its per-status classes), an int with the error severity bits set:
    no HTTP status, errno or other code is that large."""
    for name in ("ntstatus", "status"):
        value = _attribute(exc, name)
        if isinstance(value, int) and not isinstance(value, bool) and 0xC0000000 <= value <= 0xFFFFFFFF:
            return value
    return None


def _ntstatus_error(exc: BaseException) -> Classification:
    code = _ntstatus_of(exc) or 0
    failure_class, side_effect = _NTSTATUS_CODES.get(code, (FailureClass.UNKNOWN, None))
    return Classification(failure_class, upstream=Upstream("smb", f"0x{code:08X}"), side_effect_possible=side_effect)


# The Couchbase SDKs' error codes (couchbase-cxx-client's ``errc``, the Python SDK's ``couchbase.exceptions.ExceptionMap``:
# 1-99 common, 101-199 key-value, 301-399 analytics, 501-599 views) -> (class, may it have taken effect). A code the
# server answered refuses the operation whole (a KV operation is atomic); a timeout says in its code whether the
# operation was performed (ambiguous 13: maybe; unambiguous 14: not); the SDK's own argument check and the tool's
# query that does not parse are the tool's.
_COUCHBASE_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((2, 5), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # request canceled, internal server failure
    **dict.fromkeys((3, 8, 12, 15), (FailureClass.UNKNOWN, False)),  # invalid argument, parsing failure, unsupported
    **dict.fromkeys((4, 7, 14, 103, 108, 110), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # service not available,
    # temporary failure, unambiguous timeout, document locked, durability impossible, sync write in progress
    **dict.fromkeys((13, 109), (FailureClass.UPSTREAM_UNAVAILABLE, True)),  # ambiguous timeout, sync write ambiguous
    6: (FailureClass.PERMISSION_DENIED, False),  # authentication failure
    **dict.fromkeys((21, 22), (FailureClass.RATE_LIMITED, False)),  # rate limited, quota limited
    **dict.fromkeys((10, 11, 16, 101, 113, 303, 304, 502), (FailureClass.NOT_FOUND, False)),  # bucket, collection,
    # scope, document, sub-document path, dataset, dataverse, design document not found
    **dict.fromkeys((9, 18, 104, 105, 107, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 131, 305, 306),
                    (FailureClass.INVALID_INPUT, False)),  # CAS mismatch, exists already, value too large, a
    # sub-document path or value that does not fit the document, a durability level the bucket cannot give
}


def _couchbase_error(exc: BaseException) -> Classification | None:
    """A Couchbase SDK's ``CouchbaseException`` by its ``error_code`` (:data:`_COUCHBASE_CODES`); ``None`` (the class
    name decides) for a code not in the table."""
    code = _attribute(exc, "error_code")
    if not isinstance(code, int) or isinstance(code, bool) or code not in _COUCHBASE_CODES:
        return None
    failure_class, side_effect = _COUCHBASE_CODES[code]
    return Classification(failure_class, upstream=Upstream("couchbase", str(code)), side_effect_possible=side_effect)


# ArangoDB's error numbers (``errorNum``, https://docs.arangodb.com/stable/develop/error-codes/) whose meaning its HTTP
# status does not carry: an AQL query an operator killed comes as a 410 (it ran, what it wrote may stay: SQLSTATE
# 57's kin), the tool's own query that does not parse or names a function, a variable or a bind parameter there is
# none of as a 400 or a 404 (SQLSTATE class 42's kin: the tool's bug, not the caller's value or a missing record).
_ARANGO_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    1500: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # QUERY_KILLED
    **dict.fromkeys((1501, 1502, 1510, 1512, 1540, 1541, 1550, 1551, 1552),  # QUERY_PARSE, QUERY_EMPTY,
                    # QUERY_VARIABLE_NAME_INVALID, QUERY_VARIABLE_NAME_UNKNOWN, QUERY_FUNCTION_NAME_UNKNOWN,
                    # QUERY_FUNCTION_ARGUMENT_NUMBER_MISMATCH, QUERY_BIND_PARAMETERS_INVALID, _MISSING, _UNDECLARED
                    (FailureClass.UNKNOWN, False)),
}


def _arango_error(exc: BaseException) -> Classification | None:
    """python-arango's ``ArangoServerError``: the error number where :data:`_ARANGO_CODES` knows it better than the
    status, else the HTTP status; the upstream status is the error number either way."""
    number = _attribute(exc, "error_code")
    if not isinstance(number, int) or isinstance(number, bool):
        return _http_status(exc)
    if number in _ARANGO_CODES:
        failure_class, side_effect = _ARANGO_CODES[number]
        return Classification(failure_class, upstream=Upstream("arangodb", str(number), _request_address(exc)),
                              side_effect_possible=side_effect)
    result = _http_status(exc)
    if result is None or result.upstream is None:
        return result
    return replace(result, upstream=replace(result.upstream, system="arangodb", status=str(number)))


# The CQL native protocol's error codes (native_protocol_v4.spec §9, https://github.com/apache/cassandra/blob/trunk/doc/
# native_protocol_v4.spec; ScyllaDB answers the same) -> (class, may the statement have taken effect). The coordinator
# refused it before running it (unavailable: too few replicas alive; overloaded; bootstrapping; a refused login or
# permission; a request it would not take), or ran it and could not say how it ended (a write timeout or failure: the
# spec says some replicas may have applied it; a read timeout, as any timeout on a sent request); a syntax error or a
# misconfigured keyspace is the tool's own statement (SQLSTATE class 42's kin).
_CQL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    0x0000: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # server error
    0x000A: (FailureClass.UNKNOWN, False),  # protocol error: the driver's
    0x0100: (FailureClass.PERMISSION_DENIED, False),  # bad credentials
    **dict.fromkeys((0x1000, 0x1001, 0x1002), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    0x1003: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # truncate error
    **dict.fromkeys((0x1100, 0x1200, 0x1500, 0x1600), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    0x1300: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # read failure
    0x1400: (FailureClass.INVALID_INPUT, False),  # a function failed on the statement's values
    0x2000: (FailureClass.UNKNOWN, False),  # syntax error
    0x2100: (FailureClass.PERMISSION_DENIED, False),  # unauthorized
    0x2200: (FailureClass.INVALID_INPUT, False),  # invalid: the request's values refused
    0x2300: (FailureClass.UNKNOWN, False),  # config error
    0x2400: (FailureClass.INVALID_INPUT, False),  # already exists
    0x2500: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # unprepared: the node forgot the prepared statement
}
# cassandra-driver's own classes for the error messages it converts (``ErrorMessage.to_exception``), which keep no code
_CQL_CLASS_CODES: Final = {"Unavailable": 0x1000, "WriteTimeout": 0x1100, "ReadTimeout": 0x1200, "ReadFailure": 0x1300,
                           "FunctionFailure": 0x1400, "WriteFailure": 0x1500, "CDCWriteFailure": 0x1600,
                           "InvalidRequest": 0x2200, "Unauthorized": 0x2100, "ConfigurationException": 0x2300,
                           "AlreadyExists": 0x2400, "AuthenticationFailed": 0x0100}


def _cql_error(exc: BaseException) -> Classification | None:
    """A CQL server's ERROR as cassandra-driver raises it (:data:`_CQL_CODES`): the error message itself (``.code``,
    ``cassandra.protocol``) or the driver's class for it; its client-side ``OperationTimedOut`` on a sent statement
    may have run (not sent when raised while connecting)."""
    if type(exc).__name__ == "OperationTimedOut":
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("cassandra", "OperationTimedOut"),
                              side_effect_possible=not _raised_connecting(exc, "cassandra"))
    code = _attribute(exc, "code")
    if not isinstance(code, int) or isinstance(code, bool):
        code = next((_CQL_CLASS_CODES[k.__name__] for k in type(exc).__mro__ if k.__name__ in _CQL_CLASS_CODES), None)
    if code not in _CQL_CODES:
        return None
    failure_class, side_effect = _CQL_CODES[code]
    return Classification(failure_class, upstream=Upstream("cassandra", f"{code:04x}"), side_effect_possible=side_effect)


# A Bolt server's status code on its FAILURE message, ``<Vendor>.<classification>.<category>.<title>`` (Neo4j's table,
# https://neo4j.com/docs/status-codes/current/errors/all-errors/; Memgraph answers in the same form): the classification
# says whose fault it is. ClientError: the request as sent (do not send it again as it is), the category and title say
# how; TransientError: the server's state for now, the transaction rolled back (nothing committed); DatabaseError: the
# server failed under the statement. The neo4j driver keeps it as ``.code`` on its ``Neo4jError``.
_BOLT_CODE: Final = re.compile(r"([A-Z][A-Za-z0-9]*)\.(ClientError|TransientError|DatabaseError)\.([A-Za-z]+)\.([A-Za-z]+)")


def _bolt_code(exc: BaseException) -> re.Match[str] | None:
    code = _attribute(exc, "code")
    return _BOLT_CODE.fullmatch(code) if isinstance(code, str) else None


def _bolt_failure(exc: BaseException) -> Classification | None:
    """A Bolt FAILURE's status code (:data:`_BOLT_CODE`): the security category is a refused credential or privilege
    (its rate limit of failed logins a rate limit), a title ending in ``NotFound`` a missing database, entity or
    procedure, the cluster category a member that cannot take the request (a write sent to a follower), as a database
    that is read-only (``ForbiddenOnReadOnlyDatabase``, ``ReadOnly``: a replica, not the caller's right), a terminated
    transaction (``Terminated``, ``LockClientStopped``: an operator's kill, which the driver files as a ClientError)
    the server's state; the request category is the driver's own protocol, no argument of the call; any other
    client error the statement or its parameters (syntax, types, a constraint the data breaks). The upstream status
    is the code's title (``SyntaxError``)."""
    match = _bolt_code(exc)
    if match is None:
        return None
    vendor, kind, category, title = match.groups()
    failure_class, side_effect = FailureClass.UPSTREAM_UNAVAILABLE, False
    if kind == "DatabaseError":
        side_effect = None
    elif "RateLimit" in title:
        failure_class = FailureClass.RATE_LIMITED
    elif (kind == "TransientError" or category == "Cluster" or "ReadOnly" in title
          or title in ("Terminated", "LockClientStopped")):
        pass
    elif category == "Security":
        failure_class = FailureClass.PERMISSION_DENIED
    elif title.endswith("NotFound"):
        failure_class = FailureClass.NOT_FOUND
    elif category == "Request":
        failure_class = FailureClass.UNKNOWN
    else:
        failure_class = FailureClass.INVALID_INPUT
    # the title names the failure within its category (the whole code outgrows a label: 32 characters)
    system = "neo4j" if vendor == "Neo" else vendor.lower()
    return Classification(failure_class, upstream=Upstream(system, title), side_effect_possible=side_effect)


def _cut_off(exc: BaseException) -> Classification:
    # An SDK that files an answered status under its timeout class (geopy's GeocoderTimedOut for a 503, 504 or 408,
    # raised ``from`` the adapter's error that keeps it): nothing ran out here, the status answered; it decides.
    cause = exc.__cause__
    if cause is not None and http_status_of(cause) is not None:
        answered = _http_status(cause)
        if answered is not None:
            return answered
    return (_UNAVAILABLE_NOT_SENT if _cut_off_while_connecting(exc) else _UNAVAILABLE_MAYBE_SENT)(exc)


# Exceptions of optional libraries, matched by "module.qualname" so they are never imported here.
# HTTP clients: the failure before the request left (connect, DNS, TLS handshake, pool) is not
# sent; a timeout or lost connection while waiting for the answer may have been acted on.
_NAMED_RULES: Final[dict[str, Rule]] = {
    "jsonschema.exceptions.ValidationError": _fixed(FailureClass.UNKNOWN),  # data inside the tool, not arguments
    "psycopg_pool.PoolTimeout": _unavailable(False, "postgresql"),
    "psycopg_pool.TooManyRequests": _unavailable(False, "postgresql"),  # its queue of waiters is full: no rate limit
    # Django's errors about the tool's own code and settings, named like a missing row: a field the model class does
    # not have, a database alias not in the settings (a missing row is the model's DoesNotExist)
    **dict.fromkeys(("django.core.exceptions.FieldDoesNotExist", "django.utils.connection.ConnectionDoesNotExist"),
                    _fixed(FailureClass.UNKNOWN, False)),
    # python-gitlab's for an answer that is not the API's JSON (a 2xx login page a proxy served): raised over no
    # decoder error, with no status; as _unusable_success, the upstream's fault, and whether it acted is open
    "gitlab.exceptions.GitlabParsingError": _fixed(FailureClass.UPSTREAM_UNAVAILABLE),
    # aiohttp (https://docs.aiohttp.org/en/stable/client_reference.html#hierarchy-of-exceptions)
    "aiohttp.client_exceptions.ClientConnectorError": _unavailable(False, "http"),  # DNS, refused, TLS
    "aiohttp.client_exceptions.TooManyRedirects": _redirect_loop,  # before its status (a 3xx) is read as one
    "requests.exceptions.TooManyRedirects": _redirect_loop,
    # a URL the client cannot use (no scheme, one it does not speak, no host, control characters): refused before
    # any connection, and no upstream failed; whose URL it was (configuration, an argument) the type does not say
    **dict.fromkeys(("requests.exceptions.MissingSchema", "requests.exceptions.InvalidSchema",
                     "requests.exceptions.InvalidURL", "aiohttp.client_exceptions.InvalidURL",
                     "aiohttp.client_exceptions.NonHttpUrlClientError",
                     "httpx.InvalidURL", "httpx2.InvalidURL", "urllib3.exceptions.LocationValueError",
                     "http.client.InvalidURL"), lambda exc: _UNUSABLE_URL),
    # a successful answer that is not the API's JSON (see _unreadable_answer): aiohttp checks the Content-Type
    # first and keeps the status (an error status carried decides before this rule); requests' own decode error
    "aiohttp.client_exceptions.ContentTypeError": _fixed(FailureClass.UPSTREAM_UNAVAILABLE),
    "requests.exceptions.JSONDecodeError": lambda exc: _unreadable_answer(exc) or _UNKNOWN,
    "aiohttp.client_exceptions.ConnectionTimeoutError": _unavailable(False, "http"),  # incl. waiting for the pool
    "aiohttp.client_exceptions.ServerFingerprintMismatch": _unavailable(False, "http"),
    "aiohttp.client_exceptions.SocketTimeoutError": _unavailable(True, "http"),
    "aiohttp.client_exceptions.ServerTimeoutError": _unavailable(True, "http"),
    "aiohttp.client_exceptions.ServerDisconnectedError": _unavailable(True, "http"),
    "aiohttp.client_exceptions.ClientConnectionResetError": _unavailable(True, "http"),
    "aiohttp.client_exceptions.ClientPayloadError": _unavailable(True, "http"),
    "aiohttp.http_exceptions.HttpProcessingError": _unavailable(True, "http"),  # the answer did not parse
    "aiohttp.client_exceptions.ClientConnectionError": _unavailable(None, "http"),
    # requests (https://requests.readthedocs.io/en/latest/api/#exceptions) wraps urllib3's error in args[0]
    "requests.exceptions.ConnectTimeout": _unavailable(False, "http"),
    "requests.exceptions.SSLError": _unavailable(False, "http"),
    "requests.exceptions.ProxyError": _proxy_error,
    "requests.exceptions.Timeout": _unavailable(True, "http"),  # ReadTimeout
    "requests.exceptions.ChunkedEncodingError": _unavailable(True, "http"),
    "requests.exceptions.ConnectionError": _wrapping(_first_exception_arg, _unavailable(None, "http")),
    # urllib3 (https://urllib3.readthedocs.io/en/stable/reference/urllib3.exceptions.html)
    "urllib3.exceptions.MaxRetryError": _wrapping(lambda exc: getattr(exc, "reason", None), _unavailable(None, "http")),
    # the reason of a MaxRetryError whose Retry's status_forcelist was spent (OpenAPI-generated SDKs: asana's default
    # Retry on 429 and 5xx): the status is only in urllib3's text (ResponseError.SPECIFIC_ERROR), the response gone
    "urllib3.exceptions.ResponseError": lambda exc: _retried_status(exc),
    "googlemaps.exceptions.ApiError": lambda exc: _maps_status(exc),
    "consul.exceptions.ConsulException": lambda exc: _consul_status(exc),
    "consul.exceptions.ACLDisabled": _status_named(401, "http"),
    "consul.exceptions.ACLPermissionDenied": _status_named(403, "http"),
    "consul.exceptions.NotFound": _status_named(404, "http"),
    # kazoo (https://kazoo.readthedocs.io/en/latest/api/exceptions.html): one class per ZooKeeper error code
    "kazoo.exceptions.ZookeeperError": lambda exc: _zookeeper_code(exc),
    "kazoo.exceptions.ConnectionDropped": _unavailable(True, "zookeeper"),
    "kazoo.handlers.threading.KazooTimeoutError": lambda exc: _kazoo_timeout(exc),
    "urllib3.exceptions.NewConnectionError": _unavailable(False, "http"),  # incl. NameResolutionError
    "urllib3.exceptions.ConnectTimeoutError": _unavailable(False, "http"),
    "urllib3.exceptions.EmptyPoolError": _unavailable(False, "http"),
    "urllib3.exceptions.SSLError": _unavailable(False, "http"),
    "urllib3.exceptions.ProxyError": _proxy_error,
    "urllib3.exceptions.TimeoutError": _unavailable(True, "http"),  # ReadTimeoutError
    # the connection dropped mid-answer, unless the error it wraps says it never opened (a Unix socket not there)
    "urllib3.exceptions.ProtocolError": _wrapping(_first_exception_arg, _unavailable(True, "http")),
    "urllib3.exceptions.DecodeError": _unavailable(True, "http"),
    # httpcore / httpcore2, should one escape the client that wraps them
    **{f"{lib}.{name}": _http_transport_error for lib in ("httpcore", "httpcore2") for name in (
        "ConnectionNotAvailable", "ProxyError", "UnsupportedProtocol", "ProtocolError", "TimeoutException",
        "NetworkError")},
    # grpcio (https://grpc.github.io/grpc/python/grpc.html#grpc.RpcError): by its status code
    "grpc.RpcError": _grpc_error,
    # websockets (https://websockets.readthedocs.io/en/stable/reference/exceptions.html): a failed
    # opening handshake sent nothing; a connection closed under a call leaves the message's fate open
    # (the type does not say whether it was a send or a receive: assume it may have been acted on).
    "websockets.exceptions.InvalidHandshake": _unavailable(False, "websocket"),
    "websockets.exceptions.ConnectionClosed": _websocket_closed(lambda exc: getattr(exc.rcvd, "code", None)),
    # websocket-client (https://websocket-client.readthedocs.io/en/latest/exceptions.html): the same two
    # facts; a handshake answered without an error status (a 200 from a plain HTTP server) sent nothing.
    "websocket._exceptions.WebSocketBadStatusException": _unavailable(False, "websocket"),
    "websocket._exceptions.WebSocketConnectionClosedException": _unavailable(True, "websocket"),
    # httpx-ws (https://frankie567.github.io/httpx-ws/reference/httpx_ws/) and aiohttp: the same two facts; a
    # refused upgrade carries its status (that decides), a closed connection its close code.
    "httpx_ws._exceptions.WebSocketUpgradeError": _unavailable(False, "websocket"),
    "httpx_ws._exceptions.WebSocketDisconnect": _websocket_closed(lambda exc: exc.code),
    # the stream under an open session failed (closed, a keepalive ping unanswered): its cause decides, else open
    "httpx_ws._exceptions.WebSocketNetworkError": _wrapping(lambda exc: exc.__cause__ or exc.__context__,
                                                            _unavailable(True, "websocket")),
    "aiohttp.client_exceptions.WSServerHandshakeError": _unavailable(False, "websocket"),
    # aiohttp's receive_str/receive_json got another kind of frame: the peer's CLOSE (its code is not kept) or
    # data of the wrong type; either way the peer did not answer as the protocol agreed
    "aiohttp.client_exceptions.WSMessageTypeError": _unavailable(None, "websocket"),
    # nats-py (https://nats-io.github.io/nats.py/modules.html#errors): no server could be connected to; a request
    # nobody subscribes to (the server's 503 "no responders" status): no service received it
    "nats.errors.NoServersError": _unavailable(False, "nats"),
    "nats.errors.NoRespondersError": _unavailable(False, "nats"),
    # gql: the server answered something that is not a GraphQL response (an HTML page with a 200)
    "gql.transport.exceptions.TransportProtocolError": _unavailable(None, "graphql"),
    # anyio (https://anyio.readthedocs.io/en/stable/api.html#exceptions): BrokenResourceError is a stream broken
    # from outside: its cause (a reset, a refused write), when it has one, decides and is the root.
    "anyio.BrokenResourceError": lambda exc: None if exc.__cause__ is not None else _UNAVAILABLE(exc),
    # SQLAlchemy: waiting for a connection of its pool (QueuePool's timeout); its DB-API wrappers
    # keep the driver's error as .orig (see _dbapi)
    "sqlalchemy.exc.TimeoutError": _unavailable(False, "db"),
    # SQLAlchemy's ORM (https://docs.sqlalchemy.org/en/20/orm/exceptions.html): an UPDATE/DELETE of the unit of
    # work matched fewer rows than it named (another writer changed the row's version or removed it: a conflict
    # with the row's current state, HTTP's 409/412), nothing written; an expired object whose row is gone on
    # refresh; an object used outside any session (the tool's own bug: no statement was sent).
    "sqlalchemy.orm.exc.StaleDataError": _fixed(FailureClass.INVALID_INPUT, False),
    "sqlalchemy.orm.exc.ObjectDeletedError": _fixed(FailureClass.NOT_FOUND, False),
    "sqlalchemy.orm.exc.DetachedInstanceError": _fixed(FailureClass.UNKNOWN, False),
    # ... and its schema errors: a table, column or referenced table the tool's code names is not there (PostgreSQL's
    # 42P01/42703, our bug), for all that their names say "NoSuch"; a lookup of the model's key is NoResultFound
    **dict.fromkeys((f"sqlalchemy.exc.{name}" for name in (
        "NoSuchTableError", "NoSuchColumnError", "NoReferencedTableError", "NoReferencedColumnError",
        "NoSuchModuleError")), _fixed(FailureClass.UNKNOWN, False)),
    # Celery's task ends as AsyncResult.get() re-raises them (https://docs.celeryq.dev/en/stable/reference/
    # celery.exceptions.html): the worker killed the task at its time limit, or the worker's process died under it
    # (billiard's): it ran and may have acted; revoked (cancelled) before or while it ran: its fate is open.
    **dict.fromkeys(("billiard.exceptions.TimeLimitExceeded", "billiard.exceptions.SoftTimeLimitExceeded",
                     "billiard.exceptions.WorkerLostError"), _unavailable(True, "celery")),
    "celery.exceptions.TaskRevokedError": _unavailable(None, "celery"),
    # botocore refusing before it signs or sends (https://docs.aws.amazon.com/boto3/latest/guide/error-handling.html):
    # no credential to present (as a 401 without one), parameters the service model rejects, no region (the tool's
    # own configuration or code)
    **dict.fromkeys(("botocore.exceptions.NoCredentialsError", "botocore.exceptions.PartialCredentialsError",
                     # ... the named profile to take them from is not configured (boto3.Session(profile_name=...))
                     "botocore.exceptions.ProfileNotFound"),
                    _fixed(FailureClass.PERMISSION_DENIED, False)),
    # google-auth finding no credential at all (google.auth.default() without Application Default Credentials): as
    # botocore's NoCredentialsError, nothing was sent (https://googleapis.dev/python/google-auth/latest/reference/
    # google.auth.exceptions.html)
    "google.auth.exceptions.DefaultCredentialsError": _fixed(FailureClass.PERMISSION_DENIED, False),
    # Chroma Cloud's quotas are limits on a request's size and a collection's (records per write, document bytes,
    # embedding dimensions, https://docs.trychroma.com/cloud/quotas-limits), no usage spent over time: a smaller
    # request fits, waiting does not help
    "chromadb.errors.QuotaError": _fixed(FailureClass.INVALID_INPUT, False),
    # ... or holding one it cannot renew: a RefreshError of its own words only (no token endpoint's answer among its
    # arguments, no failure under it: an access token without a refresh token, "Reauthentication is needed"), raised
    # when the upstream refused the token (401) or before sending with an expired one; an endpoint's answer decides
    # (a status or an error document in its words, as for any rule-less type)
    "google.auth.exceptions.RefreshError": lambda exc: (
        Classification(FailureClass.PERMISSION_DENIED, side_effect_possible=False)
        if len(exc.args) == 1 and isinstance(exc.args[0], str) and exc.__cause__ is None and exc.__context__ is None
        else _status_in_text(exc) or _error_document(exc)),
    **dict.fromkeys(("botocore.exceptions.ParamValidationError", "botocore.exceptions.NoRegionError"),
                    _fixed(FailureClass.UNKNOWN, False)),
    # the bulk helpers of Elasticsearch and OpenSearch: each failed item's own status (_bulk_item_refused)
    "elasticsearch.helpers.BulkIndexError": _bulk_item_refused,
    "opensearchpy.helpers.errors.BulkIndexError": _bulk_item_refused,
    # scan (raise_on_error) over an answer from fewer shards than the index has: part of it could not be read
    **dict.fromkeys(("elasticsearch.helpers.ScanError", "opensearchpy.helpers.errors.ScanError"),
                    _unavailable(False, "elasticsearch")),
    # redis-py (https://redis.readthedocs.io/en/stable/exceptions.html) and its fork valkey-py (the same classes under
    # valkey.exceptions): errors the server replied are refusals (the command did not run); a timeout may have left
    # it applied.
    **{f"{library}.exceptions.{name}": rule for library in ("redis", "valkey") for name, rule in (
        ("AuthenticationError", _fixed(FailureClass.PERMISSION_DENIED, False)),
        ("AuthorizationError", _fixed(FailureClass.PERMISSION_DENIED, False)),
        ("NoPermissionError", _fixed(FailureClass.PERMISSION_DENIED, False)),
        ("MaxConnectionsError", _unavailable(False, "redis")),
        ("BusyLoadingError", _unavailable(False, "redis")),
        ("ReadOnlyError", _unavailable(False, "redis")),
        ("OutOfMemoryError", _unavailable(False, "redis")),
        ("TryAgainError", _unavailable(False, "redis")),
        ("ClusterDownError", _unavailable(False, "redis")),
        ("WatchError", _unavailable(False, "redis")),
        ("TimeoutError", _unavailable(True, "redis")),
        ("ResponseError", _redis_reply),  # WRONGTYPE, bad arguments: our bug; BUSY, MISCONF: the server's state
        # raised from the socket error it replaces: refused or unresolvable (not sent), reset (maybe sent)
        # raised by the pool itself, over no socket error (valkey's "Too many connections"): no connection to send on
        ("ConnectionError", _wrapping(lambda exc: exc.__context__, lambda exc: _unavailable(
            False if _raised_by_pool(exc) else None, "redis")(exc))))},
    # azure-core (https://learn.microsoft.com/python/api/azure-core/azure.core.exceptions): its requests transport
    # raises outside the except block (no chain), where the class is what tells "no request was sent" from "the
    # request was sent, but the client failed to understand the response"; its aiohttp transport raises ``from`` the
    # aiohttp error, and files every ClientError but a response's under ServiceRequestError, a reset after sending
    # too: there the cause knows.
    "azure.core.exceptions.ServiceRequestError": _delivery_from_cause(_unavailable(False, "http")),
    "azure.core.exceptions.ServiceResponseError": _delivery_from_cause(_unavailable(True, "http")),
    # pymongo (https://pymongo.readthedocs.io/en/stable/api/pymongo/errors.html): no server could be
    # selected (refused, unresolvable, not answering the handshake) or no pooled connection freed up:
    # nothing was sent; a timeout on an open connection may have run; a lost connection does not say.
    "pymongo.errors.ServerSelectionTimeoutError": _unavailable(False, "mongodb"),
    "pymongo.errors.WaitQueueTimeoutError": _unavailable(False, "mongodb"),
    "pymongo.errors.NetworkTimeout": _unavailable(True, "mongodb"),
    "pymongo.errors.ConnectionFailure": _unavailable(None, "mongodb"),
    # a command the server answered with an error document: its code says which (_MONGODB_CODES)
    "pymongo.errors.OperationFailure": _mongodb_code,
    # pika (https://pika.readthedocs.io/en/stable/modules/exceptions.html): AMQPConnectionError is what
    # BlockingConnection raises when it cannot open the connection (its connector's errors likewise);
    # a connection closed once open leaves a publish's fate open; the broker refusing the login is a denial.
    "pika.exceptions.AMQPConnectionError": _unavailable(False, "amqp"),
    "pika.adapters.utils.connection_workflow.AMQPConnectorException": _unavailable(False, "amqp"),
    "pika.exceptions.ConnectionClosed": _unavailable(None, "amqp"),
    "pika.exceptions.StreamLostError": _unavailable(None, "amqp"),
    "pika.exceptions.ProbableAuthenticationError": _fixed(FailureClass.PERMISSION_DENIED, False),
    "pika.exceptions.ProbableAccessDeniedError": _fixed(FailureClass.PERMISSION_DENIED, False),
    # paramiko (https://docs.paramiko.org/en/stable/api/ssh_exception.html): every address refused the
    # connection (the socket errors are in .errors); SSHException is the protocol failing (a peer that
    # closes or never sends the banner); AuthenticationException, a subclass, the login refused.
    "paramiko.ssh_exception.NoValidConnectionsError": _wrapping(_first_address_error, _unavailable(False, "ssh")),
    "paramiko.ssh_exception.AuthenticationException": _fixed(FailureClass.PERMISSION_DENIED, False),
    "paramiko.ssh_exception.SSHException": _unavailable_unless_connecting("ssh"),  # SSHClient.connect: no session
    # asyncssh: the SSH disconnect reason it keeps as .code (_SSH_DISCONNECT_REASONS)
    "asyncssh.misc.DisconnectError": _ssh_disconnect,
    # asyncssh's SFTP client: one SFTPError subclass per SFTP status, the status kept as .code (_SFTP_STATUSES)
    "asyncssh.sftp.SFTPError": _sftp_status,
    # cassandra-driver (https://docs.datastax.com/en/developer/python-driver/latest/api/cassandra/): no host could
    # take the request, each host's error in .errors (the first decides); no contact point resolved: nothing sent
    "cassandra.cluster.NoHostAvailable": _never_sent_when_connecting(
        _wrapping(_first_address_error, _unavailable(None, "cassandra")), "cassandra"),
    "cassandra.UnresolvableContactPoints": _unavailable(False, "cassandra"),
    # the Couchbase SDK's error codes (_COUCHBASE_CODES)
    "couchbase.exceptions.CouchbaseException": _couchbase_error,
    # python-arango: ArangoDB's error number, then the status (_ARANGO_CODES)
    "arango.exceptions.ArangoServerError": _arango_error,
    # the CQL server's ERROR frames and the driver's classes for them (_CQL_CODES)
    **dict.fromkeys(("cassandra.protocol.ErrorMessage", "cassandra.DriverException"), _cql_error),
    # neo4j (https://neo4j.com/docs/api/python-driver/current/api.html#errors): no server could be reached or a
    # connection failed; raised inside the driver's connect, the Bolt handshake never completed: nothing sent
    "neo4j.exceptions.ServiceUnavailable": _delivery_from_cause(_unavailable_unless_connecting("neo4j"), open_only=True),
    # ldap3 (https://ldap3.readthedocs.io/en/latest/exceptions.html): the socket could not be opened
    # (refused, unresolvable): nothing sent; other communication errors leave it open.
    "ldap3.core.exceptions.LDAPSocketOpenError": _unavailable(False, "ldap"),
    "ldap3.core.exceptions.LDAPCommunicationError": _unavailable(None, "ldap"),
    # SMTP clients: the server's reply code decides (see _smtp_class); the standard library's and
    # aiosmtplib's. aiosmtplib calls it .code: the rule reads it as SMTP, not as an HTTP status.
    "smtplib.SMTPResponseException": _smtp_reply(lambda exc: (exc.smtp_code, exc.smtp_error)),
    "smtplib.SMTPRecipientsRefused": _smtp_reply(lambda exc: next(iter(exc.recipients.values()), (None, ""))),
    "smtplib.SMTPServerDisconnected": _unavailable(None, "smtp"),
    # The greeting was not a 220 (RFC 5321 §3.1: 554 "no SMTP service here", 421 closing), or was no SMTP reply at
    # all (code -1: the port speaks another protocol): the server took no mail, whatever the code's own class.
    "smtplib.SMTPConnectError": _smtp_connect,
    "aiosmtplib.errors.SMTPResponseException": _smtp_reply(lambda exc: (exc.code, exc.message)),
    "aiosmtplib.errors.SMTPRecipientsRefused": _smtp_reply(
        lambda exc: (exc.recipients[0].code, exc.recipients[0].message) if exc.recipients else (None, "")),
    "aiosmtplib.errors.SMTPConnectError": _unavailable(False, "smtp"),
    # XML-RPC (the standard library's client): a fault by its code; a ProtocolError is an HTTP status (errcode)
    "xmlrpc.client.Fault": _xmlrpc_fault,
    # FTP clients: the reply code decides (_ftp_class); ftplib's text starts with it, aioftp keeps the codes
    **dict.fromkeys(("ftplib.error_reply", "ftplib.error_temp", "ftplib.error_perm"),
                    _ftp_reply(lambda exc: exc.args[0] if exc.args else "")),
    "ftplib.error_proto": _unavailable(None, "ftp"),
    "aioftp.errors.StatusCodeError": _ftp_reply(lambda exc: exc.received_codes[-1] if exc.received_codes else ""),
    # imaplib, poplib: the reply's response code; imaplib's abort is the connection failing
    "imaplib.IMAP4.error": _response_code(_IMAP_CODES, "imap"),
    "imaplib.IMAP4.abort": _unavailable(None, "imap"),
    "poplib.error_proto": _response_code(_POP_CODES, "pop3"),
    # zeep (https://docs.python-zeep.org/en/master/api.html#zeep.exceptions.Fault): a SOAP fault by its codes
    "zeep.exceptions.Fault": _soap_fault,
    # forward proxies refusing the tunnel: python-socks (httpx-socks, aiohttp-socks) keep the proxy's code;
    # aiohttp keeps the status of its CONNECT
    "python_socks._errors.ProxyError": _proxy_error_code,
    "aiohttp_socks._errors.ProxyError": _proxy_error_code,
    "aiohttp.client_exceptions.ClientHttpProxyError": _proxy_status,
    # aiomqtt (over paho-mqtt): the broker's reason code or paho's own error code, kept as .rc
    "aiomqtt.exceptions.MqttCodeError": _mqtt_code,
    # pyzmq (https://pyzmq.readthedocs.io/en/latest/api/zmq.html#exceptions): a POSIX errno on a non-OSError
    "zmq.error.ZMQError": _zmq_error,
    # pycurl: libcurl's error number (args[0])
    "pycurl.error": _curl_error,
    # dnspython (https://dnspython.readthedocs.io/en/stable/exceptions.html): the name or the record
    # does not exist (an authoritative answer: a tool looking a name up found none); no server answered
    # usefully (SERVFAIL, REFUSED: the exception holds several servers' answers); a query sent, unanswered.
    "dns.resolver.NXDOMAIN": _fixed(FailureClass.NOT_FOUND, False),
    "dns.resolver.NoAnswer": _fixed(FailureClass.NOT_FOUND, False),
    "dns.resolver.NoNameservers": _unavailable(None, "dns"),
    "dns.exception.Timeout": _unavailable(True, "dns"),
    # pymemcache: the server closed the connection before answering the command it was sent; the server's
    # SERVER_ERROR ("prevents the server from carrying out the command", memcached's protocol.txt) and
    # CLIENT_ERROR (a command that does not conform: our bug, like the library's own key checks) did nothing
    "pymemcache.exceptions.MemcacheUnexpectedCloseError": _unavailable(True, "memcached"),
    "pymemcache.exceptions.MemcacheServerError": _unavailable(False, "memcached"),
    "pymemcache.exceptions.MemcacheClientError": _fixed(FailureClass.UNKNOWN, False),
    # aiormq (aio-pika's transport): failing to open the connection sent nothing; once open, a lost one does not say
    "aiormq.exceptions.AMQPConnectionError": _unavailable_unless_connecting("amqp"),
    # anyio's byte streams: the peer closed before answering
    "anyio.EndOfStream": _socket_stream_end,
    # DuckDB (in process; https://duckdb.org/docs/stable/clients/python/dbapi#exceptions): no error code, its classes
    # are its error types. A setting that forbids the file or network access (enable_external_access) is a refusal
    # as PostgreSQL's 42501; an interrupted statement, a transaction conflict and memory exhausted abort the statement
    # or roll the transaction back (PostgreSQL's 57014, 40001, 53200).
    **{f"_duckdb.{name}": rule for name, rule in (
        ("PermissionException", _fixed(FailureClass.PERMISSION_DENIED, False)),
        ("InterruptException", _unavailable(False, "duckdb")),
        ("TransactionException", _unavailable(False, "duckdb")),
        ("OutOfMemoryException", _unavailable(False, "duckdb")))},
    # mysql-connector-python's own timeouts and pool (https://dev.mysql.com/doc/connector-python/en/
    # connector-python-api-errors.html), outside PEP 249's classes: connecting timed out (not sent), reading the
    # answer or writing the statement timed out (sent, or part of it: the connection is closed), no pooled
    # connection free (not sent)
    "mysql.connector.errors.ConnectionTimeoutError": _unavailable(False, "mysql"),
    "mysql.connector.errors.ReadTimeoutError": _unavailable(True, "mysql"),
    "mysql.connector.errors.WriteTimeoutError": _unavailable(True, "mysql"),
    "mysql.connector.errors.PoolError": _unavailable(False, "mysql"),
    # confluent-kafka (librdkafka): the KafkaError it carries (the C extension names its module cimpl)
    "cimpl.KafkaException": _kafka_error,
    # simple-salesforce: an external id that matches several records (Salesforce's 300 Multiple Choices, no error
    # status): the call's key is ambiguous, nothing was read or written
    "simple_salesforce.exceptions.SalesforceMoreThanOneRecord": _fixed(FailureClass.INVALID_INPUT, False),
    # python-telegram-bot (https://docs.python-telegram-bot.org/en/stable/telegram.error.html): one class per Bot API
    # status, none kept (BaseRequest._request_wrapper); InvalidToken is its 401 and its 404 (a malformed token);
    # RetryAfter and ChatMigrated are the answer's parameters (flood control; the group's new id: the call named a
    # stale chat). NetworkError is any other status (a 5xx: whether it acted is open), or httpx's error it was raised
    # from (TimedOut too), which then decides; the base class raised from a decode error: no Bot API answer.
    **{f"telegram.error.{name}": _status_named(status, "telegram") for name, status in (
        ("BadRequest", 400), ("Forbidden", 403), ("Conflict", 409))},
    "telegram.error.InvalidToken": _fixed(FailureClass.PERMISSION_DENIED, False),
    "telegram.error.RetryAfter": lambda exc: Classification(FailureClass.RATE_LIMITED, retry_after=_telegram_wait(exc),
                                                            side_effect_possible=False),
    "telegram.error.ChatMigrated": _fixed(FailureClass.INVALID_INPUT, False),
    "telegram.error.EndPointNotFound": _fixed(FailureClass.UNKNOWN, False),  # a Bot API method our code named
    "telegram.error.NetworkError": lambda exc: None if exc.__cause__ is not None else _unavailable(None, "telegram")(exc),
    "telegram.error.TelegramError": lambda exc: (_unavailable(None, "telegram")(exc)
                                                 if isinstance(exc.__cause__, ValueError) else None),
    "dropbox.exceptions.ApiError": _dropbox_api_error,
    "prawcore.exceptions.Redirect": _reddit_redirect,
    # wikipedia (the MediaWiki API client): a title that names no page; one that names several (a disambiguation
    # page: the caller picks one of its options); any other API error keeps only MediaWiki's ``info`` text
    "wikipedia.exceptions.PageError": _fixed(FailureClass.NOT_FOUND, False),
    "wikipedia.exceptions.DisambiguationError": _fixed(FailureClass.INVALID_INPUT, False),
    "wikipedia.exceptions.WikipediaException": _upstream_words("error"),
    # youtube-transcript-api (its _errors module): one class per cause, no status kept. A video that is not there is
    # VideoUnavailable (not an outage, whatever the word says); no transcript, none in the languages asked, no such
    # translation: not there; a URL given for the id; an account age check; YouTube blocking this IP (its bot
    # detection, a 429, a reCAPTCHA page) as a rate limit; an answer it could not read (the upstream's, acted open).
    # YouTubeRequestFailed has its own rule-free class: the requests HTTPError it was raised over decides.
    **{f"youtube_transcript_api._errors.{name}": _fixed(failure_class, side_effect)
       for name, failure_class, side_effect in (
        ("VideoUnavailable", FailureClass.NOT_FOUND, False),
        ("TranscriptsDisabled", FailureClass.NOT_FOUND, False),
        ("NoTranscriptFound", FailureClass.NOT_FOUND, False),
        ("TranslationLanguageNotAvailable", FailureClass.NOT_FOUND, False),
        ("InvalidVideoId", FailureClass.INVALID_INPUT, False),
        ("NotTranslatable", FailureClass.INVALID_INPUT, False),
        ("AgeRestricted", FailureClass.PERMISSION_DENIED, False),
        ("RequestBlocked", FailureClass.RATE_LIMITED, False),
        ("YouTubeDataUnparsable", FailureClass.UPSTREAM_UNAVAILABLE, None),
    )},
    # trino-python-client (https://github.com/trinodb/trino-python-client): a failed query by its error name and
    # type, before the DB-API classes it also derives from; a refused HTTP answer keeps its status only in its text
    "trino.exceptions.TrinoQueryError": _trino_error,
    "trino.exceptions.HttpError": _status_in_message,
    # GitPython (https://gitpython.readthedocs.io/en/stable/reference.html#module-git.exc): a git command's failure
    # is in git's words (see _program_failure); a path that is no repository (its missing path is a
    # FileNotFoundError-like NoSuchPathError), and gitdb's name or object that resolves to nothing, name what the
    # call asked for: not there, nothing done
    **dict.fromkeys(("git.exc.GitCommandError", "sh.ErrorReturnCode", "plumbum.commands.processes.ProcessExecutionError",
                     "invoke.exceptions.UnexpectedExit"), _program_failure),
    # the same timeout in sh, plumbum and invoke (Fabric): the program ran until it was killed
    **dict.fromkeys(("sh.TimeoutException", "plumbum.commands.processes.ProcessTimedOut",
                     "invoke.exceptions.CommandTimedOut"), _unavailable(True)),
    # sh's and plumbum's for a program not on the PATH: as subprocess's FileNotFoundError, a program that cannot start
    **dict.fromkeys(("sh.CommandNotFound", "plumbum.commands.processes.CommandNotFound"), _unavailable(False)),
    **dict.fromkeys(("git.exc.InvalidGitRepositoryError", "gitdb.exc.BadName", "gitdb.exc.BadObject"),
                    _fixed(FailureClass.NOT_FOUND, False)),
    # pymilvus: Milvus's own error codes (_milvus_error); its check of the arguments before sending (our call)
    "pymilvus.exceptions.MilvusException": _milvus_error,
    "pymilvus.exceptions.ParamError": _fixed(FailureClass.UNKNOWN, False),
    # hvac (HashiCorp Vault): one class per status (hvac.utils.raise_for_error), no status kept
    **{f"hvac.exceptions.{name}": _status_named(status, "vault") for name, status in (
        ("InvalidRequest", 400), ("Unauthorized", 401), ("Forbidden", 403), ("InvalidPath", 404),
        ("PreconditionFailed", 412), ("RateLimitExceeded", 429), ("InternalServerError", 500),
        ("VaultNotInitialized", 501), ("BadGateway", 502), ("VaultDown", 503))},
}

_OWN_CODE_RULES: Final = frozenset(
    _NAMED_RULES[name] for name in ("smtplib.SMTPResponseException", "aiosmtplib.errors.SMTPResponseException",
                                    "pymilvus.exceptions.MilvusException",
                                    "arango.exceptions.ArangoServerError",
                                    "aiohttp.client_exceptions.ClientHttpProxyError", *_HTTP_PARSE_ERRORS)
)
"""Rules that read a protocol's own reply code, or know the status-shaped code is no server's (a client parser's):
an attribute shaped like an HTTP status is not one there."""

_REGISTERED: dict[type[BaseException], Rule] = {ToolFailure: _tool_failure}
"""What an author said: the errscope family and :func:`register`'s types. They win over everything."""

_RULES: dict[type[BaseException], Rule] = {
    httpx.TransportError: _http_transport_error,
    httpx2.TransportError: _http_transport_error,
    httpx.TooManyRedirects: _redirect_loop,
    httpx2.TooManyRedirects: _redirect_loop,
    pydantic.ValidationError: _pydantic_validation,
    json.JSONDecodeError: _unreadable_answer,  # by where it arose: an HTTP client's Response.json()
    MCPError: _mcp_error,
    ToolError: _mcp_tool_error,
    # The standard library.
    TimeoutError: _cut_off,  # the stack it was raised from tells a connect from a wait for the answer
    ConnectionRefusedError: _UNAVAILABLE_NOT_SENT,
    ConnectionResetError: _UNAVAILABLE_MAYBE_SENT,
    ConnectionAbortedError: _UNAVAILABLE_MAYBE_SENT,
    BrokenPipeError: _UNAVAILABLE_MAYBE_SENT,
    ConnectionError: _connection_error,
    socket.gaierror: _UNAVAILABLE_NOT_SENT,  # the name did not resolve
    ssl.SSLCertVerificationError: _UNAVAILABLE_NOT_SENT,
    ssl.SSLError: _UNAVAILABLE,
    asyncio.CancelledError: _cut_off,  # the awaited work was cut off midway
    concurrent.futures.CancelledError: _UNAVAILABLE_NOT_SENT,  # Future.cancel() succeeds only before it runs
    asyncio.IncompleteReadError: _UNAVAILABLE_MAYBE_SENT,  # the peer closed mid-answer
    http.client.IncompleteRead: _UNAVAILABLE_MAYBE_SENT,
    http.client.BadStatusLine: _UNAVAILABLE_MAYBE_SENT,  # incl. RemoteDisconnected
    # urllib wraps only what fails while connecting and sending (AbstractHTTPHandler.do_open); a
    # failure while waiting for the answer is raised bare.
    # Its reason is the socket error, or a text (ftp: URLError("ftp error: ...") raised over ftplib's reply).
    urllib.error.URLError: _never_sent(_wrapping(_reason_or_chain, _UNKNOWN_RULE)),
    EOFError: _eof,
    subprocess.CalledProcessError: _program_failure,
    # a program killed when its time ran out had started and was running: it may have acted (DESIGN: a timeout)
    subprocess.TimeoutExpired: _UNAVAILABLE_MAYBE_SENT,
    PermissionError: _file_or_program(FailureClass.PERMISSION_DENIED),
    FileNotFoundError: _file_or_program(FailureClass.NOT_FOUND),
    OSError: _os_error,
    BaseExceptionGroup: _defer,
}


def register(exc_type: type[BaseException], rule: FailureClass | Rule) -> None:
    """Teach :func:`classify` an exception type of your own.

    Args:
        exc_type: the exception class; subclasses match too, the most specific registration wins.
        rule: a :class:`FailureClass`, or a callable ``(exc) -> Classification | None`` where
            ``None`` defers to the exception's ``__cause__``.
    """
    _REGISTERED[exc_type] = _fixed(rule) if isinstance(rule, FailureClass) else rule


def _lookup(exc: BaseException) -> Rule | None:
    """The rule for ``exc`` itself (not its chain). Along the MRO, the most specific class with a
    rule decides: what an author registered as is; a table rule gives way to what the exception
    carries from the upstream (an AWS error code, an HTTP status: they say more than the type, e.g.
    urllib's HTTPError is a URLError, websockets' InvalidStatus an InvalidHandshake), except a rule
    that reads a protocol's own code (``_OWN_CODE_RULES``: an SMTP reply code is no HTTP status).
    Without any class rule: that carried status, else a database's SQLSTATE on a type outside PEP
    249's names (asyncpg)."""
    carried = (_oauth_error if _oauth_code(exc) is not None else _api_error if _api_code(exc) is not None
               else _http_status if http_status_of(exc) is not None
               else _grpc_status if _grpc_status_name(exc) is not None
               else _tls_refusal if _peer_tls_alert(exc) is not None
               else _ntstatus_error if _ntstatus_of(exc) is not None
               else _bolt_failure if _bolt_code(exc) is not None else None)
    for klass in type(exc).__mro__:
        rule = _REGISTERED.get(klass)
        if rule is not None:
            return rule
        rule = _RULES.get(klass)
        if rule is None and klass.__module__ != "builtins":
            rule = _NAMED_RULES.get(f"{klass.__module__}.{klass.__qualname__}")
            if rule is None and carried is not _bolt_failure:  # neo4j's DatabaseError is a Bolt code's, no PEP 249's
                rule = _DBAPI_RULES.get(klass.__name__)
        if rule is not None:
            # A driver's ``code`` is the database's (ClickHouse's 516 is no HTTP status); its own rule reads it.
            own_code = rule in _OWN_CODE_RULES or _DBAPI_RULES.get(klass.__name__) is rule
            return rule if own_code else carried or rule
    if carried is not None:
        return carried
    if _sqlstate(exc) is not None:
        return _DB_CODE
    # GitPython's lookups answer a missing path in a tree (KeyError), a head or tag (IndexError) with the builtin:
    # raised in its own code, it is the repository's answer (not there, nothing done), not the tool's bug
    if isinstance(exc, LookupError) and raised_in(exc, "git"):
        return _NOT_THERE
    # An HTTP error status an SDK or a tool kept only in its message ("Request failed with status code 429: {...}":
    # exa-py; "API request failed with status 404"): that status, as if carried.
    if _status_in_text(exc) is not None:
        return _status_in_text
    # Last, for a type no rule knows: an API's JSON error document as its message (``RuntimeError(response.text)``)
    # or an API error code named in it (``RuntimeError(f"Slack API error: {code}")``), else a 2xx status it carries (an SDK that got an answer it could not use).
    if _error_document(exc) is not None:
        return _error_document
    return _unusable_success if _success_status_of(exc) is not None else None


def _success_status_of(exc: BaseException) -> int | None:
    """A 2xx status an exception with no rule of its own carries (``status_code``/``status``, or its response's):
    an SDK that got a successful answer and could not use it (Speakeasy's ``ResponseValidationError`` and
    ``SDKError``: mistralai; OpenAI's ``APIResponseValidationError``)."""
    for owner in (exc, _attribute(exc, "response"), _attribute(exc, "raw_response")):
        if owner is None or isinstance(owner, Mapping):
            continue
        for name in ("status_code", "status"):
            value = _attribute(owner, name)
            if isinstance(value, int) and not isinstance(value, bool) and 200 <= value <= 299:
                return value
    return None


def _unusable_success(exc: BaseException) -> Classification:
    # The upstream answered 2xx with what is not its API's answer (a body the SDK's schema rejects, an HTML page):
    # the upstream's fault, as _unreadable_answer; the page may be an intermediary's, so whether it acted is open.
    status = _success_status_of(exc)
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("http", str(status),
                                                                             _request_address(exc)))


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
            pending.extend(reversed(current.exceptions))  # depth first, first member first
    return chain


def _held_failure(exc: BaseException) -> BaseException | None:
    """The exception the frame that raised ``exc`` still held, when ``exc`` has no chain: the implicit cause PEP 3134
    would have recorded had ``exc`` been raised inside the ``except`` block that caught it.

    A hand-written retry loop keeps the last failure (``except httpx.TransportError as exc: last = exc``) and raises
    its own ``RuntimeError`` after the loop; a tool that awaited a background task reads ``task.exception()`` and
    raises its own (it holds the task); one that gathered its jobs with ``return_exceptions=True`` holds them in a list.
    Only an exception that was itself raised (it has a traceback) and is not ``exc``, held by a local of the raising
    frame, as the failure of a future or task held there, or as an item of a list, tuple or set there (``asyncio.wait``'s
    ``done``), counts; the last such local wins (the most recent failure in a loop), and in a collection its first
    failure.
    """
    if isinstance(exc, _PROGRAMMING_ERRORS):
        # the tool's own bug (a typo, a wrong type) is no report of what it held: it stays unknown, its own gap
        return None
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    try:
        values = list(tb.tb_frame.f_locals.values())
    except Exception:  # a frame whose locals cannot be read says nothing
        return None

    def failure(value: object) -> BaseException | None:
        if isinstance(value, asyncio.Future | concurrent.futures.Future):  # a task or job that ended in a failure
            value = value.exception() if value.done() and not value.cancelled() else None
        raised = isinstance(value, Exception) and value is not exc and value.__traceback__ is not None
        return value if raised else None  # type: ignore[return-value]

    for value in reversed(values):
        held = failure(value)
        if held is None and isinstance(value, list | tuple | set | frozenset):
            held = next((found for item in list(value)[:64] if (found := failure(item)) is not None), None)
        if held is not None:
            return held
    return None


def classify(exc: BaseException) -> Classification:
    """Map any exception onto exactly one failure class, with what else it tells (see module table).

    Walks the chain (:func:`walk`); never raises.
    """
    return explain(exc)[0]


def explain(exc: BaseException) -> tuple[Classification, BaseException]:
    """Like :func:`classify`, also returning the root cause: the innermost meaningful exception.

    The class is decided by the first exception along :func:`walk` whose rule answers; wrappers
    (rules that return ``None``: ``UnexpectedToolError``, FastMCP's ``ToolError``, exception
    groups, SQLAlchemy's over the driver's error) defer inwards. When no rule answers anywhere,
    the words the chain's exception types are named with decide (``_by_name``), else ``unknown``.

    The root cause is the innermost meaningful exception below the decision, whether or not a rule
    matched it: ``UnexpectedToolError("Error executing tool x")`` says nothing, the
    ``RuntimeError`` it wraps does. A library's own exception that a rule knows is a root of its
    own: ``httpx.ReadTimeout`` names the library and the phase, the bare ``TimeoutError`` it was
    raised over does not. Cancellation (``CancelledError``) is never the root. Python's own PEP 479
    ``RuntimeError("coroutine raised StopIteration")`` is a wrapper: the ``StopIteration`` is the
    root. An author's own failure (the ``errscope`` family) is its own root: its message is what
    the author chose to record (the upstream's body, say), its cause is in the stack trace.
    """
    decided: tuple[Classification, BaseException] | None = None
    root = exc
    escaped: BaseException | None = None
    for current in walk(exc):
        if _pep479_wrapper(current):
            escaped = current.__cause__  # Python's wrapper says nothing; the StopIteration it wraps is the bug
            continue
        rule = _lookup(current)
        result: Classification | None = _UNKNOWN
        if rule is not None:
            try:
                result = rule(current)
            except Exception:  # a broken user rule must not break the failure path
                result = _UNKNOWN
        if result is None:
            if _holds_another(current):
                continue  # a wrapper: neither the decision nor the root
            rule = None  # nothing inside: a leaf its rule has no answer for (an EOFError, an OSError), still the root
        if _meaningful(current) or current is escaped:
            root = current
        if rule is not None:
            decided = result, current
            break
    if decided is None:  # nothing matched: the innermost of the whole chain explains it
        named = next((found for found in map(_by_name, walk(exc)) if found is not None), _UNKNOWN)
        return named, root
    if isinstance(decided[1], ToolFailure):  # the author wrote down what happened: that is the root
        return decided
    # The root sits below the deciding exception, on its own chain (not in a sibling group member).
    path = path_to(exc, decided[1])
    return _with_wait(_with_address(decided[0], path), path), _root_below(decided[1])


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


def _with_address(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` with its upstream's address, when the deciding exception names none and an exception on the path to
    it does: the request a wrapper holds (requests' ``ConnectionError.request`` over urllib3's ``NewConnectionError``,
    which names only its pool) or the connection a driver's error names (:func:`_db_address`), nearest first. The
    on-call engineer needs which host failed (DESIGN: upstream address on the tool span); a sibling group member's
    request is never on the path (:func:`path_to`)."""
    upstream = result.upstream
    if upstream is None or upstream.address is not None:
        return result
    for current in reversed(path):
        try:
            address = _request_address(current) or _db_address(current)
        except Exception:  # an attribute of a foreign shape says nothing
            address = None
        if address:
            return replace(result, upstream=replace(upstream, address=address))
    return result


def _with_wait(result: Classification, path: list[BaseException]) -> Classification:
    """``result`` with the wait an SDK's exception on the path to the deciding one parsed off the answer and kept
    (:func:`_carried_delay`), when the deciding one (the transport's, below it) has none: qdrant-client's
    ResourceExhaustedResponse(retry_after_s) over grpcio's RESOURCE_EXHAUSTED, whose trailer it read."""
    if result.failure_class is not FailureClass.RATE_LIMITED or result.retry_after is not None:
        return result
    for current in reversed(path[:-1]):
        try:
            wait = _carried_delay(current)
        except Exception:  # an attribute of a foreign shape says nothing
            wait = None
        if wait is not None:
            return replace(result, retry_after=wait)
    return result


def _holds_another(exc: BaseException) -> bool:
    return exc.__cause__ is not None or exc.__context__ is not None or isinstance(exc, BaseExceptionGroup)


def _pep479_wrapper(exc: BaseException) -> bool:
    """Python's own ``RuntimeError("coroutine raised StopIteration")`` (PEP 479; also "generator", "async
    generator ... StopAsyncIteration"): raised ``from`` a ``StopIteration`` that escaped a generator or a
    coroutine, e.g. a sync tool's ``next()`` on an empty iterator called from an async wrapper."""
    return type(exc) is RuntimeError and isinstance(exc.__cause__, (StopIteration, StopAsyncIteration))


_CONTROL_FLOW: Final = (StopIteration, StopAsyncIteration, BaseExceptionGroup)


def _meaningful(exc: BaseException) -> bool:
    # Cancellation (asyncio.CancelledError, GeneratorExit) is the mechanics of a timeout or a
    # teardown under the real failure, and a StopIteration under a library's `raise ... from None`
    # (json's decoder) the mechanics of a loop: never the cause.
    return isinstance(exc, Exception) and not isinstance(exc, _CONTROL_FLOW)


def _root_below(decider: BaseException) -> BaseException:
    """The first library exception a rule knows from ``decider`` inwards, else the innermost
    meaningful one. A wrapper always has something inside it (that is what it defers to), so
    the innermost meaningful exception of a chain is never one."""
    chain = [e for e in walk(decider) if _meaningful(e)]
    return next((e for e in chain if type(e).__module__ != "builtins" and _answers(e)), chain[-1] if chain else decider)


def _answers(exc: BaseException) -> bool:
    rule = _lookup(exc)
    try:
        return rule is not None and rule(exc) is not None
    except Exception:
        return False
