"""A small payments API for the demo: ``python -m errscope.demo.payments --port PORT``.

Real HTTP (Starlette on uvicorn, 127.0.0.1 only). Orders belong to tenants; a caller authenticates
with its tenant's API key (``Authorization: Bearer <key>``).

``POST /v1/orders/{order_id}/refunds`` ``{"amount": 40.0}``
    201 with the refund; an order of another tenant answers 404 (existence is not revealed);
    an amount over what is left answers 422. A repeated ``Idempotency-Key`` (same tenant) returns
    the first answer with ``Idempotent-Replayed: true`` and refunds nothing more.

Faults, armed by the demo through ``POST /_admin/faults`` ``{"kind": ..., "count": n}`` and
consumed by the next ``n`` refund requests:

- ``rate_limit``: 429 with ``Retry-After`` (``retry_after`` seconds);
- ``outage``: 503;
- ``stall``: the request is applied, then the answer is held for ``seconds`` (longer than the
  caller's timeout: the side effect happened, the caller never hears it). Notifications and
  receipts honour ``stall`` too (and consume any other fault without acting on it).
- ``maintenance``: 200 with an HTML maintenance page instead of JSON (what a proxy in front of
  an API answers during a deploy); nothing is refunded. The tool's ``response.json()`` fails on
  it: class ``upstream_unavailable`` (the answer is the upstream's fault), and the root cause on
  the span and log says why.

``POST /v1/orders/{order_id}/notifications`` ``{"message": "..."}``
    201: one message sent to the order's customer. No idempotency key: each request sends one more.

``GET /v1/orders/{order_id}/receipt``
    200 with the order's refunds (read only).

``GET /_admin/stats`` returns the counters the demo uses to prove exactly-once.

Every error body carries a planted credential (:data:`PLANTED_SECRETS`, all containing ``FAKE``),
the way real upstreams echo DSNs, keys and headers into their errors. None of them may ever reach
the model or the telemetry.
"""

from __future__ import annotations

import argparse
import hashlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

__all__ = ["ORDERS", "PLANTED_SECRETS", "TENANT_KEYS", "PaymentsAPI", "main"]

PLANTED_SECRETS: Final = (
    "postgresql://payments:FAKE-Pg-Pa55word-7f3k@ledger-db.internal:5432/payments",
    "sk_live_FAKE4a8b9c0d1e2f3a4b5c6d7e8f",
    "Bearer FAKEtok3n-0123456789abcdefXYZ",
    "FAKE-admin-Pa55-9q8w7e",
)
"""Fake credentials planted in error bodies; tests assert none of them (nor their ``FAKE`` cores) leaks."""

_DSN, _STRIPE, _BEARER, _ADMIN = PLANTED_SECRETS

_FAULTS: Final = ("rate_limit", "outage", "stall", "maintenance")

TENANT_KEYS: Final = {"pk_demo_acme": "acme", "pk_demo_globex": "globex"}
"""API key -> tenant. The refund server acts for ``acme``."""

ORDERS: Final = {
    "ord_1001": ("acme", 4000.00, "EUR"),  # room for 50 rounds of 40.00
    "ord_1002": ("acme", 35.50, "EUR"),
    "ord_2002": ("globex", 99.00, "USD"),
}
"""Order id -> (tenant, amount, currency)."""


@dataclass
class Refund:
    refund_id: str
    order_id: str
    amount: float
    currency: str

    def json(self) -> dict[str, Any]:
        return {"refund_id": self.refund_id, "order_id": self.order_id, "amount": self.amount,
                "currency": self.currency, "status": "succeeded"}


