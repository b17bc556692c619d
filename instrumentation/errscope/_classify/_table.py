"""The rule table that ties the families together, and :func:`register`.

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
the SMTP session lost with no reply    upstream_unavailable;   RFC 1047 (a reply lost after the final
(``SMTPServerDisconnected``)           in the client's data(): dot: delivered, a resend duplicates);
                                       acted                   RFC 5321 §4.1.1.4
``grpc.RpcError``; any error whose     by status code          google/rpc/code.proto's HTTP mapping
``status``/``code`` is an enum member   (google-api-core's:
named as a gRPC code (grpclib), or      before the HTTP status
``grpc_status_code`` (google-api-core)  it derived from it)
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
aiomqtt ``MqttError`` out of           upstream_unavailable,   aiomqtt: messages go out
``Client.__aenter__``                  not sent                after the CONNACK
pyzmq ``ZMQError``                     by errno; ``EAGAIN``    zmq_errno(3), POSIX
                                       sent unless a send
                                       raised it
FTP reply codes (ftplib, aioftp)       by the code             RFC 959 §4.2
SFTP status codes (asyncssh)           by the code             draft-ietf-secsh-filexfer-13 §9.1
SSH disconnect reasons (asyncssh)      by the code             RFC 4253 §11.1
a TLS alert the peer sent, under any   by the alert; a client  RFC 8446 §6.2, RFC 5246 §7.2
client's wrapper (its ``reason``)      certificate refused:
                                       permission_denied
memcached ``SERVER_ERROR``,            upstream_unavailable,   memcached protocol.txt,
``CLIENT_ERROR`` (pymemcache)          an item too large:      proto_text.c
                                       invalid_input;
                                       unknown (our command)
IMAP/POP3 bracketed response codes     by the code             RFC 5530, RFC 2449 §8, RFC 3206
(imaplib, poplib)
the connection lost under an IMAP      upstream_unavailable;   RFC 9051 §6.3-6.4; RFC 1939 §6 (no
command (``abort``) or a POP3 one      acted after a mailbox   UPDATE state without QUIT)
(poplib's "-ERR EOF")                  change (APPEND, STORE,
                                       ...) or POP3's QUIT;
                                       POP3's others: not
``xmlrpc.client.Fault``                by its fault code       XML-RPC fault code interoperability
                                       (JSON-RPC's numbers)    (its ``ProtocolError``: ``errcode``)
``pycurl.error``, curl_cffi's          by libcurl's number     libcurl-errors
``CurlError``
dnspython: no such name or record;     not_found; upstream_    RFC 1035 §4.1.1 RCODE
no server answered, timeout            unavailable
hvac, python-redmine (one class per    by the class's status   hvac.utils.raise_for_error, redminelib
status); pyzotero's TooManyRetries-     (429)                   BaseEngine.process_response
Error
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
a format reader's error raised by a    upstream_unavailable,   the peer's greeting did not parse,
library under its own connecting       not sent                before any request (heldout J448)
function (pamqp's
``AMQPSyntaxError`` in aiormq's
``connect``)
an HTTP client's decoding error        upstream_unavailable,   the answer's body did not decode by
(httpx/httpx2 ``DecodingError``,       acted                   its Content-Encoding (J441)
urllib3 ``DecodeError``)
http.client's ``HTTPException`` in an  upstream_unavailable,   an answer to a written request the
``HTTPResponse`` (``LineTooLong``,     acted                   client cannot read (J445)
"got more than 100 headers")
an error raised while a TLS handshake  upstream_unavailable,   RFC 8446 §2: no application data
ran (``do_handshake``)                 not sent                before the handshake (J446)
an SDK's error keeping the API's       by the object's type    the type decides, the stream's 200
error object as ``body``, no error     family; server-side:    says nothing (J443, J444)
status (an SSE ``error`` event in a    acted
200 stream: OpenAI, Anthropic)
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
google-auth ``RefreshError`` with only permission_denied       a credential it cannot renew;
its own words (no endpoint's answer)   (not acted); an HTML    RFC 6749 §5.2 (answers are JSON)
                                       or XML page kept as its
                                       text: read as the page's
``mcp`` ``MCPError``                   by JSON-RPC code        JSON-RPC 2.0 §5.1, MCP spec error codes
``mcp`` ``ToolError`` / wrappers       their ``__cause__``
(exception groups, SQLAlchemy's,
tenacity's ``RetryError``)
no rule anywhere in the chain (or      by that status, as any  the answer's status line (RFC 9110 §15);
one that named no upstream and read    error's answer          tenacity's ``RetryError.last_attempt``
unknown or that class), an HTTP answer                         (``retry_if_result``); a tool's own
an error status held as an attribute                           ``raise`` (a ``ToolError`` too) after
or a local of the tool's own raising                           its own status check
frame (``_held_answer``)
no rule anywhere in the chain          a class named for an    RFC 9110 §15's reason phrases
                                       HTTP status's phrase    (``ServiceUnavailableError``,
                                       (not 408, 501): that    ``GatewayTimeout``: braintree), then
                                       status; else by the     ``...Throttled...``, ``...NotFound``,
                                       words of the types'     ``...Timeout...``: a last resort
                                       names
... and none named so, raised in a     by its words, as a      the library kept only a text
library's own code (a builtin, not a   foreign server's text   (``_library_words``)
programming error, or its own class)   is read
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
off: opening a connection or waiting for a pool's is not sent; a sleep (a retry loop waiting between attempts)
says nothing itself, and the last attempt's failure decides when the loop kept it (its implicit cause: backoff's
``except`` block, or a local of a frame it cut off: ``_failure_before_the_sleep``; tenacity, and stamina over it,
clears its last outcome before it sleeps, so there the timeout stays "may have"). An ``OSError`` refusal with an errno
(``ENOENT``, ``EACCES``) did nothing. Optional
libraries are matched by ``module.qualname`` (``_NAMED_RULES``), so none of them is imported.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import httpx
import httpx2
import json
import pydantic
import socket
import ssl
import subprocess
import urllib.error
from collections.abc import Mapping
from typing import Final

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from errscope._classify._builders import (
    _NOT_THERE,
    _UNAVAILABLE,
    _UNAVAILABLE_MAYBE_SENT,
    _UNAVAILABLE_NOT_SENT,
    _UNKNOWN_RULE,
    _defer,
    _delivery_from_cause,
    _first_address_error,
    _first_exception_arg,
    _fixed,
    _never_sent,
    _never_sent_when_connecting,
    _reason_or_chain,
    _status_named,
    _unavailable,
    _unavailable_unless_connecting,
    _upstream_words,
    _wrapping,
)
from errscope._classify._core import Classification, Rule, Upstream, _UNKNOWN, _UNUSABLE_URL
from errscope._classify._databases import (
    _DBAPI_RULES,
    _DB_CODE,
    _arango_error,
    _bolt_code,
    _bolt_failure,
    _couchbase_error,
    _cql_error,
    _kazoo_timeout,
    _milvus_error,
    _mongodb_code,
    _redis_reply,
    _sqlstate,
    _zookeeper_code,
)
from errscope._classify._facts import _message_of, http_status_of, raised_in, raised_through
from errscope._classify._http_errors import (
    _HTTP_PARSE_ERRORS,
    _bulk_item_refused,
    _error_document,
    _http_status,
    _http_transport_error,
    _new_connection_error,
    _proxy_error,
    _proxy_error_code,
    _proxy_status,
    _redirect_loop,
    _retried_status,
    _status_in_message,
    _status_in_text,
    _success_status_of,
    _unreadable_answer,
    _unusable_success,
)
from errscope._classify._interrupted import _connection_error, _cut_off, _raised_by_pool
from errscope._classify._mcp import _mcp_error, _mcp_tool_error, _pydantic_validation, _tool_failure
from errscope._classify._protocols import (
    _IMAP_CODES,
    _memcached_server_error,
    _mqtt_error,
    _ares_error,
    _curl_error,
    _eof,
    _ftp_reply,
    _grpc_error,
    _grpc_status,
    _grpc_status_beside_http,
    _grpc_status_name,
    _imap_abort,
    _mqtt_code,
    _peer_tls_alert,
    _pop3_error,
    _response_code,
    _sftp_status,
    _smtp_connect,
    _smtp_lost,
    _smtp_reply,
    _soap_fault,
    _socket_stream_end,
    _ssh_disconnect,
    _thrift_transport,
    _tls_refusal,
    _webdriver_code,
    _webdriver_error,
    _websocket_closed,
    _xmlrpc_fault,
    _zmq_error,
)
from errscope._classify._system import (
    _file_or_program,
    _node_system_error,
    _node_system_error_of,
    _ntstatus_error,
    _ntstatus_of,
    _os_error,
    _program_failure,
)
from errscope._classify._vendors import (
    _api_code,
    _stream_error,
    _stream_error_code,
    _google_refresh_error,
    _api_error,
    _consul_status,
    _dropbox_api_error,
    _kafka_error,
    _maps_status,
    _oauth_code,
    _oauth_error,
    _reddit_redirect,
    _telegram_wait,
    _trino_error,
    _word_code,
    _word_code_error,
)
from errscope._exceptions import ToolFailure
from errscope._foreign_text import refuses_credential_header
from errscope._vocabulary import FailureClass


def _no_master_named(exc: BaseException) -> Classification:
    """A Sentinel client that found no master or replica for its service (redis-py's and valkey-py's
    ``MasterNotFoundError``/``SlaveNotFoundError``,
    https://redis.io/docs/latest/operate/oss_and_stack/management/sentinel/):
    nothing was sent to one; the address is the first sentinel's, from the ``Sentinel`` whose ``discover_master`` (or
    ``discover_slaves``) raised it (its ``sentinels``: clients whose pool keeps ``host`` and ``port``)."""
    address = None
    for frame in reversed(raised_through(exc)):
        try:
            sentinels = getattr(frame.f_locals.get("self"), "sentinels", None)
        except Exception:  # a frame whose locals cannot be read says nothing
            continue
        if isinstance(sentinels, list) and sentinels:
            kwargs = getattr(getattr(sentinels[0], "connection_pool", None), "connection_kwargs", None)
            if isinstance(kwargs, Mapping):
                host, port = kwargs.get("host"), kwargs.get("port")
                if isinstance(host, str) and host and isinstance(port, int) and not isinstance(port, bool):
                    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            break
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("redis", type(exc).__name__, address),
                          side_effect_possible=False)


def _credential_header_refused(otherwise: Rule) -> Rule:
    """permission_denied, not sent, for a client's refusal of a credential header's value; else ``otherwise``."""

    def rule(exc: BaseException) -> Classification | None:
        if refuses_credential_header(_message_of(exc)):
            return Classification(FailureClass.PERMISSION_DENIED, side_effect_possible=False)
        return otherwise(exc)

    return rule


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
    # ... and a query naming a field the model does not have ("Cannot resolve keyword 'x' into field. Choices are:
    # ..."): the tool's own query, whose list of fields is no failure's words
    "django.core.exceptions.FieldError": _fixed(FailureClass.UNKNOWN),
    # python-gitlab's for an answer that is not the API's JSON (a 2xx login page a proxy served): raised over no
    # decoder error, with no status; as _unusable_success, the upstream's fault, and whether it acted is open
    "gitlab.exceptions.GitlabParsingError": _fixed(FailureClass.UPSTREAM_UNAVAILABLE),
    # aiohttp (https://docs.aiohttp.org/en/stable/client_reference.html#hierarchy-of-exceptions)
    "aiohttp.client_exceptions.ClientConnectorError": _unavailable(False, "http"),  # DNS, refused, TLS
    "aiohttp.client_exceptions.TooManyRedirects": _redirect_loop,  # before its status (a 3xx) is read as one
    "requests.exceptions.TooManyRedirects": _redirect_loop,
    # an HTTP client refusing to send a header before any connection (h11's check, which httpcore and httpx re-raise;
    # requests' own): a credential header's value (a key with its trailing newline, an empty one) is the operator's
    # credential broken, nothing sent (_foreign_text.refuses_credential_header); any other header, the rules below
    **dict.fromkeys(("httpx.LocalProtocolError", "httpx2.LocalProtocolError", "httpcore.LocalProtocolError",
                     "httpcore2.LocalProtocolError"), _credential_header_refused(_http_transport_error)),
    **dict.fromkeys(("h11._util.LocalProtocolError", "requests.exceptions.InvalidHeader"),
                    _credential_header_refused(_defer)),
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
    # clickhouse-driver's native Client raises its own errors, no PEP 249 names: a server's Exception packet is
    # ServerException with ClickHouse's code (_CLICKHOUSE_CODES; 497 ACCESS_DENIED is no HTTP status), an unknown
    # code says nothing known (not "Server": a 500)
    "clickhouse_driver.errors.ServerException": _DB_CODE,
    "thrift.transport.TTransport.TTransportException": _thrift_transport,
    # Twisted (treq, Scrapy, any Agent): its own errors, no OSError. A connection never made (ConnectError's family:
    # refused, no route, a connect timeout, a TLS handshake refused; the name not resolved; the connect cancelled by
    # the caller's timeout) sent nothing; the HTTP client's ResponseNeverReceived/ResponseFailed hold the Failures of a
    # request written, or being written, whose answer never came or broke off (a lost connection, a cancel by treq's
    # timeout), RequestTransmissionFailed one that could not be written whole, which no server acts on
    # (https://docs.twisted.org/en/stable/api/twisted.web._newclient.html)
    **dict.fromkeys(("twisted.internet.error.ConnectError", "twisted.internet.error.DNSLookupError",
                     "twisted.internet.error.ConnectingCancelledError"), _unavailable(False)),
    "twisted.web._newclient.RequestTransmissionFailed": _unavailable(False, "http"),
    "twisted.web._newclient.ResponseFailed": _unavailable(True, "http"),  # ResponseNeverReceived too
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
    "urllib3.exceptions.NewConnectionError": _new_connection_error,  # incl. NameResolutionError; a SOCKS login refused
    "urllib3.exceptions.ConnectTimeoutError": _unavailable(False, "http"),
    "urllib3.exceptions.EmptyPoolError": _unavailable(False, "http"),
    "urllib3.exceptions.SSLError": _unavailable(False, "http"),
    "urllib3.exceptions.ProxyError": _proxy_error,
    "urllib3.exceptions.TimeoutError": _unavailable(True, "http"),  # ReadTimeoutError
    # the connection dropped mid-answer, unless the error it wraps says it never opened (a Unix socket not there)
    "urllib3.exceptions.ProtocolError": _wrapping(_first_exception_arg, _unavailable(True, "http")),
    "urllib3.exceptions.DecodeError": _unavailable(True, "http"),
    # httpx's for an answer whose body did not decode by its Content-Encoding (gzip, deflate, br, zstd): the server
    # answered, so it had the request (as urllib3's DecodeError and requests' ContentDecodingError); the zlib or
    # brotli error it is raised from is the answer's bytes, never the tool's own data (a file it decompresses)
    **dict.fromkeys(("httpx.DecodingError", "httpx2.DecodingError"), _unavailable(True, "http")),
    # httpcore / httpcore2, should one escape the client that wraps them
    **{f"{lib}.{name}": _http_transport_error for lib in ("httpcore", "httpcore2") for name in (
        "ConnectionNotAvailable", "ProxyError", "UnsupportedProtocol", "ProtocolError", "TimeoutException",
        "NetworkError")},
    # grpcio (https://grpc.github.io/grpc/python/grpc.html#grpc.RpcError): by its status code
    "grpc.RpcError": _grpc_error,
    # grpc's FutureTimeoutError: a future's result() waited out its timeout. channel_ready_future's
    # (_ChannelReadyFuture) waited for the channel to connect, no RPC on it yet; an RPC's future (call.future()) may
    # have reached the server
    "grpc.FutureTimeoutError": lambda exc: _unavailable(not _waited_for_a_ready_channel(exc), "grpc")(exc),
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
    # A session used again after its flush failed and was not rolled back (the tool's own bug): its text quotes the
    # flush's exception ("Original exception was: … UNIQUE constraint failed"), which is not this failure's cause.
    "sqlalchemy.exc.PendingRollbackError": _fixed(FailureClass.UNKNOWN, None),
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
    # ... or holding one it cannot renew: a RefreshError of its own words only; the token endpoint's answer decides
    "google.auth.exceptions.RefreshError": _google_refresh_error,
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
    # it applied, except one raised in the connection's ``connect``: the TCP connect ("Timeout connecting to server")
    # and the handshake it runs before any command (``on_connect``: HELLO, AUTH, CLIENT SETINFO, SELECT), which
    # every command waits for.
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
        ("TimeoutError", _never_sent_when_connecting(_unavailable(True, "redis"), library)),
        ("ResponseError", _redis_reply),  # WRONGTYPE, bad arguments: our bug; BUSY, MISCONF: the server's state
        # raised from the socket error it replaces: refused or unresolvable (not sent), reset (maybe sent), except in
        # the connection's ``connect`` (a reset or an end of stream answering its handshake: no command sent yet)
        # raised by the pool itself, over no socket error (valkey's "Too many connections"): no connection to send on
        ("ConnectionError", _never_sent_when_connecting(_wrapping(lambda exc: exc.__context__, lambda exc: _unavailable(
            False if _raised_by_pool(exc) else None, "redis")(exc)), library)))},
    # redis-py's and valkey-py's Sentinel client: no sentinel named a master (or a replica) for the service, so no
    # command was sent to any; the sentinels are the upstream that failed, not the placeholder (localhost:6379) the
    # managed connection holds until a master is found
    **{f"{library}.sentinel.{name}": _no_master_named for library in ("redis", "valkey")
       for name in ("MasterNotFoundError", "SlaveNotFoundError")},
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
    **dict.fromkeys(("smtplib.SMTPServerDisconnected", "aiosmtplib.errors.SMTPServerDisconnected"), _smtp_lost),
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
    "imaplib.IMAP4.abort": _imap_abort,
    "poplib.error_proto": _pop3_error,
    # zeep (https://docs.python-zeep.org/en/master/api.html#zeep.exceptions.Fault): a SOAP fault by its codes
    "zeep.exceptions.Fault": _soap_fault,
    # forward proxies refusing the tunnel: python-socks (httpx-socks, aiohttp-socks) keep the proxy's code;
    # aiohttp keeps the status of its CONNECT
    "python_socks._errors.ProxyError": _proxy_error_code,
    "aiohttp_socks._errors.ProxyError": _proxy_error_code,
    "aiohttp.client_exceptions.ClientHttpProxyError": _proxy_status,
    # aiomqtt (over paho-mqtt): the broker's reason code or paho's own error code, kept as .rc
    "aiomqtt.exceptions.MqttCodeError": _mqtt_code,
    # ... and its base MqttError out of entering the client: the session never opened (else its cause decides)
    "aiomqtt.exceptions.MqttError": _mqtt_error,
    # pyzmq (https://pyzmq.readthedocs.io/en/latest/api/zmq.html#exceptions): a POSIX errno on a non-OSError
    "zmq.error.ZMQError": _zmq_error,
    # pycurl, curl_cffi (its requests-like exceptions derive from CurlError): libcurl's error number (args[0], .code)
    "pycurl.error": _curl_error,
    "curl_cffi.curl.CurlError": _curl_error,
    # dnspython (https://dnspython.readthedocs.io/en/stable/exceptions.html): the name or the record
    # does not exist (an authoritative answer: a tool looking a name up found none); no server answered
    # usefully (SERVFAIL, REFUSED: the exception holds several servers' answers); a query sent, unanswered.
    "dns.resolver.NXDOMAIN": _fixed(FailureClass.NOT_FOUND, False),
    "dns.resolver.NoAnswer": _fixed(FailureClass.NOT_FOUND, False),
    "dns.resolver.NoNameservers": _unavailable(None, "dns"),
    "dns.exception.Timeout": _unavailable(True, "dns"),
    # aiodns (c-ares, aiohttp's AsyncResolver): c-ares' status code, args[0]
    "aiodns.error.DNSError": _ares_error,
    # pymemcache: the server closed the connection before answering the command it was sent; the server's
    # SERVER_ERROR ("prevents the server from carrying out the command", memcached's protocol.txt) and
    # CLIENT_ERROR (a command that does not conform: our bug, like the library's own key checks) did nothing
    "pymemcache.exceptions.MemcacheUnexpectedCloseError": _unavailable(True, "memcached"),
    "pymemcache.exceptions.MemcacheServerError": _memcached_server_error,
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
    # python-redmine: one class per status too (redminelib.engines.base.BaseEngine.process_response), none kept; a
    # 412 is an impersonated login that does not exist or is locked (the X-Redmine-Switch-User header). UnknownError
    # keeps its status in its text.
    **{f"redminelib.exceptions.{name}": _status_named(status, "http") for name, status in (
        ("AuthError", 401), ("ForbiddenError", 403), ("ResourceNotFoundError", 404), ("ConflictError", 409),
        ("ImpersonateError", 412), ("RequestEntityTooLargeError", 413), ("ValidationError", 422),
        ("ServerError", 500))},
    # pyzotero: the Zotero API kept answering 429 through its own retries (each Backoff or Retry-After waited out)
    "pyzotero.errors.TooManyRetriesError": _status_named(429, "http"),
}

_OWN_CODE_RULES: Final = frozenset(
    _NAMED_RULES[name] for name in ("smtplib.SMTPResponseException", "aiosmtplib.errors.SMTPResponseException",
                                    "pymilvus.exceptions.MilvusException", "clickhouse_driver.errors.ServerException",
                                    "arango.exceptions.ArangoServerError",
                                    "aiohttp.client_exceptions.ClientHttpProxyError", *_HTTP_PARSE_ERRORS)
)
"""Rules that read a protocol's own reply code, or know the status-shaped code is no server's (a client parser's):
an attribute shaped like an HTTP status is not one there."""


def _reading_http_answer(exc: BaseException) -> Classification | None:
    """http.client's ``HTTPException`` raised while it read an answer: a status or header line longer than its
    65536-byte limit (``LineTooLong``), more than its 100 header fields ("got more than 100 headers", the bare
    class), a version it does not speak (``UnknownProtocol``), all out of ``HTTPResponse.begin`` after the request
    was written. The upstream had the request and answered what the client cannot read: it may have acted, as
    for ``BadStatusLine``. Outside a response (``ImproperConnectionState``: the tool's own use of a connection,
    ``CannotSendRequest``, ``ResponseNotReady``) ``None``: nothing of the upstream's."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_globals.get("__name__") == "http.client" and isinstance(frame.f_locals.get("self"),
                                                                          http.client.HTTPResponse):
            return _HTTP_ANSWER_UNREADABLE(exc)
        tb = tb.tb_next
    return None


