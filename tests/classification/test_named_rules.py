"""Every rule matched by name names a class the installed library really has.

errscope never imports the optional libraries it knows by ``module.qualname``; a library that moves
or renames an exception would make a rule silently dead. This test imports them instead.
"""

from __future__ import annotations

import importlib

import pytest

from errscope._classify import _NAMED_RULES


@pytest.mark.parametrize("name", sorted(_NAMED_RULES))
def test_named_rule_matches_a_real_class(name: str) -> None:
    module_name, _, qualname = name.rpartition(".")
    module = importlib.import_module(module_name)
    klass = getattr(module, qualname, None)
    assert isinstance(klass, type) and issubclass(klass, BaseException), name
    assert f"{klass.__module__}.{klass.__qualname__}" == name
