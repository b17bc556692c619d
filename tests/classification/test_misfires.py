"""Ordinary failures where the held-failure, status-in-message, failed-program and foreign-text rules could misfire.

Each case is a real exception (a real library, a real program run through ``subprocess``, sh, plumbum, invoke or
GitPython, a real refused connection on 127.0.0.1) or a text such a tool or server really writes, with the class
DESIGN.md gives it: the tool's own bug stays ``unknown`` (a gap, alerted on); a number that is a count, a port or a
2xx status is no HTTP error status; a warning a program wrote before failing for another reason names nothing; a
usage limit named in passing is no rate limit; a JSON-RPC error's benign ``data`` says nothing.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from errscope import FailureClass as C
from errscope._classify import class_for_jsonrpc_error
from errscope._foreign_text import classify_text
from tests.classification.conftest import check, raised
from tests.classification.upstreams import closed_port

sh = pytest.importorskip("sh")
plumbum = pytest.importorskip("plumbum")
invoke = pytest.importorskip("invoke")
git = pytest.importorskip("git")

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com",
       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"}


# --- the held failure: only a report of what the frame held, never the tool's own bug ---------------------------


def _refused_url() -> str:
    return f"http://127.0.0.1:{closed_port()}/v1/items"


def test_attribute_error_after_a_retry_loop_is_the_tools_bug() -> None:
    """A retry loop kept the refused connection in ``last``; the tool then mistyped an attribute of it: the
    ``AttributeError`` is the tool's own bug (unknown), not the upstream's outage it happened to hold."""
    url = _refused_url()

    def tool() -> int:
        last: httpx.TransportError | None = None
        for _ in range(2):
            try:
                return httpx.get(url, timeout=2).status_code
            except httpx.TransportError as exc:
                last = exc
        return last.respones.status_code  # type: ignore[union-attr]  # the tool's typo

    check(raised(tool), C.UNKNOWN, None)


def test_type_error_beside_a_held_failure_is_the_tools_bug() -> None:
    url = _refused_url()

    def tool() -> int:
        failures: list[Exception] = []
        try:
            httpx.get(url, timeout=2)
        except httpx.ConnectError as exc:
            failures.append(exc)
        return len(None)  # type: ignore[arg-type]

    check(raised(tool), C.UNKNOWN, None)


def test_key_error_of_the_tool_holding_a_failed_task() -> None:
    """A ``KeyError`` reading the tool's own dict, in a frame that holds a failed job: the tool's bug."""
    import asyncio

    url = _refused_url()

    async def tool() -> str:
        async def job() -> str:
            async with httpx.AsyncClient(timeout=2) as http:
                return (await http.get(url)).text

        task = asyncio.create_task(job())
        await asyncio.wait([task])
        summary: dict[str, str] = {}
        return summary["status"]

    check(raised(tool), C.UNKNOWN, None)


def test_a_value_error_after_an_unrelated_handled_key_error_stays_unknown() -> None:
    def tool() -> None:
        config: dict[str, int] = {}
        missing: KeyError | None = None
        for key in ("timeout", "retries"):
            try:
                config[key]
            except KeyError as exc:
                missing = exc
        raise ValueError(f"limit must be positive (defaults used for {missing})")

    check(raised(tool), C.UNKNOWN, None)


def test_the_report_of_a_held_failure_still_takes_its_class() -> None:
    """Guard: the rule still reads a ``RuntimeError`` that reports the held refusal."""
    url = _refused_url()

    def tool() -> None:
        last: Exception | None = None
        for _ in range(2):
            try:
                httpx.get(url, timeout=2)
                return
            except httpx.TransportError as exc:
                last = exc
        raise RuntimeError(f"gave up: {last}")

    check(raised(tool), C.UPSTREAM_UNAVAILABLE, False)


# --- an HTTP status named in a rule-less exception's message ------------------------------------------------------


@pytest.mark.parametrize(("message", "failure_class"), [
    ("processed 404 records, 3 skipped", C.UNKNOWN),
    ("could not bind port 5030: already in use", C.UNKNOWN),
    ("unexpected HTTP/1.1 200 OK with an empty body", C.UNKNOWN),
    ("status 200 but the body was empty", C.UNKNOWN),
    ("invalid status 'closed': must be one of open, pending", C.UNKNOWN),
    ("Status 4xx from the mirror", C.UNKNOWN),
    ("Request failed with status code 429", C.RATE_LIMITED),
    ("expected status 200, got status 404", C.NOT_FOUND),
    ("API returned HTTP/1.1 503 Service Unavailable", C.UPSTREAM_UNAVAILABLE),
    ("sync failed: 503 Service Unavailable", C.UPSTREAM_UNAVAILABLE),
    # a record's number before another status's reason phrase is no status (only a status's own phrase makes one)
    ("Order 500 not found", C.UNKNOWN),
    ("Customer 403 not found", C.UNKNOWN),
    ("Ticket 512 not found", C.UNKNOWN),
    ("upstream said statusCode: 401", C.PERMISSION_DENIED),
    ("Job status: 500 items remaining", C.UNKNOWN),  # a number and a plural noun count things
    ("Job status: 503 errors since noon", C.UPSTREAM_UNAVAILABLE),  # a status's own plural is no count
])
def test_numbers_in_a_tools_message(message: str, failure_class: C) -> None:
    def tool() -> None:
        raise RuntimeError(message)

    assert __import__("errscope").classify(raised(tool)).failure_class is failure_class


@pytest.mark.parametrize(("text", "failure_class"), [
    # the JDK's UnknownHostException for a lookup its negative cache answered: the host alone, no failure named
    ("upstream.invalid", C.UNKNOWN),
    ("GET https://payments.invalid/v1/orders failed", C.UNKNOWN),
    ("HTTPSConnectionPool(host='api.invalid', port=443): Max retries exceeded", C.UNKNOWN),
    ("upstream.invalid: Name or service not known", C.UPSTREAM_UNAVAILABLE),
    ("The amount is invalid.", C.INVALID_INPUT),
    ("errors.invalidAmount", C.INVALID_INPUT),
])
def test_a_host_names_label_is_no_word_of_the_message(text: str, failure_class: C) -> None:
    """RFC 6761 reserves ``.invalid`` for names that never resolve: as a host's label it says nothing of the call's
    arguments."""
    assert classify_text(text) is failure_class


@pytest.mark.parametrize("error", [
    KeyError("There is no item named 'summary.csv' in the archive"),
    ValueError("document closed or encrypted"),
    OSError("image file is truncated"),
])
def test_a_librarys_words_raised_by_the_tool_are_the_tools(error: Exception) -> None:
    """Guard: zipfile's, PyMuPDF's and Pillow's words are read when their code raised them (test_archives,
    test_more_document_readers, test_pillow); the same builtin raised by the tool is the author's, and stays unknown."""
    def tool() -> None:
        raise error

    check(raised(tool), C.UNKNOWN, None)


