"""errscope.scrub on a seventh held-out set (tests/secret_corpus/polyglot.py), written before reading
the rules: hardcoded credentials in source code of many languages and in stack-trace source lines,
network device and appliance configs, protocol transcripts, mobile app configs, key material in
its encodings, notebooks, REPLs and CI logs; public keys, fingerprints, ``openssl -text`` hex, env
lookups, placeholders, masked output and transcripts without credentials as benign.

Measured once before any fix: recall 151/272 (0.555), 20/155 benign lines altered (12.9 %); the RE2
patterns alone (the Collector) 151/272, 23/155. The misses were kinds: device configs (a secret's
keyword, a type word such as Cisco's ``0``/``7`` or FortiOS' ``ENC``, then the value; type-7 and
``$9$`` encodings), protocol transcripts (``PASS``, ``LOGIN user pw``, ``AUTH user pw``, SASL
responses after a ``334 UGFzc3dvcmQ6`` or ``+`` challenge, XMPP ``<auth>``), key bodies without PEM
armour (PKCS#8/#1/#12, SEC1 and OpenSSH bodies known by their DER or magic header), PuTTY private
lines, keys printed in hex (``klist -K``, ``openssl pkey -text``), JWK private members before
``kty``, plist and Android resource strings named like secrets, typed declarations (``clientSecret:
String = ``, Go's ``:=``), DSL values after a space (``storePassword "..."``), one-argument auth calls,
HCL variable defaults, REPL echoes, colour codes inside a traceback's source line, tool options
(``mosquitto_pub -P``, ``snmpget -A/-X``, ``rabbitmqctl add_user``, ``smbclient -U u%pw``); the false
positives colon-hex dumps read as ``.pgpass`` lines, code that reads a value (``process.env.X``,
``var.x``), constant names (``"YOUR_API_KEY"``, ``--token TOKEN``) and ``Sec-WebSocket-Key``. Fixed
by kind (docs/scrubbing.md): 257/272, 2/155; RE2 alone 253/272, 14/155. What is still missed or
altered is pinned here, so that a fix, or a regression, shows up.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import polyglot

KNOWN_GAPS = {
    # ``process.env.X ?? `<value>```: a JS template literal after a fallback operator, not after a key's separator.
    "js_ts_const",
    # ``DBI->connect($dsn, "app", "<pw>", {...})``: the password is a positional argument of a generic call.
    "perl_source",
    # PAN-OS keygen ``<result><key>...</key>`` (a property list's ``<key>`` holds a name, not a value) and
    # ``pre-shared-key key <value>`` (``key`` mid-line without a type word is too common a word).
    "paloalto",
    # net-snmp ``createUser name SHA "<pw>" AES "<pw>"``: the passwords follow protocol names, not a keyword.
    "snmp_cli_and_conf",
    # tac_plus ``login = cleartext "<pw>"``: the key names the login method.
    "radius_tacacs_servers",
    # (Asterisk's ``register => user:<pw>@host/ext``, userinfo without a scheme, is read since the eighteenth set:
    # ``schemeless_userinfo_password``.)
    # expect's ``send "<pw>\\r"`` after ``expect "Password:"``: the secret is on the line after the prompt.
    "other_protocols",
    # a PEM body whose every line carries a log stamp: the block rule stops at the first stamp.
    "pem_split_and_wrapped",
    # ``wg set wg0 private-key <(echo <key>)``: a process substitution between the option and the value.
    "age_wireguard_keys",
    # (``circleci context store-secret .. NAME <<< "<v>"``, a here-string to a command naming a secret, is read since
    # the twentieth set: ``herestring_secret``.)
}
# (Kerberos principals, ``alice@EXAMPLE.COM``, left when Python learnt a realm in capitals.)
KNOWN_FALSE_POSITIVES: set[str] = set()
# What the RE2 patterns alone also miss: colour codes between a key and its value (Python scrubs the
# text without them when they hide a secret).
REGEX_ONLY_GAPS = KNOWN_GAPS | {"jupyter_ansi_traceback"}
# ... and alter: Python's checks that the Collector cannot run: a ``PublicKey`` qualifier, constant names
# (``"YOUR_API_KEY"``, ``--token TOKEN``), a setting's value (``password_encryption = scram-sha-256``: not
# password-shaped), the WebSocket nonce, a Kerberos principal. (Code that reads the value, ``process.env.API_KEY``,
# ``var.db_password``, left when a value without a digit stopped holding ``.`` in RE2 too.)
REGEX_ONLY_ALTERED = {"placeholders_in_code", "shell_benign", "sql_benign", "base64_nonsecret", "kerberos_benign"}  # ``PublicKey`` left


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("polyglot_secrets.jsonl.gz"), corpus.held_out("polyglot_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = polyglot.polyglot()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 272 and len(benign) == 155


def test_polyglot_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 11 and len(result.altered) == 0  # recall 261/272, FP 0/155


def test_polyglot_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 15 and len(result.altered) == 8  # 257/272, 8/155


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


def test_ci_here_string() -> None:
    """A here-string to a command that names a secret (``herestring_secret``, since the twentieth set)."""
    assert "Q7rT9xLm2wZkP4vB8nC3" not in scrub('$ circleci context store-secret org-global SLACK_TOKEN <<< "Q7rT9xLm2wZkP4vB8nC3"')


@pytest.mark.xfail(strict=True, reason="Azure's ##vso logging command carries no key/value shape")
def test_ci_logging_commands() -> None:
    assert "Q7rT9xLm2wZkP4vB8nC3" not in scrub("##vso[task.setvariable variable=dbPassword]Q7rT9xLm2wZkP4vB8nC3")


@pytest.mark.xfail(strict=True, reason="a positional password of a generic call (Perl DBI->connect) names nothing")
def test_positional_password_of_a_generic_call() -> None:
    assert "Wren#4471gale" not in scrub('DBI->connect($dsn, "app", "Wren#4471gale", { RaiseError => 1 })')


def test_kerberos_principal_stays() -> None:
    """A principal's realm is in capitals (RFC 4120 6.1): no e-mail address; one written so in lower case still goes."""
    for text in ("Default principal: alice@EXAMPLE.COM", "kinit -kt /etc/krb5.keytab HTTP/web01.corp@CORP.EXAMPLE.ORG"):
        assert scrub(text) == text
    assert scrub("contact: alice@example.com") == f"contact: {REDACTED}"


