"""HDFS over WebHDFS through HdfsCLI (the ``hdfs`` package, over requests), against real sockets on 127.0.0.1.

``HdfsError`` keeps the answer's ``RemoteException``: its ``message`` and the name of the NameNode's Java exception as
``exception``, never the status (https://hadoop.apache.org/docs/stable/hadoop-project-dist/hadoop-hdfs/WebHDFS.html#Error_Responses:
the status follows the Java class, IOException's family all 403). The Java class is what says what happened; the
messages are the NameNode's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener, silent_listener

REMOTE_EXCEPTIONS = [
    # (status, Java class, the NameNode's message, class, side effect possible)
    (404, "FileNotFoundException", "File /data/out.csv does not exist.", C.NOT_FOUND, False),
    (403, "AccessControlException",
     'Permission denied: user=etl, access=WRITE, inode="/data":hdfs:supergroup:drwxr-xr-x', C.PERMISSION_DENIED, False),
    (403, "FileAlreadyExistsException", "/data/out.csv for client 127.0.0.1 already exists", C.INVALID_INPUT, False),
    (400, "IllegalArgumentException", 'Invalid value for webhdfs parameter "permission": Invalid value: "999" does not '
     "belong to the domain ^[0-1]?[0-7][0-7][0-7]$", C.INVALID_INPUT, False),
    (403, "SafeModeException", "Cannot create file/data/out.csv. Name node is in safe mode.\nThe reported blocks 0 "
     "needs additional 12 blocks to reach the threshold 0.9990 of total blocks 12.", C.UPSTREAM_UNAVAILABLE, False),
    (403, "StandbyException", "Operation category WRITE is not supported in state standby. "
     "Visit https://s.apache.org/sbnn-error", C.UPSTREAM_UNAVAILABLE, False),
]


def _write(url: str) -> Callable[[], Any]:
    hdfs = pytest.importorskip("hdfs")
    client = hdfs.InsecureClient(url, user="etl", timeout=1)
    return lambda: client.write("/data/out.csv", data=b"order,amount\n17,40\n")


@pytest.mark.parametrize(("status", "java_class", "message", "failure_class", "side_effect"), REMOTE_EXCEPTIONS)
def test_remote_exception(upstream: HttpUpstream, status: int, java_class: str, message: str, failure_class: C,
                          side_effect: bool) -> None:
    body = json.dumps({"RemoteException": {"exception": java_class, "message": message,
                                           "javaClassName": f"org.apache.hadoop.hdfs.{java_class}"}})
    exc = raised(_write(upstream.scripted(status, body)))
    assert (type(exc).__name__, exc.exception) == ("HdfsError", java_class)  # type: ignore[attr-defined]
    check(exc, failure_class, side_effect)


def test_authentication_refused(upstream: HttpUpstream) -> None:
    check(raised(_write(upstream.scripted(401, ""))), C.PERMISSION_DENIED, False)


def test_server_error_without_its_status(upstream: HttpUpstream) -> None:
    """A 500 with the NameNode's RuntimeException: HdfsCLI keeps neither the status nor anything that says it failed
    while handling the write."""
    body = json.dumps({"RemoteException": {"exception": "RuntimeException", "message": "java.lang.NullPointerException",
                                           "javaClassName": "java.lang.RuntimeException"}})
    check(raised(_write(upstream.scripted(500, body))), C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                     ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    check(raised(_write(upstream.failing(where))), C.UPSTREAM_UNAVAILABLE, side_effect)


def test_closed_after_the_request() -> None:
    with closing_listener(read_first=True) as port:
        exc = raised(_write(f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_no_answer() -> None:
    with silent_listener() as port:
        exc = raised(_write(f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
