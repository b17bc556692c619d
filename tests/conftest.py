"""Shared test plumbing: the rule that CI never passes by skipping."""

from __future__ import annotations

import os
import shutil

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