_HTTP_ANSWER_UNREADABLE: Final = _unavailable(True, "http")


def _tls_error(exc: BaseException) -> Classification:
    """The ssl module's error with no peer alert (those are :func:`_tls_refusal`'s): a record that is not TLS (a plain
    HTTP port's answer, ``WRONG_VERSION_NUMBER``), the peer gone mid-record (``SSLEOFError``,
    ``UNEXPECTED_EOF_WHILE_READING``). ``upstream.status`` is OpenSSL's reason code (``SSLError.reason``), system
    ``tls``; whether the request went out is open, unless it was raised during the handshake (then not sent: see
    ``_entry._while_connecting``)."""
    reason = getattr(exc, "reason", None)
    status = reason if isinstance(reason, str) and reason else type(exc).__name__
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("tls", status))


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
    ssl.SSLError: _tls_error,
    asyncio.CancelledError: _cut_off,  # the awaited work was cut off midway
    concurrent.futures.CancelledError: _UNAVAILABLE_NOT_SENT,  # Future.cancel() succeeds only before it runs
    asyncio.IncompleteReadError: _UNAVAILABLE_MAYBE_SENT,  # the peer closed mid-answer
    http.client.IncompleteRead: _UNAVAILABLE_MAYBE_SENT,
    http.client.BadStatusLine: _UNAVAILABLE_MAYBE_SENT,  # incl. RemoteDisconnected
    http.client.HTTPException: _reading_http_answer,  # LineTooLong, "got more than 100 headers", UnknownProtocol
    # urllib wraps only what fails while connecting and sending (AbstractHTTPHandler.do_open); a
    # failure while waiting for the answer is raised bare.
    # Its reason is the socket error, or a text (ftp: URLError("ftp error: ...") raised over ftplib's reply).
    urllib.error.URLError: _never_sent(_wrapping(_reason_or_chain, _UNKNOWN_RULE)),
    # urllib's HTTPError whose status is no error status (400-599 are read as carried, before this rule): a 3xx is the
    # redirect HTTPRedirectHandler would not follow (a loop it saw repeat, more than its max_redirections, a Location of
    # another scheme or none), raised with that status: the upstream's routing, as TooManyRedirects (RFC 9110 §15.4)
    urllib.error.HTTPError: lambda exc: (_redirect_loop(exc) if _redirect_status(exc)
                                         else _never_sent(_wrapping(_reason_or_chain, _UNKNOWN_RULE))(exc)),
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


