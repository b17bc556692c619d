"""Write the generated block of collector/config.yaml from errscope's one pattern source.

    python -m collector.generate          # rewrite the block in place
    python -m collector.generate --check  # exit 1 when the committed block has drifted

The block holds the scrubbing processors and the tail-sampling policies. The conventions' exception attributes of
traces and metrics (a span event's stack trace: the bulk of the bytes) meet the combined pattern of
:mod:`errscope._patterns` once, and a second time only where the first pass changed them (the one kind of value where
a second pass can still mask something: on 34 of 9,008 lines of the shared corpus and the held-out sets, a match the
first pass kept as another match's context, such as an AWS key id before its secret); other attribute values the
transform scrubs still meet the redaction processors after it, as before:

- ``transform/scrub``: OTTL ``replace_pattern`` / ``replace_all_patterns`` with the combined pattern on the fields
  the redaction processor cannot reach (span name, status message, event names), on event attributes, log bodies and
  attributes, resource and scope attributes; the key name is kept (``api_key=[REDACTED]``). Four passes a field:
  each match is marked, found by the pattern without its groups (:func:`errscope._patterns.marking_regex`); each
  marked match is read again with the groups and replaced (:func:`errscope._patterns.marked_regex`); a marked match
  left, or the rest of one read in part (:data:`errscope._patterns.MARKED_LEFT`), is masked whole and a mark left
  removed. A field that holds a mark of its own gets the one pass instead (:data:`HELD_MARKS`). Go's regexp copies all
  ~215 groups into every NFA thread at every
  byte when the replacement needs them: read over the marked bytes alone, the corpus tests' Collector took ~40 % less
  time (bench/README.md). And the conventions'
  exception attributes (:data:`TRANSFORM_KEYS`: ``exception.message``, ``exception.stacktrace``,
  ``exception.type``) in every map of traces and metrics, which the redaction processors of those pipelines skip:
  made strings first in the context's cache, as the redaction processor's ``redact_all_types`` would (a list or
  map as JSON); on span and data point attributes, which no ``replace_all_patterns`` covers whole, masked whole
  there (``****``) as the redaction processor did; on resource, scope and event attributes the map's own pass, then
  the redaction processor's ``****`` pass on the values it changed (every replacement writes
  :data:`errscope._patterns.REDACTED`). Span, span-event, data-point, resource and scope statements are separate
  groups, so each runs in its own context. Free-text fields are guarded: a value of at most 28 characters
  (:data:`PLAIN_TIERS`) without a separator meets the marking pass only where the token shapes that fit in it match
  (the redaction processors' tiers below), any other only where :data:`errscope._patterns.GUARD` matches (run as
  :func:`errscope._patterns.collector_guard`, the same texts at about a quarter of Go's CPU).
- ``redaction/scrub`` and ``redaction/scrub_plain`` (traces, metrics), ``redaction/scrub_logs`` and
  ``redaction/scrub_logs_plain`` (logs; the same lists, YAML aliases): the same combined pattern as their one
  ``blocked_values`` entry, with ``allow_all_keys: true``, on every attribute value (span, event, log, datapoint,
  resource; string arrays and maps too) and nested map/slice log bodies, which OTTL cannot walk; a match is masked
  whole (``****``). One entry, not one per pattern: the processor applies its entries one after another on the
  text the previous ones masked, so an earlier entry's mask could cut the context a later entry needed
  (:func:`errscope._patterns.collector_blocked_values`); one alternation is the transform's one
  leftmost-first pass. Closed-vocabulary keys are skipped (``ignored_keys``), and in traces and metrics the
  exception keys too, which the transform scrubs: a span event's 1.6 KB stack trace was scanned twice, the transform's
  pass and then this one on the same unchanged value (~80 % of a scale-out gateway's CPU). Logs keep them:
  ``ignored_keys`` also skips a key nested at any depth of a map log body, which OTTL cannot reach. Span and datapoint
  attributes other than the exception keys are left to them alone. ``allowed_values`` splits the values between
  the two of a pipeline: one holding a separator some pattern needs meets every pattern in redaction/scrub, one
  holding none (most: addresses, names, ids) only the token shapes' alternation, split again by length
  (:data:`PLAIN_TIERS`): ``redaction/scrub_plain_12``, ``_20`` and ``_28`` hold only the shapes that fit in a value
  of at most that many characters (:func:`errscope._patterns.plain_min_length`), ``redaction/scrub_plain`` all of
  them for a longer value; their ``allowed_values`` skip the values of the other lengths. Go's regexp visits the
  first instructions of every alternative at every byte: a service name paid for all the shapes (bench/README.md).
- ``tail_sampling``: keep every trace with an ERROR span, an ``errscope.failure_class`` attribute or an
  ``errscope.outcome`` of ``cancelled`` or ``timeout``, plus ``ERRSCOPE_SAMPLE_PERCENT`` (default 10) percent of the
  rest.

Rendering rules: a regex goes into an OTTL string literal (``\\`` and ``"`` escaped), the statement
into a YAML single-quoted scalar (``'`` doubled), and every ``$`` is written ``$$`` (confmap).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Final

from opentelemetry.semconv.attributes.exception_attributes import (
    EXCEPTION_MESSAGE,
    EXCEPTION_STACKTRACE,
    EXCEPTION_TYPE,
)

from errscope._attributes import (
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_OUTCOME,
    METRIC_ATTRIBUTES,
)
from errscope._patterns import (
    COLLECTOR_MARKING,
    GUARD,
    collector_guard,
    MARKED_LEFT,
    MARKS,
    REDACTED,
    collector_blocked_values,
    collector_marked_regex,
    collector_marked_replacement,
    collector_marking_regex,
    collector_plain_value,
    collector_regex,
    collector_replacement,
    collector_length_outside,
    collector_separated_value,
    collector_short_plain_blocked_values,
    collector_short_plain_value,
)

CONFIG = Path(__file__).resolve().parent / "config.yaml"

TRANSFORM_KEYS: Final = (EXCEPTION_MESSAGE, EXCEPTION_STACKTRACE, EXCEPTION_TYPE)
"""Attribute keys the transform scrubs in every map of traces and metrics (resource, scope, span, span event, data
point), which the redaction processors of those pipelines skip (``ignored_keys``): the conventions' exception
attributes, free text that carries whole stack traces, scanned by the combined pattern once, not twice."""

REDACTION_MASK: Final = "****"
"""What the redaction processor writes for a match (``hash_function`` unset)."""

CLOSED_VOCABULARY: Final = sorted({*METRIC_ATTRIBUTES, ERRSCOPE_ERROR_REF})
"""Closed-vocabulary attributes (bounded values, never secrets; :mod:`errscope._attributes`): no processor scans them."""
BEGIN = "  # BEGIN GENERATED by `python -m collector.generate` - do not edit by hand"
END = "  # END GENERATED"


HELD_MARKS: Final = "errscope.held_marks"
"""The context's cache key the transform sets while a field it scrubs held a mark before it marked anything
(:data:`errscope._patterns.MARKS`): that field gets the one pass, the marked passes skip it; deleted after the field,
before any ``merge_maps`` of the cache."""


PLAIN_TIERS: Final = (12, 20, 28)
"""The longest value (characters) of each length tier of the token shapes' processors but the last: a plain value of
at most 12 characters meets the shapes that fit in 12 (:func:`errscope._patterns.plain_min_length`), one of 13 to 20
those that fit in 20, and so on; a longer one all of them (``redaction/scrub_plain``). Addresses, host and service
names, ids and numbers are mostly short, and few shapes fit in them (3 and 14 of 66 at 12 and 20 characters when
this was written; bench/README.md, bench_collector)."""


def plain_tiers() -> list[tuple[str, int, int | None]]:
    """``(name, shortest, longest)`` of each token-shape processor of traces and metrics, in pipeline order
    (``longest`` ``None``: no bound); the logs pipeline's are named ``scrub_logs_plain…``."""
    tiers: list[tuple[str, int, int | None]] = []
    shortest = 0
    for longest in PLAIN_TIERS:
        tiers.append((f"scrub_plain_{longest}", shortest, longest))
        shortest = longest + 1
    return [*tiers, ("scrub_plain", shortest, None)]


