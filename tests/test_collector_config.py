"""collector/config.yaml: the generated scrubbing block matches the one pattern source (drift
check), and the config is shaped as DESIGN.md / issue 5 say. No binary needed (the real collector
runs in tests/integration/test_collector.py)."""

from __future__ import annotations

from pathlib import Path

import yaml
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope._patterns import (
    COLLECTOR_MARKING,
    MARKED_LEFT,
    MARKS,
    collector_blocked_values,
    collector_guard,
    collector_length_outside,
    collector_marked_regex,
    collector_marked_replacement,
    collector_marking_regex,
    collector_plain_value,
    collector_regex,
    collector_replacement,
    collector_separated_value,
    collector_short_plain_blocked_values,
    collector_short_plain_value,
)

from collector import generate

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "collector" / "config.yaml"


def load() -> dict:
    return yaml.safe_load(CONFIG.read_text())


def test_generated_block_has_not_drifted() -> None:
    text = CONFIG.read_text()
    assert generate.render(text) == text, "run: python -m collector.generate"
    assert generate.main(["--check"]) == 0


def test_scrubbing_processors_use_the_pattern_source() -> None:
    config = load()
    transform = config["processors"]["transform/scrub"]
    statements = [
        s for group in transform["trace_statements"] for s in group["statements"]
    ]
    statements += [
        s for group in transform["log_statements"] for s in group["statements"]
    ]
    # YAML gives the text confmap sees; confmap turns $$ into $
    # the exception keys' masking statements write the redaction processor's mask instead
    scrubbing = [s for s in statements if s.startswith("replace_") and ', "****")' not in s]
    # four passes a field: each match of the combined pattern marked (no groups), each marked match's groups read
    # and replaced, a marked match left masked whole, a mark left removed; a field that held a mark before: the one
    # pass instead (set in the context's cache, the four passes skip it, deleted after)
    marking = [s for s in scrubbing if generate._ottl_string(collector_marking_regex()) in s]
    marked = [s for s in scrubbing if generate._ottl_string(collector_marked_regex()) in s]
    left = [s for s in scrubbing if generate._ottl_string(MARKED_LEFT) in s]
    marks = [s for s in scrubbing if f'{generate._ottl_string(MARKS)}, "")' in s]
    one_pass = [s for s in scrubbing if f"{generate._ottl_string(collector_regex())}, {generate._ottl_string(collector_replacement())})" in s]
    assert len(marking) == len(marked) == len(left) == len(marks) == len(one_pass) > 0
    assert 5 * len(marking) == len(scrubbing)
    assert all(generate._ottl_string(COLLECTOR_MARKING) in s for s in marking)
    assert all(generate._ottl_string(collector_marked_replacement()) in s for s in marked)
    held = f'.cache[{generate._ottl_string(generate.HELD_MARKS)}]'
    assert all(s.endswith(f"{held} != nil") for s in one_pass)
    assert all(f"{held} == nil" in s for s in marking + marked + left + marks)
    assert sum(s.startswith("set(") and held in s for s in statements) == len(marking)
    # a free-text field's marking pass: a short value without a separator where the token shapes that fit in it
    # match, anything else where GUARD does
    guard = generate._ottl_string(collector_guard())
    free_text = [s for s in marking if s.startswith("replace_pattern(")]
    assert len(free_text) == 4  # span name, status message, event name, string log body
    for statement in free_text:
        path = statement.removeprefix("replace_pattern(").split(",", 1)[0]
        tiers = [(low, high) for _, low, high in generate.plain_tiers() if high]
        short = [f"(IsMatch({path}, {generate._ottl_string(collector_short_plain_value(low, high))}) and "
                 f"IsMatch({path}, {generate._ottl_string(collector_short_plain_blocked_values(high)[0])}))"
                 for low, high in tiers]  # fmt: skip
        rest = f"(not IsMatch({path}, {generate._ottl_string(collector_short_plain_value(0, tiers[-1][1]))}) and "
        assert statement.endswith(f" and ({' or '.join(short)} or {rest}IsMatch({path}, {guard})))"), path
    assert sum(s.startswith("delete_key(") and generate.HELD_MARKS in s for s in statements) == len(marking)
    targets = " ".join(statements)
    for field in ("span.name", "span.status.message", "spanevent.name", "spanevent.attributes", "log.body",
                  "log.attributes", "resource.attributes"):  # fmt: skip
        assert field in targets, field
    # span and spanevent paths never share a group (a mixed group runs in the spanevent context)
    for group in transform["trace_statements"]:
        joined = " ".join(group["statements"])
        assert not (
            "span." in joined.replace("spanevent.", "") and "spanevent." in joined
        )
    for every_name, plain_names in (("redaction/scrub", generate.PLAIN_PROCESSORS),
                                    ("redaction/scrub_logs", generate.PLAIN_LOG_PROCESSORS)):  # fmt: skip
        every = config["processors"][every_name]
        assert every["allow_all_keys"] is True
        # one entry each, the transform's combined pattern: the processor runs its entries one after another on the
        # text the earlier ones masked, so only one alternation scrubs as the transform's one leftmost-first pass does
        assert every["blocked_values"] == collector_blocked_values() == [collector_regex()]
        # an allowed value skips every blocked entry: the guards split the values between the processors
        assert every["allowed_values"] == [collector_plain_value()]
        # the token shapes' length tiers: the shapes that fit, on the plain values of the tier's lengths
        assert [n for n, _, _ in generate.plain_tiers()] == ["scrub_plain_12", "scrub_plain_20", "scrub_plain_28",
                                                             "scrub_plain"]  # fmt: skip
        for plain_name, (_, shortest, longest) in zip(plain_names, generate.plain_tiers(), strict=True):
            plain = config["processors"][plain_name]
            assert plain["allow_all_keys"] is True
            assert plain["blocked_values"] == (
                collector_short_plain_blocked_values(longest) if longest else collector_blocked_values(plain=True)
            )
            assert len(plain["blocked_values"]) == 1
            assert plain["allowed_values"] == [*collector_length_outside(shortest, longest), collector_separated_value()]
            assert every["ignored_keys"] == plain["ignored_keys"]
        assert config["processors"][plain_names[-1]]["blocked_values"] == collector_blocked_values(plain=True)
    # traces and metrics: the exception keys are the transform's alone; logs: also the redaction processors' (they
    # reach one nested in a map body, which OTTL cannot)
    assert config["processors"]["redaction/scrub"]["ignored_keys"] == [*generate.CLOSED_VOCABULARY,
                                                                       *generate.TRANSFORM_KEYS]  # fmt: skip
    assert config["processors"]["redaction/scrub_logs"]["ignored_keys"] == generate.CLOSED_VOCABULARY


