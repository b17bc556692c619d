"""errscope.scrub: one example per pattern (the table covers PATTERNS exactly), the shared corpus,
RE2 compatibility, URLs/DSNs, bounded output and odd input.

Example secrets are built at run time from a deterministic generator, so this file holds no
token-shaped literals for secret scanners to flag; they are fresh (not corpus lines).
"""

from __future__ import annotations

import base64
import functools
import random
import re
import string
import time

import errscope
import pytest
import re2
from errscope._patterns import PATTERNS, REDACTED, combined_regex, combined_replacement
from errscope._scrub_values import scrub_value
from errscope._scrubbing import MAX_SCRUB_CHARS, SAFE_KEYS, scrub

from tests import corpus
from tests.conftest import require

_rng = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def t(n: int, alphabet: str = ALNUM) -> str:
    """n pseudo-random characters (deterministic per run order), always with a digit and a capital."""
    body = "".join(_rng.choice(alphabet) for _ in range(n))
    if alphabet in (ALNUM, B64, URLSAFE) and n >= 4:
        body = "Q7" + body[2:]
    return body


PEM = (
    "-----BEGIN EC PRIVATE KEY-----\n"
    + t(64, B64)
    + "\n"
    + t(64, B64)
    + "\n"
    + t(20, B64)
    + "==\n"
    "-----END EC PRIVATE KEY-----"
)

# name -> (text, expected scrubbed text). Must cover PATTERNS exactly (test_examples_cover_patterns).
EXAMPLES: dict[str, tuple[str, str]] = {}


def example(name: str, text: str, expected: str) -> None:
    EXAMPLES[name] = (text, expected)


def leak(
    name: str, secret: str, before: str = "upstream said: ", after: str = " (retrying)"
) -> None:
    """A provider token in free text: replaced whole, the words around it kept."""
    example(name, before + secret + after, before + REDACTED + after)


