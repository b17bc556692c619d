"""The one sanctioned channel crossing: a rejected call's arguments become a short note the model can act on.

Servers reject bad arguments with ``-32602``, or (most SDKs today) with an ``isError`` result, in words that mix
the useful part (which argument, what it must be) with SDK prefixes, paths, values and documentation links. The
model gets only the useful part, at most :data:`MAX_NOTE` characters, never a value it sent, and the turn goes on.

The parser reads the *structures* validators put into their messages, not one release's sentence. The corpus
``tests/foreign/data/invalid_params_corpus.json`` holds what real SDKs answer today and answered before:

- issue lists serialised as JSON: zod 3/4 (``[{"code", "path", "expected", "minimum", ...}]``, TypeScript SDK 1.x
  before zod 4 and every TS SDK for malformed requests), pydantic's ``errors()`` (``loc``/``msg``/``type``) and
  ajv / JSON Schema output units (``instancePath``/``keyword``/``params``);
- zod 4 issue lines, ``<path>: <message>`` (TS SDK 2.x) or ``<message> at <path>`` (TS SDK 1.2x+);
- pydantic's text (``<loc>`` line, indented message, ``[type=..., input_value=...]``): the ``mcp`` SDK and every
  FastMCP major;
- JSON Schema prose: ``'x' is a required property`` (jsonschema), ``must have required property 'x'`` and
  ``/a must be number`` (ajv), ```x` must be ...``, ``missing required argument 'x'``;
- JSON Schema keyword reports, a location then the failed keyword (``validating /properties/a: type: ...``, the Go
  SDK) or the keyword's error value (``/a: &{Got:string Want:[number]}``, mcp-go). A report naming an argument but
  not its rule takes what the argument must be from the tool's listed ``inputSchema``;
- the decoders a tool binds its arguments with, in their own type names: Go's ``encoding/json`` (``cannot unmarshal
  string into Go struct field Args.limit of type int``), Rust's serde (``invalid type: string "seven", expected
  f64``, ``missing field `b```), mcp-go's argument helpers (``required argument "x" not found``). serde (the Rust
  SDK ``rmcp``: ``failed to deserialize parameters: ...``) names a wrong argument by its value, its kind (``map``),
  its length or its Rust type, and a missing one by its bare name: the sent arguments and the listed schema
  name the argument (a path when nested);
- a tool's own checks: ``invalid order_id "x-17": must match ^ORD-\\d{4}$``, ``invalid limit 500: out of range
  1..=100``, ``Missing 'query' parameter``.

An unknown tool is a different failure (re-list, not fix the arguments): :func:`unknown_tool_name` recognises it
by its own shapes and never claims a message that carries argument problems.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from errscope._foreign_text import reads_upstream_data, safe_excerpt, scrub_text
from errscope._messages import _resolve, expected_for_path, safe_name
from errscope._prefilter import prefiltered

__all__ = [
    "MAX_NOTE",
    "ArgumentProblem",
    "declared_arguments",
    "invalid_params_note",
    "is_argument_rejection",
    "missing_required",
    "required_missing_note",
    "parse_argument_problems",
    "names_this_tool_unknown",
    "unknown_tool_name",
    "without_sent_values",
]

MAX_NOTE: Final = 300
MAX_EXPECTED: Final = 80
"""Characters of one parsed expectation ("a string matching ...") in the note."""
MAX_PROBLEMS: Final = 4
MAX_PARSED: Final = 65536
"""Characters of a server's text read for argument problems. A validator's report of the few problems a note
shows is far shorter; a longer text (a 2 MiB upstream page relayed as a tool's error) is read only this far, so
no pattern's cost grows with what a server chose to send."""
_FIELD: Final = r"[A-Za-z_$][\w$-]{0,63}(?:(?:\.|/)[\w$-]{1,64}|\[\d{1,6}\])*"  # a.b, a[0], a.0, a/b
_REQUIRED: Final = "required"
_UNEXPECTED: Final = "unexpected"
_SOME_FORMAT: Final = "a string in the required format"  # a pattern rule the validator did not quote

# Markers an SDK puts on an argument rejection, whatever the channel: the JSON-RPC code in text, the TS SDKs'
# "Input validation error" / "Invalid arguments for tool", "invalid params". pydantic's header is weaker (a tool
# may validate upstream data with pydantic too): it counts only for fields the tool declares.
_STRONG_MARKER: Final = prefiltered(re.compile(
    r"-32602|\binput validation error\b|\binvalid (?:request )?(?:arguments|params|parameters)\b"
    r"|\bunexpected keyword argument|\bmissing required arguments?\s*:"  # Ruby SDK: "Missing required arguments: a, b"
    # "validating \"arguments\"" (Go SDK), "input schema validation failed" (mcp-go), "validation of the arguments"
    r"|\bvalidat(?:ing|ion)\W{0,3}(?:of\s+)?(?:the\s+)?(?:tool\s+)?(?:arguments?|input|params|parameters)\b"
    r"|\b(?:arguments?|input|params|parameters)(?: schema)? validation\b"
    # a decoder binding the arguments: "failed to deserialize parameters" (rmcp), "unmarshaling arguments" (Go)
    r"|\b(?:deserializ|unmarshal|decod|pars|bind)\w*\s+(?:the\s+)?(?:tool\s+)?(?:arguments?|params|parameters)\b",
    re.I,
))
_PYDANTIC_HEADER: Final = re.compile(r"\b\d+ validation errors? for \S+", re.I)
# A decoder's report (Go encoding/json, Rust's serde) or an argument helper's ("required argument \"x\" not found",
# mcp-go) is as weak: a tool decodes upstream data with them too, and an upstream may miss a parameter.
_DECODER_HEADER: Final = prefiltered(re.compile(
    r"cannot unmarshal .{1,80}? into Go |\binvalid (?:type|value): .{1,120}?, expected |\b(?:missing|unknown) field `"
    r"|\bunknown variant `|\brequired argument [`'\"]|\bUnexpected JSON token at offset .{1,200}? at path: \$"
    r"|\bEncountered an unknown key '"
    r"|\bargument [`'\"][\w.-]+[`'\"] (?:is not an?|cannot be converted to)\b"
))

_ARGUMENTS_REJECTED: Final = prefiltered(re.compile(r"\binvalid arguments\b|\bvalidation error", re.I))
_UNKNOWN_TOOL: Final = (
    # "Unknown tool: x" (mcp, FastMCP), "Tool x not found" (TS SDKs), "no such tool 'x'", "tool x does not exist";
    # "Tool x disabled" (the TypeScript SDK's McpServer for a tool its author disabled: no longer listed, answered
    # like an unknown one, -32602; typescript-sdk .changeset/fix-unknown-tool-protocol-error.md "Unknown or disabled")
    prefiltered(re.compile(r"\b(?:unknown|no such) tool(?: name)?\b[:\s]*[`'\"]?(?P<name>[\w./-]{1,128})?", re.I)),
    prefiltered(re.compile(
        r"\btool[:\s]+[`'\"]?(?P<name>[\w./-]{1,128})[`'\"]?\s+(?:was\s+)?(?:not found|does not exist|is not available"
        r"|is not registered|not registered|is unknown|(?:is |has been )?disabled\b)",
        re.I,
    )),
    # ... "Tool not found for call: "x"." (the PHP SDK's ToolNotFoundException, -32602), "tool not found with name x"
    prefiltered(re.compile(
        r"\btool not found\b(?:\s+(?:for (?:the )?call|with (?:the )?name))?[:\s]*[`'\"]?(?P<name>[\w./-]{1,128})?", re.I)),
)


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One rejected argument: its name (a dotted path for nested ones) and what it must be, never its value.

    ``expected`` is ``"required"`` for a missing argument, ``"unexpected"`` for one the tool does not accept,
    ``None`` when the validator did not say, else a phrase such as ``"a number"`` or ``"at most 30"``.
    """

    field: str
    expected: str | None = None

    def sentence(self) -> str:
        """```color`` must be a string` / ```a`` is required` / ```c`` is not an accepted argument`."""
        if not self.field:  # the validator echoed a value instead of naming the argument
            return f"one argument must be {self.expected}" if self.expected else "one argument is invalid"
        if self.expected is None:
            return f"`{self.field}` is invalid"
        if self.expected == _REQUIRED:
            return f"`{self.field}` is required"
        if self.expected == _UNEXPECTED:
            return f"`{self.field}` is not an accepted argument"
        return f"`{self.field}` must be {self.expected}"


# ---------------------------------------------------------------------------------------------- expectations

_TYPE_NOUNS: Final = {
    "record": "an object",
    "object": "an object",
    "dict": "an object",
    "int": "an integer",
    "integer": "an integer",
    "float": "a number",
    "bool": "a boolean",
    "str": "a string",
    "list": "an array",
    "array": "an array",
    "nan": "a number",
    "undefined": "absent",
}
_COMPARISONS: Final = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}
_NETWORKNT_BOUNDS: Final = {(False, "minimum"): "at least", (True, "minimum"): "greater than",
                            (False, "maximum"): "at most", (True, "maximum"): "less than"}
_WORDY_BOUNDS: Final = (
    (re.compile(r"\bgreater th[ae]n or equal to\b", re.I), "at least"),  # "then": Elixir's Peri (hermes-mcp)
    (re.compile(r"\bless th[ae]n or equal to\b", re.I), "at most"),
    (re.compile(r"\b(greater|less) then\b", re.I), r"\1 than"),
)


def _noun(kind: str) -> str:
    kind = kind.strip().strip("'\"`").lower()
    if kind in _TYPE_NOUNS:
        return _TYPE_NOUNS[kind]
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def _options(text: str) -> str:
    values = [v.strip().strip("'\"`") for v in re.split(r"\s*\|\s*|,\s*|\s+or\s+", text.strip("[] ")) if v.strip()]
    return "one of " + ", ".join(values)


# zod 4 (the English locale the TS SDKs ship), then zod 3, then pydantic, as (pattern, expectation builder).
_PHRASES: Final[tuple[tuple[re.Pattern[str], Any], ...]] = (
    (re.compile(r"^(?:Invalid input: )?expected (\w+), received undefined$|^Required$|^Field required$"
                r"|^Missing required (?:argument|field|property)$", re.I), lambda m: _REQUIRED),
    (re.compile(r"^Invalid input: expected (\w+)(?:, received \w+)?$", re.I), lambda m: _noun(m[1])),
    (re.compile(r"^Expected (\w+), received \w+$", re.I), lambda m: _noun(m[1])),
    (re.compile(r"^Too (?:small|big): expected \w+ to (?:be|have) ([<>]=?)\s*(-?[\d.]+(?:e[+-]?\d+)?)(?: (\w+))?$",
                re.I), lambda m: f"{_COMPARISONS[m[1]]} {m[2]}" + (f" {m[3]}" if m[3] else "")),
    (re.compile(r"^Invalid string: must match pattern (/.+/\w*)$", re.I), lambda m: f"a string matching {m[1]}"),
    (re.compile(r"^Invalid string: must (start|end) with (.+)$", re.I), lambda m: f"a string that {m[1]}s with {m[2]}"),
    (re.compile(r"^Invalid string: must include (.+)$", re.I), lambda m: f"a string that includes {m[1]}"),
    (re.compile(r"^Invalid (?:option|enum value)[.:]? expected one of (.+?)(?:, received .*)?$", re.I),
     lambda m: _options(m[1])),
    (re.compile(r"^Invalid enum value\. Expected (.+?)(?:, received .*)?$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^Invalid input: expected (\".*\"|-?[\d.]+|true|false|null)$", re.I), lambda m: f"exactly {m[1]}"),
    (re.compile(r"^Invalid literal value, expected (.+)$", re.I), lambda m: f"exactly {m[1]}"),
    # the PHP SDK's own sentences for opis/json-schema errors (php-sdk src/Capability/Discovery/SchemaValidator.php)
    (re.compile(r"^Invalid type\. Expected `?([\w|]+)`?(?:, but received .*)?$", re.I),
     lambda m: " or ".join(_noun(t) for t in m[1].split("|"))),
    (re.compile(r"^Number must be strictly (greater|less) than (\S+)$", re.I), lambda m: f"{m[1].lower()} than {m[2]}"),
    (re.compile(r"^String must be at least (\d+) characters? long$", re.I), lambda m: f"at least {m[1]} characters"),
    (re.compile(r"^String must not be longer than (\d+) characters?$", re.I), lambda m: f"at most {m[1]} characters"),
    (re.compile(r"^Array must contain no more than (\d+) items?$", re.I), lambda m: f"at most {m[1]} items"),
    (re.compile(r"^(?:String|Value) does not match the required (pattern|format): `?(.+?)`?$", re.I),
     lambda m: f"a string matching {m[2]}" if m[1].lower() == "pattern" else f"a valid {m[2]}"),
    (re.compile(r"^Value must be one of the allowed values: (.+)$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^Value must be equal to the constant value: (.+)$", re.I), lambda m: f"exactly {m[1]}"),
    (re.compile(r"^(?:Number|Value) must be (.+)$", re.I), lambda m: m[1]),
    # form validators' words in error.data: "The email field is required." (Laravel), "This field is required."
    # (Django REST), "This value should be less than or equal to 100." (Symfony)
    (re.compile(r"^(?:The [\w .-]{1,64} |This )?field is required$", re.I), lambda m: _REQUIRED),
    (re.compile(r"^This value (?:should|must) be (.+)$", re.I), lambda m: m[1]),
    (re.compile(r"^(?:is )?(?:missing(?:,? but (?:it )?is required)?|required)$", re.I), lambda m: _REQUIRED),
    (re.compile(r"^should be in the range of (-?[\d.]+?)\.\.(-?[\d.]+) \(inclusive\)$", re.I),
     lambda m: f"between {m[1]} and {m[2]}"),
    (re.compile(r"^(?:must|should) be (.+)$", re.I), lambda m: m[1]),
    (re.compile(r"^(?:must|should) match (?:the )?(?:pattern |regex |regular expression )?(\S.{0,79})$", re.I),
     lambda m: f"a string matching {m[1].strip('`')}"),
    # a tool's own words after the argument: "expected one of fast, slow", "expected integer", "expected a u32"
    # Elixir's Peri (hermes-mcp joins "<path>: <message>" with "; "): "expected one of [...] received :x",
    # "expected type of :integer received \"ten\" value", "should be in the range of 1..100 (inclusive)"
    (re.compile(r"^expected one of (.+?),? (?:received|got:?) .*$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^expected type of :?(\w+) received .*$", re.I), lambda m: _noun(m[1])),
    (re.compile(r"^expected one of:? (.+)$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^expected (?:an? )?([\w<>\[\]&]{1,40})$", re.I), lambda m: _native_noun(m[1]) or _noun(m[1])),
    # a range, in Rust's notation too: "out of range 1..=100" (inclusive), "not in range 0..10" (end excluded)
    (re.compile(r"^(?:(?:is |was )?out of|not (?:with)?in)(?: the)?(?: valid)? range:? "
                r"\[?(-?[\d.]+?)\s*(\.\.=?|,|-| to )\s*(-?[\d.]+)\]?$", re.I),
     lambda m: f"at least {m[1]} and less than {m[3]}" if m[2] == ".." else f"between {m[1]} and {m[3]}"),
    (re.compile(r"^(?:String|Array) must contain (at (?:least|most) \d+) (\w+?)(?:\(s\))?s?$", re.I),
     lambda m: f"{m[1]} {m[2]}s"),
    (re.compile(r"^String should match pattern '(.+)'$", re.I), lambda m: f"a string matching {m[1]}"),
    (re.compile(r"^(?:String|List|Dictionary|Value) should have (at (?:least|most) \d+ \w+)", re.I), lambda m: m[1]),
    (re.compile(r"^Input should be ('[^']*'(?:, '[^']*')*,? or '[^']*')$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^Input should be (.+?)(?:, (?:unable|got|invalid|input|received)\b.*)?$", re.I), lambda m: m[1]),
    (re.compile(r"^(?:Unexpected keyword argument|Extra inputs are not permitted)$", re.I), lambda m: _UNEXPECTED),
    # networknt json-schema-validator (the Java SDK 2.x; its jsv-messages.properties, after "<location>: "):
    # "string found, number expected", "must have an exclusive minimum value of 0", "does not have a value in the
    # enumeration [...]", "does not match the regex pattern ^x$", "does not match the email pattern ...",
    # "must be at most 5 characters long", "must have at least 1 items but found 0", "must be the constant value 'x'"
    (re.compile(r"^\w+ found, \[?([\w, ]+?)\]? expected$", re.I),
     lambda m: " or ".join(_noun(t) for t in re.findall(r"\w+", m[1]))),
    (re.compile(r"^must have an? (exclusive )?(minimum|maximum) value of (-?[\d.]+(?:e[+-]?\d+)?)$", re.I),
     lambda m: f"{_NETWORKNT_BOUNDS[(bool(m[1]), m[2].lower())]} {m[3]}"),
    (re.compile(r"^does not have a value in the enumeration (.+)$", re.I), lambda m: _options(m[1])),
    (re.compile(r"^does not match the regex pattern (.+)$", re.I), lambda m: f"a string matching {m[1]}"),
    (re.compile(r"^does not match the ([\w-]+) pattern\b.*$", re.I), lambda m: f"a valid {m[1]}"),
    (re.compile(r"^must be at (least|most) (\d+) characters long$", re.I), lambda m: f"at {m[1]} {m[2]} characters"),
    (re.compile(r"^must have at (least|most) (\d+) items(?: but found \d+)?$", re.I), lambda m: f"at {m[1]} {m[2]} items"),
    (re.compile(r"^must be the constant value '(.*)'$", re.I), lambda m: f"exactly {m[1]}"),
    (re.compile(r"^Invalid ((?!input\b)[\w -]{2,40}?)(?: address)?$", re.I),
     lambda m: f"a valid {m[1].lower()}{' address' if 'address' in m[0].lower() else ''}"),
)


def _expectation(message: str) -> str | None:
    """What an argument must be, from one validator message; ``None`` when the message does not say."""
    message = message.strip().rstrip(".")
    for pattern, build in _PHRASES:
        match = pattern.match(message)
        if match:
            expected = str(build(match)).strip()
            for wordy, short in _WORDY_BOUNDS:
                expected = wordy.sub(short, expected)
            return expected or None
    return None


# -------------------------------------------------------------------------------------- structured issues


def _path(value: Any) -> str:
    """A field path from a list (zod ``path``, pydantic ``loc``), a JSON pointer (ajv) or a dotted string.

    A path into the request itself (``params.arguments...``, a malformed ``tools/call``) is cut to the arguments.
    """
    if isinstance(value, list | tuple):
        parts = [str(p) for p in value]
    elif str(value or "").startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in str(value)[1:].split("/")]  # RFC 6901
    else:  # a dotted path; ajv 6's dataPath starts with the dot (".limit", ".items[0].sku")
        parts = [str(value or "").removeprefix(".")]
    path = ".".join(p for p in parts if p)
    if path == "params.arguments":
        return "arguments"
    return path.removeprefix("params.arguments.")


# The lists of issues a report wraps: zod's ``issues``, ajv's and JSON:API's ``errors``, Google's ``fieldViolations``,
# the PHP SDK's ``validation_errors``.
_ISSUE_LISTS: Final = ("issues", "errors", "validation_errors", "fieldViolations", "field_violations", "violations",
                       "details")


def _issue(issue: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """(field, expectation) pairs from one JSON issue: zod 3/4, pydantic ``errors()``, ajv/JSON Schema unit."""
    code = str(issue.get("code") or issue.get("type") or issue.get("keyword") or issue.get("validator") or "")
    path = _path(next((issue[key] for key in _PATH_KEYS if issue.get(key) not in (None, "")), ""))
    params = issue.get("params") if isinstance(issue.get("params"), Mapping) else {}
    message = str(next((issue[key] for key in _MESSAGE_KEYS if isinstance(issue.get(key), str) and issue[key]), ""))
    join = (lambda name: f"{path}.{name}" if path and path != "arguments" else name)
    listed = _NAMED_LIST.match(message.strip())
    if listed:  # "Missing required properties: `a`, `b`." at the object's pointer: the names are the arguments
        for name in _list_names(listed["names"]):
            yield join(name), _REQUIRED if listed["kind"].lower().startswith("missing") else _UNEXPECTED
        return
    if code in {"unrecognized_keys", "additionalProperties"}:
        for key in issue.get("keys") or [params.get("additionalProperty")]:
            if key:
                yield join(str(key)), _UNEXPECTED
        return
    if code == "required" and params.get("missingProperty"):
        yield join(str(params["missingProperty"])), _REQUIRED
        return
    expected: str | None
    # zod 3 says received "undefined"; zod 4's issue has no "received", only its message says so.
    if code in {"missing", "missing_argument"} or issue.get("received") == "undefined" or (
        code == "invalid_type" and _expectation(message) == _REQUIRED
    ):
        expected = _REQUIRED
    elif code in {"extra_forbidden", "unexpected_keyword_argument"}:
        expected = _UNEXPECTED
    elif code in {"too_small", "too_big"} and ("minimum" in issue or "maximum" in issue):
        bound = issue.get("minimum", issue.get("maximum"))
        inclusive = issue.get("inclusive", True)
        words = ("at least", "greater than") if code == "too_small" else ("at most", "less than")
        unit = {"string": " characters", "array": " items"}.get(str(issue.get("type") or issue.get("origin")), "")
        expected = f"{words[0] if inclusive else words[1]} {bound}{unit}"
    elif code in {"invalid_enum_value", "invalid_value", "enum"} and (issue.get("options") or issue.get("values")
                                                                     or params.get("allowedValues")):
        values = issue.get("options") or issue.get("values") or params.get("allowedValues")
        expected = "one of " + ", ".join(str(v) for v in values)
    elif code == "invalid_type" and issue.get("expected"):
        expected = _noun(str(issue["expected"]))
    elif code == "type" and params.get("type"):
        expected = _noun(str(params["type"]))
    elif params.get("comparison") in _COMPARISONS and "limit" in params:  # ajv minimum/maximum/exclusive*
        expected = f"{_COMPARISONS[params['comparison']]} {params['limit']}"
    elif code in {"minLength", "maxLength", "minItems", "maxItems"} and "limit" in params:
        expected = f"{'at least' if code.startswith('min') else 'at most'} {params['limit']} " + (
            "characters" if code.endswith("Length") else "items"
        )
    elif code == "pattern" and params.get("pattern"):
        expected = f"a string matching {params['pattern']}"
    elif code == "format" and params.get("format"):
        expected = f"a valid {params['format']}"
    elif code == "const" and "allowedValue" in params:
        expected = f"exactly {json.dumps(params['allowedValue'])}"
    elif code in {"invalid_string", "invalid_format"} and (issue.get("validation") or issue.get("format")):
        kind = str(issue.get("validation") or issue.get("format"))
        pattern = issue.get("pattern")
        # zod 3 names the rule ("regex") but not the pattern: the listed inputSchema's pattern says more.
        expected = f"a string matching {pattern}" if pattern else _SOME_FORMAT if kind == "regex" else f"a valid {kind}"
    else:
        # python-jsonschema's errors as JSON ({"path", "message", "validator"}) word the rule after the value
        expected = _expectation(message) or next((e for _, e in _jsonschema(message, None) if e), None)
    yield path or "arguments", expected


_PATH_KEYS: Final = ("path", "loc", "instancePath", "instance_path", "dataPath", "pointer", "field", "property",
                     "propertyPath", "param", "parameter", "argument", "location")
"""Where a validator's issue object names the argument: zod/pydantic/ajv, ajv 6 (``dataPath``), the PHP SDK's
``validation_errors`` (``pointer``), and the ``{"field": ..., "reason": ...}`` objects tools put in ``error.data``."""
_MESSAGE_KEYS: Final = ("message", "msg", "reason", "error", "detail", "description")
# "Missing required properties: `a`, `b`." (PHP SDK), "Missing required arguments: a, b" (Ruby SDK), "Object contains
# unexpected additional properties: `extra`." (PHP SDK): a rule, then the argument names it applies to.
_NAMED_LIST: Final = re.compile(
    r"^(?P<kind>missing required|(?:object )?contains unexpected(?: additional)?|unexpected|unknown|unrecognized)"
    r" (?:arguments?|parameters?|properties|property|fields?|keys?)\s*:\s*(?P<names>[^;\n]+?)\.?$",
    re.I,
)


def _list_names(text: str) -> list[str]:
    """The names of a printed list (``a, b``, ```a`, `b```, ``"a", "b"``, ``[a, b]``): only those shaped like one."""
    names = [n.strip().strip("`'\"") for n in re.split(r",\s*|\s+and\s+", text.strip().strip("[]"))]
    return [n for n in names if re.fullmatch(_FIELD, n)]


def _json_issues(message: str) -> Iterator[tuple[str, str | None]]:
    """Issues from the first JSON list or object of issues embedded in ``message``."""
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"[\[{]", message)):
        try:
            value, _ = decoder.raw_decode(message, start)
        except ValueError:
            continue
        except RecursionError:  # nested deeper than json recurses: no validator's report, nor any bracket inside it
            return
        if isinstance(value, dict):  # {"issues": [...]} (zod's error JSON), {"errors": [...]}, or one issue alone
            listed = next((value[key] for key in _ISSUE_LISTS if isinstance(value.get(key), list)), None)
            value = listed if listed is not None else [value]
        if not (isinstance(value, list) and value and all(isinstance(item, dict) for item in value)):
            continue
        if not any(key in value[0] for key in _PATH_KEYS):
            continue
        for item in value:
            yield from _issue(item)
        return


# ----------------------------------------------------------------------------------------------- text forms

# pydantic: "<loc>\n  <message> [type=<type>, input_value=<value>, input_type=<type>]"
_PYDANTIC: Final = re.compile(
    rf"^(?P<loc>{_FIELD})\n[ \t]+(?P<msg>[^\n]+?)(?:\s*\[type=(?P<type>\w+)[^\n]*\])?[ \t]*$", re.M
)
# zod 4 issue lines: "<path>: <message>" (TS SDK 2.x, joined by ", ") or "<message> at <path>" (TS SDK 1.2x+).
_ZOD_PREFIX: Final = re.compile(rf"^(?P<path>{_FIELD}):\s+(?P<msg>.+)$", re.S)
_ZOD_SUFFIX: Final = re.compile(rf"^(?P<msg>.+?) at (?P<path>{_FIELD})$", re.S)
_ISSUE_BREAK: Final = re.compile(rf"\n|; |, (?={_FIELD}: [A-Z])")
_TRACE: Final = re.compile(r"(?<!\s)\s*(?:stack\s*)?trace(?:back)?\b.*$", re.I | re.S)  # "; trace at /srv/x.py:88"
_UNRECOGNISED: Final = re.compile(r"^Unrecognized keys?(?: in object)?:\s*(?P<keys>.+)$", re.I)
_TOOL_PREAMBLE: Final = re.compile(r"^.*?\b(?:for tool|arguments for)\s+[`'\"]?[\w./-]+[`'\"]?\s*:\s*", re.I | re.S)
_SDK_PREFIX: Final = re.compile(
    r"^(?:MCP error -?\d+:\s*)?(?:Input validation error:\s*|failed to deserialize parameters:\s*)?", re.I
)
_MUST_BE: Final = re.compile(rf"(?<![\w/.\]])[`'\"]?(?P<field>{_FIELD})[`'\"]? must be (?P<exp>[^.;,\n]{{1,60}})")
# A tool's own check in words: "order_id must match ^ORD-\d{4}$" (rmcp servers' ErrorData::invalid_params).
_MUST_MATCH: Final = re.compile(
    rf"(?<![\w/.\]])[`'\"]?(?P<field>{_FIELD})[`'\"]? must match (?:the )?(?:pattern |regex )?(?P<pattern>\S{{1,80}})"
)
# ajv's text form: "data/a must be number" or "/a must be number" (instancePath + message).
_POINTER_MUST: Final = re.compile(
    r"(?:^|\s)(?:data)?(?P<pointer>/[\w/~$-]{1,128}) must (?:be )?(?P<exp>[^.;,\n]{1,60})"
)
# A tool's own check naming the argument, maybe the value it got, then the rule: "invalid order_id \"x-17\": must
# match ^ORD-\d{4}$" (an rmcp server's ErrorData::invalid_params), "invalid value for limit: must be at most 100".
# The words validators use for their own headers ("invalid type: ...", "Invalid input: ...") are not arguments.
_INVALID_FIELD: Final = re.compile(
    r"\binvalid (?:value for |argument |parameter |field )?"
    r"(?!(?:type|value|input|arguments?|params|parameters|request|option|enum|literal|string|union|length)\b)"
    rf"[`'\"]?(?P<field>{_FIELD})[`'\"]?(?:\s+(?:\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|`[^`\n]*`|[^\s:;]+))?"
    r"\s*:\s*(?P<rule>[^;\n]+)",
    re.I,
)
_REQUIRED_PROSE: Final = re.compile(
    rf"[`'\"](?P<a>{_FIELD})[`'\"] is a required property"
    rf"|must have required property [`'\"](?P<b>{_FIELD})[`'\"]"
    rf"|missing required (?:argument|field|property|parameter):? [`'\"]?(?P<c>{_FIELD})"
    # "required property 'b' not found" (networknt), "required key [b] not found" (everit)
    rf"|required (?:property|key|field) [`'\"\[](?P<d>{_FIELD})[`'\"\]] (?:not found|is missing)"
    # a tool's own check: "'table_name' is required" (counted only for a declared argument)
    rf"|[`'\"](?P<e>{_FIELD})[`'\"] is (?:required|missing)\b"
    # "Missing 'query' parameter", "missing `path` argument", "missing field 'id'"
    rf"|\bmissing (?:the )?(?:(?:required )?(?:parameter|argument|field|property) )?[`'\"](?P<f>{_FIELD})[`'\"]"
    r"(?:\s+(?:parameter|argument|field|property))?",
    re.I,
)


def _zod_lines(message: str) -> Iterator[tuple[str, str | None]]:
    body = _TOOL_PREAMBLE.sub("", _SDK_PREFIX.sub("", message.strip()), count=1)
    for piece in _ISSUE_BREAK.split(body):
        piece = _TRACE.sub("", piece).strip()
        match = _ZOD_PREFIX.match(piece) or _ZOD_SUFFIX.match(piece)
        path, text = (match.group("path"), match.group("msg")) if match else ("", piece)
        unrecognised = _UNRECOGNISED.match(text)
        if unrecognised:  # zod names the object; the keys are the arguments that should not be there
            for key in re.findall(r"[\"'`]([^\"'`]+)[\"'`]", unrecognised.group("keys")):
                yield (f"{path}.{key}" if path else key), _UNEXPECTED
        elif match is not None and (expected := _expectation(text)) is not None:
            yield path, expected  # an unknown sentence proves nothing: "failed at startup" is not a path


# jsonschema's ValidationError.message: "<repr of the value> <rule> <schema value>" (the mcp 1.x low-level Server
# sends it as "Input validation error: 'seven' is not of type 'number'"). It names the value, not the argument.
_JSONSCHEMA: Final = prefiltered(re.compile(
    # the prefix atomic: the first "error:" or none (each further one re-read the line: quadratic on many)
    r"^(?>.*?error:\s*)?(?P<value>.+?) (?P<rule>is not of type|is not one of|does not match"
    r"|is (?:less|greater) than(?: or equal to)? the (?:minimum|maximum) of|is not a) (?P<arg>.+)$",
    re.I | re.M,
))
_JSONSCHEMA_RULES: Final = {
    "is less than the minimum of": "at least",
    "is less than or equal to the minimum of": "greater than",
    "is greater than the maximum of": "at most",
    "is greater than or equal to the maximum of": "less than",
}


def _jsonschema(message: str, arguments: Mapping[str, Any] | None) -> Iterator[tuple[str, str | None]]:
    for match in _JSONSCHEMA.finditer(message):
        rule, arg = match.group("rule").lower(), match.group("arg").strip().rstrip(".")
        if rule == "is not of type":
            expected = _noun(arg.split(",")[0])
        elif rule == "is not one of":
            expected = _options(arg)
        elif rule == "does not match":
            expected = f"a string matching {_literal(arg)}"
        elif rule == "is not a":
            expected = f"a valid {_literal(arg)}"
        else:
            expected = f"{_JSONSCHEMA_RULES[rule]} {arg}"
        yield _sent_as(match.group("value"), arguments), expected


# The decoders a tool's own code binds arguments with name the field (Go) or echo the value (Rust's serde) and say
# what type was wanted in the language's own type names:
#   Go encoding/json   json: cannot unmarshal string into Go struct field Args.limit of type int
#   Go JSON v2         json: cannot unmarshal JSON string into Go int within "/limit"
#   serde (Rust)       invalid type: string "seven", expected f64 / missing field `b` / unknown field `c`
#                      unknown variant `drone`, expected `ground` or `express`
#   mcp-go helpers     required argument "x" not found / argument "x" is not a string
_DECODER_REPORTS: Final = (
    re.compile(r"cannot unmarshal (?:JSON )?(?:\"[^\"]*\"|\S+) into Go (?:struct field (?P<field>[\w.$-]+) of type"
               r" (?P<type>[^\s:;,]+)|value of type (?P<root>\S+)"
               r"|(?P<type2>[^\s:;,]+) within \"(?P<pointer>/[^\"]*)\")"),
    re.compile(r"invalid (?:type|value): (?:[a-z ]+ )?(?P<value>\"(?:[^\"\\]|\\.)*\"|`[^`]*`|\S+?),"
               r" expected (?P<type>[^\n;]+?)(?: at line \d+ column \d+)?(?=$|[\n;])", re.M),
    re.compile(r"unknown variant `(?P<variant>[^`]*)`, expected (?:one of )?"
               r"(?P<options>`[^`]*`(?:(?:, | or )`[^`]*`)*)"),
    re.compile(r"(?P<kind>missing|unknown|duplicate) field `(?P<name>[^`]+)`"),
    # serde names no value here: the length sent, or the Rust type (schemars lists it under $defs)
    re.compile(r"invalid length (?P<length>\d+), expected (?P<wanted>[^\n;]+?)(?: at line \d+ column \d+)?(?=$|[\n;])"
               r"|did not match any variant of (?:untagged )?enum (?P<enum>\w+)", re.M),
    re.compile(r"\brequired argument [\"'`](?P<required>[^\"'`]+)[\"'`] (?:not found|is missing)"
               r"|\bargument [\"'`](?P<arg>[^\"'`]+)[\"'`] (?:is not an?|cannot be converted to)"
               r" (?P<argtype>[\w.\[\]]+)"),
)
_NATIVE_TYPES: Final = (
    (re.compile(r"^(?:f(?:32|64)|float(?:32|64)?|double|decimal|number)$", re.I), "a number"),
    # serde's "expected u32" for -1: an integer, but not any integer
    (re.compile(r"^(?:u(?:8|16|32|64|128|size)|uint(?:8|16|32|64)?|an? u\d+|ulong|ushort)$", re.I),
     "a non-negative integer"),
    (re.compile(r"^(?:[iu](?:8|16|32|64|128|size)|u?int(?:8|16|32|64)?|long|short|integer|an? (?:i|u)\d+)$", re.I),
     "an integer"),
    (re.compile(r"^(?:a )?(?:bool(?:ean)?)$", re.I), "a boolean"),
    (re.compile(r"^(?:a )?(?:str(?:ing)?|&str)$", re.I), "a string"),
    (re.compile(r"^(?:\[\].*|(?:a )?(?:sequence|array|list|vec)(?:<.*>)?)$", re.I), "an array"),
    (re.compile(r"^(?:map\[.*|(?:a )?(?:map|object|dict)|struct \w+|\*?[A-Z]\w*)$"), "an object"),
)


def _native_noun(kind: str) -> str | None:
    """A Go or Rust type name as the model reads it: ``float64``/``f64`` -> "a number", ``[]string`` -> "an array"."""
    kind = kind.strip().strip("`'\"")
    for pattern, noun in _NATIVE_TYPES:
        if pattern.match(kind):
            return noun
    return None


def _decoder_reports(
    message: str, arguments: Mapping[str, Any] | None, input_schema: Mapping[str, Any] | None = None
) -> Iterator[tuple[str, str | None]]:
    go, serde_type, serde_variant, serde_field, serde_unnamed, helpers = _DECODER_REPORTS
    for match in go.finditer(message):
        if match["root"]:
            yield "arguments", _native_noun(match["root"])
        elif match["pointer"]:
            yield _pointer_field(match["pointer"]), _native_noun(match["type2"])
        else:  # "Args.address.city": the Go type's name, then the JSON path
            yield match["field"].partition(".")[2] or match["field"], _native_noun(match["type"])
    for match in serde_type.finditer(message):
        value = match["value"].strip("`")
        field = _sent_kind(value, arguments, input_schema) if value in _SERDE_KINDS else _sent_as(value, arguments)
        yield field, _native_noun(match["type"])
    for match in serde_variant.finditer(message):
        yield _sent_as(json.dumps(match["variant"]), arguments), "one of " + ", ".join(
            re.findall(r"`([^`]*)`", match["options"])
        )
    for match in serde_field.finditer(message):
        yield match["name"], {"missing": _REQUIRED, "unknown": _UNEXPECTED}.get(match["kind"])
    for match in serde_unnamed.finditer(message):
        if match["length"]:
            yield _sent_length(int(match["length"]), arguments), match["wanted"].strip()
        else:
            yield _typed_as(match["enum"], input_schema), None  # what it must be: the listed schema says
    for match in helpers.finditer(message):
        if match["required"]:
            yield match["required"], _REQUIRED
        else:
            yield match["arg"], _native_noun(match["argtype"]) or _noun(match["argtype"])
    for match in _KOTLINX.finditer(message):
        at = _kotlinx_path(match["path"] or match["keypath"])
        if match["key"]:
            yield (f"{at}.{match['key']}" if at else match["key"]), _UNEXPECTED
        elif at:  # the root ("$") is the whole document: an upstream's body as likely as the arguments
            yield at, _kotlinx_expectation(match["what"])


# kotlinx.serialization (a Kotlin SDK tool decoding its JsonObject arguments into a data class; kotlin-sdk Server.kt
# wraps it in "Error executing tool <name>: "): a JSON path after "at path:", the rule before it.
#   Unexpected JSON token at offset 7: Expected numeric literal at path: $.limit
#   Unexpected JSON token at offset -1: Failed to parse literal '"ten"' as an int value at path: $.limit
#   Encountered an unknown key 'verbose' at offset 12 at path: $
# ("Field 'b' is required for type with serial name 'X', but it was missing at path: $" reads as prose.)
_KOTLINX: Final = re.compile(
    r"Unexpected JSON token at offset -?\d+: (?P<what>.{1,200}?) at path: (?P<path>\$\S*)"
    r"|Encountered an unknown key '(?P<key>[^']{1,64})'(?: at offset -?\d+)? at path: (?P<keypath>\$\S*)"
)


def _kotlinx_path(path: str | None) -> str:
    return re.sub(r"\[(\d+)\]", r".\1", (path or "$").removeprefix("$")).strip(".")


def _kotlinx_expectation(what: str) -> str | None:
    if re.match(r"Expected numeric literal", what):
        return "a number"
    if re.match(r"Expected (?:quotation mark|string literal|beginning of the string)", what):
        return "a string"
    if literal := re.search(r"as an? (\w+) value", what):
        return _native_noun(literal[1]) or _noun(literal[1])
    if re.match(r"Expected (?:start of the object|JsonObject)", what):
        return "an object"
    if re.match(r"Expected (?:start of the array|JsonArray)", what):
        return "an array"
    return None


# serde names the kind of a container it did not expect ("invalid type: map, expected a string"), not its value.
_SERDE_KINDS: Final = {"map": Mapping, "sequence": list}


_KIND_TYPES: Final = {"map": "object", "sequence": "array"}


def _sent_kind(kind: str, arguments: Mapping[str, Any] | None, input_schema: Mapping[str, Any] | None) -> str:
    """The one argument (a dotted path when nested) sent as a ``map`` or ``sequence`` where the tool's schema does
    not declare one (an object holding the wrong one is a map too), else ``""`` (unnamed)."""
    paths = [
        path for path, value in _leaves(arguments or {}, "")
        if isinstance(value, _SERDE_KINDS[kind])
        and not (isinstance(input_schema, Mapping) and _schema_at(input_schema, path).get("type") == _KIND_TYPES[kind])
    ]
    return paths[0] if len(paths) == 1 else ""


def _sent_length(length: int, arguments: Mapping[str, Any] | None) -> str:
    """The one string or array argument of ``length`` items (serde: "invalid length 0, expected ..."), else ``""``."""
    paths = [path for path, value in _leaves(arguments or {}, "")
             if isinstance(value, str | list) and len(value) == length]
    return paths[0] if len(paths) == 1 else ""


def _typed_as(type_name: str, input_schema: Mapping[str, Any] | None) -> str:
    """The one argument whose schema is the ``$defs`` entry named ``type_name`` (schemars names them after the Rust
    type): a top-level argument, an item of one, or a property one object down; else ``""``."""
    if not isinstance(input_schema, Mapping):
        return ""
    candidates: list[tuple[str, Any]] = []
    for name, node in (input_schema.get("properties") or {}).items():
        candidates.append((name, node))
        resolved = _resolve(input_schema, node)
        if isinstance(resolved, Mapping):
            candidates.append((name, resolved.get("items")))
            candidates += [(f"{name}.{sub}", child) for sub, child in (resolved.get("properties") or {}).items()]
    found = [path for path, node in candidates
             if isinstance(node, Mapping) and str(node.get("$ref", "")).endswith(f"/{type_name}")]
    return found[0] if len(found) == 1 else ""


def _literal(text: str) -> str:
    """A Python literal as jsonschema prints it (``'^\\\\d{5}$'``) back to its value (``^\\d{5}$``)."""
    try:
        return str(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return text.strip("'")


def _sent_as(echoed: str, arguments: Mapping[str, Any] | None) -> str:
    """The one argument (a dotted path when nested) whose value a validator echoed, else ``""`` (unnamed)."""
    paths = [path for path, value in _leaves(arguments or {}, "")
             if echoed in {repr(value), json.dumps(value), json.dumps(value, ensure_ascii=False)}]
    return paths[0] if len(paths) == 1 else ""


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every (dotted path, value) in sent arguments, containers included (a validator may echo a whole object)."""
    if path:
        yield path, value
    children = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from _leaves(child, f"{path}.{key}" if path else str(key))


def _pydantic(message: str) -> Iterator[tuple[str, str | None]]:
    for match in _PYDANTIC.finditer(message):
        kind = match.group("type") or ""
        if kind.startswith("missing"):
            yield match.group("loc"), _REQUIRED
        elif kind in {"extra_forbidden", "unexpected_keyword_argument"}:
            yield match.group("loc"), _UNEXPECTED
        else:
            yield match.group("loc"), _expectation(match.group("msg"))


# "query is required" names the argument unquoted: read only for an argument the tool declares ("Authentication
# is required" names none).
_BARE_REQUIRED: Final = re.compile(
    rf"(?:^|(?<=[\s:;,(]))(?P<field>{_FIELD}) (?:is|are) (?:required|missing)\b"
    # "Missing expression parameter" (the Swift SDK's README tool)
    rf"|\bmissing (?:required )?(?P<named>{_FIELD}) (?:parameter|argument|field|property)\b",
    re.I,
)


def _prose(message: str, input_schema: Mapping[str, Any] | None = None) -> Iterator[tuple[str, str | None]]:
    for match in _REQUIRED_PROSE.finditer(message):
        yield next(name for name in match.groups() if name), _REQUIRED
    declared = declared_arguments(input_schema) or frozenset()
    for match in _BARE_REQUIRED.finditer(message):
        name = match["field"] or match["named"]
        if name in declared:
            yield name, _REQUIRED
    for match in _POINTER_MUST.finditer(message):
        exp = match.group("exp").strip()
        yield _path(match.group("pointer")), _noun(exp) if re.fullmatch(r"\w+", exp) else exp
    for match in _MUST_BE.finditer(message):
        yield match.group("field"), match.group("exp").strip()
    for match in _MUST_MATCH.finditer(message):
        yield match.group("field"), f"a string matching {match.group('pattern').strip('`')}"
    for match in _INVALID_FIELD.finditer(message):
        expected = _expectation(match.group("rule"))
        if expected is not None:  # "invalid token: expired" names no rule: not a rejected argument
            yield match.group("field"), expected


# JSON Schema validators outside JavaScript and Python report a location (a JSON pointer into the arguments or into
# the schema, or the root) and either the failed keyword with its own sentence (Go's google/jsonschema-go, used by
# the official Go SDK: "validating /properties/a: type: ... want \"number\"") or the keyword's error value printed
# as a Go struct (santhosh-tekuri/jsonschema, used by mcp-go: "/a: &{Got:string Want:[number]}"). What the
# argument must be comes from the keyword and the schema's own value in that report, never from the sent value.
# A pointer starts where no pointer runs already (a start inside "/a/b/c" scanned to its end at each "/": quadratic).
# Its characters are the ones that keep a start out (a "/" after "<" in "<td>x</td><td>..." started a run that
# crossed every later "/": quadratic on an HTML table relayed as an error).
_LOCATION: Final = r"(?P<pointer>(?<![\w/~$.-])/[\w/~$.-]*|<root>|root)"
# Validators elsewhere (Java's networknt and everit, .NET's) put a JSONPath (``$.a.b``, ``$.items[0]``) or a URI
# fragment pointer (``#/a/b``) before their own sentence: the location names the argument; the sentence is read
# with the phrases above, and when none fits, the tool's listed schema says what the argument must be.
_PATH_REPORT: Final = re.compile(
    r"(?:^|(?<=[\s;,]))(?P<path>\$(?:\.[\w$-]+|\[\d+\]|\['[^']+'\])*|#(?:/[^\s:;/]+)*)\s*:\s*(?P<msg>[^;\n]+)", re.M
)
# ... and networknt 2+ (the Java SDK 2.x) a bare JSON pointer into the arguments ("/a", "/items/0/qty"; "" for the root)
# before its sentence, issues joined by ", " inside "[...]". Only a sentence the phrases read counts here: a path
# before any other words ("open /srv/x: no such file") is no argument.
_POINTER_REPORT: Final = re.compile(
    r"(?:^|(?<=[\s\[,]))(?P<pointer>(?:/[\w~$.-]+)+|(?<=[\[,]))\s*:\s+"
    r"(?P<msg>[^;\n]+?)(?=,\s*/[\w~$./-]*\s*:\s|,\s*:\s|\]?\s*(?:;|\n|$))",
    re.M,
)
_NETWORKNT_NAMED: Final = re.compile(
    r"^(?:required property '(?P<required>[^']+)' not found"
    r"|property '(?P<extra>[^']+)' is not defined in the schema and the schema does not allow additional properties)$"
)
_KEYWORD_REPORT: Final = re.compile(
    rf"{_LOCATION}\s*:\s*(?P<keyword>type|required|enum|const|pattern|format|minimum|maximum|exclusiveMinimum"
    r"|exclusiveMaximum|minLength|maxLength|minItems|maxItems|multipleOf|additionalProperties)\s*:\s*"
    r"(?P<detail>[^;\n]*)"
)
_STRUCT_REPORT: Final = re.compile(rf"{_LOCATION}\s*:\s*&?\{{(?P<fields>[^\n]*?)\}}(?=\s*(?:;|$))", re.M)
# a field's name starts a word (also what keeps a long run of word characters from being tried at each of its letters)
_STRUCT_FIELD: Final = re.compile(r"(?<!\w)(?P<key>[A-Z]\w*):(?P<value>\[[^\]]*\]|\S+)")
_JSON_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_BOUND_WORDS: Final = {"minimum": "at least", "exclusiveMinimum": "greater than", "maximum": "at most",
                       "exclusiveMaximum": "less than"}
_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.I)
_QUOTED: Final = re.compile(r'"((?:[^"\\]|\\.)*)"')
_WANT: Final = re.compile(r"\b(?:want(?:ed)?|expected|must be|should be)\b", re.I)


