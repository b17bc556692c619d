"""Scrub secrets out of text and structured values before they reach a model, a span or a log.

``scrub(text)`` applies the one pattern source (:mod:`errscope._patterns`, the same regexes the
Collector runs) plus a structural pass over URLs that regexes alone get wrong (a password that
contains ``/``, password-like query parameters in any order). ``scrub_value(obj)`` walks
str/list/tuple/dict (span attributes, structlog event dicts) and leaves allow-listed keys alone.

Bounded: only the first :data:`MAX_SCRUB_CHARS` characters are scrubbed and kept; the rest is
dropped with a marker, so a 100 KB exception message costs a bounded amount of time and output.
Never raises on odd input (lone surrogates, NULs, non-str objects are ``str()``-ed first).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_TYPE

from errscope._attributes import (
    ERROR_TYPE,
    ERRSCOPE_CHANNEL,
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_UPSTREAM_STATUS,
    ERRSCOPE_UPSTREAM_SYSTEM,
    META_CHANNEL,
    META_ERROR_REF,
    META_FAILURE_CLASS,
)
from errscope._patterns import PATTERNS, REDACTED, combined_replacement

__all__ = [
    "MAX_SCRUB_CHARS",
    "REDACTED",
    "SAFE_KEYS",
    "TRUNCATED_MARKER",
    "scrub",
    "scrub_value",
]

MAX_SCRUB_CHARS: Final = 64 * 1024
"""Characters of one string that are scrubbed and kept; the rest is dropped."""
_MAX_CHARS_STDLIB: Final = 16 * 1024
"""The cap without google-re2: the stdlib engine backtracks (quadratic on hostile input), so less."""
TRUNCATED_MARKER: Final = "…[TRUNCATED {n} chars]"
"""Appended where input was cut at :data:`MAX_SCRUB_CHARS` (``{n}``: characters dropped)."""
_MAX_DEPTH: Final = 32
_MAX_ITEMS: Final = 10_000

SAFE_KEYS: Final[frozenset[str]] = frozenset(
    {
        # Closed vocabulary and identifiers triage depends on: never secrets, and a scrubber that
        # ate a trace id or an error ref would break the lookup from message to trace.
        ERROR_TYPE,
        EXCEPTION_TYPE,
        ERRSCOPE_CHANNEL,
        ERRSCOPE_FAILURE_CLASS,
        ERRSCOPE_OUTCOME,
        ERRSCOPE_ERROR_REF,
        ERRSCOPE_UPSTREAM_STATUS,
        ERRSCOPE_UPSTREAM_SYSTEM,
        META_CHANNEL,
        META_ERROR_REF,
        META_FAILURE_CLASS,
        "error_ref",
        "failure_class",
        "trace_id",
        "span_id",
        "parent_span_id",
        "trace_flags",
        "traceparent",
        "request_id",
        "level",
        "log_level",
        "timestamp",
    }
)
"""Keys whose values are never scrubbed (exact match): closed-vocabulary values and identifiers."""

try:  # google-re2: linear-time and ~10x faster on these patterns; same leftmost-first semantics
    import re2 as _re2  # type: ignore[import-untyped]
except (
    ImportError
):  # pragma: no cover - the stdlib engine gives the same results, slower
    _re2 = None


def _compile(regex: str) -> Any:
    """RE2 on UTF-8 bytes (the text is encoded once per call, not once per pattern), or None."""
    if _re2 is not None:
        try:
            return _re2.compile(regex.encode())
        except Exception:  # noqa: BLE001 - the stdlib engine takes this pattern
            return None
    return None


# (hints, RE2 bytes regex or None, stdlib regex, bytes replacement, str replacement) per pattern,
# in PATTERNS order, compiled once.
_COMPILED: Final = tuple(
    (
        p.hints,
        _compile(p.regex),
        re.compile(p.regex),
        combined_replacement("python", [p]).encode(),
        combined_replacement("python", [p]),
    )
    for p in PATTERNS
)


_ALL_HINTS: Final = tuple(sorted({h for p in PATTERNS for h in p.hints}))


def _apply_patterns(text: str) -> str:
    """Apply every pattern in order; skip those whose hints do not occur (same result, faster)."""
    lower = text.lower()
    found = {h for h in _ALL_HINTS if h in lower}
    if not found:
        return text
    data: bytes | None = None
    if _re2 is not None:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: only the stdlib engine takes them
            data = None
    if data is not None:
        for hints, fast_rx, std_rx, byte_repl, str_repl in _COMPILED:
            if found.isdisjoint(hints):
                continue
            if fast_rx is None:
                data = std_rx.sub(str_repl, data.decode("utf-8")).encode("utf-8")
            elif fast_rx.search(data) is not None:
                data = fast_rx.sub(byte_repl, data)
        # RE2 matches whole UTF-8 code points, so replacements never split a character
        return data.decode("utf-8", "replace")
    for hints, _fast, std_rx, _bytes, str_repl in _COMPILED:
        if not found.isdisjoint(hints):
            text = std_rx.sub(str_repl, text)
    return text


# Structural URL pass: scheme://userinfo@host... where the password contains '/' or '@', and query
# parameters whose *name* says credential (checked by name, whatever the value looks like).
_URL: Final = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s'\"<>`]+")
_SENSITIVE_PARAM: Final = re.compile(
    r"(?i)^(?:.*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key|credentials?"
    r"|signature)|key|sig|code|auth|pat|x-amz-credential)$"
)
_HOST_PORT_ONLY: Final = re.compile(r"[^:@/]*(?::[0-9]{1,5})?$")
_HOST_AFTER_AT: Final = re.compile(
    r"[A-Za-z0-9.\-]+(?::[0-9]{1,5})?(?=[/?#]|$)|\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?(?=[/?#]|$)"
)


def _scrub_url(match: re.Match[str]) -> str:
    url = match.group(0)
    scheme_end = url.index("://") + 3
    rest = url[scheme_end:]
    # userinfo: the last '@' that is followed by a host; the password is after the first ':'.
    at = rest.rfind("@")
    slash = rest.find("/")
    if 0 <= slash < at and _HOST_PORT_ONLY.match(rest, 0, slash):
        at = -1  # host:port/path@...: the '@' is in the path, there is no userinfo
    while at > 0:
        if _HOST_AFTER_AT.match(rest, at + 1):
            userinfo = rest[:at]
            # user and password both go (public case D06); a user alone (no ':') stays
            if userinfo != REDACTED and (":" in userinfo or REDACTED in userinfo):
                rest = REDACTED + rest[at:]
            break
        at = rest.rfind("@", 0, at)
    q = rest.find("?")
    if q >= 0:
        head, query = rest[: q + 1], rest[q + 1 :]
        fragment = ""
        h = query.find("#")
        if h >= 0:
            query, fragment = query[:h], query[h:]
        parts = re.split(r"([&;])", query)
        changed = False
        for i in range(0, len(parts), 2):
            name, eq, value = parts[i].partition("=")
            # not already redacted, not a placeholder (``{token}``, ``${TOKEN}``, ``<key>``)
            if eq and value and value[0] not in "[{$<" and _SENSITIVE_PARAM.match(name):
                parts[i] = f"{name}={REDACTED}"
                changed = True
        if changed:
            rest = head + "".join(parts) + fragment
    return url[:scheme_end] + rest


def scrub(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED]`` (key names and hosts are kept).

    Idempotent: ``scrub(scrub(t)) == scrub(t)``. Bounded: input beyond :data:`MAX_SCRUB_CHARS`
    characters is dropped and replaced by a marker. Never raises.
    """
    try:
        if not isinstance(text, str):
            text = str(text)
        tail = ""
        cap = MAX_SCRUB_CHARS if _re2 is not None else _MAX_CHARS_STDLIB
        if len(text) > cap:
            tail = TRUNCATED_MARKER.format(n=len(text) - cap)
            text = text[:cap]
        # URLs first: the structural pass finds the real host even when a password holds '@' or '/'
        out = _URL.sub(_scrub_url, text) if "://" in text else text
        out = _apply_patterns(out)
        return out + tail
    except Exception:  # noqa: BLE001 - a scrubber must never break the error path it protects
        return REDACTED


