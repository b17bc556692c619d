"""A held-out set: secrets with NO key name near them, recognisable by the value's shape alone.

    python -m tests.secret_corpus.bare   # rewrites bare_*.jsonl.gz here

Provider credentials in their published formats, each written from the vendor's documentation of its token
format (not from errscope's rules or tests): fixed prefixes, checksummed tokens (GitHub's and npm's 30 random
base62 characters and a 6-character base62 CRC32, GitHub's blog "Behind GitHub's new authentication token
formats"), PyPI's macaroons (``pypi-AgEIcHlwaS5vcmc`` = the base64 of the macaroon's location ``pypi.org``),
Microsoft's identifiable keys (a fixed signature inside the random part: ``AZDO`` at characters 76-79 of an
Azure DevOps PAT, ``+ASt`` in a storage account key, ``AzFu`` in a Functions key), Cloudflare's ``cfut_``/
``cfat_``/``cfk_`` scannable tokens, Tailscale's ``tskey-<type>-`` keys, JWTs, PEM/OpenSSH/PuTTY private keys,
database and cache URIs with a password, signed URLs (S3 SigV4, GCS V4, CloudFront, Azure SAS), webhook URLs
whose path is the credential (Slack, Discord, Teams, Google Chat), cloud keys (AWS ``AKIA``/``ASIA`` and the
40-character secret in ``credentials.csv``, session tokens, GCP ``AIza``/``GOCSPX-``/``ya29.``/``1//``, Azure AD
``Q~`` client secrets), chat bot tokens (Slack ``xox?-``, Discord's three base64 parts, Telegram's
``<bot id>:AA…``), payment keys (Stripe ``sk_live_``/``rk_live_``/``whsec_``, Square, Braintree, Paystack,
Flutterwave), mail keys (SendGrid ``SG.``, Mailgun, Mailchimp's ``-usN`` data centre tail), HMAC-signed cookies
(itsdangerous/Flask, Express ``s%3A``, Rails ``--<hmac>``, Django ``signing``), and vendors errscope has no rule
for. About 150 vendors over 56 formats; each format cycles through its vendors, four lines a format.

The containers name nothing: a bullet or numbered list, a JSON array, a CSV cell, a Markdown table row without a
header, a chat message, command output (``pbpaste``, ``tail``), a Python traceback's source line, a Node stack,
an ``echo`` into the clipboard, a quoted reply, an inline code span, a log line that says the call was rejected.

Benign: what is high-entropy and NOT a secret, and must stay byte-identical: git SHAs, UUIDs, ULIDs, KSUIDs,
trace and span ids, request ids (including vendor-prefixed ones like ``req_``), object ids (``cus_``, ``pi_``,
``chatcmpl-``), content hashes (hex, base64 digests, SRI ``sha384-``, npm ``sha512-`` integrity, Go ``h1:``
sums), public keys and certificate fingerprints, base64 image data, IPFS CIDs, Docker image digests, Bitcoin and
Ethereum addresses and transaction hashes, package versions, idempotency keys, masked values (``sk_live_****``,
``ghp_…XXXX``), S3 object keys, hashed asset names, and publishable keys their vendors document as public
(Stripe ``pk_``, Mapbox ``pk.``, Clerk's publishable ``pk_live_``).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed). No benign line holds an
e-mail address. 56 secret formats x 4 and 30 benign categories x 5. ``tests/test_scrub_bare.py`` scores
``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import binascii
import json
import string
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, UPPER_ALNUM, pick, rnd

_r = heldout._rng  # the helpers above draw from it: bare() seeds it

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX_UP = "0123456789ABCDEF"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64(n: int) -> str:
    return base64.b64encode(_r.randbytes(n)).decode()


def uuid() -> str:
    h = rnd(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{pick('8', '9', 'a', 'b')}{h[17:20]}-{h[20:32]}"


def digits(n: int) -> str:
    return str(_r.randint(1, 9)) + "".join(str(_r.randint(0, 9)) for _ in range(n - 1))


def base62_checksummed(prefix: str) -> str:
    """GitHub's and npm's token format: 30 random base62 characters and the CRC32 of them in 6 base62 digits."""
    entropy = rnd(30, ALNUM)
    crc = binascii.crc32(entropy.encode())
    check = ""
    while crc:
        crc, d = divmod(crc, 62)
        check = BASE62[d] + check
    return prefix + entropy + check.rjust(6, "0")


def identifiable(length: int, signature: str, tail: int, pad: str, alphabet: str = B64) -> str:
    """Microsoft's identifiable keys: random characters, a fixed 4-character signature, a few more, padding."""
    return rnd(length, alphabet) + signature + rnd(tail, alphabet) + pick("A", "Q", "g", "w") + pad


def jwt(claims: dict[str, object] | None = None, alg: str = "HS256") -> str:
    head = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = claims or {"sub": digits(7), "iat": _r.randint(1_700_000_000, 1_760_000_000), "role": pick("admin", "service_role", "user")}
    sig = b64u(_r.randbytes(32 if alg.startswith("HS") else 256))
    return f"{head}.{b64u(json.dumps(body, separators=(',', ':')).encode())}.{sig}"


def pem_body(n_bytes: int) -> list[str]:
    raw = base64.b64encode(_r.randbytes(n_bytes)).decode()
    return [raw[i:i + 64] for i in range(0, len(raw), 64)]


def fake_pw() -> str:
    words = ["Fake", "fake", "FAKE"]
    tail = ["harbor", "Quokka", "zephyr", "Marble", "tundra", "Pylon", "ember", "Saffron"]
    return f"{_r.choice(words)}{_r.choice(tail)}{_r.choice('!#%^*-_~.')}{_r.randint(10, 9999)}{_r.choice(tail).lower()}"


