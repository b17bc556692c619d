"""Reading what foreign servers wrote: classify a text-only ``isError`` result, find a retry-after,
and make any server text safe and short before it reaches the model (scrubbed, one printable line, no
terminal escapes). The server's classification, the client and the proxy read foreign text with these rules.

Servers instrumented with errscope put the class in the result's ``_meta``; everything else sends
prose ("403 Forbidden: token lacks repo:write", "429 Too Many Requests, retry after 30s"). The
rules below read that prose as well as can be done: HTTP status numbers first (they are the most
reliable signal), then well-known phrases. Anything unrecognised is ``unknown``, never a guess.
"""

from __future__ import annotations

import functools
import json
import re
from http import HTTPStatus
from html.parser import HTMLParser
from typing import Any, Final

from errscope._http import CDN_ORIGIN_NOT_REACHED, HTTP2_ERROR_CODES, class_for_http_status, side_effect_for_http_status
from errscope._prefilter import Prefiltered, prefiltered
from errscope._scrubbing import scrub
from errscope._vocabulary import FailureClass

__all__ = [
    "GRPC_CODES",
    "MESSAGE_KEYS",
    "SQLSTATE_CLASSES",
    "api_code_class",
    "classify_text",
    "counts_things",
    "data_texts",
    "deciding_cause",
    "failed_after_sending",
    "failure_lines",
    "grpc_code_reading",
    "grpc_status_in_text",
    "is_crash_report",
    "json_error_message",
    "json_error_parts",
    "key_in_flight",
    "named_code_class",
    "names_no_cause",
    "never_reached",
    "printable",
    "reads_upstream_data",
    "refuses_credential_header",
    "retry_after_from_text",
    "safe_excerpt",
    "says_maybe_acted",
    "scrub_text",
    "sqlstate_class",
    "without_terminal_escapes",
]


_TERMINAL_ESCAPES: Final = re.compile(
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC: a title, an OSC 8 link's target, a clipboard write
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b[ -/]*[0-~]"  # any other escape sequence (a charset switch, a reset)
)
"""ECMA-48 escape sequences: OSC first (its body is not a CSI's), then CSI, then the rest; each linear."""


def without_terminal_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (ECMA-48 CSI, OSC, and two-byte escapes), their visible text kept.

    A foreign server's error often comes from a CLI that colours its output (npm, cargo, Rich, chalk); a host that
    prints the model's text in a terminal then runs the escapes (cursor moves that hide a line, OSC 8 links whose
    target is not the text shown, a window title), and a model reads ``[31m`` noise. Replacing only the ESC byte
    leaves that noise; the whole sequence goes.
    """
    return _TERMINAL_ESCAPES.sub("", text) if "\x1b" in text or "\x9b" in text or "\x9d" in text else text


def printable(text: str) -> str:
    """``text`` as one printable line: whitespace (a tab, a line break) becomes a space, every other control or
    format character (NUL, bidi overrides) U+FFFD, since they reorder text in logs and UIs."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else " " if c.isspace() else "\ufffd" for c in text)


# An API's own error code, carried in its error envelope: AWS's ``Error.Code`` ("ThrottlingException",
# "NoSuchKey", "AccessDenied"; https://docs.aws.amazon.com/general/latest/gr/api-retries.html and
# each service's "Common Errors") and Slack's ``{"ok": false, "error": "channel_not_found"}``
# (https://api.slack.com/web#evaluating_responses, sent with HTTP 200). Families by the words the
# codes are named with (case and ``_`` ignored), tried in this order; a code in none of them is
# read by its HTTP status. DynamoDB sends throttling as a 400, S3 as a 503 "SlowDown": the code
# decides. A refusal applied nothing; a server-side error (Slack's ``internal_error``/``fatal_error``:
# "some aspect of the operation may have succeeded") may have. Azure Resource Manager's ``AuthorizationFailed``
# and Slack's ``not_in_channel`` are refusals of the caller's identity like the others.
_API_CODE_FAMILIES: Final = (
    # Elasticsearch's 429 types (a full thread pool queue, a memory circuit breaker: "retry later"); the rest of the
    # AWS SDKs' throttling table (botocore retries/standard.py ``_THROTTLED_ERROR_CODES``, which the SDK backs off on
    # whatever the status: Route 53's PriorRequestNotComplete comes with a 400, S3's BandwidthLimitExceeded, DynamoDB's
    # TransactionInProgressException, LimitExceededException as a whole code)
    (re.compile(r"throttl|toomanyrequests|slowdown|requestlimitexceeded|throughputexceeded|rateexceeded|ratelimit|"
                r"rejectedexecution|circuitbreaking|"
                r"priorrequestnotcomplete|bandwidthlimitexceeded|transactioninprogress|^limitexceeded(?:exception)?$"),
     FailureClass.RATE_LIMITED),
    (re.compile(r"accessdenied|unauthori[sz]ed|unauthenticated|notauthorized|forbidden|invalidaccesskeyid|invalidclienttokenid|"
                r"signaturedoesnotmatch|expiredtoken|unrecognizedclient|authfailure|missingauthenticationtoken|"
                r"notauthed|invalidauth|missingscope|nopermission|tokenrevoked|tokenexpired|accountinactive|"
                r"invalidsession|sessionexpired|authori[sz]ationfailed|notinchannel|"
                # Supabase Auth's (https://supabase.com/docs/guides/auth/debugging/error-codes): a wrong password and
                # an unconfirmed email as a 400, the token's session or refresh token gone (not the caller's record),
                # a sign-up or provider the project turned off
                # (not Java's SSLPeerUnverifiedException: the upstream's certificate, no account of the caller's)
                r"(?:invalid|bad|wrong)credential|(?:session|refreshtoken)notfound|(?<!peer)(?:not|un)(?:confirmed|verified)|"
                r"disabled|"
                r"securityexception|"  # Elasticsearch's security_exception (401/403: a missing or refused credential)
                r"apikey"),  # Google's ErrorInfo reasons: API_KEY_INVALID, API_KEY_EXPIRED
     FailureClass.PERMISSION_DENIED),
    (re.compile(r"notfound|nosuch|nonexist|doesnotexist"), FailureClass.NOT_FOUND),  # SQS: "...NonExistentQueue"
    (re.compile(r"validation|invalidargument|invalidparameter|conditionalcheckfailed|malformedpolicy|toolong|"
                r"toolarge|baduserinput|"  # S3's EntityTooLarge, BigQuery's responseTooLarge (a 403)
                # Hetzner Cloud's invalid_input (400) and uniqueness_error (409: a name already taken)
                r"invalidinput|uniquenesserror"),
     FailureClass.INVALID_INPUT),
    # Hetzner Cloud's server_error and service_error (whole codes: MongoServerError is a class, and says nothing of
    # the server's state), its maintenance, a bare unavailable (503) and timeout
    # ... and a resource another holds locked (OneDrive's and Graph's resourceLocked, sent with 423: RFC 4918 §11.3)
    (re.compile(r"internalerror|internalservererror|fatalerror|serviceunavailable|^servererror$|^serviceerror$|"
                r"maintenance|^unavailable$|^timeout$|^(?:resource|file|item)?locked$|"
                # Anthropic's overloaded_error (its 529, also sent as an error event inside a 200 stream)
                r"^overloaded(?:error)?$|"
                # the AWS SDKs' transient codes (botocore retries/standard.py ``_TRANSIENT_ERROR_CODES``): S3's 400
                # RequestTimeout, a service that timed out waiting for the request
                r"^requesttimeout(?:exception)?$"), FailureClass.UPSTREAM_UNAVAILABLE),
)

# GraphQL servers' codes for a query document that does not parse or fit the schema (Apollo Server's built-in
# ``extensions.code``s): the tool's own query is wrong, whatever the caller passed. Checked before the families
# ("validation" there means an argument's value).
_QUERY_DOCUMENT_CODES: Final = frozenset({"graphqlparsefailed", "graphqlvalidationfailed", "persistedquerynotfound",
                                          "persistedquerynotsupported", "operationresolutionfailure"})


def api_code_class(code: str) -> FailureClass | None:
    """The class an API's own error code names (:data:`_API_CODE_FAMILIES`; case, ``_`` and ``-`` ignored);
    ``unknown`` for a GraphQL query document the server refused, ``None`` for a code in no family."""
    words = code.replace("_", "").replace("-", "").lower()
    if words in _QUERY_DOCUMENT_CODES:
        return FailureClass.UNKNOWN
    return next((failure_class for pattern, failure_class in _API_CODE_FAMILIES if pattern.search(words)), None)


# An SMTP reply (RFC 5321 §4.2) with its enhanced status code (RFC 3463 §2: class.subject.detail) as mail libraries
# print it: "550 5.1.1 ...", Gmail's continued "535-5.7.8 ...", smtplib's "(550, b'5.1.1 ...')". The reply's first
# digit and the enhanced code's class agree, which no HTTP status or version number does.
_SMTP_REPLY: Final = prefiltered(re.compile(r"(?<![\w.])([245])(\d\d)(?:[ -]|,\s*b?['\"])\1\.(\d{1,3})\.\d{1,3}(?![\w.])"))
_SMTP_ENHANCED: Final = re.compile(r"\s*[245]\.(\d{1,3})\.(\d{1,3})\b")
# A mail server limiting the sender: too many logins, connections or messages, a daily sending limit or quota spent
# (Gmail's "550 5.4.5 Daily user sending limit exceeded", Exchange's "SubmissionQuotaExceededException").
# Not "too many recipients" (452/552 4.5.3: fewer recipients fit, the message's own size).
_SMTP_SLOW_DOWN: Final = prefiltered(re.compile(
    r"\btoo many (?:\w+ ){0,2}(?:log ?ins?|attempts|connections|messages|e?mails?|requests|sessions|commands)\b|"
    r"rate.?limit|sending (?:limit|quota)|(?:limit|quota) ?exceeded", re.I))


def smtp_reply_class(code: int, text: str) -> FailureClass:
    """The class of an SMTP reply by its code (RFC 5321 §4.2.1) and its text (which starts with the enhanced status
    code, RFC 3463, when the server sends one).

    A sender limited (:data:`_SMTP_SLOW_DOWN`, or X.4.5 "mail system congestion") is ``rate_limited`` whatever the
    code; then 4yz is transient (``upstream_unavailable``), 530/534/535/538 and X.7.x (security or policy) refuse the
    credential or the sender (``permission_denied``), 550/551 name a mailbox that is not there (``not_found``),
    501/552/553 parameters, size or a mailbox name the server will not take (``invalid_input``); else ``unknown``.
    """
    enhanced = _SMTP_ENHANCED.match(text)
    subject = enhanced.groups() if enhanced else (None, None)
    if _SMTP_SLOW_DOWN.search(text) or subject == ("4", "5"):
        return FailureClass.RATE_LIMITED
    if 400 <= code < 500:
        return FailureClass.UPSTREAM_UNAVAILABLE  # 421 closing, 450 mailbox busy, 451 local error, 452 storage
    if code in (530, 534, 535, 538) or subject[0] == "7":
        return FailureClass.PERMISSION_DENIED
    if code in (550, 551):
        return FailureClass.NOT_FOUND
    if code in (501, 552, 553):
        return FailureClass.INVALID_INPUT
    return FailureClass.UNKNOWN


def smtp_reply_in_text(text: str) -> FailureClass | None:
    """The class of the first SMTP reply with an enhanced status code ``text`` prints (:data:`_SMTP_REPLY`, read by
    :func:`smtp_reply_class`: an email server relaying nodemailer's or smtplib's error), or ``None``."""
    match = _SMTP_REPLY.search(text)
    if match is None:
        return None
    return smtp_reply_class(int(match.group(1) + match.group(2)), text[match.end(2):].lstrip(" -,b'\""))


# PostgreSQL SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html): the exact
# code, else its two-character class -> (failure class, may the statement have taken effect). An
# error the server reports aborts the statement (and rolls its transaction back); only a lost
# connection leaves a statement's fate open.
SQLSTATE_CLASSES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "08001": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # unable to establish a connection
    "08004": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # server rejected the connection
    "08": (FailureClass.UPSTREAM_UNAVAILABLE, True),  # connection exception: lost mid-statement
    "22": (FailureClass.INVALID_INPUT, False),  # data exception
    "23": (FailureClass.INVALID_INPUT, False),  # integrity constraint violation
    "28": (FailureClass.PERMISSION_DENIED, False),  # invalid authorization specification
    "42501": (FailureClass.PERMISSION_DENIED, False),  # insufficient privilege
    "42": (FailureClass.UNKNOWN, False),  # syntax error or access rule violation: our bug
    "40": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # serialization failure, deadlock: rolled back
    "53": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # insufficient resources (too many connections)
    "55P03": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # lock not available
    "57014": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # query canceled (statement_timeout)
    "57": (FailureClass.UPSTREAM_UNAVAILABLE, True),  # operator intervention: shutdown, terminated
    "25": (FailureClass.UNKNOWN, False),  # invalid transaction state: our bug
    "0A": (FailureClass.UNKNOWN, False),  # feature not supported
    "3D": (FailureClass.UNKNOWN, False),  # invalid catalog name: configuration
    "3F": (FailureClass.UNKNOWN, False),  # invalid schema name: configuration
}

# A SQLSTATE a driver printed into the text (pgx's "(SQLSTATE 23505)", PDO's "SQLSTATE[23000]", JDBC's "SQL state:
# 23505"): read with the same table as a driver's exception.
_SQLSTATE_IN_TEXT: Final = prefiltered(re.compile(r"\bSQL ?STATE\b[\s:=\[(]*([0-9A-Z]{5})\b", re.I))


def sqlstate_in_text(text: str) -> str | None:
    """The first SQLSTATE ``text`` names that :data:`SQLSTATE_CLASSES` knows (the exact code, else its class), or
    ``None``: a driver that keeps it only in its message (Databricks' error conditions end in "SQLSTATE: 42P01")."""
    for match in _SQLSTATE_IN_TEXT.finditer(text):
        code = match.group(1).upper()
        if code in SQLSTATE_CLASSES or code[:2] in SQLSTATE_CLASSES:
            return code
    return None


def sqlstate_class(text: str) -> FailureClass | None:
    """The class of the first SQLSTATE ``text`` names (:data:`SQLSTATE_CLASSES`: the exact code, else its class), or
    ``None``."""
    for match in _SQLSTATE_IN_TEXT.finditer(text):
        code = match.group(1).upper()
        found = SQLSTATE_CLASSES.get(code) or SQLSTATE_CLASSES.get(code[:2])
        if found is not None:
            return found[0]
    return None


# gRPC status codes -> (class, may it have run), after the HTTP mapping google/rpc/code.proto gives
# each code: UNAVAILABLE is also what a dropped connection mid-call reports ("not always safe to
# retry non-idempotent operations", grpc.io/docs/guides/status-codes), so it does not say.
GRPC_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "CANCELLED": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    "UNKNOWN": (FailureClass.UPSTREAM_UNAVAILABLE, True),  # the server's handler raised
    "INVALID_ARGUMENT": (FailureClass.INVALID_INPUT, False),
    "DEADLINE_EXCEEDED": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    "NOT_FOUND": (FailureClass.NOT_FOUND, False),
    "ALREADY_EXISTS": (FailureClass.INVALID_INPUT, False),
    "PERMISSION_DENIED": (FailureClass.PERMISSION_DENIED, False),
    "UNAUTHENTICATED": (FailureClass.PERMISSION_DENIED, False),
    "RESOURCE_EXHAUSTED": (FailureClass.RATE_LIMITED, False),
    "FAILED_PRECONDITION": (FailureClass.INVALID_INPUT, False),
    "ABORTED": (FailureClass.UPSTREAM_UNAVAILABLE, False),  # a concurrency conflict, rolled back
    "OUT_OF_RANGE": (FailureClass.INVALID_INPUT, False),
    "UNIMPLEMENTED": (FailureClass.UNKNOWN, False),  # we called what the server lacks: our bug
    "INTERNAL": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    "UNAVAILABLE": (FailureClass.UPSTREAM_UNAVAILABLE, None),
    "DATA_LOSS": (FailureClass.UPSTREAM_UNAVAILABLE, True),
}

_GRPC_TOO_LARGE: Final = prefiltered(re.compile(
    r"\b(?:(?P<side>server|client): )?(?:(?P<sent>sent|sending|trying to send)|received|receiving|grpc) message "
    r"(?:larger than max|exceeds (?:the )?max)",
    re.I,
))
"""A message over a gRPC size limit, in the runtimes' words: grpc core's (grpcio, grpc-js, Ruby) "Received message
larger than max (5242880 vs. 4194304)" and "Sent message larger than max", grpc-go's "grpc: received message larger than
max" and "grpc: trying to send message larger than max", grpc-dotnet's "Received message exceeds the maximum configured
message size" / "Sending message exceeds …", grpc-java's "gRPC message exceeds maximum size". ``sent``: the sender's
own message, refused before it went out; ``side``: grpcio says which end refused it ("SERVER: Received …": the request,
on arrival; "CLIENT: Received …": the answer, so the handler ran)."""


def grpc_code_reading(name: str, details: str) -> tuple[FailureClass, bool | None]:
    """The class of gRPC status ``name`` (google/rpc/code.proto's spelling) and whether the call may have run
    (:data:`GRPC_CODES`), read with its ``details``.

    RESOURCE_EXHAUSTED is also each runtime's status for a message over its size limit (:data:`_GRPC_TOO_LARGE`), not
    only a quota: waiting never makes the same message fit, a smaller request or answer does (as HTTP 413 is read):
    ``invalid_input``. A message its sender refused, or a request the server refused on arrival, never ran; an answer
    the client refused means the handler ran; a refusal on receipt that does not say whose says nothing.
    """
    if name == "RESOURCE_EXHAUSTED":
        too_large = _GRPC_TOO_LARGE.search(details)
        if too_large is not None:
            side = (too_large.group("side") or "").lower()
            ran = False if too_large.group("sent") or side == "server" else True if side == "client" else None
            return FailureClass.INVALID_INPUT, ran
    return GRPC_CODES.get(name, (FailureClass.UNKNOWN, None))


_GRPC_NAMES: Final = ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
                      "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                      "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")
"""google/rpc/code.proto's names, by number."""

# A gRPC status printed into a text, in the form each runtime prints it: grpc-go's ``status.Error`` ("rpc error: code =
# ResourceExhausted desc = ..."; codes.Code's String() is CamelCase and spells "Canceled"), grpc-java's
# ``StatusRuntimeException``/``StatusException`` ("io.grpc.StatusRuntimeException: ABORTED: ..."), grpc-js ("8
# RESOURCE_EXHAUSTED: ...", the number beside the name), grpc-dotnet's ``RpcException`` ('Status(StatusCode="Aborted",
# Detail="...")'), tonic's ``Status`` as Debug prints it ("Status { code: AlreadyExists, message: ... }") and grpcio's
# ``_InactiveRpcError`` ("status = StatusCode.UNAVAILABLE").
_GRPC_IN_TEXT: Final = prefiltered(re.compile(
    r"\brpc error: code = ([A-Za-z]+)"
    r"|\bStatus(?:Runtime)?Exception: ([A-Z][A-Z_]+)\b"
    r"|\bStatusCode(?:=\"|\.)([A-Za-z_]+)"
    r"|\bStatus \{ code: ([A-Za-z]+)"
    r"|(?:^|: )(\d{1,2}) ([A-Z][A-Z_]+): ",
    re.M,
))
_CAMEL_WORDS: Final = re.compile(r"(?<=[a-z])(?=[A-Z])")


