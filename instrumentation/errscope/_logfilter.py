"""Scrub the SDKs' own log records: ``MCPServer`` logs every tool crash with ``logger.exception``,
traceback and secrets included, to stderr (reference/mcp-sdk-2.3.md §2a)."""

from __future__ import annotations

import logging
import traceback
from typing import Final

from errscope._scrubbing import scrub

__all__ = ["ScrubbingFilter", "scrub_library_logs"]

LIBRARY_LOGGERS: Final = ("mcp", "fastmcp", "uvicorn.error")


class ScrubbingFilter(logging.Filter):
    """Rewrite a record's message and traceback as scrubbed text; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.msg = scrub(record.getMessage())
            record.args = None
            if record.exc_info and record.exc_info[1] is not None:
                record.exc_text = scrub("".join(traceback.format_exception(record.exc_info[1])))
                record.exc_info = None
        except Exception:  # a filter must never break logging
            record.msg, record.args, record.exc_info = "log record withheld by errscope (scrubbing failed)", None, None
        return True


_FILTER: Final = ScrubbingFilter()


def scrub_library_logs(prefixes: tuple[str, ...] = LIBRARY_LOGGERS) -> None:
    """Attach the scrubbing filter to every existing logger under ``prefixes``.

    Logger filters see only records created on that very logger, so each module logger gets one.
    """
    for name in [*prefixes, *logging.Logger.manager.loggerDict]:
        if name.startswith(prefixes) and _FILTER not in (logger := logging.getLogger(name)).filters:
            logger.addFilter(_FILTER)
