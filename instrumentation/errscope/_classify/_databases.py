"""Databases: DB-API errors (PEP 249) by SQLSTATE, SQLite, MySQL and ClickHouse codes; Redis, MongoDB, ZooKeeper,
Milvus, Couchbase, ArangoDB, Cassandra (CQL) and Neo4j (Bolt) codes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from errscope._classify._builders import _unavailable
from errscope._classify._core import Classification, FieldProblem, Rule, Upstream, classify
from errscope._classify._facts import (
    _attribute,
    _context_status,
    _function_name,
    _message_of,
    _raised_connecting,
    _raised_reading,
    _request_address,
)
from errscope._classify._http_errors import _http_status
from errscope._classify._protocols import _grpc_status, _grpc_status_name
from errscope._foreign_text import SQLSTATE_CLASSES as _SQLSTATES, sqlstate_in_text
from errscope._vocabulary import FailureClass


_UNIQUE_KEY: Final = re.compile(r"Key \(([A-Za-z_][A-Za-z0-9_]*(?:, ?[A-Za-z_][A-Za-z0-9_]*)*)\)=")


def _dbapi_integrity(exc: BaseException) -> Classification | None:
    if _wraps_driver_error(exc):
        return None
    # PostgreSQL's detail names the violated key's columns, never just the value: keep the columns only.
    match = _UNIQUE_KEY.search(str(exc))
    status = _db_status(exc)
    upstream = Upstream(_db_system(exc), status, _db_address(exc)) if status else None
    if match and "already exists" in str(exc):
        column = match.group(1)
        return Classification(
            FailureClass.INVALID_INPUT,
            upstream=upstream,
            public_message=f"a record with this {column} already exists",
            fields=(FieldProblem(column, "unique"),),
            side_effect_possible=False,
        )
    return Classification(FailureClass.INVALID_INPUT, upstream=upstream, side_effect_possible=False)


_SQLSTATE_SHAPE: Final = re.compile(r"[0-9A-Z]{5}")


def _sqlstate(exc: BaseException) -> str | None:
    # psycopg 3 and asyncpg expose .sqlstate, psycopg2 .pgcode (five characters, SQL standard);
    # PostgREST's error body (postgrest-py, Supabase) passes the database's on as .code.
    for attribute in ("sqlstate", "pgcode", "code"):
        value = getattr(exc, attribute, None)
        if isinstance(value, str) and _SQLSTATE_SHAPE.fullmatch(value):
            return value
    fields = _error_fields(exc)
    return fields["C"] if fields is not None else None


def _error_fields(exc: BaseException) -> Mapping[str, object] | None:
    """The fields of a PostgreSQL ``ErrorResponse`` a driver passes on as its error's one argument, keyed by their
    one-letter codes (``C`` the SQLSTATE, ``S`` the severity, ``M`` the message: PostgreSQL docs, 55.8 "Error and
    Notice Message Fields"): pg8000's ``DatabaseError``."""
    fields = exc.args[0] if len(exc.args) == 1 else None
    if not isinstance(fields, Mapping) or not isinstance(fields.get("M"), str) or "S" not in fields:
        return None
    code = fields.get("C")
    return fields if isinstance(code, str) and _SQLSTATE_SHAPE.fullmatch(code) else None


def _printed_sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE a PEP 249 driver's error keeps only in its message (databricks-sql-connector's
    ``ServerOperationError``: Databricks' error conditions end in "SQLSTATE: 42P01",
    https://docs.databricks.com/en/error-messages/index.html), when it has no attribute for one."""
    if _sqlstate(exc) is not None or not any(klass.__name__ in _DBAPI_RULES for klass in type(exc).__mro__[:-2]):
        return None
    message = _message_of(exc)[:2000]
    return sqlstate_in_text(message) or _refused_login(exc, message)


# The PostgreSQL server's FATAL answers to a login it refuses (src/backend/libpq/auth.c ``auth_failed``,
# ``check_hba``; utils/init/miscinit.c ``InitializeSessionUserId``), which libpq reports as text only, with no
# SQLSTATE kept: "password authentication failed" is 28P01 invalid_password, every other method's failure, a
# pg_hba.conf refusal and an unknown or non-login role 28000 invalid_authorization_specification (PostgreSQL
# docs, Appendix A, class 28).
_LOGIN_REFUSED: Final = re.compile(
    r"\bFATAL:\s+(?:(password) authentication failed for user"
    r"|(?:[\w-]+ )?authentication failed for user"
    r"|no pg_hba\.conf entry for|pg_hba\.conf rejects connection"
    r'|role "[^"\n]*" (?:does not exist|is not permitted to log in))'
)


def _refused_login(exc: BaseException, message: str) -> str | None:
    """28P01 or 28000 for libpq's report of a login the server refused (:data:`_LOGIN_REFUSED`), read only off an
    error the driver raised while connecting (psycopg's ``pgconn`` that never had a server process, or a
    connecting function on the stack): a tool's own error in the same words names no server's answer."""
    match = _LOGIN_REFUSED.search(message)
    if match is None:
        return None
    if getattr(getattr(exc, "pgconn", None), "backend_pid", None) != 0 and not _raised_connecting(exc):
        return None
    return "28P01" if match.group(1) else "28000"


# SQLite primary result codes (https://sqlite.org/rescode.html), from ``sqlite3.Error.sqlite_errorname``.
_SQLITE_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "SQLITE_BUSY": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_LOCKED": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_CANTOPEN": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_FULL": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_IOERR": (FailureClass.UPSTREAM_UNAVAILABLE, None),
    "SQLITE_INTERRUPT": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "SQLITE_READONLY": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_PERM": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_AUTH": (FailureClass.PERMISSION_DENIED, False),
    "SQLITE_CONSTRAINT": (FailureClass.INVALID_INPUT, False),
    "SQLITE_MISMATCH": (FailureClass.INVALID_INPUT, False),
    "SQLITE_TOOBIG": (FailureClass.INVALID_INPUT, False),
    "SQLITE_ERROR": (FailureClass.UNKNOWN, False),  # no such table, syntax error: our bug
}


