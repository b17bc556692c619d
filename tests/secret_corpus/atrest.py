"""A tenth held-out set: credentials at rest on hosts and in hand-offs.

    python -m tests.secret_corpus.atrest   # rewrites atrest_*.jsonl.gz here

Kinds the nine earlier sets do not hold, written before reading the scrubber's patterns (listed against the
other sets' module docstrings and docs/scrubbing.md's "Kinds covered"): password hashes as stores keep them
(``/etc/shadow`` crypt strings, htpasswd/htdigest, bcrypt in a row, Django's ``pbkdf2_sha256$``, PostgreSQL
``SCRAM-SHA-256$`` and ``md5<hex>``, LDAP ``{SSHA}`` and LDIF ``userPassword::``, pwdump/secretsdump NT hashes,
MySQL's ``*<HEX>``, Kerberos roast hashes); OS provisioning files (cloud-init ``chpasswd`` lists and ``passwd``/``plain_text_passwd``,
kickstart ``rootpw``, Debian preseed, Windows ``Unattend.xml`` ``<Value>``, Ignition/Butane hashes); client and
daemon files the other sets skipped (FileZilla's base64 ``<Pass>``, mbsync ``Pass``, PPP ``chap-secrets``,
OpenVPN static keys, BIND TSIG ``secret``, ``nsupdate -y``, DNSSEC ``PrivateKey:``, ``wpa_passphrase`` output, Redis
ACL ``>password``, Jenkins' ``{AQAAAB…}`` encrypted secrets); capability links (password reset, magic sign-in,
invitation, e-mail verification and share links whose path or a one-letter parameter is the token); key/value
tables (Markdown, psql ``\\x``, box-drawn and ``aws --output table`` rows); markup between a name and its value
(HTML e-mail cells and ``<code>``, WS-Security and other namespaced XML elements with attributes); encodings the
other sets did not use (query strings percent-encoded twice, ``%253D``; base64 of a JSON object holding a
credential, with no JWT dots); proxies' forwarded credential headers and an access log's bare ``Basic`` field;
GitHub Actions' ``::add-mask::`` echo; a password given by a copula in other languages' prose (``lautet``,
``est``, ``es``, ``是``, ``は``); provider formats with shapes after the vendors' docs that the other sets lack
(Azure AD client secrets ``…8Q~…`` as a positional argument, Braintree/PayPal ``access_token$production$…``, NuGet
``oy2…``, HubSpot ``pat-na1-<uuid>``, Axiom ``xaat-``, Plaid ``access-production-``, LaunchDarkly ``sdk-``,
Bitwarden Secrets Manager ``0.<uuid>.<secret>:<key>``, Buildkite ``bkua_`` and SonarQube ``sqp_`` over hex, Mapbox
``sk.eyJ…``, Figma ``figd_``, Paddle ``pdl_live_apikey_``, Cloudflare Origin CA ``v1.0-…``, JFrog ``cmVmdGtu…``).

Benign: the same places holding no credential, each category saying why: ``/etc/passwd`` and locked shadow
entries, checksum listings, provisioning files that lock or reference, client configs that run a command for the
password, certificates and file paths in VPN configs, links without a token and ids in URL paths, tables of
settings, HTML mails about passwords, WS-Security digests, nonces and certificates, doubly encoded ordinary
queries, base64 JSON cursors, ids that look like provider tokens (UUIDs under id keys, prefixed request ids, hex
object ids), CI annotations and a masked ``add-mask``, other languages' prose about passwords, content digests,
account tables without hashes, LDAP entries without ``userPassword``, Windows logon fields, Redis ACLs without a
password, Jenkins ids, public keys, masks and placeholders.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``; provider bodies carry ``FAKE`` where the shape allows). E-mail addresses are PII the scrubber removes by
design, so no benign line holds one. 62 secret formats x 4 and 30 benign categories x 5.
``tests/test_scrub_atrest.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import b64u, tok, user
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: atrest() seeds it

CRYPT = "./" + ALNUM  # the crypt(3) alphabet


# --- values -----------------------------------------------------------------------------------

def crypt_hash() -> str:
    """A modular-crypt password hash as /etc/shadow keeps it (SHA-512, SHA-256, yescrypt, MD5)."""
    return pick(
        f"$6${rnd(16, CRYPT)}${rnd(86, CRYPT)}",
        f"$6$rounds=656000${rnd(16, CRYPT)}${rnd(86, CRYPT)}",
        f"$5${rnd(16, CRYPT)}${rnd(43, CRYPT)}",
        f"$y$j9T${rnd(22, CRYPT)}${rnd(43, CRYPT)}",
        f"$1${rnd(8, CRYPT)}${rnd(22, CRYPT)}",
    )


def bcrypt() -> str:
    return f"${pick('2b', '2y', '2a')}${pick('10', '12', '05')}${rnd(53, CRYPT)}"


def django_hash() -> str:
    salt = rnd(22, ALNUM)
    digest = base64.b64encode(_r.randbytes(32)).decode()
    return pick(
        f"pbkdf2_sha256$600000${salt}${digest}",
        f"pbkdf2_sha256$870000${salt}${digest}",
        f"argon2$argon2id$v=19$m=102400,t=2,p=8${rnd(22, ALNUM)}${rnd(43, ALNUM)}",
    )


def scram() -> str:
    return (
        f"SCRAM-SHA-256$4096:{base64.b64encode(_r.randbytes(16)).decode()}"
        f"${base64.b64encode(_r.randbytes(32)).decode()}:{base64.b64encode(_r.randbytes(32)).decode()}"
    )


def ssha() -> str:
    return pick("{SSHA}", "{SSHA512}", "{SSHA256}") + base64.b64encode(_r.randbytes(pick_n(24, 72))).decode()


def pick_n(*ns: int) -> int:
    return _r.choice(ns)


def nt_hash() -> str:
    return rnd(32, HEX)


def mysql_hash() -> str:
    return "*" + rnd(40, "0123456789ABCDEF")


def b64pw() -> str:
    return b64s(fpw())


def azure_secret() -> str:
    """Azure AD (Entra) client secret: 3 characters, a digit, ``Q~``, 31-34 more (the portal's shape)."""
    return rnd(3, ALNUM) + str(_r.randint(0, 9)) + "Q~" + "FAKE" + rnd(_r.randint(27, 30), ALNUM + "_~.-")


def braintree() -> str:
    return f"access_token${pick('production', 'sandbox')}${rnd(16, LOWER_ALNUM)}${rnd(32, HEX)}"


def nuget() -> str:
    return "oy2" + rnd(43, LOWER_ALNUM)


def uuid_token() -> str:
    return pick(
        f"pat-{pick('na1', 'eu1')}-{uuid()}",
        f"xaat-{uuid()}",
        f"xapt-{uuid()}",
        f"access-{pick('production', 'sandbox', 'development')}-{uuid()}",
        f"sdk-{uuid()}",
    )


def bws_token() -> str:
    return f"0.{uuid()}.{rnd(30, ALNUM)}:{base64.b64encode(_r.randbytes(16)).decode()}"


def hex_prefixed() -> str:
    return pick("bkua_", "sqp_", "squ_", "sqa_") + rnd(40, HEX)


def fresh_provider() -> str:
    return pick(
        "sk.eyJ" + b64u(json.dumps({"u": "fakeuser", "a": rnd(12, LOWER_ALNUM)}).encode())[3:] + "." + rnd(22, B64URL),
        "figd_FAKE" + rnd(36, B64URL),
        f"pdl_live_apikey_01{rnd(24, LOWER_ALNUM)}_FAKE{rnd(18, ALNUM)}_{rnd(3, ALNUM)}",
        f"pdl_sdbx_apikey_01{rnd(24, LOWER_ALNUM)}_FAKE{rnd(18, ALNUM)}_{rnd(3, ALNUM)}",
        f"v1.0-{rnd(24, HEX)}-{rnd(146, HEX)}",
        "cmVmdGtuOjAxOjE3" + rnd(48, ALNUM),
    )


def randtok() -> str:
    return pick(tok(32, 44), rnd(40, B64URL), rnd(64, HEX), "FAKE" + rnd(36, ALNUM))


def anysecret() -> str:
    return pick(fpw(), randtok())


def link_token() -> str:
    return pick(rnd(43, B64URL), rnd(32, ALNUM), rnd(64, HEX), "FAKE" + rnd(28, ALNUM))


def django_reset() -> str:
    """Django's ``PasswordResetTokenGenerator`` token: base36 timestamp, ``-``, 32 hex."""
    return rnd(6, LOWER_ALNUM) + "-" + rnd(32, HEX)


def ovpn_hex_line() -> str:
    return rnd(32, HEX)


def tsig() -> str:
    return base64.b64encode(_r.randbytes(32)).decode()


def psk_hex() -> str:
    return rnd(64, HEX)


def jenkins() -> str:
    return "{AQAAABAAAA" + pick("AQ", "Ag", "Aw") + base64.b64encode(_r.randbytes(pick_n(32, 48, 64))).decode() + "}"


def enc2(text: str) -> str:
    """Percent-encoded twice (a URL carried inside a parameter of another URL)."""
    return urllib.parse.quote(urllib.parse.quote(text, safe=""), safe="")


def json_b64(obj: dict[str, str]) -> str:
    return base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()


def ts() -> str:
    return f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d}T{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}Z"