def _waited_for_a_ready_channel(exc: BaseException) -> bool:
    """Whether ``exc`` was raised through a method of a future that waits for a channel to be ready (grpc's
    ``_ChannelReadyFuture``: https://grpc.github.io/grpc/python/grpc.html#grpc.channel_ready_future)."""
    tb = exc.__traceback__
    while tb is not None:
        try:
            owner = tb.tb_frame.f_locals.get("self")
        except Exception:  # a frame whose locals cannot be read says nothing
            owner = None
        if "ChannelReady" in type(owner).__name__:
            return True
        tb = tb.tb_next
    return False


def _redirect_status(exc: BaseException) -> bool:
    """Whether ``exc`` carries a 3xx status in its ``code`` (urllib's ``HTTPError``)."""
    code = getattr(exc, "code", None)
    return isinstance(code, int) and not isinstance(code, bool) and 300 <= code <= 399


def _lookup(exc: BaseException) -> Rule | None:
    """The rule for ``exc`` itself (not its chain). Along the MRO, the most specific class with a
    rule decides: what an author registered as is; a table rule gives way to what the exception
    carries from the upstream (an AWS error code, an HTTP status: they say more than the type, e.g.
    urllib's HTTPError is a URLError, websockets' InvalidStatus an InvalidHandshake), except a rule
    that reads a protocol's own code (``_OWN_CODE_RULES``: an SMTP reply code is no HTTP status).
    Without any class rule: that carried status, else a database's SQLSTATE on a type outside PEP
    249's names (asyncpg)."""
    carried = (_oauth_error if _oauth_code(exc) is not None else _api_error if _api_code(exc) is not None
               else _grpc_status if _grpc_status_beside_http(exc)
               else _stream_error if _stream_error_code(exc) is not None
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
    # A Node.js system error line a library kept as its only text ("connect ECONNREFUSED 127.0.0.1:9222": Playwright's
    # driver): the connection failed, and the syscall says whether the request had gone out.
    if _node_system_error_of(exc) is not None:
        return _node_system_error
    # An API's own error code kept as ``code`` beside its ``message``, no status (hcloud's APIException)
    if _word_code(exc) is not None:
        return _word_code_error
    # A W3C WebDriver error code a client kept only as its exception class's name (Selenium's)
    if _webdriver_code(exc) is not None:
        return _webdriver_error
    # Last, for a type no rule knows: an API's JSON error document as its message (``RuntimeError(response.text)``)
    # or an API error code named in it (``RuntimeError(f"Slack API error: {code}")``), else a 2xx status it carries (an SDK that got an answer it could not use).
    if _error_document(exc) is not None:
        return _error_document
    return _unusable_success if _success_status_of(exc) is not None else None