example(
    "private_key_block",
    f"ssh-add failed:\n{PEM}\nretrying",
    f"ssh-add failed:\n{REDACTED}\nretrying",
)
_jwt = "eyJhbGciOiJFUzI1NiJ9." + "eyJzdWIiOiJ1XzEyMyIsImV4cCI6MTc2fQ." + t(43, URLSAFE)
example("jwt", f"cookie sid={_jwt}; Path=/", f"cookie sid={REDACTED}; Path=/")
example(
    "uri_userinfo_password",
    "could not connect to mysql://report:Plum-42-tree@db-3.example.test:3306/sales",
    f"could not connect to mysql://{REDACTED}@db-3.example.test:3306/sales",
)
_user_token = t(40)
example(
    "uri_userinfo_token",
    f"git clone https://{_user_token}@git.example.test/team/repo.git failed",
    f"git clone https://{REDACTED}@git.example.test/team/repo.git failed",
)
_tok = t(32)
example(
    "authorization_header",
    f"headers={{'Authorization': 'Token {_tok}'}}",
    f"headers={{'Authorization': 'Token {REDACTED}'}}",
)
_tok2 = t(32, URLSAFE)
example(
    "authorization_header_bare",
    f"authorization={_tok2} method=GET",
    f"authorization={REDACTED} method=GET",
)
_tok3 = t(40, URLSAFE)
example(
    "bearer_token",
    f"retrying with bearer {_tok3} after 401",
    f"retrying with bearer {REDACTED} after 401",
)
example(
    "negotiate_token_bare",
    "authenticate_user(): Authorization header: Negotiate YIIBmwYGKwYBBQUCoIIBjzCCAYugMDAuBgkqhkiG9xIBAgIGCSqGSIb3EgECAg",
    f"authenticate_user(): Authorization header: Negotiate {REDACTED}",
)
example(
    "basic_credentials_bare",
    '10.0.4.7 - - [02/Dec/2025:12:00:01 +0000] "GET /metrics HTTP/1.1" 200 512 "-" "Basic ZXRsOkZha2VRdTFjay1Ccm93bg=="',
    f'10.0.4.7 - - [02/Dec/2025:12:00:01 +0000] "GET /metrics HTTP/1.1" 200 512 "-" "Basic {REDACTED}"',
)
example(
    "password_value",
    "host=db.example.test port=5432 user=etl password=Qu1ck-Brown dbname=sales",
    f"host=db.example.test port=5432 user=etl password={REDACTED} dbname=sales",
)
_sas = t(43, B64) + "="
example(
    "token_value",
    f"Endpoint=sb://bus.example.test/;SharedAccessKeyName=send;SharedAccessKey={_sas};EntityPath=q",
    f"Endpoint=sb://bus.example.test/;SharedAccessKeyName=send;SharedAccessKey={REDACTED};EntityPath=q",
)
_refresh = t(48, URLSAFE)
_auth = t(36)
# More shapes of the two keyword patterns (quoted, escaped, listed, env, headers): test_keyword_shapes.
KEYWORD_SHAPES = [
    (
        '{"db_password": "Fern!Stone#77", "user": "etl"}',
        f'{{"db_password": "{REDACTED}", "user": "etl"}}',
    ),
    (
        "{'passphrase': 'correct horse battery staple'}",
        f"{{'passphrase': '{REDACTED}'}}",
    ),
    ('{\\"password\\":\\"Fern!Stone#77\\"}', f'{{\\"password\\":\\"{REDACTED}\\"}}'),
    ("PGPASSWORD=Tr(4)nsit! psql -h db", f"PGPASSWORD={REDACTED} psql -h db"),
    (
        f'{{"refresh_token": "{_refresh}", "expires_in": 3600}}',
        f'{{"refresh_token": "{REDACTED}", "expires_in": 3600}}',
    ),
    (
        f"{{'X-Auth-Token': '{_auth}', 'Accept': '*/*'}}",
        f"{{'X-Auth-Token': '{REDACTED}', 'Accept': '*/*'}}",
    ),
    (
        f"http.request.header.x-api-key=['{_auth}']",
        f"http.request.header.x-api-key=['{REDACTED}']",
    ),
    (f"X-Api-Key: {_auth}\r\nAccept: */*", f"X-Api-Key: {REDACTED}\r\nAccept: */*"),
    (
        f"export STRIPE_RESTRICTED_KEY={_auth}",
        f"export STRIPE_RESTRICTED_KEY={REDACTED}",
    ),
    (
        f"AZURE_DEVOPS_EXT_PAT={_auth} az repos list",
        f"AZURE_DEVOPS_EXT_PAT={REDACTED} az repos list",
    ),
    (
        f"https://x.blob.example.test/c/b?sv=2024&sig={_auth}%3D&se=1",
        f"https://x.blob.example.test/c/b?sv=2024&sig={REDACTED}&se=1",
    ),
    # the fourth held-out set's kinds (tests/test_scrub_wrapped.py): auth pairs, one-dash and Windows options
    ("java.net: credentials('ops', 'Fern!Stone#77')", f"java.net: credentials('ops', '{REDACTED}')"),
    ('Credentials.basic("svc", "Fern!Stone#77")', f'Credentials.basic("svc", "{REDACTED}")'),
    ("+ keytool -list -storepass Fern!Stone#77 -v", f"+ keytool -list -storepass {REDACTED} -v"),
    ("C:\\> cmdkey /user:ops /pass:Fern!Stone#77", f"C:\\> cmdkey /user:ops /pass:{REDACTED}"),
    ("+ mysql -uroot -p'Fern!Stone#77' shop", f"+ mysql -uroot -p'{REDACTED}' shop"),
    ("    [db_pass] => Fern!Stone#77", f"    [db_pass] => {REDACTED}"),
    # a generated password's ``&``, ``;`` and ``,`` are no separators unless a next field follows
    ("password=Tr0ub4dor&3horse user=etl", f"password={REDACTED} user=etl"),
    ("db_password: p@ss,w0rd;9 (rotated)", f"db_password: {REDACTED} (rotated)"),
    ("login?user=etl&password=Gr33n&next=/home", f"login?user=etl&password={REDACTED}&next=/home"),
    ("password=Gr33n-Tea7, please rotate it", f"password={REDACTED}, please rotate it"),
    ("password=Gr33n-Tea7;User ID=etl", f"password={REDACTED};User ID=etl"),
]
_qk = t(24)
example(
    "query_key_param",
    f"GET https://tiles.example.test/v1/map.png?z=3&key={_qk}&fmt=png -> 403",
    f"GET https://tiles.example.test/v1/map.png?z=3&key={REDACTED}&fmt=png -> 403",
)
example(
    "query_glued_key_param",
    f"400 Client Error: Bad Request for url: https://api.bls.example.test/v2/data/?registrationkey={_qk}&catalog=true",
    f"400 Client Error: Bad Request for url: https://api.bls.example.test/v2/data/?registrationkey={REDACTED}&catalog=true",
)
example(
    "query_appid_param",
    "401 Client Error: Unauthorized for url: http://api.weather.example.test/data/2.5/weather?q=Paris&appid="
    "9f1c2e8a7b6d5c4e3f2a1b0c9d8e7FAKE",
    f"401 Client Error: Unauthorized for url: http://api.weather.example.test/data/2.5/weather?q=Paris&appid={REDACTED}",
)
example(
    "query_key_param_first",
    f"2025-12-02 12:00:01 10.0.4.7 GET /v1/map.png key={_qk}&fmt=png 443 - 203.0.113.9 curl/8.5 - 403 0 0 4",
    f"2025-12-02 12:00:01 10.0.4.7 GET /v1/map.png key={REDACTED}&fmt=png 443 - 203.0.113.9 curl/8.5 - 403 0 0 4",
)
example(
    "named_value_pair",
    '<add key="SmtpPassword" value="Quartz#7715meadow" />',
    f'<add key="SmtpPassword" value="{REDACTED}" />',
)
_har_key = t(36)
example(
    "named_value_pair_random",
    f'"headers": [{{"name": "x-functions-key", "value": "{_har_key}"}}, {{"name": "key", "value": "X-API-Key"}}]',
    f'"headers": [{{"name": "x-functions-key", "value": "{REDACTED}"}}, {{"name": "key", "value": "X-API-Key"}}]',
)
_cookie = t(40)
example(
    "cookie_record_value",
    f"---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: {_cookie}\n  domain: apple.com\n  path: /",
    f"---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: {REDACTED}\n  domain: apple.com\n  path: /",
)
example(
    "credentials_call_last_argument",
    'credentials += Credentials("Sonatype Nexus Repository Manager", "s01.oss.sonatype.org", "ci", "Quartz#7715meadow")',
    f'credentials += Credentials("Sonatype Nexus Repository Manager", "{REDACTED}")',
)
_otlp = t(22)
example(
    "otlp_exporter_headers",
    f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={_otlp},x-honeycomb-dataset=checkout",
    f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={REDACTED},x-honeycomb-dataset=checkout",
)
_xml = t(40, B64)
example(
    "xml_secret_element",
    f"<Credentials><SecretAccessKey>{_xml}</SecretAccessKey></Credentials>",
    f"<Credentials><SecretAccessKey>{REDACTED}</SecretAccessKey></Credentials>",
)
_aws = t(40, B64)
example(
    "keyword_space_separated",
    f"bad config line 7: aws_secret_access_key   {_aws}",
    f"bad config line 7: aws_secret_access_key   {REDACTED}",
)
example(
    "credential_set_to_value",
    "Setting --http-password (httppassword) to Qu1ck-Brown-77fox",
    f"Setting --http-password (httppassword) to {REDACTED}",
)
example(
    "keyword_phrase",
    "smtp relay refused token tok-Q7x-77; your reset code is 913-K4Z",
    f"smtp relay refused token {REDACTED}; your reset code is {REDACTED}",
)
example(
    "email_address",
    "duplicate key value violates unique constraint\nDETAIL:  Key (email)=(jane.q@example.org) already exists.",
    f"duplicate key value violates unique constraint\nDETAIL:  Key (email)=({REDACTED}) already exists.",
)
example(
    "us_ssn",
    'arguments={"customer_id": "C-9", "ssn": "078-05-1120"}',
    f'arguments={{"customer_id": "C-9", "ssn": "{REDACTED}"}}',
)
leak("aws_access_key_id", "ASIA" + t(16, string.ascii_uppercase + "234567"))
leak("google_api_key", "AIza" + t(35, URLSAFE))
leak("google_oauth_client_secret", "GOCSPX-" + t(28, URLSAFE))
leak("google_oauth_access_token", "ya29." + t(120, URLSAFE))
leak("google_oauth_refresh_token", "1//0" + t(80, URLSAFE))
leak("azure_ad_client_secret", "x7Z8Q~" + t(34, URLSAFE + "~."))
leak("github_token", "ghs_" + t(36))
leak("github_fine_grained_pat", "github_pat_" + t(82, ALNUM + "_"))
leak("gitlab_token", "glrt-" + t(20, URLSAFE))
leak("slack_token", "xoxa-2-" + t(40, ALNUM + "-"))
leak("openai_anthropic_style_key", "sk-svcacct-" + t(64, URLSAFE))
leak("stripe_key", "rk_test_" + t(40))
leak("stripe_webhook_secret", "whsec_" + t(32))
leak("digitalocean_token", "dor_v1_" + t(64, HEX))
leak("hashicorp_vault_token", "hvb." + t(90, URLSAFE))
leak("hashicorp_vault_legacy_token", "s." + t(24))
leak("terraform_cloud_token", t(14) + ".atlasv1." + t(60, URLSAFE))
leak("heroku_api_key", "HRKU-" + t(60, URLSAFE))
leak("docker_hub_pat", "dckr_oat_" + t(32, URLSAFE))
leak("npm_token", "npm_" + t(36))
leak("pypi_token", "pypi-AgEIcHlwaS5vcmc" + t(70, URLSAFE))
leak("artifactory_api_key", "AKCp" + t(69))
leak("atlassian_api_token", "ATATT3" + t(180, URLSAFE))
leak("huggingface_token", "hf_" + t(34))
leak("replicate_token", "r8_" + t(37))
leak("langsmith_key", "lsv2_pt_" + t(32, HEX) + "_" + t(10, HEX))
leak("perplexity_key", "pplx-" + t(48))
leak("sendgrid_key", "SG." + t(22, URLSAFE) + "." + t(43, URLSAFE))
leak("mailchimp_key", t(32, HEX) + "-us21")
leak("shopify_token", "shpss_" + t(32, HEX))
leak("square_token", "sq0csp-" + t(43, URLSAFE))
leak("telegram_bot_token", "987654321:AA" + t(33, URLSAFE))
leak("postman_key", "PMAK-" + t(24, HEX) + "-" + t(34, HEX))
leak("notion_token", "secret_" + t(43))
leak("sentry_token", "sntrys_" + t(64, B64 + "_="))
leak("grafana_token", "glc_" + t(48, B64))
leak("doppler_token", "dp.st." + t(44))
leak("databricks_token", "dapi" + t(32, HEX) + "-2")
_hook = t(24)
example(
    "webhook_path_secret",
    f"POST https://hooks.slack.com/services/T0A1B2C3D/B0E1F2G3H/{_hook} failed: 404",
    f"POST https://hooks.slack.com/services/{REDACTED} failed: 404",
)
_mcp_path = t(40, URLSAFE)
example(
    "mcp_endpoint_path_secret",
    f"McpError: Connection closed (url=https://mcp.zapier.com/api/mcp/s/{_mcp_path}/mcp)",
    f"McpError: Connection closed (url=https://mcp.zapier.com/api/mcp/s/{REDACTED}/mcp)",
)
_rpc_key = t(32, HEX)
example(
    "node_rpc_path_key",
    f'missing response (url="https://mainnet.infura.io/v3/{_rpc_key}", code=SERVER_ERROR)',
    f'missing response (url="https://mainnet.infura.io/v3/{REDACTED}", code=SERVER_ERROR)',
)
example(
    "connection_string_spaced_password",
    "Npgsql: Host=pg-1;Username=app;Password=Fern Stone 77;Database=shop",
    f"Npgsql: Host=pg-1;Username=app;Password={REDACTED};Database=shop",
)
example(
    "libpq_unparsed_dsn_word",
    'psycopg2.ProgrammingError: invalid dsn: missing "=" after "Stone77x" in connection info string',
    f'psycopg2.ProgrammingError: invalid dsn: missing "=" after "{REDACTED}" in connection info string',
)
example(
    "connection_string_password",
    "pyodbc.Error: Driver={ODBC Driver 18};Server=sql-1;Uid=sa;Pwd=Fern&Stone$77;Encrypt=yes",
    f"pyodbc.Error: Driver={{ODBC Driver 18}};Server=sql-1;Uid=sa;Pwd={REDACTED};Encrypt=yes",
)
example(
    "connection_string_password_first",
    'open("Password=\'Fern;Stone\'\'s\';Server=sql-1")',
    f'open("Password={REDACTED};Server=sql-1")',
)
_yaml = t(30)
_k8s_value = t(40, B64)
example(
    "k8s_secret_data",
    f"apiVersion: v1\ndata:\n  config.json: {_k8s_value}\n  extra: {t(24, B64)}\nkind: Secret\nmetadata:\n  name: app",
    f"apiVersion: v1\ndata:\n  config.json: {REDACTED}\nkind: Secret\nmetadata:\n  name: app",
)
example(
    "piped_into_secret_store",
    "+ printf '%s' 'Fern&Stone$77' | docker secret create db_password - (echo $TOKEN | docker login --password-stdin)",
    f"+ printf '%s' '{REDACTED}' | docker secret create db_password - (echo $TOKEN | docker login --password-stdin)",
)
_printed = t(32)
example(
    "cli_printed_secret",
    f"$ heroku config:get SESSION_SECRET -a acme\n{_printed}\n$ echo done",
    f"$ heroku config:get SESSION_SECRET -a acme\n{REDACTED}\n$ echo done",
)
# what editors put between a label and its value (the richtext set)
example(
    "markup_gap_value",
    "<p><b>API key</b>: <code>Q7wv2LmX9zRt4KpYx8Nc</code> (rotated)</p>",
    f"<p><b>API key</b>: <code>{REDACTED}</code> (rotated)</p>",
)
example(
    "signature_next_line",
    "botocore.auth [DEBUG] Signature:\n9c1f4e7a2b8d3c6f0a5e1d9b7c4a2f8e6d3b0c91a7f5e2d8b4c6a9f1e3d7b5c2\nbotocore.endpoint [DEBUG] Sending",
    f"botocore.auth [DEBUG] Signature:\n{REDACTED}\nbotocore.endpoint [DEBUG] Sending",
)
example(
    "signature_items",
    "webhook rejected: Stripe-Signature: t=1790000000,v1=5e7f1c2a9b8d4e3f6a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f (tolerance 300s)",
    f"webhook rejected: Stripe-Signature: {REDACTED} (tolerance 300s)",
)
example(
    "secret_value_list",
    'allowed_api_keys = [\n  "Qa1Ws2Ed3Rf4Tg5Yh6",\n  "Uj7Ik8Ol9Pq0Aw1Se2",\n]',
    f'allowed_api_keys = [\n  "{REDACTED}",\n]',
)
example(
    "secret_value_list_quoted",
    'AUTH_TOKENS="Qa1Ws2Ed3Rf4Tg5Yh6 Uj7Ik8Ol9Pq0Aw1Se2" ./serve',
    f'AUTH_TOKENS="{REDACTED}" ./serve',
)
example(
    "parent_named_value_member",
    '{"db_password":{"sensitive":true,"value":"Qa1Ws2Ed3Rf4Tg5Yh6"},"region":{"value":"eu-west-1"}}',
    f'{{"db_password":{{"sensitive":true,"value":"{REDACTED}"}},"region":{{"value":"eu-west-1"}}}}',
)
example(
    "key_list_entry_value",
    '[{"keyName": "primary", "permissions": "FULL", "value": "Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pq0Aw1Se2=="}]',
    f'[{{"keyName": "primary", "permissions": "FULL", "value": "{REDACTED}"}}]',
)
example(
    "yaml_multiline_value",
    f"invalid config:\ndb:\n  password:\n    {_yaml}\n  host: db",
    f"invalid config:\ndb:\n  password:\n    {REDACTED}\n  host: db",
)
example(
    "validation_error_input",
    "1 validation error for Settings\napi_key\n  String should have at most 40 characters "
    "[type=string_too_long, input_value='Fake-Kx81mQz4', input_type=str]",
    "1 validation error for Settings\napi_key\n  String should have at most 40 characters "
    f"[type=string_too_long, input_value={REDACTED}, input_type=str]",
)
example(
    "annotated_variable_value",
    "    api.login(user, secret)\n    │         │     └ 'Fake-Kx81mQz4'\n    │         └ 'svc-sync'",
    f"    api.login(user, secret)\n    │         │     └ '{REDACTED}'\n    │         └ 'svc-sync'",
)
example(
    "rejected_input_echo",
    "ValueError: invalid literal for int() with base 10: 'Fake-Kx81mQz4'",
    f"ValueError: invalid literal for int() with base 10: '{REDACTED}'",
)
example(
    "rejected_input_before_verdict",
    "jsonschema.exceptions.ValidationError: 'Fake-Kx81mQz4' is too long",
    f"jsonschema.exceptions.ValidationError: '{REDACTED}' is too long",
)
example(
    "validator_instance_path_value",
    "On instance['api_token']:\n    'Fake-Kx81mQz4'",
    f"On instance['api_token']:\n    '{REDACTED}'",
)
example(
    "password_tail_as_host",
    'could not translate host name "ssw0rdFAKE@db.internal.example" to address: Name or service not known',
    f'could not translate host name "{REDACTED}@db.internal.example" to address: Name or service not known',
)
example(
    "schemeless_userinfo_password",
    "<ProtocolError for bot:Fake-Kx81mQz4@rpc.internal:8080/RPC2: 401 Unauthorized>",
    f"<ProtocolError for bot:{REDACTED}@rpc.internal:8080/RPC2: 401 Unauthorized>",
)
_compound = t(32)
example(
    "keyword_compound_key",
    f"settings rejected: client_secret_v2={_compound} region=eu",
    f"settings rejected: client_secret_v2={REDACTED} region=eu",
)
example(
    "keyword_space_password",
    'haproxy: userlist ops\n  user admin insecure-password Wren#4471gale\nredis: requirepass q8Wv2LmX9zRt4KpY\nlog: password authentication failed',
    f'haproxy: userlist ops\n  user admin insecure-password {REDACTED}\nredis: requirepass {REDACTED}\nlog: password authentication failed',
)
example(
    "column_aligned_secret",
    "key            value\n0   db_host    db.internal\n1   secret_key   Wren#4471gale\nmax_tokens     4096",
    f"key            value\n0   db_host    db.internal\n1   secret_key   {REDACTED}\nmax_tokens     4096",
)
example(
    "qualified_property_secret",
    'spark.conf.set("fs.azure.account.key.shopdata.dfs.core.windows.net", "q8Wv2LmX9zRt4KpYb7Nc3Hs5")',
    f'spark.conf.set("fs.azure.account.key.shopdata.dfs.core.windows.net", "{REDACTED}")',
)
example(
    "credential_widget_value",
    "pw = widgets.Password(value='Wren#4471gale', layout=box)",
    f"pw = widgets.Password(value='{REDACTED}', layout=box)",
)
example(
    "labelled_input_value",
    'key = st.text_input("API key", value="q8Wv2LmX9zRt4KpYb7Nc3Hs5")',
    f'key = st.text_input("API key", value="{REDACTED}")',
)
example(
    "input_value_then_label",
    "box = widgets.Text(value='q8Wv2LmX9zRt4KpYb7Nc3Hs5', description='HF token:')",
    f"box = widgets.Text(value='{REDACTED}', description='HF token:')",
)
example(
    "tls_key_log",
    "CLIENT_RANDOM 4ebda1461819403e1e85c48a57302031bebe7dd789fe3b5ec4eae0e794fc5215 a6713977ad6c40c4410a7b9775e823b97be97e45bb26c11a3d63588947ca278c77c8969a677794ef01a79dafc434f6a2",
    f"CLIENT_RANDOM 4ebda1461819403e1e85c48a57302031bebe7dd789fe3b5ec4eae0e794fc5215 {REDACTED}",
)
example(
    "jwk_symmetric_key_first",
    'loaded {"k":"a_WlsbWec6XWvVGiZDXJYlYrNibv7lAPNNeFbbdnlnY","kty":"oct"} for issuer',
    f'loaded {{"k":"{REDACTED}","kty":"oct"}} for issuer',
)
example(
    "macaroon_v1",
    "store rejected macaroon MDAyNWxvY2F0aW9uIGh0dHBzOi8vYXBpLmV4YW1wbGUuY29tCjAwMzBpZGVudGlmaWVyIDg4NmIwNTI5YWMwNzczYTcw (retrying)",
    f"store rejected macaroon {REDACTED} (retrying)",
)
example(
    "jwk_private_member",
    '{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}',
    f'{{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "d": "{REDACTED}"}}',
)
example(
    "protocol_auth_command",
    'redis MONITOR: 1718000000.1 [0 10.0.0.5:51234] "AUTH" "q8Wv2LmX9zRt4KpY7bNc" then SMTP AUTH failed',
    f'redis MONITOR: 1718000000.1 [0 10.0.0.5:51234] "AUTH" "{REDACTED}" then SMTP AUTH failed',
)
example(
    "cli_secret_option",
    "Command '['pg_restore', '--host', 'db', '--password', 'Fern&Stone$77', 'x.sql']' failed",
    f"Command '['pg_restore', '--host', 'db', '--password', '{REDACTED}', 'x.sql']' failed",
)
example(
    "cli_short_password",
    "+ mysql -h db -uadmin -pQ7rT9xLm2wZ -e 'SELECT 1' (and ssh -p 2222, docker run -p 8080:80)",
    f"+ mysql -h db -uadmin -p{REDACTED} -e 'SELECT 1' (and ssh -p 2222, docker run -p 8080:80)",
)
example(
    "cli_user_password",
    "+ curl -sS -u deploy:Fern&Stone$77 https://nexus.internal.example/ (docker run -u 1000:1000)",
    f"+ curl -sS -u deploy:{REDACTED} https://nexus.internal.example/ (docker run -u 1000:1000)",
)
example(
    "sql_password_clause",
    "[SQL: CREATE USER 'app'@'%' IDENTIFIED BY 'Fern&Stone$77'] (ALTER ROLE ops PASSWORD 'REDACTED')",
    f"[SQL: CREATE USER 'app'@'%' IDENTIFIED BY '{REDACTED}'] (ALTER ROLE ops PASSWORD 'REDACTED')",
)
example(
    "cli_tool_password",
    "+ redis-cli -h cache -a Q7wv2LmX9zRt4KpY --no-auth-warning ping (redis-cli -a $REDIS_PW)",
    f"+ redis-cli -h cache -a {REDACTED} --no-auth-warning ping (redis-cli -a $REDIS_PW)",
)
example(
    "piped_secret_stdin",
    "+ echo 'Fern#Stone77' | docker login -u ci --password-stdin (echo \"$CR_PAT\" | docker login --password-stdin)",
    f"+ echo '{REDACTED}' | docker login -u ci --password-stdin (echo \"$CR_PAT\" | docker login --password-stdin)",
)
example(
    "herestring_secret",
    "+ podman login -u ci --password-stdin quay.io <<< 'Fern#Stone77' (bc <<< '2^64')",
    f"+ podman login -u ci --password-stdin quay.io <<< '{REDACTED}' (bc <<< '2^64')",
)
example(
    "config_set_secret",
    "+ aws configure set aws_secret_access_key Q7wv2LmX9zRt4KpY/x (aws configure set region eu-west-1)",
    f"+ aws configure set aws_secret_access_key {REDACTED} (aws configure set region eu-west-1)",
)
example(
    "cookie_outside_header",
    ".example.com\tTRUE\t/\tTRUE\t1767225600\tsessionid\tQ7wv2LmX9zRt4KpYx8Nc (lang=en)",
    f".example.com\tTRUE\t/\tTRUE\t1767225600\tsessionid\t{REDACTED} (lang=en)",
)
example(
    "quoted_argv_secret",
    '1733212800.123456 [0 10.0.0.7:51234] "AUTH" "Fern#Stone77" (fields: ["password", "email"])',
    f'1733212800.123456 [0 10.0.0.7:51234] "AUTH" "{REDACTED}" (fields: ["password", "email"])',
)
example(
    "erlang_secret_term",
    '{error,{auth_failure,[{username,<<"app">>},{password,<<"Fern#Stone77">>}]}} ({token_ttl,3600})',
    f'{{error,{{auth_failure,[{{username,<<"app">>}},{{password,<<"{REDACTED}">>}}]}}}} ({{token_ttl,3600}})',
)
example(
    "irc_identify",
    "-> PRIVMSG NickServ :IDENTIFY deploy Fern#Stone77",
    f"-> PRIVMSG NickServ :IDENTIFY deploy {REDACTED}",
)
# values that carry their container's escapes (the escaped set)
example(
    "escaped_quote_in_value",
    '{"user":"app","password":"Fern\\"Stone77"}',
    f'{{"user":"app","password":"{REDACTED}"}}',
)
example(
    "escaped_quote_in_nested_json",
    '"{\\"password\\": \\"Fern\\\\\\"Stone77\\"}"',
    f'"{{\\"password\\": \\"{REDACTED}\\"}}"',
)
example(
    "escaped_single_quote_in_value",
    "$password = 'Fern\\'Stone77';",
    f"$password = '{REDACTED}';",
)
example(
    "doubled_quote_value",
    '7,"{""user"": ""app"", ""password"": ""Fern#Stone77""}"',
    f'7,"{{""user"": ""app"", ""password"": ""{REDACTED}""}}"',
)
example(
    "cdata_secret_value",
    "<password><![CDATA[Fern&Stone77]]></password>",
    f"<password><![CDATA[{REDACTED}]]></password>",
)
example(
    "escaped_nul_argv",
    "cmdline='pg_dump\\x00--password\\x00Fern#Stone77\\x00app'",
    f"cmdline='pg_dump\\x00--password\\x00{REDACTED}\\x00app'",
)
example(
    "ansi_c_quoted_value",
    "+ export DB_PASSWORD=$'Fern\\'Stone77'",
    f"+ export DB_PASSWORD=$'{REDACTED}'",
)
example(
    "backslash_escaped_value",
    "+ docker run -e DB_PASSWORD=Fern\\ Stone77 app",
    f"+ docker run -e DB_PASSWORD={REDACTED} app",
)
example(
    "quoted_printable_value",
    "password=3D=22Fern-Stone77=22",
    f"password={REDACTED}=22",
)
example(
    "encoded_word_value",
    "Subject: =?UTF-8?Q?Your_new_password_is_Fern-Stone77?=",
    f"Subject: =?UTF-8?Q?Your_new_password_is_{REDACTED}?=",
)
example(
    "url_encoded_separator_value",
    "error_description=client_secret%3A%20Fern-Stone77%20rejected",
    f"error_description=client_secret%3A%20{REDACTED}%20rejected",
)
example(
    "encoded_url_userinfo",
    "GET /login?next=https%3A%2F%2Fapp%3AFern-Stone77%40db.internal%2F HTTP/1.1",
    f"GET /login?next=https%3A%2F%2F{REDACTED}%40db.internal%2F HTTP/1.1",
)
example(
    "toml_multiline_string_value",
    "token = \'\'\'Q7wv2LmX9zRt4KpYx8Nc\'\'\'",
    f"token = \'\'\'{REDACTED}\'\'\'",
)
example(
    "html_input_value",
    '<input type="password" name="password" value="Fern#Stone77">',
    f'<input type="password" name="password" value="{REDACTED}">',
)
example(
    "typed_wrapper_value",
    '{"Item": {"pk": {"S": "TENANT#42"}, "dbPassword": {"S": "Fern#Stone77"}}}',
    f'{{"Item": {{"pk": {{"S": "TENANT#42"}}, "dbPassword": {{"S": "{REDACTED}"}}}}}}',
)
example(
    "struct_field_value",
    'fields { key: "client_secret" value { string_value: "Q7wv2LmX9zRt4KpYx8Nc" } }',
    f'fields {{ key: "client_secret" value {{ string_value: "{REDACTED}" }} }}',
)
example(
    "xml_name_value_elements",
    "<member><name>password</name><value><string>Fern#Stone77</string></value></member>",
    f"<member><name>password</name><value><string>{REDACTED}</string></value></member>",
)
example(
    "length_prefixed_value",
    'a:2:{s:4:"user";s:3:"app";s:8:"password";s:12:"Fern#Stone77";}',
    f'a:2:{{s:4:"user";s:3:"app";s:8:"password";s:12:"{REDACTED}";}}',
)
example(
    "escaped_binary_value",
    "b'\\x82\\xa4user\\xa3app\\xa8password\\xacFern#Stone77'",
    f"b'\\x82\\xa4user\\xa3app\\xa8password\\xac{REDACTED}'",
)
example(
    "alt_delimited_value",
    "local cfg = { api_token = [==[Qm7vT2xKp9Lw4Rz8Nc3B]==] }",
    f"local cfg = {{ api_token = [==[{REDACTED}]==] }}",
)
example(
    "call_argument_value",
    'Client.builder().region("eu").apiKey("Zt4Kq9Wm2Lx7Vb3Nc8Rp").build()',
    f'Client.builder().region("eu").apiKey("{REDACTED}").build()',
)
example(
    "lisp_form_binding",
    '(defvar *mail-password* "Slate#River42")',
    f'(defvar *mail-password* "{REDACTED}")',
)
example(
    "notation_separator_value",
    "{ secretKey+: 'Hq2Lz9Xv4Nw7Pr3Ks6Tm' }",
    f"{{ secretKey+: '{REDACTED}' }}",
)
example(
    "declared_type_word_value",
    "HKEY_CURRENT_USER\\Software\\Sync\n    Password    REG_EXPAND_SZ    Marble!7731quartz",
    f"HKEY_CURRENT_USER\\Software\\Sync\n    Password    REG_EXPAND_SZ    {REDACTED}",
)
example(
    "xml_name_attribute_content",
    '<add-on><param name="client_secret">Vw8Rk2Jx5Qn9Lt3Hm6Pz</param></add-on>',
    f'<add-on><param name="client_secret">{REDACTED}</param></add-on>',
)
example(
    "lisp_keyword_value",
    'clojure.lang.ExceptionInfo: refused {:db/user "app", :db/password "Fern#Stone77"}',
    f'clojure.lang.ExceptionInfo: refused {{:db/user "app", :db/password "{REDACTED}"}}',
)
example(
    "multipart_field_value",
    '--b0\r\nContent-Disposition: form-data; name="client_secret"\r\n\r\nQ7wv2LmX9zRt4KpYx8Nc\r\n--b0--',
    f'--b0\r\nContent-Disposition: form-data; name="client_secret"\r\n\r\n{REDACTED}\r\n--b0--',
)
example(
    "yaml_typed_scalar",
    "db:\n  password: !!str Fern#Stone77\n  port: 5432",
    f"db:\n  password: {REDACTED}\n  port: 5432",
)
example(
    "plan_change_secret",
    '      ~ master_password = "Fern#Stone66" -> "Fern#Stone77"',
    f'      ~ master_password = "{REDACTED}"',
)
example(
    "bracketed_dotted_key",
    "[http-basic.repo.example.com.password] Fern#Stone77",
    f"[http-basic.repo.example.com.password] {REDACTED}",
)
example(
    "anaconda_channel_token",
    "  - https://conda.anaconda.org/t/it-Q7wv2LmX9zRt4KpYx8Nc/corp",
    f"  - https://conda.anaconda.org/t/{REDACTED}/corp",
)
example(
    "chpasswd_pair",
    "+ echo 'deploy:Fern&Stone$77' | chpasswd",
    f"+ echo 'deploy:{REDACTED}' | chpasswd",
)
_pair = t(32, HEX)
example(
    "name_value_tuple",
    f"headers=[('Host', 'api'), ('X-Api-Token', '{_pair}')] fields=['password', 'email']",
    f"headers=[('Host', 'api'), ('X-Api-Token', '{REDACTED}')] fields=['password', 'email']",
)
_sid = t(32)
example(
    "cookie_header",
    f"request headers: Cookie: theme=dark; sessionid={_sid}\r\nHost: shop",
    f"request headers: Cookie: {REDACTED}\r\nHost: shop",
)
example(
    "auth_tuple",
    "HTTPError: 401 for url https://api.example.com/x; auth=('export', 'Fern&Stone$77')",
    f"HTTPError: 401 for url https://api.example.com/x; auth=('export', '{REDACTED}')",
)
example(
    "dsn_user_password_at",
    "failed to initialize database: orders:Fern@Stone$77@tcp(mysql:3306)/orders?parseTime=true",
    f"failed to initialize database: orders:{REDACTED}@tcp(mysql:3306)/orders?parseTime=true",
)
example(
    "jdbc_oracle_user_password",
    "IO Error; url=jdbc:oracle:thin:scott/Tiger77x@//ora-01:1521/ORCL",
    f"IO Error; url=jdbc:oracle:thin:scott/{REDACTED}@//ora-01:1521/ORCL",
)
example(
    "secret_phrase_colon",
    "provisioning: generated password for user ops-admin: Ht1L0XFq5Ff#AP5J (rotate it)",
    f"provisioning: generated password for user ops-admin: {REDACTED} (rotate it)",
)
example(
    "pgpass_line",
    "password file has world access; line: db.internal:5432:orders:app:Fern~77stone!",
    f"password file has world access; line: db.internal:5432:orders:app:{REDACTED}",
)
_der = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC" + t(64, B64)
example(
    "der_private_key_base64",
    f'signing_key = """\n{_der[:64]}\n{_der[64:]}\n""" (cert MIIDdzCCAl+gAwIBAgIUQ7x stays)',
    f'signing_key = """\n{REDACTED}\n""" (cert MIIDdzCCAl+gAwIBAgIUQ7x stays)',
)
_ppk_private = "AAAAI" + t(43, B64)
example(
    "putty_private_lines",
    f"PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAI\nPrivate-Lines: 1\n{_ppk_private}\nPrivate-MAC: x",
    f"PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAI\nPrivate-Lines: 1\n{REDACTED}\nPrivate-MAC: x",
)
_krb = t(64, HEX)
example(
    "hex_private_key_dump",
    f"   2 03/01/2025 HTTP/web@EXAMPLE.ORG (aes256-cts-hmac-sha1-96)  (0x{_krb})\npriv:\n    3a:7f:01:c2:\n    9e:44\npub:\n    04:aa:bb",
    f"   2 03/01/2025 HTTP/web@EXAMPLE.ORG (aes256-cts-hmac-sha1-96)  (0x{REDACTED})\npriv:\n{REDACTED}\npub:\n    04:aa:bb",
)
_jwk_d = t(43, URLSAFE)
example(
    "jwk_private_member_any_order",
    f'{{"crv": "Ed25519", "d": "{_jwk_d}", "kty": "OKP", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}',
    f'{{"crv": "Ed25519", "d": "{REDACTED}", "kty": "OKP", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}',
)
_plist = t(32)
example(
    "xml_named_string",
    f"<key>API_KEY</key>\n<string>{_plist}</string>\n<key>GCM_SENDER_ID</key>\n<string>123456789012</string>",
    f"<key>API_KEY</key>\n<string>{REDACTED}</string>\n<key>GCM_SENDER_ID</key>\n<string>123456789012</string>",
)
example(
    "cisco_type7",
    "username ops privilege 15 password 7 0822455D0A16544541\ntacacs server T1\n key 7 1511021F0725\n",
    f"username ops privilege 15 password 7 {REDACTED}\ntacacs server T1\n key 7 {REDACTED}\n",
)
example(
    "device_config_secret",
    "enable secret 0 Wren#4471gale\nkey chain OSPF\n key 1\n  key-string Q7rT9xLm2wZk\n"
    "set security ike policy P pre-shared-key ascii-text \"Fern&Stone77\"\nsnmp-server community Q7rT9xLm2w RO",
    f"enable secret 0 {REDACTED}\nkey chain OSPF\n key 1\n  key-string {REDACTED}\n"
    f"set security ike policy P pre-shared-key ascii-text \"{REDACTED}\"\nsnmp-server community {REDACTED} RO",
)
example(
    "protocol_login_command",
    'C: a001 LOGIN ops "Fern&Stone77"\nS: a001 NO\n> PASS Wren#4471gale\n< 530 Login incorrect.',
    f'C: a001 LOGIN ops "{REDACTED}"\nS: a001 NO\n> PASS {REDACTED}\n< 530 Login incorrect.',
)
example(
    "sasl_response",
    "S: 334 VXNlcm5hbWU6\nC: b3Bz\nS: 334 UGFzc3dvcmQ6\nC: RmVybiZTdG9uZTc3\nS: 535 5.7.8 Error",
    f"S: 334 VXNlcm5hbWU6\nC: b3Bz\nS: 334 UGFzc3dvcmQ6\nC: {REDACTED}\nS: 535 5.7.8 Error",
)
example(
    "identifier_quoted_value",
    'release {\n    storePassword "Fern&Stone77"\n    keyAlias "upload"\n}',
    f'release {{\n    storePassword "{REDACTED}"\n    keyAlias "upload"\n}}',
)
_bearer = t(32)
example(
    "auth_call_single",
    f'let resp = client.get(url).bearer_auth("{_bearer}").send().await?; // auth(token)',
    f'let resp = client.get(url).bearer_auth("{REDACTED}").send().await?; // auth(token)',
)
example(
    "hcl_variable_default",
    'variable "admin_password" {\n  type    = string\n  default = "Fern&Stone77"\n}\nvariable "region" {\n  default = "eu-west-1"\n}',
    f'variable "admin_password" {{\n  type    = string\n  default = "{REDACTED}"\n}}\nvariable "region" {{\n  default = "eu-west-1"\n}}',
)
example(
    "env_lookup_fallback",
    '  password: <%= ENV.fetch("DATABASE_PASSWORD") { "Fern&Stone77" } %>\n  pool: <%= ENV.fetch("RAILS_MAX_THREADS") { 5 } %>',
    f'  password: <%= ENV.fetch("DATABASE_PASSWORD") {{ "{REDACTED}" }} %>\n  pool: <%= ENV.fetch("RAILS_MAX_THREADS") {{ 5 }} %>',
)
leak("uppercase_prefixed_token", "NRAK-" + t(27, string.ascii_uppercase + string.digits))
leak("id_dot_secret", "pat" + t(14) + "." + t(64, HEX))
leak("prefixed_token_secret_word", "zvx_live_" + t(24))
leak("prefixed_token", "vndr_" + t(40))
# the tenth set's kinds (tests/secret_corpus/atrest.py)
example(
    "table_row_secret",
    "-[ RECORD 1 ]+------\nname       | billing\napi_key    | Fern7Stone-4412quay\nrotated_at | 2025-01-09",
    f"-[ RECORD 1 ]+------\nname       | billing\napi_key    | {REDACTED}\nrotated_at | 2025-01-09",
)
example(
    "markup_secret_value",
    "<tr><td>Temporary password</td><td>Fern-Stone77</td></tr>",
    f"<tr><td>Temporary password</td><td>{REDACTED}</td></tr>",
)
example(
    "foreign_copula_password",
    "Das Passwort für den Server lautet Fern-Stone77, bitte ändern.",
    f"Das Passwort für den Server lautet {REDACTED}, bitte ändern.",
)
example(
    "foreign_password_phrase",
    "Neues Passwort für ops: Fern-Stone77 (bitte ändern)",
    f"Neues Passwort für ops: {REDACTED} (bitte ändern)",
)
# the fourteenth set's kinds (tests/secret_corpus/prose.py): credentials in human-written text
example(
    "prose_secret_handoff",
    "ok so the db password for staging is Fern-Stone77 until we move it to Vault.",
    f"ok so the db password for staging is {REDACTED} until we move it to Vault.",
)
example("prose_use_value_as", "just use Fern-Stone77 for the password, I'll rotate it", f"just use {REDACTED} for the password, I'll rotate it")
example("prose_value_is_the", "`Fern-Stone77` is the API key for the sandbox", f"`{REDACTED}` is the API key for the sandbox")
example("prose_user_slash_password", "jenkins -> admin / Fern-Stone77", f"jenkins -> admin / {REDACTED}")
example("prose_chat_answer", "dana: what's the db password?\npriya: Fern-Stone77\n", f"dana: what's the db password?\npriya: {REDACTED}\n")
_fresh = t(40)
example("prose_key_random", f"Generated a fresh key for you {_fresh} please don't commit it", f"Generated a fresh key for you {REDACTED} please don't commit it")
example("prose_numeric_code", "the gate code is 480193, the key box is by the garage", f"the gate code is {REDACTED}, the key box is by the garage")
example("prose_code_is_your", "Acme: 480193 is your login code. Don't share it.", f"Acme: {REDACTED} is your login code. Don't share it.")
example("prose_use_code_to", "Acme: use 480193 to verify your e-mail address.", f"Acme: use {REDACTED} to verify your e-mail address.")
example("prose_code_valid_for", "Acme code: 480193 (valid 10 min). Never share it.", f"Acme code: {REDACTED} (valid 10 min). Never share it.")
example("prose_code_corrected", "the safe combo is 12-34 (kidding) it's 480193.", f"the safe combo is 12-34 (kidding) it's {REDACTED}.")
example("prose_seed_phrase", "seed phrase: canyon lizard orbit velvet harvest margin tribe oxygen shallow glimpse fossil jungle", f"seed phrase: {REDACTED}")
example(
    "prose_table_column",
    "| env | user | password |\n|---|---|---|\n| staging | deploy | Fern-Stone77 |",
    f"| env | user | password |\n|---|---|---|\n| staging | deploy | {REDACTED} |",
)
example("prose_code_list", "backup codes for the shared account: 4f8a-92kd, 7b3c-x1q9, 0d2e-5m7p", f"backup codes for the shared account: {REDACTED}")
example("prose_grouped_secret", "Activate with V4Y8L-ZD0N9-1HR3G-VHF9C-M5P1R before Friday", f"Activate with {REDACTED} before Friday")
_reset = t(40, URLSAFE)
example(
    "capability_link_token",
    f"Reset it at https://app.example.com/account/reset-password/{_reset}?utm=mail (expires in 1h)",
    f"Reset it at https://app.example.com/account/reset-password/{REDACTED}?utm=mail (expires in 1h)",
)
example(
    "percent_encoded_twice_pair",
    "GET /login?next=%2Fexport%3Fapi_key%253DQ7rT9xLm2wZkP4vB8nC3%2526fmt%253Dcsv HTTP/1.1",
    f"GET /login?next=%2Fexport%3Fapi_key%253D{REDACTED}%2526fmt%253Dcsv HTTP/1.1",
)
example("ldif_base64_password", "userPassword:: RmVybiZTdG9uZTc3", f"userPassword:: {REDACTED}")
example(
    "escaped_separator_pair",
    "<pre>&#34;password&#34;: &#34;Fern7Stone77&#34;</pre>",
    f"<pre>&#34;password&#34;: &#34;{REDACTED}&#34;</pre>",
)
example(
    "concatenated_literal_secret",
    'const apiKey =\n  "Q7rT9xLm2wZkP4vB" +\n  "8nC3Zk1Lw9Xy";',
    f"const apiKey =\n  {REDACTED};",
)
example(
    "scanner_finding_value",
    "Detector Type: Mailgun\nRaw result: 0a1b2c3d4e5f60718293a4b5c6d7e8f9\nFile: .env",
    f"Detector Type: Mailgun\nRaw result: {REDACTED}\nFile: .env",
)
example(
    "cli_option_next_line",
    "    args:\n    - --db-password\n    - Fern7Stone77\n    - --port",
    f"    args:\n    - --db-password\n    - {REDACTED}\n    - --port",
)
example(
    "xml_secret_element_attributes",
    '<wsse:Password Type="urn:oasis:wss#PasswordText">Fern&amp;Stone77</wsse:Password>',
    f'<wsse:Password Type="urn:oasis:wss#PasswordText">{REDACTED}</wsse:Password>',
)
example("ci_add_mask", "2025-01-09T10:22:31Z ::add-mask::Fern7Stone77quay", f"2025-01-09T10:22:31Z ::add-mask::{REDACTED}")
example(
    "redis_acl_password",
    "user worker on >Fern7Stone77 ~jobs:* +@list",
    f"user worker on >{REDACTED} ~jobs:* +@list",
)
example(
    "jaas_user_password",
    'org.apache.kafka.common.security.plain.PlainLoginModule required user_etl="Fern&Stone77";',
    f'org.apache.kafka.common.security.plain.PlainLoginModule required user_etl="{REDACTED}";',
)
_unseal = base64.b64encode(bytes(range(7, 39))).decode()
example("vault_unseal_key", f"Unseal Key 2: {_unseal}", f"Unseal Key 2: {REDACTED}")
example(
    "piped_password",
    "echo 'Fern&Stone77' | sudo -S systemctl restart api",
    f"echo '{REDACTED}' | sudo -S systemctl restart api",
)
example(
    "cloud_init_chpasswd_list",
    "#cloud-config\nchpasswd:\n  expire: false\n  list: |\n    admin:Fern&Stone77",
    f"#cloud-config\nchpasswd:\n  expire: false\n  list: |\n    admin:{REDACTED}",
)
_nt = t(32, HEX)
example(
    "ntlm_hash_line",
    f"svc_backup:1107:aad3b435b51404eeaad3b435b51404ee:{_nt}:::",
    f"svc_backup:1107:aad3b435b51404eeaad3b435b51404ee:{REDACTED}:::",
)
_crypt = "$6$" + t(16) + "$" + t(86, ALNUM + "./")
example("password_hash", f"backup:{_crypt}:19700:0:99999:7:::", f"backup:{REDACTED}:19700:0:99999:7:::")
leak("vendor_token_shapes", "oy2" + t(43, string.ascii_lowercase + string.digits).lower())
leak("vendor_token_shapes_2", "figd_" + t(40, URLSAFE))
leak("vendor_prefixed_uuid", "pat-eu1-8c1f2e3d-4b5a-4c6d-9e7f-0a1b2c3d4e5f")
leak("vendor_token_shapes_3", "xkeysib-" + t(64, HEX) + "-" + t(16))
leak("encoded_credential_blob", base64.b64encode(b'{"password":"Fern&Stone77","user":"ops"}').decode())
example(
    "password_hash_scheme",
    "dn: uid=ops,ou=people,dc=example,dc=com\nuserPassword: {SSHA}" + t(32, ALNUM + "+/"),
    f"dn: uid=ops,ou=people,dc=example,dc=com\nuserPassword: {REDACTED}",
)
example(
    "openvpn_static_key",
    "<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(t(32, HEX) for _ in range(4)) + "\n-----END OpenVPN Static key V1-----\n</tls-crypt>",
    f"<tls-crypt>\n{REDACTED}\n</tls-crypt>",
)
# the bare set's kinds (tests/secret_corpus/bare.py): value shapes with no key name
leak("fixed_prefix_token", "IQoJb3JpZ2luX2Vj" + t(120, ALNUM + "+/") + "==")
leak("fixed_prefix_token_2", "y0_AgAAAA" + t(50, URLSAFE))
leak("fixed_prefix_token_3", "CFPAT-" + t(43, URLSAFE))
leak("fixed_prefix_token_4", t(32, HEX) + "-" + t(8, HEX) + "-" + t(8, HEX))
leak("microsoft_identifiable_key", t(76, ALNUM + "+/") + "+ASt" + t(5) + "A==")
leak("microsoft_identifiable_key_2", t(76) + "AZDO" + t(4))
leak("signed_cookie_value", "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ." + t(6, URLSAFE) + "." + t(38, URLSAFE))


