"""Scrub structured values (a tool's ``MCPError.data``, an error result's ``structuredContent`` and ``_meta``, log record
extras, structlog event dicts) as the text rules scrub the same value printed.

``scrub_value(obj)`` walks str/bytes/list/tuple/set/dict and record objects (dataclasses, pydantic models, named
tuples, ``SimpleNamespace``) and redacts by key as well as by value: a key that names a credential
(:func:`errscope._secret_shapes.key_kind`), a name/value pair that names its own value, a list under a plural
credential name, the argument after a credential option in an argv list. Every string goes through
:func:`errscope._scrubbing.scrub`. Bounded: containers deeper than 32 levels or wider than 10,000 items are cut.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from collections.abc import Mapping
from enum import Enum
from types import SimpleNamespace
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from errscope._patterns import _LIST_KEY, REDACTED
from errscope._scrubbing import _MAX_DEPTH, _MAX_ITEMS, SAFE_KEYS, _check_unnamed, _not_a_value, scrub
from errscope._secret_shapes import _KEY_TOKENS, _is_masked, key_kind, looks_like_password, looks_random

__all__ = ["scrub_value"]


def _key_name(key: Any) -> str | None:
    """The name a key gives its value: a ``str`` as it is, an ``Enum`` member by its value (pydantic and ``json``
    write it so), a tuple of names joined with ``.`` (``("db", "password")``: a path); ``None`` for other keys."""
    if isinstance(key, str):
        return key
    if isinstance(key, Enum):
        return key.value if isinstance(key.value, str) else key.name
    if isinstance(key, tuple) and key and all(isinstance(part, str) for part in key):
        return ".".join(key)
    return None


_CONTAINERS: Final = (Mapping, list, tuple, set, frozenset)


def _redact_by_key(key: Any, value: Any) -> bool:
    name = _key_name(key)
    if name is None or isinstance(value, bool) or value is None or isinstance(value, _CONTAINERS):
        return False
    kind = key_kind(name)
    if not kind:
        return False
    if isinstance(value, (bytes, bytearray, memoryview)):
        text = bytes(value).decode("utf-8", "replace")  # what the walk would make of it, not its repr
    else:
        text = value if isinstance(value, str) else str(value)
    data = text.encode("utf-8", "surrogatepass")
    if not text or _is_masked(data) or text[:1] in "${<%" or text[:2] == "{{":  # empty, masked, a placeholder
        return False
    if _not_a_value(data, data, len(data)):  # what the text rules read as no value there: a label, a flag, a reference
        return False
    scheme = _SCHEME_THEN.fullmatch(text)  # ``Bearer ${input:github_token}``, ``Bearer {{accessToken}}``, ``Bearer YOUR_API_KEY``
    if scheme is not None and (scheme.group(1)[:1] in "${<%" or scheme.group(1)[:2] == "{{" or _is_masked(scheme.group(1).encode())
                               or _not_a_value(data, scheme.group(1).encode(), len(data))):
        return False
    return kind == "secret" or looks_random(data)


_SCHEME_THEN: Final = re.compile(r"[A-Za-z][A-Za-z0-9\-]{1,30}[ \t]+(\S+)")
"""An auth scheme and what follows it (RFC 9110 section 11.4: ``<scheme> <credentials>``)."""


# A key naming several credentials (``api_keys``, ``accessTokens``, ``passwords``, ``token_list``): the text rule
# ``secret_value_list``'s key (``_patterns._LIST_KEY``), at the end of the key name after a word boundary.
_LIST_NAME: Final = re2.compile(f"(?:{_LIST_KEY})$")


def _names_several(name: str) -> bool:
    found = _LIST_NAME.search(name)
    if found is None:
        return False
    start = found.start()
    return start == 0 or not name[start - 1].isalpha() or (name[start].isupper() and name[start - 1].islower())


_PLURAL: Final = re.compile(r"(.*[a-z])s((?:[_.\-]?(?:v?[0-9]+|b64|base64|raw|enc|encoded|hex))*)", re.IGNORECASE)


def _singular(name: str) -> str | None:
    """``name`` with its last word in the singular (``unseal_keys_b64`` → ``unseal_key_b64``), ``None`` if no plural."""
    found = _PLURAL.fullmatch(name) if len(name) <= 64 else None
    return found.group(1) + found.group(2) if found is not None else None


def _list_item(value: Any) -> bool:
    """A list's item as the text rule reads one: 8+ characters, no blank, no placeholder or mask."""
    return (isinstance(value, str) and len(value) >= 8 and not any(c.isspace() for c in value)
            and value[:1] not in "${<%" and not _is_masked(value.encode("utf-8", "surrogatepass")))