# MySQL/MariaDB error numbers (server: https://mariadb.com/kb/en/mariadb-error-codes/, client CR_*),
# as PyMySQL and mysqlclient give them (``args[0]``) and mysql-connector (``errno``).
_MYSQL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    1044: (FailureClass.PERMISSION_DENIED, False),  # ER_DBACCESS_DENIED_ERROR
    1045: (FailureClass.PERMISSION_DENIED, False),  # ER_ACCESS_DENIED_ERROR (login)
    1142: (FailureClass.PERMISSION_DENIED, False),  # ER_TABLEACCESS_DENIED_ERROR
    1143: (FailureClass.PERMISSION_DENIED, False),  # ER_COLUMNACCESS_DENIED_ERROR
    1227: (FailureClass.PERMISSION_DENIED, False),  # ER_SPECIFIC_ACCESS_DENIED_ERROR
    1048: (FailureClass.INVALID_INPUT, False),  # ER_BAD_NULL_ERROR
    1062: (FailureClass.INVALID_INPUT, False),  # ER_DUP_ENTRY
    1264: (FailureClass.INVALID_INPUT, False),  # ER_WARN_DATA_OUT_OF_RANGE
    1366: (FailureClass.INVALID_INPUT, False),  # ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
    1406: (FailureClass.INVALID_INPUT, False),  # ER_DATA_TOO_LONG
    1451: (FailureClass.INVALID_INPUT, False),  # ER_ROW_IS_REFERENCED_2
    1452: (FailureClass.INVALID_INPUT, False),  # ER_NO_REFERENCED_ROW_2
    4025: (FailureClass.INVALID_INPUT, False),  # ER_CONSTRAINT_FAILED (MariaDB CHECK)
    3819: (FailureClass.INVALID_INPUT, False),  # ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
    1040: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_CON_COUNT_ERROR: too many connections
    1203: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_TOO_MANY_USER_CONNECTIONS
    1205: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_LOCK_WAIT_TIMEOUT: the statement was rolled back
    1213: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_LOCK_DEADLOCK: the transaction was rolled back
    1969: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
    3024: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # ER_QUERY_TIMEOUT (MySQL max_execution_time)
    1053: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # ER_SERVER_SHUTDOWN mid-statement
    1927: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # ER_CONNECTION_KILLED (MariaDB)
    2003: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # CR_CONN_HOST_ERROR: cannot connect
    2005: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # CR_UNKNOWN_HOST
    2006: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # CR_SERVER_GONE_ERROR
    2013: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # CR_SERVER_LOST during the query
    1049: (FailureClass.UNKNOWN, False),  # ER_BAD_DB_ERROR: configuration
    1054: (FailureClass.UNKNOWN, False),  # ER_BAD_FIELD_ERROR: our bug
    1064: (FailureClass.UNKNOWN, False),  # ER_PARSE_ERROR: our bug
    1146: (FailureClass.UNKNOWN, False),  # ER_NO_SUCH_TABLE: our bug
}


# ClickHouse's own error codes (src/Common/ErrorCodes.cpp), what clickhouse-connect and clickhouse-driver keep as
# ``code``. A server-side error aborts the query; ClickHouse has no transaction to leave half-applied for these.
_CLICKHOUSE_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((192, 193, 194, 195, 497, 516), (FailureClass.PERMISSION_DENIED, False)),  # unknown user,
    # wrong password, required password, IP not allowed, ACCESS_DENIED, AUTHENTICATION_FAILED
    **dict.fromkeys((159, 160, 164, 202, 203, 209, 210, 241, 242, 252, 394, 425),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # TIMEOUT_EXCEEDED, TOO_SLOW, READONLY,
    # TOO_MANY_SIMULTANEOUS_QUERIES, NO_FREE_CONNECTION, SOCKET_TIMEOUT, NETWORK_ERROR, MEMORY_LIMIT_EXCEEDED,
    # TABLE_IS_READ_ONLY, TOO_MANY_PARTS, QUERY_WAS_CANCELLED, SYSTEM_ERROR
    **dict.fromkeys((6, 27, 53, 69, 70, 72, 117), (FailureClass.INVALID_INPUT, False)),  # a value that does not
    # parse or fit its column: CANNOT_PARSE_TEXT, CANNOT_PARSE_INPUT_ASSERTION_FAILED, TYPE_MISMATCH,
    # ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, CANNOT_PARSE_NUMBER, INCORRECT_DATA
    **dict.fromkeys((16, 46, 47, 60, 62, 81), (FailureClass.UNKNOWN, False)),  # NO_SUCH_COLUMN_IN_TABLE,
    # UNKNOWN_FUNCTION, UNKNOWN_IDENTIFIER, UNKNOWN_TABLE, SYNTAX_ERROR, UNKNOWN_DATABASE: the tool's query
}
_CLICKHOUSE_DRIVERS: Final = ("clickhouse_connect", "clickhouse_driver")


