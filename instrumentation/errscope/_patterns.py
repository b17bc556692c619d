"""The one source of secret patterns: ``errscope.scrub`` and the Collector config derive from it.

Every pattern is RE2 syntax (no lookaround, no backreferences), so the same text runs in Python's
``re`` and in the Collector's Go ``regexp`` (OTTL ``replace_pattern``, redaction ``blocked_values``).
Each entry is one :class:`SecretPattern`: a name, a family, the regex, how many leading capturing
groups are a *prefix that is kept* (a key name, a URL scheme, an opening quote) in front of the
marker and how many trailing ones are a kept suffix (a terminator, the ``@`` before a host), so the
text stays readable: ``api_key=[REDACTED]``, ``postgresql://[REDACTED]@db.internal.example:5432/orders``.
Entries have no other capturing groups and no global flags (case-insensitivity is scoped with
``(?i:...)`` to key names, so value classes such as ``[A-Z0-9]`` keep their meaning).

Two rules keep scrubbing safe to repeat (the library scrubs, then the Collector scrubs again):
a value never starts with ``[`` (so ``[REDACTED]`` is not matched again), and placeholders are not
secrets: values starting with ``$``, ``{``, ``<`` or ``%`` (``${DB_PASSWORD}``, ``{{ secrets.X }}``)
are left alone, and values of token/key-named fields must contain a character outside
``[a-z_-]`` (``OPENAI_API_KEY=your-api-key-here`` survives; real keys carry digits or capitals).

Families (``SecretPattern.family``):

- ``private_key``: PEM / OpenSSH private key blocks, including JSON-escaped ``\\n`` bodies; bodies without
  their armour (known by the base64 of their DER or OpenSSH header), PuTTY private lines, keys printed in hex
  (``klist -K``, ``openssl pkey -text``), JWK private members.
- ``jwt``: three dot-separated base64url segments starting ``eyJ``.
- ``uri``: URL userinfo with a password (``scheme://user:pass@host``, also ``scheme:/`` and an empty
  user), token-like users without a password (``https://<token>@host``), webhook paths whose
  segment is the secret (``/hooks/``, ``/services/``, ``/webhook(s)/``...).
- ``pii``: e-mail addresses and US social security numbers (public case D09).
- ``header``: ``Authorization`` values (any scheme, already masked values left alone), bare
  ``Bearer <token>``, cookies, the OTLP exporter's header list.
- ``keyword``: ``key=value`` / ``key: value`` / ``"key": "value"`` shapes where the key names a
  password, secret, token or key (env vars, query strings, libpq/ADO keyword DSNs, JSON, Python
  dict reprs, HTTP headers), keys with a credential noun among their tokens and a credential-shaped
  value (``client_secret_v2=``), keyword connection strings parsed to their delimiter with quoting,
  YAML next-line values, XML elements, whitespace-separated config lines, and prose that names
  a secret and gives it (``refused token tok-77x9``, ``reset code is 913-442``); network devices' config lines
  (a keyword, type words such as Cisco's ``7`` or FortiOS' ``ENC``, the value), protocol transcripts (``PASS``,
  ``LOGIN``, SASL responses), typed declarations and DSL values in source code, property-list and Android strings.
- ``provider``: tokens recognisable by their prefix/shape alone (GitHub, GitLab, Slack, Stripe,
  AWS, Google, OpenAI/Anthropic, ...), wherever they appear, and unknown providers' tokens of the
  common ``<lowercase prefix>_<random>`` shape.

``combined_regex()`` joins all entries into one alternation (leftmost match wins, earlier entries
win ties), and ``combined_replacement()`` is its replacement text (every kept group, then the
marker; groups of the alternatives that did not match expand to nothing in both engines).
``collector_regex()`` / ``collector_replacement()`` render them for Collector YAML (``$`` -> ``$$``,
OTTL ``replace_pattern``), ``collector_blocked_values()`` as the redaction processors' one entry, split
by ``collector_plain_value()`` / ``collector_separated_value()`` (:func:`separators`: a value without a
separator any pattern needs meets the token shapes alone; by length, :func:`plain_min_length`, only those that
fit), and :data:`GUARD` is the cheap regex the Collector checks before running the full pattern on free text
(:func:`collector_guard`: the same texts, in the form Go's regexp runs fastest).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from re import _constants as _sre  # the parse tree :func:`separators` reads
from re._parser import parse as _sre_parse
from typing import Any, Final, Literal

__all__ = [
    "GUARD",
    "PATTERNS",
    "REDACTED",
    "SecretPattern",
    "collector_blocked_values",
    "collector_plain_value",
    "collector_regex",
    "collector_replacement",
    "collector_separated_value",
    "combined_regex",
    "combined_replacement",
    "plain_min_length",
    "separators",
]

REDACTED: Final = "[REDACTED]"
"""What a secret is replaced with. It shares no 5-character run with any realistic secret."""

# Secret words of other scripts in prose (``токен «..»``).
_FOREIGN_PHRASE_WORDS = "токен|пароль|ключ|令牌|密码|密钥|トークン|パスワード|キー|토큰|비밀번호|키"

# The password in other languages' prose before a copula (``Das Passwort .. lautet ..``), followed by a space.
_COPULA_WORDS = (
    r"(?i:passwort|kennwort|mot de passe|contrase(?:ña|na)|senha|wachtwoord|parola|l(?:ö|o)senord|has(?:ł|l)o|heslo"
    r"|jelsz(?:ó|o)|adgangskode|passord|salasana)"
)
_COPULA_PASSWORD_WORDS = _COPULA_WORDS + r"[ \t]"
# The password and token nouns of languages that put a compound's qualifier after the noun (Romance, Slavic,
# Vietnamese: ``senha_banco``, ``mot_de_passe_bdd``, ``haslo_bazy``, ``mat_khau_db``; French ``mdp``).
_FOREIGN_NOUN_FIRST = (
    r"mot[_.\-]?de[_.\-]?passe|contrase(?:ña|na)|senha|has(?:ł|l)o|heslo|mdp|clave|chave|jeton|m(?:ậ|a)t[_ ]?kh(?:ẩ|a)u"
    r"|(?:ş|s)ifre|wachtwoord|cl(?:é|e)[_.\-]?secr(?:è|e)te"
)
_OTHER_SCRIPT_NOUN_FIRST = "[Пп]ароль|ПАРОЛЬ|[Тт]окен|ТОКЕН"
# The same words in prose (also German's and the Nordic ones), and other scripts' stems (``пароля``, inflected).
_PROSE_PASSWORD_WORDS = (
    r"(?i:passwort|kennwort|mot de passe|contrase(?:ña|na)|senha|wachtwoord|has(?:ł|l)(?:o|a|em)|heslo|jelsz(?:ó|o)|l(?:ö|o)senord"
    r"|adgangskode|passord|salasana|m(?:ậ|a)t kh(?:ẩ|a)u|(?:ş|s)ifre|mdp|clave|jeton)"
)
_OTHER_SCRIPT_PROSE_WORDS = "[Пп]арол|ПАРОЛ|[Тт]окен|密码|密碼|口令|パスワード|비밀번호|令牌|トークン|토큰"
# A value with a letter and a digit (not a date, a count or a word).
# An app password: four groups of four lower-case letters (Apple's app-specific passwords ``abcd-efgh-ijkl-mnop``,
# Google's app passwords as its page prints them, ``abcd efgh ijkl mnop``): no digit, so no password rule's shape.
_APP_PASSWORD = r"[a-z]{4}(?:-[a-z]{4}){3}"
_PW_CHAR = r"[A-Za-z0-9_\-.~+/!#%^*?@$&]"
_PW_SYM = r"[_\-.~+/!#%^?@$&]"
_LETTER_AND_DIGIT = (
    rf"(?:[A-Za-z]{_PW_CHAR}*[0-9]|[0-9]{_PW_CHAR}*[A-Za-z]|{_PW_SYM}{_PW_CHAR}*(?:[A-Za-z]{_PW_CHAR}*[0-9]|[0-9]{_PW_CHAR}*[A-Za-z])){_PW_CHAR}*"
)

GUARD: Final = (
    r"[:=>@：＝]|%3[AaDd]|%25(?:3[AaDd]|2[27])|-----|[A-Za-z0-9_\-+/.~]{15}|[0-9]{3}-[0-9]{2}-[0-9]{4}"
    r"|(?i:token|pass|passwd|secret|key|code|otp|pin|word|by|login|auth|authenticate|priv|psk|phrase|credentials?|community(?:-name)?|bindpw|rootpw|key-string)[ \t]"
    r"|(?i:pwd|token|secret|key|passwd|password)\][ \t]"
    r"|└[ \t]|&lt;[A-Za-z]|&#|\\x3[AaDd]|\\u003[AaDd]|\{[A-Z][A-Z0-9\-]*\}|-[-puaPwbSAXU]|(?i:auth|ticate|tication|credentials?|password|user|login|bind_s|pw_set)\(|UGFzc3dvcmQ6|(?i:add_user)[ \t]|(?i:credentials?)\.|(?i:net[ \t]+user|/rp)[ \t]"
    "|" + _FOREIGN_PHRASE_WORDS + "|" + _COPULA_PASSWORD_WORDS + "|密碼|口令"
    "|" + _PROSE_PASSWORD_WORDS + "|" + _OTHER_SCRIPT_PROSE_WORDS
    # credentials in human-written text: a key emoji, short words people type, a word closed by a backtick, a
    # question mark or a comma, a value named after it (``.. as the token``, ``.. is the API key``)
    + "|🔑|🔐|(?i:pw|pwd|combo|combination|puk)[ \t]|(?i:token|key|password|passphrase|pw|secret)[`?,]"
    r"|(?i:as|for|is)[ \t]+(?:[A-Za-z\-]+[ \t]+){0,3}(?i:pass|pw|token|key|secret|cred|psk|pin|code)"
    # a numeric code told what to do with (``use 480193 to verify``), a seed phrase's other names before a dash, a
    # contracted copula (``password's now ..``)
    # a call named for a credential handed a string (``.apiKey("..")``), a raw string after a key (KDL's ``token r#".."#``)
    r"|(?i:word|wd|phrase|pwd|pass|secret|tokens?|key|credentials?)\((?:[a-z][A-Za-z0-9_]*[ \t]*,[ \t]*)?(?:r#*)?[\"']"
    r"|(?i:word|wd|secret|token|key)[ \t]+r#*\"|(?i:word|wd|phrase|pwd|pass|secret|token|key|credentials?)(?:[_.\-]?[vV]?[0-9]+)?(?:[ \t]+(?:REG_|(?i:pic))|\)[ \t])"
    r"|(?i:use|enter|type|input)[ \t]+[0-9]{4}|(?i:mnemonic|words)[ \t]|(?i:password|pw|token|key|secret)'s[ \t]"
    r"|[ \t]/[ \t]"  # a user and a password joined by a spaced slash (prose_user_slash_password: ``u/p deploy / ..``)
    r"|(?i:codes)\r?\n"  # a list of codes under its name on the lines after (``Backup codes`` and one a line)
    r"|['\"] (?:is|does) (?:too|not) |header value"  # a rejected input quoted before its verdict, a header's value
    # a command handed a secret: echoed or here-stringed into it, a quoted key before its value, openssl's ``-k``,
    # db2's ``using``, NickServ's ``identify``, ``sp_addlogin``, a cookie-setting call
    r"|(?i:echo|printf|yes)[ \t]|<<<|(?i:key|token|secret|pass|word|auth|passwd|salt)['\"][ \t,]|-k[ \t]|(?i:using|identify)[ \t]|sp_addlogin|(?i:cookie)\("
    # a command's words (Redis ``AUTH`` on the wire), an Erlang tuple's secret-named atom before its value
    r"|AUTH(?:\\r\\n|\r?\n)|(?i:word|pass|passwd|pwd|secret|token|key)(?:\">>)?[ \t]*,[ \t]*(?:<<)?\""
    # a secret-named key in binary data printed as text before its type or length escape (``\xa8password\xac..``),
    # a Lisp association list's dotted pair (``(password . "..")``)
    r"|(?i:word|pass|wd|pwd|secret|token|key|credentials?)[A-Za-z0-9]{0,2}\\[x0]|[ \t]\.[ \t]\""
    # a label's last word closed by an editor's markup or followed by a typographic space (``**Token**``,
    # ``<b>Password</b>``, ``| Password | ..``), or ``password`` with an invisible character inside
    "|(?i:word|wd|passe|secret|token|key|credentials?)(?:[*_`|}<\\\\\\r\\n\u00a0\u202f\u2009\u2007\u200b\u2060\u00ad\ufeff]|&nbsp;|[ \t]+[|`{<*\\\\])"
    "|(?i:pass|api)[ _\\-]?[\u00ad\u200b\u2060]"
)
"""A cheap regex that every match of every pattern also matches (tests prove it on every example
and corpus line): a separator (also full-width or URL-encoded), a PEM dash run, a run of 15 token characters, an SSN shape, or a
secret-naming word followed by a space (SQL's ``PASSWORD '..'``, ``IDENTIFIED BY '..'``, a device config's
``community x``, a transcript's ``LOGIN u p``), SMTP's ``Password:`` challenge in base64, a
command-line option (``--x``, ``-p``, ``-u``, and the tools' ``-a``, ``-P``, ``-w``, ``-b``, ``-A``, ``-X``, ``-U``, PowerShell's
``ConvertTo-SecureString``, Windows' ``net user`` and ``/rp``), an auth call (``BasicAuth(``, ``credentials(``,
``Credentials.basic(``, ``changeUserPassword(``, ``createUser(``) or a secret's name in another script (prose
before a quoted value: ``токен «..»``), a traceback's value annotation (``└ '..'``), or a hash's scheme in braces (``{SSHA}``). The Collector runs
the full pattern on a free-text field only where this matches (Go's regexp has no prefilter)."""

Family = Literal["private_key", "jwt", "uri", "header", "keyword", "provider", "pii"]


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One secret shape.

    Attributes:
        name: stable identifier (tests, docs, drift checks).
        family: which family it belongs to (module docstring).
        regex: RE2-compatible regular expression, no global flags. Its capturing groups are, in
            order, ``keep_prefix`` groups kept in front of the marker, then ``keep_suffix`` groups
            kept after it; no others. Groups of alternatives that did not match are empty.
        keep_prefix: how many leading groups are kept in front of the marker (usually 0 or 1).
        description: what it catches, for humans.
        keep_suffix: how many trailing groups are kept after the marker (a terminator the value must be followed by, e.g. a
            space or ``&``) is kept after the marker. RE2 has no lookahead, so a pattern that must
            see what follows the value consumes it and puts it back.
        hints: lowercase literals, one of which occurs (case-insensitively) in every match. The
            Python scrubber skips patterns none of whose hints occur in the text (a prefilter
            only: results are identical). Tests check every example against them.
        verify: ``"random"``: the Python side keeps a match whose secret part does not look random
            (fewer than two of lower/upper/digit, low entropy, a UUID). RE2 cannot count, so the
            Collector applies the regex alone and may redact a little more (docs/scrubbing.md).
            ``"password"``: the Python side keeps a match that does not look like a password (8+
            characters, a letter and a digit, and mixed case or a symbol). ``"credential"``: either.
            ``"unnamed"``: for a value no name qualifies: random, or a password in both letter cases, and not hex
            digits and dashes alone (an id or a digest). ``"not_a_name"``: the Python side keeps a match whose secret
            part is lower-case words joined by ``_`` or ``-`` with a number after them (``cache_users_2024``): a name.
            ``"items"``: a list of values, kept unless one of its items passes ``"unnamed"``. ``"cookies"``: a
            cookie string, kept unless one of its values (not its names or attributes) is random-looking and not
            dotted numbers (``_ga=GA1.2.<n>.<n>``). ``"short_option"``:
            ``"credential"`` or an app password's shape (an ambiguous short option's value). ``"named"``:
            ``"credential"``, and the name the match holds does not qualify a key as public (``SUPublicEDKey``).
        trigger: a cheap RE2 regex that every match also matches, for patterns whose hints are
            too common words to prefilter well (``_``, ``api``); empty: the hints. Counted repetitions
            (``{16}``) only right after a literal (``bearer`` + 16 token characters): in the one set
            of all triggers, a counter that can start anywhere (``[0-9a-f]{32}``, ``[:=]`` + 16)
            multiplies the DFA's states (each run length of each character class is a state) and
            cost more per line than the few extra patterns a looser trigger lets run (the set of
            the original triggers: 11 µs a corpus line, 5 without such counters; cProfile).
        parse: Python only: ``regex`` with its key-name alternation replaced by the key's character
            run, for reading the groups of a span ``regex`` matched (the same groups: the key is
            followed by a separator that is not a key character, so both end it at the same place).
            RE2 reads groups with its fast BitState engine only for programs of at most 512
            instructions; the long key alternations of the larger keyword patterns exceed it and
            fall back to the NFA, ~10x slower per line. Empty: ``regex``.
    """

    name: str
    family: Family
    regex: str
    keep_prefix: int
    description: str
    keep_suffix: int = 0
    hints: tuple[str, ...] = ()
    verify: Literal["", "random", "password", "credential", "unnamed", "not_a_name", "items", "cookies", "short_option", "named"] = ""
    trigger: str = ""
    parse: str = ""

    @property
    def trigger_regex(self) -> str:
        """A cheap RE2 regex every match also matches: the explicit ``trigger``, else the hints as
        case-insensitive literals. All triggers form one RE2 set, the one pass that picks the
        patterns worth running on a text."""
        if self.trigger:
            return self.trigger
        return "(?i:" + "|".join(re.escape(h) for h in self.hints) + ")"

    @property
    def groups(self) -> int:
        return int(self.keep_prefix) + int(self.keep_suffix)


# --- building blocks (plain strings, so every pattern below stays readable) ---------------------

# Key names (matched case-insensitively). A key *ends* in one of these words, so
# ``password_policy``, ``max_tokens``, ``api_token_hash`` and ``secretValue`` are not keys.
_PASSWORD_WORDS = (
    # ``secret`` right after ``:`` is a resource type (``arn:aws:secretsmanager:..:secret:name``), not a key:
    # the character before is matched (and kept) instead, since RE2 cannot look behind
    # ``SecretString``: AWS Secrets Manager's value member (``get-secret-value`` output, CloudTrail's ``PutSecretValue``);
    # not after other key words, where it names code's string (Go's ``tokenString := jwt.SignedString(..)``)
    r"pass(?:word|wd|phrase|code)|(?:^|[^:])secret(?:[_.\-]?string)?|credentials?|mnemonic|seed[_.\-]?phrase"
    r"|[a-xz0-9]pass"  # a word run into ``pass`` (dbpass, adminpass, ftppass), not ``bypass``
    # the password in other languages (de, es, fr, pt, nl, fi, pl, it, sv, da/no, tr, cs/sk, hu, vi) and
    # "secret" in the Romance languages and German
    r"|pa(?:ss|ß)wort|kennwort|contrase(?:ña|na)|mot[_.\-]?de[_.\-]?passe|senha|wachtwoord|salasana|has(?:ł|l)o"
    r"|parola|l(?:ö|o)senord|adgangskode|passord|(?:ş|s)ifre|heslo|jelsz(?:ó|o)|m(?:ậ|a)t[_ ]?kh(?:ẩ|a)u"
    r"|secre(?:t[oa]|t(?:è|e))|segre(?:do|t[oa])|geheim(?:nis)?"
)
# Other scripts' words for password and token (ru, zh, ja, ko, el, he, ar, hi), matched as written: case folding of
# these scripts inside ``(?i:)`` swells the programs (each letter becomes a class), and most have no case.
_PASSWORD_WORDS_OTHER_SCRIPTS = "[Пп]ароль|ПАРОЛЬ|密码|密碼|パスワード|비밀번호|κωδικός|ΚΩΔΙΚΟΣ|סיסמה|كلمة[_ ]?(?:المرور|السر)|पासवर्ड"
_TOKEN_WORDS_OTHER_SCRIPTS = "[Тт]окен|ТОКЕН|[Кк]люч[_ ]?API|API[_ ]?[Кк]люч|令牌|密钥|秘钥|私钥|秘密鍵|トークン|APIキー|토큰|API[_ ]?키"
_PASSWORD_TRIGGER_WORDS = (
    "(?i:pass(?:word|wd|phrase|wort|ord|code|e)?|paßwort|pwd|pw|psk|secret(?:[_.\\-]?string)?|credentials?|mnemonic|phrase|kennwort|contrase(?:ña|na)"
    "|senha|wachtwoord|salasana|has(?:ł|l)o|parola|senord|adgangskode|ifre|heslo|jelsz(?:ó|o)|kh(?:ẩ|a)u"
    "|secre(?:t[oa]|t(?:è|e))|segre(?:do|t[oa])|geheim(?:nis)?|mdp)"
    # outside (?i:): case folding of other scripts swells the trigger set's DFA (~5 % a line)
    "|khẩu|Şifre|" + _PASSWORD_WORDS_OTHER_SCRIPTS
)
_PASSWORD_SHORT = (
    r"pass|pwd|psk|pw|mdp"  # mdp: French ``mot de passe``; only as a whole word or after a separator (not ``bypass``); psk: a pre-shared key
)
KEY_QUALIFIERS: Final = (
    "access", "secret", "private", "auth", "app", "application", "account", "master", "signing", "encryption",
    "client", "subscription", "license", "service", "restricted", "session", "webhook", "deploy", "storage",
    "sas", "hmac", "consumer", "admin", "shared", "routing", "integration", "write", "sdk", "server", "mobile",
    "nonce",
)
"""Words that make ``<word>_key`` a credential's name (``routing_key``, ``write_key``): the one list the
regexes and the Python key-name check (``_secret_shapes.key_kind``) both use."""
_FOREIGN_TOKEN_WORDS = (  # fr, es, pt, de: token, API key, access token
    r"jeton(?:[_.\-]?d[_.\-]?acc(?:è|e)s)?|cl(?:é|e)[_.\-]?(?:api|secr(?:è|e)te)|(?:clave|chave)(?:[_.\-]?api)?|(?:api|zugriffs)[_.\-]?schl(?:ü|ue)ssel"
)
_FOREIGN_TOKEN_TRIGGER = f"(?i:{_FOREIGN_TOKEN_WORDS})|{_TOKEN_WORDS_OTHER_SCRIPTS}"
_TOKEN_WORDS = (
    r"token|api[_.\-]?key|(?:" + "|".join(KEY_QUALIFIERS) + r"|sharedaccess|shared[_.\-]access)[_.\-]?key|signature"
    r"|(?:code[_.\-]?)verifier|saml[_.\-]?response"  # OAuth PKCE's verifier (RFC 7636), a SAML bearer assertion
    # a salt an application keeps in its config is key material mixed into its signatures and hashes (WordPress's
    # ``AUTH_SALT``/``NONCE_SALT``, Phoenix's ``signing_salt``, Nextcloud's ``passwordsalt``, Rails' ``*_salt``)
    r"|salt"
    + "|" + _FOREIGN_TOKEN_WORDS
)
_TOKEN_SHORT = (
    r"pat|sig|bearer"  # Azure DevOps ``PAT=``, SAS ``sig=``, ``bearer=`` (logfmt): whole word or after a separator
)
_SEP = (
    # the key's closing quote, escaped once or more (JSON in JSON), as an HTML entity or URL-encoded, or PHP's ``]``
    # then ``:``, ``=``, Ruby/PHP/Perl ``=>``, URL-encoded ``%3D``, full-width ``：`` ``＝``; URL-encoded JSON's ``%22%3A``
    # a typed declaration's annotation (``clientSecret: String = ``, ``apiKey: string = ``, Go's ``:=``) is part of it
    r"(?:(?:\\*[\"']|&quot;|%2[27])?\]?[ \t]*(?::[ \t]*[A-Za-z][A-Za-z0-9_]*[ \t]+=|:=|=>|[:=：＝]|%3[Dd])|%2[27]%3[Aa])[ \t]*"
    # PHP var_dump's ``=>\n  string(12) "..."``; a value quoted by an entity or URL-encoded quote
    r"(?:\r?\n[ \t]*string\([0-9]+\)[ \t]*)?(?:&quot;|%2[27])?"
)
_SEP_TRIGGER = r"(?:\\*[\"']|&quot;|%2[27])?\]?[ \t]*(?:[:=：＝]|%3[AaDd])"
"""What every ``_SEP`` starts with, for triggers."""

# Values. First characters exclude quotes, brackets (so ``[REDACTED]`` is final), ``*`` (masked
# values such as ``********`` are left alone) and placeholder openers; bare values stop at whitespace, quotes and the usual field separators.
_FIRST = r"[^\s'\"`\[\]{}<>$%(),;&*?]"  # ``?``: shell's ``${API_KEY:?message}``
_QFIRST = r"[^\s'\"`\\\[{<$%*]"  # first character of a quoted value
_BARE = r"[^\s'\"`\],;&}>]"  # may contain brackets: Tr(4)nsit!
_BARE_NB = r"[^\s'\"`\],;&)}>(\[]"  # ... and no brackets (code: ``os.environ['X']``)
# JSON string content and escapes; stops at \" (JSON in JSON) and at \\\" (twice escaped: the escaped
# backslashes before the quote belong to the quote, not the value)
_DQ = r"(?:[^\"\\\r\n]|\\+[^\"\\\r\n])"
_SQ = r"[^'\r\n]"
# A single-quoted password goes on over its quote escaped as SQL and shells write it (``'it''s'``, ``'it'\\''s'``,
# ``'it'"'"'s'``), and a bare one inside a shell's single quotes over ``'\\''`` (``-e 'PW=it'\\''s'``). Passwords
# only: the token values' ``parse`` programs stay under RE2's 512-instruction BitState limit.
_SQ_PW = r"(?:[^'\r\n]|'(?:\\'|\"'\")?')"
_SHELL_QUOTE_TAIL = r"'(?:\\'|\"'\")'[^\s'\"`\],;&}>]+"
# What must follow a bare value (kept as a suffix): code such as ``password=os.environ['X']`` is
# not a value.
_END = r"(?:([\s'\"`\],;&)}><])|$)"
# A password goes on past ``&``, ``;`` or ``,`` when what follows is no next field: no ``=`` before the next
# separator, and not letters alone (``;Server=db``, ``&next=/``, ``;User ID=sa``, ``, please`` end it;
# ``p@ss;w0rd``, ``Tr0ub4dor&3horse`` go on). A generated password's symbols are not separators.
_PASSWORD_TAIL = r"[&;,][A-Za-z]*[^\s'\"`\],;&}>=A-Za-z][^\s'\"`\],;&}>=]*"
# A token/key value must contain one character a placeholder word would not (digit, capital, symbol).
_STRONG = r"[A-Z0-9+/=~!@#^:]"
_STRONG_NON_DIGIT = r"[A-Z+/=~!@#^:]"
_FIRST_WEAK = r"[^\s'\"`\[\]{}<>$%(),;&*?0-9A-Z+/=~!@#^:]"  # ``_FIRST`` but not ``_STRONG``
# A bare value that starts with ``!`` or ``!!`` and a name, then ends, is a YAML tag (``!Ref Param``,
# ``!env_var NAME``, ``!vault |``, the core schema's ``!!null``, ``!!int 5``: YAML 1.2.2, 6.9.1 Node Tags); ``!`` and a
# name go on to something else in a secret (``!x9``, ``!abc!``, ``!!!``).
_NOT_TAG_END = r"[^A-Za-z_\s'\"`\],;&}>]"
_NOT_TAG = rf"!(?:[A-Za-z_]*{_NOT_TAG_END.replace('[^', '[^!', 1)}|[A-Za-z_]+!|![A-Za-z_]*{_NOT_TAG_END})"


_KEY_VERSION = r"(?i:[_.\-]v[0-9]|[_.\-]base)?"
"""A version after the key word is still the same key (``ses_smtp_password_v4``, ``api_key_v2``), and so is the
base keys are derived from (Rails' and Phoenix's ``secret_key_base``: the root of their key generators)."""


def _key(long_words: str, short_words: str, other_scripts: str) -> str:
    # The match starts at the key word, not at the start of the identifier: the rest of the
    # identifier (``AWS_SECRET_`` of ``AWS_SECRET_ACCESS_KEY``) stays untouched in front of the
    # match, and the regex does not backtrack through every identifier (much faster).
    return rf"(?:(?i:(?:{long_words})|(?:\b|[_.\-])(?:{short_words}))|{other_scripts}){_KEY_VERSION}"


def _password_value(quote: str) -> str:
    if quote:
        rest = _DQ if quote == '"' else _SQ_PW
        return rf"{quote}(?:{_QFIRST}|\\u[0-9A-Fa-f]{{4}}){rest}*"  # \u00d6: JSON's escape of a non-ASCII first character
    # Four or more characters without brackets, or any length with a digit: ``os.environ['X']``
    # and ``using password: YES`` are not passwords, ``Tr(4)nsit!`` is. Without a digit, not only
    # capitals, ``_`` and ``x`` (a variable's name, a placeholder or a mask: ``STRIPE_KEY``,
    # ``REDACTED``, ``xxxxxxxx``): another character at index 0, 1, 2 or later. Nor, starting in
    # lower case, a reference: a URI scheme and ``:`` (``vault:secret/db``, ``op://Prod/db/pw``).
    # Nor a YAML tag.
    # A word without a digit holds no ``.`` (a reference in code: ``var.db_password``, ``settings.API_KEY``, a file:
    # ``./pw.txt``), and in lower case alone it has 6+ letters (``null``, ``true``, ``none``, ``false``, and a word
    # of prose, ``siehe``, are no passwords).
    first = _FIRST.replace("[^", "[^!", 1)
    nb = _BARE_NB.replace("[^", "[^.", 1)
    other, first_other = nb.replace("[^", "[^A-Z_x", 1), first.replace("[^", "[^.A-Za-z_", 1)
    up = "[A-Z_x]"
    lo, not_scheme = "[a-z+]", nb.replace("[^", "[^a-z+:", 1)
    word = (
        rf"{first_other}{nb}{{3,}}"
        rf"|{up}(?:{other}{nb}{{2,}}|{up}{other}{nb}+|{up}{{2,}}{other}{nb}*)"
        rf"|[a-wyz](?:{lo}{{5,}}|{not_scheme}{nb}{{2,}}|{lo}{not_scheme}{nb}+|{lo}{{2,}}{not_scheme}{nb}*)"
    )
    return rf"(?:{first}{_BARE}*?[0-9]{_BARE}*|{word}|{_NOT_TAG}{_BARE}*)(?:{_PASSWORD_TAIL}|{_SHELL_QUOTE_TAIL})*{_END}"


def _token_value(quote: str) -> str:
    if not quote:
        # A bare value is not a number (``progressToken: 280``, MCP's progress id, ``2.5``) nor a
        # capitalised word (``None``, ``True``): digits and a strong non-digit or a letter; a
        # symbol; a capital or a weak start and a strong character later. Nor a YAML tag, nor a
        # constructor call: it holds no ``(`` (``SecretStr('***')``, ``Secret([REDACTED ..])``: a wrapper printed
        # around a masked value; API keys and tokens hold no parentheses).
        # Nor, without a digit, a dotted reference in code (``process.env.API_TOKEN``, ``settings.API_KEY``).
        bare = _BARE.replace("[^", "[^(", 1)
        bare_nodot = _BARE.replace("[^", "[^(.", 1)
        first_weak_nodot = _FIRST_WEAK.replace("[^", "[^.", 1)
        strong = (
            rf"[0-9]+(?:{_STRONG_NON_DIGIT}|[a-z_])(?:{bare}*)?|(?:[+/=~@#^:]|{_NOT_TAG})(?:{bare}*)?"
            rf"|(?:[A-Z]|{_FIRST_WEAK}){bare}*?[0-9](?:{bare}*)?"
            rf"|(?:[A-Z]|{first_weak_nodot}){bare_nodot}*?{_STRONG_NON_DIGIT}(?:{bare_nodot}*)?"
        )
        return rf"(?:{strong})(?:{_WRAPPED}|{_END})"
    rest = _DQ if quote == '"' else _SQ
    return rf"{quote}(?:{_STRONG}|{_QFIRST}{rest}*?{_STRONG}){rest}*"


_PASSWORD_KEY = _key(_PASSWORD_WORDS, _PASSWORD_SHORT, _PASSWORD_WORDS_OTHER_SCRIPTS)
_TOKEN_KEY = _key(_TOKEN_WORDS, _TOKEN_SHORT, _TOKEN_WORDS_OTHER_SCRIPTS)

# Token characters (base64/base64url/hex and friends) for shape-only rules.
_TOK = r"[A-Za-z0-9+/=_\-.~]"
# A token that runs to the end of its line and goes on, after a line break and indentation, with a
# line of nothing but 8+ token characters: a terminal's or a log's wrap (``kubectl logs | cut``,
# fixed-width log columns). The line's end after it is a kept group; a next line with anything else
# (``Content-Type: ...``, ``  at Foo.bar(...)``, a setting ``commit.gpgsign=true``: ``=`` is only base64's padding
# at the end) is not a continuation.
_WRAPPED = r"\r?\n[ \t]*[A-Za-z0-9+/_\-.~]{8,}={0,2}(\r?\n|$)"

# What puts a key's value on the next line (the value line itself is ``yaml_multiline_value``'s): after ``=`` (make's
# ``:=``, ``?=``, ``+=``) or ``:``, a string opener (JavaScript's template, TOML's triple quotes), a backslash before
# the line break (Java ``.properties``, POSIX shells, Dockerfile ``ENV``/``ARG``, make; not an option's ``--password \``,
# whose value is one word: ``cli_option_next_line``) or a here-document's opener (HCL ``<<EOT``/``<<-EOT``, Ruby ``<<~KEY``/``<<-KEY.strip``, PHP ``<<<'EOT'``, a shell's
# ``password=- <<EOF``: ``-`` names standard input); or an empty ``key =`` and an indented line, configparser's
# continuation (Python ``configparser``, git config, systemd units read it; an unindented line is the next key).
_CONTINUED_AFTER = (
    r"(?:(?:[:?+]?=|:)[ \t]*(?:`|\"\"\"|'''|[\"']?\\|-?[ \t]*<<[-~<]?[ \t]*['\"]?[A-Za-z_][A-Za-z0-9_]*['\"]?(?:\.[a-z_]+)?)"
    r")[ \t]*\r?\n[ \t]*|[:?+]?=[ \t]*\r?\n[ \t]+"
)
_CONTINUED_AFTER_TRIGGER = r"(?:[:?+]?=|:)[ \t]*(?:`|\"\"\"|'''|[\"']?\\|-?[ \t]*<<)|[:?+]?=[ \t]*\r?\n[ \t]"
# Several values under one secret-named key (``api_keys = ["..", ".."]``, ``API_KEYS=a,b``, ``tokens: [a, b]``):
# items of 8+ characters that open no placeholder or mask, separated by ``,`` or ``;`` (quotes and line breaks
# around them), inside an optional bracket. A rule that ends the value at its first separator leaks every later one.
_LIST_KEY = (
    r"(?i:(?:api|access|auth|client|secret|webhook|private|signing|master|app|bearer|session|refresh|deploy|service)"
    r"[_.\-]?(?:keys|tokens|secrets|passwords)|tokens|passwords|(?:password|passwd|secret|token|api[_.\-]?key)[_.\-]?list)"
)
"""A key naming several credentials: a plural credential noun (``keys`` and ``secrets`` only qualified: ``sort_keys``,
``secrets = ["prod/db"]`` name things), or a credential noun and ``list``."""
_LIST_ITEM = r"[^\s'\"`\[\]{}()<>$%*,;:#=][^\s'\"`\[\]{}()<>,;:=]{7,}={0,2}"
_LIST_SEP = r"['\"]?(?:[ \t]*[,;][ \t]*(?:\r?\n[ \t]*)?|\r?\n[ \t]*-[ \t]+)['\"]?"  # and YAML's block list: ``\n  - ``


# Key-name semantics by token split: a key is secret-bearing when one of its tokens (split on
# ``_ - .`` and camelCase) is a credential noun. Such keys redact a value only when it is shaped
# like a credential (16+ token characters with a digit; Python also checks entropy), so
# ``password_policy=strict`` and ``session_timeout=30`` survive while ``client_secret_v2=<random>``
# and ``dd_app_key_value=<random>`` do not. ``sid`` after a dot is a session cookie's name (Express's ``connect.sid``,
# ``koa.sid``); after ``_`` it is an identifier (Twilio's ``account_sid``, a Windows ``user_sid``), and alone a
# cookie string's member, which the cookie rule takes whole.
KEY_NOUNS: Final = (
    "password", "passwd", "passphrase", "pass", "pwd", "secret", "secrets", "credential", "credentials",
    "token", "key", "apikey", "auth", "signature", "sig", "private", "session", "cookie", "pat", "jwt",
    "bearer", "sas", "otp", "totp", "keytab",
)
_NOUN_ANY = "|".join(sorted(KEY_NOUNS, key=len, reverse=True))
_NOUN_CAMEL = "|".join(w.capitalize() for w in sorted(KEY_NOUNS, key=len, reverse=True))
_NOUN_ANY_BUT_SECRET = "|".join(w for w in sorted(KEY_NOUNS, key=len, reverse=True) if w not in ("secret", "secrets"))
# The rest of the key after its noun: the token ends (separator, digit or a new camelCase word), then any key characters.
_KEY_REST = r"[_.\-0-9A-Z][A-Za-z0-9_.\-]*"
# ... but not ending in ``id``: a key's, a token's or a session's identifier (``KeyId``, ``api_key_id``, ``TokenId``,
# ``session_id``, ``Mcp-Session-Id``, which MCP forbids using as a credential) names the secret or the session and is
# no credential. RE2 has no lookahead, so the complement is spelled out: one character, or a last character other
# than ``d``, or ``d`` after a character other than ``i``. ``secret_id`` keeps any rest (Vault AppRole's SecretID).
_KEY_REST_NOT_ID = (
    r"(?:[_.\-0-9A-Z](?:[A-Za-z0-9_.\-]*[A-CE-Za-ce-z0-9_.\-]|[A-Za-z0-9_.\-]*[A-HJ-Za-hj-z0-9_.\-][dD])?|[_.\-0-9A-HJ-Z][dD])"
)
# Qualifiers that make a key noun no credential's name, as the RE2 rule reads them: a public key (``public_key``,
# ``PublicKey``, ``pubkey``), a token that is a position (``pageToken``, ``progress_token``), a key that finds a
# record (``idempotency_key``, ``dedup_key``, ``partition_key``). The Python side checks more (``_scrubbing``:
# ``publishable``, ``continuation``, ``websocket``, ``cache``, ``sort``, ``object``, ..): each word here costs the
# rule's DFA states (the whole list of the Python side: ~15 % more time a corpus text, measured; these seven ~5 %).
NOT_A_CREDENTIAL_QUALIFIERS: Final = ("public", "pub", "progress", "page", "idempotency", "dedup", "partition")


_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"


def _not_after(words: Sequence[str], last: str, start: bool) -> str:
    """The characters right before a key noun, consumed (RE2 has no lookbehind): the last one in the class ``last``
    (or the text's start when ``start``), and the identifier they end not ending in one of ``words`` and a
    separator (``_`` or none), case-insensitively. Read backwards over a trie of the reversed words: at each node the
    identifier starts there, or the next character back is a word character and no child, or a child and the same
    again.
    At most the longest word and its separator are consumed; they are kept in the key's group."""
    forbidden = {w + sep for w in words for sep in ("_", "")}
    trie: dict[str, Any] = {}
    for word in forbidden:
        node = trie
        for char in reversed(word):
            node = node.setdefault(char, {})
        node[""] = {}  # a whole forbidden string read

    def cls(chars: set[str], negate: bool, within: str = "") -> str:
        both = sorted({c for ch in chars for c in (ch.lower(), ch.upper())})
        body = "".join("\\" + c if c in "\\]^-[" else (r"\ " if c == " " else c) for c in both)
        if within:  # ``within`` minus these characters: RE2 has no class subtraction, so list it out
            allowed = [c for c in within if c not in both]
            return "[" + "".join("\\" + c if c in "\\]^-[" else c for c in allowed) + "]" if allowed else ""
        return ("[^" if negate else "[") + body + "]"

    def back(node: dict[str, Any]) -> str:
        # the identifier starts here (``\\b``: nothing taken, so the match starts at a key character and ``parse``
        # reads it), or a word character that is no child is taken
        children = {c for c in node if c}
        alternatives = [r"\b", cls(children, negate=False, within=_WORD_CHARS)]
        for char in sorted(children):
            if "" not in node[char]:
                alternatives.append(back(node[char]) + cls({char}, negate=False))
        return "(?:" + "|".join(alternatives) + ")"

    root_children = set(trie)
    alternatives = ["^"] if start else []
    rest = cls(root_children, negate=False, within=last)
    if rest:
        alternatives.append(rest)
    for char in sorted(root_children):
        if char.lower() in last or char.upper() in last:
            if "" not in trie[char]:
                alternatives.append(back(trie[char]) + cls({char}, negate=False))
    return "(?:" + "|".join(alternatives) + ")"


_LOWER_OR_DIGIT = "abcdefghijklmnopqrstuvwxyz0123456789"
_NOUN_KEY = (
    # ``secret`` after ``:`` is a resource type (``arn:aws:secretsmanager:..:secret:prod/db-AbC123``), as in
    # ``_PASSWORD_WORDS``: the character in front is matched instead of ``\b``. Before the other nouns, where the
    # match already took the character in front (``_`` of ``public_key``, the ``c`` of camelCase ``publicKey``), the
    # characters before it are taken too, to see the identifier does not end in a qualifier of
    # :data:`NOT_A_CREDENTIAL_QUALIFIERS` (``public_key``, ``progressToken``, ``idempotency_key``). Not after ``-``, ``.``
    # or a space (``Idempotency-Key``, ``cache key``: Python only): a match starting earlier than the noun there would
    # win the Collector's leftmost pass over the password rule's match at the noun (``'password': '..'``).
    rf"(?:(?:(?:\b|[.\-]|{_not_after(NOT_A_CREDENTIAL_QUALIFIERS, '_', start=False)})(?i:{_NOUN_ANY_BUT_SECRET})"
    rf"|{_not_after(NOT_A_CREDENTIAL_QUALIFIERS, _LOWER_OR_DIGIT, start=False)}(?:{_NOUN_CAMEL})|\.(?i:sid))(?:{_KEY_REST_NOT_ID})?"
    rf"|(?:^|[^:A-Za-z0-9]|[_.\-])(?i:secrets?)(?:{_KEY_REST})?)"
)
_KEY_CHARS = r"[A-Za-z0-9_.\-\x{80}-\x{10FFFF}]+"
"""Every character a key name above can hold (any non-ASCII character: ``hasło``, ``пароль``, the
long s and Kelvin sign that ``(?i:s)`` and ``(?i:k)`` also match; one range, where ``\\pL`` would
swell the parse programs past RE2's fast group engine), and none a separator (``_SEP``) can start with."""
_KEY_START = r"[^:\r\n]?"
"""The character a key's match may begin with, in front of the key (``secret`` is matched with the character
before it, which must not be ``:``)."""
_RND = r"[A-Za-z0-9+/=_\-~]"
_RND_NO_DIGIT = r"[A-Za-z+/=_\-~]"


def _with_digit(chars: str, no_digit: str, first: str = "") -> str:
    """16+ of ``chars`` with a digit, DFA-friendly: counted from the run's start, or from its
    first digit (``[0-9]chars{15,}`` after any character would make the DFA remember every digit
    position of the last 15 characters: exponential states)."""
    first = first or chars
    return rf"(?:{first}{chars}{{14,}}[0-9]{chars}*|{no_digit}*[0-9]{chars}{{15,}})"


def _loose_with_digit(chars: str, no_digit: str, run: int = 11, side: int = 5) -> str:
    """Every run of 16+ ``chars`` with a digit, and some of 11-15, for ``verify="random"`` patterns
    (their Python side then requires a random 16+ run). :func:`_with_digit` misses a run of 16-30
    whose digits all sit in its middle (``ItvnSYNREgl4eSrth-odHP``); here a digit with 11+
    characters before it, the first digit with 11+ after it, or a digit with 5+ on each side. Three
    counted alternatives cover every 16+ run with a digit and nothing shorter than 11 (a brute-force
    check over digit positions; the exact "16+ with a digit" union has 16 alternatives and
    ~1,800 instructions: RE2 would read the groups with its slow NFA), so the Collector, which
    cannot verify, leaves dates (``2025-06-01``) and short ids alone. ``run=7, side=3``: every run
    of 10+ with a digit, nothing under 7 (webhook path segments such as Slack's ``T05ENIL7EB5``)."""
    return rf"(?:{chars}{{{run},}}[0-9]{chars}*|{no_digit}*[0-9]{chars}{{{run},}}|{chars}{{{side},}}[0-9]{chars}{{{side},}})"


_RANDOM = _loose_with_digit(_RND, _RND_NO_DIGIT)
"""Token characters with a digit, 16+ on the Python side (``.`` is not one: a file name is not a value)."""

# RFC 7235 auth-params after an Authorization scheme (``Digest username="a", response="..."``,
# ``AWS4-HMAC-SHA256 Credential=..., Signature=...``): the whole list is the credential.
_AUTH_PARAM = r"[A-Za-z0-9_\-]+=(?:\"[^\"\r\n]*\"|[^\s,\"']*)"
_AUTH_PARAMS = rf"{_AUTH_PARAM}(?:[ \t]*,[ \t]*{_AUTH_PARAM})*"

# What stands between an Authorization header's name and its value: ``:``/``=``/``=>`` (raw HTTP, dicts, an env
# var's header list, Ruby's and PHP's hashes: ``{"authorization"=>["Basic .."]}``), a space and a quote (nginx), a (name, value) object's value member (HAR, Postman, Polly.js:
# ``"name": "authorization", "value": "..."``, Envoy's ``key:``/``value:`` lines) and a YAML list item (vcrpy and
# Ruby VCR cassettes: ``Authorization:\n  - ...``).
_AUTH_SEP = (
    r"[\"']?[ \t]*(?:=>|[:=])[ \t]*\[?[ \t]*[\"']?|[ \t]+[\"']|[\"'][ \t]*,?\s*[\"']?(?i:value)[\"']?[ \t]*:[ \t]*[\"']?"
    r"|:[ \t]*\r?\n[ \t]*-[ \t]+"
)

# A cookie string given as a (name, value) object's value, or echoed by a console on the line after the expression
# (DevTools ``> document.cookie`` / ``< '...'``, Node's REPL).
_COOKIE_ECHO = r"[\"'][ \t]*,[ \t]*[\"'](?i:value)[\"'][ \t]*:|\r?\n(?:<|=>|Out\[[0-9]+\]:)"

# A form input's label that names a credential (``description='HF token:'``, ``type="password"``).
_INPUT_LABEL_WORDS = r"(?i:pass(?:word|phrase|code)|token|api[ _\-]?key|secret|credentials?)"

# A command whose output is a secret: it names one, or it is a password manager's read (pass, gopass, 1Password's
# ``op read``/``op item get``, Bitwarden's ``bw get``, ``keyring get``).
_PRINTS_SECRET = (
    r"(?i:secret|token|passw(?:or)?d|api[_\-]?key|credentials?|_key\b|_pat\b)"
    r"|\b(?:go)?pass[ \t]|\bop[ \t]+(?:read|item)|\bbw[ \t]+get|\bkeyring[ \t]+get"
)

# The quotes that open a value in prose of other scripts.
_OPEN_QUOTES = "'\"`«「『“„"

# A value given in prose: any printable run but the characters that end a phrase or start a key's value.
_PHRASE_VALUE = r"[A-Za-z0-9+/_\-~!#%^?@&$.]"
_PHRASE_VALUE_NO_DIGIT = r"[A-Za-z+/_\-~!#%^?@&$.]"

# Command lines: a long option that names a secret (``--password x``, ``--client-secret=x``,
# ``'--token', 'x'`` in an argv list), ``-p<password>`` / ``-p <password>`` (mysql, docker login)
# and ``-u user:password`` (curl).
# The next argv item as each trace prints the list: ``', '`` (reprs, JSON, strace), auditd's ``" a2="`` fields and
# ``/proc/PID/cmdline``'s NUL; and a command line continued with ``\`` between option and value.
_ARG_GAP = r"(?:=|[ \t]+|['\"](?:[ \t]*,[ \t]*|[ \t]+a[0-9]{1,3}=)['\"]|\x00|[ \t]+\\\r?\n[ \t]*['\"]?)"
_OPTION_WORDS = r"pass(?:word|wd|phrase)?|pwd|secret(?:-string)?|token|api-?key|access-key|secret-key|auth-key|credentials?"

# The secret words of the small rules for separators other syntaxes write (each its own rule: widening ``_SEP``
# pushes the keyword rules' ``parse`` programs past RE2's 512-instruction BitState limit).
_SHORT_KEY = (
    r"(?i:pass(?:word|wd|phrase)?|pwd|secret|token|credentials?"
    r"|(?:api|access|private|secret|signing|encryption|master|license|app|auth)[_\-]?key)"
)
# A quote and a separator as escapes write them: HTML's numeric and named entities (``&#34;``, ``&#x27;``, ``&#61;``),
# JavaScript's ``\x22``/``\x3d``, JSON's ``\u0022``/``\u003d`` and a backslash before a single quote (a dict's repr
# inside a single-quoted string: ``'{\'password\': \'..\'}'``).
_ESCAPED_QUOTE = r"(?:&#0*3[49];|&#[xX]0*2[27];|&quot;|&apos;|\\x2[27]|\\u002[27]|\\')"
_ESCAPED_SEP = r"(?:&#0*(?:61|58);|&#[xX]0*3[AaDd];|\\x3[AaDd]|\\u003[AaDd])"

# Webhook URLs carry their secret in the path: after a hook-like segment, the first long
# segment with a digit and everything after it in the path go.
# A value a parser echoes in its error (``rejected_input_echo``): no quote, space, escape, ``:``, ``/``, ``@`` or ``<>``.
_ECHO_CHAR = r"[^\s'\"\\:/@<>]"
_HOOK_SEGMENT = r"hooks?|services|webhooks?|webhookb2|workflows|triggers?|catch|integrations?|incoming"
_SEG = r"[A-Za-z0-9_\-]"


# A type or encoding word between a device config's secret keyword and its value (and kickstart's ``rootpw --plaintext``).
_DEVICE_TYPE_WORD = r"(?i:[0-9]{1,3}|enc|ascii(?:-text)?|cleartext|--plaintext|--iscrypted|hex|md5|sha[0-9]*|aes|des|3des|local|remote)"


def _connection_string(name: str, key: str, end: str, trigger: str, description: str) -> SecretPattern:
    # a quoted value opens no placeholder or mask either (``password="${env:KAFKA_SECRET}";``, ``"<secret>"``, ``"***"``)
    value = (
        r"(?:\{(?:[^}\r\n]|\}\})*\}|\"(?:[^\"\r\n{\[<*$]|\$[^{(A-Z\"\r\n]|\"\")(?:[^\"\r\n]|\"\")*\""
        r"|'(?:[^'\r\n{\[<*$]|\$[^{(A-Z'\r\n]|'')(?:[^'\r\n]|'')*'"
        r"|[^\s;'\"{\[<*(][^\s;]*?|\$[^{(\sA-Z;][^\s;]*?)"
    )
    return SecretPattern(name, "keyword", key + value + end, True, description, True, ("pwd", "pass"), trigger=trigger)


def _provider(
    name: str,
    regex: str,
    hints: tuple[str, ...],
    description: str,
    *,
    keep_prefix: bool = False,
    trigger: str = "",
) -> SecretPattern:
    return SecretPattern(name, "provider", regex, keep_prefix, description, hints=hints, trigger=trigger)


def _shape_rules(
    name: str, description: str, shapes: tuple[tuple[str, tuple[str, ...], str], ...], limit: int = 290
) -> list[SecretPattern]:
    """Provider rules of several documented value shapes ``(regex, hints, trigger)``, packed in order into
    patterns of at most ``limit`` characters (``name``, ``name_2``, ...): a rule with no separator runs on every
    plain value in the Collector (Go's NFA), so each stays short (``test_collector_guard``)."""
    groups: list[list[tuple[str, tuple[str, ...], str]]] = [[]]
    for shape in shapes:
        if groups[-1] and len("(?:" + "|".join(r for r, _, _ in groups[-1] + [shape]) + ")") > limit:
            groups.append([])
        groups[-1].append(shape)
    return [
        _provider(
            name if i == 0 else f"{name}_{i + 1}",
            "(?:" + "|".join(r for r, _, _ in group) + ")",
            tuple(h for _, hints, _ in group for h in hints),
            description,
            trigger="|".join(t for _, _, t in group),
        )
        for i, group in enumerate(groups)
    ]


# A signature header's items (``signature_items``): a timestamp (``t=<epoch>``), a versioned or algorithm-named
# signature (``v1=<hex>``, ``sha256=<hex>``, ``v1,<base64>``) or a bare one; after a space only a named one (Standard
# Webhooks' ``v1,<a> v1,<b>``), so the words after a bare signature are not taken.
_SIG_SHORT = r"[A-Za-z][A-Za-z0-9]{0,7}=[0-9]{1,13}"
_SIG_LONG = r"(?:[A-Za-z][A-Za-z0-9]{0,7}[=,])?[A-Za-z0-9+/_\-%~]{20,}={0,2}"
_SIG_LONG_NAMED = r"[A-Za-z][A-Za-z0-9]{0,7}[=,][A-Za-z0-9+/_\-%~]{20,}={0,2}"
_PASSWORD_HINTS = ("pass", "pw", "secret", "credential", "paß", "mdp")
# The value of a (name, value) pair: one character a word or a sentence would not have (a digit, a symbol, a
# capital inside a word), as a token value; "Expired" and "This password is too common." are a message's words.
_PAIR_STRONG = r"(?:[0-9+/=~!@#^:]|[A-Za-z][A-Z])"
_PAIR_VALUE = rf"(?:{_PAIR_STRONG}|[^'\"\s\[*$<{{%][^'\"\r\n]*?{_PAIR_STRONG})[^'\"\r\n]*"
# A pair's value opens with a quote, or with a quote and a second one inside it (a string literal whose text is
# itself a literal: generated source); it closes with the same and a ``)``, or, opened by two, at the end of its line.
# Between two members of a record: one a line (``\n`` also written as an escape inside a string), or a comma.
_COOKIE_MEMBER_GAP = r"(?:[ \t]*,[ \t]*|[ \t]*(?:\r?\n|\\n)[ \t]*(?:-[ \t]+)?)"
_PAIR_OPEN = r"(?:b?\\?[\"']|[\"']\\?[\"'])"
_PAIR_CLOSE = r"\\?[\"'](?:\\?[\"'])?[ \t]*\)|\\?[\"']\\?[\"'][ \t]*(?:\r?\n|$)"
# A (name, value) object's members as HAR, Postman, Insomnia, .NET configs, Kubernetes env lists and CLI JSON
# write them: the member that names the field (``"name": "x-api-key"``, ``"key": "apiKey"``, 1Password's
# ``"label": "credential"``, CloudFormation's ``"ParameterKey"``, Elastic Beanstalk's ``"OptionName"``, a credential's
# declared type: Keycloak's ``{"type": "password", "value": ..}`` in an admin event, HTML's ``type="password"``), then its
# value member (``"value": "..."``, Android's ``android:value``, ``"ParameterValue"``), whose value may be wrapped
# in OTLP JSON's AnyValue (``"attributes": [{"key": "db.password", "value": {"stringValue": "..."}}]``).
_FIELD_NAME = (
    r"(?i:\b(?:name|key|field|param(?:eter)?|property|label|type|(?:parameter|option)(?:name|key)))"
    r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
)
_FIELD_VALUE_INTRO = (
    # a type member may stand between name and value (``aws ssm get-parameter``'s ``"Name": "/prod/db/password",
    # "Type": "SecureString", "Value": "..."``, a typed variable's ``"type": "string"``)
    r"\\?[\"']?[ \t]*,?\s*(?:\\?\"(?i:type)\\?\"[ \t]*:[ \t]*\\?\"[A-Za-z]*\\?\"[ \t]*,\s*)?"
    r"\\?[\"']?(?:[A-Za-z]+:)?(?i:(?:parameter|option)?value)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
)
# OTLP JSON's AnyValue around a secret-named attribute's value; only there: under the names the random rule reads
# (``session.id``, semconv's browser and mobile session) an OTLP attribute holds an id, which RE2 alone cannot tell.
_OTLP_STRING_VALUE = r"(?:\{\s*\\?\"stringValue\\?\"[ \t]*:[ \t]*\\?\")?"
# A Secret's data block from its first value: the rest of that line and every indented line after it.
_K8S_DATA_BLOCK = r"[^\s\[{<$*#][^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*"
_TOKEN_HINTS = (
    "token", "key", "signature", "pat", "sig", "bearer", "salt",
    "jeton", "clé", "cle", "clave", "chave", "schlüssel", "schluessel", "токен", "ключ", "令牌", "密钥", "トークン", "キー", "토큰", "키",
)
_TOKEN_TRIGGER_WORDS = f"(?i:token|key|signature|pat|sig|bearer|verifier|response|salt)|{_FOREIGN_TOKEN_TRIGGER}"


# A secret named by its object and held in the object's ``value`` member: ``"client_secret": {"value":
# "ek_...", "expires_at": ...}`` (OpenAI Realtime's client secret), ``"password": {"value": "..."}``.
# Or a value a constructor or an optional wraps as printed (Swift's ``Optional("...")``, ``SecretStr('...')``, Rust's
# ``Some("...")``, and ``{:#?}``'s ``Some(`` with the value on the next, indented line), or the address gdb prints
# before a C string (``password = 0x5555555592c0 "..."``). Or a member named by the host the credential is for: Composer's ``auth.json`` (``"bearer": {"repo.example.org":
# "..."}``, ``"github-oauth": {"github.com": "..."}``), registries' credential maps.
_VALUE_MEMBER = r"(?:\{[ \t]*\\*[\"'](?:value|[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+(?::[0-9]+)?)\\*[\"'][ \t]*:[ \t]*|[A-Z][A-Za-z]+\((?:[ \t]*\r?\n[ \t]*)?|0x[0-9a-fA-F]+[ \t]+)?"


# --- values inside a serializer's type and length marks (the twenty-fifth set, ``typed``) ---------------------------
# A key in serialized data whose last word names a credential (``dbPassword``, ``rpc-password``, ``db/password``,
# ``ClientSecret``, ``StorageAccountKey``, ``api_key_v2``); nothing after that word but a version, so a setting
# about the secret (``password_min_length``, ``token_ttl``, ``apiKeyId``, ``ClientSecretExpiry``) is no such key.
_TYPED_WORD = (
    r"(?i:pass(?:word|wd|phrase)?|pwd|secret|token|credentials?|apikey"
    r"|(?:api|access|secret|private|auth|signing|client|account|shared[_\-]?access|master|encryption)[_\-]?key)"
)
_TYPED_KEY = rf"[A-Za-z0-9_.\-/]*{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?"
# A value there: not a mask, a placeholder or a reference at its start (``*``, ``[``, ``<``, ``$``, ``%``, ``{``),
# and one character a word would not have (a digit or a symbol), so ``Bearer``, ``xxxxxxxx`` and a type's name stay.
_TYPED_STRONG = r"[0-9+/=~!@#^:%?*]"
_TYPED_VALUE_DQ = rf"[^\"'\\\s*\[<$%{{][^\"'\\\r\n]*?{_TYPED_STRONG}[^\"'\\\r\n]*"
# A value inside another language's string delimiters (long brackets, triple quotes, raw strings): as above, and no
# ``]`` (a long bracket's close).
_NOTATION_VALUE = rf"[^\]\"'\\\s*\[<$%{{][^\]\"'\\\r\n]*?{_TYPED_STRONG}[^\]\"'\\\r\n]*"
_TYPED_VALUE_XML = rf"[^<\s*\[$%{{][^<\r\n]*?{_TYPED_STRONG}[^<\r\n]*"
# One escape of a byte as a bytes repr or ``redis-cli`` prints binary data (``\x8c``, ``\x00``, ``\0``, ``\n``, and
# a length byte that is a quote or a backslash: ``\"``). Only a byte that does not print: a printable one is
# printed as itself there, and ``\x22`` is a text's escape of its quote (nginx's ``escape=default``).
_BYTE_ESC = r"\\(?:x(?:[01][0-9a-fA-F]|7[fF]|[89a-fA-F][0-9a-fA-F])|[0nrt\"'\\])"


_ESC_KEY = r"(?i:pass(?:word|wort|wd|phrase)?|pwd|secret|token|api[_\-]?key|apikey|(?:access|secret|private|auth|signing|client)[_\-]?key|credentials?)"
"""The secret words the ``escaped`` set's rules read (the last word of a key, before the escaped separator or quote)."""


# What editors put between a credential's label and its value (the twenty-sixth set, ``richtext``): markup closing the
# label and opening the value, and the typography keyboards and editors insert. The key: a label's last word (``API
# key``, ``Client secret``, ``DB_PASSWORD``, French ``mot de passe``), also with an invisible character inside it.
_MARKUP_KEY = (
    "(?i:pass(?:word|wort|wd|phrase)|mot[ \u00a0]de[ \u00a0]passe|secret|token"
    r"|api[ _\-]?key|(?:access|secret|private|signing|client|license)[ _\-]?key|credentials?)"
)
# Typographic spaces and invisible characters (no-break, narrow no-break, thin, figure, zero-width, word joiner, soft
# hyphen, BOM): what an editor leaves where a person typed a space, or inside a word.
_MARKUP_TYPO = "[\u00a0\u202f\u2009\u2007\u200b\u2060\u00ad\ufeff]"  # the characters themselves: Python's parser reads no ``\x{..}``
# The document-tree vocabulary of rich-text JSON (Atlassian Document Format, Notion's rich text, Slack's Block Kit):
# the member names and values between one text node and the next; any other member name ends the gap.
_MARKUP_JSON_WORDS = (
    r"type|text|marks|strong|code|style|bold|italic|em|content|annotations|link|href|plain_text|color|default"
    r"|underline|strikethrough|elements|rich_text_section|attrs"
)
# ``password`` or ``api key`` with an invisible character inside (a soft hyphen from a word processor's hyphenation, a zero-width
# space or word joiner a chat client inserts): itself the markup, so plain separators may follow.
_MARKUP_SPLIT_KEY = "(?i:pass[\u00ad\u200b\u2060]word|api[ _\\-]?[\u00ad\u200b\u2060][ _\\-]?key)"
# HTML's element names (inline, block, list and table elements) and namespaced XML elements (Word's ``w:t``, Outlook's
# ``o:p``, Confluence's ``ac:parameter``): a closed set, so ``<redacted>``, ``<hidden>`` or ``<your-key>`` after a key
# are a mask or a placeholder, not a tag.
_MARKUP_TAG = (
    r"</?(?:[A-Za-z]+:[A-Za-z\-]+|(?i:p|b|i|u|s|em|strong|code|tt|kbd|samp|var|mark|span|div|font|small|big|sup|sub|a"
    r"|br|pre|blockquote|td|th|tr|table|tbody|thead|dl|dt|dd|li|ul|ol|h[1-6]|label))(?:[ \t][^<>\r\n]*)?/?>"
)
# One piece of markup other than emphasis stars: Markdown's code marks, strikethrough and escapes, a code fence with
# its info string, a description list's ``::``, a table's ``||`` and a cell marker at a line's start, HTML/XML tags
# and CDATA's opening, the no-break entities, RTF's formatting control words and a group's end, Jira's ``{{``/
# ``{color:..}``, a JSON tree's vocabulary, typography. Braces, brackets and a single ``|`` are plain (JSON's and a
# template's punctuation, a scheme's ``{SSHA}``, an INI section's ``[``).
_MARKUP = (
    rf"\\(?:b|i|ul|f|fs|cf|par|pard|tab|line|plain|highlight)[0-9]{{0,4}} ?|\\?`|\\?_+[:=`|]|`{{3}}[A-Za-z0-9_+\-]*"
    rf"|[ \t]::[ \t]|\|\||\|[ \t]*=|\r?\n[ \t]*[|!]|\}}|\{{\{{|{_MARKUP_TAG}|<!\[CDATA\[|&(?:nbsp|#160|#[xX][aA]0|ensp|emsp|thinsp|#8203);"
    rf"|\{{(?:color(?::[#0-9A-Za-z]+)?|noformat|code(?::[A-Za-z]+)?)\}}|\"(?:{_MARKUP_JSON_WORDS})\"|:[ \t]*(?:true|false|null)|{_MARKUP_TYPO}"
)
# Emphasis: one or two stars (also escaped), never three (``***``, ``****..X9SM``: a mask) and never right before the
# value (the value follows a star only as a mask's tail).
_MARKUP_STARS = r"(?:\\?\*){1,2}"
# What may stand between the pieces: spaces, a separator, JSON's quotes, commas, braces and brackets, a single ``|``,
# an arrow, a line break.
_MARKUP_PLAIN = r"[ \t:=,\"\-→{\[\]|]|\r?\n"
_MARKUP_NOT_STAR = rf"{_MARKUP_PLAIN}|{_MARKUP}"
# The gap: plain pieces, then one piece of markup, then any pieces; stars only between other pieces.
_MARKUP_GAP = (
    rf"(?:{_MARKUP_PLAIN})*(?:{_MARKUP}|{_MARKUP_STARS}(?:{_MARKUP_NOT_STAR}))(?:{_MARKUP_NOT_STAR}|{_MARKUP_STARS}(?:{_MARKUP_NOT_STAR}))*"
)
_MARKUP_BODY = r"[A-Za-z0-9+/=_\-.~!#%^*?@]"
_MARKUP_FIRST_SYM = r"[+/_\-.~!#%^?@]"
# The value: a letter and a digit (not a count, a word or a placeholder), no mask's or reference's opening.
_MARKUP_VALUE = (
    rf"(?:[A-Za-z]{_MARKUP_BODY}*?[0-9]|[0-9]{_MARKUP_BODY}*?[A-Za-z]"
    rf"|{_MARKUP_FIRST_SYM}{_MARKUP_BODY}*?(?:[A-Za-z]{_MARKUP_BODY}*?[0-9]|[0-9]{_MARKUP_BODY}*?[A-Za-z])){_MARKUP_BODY}*"
)

def _kv(name: str, key: str, description: str) -> SecretPattern:
    """``key<sep>value`` with a double-quoted, single-quoted or bare value, in one regex (the key
    alternation is the costly part, so it is evaluated once). Groups: key+separator, the opening
    ``"`` (with an optional list bracket and JSON escape), the opening ``'``: kept in front; the
    terminator after a bare value: kept after."""
    value = _password_value if key == _PASSWORD_KEY else _token_value
    dq = r"(\[?[ \t]*[b@]?\\*\")" + value('"')[1:]  # x-api-key=["..."], \"password\":\"...\", \\\"..., Objective-C @"..."
    sq = r"(\[?[ \t]*b?')" + value("'")[1:]  # b'...': a bytes repr (botocore, ASGI headers)
    regex = rf"({key}{_SEP}{_VALUE_MEMBER})(?:{dq}|{sq}|{value('')})"
    parse = rf"({_KEY_START}{_KEY_CHARS}{_SEP}{_VALUE_MEMBER})(?:{dq}|{sq}|{value('')})"
    hints = _PASSWORD_HINTS if key == _PASSWORD_KEY else _TOKEN_HINTS
    words = _PASSWORD_TRIGGER_WORDS if key == _PASSWORD_KEY else _TOKEN_TRIGGER_WORDS
    trigger = rf"(?:{words}){_KEY_VERSION}{_SEP_TRIGGER}"
    suffix = 2 if key == _TOKEN_KEY else 1  # a token's wrapped line end, the bare value's terminator
    return SecretPattern(name, "keyword", regex, 3, description, suffix, hints, trigger=trigger, parse=parse)


# --- credentials in human-written text (the fourteenth set, ``prose``) ---------------------------
# A value as people type it in chat, tickets and mail: no space, quote, bracket or list punctuation; not starting
# like a placeholder or a mask; not ending in sentence punctuation (``Password is x.``); a letter and a digit.
_HV_CHAR = r"[^\s'\"`<>()\[\]{}|,;\\‘’“”]"
_HV_FIRST = r"[^\s'\"`<>()\[\]{}|,;\\‘’“”$%*/]"  # not ``/``: a path (``the token endpoint is /oauth2/token``)
_HV_LAST = r"[^\s'\"`<>()\[\]{}|,;\\‘’“”.:!?]"
# What follows the value (kept): a space, sentence punctuation, a closing quote or bracket, Markdown, the end; not
# ``\\`` (an escaped quote inside a quoted value, the keyword rules' to read whole).
_HV_END = r"(?:([ \t.,;:!?)\]}>'\"`’”*|])|(?m:$))"  # a line end is not consumed: the next line's rules may start there
_HV = rf"(?:{_HV_FIRST}{_HV_CHAR}*)?(?:[A-Za-z]{_HV_CHAR}*[0-9]|[0-9]{_HV_CHAR}*[A-Za-z])(?:{_HV_CHAR}*{_HV_LAST})?"
# What people call a credential in prose (``pw``, ``creds``, ``the sandbox key``, ``shared secret``).
# ... or the same between a pair of quotes (the quotes go with it: a quote of the other kind inside is the keyword rules';
# a backtick or a typographic quote may open it, its closer ends it).
_HV_QUOTED = rf"(?:\"{_HV}\"|'{_HV}'|[`‘“]?{_HV})"
_HANDOFF_WORDS = (
    r"pass(?:word|wd|phrase|code)?|pwd?|psk|pin|secret|token|credentials?|creds"
    # ``key`` alone names too much that is no credential (``cache key``, ``primary key``, ``Idempotency-Key``)
    r"|(?:api|access|secret|private|license|product|wi-?fi|setup|ssh|deploy|sandbox|test|bot|admin|root|signing|encryption"
    r"|master|vpn|staging|prod|live|new|old|current|leaked|compromised|temp|temporary|the|this|my|your|our)[ _\-]?key"
    r"|pre-?shared[ _\-]key|shared[ _\-]secret"
)
# Before the word: the start, a space or Markdown (``*Token:*``, ``__Secret__``, ``> password``), not ``-``, ``.``,
# ``:`` or a word's ``_`` (``Idempotency-Key:``, ``arn:..:secret:name``, ``server.ssl.key-store-password``,
# ``reason=invalid_password attempts=4``): Markdown's ``_`` opens after a space or the start.
_HANDOFF_BEFORE = r"(?:^|[\s(>*~\[|\"'`])_*"
# Between the word and the value: a copula after a few words (``Password for the staging box is``, ``token, new one
# is``), a separator in Markdown emphasis or an arrow or dash (``*Token:*``, ``→``, ``➡️``, `` — ``), ``to`` after a
# verb (``changed the root pw to``), a parenthesised qualifier and a colon, an opening parenthesis (``token (..)``),
# a verb of typing (``password, enter ..``), a short word's bare space (``pw ..``, ``pass ..``).
_HANDOFF_GAP = (
    r"(?:,?[ \t]+[(A-Za-z0-9_.'\-]+){0,4}?,?[ \t]+(?i:is|was|are|became|will[ \t]+be|it'?s)(?:[ \t]+(?i:now|still|just))?[ \t]*:?[ \t]+"
    r"|'s[ \t]+(?i:now)[ \t]+"
    r"|[*_]*[ \t]*(?::|->|=>|→|➡️?|—|–|[ \t]-)[ \t]*[*_]*[ \t]*"  # not ``=``: ``key=value`` is the keyword rules'"
    r"|(?:[ \t]+[A-Za-z0-9_.'\-]+){1,4}?[ \t]+(?:=|->|=>|→|➡️?)[ \t]+"  # words between: a sentence, not ``key=value``
    r"|(?:[ \t]+(?i:is|was|has[ \t]+been|got))?[ \t]+(?:(?i:set|changed|reset|rotated|updated)[ \t]+)?(?i:to|as)[ \t]+"
    r"|[ \t]*\([A-Za-z \t]+\)[ \t]*:[ \t]*"
    r"|[ \t]*\([ \t]*"
    r"|(?:,?[ \t]+[A-Za-z']+){0,3}?,?[ \t]+(?i:enter|type|paste)[ \t]+"
)
_HANDOFF_LEAD = r"(?i:here'?s|here[ \t]+is|new|old|current|temporary|temp)[ \t]+(?:(?i:the|your|my|our|a)[ \t]+)?(?:[A-Za-z\-]+[ \t]+)?"
_SEED_CONTEXT = (
    r"(?i:pass[ \-]?phrase|(?:seed|recovery|backup|secret|wallet|unlock)[ \t\-](?:phrase|words)|mnemonic|bip-?39)"
    r"|[0-9]{2}[ \t\-](?i:words?)"
)
_SEED_WORD = r"(?:[0-9]{1,2}[.)][ \t]*)?[a-z]{3,8}"
# A dashed key's group (4-6 capitals or digits), one with a digit, one of capitals only: a license key has a digit in some
# group (``XXXXX-XXXXX-..`` and ``ABCD-EFGH-IJKL`` are formats, not keys).
_KEY_GROUP = r"[A-Z0-9]{4,6}"
_KEY_GROUP_LETTERS = r"[A-Z]{4,6}"
_KEY_GROUP_DIGIT = r"(?:[0-9][A-Z0-9]{3,5}|[A-Z][0-9][A-Z0-9]{2,4}|[A-Z]{2}[0-9][A-Z0-9]{1,3}|[A-Z]{3}[0-9][A-Z0-9]{0,2}|[A-Z]{4}[0-9][A-Z0-9]?|[A-Z]{5}[0-9])"
_CODE_ITEM = r"[A-Za-z0-9]*[0-9][A-Za-z0-9]*(?:[ \-][A-Za-z0-9]*[0-9][A-Za-z0-9]*)?"


# A Markdown table whose header names the secret's column: the header cell, the separator row, and the first data
# row's cell in the same column (the column counted by the cells before it, up to three).
_TABLE_WORD = r"`?(?i:[A-Za-z ]*(?:pass(?:word|wd|phrase)?|pwd|pw|secret|token|api[ _\-]?key|key|credentials?))`?"


def _table_column(before: int) -> str:
    cells = rf"(?:[^|\r\n]*\|){{{before}}}" if before else ""
    return (
        rf"((?m:^)[ \t]*\|?{cells}[ \t]*{_TABLE_WORD}[ \t]*(?:\|[^\r\n]*)?\r?\n"
        rf"[ \t]*\|?[ \t]*:?-{{3,}}:?[ \t]*\|[^\r\n]*\r?\n[ \t]*\|?{cells}[ \t]*`?)"
    )

PATTERNS: Final[tuple[SecretPattern, ...]] = (
    # --- private keys ------------------------------------------------------------------------------
    SecretPattern(
        "private_key_block",
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s\\:,.]|-[A-Za-z0-9])*"
        r"(?:-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----)?",
        False,
        "PEM (PKCS#1/#8, EC, encrypted) and OpenSSH private keys, also with JSON-escaped newlines; "
        "a truncated block is removed up to where its base64 ends.",
        hints=("-----begin",),
        trigger=r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY",
    ),
    SecretPattern(
        "openvpn_static_key",
        "private_key",
        r"-----BEGIN OpenVPN Static key V1-----[\s0-9a-fA-F]*(?:-----END OpenVPN Static key V1-----)?",
        False,
        "OpenVPN's static key (``--secret``, ``tls-auth``, ``tls-crypt``): 2048 bits in hex lines between its armour.",
        hints=("-----begin openvpn",),
        trigger=r"-----BEGIN OpenVPN Static key",
    ),
    SecretPattern(
        "der_private_key_base64",
        "private_key",
        # base64 of the DER header: SEQUENCE, version 0 and the RSA modulus (PKCS#1), the AlgorithmIdentifier
        # (PKCS#8), version 3 (PKCS#12 PFX); SEC1 EC, Ed25519 and EC PKCS#8; OpenSSH's ``openssh-key-v1`` magic
        r"(?:MII[A-Za-z0-9+/]{2}[AQgw]IB(?:AzCC|AAKC|ADAN)|MHcCAQEEI|MC4CAQAwBQYDK2VwBCIEI|MIG[A-Za-z0-9+/]AgEAMB"
        r"|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]*(?:(?:\\n|\r?\n[ \t]*)[A-Za-z0-9+/=]{8,})*",
        False,
        "A private key's base64 body without its PEM armour (printed from a variable, a PKCS#12 bundle under any "
        "name, a body split over lines), known by the base64 of its DER or OpenSSH header (PKCS#1, PKCS#8, "
        "PKCS#12, SEC1, ``openssh-key-v1``); certificates and public keys have other headers and stay.",
        hints=("mii", "mhccaqeei", "mc4caqaw", "mig", "b3blbnnzac1rzxktdje"),
        trigger=r"MII[A-Za-z0-9+/]{2}[AQgw]IB(?:AzCC|AAKC|ADAN)|MHcCAQEEI|MC4CAQAwBQYDK2VwBCIEI|MIG[A-Za-z0-9+/]AgEAMB|b3BlbnNzaC1rZXktdjE",
    ),
    SecretPattern(
        "putty_private_lines",
        "private_key",
        r"(Private-Lines:[ \t]*[0-9]+[ \t]*\r?\n)[A-Za-z0-9+/=]+(?:\r?\n[A-Za-z0-9+/=]+)*(\r?\n|$)",
        True,
        "A PuTTY ``.ppk`` key's private lines (``Private-Lines: N`` and the base64 lines after it); the public lines stay.",
        keep_suffix=True,
        hints=("private-lines:",),
    ),
    SecretPattern(
        "hex_private_key_dump",
        "private_key",
        r"(\((?:aes|des|arcfour|camellia|rc4)[A-Za-z0-9\-]*\)[ \t]+\(0x)[0-9A-Fa-f]{16,}"
        r"|((?m:^)[ \t]*(?:priv|privateExponent|prime[12]|exponent[12]|coefficient):[ \t]*\r?\n)"
        r"[ \t]*[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}|:\r?\n[ \t]*[0-9a-fA-F]{2})*:?",
        2,
        "Key bytes printed in hex: a Kerberos key after its encryption type (``klist -k -K``: ``(aes256-cts-hmac-sha1-96) "
        "(0x<hex>)``) and the private parts of ``openssl pkey -text`` (``priv:``, ``privateExponent:``, ``prime1:``, ...) "
        "as colon-separated lines; ``pub:``, ``modulus:`` and fingerprints stay.",
        hints=("(0x", "priv", "prime", "exponent", "coefficient"),
        trigger=r"\)[ \t]+\(0x[0-9A-Fa-f]|(?:priv|privateExponent|prime[12]|exponent[12]|coefficient):[ \t]*\r?\n",
    ),
    SecretPattern(
        "jwk_private_member_any_order",
        "private_key",
        r"(\"(?:d|p|q|dp|dq|qi)\"[ \t]*:[ \t]*\")[A-Za-z0-9_\-]{40,}",
        True,
        "A JWK's private member (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``) with a key-sized base64url value (40+), "
        "wherever ``kty`` stands (``jq -S`` sorts ``crv`` and ``d`` before it).",
        hints=('"d"', '"p"', '"q"', '"dp"', '"dq"', '"qi"'),
        trigger=r"\"(?:d|p|q|dp|dq|qi)\"[ \t]*:",
    ),
    # --- JWT ---------------------------------------------------------------------------------------
    SecretPattern(
        "jwt",
        "jwt",
        r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
        False,
        "JSON Web Tokens (JWS compact form), wherever they appear (cookies, headers, JSON).",
        hints=("eyj",),
        trigger=r"eyJ[A-Za-z0-9_\-]{8}",
    ),
    # --- URIs ----------------------------------------------------------------------------------------
    SecretPattern(
        "uri_userinfo_password",
        "uri",
        # the password does not open a template's placeholder (``{FRIGATE_RTSP_PASSWORD}``, ``${DB_PASSWORD}``,
        # ``<password>``): a config that fills it in at run time holds no value
        r"(\b[A-Za-z][A-Za-z0-9+.\-]{0,30}:/{1,2})[^\s/:@'\"\[]*:(?:[^\s/'\"\[*{<$]|\$[^\s/'\"\[*{<@])[^\s/'\"]*(@)",
        True,
        "URL/DSN userinfo with a password (postgresql://user:PASS@host, redis://:PASS@host, "
        "scheme:/user:PASS@host): user and password both go (public case D06: no ``svc:``); the "
        "scheme, host, port, path and query stay. A password that opens a placeholder (``{NAME}``, ``${NAME}``, "
        "``<password>``) is a template's, filled in at run time.",
        keep_suffix=True,
        hints=(":/",),
        trigger=r":/{1,2}[^\s/:@'\"\[]*:[^\s/'\"\[][^\s/'\"]*@",
    ),
    SecretPattern(
        "uri_userinfo_token",
        "uri",
        r"(\b[A-Za-z][A-Za-z0-9+.\-]{0,30}://)"
        + _loose_with_digit(r"[A-Za-z0-9_\-.~%]", r"[A-Za-z_\-.~%]")
        + "(@)",
        True,
        "A token used as the URL user with no password (https://<token>@host, Sentry DSN keys); a "
        "plain user name (``postgresql://app_readonly@db/x``) stays.",
        keep_suffix=True,
        hints=("://",),
        verify="random",
        trigger=r"://[A-Za-z0-9_\-.~%]{16,}@",
    ),
    SecretPattern(
        "schemeless_userinfo_password",
        "uri",
        r"((?:^|[\s<(\[='\",])[A-Za-z0-9_.\-]{1,64}:)[^\s@/:'\"<>\[\]]{6,}"
        r"(@(?:[A-Za-z0-9\-]+\.)*[A-Za-z0-9\-]+(?::[0-9]{1,5}(?:[/\s>'\",;)\]]|$)|/))",
        True,
        "``user:password@host:port/path`` printed without its scheme, as libraries that keep the authority apart "
        "print it (xmlrpc's ``<ProtocolError for bot:pw@host:8080/RPC2: 401 ..>``, ``ServerProxy`` reprs): a port or "
        "a path after the host says authority, so ``git@host:org/repo`` (no ``:`` before the ``@``) and "
        "``image:tag@sha256:..`` stay; Python also needs a password's or a random shape.",
        keep_suffix=True,
        hints=("@",),
        verify="credential",
        trigger=r"[A-Za-z0-9_.\-]:[^\s@/:'\"<>\[\]]{6}[^\s@/:'\"<>\[\]]*@[A-Za-z0-9\-.]+(?::[0-9]|/)",
    ),
    SecretPattern(
        "password_tail_as_host",
        "uri",
        # A URL whose password holds an unencoded ``@`` is split at the first one (libpq, PyMySQL, Prisma, pgbouncer):
        # the password's rest becomes the host name the driver quotes ("could not translate host name
        # \"ssword@db.internal\"", "failed to resolve host 'r1@localhost'", "Can't connect to MySQL server on
        # '#sip@localhost'"). No host name holds an ``@``: what precedes the host's in such a quoted name goes.
        # (a tail opening with ``[`` is a mask already: ``"[REDACTED]@db"``)
        r"((?i:\bhost(?: ?name)?|\bserver(?: host| on| at)?)[ \t]+[\"'`])(?:[^\"'`\s\[][^\"'`\s]{0,256}?)?[^\"'`\s@\[]"
        r"(@[A-Za-z0-9_.\-\[\]:%]+[\"'`])",
        True,
        "The tail of a password with an unencoded ``@`` that a driver printed as the host name it could not resolve "
        "(``could not translate host name \"<tail>@db\"``, ``Can't connect to MySQL server on '<tail>@host'``): the "
        "quote's text before its last ``@`` goes, the host stays.",
        keep_suffix=True,
        hints=("host", "server"),
        trigger=r"(?i:host|server)[^\"'`\n]{0,12}[\"'`][^\"'`\s]*@",
    ),
    SecretPattern(
        "libpq_unparsed_dsn_word",
        "keyword",
        r"(missing \"=\" after \")[^\"\r\n\[][^\"\r\n]{0,255}(\" in connection info string)",
        True,
        "The word libpq could not parse in a keyword DSN, which it quotes back (``missing \"=\" after \"<word>\" in "
        "connection info string``, psycopg2's ``invalid dsn: …``): in practice the tail of a password with a space in "
        "it (psycopg/psycopg2 #87).",
        keep_suffix=True,
        hints=("connection info string",),
    ),
    SecretPattern(
        "webhook_path_secret",
        "uri",
        rf"(/(?i:{_HOOK_SEGMENT})/(?:[^/\s?#'\"<>]*/)*?)"
        + _loose_with_digit(_SEG, r"[A-Za-z_\-]", run=7, side=3)
        + r"[^\s?#'\"<>]*",
        True,
        "Webhook URLs whose path is the secret (Slack, Discord, Teams, Mattermost, ...): after a "
        "``/hooks/``, ``/services/``, ``/webhook(s)/``... segment, the first segment of 10+ characters with a "
        "digit (Slack's team id) and the rest of the path go (Python: when that rest looks random); the "
        "host, the marker and short segments before it stay.",
        hints=("/hook", "/services/", "/webhook", "/workflows/", "/trigger", "/catch/", "/integration", "/incoming/"),
        verify="random",
    ),
    SecretPattern(
        "mcp_endpoint_path_secret",
        "uri",
        r"(/)" + _loose_with_digit(_SEG, r"[A-Za-z_\-]") + r"(/(?i:mcp|sse)(?:[/?#\s'\"<>)\]]|$))",
        True,
        "A remote MCP server's URL that carries its secret as the path segment in front of the transport "
        "endpoint (``https://mcp.zapier.com/api/mcp/s/<secret>/mcp``, ``/<key>/sse``): a random segment of "
        "16+ characters with a digit (Python: random-looking, not a UUID) right before ``/mcp`` or ``/sse``.",
        keep_suffix=True,
        hints=("/mcp", "/sse"),
        verify="random",
    ),
    SecretPattern(
        "node_rpc_path_key",
        "uri",
        # (an Ethereum node provider's JSON-RPC URL: oceanprotocol/provider #287, 0xPolygon/cdk-erigon #1529)
        r"(://[A-Za-z0-9.\-]*(?i:rpc|node|infura|alchemy|quiknode|ankr)"
        r"[A-Za-z0-9.\-]*(?::[0-9]+)?/(?:[A-Za-z0-9_.\-]{1,40}/){0,3}|(?:^|[\s'\"=(:])/v[0-9]{1,2}/)"
        + _loose_with_digit(_SEG, r"[A-Za-z_\-]") + r"((?:[/?#\s'\"<>)\],]|$))",
        True,
        "A blockchain node provider's project key as a path segment of its JSON-RPC URL (Infura's "
        "``https://mainnet.infura.io/v3/<key>``, Alchemy's ``/v2/<key>``, Ankr's ``/eth/<key>``, QuickNode's "
        "``/<token>/``): on a host naming an RPC or node service, a random segment of 16+ characters with a digit "
        "(Python: random-looking, not a UUID); the host and the segments before it stay. A path printed without its "
        "host (urllib3's \"Max retries exceeded with url: /v3/<key>\") loses the random segment right after its "
        "``/v<N>/``.",
        keep_suffix=True,
        hints=("rpc", "node", "infura", "alchemy", "quiknode", "ankr", "/v"),
        verify="random",
        # the host's word, or ``/v<N>/`` and the 11 segment characters every random segment starts with (the hints alone
        # ran the rule on every ``/v1/orders`` and ``node_modules``: 154 bench lines, none matched)
        trigger=r"://[A-Za-z0-9.\-]*(?i:rpc|node|infura|alchemy|quiknode|ankr)|/v[0-9]{1,2}/[A-Za-z0-9_\-]{11}",
    ),
    # --- headers -------------------------------------------------------------------------------------
    SecretPattern(
        "authorization_header",
        "header",
        rf"((?i:(?:proxy[_\-]?)?authorization)(?:{_AUTH_SEP})[ \t]*"
        r"[A-Za-z][A-Za-z0-9_.\-]{0,30}(?:[ \t]+|%20))"
        rf"(?:{_AUTH_PARAMS}|[^\s'\"\\\[\]<>{{}}$%,*][^\s'\"\\\],]*)(?:{_WRAPPED})?",
        True,
        "The credential of an Authorization header with any scheme (Bearer, Basic, Bot, Token, SSWS, ApiKey, "
        "AWS4-HMAC-SHA256, ...); an already masked value (``****``, ``[REDACTED]``) is left alone; "
        "in raw HTTP, header dicts and span attributes, a proxy's directive (nginx ``proxy_set_header Authorization "
        "\"Basic ...\"``); a value wrapped onto the next line goes whole.",
        keep_suffix=True,
        hints=("authorization",),
        trigger=r"(?i:authorization)(?:[\"']?[ \t]*[:=,]|[ \t]+[\"'])",
    ),
    SecretPattern(
        "authorization_header_bare",
        "header",
        rf"((?i:(?:proxy[_\-]?)?authorization)(?:{_AUTH_SEP})[ \t]*)"
        r"[A-Za-z0-9+/_\-.~:]{16,}=*",
        True,
        "A scheme-less Authorization value (a raw token).",
        hints=("authorization",),
        trigger=rf"(?i:authorization)(?:{_AUTH_SEP})[ \t]*[A-Za-z0-9+/_\-.~:]{{16}}",
    ),
    SecretPattern(
        "otlp_exporter_headers",
        "header",
        r"((?i:otel[_.]exporter[_.]otlp(?:[_.][a-z]+)?[_.]headers)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:[^\s,=\"']+=[^\s,\"']*,[ \t]*)*?[^\s,=\"']+=)"
        + _RANDOM
        + r"[^\s,\"']*",
        True,
        "The OTLP exporter's header list (``OTEL_EXPORTER_OTLP[_SIGNAL]_HEADERS=k=v,k=v``, Java's "
        "``otel.exporter.otlp.headers``; OpenTelemetry SDK environment variables): the headers a backend authenticates "
        "with, under any vendor's name (``x-honeycomb-team=<key>``, ``api-key=<license key>``); the first random value "
        "goes (Python: random-looking), a tenant or dataset name stays.",
        hints=("otlp",),
        verify="random",
    ),
    SecretPattern(
        "bearer_token",
        "header",
        rf"(\b(?i:bearer)[ \t]+)[A-Za-z0-9\-._~+/]{{16,}}[A-Za-z0-9\-._~+/=]*(?:{_WRAPPED})?",
        True,
        "A bearer token anywhere in text (``Bearer <token>``), even without the header name, and its wrapped rest.",
        keep_suffix=True,
        hints=("bearer",),
        trigger=r"(?i:bearer)[ \t]+[A-Za-z0-9\-._~+/]{16}",
    ),
    SecretPattern(
        "negotiate_token_bare",
        "header",
        r"(\b(?i:negotiate)[ \t]+)" + _loose_with_digit("[A-Za-z0-9+/]", "[A-Za-z+/]") + "={0,2}",
        True,
        "A SPNEGO (Kerberos or NTLM) token after the ``Negotiate`` scheme without its header's name (requests-kerberos' "
        "``Authorization header: Negotiate ..``, a proxy's log of it): base64 with a digit; Python requires a random run "
        "of 16+ (``Negotiate authentication failed`` stays).",
        hints=("negotiate",),
        verify="random",
        trigger=r"(?i:negotiate)[ \t]+[A-Za-z0-9+/]{11}",
    ),
    SecretPattern(
        "basic_credentials_bare",
        "header",
        r"(\b(?:Basic|BASIC)(?:[ \t]+|\+))" + _loose_with_digit("[A-Za-z0-9+/]", "[A-Za-z+/]") + "={0,2}",
        True,
        "HTTP Basic credentials without their header's name, as access logs write a logged request header (Apache's "
        "``\"%{Authorization}i\"``, HAProxy's captured ``{Basic ..|..}``, IIS's ``cs(Authorization)``): base64 with a "
        "digit; Python requires a random run of 16+ (``Basic authentication failed`` stays).",
        hints=("basic",),
        verify="random",
        trigger=r"(?:Basic|BASIC)(?:[ \t]+|\+)[A-Za-z0-9+/]{11}",
    ),
    # --- provider tokens that keyword shapes could split -------------------------------------------
    SecretPattern(
        "aws_access_key_id",
        "provider",
        r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}\b"
        # and the secret key printed beside it, not under a key name: ``--output text`` columns, positional
        # arguments (ClickHouse ``s3(url, 'AKIA..', '<secret>')``); a ``"`` or ``=`` between means named fields
        r"(?:[^\r\n\"=]*?[\s',;|:][A-Za-z0-9+/]{40}(?:([^A-Za-z0-9+/=])|$))?",
        False,
        "AWS access key IDs (AKIA..., ASIA... temporary), and a secret access key (40 base64 characters) "
        "later on the same line without a key name between (CLI text output, positional arguments): "
        "the key id, what stands between and the secret go together. Before the keyword shapes, so Python reads "
        "the pair before a column name (``ACCESSKEY``) takes the key id as its value (the Collector, one leftmost "
        "pass, cannot: docs/scrubbing.md).",
        keep_suffix=True,
        hints=("akia", "asia", "abia", "acca"),
    ),
    # before the modular crypt rule: ``{CRYPT}$6$..`` goes whole (the Collector applies the rules in turn)
    SecretPattern(
        "password_hash_scheme",
        "provider",
        r"\{(?:S?SHA(?:256|512)?|S?MD5|CRYPT|(?:SHA256|SHA512|MD5|BLF|DES)-CRYPT|PLAIN|CLEARTEXT|CRAM-MD5"
        r"|PBKDF2(?:-SHA(?:1|256|512))?|ARGON2I?D?|NTLM)\}[^\s'\"<>\[][^\s'\"<>]{5,}"
        r"|SCRAM-SHA-(?:1|256)\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+|\bmd5[0-9a-f]{32}\b|(\*)[0-9A-F]{40}\b",
        True,
        "Password hashes named by their scheme: LDAP/Dovecot prefixes (``{SSHA}``, ``{SHA512-CRYPT}``, ``{PLAIN}``), "
        "PostgreSQL's ``SCRAM-SHA-256$<iterations>:<salt>$<stored>:<server>`` and ``md5<hex>``, MySQL's ``*<40 HEX>`` "
        "(its ``*`` kept: a value that starts with one reads as a mask).",
        hints=("{", "scram-sha-", "md5", "*"),
        trigger=r"\{(?:S?SHA|S?MD5|CRYPT|SHA256-|SHA512-|MD5-|BLF-|DES-|PLAIN|CLEARTEXT|CRAM-|PBKDF2|ARGON2|NTLM)"
        r"|SCRAM-SHA-|md5[0-9a-f]{32}|\*[0-9A-F]{40}",
    ),
    SecretPattern(
        "password_hash",
        "provider",
        r"(?:\$(?:1|2[abxy]|5|6|7|y|gy|apr1|md5|sha1|pbkdf2(?:-sha(?:1|256|512))?|argon2(?:id|i|d)|scrypt|krb5tgs|krb5asrep|krb5pa)\$"
        r"|\b(?:pbkdf2_sha(?:1|256)|argon2|bcrypt(?:_sha256)?|scrypt)\$)(?:[^$\s'\"<>]*\$){0,6}[A-Za-z0-9./+=]{20,}"
        r"|grub\.pbkdf2\.sha512\.[0-9]+\.[0-9A-Fa-f]+\.[0-9A-Fa-f]+",
        False,
        "Password hashes in modular crypt form (crackable offline, so secret): ``/etc/shadow``'s ``$6$``/``$5$``/"
        "``$y$``/``$1$``, htpasswd ``$apr1$``, bcrypt ``$2b$``, passlib ``$pbkdf2-sha256$``, ``$argon2id$``, "
        "``$scrypt$``, mosquitto ``$7$``, Kerberos roast hashes ``$krb5tgs$``, Django's ``pbkdf2_sha256$..`` and GRUB's "
        "``grub.pbkdf2.sha512..``.",
        hints=("$", "grub.pbkdf2."),
        trigger=r"\$(?:1|2[abxy]|5|6|7|y|gy|apr1|md5|sha1|pbkdf2[\-a-z0-9]*|argon2[a-z]*|scrypt|krb5[a-z]+)\$|pbkdf2_sha|argon2\$"
        r"|bcrypt|scrypt\$|grub\.pbkdf2\.",
    ),
    _provider(
        "vendor_token_shapes",
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}|\boy2[a-z0-9]{43}\b|\b(?:bkua|sq[pua])_[0-9a-f]{40}"
        r"|\b0\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9]{30}:[A-Za-z0-9+/]{22}==",
        ("access_token$", "oy2", "bkua_", "sq", "0."),
        "Provider tokens of documented shapes: Braintree/PayPal ``access_token$production$..``, NuGet ``oy2..``, "
        "Buildkite ``bkua_`` and SonarQube ``sqp_``/``squ_``/``sqa_`` over hex (no object's id), Bitwarden Secrets "
        "Manager ``0.<uuid>.<secret>:<key>``.",
        trigger=r"access_token\$|oy2[a-z0-9]{20}|bkua_|sqp_|squ_|sqa_|0\.[0-9a-f]{8}-",
    ),
    _provider(
        "vendor_prefixed_uuid",
        r"\b(?:pat-(?:na|eu)1|xaat|xapt|access-(?:production|sandbox|development)|sdk)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        ("pat-", "xaat-", "xapt-", "access-", "sdk-"),
        "Tokens that are a vendor's prefix and a UUID: HubSpot ``pat-na1-``, Axiom ``xaat-``/``xapt-``, Plaid "
        "``access-production-``, LaunchDarkly ``sdk-``.",
        trigger=r"pat-na1-|pat-eu1-|xaat-|xapt-|access-production-|access-sandbox-|access-development-|sdk-[0-9a-f]{8}-",
    ),
    _provider(
        "vendor_token_shapes_2",
        r"\bsk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}|\bfigd_[A-Za-z0-9_\-]{40,}"
        r"|\bpdl_(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}|\bv1\.0-[0-9a-f]{24}-[0-9a-f]{146}",
        ("sk.eyj", "figd_", "pdl_", "v1.0-"),
        "Mapbox secret tokens ``sk.eyJ..``, Figma ``figd_``, Paddle ``pdl_live_apikey_``, Cloudflare Origin CA ``v1.0-..``.",
        trigger=r"sk\.eyJ|figd_|pdl_|v1\.0-[0-9a-f]{24}-",
    ),
    _provider(
        "vendor_token_shapes_3",
        r"\bcmVmdGtu[A-Za-z0-9]{40,}|\bxkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}|\bshp(?:ss|ca|pa)_[0-9a-fA-F]{32}"
        r"|\bdbt[cu]_[A-Za-z0-9_\-]{40,}|\bsgp_(?:[0-9a-f]{16}_)?[0-9a-f]{40}|\bCCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}",
        ("cmvmdgtu", "xkeysib-", "shp", "dbt", "sgp_", "ccipat_"),
        "JFrog reference tokens (``cmVmdGtu``: base64 of ``reftkn``), Brevo ``xkeysib-``, Shopify ``shpss_``/``shpca_``/"
        "``shppa_``, dbt Cloud ``dbtc_``, Sourcegraph ``sgp_``, CircleCI ``CCIPAT_``.",
        trigger=r"cmVmdGtu|xkeysib-|shpss_|shpca_|shppa_|dbtc_|dbtu_|sgp_|CCIPAT_",
    ),
    _provider(
        "encoded_credential_blob",
        r"\{AQAAABAAAA[A-Za-z0-9+/=]{20,}\}"
        r"|\beyJ(?:1c2VybmFtZSI6|wYXNzd29yZCI6|0b2tlbiI6|hcGlfa2V5|hcGlLZXki|0eXBlIjoic2VydmljZV9hY2NvdW50|hdXRocyI6"
        r"|hY2Nlc3NfdG9rZW4i|zZWNyZXQi|jbGllbnRfc2VjcmV0|wcml2YXRlX2tleSI6|yZWZyZXNoX3Rva2Vu)[A-Za-z0-9+/_\-]{8,}={0,2}",
        ("{aqaaab", "eyj"),
        "Jenkins' encrypted ``{AQAAABAAAA..}`` secrets (decrypted with the controller's own key), and base64 of a JSON "
        "object that opens with a credential member, with no JWT dots (``{\"password\":``, ``{\"token\":``, "
        "``{\"type\":\"service_account\"``, docker's ``{\"auths\":``).",
        trigger=r"\{AQAAAB|eyJ(?:1c2VybmFtZSI6|wYXNzd29yZCI6|0b2tlbiI6|hcGlfa2V5|hcGlLZXki|0eXBlIjoic2VydmljZV9hY2NvdW50"
        r"|hdXRocyI6|hY2Nlc3NfdG9rZW4i|zZWNyZXQi|jbGllbnRfc2VjcmV0|wcml2YXRlX2tleSI6|yZWZyZXNoX3Rva2Vu)",
    ),
    # --- keyword shapes ------------------------------------------------------------------------------
    SecretPattern(
        "k8s_secret_data",
        "keyword",
        # Kubernetes' validation error echoing a data key's value (``data[.pgpass]: Invalid value: "<base64>"``);
        # kind first (as written by hand), then the first data/stringData key; or the data block right before
        # ``kind: Secret`` (``kubectl get -o yaml`` sorts the keys); lines of another document (``---``) do not count
        r"((?:\b|string)[dD]ata\[[^\]\r\n]+\]:[ \t]*(?:Invalid|Unsupported|Duplicate)[ \t]+value:[ \t]*\")[^\"\r\n]*"
        r"|(kind:[ \t]*Secret[ \t]*\r?\n(?:(?:[^\-\r\n][^\r\n]*)?\r?\n)*?[ \t]*(?:data|stringData):[ \t]*\r?\n"
        r"[ \t]+[A-Za-z0-9_.\-]+:[ \t]*)" + _K8S_DATA_BLOCK
        + r"|((?m:^)[ \t]*data:[ \t]*\r?\n[ \t]+[A-Za-z0-9_.\-]+:[ \t]*)" + _K8S_DATA_BLOCK + r"(\r?\nkind:[ \t]*Secret\b)",
        3,
        "A Kubernetes Secret's ``data:``/``stringData:`` block, whatever its keys are named (``config.json: <base64>``): "
        "every value goes, from the first to the block's end (the first key stays); and the value a validation error "
        "echoes for a data key (``The Secret \"x\" is invalid: data[pw]: Invalid value: \"...\"``). Before the "
        "key/value shapes, which would take ``Invalid`` for ``pw``'s value.",
        keep_suffix=True,
        hints=("secret", "value:"),
        trigger=r"kind:[ \t]*Secret|\]:[ \t]*(?:Invalid|Unsupported|Duplicate)[ \t]+value:",
    ),
    SecretPattern(
        "connection_string_spaced_password",
        "keyword",
        r"(;[ \t]*(?i:pwd|password|passwd)[ \t]*=[ \t]*)[^\s;'\"{\[<*(=$%][^;\r\n\"'=]*?[ \t][^;\r\n\"'=]*?(;|[\"'\r\n]|$)",
        True,
        "A keyword connection string's password with spaces in it (ADO.NET, Npgsql and ODBC read an unquoted value to "
        "the ``;``: ``Host=db;Username=app;Password=correct horse battery;Database=shop``): the value runs to the "
        "``;``, a closing quote or the line's end, never over a following ``key=``.",
        keep_suffix=True,
        hints=("pwd", "pass"),
        trigger=r";[ \t]*(?i:pwd|password|passwd)[ \t]*=[^;\r\n]*[ \t]",
    ),
    _connection_string(
        "connection_string_password",
        r"(;[ \t]*(?i:pwd|password|passwd)[ \t]*=[ \t]*)",
        r"(;|\s|$)",
        r";[ \t]*(?i:pwd|password|passwd)[ \t]*=",
        "Keyword connection strings (ODBC/ADO/JDBC-style ``Server=...;Uid=...;Pwd=...;``): the value "
        "runs to the ``;`` or whitespace that ends it, so ``&``, ``$`` and quotes inside it go too; "
        "``{...}`` (ODBC, ``}}`` escaped), ``\"...\"`` and ``'...'`` (ADO, doubled quote escaped) "
        "values end at their closing brace or quote.",
    ),
    _connection_string(
        "connection_string_password_first",
        r"((?:^|[\s\"'{(])(?i:pwd|password|passwd)[ \t]*=[ \t]*)",
        r"(;)",
        r"(?i:pwd|password|passwd)[ \t]*=[^\r\n]*;",  # no value alternative holds a line break
        "The same when the password is the first keyword (``Pwd=...;Server=...``): the value must end "
        "at a ``;`` (``password=os.environ['X']`` is code, not a connection string).",
    ),
    SecretPattern(
        "concatenated_literal_secret",
        "keyword",
        rf"({_SHORT_KEY}[\"']?[ \t]*(?::=|=|:)[ \t]*\(?[ \t]*(?:\r?\n[ \t]*)?)"
        r"\"[A-Za-z0-9+/=_\-.~]{8,}\"(?:[ \t]*\+?[ \t]*\r?\n[ \t]*\+?[ \t]*\"[A-Za-z0-9+/=_\-.~]{8,}\")+",
        True,
        "A secret-named value written as string literals concatenated over lines (``KEY = (\"..\"\\n \"..\")``, "
        "``\"..\" +\\n \"..\"``): every piece goes; literals with spaces (a message split over lines) stay. Before the key/value shapes, "
        "which would take the first piece alone.",
        hints=("\"",),
        trigger=r"\"[ \t]*\+?[ \t]*\r?\n[ \t]*\+?[ \t]*\"",
    ),
    # a passphrase of words goes whole, before the password rule takes its first word (``passphrase: w1 w2 ..``)
    SecretPattern(
        "prose_seed_phrase",
        "keyword",
        rf"((?:{_SEED_CONTEXT})(?:[ \t]+[A-Za-z0-9()\-']+){{0,6}}?[ \t]*(?:[:=—–]|[ \t](?i:is|are|was|were))\s*)"
        r"(?:['\"“‘][a-z]{3,12}(?:[ \t\-][a-z]{3,12}){3,}(?:[ \t][0-9]{1,4})?['\"”’]"
        r"|[a-z]{4,12}(?:[ \t\-][a-z]{4,12}){3,}(?:[ \t][0-9]{1,4})?(?m:$)"
        rf"|{_SEED_WORD}(?:\s+{_SEED_WORD}){{11,}})",
        True,
        "A seed phrase or a passphrase of words after its name: ``seed phrase: <12 words>``, ``Mnemonic (24 words): "
        "..``, ``the vault passphrase is '<words>'``, a numbered list of words: four or more words quoted, or of four "
        "or more letters to the end of the line, else twelve or more, BIP-39's least (``passphrase is required for "
        "this key`` stays).",
        hints=("phrase", "words", "mnemonic", "bip"),
        trigger=r"(?i:phrase|mnemonic|bip-?39)|[0-9][0-9][ \t\-](?i:words?)",
    ),
    # --- what developer tools print (the twenty-third set, ``toolout``) ------------------------------------------
    SecretPattern(
        "plan_change_secret",
        "keyword",
        r"(~[ \t]+\"?[A-Za-z0-9_\-]*(?i:pass(?:word|wd)?|secret|token|key|credentials?|auth)\"?[ \t]*=[ \t]*\")"
        r"[^\"\s]+\"[ \t]*->[ \t]*\"[^\"\s]+(\")",
        1,
        "A plan's update of a secret-named attribute, ``~ password = \"<old>\" -> \"<new>\"`` (Terraform and OpenTofu "
        "``plan``, also inside a changed map: ``~ \"token\" = ..``): both values and the arrow between them become one "
        "marker (``~ password = \"[REDACTED]\"``), so that the Collector's one leftmost pass, which replaces one span a "
        "match, leaves nothing it would match again. It starts at the update marker ``~``, before the key, so that pass "
        "takes it before the keyword rules that would stop at the first value. Values with a space (a public key) stay.",
        1,
        hints=("->",),
        trigger=r"\"[ \t]*->[ \t]*\"",
    ),
    SecretPattern(
        "bracketed_dotted_key",
        "keyword",
        r"(\[[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*\.(?i:password|passwd|pwd|token|secret|api-?key)\][ \t]+)[^\s'\"\[<*$][^\s'\"]*",
        1,
        "A config listing that prints each setting as ``[dotted.key] value`` (``composer config --list``: "
        "``[http-basic.repo.example.com.password] ..``): the value after a bracketed dotted key whose last segment "
        "names a secret, unless it opens like a mask or a placeholder (``[``, ``<``, ``*``, ``$``: the marker itself "
        "too, so the Collector's pass is final). Python: a password's or a random shape.",
        hints=("password]", "passwd]", "pwd]", "token]", "secret]", "key]"),
        verify="credential",
        trigger=r"\.(?i:password|passwd|pwd|token|secret|api-?key)\][ \t]",
    ),
    SecretPattern(
        "anaconda_channel_token",
        "uri",
        r"((?i:anaconda\.(?:org|cloud|com))/t/)[A-Za-z0-9_\-]{20,}",
        1,
        "A conda channel URL with its access token as the path segment after ``/t/`` (``https://conda.anaconda.org/"
        "t/<token>/<channel>``, ``repo.anaconda.cloud/t/<token>``, as ``conda config --show`` prints them; "
        "Anaconda's documented token URL form).",
        hints=("anaconda",),
    ),
    # --- values that carry their container's escapes (the twenty-second set, ``escaped``) ---------------------
    # Before the keyword rules, which stop at the first quote or space: each of these reads the value to its real end
    # by the container's own escaping rule, and each needs that escape (the plain shapes stay with the keyword rules).
    SecretPattern(
        "escaped_quote_in_value",
        "keyword",
        rf"([\"']?[A-Za-z0-9_.\-]*{_ESC_KEY}[\"']?[ \t]*(?:=>|:=|[:=])[ \t]*\")"
        r"(?:[^\"\\`\r\n\[$<*{]|[\\`][^\"\r\n])(?:[^\"\\`\r\n]|[\\`][^\r\n])*?[\\`][\"$`](?:[^\"\\`\r\n]|[\\`][^\r\n])*(\")",
        1,
        "A double-quoted value opened by an unescaped quote that holds an escaped one: JSON's, YAML's, TOML's and a "
        "shell's ``\\\"``, ``\\$``, ``\\``` and PowerShell's backtick (``\"password\":\"ab\\\"cd\"``, "
        "``DB_PASSWORD=\"ab\\$cd\"``, ``password => \"ab\\\"cd\"``, ``$env:TOKEN = \"ab`\"cd\"``): the value ends at the "
        "unescaped quote, not at the escaped one. A value opened by an escaped quote (JSON in JSON) is the keyword rules'.",
        1,
        hints=('\\"', "\\$", "\\`", '`"', "`$", "``"),
        trigger=r"[\\`][\"$`]",
    ),
    SecretPattern(
        "escaped_quote_in_nested_json",
        "keyword",
        rf"(\\\"[A-Za-z0-9_.\-]*{_ESC_KEY}\\\"[ \t]*:[ \t]*\\\")"
        r"(?:[^\"\\\r\n\[$<*{]|\\\\\\\")(?:[^\"\\\r\n]|\\\\\\\"|\\\\\\\\|\\[^\"\\\r\n])*?\\\\\\\"(?:[^\"\\\r\n]|\\\\\\\"|\\\\\\\\|\\[^\"\\\r\n])*(\\\")",
        1,
        "JSON inside a JSON string whose value holds a quote: the inner ``\\\"`` is written ``\\\\\\\"`` there and the "
        "value's closing quote ``\\\"`` (``\"{\\\"password\\\": \\\"ab\\\\\\\"cd\\\"}\"``): the value ends at the closing one.",
        1,
        hints=('\\\\\\"',),
        trigger=r'\\\\\\"',
    ),
    SecretPattern(
        "escaped_single_quote_in_value",
        "keyword",
        rf"([\"']?[A-Za-z0-9_.\-]*{_ESC_KEY}[\"']?[ \t]*(?:=>|:=|[:=])[ \t]*')"
        r"(?:[^'\\\r\n\[$<*{]|\\[^'\r\n])(?:[^'\\\r\n]|\\[^\r\n])*?\\'(?:[^'\\\r\n]|\\[^\r\n])*(')",
        1,
        "A single-quoted value that holds a backslash-escaped quote (PHP, Perl, JavaScript, a Python repr of a value "
        "with both quotes: ``$password = 'ab\\'cd'``, ``{'password': 'ab\\'c\"d'}``): the value ends at the unescaped "
        "quote.",
        1,
        hints=("\\'",),
        trigger=r"\\'",
    ),
    SecretPattern(
        "doubled_quote_value",
        "keyword",
        rf"({_ESC_KEY}(?:\"\"[ \t]*[:=][ \t]*\"\"|''[ \t]*[:=][ \t]*''|[ \t]*=[ \t]*\"\")|--?[A-Za-z\-]*{_ESC_KEY}[ \t]+\"\")"
        r"[^\"'\s\[$<*{;,&][^\"'\r\n]*(?:\"\"[^\"'\s;,}\]][^\"'\r\n]*)*",
        1,
        "A container quoted again by doubling its quotes: JSON or ``key=\"value\"`` inside a CSV cell (``\"\"password\"\": "
        "\"\"..\"\"``, ``password=\"\"..\"\"``, ``--token \"\"..\"\"``), a dict or JSON inside an SQL string literal "
        "(``''password'': ''..''``); empty, masked and placeholder values stay.",
        hints=('""', "''"),
        trigger=r"(?:\"\"|'')[ \t]*[:=][ \t]*(?:\"\"|'')|=[ \t]*\"\"|[ \t]\"\"",
    ),
    SecretPattern(
        "cdata_secret_value",
        "keyword",
        rf"({_ESC_KEY}[\"']?(?:[ \t][^<>\r\n]*)?>(?:[ \t]*<[A-Za-z:]+>)?[ \t]*<!\[CDATA\[)"
        r"(?:[^\]\s\[$<*{]|\][^\]\r\n])(?:[^\]\r\n]|\][^\]\r\n])*(\]\]>)",
        1,
        "An XML value in a CDATA section under a secret-named element, a ``key`` attribute naming one, or its "
        "``<value>`` child (``<password><![CDATA[..]]>``, ``<entry key=\"api.token\"><![CDATA[..]]>``); empty and "
        "placeholder sections stay.",
        1,
        hints=("cdata",),
        trigger=r"<!\[CDATA\[",
    ),
    SecretPattern(
        "escaped_nul_argv",
        "keyword",
        rf"(--?[A-Za-z0-9_.\-]*{_ESC_KEY}(?:\\x00|\\0|\\u0000|\^@))"
        r"[^\\\s'\"^\[$<*{]?[^\\\s'\"^]*[0-9][^\\\s'\"^]*",
        1,
        "An option and its value in an argv dumped with its NULs escaped (``/proc/<pid>/cmdline`` as ``\\x00``, "
        "``\\0``, ``\\u0000`` or ``cat -v``'s ``^@``): ``--password\\x00<value>``; the value has a digit "
        "(``--no-password\\x00app`` is a flag and the next argument).",
        hints=("\\x00", "\\0", "\\u0000", "^@"),
        trigger=r"[A-Za-z](?:\\x00|\\0|\\u0000|\^@)",
    ),
    SecretPattern(
        "ansi_c_quoted_value",
        "keyword",
        rf"([A-Za-z0-9_.\-]*{_ESC_KEY}[ \t]*=[ \t]*\$')(?:[^'\\\r\n$\[]|\\[^\r\n])(?:[^'\\\r\n]|\\[^\r\n])*(')",
        1,
        "A value in a shell's ANSI-C quotes, ``$'..'``, which may hold ``\\'``, ``\\x21``, ``\\t`` "
        "(``DB_PASSWORD=$'ab\\'cd'``, ``--password=$'..'``, bash's ``declare -x``); a ``$'$VAR'`` stays.",
        1,
        hints=("$'",),
        trigger=r"=[ \t]*\$'",
    ),
    SecretPattern(
        "backslash_escaped_value",
        "keyword",
        rf"([ \t]?[A-Za-z0-9_.\-]*{_ESC_KEY}[ \t]*=)"
        r"(?:[^\s'\"\\\[$<*{]|\\[^\r\n'\"])(?:[^\s'\"\\]|\\[^\r\n])*?\\[ !&;()|<>'\"`$](?:[^\s'\"\\]|\\[^\r\n])*",
        1,
        "A bare shell value that escapes a space or a special with a backslash (``DB_PASSWORD=ab\\ cd``, "
        "``--password=ab\\!cd``): the value goes on past the escaped character. It may start at the space before the "
        "key, so that the Collector's leftmost pass prefers it to the option rule, which starts there too.",
        hints=("\\",),
        trigger=r"=[^\s'\"]*\\[ !&;()|<>'\"`$]",
    ),
    SecretPattern(
        "quoted_printable_value",
        "keyword",
        rf"({_ESC_KEY}[ \t]*=)(?:3D[ \t]*(?:=22|\"|')|3A(?:=20)+)"
        r"(?:[^=\s\"'<>]|=(?:[013-9A-F][0-9A-F]|2[013-9A-F]))*[0-9](?:[^=\s\"'<>]|=(?:[013-9A-F][0-9A-F]|2[013-9A-F]))*",
        1,
        "A value in a quoted-printable mail body (RFC 2045): ``password=3D=22..=22``, ``api_key =3D \"..\"``, "
        "``password=3A=20..``; the value ends at a space, a quote or ``=22`` and has a digit. The encoded separator goes "
        "with it (``password=[REDACTED]=22``), as the keyword rules take ``=3D..``: no rule reads the rest as a value.",
        hints=("=3d", "=3a"),
        trigger=r"=3D[ \t]*(?:=22|\"|')|=3A=20",
    ),
    SecretPattern(
        "encoded_word_value",
        "keyword",
        rf"(=\?[A-Za-z0-9\-]+\?[Qq]\?(?:[^?\s]*?_)?{_ESC_KEY}(?:_is_|=3A_?|=3D))"
        r"(?:[^=\s?_]|=[0-9A-F]{2})*[0-9](?:[^=\s?_]|=[0-9A-F]{2})*",
        1,
        "A secret in an RFC 2047 encoded word (a mail header: ``=?UTF-8?Q?Your_password_is_..?=``, "
        "``Passwort=3A_..``); the value ends at ``_`` (a space) or ``?=`` and has a digit.",
        hints=("?q?",),
        trigger=r"\?[Qq]\?",
    ),
    SecretPattern(
        "url_encoded_separator_value",
        "keyword",
        rf"({_ESC_KEY}(?:%3[Aa]|%253[Aa])(?:%20|%2520|\+)+(?:%22|%2522)?)"
        r"(?:[A-Za-z0-9_.~!*@^#\-]|%(?:[013-9A-Fa-f][0-9A-Fa-f]|2[13-57-9A-Fa-f]))*[0-9]"
        r"(?:[A-Za-z0-9_.~!*@^#\-]|%(?:[013-9A-Fa-f][0-9A-Fa-f]|2[13-57-9A-Fa-f]))*",
        1,
        "A value after its name and an URL-encoded ``: `` (``password%3A%20..``, ``client_secret%3A%20..%20rejected``, "
        "``api_key%3A%20%22..%22``), as a message or a JSON body travels in a query string; the value has a digit.",
        hints=("%3a",),
        trigger=r"%(?:25)?3[Aa](?:%20|%2520|\+)",
    ),
    SecretPattern(
        "encoded_url_userinfo",
        "uri",
        r"((?i:%3A%2F%2F|%253A%252F%252F))"
        r"[A-Za-z0-9._~\-]+(?i:%3A|%253A)(?:[^\s&\"'%@/?#]|%[013-9A-Fa-f][0-9A-Fa-f]|%2[0-9A-Ea-e]|%25[0-9A-Fa-f]{2})+?"
        r"((?i:%40|%2540))",
        1,
        "A URL with a password nested, URL-encoded once or twice, in another URL's parameter "
        "(``?next=https%3A%2F%2Fuser%3A<pw>%40host``): user and password go, as in a plain URL.",
        1,
        hints=("%3a%2f%2f", "%253a%252f%252f"),
    ),
    SecretPattern(
        "toml_multiline_string_value",
        "keyword",
        rf"({_ESC_KEY}[ \t]*=[ \t]*(?:'''|\"\"\"))[^'\"\s\[$<*{{][^'\"\s]*",
        1,
        "A TOML multi-line string that opens and holds the value on the key's line (``token = '''..'''``, "
        "``password = \"\"\"..``); placeholders stay.",
        hints=("'''", '"""'),
    ),
    SecretPattern(
        "html_input_value",
        "keyword",
        rf"(name=(?:\"|'|&quot;|&#34;|&#x22;)[A-Za-z0-9_.\-]*{_ESC_KEY}(?:\"|'|&quot;|&#34;|&#x22;)[^<>\r\n]*?[ \t]value="
        r"(?:\"|'|&quot;|&#34;|&#x22;))[^\"'&<>\s\[$*{][^\"'&<>\r\n]*",
        1,
        "An HTML form field named for a secret with its value (``<input name=\"password\" value=\"..\">``, also "
        "entity-escaped): attributes may stand between; an empty value stays.",
        hints=("value=",),
        trigger=r"[ \t](?i:value)=",
        verify="credential",
    ),
    # --- values inside a serializer's type and length marks (the twenty-fifth set, ``typed``) -----------------------
    SecretPattern(
        "typed_wrapper_value",
        "keyword",
        rf"(\\?[\"']{_TYPED_KEY}\\?[\"'][ \t]*:[ \t]*\{{\s*\\?[\"'](?:[SB]|str|string|bytes|(?i:string|bytes)_?[Vv]alue)"
        rf"\\?[\"'][ \t]*:[ \t]*\\?[\"']){_TYPED_VALUE_DQ}",
        1,
        "A secret-named member whose value is wrapped in its serializer's type tag one object below: DynamoDB's "
        "attribute values (``\"password\": {\"S\": \"...\"}``), Firestore's REST documents and protobuf's ``Struct`` "
        "in JSON (``{\"stringValue\": ...}``), Avro's JSON unions (``{\"string\": ...}``).",
        hints=("value", "\"s\"", "string", "bytes", "\"b\"", "str"),
        trigger=r"\{\s*\\?[\"'](?:[SB]|str|string|bytes|(?i:string|bytes)_?[Vv]alue)\\?[\"'][ \t]*:",
        verify="credential",
    ),
    SecretPattern(
        "struct_field_value",
        "keyword",
        rf"(\bkey:[ \t]*\"{_TYPED_KEY}\"\s*value[ \t]*:?[ \t]*\{{\s*(?:string|bytes)_value:[ \t]*\"){_TYPED_VALUE_DQ}",
        1,
        "A protobuf ``Struct`` field in the text format and as Go's ``%v`` prints it (``fields { key: \"password\" "
        "value { string_value: \"...\" } }``, ``fields:{key:\"token\" value:{string_value:\"...\"}}``): the value "
        "under a secret-named key.",
        hints=("_value:",),
        trigger=r"(?:string|bytes)_value:",
        verify="credential",
    ),
    SecretPattern(
        "xml_name_value_elements",
        "keyword",
        rf"((?:<(?:[A-Za-z]+:)?(?i:name|key)>[ \t]*{_TYPED_KEY}[ \t]*</(?:[A-Za-z]+:)?(?i:name|key)>\s*"
        rf"<(?:[A-Za-z]+:)?(?i:value)\b[^<>]*>\s*(?:<(?:string|base64)>)?"
        rf"|<[A-Za-z][A-Za-z0-9]{{0,7}}[ \t]+N=\"{_TYPED_KEY}\"[^<>]*>)){_TYPED_VALUE_XML}",
        1,
        "A value in XML that names it in a sibling element or a name attribute: an XML-RPC struct's "
        "``<member><name>password</name><value><string>...</string></value></member>`` (also untyped), a .NET "
        "DataContract dictionary's ``<a:Key>ClientSecret</a:Key><a:Value>...</a:Value>``, PowerShell CLIXML's "
        "``<S N=\"Password\">...</S>`` (``Export-Clixml``, remoting errors).",
        hints=("value", " n="),
        trigger=r"</(?:[A-Za-z]+:)?(?i:name|key)>\s*<(?:[A-Za-z]+:)?(?i:value)\b|<[A-Za-z][A-Za-z0-9]{0,7}[ \t]+N=\"",
        verify="credential",
    ),
    SecretPattern(
        "length_prefixed_value",
        "keyword",
        rf"({_TYPED_KEY}(?:\\?\";|\|)s:[0-9]+:\\?\"){_TYPED_VALUE_DQ}"
        rf"|([0-9]+:{_TYPED_KEY}[1-9][0-9]*:)[^\s:'\"*\[<$%{{][^\s:'\"]*?[0-9+/=~!@#^%?][^\s:'\"]*",
        2,
        "A value after its length in a serialization that counts bytes: PHP ``serialize()`` (``s:8:\"password\";"
        "s:14:\"...\";``, also JSON-escaped in a Laravel job's payload), PHP session data (``api_token|s:40:\"...\";``), "
        "bencode (``8:password16:...``; ``0:`` is an empty value). RE2 cannot count: a bencoded value ends at the next "
        "``:``.",
        hints=("s:", ":"),
        trigger=rf"{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?(?:\\?\";|\|)s:[0-9]|{_TYPED_WORD}[0-9]+:",
        verify="credential",
    ),
    SecretPattern(
        "escaped_binary_value",
        "keyword",
        rf"({_BYTE_ESC}[A-Za-z0-9_.\-]*{_TYPED_WORD}[A-Za-z0-9]{{0,2}}\\(?:x(?:[01][0-9a-fA-F]|7[fF]|[89a-fA-F][0-9a-fA-F])|0)[^\\\s\[<*]{{0,2}}?"
        rf"(?:{_BYTE_ESC}[^\\\s\[<*]{{0,2}}?){{0,7}}?)[^\\\s'\"*\[<$%{{][^\\\s'\"]{{7,}}",
        1,
        "A value beside its key in a binary serialization printed as text (a Python ``bytes`` repr, ``redis-cli``'s "
        "quoted reply): MessagePack (``\\xa8password\\xb0...``), BSON (``\\x02token\\x00)\\x00\\x00\\x00...``), pickle "
        "(``\\x8c\\x08password\\x94\\x8c\\x10...``), Java serialization (``t\\x00\\x08passwordt\\x00\\x10...``): the "
        "type and length bytes between them are escapes or at most two printable bytes each, so a following field's "
        "name (three or more letters) is never crossed, nor a mask's opening ``[``, ``<`` or ``*``.",
        hints=("\\x", "\\0"),
        trigger=rf"{_TYPED_WORD}[A-Za-z0-9]{{0,2}}\\(?:x[0-189a-fA-F7]|0)",
        verify="credential",
    ),
    SecretPattern(
        "lisp_keyword_value",
        "keyword",
        rf"((?:(?:^|[\s(\[{{,]):(?:[A-Za-z0-9_.\-]+/)?{_TYPED_KEY}[ \t]+|\(\"?{_TYPED_KEY}\"?[ \t]+\.[ \t]+)\")"
        rf"{_TYPED_VALUE_DQ}",
        1,
        "A string after a keyword in the Lisp family's data: EDN and Clojure's ``ex-info`` data (``{:db/password "
        "\"...\"}``, ``:client-secret``), Lisp property lists (Emacs ``auth-source``'s ``(:host .. :secret \"...\")``) "
        "and association lists (``(password . \"...\")``, ``(\"api_key\" . \"...\")``).",
        hints=(":", " . "),
        trigger=rf"{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?\"?[ \t]+(?:\.[ \t]+)?\"",
        verify="credential",
    ),
    # --- values in the notations of less common languages and config systems (the twenty-ninth set, ``notations``) ---
    SecretPattern(
        "alt_delimited_value",
        "keyword",
        rf"({_TYPED_KEY}(?:[ \t]*(?:[:=]{{1,3}}|\+[:=]|<-)[ \t]*|[ \t]+)(?:\[={{0,3}}\[|\"\"\"|'''|r#{{0,3}}\"))"
        rf"{_NOTATION_VALUE}(\]={{0,3}}\]|\"\"\"|'''|\"#{{0,3}})",
        1,
        "A secret-named key's value in a string literal that other languages delimit: Lua's long brackets "
        "(``token = [[...]]``, ``[==[...]==]``), triple quotes (HOCON's and Hjson's ``\"\"\"...\"\"\"``, ``'''...'''``), "
        "raw strings (KDL's ``r#\"...\"#``, Rust's and RON's ``r\"...\"``).",
        keep_suffix=1,
        hints=("[[", "[=", '"""', "'''", 'r"', "r#"),
        trigger=rf"{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?[ \t:=+<\-]*(?:\[=*\[|\"\"\"|'''|r#*\")",
        verify="credential",
    ),
    SecretPattern(
        "call_argument_value",
        "keyword",
        rf"([A-Za-z0-9_]*{_TYPED_WORD}s?\((?:[a-z][A-Za-z0-9_]*[ \t]*,[ \t]*)?(?:r#{{0,3}})?[\"'])[^\"'\\\s*\[<$%{{(][^\"'\\\s]*?{_TYPED_STRONG}[^\"'\\\s]*",
        1,
        "A string literal handed to a call named for a credential: builders and setters (``.apiKey(\"...\")``, "
        "``.password(\"...\")``, ``setClientSecret(\"...\")``, Ktor's ``BearerTokens(\"...\", ..)``), a Prolog fact or "
        "a DSL function after at most one atom (``api_key(\"...\")``, ``password(db, '...')``). "
        "One word without a blank, so a prompt (``getpass(\"Password: \")``) is none.",
        hints=("(",),
        trigger=rf"{_TYPED_WORD}s?\((?:[a-z][A-Za-z0-9_]*[ \t]*,[ \t]*)?(?:r#*)?[\"']",
        verify="credential",
    ),
    SecretPattern(
        "lisp_form_binding",
        "keyword",
        rf"((?:\([A-Za-z][A-Za-z0-9\-*!?]*[ \t]+(?:\^:?[A-Za-z\-]+[ \t]+)?['\[]?|\[)[A-Za-z0-9\-*/]*?{_TYPED_WORD}"
        rf"\*?[ \t]+\"){_TYPED_VALUE_DQ}",
        1,
        "A string bound to a secret-named symbol in a Lisp form: Clojure's ``(def ^:private api-token \"...\")``, "
        "``(defonce secret-key ..)``, a ``let`` vector (``[client-secret \"...\"]``), Emacs Lisp's "
        "``(customize-set-variable 'x-token \"...\")``, Scheme's ``define``, Common Lisp's ``(defvar *db-password* ..)``. "
        "The symbol is not the form's head: ``(get-password \"db1\")`` is a call with a name.",
        hints=(' "',),
        trigger=rf"{_TYPED_WORD}\*?[ \t]+\"",
        verify="credential",
    ),
    SecretPattern(
        "notation_separator_value",
        "keyword",
        rf"({_TYPED_KEY}[ \t]*(?:\+:|:::|<<-|<-|:[ \t]*(?:&(?:'static[ \t]+)?|(?:(?i:constant|aliased)[ \t]+){{1,2}})[A-Za-z][A-Za-z0-9_]*[ \t]*:?="
        rf"|[:=][ \t]*(?:Some|Just)\(?)[ \t]*[\"']){_TYPED_VALUE_DQ}",
        1,
        "A secret-named key's quoted value after a separator other notations use: Jsonnet's merged and visible "
        "fields (``password+: '...'``, ``secretKey::: \"...\"``), R's ``<-``, typed constants whose type carries a "
        "word or a sigil (Ada's ``Password : constant String := \"...\"``, Rust's ``DB_PASSWORD: &str = \"...\"``), an "
        "optional's constructor (Dhall's ``password = Some \"...\"``, Haskell's ``Just``; this rule stands before "
        "``password_value``, which would take the constructor's name for the value).",
        hints=("+:", ":::", "<-", "="),
        trigger=rf"{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?[ \t]*(?:\+:|:::|<-|:[ \t]*(?:&|(?i:constant|aliased)[ \t])|[:=][ \t]*(?:Some|Just))",
        verify="credential",
    ),
    SecretPattern(
        "declared_type_word_value",
        "keyword",
        rf"((?:{_TYPED_KEY}[ \t]+(?:REG_(?:SZ|EXPAND_SZ)|(?i:pic(?:ture)?)[ \t]+[XA9()0-9]+[ \t]+(?i:value))"
        rf"|(?i:set)[ \t]+(?:::)?[A-Za-z0-9_:]*\({_TYPED_KEY}\))[ \t]+[\"']?)[^\s\"'*\[<$%{{][^\s\"']*?{_TYPED_STRONG}[^\s\"']*",
        1,
        "A secret-named name's value after a word that says its type or its storage: ``reg query``'s "
        "``ClientSecret    REG_SZ    ...``, COBOL's ``05 WS-PASSWORD PIC X(24) VALUE '...'``, Tcl's "
        "``set ::env(API_TOKEN) ...`` (an array element named for a credential).",
        hints=("reg_", "pic", "set"),
        trigger=rf"{_TYPED_WORD}(?:[_.\-]?[vV]?[0-9]+)?(?:[ \t]+(?:REG_|(?i:pic))|\)[ \t])",
        verify="credential",
    ),
    SecretPattern(
        "xml_name_attribute_content",
        "keyword",
        rf"(<[A-Za-z][A-Za-z0-9:_\-]*[ \t]+(?:[A-Za-z:_\-]+=\"[^\"<>]*\"[ \t]+)*(?i:name)=\"{_TYPED_KEY}\"[^<>]*>"
        rf"\s*(?:<(?i:value)>)?)[^<\s*\[$%{{][^<\s]*?[0-9+/=~!@#^%?*][^<\s]*",
        1,
        "An XML element named for a credential by its ``name`` attribute, the value its content: ``<param "
        "name=\"token\">...</param>``, .NET settings' ``<setting name=\"ApiToken\"><value>...</value></setting>``; Python: a password's or a "
        "random shape, and not a public key's name (``name=\"public_signing_key\"``).",
        hints=("name=",),
        trigger=rf"(?i:name)=\"{_TYPED_KEY}\"",
        verify="named",
    ),
    SecretPattern(
        "multipart_field_value",
        "keyword",
        rf"((?i:content-disposition):[ \t]*form-data;[ \t]*name=\\?\"{_TYPED_KEY}\\?\"[^\r\n\\]*"
        r"(?:\r?\n|\\r\\n|\\n)(?:\r?\n|\\r\\n|\\n))[^\s\\*\[<$%{][^\r\n\\]*",
        1,
        "A ``multipart/form-data`` part named for a credential (RFC 7578): the value is the part's body, after its "
        "headers and a blank line (``Content-Disposition: form-data; name=\"client_secret\"``), also as an HTTP "
        "client's debug output escapes it (``\\r\\n``).",
        hints=("form-data",),
        trigger=r"(?i:form-data);[ \t]*name=",
        verify="credential",
    ),
    SecretPattern(
        "yaml_typed_scalar",
        "keyword",
        rf"({_TYPED_KEY}[\"']?[ \t]*:[ \t]*)!!(?:str|binary)[ \t]+"
        r"(?:\"[^\"\r\n*\[<$%{][^\"\r\n]*\"|'[^'\r\n*\[<$%{][^'\r\n]*'|[^\s\"'#*\[<$%{][^\s\"']*)",
        1,
        "A YAML value after the core schema's explicit type tag (``password: !!str ...``, ``token: !!binary ...``): "
        "the tag is not the value; tag and value become one marker (``password: [REDACTED]``), so that no rule "
        "reads the tag left alone as a value.",
        hints=("!!",),
        trigger=r":[ \t]*!!(?:str|binary)[ \t]",
    ),
    SecretPattern(
        "markup_gap_value",
        "keyword",
        # up to two characters before the key, kept: the Collector's leftmost pass must start here, not at a keyword
        # rule's match one character earlier that takes the label's closing quote as the value
        rf"([^\r\n]{{0,2}}(?:{_MARKUP_KEY}{_MARKUP_GAP}|{_MARKUP_SPLIT_KEY}(?:{_MARKUP_NOT_STAR}|{_MARKUP_STARS}(?:{_MARKUP_NOT_STAR}))*)){_MARKUP_VALUE}",
        1,
        "A credential's label and its value with an editor's markup between them, as chat, wiki, mail and document "
        "editors store it: Markdown code spans, emphasis, escapes and fences (``\\`DB_PASSWORD\\` = \\`..\\```, "
        "``| **Password** | ..``), HTML and XML tags and ``&nbsp;`` (``<b>API key</b>: <code>..</code>``, Word's "
        "``<w:t>`` runs, Outlook's paragraphs), RTF control words, Jira's ``{{..}}``, rich-text JSON trees (the label "
        "and the value in two text nodes), and typographic spaces or invisible characters around the separator or "
        "inside the key. Plain ``key: value`` is left to the keyword rules: at least one piece of markup stands between.",
        hints=("word", "wd", "passe", "secret", "token", "key", "credential"),
        trigger=rf"{_MARKUP_KEY}(?:{_MARKUP_PLAIN})*(?:[*`~\\{{}}|<&_\r\n]|{_MARKUP_TYPO}|\"(?:{_MARKUP_JSON_WORDS})\"|true|false|null|[ \t]::)|{_MARKUP_SPLIT_KEY}",
        verify="credential",
    ),
    SecretPattern(
        "signature_items",
        "header",
        # up to two characters before the key, kept: the Collector's leftmost pass must start here, not at the
        # compound-key rule's match one character earlier (``-Signature``), which takes the first item alone
        rf"([^\r\n]{{0,2}}(?:\b|[_\-~&?])(?i:signature|h?mac|sig)(?i:[_\-](?:[0-9]{{1,4}}|v[0-9]|sha[0-9]{{0,3}}))*"
        # a key not closed by a quote takes ``:`` only with a space after it: ``"hmac-sha256:<hex>"`` is one value (Vault's
        # audit HMAC), ``X-Shopify-Hmac-Sha256: <base64>`` a header
        rf"(?:\\*[\"'][ \t]*(?:=>|[:=])|[ \t]*(?:=>|=)|[ \t]*:[ \t])[ \t]*\\*[\"']?)"
        rf"(?:{_SIG_SHORT}[,;][ \t]?)*{_SIG_LONG}(?:(?:[,;][ \t]?)(?:{_SIG_LONG}|{_SIG_SHORT})|[ \t]+{_SIG_LONG_NAMED})*"
        # where a value ends (kept): a signature cut short is no match (the rest would stay)
        r"(?:([\s'\"`,;&)}\]>\\]|$))",
        True,
        "A signature's or MAC's value under its name (a webhook's ``X-Hub-Signature-256``, ``Stripe-Signature``, "
        "``webhook-signature``, ``X-Shopify-Hmac-Sha256``, Hawk's ``mac=``, an edge token's ``~hmac=``, a JSON "
        "``\"hmac\"``), all of its items: a scheme's list of a timestamp and one or more versioned signatures "
        "(``t=<ts>,v1=<hex>,v0=<hex>``, ``ts=<ts>;h1=<hex>``, ``v1,<base64> v1,<base64>``) goes whole, where the "
        "token rules stop at the first ``,``. An item needs 20+ base64/hex characters: a MAC address (``mac: "
        "00:1a:..``), ``signature_version: s3v4`` and a mail's public DKIM/ARC tag list (``v=1; a=rsa-sha256; ..``) "
        "stay. Python: random-looking.",
        keep_suffix=True,
        hints=("sig", "mac"),
        verify="random",
        trigger=r"(?i:signature|mac|sig)(?i:[_\-](?:[0-9]{1,4}|v[0-9]|sha[0-9]{0,3}))*\\*[\"']?[ \t]*[:=]",
    ),
    SecretPattern(
        "signature_next_line",
        "header",
        # the label alone at its line's end, the value alone on the next line (a debug log's multi-line record)
        r"(\b(?i:signature|h?mac|sig)(?i:[_\-](?:[0-9]{1,4}|v[0-9]|sha[0-9]{0,3}))*\\*[\"']?[ \t]*[:=][ \t]*\r?\n[ \t]*)"
        r"(?:[A-Za-z][A-Za-z0-9]{0,7}=)?[A-Za-z0-9+/_\-]{20,}={0,2}"
        r"([ \t]*(?:\r?\n|$))",
        True,
        "A signature or MAC printed on the line after its label, the value alone on that line: botocore's debug log "
        "(``botocore.auth [DEBUG] Signature:`` then the SigV4 signature in hex), a YAML ``signature:`` whose value "
        "the printer moved to the next line, also with its algorithm's name (``sha256=<hex>``). 20+ base64/hex characters; Python: random-looking (a label followed by "
        "prose or a PGP block stays).",
        keep_suffix=True,
        hints=("sig", "mac"),
        verify="random",
        trigger=r"(?i:signature|mac|sig)(?i:[_\-](?:[0-9]{1,4}|v[0-9]|sha[0-9]{0,3}))*\\*[\"']?[ \t]*[:=][ \t]*\r?\n",
    ),
    SecretPattern(
        "secret_value_list",
        "keyword",
        # up to two characters before the key, kept: the Collector's leftmost pass must start here, not at the
        # compound-key rule's match one character earlier, which takes the first item alone
        rf"([^\r\n]{{0,2}}{_LIST_KEY}['\"]?[ \t]*(?:=>|[:=])[ \t]*(?:[\[({{]?[ \t]*(?:\r?\n[ \t]*)?|\r?\n[ \t]*-[ \t]+)['\"]?)"
        rf"{_LIST_ITEM}(?:{_LIST_SEP}{_LIST_ITEM})+",
        1,
        "A list of values under a secret-named key, all of them (TOML/JSON/YAML flow arrays, Python lists, sets and "
        "tuples, YAML block lists, comma- or semicolon-separated environment and ``.properties`` values); Python keeps a list none of "
        "whose items has a credential's shape (key ids, UUIDs, digests, fingerprints, names).",
        hints=(",", ";"),
        trigger=r"(?i:keys|tokens|secrets|passwords|list)['\"]?[ \t]*[:=]",
        verify="items",
    ),
    SecretPattern(
        "parent_named_value_member",
        "keyword",
        r"(\"[A-Za-z0-9_.\-]*(?i:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\-]?key|private[_.\-]?key|credentials?)\"\s*:\s*\{"
        r"(?:\s*\"\w{1,32}\"\s*:\s*(?:\"[^\"\\\r\n]{0,64}\"|true|false|null|[0-9.]{1,20})\s*,){0,4}"
        r"\s*\"(?:value|Value)\"\s*:\s*\")[^\"\\\s\[<$*%{][^\"\\\s]{7,}",
        1,
        "A value one object below its name (``{\"api_token\": {\"sensitive\": true, \"value\": \"..\"}}``: ``terraform "
        "output -json``, typed settings): the parent's key names a credential, the child's ``value`` member holds it. "
        "Python keeps a value that is neither random-looking nor a password's shape.",
        hints=("value",),
        trigger=r"(?i:pass|pwd|secret|token|key|credential)[A-Za-z0-9_.\-]*\"\s*:\s*\{",
        verify="credential",
    ),
    SecretPattern(
        "key_list_entry_value",
        "keyword",
        r"((?:\\?\"(?:keyName|KeyName|key_name)\\?\"\s*:\s*\\?\"[^\"\\\r\n]{1,64}\\?\""
        r"(?:\s*,\s*\\?\"\w{1,32}\\?\"\s*:\s*(?:\\?\"[^\"\\\r\n]{0,64}\\?\"|[0-9a-z.]{1,20})){0,4}"
        r"\s*,\s*\\?\"(?:value|Value)\\?\"\s*:\s*\\?\"))[A-Za-z0-9+/=_~.\-]{16,}",
        1,
        "An entry of a list of keys: an object whose name member is ``keyName`` (the entry is a key, whatever it is "
        "called: ``key1``, ``primary``) and its ``value`` member, pretty-printed, compact or escaped inside a string "
        "(Azure's ``listKeys``: ``az storage account keys list``, an activity log's ``responseBody``); Python keeps a "
        "value that is neither random-looking nor a password's shape.",
        hints=("keyname", "key_name"),
        trigger=r"(?i:key_?name)\\?\"\s*:",
        verify="credential",
    ),
    SecretPattern(
        "secret_value_list_quoted",
        "keyword",
        rf"([^\r\n]{{0,2}}{_LIST_KEY}(?:['\"]?[ \t]*[:=][ \t]*|['\"][ \t]+(?i:value)[ \t]*=[ \t]*)['\"])"
        rf"{_LIST_ITEM}(?:(?:[ \t]+|[ \t]*[,;][ \t]*){_LIST_ITEM})+",
        1,
        "A quoted list under a secret-named key whose items a space separates (``API_KEYS=\"<a> <b>\"``: inside quotes a "
        "space ends no command's value), or the list in the ``value`` attribute after a ``key`` attribute naming it "
        "(.NET ``<add key=\"auth_tokens\" value=\"<a>;<b>\" />``): all of them; Python keeps a list none of whose "
        "items has a credential's shape.",
        hints=("keys", "tokens", "secrets", "passwords", "list"),
        trigger=r"(?i:keys|tokens|secrets|passwords|list)(?:['\"]?[ \t]*[:=][ \t]*|['\"][ \t]+(?i:value)[ \t]*=[ \t]*)['\"]",
        verify="items",
    ),
    _kv(
        "password_value",
        _PASSWORD_KEY,
        "password=..., PASSWORD: ..., \"password\": \"...\", 'passwd': '...', client_secret=..., libpq/ADO "
        "keyword DSNs (password=... user=...), query strings. Bare values need 4+ characters or a digit "
        "and must end at a separator (``using password: YES`` and ``os.environ['X']`` are not secrets).",
    ),
    _kv(
        "token_value",
        _TOKEN_KEY,
        'API_KEY=..., X-Api-Key: ..., "access_token": "...", ?access_token=..., AccountKey=...;, PAT=...; '
        "the value must contain a digit, capital or symbol (placeholders such as your-api-key-here survive).",
    ),
    SecretPattern(
        "yaml_multiline_value",
        "keyword",
        rf"((?:{_PASSWORD_KEY}|{_TOKEN_KEY})[\"']?[ \t]*(?::[ \t]*(?:[|>][+\-]?[0-9]?)?[ \t]*\r?\n[ \t]+(?:-[ \t]+)?"
        # a value continued on the next line: a string opener, a backslash before the line break (.properties,
        # shells, Dockerfile, make), a here-document (HCL ``<<EOT``/``<<-EOT``, Ruby ``<<~``, PHP ``<<<'EOT'``, a
        # shell's ``=- <<EOF``), or an empty ``key =`` and an indented line (configparser's continuation)
        rf"|{_CONTINUED_AFTER}))"
        # the line, unless it is a nested mapping's key (``secret:\n  name: db``, ``generic_secret:\n  secret:``):
        # a run of key characters, then ``:`` and a space or the line's end, is a key, not a value; a quote opens a
        # value unless a placeholder follows it (``"$(cat /run/secrets/x)"``); a run of key characters and a space is a
        # value and what follows it (``TOKEN=\\\n  <value> ./deploy.sh``)
        r"(?:(?:[^A-Za-z0-9_.\-\s:\[{<$*#%\"']|[\"'][^\s\[{<$*#%\"']|[A-Za-z0-9_.\-]+[^A-Za-z0-9_.\-\s:\[])[^\r\n]*"
        r"|[A-Za-z0-9_.\-]+(?::[^\s][^\r\n]*|[ \t]+[^\s:#\[][^\r\n]*)?)(\r?\n|$)",
        True,
        "YAML (and printed config) whose secret value sits on the next, indented line "
        "(``password:\\n    s3cr3t``, block scalars ``token: |``), or is its one list item (vcrpy and Ruby VCR cassettes "
        "record each header as a list: ``X-Api-Key:\\n  - ...``); a nested mapping's key there is not a value.",
        keep_suffix=True,
        hints=(*_PASSWORD_HINTS, *_TOKEN_HINTS),
        trigger=rf"(?:{_PASSWORD_TRIGGER_WORDS}|{_TOKEN_TRIGGER_WORDS}){_KEY_VERSION}[\"']?[ \t]*"
        r"(?::[ \t]*[|>]?[+\-]?[0-9]?[ \t]*\r?\n[ \t]+(?:-[ \t]+)?[^\s]|" + _CONTINUED_AFTER_TRIGGER + ")",
    ),
    SecretPattern(
        "validation_error_input",
        "keyword",
        rf"((?:{_PASSWORD_KEY}|{_TOKEN_KEY})[ \t]*\r?\n[ \t]+[^\r\n]*?\binput_value=)(?:'[^'\r\n]+'|\"[^\"\r\n]+\")",
        True,
        "The input a validator echoes under the field's name (pydantic's ``ValidationError``: the field's location on "
        "its own line, then ``  <message> [type=.., input_value='...', input_type=str]``): a secret-named field's "
        "rejected value goes, quotes and all; other fields' inputs stay.",
        hints=("input_value=",),
        trigger=r"input_value=['\"]",
        parse=rf"({_KEY_START}{_KEY_CHARS}[ \t]*\r?\n[ \t]+[^\r\n]*?\binput_value=)(?:'[^'\r\n]+'|\"[^\"\r\n]+\")",
    ),
    SecretPattern(
        "annotated_variable_value",
        "keyword",
        r"((?m:^)[ \t│]*└[ \t]+['\"])(?:[^'\"\s\[<{$*%/:.@][^'\"\s/:.@]{3,}[0-9][^'\"\s/:.@]*|[0-9][^'\"\s/:.@]{4,})"
        r"(['\"][ \t]*(?:\r?\n|$))",
        True,
        "A variable's value as ``better_exceptions`` and loguru's ``diagnose`` print it under the source line (``│ └ "
        "'...'``): the name is only the column it points at, so the shape must say credential: a quoted string with a "
        "digit and no space, ``/``, ``:``, ``.`` or ``@`` (paths, URLs, hosts, addresses and words stay), and Python "
        "requires a random shape, or a password's in both letter cases (``order-2025`` stays), that is not hex digits "
        "and dashes alone (UUIDs, SHAs, hex ids stay; so does a hex key, and the Collector, which cannot check shapes, "
        "redacts them all).",
        keep_suffix=True,
        hints=("└",),
        verify="unnamed",
        trigger=r"└[ \t]+['\"]",
    ),
    SecretPattern(
        "rejected_input_echo",
        "keyword",
        r"((?:invalid literal for [a-z]+\(\) with base [0-9]+:|could not convert string to [a-z]+:|Invalid isoformat string:"
        r"|\binput_value=|For input string:|strconv\.[A-Za-z]+: parsing|parsing time|cannot parse|invalid value for [A-Z][a-z]+\(\):"
        r"|The input string|Unexpected token '[^'\r\n]{1,2}',|header value:?"
        r"|header value b)[ \t]?['\"][ \t]?)"
        rf"(?:{_ECHO_CHAR}*[G-Zg-z]{_ECHO_CHAR}*[0-9]|{_ECHO_CHAR}*[0-9]{_ECHO_CHAR}*[G-Zg-z]){_ECHO_CHAR}*"
        r"((?:\r?\n)?['\"\\])",
        True,
        "The input a parser or validator rejected, quoted in its own error whatever field it came from (a secret in the "
        "wrong variable, a shifted column, a token where a port goes): Python's ``int()``/``float()``/``fromisoformat`` "
        "(``invalid literal for int() with base 10: '..'``), pydantic's ``input_value='..'``, Go's ``strconv.Atoi: "
        "parsing \"..\"`` and ``parsing time \"..\"``, Java's ``NumberFormatException: For input string: \"..\"``, Ruby's "
        "``invalid value for Integer(): \"..\"``, .NET's ``The input string '..' was not in a correct format``, V8's ``JSON.parse`` "
        "(``Unexpected token 'x', \"..\" is not valid JSON``), and a header's value rejected by requests or "
        "http.client (``Invalid header value b'..\\n'``): a digit and a letter past ``f`` (hex ids and digests stay, in RE2 too), "
        "without ``:``, ``/`` or ``@`` (URLs, "
        "paths, hosts' ports stay), and Python requires a random shape, or a password's in both letter cases, that is "
        "not hex digits and dashes alone (ids, digests and hex keys stay; the Collector, which cannot check shapes, "
        "redacts every such value).",
        keep_suffix=True,
        hints=("with base", "convert string", "isoformat", "input_value=", "for input string", "parsing", "unexpected token",
               "header value", "invalid value for", "the input string", "cannot parse"),
        verify="unnamed",
        trigger=r"(?:with base [0-9]+|string to [a-z]+|isoformat string|For input string|strconv\.[A-Za-z]+|for [A-Z][a-z]+\(\)): "
        r"|input_value=['\"]|: parsing \"|parsing time \"|cannot parse \"|The input string '|Unexpected token '|header value:? b?['\"]",
    ),
    SecretPattern(
        "rejected_input_before_verdict",
        "keyword",
        r"((?:^|[\s(:,\[])['\"])"
        rf"(?:{_ECHO_CHAR}*[G-Zg-z]{_ECHO_CHAR}*[0-9]|{_ECHO_CHAR}*[0-9]{_ECHO_CHAR}*[G-Zg-z]){_ECHO_CHAR}*"
        r"(['\"] (?:is too (?:long|short)|does not match '|is not (?:of type|one of|valid under|valid JSON)|does not appear to be an IPv))",
        True,
        "The rejected input quoted before the verdict (jsonschema's ``'..' is too long``, ``'..' does not match "
        "'^..'``, ``is not of type``; ipaddress' ``'..' does not appear to be an IPv4 or IPv6 address``; V8's ``\"..\" "
        "is not valid JSON``): the same value shapes and checks as ``rejected_input_echo``.",
        keep_suffix=True,
        hints=(" is too ", " does not ", " is not "),
        verify="unnamed",
        trigger=r"['\"] (?:is too (?:long|short)|does not match '|is not (?:of type|one of|valid under|valid JSON)|does not appear to be an IPv)",
    ),
    SecretPattern(
        "validator_instance_path_value",
        "keyword",
        rf"(\binstance\[['\"][A-Za-z0-9_.\-]*?(?:{_PASSWORD_KEY}|{_TOKEN_KEY})['\"]\]:\r?\n[ \t]+['\"])[^'\"\r\n\[][^'\"\r\n]*(['\"])",
        True,
        "jsonschema's ``On instance['token']:`` with the instance's value on the next, indented line: the path names "
        "the field (also after a qualifier: ``api_token``); Python also requires a password's or a random shape "
        "(``pageToken``'s cursor, a number, a word stay).",
        keep_suffix=True,
        hints=("instance[",),
        verify="credential",
        trigger=r"instance\[['\"]",
        parse=rf"(\binstance\[['\"]{_KEY_CHARS}['\"]\]:\r?\n[ \t]+['\"])[^'\"\r\n\[][^'\"\r\n]*(['\"])",
    ),
    SecretPattern(
        "piped_into_secret_store",
        "keyword",
        r"(\b(?:echo|printf)[ \t]+(?:-[A-Za-z]+[ \t]+|'[^'\r\n]*%s[^'\r\n]*'[ \t]+)*['\"]?)"
        r"[^\s'\"\\|$<{*\[%\-][^\s'\"\\|]*"
        r"(['\"]?[ \t]*\|[^\r\n|]*(?i:secret|token|credential|password-stdin)[^\r\n|]*)",
        True,
        "A value echoed into a command that stores or uses it as a secret: ``printf '..' | docker secret create x -``, "
        "``echo -n '..' | gcloud secrets create x --data-file=-``, ``echo '..' | docker login --password-stdin``, "
        "``| kubectl create secret ..``: the command's name says so, not the value's (``piped_password`` reads ``sudo -S`` "
        "and ``passwd``). ``echo $TOKEN | ..`` stays (a variable). Python: password- or random-shaped.",
        keep_suffix=True,
        hints=("echo", "printf"),
        verify="credential",
        trigger=r"\b(?:echo|printf)[ \t]",
    ),
    SecretPattern(
        "cli_printed_secret",
        "keyword",
        rf"((?m:^)(?:[$>+]|>>>|In[ \t]*\[[0-9]+\]:|[a-z][a-z0-9_\-]*(?:\([^)\r\n]*\)[0-9:]*)?>)[ \t]+[^\r\n]*(?:{_PRINTS_SECRET})[^\r\n]*\r?\n"
        r"(?:\[[0-9]+\][ \t]+|=>[ \t]+|Out\[[0-9]+\]:[ \t]*|res[0-9]+:[ \t]*[A-Za-z.]+[ \t]*=[ \t]*)?['\"]?)"
        r"(?:[A-Za-z0-9+/=_\-.~]{16,}|[A-Za-z0-9+=_\-.~!#%^*?@]{8,})(['\"]?(?:\r?\n|$))",
        True,
        "A secret a command prints on its own line, as a terminal or a CI log (``set -x``) shows it: the command "
        "after a prompt (``$``, ``>``, ``+``) names a secret (``heroku config:get API_SECRET``, ``vault kv get "
        "-field=password``, ``kubectl get secret -o jsonpath=..``) and the next line is one random-looking token "
        "(Python checks it); a REPL's echo too (``>>> os.environ[\"API_SECRET\"]``, IPython ``In [3]:``, R's ``[1] \"..\"``, "
        "a prompt that is a word and ``>``: irb's ``irb(main):001>``, ``julia>``, ``scala>`` with its ``res0: String = ..``, "
        "``iex(1)>``); "
        "and what password managers' CLIs print (``pass show x``, ``gopass show -o x``, ``op read``, ``bw get``, ``security "
        "find-generic-password -w``): a password-shaped line of 8+ characters too (Python: a password or random shape).",
        keep_suffix=True,
        hints=("secret", "token", "passw", "key", "credential", "pass", "op", "bw"),
        verify="credential",
        trigger=rf"(?:[$>+]|\]:)[ \t][^\r\n]*(?:{_PRINTS_SECRET})[^\r\n]*\r?\n"
        r"(?:\[[0-9]+\][ \t]+|=>[ \t]+|Out\[[0-9]+\]:[ \t]*|res[0-9]+:[ \t]*[A-Za-z.]+[ \t]*=[ \t]*)?['\"]?[A-Za-z0-9+/=_\-.~!#%^*?@]{8}",
    ),
    SecretPattern(
        "keyword_compound_key",
        "keyword",
        rf"({_NOUN_KEY}(?:{_SEP}{_VALUE_MEMBER}(?:\[?[ \t]*b?\\*[\"']|\[)?|>)){_RANDOM}(?:{_WRAPPED}|{_END})",
        True,
        "A key with a credential noun among its tokens (``client_secret_v2``, ``my_client_secret_value``, "
        "``token_value``, ``authToken2``, ``x-vendor-key``) and a value shaped like a credential "
        "(16+ token characters with a digit; Python also requires entropy and no name in lower-case words such as "
        "``cache_users_2024``); also an XML element's "
        "(``<SignatureProvided>``), Go's ``map[X-Auth-Token:[...]]``, a bytes repr ``b'...'``.",
        keep_suffix=2,
        hints=(*KEY_NOUNS, ".sid"),
        verify="random",
        # the noun, the rest of the key, the separator and what may stand before the value, then the 11 token characters
        # every value starts with (each of _RANDOM's alternatives): a key and a word after it (``Authorization: Bearer
        # ..``) or a dotted value (``hvs.CAES..``) no longer run the rule (494 bench lines triggered it, 199 matched)
        trigger=rf"(?i:{_NOUN_ANY}|\.sid)[A-Za-z0-9_.\-]*(?:{_SEP}{_VALUE_MEMBER}(?:\[?[ \t]*b?\\*[\"']|\[)?|>){_RND}{{11}}",
        parse=rf"({_KEY_START}{_KEY_CHARS}(?:{_SEP}{_VALUE_MEMBER}(?:\[?[ \t]*b?\\*[\"']|\[)?|>)){_RANDOM}(?:{_WRAPPED}|{_END})",
    ),
    SecretPattern(
        "query_key_param",
        "keyword",
        r"([?&;](?i:key|code|auth)=)[^\s&#'\"\[\]<>{}$]" + r"[^\s&#'\"]*",
        True,
        "Short credential-named query parameters: ?key=..., &code=..., &auth=...; Python spares a value that is a name "
        "in lower-case words (``&key=cache_users_2024``).",
        hints=("key=", "code=", "auth="),
        verify="not_a_name",
        trigger=r"[?&;](?i:key|code|auth)=",
    ),
    SecretPattern(
        "query_key_param_first",
        "keyword",
        # a query string a log writes without its ``?``: W3C/IIS ``cs-uri-query``, ECS ``url.query``, Sentry's
        # ``query_string``; the ``&`` of a next parameter says query string (``cache miss key=user:4711`` and an
        # S3 object's ``key=uploads/2025/..`` stay)
        r"((?:^|[\s\"'])(?i:key|code|auth)=)"
        + _loose_with_digit(r"[A-Za-z0-9_\-.~+/%=]", r"[A-Za-z_\-.~+/%=]")  # not ``:``: a cache key (``key=sessions:2024:11&ttl=60``)
        + r"(&)",
        True,
        "The same parameters first in a query string written without its ``?`` (IIS ``GET /callback code=..&state=..``, "
        "``\"url.query\": \"key=..&alt=json\"``): 11+ characters with a digit before a next parameter; Python requires "
        "a random shape.",
        keep_suffix=True,
        hints=("key=", "code=", "auth="),
        verify="random",
        trigger=r"(?:^|[\s\"'])(?i:key|code|auth)=",
    ),
    SecretPattern(
        "query_glued_key_param",
        "keyword",
        # A query parameter whose lowercase name ends in ``key`` with no separator (the BLS's ``registrationkey``,
        # ``subscriptionkey``, ``licensekey``): no token of it is the noun ``key`` (keyword_compound_key reads
        # ``registrationKey`` and ``AccountKey``), and the name alone is not enough (``sortkey``, ``partitionkey``):
        # the value must look random too.
        r"([?&][a-z]{2,40}key=)" + _RANDOM + r"[^\s&#'\"]*",  # to the value's end (a JWT's dots too)
        True,
        "An API key in a query parameter whose name ends in ``key`` glued on (``?registrationkey=..``): 16+ token "
        "characters with a digit; Python requires a random shape.",
        hints=("key=",),
        verify="random",
        trigger=r"[a-z]key=",
    ),
    SecretPattern(
        "query_appid_param",
        "keyword",
        # OpenWeatherMap's key is its ``appid`` query parameter (32 hex digits; Yahoo's and Bing's older APIs named
        # theirs the same). Only in a query string and only 20+ characters: the public app ids of the same name are
        # shorter (WeChat's ``wx`` + 16 hex digits, Facebook's 15-16 digits under ``app_id``) and stay.
        r"([?&](?i:appid)=)[A-Za-z0-9_\-]{20,}[^\s&#'\"]*",
        True,
        "An API key passed as the ``appid`` query parameter (OpenWeatherMap's ``?q=Paris&appid=<32 hex>``): 20+ "
        "token characters; Python requires a random shape.",
        hints=("appid=",),
        verify="random",
        trigger=r"[?&](?i:appid)=",
    ),
    SecretPattern(
        "xml_secret_element",
        "keyword",
        r"(<(?i:[A-Za-z0-9_:\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|secret[_\-]?key))>)"
        r"(?:[^<\s\[$]|\$[^{(<\s])[^<]*(</)",
        True,
        "XML elements named like secrets: <Password>...</Password>, <SecretAccessKey>...; the value ends at "
        "its closing tag (a placeholder in angle brackets, ``\"<YOUR_TOKEN>\"``, opens no element; a reference, "
        "Maven's ``${env.X}``, MSBuild's ``$(X)``, is no value).",
        keep_suffix=True,
        hints=("pass", "secret", "token", "key"),
        trigger=r"(?i:password|passwd|secret|token|key)>",
    ),
    SecretPattern(
        "xml_secret_element_attributes",
        "keyword",
        r"(<(?i:[A-Za-z0-9_:\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key)|(?:[A-Za-z0-9_\-]+:)?pass)"
        r"[ \t]+[A-Za-z_:][^<>\r\n]*>|<(?i:[A-Za-z0-9_:\-]*password)>\s*<(?i:value)>)"
        r"[^<\s\[*][^<]*(</)",
        True,
        "The same elements with attributes (WS-Security ``<wsse:Password Type=\"..#PasswordText\">``, OData "
        "``<d:Password m:type=..>``, FileZilla's ``<Pass encoding=\"base64\">``), or holding the value in a "
        "``<Value>`` child (Windows ``Unattend.xml``'s ``<AdministratorPassword><Value>``). Its own rule, triggered "
        "by the attribute or the child: widening the plain element's cost ~8 % of a 64 KiB scan.",
        keep_suffix=True,
        hints=("pass", "secret", "token", "key"),
        trigger=r"<[A-Za-z0-9_:\-]*(?i:password|passwd|secret|token|key|pass)[ \t]+[A-Za-z_:]|(?i:password)>\s*<(?i:value)>",
    ),
    SecretPattern(
        "xml_named_string",
        "keyword",
        r"((?:<(?i:key)>[^<\r\n]*(?i:pass(?:word|wd|phrase)?|secret|token|key|credentials?)</(?i:key)>\s*<(?:string|Value)\b[^>\r\n]*>"
        r"|<(?:string|Data|entry)\b[^>\r\n]*\b(?:[Nn]ame|key)=[\"'][^\"'\r\n]*(?i:pass(?:word|wd|phrase)?|secret|token|key|credentials?)[\"'][^>\r\n]*>))"
        r"(?:[^<\s\[\-]|-[^<\s])[^<]*(</(?:string|Value|Data|entry)>)",
        True,
        "A secret named by the element before or around it: a property list's ``<key>API_KEY</key><string>...</string>`` "
        "(GoogleService-Info.plist, Info.plist), a KeePass XML export's ``<Key>Password</Key><Value ProtectInMemory=\"True\">"
        "...</Value>``, Android resources' ``<string name=\"api_secret\">...</string>``, a Windows event's "
        "``<Data Name=\"Password\">...</Data>`` (the XML an event log renders or forwards) and Java's "
        "``Properties.storeToXML`` ``<entry key=\"db.password\">...</entry>``; "
        "a lone ``-`` is no value (Windows' empty field); "
        "Python requires a password or random shape (``<key>GCM_SENDER_ID</key>`` and hints stay) and a name that is "
        "not a public key's (Sparkle's ``<key>SUPublicEDKey</key>``).",
        keep_suffix=True,
        hints=("<key>", "<string", "<data", "<entry"),
        verify="named",
        trigger=r"</(?i:key)>\s*<(?:string|Value)\b|<(?:string|Data|entry)[ \t][^>\r\n]*(?:[Nn]ame|key)=[\"']",
    ),
    SecretPattern(
        "named_value_pair",
        "keyword",
        # the name and the value member once, around the alternation of names (a smaller program: RE2 reads its
        # groups with BitState only up to 512 instructions)
        # a parameter store's path is a name too (``/prod/db/password``)
        rf"({_FIELD_NAME}(?:[A-Za-z0-9_.\-/ ]*(?i:pass(?:word|wd|phrase)|secret|token|api[_.\- ]?key|credentials?)"
        rf"|(?:[A-Za-z0-9_.\-/ ]*[_.\-/ ])?(?i:pass|pwd|t?otp)){_FIELD_VALUE_INTRO}{_OTLP_STRING_VALUE})"
        r"[^\s'\"`\\\[{<$%*][^\s'\"\\]*",
        True,
        "A value given as a name/value pair whose name is a secret's: .NET ``<add key=\"ClientSecret\" "
        "value=\"...\"/>``, Kubernetes ``- name: DB_PASSWORD`` / ``value: ...``, an error's ``{\"field\": "
        "\"dbPassword\", \"value\": \"...\"}``, AndroidManifest ``<meta-data android:name=\"..API_KEY\" android:value=\"...\"/>``, "
        "an OTLP JSON record's ``{\"key\": \"db.password\", \"value\": {\"stringValue\": \"...\"}}``, CloudFormation's "
        "``{\"ParameterKey\": \"DBPassword\", \"ParameterValue\": \"...\"}`` (placeholders, references and masks survive).",
        hints=("value",),
        trigger=r"(?i:value)\\?[\"']?[ \t]*[:=]",
    ),
    SecretPattern(
        "named_value_pair_random",
        "keyword",
        rf"({_FIELD_NAME}[A-Za-z0-9_.\- ]*(?i:key|auth|session|sess(?:ion)?[_.\-]?id|sid|jwt|sk|sig(?:nature)?)"
        rf"{_FIELD_VALUE_INTRO})"
        r"[^\s'\"`\\\[{<$%*][^\s'\"\\0-9]*[0-9][^\s'\"\\]*",
        True,
        "The same pairs where the name's last word says credential only with a random value: a header, cookie or "
        "parameter named ``...-key``, ``...auth``, ``..session``/``..sessid``/``..sid``, ``jwt``, ``sk``, "
        "``sig`` (HAR ``{\"name\": \"x-functions-key\", \"value\": \"...\"}``, a cookies array's ``PHPSESSID``, "
        "Postman ``stripe_sk``, NSHTTPCookie ``name:session value:...``); a digit, and Python requires a random "
        "shape (``{\"name\": \"key\", \"value\": \"X-API-Key\"}`` stays).",
        hints=("value",),
        verify="random",
        trigger=r"(?i:value)\\?[\"']?[ \t]*[:=]",
    ),
    SecretPattern(
        "cookie_record_value",
        "keyword",
        # a cookie object's name, its value, then one of its attributes: one member a line (YAML, also with its line
        # breaks written ``\\n`` inside a string) or members of one object (JSON, a Ruby or Python dict)
        rf"((?i:\bname)\\?[\"']?[ \t]*(?:[:=]>?)[ \t]*\\?[\"']?[^\s'\"\\,{{}}]+\\?[\"']?{_COOKIE_MEMBER_GAP}"
        rf"\\?[\"']?:?(?i:value)\\?[\"']?[ \t]*(?:[:=]>?)[ \t]*\\?[\"']?)"
        r"(?:[A-Za-z0-9+/_\-.~%!*]*[0-9][A-Za-z0-9+/_\-.~%!*]*[A-Za-z]|[A-Za-z0-9+/_\-.~%!*]*[A-Za-z][A-Za-z0-9+/_\-.~%!*]*[0-9])[A-Za-z0-9+/_\-.~%!*]*={0,2}"
        rf"(\\?[\"']?{_COOKIE_MEMBER_GAP}\\?[\"']?:?(?i:domain|for_domain|path|expires|expiry|max[_\-]?age|secure|http_?only|same_?site)\\?[\"']?[ \t]*[:=])",
        True,
        "The value of a stored cookie, whatever its name, in a record that also holds the cookie's attributes: "
        "fastlane's ``FASTLANE_SESSION`` (``HTTP::Cookie`` YAML: ``name: myacinfo`` / ``value: ..`` / ``domain: ..``), "
        "Playwright's ``storageState`` and Puppeteer's ``page.cookies()`` (``{\"name\": .., \"value\": .., \"domain\": ..}``), "
        "a cookie jar's dump; a session is what a stored cookie is. A letter and a digit, and Python requires a random "
        "shape (``theme``/``dark`` stays).",
        keep_suffix=True,
        hints=("value",),
        verify="random",
        trigger=r"(?i:value)\\?[\"']?[ \t]*[:=]",
    ),
    SecretPattern(
        "credentials_call_last_argument",
        "keyword",
        # sbt/Ivy's (realm, host, user, password), Maven resolvers' (id, user, password): the password comes last
        r"(\b(?:[A-Za-z_.]+\.)?[Cc]redentials[ \t]*\([ \t]*\\?\"[^\"\\\r\n]*\\?\"[ \t]*,[ \t]*\\?\")"
        r"(?:[^\"\\\r\n]*\\?\"[ \t]*,[ \t]*\\?\"){1,2}[^\"\\\r\n$<{*\[][^\"\\\r\n]*(\\?\"[ \t]*\))",
        True,
        "A call named ``Credentials`` given three or four strings, the password last: sbt's and Ivy's "
        "``Credentials(realm, host, user, password)``, ``credentials(id, user, password)``. What follows the first "
        "(a realm or an id: a name) goes whole, user included, as in a URL's userinfo: the pair rule "
        "(``auth_tuple``) would take the second argument alone and leave the password. A placeholder or a reference "
        "last (``\"<password>\"``, ``\"${PASS}\"``) is no value.",
        keep_suffix=True,
        hints=("credentials",),
        trigger=r"[Cc]redentials[ \t]*\(",
    ),
    SecretPattern(
        "keyword_space_separated",
        "keyword",
        r"((?i:(?:secret[_\-]?access[_\-]?key|(?:api|shared|access|account|storage|master|license|signing|hmac|sas)[_\-]?key"
        r"|client[_\-]?secret|access[_\-]?token|[a-z]+[_\-]?token|password|passwd|[a-z]+(?:pass|auth)))(?:[ \t]+|['\"][ \t]*,[ \t]*['\"]))"
        + _with_digit(_TOK, r"[A-Za-z+/=_\-.~]"),
        True,
        "Config-file lines without a separator (aws_secret_access_key AbC..., Fluentd's ``shared_key AbC..``), and the same key and value as the "
        "next items of a printed argv list (``aws --debug``'s ``Arguments entered to CLI: ['configure', 'set', "
        "'aws_secret_access_key', '...']``); the value must be 16+ token characters with a digit, so prose such as "
        "'password authentication failed' survives.",
        hints=("key", "secret", "token", "pass", "auth"),
        trigger=r"(?i:key|secret|token|pass(?:word|wd)?|auth)(?:[ \t]+|['\"][ \t]*,[ \t]*['\"])[A-Za-z0-9+/=_\-.~]{16}",
    ),
    SecretPattern(
        "keyword_phrase",
        "keyword",
        # the word starts a word that is no URL path's segment (``"POST /oauth/token HTTP/1.1"``, ``/reset-password HTTP/1.1``)
        r"((?:^|[^/A-Za-z0-9_\-])(?:[A-Za-z0-9_]+-)*(?i:[a-z]*token|password|passwd|passcode|secret|(?:api|license|product|activation|access|secret|private|signing|encryption|master)[ _\-]?key|otp|pin"
        r"|(?:verification|reset|login|security|confirmation|one-time|mfa|2fa)[ _\-]?code)[ \t]+(?i:(?:is|was)[ \t]+)?['\"`]?"
        # other scripts: the word, at most one more word (``токен доступа``), an opening quote of any language
        rf"|(?:{_FOREIGN_PHRASE_WORDS})(?:[ \t]+[^\s{_OPEN_QUOTES}]+)?[ \t]*[{_OPEN_QUOTES}])"
        r"(?:[0-9][A-Za-z0-9_\-.~+/=]{3,}|[A-Za-z0-9_\-.~+/=][0-9][A-Za-z0-9_\-.~+/=]{2,}"
        r"|[A-Za-z0-9_\-.~+/=]{2}[0-9][A-Za-z0-9_\-.~+/=]+|[A-Za-z0-9_\-.~+/=]{3,}[0-9][A-Za-z0-9_\-.~+/=]*)",
        True,
        "Prose that names a secret and then gives it: 'refused token tok-FAKE-77', 'your reset code is "
        "913-FAKE', 'license key 6A3L5-...', 'Zugriffstoken '...' ist abgelaufen', and in other scripts before a "
        "quoted value ('токен доступа «...»', '访问令牌 \"...\"', 'アクセストークン「...」'); the value needs 4+ characters "
        "and a digit ('token refreshed', 'exit code 137' survive).",
        hints=("token", "pass", "secret", "key", "code", "otp", "pin", "токен", "пароль", "ключ", "令牌", "密", "トークン", "パスワード", "キー", "토큰", "비밀번호", "키"),
        trigger=r"(?i:token|password|passwd|passcode|secret|key|otp|pin|code)[ \t]+(?i:(?:is|was)[ \t]+)?['\"`]?[A-Za-z0-9_\-.~+/=]*[0-9]"
        rf"|(?:{_FOREIGN_PHRASE_WORDS})[^\r\n{_OPEN_QUOTES}]*[{_OPEN_QUOTES}][A-Za-z0-9_\-.~+/=]*[0-9]",
    ),
    SecretPattern(
        "credential_set_to_value",
        "keyword",
        # the word, then at most a parenthesised option name (wget's ``--password (password)``), a reference's closer
        # (a Go template's ``<.Values.db.password>:``) or what it is for (``password for ftp.example.org``), then
        # ``to`` / ``set to`` / ``value``
        # (the word starts a word: ``jsonwebtoken to 9.0.1`` is a package's version)
        r"((?:^|[^A-Za-z])(?i:pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credentials?)"
        r"(?:[ \t]*\([A-Za-z0-9_.\-]{1,40}\)|[>\])\"'`]{1,2}:?|[ \t]+(?i:for)[ \t]+[^\s]{1,60})?"
        r"[ \t]+(?i:(?:set[ \t]+)?to|value)[ \t]+[\"'`]?)"
        # the first character no mask's or reference's (``****``, ``$VAR``, ``%s``), a digit somewhere
        r"(?:[0-9]|[^\s'\"`<>\[\]{}$%*(),;][^\s'\"`<>\[\]{},;]*[0-9])[^\s'\"`<>\[\]{},;]*",
        True,
        "A credential named, then the value a tool says it set it to or an error echoes for it: wget's debug "
        "``Setting --http-password (httppassword) to ...``, ``password set to ...``, a Go template's ``at "
        "<.Values.smtp.password>: value ... is not a map``. The value has a digit; Python: a password's or a random "
        "shape (``token to 3600s``, ``password to 2026-01-01`` stay).",
        hints=("pass", "secret", "token", "key", "credential"),
        verify="credential",
        trigger=r"(?i:pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credentials?)"
        r"(?:[ \t]*\([A-Za-z0-9_.\-]+\)|[>\])\"'`]{1,2}:?|[ \t]+(?i:for)[ \t]+[^\s]+)?[ \t]+(?i:(?:set[ \t]+)?to|value)[ \t]",
    ),
    SecretPattern(
        "column_aligned_secret",
        "keyword",
        # the name starts its line (after a row number), ends in a credential's word, then 2+ spaces or a tab, and the
        # value ends the line: a two-column print, not prose or a wider table's row
        r"((?m:^)[ \t]*(?:[0-9]+[ \t]+)?[A-Za-z0-9_.\-]*(?i:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\-]?key"
        r"|(?:access|secret|private|client|signing|master|account|storage|session|auth|encryption)[_.\-]?key"
        r"|credentials?|[_\-]pat)(?:[ \t][ \t]+|\t[ \t]*))"
        r"(?:[0-9]|[^\s'\"\[<{$*%][^\s'\"0-9]*[0-9])[^\s'\"]*([ \t]*(?:\r?\n|$))",
        True,
        "A name and its value in two aligned columns, the value ending the line: a pandas DataFrame's or Series' print "
        "of config rows (``2   secret_key   ..``, ``password    ..``), R's ``Sys.getenv()``, ``spark-defaults.conf``, "
        "a CLI's key/value listing. The name ends in a credential's word; the value needs a digit, and Python a "
        "password's or a random shape (``token_limit   8192``, ``max_tokens  4096``, ``keyring  24.3.0`` stay).",
        keep_suffix=True,
        hints=("pass", "pwd", "secret", "token", "key", "credential", "pat"),
        verify="credential",
        trigger=r"(?i:pass|pwd|secret|token|key|credential|pat)[A-Za-z]*(?:[ \t][ \t]|\t)",
    ),
    SecretPattern(
        "qualified_property_secret",
        "keyword",
        # a credential's segment, then the account or host it is for (2+ more segments, the last a top-level domain's
        # letters), then a separator: quoted pair, ``=``/``:``, XML's ``</name><value>``, or spaces
        r"((?i:(?:account|access|secret|client|private|storage|shared)[_.\-](?:key|secret)|[_.\-](?:password|secret|sas|token))"
        r"(?:\.[A-Za-z0-9_\-]+){2,}\.[A-Za-z]{2,6}"
        r"(?:\\?[\"'][ \t]*[,:=][ \t]*(?:\r?\n[ \t]*)?\\?[\"']|[\"']?[ \t]*[=:][ \t]*[\"']?|</name>[ \t\r\n]*<value>|[ \t]+|,))"
        r"[A-Za-z0-9+/=_\-.~!#%^*?@]{8,}",
        True,
        "A property whose name puts the account or host it is for after the credential's word, as Hadoop's and "
        "Spark's per-account settings do (``fs.azure.account.key.<account>.dfs.core.windows.net``, "
        "``fs.azure.account.oauth2.client.secret.<account>.dfs.core.windows.net``, ``fs.azure.sas.<container>.<account>"
        ".blob.core.windows.net``), then its value: in ``spark.conf.set(\"..\", \"..\")``, ``--conf k=v``, "
        "``core-site.xml``'s ``<name>``/``<value>``. Python requires a password's or a random shape (a client id's UUID stays).",
        hints=("key", "secret", "password", "sas", "token"),
        verify="credential",
        trigger=r"(?i:key|secret|password|sas|token)\.[A-Za-z0-9_\-]+\.",
    ),
    SecretPattern(
        "keyword_space_password",
        "keyword",
        r"((?:^|[\s:])(?:(?:(?i:[a-z]+[_\-]pass(?:word|wd|phrase)|requirepass|masterauth)|[A-Za-z][a-z0-9]*Pass(?:word|wd|phrase))[ \t]+\"?"
        r"|(?i:pass(?:word|wd|phrase)|psk)[ \t]+\""
        r"|(?i:[a-z0-9_\-]*pass(?:word|wd|phrase)?)(?:[ \t]+REG_[A-Z_]+[ \t]+|[ \t]{2,}))"
        # a config line that starts with the word (mbsync ``Pass x``, msmtp ``password x``)
        r"|(?m:^)[ \t]*(?i:pass(?:word|wd)?)[ \t]+\"?)"
        r"[^\s'\"\[<{$*%](?:[^\s'\"]*[A-Za-z][^\s'\"]*[0-9]|[^\s'\"]*[0-9][^\s'\"]*[A-Za-z])[^\s'\"]*",
        True,
        "A password after its key word and spaces, as config files write it: a compound key with a bare or "
        "quoted value (haproxy ``insecure-password x``, redis ``requirepass x``, a camel-case compound as device "
        "commands and Java properties write it: Tasmota's ``MqttPassword x``, ``keystorePassword x``), a plain word with a quoted one "
        "(strongSwan ``: PSK \"x\"``, ``password \"x\"``), a column-aligned row of a CLI's key/value table (vault's "
        "``password    x``), a registry listing (``DefaultPassword    REG_SZ    x``) or a line of a mail client's "
        "file (mbsync ``Pass x``, msmtp ``password x``). A letter and a digit, and "
        "Python requires a password shape, so prose ('password authentication failed', 'password 2fa-required') stays.",
        hints=("pass", "psk", "masterauth"),
        verify="password",
        trigger=r"(?i:pass(?:word|wd|phrase)?|psk|requirepass|masterauth)[ \t]+(?:REG_[A-Z_]+[ \t]+)?\"?[^\s'\"\[<{$*%][^\s'\"]*[0-9]",
    ),
    SecretPattern(
        "cisco_type7",
        "keyword",
        r"((?:^|\s)(?i:password|secret|key|key-string|authentication-key)[ \t]+7[ \t]+)(?:0[0-9]|1[0-5])(?:[0-9A-F]{2})+\b",
        True,
        "Cisco's type 7 (``password 7 0822455D0A16``): a reversible encoding, so the password itself; a seed "
        "``00``-``15`` and hex pairs, whatever they decode to.",
        hints=(" 7 ",),
        trigger=r"(?i:password|secret|key|key-string|authentication-key)[ \t]+7[ \t]+[01][0-9]",
    ),
    SecretPattern(
        "device_config_secret",
        "keyword",
        # the secret's keyword, up to two type or encoding words (Cisco ``0``/``7``, ``ascii``, FortiOS ``ENC``,
        # ``md5``, ``sha``, ``aes 128``), then the value; Juniper's ``$9$`` and F5's ``$M$`` are reversible encodings
        # (the common words ``key``, ``auth`` and ``priv``: at a line's start, or mid-line with a type word)
        r"((?:(?:^|[\s{;])(?i:secret|psksecret|password|passwd|pre-shared-key|key-string|authentication-key|message-digest-key"
        r"|community|community-name|rocommunity|rwcommunity|passphrase|wpa2?-psk|bindpw|rootpw)|(?m:^)[ \t]*(?i:key|auth|priv))"
        rf"[ \t]+(?:{_DEVICE_TYPE_WORD}[ \t]+){{0,2}}\"?|[\s{{;](?i:key|auth|priv)[ \t]+(?:{_DEVICE_TYPE_WORD}[ \t]+){{1,2}}\"?)"
        r"(?:\$[9M]\$[^\s'\";]+|[^\s'\"\[<{$*%;](?:[^\s'\";]*[A-Za-z][^\s'\";]*[0-9]|[^\s'\";]*[0-9][^\s'\";]*[A-Za-z])[^\s'\";]*)",
        True,
        "Network devices' and appliances' config lines: Cisco IOS/NX-OS ``enable secret 0 x``, ``username u password 7 "
        "<type 7>``, ``key 7 x``, ``key-string x``, ``snmp-server community x RO``, ``wpa-psk ascii 0 x``; Juniper "
        "``secret \"$9$...\"``, ``pre-shared-key ascii-text``, ``authentication-key``, ``community x``; FortiOS ``set "
        "passwd x``, ``set psksecret ENC <base64>``; PAN-OS, F5 ``passphrase``, net-snmp ``rocommunity``, nslcd ``bindpw``. "
        "The value has a letter and a digit, and Python requires a password or random shape (``key 1``, ``key chain "
        "KEYS``, ``key app.key``, ``community public`` stay).",
        hints=("secret", "pass", "key", "communit", "psk", "bindpw", "rootpw", "auth", "priv"),
        verify="credential",
        # the value's digit (or a ``$9$``/``$M$``) in the trigger: prose such as "key value" or "auth failed" runs nothing
        trigger=r"(?i:secret|passw(?:or)?d|psk|key|key-string|community|community-name|passphrase|bindpw|rootpw|auth|priv)[ \t]"
        rf"[ \t]*(?:{_DEVICE_TYPE_WORD}[ \t]+){{0,2}}\"?(?:\$[9M]\$|[^\s'\";]*[0-9])",
    ),
    SecretPattern(
        "tls_key_log",
        "private_key",
        r"(\b(?:CLIENT_RANDOM|(?:CLIENT|SERVER)_(?:EARLY_|HANDSHAKE_)?TRAFFIC_SECRET(?:_[0-9]+)?|(?:EARLY_)?EXPORTER_SECRET|RSA)"
        r"[ \t]+[0-9a-fA-F]{16,64}[ \t]+)[0-9a-fA-F]{32,}",
        True,
        "A line of a TLS key log (NSS's ``SSLKEYLOGFILE`` format, what browsers, curl, Go's ``KeyLogWriter`` and "
        "Python's ``ssl`` write): a label, the client random (kept: public, in the handshake) and the session's secret "
        "in hex, which decrypts the recorded traffic.",
        hints=("client_random", "_secret", "rsa"),
        trigger=r"(?:CLIENT_RANDOM|TRAFFIC_SECRET(?:_[0-9]+)?|EXPORTER_SECRET|RSA)[ \t]+[0-9a-fA-F]{16}",
    ),
    SecretPattern(
        "jwk_symmetric_key_first",
        "private_key",
        r"(\"k\"[ \t]*:[ \t]*\")[A-Za-z0-9_\-]{16,}(\"[^{}]*?\"kty\"[ \t]*:[ \t]*\"oct\")",
        True,
        "A symmetric JSON Web Key's ``k`` written before its ``\"kty\": \"oct\"`` (RFC 7518 section 6.4; a serializer's "
        "member order), which the rule that reads members after ``kty`` cannot see.",
        keep_suffix=True,
        hints=("\"oct\"",),
        trigger=r"\"kty\"[ \t]*:[ \t]*\"oct\"",
    ),
    _provider(
        "macaroon_v1",
        r"\bMD[AB][A-Za-z0-9]{5}Y2F0aW9u[A-Za-z0-9+/_\-]{40,}={0,2}",
        ("y2f0aw9u",),
        "A version-1 macaroon (snapd, LXD, Juju, Candid's bakery), known by its first packet: base64 of a 4-hex-digit "
        "length and ``location `` (``MDAx..Y2F0aW9u``); it carries its own HMAC chain and is a bearer credential.",
        trigger=r"MD[AB][A-Za-z0-9]{5}Y2F0aW9u",
    ),
    SecretPattern(
        "jwk_private_member",
        "private_key",
        r"(\"kty\"[ \t]*:[ \t]*\"[A-Za-z\-]+\"[^{}]*?\"(?:d|p|q|dp|dq|qi|k)\"[ \t]*:[ \t]*\")[A-Za-z0-9_\-]{16,}",
        True,
        "A JSON Web Key's private members (RFC 7518 section 6: ``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``; "
        "``k`` of a symmetric key) after its ``kty``; the public ``n``, ``e``, ``x``, ``y`` stay.",
        hints=("\"kty\"",),
        trigger=r"\"kty\"",
    ),
    SecretPattern(
        "protocol_auth_command",
        "keyword",
        r"(\bAUTH\"?(?:[ \t]+\"?(?:PLAIN|LOGIN|XOAUTH2|[A-Za-z0-9_\-]{1,32}\"))?[ \t]+\"?)" + _RANDOM,
        True,
        "The credential of a protocol's AUTH command as servers and clients log it: Redis ``AUTH <pw>`` / "
        "``\"AUTH\" \"<pw>\"`` (MONITOR, slowlog), SMTP/IMAP ``AUTH PLAIN <base64>``; upper-case AUTH and a "
        "random-looking value (Python checks it), so prose ('auth failed') stays.",
        hints=("auth",),
        verify="random",
        trigger=r"AUTH\"?[ \t]",
    ),
    SecretPattern(
        "protocol_login_command",
        "keyword",
        r"(\b(?:PASS|LOGIN[ \t]+\"?[^\s\"]+\"?|AUTH[ \t]+[A-Za-z0-9_.@\-]+)[ \t]+\"?)"
        r"[^\s'\"\[<{$*%](?:[^\s'\"]*[A-Za-z][^\s'\"]*[0-9]|[^\s'\"]*[0-9][^\s'\"]*[A-Za-z])[^\s'\"]*",
        True,
        "A password in a protocol transcript: POP3/FTP ``PASS <pw>``, IMAP ``a1 LOGIN user \"<pw>\"``, Redis 6 "
        "``AUTH <user> <pw>``; upper-case verbs, and Python requires a password or random shape.",
        hints=("pass", "login", "auth"),
        verify="credential",
        trigger=r"(?:PASS|LOGIN|AUTH)[ \t]",
    ),
    SecretPattern(
        "sasl_response",
        "keyword",
        r"((?:UGFzc3dvcmQ6[^\r\n]*|AUTHENTICATE[ \t]+PLAIN[^\r\n]*\r?\n[^\r\n]*\+[ \t]*)\r?\n(?:[^\r\n]*[^A-Za-z0-9+/\r\n\[\]])?"
        r"|<auth\b[^>\r\n]*>)[A-Za-z0-9+/]{8,}={0,2}",
        True,
        "A SASL response in a transcript (RFC 4954, RFC 3501, RFC 6120): the line after SMTP AUTH LOGIN's password "
        "challenge (``334 UGFzc3dvcmQ6``, base64 of ``Password:``), the line after IMAP ``AUTHENTICATE PLAIN``'s "
        "``+``, and XMPP's ``<auth mechanism='PLAIN'>`` body.",
        hints=("ugfzc3dvcmq6", "authenticate", "<auth"),
        trigger=r"UGFzc3dvcmQ6|AUTHENTICATE[ \t]+PLAIN|<auth\b",
    ),
    SecretPattern(
        "cli_secret_option",
        "keyword",
        # the value may be quoted after a space as a shell quotes it (``--secret-string '..'``): the quote is kept, the value
        # stops at its closer (after ``=``, the password rule reads a shell's quoting, ``'it'"'"'s'``, whole)
        rf"((?:^|[\s'\"\[,\x00])(?:--?(?:[A-Za-z0-9]+[\-.])*[A-Za-z0-9]*(?i:{_OPTION_WORDS})(?:{_ARG_GAP}|[ \t]+['\"])|/(?i:{_OPTION_WORDS})[:=]))"
        r"[^\s'\"\-/~.$<{%*\[(\\][^\s'\"\x00]*",
        True,
        "A command-line option whose name ends in a secret word and its value, spaced, ``=`` or the "
        "next argv item (``--password x``, ``--client-secret=x``, ``'--token', 'x'``, auditd's ``a1=\"--password\" a2=\"x\"``, "
        "``/proc/PID/cmdline``'s NUL, dotted names such as ``--spring.datasource.password``, Java's and OpenSSL's "
        "one-dash ``-storepass x``, Windows' ``/pass:x``); values that look like an option, a path or a "
        "placeholder are left alone (``-storepass:env NAME`` names a variable).",
        hints=("-", "/"),
        # the character before the word, not the name's run from its dash: a loop after every ``-`` and
        # ``/`` of a text cost the trigger set ~10 % a line
        trigger=rf"[A-Za-z0-9\-.](?i:{_OPTION_WORDS}){_ARG_GAP}|/(?i:{_OPTION_WORDS})[:=]",
    ),
    SecretPattern(
        "cli_option_next_line",
        "keyword",
        rf"((?:^|[\s'\"\[,])--?(?:[A-Za-z0-9]+[\-.])*[A-Za-z0-9]*(?i:{_OPTION_WORDS})['\"]?[ \t]*\\?\r?\n[ \t]*(?:-[ \t]+)?['\"]?)"
        r"[^\s'\"\-/~.$<{%*\[(\\#][^\s'\"]*"
        r"(['\"]?[ \t]*\\?(?:\r?\n|$))",
        True,
        "An option that names a secret at the end of its line and its value alone on the next: argv as a YAML list "
        "(a container's ``args: [- --db-password, - <value>]``), as ``kubectl describe`` prints ``Args:`` (one per "
        "line), and a command line continued with ``\\`` between option and value; a path, an option or a "
        "placeholder there stays.",
        keep_suffix=True,
        hints=("-",),
        trigger=rf"[A-Za-z0-9\-.](?i:{_OPTION_WORDS})['\"]?[ \t]*\\?\r?\n",
    ),
    SecretPattern(
        "cli_short_password",
        "keyword",
        r"((?:^|[\s'\"\[,])-p(?:[ \t]+['\"]?|['\"][ \t]*,[ \t]*['\"]|['\"])?)"
        r"(?:[A-Za-z0-9!#%^*?@+_~](?:[^\s'\"]*[A-Za-z][^\s'\"]*[0-9]|[^\s'\"]*[0-9][^\s'\"]*[A-Za-z])[^\s'\"]*"
        rf"|{_APP_PASSWORD}\b)",
        True,
        "``-p<password>`` / ``-p <password>`` / ``-p'<password>'`` / ``-p '<password>'`` (mysql, docker login, sshpass, "
        "altool, vsce): Python also requires a password shape (8+ characters, a letter and a digit, mixed case or a "
        "symbol), a random one (a token: ``vsce -p <PAT>``) or an app password's (four groups of four lower-case "
        "letters: Apple's app-specific passwords), so ``-p 8080:80``, ``-p 2222`` and ``-p python3.11`` stay.",
        hints=("-p",),
        verify="short_option",
        trigger=r"(?:^|[\s'\"\[,])-p[ \t'\",]*[A-Za-z0-9!#%^*?@+_~][^\s'\"]",
    ),
    SecretPattern(
        "cli_user_password",
        "keyword",
        r"((?:^|[\s'\"\[,\x00])(?:-u|--user|--proxy-user|--http-user)"
        r"(?:=|[ \t]+|['\"](?:[ \t]*,[ \t]*|[ \t]+a[0-9]{1,3}=)|\x00)['\"]?[^\s:'\"$]+:)"
        r"(?:[^\s'\"\[()][^\s'\"()]*)?[^\s'\"0-9\[()][^\s'\"()]*"
        # a key that ends in ``auth``/``ident`` or names a host given ``user:password`` (haproxy ``stats auth``, Yarn's
        # ``npmAuthIdent``, Bundler's ``BUNDLE_GEMS__EXAMPLE__COM``: the host, dots written ``__``); Go's ``%+v`` of a
        # ``*url.URL`` prints its ``Userinfo`` as ``User:name:password``
        r"|([A-Za-z0-9_.\-]*(?i:auth|ident|login|user[_.\-]?info|__(?:com|org|net|io|dev))[\"']?(?:[ \t]*(?:=>|[:=])[ \t]*|[ \t]+)[\"']?|\b(?i:user(?:info)?):"
        r"|(?m:^)\[[A-Za-z0-9.\-]+\](?::[0-9]+)?[ \t]+(?:[A-Za-z0-9_.+\-]+@)?)"
        # (not ``//``: a URL's scheme is no user, ``userinfo: https://idp:8443/userinfo``)
        r"[A-Za-z][A-Za-z0-9_.\-]*:(?:[^\s'\"\[()$<{*/]|/[^\s'\"()/])[^\s'\"()]*[0-9][^\s'\"()]*",
        2,
        "``-u user:password`` (curl, wget; also as the next argv item: ``\"-u\", \"..\"``, auditd's ``a1=\"-u\" a2=\"..\"``): "
        "the part after the colon; ``-u 1000:1000`` (a uid:gid) stays. Also "
        "``user:password`` (both, as URL userinfo) given to a key ending in ``auth`` or ``ident`` or naming a host (haproxy ``stats "
        "auth admin:...``, Yarn ``npmAuthIdent: \"ci:...\"``, Bundler ``BUNDLE_GEMS__EXAMPLE__COM: \"u:...\"``, Go's "
        "``&{Scheme:postgres User:app:...}``) or a login (squid's ``cache_peer .. login=user:...``), and Postfix' "
        "``sasl_passwd`` line (``[relay]:587 user:...``), with a digit; also under a key naming user info (Schema Registry's "
        "``basic.auth.user.info=<key>:<secret>``) and after Ruby's and Logstash's ``=>`` (``cloud_auth => \"elastic:..\"``).",
        hints=("-u", "--user", "--proxy-user", "--http-user", "auth", "ident", "__", "user", "login", "]"),
        trigger=r"(?:-u|--user|--proxy-user|--http-user)(?:=|[ \t]+|['\"](?:[ \t]*,[ \t]*|[ \t]+a[0-9]{1,3}=)|\x00)['\"]?[^\s:'\"$]+:"
        r"|(?:(?i:auth|ident|login|user[_.\-]?info|__(?:com|org|net|io|dev))[\"']?(?:[ \t]*(?:=>|[:=])[ \t]*|[ \t]+)[\"']?|(?i:user(?:info)?):)[A-Za-z][A-Za-z0-9_.\-]*:[^\s'\"()]*[0-9]"
        r"|\](?::[0-9]+)?[ \t]+[A-Za-z0-9_.+\-]+[@:]",
    ),
    SecretPattern(
        "sql_password_clause",
        "keyword",
        # MySQL's ``PASSWORD('..')`` function (5.x's ``SET PASSWORD = PASSWORD('..')``), and a quote escaped with ``\``
        # as an audit log writes the statement inside its own quotes (MariaDB's ``server_audit``)
        r"(\b(?i:identified[ \t]+(?:with[ \t]+[A-Za-z0-9_]+[ \t]+)?by[ \t]*|password(?:[ \t]+for[ \t]+\S+)?(?:[ \t]*=[ \t]*"
        r"(?:(?i:(?:old_)?password)\([ \t]*)?|[ \t]+))N?\\?['\"])"
        r"(?:[^'\"\s\[*$<{%A-Z_x]|[A-Z_x]+[^'\"\r\nA-Z_x])(?:[^'\"\r\n]|''|\"\")*"
        # unquoted (Oracle): after the user it sets (``USER scott``, ``CONNECT TO app``) and with a digit, since
        # "the record identified by ord_2002" is prose
        r"|(\b(?i:user|role|to)[ \t]+[^\s'\"]+[ \t]+(?i:identified[ \t]+by)[ \t]+)[^'\"\s\[*$<{%;][^'\"\s;0-9]*[0-9][^'\"\s;]*",
        2,
        "SQL that sets a password: ``CREATE USER .. IDENTIFIED BY '..'`` (MySQL, Oracle; unquoted: after "
        "``USER name``/``TO name`` and with a digit), "
        "``ALTER ROLE .. PASSWORD '..'`` (PostgreSQL), ``SET PASSWORD FOR 'u'@'h' = '..'``, ``CREATE LOGIN .. "
        "WITH PASSWORD = N'..'`` (SQL Server), MySQL's ``IDENTIFIED WITH <plugin> BY '..'`` and ``= PASSWORD('..')``, as drivers "
        "and database audit logs echo the statement (a quote escaped as ``\\'`` inside the log's own); a value of capitals, ``_`` and "
        "``x`` only (``'REDACTED'``, ``BY VALUES``) and a masked one (``'****'``) stay.",
        hints=("identified", "password"),
        trigger=r"(?i:identified[ \t]+(?:with[ \t]+[A-Za-z0-9_]+[ \t]+)?by|password[ \t]*=?[ \t]*N?\\?['\"]|password[ \t]+for[ \t]|password[ \t]*=[ \t]*(?:old_)?password\()",
    ),
    SecretPattern(
        "cli_tool_password",
        "keyword",
        # each tool's own letter: bcp's, sqlcmd's and osql's -a is the packet size
        r"((?:\bredis-cli\b[^\r\n|;&]*?[ \t]-a|\b(?:sqlcmd|bcp|osql|isql)\b[^\r\n|;&]*?[ \t]-P"
        r"|\bldap(?:search|modify|add|delete|whoami|passwd|compare)\b[^\r\n|;&]*?[ \t]-w"
        r"|\b(?i:net)[ \t]+(?i:use)\b[^\r\n|;&]*?[ \t]/(?i:user|u):\S+"
        r"|\b(?i:net)[ \t]+(?i:user)[ \t]+[^\s/]+|\b(?i:schtasks)\b[^\r\n|;&]*?[ \t]/(?i:rp)"
        r"|\b(?:htpasswd|mosquitto_passwd)(?:[ \t]+-[A-Za-z]+)+(?:[ \t]+[^\s\-]\S*){2}"
        r"|\b(?i:convertto-securestring)(?:[ \t]+-(?i:string))?"
        r"|\bmosquitto_(?:pub|sub|rr)\b[^\r\n|;&]*?[ \t]-P|\bsnmp[a-z]+\b[^\r\n|;&]*?[ \t]-[AX]|[ \t]-x[ \t]+(?i:aes|des)[A-Za-z0-9\-]*[ \t]+-X"
        r"|\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s'\"]+"
        r"|\bpoetry[ \t]+config[ \t]+http-basic\.\S+[ \t]+[^\s\-]\S*|\bcargo[ \t]+login"
        r"|\bipmitool\b[^\r\n|;&]*?[ \t]-P|\bracadm\b[^\r\n|;&]*?[ \t]-p|\b(?:x11vnc|vncviewer)\b[^\r\n|;&]*?[ \t]-passwd"
        r"|\bnuget[ \t]+push\b[^\r\n|;&]*?[ \t]-k|\bgh[ \t]+secret[ \t]+set\b[^\r\n|;&]*?[ \t](?:--body|-b)|\bredis-cli\",[^\r\n|;&]*?[ \t]\"-a\","
        # archivers' and PuTTY's password options, sshpass', openssl enc's -k, db2's USING, a Wi-Fi passphrase, an
        # S3 client's secret after its access key
        r"|\b(?:zip|unzip|zipcloak)\b[^\r\n|;&]*?[ \t]-P|\bsshpass\b[^\r\n|;&]*?[ \t]-p|\b(?:pscp|plink|psftp|putty)(?:\.exe)?\b[^\r\n|;&]*?[ \t]-pw"
        r"|\bopenssl\b[^\r\n|;&]*?[ \t]-k|\b(?i:db2)\b[^\r\n|;&]*?[ \t](?i:user)[ \t]+\S+[ \t]+(?i:using)"
        r"|\bwpa_passphrase[ \t]+(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|\S+)|\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:[ \t]+\S+){3}"
        r")[ \t]+['\"]?|\b(?:smbclient|rpcclient|smbmap|smbcacls)\b[^\r\n|;&]*?[ \t](?:-U|--user=?)[ \t]*[^\s%'\"]+%"
        r"|\b7z[az]?\b[^\r\n|;&]*?[ \t]-p|\blftp\b[^\r\n|&]*?[ \t]-u[ \t]+[^\s,'\"]+,['\"]?"
        r"|\bsp_addlogin[ \t]+(?:@loginame[ \t]*=[ \t]*)?N?'[^'\r\n]*'[ \t]*,[ \t]*(?:@passwd[ \t]*=[ \t]*)?N?'"
        r"|\b[xw]freerdp3?\b[^\r\n|;&]*?[ \t]/p:)"
        r"[^\s'\"\-$<{%*\[(/][^\s'\"]*",
        True,
        "A password where one tool's command line puts it: ``redis-cli -a``, ``sqlcmd``/``bcp -P`` (their ``-a`` is "
        "the packet size), "
        "``ldapsearch -w`` (the same letters are other options elsewhere: grep's ``-w``, ls' ``-a``), the "
        "word after ``net use .. /user:name``, ``htpasswd -b file user <pw>``, PowerShell's "
        "``ConvertTo-SecureString '<pw>' -AsPlainText``, Windows' ``net user <name> <pw>`` and ``schtasks .. /rp <pw>``, "
        "``mosquitto_pub -P``, net-snmp's ``-A``/``-X``, ``rabbitmqctl add_user <name> <pw>``, ``smbclient -U user%<pw>``, "
        "``poetry config http-basic.<repo> <user> <pw>``, ``cargo login <token>``, IPMI/BMC and remote-desktop "
        "tools (``ipmitool -P``, ``racadm -p``, ``x11vnc -passwd``, ``xfreerdp /p:``), ``nuget push -k``, ``gh secret set "
        "<name> --body``, and ``redis-cli``'s ``-a`` as an argv list prints it (strace's ``[\"redis-cli\", \"-a\", \"..\"]``); "
        "archivers' ``zip -P``/``7z -p``, ``sshpass -p``, PuTTY's ``-pw``, ``openssl enc -k``, ``lftp -u user,<pw>``, "
        "``db2 connect .. user <name> using <pw>``, ``wpa_passphrase <ssid> <pw>``, ``mosquitto_passwd -b <file> <user> <pw>``, "
        "``mc alias set <name> <url> <access> <secret>`` and ``sp_addlogin '<name>', '<pw>'``; "
        "``$VAR``, ``<pw>``, ``*`` (prompt) and options (``-x``, ``/add``) stay.",
        hints=("redis-cli", "sqlcmd", "bcp", "osql", "isql", "ldap", "net", "htpasswd", "securestring", "schtasks", "mosquitto_", "snmp", "-x", "rabbitmqctl", "smb", "rpcclient", "poetry", "cargo", "ipmitool", "racadm", "vnc", "freerdp", "nuget", "gh",
               "zip", "7z", "sshpass", "pscp", "plink", "psftp", "putty", "openssl", "db2", "wpa_passphrase", "mc", "lftp", "sp_addlogin"),
        # each tool's name as a word, as the regex reads it (``zip`` alone ran the rule on every ``gzip``: 56 of the 67
        # bench lines that triggered it, none matched)
        trigger=r"\b(?:(?:un)?zip(?:cloak)?\b|7z[az]?\b|sshpass\b|pscp|plink|psftp|putty|openssl\b|(?i:db2)\b|wpa_passphrase"
        r"|mc[ \t]+(?:alias|config)|lftp\b|sp_addlogin|nuget[ \t]+push|gh[ \t]+secret[ \t]+set|ipmitool\b|racadm\b|x11vnc\b"
        r"|vncviewer\b|[xw]freerdp|poetry[ \t]+config|cargo[ \t]+login|redis-cli|(?:sqlcmd|bcp|osql|isql)\b|ldap[a-z]+[ \t]"
        r"|mosquitto_|snmp[a-z]+[ \t]|rabbitmqctl[ \t]|(?:smbclient|rpcclient|smbmap|smbcacls)\b"
        r"|(?i:net[ \t]+use|net[ \t]+user|convertto-securestring|schtasks)|htpasswd[ \t])|-x[ \t]+(?i:aes|des)",
    ),
    SecretPattern(
        "chpasswd_pair",
        "keyword",
        r"(\becho[ \t]+['\"]?[A-Za-z0-9_.\-]+:)[^\s'\"$<{*\[][^\s'\"]*(['\"]?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd)",
        True,
        "``echo 'user:<pw>' | chpasswd``: the password of a user:password pair piped to chpasswd.",
        keep_suffix=True,
        hints=("chpasswd",),
    ),
    SecretPattern(
        "piped_secret_stdin",
        "keyword",
        # the value holds a digit (RE2 alone cannot tell ``echo ok | sudo -S true`` from a password otherwise)
        r"(\b(?:echo|printf|yes)(?:[ \t]+-[neE]{1,3})*[ \t]+(?:['\"]%s(?:\\n)?['\"][ \t]+)?['\"]?|<<<[ \t]*['\"]?)"
        r"[^\s'\"|$<>{%*\[(\\;&][^\s'\"|<>;&0-9]*[0-9][^\s'\"|<>;&]*"
        r"(['\"]?[ \t]*(?:\|[^|\r\n]*?(?i:--password-stdin|--stdin|-passin[ \t]+stdin|\bsudo(?:[ \t]+-[A-Za-z]+)*[ \t]+-[A-Za-z]*S\b"
        r"|\bpasswd\b|\bkinit\b|\blogin\b|\bsecrets?[ \t]+(?:set|put|create|add)\b|--with-token|luks(?:open|format|addkey)|\bkeytool\b)"
        r"|>{1,2}[ \t]*[^\s|;&<>]*(?i:secret|pass|token|key|cred|pwd)))",
        True,
        "A secret echoed into a command that reads a credential from its standard input (``echo '<pw>' | docker login "
        "--password-stdin``, ``| sudo -S``, ``| kinit``, ``| passwd``, ``| gh auth login --with-token``, ``| vault login -``, "
        "``| cryptsetup luksOpen``, ``| openssl .. -passin stdin``, ``| docker secret create``, ``yes '<pw>' | keytool``) "
        "or into a file named for a secret (``echo .. > /run/secrets/db_password``); ``$VAR``, ``$(cat file)`` and words "
        "without a digit stay, and Python also requires a password's or a random value's shape. A here-string piped on "
        "(``cat <<< '<pw>' | docker login --password-stdin``) the same.",
        keep_suffix=True,
        hints=("echo", "printf", "yes", "<<<"),
        verify="credential",
        trigger=r"(?:echo|printf|yes)[ \t]|<<<",
    ),
    SecretPattern(
        "herestring_secret",
        "keyword",
        r"((?i:--password-stdin|--stdin|passwd|\blogin\b|secret|token|password)[^\r\n|;&<>]*<<<[ \t]*['\"]?)"
        r"[^\s'\"|$<>{%*\[(\\;&][^\s'\"|<>;&0-9]*[0-9][^\s'\"|<>;&]*",
        True,
        "A secret given as a here-string to a command that reads a credential (``podman login .. --password-stdin <<< "
        "'<pw>'``, ``smbpasswd -s -a <user> <<< '<pw>'``, ``vercel env add API_SECRET production <<< <value>``); "
        "``<<< \"$line\"`` stays.",
        hints=("<<<",),
        verify="credential",
        trigger=r"<<<",
    ),
    SecretPattern(
        "config_set_secret",
        "keyword",
        # a configuration verb, up to 8 arguments (a profile, a domain, ``--global``), a key that ends in a secret's
        # word (``aws_secret_access_key``, ``sendemail.smtppass``, ``users.ci.token``, ``npmAuthToken``), a type flag
        # (``defaults write .. -string``), then the value after a space: no ``=`` to find it by
        r"((?:\b(?i:config(?:ure)?|set|setenv|setx|fw_setenv|write|update|create)(?:[ \t]+[^\s|;&'\"<>=]+){0,8}?"
        # or an option that takes a parameter's name and value (papermill's ``-p name value``, ``--parameter name value``)
        r"|(?:^|[ \t])(?:-p|--param(?:eter)?s?))[ \t]+['\"]?"
        r"[A-Za-z0-9_.:/@\-]*(?i:pass(?:word|wd|phrase)?|pwd|psk|secret|token|masterauth|credentials?|pypi-token\.[A-Za-z0-9_\-]+"
        r"|(?:api|access|secret|private|auth|master|encryption|license|app)[_\-.]?key)"
        r"['\"]?[ \t]+(?:-[A-Za-z]+[ \t]+)?['\"]?"
        # or a credential's noun as the command's subject, a verb that stores it, its name or id, then the value
        # (``confluent api-key store <key> <secret>``, ``vercel secrets add <name> <value>``)
        r"|(?:^|[ \t])(?i:api[_\-]?keys?|secrets?|tokens?|credentials?|passwords?)[ \t]+(?i:store|add|set|save|put)[ \t]+"
        r"[^\s'\"|;&<>=\-][^\s'\"|;&<>=]*[ \t]+['\"]?)"
        r"[^\s'\"|$<>{%*\[(\\;&\-][^\s'\"|<>;&0-9]*[0-9][^\s'\"|<>;&]*",
        True,
        "A configuration command that sets a key named for a secret to a value given after a space (``aws configure set "
        "aws_secret_access_key ..``, ``git config --global sendemail.smtppass ..``, ``yarn config set npmAuthToken ..``, "
        "``kubectl config set users.ci.token ..``, ``launchctl setenv GITHUB_TOKEN ..``, ``setx API_TOKEN ..``, "
        "``defaults write <domain> apiKey -string ..``, ``fw_setenv wifi_psk ..``, ``dotnet user-secrets set "
        "\"Stripe:SecretKey\" ..``, redis' ``CONFIG SET requirepass ..``, ``poetry config pypi-token.<repo> ..``), an "
        "option that takes a parameter's name and value (papermill's ``-p api_key ..``, ``--parameter db_password ..``), and "
        "a command whose subject is the credential, a verb that stores it, its name or id, then the value (``confluent "
        "api-key store <key> <secret>``, ``vercel secrets add <name> <value>``); a "
        "placeholder, an option and a value without a digit stay (``config get``/``unset`` give none), and Python also "
        "requires a password's or a random value's shape.",
        hints=("pass", "pw", "psk", "secret", "token", "auth", "credential", "key"),
        verify="credential",
        # the key's word, then the value after a space up to its first digit (98 bench lines ran the rule on the word
        # and a space, none matched)
        trigger=r"(?i:pass(?:word|wd|phrase)?|pwd|psk|secret|token|auth|credentials?|key|pypi-token\.[A-Za-z0-9_\-]+)(?i:s)?['\"]?[ \t]+"
        r"(?:-[A-Za-z]+[ \t]+|(?i:store|add|set|save|put)[ \t]+[^\s'\"|;&<>=\-][^\s'\"|;&<>=]*[ \t]+)?['\"]?"
        r"[^\s'\"|$<>{%*\[(\\;&\-][^\s'\"|<>;&0-9]*[0-9]",
    ),
    SecretPattern(
        "cookie_outside_header",
        "header",
        r"(\t(?:TRUE|FALSE)\t[^\t\r\n]*\t(?:TRUE|FALSE)\t[0-9]+\t[^\t\r\n]+\t|<Cookie [^\s=<>]+="
        r"|(?i:set_?cookie|\.cookie|add_cookie|new[ \t]+cookie)\([ \t]*['\"][^'\"\r\n]+['\"][ \t]*,[ \t]*['\"]"
        r"|(?i:cookies)['\"]?[ \t]*[:=][ \t]*\{[ \t]*['\"][^'\"\r\n]+['\"][ \t]*:[ \t]*['\"]|(?i:cookie)[ \t]+['\"]"
        r"|(?m:^)[A-Za-z0-9_.\-]*(?i:sess|sid)[A-Za-z0-9_.\-]*\t)"
        r"(?:s%3[Aa])?[A-Za-z0-9_\-+/.~]{15}[^\s'\"<>,;]*",
        True,
        "A cookie's value outside a ``Cookie:`` header: a Netscape cookie jar's line (domain, flag, path, secure, "
        "expiry, name, value), ``http.cookiejar``'s ``<Cookie name=value for host/>``, a call that sets one "
        "(``res.cookie('sid', '..')``, ``setcookie(\"PHPSESSID\", \"..\")``, ``set_cookie``, ``new Cookie(..)``), the first "
        "entry of a ``cookies`` mapping, a quoted value after the word cookie, DevTools' row of a session cookie "
        "(name, tab, value); a value of 15+ token characters that, in Python, looks random (``lang=en``, consent flags and "
        "counters stay).",
        hints=("true\t", "false\t", "cookie", "sess", "sid"),
        verify="random",
        trigger=r"\t(?:TRUE|FALSE)\t|(?i:cookie)|(?i:sess|sid)[A-Za-z0-9_.\-]*\t",
    ),
    SecretPattern(
        "quoted_argv_secret",
        "keyword",
        # the value holds a digit in RE2 (a list of field names, ``['password', 'email']``, holds none)
        r"([\"'](?:(?i:auth)[\"'](?:[ \t]*,[ \t]*|[ \t]+)(?:[\"'][A-Za-z0-9_.@\-]{1,64}[\"'](?:[ \t]*,[ \t]*|[ \t]+))?"
        r"|(?i:requirepass|masterauth|pass(?:word|wd)?|secret|token|api[_\-]?key)[\"'](?:[ \t]*,[ \t]*|[ \t]+))[\"']"
        r"|AUTH(?:\\r\\n|\r?\n)\$[0-9]{1,3}(?:\\r\\n|\r?\n)(?:[^\s\\$]{1,64}(?:\\r\\n|\r?\n)\$[0-9]{1,3}(?:\\r\\n|\r?\n))?)"
        r"(?:[0-9]|[^\s'\"\\$<{%*\[(0-9][^\s'\"\\0-9]*[0-9])[^\s'\"\\]*",
        True,
        "A secret as the word after its name in a command's quoted word list: Redis' ``MONITOR`` lines (``\"AUTH\" "
        "[\"<user>\"] \"<pw>\"``, ``\"CONFIG\" \"SET\" \"requirepass\" \"<pw>\"``, ``\"HSET\" \"user:1\" \"password\" \"<pw>\"``), "
        "a client's argument tuple or list (``('AUTH', '<pw>')``, strace's ``[\"redis-cli\", .. \"masterauth\", \"<pw>\"]``) and "
        "the RESP wire form (``*2\\r\\n$4\\r\\nAUTH\\r\\n$N\\r\\n<pw>``, escaped or not); a value with a digit, and in Python "
        "a password's or a random value's shape (field-name lists, ``'(hidden)'`` and masks stay).",
        hints=("auth", "pass", "secret", "token", "api"),
        verify="credential",
        trigger=r"[\"'](?i:auth|requirepass|masterauth|pass|password|passwd|secret|token|api[_\-]?key)[\"'][ \t,]|AUTH(?:\\r\\n|\r?\n)\$",
    ),
    SecretPattern(
        "erlang_secret_term",
        "keyword",
        r"(\{[ \t]*(?:<<\")?[a-z_]*(?i:pass(?:word|wd)?|pwd|secret|token|(?:api|access|secret|private|auth|signing|encryption)_?key)"
        r"(?:\">>)?[ \t]*,[ \t]*(?:<<)?\"|(?:<<\")?[a-z_]*(?i:pass(?:word|wd)?|pwd|secret|token|(?:api|access|secret|private|auth|signing|encryption)_?key)"
        r"(?:\">>)?[ \t]*=>[ \t]*<<\")"
        r"[^\"\\\r\n$<{%*\[][^\"\\\r\n]*",
        True,
        "A secret in an Erlang or Elixir term, as BEAM crash reports print them (RabbitMQ, ejabberd, EMQX): a "
        "``{password, <<\"..\">>}`` or ``{password, \"..\"}`` tuple in a proplist and a map's ``password => <<\"..\">>`` "
        "(the key an atom or a binary); Python also requires a password's or a random value's shape (``<<\"******\">>``, "
        "``{token_ttl,3600}`` stay).",
        hints=("pass", "pwd", "secret", "token", "key"),
        verify="credential",
        trigger=r"(?i:pass|password|passwd|pwd|secret|token|key)(?:\">>)?[ \t]*(?:,[ \t]*(?:<<)?\"|=>[ \t]*<<\")",
    ),
    SecretPattern(
        "irc_identify",
        "keyword",
        # the password is the command's last word: with ``[account]`` optional, only the line's end tells them apart
        r"((?i:nickserv)[ \t:]+(?i:identify)[ \t]+(?:[^\s\[]\S*[ \t]+)?)[^\s'\"\[$<{%*][^\s]*([ \t]*(?:\r?\n|$))",
        True,
        "NickServ's ``IDENTIFY [account] <password>`` as an IRC client sends or logs it (``PRIVMSG NickServ :IDENTIFY ..``, "
        "``/msg NickServ identify <account> ..``): the last word of the line.",
        keep_suffix=True,
        hints=("nickserv",),
        trigger=r"(?i:nickserv)[ \t:]+(?i:identify)[ \t]",
    ),
    SecretPattern(
        "name_value_tuple",
        "keyword",
        rf"((?:{_PASSWORD_KEY}|{_TOKEN_KEY})\\?[\"'][ \t]*,[ \t]*{_PAIR_OPEN}){_PAIR_VALUE}({_PAIR_CLOSE})",
        True,
        "A (name, value) pair whose name is a secret's, as Python prints header lists and metadata: "
        "``('X-Api-Token', '...')`` (werkzeug, requests), ``(b'x-api-key', b'...')`` (ASGI), gRPC metadata; "
        "the closing ``)`` tells a pair from a list of field names (``[\"password\", \"email\"]``), and the value "
        "has a digit, a symbol or a capital inside a word (an exception's args ``('token', 'Expired')`` and a form's "
        "``('password', 'This password is too common.')`` are words). The value may be source text, a string "
        "literal inside the string (code generation: Gradle's ``buildConfigField \"String\", \"API_KEY\", \"\\\"..\\\"\"`` "
        "and ``resValue .., '\"..\"'``, a ``-D`` define's ``\"\\\"..\\\"\"``); such a value also ends its line "
        "without a ``)`` (Groovy's command syntax).",
        keep_suffix=True,
        hints=(*_PASSWORD_HINTS, *_TOKEN_HINTS),
        trigger=rf"(?:{_PASSWORD_TRIGGER_WORDS}|{_TOKEN_TRIGGER_WORDS}){_KEY_VERSION}\\?[\"'][ \t]*,",
        parse=rf"({_KEY_START}{_KEY_CHARS}\\?[\"'][ \t]*,[ \t]*{_PAIR_OPEN}){_PAIR_VALUE}({_PAIR_CLOSE})",
    ),
    SecretPattern(
        "cookie_header",
        "header",
        rf"((?i:cookie)(?:[\"']?[ \t]*[:=]|{_COOKIE_ECHO})[ \t]*[\"']?)[^\s'\"\\\[<{{$*][^\r\n'\"\\\[0-9]*[0-9][^\r\n'\"\\\[]*",
        True,
        "``Cookie:`` / ``Set-Cookie:`` values (raw HTTP, header dicts): the whole value (to the end of "
        "the header) goes when it holds a random-looking run (a session id); ``Cookie: theme=dark`` stays. Also a "
        "(name, value) object's cookie header (HAR ``{\"name\": \"cookie\", \"value\": \"...\"}``) and a console's "
        "echo of ``document.cookie`` on the next line.",
        hints=("cookie",),
        verify="cookies",
        trigger=rf"(?i:cookie)(?:[\"']?[ \t]*[:=]|{_COOKIE_ECHO})",
    ),
    SecretPattern(
        "auth_tuple",
        "keyword",
        r"((?i:auth(?:enticat(?:e|ion))?|api[_\-]?key|credentials?|password|createuser|adduser|login|bind_s|pw_set)(?:[\"']?[ \t]*(?:=>|[=:])[ \t]*[A-Za-z_.]*|\.[A-Za-z_]+)?[(\[][ \t]*(?:[a-z_]+=)?(?:'[^'\r\n]*'|\"[^\"\r\n]*\")"
        r"[ \t]*,[ \t]*(?:[a-z_]*(?:pass|pw|secret|key|token|credential)[a-z_]*=)?['\"])[^'\"\r\n$<{*\[][^'\"\r\n]*",
        True,
        "The password of an auth pair: ``auth=('user', 'pw')`` (requests, httpx; also printed in a dict, ``'auth': "
        "('user', 'pw')``, or a list), ``BasicAuth('user', 'pw')``, "
        "``HTTPBasicAuth(username='u', password='pw')``, Elasticsearch's ``api_key=('id', 'key')``, .NET's "
        "``NetworkCredential(\"u\", \"pw\")``, OkHttp's ``Credentials.basic(\"u\", \"pw\")``, Django's ``authenticate(username=.., password=..)``, "
        "calls that set a user's password (MongoDB ``db.changeUserPassword(\"u\", \"pw\")``, Neo4j ``createUser('u', 'pw', ..)``), "
        "and logins and binds (``smtp.login(\"u\", \"pw\")``, ``simple_bind_s(dn, \"pw\")``, Paho's ``username_pw_set``). "
        "A second argument given by name is a credential's (``password=``): a widget's ``Password(value='', "
        "description='Password:')`` holds no pair.",
        hints=("auth", "key", "credential", "password", "createuser", "adduser", "login", "bind_s", "pw_set"),
        trigger=r"(?i:auth(?:enticat(?:e|ion))?|api[_\-]?key|credentials?|password|createuser|adduser|login|bind_s|pw_set)(?:[\"']?[ \t]*(?:=>|[=:])[ \t]*[A-Za-z_.]*|\.[A-Za-z_]+)?[(\[]",
    ),
    SecretPattern(
        "credential_widget_value",
        "keyword",
        # a call whose name ends in a credential's word (and an input's kind), then its value argument by name
        r"(\b[A-Za-z_.]*(?:Password|Passphrase|Passcode|Secret|Token|ApiKey|APIKey|Credential)(?:Input|Field|Widget|Box|Entry|Str|String|Text)?"
        r"\((?:[^()\r\n]*?,)?[ \t]*(?:value|default|initial(?:_value)?)[ \t]*=[ \t]*['\"])[^'\"\r\n$<{*\[][^'\"\r\n]*",
        True,
        "The value of an input or a holder named for a credential, given by name: ipywidgets' ``Password(value=..)``, "
        "Panel's ``PasswordInput(name=.., value=..)``, ``SecretStr(value=..)``, a form field's ``ApiKeyField(default=..)``"
        " (Python: a password's or a random shape; ``value=''`` and placeholders stay).",
        hints=("password", "passphrase", "passcode", "secret", "token", "apikey", "credential"),
        verify="credential",
        trigger=r"(?:Password|Passphrase|Passcode|Secret|Token|ApiKey|APIKey|Credential)[A-Za-z]*\(",
    ),
    SecretPattern(
        "labelled_input_value",
        "keyword",
        # a call, a string argument that names a credential (the input's label), then the value argument by name
        r"(\((?:[^()\r\n]*?,[ \t]*)?(?:[a-z_]+[ \t]*=[ \t]*)?['\"][^'\"\r\n]*" + _INPUT_LABEL_WORDS + r"[^'\"\r\n]*['\"]"
        r"(?:[ \t]*,[^()\r\n]*?)?[ \t]*,[ \t]*(?:value|default|initial(?:_value)?)[ \t]*=[ \t]*['\"])[^'\"\r\n$<{*\[][^'\"\r\n]*",
        True,
        "The value of a form input whose label names a credential, the label first: Streamlit's "
        "``st.text_input(\"API key\", value=..)``, Panel's ``TextInput(name=\"Warehouse password\", value=..)``, "
        "Gradio's ``Textbox(label=\"HF token\", value=..)`` (Python: a password's or a random shape).",
        hints=("pass", "token", "key", "secret", "credential"),
        verify="credential",
        trigger=_INPUT_LABEL_WORDS + r"[^\r\n]*(?:value|default|initial)[ \t]*=",
    ),
    SecretPattern(
        "input_value_then_label",
        "keyword",
        # the value argument by name, then, later in the same call, a label argument that names a credential
        r"(\((?:[^()\r\n]*?,)?[ \t]*(?:value|default|initial(?:_value)?)[ \t]*=[ \t]*['\"])[^'\"\r\n$<{*\[][^'\"\r\n]*"
        r"(['\"][^()\r\n]*?,[ \t]*(?:description|label|name|title|placeholder|type|help|prompt)[ \t]*=[ \t]*['\"][^'\"\r\n]*"
        + _INPUT_LABEL_WORDS + ")",
        True,
        "The value of a form input whose label, given after it, names a credential: ipywidgets' "
        "``Text(value=.., description='HF token:')``, ``text_input(.., value=.., type=\"password\")`` "
        "(Python: a password's or a random shape).",
        keep_suffix=True,
        hints=("value", "default", "initial"),
        verify="credential",
        trigger=r"(?:value|default|initial)[ \t]*=[^\r\n]*(?:description|label|name|title|placeholder|type|help|prompt)[ \t]*=[^\r\n]*"
        + _INPUT_LABEL_WORDS,
    ),
    SecretPattern(
        "identifier_quoted_value",
        "keyword",
        r"((?:^|[\s@.(,])[A-Za-z0-9_]*(?i:pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credentials?|psk)[ \t]+\")"
        r"[^\s\"\[<{$*%\\][^\s\"\\]*(\")",
        True,
        "A secret-named identifier and a quoted string after a space, as DSLs and attributes write it: Gradle "
        "``storePassword \"...\"``, Elixir ``@api_token \"...\"``, Groovy, Ruby without parentheses; Python requires a "
        "password or random shape.",
        keep_suffix=True,
        hints=("pass", "secret", "token", "key", "credential", "psk"),
        verify="credential",
        trigger=r"(?i:pass(?:word|wd|phrase)|secret|token|api[_\-]?key|credentials?|psk)[ \t]+\"",
    ),
    SecretPattern(
        "auth_call_single",
        "keyword",
        r"((?i:[a-z_]*auth|set_?password|with_?password)\([ \t]*['\"])[^'\"\r\n$<{*\[][^'\"\r\n]*(['\"][ \t]*\))",
        True,
        "A call that authenticates with one string: ``.bearer_auth(\"...\")`` (reqwest), ``red:auth(\"...\")`` "
        "(OpenResty), ``basic_auth(\"...\")``, ``set_password(\"...\")``; Python requires a password or random shape.",
        keep_suffix=True,
        hints=("auth(", "password("),
        verify="credential",
        trigger=r"(?i:auth|password)\([ \t]*['\"]",
    ),
    SecretPattern(
        "hcl_variable_default",
        "keyword",
        r"(variable[ \t]+\"[^\"\r\n]*(?i:pass|secret|token|key|credential)[^\"\r\n]*\"[ \t]*\{[^{}]*?\bdefault[ \t]*=[ \t]*\")"
        r"[^\"\r\n$<{*\[][^\"\r\n]*",
        True,
        "A Terraform/HCL variable named like a secret and its ``default`` (``variable \"db_password\" { default = \"...\" }``).",
        hints=("variable",),
        trigger=r"variable[ \t]+\"",
    ),
    SecretPattern(
        "env_lookup_fallback",
        "keyword",
        # an environment lookup by a credential's name (``ENV.fetch("X")``, ``ENV["X"]``, ``System.get_env("X")``,
        # ``os.getenv("X")``, ``process.env.X``), then the literal used when the variable is unset: Ruby's block
        # (``{ "x" }``), ``||``, ``??``, Python's ``or``, PHP's ``?:``
        r"((?i:env)[A-Za-z_.!]*(?:[\[(][ \t]*[\"'][A-Za-z0-9_]*(?i:pass|secret|token|key|credential|salt)[A-Za-z0-9_]*[\"'][ \t]*[\])]"
        r"|\.[A-Za-z0-9_]*(?i:pass|secret|token|key|credential|salt)[A-Za-z0-9_]*)"
        r"[ \t]*(?:\{|\|\||\?\?|\?:|[ \t]or)[ \t]*[\"'])[^\"'\r\n$<{*\[][^\"'\r\n]*",
        True,
        "The literal an environment lookup falls back to when a credential's variable is unset (Rails' "
        "``ENV.fetch(\"DATABASE_PASSWORD\") { \"...\" }``, Elixir's ``System.get_env(\"SECRET\") || \"...\"``, "
        "``process.env.API_KEY ?? '...'``, Python's ``os.getenv('TOKEN') or '...'``): the default is the secret when "
        "the variable is missing (the call forms with the default as an argument are argument pairs, caught elsewhere).",
        hints=("env",),
        verify="password",
        trigger=r"(?i:env)[A-Za-z_.!]*(?:[\[(][ \t]*[\"'][A-Za-z0-9_]*[\"'][ \t]*[\])]|\.[A-Za-z0-9_]+)[ \t]*(?:\{|\|\||\?\?|\?:|[ \t]or)",
    ),
    SecretPattern(
        "dsn_user_password_at",
        "uri",
        r"(\b[A-Za-z0-9_.\-]+:)[^\s\[][^\s]*?(@(?:tcp6?|udp|unix)\()",
        True,
        "Go's MySQL driver DSN ``user:pw@tcp(host:3306)/db``, which has no scheme (the password may hold ``@``).",
        keep_suffix=True,
        hints=("@tcp", "@udp", "@unix"),
        trigger=r"@(?:tcp6?|udp|unix)\(",
    ),
    SecretPattern(
        "jdbc_oracle_user_password",
        "uri",
        r"(jdbc:oracle:[a-z]+:@?[A-Za-z0-9_$#.\-]*/"
        r"|\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sqlcl)(?:[ \t]+(?:-[A-Za-z]+|target|auxiliary|catalog))*[ \t]+"
        r"(?:userid=)?[A-Za-z0-9_$#]+/)[^\s@/\[][^\s@/]*(@)",
        True,
        "Oracle's ``jdbc:oracle:thin:user/pw@host`` (user and password separated by ``/``, no ``://``), and the same "
        "connect string given to Oracle's tools (``sqlplus -s user/pw@//host:1521/svc``, ``expdp``, ``rman``, ...).",
        keep_suffix=True,
        hints=("jdbc:oracle:", "sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "sqlcl"),
        trigger=r"jdbc:oracle:[a-z]+:@?[A-Za-z0-9_$#.\-]*/|\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sqlcl)[ \t]",
    ),
    SecretPattern(
        "secret_phrase_colon",
        "keyword",
        r"(\b(?i:password|passwd|passphrase|passcode|token|secret|api[ _\-]?key)(?:[ \t]+(?:[A-Za-z0-9_.\-']|[^\x00-\x7f])+){1,4}[ \t]*:[ \t]*)"
        + _loose_with_digit(_PHRASE_VALUE, _PHRASE_VALUE_NO_DIGIT)
        + r"(?:([\s'\"`,;)\]}>])|$)",
        True,
        "Prose that names a secret, a few words, a colon and a password-shaped value "
        "(``generated password for user ops: <value>``); ``password hashes: algorithm=argon2id`` stays.",
        keep_suffix=True,
        hints=("pass", "token", "secret", "key"),
        verify="password",
        trigger=r"(?i:password|passwd|passphrase|passcode|token|secret|key)(?:[ \t]+(?:[A-Za-z0-9_.\-']|[^\x00-\x7f])+){1,4}[ \t]*:",
    ),
    SecretPattern(
        "pgpass_line",
        "keyword",
        r"(\b[A-Za-z0-9_.\-*]+:(?:[0-9]{1,5}|\*):[A-Za-z0-9_.\-*]+:[A-Za-z0-9_.\-*]+:)[^\s'\"\[:\\](?:[^\s'\":\\]|\\.){2,}"
        r"(?:([\s'\",;)\]}>])|$)",
        True,
        "A PostgreSQL password-file line ``host:port:database:user:password`` (a ``:`` in the password is escaped "
        "``\\:``, so colon-separated hex bytes, MAC addresses and fingerprints are no such line); the password is the "
        "last field, so ``/etc/passwd`` and ``/etc/shadow`` lines (more fields after it) are none.",
        keep_suffix=True,
        hints=(":",),
        trigger=r":(?:[0-9]{1,5}|\*):[A-Za-z0-9_.\-*]+:[A-Za-z0-9_.\-*]+:[^\s'\"\[]",
    ),
    # --- personal data ------------------------------------------------------------------------------
    # --- credentials at rest and in hand-offs (the tenth set) ------------------------------------
    SecretPattern(
        "table_row_secret",
        "keyword",
        r"(?m:^)([ \t]*[|│┃]?[ \t]*(?:[0-9]+[ \t]*[|│┃][ \t]*)?`?(?i:[A-Za-z0-9_.\- ]*?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\- ]?key"
        r"|(?:access|secret|private|client|signing|master|account|storage|session)[_.\- ]?key|credentials?))`?[ \t]*[|│┃][ \t]*`?)"
        r"[^\s|│┃`'\"*\[<$%{][^\s|│┃`'\"0-9]*[0-9][^\s|│┃`'\"]*",
        True,
        "A key/value table's row whose first cell names a secret: Markdown (``| DB_PASSWORD | .. |``), psql's "
        "expanded display (``api_key    | ..``), box-drawn CLI tables (``│ api_token │ .. │``) and ``aws --output "
        "table`` (``| SecretAccessKey | .. |``), after a row-number cell too (pandas' ``df.to_markdown()``: ``|  1 | "
        "password | .. |``). The value needs a digit, and Python a password or random shape "
        "(``| password_min_length | 12 |``, ``token_type | bearer`` and dates stay).",
        hints=("|", "│", "┃"),
        verify="credential",
        trigger=r"(?i:pass|pwd|secret|token|key|credential)[A-Za-z]*`?[ \t]*[|│┃]",
    ),
    SecretPattern(
        "markup_secret_value",
        "keyword",
        r"((?i:password|passcode|passwort|secret|token|api[ _\-]?key|access[ _\-]?key)[ \t]*:?[ \t]*"
        r"(?:</[A-Za-z][A-Za-z0-9]*>[ \t]*)+(?:<[A-Za-z][A-Za-z0-9]*(?:[ \t][^<>\r\n]*)?>[ \t]*)*"
        r"|(?i:password|passcode|passwort|secret|token|api[ _\-]?key|access[ _\-]?key)[ \t]*:[ \t]*(?:<[A-Za-z][A-Za-z0-9]*(?:[ \t][^<>\r\n]*)?>[ \t]*)+)"
        r"[^\s<>'\"*\[$%{&][^\s<>'\"&0-9]*[0-9][^\s<>'\"&]*",
        True,
        "A secret's name in markup and its value in the next element, as HTML mails and pages give it "
        "(``<td>Password</td><td>..</td>``, ``<dt>Client secret</dt><dd>..</dd>``, ``<b>Temporary password:</b> ..``, "
        "``API key: <code>..</code>``). The value needs a digit, and Python a password or random shape.",
        hints=("pass", "secret", "token", "key"),
        verify="credential",
        trigger=r"(?i:password|passcode|passwort|secret|token|key)[ \t]*(?::?[ \t]*</|:[ \t]*<[A-Za-z])",
    ),
    # --- credentials in human-written text (the fourteenth set, ``prose``) -------------------------
    SecretPattern(
        "prose_secret_handoff",
        "keyword",
        rf"({_HANDOFF_BEFORE}(?:{_HANDOFF_LEAD}(?i:{_HANDOFF_WORDS})[ \t]*:?[ \t]+|(?:[A-Za-z0-9]+_)*(?i:{_HANDOFF_WORDS})`?(?:{_HANDOFF_GAP})"
        rf"|(?i:pwd?|pass|passwd|password|psk|pin)[ \t]+)|(?:🔑|🔐)[ \t]+)" + _HV_QUOTED + _HV_END,
        True,
        "A credential handed over in a sentence, as chat, tickets and mail write it: ``the password for x is ..``, "
        "``changed the root pw to ..``, ``new token → ..``, ``*Token:* ..``, ``- API key — ..``, ``token (..)``, "
        "``password (temporary): ..``, ``if it asks for a password, enter ..``, ``here's the token ..``, ``pw ..``, "
        "``🔑 ..``. A letter and a digit, and Python a password or random shape (``the token is only valid for 60 "
        "minutes``, ``pass rate is 98%``, ``the key insight is ..`` stay).",
        hints=("pass", "pw", "psk", "pin", "secret", "token", "cred", "key", "🔑", "🔐"),
        keep_suffix=True,
        verify="credential",
        # the word and something of a gap after it (a separator, a bracket, an arrow, a value with a digit, a copula or
        # ``to`` later on the line): a line that only mentions a token does not run the rule
        trigger=r"(?i:pass(?:word|wd|phrase|code)?|pwd?|psk|pin|secret|token|cred(?:ential)?s?|key)`?(?:[ \t]*[*_]*[ \t]*(?:[:(→➡—–]|[=\-]>)|[ \t]+[^\s]*[0-9]"
        r"|[^\r\n]*[ \t](?i:is|was|are|became|be|now|it'?s|to|as|enter|type|paste|=|-|->|=>|→|➡)[ \t:\x{FE0F}])|🔑|🔐",
    ),
    SecretPattern(
        "prose_use_value_as",
        "keyword",
        r"(\b(?i:use|paste|enter|type|try|with)[ \t]+['\"`‘“]?)" + _HV
        + rf"(['\"`’”]?[ \t]+(?i:as|for|into|in)[ \t]+(?:(?i:the|a|an|your|my|our)[ \t]+)?(?:[A-Za-z\-]+[ \t]+){{0,2}}(?i:{_HANDOFF_WORDS})(?:[ \t]*(?:[^\sA-Za-z0-9]|(?m:$))|[ \t]+(?i:for|to|of|on|in|at|from|with|and|here|now|until|you|we|i|that|which|so|but|field|box|input|prompt)\b))",
        True,
        "A value and then what it is for: ``use .. as the token``, ``just use .. for the password``, ``paste .. as "
        "the API key``, ``paste .. into the token field``; the credential's word ends its noun phrase (``use HS256 as the token "
        "signing algorithm`` stays). A letter and a digit, and Python a password or random shape.",
        keep_suffix=True,
        hints=("pass", "pw", "psk", "pin", "secret", "token", "cred", "key"),
        verify="credential",
        trigger=r"(?i:as|for|into|in)[ \t]+(?:[A-Za-z\-]+[ \t]+){0,3}(?i:pass|pw|psk|pin|secret|token|cred|key)",
    ),
    SecretPattern(
        "prose_value_is_the",
        "keyword",
        r"((?:^|[\s(>])['\"`‘“]?)" + _HV
        + rf"(['\"`’”]?[ \t]+(?:(?:-|—|–|←|<-)[ \t]+)?(?i:is|was|that'?s|this[ \t]+is|it'?s|(?:will|would)[ \t]+be|becomes)[ \t]+(?i:the|your|my|our)[ \t]+"
        rf"(?:[A-Za-z\-]+[ \t]+){{0,2}}(?i:{_HANDOFF_WORDS})(?:[ \t]*(?:[^\sA-Za-z0-9]|(?m:$))|[ \t]+(?i:for|to|of|on|in|at|from|with|and|here|now|until|you|we|i|that|which|so|but|field|box|input|prompt)\b))",
        True,
        "A value named after it: ``.. is the password``, ```..` is the API key for the sandbox``, ``.. ← that's the bot "
        "token``; the credential's word ends its noun phrase (``Argon2id is the password hashing algorithm`` stays). A letter "
        "and a digit, and Python a password or random shape.",
        keep_suffix=True,
        hints=("pass", "pw", "psk", "pin", "secret", "token", "cred", "key"),
        verify="credential",
        trigger=r"(?i:is|was|s|be|becomes)[ \t]+(?i:the|your|my|our)[ \t]+(?:[A-Za-z\-]+[ \t]+){0,2}(?i:pass|pw|psk|pin|secret|token|cred|key)",
    ),
    SecretPattern(
        "prose_user_slash_password",
        "keyword",
        r"((?:\b(?i:creds?|credentials|logins?|user/pass(?:word)?|username/password|u/p)(?:[ \t]+(?i:are|is|for[ \t]+[^\s:]+))?"
        r"(?:[ \t]*[:=][ \t]*|[ \t]+)[a-z][a-z0-9_.\-]*[ \t]*/|(?:^|[ \t>(])[a-z][a-z0-9_.\-]*[ \t]+/[ \t])[ \t]*)" + _HV + _HV_END,
        True,
        "A user and a password joined by a slash, as people write a login: ``creds are deploy / ..``, ``login: "
        "backup / ..``, ``jenkins -> admin / ..`` (without a credential word the slash needs spaces around it, so "
        "paths stay). A letter and a digit, and Python a password or random shape.",
        hints=("/",),
        keep_suffix=True,
        verify="credential",
        trigger=r"[ \t]/[ \t]|(?i:creds?|credentials|logins?|user/pass(?:word)?|username/password|u/p)(?:[ \t]+(?i:are|is|for[ \t]+[^\s:]+))?"
        r"[ \t]*[:=]?[ \t]*[a-z][a-z0-9_.\-]*[ \t]*/",
    ),
    SecretPattern(
        "prose_chat_answer",
        "keyword",
        rf"(\b(?i:{_HANDOFF_WORDS})(?:[ \t]+[A-Za-z']+){{0,4}}[ \t]*\?[ \t]*(?:\r?\n(?:[^\r\n]*?[ \t:>])?[ \t]*|(?i:it'?s)[ \t]+)?['\"`]?)"
        + _HV + r"([ \t]*(?:\r?\n|$))",
        True,
        "The answer to a question about a credential: ``what's the db password?`` and the next line (after a "
        "speaker's name or ``A:``), ``the token? ..``, ``password for the mailbox? it's ..``. The value alone on its "
        "line, a letter and a digit, and Python a password or random shape.",
        keep_suffix=True,
        hints=("?",),
        verify="credential",
        trigger=r"(?i:pass|pw|psk|pin|secret|token|cred|key)[^\r\n?]*\?",
    ),
    SecretPattern(
        "prose_key_random",
        "keyword",
        r"(\b(?i:this|that|the|a|fresh|new)[ \t]+(?i:key|token|secret|code)(?:[ \t]+[A-Za-z']{2,10}){0,3}?[ \t]*:?[ \t]*['\"`]?)"
        r"[A-Za-z0-9+=_~][A-Za-z0-9+/=_~]{7}[A-Za-z0-9+/=_\-~]{8,}",  # not ``/`` first: a path
        True,
        "A random value a few words after ``this key``, ``a token``, ``the secret`` or ``this code``: ``a fresh key for you ..``, "
        "``enter this key instead: ..``, ``try again with this code: ..``. Python: random, and not hex digits and "
        "dashes alone (ids and digests).",
        hints=("key", "token", "secret", "code"),
        verify="unnamed",
        trigger=r"(?i:this|that|the|a|fresh|new)[ \t]+(?i:key|token|secret|code)",
    ),
    SecretPattern(
        "prose_numeric_code",
        "keyword",
        r"(\b(?i:pin|puk|passcode|combo|combination|otp"
        r"|(?:door|gate|alarm|garage|lockbox|keypad|safe|locker|entry|access|security|verification|login|sign-?in|one-time|confirmation|2fa|mfa"
        r"|auth|authentication|backup|recovery|dial-in|unlock|puk|pin)[ \t\-]?code|(?:use|enter)[ \t]+(?:the[ \t]+|this[ \t]+)?code)"
        r"(?:[ \t]+(?i:code|number))?(?:[ \t]+(?i:for[ \t]+(?:the|my|your|our)[ \t]+[A-Za-z\-]+))?(?:[ \t]+(?i:is|was|has[ \t]+been)(?:[ \t]+(?i:now))?)?(?:[ \t]+(?i:set|changed|reset)[ \t]+to)?(?:[ \t]*[:=][ \t]*|[ \t]+))[0-9]{4,10}(?:([#\s.,;)])|$)",
        True,
        "A numeric code in its context: ``alarm PIN: ..``, ``the gate code is ..``, ``lockbox combo ..``, ``PUK ..``, "
        "``Your one-time code: ..``, ``Use code .. to sign in`` (4-10 digits; ``exit code 137`` and ``PIN must be "
        "4-6 digits`` stay).",
        keep_suffix=True,
        hints=("pin", "puk", "code", "combo", "combination", "otp"),
        trigger=r"(?i:pin|puk|code|combo|combination|otp|number|is|was|now|to)[ \t]*[:=]?[ \t]*[0-9][0-9][0-9][0-9]",
    ),
    SecretPattern(
        "prose_code_is_your",
        "keyword",
        r"((?:^|[\s(:]))[0-9]{4,10}([ \t]+(?i:is|was)[ \t]+(?i:your|the)[ \t]+(?:[A-Za-z\-]+[ \t]+){0,2}(?i:code|pin|passcode|otp|password)\b)",
        True,
        "A numeric code named after it, as SMS and mail send it: ``.. is your login code``.",
        keep_suffix=True,
        hints=("code", "pin", "otp", "pass"),
        trigger=r"[0-9][ \t]+(?i:is|was)[ \t]+(?i:your|the)[ \t]",
    ),
    SecretPattern(
        "prose_use_code_to",
        "keyword",
        r"((?:^|[\s(:])(?i:use|enter|type|input)[ \t]+)[0-9]{4,10}([ \t]+(?i:to)[ \t]+"
        r"(?i:verify|confirm|sign|log|complete|finish|continue|activate|unlock|authenticate|reset)\b)",
        True,
        "A numeric code told what to do with, as SMS and mail send it: ``Use .. to verify your account``, ``Enter .. to "
        "finish signing in``.",
        keep_suffix=True,
        hints=("use", "enter", "type", "input"),
        trigger=r"(?i:use|enter|type|input)[ \t]+[0-9]{4,10}[ \t]+(?i:to)[ \t]",
    ),
    SecretPattern(
        "prose_code_valid_for",
        "keyword",
        r"(\b(?i:code)[ \t]*[:=]?[ \t]*)[0-9]{4,10}([ \t]*[(,;\-–—][ \t]*(?i:valid|expires|expiring|good)[ \t]+(?i:for|in|until)?)",
        True,
        "A numeric code told how long it lasts, as SMS and mail send a one-time code: ``Code: .. (valid 5 min)``, "
        "``code .., expires in 10 minutes`` (a bare ``Code: 404`` stays: error codes are written so).",
        keep_suffix=True,
        hints=("code",),
        trigger=r"(?i:code)[ \t]*[:=]?[ \t]*[0-9][0-9][0-9][0-9]",
    ),
    SecretPattern(
        "prose_code_corrected",
        "keyword",
        r"(\b(?i:pin|puk|passcode|combo|combination|(?:door|gate|alarm|garage|lockbox|keypad|safe|locker)[ \t]?code)\b"
        r"[^\r\n0-9\[]{0,12}(?:[0-9][0-9\-]*|\[REDACTED\])[^\r\n0-9]{0,24}?[ \t](?i:it'?s|it[ \t]+is|actually|really)[ \t]+)"
        r"[0-9]{4,10}"
        r"(?:([#\s.,;)!])|$)",
        True,
        "A numeric code given again after a joke or a slip, on the same line: ``Safe combination is 4-8-15 (just "
        "kidding) it's ..``, ``gate code 1234, no wait, it's ..``.",
        keep_suffix=True,
        hints=("pin", "puk", "code", "combo", "combination"),
        trigger=r"(?i:it'?s|it[ \t]+is|actually|really)[ \t]+[0-9][0-9][0-9][0-9]",
    ),
    SecretPattern(
        "prose_table_column",
        "keyword",
        "(?:" + "|".join(_table_column(n) for n in range(4)) + ")" + _HV + r"(`?[ \t]*(?:\||(?m:$)))",
        4,
        "A Markdown table whose header names a secret's column (``| env | user | password |``, ``Service | Token``): "
        "the first data row's cell in that column (one of the first four). A letter and a digit, and Python a "
        "password or random shape.",
        keep_suffix=True,
        hints=("---",),
        verify="credential",
        trigger=r"\n[ \t]*\|?[ \t]*:?---+:?[ \t]*\|",
    ),
    SecretPattern(
        "prose_code_list",
        "keyword",
        rf"((?i:recovery|backup|2fa|mfa|one-time|single-use)[ \t]+(?i:codes?)\b[^\r\n:]*?(?::|\r?\n)[\s`*•\-]*)"
        rf"{_CODE_ITEM}(?:[\s,`*•\-]+{_CODE_ITEM})*",
        True,
        "A list of recovery or backup codes after its name (``Your recovery codes:`` and one a line, ``backup codes: "
        ".., ..``): each code has a digit.",
        hints=("codes",),
        trigger=r"(?i:recovery|backup|2fa|mfa|one-time|single-use)[ \t]+(?i:codes?)",
    ),
    SecretPattern(
        "prose_grouped_secret",
        "keyword",
        r"(\b(?i:secret|key|seed|totp|2fa|mfa|license|licence|serial|activation|registration|(?:activate|redeem|register|unlock)[ \t]+(?:with|using))"
        r"(?:[ \t]+[A-Za-z']+){0,4}?(?:[ \t]*(?:[:=—–]|[ \t](?i:is))[ \t]*|[ \t]+))"
        rf"(?:[A-Z2-7]{{4}}(?:[ ][A-Z2-7]{{4}}){{3,}}|{_KEY_GROUP_DIGIT}(?:-{_KEY_GROUP}){{2,7}}|{_KEY_GROUP_LETTERS}-{_KEY_GROUP_DIGIT}(?:-{_KEY_GROUP}){{1,6}}"
        rf"|{_KEY_GROUP_LETTERS}(?:-{_KEY_GROUP_LETTERS}){{1,6}}-{_KEY_GROUP_DIGIT}(?:-{_KEY_GROUP}){{0,5}})\b",
        True,
        "A key written in groups after its name: a TOTP secret in base32 fours (``2FA secret for x: ABCD EFGH ..``), a "
        "license or product key in dashed groups (``Activate with XXXXX-XXXXX-..``).",
        hints=("secret", "key", "seed", "totp", "2fa", "mfa", "licen", "serial", "activat", "registration", "redeem", "register", "unlock"),
        # the groups' shape, not the words (``key`` is everywhere): a dashed group with a capital between two (not an
        # id's digits), or three base32 fours
        trigger=r"-[A-Z0-9]*[A-Z][A-Z0-9]*-[A-Z0-9]{4}| [A-Z2-7]{4} [A-Z2-7]{4} [A-Z2-7]{4}",
    ),
    SecretPattern(
        "foreign_copula_password",
        "keyword",
        r"(\b" + _COPULA_WORDS + r"(?:[ \t]+[^\s]+){0,4}?[ \t]+(?i:lautet|ist|est|es|é|is|è|är|er|jest|je|on)"
        r"[ \t]*:?[ \t]*['\"«“„]?"
        r"|(?:密码|密碼|口令|パスワード|비밀번호)[^\s\x00-\x7f]{0,6}?(?:是|为|為|は|는|은)(?:[ \t]+['\"「『“]?|['\"「『“]))"
        r"[A-Za-z0-9_\-.~+/=!#%^?@][A-Za-z0-9_\-.~+/=!#%^*?@]*[0-9][A-Za-z0-9_\-.~+/=!#%^*?@]*",
        True,
        "A password given by a copula in other languages' prose (``Das Passwort für db lautet ..``, ``Le mot de passe "
        "est ..``, ``La contraseña es ..``, ``密码为 ..``, ``パスワードは .. です``, ``비밀번호는 ..``): a digit, and Python "
        "a password shape (``Le mot de passe est incorrect.`` stays). A space or quote after the copula (a separator: "
        "the Collector runs keyword rules only on values that hold one), so ``密码是..`` run together stays.",
        hints=("pass", "kennwort", "contrase", "senha", "wachtwoord", "parola", "senord", "hasło", "haslo", "heslo",
               "jelsz", "adgangskode", "salasana", "密码", "密碼", "口令", "パスワード", "비밀번호"),
        verify="password",
        trigger=r"(?i:passwort|kennwort|mot de passe|contrase|senha|wachtwoord|parola|senord|has(?:ł|l)o|heslo|jelsz"
        r"|adgangskode|passord|salasana)|密码|密碼|口令|パスワード|비밀번호",
    ),
    SecretPattern(
        "foreign_password_phrase",
        "keyword",
        # a few words between the word and a colon (``Neues Passwort für db: ..``, ``Votre mot de passe temporaire : ..``)
        r"((?:^|[^A-Za-z0-9_])" + _PROSE_PASSWORD_WORDS + r"[^\s:：'\"]{0,3}(?:[ \t]+[^\s:：'\"]+(?:'[^\s:：'\"]+)?){0,3}?[ \t]*[:：][ \t]*[" + _OPEN_QUOTES + r"【]?[ \t]*"
        # an opening quote right after the word (``Passwort „..“``, ``mot de passe « .. »``, ``la contraseña ".."``)
        r"|(?:^|[^A-Za-z0-9_])" + _PROSE_PASSWORD_WORDS + r"[ \t]*[" + _OPEN_QUOTES + r"][ \t]*"
        # the qualifier after the noun, as these languages order a compound (``SENHA_BANCO``, ``mot_de_passe_bdd``,
        # ``CONTRASENA_ADMIN``, ``HASLO_BAZY``, ``пароль_бд``, ``токен_доступа``)
        r"|(?:^|[^A-Za-z0-9_])(?i:" + _FOREIGN_NOUN_FIRST + r")(?:[_.\-](?:[A-Za-z0-9]|[^\x00-\x7f])+){1,2}?[ \t]*[:=：＝][ \t]*['\"]?"
        r"|(?:" + _OTHER_SCRIPT_NOUN_FIRST + r")(?:_[^\s:=：＝'\"]+){1,2}?[ \t]*[:=：＝][ \t]*['\"]?"
        # other scripts: a few letters of the sentence, then a colon or an opening bracket (``您的临时密码为：..``,
        # ``значение пароля: ..``, ``パスワード『..』``, ``初期パスワード【..】``, ``비밀번호 '..'``)
        r"|(?:[Пп]арол|ПАРОЛ|[Тт]окен)[^\s:：'\"]{0,3}(?:[ \t]+[^\s:：'\"]+){1,3}?[ \t]*[:：][ \t]*[" + _OPEN_QUOTES + r"]?[ \t]*"
        r"|(?:" + _OTHER_SCRIPT_PROSE_WORDS + r")[^\s\x00-\x7f:：]{0,6}?(?:[ \t]*[:：][ \t]*[「『【“]?|[ \t]*[" + _OPEN_QUOTES + r"【（]))"
        + _LETTER_AND_DIGIT,
        True,
        "A password in other languages' prose and keys, where the English rules' word order does not hold: a few "
        "words, then a colon (``Neues Passwort für db: ..``, ``Votre mot de passe temporaire : ..``, ``значение "
        "пароля: ..``, ``您的临时密码为：..``); an opening quote or bracket right after the word (``Passwort „..“``, "
        "``mot de passe « .. »``, ``パスワード『..』``, ``密碼「..」``); the qualifier after the noun, as Romance and Slavic "
        "languages and Vietnamese write a compound key (``SENHA_BANCO``, ``mot_de_passe_bdd``, ``HASLO_BAZY``, "
        "``пароль_бд``, ``токен_доступа``). The value holds a letter and a digit (a date, a count, ``true`` and a "
        "setting's word stay: ``senha_expira_dias=90``, ``Passwort zuletzt geändert: 2025-03-01``); Python also "
        "requires a password or random shape.",
        hints=("pass", "kennwort", "contrase", "senha", "wachtwoord", "parola", "senord", "hasło", "haslo", "heslo",
               "jelsz", "adgangskode", "salasana", "mdp", "clave", "chave", "jeton", "khau", "khẩu", "sifre", "şifre",
               "парол", "токен", "密码", "密碼", "口令", "パスワード", "비밀번호", "令牌", "トークン", "토큰"),
        verify="credential",
        trigger=r"(?i:" + _FOREIGN_NOUN_FIRST + r"|mot de passe|m(?:ậ|a)t kh(?:ẩ|a)u|has(?:ł|l)|passwort|kennwort|contrase|parola|senord|jelsz"
        r"|adgangskode|passord|salasana)"
        r"|" + _OTHER_SCRIPT_PROSE_WORDS,
    ),
    SecretPattern(
        "capability_link_token",
        "uri",
        r"(/(?i:reset|recover|magic|invite|invitations?|join|verify|verification|confirm|activate|share|signin"
        r"|unsubscribe)(?:[\-_][A-Za-z]+)*/(?:[A-Za-z0-9_\-]{1,8}/){0,2}|/s/|[?&](?:t|k|rlkey)=)"
        r"[A-Za-z0-9_\-]{8,}[0-9A-Z][A-Za-z0-9_\-]{8,}",
        True,
        "Capability links, whose token is the credential: password reset (Django's ``/reset/<uidb64>/<token>/``), "
        "magic sign-in, invitation, e-mail verification and share links, the token a random path segment after "
        "the action's word (a short id segment or two may stand between) or a one-letter parameter (``?t=``, "
        "``?k=``, Dropbox's ``rlkey=``). Python requires a random shape (``/share/quarterly-report-2025`` stays); not "
        "after ``/download/``, where an artifact's hash stands as often.",
        hints=("/", "t=", "k="),
        verify="random",
        trigger=r"/(?i:reset|recover|magic|invit|join|verif|confirm|activat|share|signin|unsubscribe)|/s/|[?&](?:t|k|rlkey)=",
    ),
    SecretPattern(
        "percent_encoded_twice_pair",
        "keyword",
        r"((?i:pass(?:word|wd)?|pwd|secret|token|api[_\-]?key|access[_\-]?key)(?:%2522)?%253[AaDd](?:%2520)?(?:%2522)?)"
        r"(?:[A-Za-z0-9_\-.~]|%25(?:[013-9A-Fa-f][0-9A-Fa-f]|2[13-57-9A-Fa-f]))+",
        True,
        "A secret-named pair percent-encoded twice (a URL or JSON carried inside a parameter of another URL: "
        "``next=%2Fapi%3Ftoken%253D..``, ``%2522password%2522%253A%2520%2522..``): the value up to the next encoded "
        "``&``, ``\"`` or space. Its own rule: widening every keyword separator pushed their ``parse`` programs past "
        "RE2's 512-instruction BitState limit.",
        hints=("%253",),
        trigger=r"%253[AaDd]",
    ),
    SecretPattern(
        "escaped_separator_pair",
        "keyword",
        # a removed value (``[-old-]``, and the added one after it, both: first, so the Collector's leftmost-first
        # pass takes it too): not a number (``token: [-1]`` is a list)
        rf"({_SHORT_KEY}[ \t]*[:=][ \t]*\[-['\"]?)[^\s&\\'\"<>\[\]{{}}$*0-9][^\s&\\'\"<>}}]*"
        rf"|({_SHORT_KEY}{_ESCAPED_QUOTE}?[ \t]*(?:{_ESCAPED_SEP}[ \t]*{_ESCAPED_QUOTE}?|[:=][ \t]*{_ESCAPED_QUOTE}"
        r"|\?=[ \t]*|::=[ \t]*|[:=][ \t]*(?:\[-[^\]\r\n]*-\])?\{\+['\"]?))"
        r"[^\s&\\'\"<>\[\]{}$*][^\s&\\'\"<>}]*"
        rf"|(&lt;[A-Za-z0-9_:.\-]*{_SHORT_KEY}&gt;)[^\s&<$*\[{{][^\s&<]*(&lt;/)",
        3,
        "A secret-named pair whose quote or separator is escaped or marked as other syntaxes write them: HTML's "
        "numeric entities (``&#34;password&#34;: &#34;..``, ``token=&#39;..``) and escaped markup "
        "(``&lt;Password&gt;..&lt;/Password&gt;``), JavaScript's ``\\x22``/``\\x3d`` and JSON's ``\\u0022``/``\\u003d`` "
        "escapes, Make's ``?=`` and ``::=`` assignments, and ``git diff --word-diff``'s ``[-old-]{+new+}`` around a "
        "value (both go): the value up to the next entity, escape, quote or marker; placeholders (``$(..)``, "
        "``${..}``) and empty values stay.",
        keep_suffix=1,
        hints=("&#", "&lt;", "\\x", "\\u00", "?=", "::=", "{+", "[-", "&quot;", "&apos;", "\\'"),
        trigger=r"&#0*(?:3[49]|61|58);|&#[xX]0*(?:2[27]|3[AaDd]);|\\x(?:2[27]|3[AaDd])|\\u00(?:2[27]|3[AaDd])|\?=|::="
        r"|[:=][ \t]*(?:&(?:quot|apos);|\{\+|\[-|\\')|&lt;[A-Za-z0-9_:.\-]*(?i:pass|pwd|secret|token|key|credential)",
    ),
    SecretPattern(
        "scanner_finding_value",
        "keyword",
        r"((?:\bRaw result|\"Raw(?:V2)?\"|\bFinding\.{3,})[ \t]*:[ \t]*\"?)[^\s\"*\[<$(][^\s\"]*",
        True,
        "What a secret scanner's report echoes as the secret it found, under the scanner's own field names: "
        "TruffleHog's ``Raw result:`` and ``\"Raw\"``/``\"RawV2\"``, Kingfisher's ``Finding.......:`` (gitleaks' "
        "``Secret:`` is a secret's name already); empty and masked fields stay, and, Python only, a value that looks "
        "neither random nor like a password (``\"Raw\": \"GET ..\"``).",
        hints=("raw", "finding..."),
        verify="credential",
        trigger=r"Raw result[ \t]*:|\"Raw(?:V2)?\"[ \t]*:|Finding\.{3}",
    ),
    SecretPattern(
        "ldif_base64_password",
        "keyword",
        r"((?i:[A-Za-z]*password)::[ \t]*)[A-Za-z0-9+/]{4,}={0,2}",
        True,
        "LDIF's base64-encoded value (``userPassword:: e1NTSEF9..``): a password attribute's value, base64 of the "
        "password or its hash.",
        hints=("password::",),
        trigger=r"(?i:password)::",
    ),
    SecretPattern(
        "ci_add_mask",
        "keyword",
        r"(::add-mask::)[^\s'\"*$\[][^\s'\"]*",
        True,
        "GitHub Actions' ``::add-mask::<value>`` workflow command: the value is a secret by declaration (its echo "
        "in a log, before the runner masks it); ``::add-mask::***`` and ``${{ .. }}`` stay.",
        hints=("::add-mask::",),
    ),
    SecretPattern(
        "redis_acl_password",
        "keyword",
        r"((?i:user)\"?[ \t]+\"?[^\s\"]+\"?[ \t]+\"?on\"?[ \t]+\"?>)[^\s\"<>*\[][^\s\"<>]*",
        True,
        "A Redis ACL rule's ``>password`` (``user app on >.. ~* +@all``, ``ACL SETUSER svc on >..``, MONITOR's quoted form).",
        hints=("user",),
        trigger=r"on\"?[ \t]+\"?>[^\s\"<>*\[]",
    ),
    SecretPattern(
        "jaas_user_password",
        "keyword",
        r"(LoginModule[ \t]+(?i:required|requisite|sufficient|optional)\b[^;]*?\buser_[A-Za-z0-9_.\-]+[ \t]*=[ \t]*\")"
        r"[^\"\r\n\[][^\"\r\n]*(\")",
        True,
        "A JAAS login module's ``user_<name>=\"<password>\"`` option (Kafka's PlainLoginModule, ZooKeeper's "
        "DigestLoginModule): the broker's list of users and their passwords.",
        keep_suffix=True,
        hints=("loginmodule",),
        trigger=r"LoginModule",
    ),
    SecretPattern(
        "vault_unseal_key",
        "keyword",
        r"((?i:unseal|recovery)[ _](?i:keys?)(?:_b64|_hex)?(?:[ \t]+[0-9]+)?\"?[ \t]*:[ \t]*\[?[ \t]*\"?)[A-Za-z0-9+/]{20,}={0,2}",
        True,
        "HashiCorp Vault's unseal and recovery keys as ``vault operator init`` prints them (``Unseal Key 1: ..``, "
        "``\"unseal_keys_b64\": [\"..\"``).",
        hints=("unseal", "recovery"),
        trigger=r"(?i:unseal|recovery)[ _](?i:key)",
    ),
    SecretPattern(
        "piped_password",
        "keyword",
        r"(\b(?:echo|printf)[ \t]+(?:-[A-Za-z]+[ \t]+|'[^'\r\n]*%s[^'\r\n]*'[ \t]+)*['\"]?)"
        r"[^\s'\"\\|$<{*\[%\-][^\s'\"\\|]*(?:\\n[^\s'\"\\|]*)*"
        r"(['\"]?[^|\r\n]*\|[ \t]*(?:sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S\b|(?:sudo[ \t]+)?passwd\b))",
        True,
        "A password echoed into a prompt that reads it from standard input: ``echo '..' | sudo -S ..``, "
        "``printf '%s\\n' '..' | passwd --stdin u``, ``echo -e \"..\\n..\" | passwd u``.",
        keep_suffix=True,
        hints=("echo", "printf"),
        trigger=r"\|[ \t]*(?:sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S|(?:sudo[ \t]+)?passwd)",
    ),
    SecretPattern(
        "cloud_init_chpasswd_list",
        "keyword",
        r"(\bchpasswd:[^\r\n]*?(?:\r?\n[ \t]+[^\r\n]*?)*?(?i:list|users)[ \t]*:[ \t]*\|?[ \t]*(?:\r?\n[ \t]*)?"
        r"(?:-[ \t]*|\[[ \t]*)?['\"]?[A-Za-z0-9_.\-]+:)[^\s'\"$*\[<{][^\s'\",\]]*",
        True,
        "cloud-init's ``chpasswd`` ``list`` (``root:<pw>`` lines, a flow list ``['ubuntu:<pw>']``): the first "
        "user's password.",
        hints=("chpasswd",),
        trigger=r"chpasswd:",
    ),
    SecretPattern(
        "ntlm_hash_line",
        "keyword",
        r"((?:(?i:aad3b435b51404ee){2}|X{32}|NO PASSWORDX{21}):)[0-9A-Fa-f]{32}(:)",
        True,
        "An NT hash in pwdump/secretsdump and Samba ``smbpasswd`` lines (``user:rid:<LM>:<NT>:::``), known by the "
        "empty LM hash or Samba's ``X`` run before it: the hash passes the hash (authenticates as the user).",
        keep_suffix=True,
        hints=("aad3b435b51404ee", "xxxxxxxx", "no password"),
        trigger=r"(?i:aad3b435b51404ee)|XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:|NO PASSWORDX",
    ),
    SecretPattern(
        "email_address",
        "pii",
        r"(^|[^/A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b",
        True,
        "E-mail addresses (personal data in constraint violations, arguments, messages); not the "
        "user of a URL without a password (``postgresql://app@db.internal.example/x`` stays).",
        hints=("@",),
        trigger=r"[A-Za-z0-9._%+\-]@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2}",
    ),
    SecretPattern(
        "us_ssn",
        "pii",
        r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
        False,
        "US social security numbers (NNN-NN-NNNN).",
        hints=("-",),
        trigger=r"[0-9]{3}-[0-9]{2}-[0-9]{4}",
    ),
    # --- provider-prefixed tokens ----------------------------------------------------------------------
    _provider(
        "google_api_key", r"AIza[0-9A-Za-z_\-]{30,}", ("aiza",), "Google API keys."
    ),
    _provider(
        "google_oauth_client_secret",
        r"GOCSPX-[A-Za-z0-9_\-]{20,}",
        ("gocspx-",),
        "Google OAuth client secrets.",
    ),
    _provider(
        "google_oauth_access_token",
        r"ya29\.[A-Za-z0-9_\-]{20,}",
        ("ya29.",),
        "Google OAuth access tokens.",
    ),
    _provider(
        "google_oauth_refresh_token",
        r"1//0[A-Za-z0-9_\-]{30,}",
        ("1//0",),
        "Google OAuth refresh tokens.",
    ),
    _provider(
        "azure_ad_client_secret",
        r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{30,}",
        ("q~",),
        "Microsoft Entra ID (Azure AD) client secrets (the Q~ marker).",
        trigger=r"[0-9]Q~",
    ),
    _provider(
        "github_token",
        r"gh[pousr]_[A-Za-z0-9]{36,}",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        "GitHub classic PATs, OAuth, user-to-server, server-to-server and refresh tokens.",
    ),
    _provider(
        "github_fine_grained_pat",
        r"github_pat_[A-Za-z0-9_]{22,}",
        ("github_pat_",),
        "GitHub fine-grained personal access tokens.",
    ),
    _provider(
        "gitlab_token",
        r"gl(?:pat|ptt|dt|rt|cbt|oas|ft|imt|agent|soat|ffct|cat)-[A-Za-z0-9_\-]{20,}",
        ("gl",),
        "GitLab personal, pipeline trigger, deploy, runner, ... tokens.",
        trigger=r"gl(?:pat|ptt|dt|rt|cbt|oas|ft|imt|agent|soat|ffct|cat)-",
    ),
    _provider(
        "slack_token",
        r"(?:xoxe\.)?xox[abposre]-[A-Za-z0-9\-]{10,}",
        ("xox",),
        "Slack bot, user, app and refresh tokens (a configuration token with its ``xoxe.`` prefix whole).",
    ),
    _provider(
        "openai_anthropic_style_key",
        r"\bsk-[A-Za-z0-9_\-]{16,}",
        ("sk-",),
        "sk-... keys: OpenAI (legacy, proj, svcacct, admin), Anthropic sk-ant-, OpenRouter sk-or-.",
    ),
    _provider(
        "stripe_key",
        r"[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
        ("k_live_", "k_test_"),
        "Stripe secret and restricted keys.",
    ),
    _provider(
        "stripe_webhook_secret",
        r"whsec_[A-Za-z0-9]{24,}",
        ("whsec_",),
        "Stripe webhook signing secrets.",
    ),
    _provider(
        "digitalocean_token",
        r"do[opr]_v1_[a-f0-9]{40,}",
        ("_v1_",),
        "DigitalOcean personal, OAuth and refresh tokens.",
        trigger=r"do[opr]_v1_",
    ),
    _provider(
        "hashicorp_vault_token",
        r"hv[sbr]\.[A-Za-z0-9_\-]{20,}",
        ("hvs.", "hvb.", "hvr."),
        "HashiCorp Vault service, batch and recovery tokens.",
    ),
    SecretPattern(
        "hashicorp_vault_legacy_token",
        "provider",
        r"\bs\.[A-Za-z0-9]{24}\b",
        0,
        "HashiCorp Vault's service tokens before 1.10 (``s.`` and 24 base62 characters, Vault's token format docs), "
        "under any key or none (``vault login``'s ``id  s.<24>``): the prefix alone is too short to trust, so the "
        "Python side keeps a value that is not random-looking or a mixed-case password shape (``s.getAbsoluteFilePath``).",
        hints=("s.",),
        verify="unnamed",
        trigger=r"\bs\.[A-Za-z0-9]{24}\b",
    ),
    _provider(
        "terraform_cloud_token",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{30,}",
        (".atlasv1.",),
        "Terraform Cloud / Enterprise API tokens.",
    ),
    _provider(
        "heroku_api_key",
        r"HRKU-[A-Za-z0-9_\-]{20,}",
        ("hrku-",),
        "Heroku API keys (v2).",
    ),
    _provider(
        "docker_hub_pat",
        r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}",
        ("dckr_",),
        "Docker Hub personal/organisation access tokens.",
    ),
    _provider("npm_token", r"npm_[A-Za-z0-9]{36}\b", ("npm_",), "npm access tokens.", trigger=r"npm_[A-Za-z0-9]{36}"),
    _provider(
        "pypi_token",
        r"pypi-AgE[A-Za-z0-9_\-]{40,}",
        ("pypi-age",),
        "PyPI upload tokens.",
    ),
    _provider(
        "artifactory_api_key",
        r"AKCp[A-Za-z0-9]{40,}",
        ("akcp",),
        "JFrog Artifactory API keys.",
    ),
    _provider(
        "atlassian_api_token",
        r"ATATT3[A-Za-z0-9_\-=]{40,}",
        ("atatt3",),
        "Atlassian (Jira/Confluence) API tokens.",
    ),
    _provider(
        "huggingface_token",
        r"hf_[A-Za-z0-9]{30,}",
        ("hf_",),
        "Hugging Face access tokens.",
    ),
    _provider(
        "replicate_token", r"r8_[A-Za-z0-9]{30,}", ("r8_",), "Replicate API tokens."
    ),
    _provider(
        "langsmith_key",
        r"lsv2_(?:pt|sk)_[a-f0-9]{20,}_[a-f0-9]{8,}",
        ("lsv2_",),
        "LangSmith API keys.",
    ),
    _provider(
        "perplexity_key", r"pplx-[A-Za-z0-9]{40,}", ("pplx-",), "Perplexity API keys."
    ),
    _provider(
        "sendgrid_key",
        r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",
        ("sg.",),
        "SendGrid API keys.",
        trigger=r"SG\.[A-Za-z0-9_\-]{16}",
    ),
    _provider(
        "mailchimp_key",
        r"\b[0-9a-f]{32}-us[0-9]{1,2}\b",
        ("-us",),
        "Mailchimp API keys.",
        trigger=r"[0-9a-f]-us[0-9]",
    ),
    _provider(
        "shopify_token",
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        ("shp",),
        "Shopify access, custom-app, private-app and shared-secret tokens.",
    ),
    _provider(
        "square_token",
        r"\b(?:EAAA[A-Za-z0-9_\-]{40,}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,})",
        ("eaaa", "sq0"),
        "Square access tokens and OAuth secrets.",
        trigger=r"EAAA[A-Za-z0-9_\-]{40}|sq0(?:atp|csp)-",
    ),
    _provider(
        "telegram_bot_token",
        r"(?:[0-9]{6,12}:A|\bbot[0-9]{6,12}:)[A-Za-z0-9_\-]{30,}",
        (":a", "bot"),
        "Telegram bot tokens (``<bot id>:AA...``; in the Bot API's /bot<token>/ paths whatever they start with).",
        trigger=r"[0-9]:A[A-Za-z0-9_\-]{30}|bot[0-9]{6,12}:",
    ),
    _provider(
        "postman_key",
        r"PMAK-[a-f0-9]{20,}-[a-f0-9]{20,}",
        ("pmak-",),
        "Postman API keys.",
    ),
    _provider(
        "notion_token",
        r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}\b)",
        ("ntn_", "secret_"),
        "Notion integration tokens.",
        trigger=r"ntn_|secret_[A-Za-z0-9]{43}",
    ),
    _provider(
        "sentry_token",
        r"sntry[us]_[A-Za-z0-9_=+/]{40,}",
        ("sntry",),
        "Sentry user and org auth tokens.",
    ),
    _provider(
        "grafana_token",
        r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,})",
        ("glsa_", "glc_"),
        "Grafana service-account and Grafana Cloud tokens.",
    ),
    _provider(
        "doppler_token",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]+\.)?[A-Za-z0-9]{40,}",
        ("dp.",),
        "Doppler tokens (a service token with its config's name: ``dp.st.<config>.<40+>``).",
    ),
    _provider(
        "databricks_token",
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
        ("dapi",),
        "Databricks personal access tokens.",
        trigger=r"dapi[a-f0-9]{32}",
    ),
    # --- value shapes with no key name (the ``bare`` set): documented fixed prefixes and structures -----
    *_shape_rules(
        "fixed_prefix_token",
        "Credentials known by a documented fixed prefix or structure alone (the ``bare`` set): AWS STS session "
        "tokens (the base64 of their protobuf header), Meta ``EAA…``, X/Twitter app bearers (21 ``A``), FCM server "
        "keys (``:APA91b``), Salesforce session ids (``00D<org>!``), Bitbucket ``ATBB``, Harness ``pat.``/``sat.``, "
        "Slack app-level ``xapp-``, Alibaba ``LTAI``, Tencent ``AKID``, Fly.io ``FlyV1 fm2_``, the 1Password "
        "Secret Key (``A3-`` and six dashed groups), Dropbox ``sl.``, Yandex ``y0_``, Dynatrace ``dt0c01.`` (id "
        "and secret), Contentful ``CFPAT-``, EasyPost ``EZAK``/``EZTK``, ClickUp ``pk_<user>_<32>``, lower-case "
        "hex bodies under a vendor's prefix (RubyGems, ReadMe, MailerSend, Adafruit), Supabase ``sb_secret_`` and "
        "PlanetScale ``pscale_pw_`` bodies with ``-``/``_``, Mailgun's ``<32 hex>-<8 hex>-<8 hex>`` keys and Asana's "
        "``2/<user>/<app>:<32 hex>`` tokens.",
        (
            (r"\b(?:IQoJb3JpZ2luX2V|FwoGZXIvYXdzE|AQoDYXdzE)[A-Za-z0-9+/]{20,}={0,2}", ("iqojb3jpz2lux2v", "fwogzxivyxdze", "aqodyxdze"),
             r"IQoJb3JpZ2luX2V|FwoGZXIvYXdzE|AQoDYXdzE"),
            (r"\bEAA[A-Za-z0-9]{30,}", ("eaa",), r"\bEAA[A-Za-z0-9]{30}"),
            (r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{20,}", ("aaaa",), r"AAAAAAAAAAAAAAAAAAAAA"),
            (r"\bAAAA[A-Za-z0-9_\-]+:APA91b[A-Za-z0-9_\-]{20,}", ("apa91b",), r":APA91b"),
            (r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{20,}", ("00d",), r"00D[A-Za-z0-9]{12}"),
            (r"\bATBB[A-Za-z0-9]{20,}", ("atbb",), r"ATBB"),
            (r"\b(?:pat|sat)\.[A-Za-z0-9_\-]{16,}\.[a-f0-9]{16,}\.[A-Za-z0-9]{16,}", ("at.",), r"at\.[A-Za-z0-9_\-]{16}"),
            (r"\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-f0-9]{20,}", ("xapp-",), r"xapp-"),
            (r"\b(?:LTAI|AKID)[A-Za-z0-9]{12,}\b", ("ltai", "akid"), r"LTAI|AKID"),
            (r"\bFlyV1 fm[0-9][a-z]?_[A-Za-z0-9+/=,_\-]{20,}", ("flyv1 ",), r"FlyV1 fm"),
            (r"\bA3(?:-[A-Z0-9]{5,6}){6,7}\b", ("a3-",), r"A3-[A-Z0-9]{5}"),
            (r"\bsl\.(?:u\.)?[A-Za-z0-9_\-]{40,}", ("sl.",), r"\bsl\.(?:u\.)?[A-Za-z0-9_\-]{40}"),
            (r"\by0_[A-Za-z0-9_\-]{20,}", ("y0_",), r"y0_"),
            (r"\bdt0c01\.[A-Z0-9]{20,}\.[A-Z0-9]{20,}", ("dt0c01.",), r"dt0c01\."),
            (r"\bCFPAT-[A-Za-z0-9_\-]{20,}", ("cfpat-",), r"CFPAT-"),
            (r"\bEZ[AT]K[A-Za-z0-9]{20,}", ("ezak", "eztk"), r"EZ[AT]K"),
            (r"\bpk_[0-9]{6,10}_[A-Z0-9]{20,}", ("pk_",), r"pk_[0-9]"),
            (r"\b(?:rubygems_|rdme_|mlsn\.)[a-f0-9]{20,}", ("rubygems_", "rdme_", "mlsn."), r"rubygems_|rdme_|mlsn\."),
            (r"\baio_[A-Za-z0-9]{20,}", ("aio_",), r"aio_"),
            (r"\b(?:sb_secret_|pscale_(?:pw|tkn|oauth)_)[A-Za-z0-9_\-=.]{20,}", ("sb_secret_", "pscale_"), r"sb_secret_|pscale_"),
            (r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", ("-",), r"-[0-9a-f]{8}-[0-9a-f]{8}\b"),
            (r"\b[12]/[0-9]{10,20}(?:/[0-9]{10,20})?:[a-f0-9]{32}\b", ("/",), r"[12]/[0-9]{10}"),
        ),
    ),
    *_shape_rules(
        "microsoft_identifiable_key",
        "Microsoft's identifiable keys: a fixed 4-character signature near the end of the random body "
        "(``+ASt`` storage, ``ACDb`` Cosmos DB, ``+ASb`` Service Bus, ``+AEh`` Event Hubs, ``AzFu`` Functions, "
        "``APIM`` API Management, ``JQQJ9`` the common annotated format, ``AZDO`` at characters 76-79 of an "
        "Azure DevOps PAT), then 4-6 characters and the base64 padding.",
        (
            (r"[A-Za-z0-9+/]{20,}(?:\+ASb|\+AEh|\+ARm)[A-Za-z0-9+/]{5}[AEIMQUYcgkosw048]=", ("+asb", "+aeh", "+arm"), r"\+ASb|\+AEh|\+ARm"),
            (r"[A-Za-z0-9+/]{20,}(?:\+ASt|ACDb|APIM|\+ABa|AzCa|AzSe)[A-Za-z0-9+/]{5}[AQgw]==",
             ("+ast", "acdb", "apim", "+aba", "azca", "azse"), r"\+ASt|ACDb|APIM|\+ABa|AzCa|AzSe"),
            (r"[A-Za-z0-9_\-]{20,}AzFu[A-Za-z0-9_\-]{5}[AQgw]==", ("azfu",), r"AzFu"),
            (r"[A-Za-z0-9]{20,}JQQJ9[9DH][A-Za-z0-9]{20,}(?:==)?", ("jqqj9",), r"JQQJ9"),
            (r"\b[A-Za-z0-9]{40,}AZDO[A-Za-z0-9]{4}\b", ("azdo",), r"AZDO"),
        ),
    ),
    SecretPattern(
        "signed_cookie_value",
        "provider",
        r"(?:\b[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}"
        r"|\.?\b[A-Za-z0-9_\-]{16,}:[A-Za-z0-9]{6}:[A-Za-z0-9_\-]{27,}"
        r"|\bs(?::|%3A)[A-Za-z0-9_\-+]{16,}\.[A-Za-z0-9+/%]{27,}"
        r"|[A-Za-z0-9+/=%]{16,}--(?:[0-9a-f]{40}\b|[A-Za-z0-9+/%]{16,}={0,2}--[A-Za-z0-9+/%]{16,}={0,2}))",
        False,
        "HMAC-signed values by their structure alone: itsdangerous (Flask's session cookie) and Discord bot "
        "tokens (``<base64>.<6-character timestamp>.<27+ signature>``), Django ``signing`` (``<value>:<timestamp>:"
        "<43>``), Express ``cookie-signature`` (``s:<value>.<base64 HMAC>``, also URL-encoded) and Rails "
        "(``<base64>--<40 hex HMAC>``, and the encrypted ``<data>--<iv>--<auth tag>``). Python: random-looking.",
        hints=(".", ":", "--"),
        verify="random",
        trigger=r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}|:[A-Za-z0-9]{6}:[A-Za-z0-9_\-]{27}|s(?::|%3A)[A-Za-z0-9_\-+]{16}|--[0-9a-f]{40}"
        r"|--[A-Za-z0-9+/%]{16}[A-Za-z0-9+/%]*={0,2}--",
    ),
    SecretPattern(
        "prefixed_token_secret_word",
        "provider",
        r"\b(?:[a-z0-9]{1,10}[_\-]){0,2}(?:sk|rk|key|api|tok|tkn|token|secret|pat|live|prod|test)[_\-]"
        r"(?:[a-z0-9]{1,10}[_\-])?[A-Za-z0-9]{16,}\b",
        False,
        "Unknown providers' tokens whose prefix names a key (``xyz_live_<16+>``, ``key-<hex>``, "
        "``pscale_tkn_<...>``): a lowercase prefix with a secret word and a random body.",
        hints=("sk", "rk", "key", "api", "tok", "tkn", "secret", "pat", "live", "prod", "test"),
        verify="random",
        trigger=r"(?:sk|rk|key|api|tok|tkn|token|secret|pat|live|prod|test)[_\-](?:[a-z0-9]{1,10}[_\-])?[A-Za-z0-9]{16}",
    ),
    SecretPattern(
        "prefixed_token",
        "provider",
        r"\b[a-z][a-z0-9]{1,11}(?:[_\-][a-z0-9]{1,10}){0,2}[_\-](?:[A-Za-z0-9]{30,}|[A-Za-z0-9]{12,}[_\-][A-Za-z0-9]{12,}"
        r"|[A-Za-z0-9]{4,11}[_\-][A-Za-z0-9]{20,})"
        r"(?:([^A-Za-z0-9+/=_\-])|$)",
        False,
        "Unknown providers' tokens of the common shape ``<lowercase prefix>_<30+ random characters>`` "
        "(or two random runs of 12+: ``tskey-auth-k<...>-<...>``; or a short id and 20+: Resend ``re_<8>_<24>``, "
        "Pinecone ``pcsk_<5>_<64>``), ending where a token ends: a run "
        "that continues as base64 (``sha512-<digest>``) is data. Python also requires upper, lower and "
        "digits and entropy: ``trace_<hex>`` survives.",
        keep_suffix=True,
        hints=("_", "-"),
        verify="random",
        trigger=r"[_\-][A-Za-z0-9]{30}|[_\-][A-Za-z0-9]{12}[A-Za-z0-9]*[_\-][A-Za-z0-9]{12}|[_\-][A-Za-z0-9]{4}[A-Za-z0-9]*[_\-][A-Za-z0-9]{20}",
    ),
    SecretPattern(
        "uppercase_prefixed_token",
        "provider",
        r"\b[A-Z][A-Z0-9]{1,9}(?:[_\-][A-Z]{2,9}){0,3}[_\-][A-Za-z0-9]{20,}(?:[_\-][A-Za-z0-9]{1,4})?(?:([^A-Za-z0-9+/=_\-])|$)",
        False,
        "Tokens with an upper-case prefix (``NRAK-<27>``, ``AGE-SECRET-KEY-1<58>``, ``FLWSECK-<...>``): "
        "a short capitals prefix, a dash or underscore and 20+ random characters, and a short tail "
        "(``FLWSECK_TEST-<hex>-X``) (Python: random-looking).",
        keep_suffix=True,
        hints=("_", "-"),
        verify="random",
        # the prefix may end in digits (``B4-...``); not any digit before ``-`` (``traceparent: 00-<hex>``)
        trigger=r"[A-Z][0-9]*[_\-][A-Za-z0-9]{20}",
    ),
    SecretPattern(
        "id_dot_secret",
        "provider",
        r"\b[A-Za-z][A-Za-z0-9]{9,40}\.[A-Za-z0-9_\-]{40,}",
        False,
        "An id, a dot and a long random secret (Airtable ``pat<id>.<64 hex>``, Dynatrace ``dt0c01.<id>.<secret>``); "
        "Python requires it to look random (a dotted Java class name does not).",
        hints=(".",),
        verify="random",
        trigger=r"\.[A-Za-z0-9_\-]{40}",
    ),
)


def combined_regex(patterns: Sequence[SecretPattern] = PATTERNS) -> str:
    """``patterns`` as one alternation, in order (earlier entries win at the same position)."""
    return "|".join(f"(?:{p.regex})" for p in patterns)


def _group_numbers(patterns: Sequence[SecretPattern]) -> tuple[list[int], list[int]]:
    """Group numbers of the kept prefixes and kept suffixes inside :func:`combined_regex`."""
    prefixes: list[int] = []
    suffixes: list[int] = []
    n = 0
    for p in patterns:
        for _ in range(int(p.keep_prefix)):
            n += 1
            prefixes.append(n)
        for _ in range(int(p.keep_suffix)):
            n += 1
            suffixes.append(n)
    return prefixes, suffixes


def combined_replacement(
    style: Literal["python", "go"] = "python",
    patterns: Sequence[SecretPattern] = PATTERNS,
) -> str:
    """Replacement for :func:`combined_regex`: every kept prefix group, the marker, every suffix group.

    Only the groups of the alternative that matched are non-empty; the others expand to nothing
    (Python ``re`` since 3.5, Go ``regexp.Expand``).
    """
    prefixes, suffixes = _group_numbers(patterns)
    ref = (lambda n: rf"\g<{n}>") if style == "python" else (lambda n: f"${{{n}}}")
    return "".join(map(ref, prefixes)) + REDACTED + "".join(map(ref, suffixes))


MARK_START: Final = "\ufdd0"
MARK_END: Final = "\ufdd1"
"""What the Collector's transform writes around each match before it reads the match's groups (:func:`marking_regex`):
Unicode noncharacters, which the standard reserves for a process's internal use and no text interchanges (The Unicode
Standard, 23.7 "Noncharacters"). Reserved is not absent: a value that holds one (:data:`MARKS`) before the transform
marks it gets the one pass (:func:`combined_regex`) instead, as a mark of its own would cut a match or be removed."""

MARK_READ: Final = "\ufdd2"
"""What :func:`marked_replacement` writes after each marked match it read: the text from it to an end mark, with no
start mark between, is the rest of a match read only in part (:data:`MARKED_LEFT` masks it)."""


_NOT_A_MARK: Final = {".": r"[^\n\x{fdd0}\x{fdd1}]", "S": r"[^\s\x{fdd0}\x{fdd1}]", "W": r"[^\w\x{fdd0}\x{fdd1}]",
                      "D": r"[^\d\x{fdd0}\x{fdd1}]"}


def _rewritten(regex: str, *, groups: bool = False, marked: bool = False) -> str:
    """``regex`` (RE2 syntax, no ``(?s)``) with each capture group made non-capturing (``groups``), or read between the
    marks (``marked``): ``^`` and ``\\A`` dropped, ``$`` and ``\\z`` also true at the end mark followed by the end or a
    line's end (the mark read), and no class, ``.``, ``\\S``, ``\\W`` or ``\\D`` matching a mark. Escapes, classes and
    ``(?...)`` groups are read, never rewritten otherwise.

    Raises:
        ValueError: a class holds ``\\S``, ``\\W``, ``\\D`` or ``\\P``, which would match a mark.
    """
    out: list[str] = []
    i, negated = 0, None  # negated: None outside a class, else whether the class is [^...]
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            end = regex.index("}", i) + 1 if regex[i + 1] in "xpP" and regex[i + 2 : i + 3] == "{" else i + 2
            escape = regex[i:end]
            if marked and negated is not None and regex[i + 1] in "SWDP":
                raise ValueError(f"{escape} in a class would match a mark: {regex[max(0, i - 20) : end + 20]!r}")
            if not marked or negated is not None:
                out.append(escape)
            elif regex[i + 1] in _NOT_A_MARK:
                out.append(_NOT_A_MARK[regex[i + 1]])
            elif regex[i + 1] == "z":
                out.append(r"(?:\z|\x{fdd1}\z)")
            elif regex[i + 1] != "A":
                out.append(escape)
            i = end
        elif negated is not None:
            if c == "]":
                out.append(r"\x{fdd0}\x{fdd1}]" if marked and negated else "]")
                negated = None
            else:
                out.append(c)
            i += 1
        elif c == "[":  # a class; a "]" right after "[" or "[^" is one of its members
            negated = regex[i + 1] == "^"
            end = i + 1 + negated
            end += regex[end] == "]"
            out.append(regex[i:end])
            i = end
        else:
            named = re.match(r"\(\?P?<\w+>", regex[i:]) if groups and c == "(" else None
            if named or (groups and c == "(" and regex[i + 1] != "?"):
                out.append("(?:")
                i += len(named.group(0)) - 1 if named else 0
            elif marked and c in "$.":
                out.append(r"(?:$|\x{fdd1}$)" if c == "$" else _NOT_A_MARK["."])
            elif not (marked and c == "^"):
                out.append(c)
            i += 1
    return "".join(out)


def marking_regex(patterns: Sequence[SecretPattern] = PATTERNS) -> str:
    """:func:`combined_regex` without capture groups: the same leftmost-first matches, for the Collector's first pass
    (``replace_pattern`` with :data:`MARK_START` ``${0}`` :data:`MARK_END`). Go's regexp copies every capture group of a
    regex into each NFA thread when a ``$`` replacement needs them (215 groups: 432 integers a thread and a byte); a
    regex with none, only its bounds."""
    return _rewritten(combined_regex(patterns), groups=True)


def marked_regex(patterns: Sequence[SecretPattern] = PATTERNS) -> str:
    """A marked match (:func:`marking_regex`) read again with :func:`combined_regex`'s groups, for
    :func:`combined_replacement`: Go finds the literal :data:`MARK_START` before starting its NFA, so the groups cost
    only the match's own bytes. The alternative that matched the text is the first one that can match between the
    marks again (an earlier one that could would have matched first), unless an anchor says otherwise: ``$`` still
    means the end of the text or line (the end mark, then the end or a newline, which a last group keeps: see
    :func:`marked_replacement`), but ``^`` is dropped (the start mark hides what came before). No class crosses a
    mark, so a match ends at its end mark or where a ``$`` read it."""
    return r"\x{fdd0}(?:" + _rewritten(combined_regex(patterns), marked=True) + r")(?:\x{fdd1}|\z|(\n))"


def marked_replacement(style: Literal["python", "go"] = "python", patterns: Sequence[SecretPattern] = PATTERNS) -> str:
    """:func:`combined_replacement` for :func:`marked_regex`: the newline its last group took back, then
    :data:`MARK_READ`."""
    last = sum(int(p.keep_prefix) + int(p.keep_suffix) for p in patterns) + 1
    return combined_replacement(style, patterns) + (rf"\g<{last}>" if style == "python" else f"${{{last}}}") + MARK_READ


MARKED_LEFT: Final = r"\x{fdd0}[^\x{fdd1}]*\x{fdd1}|\x{fdd2}[^\x{fdd0}-\x{fdd2}]*\x{fdd1}"
"""What :func:`marked_regex` left of a marked match, masked whole, never left with its secret: a match it did not read
(a start mark to its end mark), or the rest of one it read only in part (:data:`MARK_READ` to an end mark with no start
mark between: a match ended before a newline inside the marks, where the ``(\\n)`` after a ``$`` took it for the
end)."""

MARKS: Final = r"[\x{fdd0}-\x{fdd2}]"
"""Any mark: in a value before the transform marks it (that value gets the one pass), and left after
:data:`MARKED_LEFT` (an end mark a kept group took: ``(\\r?\\n|$)`` at the end of the text reads it; each
:data:`MARK_READ`), removed."""


def collector_regex() -> str:
    """:func:`combined_regex` for Collector YAML: ``$`` is written ``$$`` (confmap escaping)."""
    return combined_regex().replace("$", "$$")


def collector_replacement() -> str:
    """:func:`combined_replacement` for OTTL in Collector YAML (``$${1}`` for Go's ``${1}``)."""
    return combined_replacement("go").replace("$", "$$")


def collector_marking_regex() -> str:
    """:func:`marking_regex` for Collector YAML (``$`` -> ``$$``)."""
    return marking_regex().replace("$", "$$")


def collector_marked_regex() -> str:
    """:func:`marked_regex` for Collector YAML (``$`` -> ``$$``)."""
    return marked_regex().replace("$", "$$")


def collector_marked_replacement() -> str:
    """:func:`marked_replacement` for OTTL in Collector YAML."""
    return marked_replacement("go").replace("$", "$$")


COLLECTOR_MARKING: Final = MARK_START + "$${0}" + MARK_END
"""The first pass's replacement in Collector YAML: the match between the marks."""


# --- the Collector's value guard --------------------------------------------------------------------

# Characters a plain identifier, host name, address, version, path or number holds. A pattern whose
# every match holds one character outside them (a separator) cannot match a value that holds none.
_PLAIN = frozenset("._-/+~")
_RE2_SPACE = frozenset(" \t\n\f\r")  # RE2's and Go's \s


def _is_separator(char: str) -> bool:
    return not (char.isalnum() or char in _PLAIN)


def _needs_in_sequence(items: Any) -> frozenset[str] | None:
    # a match of a sequence holds a match of each item: the smallest set any item needs
    found = [need for op, arg in items if (need := _needs(op, arg))]
    return min(found, key=len) if found else None


def _needs(op: Any, arg: Any) -> frozenset[str] | None:
    """The separators one of which every match of one parse-tree node holds; None: no such set.
    Case folding (``(?i:...)``) changes nothing: separators have no case."""
    chars: frozenset[str] = frozenset()
    if op is _sre.LITERAL:
        chars = frozenset(chr(arg))
    elif op is _sre.IN:  # a class: each member a literal or \s (a negated class, a range, \d, \w need nothing)
        for member, value in arg:
            if member is _sre.LITERAL:
                chars |= {chr(value)}
            elif member is _sre.CATEGORY and value is _sre.CATEGORY_SPACE:
                chars |= _RE2_SPACE
            else:
                return None
    elif op is _sre.BRANCH:  # one branch matches: the union of the branches' sets, if each has one
        sets = [_needs_in_sequence(branch) for branch in arg[1]]
        return frozenset().union(*sets) if all(sets) else None
    elif op is _sre.SUBPATTERN:
        return _needs_in_sequence(arg[3])
    elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        low, _, body = arg
        return _needs_in_sequence(body) if low >= 1 else None
    # anchors, \b and any character need nothing
    return chars if chars and all(map(_is_separator, chars)) else None


def separators(regex: str) -> frozenset[str]:
    """The separator characters (not letters, digits or ``._-/+~``) one of which every match of
    ``regex`` holds; empty when it needs none (a token shape such as ``ghp_...``).

    Derived from the regex's parse tree (Python's ``re`` parser; the patterns are RE2 text both
    engines read alike): a sequence needs what any of its items needs, an alternation the union of
    its branches' sets, a repetition of at least one what its body needs; anchors, ``\\b`` and negated
    classes need nothing. So it holds for every rule, including rules added later.

    Raises:
        ValueError: ``regex`` has a POSIX class (``[[:alpha:]]``), which Python's parser reads as
            other characters; RE2 syntax Python cannot read (``\\pL``) raises ``re.error``.
    """
    if re.search(r"\[:\^?[a-z]+:\]", regex):
        raise ValueError(f"POSIX character class in {regex!r}: write the class out")
    return _needs_in_sequence(_sre_parse(regex)) or frozenset()


def _repeats_a_class(items: Any) -> bool:
    for op, arg in items:
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            _, most, body = arg
            if (most > 3 and any(kind is not _sre.LITERAL for kind, _ in body)) or _repeats_a_class(body):
                return True
        elif op is _sre.SUBPATTERN and _repeats_a_class(arg[3]):
            return True
        elif op is _sre.BRANCH and any(map(_repeats_a_class, arg[1])):
            return True
    return False


@functools.cache  # the scrubber's four trigger sets ask for the same triggers
def repeats_a_class(regex: str) -> bool:
    """Whether a match of ``regex`` can hold more than three characters of one class, ``.`` or group in a row
    (``[A-Za-z0-9]{16}``, ``[^\\n]*``, ``[ \\t]+``); literals, alternations of words and short runs do not.

    A lazy DFA's states (RE2's, a set's) are the combinations of where each entry can be in the text: an entry
    that counts characters of a class adds a state per count, and entries counting different classes multiply them.
    Read from Python's parse tree, as :func:`separators`; RE2 syntax Python cannot read counts as repeating.
    """
    try:
        return _repeats_a_class(_sre_parse(regex))
    except re.error:
        return True


def _top_level(regex: str, start: int = 0) -> tuple[list[str], int]:
    """The alternatives of ``regex`` from ``start`` up to the ``)`` that closes the group ``start`` is in (or the end),
    and that ``)``'s index (``len(regex)`` at the end): text only, escapes and classes skipped whole."""
    parts, depth, in_class, i, begin = [], 0, False, start, start
    while i < len(regex):
        char = regex[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1 + (regex[i + 1 : i + 2] == "^")
            i += regex[i : i + 1] == "]"  # a leading ] is a member
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(regex[begin:i])
            begin = i + 1
        i += 1
    parts.append(regex[begin:i])
    return parts, i


def factored_alternation(regex: str) -> str:
    """``regex`` (an alternation) rewritten for a yes/no match in Go's regexp: the same language, alternatives reordered.

    A top-level alternative that starts with a case-folded word list (``(?i:token|pass)[ \\t]``) becomes one
    alternative per word (``(?i:token)[ \\t]|(?i:pass)[ \\t]``); then the alternatives are sorted, case-folded
    words first by their lower-case text, so Go's parser merges their common leading letters (its alternation
    factoring merges adjacent alternatives only). Go's NFA visits the first instruction of every alternative at every
    byte: :data:`GUARD` started 355 of them, this form ~110, and ``IsMatch`` takes about a quarter of the time
    (bench/README.md, bench_collector). Only for a match's existence: the order of the alternatives decides which
    match a replacement sees, never whether one exists.
    """
    branches: list[str] = []
    for alternative in _top_level(regex)[0]:
        if alternative.startswith("(?i:"):
            words, end = _top_level(alternative, 4)
            suffix = alternative[end + 1 :]
            if suffix[:1] not in ("?", "*", "+", "{"):  # a repeated group is not distributed
                branches += [f"(?i:{word}){suffix}" for word in words]
                continue
        branches.append(alternative)

    def order(branch: str) -> tuple[int, str]:
        folded = re.match(r"\(\?i:([A-Za-z]+)", branch)
        return (0, folded.group(1).lower()) if folded else (1, branch)

    return "|".join(sorted(branches, key=order))


def collector_guard() -> str:
    """:data:`GUARD` for OTTL ``IsMatch`` (:func:`factored_alternation`; ``$`` -> ``$$``)."""
    return factored_alternation(GUARD).replace("$", "$$")


def collector_blocked_values(plain: bool = False) -> list[str]:
    """The redaction processors' ``blocked_values``: one entry, :func:`combined_regex` (``$`` -> ``$$``).

    ``plain=False``: every pattern, for the values that hold a separator. ``True``: the patterns that
    need none (:func:`separators`: the token shapes), for the values that hold none (addresses, host and
    service names, ids, routes), which no other pattern can match; leaving out alternatives that cannot
    match a value changes no match on it.

    One alternation, not one entry per pattern: the redaction processor (contrib v0.161
    ``processStringValueForAttribute``) applies its entries one after another, each masking its
    matches whole as ``****`` in the text the previous ones left. A pattern listed earlier whose match
    starts later (``keyword_phrase`` on `` passwd USER``) then masked the context a pattern listed later
    needs at an earlier position (``cli_tool_password``'s ``mosquitto_passwd -b FILE USER PASSWORD``),
    and the password survived. One alternation is one leftmost-first pass, as the transform's
    ``replace_pattern`` and :func:`combined_replacement` run it: the same matches, masked whole. Go's
    regexp runs it in its NFA (no DFA), at about 1.6-2.7 times the CPU of the per-pattern entries.
    """
    patterns = [p for p in PATTERNS if not (plain and separators(p.regex))]
    return [combined_regex(patterns).replace("$", "$$")]


def collector_short_plain_blocked_values(longest: int) -> list[str]:
    """:func:`collector_blocked_values` (``plain=True``) for the values of at most ``longest`` characters: only the
    token shapes a value that short can hold (:func:`plain_min_length` at most ``longest``).

    Leaving out alternatives that cannot match a value changes no match on it (the same argument as the ``plain``
    split). Go's regexp has no prefilter: its NFA visits the first instructions of every alternative at every byte,
    so an address or a service name paid for all the token shapes (~50 µs for ``telemetrygen-client``); the few that
    fit in 20 characters cost a seventh of that (bench/README.md, bench_collector).
    """
    patterns = [p for p in PATTERNS if not separators(p.regex) and plain_min_length(p.regex) <= longest]
    return [combined_regex(patterns).replace("$", "$$")]


def collector_length_outside(shortest: int, longest: int | None) -> list[str]:
    """``allowed_values`` entries (``$`` -> ``$$``) that match a value shorter than ``shortest`` characters or longer
    than ``longest`` (``None``: no bound), so a redaction processor skips every value outside that range.

    Characters are what Go's regexp counts (``(?s:.)``: one UTF-8 encoded code point, one byte of invalid UTF-8),
    as :func:`plain_min_length` does. Anchored and a dozen instructions: Go runs them with its backtracker, at one
    position (hundreds of nanoseconds on a short value).
    """
    entries = []
    if shortest > 0:
        entries.append(f"^(?s:.){{0,{shortest - 1}}}$")
    if longest is not None:
        entries.append(f"^(?s:.){{{longest + 1}}}")
    return [entry.replace("$", "$$") for entry in entries]


@functools.cache
def _separator_chars() -> frozenset[str]:
    return frozenset().union(*(separators(p.regex) for p in PATTERNS))


def _plain_length(items: Any) -> float:
    # the fewest characters of a match of a sequence that holds no separator: the sum of its items'
    return sum(_plain_node_length(op, arg) for op, arg in items)


def _plain_node_length(op: Any, arg: Any) -> float:
    held = _separator_chars()
    if op is _sre.LITERAL:  # a separator cannot occur in the value: nothing matches
        return math.inf if chr(arg) in held else 1
    if op is _sre.IN:  # a class of separators alone matches nothing there; any other member, one character
        for member, value in arg:
            if member is _sre.LITERAL and chr(value) in held:
                continue
            if member is _sre.CATEGORY and value is _sre.CATEGORY_SPACE and _RE2_SPACE <= held:
                continue
            return 1
        return math.inf
    if op in (_sre.NOT_LITERAL, _sre.ANY):
        return 1
    if op is _sre.BRANCH:
        return min(_plain_length(branch) for branch in arg[1])
    if op is _sre.SUBPATTERN:
        return _plain_length(arg[3])
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        low, _, body = arg
        return low * _plain_length(body) if low else 0
    if op is _sre.AT:  # anchors and \b are no character
        return 0
    return 0  # anything else: no bound (a shorter bound only lets a pattern run on more values)


@functools.cache
def plain_min_length(regex: str) -> float:
    """The fewest characters of a match of ``regex`` that holds no separator (the characters of
    :func:`collector_separated_value`); ``math.inf`` when no such match exists.

    Derived from the parse tree as :func:`separators`: a literal separator, or a class of separators alone, matches
    nothing in such a value; a sequence needs the sum of its items, an alternation its shortest branch, a repetition
    its minimum count times its body; anchors and ``\\b`` are no character. A value holding fewer characters cannot
    hold a match (the Collector's length tiers of the token shapes). Regex syntax Python's parser cannot read gives
    0 (no bound).
    """
    try:
        return _plain_length(_sre_parse(regex))
    except re.error:
        return 0


def _separator_class(negated: bool) -> str:
    chars = sorted(_separator_chars())
    body = "".join(
        ("\\" + c if c in "\\]^-[" else c) if c.isprintable() else f"\\x{{{ord(c):x}}}" for c in chars
    )
    return ("[^" if negated else "[") + body + "]"


def collector_plain_value() -> str:
    """A value that holds no separator any pattern needs (``$`` -> ``$$``): ``allowed_values`` (skipped) of
    the processor that runs every pattern."""
    return f"^{_separator_class(negated=True)}*$".replace("$", "$$")


def collector_short_plain_value(shortest: int, longest: int) -> str:
    """A value of ``shortest`` to ``longest`` characters that holds no separator (``$`` -> ``$$``; anchored, Go runs
    it at one position): in free text, such a value can only hold the token shapes that fit in ``longest``
    (:func:`collector_short_plain_blocked_values`), so the transform checks for those instead of :data:`GUARD`."""
    return f"^{_separator_class(negated=True)}{{{shortest},{longest}}}$".replace("$", "$$")


def collector_separated_value() -> str:
    """A value that holds one: ``allowed_values`` (skipped) of the processor that runs the token shapes
    alone. The two guards split every value between the two processors."""
    return _separator_class(negated=False).replace("$", "$$")
