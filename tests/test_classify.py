"""The classification table: every code path lands on exactly one class."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import jsonschema
import pydantic
import pytest
import yarl
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError

import errscope
from errscope import FailureClass as C
from errscope._classify import argument_problems, http_address, raised_in
from errscope._http import class_for_http_status, parse_retry_after, retry_after_from_headers


def _http_error(status: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    request = httpx.Request("GET", "https://svc:FAKE-PW@api.example.com:8443/v1/orders/7?token=FAKE")
    response = httpx.Response(status, headers=headers, request=request)
    return httpx.HTTPStatusError("boom", request=request, response=response)


def _validation_error() -> pydantic.ValidationError:
    class Args(pydantic.BaseModel):
        a: int

    try:
        Args(a="forty")  # type: ignore[arg-type]
    except pydantic.ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


def _dbapi(name: str, message: str = "boom", **attrs: str) -> Exception:
    klass = type(name, (Exception,), {"__module__": "somedriver.errors"})
    exc = klass(message)
    for key, value in attrs.items():
        setattr(exc, key, value)
    return exc


def _chained(outer: Exception, cause: BaseException) -> Exception:
    outer.__cause__ = cause
    return outer


TABLE = [
    ("family NotFound", errscope.NotFound("x"), C.NOT_FOUND),
    ("family PermissionDenied", errscope.PermissionDenied("x"), C.PERMISSION_DENIED),
    ("family RateLimited", errscope.RateLimited("x", retry_after=3), C.RATE_LIMITED),
    ("family UpstreamUnavailable", errscope.UpstreamUnavailable("x"), C.UPSTREAM_UNAVAILABLE),
    ("family InvalidInput", errscope.InvalidInput("x", field="a"), C.INVALID_INPUT),
    ("http 400", _http_error(400), C.INVALID_INPUT),
    ("http 422", _http_error(422), C.INVALID_INPUT),
    ("http 409", _http_error(409), C.INVALID_INPUT),
    ("http 401", _http_error(401), C.PERMISSION_DENIED),
    ("http 403", _http_error(403), C.PERMISSION_DENIED),
    ("http 404", _http_error(404), C.NOT_FOUND),
    ("http 429", _http_error(429, {"Retry-After": "30"}), C.RATE_LIMITED),
    ("http 500", _http_error(500), C.UPSTREAM_UNAVAILABLE),
    ("http 503", _http_error(503), C.UPSTREAM_UNAVAILABLE),
    ("http 418", _http_error(418), C.UNKNOWN),
    ("httpx connect", httpx.ConnectError("refused", request=httpx.Request("GET", "http://h:1/")), C.UPSTREAM_UNAVAILABLE),
    ("httpx read timeout", httpx.ReadTimeout("slow", request=httpx.Request("GET", "http://h:1/")), C.UPSTREAM_UNAVAILABLE),
    ("TimeoutError", TimeoutError(), C.UPSTREAM_UNAVAILABLE),
    ("asyncio.TimeoutError", asyncio.TimeoutError(), C.UPSTREAM_UNAVAILABLE),
    ("PermissionError", PermissionError("[WinError 5] Access is denied"), C.PERMISSION_DENIED),
    ("FileNotFoundError", FileNotFoundError("/etc/x"), C.NOT_FOUND),
    ("ConnectionRefusedError", ConnectionRefusedError(), C.UPSTREAM_UNAVAILABLE),
    ("ConnectionResetError", ConnectionResetError(), C.UPSTREAM_UNAVAILABLE),
    ("pydantic ValidationError raised in a tool", _validation_error(), C.UNKNOWN),
    ("jsonschema ValidationError raised in a tool", jsonschema.ValidationError("bad"), C.UNKNOWN),
    ("DB-API OperationalError", _dbapi("OperationalError"), C.UPSTREAM_UNAVAILABLE),
    ("DB-API InterfaceError", _dbapi("InterfaceError"), C.UPSTREAM_UNAVAILABLE),
    ("DB-API InternalError", _dbapi("InternalError"), C.UPSTREAM_UNAVAILABLE),
    ("DB-API IntegrityError", _dbapi("IntegrityError"), C.INVALID_INPUT),
    ("DB-API DataError", _dbapi("DataError"), C.INVALID_INPUT),
    ("DB-API ProgrammingError", _dbapi("ProgrammingError"), C.UNKNOWN),
    ("DB-API NotSupportedError", _dbapi("NotSupportedError"), C.UNKNOWN),
    ("MCPError -32602", MCPError(-32602, "bad"), C.INVALID_INPUT),
    ("MCPError -32601", MCPError(-32601, "no"), C.NOT_FOUND),
    ("MCPError -32700", MCPError(-32700, "parse"), C.INVALID_INPUT),
    ("MCPError -32603", MCPError(-32603, "internal"), C.UNKNOWN),
    ("MCPError -32002", MCPError(-32002, "resource"), C.NOT_FOUND),
    ("MCPError -32001 (SDK local timeout)", MCPError(-32001, "timed out"), C.UPSTREAM_UNAVAILABLE),
    ("MCPError -32000 (SDK connection closed)", MCPError(-32000, "closed"), C.UPSTREAM_UNAVAILABLE),
    ("MCPError app code", MCPError(-31000, "app"), C.UNKNOWN),
    ("ToolError unknown tool", ToolError("Unknown tool: nope"), C.NOT_FOUND),
    # A bare ToolError is the author's text: read as a client (or errscope proxy) reads the same isError text.
    ("ToolError text 403", ToolError("GitHub API 403 Forbidden: token lacks repo:write"), C.PERMISSION_DENIED),
    ("ToolError text without a signal", ToolError("the export did not finish"), C.UNKNOWN),
    ("ToolError wrapping validation", _chained(ToolError("bad args"), _validation_error()), C.INVALID_INPUT),
    ("UnexpectedToolError wrapping 503", _chained(UnexpectedToolError("crash"), _http_error(503)), C.UPSTREAM_UNAVAILABLE),
    ("exception group", ExceptionGroup("g", [PermissionError()]), C.PERMISSION_DENIED),
    ("implicit context", _chained(RuntimeError("wrap"), TimeoutError()), C.UPSTREAM_UNAVAILABLE),
    ("ValueError", ValueError("x"), C.UNKNOWN),
    ("KeyError", KeyError("x"), C.UNKNOWN),
    ("RuntimeError", RuntimeError("x"), C.UNKNOWN),
]


class TestClassificationTable:
    @pytest.mark.parametrize(("exc", "expected"), [(e, c) for _, e, c in TABLE], ids=[n for n, _, _ in TABLE])
    def test_lands_on_one_class(self, exc: BaseException, expected: C) -> None:
        """Each row of the table is the class its exception lands on."""
        assert classify_class(exc) == expected

    def test_every_class_is_reachable(self) -> None:
        """The table covers the whole closed set."""
        assert {c for _, _, c in TABLE} == set(C)


def classify_class(exc: BaseException) -> C:
    return errscope.classify(exc).failure_class


class TestDetails:
    def test_rate_limit_retry_after_from_header(self) -> None:
        """429 carries Retry-After seconds and the upstream status without userinfo or query."""
        result = errscope.classify(_http_error(429, {"Retry-After": "30"}))
        assert (result.retry_after, result.upstream) == (30.0, errscope.Upstream("http", "429", "api.example.com:8443"))

    def test_retry_after_http_date(self) -> None:
        """An HTTP-date Retry-After becomes seconds from now (RFC 9110 §10.2.3)."""
        now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
        assert parse_retry_after("Mon, 30 Nov 2026 12:00:45 GMT", now=now) == 45.0
        assert parse_retry_after("soon", now=now) is None

    def test_retry_delay_in_milliseconds(self) -> None:
        """Azure's millisecond headers win over Retry-After; one that is no number, or negative, says nothing."""
        def headers(values: dict[str, str]) -> Callable[[str], str | None]:
            return lambda name: values.get(name.lower())

        assert retry_after_from_headers(headers({"retry-after-ms": "1500", "retry-after": "2"})) == 1.5
        assert retry_after_from_headers(headers({"x-ms-retry-after-ms": "800"})) == 0.8
        assert retry_after_from_headers(headers({"retry-after-ms": "soon", "retry-after": "2"})) == 2.0
        assert retry_after_from_headers(headers({"retry-after-ms": "-5"})) is None

    def test_family_retry_after(self) -> None:
        """RateLimited(retry_after=...) is what the classification reports."""
        assert errscope.classify(errscope.RateLimited("slow down", retry_after=7.5)).retry_after == 7.5

    def test_sqlstate_becomes_upstream_status(self) -> None:
        """A driver's SQLSTATE (psycopg .sqlstate / psycopg2 .pgcode) is the upstream status."""
        result = errscope.classify(_dbapi("OperationalError", "terminating connection", sqlstate="57P01"))
        assert result.upstream == errscope.Upstream("db", "57P01")

    def test_integrity_error_names_the_column_not_the_value(self) -> None:
        """D09: the duplicate key's column is named, its value is not."""
        exc = _dbapi("IntegrityError", "duplicate key\nDETAIL: Key (email)=(jane.FAKE@example.com) already exists.")
        result = errscope.classify(exc)
        assert result.public_message == "a record with this email already exists"
        assert "jane" not in repr(result)

    def test_pydantic_fields_without_values(self) -> None:
        """Argument validation errors become field paths and expectations, never the input value."""
        result = argument_problems(_validation_error())
        assert result.failure_class is C.INVALID_INPUT
        assert result.fields == (errscope.FieldProblem("a", "an integer"),)
        assert "forty" not in repr(result)

    def test_public_message_kept(self) -> None:
        """An author's public message travels with the class."""
        result = errscope.classify(errscope.NotFound("internal detail", public_message="order A-1 does not exist"))
        assert result.public_message == "order A-1 does not exist"