# OpenTelemetry's ``db.system.name`` values (semantic conventions, database spans) by the driver's top-level package.
_DB_SYSTEMS: Final = {
    **dict.fromkeys(("psycopg", "psycopg2", "asyncpg", "pg8000", "psycopg2cffi"), "postgresql"),
    **dict.fromkeys(("pymysql", "MySQLdb", "mysql", "aiomysql", "asyncmy"), "mysql"),
    "mariadb": "mariadb",
    **dict.fromkeys(("sqlite3", "aiosqlite", "apsw"), "sqlite"),
    **dict.fromkeys(("oracledb", "cx_Oracle"), "oracle.db"),
    **dict.fromkeys(("pymssql", "pytds"), "microsoft.sql_server"),
    **dict.fromkeys(_CLICKHOUSE_DRIVERS, "clickhouse"),
    "duckdb": "duckdb",
    "trino": "trino",
}


def _db_system(exc: BaseException) -> str:
    """The database the driver that raised ``exc`` speaks to (:data:`_DB_SYSTEMS`, OpenTelemetry's
    ``db.system.name`` values), else ``db``: what the triage dashboard groups upstream failures by."""
    return _DB_SYSTEMS.get(type(exc).__module__.partition(".")[0], "db")


_DSN_PAIR: Final = re.compile(r"\b(host|port)='?([^\s']+)")

# libpq's own words for the server a connection attempt failed at, which every libpq client (psycopg2, psycopg 3,
# SQLAlchemy's copy of either) prints as given: PostgreSQL 14+ ``connection to server at "H" (IP), port P failed:``
# (fe-connect.c, emitHostIdentityInfo), before 14 ``Is the server running on host "H" (IP) and accepting TCP/IP
# connections on port P?``. A Unix socket (``on socket "/run/..."``) is no address.
_LIBPQ_SERVER: Final = re.compile(r'connection to server at "([^"/][^"]*)"(?: \([^)]*\))?, port (\d+) failed'
                                  r'|running on host "([^"/][^"]*)"(?: \([^)]*\))? and accepting\s+TCP/IP '
                                  r'connections on port (\d+)')


def _libpq_server(exc: BaseException) -> str | None:
    """``host:port`` libpq named in ``exc``'s message (:data:`_LIBPQ_SERVER`), for a connection that never opened:
    psycopg2's ``OperationalError`` from ``connect()`` keeps no connection object to ask."""
    try:
        found = _LIBPQ_SERVER.search(str(exc))
    except Exception:  # a message that cannot be rendered says nothing
        return None
    if found is None:
        return None
    host, port = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


# A driver that prefixes its network failure with the server it was talking to: pymongo's ``host:port: error``
# (pool_shared.py ``_raise_connection_failure``, which ``NetworkTimeout``, ``AutoReconnect`` and the
# ``ServerSelectionTimeoutError`` listing each server's failure start with). Names and IPv4 literals only (an IPv6
# host printed bare is ambiguous with its port), a port 1-65535.
_LEADING_SERVER: Final = re.compile(r"(?:[a-zA-Z0-9_-]+\.)*[a-zA-Z0-9_-]+:(\d{1,5}): ")


def leading_server(exc: BaseException) -> str | None:
    """``host:port`` a network failure's message starts with (:data:`_LEADING_SERVER`); ``None`` when it starts
    otherwise. Only for a failure already read as the upstream unavailable: ``config.yaml:42: bad`` is a parser's."""
    try:
        text = str(exc)
    except Exception:  # a message that cannot be rendered says nothing
        return None
    found = _LEADING_SERVER.match(text)
    if found is None or not 0 < int(found.group(1)) < 65536:
        return None
    return found.group(0)[:-2]


def _db_address(exc: BaseException) -> str | None:
    """``host:port`` of the connection a driver's error names: psycopg 3's ``Error.pgconn`` (libpq's ``PQhost``/
    ``PQport``, set even when the login failed), psycopg2's ``Error.cursor.connection.info`` (psycopg2 >= 2.8),
    else the server libpq's message names (:func:`_libpq_server`: a connection that never opened). A Unix socket
    directory is no address. ``None`` when the error names no connection."""
    try:
        pgconn = getattr(exc, "pgconn", None)
        cursor = getattr(exc, "cursor", None)
        info = getattr(getattr(cursor, "connection", None), "info", None)
        # a closed psycopg2 connection refuses ``info`` but keeps its ``dsn`` (password masked): host and port from it
        dsn = getattr(getattr(cursor, "connection", None), "dsn", None)
        parsed = dict(_DSN_PAIR.findall(dsn)) if isinstance(dsn, str) else {}
        for owner in (pgconn, info, type("Dsn", (), {"host": parsed.get("host"), "port": parsed.get("port")})):
            try:
                host, port = getattr(owner, "host", None), getattr(owner, "port", None)
            except Exception:  # libpq's accessors on a closed connection
                continue
            host = host.decode("utf-8", "replace") if isinstance(host, bytes) else host
            port = port.decode("ascii", "replace") if isinstance(port, bytes) else port
            if isinstance(host, str) and host and not host.startswith("/"):
                return f"[{host}]:{port}" if ":" in host and port else f"{host}:{port}" if port else host
    except Exception:  # a closed connection object may refuse to answer
        return None
    return _libpq_server(exc)


