"""Soak (issue #16 item 4): hundreds of reconnects and mixed calls leave memory and every table flat.

Bounded for CI (200 reconnect cycles, about a minute); ``make soak`` runs the same for ten minutes.
"""

from __future__ import annotations

import pytest

from bench.soak import run

pytestmark = pytest.mark.timeout(300)

CYCLES = 200


def test_reconnects_and_mixed_calls_keep_memory_and_tables_flat() -> None:
    """After a warm-up, 200 lost-and-reopened sessions (800+ calls) grow no table and hardly any memory."""
    report = run(cycles=CYCLES)
    print(report)  # the figures the README quotes
    start, end = report["start"], report["end"]
    assert report["reconnects"] >= CYCLES and report["calls"] >= 3 * CYCLES
    assert report["outcomes"]["ok"] >= CYCLES and report["outcomes"]["timeout"] >= CYCLES // 10
    # Per-connection tables went with their connections: none grew with the reconnects.
    for table in ("connections", "wire_pending", "wire_recent", "tool_schemas", "idempotency_results"):
        assert end["tables"][table] <= max(start["tables"][table], 2), (table, start, end)
    assert end["tables"]["wire_pending"] == 0
    assert end["tables"]["key_links"] <= 1024  # bounded and expiring (10 min), not per connection
    # Before issue #16 every lost session kept its wire tap and attempts (+6 MB per 150 sessions).
    # 200 sessions may cost allocator noise, not a per-session leak: under 8 MiB, 40 KiB a session.
    assert end["rss_mb"] - start["rss_mb"] < 8.0, report
    assert end["server_rss_mb"] - start["server_rss_mb"] < 8.0, report
