"""Every log record of the process is scrubbed by default: a fresh process,
``logging.basicConfig(level=DEBUG)``, nothing but ``import errscope``; real httpx, httpx2, urllib3,
requests and websockets traffic to real local servers, uvicorn's own access formatter, asyncio's
unretrieved-exception report, an application logger made after the import, a non-propagating
logger whose handler was added after the import, a ``QueueHandler``/``QueueListener`` pair,
``logger.exception``, ``extra=``, the MCP SDK's own crash record. The planted fake secrets must
reach no handler's output."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest

from errscope._logfilter import OPT_OUT_VARIABLE, scrub_record

PASSWORD = "FAKE-PW-42x"
QUERY_KEY = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
EXTRA_PASSWORD = "Plain-extra-77"  # no shape of its own: only its key says it is a secret
SECRETS = (PASSWORD, QUERY_KEY, GH, EXTRA_PASSWORD)

SCRIPT = textwrap.dedent(
    f"""
    import asyncio, gc, logging, logging.handlers, queue, sys, threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s|%(message)s")
    import errscope  # the only errscope line
    import httpx, httpx2, requests, urllib3, uvicorn.logging
    from websockets.sync.client import connect
    from websockets.sync.server import serve

    class Ok(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    url = f"http://bot:{PASSWORD}@127.0.0.1:{{port}}/mcp?api_key={QUERY_KEY}"
    httpx.get(url)
    httpx2.get(url)
    urllib3.PoolManager().request("GET", url)
    requests.get(url)

    # websockets logs its handshake at DEBUG: the request line with the query, an Authorization
    # header it builds from the userinfo
    with serve(lambda ws: ws.send("hi"), "127.0.0.1", 0) as ws_server:
        threading.Thread(target=ws_server.serve_forever, daemon=True).start()
        ws_port = ws_server.socket.getsockname()[1]
        with connect(f"ws://bot:{PASSWORD}@127.0.0.1:{{ws_port}}/feed?token={QUERY_KEY}", proxy=None) as ws:
            ws.recv()
        ws_server.shutdown()

    # uvicorn's access formatter unpacks record.args: the record must keep its structure
    access = logging.getLogger("uvicorn.access")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(uvicorn.logging.AccessFormatter('ACCESS %(client_addr)s "%(request_line)s" %(status_code)s', use_colors=False))
    access.addHandler(handler)
    access.propagate = False
    access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/callback?token={GH}", "1.1", 200)

    async def main():
        async def fail():
            raise RuntimeError("upstream said password={PASSWORD}")
        task = asyncio.get_running_loop().create_task(fail())
        await asyncio.sleep(0)
        del task
    asyncio.run(main(), debug=True)
    gc.collect()

    # the application's own loggers, made after the import; one handler dumps every attribute of
    # the record, as JSON formatters do
    app = logging.getLogger("app.payments")
    class Everything(logging.Formatter):
        def format(self, record):
            return "ALL|" + repr(vars(record))
    dump = logging.StreamHandler(sys.stdout)
    dump.setFormatter(Everything())
    app.addHandler(dump)
    app.info("charging with %s", "postgresql://svc:{PASSWORD}@db.internal.example:5432/orders")
    app.info("login attempt", extra={{"password": "{EXTRA_PASSWORD}", "user": "ada"}})
    try:
        raise ConnectionError("gateway refused Authorization: Bearer {GH}")
    except ConnectionError:
        app.exception("charge failed")

    # a non-propagating logger whose handler is added after the import
    private = logging.getLogger("vendor.sdk")
    private.propagate = False
    private_handler = logging.StreamHandler(sys.stdout)
    private_handler.setFormatter(logging.Formatter("%(name)s|%(message)s"))
    private.addHandler(private_handler)
    private.warning("retrying https://hooks.example.test/x?access_token=%s", "{GH}")

    # an MCPServer errscope does not instrument: its tool crashes with a secret in its message, and the
    # SDK logs the crash with logger.exception (an instrumented one answers before the SDK sees it)
    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    mcp_server = MCPServer("logs")

    @mcp_server.tool()
    def crash() -> str:
        raise RuntimeError("db refused postgresql://svc:{PASSWORD}@db.internal.example:5432/orders")

    async def call():
        async with Client(mcp_server) as client:
            return await client.call_tool("crash", {{}})
    anyio.run(call)

    # records that reach their handler through a queue (the listener's handler is called directly)
    records = queue.Queue()
    queued = logging.getLogger("worker")
    queued.propagate = False
    queued.addHandler(logging.handlers.QueueHandler(records))
    listener = logging.handlers.QueueListener(records, private_handler)
    listener.start()
    queued.error("job failed: password=%s", "{PASSWORD}")
    listener.stop()
    """
)


def _run(script: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False, env={**os.environ, **(env or {})}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_every_logger_is_scrubbed_in_a_fresh_process() -> None:
    out = _run(SCRIPT)
    # each library and logger really logged (so the absence of secrets means something)
    for marker in (
        "httpx|HTTP Request: GET",
        "httpx2|",
        "urllib3.connectionpool|",
        "websockets.client|> GET /feed?token=",
        "asyncio|",
        "app.payments|charging with postgresql://",
        "app.payments|login attempt",
        "'password': '[REDACTED]', 'user': 'ada'",
        "ConnectionError: gateway refused Authorization: Bearer [REDACTED]",
        "vendor.sdk|retrying https://hooks.example.test/x?access_token=[REDACTED]",
        "job failed: password=[REDACTED]",
        "raised an unexpected exception",
        "RuntimeError: db refused postgresql://[REDACTED]@db.internal.example:5432/orders",
    ):
        assert marker in out, marker
    leaks = [line for line in out.splitlines() if any(secret in line for secret in SECRETS)]
    assert leaks == []
    assert "127.0.0.1" in out and "api_key=[REDACTED]" in out and "@db.internal.example:5432/orders" in out
    # the access formatter got its five arguments back and rendered them
    assert 'ACCESS 127.0.0.1:5000 "GET /callback?token=[REDACTED] HTTP/1.1" 200' in out


def test_opting_out_leaves_records_as_they_are() -> None:
    script = textwrap.dedent(
        f"""
        import logging, sys
        logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s|%(message)s")
        import errscope
        logging.getLogger("app.payments").info("charging with %s", "postgresql://svc:{PASSWORD}@db:5432/orders")
        """
    )
    # the same line is scrubbed without the variable (test_every_logger_is_scrubbed_in_a_fresh_process)
    assert f"app.payments|charging with postgresql://svc:{PASSWORD}@db" in _run(script, {OPT_OUT_VARIABLE: "0"})


class _Text:
    """An argument that is not a string (a URL object) and renders as ``text``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def _record(msg: object, args: tuple[object, ...] | None = None, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("vendor", logging.INFO, __file__, 1, msg, args, None)
    record.__dict__.update(extra)
    return record


def test_a_record_without_a_secret_is_left_untouched() -> None:
    url = _Text("http://api.example/v1")
    record = _record("HTTP Request: %s %s %d", ("GET", url, 200), request_id="r-1", attempt=2)
    before = dict(record.__dict__)
    scrub_record(record)
    assert record.__dict__ == before and record.args[1] is url  # the same objects, not their text


def test_arguments_keep_their_shape_when_a_secret_is_in_one() -> None:
    record = _record("GET %s -> %d (%.1f ms)", (f"https://api.example/v1?api_key={QUERY_KEY}", 200, 12.5))
    scrub_record(record)
    assert record.msg == "GET %s -> %d (%.1f ms)"
    assert record.args == ("https://api.example/v1?api_key=[REDACTED]", 200, 12.5)


def test_a_mapping_argument_is_scrubbed_by_key_even_where_the_template_does_not_print_it() -> None:
    record = _record("%(user)s logged in", ({"user": "ada", "password": EXTRA_PASSWORD},))
    scrub_record(record)
    assert record.getMessage() == "ada logged in" and record.args == {"user": "ada", "password": "[REDACTED]"}


def test_an_event_dict_message_stays_a_dict() -> None:
    """structlog's ``ProcessorFormatter`` reads the event dict from ``record.msg``."""
    record = _record({"event": "login", "password": EXTRA_PASSWORD, "url": f"redis://:{PASSWORD}@cache:6379/0"})
    scrub_record(record)
    assert record.msg == {"event": "login", "password": "[REDACTED]", "url": "redis://[REDACTED]@cache:6379/0"}


def test_a_clean_exception_keeps_exc_info_and_a_secret_one_loses_it() -> None:
    for message, secret in (("connection refused", False), (f"password={PASSWORD}", True)):
        try:
            raise OSError(message)
        except OSError:
            record = logging.LogRecord("vendor", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
        scrub_record(record)
        assert record.exc_text is not None and record.exc_text.endswith(f"OSError: {message.replace(PASSWORD, '[REDACTED]')}")
        # a handler that reads the exception itself (OpenTelemetry's LoggingHandler) only gets it when clean
        assert (record.exc_info is None) is secret
        assert PASSWORD not in logging.Formatter().format(record)


def test_a_secret_in_the_template_itself() -> None:
    record = _record(f"retrying with Authorization: Bearer {GH}")
    scrub_record(record)
    assert (record.msg, record.args) == ("retrying with Authorization: Bearer [REDACTED]", None)


def test_a_traceback_already_rendered_into_exc_text_is_scrubbed() -> None:
    record = _record("failed")
    record.exc_text = f"Traceback (most recent call last):\n  ...\nValueError: bad DSN mysql://root:{PASSWORD}@db/x"
    scrub_record(record)
    assert record.exc_text.endswith("ValueError: bad DSN mysql://[REDACTED]@db/x")


def test_a_broken_record_keeps_its_pieces_scrubbed_for_the_handler_s_error_report() -> None:
    """``"%d" % "x"`` cannot format: the handler reports it (``Handler.handleError`` prints msg and args)."""
    record = _record("%d items, %s", ("many", f"password={PASSWORD}"))
    scrub_record(record)
    assert record.msg == "%d items, %s" and record.args == ("many", "password=[REDACTED]")


def test_an_exception_whose_cause_chain_loops_is_handed_on_as_text_only() -> None:
    """The standard library stops at the loop; rich's traceback renderer (FastMCP's and MCPServer's
    log handlers) would spin forever on the exception itself."""
    first, second = ValueError("a"), TypeError("b")
    first.__cause__, second.__cause__ = second, first
    try:
        raise first
    except ValueError:
        record = logging.LogRecord("fastmcp.server", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    scrub_record(record)
    assert record.exc_info is None and record.exc_text is not None
    assert "TypeError: b" in record.exc_text and record.exc_text.endswith("ValueError: a")


def test_stack_info_is_scrubbed() -> None:
    record = _record("where", stack_info=None)
    record.stack_info = f'Stack (most recent call last):\n  File "x.py", line 1, in <module>\n    connect("mysql://root:{PASSWORD}@db/x")'
    scrub_record(record)
    assert PASSWORD not in record.stack_info and "mysql://[REDACTED]@db/x" in record.stack_info


def test_errscope_records_are_not_scrubbed_twice(caplog: pytest.LogCaptureFixture) -> None:
    """errscope's own records were scrubbed where they were built: the handler gets the same objects."""
    marker = _Text(f"token={QUERY_KEY}")
    with caplog.at_level(logging.INFO, logger="errscope.client"):
        logging.getLogger("errscope.client").warning("as built: %s", marker)
        logging.getLogger("errscope_lookalike").warning("scrubbed: %s", marker)
    own, other = caplog.records
    assert own.args == (marker,) and own.args[0] is marker
    assert other.args == ("token=[REDACTED]",)


FAILURE_SCRIPT = textwrap.dedent(
    """
    import logging, sys
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s|%(message)s|%(detail)s")
    import errscope

    class Hostile:
        def __str__(self):
            raise ValueError("no text")

    log = logging.getLogger("vendor")
    log.info("fine %s", "password=hunter2hunter2", extra={"detail": Hostile()})  # the extra cannot be scrubbed
    log.info("still logging", extra={"detail": "ok"})
    points = [
        point.value
        for rm in reader.get_metrics_data().resource_metrics
        for sm in rm.scope_metrics
        for metric in sm.metrics
        if metric.name == "errscope.log.scrub_failures"
        for point in metric.data.data_points
    ]
    print("FAILURES", sum(points))
    """
)


def test_a_part_that_cannot_be_scrubbed_is_counted_and_logging_goes_on() -> None:
    done = subprocess.run([sys.executable, "-c", FAILURE_SCRIPT], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "FAILURES 1" in done.stdout
    assert "vendor|still logging|ok" in done.stdout
    # the record with the hostile extra still went to the handler (which reports its own formatting error),
    # with its message scrubbed
    assert "hunter2hunter2" not in done.stdout + done.stderr and "--- Logging error ---" in done.stderr
    assert json.dumps("password=[REDACTED]")[1:-1] in done.stderr


def test_another_wrapper_of_call_handlers_sees_scrubbed_records() -> None:
    """A library that hooks ``Logger.callHandlers`` after errscope (Sentry's logging integration does,
    capturing the record after the handlers ran) gets the scrubbed record."""
    seen: list[str] = []
    inner = logging.Logger.callHandlers

    def capturing(self: logging.Logger, record: logging.LogRecord) -> None:
        try:
            inner(self, record)
        finally:
            seen.append(record.getMessage())

    logging.Logger.callHandlers = capturing  # type: ignore[method-assign]
    try:
        logging.getLogger("vendor.capture").warning("dsn %s", f"postgresql://svc:{PASSWORD}@db:5432/x")
    finally:
        logging.Logger.callHandlers = inner  # type: ignore[method-assign]
    assert seen == ["dsn postgresql://[REDACTED]@db:5432/x"]


def test_structlog_through_the_standard_library_keeps_its_event_dict() -> None:
    """structlog's stdlib integration hands its event dict to logging as ``msg``; its
    ``ProcessorFormatter`` renders that dict (here as JSON) in the handler."""
    import io

    import structlog

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(processor=structlog.processors.JSONRenderer()))
    stdlib_logger = logging.getLogger("app.structured")
    stdlib_logger.addHandler(handler)
    stdlib_logger.propagate = False
    try:
        log = structlog.wrap_logger(
            stdlib_logger,
            processors=[structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
            wrapper_class=structlog.stdlib.BoundLogger,
        )
        log.warning("login", user="ada", password=EXTRA_PASSWORD, dsn=f"amqp://svc:{PASSWORD}@mq:5672/")
    finally:
        stdlib_logger.removeHandler(handler)
    assert json.loads(stream.getvalue()) == {
        "event": "login",
        "user": "ada",
        "password": "[REDACTED]",
        "dsn": "amqp://[REDACTED]@mq:5672/",
    }


def test_scrubbing_filter_covers_records_handed_to_a_handler_directly() -> None:
    """A ``QueueListener`` fed by other processes calls ``Handler.handle`` itself: no logger call, so
    the ``callHandlers`` wrapper never sees the record; ``errscope.ScrubbingFilter`` on the handler does."""
    import io
    import multiprocessing
    import logging.handlers

    import errscope

    records = multiprocessing.get_context("spawn").Queue()
    stream = io.StringIO()
    plain, filtered = logging.StreamHandler(stream), logging.StreamHandler(stream)
    filtered.addFilter(errscope.ScrubbingFilter())
    listener = logging.handlers.QueueListener(records, plain)
    record = logging.makeLogRecord({"name": "worker", "msg": "job failed: password=%s", "args": (PASSWORD,)})
    for handler in (plain, filtered):
        listener.handlers = (handler,)
        listener.start()
        records.put(logging.makeLogRecord(record.__dict__))
        listener.stop()
    assert stream.getvalue().splitlines() == [f"job failed: password={PASSWORD}", "job failed: password=[REDACTED]"]
