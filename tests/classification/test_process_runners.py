"""Programs a tool runs, failing for real, through the libraries that run them: ``subprocess`` (``check=True``, output
captured), sh (``ErrorReturnCode``), plumbum (``ProcessExecutionError``) and invoke, Fabric's runner (``UnexpectedExit``,
its ``result``). The exit status says only that the program failed; its own words on stderr say what failed: curl's
against a real HTTP server on 127.0.0.1 (libcurl's "The requested URL returned error: 503", "Couldn't connect to
server"), coreutils' and git's. A shell's 127 is a command it could not find: a program that never started.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream, closed_port, silent_listener

sh = pytest.importorskip("sh")
plumbum = pytest.importorskip("plumbum")
invoke = pytest.importorskip("invoke")


def _subprocess(argv: list[str]) -> Any:
    return subprocess.run(argv, check=True, capture_output=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})


def _sh(argv: list[str]) -> Any:
    return sh.Command(argv[0])(*argv[1:], _env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})


def _plumbum(argv: list[str]) -> Any:
    with plumbum.local.env(LC_ALL="C"):
        return plumbum.local[argv[0]](*argv[1:])


def _invoke(argv: list[str]) -> Any:
    return invoke.run(shlex.join(argv), hide=True, in_stream=False, env={"LC_ALL": "C"})


RUNNERS = [pytest.param(_subprocess, id="subprocess"), pytest.param(_sh, id="sh"),
           pytest.param(_plumbum, id="plumbum"), pytest.param(_invoke, id="invoke")]


@pytest.fixture(scope="module")
def stalled() -> Iterator[int]:
    with silent_listener() as port:
        yield port


def _curl(url: str, max_time: str = "10") -> list[str]:
    # 10 s: an answer always comes well inside it, whatever the machine's load; only the stalled listener runs it out
    return ["curl", "-sS", "--fail", "--max-time", max_time, url]


@pytest.mark.parametrize("run", RUNNERS)
@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (404, C.NOT_FOUND, False),
    (429, C.RATE_LIMITED, False),
    (500, C.UPSTREAM_UNAVAILABLE, True),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_curl_answered_with_status(upstream: HttpUpstream, run: Callable[[list[str]], Any], status: int,
                                   failure_class: C, side_effect: bool) -> None:
    exc = raised(lambda: run(_curl(upstream.scripted(status, "no") + "/refunds/17")))
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("run", RUNNERS)
def test_curl_refused(run: Callable[[list[str]], Any]) -> None:
    check(raised(lambda: run(_curl(f"http://127.0.0.1:{closed_port()}/"))), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("run", RUNNERS)
def test_curl_unresolvable(run: Callable[[list[str]], Any]) -> None:
    check(raised(lambda: run(_curl("http://upstream.errscope.invalid/"))), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("run", RUNNERS)
def test_curl_never_answered(run: Callable[[list[str]], Any], stalled: int) -> None:
    # connected and sent, then curl's --max-time ran out: "Operation timed out after 500 milliseconds"
    check(raised(lambda: run(_curl(f"http://127.0.0.1:{stalled}/", "0.5"))), C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("run", RUNNERS)
@pytest.mark.parametrize(("argv", "failure_class"), [
    (["ls", "/nonexistent/refunds"], C.NOT_FOUND),  # "cannot access ...: No such file or directory"
    (["cat", "/root/.errscope-no-such-file"], C.NOT_FOUND),
    (["git", "-C", "/", "log", "-1"], C.NOT_FOUND),  # "not a git repository"
    (["git", "--no-such-option"], C.INVALID_INPUT),  # "unknown option"
    (["sh", "-c", "exit 3"], C.UNKNOWN),  # nothing said: the status alone tells nothing
])
def test_program_says_why(run: Callable[[list[str]], Any], argv: list[str], failure_class: C) -> None:
    check(raised(lambda: run(argv)), failure_class, None)


def test_shell_cannot_find_the_command() -> None:
    # invoke runs through a shell: 127 "command not found", a program that never started
    exc = raised(lambda: _invoke(["errscope-no-such-program", "--help"]))
    assert isinstance(exc, invoke.exceptions.UnexpectedExit) and exc.result.exited == 127
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("find", [
    pytest.param(lambda: sh.Command("errscope-no-such-program"), id="sh"),
    pytest.param(lambda: plumbum.local["errscope-no-such-program"], id="plumbum"),
    pytest.param(lambda: subprocess.run(["errscope-no-such-program"], check=True), id="subprocess"),
])
def test_program_not_on_the_path(find: Callable[[], Any]) -> None:
    check(raised(find), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("run_out_of_time", [
    pytest.param(lambda: subprocess.run(["sleep", "5"], timeout=0.2), id="subprocess"),
    pytest.param(lambda: sh.sleep("5", _timeout=0.2), id="sh"),
    pytest.param(lambda: plumbum.local["sleep"].run("5", timeout=0.2), id="plumbum"),
    pytest.param(lambda: invoke.run("sleep 5", timeout=0.2, hide=True, in_stream=False), id="invoke"),
])
def test_program_killed_when_its_time_ran_out(run_out_of_time: Callable[[], Any]) -> None:
    # it had started and was running: whatever it does may have happened
    check(raised(run_out_of_time), C.UPSTREAM_UNAVAILABLE, True)
