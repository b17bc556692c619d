"""Scrub the log records of the libraries that run inside an instrumented process.

``MCPServer`` logs every tool crash with ``logger.exception``, traceback and secrets included
(reference/mcp-sdk-2.3.md §2a); httpx/httpx2/httpcore log ``HTTP Request: POST http://user:pw@host``
at INFO; urllib3, aiohttp, uvicorn, starlette, asyncio and the database drivers print URLs,
DSNs and exception texts. Their records are scrubbed where they are *created* (a log record
factory), so every handler sees scrubbed records whatever the user's logging configuration is:
``logging.basicConfig(level=DEBUG)``, a non-propagating library handler, a handler added later.

The record keeps its structure: ``msg`` stays the template and each of ``args`` is scrubbed on
its own (uvicorn's access formatter unpacks ``args``), extras are scrubbed by key and value
(:func:`errscope._scrubbing.scrub_value`), and a traceback becomes scrubbed ``exc_text``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

from errscope._root_cause import stack_trace
from errscope._scrubbing import scrub, scrub_value

__all__ = ["LIBRARY_LOGGERS", "ScrubbingFilter", "scrub_library_logs"]

LIBRARY_LOGGERS: Final = (
    "mcp",
    "fastmcp",
    "uvicorn",  # uvicorn.error, uvicorn.access
    "starlette",
    "sse_starlette",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "urllib3",
    "requests",
    "aiohttp",
    "asyncio",
    "anyio",
    "websockets",
    "grpc",
    "botocore",
    "boto3",
    # database drivers and ORMs
    "sqlalchemy",
    "asyncpg",
    "psycopg",
    "psycopg2",
    "aiomysql",
    "pymysql",
    "MySQLdb",
    "aiosqlite",
    "pymongo",
    "motor",
    "redis",
    "elastic_transport",
)
"""Top-level logger names whose records (and their children's: ``httpx._client``) are scrubbed."""

MAX_RECORD_CHARS: Final = 4096
"""Characters of one library log argument or traceback kept: a 100 KB exception message makes a
100 KB log line otherwise, and some handlers (rich) take seconds to render one."""

_STANDARD: Final = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def _bounded(text: str) -> str:
    text = scrub(text)
    return text if len(text) <= MAX_RECORD_CHARS else text[:MAX_RECORD_CHARS] + f"…[{len(text) - MAX_RECORD_CHARS} chars dropped]"


def _arg(value: Any) -> Any:
    if isinstance(value, int | float | bool) or value is None:
        return value  # %d / %f keep working
    if isinstance(value, Mapping | list | tuple):
        return scrub_value(value)
    return _bounded(str(value))  # str, URL objects, exceptions: their text


def _formatted(msg: Any, args: Any) -> str | None:
    # What LogRecord.getMessage() would print for these pieces; None when they no longer format.
    try:
        text = str(msg)
        return text % args if args else text
    except Exception:
        return None


def scrub_record(record: logging.LogRecord) -> None:
    """Scrub ``record`` in place (template, each argument, extras, traceback); never raises."""
    try:
        msg = _bounded(record.msg) if isinstance(record.msg, str) else _arg(record.msg)
        args = record.args
        if isinstance(args, Mapping):
            args = scrub_value(args)
        elif isinstance(args, tuple):
            args = tuple(_arg(a) for a in args)
        # The pieces keep the record's structure only when they say what the whole says scrubbed: a key
        # in the template and its secret in an argument ("password=%s") is only seen in the whole, and a
        # scrubbed template can lose a placeholder.
        whole = _bounded(record.getMessage())
        if _formatted(msg, args) == whole:
            record.msg, record.args = msg, args
        else:
            record.msg, record.args = whole, None
        for key in record.__dict__.keys() - _STANDARD:
            record.__dict__[key] = scrub_value({key: record.__dict__[key]})[key]
        if record.exc_info and record.exc_info[1] is not None:
            # Already scrubbed, and cheap (no caret lines, no source re-reads): a crash record per
            # failed call is on the failure path. The same text as the span's exception event.
            trace = stack_trace(record.exc_info[1])
            record.exc_text = trace if len(trace) <= MAX_RECORD_CHARS else _bounded(trace)
            record.exc_info = None
        if record.stack_info:
            record.stack_info = _bounded(record.stack_info)
    except Exception:  # a scrubber must never break logging
        record.msg, record.args, record.exc_info = "log record withheld by errscope (scrubbing failed)", None, None


class ScrubbingFilter(logging.Filter):
    """Scrub every record that passes (for handlers of your own); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        scrub_record(record)
        return True


_installed: Callable[..., logging.LogRecord] | None = None


def scrub_library_logs(prefixes: tuple[str, ...] = LIBRARY_LOGGERS) -> None:
    """Scrub, from now on, every record created by a logger under ``prefixes`` (idempotent).

    Installs a log record factory that wraps the current one (so OpenTelemetry's logging
    instrumentation or another factory keeps working). Records of other loggers pass untouched.
    Extras (``extra={...}``) are set on a record after the factory ran: attach
    :class:`ScrubbingFilter` to a handler to scrub those too.
    """
    global _installed
    current = logging.getLogRecordFactory()
    if current is _installed:
        return
    roots = frozenset(prefixes)

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = current(*args, **kwargs)
        if record.name.partition(".")[0] in roots:
            scrub_record(record)
        return record

    logging.setLogRecordFactory(factory)
    _installed = factory