@functools.lru_cache(maxsize=4096)  # the same few keys on every record: each is scrubbed once
def _scrubbed_key(key: str) -> str:
    return scrub(key)


def _scrub_key(key: Any) -> Any:
    """A mapping's key as the text rules leave it: a key can hold what a value holds (a token keying a cache, a
    ``password=…`` pair or an ``Authorization`` line used as a name), and ``json.dumps`` prints it as text."""
    if isinstance(key, str):
        return _scrubbed_key(key) if len(key) <= 256 else scrub(key)
    if isinstance(key, tuple):
        scrubbed = tuple(_scrub_key(part) for part in key)
        return scrubbed if scrubbed != key else key
    return key


# A pair's two slots, by the last word of their key (``name``, ``headerName``, ``ParameterKey``; ``value``,
# ``ParameterValue``): how settings, headers, form fields and parameters are listed as objects (Kubernetes' ``env``,
# HAR, AWS tags and SSM, CloudFormation, Postman, a form's ``{"field", "value"}``, a header table's
# ``{"header", "value"}``, Terraform's ``{"variable", "value"}``, a key/value store's ``{"k", "v"}``).
_NAME_SLOT: Final = frozenset(
    {"name", "key", "k", "field", "param", "parameter", "label", "header", "variable", "var", "attribute", "attr",
     "setting", "option", "property", "prop"}
)
_VALUE_SLOT: Final = frozenset({"value", "val", "v", "content"})
# A serializer's type tag around a value one object below (DynamoDB's ``{"S": …}``, protobuf ``Struct``/Firestore's
# ``{"stringValue": …}``, Avro's ``{"string": …}``), as the text rule ``typed_wrapper_value`` reads it; and a value slot.
_TYPE_TAGS: Final = frozenset({"S", "B", "str", "string", "bytes"})


def _slot(key: Any) -> str:
    """``"name"`` or ``"value"`` for a key that is one slot of a pair (``name``, ``Key``, ``ParameterKey``,
    ``headerName``, ``field``; ``value``, ``Value``, ``ParameterValue``, ``content``), ``""`` otherwise."""
    if not isinstance(key, str):
        return ""
    tokens = _KEY_TOKENS.findall(key)
    last = tokens[-1].lower() if tokens else ""
    return "name" if last in _NAME_SLOT else "value" if last in _VALUE_SLOT else ""


def _wraps_value(key: Any) -> bool:
    """``key`` is where a wrapper object keeps the value it wraps: a type tag or a value slot."""
    return isinstance(key, str) and (key in _TYPE_TAGS or _slot(key) == "value")


def _named_pair(obj: Mapping[Any, Any]) -> tuple[Any, list[Any]] | None:
    """``(name_key, value_keys)`` when ``obj`` is a pair that names its own value, ``None`` otherwise.

    Settings, headers and parameters are as often a list of ``{name, value}`` pairs as a mapping: a Kubernetes
    container's ``env`` (``{"name": "DB_PASSWORD", "value": …}``), a HAR's headers, AWS's tags and SSM
    parameters (``{"Key"/"Name": …, "Value": …}``), CloudFormation's ``{"ParameterKey", "ParameterValue"}``,
    Postman's variables, a form's ``{"field": "password", "value": …}``. The name slot holds a key name, not a
    secret; the value slots are read under that name. Of several name slots (``{"id", "name", "label", …}``) the one
    that names a credential counts.
    """
    if len(obj) > 8:
        return None
    names, values = [], []
    for k in obj:  # each key's slot once (every mapping of every record passes here)
        slot = _slot(k)
        if slot == "name" and isinstance(obj[k], str):
            names.append(k)
        elif slot == "value":
            values.append(k)
    if not names or not values:
        return None
    kinds = [key_kind(obj[k]) if len(obj[k]) <= 256 else "" for k in names]  # (a name, not a text: bounded for the cache)
    best = "secret" if "secret" in kinds else "noun" if "noun" in kinds else ""
    return (names[kinds.index(best)], values) if best or len(names) == 1 else None


def _record_fields(obj: Any) -> dict[str, Any] | None:
    """The named fields of a record object, as its serializers write them (pydantic, ``json`` with a default,
    structlog's renderers, ``repr``): a dataclass, an attrs class, a pydantic model (fields and extras), a
    ``SimpleNamespace``; ``None`` for anything else (its own ``str`` is what a sink prints)."""
    cls = type(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if hasattr(obj, f.name)}
    if hasattr(cls, "__attrs_attrs__"):
        return {a.name: getattr(obj, a.name) for a in cls.__attrs_attrs__ if hasattr(obj, a.name)}
    model_fields = getattr(cls, "model_fields", None)
    if isinstance(model_fields, Mapping) and callable(getattr(obj, "model_copy", None)):
        return {**{name: getattr(obj, name) for name in model_fields if hasattr(obj, name)}, **(getattr(obj, "model_extra", None) or {})}
    if cls is SimpleNamespace:
        return dict(vars(obj))
    return None


