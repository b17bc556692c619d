"""What an HTTP answer says about a request, by RFC 9110: its failure class, whether the request may have been acted
on, and how long ``Retry-After`` asks to wait. Read the same way by the server's classification, the client and the
proxy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from errscope._vocabulary import FailureClass

__all__ = ["class_for_http_status", "class_for_mcp_endpoint_status", "parse_retry_after", "retry_delay",
           "side_effect_for_http_status"]


def class_for_http_status(status: int) -> FailureClass:
    """Map an HTTP status code to a class (RFC 9110 §15); 2xx/3xx and unmapped 4xx are ``unknown``."""
    if status in (400, 409, 412, 413, 422, 428):  # 413: smaller arguments fit; 412/428: a stale precondition
        return FailureClass.INVALID_INPUT
    if status in (401, 403, 407):  # 407: the proxy refused the tool's credential, as a 401 (RFC 9110 §15.5.8)
        return FailureClass.PERMISSION_DENIED
    if status in (404, 410):
        return FailureClass.NOT_FOUND
    if status == 429:
        return FailureClass.RATE_LIMITED
    if status == 408 or 500 <= status <= 599:
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


def side_effect_for_http_status(status: int) -> bool | None:
    """Whether the request behind an error status may have been acted on (RFC 9110 §15).

    A 4xx, 501, 503 and 505 refuse the request as a whole; any other 5xx says the server (or a
    gateway's upstream: 502, 504) failed while handling it. ``None`` below 400.
    """
    if status < 400:
        return None
    return status >= 500 and status not in (501, 503, 505)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse an HTTP ``Retry-After`` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.

    Returns seconds (>= 0), or ``None`` when absent or unparseable.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


MILLISECOND_RETRY_HEADERS = ("retry-after-ms", "x-ms-retry-after-ms")
"""Headers that give the wait in milliseconds: Azure OpenAI's ``retry-after-ms`` (read first by openai-python's
retry), Cosmos DB's and other Azure services' ``x-ms-retry-after-ms`` (azure-core's ``RetryPolicy`` reads both)."""


def retry_delay(header: Callable[[str], str | None]) -> float | None:
    """Seconds an error answer asks to wait, from its headers (``header(name)``: the value, or ``None``).

    A millisecond header (:data:`MILLISECOND_RETRY_HEADERS`) is the more precise and wins, as in the SDKs that send
    and honour it; else ``Retry-After`` (:func:`parse_retry_after`). ``None`` when none says a usable delay.
    """
    for name in MILLISECOND_RETRY_HEADERS:
        value = (header(name) or "").strip()
        try:
            milliseconds = float(value)
        except ValueError:
            continue
        if math.isfinite(milliseconds) and milliseconds >= 0:
            return milliseconds / 1000
    return parse_retry_after(header("Retry-After"))
