"""An eighteenth held-out set: secrets as real software prints them in its OWN errors, logs and warnings, the text
that actually reaches an MCP tool's error path. Nothing here is typed as a template: every text is captured from a
library, a runtime or a command really run on this machine with a fake credential in its configuration, URL or
arguments.

    python -m tests.secret_corpus.raised   # rewrites raised_*.jsonl.gz here (needs node, go, java, curl, git, wget, psql)

How each text is made: a real call raises (or logs, or warns), and the set keeps what a tool's error path would carry:
``str(exc)``, ``repr(exc)``, the formatted traceback (``traceback.TracebackException``, with the ``__cause__``/
``__context__`` chain, and with ``capture_locals=True`` where a framework prints locals), a log record as
``logging.basicConfig`` formats it (urllib3, httpx, httpcore, botocore, SQLAlchemy's echo), a warning as
``warnings.formatwarning`` prints it, a child process's argv in ``CalledProcessError``/``TimeoutExpired`` and its
stderr. The HTTP errors come from a local ``http.server`` on 127.0.0.1 answering 401/403/429/500 (the upstream body
is the server's; the wording around it is the library's); connection errors from closed loopback ports.

Python: requests (``HTTPError`` for url, ``ConnectionError`` with ``HTTPConnectionPool(..)`` and the query,
``MissingSchema``, ``InvalidSchema``, ``InvalidHeader``), httpx (``HTTPStatusError``, its INFO log with userinfo and
query), urllib3 (DEBUG request lines, the ``Retrying (..)`` WARNING, ``LocationParseError``), urllib (``HTTPError``
traceback with locals), http.client (``set_debuglevel`` ``send:`` dumps, header validation), aiohttp
(``ClientResponseError``), xmlrpc (``ProtocolError``, ``ServerProxy`` repr with userinfo), websockets
(``InvalidURI``), yarl reprs, SQLAlchemy (``IntegrityError``/``OperationalError`` with ``[SQL: ..] [parameters:
..]``, the echo log), libpq via psycopg and psql (``invalid percent-encoded token``), pydantic (``input_value=``, the
URL validators, JSON errors, serializer warnings), jsonschema (``On instance``), PyYAML and configparser (the line
quoted), ``int()``/``ipaddress``/``fromisoformat`` echoing a value, botocore's DEBUG signing records (canonical
request, prepared request headers), smtplib's debug dialogue (``AUTH PLAIN``), subprocess (argv of curl, git,
mysql, wget, psql and tools with ``--password``/``--token``), curl's ``-v`` request dump, wget's progress line.
Node 20: ``new Request`` with credentials, ``new URL`` errors' ``input``, ``util.inspect`` of ``fetch`` errors,
``assert`` diffs, ``querystring``/``URLSearchParams`` in thrown messages. Go 1.26: ``net/http`` client errors
(``Get "..?token=..": dial tcp ..``), ``url.Parse`` errors, ``strconv`` errors, ``%+v``/``%#v`` of ``*url.URL`` and
``*url.Error``. Java 17: ``DriverManager`` (``No suitable driver found for jdbc:..password=..``),
``URISyntaxException``, ``NumberFormatException``, ``Properties.toString`` in a thrown message.

Benign: the same libraries' errors with no secret in them (connection refused to a host and port, URLs with ids and
page numbers, SQL parameters that are ids, names and file hashes, DSNs without a password, the libraries' own masks:
SQLAlchemy's ``***``, kombu's ``**``, httpx's ``[secure]``, pydantic's ``SecretStr('**********')``, request ids,
validation errors on ports and enums, tracebacks whose locals hold no credential).

Same row format as ``../shared/corpus``. The secrets are fake and drawn from a fixed seed; the texts around them are
what this machine's library versions printed (ports, addresses, timings and paths differ between runs, so
``tests/test_scrub_raised.py`` checks the committed files' shape, not a byte-equal rerun). ``errscope.scrub`` is
scored on it by ``tests/test_scrub_raised.py`` and ``score_all.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import ipaddress
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings
from collections.abc import Callable
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import B64, B64URL, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw

_r = heldout._rng  # the helpers above draw from it: raised() seeds it

# ----------------------------------------------------------------------------------------------- fake values


def token() -> str:
    """A bearer/API credential in one of the shapes a service issues."""
    return pick(tok(24, 40), f"sk-proj-{rnd(48, B64URL)}", f"ghp_{rnd(36)}", rnd(32, HEX), jwt(),
                f"xoxb-{_r.randint(10**10, 10**11)}-{_r.randint(10**10, 10**11)}-{rnd(24)}", rnd(40, B64URL),
                f"sk_live_{rnd(24)}", f"glpat-{rnd(20, B64URL)}")


def qtoken() -> str:
    """A credential that fits a URL's query or path unescaped."""
    return pick(tok(24, 40), f"sk-proj-{rnd(48, B64URL)}", f"ghp_{rnd(36)}", rnd(32, HEX), jwt(), rnd(40, B64URL))


def short() -> str:
    """A credential short enough that pydantic prints it whole (it elides the middle of longer input values)."""
    return pick(tok(16, 30), f"sk-{rnd(32)}", f"ghp_{rnd(36)}", rnd(32, HEX), f"glpat-{rnd(20, B64URL)}", f"sk_live_{rnd(24)}")


def upw() -> str:
    """A human password that fits URL userinfo unescaped (the symbols RFC 3986 allows there)."""
    return f"{pick('Fake', 'fake', 'FAKE')}{pick('harbor', 'Quokka', 'zephyr', 'Marble', 'tundra')}{pick('-', '_', '.', '~', '!', '*')}" \
           f"{_r.randint(10, 9999)}{pick('ember', 'pylon', 'saffron', 'basil')}"


def pw() -> str:
    return pick(fpw(), upw(), tok(14, 20))


def qkey() -> str:
    return pick("api_key", "apikey", "token", "access_token", "key", "auth", "client_secret", "sig", "password", "secret")


def user() -> str:
    return pick("app", "deploy", "svc_etl", "ci-bot", "grafana", "reporting", "admin", "backup", "postgres", "bot")


def host() -> str:
    return pick("db.internal", "db1.prod.internal", "pg-primary.svc.cluster.local", "10.20.4.17", "mysql.corp.example",
                "cache.internal", "api.internal.example")


def path() -> str:
    return pick("/v1/orders", "/api/v2/search", "/v1/me", "/graphql", "/v3/projects/42/issues", "/hooks/deploy",
                "/api/v1/query", "/v2/charges", "/rest/api/2/issue/OPS-17", "/v1/chat/completions")


# ----------------------------------------------------------------------------------------------- capture helpers


def caught(fn: Callable[[], object]) -> BaseException:
    """The exception ``fn`` raises (a call that does not raise is a broken format)."""
    try:
        result = fn()
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    except BaseException as exc:  # noqa: BLE001 - every kind is a sample here
        # The tool's own frame first, as a server that wraps the tool call prints it: this module's ``caught``
        # and its lambdas are the harness, not the application.
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_name in ("caught", "<lambda>"):
            tb = tb.tb_next
        return exc.with_traceback(tb) if tb is not None else exc
    raise AssertionError(f"{fn} did not raise")


def formatted(exc: BaseException, *, locals_: bool = False, limit: int | None = None) -> str:
    """The traceback as ``traceback.print_exception`` (and a framework that prints locals) writes it."""
    return "".join(traceback.TracebackException.from_exception(exc, capture_locals=locals_, limit=limit).format()).rstrip("\n")


def shown(exc: BaseException, secret: str) -> str:
    """How an error path carries ``exc``: its str, its repr, ``Type: str`` or the whole traceback (one that holds
    the secret)."""
    forms = [str(exc), repr(exc), f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}", formatted(exc)]
    forms = [f for f in forms if secret in f]
    assert forms, (exc, secret)
    return _r.choice(forms)