class TestRegistry:
    def test_user_registered_type(self) -> None:
        """A registered type lands on its class; subclasses too; the most specific wins."""

        class QuotaError(Exception):
            pass

        class HardQuotaError(QuotaError):
            pass

        errscope.register(QuotaError, C.RATE_LIMITED)
        errscope.register(HardQuotaError, lambda exc: errscope.Classification(C.PERMISSION_DENIED))
        assert classify_class(QuotaError()) == C.RATE_LIMITED
        assert classify_class(HardQuotaError()) == C.PERMISSION_DENIED

    def test_registration_keeps_its_place_along_the_mro(self) -> None:
        """A registered subclass wins over the table rule of its library base and over a status it
        carries; unregistered, the carried status decides."""

        class ApiError(Exception):
            status_code = 503

        class ReconnectingError(ConnectionRefusedError):
            pass

        class BudgetExceeded(ApiError):
            pass

        errscope.register(ReconnectingError, C.UNKNOWN)
        errscope.register(BudgetExceeded, C.PERMISSION_DENIED)
        assert classify_class(ReconnectingError()) == C.UNKNOWN
        assert classify_class(BudgetExceeded()) == C.PERMISSION_DENIED
        assert classify_class(ApiError()) == C.UPSTREAM_UNAVAILABLE  # its carried status, unregistered

    def test_broken_rule_is_unknown(self) -> None:
        """A rule that raises never breaks the failure path: the class is unknown."""

        class Weird(Exception):
            pass

        def rule(exc: BaseException) -> errscope.Classification:
            raise RuntimeError("bug in rule")

        errscope.register(Weird, rule)
        assert classify_class(Weird()) == C.UNKNOWN