def _pointer_field(pointer: str) -> str:
    """The argument a location names: ``/properties/a/properties/b`` (a schema path) and ``/a/b`` both give ``a.b``."""
    if pointer in {"<root>", "root", "/"}:
        return ""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.strip("/").split("/")]
    if parts[0] != "properties":
        return ".".join(parts)
    names, i = [], 0
    while i < len(parts):  # a schema path: every name follows a "properties"; "items" and other keywords drop
        if parts[i] == "properties" and i + 1 < len(parts):
            names.append(parts[i + 1])
            i += 2
        else:
            i += 1
    return ".".join(names)


def _list_items(text: str) -> list[str]:
    """The items of a printed list: ``["a","b"]`` (JSON), ``[a b]`` (Go), ``a, b``."""
    quoted = _QUOTED.findall(text)
    if quoted:
        return quoted
    inner = text.strip().strip("[]")
    return [v.strip("'`") for v in re.split(r",\s*|\s+", inner) if v.strip("'`")]


def _number(text: str) -> str:
    """``30.000000`` -> ``30``: the bound as a person writes it."""
    return text if "." not in text else text.rstrip("0").rstrip(".")


def _keyword_expectation(keyword: str, detail: str) -> str | None:
    if keyword == "type":
        wanted = _WANT.split(detail)[-1] if _WANT.search(detail) else ""
        types = [t for t in re.findall(r"\w+", wanted) if t in _JSON_TYPES]
        return " or ".join(_noun(t) for t in types) or None
    if keyword == "enum" and "[" in detail:
        return "one of " + ", ".join(_list_items(detail[detail.rindex("["):]))
    if keyword in {"pattern", "format"} and _QUOTED.search(detail):
        value = json.loads(f'"{_QUOTED.findall(detail)[-1]}"')
        return f"a string matching {value}" if keyword == "pattern" else f"a valid {value}"
    numbers = _NUMBER.findall(detail)
    if keyword in _BOUND_WORDS and numbers:
        return f"{_BOUND_WORDS[keyword]} {_number(numbers[-1])}"
    if keyword in {"minLength", "maxLength", "minItems", "maxItems"} and numbers:
        unit = "characters" if keyword.endswith("Length") else "items"
        return f"{'at least' if keyword.startswith('min') else 'at most'} {_number(numbers[-1])} {unit}"
    return None