@pytest.mark.parametrize(("text", "expected"), KEYWORD_SHAPES)
def test_keyword_shapes(text: str, expected: str) -> None:
    assert scrub(text) == expected
    assert scrub(expected) == expected


def test_examples_cover_patterns() -> None:
    """One example per pattern, no more, no less (a new pattern needs a new example)."""
    assert sorted(EXAMPLES) == sorted(p.name for p in PATTERNS)
    assert len({p.name for p in PATTERNS}) == len(PATTERNS)


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_pattern_example(pattern) -> None:
    text, expected = EXAMPLES[pattern.name]
    match = re.search(pattern.regex, text)
    assert match is not None, f"{pattern.name} does not match its own example"
    assert any(h in match.group(0).lower() for h in pattern.hints), (
        f"{pattern.name}: hints miss its match"
    )
    assert scrub(text) == expected
    assert scrub(expected) == expected  # idempotent


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_pattern_is_re2(pattern) -> None:
    compiled = re2.compile(pattern.regex)
    assert compiled.groups == pattern.groups
    assert re.compile(pattern.regex).groups == pattern.groups
    assert pattern.description and pattern.family
    assert pattern.hints and all(h == h.lower() for h in pattern.hints)


def test_combined_regex_is_re2_and_final() -> None:
    """The Collector runs the combined alternation (Go RE2) in transform, then again in redaction:
    its output must never match it again (else redaction would mask what transform kept), and the
    Python per-pattern sequence must be final too."""
    combined = re2.compile(combined_regex())
    replacement = combined_replacement("python")
    texts = [text for text, _ in EXAMPLES.values()]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    for text in texts:
        once = combined.sub(replacement, text)
        assert combined.search(once) is None, (
            f"combined pattern matches its own output: {once!r}"
        )
        assert combined.search(scrub(text)) is None, (
            f"combined pattern matches scrub output: {text!r}"
        )