@pytest.mark.parametrize(
    ("status", "expected"),
    [(400, C.INVALID_INPUT), (401, C.PERMISSION_DENIED), (404, C.NOT_FOUND), (410, C.NOT_FOUND),
     (408, C.UPSTREAM_UNAVAILABLE), (429, C.RATE_LIMITED), (502, C.UPSTREAM_UNAVAILABLE), (302, C.UNKNOWN)],
)
def test_http_status_table(status: int, expected: C) -> None:
    """HTTP statuses map per RFC 9110 semantics."""
    assert class_for_http_status(status) == expected


class TestUpstreamBounds:
    def test_system_and_status_are_bounded_labels(self) -> None:
        """Upstream system/status become metric labels: one scrubbed line of at most 32 characters."""
        upstream = errscope.Upstream("postgres\nql", "password=FAKE-UPSTREAM-PW " + "x" * 100, "db:5432")
        assert upstream.system == "postgres ql"
        assert upstream.status is not None and len(upstream.status) <= 32 and "FAKE-UPSTREAM-PW" not in upstream.status
        assert upstream.address == "db:5432"


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1",
        "https://api.example.com:443/v1",
        httpx.URL("https://api.example.com:443/v1"),
        yarl.URL("https://api.example.com/v1"),  # yarl reports the default port, httpx leaves it out
    ],
)
def test_one_upstream_one_address_whichever_client_saw_it(url: object) -> None:
    """The scheme's default port is left out: one upstream is one address (one metric label) whichever client saw it."""
    assert http_address(url) == "api.example.com"
    assert http_address("http://api.example.com:443/") == "api.example.com:443"  # not this scheme's default
    assert http_address("wss://[::1]:443/mcp") == "[::1]"