def _keyword_reports(message: str) -> Iterator[tuple[str, str | None]]:
    for match in _KEYWORD_REPORT.finditer(message):
        field, keyword, detail = _pointer_field(match["pointer"]), match["keyword"], match["detail"]
        if keyword in {"required", "additionalProperties"}:
            names = _list_items(detail.split(":")[-1]) if ":" in detail else _QUOTED.findall(detail)
            for name in names:
                yield (f"{field}.{name}" if field else name), _REQUIRED if keyword == "required" else _UNEXPECTED
        else:
            yield field or "arguments", _keyword_expectation(keyword, detail)
    for match in _PATH_REPORT.finditer(message):
        path = match["path"].lstrip("$#")
        field = _pointer_field(path) if path.startswith("/") else re.sub(r"\['([^']+)'\]", r".\1", path).strip(".")
        if not _REQUIRED_PROSE.search(match["msg"]):  # "$: required property 'b' not found" is read as prose
            yield field or "arguments", _expectation(match["msg"])
    for match in _POINTER_REPORT.finditer(message):
        field, text = _pointer_field(match["pointer"]), match["msg"].strip()
        if named := _NETWORKNT_NAMED.match(text):  # the property named inside the object at the pointer
            name = named["required"] or named["extra"]
            yield f"{field}.{name}" if field else name, _REQUIRED if named["required"] else _UNEXPECTED
        elif (expected := _expectation(text)) is not None:
            yield field, expected
    for match in _STRUCT_REPORT.finditer(message):
        field = _pointer_field(match["pointer"])
        values = {m["key"]: m["value"] for m in _STRUCT_FIELD.finditer(match["fields"])}
        if "Missing" in values:
            for name in _list_items(values["Missing"]):
                yield (f"{field}.{name}" if field else name), _REQUIRED
            continue
        wanted = values.get("Want", "")
        expected = None
        if wanted.startswith("["):
            items = _list_items(wanted)
            is_types = items and all(item in _JSON_TYPES for item in items)
            expected = " or ".join(_noun(t) for t in items) if is_types else "one of " + ", ".join(items)
        yield field or "arguments", expected  # a bare Want (a pattern, a bound, a format) does not say which rule