@contextlib.contextmanager
def records(*names: str, fmt: str = "%(levelname)s:%(name)s:%(message)s"):
    """Log records of ``names`` (all loggers when empty) at DEBUG, formatted as a handler writes them."""
    out: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            out.append(self.format(record))

    handler = Keep()
    handler.setFormatter(logging.Formatter(fmt))
    loggers = [logging.getLogger(n) for n in names] or [logging.getLogger()]
    # the record as the library wrote it: errscope, once imported in this process, scrubs every record on its way to
    # a handler (its wrapper of ``Logger.callHandlers``), so the generator calls the stdlib's own meanwhile
    wrapped = logging.Logger.callHandlers
    original = getattr(sys.modules.get("errscope._logfilter"), "_original", None)
    if original is not None:
        logging.Logger.callHandlers = original  # type: ignore[method-assign]
    old = [(lg, lg.level, lg.propagate, lg.filters) for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
        lg.propagate = False
        lg.filters = []
    try:
        yield out
    finally:
        for lg, level, propagate, filters in old:
            lg.removeHandler(handler)
            lg.setLevel(level)
            lg.propagate = propagate
            lg.filters = filters
        logging.Logger.callHandlers = wrapped  # type: ignore[method-assign]


def one_with(lines: list[str], secret: str) -> str:
    hits = [line for line in lines if secret in line]
    assert hits, (secret, lines[:5])
    return _r.choice(hits)


LOG_FORMATS = ("%(levelname)s:%(name)s:%(message)s", "%(asctime)s %(levelname)s [%(name)s] %(message)s",
               "%(asctime)s - %(name)s - %(levelname)s - %(message)s")


# ----------------------------------------------------------------------------------------------- a local upstream


class _Upstream(BaseHTTPRequestHandler):
    """Answers with the status its path starts with (``/401/..``), a JSON error body, or 200."""

    server_version = "upstream/1.0"

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        code = 200
        first = self.path.lstrip("/").split("/", 1)[0]
        if first.isdigit():
            code = int(first)
        body = json.dumps({"error": {"code": code, "message": "request failed", "request_id": "req_" + rnd(16, HEX)}}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if code == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="api"')
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _answer


@cache
def port() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def up(status: int | None = None) -> str:
    """The local upstream's base URL, ``/<status>`` first when given."""
    return f"http://127.0.0.1:{port()}" + (f"/{status}" if status else "")


def status() -> int:
    return _r.choice([400, 401, 403, 404, 429, 500, 502])


# ----------------------------------------------------------------------------------------------- Python: HTTP


def requests_http_error() -> tuple[str, str]:
    import requests

    s, k = qtoken(), qkey()
    url = f"{up(status())}{path()}?{pick('', 'limit=50&')}{k}={s}"
    exc = caught(lambda: requests.get(url, timeout=5).raise_for_status())
    return s, shown(exc, s)


def requests_connection_error() -> tuple[str, str]:
    import requests

    s, k = qtoken(), qkey()
    url = f"http://127.0.0.1:1{path()}?{k}={s}{pick('', '&page=2')}"
    exc = caught(lambda: requests.get(url, timeout=2))
    return s, shown(exc, s)


def requests_missing_schema() -> tuple[str, str]:
    import requests

    s, k = qtoken(), qkey()
    url = pick(f"api.internal.example{path()}?{k}={s}", f"//hooks.example.com/services/{s}", f"{host()}:8443{path()}?{k}={s}")
    exc = caught(lambda: requests.get(url, timeout=2))
    return s, shown(exc, s)


def requests_invalid_schema() -> tuple[str, str]:
    import requests

    s, k = qtoken(), qkey()
    url = pick(f"htps://api.example.com{path()}?{k}={s}", f"postgresql://{user()}:{s}@{host()}:5432/app",
               f"redis://:{s}@{host()}:6379/0", f"ftp://{user()}:{s}@files.example.com/in/")
    exc = caught(lambda: requests.get(url, timeout=2))
    return s, shown(exc, s)


def requests_invalid_header() -> tuple[str, str]:
    import requests

    s = token()
    name, value = pick(("Authorization", f"Bearer {s}\n"), ("X-Api-Key", f" {s}"), ("Authorization", f"token {s}\r\n"),
                       ("Cookie", f"session={s}\n"), ("X-Auth-Token", f"{s}\n"))
    exc = caught(lambda: requests.get(f"{up()}{path()}", headers={name: value}, timeout=2))
    return s, shown(exc, s)


def httpx_status_error() -> tuple[str, str]:
    import httpx

    s, k = qtoken(), qkey()
    url = f"{up(status())}{path()}?{k}={s}"
    exc = caught(lambda: httpx.get(url, timeout=5).raise_for_status())
    return s, shown(exc, s)


def httpx_request_log() -> tuple[str, str]:
    import httpx

    s = pick(qtoken(), upw())
    if s[0].isupper() or s.startswith("fake") or "-" not in s[:8] and _r.random() < 0.5:
        url = f"http://{user()}:{s}@127.0.0.1:{port()}{path()}"
    else:
        url = f"{up()}{path()}?{qkey()}={s}"
    with records("httpx", fmt=_r.choice(LOG_FORMATS)) as out:
        with httpx.Client(timeout=5) as client:
            client.request(pick("GET", "POST", "DELETE"), url)
    return s, one_with(out, s)


def urllib3_debug_log() -> tuple[str, str]:
    import requests

    s, k = qtoken(), qkey()
    url = f"{up(pick(200, 401, 403))}{path()}?{k}={s}"
    with records("urllib3", fmt=_r.choice(LOG_FORMATS)) as out:
        requests.request(pick("GET", "POST"), url, timeout=5)
    return s, one_with(out, s)


def urllib3_retry_warning() -> tuple[str, str]:
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util import Retry

    s, k = qtoken(), qkey()
    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=Retry(total=1, backoff_factor=0)))
    with records("urllib3", fmt=_r.choice(LOG_FORMATS)) as out:
        caught(lambda: session.get(f"http://127.0.0.1:1{path()}?{k}={s}", timeout=2))
    return s, one_with([line for line in out if "Retry" in line], s)


def urllib_traceback_locals() -> tuple[str, str]:
    import urllib.request

    s, k = qtoken(), qkey()

    def fetch_report(base_url: str, api_key: str) -> bytes:
        url = f"{base_url}{path()}?{k}={api_key}&format=json"
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read()

    exc = caught(lambda: fetch_report(up(pick(401, 403, 500)), s))
    return s, formatted(exc, locals_=True, limit=2)


def urllib_refused_chain() -> tuple[str, str]:
    import urllib.request

    s = qtoken()

    def post_webhook(token: str) -> None:
        request = urllib.request.Request(f"http://127.0.0.1:1/hooks/{token}", data=b"{}", method="POST")
        urllib.request.urlopen(request, timeout=2)

    exc = caught(lambda: post_webhook(s))
    return s, formatted(exc, locals_=True, limit=2)


def http_client_debug() -> tuple[str, str]:
    import urllib.request

    s = token()
    header = pick(("Authorization", f"Bearer {s}"), ("X-Api-Key", s), ("Authorization", f"Token {s}"),
                  ("PRIVATE-TOKEN", s), ("Cookie", f"session={s}"))
    opener = urllib.request.build_opener(urllib.request.HTTPHandler(debuglevel=1))
    request = urllib.request.Request(f"{up(pick(401, 403, 500))}{path()}", headers=dict([header]))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exc = caught(lambda: opener.open(request, timeout=5))
    return s, (buffer.getvalue() + formatted(exc).splitlines()[-1]).strip()


def http_client_header_value() -> tuple[str, str]:
    import http.client

    s = token()

    def send() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port(), timeout=2)
        conn.putrequest("GET", path())
        conn.putheader(pick("Authorization", "X-Api-Key"), pick(f"Bearer {s}\r\n", f"{s}\n", f"Bearer {s}\r\nX-Trace: 1"))

    return s, shown(caught(send), s)


def httpx_request_repr() -> tuple[str, str]:
    """httpx masks a password in ``URL``'s repr (``[secure]``) but not in ``Request``'s, which error handlers print."""
    import httpx

    s = upw()
    url = pick(f"http://{user()}:{s}@127.0.0.1:1{path()}", f"http://127.0.0.1:1{path()}?{qkey()}={qtoken()}")
    if "?" in url:
        s = url.rsplit("=", 1)[1]
    exc = caught(lambda: httpx.get(url, timeout=2))
    return s, pick(f"{type(exc).__name__}: {exc} (request={exc.request!r})", f"{exc!r} while sending {exc.request!r}")


