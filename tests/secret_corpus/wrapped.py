"""A fourth held-out set, by another author: secrets ENCODED or EMBEDDED in what an MCP error carries.

    python -m tests.secret_corpus.wrapped   # rewrites wrapped_*.jsonl.gz here

Written before reading the scrubber's patterns, from encodings and containers the earlier sets have
little of: URL-encoded key/value pairs and userinfo (``%3D``, ``%40``), form bodies, JSON escaped
inside a JSON string (once and twice), ``\\u0026``/``\\u00fc`` escapes, HTML entities, Python
``bytes``/``str`` reprs with ``\\r\\n``, ASGI header lists; SQL statements (``IDENTIFIED BY``,
``PASSWORD '...'``); process listings and argv (``ps aux``, ``sshpass``, ``openssl -passin pass:``,
``keytool``, ``sqlcmd -P``, PowerShell, ``net use``, ``cmdkey``, ``htpasswd``, ``chpasswd``);
logfmt, CEF and RFC 5424 structured data; HTTP/2 and gRPC metadata dumps in Python and Go; GraphQL
errors echoing variables; library error texts (boto's ``SignatureDoesNotMatch`` XML, botocore's
prepared request, Elasticsearch's ``api_key`` tuple); config dumps of Go ``%#v``, C# records, PHP
``var_dump``/``print_r``, Perl; a token split by a line wrap; full-width and other non-ASCII
separators; base32, Crockford, base58 and dash-grouped keys; short passwords under clear keys.
Benign look-alikes in the same containers: digests, SHAs, ETags, CSP nonces, trace ids, k8s UIDs,
data URIs, lockfile hashes, masked values (``PASSWORD 'REDACTED'``, ``[FILTERED]``, ``**``),
placeholders, public keys, checksums in URLs, GraphQL cursors, OAuth ``state``, certificate bodies.

Same row format as ``../shared/corpus``; the ``secret`` field is the substring exactly as it appears
in the text (encoded, escaped or wrapped). Values are fake, from a fixed seed; 68 secret formats x 3
and 26 benign categories x 4. ``tests/test_scrub_wrapped.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import quote

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, Maker, b64, kv, pick, pw, rnd, ts, uuid

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
UPPER_HEX = "0123456789ABCDEF"
_r = heldout._rng  # the helpers above draw from it: wrapped() seeds it


def pct() -> str:
    """A human-made password, percent-encoded as a URL or form body carries it."""
    return quote(pw(), safe="")


def spaced() -> str:
    """A passphrase with spaces (quoted where it stands)."""
    return f"{pick('blue', 'Quiet', 'river', 'Mango')} {pick('stone', 'Lamp', 'orbit')} {_r.randint(10, 99)}{pick('!', '#', '?')}"


def short() -> str:
    """A short but real password: 6-8 characters of three classes."""
    return rnd(_r.randint(4, 6)) + pick("!", "#", "%", "*") + str(_r.randint(1, 9))


def dashed(groups: int, size: int, alphabet: str = UPPER_HEX) -> str:
    return "-".join(rnd(size, alphabet) for _ in range(groups))


def wrap(value: str, at: int, indent: str) -> str:
    """A long value broken by a terminal or log wrap: what the reader sees (and must not)."""
    return value[:at] + "\n" + indent + value[at:]


def esc_u(value: str) -> str:
    """JSON with ``ensure_ascii``: every non-ASCII character as ``\\uXXXX``."""
    return json.dumps(value)[1:-1]


def umlaut_pw() -> str:
    return esc_u(f"{pick('Grüße', 'Tür', 'Straße', 'Öffnung')}-{_r.randint(100, 9999)}{pick('ä', 'ß', 'é')}{pick('!', '#')}")


def registry_auth() -> str:
    return base64.urlsafe_b64encode(json.dumps({"username": "ci", "password": pw(), "serveraddress": "registry.example.com"}).encode()).decode()


WRAPPED_SECRETS: list[tuple[str, str, Maker]] = [
    # URL-encoded: a key/value pair inside a parameter, userinfo with %40, redirects, fragments
    ("urlenc_pair_in_param", "url", kv("{ts} WARN proxy: upstream 400 for /connect?dsn=host%3Ddb%26user%3Dsvc%26password%3D{s}%26sslmode%3Drequire", pct)),
    ("urlenc_userinfo_pct40_user", "exception", kv("ftplib.error_perm: 530 Login incorrect. url=ftp://ops%40corp.example:{s}@ftp.example.com/uploads", pct)),
    ("urlenc_userinfo_pct_password", "exception", kv("redis.exceptions.AuthenticationError: invalid username-password pair for rediss://default:{s}@cache.internal:6380/0", lambda: quote(pw() + "@" + pw(), safe=""))),
    ("urlenc_redirect_api_key", "url", kv('127.0.0.1 - - [01/Jun/2025:10:00:00 +0000] "GET /login?next=https%3A%2F%2Fapi.example.com%2Fv1%2Fexport%3Fapi_key%3D{s}%26fmt%3Dcsv HTTP/1.1" 302 0', lambda: rnd(32))),
    ("url_fragment_access_token", "url", kv("Navigation to https://app.example.com/callback#access_token={s}&token_type=Bearer&expires_in=3600 blocked by CSP", lambda: rnd(40, B64URL))),
    ("html_amp_query_password", "exception", kv('<p>Bad request: <a href="/db/connect?user=app&amp;password={s}&amp;db=shop">retry</a></p>', lambda: rnd(14))),
    # form-encoded bodies
    ("form_client_secret", "exception", kv("httpx.HTTPStatusError: Client error '401 Unauthorized' for url 'https://login.example.com/oauth2/token'; request body: grant_type=client_credentials&client_id=svc-app&client_secret={s}&scope=api.read", lambda: rnd(34, ALNUM + "~._-"))),
    ("form_password_grant", "log", kv("{ts} DEBUG oauthlib: body=grant_type=password&username=alice%40example.com&password={s}&client_id=cli", pct)),
    ("form_refresh_token_first", "log", kv("POST /oauth/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nrefresh_token={s}&grant_type=refresh_token", lambda: rnd(64, B64URL))),
    # JSON escaped inside JSON, twice, unicode escapes, HTML entities
    ("json_escaped_api_key", "json", kv('{{"jsonrpc": "2.0", "id": 4, "error": {{"code": -32603, "message": "upstream said: {{\\"api_key\\":\\"{s}\\",\\"region\\":\\"eu-1\\"}}"}}}}', lambda: rnd(40))),
    ("json_double_escaped_password", "json", kv('{{"log": "{{\\\\\\"event\\\\\\":\\\\\\"login\\\\\\",\\\\\\"password\\\\\\":\\\\\\"{s}\\\\\\"}}"}}', pw)),
    ("json_escaped_dsn_in_detail", "json", kv('{{"detail": "{{\\"error\\": \\"could not connect to \\\\\\"postgresql://app:{s}@db:5432/shop\\\\\\"\\"}}"}}', pw)),
    ("go_json_u0026_token", "json", kv('{{"level":"error","msg":"request failed","url":"https://api.example.com/v1/search?q=x\\u0026access_token={s}\\u0026page=2"}}', lambda: rnd(40, B64URL))),
    ("json_unicode_escaped_password", "json", kv('{{"error": "auth failed", "request": {{"user": "m\\u00fcller", "password": "{s}"}}}}', umlaut_pw)),
    ("html_entity_json", "exception", kv("<pre>Request body: {{&quot;client_id&quot;:&quot;web&quot;,&quot;client_secret&quot;:&quot;{s}&quot;}}</pre>", lambda: rnd(36))),
    # Python reprs: bytes with \r\n, str with \n, ASGI header lists, botocore's prepared request
    ("bytes_repr_raw_request", "exception", kv("h11._util.RemoteProtocolError: can't handle event; data=b'POST /v1/chat HTTP/1.1\\r\\nHost: api.example.com\\r\\nAuthorization: Bearer {s}\\r\\n\\r\\n'", lambda: rnd(48, B64URL))),
    ("str_repr_newline_config", "exception", kv("ValueError('bad config:\\nuser: app\\npassword: {s}\\nhost: db')", pw)),
    ("bytes_repr_env_file", "exception", kv("dotenv: parse error at line 3 of b'DB_HOST=db\\nDB_PASSWORD={s}\\nDB_PORT=5432\\n'", pw)),
    ("asgi_header_list", "exception", kv("KeyError: 'user' in scope headers [(b'host', b'mcp.example.com'), (b'authorization', b'Bearer {s}'), (b'accept', b'*/*')]", lambda: rnd(40, B64URL))),
    ("botocore_security_token_bytes", "log", kv("DEBUG botocore.endpoint: Sending http request: <AWSPreparedRequest stream_output=False, method=GET, url=https://s3.amazonaws.com/bkt, headers={{'X-Amz-Security-Token': b'{s}', 'User-Agent': b'Boto3/1.34'}}>", lambda: "IQoJb3JpZ2luX2Vj" + rnd(180, B64))),
    ("werkzeug_environ_headers", "exception", kv("werkzeug.exceptions.Unauthorized: headers=EnvironHeaders([('Host', 'api'), ('X-Api-Token', '{s}'), ('Accept', '*/*')])", lambda: rnd(32, HEX))),
    # SQL statements
    ("sql_create_user_identified_by", "exception", kv("pymysql.err.OperationalError: (1396, \"Operation CREATE USER failed for 'app'@'%'\") [SQL: CREATE USER 'app'@'%' IDENTIFIED BY '{s}']", pw)),
    ("sql_alter_role_password", "log", kv("{ts} UTC [812] ERROR:  role \"app\" does not exist\n{ts} UTC [812] STATEMENT:  ALTER ROLE app WITH LOGIN PASSWORD '{s}' VALID UNTIL 'infinity'", pw)),
    ("sql_set_password_for", "exception", kv("mysql.connector.errors.ProgrammingError: 1133 (28000): Can't find any matching row in the user table; statement: SET PASSWORD FOR 'ops'@'localhost' = '{s}'", pw)),
    ("sql_oracle_identified_by_quoted", "exception", kv('cx_Oracle.DatabaseError: ORA-01918: user \'SCOTT\' does not exist; ALTER USER scott IDENTIFIED BY "{s}" ACCOUNT UNLOCK', lambda: rnd(14))),
    ("sql_create_login_mssql", "exception", kv("pyodbc.ProgrammingError: ('42000', \"[42000] [Microsoft][ODBC Driver 18 for SQL Server][SQL Server]CREATE LOGIN reporting WITH PASSWORD = N'{s}', CHECK_POLICY = ON (15118)\")", pw)),
    # process listings and argv
    ("ps_aux_sshpass", "log", kv("root      4121  0.0  0.1   7488  3320 ?        S    10:02   0:00 sshpass -p {s} ssh -o StrictHostKeyChecking=no deploy@10.0.4.7", pw)),
    ("openssl_pass_colon", "log", kv("+ openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}", pw)),
    ("keytool_storepass", "log", kv("+ keytool -importcert -alias ca -file ca.pem -keystore truststore.jks -storepass {s} -noprompt", pw)),
    ("sqlcmd_capital_p", "log", kv('+ sqlcmd -S tcp:sql01,1433 -U sa -P {s} -Q "SELECT 1"', pw)),
    ("powershell_securestring", "log", kv("PS C:\\deploy> $cred = New-Object PSCredential('svc', (ConvertTo-SecureString '{s}' -AsPlainText -Force))", pw)),
    ("net_use_user_password", "log", kv("C:\\> net use \\\\fs01\\backup /user:CORP\\svc_backup {s} /persistent:no\nSystem error 1326 has occurred.", pw)),
    ("cmdkey_pass", "log", kv("C:\\> cmdkey /generic:TERMSRV/host01 /user:CORP\\admin /pass:{s}", pw)),
    ("htpasswd_batch", "log", kv("+ htpasswd -b -c /etc/nginx/.htpasswd admin {s}", pw)),
    ("chpasswd_echo", "log", kv("+ echo 'deploy:{s}' | chpasswd", pw)),
    ("redis_cli_a", "log", kv("+ redis-cli -h cache.internal -a {s} --no-auth-warning ping\n(error) WRONGPASS invalid username-password pair", lambda: rnd(32))),
    ("mysqldump_quoted_p", "log", kv("+ mysqldump -ubackup -p'{s}' --single-transaction shop > /backup/shop.sql", pw)),
    ("powershell_hashtable_header", "log", kv('PS> Invoke-RestMethod -Uri https://api.example.com/v2/jobs -Headers @{{ "X-API-Key" = "{s}" }}', lambda: rnd(32))),
    # logfmt, CEF, syslog structured data
    ("logfmt_odd_key_dbpass", "log", kv('level=error ts={ts} msg="auth failed" svc=billing dbpass={s} attempt=3', pw)),
    ("logfmt_quoted_spaces", "log", kv('time="{ts}" level=warning msg="bind failed" ldap_bind_pw="{s}" host=ldap01', spaced)),
    ("cef_label_value", "log", kv("CEF:0|Acme|Gateway|2.1|401|Auth failure|7|src=10.0.0.5 suser=svc cs1Label=apiKey cs1={s} act=blocked", lambda: rnd(40))),
    ("syslog_structured_data", "log", kv('<134>1 2025-06-01T10:00:00.003Z api-7 app 4121 AUTH [meta@32473 user="svc" passwd="{s}"] login failed', pw)),
    # HTTP/2 and gRPC metadata
    ("h2_frame_dump", "log", kv("[  0.012] send HEADERS frame <length=96, flags=0x05, stream_id=1>\n          ; END_STREAM | END_HEADERS\n          :method: GET\n          :path: /v1/items\n          x-api-key: {s}", lambda: rnd(40, B64URL))),
    ("grpc_python_metadata", "exception", kv("grpc._channel._InactiveRpcError: status = StatusCode.UNAUTHENTICATED, details = \"bad token\", metadata=(('authorization', 'Bearer {s}'), ('x-request-id', 'r-17'))", lambda: rnd(40, B64URL))),
    ("grpc_go_md_map", "log", kv("rpc error: code = Unauthenticated desc = rejected; md=map[:authority:[api:443] authorization:[Bearer {s}] user-agent:[grpc-go/1.64.0]]", lambda: rnd(40, B64URL))),
    ("go_http_header_map", "log", kv('{ts} http: proxy error: dial tcp: timeout; req.Header=map[Accept:[*/*] X-Auth-Token:[{s}]]', lambda: rnd(32, HEX))),
    ("grpc_gateway_metadata_header", "header", kv("Grpc-Metadata-Api-Key: {s}", lambda: rnd(36))),
    # GraphQL errors echoing variables
    ("graphql_variables_escaped", "json", kv('{{"errors": [{{"message": "Variable \\"$input\\" got invalid value {{\\"email\\": \\"ops\\", \\"newPassword\\": \\"{s}\\"}}"}}]}}', pw)),
    ("graphql_inline_argument", "exception", kv('GraphQLError: Cannot return null for non-nullable field Mutation.login. Query: mutation {{ login(username: "ops", secret: "{s}") {{ token }} }}', lambda: rnd(28))),
    # library error texts
    ("s3_signature_mismatch_xml", "exception", kv("botocore.exceptions.ClientError: SignatureDoesNotMatch <Error><Code>SignatureDoesNotMatch</Code><AWSAccessKeyId>AKIAQWERTYUIOP234567</AWSAccessKeyId><SignatureProvided>{s}</SignatureProvided></Error>", lambda: rnd(64, HEX))),
    ("elasticsearch_api_key_tuple", "exception", kv("elasticsearch.AuthenticationException: AuthenticationException(401) for Elasticsearch(['https://es:9200'], api_key=('VuaCfGcBCdbkQm-e5aOx', '{s}'))", lambda: rnd(22, B64URL))),
    ("docker_registry_auth_header", "header", kv("X-Registry-Auth: {s}", registry_auth)),
    # config dumps: Go %#v, C# records, PHP, Perl
    ("go_sharp_v_struct", "exception", kv('panic: config.DB{{Host:"db", Port:5432, User:"app", Password:"{s}", SSL:true}}', pw)),
    ("csharp_record_tostring", "exception", kv("Microsoft.Extensions.Options.OptionsValidationException: SmtpOptions {{ Host = smtp.example.com, Port = 587, UserName = mailer, Password = {s} }}", pw)),
    ("php_var_dump", "log", kv('array(2) {{\n  ["user"]=>\n  string(3) "app"\n  ["password"]=>\n  string(12) "{s}"\n}}', pw)),
    ("php_print_r", "log", kv("Array\n(\n    [host] => db\n    [api_secret] => {s}\n)", lambda: rnd(32))),
    ("perl_data_dumper", "log", kv("$VAR1 = {{ 'dbuser' => 'app', 'dbpass' => '{s}' }};", pw)),
    # a token split by a line wrap
    ("wrapped_bearer_indent", "log", lambda: (lambda t: (w := wrap(t, 30, "    "), f"{ts()} ERROR upstream 401: Authorization: Bearer {w}\n    (retrying in 2s)"))(rnd(60, B64URL))),
    ("wrapped_kv_column", "log", lambda: (lambda t: (w := wrap(t, 22, ""), f"kubectl logs api-7 | cut -c1-80\nenv: GITHUB_TOKEN=ghp_{w}"))(rnd(36))),
    # non-ASCII around the secret
    ("fullwidth_separators", "log", kv("错误：数据库连接失败，密码：{s}，请检查配置", pw)),
    ("guillemets_prose", "log", kv("Échec de connexion : le jeton d'API «{s}» a expiré", lambda: rnd(32))),
    ("emoji_adjacent", "log", kv("🔑 api_token={s}✅ deployed to prod", lambda: rnd(32))),
    # unusual alphabets and short passwords under clear keys
    ("base32_recovery_key", "log", kv("{ts} ERROR 2fa: restore failed; recovery_key={s}", lambda: dashed(4, 8, B32))),
    ("crockford_session_token", "json", kv('{{"session_token": "{s}", "ttl": 3600}}', lambda: rnd(26, CROCKFORD))),
    ("base58_private_key", "log", kv("{ts} ERROR signer: bad keypair; SOLANA_PRIVATE_KEY={s}", lambda: rnd(88, B58))),
    ("hex_dashes_license", "exception", kv("LicenseError: license key {s} was revoked", lambda: dashed(5, 5, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"))),
    ("short_password_json", "json", kv('{{"username": "ops", "password": "{s}"}}', short)),
    ("short_password_yaml_flow", "log", kv("credentials: {{user: app, pass: {s}}}", short)),
]

WRAPPED_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("urlenc_benign_query", "url", lambda: pick(f"GET /search?q=password%20reset%20help&page={_r.randint(1, 9)}", "GET /authorize?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=openid%20profile", f"GET /docs?topic=api%20keys%20rotation&ref={rnd(8, HEX)}", "next=%2Fsettings%2Ftokens%3Ftab%3Dpersonal")),
    ("sql_masked_password", "log", lambda: pick("STATEMENT:  ALTER ROLE app WITH PASSWORD 'REDACTED'", "CREATE USER 'app'@'%' IDENTIFIED BY '********'", "CREATE USER 'app'@'%' IDENTIFIED WITH caching_sha2_password", "ALTER USER app PASSWORD EXPIRE INTERVAL 90 DAY", "ALTER ROLE app WITH PASSWORD NULL")),
    ("sql_plain_statements", "exception", lambda: pick(f"[SQL: SELECT id, token_type, expires_at FROM oauth_tokens WHERE user_id = %(user_id)s] [parameters: {{'user_id': {_r.randint(1, 9999)}}}]", "[SQL: UPDATE users SET password_hash = $1 WHERE id = $2]", f"psycopg.errors.UniqueViolation: duplicate key value violates unique constraint \"api_keys_pkey\" DETAIL: Key (id)=({_r.randint(1, 9999)}) already exists.", "ERROR:  column \"secret\" does not exist at character 8")),
    ("process_listing_benign", "log", lambda: pick(f"root         1  0.0  0.1  12345  6789 ?  Ss  10:00  0:01 /usr/bin/python3 -m uvicorn app:app --port {_r.randint(8000, 8999)} --workers 4", "+ sshpass -f /run/secrets/ssh_pw ssh deploy@10.0.4.7", "+ openssl pkcs12 -export -in c.pem -out b.p12 -passout env:P12_PASS", "+ openssl rsa -in key.pem -passin file:/run/secrets/key_pass -check", "+ keytool -list -keystore truststore.jks -storepass:env STOREPASS")),
    ("digests", "log", lambda: pick(f"Docker-Content-Digest: sha256:{rnd(64, HEX)}", f"Content-Digest: sha-256=:{b64(32)}:", f"Repo digest: ghcr.io/acme/api@sha256:{rnd(64, HEX)}")),
    ("commit_shas_in_urls", "url", lambda: pick(f"https://github.com/acme/api/commit/{rnd(40, HEX)}", f"git+https://github.com/acme/lib.git@{rnd(40, HEX)}#egg=lib", f"https://gitlab.example.com/acme/api/-/blob/{rnd(40, HEX)}/README.md")),
    ("etags", "header", lambda: pick(f'If-None-Match: "{rnd(32, HEX)}"', f'ETag: "{b64(18)}"', f'ETag: W/"{rnd(8, HEX)}-{rnd(27, B64URL)}"')),
    ("csp_nonce", "header", lambda: f"Content-Security-Policy: script-src 'nonce-{b64(16)}' 'strict-dynamic'; object-src 'none'"),
    ("trace_ids", "header", lambda: pick(f"X-Amzn-Trace-Id: Root=1-{rnd(8, HEX)}-{rnd(24, HEX)};Parent={rnd(16, HEX)};Sampled=1", f"X-Cloud-Trace-Context: {rnd(32, HEX)}/{_r.randint(10**15, 10**16)};o=1", f"traceparent: 00-{rnd(32, HEX)}-{rnd(16, HEX)}-01", f"X-Request-ID: {uuid()}")),
    ("k8s_uids", "log", lambda: f"metadata:\n  name: api-{rnd(10, 'bcdfghjklmnpqrstvwxz2456789')}-{rnd(5, 'bcdfghjklmnpqrstvwxz2456789')}\n  uid: {uuid()}\n  resourceVersion: \"{_r.randint(10**5, 10**7)}\"\n  labels:\n    pod-template-hash: {rnd(9, 'bcdfghjklmnpqrstvwxz2456789')}"),
    ("data_uris", "json", lambda: pick(f'{{"icon": "data:image/svg+xml;base64,PHN2ZyB4bWxucz0i{rnd(40, B64)}"}}', f"src: url(data:font/woff2;base64,d09GMgABAAAAA{rnd(50, B64)}) format('woff2')")),
    ("lockfile_integrity", "log", lambda: pick(f'"integrity": "sha512-{b64(64)}"', f'  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#{rnd(40, HEX)}"', f'{{file = "idna-3.7-py3-none-any.whl", hash = "sha256:{rnd(64, HEX)}"}}')),
    ("masked_and_templated", "log", lambda: pick("password=${DB_PASSWORD}", "api_key: <YOUR_API_KEY>", 'token: "{{ .Values.api.token }}"', "Parameters: {\"user\"=>\"ops\", \"password\"=>\"[FILTERED]\"}", '{"password": "[Filtered]", "username": "ops"}', "[ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabbit:5672//: timed out.", "Looking in indexes: https://__token__:****@pypi.example.com/simple", "secret=%(secret)s")),
    ("public_keys", "log", lambda: pick(f"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{rnd(64, B64)}\n-----END PUBLIC KEY-----", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rnd(60, B64)} ci@runner", f"age recipient: age1{rnd(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}")),
    ("checksums_in_urls", "url", lambda: pick(f"https://files.pythonhosted.org/packages/ab/cd/pkg-1.0.tar.gz#sha256={rnd(64, HEX)}", f"https://releases.example.com/app-1.2.{_r.randint(0, 9)}.tar.gz?checksum=sha256:{rnd(64, HEX)}", f"example.com/mod v1.2.3 h1:{b64(32)}")),
    ("json_escaped_benign", "json", lambda: pick('{"body": "{\\"token_type\\":\\"Bearer\\",\\"expires_in\\":3600}"}', '{"message": "{\\"error\\":\\"invalid_grant\\",\\"error_description\\":\\"Invalid refresh token\\"}"}', f'{{"log": "{{\\\\\\"trace_id\\\\\\":\\\\\\"{rnd(32, HEX)}\\\\\\"}}"}}')),
    ("graphql_benign", "json", lambda: pick('{"errors": [{"message": "Cannot query field \\"passwordHash\\" on type \\"User\\".", "locations": [{"line": 3, "column": 5}]}]}', f'{{"variables": {{"first": 20, "after": "{base64.b64encode(f"arrayconnection:{_r.randint(10, 999)}".encode()).decode()}"}}}}', f'{{"query": "query {{ node(id: \\"{base64.b64encode(f"User:{_r.randint(1000, 99999)}".encode()).decode()}\\") {{ id }} }}"}}')),
    ("grpc_metadata_benign", "exception", lambda: pick(f"metadata=(('x-request-id', '{uuid()}'), ('grpc-accept-encoding', 'identity,deflate,gzip'))", f"grpc-status-details-bin: {b64(40)}", f"md=map[:authority:[api.example.com:443] content-type:[application/grpc] x-request-id:[{uuid()}]]")),
    ("logfmt_benign", "log", lambda: pick(f'level=info msg="token refreshed" token_ttl=3600s key_id=k-{rnd(8, HEX)} duration={_r.randint(1, 99)}ms', "level=info msg=\"password changed\" password_changed=true user=ops", f"level=debug msg=\"cache hit\" key=user:{_r.randint(1, 9999)}:profile")),
    ("cef_syslog_benign", "log", lambda: pick(f"CEF:0|Acme|WAF|1.0|100|Blocked|5|src=10.0.0.{_r.randint(1, 254)} requestMethod=POST request=/login cs1Label=rule cs1={_r.randint(900000, 999999)}", '<134>1 2025-06-01T10:00:00Z api-7 app 4121 AUTH [meta@32473 user="svc" method="password" result="fail"] login failed')),
    ("h2_frames_benign", "log", lambda: f"[  0.021] recv HEADERS frame <length=68, flags=0x04, stream_id={_r.randint(1, 99) * 2 + 1}>\n          :status: 200\n          x-ratelimit-remaining: {_r.randint(0, 5000)}\n          etag: \"{rnd(32, HEX)}\""),
    ("certificate_body_wrapped", "log", lambda: "-----BEGIN CERTIFICATE-----\nMIID" + "\n".join(rnd(64, B64) for _ in range(3)) + "\n-----END CERTIFICATE-----"),
    ("nonascii_prose", "log", lambda: pick("用户 alice 的密码已过期，请重置", "Passwort zu kurz (mindestens 12 Zeichen)", "パスワードを入力してください", "contraseña incorrecta para el usuario ops", "Mot de passe oublié ? Consultez l'aide")),
    ("unusual_alphabet_ids", "log", lambda: pick(f"order_id={rnd(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')}", f"ipfs cid=Qm{rnd(44, B58)}", f"tx={rnd(88, B58)} confirmed in slot {_r.randint(10**8, 10**9)}", f"MAC 00-{rnd(2, UPPER_HEX)}-{rnd(2, UPPER_HEX)}-{rnd(2, UPPER_HEX)}-{rnd(2, UPPER_HEX)}-{rnd(2, UPPER_HEX)} not leased")),
    ("oauth_form_benign", "log", lambda: pick(f"grant_type=authorization_code&code_challenge_method=S256&redirect_uri=https%3A%2F%2Fapp%2Fcb&client_id=web-app&state={rnd(16, HEX)}", f"response_type=code&client_id=web&nonce={rnd(22, B64URL)}&scope=openid%20email", "token_endpoint_auth_method=client_secret_post&grant_types=refresh_token")),
    ("fingerprints", "log", lambda: pick("SHA256 Fingerprint=" + ":".join(rnd(2, UPPER_HEX) for _ in range(32)), f"Server key fingerprint is SHA256:{rnd(43, B64)}", "serial=" + ":".join(rnd(2, UPPER_HEX) for _ in range(16)))),
]


def wrapped() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(31337)
    return heldout._records(WRAPPED_SECRETS, WRAPPED_BENIGN, 3, 4)


def main() -> None:
    secrets, benign_rows = wrapped()
    heldout._write(HERE / "wrapped_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "wrapped_benign.jsonl.gz", benign_rows)
    print(f"wrapped: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