# Ruby's json_schemer (the Ruby SDK: "Invalid arguments: value at `/a` is not a number, object at root is missing
# required properties: b"): the kind of value, its location in backticks or "root", then the rule it broke.
_SUBJECT: Final = r"(?:value|number|string(?: length)?|array(?: size| items)?|object(?: propert(?:y|ies)| size)?)"
_SUBJECT_REPORT: Final = re.compile(
    rf"\b(?P<subject>{_SUBJECT}) at (?:`(?P<pointer>/[^`]*)`|root) (?P<rule>.+?)"
    rf"(?=,\s*{_SUBJECT} at (?:`|root)|;|\n|$)",
    re.I,
)
_SUBJECT_BOUNDS: Final = (
    (re.compile(r"^is greater than or equal to: (\S+)$"), "less than"),
    (re.compile(r"^is greater than: (\S+)$"), "at most"),
    (re.compile(r"^is less than or equal to: (\S+)$"), "greater than"),
    (re.compile(r"^is less than: (\S+)$"), "at least"),
)
# The PHP SDK: "Property '/b': Invalid type. Expected `number`, but received `string`." (issues joined by "; ").
_PROPERTY_REPORT: Final = re.compile(r"\bProperty '(?P<pointer>/[^']*)':\s*(?P<msg>[^;\n]+)")