def aiohttp_response_error() -> tuple[str, str]:
    import aiohttp

    s, k = qtoken(), qkey()
    url = f"{up(status())}{path()}?{k}={s}"

    async def call() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(url, raise_for_status=True):
                pass

    exc = caught(lambda: asyncio.run(call()))
    return s, pick(str(exc), repr(exc)[:2000] if s in repr(exc)[:2000] else str(exc))


def xmlrpc_protocol_error() -> tuple[str, str]:
    import xmlrpc.client

    s = upw()
    proxy = xmlrpc.client.ServerProxy(f"http://{user()}:{s}@127.0.0.1:{port()}/{pick(401, 403, 500)}/RPC2")
    if _r.random() < 0.25:
        return s, f"xmlrpc call failed on {proxy!r}"
    exc = caught(lambda: proxy.system.listMethods())
    return s, pick(str(exc), repr(exc), formatted(exc).splitlines()[-1])


def websockets_invalid_uri() -> tuple[str, str]:
    from websockets.uri import parse_uri

    s, k = qtoken(), qkey()
    uri = pick(f"https://realtime.example.com/socket?{k}={s}", f"tcp://relay.example.com:443/ws?{k}={s}",
               f"http://{user()}:{s}@stream.internal/ws")
    return s, shown(caught(lambda: parse_uri(uri)), s)


def yarl_repr_in_error() -> tuple[str, str]:
    import aiohttp

    s = upw()
    url = f"http://{user()}:{s}@127.0.0.1:1{path()}"

    async def call() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(url, timeout=aiohttp.ClientTimeout(total=2)):
                pass

    exc = caught(lambda: asyncio.run(call()))
    text = formatted(exc, locals_=True, limit=-1)
    if s not in text:
        import yarl

        text = f"{type(exc).__name__}: {exc} (url={yarl.URL(url)!r})"
    return s, text


def botocore_debug() -> tuple[str, str]:
    import boto3
    import botocore.config

    s = "IQoJb3JpZ2luX2VjE" + rnd(_r.randint(180, 320), B64)
    key_id = "ASIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    client = boto3.client(pick("s3", "sqs", "dynamodb"), endpoint_url="http://127.0.0.1:1", aws_access_key_id=key_id,
                          aws_secret_access_key=rnd(40, B64), aws_session_token=s, region_name=pick("us-east-1", "eu-west-1"),
                          config=botocore.config.Config(retries={"max_attempts": 1}, connect_timeout=1))
    call = {"s3": lambda: client.get_object(Bucket="reports", Key="2025/q3.csv"),
            "sqs": lambda: client.list_queues(), "dynamodb": lambda: client.list_tables()}[client.meta.service_model.service_name]
    with records("botocore", fmt=_r.choice(LOG_FORMATS)) as out:
        caught(call)
    return s, one_with(out, s)


def smtplib_debug() -> tuple[str, str]:
    import base64
    import smtplib

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    secret_pw = pw()
    name = user()
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    controller = Controller(object(), hostname="127.0.0.1", port=free, auth_require_tls=False,
                            authenticator=lambda *a: AuthResult(success=False))
    controller.start()
    try:
        smtp = smtplib.SMTP(controller.hostname, free, timeout=5)
        smtp.set_debuglevel(1)
        buffer = io.StringIO()
        with contextlib.redirect_stderr(buffer):
            exc = caught(lambda: smtp.login(name, secret_pw))
            with contextlib.suppress(Exception):
                smtp.quit()
    finally:
        controller.stop()
    s = base64.b64encode(f"\0{name}\0{secret_pw}".encode()).decode()
    text = buffer.getvalue().rstrip() + "\n" + formatted(exc).splitlines()[-1]
    return s, text


# ----------------------------------------------------------------------------------------------- Python: databases


def _users_engine(echo: bool = False):
    import sqlalchemy as sa

    engine = sa.create_engine("sqlite://", echo=echo)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, password TEXT, api_token TEXT)"))
        conn.execute(sa.text("INSERT INTO users (name, password, api_token) VALUES ('alice', 'x', 'y')"))
    return engine


def sqlalchemy_integrity_error() -> tuple[str, str]:
    import sqlalchemy as sa

    s = pick(pw(), token())
    engine = _users_engine()
    stmt, params = pick(
        ("INSERT INTO users (name, password) VALUES (:name, :password)", {"name": "alice", "password": s}),
        ("INSERT INTO users (name, api_token) VALUES (:name, :token)", {"name": "alice", "token": s}),
        ("INSERT INTO users (id, name, password, api_token) VALUES (:id, :name, :pw, :tok)",
         {"id": 1, "name": "bob", "pw": s, "tok": None}),
    )

    def run() -> None:
        with engine.begin() as conn:
            conn.execute(sa.text(stmt), params)

    return s, shown(caught(run), s)


def sqlalchemy_operational_error() -> tuple[str, str]:
    import sqlalchemy as sa

    s = pick(pw(), token())
    engine = _users_engine()
    stmt, params = pick(
        ("UPDATE api_keys SET secret = :secret WHERE id = :id", {"secret": s, "id": 7}),
        ("INSERT INTO credentials (service, token) VALUES (:svc, :tok)", {"svc": "github", "tok": s}),
        ("SELECT id FROM users WHERE pasword = :password", {"password": s}),
        ("INSERT INTO users (name, password) VALUES (:n, :p)", [{"n": "carol", "p": s}, {"n": "alice", "p": s}]),
    )

    def run() -> None:
        with engine.begin() as conn:
            conn.execute(sa.text(stmt), params)

    exc = caught(run)
    if isinstance(params, list) and s not in str(exc):
        exc = caught(lambda: engine.connect().execute(sa.text("INSERT INTO nope (p) VALUES (:p)"), {"p": s}))
    return s, shown(exc, s)


def sqlalchemy_echo_log() -> tuple[str, str]:
    import sqlalchemy as sa

    s = pick(pw(), token())
    engine = _users_engine()
    with records("sqlalchemy.engine", fmt=_r.choice(LOG_FORMATS)) as out:
        with engine.begin() as conn:
            conn.execute(sa.text(pick("UPDATE users SET password = :pw WHERE name = :name",
                                      "UPDATE users SET api_token = :pw WHERE name = :name")), {"pw": s, "name": "alice"})
    return s, one_with(out, s)


