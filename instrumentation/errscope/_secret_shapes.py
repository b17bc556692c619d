"""The shapes of a secret value and of a key that names one, shared by the scrubbing passes.

:func:`looks_random` (a credential-shaped run), :func:`looks_like_password`, :func:`key_kind` (what a key name says
it holds) and ``_is_masked`` (a value someone already masked). :mod:`errscope._scrubbing` and
:mod:`errscope._tabular` both read them; this module imports neither.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from errscope._patterns import _PASSWORD_KEY, _TOKEN_KEY
from errscope._patterns import KEY_NOUNS as PATTERN_KEY_NOUNS
from errscope._patterns import KEY_QUALIFIERS as PATTERN_KEY_QUALIFIERS

__all__ = ["key_kind", "looks_like_password", "looks_random"]

_ANCHOR_BOTH: Final = re2._Anchor.ANCHOR_BOTH


# A value someone already masked is not a secret to mask again (and rewriting it would make a
# benign line look changed): ``***``, ``xxxx``, ``[REDACTED]``, ``<redacted>``, ``(hidden)``, and helm-diff's
# ``++++++++ # (16 bytes)`` / ``-------- # (24 bytes)`` (an added or removed Secret value, masked with its size).
_MASKED: Final = re2.compile(
    rb"""[\s"'\\]*(?:(?:[*xX#.]{3,}|[+\-]{3,}|"""
    + "[●•＊]+".encode()  # a mask of bullets (a password field's dots, full-width stars)
    + rb""")(?:[ \t]+#[ \t]*\([0-9]+[ \t]*bytes?\))?|[*]+.*|<[^>]*>|\[[^\]]*\]"""
    rb"""|\(?(?i:redacted|hidden|masked|removed|none|null)\)?)[\s"'\\]*"""
)._regexp
_MASK_START: Final = frozenset(bytes([c]) for c in b" \t\"'\\*xX#.<[(rRhHmMnN+-\xe2\xef")  # \xe2, \xef: ``●●●``, ``•••``, ``＊＊＊``
_MASK_END: Final = frozenset(bytes([c]) for c in b"xX*#")
_UUID: Final = re2.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")._regexp
# ``=`` ends a run unless it is base64's padding: ``name=value`` pairs (a cookie string) are no random run
_RUN: Final = re.compile(rb"[A-Za-z0-9+_\-~.]+=*")
_BASE64_RUN: Final = re.compile(rb"[A-Za-z0-9+/_\-]+=*")
# ``bytes in bytes`` first tries the needle as an int and raises and clears a TypeError (~1,800 instructions,
# callgrind): one character is looked up as its int (``58 in secret``: a memchr, 56 ns against 439), a tuple
# of one-byte strings by equality, a longer needle with ``find`` (~570 instructions of argument parsing).
_COLON, _SLASH, _DOT, _PAREN, _LESS, _PLUS, _STAR = b":/.(<+*"
_DIGITS: Final = b"0123456789"
# A value cut short for display (``sk-...PaR5``, ``2c2a…``): a few characters kept around an ellipsis.
_TRUNCATED: Final = re.compile(rb"[A-Za-z0-9_\-]{0,16}(?:\.{3}|\xe2\x80\xa6)[A-Za-z0-9_\-]{0,8}")


def _fullmatch(regex: Any, data: bytes) -> bool:
    """``regex`` matches all of ``data`` (the binding's own call: the ``re2`` module's ``fullmatch``
    wraps it in a generator and a match object, several µs per call)."""
    return regex.Match(_ANCHOR_BOTH, data, 0, len(data))[0][0] >= 0


def _entropy(value: bytes) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def looks_random(secret: bytes) -> bool:
    """A credential-shaped value: a run of 16+ characters (split at ``/`` and ``@``, or a whole
    base64 run) with at least two of lower case, upper case and digits, entropy of at least
    3 bits per character, and not a UUID. Used where the key name or prefix alone does not say
    credential (``verify="random"`` patterns)."""
    return any(_random_run(run) for run in _RUN.findall(secret)) or any(
        _random_run(run) for run in _BASE64_RUN.findall(secret) if _SLASH in run or _PLUS in run
    )


def _random_run(token: bytes) -> bool:
    if len(token) < 16 or (len(token) == 36 and _fullmatch(_UUID, token)):
        return False
    # character classes by C-level bytes methods (a Python loop per character cost ~20 µs a token)
    lower, upper = token.lower(), token.upper()
    classes = (token != upper) + (token != lower) + (len(token.translate(None, _DIGITS)) != len(token))
    return classes >= 2 and _entropy_at_least_3(token)


