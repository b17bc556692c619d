"""The real collector (built from collector/builder-config.yaml) on 127.0.0.1: validate, scrub every
corpus line in every field a secret can hide in (a held-out set's once per way a value is scrubbed), tail
sampling, a backend that restarts, bounded memory. Skips without Go; fails instead under
ERRSCOPE_REQUIRE_STACK=1 (CI)."""

from __future__ import annotations

import json
import secrets as pyrandom
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from collections.abc import Callable
from typing import Any, Final

import pytest
from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS

from tests import corpus
from tests.conftest import require
from tests.integration.collector_harness import (
    CONFIG,
    OVERLAYS,
    Collector,
    any_value,
    attr,
    attributes_of,
    collector_binary,
    free_port,
    iter_datapoints,
    iter_logs,
    iter_spans,
    plain,
    wait_for,
)

pytestmark = [
    pytest.mark.stack,
    pytest.mark.timeout(1800),
]  # the first test may build the collector


@pytest.fixture(autouse=True)
def _binary() -> None:
    # build (or find: a cached build answers at once) before the test; skip/fail here with the reason. Function
    # scope on purpose: a module-scoped fixture makes the module one xdist group (tests/conftest.py), and its
    # corpus tests, minutes of Collector CPU each, then all ran on one worker while the other sat idle.
    collector_binary()


def trace_id() -> str:
    return pyrandom.token_hex(16)


def span_id() -> str:
    return pyrandom.token_hex(8)


HELD_OUT_SETS = (
    "wrapped", "mcpstack", "infra", "polyglot", "dumped", "atrest", "quoted", "localized", "logformats", "bare", "raised",
    "heldout", "lookalike", "oncall", "prose", "captured", "tabular", "invoked", "decoys", "escaped", "continued",
    "typed", "richtext", "bytedump", "signed", "notations", "traced", "apps", "audited", "notebooks", "released", "piped",
)
"""Our own secret sets (tests/secret_corpus), each run through the real Collector beside the shared corpus."""


def _lines(source: str = "corpus") -> list[tuple[str, dict[str, str]]]:
    """The lines of ``source`` the Collector must get right: the shared corpus whole, a held-out set as far as its RE2
    patterns alone get it right (:func:`tests.corpus.regex_only`, what each set's test pins): its secrets they redact,
    its benign lines they leave."""
    if source == "corpus":
        require(corpus.corpus_dir() is not None, "shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
        secrets, benign = corpus.secrets(), corpus.benign()
    else:
        secrets = [line for line in corpus.held_out(f"{source}_secrets.jsonl.gz")
                   if not corpus.leaked(line["secret"], corpus.regex_only(line["text"]), line["text"])]
        benign = [line for line in corpus.held_out(f"{source}_benign.jsonl.gz") if corpus.regex_only(line["text"]) == line["text"]]
    return [(f"s{i}", line) for i, line in enumerate(secrets)] + [(f"b{i}", line) for i, line in enumerate(benign)]


# --- validate -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overlays",
    [
        [],
        ["file.yaml"],
        ["file.yaml", "otlp-backend.yaml"],
        ["bench-sink.yaml"],
        ["bench-sink.yaml", "bench-noscrub.yaml"],
    ],
    ids=lambda o: "+".join(o) or "base",
)
def test_validate(overlays: list[str], tmp_path: Path) -> None:
    collector = Collector(
        overlays=overlays,
        env={"ERRSCOPE_TEST_BACKEND_ENDPOINT": "http://127.0.0.1:9"},
        workdir=tmp_path,
    )
    result = collector.validate()
    assert result.returncode == 0, result.stdout + result.stderr