@functools.cache
def _collector_programs(patterns=PATTERNS) -> tuple:
    """The transform's regexes and replacements for one string field (``collector/generate.py``'s ``one()``), in RE2."""
    from errscope._patterns import MARK_READ, MARKED_LEFT, MARKS, marked_regex, marked_replacement, marking_regex

    # the read mark added after expanding: the binding copies a replacement's non-ASCII bytes one by one as characters
    # (and so does expand when a group did not match)
    marked = marked_replacement("python", patterns)
    assert marked.endswith(MARK_READ)
    one = (re2.compile(combined_regex(patterns)), combined_replacement("python", patterns))
    return one, re2.compile(marking_regex(patterns)), re2.compile(marked_regex(patterns)), marked.removesuffix(MARK_READ), re2.compile(MARKED_LEFT), re2.compile(MARKS)


def _collector_passes(text: str, patterns=PATTERNS) -> str:
    """What the Collector's transform writes for one string field, in RE2: a value that holds a mark before gets the one
    pass; else each match marked (found without its groups), each marked match's groups read and replaced, what that
    left of a marked match masked whole, the marks removed."""
    from errscope._patterns import MARK_END, MARK_READ, MARK_START

    (one, replacement), marking, marked, expand, left, marks = _collector_programs(patterns)
    if marks.search(text):
        return one.sub(replacement, text)
    passes = marking.sub(lambda found: MARK_START + found.group(0) + MARK_END, text)
    passes = marked.sub(lambda found: found.expand(expand) + MARK_READ, passes)
    return marks.sub("", left.sub(REDACTED, passes))


