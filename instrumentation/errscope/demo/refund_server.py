"""The demo's MCP server: ``refund_order(order_id, amount)`` over the payments API.

``python -m errscope.demo.refund_server --payments URL --out DIR [--http PORT]`` serves stdio by
default, streamable HTTP on 127.0.0.1:PORT (path ``/mcp``) with ``--http``.

This is the shape errscope asks of a real tool server, in a few lines:

- ``errscope.instrument(server)``: one SERVER span per call, the duration metric, one scrubbed log
  record per failure, argument validation against the input schema, httpx calls as child spans;
- failures raised as errscope's exception family, chained ``from`` the httpx error so the upstream
  status and address land on the tool span; ``str(exc)`` (what the upstream said, scrubbed) goes
  to the log record, ``public_message`` to the model;
- the caller's idempotency key (``_meta["io.errscope/idempotency_key"]``) forwarded upstream as
  ``Idempotency-Key`` through :class:`errscope.idempotency.Idempotency`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Final

import httpx
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

import errscope
from errscope import FailureClass
from errscope._call import current_call
from errscope.idempotency import Idempotency, idempotency_key_of, keys_honoured

__all__ = ["SERVICE_NAME", "build_server", "main"]

SERVICE_NAME: Final = "errscope-demo-refunds"
NOTIFY_TIMEOUT: Final = 1.0
"""Seconds ``notify_customer`` waits for the payments API: shorter than a client's timeout, so its own
read timeout is what fails the call (the request was sent: the message may have gone out)."""
API_KEY_VARIABLE: Final = "ERRSCOPE_DEMO_PAYMENTS_KEY"
DEFAULT_API_KEY: Final = "pk_demo_acme"

_LEAVES: Final[dict[FailureClass, type[errscope.ToolFailure]]] = {
    FailureClass.NOT_FOUND: errscope.NotFound,
    FailureClass.PERMISSION_DENIED: errscope.PermissionDenied,
    FailureClass.RATE_LIMITED: errscope.RateLimited,
    FailureClass.UPSTREAM_UNAVAILABLE: errscope.UpstreamUnavailable,
    FailureClass.INVALID_INPUT: errscope.InvalidInput,
    FailureClass.UNKNOWN: errscope.ToolFailure,
}
_PUBLIC: Final = {
    FailureClass.NOT_FOUND: "order {order_id} was not found for this account",
    FailureClass.PERMISSION_DENIED: "this account may not refund orders",
    FailureClass.RATE_LIMITED: "the payments API is rate limiting refunds",
    FailureClass.UPSTREAM_UNAVAILABLE: "the payments API is unavailable",
    FailureClass.INVALID_INPUT: "the payments API refused this amount for order {order_id}",
    FailureClass.UNKNOWN: "the payments API answered unexpectedly",
}


def upstream_failure(response: httpx.Response, order_id: str) -> errscope.ToolFailure:
    """The errscope exception for a non-2xx answer, chained from httpx's so the upstream is recorded."""
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        classification = errscope.classify(exc)
        cls = classification.failure_class
        said = response.text[:600]  # what the upstream said: logged (scrubbed), never shown to the model
        public = _PUBLIC[cls].format(order_id=order_id)
        failure: errscope.ToolFailure
        if cls is FailureClass.RATE_LIMITED:
            failure = errscope.RateLimited(said, retry_after=classification.retry_after, public_message=public)
        else:
            failure = _LEAVES[cls](said, public_message=public)
        failure.__cause__ = exc
        return failure
    raise AssertionError("upstream_failure() called with a successful response")