@dataclass
class PaymentsAPI:
    """State of the API: orders, refunds applied, idempotency records, armed faults, counters."""

    refunded: dict[str, float] = field(default_factory=lambda: dict.fromkeys(ORDERS, 0.0))
    refunds: list[Refund] = field(default_factory=list)
    by_key: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    faults: deque[dict[str, Any]] = field(default_factory=deque)
    requests: int = 0
    replays: int = 0
    statuses: list[int] = field(default_factory=list)
    keys: dict[str, int] = field(default_factory=dict)
    notifications: list[dict[str, str]] = field(default_factory=list)
    receipts: int = 0

    def _error(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
        self.statuses.append(status)
        return JSONResponse(body, status_code=status, headers=headers)

    def _next_fault(self) -> dict[str, Any] | None:
        fault = self.faults[0] if self.faults else None
        if fault is not None:
            fault["count"] -= 1
            if fault["count"] <= 0:
                self.faults.popleft()
        return fault

    def _order_of(self, request: Request) -> tuple[str, JSONResponse | None]:
        """The order id, or the answer for a caller without a key or an order of another tenant."""
        order_id = request.path_params["order_id"]
        tenant = TENANT_KEYS.get(request.headers.get("authorization", "").removeprefix("Bearer ").strip())
        if tenant is None:
            return order_id, self._error(401, {"error": "unauthenticated", "hint": f"expected {_BEARER}"})
        order = ORDERS.get(order_id)
        if order is None or order[0] != tenant:
            return order_id, self._error(404, {"dsn": _DSN, "error": f"order {order_id} not found"})
        return order_id, None

    async def _stall(self, fault: dict[str, Any] | None) -> None:
        if fault is not None and fault["kind"] == "stall":
            await anyio.sleep(float(fault.get("seconds", 10)))  # applied; the answer comes too late

    async def refund(self, request: Request) -> JSONResponse:
        self.requests += 1
        order_id = request.path_params["order_id"]
        auth = request.headers.get("authorization", "")
        tenant = TENANT_KEYS.get(auth.removeprefix("Bearer ").strip())
        if tenant is None:
            return self._error(401, {"error": "unauthenticated", "hint": f"expected {_BEARER}"})
        key = request.headers.get("idempotency-key")
        if key:
            digest = hashlib.sha256(key.encode()).hexdigest()[:16]
            self.keys[digest] = self.keys.get(digest, 0) + 1
        fault = self._next_fault()
        if fault is not None:
            if fault["kind"] == "rate_limit":
                return self._error(
                    429,
                    {"error": f"rate limit exceeded for key {_STRIPE}", "limit": "5/min"},
                    {"Retry-After": str(int(fault.get("retry_after", 30)))},
                )
            if fault["kind"] == "outage":
                return self._error(503, {"upstream": f"Authorization: {_BEARER}", "error": "ledger unavailable"})
            if fault["kind"] == "maintenance":
                self.statuses.append(200)
                return HTMLResponse(f"<html><body>Down for maintenance. Contact {_ADMIN}</body></html>")
        try:
            body = await request.json()
            amount = float(body["amount"])
        except (ValueError, KeyError, TypeError):
            return self._error(400, {"error": "amount is required", "password": _ADMIN})
        order = ORDERS.get(order_id)
        if order is None or order[0] != tenant:
            return self._error(404, {"dsn": _DSN, "error": f"order {order_id} not found"})
        if key and (tenant, key) in self.by_key:
            self.replays += 1
            self.statuses.append(201)
            return JSONResponse(self.by_key[(tenant, key)], status_code=201, headers={"Idempotent-Replayed": "true"})
        _, total, currency = order
        if amount <= 0 or self.refunded[order_id] + amount > total + 1e-9:
            return self._error(422, {"error": f"amount must be between 0 and {total - self.refunded[order_id]:.2f}",
                                     "dsn": _DSN})
        self.refunded[order_id] += amount
        refund = Refund(f"re_{len(self.refunds) + 1:04d}", order_id, amount, currency)
        self.refunds.append(refund)
        answer = refund.json()
        if key:
            self.by_key[(tenant, key)] = answer
        await self._stall(fault)
        self.statuses.append(201)
        return JSONResponse(answer, status_code=201, headers={"Idempotent-Replayed": "false"})

    async def notify(self, request: Request) -> JSONResponse:
        order_id, refused = self._order_of(request)
        if refused is not None:
            return refused
        fault = self._next_fault()
        try:
            message = str((await request.json())["message"])
        except (ValueError, KeyError, TypeError):
            return self._error(400, {"error": "message is required", "password": _ADMIN})
        self.notifications.append({"order_id": order_id, "message": message})
        await self._stall(fault)
        return JSONResponse({"notification_id": f"nt_{len(self.notifications):04d}", "order_id": order_id},
                            status_code=201)

    async def receipt(self, request: Request) -> JSONResponse:
        order_id, refused = self._order_of(request)
        if refused is not None:
            return refused
        fault = self._next_fault()
        self.receipts += 1
        await self._stall(fault)
        _, total, currency = ORDERS[order_id]
        return JSONResponse({"order_id": order_id, "total": total, "currency": currency,
                             "refunded": self.refunded[order_id]})

    async def arm(self, request: Request) -> JSONResponse:
        fault = await request.json()
        if fault.get("kind") not in _FAULTS or int(fault.get("count", 1)) < 1:
            return JSONResponse({"error": f"kind must be one of {', '.join(_FAULTS)}; count >= 1"}, status_code=400)
        self.faults.append({**fault, "count": int(fault.get("count", 1))})
        return JSONResponse({"armed": list(self.faults)})

    async def disarm(self, request: Request) -> JSONResponse:
        self.faults.clear()
        return JSONResponse({"armed": []})

    async def stats(self, request: Request) -> JSONResponse:
        return JSONResponse({
            "refunds_applied": len(self.refunds),
            "refunds": [r.json() for r in self.refunds],
            "requests": self.requests,
            "replays": self.replays,
            "statuses": self.statuses,
            "requests_by_key_hash": self.keys,
            "notifications_sent": len(self.notifications),
            "receipts_served": self.receipts,
        })

    async def health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/v1/orders/{order_id}/refunds", self.refund, methods=["POST"]),
            Route("/v1/orders/{order_id}/notifications", self.notify, methods=["POST"]),
            Route("/v1/orders/{order_id}/receipt", self.receipt, methods=["GET"]),
            Route("/_admin/faults", self.arm, methods=["POST"]),
            Route("/_admin/faults", self.disarm, methods=["DELETE"]),
            Route("/_admin/stats", self.stats, methods=["GET"]),
            Route("/healthz", self.health, methods=["GET"]),
        ])


def main(argv: list[str] | None = None) -> None:
    """Serve the API on 127.0.0.1:PORT until terminated."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m errscope.demo.payments", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    uvicorn.run(PaymentsAPI().app(), host="127.0.0.1", port=args.port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=1)


if __name__ == "__main__":
    main()