class TestRaisedIn:
    """One helper says where an exception was raised: its innermost frame's module, by module or package."""

    def test_module_and_package(self) -> None:
        """``json.loads`` fails in ``json.decoder``: inside the ``json`` package, not a name that merely starts alike."""
        with pytest.raises(ValueError) as raised:
            json.loads("{")
        assert raised_in(raised.value, "json.decoder") and raised_in(raised.value, "json")
        assert raised_in(raised.value, "email", "json")
        assert not raised_in(raised.value, "js") and not raised_in(raised.value, "json.encoder")

    def test_no_traceback(self) -> None:
        """An exception never raised has no frame: raised nowhere."""
        assert not raised_in(ValueError("x"), "builtins")


class TestWrappedRootCause:
    """The rules that keep a wrapped failure's root cause: a status the tool kept only as the HTTP client's words, the
    path to the deciding exception, a printed chain's innermost cause."""

    @pytest.mark.parametrize(
        ("said", "status", "address"),
        [
            # httpx's HTTPStatusError, whatever reason phrase the server sent
            ("failed: Client error '404 Upstream' for url 'http://10.1.2.3:8080/v1/x'\nFor more information check: "
             "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404", 404, "10.1.2.3:8080"),
            ("sync failed: Server error '503 Service Unavailable' for url 'https://api.example.test/v2/items'", 503,
             "api.example.test"),
            # requests' HTTPError, aiohttp's ClientResponseError
            ("lookup failed: 429 Client Error: Too Many Requests for url: https://api.example.test/search?q=a", 429,
             "api.example.test"),
            ("could not refund: 403, message='Forbidden', url='http://127.0.0.1:9000/refunds'", 403, "127.0.0.1:9000"),
            ("gateway said 502 Bad Gateway", 502, None),
        ],
    )
    def test_http_clients_status_words_in_a_tools_own_error(self, said: str, status: int, address: str | None) -> None:
        """``RuntimeError(f"failed: {e}")`` keeps the HTTP client's wording: its status is the upstream's, the URL after
        it the upstream's address (never its path or query)."""
        result = errscope.classify(RuntimeError(said))
        assert result.failure_class is class_for_http_status(status), said
        assert result.upstream == errscope.Upstream("http", str(status), address)

    def test_a_bare_number_is_no_status(self) -> None:
        """Only a client's wording or a reason phrase makes a number a status."""
        assert errscope.classify(RuntimeError("processed 404 rows, 503 skipped")).failure_class is C.UNKNOWN

    def test_path_to_skips_sibling_group_members(self) -> None:
        """A group's other members are other requests: not on the path to the deciding member's root."""
        from errscope._classify import path_to

        sibling, failing = KeyError("sku"), ConnectionRefusedError(111, "Connection refused")
        try:
            try:
                raise failing
            except OSError as inner:
                raise RuntimeError("ledger call failed") from inner
        except RuntimeError as raised:
            wrapper = raised
        group = ExceptionGroup("batch", [sibling, wrapper])
        assert path_to(group, failing) == [group, wrapper, failing]
        assert path_to(group, ValueError("elsewhere")) == []

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("com.acme.Fail: Permission check failed\n\tat com.acme.A.b(A.java:1)\nCaused by: java.net.ConnectException:"
             " Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)", C.UPSTREAM_UNAVAILABLE),
            ("Not authorized to finish the refund (caused by: ReadTimeout: Read timed out)", C.UPSTREAM_UNAVAILABLE),
            ("access denied\n\nCaused by:\n    0: error sending request for url (http://x/)\n    1: operation timed out",
             C.UPSTREAM_UNAVAILABLE),
            ('check permissions: Get "http://10.0.0.9:80/acl": dial tcp 10.0.0.9:80: connect: connection refused',
             C.UPSTREAM_UNAVAILABLE),
            # an HTTP status with the upstream's own words after it is one message, not a chain
            ("HTTP 401: invalid token format", C.PERMISSION_DENIED),
            ("Not authorized: caused by: nothing we know", C.PERMISSION_DENIED),
        ],
    )
    def test_a_printed_chain_is_read_by_its_innermost_cause(self, text: str, expected: C) -> None:
        """Java's "Caused by:", Python's "caused by:", anyhow's numbered causes, a Go ``%w`` chain's transport tail."""
        from errscope._foreign_text import classify_text

        assert classify_text(text) is expected

    def test_cut_stack_trace_keeps_the_causes(self) -> None:
        """Frames go, the chain's exception lines stay, nearest cause first (Java's order, Python's reversed)."""
        import traceback

        from errscope._scrubbing import without_stack_traces

        java = ("a.B: outer\n\tat a.B.c(B.java:1)\nCaused by: c.D: middle\n\tat c.D.e(D.java:2)\n\t... 3 more\n"
                "Caused by: java.net.ConnectException: Connection refused\n\tat x.Y.z(Native Method)")
        assert without_stack_traces(java) == ("a.B: outer\nCaused by: c.D: middle\nCaused by: java.net.ConnectException:"
                                              " Connection refused [stack trace removed]")
        try:
            try:
                raise ConnectionRefusedError(111, "Connection refused")
            except OSError as exc:
                raise RuntimeError("refund failed") from exc
        except RuntimeError:
            printed = traceback.format_exc()
        assert without_stack_traces(printed) == ("RuntimeError: refund failed\nCaused by: ConnectionRefusedError: [Errno 111]"
                                                 " Connection refused [stack trace removed]")