def _rebuilt(obj: Any, fields: dict[str, Any], scrubbed: dict[Any, Any]) -> Any:
    """``obj`` with its fields' scrubbed values, of its own type (a frozen dataclass, a model without validation
    on assignment); the scrubbed mapping when the type cannot be copied so."""
    try:
        if callable(getattr(obj, "model_copy", None)) and not dataclasses.is_dataclass(obj):
            return obj.model_copy(update={name: scrubbed[name] for name in fields})
        if type(obj) is SimpleNamespace:
            return SimpleNamespace(**scrubbed)
        copied = copy.copy(obj)
        for name in fields:
            object.__setattr__(copied, name, scrubbed[name])  # frozen dataclasses and attrs classes too
        return copied
    except Exception:  # noqa: BLE001 - an odd record is passed on as its scrubbed fields, never raw
        return scrubbed


_OPTION: Final = re.compile(r"--?([A-Za-z][A-Za-z0-9_.\-]*)")


def _after_option(previous: Any, item: Any) -> bool:
    """``item`` is the value of the option before it in an argv list (``["psql", "--password", "…"]``,
    ``["keytool", "-storepass", "…"]``): the option names a credential and the item is no option itself."""
    if not (isinstance(previous, str) and previous[:1] == "-" and isinstance(item, str) and item[:1] != "-"):
        return False
    option = _OPTION.fullmatch(previous)
    return option is not None and key_kind(option.group(1)) == "secret" and _redact_by_key(option.group(1), item)


def _run_text(item: Any) -> str | None:
    """The text of a rich-text run: ``{"type": "text", "text": "…"}`` (ProseMirror, Atlassian's ADF, Slack's
    ``rich_text`` elements), ``{"text": {"content": "…"}, "plain_text": "…"}`` (Notion); ``None`` for anything else."""
    if not isinstance(item, Mapping):
        return None
    text = item.get("text")
    if isinstance(text, Mapping):
        text = text.get("content")
    if not isinstance(text, str):
        text = item.get("plain_text")
    return text if isinstance(text, str) else None


_LABEL_END: Final = re.compile(r"([A-Za-z][A-Za-z0-9_.\-]*(?:[ \t]+[A-Za-z][A-Za-z0-9_.\-]*){0,2})[ \t]*[:：=]?[ \t]*")


def _runs_read_together(window: Any, items: list[Any]) -> list[Any]:
    """Rich text splits a line into runs by their marks (``**API key:** `…` ``): a run that ends in a credential's
    name (``Password``, ``API key:``, ``Bot token``) names the next run's text when it has a credential's shape, as the
    text rules read the line joined (``Bot token: `changeme-in-vault` `` is a note)."""
    for i in range(1, len(items)):
        label, text = _run_text(window[i - 1]), _run_text(window[i])
        if label is None or text is None or len(label) > 200 or not isinstance(items[i], dict):
            continue
        words = label.rstrip()
        found = _LABEL_END.search(words[-60:]) if words else None
        name = found.group(1).replace(" ", "_").replace("\t", "_") if found is not None and found.end() == len(words[-60:]) else ""
        value = text.strip()
        shaped = value.encode("utf-8", "surrogatepass")  # prose after a label is no value: a credential's shape is
        if name and key_kind(name) == "secret" and _redact_by_key(name, value) and (looks_random(shaped) or looks_like_password(shaped)):
            run = dict(items[i])
            if isinstance(run.get("text"), str):
                run["text"] = REDACTED
            elif isinstance(run.get("text"), Mapping):
                run["text"] = {**run["text"], "content": REDACTED}
            if isinstance(run.get("plain_text"), str):
                run["plain_text"] = REDACTED
            items[i] = run
    return items


