"""GitPython (the git the official MCP git server drives) against real repositories and a real HTTP server on 127.0.0.1.

``GitCommandError`` keeps the command's exit status and git's own words (``stderr``, else ``stdout``): those words
are all that tells a missing revision from a refused push or an unreachable remote. git's HTTP transport is libcurl:
an error status reaches stderr as "The requested URL returned error: 503", a 401 as git's credential prompt refused
("could not read Username ... terminal prompts disabled"), a 404 as "repository '...' not found". GitPython's own
lookups raise ``InvalidGitRepositoryError``/``NoSuchPathError`` and gitdb's ``BadName``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

git = pytest.importorskip("git")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HttpUpstream  # noqa: E402


@pytest.fixture(autouse=True)
def _no_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    # a tool's git has no terminal: an HTTP 401 fails at once instead of asking for a login
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("gitpython")
    work = git.Repo.init(root / "work", initial_branch="main")
    with work.config_writer() as config:
        config.set_value("user", "name", "errscope").set_value("user", "email", "errscope@example.invalid")
    (root / "work" / "a.txt").write_text("a")
    work.index.add(["a.txt"])
    work.index.commit("one")
    work.git.branch("feature")
    yield work
    work.close()


@pytest.mark.parametrize(("action", "failure_class"), [
    pytest.param(lambda r: r.git.checkout("no-such-branch"), C.NOT_FOUND, id="checkout_unknown_branch"),
    pytest.param(lambda r: r.git.show("HEAD:missing.txt"), C.NOT_FOUND, id="show_missing_path"),
    pytest.param(lambda r: r.git.diff("HEAD~5"), C.NOT_FOUND, id="diff_unknown_revision"),
    pytest.param(lambda r: r.git.log("no-such-ref", "--"), C.NOT_FOUND, id="log_unknown_revision"),
    pytest.param(lambda r: r.git.merge("no-such-branch"), C.NOT_FOUND, id="merge_unknown_branch"),
    pytest.param(lambda r: r.git.cat_file("-p", "0123456789abcdef0123456789abcdef01234567"), C.NOT_FOUND,
                 id="cat_file_unknown_object"),
    pytest.param(lambda r: r.git.branch("feature"), C.INVALID_INPUT, id="branch_exists"),  # a conflict (HTTP 409's)
    pytest.param(lambda r: r.git.log("--bogus-option"), C.INVALID_INPUT, id="unknown_option"),
    pytest.param(lambda r: r.git.frobnicate(), C.INVALID_INPUT, id="unknown_subcommand"),
    pytest.param(lambda r: r.git.commit("-m", "nothing staged"), C.INVALID_INPUT, id="nothing_to_commit"),
])
def test_command_refused(repo: Any, action: Callable[[Any], Any], failure_class: C) -> None:
    exc = raised(lambda: action(repo))
    assert isinstance(exc, git.GitCommandError) and exc.status in (1, 128, 129)
    result = check(exc, failure_class, None)  # a program's exit does not say whether it did part of its work
    assert result.upstream is None


@pytest.mark.parametrize(("open_it", "exc_type", "side_effect"), [
    # NoSuchPathError is an OSError raised with a text only (no errno): as a FileNotFoundError so raised
    pytest.param(lambda tmp: git.Repo(tmp / "not-there"), "NoSuchPathError", None, id="no_such_path"),
    pytest.param(lambda tmp: git.Repo(tmp), "InvalidGitRepositoryError", False, id="not_a_repository"),
])
def test_no_repository(tmp_path: Path, open_it: Callable[[Path], Any], exc_type: str, side_effect: bool | None) -> None:
    exc = raised(lambda: open_it(tmp_path))
    assert type(exc).__name__ == exc_type
    check(exc, C.NOT_FOUND, side_effect)


@pytest.mark.parametrize("name", ["0123456789abcdef", "no-such-branch", "HEAD~9"])
def test_revision_that_resolves_to_nothing(repo: Any, name: str) -> None:
    exc = raised(lambda: repo.commit(name))
    assert type(exc).__name__ == "BadName"
    check(exc, C.NOT_FOUND, False)


def _clone(base: str, tmp: Path) -> Callable[[], Any]:
    return lambda: git.Repo.clone_from(f"{base}/repo.git", tmp / "clone")


@pytest.mark.parametrize(("status", "failure_class", "side_effect", "upstream_status"), [
    (401, C.PERMISSION_DENIED, None, None),  # git asks for a login it may not prompt for: no status in its words
    (403, C.PERMISSION_DENIED, False, "403"),
    (404, C.NOT_FOUND, None, None),  # "repository '...' not found"
    (429, C.RATE_LIMITED, False, "429"),
    (500, C.UPSTREAM_UNAVAILABLE, True, "500"),
    (502, C.UPSTREAM_UNAVAILABLE, True, "502"),
    (503, C.UPSTREAM_UNAVAILABLE, False, "503"),
])
def test_clone_answered_with_status(upstream: HttpUpstream, tmp_path: Path, status: int, failure_class: C,
                                    side_effect: bool | None, upstream_status: str | None) -> None:
    exc = raised(_clone(upstream.scripted(status, "no"), tmp_path))
    assert isinstance(exc, git.GitCommandError) and exc.status == 128
    result = check(exc, failure_class, side_effect)
    if upstream_status is None:
        assert result.upstream is None
    else:
        assert result.upstream == type(result.upstream)("http", upstream_status, f"127.0.0.1:{upstream.port}")


def test_clone_login_refused(upstream: HttpUpstream, tmp_path: Path) -> None:
    # credentials in the URL, answered 401: "Authentication failed for '...'"
    base = upstream.scripted(401, "").replace("http://", "http://bot:wrong@")
    check(raised(_clone(base, tmp_path)), C.PERMISSION_DENIED, None)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True)])
def test_clone_transport(upstream: HttpUpstream, tmp_path: Path, where: str, side_effect: bool) -> None:
    exc = raised(_clone(upstream.failing(where), tmp_path))
    assert isinstance(exc, git.GitCommandError)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def test_clone_local_repository_not_there(tmp_path: Path) -> None:
    exc = raised(lambda: git.Repo.clone_from(str(tmp_path / "nowhere"), tmp_path / "clone"))
    check(exc, C.NOT_FOUND, None)


def test_push_rejected(tmp_path: Path) -> None:
    # another clone pushed first: the remote refuses a non-fast-forward update (a conflict, nothing pushed)
    bare = git.Repo.init(tmp_path / "bare.git", bare=True, initial_branch="main")
    ours, theirs = (git.Repo.clone_from(bare.working_dir, tmp_path / name) for name in ("ours", "theirs"))
    for clone, name in ((ours, "ours"), (theirs, "theirs")):
        with clone.config_writer() as config:
            config.set_value("user", "name", name).set_value("user", "email", f"{name}@example.invalid")
        (Path(clone.working_dir) / f"{name}.txt").write_text(name)
        clone.index.add([f"{name}.txt"])
        clone.index.commit(name)
    theirs.git.push("origin", "HEAD:main")
    exc = raised(lambda: ours.git.push("origin", "HEAD:main"))
    assert isinstance(exc, git.GitCommandError)
    check(exc, C.INVALID_INPUT, None)


@pytest.mark.parametrize(("argv", "failure_class"), [
    (["git", "show", "HEAD:missing.txt"], C.NOT_FOUND),
    (["git", "checkout", "no-such-branch"], C.NOT_FOUND),
    (["git", "branch", "feature"], C.INVALID_INPUT),
])
def test_subprocess_with_captured_stderr(repo: Any, argv: list[str], failure_class: C) -> None:
    # the same git run by subprocess.run(check=True): CalledProcessError keeps what was captured
    exc = raised(lambda: subprocess.run(argv, cwd=repo.working_dir, check=True, capture_output=True,
                                        env={**os.environ, "LC_ALL": "C"}))
    assert isinstance(exc, subprocess.CalledProcessError) and isinstance(exc.stderr, bytes)
    check(exc, failure_class, None)


def test_subprocess_without_captured_output(repo: Any) -> None:
    # nothing captured: the exit status alone says nothing
    exc = raised(lambda: subprocess.run(["git", "show", "HEAD:missing.txt"], cwd=repo.working_dir, check=True,
                                        stderr=subprocess.DEVNULL))
    check(exc, C.UNKNOWN, None)


@pytest.mark.parametrize("lookup", [
    pytest.param(lambda r: r.head.commit.tree / "missing.txt", id="tree_path"),  # KeyError
    pytest.param(lambda r: r.head.commit.tree["docs/missing.md"], id="tree_item"),  # KeyError
    pytest.param(lambda r: r.heads["no-such-branch"], id="head"),  # IndexError
    pytest.param(lambda r: r.tags["v9.9.9"], id="tag"),  # IndexError
    pytest.param(lambda r: r.remote("no-such-remote"), id="remote"),  # ValueError("Remote named ... didn't exist")
])
def test_lookup_finds_nothing(repo: Any, lookup: Callable[[Any], Any]) -> None:
    # GitPython's own lookups answer with the builtin errors, raised in its code
    check(raised(lambda: lookup(repo)), C.NOT_FOUND, False)