def test_device_configs() -> None:
    """A secret keyword, its type words, the value; the same keywords with settings stay."""
    for text, expected in (
        ("username ops privilege 15 password 7 0822455D0A16544541", f"username ops privilege 15 password 7 {REDACTED}"),
        ("enable secret 0 Wren#4471gale", f"enable secret 0 {REDACTED}"),
        ("tacacs-server host 10.1.1.5 key 0 Q7rT9xLm2wZk", f"tacacs-server host 10.1.1.5 key 0 {REDACTED}"),
        ('set system radius-server 10.0.0.5 secret "$9$qjJ0urzs9JU1X7cNx2"', f'set system radius-server 10.0.0.5 secret "{REDACTED}"'),
        ("        set psksecret ENC SAm3gVD2lxYLJCGho09nStQJTCcq==", f"        set psksecret ENC {REDACTED}"),
        ("/ppp secret add name=vpn password=Wren#4471gale", f"/ppp secret add name=vpn password={REDACTED}"),
        ("set snmp community I5pYSr317ZBQ authorization read-only", f"set snmp community {REDACTED} authorization read-only"),
    ):
        assert scrub(text) == expected, text
    for text in (
        "key chain OSPF-KEYS\n key 1",
        "cert app.crt key app.key",
        "added host key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 for host build-1",
        "service password-encryption",
        "set system login password minimum-length 12",
        " key-hash ssh-rsa 5E3A0B7C9D1F2E4A6B8C0D2E4F6A8B0C admin@mgmt",
        "SHA1 Fingerprint=91:AB:3B:7B:87:B4:AA:1B:43:16:5C:FE:19:67:76:F5:8F:49:FA:8F",
        "Base ethernet MAC Address       : 4b:83:0d:da:4b:a7",
    ):
        assert scrub(text) == text, text


def test_protocol_transcripts() -> None:
    for text, expected in (
        ("USER alice\nPASS Wren#4471gale\n-ERR [AUTH] failed", f"USER alice\nPASS {REDACTED}\n-ERR [AUTH] failed"),
        ('a001 LOGIN ops "Wren#4471gale"', f'a001 LOGIN ops "{REDACTED}"'),
        ("127.0.0.1:6379> AUTH default Wren#4471gale", f"127.0.0.1:6379> AUTH default {REDACTED}"),
        ("send: 'AUTH LOGIN\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: 'V3JlbiM0NDcxZ2FsZQ==\\r\\n'",
         f"send: 'AUTH LOGIN\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: '{REDACTED}\\r\\n'"),
        ("C: A01 AUTHENTICATE PLAIN\nS: +\nC: AG9wcwBXcmVuIzQ0NzFnYWxl", f"C: A01 AUTHENTICATE PLAIN\nS: +\nC: {REDACTED}"),
        ("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>AG9wcwBXcmVuIzQ0NzFnYWxl</auth>",
         f"<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>{REDACTED}</auth>"),
    ):
        assert scrub(text) == expected, text
    for text in (
        "S: 334 VXNlcm5hbWU6",
        "< 230 Login successful.",
        "* OK [CAPABILITY IMAP4rev1 LOGIN-REFERRALS AUTH=PLAIN] Dovecot ready.",
        "*cmd* 'PASS ********'",
        "CREATE LOGIN reporting WITH PASSWORD = N'REDACTED'",
    ):
        assert scrub(text) == text, text