PLAIN_PROCESSORS: Final = tuple(f"redaction/{name}" for name, _, _ in plain_tiers())
"""The token shapes' processors of the traces and metrics pipelines, in order."""
PLAIN_LOG_PROCESSORS: Final = tuple(p.replace("scrub", "scrub_logs", 1) for p in PLAIN_PROCESSORS)
"""The same for the logs pipeline (their lists are the traces ones', YAML aliases)."""


def _tier_words(shortest: int, longest: int | None) -> str:
    if longest is None:
        return f"(all), on plain values of {shortest} or more characters"
    return f"that fit in {longest} characters, on plain values of {shortest} to {longest}"


def _context(path: str) -> str:
    return path.split(".", 1)[0]


def _held_marks(path: str) -> tuple[str, str]:
    """The cache entry :data:`HELD_MARKS` of ``path``'s context, and the condition that it is unset."""
    held = f"{_context(path)}.cache[{_ottl_string(HELD_MARKS)}]"
    return held, f"{held} == nil"


def _ottl_string(value: str) -> str:
    # an unprintable character (the marks) as an escape OTTL reads (its lexer unquotes as Go does)
    text = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text) + '"'


def _yaml_single(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _statement(call: str) -> str:
    return "          - " + _yaml_single(call)


def _groups(groups: list[list[str]]) -> list[str]:
    lines: list[str] = []
    for statements in groups:
        lines.append("      - statements:")
        lines.extend(_statement(s) for s in statements)
    return lines


def _redaction(
    name: str, comment: str, blocked: list[str], skip: list[str], ignored: list[str], anchor: str = "", alias: str = ""
) -> list[str]:
    """One redaction processor; ``anchor`` names its value lists as YAML anchors, ``alias`` reuses another's."""
    lines = [
        f"  {name}:",
        "    allow_all_keys: true",
        "    redact_all_types: true  # string arrays (HTTP header attributes) and maps too",
        "    summary: silent",
        f"    # {comment}",
        "    ignored_keys: [" + ", ".join(ignored) + "]",
    ]
    if alias:
        return [
            *lines,
            f"    allowed_values: *{alias}_allowed",
            f"    blocked_values: *{alias}_blocked",
            "",
        ]
    allowed_mark, blocked_mark = (f" &{anchor}_allowed", f" &{anchor}_blocked") if anchor else ("", "")
    return [
        *lines,
        f"    allowed_values:{allowed_mark} [{', '.join(map(_yaml_single, skip))}]  # an allowed value skips every entry below",
        "    # one alternation, one leftmost-first pass (entries run one after another)",
        f"    blocked_values:{blocked_mark}",
        *("      - " + _yaml_single(value) for value in blocked),
        "",
    ]


def render_block() -> str:
    regex = _ottl_string(collector_regex())
    marking, mark = _ottl_string(collector_marking_regex()), _ottl_string(COLLECTOR_MARKING)
    marked_regex, left = _ottl_string(collector_marked_regex()), _ottl_string(MARKED_LEFT)
    marked_repl, marks = _ottl_string(collector_marked_replacement()), _ottl_string(MARKS)
    start, end, redacted = _ottl_string(r"\x{fdd0}"), _ottl_string(r"\x{fdd1}"), _ottl_string(REDACTED)
    replacement = _ottl_string(collector_replacement())

    guard = _ottl_string(collector_guard())

    tiers = [(low, high) for _, low, high in plain_tiers() if high is not None]
    short_plain = {high: _ottl_string(collector_short_plain_value(low, high)) for low, high in tiers}
    short_shapes = {high: _ottl_string(collector_short_plain_blocked_values(high)[0]) for _, high in tiers}
    any_short_plain = _ottl_string(collector_short_plain_value(0, tiers[-1][1]))

    def admits(path: str) -> str:
        # A value without a separator of at most PLAIN_TIERS[-1] characters can hold only the token shapes that fit
        # in it (as in the redaction processors' tiers): those instead of GUARD. Anything else meets GUARD.
        short = [f"(IsMatch({path}, {short_plain[high]}) and IsMatch({path}, {short_shapes[high]}))" for _, high in tiers]
        rest = f"(not IsMatch({path}, {any_short_plain}) and IsMatch({path}, {guard}))"
        return "(" + " or ".join([*short, rest]) + ")"

    def one(path: str, where: str = "") -> list[str]:
        # Free-text fields are guarded by a cheap regex every secret match satisfies (a ':', '=',
        # '>' or a 15-character token run): most span names never reach the full pattern.
        def when(condition: str) -> str:
            return f"{where} and {condition}" if where else f" where {condition}"

        held, fresh = _held_marks(path)
        return [
            f"set({held}, true){when(f'IsMatch({path}, {marks})')}",
            f"replace_pattern({path}, {regex}, {replacement}) where {held} != nil",
            f"replace_pattern({path}, {marking}, {mark}){when(f'{fresh} and {admits(path)}')}",
            f"replace_pattern({path}, {marked_regex}, {marked_repl}){when(f'{fresh} and IsMatch({path}, {start})')}",
            f"replace_pattern({path}, {left}, {redacted}){when(f'{fresh} and IsMatch({path}, {end})')}",
            f'replace_pattern({path}, {marks}, ""){when(f"{fresh} and IsMatch({path}, {marks})")}',
            f"delete_key({_context(path)}.cache, {_ottl_string(HELD_MARKS)}) where {held} != nil",
        ]

    def every(path: str, where: str = "") -> list[str]:
        # a map that holds a mark anywhere (IsMatch reads a map as its JSON) gets the one pass on every value
        held, fresh = _held_marks(path)
        marked = f"{where} and {fresh}" if where else f" where {fresh}"
        return [
            f"set({held}, true){where + ' and' if where else ' where'} IsMatch({path}, {marks})",
            f'replace_all_patterns({path}, "value", {regex}, {replacement}) where {held} != nil',
            f'replace_all_patterns({path}, "value", {marking}, {mark}){marked}',
            f'replace_all_patterns({path}, "value", {marked_regex}, {marked_repl}){marked}',
            f'replace_all_patterns({path}, "value", {left}, {redacted}){marked}',
            f'replace_all_patterns({path}, "value", {marks}, ""){marked}',
            f"delete_key({_context(path)}.cache, {_ottl_string(HELD_MARKS)}) where {held} != nil",
        ]

    mask = _ottl_string(REDACTION_MASK)
    marker = _ottl_string(re.escape(REDACTED))

    def copy_keys(context: str) -> list[str]:
        # TRANSFORM_KEYS of one map to the context's cache; an absent key is not copied (set() would write an empty
        # value, which stringify_all makes "" and merge_maps would add)
        return [
            f'set({context}.cache["{key}"], {context}.attributes["{key}"]) where {context}.attributes["{key}"] != nil'
            for key in TRANSFORM_KEYS
        ]

    def merge_back(context: str, where: str = "") -> str:
        return f'merge_maps({context}.attributes, {context}.cache, "upsert"){where}'

    def masked_keys(context: str) -> list[str]:
        # Span and data point attributes, which no replace_all_patterns covers whole: what the redaction processors
        # did to TRANSFORM_KEYS there, in the cache (made strings as redact_all_types would: a map or list as JSON,
        # bytes as base64; every match masked whole). The combined pattern on a value without a separator matches
        # what redaction/scrub_plain's token shapes do (tests/test_collector_guard.py).
        return [
            *copy_keys(context),
            f"stringify_all({context}.cache)",
            f'replace_all_patterns({context}.cache, "value", {regex}, {mask})',
            merge_back(context),
        ]

    def covered_keys(context: str) -> list[str]:
        # Resource, scope and span event attributes, which replace_all_patterns covers whole: TRANSFORM_KEYS made
        # strings first (it touches strings only), then, after it, the redaction processors' pass on them again,
        # where it can still mask something: only a value the first pass changed holds a match (every replacement
        # writes the marker; a value that held the marker before costs one more pass, no more).
        attributes = f"{context}.attributes"
        changed = " or ".join(f'IsMatch({context}.cache["{key}"], {marker})' for key in TRANSFORM_KEYS)
        return [
            *copy_keys(context),
            f"stringify_all({context}.cache)",
            merge_back(context),
            *every(attributes),
            *copy_keys(context),
            f'replace_all_patterns({context}.cache, "value", {regex}, {mask}) where {changed}',
            merge_back(context, f" where {changed}"),
        ]

    resource = every("resource.attributes")
    scope = every("scope.attributes")
    lines = [
        BEGIN,
        "  # Source: instrumentation/errscope/_patterns.py (combined pattern, one regex per field).",
        "  transform/scrub:",
        "    error_mode: ignore",
        "    trace_statements:",
        *_groups(
            [
                covered_keys("resource"),
                covered_keys("scope"),
                [*one("span.name"), *one("span.status.message"), *masked_keys("span")],
                [*one("spanevent.name"), *covered_keys("spanevent")],
            ]
        ),
        "    log_statements:",
        *_groups(
            [
                resource,
                scope,
                [
                    *one("log.body", " where IsString(log.body)"),
                    *every("log.body", " where IsMap(log.body)"),
                    *every("log.attributes"),
                ],
            ]
        ),
        "    metric_statements:",
        *_groups([covered_keys("resource"), covered_keys("scope"), masked_keys("datapoint")]),
        "",
        *_redaction(
            "redaction/scrub",
            "traces, metrics: every pattern, on a value with a separator; not on the exception keys (transform/scrub's)",
            collector_blocked_values(),
            [collector_plain_value()],
            [*CLOSED_VOCABULARY, *TRANSFORM_KEYS],
            anchor="scrub",
        ),
        *(
            line
            for name, shortest, longest in plain_tiers()
            for line in _redaction(
                f"redaction/{name}",
                f"traces, metrics: the token shapes {_tier_words(shortest, longest)}, on the values redaction/scrub "
                "skipped; not on the exception keys",
                collector_short_plain_blocked_values(longest) if longest else collector_blocked_values(plain=True),
                [*collector_length_outside(shortest, longest), collector_separated_value()],
                [*CLOSED_VOCABULARY, *TRANSFORM_KEYS],
                anchor=name,
            )
        ),
        # Logs keep the exception keys: the processor skips an ignored key at any depth of a map log body too, where
        # OTTL cannot reach it.
        *_redaction(
            "redaction/scrub_logs",
            "logs: redaction/scrub's lists, on the exception keys too (nested in a map body, only redaction reaches one)",
            [],
            [],
            CLOSED_VOCABULARY,
            alias="scrub",
        ),
        *(
            line
            for name, _, _ in plain_tiers()
            for line in _redaction(
                f"redaction/{name.replace('scrub', 'scrub_logs', 1)}",
                f"logs: redaction/{name}'s lists, on the exception keys too",
                [],
                [],
                CLOSED_VOCABULARY,
                alias=name,
            )
        ),
        "  tail_sampling:",
        "    decision_wait: ${env:ERRSCOPE_DECISION_WAIT:-10s}",
        "    num_traces: 50000",
        # a sampled trace's late spans are kept too: a timed-out call's server span ends when the tool it left
        # running finishes, after the decision its client's error span made
        "    decision_cache:",
        "      sampled_cache_size: 100000",
        "    policies:",
        "      - name: errors",
        "        type: status_code",
        "        status_code:",
        "          status_codes: [ERROR]",
        "      - name: classified-failures",
        "        type: string_attribute",
        "        string_attribute:",
        f"          key: {ERRSCOPE_FAILURE_CLASS}",
        '          values: [".+"]',
        "          enabled_regex_matching: true",
        # A server's span of a call its client gave up on ends cancelled, with no error of its own, and may reach the
        # Collector a decision wait before the client's error span: kept by itself, so the trace is whole.
        "      - name: unfinished-calls",
        "        type: string_attribute",
        "        string_attribute:",
        f"          key: {ERRSCOPE_OUTCOME}",
        "          values: [cancelled, timeout]",
        "      - name: baseline-share",
        "        type: probabilistic",
        "        probabilistic:",
        "          sampling_percentage: ${env:ERRSCOPE_SAMPLE_PERCENT:-10}",
        END,
    ]
    return "\n".join(lines)


def render(config_text: str) -> str:
    start = config_text.index(BEGIN)
    end = config_text.index(END, start) + len(END)
    return config_text[:start] + render_block() + config_text[end:]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    current = CONFIG.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in args:
        if current != wanted:
            print(
                f"{CONFIG} is out of date: run python -m collector.generate",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != wanted:
        CONFIG.write_text(wanted, encoding="utf-8")
        print(f"wrote {CONFIG}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
