"""A third held-out set, weighted to benign look-alikes: what real logs and MCP error texts carry
that *looks* like a secret and is not, and secrets in shapes the other sets lack.

    python -m tests.secret_corpus.lookalike   # rewrites lookalike_*.jsonl.gz here

Written before reading the scrubber's patterns in detail. Benign: ids, digests, request and trace
ids, base64 payloads, URLs with ordinary query strings and path ids, JWT headers alone, public keys
and certificates, ``token_type`` / ``expires_in`` / ``max_tokens`` / ``token_count``, placeholders
and templates, masked values, env and secret references, and config keys named like secrets whose
values are settings (``password_min_length: 12``, ``secret_rotation_days=30``, ``auth_method=oauth``,
``token_url=https://.../token``, ``api_key_header: X-API-Key``). Secrets: MCP tool arguments and
results, LLM provider keys, webhook and bot tokens, connection strings of other databases, TOML and
INI and properties files, HCL, XML, shell history, CI logs.

Same row format as ``../shared/corpus``; values are fake, from a fixed seed; 40 secret formats x 3
and 30 benign categories x 4. ``tests/test_scrub_lookalike.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, Maker, b64, kv, pick, pw, rnd, ts, uuid

_r = heldout._rng  # the helpers above draw from it: lookalike() seeds it


def _n(lo: int, hi: int) -> int:
    return _r.randint(lo, hi)


def jwt_header() -> str:
    return base64.urlsafe_b64encode(json.dumps({"alg": pick("RS256", "ES256", "HS256"), "typ": "JWT", "kid": rnd(8, HEX)}).encode()).decode().rstrip("=")


LOOKALIKE_SECRETS: list[tuple[str, str, Maker]] = [
    # MCP tool calls: arguments and results quoted in errors
    ("mcp_tool_args_api_key", "json", kv('{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {{"name": "search", "arguments": {{"query": "q", "apiKey": "{s}"}}}}}}', lambda: rnd(40))),
    ("mcp_error_data_password", "json", kv('{{"code": -32602, "message": "Invalid params", "data": {{"field": "dbPassword", "value": "{s}"}}}}', pw)),
    ("mcp_tool_result_text_token", "json", kv('{{"content": [{{"type": "text", "text": "created deploy key; token is {s}"}}], "isError": false}}', lambda: "dk_" + rnd(40))),
    ("mcp_env_stdio_server", "json", kv('{{"mcpServers": {{"github": {{"command": "npx", "env": {{"GITHUB_PERSONAL_ACCESS_TOKEN": "{s}"}}}}}}}}', lambda: "github_pat_" + rnd(22) + "_" + rnd(59))),
    # LLM and SaaS keys
    ("anthropic_key_plain", "log", kv("{ts} ERROR anthropic: 401 invalid x-api-key {s}", lambda: "sk-ant-api03-" + rnd(93, B64URL) + "AA")),
    ("openai_project_key", "exception", kv("openai.AuthenticationError: Incorrect API key provided: {s}.", lambda: "sk-proj-" + rnd(48, B64URL))),
    ("huggingface_token", "log", kv("{ts} huggingface_hub: using token {s} from HF_TOKEN", lambda: "hf_" + rnd(34))),
    ("slack_bot_token", "log", kv("slack_sdk.errors.SlackApiError: invalid_auth (token={s})", lambda: f"xoxb-{_n(10**10, 10**11)}-{_n(10**12, 10**13)}-{rnd(24)}")),
    ("discord_webhook_url", "url", kv("POST https://discord.com/api/webhooks/{s} 404", lambda: f"{_n(10**17, 10**18)}/{rnd(68, B64URL)}")),
    ("telegram_bot_url", "url", kv("httpx.HTTPStatusError: 401 for https://api.telegram.org/bot{s}/sendMessage", lambda: f"{_n(10**9, 10**10)}:{rnd(35, B64URL)}")),
    ("sendgrid_key", "log", kv("SENDGRID_API_KEY={s}", lambda: "SG." + rnd(22, B64URL) + "." + rnd(43, B64URL))),
    ("stripe_restricted_key", "exception", kv("stripe.error.AuthenticationError: Invalid API Key provided: {s}", lambda: "rk_live_" + rnd(99))),
    ("datadog_api_key_header", "header", kv("DD-API-KEY: {s}", lambda: rnd(32, HEX))),
    ("azure_storage_conn", "log", kv("ValueError: connection string DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey={s};EndpointSuffix=core.windows.net", lambda: b64(64))),
    # databases and brokers
    ("amqp_url", "exception", kv("pika.exceptions.AMQPConnectionError: amqps://svc:{s}@mq.internal:5671/%2F", pw)),
    ("mssql_odbc_pwd", "exception", kv("pyodbc.Error: ('28000', 'Login failed') DRIVER={{ODBC Driver 18}};SERVER=sql1;UID=app;PWD={s};Encrypt=yes", pw)),
    ("oracle_connect_slash", "log", kv("+ sqlplus system/{s}@//ora1:1521/ORCLPDB1", pw)),
    ("kafka_sasl_jaas", "log", kv('sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="svc" password="{s}";', pw)),
    ("clickhouse_header_key", "header", kv("X-ClickHouse-Key: {s}", pw)),
    # config files of other shapes
    ("toml_token", "log", kv('[tool.poetry.http-basic.internal]\nusername = "ci"\npassword = "{s}"', pw)),
    ("ini_secret_access", "log", kv("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {s}", lambda: rnd(40, ALNUM + "/+"))),
    ("java_properties_secret", "log", kv("mail.smtp.password={s}", pw)),
    ("hcl_variable_default", "log", kv('variable "db" {{ default = {{ password = "{s}" }} }}', pw)),
    ("xml_password_element", "log", kv("<server><id>nexus</id><username>deploy</username><password>{s}</password></server>", pw)),
    ("xml_attribute_secret", "log", kv('<add key="ClientSecret" value="{s}" />', lambda: rnd(34, ALNUM + "~._-"))),
    ("yaml_nested_client_secret", "log", kv("oauth:\n  google:\n    client_id: 1234-abc.apps.googleusercontent.com\n    client_secret: {s}", lambda: "GOCSPX-" + rnd(28, B64URL))),
    # shell and CI
    ("shell_history_export", "log", kv("  512  export OPENAI_API_KEY={s}", lambda: "sk-" + rnd(48))),
    ("gh_actions_echo_token", "log", kv("Run echo \"token=${{{{ secrets.T }}}}\" -> token={s}", lambda: "ghp_" + rnd(36))),
    ("curl_header_flag", "log", kv("+ curl -H 'X-Auth-Token: {s}' https://api.internal/v1/ping", lambda: rnd(32, HEX))),
    ("http_basic_header", "header", kv("Authorization: Basic {s}", lambda: base64.b64encode(f"svc:{pw()}".encode()).decode())),
    ("bearer_lowercase_header", "header", kv("authorization: bearer {s}", lambda: rnd(40, B64URL))),
    ("full_jwt_in_error", "exception", kv("jwt.exceptions.ExpiredSignatureError: Signature has expired for {s}", lambda: jwt_header() + "." + rnd(60, B64URL) + "." + rnd(43, B64URL))),
    # unusual key names and placements
    ("api_secret_camel", "json", kv('{{"apiSecret": "{s}", "region": "eu"}}', lambda: rnd(32))),
    ("session_secret_env", "log", kv("SESSION_SECRET={s}", lambda: rnd(64, HEX))),
    ("encryption_key_hex", "log", kv("{ts} ERROR crypto: bad tag; ENCRYPTION_KEY={s}", lambda: rnd(64, HEX))),
    ("webhook_secret_whsec", "log", kv("stripe: No signatures found; STRIPE_WEBHOOK_SECRET={s}", lambda: "whsec_" + rnd(32))),
    ("signing_key_colon", "log", kv("signing_key: {s}", lambda: b64(32))),
    ("private_key_pkcs1", "log", kv("-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----", lambda: "MIIEow" + rnd(64, B64))),
    ("credentials_url_userinfo_ftp", "url", kv("ftp://backup:{s}@ftp.example.com/dumps/", pw)),
    ("passwd_short_key", "log", kv("{ts} WARN auth: retry with pwd={s}", pw)),
]

LOOKALIKE_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # config keys named like secrets with non-secret values
    ("password_policy_numbers", "log", lambda: pick(f"password_min_length: {_n(8, 16)}", f"PASSWORD_MAX_AGE_DAYS={_n(30, 365)}", f"password_history_count = {_n(3, 24)}", f"min_password_length={_n(8, 14)}")),
    ("secret_rotation_settings", "log", lambda: pick(f"secret_rotation_days={_n(7, 90)}", f"SECRET_TTL_SECONDS={_n(60, 86400)}", f"token_lifetime_minutes: {_n(5, 120)}", f"api_key_expiry_days: {_n(30, 400)}")),
    ("auth_method_words", "log", lambda: pick("auth_method=oauth", "auth_type: bearer", "token_auth_scheme=Bearer", "password_hash_algorithm: argon2id")),
    ("token_urls", "log", lambda: pick("token_url=https://auth.example.com/oauth/token", "TOKEN_ENDPOINT=https://login.example.org/oauth2/v2.0/token", "token_uri: https://oauth2.googleapis.com/token", "jwks_uri=https://auth.example.com/.well-known/jwks.json")),
    ("api_key_header_names", "log", lambda: pick("api_key_header: X-API-Key", "API_KEY_HEADER=Authorization", "token_header_name: X-Auth-Token", "secret_header = X-Hub-Signature-256")),
    ("secret_booleans", "log", lambda: pick("password_required: true", "REQUIRE_API_KEY=false", "token_refresh_enabled=True", "secret_scanning: disabled")),
    ("secret_paths", "log", lambda: pick("password_file=/run/secrets/db_password", "SECRET_KEY_PATH=/etc/app/secret.key", "token_path: /var/run/secrets/tokens/vault-token", "credentials_file = ~/.aws/credentials")),
    ("secret_names_refs", "log", lambda: pick("secret_name: prod/db/credentials", "TOKEN_SECRET_NAME=github-app-token", "password_secret_ref: db-password", "api_key_env: OPENAI_API_KEY")),
    # LLM and MCP usage fields
    ("llm_token_usage", "json", lambda: f'{{"usage": {{"input_tokens": {_n(10, 9000)}, "output_tokens": {_n(10, 4000)}}}, "max_tokens": {pick("1024", "4096", "8192")}, "stop_reason": "max_tokens"}}'),
    ("token_counts_log", "log", lambda: f"{ts()} INFO llm: token_count={_n(100, 99999)} prompt_tokens={_n(10, 5000)} completion_tokens={_n(1, 900)} max_tokens={_n(256, 8192)}"),
    ("oauth_token_metadata", "json", lambda: pick(f'{{"token_type": "Bearer", "expires_in": {_n(300, 86400)}, "scope": "read write"}}', f'{{"token_type_hint": "refresh_token", "expires_at": {_n(10**9, 2 * 10**9)}}}', '{"grant_type": "refresh_token", "client_id": "web-app"}', '{"id_token_signing_alg_values_supported": ["RS256"], "token_endpoint": "https://auth.example.com/token"}')),
    ("mcp_progress_tokens", "json", lambda: pick(f'{{"method": "notifications/progress", "params": {{"progressToken": {_n(1, 999)}, "progress": {_n(1, 99)}}}}}', f'{{"method": "notifications/progress", "params": {{"progressToken": "{uuid()}", "progress": 0.5}}}}', f'{{"nextCursor": "{rnd(24, B64URL)}"}}', f'{{"jsonrpc": "2.0", "id": "{uuid()}", "result": {{"tools": []}}}}')),
    # ids, digests and request ids
    ("request_trace_ids", "log", lambda: f"{ts()} ERROR request_id={uuid()} trace_id={rnd(32, HEX)} span_id={rnd(16, HEX)} status=500"),
    ("cloud_request_ids", "header", lambda: pick(f"x-amz-request-id: {rnd(16, '0123456789ABCDEF')}", f"x-amz-id-2: {rnd(76, B64)}", f"x-ms-request-id: {uuid()}", f"cf-ray: {rnd(16, HEX)}-FRA")),
    ("content_digests", "header", lambda: pick(f"Digest: sha-256={b64(32)}", f"Content-MD5: {b64(16)}", f"x-goog-hash: crc32c={b64(4)},md5={b64(16)}", f"Integrity: sha512-{b64(64)}")),
    ("hash_ids", "log", lambda: pick(f"commit {rnd(40, HEX)}", f"blob sha={rnd(40, HEX)} size={_n(10, 9999)}", f"cache key: pip-{rnd(64, HEX)}", f"npm WARN tarball integrity sha1-{b64(20)}")),
    ("session_and_object_ids", "log", lambda: pick(f"session_id={rnd(24, LOWER_ALNUM)} user_id={_n(1, 10**6)}", f"object id ObjectId('{rnd(24, HEX)}') not found", f"stripe: customer cus_{rnd(14)} has no default card", f"order_id=ord_{rnd(20, LOWER_ALNUM)}")),
    # base64 payloads, urls
    ("base64_payloads", "json", lambda: pick(f'{{"data": "{b64(48)}", "encoding": "base64", "mimeType": "application/octet-stream"}}', f'{{"type": "image", "data": "{b64(60)}", "mimeType": "image/png"}}', f'{{"blob": "{b64(36)}"}}', f"message body (base64): {b64(45)}")),
    ("urls_query_strings", "url", lambda: pick(f"GET https://api.example.com/v2/search?q=tokens&page={_n(1, 9)}&per_page=50 200", f"GET /api/items?cursor={rnd(20, B64URL)}&limit=100 200", f"https://github.com/acme/app/pull/{_n(1, 9999)}/files?diff=split", "https://example.com/reset?utm_source=mail&utm_campaign=password_reset")),
    ("urls_path_ids", "url", lambda: pick(f"DELETE https://api.example.com/v1/api_keys/{uuid()} 204", f"GET /v1/tokens/{rnd(12, LOWER_ALNUM)}/usage 404", f"https://console.cloud.google.com/security/secret-manager/secret/db-pass/versions/{_n(1, 20)}", f"PATCH /users/{_n(1, 10**6)}/password 422")),
    # keys, certs, jwt headers
    ("jwt_header_alone", "log", lambda: f"{ts()} DEBUG jwt header {jwt_header()} has unknown kid"),
    ("public_keys", "log", lambda: pick(f"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{rnd(64, B64)}\n-----END PUBLIC KEY-----", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rnd(60, B64)} deploy@ci", f"public_key: {b64(32)}", f'"publicKey": "{b64(65)}"')),
    ("certificates", "log", lambda: f"-----BEGIN CERTIFICATE-----\nMIID{rnd(64, B64)}\n-----END CERTIFICATE-----"),
    ("key_fingerprints", "log", lambda: pick(f"Server host key fingerprint SHA256:{b64(32).rstrip('=')}", f"gpg: using RSA key {rnd(40, '0123456789ABCDEF')}", f"key_id: {rnd(16, '0123456789ABCDEF')}", f"kid={uuid()}")),
    # placeholders, masks, references
    ("placeholders_templates", "log", lambda: pick("password: {{ .Values.db.password }}", "API_KEY=<insert-key>", "token: ${TOKEN}", "client_secret={{CLIENT_SECRET}}")),
    ("masked_secrets", "log", lambda: pick("password=xxxxxxxx", f"api_key=sk-...{rnd(4)}", "token: ****************", "secret=[REDACTED]")),
    ("env_and_secret_refs", "log", lambda: pick("API_KEY=${{ secrets.API_KEY }}", "password: ${env:DB_PASSWORD}", "token: {{ vault \"secret/app\" \"token\" }}", "DB_PASSWORD_FILE=/run/secrets/db")),
    ("error_messages_about_secrets", "exception", lambda: pick("ValueError: password must be at least 12 characters", "KeyError: 'api_key'", "missing required secret: STRIPE_KEY", "TokenExpiredError: token expired at 2025-01-01T00:00:00Z")),
    # prose and code identifiers
    ("code_identifiers", "exception", lambda: pick("AttributeError: 'Settings' object has no attribute 'api_key_header'", "File \"/app/auth.py\", line 42, in refresh_access_token", "NameError: name 'secret_manager' is not defined", "TypeError: get_token() missing 1 required positional argument: 'scope'")),
    ("version_and_build_strings", "log", lambda: f"build {rnd(7, HEX)} version={_n(1, 9)}.{_n(0, 30)}.{_n(0, 99)}+sha.{rnd(12, HEX)} node=v{_n(18, 22)}.{_n(0, 12)}.0"),
]


def lookalike() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(13131313)
    return heldout._records(LOOKALIKE_SECRETS, LOOKALIKE_BENIGN, 3, 4)


def main() -> None:
    secrets, benign_rows = lookalike()
    heldout._write(HERE / "lookalike_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "lookalike_benign.jsonl.gz", benign_rows)
    print(f"lookalike: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