def grpc_status_in_text(text: str) -> str | None:
    """The gRPC status name (google/rpc/code.proto's spelling: ``RESOURCE_EXHAUSTED``) a text names in one of the
    runtimes' forms (:data:`_GRPC_IN_TEXT`), or ``None``; grpc-js's number must agree with its name."""
    for match in _GRPC_IN_TEXT.finditer(text):
        if match.group(5) is not None:
            number, name = int(match.group(5)), match.group(6)
            if number < len(_GRPC_NAMES) and _GRPC_NAMES[number] == name:
                return name
            continue
        raw = next(group for group in match.groups()[:4] if group is not None)
        name = _CAMEL_WORDS.sub("_", raw).upper()
        name = "CANCELLED" if name == "CANCELED" else name
        if name in GRPC_CODES:
            return name
    return None


# A token shaped like an API's error code inside prose. CamelCase of two words or more (AWS's ``InvalidClientTokenId``,
# Azure's ``AuthorizationFailed``, ``ProvisionedThroughputExceededException``), dotted parts allowed (EC2's
# ``InvalidInstanceID.NotFound``), anywhere. A snake-case code (Slack's ``invalid_auth``, ``not_in_channel``) only where
# an error code stands: the whole text, in parentheses, or last after a colon ("An API error occurred: missing_scope"),
# since argument names are snake case too ("'rate_limit_per_minute' must be at most 100").
# Each part is matched whole (no nested quantifier to backtrack through); :func:`named_code_class` keeps a name with a
# lower-to-upper hump or a dotted part, and drops one followed by "(": a call or an exception's repr
# ("FileNotFoundError(2, ...)" nested in a message), not a code.
_CAMEL_CODE: Final = prefiltered(re.compile(r"\b[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)*"))
_CAMEL_HUMP: Final = re.compile(r"[a-z0-9][A-Z]")
_CALLABLE_TYPE: Final = re.compile(r"(?:Callback|Handler|Delegate|Listener)$")
"""A CamelCase name that is a callable's type, not an error code: .NET's "rejected by the provided
RemoteCertificateValidationCallback" names who refused the certificate, no argument's "validation"."""
_SNAKE_CODE: Final = prefiltered(re.compile(r"\(([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\)"
                                r"|(?:^|[:=]\s*)([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)[\s.!]*$"
                                # an upper-case code heading its message ("INVALID_SESSION_ID: Session expired or
                                # invalid", jsforce's ``errorCode: message``): argument names are not upper case
                                r"|(?:^|:\s)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):\s"
                                # an error's type as a key names it (Elasticsearch's Java client: "[Elasticsearch
                                # exception [type=security_exception, reason=...]]")
                                r"|\btype=([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"))


def named_code_class(text: str) -> FailureClass | None:
    """The class of the first API error code ``text`` names that a family knows (:func:`api_code_class`)."""
    stripped = text.strip()
    tokens = [m.group(0) for m in _CAMEL_CODE.finditer(stripped)
              if ("." in m.group(0) or _CAMEL_HUMP.search(m.group(0))) and stripped[m.end():m.end() + 1] != "("
              and not _CALLABLE_TYPE.search(m.group(0))]
    if "_" in stripped:  # every snake-case code holds one; the scan costs ~0.25 ms on a 1 KB message without
        tokens += [m.group(1) or m.group(2) or m.group(3) or m.group(4) for m in _SNAKE_CODE.finditer(stripped)]
    for token in tokens:
        cls = api_code_class(token)
        if cls is not None and cls is not FailureClass.UNKNOWN:
            return cls
    return None


# Windows Sockets error numbers of a connection that failed (Windows Sockets Error Codes; WSAENETDOWN 10050 ...
# WSATRY_AGAIN 11002). Used by _PHRASES, _NEVER_REACHED and _AFTER_SENDING.
_WINSOCK_NUMBER: Final = r"(?:100(?:5[0134]|6[014]|65)|1100[12])\b"
_WINSOCK_NAME: Final = r"\b(?:winerror|errno|socket ?exception|socket ?error|win32 ?exception)\W{1,3}"

# A program that could not be started, as runtimes and shells report it (see _PHRASES). Used by _PHRASES and
# _NEVER_REACHED: the program never ran, so nothing reached what it would have called.
_PROGRAM_MISSING: Final = (
    r"\bspawn(?:sync)? \S+ (?:enoent|eacces)\b|"
    r"(?<![\w.~/+-])(?!(?:error|err|fatal|warning)\b)[\w.~/+-]+: command not found\b|\bzsh: command not found\b|"
    r"\bsh: \d+: \S+: not found\b|\bis not recognized as (?:an internal or external command|the name of a cmdlet)\b|"
    r"\bexecutable file not found in\b"
)

# An answer whose body ended before the length its headers declared, in the clients' words: node:http's bare "aborted"
# (IncomingMessage's error, the whole text, lower case as Node spells it: "Aborted" alone is a shell's SIGABRT),
# java.net.http's "fixed content-length: 1000, bytes received: 11", curl 18's "transfer closed with N bytes remaining
# to read", hyper's "end of file before message length reached", Apache HttpCore's ConnectionClosedException "Premature
# end of Content-Length delimited message body (expected: 1000; received: 11)" (and "... of chunk coded message body"),
# OkHttp's ProtocolException "unexpected end of stream" (its fixed-length and chunked body sources). The request was
# read: it may have been processed.
# Used by _PHRASES and _AFTER_SENDING.
_BODY_CUT: Final = (
    r"\A\s*(?:error:\s*)?(?-i:aborted)\s*\Z|\bcontent-length: \d+, bytes received: \d+|"
    r"\btransfer closed with \d+ bytes remaining\b|\bend of file before message length reached\b|"
    r"\bpremature end of (?:content-length delimited |chunk coded )?message body\b|\bunexpected end of stream\b"
)

# Status numbers standing as words ("403 Forbidden", "HTTP 503", "status=429").
_STATUS: Final = prefiltered(re.compile(r"(?<![\w.-])([1-5]\d\d)(?![\w.-])"))
# A number followed by a plural noun in lower case counts things ("processed 404 records", "Job status: 500 items
# remaining"): no status. Reason phrases are capitalised or singular ("404 Not Found", "503 service unavailable"); a
# status's own plurals ("500 errors", "503 responses") and the verbs after a status ("404 means") are not counts.
_COUNTED: Final = re.compile(
    r"[ \t]+(?!(?:does|means|says|returns|indicates|status|statuses|errors|responses|codes|replies|answers)\b)"
    r"[a-z]{3,}s\b")


def counts_things(text: str, end: int) -> bool:
    """Whether the number that ends at ``end`` in ``text`` is followed by a counted noun (:data:`_COUNTED`)."""
    return _COUNTED.match(text, end) is not None



# curl's exit code (curl(1) "EXIT CODES", libcurl-errors(3)), in its own error line ("curl: (7) Failed to connect to
# ...") or in a failed command whose program is curl, as Python's CalledProcessError ("Command '['curl', ...]' returned
# non-zero exit status 7.") and execa ("Command failed with exit code 7: curl ...") print it without curl's stderr.
# The code says what happened where no words do (only the code is left when stderr was not kept), and whether the
# request went out where curl's words do not: -> (class, whether the request may have been processed: False never
# reached, True may have). curl's words, when there, decide the class (35 for a client certificate the server refused
# is ``permission_denied``); 22 (an HTTP status >= 400) is left to the status curl prints beside it.
_CURL_LINE: Final = prefiltered(re.compile(r"\bcurl: \((\d{1,2})\) "))
_EXECA_CURL: Final = prefiltered(re.compile(r"\bcommand failed with exit code (\d{1,2}): (?:\S*/)?curl\b", re.I))
# CalledProcessError's "Command '<argv repr>' returned non-zero exit status N.": its end found first, then the one
# "Command '[" before it checked for curl as the program (a lazy scan from each "Command" to its end was quadratic).
_CALLED_PROCESS_END: Final = prefiltered(re.compile(r"\]' returned non-zero exit status (\d{1,2})\b"))
_CALLED_PROCESS_CURL: Final = re.compile(r"Command '\[['\"](?:[^'\"\s]*/)?curl['\"]")
_CURL_EXIT_CODES: Final[dict[int, tuple[FailureClass, bool]]] = {
    5: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # couldn't resolve proxy
    6: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # couldn't resolve host
    7: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # failed to connect
    35: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # TLS handshake failed
    60: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # the peer's certificate not verified
    83: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # issuer check failed
    90: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # pinned public key did not match
    91: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # invalid certificate status (OCSP)
    18: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # partial file: the body cut short
    28: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # operation timeout (the code alone does not say it was the connect)
    52: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # empty reply: the request was sent
    55: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # failed sending: part of the request may have gone
    56: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # failed receiving (a reset after the request)
    92: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # HTTP/2 stream error
}


def curl_exit_in_text(text: str, *, command_only: bool = False) -> tuple[FailureClass, bool] | None:
    """What curl's exit code in ``text`` says (:data:`_CURL_EXIT_CODES`), read from a failed curl command (execa's,
    CalledProcessError's) or, unless ``command_only``, curl's own line (:data:`_CURL_LINE`); ``None`` for none or a
    code not in the table."""
    match = _EXECA_CURL.search(text)
    end = _CALLED_PROCESS_END.search(text) if match is None else None
    if end is not None and _CALLED_PROCESS_CURL.match(text, max(text.rfind("Command '[", 0, end.start()), 0)):
        match = end
    if match is None and not command_only:
        match = _CURL_LINE.search(text)
    return None if match is None else _CURL_EXIT_CODES.get(int(match.group(1)))


_NO_BACKEND: Final = (
    r"\bno (?:available|healthy|ready|running) (?:server|instance|backend|upstream|endpoint|pod|replica|target)s?\b|"
    r"\ball (?:pods|servers|backends|instances|replicas|targets|endpoints|upstreams) are (?:down|unhealthy|unavailable)\b|"
    r"\bnot serving requests at this endpoint\b"
)
"""A router or platform with no backend to hand the request to, in its own page's words: Traefik's 503 "no available
server" (a router matched, no server ready: traefik/traefik PR #8170), OpenShift's router page "Application is not
available … Route and path matches, but all pods are down" / "not serving requests at this endpoint", Cloud Run's "The
request was aborted because there was no available instance". Nothing was forwarded (:data:`_NEVER_REACHED`), and
the service behind is out of reach for now (``upstream_unavailable``)."""

_POOL_TIMEOUT: Final = (
    r"(?:\b(?<!thread )(?<!worker )(?<!process )|queue|connection ?)pool\b(?!\()[^.\n;]{0,60}?"
    r"\b(?:timed? ?out|timeout)\b|"
    r"\bpool ?timeout|\b(?:could(?: not|n't)|unable to) get a connection after \d|connection ?acquire ?timeout|"
    r"\btimeout exceeded (?:when|while) trying to connect\b|"
    # ... and a checkout that waited for a pooled connection or resource and got none: the MongoDB drivers'
    # WaitQueueTimeoutError ("Timed out while checking out a connection from connection pool"), generic-pool's
    # "ResourceRequest timed out" (Sequelize 4, node-pool), Rails' ConnectionTimeoutError ("could not obtain a connection
    # from the pool within 5.000 seconds")
    r"\btimed? ?out while checking out (?:a |an )?(?:\w+ )?connection\b|\bresource ?request timed? ?out\b|"
    r"\b(?:could(?: not|n't)|unable to) obtain (?:a |an )?(?:\w+ )?connection from (?:the |its )?(?:connection )?pool\b"
)
"""A connection pool that gave no connection in time, in the words of pools that name themselves beside the timeout
(:data:`_NEVER_REACHED`): nothing was sent on a connection the caller never had."""

_H2_CRATE_REASONS: Final = {
    "not a result of an error": "NO_ERROR",
    "unspecific protocol error detected": "PROTOCOL_ERROR",
    "unexpected internal error encountered": "INTERNAL_ERROR",
    "flow-control protocol violated": "FLOW_CONTROL_ERROR",
    "settings ack not received in timely manner": "SETTINGS_TIMEOUT",
    "received frame when stream half-closed": "STREAM_CLOSED",
    "frame with invalid size": "FRAME_SIZE_ERROR",
    "refused stream before processing any application logic": "REFUSED_STREAM",
    "stream no longer needed": "CANCEL",
    "unable to maintain the header compression context": "COMPRESSION_ERROR",
    "detected excessive load generating behavior": "ENHANCE_YOUR_CALM",
    "security properties do not meet minimum requirements": "INADEQUATE_SECURITY",
    "endpoint requires http/1.1": "HTTP_1_1_REQUIRED",
}
"""The Rust ``h2`` crate's descriptions of the HTTP/2 error codes (``h2::Reason``'s Display), which hyper and reqwest
print in place of the code's name ("http2 error: stream error received: refused stream before processing any
application logic")."""

_H2_REASONS: Final = (
    r"\b(?:stream|connection) error (?:received|detected|sent(?: by user)?): (?:"
    + "|".join(re.escape(description) for description in _H2_CRATE_REASONS) + ")"
)
_H2_REASON: Final = prefiltered(re.compile(_H2_REASONS, re.I))
_H2_CODE_NAMES: Final = {name: code for code, (name, _, _) in HTTP2_ERROR_CODES.items()}
_H2_CODE: Final = prefiltered(re.compile(
    r"(?<![A-Za-z0-9])(?:NGHTTP2_|ErrorCodes\.)?(" + "|".join(_H2_CODE_NAMES) + r")(?![A-Za-z0-9_])"))
_H2_CONTEXT: Final = prefiltered(re.compile(r"http/?2|\bh2\b|rst_stream|stream|goaway|nghttp2|\breset\b|errorcodes\.", re.I))
_H2_NOTHING_PROCESSED: Final = prefiltered(re.compile(r"\blast[ _]?stream[ _]?id\W{1,3}0\b", re.I))


def http2_code_in_text(text: str) -> tuple[FailureClass, bool | None] | None:
    """The class and the side effect an HTTP/2 error code named in a foreign text says, read with the table an ``h2``
    event is read with (:data:`errscope._http.HTTP2_ERROR_CODES`, RFC 9113 §7); ``None`` when no code is named.

    The code as the runtimes print it beside a stream reset or a GOAWAY: .NET's HttpProtocolException ("The HTTP/2
    server reset the stream. HTTP/2 error code 'REFUSED_STREAM' (0x7)."), Node's ("Stream closed with error code
    NGHTTP2_CANCEL"), Go's ("stream error: stream ID 3; INTERNAL_ERROR"), OkHttp's ("stream was reset: CANCEL"),
    hyper's Debug ("Reset(StreamId(1), REFUSED_STREAM, Remote)") and the ``h2`` crate's descriptions, h2's own events
    printed by httpx ("<StreamReset stream_id:1, error_code:ErrorCodes.INTERNAL_ERROR, …>"). REFUSED_STREAM was
    closed before any processing (§8.7); a GOAWAY whose last stream id is 0 processed none (§6.8); any other code on
    a request the server had may have come after it acted.
    """
    described = _H2_REASON.search(text)
    if described is not None:
        name = _H2_CRATE_REASONS[described.group(0).split(": ", 1)[1].lower()]
    else:
        code = _H2_CODE.search(text)
        if code is None or not _H2_CONTEXT.search(text):
            return None
        name = code.group(1)
    _, failure_class, side_effect = HTTP2_ERROR_CODES[_H2_CODE_NAMES[name]]
    if _H2_NOTHING_PROCESSED.search(text):
        side_effect = False
    return failure_class, side_effect


_PROXY_REASON_PHRASES: Final = {status.phrase.lower(): int(status) for status in HTTPStatus if status >= 400}
_GO_URL_ERROR: Final = prefiltered(re.compile(
    r"(?:^|: )(?:Get|Head|Post|Put|Patch|Delete|Options|Connect|Trace) \"[^\"\s]+\": ([A-Za-z][A-Za-z' -]*?)\.?\s*$"))


def go_proxy_refusal(text: str) -> int | None:
    """The status a forward proxy refused Go's ``CONNECT`` with, when a text is net/http's ``url.Error`` over that
    refusal: ``Post "https://…": Proxy Authentication Required``. Go's transport returns an origin's answer as a
    response, never an error, but a proxy's non-200 answer to ``CONNECT`` as an error of its reason phrase alone
    (net/http ``Transport.dialConn``: ``errors.New(text)`` of ``resp.Status``); the origin was never reached (RFC 9110
    §9.3.6). Only a registered reason phrase of a 4xx or 5xx status is read."""
    match = _GO_URL_ERROR.search(text)
    return None if match is None else _PROXY_REASON_PHRASES.get(match.group(1).strip().lower())


_TUNNEL_REFUSED: Final = (
    r"\bproxy tunnel request to proxy\b[^\n]{0,200}?\bfailed\b|\bproxy response \(\d{3}\) !== 200\b|"
    r"\bconnect tunnel failed\b|\bfrom proxy after connect\b|\bunable to tunnel through proxy\b|"
    r"\btunneling socket could not be established\b|\bunsuccessful tunnel\b|\btunnel connection failed\b"
)
"""A forward proxy's refusal of the ``CONNECT`` tunnel, in the HTTP clients' words (:data:`_NO_CONNECTION`)."""

