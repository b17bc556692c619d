"""Scrub every log record of the process before any handler sees it.

Libraries print secrets into their logs: httpx/httpx2/httpcore log ``HTTP Request: POST
http://user:pw@host/?api_key=…`` at INFO, urllib3, aiohttp, grpc, botocore, uvicorn and the
database drivers print URLs, DSNs and exception texts, ``MCPServer`` logs every tool crash with
its traceback (reference/mcp-sdk-2.3.md §2a), and an application's own logger does the same. No
list of logger names covers the library nobody thought of, so from ``import errscope`` on every
record of every logger is scrubbed, whatever the logging configuration; only errscope's own
records (the ``errscope`` logger and its children) are left alone, being scrubbed where they are
built. ``ERRSCOPE_SCRUB_LOGS=0`` (read at import) turns this off.

Where records are caught, and why there. Each peer place has a hole:

- a log record factory (``logging.setLogRecordFactory``, as OpenTelemetry's logging
  instrumentation does): it runs before ``Logger.makeRecord`` sets ``extra=`` attributes, records
  built by ``logging.makeLogRecord`` and passed to ``Logger.handle`` never meet it, and a factory
  set later that does not chain (``setLogRecordFactory(LogRecord)``) silently ends it;
- a filter on the root logger's handlers: handlers of non-propagating loggers (uvicorn's, FastMCP's)
  and handlers added after errscope (``basicConfig`` after the import) are not covered;
- wrapping handlers or formatters (Logfire scrubs what it exports, its ``LogfireLoggingHandler``'s
  records included; structlog what passes its processors): every other handler, present or
  future, is outside;
- ``logging.Logger.callHandlers`` (wrapped here, the place Sentry's logging integration hooks): it
  is the one call every record of every logger makes, once, on its way to any handler, after its
  extras are set and the logger's filters ran. A class attribute, so loggers created later and
  custom ``Logger`` subclasses are covered. Its own hole: a record handed to ``Handler.handle``
  directly (a ``QueueListener`` in a process without errscope); :class:`ScrubbingFilter` is for
  such handlers. Another wrapper of ``callHandlers`` (Sentry) chains with this one in either order
  (a replacement that does not call the one before would end it, as with a factory).

The record keeps its structure (the same ``LogRecord``, level and name; handlers and formatters
still work): a record whose rendered message carries no secret is not touched; otherwise each
argument is scrubbed on its own, so ``msg`` stays the template and ``args`` keep their shape
(uvicorn's access formatter unpacks them), unless the secret only shows in the whole
(``"password=%s"``), then ``msg`` becomes the scrubbed line and ``args`` empty. Extras are scrubbed
by key and value (:func:`errscope._scrub_values.scrub_value`). A traceback is rendered as the standard
``Formatter`` renders it and kept as scrubbed ``exc_text``; when it held a secret, ``exc_info`` is
dropped so no handler renders the raw exception again (so it is when the text was cut, or when the
cause chain loops, on which rich's traceback renderer spins forever). What a handler renders from
a clean ``exc_info`` beyond that text (rich's source context and locals, Sentry's frame locals) is
not seen here. Scrubbing never raises out of logging: a part that cannot be scrubbed is left as it is and
counted (``errscope.log.scrub_failures``).

Cost: a record without a secret costs one ``getMessage()`` and one scan of the line (a set lookup
when the same line was seen clean before; libraries repeat theirs), and nothing is rewritten
(``python -m bench bench_logs``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any, Final

from opentelemetry import metrics

from errscope._attributes import ERRSCOPE_LOG_SCRUB_FAILURES
from errscope._call import note_logged
from errscope._patterns import REDACTED
from errscope._scrub_values import _redact_by_key, _scrub_member, scrub_value
from errscope._scrubbing import SAFE_KEYS, scrub

__all__ = ["OPT_OUT_VARIABLE", "ScrubbingFilter", "scrub_logs", "scrub_record"]

OPT_OUT_VARIABLE: Final = "ERRSCOPE_SCRUB_LOGS"
"""``0``, ``false``, ``off`` or ``no`` at import: records of other loggers are left as they are."""

MAX_RECORD_CHARS: Final = 4096
"""Characters of one rendered message kept: a 100 KB exception message makes a 100 KB log line
otherwise, and some handlers (rich) take seconds to render one."""

MAX_TRACEBACK_CHARS: Final = 16384
"""Characters of one rendered traceback kept, from its end (where the exception is named)."""

OWN_LOGGER: Final = "errscope"

_STANDARD: Final = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}
_FRESH: Final = len(logging.LogRecord("", 0, "", 0, "", None, None).__dict__)
_FORMATTER: Final = logging.Formatter()
_failures = metrics.get_meter("errscope").create_counter(
    ERRSCOPE_LOG_SCRUB_FAILURES,
    unit="{record}",
    description="Parts of log records that could not be scrubbed and were passed on as they were.",
)

# Texts already found clean. Libraries repeat the same lines ("HTTP Request: POST http://host/mcp
# \"HTTP/1.1 200 OK\"" on every call), and a set lookup costs a fraction of a scan. Only clean texts
# are kept (the cache holds no secret), only short ones, and it is emptied when full.
_CLEAN_TEXTS: set[str] = set()
_CLEAN_TEXTS_MAX: Final = 4096
_CLEAN_TEXT_CHARS: Final = 512


def _scrubbed(text: str) -> str:
    """``scrub(text)``, bounded to :data:`MAX_RECORD_CHARS`; a text known clean is returned as it is."""
    if text in _CLEAN_TEXTS:
        return text
    clean = scrub(text)
    if len(clean) > MAX_RECORD_CHARS:
        return clean[:MAX_RECORD_CHARS] + f"…[{len(clean) - MAX_RECORD_CHARS} chars dropped]"
    if clean == text and len(text) <= _CLEAN_TEXT_CHARS:
        if len(_CLEAN_TEXTS) >= _CLEAN_TEXTS_MAX:
            _CLEAN_TEXTS.clear()
        _CLEAN_TEXTS.add(text)
    return clean


def _object(value: Any, scrubbed: Callable[[str], str]) -> Any:
    """Any other object a formatter renders with ``str()``: its scrubbed text when that held a
    secret, else the object itself (it keeps its type)."""
    text = str(value)
    clean = scrubbed(text)
    return value if clean == text else clean


def _arg(value: Any) -> Any:
    if isinstance(value, int | float | bool) or value is None:
        return value  # %d / %f keep working
    if isinstance(value, Mapping | list | tuple):
        return scrub_value(value)
    return _scrubbed(value) if isinstance(value, str) else _object(value, _scrubbed)


def _args(args: Any) -> Any:
    if isinstance(args, tuple):
        return tuple(_arg(a) for a in args)
    if isinstance(args, Mapping):
        return scrub_value(args)
    return args


def _formatted(msg: Any, args: Any) -> str | None:
    # What LogRecord.getMessage() prints for these pieces; None when they no longer format.
    try:
        text = str(msg)
        return text % args if args else text
    except Exception:
        return None


def _scrub_message(record: logging.LogRecord) -> None:
    msg, args = record.msg, record.args
    if type(msg) is not str and isinstance(msg, Mapping | list) and not args:
        record.msg = scrub_value(msg)  # an event dict (structlog's ProcessorFormatter reads it from msg)
        return
    try:
        whole = record.getMessage()
    except Exception:
        # A broken record: its handler reports it with its msg and args (Handler.handleError), scrubbed.
        record.msg, record.args = _arg(msg), _args(args)
        return
    scrubbed = _scrubbed(whole)
    if scrubbed == whole and (type(args) is tuple or not isinstance(args, Mapping)):
        return  # no secret: the record is not touched (a mapping may hold keys the template does not print)
    new_msg = _scrubbed(msg) if type(msg) is str else _arg(msg)
    new_args = _args(args)
    if _formatted(new_msg, new_args) == scrubbed:
        record.msg, record.args = new_msg, new_args
    else:  # the secret only shows in the whole ("password=%s"), or a scrubbed template lost a placeholder
        record.msg, record.args = scrubbed, None


def _extra(key: str, value: Any) -> Any:
    # By key as well as by value, as scrub_value does: extra={"password": 1234} is redacted, numbers included.
    if key in SAFE_KEYS or value is None:
        return value
    if _redact_by_key(key, value):
        return REDACTED
    if type(value) is str:
        return _scrubbed(value)
    if isinstance(value, int | float | bool):
        return value
    if isinstance(value, Mapping | list | tuple | set | frozenset):
        return _scrub_member(key, value, True, 0)  # under its key: ``extra={"passwords": [...]}``
    if isinstance(value, bytes | bytearray):
        return scrub_value(value)
    return _object(value, _scrubbed)


def _scrub_extras(record: logging.LogRecord) -> None:
    attributes = record.__dict__
    if len(attributes) <= _FRESH:
        return  # no extras, no other factory's attributes
    for key in attributes.keys() - _STANDARD:
        attributes[key] = _extra(key, attributes[key])


def _loops(exc: BaseException | None) -> bool:
    """Whether the chain a traceback renderer follows (``__cause__``, else ``__context__`` unless
    suppressed) comes back on itself."""
    seen: set[int] = set()
    while exc is not None:
        if id(exc) in seen:
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return False


def _scrub_exception(record: logging.LogRecord) -> None:
    exc = record.exc_info[1] if record.exc_info else None
    if record.exc_text:
        text = record.exc_text
    elif exc is not None:
        text = _FORMATTER.formatException(record.exc_info)  # type: ignore[arg-type]  # the standard rendering, cached below
    else:
        return
    scrubbed = scrub(text)
    if len(scrubbed) > MAX_TRACEBACK_CHARS:
        scrubbed = f"[{len(scrubbed) - MAX_TRACEBACK_CHARS} chars dropped]…" + scrubbed[-MAX_TRACEBACK_CHARS:]
    record.exc_text = scrubbed
    # No handler may render the raw exception (or read str(exc)) again when its text held a secret or
    # was cut; nor when its chain loops: the standard library stops there, rich's traceback spins forever.
    if scrubbed != text or _loops(exc):
        record.exc_info = None


def _scrub_stack(record: logging.LogRecord) -> None:
    if record.stack_info:
        record.stack_info = scrub(record.stack_info)


_PARTS: Final = (_scrub_message, _scrub_extras, _scrub_exception, _scrub_stack)


def scrub_record(record: logging.LogRecord) -> None:
    """Scrub ``record`` in place: message and arguments, extras, traceback, stack; never raises.

    A part that cannot be scrubbed (an argument's ``__str__`` raised) is left as it is, counted in
    ``errscope.log.scrub_failures``, and the other parts are still scrubbed.
    """
    for part in _PARTS:
        try:
            part(record)
        except Exception:  # a scrubber must never break logging
            try:
                _failures.add(1)
            except Exception:
                pass


class ScrubbingFilter(logging.Filter):
    """A ``logging.Filter`` that scrubs every record that passes and never drops one.

    For a handler that records reach without a logger call (a ``QueueListener``'s, fed from
    another process), where the ``callHandlers`` wrapper does not run. Same rules as the wrapper:
    see :func:`scrub_record`.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        scrub_record(record)
        return True


_enabled = False
_original: Callable[[logging.Logger, logging.LogRecord], None] | None = None


def _own(name: str) -> bool:
    return name == OWN_LOGGER or name.startswith(OWN_LOGGER + ".")


def scrub_logs(enabled: bool = True) -> None:
    """Scrub (or stop scrubbing) every record of every logger but errscope's own before its handlers
    run, by wrapping ``logging.Logger.callHandlers`` once (idempotent; the wrapper stays and
    checks the switch, so another library's wrapper around it keeps working)."""
    global _enabled, _original
    _enabled = enabled
    if _original is not None or not enabled:
        return
    original = _original = logging.Logger.callHandlers

    def callHandlers(self: logging.Logger, record: logging.LogRecord) -> None:  # noqa: N802 - the stdlib's name
        if _enabled and not _own(record.name):
            # An exception the tool caught and logged is the root cause of the isError it returns; kept
            # before scrubbing, which may drop exc_info (errscope.server._seam reads it).
            if record.exc_info and record.levelno >= logging.ERROR and record.exc_info[1] is not None:
                note_logged(record.exc_info[1])
            scrub_record(record)
        original(self, record)

    logging.Logger.callHandlers = callHandlers  # type: ignore[method-assign]


def opted_out() -> bool:
    """``ERRSCOPE_SCRUB_LOGS`` says off."""
    return os.environ.get(OPT_OUT_VARIABLE, "").strip().lower() in {"0", "false", "off", "no"}