def libpq_percent_token() -> tuple[str, str]:
    import psycopg

    s = f"{pick('Fake', 'fake')}{pick('harbor', 'zephyr', 'tundra')}%{pick('zz', 'q1', '!x', 'G7')}{_r.randint(10, 9999)}{pick('ember', 'pylon')}"
    dsn = f"postgresql://{user()}:{s}@{pick('127.0.0.1', 'localhost')}:{pick('5432', '6432')}/{pick('app', 'orders', 'analytics')}"
    if _r.random() < 0.5:
        return s, shown(caught(lambda: psycopg.connect(dsn, connect_timeout=1)), s)
    proc = subprocess.run(["psql", dsn, "-c", "select 1"], capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    return s, proc.stderr.strip()


def sqlalchemy_bad_port() -> tuple[str, str]:
    """A DSN whose password holds a character that ends the authority: the rest is read as the port."""
    import sqlalchemy as sa

    s = upw()
    url = f"postgresql+psycopg://{user()}:{s}@{host()}:5432/app"
    exc = caught(lambda: sa.create_engine(url).connect())
    text = formatted(exc, locals_=True, limit=-1)
    if s not in text:
        text = formatted(exc, locals_=True)
    if s not in text:
        raise AssertionError(text)
    return s, text


# ----------------------------------------------------------------------------------------------- Python: validation, parsing


def pydantic_input_value() -> tuple[str, str]:
    from pydantic import BaseModel, Field

    class Settings(BaseModel):
        api_key: str = Field(pattern=r"^sk-[A-Za-z0-9]{48}$")
        timeout: float = 30.0
        port: int = 443

    s = short()
    kwargs = pick({"api_key": s}, {"api_key": "sk-" + "0" * 48, "port": s}, {"api_key": "sk-" + "0" * 48, "timeout": s},
                  {"api_key": s, "port": "https"})
    return s, str(caught(lambda: Settings(**kwargs)))


def pydantic_url_input() -> tuple[str, str]:
    from pydantic import AnyUrl, BaseModel, PostgresDsn, RedisDsn

    class Config(BaseModel):
        database_url: PostgresDsn | None = None
        redis_url: RedisDsn | None = None
        webhook: AnyUrl | None = None

    s = upw()
    # short enough that pydantic prints the whole input (it elides the middle past 50 characters)
    field, value = pick(("database_url", f"postgres://u:{s}@db:5x"), ("database_url", f"mysql://app:{s}@db/app"),
                        ("redis_url", f"http://:{s}@db:6379/0"), ("webhook", f"https://u:{s}@[db/x"))
    return s, str(caught(lambda: Config(**{field: value})))


def pydantic_json_invalid() -> tuple[str, str]:
    from pydantic import BaseModel

    class Credentials(BaseModel):
        client_id: str
        client_secret: str

    s = tok(16, 22)
    body = pick(f'{{"client_secret": "{s}", }}', f"{{'client_secret': '{s}'}}", f'{{"client_secret": "{s}"')
    return s, str(caught(lambda: Credentials.model_validate_json(body)))


def pydantic_serializer_warning() -> tuple[str, str]:
    from pydantic import BaseModel

    class Retry(BaseModel):
        attempts: int = 3
        backoff: float = 0.5

    s = short()
    model = Retry.model_construct(**{pick("attempts", "backoff"): s})
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        model.model_dump()
    w = caught_warnings[0]
    return s, warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line).rstrip()


def pydantic_settings_env() -> tuple[str, str]:
    from pydantic_settings import BaseSettings, SettingsConfigDict

    class Settings(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="APP_")
        db_port: int = 5432
        debug: bool = False

    s = pick(pw(), short())
    name = pick("APP_DB_PORT", "APP_DEBUG")
    os.environ[name] = s
    try:
        return s, str(caught(Settings))
    finally:
        del os.environ[name]


def jsonschema_instance() -> tuple[str, str]:
    import jsonschema

    s = token()
    instance, schema = pick(
        ({"api_key": s, "retries": 3}, {"type": "object", "properties": {"retries": {"type": "integer"}}, "additionalProperties": False}),
        ({"token": s}, {"type": "object", "properties": {"token": {"type": "string", "maxLength": 16}}}),
        ({"auth": {"type": "bearer", "token": s}, "url": "https://api.example.com"},
         {"type": "object", "properties": {"auth": {"type": "string"}}}),
        ({"headers": {"Authorization": f"Bearer {s}"}, "timeout": 30},
         {"type": "object", "required": ["url"]}),
    )
    return s, str(caught(lambda: jsonschema.validate(instance, schema)))


def yaml_error_line() -> tuple[str, str]:
    import yaml

    s = pick(pw(), tok(14, 28))  # PyYAML elides a line past ~36 characters either side of its mark
    doc = pick(f'database:\n  host: {host()}\n  password: "{s}\n  port: 5432\n',
               f"database:\n  user: {user()}\n  password: {s}: x\n",
               f"api:\n  token: {s}\t# rotated\n",
               f"smtp:\n  password: '{s}\n")
    exc = caught(lambda: yaml.safe_load(doc))
    return s, pick(str(exc), formatted(exc).split("\n")[-1] if s in formatted(exc).split("\n")[-1] else str(exc), formatted(exc, limit=-1))


def configparser_error_line() -> tuple[str, str]:
    import configparser

    s = pick(pw(), token())
    text = pick(f"[database]\nhost = {host()}\npassword {s}\n", f"[api]\ntoken: {s}\n[api]\nurl = x\n",
                f"[smtp]\n  user = {user()}\npassword={s}\n bad line\n[smtp\npassword = {s}\n")
    exc = caught(lambda: configparser.ConfigParser().read_string(text, source=pick("<string>", "/etc/app/app.ini", "settings.ini")))
    if s not in str(exc):
        text = f"[database]\nhost = {host()}\npassword {s}\n"
        exc = caught(lambda: configparser.ConfigParser().read_string(text))
    return s, shown(exc, s)


def value_echo() -> tuple[str, str]:
    s = pick(pw(), short())  # int() and friends cut their repr at 200 characters

    def load() -> object:
        env = {"DB_PORT": s}
        return pick(
            lambda: int(env["DB_PORT"]), lambda: float(s), lambda: ipaddress.ip_address(s),
            lambda: datetime.datetime.fromisoformat(s), lambda: int(s, 16),
        )()

    return s, shown(caught(load), s)


def json_traceback_locals() -> tuple[str, str]:
    s = token()

    def parse_token_response(body: str) -> dict:
        return json.loads(body)

    body = pick(f'{{"access_token": "{s}", "token_type": "Bearer", }}', f'{{"access_token": "{s}", "expires_in": 3600',
                f"access_token={s}&token_type=bearer&expires_in=3600")
    return s, formatted(caught(lambda: parse_token_response(body)), locals_=True, limit=2)


def subprocess_argv() -> tuple[str, str]:
    s = pick(pw(), token())
    argv = pick(
        ["curl", "-sS", "-u", f"{user()}:{s}", "http://127.0.0.1:1/api/v1/health"],
        ["curl", "-fsS", "-H", f"Authorization: Bearer {s}", "http://127.0.0.1:1/v1/me"],
        ["git", "clone", f"https://oauth2:{s}@127.0.0.1:1/platform/deploy.git", tempfile.mkdtemp() + "/x"],
        ["mysql", "-h127.0.0.1", "-P1", "-uroot", f"-p{s}", "-e", "select 1"],
        ["mysql", "--host=127.0.0.1", "--port=1", "--user=backup", f"--password={s}", "app"],
        ["wget", "-q", f"http://127.0.0.1:1/export.csv?{qkey()}={s}"],
        ["psql", f"postgresql://{user()}:{s}@127.0.0.1:1/app", "-c", "select 1"],
    )
    if "/" in s and argv[0] == "psql":
        argv[1] = f"host=127.0.0.1 port=1 user=app password={s}"
    exc = caught(lambda: subprocess.run(argv, check=True, capture_output=True, text=True, timeout=20))
    return s, pick(str(exc), formatted(exc).splitlines()[-1], f"{exc}\nstderr: {exc.stderr.strip()}")


def subprocess_timeout() -> tuple[str, str]:
    s = pick(pw(), token())
    argv = [sys.executable, "-c", "import time; time.sleep(5)", pick("--api-key", "--token", "--password", "--client-secret"), s]
    exc = caught(lambda: subprocess.run(argv, timeout=0.2))
    return s, shown(exc, s)


def curl_verbose() -> tuple[str, str]:
    s = token()
    args = pick(["-H", f"Authorization: Bearer {s}"], ["-H", f"X-Api-Key: {s}"], ["-u", f"{user()}:{s}"],
                ["-H", f"Cookie: session={s}"], ["-H", f"Authorization: token {s}"])
    proc = subprocess.run(["curl", "-sv", *args, f"{up(pick(401, 403, 500))}{path()}"], capture_output=True, text=True)
    text = proc.stderr.strip()
    if s not in text:  # -u is sent as Basic
        import base64

        s = base64.b64encode(args[1].encode()).decode()
    return s, text


def wget_progress() -> tuple[str, str]:
    s, k = qtoken(), qkey()
    proc = subprocess.run(["wget", "-O", "/dev/null", f"{up(pick(401, 403, 404, 500))}{path()}?{k}={s}"], capture_output=True, text=True)
    return s, proc.stderr.strip()


def paramiko_locals() -> tuple[str, str]:
    import paramiko

    s = pw()

    def open_tunnel(hostname: str, username: str, password: str) -> None:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        client.connect(hostname, port=1, username=username, password=password, timeout=2, allow_agent=False, look_for_keys=False)

    return s, formatted(caught(lambda: open_tunnel("127.0.0.1", user(), s)), locals_=True, limit=2)


