"""What an exception's class name says when no rule knows it (``NotFound``, ``Timeout``, ``ConnectError``), and
the wait it carries (``retry_after``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Final

from errscope._classify._core import Classification, delay_seconds
from errscope._classify._facts import _attribute, _message_of, _raised_connecting, _response_header
from errscope._foreign_text import acted_per_text, classify_text
from errscope._http import class_for_http_status, retry_after_from_headers, side_effect_for_http_status
from errscope._prefilter import prefiltered
from errscope._vocabulary import FailureClass


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
_FORMAT_WORDS: Final = prefiltered(re.compile(
    r"Bad[A-Z0-9]\w*File\b|Not[A-Z0-9]\w*File\b|Unidentified|DecompressionBomb|InvalidFile|Corrupt|Malformed|"
    r"(?:Empty|Broken|Damaged|Truncated)(?:Data|File|Document|Image|Archive|Stream)|FileData|"
    r"(?:Pdf|PDF|Xml|XML|Yaml|YAML|Toml|TOML|Csv|CSV|Tar|Zip|Archive)(?=[A-Z])\w*Error|"  # not Target..., Zipcode...
    r"(?:Parse|Parser|Parsing|Scanner|Syntax|Expat)(?:Error|Exception)$|"
    r"(?i:^(?:zlib|brotli|bz2|lzma|zstd|lz4|snappy|csv|wave|aifc|sunau)\w*error$)"))
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


def _parsed_while_connecting(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by a library's code running under a connecting function of the same library
    (:func:`_raised_connecting` with the package of the innermost frame): a client reading its peer's greeting or
    handshake, which is no file of the call's. A tool's own function named ``connect`` reading its settings is the
    tool's package, not a library's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    package = str(tb.tb_frame.f_globals.get("__name__", "")).partition(".")[0]
    return bool(package) and package not in ("__main__", "builtins") and _raised_connecting(exc, package)


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
                # AuthError as one word (Chroma's ChromaAuthError, its 403), not OAuth's (an OAuth flow's own errors);
                # BadAuth (pusher's PusherBadAuth, its 401)
                r"(?<!O)Auth(?:Error|Exception)|BadAuth|"
                # a document locked by a password the tool lacks or got wrong (pypdf's FileNotDecryptedError): the
                # credential that opens it, as a 401 without one
                r"NotDecrypted|(?:Wrong|Bad|Incorrect|Invalid|Missing)Password|Password(?:Required|Needed|Incorrect|Invalid)"),
     FailureClass.PERMISSION_DENIED, False),
    (_NOT_FOUND_WORDS, FailureClass.NOT_FOUND, None),
    # HTTP 400's and 422's names (Tavily's BadRequestError): the request's values, refused as a whole; gRPC's
    # INVALID_ARGUMENT and a unique constraint (as SQLSTATE 23505) by name (Chroma's InvalidArgumentError,
    # UniqueConstraintError); a vector of the wrong length for its collection (Chroma's InvalidDimensionException); a
    # request over a size limit (Chroma's BatchSizeExceededError: a smaller batch fits)
    # (Java's IllegalArgumentException, a server's own: WebHDFS's answer to a parameter out of its domain)
    (re.compile(r"Duplicate|AlreadyExists|BadRequest|UnprocessableEntity|(?:Invalid|Illegal)Argument|UniqueConstraint|"
                r"InvalidDimension|DimensionMismatch|SizeExceeded|TooLarge"), FailureClass.INVALID_INPUT, False),
    # a document, archive or compressed stream its format's reader refuses (_FORMAT_WORDS), as a body that does not
    # parse: another file would be read; nothing done
    (_FORMAT_WORDS, FailureClass.INVALID_INPUT, False),
    # a timeout that says whether the operation took effect (Couchbase's SDKs: UnAmbiguousTimeoutException, "the
    # operation was not performed", e.g. never connected; AmbiguousTimeoutException and DurabilityAmbiguousException,
    # "it may have been", https://docs.couchbase.com/python-sdk/current/howtos/error-handling.html)
    (re.compile(r"Un[Aa]mbiguousTimeout"), FailureClass.UPSTREAM_UNAVAILABLE, False),
    # a server that refuses every change in its present state and will take them later: Hadoop's NameNode in safe mode
    # (SafeModeException, while it starts or under maintenance) or the standby of an HA pair (StandbyException: the
    # client's failover finds the active one); a server that says it is too busy to take the request now (Exchange Web
    # Services' ErrorServerBusy, "the server is busy" and the client is to back off, as a 503); nothing done
    (re.compile(r"SafeMode|Standby|Server_?Busy|Too_?Busy"), FailureClass.UPSTREAM_UNAVAILABLE, False),
    (re.compile(r"AmbiguousTimeout|DurabilityAmbiguous"), FailureClass.UPSTREAM_UNAVAILABLE, True),
    # a connection that never opened, or none open when asked to send (stomp.py's ConnectFailedException,
    # NotConnectedException): nothing went out
    (re.compile(r"Connect(ion)?Failed|NotConnected"), FailureClass.UPSTREAM_UNAVAILABLE, False),
    (re.compile(r"Connect(ion)?(Error|Exception|Refused|Timeout)|NameResolution|Unreachable"),
     FailureClass.UPSTREAM_UNAVAILABLE, None),
    (re.compile(r"Timeout|TimedOut|Unavailable|ConnectionClosed|Disconnect"), FailureClass.UPSTREAM_UNAVAILABLE, None),
)


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
    # older and shorter names: RFC 7231's 413, RFC 4918's 422, a 5xx as a server's error, a gateway's as 502's
    "server": 500, "gateway": 502, "payloadtoolarge": 413, "requestentitytoolarge": 413, "unprocessablecontent": 422,
}


# Where a library's error keeps the class name of the server's own exception (HdfsCLI's ``HdfsError.exception``: the
# WebHDFS answer's ``RemoteException.exception``, a Java class such as ``FileNotFoundException``), and the shape of
# such a name (a class, dotted or not, ending in Exception or Error)
_REMOTE_CLASS_ATTRIBUTES: Final = ("exception", "exception_name", "exception_class", "java_class_name")
_REMOTE_CLASS: Final = re.compile(r"(?:[A-Za-z_$][\w$]*\.)*([A-Z][\w$]*(?:Exception|Error))")


def _remote_class_name(exc: BaseException) -> str | None:
    """The server's own exception class ``exc`` names (:data:`_REMOTE_CLASS_ATTRIBUTES`), its last dotted part."""
    for attribute in _REMOTE_CLASS_ATTRIBUTES:
        value = _attribute(exc, attribute)
        match = _REMOTE_CLASS.fullmatch(value) if isinstance(value, str) else None
        if match:
            return match.group(1)
    return None


