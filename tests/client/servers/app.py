"""In-process test rig: a real HTTP upstream that counts side effects, and an errscope-instrumented
MCP server whose tools call it through :class:`errscope.idempotency.Idempotency`.

Both are served by uvicorn on 127.0.0.1 (see :func:`serve`), in the test's own process, so client
and server spans land in the same in-memory exporter.
"""

from __future__ import annotations

import random
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import errscope
from errscope.idempotency import Idempotency, idempotency_key_of, keys_honoured


@dataclass
class Upstream:
    """A payments/clusters API that honours ``Idempotency-Key`` and counts what it applied."""

    stall_ratio: float = 0.0
    stall_seconds: float = 0.0
    cluster_ready_after: float = 0.0
    seed: int = 7
    effects: int = 0
    applied: dict[str, dict[str, Any]] = field(default_factory=dict)
    clusters: dict[str, float] = field(default_factory=dict)
    requests: int = 0
    keys_seen: list[str | None] = field(default_factory=list)
    stalled: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    async def charge(self, request: Request) -> JSONResponse:
        # Counted once the whole request is in: a call cancelled while its body was still arriving (a client
        # timeout under load) never reached the charge, and counting its head made effects < requests.
        body = await request.json()
        self.requests += 1
        key = request.headers.get("idempotency-key")
        self.keys_seen.append(key)
        if key is not None and key in self.applied:
            return JSONResponse(self.applied[key])
        self.effects += 1
        answer = {"charge_id": f"ch-{self.effects}", "amount": body.get("amount")}
        if key is not None:
            self.applied[key] = answer
        if self._random.random() < self.stall_ratio:
            self.stalled.append(key)
            await anyio.sleep(self.stall_seconds)  # applied, but the answer comes too late
        return JSONResponse(answer)

    async def create_cluster(self, request: Request) -> JSONResponse:
        self.requests += 1
        key = request.headers.get("idempotency-key")
        self.keys_seen.append(key)
        if key is not None and key in self.applied:
            return JSONResponse(self.applied[key])
        self.effects += 1
        cluster_id = f"{self.effects - 1:04d}-FAKE"
        self.clusters[cluster_id] = anyio.current_time()
        answer = {"cluster_id": cluster_id}
        if key is not None:
            self.applied[key] = answer
        return JSONResponse(answer)

    async def cluster_state(self, request: Request) -> JSONResponse:
        created = self.clusters[request.path_params["cluster_id"]]
        running = anyio.current_time() - created >= self.cluster_ready_after
        return JSONResponse({"state": "RUNNING" if running else "PENDING"})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/charges", self.charge, methods=["POST"]),
                Route("/clusters", self.create_cluster, methods=["POST"]),
                Route("/clusters/{cluster_id}", self.cluster_state, methods=["GET"]),
            ]
        )


@dataclass
class ToolServer:
    """The MCP server under test; ``in_flight`` counts tool bodies currently running."""

    upstream_url: str
    telemetry: dict[str, Any]
    in_flight: int = 0
    idempotency: Idempotency = field(default_factory=Idempotency)

    def build(self) -> MCPServer:
        server = MCPServer("payments", log_level="WARNING")  # per-request INFO logs cost more than the call
        rig = self
        # Longer than any stall a test arms: the client's timer, not the tool's, must end a stalled call.
        http = httpx.AsyncClient(
            base_url=self.upstream_url, timeout=300, limits=httpx.Limits(max_connections=1000, max_keepalive_connections=200)
        )

        @server.tool()
        @keys_honoured
        async def charge(account: str, amount: int, ctx: Context) -> str:
            """Charge an account (side effect upstream)."""

            async def act(headers: dict[str, str]) -> str:
                response = await http.post("/charges", json={"account": account, "amount": amount}, headers=headers)
                response.raise_for_status()
                return str(response.json()["charge_id"])

            rig.in_flight += 1
            try:
                return await rig.idempotency.run(
                    idempotency_key_of(ctx), tool="charge", arguments={"account": account, "amount": amount}, action=act
                )
            finally:
                rig.in_flight -= 1

        @server.tool()
        async def charge_plain(account: str, amount: int) -> str:
            """Charge an account with no idempotency key: not safe to repeat."""
            rig.in_flight += 1
            try:
                response = await http.post("/charges", json={"account": account, "amount": amount})
                response.raise_for_status()
                return str(response.json()["charge_id"])
            finally:
                rig.in_flight -= 1

        @server.tool()
        @keys_honoured
        async def create_cluster(name: str, ctx: Context) -> str:
            """Create a cluster and wait until it runs (D14)."""

            async def act(headers: dict[str, str]) -> str:
                response = await http.post("/clusters", json={"name": name}, headers=headers)
                cluster_id = str(response.json()["cluster_id"])
                while (await http.get(f"/clusters/{cluster_id}")).json()["state"] != "RUNNING":
                    await anyio.sleep(0.05)
                return cluster_id

            rig.in_flight += 1
            try:
                return await rig.idempotency.run(
                    idempotency_key_of(ctx), tool="create_cluster", arguments={"name": name}, action=act
                )
            finally:
                rig.in_flight -= 1

        @server.tool()
        def echo(text: str) -> str:
            """Echo the text."""
            return text

        errscope.instrument(server, capture_httpx=False, **self.telemetry)
        return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free 127.0.0.1 port for the duration of the block; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            server.force_exit = True
