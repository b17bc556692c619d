"""Fixtures the foreign-peer tests share: the asyncio backend and captured telemetry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from errscope.testing import CapturedTelemetry


@pytest.fixture
def telemetry() -> Iterator[CapturedTelemetry]:
    with CapturedTelemetry.installed() as captured:
        yield captured