def test_the_collectors_marked_passes_scrub_as_its_one_pass() -> None:
    """The Collector's transform marks each match of the combined pattern found without its groups, then reads the
    groups of each marked match (``errscope._patterns.marked_regex``: Go copies every group into each NFA thread, so
    over the marked bytes alone), then masks a marked match left: the one pass's text on every example and shared
    corpus line (the held-out sets run through the real Collector in tests/integration/test_collector.py), with the
    marks removed last. Each line again with a mark inside, before and after its first match: the one pass too."""
    from errscope._patterns import MARK_END, MARK_READ, MARK_START, marked_regex, marking_regex

    one = re2.compile(combined_regex())
    assert re2.compile(marking_regex()).groups == 0 and re2.compile(marked_regex()).groups == one.groups + 1
    replacement = combined_replacement("python")
    texts = [text for text, _ in EXAMPLES.values()]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    differ = []
    for text in texts:
        if _collector_passes(text) != one.sub(replacement, text):
            differ.append(text)
    assert differ == []
    held = []
    for (text, _), mark in zip(EXAMPLES.values(), [MARK_START, MARK_END, MARK_READ] * len(EXAMPLES), strict=False):
        start, end = one.search(text).span()
        for cut in (start, (start + end) // 2, end):
            held.append(text[:cut] + mark + text[cut:])
    assert [text for text in held if _collector_passes(text) != one.sub(replacement, text)] == []


def test_a_marked_match_read_in_part_is_masked() -> None:
    """The marked regex reads a match without what stood before its start mark (``^`` and ``\\b`` see a mark), so an
    earlier alternative can end inside the marks, before a newline (the ``(\\n)`` after a ``$``): what it did not read
    is masked (``MARK_READ`` to the end mark), never left as text. Two patterns where the one pass, at ``xkey=`` (no
    word boundary), takes the second whole."""
    from errscope._patterns import SecretPattern

    patterns = (
        SecretPattern("word_key", "keyword", r"\bkey=[a-z]+", 0, "a key at a word's start"),
        SecretPattern("key_lines", "keyword", r"key=[a-z]+\n[a-z0-9]+", 0, "a key over two lines"),
    )
    text = "xkey=abc\nq7secretvalue9 end"
    assert re2.sub(combined_regex(patterns), REDACTED, text) == f"x{REDACTED} end"
    assert _collector_passes(text, patterns) == f"x{REDACTED}\n{REDACTED} end"


def test_the_marking_and_marked_rewrites() -> None:
    """Marking: every capture group made non-capturing, nothing else. Marked: anchors read around the marks, no class,
    ``.`` or ``\\S`` matching a mark; classes, escapes and ``(?...)`` groups left alone."""
    from errscope._patterns import _rewritten

    regex = r"^(a)(?:b)(?i:c)\((?P<n>d)[(^$\]][^]$]\x{28}(e|$)\A\z\b.\S"
    assert _rewritten(regex, groups=True) == r"^(?:a)(?:b)(?i:c)\((?:d)[(^$\]][^]$]\x{28}(?:e|$)\A\z\b.\S"
    assert _rewritten(regex, marked=True) == (
        r"(a)(?:b)(?i:c)\((?P<n>d)[(^$\]][^]$\x{fdd0}\x{fdd1}]\x{28}(e|(?:$|\x{fdd1}$))(?:\z|\x{fdd1}\z)\b"
        r"[^\n\x{fdd0}\x{fdd1}][^\s\x{fdd0}\x{fdd1}]"
    )
    with pytest.raises(ValueError):
        _rewritten(r"[\S\n]", marked=True)


def test_guard_admits_every_match() -> None:
    """The Collector skips the full pattern on free text where GUARD does not match: sound only if
    every match of every pattern satisfies GUARD (checked on every example and corpus line)."""
    from errscope._patterns import GUARD

    guard = re.compile(GUARD)
    texts = [text for text, _ in EXAMPLES.values()] + [
        text for text, _ in KEYWORD_SHAPES
    ]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets()]
    for pattern in PATTERNS:
        rx = re.compile(pattern.regex)
        for text in texts:
            for match in rx.finditer(text):
                assert guard.search(match.group(0)), (pattern.name, match.group(0))