def test_the_transform_scrubs_the_keys_redaction_skips_in_every_map() -> None:
    """Each map of traces and metrics the redaction processors reach (resource, scope, span, span event, data point)
    has its exception keys made strings and scrubbed by the transform: where no replace_all_patterns covers the whole
    map (span, data point), masked whole in the cache as the redaction processor did; elsewhere the map's pass, then
    the redaction processor's pass again on a value that pass changed."""
    transform = load()["processors"]["transform/scrub"]
    regex, marking = generate._ottl_string(collector_regex()), generate._ottl_string(collector_marking_regex())
    groups = [g["statements"] for kind in ("trace_statements", "metric_statements") for g in transform[kind]]
    for context in ("resource", "scope", "span", "spanevent", "datapoint"):
        mine = [g for g in groups if f"stringify_all({context}.cache)" in g]
        # resource and scope: one group in each signal
        assert len(mine) == (2 if context in ("resource", "scope") else 1), context
        for group in mine:
            for key in generate.TRANSFORM_KEYS:
                copy = f'set({context}.cache["{key}"], {context}.attributes["{key}"])'
                assert f'{copy} where {context}.attributes["{key}"] != nil' in group
            passes = [s for s in group if s.startswith("replace_all_patterns(") and (regex in s or marking in s)]
            masked = f'replace_all_patterns({context}.cache, "value", {regex}, "****")'
            if context in ("span", "datapoint"):
                assert passes == [masked], context
            else:
                # the one pass where the map held a mark, the marking pass elsewhere, then the redaction's pass again
                one_pass = f'replace_all_patterns({context}.attributes, "value", {regex},'
                assert passes[0].startswith(one_pass) and passes[0].endswith(" != nil"), context
                assert passes[1].startswith(f'replace_all_patterns({context}.attributes, "value", {marking},'), context
                assert passes[2].startswith(masked + " where IsMatch("), context
                assert len(passes) == 3, context
            assert group[-1].startswith(f'merge_maps({context}.attributes, {context}.cache, "upsert")'), context


def test_pipelines_order_and_sampling() -> None:
    config = load()
    pipelines = config["service"]["pipelines"]
    for name, pipeline in pipelines.items():
        processors = pipeline["processors"]
        assert processors[0] == "memory_limiter", name
        redaction = ("redaction/scrub_logs", *generate.PLAIN_LOG_PROCESSORS) if name == "logs" else (
            "redaction/scrub", *generate.PLAIN_PROCESSORS)  # fmt: skip
        start = processors.index("transform/scrub") + 1
        assert processors[start : start + len(redaction)] == list(redaction), name
    traces = pipelines["traces"]["processors"]
    assert (
        traces.index("redaction/scrub_plain")
        < traces.index("tail_sampling")
        < traces.index("batch")
    )
    policies = {p["name"]: p for p in config["processors"]["tail_sampling"]["policies"]}
    assert policies["errors"]["status_code"]["status_codes"] == ["ERROR"]
    assert (
        policies["classified-failures"]["string_attribute"]["key"]
        == ERRSCOPE_FAILURE_CLASS
    )
    assert "ERRSCOPE_SAMPLE_PERCENT" in str(policies["baseline-share"])
    assert "health_check" in config["service"]["extensions"]


def test_exporters_and_component_names() -> None:
    config = load()
    exporters = config["exporters"]
    assert set(exporters) == {
        "otlp_grpc/tempo",
        "otlp_http/loki",
        "prometheus_remote_write",
    }
    assert "loki:3100/otlp" in exporters["otlp_http/loki"]["endpoint"]
    assert exporters["prometheus_remote_write"]["endpoint"].endswith("/api/v1/write}")
    for name in ("otlp_grpc/tempo", "otlp_http/loki"):
        assert (
            exporters[name]["sending_queue"]["enabled"]
            and exporters[name]["retry_on_failure"]["enabled"]
        )
    assert set(config["receivers"]["otlp"]["protocols"]) == {"grpc", "http"}
    assert ":4317" in config["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]
    assert ":4318" in config["receivers"]["otlp"]["protocols"]["http"]["endpoint"]


def test_manifest_pins_one_release() -> None:
    manifest = yaml.safe_load((ROOT / "collector" / "builder-config.yaml").read_text())
    mods = [c["gomod"] for kind in ("receivers", "processors", "exporters", "extensions", "providers")
            for c in manifest.get(kind) or []]  # fmt: skip
    assert mods and manifest.get("connectors") is None
    for mod in mods:
        version = mod.split()[1]
        assert version in ("v0.161.0", "v1.67.0"), mod