def _db_status(exc: BaseException) -> str | None:
    """The database's own code for ``upstream.status``: a MySQL error number (finer than the
    SQLSTATE MySQL maps many numbers onto: 42000 is a syntax error and a denied access), else the SQLSTATE."""
    mysql = _mysql_code(exc)
    return str(mysql) if mysql is not None else _sqlstate(exc) or _printed_sqlstate(exc)


def _mysql_code(exc: BaseException) -> int | None:
    code = getattr(exc, "errno", None)
    if code is None and exc.args:
        code = exc.args[0]
    return code if isinstance(code, int) and not isinstance(code, bool) and code in _MYSQL_CODES else None


def _db_code(exc: BaseException) -> tuple[FailureClass, bool | None] | None:
    """What the database's own error code says, when the driver exposes one."""
    mysql = _mysql_code(exc)
    if mysql is not None:
        return _MYSQL_CODES[mysql]
    status = _sqlstate(exc) or _printed_sqlstate(exc)
    if status is not None:
        return _SQLSTATES.get(status) or _SQLSTATES.get(status[:2])
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(name, str):
        return _SQLITE_CODES.get("_".join(name.split("_")[:2]))
    code = getattr(exc, "code", None)
    if type(exc).__module__.partition(".")[0] in _CLICKHOUSE_DRIVERS and code in _CLICKHOUSE_CODES:
        return _CLICKHOUSE_CODES[code]
    # libpq reports no SQLSTATE for a failed connection attempt; psycopg attaches the connection
    # (Error.pgconn), which never had a server process behind it. Other drivers (psycopg2,
    # PyMySQL) say it by where they raised: inside their own connect().
    if getattr(getattr(exc, "pgconn", None), "backend_pid", None) == 0 or _raised_connecting(exc):
        return FailureClass.UPSTREAM_UNAVAILABLE, False
    # psycopg2 names the cursor whose statement raised (Error.cursor): an OperationalError there
    # without a code is the connection lost under the running statement.
    if type(exc).__name__ == "OperationalError" and getattr(exc, "cursor", None) is not None:
        return FailureClass.UPSTREAM_UNAVAILABLE, True
    return None


def _wraps_driver_error(exc: BaseException) -> bool:
    # SQLAlchemy's DBAPIError keeps the driver's exception as .orig and raises from it: that one
    # carries the database's code (and, as the root cause, the driver's own words).
    orig = getattr(exc, "orig", None)
    if isinstance(orig, BaseException) and orig in (exc.__cause__, exc.__context__):
        return True
    # A framework's copy of the driver's PEP 249 error under the same standard name, raised from it
    # (Django's DatabaseErrorWrapper: django.db.utils.IntegrityError from psycopg's UniqueViolation):
    # the driver's one carries the code. Only the same name: Django's TransactionManagementError (a
    # ProgrammingError) raised from the IntegrityError that broke the transaction is no copy of it.
    cause = exc.__cause__
    return (cause is not None and type(exc).__name__ in _DBAPI_RULES and _db_code(exc) is None
            and type(exc).__name__ in {klass.__name__ for klass in type(cause).__mro__})


def _dbapi(failure_class: FailureClass, side_effect_possible: bool | None = None) -> Rule:
    def rule(exc: BaseException) -> Classification | None:
        if _wraps_driver_error(exc):
            return None
        if _context_status(exc) is not None:
            # a driver over HTTP whose request the endpoint refused (databricks-sql-connector's RequestError, an
            # OperationalError keeping ``context["http-code"]``): that status, as any HTTP client's
            return _http_status(exc)
        status = _db_status(exc)
        code = _db_code(exc)
        # Without a code of its own, a driver's error raised over its transport's (clickhouse-connect over
        # urllib3, a refused connection) is what that one says.
        inner = exc.__cause__ or exc.__context__
        if code is None and inner is not None and classify(inner).failure_class is not FailureClass.UNKNOWN:
            return None
        cls, side_effect = code or (failure_class, side_effect_possible)
        if side_effect is not False and _raised_connecting(exc):
            # a connection lost before it opened (mysql-connector's 2013 "reading initial communication packet"):
            # no statement of the caller's went out, whatever the code says of one lost mid-query
            side_effect = False
        elif side_effect is None and code is None and _raised_reading(exc):
            # the server's end of stream met while reading the answer to a statement written (pg8000's "network
            # error" after its backend was terminated): it may have run
            side_effect = True
        address = _db_address(exc)  # (reads the driver's connection: once)
        upstream = Upstream(_db_system(exc), status, address) if status or address else None
        return Classification(cls, upstream=upstream, side_effect_possible=side_effect)

    return rule