def _by_name(exc: BaseException) -> Classification | None:
    """What the names say: the server's own exception class ``exc`` names (:func:`_remote_class_name`: it says what
    the server found, where the library's class says only that the server refused), else ``exc``'s classes, leaf
    first (:func:`_named`)."""
    remote = _remote_class_name(exc)
    names = [(remote, remote)] if remote else []
    for klass in type(exc).__mro__:
        if klass.__module__ == "builtins":
            break
        names.append((klass.__name__, _class_words(klass)))
    for name, words in names:
        named = _named(exc, name, words)
        if named is None:
            continue
        failure_class, sent = named
        if name is remote and sent is None and failure_class is not FailureClass.UPSTREAM_UNAVAILABLE:
            sent = False  # the server answered with its refusal: it did nothing
        if failure_class is FailureClass.PERMISSION_DENIED and classify_text(
                _message_of(exc)) is FailureClass.RATE_LIMITED:
            # a refusal named Forbidden whose words say a usage quota or rate limit is spent (Tavily's 432
            # "exceeds your plan's set usage limit"), as a 403 that says when to come back: a rate limit
            failure_class = FailureClass.RATE_LIMITED
        elif _REASON_NAMES.get(_reason_key(name)) == HTTPStatus.BAD_REQUEST and (said := classify_text(
                _message_of(exc))) in (FailureClass.PERMISSION_DENIED, FailureClass.RATE_LIMITED):
            # a class named Bad Request that keeps no status, whose words say the credentials were refused or a rate
            # limit reached: an API that files every 4xx answer under one code (Razorpay's BAD_REQUEST_ERROR, for its
            # 401 "Authentication failed" and its 429, https://razorpay.com/docs/errors/): the words are the finer
            failure_class = said
        wait = _carried_delay(exc) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, side_effect_possible=sent)
    return None