_NO_CONNECTION: Final = (
    # a driver that selected no server to send to (MongoDB's server selection: Node's MongoServerSelectionError
    # "connection <monitor> to 10.0.0.5:27017 closed", Go's "server selection error: …", the PHP driver's "No suitable
    # servers found"), a channel with no connection (grpc-js's "14 UNAVAILABLE: No connection established")
    r"server ?selection ?error\b|\bno suitable servers? found\b|\bno connection (?:was |could be )?established\b|"
    # a Kafka client with no broker to send to (sarama's "client has run out of available brokers to talk to",
    # aiokafka's "Unable to bootstrap from", kafka-python's NoBrokersAvailable, librdkafka's "1/1 brokers are down"),
    # NATS with no subscriber for the subject ("nats: no responders available for request": the request reached no
    # service), a gRPC call whose deadline passed while it waited for a connection (grpc-java's
    # "[buffered_nanos=…, waiting_for_connection]", grpc-js's "Deadline exceeded after 30.001s,Waiting for LB pick"),
    # hyper's connector ("error trying to connect: …", reqwest's Display before hyper-util), Go's TLS alert from the
    # peer in the handshake ("remote error: tls: handshake failure", "… protocol version not supported"; the
    # credential alerts are read as permission_denied first)
    r"\bremote error: tls:|\brun out of available brokers\b|\bunable to bootstrap\b|\bno ?brokers ?available\b|"
    r"\b\d+/\d+ brokers are down\b|"
    r"\bno responders (?:are )?available\b|\bwaiting[ _]for[ _](?:connection|lb pick)\b|\berror trying to connect\b|"
    # a failure while the connection was being made (SQL Server's "A network-related or instance-specific error occurred
    # while establishing a connection to SQL Server"), a TLS session never set up (Node's "Client network socket
    # disconnected before secure TLS connection was established", .NET's "The SSL connection could not be established")
    r"\b(?:while|when) establishing (?:a |the )?connection\b|"
    # ... and the clients that found no connection, node or endpoint to send on, in their own words: StackExchange.Redis
    # ("No connection is active/available to service this operation: SET …", "It was not possible to connect to the
    # redis server(s)"), the MongoDB .NET driver's MongoConnectionException ("An exception occurred while opening a
    # connection to the server."), RabbitMQ's .NET BrokerUnreachableException ("None of the specified endpoints were
    # reachable"), the Elasticsearch JavaScript client's NoLivingConnectionsError ("There are no living connections"),
    # the Neo4j drivers' "No routing servers available"
    r"\bno connection is (?:active|available)\b|\bnot possible to connect\b|"
    r"\b(?:while|when) opening (?:a |the )?connection\b|"
    r"\bnone of the (?:specified |configured |given )?(?:endpoints|hosts|servers|nodes|brokers|addresses) "
    r"(?:(?:were|was|are|is) reachable|(?:are|is) available)\b|\bno living connections\b|"
    r"\bno routing servers? (?:are )?available\b|"
    # ... and cluster drivers with no node to write the request to: Elasticsearch's Java TransportClient
    # ("NoNodeAvailableException[None of the configured nodes are available: …]", its ensureNodesAreAvailable with no
    # connected node; not "… were available", its retry listener's after nodes it tried failed), the DataStax Java
    # driver's "No node was available to execute the query" (an empty query plan), gocql's "no hosts available in the
    # pool": no node to send to, whatever follows
    r"\bno (?:nodes?|hosts?) (?:was |were |is |are )?available\b|"
    r"\bbefore (?:a |the )?secure (?:tls|ssl) connection was established\b|"
    r"\b(?:ssl|tls) connection could not be established\b|"
    # a gRPC stream a draining server refused (grpc-go's statusGoAway "the stream is rejected because server is
    # draining the connection": a stream above the GOAWAY's last stream id, unprocessed, so grpc-go retries it
    # transparently; RFC 9113 §6.8)
    r"\bstream is rejected because (?:the )?server is draining\b|"
    # ... and grpc-java's (NettyClientHandler: "Abrupt GOAWAY closed unsent stream", a stream whose headers were never
    # written; its "… closed sent stream" may have been processed)
    r"\bclosed unsent stream\b|"
    # a forward proxy that refused the CONNECT tunnel (RFC 9110 §9.3.6: any answer but a 2xx refuses it; the origin
    # was never reached, whatever the status), in the clients' words: .NET's "The proxy tunnel request to proxy '…'
    # failed with status code '502'." (HttpRequestError.ProxyTunnelError), undici's ProxyAgent "Proxy response (407)
    # !== 200 when HTTP Tunneling", curl's "CONNECT tunnel failed, response 403" / "Received HTTP code 407 from proxy
    # after CONNECT", HttpURLConnection's "Unable to tunnel through proxy", Node request's "tunneling socket could not
    # be established", reqwest's "unsuccessful tunnel"; the status read first decides the class (407: permission_denied)
    + _TUNNEL_REFUSED
)
"""A driver or client that had no connection or server to send on, or lost it before the session was set up
(:data:`_NEVER_REACHED`, and ``upstream_unavailable`` by its words)."""

# A client-side circuit breaker refusing a call while it is open, in the breakers' own words: resilience4j's "CircuitBreaker
# 'x' is OPEN and does not permit further calls" (CallNotPermittedException), Hystrix's "short-circuited and is OPEN",
# Polly's BrokenCircuitException "The circuit is now open and is not allowing calls.", opossum's "Breaker is open"
# (EOPENBREAKER), pybreaker's "Timeout not elapsed yet, circuit breaker still open" (the timeout there is the breaker's
# reset timer). The breaker refused before any request: never reached (_NEVER_REACHED). Not "circuit breaker opened":
# the call that tripped it was sent and failed on its own.
_BREAKER_OPEN: Final = (
    r"\bcircuit ?breaker\b[^.\n]{0,40}\bis (?:half[ -])?open\b|\bshort-circuited and is open\b|"
    r"\b(?:circuit ?breaker|circuit|breaker) (?:is )?(?:now |still )?open\b|\bnot allowing calls\b|"
    r"\bdoes not permit further calls\b|\beopenbreaker\b|\bbroken ?circuit ?exception\b|"
    r"\bcall ?not ?permitted ?exception\b"
)

# A client refusing its own configuration: a setting it does not know or a value it cannot take, named by its key
# (kafka-python's "Unrecognized configs: {'timeout_ms'}", librdkafka's "No such configuration property: "request.timeout"",
# Kafka's Java ConfigException "Invalid value 10s for configuration request.timeout.ms: …" and its "… was supplied but
# isn't a known config"). The key's words ("timeout", "retries", "rate_limit") name a setting, not an event: the tool's
# own mistake (``unknown``), and nothing was sent (the client was never built). Only configuration words: "invalid
# parameter" and "unexpected keyword argument" are a caller's arguments as often as a setting.
_SETTING_REFUSED: Final = prefiltered(re.compile(
    r"\b(?:unrecogni[sz]ed|unknown|unsupported|unexpected|no such) config(?:uration)?s?\b"
    r"(?: (?:propert(?:y|ies)|keys?|options?|settings?|names?|parameters?))?\s*[:'\"{]|"
    r"\binvalid value \S+ for configuration\b|\b(?:is not|isn't) a known config(?:uration)?\b",
    re.I,
))


def refuses_a_setting(text: str) -> bool:
    """Whether ``text`` is a client refusing a setting of its own configuration (:data:`_SETTING_REFUSED`)."""
    return _SETTING_REFUSED.search(text) is not None


# A resource another holder keeps (Windows' ERROR_SHARING_VIOLATION, 32, as .NET and Python print it: "The process
# cannot access the file … because it is being used by another process"; a WebDAV or drive item "is locked"): busy
# for now, as errscope reads NTSTATUS 0xC0000043 and SQLite's SQLITE_BUSY on an exception. Read before the permission
# phrases: Python raises it as a PermissionError. Not a document locked by a password (the tool's credential).
_HELD_ELSEWHERE: Final = prefiltered(re.compile(
    r"\bbeing used by another process\b|\blocked by another (?:user|process|session|transaction|client)\b|"
    r"\b(?:resource|file|item|document|record|object|entity|blob)\b[^.\n]{0,60}?\bis (?:currently )?locked\b"
    r"(?! (?:with|by) (?:a )?password)",
    re.I,
))

# A write the database aborted because another touched the same data at the same time, asking for it to be tried again:
# MongoDB's code 112 ("WriteConflict error: this operation conflicted with another operation. Please retry your operation
# or multi-document transaction.", labelled TransientTransactionError), Firestore's and Datastore's ABORTED ("Too much
# contention on these documents/entities"), DynamoDB's TransactionConflict (its exception, its cancellation reason).
# Nothing was applied and the same write may succeed later, as PostgreSQL's 40001/40P01 and gRPC's ABORTED are read: busy
# for now. Read before an HTTP status (google-api-core prints ABORTED as "409", which alone reads as the caller's
# conflict).
_CONFLICTED_WRITE: Final = prefiltered(re.compile(
    r"\b(?:write|transaction) ?conflict(?:exception|error)?\b|\bconflicted with another (?:operation|transaction|write)\b|"
    r"\btoo much contention\b",
    re.I,
))

# An upstream that honours idempotency keys refusing a request for its key (IETF draft-ietf-httpapi-idempotency-key-header
# §2.7; Stripe, Resend): another request with the key is still being processed (409 "A request is outstanding for this
# Idempotency-Key", Stripe's "another in-progress request using this Stripe-Idempotency-Key", Resend's
# ``concurrent_idempotent_requests``), so this one did nothing but the first may still take effect, and the same key
# later gets its outcome: busy for now and may have acted, never the caller's bad request its 409 reads as (a model
# told to fix its arguments changes them, and a new key sends the write twice: tests/heldout_cases.md J492). The key
# used before with other parameters (Stripe's ``idempotency_error``, a 422) is the caller's request: ``invalid_input``.
_IDEMPOTENCY_KEY: Final = prefiltered(re.compile(
    r"\bidempotency[- ]?keys?\b|\b(?:keys? for|concurrent) idempotent requests?\b", re.I))
"""An idempotency key named (not "non-idempotent request", a retry policy's words)."""
_KEY_IN_FLIGHT: Final = re.compile(
    r"\bin[- ]progress\b|\boutstanding\b|\bconcurrent\b|\bstill (?:being processed|processing|going through)\b", re.I)
_KEY_REUSED: Final = re.compile(
    r"\bsame (?:parameters|arguments|request body|payload)\b|\bdifferent (?:request|parameters|arguments|payload|body)\b|"
    r"\b(?:already (?:been )?used|reused) with\b",
    re.I,
)


def key_in_flight(text: str) -> bool:
    """Whether an upstream refused a request because another with its idempotency key is still being processed
    (:data:`_KEY_IN_FLIGHT`): busy for now, and the first request may still take effect."""
    text = text.replace("_", " ")
    return _IDEMPOTENCY_KEY.search(text) is not None and _KEY_IN_FLIGHT.search(text) is not None


def _key_reused(text: str) -> bool:
    text = text.replace("_", " ")
    return _IDEMPOTENCY_KEY.search(text) is not None and _KEY_REUSED.search(text) is not None


# An MCP session the server no longer knows, or never set up, in the SDKs' and gateways' words: the streamable HTTP
# transport's 404 "Session not found" (MCP 2025-11-25, Transports > Session Management: a server that ended a session
# answers every request in it with 404; the Python SDK's -32600, the TypeScript SDK's -32001, the Java SDK's "Session
# not found: <id>"), the Python client's own "Session terminated" for a 404 without a body, the TypeScript SDK's
# examples' "No transport found for sessionId" and "Bad Request: No valid session ID provided" (their 400 for an id
# they do not know), a gateway's "Invalid session ID" or "Unknown Mcp-Session-Id header", a server naming the id ("MCP
# session with ID '…' could not be found.", tests/heldout_cases.md J486), and a single-session server refusing another
# handshake ("Invalid Request: Server already initialized") or a request before one ("Bad Request: Server not
# initialized"). The server processed nothing: the session is the transport's state between two hops, no argument or
# record the model named, so a relay of it is the MCP server behind out of reach until a new session is set up
# (``upstream_unavailable``, never reached), not the 404's ``not_found`` nor the 400's ``invalid_input``. The words alone are also a tool's own records ("Session not
# found" for a session id the model passed): read only where the text is about MCP or JSON-RPC (:data:`_MCP_CONTEXT`:
# the envelope, the transport's words, a method's name), or is a JSON-RPC error's message (:func:`names_ended_session`).
# Not "session expired": a web login's and Salesforce's INVALID_SESSION_ID are credentials.
# ... and a session that was never set up because the handshake one hop further failed, in the SDKs' and hosts' words
# (MCP 2025-11-25, Lifecycle > Initialization: no request but pings before ``initialize`` was answered): the Java SDK's
# ``McpError`` "Client failed to initialize by explicit API call" (any failure of ``initialize``, its cause dropped), a
# host's "Failed to initialize MCP client: x", "Error initializing MCP server: …", a server's -32600 "Client not
# initialized" (the PHP SDK's, to a request before the handshake), VS Code's "Server exited before responding to
# `initialize` request.". Nothing was sent but the handshake. A client's "must be initialized before listing tools" is
# the tool's own order of calls (J420's reading), not a handshake that failed.
_SESSION_ENDED: Final = prefiltered(re.compile(
    r"\bsession(?:(?: with)? ?id)?(?: ['\"`\u2018]?[\w-]*\d[\w-]*['\"`\u2019]?)? (?:was |could )?"
    r"(?:not (?:be )?found|terminated|unknown|no longer (?:exists|valid))\b|"
    r"\bno transport found for session ?id\b|\b(?:no valid|invalid|unknown) (?:mcp-)?session[- ]?id\b|"
    r"\b(?:server|client) (?:already|not) initiali[sz]ed\b|"
    r"\b(?:client|server|session|connection) failed to initiali[sz]e\b|"
    r"\b(?:failed to|could not|unable to) initiali[sz]e (?:the )?mcp\b|\berror initiali[sz]ing (?:the )?mcp\b|"
    r"\bexited before responding to\b[^\n]{0,20}\binitiali[sz]e\b",
    re.I,
))
_MCP_CONTEXT: Final = prefiltered(re.compile(
    r"\"jsonrpc\"|\bjson-?rpc\b|\bmcp\b|\bmcp ?error\b|\bmcp[-_ ]session|\bsessionid\b|\berror posting to endpoint\b|"
    r"\bsending message\b|\bstreamable ?http\b|\b(?:tools|resources|prompts)/(?:list|call|read|get)\b|"
    r"`initialize` request\b",
    re.I,
))


def names_ended_session(message: str) -> bool:
    """Whether a JSON-RPC error's ``message`` says the MCP session it was sent in is gone or was never set up
    (:data:`_SESSION_ENDED`)."""
    return _SESSION_ENDED.search(message) is not None


def relays_ended_session(text: str) -> bool:
    """Whether a failure text relays an MCP session the server behind no longer knows (:data:`_SESSION_ENDED`, in a
    text about MCP or JSON-RPC: :data:`_MCP_CONTEXT`)."""
    return _SESSION_ENDED.search(text) is not None and _MCP_CONTEXT.search(text) is not None