def test_trigger_admits_every_match() -> None:
    """scrub runs a pattern only where its trigger matched (the one RE2 set pass): sound only if
    every match of every pattern satisfies its trigger (every example, shape and corpus line)."""
    texts = [text for text, _ in EXAMPLES.values()] + [text for text, _ in KEYWORD_SHAPES]
    texts += ["SMTP relay refused token tok-FAKE-77 for the reset code is 913-442"]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    for pattern in PATTERNS:
        rx, trigger = re2.compile(pattern.regex), re2.compile(pattern.trigger_regex)
        for text in texts:
            for match in rx.finditer(text):
                assert trigger.search(match.group(0)), (pattern.name, match.group(0))


def test_parse_reads_the_same_groups() -> None:
    """scrub finds a match with the capture-free pattern, then reads its kept groups with
    ``parse`` (a smaller program) on that span alone: sound only if those groups are the ones the
    full pattern gives (every example, shape and corpus line; keys written every way)."""
    texts = [text for text, _ in EXAMPLES.values()] + [text for text, _ in KEYWORD_SHAPES]
    texts += [
        f"{key}{sep}{value}"
        for key in ("api_key", "X-Api-Key", "db.password", "authToken2", "_pat", "client_secret_v2", "Sig", "\u017fecret", "api_\u212aey")
        for sep in ("=", ": ", '\\": \\"', "': '", '"=["')
        for value in ("Q7" + t(30, URLSAFE), "Fern!Stone#77 x", "'two words 9'")
    ]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    parsed = [p for p in PATTERNS if p.parse]
    assert {p.name for p in parsed} >= {"token_value", "keyword_compound_key"}
    for pattern in parsed:
        rx, parse = re2.compile(pattern.regex), re2.compile(pattern.parse)
        assert parse.groups == rx.groups
        for text in texts:
            for match in rx.finditer(text):
                again = parse.fullmatch(text, *match.span())
                spans = [match.span(g) for g in range(rx.groups + 1)]
                assert again is not None, (pattern.name, match.group(0))
                assert [again.span(g) for g in range(rx.groups + 1)] == spans, (pattern.name, match.group(0))