def _entropy_at_least_3(token: bytes) -> bool:
    """``_entropy(token) >= 3.0``, mostly decided by the bounds min-entropy <= Shannon entropy
    <= log2(distinct characters) without the per-character sum."""
    counts = Counter(token).values()
    if max(counts) * 8 <= len(token):  # no character above 1/8: min-entropy >= 3 bits
        return True
    if len(counts) < 8:  # fewer than 8 distinct characters: below 3 bits
        return False
    return _entropy(token) >= 3.0


_PASSWORD_SYMBOLS: Final = b"!#%^*?@+_~&$=-"


def looks_like_password(secret: bytes) -> bool:
    """8+ characters with a letter and a digit, and both letter cases or a symbol: ``S3cr3t!x``
    and ``qyPnY7r50cwi18`` are, ``python3.11``, ``8080:80`` and ``no:cacheprovider`` are not."""
    if len(secret) < 8:
        return False
    digits = len(secret.translate(None, _DIGITS)) != len(secret)
    lower, upper = secret != secret.upper(), secret != secret.lower()
    symbol = len(secret.translate(None, _PASSWORD_SYMBOLS)) != len(secret)
    return digits and (lower or upper) and ((lower and upper) or symbol)


# Stars and bullets as JSON and JavaScript escape them (``"\\u002a\\u002a\\u002a"``, ``\\u2022``, ``\\u25cf``).
_ESCAPED_MASK: Final = re.compile(rb"(?:\\u(?:002[aA]|2022|25[cC][fF]|00[bB]7))+")


def _is_masked(secret: bytes) -> bool:
    """``***``, ``[REDACTED]``, ... alone or as the password of ``user:***``, or a value partly
    masked by a run of four stars (``sk-proj-****...kR52``: what is left is no secret)."""
    if _STAR in secret and secret.find(b"****") >= 0:  # a memchr first: ``find`` parses its arguments slowly
        return True
    if (_DOT in secret or b"\xe2" in secret) and _TRUNCATED.fullmatch(secret):  # ``sk-...PaR5``: the rest cut away
        return True
    if secret[:2] == b"\\u" and _ESCAPED_MASK.fullmatch(secret):  # a mask JSON-escaped: ``\\u002a\\u002a..``
        return True
    if secret[:4] == b"ENC[":  # SOPS' ciphertext (``ENC[AES256_GCM,data:..,iv:..,tag:..,type:str]``), encrypted to be committed
        return True
    if secret[:1] in _MASK_START and _fullmatch(_MASKED, secret):
        return True
    if secret[-1:] in _MASK_END:  # a vendor's prefix kept, its body masked: ``glpat-xxxxxxxx``, ``npm_XXXXXXXX``
        tail = secret[max(secret.rfind(b"_"), secret.rfind(b"-")) + 1 :]
        if 3 <= len(tail) < len(secret) and _fullmatch(_MASKED, tail):
            return True
        # ... or written on without a separator: ``dapiXXXXXXXXXXXXXXXX``, ``AKIAXXXXXXXXXXXXXXXX`` (a prefix of letters:
        # ``Zz9xxxxxxxx..`` is a value)
        kept = secret.rstrip(secret[-1:])
        if len(secret) - len(kept) >= 8 and 2 <= len(kept) <= 8 and kept.isalpha():
            return True
    if _COLON not in secret:
        return False
    _user, colon, password = secret.partition(b":")
    return bool(colon) and password[:1] in _MASK_START and _fullmatch(_MASKED, password)


# A key qualified as public, or a token that is a position, holds no credential (MCP's ``progressToken``,
# a ``pageToken``); _scrubbing's text rules spare the same qualifiers.
_PUBLIC: Final = frozenset({"public", "publishable", "pub"})
_POSITION: Final = frozenset({"progress", "page", "continuation"})  # a token that is a position, not a permission