def test_grep_that_selected_nothing(tmp_path: Path) -> None:
    """grep's exit 1 is "no lines selected" (POSIX), its answer; the pattern's words in the exception's text (its command
    line) are no failure's."""
    (tmp_path / "hosts").write_text("db1 10.0.0.5\n")
    check(raised(lambda: _subprocess(["grep", "connection refused", str(tmp_path / "hosts")])), C.UNKNOWN, None)


def test_a_status_word_before_a_long_run_of_blanks_is_read_fast() -> None:
    """A padded column (``status`` and then blanks, no number) costs the status rule one pass, not one per blank."""
    started = time.perf_counter()
    result = __import__("errscope").classify(RuntimeError("status" + " " * 40_000 + "x"))
    assert time.perf_counter() - started < 2.0  # ~10 ms here; the rule's backtracking took ~30 s
    assert result.failure_class is C.UNKNOWN


def test_a_programming_error_naming_a_status_stays_unknown() -> None:
    """``KeyError('status 404')`` out of the tool's own dict: its bug, whatever the key says."""
    def tool() -> None:
        {"status 200": 1}["status 404"]

    check(raised(tool), C.UNKNOWN, None)


# --- failed programs: their own words, not the warnings beside them -----------------------------------------------


def _subprocess(argv: list[str]) -> Any:
    return subprocess.run(argv, check=True, capture_output=True, env=ENV)


def _sh(argv: list[str]) -> Any:
    return sh.Command(argv[0])(*argv[1:], _env=ENV)


def _plumbum(argv: list[str]) -> Any:
    with plumbum.local.env(LC_ALL="C"):
        return plumbum.local[argv[0]](*argv[1:])


def _invoke(argv: list[str]) -> Any:
    return invoke.run(shlex.join(argv), hide=True, in_stream=False, env={"LC_ALL": "C"})


RUNNERS = [pytest.param(_subprocess, id="subprocess"), pytest.param(_sh, id="sh"),
           pytest.param(_plumbum, id="plumbum"), pytest.param(_invoke, id="invoke")]


