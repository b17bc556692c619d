"""The shared HTTP upstream of the traffic generators answers the status its path names."""

from __future__ import annotations

import httpx

from tests.status_upstream import status_upstream


def test_status_and_retry_after() -> None:
    """Each status comes back as asked; ``Retry-After`` only on a 429, and only when configured."""
    with status_upstream() as plain, status_upstream(retry_after="0") as hinted, httpx.Client() as client:
        for status in (200, 404, 418, 503):
            assert client.get(f"{plain}/status/{status}").status_code == status
        assert "Retry-After" not in client.get(f"{plain}/status/429").headers
        assert client.get(f"{hinted}/status/429").headers["Retry-After"] == "0"
        assert "Retry-After" not in client.get(f"{hinted}/status/503").headers
