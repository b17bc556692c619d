"""Tool arguments checked against the tool's declared ``inputSchema`` before the tool runs.

MCP tools declare a JSON Schema (2020-12 unless ``$schema`` says otherwise; MCP spec, Tools > Data
Types); the low-level SDK server checks nothing and ``MCPServer`` coerces ``"40"`` into ``40``
silently. Validating against the declaration gives every server style the same answer, and the
failure becomes a tool execution error the model can fix (SEP-1303), built from the schema and the
field path, never from the rejected value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import jsonschema
from jsonschema.protocols import Validator

from errscope._classify import FieldProblem
from errscope._messages import describe_schema, expected_for_path

__all__ = ["ArgumentValidator"]

_CACHE_LIMIT: Final = 1024


class ArgumentValidator:
    """Validates arguments against input schemas; compiled validators are cached per schema object."""

    def __init__(self) -> None:
        # id(schema) -> (schema, validator); the schema is kept so its id cannot be reused.
        self._validators: dict[int, tuple[Mapping[str, Any], Validator]] = {}

    def _validator(self, schema: Mapping[str, Any]) -> Validator:
        cached = self._validators.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        if len(self._validators) >= _CACHE_LIMIT:
            self._validators.clear()
        self._validators[id(schema)] = (schema, validator)
        return validator

    def problems(self, schema: Mapping[str, Any] | None, arguments: Any) -> tuple[FieldProblem, ...]:
        """Return what is wrong with ``arguments``, in schema order; empty when they are valid.

        A schema that itself is invalid is ignored (the server's bug is not the caller's problem).
        """
        if not schema:
            return ()
        try:
            validator = self._validator(schema)
            errors = sorted(validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
        except (jsonschema.SchemaError, jsonschema.exceptions._WrappedReferencingError, RecursionError):
            return ()
        problems: dict[str, FieldProblem] = {}
        for error in errors:
            for problem in _problems_of(schema, error, arguments):
                problems.setdefault(problem.path, problem)
        return tuple(problems.values())


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
        return [FieldProblem(_dotted([*path, name]), "absent") for name in error.instance if name not in allowed]
    if not path:
        return [FieldProblem("arguments", describe_schema(error.schema) or "an object")]
    expected = expected_for_path(schema, path) or describe_schema(error.schema)
    return [FieldProblem(_dotted(path), expected)]


def _dotted(path: list[Any]) -> str:
    return ".".join(str(part) for part in path)