def user() -> str:
    return pick("deploy", "app", "svc_sync", "reporting", "etl", "admin", "api")


def person() -> str:
    return pick("dana", "priya", "tom", "lukas", "mei", "carlos", "aisha", "jonas")


def date() -> str:
    return f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d}"


def clock() -> str:
    return f"{_r.randint(7, 19):02d}:{_r.randint(0, 59):02d}"


def stamp() -> str:
    return f"{date()}T{clock()}:{_r.randint(10, 59)}Z"


# --- where a bare value sits: nothing around it names it ---------------------------------------

Place = Callable[[str], str]

PLACES: list[Place] = [
    lambda t: f"- {t}",
    lambda t: f"  • {t}\n  • (rotated {date()})",
    lambda t: f"{_r.randint(1, 9)}. {t}",
    lambda t: json.dumps([t, pick("prod", "staging", "eu-west-1", "v2")]),
    lambda t: json.dumps({"items": [pick("a", "b", "ok"), t]}),
    lambda t: f"{user()},{t},{date()},active",
    lambda t: f'"{person()}","{t}","{date()}"',
    lambda t: f"[{clock()}] {person()}: {t}",
    lambda t: f"@{person()} does this one still work? {t}",
    lambda t: f"{person()}: nvm, found it → {t} 👍",
    lambda t: f"$ pbpaste\n{t}",
    lambda t: f"$ tail -n 1 ~/notes/{pick('prod', 'ci', 'old')}.txt\n{t}",
    lambda t: f'Traceback (most recent call last):\n  File "/srv/app/jobs/sync.py", line {_r.randint(20, 300)}, in run\n    client = Client("{t}")\nrequests.exceptions.HTTPError: 401 Client Error: Unauthorized',
    lambda t: f"Error: Request failed with status code 401\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12)\n    at init ('{t}') (/app/src/sync.js:{_r.randint(10, 99)}:7)",
    lambda t: f"{stamp()} ERROR worker[{_r.randint(100, 999)}] upstream rejected {t} (401)",
    lambda t: f"| {pick('prod', 'staging', 'dev')} | {t} | {date()} |",
    lambda t: f"`{t}`",
    lambda t: f"> {t}\n\nthanks, that worked",
    lambda t: f"echo '{t}' | pbcopy",
    lambda t: f"ok here: {t}",
]

# a URI or URL is a line of its own more often: these places take it as it is
URL_PLACES: list[Place] = [
    lambda t: f"- {t}",
    lambda t: json.dumps([t]),
    lambda t: f"{stamp()} INFO connecting to {t}",
    lambda t: f"[{clock()}] {person()}: {t}",
    lambda t: f"$ pbpaste\n{t}",
    lambda t: f"{user()},{t},{date()}",
    lambda t: f'  File "/srv/app/db.py", line {_r.randint(10, 99)}, in <module>\n    engine = create_engine("{t}")',
    lambda t: f"curl -s '{t}'",
    lambda t: f"| {pick('prod', 'eu')} | {t} |",
    lambda t: f"<{t}>",
]

# a PEM block and the like: its lines as they are, or escaped once in a JSON string
BLOCK_PLACES: list[Place] = [
    lambda t: t,
    lambda t: f"$ cat ~/.ssh/{pick('deploy', 'id_ci', 'backup')}\n{t}",
    lambda t: f"```\n{t}\n```",
    lambda t: f"{person()}: pasting it here for now\n{t}",
]

Value = Callable[[], tuple[str, str]]  # (secret, the thing that holds it)


def same(make: Callable[[], str]) -> Value:
    def value() -> tuple[str, str]:
        s = make()
        return s, s

    return value


def fmt(*vendors: Value, places: list[Place] = PLACES) -> Callable[[], tuple[str, str]]:
    """A format: each call takes the next vendor in turn and a random place."""
    turn = [0]

    def make() -> tuple[str, str]:
        value = vendors[turn[0] % len(vendors)]
        turn[0] += 1
        secret, thing = value()
        return secret, _r.choice(places)(thing)

    return make


def block(header: str, make_body: Callable[[], list[str]], footer: str, escaped: bool = False) -> Value:
    def value() -> tuple[str, str]:
        lines = make_body()
        if escaped:
            body = "\\n".join(lines)
            return body, f'"{header}\\n{body}\\n{footer}\\n"'
        body = "\n".join(lines)
        return body, f"{header}\n{body}\n{footer}"

    return value


def uri(template: str, make: Callable[[], str] = fake_pw) -> Value:
    def value() -> tuple[str, str]:
        s = make()
        return s, template.format(s=s, u=user(), h=pick("db1", "primary", "pg-0", "main"), n=_r.randint(1, 9))

    return value


# --- vendor value shapes, from each vendor's documentation --------------------------------------

def slack_bot() -> str:
    return f"xoxb-{digits(12)}-{digits(13)}-{rnd(24)}"


def slack_user() -> str:
    return f"xoxp-{digits(12)}-{digits(12)}-{digits(13)}-{rnd(32, HEX)}"


def slack_app() -> str:
    return f"xapp-1-A{rnd(10, UPPER_ALNUM)}-{digits(13)}-{rnd(64, HEX)}"


def slack_refresh() -> str:
    return f"xoxe-1-{rnd(140, ALNUM)}"


def discord_bot() -> str:
    bot_id = digits(19)
    return f"{b64u(bot_id.encode())}.{rnd(6, B64URL)}.{rnd(38, B64URL)}"


def telegram_bot() -> str:
    return f"{digits(10)}:AA{rnd(33, B64URL)}"


def aws_secret() -> str:
    return rnd(40, ALNUM + "+/")