def redis_locals() -> tuple[str, str]:
    import redis

    s = pw()

    def cache_client(url: str) -> None:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        client.ping()

    url = f"redis://{pick('', 'default')}:{s}@127.0.0.1:1/0"
    return s, formatted(caught(lambda: cache_client(url)), locals_=True, limit=2)


def kombu_locals() -> tuple[str, str]:
    import kombu

    s = upw()

    def publish(broker_url: str) -> None:
        with kombu.Connection(broker_url, connect_timeout=1) as conn:
            conn.ensure_connection(max_retries=1)

    url = f"amqp://{user()}:{s}@127.0.0.1:1/{pick('', 'prod')}"
    return s, formatted(caught(lambda: publish(url)), locals_=True, limit=2)


def pymongo_locals() -> tuple[str, str]:
    import pymongo

    s = upw()

    def orders(uri: str) -> object:
        client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=300, connectTimeoutMS=300)
        return client.shop.orders.find_one()

    uri = f"mongodb://{user()}:{s}@127.0.0.1:1/shop?authSource=admin"
    return s, formatted(caught(lambda: orders(uri)), locals_=True, limit=2)


# ----------------------------------------------------------------------------------------------- Node 20


NODE = r"""
const util = require('util');
const assert = require('assert');
const [kind, s, a, b] = process.argv.slice(1);
const show = (e) => console.log(process.argv[4] === 'inspect' ? util.inspect(e) : String(e));
(async () => {
  try {
    if (kind === 'request') new Request(s);
    else if (kind === 'fetch') await fetch(s);
    else if (kind === 'url') new URL(s);
    else if (kind === 'urlbase') new URL(a, s);
    else if (kind === 'assert') assert.strictEqual(s, a);
    else if (kind === 'deep') assert.deepStrictEqual(JSON.parse(s), JSON.parse(a));
    else if (kind === 'json') JSON.parse(s);
    else if (kind === 'headers') new Headers([[a, s]]);
    else if (kind === 'cause') { try { await fetch(s); } catch (e) { throw new Error(`upstream call to ${s} failed`, { cause: e }); } }
    else if (kind === 'config') { const err = new Error('Request failed with status code 401'); err.config = JSON.parse(s); throw err; }
    console.log('no error');
  } catch (e) { show(e); }
})();
"""


def node(kind: str, value: str, extra: str = "", style: str = "") -> str:
    proc = subprocess.run(["node", "-e", NODE, kind, value, extra, style], capture_output=True, text=True, timeout=30)
    return (proc.stdout + proc.stderr).strip()


def node_request_credentials() -> tuple[str, str]:
    s = upw()
    text = node("request", f"http://{user()}:{s}@{pick('127.0.0.1:8080', 'mcp.internal:8443', 'localhost:3000')}{path()}", "", pick("", "inspect"))
    return s, text


def node_invalid_url() -> tuple[str, str]:
    s = pick(upw(), qtoken())
    value = pick(f"postgres://{user()}:{s}@{host()}:54x/app", f"https://{user()}:{s}@{host()} /x",
                 f"redis://:{s}@[{host()}]:6379", f"http://{host()}:99999{path()}?token={s}")
    return s, node("url", value, "", "inspect")


def node_fetch_failed() -> tuple[str, str]:
    s, k = qtoken(), qkey()
    text = node("cause", f"http://127.0.0.1:1{path()}?{k}={s}", "", pick("", "inspect"))
    return s, text


def node_assert_diff() -> tuple[str, str]:
    s = token()
    if _r.random() < 0.5:
        return s, node("assert", s, token(), pick("", "inspect"))
    cfg = json.dumps({"baseURL": "https://api.example.com", "headers": {"Authorization": f"Bearer {s}"}, "timeout": 3000})
    return s, node("deep", cfg, json.dumps({"baseURL": "https://api.example.com", "timeout": 5000}), "")


def node_inspect_config() -> tuple[str, str]:
    s = token()
    cfg = pick({"url": f"https://api.example.com{path()}", "method": "get",
                "headers": {"Accept": "application/json", "Authorization": f"Bearer {s}"}},
               {"url": f"https://api.example.com{path()}", "auth": {"username": user(), "password": s}},
               {"baseURL": "https://api.example.com", "params": {"api_key": s, "page": 2}})
    return s, node("config", json.dumps(cfg), "", "inspect")


def node_json_parse() -> tuple[str, str]:
    s = pick("K" + tok(7, 9), f"{pick('Fake', 'FAKE')}{_r.randint(1000, 99999)}")  # V8 quotes 10 characters; a digit first parses as a number
    body = pick(f"{s}", f"{s}\n")
    return s, node("json", body, "", pick("", "inspect"))


# ----------------------------------------------------------------------------------------------- Go 1.26

GO = r"""package main

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

type Config struct {
	Host     string
	Port     int
	User     string
	Password string
	APIKey   string
}

func main() {
	kind, s := os.Args[1], os.Args[2]
	switch kind {
	case "get":
		c := &http.Client{Timeout: 2 * time.Second}
		_, err := c.Get(s)
		fmt.Println(err)
	case "getv":
		c := &http.Client{Timeout: 2 * time.Second}
		_, err := c.Get(s)
		fmt.Printf("%#v\n", err)
	case "parse":
		_, err := url.Parse(s)
		fmt.Println(err)
	case "parsev":
		_, err := url.Parse(s)
		fmt.Printf("%+v\n", err)
	case "urlstr":
		u, _ := url.Parse(s)
		fmt.Println(fmt.Errorf("POST %v: %w", u, io.EOF))
	case "newreq":
		_, err := http.NewRequest("GET", s, nil)
		fmt.Println(fmt.Errorf("build request: %w", err))
	case "atoi":
		_, err := strconv.Atoi(s)
		fmt.Println(fmt.Errorf("config: DB_PORT: %w", err))
	case "struct":
		cfg := Config{Host: "db.internal", Port: 5432, User: "app", Password: s}
		_, err := sql.Open("postgres", "")
		fmt.Println(fmt.Errorf("open %+v: %w", cfg, err))
	case "structkey":
		cfg := Config{Host: "api.example.com", Port: 443, APIKey: s}
		fmt.Printf("%v\n", fmt.Errorf("client %#v: %w", cfg, os.ErrDeadlineExceeded))
	}
}
"""


@cache
def go_binary() -> str:
    work = Path(tempfile.mkdtemp(prefix="raised-go-"))
    (work / "main.go").write_text(GO)
    (work / "go.mod").write_text("module raised\n\ngo 1.22\n")
    subprocess.run(["go", "build", "-o", "raised", "."], cwd=work, check=True, capture_output=True, timeout=300,
                   env={**os.environ, "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"})
    return str(work / "raised")


def go(kind: str, value: str) -> str:
    return subprocess.run([go_binary(), kind, value], capture_output=True, text=True, timeout=30).stdout.strip()


def go_http_get() -> tuple[str, str]:
    s, k = qtoken(), qkey()
    return s, go(pick("get", "get", "getv"), f"http://127.0.0.1:1{path()}?{k}={s}")


def go_url_parse() -> tuple[str, str]:
    s = pick(upw(), qtoken())
    value = pick(f"postgres://{user()}:{s}@{host()}:54x/app", f"https://api.example.com{path()}?{qkey()}={s}\n",
                 f"redis://:{s}@{host()}:6379x/0", f" https://{host()}{path()}?{qkey()}={s}")
    return s, go(pick("parse", "parsev", "newreq"), value)


def go_url_struct() -> tuple[str, str]:
    s = upw().replace("!", "-").replace("*", "_")  # url.URL.String() escapes sub-delims in userinfo
    return s, go("urlstr", f"https://{user()}:{s}@{host()}{path()}")


def go_atoi() -> tuple[str, str]:
    s = pick(pw(), token())
    return s, go("atoi", s)


def go_struct_dump() -> tuple[str, str]:
    s = pick(pw(), token())
    return s, go(pick("struct", "structkey"), s)