def test_key_bodies_and_dumps() -> None:
    body = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQQ7x" + "Ab3dE9fG" * 6
    assert scrub(f'key_b64 = """\n{body[:64]}\n{body[64:]}\n"""') == f'key_b64 = """\n{REDACTED}\n"""'
    assert scrub("Private-Lines: 1\nAAAAIQ7xAb3dE9fGAb3dE9fGAb3dE9fG\nPrivate-MAC: x") == f"Private-Lines: 1\n{REDACTED}\nPrivate-MAC: x"
    assert scrub("priv:\n    3a:7f:01:c2:\n    9e:44\npub:\n    04:aa") == f"priv:\n{REDACTED}\npub:\n    04:aa"
    for text in (
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq7xAb3dE9fG\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIUQ7xAb3dE9fG\n-----END CERTIFICATE-----",
        "                Modulus:\n                    00:3d:a3:c2:14:7a:ff:58",
        '{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}',
    ):
        assert scrub(text) == text, text


def test_source_code() -> None:
    for text, expected in (
        ('private val clientSecret: String = "Q7rT9xLm2wZkP4vB8nC3"', f'private val clientSecret: String = "{REDACTED}"'),
        ('\tpassword := "Wren#4471gale"', f'\tpassword := "{REDACTED}"'),
        ('NSString *const kAPIKey = @"Q7rT9xLm2wZkP4vB8nC3";', f'NSString *const kAPIKey = @"{REDACTED}";'),
        ('  @api_token "Q7rT9xLm2wZkP4vB8nC3"', f'  @api_token "{REDACTED}"'),
        ('local ok, err = red:auth("Wren#4471gale")', f'local ok, err = red:auth("{REDACTED}")'),
        ('client.username_pw_set("sensor-12", "Wren#4471gale")', f'client.username_pw_set("sensor-12", "{REDACTED}")'),
        ('<key>API_KEY</key>\n<string>Q7rT9xLm2wZkP4vB8nC3</string>', f"<key>API_KEY</key>\n<string>{REDACTED}</string>"),
        ('<meta-data android:name="com.acme.API_KEY"\n    android:value="Q7rT9xLm2wZkP4vB8nC3"/>',
         f'<meta-data android:name="com.acme.API_KEY"\n    android:value="{REDACTED}"/>'),
        (">>> os.environ[\"API_SECRET\"]\n'Q7rT9xLm2wZkP4vB8nC3'", f">>> os.environ[\"API_SECRET\"]\n'{REDACTED}'"),
    ):
        assert scrub(text) == expected, text
    for text in (
        "const apiKey = process.env.API_KEY;",
        "  password = var.db_password",
        'const apiKey = "YOUR_API_KEY";',
        "Usage: deploy --token TOKEN --env ENV",
        '<string name="password_hint">Password</string>',
        "<key>GCM_SENDER_ID</key>\n<string>234826948526</string>",
        "Sec-WebSocket-Key: ln7ALY8fw6Ria5S7Yh1mfQ==",
    ):
        assert scrub(text) == text, text


def test_colour_codes_do_not_hide_a_value() -> None:
    """IPython colours each token of a traceback's source line: the text without the colours is
    scrubbed when they hid a secret, and a coloured text without one keeps its colours."""
    secret = "Q7rT9xLm2wZkP4vB8nC3"
    coloured = f"client = OpenAI(api_key\x1b[38;5;241m=\x1b[39m\x1b[38;5;124m\"\x1b[39m\x1b[38;5;124m{secret}\x1b[39m\x1b[38;5;124m\"\x1b[39m)"
    assert scrub(coloured) == f'client = OpenAI(api_key="{REDACTED}")'
    plain_colours = "\x1b[0;31mAuthenticationError\x1b[0m   Traceback (most recent call last)"
    assert scrub(plain_colours) == plain_colours
