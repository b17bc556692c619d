"""Rejected arguments, in the words of real SDKs, become notes naming the argument and what it must be.

The messages come from ``tests/foreign/data/invalid_params_corpus.json`` (captured by ``tests.foreign.messages``
from the TypeScript SDK 2.x/1.x/1.24/1.17/1.12, the ``mcp`` SDK 2.x, 1.30 and 1.9, FastMCP 4/3/2, the Go SDKs go-sdk and mcp-go,
the Rust SDK rmcp).
What each note must say is read from the tools' schemas (``messages.CASES``), never from a captured message.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

from errscope.client._invalid_params import (
    invalid_params_note,
    is_argument_rejection,
    parse_argument_problems,
    unknown_tool_name,
)
from tests.conftest import require
from tests.foreign import messages

CORPUS = messages.load()
CASES = {case.name: case for case in messages.CASES}
# The capture servers' tools, as their schemas declare them (the Go servers list exactly these; the TS and Python
# servers' zod and pydantic models say the same). Only an argument a message names without its rule reads them.
SCHEMAS: dict[str, dict[str, Any]] = {
    "add": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
    "create_label": {"type": "object", "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-\\d{4}$"},
        "weight_kg": {"type": "number", "exclusiveMinimum": 0, "maximum": 30},
        "service": {"type": "string", "enum": ["ground", "express"]},
        "email": {"type": "string", "format": "email"},
    }, "required": ["order_id", "weight_kg", "service"]},
    "ship": {"type": "object", "properties": {
        "address": {"type": "object", "properties": {"city": {"type": "string"},
                                                     "zip": {"type": "string", "pattern": "^\\d{5}$"}}},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}},
    }, "required": ["address", "items"]},
}
DECLARED = {tool: set(schema["properties"]) for tool, schema in SCHEMAS.items()}
# jsonschema.validate raises only its best match, the Go SDK its first failed property, serde (rmcp) its first
# error: one problem per message, however many arguments are wrong.
FIRST_ERROR_ONLY = {"py-mcp1-lowlevel", "go-gosdk", "go-gosdk-1.2.0", "rust-rmcp"}
# The Go SDKs visit a schema's properties in Go map order: which problems a message names first (or, for the Go
# SDK, at all) changes from run to run, so the same release's words are compared as a set of issues (mcp-go) or
# not at all (go-sdk); every live message is still read and checked.
MAP_ORDER = {"go-gosdk", "go-gosdk-1.2.0", "go-mcpgo"}


def _without_index(field: str) -> str:
    return re.sub(r"\.\d+(?=\.|$)", "", re.sub(r"\[(\d+)\]", r".\1", field))


def check_record(record: dict[str, Any]) -> None:
    """One captured rejection reads as its case says: unknown tool, or the right arguments and expectations."""
    case = CASES[record["case"]]
    message = record["message"]
    if case.expect is None:  # rmcp's "tool not found" names no tool: the caller knows which one it asked for
        assert unknown_tool_name(message) == (case.tool if case.tool in message else "")
        assert not is_argument_rejection(message)
        return
    arguments = case.arguments if isinstance(case.arguments, dict) else None
    assert unknown_tool_name(message) is None, "an argument rejection read as an unknown tool"
    if record["channel"] == "execution":  # an isError result: only its words say the arguments were rejected
        assert is_argument_rejection(message, DECLARED[case.tool])
    # items[0].qty (zod 4 "at" lines), items.0.qty (pydantic, zod paths) and items.qty (a schema location, as
    # go-sdk reports it: a schema has no item index) name the same argument.
    problems = parse_argument_problems(message, arguments, SCHEMAS[case.tool])
    by_argument = {_without_index(field): field for field in case.expect or {}}
    named = {by_argument.get(_without_index(p.field), p.field): p.expected for p in problems}
    assert set(named) <= set(case.expect) | {"arguments"}, f"names arguments the case did not get wrong: {named}"
    if case.expect and record["peer"] in FIRST_ERROR_ONLY:
        assert len(named) == 1 and set(named) <= set(case.expect), f"not one wrong argument: {named}"
    elif case.expect:
        assert set(named) >= set(case.expect), f"missed arguments: {set(case.expect) - set(named)}"
    if case.expect:
        for field, expected in named.items():
            assert expected and any(word in expected for word in case.expect[field]), (field, expected)
    note = invalid_params_note(case.tool, message, arguments, SCHEMAS[case.tool])
    assert note.startswith(f"{case.tool} was rejected: invalid arguments") and len(note) <= 300
    for value in case.sent_values:
        assert value not in note, f"the note quotes a value the model sent: {value!r}"
    for noise in ("input_value", "errors.pydantic.dev", "MCP error", "[type=", '"code"'):
        assert noise not in note


@pytest.mark.parametrize("record", CORPUS["messages"], ids=lambda r: f"{r['peer']}:{r['case']}")
def test_stored_message(record: dict[str, Any]) -> None:
    """Every stored message of every SDK becomes the note its case asks for."""
    check_record(record)


def assert_complete(corpus: dict[str, Any]) -> None:
    """``corpus`` has every SDK release, and each answered every bad call exactly once: rejected, or unknown tool.

    A call an SDK let through (it ran the tool) leaves no record: a missing case is such a call.
    """
    assert set(corpus["peers"]) == {peer.name for peer in messages.PEERS}
    for peer in corpus["peers"]:
        cases = sorted(r["case"] for r in corpus["messages"] if r["peer"] == peer)
        assert cases == sorted(CASES), (peer, "missing:", set(CASES) - set(cases), "repeated:", len(cases) - len(set(cases)))


def test_corpus_covers_every_sdk_and_case() -> None:
    """The stored corpus has all sixteen SDK releases, and each rejected every bad call or said the tool is unknown."""
    assert_complete(CORPUS)


def test_completeness_check_sees_a_call_an_sdk_ran() -> None:
    """A capture in which one SDK let one bad call through (no record), or answered one twice, is incomplete."""
    for drop, repeat in ((1, 0), (0, 1)):
        records = CORPUS["messages"][drop:] + CORPUS["messages"][:repeat]
        with pytest.raises(AssertionError):
            assert_complete({**CORPUS, "messages": records})


def said_by(corpus: dict[str, Any], peer: str) -> list[tuple[Any, ...]]:
    """What ``peer`` answered to each case: its words, as a set of issues for SDKs that report in map order."""
    records = [r for r in corpus["messages"] if r["peer"] == peer]
    if peer.startswith("go-gosdk"):
        return [(r["case"], r["channel"], r["code"]) for r in records]
    if peer in MAP_ORDER:
        return [(r["case"], r["channel"], r["code"], sorted(re.split(r";\s+|:\s+(?=[/<])", r["message"])))
                for r in records]
    return [(r["case"], r["channel"], r["code"], r["message"]) for r in records]


@pytest.mark.stack
def test_stored_corpus_is_what_the_sdks_say_today() -> None:
    """Re-run every SDK: same versions give the same words; any words the SDKs give still read right."""
    for peer in messages.PEERS:
        require(peer.argv() is not None, f"{peer.name} is not installed (scripts/tools.sh builds it)")
    live = messages.capture_all()
    assert_complete(live)  # every SDK still rejects every bad call: agreement alone would miss one it now runs
    drifted = []
    for peer, versions in live["peers"].items():
        if versions == CORPUS["peers"].get(peer):
            assert said_by(live, peer) == said_by(CORPUS, peer), (
                f"{peer} {versions} answers differently: python -m tests.foreign.messages --write"
            )
        else:
            drifted.append(f"{peer}: {CORPUS['peers'].get(peer)} -> {versions}")
    for record in live["messages"]:
        check_record(record)
    if drifted:
        warnings.warn(f"SDK versions moved since the corpus was captured: {drifted}", stacklevel=1)


class TestShapesBeyondTheCorpus:
    """Structures the parser generalises to, written as the validators define them (not captured)."""

    def test_ajv_output_units(self) -> None:
        """ajv's error objects (JSON pointer paths, keyword params), as a TS SDK low-level server might send them."""
        message = (
            '[{"instancePath":"/address/zip","keyword":"pattern","params":{"pattern":"^\\\\d{5}$"},'
            '"message":"must match pattern \\"^\\\\d{5}$\\""},'
            '{"instancePath":"","keyword":"required","params":{"missingProperty":"name"},'
            '"message":"must have required property \'name\'"}]'
        )
        problems = [(p.field, p.expected) for p in parse_argument_problems(message)]
        assert problems == [("address.zip", "a string matching ^\\d{5}$"), ("name", "required")]

    def test_pydantic_errors_json(self) -> None:
        """pydantic's ``errors()`` serialised: loc tuples become dotted paths; ``input`` is dropped."""
        message = (
            'Invalid params: [{"type":"greater_than_equal","loc":["items",0,"qty"],"msg":"Input should be greater '
            'than or equal to 1","input":-4},{"type":"missing","loc":["currency"],"msg":"Field required"}]'
        )
        note = invalid_params_note("order", message)
        assert "`items.0.qty` must be at least 1" in note and "`currency` is required" in note and "-4" not in note

    def test_zod_unrecognized_keys_and_nested_paths(self) -> None:
        """zod 4's unrecognised keys and nested paths, in both the TS SDK 2.x and 1.x joins."""
        v2 = "Invalid arguments for tool t: address.city: Invalid input: expected string, received number"
        v1 = 'MCP error -32602: Input validation error: Invalid arguments for tool t: Unrecognized key: "colour"'
        assert [(p.field, p.expected) for p in parse_argument_problems(v2)] == [("address.city", "a string")]
        assert invalid_params_note("t", v1) == (
            "t was rejected: invalid arguments — `colour` is not an accepted argument. "
            "Fix the arguments and call again."
        )

    def test_upstream_pydantic_error_is_not_an_argument_rejection(self) -> None:
        """A tool that validated *upstream* data with pydantic failed on its own: its fields are not arguments."""
        message = "1 validation error for Invoice\nstatus\n  Input should be 'paid' or 'open' [type=literal_error]"
        assert not is_argument_rejection(message, declared={"invoice_id"})
        assert is_argument_rejection(message.replace("status", "invoice_id"), declared={"invoice_id"})

    def test_unknown_tool_never_claims_an_argument_problem(self) -> None:
        """'not found' inside an argument rejection is not an unknown tool."""
        message = "Input validation error: Invalid arguments for tool get_doc: doc_id: Tool doc not found in index"
        assert unknown_tool_name(message) is None
        assert unknown_tool_name("MCP error -32602: Tool get_ordr not found") == "get_ordr"
        assert unknown_tool_name("tool not found") == ""  # rmcp 1.8 names no tool: it is still an unknown tool

    def test_decoders_a_tool_binds_its_arguments_with(self) -> None:
        """Go's encoding/json (v1 and v2 wording) and Rust's serde name the field or echo the value, in their own
        type names; SDKs prefix them ("failed to deserialize parameters:", rmcp). Values are never quoted back."""
        sent = {"a": "seven", "service": "drone", "limit": "ten", "address": {"city": 75001}}
        cases = {
            "failed to deserialize parameters: invalid type: string \"seven\", expected f64": ("a", "a number"),
            "failed to deserialize parameters: missing field `b`": ("b", "required"),
            "failed to deserialize parameters: unknown field `colour`, expected `a` or `b`": ("colour", "unexpected"),
            "failed to deserialize parameters: unknown variant `drone`, expected `ground` or `express`":
                ("service", "one of ground, express"),
            "json: cannot unmarshal string into Go struct field Page.limit of type int": ("limit", "an integer"),
            "json: cannot unmarshal number into Go struct field Ship.address.city of type string":
                ("address.city", "a string"),
            'json: cannot unmarshal JSON string into Go int within "/limit"': ("limit", "an integer"),
            'required argument "customer" not found': ("customer", "required"),
            'argument "customer" is not a string': ("customer", "a string"),
        }
        for message, problem in cases.items():
            assert [(p.field, p.expected) for p in parse_argument_problems(message, sent)] == [problem], message
            assert is_argument_rejection(message, declared={"a", "b", "service", "limit", "address", "customer"})
            note = invalid_params_note("t", message, sent)
            assert not any(value in note for value in ("seven", "drone", "ten", "75001")), note

    def test_jsonpath_and_fragment_locations(self) -> None:
        """Validators that put a JSONPath (``$.a``, Java's networknt) or a fragment pointer (``#/a``, everit) before
        their own sentence: the location names the argument; a sentence the phrases do not know leaves what it must
        be to the tool's listed schema."""
        schema = SCHEMAS["create_label"]
        cases = {
            "$.weight_kg: string found, number expected": ("weight_kg", "a number"),
            "$: required property 'service' not found": ("service", "required"),
            "$.service: is missing but it is required": ("service", "required"),
            "#/weight_kg: expected type: Number, found: String": ("weight_kg", "a number"),
            "#: required key [order_id] not found": ("order_id", "required"),
            "$.weight_kg: must have an exclusive minimum value of 0": ("weight_kg", "greater than 0"),
            # networknt 2+/3 (the Java SDK 2.x): a bare JSON pointer, issues inside "[...]"
            "JSON schema validation errors: [/weight_kg: string found, number expected]": ("weight_kg", "a number"),
            "errors: [/weight_kg: must have a maximum value of 30]": ("weight_kg", "at most 30"),
            "errors: [/service: does not have a value in the enumeration [\"ground\", \"express\"]]":
                ("service", "one of ground, express"),
            "errors: [/order_id: does not match the regex pattern ^ORD-\\d{4}$]":
                ("order_id", "a string matching ^ORD-\\d{4}$"),
            "errors: [/order_id: must be at most 8 characters long]": ("order_id", "at most 8 characters"),
            "errors: [/email: does not match the email pattern ^\\S+@\\S+$]":
                ("email", "a valid email"),
            "errors: [: property 'colour' is not defined in the schema and the schema does not allow additional "
            "properties]": ("colour", "unexpected"),
        }
        for message, (field, expected) in cases.items():
            problems = parse_argument_problems(f"Invalid arguments: {message}", {"weight_kg": "heavy"}, schema)
            assert problems, message
            assert [p.field for p in problems] == [field], message
            assert expected in (problems[0].expected or ""), (message, problems[0].expected)

    def test_a_tools_own_check_in_words(self) -> None:
        """rmcp servers check what serde cannot with ``ErrorData::invalid_params("order_id must match ...")``."""
        note = invalid_params_note("create_label", "order_id must match ^ORD-\\d{4}$", {"order_id": "x-17"})
        assert "`order_id` must be a string matching ^ORD-\\d{4}$" in note

    def test_a_decoder_report_about_upstream_data_is_not_an_argument_rejection(self) -> None:
        """Go and serde decode upstream answers too: their report counts only for a field the tool declares."""
        upstream = "json: cannot unmarshal string into Go struct field Invoice.status of type int"
        assert not is_argument_rejection(upstream, declared={"invoice_id"})
        assert not is_argument_rejection("missing field `total` at line 1 column 20", declared={"invoice_id"})
        assert not is_argument_rejection('upstream said: required argument "api_version" not found', declared={"q"})