# ----------------------------------------------------------------------------------------------- Java 17

JAVA = r"""
import java.net.URI;
import java.sql.DriverManager;
import java.util.Properties;

public class Raised {
    public static void main(String[] args) {
        String kind = args[0], s = args[1];
        try {
            switch (kind) {
                case "jdbc": DriverManager.getConnection(s); break;
                case "jdbcprops": {
                    Properties p = new Properties();
                    p.setProperty("user", "app"); p.setProperty("password", s); p.setProperty("ssl", "true");
                    try { DriverManager.getConnection("jdbc:postgresql://db.internal:5432/app", p); }
                    catch (java.sql.SQLException e) { throw new IllegalStateException("cannot connect with " + p, e); }
                    break;
                }
                case "uri": new URI(s); break;
                case "uricreate": URI.create(s); break;
                case "int": Integer.parseInt(s); break;
                case "long": Long.parseLong(s); break;
            }
            System.out.println("no error");
        } catch (Exception e) {
            if (args.length > 2 && args[2].equals("trace")) e.printStackTrace(System.out); else System.out.println(e);
        }
    }
}
"""


@cache
def java_classes() -> str:
    work = Path(tempfile.mkdtemp(prefix="raised-java-"))
    (work / "Raised.java").write_text(JAVA)
    subprocess.run(["javac", "-d", str(work), str(work / "Raised.java")], check=True, capture_output=True, timeout=300)
    return str(work)


def java(kind: str, value: str, style: str = "") -> str:
    return subprocess.run(["java", "-cp", java_classes(), "Raised", kind, value, style], capture_output=True, text=True,
                          timeout=60).stdout.strip()


def java_jdbc_url() -> tuple[str, str]:
    s = pick(upw(), tok(16, 24))
    value = pick(f"jdbc:postgresql://{host()}:5432/app?user={user()}&password={s}",
                 f"jdbc:mysql://{host()}:3306/app?user=root&password={s}&useSSL=true",
                 f"jdbc:sqlserver://{host()}:1433;databaseName=app;user=sa;password={s};encrypt=true",
                 f"jdbc:oracle:thin:{user()}/{s}@//{host()}:1521/ORCLPDB1")
    return s, java("jdbc", value, pick("", "trace"))


def java_properties() -> tuple[str, str]:
    s = pick(pw(), token())
    return s, java("jdbcprops", s, pick("", "trace"))


def java_uri_syntax() -> tuple[str, str]:
    s = pick(upw(), qtoken())
    value = pick(f"https://{user()}:{s}@{host()}/a b", f"https://api.example.com{path()}?{qkey()}={s}&q=a b",
                 f"http://{host()}{path()}?{qkey()}={s}|x", f"amqp://{user()}:{s}@{host()}:5672/%zz")
    return s, java(pick("uri", "uricreate"), value, pick("", "", "trace"))


def java_number_format() -> tuple[str, str]:
    s = pick(pw(), token())
    return s, java(pick("int", "long"), s)


# ----------------------------------------------------------------------------------------------- the set

SECRETS: list[tuple[str, str, Maker]] = [
    ("requests_http_error_for_url", "exception", requests_http_error),
    ("requests_connection_error_query", "exception", requests_connection_error),
    ("requests_missing_schema", "exception", requests_missing_schema),
    ("requests_invalid_schema", "exception", requests_invalid_schema),
    ("requests_invalid_header", "exception", requests_invalid_header),
    ("httpx_status_error", "exception", httpx_status_error),
    ("httpx_request_log", "log", httpx_request_log),
    ("urllib3_debug_request_line", "log", urllib3_debug_log),
    ("urllib3_retry_warning", "log", urllib3_retry_warning),
    ("urllib_httperror_traceback_locals", "exception", urllib_traceback_locals),
    ("urllib_refused_chain_locals", "exception", urllib_refused_chain),
    ("http_client_debuglevel_send", "log", http_client_debug),
    ("http_client_invalid_header_value", "exception", http_client_header_value),
    ("httpx_request_repr", "exception", httpx_request_repr),
    ("aiohttp_client_response_error", "exception", aiohttp_response_error),
    ("xmlrpc_protocol_error_userinfo", "exception", xmlrpc_protocol_error),
    ("websockets_invalid_uri", "exception", websockets_invalid_uri),
    ("aiohttp_yarl_userinfo", "exception", yarl_repr_in_error),
    ("botocore_debug_signing", "log", botocore_debug),
    ("smtplib_debug_auth_plain", "log", smtplib_debug),
    ("sqlalchemy_integrity_error_params", "exception", sqlalchemy_integrity_error),
    ("sqlalchemy_operational_error_params", "exception", sqlalchemy_operational_error),
    ("sqlalchemy_echo_params", "log", sqlalchemy_echo_log),
    ("libpq_percent_encoded_token", "exception", libpq_percent_token),
    ("sqlalchemy_dsn_traceback_locals", "exception", sqlalchemy_bad_port),
    ("pydantic_input_value", "exception", pydantic_input_value),
    ("pydantic_url_input_value", "exception", pydantic_url_input),
    ("pydantic_json_invalid", "exception", pydantic_json_invalid),
    ("pydantic_serializer_warning", "log", pydantic_serializer_warning),
    ("pydantic_settings_env_value", "exception", pydantic_settings_env),
    ("jsonschema_on_instance", "exception", jsonschema_instance),
    ("yaml_error_quoted_line", "exception", yaml_error_line),
    ("configparser_error_line", "exception", configparser_error_line),
    ("builtin_value_error_echo", "exception", value_echo),
    ("json_decode_traceback_locals", "exception", json_traceback_locals),
    ("subprocess_called_process_argv", "exception", subprocess_argv),
    ("subprocess_timeout_argv", "exception", subprocess_timeout),
    ("curl_verbose_request", "log", curl_verbose),
    ("wget_progress_url", "log", wget_progress),
    ("paramiko_traceback_locals", "exception", paramiko_locals),
    ("redis_traceback_locals", "exception", redis_locals),
    ("kombu_traceback_locals", "exception", kombu_locals),
    ("pymongo_traceback_locals", "exception", pymongo_locals),
    ("node_request_with_credentials", "exception", node_request_credentials),
    ("node_invalid_url_input", "exception", node_invalid_url),
    ("node_fetch_failed_cause", "exception", node_fetch_failed),
    ("node_assert_diff", "exception", node_assert_diff),
    ("node_inspect_error_config", "exception", node_inspect_config),
    ("node_json_parse_value", "exception", node_json_parse),
    ("go_http_client_error", "exception", go_http_get),
    ("go_url_parse_error", "exception", go_url_parse),
    ("go_url_struct_dump", "exception", go_url_struct),
    ("go_strconv_error", "exception", go_atoi),
    ("go_struct_in_error", "exception", go_struct_dump),
    ("java_no_suitable_driver", "exception", java_jdbc_url),
    ("java_properties_in_message", "exception", java_properties),
    ("java_uri_syntax", "exception", java_uri_syntax),
    ("java_number_format", "exception", java_number_format),
]


# ----------------------------------------------------------------------------------------------- benign: the same software, no secret


def b_requests_refused() -> str:
    import requests

    url = pick(f"http://127.0.0.1:1{path()}", f"http://127.0.0.1:1{path()}?page={_r.randint(2, 9)}&per_page=100",
               f"http://127.0.0.1:1/v1/orders/{uuid()}", f"http://127.0.0.1:1/v1/items?cursor={_r.randint(1000, 99999)}")
    return shown(caught(lambda: requests.get(url, timeout=2)), "127.0.0.1")


def b_requests_http_error() -> str:
    import requests

    url = pick(f"{up(status())}{path()}", f"{up(status())}/v1/orders/{uuid()}", f"{up(status())}{path()}?limit=50&offset=100",
               f"{up(status())}/repos/acme/app/commits/{rnd(40, HEX)}")
    return shown(caught(lambda: requests.get(url, timeout=5).raise_for_status()), "127.0.0.1")