class TestConcurrentClassification:
    """One exception object classified in two threads at once (a failure shared by the callers of one
    ``concurrent.futures.Future``) gets the same answer in both."""

    def test_a_made_up_status_over_a_refused_connection_while_another_thread_weighs_it(self) -> None:
        """While one thread weighs whether a 5xx an SDK made up stands over a transport failure, another thread
        classifying the same exception reads it the same way (the refused connection decides, not the 500)."""
        import threading

        class Waiting(Exception):
            """The transport failure; its rule waits in the first thread until the second has classified."""

        class ClientFailure(Exception):
            """An SDK's catch-all that files a client failure under ``code=500`` (resend's ``ResendError``)."""

            code = 500

        first = threading.Thread(target=lambda: errscope.classify(failure), name="first")
        inside, done = threading.Event(), threading.Event()

        def rule(exc: BaseException) -> errscope.Classification:
            if threading.current_thread() is first:
                inside.set()
                done.wait(10)
            return errscope.classify(ConnectionRefusedError(111, "Connection refused"))

        errscope.register(Waiting, rule)
        try:
            try:
                raise Waiting("connect failed")
            except Waiting as exc:
                try:
                    raise ClientFailure("Request failed") from exc
                except ClientFailure as outer:
                    failure = outer
            alone = errscope.classify(failure)
            first.start()
            assert inside.wait(10)
            meanwhile = errscope.classify(failure)
            done.set()
            first.join(10)
        finally:
            done.set()
            from errscope._classify._table import _REGISTERED

            _REGISTERED.pop(Waiting, None)
        assert alone.upstream is None or alone.upstream.status != "500"
        assert meanwhile == alone


class TestLibpqServerAddress:
    """The server libpq names in a connection failure is the upstream's address (heldout J449)."""

    # Constructed by hand: the pre-14 wording needs a libpq older than PostgreSQL 14, which is not installed here;
    # tests/server/test_heldout_cases_27.py raises the 14+ wording for real.
    @pytest.mark.parametrize(("message", "address"), [
        ('connection to server at "db.internal" (10.0.0.5), port 5433 failed: Connection refused',
         "db.internal:5433"),
        ('could not connect to server: Connection refused\n\tIs the server running on host "db.internal" (10.0.0.5) '
         "and accepting\n\tTCP/IP connections on port 5433?", "db.internal:5433"),
        ('connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed: No such file or directory', None),
    ], ids=["libpq_14", "libpq_before_14", "unix_socket"])
    def test_address_from_the_message(self, message: str, address: str | None) -> None:
        """A TCP server's host and port are read; a Unix socket is no address."""
        import psycopg2

        result = errscope.classify(psycopg2.OperationalError(message))
        assert result.failure_class is C.UPSTREAM_UNAVAILABLE
        assert (result.upstream.address if result.upstream else None) == address
