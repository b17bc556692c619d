"""Scrub the SDKs' own log records: ``MCPServer`` logs every tool crash with ``logger.exception``,
traceback and secrets included, to stderr (reference/mcp-sdk-2.3.md §2a)."""

from __future__ import annotations

import logging
from typing import Final

from errscope._root_cause import stack_trace
from errscope._scrubbing import scrub

__all__ = ["ScrubbingFilter", "scrub_library_logs"]

LIBRARY_LOGGERS: Final = ("mcp", "fastmcp", "uvicorn.error")
MAX_RECORD_CHARS: Final = 4096
"""Characters of a library log message or traceback kept: a 100 KB exception message makes a
100 KB log line otherwise, and some handlers (rich) take seconds to render one."""


def _bounded(text: str) -> str:
    text = scrub(text)
    return text if len(text) <= MAX_RECORD_CHARS else text[:MAX_RECORD_CHARS] + f"…[{len(text) - MAX_RECORD_CHARS} chars dropped]"


class ScrubbingFilter(logging.Filter):
    """Rewrite a record's message and traceback as scrubbed text; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.msg = _bounded(record.getMessage())
            record.args = None
            if record.exc_info and record.exc_info[1] is not None:
                # Already scrubbed; the cheap formatter (no caret lines, no source re-reads): a crash
                # log record per failed call is on the failure path.
                record.exc_text = stack_trace(record.exc_info[1])[:MAX_RECORD_CHARS]
                record.exc_info = None
        except Exception:  # a filter must never break logging
            record.msg, record.args, record.exc_info = "log record withheld by errscope (scrubbing failed)", None, None
        return True


_FILTER: Final = ScrubbingFilter()


def scrub_library_logs(prefixes: tuple[str, ...] = LIBRARY_LOGGERS) -> None:
    """Attach the scrubbing filter to every existing logger under ``prefixes`` and to their handlers.

    Logger filters see only records created on that very logger, so each module logger gets one;
    handler filters see every record the handler emits, which covers child loggers created later
    (FastMCP creates them lazily and logs through its own non-propagating handler).
    """
    for name in [*prefixes, *logging.Logger.manager.loggerDict]:
        if not name.startswith(prefixes):
            continue
        logger = logging.getLogger(name)
        for target in (logger, *logger.handlers):
            if _FILTER not in target.filters:
                target.addFilter(_FILTER)
