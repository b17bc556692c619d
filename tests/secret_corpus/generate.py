"""Generate errscope's extension of the shared secret corpus: the kinds issue #13 lists.

    python -m tests.secret_corpus.generate   # rewrites secrets.jsonl.gz and benign.jsonl.gz here

Same format as ../shared/corpus (README there): one JSON object per line, gzip-compressed so secret
scanners do not flag the files. Every value is fake and generated from a fixed seed, but
format-valid (prefixes, lengths, alphabets). Secrets are grouped by *kind* (a key name with text
after the secret word, an unusual Authorization scheme, a webhook path, a connection-string value
with ``;&$`` and quotes, an unknown prefixed token, a multi-line value); benign lines are the
look-alikes a scrubber must leave exactly as they are (masked values, DSNs without a password,
ids, digests, base64 of public data, long identifiers in paths, secret-sounding keys with
harmless values).
"""

from __future__ import annotations

import gzip
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
INSTANCES = 5
_rng = random.Random(13)

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


def rnd(n: int, alphabet: str = ALNUM) -> str:
    """Random characters with at least one digit and one of each letter case the alphabet has."""
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        has_upper = any(c.isupper() for c in value) or not any(c.isupper() for c in alphabet)
        has_lower = any(c.islower() for c in value) or not any(c.islower() for c in alphabet)
        if any(c.isdigit() for c in value) and has_upper and has_lower:
            return value


def password(specials: str = "&$!#%^*") -> str:
    """A password with the characters that end values early in naive scrubbers (``&``, ``$``)."""
    words = ["Quartz", "Willow", "Ember", "Falcon", "Harbor", "Cinder", "Maple", "Orbit"]
    return f"{_rng.choice(words)}{_rng.randint(10, 99)}{_rng.choice(specials)}{_rng.choice(words).lower()}{_rng.choice(specials)}{_rng.randint(100, 999)}"