def b_httpx_status_error() -> str:
    import httpx

    url = pick(f"{up(status())}{path()}", f"{up(status())}/v1/users/{_r.randint(1, 99999)}", f"{up(status())}/v1/files/{rnd(24, HEX)}",
               f"{up(status())}{path()}?model=gpt-4o&stream=false")
    return shown(caught(lambda: httpx.get(url, timeout=5).raise_for_status()), "127.0.0.1")


def b_httpx_log() -> str:
    import httpx

    url = pick(f"{up()}{path()}", f"{up(pick(404, 429))}{path()}?page={_r.randint(2, 9)}", f"{up()}/v1/runs/run_{rnd(24, HEX)}",
               f"http://{user()}@127.0.0.1:{port()}{path()}")
    with records("httpx", fmt=_r.choice(LOG_FORMATS)) as out:
        with httpx.Client(timeout=5) as client:
            client.request(pick("GET", "POST"), url)
    return one_with(out, "HTTP Request")


def b_urllib3_log() -> str:
    import requests

    url = pick(f"{up()}{path()}", f"{up(404)}/v1/orders/{uuid()}", f"{up(500)}{path()}?since=2025-01-01T00:00:00Z")
    with records("urllib3", fmt=_r.choice(LOG_FORMATS)) as out:
        requests.get(url, timeout=5)
    return _r.choice(out)


def b_urllib3_retry() -> str:
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util import Retry

    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=Retry(total=1, backoff_factor=0)))
    with records("urllib3", fmt=_r.choice(LOG_FORMATS)) as out:
        caught(lambda: session.get(f"http://127.0.0.1:1{path()}?page={_r.randint(1, 9)}", timeout=2))
    return one_with(out, "Retr")


def b_urllib_error() -> str:
    import urllib.request

    url = pick(f"{up(status())}{path()}", "http://127.0.0.1:1/healthz", f"{up(404)}/v1/orders/{uuid()}")
    exc = caught(lambda: urllib.request.urlopen(url, timeout=5))
    return pick(str(exc), repr(exc), formatted(exc).splitlines()[-1])


def b_sqlalchemy_masked_url() -> str:
    import sqlalchemy as sa

    url = f"postgresql+psycopg://{user()}:{upw()}@127.0.0.1:1/{pick('app', 'orders')}"
    engine = sa.create_engine(url, connect_args={"connect_timeout": 1})
    if _r.random() < 0.4:
        return pick(f"engine: {engine!r}", f"pool for {engine.url!r} exhausted", f"could not reach {engine.url}")
    return str(caught(lambda: engine.connect()))


def b_sqlalchemy_params() -> str:
    import sqlalchemy as sa

    engine = _users_engine()
    stmt, params = pick(
        ("INSERT INTO users (name, password) VALUES (:name, :password)", {"name": "alice", "password": None}),
        ("INSERT INTO orders (id, sku, qty) VALUES (:id, :sku, :qty)", {"id": _r.randint(1, 9999), "sku": f"SKU-{rnd(6, '0123456789')}", "qty": 2}),
        ("UPDATE files SET sha256 = :h WHERE id = :id", {"h": rnd(64, HEX), "id": _r.randint(1, 999)}),
        ("INSERT INTO users (name) VALUES (:name)", {"name": "alice"}),
        ("SELECT * FROM sessions WHERE user_id = :uid AND expires_at > :now", {"uid": _r.randint(1, 999), "now": "2025-06-01 00:00:00"}),
    )

    def run() -> None:
        with engine.begin() as conn:
            conn.execute(sa.text(stmt), params)

    return pick(str(caught(run)), repr(caught(run)))


def b_sqlalchemy_echo() -> str:
    import sqlalchemy as sa

    engine = _users_engine()
    with records("sqlalchemy.engine", fmt=_r.choice(LOG_FORMATS)) as out:
        with engine.begin() as conn:
            conn.execute(sa.text("SELECT id, name FROM users WHERE id = :id"), {"id": _r.randint(1, 99)})
    return _r.choice(out)


def b_psycopg_refused() -> str:
    import psycopg

    dsn = pick(f"postgresql://{user()}@127.0.0.1:1/app", f"host=127.0.0.1 port=1 dbname=app user={user()} password={upw()} connect_timeout=1",
               f"postgresql://{user()}:{upw()}@127.0.0.1:1/orders?sslmode=disable")
    return str(caught(lambda: psycopg.connect(dsn, connect_timeout=1)))


def b_libpq_errors() -> str:
    import psycopg

    dsn = pick(f"postgresql://{user()}@127.0.0.1:1/app?passwrd=x", f"host=127.0.0.1 port=1 sslmode=requir user={user()}",
               f"postgresql://{user()}@127.0.0.1:54x/app", "host=127.0.0.1 port=1 connect_timeout=soon")
    return str(caught(lambda: psycopg.connect(dsn)))


def b_redis_errors() -> str:
    import redis

    client = redis.Redis.from_url(f"redis://:{upw()}@127.0.0.1:1/{_r.randint(0, 15)}", socket_connect_timeout=1)
    exc = caught(client.ping)
    return pick(str(exc), repr(exc), repr(client), f"{type(exc).__name__}: {exc}")


def b_pymongo_timeout() -> str:
    import pymongo

    client = pymongo.MongoClient(f"mongodb://{user()}:{upw()}@127.0.0.1:1/shop", serverSelectionTimeoutMS=200, connectTimeoutMS=200)
    return str(caught(lambda: client.shop.orders.find_one({"_id": _r.randint(1, 999)})))


def b_kombu_masked() -> str:
    import kombu

    conn = kombu.Connection(f"amqp://{user()}:{upw()}@127.0.0.1:1/{pick('', 'prod')}", connect_timeout=1)
    return pick(f"Cannot connect to {conn.as_uri()}: Connection refused.", f"broker: {conn!r}",
                f"consumer: Cannot connect to {conn.as_uri()}: [Errno 111] Connection refused.\nTrying again in 2.00 seconds... (1/100)")


def b_pydantic_plain() -> str:
    from pydantic import BaseModel, Field, SecretStr

    class Settings(BaseModel):
        port: int = 443
        region: str = Field(default="us-east-1", pattern=r"^[a-z]{2}-[a-z]+-\d$")
        api_key: SecretStr | None = None
        timeout: float = 30.0

    kwargs = pick({"port": "https"}, {"region": "mars-1"}, {"timeout": "soon"}, {"port": 70000.5}, {"api_key": 12345})
    return str(caught(lambda: Settings(**kwargs)))


def b_pydantic_secretstr() -> str:
    from pydantic import BaseModel, SecretStr

    class Credentials(BaseModel):
        client_id: str
        client_secret: SecretStr
        scopes: list[str] = []

    creds = Credentials(client_id=f"app-{rnd(8, HEX)}", client_secret=token(), scopes=["read"])
    return pick(repr(creds), str(creds), f"token request failed for {creds!r}", f"{creds.model_dump()}")


