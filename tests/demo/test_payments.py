"""The demo's payments API and the refund tool's mapping of its answers, in process."""

from __future__ import annotations

import time

import httpx
import pytest
from starlette.testclient import TestClient

import errscope
from errscope import FailureClass
from errscope.demo.payments import PLANTED_SECRETS, PaymentsAPI
from errscope.demo.refund_server import upstream_failure

ACME = {"Authorization": "Bearer pk_demo_acme"}


@pytest.fixture
def api() -> TestClient:
    return TestClient(PaymentsAPI().app())


def refund(api: TestClient, order: str = "ord_1001", amount: float = 40.0, key: str | None = None) -> httpx.Response:
    headers = {**ACME, **({"Idempotency-Key": key} if key else {})}
    return api.post(f"/v1/orders/{order}/refunds", json={"amount": amount}, headers=headers)


class TestPaymentsAPI:
    def test_refund_is_applied_and_counted(self, api: TestClient) -> None:
        response = refund(api)
        assert response.status_code == 201
        assert response.json() == {"refund_id": "re_0001", "order_id": "ord_1001", "amount": 40.0,
                                   "currency": "EUR", "status": "succeeded"}
        assert api.get("/_admin/stats").json()["refunds_applied"] == 1

    def test_same_key_replays_and_refunds_nothing_more(self, api: TestClient) -> None:
        """A repeated Idempotency-Key returns the first answer, marked replayed."""
        first, second = refund(api, key="k-1"), refund(api, key="k-1")
        assert first.json() == second.json()
        assert (first.headers["idempotent-replayed"], second.headers["idempotent-replayed"]) == ("false", "true")
        stats = api.get("/_admin/stats").json()
        assert (stats["refunds_applied"], stats["replays"]) == (1, 1)
        assert list(stats["requests_by_key_hash"].values()) == [2]

    def test_another_tenants_order_is_not_found(self, api: TestClient) -> None:
        """404, as for an order that does not exist: existence is not revealed across tenants."""
        theirs, missing = refund(api, "ord_2002"), refund(api, "ord_9999")
        assert theirs.status_code == missing.status_code == 404
        assert PLANTED_SECRETS[0] in theirs.text

    def test_unauthenticated(self, api: TestClient) -> None:
        assert api.post("/v1/orders/ord_1001/refunds", json={"amount": 1}).status_code == 401

    def test_over_refund_is_refused(self, api: TestClient) -> None:
        assert refund(api, "ord_1002", 35.51).status_code == 422
        assert refund(api, "ord_1002", 35.50).status_code == 201

    def test_faults_are_consumed_in_order(self, api: TestClient) -> None:
        """rate_limit (429 + Retry-After), outage (503) x2, then normal service; every error body plants a secret."""
        api.post("/_admin/faults", json={"kind": "rate_limit", "count": 1, "retry_after": 30})
        api.post("/_admin/faults", json={"kind": "outage", "count": 2})
        answers = [refund(api) for _ in range(4)]
        assert [a.status_code for a in answers] == [429, 503, 503, 201]
        assert answers[0].headers["retry-after"] == "30"
        assert all("FAKE" in a.text for a in answers[:3])

    def test_stall_applies_then_answers_late(self, api: TestClient) -> None:
        """The refund is counted before the answer is held back."""
        api.post("/_admin/faults", json={"kind": "stall", "count": 1, "seconds": 0.3})
        started = time.monotonic()
        assert refund(api, key="k-stall").status_code == 201
        assert time.monotonic() - started >= 0.3
        assert refund(api, key="k-stall").headers["idempotent-replayed"] == "true"

    def test_notification_is_sent_then_stalls(self, api: TestClient) -> None:
        """A stalled notification is counted before its answer is held back; no key, so a repeat sends again."""
        api.post("/_admin/faults", json={"kind": "stall", "count": 1, "seconds": 0.3})
        started = time.monotonic()
        first = api.post("/v1/orders/ord_1001/notifications", json={"message": "hi"}, headers=ACME)
        assert time.monotonic() - started >= 0.3
        second = api.post("/v1/orders/ord_1001/notifications", json={"message": "hi"}, headers=ACME)
        assert [r.json()["notification_id"] for r in (first, second)] == ["nt_0001", "nt_0002"]
        assert api.get("/_admin/stats").json()["notifications_sent"] == 2

    def test_notification_and_receipt_of_another_tenant(self, api: TestClient) -> None:
        assert api.post("/v1/orders/ord_2002/notifications", json={"message": "hi"}, headers=ACME).status_code == 404
        assert api.get("/v1/orders/ord_2002/receipt", headers=ACME).status_code == 404
        assert api.get("/_admin/stats").json()["notifications_sent"] == 0

    def test_receipt_shows_refunds(self, api: TestClient) -> None:
        refund(api, amount=12.5)
        assert api.get("/v1/orders/ord_1001/receipt", headers=ACME).json() == {
            "order_id": "ord_1001", "total": 4000.0, "currency": "EUR", "refunded": 12.5}
        assert api.get("/_admin/stats").json()["receipts_served"] == 1

    def test_bad_fault_is_refused(self, api: TestClient) -> None:
        assert api.post("/_admin/faults", json={"kind": "meteor", "count": 1}).status_code == 400


class TestUpstreamFailure:
    """Each non-2xx answer becomes the errscope leaf of its class, chained from httpx's error."""

    @pytest.mark.parametrize(("status", "leaf", "cls"), [
        (404, errscope.NotFound, FailureClass.NOT_FOUND),
        (401, errscope.PermissionDenied, FailureClass.PERMISSION_DENIED),
        (422, errscope.InvalidInput, FailureClass.INVALID_INPUT),
        (429, errscope.RateLimited, FailureClass.RATE_LIMITED),
        (503, errscope.UpstreamUnavailable, FailureClass.UPSTREAM_UNAVAILABLE),
        (418, errscope.ToolFailure, FailureClass.UNKNOWN),
    ])
    def test_mapping(self, status: int, leaf: type[errscope.ToolFailure], cls: FailureClass) -> None:
        request = httpx.Request("POST", "http://127.0.0.1:8000/v1/orders/ord_1/refunds")
        response = httpx.Response(status, request=request, text='{"error": "x", "dsn": "FAKE"}',
                                  headers={"Retry-After": "12"} if status == 429 else {})
        failure = upstream_failure(response, "ord_1")
        assert type(failure) is leaf
        classification = errscope.classify(failure)
        assert classification.failure_class is cls
        assert classification.upstream == errscope.Upstream("http", str(status), "127.0.0.1:8000")
        assert str(failure) == response.text  # what the upstream said: for the (scrubbed) log record only
        assert "FAKE" not in (failure.public_message or "")
        if status == 429:
            assert classification.retry_after == 12.0

    def test_success_is_not_a_failure(self) -> None:
        request = httpx.Request("POST", "http://127.0.0.1:8000/x")
        with pytest.raises(AssertionError):
            upstream_failure(httpx.Response(201, request=request), "ord_1")