def test_collector_rendering_escapes_dollars() -> None:
    from errscope._patterns import collector_regex, collector_replacement

    assert "$$" in collector_regex() and "$$$" not in collector_regex().replace(
        "$$", ""
    )
    assert (
        collector_replacement().startswith("$${1}")
        and REDACTED in collector_replacement()
    )


# --- the shared corpus ---------------------------------------------------------------------------


def _need_corpus() -> None:
    require(corpus.corpus_dir() is not None, "shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")


def test_corpus_score() -> None:
    """Recall 1.00, benign false positives under 1% (here: none), scored as the corpus README says."""
    _need_corpus()
    result = corpus.score(scrub)
    assert [m["format"] for m in result.missed] == []
    assert result.recall == 1.0
    assert result.false_positive_rate < 0.01
    assert [(b["category"], out) for b, out in result.altered] == []
    # Read literally (any 5-char run of the secret anywhere in the output), the only misses are runs
    # that also occur in the untouched words around the secret (api.github.com, "RSA key").
    assert result.recall_literal >= 0.98
    for line in result.missed_literal:
        assert REDACTED in scrub(line["text"]) and line["secret"] not in scrub(
            line["text"]
        )


def test_corpus_score_regex_only() -> None:
    """The patterns alone (what the Collector runs) already reach the goal."""
    _need_corpus()
    combined = re2.compile(combined_regex())
    replacement = combined_replacement("python")
    result = corpus.score(lambda text: combined.sub(replacement, text))
    assert result.recall == 1.0 and result.false_positive_rate == 0.0


def test_every_format_has_five_lines_and_all_contexts() -> None:
    _need_corpus()
    lines = corpus.secrets(extension=False)
    assert len(lines) == 365 and len({line["format"] for line in lines}) == 73
    assert len(corpus.benign(extension=False)) == 250


def test_extension_is_generated_and_covers_the_kinds() -> None:
    """tests/secret_corpus is exactly what its generator writes (regenerate after editing it)."""
    from tests.secret_corpus import generate

    generate._rng.seed(13)
    secrets, benign = generate._records()
    assert corpus.secrets(shared=False) == secrets and corpus.benign(shared=False) == benign
    formats = {line["format"] for line in secrets}
    assert len(secrets) == 5 * len(formats) and len(formats) >= 30
    kinds = {f.split("_")[0] for f in formats}
    assert {"compound", "vendor", "authorization", "webhook", "odbc", "ado", "unknown", "short", "yaml"} <= kinds
    # the benign side carries masked values and DSNs with a user and no password
    assert {"masked_userinfo", "masked_authorization", "dsn_user_no_password"} <= {b["category"] for b in benign}


# --- URLs and DSNs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "postgresql://svc:s3cr3t-Pa55@db.internal.example:5432/orders",
            f"postgresql://{REDACTED}@db.internal.example:5432/orders",
        ),
        # '@' and '/' inside the password: the structural pass finds the real host
        (
            "amqp://bus:p@ss/w0rd@mq.example.test:5672/vhost",
            f"amqp://{REDACTED}@mq.example.test:5672/vhost",
        ),
        (
            "rediss://:tOk3n-only@cache.example.test:6380/0",
            f"rediss://{REDACTED}@cache.example.test:6380/0",
        ),
        (
            "mongodb+srv://app:Lime7~Tree@cluster9.example.net/db?retryWrites=true&w=majority",
            f"mongodb+srv://{REDACTED}@cluster9.example.net/db?retryWrites=true&w=majority",
        ),
        (
            "https://api.example.test/v1/export?sig=Ab12Cd34Ef56&se=2026-12-01&sp=r&api_key=k3yV4lue9",
            f"https://api.example.test/v1/export?sig={REDACTED}&se=2026-12-01&sp=r&api_key={REDACTED}",
        ),
        (
            "https://idp.example.test/cb?state=xyz&code=4/0AbCdEf&token=lowercase-but-named",
            f"https://idp.example.test/cb?state=xyz&code={REDACTED}&token={REDACTED}",
        ),
        (
            "jdbc:sqlserver://sql.example.test:1433;databaseName=sales;user=etl;password=Gr33n;Tea",
            f"jdbc:sqlserver://sql.example.test:1433;databaseName=sales;user=etl;password={REDACTED};Tea",
        ),
        (
            "dsn=\"host=db.example.test user=etl password='two words 9' sslmode=require\"",
            f"dsn=\"host=db.example.test user=etl password='{REDACTED}' sslmode=require\"",
        ),
        (
            "Server=tcp:sql.example.test,1433;User ID=etl;Password=Winter#2026;Encrypt=True",
            f"Server=tcp:sql.example.test,1433;User ID=etl;Password={REDACTED};Encrypt=True",
        ),
        # a '#' right after a credential's value is the password's symbol, not a fragment; after anything else it is one
        (
            "jdbc:postgresql://db.example.test:5432/app?user=ci&password=Harbor#432quokka&ssl=true",
            f"jdbc:postgresql://db.example.test:5432/app?user=ci&password={REDACTED}&ssl=true",
        ),
        ("https://docs.example.test/guide?page=2#password-rules", "https://docs.example.test/guide?page=2#password-rules"),
    ],
)
def test_urls_and_dsns(text: str, expected: str) -> None:
    assert scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "GET https://api.example.com/v1/orders?page=39&limit=50&sort=-created_at -> 200",
        "redirecting to https://app.example.com/login?next=%2Fdashboard&utm_source=email",
        "s3://exports-prod/orders/dt=2024-05-25/part-00065.snappy.parquet",
        "containerID=containerd://908db7bef41ccf21d49a6b7c3ec20daeb4349eaa0623d8abd9b939cf078275d9",
        "http://host.example.test:8080/path@v2/file",
        "git@github:acme/repo.git",
        "exit code 137, status code 200, token 401, access token refreshed",
        "2024-06-20 12:30:45 order 123-4567 item 12-34-5678",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 ERR-7K3M9QXZ",
        'password authentication failed for user "etl" (using password: YES)',
        "token usage prompt_tokens=8791 completion_tokens=1995 max_tokens=4096",
        "password: ${DB_PASSWORD} token: {{ secrets.NPM_TOKEN }} api_key=<YOUR_API_KEY>",
        "OPENAI_API_KEY=your-api-key-here password=os.environ['DB_PASSWORD']",
        'column "api_token_hash" does not exist; password_policy min_length=12',
        '{"token_type": "bearer", "expires_in": 3600, "scope": "read"}',
        "sha256:c103a644b7f599117fb4d225930946632372f5c057dc6be5a586343bfcb9c912",
        'Bearer realm="api", error="invalid_token"',
    ],
)
def test_benign_lookalikes_survive(text: str) -> None:
    assert scrub(text) == text