_PHRASES: Final[tuple[tuple[FailureClass, Prefiltered], ...]] = (
    (FailureClass.RATE_LIMITED, prefiltered(re.compile(
        r"rate.?limit|too many requests|quota exceeded|throttl|slow down|"
        # a usage quota spent (Google's dailyLimitExceeded read as a rate limit): OpenAI's "You exceeded your current
        # quota", Anthropic's "reached your specified API usage limits", Tavily's 432/433 "exceeds your plan's set
        # usage limit" / "exceeds the pay-as-you-go limit"
        # (the limit reached or exceeded, not a usage limit named: "Quota usage: 12% of monthly usage limits")
        r"\bexceeded your (?:current )?quota\b|\b(?:reached|exceed(?:ed|s|ing)?|hit) (?:[\w'-]+ ){0,4}usage limits?\b|"
        r"\busage limits? (?:has been |have been |was |is )?(?:reached|exceeded|hit)\b|\bpay-as-you-go limit\b|"
        # a request rate exceeded, in the API's own count (Shopify's REST Admin API: "Exceeded 2 calls per second for
        # api client. Reduce request rates to resume uninterrupted service.")
        r"\bexceed(?:ed|s|ing)?\b[^.\n]{0,30}?\b(?:calls|requests|queries)\s*(?:per|/|a|an)\s*(?:second|sec|minute|min|hour|day)\b|"
        # Azure Cosmos DB's 429 sentence ("Request rate is large. More Request Units may be needed, so no changes were
        # made.") as its .NET, Java and Node SDKs print it
        r"\brequest rate is (?:too )?large\b",
        re.I))),
    (
        FailureClass.PERMISSION_DENIED,
        prefiltered(re.compile(
            r"forbidden|permission|access (is )?denied|not authori[sz]ed|unauthori[sz]ed|lacks? .*scope|"
            # Credentials the upstream rejected, in OAuth's words (RFC 6750 §3.1 ``invalid_token``,
            # ``insufficient_scope``; RFC 6749 §5.2 ``invalid_grant``) and in prose: fixed by signing in
            # again, so checked before "invalid" reads them as the caller's arguments.
            r"\binvalid[ _](?:(?:access|bearer|auth|refresh|id)[ _])?token\b|\bexpired (?:(?:access|bearer|auth) )?token\b|"
            r"\b(?:tokens?|credentials?) (?:has |have |is |are )?(?:expired|revoked|no longer valid)\b|"
            r"\binvalid[ _](?:credentials|grant)\b|"
            r"\binsufficient[ _](?:authentication[ _])?scopes?\b|\bunauthenticated\b|(?<!\bpeer )\bnot authenticated\b|"
            # ... and in the words of the services MCP servers wrap: Google's "Request had insufficient authentication
            # scopes" (ACCESS_TOKEN_SCOPE_INSUFFICIENT), Microsoft Graph's "Insufficient privileges to complete the
            # operation" (Authorization_RequestDenied), MongoDB's "command find requires authentication" (code 13
            # Unauthorized), Redis's WRONGPASS reply code, and no credential to sign with at all (botocore's
            # NoCredentialsError "Unable to locate credentials", a missing "config profile (x)")
            r"\binsufficient (?:privileges?|permissions?)\b|\brequires authentication\b|\bwrongpass\b|"
            r"\b(?:unable to locate|could not (?:find|locate|load)|no) (?:valid )?credentials\b|"
            r"\b(?:config|credentials?) profile\b[^.\n]{0,60}?\b(?:could not be found|not found|does not exist)\b|"
            # EPERM, the operating system refusing the operation (Python's PermissionError for errno 1 and 13 alike)
            r"\beperm\b|\boperation not permitted\b|"
            # EROFS, a filesystem that refuses every write ("cp: cannot create regular file 'x': Read-only file
            # system"; Node's "EROFS: read-only file system, open 'x'"), as Python's OSError(EROFS)
            r"\bread-only file ?system\b|\berofs\b|"
            # (not SslStream's "Authentication failed because the remote party has closed the transport stream": a TLS
            # handshake the peer cut, no credential refused)
            r"\bauthentication (?:failed|failure|required)\b(?!,? because (?:the )?(?:remote|peer|connection|transport|stream))|"
            # NATS's -ERR for a login or a subject the account may not use ("Authorization Violation", "Permissions
            # Violation for Publish to x")
            r"\b(?:authori[sz]ation|permissions?) violation\b|"
            # A rejected API key (OpenAI's "Incorrect API key provided" / ``invalid_api_key``, "API key expired"):
            # the operator's credential, never the model's arguments.
            r"\b(?:invalid|incorrect|wrong|bad|expired|revoked|disabled)[ _](?:api[ _-]?key|secret[ _]key|access[ _]key)s?\b|"
            r"\bapi[ _-]?key (?:(?:is|was|has been) )?(?:invalid|incorrect|expired|revoked|disabled|not valid)\b|"
            # A login or identity the upstream refused, in the words APIs and databases answer with: GitHub's "Bad
            # credentials" (401) and "Resource not accessible by integration" (403), Oracle's ORA-01017 "invalid
            # username/password; logon denied", Azure's "does not have authorization to perform action", a
            # disabled account. Checked before "invalid" and "does not exist" read them as arguments or records.
            r"\bbad credentials\b|\bnot accessible by\b|\b(?:logon|login|sign[ -]?in) (?:denied|failed|refused)\b|"
            r"\binvalid (?:username|user ?name|user|login)(?:/| or | and )password\b|"
            r"\bdoes(?: not|n't) have (?:the )?(?:authori[sz]ation|access|rights?)\b|"
            r"\baccount (?:is |has been )?(?:inactive|disabled|suspended|locked)\b|"
            # A gateway's authentication filter: Envoy/Istio's jwt_authn ("Jwt is expired", "Jwt verification fails",
            # "Jwt is missing"), Kong's key-auth and basic-auth ("No API key found in request", "Invalid authentication
            # credentials").
            r"\bjwt (?:is |verification |issuer |header )?(?:expired|fails|failed|invalid|missing|not (?:configured|allowed))\b|"
            r"\bno api key (?:found|provided|given)\b|\binvalid (?:authentication|auth) (?:credentials|token|header)\b|"
            # The peer's TLS alert refusing this side's client certificate (RFC 8446 §6.2: bad_certificate,
            # certificate_required, unknown_ca, access_denied), as Go ("remote error: tls: bad certificate"), Java and
            # rustls ("Received fatal alert: bad_certificate", "CertificateRequired") and OpenSSL ("tlsv13 alert
            # certificate required") word it: the tool's credential refused, as the same alert on ssl.SSLError.
            r"\b(?:remote error: tls:|alert[:\s]+|alert (?:number \d+ )?)\s*(?:bad ?certificate|certificate ?required|"
            r"unknown ?(?:ca|certificate authority)|access ?denied)\b|"
            # git's answer to an HTTP 401 when it may not prompt (GIT_TERMINAL_PROMPT=0, no tty): "could not read
            # Username for 'https://host': terminal prompts disabled" (credential.c), and its SSH transport's
            # "Permission denied (publickey)" (the words above).
            r"\bcould not read (?:username|password) for\b|\bterminal prompts disabled\b|"
            # A destination the server's own policy refuses (protection against server-side request forgery, an
            # allow-list): the reference fetch server's "Refused to fetch …: x resolves to y, which is not a public
            # address", "Access to private IP addresses is not allowed", "Host not in allowlist". No retry changes it;
            # the operator's setting does.
            r"\bnot a public (?:ip )?address\b|\bssrf (?:protection|guard|filter|policy)\b|"
            r"\bnot (?:in|on) (?:the )?(?:\w+ )?(?:allow|white) ?list(?:ed)?\b|"
            r"\b(?:private|internal|loopback|link-local)(?: network)?(?: ip)? (?:addresse?s?|hosts?|networks?|ips?)\b"
            r"[^.\n]{0,20}?\b(?:not allowed|not permitted|blocked|forbidden|refused)\b|"
            r"\b(?:access|requests?|connections?|fetch(?:ing|es)?) to (?:private|internal|loopback|link-local)\b[^.\n]{0,40}?"
            r"\b(?:not allowed|not permitted|blocked)\b|"
            r"\b(?:domain|host|url|destination)\b[^\n]{0,80}?\bis not allowed by (?:the )?(?:\w+ )?polic(?:y|ies)\b|"
            # SQLite refusing a write to a database the server's user may only read (SQLITE_READONLY, code 8 and its
            # extended 1032 SQLITE_READONLY_DBMOVED...: "attempt to write a readonly database"), as errscope reads the
            # code on sqlite3's exception: the file's permissions or the way the operator opened it.
            r"\battempt to write a read-?only database\b|\bsqlite[ _]readonly\b|"
            # a document locked by a password the tool lacks (PyMuPDF's "document closed or encrypted", "file is
            # encrypted"): as pypdf's FileNotDecryptedError, the credential that opens it
            r"\b(?:document|file|pdf|archive) (?:is )?(?:closed or )?encrypted\b",
            re.I,
        )),
    ),
    (
        FailureClass.UPSTREAM_UNAVAILABLE,
        prefiltered(re.compile(
            r"unavailable|timed? ?out|connection (?:was )?(?:refused|reset)|refused (?:the |our |a )?connection|"
            # a database out of connections for this role (PostgreSQL 53300, as psycopg's SQLSTATE is read)
            r"\bremaining connection slots are reserved\b|"
            # errno names of a failed connection, as Node, Go and Python servers print them, and Windows Sockets' own
            # (WSAE...), with Windows' error numbers: its sentences are translated, its numbers are not (Windows
            # Sockets Error Codes: 10053 aborted, 10054 reset, 10060 timed out, 10061 refused, 10064/10065 unreachable;
            # 10050/10051 network down or unreachable, 11001/11002 host not found), after the name each runtime gives
            # them: Python's "[WinError N]" and "[Errno N]", .NET's "SocketException (N)", Win32Exception.
            r"\b(?:wsa)?e(?:connrefused|connreset|connaborted|timedout|hostunreach|netunreach|hostdown|pipe|ai[ _]again)\b|"
            + _WINSOCK_NAME + _WINSOCK_NUMBER + "|"
            # ... and Python's socket.gaierror on Windows ("[Errno 11001] getaddrinfo failed")
            r"\bgetaddrinfo failed\b|"
            # A name that does not resolve is an upstream out of reach, never a missing record (checked before
            # "no such"): Go's resolver, glibc's getaddrinfo, Node's ENOTFOUND, Java's UnknownHostException.
            r"no such host|name or service not known|nodename nor servname|failure in name resolution|"
            r"could not resolve host|name not resolved|\benotfound\b|unknown ?host ?exception|"
            # A connection that ended or never formed, in the words of the runtimes that report it: Node (undici's
            # "fetch failed" is thrown only when no HTTP answer came; "other side closed", "socket hang up"), Go
            # ("Post \"url\": EOF", "broken pipe"), Rust's reqwest and .NET ("error sending request"), aiohttp
            # ("Cannot connect to host"), httpx ("All connection attempts failed"), Java's reactor-netty ("Connection
            # prematurely closed BEFORE response"), Windows ("forcibly closed", "actively refused"), MCP SDKs
            # ("Connection closed", "Transport closed"), Chromium (net::ERR_CONNECTION_CLOSED, "_" read as a space);
            # a write to a pipe or socket whose reader is gone in Node's words (libuv's UV_EOF on a write, Windows'
            # broken pipe: "Error: write EOF" {code: 'EOF', syscall: 'write'}; net.Socket's EPIPE "This socket has been
            # ended by the other party"); the Go SDK's jsonrpc2 ErrClientClosing with the read's cause ("client is
            # closing: EOF": the server's end of the connection ended while a call was out).
            r"\bfetch failed\b|other side closed|socket hang up|premature close|\bunexpected eof\b|broken pipe|"
            r"\bwrite eof\b|\bended by the other party\b|\bclient is closing\b|"
            r"\b(?:get|post|put|patch|delete|head) \"[a-z][a-z0-9+.-]*://[^\"]*\": |"
            r"\b(?:connection|transport|socket|stream|channel) (?:was |has been |is )?closed\b|"
            r"closed by (?:the )?(?:remote|peer|server)|forcibly closed|actively refused|prematurely closed|remote end closed|"
            r"server closed (?:the )?(?:idle )?connection|connection aborted|connection attempts? failed|"
            r"failed to establish (?:a )?(?:new )?connection|connection could not be established|\bund err (?:socket|closed)\b|"
            r"\berror (?:occurred )?(?:while )?sending (?:the )?request\b|\b(?:cannot|can't|could not|couldn't|unable to|"
            r"failed to) (?:connect\b|open (?:a )?socket to\b)|network is unreachable|host is unreachable|no route to host|"
            r"server disconnected|"
            # A deadline that passed with no answer: Go's context, gRPC's DEADLINE_EXCEEDED (status 4), and Reactor's
            # timeout() ("Did not observe any item or terminal signal within 60000ms").
            # tokio's timeout(): "deadline has elapsed".
            r"deadline (?:has )?(?:exceeded|elapsed)|"
            r"\b(?:did not|didn't|no)\b[^.\n]{0,60}?\bwithin \d+(?:\.\d+)? ?(?:ms|s|secs?|seconds?)\b|"
            # The upstream's certificate not verified (the words ssl.SSLCertVerificationError stands for on our side).
            r"\bx509: |failed to verify certificate|certificate verify failed|self[ -]signed cert|"
            r"unable to verify the first certificate|unable to get local issuer certificate|"
            # ... expired or not yet valid, or issued for another name, in each runtime's words: OpenSSL, Node and curl
            # ("certificate has expired", Node's CERT_HAS_EXPIRED and ERR_TLS_CERT_ALTNAME_INVALID "Hostname/IP does not
            # match certificate's altnames"), curl ("SSL certificate problem", "no alternative certificate subject
            # name matches"), Java ("PKIX path building failed", CertificateExpiredException, "No subject alternative
            # DNS name matching"), .NET ("The remote certificate is invalid", NotTimeValid,
            # RemoteCertificateNameMismatch, "The SSL connection could not be established"), rustls ("invalid peer
            # certificate: NotValidForName").
            r"\bcert(?:ificate)? has expired\b|\bcertificate (?:is )?not yet valid\b|"
            r"\bcertificate ?(?:expired|not ?yet ?valid) ?exception\b|"
            r"\bdoes(?: not|n't) match (?:the )?certificate'?s? (?:alt ?names|list)\b|\bcert altname invalid\b|"
            r"\bhostname mismatch\b|\bno alternative certificate subject name\b|"
            r"\bno subject alternative (?:dns |ip )?names?\b|"
            # JSSE's and OkHttp's SSLPeerUnverifiedException (never_reached), Apache HttpClient's NoHttpResponseException
            # ("... failed to respond"), its and Reactor Netty's pool that gave no connection in time
            r"\bssl ?peer ?unverified\b|\bpeer not authenticated\b|\bhostname \S+ not verified\b|\bfailed to respond\b|"
            r"\bconnection ?request ?timeout ?exception\b|\bpool ?acquire ?timeout\b|"
            r"\bremote ?certificate ?(?:name ?mismatch|chain ?errors|is invalid)\b|\bnot ?time ?valid\b|"
            r"\binvalid peer certificate\b|\bpkix path (?:building|validation) failed\b|"
            r"\bunable to find valid certification path\b|\bssl certificate problem\b|"
            r"\bssl connection could not be established\b|"
            # ... and .NET's SslStream when the application's RemoteCertificateValidationCallback (Npgsql's, MailKit's,
            # an HttpClientHandler's ServerCertificateCustomValidationCallback) returned false: "The remote certificate
            # was rejected by the provided RemoteCertificateValidationCallback." (not the "validation" of an argument)
            r"\bremote certificate was rejected\b|\bcertificate ?validation ?callback\b|"
            # ... and MailKit's SslHandshakeException ("An error occurred while attempting to establish an SSL or TLS
            # connection.": a certificate refused, or no protocol in common)
            r"\b(?:attempting|trying|unable|failed) to establish an? (?:ssl or tls|ssl|tls|secure) connection\b|"
            # A database connection the driver never had or lost, in the words of the runtimes' database layers (read
            # as the codes on a Python driver's exception): Go's database/sql ErrBadConn "driver: bad connection" and
            # go-sql-driver/mysql's ErrInvalidConn "invalid connection" (not a connection string or setting that is
            # invalid: the tool's own configuration), Hibernate's and Spring's "Unable to acquire JDBC Connection",
            # "Failed to obtain JDBC Connection", "Could not open JDBC Connection for transaction", MySQL Connector/J's
            # "Communications link failure … The driver has not received any packets from the server", PgJDBC's "An
            # I/O error occurred while sending to the backend", Prisma's P1017 "Server has closed the connection"
            r"\bdriver: bad connection\b|"
            r"\binvalid connection\b(?![ _-]?(?:string|uri|url|param|option|setting|config|name|id\b|type|key|info|cred|format|scheme))|"
            r"\b(?:unable to acquire|failed to obtain|could not (?:get|open|obtain|acquire)|cannot (?:get|acquire)) "
            r"(?:a )?jdbc connection\b|\bhas not received any packets from the server\b|"
            r"\bi/o error occurred while sending to the backend\b|\bserver has closed (?:the )?connection\b|"
            # AMQP 0-9-1's reply 320 CONNECTION_FORCED ("broker forced connection closure with reason 'shutdown'"): the
            # broker closed the connection, an operator's or a node's going down (not known what it took before)
            r"\bconnection forced\b|\bforced connection closure\b|"
            # a driver with no server or connection to send on (_NO_CONNECTION): MongoDB's server selection, grpc-js's
            # "No connection established", SQL Server's "… while establishing a connection" (its "The server was not
            # found" is no missing record)
            + _NO_CONNECTION + r"|"
            # a pool that gave no connection in time (_POOL_TIMEOUT), whether or not its words say "timed out"
            + _POOL_TIMEOUT + r"|"
            # a DNS server that failed to answer (RFC 1035 §4.1.1 RCODE 2, SERVFAIL): dnspython's NoNameservers "All
            # nameservers failed to answer the query …: Server … answered SERVFAIL", c-ares' ESERVFAIL through Node's
            # dns ("queryA ESERVFAIL api.example.test") and aiodns; as those exceptions are read (side effect not known)
            r"\ball nameservers failed to answer\b|\b(?:ares[ _])?eservfail\b|\banswered servfail\b|"
            # an HTTP/2 stream reset or GOAWAY in the h2 crate's words for its codes (http2_code_in_text)
            + _H2_REASONS + r"|"
            # rustls's other refusals (Rust's reqwest, hyper, tonic): "received fatal alert: HandshakeFailure", a record
            # that is not TLS ("received corrupt message of type InvalidContentType": TLS spoken to a plaintext port),
            # no version or cipher suite in common ("peer is incompatible: ...").
            r"received fatal alert|\breceived corrupt message\b|\bpeer is incompatible\b|"
            # A 5xx told in words (OpenAI's ``server_error``, "Internal Server Error" without its number): the HTTP
            # table's class for 500 (RFC 9110 §15.6.1).
            r"\b(?:internal )?server[ _]error\b|"
            r"bad gateway|gateway timeout|temporarily|try again later|is down|overloaded|"
            # a peer shedding load: "Server is busy: too many in-flight messages" (kotlin-sdk Protocol.kt, -32603)
            r"\b(?:server|service) (?:is )?busy\b|\btoo many in-flight\b|"
            # An answer cut short or a connection the peer wound down, as the clients word it: HTTP/2's GOAWAY (Go's
            # "server sent GOAWAY and closed the connection"), httpx's "peer closed connection without sending complete
            # message body (incomplete chunked read)", urllib3's "Connection broken: IncompleteRead", Python's
            # SSLEOFError ("EOF occurred in violation of protocol"), ECONNABORTED's "Software caused connection abort".
            r"\bgoaway\b|\bpeer closed (?:the )?connection\b|\bincomplete ?(?:chunked )?read\b|\bconnection broken\b|"
            r"\beof occurred in violation of protocol\b|\bconnection abort\b|"
            # ... and in other runtimes' words: OkHttp ("unexpected end of stream on ..."), HttpURLConnection ("Unexpected
            # end of file from server"), Ruby's EOFError ("end of file reached"), .NET ("The response ended
            # prematurely"), curl 52 ("Empty reply from server"), hyper ("IncompleteMessage"), Node's TLS socket ("Client
            # network socket disconnected"), java.net.http ("header parser received no bytes"), Go's http2 ("stream error:
            # stream ID 3; INTERNAL_ERROR").
            r"\bunexpected end of (?:stream on|file from server)\b|\bend of file reached\b|"
            r"\bended prematurely\b|\bempty reply from server\b|\bincomplete ?message\b|\bsocket (?:was )?disconnected\b|"
            r"\breceived no (?:bytes|data)\b|\bstream error: stream id \d|\benotconn\b|"
            # pymodbus ("No response received after 0 retries", "Connection unexpectedly closed 0.000 seconds into read")
            r"\bno response (?:was )?received\b|\bunexpectedly closed\b|"
            # A peer process or server that ended while the caller waited, in the MCP SDKs' and hosts' words: the C#
            # SDK's "The server shut down unexpectedly." (its stdio transport, the server process gone), "… exited /
            # terminated / crashed unexpectedly" (not known what it did before)
            r"\b(?:server|process|service|host|peer|subprocess|child)\b[^.\n]{0,20}?\b(?:shut ?down|exited|terminated|"
            r"crashed|died|quit) unexpectedly\b|"
            # The MCP Python SDK's session with its write stream closed (the transport under it ended earlier): anyio's
            # ClosedResourceError out of ``send`` and trio's ClosedResourceError, relayed by name (LangChain's "Error:
            # ClosedResourceError()"): the request was never written (_NEVER_REACHED)
            r"\bclosed ?resource ?error\b|"
            # A peer not connected: ENOTCONN ("Transport endpoint is not connected"), the TypeScript SDK's bare "Not
            # connected", a host's "MCP server 'x' is not connected" (an account "not connected" is setup, not an outage).
            r"\b(?:server|client|transport|session|socket|endpoint|connection)\b[^.\n]{0,40}?\bis not connected\b|"
            r"^\W*(?:error:?\s*)?not connected\W*$|"
            # ... and a client's bare "Connection error." (the OpenAI and Anthropic SDKs' APIConnectionError: no answer
            # came, before or after the request was written), behind nothing but exception-type labels (a gateway's
            # over the provider SDK's: LiteLLM's "litellm.APIError: APIError: OpenAIException - Connection error."),
            # librdkafka's "Local: Broker transport failure", a connection problem named as the reason (the reference
            # fetch server's "Failed to fetch robots.txt … due to a connection issue")
            r"^\W*(?:[\w.]*(?:error|exception)\s*(?::|\s-)\s*)*connection error\W*$|\bbroker transport failure\b|"
            r"\b(?:due to|because of|caused by) (?:an? )?(?:network|connection|connectivity) (?:issue|problem|error|failure)\b|"
            # Npgsql's NpgsqlException over the socket's failure ("Exception while reading from stream", "… writing to
            # stream") and .NET's EndOfStreamException under it ("Attempted to read past the end of the stream": the
            # connection ended while an answer was read)
            r"\bexception while (?:reading from|writing to) (?:the )?stream\b|\bread past the end of the stream\b|"
            # A database gone or never reached, in drivers' and ORMs' words: Prisma's P1001 "Can't reach database server",
            # node-postgres's "Connection terminated unexpectedly", PostgreSQL's 57P01 "terminating connection due to
            # administrator command", MySQL Connector/J's "Communications link failure".
            r"\b(?:cannot|can't|could not|unable to) reach (?:the )?(?:[\w-]+ )?(?:server|host|endpoint|database|service|api)\b|"
            r"\bconnection (?:was )?terminated\b|\bterminating (?:the )?connection\b|"
            r"\bcommunications link failure\b|"
            # TLS spoken to a port that does not speak it, or a handshake the peer cut, in the runtimes' words (OpenSSL's
            # WRONG_VERSION_NUMBER through Python, Node's EPROTO, Ruby and curl 35; Go's "first record does not look like a
            # TLS handshake"; Java's "Unrecognized SSL message, plaintext connection?" and "Remote host terminated the
            # handshake"); a connection that never formed (curl 7 through Guzzle: "Failed to connect", "Couldn't connect
            # to server"; Java NIO's UnresolvedAddressException); an HTTP/2 stream reset or protocol error (OkHttp's
            # StreamResetException, Chromium's ERR_HTTP2_PROTOCOL_ERROR, hyper's "h2 protocol error"); Java's
            # EOFException (Okio reading a status line from a closed connection).
            r"\bwrong version number\b|\bfirst record does not look like a tls handshake\b|\beproto\b|"
            r"\bunrecognized ssl message\b|\bterminated the handshake\b|\b(?:failed to|couldn'?t) connect\b|"
            r"\bunresolved ?address ?exception\b|\bstream (?:was )?reset\b|\b(?:http2|h2) protocol error\b|"
            r"\beof ?exception\b|"
            # A Unix socket that is not there (connect(2)'s ENOENT): Go's "dial unix /run/x.sock: connect: no such file
            # or directory", Node's "connect ENOENT /run/x.sock": the service does not run, no missing record.
            r"\bdial unix\b[^\n]{0,200}?\bno such file\b|\bconnect: no such file\b|\bconnect enoent\b|"
            # A program the tool runs that is not installed or not executable (the shell's 127/126 and a
            # FileNotFoundError out of subprocess, in the words other runtimes relay): Node's "spawn npx ENOENT" and
            # "spawnSync kubectl ENOENT", a shell's "kubectl: command not found" (bash; zsh's "command not found: x";
            # dash's "sh: 1: x: not found"), cmd.exe's and PowerShell's "is not recognized as an internal or external
            # command" / "as the name of a cmdlet", Go's os/exec "executable file not found in $PATH". Checked before
            # "not found": no record the caller named is missing. (Not "Error: command not found: /x", a chat bot's.)
            + _PROGRAM_MISSING + "|"
            # A connection refused in kubectl's words ("The connection to the server localhost:8080 was refused")
            r"\bconnection to (?:the )?(?:server |host )?\S+ (?:was )?refused\b|"
            # Redis refusing a command for its own state, for now (its LOADING, BUSY, MISCONF, READONLY and
            # MASTERDOWN replies; redis-py's BusyLoadingError, ReadOnlyError ...): nothing applied
            # a file or device another process holds for now (ETXTBSY, EBUSY), as Python's OSError with those errnos
            r"\btext file (?:is )?busy\b|\betxtbsy\b|\bdevice or resource busy\b|\bebusy\b|"
            r"\bloading the dataset\b|\bbusy running a script\b|\b(?:unable|not able) to persist (?:to|on) disk\b|"
            r"\bread[ -]only replica\b|"
            # A database that cannot take the statement now, in its own words (the SQLSTATE classes 40 and 53 that
            # ``errscope._classify`` reads from a driver's exception: rolled back, nothing applied): PostgreSQL's
            # "deadlock detected" / "could not serialize access" / "sorry, too many clients already", MySQL's "Too many
            # connections"; SQL Server's 1205 "… was deadlocked on lock resources with another process and has been
            # chosen as the deadlock victim. Rerun the transaction."; Oracle's ORA-12541 "TNS:no listener".
            r"\bdeadlock (?:detected|found)\b|\bdeadlock victim\b|\bdeadlocked on\b|\bcould not serialize access\b|"
            r"\btoo many (?:clients|connections)\b|\bno listener\b|"
            # MySQL's client error 2005 (CR_UNKNOWN_HOST): the server's name did not resolve
            r"\bunknown mysql server host\b|"
            # Other runtimes' words for a host not found, a connection lost or never formed: Apple's URLSession
            # (NSURLErrorDomain -1003 "A server with the specified hostname could not be found", -1005 "The network
            # connection was lost", -1009 "The Internet connection appears to be offline", -1200 "a secure connection to
            # the server cannot be made"; its codes, not its translated sentences: -1001 timed out ... -1009 offline,
            # -1200), Dart's "Failed host lookup", Erlang's httpc ("failed_connect", "nxdomain"), Go's resolver ("server
            # misbehaving": the DNS server's SERVFAIL) and http2 ("http2: client connection lost"), Java NIO's
            # ClosedChannelException and PortUnreachableException.
            r"\bhostname could not be found\b|\bnetwork connection was lost\b|\bconnection appears to be offline\b|"
            r"\bsecure connection to the server cannot be made\b|\bnsurlerrordomain code=-1(?:00[1-9]|200)\b|"
            r"\bfailed host lookup\b|\bno address associated with hostname\b|\bfailed_connect\b|\bnxdomain\b|"
            r"\bserver misbehaving\b|\bclient connection (?:lost|force closed)\b|\bclosed ?channel ?exception\b|"
            r"\bport ?unreachable\b|"
            # .NET Framework's WebException statuses as PowerShell's Invoke-RestMethod and older .NET servers print them
            # (NameResolutionFailure, TrustFailure, SecureChannelFailure, ServerProtocolViolation), SslStream's handshake
            # words, and resolvers' other words: musl's "Name does not resolve" (Alpine images), Windows' WSANO_DATA and
            # WSATRY_AGAIN sentences, Boost.Asio's "Host not found (authoritative)", ERROR_NETNAME_DELETED.
            r"\bremote name could not be resolved\b|\bcould not establish trust relationship\b|"
            r"\bcould not create ssl/tls secure channel\b|\bserver committed a protocol violation\b|"
            r"\bhandshake failed\b|\bremote party has closed the transport stream\b|\bname does not resolve\b|"
            r"\bno data of the requested type\b|\btemporary error during hostname resolution\b|"
            r"\bhost not found \((?:non-)?authoritative\)|\bnetwork name is no longer available\b|"
            # MediaWiki's maxlag refusal ("Waiting for 10.64.48.35: 7 seconds lagged"): its replicas are behind, retry
            r"\bseconds? lagged\b|"
            # MySQL's client errors 2006 and 2013 (CR_SERVER_GONE_ERROR, CR_SERVER_LOST) and SQLite's SQLITE_BUSY, in
            # their messages: the codes errscope reads on a driver's exception.
            r"\bserver has gone away\b|\blost connection to (?:the )?(?:[\w-]+ )?server\b|\bdatabase is locked\b|"
            # a peer that closed before its greeting (nats-py's "empty response from server when expecting INFO message")
            r"\bempty (?:response|reply|answer) from (?:the )?(?:server|peer|host)\b|"
            # A gateway's own body for an upstream it could not reach or read, without its status line: Envoy/Istio
            # ("upstream connect error or disconnect/reset before headers", "no healthy upstream"), Kong ("failure to
            # get a peer from the ring-balancer", "An invalid response was received from the upstream server", "The
            # upstream server is timing out", "name resolution failed"), HAProxy ("No server is available to handle this
            # request"); and a client-side circuit breaker that refuses the call (resilience4j's "CircuitBreaker 'x' is
            # OPEN and does not permit further calls", Hystrix's "short-circuited and is OPEN").
            r"\bupstream connect error\b|\breset before headers\b|\bno healthy upstream\b|\bfailure to get a peer\b|"
            r"\b(?:invalid|bad) response (?:was )?(?:received )?from (?:the )?upstream\b|"
            r"\bupstream (?:server )?is timing out\b|\bname resolution failed\b|\bno server is available\b|"
            + _NO_BACKEND + r"|"
            + _BREAKER_OPEN + r"|"
            # The browser a tool drives gone: Playwright's TargetClosedError ("Target page, context or browser has been
            # closed"), Puppeteer's "Protocol error (Runtime.callFunctionOn): Target closed." and "Browser has been
            # closed."/"Browser disconnected": a process the tool needs is out of reach until it is started again.
            r"\btarget (?:page, context or browser )?(?:has been |was |is )?closed\b|"
            r"\bbrowser (?:has been |was |is )?(?:closed|disconnected)\b|"
            # undici (Node's fetch) ending a body it was reading when the connection closed: "TypeError: terminated",
            # which MCP hosts print as "SSE stream disconnected: TypeError: terminated" / "Error reading SSE stream".
            r"\btypeerror: terminated\b|\b(?:sse |event )?stream disconnected\b|\berror reading sse stream\b|"
            # A request its client gave up on or lost, in the runtimes' own words where they name no cause: Java's
            # java.net.ConnectException and HttpConnectTimeoutException (java.net.http prints a refused connect and an
            # unresolvable name as the bare class name, its message null); an AbortSignal ending a Node request
            # (node:http's "AbortError: The operation was aborted", the DOM's "This operation was aborted"); and
            # :data:`_BODY_CUT`.
            r"\b(?:http)?connect ?(?:timeout ?)?exception\b|\b(?:the|this) operation was aborted\b|\baborterror\b|"
            + _BODY_CUT,
            re.I,
        )),
    ),
    (
        # A file a program was pointed at that is not its format, or a directory where it needs a file, in the words
        # of the programs file tools run (tar's "This does not look like a tar archive", gzip's "not in gzip format",
        # unzip's "this file is not a zipfile", sqlite3's "file is not a database", jq's "parse error: ...",
        # ImageMagick's "improper image header" / "no decode delegate for this image format", file(1)'s and
        # binutils' "file format not recognized"; strerror's EISDIR "Is a directory"): the file the call named is the
        # one to change, as Python's format readers say (errscope._classify._names._FORMAT_WORDS). Checked before "not
        # found": unzip's text also says its signature was "not found".
        FailureClass.INVALID_INPUT,
        prefiltered(re.compile(
            r"\bnot in (?:\w+ )?format\b|\bdoes not look like an? (?:\w+ )?(?:archive|file)\b|"
            r"\bis not\s+an?\s+(?:valid\s+)?(?:\w+\s+)?(?:archive|zip ?file|gzip(?:ped)? file|database|pdf|image)\b|"
            r"\bfile format not recognized\b|\bunsupported (?:file |image |archive )?format\b|\bno decode delegate\b|"
            r"\bparse error: |\b(?:improper|corrupt(?:ed)?|damaged|truncated) (?:\w+ ){0,2}(?:header|file|data|archive|image)\b|"
            r"\bis a directory\b|\beisdir\b|"
            # ... and in the words the format libraries raise with: Pillow's "image file is truncated", lz4's frame
            # API's ERROR_frameType_unknown, a magic number that is not the format's ("bad magic number")
            r"\b(?:file|data|image|archive|stream|document) (?:is |was )?(?:truncated|corrupt(?:ed)?|damaged)\b|"
            r"\bframe ?type unknown\b|\b(?:bad|wrong|invalid|unknown) magic\b",
            re.I,
        )),
    ),
    (
        FailureClass.NOT_FOUND,
        prefiltered(re.compile(
            r"not found|no such|does not exist|doesn't exist|did(?: not|n't) exist|unknown (id|identifier)|"
            # a lookup a library answers in a sentence: zipfile's "There is no item named 'x' in the archive"
            r"\bthere (?:is|are) no (?:\w+ ){1,2}(?:named|called|with (?:the )?(?:name|id|key))\b|"
            # libxml2's XML_IO_LOAD_ERROR for a document it could not open (lxml's "Error reading file 'x': failed to
            # load external entity"): the path or URL the call named
            r"\bfailed to load external entity\b|"
            # a path that resolves to no file: a component that is a file (ENOTDIR), symbolic links that lead to each
            # other (ELOOP), in strerror's and Node's words
            r"\bnot a directory\b|\benotdir\b|\btoo many levels of symbolic links\b|\beloop\b|"
            # Notion's "Could not find database with ID: …", "Cannot find the object"; the passive "Order with ID 'x'
            # could not be found." (.NET's and PHP frameworks' wording; tests/heldout_cases.md J486)
            r"\b(?:could not|couldn't|cannot|can't|unable to) find\b|\b(?:could ?n[o']t|can ?n[o']t) be found\b|"
            # a lookup that matched no row: sqlx's RowNotFound ("no rows returned by a query that expected to return
            # at least one row"), Go's sql.ErrNoRows ("sql: no rows in result set")
            r"\bno rows? (?:returned by a query that expected|in (?:the )?result set)|"
            # a revision, path or ref git cannot resolve, in git's words (builtin/checkout.c "pathspec 'x' did not
            # match any file(s) known to git", "src refspec x does not match any", revision.c "unknown revision",
            # "bad revision", object-name.c "invalid object name" / "Not a valid object name", merge's "not something
            # we can merge"; GitPython's "Ref 'x' did not resolve to an object"), and a directory that is no
            # repository ("not a git repository")
            r"\bdid not match any file|\bsrc refspec \S+ does not match any\b|\bunknown revision\b|\bbad revision\b|"
            r"\b(?:invalid|not a valid) object name\b|\bnot something we can merge\b|\bdid not resolve to an object\b|"
            r"\bnot a git repository\b|"
            # GitHub's GraphQL API for a record the query named that is not there (its NOT_FOUND error type): "Could
            # not resolve to a Repository with the name 'x'", "... an Issue with the number of N"
            r"\bcould not resolve to an? \w+ with the\b",
            re.I,
        )),
    ),
    (
        FailureClass.INVALID_INPUT,
        prefiltered(re.compile(
            # "invalid" as a label of a host name is no word of the message (RFC 6761's reserved ``.invalid`` TLD:
            # "api.invalid", the JDK's cached UnknownHostException whose message is the host alone)
            # (not a client that "must be connected" or opened before use: the tool's own state, MongoDB's Node driver's
            # MongoNotConnectedError "Client must be connected before running operations", no argument of the call's)
            r"(?<!\w\.)invalid(?!\.\w)|(?<=\w\.)invalid(?=\w)|validation|"
            r"must be(?! (?:connected|opened|open|initiali[sz]ed|started|running)\b)|expected .* received|malformed|bad request|missing required|"
            # An argument that was missing or empty, in other SDKs' words (the C# SDK's "missing a value for the
            # required parameter 'x'"; Go servers' "name cannot be empty").
            r"\brequired (?:parameter|argument|field|property)\b|"
            r"\b(?:cannot|can't|can not|must not|may not) be (?:empty|blank|null|nil|none)\b|"
            # a conflict with what is there (HTTP 409's class): "already exists" (APIs, git's "a branch named 'x'
            # already exists"), git's refused push ("! [rejected] ... (fetch first)", "non-fast-forward", "Updates
            # were rejected") and a commit with nothing staged ("nothing to commit")
            r"\balready exists\b|\[rejected\]|\bnon-fast-forward\b|\bupdates were rejected\b|\bnothing to commit\b|"
            # an integrity constraint the statement broke (SQLSTATE class 23, read so on a driver's exception), in the
            # databases' words: PostgreSQL's "duplicate key value violates unique constraint" and "violates foreign key
            # (not-null, check) constraint", MySQL's 1062 "Duplicate entry 'x' for key 'y'", SQLite's "UNIQUE constraint
            # failed", MongoDB's E11000 "duplicate key error": the values the call gave conflict with what is there
            r"\bviolates (?:the )?(?:unique|foreign key|not-null|check|exclusion) constraint\b|"
            r"\b(?:unique|not null|foreign key|check|primary key) constraint failed\b|"
            r"\bduplicate entry\b[^\n]{0,100}?\bfor key\b|\bduplicate key (?:value|error)\b|\be11000\b|"
            # an optimistic-concurrency check that matched no row: another writer changed or removed the row since it
            # was read, nothing written (as SQLAlchemy's StaleDataError is read: a conflict with the row's current
            # state, HTTP 409/412), in the ORMs' words: EF Core's DbUpdateConcurrencyException ("… expected to affect 1
            # row(s), but actually affected 0 row(s)"), Hibernate's StaleObjectStateException ("Row was updated or deleted
            # by another transaction"), JPA's OptimisticLockException, Spring's "optimistic locking failed", Rails'
            # StaleObjectError ("Attempted to update a stale object")
            r"\bexpected to affect \d+ rows?(?:\(s\))?,? but (?:actually )?affected \d+\b|"
            r"\b(?:updated|modified) or deleted by another transaction\b|\boptimistic ?lock(?:ing)? ?(?:failed|failure|exception)\b|"
            r"\battempted to (?:update|destroy|touch|delete) a stale object\b|"
            # an option or subcommand the program does not know: the arguments it was given (git's "unrecognized
            # argument", "unknown option", "'x' is not a git command"; getopt's "unrecognized option")
            r"\bunrecogni[sz]ed (?:argument|option)\b|\bunknown (?:option|switch)\b|\bis not a git command\b|"
            # more input than the model a tool calls can take (OpenAI's ``context_length_exceeded`` "This model's maximum
            # context length is N tokens", Anthropic's "prompt is too long: N tokens > M maximum"): as a 413, smaller
            # arguments fit (RFC 9110 §15.5.14)
            r"\bmaximum context length\b|\bcontext[ _]length[ _]exceeded\b|\bprompt is too long\b|"
            r"\bexceeds? (?:the )?(?:model'?s? )?(?:maximum )?context (?:window|length)\b|"
            # a path the call names that conflicts with what is there or is too long (EEXIST, ENOTEMPTY,
            # ENAMETOOLONG in strerror's and Node's words), as Python's OSError with those errnos
            r"\bfile exists\b|\beexist\b|\bdirectory not empty\b|\benotempty\b|\bfile name too long\b|\benametoolong\b",
            re.I,
        )),
    ),
)