def pypi() -> str:
    macaroon = b64u(b"\x02\x01\x08pypi.org\x02%\x08\x01\x12 " + _r.randbytes(120))
    return "pypi-AgEIcHlwaS5vcmc" + macaroon[19:]


def gcp_access() -> str:
    return f"ya29.a0{rnd(150, B64URL)}"


def gcp_refresh() -> str:
    return f"1//0{_r.choice('abcdefg')}{rnd(98, B64URL)}"


def aws_session() -> str:
    return "IQoJb3JpZ2luX2Vj" + rnd(300, ALNUM + "+/") + "=="


def atlassian() -> str:
    return f"ATATT3xFfGF0{rnd(170, B64URL)}={rnd(8, HEX_UP)}"


def azure_devops() -> str:
    return rnd(76, ALNUM) + "AZDO" + rnd(4, ALNUM)


def azure_ad_secret() -> str:
    return f"{rnd(3, ALNUM)}{_r.randint(7, 8)}Q~{rnd(34, ALNUM + '_-.~')}"


def age_key() -> str:
    return "AGE-SECRET-KEY-1" + "".join(_r.choice(BECH32) for _ in range(58)).upper()


def mailgun_new() -> str:
    return f"{rnd(32, HEX)}-{rnd(8, HEX)}-{rnd(8, HEX)}"


def braintree() -> str:
    return f"access_token$production${rnd(16, LOWER_ALNUM)}${rnd(32, HEX)}"


def fcm() -> str:
    return f"AAAA{rnd(7, B64URL)}:APA91b{rnd(134, B64URL)}"


def twitter_bearer() -> str:
    return "AAAAAAAAAAAAAAAAAAAAA" + rnd(30, ALNUM) + "%3D" + rnd(50, ALNUM)


def onepassword_secret_key() -> str:
    u = UPPER_ALNUM.replace("O", "").replace("I", "")
    return f"A3-{rnd(6, u)}-{rnd(6, u)}-{rnd(5, u)}-{rnd(5, u)}-{rnd(5, u)}-{rnd(5, u)}"


def onepassword_service() -> str:
    return "ops_" + b64u(json.dumps({"signInAddress": "my.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256"}, "email": f"{rnd(20, LOWER_ALNUM)}@1passwordserviceaccounts.com", "srpX": rnd(64, HEX), "muk": {"alg": "A256GCM", "k": rnd(43, B64URL)}}).encode())


def flask_cookie() -> str:
    payload = b64u(json.dumps({"_user_id": digits(4), "_fresh": True}, separators=(",", ":")).encode())
    return f"{payload}.{rnd(6, B64URL)}.{rnd(27, B64URL)}"


def express_cookie() -> str:
    sig = b64(32).rstrip("=").replace("+", "%2B").replace("/", "%2F")  # cookie-signature: base64 HMAC-SHA256, URL-encoded
    return f"s%3A{rnd(32, B64URL)}.{sig}"


def rails_cookie() -> str:
    data = b64(90).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")  # Rails: base64 data, "--", HMAC-SHA1 hex
    return f"{data}--{rnd(40, HEX)}"


def django_signed() -> str:
    return f".eJxVjMsOwiAQRf{rnd(60, B64URL)}:{rnd(6, B64URL)}:{rnd(43, B64URL)}"


def putty() -> tuple[str, str]:
    private = b64(48)
    text = (f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: {person()}@laptop\nPublic-Lines: 2\n"
            f"AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)}\n{rnd(20, B64)}\nPrivate-Lines: 1\n{private}\n"
            f"Private-MAC: {rnd(64, HEX)}")
    return private, text