def uuid() -> str:
    h = rnd(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def ts() -> str:
    return f"2024-0{_rng.randint(5, 6)}-{_rng.randint(10, 28)}T{_rng.randint(10, 23)}:{_rng.randint(10, 59)}:{_rng.randint(10, 59)}.{_rng.randint(100, 999)}Z"


def host() -> str:
    return _rng.choice(["api.vendor.example", "partner-gw.svc.test", "hooks.example.net", "ingest.internal.example"])


def raw_request(header: str) -> str:
    return (
        f"send: b'POST /v2/events HTTP/1.1\\r\\nHost: {host()}\\r\\nUser-Agent: python-requests/2.31.0\\r\\n"
        f"Accept: */*\\r\\n{header}\\r\\nContent-Length: 2\\r\\n\\r\\n'"
    )


# --- secrets: (format, context, maker) where maker returns (secret, text) -----------------------------

SecretMaker = Callable[[], tuple[str, str]]


def _compound(key: str, length: int = 32, alphabet: str = ALNUM) -> SecretMaker:
    def make() -> tuple[str, str]:
        secret = rnd(length, alphabet)
        shape = _rng.choice([f"{key}={secret}", f'"{key}": "{secret}"', f"'{key}': '{secret}'", f"{key}: {secret}"])
        return secret, f"{ts()} ERROR [config] settings rejected: {shape} region=eu-west-1"

    return make


def _auth_scheme(scheme: str, length: int, alphabet: str = ALNUM, prefix: str = "") -> SecretMaker:
    def make() -> tuple[str, str]:
        secret = prefix + rnd(length, alphabet)
        return secret, raw_request(f"Authorization: {scheme} {secret}")

    return make


def _webhook(build: Callable[[], tuple[str, str]]) -> SecretMaker:
    def make() -> tuple[str, str]:
        secret, url = build()
        return secret, _rng.choice(
            [
                f"httpx.HTTPStatusError: Client error '404 Not Found' for url '{url}'",
                f"{ts()} WARNING [notifier] webhook delivery failed url={url} attempt=3",
                f"requests.exceptions.ConnectionError: HTTPSConnectionPool: Max retries exceeded with url: {url}",
            ]
        )

    return make


def _slack() -> tuple[str, str]:
    secret = rnd(24)
    return secret, f"https://hooks.slack.com/services/T{rnd(8, string.ascii_uppercase + string.digits)}/B{rnd(10, string.ascii_uppercase + string.digits)}/{secret}"


def _discord() -> tuple[str, str]:
    secret = rnd(68, B64URL)
    return secret, f"https://discord.com/api/webhooks/{_rng.randint(10**17, 10**18 - 1)}/{secret}"


def _teams() -> tuple[str, str]:
    secret = rnd(32, HEX)
    return secret, f"https://acme.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{secret}/{uuid()}"


def _mattermost() -> tuple[str, str]:
    secret = rnd(26, LOWER_ALNUM)
    return secret, f"https://chat.internal.example/hooks/{secret}"


def _generic_hook() -> tuple[str, str]:
    secret = rnd(40)
    return secret, f"https://events.vendor.example/webhook/{secret}?source=orders"


def _conn(template: str) -> SecretMaker:
    def make() -> tuple[str, str]:
        secret = password()
        return secret, template.format(pw=secret)

    return make


def _quoted_conn(template: str, quote: str) -> SecretMaker:
    def make() -> tuple[str, str]:
        inner = password("&$;!#'\"").replace("}", "")
        if quote == "{":  # ODBC: braces, a closing brace doubled
            return inner, template.format(pw="{" + inner + "}")
        escaped = inner.replace(quote, quote * 2)  # ADO: the quote character doubled
        return escaped, template.format(pw=f"{quote}{escaped}{quote}")

    return make


def _prefixed(prefix: str, length: int, alphabet: str = ALNUM) -> SecretMaker:
    def make() -> tuple[str, str]:
        secret = prefix + rnd(length, alphabet)
        return secret, _rng.choice(
            [
                f"{ts()} CRITICAL [bootstrap] startup aborted, environment: TZ=UTC VENDOR_CREDENTIAL={secret} PYTHONUNBUFFERED=1",
                f"subprocess.CalledProcessError: Command '['vendor-cli', 'login', '--with', '{secret}']' returned non-zero exit status 1.",
                f"upstream returned HTTP 401: {{\"error\": \"invalid credential {secret}\"}}",
            ]
        )

    return make


def _multiline(template: str, length: int = 24) -> SecretMaker:
    def make() -> tuple[str, str]:
        secret = rnd(length)
        return secret, template.format(secret=secret)

    return make


SECRET_FORMATS: list[tuple[str, str, SecretMaker]] = [
    # key names with text after the secret word, camelCase, vendor words
    ("compound_key_client_secret_v2", "log", _compound("client_secret_v2")),
    ("compound_key_my_client_secret_value", "log", _compound("my_client_secret_value")),
    ("compound_key_token_value", "json", _compound("token_value", 40)),
    ("compound_key_auth_token_v2", "log", _compound("auth_token_v2")),
    ("compound_key_camel_case", "json", _compound("apiSecretValue", 36)),
    ("vendor_key_routing_key", "json", _compound("routing_key", 32, HEX)),
    ("vendor_key_write_key", "log", _compound("segment_write_key", 32)),
    ("vendor_key_header", "header", _compound("X-Vendor-Signing-Key", 40)),
    # any Authorization scheme, inside a printed raw HTTP request
    ("authorization_bot", "header", _auth_scheme("Bot", 59, B64URL)),
    ("authorization_token", "header", _auth_scheme("Token", 40, HEX)),
    ("authorization_ssws", "header", _auth_scheme("SSWS", 40, B64URL, prefix="00")),
    ("authorization_apikey", "header", _auth_scheme("ApiKey", 48)),
    ("authorization_custom_scheme", "header", _auth_scheme("Vendor-HMAC", 44)),
    # secrets as URL path segments
    ("webhook_slack", "url", _webhook(_slack)),
    ("webhook_discord", "url", _webhook(_discord)),
    ("webhook_teams", "url", _webhook(_teams)),
    ("webhook_mattermost", "url", _webhook(_mattermost)),
    ("webhook_generic", "url", _webhook(_generic_hook)),
    # keyword connection strings: values with ; & $ and quotes
    ("odbc_pwd_bare", "exception", _conn("pyodbc.InterfaceError: ('28000', 'Login failed') DSN=Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql-01.internal.example,1433;Uid=svc_orders;Pwd={pw};Encrypt=yes")),
    ("odbc_pwd_braced", "exception", _quoted_conn("pyodbc.Error: connect failed: Driver={{ODBC Driver 18}};Server=sql-02;Database=sales;UID=sa;PWD={pw};TrustServerCertificate=yes", "{")),
    ("ado_password_double_quoted", "log", _quoted_conn("connection string rejected: Data Source=db.internal.example;Initial Catalog=orders;User ID=app;Password={pw};Pooling=true", '"')),
    ("ado_password_single_quoted", "log", _quoted_conn("connection string rejected: Server=db;User Id=app;Password={pw};", "'")),
    ("jdbc_sqlserver_password", "exception", _conn("com.microsoft.sqlserver.jdbc.SQLServerException: jdbc:sqlserver://sql-03.internal.example:1433;databaseName=events;user=etl;password={pw};encrypt=true")),
    ("keyword_pwd_first", "log", _conn("{ts} ERROR [etl] cannot open Pwd={pw};Server=sql-04;Uid=etl".replace("{ts}", "2024-06-01T10:00:00.000Z"))),
    # unknown fixed-prefix tokens and short sk- tokens
    ("unknown_prefix_live", "log", _prefixed("zvx_live_", 32)),
    ("unknown_prefix_pat", "exception", _prefixed("qmt_pat_", 40)),
    ("unknown_prefix_dash", "log", _prefixed("vndr-", 44)),
    ("unknown_prefix_two_words", "exception", _prefixed("orbit_api_", 36)),
    ("short_sk_token", "log", _prefixed("sk-", 16)),
    # multi-line values
    ("yaml_multiline_password", "log", _multiline("could not parse config (line 4):\ndatabase:\n  password:\n    {secret}\n  host: db")),
    ("yaml_block_scalar_token", "log", _multiline("values.yaml rejected:\napi_token: |\n  {secret}\nreplicas: 2", 40)),
    ("json_pretty_secret", "json", _multiline('{{\n  "client_secret_v2": "{secret}",\n  "region": "eu"\n}}', 36)),
]


# --- benign look-alikes -----------------------------------------------------------------------------------

BenignMaker = Callable[[], str]

BENIGN_FORMATS: list[tuple[str, str, BenignMaker]] = [
    ("masked_userinfo", "url", lambda: f"{ts()} ERROR [db] pool init failed DATABASE_URL=postgresql://app:***@db-{_rng.randint(1, 9)}.internal.example:5432/orders"),
    ("masked_authorization", "header", lambda: f"HTTP/1.1 401 Unauthorized\nrequest headers: Authorization: {_rng.choice(['****', 'Bearer ****', 'Bearer [REDACTED]', '<redacted>'])}\nX-Request-ID: {uuid()}"),
    ("masked_key_values", "log", lambda: f"{ts()} INFO [config] loaded password={_rng.choice(['***', '********', '[REDACTED]', '<redacted>'])} api_key={_rng.choice(['***', '[REDACTED]', '<redacted>'])} retries={_rng.randint(1, 5)}"),
    ("dsn_user_no_password", "url", lambda: f"{ts()} WARNING [db] retrying connection to {_rng.choice(['postgresql', 'mysql', 'redis', 'mongodb'])}://{_rng.choice(['app', 'reporting_user', 'svc_reader', 'analytics_readonly'])}@{_rng.choice(['db', 'db-primary.internal.example', 'cache.svc.test'])}:{_rng.choice([5432, 3306, 6379])}/{_rng.choice(['x', 'orders', 'sales'])}"),
    ("trace_ids_in_kv", "log", lambda: f"{ts()} ERROR [orders] upstream failed trace_id={rnd(32, HEX)} span_id={rnd(16, HEX)} correlation_id={uuid()}"),
    ("digests_and_shas", "log", lambda: f"verified artifact sha256={rnd(64, HEX)} git_commit={rnd(40, HEX)} etag=\"{rnd(32, HEX)}\""),
    ("base64_public_data", "json", lambda: f'{{"avatar_hint": "{_rng.choice(["SGVsbG8sIHdvcmxkIQ==", "dGhlIHF1aWNrIGJyb3duIGZveA==", "b3JkZXJzLWV4cG9ydC0yMDI0LTA2"])}", "cursor": "{_rng.choice(["eyJwYWdlIjogMn0=", "eyJvZmZzZXQiOiA0MH0="])}"}}'),
    ("long_identifiers_in_paths", "exception", lambda: f"FileNotFoundError: [Errno 2] No such file or directory: '/var/lib/app/token_cache/{rnd(32, HEX)}.json'"),
    ("secret_words_in_paths", "url", lambda: f"{ts()} INFO [gw] GET /api/v1/auth/session_tokens/refresh_handler_v{_rng.randint(2, 9)} 200 {_rng.randint(3, 90)}ms"),
    ("secret_keys_harmless_values", "log", lambda: f"{ts()} INFO [auth] password_policy=strict session_timeout={_rng.randint(300, 7200)} key_rotation_days={_rng.randint(30, 90)} auth_method=oauth2 max_tokens={_rng.randint(512, 8192)}"),
    ("token_counts_prose", "log", lambda: f"{ts()} INFO [llm] prompt used {_rng.randint(100, 9000)} tokens; token budget remaining {_rng.randint(100, 9000)}; cache key hit ratio 0.{_rng.randint(10, 99)}"),
    ("benign_webhook_paths", "url", lambda: f"{ts()} INFO [gw] POST https://hooks.example.com/{_rng.choice(['services/orders/status', 'webhook/github', 'hooks/pre-deploy', 'integrations/slack/install'])} 202"),
    ("uuids_in_paths", "url", lambda: f"{ts()} INFO [api] GET /v1/orders/{uuid()}/items/{uuid()} 200"),
    ("object_ids", "log", lambda: f"{ts()} INFO [billing] charge ch_{rnd(24)} for customer cus_{rnd(14)} refunded"),
    ("k8s_and_versions", "log", lambda: f"pod/checkout-{rnd(9, LOWER_ALNUM)}-{rnd(5, LOWER_ALNUM)} image=registry.example.com/checkout:v{_rng.randint(1, 9)}.{_rng.randint(0, 30)}.{_rng.randint(0, 9)} restartCount={_rng.randint(0, 9)}"),
    ("placeholders", "log", lambda: _rng.choice(["password=${DB_PASSWORD}", "token: {{ secrets.API_TOKEN }}", "api_key=<your-api-key>", "client_secret=%(client_secret)s", "Authorization: Bearer ${TOKEN}"])),
]


def _records() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    secrets = []
    for name, context, make in SECRET_FORMATS:
        for _ in range(INSTANCES):
            secret, text = make()
            assert secret in text, (name, secret, text)
            secrets.append({"format": name, "secret": secret, "text": text, "context": context})
    benign = [
        {"category": name, "text": make(), "context": context} for name, context, make in BENIGN_FORMATS for _ in range(INSTANCES)
    ]
    return secrets, benign


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    # mtime=0: the same rows give the same bytes, so regenerating shows no diff
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode())


def main() -> None:
    secrets, benign = _records()
    _write(HERE / "secrets.jsonl.gz", secrets)
    _write(HERE / "benign.jsonl.gz", benign)
    print(f"wrote {len(secrets)} secret and {len(benign)} benign lines to {HERE}")


if __name__ == "__main__":
    main()