# A report of the tool's own crash is a bug in the tool whatever words its dump holds ("invalid memory address"
# is not invalid input, a frame's ":503" no status): a Go panic or runtime error, a nil/null dereference, a
# goroutine or Python traceback dump, a segmentation fault.
_CRASH: Final = prefiltered(re.compile(
    r"\bpanic(?:ked)?\b|\bruntime error\b|\bnil pointer\b|\bnull ?pointer|\bsegmentation fault\b"
    r"|^goroutine \d+ \[|Traceback \(most recent call last\)"
    # Rust's panic messages, as a tool that caught one (catch_unwind, a JoinError) reports them without "panicked":
    # an unwrap on None/Err, an index past the end, arithmetic overflow.
    r"|\bcalled `(?:Option|Result)::(?:unwrap|expect)\w*\(\)` on an? `(?:None|Err|Ok|Some)` value"
    r"|\bindex out of bounds: the len is \d+|\battempt to (?:add|subtract|multiply|divide|negate|shift \w+|calculate"
    r" the remainder) (?:with (?:an )?overflow|by zero|with a divisor of zero)",
    re.I | re.M,
))

# An account that must be paid for before the upstream serves it: Anthropic's "Your credit balance is too low to
# access the Anthropic API" (sent as a 400 ``invalid_request_error``), Firecrawl's 402 "Insufficient credits to perform
# this request", DeepSeek's 402 "Insufficient Balance", HTTP 402's reason phrase "Payment Required" (RFC 9110 §15.5.3).
# Neither an argument nor waiting fixes it, the operator does: ``permission_denied`` ("ask the user"), read before the
# API's generic code or status (a 400 would read as the caller's arguments). Not "insufficient funds": a transfer's
# own amount, which the caller may change.
# The same holds for an account the provider has shut or not yet cleared, which the same APIs also send as a 400
# ``invalid_request_error`` or a FAILED_PRECONDITION: Anthropic's "This organization has been disabled.", OpenAI's "Your
# organization must be verified to use the model" (sent as a 400 or a 404), Gemini's "User location is not supported for
# the API use.".
_ACCOUNT_UNPAID: Final = prefiltered(re.compile(
    r"\bcredit balance (?:is )?too low\b|\binsufficient (?:account )?(?:credits?|credit balance|balance)\b|"
    r"\bout of credits\b|\b(?:purchase|buy|add) (?:more )?credits\b|\bpayment required\b|"
    r"\b(?:organi[sz]ation|account|workspace|subscription) (?:has been|is|was) (?:disabled|suspended|deactivated|banned)\b|"
    r"\b(?:organi[sz]ation|account) must be verified\b|\buser location is not supported\b|"
    r"\bnot (?:available|supported) in your (?:country|region|location)\b",
    re.I,
))

