"""What an on-call engineer needs of a failed call's exception: the root cause, scrubbed and bounded.

The root cause is :func:`errscope._classify.explain`'s: the innermost meaningful exception of the
chain, past the frameworks' wrappers. It is recorded as the span's standard exception event
(OpenTelemetry semantic conventions, "Exceptions": ``exception.type``, ``exception.message``,
``exception.stacktrace``) and on the failure's log record, never in the model's text or a metric
label. The fingerprint groups failures the way an issue tracker does (Sentry groups by the
exception type and the application's own frames): a short hash of the root type and the tool's
own frames (module and function names, no line numbers, no values), so one bug keeps one
fingerprint across calls, arguments and edits elsewhere in the file.
"""

from __future__ import annotations

import hashlib
import linecache
import sys
import sysconfig
import weakref
from dataclasses import dataclass
from typing import Final

from errscope._classify import explain, path_to, walk
from errscope._foreign_text import without_page
from errscope._scrubbing import scrub

__all__ = ["RootCause", "describe", "stack_trace", "upstream_said"]

MAX_MESSAGE: Final = 2048
"""Characters of the root exception's scrubbed message that are kept."""
MAX_STACKTRACE: Final = 8192
"""Characters of the scrubbed stack trace that are kept (root cause first: the head is kept)."""
MAX_FRAMES: Final = 24
"""Frames kept per exception of the chain (the innermost ones: where it was raised)."""

_BODY_READ: Final = 16384
"""Bytes of an error response's body read (scrubbed whole, then cut to :data:`MAX_MESSAGE`)."""
_SAID_HEADERS: Final = ("WWW-Authenticate", "Proxy-Authenticate", "Server", "Via")
"""Response headers that say why (RFC 6750 §3's ``error="invalid_token"``, RFC 9110 §11.6.1, §11.7.1) or which hop
answered (RFC 9110 §10.2.4 ``Server``, §7.6.3 ``Via``: the gateway's own 503 page, not the service behind it)."""