def host() -> str:
    return pick("app.example.com", "portal.acme.test", "console.example.org", "id.example.net")


def shown(value: Callable[[], str], show: Callable[[str], str], *templates: Callable[[str], str]) -> Maker:
    """A format whose text holds an encoded form of the secret (the row's secret is what the text holds)."""

    def make() -> tuple[str, str]:
        raw = show(value())
        return raw, _r.choice(templates)(raw)

    return make


def _ovpn() -> tuple[str, str]:
    lines = [ovpn_hex_line() for _ in range(_r.randint(4, 8))]
    head = pick("", "<tls-auth>\n", "<tls-crypt>\n", "# 2048 bit OpenVPN static key\n")
    tail = "</tls-auth>" if head.startswith("<tls-auth") else ("</tls-crypt>" if head.startswith("<tls-crypt") else "")
    text = head + "-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(lines) + "\n-----END OpenVPN Static key V1-----\n" + tail
    return lines[1], text


def _md_table() -> tuple[str, str]:
    s = anysecret()
    name = pick("DB_PASSWORD", "STRIPE_SECRET_KEY", "api_key", "Client secret", "SMTP password", "JWT_SECRET")
    return s, _r.choice([
        f"| Variable | Value | Env |\n|---|---|---|\n| {name} | {s} | prod |",
        f"| {name} | `{s}` | rotated {ts()[:10]} |",
        f"| Service | Username | Password |\n|---------|----------|----------|\n| grafana | admin | {s} |",
        f"Credentials for the staging stack:\n\n| key | value |\n| --- | --- |\n| {name} | {s} |",
    ])


def _davfs_s3fs() -> tuple[str, str]:
    """davfs2's secrets file holds a password; s3fs' passwd file an AWS secret key (always 40 characters)."""
    if _r.random() < 0.5:
        s = fpw()
        return s, _r.choice([f"https://dav.example.com/remote.php/webdav alice \"{s}\"", f"/mnt/nextcloud  alice  {s}"])
    s = rnd(40, ALNUM + "+/")
    return s, _r.choice([f"$ cat ~/.passwd-s3fs\nAKIA{rnd(16, UPPER_ALNUM)}:{s}", f"echo AKIA{rnd(16, UPPER_ALNUM)}:{s} > /etc/passwd-s3fs"])


# --- secrets ----------------------------------------------------------------------------------