# An HTTP client refusing to send a credential header it was given (a key read from a file or a secret with its
# trailing newline, or an empty one): h11's and httpx's "Illegal header value b'Bearer …\\n'", requests' "Invalid
# leading whitespace, reserved character(s), or return character(s) in header value: 'Bearer …'", Node's "Invalid
# character in header content ["Authorization"]", Go's "invalid header field value for "Authorization"". Nothing was
# sent, and the operator's credential, which the model cannot fix, is broken: a refused credential
# (openai/openai-python #961, langchain-ai/langchain #21261).
_CREDENTIAL_HEADER_REFUSED: Final = prefiltered(re.compile(
    r"\b(?:illegal|invalid)\b[^\n]{0,80}?\bheader(?: field)? (?:value|content)\b[^\n]{0,24}?"
    r"\b(?:bearer|basic|token|authorization|proxy-authorization|api[-_ ]?key|x-api-key)\b",
    re.I,
))


def refuses_credential_header(text: str) -> bool:
    """Whether ``text`` is an HTTP client refusing to send a credential header's value
    (:data:`_CREDENTIAL_HEADER_REFUSED`): nothing was sent, and the credential is the operator's to fix."""
    return _CREDENTIAL_HEADER_REFUSED.search(text) is not None


# A complaint about what a tool *returned* (its output schema, its structured content), as the SDKs word their
# own checks of a result (the TypeScript SDK's "Structured content does not match the tool's output schema" -32602 and
# "Tool x has an output schema but did not return structured content" -32600; a gateway's "Output validation error:
# outputSchema defined but no structured output returned"): the tool ran and its server broke its own contract, never
# the caller's arguments, whatever code or validation words carry it.
_ABOUT_THE_RESULT: Final = prefiltered(re.compile(
    r"\boutput ?schema\b|\bstructured (?:content|output)\b|\boutput validation\b|"
    r"\b(?:result|response|return value) (?:does not|doesn't|did not) (?:match|conform to|validate against)\b",
    re.I,
))


def about_the_result(text: str) -> bool:
    """Whether ``text`` complains about a tool's result rather than its arguments (:data:`_ABOUT_THE_RESULT`)."""
    return _ABOUT_THE_RESULT.search(text) is not None


# A tool that could not read what its *upstream* answered ("error decoding response body: invalid type: null,
# expected a string": reqwest's Display of a serde failure on the body) failed on the upstream's data, not on the
# caller's arguments, whatever validation words the decoder used.
_UPSTREAM_DATA: Final = prefiltered(re.compile(
    r"\berror decoding response body\b"
    r"|\b(?:failed|unable|could not|couldn't|cannot|can't) (?:to )?(?:decode|parse|deserialize|unmarshal|read)"
    r" (?:the )?(?:[\w-]+ ){0,2}(?:response|reply|answer)\b"
    r"|\berror (?:decoding|parsing|deserializing|unmarshal+ing) (?:the )?(?:[\w-]+ ){0,2}(?:response|reply)\b"
    r"|\binvalid (?:json|xml|data) (?:in|from) (?:the )?(?:[\w-]+ ){0,2}(?:response|reply|upstream|server|api)\b"
    # An HTML page where JSON was expected (a login page, a gateway's error page), as JSON decoders word it: Go's
    # encoding/json "invalid character '<' looking for beginning of value", JavaScript's "Unexpected token '<'".
    r"|\binvalid character '<' looking for beginning of value\b|\bunexpected token '?<",
    re.I,
))


def is_crash_report(text: str) -> bool:
    """Whether ``text`` reports a program's own crash (:data:`_CRASH`: a panic, a segfault, a Python traceback that
    names no failure outside the program: :func:`_readable`)."""
    return _readable(text) is None


# A Python traceback as Python prints it (``traceback.print_exception``): one block per exception of the chain, the
# innermost cause first, each "Traceback (most recent call last):", its indented frames, then the exception's own
# line(s) "module.Type: message", blocks joined by "The above exception was the direct cause of the following
# exception:" or "During handling of the above exception, another exception occurred:".
_PY_TRACEBACK: Final = re.compile(r"Traceback \(most recent call last\):[ \t]*\n")
_PY_CHAIN_LINE: Final = re.compile(r"^(?:The above exception was|During handling of the above exception)", re.I)
_PY_OWN_BUG: Final = re.compile(
    r"(?:builtins\.)?(?:AttributeError|NameError|UnboundLocalError|TypeError|LookupError|KeyError|IndexError|"
    r"AssertionError|ImportError|ModuleNotFoundError|SyntaxError|IndentationError|NotImplementedError|"
    r"ZeroDivisionError|RecursionError|UnicodeDecodeError|UnicodeEncodeError)\b")
"""Python's own exceptions for a program's bug (errscope's ``_PROGRAMMING_ERRORS`` and their subclasses, by name): what
their line quotes is the program's key, name or value ("KeyError: 'NO_SUCH_VARIABLE'"), never an upstream's words."""
_MAX_TRACEBACK_BLOCKS: Final = 16
"""Blocks of a printed Python chain read at most (Python's own printer stops at the same depth)."""


# An exception group as Python 3.11+ prints it (PEP 654: "  + Exception Group Traceback (most recent call last):", the
# group's frames and line behind a "| " margin, then each member's traceback under a "+-+---- 1 ----" rule, nested groups
# indented further). anyio's and asyncio's TaskGroups raise one, so an MCP Python server's failure is often printed so
# ("ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)"): its members are the causes.
_GROUP_MARGIN: Final = re.compile(r"^[ \t]*(?:\+-[-+]*(?: \d+ -+| \.\.\.[^\n]*)?[ \t]*$|[|+] ?)", re.M)


def _raised_lines(text: str) -> list[str]:
    """The exception lines of each block of the Python tracebacks ``text`` prints, innermost first (at most
    :data:`_MAX_TRACEBACK_BLOCKS`); the frames and the source lines under them are never read. An exception group's
    members are read as blocks of their own after the group's line (:data:`_GROUP_MARGIN`)."""
    if "Exception Group Traceback" in text:
        text = _GROUP_MARGIN.sub("", text)
    raised = []
    for block in _PY_TRACEBACK.split(text)[1:_MAX_TRACEBACK_BLOCKS + 1]:
        lines: list[str] = []
        for line in block.splitlines():
            if not lines and (not line.strip() or line[:1] in " \t"):
                continue  # a frame ("  File …") or its source line
            if not line.strip() or _PY_CHAIN_LINE.match(line):
                break
            lines.append(line)
        if lines:
            raised.append("\n".join(lines))
    return raised


@functools.lru_cache(maxsize=256)
def _traceback_cause(text: str) -> str | None:
    """The exception line of a printed Python traceback that says what failed outside the program: the innermost of
    the chain's exceptions whose own words a rule reads as an upstream's refusal or state (any class but ``unknown``
    and ``invalid_input``). ``None`` when none does: the program's own failure (a ``KeyError``, a ``TypeError``, a
    ``ValueError`` on a value it parsed), a crash report.

    Python prints every uncaught exception so, an upstream's refused connection or 503 as much as a bug; its last lines
    say which; an exception group's members are read after the group's own line. A Go panic or a segfault is always a
    crash."""
    for raised in _raised_lines(text):
        if _PY_TRACEBACK.search(raised) or _PY_OWN_BUG.match(raised):
            continue
        if _classify_whole(raised) not in (FailureClass.UNKNOWN, FailureClass.INVALID_INPUT):
            return raised
    return None


def failure_lines(text: str) -> list[str]:
    """The parts of ``text`` that say what failed, innermost first: a printed Python traceback's exception lines (never
    its frames or their source lines, whose words and URLs are the program's code), else ``text`` itself."""
    raised = _raised_lines(text) if _PY_TRACEBACK.search(text) else []
    return raised or [text]


def _readable(text: str) -> str | None:
    """``text`` as the rules read it: ``None`` for a crash report (:data:`_CRASH`), the deciding exception line for a
    Python traceback of a failure outside the program (:func:`_traceback_cause`), else ``text`` itself."""
    if _CRASH.search(text) is None:
        return text
    if _PY_TRACEBACK.search(text) is None or _CRASH.search(_PY_TRACEBACK.sub("", text)) is not None:
        return None  # a panic, a segfault, a nil pointer: a crash whatever else it prints
    return _traceback_cause(text)


def reads_upstream_data(text: str) -> bool:
    """Whether ``text`` says the tool could not decode an upstream's answer (:data:`_UPSTREAM_DATA`)."""
    return _UPSTREAM_DATA.search(text) is not None


# A failure that ended before anything reached the upstream: a refused connect, a name that does not resolve, an
# unreachable network, a certificate refused in the handshake, a connect (not a read) timeout. Checked first: these
# words also hold "timed out" or a number.
_NEVER_REACHED: Final = prefiltered(re.compile(
    r"\bclosed ?resource ?error\b|"
    r"\b(?:connection |connect )?refused\b|\beconnrefused\b|\bno such host\b|name or service not known|"
    r"nodename nor servname|failure in name resolution|could not resolve|name not resolved|name resolution failed|"
    r"\benotfound\b|unknown ?host|\bunknown mysql server host\b|unreachable|no route to host|\be(?:host|net)unreach\b|"
    r"\bconnect(?:ion)? ?(?:etimedout|timeout ?(?:error|exception)?\b)|\bconnect timed out\b|timeout (?:while )?connecting|"
    r"\b(?:cannot|can't|could not|couldn't|unable to|failed to) (?:connect|establish|reach|open (?:a )?socket to\b)|"
    r"connection attempts? failed|"  # ncclient: "Could not open socket to host:830"
    r"certificat(?:e|ion)|\bx509\b|\bpkix\b|fatal alert|handshake|\b(?:http)?connect ?(?:timeout ?)?exception\b|"
    r"\bwrong version number\b|\bunrecognized ssl message\b|\breceived corrupt message\b|\bpeer is incompatible\b|"
    # hyper-util's client (reqwest, under its "error sending request"): its Connect kind is a connection that never
    # formed ("client error (Connect): ..."), whatever its source says
    r"\bclient error \(connect\)|"
    r"\beproto\b|\bcouldn'?t connect\b|\bunresolved ?address\b|\bconnect: no such file\b|\bconnect enoent\b|"
    # Windows Sockets numbers for refused, unreachable and host not found (_WINSOCK_NUMBER), Apple's URLSession codes
    # for a host not found, not connectable, offline or TLS refused, and the resolvers' words of J285
    + _WINSOCK_NAME + r"(?:1005[01]|1006[145]|1100[12])\b|\bgetaddrinfo failed\b|"
    r"\bnsurlerrordomain code=-1(?:00[3469]|200)\b|\bhostname could not be found\b|\bappears to be offline\b|"
    r"\bfailed host lookup\b|\bno address associated\b|\bnxdomain\b|\bserver misbehaving\b|"
    r"\bremote name could not be resolved\b|\btrust relationship\b|\bsecure channel\b|\bname does not resolve\b|"
    r"\bno data of the requested type\b|\bduring hostname resolution\b|\bhost not found \((?:non-)?authoritative\)|"
    r"\bremote party has closed the transport stream\b|"
    # JSSE's and OkHttp's SSLPeerUnverifiedException ("peer not authenticated", "Hostname x not verified"): the
    # upstream's certificate refused before the request was written, as Java's "No subject alternative names matching
    # IP address x found" (HostnameChecker, without "certificate")
    r"\bssl ?peer ?unverified\b|\bpeer not authenticated\b|\bhostname \S+ not verified\b|\bno subject alternative\b|"
    # a timeout while the connection was being made, in the words only that phase prints: curl's "Connection timed out
    # after 1500 milliseconds" (lib/multi.c, MSTATE_CONNECTING; a transfer's is "Operation timed out after ..."), and
    # urllib's URLError, which wraps only what failed while connecting and writing the request, never the wait for the
    # answer (urllib.request.AbstractHTTPHandler.do_open: "<urlopen error timed out>"; a read timeout is the bare
    # "timed out")
    r"\bconnection timed out after \d+ milliseconds\b|<urlopen error (?:\[errno \d+\] )?timed out>|"
    # PostgreSQL refusing a new connection (53300 too_many_connections: "remaining connection slots are reserved for
    # non-replication superuser connections" / "... for roles with the SUPERUSER attribute"): no statement ran
    r"\bremaining connection slots are reserved\b|"
    # Go's net.OpError for a connect ("dial tcp 10.0.0.1:6443: i/o timeout"): the timeout came before a connection
    r"\bdial (?:tcp|udp|unix)[46]? \S+: i/o timeout\b|"
    # ... and its resolver's (net.DNSError: "lookup api.example on 10.0.0.2:53: read udp …: i/o timeout", "dial tcp: lookup
    # x: i/o timeout"): the name never resolved, so nothing was dialled; Node's getaddrinfo EAI_AGAIN (a resolver's
    # temporary failure) likewise; net/http's errRequestCanceledConn ("net/http: request canceled while waiting for
    # connection"): the client gave up before it had a connection to write the request on
    r"\blookup [\w.-]+(?: on \S+)?: (?:(?:read|write|dial) (?:udp|tcp)[46]? \S+: )?i/o timeout\b|\beai[ _]again\b|"
    r"\brequest canceled while waiting for connection\b|"
    # Go's database/sql ErrBadConn ("driver: bad connection"): "ErrBadConn should NOT be returned if there's a
    # possibility that the database server might have performed the operation" (database/sql/driver); the pool retried
    # it on fresh connections before it surfaced. Hibernate's and Spring's words for a connection the pool or the
    # DriverManager never gave, and MySQL Connector/J's for a connection whose server greeting never came (the server
    # speaks first in MySQL's protocol, so no statement was written)
    r"\bdriver: bad connection\b|"
    r"\b(?:unable to acquire|failed to obtain|could not (?:get|open|obtain|acquire)|cannot (?:get|acquire)) "
    r"(?:a )?jdbc connection\b|\bhas not received any packets from the server\b|"
    # net/http's errServerClosedIdle ("http: server closed idle connection"): its read loop saw the server's FIN (or a
    # 408) on the connection while no response was expected, so the server closed it before reading the request the
    # transport then put on it (transport.go: shouldRetryRequest retries it for any replayable request; a POST without
    # GetBody surfaces it)
    r"\bserver closed (?:the |an )?idle connection\b|"
    # a Kafka producer that gave up waiting for the topic's metadata (its partitions and their leaders) before the
    # record was queued (max.block.ms: Java's "Topic x not present in metadata after 60000 ms." and its older "Failed to
    # update metadata after 60000 ms.", kafka-python's KafkaTimeoutError): no broker was sent the record; and its
    # AdminClient's call that no broker was assigned or sent ("Timed out waiting for a node assignment", "Timed out
    # waiting to send the call")
    r"\bfailed to update metadata after\b|\bnot present in metadata after\b|"
    r"\btimed out waiting (?:for a node assignment|to send the call)\b|"
    # an AWS API's RequestTimeout code (S3's 400 "Your socket connection to the server was not read from or written to
    # within the timeout period", botocore's transient codes RequestTimeout and RequestTimeoutException): the service
    # stopped waiting for the request, HTTP 408's meaning (RFC 9110 §15.5.9), and applied nothing. The code as AWS
    # spells it, whole (not a client's own "request timeout" nor HttpRequestTimeoutException), or S3's sentence for it
    # alone (the S3 protocol's, which MinIO and other S3-compatible stores answer with too)
    r"(?-i:(?<![\w.])RequestTimeout(?:Exception)?(?![\w.]))|\bnot read from or written to within the timeout period\b|"
    # a circuit breaker refusing while open (_BREAKER_OPEN)
    + _BREAKER_OPEN + r"|"
    # a client that refused to send because it knows the limit has not reset (go-github's RateLimitError: "… still
    # exceeded until …, not making remote request")
    r"\bnot making (?:the |a )?remote request\b|"
    # Envoy's 503 whose reset reason says the request was never forwarded (a connect that failed, a circuit breaker's
    # overflow: envoy/stream_info ResetReason); "connection termination" or "remote reset" may have come after
    r"\breset reason: (?:(?:local |remote )?connection failure|overflow)\b|"
    # a proxy with no server to send to: Envoy's "no healthy upstream" (response flag UH), HAProxy's 503 page "No server
    # is available to handle this request.", Kong's "failure to get a peer from the ring-balancer"
    r"\bno healthy upstream\b|\bno server is available to handle this request\b|\bfailure to get a peer\b|"
    + _NO_BACKEND + r"|"
    # a driver that never had a connection or a server to send on: a pool that gave none in time (Prisma's P2024 "Timed
    # out fetching a new connection from the connection pool", Knex's "Timeout acquiring a connection", MariaDB's "pool
    # timeout: failed to retrieve a connection from pool", .NET's "… prior to obtaining a connection from the pool",
    # HikariCP's "Connection is not available, request timed out"), MongoDB's server selection, as SQLAlchemy's
    # QueuePool ``TimeoutError`` and pymongo's ``ServerSelectionTimeoutError`` are read
    r"\bacquisition timed? ?out\b|\btimed? ?out (?:fetching|acquiring|obtaining|getting|waiting for) (?:a |an )?"
    r"(?:new |idle |free )?connection\b|\btimeout acquiring a connection\b|"
    r"\b(?:failed to retrieve|could(?: not|n't) get|unable to (?:get|acquire|obtain)) a connection from (?:the )?pool\b|"
    r"\bprior to obtaining a connection\b|\bconnection is not available, request timed out\b|"
    r"\bserver selection timed? ?out\b|\btime ?out occurr?ed after \d+ ?ms selecting a server\b|"
    # ... and in more pools' words: a pool named beside its timeout (SQLAlchemy's "QueuePool limit of size 5 overflow 10
    # reached, connection timed out", go-redis's "redis: connection pool timeout", sqlx's "pool timed out while waiting
    # for an open connection", MariaDB's "retrieve connection from pool timeout", httpx's and psycopg_pool's
    # ``PoolTimeout``; not urllib3's "HTTPConnectionPool(host=…): Read timed out", a request's, nor a worker pool's),
    # psycopg_pool's "couldn't get a connection after 30.00 sec", Sequelize's ConnectionAcquireTimeoutError, pg-pool's
    # "timeout exceeded when trying to connect"
    + _POOL_TIMEOUT + r"|"
    # a driver or client with no server, broker, responder or connection to send on, or no TLS session (_NO_CONNECTION)
    + _NO_CONNECTION + r"|"
    # ... and the JVM clients' pools: Apache HttpClient 5's ConnectionRequestTimeoutException (a lease that timed out),
    # Reactor Netty's PoolAcquireTimeoutException ("Pool#acquire(Duration) has been pending for more than the configured
    # timeout of 45000ms")
    r"\bconnection ?request ?timeout ?exception\b|\bpool ?acquire ?timeout\b|"
    r"\bhas been pending for more than the configured timeout\b|"
    # a gateway that gave up waiting for the server it starts to come up (obot-platform/obot #3557: "timed out waiting
    # for MCP server to be ready"): the call was never forwarded
    r"\btimed? ?out waiting for (?:the )?(?:[\w'-]+ ){0,4}to (?:be(?:come)? ready|start|come up)\b|"
    + _PROGRAM_MISSING,
    re.I,
))
# ... and one that may have ended after the upstream got the request (DESIGN.md, "the same holds one hop further down"):
# the answer did not come in time, or the connection dropped before it was whole.
_AFTER_SENDING: Final = prefiltered(re.compile(
    r"timed? ?out|timeout|deadline (?:has )?(?:exceeded|elapsed)|\b(?:did not|didn't)\b[^.\n]{0,60}?\bwithin\b|"
    r"socket hang ?up|other side closed|premature(?:ly)? close|\bunexpected eof\b|\beof occurred\b|"
    r"connection (?:was )?reset|\beconnreset\b|reset by peer|reset before headers|broken pipe|\bepipe\b|"
    r"\bwrite eof\b|\bended by the other party\b|\bclient is closing: eof\b|"  # Node's and the Go SDK's, as EPIPE
    r"closed by (?:the )?(?:remote|peer|server)|peer closed|remote end closed|server disconnected|connection (?:abort|broken)|"
    # Apache HttpClient's NoHttpResponseException ("127.0.0.1:8080 failed to respond"): the request written, no status
    # line came back
    r"\bfailed to respond\b|"
    r"\bgoaway\b|incomplete ?(?:chunked )?read|lost connection|\": eof\b|"  # Go's net/http: Post "url": EOF
    r"\bclosed before (?:the )?(?:message|response|headers)|"  # hyper: "connection closed before message completed"
    # hyper-util's SendRequest kind (the connection failed while the request was written or its answer awaited), and a
    # client's generic words for a failure anywhere in the exchange when it names no cause (reqwest's Display "error
    # sending request for url (...)" prints no source; .NET's "An error occurred while sending the request"): no
    # answer came, before or after the request was written, as undici's "fetch failed"
    r"\bclient error \(sendrequest\)|\berror (?:occurred )?(?:while )?sending (?:the )?request\b|"
    # an answer cut short in other runtimes' words (OkHttp, HttpURLConnection, Ruby, .NET, curl 52, hyper, Node's TLS
    # socket, java.net.http, Go's http2) and a database connection ended under a statement (node-postgres, 57P01)
    r"\bunexpected end of (?:stream|file)\b|\bend of file reached\b|\bended prematurely\b|\bempty reply from server\b|"
    r"\bread past the end of the stream\b|"  # .NET's EndOfStreamException under Npgsql's read of an answer
    r"\bincomplete ?message\b|\bsocket (?:was )?disconnected\b|\breceived no (?:bytes|data)\b|\bstream error\b|"
    r"\bno response (?:was )?received\b|\bunexpectedly closed\b|"  # pymodbus: its request written, no answer
    # libpq's own words when the server closed the connection under a statement: "This probably means the server
    # terminated abnormally before or while processing the request" (psycopg2, psycopg, asyncpg's relays)
    r"\bbefore or while processing the request\b|"
    # ... and in the JVM's, Go's and Prisma's words for a connection that failed under a statement: PgJDBC's "An I/O
    # error occurred while sending to the backend" (QueryExecutorImpl wraps the IOException of the whole exchange, the
    # answer's read included), go-sql-driver/mysql's ErrInvalidConn "invalid connection" (returned when part of the
    # packet was written or the answer's read failed; nothing written is driver.ErrBadConn), Prisma's P1017
    r"\bi/o error occurred while sending to the backend\b|\bserver has closed (?:the )?connection\b|"
    r"\binvalid connection\b(?![ _-]?(?:string|uri|url|param|option|setting|config|name|id\b|type|key|info|cred|format|scheme))|"
    r"\bstream (?:was )?reset\b|\b(?:http2|h2) protocol error\b|\beof ?exception\b|"
    r"\bconnection (?:was )?terminated\b|\bterminating (?:the )?connection\b|"
    # Windows Sockets' aborted and reset (10053, 10054), Apple's "network connection was lost" (-1005) and Go's
    # http2 "client connection lost"
    + _WINSOCK_NAME + r"1005[34]\b|\bnsurlerrordomain code=-1005\b|\bnetwork connection was lost\b|"
    r"\bclient connection lost\b|\bserver committed a protocol violation\b|\bnetwork name is no longer available\b|"
    # undici's "fetch failed" alone: no HTTP answer came, whether before or after the request was written; its
    # "terminated": a body being read (the request was received) cut off
    r"\bfetch failed\b|\btypeerror: terminated\b|\b(?:sse |event )?stream disconnected\b|\berror reading sse stream\b|"
    # an AbortSignal that ended a Node request (a timeout's, or the caller's cancel) and a body cut off (_BODY_CUT)
    r"\b(?:the|this) operation was aborted\b|\baborterror\b|" + _BODY_CUT,
    re.I,
))