def _subject_rule(subject: str, rule: str) -> str | None:
    rule = rule.strip().rstrip(".")
    for pattern, words in _SUBJECT_BOUNDS:
        match = pattern.match(rule)
        if match:
            unit = {"string length": " characters", "array size": " items"}.get(subject.lower(), "")
            return f"{words} {_number(match[1])}{unit}"
    if match := re.match(r"^is not one of the types: (.+)$", rule):
        return " or ".join(_noun(t) for t in _list_items(match[1]))
    if match := re.match(r"^is not one of: (.+)$", rule):
        return "one of " + ", ".join(_list_items(match[1]))
    if match := re.match(r"^is not: (.+)$", rule):
        return f"exactly {match[1]}"
    if match := re.match(r"^is not an? (\w+)$", rule):
        return _noun(match[1])
    if match := re.match(r"^is not a multiple of: (\S+)$", rule):
        return f"a multiple of {match[1]}"
    if match := re.match(r"^does not match pattern: (.+)$", rule):
        return f"a string matching {match[1]}"
    if match := re.match(r"^does not match format: (.+)$", rule):
        return f"a valid {match[1]}"
    return None


def _located_reports(message: str) -> Iterator[tuple[str, str | None]]:
    """Reports that give the argument's location apart from the rule: json_schemer's and the PHP SDK's."""
    for match in _SUBJECT_REPORT.finditer(message):
        field, rule = _pointer_field(match["pointer"] or ""), match["rule"].strip()
        if rule.startswith("is a disallowed additional property"):
            yield field, _UNEXPECTED
        elif required := re.match(r"is missing required properties: (.+)$", rule):
            for name in _list_names(required[1]):
                yield (f"{field}.{name}" if field else name), _REQUIRED
        else:
            yield field or "arguments", _subject_rule(match["subject"], rule)
    for match in _PROPERTY_REPORT.finditer(message):
        field, text = _pointer_field(match["pointer"]), match["msg"].strip()
        listed = _NAMED_LIST.match(text)
        if listed:
            kind = _REQUIRED if listed["kind"].lower().startswith("missing") else _UNEXPECTED
            for name in _list_names(listed["names"]):
                yield (f"{field}.{name}" if field else name), kind
        else:
            yield field or "arguments", _expectation(text)
    # the same lists at the root, without a location: "Missing required arguments: a, b" (Ruby SDK)
    body = _TOOL_PREAMBLE.sub("", _SDK_PREFIX.sub("", message.strip()), count=1)
    for piece in re.split(r";\s*|\n", body):
        listed = _NAMED_LIST.match(_STRIP_INVALID.sub("", piece.strip()))
        if listed:
            kind = _REQUIRED if listed["kind"].lower().startswith("missing") else _UNEXPECTED
            for name in _list_names(listed["names"]):
                yield name, kind