# PEP 249 standard exception names, matched by class name so no driver is imported. The database's
# own code (SQLSTATE, SQLite result code) wins over the driver's choice of class: psycopg files an
# insufficient privilege under ProgrammingError, sqlite3 a locked database and a missing table
# both under OperationalError.
_DBAPI_RULES: Final[dict[str, Rule]] = {
    "DatabaseError": _dbapi(FailureClass.UNKNOWN),  # the base of the others: its code decides, else the chain
    "IntegrityError": _dbapi_integrity,
    "DataError": _dbapi(FailureClass.INVALID_INPUT, False),
    "OperationalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InterfaceError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "InternalError": _dbapi(FailureClass.UPSTREAM_UNAVAILABLE),
    "ProgrammingError": _dbapi(FailureClass.UNKNOWN, False),
    "NotSupportedError": _dbapi(FailureClass.UNKNOWN, False),
}


# Redis's reply codes for a command refused because of the server's own state, for now (Redis's error replies start
# with their code, https://redis.io/docs/latest/develop/reference/protocol-spec/#simple-errors; redis-py raises a class
# of its own for LOADING, READONLY, MASTERDOWN, TRYAGAIN, CLUSTERDOWN and OOM, and a bare ResponseError for BUSY (a
# script or function running), MISCONF (it cannot persist its snapshot) and NOREPLICAS (not enough good replicas for
# min-replicas-to-write)): the command did not run.
_REDIS_STATE_CODES: Final = frozenset({"BUSY", "MISCONF", "NOREPLICAS", "MASTERDOWN", "LOADING", "TRYAGAIN",
                                       "CLUSTERDOWN", "READONLY"})


def _redis_reply(exc: BaseException) -> Classification:
    """redis-py's ``ResponseError``: a server-state code (:data:`_REDIS_STATE_CODES`) is an upstream that cannot take
    the command now; any other (WRONGTYPE, ERR wrong number of arguments) is the tool's own command: ``unknown``. The
    server refused it either way: nothing applied."""
    code = str(exc).split(None, 1)[:1]
    if code and code[0] in _REDIS_STATE_CODES:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("redis", code[0]),
                              side_effect_possible=False)
    return Classification(FailureClass.UNKNOWN, side_effect_possible=False)


# MongoDB's server error codes (https://github.com/mongodb/mongo/blob/master/src/mongo/base/error_codes.yml) on an
# ``OperationFailure``: code -> (class, may the command have taken effect). 13 Unauthorized (a connection that never
# logged in, or a user without the role) and 18 AuthenticationFailed; 16500 is Azure Cosmos DB's API for MongoDB's
# TooManyRequests ("Request rate is large"); 11000 DuplicateKey a conflict with what is there (as SQLSTATE 23505);
# 26 NamespaceNotFound; 50 MaxTimeMSExpired and 262 ExceededTimeLimit a command stopped at its time limit (it may have
# applied part); 91 ShutdownInProgress, 189 PrimarySteppedDown, 10107 NotWritablePrimary, 13435
# NotPrimaryNoSecondaryOk, 11600 InterruptedAtShutdown, 11602 InterruptedDueToReplStateChange: the node cannot take it
# now (MongoDB's retryable errors).
_MONGODB_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    13: (FailureClass.PERMISSION_DENIED, False),
    18: (FailureClass.PERMISSION_DENIED, False),
    16500: (FailureClass.RATE_LIMITED, False),
    11000: (FailureClass.INVALID_INPUT, False),
    26: (FailureClass.NOT_FOUND, False),
    50: (FailureClass.UPSTREAM_UNAVAILABLE, True),
    262: (FailureClass.UPSTREAM_UNAVAILABLE, True),
    91: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    189: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    10107: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    13435: (FailureClass.UPSTREAM_UNAVAILABLE, False),
    11600: (FailureClass.UPSTREAM_UNAVAILABLE, None),
    11602: (FailureClass.UPSTREAM_UNAVAILABLE, None),
}


def _mongodb_code(exc: BaseException) -> Classification | None:
    """pymongo's ``OperationFailure`` by the server's error code (:data:`_MONGODB_CODES`), with the code's name as the
    upstream status; ``None`` (the rest of the rules decide) for a code not in the table."""
    code = getattr(exc, "code", None)
    if not isinstance(code, int) or code not in _MONGODB_CODES:
        return None
    failure_class, side_effect = _MONGODB_CODES[code]
    details = getattr(exc, "details", None)
    name = details.get("codeName") if isinstance(details, Mapping) else None
    return Classification(failure_class, upstream=Upstream("mongodb", str(name or code)), side_effect_possible=side_effect)
_DB_CODE: Final = _dbapi(FailureClass.UNKNOWN)