_HTTP_STATUSES: Final = frozenset(HTTPStatus) | {520, 524} | CDN_ORIGIN_NOT_REACHED
"""Statuses a text's number is read as: the registry's, and the CDN statuses of 52x (Cloudflare's, which APIs behind it
relay: "API Error: 522")."""


def never_reached(text: str) -> bool:
    """Whether a failure text says the upstream was never reached (refused, not resolved, unreachable, a certificate
    or handshake refused, a connect timeout, a circuit breaker open: :data:`_NEVER_REACHED`; a credential header the
    library refused to send; a setting the client refused (:func:`refuses_a_setting`); or curl's exit code for one); a
    crash report never says so (a Python traceback is read by its deciding exception line: :func:`_readable`)."""
    readable = _readable(text)
    if readable is None:
        return False
    text = readable
    curl = curl_exit_in_text(text)
    h2 = http2_code_in_text(text)
    return (
        (curl is not None and curl[1] is False)
        or _NEVER_REACHED.search(text.replace("_", " ")) is not None
        or refuses_credential_header(text)
        or refuses_a_setting(text)
        or (h2 is not None and h2[1] is False)
        or go_proxy_refusal(text) is not None
        or relays_ended_session(text)
    )


def says_maybe_acted(text: str) -> bool:
    """Whether a foreign failure text says the upstream may have acted on the request before it failed.

    True for a timeout waiting for the answer (a read, a deadline, an aborted fetch), a connection that dropped
    after the request was written, and an HTTP status that says the server failed while handling it (500, 502,
    504: RFC 9110 §15.6, :func:`~errscope._http.side_effect_for_http_status`); never for a failure before the
    upstream was reached (refused, unresolved, unreachable, a certificate, a connect timeout) or a crash report. A
    text that says nothing of the kind is ``False``: the caller keeps what it knew (``None``, not known).
    """
    readable = _readable(text)
    if readable is None or never_reached(readable):
        return False
    text = readable
    curl = curl_exit_in_text(text)
    if curl is not None:
        return curl[1]
    if key_in_flight(text):
        return True  # the first request with the key may still take effect
    grpc = grpc_status_in_text(text)
    if grpc not in (None, "UNKNOWN"):
        side_effect = grpc_code_reading(grpc, text)[1]
        if side_effect is not None:  # the gRPC table says (GRPC_CODES)
            return side_effect
    h2 = http2_code_in_text(text)
    if h2 is not None and h2[1] is not None:  # an HTTP/2 error code says (RFC 9113 §7)
        return h2[1]
    for match in _STATUS.finditer(text):
        status = int(match.group(1))
        if status not in _HTTP_STATUSES:  # a port (443) or another number, not a status
            continue
        if 400 <= status <= 499 or status in CDN_ORIGIN_NOT_REACHED:
            return False  # the request refused as a whole (RFC 9110 §15.5), or never handed to the origin
        if side_effect_for_http_status(status):
            return True
    return _AFTER_SENDING.search(text.replace("_", " ")) is not None


def acted_per_text(text: str) -> bool | None:
    """Whether a foreign failure text says the upstream may have acted (``True``: :func:`says_maybe_acted`), says it
    did not (``False``: never reached, :func:`never_reached`; or an HTTP status that refuses a request as a whole, a
    4xx, 501, 503 or 505: RFC 9110 §15.5-15.6, :func:`~errscope._http.side_effect_for_http_status`), or says
    neither (``None``). A library that kept only a text (python-engineio's ``ConnectionError`` over the requests
    failure it printed, pusher's ``"503: ..."``) is read by it."""
    if says_maybe_acted(text):
        return True
    if never_reached(text):
        return False
    readable = _readable(text)
    if readable is None:
        return None
    text = readable
    for match in _STATUS.finditer(text):
        status = int(match.group(1))
        if status in _HTTP_STATUSES and status >= 400 and not counts_things(text, match.end()):
            return side_effect_for_http_status(status)
    return None


def failed_after_sending(text: str) -> bool:
    """Whether a failure text read ``upstream_unavailable`` says the upstream may have acted: its deciding cause says so
    (:func:`says_maybe_acted` of :func:`deciding_cause`: a refused connection under a "timed out" context does not), or,
    where the cause says neither, the whole text does unless the cause says the upstream was never reached
    (java.net.http's "request timed out" over its own "connection closed locally"). The client, ``errscope proxy`` and
    a server reading a tool's ``ToolError`` read a text this one way (tests/heldout_cases.md J489)."""
    cause = deciding_cause(text)
    return says_maybe_acted(cause) or (not never_reached(cause) and says_maybe_acted(text))


# Where a printed error chain names the next cause inwards: Java's and anyhow's (``{:?}``) "Caused by:" lines, anyhow's
# numbered causes under it ("    0: …"), Python's and logging libraries' "caused by: …" / "(caused by X)", Node's
# "[cause]: …" (util.inspect of an Error with a cause) and "cause: …".
_CAUSE_MARKER: Final = prefiltered(re.compile(r"\bcaused by\b:?|\[cause\]:|\bcause:", re.I))
_NUMBERED_CAUSE: Final = re.compile(r"\bcaused by\b:?|\[cause\]:|\bcause:|(?<=\n)[ \t]+\d+: ", re.I)
"""The same, with anyhow's numbered causes: read only in a text that says "Caused by" (a numbered list elsewhere is
one message's items, not a chain)."""
_MAX_CAUSES: Final = 16
"""Causes of a printed chain read at most (Python's own chain printer stops at the same depth)."""
_MAX_LINKS: Final = 8
"""Innermost ``": "`` links of a Go/anyhow chain read at most."""
_MAX_CHAIN_TEXT: Final = 2048
"""Characters at a text's end a ``": "`` chain is looked for in: its innermost links are at the end."""
_CAUSED_BY: Final = prefiltered(re.compile(r"\bcaused by\b", re.I))
# A transport failure at the end of a Go ``%w`` / anyhow ``{:#}`` chain ("refund: charge: Post \"…\": dial tcp …:
# connect: connection refused"): the chain's innermost part, after its last ": " context.
_CHAIN_LINK: Final = ": "


# The lead an SDK, a host or an agent framework puts before whatever a tool raised, naming only the tool and that it
# failed: the Python SDK's MCPServer ("Error executing tool {name}: {exc}", and the bare "Error executing tool {name}"
# for a crash), FastMCP ("Error calling tool {name!r}: {exc}"), Cline ("Error executing MCP tool: {message}"), the OpenAI
# Agents SDK and Codex ("Error invoking MCP tool {name}: {exc}"), the C# SDK ("An error occurred invoking '{name}'." for
# any exception but McpException, "…: {message}" for some), and the "Tool execution failed: …" / "Failed to call
# tool x: …" of hand-written hosts; exception-type labels before it ("ToolException: ", "AgentsException: ") read
# through. The name is the tool's, not a failure: words in it ("get_rate_limit", "crawl_404_pages") decide nothing.
_TOOL_NAME: Final = r"(?:\s+['\"`]?[\w.\-/]+['\"`]?)?"
_TOOL_WRAPPER: Final = re.compile(
    r"\s*(?:[a-z_][\w.$]*(?:error|exception)\s*:\s*)*"
    r"(?:(?:unexpected\s+)?(?:error|failure)\s+(?:while\s+|when\s+)?(?:executing|invoking|calling|running)\s+(?:the\s+)?"
    r"(?:mcp\s+)?tool" + _TOOL_NAME +
    r"|an?\s+(?:unexpected\s+)?error\s+occurred\s+(?:while\s+|when\s+)?(?:executing|invoking|calling|running)"
    r"(?:\s+(?:the\s+)?(?:mcp\s+)?tool)?" + _TOOL_NAME +
    r"|(?:mcp\s+)?tool" + _TOOL_NAME + r"\s+(?:(?:execution|call|invocation)\s+)?failed"
    r"|failed\s+to\s+(?:execute|invoke|call|run)\s+(?:the\s+)?(?:mcp\s+)?tool" + _TOOL_NAME + r")"
    r"(?:\s*[:.]\s*|\s*$)",
    re.I,
)


def without_tool_wrapper(text: str) -> str:
    """``text`` without the lead a tool-calling SDK or host put before the tool's own failure (:data:`_TOOL_WRAPPER`),
    possibly empty (MCPServer's bare "Error executing tool x" for a crash); ``text`` itself (the same object) when it
    has none. The source of each lead: the SDKs' own code (mcp ``tools/base.py``, fastmcp ``server.py``) and the hosts'
    reports (tests/heldout_cases.md J472-J479)."""
    match = _TOOL_WRAPPER.match(text)
    return text[match.end():] if match else text


def deciding_cause(text: str) -> str:
    """The part of a printed error chain that says what happened: the innermost cause a rule reads.

    A wrapped error prints its outer contexts first and the root cause last (Java's ``Throwable.printStackTrace``
    "Caused by:", anyhow's ``Debug``, Python's ``raise … from``, Go's ``fmt.Errorf("…: %w", err)``). The outer
    parts name what was being attempted ("Permission check for refund failed", "invalid refund request"), which
    the phrase rules would misread as the failure; the innermost cause any rule reads (not ``unknown``) decides.
    With no cause marker, a Go/anyhow ``": "`` chain whose innermost links are a transport failure (the upstream not
    reached, or reached and then lost: :func:`never_reached`, :func:`says_maybe_acted`) decides the same way; a
    timeout's outer links, read through socket operations and mere labels (:data:`_ERROR_LABEL`), may say it was the
    connect that failed (nothing sent). Else the whole text. A tool-calling SDK's or host's lead naming the tool
    (:func:`without_tool_wrapper`) is read through first. A crash report is always read whole (it is the tool's own
    failure); a printed Python traceback of a failure outside the program is its deciding exception line
    (:func:`_traceback_cause`).
    """
    readable = _readable(text)
    if readable is None:
        return text
    if readable is not text:  # a Python traceback: its deciding exception line
        return readable
    inner = without_tool_wrapper(text)
    if inner is not text:
        return deciding_cause(inner) if inner.strip() else inner
    if _CAUSED_BY.search(text):
        parts = _NUMBERED_CAUSE.split(text, maxsplit=_MAX_CAUSES)
    else:  # RE2 first: most texts have no marker, and a split is Python's scan of the whole text
        parts = _CAUSE_MARKER.pattern.split(text, maxsplit=_MAX_CAUSES) if _CAUSE_MARKER.search(text) else [text]
    parts = [part for part in parts if part.strip()]
    for part in reversed(parts[1:]):
        if _classify_whole(part) is not FailureClass.UNKNOWN:
            return part
    # The innermost links only (a chain is a line: a dump of many lines is no chain), each tail read once.
    links = text[-_MAX_CHAIN_TEXT:].split(_CHAIN_LINK)[-_MAX_LINKS - 1:]
    for start in range(len(links) - 1, 0, -1):
        tail = _CHAIN_LINK.join(links[start:])
        if _classify_whole(tail) is FailureClass.UPSTREAM_UNAVAILABLE and (never_reached(tail) or says_maybe_acted(tail)):
            # the link before names the operation that failed (Go's net.OpError "dial tcp 10.0.0.1:6443: i/o timeout"):
            # a connect that timed out never sent the request, which the bare "i/o timeout" does not say; a resolver's
            # operation stands further out ("lookup x on 10.0.0.2:53: read udp …: i/o timeout"), read through the
            # socket operations between
            for before in range(start - 1, -1, -1) if not never_reached(tail) else ():
                operation = _CHAIN_LINK.join(links[before:])
                if never_reached(operation):
                    return operation
                link = links[before].strip()
                if not (_NET_OPERATION.fullmatch(link) or _ERROR_LABEL.fullmatch(link)):
                    break
            return tail
    return text


_NET_OPERATION: Final = re.compile(r"(?:read|write|dial) (?:tcp|udp|unix)[46]?(?: \S+)?")
"""A socket operation as Go's net.OpError prints it before its cause ("read udp 10.0.0.9:43426->10.0.0.2:53")."""
_ERROR_LABEL: Final = re.compile(r"(?:(?:mcp|json-?rpc) )?error(?: -?\d+)?|[a-z_][\w.$]*(?:error|exception)", re.I)
"""A link that only labels the cause under it, read through to the operation further out: a JSON-RPC error's code as
the TypeScript SDK prints it ("MCP error -32001: Request timed out" under a host's "Failed to connect to MCP server"),
an exception's type name ("TimeoutError: timed out"). A timeout while the connection was being opened sent nothing."""


def classify_text(text: str) -> FailureClass:
    """Classify a foreign server's error text onto the closed set; ``unknown`` when nothing matches.

    A printed error chain is read by its innermost cause (:func:`deciding_cause`); the rules below apply to it. A text
    relaying an MCP session the server behind no longer knows (:func:`relays_ended_session`) is read whole first:
    ``upstream_unavailable`` (MCP 2025-11-25, Transports > Session Management).
    """
    if relays_ended_session(text):  # read on the whole text: the words that say it is MCP's may be in the envelope
        return FailureClass.UPSTREAM_UNAVAILABLE
    return _classify_whole(deciding_cause(text))


