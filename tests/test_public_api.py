"""The public surface is errscope.__all__: sorted, complete, and nothing private leaks into it."""

from __future__ import annotations

import errscope


def test_all_is_sorted_and_resolvable() -> None:
    """__all__ is sorted and every name resolves."""
    assert errscope.__all__ == sorted(errscope.__all__)
    for name in errscope.__all__:
        assert getattr(errscope, name) is not None


def test_public_names_are_exported() -> None:
    """Every public name bound in the package is in __all__ (submodules aside)."""
    import types

    public = {
        name
        for name, value in vars(errscope).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(errscope.__all__)