def build_server(payments_url: str, api_key: str = DEFAULT_API_KEY) -> MCPServer:
    """The refund server, not yet instrumented."""
    server = MCPServer("errscope-demo-refunds")
    idempotency = Idempotency()
    clients: dict[str, httpx.AsyncClient] = {}

    def http() -> httpx.AsyncClient:
        # Created on first use, after errscope.instrument() has instrumented httpx.
        if "payments" not in clients:
            clients["payments"] = httpx.AsyncClient(
                base_url=payments_url, timeout=30, headers={"Authorization": f"Bearer {api_key}"}
            )
        return clients["payments"]

    @server.tool()
    @keys_honoured
    async def refund_order(
        order_id: Annotated[str, Field(description="The order to refund, e.g. ord_1001")],
        amount: Annotated[float, Field(gt=0, description="Amount to refund, in the order's currency")],
        ctx: Context,
    ) -> str:
        """Refund part or all of an order. Send an idempotency key in _meta so a retry never refunds twice."""

        async def refund(headers: dict[str, str]) -> str:
            response = await http().post(f"/v1/orders/{order_id}/refunds", json={"amount": amount}, headers=headers)
            if response.is_error:
                raise upstream_failure(response, order_id)
            body = response.json()
            if response.headers.get("idempotent-replayed") == "true":
                call = current_call()
                if call is not None:
                    call.replayed = True  # metric label and span attribute errscope.idempotency.replayed
            return (
                f"Refunded {body['amount']:.2f} {body['currency']} on order {body['order_id']} "
                f"(refund {body['refund_id']}, {body['status']})."
            )

        return await idempotency.run(
            idempotency_key_of(ctx), tool="refund_order", arguments={"order_id": order_id, "amount": amount}, action=refund
        )

    @server.tool()
    async def notify_customer(
        order_id: Annotated[str, Field(description="The order whose customer to tell, e.g. ord_1001")],
        message: Annotated[str, Field(min_length=1, description="What to tell the customer")],
    ) -> str:
        """Send the order's customer a message through the payments API. Each call sends one more message."""
        response = await http().post(f"/v1/orders/{order_id}/notifications", json={"message": message},
                                     timeout=NOTIFY_TIMEOUT)  # an httpx.ReadTimeout here is classified by errscope
        if response.is_error:
            raise upstream_failure(response, order_id)
        return f"Sent notification {response.json()['notification_id']} to the customer of order {order_id}."

    @server.tool()
    async def order_receipt(
        order_id: Annotated[str, Field(description="The order, e.g. ord_1001")],
    ) -> str:
        """The order's total and how much of it was refunded.

        The classic bug, kept on purpose: a *blocking* HTTP call (httpx's sync client) inside an
        ``async def`` tool holds the server's event loop. While it waits, the server reads nothing,
        not even the client's ``notifications/cancelled``; the answer is written when the call
        returns, after the client gave up (a late response). The fix: ``httpx.AsyncClient``, or
        ``await anyio.to_thread.run_sync(...)`` around the blocking call.
        """
        response = httpx.get(f"{payments_url}/v1/orders/{order_id}/receipt",  # blocks the event loop
                             headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
        if response.is_error:
            raise upstream_failure(response, order_id)
        body = response.json()
        return f"Order {order_id}: {body['total']:.2f} {body['currency']}, {body['refunded']:.2f} refunded."

    return server


def _exit_on_sigterm() -> None:
    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(0)  # unwinds into the finally that flushes telemetry

    signal.signal(signal.SIGTERM, stop)


def _flush_through_sigterm() -> None:
    """From here on a SIGTERM does not cut the flush short. A stdio host closes our stdin, waits, then sends SIGTERM
    and later SIGKILL (MCP, Lifecycle > Shutdown > stdio); SIGTERM raising here would drop the spans of the last calls,
    which are exactly the ones being flushed."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> None:
    from errscope.demo._telemetry import demo_telemetry

    parser = argparse.ArgumentParser(prog="python -m errscope.demo.refund_server", description=__doc__.splitlines()[0])
    parser.add_argument("--payments", required=True, help="base URL of the payments API")
    parser.add_argument("--out", type=Path, required=True, help="folder for OTLP-JSON files")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args(argv)
    _exit_on_sigterm()
    telemetry = demo_telemetry(SERVICE_NAME, args.out, metric_interval=2.0)
    server = build_server(args.payments, os.environ.get(API_KEY_VARIABLE, DEFAULT_API_KEY))
    errscope.instrument(server, **telemetry.providers)
    try:
        if args.http is None:
            server.run("stdio")
        else:
            import uvicorn

            uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=args.http,
                        log_level="warning")
    except KeyboardInterrupt:
        pass
    finally:
        _flush_through_sigterm()
        telemetry.shutdown()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