ATREST_SECRETS: list[tuple[str, str, Maker]] = [
    # password hashes as stores keep them -------------------------------------------------------
    ("shadow_line", "log", one(crypt_hash,
        lambda s: f"{user()}:{s}:19{_r.randint(100, 999)}:0:99999:7:::",
        lambda s: f"$ sudo cat /etc/shadow | grep {user()}\n{user()}:{s}:20{_r.randint(100, 400)}:0:99999:7:::",
        lambda s: f"getent shadow root -> root:{s}:19{_r.randint(100, 999)}::::::",
        lambda s: f"ERROR usermod: failed to update /etc/shadow entry 'root:{s}:19655:0:99999:7:::'",
    )),
    ("htpasswd_htdigest", "log", one(lambda: pick(f"$apr1${rnd(8, CRYPT)}${rnd(22, CRYPT)}", "{SHA}" + base64.b64encode(_r.randbytes(20)).decode(), bcrypt()),
        lambda s: f"{user()}:{s}",
        lambda s: f"$ cat /etc/nginx/.htpasswd\n{user()}:{s}\nops:{'$apr1$' + rnd(8, CRYPT) + '$' + rnd(22, CRYPT)}",
        lambda s: f"auth_basic_user_file contents: metrics:{s}",
        lambda s: f"htpasswd -nbB admin ****** -> admin:{s}",
    )),
    ("bcrypt_in_rows", "log", one(bcrypt,
        lambda s: f"INSERT INTO users (id, login, encrypted_password) VALUES (42, 'alice', '{s}');",
        lambda s: f" 42 | alice | {s} | 2025-01-09 10:22:31",
        lambda s: f"{{\"_id\": \"65a1f0c2e4b0a1b2c3d4e5f6\", \"username\": \"alice\", \"hash\": \"{s}\"}}",
        lambda s: f"user.rb:12 #<User id: 42, login: \"alice\", crypted: \"{s}\">",
    )),
    ("django_password_field", "log", one(django_hash,
        lambda s: f"  {{\"model\": \"auth.user\", \"pk\": 1, \"fields\": {{\"password\": \"{s}\", \"username\": \"admin\"}}}}",
        lambda s: f" 1 | {s} | 2025-01-09 10:22:31+00 | t | admin",
        lambda s: f"<User: admin> password={s}",
        lambda s: f"django.db.utils.IntegrityError: duplicate key value violates unique constraint DETAIL: Key (username)=(admin) row ({s}, admin)",
    )),
    ("postgres_role_hash", "log", one(lambda: pick(scram(), "md5" + rnd(32, HEX)),
        lambda s: f" app      | {s}",
        lambda s: f"rolname=app rolpassword={s}",
        lambda s: f"ALTER ROLE app WITH LOGIN PASSWORD '{s}';",
        lambda s: f"pg_dumpall --roles-only: CREATE ROLE app; ALTER ROLE app WITH NOSUPERUSER LOGIN PASSWORD '{s}';",
    )),
    ("ldap_userpassword", "log", one(lambda: pick(ssha(), "{CRYPT}" + crypt_hash()),
        lambda s: f"dn: uid=alice,ou=people,dc=example,dc=com\nuserPassword: {s}",
        lambda s: f"userPassword: {s}",
        lambda s: f"ldapmodify: replace userPassword: {s}",
        lambda s: f"# alice, people, example.com\nobjectClass: inetOrgPerson\nuid: alice\nuserPassword: {s}",
    )),
    ("ldif_base64_password", "log", shown(lambda: pick(ssha(), fpw()), b64s,
        lambda s: f"userPassword:: {s}",
        lambda s: f"dn: uid=svc-sync,ou=services,dc=example,dc=com\nobjectClass: account\nuserPassword:: {s}",
        lambda s: f"slapcat | grep -A1 'uid=alice'\nuserPassword:: {s}",
    )),
    ("ntlm_pwdump", "log", one(nt_hash,
        lambda s: f"Administrator:500:aad3b435b51404eeaad3b435b51404ee:{s}:::",
        lambda s: f"CORP\\svc_sql:1104:aad3b435b51404eeaad3b435b51404ee:{s}:::",
        lambda s: f"[*] Dumping local SAM hashes (uid:rid:lmhash:nthash)\nGuest:501:aad3b435b51404eeaad3b435b51404ee:{s}:::",
        lambda s: f"krbtgt:502:aad3b435b51404eeaad3b435b51404ee:{s}:::",
    )),
    ("mysql_native_hash", "log", one(mysql_hash,
        lambda s: f"| app  | %         | mysql_native_password | {s} |",
        lambda s: f"CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password AS '{s}';",
        lambda s: f"GRANT ALL ON shop.* TO 'app'@'10.0.%' IDENTIFIED BY PASSWORD '{s}';",
        lambda s: f"authentication_string: {s}",
    )),
    ("kerberos_roast_hash", "log", one(lambda: rnd(32, HEX) + "$" + rnd(96, HEX),
        lambda s: f"$krb5tgs$23$*svc_sql$CORP.EXAMPLE.COM$MSSQLSvc/sql01.corp.example.com:1433*${s}",
        lambda s: f"$krb5asrep$23$alice@CORP.EXAMPLE.COM:{s}",
        lambda s: f"[+] roasted: $krb5tgs$23$*web$CORP$HTTP/web01*${s}",
    )),
    # OS provisioning ----------------------------------------------------------------------------
    ("cloud_init_chpasswd", "log", one(fpw,
        lambda s: f"#cloud-config\nchpasswd:\n  expire: false\n  list: |\n    root:{s}",
        lambda s: f"chpasswd:\n  list:\n    - ubuntu:{s}\n  expire: False",
        lambda s: f"#cloud-config\nchpasswd: {{expire: False, list: ['ubuntu:{s}']}}",
        lambda s: f"runcmd:\n  - echo 'deploy:{s}' | chpasswd",
    )),
    ("cloud_init_user_passwd", "log", one(lambda: pick(crypt_hash(), fpw()),
        lambda s: f"users:\n  - name: ops\n    lock_passwd: false\n    passwd: {s}",
        lambda s: f"users:\n  - name: ops\n    plain_text_passwd: '{s}'\n    sudo: ALL=(ALL) NOPASSWD:ALL",
        lambda s: f"users:\n  - default\n  - name: backup\n    hashed_passwd: {s}",
        lambda s: f"cloud-init[812]: WARNING: user-data for ops: passwd={s}",
    )),
    ("kickstart_rootpw", "log", one(lambda: pick(fpw(), crypt_hash()),
        lambda s: f"# System root password\nrootpw --plaintext {s}",
        lambda s: f"rootpw --iscrypted {s}",
        lambda s: f"rootpw {s}\nauth --enableshadow --passalgo=sha512",
        lambda s: f"vmaccepteula\nrootpw {s}\ninstall --firstdisk --overwritevmfs",
    )),
    ("debian_preseed", "log", one(lambda: pick(fpw(), crypt_hash()),
        lambda s: f"d-i passwd/root-password password {s}\nd-i passwd/root-password-again password {s}",
        lambda s: f"d-i passwd/user-password-crypted password {s}",
        lambda s: f"d-i passwd/root-password-crypted password {s}",
        lambda s: f"d-i passwd/user-password password {s}",
    )),
    ("windows_unattend", "log", one(lambda: pick(fpw(), b64s((fpw() + "AdministratorPassword")).replace("=", "") + "=="),
        lambda s: f"<AdministratorPassword><Value>{s}</Value><PlainText>true</PlainText></AdministratorPassword>",
        lambda s: f"<AutoLogon>\n  <Password>\n    <Value>{s}</Value>\n    <PlainText>true</PlainText>\n  </Password>\n  <Username>Administrator</Username>\n</AutoLogon>",
        lambda s: f"<LocalAccount wcm:action=\"add\"><Password><Value>{s}</Value><PlainText>false</PlainText></Password><Name>ops</Name></LocalAccount>",
        lambda s: f"<DomainAdminPassword>{s}</DomainAdminPassword>",
    )),
    ("ignition_butane_hash", "log", one(crypt_hash,
        lambda s: f"{{\"passwd\":{{\"users\":[{{\"name\":\"core\",\"passwordHash\":\"{s}\"}}]}}}}",
        lambda s: f"passwd:\n  users:\n    - name: core\n      password_hash: {s}",
        lambda s: f"autoinstall:\n  identity:\n    hostname: node-1\n    username: ops\n    password: \"{s}\"",
        lambda s: f"[customizations.user]\nname = \"admin\"\npassword = \"{s}\"",
    )),
    # client and daemon files ---------------------------------------------------------------------
    ("filezilla_pass", "log", shown(fpw, b64s,
        lambda s: f"<Server><Host>ftp.example.com</Host><Port>21</Port><User>deploy</User><Pass encoding=\"base64\">{s}</Pass><Logontype>1</Logontype></Server>",
        lambda s: f"<Pass encoding=\"base64\">{s}</Pass>",
        lambda s: f"recentservers.xml: <User>alice</User>\n<Pass encoding=\"base64\">{s}</Pass>",
    )),
    ("mbsync_msmtp", "log", one(fpw,
        lambda s: f"IMAPAccount work\nHost imap.example.com\nUser alice\nPass {s}\nSSLType IMAPS",
        lambda s: f"account work\nhost smtp.example.com\nport 587\nauth on\nuser alice\npassword {s}",
        lambda s: f"IMAPStore work-remote\nAccount work\nPass \"{s}\"",
        lambda s: f"defaults\nauth on\ntls on\naccount gmail\nuser alice\npassword {s}\naccount default : gmail",
    )),
    ("ppp_chap_secrets", "log", one(fpw,
        lambda s: f"# client\tserver\tsecret\tIP addresses\nalice\t*\t{s}\t*",
        lambda s: f"\"bob\" pptpd \"{s}\" 10.0.0.2",
        lambda s: f"vpnuser  l2tpd  \"{s}\"  *",
        lambda s: f"/etc/ppp/chap-secrets:\nsvc-modem * {s} *",
    )),
    ("openvpn_static_key", "log", _ovpn),
    ("bind_tsig_dnssec", "log", one(tsig,
        lambda s: f"key \"xfer-key\" {{\n\talgorithm hmac-sha256;\n\tsecret \"{s}\";\n}};",
        lambda s: f"nsupdate -y hmac-sha256:ddns-key:{s} /tmp/update.txt",
        lambda s: f"Private-key-format: v1.3\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: {s}",
        lambda s: f"key rndc-key {{ algorithm hmac-sha256; secret \"{s}\"; }};",
    )),
    ("wpa_supplicant_psk", "log", one(lambda: pick(psk_hex(), fpw()),
        lambda s: f"network={{\n\tssid=\"Office-5G\"\n\t#psk=\"FakeWifi-{_r.randint(10, 99)}\"\n\tpsk={s}\n}}" if len(s) == 64 else f"network={{\n\tssid=\"Office\"\n\tpsk=\"{s}\"\n}}",
        lambda s: f"nmcli dev wifi connect Office-5G password {s}",
        lambda s: f"802-11-wireless-security.psk:  {s}",
        lambda s: f"wpa_passphrase Office-5G {s}",
    )),
    ("redis_acl_password", "log", one(fpw,
        lambda s: f"user app on >{s} ~app:* +@all",
        lambda s: f"ACL SETUSER worker on >{s} ~jobs:* +@list",
        lambda s: f"1702040000.123456 [0 10.0.0.5:51234] \"ACL\" \"SETUSER\" \"svc\" \"on\" \">{s}\"",
        lambda s: f"users.acl: user default on >{s} allkeys allcommands",
    )),
    ("jenkins_encrypted", "log", one(jenkins,
        lambda s: f"<password>{s}</password>",
        lambda s: f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl><id>deploy</id><username>ci</username><password>{s}</password></com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>",
        lambda s: f"<org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl><id>slack</id><secret>{s}</secret></org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl>",
        lambda s: f"println(hudson.util.Secret.decrypt('{s}'))",
    )),
    # capability links ----------------------------------------------------------------------------
    ("password_reset_link", "log", one(link_token,
        lambda s: f"Reset your password: https://{host()}/reset-password/{s}",
        lambda s: f"GET /password/reset/{s}?lang=en HTTP/1.1\" 200",
        lambda s: f"mailer: sent reset link https://{host()}/auth/reset/{s} to user 42",
        lambda s: f"<a href=\"https://{host()}/account/recover/{s}\">Choose a new password</a>",
    )),
    ("django_reset_link", "log", one(django_reset,
        lambda s: f"https://{host()}/accounts/reset/MjQ/{s}/",
        lambda s: f"\"GET /reset/Mw/{s}/ HTTP/1.1\" 302 0",
        lambda s: f"Password reset for admin: http://localhost:8000/auth/password/reset/confirm/NDI/{s}/",
    )),
    ("magic_link", "log", one(link_token,
        lambda s: f"Sign in with this link: https://{host()}/auth/magic-link?t={s}",
        lambda s: f"https://{host()}/login/magic/{s}",
        lambda s: f"\"GET /auth/callback/email?k={s}&redirect=%2Fhome HTTP/2.0\" 302",
        lambda s: f"Your sign-in link: https://{host()}/signin/email/{s} (expires in 15 minutes)",
    )),
    ("invite_link", "log", one(link_token,
        lambda s: f"You're invited: https://{host()}/invite/{s}",
        lambda s: f"https://{host()}/join/{s}",
        lambda s: f"POST /api/invitations/{s}/accept 201",
        lambda s: f"Invitation URL: https://{host()}/teams/acme/invitations/{s}",
    )),
    ("verify_email_link", "log", one(link_token,
        lambda s: f"Confirm your e-mail: https://{host()}/verify-email/{s}",
        lambda s: f"https://{host()}/confirm/{s}",
        lambda s: f"\"GET /activate/Mzc/{s}/ HTTP/1.1\" 200",
        lambda s: f"verification link https://{host()}/email/verify/{s}?expires=1735689600",
    )),
    ("share_link", "log", one(link_token,
        lambda s: f"Shared with anyone who has the link: https://files.example.com/s/{s}",
        lambda s: f"https://{host()}/share/{s}",
        lambda s: f"https://www.dropbox.com/scl/fi/{rnd(21, LOWER_ALNUM)}/report.pdf?rlkey={s}&dl=0",
        lambda s: f"download: https://{host()}/public/download/{s}/backup.tar.gz",
    )),
    # tables ---------------------------------------------------------------------------------------
    ("markdown_table", "log", _md_table),
    ("psql_expanded", "log", one(anysecret,
        lambda s: f"-[ RECORD 1 ]+----------------\nid         | 7\nname       | stripe\napi_key    | {s}",
        lambda s: f" client_secret | {s}",
        lambda s: f"-[ RECORD 3 ]-+------\nusername      | svc\npassword      | {s}\ncreated_at    | 2025-01-09",
        lambda s: f"   key    |       value\n----------+-------------------\n smtp_pass | {s}",
    )),
    ("box_table", "log", one(anysecret,
        lambda s: f"│ DB_PASSWORD     │ {s} │",
        lambda s: f"┃ api_token ┃ {s} ┃",
        lambda s: f"+------------------+--------------------------------------------+\n| SecretAccessKey  | {s} |",
        lambda s: f"|  SessionToken   |  {s}  |",
    )),
    # markup between name and value ------------------------------------------------------------
    ("html_email", "log", one(anysecret,
        lambda s: f"<tr><td>Password</td><td>{s}</td></tr>",
        lambda s: f"<p>Your API key: <code>{s}</code></p>",
        lambda s: f"<b>Temporary password:</b> {s}<br>",
        lambda s: f"<dt>Client secret</dt><dd>{s}</dd>",
    )),
    ("xml_namespaced_elements", "log", one(anysecret,
        lambda s: f"<wsse:UsernameToken><wsse:Username>svc</wsse:Username><wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{s}</wsse:Password></wsse:UsernameToken>",
        lambda s: f"<ns2:apiKey xmlns:ns2=\"urn:example:auth\">{s}</ns2:apiKey>",
        lambda s: f"<d:Password m:type=\"Edm.String\">{s}</d:Password>",
        lambda s: f"<Password xsi:type=\"xsd:string\">{s}</Password>",
    )),
    # encodings ---------------------------------------------------------------------------------------
    ("double_percent_encoded", "log", one(lambda: pick(tok(32, 40), "FAKE" + rnd(28, ALNUM)),
        lambda s: f"GET /login?next={enc2('/api/export?token=' + s)} HTTP/1.1",
        lambda s: f"redirect_uri=https%3A%2F%2F{host()}%2Fcb%3Fstate%3D{enc2('x&client_secret=' + s)}",
        lambda s: f"Location: /sso?RelayState={enc2('/connect?api_key=' + s + '&v=2')}",
        lambda s: f"body={enc2(json.dumps({'password': s}))}",
    )),
    ("base64_json_credential", "log", one(lambda: pick(
        json_b64({"username": user(), "password": fpw()}),
        json_b64({"type": "service_account", "project_id": "acme-prod", "private_key_id": rnd(40, HEX)}),
        json_b64({"token": tok(32, 40), "expires": 3600}),
        json_b64({"api_key": "FAKE" + rnd(32, ALNUM), "region": "eu"}),
    ),
        lambda s: f"X-Upstream-Credentials: {s}",
        lambda s: f"GOOGLE_CREDENTIALS_B64={s}",
        lambda s: f"credentials blob: {s}",
        lambda s: f"\"authConfig\": \"{s}\"",
    )),
    # forwarded headers and logs ------------------------------------------------------------------
    ("forwarded_credential_headers", "log", one(lambda: pick(tok(32, 48), rnd(40, B64URL)),
        lambda s: f"X-Forwarded-Access-Token: {s}",
        lambda s: f"X-Auth-Request-Access-Token: {s}",
        lambda s: f"X-Amzn-Oidc-Accesstoken: {s}",
        lambda s: f"grpc-metadata-x-goog-iap-jwt-assertion: {s}",
    )),
    ("forwarded_basic", "log", shown(lambda: f"{user()}:{fpw()}", b64s,
        lambda s: f"X-Forwarded-Authorization: Basic {s}",
        lambda s: f"X-Original-Authorization: Basic {s}",
        lambda s: f"10.0.4.7 - - [09/Jan/2025:10:22:31 +0000] \"GET /metrics HTTP/1.1\" 200 512 \"-\" \"Prometheus/2.53\" \"Basic {s}\"",
        lambda s: f"upstream request headers: proxy-authorization=Basic {s}",
    )),
    ("actions_add_mask", "log", one(lambda: pick(tok(32, 44), fpw(), "FAKE" + rnd(36, ALNUM)),
        lambda s: f"::add-mask::{s}",
        lambda s: f"2025-01-09T10:22:31.1234567Z ::add-mask::{s}",
        lambda s: f"+ echo '::add-mask::{s}'",
        lambda s: f"##[debug]Evaluating: format('::add-mask::{{0}}', steps.token.outputs.value) => '::add-mask::{s}'",
    )),
    # prose with a copula ----------------------------------------------------------------------------
    ("copula_prose_latin", "log", one(fpw,
        lambda s: f"Das Passwort für db-prod lautet {s}",
        lambda s: f"Le mot de passe du compte admin est {s}",
        lambda s: f"La contraseña del servidor es {s}",
        lambda s: f"A senha do banco é {s}",
        lambda s: f"Het wachtwoord voor de VPN is {s}",
    )),
    ("copula_prose_cjk", "log", one(fpw,
        lambda s: f"数据库密码是{s}",
        lambda s: f"管理者のパスワードは {s} です",
        lambda s: f"관리자 비밀번호는 {s} 입니다",
        lambda s: f"初始密码为 {s}，请尽快修改",
    )),
    # provider formats -------------------------------------------------------------------------------
    ("azure_ad_client_secret", "log", one(azure_secret,
        lambda s: f"credential = ClientSecretCredential(\"{uuid()}\", \"{uuid()}\", \"{s}\")",
        lambda s: f"app = msal.ConfidentialClientApplication(\"{uuid()}\", authority=AUTHORITY, client_credential=\"{s}\")",
        lambda s: f"DisplayName,SecretText,EndDateTime\nsvc-sync,{s},2026-01-09",
        lambda s: f"new secret for app svc-sync: {s}",
    )),
    ("braintree_paypal_token", "log", one(braintree,
        lambda s: f"gateway = braintree.BraintreeGateway(\"{s}\")",
        lambda s: f"Using Braintree credential {s}",
        lambda s: f"new Gateway(\"{s}\")",
        lambda s: f"BT_ACCESS = {s}",
    )),
    ("nuget_api_key", "log", one(nuget,
        lambda s: f"dotnet nuget push Acme.Core.1.4.2.nupkg -k {s} -s https://api.nuget.org/v3/index.json",
        lambda s: f"nuget setapikey {s} -Source https://api.nuget.org/v3/index.json",
        lambda s: f"NUGET_KEY {s}",
        lambda s: f"Pushing Acme.Core.1.4.2.nupkg to 'https://www.nuget.org/api/v2/package' with {s}",
    )),
    ("uuid_shaped_tokens", "log", one(uuid_token,
        lambda s: f"{s}",
        lambda s: f"client = Client(\"{s}\")",
        lambda s: f"curl -H 'X-Custom: {s}' https://api.example.com/v1/ping",
        lambda s: f"init({{ key: {s} }})",
    )),
    ("uuid_credentials_under_keys", "log", one(uuid,
        lambda s: f"snyk config set api={s}",
        lambda s: f"Api-Key: {s}",
        lambda s: f"heroku_api_key = \"{s}\"",
        lambda s: f"{{\"apiKey\": \"{s}\", \"region\": \"us\"}}",
    )),
    ("bitwarden_sm_token", "log", one(bws_token,
        lambda s: f"bws secret list --access-token {s}",
        lambda s: f"{s}",
        lambda s: f"BitwardenClient().auth().login_access_token(\"{s}\")",
        lambda s: f"bws run -- npm start  # token {s}",
    )),
    ("hex_vendor_tokens", "log", one(hex_prefixed,
        lambda s: f"{s}",
        lambda s: f"sonar-scanner -Dsonar.host.url=https://sonar.example.com -Dsonar.login={s}",
        lambda s: f"curl -H \"Authorization: Bearer {s}\" https://api.buildkite.com/v2/user",
        lambda s: f"agent started with {s}",
    )),
    ("fresh_provider_shapes", "log", one(fresh_provider,
        lambda s: f"{s}",
        lambda s: f"init(\"{s}\")",
        lambda s: f"config: {{ accessToken: \"{s}\" }}",
        lambda s: f"found credential {s} in build log",
    )),
    # more stores and files -------------------------------------------------------------------------
    ("pgbouncer_userlist", "log", one(lambda: pick(fpw(), scram(), "md5" + rnd(32, HEX)),
        lambda s: f"\"app\" \"{s}\"",
        lambda s: f"$ cat /etc/pgbouncer/userlist.txt\n\"pgbouncer\" \"{s}\"",
        lambda s: f"pool_passwd: app:{s}",
        lambda s: f"userlist.txt line 3: \"report\" \"{s}\"",
    )),
    ("jaas_user_entries", "log", one(fpw,
        lambda s: f"org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-{_r.randint(10, 99)}\" user_alice=\"{s}\";",
        lambda s: f"Server {{\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  user_super=\"{s}\";\n}};",
        lambda s: f"KafkaServer {{ org.apache.kafka.common.security.plain.PlainLoginModule required user_producer=\"{s}\"; }};",
        lambda s: f"listener.name.sasl_plaintext.plain.sasl.jaas.config=... user_broker=\"{s}\";",
    )),
    ("rabbitmq_password_hash", "log", one(lambda: base64.b64encode(_r.randbytes(36)).decode(),
        lambda s: f"{{\"name\":\"app\",\"password_hash\":\"{s}\",\"hashing_algorithm\":\"rabbit_password_hashing_sha256\",\"tags\":[]}}",
        lambda s: f"rabbitmqctl export_definitions: users[0].password_hash={s}",
        lambda s: f"  password_hash: {s}",
        lambda s: f"{{\"users\": [{{\"name\": \"guest\", \"password_hash\": \"{s}\"}}]}}",
    )),
    ("grub_password", "log", one(lambda: pick(f"grub.pbkdf2.sha512.10000.{rnd(128, 'ABCDEF0123456789')}.{rnd(128, 'ABCDEF0123456789')}", fpw()),
        lambda s: f"set superusers=\"root\"\npassword_pbkdf2 root {s}",
        lambda s: f"password_pbkdf2 admin {s}",
        lambda s: f"cat <<EOF\nset superusers=\"admin\"\npassword admin {s}\nEOF",
        lambda s: f"GRUB2_PASSWORD={s}",
    )),
    ("smbpasswd_tdb", "log", one(lambda: rnd(32, "0123456789ABCDEF"),
        lambda s: f"alice:1000:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:{s}:[U          ]:LCT-65A1F0C2:",
        lambda s: f"pdbedit -Lw\nbob:1001:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:{s}:[U          ]:LCT-6600AB12:",
        lambda s: f"svc$:1002:NO PASSWORDXXXXXXXXXXXXXXXXXXXXX:{s}:[W          ]:LCT-66A0F00D:",
    )),
    ("dovecot_passwd_scheme", "log", one(lambda: pick("{SHA512-CRYPT}" + crypt_hash(), "{PLAIN}" + fpw(), "{CRAM-MD5}" + rnd(64, HEX), "{BLF-CRYPT}" + bcrypt()),
        lambda s: f"alice:{s}::::::",
        lambda s: f"bob:{s}:1000:1000::/home/bob::",
        lambda s: f"doveadm pw -s SHA512-CRYPT -> {s}",
        lambda s: f"passdb lookup: user=carol password={s}",
    )),
    ("piped_password_prompt", "log", one(fpw,
        lambda s: f"echo '{s}' | sudo -S apt-get update",
        lambda s: f"printf '%s\\n' '{s}' | passwd --stdin deploy",
        lambda s: f"echo -e \"{s}\\n{s}\" | passwd ops",
        lambda s: f"+ echo {s}\n+ sudo -S systemctl restart api",
    )),
    ("davfs_s3fs_secrets", "log", _davfs_s3fs),
    ("remote_desktop_bmc", "log", one(fpw,
        lambda s: f"xfreerdp /u:ops /p:{s} /v:10.0.3.17 /cert:ignore",
        lambda s: f"ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -P {s} chassis power status",
        lambda s: f"racadm -r 10.0.9.22 -u root -p {s} getsysinfo",
        lambda s: f"x11vnc -display :0 -passwd {s} -forever",
    )),
    ("fresh_provider_shapes_2", "log", one(lambda: pick(
        "xkeysib-" + rnd(64, HEX) + "-FAKE" + rnd(12, ALNUM),
        pick("shpss_", "shpca_", "shppa_") + rnd(32, HEX),
        "dbtc_" + "FAKE" + rnd(40, B64URL),
        "sgp_" + rnd(16, HEX) + "_" + rnd(40, HEX),
        "CCIPAT_" + rnd(22, ALNUM) + "_" + rnd(40, HEX),
    ),
        lambda s: f"{s}",
        lambda s: f"client = Client(\"{s}\")",
        lambda s: f"leaked in build output: {s}",
        lambda s: f"curl -H 'X-Custom: {s}' https://api.example.com",
    )),
    ("passlib_mosquitto_hashes", "log", one(lambda: pick(
        f"$pbkdf2-sha256$29000${rnd(22, CRYPT)}${rnd(43, CRYPT)}",
        f"$argon2id$v=19$m=65536,t=3,p=4${rnd(22, ALNUM + '+/')}${rnd(43, ALNUM + '+/')}",
        f"$7$101${rnd(16, B64)}${rnd(86, B64)}==",
        f"$scrypt$ln=16,r=8,p=1${rnd(22, ALNUM + '+/')}${rnd(43, ALNUM + '+/')}",
    ),
        lambda s: f"{user()}:{s}",
        lambda s: f"hashed = \"{s}\"",
        lambda s: f"mosquitto_passwd -b /etc/mosquitto/passwd sensor ****** -> sensor:{s}",
        lambda s: f"UPDATE accounts SET pw = '{s}' WHERE id = 42;",
    )),
    ("vault_operator_init", "log", one(lambda: base64.b64encode(_r.randbytes(32)).decode(),
        lambda s: f"Unseal Key 1: {s}",
        lambda s: f"Unseal Key 3: {s}\nUnseal Key 4: {base64.b64encode(_r.randbytes(32)).decode()}",
        lambda s: f"Recovery Key 1: {s}",
        lambda s: f"{{\"unseal_keys_b64\": [\"{s}\"], \"unseal_threshold\": 3}}",
    )),
]


