"""errscope.scrub on a tenth held-out set (tests/secret_corpus/atrest.py), written before reading the
rules, of kinds the nine earlier sets do not hold: password hashes as stores keep them (shadow, htpasswd,
bcrypt, Django, PostgreSQL SCRAM/md5, LDAP ``{SSHA}`` and LDIF ``::``, pwdump/smbpasswd NT hashes, MySQL
``*<HEX>``, Kerberos roast hashes, GRUB, dovecot, passlib, RabbitMQ); OS provisioning files (cloud-init,
kickstart, preseed, Unattend.xml, Ignition); client and daemon files (FileZilla, mbsync/msmtp, chap-secrets,
OpenVPN static keys, BIND TSIG, wpa_supplicant, Redis ACLs, Jenkins' encrypted secrets, pgbouncer, JAAS user
lists, Vault unseal keys, davfs/s3fs); capability links (reset, magic, invite, verify, share); key/value
tables (Markdown, psql, box-drawn); markup between name and value (HTML mails, namespaced XML elements with
attributes); percent-encoding twice and base64 JSON blobs; forwarded credential headers; ``::add-mask::``;
passwords piped into ``sudo -S``/``passwd``; copulas in other languages' prose; BMC/RDP tool options; fresh
provider shapes (Azure AD ``Q~``, Braintree, NuGet, prefixed UUIDs, Bitwarden, Buildkite, SonarQube,
Mapbox, Figma, Paddle, Cloudflare Origin CA, JFrog, Brevo, Shopify, dbt, Sourcegraph, CircleCI). Benign:
the same places without a credential (locked shadow entries, checksums, links without tokens, settings
tables, digests, nonces, cursors, prefixed ids, masks and placeholders).

Measured once before any fix: recall 58/248 (0.234), 6/150 benign lines altered (4.0 %); the RE2 patterns
alone (the Collector) 61/248, 8/150: the lowest first score of the ten sets (the rules knew none of these
containers). The false positives were ``/etc/passwd`` and ``/etc/shadow`` lines read as ``.pgpass`` lines
and booleans under password-named settings (``lock_passwd: false``). Fixed by kind (docs/scrubbing.md):
235/248, 0/150; RE2 alone 232/248, 7/150 (236 and 233 since the thirteenth set read an access log's bare
``"Basic <base64>"``). What is still missed or altered is pinned here.
"""

from __future__ import annotations

import base64

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import atrest

