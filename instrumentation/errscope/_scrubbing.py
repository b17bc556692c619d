"""Scrub secrets out of text before it reaches a model, a span or a log.

``scrub(text)`` applies the one pattern source (:mod:`errscope._patterns`, the same regexes the
Collector runs) plus a structural pass over URLs that regexes alone get wrong (a password that
contains ``/``, password-like query parameters in any order). One RE2 set pass over the patterns'
triggers picks the patterns that can match; only those run, on UTF-8 bytes. Structured values are
scrubbed by :mod:`errscope._scrub_values` (by key as well as by value, with this module's rules for
every string); ``without_stack_traces`` cuts what a peer must not see of a stack.

Where the time goes, and why it is spent this way (issue #13, measured per corpus line with
``bench_scrubber`` and cProfile): each call into the RE2 binding costs about 1 µs before it reads a
byte, so a line's cost is mostly the number of calls. Hence: one prefilter call, the set (its
triggers have no counted repetition that can start anywhere: their product of run lengths made the
set's DFA 2-3x slower per line than the few extra patterns a looser trigger lets run; Hyperscan on
the same triggers was no faster, Aho-Corasick on the hints cannot express the shape triggers, and
a Python substring loop is 10x slower); one capture-free DFA call per triggered pattern, and only
for a match a second call that reads the kept groups on the matched span alone (RE2 reads groups
with its BitState engine only for programs of at most 512 instructions, else with its NFA: 20-30 µs
per matched line for the keyword patterns, whose key alternations exceed that, hence their smaller
``parse`` programs; a pattern without one reads its groups in the call that finds it). A text of ASCII
characters only runs Latin-1 programs of the same patterns (:func:`_ascii_program`). The URL pass visits only URLs
with a password before the ``@`` or a credential-named parameter; the entropy and character-class checks use C-level bytes methods;
nothing is decoded when nothing was replaced.

Linear time on every input: RE2 only, lone surrogates made valid first. Bounded: only the first
:data:`MAX_SCRUB_CHARS` characters are scrubbed and kept; the rest is dropped with a marker.
Never raises on odd input (lone surrogates, NULs, non-str objects are ``str()``-ed first).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_TYPE

from errscope._attributes import (
    ERROR_TYPE,
    ERRSCOPE_CHANNEL,
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_UPSTREAM_STATUS,
    ERRSCOPE_UPSTREAM_SYSTEM,
    META_CHANNEL,
    META_ERROR_REF,
    META_FAILURE_CLASS,
)
from errscope import _bytedump
from errscope._patterns import PATTERNS, REDACTED, SecretPattern, repeats_a_class
from errscope._secret_shapes import (
    _ANCHOR_BOTH,
    _COLON,
    _DOT,
    _KEY_TOKENS,
    _LESS,
    _PAREN,
    _POSITION,
    _PUBLIC,
    _SLASH,
    _VERSION_TOKEN,
    _is_masked,
    looks_like_password,
    looks_random,
    names_public_key,
)
from errscope._tabular import HINTS as _TABULAR_HINTS
from errscope._tabular import TRIGGERS as _TABULAR_TRIGGERS
from errscope._tabular import scrub_named_cells

__all__ = [
    "MAX_SCRUB_CHARS",
    "REDACTED",
    "SAFE_KEYS",
    "TRUNCATED_MARKER",
    "scrub",
    "without_stack_traces",
]

MAX_SCRUB_CHARS: Final = 64 * 1024
"""Characters of one string that are scrubbed and kept; the rest is dropped."""
TRUNCATED_MARKER: Final = "…[TRUNCATED {n} chars]"
"""Appended where input was cut at :data:`MAX_SCRUB_CHARS` (``{n}``: characters dropped)."""
_MAX_DEPTH: Final = 32
_MAX_ITEMS: Final = 10_000

SAFE_KEYS: Final[frozenset[str]] = frozenset(
    {
        # Closed vocabulary and identifiers triage depends on: never secrets, and a scrubber that
        # ate a trace id or an error ref would break the lookup from message to trace.
        ERROR_TYPE,
        EXCEPTION_TYPE,
        ERRSCOPE_CHANNEL,
        ERRSCOPE_FAILURE_CLASS,
        ERRSCOPE_OUTCOME,
        ERRSCOPE_ERROR_REF,
        ERRSCOPE_UPSTREAM_STATUS,
        ERRSCOPE_UPSTREAM_SYSTEM,
        META_CHANNEL,
        META_ERROR_REF,
        META_FAILURE_CLASS,
        "error_ref",
        "failure_class",
        "trace_id",
        "span_id",
        "parent_span_id",
        "trace_flags",
        "traceparent",
        "request_id",
        "level",
        "log_level",
        "timestamp",
    }
)
"""Keys whose values are never scrubbed (exact match): closed-vocabulary values and identifiers."""

# The engine is RE2 (google-re2) only: linear time on every input. Text RE2 cannot take (lone
# surrogates) is made valid first, never handed to a backtracking engine.
_UNANCHORED: Final = re2._Anchor.UNANCHORED
_REDACTED_BYTES: Final = REDACTED.encode()


@dataclass(frozen=True, slots=True)
class _Rule:
    find: Any  # the pattern: a DFA scan finds where it matches (without captures, or with them when ``grouped``)
    parse: Any  # the ``parse`` program with the kept groups, run on that match alone; None: no kept groups, or ``grouped``
    prefix: tuple[int, ...]  # kept group numbers in front of the secret
    suffix: tuple[int, ...]  # kept group numbers after it
    verify: str
    family: str
    regex: bytes  # the pattern with its groups, for a match ``parse`` does not take (:func:`_groups`)
    check: Any = None  # (data, start, secret, secret_end) -> keep the match; None: always (:func:`_checker`)
    grouped: bool = False  # ``find`` reads the kept groups itself (``parse`` is None): see :func:`_rule`
    match: Any = None  # ``find.Match``, bound once (the binding's methods make a bound method on every lookup)


def _rule(p: SecretPattern, ascii_text: bool = False) -> _Rule:
    # Two programs: a capture-free DFA scan finds the match (~2-3 µs a line), and only then the
    # groups are read on that span, anchored at both ends (the same parse: leftmost-first picks
    # the best parse starting there, and that parse spans exactly the match). The full pattern
    # with captures cost 20-30 µs per matched line for the keyword patterns (module docstring).
    # A pattern without a smaller ``parse`` program is one call with its groups: RE2 itself finds the
    # span with its DFA and then reads the groups on that span alone with the same program (RE2::Match:
    # the same engines on the same span as a capture-free scan and an anchored parse, one binding call
    # fewer a match: ~4k instructions, callgrind).
    # ``ascii_text``: the programs for text of ASCII characters only (:func:`_ascii_program`).
    grouped = bool(p.groups) and not p.parse
    find = _program(p.regex, ascii_text, capture=grouped)
    return _Rule(
        find,
        _program(p.parse, ascii_text) if p.groups and p.parse else None,
        tuple(range(1, p.keep_prefix + 1)),
        tuple(range(p.keep_prefix + 1, p.groups + 1)),
        p.verify,
        p.family,
        p.regex.encode(),
        _checker(p.family, p.verify),
        grouped,
        find.Match,
    )


_LATIN1: Final = re2.Options.Encoding.LATIN1
# An escape is a backslash after an even run of them (``\\‘`` is an escaped backslash and a quote, no escape of it).
_WIDE_ESCAPE: Final = re.compile(r"(?<!\\)((?:\\\\)*)\\x\{([0-9A-Fa-f]+)\}")
_ESCAPED_NON_ASCII: Final = re.compile(r"(?<!\\)(?:\\\\)*\\[^\x00-\x7f]")


def _ascii_program(regex: str) -> bytes | None:
    """``regex`` for RE2's Latin-1 mode, to run on text of ASCII characters only; None: keep UTF-8.

    On such text it matches exactly what ``regex`` matches in UTF-8 mode: a non-ASCII character of the
    pattern (a literal, an escape above ``\\x{7f}``, a range's end) becomes ``\\x{ff}``, a byte ASCII text
    never holds, so what could only match a non-ASCII character still matches nothing, and every ASCII
    character keeps its meaning (``\\s``, ``\\b``, ``.``, classes, case folding of ASCII letters). Why:
    in UTF-8 mode every class that excludes a few characters (``[^\\s'"]``) compiles to the UTF-8
    sequences of the rest of Unicode, which makes the group-reading programs larger and RE2's BitState
    slower on them (``token_value``'s parse: 511 -> 425 instructions, 5.6 -> 2.6 µs a call)."""
    if _ESCAPED_NON_ASCII.search(regex):  # ``\\ß``: an escape of a non-ASCII character, not rewritten
        return None
    regex = _WIDE_ESCAPE.sub(lambda m: m.group(0) if int(m.group(2), 16) < 0x80 else m.group(1) + r"\x{ff}", regex)
    return "".join(c if c < "\x80" else r"\x{ff}" for c in regex).encode()


_RULE_MEMORY: Final = 32 << 20
"""Bytes RE2 may use for one rule's programs (its DFAs' state caches take them as texts need states, not at compile
time). RE2's default, 8 MiB, gives a rule's unanchored search ~5 MiB of forward DFA and ~2.7 MiB of reverse DFA (the
one that finds where the match starts); the states of the rules with large key alternations
(``keyword_compound_key``: 1,292 instructions, each state a list of them) fill that within a few dozen different lines,
and RE2 then throws the cache away and builds the same states again for the next line: scanning the 257 bench lines
its trigger admits, one after another, 1,118 µs a scan with 8 MiB and 4.2 µs with 32 MiB (``authorization_header``
50 -> 3.6, ``id_dot_secret`` 105 -> 1.3). In ``scrub`` the rule mostly reads lines whose tokens earlier rules already
masked, fewer new states: there the gain is a few per cent (bench/README.md, bench_scrubber). The budget changes
which engine RE2 runs, never what it matches."""


def _program(regex: str, ascii_text: bool, *, capture: bool = True) -> Any:
    """The binding's compiled ``regex`` (UTF-8, or for ASCII text Latin-1 where it converts: :func:`_ascii_program`),
    with :data:`_RULE_MEMORY` for its DFAs."""
    options = re2.Options()
    options.never_capture = not capture
    options.max_mem = _RULE_MEMORY
    if ascii_text:
        latin = _ascii_program(regex)
        if latin is not None:
            options.encoding = _LATIN1
            try:
                return re2.compile(latin, options)._regexp
            except re2.error:
                options = re2.Options()
                options.never_capture = not capture
                options.max_mem = _RULE_MEMORY
    return re2.compile(regex.encode(), options)._regexp


_SET_MEMORY: Final = 64 << 20
"""Bytes RE2 may use for one set's DFA."""

_SET_RUNS: Final = 24
"""Triggers that repeat a class (:func:`errscope._patterns.repeats_a_class`) per set, in pattern order: one set of
every trigger made more DFA states than its cache holds, and RE2 built them again for every new text (1.1 ms a line of
every corpus set, on the first pass and every one after); ten sets of at most twelve and one of the rest: 0.1 ms on the
first pass, 27 µs after (bench/README.md, bench_scrubber). Twenty-four since: each set is one more binding call and
DFA pass over every text (12 sets were ~60 % of a corpus line's instructions); on the 11,531 ASCII lines of every corpus
set, the sets' steady count a line was 97k instructions with twelve a set and 58k with twenty-four (callgrind: no DFA
rebuilt per text), and the answers are the same (``test_the_split_trigger_sets_answer_as_each_trigger_alone_on_a_mebibyte``)."""


_NEVER: Final = r"\b\B"
"""A set entry that matches nothing (it keeps the other entries' numbers)."""


class _TriggerSets:
    """RE2 sets whose ``Match(data)`` lists the numbers of the entries that match anywhere in ``data``, in no order, as
    one set of all of them would: the entries without runs in one set, the others :data:`_SET_RUNS` a set."""

    __slots__ = ("_parts",)

    def __init__(self, parts: list[tuple[Any, tuple[int, ...]]]) -> None:
        self._parts = parts  # (the binding's own set, the numbers of its entries)

    def Match(self, data: bytes) -> list[int]:  # noqa: N802 (re2.Set's name)
        return [numbers[i] for found, numbers in self._parts for i in found.Match(data)]


def _pattern_set(ascii_text: bool = False, large: bool = False) -> _TriggerSets | None:
    """Every pattern's trigger in RE2 sets (:class:`_TriggerSets`): one DFA pass each says which patterns can match.

    The triggers, not the full patterns: a set of the 60 full patterns has too many states for
    RE2's DFA cache and falls back to the NFA (hundreds of µs per line; measured in
    ``bench_scrubber``), sets of literals and short shapes stay small DFAs.

    ``large``: the sets for texts above :data:`_LARGE` bytes, without the tabular pass's naming-line trigger (the
    pass's own scan for naming lines decides there, :func:`_apply_patterns`): that trigger's ``[^\n]*`` runs
    multiply the set's DFA states, ~70 µs more on a 64 KiB text whose DFA states the other scans evicted from the
    CPU caches (callgrind and bench_scrubber's order), where most large texts with newlines run the pass anyway.
    ``ascii_text``: for text of ASCII characters only (:func:`_ascii_program`); None when a trigger does not convert."""
    # then the structural URL pass, the pass over names in headers, columns and lines before (_tabular: its triggers,
    # then the hints that say which of its readers a text needs)
    tabular = [_NEVER if large and i == _TABULAR_NAMES else trigger for i, trigger in enumerate(_TABULAR_TRIGGERS)]
    triggers = [p.trigger_regex for p in PATTERNS] + [_URL_TRIGGER.decode(), *tabular, *_TABULAR_HINTS]
    programs = [_ascii_program(trigger) for trigger in triggers] if ascii_text else [t.encode() for t in triggers]
    if None in programs:
        return None
    repeating = [repeats_a_class(trigger) for trigger in triggers]
    runs = [i for i, repeats in enumerate(repeating) if repeats]
    groups = [[i for i, repeats in enumerate(repeating) if not repeats]]
    groups += [runs[start : start + _SET_RUNS] for start in range(0, len(runs), _SET_RUNS)]
    options = re2.Options()
    options.max_mem = _SET_MEMORY
    if ascii_text:
        options.encoding = _LATIN1
    parts = []
    for numbers in groups:
        found = re2.Set.SearchSet(options)
        for i in numbers:
            found.Add(programs[i])
        found.Compile()
        parts.append((found._set, tuple(numbers)))  # the binding's own set: a list of the indices that matched
    return _TriggerSets(parts)


# one-byte needles compared as a tuple: see _secret_shapes on ``bytes in bytes``
_T_OR_F: Final = (b"t", b"T", b"f", b"F")




# A key whose qualifier says what it holds is no credential, however random its value: a key named
# public (``public_key``, ``publishableKey``, ``pubkey``), and a token that is a position, not a
# permission: MCP's ``progressToken`` (spec, "Progress"), pagination's ``pageToken``/``nextPageToken``/
# ``continuation_token``. The identifier in front of the key word is checked: the window ends one byte
# into the match, where a camelCase noun match (``PublicKey``) starts at the ``c`` before ``Key`` and a
# key-word match at its first letter (Python only; the Collector cannot look behind a match and
# redacts these values too).
# ... and RFC 6455's ``Sec-WebSocket-Key``: a nonce of the opening handshake, not a key to anything
_NONCE: Final = frozenset({"websocket"})
# ... and a key that finds a record, not one that opens it: a cache key (``cache key: pip-<sha256>``), an idempotency
# key (IETF draft-ietf-httpapi-idempotency-key-header: a client-chosen id), a partition/sort/primary/foreign key, an
# object's key in a bucket, a deduplication key
_LOOKUP: Final = frozenset({"cache", "idempotency", "partition", "sort", "primary", "foreign", "object", "dedup", "deduplication", "lookup"})
_QUALIFIERS: Final = sorted(_PUBLIC | _POSITION | _NONCE | _LOOKUP, key=len, reverse=True)
_NOT_A_CREDENTIAL_BEFORE: Final = re.compile(rb"(?i)(?:" + "|".join(_QUALIFIERS).encode() + rb")[_.\- ]?[A-Za-z]?$")
_QUALIFIER_WINDOW: Final = len(_QUALIFIERS[0]) + 1  # bytes before the match the qualifier and its separator take
# The identifier of a session (MCP's ``Mcp-Session-Id`` header, spec "Session Management", the SSE
# transport's ``?session_id=``): an id of a conversation, never an authentication (the spec forbids
# using it as one), so a key-noun match ending in ``session`` and ``id`` keeps its value. A session
# *cookie* is a credential and goes by the cookie rule.
_SESSION_ID_KEY: Final = re.compile(rb"(?i)[A-Za-z0-9_.\-]?session[_.\-]?id\\*[\"']?[ \t]*[:=]")
# What an Authorization scheme or ``Bearer`` is followed by that is no credential: an environment
# variable's or a placeholder's name in capitals (``Bearer YOUR_API_KEY``, ``Bearer $TOKEN``
# without the ``$``), and a challenge's auth-param name (``WWW-Authenticate: Bearer
# resource_metadata="..."``, RFC 9728 section 5.1).
_HEADER_NOT_A_CREDENTIAL: Final = re.compile(rb"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z_]*=")
# An unknown provider's token is random base62; an object's id is lowercase hex under the object's
# name (``resp_<48 hex>``, ``batch_<32 hex>``, ``thread_<hex>``: one word of 4+ letters) and a digest
# names its hash algorithm (``sha256-<base64url>``). Vendors' hex tokens carry an abbreviation or a
# version in the prefix and still go (``sbp_<hex>``, ``fc-<hex>``, ``e2b_<hex>``, ``dop_v1_<hex>``):
# a leaked token costs more than an id of a 3-letter object masked.
# A SHA-256 or SHA-512 digest in hex after a tool's name and ``-`` is a content address (``pip-<64 hex>``, a CI
# cache key: ``Linux-pip-<64 hex>``, ``node-modules-<64 hex>``); vendors' hex tokens are 32 or 40 digits, or use ``_`` (``sntryu_<64 hex>``, ``glptt-<40 hex>``).
# A fingerprint of truncated hashes (JA4's ``t13d1516h2_<12 hex>_<12 hex>``: a lower-case prefix and two or more groups
# of at most 12 hex digits) names a client, where a vendor's hex token is one run of 32 or more.
_ID_OR_DIGEST: Final = re.compile(
    rb"[a-z]{4,}[_\-][0-9a-f]+|(?i:sha[0-9]*|md5|blake[0-9a-z]*)-.*|[A-Za-z][A-Za-z0-9_\-]*-(?:[0-9a-f]{64}){1,2}"
    rb"|[a-z0-9]{2,16}(?:_[0-9a-f]{4,12}){2,3}"
)
# ``pk`` is the public half's prefix where vendors pair keys (Stripe and Clerk ``pk_live_``/``sk_live_``, Mapbox
# ``pk.``/``sk.``, Paystack): a publishable key is meant for browsers and apps, not a credential.
_PUBLISHABLE: Final = re.compile(rb"pk[_.\-]")
# Keys vendors issue for browser code, public by design: PostHog's project key (``phc_``), Datadog's RUM/browser-logs
# client token (``pub`` and 32 hex digits), Stripe's and Clerk's publishable keys (``pk_live_``/``pk_test_``).
_PUBLIC_CLIENT_KEY: Final = re.compile(rb"(?:phc_|pk_(?:live|test)_)[A-Za-z0-9]+|pub[0-9a-f]{32}")
# ``user@host:path`` is an SCP-style address (``git@github.com:acme/app.git`` in ``git remote -v``), not an e-mail.
_SCP_PATH_AFTER: Final = re.compile(rb":[A-Za-z0-9_.~\-]*/")
_HEX_ID: Final = re.compile(rb"[0-9a-fA-F\-]+")


# What a match must also satisfy to be masked, by the rule's family and ``verify`` (SecretPattern), chosen once per
# rule (:func:`_checker`): a match pays for its own rule's checks only, not for the comparisons that pick them.
# A Kerberos principal (``svc@EXAMPLE.COM``, ``alice@CORP.EXAMPLE.ORG``): the realm is written in capitals by
# convention (RFC 4120 section 6.1), the name in lower case; a person's address is not written that way.
_KERBEROS_PRINCIPAL: Final = re.compile(rb"[a-z0-9._%+\-/]+@[A-Z0-9\-]+(?:\.[A-Z0-9\-]+)*\.[A-Z]{2,}")


# ``user@host`` after a remote-login command and its options is a login destination (``ssh -p 2222 deploy@db1``,
# ``plink -ssh -P 22 ops@host``, ``sshpass -e ssh u@h``), not an e-mail; Python only (RE2 cannot look back). Each
# word is read once (an atomic group): ``-o ssh`` is an option and its argument or an option and the word ``ssh``, and
# trying both for each pair was exponential in the pairs.
_LOGIN_COMMAND_BEFORE: Final = re.compile(
    rb"\b(?:ssh|sshpass|autossh|mosh|plink|ssh-copy-id|sftp)(?>[ \t]+(?:-[A-Za-z0-9\-]+(?:[ \t]+[^\s\-@][^\s@]*)?|ssh))*[ \t]*$"
)

_LOGIN_WINDOW: Final = 200
"""Bytes before a ``user@host`` match the login-command and IRC-prefix checks read."""

# An IRC message's prefix ``:nick!user@host`` names a client's host, not an e-mail.
_IRC_PREFIX_BEFORE: Final = re.compile(rb"(?:^|[\s:])[A-Za-z0-9_\-\[\]\\`^{}|]+!$")


# A SIP URI's user part of digits is an extension or a number on a PBX (``sip:1001@pbx.example.net``, RFC 3261), not
# a mailbox; a named SIP address (``sip:alice@..``) is one and goes.
_SIP_BEFORE: Final = (b"sip:", b"sips:", b"<sip:", b"<sips:")
_EXTENSION: Final = re.compile(rb"\+?[0-9*#]{2,15}@")


def _check_pii(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    if _SCP_PATH_AFTER.match(data, secret_end) or _KERBEROS_PRINCIPAL.fullmatch(secret):
        return False
    secret_start = secret_end - len(secret)
    if data[max(0, secret_start - 6) : secret_start].endswith(_SIP_BEFORE) and _EXTENSION.match(secret):
        return False
    # the line before the match, at most _LOGIN_WINDOW bytes of it: a long line of many addresses reads each window
    # once (from the text's start, each match re-read all before it: quadratic)
    window = max(0, start - _LOGIN_WINDOW)
    line = max(window, data.rfind(b"\n", window, start) + 1)
    if _IRC_PREFIX_BEFORE.search(data, line, start + 1):
        return False
    before = data[line:start]
    return not (b"ssh" in before or b"plink" in before or b"mosh" in before) or not _LOGIN_COMMAND_BEFORE.search(data, line, start)


# A variable the build inlines into browser code (Next.js ``NEXT_PUBLIC_``, Vite's and Expo's ``VITE_PUBLIC_``,
# ``EXPO_PUBLIC_``, SvelteKit's ``PUBLIC_``): its value ships to every visitor, public by design.
_PUBLIC_VARIABLE_BEFORE: Final = re.compile(rb"(?:^|[^A-Za-z0-9_])(?:[A-Z0-9]+_)*PUBLIC_[A-Z0-9_]*[\"']?[ \t]*[=:][ \t]*[\"']?$")


def _check_uri_random(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    return looks_random(secret) and not _PUBLIC_VARIABLE_BEFORE.search(data, max(0, start - 64), start)


# The key a bare value is assigned to, right before it (``kms_key_id=``, ``"request_id": "``).
_ASSIGNED_TO: Final = re.compile(rb"([A-Za-z0-9_.\-]+)[\"']?[ \t]*[=:][ \t]*[\"']?$")


# An object's reference: a capitals prefix whose last word names the kind of object, then a UUID's 32 hex digits
# (ipywidgets' ``IPY_MODEL_<uuid4().hex>`` in a notebook's widget state, ``..._ID_<hex>``, ``..._REF_<hex>``).
_OBJECT_REFERENCE: Final = re.compile(rb"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:MODEL|ID|REF|OBJ|OBJECT|NODE|UUID|GUID)_[0-9a-f]{32}")


def _check_provider_random(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    # an unknown vendor's shape under a key that names an id (``kms_key_id=mrk-<hex>``) is that id
    key = _ASSIGNED_TO.search(data, max(0, start - 64), start)
    if key is not None and _KEY_TOKENS.findall(key.group(1).decode("ascii", "replace"))[-1:] in (["id"], ["Id"], ["ID"]):
        return False
    return (
        looks_random(secret)
        and not _ID_OR_DIGEST.fullmatch(secret)
        and not (secret[-33:-32] == b"_" and _OBJECT_REFERENCE.fullmatch(secret))
        and not _PUBLISHABLE.match(secret)
        and not (secret[:1] == b"p" and _PUBLIC_CLIENT_KEY.fullmatch(secret))
    )


# An exception's name is no key (``KeyError: 'ord_1a2b..'`` echoes the missing dict key; the noun ``Key`` is its
# first word): Python only, RE2 cannot look past the noun's word and back.
_EXCEPTION_NAME: Final = re.compile(rb"[a-z](?:Error|Exception|Warning)\b")


# A key whose last token says what it holds is about a secret, not the secret (Python only: RE2 cannot look back at
# the key from its value): its id (``KeyId``, ``api_key_id``, ``TokenId``), its name or where it is kept
# (``secret_name``, ``secret_header``, ``token_path``, ``key_arn``, ``key_alias``), a property (``token_type``,
# ``tokenExpiresAt``, ``pwdChangedTime``, ``password_encryption``, ``token_ttl``, ``key_version``). ``secret_id``
# stays a credential (Vault AppRole's SecretID).
_ABOUT_THE_SECRET: Final = frozenset({
    "id", "ids", "name", "names", "header", "ref", "reference", "arn", "alias", "path", "file", "type", "kind", "label",
    "hint", "policy", "length", "count", "ttl", "at", "time", "expiry", "expires", "expiration", "encryption", "format",
    "algorithm", "alg", "url", "uri", "endpoint", "location", "source", "prefix", "suffix", "fingerprint",
    "rotation", "days", "age", "status", "scope", "scopes", "size", "bits",
})
_KEY_BEFORE_VALUE: Final = re.compile(rb"([A-Za-z0-9_.\-]+)[^A-Za-z0-9_.\-]*$")


def _about_the_secret(data: bytes, start: int, secret_start: int) -> bool:
    """The key matched in ``data[start:secret_start]`` ends in a token of :data:`_ABOUT_THE_SECRET`."""
    found = _KEY_BEFORE_VALUE.search(data, start, secret_start)
    if found is None:
        return False
    tokens = [t.lower() for t in _KEY_TOKENS.findall(found.group(1).decode("ascii", "replace"))]
    while len(tokens) > 1 and _VERSION_TOKEN.fullmatch(tokens[-1]):
        tokens.pop()
    if len(tokens) < 2 or tokens[-1] not in _ABOUT_THE_SECRET:
        return False
    return not (tokens[-1] == "id" and tokens[-2] in ("secret", "secrets"))


def _check_keyword_random(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    if _NOT_A_CREDENTIAL_BEFORE.search(data, max(0, start - _QUALIFIER_WINDOW), start + 1) or _SESSION_ID_KEY.match(data, start):
        return False
    secret_start = secret_end - len(secret)
    if _EXCEPTION_NAME.search(data, start, secret_start) or _about_the_secret(data, start, secret_start):
        return False
    if data[secret_start - 1 : secret_start] == b">" and _XMLDSIG_VALUE.search(data, start, secret_start):
        return False
    if _COOKIE_KEY.search(data, start, secret_start):  # a cookie header's value: its values judged, not its names
        return _check_cookies(data, start, secret, secret_end)
    named = _PAIR_NAME.match(data, start, secret_start)  # a (name, value) object naming a session cookie (HAR)
    if named is not None and _session_value(named.group(1), secret):
        return True
    return (looks_random(secret) and not _ID_OR_DIGEST.fullmatch(secret) and not _NAME_OF_HEADER.fullmatch(secret)
            and not _WORDS_NAME.fullmatch(secret))


# XML Signature's value elements (W3C xmldsig-core: ``<ds:SignatureValue>``, ``<ds:DigestValue>``): a public-key
# signature and a digest of the signed content, which every verifier reads (SAML metadata, WS-Security headers).
_XMLDSIG_VALUE: Final = re.compile(rb"(?:SignatureValue|DigestValue)>$")
_COOKIE_KEY: Final = re.compile(rb"(?i:cookie)[\"']?[ \t]*[:=][ \t]*[\"']?$")
# The name member of a (name, value) object at a match's start (``"name": "session"``): the name the value is judged by.
_PAIR_NAME: Final = re.compile(rb"(?i:name|key)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([^\"'\\\s,]+)")


# Lower-case words joined by ``_`` or ``-``, a number after them: a name (a cookie's ``consent_given_2024``, a flag's),
# not a random value (one mixes cases or digits all through).
_WORDS_NAME: Final = re.compile(rb"[a-z]{2,}(?:[_\-][a-z]{2,})+(?:[_\-]?[0-9]{1,8})?")


def _check_random(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    return looks_random(secret) and not _WORDS_NAME.fullmatch(secret)


def _check_not_a_name(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    return not _WORDS_NAME.fullmatch(secret)


# An auth-param of a list (``Hawk id="..", mac="***"``, ``Digest .., response="<redacted>"``) whose value is masked: the
# printer masked the list's credential, and what is left (an id, a nonce, a realm) is none.
_MASKED_AUTH_PARAM: Final = re.compile(rb"(?:^|[ \t,])[A-Za-z0-9_\-]+=\"((?:[*xX#.]{3,}|<[^>\"]*>|\[[^\]\"]*\]|\(?(?i:redacted|hidden|masked))\)?)\"")


# RFC 7235 section 2.1: ``credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]``. A run right after the header's
# name that is a signing scheme's name (capitals and digits joined by ``-``: ``AWS4-HMAC-SHA256``, ``GOOG4-RSA-SHA256``,
# ``TC3-HMAC-SHA256``) followed by a space and an auth-param (``Credential=*****/..``, as Terraform's trace prints a
# masked SigV4 header) is the scheme, not a scheme-less token: the params are judged by the rule that reads them. A
# random run before a log line's next field (``authorization=<token> method=GET``) and a credential after a scheme
# (``SharedKey <account>:<sig> x-ms-request-id=..``) are still judged as tokens. Python only: RE2 cannot look past the run.
_AUTH_PARAM_AFTER: Final = re.compile(rb"[ \t]+[A-Za-z0-9_\-]+=")
_AUTH_NAME_ONLY: Final = re.compile(rb"(?i:(?:proxy[_\-]?)?authorization)[^A-Za-z0-9]*")
_SIGNING_SCHEME: Final = re.compile(rb"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")


def _check_header(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    if b'="' in secret and _MASKED_AUTH_PARAM.search(secret):
        return False
    if (_SIGNING_SCHEME.fullmatch(secret) and _AUTH_PARAM_AFTER.match(data, secret_end)
            and _AUTH_NAME_ONLY.fullmatch(data, start, secret_end - len(secret))):
        return False
    return not _HEADER_NOT_A_CREDENTIAL.fullmatch(secret)


# A cookie string's ``name=value`` pairs and attributes (``; Path=/``): only the values are judged, not the names
# (``CloudFront-Key-Pair-Id`` is a name of mixed case, no random value), and a value of dotted numbers is a version or
# an analytics client id (``_ga=GA1.2.<n>.<n>``), not a session.
_COOKIE_PAIR: Final = re.compile(rb"([^=;,\s]+)=([^;,\s]*)")
_DOTTED_NUMBERS: Final = re.compile(rb"[A-Za-z]{0,3}[0-9]{0,3}(?:\.[0-9]+)+")
# A session cookie's name (``JSESSIONID``, ``PHPSESSID``, ``connect.sid``, ``session``, ``__Host-sid``,
# ``_app_session``, ``.AspNetCore.Session``; RFC 6265 section 8.4: the cookie is the session's bearer credential). Its
# value goes in a password's shape too, not only a random one: what a server issues as a session id is the
# credential whatever it looks like. An id or digest shape (a UUID, hex digits and dashes) is judged as before.
_SESSION_NAME: Final = re.compile(rb"(?i).*(?:session(?:[_\-]?id)?|sess(?:ion)?id)|(?:.*[^a-z])?sid")


def _session_value(name: bytes, value: bytes) -> bool:
    """``value`` is a credential's shape under the session cookie's ``name`` (:data:`_SESSION_NAME`)."""
    return (bool(_SESSION_NAME.fullmatch(name)) and looks_like_password(value) and not _ID_OR_DIGEST.fullmatch(value)
            and not _HEX_ID.fullmatch(value))


def _check_cookies(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    pairs = _COOKIE_PAIR.findall(secret)
    if not pairs:
        return _check_random(data, start, secret, secret_end)
    return any((_check_random(data, start, v, secret_end) and not _DOTTED_NUMBERS.fullmatch(v)) or _session_value(n, v)
               for n, v in pairs)


def _check_password(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    return looks_like_password(secret)


# ``pass`` the verb, not the short word for a password: ``pass <value> as`` and then what it is passed as, a noun phrase
# that names no credential (``pass token_v2 as the second argument``). Python only: RE2 cannot look past the value.
_PASS_VERB_BEFORE: Final = re.compile(rb"(?:^|[^A-Za-z0-9_\-])(?i:pass)[ \t]+['\"`]?$")
_PASSED_AS_AFTER: Final = re.compile(rb"['\"`]?[ \t]+(?i:as)[ \t]+((?:[A-Za-z\-]+[ \t]*){1,4})")
_CREDENTIAL_WORD: Final = re.compile(rb"(?i:pass|pw|psk|pin|secret|token|cred|key)")


def _passed_as(data: bytes, start: int, secret_start: int, secret_end: int) -> bool:
    """``data`` has ``pass`` right before the value and ``as`` and a noun phrase without a credential's word after it."""
    if not _PASS_VERB_BEFORE.search(data, max(start, secret_start - 16), secret_start):
        return False
    after = _PASSED_AS_AFTER.match(data, secret_end)
    return after is not None and not _CREDENTIAL_WORD.search(after.group(1))


def _check_credential(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    if _passed_as(data, start, secret_end - len(secret), secret_end):
        return False
    return looks_like_password(secret) or looks_random(secret)


# Four groups of four lower-case letters: an app password (Apple's app-specific ones, Google's; ``_patterns._APP_PASSWORD``).
_APP_PASSWORD_SHAPE: Final = re.compile(rb"[a-z]{4}(?:-[a-z]{4}){3}")


# The name in a match of a rule that names its value by an element or attribute (``<key>NAME</key>``, ``name="NAME"``).
_ELEMENT_NAME: Final = re.compile(rb"(?:<(?i:key)>|\b(?:[Nn]ame|key)=[\"'])([^<\"'\r\n]{1,128})")


def _check_named(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    """``"credential"``, and the name the match holds is not a public key's (:func:`names_public_key`)."""
    name = _ELEMENT_NAME.search(data, start, secret_end - len(secret))
    if name is not None:
        words = [t.lower() for t in _KEY_TOKENS.findall(name.group(1).decode("utf-8", "replace"))]
        if names_public_key(words):
            return False
    return _check_credential(data, start, secret, secret_end)


def _check_short_option(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    """The value of an ambiguous short option (``-p``): a password's, a random token's or an app password's shape."""
    return looks_like_password(secret) or looks_random(secret) or _APP_PASSWORD_SHAPE.fullmatch(secret) is not None


# An HTTP header's name is capitalised words joined by ``-`` (``X-Hub-Signature-256``): a name, not a value.
_NAME_OF_HEADER: Final = re.compile(rb"(?:[A-Z][a-z]*|[0-9]{1,4})(?:-(?:[A-Z][a-z]+|[0-9]{1,4}))+")
_DOTTED_NAME: Final = re.compile(rb"[a-z0-9\-]+(?:\.[a-z0-9\-]+)+")
"""A host, a module or a version in lower case (``db1.prod.internal``, ``app.settings``): no credential unnamed."""


def _check_unnamed(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    if _HEX_ID.fullmatch(secret) or _DOTTED_NAME.fullmatch(secret):
        return False
    return looks_random(secret) or (secret != secret.lower() and secret != secret.upper() and looks_like_password(secret))


# A list's items: what stands between them (separators, quotes, line breaks and indentation).
_ITEM_SPLIT: Final = re.compile(rb"[\s,;'\"]+")


def _check_items(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
    return any(item and _check_unnamed(data, start, item, secret_end) for item in _ITEM_SPLIT.split(secret))


_BY_VERIFY: Final = {"password": _check_password, "credential": _check_credential, "unnamed": _check_unnamed,
                     "not_a_name": _check_not_a_name, "items": _check_items, "cookies": _check_cookies,
                     "short_option": _check_short_option, "named": _check_named}


# The working directory, not a password: POSIX's ``PWD``/``OLDPWD`` variables (in capitals) hold an absolute path, and
# sudo's log line, ``env`` and ``/proc/<pid>/environ`` dumps print them (``TTY=pts/0 ; PWD=/srv ; USER=root``); ODBC's
# ``PWD=`` is a password, whose value does not start with ``/`` there (Python only: the Collector masks the path).
_WORKING_DIRECTORY: Final = re.compile(rb"(?<![A-Za-z0-9_])(?:OLD)?PWD[ \t]*=[ \t]*$")


def _keyword_check(then: Any) -> Any:
    """A key-word rule's check: ``token`` qualified as a position (``pageToken``) is none, else ``then``."""

    def check(data: bytes, start: int, secret: bytes, secret_end: int) -> bool:
        # a key-word match starts at the word: only ``token`` can be qualified away
        if data[start : start + 5].lower() == b"token":
            return not _NOT_A_CREDENTIAL_BEFORE.search(data, max(0, start - _QUALIFIER_WINDOW), start + 1)
        at = secret_end - len(secret)
        if secret[:1] == b"/" and _WORKING_DIRECTORY.search(data, max(0, at - 12), at):
            return False
        return then is None or then(data, start, secret, secret_end)

    return check


def _checker(family: str, verify: str) -> Any:
    """The check of a rule's matches, ``(data, start, secret, secret_end) -> keep``; None: keep every match."""
    if family == "pii":
        return _check_pii
    if verify == "cookies":
        return _check_cookies
    if verify == "random":
        return {"provider": _check_provider_random, "keyword": _check_keyword_random, "uri": _check_uri_random}.get(family, _check_random)
    if family == "header":
        return _check_header
    then = _BY_VERIFY.get(verify)
    return _keyword_check(then) if family == "keyword" else then


_RULES: Final = tuple(_rule(p) for p in PATTERNS)
_ASCII_RULES: Final = tuple(_rule(p, ascii_text=True) for p in PATTERNS)
"""The same rules for text of ASCII characters only (most texts), compiled as Latin-1: smaller programs."""


# What stands where a value goes but is none (Python only; the Collector redacts these too):
# a YAML tag (``password: !vault |``, ``!Ref Param``, ``!env_var NAME``: ``!`` and a name, then
# the tagged node), a secret manager or vault reference (``vault:secret/data/x#key``,
# ``ref+vault://...``, ``op://vault/item/field``, a Secrets Manager/SSM ARN, a GCP secret path),
# a constructor call wrapping the value (``SecretStr('**********')``) and a size (``password:
# 16 bytes`` from ``kubectl describe secret``).
# And what debug printers put where a value goes: a wrapper type around a masked value (Rust's secrecy
# ``Secret([REDACTED ..])``, ``SecretBox<str>([REDACTED])``: a name, type arguments, and ``(`` opening a mask),
# a machine word in hex (gdb's ``password = 0x0``, a pointer or a flag: 16 hex digits at most, where a key in hex
# has 32 or more), and the next field of a Go ``%+v`` dump whose field was empty (``&{Password: Host:db}``).
_YAML_TAG: Final = re.compile(rb"!!?[A-Za-z_][A-Za-z0-9_!]*")  # ``!!``: the core schema's own tags (``!!null``)
# A tag and the name it takes, quoted (zigbee2mqtt's ``password: '!secret mqtt_password'``, ESPHome's and Home
# Assistant's ``'!secret x'``, ``"!env_var NAME"``): a reference resolved when the file is loaded, not a value.
_YAML_TAG_REFERENCE: Final = re.compile(rb"!!?[A-Za-z_]{3,} [A-Za-z_][A-Za-z0-9_.\-/]*")
_NOT_A_VALUE: Final = re.compile(
    rb"(?i:vault:[A-Za-z0-9_\-]+/|ref\+[a-z0-9]+://|op://|(?:awssm|gcpsm|azkv|sops|ssm|secretsmanager)://"
    rb"|arn:aws[a-z\-]*:(?:secretsmanager|ssm|kms):|projects/[^/\s]+/secrets/)[^\s'\"]*"
    # Vault's audit log writes every secret as its keyed HMAC (``"client_token": "hmac-sha256:<hex>"``): the audit
    # device's own mask, from which the value cannot be recovered without Vault's salt
    rb"|hmac-sha[0-9]+:[0-9a-fA-F]{16,}"
    # a Vault KV path (``secret=secret/data/prod/db:password`` in Ansible's ``hashi_vault`` lookup, ``kv/app/db``)
    rb"|(?:secret|kv)/(?:data/)?[A-Za-z0-9_.\-/]+(?::[A-Za-z0-9_.\-]+)?"
    # a file named by a relative or home path (``--from-file=password=./pw.txt``): the value is in the file
    rb"|(?:\.\.?|~)/[^\s'\"]*"
    # OpenSSL's pass-phrase sources (``-pass env:VAR``, ``file:/path``, ``fd:3``): where the value is read from
    rb"|(?:env|file|fd):[^\s'\"]+"
    # ... or by an absolute path of lower-case names, after a credential's id (systemd's ``LoadCredential=id:/path``,
    # Docker's ``/run/secrets/db``)
    rb"|(?:[A-Za-z0-9_.\-]+:)?/[a-z0-9_.\-]+(?:/[a-z0-9_.\-]+)+"
    rb"|[A-Za-z_][A-Za-z0-9_.]*\("
    # code that reads the value from somewhere (``process.env.API_KEY``, ``var.db_password``,
    # ``ProcessInfo.processInfo.environment[``): a dotted path of identifiers without digits
    rb"|[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+\[?"
    # ... or a mapping of them by name (Julia's and Ruby's ``ENV["HF_TOKEN"]``, ``environ[``): an identifier's subscript
    rb"|[A-Za-z_$][A-Za-z_$]*\["
)
_BETWEEN_ARGUMENTS: Final = re.compile(rb",[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*[=:]")
# A constant's or a metavariable's name in capitals stands for the value (``"YOUR_API_KEY"``, ``--token TOKEN``).
_CONSTANT_NAME: Final = re.compile(rb"[A-Z]+(?:_[A-Z]+)+|[A-Z]{1,10}")
_WRAPPED_MASK: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_:]*(?:<[A-Za-z0-9_:, &']*>)?\([\[*<].*")
_GENERIC_TYPE: Final = re.compile(rb"[A-Z][A-Za-z0-9_:]*<[A-Za-z0-9_:, &']*")
_MACHINE_WORD: Final = re.compile(rb"0x[0-9a-fA-F]{1,16}")
_GO_FIELD: Final = re.compile(rb"[A-Z][A-Za-z0-9]*:")
_GO_EMPTY_FIELD_BEFORE: Final = re.compile(rb"[{ ][A-Z][A-Za-z0-9]*: $")
_SIZE_AFTER: Final = re.compile(rb"[ \t]+(?i:bytes?|B|KiB|chars|characters)\b")
# A secret's NAME where its value would go (``rotated secret: db-password``, ``secret_name: db-creds``,
# ``token: api-token``): lower-case words joined by ``-``/``_``, one of them a credential noun. Words of letters only:
# Mailgun's ``key-<hex>`` is a key.
_CREDENTIAL_NOUN: Final = rb"(?:password|passwd|secret|secrets|token|tokens|creds|credentials?|key|keys|apikey|pass|auth|pwd|jwt)"
_SECRET_NAME: Final = re.compile(
    rb"(?:[a-z]{2,}[\-_])+" + _CREDENTIAL_NOUN + rb"(?:[\-_][a-z]{2,})*|" + _CREDENTIAL_NOUN + rb"(?:[\-_][a-z]{2,})+"
)
# An OpenPGP long key id as GnuPG prints it (16 upper-case hex digits: ``user.signingkey=
# C7E933C6D9C9EFCA``): public, it names the key.
_PGP_KEY_ID: Final = re.compile(rb"(?=[0-9A-F]*[A-F])[0-9A-F]{16}")
# An OpenPGP v4 fingerprint as GnuPG prints it (40 upper-case hex digits) under a name that says GPG or PGP (the
# official images' ``ENV GPG_KEY=<fingerprint>``, ``gpg.fingerprint=``): public, it names the key.
_PGP_FINGERPRINT: Final = re.compile(rb"[0-9A-F]{40}")
_PGP_NAMED: Final = re.compile(rb"(?i:gpg|pgp)[A-Za-z0-9_.\-]*[\"']?[ \t]*[:=][ \t]*[\"']?$")
_NAME_BYTES: Final = b"abcdefghijklmnopqrstuvwxyz-_"  # every byte :data:`_SECRET_NAME` matches
# A word of prose where a value goes, with more prose after it (``Secret: managed by External Secrets``,
# ``Passwort: siehe Tresor``): lower-case letters only, then a space and a word. No secret in any set is such a word.
_PROSE_WORD: Final = re.compile(rb"[a-z]{2,14}")
_PROSE_AFTER: Final = re.compile(rb"[ \t]+[A-Za-z(]")
_ELLIPSIS_AFTER: Final = re.compile(rb"\.{3}|\xe2\x80\xa6")
# The words documentation and defaults put where a password goes (Spring's ``${DB_PASSWORD:changeme}``, a sample
# config's ``password: example``): a placeholder, not a value.
_PLACEHOLDER_WORD: Final = re.compile(rb"(?i:change[_\-]?me|changeit|example|dummy|placeholder|your[_\-]?(?:password|token|secret|key)|redacted|secret|password|todo|tbd|none|null|empty|unset)")
# A word followed by `` = `` is a declaration's type (``clientSecret: String = "..."``), and one or two
# characters right before a quote a string's prefix (Objective-C ``@"..."``, ``b'..'``, ``r"..."``): the
# value, if any, is the quoted string after them (read when it was scrubbed already: ``"[REDACTED]"``).
_ASSIGNED_AFTER: Final = re.compile(rb"[ \t]+=[ \t]")
# The string and byte types of Kotlin, Scala, Swift, TypeScript, Python annotations, Rust, Haskell, Dhall, Go
# (a declaration without a value: ``clientSecret: String``), with an optional marker and the closers after it.
_DECLARED_TYPE: Final = re.compile(
    rb"(?:String|Text|string|str|Str|ByteArray|CharArray|Bytes|bytes|SecureString|SecretStr|Boolean|bool)[?!]?[),;:]*"
)


def _pgp_named(data: bytes, secret_start: int) -> bool:
    """The name right before ``data[secret_start:]`` says GPG or PGP (``GPG_KEY=``, ``"pgp_fingerprint": "``)."""
    return _PGP_NAMED.search(data, max(0, secret_start - 40), secret_start) is not None


# A tag and a small number (a mail signature's ``v=1;``, ARC's ``i=1;``): a parameter, not a credential.
_TAG_NUMBER: Final = re.compile(rb"[a-z]{1,2}=[0-9]{1,3}")
# A DER-encoded ECDSA signature in base64 (a SEQUENCE of two INTEGERs: ``MEUCI..``, ``MEQCI..``, P-384's ``MGUCM..``):
# made with a private key and checked with the public one (npm's registry signatures, Sigstore), so it proves
# nothing to whoever reads it.
_ECDSA_SIGNATURE: Final = re.compile(rb"M(?:E[QUY]CI|G[QUY]CM)[A-Za-z0-9+/]{60,}={0,2}")


def _not_a_value(data: bytes, secret: bytes, secret_end: int) -> bool:
    first = secret[:1]
    if len(secret) <= 6 and 61 in secret and _TAG_NUMBER.fullmatch(secret):
        return True
    if first == b"M" and len(secret) >= 64 and _ECDSA_SIGNATURE.fullmatch(secret):
        return True
    if first in _T_OR_F and secret.lower() in (b"true", b"false"):  # a setting's flag under a password-named key (``lock_passwd: false``)
        return True
    if first == b"!":
        if data[secret_end : secret_end + 1] in (b"'", b'"') and _YAML_TAG_REFERENCE.fullmatch(secret):
            return True
        return _YAML_TAG.fullmatch(secret) is not None and data[secret_end : secret_end + 1] in (b" ", b"\n", b"\r", b"")
    if first.isdigit() and secret.isdigit():
        return _SIZE_AFTER.match(data, secret_end) is not None
    if first == b"0" and _MACHINE_WORD.fullmatch(secret):
        return True
    # (in a usage line, also before the ``]`` closing an optional argument: ``[--token TOKEN]``, ``-p N``)
    if secret.isupper() and _CONSTANT_NAME.fullmatch(secret.rstrip(b"]")):
        return True
    # quoted-printable's ``=3D`` (an encoded ``=``) before a placeholder or a mask (``api_key=3D<set in dashboard>``)
    if first == b"3" and secret[1:2] in (b"D", b"d") and secret[2:3] in (b"<", b"$", b"{", b"*", b"[") and data[secret_end - len(secret) - 1 : secret_end - len(secret)] == b"=":
        return True
    # the rest of a separator (Make's ``TOKEN := [REDACTED]``, scrubbed again) and a string literal's closer where a
    # value goes (``password = '''\n'''``)
    if secret in (b"=", b":") or (first in (b'"', b"'", b"`") and not secret.strip(b"\"'`")):
        return True
    # a call's or a list's closer where a value goes (``password <- readline(prompt = "Password: ")``: the quote
    # after ``Password:`` opens nothing)
    if len(secret) <= 2 and not secret.strip(b")]};,"):
        return True
    # the code between two string literals, where a label's closing quote was read as a value's opening one
    # (``description='Password:', placeholder='..'``: ``, placeholder=``)
    if first == b"," and _BETWEEN_ARGUMENTS.fullmatch(secret):
        return True
    # a declaration's type where a value goes (``private val clientSecret: String``, ``password : Text``,
    # ``fun verifyToken(token: String): Boolean``): a type of the languages' standard libraries after ``:``
    if first.isalpha() and len(secret) <= 16 and _DECLARED_TYPE.fullmatch(secret):
        secret_start = secret_end - len(secret)
        if data[max(0, secret_start - 3) : secret_start].rstrip(b" \t")[-1:] == b":":
            return True
    if len(secret) <= 16 and _LABEL.fullmatch(secret):  # a translation of the key's name (``"password": "Passwort"``)
        return True
    # each regex only where a necessary condition holds, checked in C (these ran on every match: ~2k instructions a
    # line of the standard library's matcher, callgrind): a secret's name is ``[a-z_-]`` from a letter on, with a ``-``
    # or ``_`` (the cheaper tests first: ``translate`` builds a table each call), a browser key starts with ``p``, a
    # PGP key id is 16 characters, a word of prose 2-14 letters
    if (
        (first.islower() and (45 in secret or 95 in secret) and not secret.translate(None, _NAME_BYTES) and _SECRET_NAME.fullmatch(secret))
        or (first == b"p" and _PUBLIC_CLIENT_KEY.fullmatch(secret))
        or (len(secret) == 16 and _PGP_KEY_ID.fullmatch(secret))
        or (len(secret) == 40 and _PGP_FINGERPRINT.fullmatch(secret) and _pgp_named(data, secret_end - 40))
    ):
        return True
    if 2 <= len(secret) <= 14 and _PROSE_WORD.fullmatch(secret) and _PROSE_AFTER.match(data, secret_end):
        return True
    if len(secret) <= 8 and _ELLIPSIS_AFTER.match(data, secret_end):  # the first characters of a value cut for display
        return True
    if len(secret) <= 12 and _PLACEHOLDER_WORD.fullmatch(secret):  # ``${DB_PASSWORD:changeme}``
        return True
    after = data[secret_end : secret_end + 1]
    if (after in (b'"', b"'") and len(secret) <= 2) or (after in (b" ", b"\t") and _ASSIGNED_AFTER.match(data, secret_end)):
        return True
    if _PAREN in secret and _WRAPPED_MASK.fullmatch(secret):
        return True
    if after == b">" and _LESS in secret and _GENERIC_TYPE.fullmatch(secret):
        return True
    colon = _COLON in secret
    if colon and _GO_FIELD.match(secret):
        secret_start = secret_end - len(secret)
        if _GO_EMPTY_FIELD_BEFORE.search(data, max(0, secret_start - 40), secret_start):
            return True
    # only a reference holds ``:``, ``/`` or ``.``, only a call ends in ``(``: most values skip the regex
    return (
        secret[-1:] in (b"(", b"[") or colon or _SLASH in secret or _DOT in secret
    ) and _NOT_A_VALUE.fullmatch(secret) is not None




# The word for a password or a token in the languages the rules read: under a password key it is a UI label or a
# translation (i18n files, resource bundles: ``login.password=Passwort``, ``"password": "Mot de passe"``), not a value.
_LABEL: Final = re.compile(
    "(?i:password|passwort|kennwort|mot de passe|contraseña|contrasena|senha|wachtwoord|hasło|haslo|heslo|jelszó"
    "|parola|lösenord|passord|salasana|şifre|sifre|mật khẩu|clave|token|jeton|пароль|токен|密码|密碼|口令|パスワード"
    "|비밀번호|令牌|トークン|토큰)".encode()
)


@functools.lru_cache(maxsize=32)
def _groups(regex: bytes) -> Any:
    """The whole pattern with its groups, compiled on first use: reads them where ``parse`` cannot (rare)."""
    options = re2.Options()
    options.max_mem = _RULE_MEMORY
    return re2.compile(regex, options)._regexp


def _substitute(rule: _Rule, data: bytes, spans: list[tuple[int, int]], redacted: list[bytes] | None = None) -> bytes:
    """Every match of ``rule`` in ``data``, the first ``spans`` (``rule.find``'s result, the match
    first): kept groups stay, the secret between them is masked (and appended to ``redacted``)."""
    pieces: list[bytes] = []
    last = 0
    size = len(data)
    find, parse, prefix, suffix, check = rule.match, rule.parse, rule.prefix, rule.suffix, rule.check
    grouped = rule.grouped
    # per call, so no secret outlives it, and from the second match on (most texts have one): a text that repeats a
    # match (a body of the same ``password=`` many times, a repeated log line) reads its groups and checks its value once
    parsed: dict[bytes, tuple[int, int]] | None = None
    masked: dict[bytes, bool] | None = None
    start, end = spans[0]
    while True:
        secret_start, secret_end = start, end
        if parse is not None or grouped:
            # the secret's offsets in the match, read once per matched text: an anchored match of [start, end) reads
            # the text outside it only through the assertions, each one byte on each side (``\b``, ``(?m:^)``,
            # ``(?m:$)``; ``^`` and ``$`` only at the text's ends, never cached), so they are a function of the
            # match and the byte on either side
            key = data[start - 1 : end + 1] if parsed is not None and start and end < size and not grouped else None
            offsets = parsed.get(key) if key is not None else None  # type: ignore[union-attr]
            if offsets is None:
                if not grouped:
                    spans = parse.Match(_ANCHOR_BOTH, data, start, end)
                    if spans[0][0] < 0:  # a key ``parse``'s shorter word list does not take (another script's word)
                        spans = _groups(rule.regex).Match(_ANCHOR_BOTH, data, start, end)
                for g in prefix:
                    if spans[g][0] >= 0:
                        secret_start = spans[g][1]
                for g in suffix:
                    if spans[g][0] >= 0:
                        secret_end = spans[g][0]
                        break
                if key is not None:
                    parsed[key] = (secret_start - start, end - secret_end)  # type: ignore[index]
            else:
                secret_start, secret_end = start + offsets[0], end - offsets[1]
        secret = data[secret_start:secret_end]
        if masked is None:
            is_masked = _is_masked(secret)
        else:
            is_masked = masked.get(secret)
            if is_masked is None:
                is_masked = masked[secret] = _is_masked(secret)
        if (
            not is_masked
            and not _not_a_value(data, secret, secret_end)
            and (check is None or check(data, start, secret, secret_end))
        ):
            pieces += (data[last:secret_start], _REDACTED_BYTES)
            last = secret_end
            if redacted is not None:
                redacted.append(secret)
        pos = end if end > start else start + 1
        if pos >= size:
            break
        spans = find(_UNANCHORED, data, pos, size)
        start, end = spans[0]
        if start < 0:
            break
        if masked is None:
            parsed, masked = {}, {}
    if not pieces:
        return data
    pieces.append(data[last:])
    return b"".join(pieces)


_ECHO_MIN: Final = 10
"""Bytes a redacted value needs before its other copies in the same text go too."""


def _without_echoes(data: bytes, redacted: list[bytes]) -> bytes:
    """``data`` without the other copies of a value a rule redacted in it: a tool that prints a secret under its
    name often prints it again where nothing names it (Django's ``.. "secret" = '<v>' ..; args=('<v>',)``, a
    statement's value echoed in its parameter list, a token in a header and again in a URL). Python only: the
    Collector's RE2 patterns have no backreferences. Values under :data:`_ECHO_MIN` bytes stay (a short value
    may be a common word elsewhere in the text)."""
    for secret in set(redacted):
        if len(secret) >= _ECHO_MIN and secret in data:
            data = data.replace(secret, _REDACTED_BYTES)
    return data


_LARGE: Final = 8 * 1024
"""Bytes above which the triggered patterns are first checked together in one scan."""
_NO_READERS: Final = (False, False, False)  # the set found none of the SQL, HTML and JSON readers' triggers


@functools.lru_cache(maxsize=128)
def _any_match(indices: tuple[int, ...], ascii_text: bool = False) -> Any:
    """The alternation of these patterns, without captures: one DFA scan says whether any matches.

    Cached per combination (a few ms to compile); 64 MiB so the DFA of a wide alternation does
    not run out of memory and fall back to the NFA (measured: 0.2 ms instead of 500 ms per 64 KiB).
    ``ascii_text``: for text of ASCII characters only, as Latin-1 (:func:`_ascii_program`).
    """
    regex = "|".join(f"(?:{PATTERNS[i].regex})" for i in indices)
    options = re2.Options()
    options.never_capture = True
    options.max_mem = _SET_MEMORY
    latin = _ascii_program(regex) if ascii_text else None
    if latin is not None:
        options.encoding = _LATIN1
        try:
            return re2.compile(latin, options)._regexp
        except re2.error:
            options.encoding = re2.Options.Encoding.UTF8
    return re2.compile(regex.encode(), options)._regexp


def without_surrogates(text: str) -> str:
    """``text`` with each pair of surrogates (a JSON ``\\ud83d\\ude00`` decoded one half at a time) made the character it
    encodes and each lone surrogate U+FFFD, the character a decoder writes for one it cannot read: a character still,
    as the one it replaces was, where ``?`` (``encode(errors="replace")``) is syntax to the patterns
    (``api_key=<lone surrogate>Q7xY...`` read ``api_key=?Q7xY...``, no value, and kept the key)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _apply_patterns(text: str) -> str:
    """One RE2 set pass finds the patterns that match; only those run, in PATTERNS order."""
    if text.isascii():  # most texts (a flag of the str, no scan): the smaller Latin-1 programs (:func:`_ascii_program`)
        data = text.encode()
        large = len(data) > _LARGE
        hits, rules = (_LARGE_ASCII_SET if large else _ASCII_SET).Match(data), _ASCII_RULES
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # surrogates (RE2 takes UTF-8 only), in C, linear
            text = without_surrogates(text)
            data = text.encode("utf-8")
        large = len(data) > _LARGE
        hits, rules = (_LARGE_SET if large else _SET).Match(data), _RULES
    # a large text with lines: the tabular pass runs, its own scan for naming lines deciding (the large set has no
    # trigger for them; every name line the trigger admits has a newline after or before it); with no other reader
    # unless one of the pass's other triggers matched, as on a small text
    named_elsewhere = large and 10 in data
    if not hits:
        return scrub_named_cells(text, _NO_READERS) if named_elsewhere else text
    hits.sort()
    found: tuple[bool, bool, bool] | None = _NO_READERS if named_elsewhere else None
    if hits[-1] > len(rules):  # a name in a header, a column, a line before: _tabular after the patterns
        extra = set()
        while hits and hits[-1] > len(rules):
            extra.add(hits.pop() - len(rules) - 1)
        if not extra.isdisjoint(_TABULAR_RUNS):  # (a large text's newline alone runs the naming lines' reader only)
            named_elsewhere = True
            found = (_TABULAR_SQL in extra, _TABULAR_HTML in extra, _TABULAR_JSON in extra)
    if not hits:
        return scrub_named_cells(text, found) if named_elsewhere else text
    scrubbed = data
    if hits[-1] == len(rules):  # URLs first: the real host is found even when a password holds '@' or '/'
        scrubbed = _scrub_urls(scrubbed)
        hits.pop()
    if len(hits) > 2 and len(data) > _LARGE and _any_match(tuple(hits), rules is _ASCII_RULES).Match(_UNANCHORED, scrubbed, 0, len(scrubbed))[0][0] < 0:
        hits = []  # a large benign text: one scan instead of one per pattern
    redacted: list[bytes] = []
    for index in hits:
        rule = rules[index]
        spans = rule.match(_UNANCHORED, scrubbed, 0, len(scrubbed))
        if spans[0][0] >= 0:  # most triggered patterns do not match: no call for them
            scrubbed = _substitute(rule, scrubbed, spans, redacted)
    if redacted:
        scrubbed = _without_echoes(scrubbed, redacted)
    # nothing replaced: the text as it came (no decoding); RE2 matches whole UTF-8 code points, so
    # a replacement never splits a character
    if scrubbed is data:
        return scrub_named_cells(text, found) if named_elsewhere else text
    if found is _NO_READERS:  # a large text no trigger of the pass admitted but for its naming lines: ask theirs
        named_elsewhere = _NAMES_TRIGGER.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0
    # the set read the text before the patterns changed it: _tabular looks for its readers' literals itself
    text = scrubbed.decode("utf-8", "replace")
    return scrub_named_cells(text) if named_elsewhere else text


# Structural URL pass: scheme://userinfo@host... where the password contains '/' or '@', and query
# parameters whose *name* says credential (checked by name, whatever the value looks like).
_PARAM_WORDS: Final = r"pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key|credentials?|signature"
"""A query parameter whose name ends in one of these is a credential (``db_password=``, ``X-Amz-Signature=``)."""
_PARAM_NAMES: Final = r"key|sig|code|auth|pat|x-amz-credential"
"""Short names that are a credential only as the whole name (``?key=``, not ``?monkey=``)."""
_URL_CHARS: Final = r"[^\s'\"<>`]"
_URL_MARK: Final = (
    rf"(?::{_URL_CHARS}*@|{re.escape(REDACTED)}{_URL_CHARS}*@|[?&;][^\s'\"<>`&;#=]*(?i:{_PARAM_WORDS})=|[?&;](?i:{_PARAM_NAMES})=)"
)
"""What a URL the pass can change holds: a ``:`` or the marker before an ``@`` (userinfo with a
password: a user alone stays) or a credential-named parameter."""
_URL: Final = re2.compile(rf"\b[A-Za-z][A-Za-z0-9+.\-]{{0,30}}://{_URL_CHARS}*{_URL_MARK}{_URL_CHARS}*".encode())._regexp
"""A whole URL (to the end of its run of URL characters, as the scheme's leftmost start gives it)
that holds a mark; URLs without one are skipped in the same scan, not visited one by one."""
_URL_TRIGGER: Final = rf"://{_URL_CHARS}*{_URL_MARK}".encode()
_SENSITIVE_PARAM: Final = re.compile(rf"(?i)^(?:.*(?:{_PARAM_WORDS})|{_PARAM_NAMES})$")
_PLACEHOLDER_NAME: Final = re.compile(r"[A-Z_x]+")
_HOST_PORT_ONLY: Final = re.compile(r"[^:@/]*(?::[0-9]{1,5})?$")
_HOST_AFTER_AT: Final = re.compile(
    r"[A-Za-z0-9.\-]+(?::[0-9]{1,5})?(?=[/?#]|$)|\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?(?=[/?#]|$)"
)


def _scrub_urls(data: bytes) -> bytes:
    pieces: list[bytes] = []
    last = pos = 0
    while True:
        start, end = _URL.Match(_UNANCHORED, data, pos, len(data))[0]
        if start < 0:
            break
        url = data[start:end]
        scrubbed = _scrub_url(url.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
        if scrubbed != url:
            pieces += (data[last:start], scrubbed)
            last = end
        pos = end
    if not pieces:
        return data
    pieces.append(data[last:])
    return b"".join(pieces)


def _scrub_url(url: str) -> str:
    scheme_end = url.index("://") + 3
    rest = url[scheme_end:]
    # userinfo: the last '@' that is followed by a host; the password is after the first ':'.
    at = rest.rfind("@")
    slash = rest.find("/")
    if 0 <= slash < at and _HOST_PORT_ONLY.match(rest, 0, slash):
        at = -1  # host:port/path@...: the '@' is in the path, there is no userinfo
    while at > 0:
        if _HOST_AFTER_AT.match(rest, at + 1):
            userinfo = rest[:at]
            # user and password both go (public case D06); a user alone (no ':') stays
            masked = _is_masked(userinfo.encode("utf-8", "surrogateescape"))
            # a password that opens a template's placeholder (``{FRIGATE_RTSP_PASSWORD}``, ``${DB_PASSWORD}``,
            # ``<password>``) is filled in at run time: the same rule as the ``uri_userinfo_password`` pattern
            password = userinfo.partition(":")[2]
            placeholder = password[:1] in ("{", "<") or password[:2] == "${"
            if userinfo != REDACTED and not masked and not placeholder and (":" in userinfo or REDACTED in userinfo):
                rest = REDACTED + rest[at:]
            break
        at = rest.rfind("@", 0, at)
    q = rest.find("?")
    if q >= 0:
        head, query = rest[: q + 1], rest[q + 1 :]
        fragment = ""
        h = query.find("#")
        name, eq, _value = re.split(r"[&;]", query[:h])[-1].partition("=") if h >= 0 else ("", "", "")
        if h >= 0 and not (eq and _SENSITIVE_PARAM.match(name)):
            # (a '#' right after a credential's value is the password's own symbol, not a fragment: it is redacted with it)
            query, fragment = query[:h], query[h:]
        parts = re.split(r"([&;])", query)
        changed = False
        for i in range(0, len(parts), 2):
            name, eq, value = parts[i].partition("=")
            # not already redacted, not a placeholder (``{token}``, ``${TOKEN}``, ``<key>``, a name in capitals:
            # ``password=PASSWORD``, as ``_patterns._password_value`` reads one) nor a mask
            if (
                eq
                and value
                and value[0] not in "[{$<"
                and _SENSITIVE_PARAM.match(name)
                and not _PLACEHOLDER_NAME.fullmatch(value)
                and not _is_masked(value.encode("utf-8", "surrogateescape"))
            ):
                parts[i] = f"{name}={REDACTED}"
                changed = True
        if changed:
            rest = head + "".join(parts) + fragment
    return url[:scheme_end] + rest


# the set's entries after the patterns' and the URL pass's, numbered from 0: _tabular's triggers (the pass runs when one
# matched; the second says SQL), then its hints (HTML's ``<t``, the JSON readers' literals)
_TABULAR_RUNS: Final = frozenset(range(len(_TABULAR_TRIGGERS)))
_TABULAR_NAMES, _TABULAR_SQL = 0, 1
_NAMES_TRIGGER: Final = _program(_TABULAR_TRIGGERS[_TABULAR_NAMES], False, capture=False)  # what the large set leaves out
_TABULAR_HTML, _TABULAR_JSON = len(_TABULAR_TRIGGERS), len(_TABULAR_TRIGGERS) + 1
_SET: Final = _pattern_set()
_ASCII_SET: Final = _pattern_set(ascii_text=True) or _SET  # for ASCII text; the UTF-8 one if a trigger does not convert
_LARGE_SET: Final = _pattern_set(large=True)  # for texts above _LARGE bytes: without the naming-line trigger
_LARGE_ASCII_SET: Final = _pattern_set(ascii_text=True, large=True) or _LARGE_SET


# Terminal colours (ECMA-48 SGR, ``ESC [ ... m``) between a key, its ``=`` and its quotes hide the shape every rule
# reads (IPython's and Rich's tracebacks colour each token of a source line). Also the escape as a string literal
# spells it: JSON's ``\u001b`` (a notebook's ``error`` output keeps IPython's coloured traceback so, nbformat 4), C's
# and Python's ``\x1b``, the shell's ``\033`` and ``\e``.
_SGR: Final = re2.compile(r"(?:\x1b|\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-9;]*m")
# RE2: one linear scan (six substring searches took ~0.4 ms on a 64 KiB text, this ~3 µs)
_ESCAPED_ESC: Final = re2.compile(rb"\\(?:u001[bB]|x1[bB]|033|e)\[")


def _holds_escaped_sgr(text: str) -> bool:
    """Whether ``text`` spells an SGR escape as a literal (``\\u001b[``; only asked of a text holding a backslash)."""
    data = text.encode("utf-8", "surrogatepass")
    # the binding's own call, as ``search`` makes it, without the wrapper's Python around it (a quarter of the corpus
    # lines hold a backslash)
    return _ESCAPED_ESC._regexp.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0


def _without_hidden_secrets(scrubbed: str) -> str:
    """``scrubbed``, or, when colour codes (raw or spelled as an escape) hid a secret from the rules, the text without
    the colours and without that secret (Python only: the Collector's rules read the coloured text)."""
    if "\x1b[" not in scrubbed and not _holds_escaped_sgr(scrubbed):
        return scrubbed
    plain = _SGR.sub("", scrubbed)
    cleaned = _apply_patterns(plain)
    return scrubbed if cleaned == plain else cleaned


# Text spelled in hex, one byte as two digits of one case: Linux auditd writes an argument (``a1=``) or a command line
# (``proctitle=``, arguments split by NUL) this way when it holds a space, a quote or a control character, and so do
# ``xxd -p``, PostgreSQL's ``bytea`` output and registry exports. A run of 12+ bytes that reads back as printable text
# is scrubbed as that text, and goes whole when the text holds a secret; a key or digest in hex reads back as random
# bytes and is left to the rules (Python only: the Collector's RE2 cannot decode, docs/scrubbing.md).
_HEX_RUN: Final = re.compile(r"(?<![0-9A-Za-z])(?:(?:[0-9A-F]{2}){12,}|(?:[0-9a-f]{2}){12,})(?![0-9A-Za-z])")
_HEX_ALONE: Final = rb"(?:^|[^0-9A-Za-z])(?:(?:%s){12,}|(?:%s){12,})(?:[^0-9A-Za-z]|$)"
_HEX_LOOK: Final = _program(
    (_HEX_ALONE % (rb"[2-6][0-9A-F]|7[0-9A-E]|0[09AD]", rb"[2-6][0-9a-f]|7[0-9a-e]|0[09ad]")).decode(), True, capture=False
)
"""A necessary condition for a :data:`_HEX_RUN` match that :data:`_SPELLED_TEXT` reads back as text, as one RE2 scan
(Latin-1: a byte of a non-ASCII character is no letter or digit, as the character is not): a run of 12+ pairs each of
which spells a printable byte, a tab, a line end or NUL, with no letter or digit on either side. A trace id or a digest
in hex (~30 % of the bench's corpus lines) fails it at once: 12 random bytes are all printable once in ~10^5."""


def _may_spell_hex(text: str) -> bool:
    """Whether ``text`` may hold a run of hex that spells text (no RE2 call for a text shorter than one run)."""
    if len(text) < 24:
        return False
    data = text.encode("utf-8", "surrogatepass")
    return _HEX_LOOK.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0


_SPELLED_TEXT: Final = re.compile(rb"[\x20-\x7e\t\n\r]+(?:\x00[\x20-\x7e\t\n\r]+)*\x00?")


def _without_hex_spelled_secrets(text: str, apply: Callable[[str], str]) -> str:
    """``text`` with each run of hex that spells printable text that ``apply`` (the patterns) changes replaced by
    ``[REDACTED]``."""
    pieces: list[str] = []
    last = 0
    for run in _HEX_RUN.finditer(text):
        raw = bytes.fromhex(run.group())
        if not _SPELLED_TEXT.fullmatch(raw):
            continue
        spelled = raw.replace(b"\x00", b" ").decode("ascii")
        if apply(spelled) != spelled:
            pieces += (text[last : run.start()], REDACTED)
            last = run.end()
    return "".join(pieces) + text[last:] if pieces else text


def scrub(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED]`` (key names and hosts are kept).

    Idempotent: ``scrub(scrub(t)) == scrub(t)``. Bounded: input beyond :data:`MAX_SCRUB_CHARS`
    characters is dropped and replaced by a marker. Never raises.
    """
    try:
        if not isinstance(text, str):
            text = str(text)
        tail = ""
        if len(text) > MAX_SCRUB_CHARS:
            tail = TRUNCATED_MARKER.format(n=len(text) - MAX_SCRUB_CHARS)
            text = text[:MAX_SCRUB_CHARS]
        kept = None
        if "\n" in text and _bytedump.might_hold_dumps(text):  # a dump's rows: its bytes read back (_bytedump)
            text, kept = _bytedump.mask_dumps(text, _apply_patterns)
        if _may_spell_hex(text):  # text spelled in hex (auditd's arguments): read back, scrubbed as text
            text = _without_hex_spelled_secrets(text, _apply_patterns)
        scrubbed = _apply_patterns(text)
        if kept:
            scrubbed = _bytedump.keep_rows(scrubbed, kept, text.count("\n") + 1)
        # one character each: a memchr (a longer needle is a slower search, every line); a backslash for the escape spelled
        if "\x1b" in scrubbed or "\\" in scrubbed:
            scrubbed = _without_hidden_secrets(scrubbed)
        return scrubbed + tail
    except Exception:  # noqa: BLE001 - a scrubber must never break the error path it protects
        return REDACTED


_STACK_TRACE_KEY: Final = re.compile(r"stack|trace|backtrace", re.I)


def without_stack_traces(data: Any) -> Any:
    """``data`` without the stack traces it carries, for a JSON-RPC error's ``data``, which goes to the peer: a stack
    trace is internal state (CWE-209; modelcontextprotocol/java-sdk PR #519, NethermindEth/nethermind #13198).

    A mapping loses the fields that carry one by convention (``stack``, ``stackTrace``, ``traceback``,
    ``backtrace``) and its text values are cut at their first frame; a text (a serialised exception, Java's
    ``printStackTrace``, Node's ``err.stack``) is cut at its first frame line (:data:`_FRAME_LINE`), the exception's
    own lines kept. Anything else is returned as it is.
    """
    if isinstance(data, str):
        return _before_frames(data)
    if isinstance(data, Mapping):
        return {key: _before_frames(value) if isinstance(value, str) else value
                for key, value in data.items() if not _STACK_TRACE_KEY.search(str(key))}
    return data


_FRAME_LINE: Final = re.compile(
    r"""^[ \t]*(?:
        Traceback\ \(most\ recent\ call\ last\)          # Python
      | File\ "[^"\n]+",\ line\ \d+
      | at\ [^\s(]{1,200}[^\n]{0,400}?(?::(?:line\ )?\d+|Native\ Method|Unknown\ Source|<anonymous>)\)?[ \t]*$
                                                       # Java, JavaScript, C# ("at X.y() in f.cs:line 3")
      | goroutine\ \d+\ \[                                # Go
      | \S{1,200}\.(?:go|rs|rb|py|js|ts|java|cs|kt|php):\d+  # a source position opening a line
      | \d{1,5}:\ +(?:0x[0-9a-f]{1,16}\ -\ )?[\w<>]{1,200}::  # Rust's backtrace
      | from\ \S+:\d+:in\                                  # Ruby
    )""",
    re.VERBOSE | re.MULTILINE,
)
"""A line that is a frame of a stack trace (or the header of a Python one), in the common runtimes' formats."""
_MAX_TRACE_HEAD: Final = 2000
"""Characters kept before the first frame."""


_CAUSE_LINE: Final = re.compile(r"^[ \t]*(?:Caused by:|\[cause\]:)[ \t]*(\S[^\n]*)$", re.MULTILINE)
"""A chained exception's own line under the frames: Java's ``printStackTrace`` "Caused by: …" (also Kotlin, Scala),
Node's ``util.inspect`` "[cause]: …"."""
_PYTHON_CHAIN: Final = re.compile(r"^(?:The above exception was the direct cause of the following exception:"
                                  r"|During handling of the above exception, another exception occurred:)$", re.MULTILINE)
_MAX_CAUSE_LINES: Final = 8


def _before_frames(text: str) -> str:
    """The exception's own words: the text before the first frame, or (Python writes them last) the last line that is
    neither a frame nor indented; then the causes of a chained exception, nearest first, each as ``Caused by: …``
    (Java's order): the frames go, the root cause stays (it is what an on-call engineer looks for; the frames are
    the internal state CWE-209 is about)."""
    match = _FRAME_LINE.search(text)
    if match is None:
        return text
    head = text[: match.start()].rstrip()
    causes: list[str] = []
    if not head:
        lines = [line for line in text[match.start():].splitlines()[-50:] if line.strip()]
        head = next((line for line in reversed(lines) if not line[:1].isspace() and not _FRAME_LINE.match(line)), "")
        # Python prints the root cause first and each wrapper after it: its earlier exceptions' lines, nearest first.
        for block in reversed(_PYTHON_CHAIN.split(text[match.start():])[:-1]):
            said = [line for line in block.splitlines() if line.strip() and not line[:1].isspace()
                    and not _FRAME_LINE.match(line)]
            if said:
                causes.append(said[-1].strip())
    else:
        causes = [found.group(1).strip() for found in _CAUSE_LINE.finditer(text, match.start())]
    chain = "".join(f"\nCaused by: {cause[:_MAX_TRACE_HEAD]}" for cause in causes[:_MAX_CAUSE_LINES])
    return f"{head[:_MAX_TRACE_HEAD]}{chain} [stack trace removed]".lstrip()
