"""One classifier: every exception lands on exactly one :class:`~errscope.FailureClass`.

The mapping is a table (``_RULES``), looked up along the exception's MRO and along its chain
(:func:`walk`; an exception raised with no chain continues with the failure its raising frame still held, PEP 3134's
implicit cause restored); wrappers defer inwards, and :func:`explain` also names the root cause. Users
extend it with :func:`register`. Nothing here imports a database driver: DB-API errors (PEP 249)
are recognised by their standard class names (asyncpg's by their SQLSTATE); one raised out of the
driver's own ``connect`` never sent a statement.

One module per family, each importing only the layers below it: the shapes (``_core``) and what an exception
carries (``_facts``); the chain (``_chain``); shared rule builders (``_builders``) and class-name words (``_names``);
the families (``_mcp``, ``_http_errors``, ``_databases``, ``_protocols``, ``_vendors``, ``_system``,
``_interrupted``); the table that ties them together in order (``_table``, which documents every rule); the entry
point (``_entry``).
"""

from errscope._classify._chain import path_to, walk
from errscope._classify._core import Classification, FieldProblem, Upstream, classify, delay_seconds
from errscope._classify._entry import explain
from errscope._classify._facts import http_address, raised_in
from errscope._classify._library_words import own_code, package_of
from errscope._classify._mcp import argument_problems, class_for_jsonrpc_code, class_for_jsonrpc_error, tool_error_text
from errscope._classify._table import register

__all__ = [
    "Classification",
    "FieldProblem",
    "Upstream",
    "argument_problems",
    "class_for_jsonrpc_code",
    "class_for_jsonrpc_error",
    "classify",
    "delay_seconds",
    "explain",
    "http_address",
    "own_code",
    "package_of",
    "path_to",
    "raised_in",
    "register",
    "tool_error_text",
    "walk",
]