@pytest.mark.parametrize("run", RUNNERS)
@pytest.mark.parametrize(("script", "failure_class"), [
    # a warning on stderr, then an exit whose cause it does not name (grep's 1: no line matched)
    ("echo 'warning: could not connect to the cache, continuing without it' >&2; exit 1", C.UNKNOWN),
    ("echo 'DeprecationWarning: quota_exceeded is deprecated' >&2; exit 2", C.UNKNOWN),
    ("echo 'hint: the rate limit header was missing' >&2; exit 3", C.UNKNOWN),
    ("echo 'npm WARN deprecated request@2.88.2: rate limit handling moved' >&2; exit 1", C.UNKNOWN),
    # the warning beside the real failure: the failure decides
    ("echo 'warning: usage limits change next month' >&2; echo 'error: unknown option --since' >&2; exit 129",
     C.INVALID_INPUT),
    ("echo 'WARNING: retrying' >&2; echo 'curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused' >&2;"
     " exit 7", C.UPSTREAM_UNAVAILABLE),
])
def test_a_programs_warnings_name_nothing(run: Callable[[list[str]], Any], script: str, failure_class: C) -> None:
    result = __import__("errscope").classify(raised(lambda: run(["sh", "-c", script])))
    assert result.failure_class is failure_class, result


@pytest.mark.parametrize("run", RUNNERS)
@pytest.mark.parametrize(("script", "failure_class"), [
    # a test run's output on stdout names tests and numbers, not what failed upstream
    ("echo 'FAILED tests/test_api.py::test_rate_limit - AssertionError: assert 200 == 429'; "
     "echo 'FAILED tests/test_api.py::test_missing_user - assert 404 == 200'; echo '2 failed, 20 passed in 0.51s'; exit 1",
     C.UNKNOWN),
    # a report the program prints before its verdict: only the verdict, its last line, is read
    ("echo 'mirror-a: connection refused'; echo 'mirror-b: ok'; echo 'checksum mismatch in 1 file'; exit 1",
     C.UNKNOWN),
    ("echo 'On branch main'; echo 'nothing to commit, working tree clean'; exit 1", C.INVALID_INPUT),
])
def test_a_programs_stdout_is_its_data_but_its_last_line(run: Callable[[list[str]], Any], script: str,
                                                          failure_class: C) -> None:
    result = __import__("errscope").classify(raised(lambda: run(["sh", "-c", script])))
    assert result.failure_class is failure_class, result


def test_diff_that_found_differences(tmp_path: Path) -> None:
    (tmp_path / "a.conf").write_text("timeout = 30\n")
    (tmp_path / "b.conf").write_text("timeout = 60\n# hosts that are not found are skipped\n")
    check(raised(lambda: _subprocess(["diff", str(tmp_path / "a.conf"), str(tmp_path / "b.conf")])), C.UNKNOWN, None)


def test_pip_retry_warnings_name_the_cause(tmp_path: Path) -> None:
    """Guard: pip's "WARNING: Retrying (...) after connection broken by ...: Connection refused" before its "ERROR:
    Could not find a version": the retried failure ended the program (an index not reached), so a warning that says
    it retried is read."""
    argv = [sys.executable, "-m", "pip", "download", "--no-cache-dir", "--isolated",
            "-d", str(tmp_path), "--index-url", f"http://127.0.0.1:{closed_port()}/simple", "--retries", "1",
            "--no-deps", "requests"]
    exc = raised(lambda: subprocess.run(argv, check=True, capture_output=True, env={**ENV, "PIP_FIND_LINKS": ""}))
    assert b"Retrying" in exc.stderr, exc.stderr
    assert __import__("errscope").classify(exc).failure_class is C.UPSTREAM_UNAVAILABLE


def _repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True, env=ENV)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=a", "-c", "user.email=a@example.com", "commit",
                    "-q", "--allow-empty", "-m", "first"], check=True, env=ENV)
    return tmp_path


