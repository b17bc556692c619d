"""Cost of scrubbing every log record: the same records with errscope's log scrubbing on and off.

Each record goes the way ``logging.basicConfig`` sends it: a logger, the root logger's
``StreamHandler`` with the default format, into ``/dev/null``. Kinds:

- ``clean``: httpx's ``HTTP Request: GET <url> "HTTP/1.1 200 OK"`` line with no secret, the same
  every time (the common case: a client calls the same endpoint);
- ``unique``: the same line with a different path each time (no line is seen twice);
- ``debug``: an httpcore DEBUG line (a longer template and a tuple argument), no secret;
- ``secret``: the same httpx line with userinfo and ``?api_key=`` in the URL;
- ``extra``: a clean line with two ``extra=`` attributes;
- ``exception``: ``logger.exception`` with a short clean traceback.

On and off alternate in blocks of ``BLOCK`` records so load drifts hit both alike; each figure is
the median CPU microseconds (``time.process_time``: the other processes of a shared machine do not
count) per record over the blocks, and the ratio is on / off.
"""

from __future__ import annotations

import itertools
import logging
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from errscope import _logfilter

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "60"))
BLOCK = 50
URL = "http://127.0.0.1:8000/mcp"
SECRET_URL = "http://bot:FAKE-PW-42x@127.0.0.1:8000/mcp?api_key=Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"


def _cases(log: logging.Logger) -> dict[str, Callable[[], None]]:
    counter = itertools.count()

    def exception() -> None:
        try:
            raise ConnectionError("connection refused by 127.0.0.1:8000")
        except ConnectionError:
            log.exception("request failed")

    return {
        "clean": lambda: log.info('HTTP Request: %s %s "%s %d %s"', "GET", URL, "HTTP/1.1", 200, "OK"),
        "unique": lambda: log.info('HTTP Request: %s %s "%s %d %s"', "GET", f"{URL}/orders/{next(counter)}", "HTTP/1.1", 200, "OK"),
        "debug": lambda: log.debug(
            "receive_response_headers.complete return_value=%r",
            (b"HTTP/1.1", 200, b"OK", [(b"content-type", b"application/json"), (b"server", b"uvicorn")]),
        ),
        "secret": lambda: log.info('HTTP Request: %s %s "%s %d %s"', "GET", SECRET_URL, "HTTP/1.1", 200, "OK"),
        "extra": lambda: log.info("request done", extra={"request_id": "3f2a9c", "duration_ms": 12.5}),
        "exception": exception,
    }


def run() -> dict[str, Any]:
    log = logging.getLogger("bench.httpx")
    log.setLevel(logging.DEBUG)
    root = logging.getLogger()
    saved = root.handlers[:]
    cases = _cases(log)
    samples: dict[str, list[float]] = {f"{case}/{mode}": [] for case in cases for mode in ("on", "off")}
    with open(os.devnull, "w") as sink:
        root.handlers = [logging.StreamHandler(sink)]
        root.handlers[0].setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        try:
            for round_ in range(ROUNDS + 3):  # 3 warm-up rounds
                for mode in ("on", "off") if round_ % 2 else ("off", "on"):
                    _logfilter.scrub_logs(enabled=mode == "on")
                    for case, emit in cases.items():
                        started = time.process_time()
                        for _ in range(BLOCK):
                            emit()
                        if round_ >= 3:
                            samples[f"{case}/{mode}"].append((time.process_time() - started) / BLOCK * 1e6)
        finally:
            root.handlers = saved
            _logfilter.scrub_logs(enabled=not _logfilter.opted_out())
    us = {key: statistics.median(values) for key, values in samples.items()}
    return {
        "us_per_record": {key: round(value, 1) for key, value in sorted(us.items())},
        "ratio_on_vs_off": {case: round(us[f"{case}/on"] / us[f"{case}/off"], 2) for case in cases},
    }


if __name__ == "__main__":
    print(run())