def _scrub_member(key: Any, value: Any, trust_safe_keys: bool, depth: int) -> Any:
    """``value`` as it stands under ``key``: redacted when the key names a credential; a list, tuple or set under
    such a key has each of its values read under it (``{"password": ["…"]}``, as ``"password": ["…"]`` printed),
    and a wrapper object under it its wrapped value (``{"password": {"S": "…"}}``, ``{"api_key": {"value": "…"}}``)."""
    if _redact_by_key(key, value):
        return REDACTED
    name = _key_name(key)
    if name is not None and isinstance(value, _CONTAINERS) and key_kind(name) == "secret" and not hasattr(value, "_fields"):
        if isinstance(value, Mapping):
            return _scrub_mapping(value, trust_safe_keys, depth + 1, under=name)
        items = [REDACTED if _redact_by_key(name, v) else scrub_value(v, trust_safe_keys=trust_safe_keys, _depth=depth + 1)
                 for v in list(value)[:_MAX_ITEMS]]
        return _same_kind(value, items)
    if name is not None and isinstance(value, (list, tuple, set, frozenset)) and not hasattr(value, "_fields") and _names_several(name):
        window = list(value)[:_MAX_ITEMS]  # several values under a plural name: all go once one has a credential's shape
        if any(_list_item(v) and _check_unnamed(b"", 0, v.encode("utf-8", "surrogatepass"), 0) for v in window):
            return _same_kind(value, [REDACTED if _list_item(v) else scrub_value(v, trust_safe_keys=trust_safe_keys, _depth=depth + 1)
                                      for v in window])
    singular = _singular(name) if name is not None and isinstance(value, (list, tuple, set, frozenset)) else None
    if singular is not None and key_kind(singular) and not hasattr(value, "_fields"):
        # a plural of a credential noun (``unseal_keys_b64``, ``session_keys``): each item with a credential's shape
        window = list(value)[:_MAX_ITEMS]
        return _same_kind(value, [REDACTED if _list_item(v) and looks_random(v.encode("utf-8", "surrogatepass"))
                                  else scrub_value(v, trust_safe_keys=trust_safe_keys, _depth=depth + 1) for v in window])
    return scrub_value(value, trust_safe_keys=trust_safe_keys, _depth=depth + 1)


def _same_kind(obj: Any, items: list[Any]) -> Any:
    """``items`` in the container kind of ``obj`` (list, tuple, set, frozenset), ``[REDACTED]`` for any cut off."""
    if len(obj) > _MAX_ITEMS:
        items.append(REDACTED)
    if isinstance(obj, list):
        return items
    if isinstance(obj, (set, frozenset)):
        try:
            return frozenset(items) if isinstance(obj, frozenset) else set(items)
        except TypeError:  # an item that became unhashable
            return items
    return tuple(items)


# A JSON Web Key's private members (RFC 7518 section 6.2.2: EC ``d``; 6.3.2: RSA ``d``, ``p``, ``q``, ``dp``, ``dq``,
# ``qi``; 6.4.1: a symmetric key's ``k``; RFC 8037: OKP ``d``), known by the ``kty`` member every JWK has.
_JWK_PRIVATE: Final = frozenset({"d", "p", "q", "dp", "dq", "qi", "k"})
# A pair's ``type`` that says its value is hidden: Postman's and Insomnia's ``secret`` variables, an HTML form's
# ``password`` input, 1Password's ``CONCEALED`` field, a ``hidden`` one.
_HIDDEN_TYPES: Final = frozenset({"secret", "password", "concealed", "hidden", "secure", "securestring"})


def _typed_hidden(obj: Mapping[Any, Any]) -> bool:
    kind = obj.get("type")
    return isinstance(kind, str) and kind.lower() in _HIDDEN_TYPES


def _scrub_mapping(obj: Mapping[Any, Any], trust_safe_keys: bool, depth: int, under: str | None = None) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    pair = _named_pair(obj)
    jwk = isinstance(obj.get("kty"), str)
    hidden = pair is not None and _typed_hidden(obj)
    for i, (key, value) in enumerate(obj.items()):
        if i >= _MAX_ITEMS:
            out[REDACTED] = REDACTED
            break
        new_key = _scrub_key(key)
        if new_key in out:  # two keys that held secrets, both now the same mask: each keeps its value
            new_key = f"{new_key}#{i}"
        if trust_safe_keys and isinstance(key, str) and key in SAFE_KEYS:
            out[new_key] = value
        elif (hidden and key in pair[1] or jwk and key in _JWK_PRIVATE) and _redact_by_key("secret", value):
            out[new_key] = REDACTED  # a value its pair's type hides, a JWK's private member
        elif pair is not None and key in pair[1]:
            out[new_key] = _scrub_member(obj[pair[0]], value, trust_safe_keys, depth)  # read under the name it holds
        elif under is not None and _wraps_value(key) and _redact_by_key(under, value):
            out[new_key] = REDACTED  # a wrapper under a credential's name: what it wraps is that credential
        elif pair is not None and key == pair[0] and key_kind(value):
            out[new_key] = scrub_value(value, trust_safe_keys=trust_safe_keys, _depth=depth + 1)  # a credential's name, no credential
        else:
            out[new_key] = _scrub_member(key, value, trust_safe_keys, depth)
    return out


