"""The public surface is errscope.__all__: pinned, sorted, complete (httpx's test_exported_members)."""

from __future__ import annotations

import types

import errscope

PUBLIC = [
    "Channel",
    "CircuitBreaker",
    "Classification",
    "FailureClass",
    "FieldProblem",
    "Idempotency",
    "InvalidInput",
    "NotFound",
    "Outcome",
    "PermissionDenied",
    "RateLimited",
    "RetryPolicy",
    "ScrubbingFilter",
    "Telemetry",
    "TimeoutPolicy",
    "ToolCallResult",
    "ToolClient",
    "ToolFailure",
    "Upstream",
    "UpstreamUnavailable",
    "classify",
    "configure_telemetry",
    "instrument",
    "record_upstream",
    "register",
    "scrub",
    "uninstrument",
]


def test_all_is_the_pinned_public_api() -> None:
    """Adding or dropping a public name is a deliberate change to this list (and the README)."""
    assert errscope.__all__ == PUBLIC


def test_public_names_are_exported() -> None:
    """Every public name bound in the package is in __all__ (submodules aside) and resolves."""
    public = {
        name
        for name, value in vars(errscope).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(errscope.__all__)
