"""Shared test plumbing: the rule that CI never passes by skipping, and how pytest-xdist shares out the tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

REQUIRE_STACK = os.environ.get("ERRSCOPE_REQUIRE_STACK") == "1"


def require(condition: bool, reason: str) -> None:
    """Skip with ``reason`` when ``condition`` is false, or fail under ERRSCOPE_REQUIRE_STACK=1."""
    if condition:
        return
    if REQUIRE_STACK:
        pytest.fail(f"ERRSCOPE_REQUIRE_STACK=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def require_executable(name: str) -> str:
    """Return the path of ``name`` on PATH, or skip/fail as :func:`require` does."""
    path = shutil.which(name)
    require(path is not None, f"{name} is not installed")
    assert path is not None
    return path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    """Under ERRSCOPE_REQUIRE_STACK=1 a skipped test is a failure: say so loudly."""
    if REQUIRE_STACK and terminalreporter.stats.get("skipped"):
        terminalreporter.write_line("ERRSCOPE_REQUIRE_STACK=1: skipped tests are not allowed", red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if REQUIRE_STACK and reporter is not None and reporter.stats.get("skipped"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def anyio_backend() -> str:
    """The async tests run on asyncio only (the SDK's own backend), not on anyio's default asyncio + trio."""
    return "asyncio"


@pytest.fixture(autouse=True)
def _process_directory_kept() -> Iterator[None]:
    """Fail the test that leaves the process in another directory, and put the directory back.

    The directory is the worker's, shared by every later test on it: one in-process server that called
    ``os.chdir`` into a temporary directory made twenty tests on the same worker fail far from the cause.
    """
    before = os.getcwd()
    yield
    try:
        after: str | None = os.getcwd()
    except FileNotFoundError:
        after = None
    if after != before:
        os.chdir(before)
        pytest.fail(f"the test left the process in {after or 'a deleted directory'}, not {before}", pytrace=False)


_SHARED_SCOPES = ("class", "module", "package", "session")  # narrowest first


def xdist_group(item: pytest.Item) -> str | None:
    """The tests that must run on the same xdist worker as ``item``, or None when it can run on any.

    A fixture of this project wider than a function (a module's database, a directory's Collector and
    Prometheus) is started once per worker that runs a test using it: the tests sharing the widest such
    fixture go together. Its class or module for a class- or module-scoped fixture, the fixture's own
    directory (its conftest's) or module for a session- or package-scoped one. pytest's and plugins'
    fixtures (``tmp_path_factory``, ``anyio_backend``) are cheap and bind nothing.
    """
    info = getattr(item, "_fixtureinfo", None)
    widest: tuple[int, str] | None = None
    for name in item.fixturenames if info is not None else ():
        definitions = info.name2fixturedefs.get(name)
        if not definitions or not definitions[-1].baseid or definitions[-1].scope not in _SHARED_SCOPES:
            continue
        rank = _SHARED_SCOPES.index(definitions[-1].scope)
        parts = item.nodeid.split("::")
        key = definitions[-1].baseid if rank >= 2 else "::".join(parts[: 2 if rank == 0 and len(parts) > 2 else 1])
        if widest is None or rank > widest[0]:
            widest = (rank, key)
    return widest[1] if widest else None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (the Makefile's ``test``), a group runs whole on one worker; a
    test's own ``@pytest.mark.xdist_group`` wins."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = None if item.get_closest_marker("xdist_group") else xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
