"""What an HTTP answer says about a request, by RFC 9110: its failure class, whether the request may have been acted
on, and how long ``Retry-After`` asks to wait. Read the same way by the server's classification, the client and the
proxy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

from errscope._vocabulary import FailureClass

__all__ = [
    "CDN_ORIGIN_NOT_REACHED",
    "HTTP2_ERROR_CODES",
    "class_for_http_status",
    "class_for_mcp_endpoint_status",
    "no_requests_remain",
    "parse_retry_after",
    "retry_after_from_headers",
    "side_effect_for_http_status",
]


# HTTP/2 error codes (RFC 9113 §7, the IANA "HTTP/2 Error Code" registry) a stream reset (RST_STREAM) or a
# connection shutdown (GOAWAY) carries -> (name, class, may the request have been acted on). REFUSED_STREAM is the
# server's word that the stream was closed before any processing (§8.7: "can be safely retried"); HTTP_1_1_REQUIRED
# refuses the request for its protocol; ENHANCE_YOUR_CALM says the client generates excessive load. Any other code on
# a request the server had may come after it acted.
HTTP2_ERROR_CODES: Final[dict[int, tuple[str, FailureClass, bool | None]]] = {
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


def class_for_http_status(status: int) -> FailureClass:
    """Map an HTTP status code to a class (RFC 9110 §15); 2xx/3xx and unmapped 4xx are ``unknown``."""
    # 413: smaller arguments fit; 412/428: a stale precondition; 416: the range asked for lies outside what is there
    # (RFC 9110 §15.5.17: a download's offset past the end of the object, Azure Blob's InvalidRange, S3's)
    if status in (400, 409, 412, 413, 416, 422, 428):
        return FailureClass.INVALID_INPUT
    # 402 Payment Required (RFC 9110 §15.5.3): what APIs answer when the account must be paid for first (Firecrawl's
    # "insufficient credits", DeepSeek's "Insufficient Balance", LangSmith's plan limits); no argument and no wait
    # fixes it, the operator does, as a refused credential (and as _foreign_text reads "payment required").
    if status in (401, 402, 403, 407):  # 407: the proxy refused the tool's credential, as a 401 (RFC 9110 §15.5.8)
        return FailureClass.PERMISSION_DENIED
    if status in (404, 410):
        return FailureClass.NOT_FOUND
    if status == 429:
        return FailureClass.RATE_LIMITED
    # 449 Retry With, Microsoft's extension: Azure Cosmos DB's transient conflict with a concurrent write, nothing
    # applied, "safe to retry" (https://learn.microsoft.com/rest/api/cosmos-db/http-status-codes-for-cosmosdb)
    # 424 Failed Dependency (RFC 4918 §11.4): the method could not be performed because an action it depended on
    # failed; OpenAI's Responses API answers so when the MCP server it was to call failed ("Error retrieving tool list
    # from MCP server: … Http status code: 424"): a service behind the one asked is out of reach, nothing performed
    # 423 Locked (RFC 4918 §11.3): the resource is locked by another holder (a WebDAV lock, a drive item open in an
    # editor); the request is refused whole until the lock is released, which neither the caller's arguments nor its
    # credential change: busy for now, as PostgreSQL's 55P03 lock_not_available and SQLite's SQLITE_BUSY
    if status in (408, 423, 424, 449) or 500 <= status <= 599:
        return FailureClass.UPSTREAM_UNAVAILABLE
    return FailureClass.UNKNOWN


def class_for_mcp_endpoint_status(status: int) -> FailureClass:
    """The class of an MCP endpoint's HTTP refusal: :func:`class_for_http_status`, and 421 ``permission_denied``.

    421 Misdirected Request says the server will not answer for the host name it was reached by (RFC 9110
    §15.5.20); the MCP SDKs' DNS-rebinding protection answers so to a ``Host`` it does not allow ("Invalid Host
    header", modelcontextprotocol/python-sdk #1798): a setting to change, not a fault a retry fixes. Only an MCP
    endpoint's status is read so: elsewhere 421 is no refusal (SMTP's and FTP's "service not available").
    """
    return FailureClass.PERMISSION_DENIED if status == 421 else class_for_http_status(status)


CDN_ORIGIN_NOT_REACHED: Final = frozenset({521, 522, 523, 525, 526})
"""A CDN edge's statuses for an origin it never handed the request to (Cloudflare's "Cloudflare 5xx errors": 521 the
origin refused the connection, 522 the TCP handshake, or the ACK of the request's bytes, timed out, 523 the origin
unreachable, 525 the TLS handshake failed, 526 the origin's certificate invalid). Not 520 (the origin answered
something the edge could not read) nor 524 (connected, no answer within 100 s): those had the request."""


def side_effect_for_http_status(status: int) -> bool | None:
    """Whether the request behind an error status may have been acted on (RFC 9110 §15).

    A 4xx, 501, 503 and 505 refuse the request as a whole, and a CDN's statuses for an origin it never reached
    (:data:`CDN_ORIGIN_NOT_REACHED`) say no origin had it; any other 5xx says the server (or a gateway's upstream: 502,
    504) failed while handling it. ``None`` below 400.
    """
    if status < 400:
        return None
    return status >= 500 and status not in (501, 503, 505) and status not in CDN_ORIGIN_NOT_REACHED


_DECIMAL_SECONDS: Final = re.compile(r"\d{1,12}\.\d{1,9}")


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse an HTTP ``Retry-After`` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.

    A decimal number of seconds is read as one too: RFC 9110 asks for whole seconds, but APIs send fractions
    (Shopify's ``Retry-After: 2.0``, https://shopify.dev/docs/api/usage/limits); a client that ignored it would
    retry at once.

    Returns seconds (>= 0), or ``None`` when absent or unparseable.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    if _DECIMAL_SECONDS.fullmatch(value):
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


MILLISECOND_RETRY_HEADERS: Final = ("retry-after-ms", "x-ms-retry-after-ms")
"""Headers that give the wait in milliseconds: Azure OpenAI's ``retry-after-ms`` (read first by openai-python's
retry), Cosmos DB's and other Azure services' ``x-ms-retry-after-ms`` (azure-core's ``RetryPolicy`` reads both)."""

_RESET_PARAMETER: Final = re.compile(r"(?:^|[;,\s])(?:t|reset)\s*=\s*(\d{1,12})(?![\d.])")
"""The reset of the ``RateLimit`` field: ``t`` of a structured item (draft-ietf-httpapi-ratelimit-headers-09 and
later, ``"default";r=0;t=25``), or ``reset`` of the earlier combined form (drafts -05/-06, ``limit=100, remaining=0,
reset=25``)."""
_REMAINING_PARAMETER: Final = re.compile(r"(?:^|[;,\s])(?:r|remaining)\s*=\s*(\d{1,12})(?![\d.])")
_MAX_RESET_WAIT: Final = 86_400.0
"""Longest wait read from a quota's reset (one day, the client's own bound on ``retry_after``)."""
_EPOCH_FLOOR: Final = 1_000_000_000
"""A reset at or above this is a Unix time (2001-09-09 onwards), not a delay: GitHub's ``X-RateLimit-Reset`` is one; a
delay that long (31 years) is no delay."""


def retry_after_from_headers(header: Callable[[str], str | None], *, now: datetime | None = None) -> float | None:
    """How long a refusal's headers ask to wait, in seconds (>= 0), or ``None`` when they do not say.

    ``header(name)`` returns a response header's value or ``None`` (names are case-insensitive, RFC 9110 §5.1).
    A millisecond header (:data:`MILLISECOND_RETRY_HEADERS`) is the most precise and wins, as in the SDKs that send
    and honour it; then ``Retry-After`` (RFC 9110 §10.2.3, :func:`parse_retry_after`); without either, the IETF
    ``RateLimit`` fields: ``RateLimit``'s reset (``t=`` or ``reset=``, draft-ietf-httpapi-ratelimit-headers), then
    the drafts' ``RateLimit-Reset`` and the vendors' ``X-RateLimit-Reset`` (delay-seconds, or a Unix time as GitHub
    sends it).
    """
    for name in MILLISECOND_RETRY_HEADERS:
        value = (header(name) or "").strip()
        try:
            milliseconds = float(value)
        except ValueError:
            continue
        if math.isfinite(milliseconds) and milliseconds >= 0:
            return milliseconds / 1000
    wait = parse_retry_after(header("Retry-After"), now=now)
    if wait is not None:
        return wait
    match = _RESET_PARAMETER.search(header("RateLimit") or "")
    if match:
        return _reset_wait(float(match.group(1)))
    for name in ("RateLimit-Reset", "X-RateLimit-Reset"):
        value = (header(name) or "").strip()
        if value.isdigit() and len(value) <= 12:
            seconds = float(value)
            if seconds >= _EPOCH_FLOOR:
                seconds = max(0.0, seconds - (now or datetime.now(UTC)).timestamp())
            return _reset_wait(seconds)
    return None


def _reset_wait(seconds: float) -> float | None:
    # A quota window that resets more than a day away (a monthly plan, a misread clock) is no wait to give: the
    # refusal stays a rate limit without one, as when the fields are absent.
    return seconds if seconds <= _MAX_RESET_WAIT else None


def no_requests_remain(header: Callable[[str], str | None]) -> bool:
    """Whether the response says the client's quota is spent: ``X-RateLimit-Remaining: 0`` (GitHub, GitLab),
    ``RateLimit-Remaining: 0`` (the IETF drafts) or ``r=0`` in the ``RateLimit`` field."""
    for name in ("X-RateLimit-Remaining", "RateLimit-Remaining"):
        if (header(name) or "").strip() == "0":
            return True
    match = _REMAINING_PARAMETER.search(header("RateLimit") or "")
    return bool(match) and int(match.group(1)) == 0