# --- bounded and robust --------------------------------------------------------------------------


def test_100kb_message_gives_bounded_output_fast() -> None:
    secret = "password=Zz9" + "x" * 20
    text = ("error detail " * 200 + secret + " ") * 40
    text = text + "y" * (100_000 - len(text)) if len(text) < 100_000 else text[:100_000]
    start = time.perf_counter()
    out = scrub(text)
    assert time.perf_counter() - start < 2.0
    assert len(out) <= MAX_SCRUB_CHARS + 64
    assert "TRUNCATED" in out and secret not in out


@pytest.mark.parametrize(
    "text",
    [
        "password=" + "a" * 100_000,
        "api_key=" + "a" * 100_000,
        "-----BEGIN PRIVATE KEY-----" + "A" * 100_000,
        "https://" + "u" * 50_000 + ":" + "p" * 50_000,
        "Authorization: Bearer " + "t" * 100_000,
        "eyJ" + "a" * 100_000,
        '"password": "' + "\\" * 100_000,
        "=" * 100_000,
        "pass " * 20_000,
        # one line of many e-mail addresses: each match's login-command check reads a bounded window before it, not
        # the whole line (it read from the line's start: ~3 s on 64 KiB)
        " ".join(f"to a{i}@b{i}.io" for i in range(6000)),
        # an address after a remote-login command whose ``-o ssh`` pairs read two ways each (exponential in the pairs)
        "ssh" + " -o ssh" * 26 + " foo bar ops@example.com",
    ],
    ids=lambda s: s[:12],
)
def test_pathological_inputs_stay_fast(text: str) -> None:
    start = time.perf_counter()
    out = scrub(text)
    assert time.perf_counter() - start < 2.0
    assert len(out) <= MAX_SCRUB_CHARS + 64


@pytest.mark.parametrize(
    "value",
    [
        "lone surrogate \ud800 password=Hunter22x",
        "nul \x00 bytes \x00 api_key=Ab12Cd34Ef56",
        "",
        "\udcff\udcfe",
        "emoji 🔑 password=Pässwörd9",
    ],
)
def test_odd_input_never_raises(value: str) -> None:
    out = scrub(value)
    assert isinstance(out, str)
    assert (
        "Hunter22x" not in out and "Ab12Cd34Ef56" not in out and "Pässwörd9" not in out
    )


def test_non_str_input() -> None:
    assert scrub(12345) == "12345"  # type: ignore[arg-type]
    assert scrub(b"password=Hunter22x") != "b'password=Hunter22x'"  # type: ignore[arg-type]
    assert "Hunter22x" not in scrub(b"password=Hunter22x")  # type: ignore[arg-type]


# --- structured values ---------------------------------------------------------------------------


def test_scrub_value_walks_and_keeps_safe_keys() -> None:
    event = {
        "event": "db failed: postgresql://svc:Hunter22x@db:5432/app",
        "error.type": "password=looks-like-but-is-a-type-9",
        "errscope.error_ref": "ERR-7K3M9QXZ",
        "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
        "nested": {
            "list": ["api_key=Ab12Cd34Ef56", ("token=Zz99Yy88Xx77",)],
            "n": 3,
            "ok": True,
        },
    }
    out = scrub_value(event)
    assert out["event"] == f"db failed: postgresql://{REDACTED}@db:5432/app"
    assert out["error.type"] == event["error.type"]
    assert out["errscope.error_ref"] == "ERR-7K3M9QXZ"
    assert out["trace_id"] == event["trace_id"]
    assert out["nested"]["list"] == [f"api_key={REDACTED}", (f"token={REDACTED}",)]
    assert out["nested"]["n"] == 3 and out["nested"]["ok"] is True
    assert {
        "error.type",
        "errscope.failure_class",
        "errscope.error_ref",
        "trace_id",
        "span_id",
    } <= SAFE_KEYS


def test_scrub_value_is_bounded() -> None:
    deep: object = "password=Hunter22x"
    for _ in range(100):
        deep = [deep]
    assert "Hunter22x" not in repr(scrub_value(deep))
    wide = ["password=Hunter22x"] * 20_000
    out = scrub_value(wide)
    assert len(out) <= 10_001 and "Hunter22x" not in repr(out)


def test_public_api() -> None:
    assert errscope.scrub is scrub
    assert "scrub" in errscope.__all__


def test_loose_with_digit_covers_every_16_run_and_nothing_under_11() -> None:
    """The value shape of the verified patterns: every run of 16+ with a digit wherever the digit
    sits (the old shape missed digits in the middle of a 16-30 run), and no run shorter than 11, so
    the Collector (no entropy check) leaves dates and short ids alone."""
    from errscope._patterns import _loose_with_digit

    shape = re2.compile(_loose_with_digit("[A-Za-z0-9]", "[A-Za-z]"))
    for n in range(1, 40):
        for q in range(n):
            matched = shape.fullmatch("a" * q + "1" + "a" * (n - q - 1)) is not None
            assert matched if n >= 16 else (not matched or n >= 11), (n, q)
            assert not matched or n >= 11, (n, q)


@pytest.mark.parametrize(
    "key", ["كلمة المرور", "пароль", "パスワード", "密码", "contraseña", "κωδικός"]
)
def test_a_key_word_of_another_script_stays_and_only_its_value_is_masked(key: str) -> None:
    """The groups that keep the key are read with the whole pattern when the shorter ``parse`` program does not
    take the key (found by comparing two engines: the whole line went, key and all)."""
    assert scrub(f"{key}=Xq7rT2pLm9vB") == f"{key}=[REDACTED]"


@pytest.mark.parametrize(("trace", "words"), [
    ("java.lang.IllegalStateException: rejected\n\tat com.x.Charge.run(Charge.java:12)\n\tat sun.X.y(Native Method)",
     "java.lang.IllegalStateException: rejected"),
    ("TypeError: x is undefined\n    at foo (/app/x.js:3:14)\n    at /app/y.js:1:1", "TypeError: x is undefined"),
    ("System.Exception: boom\n   at Ns.C.M() in C:\\src\\f.cs:line 42", "System.Exception: boom"),
    ('Traceback (most recent call last):\n  File "/app/x.py", line 3, in <module>\n    f()\nValueError: bad', "ValueError: bad"),
    ("panic: oops\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d", "panic: oops"),
    ("boom\nstack backtrace:\n   0: std::panicking::begin_panic\n   1: app::main", "boom\nstack backtrace:"),
])
def test_a_stack_trace_in_error_data_text_is_cut_to_the_exceptions_words(trace: str, words: str) -> None:
    """J161, J176: a JSON-RPC error's ``data`` text (or a text field of it) loses its frames, keeps what was raised."""
    from errscope._scrubbing import without_stack_traces

    assert without_stack_traces(trace) == f"{words} [stack trace removed]"
    assert without_stack_traces({"message": trace, "stack": "x", "n": 1}) == {"message": f"{words} [stack trace removed]", "n": 1}


@pytest.mark.parametrize("text", [
    "at 10:30 (UTC) the nightly job failed\nretry later",  # a line that starts with "at" but is no frame
    "order A-1 not found", "see https://status.example/incidents/42", "file config.yaml line 3: bad indent",
])
def test_text_without_frames_is_kept(text: str) -> None:
    from errscope._scrubbing import without_stack_traces

    assert without_stack_traces(text) == text


def test_frame_detection_is_linear_on_long_lines() -> None:
    from errscope._scrubbing import without_stack_traces

    started = time.perf_counter()
    for text in ("at " + "x" * 200_000, ("at a" + " " * 300 + "\n") * 2000, "0: " + "a" * 100_000, "x" * 100_000 + ".go:1"):
        without_stack_traces(text)
    assert time.perf_counter() - started < 5.0  # ~0.05 s here; quadratic backtracking took seconds per input


@pytest.mark.parametrize(("text", "expected"), [
    ("\x1b[31m\x1b[1merror\x1b[0m: refused", "error: refused"),
    ("\x1b[2K\x1b[1Ahidden line", "hidden line"),
    ("\x1b]8;;https://evil.example/\x07the docs\x1b]8;;\x07", "the docs"),
    ("\x1b]8;;https://evil.example/\x1b\\the docs\x1b]8;;\x1b\\", "the docs"),
    ("\x1b]0;title\x07text", "text"),
    ("\x9b31mC1 colour", "C1 colour"),
    ("a\x1b(Bb", "ab"),
    ("no escapes [31m", "no escapes [31m"),
])
def test_terminal_escapes_go_whole(text: str, expected: str) -> None:
    """J164, J177: ECMA-48 sequences are removed whole, their visible text kept."""
    from errscope._foreign_text import without_terminal_escapes

    assert without_terminal_escapes(text) == expected