# Key-name semantics (issue #13): a key is split into tokens on ``_ - . `` and camelCase. It is
# secret-bearing when its last token (or last two, ``api_key``) names a credential: its value is
# redacted whatever it looks like. A credential noun elsewhere in the key (``password_policy``,
# ``session_id``) redacts only a value shaped like a credential (:func:`looks_random`).
_KEY_TOKENS: Final = re.compile(r"[vV][0-9]+|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_LAST: Final = frozenset(
    {
        "password", "passwd", "passphrase", "pwd", "pass", "secret", "secrets", "credential", "credentials",
        "token", "apikey", "signature", "cookie", "jwt", "bearer", "otp", "totp", "authorization", "passcode", "pin",
        "pw", "psk",  # the text rules' short password words (``_patterns._PASSWORD_SHORT``)
        "hmac",  # a message's MAC is its signature (a replayable proof)
        "cvv", "cvc", "cvn",  # a payment card's verification value (PCI DSS: never stored after authorisation)
        "salt",  # an application's salt is key material (WordPress ``AUTH_SALT``, Phoenix ``signing_salt``)
    }
)
# ``<what>_code`` that is a one-time or secret code (``otp_code``, ``mfa_code``, ``2fa_code``, ``verification_code``,
# ``security_code``, ``pin_code``, ``recovery_code``): a code that proves who you are, digits or not. Other codes
# (``error_code``, ``status_code``, ``country_code``, ``confirmation_code``: a booking reference) are data.
_SECRET_CODE_QUALIFIERS: Final = frozenset(
    {
        "otp", "totp", "hotp", "mfa", "fa", "tfa", "verification", "verify", "security", "sms", "pin", "auth",
        "authorization", "recovery", "backup", "reset", "login", "access", "unlock", "passcode",
    }
)
# The text rules' key words (``_patterns._PASSWORD_KEY``/``_TOKEN_KEY``: the password in two dozen languages and
# scripts, ``PGPASSWORD``, ``mnemonic``, ``seed_phrase``, AWS's ``SecretString``, ``jeton``, ``clave_api``, ``токен``)
# at the end of a key name: what a key names in text it names in a structure. Their tokens are not split as
# :data:`_KEY_TOKENS` splits (``contraseña``, ``密码``, ``PGPASSWORD`` are one word there), hence the regex.
_TEXT_KEY_WORD: Final = re2.compile(f"(?:{_PASSWORD_KEY}|{_TOKEN_KEY})$")
# English words that end in ``pass`` are no password run into a name (``dbpass``, ``storepass`` are).
_NOT_A_RUN_PASS: Final = ("compass", "overpass", "underpass", "surpass", "trespass")
_KEY_QUALIFIERS: Final = frozenset(PATTERN_KEY_QUALIFIERS) | {"api"}
_NOUNS: Final = frozenset(PATTERN_KEY_NOUNS)
_VERSION_TOKEN: Final = re.compile(r"v?[0-9]+|value|prod|production|dev|staging|test|live|old|new|current|primary|secondary|b64|base64|enc|encoded|raw|base")


def names_public_key(tokens: list[str]) -> bool:
    """``tokens`` (a key's lower-case words, :data:`_KEY_TOKENS`) name a public key: ``pubkey``, or ``key`` with
    ``public``/``publishable``/``pub`` among the words before it (``public_key``, Sparkle's ``SUPublicEDKey``,
    ``public_signing_key``)."""
    return bool(tokens) and (tokens[-1] == "pubkey" or (tokens[-1] == "key" and not _PUBLIC.isdisjoint(tokens[:-1])))


@functools.lru_cache(maxsize=4096)  # the same few keys on every record: tokenise each once
def key_kind(key: str) -> str:
    """``"secret"`` when ``key`` names a credential, ``"noun"`` when one of its tokens is a
    credential noun but not in that position, ``""`` otherwise. ``client_secret_v2`` and
    ``apiKeyProd`` are secrets (a version or stage suffix does not change what a key holds)."""
    found = list(_KEY_TOKENS.finditer(key))
    tokens = [t.group().lower() for t in found]
    while len(tokens) > 1 and _VERSION_TOKEN.fullmatch(tokens[-1]):
        tokens.pop()
        found.pop()
    if not tokens:
        return "secret" if _names_in_text(key) else ""
    if names_public_key(tokens):
        return ""  # a public key is no secret
    if len(tokens) > 1 and ((tokens[-1] == "token" and tokens[-2] in _POSITION) or tokens[-2:] == ["session", "id"]):
        return ""  # MCP's progressToken, a page token, Mcp-Session-Id: ids (the text rules spare them too)
    if tokens[-1] in _SECRET_LAST or (tokens[-1] == "key" and len(tokens) > 1 and tokens[-2] in _KEY_QUALIFIERS):
        return "secret"
    if tokens[-1] == "code" and len(tokens) > 1 and tokens[-2] in _SECRET_CODE_QUALIFIERS:
        return "secret"
    if _names_in_text(key[: found[-1].end()] if len(found) < len(_KEY_TOKENS.findall(key)) else key):  # (a suffix cut: ``_v2``)
        return "secret"
    return "noun" if _NOUNS.intersection(tokens) else ""


def _names_in_text(key: str) -> bool:
    """``key`` ends in a key word of the text rules (:data:`_TEXT_KEY_WORD`), not in an English word ending in ``pass``."""
    if _TEXT_KEY_WORD.search(key) is None:
        return False
    return not key.lower().endswith(_NOT_A_RUN_PASS)