def scrub_value(obj: Any, *, trust_safe_keys: bool = True, _depth: int = 0) -> Any:
    """Scrub every string inside ``obj``, and every value a key names as a credential.

    Walks str, ``Mapping``, list, tuple, set and frozenset (each kept as its kind; a named tuple too), bytes,
    ``bytearray`` and ``memoryview`` (decoded as UTF-8, returned as ``str``), and the fields of record objects: a
    dataclass, an attrs class, a pydantic model, a ``SimpleNamespace`` (each returned as a copy of its own type,
    :func:`_record_fields`); other values pass through (numbers, ``None``, an ``Enum`` member). What it redacts is
    what the text rules redact in the same payload printed (``json.dumps``, YAML, ``repr``):

    - a value under a secret-bearing key (:func:`key_kind`: ``password``, ``db_password``, ``apiKey``,
      ``client_secret_v2``, ``Passwort``, ``contraseña``, ``PGPASSWORD``, ``otp_code``; or a credential noun anywhere
      in the key and a random-looking value), whatever it looks like, numbers included; a key that is an ``Enum``
      member or a tuple of names is read by its name (:func:`_key_name`);
    - each value of a list, tuple or set under such a key, and the wrapped value of a wrapper object under it
      (``{"password": {"S": …}}``);
    - the value of a name/value pair whose name is such a key (``{"name": "DB_PASSWORD", "value": …}``,
      ``{"field": "password", "value": …}``, :func:`_named_pair`), and of each ``(name, value)`` item of a list of
      such pairs (headers and query parameters as HTTP clients keep them);
    - the value after an option naming a credential in an argv list (``["psql", "--password", …]``);
    - a secret in a key itself (``{"ghp_…": …}``, ``{"Bearer …": …}``), scrubbed as text;
    - the values of a list under a name for several credentials (``api_keys``, ``passwords``) once one of them has
      a credential's shape (as the text rule ``secret_value_list`` reads the list printed).

    Values under keys in :data:`SAFE_KEYS` are kept as they are unless ``trust_safe_keys`` is false (a peer's
    payload, where those names are just names the tool chose). Containers deeper than 32 levels or wider than 10,000
    items are cut (the excess is replaced by ``[REDACTED]``), so a hostile structure cannot make scrubbing unbounded.
    """
    if isinstance(obj, str):
        return scrub(obj)
    if _depth >= _MAX_DEPTH:
        return REDACTED
    if isinstance(obj, Mapping):
        return _scrub_mapping(obj, trust_safe_keys, _depth)
    if isinstance(obj, tuple) and isinstance(getattr(type(obj), "_fields", None), tuple):  # a named tuple: by its fields
        fields = dict(zip(type(obj)._fields, obj))
        scrubbed = _scrub_mapping(fields, trust_safe_keys, _depth)
        try:
            return type(obj)(*(scrubbed[name] for name in fields))
        except Exception:  # noqa: BLE001 - a tuple subclass with its own constructor: a plain tuple
            return tuple(scrubbed[name] for name in fields)
    if isinstance(obj, (list, tuple)):
        if obj and all(isinstance(v, (list, tuple)) and len(v) == 2 and isinstance(v[0], str) for v in obj[:_MAX_ITEMS]):
            # a list of (name, value) pairs: headers and query parameters as httpx, urllib and aiohttp keep them
            items = [_scrub_mapping(dict([pair]), trust_safe_keys, _depth + 1).popitem() for pair in obj[:_MAX_ITEMS]]
            items = [type(pair)(item) if type(pair) in (list, tuple) else item for pair, item in zip(obj, items)]
        else:
            window = obj[:_MAX_ITEMS]
            items = [REDACTED if i and _after_option(window[i - 1], v) else scrub_value(v, trust_safe_keys=trust_safe_keys, _depth=_depth + 1)
                     for i, v in enumerate(window)]
            if sum(1 for v in window[:64] if _run_text(v) is not None) >= 2:
                items = _runs_read_together(window, items)
        return _same_kind(obj, items)
    if isinstance(obj, (set, frozenset)):
        return _same_kind(obj, [scrub_value(v, trust_safe_keys=trust_safe_keys, _depth=_depth + 1) for v in list(obj)[:_MAX_ITEMS]])
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return scrub(bytes(obj).decode("utf-8", "replace"))
    fields = _record_fields(obj)
    if fields is not None:
        return _rebuilt(obj, fields, _scrub_mapping(fields, trust_safe_keys, _depth))
    return obj