def openssh() -> list[str]:
    raw = base64.b64encode(b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01" + _r.randbytes(350)).decode()
    return [raw[i:i + 70] for i in range(0, len(raw), 70)]


def encrypted_pem() -> list[str]:
    return ["Proc-Type: 4,ENCRYPTED", f"DEK-Info: AES-128-CBC,{rnd(32, HEX_UP)}", ""] + pem_body(600)


def pem_escaped() -> Value:
    return block("-----BEGIN PRIVATE KEY-----", lambda: pem_body(300), "-----END PRIVATE KEY-----", escaped=True)


def url_token(template: str, make: Callable[[], str]) -> Value:
    def value() -> tuple[str, str]:
        s = make()
        return s, template.replace("{s}", s).replace("{g1}", uuid()).replace("{g2}", uuid()).replace("{d}", digits(18))

    return value


def s3_presigned() -> tuple[str, str]:
    sig = rnd(64, HEX)
    key_id = "AKIA" + rnd(16, BASE32)
    return sig, (f"https://acme-exports.s3.eu-west-1.amazonaws.com/reports/{date()}.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                 f"&X-Amz-Credential={key_id}%2F20251103%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20251103T101500Z"
                 f"&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={sig}")


def gcs_signed() -> tuple[str, str]:
    sig = rnd(512, HEX)
    return sig, (f"https://storage.googleapis.com/acme-media/v/{rnd(8, LOWER_ALNUM)}.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                 f"&X-Goog-Credential=uploader%40acme-prod.iam.gserviceaccount.com%2F20251103%2Fauto%2Fstorage%2Fgoog4_request"
                 f"&X-Goog-Date=20251103T101500Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={sig}")


def cloudfront_signed() -> tuple[str, str]:
    sig = rnd(170, ALNUM + "-_~")
    return sig, (f"https://d{rnd(13, LOWER_ALNUM)}.cloudfront.net/private/{rnd(10, LOWER_ALNUM)}.pdf?Expires={_r.randint(1_760_000_000, 1_790_000_000)}"
                 f"&Signature={sig}&Key-Pair-Id=K{rnd(13, UPPER_ALNUM)}")


def azure_sas() -> tuple[str, str]:
    sig = rnd(43, ALNUM + "+/") + "="
    enc = sig.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return enc, (f"https://acme{rnd(6, LOWER_ALNUM)}.blob.core.windows.net/backups/db-{date()}.bak?sv=2022-11-02&ss=b&srt=o&sp=r"
                 f"&se={date()}T23:59:59Z&st={date()}T00:00:00Z&spr=https&sig={enc}")


# --- secrets ------------------------------------------------------------------------------------

BARE_SECRETS: list[tuple[str, str, Callable[[], tuple[str, str]]]] = [
    # checksummed and fixed-prefix code-hosting and package tokens
    ("github_classic_checksummed", "log", fmt(*(same(lambda p=p: base62_checksummed(p)) for p in ("ghp_", "gho_", "ghs_", "ghr_")))),
    ("github_fine_grained", "log", fmt(same(lambda: f"github_pat_11{rnd(20, UPPER_ALNUM)}_{rnd(59, ALNUM)}"))),
    ("npm_checksummed", "log", fmt(same(lambda: base62_checksummed("npm_")))),
    ("pypi_macaroon", "log", fmt(same(pypi))),
    ("gitlab_tokens", "log", fmt(same(lambda: f"glpat-{rnd(20, B64URL)}"), same(lambda: f"gldt-{rnd(20, B64URL)}"),
                                 same(lambda: f"glrt-{rnd(20, B64URL)}"), same(lambda: f"glptt-{rnd(40, HEX)}"))),
    ("package_registries", "log", fmt(same(lambda: f"rubygems_{rnd(48, HEX)}"), same(lambda: f"oy2{rnd(43, LOWER_ALNUM)}"),
                                      same(lambda: f"CLOJARS_{rnd(60, HEX)}"), same(lambda: f"dckr_pat_{rnd(27, B64URL)}"))),
    ("ci_and_code_tools", "log", fmt(same(lambda: f"bkua_{rnd(40, HEX)}"), same(lambda: f"sgp_{rnd(16, HEX)}_{rnd(40, HEX)}"),
                                     same(lambda: f"ATBB{rnd(32, ALNUM)}{rnd(8, HEX_UP)}"), same(lambda: f"pat.{rnd(22, B64URL)}.{rnd(24, HEX)}.{rnd(20, ALNUM)}"))),
    ("atlassian_api_token", "log", fmt(same(atlassian))),
    ("azure_devops_identifiable", "log", fmt(same(azure_devops))),
    # chat
    ("slack_tokens", "log", fmt(same(slack_bot), same(slack_user), same(slack_app), same(slack_refresh))),
    ("slack_webhook_url", "log", fmt(url_token("https://hooks.slack.com/services/T0{s}", lambda: f"{rnd(8, UPPER_ALNUM)}/B0{rnd(9, UPPER_ALNUM)}/{rnd(24)}"), places=URL_PLACES)),
    ("discord_bot_token", "log", fmt(same(discord_bot))),
    ("discord_webhook_url", "log", fmt(url_token("https://discord.com/api/webhooks/{d}/{s}", lambda: rnd(68, B64URL)), places=URL_PLACES)),
    ("telegram_bot_token", "log", fmt(same(telegram_bot))),
    ("teams_webhook_url", "log", fmt(url_token("https://acme.webhook.office.com/webhookb2/{g1}@{g2}/IncomingWebhook/{s}/{g1}", lambda: rnd(32, HEX)), places=URL_PLACES)),
    ("google_chat_webhook", "log", fmt(url_token("https://chat.googleapis.com/v1/spaces/AAAA{d}/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={s}", lambda: rnd(43, B64URL) + "%3D"), places=URL_PLACES)),
    # payments
    ("stripe_secret_keys", "log", fmt(same(lambda: f"sk_live_51{rnd(97, ALNUM)}"), same(lambda: f"rk_live_51{rnd(97, ALNUM)}"),
                                      same(lambda: f"sk_test_51{rnd(97, ALNUM)}"), same(lambda: f"sk_live_{rnd(24, ALNUM)}"))),
    ("stripe_webhook_secret", "log", fmt(same(lambda: f"whsec_{rnd(32, ALNUM)}"))),
    ("square_and_braintree", "log", fmt(same(lambda: f"EAAA{rnd(60, B64URL)}"), same(lambda: f"sq0csp-{rnd(43, B64URL)}"),
                                        same(braintree), same(lambda: f"sq0atp-{rnd(22, B64URL)}"))),
    ("payments_other", "log", fmt(same(lambda: f"sk_live_{rnd(40, HEX)}"), same(lambda: f"FLWSECK-{rnd(32, HEX)}-X"),
                                  same(lambda: f"shippo_live_{rnd(40, HEX)}"), same(lambda: f"access-production-{uuid()}"))),
    # mail
    ("sendgrid_key", "log", fmt(same(lambda: f"SG.{rnd(22, B64URL)}.{rnd(43, B64URL)}"))),
    ("mailgun_keys", "log", fmt(same(lambda: f"key-{rnd(32, HEX)}"), same(mailgun_new))),
    ("mailchimp_key", "log", fmt(same(lambda: f"{rnd(32, HEX)}-us{_r.randint(1, 21)}"))),
    ("mail_other", "log", fmt(same(lambda: f"re_{rnd(8, ALNUM)}_{rnd(24, ALNUM)}"), same(lambda: f"xkeysib-{rnd(64, HEX)}-{rnd(16, ALNUM)}"),
                              same(lambda: f"mlsn.{rnd(64, HEX)}"))),
    # clouds
    ("aws_access_key_id", "log", fmt(same(lambda: "AKIA" + rnd(16, BASE32)), same(lambda: "ASIA" + rnd(16, BASE32)))),
    ("aws_credentials_csv", "log", lambda: (lambda s: (s, pick(
        f"User name,Password,Access key ID,Secret access key,Console login link\n{user()},,AKIA{rnd(16, BASE32)},{s},https://{digits(12)}.signin.aws.amazon.com/console",
        f"Access key ID,Secret access key\nAKIA{rnd(16, BASE32)},{s}",
        f"AKIA{rnd(16, BASE32)}\t{s}",
        f"{user()},AKIA{rnd(16, BASE32)},{s}")))(aws_secret())),
    ("aws_session_token", "log", fmt(same(aws_session))),
    ("gcp_api_key", "log", fmt(same(lambda: "AIza" + rnd(35, B64URL)))),
    ("gcp_oauth", "log", fmt(same(lambda: f"GOCSPX-{rnd(28, B64URL)}"), same(gcp_access), same(gcp_refresh))),
    ("azure_ad_client_secret", "log", fmt(same(azure_ad_secret))),
    ("azure_identifiable_keys", "log", fmt(same(lambda: identifiable(76, "+ASt", 5, "==")), same(lambda: identifiable(44, "AzFu", 5, "==", B64URL)),
                                           same(lambda: identifiable(33, "+ASb", 5, "=")), same(lambda: identifiable(76, "ACDb", 5, "==")))),
    ("cloud_other", "log", fmt(same(lambda: f"LTAI{rnd(20, ALNUM)}"), same(lambda: f"AKID{rnd(32, ALNUM)}"),
                               same(lambda: f"dop_v1_{rnd(64, HEX)}"), same(lambda: f"cfut_{rnd(40, ALNUM)}{rnd(8, HEX)}"))),
    ("paas_tokens", "log", fmt(same(lambda: f"HRKU-AA{rnd(58, B64URL)}"), same(lambda: f"nfp_{rnd(36, ALNUM)}"),
                               same(lambda: f"rnd_{rnd(32, ALNUM)}"), same(lambda: f"FlyV1 fm2_{rnd(200, ALNUM + '+/')}=="))),
    ("infra_tokens", "log", fmt(same(lambda: f"hvs.CAESI{rnd(90, B64URL)}"), same(lambda: f"{rnd(14, ALNUM)}.atlasv1.{rnd(67, ALNUM)}"),
                                same(lambda: f"pul-{rnd(40, HEX)}"), same(lambda: f"tskey-auth-k{rnd(10, ALNUM)}CNTRL-{rnd(32, ALNUM)}"))),
    ("secrets_managers", "log", fmt(same(lambda: f"dp.st.prd.{rnd(43, ALNUM)}"), same(onepassword_service),
                                    same(onepassword_secret_key), same(age_key))),
    # observability
    ("observability_tokens", "log", fmt(same(lambda: f"NRAK-{rnd(27, UPPER_ALNUM)}"), same(lambda: f"glsa_{rnd(32, ALNUM)}_{rnd(8, HEX)}"),
                                        same(lambda: f"sntryu_{rnd(64, HEX)}"), same(lambda: f"dt0c01.{rnd(24, UPPER_ALNUM)}.{rnd(64, UPPER_ALNUM)}"))),
    ("grafana_cloud_and_sentry_org", "log", fmt(
        same(lambda: "glc_" + b64u(json.dumps({"o": digits(6), "n": f"stack-{digits(6)}-hm-read", "k": rnd(24, ALNUM), "m": {"r": "prod-eu-west-2"}}).encode())),
        same(lambda: "sntrys_" + b64u(json.dumps({"iat": _r.randint(1_700_000_000, 1_760_000_000), "url": "https://sentry.io", "region_url": "https://de.sentry.io", "org": "acme"}).encode()) + "_" + rnd(43, ALNUM + "/+")))),
    # AI
    ("ai_provider_keys", "log", fmt(same(lambda: f"sk-proj-{rnd(74, B64URL)}T3BlbkFJ{rnd(74, B64URL)}"), same(lambda: f"sk-ant-api03-{rnd(93, B64URL)}-{rnd(6, B64URL)}AA"),
                                    same(lambda: "hf_" + "".join(_r.choice(string.ascii_letters) for _ in range(34))), same(lambda: f"gsk_{rnd(52, ALNUM)}"))),
    ("ai_provider_keys_2", "log", fmt(same(lambda: f"r8_{rnd(37, ALNUM)}"), same(lambda: f"pcsk_{rnd(5, ALNUM)}_{rnd(64, ALNUM)}"),
                                      same(lambda: f"xai-{rnd(80, ALNUM)}"), same(lambda: f"sk-or-v1-{rnd(64, HEX)}"))),
    # SaaS
    ("productivity_saas", "log", fmt(same(lambda: f"lin_api_{rnd(40, ALNUM)}"), same(lambda: f"ntn_{digits(11)}{rnd(35, ALNUM)}"),
                                     same(lambda: f"pat{rnd(14, ALNUM)}.{rnd(64, HEX)}"), same(lambda: f"figd_{rnd(40, B64URL)}"))),
    ("saas_2", "log", fmt(same(lambda: f"PMAK-{rnd(24, HEX)}-{rnd(34, HEX)}"), same(lambda: f"pat-na1-{uuid()}"),
                          same(lambda: f"CFPAT-{rnd(43, B64URL)}"), same(lambda: f"tfp_{rnd(44, ALNUM)}_{rnd(14, ALNUM)}"))),
    ("saas_3", "log", fmt(same(lambda: f"shpat_{rnd(32, HEX)}"), same(lambda: f"shpss_{rnd(32, HEX)}"),
                          same(lambda: f"pk_{digits(8)}_{rnd(32, UPPER_ALNUM)}"), same(lambda: f"dapi{rnd(32, HEX)}"))),
    ("databases_as_a_service", "log", fmt(same(lambda: f"pscale_tkn_{rnd(43, B64URL)}"), same(lambda: f"sbp_{rnd(40, HEX)}"),
                                          same(lambda: f"sb_secret_{rnd(22, B64URL)}_{rnd(8, B64URL)}"), same(lambda: f"pscale_pw_{rnd(43, B64URL)}"))),
    ("saas_4", "log", fmt(same(lambda: f"aio_{rnd(28, ALNUM)}"), same(lambda: f"pnu_{rnd(36, ALNUM)}"),
                          same(lambda: f"rdme_{rnd(70, HEX)}"), same(lambda: f"EZAK{rnd(54, ALNUM)}"))),
    ("social_and_identity", "log", fmt(same(lambda: f"EAA{rnd(4, UPPER_ALNUM)}{rnd(150, ALNUM)}"), same(twitter_bearer),
                                       same(fcm), same(lambda: f"00D{rnd(12, ALNUM)}!AQ{rnd(96, ALNUM + '._')}"))),
    ("dropbox_and_artifactory", "log", fmt(same(lambda: f"sl.u.{rnd(140, B64URL)}"), same(lambda: f"AKCp{rnd(69, ALNUM)}"),
                                           same(lambda: f"y0_AgAAAA{rnd(50, B64URL)}"), same(lambda: f"sdk-{uuid()}"))),
    # JWTs, signed cookies
    ("jwt_bare", "log", fmt(same(lambda: jwt()), same(lambda: jwt({"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "prod", "sub": "system:serviceaccount:prod:sync"}, "RS256")),
                            same(lambda: jwt({"iss": "supabase", "ref": "".join(_r.choice(string.ascii_lowercase) for _ in range(20)), "role": "service_role"})))),
    ("hmac_signed_cookies", "log", fmt(same(flask_cookie), same(express_cookie), same(rails_cookie), same(django_signed))),
    # keys
    ("pem_rsa_private", "log", fmt(block("-----BEGIN RSA PRIVATE KEY-----", lambda: pem_body(900), "-----END RSA PRIVATE KEY-----"), places=BLOCK_PLACES)),
    ("pem_pkcs8_and_ec", "log", fmt(block("-----BEGIN PRIVATE KEY-----", lambda: pem_body(300), "-----END PRIVATE KEY-----"),
                                    block("-----BEGIN EC PRIVATE KEY-----", lambda: pem_body(120), "-----END EC PRIVATE KEY-----"),
                                    block("-----BEGIN RSA PRIVATE KEY-----", encrypted_pem, "-----END RSA PRIVATE KEY-----"),
                                    pem_escaped(), places=BLOCK_PLACES)),
    ("openssh_private", "log", fmt(block("-----BEGIN OPENSSH PRIVATE KEY-----", openssh, "-----END OPENSSH PRIVATE KEY-----"), places=BLOCK_PLACES)),
    ("putty_ppk", "log", fmt(putty, places=BLOCK_PLACES)),
    # URIs and signed URLs
    ("sql_database_uris", "log", fmt(uri("postgresql://{u}:{s}@{h}.db.internal:5432/app"), uri("mysql://{u}:{s}@mysql-{n}.prod:3306/shop"),
                                     uri("sqlserver://{u}:{s}@sql{n}.database.windows.net:1433?database=erp"), uri("postgres://postgres.{u}:{s}@aws-0-eu-central-1.pooler.example.net:6543/postgres"), places=URL_PLACES)),
    ("nosql_and_cache_uris", "log", fmt(uri("mongodb+srv://{u}:{s}@cluster{n}.ab1cd.mongodb.net/?retryWrites=true&w=majority"), uri("redis://:{s}@cache-{n}.internal:6379/0"),
                                        uri("rediss://default:{s}@eu1-wise-mole-3{n}123.upstash.io:6379"), uri("amqps://{u}:{s}@rabbit-{n}.mq.internal/vhost"), places=URL_PLACES)),
    ("other_service_uris", "log", fmt(uri("neo4j+s://neo4j:{s}@{n}a2b3c4d.databases.neo4j.io"), url_token("https://AC" + "0" * 2 + "{d}" + "0" * 12 + ":{s}@api.twilio.com/2010-04-01/Accounts.json", lambda: rnd(32, HEX)),
                                      uri("cloudinary://{n}{n}8475{n}3{n}17:{s}@acme", lambda: rnd(27, B64URL)), uri("ftp://{u}:{s}@files.example.net/outgoing/"), places=URL_PLACES)),
    ("signed_urls", "log", fmt(s3_presigned, gcs_signed, cloudfront_signed, azure_sas, places=URL_PLACES)),
]


# --- benign: high-entropy values that are not secrets -------------------------------------------

def ulid() -> str:
    return "01J" + "".join(_r.choice(CROCKFORD) for _ in range(23))


def ksuid() -> str:
    return "2" + rnd(26, ALNUM)


def sri(alg: str, n: int) -> str:
    return f"{alg}-{b64(n)}"


def eth() -> str:
    return "0x" + rnd(40, "0123456789abcdefABCDEF")


def place(*items: str) -> str:
    """A benign value in the same kinds of containers as the secrets."""
    v = pick(*items)
    return _r.choice([
        lambda: f"- {v}",
        lambda: json.dumps([v, pick("ok", "done", "v2")]),
        lambda: f"{user()},{v},{date()}",
        lambda: f"[{clock()}] {person()}: {v}",
        lambda: f"$ pbpaste\n{v}",
        lambda: f"| {pick('prod', 'staging')} | {v} | {date()} |",
        lambda: f"`{v}`",
        lambda: f"{stamp()} INFO processed {v}",
    ])()


BARE_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("git_shas", "log", lambda: pick(f"{rnd(40, HEX)}", f"commit {rnd(40, HEX)}\nMerge: {rnd(7, HEX)} {rnd(7, HEX)}",
                                       f"{rnd(7, HEX)} fix: retry on 503", f"- {rnd(12, HEX)} (HEAD -> main, origin/main)", f"git checkout {rnd(40, HEX)}")),
    ("uuids", "log", lambda: place(uuid(), uuid().upper(), "{" + uuid().upper() + "}", f"urn:uuid:{uuid()}")),
    ("ulids_and_ksuids", "log", lambda: place(ulid(), ksuid(), f"{ulid()},{ulid()}", ulid().lower())),
    ("trace_and_span_ids", "log", lambda: pick(f"00-{rnd(32, HEX)}-{rnd(16, HEX)}-01", f"trace {rnd(32, HEX)} span {rnd(16, HEX)}",
                                                 f"Root=1-{rnd(8, HEX)}-{rnd(24, HEX)};Parent={rnd(16, HEX)};Sampled=1", json.dumps([rnd(32, HEX), rnd(16, HEX)]),
                                                 f"b3: {rnd(32, HEX)}-{rnd(16, HEX)}-1")),
    ("request_ids", "log", lambda: place(f"req_{rnd(14, ALNUM)}", f"{rnd(16, HEX_UP)}", f"{rnd(16, HEX)}-AMS", f"{b64(48)}", f"rid-{rnd(20, LOWER_ALNUM)}")),
    ("vendor_object_ids", "log", lambda: place(f"cus_{rnd(14, ALNUM)}", f"pi_{rnd(24, ALNUM)}", f"evt_{rnd(24, ALNUM)}", f"chatcmpl-{rnd(29, ALNUM)}",
                                                 f"msg_01{rnd(22, ALNUM)}", f"file-{rnd(22, ALNUM)}", f"in_{rnd(24, ALNUM)}")),
    ("hex_content_hashes", "log", lambda: pick(f"{rnd(64, HEX)}  dist/app-{_r.randint(1, 9)}.{_r.randint(0, 30)}.0.tar.gz",
                                                 f"{rnd(32, HEX)}  README.md", f"SHA256 ({pick('app.zip', 'setup.exe')}) = {rnd(64, HEX)}",
                                                 place(rnd(64, HEX), rnd(40, HEX), rnd(128, HEX)))),
    ("base64_digests", "log", lambda: pick(f"Digest: sha-256={b64(32)}", f"x-goog-hash: crc32c={b64(4)},md5={b64(16)}",
                                             f"Content-MD5: {b64(16)}", place(f"sha256:{b64(32)}", f"md5-{b64(16)}"))),
    ("sri_hashes", "log", lambda: pick(f'<script src="https://cdn.example.com/lib.min.js" integrity="{sri("sha384", 48)}" crossorigin="anonymous"></script>',
                                         place(sri("sha384", 48), sri("sha256", 32)), f'<link rel="stylesheet" href="/app.css" integrity="{sri("sha512", 64)}">')),
    ("npm_integrity", "log", lambda: pick(f'"integrity": "{sri("sha512", 64)}"', f"  integrity {sri('sha512', 64)}",
                                            f'"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": "{sri("sha1", 20)}"',
                                            f"{pick('lodash', 'react', 'zod')}@{_r.randint(1, 18)}.{_r.randint(0, 20)}.{_r.randint(0, 9)}: {sri('sha512', 64)}")),
    ("go_and_pip_hashes", "log", lambda: pick(f"github.com/pkg/errors v0.9.1 h1:{b64(32)}", f"golang.org/x/sys v0.{_r.randint(1, 30)}.0/go.mod h1:{b64(32)}",
                                                f"requests==2.32.3 \\\n    --hash=sha256:{rnd(64, HEX)}", f"oid sha256:{rnd(64, HEX)}\nsize {_r.randint(1000, 99999)}")),
    ("docker_digests", "log", lambda: pick(f"ghcr.io/acme/api@sha256:{rnd(64, HEX)}", f"Digest: sha256:{rnd(64, HEX)}",
                                             f"postgres:16@sha256:{rnd(64, HEX)}", place(f"sha256:{rnd(64, HEX)}"), f"{rnd(12, HEX)}   {pick('2 days', '5 weeks')} ago   {_r.randint(20, 900)}MB")),
    ("public_ssh_keys", "log", lambda: pick(f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} {person()}@laptop",
                                              f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rnd(340, B64)}= deploy",
                                              f"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{rnd(87, B64)}= ci",
                                              f"- ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)}")),
    ("public_key_blocks", "log", lambda: pick("-----BEGIN PUBLIC KEY-----\n" + "\n".join(pem_body(294)) + "\n-----END PUBLIC KEY-----",
                                                "-----BEGIN CERTIFICATE-----\n" + "\n".join(pem_body(600)) + "\n-----END CERTIFICATE-----",
                                                f"age1{''.join(_r.choice(BECH32) for _ in range(58))}")),
    ("fingerprints", "log", lambda: pick(f"256 SHA256:{rnd(43, B64)} {person()}@laptop (ED25519)", f"SHA256 Fingerprint={':'.join(rnd(2, HEX_UP) for _ in range(32))}",
                                           f"MD5:{':'.join(rnd(2, HEX) for _ in range(16))}", f"Key fingerprint = {' '.join(rnd(4, HEX_UP) for _ in range(10))}",
                                           place(f"SHA256:{rnd(43, B64)}"))),
    ("base64_images", "log", lambda: pick(f'<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAA{rnd(200, B64)}==">', f"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ{rnd(180, B64)}",
                                            json.dumps({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo" + rnd(160, B64)}),
                                            f"url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci{rnd(60, B64)})")),
    ("ipfs_cids", "log", lambda: place("bafybei" + "".join(_r.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(52)),
                                         "Qm" + rnd(44, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"),
                                         "ipfs://bafkrei" + "".join(_r.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(52)))),
    ("crypto_addresses", "log", lambda: place(eth(), "bc1q" + "".join(_r.choice(BECH32) for _ in range(38)),
                                                "1" + rnd(33, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"), "0x" + rnd(64, HEX))),
    ("package_versions", "log", lambda: place(f"v{_r.randint(0, 9)}.{_r.randint(0, 40)}.{_r.randint(0, 9)}-rc.{_r.randint(1, 5)}+build.{_r.randint(100, 999)}",
                                                f"@acme/sdk@{_r.randint(1, 9)}.{_r.randint(0, 20)}.{_r.randint(0, 20)}", f"numpy-2.{_r.randint(0, 3)}.{_r.randint(0, 9)}-cp312-cp312-manylinux_2_17_x86_64.whl",
                                                f"1.{_r.randint(0, 9)}.0.dev{_r.randint(1, 99)}+g{rnd(9, HEX)}")),
    ("idempotency_keys", "log", lambda: place(uuid(), f"idem_{ulid()}", f"order-{digits(8)}-{rnd(8, HEX)}", f"{date()}-{uuid()}")),
    ("masked_values", "log", lambda: place("sk_live_" + "*" * 20 + rnd(4, ALNUM), "ghp_" + "\u2026" + "XXXX", "AKIA" + "*" * 12 + rnd(4, BASE32),
                                            "xoxb-****-****-****", "SG.****************", "glpat-" + "x" * 20, "npm_" + "•" * 8 + rnd(4, ALNUM))),
    ("s3_object_keys", "log", lambda: place(f"s3://acme-data/raw/{date()}/part-00000-{uuid()}.c000.snappy.parquet",
                                              f"uploads/{rnd(40, HEX)}/avatar.png", f"exports/{ulid()}.csv.gz", f"gs://acme-logs/{date()}/{rnd(16, HEX)}.json")),
    ("hashed_asset_names", "log", lambda: place(f"/static/js/main.{rnd(8, HEX)}.js", f"app-{rnd(20, HEX)}.css", f"chunk-{rnd(8, UPPER_ALNUM)}.mjs",
                                                  f"/_next/static/{rnd(21, B64URL)}/_buildManifest.js")),
    # Stripe: "Publishable keys ... are meant solely to identify your account with Stripe, they aren't secret"
    # (docs.stripe.com/keys); Mapbox: public tokens (pk.) are for client-side use; Clerk: publishable key.
    ("publishable_keys", "log", lambda: place(f"pk_live_51{rnd(97, ALNUM)}", f"pk_test_51{rnd(97, ALNUM)}",
                                                "pk.eyJ1IjoiYWNtZSIsImEiOiJj" + rnd(20, B64URL) + "." + rnd(22, B64URL),
                                                "pk_live_" + b64u("clerk.acme.com$".encode()))),
    ("k8s_and_cloud_ids", "log", lambda: place(f"api-{rnd(10, 'bcdfghjklmnpqrstvwxz2456789')}-{rnd(5, 'bcdfghjklmnpqrstvwxz2456789')}",
                                                 f"/subscriptions/{uuid()}/resourceGroups/prod-rg", f"arn:aws:secretsmanager:eu-west-1:{digits(12)}:secret:prod/db-{rnd(6, ALNUM)}",
                                                 f"i-{rnd(17, HEX)}", f"S-1-5-21-{digits(10)}-{digits(10)}-{digits(10)}-{_r.randint(1000, 9999)}")),
    ("etags", "log", lambda: pick(f'ETag: "{rnd(32, HEX)}"', f'ETag: W/"{_r.randint(100, 9999):x}-{rnd(27, B64URL)}"',
                                    f'"ETag": "\\"{rnd(32, HEX)}-{_r.randint(2, 40)}\\""', place(f'"{rnd(32, HEX)}"'))),
    ("event_and_error_ids", "log", lambda: place(rnd(32, HEX), f"{digits(19)}", f"evt-{rnd(20, HEX)}", f"Ray ID: {rnd(16, HEX)}")),
    ("base64_ordinary_data", "log", lambda: place(base64.b64encode(pick("hello world", "Content-Type: text/plain", "user=42&page=3", '{"page":3,"size":50}', "2025-11-03 backup done").encode()).decode(),
                                                    b64u(json.dumps({"cursor": _r.randint(100, 99999), "dir": "next"}).encode()))),
    ("uuid_lists_csv", "log", lambda: pick(f"id,created,status\n{uuid()},{date()},ok\n{uuid()},{date()},failed",
                                             json.dumps([uuid(), uuid(), uuid()]), f"- {uuid()}\n- {uuid()}", f"{digits(6)},{rnd(40, HEX)},{date()}")),
    ("timestamps_and_numbers", "log", lambda: place(f"{_r.randint(1_700_000_000_000, 1_760_000_000_000)}", f"{stamp()}", f"{digits(16)}",
                                                      f"+{digits(11)}", f"{_r.randint(10, 99)}.{digits(6)},{_r.randint(10, 99)}.{digits(6)}")),
]


def bare() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_16)
    return heldout._records(BARE_SECRETS, BARE_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = bare()
    heldout._write(HERE / "bare_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "bare_benign.jsonl.gz", benign_rows)
    print(f"bare: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