def scrub_value(obj: Any, *, _depth: int = 0) -> Any:
    """Scrub every string inside ``obj`` (str, list, tuple, dict; other values pass through).

    Values under keys in :data:`SAFE_KEYS` are kept as they are. Containers deeper than 32 levels
    or wider than 10,000 items are cut (the excess is replaced by ``[REDACTED]``), so a hostile
    structure cannot make scrubbing unbounded.
    """
    if isinstance(obj, str):
        return scrub(obj)
    if _depth >= _MAX_DEPTH:
        return REDACTED
    if isinstance(obj, Mapping):
        out: dict[Any, Any] = {}
        for i, (key, value) in enumerate(obj.items()):
            if i >= _MAX_ITEMS:
                out[REDACTED] = REDACTED
                break
            if isinstance(key, str) and key in SAFE_KEYS:
                out[key] = value
            else:
                out[key] = scrub_value(value, _depth=_depth + 1)
        return out
    if isinstance(obj, (list, tuple)):
        items = [scrub_value(v, _depth=_depth + 1) for v in obj[:_MAX_ITEMS]]
        if len(obj) > _MAX_ITEMS:
            items.append(REDACTED)
        return items if isinstance(obj, list) else tuple(items)
    if isinstance(obj, (bytes, bytearray)):
        return scrub(bytes(obj).decode("utf-8", "replace"))
    return obj
