"""Tool arguments checked against the tool's declared ``inputSchema`` before the tool runs.

MCP tools declare a JSON Schema (2020-12 unless ``$schema`` says otherwise; MCP spec, Tools > Data
Types); the low-level SDK server checks nothing and ``MCPServer`` coerces ``"40"`` into ``40``
silently. Validating against the declaration gives every server style the same answer, and the
failure becomes a tool execution error the model can fix (SEP-1303), built from the schema and the
field path, never from the rejected value.

Every call is checked, so the check is split: ``jsonschema-rs`` (Rust, ~0.1 µs) says whether the
arguments are valid; only when they are not does ``jsonschema`` walk the errors to name each field.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import jsonschema
import jsonschema_rs
from jsonschema.protocols import Validator

try:  # google-re2 (a dependency): linear-time matching
    import re2 as _re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover
    _re2 = None

from errscope._classify import FieldProblem
from errscope._messages import describe_schema, expected_for_path

__all__ = ["FINITE", "ArgumentValidator", "non_finite_path"]

_CACHE_LIMIT: Final = 1024


class ArgumentValidator:
    """Validates arguments against input schemas; compiled validators are cached per schema object."""

    def __init__(self) -> None:
        # id(schema) -> (schema, validator); the schema is kept so its id cannot be reused.
        self._validators: dict[int, tuple[Mapping[str, Any], Validator]] = {}
        self._fast: dict[int, tuple[Mapping[str, Any], Callable[[Any], bool] | None]] = {}

    def _compile_fast(self, schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
        try:
            check: Callable[[Any], bool] | None = jsonschema_rs.validator_for(schema, validate_formats=True).is_valid
        except Exception:  # noqa: BLE001 - a schema it cannot compile goes the detailed way only
            check = None
        if len(self._fast) >= _CACHE_LIMIT:
            self._fast.clear()
        self._fast[id(schema)] = (schema, check)
        return check

    def _validator(self, schema: Mapping[str, Any]) -> Validator:
        cached = self._validators.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        cls = _linear(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        if len(self._validators) >= _CACHE_LIMIT:
            self._validators.clear()
        self._validators[id(schema)] = (schema, validator)
        return validator

    def problems(self, schema: Mapping[str, Any] | None, arguments: Any, *, root: str | None = None) -> tuple[FieldProblem, ...]:
        """Return what is wrong with ``arguments``, in schema order; empty when they are valid.

        ``root`` names the instance when it is not the arguments (``"structuredContent"``): field
        paths are then prefixed with it. A schema that itself is invalid is ignored (the server's
        bug is not the caller's problem).
        """
        if not schema:
            return ()
        non_finite = non_finite_path(arguments, [])
        if non_finite is not None:  # valid for both engines ("number"), yet no JSON number: refused before the tool
            problem = FieldProblem(_dotted(non_finite) or "arguments", FINITE)
            if root is not None:
                problem = FieldProblem(root if problem.path == "arguments" else f"{root}.{problem.path}", FINITE)
            return (problem,)
        cached = self._fast.get(id(schema))  # every call passes here: the lookup is inline
        is_valid = cached[1] if cached is not None and cached[0] is schema else self._compile_fast(schema)
        try:
            if is_valid is not None and is_valid(arguments):
                return ()
        except Exception:  # noqa: BLE001 - e.g. a value it cannot convert: decide the detailed way
            pass
        try:
            validator = self._validator(schema)
            errors = sorted(validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
        except (jsonschema.SchemaError, jsonschema.exceptions._WrappedReferencingError, RecursionError, re.error):
            return ()
        problems: dict[str, FieldProblem] = {}
        for error in errors:
            for problem in _problems_of(schema, error, arguments):
                if root is not None:
                    path = root if problem.path == "arguments" else f"{root}.{problem.path}"
                    problem = FieldProblem(path, problem.expected)
                problems.setdefault(problem.path, problem)
        return tuple(problems.values())


# NaN and Infinity are no JSON numbers (RFC 8259 §6), so no JSON Schema "number" admits them; Python's json module
# and pydantic read the literals ``NaN``/``Infinity`` (and 1e400 as inf) from a host that wrote them, and both schema
# engines then accept the float. A tool would run with amount=nan.
FINITE: Final = "a finite number (JSON has no NaN or Infinity)"


def non_finite_path(value: Any, path: list[Any]) -> list[Any] | None:
    """The path of the first NaN or infinite float in ``value`` (JSON-decoded: dicts, lists, scalars), or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (float, dict, list)):
                found = non_finite_path(item, [*path, key])
                if found is not None:
                    return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (float, dict, list)):
                found = non_finite_path(item, [*path, index])
                if found is not None:
                    return found
    return None


