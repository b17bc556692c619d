"""HTTP: statuses carried by clients' exceptions (RFC 9110 §15), transport errors, proxies (RFC 9209, SOCKS),
redirect loops, HTTP/2 error codes (RFC 9113 §7), statuses and error documents in a message's text.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

from errscope._classify._builders import _status_named, _unavailable
from errscope._classify._chain import raising_locals, walk
from errscope._classify._core import Classification, Upstream, _UNUSABLE_URL, classify, delay_seconds
from errscope._classify._facts import (
    _PROGRAMMING_ERRORS,
    _attribute,
    _error_status,
    _message_of,
    _request_address,
    _response_header,
    _status_classification,
    http_address,
    http_status_of,
)
from errscope._classify._names import _NOT_FOUND_WORDS, _by_name, _carried_delay, _sent_by_name
from errscope._foreign_text import (
    api_code_class as _code_family,
    classify_text,
    counts_things,
    json_error_parts,
    key_in_flight,
    named_code_class,
    retry_after_from_text,
)
from errscope._http import HTTP2_ERROR_CODES, class_for_http_status, retry_after_from_headers
from errscope._vocabulary import FailureClass


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
    if not below or id(exc) in weighing or _real_response(_attribute(exc, "response")) or any(
            _attribute(exc, name) for name in ("headers", "response_headers", "resp_headers")):  # a real answer has some
        return False
    weighing.add(id(exc))
    try:
        # a status below (the one this repeats) that a server answered, or a chain that loops back (``raise e from
        # e``); a status below made up the same way (LiteLLM's OpenAIError(500) over openai's APIConnectionError) is
        # no answer either
        if any(failure is exc or (http_status_of(failure) is not None and not _no_answer_below(failure))
               for failure in below):
            return False
        inner = classify(below[0])
    finally:
        weighing.discard(id(exc))
    return inner.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and inner.side_effect_possible is not None


def _real_response(response: object) -> bool:
    """Whether ``response`` may be a server's answer: any object but one the SDK made up with no header at all (LiteLLM
    files a refused connection under ``InternalServerError`` holding ``httpx.Response(500)`` with empty headers and a
    placeholder request): a real HTTP answer carries some (``Date``, ``Content-Length``, RFC 9110 §6.6.1)."""
    if response is None:
        return False
    headers = _attribute(response, "headers")
    try:
        return headers is None or len(headers) > 0
    except TypeError:
        return True


_WEIGHING: Final = threading.local()


def _weighing() -> set[int]:
    """The ids of the exceptions :func:`_no_answer_below` is weighing now in this thread: a chain that leads back to
    one answers no. Per thread: another thread classifying the same exception (a failure shared by the callers of one
    future) is not weighing it."""
    ids: set[int] | None = getattr(_WEIGHING, "ids", None)
    if ids is None:
        ids = _WEIGHING.ids = set()
    return ids


def _retries_spent_on(exc: BaseException) -> int | None:
    """The status urllib3's ``Retry`` gave up on (its ``ResponseError``, "too many 500 error responses"), when ``exc``
    was raised over that (its chain, or a ``reason`` it kept): spotipy raises ``SpotifyException(429)`` for any status
    its session retried until the retries ran out, the real one only in urllib3's words."""
    texts = [_message_of(failure) for failure in walk(exc)[1:]]
    reason = _attribute(exc, "reason")
    if isinstance(reason, BaseException):
        texts.append(_message_of(reason))
    match = next((m for m in map(_RETRIED_STATUS.search, texts) if m), None)
    return int(match.group(1)) if match else None


def _http_status(exc: BaseException) -> Classification | None:
    status = http_status_of(exc)
    if status is None or _is_http_parse_error(exc.__cause__):
        return None  # none, or the client parser's own: its cause decides
    retried = _retries_spent_on(exc)
    if retried is not None and retried != status:
        return _status_named(retried, "http")(exc)  # the status the server answered, not the one the SDK filed it under
    # (and a 408 an SDK files its own read timeout under: LiteLLM's ``Timeout``, no response held)
    if (status >= 500 or status == 408) and _no_answer_below(exc):
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
    # another request with the same idempotency key still being processed: busy, and that one may yet act (J492)
    if status == 409 and key_in_flight(" ".join([_message_of(exc), _attribute(exc, "error_type") or "", *reasons])):
        return replace(result, failure_class=FailureClass.UPSTREAM_UNAVAILABLE, side_effect_possible=True)
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
    if result.retry_after is None and result.failure_class is FailureClass.RATE_LIMITED:
        # ... else the wait the answer's body states in words, which the SDK's message quotes: OpenAI's and Groq's
        # 429 "… Please try again in 1h2m3.4s." (no Retry-After header on a per-day limit), Telegram's "retry after N"
        result = replace(result, retry_after=retry_after_from_text(_message_of(exc)))
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


