"""scripts/stackrun.py's readiness wait: stretched by the machine's load, yet a real failure fails at once and says why."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from scripts import stackrun


class _Sleeper(stackrun._Process):
    what = "sleeper"


def test_load_factor_is_load_per_cpu_between_one_and_the_cap() -> None:
    factor = stackrun.load_factor()
    expected = os.getloadavg()[0] / (os.cpu_count() or 1)
    assert 1.0 <= factor <= stackrun.MAX_LOAD_FACTOR
    assert factor == pytest.approx(min(stackrun.MAX_LOAD_FACTOR, max(1.0, expected)), abs=0.5)  # the load moves


def test_a_process_that_exits_fails_at_once_whatever_the_wait(tmp_path: Path) -> None:
    process = _Sleeper(tmp_path)
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"(?s)sleeper exited 3:\n.*boom"):
        process._spawn([sys.executable, "-c", "print('boom'); raise SystemExit(3)"], None, lambda: False, 600)
    assert time.monotonic() - started < 60


def test_a_process_never_ready_is_stopped_and_the_message_says_how_long_and_why(tmp_path: Path) -> None:
    process = _Sleeper(tmp_path)
    argv = [sys.executable, "-c", "print('starting', flush=True); import time; time.sleep(600)"]
    with pytest.raises(RuntimeError) as failure:
        process._spawn(argv, None, lambda: False, 0.3)
    message = str(failure.value)
    assert message.startswith("sleeper not ready within ")
    assert "0.3s stretched x" in message and "CPUs; it used " in message and "s of CPU):\nstarting" in message
    assert not process.running  # stopped, not left behind