@functools.lru_cache(maxsize=256)
def _search(pattern: str) -> Callable[[str], Any]:
    if _re2 is not None:
        options = _re2.Options()
        options.log_errors = False  # a pattern RE2 refuses is not worth a stderr line per schema
        try:
            return _re2.compile(pattern, options).search
        except Exception:  # noqa: BLE001 - lookaround, backreferences: only the stdlib engine has them
            pass
    return re.compile(pattern).search


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[jsonschema.ValidationError]:
    # jsonschema's own keyword runs Python's backtracking engine on the caller's string: a pattern
    # such as ^([a-z0-9]+)*@x$ and 40 hostile characters block the event loop for days. RE2 is
    # linear, as is the Rust engine pydantic validates the same pattern with.
    if validator.is_type(instance, "string") and not _search(pattern)(instance):
        yield jsonschema.ValidationError(f"does not match {pattern!r}")  # the value is never echoed


def _pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]) -> Iterator[jsonschema.ValidationError]:
    # The keys are the caller's: same engine as for "pattern".
    if validator.is_type(instance, "object"):
        for pattern, subschema in patterns.items():
            search = _search(pattern)
            for key, value in instance.items():
                if search(key):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[jsonschema.ValidationError]:
    # jsonschema's keyword matches patternProperties with re as well; same semantics, RE2 matching.
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    searches = [_search(pattern) for pattern in schema.get("patternProperties", {})]
    extras = [key for key in instance if key not in properties and not any(search(key) for search in searches)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        yield jsonschema.ValidationError("additional properties are not allowed")


def _unique_items(validator: Any, unique: bool, instance: Any, schema: Mapping[str, Any]) -> Iterator[jsonschema.ValidationError]:
    # jsonschema compares unhashable items (objects) pairwise: 2,000 objects took ~6 s. Hashing
    # a canonical form is linear, with JSON Schema's equality (1 == 1.0, true != 1, key order free).
    if unique and validator.is_type(instance, "array"):
        seen = set()
        for item in instance:
            key = _canonical(item)
            if key in seen:
                yield jsonschema.ValidationError("has non-unique elements")
                return
            seen.add(key)


def _canonical(value: Any) -> Any:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, Mapping):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("array", tuple(_canonical(item) for item in value))
    return value  # str, None, and numbers (1 and 1.0 hash and compare equal)


@functools.cache
def _linear(cls: type[Validator]) -> type[Validator]:
    keywords = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "uniqueItems": _unique_items,
    }
    return jsonschema.validators.extend(cls, keywords)  # type: ignore[return-value]


def _problems_of(schema: Mapping[str, Any], error: jsonschema.ValidationError, arguments: Any) -> list[FieldProblem]:
    path = list(error.absolute_path)
    if error.validator == "required":
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        return [
            FieldProblem(_dotted([*path, name]), "present")
            for name in error.validator_value
            if name not in instance
        ]
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = set((error.schema.get("properties") or {}).keys())
        searches = [_search(pattern) for pattern in error.schema.get("patternProperties") or {}]
        return [
            FieldProblem(_dotted([*path, name]), "absent")
            for name in error.instance
            if name not in allowed and not any(search(name) for search in searches)
        ]
    if error.validator in _OBJECT_RULES:  # a rule over several fields: name it, not one field
        return [FieldProblem(_dotted(path) or "arguments", _alternatives(error) or _OBJECT_RULES[error.validator])]
    if not path:
        return [FieldProblem("arguments", describe_schema(error.schema) or "an object")]
    expected = expected_for_path(schema, path) or describe_schema(error.schema)
    return [FieldProblem(_dotted(path), expected)]


_OBJECT_RULES: Final = {
    "oneOf": "exactly one of the allowed combinations of fields (oneOf)",
    "anyOf": "one of the allowed combinations of fields (anyOf)",
    "allOf": "valid under every rule of the schema (allOf)",
    "not": "outside the combination the schema forbids (not)",
    "dependentRequired": "given together with the fields it depends on (dependentRequired)",
    "dependentSchemas": "valid for the fields it depends on (dependentSchemas)",
    "minProperties": "given with more fields (minProperties)",
    "maxProperties": "given with fewer fields (maxProperties)",
}
"""JSON Schema 2020-12 keywords that judge several fields at once, and what they ask for."""


def _alternatives(error: jsonschema.ValidationError) -> str | None:
    # oneOf/anyOf over "required" sets (the usual "give a or b" schema): name the fields.
    options = error.validator_value
    if error.validator not in ("oneOf", "anyOf") or not isinstance(options, list):
        return None
    groups = [o.get("required") for o in options if isinstance(o, Mapping)]
    if len(groups) != len(options) or not all(isinstance(g, list) and g for g in groups):
        return None
    names = " or ".join("+".join(str(n) for n in group) for group in groups[:6])
    return f"given with {'exactly ' if error.validator == 'oneOf' else ''}one of {names} ({error.validator})"


def _dotted(path: list[Any]) -> str:
    return ".".join(str(part) for part in path)
