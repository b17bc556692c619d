"""Every PromQL, LogQL and TraceQL string parses with the grammars Grafana's own query editors use.

``tests/grammars`` pins ``@prometheus-io/lezer-promql``, ``@grafana/lezer-logql`` and
``@grafana/lezer-traceql`` (``npm ci`` by ``scripts/tools.sh``); ``parse.mjs`` reports error nodes.
Grafana variables and macros are substituted first, as Grafana does before a query is sent.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dashboards.inventory import Query, all_queries, concrete
from tests.conftest import require, require_executable

pytestmark = pytest.mark.stack

GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"
VARIABLES = {
    "service": "errscope-feed",
    "tool": ".*",
    "class": ".+",
    "ref": "ERR-7K3M9QXZ",
    "request_id": "42",
    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
    "__tags": 'job="errscope-feed", gen_ai_tool_name="get_order"',
    "__trace.traceId": "4bf92f3577b34da6a3ce929d0e0e4736",
    "__value.raw": "ERR-7K3M9QXZ",
}
LOGQL_TAGS = {"__tags": 'service_name="errscope-feed"'}


def _parse(items: list[tuple[str, str]]) -> list[dict]:
    node = require_executable("node")
    require((GRAMMARS / "node_modules").is_dir(), "tests/grammars/node_modules missing (run scripts/tools.sh: npm ci)")
    stdin = "".join(json.dumps({"lang": lang, "query": text}) + "\n" for lang, text in items)
    result = subprocess.run([node, "parse.mjs"], cwd=GRAMMARS, input=stdin, capture_output=True, text=True,  # noqa: S603
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def _concrete(query: Query) -> str:
    variables = {**VARIABLES, **(LOGQL_TAGS if query.lang == "logql" else {})}
    return concrete(query.text, variables)


QUERIES = [q for q in all_queries() if q.lang != "traceid"]


def test_inventory_covers_every_language() -> None:
    """The generated files contain PromQL, LogQL and TraceQL, so each grammar is exercised."""
    assert {"promql", "logql", "traceql"} == {q.lang for q in QUERIES}


def test_every_query_parses() -> None:
    """No query string has an error node in its grammar's parse tree."""
    results = _parse([(q.lang, _concrete(q)) for q in QUERIES])
    failures = [f"{q.where}: {r['query']!r} errors at {r['errors']}" for q, r in zip(QUERIES, results, strict=True)
                if r["errors"]]
    assert [] == failures


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("promql", "sum by (job (rate(x[5m]))"),
        ("logql", '{service_name=~"a"} | trace_id ='),
        ("traceql", '{ span.errscope.error_ref = "ERR-1" } >> {'),
    ],
)
def test_broken_queries_are_reported(lang: str, text: str) -> None:
    """The parser harness really reports errors (a harness that accepts everything proves nothing)."""
    [result] = _parse([(lang, text)])
    assert result["errors"]
