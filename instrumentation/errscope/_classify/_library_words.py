"""What a library said in words only: the last reading of a chain no rule and no class name explains, when the
exception came out of a library's own code (:func:`_library_words`).
"""

from __future__ import annotations

import site
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from errscope._classify._core import Classification
from errscope._classify._facts import _message_of, _raised_connecting
from errscope._classify._table import _lookup
from errscope._foreign_text import acted_per_text, classify_text, refuses_a_setting
from errscope._vocabulary import FailureClass


# The builtins a library raises to report what it found (zipfile's ``KeyError("There is no item named 'x' in the
# archive")``, bz2's ``OSError("Invalid data stream")``, PyMuPDF's ``ValueError("document closed or encrypted")``,
# GitPython's ``ValueError("Remote named 'x' didn't exist")``): not the programming errors (``TypeError``,
# ``AttributeError``, ``NameError`` ...), which name the tool's own misuse of the library whatever their words. (A C
# function the tool calls directly, lz4's ``decompress``, leaves no library frame: its raise looks like the tool's.)
_REPORTING_BUILTINS: Final = (OSError, ValueError, LookupError, RuntimeError)


_FRAMEWORKS: Final = frozenset({"mcp", "fastmcp", "errscope"})
"""Packages that run tools rather than define them."""

_OWN_PACKAGES: ContextVar[frozenset[str]] = ContextVar("errscope_own_packages", default=frozenset())
"""Top-level packages of the tool being run (:func:`own_code`): installed or not, their code is the tool's."""


def package_of(code: Any) -> str | None:
    """The top-level package that defines ``code`` (a function, a method, a ``functools.partial`` of one, or a module
    name), or ``None``. The standard library's and the MCP frameworks' are nobody's own (:data:`_FRAMEWORKS`): a tool
    registered as ``json.loads`` is still json, the handler MCPServer defines runs every tool."""
    while hasattr(code, "func") and not isinstance(code, str):  # functools.partial
        code = code.func
    name = code if isinstance(code, str) else getattr(getattr(code, "__wrapped__", code), "__module__", None)
    if not isinstance(name, str) or not name or name == "__main__":
        return None
    package = name.partition(".")[0]
    return None if package in _FRAMEWORKS or package in getattr(sys, "stdlib_module_names", ()) else package


@contextmanager
def own_code(*code: Any) -> Iterator[None]:
    """While inside, the packages that define ``code`` (the tool's function, the server's handler: see
    :func:`package_of`) are the tool's own, wherever they are installed: an MCP server installed with pip lives
    in site-packages beside the libraries it calls, but the words its own code raises are the author's, not a
    library's report (:func:`_raised_by_a_library`)."""
    packages = frozenset(filter(None, map(package_of, code)))
    token = _OWN_PACKAGES.set(_OWN_PACKAGES.get() | packages)
    try:
        yield
    finally:
        _OWN_PACKAGES.reset(token)


def _library_roots() -> tuple[str, ...]:
    """Where the standard library and installed distributions live: ``sysconfig``'s stdlib, platstdlib, purelib and
    platlib paths, ``site``'s site-packages (the user's too), and any ``sys.path`` directory that holds an installed
    distribution's ``*.dist-info`` (``pip install --target``, a Lambda layer), resolved: code under them is a
    library's, code elsewhere the tool's."""
    return _roots_for(tuple(sys.path))


