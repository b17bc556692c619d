"""The one sanctioned channel crossing: a JSON-RPC -32602 becomes a short note the model can act on.

Servers on older SDKs reject bad arguments with ``-32602`` and a message that mixes the useful part
(which argument, what it must be) with paths, stack fragments and ``data`` blobs. The model gets
only the useful part, at most :data:`MAX_NOTE` characters, and the agent turn continues.

Recognised shapes (anything else degrades to "invalid arguments" without details):

- zod / TS SDK: ``color: Expected string, received number``
- pydantic: ``a\\n  Input should be a valid integer`` (field line, then the problem line)
- prose: ```x` must be ...``, ``'x' is a required property`` (jsonschema), ``missing required argument 'x'``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from errscope.client._text import safe_excerpt, scrub_text

__all__ = ["MAX_NOTE", "ArgumentProblem", "invalid_params_note", "parse_argument_problems", "unknown_tool_name"]

MAX_NOTE: Final = 300
_FIELD: Final = r"[A-Za-z_][\w.\[\]-]{0,63}"

_ZOD: Final = re.compile(rf"(?P<field>{_FIELD}):\s*Expected (?P<exp>[\w ]{{1,40}}?), received (?P<got>\w+)", re.I)
_PYDANTIC: Final = re.compile(rf"^(?P<field>{_FIELD})\n\s+(?P<msg>[^\[\n]{{3,80}}?)\s*(?:\[|$)", re.M)
_MUST_BE: Final = re.compile(rf"[`'\"]?(?P<field>{_FIELD})[`'\"]? must be (?P<exp>[^.;,\n]{{1,60}})", re.I)
_REQUIRED: Final = re.compile(
    rf"[`'\"](?P<field>{_FIELD})[`'\"] is a required property|missing required (?:argument|field|property):? [`'\"]?(?P<field2>{_FIELD})",
    re.I,
)
_UNKNOWN_TOOL: Final = re.compile(
    r"(?:unknown tool|tool not found|no such tool|tool .{0,40}(?:not found|does not exist|is not available))"
    r"[:\s]*[`'\"]?(?P<name>[\w./-]{1,128})?",
    re.I,
)

_ARTICLE: Final = re.compile(r"^(a|an)\s", re.I)


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One rejected argument: its name and what it must be (never the value that was sent)."""

    field: str
    expected: str | None = None

    def sentence(self) -> str:
        """``color`` must be a string / ``a`` is required."""
        if self.expected is None:
            return f"`{self.field}` is invalid"
        if self.expected == "required":
            return f"`{self.field}` is required"
        return f"`{self.field}` must be {self.expected}"


def _with_article(noun: str) -> str:
    noun = noun.strip().lower()
    if _ARTICLE.match(noun) or noun.startswith(("one of", "at ", "between", "an ", "a ")):
        return noun
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def parse_argument_problems(message: str) -> list[ArgumentProblem]:
    """Pull argument names and expectations out of a validation message (order kept, no duplicates)."""
    problems: list[ArgumentProblem] = []
    seen: set[str] = set()

    def add(field: str, expected: str | None) -> None:
        if field.lower() in {"input", "error", "arguments", "trace", "at", "http", "https"} or field in seen:
            return
        seen.add(field)
        problems.append(ArgumentProblem(field, expected))

    for m in _ZOD.finditer(message):
        add(m.group("field"), _with_article(m.group("exp")))
    for m in _PYDANTIC.finditer(message):
        text = m.group("msg").strip()
        text = re.sub(r"^Input should be\s+", "", text, flags=re.I)
        add(m.group("field"), "required" if text.lower().startswith("field required") else text)
    for m in _MUST_BE.finditer(message):
        add(m.group("field"), m.group("exp").strip())
    for m in _REQUIRED.finditer(message):
        add(m.group("field") or m.group("field2"), "required")
    return problems[:4]


def unknown_tool_name(message: str) -> str | None:
    """Return the tool name when ``message`` says a tool is unknown, ``""`` if unnamed, else ``None``."""
    m = _UNKNOWN_TOOL.search(message)
    if m is None:
        return None
    return m.group("name") or ""


def invalid_params_note(tool: str, message: str) -> str:
    """Build the model's note for a -32602 on ``tool``: which argument, what it must be, then what to do."""
    problems = parse_argument_problems(message)
    if problems:
        # Names and expectations are the server's raw text: scrubbed like the excerpt below.
        detail = scrub_text("; ".join(p.sentence() for p in problems))
    else:
        # Nothing structured: keep a scrubbed, path-free excerpt, only if it is short prose.
        excerpt = safe_excerpt(message, limit=120)
        detail = excerpt if excerpt and excerpt.lower() not in {"invalid params", "invalid request parameters"} else ""
    head = f"{tool} was rejected: invalid arguments"
    tail = " Fix the arguments and call again."
    note = f"{head} — {detail}.{tail}" if detail else f"{head}.{tail}"
    if len(note) > MAX_NOTE:
        room = MAX_NOTE - len(head) - len(tail) - 5
        note = f"{head} — {detail[:room].rstrip()}….{tail}"
    return note
