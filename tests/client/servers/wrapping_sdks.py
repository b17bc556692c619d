"""A Python MCP server without errscope whose tools fail for real under the SDK's own wrapper text.

``python -m tests.client.servers.wrapping_sdks fastmcp|mcpserver`` over stdio. The SDK words each failure as it does for
every server built on it: FastMCP 4 "Error calling tool 'x': <exception>" (and its own "Upstream request timed out,
please retry" / "Rate limited by upstream API, please retry later"), MCPServer "Error executing tool x: <ToolError>" or
the bare "Error executing tool x" for a crash. Environment: ``WRAP_MODEL_URL`` (an OpenAI base URL on a closed port),
``WRAP_SILENT_URL`` (a listener that never answers), ``WRAP_LIMITED_URL`` (one answering 429), ``WRAP_RUNS`` (a file:
one line per tool run, so tests can count executions).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import httpx
import openai

STYLE = sys.argv[1] if len(sys.argv) > 1 else "fastmcp"


def ran(name: str) -> None:
    with open(os.environ["WRAP_RUNS"], "a") as runs:
        runs.write(name + "\n")


def summarise(text: str) -> str:
    """Summarise a text with the model (the OpenAI SDK, no retries of its own)."""
    ran("summarise")
    model = openai.OpenAI(base_url=os.environ["WRAP_MODEL_URL"], api_key="sk-FAKE-wrapping-sdks", max_retries=0,
                          timeout=3)
    try:
        answer = model.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": text}])
    except openai.APIConnectionError as exc:
        if STYLE == "mcpserver":  # MCPServer masks anything but a ToolError: the SDK's documented way to keep the words
            from mcp.server.mcpserver.exceptions import ToolError
            raise ToolError(str(exc)) from exc
        raise
    return answer.choices[0].message.content or ""


def get_rate_limit() -> str:
    """The account's remaining API quota (a bug: the quota document is read before it was fetched)."""
    ran("get_rate_limit")
    quota: dict[str, Any] | None = None
    return str(quota["remaining"])  # type: ignore[index]


def crawl_404_pages(site: str) -> str:
    """The site's pages answering 404 (a bug: the first page of an empty crawl)."""
    ran("crawl_404_pages")
    pages: list[str] = []
    return pages[0]


def fetch_report(report_id: str) -> str:
    """A report from a reporting API that never answers."""
    ran("fetch_report")
    return httpx.get(f"{os.environ['WRAP_SILENT_URL']}/reports/{report_id}", timeout=1).text


def list_invoices() -> str:
    """Invoices from a billing API that refuses with 429."""
    ran("list_invoices")
    response = httpx.get(f"{os.environ['WRAP_LIMITED_URL']}/invoices", timeout=3)
    response.raise_for_status()
    return response.text


TOOLS = [summarise, get_rate_limit, crawl_404_pages, fetch_report, list_invoices]

if __name__ == "__main__":
    if STYLE == "fastmcp":
        from fastmcp import FastMCP

        fast = FastMCP("wrapping")
        for fn in TOOLS:
            fast.tool(fn)
        fast.run("stdio", show_banner=False)
    else:
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("wrapping")
        for fn in TOOLS:
            server.tool()(fn)
        server.run("stdio")
