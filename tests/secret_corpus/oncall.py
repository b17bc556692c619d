"""A second held-out set, by another author: what an on-call engineer's logs and MCP error texts carry.

    python -m tests.secret_corpus.oncall   # rewrites oncall_*.jsonl.gz here

Written before reading the scrubber's patterns, from contexts ``heldout.py`` and the shared corpus
have little of: exception messages and reprs of config objects in Python, Java, Go, Node and Ruby;
HTTP client logs; database driver errors; Kubernetes Secret YAML; docker/kubectl/helm/terraform/aws
/mysql/ldap CLI lines; credential files (``.npmrc``, ``.pypirc``, ``.netrc``, ``pip.conf``,
``.git-credentials``, docker ``config.json``, ``.pgpass``); service configs (systemd, nginx,
haproxy, redis, strongSwan, WireGuard); SSH/PGP/age/PKCS#8 keys; OAuth/OIDC/SAML messages; signed
URLs (S3, GCS, Azure SAS); cookies; TOTP seeds; wallet keys and mnemonics; secrets under unfamiliar
or non-English key names. Benign look-alikes: public keys, digests, ETags, trace/request ids, PKCE
challenges, wallet addresses, base64 images, masked and templated values, YAML tags, Vault and env
references, ``secretKeyRef``, ``kubectl describe secret`` sizes, terraform ``(sensitive value)``.

Same row format as ``../shared/corpus``; values are fake, from a fixed seed; 63 secret formats x 3
and 25 benign categories x 4. ``tests/test_scrub_oncall.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, Maker, b64, kv, pick, pw, rnd, ts, uuid

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
WORDS = ("ribbon", "absorb", "glimpse", "tunnel", "orbit", "velvet", "harbor", "quarter", "meadow", "lyrics", "puzzle", "canyon", "mirror", "token", "secret", "danger")
_r = heldout._rng  # the helpers above draw from it: oncall() seeds it


def jwt() -> str:
    body = base64.urlsafe_b64encode(f'{{"sub":"{rnd(8)}","iat":{_r.randint(10**9, 2 * 10**9)}}}'.encode()).decode().rstrip("=")
    return f"eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.{body}.{rnd(86, B64URL)}"


def mnemonic() -> str:
    return " ".join(_r.choice(WORDS) for _ in range(12))


def urlenc_b64(n: int) -> str:
    return b64(n).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


ONCALL_SECRETS: list[tuple[str, str, Maker]] = [
    # exception messages and reprs of config objects
    ("py_dict_repr_passwd", "exception", kv("KeyError: 'host' while building pool from {{'user': 'etl', 'passwd': '{s}', 'port': 5432}}", pw)),
    ("pydantic_repr_plain_str", "exception", kv("ValidationError for Settings; input was Settings(database_host='db', api_secret='{s}', debug=False)", lambda: rnd(32))),
    ("dataclass_repr_credential", "exception", kv("RuntimeError: cannot connect with ConnectionParams(host='10.0.3.4', user='svc', credential='{s}')", lambda: rnd(24))),
    ("java_spring_property", "exception", kv("org.springframework.beans.factory.BeanCreationException: Error creating bean 'dataSource' [spring.datasource.password={s}]", pw)),
    ("go_struct_verbose", "exception", kv("panic: redis: dial failed: &{{Addr:redis:6379 Username:default Password:{s} DB:0 PoolSize:10}}", pw)),
    ("node_inspect_config", "exception", kv("Error: connect ECONNREFUSED 127.0.0.1:5432 {{ config: {{ user: 'app', password: '{s}', host: 'db' }} }}", pw)),
    ("ruby_hash_rocket", "exception", kv('ActiveRecord::ConnectionNotEstablished: {{:adapter=>"postgresql", :username=>"app", :password=>"{s}"}}', pw)),
    ("py_headers_dict", "exception", kv("requests.exceptions.HTTPError: 403 for headers {{'X-API-Key': '{s}', 'Accept': 'application/json'}}", lambda: rnd(40, B64URL))),
    # HTTP client logs
    ("urllib3_access_token_query", "log", kv('DEBUG:urllib3.connectionpool:https://api.example.com:443 "GET /v2/items?access_token={s}&page=2 HTTP/1.1" 401 52', lambda: rnd(48, B64URL))),
    ("aiohttp_headers_proxy", "exception", kv("aiohttp.ClientResponseError: 403, message='Forbidden', headers=<CIMultiDictProxy('Authorization': 'Bearer {s}')>", lambda: rnd(40, B64URL))),
    ("httpx_vault_token_header", "log", kv("{ts} DEBUG httpx: request headers X-Vault-Token: hvs.{s}", lambda: rnd(24))),
    ("gitlab_private_token_header", "header", kv("PRIVATE-TOKEN: {s}", lambda: "glpat-" + rnd(20, B64URL))),
    # database drivers
    ("sqlalchemy_engine_url", "exception", kv("sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError) (1045) engine=mysql+pymysql://root:{s}@mysql:3306/shop", pw)),
    ("psycopg_dsn_keywords", "exception", kv("psycopg.OperationalError: connection failed: dbname=shop user=app password={s} host=db port=5432", pw)),
    ("jdbc_url_query_password", "exception", kv("java.sql.SQLException: No suitable driver for jdbc:postgresql://db:5432/app?user=app&password={s}&ssl=true", pw)),
    ("mongodb_srv_uri", "exception", kv("pymongo.errors.ConfigurationError: mongodb+srv://app:{s}@cluster0.ab1cd.mongodb.net/?retryWrites=true", lambda: rnd(16))),
    ("redis_monitor_auth", "log", kv('1718000000.123456 [0 10.0.0.5:51234] "AUTH" "{s}"', lambda: rnd(32))),
    ("pgpass_line", "log", kv("WARNING: password file has group access; line: db.internal:5432:shop:app:{s}", pw)),
    # Kubernetes, CLI flags and outputs
    ("k8s_secret_data_b64", "log", kv("apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ndata:\n  api-key: {s}\n", lambda: base64.b64encode(rnd(32).encode()).decode())),
    ("k8s_secret_string_data", "log", kv("kind: Secret\nstringData:\n  DB_PASS: {s}\n", pw)),
    ("kubectl_from_literal", "log", kv("+ kubectl create secret generic app --from-literal=token={s} -n prod", lambda: rnd(32))),
    ("docker_login_short_flag", "log", kv("+ docker login -u ci -p {s} registry.example.com", lambda: rnd(32))),
    ("helm_set_admin_password", "log", kv("+ helm upgrade --install grafana ./chart --set adminPassword={s} --wait", pw)),
    ("terraform_plan_attribute", "log", kv('  + master_password      = "{s}"', pw)),
    ("aws_configure_set", "log", kv("+ aws configure set aws_secret_access_key {s} --profile ci", lambda: rnd(40, ALNUM + "/+"))),
    ("mysql_p_attached", "log", kv("+ mysql -h db -u root -p{s} shop < dump.sql", pw)),
    ("ldapsearch_w_flag", "log", kv('+ ldapsearch -x -H ldaps://ldap -D "cn=admin,dc=example,dc=org" -w {s} -b dc=example,dc=org', pw)),
    ("java_keystore_sysprop", "log", kv("java -Djavax.net.ssl.keyStorePassword={s} -jar app.jar", pw)),
    ("docker_inspect_env", "json", kv('"Env": ["PATH=/usr/local/bin", "MINIO_ROOT_PASSWORD={s}", "TZ=UTC"]', pw)),
    # credential files
    ("npmrc_auth_token", "log", kv("npm ERR! 401; .npmrc: //registry.npmjs.org/:_authToken={s}", lambda: "npm_" + rnd(36))),
    ("pypirc_password", "log", kv("[pypi]\nusername = __token__\npassword = {s}", lambda: "pypi-" + rnd(60, B64URL))),
    ("netrc_line", "log", kv("machine api.heroku.com login ops@example.com password {s}", lambda: rnd(36, HEX + "-"))),
    ("pip_conf_index_url", "log", kv("[global]\nindex-url = https://ci:{s}@pypi.internal.example/simple", lambda: rnd(28))),
    ("git_credentials_line", "log", kv("https://x-access-token:{s}@github.com", lambda: "ghs_" + rnd(36))),
    ("docker_identitytoken", "json", kv('{{"auths": {{"acme.azurecr.io": {{"identitytoken": "{s}"}}}}}}', jwt)),
    # service configs
    ("systemd_environment", "log", kv('Environment="SMTP_PASS={s}"', pw)),
    ("nginx_proxy_authorization", "log", kv('proxy_set_header Authorization "Bearer {s}";', lambda: rnd(40, B64URL))),
    ("haproxy_insecure_password", "log", kv("userlist admins\n    user admin insecure-password {s}", pw)),
    ("redis_requirepass", "log", kv("requirepass {s}\nmasterauth {s}", lambda: rnd(32))),
    ("strongswan_psk", "log", kv('%any %any : PSK "{s}"', lambda: rnd(28))),
    ("wireguard_private_key", "log", kv("[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = {s}", lambda: b64(32))),
    # keys
    ("openssh_private_key", "log", kv("-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----", lambda: "b3BlbnNzaC1rZXktdjEAAAAA" + rnd(64, B64))),
    ("pgp_private_block", "log", kv("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{s}\n=Ab3x\n-----END PGP PRIVATE KEY BLOCK-----", lambda: "lQOYBG" + rnd(64, B64))),
    ("age_secret_key", "log", kv("# created: 2025-01-01\n{s}", lambda: "AGE-SECRET-KEY-1" + rnd(58, BECH32))),
    ("jwk_private_d", "json", kv('{{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "d": "{s}"}}', lambda: rnd(43, B64URL))),
    # OAuth / OIDC / SAML
    ("oauth_token_response", "json", kv('{{"access_token": "{s}", "token_type": "Bearer", "expires_in": 3599}}', lambda: rnd(64, B64URL))),
    ("oidc_refresh_id_tokens", "json", kv('{{"refresh_token": "{s}", "scope": "openid offline_access"}}', lambda: rnd(56, B64URL))),
    ("client_assertion_form", "log", kv("POST /oauth2/token grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion={s}", jwt)),
    ("pkce_code_verifier", "log", kv("{ts} DEBUG token exchange body: grant_type=authorization_code&code_verifier={s}&redirect_uri=https%3A%2F%2Fapp", lambda: rnd(64, B64URL))),
    ("saml_response_form", "log", kv("{ts} ERROR saml2: signature check failed; POST /acs SAMLResponse={s}&RelayState=%2Fhome", lambda: urlenc_b64(120))),
    # signed URLs
    ("s3_presigned_signature", "url", kv("botocore.exceptions.ClientError: 403 for https://bkt.s3.eu-west-1.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature={s}", lambda: rnd(64, HEX))),
    ("gcs_signed_signature", "url", kv("GET https://storage.googleapis.com/bkt/o.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Expires=600&X-Goog-Signature={s} 403", lambda: rnd(256, HEX))),
    ("azure_sas_sig", "url", kv("azure.core.exceptions.ClientAuthenticationError: https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2025-01-01T00:00:00Z&sig={s}", lambda: urlenc_b64(32))),
    # cookies and sessions
    ("cookie_session_id", "header", kv("Cookie: theme=dark; _session_id={s}; lang=en", lambda: rnd(32, HEX))),
    ("set_cookie_connect_sid", "header", kv("Set-Cookie: connect.sid={s}; Path=/; HttpOnly", lambda: "s%3A" + rnd(32, B64URL) + "." + rnd(43, B64URL))),
    # TOTP, wallets
    ("otpauth_secret", "url", kv("otpauth://totp/Example:alice@example.com?secret={s}&issuer=Example&digits=6", lambda: rnd(32, B32))),
    ("eth_private_key_env", "log", kv("{ts} ERROR deployer: invalid sender; PRIVATE_KEY=0x{s}", lambda: rnd(64, HEX))),
    ("wallet_mnemonic", "json", kv('{{"network": "mainnet", "mnemonic": "{s}"}}', mnemonic)),
    # unfamiliar and non-English key names
    ("non_english_password_key", "log", lambda: (lambda s: (s, pick("passwort", "contraseña", "mot_de_passe", "senha", "wachtwoord", "пароль", "密码") + f": {s}"))(pw())),
    ("unfamiliar_key_high_entropy", "json", kv('{{"endpoint": "https://hooks.example.com", "signingMaterial": "{s}"}}', lambda: rnd(48, B64))),
    ("passphrase_key", "log", kv("{ts} ERROR gpg: bad passphrase; GPG_PASSPHRASE={s}", pw)),
    ("curl_user_flag", "log", kv("+ curl -sf -u admin:{s} https://es.internal:9200/_cluster/health", pw)),
    ("smtp_auth_plain", "log", kv("smtplib.SMTPAuthenticationError: (535, b'5.7.8 Error') after AUTH PLAIN {s}", lambda: base64.b64encode(f"\0mailer\0{pw()}".encode()).decode())),
]

ONCALL_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("authorized_keys_public", "log", lambda: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} ops@bastion"),
    ("wireguard_public_key", "log", lambda: f"[Peer]\nPublicKey = {b64(32)}\nAllowedIPs = 10.8.0.0/24"),
    ("jwks_public", "json", lambda: f'{{"kty": "RSA", "kid": "{rnd(20, B64URL)}", "use": "sig", "n": "{rnd(86, B64URL)}", "e": "AQAB"}}'),
    ("image_digests", "log", lambda: f"{pick('pulled', 'pushed')} ghcr.io/acme/api@sha256:{rnd(64, HEX)} Digest: sha256:{rnd(64, HEX)}"),
    ("etag_headers", "header", lambda: f'ETag: W/"{rnd(32, HEX)}"'),
    ("trace_request_ids", "header", lambda: f"traceparent: 00-{rnd(32, HEX)}-{rnd(16, HEX)}-01 x-request-id: {uuid()}"),
    ("base64_image", "json", lambda: f'{{"avatar": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{rnd(60, B64)}"}}'),
    ("masked_values", "log", lambda: pick("password=******** user=app", "token: '***'", "api_key=<your-api-key>", "client_secret: REDACTED", 'Authorization: Bearer <token>')),
    ("secretstr_repr", "exception", lambda: f"Settings(api_key=SecretStr('**********'), db_password=SecretStr('**********'), timeout={_r.randint(1, 60)})"),
    ("oauth_metadata", "json", lambda: pick('{"token_type": "Bearer", "expires_in": 3600, "refresh_expires_in": 86400}', '{"grant_types_supported": ["authorization_code", "refresh_token"], "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"]}', '{"password_policy": {"min_length": 12, "require_symbol": true}}')),
    ("yaml_tags", "log", lambda: pick("password: !env_var DB_PASSWORD", "MasterUserPassword: !Ref DbPasswordParam", "secret: !GetAtt Secret.Arn", "db_password: !ENV ${DB_PASSWORD}")),
    ("vault_references", "log", lambda: pick("password: vault:secret/data/app#db_password", "api_token: ref+vault://secret/app#/token", "DB_PASSWORD=op://Prod/db/password", "secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf")),
    ("env_references", "log", lambda: pick("DB_PASSWORD=$DB_PASSWORD", 'password: "${DB_PASSWORD}"', "token: ${{ secrets.NPM_TOKEN }}", "api_key: '%env(API_KEY)%'", "PGPASSWORD=${PGPASSWORD:-}")),
    ("secret_key_ref", "log", lambda: "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-credentials\n      key: password"),
    ("env_example_placeholders", "log", lambda: pick("SECRET_KEY=changeme", "API_TOKEN=your-token-here", "DB_PASSWORD=", "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx", "JWT_SECRET=<generate with openssl rand -hex 32>")),
    ("url_ids_in_paths", "url", lambda: f"GET https://api.example.com/v1/orgs/{uuid()}/sessions/{rnd(24, HEX)} 404 in {_r.randint(2, 900)}ms"),
    ("git_shas", "log", lambda: f"HEAD is now at {rnd(40, HEX)} Merge pull request #{_r.randint(10, 9999)} from acme/fix-token-refresh"),
    ("key_file_paths", "log", lambda: pick("keyfile=/etc/ssl/private/server.key not readable", "open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file", "--password-file /run/secrets/db_password", "ssh: identity file /home/ci/.ssh/id_ed25519 not accessible")),
    ("jwt_header_fields", "log", lambda: f"{ts()} WARN jwt: unknown kid={rnd(16, HEX)} alg=RS256 iss=https://auth.example.com"),
    ("checksum_lines", "log", lambda: f"{rnd(64, HEX)}  ./release-v{_r.randint(1, 9)}.{_r.randint(0, 30)}.{_r.randint(0, 9)}.tar.gz"),
    ("aws_arns_key_ids", "log", lambda: f"kms: Decrypt denied for arn:aws:kms:eu-west-1:123456789012:key/{uuid()} KeyId=alias/app-{rnd(6, HEX)}"),
    ("describe_secret_sizes", "log", lambda: f"Name:  db-credentials\nType:  Opaque\n\nData\n====\npassword:  {_r.randint(8, 40)} bytes\nusername:  {_r.randint(3, 12)} bytes"),
    ("terraform_sensitive", "log", lambda: pick("  + password = (sensitive value)", '  ~ master_password = (sensitive value)', "  + private_key_pem = (sensitive value)")),
    ("pkce_challenge", "url", lambda: f"GET /authorize?response_type=code&client_id=web&code_challenge={rnd(43, B64URL)}&code_challenge_method=S256&state=xyz"),
    ("wallet_public_ids", "log", lambda: f"tx sent from=0x{rnd(40, HEX)} hash=0x{rnd(64, HEX)} block={_r.randint(10**6, 10**7)}"),
]


def oncall() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(424242)
    return heldout._records(ONCALL_SECRETS, ONCALL_BENIGN, 3, 4)


def main() -> None:
    secrets, benign_rows = oncall()
    heldout._write(HERE / "oncall_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "oncall_benign.jsonl.gz", benign_rows)
    print(f"oncall: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
