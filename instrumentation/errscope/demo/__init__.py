"""The refund scenario that ``errscope demo`` runs end to end, one module per piece:

- :mod:`errscope.demo.payments`: a payments API (Starlette on uvicorn) with tenants, faults on
  demand, ``Idempotency-Key`` and a refund counter; its error bodies carry planted fake secrets;
- :mod:`errscope.demo.refund_server`: the MCP server with ``refund_order``, instrumented with
  :func:`errscope.instrument`, calling the payments API through httpx;
- :mod:`errscope.demo.agent`: the scripted agent, calling through :class:`errscope.client.ToolClient`;
- :mod:`errscope.demo.triage`: the triage table, joined from the agent's notes and the exported telemetry;
- :mod:`errscope.demo.run`: starts the processes, runs the agent, prints the table.
"""

from __future__ import annotations

__all__: list[str] = []