_LIBRARY_PATHS: Final = tuple(
    sorted({sysconfig.get_paths()[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")})
)
_FRAMEWORKS: Final = frozenset({"mcp", "mcp_types", "fastmcp", "errscope", "anyio", "starlette", "uvicorn"})
"""Top-level packages that dispatch a tool call; an editable install puts them outside the library paths."""
_TOOL_PACKAGES: Final = ("errscope.demo",)
"""Modules under a framework package that are tools themselves (the demo's servers)."""


@dataclass(frozen=True, slots=True)
class RootCause:
    """The root exception of a failure, ready to record.

    Attributes:
        type: fully qualified class name (``module.QualName``; builtins by their bare name).
        message: scrubbed, at most :data:`MAX_MESSAGE` characters.
        stacktrace: the chain in Python's own format (root cause first, exception types without
            their messages), scrubbed, at most :data:`MAX_STACKTRACE` characters.
        fingerprint: 16 hex characters, stable for one root type raised along one path of the
            tool's own code.
    """

    type: str
    message: str
    stacktrace: str
    fingerprint: str


def describe(exc: BaseException, root: BaseException | None = None) -> RootCause:
    """Describe the root cause of ``exc`` (the exception the seam or middleware caught): ``root``, when the caller
    has it from :func:`errscope._classify.explain`, else explained here. Never raises."""
    root = explain(exc)[1] if root is None else root
    type_name = _qualified_name(type(root))
    chain = walk(exc)  # once for both the stack trace and the fingerprint
    return RootCause(type_name, _message(root), stack_trace(exc, chain), _fingerprint(type_name, chain))


def stack_trace(exc: BaseException, chain: list[BaseException] | None = None) -> str:
    """The scrubbed, bounded stack trace of ``exc``'s whole chain, as :class:`RootCause` has it.

    Remembered per exception (weakly): the SDK's own crash log record and errscope's span and
    log record of one failure all need it. ``chain`` is ``walk(exc)`` when the caller has it.
    """
    try:
        return _traces[exc]
    except (KeyError, TypeError):  # not seen yet, or an exception type without weakref support
        pass
    text = _stacktrace(walk(exc) if chain is None else chain)
    try:
        _traces[exc] = text
    except TypeError:
        pass
    return text


_traces: weakref.WeakKeyDictionary[BaseException, str] = weakref.WeakKeyDictionary()


def _qualified_name(klass: type) -> str:
    """``module.QualName``, by the public module when a private one re-exports it
    (``errscope.NotFound``, ``pydantic_core.ValidationError``); builtins by their bare name."""
    module = str(getattr(klass, "__module__", "builtins"))
    if module == "builtins":
        return klass.__qualname__
    parts = module.split(".")
    private = next((i for i, part in enumerate(parts) if part.startswith("_")), None)
    if private:
        public = ".".join(parts[:private])
        if getattr(sys.modules.get(public), klass.__name__, None) is klass:
            module = public
    return f"{module}.{klass.__qualname__}"


def _message(exc: BaseException) -> str:
    try:
        return scrub(str(exc))[:MAX_MESSAGE]
    except Exception:  # str() runs the exception's own __str__, which may raise
        return f"<{type(exc).__qualname__}: str() failed>"


def _stacktrace(chain: list[BaseException]) -> str:
    """Python's traceback format, root cause first, without the caret lines (an ``ast`` parse per
    frame) and without re-reading source files (``linecache`` as already loaded). All source lines
    are scrubbed in one pass. Exception lines name the type only: the root's message is
    ``exception.message``, and a wrapper's often repeats it (``f"Error calling tool: {e}"``), so
    one record would carry what survives scrubbing of a secret several times."""
    frames = [_frames(current) for current in reversed(chain)]
    lines = [line for block in frames for _, _, _, line in block]
    scrubbed = scrub("\n".join(lines)).split("\n")
    if len(scrubbed) != len(lines):  # a pattern spanning lines (a PEM block): one by one instead
        scrubbed = [scrub(line) for line in lines]
    sources = iter(scrubbed)
    parts: list[str] = []
    for current, block in zip(reversed(chain), frames, strict=True):
        if block:
            parts.append("Traceback (most recent call last):\n")
        for filename, lineno, name, line in block:
            source = next(sources, "")
            parts.append(f'  File "{filename}", line {lineno}, in {name}\n' + (f"    {source}\n" if line else ""))
        parts.append(f"{_qualified_name(type(current))}\n\n")
    return "".join(parts)[:MAX_STACKTRACE]


def _frames(exc: BaseException) -> list[tuple[str, int | None, str, str]]:
    """(file, line number, function, source line) of the last :data:`MAX_FRAMES` frames."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        line = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip() if tb.tb_lineno else ""
        frames.append((code.co_filename, tb.tb_lineno, code.co_name, line.replace("\n", " ")))
        tb = tb.tb_next
    return frames[-MAX_FRAMES:]


def _is_tool_frame(module: str, filename: str) -> bool:
    if module.startswith(_TOOL_PACKAGES):
        return True
    if module.partition(".")[0] in _FRAMEWORKS:
        return False
    return not filename.startswith(_LIBRARY_PATHS)


def _fingerprint(type_name: str, chain: list[BaseException]) -> str:
    """Hash of the root type and the tool's own frames along the chain, outermost first.

    Without any frame of the tool's own (everything ran in libraries), the library frames stand
    in, so a failure still groups by where it arose. Line numbers and values are never part of it.
    """
    own: list[str] = []
    others: list[str] = []
    for current in chain:
        tb = current.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            module = str(frame.f_globals.get("__name__", "?"))
            name = f"{module}:{frame.f_code.co_qualname}"
            if _is_tool_frame(module, frame.f_code.co_filename):
                own.append(name)
            elif module.partition(".")[0] not in _FRAMEWORKS:
                others.append(name)
            tb = tb.tb_next
    frames = dict.fromkeys(own or others)  # ordered, each once: a retry loop is one path
    digest = hashlib.sha256("\n".join((type_name, *frames)).encode("utf-8", "replace"))
    return digest.hexdigest()[:16]


def _towards_root(exc: BaseException, root: BaseException | None) -> list[BaseException]:
    """``exc``'s chain from ``exc`` to its root cause (``root``, else explained here) and below it, outermost first,
    without the exception group members the root is not under (:func:`errscope._classify.path_to`); the whole chain
    when the root is off it."""
    root = explain(exc)[1] if root is None else root
    path = path_to(exc, root)
    return [*path, *walk(root)[1:]] if path else walk(exc)


def upstream_said(exc: BaseException, root: BaseException | None = None) -> str | None:
    """What the upstream answered, for the failure's log record: the error response an exception of the chain
    carries (``response``: httpx's and the SDK's ``httpx2`` ``HTTPStatusError``, requests' ``HTTPError``; aiohttp's
    ``ClientResponseError`` holds status and headers itself, its body already released), its status 400 or above,
    as its telling headers (:data:`_SAID_HEADERS`) and its body, an HTML page reduced to its headline. Unscrubbed (the log record scrubs it whole, then cuts it); ``None`` when no exception carries a
    response whose body was already read (a streamed body is never read here). Never raises.

    ``str(exc)`` of these exceptions names only the status and the URL: whether a 401 was an expired token or a
    missing scope (``WWW-Authenticate: Bearer error="invalid_token"``), or whether a 503 came from a gateway's page
    or from the service, is only in the response.

    Only the exceptions on the way to the root cause (``root``, when the caller has it) are read
    (:func:`_towards_root`): in an exception group, a sibling's response is another request's answer, not what the
    failing upstream said.
    """
    try:
        for current in _towards_root(exc, root):
            response = getattr(current, "response", None)
            status = getattr(response, "status_code", None)
            if not isinstance(status, int):  # aiohttp's ClientResponseError is its own response (status, headers)
                response, status = current, getattr(current, "status", None)
            if not isinstance(status, int) or isinstance(status, bool) or status < 400:
                continue
            # httpx sets _content once the body is read (absent before); requests keeps False until consumed.
            content = getattr(response, "_content", None)
            body = bytes(content[:_BODY_READ]).decode("utf-8", "replace") if isinstance(content, (bytes, bytearray)) else ""
            headers = getattr(response, "headers", None)
            headers = headers if hasattr(headers, "get") else {}
            parts = [f"{name}: {value}" for name in _SAID_HEADERS if isinstance(value := headers.get(name), str)]
            if body.strip():
                parts.append(" ".join(without_page(body).split()))
            if parts:
                return "; ".join(parts)
    except Exception:  # a response object of another shape says nothing
        return None
    return None