_STRIP_INVALID: Final = re.compile(r"^invalid (?:arguments|params|parameters)\s*:\s*", re.I)


def _schema_at(schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The schema of the value at ``path`` (dotted; array indices step into ``items``), ``{}`` when undeclared."""
    node: Any = _resolve(schema, schema)
    for part in path.split(".") if path else ():
        if not isinstance(node, Mapping):
            return {}
        node = _resolve(schema, node.get("items") if part.isdigit() else (node.get("properties") or {}).get(part))
    return node if isinstance(node, Mapping) else {}


def _properties_at(schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The properties the schema declares for the object at ``path``."""
    properties = _schema_at(schema, path).get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _qualified(
    field: str, expected: str | None, arguments: Mapping[str, Any] | None, input_schema: Mapping[str, Any] | None
) -> str:
    """A bare name a decoder gave for a nested argument (serde: "missing field `zip`") as its path (``address.zip``).

    Only when the tool declares no top-level argument of that name and exactly one object among the sent arguments
    declares it (lacking it, for a missing one); otherwise the name stays as the server wrote it.
    """
    if not field or not arguments or not isinstance(input_schema, Mapping) or re.search(r"[.\[/]", field):
        return field
    if field in _properties_at(input_schema, ""):
        return field
    owners = [
        path for path, value in _leaves(arguments, "")
        if isinstance(value, Mapping) and field in _properties_at(input_schema, path)
        and (expected != _REQUIRED or field not in value)
    ]
    return f"{owners[0]}.{field}" if len(owners) == 1 else field


def _declared_expectation(problem: ArgumentProblem, input_schema: Mapping[str, Any] | None) -> ArgumentProblem:
    if problem.expected not in (None, _SOME_FORMAT) or problem.field in ("", "arguments") or input_schema is None:
        return problem
    path = re.split(r"[.\[\]/]+", problem.field.strip("]"))  # a.b, a[0].b, a/b
    return ArgumentProblem(problem.field, expected_for_path(input_schema, path) or problem.expected)


_NOT_FIELDS: Final = frozenset({"input", "error", "trace", "at", "http", "https"})  # prose words, not arguments
# A validator's sentence subject ("Number must be less than or equal to 100", "String must be at least 3 characters
# long": the PHP SDK; "Value must be ...") capitalised at the start of its sentence: the kind of value, not an argument.
_SUBJECT_WORDS: Final = frozenset({"Number", "String", "Value", "Array", "Object", "Integer", "Boolean", "Data",
                                   "Property", "Field", "Parameter", "Argument"})


def parse_argument_problems(
    message: str,
    arguments: Mapping[str, Any] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    data: Any = None,
) -> list[ArgumentProblem]:
    """The arguments a validation message rejects and what each must be (order kept, one per field, at most 4).

    Args:
        message: the server's text.
        arguments: the arguments that were sent, to name the argument when a validator echoes its value
            instead of its name (jsonschema); never quoted back.
        input_schema: the tool's listed ``inputSchema``. When the message names an argument but not the rule it
            broke (mcp-go prints ``/weight_kg: &{Got:-1/1 Want:0/1}``), what the argument must be is read from the
            tool's own declaration (:func:`errscope._messages.expected_for_path`) instead.
        data: the JSON-RPC error's ``data`` (JSON-RPC 2.0 §5.1), where many servers put the specifics and keep the
            message generic: a string, an issue list (zod, ajv, JSON Schema output units), an object naming the
            argument (``{"field": ..., "reason": ...}``, the PHP SDK's ``{"validation_errors": [...]}``, the Swift
            SDK's ``{"detail": ...}``) or a map of arguments to messages (``{"fieldErrors": {"a": [...]}}``).

    A field named twice keeps the most specific expectation. Values the caller sent never appear: pydantic's
    ``input_value``, zod's ``received`` and JSON Schema's echoed instance are dropped by construction.
    """
    message = message[:MAX_PARSED]
    found: dict[str, str | None] = {}
    # A JSON issue list is the whole story (its "message" fields would read as prose); else text forms combine.
    pairs = [*_text_pairs(message, arguments, input_schema), *_data_pairs(data, arguments, input_schema)]
    for field, expected in pairs:
        field = _qualified(field.strip("`'\"").removeprefix("$."), expected, arguments, input_schema)  # $: JSONPath
        if field.lower() in _NOT_FIELDS or field in _SUBJECT_WORDS or (
            not field and (expected is None or "" in found)
        ):
            continue
        if found.get(field) is None:
            found[field] = expected
    if len(found) > 1:
        found.pop("", None)  # a problem the validator could not name adds nothing next to named ones
    problems = [ArgumentProblem(field, expected) for field, expected in found.items()][:MAX_PROBLEMS]
    return [_declared_expectation(problem, input_schema) for problem in problems]


def _text_pairs(
    message: str, arguments: Mapping[str, Any] | None, input_schema: Mapping[str, Any] | None
) -> list[tuple[str, str | None]]:
    issues = list(_json_issues(message))
    return issues or [
        *_located_reports(message), *_keyword_reports(message), *_decoder_reports(message, arguments, input_schema),
        *_pydantic(message), *_zod_lines(message), *_prose(message, input_schema), *_jsonschema(message, arguments),
    ]


_MAX_DATA_DEPTH: Final = 6
_DATA_CONTAINERS: Final = ("issues", "errors", "validation_errors", "validationErrors", "fieldErrors", "details",
                           "violations", "invalid_params", "invalidParams")


def _data_pairs(
    data: Any, arguments: Mapping[str, Any] | None, input_schema: Mapping[str, Any] | None, depth: int = 0
) -> Iterator[tuple[str, str | None]]:
    """(field, expectation) pairs from a JSON-RPC error's ``data`` (see :func:`parse_argument_problems`)."""
    if depth > _MAX_DATA_DEPTH:
        return
    if isinstance(data, str):
        yield from _text_pairs(data[:4096], arguments, input_schema)
    elif isinstance(data, list):
        for item in data[:50]:
            yield from _data_pairs(item, arguments, input_schema, depth + 1)
    elif isinstance(data, Mapping):
        if any(data.get(key) not in (None, "") and not isinstance(data.get(key), Mapping) for key in _PATH_KEYS):
            yield from _issue(data)
            return
        known = set(_sent_names(arguments)) | set(declared_arguments(input_schema) or ())
        for key, value in data.items():
            if key in _DATA_CONTAINERS and isinstance(value, Mapping) and _names_map(value):
                for name, said in value.items():  # {"fieldErrors": {"a": ["Expected number, received string"]}}
                    yield str(name), _said_expectation(said)
            elif isinstance(value, list | Mapping):
                yield from _data_pairs(value, arguments, input_schema, depth + 1)
            elif key in _MESSAGE_KEYS and isinstance(value, str):
                yield from _text_pairs(value[:4096], arguments, input_schema)
            elif key in known and isinstance(value, str):  # {"limit": "must be at most 100"}
                yield key, _said_expectation(value)


def _names_map(value: Mapping[str, Any]) -> bool:
    """A map of argument names to what is wrong with each (strings, or lists of them)."""
    return bool(value) and all(
        isinstance(name, str) and re.fullmatch(_FIELD, name)
        and (isinstance(said, str) or (isinstance(said, list) and all(isinstance(s, str) for s in said)))
        for name, said in value.items()
    )


def _said_expectation(said: Any) -> str | None:
    texts = [said] if isinstance(said, str) else [s for s in said if isinstance(s, str)] if isinstance(said, list) else []
    for text in texts:
        expected = _expectation(text)
        if expected is not None:
            return expected
    return None


def _sent_names(arguments: Mapping[str, Any] | None) -> list[str]:
    return [str(name) for name in arguments] if isinstance(arguments, Mapping) else []


# ------------------------------------------------------------------------------------------- classification


def declared_arguments(input_schema: Mapping[str, Any] | None) -> frozenset[str] | None:
    """The top-level argument names a tool's ``inputSchema`` declares; ``None`` when unknown."""
    if not isinstance(input_schema, Mapping) or not isinstance(input_schema.get("properties"), Mapping):
        return None
    return frozenset(str(name) for name in input_schema["properties"])


def missing_required(input_schema: Mapping[str, Any] | None, arguments: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The top-level arguments the listed ``inputSchema`` requires (JSON Schema ``required``) that the call did not
    send, in the schema's order (at most :data:`MAX_PROBLEMS`); empty when the schema is unknown or says nothing."""
    if not isinstance(input_schema, Mapping) or not isinstance(input_schema.get("required"), list):
        return ()
    sent = arguments if isinstance(arguments, Mapping) else {}
    names = [name for name in input_schema["required"] if isinstance(name, str) and name not in sent]
    return tuple(names[:MAX_PROBLEMS])


def required_missing_note(tool: str, missing: Collection[str]) -> str:
    """The model's note for a failure that names no cause, sent without arguments the listed schema requires
    (MemPalace/mempalace #1574: -32000 "Internal tool error" for a call missing ``agent_name``)."""
    names = ", ".join(f"`{safe_name(name)}`" for name in missing)
    noun = "argument" if len(missing) == 1 else "arguments"
    return (f"{safe_name(tool)} failed without saying why; the call lacked the required {noun} {names}. "
            "Fix the arguments and call again.")


def is_argument_rejection(message: str, declared: Collection[str] | None = None) -> bool:
    """Whether an error text (a -32602 message or an ``isError`` result) says the call's arguments were rejected.

    Args:
        message: the server's text.
        declared: the tool's declared argument names (:func:`declared_arguments`), when listed.

    An SDK's own marker (``-32602``, "Input validation error", "Invalid arguments", "validating arguments",
    "failed to deserialize parameters") is enough. A pydantic validation report, a decoder's (Go
    ``encoding/json``, Rust's serde) or an argument helper's (mcp-go) counts only when it names an argument the
    tool declares (or nothing is known about the tool): a tool validating *upstream* data with them fails on its
    own, it was not called wrongly; one that says it could not decode an upstream's answer
    (:func:`errscope._foreign_text.reads_upstream_data`) never counts. An unknown-tool message is not a
    rejection of arguments (:func:`unknown_tool_name`).
    """
    message = message[:MAX_PARSED]  # see MAX_PARSED: a report is short, a 2 MiB page is no report
    if unknown_tool_name(message) is not None:
        return False
    if _STRONG_MARKER.search(message):
        return True
    if reads_upstream_data(message):  # a decoder that failed on an upstream's answer, not on the arguments
        return False
    if not (_PYDANTIC_HEADER.search(message) or _DECODER_HEADER.search(message)):
        # No validator spoke: a tool's own sentence ("'table_name' is required") counts only when it
        # names an argument the tool declares.
        return declared is not None and _names_declared(parse_argument_problems(message), declared)
    problems = parse_argument_problems(message)
    if declared is None:
        return bool(problems)
    return _names_declared(problems, declared)


def _names_declared(problems: list[ArgumentProblem], declared: Collection[str]) -> bool:
    return any(re.split(r"[.\[/]", p.field)[0] in declared for p in problems)


def unknown_tool_name(message: str) -> str | None:
    """The tool named by an unknown-tool message, ``""`` if it names none, ``None`` for any other message.

    A message that rejects arguments ("Invalid arguments for tool x: ...") is never an unknown tool.
    """
    if _ARGUMENTS_REJECTED.search(message):
        return None
    for pattern in _UNKNOWN_TOOL:
        match = pattern.search(message)
        if match is not None:
            return (match.group("name") or "").strip("`'\"")
    return None


def names_this_tool_unknown(message: str, tool: str) -> bool:
    """Whether ``message`` says that ``tool`` itself does not exist.

    An unknown-tool message that names another tool ("Tool wrench not found in inventory" from a listed
    tool) is that tool's own failure, not a stale name: only a message naming ``tool``, or naming none,
    sends the caller to re-list.
    """
    named = unknown_tool_name(message)
    return named is not None and named in ("", tool)


def invalid_params_note(
    tool: str,
    message: str,
    arguments: Mapping[str, Any] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    data: Any = None,
) -> str:
    """Build the model's note for rejected arguments on ``tool``: which argument, what it must be, what to do.

    Args:
        tool: the tool's name (echoed as :func:`errscope._messages.safe_name` gives it).
        message: the server's text (a -32602 message or an ``isError`` result's text).
        arguments: the arguments that were sent (see :func:`parse_argument_problems`). Every value among them, at
            any depth and of any type, is cut out of whatever server text reaches the note
            (:func:`without_sent_values`): the note never quotes what the model sent, however the server echoed it.
        input_schema: the tool's listed ``inputSchema`` (see :func:`parse_argument_problems`).
        data: the -32602 error's ``data``, read for the argument when the message does not name it (see
            :func:`parse_argument_problems`). A string ``data`` stands in for a generic message ("Invalid params")
            when nothing names an argument; structured ``data`` reaches the note only as parsed names and rules.

    Returns:
        At most :data:`MAX_NOTE` characters, scrubbed; each argument name at most :data:`~errscope._messages.MAX_NAME` characters and each
        expectation at most :data:`MAX_EXPECTED`.
    """
    problems = parse_argument_problems(message, arguments, input_schema, data)
    if not problems and isinstance(data, str) and _SDK_PREFIX.sub("", message).strip().lower().rstrip(".") in _GENERIC:
        message = data  # "Invalid params" with the specifics in data (the Ruby SDK: data "Missing or invalid uri")
    if problems:
        # Names and expectations are the server's raw text: values cut, bounded and scrubbed like the excerpt below.
        detail = scrub_text("; ".join(_bounded(p, arguments).sentence() for p in problems))
    else:
        # Nothing structured: keep a scrubbed, path-free excerpt, only if it is short prose.
        prose = without_sent_values(_SDK_PREFIX.sub("", message), arguments)
        excerpt = safe_excerpt(prose, limit=120)
        generic = _GENERIC
        # rmcp answers a tools/call it cannot decode with -32601 and the method's name as the whole message.
        detail = excerpt if excerpt and excerpt.lower() not in generic and not excerpt.startswith(("[", "{")) and not (
            _METHOD_NAME.fullmatch(excerpt)) else ""
    head = f"{safe_name(tool)} was rejected: invalid arguments"
    tail = " Fix the arguments and call again."
    note = f"{head} — {detail}.{tail}" if detail else f"{head}.{tail}"
    if len(note) > MAX_NOTE:
        room = MAX_NOTE - len(head) - len(tail) - 5
        note = f"{head} — {detail[:room].rstrip()}….{tail}"
    return note


_GENERIC: Final = frozenset({"invalid params", "invalid request parameters", "invalid arguments", "invalid parameters"})


def _bounded(problem: ArgumentProblem, arguments: Mapping[str, Any] | None) -> ArgumentProblem:
    expected = problem.expected
    if expected is not None and expected not in (_REQUIRED, _UNEXPECTED):
        expected = _clip(without_sent_values(expected, arguments), MAX_EXPECTED)
    return ArgumentProblem(safe_name(problem.field) if problem.field else "", expected)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_METHOD_NAME: Final = re.compile(r"(?:notifications/)?[a-z]+/[a-z][\w/]*")

_MIN_CUT: Final = 4
"""Shorter sent values are not cut: too short to carry a secret, and they would match everywhere ("a", "10")."""
_MIN_FRAGMENT: Final = 12
"""A run of this many characters of a sent string counts as an echo of it (a validator's shortened repr)."""
_RUN: Final = re.compile(r"[^\s'\"`,;:=()\[\]{}<>….]|(?<!\.)\.(?!\.)")
"""One character of a run: not a space, quote, bracket or separator, nor part of an ellipsis (``..``, ``...``)."""
_RUNS: Final = re.compile(rf"(?:{_RUN.pattern}){{{_MIN_FRAGMENT},}}")


def without_sent_values(text: str, arguments: Mapping[str, Any] | None) -> str:
    """``text`` with every value of ``arguments`` cut out (``…``): any depth, any scalar type, echoed whole or cut short.

    A validator may quote what it rejected: the whole value (jsonschema's repr, zod's ``received``), the JSON of a
    nested object, or a shortened repr (pydantic prints ``'abcd...wxyz'`` for a long string). Cut are: each leaf
    value (strings, numbers; not booleans or null) of at least :data:`_MIN_CUT` characters wherever it occurs, and
    any run of at least :data:`_MIN_FRAGMENT` characters (between spaces, quotes, brackets or an ellipsis) that is
    part of a sent string.
    """
    if not arguments:
        return text
    values = sorted(_sent_texts(arguments), key=len, reverse=True)  # longest first: a value inside another
    for value in values:
        text = text.replace(value, "…")
    long = [value for value in values if len(value) >= _MIN_FRAGMENT]
    if long:
        text = _RUNS.sub(lambda run: "…" if any(run[0] in value for value in long) else run[0], text)
    return text


def _sent_texts(arguments: Mapping[str, Any]) -> set[str]:
    texts = set()
    for _, value in _leaves(arguments, ""):
        if isinstance(value, bool) or value is None or isinstance(value, Mapping | list):
            continue  # a container is cut through its leaves
        text = value if isinstance(value, str) else json.dumps(value) if isinstance(value, int | float) else str(value)
        if len(text) >= _MIN_CUT:
            texts.add(text)
    return texts