# ZooKeeper's error codes (KeeperException.Code; kazoo keeps each as its exception class's ``code``) -> (name, class,
# may the operation have been applied). A code the server answered refused the operation; only a lost connection or
# a timeout leaves it open.
_ZOOKEEPER_CODES: Final[dict[int, tuple[str, FailureClass, bool | None]]] = {
    -101: ("NONODE", FailureClass.NOT_FOUND, False),
    -102: ("NOAUTH", FailureClass.PERMISSION_DENIED, False),
    -115: ("AUTHFAILED", FailureClass.PERMISSION_DENIED, False),
    -103: ("BADVERSION", FailureClass.INVALID_INPUT, False),  # the version the caller expected is stale
    -108: ("NOCHILDRENFOREPHEMERALS", FailureClass.INVALID_INPUT, False),
    -110: ("NODEEXISTS", FailureClass.INVALID_INPUT, False),
    -111: ("NOTEMPTY", FailureClass.INVALID_INPUT, False),
    -114: ("INVALIDACL", FailureClass.INVALID_INPUT, False),
    -8: ("BADARGUMENTS", FailureClass.INVALID_INPUT, False),
    -127: ("THROTTLEDOP", FailureClass.RATE_LIMITED, False),
    -4: ("CONNECTIONLOSS", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -7: ("OPERATIONTIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -122: ("REQUESTTIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -112: ("SESSIONEXPIRED", FailureClass.UPSTREAM_UNAVAILABLE, None),
    -118: ("SESSIONMOVED", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -119: ("NOTREADONLY", FailureClass.UPSTREAM_UNAVAILABLE, False),  # a read-only server took the session
    -13: ("NEWCONFIGNOQUORUM", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -14: ("RECONFIGINPROGRESS", FailureClass.UPSTREAM_UNAVAILABLE, False),
    -1: ("SYSTEMERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -2: ("RUNTIMEINCONSISTENCY", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -3: ("DATAINCONSISTENCY", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -5: ("MARSHALLINGERROR", FailureClass.UPSTREAM_UNAVAILABLE, True),
    -6: ("UNIMPLEMENTED", FailureClass.UNKNOWN, False),
    -123: ("RECONFIGDISABLED", FailureClass.UNKNOWN, False),
}


def _zookeeper_code(exc: BaseException) -> Classification:
    code = _attribute(exc, "code")
    found = _ZOOKEEPER_CODES.get(code) if isinstance(code, int) else None
    if found is None:
        return Classification(FailureClass.UNKNOWN, upstream=Upstream("zookeeper", str(code)))
    name, failure_class, sent = found
    return Classification(failure_class, upstream=Upstream("zookeeper", name), side_effect_possible=sent)


def _kazoo_timeout(exc: BaseException) -> Classification:
    # KazooClient.start() waited for a session that never opened (refused, unresolvable, no answer to the handshake):
    # nothing was sent; elsewhere a request's answer did not come in time.
    tb = exc.__traceback__
    while tb is not None:
        if _function_name(tb.tb_frame) == "start" and str(tb.tb_frame.f_globals.get("__name__")) == "kazoo.client":
            return _unavailable(False, "zookeeper")(exc)
        tb = tb.tb_next
    return _unavailable(True, "zookeeper")(exc)


# Milvus's own error codes (``merr``, pkg/util/merr/errors.go), kept by pymilvus as ``MilvusException.code``. Several
# lie in 400-599 (400 replica not found, 503 channel not available): no HTTP statuses. A refusal of what the call named
# (not there, a value it may not use, a state it must first change: a collection not loaded) did nothing; the
# cluster's own state (not ready, recovering, a replica, channel or node it lacks) refused the call before acting.
_MILVUS_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((100, 200, 300, 700, 800, 1200, 1600, 1603, 1700), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((101, 102, 104, 105, 107, 201, 301, 302, 303, 701, 702, 801, 802, 1100, 1101, 1102, 1601, 1602,
                     1701, 1801, 1802, 1804, 1806), (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys((1400, 1401, 1800), (FailureClass.PERMISSION_DENIED, False)),
    **dict.fromkeys((4, 8, 9, 1807), (FailureClass.RATE_LIMITED, False)),  # request/rate limit, quota
    **dict.fromkeys((1, 2, 3, 6, 7, 11, 12, 103, 106, 202, 305, 400, 401, 500, 501, 503, 504, 600, 601, 602, 901, 902,
                     903, 905, 1303), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((5, 1000, 1001, 1002, 1302, 2000, 65535), (FailureClass.UPSTREAM_UNAVAILABLE, None)),
    10000: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # canceled inside the server, after it started
    10001: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # timed out inside the server
}


def _milvus_error(exc: BaseException) -> Classification | None:
    """pymilvus's ``MilvusException``: a gRPC status its retry gave up on (``code`` a ``grpc.StatusCode``), else
    Milvus's own code (:data:`_MILVUS_CODES`), else the server's verdict it keeps (``is_input_error``: the request
    was the caller's; ``retriable``: the cluster could not now). pymilvus's own default code 1 over another failure
    (a timeout of its retry loop) is no answer: the failure below decides."""
    if _grpc_status_name(exc) is not None:
        return _grpc_status(exc)
    code = _attribute(exc, "code")
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    if code == 1 and (exc.__cause__ is not None and exc.__cause__ is not exc):
        return None
    found = _MILVUS_CODES.get(code)
    if found is None and _attribute(exc, "is_input_error") is True:
        found = (FailureClass.INVALID_INPUT, False)
    elif found is None and _attribute(exc, "retriable") is True:
        found = (FailureClass.UPSTREAM_UNAVAILABLE, False)
    failure_class, side_effect = found or (FailureClass.UNKNOWN, None)
    return Classification(failure_class, upstream=Upstream("milvus", str(code)), side_effect_possible=side_effect)


# The Couchbase SDKs' error codes (couchbase-cxx-client's ``errc``, the Python SDK's ``couchbase.exceptions.ExceptionMap``:
# 1-99 common, 101-199 key-value, 301-399 analytics, 501-599 views) -> (class, may it have taken effect). A code the
# server answered refuses the operation whole (a KV operation is atomic); a timeout says in its code whether the
# operation was performed (ambiguous 13: maybe; unambiguous 14: not); the SDK's own argument check and the tool's
# query that does not parse are the tool's.
_COUCHBASE_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((2, 5), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # request canceled, internal server failure
    **dict.fromkeys((3, 8, 12, 15), (FailureClass.UNKNOWN, False)),  # invalid argument, parsing failure, unsupported
    **dict.fromkeys((4, 7, 14, 103, 108, 110), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # service not available,
    # temporary failure, unambiguous timeout, document locked, durability impossible, sync write in progress
    **dict.fromkeys((13, 109), (FailureClass.UPSTREAM_UNAVAILABLE, True)),  # ambiguous timeout, sync write ambiguous
    6: (FailureClass.PERMISSION_DENIED, False),  # authentication failure
    **dict.fromkeys((21, 22), (FailureClass.RATE_LIMITED, False)),  # rate limited, quota limited
    **dict.fromkeys((10, 11, 16, 101, 113, 303, 304, 502), (FailureClass.NOT_FOUND, False)),  # bucket, collection,
    # scope, document, sub-document path, dataset, dataverse, design document not found
    **dict.fromkeys((9, 18, 104, 105, 107, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 131, 305, 306),
                    (FailureClass.INVALID_INPUT, False)),  # CAS mismatch, exists already, value too large, a
    # sub-document path or value that does not fit the document, a durability level the bucket cannot give
}


def _couchbase_error(exc: BaseException) -> Classification | None:
    """A Couchbase SDK's ``CouchbaseException`` by its ``error_code`` (:data:`_COUCHBASE_CODES`); ``None`` (the class
    name decides) for a code not in the table."""
    code = _attribute(exc, "error_code")
    if not isinstance(code, int) or isinstance(code, bool) or code not in _COUCHBASE_CODES:
        return None
    failure_class, side_effect = _COUCHBASE_CODES[code]
    return Classification(failure_class, upstream=Upstream("couchbase", str(code)), side_effect_possible=side_effect)


# ArangoDB's error numbers (``errorNum``, https://docs.arangodb.com/stable/develop/error-codes/) whose meaning its HTTP
# status does not carry: an AQL query an operator killed comes as a 410 (it ran, what it wrote may stay: SQLSTATE
# 57's kin), the tool's own query that does not parse or names a function, a variable or a bind parameter there is
# none of as a 400 or a 404 (SQLSTATE class 42's kin: the tool's bug, not the caller's value or a missing record).
_ARANGO_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    1500: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # QUERY_KILLED
    **dict.fromkeys((1501, 1502, 1510, 1512, 1540, 1541, 1550, 1551, 1552),  # QUERY_PARSE, QUERY_EMPTY,
                    # QUERY_VARIABLE_NAME_INVALID, QUERY_VARIABLE_NAME_UNKNOWN, QUERY_FUNCTION_NAME_UNKNOWN,
                    # QUERY_FUNCTION_ARGUMENT_NUMBER_MISMATCH, QUERY_BIND_PARAMETERS_INVALID, _MISSING, _UNDECLARED
                    (FailureClass.UNKNOWN, False)),
}


def _arango_error(exc: BaseException) -> Classification | None:
    """python-arango's ``ArangoServerError``: the error number where :data:`_ARANGO_CODES` knows it better than the
    status, else the HTTP status; the upstream status is the error number either way."""
    number = _attribute(exc, "error_code")
    if not isinstance(number, int) or isinstance(number, bool):
        return _http_status(exc)
    if number in _ARANGO_CODES:
        failure_class, side_effect = _ARANGO_CODES[number]
        return Classification(failure_class, upstream=Upstream("arangodb", str(number), _request_address(exc)),
                              side_effect_possible=side_effect)
    result = _http_status(exc)
    if result is None or result.upstream is None:
        return result
    return replace(result, upstream=replace(result.upstream, system="arangodb", status=str(number)))


# The CQL native protocol's error codes (native_protocol_v4.spec §9, https://github.com/apache/cassandra/blob/trunk/doc/
# native_protocol_v4.spec; ScyllaDB answers the same) -> (class, may the statement have taken effect). The coordinator
# refused it before running it (unavailable: too few replicas alive; overloaded; bootstrapping; a refused login or
# permission; a request it would not take), or ran it and could not say how it ended (a write timeout or failure: the
# spec says some replicas may have applied it; a read timeout, as any timeout on a sent request); a syntax error or a
# misconfigured keyspace is the tool's own statement (SQLSTATE class 42's kin).
_CQL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    0x0000: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # server error
    0x000A: (FailureClass.UNKNOWN, False),  # protocol error: the driver's
    0x0100: (FailureClass.PERMISSION_DENIED, False),  # bad credentials
    **dict.fromkeys((0x1000, 0x1001, 0x1002), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    0x1003: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # truncate error
    **dict.fromkeys((0x1100, 0x1200, 0x1500, 0x1600), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    0x1300: (FailureClass.UPSTREAM_UNAVAILABLE, None),  # read failure
    0x1400: (FailureClass.INVALID_INPUT, False),  # a function failed on the statement's values
    0x2000: (FailureClass.UNKNOWN, False),  # syntax error
    0x2100: (FailureClass.PERMISSION_DENIED, False),  # unauthorized
    0x2200: (FailureClass.INVALID_INPUT, False),  # invalid: the request's values refused
    0x2300: (FailureClass.UNKNOWN, False),  # config error
    0x2400: (FailureClass.INVALID_INPUT, False),  # already exists
    0x2500: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # unprepared: the node forgot the prepared statement
}
# cassandra-driver's own classes for the error messages it converts (``ErrorMessage.to_exception``), which keep no code
_CQL_CLASS_CODES: Final = {"Unavailable": 0x1000, "WriteTimeout": 0x1100, "ReadTimeout": 0x1200, "ReadFailure": 0x1300,
                           "FunctionFailure": 0x1400, "WriteFailure": 0x1500, "CDCWriteFailure": 0x1600,
                           "InvalidRequest": 0x2200, "Unauthorized": 0x2100, "ConfigurationException": 0x2300,
                           "AlreadyExists": 0x2400, "AuthenticationFailed": 0x0100}


def _cql_error(exc: BaseException) -> Classification | None:
    """A CQL server's ERROR as cassandra-driver raises it (:data:`_CQL_CODES`): the error message itself (``.code``,
    ``cassandra.protocol``) or the driver's class for it; its client-side ``OperationTimedOut`` on a sent statement
    may have run (not sent when raised while connecting)."""
    if type(exc).__name__ == "OperationTimedOut":
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("cassandra", "OperationTimedOut"),
                              side_effect_possible=not _raised_connecting(exc, "cassandra"))
    code = _attribute(exc, "code")
    if not isinstance(code, int) or isinstance(code, bool):
        code = next((_CQL_CLASS_CODES[k.__name__] for k in type(exc).__mro__ if k.__name__ in _CQL_CLASS_CODES), None)
    if code not in _CQL_CODES:
        return None
    failure_class, side_effect = _CQL_CODES[code]
    return Classification(failure_class, upstream=Upstream("cassandra", f"{code:04x}"), side_effect_possible=side_effect)


# A Bolt server's status code on its FAILURE message, ``<Vendor>.<classification>.<category>.<title>`` (Neo4j's table,
# https://neo4j.com/docs/status-codes/current/errors/all-errors/; Memgraph answers in the same form): the classification
# says whose fault it is. ClientError: the request as sent (do not send it again as it is), the category and title say
# how; TransientError: the server's state for now, the transaction rolled back (nothing committed); DatabaseError: the
# server failed under the statement. The neo4j driver keeps it as ``.code`` on its ``Neo4jError``.
_BOLT_CODE: Final = re.compile(r"([A-Z][A-Za-z0-9]*)\.(ClientError|TransientError|DatabaseError)\.([A-Za-z]+)\.([A-Za-z]+)")


def _bolt_code(exc: BaseException) -> re.Match[str] | None:
    code = _attribute(exc, "code")
    return _BOLT_CODE.fullmatch(code) if isinstance(code, str) else None


def _bolt_failure(exc: BaseException) -> Classification | None:
    """A Bolt FAILURE's status code (:data:`_BOLT_CODE`): the security category is a refused credential or privilege
    (its rate limit of failed logins a rate limit), a title ending in ``NotFound`` a missing database, entity or
    procedure, the cluster category a member that cannot take the request (a write sent to a follower), as a database
    that is read-only (``ForbiddenOnReadOnlyDatabase``, ``ReadOnly``: a replica, not the caller's right), a terminated
    transaction (``Terminated``, ``LockClientStopped``: an operator's kill, which the driver files as a ClientError)
    the server's state; the request category is the driver's own protocol, no argument of the call; any other
    client error the statement or its parameters (syntax, types, a constraint the data breaks). The upstream status
    is the code's title (``SyntaxError``)."""
    match = _bolt_code(exc)
    if match is None:
        return None
    vendor, kind, category, title = match.groups()
    failure_class, side_effect = FailureClass.UPSTREAM_UNAVAILABLE, False
    if kind == "DatabaseError":
        side_effect = None
    elif "RateLimit" in title:
        failure_class = FailureClass.RATE_LIMITED
    elif (kind == "TransientError" or category == "Cluster" or "ReadOnly" in title
          or title in ("Terminated", "LockClientStopped")):
        pass
    elif category == "Security":
        failure_class = FailureClass.PERMISSION_DENIED
    elif title.endswith("NotFound"):
        failure_class = FailureClass.NOT_FOUND
    elif category == "Request":
        failure_class = FailureClass.UNKNOWN
    else:
        failure_class = FailureClass.INVALID_INPUT
    # the title names the failure within its category (the whole code outgrows a label: 32 characters)
    system = "neo4j" if vendor == "Neo" else vendor.lower()
    return Classification(failure_class, upstream=Upstream(system, title), side_effect_possible=side_effect)