# --- benign ----------------------------------------------------------------------------------------

def _hexid(n: int = 24) -> str:
    return rnd(n, HEX)


ATREST_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # /etc/passwd lines and shadow entries with no hash: x, a lock, an empty field.
    ("passwd_and_locked_shadow", "log", lambda: pick(
        "root:x:0:0:root:/root:/bin/bash",
        f"daemon:*:19{_r.randint(100, 999)}:0:99999:7:::",
        f"ubuntu:!:19{_r.randint(100, 999)}:0:99999:7:::",
        "sshd:!!:19655::::::",
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    )),
    # checksum listings and digest files: hashes of files, not of passwords.
    ("checksum_listings", "log", lambda: pick(
        f"{sha(64)}  dist/app-1.{_r.randint(0, 9)}.{_r.randint(0, 20)}.tar.gz",
        f"SHA512 (release.zip) = {sha(128)}",
        f"{sha(32)}  install.iso",
        f"sha256:{sha(64)}",
        f"Checksum (SHA-256): {sha(64)}",
    )),
    # cloud-init that locks passwords, disables password SSH and ships public keys.
    ("cloud_init_benign", "log", lambda: pick(
        "users:\n  - name: ops\n    lock_passwd: true\n    ssh_authorized_keys:\n      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64) + " ops@laptop",
        "ssh_pwauth: false\ndisable_root: true",
        "chpasswd:\n  expire: true",
        "#cloud-config\npackage_update: true\npackages:\n  - nginx\n  - fail2ban",
        "cloud-init[812]: Cloud-init v. 24.1 finished at Thu, 09 Jan 2025 10:22:31 +0000. Datasource DataSourceEc2.",
    )),
    # kickstart and preseed lines that lock root, choose a user name or set a policy.
    ("kickstart_preseed_benign", "log", lambda: pick(
        "rootpw --lock",
        "d-i passwd/root-login boolean false",
        "d-i passwd/username string ops",
        "d-i passwd/make-user boolean true",
        "authselect select sssd with-mkhomedir",
    )),
    # Unattend.xml without a password: empty values, logon counts, user names, time zones.
    ("unattend_benign", "log", lambda: pick(
        "<AutoLogon><Enabled>false</Enabled><LogonCount>1</LogonCount><Username>Administrator</Username></AutoLogon>",
        "<Password><Value></Value><PlainText>true</PlainText></Password>",
        "<TimeZone>UTC</TimeZone>",
        "<ComputerName>WEB-01</ComputerName>",
        "<SkipMachineOOBE>true</SkipMachineOOBE>",
    )),
    # mail clients that run a command for the password, or name their auth method.
    ("mail_client_benign", "log", lambda: pick(
        "IMAPAccount work\nHost imap.example.com\nUser alice\nPassCmd \"pass show mail/work\"",
        "passwordeval \"gpg -q --for-your-eyes-only --no-tty -d ~/.msmtp-password.gpg\"",
        "auth on\ntls on\ntls_trust_file /etc/ssl/certs/ca-certificates.crt",
        "<Logontype>2</Logontype>",
        "<Pass encoding=\"base64\" />",
    )),
    # VPN and DNS configs that name key files and algorithms, and certificates (public).
    ("vpn_dns_benign", "log", lambda: pick(
        "tls-crypt /etc/openvpn/server/ta.key\nauth SHA256\ncipher AES-256-GCM",
        "key-direction 1\nremote vpn.example.com 1194 udp",
        "include \"/etc/bind/rndc.key\";\nallow-transfer { key xfer-key; };",
        "-----BEGIN CERTIFICATE-----\nMIIB" + rnd(60, B64) + "\n" + rnd(64, B64) + "\n-----END CERTIFICATE-----",
        "# client\tserver\tsecret\tIP addresses",
    )),
    # Wi-Fi configs and listings without a key.
    ("wifi_benign", "log", lambda: pick(
        "network={\n\tssid=\"Guest\"\n\tkey_mgmt=NONE\n}",
        "wpa_pairwise=CCMP\nwpa_key_mgmt=WPA-PSK",
        "IN-USE  SSID       MODE   CHAN  RATE        SIGNAL  BARS  SECURITY\n*       Office-5G  Infra  36    540 Mbit/s  72      ▂▄▆_  WPA2",
        "802-11-wireless-security.key-mgmt:  wpa-psk",
        "wlan0: CTRL-EVENT-CONNECTED - Connection to 3c:52:82:1a:2b:3c completed [id=0 id_str=]",
    )),
    # links to the pages themselves, status pages and ids of ordinary objects.
    ("links_without_tokens", "log", lambda: pick(
        f"https://{host()}/reset-password",
        "\"GET /verify-email/sent HTTP/1.1\" 200 1024",
        f"https://{host()}/invite",
        f"https://{host()}/share/quarterly-report-2025",
        f"https://{host()}/docs/auth/magic-links",
    )),
    # ids in URL paths: commits, orders (UUIDs), issues, numeric users.
    ("ids_in_paths", "log", lambda: pick(
        f"https://github.com/acme/app/commit/{sha(40)}",
        f"https://{host()}/orders/{uuid()}",
        f"\"GET /api/v1/users/{_r.randint(1000, 99999)}/invoices?page=2 HTTP/1.1\" 200",
        f"https://{host()}/projects/acme/pipelines/{_r.randint(100000, 999999)}",
        f"s3://acme-datalake/events/2025/01/09/part-00000-{uuid()}.snappy.parquet",
    )),
    # tables of settings under secret-sounding names.
    ("settings_tables", "log", lambda: pick(
        "| Setting | Value |\n|---|---|\n| password_min_length | 12 |\n| password_expiry_days | 90 |",
        "| Variable | Required | Description |\n|---|---|---|\n| `DB_PASSWORD` | yes | database password |",
        "| api_key_header | X-API-Key |",
        "-[ RECORD 1 ]+--------\ntoken_type | bearer\nexpires_in | 3600",
        " rolname | rolcanlogin | rolpassword\n---------+-------------+-------------\n app     | t           | ********",
    )),
    # box-drawn listings of secret objects: names, types, counts, ages.
    ("box_tables_benign", "log", lambda: pick(
        "│ NAME     │ TYPE   │ DATA │ AGE │\n│ db-creds │ Opaque │ 2    │ 5d  │",
        "┃ Key ┃ Last rotated ┃\n┃ STRIPE_SECRET_KEY ┃ 2025-01-09 ┃",
        "|  Status   |  Active  |",
        "| UserName  | CreateDate           |\n| deploy    | 2025-01-09T10:22:31Z |",
        f"│ id │ {_r.randint(1, 99)} │",
    )),
    # HTML mails about passwords and keys without one.
    ("html_mail_benign", "log", lambda: pick(
        "<p>Your password was changed on 2025-03-04.</p>",
        "<tr><td>Password</td><td>••••••••</td></tr>",
        "<p>Reset your password using the link below. It expires in 60 minutes.</p>",
        "<strong>API key:</strong> ending in <code>a1b2</code>",
        "<dt>Client ID</dt><dd>web-dashboard</dd>",
    )),
    # WS-Security and SOAP parts that are public or one-time: user names, timestamps, digests, nonces, certificates.
    ("soap_benign", "log", lambda: pick(
        "<wsse:Username>svc</wsse:Username>",
        f"<wsu:Created>{ts()}</wsu:Created>",
        f"<ds:DigestValue>{base64.b64encode(_r.randbytes(32)).decode()}</ds:DigestValue>",
        f"<wsse:Nonce EncodingType=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary\">{base64.b64encode(_r.randbytes(16)).decode()}</wsse:Nonce>",
        "<ds:X509Certificate>MIIC" + rnd(80, B64) + "</ds:X509Certificate>",
    )),
    # ordinary queries percent-encoded twice.
    ("double_encoded_benign", "log", lambda: pick(
        f"redirect={enc2('/search?q=shoes&page=2')}",
        f"next={enc2('/dashboard/settings')}",
        f"state={enc2(json.dumps({'tab': 'billing', 'page': _r.randint(1, 9)}))}",
        f"GET /login?next={enc2('/reports?from=2025-01-01&to=2025-01-31')} HTTP/1.1",
        f"RelayState={enc2('/app/home?lang=en')}",
    )),
    # base64 JSON that holds no credential: cursors, JWT headers alone, filters.
    ("base64_json_benign", "log", lambda: pick(
        f"next_cursor={json_b64({'id': _r.randint(1, 99999), 'ts': 1735689600})}",
        f"X-Page-State: {json_b64({'page': _r.randint(2, 9), 'per_page': 50, 'sort': 'created_at'})}",
        f"\"filter\": \"{json_b64({'status': 'open', 'assignee': 'alice', 'labels': ['bug', 'p1']})}\"",
        b64u(json.dumps({"alg": "RS256", "kid": rnd(8, LOWER_ALNUM), "typ": "JWT"}).encode()),
        f"X-Cloud-Trace-Context-B64: {json_b64({'trace': rnd(32, HEX), 'span': str(_r.randint(10**15, 10**16))})}",
    )),
    # UUIDs under id keys (tenant, client, subscription, request, idempotency).
    ("uuid_ids", "log", lambda: pick(
        f"tenant_id={uuid()}",
        f"AADSTS700016: Application with identifier '{uuid()}' was not found in the directory 'acme'.",
        f"\"subscriptionId\": \"{uuid()}\"",
        f"X-Request-ID: {uuid()}",
        f"client_id: {uuid()}",
    )),
    # prefixed request, order and event ids.
    ("prefixed_ids", "log", lambda: pick(
        f"req-{uuid()}",
        f"order_id=ord-{uuid()}",
        f"event evt-{uuid()} delivered",
        f"trace-{uuid()}",
        f"job {pick('build', 'deploy')}-{uuid()} finished",
    )),
    # hex object ids: Mongo ObjectIds, image ids, commits.
    ("hex_object_ids", "log", lambda: pick(
        f"ObjectId(\"{_hexid()}\")",
        f"commit {sha(40)}\nAuthor: alice <alice>",
        f"Successfully built {sha(12)}",
        f"build {sha(40)} passed in 4m12s",
        f"\"_id\": \"{_hexid()}\"",
    )),
    # CI annotations, an unexpanded add-mask and one the runner already masked.
    ("ci_annotations", "log", lambda: pick(
        "::add-mask::***",
        "echo \"::add-mask::${{ steps.login.outputs.token }}\"",
        "::notice file=app.py,line=10::Deprecated call",
        f"::set-output name=version::1.{_r.randint(0, 9)}.{_r.randint(0, 30)}",
        "##[group]Run actions/checkout@v4",
    )),
    # other languages' prose about passwords, without one.
    ("prose_other_languages", "log", lambda: pick(
        "Das Passwort muss mindestens 12 Zeichen lang sein.",
        "Le mot de passe est incorrect.",
        "La contraseña es demasiado corta.",
        "密码是必填项",
        "パスワードは8文字以上で入力してください",
    )),
    # content digests in headers and lockfiles.
    ("content_digests", "log", lambda: pick(
        f"integrity sha512-{base64.b64encode(_r.randbytes(64)).decode()}",
        f"golang.org/x/net v0.{_r.randint(10, 30)}.0 h1:{base64.b64encode(_r.randbytes(32)).decode()}",
        f"Content-MD5: {base64.b64encode(hashlib.md5(rnd(20).encode()).digest()).decode()}",
        f"x-goog-hash: crc32c={base64.b64encode(_r.randbytes(4)).decode()}, md5={base64.b64encode(_r.randbytes(16)).decode()}",
        f"Digest: SHA-256={base64.b64encode(_r.randbytes(32)).decode()}",
    )),
    # account tables without hashes: plugins, hosts, flags.
    ("account_tables_benign", "log", lambda: pick(
        "| root | localhost | auth_socket |",
        "| app  | %         | caching_sha2_password |",
        " rolname | rolsuper | rolcanlogin\n---------+----------+-------------\n app     | f        | t",
        "mysql> SELECT user, host, plugin FROM mysql.user;",
        "authentication_string: ",
    )),
    # LDAP entries without userPassword.
    ("ldap_benign", "log", lambda: pick(
        "dn: uid=alice,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: alice",
        "pwdChangedTime: 20250109102231Z",
        "pwdPolicySubentry: cn=default,ou=policies,dc=example,dc=com",
        "sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64) + " alice@laptop",
        "memberOf: cn=admins,ou=groups,dc=example,dc=com",
    )),
    # Windows logon event fields.
    ("windows_logon_fields", "log", lambda: pick(
        "Logon Type:\t\t3",
        "Authentication Package:\tNTLM\nPackage Name (NTLM only):\tNTLM V2\nKey Length:\t\t128",
        "Logon GUID:\t\t{" + uuid() + "}",
        f"Logon ID:\t\t0x{rnd(6, '0123456789ABCDEF')}",
        "Security ID:\t\tS-1-5-21-3623811015-3361044348-30300820-1013",
    )),
    # Redis ACLs with no password or a reset one.
    ("redis_acl_benign", "log", lambda: pick(
        "user default on nopass ~* &* +@all",
        "user readonly off resetpass -@all",
        "ACL WHOAMI",
        "user app on sanitize-payload ~cache:* +get +set",
        "(error) WRONGPASS invalid username-password pair or user is disabled.",
    )),
    # Jenkins credential ids, scopes and descriptions.
    ("jenkins_benign", "log", lambda: pick(
        "<credentialsId>github-token</credentialsId>",
        "<scope>GLOBAL</scope>",
        "<id>deploy-key</id>",
        "<description>Deploy token for the registry</description>",
        "<usernameSecret>false</usernameSecret>",
    )),
    # public keys: SSH, age recipients, WireGuard public keys.
    ("public_keys", "log", lambda: pick(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64) + " ops@laptop",
        "age1" + rnd(58, "023456789acdefghjklmnpqrstuvwxyz"),
        "PublicKey = " + base64.b64encode(_r.randbytes(32)).decode(),
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rnd(80, B64) + " deploy@ci",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + rnd(52, B64) + "\n-----END PUBLIC KEY-----",
    )),
    # login.defs, PAM and broker settings that name hash algorithms and password policy.
    ("hash_settings_benign", "log", lambda: pick(
        "ENCRYPT_METHOD SHA512",
        "SHA_CRYPT_MIN_ROUNDS 5000",
        "password\t[success=1 default=ignore]\tpam_unix.so obscure yescrypt",
        "PASS_MAX_DAYS\t99999",
        "\"hashing_algorithm\": \"rabbit_password_hashing_sha256\"",
    )),
    # masks and placeholders where these formats put a secret.
    ("masks_and_placeholders", "log", lambda: pick(
        "d-i passwd/root-password password <PASSWORD>",
        "| DB_PASSWORD | <set in vault> |",
        "rootpw --plaintext ${ROOT_PASSWORD}",
        "<Pass encoding=\"base64\">********</Pass>",
        "user app on >******** ~app:* +@all",
    )),
]


def atrest() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_10)
    return heldout._records(ATREST_SECRETS, ATREST_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = atrest()
    heldout._write(HERE / "atrest_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "atrest_benign.jsonl.gz", benign_rows)
    print(f"atrest: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