@lru_cache(maxsize=4)
def _roots_for(path: tuple[str, ...]) -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = [paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib") if name in paths]
    try:
        found += [*site.getsitepackages(), site.getusersitepackages()]
    except AttributeError:  # an embedded interpreter's site without them
        pass
    found += [entry for entry in path if entry and _holds_distributions(entry)]
    roots = set()
    for root in found:
        try:
            roots.add(str(Path(root).resolve()).rstrip("/") + "/")
        except (OSError, RuntimeError):
            continue
    return tuple(sorted(roots))


def _holds_distributions(directory: str) -> bool:
    try:
        return any(Path(directory).glob("*.dist-info"))
    except OSError:
        return False


def _library_module(name: object) -> bool:
    """Whether the module named ``name`` is a library's: a builtin or frozen module, or one whose file lies under
    :func:`_library_roots`, unless its package is the running tool's own (:func:`own_code`). Read from the module
    (``sys.modules``), not a frame's file name: Cython-compiled modules (lxml's) name their ``.pxi`` sources relative
    to nothing."""
    if not isinstance(name, str) or name == "__main__":
        return False
    if name.partition(".")[0] in _OWN_PACKAGES.get():
        return False
    module = sys.modules.get(name)
    if module is None:
        return False
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return name in sys.builtin_module_names or name in getattr(sys, "stdlib_module_names", ())
    return _library_file(file, _library_roots())


@lru_cache(maxsize=1024)
def _library_file(file: str, roots: tuple[str, ...]) -> bool:
    """Whether ``file`` lies under one of ``roots`` (resolved once a file: a path resolves through the filesystem)."""
    try:
        resolved = str(Path(file).resolve())
    except (OSError, RuntimeError):
        return False
    return resolved.startswith(roots)


def _raised_by_a_library(exc: BaseException) -> bool:
    """Whether ``exc`` is a library's report: raised in a library's own code (its innermost Python frame runs a
    library module), as a reporting builtin (:data:`_REPORTING_BUILTINS`) or a class of its own (its base ``Error``
    raised with a text only: xlrd's ``XLRDError``, nats-py's ``Error``, smbprotocol's ``SMBException``) that no rule
    knows. One the tool's code raised is the author's, whatever class it is."""
    if type(exc).__module__ == "builtins":
        if not isinstance(exc, _REPORTING_BUILTINS) or isinstance(exc, UnicodeError):
            return False  # a codec's error names the encoding the tool chose, whoever's bytes they were
    elif _lookup(exc) is not None:
        return False  # a rule knows the class and found nothing to say (a program's exit: its command line is no report)
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and _library_module(tb.tb_frame.f_globals.get("__name__"))


def _words(exc: BaseException) -> str:
    # a KeyError's str() is its argument's repr: the library's sentence is the argument itself
    first = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else None
    return first if first is not None else _message_of(exc)


def _library_words(exc: BaseException) -> Classification | None:
    """``exc``'s own words read as foreign text (``classify_text``, the rules a foreign server's text is read by),
    when a library raised it (:func:`_raised_by_a_library`) and its text is a sentence (two words at least: a bare
    key or code is no report). The library kept only a text; the words are all that says what it found: a member or
    file not there, bytes that are not its format, a document locked, a login refused, no answer in time.

    Whether it acted: a refusal (not there, not its format, locked, refused, limited) did nothing; a connection that
    failed did nothing when it was never made (its words, or a connecting function on the stack) or when the status it
    names refused the request whole (a 503), was perhaps acted on when the text says it broke after sending, else not
    known (:func:`~errscope._foreign_text.acted_per_text`). ``None`` when the words say nothing known.
    """
    try:
        if not _raised_by_a_library(exc):
            return None
        text = _words(exc)
    except Exception:  # a foreign exception's odd shape says nothing
        return None
    if len(text.split()) < 2:
        return None
    failure_class = classify_text(text)
    if failure_class is FailureClass.UNKNOWN:
        # a client refusing a setting of its own (kafka-python's "Unrecognized configs: {…}"): the tool's mistake, and
        # the client was never built, so nothing was sent
        return Classification(failure_class, side_effect_possible=False) if refuses_a_setting(text) else None
    if failure_class is not FailureClass.UPSTREAM_UNAVAILABLE:
        return Classification(failure_class, side_effect_possible=False)
    if _raised_connecting(exc, anywhere=True):
        return Classification(failure_class, side_effect_possible=False)
    return Classification(failure_class, side_effect_possible=acted_per_text(text))
