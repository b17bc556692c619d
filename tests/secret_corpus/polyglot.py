"""A seventh held-out set, by another author: secrets in source code, device configs, wire protocols,
mobile app configs, key encodings, notebooks and CI logs.

    python -m tests.secret_corpus.polyglot   # rewrites polyglot_*.jsonl.gz here

Written before reading the scrubber's patterns, from what the six earlier sets have least of:
hardcoded credentials in source excerpts and stack-trace source lines in many languages (JS/TS,
Python, Java, Kotlin, Go, PHP, Ruby, C#, Rust, Swift, Dart, Elixir, Scala, Lua, Perl, R,
PowerShell, Bash heredocs, Terraform/HCL, C/C++, Objective-C, Groovy); network device and appliance
configs (Cisco IOS/NX-OS including type-7 and key-string lines, Juniper ``set`` and ``$9$``,
MikroTik, FortiGate, Palo Alto, F5, net-snmp and snmp CLI communities, FreeRADIUS and tac_plus
keys); protocol transcripts (SMTP AUTH PLAIN/LOGIN, IMAP, POP3, FTP, Redis, MongoDB shell, LDAP
bind, MQTT, SIP peers, NATS, XMPP SASL, SMB, PostgreSQL/MySQL statements and wire logs, expect
scripts); mobile and app configs (google-services.json, GoogleService-Info.plist, AndroidManifest
meta-data and strings.xml, Gradle signing configs, Expo/EAS, Firebase, xcconfig, fastlane); key
material in many encodings (JWK private members, PuTTY PPK, OpenSSH/PKCS#8/PKCS#1 bodies split
across lines, prefixed by log stamps or cut short, PKCS#12 base64, age and WireGuard private keys,
Kerberos keys from ``klist -K`` and base64 keytabs, ``openssl -text`` private hex); notebooks and
REPL echoes (Jupyter JSON, IPython with ANSI colours, Node/R/irb REPL) and CI logs (GitHub Actions,
GitLab CI, Jenkins, CircleCI, Azure Pipelines). Benign look-alikes from the same contexts: public
JWKs, public keys, fingerprints, ``openssl x509 -text`` hex, hashes named as hashes, env lookups
and placeholders in code, masked CI output, settings under secret-sounding keys, device configs
without secrets, protocol transcripts without credentials, mobile ids, notebook image payloads.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed, human
passwords marked ``Fake``), format-valid where a format has structure (Cisco type 7, WireGuard
clamping, age bech32, SMTP PLAIN); 68 secret formats x 4 and 31 benign categories x 5.
``tests/test_scrub_polyglot.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: polyglot() seeds it


def tok(lo: int = 24, hi: int = 44) -> str:
    return rnd(_r.randint(lo, hi), ALNUM)


def secretish() -> str:
    """A hardcoded value as people write them: a human password or a random token."""
    return pick(fpw(), tok(), rnd(40, HEX), rnd(32, ALNUM + "_-"))


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def lines(body: str, width: int = 64, sep: str = "\n") -> str:
    return sep.join(body[i : i + width] for i in range(0, len(body), width))


# --- format-valid key material ------------------------------------------------------------------

_XLAT = "dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"


def cisco7() -> str:
    """A Cisco type-7 string (reversible: it is the password) of a fake password."""
    plain, seed = fpw()[:14], _r.randint(0, 15)
    return f"{seed:02d}" + "".join(f"{ord(c) ^ ord(_XLAT[(seed + i) % 53]):02X}" for i, c in enumerate(plain))


def juniper9() -> str:
    return "$9$" + rnd(_r.randint(20, 40), "QzF3n6/9CAtpu0OB1IREhcSyrleKvMW8LXxa7Nsw4UdYVGi2HJjTZDfgmPqok.5")


def wg_key() -> str:
    raw = bytearray(_r.randbytes(32))
    raw[0] &= 248
    raw[31] = (raw[31] & 127) | 64
    return base64.b64encode(bytes(raw)).decode()


_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32(hrp: str, data: bytes) -> str:
    acc, bits, five = 0, 0, []
    for byte in data:
        acc, bits = (acc << 8) | byte, bits + 8
        while bits >= 5:
            bits -= 5
            five.append((acc >> bits) & 31)
    if bits:
        five.append((acc << (5 - bits)) & 31)
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + five + [0] * 6:
        top, chk = chk >> 25, ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    chk ^= 1
    return hrp + "1" + "".join(_BECH[d] for d in five + [(chk >> 5 * (5 - i)) & 31 for i in range(6)])


def age_secret() -> str:
    return _bech32("age-secret-key-", _r.randbytes(32)).upper()


def age_public() -> str:
    return _bech32("age", _r.randbytes(32))


def smtp_plain() -> str:
    user = pick("alerts@example.com", "noreply", "mailer@acme.test")
    return base64.b64encode(f"\0{user}\0{fpw()}".encode()).decode()


def pkcs8_body() -> str:
    return "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ" + rnd(_r.randint(300, 400), B64)


def pkcs1_body() -> str:
    return "MIIEpAIBAAKCAQEA" + rnd(_r.randint(300, 400), B64)


def openssh_body() -> str:
    return "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD" + rnd(_r.randint(200, 300), B64)


def ec_body() -> str:
    return "MHcCAQEEI" + rnd(110, B64)


def pkcs12_b64() -> str:
    n = _r.randint(1200, 1600)
    der = bytes([0x30, 0x82, n >> 8, n & 255, 0x02, 0x01, 0x03, 0x30, 0x82]) + _r.randbytes(n - 5)
    return base64.b64encode(der).decode()


def keytab_b64() -> str:
    return base64.b64encode(b"\x05\x02" + _r.randbytes(_r.randint(60, 90))).decode()


def hexcolon(n: int) -> str:
    return _r.randbytes(n).hex(":")


def jwk_private() -> tuple[str, str]:
    kind = pick("RSA", "EC", "OKP", "oct")
    kid = f"{pick('sig', 'enc', 'k')}-{_r.randint(2023, 2026)}-{_r.randint(1, 12):02d}"
    if kind == "RSA":
        d = b64u(_r.randbytes(256))
        text = json.dumps({"kty": "RSA", "kid": kid, "n": b64u(_r.randbytes(256)), "e": "AQAB", "d": d, "p": b64u(_r.randbytes(128)), "q": b64u(_r.randbytes(128)), "dp": b64u(_r.randbytes(128)), "dq": b64u(_r.randbytes(128)), "qi": b64u(_r.randbytes(128))})
    elif kind == "EC":
        d = b64u(_r.randbytes(32))
        text = json.dumps({"kty": "EC", "crv": "P-256", "kid": kid, "x": b64u(_r.randbytes(32)), "y": b64u(_r.randbytes(32)), "d": d})
    elif kind == "OKP":
        d = b64u(_r.randbytes(32))
        text = json.dumps({"crv": "Ed25519", "d": d, "kty": "OKP", "x": b64u(_r.randbytes(32))})
    else:
        d = b64u(_r.randbytes(32))
        text = json.dumps({"kty": "oct", "kid": kid, "alg": "HS256", "k": d})
    return d, pick(
        f"jwcrypto.common.JWKeyNotFound: no key matched; loaded {text}",
        f"{{\"keys\": [{text}]}}",
        f"ERROR jose: cannot sign with key {text}: unsupported alg",
        f"JWK_PRIVATE={text}",
    )


def ppk() -> tuple[str, str]:
    public = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64)
    private = pick("AAAAI" + rnd(43, B64), lines("AAABAQ" + rnd(250, B64)))
    text = (
        f"PuTTY-User-Key-File-{pick('2', '3')}: {pick('ssh-ed25519', 'ssh-rsa')}\nEncryption: none\nComment: {pick('deploy@ci', 'rsa-key-20250301', 'eddsa-key-20240611')}\n"
        f"Public-Lines: 2\n{public[:64]}\n{public[64:]}\nPrivate-Lines: {private.count(chr(10)) + 1}\n{private}\nPrivate-MAC: {sha(64)}"
    )
    return private, pick(text, f"FATAL: unable to use key file \"deploy.ppk\" (unsupported)\n{text}")


def pem_variants() -> tuple[str, str]:
    label, body = pick(("PRIVATE KEY", pkcs8_body()), ("RSA PRIVATE KEY", pkcs1_body()), ("OPENSSH PRIVATE KEY", openssh_body()), ("EC PRIVATE KEY", ec_body()))
    style = _r.randint(0, 4)
    if style == 0:  # every line behind a log stamp
        stamp = f"2025-0{_r.randint(1, 9)}-1{_r.randint(0, 9)}T10:0{_r.randint(0, 9)}:00Z app[web.1]: "
        parts = [body[i : i + 64] for i in range(0, len(body), 64)]
        secret = parts[1]
        text = "\n".join(stamp + p for p in [f"-----BEGIN {label}-----", *parts, f"-----END {label}-----"])
        return secret, text
    if style == 1:  # CRLF lines
        secret = lines(body, 64, "\r\n")
        return secret, f"-----BEGIN {label}-----\r\n{secret}\r\n-----END {label}-----\r\n"
    if style == 2:  # cut short by a log limit
        secret = lines(body[:200], 64)
        return secret, f"ValueError: Could not deserialize key data: -----BEGIN {label}-----\n{secret}... (truncated, 1704 bytes total)"
    if style == 3:  # YAML block scalar
        secret = lines(body, 64, "\n    ")
        return secret, f"tls:\n  {pick('key', 'private_key', 'sshKey')}: |\n    -----BEGIN {label}-----\n    {secret}\n    -----END {label}-----"
    secret = lines(body, 64)  # body only, headers stripped by the code that prints it
    return secret, f"{pick('PRIVATE_KEY_BODY', 'signing_key', 'deploy_key_b64')} = \"\"\"\n{secret}\n\"\"\""


def encrypted_pem() -> tuple[str, str]:
    body = lines(pkcs1_body(), 64)
    return body, pick(
        f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{rnd(32, HEX).upper()}\n\n{body}\n-----END RSA PRIVATE KEY-----",
        f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{body}\n-----END ENCRYPTED PRIVATE KEY-----",
    )


def smtp_login() -> tuple[str, str]:
    secret = base64.b64encode(fpw().encode()).decode()
    user = base64.b64encode(pick("alerts@example.com", "ops").encode()).decode()
    return secret, pick(
        f"send: 'AUTH LOGIN\\r\\n'\nreply: b'334 VXNlcm5hbWU6\\r\\n'\nsend: '{user}\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: '{secret}\\r\\n'\nreply: b'535 5.7.8 Authentication credentials invalid\\r\\n'",
        f"C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: {user}\nS: 334 UGFzc3dvcmQ6\nC: {secret}\nS: 535 5.7.8 Error: authentication failed",
        f"C: AUTH LOGIN {user}\nS: 334 UGFzc3dvcmQ6\nC: {secret}\nS: 235 2.7.0 Authentication successful",
    )


def klist_keys() -> tuple[str, str]:
    key = rnd(64, HEX)
    line = f"   {_r.randint(1, 9)} 03/0{_r.randint(1, 9)}/2025 10:1{_r.randint(0, 9)}:00 HTTP/web{_r.randint(1, 9)}.example.com@EXAMPLE.COM (aes256-cts-hmac-sha1-96)  (0x{key})"
    return key, f"Keytab name: FILE:/etc/krb5.keytab\nKVNO Timestamp         Principal\n---- ----------------- ---------------------------------------------------------\n{line}"


def openssl_private_text() -> tuple[str, str]:
    key = hexcolon(15) + ":\n    " + hexcolon(15) + ":\n    " + hexcolon(2)
    pub = hexcolon(15) + ":\n    " + hexcolon(15)
    kind = pick("ED25519", "EC")
    if kind == "EC":
        return key, f"Private-Key: (256 bit)\npriv:\n    {key}\npub:\n    04:{pub}\nASN1 OID: prime256v1\nNIST CURVE: P-256"
    return key, f"ED25519 Private-Key:\npriv:\n    {key}\npub:\n    {pub}"


def jupyter_ansi() -> tuple[str, str]:
    s = tok(32, 48)
    var = pick("api_key", "token", "secret", "password")
    text = (
        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
        "\x1b[0;31mAuthenticationError\x1b[0m                       Traceback (most recent call last)\n"
        f"Cell \x1b[0;32mIn[{_r.randint(2, 40)}], line 3\x1b[0m\n"
        f"\x1b[1;32m      1\x1b[0m \x1b[38;5;28;01mimport\x1b[39;00m \x1b[38;5;21;01mopenai\x1b[39;00m\n"
        f"\x1b[0;32m----> 3\x1b[0m client \x1b[38;5;241m=\x1b[39m openai\x1b[38;5;241m.\x1b[39mOpenAI({var}\x1b[38;5;241m=\x1b[39m\x1b[38;5;124m\"\x1b[39m\x1b[38;5;124m{s}\x1b[39m\x1b[38;5;124m\"\x1b[39m)"
    )
    return s, text


def notebook_json() -> tuple[str, str]:
    s = pick(tok(32, 48), fpw())
    var = pick("API_KEY", "token", "db_password", "HF_TOKEN", "secret")
    cell = {"cell_type": "code", "execution_count": _r.randint(1, 30), "id": rnd(8, HEX), "metadata": {}, "outputs": [], "source": ["import os\n", f"{var} = \"{s}\"\n", f"client = Client({var.lower()}={var})"]}
    return s, f"nbformat.validator.NotebookValidationError: Additional properties are not allowed ('outputs' was unexpected)\n{json.dumps(cell)}"


# --- secrets ----------------------------------------------------------------------------------

def _code(*templates: Callable[[str], str]) -> Maker:
    return one(secretish, *templates)


POLYGLOT_SECRETS: list[tuple[str, str, Maker]] = [
    # -- hardcoded in source, and source lines in stack traces ---------------------------------
    ("js_ts_const", "exception", _code(
        lambda s: f"const {pick('apiKey', 'stripeSecret', 'dbPassword', 'authToken', 'clientSecret')} = \"{s}\";",
        lambda s: f"TypeError: Cannot read properties of undefined (reading 'id')\n    at Object.<anonymous> (/app/src/config.ts:{_r.randint(5, 90)}:17)\n  {_r.randint(5, 90)} | export const {pick('API_TOKEN', 'SECRET_KEY', 'SENDGRID_KEY')} = '{s}';\n     |                 ^",
        lambda s: f"const password = process.env.DB_PASSWORD ?? `{s}`;",
        lambda s: f"  headers: {{ 'x-api-key': '{s}' }},",
    )),
    ("python_source", "exception", _code(
        lambda s: f'Traceback (most recent call last):\n  File "/srv/app/settings.py", line {_r.randint(5, 90)}, in <module>\n    {pick("SECRET_KEY", "API_TOKEN", "DB_PASSWORD")} = "{s}"\nNameError: name \'env\' is not defined',
        lambda s: f'  File "/srv/app/clients.py", line {_r.randint(5, 90)}, in make_client\n    return Client(api_key="{s}", timeout=30)',
        lambda s: f"password = os.getenv(\"DB_PASSWORD\", \"{s}\")",
    )),
    ("java_source", "exception", _code(
        lambda s: f"    private static final String {pick('DB_PASSWORD', 'API_KEY', 'CLIENT_SECRET')} = \"{s}\";",
        lambda s: f"props.setProperty(\"{pick('password', 'mail.smtp.password', 'sasl.password')}\", \"{s}\");",
        lambda s: f"DataSourceBuilder.create().url(url).username(\"app\").password(\"{s}\").build();",
        lambda s: f"String apiToken = \"{s}\"; // TODO move to vault",
    )),
    ("kotlin_source", "exception", _code(
        lambda s: f"val password = \"{s}\"",
        lambda s: f"    const val {pick('API_KEY', 'STRIPE_SECRET', 'AUTH_TOKEN')} = \"{s}\"",
        lambda s: f"private val clientSecret: String = \"{s}\"",
    )),
    ("go_source", "exception", _code(
        lambda s: f"\tpassword := \"{s}\"",
        lambda s: f"const apiToken = \"{s}\"",
        lambda s: f"goroutine 1 [running]:\nmain.main()\n\t/src/cmd/app/main.go:{_r.randint(10, 99)} +0x1a5\n// main.go:{_r.randint(10, 99)}:\tcfg := Config{{User: \"svc\", Password: \"{s}\"}}",
        lambda s: f"os.Setenv(\"{pick('AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'DB_PASS')}\", \"{s}\")",
    )),
    ("php_source", "exception", _code(
        lambda s: f"$password = '{s}';",
        lambda s: f"define('{pick('DB_PASSWORD', 'AUTH_KEY', 'SECURE_AUTH_SALT', 'API_SECRET')}', '{s}');",
        lambda s: f"        'secret' => '{s}',",
        lambda s: f"$config['api_key'] = \"{s}\";",
    )),
    ("ruby_source", "exception", _code(
        lambda s: f"  config.api_key = \"{s}\"",
        lambda s: f"ActiveRecord::Base.establish_connection(adapter: 'postgresql', username: 'app', password: '{s}')",
        lambda s: f"SECRET_TOKEN = ENV.fetch(\"SECRET_TOKEN\", \"{s}\")",
        lambda s: f"  :password => '{s}',",
    )),
    ("csharp_source", "exception", _code(
        lambda s: f"private const string ApiKey = \"{s}\";",
        lambda s: f"var credential = new NetworkCredential(\"svc-backup\", \"{s}\");",
        lambda s: f"   at Acme.Billing.Startup..ctor() in C:\\src\\Billing\\Startup.cs:line {_r.randint(10, 99)}\n// Startup.cs({_r.randint(10, 99)}): options.ClientSecret = \"{s}\";",
    )),
    ("rust_source", "exception", _code(
        lambda s: f"let api_key = \"{s}\";",
        lambda s: f"const SECRET_TOKEN: &str = \"{s}\";",
        lambda s: f"    let resp = client.get(url).bearer_auth(\"{s}\").send().await?;",
    )),
    ("swift_source", "exception", _code(
        lambda s: f"let apiKey = \"{s}\"",
        lambda s: f"    static let clientSecret = \"{s}\"",
        lambda s: f"private let password: String = \"{s}\"",
    )),
    ("dart_source", "exception", _code(
        lambda s: f"const String apiKey = '{s}';",
        lambda s: f"  final apiToken = '{s}';",
        lambda s: f"  static const _secret = \"{s}\";",
    )),
    ("elixir_source", "exception", _code(
        lambda s: f"config :shop, Shop.Repo,\n  username: \"postgres\",\n  password: \"{s}\",\n  hostname: \"localhost\"",
        lambda s: f"config :shop, ShopWeb.Endpoint, secret_key_base: \"{s}\"",
        lambda s: f"  @api_token \"{s}\"",
    )),
    ("scala_source", "exception", _code(
        lambda s: f"val apiKey = \"{s}\"",
        lambda s: f"  private val dbPassword: String = \"{s}\"",
        lambda s: f"akka.persistence.jdbc.password = \"{s}\"",
    )),
    ("lua_source", "exception", _code(
        lambda s: f"local api_key = \"{s}\"",
        lambda s: f"local ok, err = red:auth(\"{s}\")",
        lambda s: f"config.password = '{s}'",
    )),
    ("perl_source", "exception", _code(
        lambda s: f"my $password = '{s}';",
        lambda s: f"my $dbh = DBI->connect($dsn, \"app\", \"{s}\", {{ RaiseError => 1 }});",
        lambda s: f"my %cfg = (api_key => '{s}', timeout => 30);",
    )),
    ("r_source", "exception", _code(
        lambda s: f"api_key <- \"{s}\"",
        lambda s: f"Sys.setenv(OPENAI_API_KEY = \"{s}\")",
        lambda s: f"con <- dbConnect(RPostgres::Postgres(), dbname = \"analytics\", user = \"ro\", password = \"{s}\")",
    )),
    ("powershell_source", "exception", _code(
        lambda s: f"$apiKey = \"{s}\"",
        lambda s: f"$env:{pick('API_TOKEN', 'ARM_CLIENT_SECRET', 'DB_PASSWORD')} = '{s}'",
        lambda s: f"$securePw = ConvertTo-SecureString -String \"{s}\" -AsPlainText -Force",
        lambda s: f"Invoke-RestMethod -Uri $url -Headers @{{ 'X-Api-Key' = '{s}' }}",
    )),
    ("bash_heredoc", "log", _code(
        lambda s: f"+ cat <<EOF > .env\nDB_HOST=db.internal\n{pick('DB_PASSWORD', 'API_KEY', 'REDIS_PASS')}={s}\nEOF",
        lambda s: f"cat > ~/.pgpass <<'EOF'\ndb.internal:5432:app:app:{s}\nEOF",
        lambda s: f"mysql -u root <<SQL\nALTER USER 'app'@'%' IDENTIFIED BY '{s}';\nSQL",
    )),
    ("terraform_hcl", "log", _code(
        lambda s: f"locals {{\n  db_password = \"{s}\"\n  region      = \"eu-west-1\"\n}}",
        lambda s: f"variable \"{pick('api_key', 'admin_password', 'datadog_app_key')}\" {{\n  type    = string\n  default = \"{s}\"\n}}",
        lambda s: f"provider \"grafana\" {{\n  url  = \"https://grafana.example.com\"\n  auth = \"{s}\"\n}}",
        lambda s: f"  token = \"{s}\"",
    )),
    ("c_cpp_source", "exception", _code(
        lambda s: f"#define API_KEY \"{s}\"",
        lambda s: f"static const char *password = \"{s}\";",
        lambda s: f"    std::string token = \"{s}\";",
    )),
    ("objc_groovy_source", "exception", _code(
        lambda s: f"NSString *const kAPIKey = @\"{s}\";",
        lambda s: f"def token = '{s}'",
        lambda s: f"    environment {{\n        DEPLOY_PASSWORD = '{s}'\n    }}",
    )),
    # -- network devices and appliances ----------------------------------------------------------
    ("cisco_ios_plain", "log", one(
        fpw,
        lambda s: f"!\nenable secret 0 {s}\n!",
        lambda s: f"username admin privilege 15 password 0 {s}",
        lambda s: f"enable password {s}",
        lambda s: f"crypto isakmp key {s} address 0.0.0.0 0.0.0.0",
    )),
    ("cisco_type7", "log", one(
        cisco7,
        lambda s: f"username netops privilege 15 password 7 {s}",
        lambda s: f"line vty 0 4\n password 7 {s}\n login",
        lambda s: f"tacacs server ISE-1\n address ipv4 10.10.1.5\n key 7 {s}",
    )),
    ("cisco_keys_and_communities", "log", one(
        lambda: pick(fpw(), tok(12, 24)),
        lambda s: f"snmp-server community {s} RO 10",
        lambda s: f"tacacs-server host 10.1.1.5 key 0 {s}",
        lambda s: f"radius server ISE\n address ipv4 10.10.1.6 auth-port 1812 acct-port 1813\n key {s}",
        lambda s: f"key chain OSPF-KEYS\n key 1\n  key-string {s}",
        lambda s: f" ip ospf message-digest-key 1 md5 {s}",
        lambda s: f" neighbor 192.0.2.1 password {s}",
        lambda s: f"snmp-server user monitor NMS v3 auth sha {s} priv aes 128 {s}",
    )),
    ("nxos_wlc_psk", "log", one(
        lambda: pick(fpw(), tok(16, 32)),
        lambda s: f"feature tacacs+\ntacacs-server host 10.0.0.5 key 0 \"{s}\"",
        lambda s: f" wpa-psk ascii 0 {s}",
        lambda s: f" pre-shared-key local {s}\n pre-shared-key remote {s}",
        lambda s: f" standby 1 authentication md5 key-string {s}",
    )),
    ("juniper_config", "log", one(
        lambda: pick(juniper9(), fpw()),
        lambda s: f"set system radius-server 10.0.0.5 secret \"{s}\"",
        lambda s: f"set security ike policy IKE-POL pre-shared-key ascii-text \"{s}\"",
        lambda s: f"set protocols bgp group EXT neighbor 192.0.2.1 authentication-key \"{s}\"",
        lambda s: f"radius-server {{\n    10.0.0.5 {{\n        secret \"{s}\"; ## SECRET-DATA\n    }}\n}}",
    )),
    ("juniper_snmp_community", "log", one(
        lambda: tok(12, 20),
        lambda s: f"set snmp community {s} authorization read-only",
        lambda s: f"snmp {{\n    community {s} {{\n        authorization read-only;\n    }}\n}}",
    )),
    ("mikrotik", "log", one(
        lambda: pick(fpw(), tok(16, 32)),
        lambda s: f"/user add name=netops group=full password={s}",
        lambda s: f"/interface wireless security-profiles set [ find default=yes ] authentication-types=wpa2-psk mode=dynamic-keys wpa2-pre-shared-key={s}",
        lambda s: f"/ppp secret add name=vpn-user password=\"{s}\" profile=default-encryption service=l2tp",
        lambda s: f"/ip ipsec peer add address=203.0.113.7/32 secret={s} exchange-mode=ike2",
        lambda s: f"/radius add address=10.0.0.5 secret={s} service=login",
    )),
    ("fortigate", "log", one(
        lambda: pick(fpw(), "ENC " + base64.b64encode(_r.randbytes(_r.randint(60, 90))).decode()),
        lambda s: f"config user local\n    edit \"vpnuser\"\n        set type password\n        set passwd {s}\n    next\nend",
        lambda s: f"config vpn ipsec phase1-interface\n    edit \"to-hq\"\n        set psksecret {s}\n    next\nend",
        lambda s: f"config user radius\n    edit \"NPS\"\n        set server \"10.0.0.5\"\n        set secret {s}\n    next\nend",
    )),
    ("paloalto", "log", one(
        lambda: pick(fpw(), "LUFRPT1" + rnd(60, B64) + "=="),
        lambda s: f"<response status=\"success\"><result><key>{s}</key></result></response>",
        lambda s: f"set shared server-profile radius NPS server nps1 secret {s}",
        lambda s: f"set network ike gateway GW-HQ authentication pre-shared-key key {s}",
    )),
    ("f5_bigip", "log", one(
        lambda: pick(fpw(), "$M$" + _r.choice(ALNUM) + _r.choice(ALNUM) + "$" + base64.b64encode(_r.randbytes(24)).decode()),
        lambda s: f"tmsh create auth radius-server rs1 server 10.0.0.5 secret {s}",
        lambda s: f"ltm profile client-ssl /Common/app-ssl {{\n    cert-key-chain {{ app {{ cert app.crt key app.key passphrase {s} }} }}\n}}",
        lambda s: f"sys snmp {{\n    communities {{\n        /Common/mon {{\n            community-name {s}\n            source 10.0.0.0/8\n        }}\n    }}\n}}",
    )),
    ("snmp_cli_and_conf", "log", one(
        lambda: pick(tok(10, 20), fpw()),
        lambda s: f"$ snmpwalk -v2c -c {s} 10.0.0.1 system\nTimeout: No Response from 10.0.0.1",
        lambda s: f"snmpget -v3 -l authPriv -u monitor -a SHA -A {s} -x AES -X {s} 10.0.0.1 sysUpTime.0",
        lambda s: f"rocommunity {s} 10.0.0.0/8",
        lambda s: f"createUser monitor SHA \"{s}\" AES \"{s}\"",
    )),
    ("radius_tacacs_servers", "log", one(
        lambda: pick(tok(16, 32), fpw()),
        lambda s: f"client core-sw1 {{\n\tipaddr = 10.0.0.1\n\tsecret = {s}\n\tshortname = core-sw1\n}}",
        lambda s: f"key = \"{s}\"\nuser = netops {{\n    default service = permit\n}}",
        lambda s: f"user = admin {{\n    login = cleartext \"{s}\"\n}}",
    )),
    # -- protocol transcripts -------------------------------------------------------------------
    ("smtp_auth_plain", "log", one(
        smtp_plain,
        lambda s: f"send: 'ehlo mail.example.com\\r\\n'\nsend: 'AUTH PLAIN {s}\\r\\n'\nreply: b'535 5.7.8 Username and Password not accepted.\\r\\n'",
        lambda s: f"C: AUTH PLAIN {s}\nS: 235 2.7.0 Authentication successful",
        lambda s: f"2025-03-01 10:00:01 [DEBUG] nodemailer: C: AUTH PLAIN {s}",
    )),
    ("smtp_auth_login", "log", smtp_login),
    ("imap_pop3_ftp", "log", one(
        fpw,
        lambda s: f"C: a001 LOGIN alerts@example.com \"{s}\"\nS: a001 NO [AUTHENTICATIONFAILED] Authentication failed.",
        lambda s: f"imaplib: 14:02.11 > b'DLKP1 LOGIN ops \"{s}\"'",
        lambda s: f"+OK Dovecot ready.\nUSER alice\n+OK\nPASS {s}\n-ERR [AUTH] Authentication failed.",
        lambda s: f"> USER deploy\n< 331 Please specify the password.\n> PASS {s}\n< 530 Login incorrect.",
    )),
    ("redis_auth", "log", one(
        lambda: pick(fpw(), tok(32, 64)),
        lambda s: f"127.0.0.1:6379> AUTH {s}\n(error) WRONGPASS invalid username-password pair or user is disabled.",
        lambda s: f"127.0.0.1:6379> AUTH default {s}\nOK",
        lambda s: f"$ redis-cli -h cache.internal -a {s} ping\nWarning: Using a password with '-a' or '-u' option on the command line interface may not be safe.",
        lambda s: f"requirepass {s}\nmasterauth {s}",
    )),
    ("mongo_shell", "log", one(
        fpw,
        lambda s: f"test> db.createUser({{ user: \"app\", pwd: \"{s}\", roles: [ {{ role: \"readWrite\", db: \"shop\" }} ] }})\nMongoServerError: User \"app@admin\" already exists",
        lambda s: f"admin> db.updateUser(\"reporting\", {{ pwd: \"{s}\" }})",
        lambda s: f"$ mongosh --host mongo.internal --username root --password {s} --authenticationDatabase admin",
    )),
    ("ldap_bind", "log", one(
        fpw,
        lambda s: f"$ ldapsearch -x -H ldap://ldap.internal -D \"cn=admin,dc=example,dc=org\" -w {s} -b \"dc=example,dc=org\"\nldap_bind: Invalid credentials (49)",
        lambda s: f"bindpw {s}",
        lambda s: f"olcRootPW: {s}",
        lambda s: f"conn.simple_bind_s(\"cn=svc-sync,ou=svc,dc=example,dc=org\", \"{s}\")",
    )),
    ("mqtt_connect", "log", one(
        lambda: pick(fpw(), tok(20, 32)),
        lambda s: f"$ mosquitto_pub -h broker.internal -u sensor-12 -P {s} -t telemetry/temp -m 21.5\nConnection error: Connection Refused: not authorised.",
        lambda s: f"client.username_pw_set(\"sensor-12\", \"{s}\")",
        lambda s: f"mqtt.connect('mqtts://broker.internal:8883', {{ username: 'sensor-12', password: '{s}' }})",
    )),
    ("sip_voip", "log", one(
        lambda: pick(fpw(), tok(12, 24)),
        lambda s: f"[1001]\ntype=friend\nhost=dynamic\nsecret={s}\ncontext=internal",
        lambda s: f"register => 1001:{s}@sip.provider.example/1001",
        lambda s: f"[1001-auth]\ntype=auth\nauth_type=userpass\nusername=1001\npassword={s}",
    )),
    ("other_protocols", "log", one(
        lambda: pick(fpw(), tok(20, 32)),
        lambda s: f"[TRC] 10.0.0.7:51234 - cid:5 - <<- [CONNECT {{\"verbose\":false,\"pedantic\":false,\"user\":\"app\",\"pass\":\"{s}\",\"name\":\"worker\"}}]",
        lambda s: f"$ smbclient //fs01/backup -U svc-backup%{s} -c 'ls'\nsession setup failed: NT_STATUS_LOGON_FAILURE",
        lambda s: f"$ rabbitmqctl add_user worker {s}\nAdding user \"worker\" ...",
        lambda s: f"expect \"Password:\"\nsend \"{s}\\r\"",
    )),
    ("xmpp_sasl", "log", one(
        smtp_plain,
        lambda s: f"SEND: <auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>{s}</auth>\nRECV: <failure xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><not-authorized/></failure>",
        lambda s: f"C: A01 AUTHENTICATE PLAIN\nS: +\nC: {s}\nS: A01 NO [AUTHENTICATIONFAILED] Authentication failed.",
    )),
    ("sql_wire_logs", "log", one(
        fpw,
        lambda s: f"2025-03-01T10:00:00.123Z\t   14 Query\tSET PASSWORD FOR 'app'@'%' = '{s}'",
        lambda s: f"mysql> ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{s}';",
        lambda s: f"F PasswordMessage password=\"{s}\"\nB ErrorResponse S=FATAL C=28P01 M=password authentication failed for user \"app\"",
        lambda s: f"pgbouncer userlist.txt: \"app\" \"{s}\"",
    )),
    # -- mobile and app configs -----------------------------------------------------------------
    ("google_services_json", "json", one(
        lambda: "AIza" + rnd(35, ALNUM + "-_"),
        lambda s: f'{{"client": [{{"client_info": {{"mobilesdk_app_id": "1:{_r.randint(10**11, 10**12)}:android:{rnd(16, HEX)}"}}, "api_key": [{{"current_key": "{s}"}}]}}]}}',
        lambda s: f'"api_key": [\n        {{\n          "current_key": "{s}"\n        }}\n      ],',
    )),
    ("ios_plist", "log", one(
        lambda: pick("AIza" + rnd(35, ALNUM + "-_"), f"appl_{rnd(27, ALNUM)}", tok(32, 40)),
        lambda s: f"\t<key>API_KEY</key>\n\t<string>{s}</string>\n\t<key>GCM_SENDER_ID</key>\n\t<string>{_r.randint(10**11, 10**12)}</string>",
        lambda s: f"<key>{pick('RevenueCatAPIKey', 'SegmentWriteKey', 'AlgoliaAdminKey', 'ClientSecret')}</key>\n<string>{s}</string>",
        lambda s: f"<dict><key>apiSecret</key><string>{s}</string></dict>",
    )),
    ("android_manifest_strings", "log", one(
        lambda: pick("AIza" + rnd(35, ALNUM + "-_"), rnd(32, HEX), f"key_live_{rnd(32, ALNUM)}"),
        lambda s: f"<meta-data\n    android:name=\"com.google.android.geo.API_KEY\"\n    android:value=\"{s}\" />",
        lambda s: f"<meta-data android:name=\"{pick('com.facebook.sdk.ClientToken', 'io.branch.sdk.BranchKey', 'com.acme.API_SECRET')}\" android:value=\"{s}\"/>",
        lambda s: f"<string name=\"{pick('google_maps_key', 'api_secret', 'stripe_secret_key')}\" translatable=\"false\">{s}</string>",
    )),
    ("gradle_signing", "log", one(
        fpw,
        lambda s: f"signingConfigs {{\n    release {{\n        storeFile file(\"release.jks\")\n        storePassword \"{s}\"\n        keyAlias \"upload\"\n        keyPassword \"{s}\"\n    }}\n}}",
        lambda s: f"RELEASE_STORE_PASSWORD={s}\nRELEASE_KEY_ALIAS=upload",
        lambda s: f"signing.password={s}\nsigning.keyId=0A1B2C3D",
    )),
    ("expo_eas_firebase", "log", one(
        lambda: pick(f"1//0{rnd(100, B64URL)}", rnd(40, ALNUM + "_-"), f"sntrys_{rnd(90, B64)}"),
        lambda s: f"✔  Success! Use this token to login on a CI server:\n\n{s}\n\nExample: firebase deploy --token \"$FIREBASE_TOKEN\"",
        lambda s: f'{{"build": {{"production": {{"env": {{"SENTRY_AUTH_TOKEN": "{s}", "APP_ENV": "production"}}}}}}}}',
        lambda s: f"EXPO_TOKEN={s} eas build --platform ios --non-interactive",
        lambda s: f"$ eas secret:create --scope project --name API_SECRET --value {s} --type string",
    )),
    ("firebase_web_fcm", "log", one(
        lambda: pick("AIza" + rnd(35, ALNUM + "-_"), f"AAAA{rnd(7, ALNUM)}:APA91b{rnd(134, B64URL)}"),
        lambda s: f"const firebaseConfig = {{\n  apiKey: \"{s}\",\n  authDomain: \"acme-prod.firebaseapp.com\",\n  projectId: \"acme-prod\"\n}};",
        lambda s: f"requests.post(FCM_URL, headers={{\"Authorization\": \"key={s}\"}}, json=payload)",
        lambda s: f"FCM_SERVER_KEY={s}",
    )),
    ("xcconfig_fastlane_dartdefine", "log", one(
        lambda: pick(fpw(), tok(24, 40)),
        lambda s: f"// Secrets.xcconfig\nAPI_SECRET = {s}\nBASE_URL = https:/$()/api.example.com",
        lambda s: f"$ flutter build apk --release --dart-define=API_KEY={s} --dart-define=ENV=prod",
        lambda s: f"[13:02:11]: $ MATCH_PASSWORD={s} bundle exec fastlane match appstore --readonly",
        lambda s: f"FASTLANE_PASSWORD={s}",
    )),
    # -- key material -------------------------------------------------------------------------
    ("jwk_private_member", "json", jwk_private),
    ("putty_ppk", "log", ppk),
    ("pem_split_and_wrapped", "log", pem_variants),
    ("pem_encrypted", "log", encrypted_pem),
    ("pkcs12_base64", "json", one(
        pkcs12_b64,
        lambda s: f'{{"name": "api-tls", "pfx": "{s}", "password": null}}',
        lambda s: f"keystore.p12: {s}",
        lambda s: f"CERTIFICATE_P12_BASE64={s}",
    )),
    ("age_wireguard_keys", "log", one(
        lambda: pick(age_secret(), wg_key()),
        lambda s: f"# created: 2025-03-01T10:00:00Z\n# public key: {age_public()}\n{s}" if s.startswith("AGE") else f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {s}\nListenPort = 51820",
        lambda s: f"SOPS_AGE_KEY={s}" if s.startswith("AGE") else f"$ wg set wg0 private-key <(echo {s})",
        lambda s: f"age: error: failed to parse identity: {s}" if s.startswith("AGE") else f"PresharedKey = {s}",
    )),
    ("kerberos_keytab", "log", klist_keys),
    ("keytab_base64", "log", one(
        keytab_b64,
        lambda s: f"data:\n  krb5.keytab: {s}",
        lambda s: f"KRB5_KEYTAB_B64={s}",
    )),
    ("openssl_private_hex", "log", openssl_private_text),
    # -- notebooks, REPLs, CI logs --------------------------------------------------------------
    ("jupyter_ansi_traceback", "exception", jupyter_ansi),
    ("notebook_cell_json", "json", notebook_json),
    ("repl_echo", "log", one(
        lambda: pick(f"sk-proj-{rnd(48, ALNUM + '_-')}", f"ghp_{rnd(36, ALNUM)}", tok(32, 40)),
        lambda s: f">>> os.environ[\"{pick('OPENAI_API_KEY', 'GITHUB_TOKEN', 'API_SECRET')}\"]\n'{s}'",
        lambda s: f"> process.env.{pick('STRIPE_KEY', 'GITHUB_TOKEN', 'API_SECRET')}\n'{s}'",
        lambda s: f"> Sys.getenv(\"GITHUB_PAT\")\n[1] \"{s}\"",
        lambda s: f"irb(main):001> ENV[\"API_SECRET\"]\n=> \"{s}\"",
    )),
    ("ipython_out", "log", one(
        lambda: tok(32, 64),
        lambda s: f"In [7]: resp.json()\nOut[7]: \n{{'access_token': '{s}',\n 'token_type': 'Bearer',\n 'expires_in': 3600}}",
        lambda s: f"In [3]: token = \"{s}\"",
    )),
    ("github_actions_log", "log", one(
        lambda: pick(tok(32, 40), f"npm_{rnd(36, ALNUM)}", fpw()),
        lambda s: f"2025-03-01T10:00:01.1234567Z ##[group]Run npm publish\n2025-03-01T10:00:01.1234568Z npm publish\n2025-03-01T10:00:01.1234569Z shell: /usr/bin/bash -e {{0}}\n2025-03-01T10:00:01.1234570Z env:\n2025-03-01T10:00:01.1234571Z   NODE_AUTH_TOKEN: {s}\n2025-03-01T10:00:01.1234572Z ##[endgroup]",
        lambda s: f"2025-03-01T10:00:02.0000000Z ::add-mask::{s}",
        lambda s: f"2025-03-01T10:00:03.0000000Z + docker login ghcr.io -u ci-bot -p {s}",
    )),
    ("gitlab_ci_log", "log", one(
        lambda: pick(tok(20, 32), fpw()),
        lambda s: f"$ echo \"deploy with DEPLOY_TOKEN={s}\"\ndeploy with DEPLOY_TOKEN={s}",
        lambda s: f"variables:\n  DATABASE_PASSWORD: \"{s}\"\n  POSTGRES_DB: app",
        lambda s: f"$ curl --fail -H \"JOB-TOKEN: {s}\" --upload-file dist.tgz \"$CI_API_V4_URL/projects/42/packages/generic/app/1.0/dist.tgz\"",
    )),
    ("jenkins_log_and_xml", "log", one(
        lambda: pick("11" + rnd(32, HEX), "{AQAAABAAAAAQ" + rnd(64, B64) + "}"),
        lambda s: f"+ curl -sf -u ci-bot:{s} https://jenkins.internal/job/app/build",
        lambda s: f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>{s}</password>\n</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>",
        lambda s: f"<apiToken>{s}</apiToken>",
    )),
    ("circleci_azure_pipelines", "log", one(
        lambda: pick(f"CCIPAT_{rnd(22, ALNUM)}_{rnd(40, HEX)}", tok(32, 40), fpw()),
        lambda s: f"#!/bin/bash -eo pipefail\ncurl -X POST -H \"Circle-Token: {s}\" https://circleci.com/api/v2/project/gh/acme/app/pipeline",
        lambda s: f"$ circleci context store-secret org-global SLACK_TOKEN <<< \"{s}\"",
        lambda s: f"##[debug]Processed: ##vso[task.setvariable variable=dbPassword]{s}",
        lambda s: f"environment:\n  SLACK_ACCESS_TOKEN: {s}",
    )),
]


# --- benign look-alikes --------------------------------------------------------------------

def _pub_jwk() -> str:
    return pick(
        json.dumps({"keys": [{"kty": "RSA", "kid": rnd(43, B64URL), "use": "sig", "alg": "RS256", "n": b64u(_r.randbytes(256)), "e": "AQAB"}]}),
        json.dumps({"kty": "EC", "crv": "P-256", "kid": f"sig-{_r.randint(2023, 2026)}", "x": b64u(_r.randbytes(32)), "y": b64u(_r.randbytes(32))}),
        json.dumps({"kty": "OKP", "crv": "Ed25519", "x": b64u(_r.randbytes(32)), "use": "sig"}),
        json.dumps({"kty": "RSA", "n": b64u(_r.randbytes(256)), "e": "AQAB", "x5t#S256": b64u(_r.randbytes(32)), "x5t": b64u(_r.randbytes(20))}),
    )


POLYGLOT_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("public_jwk", "json", _pub_jwk),
    ("public_keys", "log", lambda: pick(
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} deploy@ci",
        f"[Peer]\nPublicKey = {wg_key()}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.example.com:51820",
        f"# public key: {age_public()}",
        f"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{rnd(20, B64)}\n{rnd(64, B64)}\n-----END PUBLIC KEY-----",
        f"recipients: {age_public()}",
    )),
    ("fingerprints", "log", lambda: pick(
        f"ED25519 key fingerprint is SHA256:{rnd(43, B64)}.",
        f"2048 MD5:{hexcolon(16)} deploy@ci (RSA)",
        f"SHA1 Fingerprint={hexcolon(20).upper()}",
        f"      Key fingerprint = {' '.join(rnd(4, HEX).upper() for _ in range(10))}",
        f" key-hash ssh-rsa {rnd(32, HEX).upper()} admin@mgmt",
    )),
    ("openssl_public_text", "log", lambda: pick(
        f"        Subject Public Key Info:\n            Public Key Algorithm: rsaEncryption\n                Public-Key: (2048 bit)\n                Modulus:\n                    00:{hexcolon(15)}:\n                    {hexcolon(15)}\n                Exponent: 65537 (0x10001)",
        f"    Signature Algorithm: sha256WithRSAEncryption\n    Signature Value:\n        {hexcolon(18)}:\n        {hexcolon(18)}",
        f"        Serial Number:\n            {hexcolon(16)}",
        f"            X509v3 Subject Key Identifier: \n                {hexcolon(20).upper()}",
        f"Public-Key: (256 bit)\npub:\n    04:{hexcolon(15)}:\n    {hexcolon(15)}\nASN1 OID: prime256v1",
    )),
    ("hashes_named", "log", lambda: pick(
        f"{sha(64)}  app-release.apk",
        f"sha256: {sha(64)}",
        f"\"integrity\": \"sha512-{base64.b64encode(_r.randbytes(64)).decode()}\"",
        f"md5sum: {sha(32)}",
        f"checksum = \"{sha(64)}\"",
    )),
    ("env_lookups_in_code", "exception", lambda: pick(
        "const apiKey = process.env.API_KEY;",
        "val password = System.getenv(\"DB_PASSWORD\")",
        "$password = getenv('DB_PASSWORD');",
        "password := os.Getenv(\"DB_PASSWORD\")",
        "let apiKey = ProcessInfo.processInfo.environment[\"API_KEY\"]",
        "api_key <- Sys.getenv(\"OPENAI_API_KEY\")",
        "my $password = $ENV{DB_PASSWORD};",
        "final apiToken = const String.fromEnvironment('API_TOKEN');",
    )),
    ("placeholders_in_code", "exception", lambda: pick(
        "const apiKey = \"YOUR_API_KEY\";",
        "api_key = \"<your-api-key>\"",
        "$password = '';",
        "let token = \"\"",
        "password: \"${DB_PASSWORD}\"",
        "val clientSecret = \"REPLACE_ME\"",
        "SECRET_KEY = os.environ[\"SECRET_KEY\"]",
    )),
    ("masked_values", "log", lambda: pick(
        "2025-03-01T10:00:01.1234571Z   NODE_AUTH_TOKEN: ***",
        "$ echo $DEPLOY_TOKEN\n[MASKED]",
        "password=********",
        "*cmd* 'PASS ********'",
        "Authorization: Bearer [REDACTED]",
        "set passwd ENC <hidden>",
    )),
    ("secret_sounding_settings", "exception", lambda: pick(
        "const PASSWORD_MIN_LENGTH = 12;",
        f"val tokenExpirySeconds = {_r.choice([900, 3600, 86400])}",
        "secretName: \"db-credentials\"",
        "api_key_header = \"X-API-Key\"",
        "password_reset_url = \"https://accounts.example.com/reset\"",
        "TOKEN_TYPE = \"Bearer\"",
        "private_key_path = \"/etc/ssl/private/server.key\"",
        "static let keychainService = \"com.acme.app.token\"",
    )),
    ("network_device_benign", "log", lambda: pick(
        "service password-encryption\naaa new-model\naaa authentication login default group tacacs+ local",
        "crypto key generate rsa modulus 2048",
        "set system login password minimum-length 12\nset system authentication-order [ radius password ]",
        "/ip service set ssh port=2222\n/user group add name=ro policy=read,test,winbox",
        "config system password-policy\n    set status enable\n    set minimum-length 12\nend",
        "tacacs server ISE-1\n address ipv4 10.10.1.5\n single-connection",
        "snmp-server enable traps snmp authentication linkdown linkup",
        "set deviceconfig system hostname fw01\nset deviceconfig system authentication-profile RADIUS-AUTH",
    )),
    ("device_inventory", "log", lambda: pick(
        f"Processor board ID FOC{_r.randint(1000, 9999)}X{rnd(3, UPPER_ALNUM)}",
        f"Chassis                                JN{rnd(10, HEX).upper()}     MX204",
        f"Base ethernet MAC Address       : {hexcolon(6)}",
        f"snmpEngineID 80000009030000{rnd(12, HEX).upper()}",
        f"SNMPv2-MIB::sysDescr.0 = STRING: Cisco IOS Software, C2960X Software, Version 15.2(7)E{_r.randint(1, 9)}",
    )),
    ("protocol_no_credentials", "log", lambda: pick(
        "S: 250-AUTH PLAIN LOGIN XOAUTH2\nS: 250 SMTPUTF8",
        "S: 334 VXNlcm5hbWU6",
        "reply: b'334 UGFzc3dvcmQ6\\r\\n'",
        "* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE AUTH=PLAIN] Dovecot ready.",
        "< 230 Login successful.",
        "(error) WRONGPASS invalid username-password pair or user is disabled.",
        "conn=1001 op=0 BIND dn=\"cn=admin,dc=example,dc=org\" method=128\nconn=1001 op=0 RESULT tag=97 err=49 text=",
        f"{_r.randint(1_700_000_000, 1_760_000_000)}: New client connected from 10.0.0.7:51234 as sensor-12 (p2, c1, k60, u'sensor').",
        f"WWW-Authenticate: Digest realm=\"asterisk\", nonce=\"{rnd(8, HEX)}\", algorithm=MD5, qop=\"auth\"",
        "FATAL:  password authentication failed for user \"app\"",
    )),
    ("mobile_ids", "json", lambda: pick(
        f'{{"project_info": {{"project_number": "{_r.randint(10**11, 10**12)}", "project_id": "acme-prod", "storage_bucket": "acme-prod.appspot.com"}}}}',
        f'"client_info": {{"mobilesdk_app_id": "1:{_r.randint(10**11, 10**12)}:android:{rnd(16, HEX)}", "android_client_info": {{"package_name": "com.acme.app"}}}}',
        f'"oauth_client": [{{"client_id": "{_r.randint(10**11, 10**12)}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com", "client_type": 3}}]',
        f"<key>GOOGLE_APP_ID</key>\n<string>1:{_r.randint(10**11, 10**12)}:ios:{rnd(16, HEX)}</string>",
        f"<key>GCM_SENDER_ID</key>\n<string>{_r.randint(10**11, 10**12)}</string>",
        f'"extra": {{"eas": {{"projectId": "{uuid()}"}}}}',
    )),
    ("android_manifest_benign", "log", lambda: pick(
        "<meta-data android:name=\"com.google.android.gms.version\" android:value=\"@integer/google_play_services_version\" />",
        "<meta-data android:name=\"com.facebook.sdk.ApplicationId\" android:value=\"@string/facebook_app_id\"/>",
        "<meta-data android:name=\"firebase_analytics_collection_enabled\" android:value=\"false\" />",
        "<string name=\"password_hint\">Password</string>",
        "<EditText android:id=\"@+id/password\" android:inputType=\"textPassword\" />",
        "<meta-data android:name=\"com.google.android.geo.API_KEY\" android:value=\"${MAPS_API_KEY}\" />",
    )),
    ("app_build_benign", "log", lambda: pick(
        f"\"updates\": {{\"url\": \"https://u.expo.dev/{uuid()}\"}}, \"runtimeVersion\": {{\"policy\": \"appVersion\"}}",
        "eas build --profile production --platform android --non-interactive",
        "implementation platform('com.google.firebase:firebase-bom:33.1.0')",
        f"<key>CFBundleVersion</key>\n<string>{_r.randint(100, 9999)}</string>",
        "storePassword System.getenv(\"RELEASE_STORE_PASSWORD\")",
        "EXPO_PUBLIC_API_URL=https://api.example.com",
    )),
    ("ci_log_benign", "log", lambda: pick(
        f"2025-03-01T10:00:00.0000000Z ##[group]Run actions/checkout@{sha(40)}",
        "2025-03-01T10:00:00.0000000Z Secret source: Actions",
        "$ echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" --password-stdin \"$CI_REGISTRY\"",
        "Masking supported pattern matches of $PASSWORD or $TOKEN",
        "Warning: A secret was passed to \"sh\" using Groovy String interpolation, which is insecure.",
        f"Checkout SHA: {sha(40)}\nUsing cache key: v1-deps-{{{{ checksum \"package-lock.json\" }}}}",
        "##[debug]Evaluating: secrets.NPM_TOKEN",
    )),
    ("notebook_benign", "json", lambda: pick(
        f'{{"output_type": "display_data", "data": {{"image/png": "iVBORw0KGgoAAAANSUhEUgAA{base64.b64encode(_r.randbytes(96)).decode()}"}}}}',
        f"Out[{_r.randint(2, 40)}]: {{'prompt_tokens': {_r.randint(10, 999)}, 'completion_tokens': {_r.randint(10, 999)}, 'max_tokens': 1024}}",
        f'{{"cell_type": "code", "execution_count": {_r.randint(1, 30)}, "id": "{rnd(8, HEX)}", "metadata": {{}}}}',
        f">>> hashlib.sha256(data).hexdigest()\n'{sha(64)}'",
        f">>> uuid.uuid4()\nUUID('{uuid()}')",
    )),
    ("code_benign_strings", "exception", lambda: pick(
        "const errorMessage = \"Invalid password for user\";",
        "val passwordField = findViewById<EditText>(R.id.password)",
        "String token = request.getHeader(\"Authorization\");",
        "$token = $request->bearerToken();",
        "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
        "let cacheKey = \"user:\" + userId",
        "local secret_santa_rounds = 3",
    )),
    ("stack_trace_benign", "exception", lambda: pick(
        f"\tat com.acme.auth.TokenService.refresh(TokenService.java:{_r.randint(10, 300)})\n\tat com.acme.auth.TokenFilter.doFilter(TokenFilter.java:{_r.randint(10, 300)})",
        f"goroutine 1 [running]:\nmain.loadSecret(0xc0000{rnd(5, HEX)}, 0x20)\n\t/src/secret.go:{_r.randint(10, 99)} +0x{rnd(3, HEX)}",
        f"    at PasswordValidator.validate (/app/src/password.js:{_r.randint(10, 99)}:11)",
        f'  File "/srv/app/auth/token.py", line {_r.randint(10, 99)}, in verify\n    raise InvalidToken(token_id)',
        f"** (KeyError) key :api_key not found in: %{{timeout: 5000}}\n    (shop 0.1.0) lib/shop/client.ex:{_r.randint(10, 99)}: Shop.Client.new/1",
    )),
    ("terraform_benign", "log", lambda: pick(
        "  password = var.db_password",
        "  api_key  = data.aws_secretsmanager_secret_version.datadog.secret_string",
        "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}",
        "  password = random_password.db.result",
        f"  kms_key_id = \"arn:aws:kms:eu-west-1:{_r.randint(10**11, 10**12)}:key/{uuid()}\"",
        "  token = local.cluster_token",
    )),
    ("shell_benign", "log", lambda: pick(
        "read -r -s -p \"Password: \" PASSWORD",
        "export TOKEN=\"$(vault kv get -field=token secret/ci)\"",
        "cat <<'EOF'\nUsage: deploy --token TOKEN --env ENV\nEOF",
        ": \"${API_KEY:?API_KEY must be set}\"",
        "if [ -z \"$DB_PASSWORD\" ]; then echo 'DB_PASSWORD missing' >&2; exit 1; fi",
    )),
    ("powershell_benign", "log", lambda: pick(
        "$cred = Get-Credential -UserName 'svc-backup' -Message 'Backup account'",
        "$secure = Read-Host -Prompt 'Password' -AsSecureString",
        "$password = $env:DB_PASSWORD",
        "Get-Secret -Name ApiKey -Vault Prod",
        "[System.Convert]::ToBase64String($bytes)",
    )),
    ("sql_benign", "log", lambda: pick(
        "ALTER ROLE app PASSWORD NULL;",
        "SELECT id, password_hash FROM users WHERE email = $1",
        "GRANT SELECT ON secrets TO reporting;",
        "password_encryption = scram-sha-256",
        "Query\tSELECT token_count FROM usage WHERE day = CURDATE()",
    )),
    ("http_auth_benign", "header", lambda: pick(
        "WWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\", error_description=\"The access token expired\"",
        "Proxy-Authenticate: Basic realm=\"corp-proxy\"",
        "Access-Control-Allow-Headers: Authorization, X-Api-Key, Content-Type",
        f"X-Request-Id: {uuid()}",
        "Authorization: Bearer $TOKEN",
    )),
    ("appliance_benign", "log", lambda: pick(
        "config system admin\n    edit \"admin\"\n        set accprofile \"super_admin\"\n        set vdom \"root\"\n    next\nend",
        "ltm pool web-pool {\n    members {\n        10.0.0.11:80 { address 10.0.0.11 }\n    }\n}",
        "set deviceconfig system ip-address 10.0.0.2 netmask 255.255.255.0",
        "/system identity set name=core-rt1\n/ip dns set servers=1.1.1.1",
        "set admin-lockout-threshold 3\nset admin-lockout-duration 60",
    )),
    ("elixir_erlang_benign", "exception", lambda: pick(
        "config :logger, level: :info",
        "  secret_key_base: System.get_env(\"SECRET_KEY_BASE\"),",
        "{:ok, token, _claims} = Guardian.encode_and_sign(user)",
        f"#PID<0.{_r.randint(100, 999)}.0> terminating\n** (RuntimeError) token expired",
        f"#Reference<0.{_r.randint(10**8, 10**9)}.{_r.randint(10**8, 10**9)}.{_r.randint(10**5, 10**6)}>",
    )),
    ("kerberos_benign", "log", lambda: pick(
        "Ticket cache: FILE:/tmp/krb5cc_1000\nDefault principal: alice@EXAMPLE.COM",
        f"   {_r.randint(1, 9)} 03/01/2025 10:10:00 HTTP/web1.example.com@EXAMPLE.COM (aes256-cts-hmac-sha1-96)",
        "kinit: Preauthentication failed while getting initial credentials",
        "ktutil:  addent -password -p svc@EXAMPLE.COM -k 1 -e aes256-cts-hmac-sha1-96",
        "default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
    )),
    ("key_files_benign", "log", lambda: pick(
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: aes256-cbc\nComment: deploy@ci",
        f"Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI{rnd(39, B64)}\n{rnd(4, B64)}",
        "IdentityFile ~/.ssh/id_ed25519\nIdentitiesOnly yes",
        "chmod 600 ~/.ssh/id_rsa && ssh-add ~/.ssh/id_rsa",
        "private-key-file: /etc/wireguard/private.key",
    )),
    ("ids_and_addresses", "log", lambda: pick(
        f"fid={rnd(22, B64URL)} installation registered",
        f"x-goog-request-id: {rnd(16, HEX)}",
        f"0x7ffd{rnd(8, HEX)} in ?? ()",
        f"inet6 fe80::{rnd(4, HEX)}:{rnd(4, HEX)}:{rnd(4, HEX)}:{rnd(4, HEX)}/64 scope link",
        f"build {uuid()} finished in {_r.randint(30, 900)}s",
    )),
    ("base64_nonsecret", "log", lambda: pick(
        f"Content-MD5: {base64.b64encode(_r.randbytes(16)).decode()}",
        "Content-Transfer-Encoding: base64\n\n" + b64s("Hello team, the nightly report is attached.\n"),
        f"nonce=\"{base64.b64encode(_r.randbytes(16)).decode()}\"",
        "data:\n  banner.txt: " + b64s("Maintenance window Sunday 02:00 UTC"),
        f"Sec-WebSocket-Key: {base64.b64encode(_r.randbytes(16)).decode()}",
    )),
    ("version_strings", "log", lambda: pick(
        f"Xcode 15.{_r.randint(0, 4)}\nBuild version 15E{_r.randint(100, 300)}",
        f"Gradle 8.{_r.randint(0, 9)}\nRevision: {sha(40)}",
        f"Flutter 3.{_r.randint(10, 24)}.{_r.randint(0, 9)} • channel stable • https://github.com/flutter/flutter.git\nFramework • revision {sha(10)}",
        f"Cisco IOS XE Software, Version 17.{_r.randint(3, 12)}.{_r.randint(1, 5)}",
        f"JUNOS Software Release [{_r.randint(18, 23)}.{_r.randint(1, 4)}R{_r.randint(1, 3)}.{_r.randint(1, 9)}]",
    )),
]


def polyglot() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261201_7)
    return heldout._records(POLYGLOT_SECRETS, POLYGLOT_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = polyglot()
    heldout._write(HERE / "polyglot_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "polyglot_benign.jsonl.gz", benign_rows)
    print(f"polyglot: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