KNOWN_GAPS = {
    # PPP's chap-secrets is four positional columns (client, server, secret, addresses): nothing on the line
    # names the third column, and the heading comment is optional.
    "ppp_chap_secrets",
    # ``snyk config set api=<uuid>``: ``api`` names no credential, and a UUID alone is an id.
    "uuid_credentials_under_keys",
    # a JAAS user entry whose ``LoginModule`` is elided from the line (``jaas.config=... user_broker="..."``).
    "jaas_user_entries",
    # shell xtrace's ``+ echo <pw>`` and ``+ sudo -S`` on separate lines: the pipe that says "password" is gone.
    "piped_password_prompt",
    # davfs2's ``secrets`` line without its URL (``/mnt/dav  user  <pw>``): three positional columns.
    "davfs_s3fs_secrets",
    # a token after ``/download/``: an artifact's hash or id stands there as often (``/download/<sha256>/x.tar.gz``).
    "share_link",
}
KNOWN_FALSE_POSITIVES: set[str] = set()
# The Collector (one leftmost pass) reads a token option before Bitwarden's ``0.<uuid>.<secret>:<key>``; its value
# stops at ``:``. SQL's ``PASSWORD '<SCRAM hash>'``: ``keyword_phrase`` starts one character before the prose set's
# quoted hand-over value (the thirteenth set's URL-path guard) and wins the leftmost pass; its value stops at ``$``.
REGEX_ONLY_GAPS = KNOWN_GAPS | {"bitwarden_sm_token", "postgres_role_hash"}
# ... and alters what only Python's checks spare: a boolean under a password-named element (``<usernameSecret>false``), OpenVPN's ``auth SHA256`` (a digest's name), a date in a secret's table
# row, LDAP's ``pwdChangedTime``.
REGEX_ONLY_ALTERED = {"vpn_dns_benign", "box_tables_benign", "ldap_benign", "jenkins_benign"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("atrest_secrets.jsonl.gz"), corpus.held_out("atrest_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = atrest.atrest()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 248 and len(benign) == 150


def test_atrest_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 11 and len(result.altered) == 0  # recall 237/248, FP 0/150


def test_atrest_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 14 and len(result.altered) == 6  # 234/248, 6/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


SECRET = "Q7rT9xLm2wZkP4vB8nC3"
PASSWORD = "Wren#4471gale"


def test_password_hashes_go_whole() -> None:
    """A stored hash is crackable offline: the crypt string, the scheme-prefixed value and the NT hash go."""
    crypt = "$6$" + "Ab3dEf7hIj9kLm1n" + "$" + SECRET * 4 + "x9Yz.w"
    for text, expected in (
        (f"ops:{crypt}:19700:0:99999:7:::", f"ops:{REDACTED}:19700:0:99999:7:::"),
        ("metrics:$apr1$Zq3r8sT1$" + SECRET + "Ab", f"metrics:{REDACTED}"),
        (f"userPassword: {{SSHA}}{SECRET}Zz==", f"userPassword: {REDACTED}"),
        ("authentication_string: *0A1B2C3D4E5F60718293A4B5C6D7E8F901234567", f"authentication_string: *{REDACTED}"),
        ("alice:1000:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:0123456789ABCDEF0123456789ABCDEF:[U          ]:LCT-65A1F0C2:",
         f"alice:1000:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:{REDACTED}:[U          ]:LCT-65A1F0C2:"),
    ):
        assert scrub(text) == expected, text


def test_account_files_without_hashes_stay() -> None:
    """``/etc/passwd`` and locked shadow entries are no ``.pgpass`` lines (the password is pgpass' last field)."""
    for text in (
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
        "daemon:*:19596:0:99999:7:::",
        "ubuntu:!:19700:0:99999:7:::",
        "lock_passwd: false",
        "<usernameSecret>false</usernameSecret>",
    ):
        assert scrub(text) == text, text
    assert scrub(f"db.internal:5432:orders:app:{PASSWORD}") == f"db.internal:5432:orders:app:{REDACTED}"


def test_capability_links() -> None:
    token = "Zk4" + SECRET + "-aB9_"
    for text in (
        f"https://app.example.com/reset-password/{token}",
        f"https://app.example.com/accounts/reset/MjQ/{token}/",
        f"https://app.example.com/auth/magic-link?t={token}&next=%2F",
        f"POST /api/invitations/{token}/accept 201",
    ):
        assert token not in scrub(text), text
    for text in (
        "https://app.example.com/reset-password",
        "https://app.example.com/share/quarterly-report-2025",
        "https://app.example.com/verify-email/sent",
        "https://artifacts.example.com/download/3f2a9c0e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5/app.tar.gz",
        "https://github.com/acme/app/releases/download/v2.4.1/app-linux-amd64.tar.gz",
    ):
        assert scrub(text) == text, text


def test_tables_and_markup() -> None:
    for text, expected in (
        (f"| DB_PASSWORD | {PASSWORD} | prod |", f"| DB_PASSWORD | {REDACTED} | prod |"),
        (f"│ api_token │ {SECRET} │", f"│ api_token │ {REDACTED} │"),
        (f"<dt>Client secret</dt><dd>{SECRET}</dd>", f"<dt>Client secret</dt><dd>{REDACTED}</dd>"),
        (f'<wsse:Password Type="urn:x#PasswordText">{PASSWORD}</wsse:Password>', f'<wsse:Password Type="urn:x#PasswordText">{REDACTED}</wsse:Password>'),
        (f'<Pass encoding="base64">{base64.b64encode(PASSWORD.encode()).decode()}</Pass>', f'<Pass encoding="base64">{REDACTED}</Pass>'),
    ):
        assert scrub(text) == expected, text
    for text in (
        "| password_min_length | 12 |",
        "-[ RECORD 1 ]+--------\ntoken_type | bearer",
        "<tr><td>Password</td><td>••••••••</td></tr>",
        "<strong>API key:</strong> ending in <code>a1b2</code>",
        "<wsse:Username>svc</wsse:Username>",
    ):
        assert scrub(text) == text, text


def test_other_languages_copula() -> None:
    for text in (
        f"Das Passwort für db-prod lautet {PASSWORD}",
        f"La contraseña del servidor es {PASSWORD}",
        f"管理者のパスワードは {PASSWORD} です",
        f"Paßwort: {PASSWORD}",  # German's older spelling
        f"+ sqlplus -s system/{PASSWORD}@//ora1:1521/ORCLPDB1",  # Oracle's connect string after its tools
    ):
        assert PASSWORD not in scrub(text), text
    for text in ("Le mot de passe est incorrect.", "Das Passwort ist abgelaufen.", "パスワードは8文字以上で入力してください"):
        assert scrub(text) == text, text


@pytest.mark.xfail(strict=True, reason="chap-secrets' third column is the secret by position alone: nothing names it")
def test_chap_secrets_column() -> None:
    assert PASSWORD not in scrub(f"alice\t*\t{PASSWORD}\t*")