_HTTP2_ERROR_CODES: Final = HTTP2_ERROR_CODES
"""The HTTP/2 error codes table (:data:`errscope._http.HTTP2_ERROR_CODES`), read on an exception's ``h2`` event."""


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
        url = exc.request.url  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # raised without a request attached (or by httpcore)
        pass
    else:
        if not url.host:
            # A URL without a host (``http:///v1``) names no upstream: whatever the client then tried (a library
            # that patches httpx2's URL checks, as pyzotero does, has it resolve the empty name), none failed.
            return _UNUSABLE_URL
        address = http_address(url)
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
    status = (http_status_of(exc) or _attribute(response, "status_code") or _attribute(exc, "status")
              or _attribute(exc, "code"))
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
    match = next((m for m in _STATUS_PHRASE.finditer(text) if not counts_things(text, m.end())), None)
    match = match or _status_with_phrase(text)
    if match is None or _repeats_its_cause(exc, text, match.start(), match.end()):
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


def _repeats_its_cause(exc: BaseException, text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (``exc``'s message) lies in the words of the exception it wraps (its cause, else
    its context, as :func:`walk` follows them): a wrapper that repeats its cause's message, opensearch-py's
    ``ConnectionError("N/A", str(e), e)`` over aiohttp's ``ClientResponseError`` for a garbled status line, says
    nothing the cause does not, and the cause, read by its own rules, keeps more than its words (the 400 there is
    aiohttp's parser's, not the peer's)."""
    inner = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    said = _message_of(inner) if inner is not None else ""
    index = text.find(said) if said else -1
    while index != -1:
        if index <= start and end <= index + len(said):
            return True
        index = text.find(said, index + 1)
    return False


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


def _decoding_response(exc: BaseException) -> object | None:
    """The HTTP response whose own ``json()`` raised ``exc`` (requests', httpx's, aiohttp's ``Response.json``):
    the frame of a method named ``json`` on an object with an integer ``status_code``/``status`` and ``headers``;
    or the response itself handed to ``json.load`` as its file (PyJWT's ``PyJWKClient`` over urllib's answer)."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        name = frame.f_code.co_name
        if name == "json" or (name == "load" and frame.f_globals.get("__name__") == "json"):
            owner = frame.f_locals.get("self" if name == "json" else "fp")
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


# SOCKS reply codes (RFC 1928 §6 for SOCKS5; SOCKS4's 91-93) -> class. The proxy answered the CONNECT request with
# them: the tunnel never opened, so nothing reached the upstream. The ruleset forbidding the destination, or the
# identity check failing, is a refusal of the tool's access; the others say the upstream could not be reached.
_SOCKS_REPLIES: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 91), FailureClass.UPSTREAM_UNAVAILABLE),
    **dict.fromkeys((0x02, 92, 93), FailureClass.PERMISSION_DENIED),
}


# A SOCKS5 proxy refusing the login (RFC 1929 §2: a status other than 0 closes the connection, with no reply code),
# in python-socks' words ("Username and password authentication failure") and urllib3's SOCKS support's ("SOCKS5
# authentication failed"): the proxy's credentials, not its reach.
_SOCKS_LOGIN_REFUSED: Final = re.compile(r"\bauthentication fail(?:ed|ure)\b", re.I)


def _socks_login_refused(exc: BaseException) -> Classification | None:
    if not _SOCKS_LOGIN_REFUSED.search(_message_of(exc)):
        return None
    return Classification(FailureClass.PERMISSION_DENIED, upstream=Upstream("socks"), side_effect_possible=False)


# PySocks' text of a SOCKS5 reply (RFC 1928 §6): "0x02: Connection not allowed by ruleset"
_SOCKS_REPLY_TEXT: Final = re.compile(r"\b0x0([1-8]): ")


def _new_connection_error(exc: BaseException) -> Classification:
    """urllib3's ``NewConnectionError``: no connection, nothing sent. Through a SOCKS proxy (urllib3.contrib.socks
    re-raises PySocks' ``SOCKS5Error`` and ``SOCKS5AuthError`` as one, with their text only) the proxy's reply code in
    that text decides (:data:`_SOCKS_REPLIES`), and a login it refused is its credentials'."""
    text = _message_of(exc)
    if "socks" in text.lower():
        reply = _SOCKS_REPLY_TEXT.search(text)
        if reply is not None:
            code = int(reply.group(1))
            return Classification(_SOCKS_REPLIES[code], upstream=Upstream("socks", str(code)), side_effect_possible=False)
        refused = _socks_login_refused(exc)
        if refused is not None:
            return refused
    return _unavailable(False, "http")(exc)


def _proxy_error_code(exc: BaseException) -> Classification:
    """A forward proxy refused the tunnel (python-socks' and aiohttp-socks' ``ProxyError``): its ``error_code`` is
    the HTTP proxy's status (>= 100) or the SOCKS reply code; without one, a login refused in its words
    (RFC 1929: no reply code) is ``permission_denied``. Never sent: the upstream was not reached."""
    code = _attribute(exc, "error_code")
    if not isinstance(code, int) or isinstance(code, bool):
        # the proxy's protocol failed, or a refusal without its code
        return _socks_login_refused(exc) or _unavailable(False, "socks")(exc)
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


# An HTTP status an SDK keeps only in its message ("error 503: service unavailable": trino's HttpError)
_STATUS_IN_MESSAGE: Final = re.compile(r"^\s*(?:http )?error:? ([1-5]\d\d)\b", re.I)


def _status_in_message(exc: BaseException) -> Classification | None:
    match = _STATUS_IN_MESSAGE.match(_message_of(exc))
    if match is None:
        return None
    status = int(match.group(1))
    return replace(_status_named(status, "http")(exc), retry_after=None)


# urllib3's ResponseError.SPECIFIC_ERROR, "too many {status_code} error responses"
_RETRIED_STATUS: Final = re.compile(r"\btoo many ([1-5]\d\d) error responses\b")


def _retried_status(exc: BaseException) -> Classification:
    """The status every retry was answered with (urllib3's ``ResponseError``), as that status carried, no wait: the
    last answer's headers are gone with it. Without one (``GENERIC_ERROR``) an upstream that kept failing."""
    match = _RETRIED_STATUS.search(_message_of(exc))
    if match is None:
        return _unavailable(None, "http")(exc)
    return _status_named(int(match.group(1)), "http")(exc)


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


class _HeldAnswer(Exception):
    """An HTTP answer a failure held without keeping it, carried as an error's ``response`` so that :func:`_http_status`
    reads it as it reads any error's answer. Never raised, never in a chain."""

    def __init__(self, response: object) -> None:
        super().__init__()
        self.response = response


def _error_answer(value: object) -> object | None:
    """``value`` as an HTTP answer of an error status (400-599): a response object of httpx, httpx2, requests,
    aiohttp or urllib3 (``status_code`` or ``status``, and ``headers``), or what a finished future returned (tenacity's
    ``RetryError.last_attempt`` after retrying on a result). ``None`` for anything else: a 2xx, an exception, a mapping,
    a class."""
    if isinstance(value, concurrent.futures.Future):
        try:
            value = value.result(timeout=0) if value.done() and not value.cancelled() and value.exception(0) is None \
                else None
        except Exception:  # a future of a foreign shape says nothing
            return None
    if value is None or isinstance(value, type | BaseException | Mapping | str | bytes | int):
        return None
    status = _error_status(_attribute(value, "status_code")) or _error_status(_attribute(value, "status"))
    return value if status is not None and _attribute(value, "headers") is not None else None


def _held_answer(exc: BaseException, own_frame: Callable[[BaseException], bool]) -> Classification | None:
    """What the upstream answered, for a failure no rule reads whose chain kept the answer only out of sight: a tool
    that checked the status itself and raised its own error (``if not response.ok: raise RuntimeError("Failed to load
    template")``: the status is only in the raising frame's ``response``), or a retry library that gave up on a
    result (tenacity's ``RetryError`` after ``retry_if_result``: no exception anywhere, the last answer in its
    ``last_attempt`` future). The first exception along the chain (outermost first) that keeps such an answer, as an
    attribute, or in a local of the frame that raised it when ``own_frame`` says that frame is the tool's own code (a
    library that held an answer and raised its own error chose its class; its rules read it), decides: its status is read as any error's status is (RFC
    9110 §15; ``errscope.upstream.*`` with the answer's address; a 5xx or 429 with ``Retry-After`` as such). Only an
    error status counts (a 2xx the tool then refused is its own judgement), and never for the tool's own bug (a
    ``KeyError`` on the answer's body, a ``TypeError``: ``_PROGRAMMING_ERRORS``, which stay unknown)."""
    for current in walk(exc):
        if isinstance(current, _PROGRAMMING_ERRORS) or not isinstance(current, Exception):
            continue
        try:
            own = list(vars(current).values())
        except TypeError:  # no __dict__ (a C type's exception)
            own = []
        frames = raising_locals(current) if own_frame(current) else []
        for values in (own, *(list(reversed(frame)) for frame in frames)):
            answer = next((found for value in values if (found := _error_answer(value)) is not None), None)
            if answer is not None:
                return _http_status(_HeldAnswer(answer))
    return None