def _classify_whole(text: str) -> FailureClass:
    """Classify ``text`` as one message (no cause chain read).

    A crash report (:data:`_CRASH`) is ``unknown`` before any other rule: the tool failed on its own. An API error
    code the text names (:func:`api_code_class`) comes next, then status numbers, then phrases. Words that
    would read as invalid input are ``unknown`` in a text about an upstream's answer the tool could not decode
    (:func:`reads_upstream_data`). CamelCase kinds (``ConnectionRefused``) are read as words last.
    """
    readable = _readable(text)
    if readable is None or refuses_a_setting(text):
        return FailureClass.UNKNOWN
    text = readable
    if _ACCOUNT_UNPAID.search(text) or refuses_credential_header(text):
        return FailureClass.PERMISSION_DENIED
    if _HELD_ELSEWHERE.search(text) or _CONFLICTED_WRITE.search(text) or key_in_flight(text):
        return FailureClass.UPSTREAM_UNAVAILABLE
    if _key_reused(text):
        return FailureClass.INVALID_INPUT
    smtp = smtp_reply_in_text(text)  # a mail server's reply code: read as smtplib's exception is
    if smtp is not None and smtp is not FailureClass.UNKNOWN:
        return smtp
    # A failed curl command's text is its argv and its exit code: the code decides, not words in its URL.
    curl = curl_exit_in_text(text, command_only=True)
    if curl is not None:
        return curl[0]
    # An API's own code decides before its HTTP status and its prose, as it does on an exception (DynamoDB throttles
    # with a 400; "The security token included in the request is invalid" is a refused credential).
    named = named_code_class(text) or sqlstate_class(text)
    if named is not None:
        return FailureClass.UNKNOWN if named is FailureClass.INVALID_INPUT and reads_upstream_data(text) else named
    # A gRPC status the text prints decides as it does on a gRPC library's exception (GRPC_CODES), except UNKNOWN,
    # which says only that the handler failed: its description is read by the rules below first.
    grpc = grpc_status_in_text(text)
    if grpc is not None and grpc != "UNKNOWN":
        return grpc_code_reading(grpc, text)[0]
    # An HTTP/2 error code a stream reset or GOAWAY carried, read as on an h2 event (.NET's "HTTP/2 error code
    # 'PROTOCOL_ERROR'" is no invalid argument); a proxy's refusal of Go's CONNECT, by its reason phrase's status.
    h2 = http2_code_in_text(text)
    if h2 is not None:
        return h2[0]
    proxy_status = go_proxy_refusal(text)
    if proxy_status is not None:
        return class_for_http_status(proxy_status)
    words = text.replace("_", " ")  # codes name their words in snake case: DEADLINE_EXCEEDED, ERR_NAME_NOT_RESOLVED
    for match in _STATUS.finditer(text):
        status = int(match.group(1))
        if 400 <= status <= 599 and not counts_things(text, match.end()):
            cls = class_for_http_status(status)  # the server-side table (RFC 9110 §15)
            # A 403 that says it is a rate limit is one: GitHub's REST API answers its primary and secondary limits with
            # 403 or 429 ("API rate limit of 5000 still exceeded", "You have exceeded a secondary rate limit"), Google's
            # APIs their rateLimitExceeded with 403; as a 403 with Retry-After or no requests remaining is read
            if status == 403 and _RATE_LIMIT_WORDS.search(words):
                return FailureClass.RATE_LIMITED
            if cls is not FailureClass.UNKNOWN:
                return cls
    for cls, pattern in _PHRASES:
        if pattern.search(words):
            return FailureClass.UNKNOWN if cls is FailureClass.INVALID_INPUT and reads_upstream_data(text) else cls
    if grpc is not None:  # UNKNOWN with a description no rule reads
        return GRPC_CODES[grpc][0]
    curl = curl_exit_in_text(text)  # curl's line in words no rule reads
    if curl is not None:
        return curl[0]
    # Debug-printed Rust errors name their kind in CamelCase (io::ErrorKind's ConnectionRefused, NotFound,
    # PermissionDenied; sqlx's RowNotFound): read as words only when the text said nothing else.
    camel = _CAMEL_BREAK.sub(" ", words)
    if camel != words:
        for cls, pattern in _PHRASES:
            if cls is not FailureClass.INVALID_INPUT and pattern.search(camel):
                return cls
    return FailureClass.UNKNOWN


_RATE_LIMIT_WORDS: Final = _PHRASES[0][1]
"""The ``rate_limited`` phrases (the first of :data:`_PHRASES`)."""

_CAMEL_BREAK: Final = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")


_RETRY_AFTER: Final = prefiltered(re.compile(r"retry[ -_]?after[\s:=]*\d|(?:try again|retry) in \d", re.I))
"""Where a text states its wait, up to the wait's first digit: "retry after …" / "Retry-After: …" (a bare number is
seconds, as the header's delay-seconds), "try again in …" / "retry in …" (a unit is required). The wait itself is read
by :data:`_WAIT_PART`."""

_WAIT_PART: Final = re.compile(
    r"(\d+(?:\.\d+)?)\s*(ms|milliseconds?|h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)?(?![a-z])", re.I)
"""One part of a stated wait: a number and its unit, whole (not the "h" of "hello"). Parts follow each other as Go's
``time.Duration`` prints them ("1h2m3.4s", "2m52.8s": Groq's and OpenAI's "Please try again in …" on a per-day limit)
or spaced ("1h 5m", "1 minute 30 seconds"); an hour is a unit (Telegram's "retry after 24 hour")."""

_WAIT_JOIN: Final = re.compile(r"(?:\s*,)?\s*(?:and\s+)?")
_UNIT_SECONDS: Final = {"ms": 0.001, "h": 3600.0, "m": 60.0, "s": 1.0}


def retry_after_from_text(text: str) -> float | None:
    """The wait a text asks for, in seconds: "retry after 30s" / "Retry-After: 30" / "try again in 2 minutes" / "Please
    try again in 1h2m3.4s" (every part of a composite duration summed); ``None`` when it states none."""
    match = _RETRY_AFTER.search(text)
    if match is None:
        return None
    bare_number_allowed = "after" in match.group(0).lower()
    total: float | None = None
    position = match.end() - 1  # the wait's first digit
    while (part := _WAIT_PART.match(text, position)) is not None:
        value, unit = float(part.group(1)), part.group(2)
        if unit is None:  # a number with no unit: seconds, only as the whole of "retry after N"
            return value if total is None and bare_number_allowed else total
        unit = unit.lower()
        factor = _UNIT_SECONDS["ms" if unit.startswith(("ms", "milli")) else unit[0]]
        total = (total or 0.0) + value * factor
        joined = _WAIT_JOIN.match(text, part.end())
        position = joined.end() if joined else part.end()
    return total


def scrub_text(text: str) -> str:
    """Scrub ``text`` with errscope's scrubber (credentials, tokens, connection strings)."""
    return scrub(text)


# Fragments that are never useful to a model and often leak layout: file paths with line numbers,
# "trace at ...", Python traceback lines, URLs' query strings.
_NOISE: Final = (
    # a whitespace run is entered at its start only (lookbehinds): a start at each of its characters made a
    # long run of padding quadratic
    re.compile(r"(?:[;,]|(?<![\s;,]))\s*(?:stack\s*)?trace(?:back)?\b.*$", re.I | re.S),
    re.compile(r"(?<!\s)\s*\bat\s+\S+:\d+(?::\d+)?"),
    # A path, with a frame's position and name when it has one: Ruby's "x.rb:94:in `block in run'", Go's
    # "main.go:12 +0x1d", a JavaScript "x.js:3:14".
    re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@~-]+){2,}(?::\d+(?::\d+)?(?::in\s+[`'][^'\n]*')?(?:\s+\+0x[0-9a-f]+)?)?"),
    re.compile(r"\bFile \"[^\"]+\", line \d+.*$", re.S),
)


# Addresses in foreign text tell the model nothing it can use and tell an attacker the layout:
# connection strings and URLs (user names, internal hosts) and IP addresses become placeholders.
_ADDRESSES: Final = (
    (re.compile(r"(?i)(?<![\w+.-])[a-z][a-z0-9+.-]*://[^\s,;'\")]+"), "[url]"),  # a scheme starts a run
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "[ip]"),
    # A file path standing in a sentence (no frame position after it: a frame is noise, below) keeps its place:
    # "ENOENT: no such file or directory, open '[path]'", not "open ''", which reads as an empty path.
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@~-]+){2,}(?![\w.@~/:-])"), "[path]"),
)


# Words of an SDK's generic wrapper ("Error executing tool x", "Tool execution failed", "An internal error
# occurred"): an excerpt made only of these and the tool's name tells the model nothing "x failed" does not.
_GENERIC_WORDS: Final = frozenset(
    "a an the error errors executing execution execute tool tools call calling failed failure internal occurred "
    "while unexpected unknown exception raised".split()
)


# ... and of a JSON-RPC error's generic message ("Internal error", "Server error", "Error handling request"): the cause,
# if any, is in its ``data``.
_GENERIC_ERROR_WORDS: Final = _GENERIC_WORDS | frozenset("server request handling processing mcp rpc json-rpc".split())


def names_no_cause(message: str) -> bool:
    """Whether a JSON-RPC error's ``message`` is only generic words (:data:`_GENERIC_ERROR_WORDS`)."""
    return all(word in _GENERIC_ERROR_WORDS for word in re.findall(r"[\w.-]+", message.lower()))


def says_nothing(excerpt: str, tool: str) -> bool:
    """Whether ``excerpt`` only repeats that ``tool`` failed, in an SDK's generic words."""
    words = re.findall(r"[\w.-]+", excerpt.lower())
    return all(word in _GENERIC_WORDS or word == tool.lower() for word in words)


# The start of an HTML page quoted inside an error text: a gateway's or CDN's error page ("HTTP error 502: <html>…",
# "Error POSTing to endpoint (HTTP 524): <!DOCTYPE html>…"; pgEdge/pgedge-postgres-mcp PR #47, obot-platform/obot #3266).
_PAGE: Final = prefiltered(re.compile(r"<(?:!doctype\s+html|html|head|body)\b", re.I))


class _Headline(HTMLParser):
    """The words an HTML page says first: its first ``<h1>``, else its ``<title>`` (the title of a CDN's page
    names the site, the heading does not)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.h1: list[str] = []
        self.title: list[str] = []
        self._inside: str | None = None
        self._h1_done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "title") and self._inside is None and not (tag == "h1" and self._h1_done):
            self._inside = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inside:
            self._h1_done = self._h1_done or tag == "h1"
            self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside == "h1":
            self.h1.append(data)
        elif self._inside == "title":
            self.title.append(data)

    def words(self) -> str:
        return " ".join(" ".join(self.h1 or self.title).split())


def without_page(text: str) -> str:
    """``text`` with an HTML page in it replaced by the page's headline: markup, scripts, the site's name and the
    visitor's address are for a browser, not a model. Text without a page comes back unchanged."""
    found = _PAGE.search(text)
    if found is None:
        return text
    headline = _Headline()
    try:
        headline.feed(text[found.start() :])
        headline.close()
    except Exception:  # a page too broken to read says nothing either
        pass
    return f"{text[: found.start()].rstrip()} {headline.words()}".strip()


def safe_excerpt(text: str, limit: int = 160) -> str:
    """Scrub ``text``, reduce an HTML page in it to its headline, drop terminal escapes, addresses, paths and stack
    fragments, keep the first line, cap it at ``limit``, one printable line."""
    text = without_page(scrub_text(without_terminal_escapes(text)))
    for pattern, replacement in _ADDRESSES:
        text = pattern.sub(replacement, text)
    for pattern in _NOISE:
        text = pattern.sub("", text)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.rstrip(" .;:,")
    if len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    return printable(first)


# An upstream API's JSON error document, relayed as a tool's error text: OpenAI's and Anthropic's
# ``{"error": {"message", "type", "code"}}``, a streamed ``{"type": "error", "error": {...}}`` event, Google's
# ``{"error": {"code", "message", "status"}}``, and a gateway's wrap whose real cause is a further document held as a
# *string* (OpenRouter's ``error.metadata.raw``; decocms/studio PR #6827).
MESSAGE_KEYS: Final = ("message", "error_description", "detail", "description", "msg", "title", "reason")
"""Where an error object says what went wrong in words, most usual first (JSON-RPC, OAuth 2.0, RFC 9457, pydantic)."""
_DOC_CODE_KEYS: Final = ("code", "status", "error_code", "errorCode")
_DOC_DEPTH: Final = 8
# The keys an error nests under: ``error``/``errors``, Azure's ``innererror``, a ``cause``, RFC 9457's ``detail``s, a
# gateway's ``metadata.raw`` or the upstream ``body``/``response`` it relays.
_DOC_NESTING: Final = prefiltered(re.compile(r"error|fault|cause|inner|detail|metadata|raw|body|response|upstream|provider", re.I))
_DOC_PREFIX: Final = re.compile(r"^[^{\n]{0,80}?(?=\{)")  # "Error: 400 ", "data: ", "upstream said: "




def _doc(text: str) -> Any:
    """The JSON object ``text`` is (after a short prefix), or ``None``. A text that is a JSON array of error objects and
    nothing else (Salesforce's REST API answers every error as ``[{"message": ..., "errorCode": ...}]``) is read as
    ``{"errors": [...]}``; not one after words ("Invalid arguments for tool x: [{...zod issues}]": those words say
    what happened, J214)."""
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            items = json.loads(stripped)
        except (ValueError, RecursionError):
            return None
        return {"errors": items} if isinstance(items, list) and all(isinstance(i, dict) for i in items) else None
    prefix = _DOC_PREFIX.match(stripped)
    if prefix is None or not stripped.endswith("}"):
        return None
    try:
        value = json.loads(stripped[prefix.end():])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _doc_findings(value: Any, depth: int) -> list[tuple[int, str, list[str]]]:
    """(depth, message, codes) of every object in ``value`` that carries a message, documents in strings included."""
    if depth > _DOC_DEPTH:
        return []
    if isinstance(value, str):
        inner = _doc(value) if "{" in value else None
        return _doc_findings(inner, depth + 1) if inner is not None else []
    if isinstance(value, list):
        return [found for item in value[:8] for found in _doc_findings(item, depth + 1)]
    if not isinstance(value, dict):
        return []
    found: list[tuple[int, str, list[str]]] = []
    message = next((value[key] for key in MESSAGE_KEYS
                    if isinstance(value.get(key), str) and value[key].strip() and _doc(value[key]) is None), None)
    error = value.get("error")
    if message is None and isinstance(error, str) and error.strip() and _doc(error) is None:
        # The error told as a bare string beside no message (Slack's ``{"ok":false,"error":"invalid_auth"}``, a CLI
        # wrapper's ``{"response":"","error":"An error occurred (…)"}``): that string is what the document says.
        message = error
    if message is not None:
        codes = [str(value[key]) for key in _DOC_CODE_KEYS
                 if isinstance(value.get(key), str | int) and not isinstance(value.get(key), bool)]
        codes = _postgrest_codes(value) or codes
        if not codes and isinstance(value.get("type"), str):  # the category only when no code says more
            codes = [value["type"]]
        found.append((depth, message.strip(), codes))
    for key, item in value.items():
        if _DOC_NESTING.search(str(key)):  # only where an error nests, never a record's own "description"
            found.extend(_doc_findings(item, depth + 1))
    return found


# PostgREST's error object (https://docs.postgrest.org/en/stable/references/errors.html): ``code``, ``details``,
# ``hint`` and ``message``, always all four. Its ``code`` is the database's SQLSTATE or PostgREST's own PGRST code,
# whose group the documentation gives one HTTP status: 0xx the database out of reach (503), 3xx the JWT (401).
_POSTGREST_KEYS: Final = frozenset({"code", "details", "hint", "message"})
_PGRST_STATUS: Final = {"0": "503", "3": "401"}
_NO_ROWS: Final = prefiltered(re.compile(r"\bcontains 0 rows\b"))


def _postgrest_codes(value: dict[str, Any]) -> list[str]:
    """The codes of a PostgREST error object as the rules read them: a SQLSTATE as "SQLSTATE x" (read as a driver's,
    :data:`SQLSTATE_CLASSES`), a PGRST code with its documented status, PGRST116 for a single row asked for and none
    there as a 404; ``[]`` for any other object."""
    code = value.get("code")
    if not isinstance(code, str) or not _POSTGREST_KEYS <= value.keys():
        return []
    if len(code) == 5 and code.isalnum() and code[:2].isdigit():
        return [f"SQLSTATE {code}"]
    if code == "PGRST116" and _NO_ROWS.search(str(value.get("details") or "")):
        return [code, "404"]
    status = _PGRST_STATUS.get(code[5:6]) if code.startswith("PGRST") and code[5:].isdigit() else None
    return [code, status] if status and code != "PGRST300" else [code]


def json_error_parts(text: str) -> tuple[str, list[str]] | None:
    """``(innermost message, its codes)`` of a JSON error document (see :func:`json_error_message`), or ``None``."""
    if "{" not in text:
        return None
    doc = _doc(text)
    if doc is None:
        return None
    findings = _doc_findings(doc, 0)
    if not findings:
        return None
    _, message, codes = max(findings, key=lambda found: found[0])
    return message, codes


def json_error_message(text: str) -> str | None:
    """The readable part of a JSON error document: its innermost message, then its codes in parentheses.

    ``None`` when ``text`` is not a JSON object (after a prefix of at most 80 characters) holding a message. The
    deepest message wins: a gateway's "Provider returned error" wraps the provider's own words. Only the chosen
    object's ``code``/``status`` (or, failing both, its ``type``) are kept: they carry the class
    (``invalid_api_key``, ``RESOURCE_EXHAUSTED``, ``server_error``) where the message may not. Not scrubbed: the
    caller's excerpt is.
    """
    parts = json_error_parts(text)
    if parts is None:
        return None
    message, codes = parts
    return f"{message} ({', '.join(codes)})" if codes else message


_DATA_TEXT_KEYS: Final = (*MESSAGE_KEYS, "error", "cause", "exception", "details")
_DATA_STATUS_KEYS: Final = ("status", "statusCode", "status_code", "http_status", "httpStatus")
_DATA_DEPTH: Final = 4


def data_texts(data: Any, depth: int = 0) -> tuple[str, ...]:
    """What a JSON-RPC error's ``data`` says in words, in order: the string it is, or the strings an object holds under
    the keys errors are told with (:data:`MESSAGE_KEYS`, a bare ``error``, a ``cause``), nested objects and lists under
    those keys included (at most :data:`_DATA_DEPTH` deep), and an HTTP status it names (``{"status": 503}``, as
    ``"HTTP 503"``).

    ``data`` is "additional information about the error" (JSON-RPC 2.0, section 5.1), and several SDKs keep the
    cause only there behind a generic message: rmcp servers' ``McpError::internal_error("IO operation failed",
    Some(json!({"error": e.to_string()})))``, a Java server's ``data`` holding the exception's text.
    """
    if depth > _DATA_DEPTH:
        return ()
    if isinstance(data, str):
        return (data,) if data.strip() else ()
    if isinstance(data, list):
        return tuple(text for item in data[:8] for text in data_texts(item, depth + 1))
    if not isinstance(data, dict):
        return ()
    texts: list[str] = []
    for key in _DATA_TEXT_KEYS:
        if key in data:
            texts.extend(data_texts(data[key], depth + 1))
    for key in _DATA_STATUS_KEYS:
        status = data.get(key)
        if type(status) is int and 400 <= status <= 599:
            texts.append(f"HTTP {status}")
    return tuple(texts)