def b_jsonschema_plain() -> str:
    import jsonschema

    instance, schema = pick(
        ({"retries": "3"}, {"type": "object", "properties": {"retries": {"type": "integer"}}}),
        ({"id": uuid(), "extra": 1}, {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": False}),
        ({"mode": "fast"}, {"type": "object", "properties": {"mode": {"enum": ["safe", "strict"]}}}),
        ({"sha256": rnd(40, HEX)}, {"type": "object", "properties": {"sha256": {"type": "string", "minLength": 64}}}),
    )
    return str(caught(lambda: jsonschema.validate(instance, schema)))


def b_yaml_config_errors() -> str:
    import yaml

    doc = pick(f"server:\n  host: {host()}\n  port: [8080\n", "retries: 3\n  backoff: 2\n", 'log:\n  level: "debug\n',
               "a: b: c\n", "database:\n  password: ${DB_PASSWORD}\n   pool: 5\n")
    return str(caught(lambda: yaml.safe_load(doc)))


def b_configparser_errors() -> str:
    import configparser

    text = pick("[database]\nhost = db1\nport\n", "[api]\nurl = x\n[api]\n", "host = db1\n", "[smtp]\nport = 25\nport = 587\n")
    return str(caught(lambda: configparser.ConfigParser().read_string(text)))


def b_value_errors() -> str:
    value = pick("eight", "db.internal", "2025-13-01", "yes please", "5432/tcp", "1e3x")
    fn = pick(lambda: int(value), lambda: ipaddress.ip_address(value), lambda: datetime.date.fromisoformat(value), lambda: float(value))
    return pick(str(caught(fn)), repr(caught(fn)))


def b_subprocess_plain() -> str:
    argv = pick(
        ["curl", "-fsS", "http://127.0.0.1:1/healthz"],
        ["git", "ls-remote", "https://127.0.0.1:1/platform/deploy.git"],
        ["psql", "-h", "127.0.0.1", "-p", "1", "-U", user(), "-d", "app", "-c", "select 1"],
        ["mysql", "-h127.0.0.1", "-P1", "-u", user(), "--password-file=/run/secrets/db", "app"],
        ["wget", "-q", f"http://127.0.0.1:1/export.csv?date=2025-0{_r.randint(1, 9)}-01"],
    )
    exc = caught(lambda: subprocess.run(argv, check=True, capture_output=True, text=True, timeout=20))
    return pick(str(exc), f"{exc}\nstderr: {(exc.stderr or '').strip()}")


def b_curl_verbose() -> str:
    args = pick(["-H", "Accept: application/json"], ["-H", f"X-Request-Id: {uuid()}"], ["-H", "Authorization: Bearer ${TOKEN}"],
                ["-H", "Content-Type: application/json"], ["-H", f"Idempotency-Key: {uuid()}"])
    proc = subprocess.run(["curl", "-sv", *args, f"{up(pick(401, 404, 500))}{path()}"], capture_output=True, text=True)
    return proc.stderr.strip()


def b_wget_progress() -> str:
    proc = subprocess.run(["wget", "-O", "/dev/null", f"{up(pick(403, 404, 500))}{path()}?page={_r.randint(1, 9)}"], capture_output=True, text=True)
    return proc.stderr.strip()


def b_botocore_errors() -> str:
    import boto3
    import botocore.config

    client = boto3.client("s3", endpoint_url="http://127.0.0.1:1", aws_access_key_id="AKIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
                          aws_secret_access_key=rnd(40, B64), region_name="us-east-1",
                          config=botocore.config.Config(retries={"max_attempts": 1}, connect_timeout=1))
    exc = caught(lambda: client.get_object(Bucket=pick("reports", "backups", "assets"), Key=f"2025/{rnd(8, HEX)}.csv"))
    return pick(str(exc), repr(exc), f"{type(exc).__name__}: {exc}")


def b_paramiko_plain() -> str:
    import paramiko

    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    exc = caught(lambda: client.connect("127.0.0.1", port=1, username=user(), password=pw(), timeout=2, allow_agent=False, look_for_keys=False))
    return pick(str(exc), repr(exc), formatted(exc).splitlines()[-1])


def b_aiohttp_errors() -> str:
    import aiohttp

    url = pick(f"http://127.0.0.1:1{path()}", f"{up(status())}{path()}", f"{up(status())}/v1/orders/{uuid()}")

    async def call() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(url, raise_for_status=True, timeout=aiohttp.ClientTimeout(total=2)):
                pass

    return str(caught(lambda: asyncio.run(call())))


def b_httpx_url_masked() -> str:
    import httpx

    url = httpx.URL(f"https://{user()}:{upw()}@{host()}{path()}")
    return pick(f"request to {url!r} failed", f"retrying {url!r} in 2s", f"{type(caught(lambda: httpx.get(url.copy_with(host='127.0.0.1', port=1)))).__name__} for {url!r}")


def b_tracebacks_plain() -> str:
    def load_order(order_id: str, page: int) -> dict:
        rows = {"ord_1": {"sku": "SKU-1"}}
        return rows[order_id]

    def parse_limit(raw: str) -> int:
        return int(raw)

    fn = pick(lambda: load_order(f"ord_{rnd(12, HEX)}", _r.randint(1, 9)), lambda: parse_limit(pick("fifty", "1e3", "")),
              lambda: json.loads(pick('{"id": 1, }', '{"ok": tru}', "")))
    return formatted(caught(fn), locals_=_r.random() < 0.6)


def b_node_errors() -> str:
    kind, value, extra = pick(("fetch", f"http://127.0.0.1:1{path()}?page=2", ""), ("url", f"http://{host()}:99999{path()}", ""),
                              ("json", "<html><body>502 Bad Gateway</body></html>", ""), ("assert", "200", "201"),
                              ("request", f"https://api.example.com{path()}?page=3", ""))
    return node(kind, value, extra, pick("", "inspect"))


def b_go_errors() -> str:
    kind, value = pick(("get", f"http://127.0.0.1:1{path()}?page={_r.randint(2, 9)}"), ("parse", f"https://{host()}:54x{path()}"),
                       ("atoi", pick("eight", "5432/tcp")), ("urlstr", f"https://{user()}@{host()}{path()}"),
                       ("getv", f"http://127.0.0.1:1/v1/orders/{uuid()}"))
    return go(kind, value)


def b_java_errors() -> str:
    kind, value = pick(("jdbc", f"jdbc:postgresql://{host()}:5432/app?user={user()}&ssl=true"), ("int", pick("eight", "5432/tcp")),
                       ("uri", f"https://{host()}/a b"), ("jdbc", f"jdbc:mysql://{host()}:3306/app"),
                       ("uricreate", f"https://api.example.com{path()}?q=a b"))
    return java(kind, value, pick("", "trace"))


BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("requests_connection_refused", "exception", b_requests_refused),
    ("requests_http_error_no_credential", "exception", b_requests_http_error),
    ("httpx_status_error_no_credential", "exception", b_httpx_status_error),
    ("httpx_request_log_plain", "log", b_httpx_log),
    ("urllib3_log_plain", "log", b_urllib3_log),
    ("urllib3_retry_plain", "log", b_urllib3_retry),
    ("urllib_error_plain", "exception", b_urllib_error),
    ("sqlalchemy_masked_url", "exception", b_sqlalchemy_masked_url),
    ("sqlalchemy_params_not_credentials", "exception", b_sqlalchemy_params),
    ("sqlalchemy_echo_plain", "log", b_sqlalchemy_echo),
    ("psycopg_connection_refused", "exception", b_psycopg_refused),
    ("libpq_option_errors", "exception", b_libpq_errors),
    ("redis_connection_errors", "exception", b_redis_errors),
    ("pymongo_server_selection", "exception", b_pymongo_timeout),
    ("kombu_masked_uri", "log", b_kombu_masked),
    ("pydantic_errors_not_credentials", "exception", b_pydantic_plain),
    ("pydantic_secretstr_repr", "exception", b_pydantic_secretstr),
    ("jsonschema_errors_plain", "exception", b_jsonschema_plain),
    ("yaml_errors_plain", "exception", b_yaml_config_errors),
    ("configparser_errors_plain", "exception", b_configparser_errors),
    ("builtin_value_errors_plain", "exception", b_value_errors),
    ("subprocess_errors_plain", "exception", b_subprocess_plain),
    ("curl_verbose_plain", "log", b_curl_verbose),
    ("wget_progress_plain", "log", b_wget_progress),
    ("botocore_endpoint_errors", "exception", b_botocore_errors),
    ("paramiko_errors_plain", "exception", b_paramiko_plain),
    ("aiohttp_errors_plain", "exception", b_aiohttp_errors),
    ("httpx_url_masked", "exception", b_httpx_url_masked),
    ("tracebacks_without_credentials", "exception", b_tracebacks_plain),
    ("node_errors_plain", "exception", b_node_errors),
    ("go_errors_plain", "exception", b_go_errors),
    ("java_errors_plain", "exception", b_java_errors),
]


def raised() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_18)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    return heldout._records(SECRETS, BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = raised()
    heldout._write(HERE / "raised_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "raised_benign.jsonl.gz", benign_rows)
    print(f"raised: {len(secrets)} secret texts, {len(benign_rows)} benign texts")


if __name__ == "__main__":
    main()