def test_components_are_exactly_the_manifest() -> None:
    """The binary has what the manifest lists, and the configs (overlays and scale-out tiers) use only those."""
    import subprocess

    import yaml

    out = subprocess.run(
        [collector_binary(), "components"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    built = yaml.safe_load(out.stdout)
    names = {
        kind: {c["name"] for c in built.get(kind) or []}
        for kind in ("receivers", "processors", "exporters", "extensions")
    }
    used: dict[str, set[str]] = {k: set() for k in names}
    for path in [
        CONFIG,
        *sorted(OVERLAYS.glob("*.yaml")),
        *sorted((CONFIG.parents[1] / "deploy" / "scale-out").glob("*.yaml")),
    ]:
        config = yaml.safe_load(path.read_text())
        for kind in used:
            used[kind] |= {key.split("/")[0] for key in (config.get(kind) or {})}
    assert used == names


# --- scrubbing: every corpus line in every field --------------------------------------------------


EVERY_FIELD = frozenset({
    "span.name", "span.status.message", "span.attributes", "resource.attributes", "event.name",
    "event.attributes", "log.body(string)", "log.attributes", "log.body(map)", "log.body(nested map/list)",
    "log resource.attributes", "datapoint.attributes", "span.attributes(exception)", "datapoint.attributes(exception)",
})  # fmt: skip
"""Every field a secret can hide in, each line's text in all of them (the shared corpus)."""

EVERY_PATH = frozenset({
    "span.name", "span.attributes", "log.attributes", "log.body(nested map/list)", "datapoint.attributes",
})
"""One field per way the config scrubs a value (the held-out sets): free text by the transform's guarded
``replace_pattern`` (span name; status message, event names and string log bodies run the same statement), a
top-level attribute by its ``replace_all_patterns`` and then the redaction processors (log attributes; map log bodies
go the same way), an attribute by the redaction processors alone, in the traces pipeline (span attributes) and in the
metrics pipeline (data point attributes), and a value nested in a log body's maps and lists, which only the redaction
processors walk. The conventions' exception attributes, which the transform alone scrubs in traces and metrics, run
the same combined pattern as log attributes: the shared corpus checks their statements in every map
(:data:`EVERY_FIELD`); each held-out set through them too cost the suite ~60 % more Collector CPU."""

TRANSFORM: Final = ("span.name", "log.attributes")
"""The paths of :data:`EVERY_PATH` through the transform's combined pattern: its guarded free-text statement, and
its map statement followed by the redaction processors. Nearly all of a corpus test's Collector CPU is this pattern's
replacement (Go copies its ~200 capture groups into every NFA thread)."""

REDACTION_ALONE: Final = ("span.attributes", "log.body(nested map/list)", "datapoint.attributes")
"""The paths of :data:`EVERY_PATH` through the redaction processors alone: the same ``blocked_values`` in three
placements (traces and metrics share ``redaction/scrub``; the logs' ``redaction/scrub_logs`` differs only in its
ignored keys)."""


def _program_fields(index: int) -> frozenset[str]:
    """The fields of a held-out set's line ``index``: the line once through each engine, the transform's pattern and
    the redaction processors' ``blocked_values``, each in its placements by turns, so every placement meets a half or
    a third of every set (every combination of the two a sixth) and the shared corpus meets every placement with every
    line (:data:`EVERY_PATH`). Each line in both transform statements doubled a held-out set's Collector CPU."""
    return frozenset({TRANSFORM[index % len(TRANSFORM)], REDACTION_ALONE[index % len(REDACTION_ALONE)]})


def _corpus_payloads(
    lines: list[tuple[str, dict[str, str]]],
    fields: list[frozenset[str]],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """OTLP/JSON traces, logs and metrics that carry each line's text in its ``fields`` (:data:`EVERY_FIELD`, or
    fields of :data:`EVERY_PATH`), one span, one log record (two in every field) and one data point a line, each tagged
    with the line's id (``corpus.id``)."""
    traces, logs, metrics = [], [], []
    now = time.time_ns()
    for (cid, line), where in zip(lines, fields, strict=True):
        text = line["text"]
        if where != EVERY_FIELD:
            _path_payloads(cid, text, where, now, traces, logs, metrics)
            continue
        resource = {
            "attributes": [
                attr("service.name", "corpus"),
                attr("corpus.id", cid),
                attr("detail", text),
            ]
        }
        traces.append(
            {
                "resource": resource,
                "scopeSpans": [
                    {
                        "scope": {"name": "corpus"},
                        "spans": [
                            {
                                "traceId": trace_id(),
                                "spanId": span_id(),
                                "name": text,
                                "kind": 2,
                                "startTimeUnixNano": str(now),
                                "endTimeUnixNano": str(now + 1000),
                                "status": {"code": 2, "message": text},
                                "attributes": [
                                    attr("corpus.id", cid),
                                    attr("detail", text),
                                    attr("exception.message", text),
                                ],
                                "events": [
                                    {
                                        "name": text,
                                        "timeUnixNano": str(now),
                                        "attributes": [
                                            attr("exception.message", text),
                                            attr("exception.stacktrace", text),
                                        ],
                                    }
                                ],
                            }
                        ],
                    }
                ],
            }
        )
        logs.append(
            {
                "resource": resource,
                "scopeLogs": [
                    {
                        "scope": {"name": "corpus"},
                        "logRecords": [
                            {
                                "timeUnixNano": str(now),
                                "body": {"stringValue": text},
                                "attributes": [
                                    attr("corpus.id", cid),
                                    attr("kind", "string"),
                                    attr("detail", text),
                                ],
                            },
                            {
                                "timeUnixNano": str(now),
                                "body": {
                                    "kvlistValue": {
                                        "values": [
                                            attr("message", text),
                                            attr(
                                                "nested",
                                                {
                                                    "detail": text,
                                                    "list": [text, {"deep": text}],
                                                },
                                            ),
                                        ]
                                    }
                                },
                                "attributes": [
                                    attr("corpus.id", cid),
                                    attr("kind", "map"),
                                ],
                            },
                        ],
                    }
                ],
            }
        )
        metrics.append(
            {
                "resource": resource,
                "scopeMetrics": [
                    {
                        "scope": {"name": "corpus"},
                        "metrics": [
                            {
                                "name": "corpus.gauge",
                                "gauge": {
                                    "dataPoints": [
                                        {
                                            "timeUnixNano": str(now),
                                            "asInt": "1",
                                            "attributes": [
                                                attr("corpus.id", cid),
                                                attr("detail", text),
                                                attr("exception.message", text),
                                            ],
                                        }
                                    ]
                                },
                            }
                        ],
                    }
                ],
            }
        )
    return (
        {"resourceSpans": traces},
        {"resourceLogs": logs},
        {"resourceMetrics": metrics},
    )


def _path_payloads(
    cid: str, text: str, fields: frozenset[str], now: int, traces: list[Any], logs: list[Any], metrics: list[Any]
) -> None:
    """``text`` in ``fields`` (of :data:`EVERY_PATH`) alone, the others benign or absent."""

    def detail(field: str) -> list[dict[str, Any]]:
        return [attr("detail", text)] if field in fields else []

    resource = {"attributes": [attr("service.name", "corpus"), attr("corpus.id", cid)]}
    nested = {"list": [{"deep": text}]} if "log.body(nested map/list)" in fields else None
    body = [attr("nested", nested)] if nested else [attr("note", "no corpus text here")]
    traces.append({"resource": resource, "scopeSpans": [{"scope": {"name": "corpus"}, "spans": [{
        "traceId": trace_id(), "spanId": span_id(), "name": text if "span.name" in fields else "corpus",
        "kind": 2, "startTimeUnixNano": str(now), "endTimeUnixNano": str(now + 1000), "status": {"code": 2},
        "attributes": [attr("corpus.id", cid), *detail("span.attributes")],
    }]}]})  # fmt: skip
    logs.append({"resource": resource, "scopeLogs": [{"scope": {"name": "corpus"}, "logRecords": [{
        "timeUnixNano": str(now), "body": {"kvlistValue": {"values": body}},
        "attributes": [attr("corpus.id", cid), attr("kind", "map"), *detail("log.attributes")],
    }]}]})  # fmt: skip
    metrics.append({"resource": resource, "scopeMetrics": [{"scope": {"name": "corpus"}, "metrics": [{
        "name": "corpus.gauge", "gauge": {"dataPoints": [{
            "timeUnixNano": str(now), "asInt": "1", "attributes": [attr("corpus.id", cid), *detail("datapoint.attributes")],
        }]},
    }]}]})  # fmt: skip


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


POST_TEXT_BUDGET = 20_000
"""Characters of corpus text per post (each text goes into twelve fields, or five): a hundred of the first corpus's
lines."""


def _through_collector(
    lines: list[tuple[str, dict[str, str]]], fields: frozenset[str] | Callable[[int], frozenset[str]]
) -> tuple[list[Any], list[Any], list[Any]]:
    """Post every line in ``fields`` (the same for every line, or a function of the line's index) through one real
    Collector; the leaks (secret lines: a run of the secret survives, :func:`tests.corpus.leaked`), altered values
    (benign lines) and fields missing from the output."""
    by_id = dict(lines)
    where = [fields(index) if callable(fields) else fields for index in range(len(lines))]
    expected = {cid: where[index] for index, (cid, _) in enumerate(lines)}
    traces, logs, metrics = _corpus_payloads(lines, where)
    n_records = sum(2 if line_fields == EVERY_FIELD else 1 for line_fields in where)
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector:
        def post_all(signal: str, chunk_key: str, items: list[dict[str, Any]]) -> None:
            # The Collector answers a post after scrubbing every field of its items with every pattern, CPU-bound:
            # posts are cut by the corpus text they carry (the eighteenth set's multi-line tracebacks of up to 5 KB
            # go a few dozen a post, short lines a hundred or more), and waited for as long as the load says.
            chunk: list[dict[str, Any]] = []
            size = 0
            for item, (_, line) in zip(items, lines, strict=True):
                chunk.append(item)
                size += len(line["text"])
                if size >= POST_TEXT_BUDGET:
                    collector.post(signal, {chunk_key: chunk}, timeout_s=300)
                    chunk, size = [], 0
            if chunk:
                collector.post(signal, {chunk_key: chunk}, timeout_s=300)

        # one thread a signal: the Collector scrubs concurrent posts on separate cores
        with ThreadPoolExecutor(max_workers=3) as pool:
            for done in [
                pool.submit(post_all, signal, chunk_key, payload[chunk_key])
                for signal, payload, chunk_key in (
                    ("traces", traces, "resourceSpans"),
                    ("logs", logs, "resourceLogs"),
                    ("metrics", metrics, "resourceMetrics"),
                )
            ]:
                done.result()
        ok = wait_for(
            lambda: (
                len(list(iter_spans(collector.read("traces")))) >= len(lines)
                and len(list(iter_logs(collector.read("logs")))) >= n_records
                and len(list(iter_datapoints(collector.read("metrics")))) >= len(lines)
            ),
            timeout_s=240,
        )
        assert ok, collector.log()[-3000:]
        spans = list(iter_spans(collector.read("traces")))
        records = list(iter_logs(collector.read("logs")))
        points = list(iter_datapoints(collector.read("metrics")))

    seen: dict[str, dict[str, list[str]]] = {cid: {} for cid in by_id}

    def put(cid: str, where: str, values: list[str]) -> None:
        if where in expected[cid]:
            seen[cid].setdefault(where, []).extend(values)

    for resource, span in spans:
        cid = attributes_of(span)["corpus.id"]
        put(cid, "span.name", [span.get("name", "")])
        put(cid, "span.status.message", [span.get("status", {}).get("message", "")])
        if "detail" in attributes_of(span):
            put(cid, "span.attributes", [attributes_of(span)["detail"]])
        if "exception.message" in attributes_of(span):
            put(cid, "span.attributes(exception)", [attributes_of(span)["exception.message"]])
        if "detail" in attributes_of(resource):
            put(cid, "resource.attributes", [attributes_of(resource)["detail"]])
        for event in span.get("events", []):
            put(cid, "event.name", [event.get("name", "")])
            put(cid, "event.attributes", list(attributes_of(event).values()))
    for resource, record in records:
        a = attributes_of(record)
        cid = a["corpus.id"]
        body = plain(record.get("body", {}))
        if a["kind"] == "string":
            put(cid, "log.body(string)", [body])
        else:
            if "message" in body:
                put(cid, "log.body(map)", [body["message"]])
            if "nested" in body:
                put(cid, "log.body(nested map/list)", _strings(body["nested"]))
        if "detail" in a:
            put(cid, "log.attributes", [a["detail"]])
        if "detail" in attributes_of(resource):
            put(cid, "log resource.attributes", [attributes_of(resource)["detail"]])
    for resource, point in points:
        a = attributes_of(point)
        if "detail" in a:
            put(a["corpus.id"], "datapoint.attributes", [a["detail"]])
        if "exception.message" in a:
            put(a["corpus.id"], "datapoint.attributes(exception)", [a["exception.message"]])

    leaks, altered, missing = [], [], []
    for cid, line in by_id.items():
        if set(seen[cid]) != expected[cid]:
            missing.append((cid, sorted(expected[cid] - set(seen[cid]))))
        for where, values in seen[cid].items():
            for value in values:
                if cid.startswith("s") and corpus.leaked(line["secret"], value, line["text"]):
                    leaks.append((line["format"], where, value[:160]))
                if cid.startswith("b") and value != line["text"]:
                    altered.append((line["category"], where, value[:160]))
    return leaks, altered, missing


FIELDS_SAMPLE: Final = 5
"""Every this many lines of the shared corpus go through every field (:data:`EVERY_FIELD`), which shows each field
wired to its path; every line goes through every path."""


@pytest.mark.parametrize("source", ["corpus", "corpus-fields", *HELD_OUT_SETS])
def test_every_corpus_line_in_every_field(source: str) -> None:
    """The shared corpus once per way a value is scrubbed (:data:`EVERY_PATH`: the fields of one path run the same
    statement or processor on it, and the CPU is the Collector's regexes), each held-out set once per program
    (:func:`_program_fields`), and a sample of the shared corpus in every field (``corpus-fields``,
    :data:`FIELDS_SAMPLE`)."""
    if source == "corpus-fields":
        leaks, altered, missing = _through_collector(_lines("corpus")[::FIELDS_SAMPLE], EVERY_FIELD)
    else:
        leaks, altered, missing = _through_collector(_lines(source), EVERY_PATH if source == "corpus" else _program_fields)
    assert missing == []
    assert leaks == [], f"{len(leaks)} secrets survived ({sorted({f for f, _, _ in leaks})}), e.g. {leaks[:5]}"
    assert altered == [], f"{len(altered)} benign values altered ({sorted({c for c, _, _ in altered})}), e.g. {altered[:5]}"


MARKED_PASS_LINES = [
    # `$` at the end of the text: the suffix reads the end mark, then the end
    "2024-06-09T09:48:19.577Z ERROR [tool-executor] pid=21644 request failed; PASSWORD=Indigo2317*dune attempt=4",
    "retrying; password=6*-rgWO6C-f3Ybc!4Kgm.z",
    # `(?m:$)` before a newline: the newline after the end mark kept
    "upstream rejected request (401):\nContent-Type: application/json\nApi-Key: iJdUCnP38XAIOmCAo9q3VLNjk9N0KhOxoNWMOM\nX-Request-ID: 2ac1f037",
    # a kept suffix that reads the end mark at the end of the text (a wrapped token's rest)
    "kubectl logs api-7 | cut -c1-80\nenv: GITHUB_TOKEN=ghp_WLsECkr3CYvMSIAabjnVbs\nevb0p73VIS8TdG",
    # negated classes that would run through the end mark to the end of the text
    "$password = 'e2d78e604a58b57b6534b50364e8fc69ee8ec361';",
    "GET https://api.example.test/v1?api_key=Q7xY2mK9pL4vN8rT3wZ6&page=2 -> 403",
]
"""Lines whose match ends where the transform's marks change what the pattern reads (``errscope._patterns.marked_regex``)."""

HELD_MARK_LINES = [
    # a value that holds the transform's marks itself: a secret cut by an end mark, by both marks, after both marks
    "GET /v1?api_key=Q7xY2mK9\ufdd1pL4vN8rT3wZ6&page=2 -> 403",
    "authorization: Basic YWRtaW46Q2Z\ufdd0\ufdd1OTUlkaTFqdVhuMmg3ODhXcEZ4WVBNUXY=",
    "\ufdd0\ufdd1Secret: Otter*62",
    "db password: Fern\ufdd0Stone#77 rejected",
    "note \ufdd0 then\ufdd1 api_key=Q7xY2mK9pL4vN8rT3wZ6",
    "token ghp_Q7xY2mK9pL4vN8rT3wZ6\ufdd2aaaaaaaaaaaaaaaaa done",
]
"""Lines that hold a Unicode noncharacter the transform uses as a mark (``errscope._patterns.MARKS``), inside,
around or beside a secret: such a value gets the one pass itself."""


@pytest.mark.parametrize("lines", [MARKED_PASS_LINES, HELD_MARK_LINES], ids=["marks-read", "marks-held"])
def test_the_marked_passes_write_the_one_pass_text(lines: list[str]) -> None:
    """The transform finds each match without its groups, marks it, then reads its groups between the marks: in a free
    text field (span name) and a map (log attributes) the Collector writes exactly the one pass's text
    (:func:`tests.corpus.regex_only`), every kept key name and quote in place, no mark left; a value that held a mark
    before (``HELD_MARK_LINES``: the marks cut a secret, and a mark left would be removed) gets the one pass."""
    now = str(time.time_ns())
    spans = [{"traceId": trace_id(), "spanId": span_id(), "name": text, "kind": 2, "startTimeUnixNano": now,
              "endTimeUnixNano": now, "status": {"code": 2}, "attributes": [attr("line", str(i))]}
             for i, text in enumerate(lines)]  # fmt: skip
    records = [{"timeUnixNano": now, "attributes": [attr("line", str(i)), attr("detail", text)]}
               for i, text in enumerate(lines)]  # fmt: skip
    resource = {"attributes": [attr("service.name", "marked")]}
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector:
        collector.post("traces", {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]})
        collector.post("logs", {"resourceLogs": [{"resource": resource, "scopeLogs": [{"logRecords": records}]}]})
        assert wait_for(
            lambda: len(list(iter_spans(collector.read("traces")))) == len(spans)
            and len(list(iter_logs(collector.read("logs")))) == len(records),
            timeout_s=60,
        ), collector.log()[-3000:]
        names = {attributes_of(span)["line"]: span["name"] for _, span in iter_spans(collector.read("traces"))}
        details = {attributes_of(r)["line"]: attributes_of(r)["detail"] for _, r in iter_logs(collector.read("logs"))}
    expected = {str(i): corpus.regex_only(text) for i, text in enumerate(lines)}
    assert all(expected[str(i)] != text for i, text in enumerate(lines))  # each holds a secret
    assert names == expected
    assert details == expected


OVERLAPPING = [
    # cli_tool_password matches from ``mosquitto_passwd``; keyword_phrase, listed earlier, from `` passwd gateway-31``
    {"format": "mosquitto_passwd_b", "secret": "Qm4vR8xTz2LpW6nYc9Hd",
     "text": "ops@mq-7:~$ mosquitto_passwd -c -b passwd gateway-31 Qm4vR8xTz2LpW6nYc9Hd"},
    # the AWS key id's rule, listed earlier, matches inside the user:password pair the SASL-map rule needs whole
    {"format": "postfix_sasl_passwd", "secret": "Tz8mK2pQ9vW4xR7nB5cLq",
     "text": "[email-smtp.us-east-1.amazonaws.com]:587 AKIAQ3EXAMPLE7KEY2XY:Tz8mK2pQ9vW4xR7nB5cLq"},
]  # fmt: skip
"""Lines where a pattern listed earlier matches inside or after the match of one listed later that starts earlier."""


def test_a_match_inside_another_is_scrubbed_as_one_pass() -> None:
    """The redaction processor runs its ``blocked_values`` one after another on the text the earlier ones masked
    (contrib v0.161 ``processStringValueForAttribute``): with one entry per pattern, an earlier entry's ``****`` cut
    the context a later one needed and the password survived in span and data point attributes and nested log
    bodies. Each line here is such a case (checked below by running the patterns one after another in RE2, Go's
    semantics) that the one combined pass scrubs; through the real Collector it is scrubbed in every field."""
    import re2  # type: ignore[import-untyped]
    from errscope._patterns import PATTERNS

    entries = [re2.compile(p.regex) for p in PATTERNS]
    for line in OVERLAPPING:
        one_by_one = line["text"]
        for entry in entries:
            one_by_one = entry.sub("****", one_by_one)
        assert corpus.leaked(line["secret"], one_by_one, line["text"]), line["format"]
        assert not corpus.leaked(line["secret"], corpus.regex_only(line["text"]), line["text"]), line["format"]
    leaks, altered, missing = _through_collector([(f"s{i}", line) for i, line in enumerate(OVERLAPPING)], EVERY_FIELD)
    assert (leaks, altered, missing) == ([], [], [])


# --- tail sampling --------------------------------------------------------------------------------


def _trace(kind: str, n_spans: int = 2) -> tuple[str, dict[str, Any]]:
    """A trace of ``n_spans`` spans; ``kind`` error: the last span has status ERROR; classified: an
    errscope.failure_class attribute and no error status; ok: neither."""
    tid = trace_id()
    root = span_id()
    now = time.time_ns()
    spans = []
    for i in range(n_spans):
        attributes = [attr("test.kind", kind)]
        status: dict[str, Any] = {}
        if i == n_spans - 1 and kind == "error":
            status = {"code": 2, "message": "upstream 503"}
        if i == n_spans - 1 and kind == "classified":
            attributes += [
                attr(ERRSCOPE_FAILURE_CLASS, "not_found"),
                attr(ERRSCOPE_ERROR_REF, "ERR-TEST0001"),
            ]
        spans.append(
            {
                "traceId": tid,
                "spanId": root if i == 0 else span_id(),
                "parentSpanId": "" if i == 0 else root,
                "name": "tools/call lookup",
                "kind": 2 if i == 0 else 3,
                "startTimeUnixNano": str(now),
                "endTimeUnixNano": str(now + 1000),
                "status": status,
                "attributes": attributes,
            }
        )
    return tid, {
        "resource": {"attributes": [attr("service.name", "sampling")]},
        "scopeSpans": [{"spans": spans}],
    }


def _send_traces(collector: Collector, kinds: list[str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    batch = []
    for kind in kinds:
        tid, rs = _trace(kind)
        ids[tid] = kind
        batch.append(rs)
        if len(batch) == 50:
            collector.post("traces", {"resourceSpans": batch})
            batch = []
    if batch:
        collector.post("traces", {"resourceSpans": batch})
    return ids


def test_tail_sampling_keeps_errors_and_a_share_of_the_rest() -> None:
    n_ok, n_err, n_cls, share = 400, 40, 40, 25
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": str(share)}) as collector:
        kinds = ["ok"] * n_ok + ["error"] * n_err + ["classified"] * n_cls
        pyrandom.SystemRandom().shuffle(kinds)
        sent = _send_traces(collector, kinds)

        def kept() -> dict[str, set[str]]:
            out: dict[str, set[str]] = {
                "ok": set(),
                "error": set(),
                "classified": set(),
            }
            for _, span in iter_spans(collector.read("traces")):
                out[sent[span["traceId"]]].add(span["traceId"])
            return out

        wait_for(
            lambda: (
                len(kept()["error"]) == n_err and len(kept()["classified"]) == n_cls
            ),
            timeout_s=60,
        )
        time.sleep(3)  # let the sampled-out share settle too (decision_wait 1s + batch)
        result = kept()
        spans_per_trace = {}
        for _, span in iter_spans(collector.read("traces")):
            spans_per_trace[span["traceId"]] = (
                spans_per_trace.get(span["traceId"], 0) + 1
            )
    assert len(result["error"]) == n_err, "an error trace was dropped"
    assert len(result["classified"]) == n_cls, (
        "a trace with errscope.failure_class was dropped"
    )
    assert all(count == 2 for count in spans_per_trace.values()), (
        "kept traces must be whole"
    )
    kept_share = len(result["ok"]) / n_ok
    # binomial(400, 0.25): sd ~2.2 points; 15..35 % is more than 4 sd either side
    assert 0.15 <= kept_share <= 0.35, (
        f"kept {kept_share:.1%} of ok traces, configured {share}%"
    )


# --- a backend that restarts within the retry window ----------------------------------------------


class Backend:
    """A tiny OTLP/HTTP (JSON) traces receiver on 127.0.0.1 that can be stopped and restarted."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.trace_ids: set[str] = set()
        self.requests = 0
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    payload = json.loads(body or b"{}")
                except ValueError:
                    payload = {}
                with backend._lock:
                    backend.requests += 1
                    for rs in payload.get("resourceSpans", []):
                        for ss in rs.get("scopeSpans", []):
                            for span in ss.get("spans", []):
                                backend.trace_ids.add(span["traceId"])
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def got(self) -> set[str]:
        with self._lock:
            return set(self.trace_ids)


def test_backend_restart_loses_no_error_trace() -> None:
    port = free_port()
    backend = Backend(port)
    env = {
        "ERRSCOPE_SAMPLE_PERCENT": "0",
        "ERRSCOPE_TEST_BACKEND_ENDPOINT": f"http://127.0.0.1:{port}",
    }
    with Collector(overlays=["file.yaml", "otlp-backend.yaml"], env=env) as collector:
        try:
            # Phase 1: the backend is down when the error traces arrive, and comes up 4 s later.
            first = _send_traces(collector, ["error"] * 25 + ["ok"] * 25)
            time.sleep(4)
            assert backend.got() == set()
            backend.start()
            errors1 = {t for t, k in first.items() if k == "error"}
            assert wait_for(lambda: errors1 <= backend.got(), timeout_s=60), (
                collector.log()[-3000:]
            )
            # Phase 2: the backend restarts (down 4 s) while more error traces arrive.
            backend.stop()
            second = _send_traces(collector, ["error"] * 25)
            time.sleep(4)
            backend.start()
            errors2 = set(second)
            assert wait_for(lambda: errors1 | errors2 <= backend.got(), timeout_s=60), (
                collector.log()[-3000:]
            )
            oks = {t for t, k in first.items() if k == "ok"}
            assert not (oks & backend.got()), (
                "0% baseline share configured: ok traces must be dropped"
            )
            assert collector.metric("otelcol_exporter_send_failed_spans_total") == 0
        finally:
            backend.stop()


def test_memory_stays_bounded_with_a_dead_backend() -> None:
    """A dead backend and a flood of error traces: memory_limiter + a bounded queue keep RSS bounded
    and the collector healthy (it refuses or drops instead of growing)."""
    limit_mib = 100
    env = {
        "ERRSCOPE_SAMPLE_PERCENT": "0",
        "ERRSCOPE_TEST_BACKEND_ENDPOINT": f"http://127.0.0.1:{free_port()}",  # nothing listens
        "ERRSCOPE_TEST_QUEUE_SIZE": "100",
        "ERRSCOPE_COLLECTOR_MEMORY_LIMIT_MIB": str(limit_mib),
        "ERRSCOPE_COLLECTOR_MEMORY_SPIKE_MIB": "25",
        "GOMEMLIMIT": f"{limit_mib}MiB",
    }
    import httpx

    # Bulk in a non-string attribute (an int array): memory per span at less regex time than strings
    # (redact_all_types still reads it).
    bulk = list(range(300))
    with Collector(overlays=["file.yaml", "otlp-backend.yaml"], env=env) as collector:
        peak = collector.rss_mib()
        sent_mib = 0.0
        refused = 0
        lock = threading.Lock()
        # Twice the limit proves the point; a busy 2-core machine scrubbing 95 patterns sent only 74 MiB in 120 s.
        deadline = time.monotonic() + 240

        def flood() -> None:
            # Senders in parallel: the collector works on every request it holds at once (both cores),
            # so the flood outgrows the memory limit whatever one request's processing costs.
            nonlocal sent_mib, refused, peak
            with httpx.Client(timeout=15) as client:
                for _ in range(100):  # bounded in count and time
                    with lock:
                        if time.monotonic() > deadline or sent_mib > 2 * limit_mib:
                            return
                    batch = []
                    for _ in range(200):
                        _, rs = _trace("error", n_spans=1)
                        rs["scopeSpans"][0]["spans"][0]["attributes"].append(attr("payload", bulk))
                        batch.append(rs)
                    body = json.dumps({"resourceSpans": batch}).encode()
                    try:
                        response = client.post(f"{collector.otlp_http}/v1/traces", content=body,
                                               headers={"Content-Type": "application/json"})
                        failed = response.status_code >= 400
                    except httpx.HTTPError:
                        failed = True
                    with lock:
                        refused += failed
                        sent_mib += len(body) / 2**20
                        peak = max(peak, collector.rss_mib())

        senders = [threading.Thread(target=flood) for _ in range(4)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        time.sleep(3)
        peak = max(peak, collector.rss_mib())
        healthy = collector.proc is not None and collector.proc.poll() is None
        # it refuses (503 from memory_limiter) rather than growing, and stays up and healthy
        still_serving = (
            healthy
            and httpx.get(
                f"http://127.0.0.1:{collector.health_port}/", timeout=5
            ).status_code
            == 200
        )
    assert healthy, "the collector died"
    assert sent_mib > limit_mib, (
        f"the flood ({sent_mib:.0f} MiB) was too small to prove anything"
    )
    assert peak < limit_mib + 200, (
        f"RSS peaked at {peak:.0f} MiB after {sent_mib:.0f} MiB sent ({refused} refused)"
    )
    assert still_serving
    print(
        f"memory: peak RSS {peak:.0f} MiB, {sent_mib:.0f} MiB of OTLP sent, {refused} requests refused"
    )


def test_arrays_and_maps_in_span_attributes() -> None:
    """OTel HTTP instrumentations record headers as string arrays; OTLP also allows map values.
    The redaction processor (redact_all_types) masks secrets inside them; benign ones stay typed."""
    span = {
        "traceId": trace_id(),
        "spanId": span_id(),
        "name": "GET /v1/orders",
        "kind": 3,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            attr(
                "http.request.header.authorization", ["Bearer Q7abcdefghijklmnop1234"]
            ),
            attr(
                "db.connection",
                {"dsn": "postgresql://svc:Hunter22x@db.example.test/app"},
            ),
            attr("http.request.header.accept", ["application/json", "text/plain"]),
            attr("retry.count", 3),
        ],
    }
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector:
        collector.post(
            "traces",
            {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]},
        )
        assert wait_for(
            lambda: list(iter_spans(collector.read("traces"))), timeout_s=30
        )
        ((_, out),) = list(iter_spans(collector.read("traces")))
    text = json.dumps(out)
    assert "Q7abcdefghijklmnop1234" not in text and "Hunter22x" not in text
    values = {a["key"]: a["value"] for a in out["attributes"]}
    assert values["http.request.header.accept"] == {
        "arrayValue": {
            "values": [
                {"stringValue": "application/json"},
                {"stringValue": "text/plain"},
            ]
        }
    }
    assert values["retry.count"] == {"intValue": "3"}


MINIO = "mc config host add s3 https://s3.amazonaws.com AKIAIOSFODNN7EXAMPLE Ky329BYAj0ckDboTd7A0jmand1MbFgOcPQXJeSIj"
"""A line the combined pattern's one pass leaves a match in (the AWS key id, kept as the matched rule's context)."""


def test_exception_attributes_of_any_type_in_every_map() -> None:
    """The redaction processors of traces and metrics skip the conventions' exception attributes, which the transform
    scrubs instead (collector.generate.TRANSFORM_KEYS): in every map of those signals, as a string, a list or a map
    (made a string first, as redact_all_types would); logs keep them in the redaction processors, which also reach
    one nested in a map body, where OTTL cannot."""
    dsn = "postgresql://svc:Hunter22x@db.example.test/app"
    token = "Bearer Q7abcdefghijklmnop1234"
    values = {"exception.message": f"connect failed: {dsn}", "exception.stacktrace": [token, "line 2"],
              "exception.type": {"detail": dsn}}  # fmt: skip
    attributes = [attr(k, v) for k, v in values.items()]
    resource = {"attributes": [attr("service.name", "svc"), *attributes]}
    span = {
        "traceId": trace_id(), "spanId": span_id(), "name": "tools/call lookup_order", "kind": 2,
        "startTimeUnixNano": "1", "endTimeUnixNano": "2", "status": {"code": 2}, "attributes": attributes,
        "events": [{"name": "exception", "timeUnixNano": "1", "attributes": attributes},
                   {"name": "exception", "timeUnixNano": "1", "attributes": [attr("exception.message", MINIO)]}],
    }  # fmt: skip
    point = {"timeUnixNano": "1", "asInt": "1", "attributes": attributes}
    record = {"timeUnixNano": "1", "attributes": attributes,
              "body": any_value({"error": {"exception.message": f"connect failed: {dsn}"}, "list": [{"exception.type": token}]})}  # fmt: skip
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector:
        scope = {"scope": {"name": "s", "attributes": attributes}}
        collector.post("traces", {"resourceSpans": [{"resource": resource, "scopeSpans": [{**scope, "spans": [span]}]}]})
        collector.post("metrics", {"resourceMetrics": [{"resource": resource, "scopeMetrics": [
            {**scope, "metrics": [{"name": "g", "gauge": {"dataPoints": [point]}}]}]}]})  # fmt: skip
        collector.post("logs", {"resourceLogs": [{"resource": resource, "scopeLogs": [{**scope, "logRecords": [record]}]}]})
        assert wait_for(
            lambda: list(iter_spans(collector.read("traces")))
            and list(iter_datapoints(collector.read("metrics")))
            and list(iter_logs(collector.read("logs"))),
            timeout_s=30,
        ), collector.log()[-3000:]
        out = [collector.read(signal) for signal in ("traces", "metrics", "logs")]
        ((_, span_out),) = list(iter_spans(out[0]))
    text = json.dumps(out)
    assert "Hunter22x" not in text and "Q7abcdefghijklmnop1234" not in text, text[:2000]
    # on a span the whole match masked, as the redaction processor did; on an event the transform's context kept
    assert attributes_of(span_out)["exception.message"] == "connect failed: ****db.example.test/app"
    event, second = span_out["events"]
    assert set(attributes_of(second)) == {"exception.message"}  # no key it did not have
    assert attributes_of(event)["exception.message"].startswith("connect failed: postgresql://")
    # the key id the first pass kept as context, masked by the redaction processor's pass on what that pass changed
    assert attributes_of(second)["exception.message"] == "mc config host add s3 https://s3.amazonaws.com **** [REDACTED]"
    # resource and scope in each signal, span, event, data point, log attributes, nested body
    assert text.count("connect failed") == 11


def test_a_port_taken_before_the_bind_is_picked_again() -> None:
    """Ports are picked free, then bound by the Collector a moment later: a test on another worker may take one in
    between (a CI run once failed so: "bind: address already in use"). The start picks new ports and tries again."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with Collector(http_port=port) as collector:  # entered: its health check answered 200
            assert collector.running and collector.http_port != port
            assert "address already in use" not in collector.log()  # the failed try's log went with it
