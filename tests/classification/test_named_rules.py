"""Every rule matched by name names a class the installed library really has.

errscope never imports the optional libraries it knows by ``module.qualname``; a library that moves
or renames an exception would make a rule silently dead. This test imports them instead.
"""

from __future__ import annotations

import importlib

import pytest

from errscope._classify._table import _NAMED_RULES

_EXTENSION_MODULES = {"cimpl": "confluent_kafka.cimpl"}
"""A C extension that names its module apart from where it is imported from: confluent-kafka's librdkafka binding."""


@pytest.mark.parametrize("name", sorted(_NAMED_RULES))
def test_named_rule_matches_a_real_class(name: str) -> None:
    parts = name.split(".")
    # a C extension that names its module apart from where it is imported from
    parts[0:1] = _EXTENSION_MODULES.get(parts[0], parts[0]).split(".")
    # the longest importable prefix is the module, the rest its qualname (imaplib.IMAP4.error nests)
    klass: object = importlib.import_module(parts[0])
    split = 1
    while split < len(parts) - 1 and hasattr(klass, "__path__"):
        try:
            klass = importlib.import_module(".".join(parts[: split + 1]))
        except ModuleNotFoundError:
            break
        split += 1
    for attribute in parts[split:]:
        klass = getattr(klass, attribute, None)
    assert isinstance(klass, type) and issubclass(klass, BaseException), name
    assert f"{klass.__module__}.{klass.__qualname__}" == name