def _named(exc: BaseException, class_name: str, name: str) -> tuple[FailureClass, bool | None] | None:
    """What a class named ``class_name`` (its words read from ``name``) says: an HTTP status's reason phrase (that
    status's class and fact), else the words."""
    status = _REASON_NAMES.get(_reason_key(class_name))
    if status is not None and class_for_http_status(status) is not FailureClass.UNKNOWN:
        return class_for_http_status(status), side_effect_for_http_status(status)
    for pattern, failure_class, side_effect in _NAME_WORDS:
        matched = pattern.search(name)
        if matched is None:
            continue
        if pattern is _FORMAT_WORDS and _parsed_while_connecting(exc):
            # a protocol's frame parser refusing what a peer sent while the connection was being set up (pamqp's
            # AMQPSyntaxError under aiormq's connect, for a broker that answered another protocol's header): the
            # peer's bytes, before any request of the caller's
            return FailureClass.UPSTREAM_UNAVAILABLE, False
        if pattern is _FORMAT_WORDS and (_ANSWER_WORDS.search(name) or _answer_on_stack(exc)):
            continue  # a reader of a protocol's answer: the upstream's bytes, not a file the call named
        sent = _sent_by_name(exc) if failure_class is FailureClass.UPSTREAM_UNAVAILABLE and side_effect is None \
            else side_effect
        if sent is None and failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            # a generic name (``ConnectionError``, ``SocketTimeoutError``) raised while connecting (clickhouse-driver's
            # timeout waiting for the server's hello) sent nothing; else the text may say where it broke:
            # python-engineio keeps only the requests failure's text ("... [Errno 111] Connection refused")
            # (not its own class name, which kafka-python's str() begins with: "KafkaTimeoutError: ...")
            text = _message_of(exc).removeprefix(f"{type(exc).__name__}:").strip()
            if _raised_connecting(exc, anywhere=True):
                sent = False
            elif (sent := acted_per_text(text)) is False and acted_per_text(_without_words(text, matched.group())) is not False:
                # "not sent" only from the words the name already said, which the name's rule reads as not known
                # (algoliasearch's AlgoliaUnreachableHostException, "Unreachable hosts", after every host answered 500)
                sent = None
        return failure_class, sent
    return None


_CAMEL_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _without_words(text: str, name: str) -> str:
    """``text`` without the words of ``name`` (a class name's part, ``Unreachable``, ``ConnectionError``), in any case
    and spelled apart, together or with ``_``/``-``."""
    words = _CAMEL_WORD.findall(name)
    return re.sub(r"[\s_-]*".join(map(re.escape, words)), " ", text, flags=re.I) if words else text


def _carried_delay(exc: BaseException) -> float | None:
    """The delay a rate-limit exception keeps as a number of seconds (``retry_after``: slack_sdk, pyrate;
    ``retry_after_s``: qdrant-client; ``backoff``: Dropbox), else its response's ``Retry-After``."""
    header = retry_after_from_headers(lambda name: _response_header(exc, name))
    for name in ("retry_after", "retry_after_s", "retry_after_seconds", "backoff"):
        seconds = delay_seconds(_attribute(exc, name))
        if seconds == 0 and header is None and _attribute(exc, "response") is not None:
            # the SDK's default where the answer it keeps said nothing (keystoneauth1's HttpError.retry_after=0)
            continue
        if seconds is not None:
            return seconds
    return header