@pytest.mark.parametrize(("args", "failure_class"), [
    (["branch", "main"], C.INVALID_INPUT),  # a branch name that is taken: a conflict, not a missing thing
    (["checkout", "no-such-branch"], C.NOT_FOUND),
    (["checkout", "-b", "main"], C.INVALID_INPUT),
    (["commit", "-m", "nothing"], C.INVALID_INPUT),
    (["log", "--frobnicate"], C.INVALID_INPUT),
    (["show", "deadbeef"], C.NOT_FOUND),
])
def test_git_through_subprocess_and_gitpython(tmp_path: Path, args: list[str], failure_class: C) -> None:
    repo = _repo(tmp_path)
    by_subprocess = raised(lambda: _subprocess(["git", "-C", str(repo), *args]))
    assert __import__("errscope").classify(by_subprocess).failure_class is failure_class, by_subprocess.stderr
    by_gitpython = raised(lambda: _gitpython(repo, args))
    assert __import__("errscope").classify(by_gitpython).failure_class is failure_class, by_gitpython


def test_git_tag_and_remote_that_exist(tmp_path: Path) -> None:
    repo = git.Repo(_repo(tmp_path))
    repo.git.tag("v1")
    repo.git.remote("add", "origin", "https://example.invalid/a.git")
    for exc in (raised(lambda: repo.git.tag("v1")),
                raised(lambda: repo.git.remote("add", "origin", "https://example.invalid/a.git"))):
        check(exc, C.INVALID_INPUT, None)


def test_a_python_crash_in_a_program_is_unknown() -> None:
    exc = raised(lambda: _subprocess([sys.executable, "-c", "import os; os.environ['NO_SUCH_VARIABLE']"]))
    check(exc, C.UNKNOWN, None)


# --- foreign text -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "failure_class"), [
    ("Quota usage: 12% of the monthly usage limits", C.UNKNOWN),
    ("Your quota has been increased to 5000 requests per day", C.UNKNOWN),
    ("The usage limits page lists each plan's allowance", C.UNKNOWN),
    ("You have reached your specified API usage limits. You will regain access on 2026-01-01", C.RATE_LIMITED),
    ("This request exceeds your plan's set usage limit. Please upgrade your plan", C.RATE_LIMITED),
    ("monthly usage limit exceeded", C.RATE_LIMITED),
    ("Error: You exceeded your current quota, please check your plan and billing details", C.RATE_LIMITED),
    ("Request was Canceled by the user before it completed", C.UNKNOWN),
    ("Internal note: the export finished with 3 warnings", C.UNKNOWN),
    ("the task ended with StatusCode.OK but no rows", C.UNKNOWN),
    ('Status { code: Internal, message: "db down" }', C.UPSTREAM_UNAVAILABLE),
    ("fatal: a branch named 'feature' already exists", C.INVALID_INPUT),
    ("fatal: destination path 'repo' already exists and is not an empty directory.", C.INVALID_INPUT),
    ("remote: Repository not found.\nfatal: repository 'https://github.com/a/b.git/' not found", C.NOT_FOUND),
    ("fatal: unable to access 'https://github.com/a/b.git/': The requested URL returned error: 403",
     C.PERMISSION_DENIED),
    ("Everything up-to-date", C.UNKNOWN),
    ("processed 404 records", C.UNKNOWN),
    ("upstream answered 503 responses to every retry", C.UPSTREAM_UNAVAILABLE),
])
def test_foreign_text(text: str, failure_class: C) -> None:
    assert classify_text(text) is failure_class


@pytest.mark.parametrize(("message", "data", "failure_class"), [
    ("Internal error", {"error": None, "status": "ok", "requestId": "abc"}, C.UNKNOWN),
    ("Internal error", {"status": 200, "error": "none"}, C.UNKNOWN),
    ("Internal error", {"retryable": True, "error_count": 0, "errors": []}, C.UNKNOWN),
    ("Internal error", {"cause": "TypeError: cannot read properties of undefined (reading 'id')"}, C.UNKNOWN),
    ("Internal error", {"error": "connect ECONNREFUSED 127.0.0.1:5432"}, C.UPSTREAM_UNAVAILABLE),
    ("Internal error", {"error": {"message": "table users not found"}}, C.NOT_FOUND),
    ("Internal error", {"status": 429}, C.RATE_LIMITED),
    # a message that names its cause is not overridden by data
    ("Invalid arguments: limit must be positive", {"error": "rate limit"}, C.INVALID_INPUT),
])
def test_jsonrpc_error_data(message: str, data: Any, failure_class: C) -> None:
    assert class_for_jsonrpc_error(-32603, message, data) is failure_class


def _gitpython(repo: Path, args: list[str]) -> Any:
    runner = git.Repo(repo).git
    runner.update_environment(**{key: value for key, value in ENV.items() if key.startswith("GIT_")})
    return getattr(runner, args[0])(*args[1:])
