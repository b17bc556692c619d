"""A sixth held-out set, by another author: secrets in infrastructure files and operators' tools.

    python -m tests.secret_corpus.infra   # rewrites infra_*.jsonl.gz here

Written before reading the scrubber's patterns, from what the earlier sets have least of: config and
infrastructure files printed into errors (Kubernetes Secret ``data:``/``stringData:`` maps in YAML and
JSON, pod ``env`` name/value lists, kubeconfig ``client-key-data`` and ``token``, Helm values and
``--set``, Terraform state attributes, Ansible inventories, Spring ``application.properties``/``.yml``
and Spring's own bind errors, ``appsettings.json``, ``web.config`` and ``NuGet.config`` ``<add key
value>``, Gradle, Cargo, RubyGems/Bundler, Composer, Yarn, Envoy/HAProxy/nginx, systemd); cloud CLI
outputs (``aws sts``/``--output text``, ``az``, ``gcloud``, ``kubectl``, ``vault`` key/value tables,
``heroku config``, ``doctl``, ``flyctl``); Windows event log lines (4688 command lines, PowerShell
4104 script blocks, Sysmon XML) and ``reg query`` dumps; SQL and NoSQL statements echoed by errors
(foreign servers, cloud-storage credentials in COPY/STAGE, ``db.auth``, Redis MONITOR, CQL, Cypher);
JDBC URLs of every driver; non-English and non-Latin key names and localized messages; logfmt; and
provider token shapes invented after public format docs (fixed prefix + random body) that no list
may have. Benign look-alikes from the same files and tools: ConfigMap ``binaryData``, public
kubeconfig parts, image digests, ARNs, GCP resource names, Azure resource ids and Key Vault version
ids, OCIDs, masked CLI output, Terraform ``(sensitive value)``, placeholders and variables, Windows
SIDs/GUIDs/logon ids, Sysmon hashes, SQL errors naming credential columns, trace ids, commit SHAs,
checksums and long version strings.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed, human
passwords marked ``Fake``); 54 secret formats x 4 and 30 benign categories x 5.
``tests/test_scrub_infra.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, ts, uuid

_r = heldout._rng  # the helpers above draw from it: infra() seeds it


def one(value: Callable[[], str], *templates: Callable[[str], str]) -> Maker:
    """A secret format: a fresh ``value()`` placed by one of ``templates`` (chosen at random)."""

    def make() -> tuple[str, str]:
        secret = value()
        return secret, _r.choice(templates)(secret)

    return make


def fpw() -> str:
    """A human-made password, marked fake."""
    words = ["Fake", "fake", "FAKE"]
    tail = ["harbor", "Quokka", "zephyr", "Marble", "tundra", "Pylon", "ember", "Saffron"]
    sym = "!#%^*?@+-_~."
    return f"{_r.choice(words)}{_r.choice(tail)}{_r.choice(sym)}{_r.randint(10, 9999)}{_r.choice(tail).lower()}"


def b64s(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def aws_secret() -> str:
    return rnd(40, ALNUM + "+/")


def sts_session_token() -> str:
    return "IQoJb3JpZ2luX2VjE" + rnd(300, B64)


def akid(prefix: str = "AKIA") -> str:
    return prefix + rnd(16, UPPER_ALNUM)


def pem_key_b64() -> str:
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rnd(64, B64) for _ in range(4)) + "\n-----END RSA PRIVATE KEY-----\n"
    return b64s(pem)


def cert_b64() -> str:
    pem = "-----BEGIN CERTIFICATE-----\n" + "\n".join(rnd(64, B64) for _ in range(4)) + "\n-----END CERTIFICATE-----\n"
    return b64s(pem)


def sa_jwt() -> str:
    head = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "kid": rnd(43, B64URL)}).encode()).decode().rstrip("=")
    claims = {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", "sub": "system:serviceaccount:ci:deployer"}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{head}.{body}.{rnd(342, B64URL)}"


def host() -> str:
    return pick("db01.internal", "pg-prod.example.net", "10.20.4.17", "mysql.svc.cluster.local", "sql-eu.example.org")


def acct() -> str:
    return str(_r.randint(100000000000, 999999999999))


def azure_storage_key() -> str:
    return base64.b64encode(_r.randbytes(64)).decode()


def azure_client_secret() -> str:
    return rnd(3, ALNUM) + str(_r.randint(1, 9)) + "Q~" + rnd(34, ALNUM + "_-.~")


# Provider token shapes written after public format docs: prefix + random body; none is real.
def new_prefix_token() -> str:
    return pick(
        f"dp.st.prd.{rnd(43, ALNUM)}",
        f"dp.pt.{rnd(43, ALNUM)}",
        f"pul-{rnd(40, HEX)}",
        f"glsa_{rnd(32, ALNUM)}_{rnd(8, HEX)}",
        f"lin_api_{rnd(40, ALNUM)}",
        f"PMAK-{rnd(24, HEX)}-{rnd(34, HEX)}",
        f"sntryu_{rnd(64, HEX)}",
        f"tskey-auth-{rnd(12, ALNUM)}CNTRL-{rnd(33, ALNUM)}",
        f"glrt-{rnd(20, ALNUM + '_-')}",
        f"gldt-{rnd(20, ALNUM + '_-')}",
        f"hvs.{rnd(92, ALNUM + '_-')}",
        f"{rnd(14, ALNUM)}.atlasv1.{rnd(67, ALNUM)}",
        f"ATATT3xFfGF0{rnd(180, B64URL)}={rnd(8, HEX).upper()}",
        f"NRAK-{rnd(27, UPPER_ALNUM)}",
        f"dt0c01.{rnd(24, UPPER_ALNUM)}.{rnd(64, UPPER_ALNUM)}",
        f"shpat_{rnd(32, HEX)}",
        f"pat{rnd(14, ALNUM)}.{rnd(64, HEX)}",
        f"pscale_pw_{rnd(43, ALNUM + '_')}",
        f"napi_{rnd(64, LOWER_ALNUM)}",
        f"rdme_{rnd(70, LOWER_ALNUM)}",
        f"pnu_{rnd(36, ALNUM)}",
        f"ico-{rnd(32, ALNUM)}",
        f"nfp_{rnd(36, ALNUM)}",
        f"rnd_{rnd(32, ALNUM)}",
        f"figd_{rnd(40, ALNUM + '_-')}",
        f"ntn_{rnd(46, ALNUM)}",
        f"sb_secret_{rnd(32, ALNUM + '_-')}",
        f"dapi{rnd(32, HEX)}",
        f"CFPAT-{rnd(43, ALNUM + '_-')}",
        f"EZAK{rnd(54, ALNUM)}",
        f"FLWSECK_TEST-{rnd(32, HEX)}-X",
        f"bkua_{rnd(40, HEX)}",
        f"fo1_{rnd(43, ALNUM + '_-')}",
        f"HRKU-AA{rnd(58, ALNUM + '_-')}",
        f"dop_v1_{rnd(64, HEX)}",
        f"glptt-{rnd(40, HEX)}",
        f"sntrys_{rnd(120, B64)}",
        f"ops_{rnd(60, B64URL)}",
    )


def _sts_json() -> tuple[str, str]:
    key, token = aws_secret(), sts_session_token()
    text = f'{{"Credentials": {{"AccessKeyId": "{akid("ASIA")}", "SecretAccessKey": "{key}", "SessionToken": "{token}", "Expiration": "2025-06-01T12:00:00Z"}}}}'
    return pick(key, token), text


INFRA_SECRETS: list[tuple[str, str, Maker]] = [
    # -- Kubernetes and its tools --------------------------------------------------------------
    ("k8s_secret_data_yaml", "log", one(
        lambda: b64s(fpw()),
        lambda s: f'error: error validating "secret.yaml": unknown field "metdata"\napiVersion: v1\nkind: Secret\nmetdata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: {b64s("app")}\n  {pick("password", "DB_PASSWORD", "redis-password", "admin-pass", "root_pw")}: {s}',
        lambda s: f"The Secret \"app-{rnd(5, LOWER_ALNUM)}\" is invalid: data[{pick('.pgpass', 'pw', 'PASS')}]: Invalid value: \"{s}\": a valid config key must consist of alphanumeric characters",
    )),
    ("k8s_secret_data_neutral_key", "log", one(
        lambda: b64s(pick(f'{{"apiKey": "{rnd(32, ALNUM)}"}}', f"postgres://app:{fpw()}@{host()}:5432/app", f"[default]\naws_secret_access_key = {aws_secret()}\n")),
        lambda s: f"kind: Secret\napiVersion: v1\nmetadata:\n  name: app-config\n  namespace: prod\ndata:\n  {pick('config.json', 'DATABASE_URL', 'credentials', 'settings.ini')}: {s}\ntype: Opaque",
    )),
    ("k8s_secret_json", "json", one(
        lambda: b64s(fpw()),
        lambda s: f'{{"apiVersion": "v1", "kind": "Secret", "metadata": {{"name": "smtp", "namespace": "mail"}}, "data": {{"host": "{b64s("smtp.example.com")}", "{pick("password", "smtp_pass", "pass")}": "{s}"}}}}',
    )),
    ("k8s_stringdata", "log", one(
        lambda: rnd(_r.randint(24, 48), ALNUM),
        lambda s: f"Warning: resource secrets/api is missing the kubectl.kubernetes.io/last-applied-configuration annotation\nstringData:\n  {pick('api-token', 'GRAFANA_ADMIN_TOKEN', 'webhookSecret', 'client.secret')}: {s}",
        lambda s: f"stringData:\n  config.yaml: |\n    upstream: https://api.example.com\n    {pick('apiKey', 'token', 'secret')}: {s}",
    )),
    ("k8s_env_name_value", "log", one(
        lambda: pick(fpw(), rnd(32, ALNUM)),
        lambda s: f"spec.containers[0].env[2]: Duplicate value: \"{pick('DB_PASSWORD', 'STRIPE_API_KEY', 'JWT_SECRET')}\"\n        env:\n        - name: {pick('DB_PASSWORD', 'STRIPE_API_KEY', 'JWT_SECRET', 'AUTH_TOKEN')}\n          value: {s}",
        lambda s: f'{{"name": "{pick("REDIS_PASSWORD", "SLACK_BOT_TOKEN", "API_SECRET")}", "value": "{s}"}}',
        lambda s: f"- name: {pick('MINIO_ROOT_PASSWORD', 'KEYCLOAK_ADMIN_PASSWORD', 'SENTRY_AUTH_TOKEN')}\n  value: \"{s}\"",
    )),
    ("kubeconfig_client_key_data", "log", one(
        pem_key_b64,
        lambda s: f"users:\n- name: admin@prod\n  user:\n    client-certificate-data: {cert_b64()}\n    client-key-data: {s}",
    )),
    ("kubeconfig_token", "log", one(
        lambda: pick(sa_jwt(), f"kubeconfig-u-{rnd(12, LOWER_ALNUM)}:{rnd(54, LOWER_ALNUM)}", f"{rnd(6, LOWER_ALNUM)}.{rnd(16, LOWER_ALNUM)}"),
        lambda s: f"error: You must be logged in to the server (Unauthorized)\nusers:\n- name: ci-deployer\n  user:\n    token: {s}",
        lambda s: f"kubectl config set-credentials ci --token={s}",
        lambda s: f"kubeadm join 10.0.0.10:6443 --token {s} --discovery-token-ca-cert-hash sha256:{rnd(64, HEX)}",
    )),
    ("kubectl_create_secret_cmd", "log", one(
        lambda: pick(fpw(), rnd(40, ALNUM)),
        lambda s: f"+ kubectl create secret generic app-env --from-literal={pick('api-key', 'password', 'DB_PASS', 'token')}={s} --dry-run=client -o yaml",
        lambda s: f"$ kubectl create secret docker-registry regcred --docker-server=registry.example.com --docker-username=ci --docker-password={s}",
    )),
    ("helm_values", "log", one(
        fpw,
        lambda s: f"Error: UPGRADE FAILED: values don't meet the specifications of the schema\npostgresql:\n  auth:\n    username: app\n    {pick('password', 'postgresPassword', 'replicationPassword')}: {s}\n    database: app",
        lambda s: f"helm upgrade --install api ./chart --set {pick('redis.auth.password', 'postgresql.auth.postgresPassword', 'mongodb.auth.rootPassword', 'grafana.adminPassword')}={s} --namespace prod",
    )),
    ("docker_config_auths", "json", one(
        lambda: pick(b64s(f"ci:{fpw()}"), b64s(f"_json_key:{rnd(40, ALNUM)}"), rnd(64, B64URL)),
        lambda s: f'Error saving credentials: error storing credentials - err: exit status 1, out: {{"auths": {{"registry.example.com:5000": {{"auth": "{s}"}}}}}}',
        lambda s: f'{{"auths": {{"https://index.docker.io/v1/": {{"identitytoken": "{s}"}}}}, "credsStore": ""}}',
    )),
    # -- package managers and build tools ------------------------------------------------------
    ("npmrc_auth_password", "log", one(
        lambda: pick(b64s(fpw()), b64s(f"deploy:{fpw()}")),
        lambda s: f"npm ERR! 401 Unauthorized - GET https://npm.example.com/api/npm/npm-local/left-pad\n//npm.example.com/api/npm/npm-local/:{pick('_password', '_auth')}={s}",
        lambda s: f'npm warn config "//artifactory.example.com/:_auth" is set to "{s}"',
    )),
    ("yarnrc_npm_auth", "log", one(
        lambda: pick(rnd(36, ALNUM), f"ci:{fpw()}"),
        lambda s: f'npmRegistries:\n  "https://npm.example.com":\n    {pick("npmAuthToken", "npmAuthIdent")}: "{s}"\n    npmAlwaysAuth: true',
    )),
    ("cargo_gem_credentials", "log", one(
        lambda: pick(f"cio{rnd(32, ALNUM)}", f"rubygems_{rnd(48, HEX)}"),
        lambda s: f"error: failed to publish to registry at https://crates.io\n[registries.crates-io]\ntoken = \"{s}\"",
        lambda s: f"---\n:rubygems_api_key: {s}",
        lambda s: f"ERROR:  While executing gem ... (Gem::Exception) credentials from ~/.gem/credentials: {{:rubygems_api_key=>\"{s}\"}}",
    )),
    ("bundler_host_credentials", "log", one(
        lambda: f"{pick('ci', 'deploy', 'bot')}:{rnd(20, ALNUM)}",
        lambda s: f"---\nBUNDLE_GEMS__CONTRIBSYS__COM: \"{s}\"",
        lambda s: f"export BUNDLE_RUBYGEMS__PKG__GITHUB__COM={s}",
    )),
    ("composer_auth_json", "json", one(
        lambda: pick(rnd(40, ALNUM), f"glpat-{rnd(20, ALNUM + '_-')}", fpw()),
        lambda s: f'[Composer\\Downloader\\TransportException] 401 for https://repo.example.org/packages.json (auth.json: {{"bearer": {{"repo.example.org": "{s}"}}}})',
        lambda s: f'{{"http-basic": {{"repo.packagist.com": {{"username": "token", "password": "{s}"}}}}}}',
        lambda s: f'{{"gitlab-token": {{"gitlab.example.com": "{s}"}}}}',
    )),
    ("gradle_maven_credentials", "log", one(
        fpw,
        lambda s: f"gradle.properties:\n{pick('ossrhPassword', 'signing.password', 'mavenCentralPassword', 'nexusPassword', 'artifactory_password')}={s}",
        lambda s: f"[ERROR] Failed to deploy artifacts: Could not transfer artifact: status 401 <server><id>nexus</id><username>deploy</username><password>{s}</password></server>",
        lambda s: f"systemProp.https.proxyPassword={s}",
    )),
    ("xml_add_key_value", "log", one(
        lambda: pick(fpw(), rnd(40, ALNUM)),
        lambda s: f'NuGet.Config: <packageSourceCredentials><feed><add key="Username" value="ci" /><add key="ClearTextPassword" value="{s}" /></feed></packageSourceCredentials>',
        lambda s: f'Web.config(14): <add key="{pick("SmtpPassword", "StripeSecretKey", "Api.Secret", "AzureStorageKey")}" value="{s}" />',
    )),
    # -- application configs ------------------------------------------------------------------
    ("spring_bind_error", "exception", one(
        fpw,
        lambda s: f"Failed to bind properties under '{pick('spring.datasource.password', 'spring.mail.password', 'spring.rabbitmq.password', 'app.jwt.secret')}' to java.lang.String:\n\n    Property: {pick('spring.datasource.password', 'spring.mail.password')}\n    Value: \"{s}\"\n    Origin: class path resource [application.yml] - 12:17",
    )),
    ("spring_properties", "log", one(
        lambda: pick(fpw(), rnd(40, HEX)),
        lambda s: f"{pick('spring.datasource.password', 'spring.security.oauth2.client.registration.github.client-secret', 'jasypt.encryptor.password', 'server.ssl.key-store-password', 'spring.data.redis.password')}={s}",
        lambda s: f"spring:\n  datasource:\n    url: jdbc:mysql://{host()}:3306/app\n    username: app\n    password: {s}",
    )),
    ("appsettings_json", "json", one(
        lambda: pick(rnd(48, ALNUM), fpw(), f"GOCSPX-{rnd(28, ALNUM + '_-')}"),
        lambda s: f'{{"Jwt": {{"Key": "{s}", "Issuer": "https://api.example.com", "Audience": "api"}}}}',
        lambda s: f'{{"Authentication": {{"Google": {{"ClientId": "{_r.randint(10**11, 10**12)}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com", "ClientSecret": "{s}"}}}}}}',
        lambda s: f'"JwtSettings": {{ "SecretKey": "{s}", "ExpiryMinutes": 60 }}',
    )),
    ("ado_connection_string", "json", one(
        fpw,
        lambda s: f'"ConnectionStrings": {{ "Default": "Server=tcp:{host()},1433;Initial Catalog=app;User ID=app;Password={s};Encrypt=True;" }}',
        lambda s: f'<add name="Default" connectionString="Data Source={host()};Initial Catalog=Orders;User Id=sa;Pwd={s};" providerName="System.Data.SqlClient" />',
    )),
    ("azure_storage_connection", "log", one(
        azure_storage_key,
        lambda s: f"DefaultEndpointsProtocol=https;AccountName=st{rnd(8, LOWER_ALNUM)};AccountKey={s};EndpointSuffix=core.windows.net",
        lambda s: f'  "primary_access_key": "{s}",',
    )),
    ("dotenv_export_nested", "log", one(
        lambda: pick(fpw(), rnd(32, ALNUM)),
        lambda s: f"export {pick('App__Database__Password', 'MYAPP_DB__PASS', 'SMTP__CREDENTIALS__SECRET', 'ConnectionStrings__Redis__Password')}=\"{s}\"",
        lambda s: f"export {pick('AUTH0_CLIENT_SECRET', 'SECRET_KEY_BASE', 'DJANGO_SECRET_KEY', 'NEXTAUTH_SECRET')}='{s}'",
    )),
    ("systemd_environment", "log", one(
        lambda: pick(fpw(), rnd(32, ALNUM)),
        lambda s: f'Environment="{pick("PGPASSWORD", "API_TOKEN", "RABBITMQ_PASS")}={s}" "LOG_LEVEL=info"',
        lambda s: f"$ systemctl show app.service -p Environment\nEnvironment=HOME=/var/lib/app {pick('PGPASSWORD', 'VAULT_TOKEN', 'MINIO_SECRET_KEY')}={s} PORT=8080",
    )),
    ("proxy_configs", "log", one(
        lambda: pick(rnd(40, ALNUM), b64s(f"admin:{fpw()}")),
        lambda s: f"nginx: [emerg] invalid number of arguments in \"proxy_set_header\" directive in /etc/nginx/conf.d/api.conf:14\n    proxy_set_header Authorization \"{pick('Basic', 'Bearer')} {s}\";",
        lambda s: f"proxy_set_header {pick('X-Api-Key', 'X-Auth-Token', 'apikey')} \"{s}\";",
        lambda s: f'[WARNING] (1) : config : parsing [/etc/haproxy/haproxy.cfg:41] : http-request set-header Authorization "Bearer {s}"',
    )),
    ("envoy_header_and_sds", "log", one(
        lambda: rnd(40, ALNUM),
        lambda s: f'request_headers_to_add:\n- header:\n    key: "{pick("x-api-key", "authorization", "x-upstream-token")}"\n    value: "{s}"',
        lambda s: f"generic_secret:\n  secret:\n    inline_string: \"{s}\"",
        lambda s: f'{{"name": "{pick("x-api-key", "X-Auth-Token")}", "value": "{s}"}}',
    )),
    ("haproxy_userlist", "log", one(
        fpw,
        lambda s: f"userlist admins\n    user {pick('admin', 'stats', 'ops')} insecure-password {s}",
        lambda s: f"    stats auth admin:{s}",
    )),
    # -- infrastructure as code ---------------------------------------------------------------
    ("terraform_state_attrs", "json", one(
        lambda: pick(fpw(), rnd(40, ALNUM)),
        lambda s: f'Error: state snapshot was created by Terraform v1.9.5\n          "attributes": {{\n            "{pick("administrator_login_password", "master_password", "admin_password", "ses_smtp_password_v4", "secret")}": "{s}",\n            "arn": "arn:aws:rds:us-east-1:{acct()}:db:app"',
        lambda s: f'{{"mode": "managed", "type": "random_password", "name": "db", "instances": [{{"attributes": {{"length": 24, "result": "{s}", "special": true}}}}]}}',
    )),
    ("ansible_inventory", "log", one(
        fpw,
        lambda s: f"web{_r.randint(1, 9)} ansible_host=10.0.{_r.randint(0, 9)}.{_r.randint(2, 250)} ansible_user=deploy {pick('ansible_ssh_pass', 'ansible_become_pass', 'ansible_password')}={s}",
        lambda s: f"TASK [mysql : create user] fatal: [db1]: FAILED! => {{\"msg\": \"...\", \"invocation\": {{\"module_args\": {{\"login_user\": \"root\", \"login_password\": \"{s}\", \"name\": \"app\"}}}}}}",
        lambda s: f"group_vars/prod.yml:\n{pick('vault_db_password', 'mysql_root_password', 'grafana_admin_pw')}: {s}",
    )),
    # -- cloud CLIs ---------------------------------------------------------------------------
    ("aws_sts_json", "json", _sts_json),
    ("aws_text_output", "log", one(
        aws_secret,
        lambda s: f"$ aws sts assume-role --role-arn arn:aws:iam::{acct()}:role/ci --role-session-name ci --output text\nASSUMEDROLEUSER\tarn:aws:sts::{acct()}:assumed-role/ci/ci\tAROA{rnd(17, UPPER_ALNUM)}:ci\nCREDENTIALS\t{akid('ASIA')}\t2025-06-01T12:00:00+00:00\t{s}\t{sts_session_token()[:120]}",
        lambda s: f"$ aws iam create-access-key --user-name ci --output text\nACCESSKEY\t{akid()}\t2025-05-01T08:00:00+00:00\t{s}\tActive\tci",
    )),
    ("az_cli_secrets", "log", one(
        azure_client_secret,
        lambda s: f"az login --service-principal -u {uuid()} -p {s} --tenant {uuid()}",
        lambda s: f'{{\n  "appId": "{uuid()}",\n  "displayName": "ci-deployer",\n  "password": "{s}",\n  "tenant": "{uuid()}"\n}}',
        lambda s: f"ClientSecretCredential: AADSTS7000222: The provided client secret keys for app '{uuid()}' are expired. secret={s}",
    )),
    ("az_storage_keys_list", "json", one(
        azure_storage_key,
        lambda s: f'[\n  {{\n    "creationTime": "2025-03-02T10:11:12.000000+00:00",\n    "keyName": "key1",\n    "permissions": "FULL",\n    "value": "{s}"\n  }}\n]',
        lambda s: f"KeyName    Permissions    Value\n---------  -------------  {'-' * 88}\nkey1       FULL           {s}",
    )),
    ("gcloud_tokens", "log", one(
        lambda: pick(f"ya29.a0{rnd(150, ALNUM + '_-')}", f"1//0{rnd(98, ALNUM + '_-')}"),
        lambda s: f"$ gcloud auth print-access-token\n{s}",
        lambda s: f"ERROR: (gcloud.auth.application-default.login) refresh token {s} was revoked",
        lambda s: f"curl -H \"Authorization: Bearer {s}\" https://storage.googleapis.com/storage/v1/b/acme-backups/o",
    )),
    ("vault_cli_table", "log", one(
        lambda: pick(f"hvs.{rnd(92, ALNUM + '_-')}", fpw(), f"A1a-{rnd(20, ALNUM)}"),
        lambda s: f"Key                  Value\n---                  -----\ntoken                {s}\ntoken_accessor       {rnd(24, ALNUM)}\ntoken_duration       768h\ntoken_renewable      true",
        lambda s: f"Key                Value\n---                -----\nlease_id           database/creds/readonly/{rnd(24, ALNUM)}\nlease_duration     1h\npassword           {s}\nusername           v-token-readonly-{rnd(20, LOWER_ALNUM)}",
    )),
    ("heroku_config_table", "log", one(
        lambda: rnd(_r.randint(20, 32), ALNUM),
        lambda s: f"=== acme-api Config Vars\nLOG_LEVEL:              info\n{pick('PAPERTRAIL_API_TOKEN', 'MAILGUN_API_KEY', 'BONSAI_SECRET', 'ROLLBAR_ACCESS_TOKEN')}:   {s}\nWEB_CONCURRENCY:        2",
        lambda s: f"$ heroku config:get {pick('SESSION_SECRET', 'SECRET_KEY_BASE', 'CLOUDINARY_API_SECRET')} -a acme-api\n{s}",
    )),
    ("paas_cli_tokens", "log", one(
        lambda: pick(f"FlyV1 fm2_{rnd(180, B64)}", f"dop_v1_{rnd(64, HEX)}", f"HRKU-AA{rnd(58, ALNUM + '_-')}"),
        lambda s: f"$ fly tokens create deploy -x 999999h\n{s}",
        lambda s: f"Error: Unable to initialize DigitalOcean API client: token {s} is invalid",
        lambda s: f"heroku auth:token\n ›   Warning: token will expire 2026-01-01\n{s}",
    )),
    # -- Windows ------------------------------------------------------------------------------
    ("windows_4688_cmdline", "log", one(
        fpw,
        lambda s: f"A new process has been created.\r\nCreator Subject:\r\n\tSecurity ID:\t\tS-1-5-21-{_r.randint(10**9, 4*10**9)}-{_r.randint(10**9, 4*10**9)}-{_r.randint(10**8, 10**9)}-1104\r\nProcess Information:\r\n\tNew Process Name:\tC:\\Windows\\System32\\net.exe\r\n\tProcess Command Line:\tnet user svc_backup {s} /add /domain",
        lambda s: f"EventID=4688 NewProcessName=C:\\Windows\\System32\\schtasks.exe CommandLine=\"schtasks /create /tn NightlyBackup /tr backup.cmd /ru CORP\\svc_backup /rp {s}\"",
        lambda s: f"Process Command Line: psexec.exe \\\\fs02 -u CORP\\admin -p {s} cmd.exe /c ipconfig",
        lambda s: f"Process Command Line: sc.exe config Spooler obj= CORP\\svc_print password= {s}",
    )),
    ("powershell_4104", "log", one(
        lambda: pick(fpw(), rnd(36, ALNUM)),
        lambda s: f"EventID 4104 Creating Scriptblock text (1 of 1):\n$pw = ConvertTo-SecureString '{s}' -AsPlainText -Force",
        lambda s: f"ScriptBlockText: $cred = New-Object System.Management.Automation.PSCredential('CORP\\deploy', (ConvertTo-SecureString \"{s}\" -AsPlainText -Force))",
        lambda s: f"ScriptBlockText: Invoke-RestMethod -Uri https://api.example.com/v2/jobs -Headers @{{ Authorization = \"Bearer {s}\" }}",
        lambda s: f"ScriptBlockText: $env:{pick('ARM_CLIENT_SECRET', 'OCTOPUS_API_KEY', 'NUGET_API_KEY')} = \"{s}\"",
    )),
    ("sysmon_event_xml", "log", one(
        fpw,
        lambda s: f'<EventData><Data Name="Image">C:\\Program Files\\MySQL\\MySQL Server 8.0\\bin\\mysql.exe</Data><Data Name="CommandLine">mysql.exe -uroot -p{s} -h db01 app</Data></EventData>',
        lambda s: f'<Data Name="CommandLine">curl.exe -u admin:{s} https://jenkins.corp.example.com/api/json</Data>',
        lambda s: f'<Data Name="CommandLine">wmic /node:srv04 /user:CORP\\admin /password:{s} process call create calc.exe</Data>',
    )),
    ("windows_registry_dump", "log", one(
        fpw,
        lambda s: f"HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\n    AutoAdminLogon    REG_SZ    1\n    DefaultUserName    REG_SZ    kiosk\n    DefaultPassword    REG_SZ    {s}",
        lambda s: f"[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\prod]\n\"ProxyPassword\"=\"{s}\"",
        lambda s: f"    {pick('ProxyPass', 'SqlPassword', 'ServicePassword')}    REG_SZ    {s}",
    )),
    # -- databases ----------------------------------------------------------------------------
    ("sql_foreign_server", "log", one(
        fpw,
        lambda s: f"ERROR:  server \"remote\" does not exist\nSTATEMENT:  CREATE USER MAPPING FOR app SERVER remote OPTIONS (user 'etl', password '{s}')",
        lambda s: f"ERROR:  could not establish connection\nDETAIL:  SELECT dblink_connect('conn', 'host={host()} dbname=erp user=etl password={s}')",
        lambda s: f"ERROR 1045: CHANGE REPLICATION SOURCE TO SOURCE_HOST='{host()}', SOURCE_USER='repl', SOURCE_PASSWORD='{s}'",
    )),
    ("sql_cloud_credentials", "log", one(
        aws_secret,
        lambda s: f"SQL compilation error: CREATE STAGE raw URL='s3://acme-raw/in/' CREDENTIALS=(AWS_KEY_ID='{akid()}' AWS_SECRET_KEY='{s}')",
        lambda s: f"ERROR: S3ServiceException: Access Denied\nQUERY: COPY events FROM 's3://acme-raw/events/' CREDENTIALS 'aws_access_key_id={akid()};aws_secret_access_key={s}' FORMAT AS JSON 'auto'",
        lambda s: f"Code: 499. DB::Exception: S3 error: Access Denied: while executing SELECT * FROM s3('https://acme-raw.s3.amazonaws.com/x.parquet', '{akid()}', '{s}', 'Parquet')",
    )),
    ("nosql_positional_password", "log", one(
        fpw,
        lambda s: f"MongoServerError: Authentication failed. at db.auth(\"admin\", \"{s}\")",
        lambda s: f"uncaught exception: Error: couldn't add user: ... : db.changeUserPassword(\"reporting\", \"{s}\")",
        lambda s: f"{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 10.0.3.{_r.randint(2, 250)}:{_r.randint(30000, 60000)}] \"AUTH\" \"default\" \"{s}\"",
        lambda s: f"1) \"CONFIG\"\n2) \"SET\"\n3) \"requirepass\"\n4) \"{s}\"",
    )),
    ("cql_cypher_influx", "log", one(
        fpw,
        lambda s: f"SyntaxException: line 1:48 mismatched input ';' : CREATE ROLE app WITH PASSWORD = '{s}' AND LOGIN = true",
        lambda s: f"Neo.ClientError.Statement.SyntaxError: CALL dbms.security.createUser('analyst', '{s}', false)",
        lambda s: f"error parsing query: CREATE USER admin WITH PASSWORD '{s}' WITH ALL PRIVILEGES",
        lambda s: f"ERROR 1396 (HY000): Operation SET PASSWORD failed: SET PASSWORD FOR 'app'@'%' = '{s}'",
    )),
    ("jdbc_urls", "exception", one(
        fpw,
        lambda s: f"java.sql.SQLException: No suitable driver found for jdbc:oracle:thin:scott/{s}@//{host()}:1521/ORCLPDB1",
        lambda s: f"com.microsoft.sqlserver.jdbc.SQLServerException: Login failed. url=jdbc:sqlserver://{host()}:1433;databaseName=app;user=sa;password={s};encrypt=true",
        lambda s: f"org.postgresql.util.PSQLException: Connection to jdbc:postgresql://{host()}:5432/app?user=app&password={s}&sslmode=require refused.",
        lambda s: f"Could not open JDBC Connection: jdbc:db2://{host()}:50000/SAMPLE:user=db2inst1;password={s};",
    )),
    # -- non-English and logfmt ---------------------------------------------------------------
    ("non_english_keys_latin", "log", one(
        fpw,
        lambda s: f"{pick('contraseña', 'Passwort', 'mot_de_passe', 'senha', 'wachtwoord', 'hasło', 'şifre', 'Kennwort', 'lösenord', 'salasana', 'jelszó', 'heslo', 'parola')}={s}",
        lambda s: f"{pick('clave_api', 'chave_api', 'API-Schlüssel', 'clé_secrète', 'jeton_d_accès', 'geheim')}: \"{s}\"",
    )),
    ("non_latin_keys", "log", one(
        lambda: pick(fpw(), rnd(32, ALNUM)),
        lambda s: f"{pick('пароль', '密码', 'パスワード', '비밀번호', 'κωδικός', 'סיסמה', 'كلمة_المرور', 'पासवर्ड')}{pick('=', ': ', '：')}{s}",
        lambda s: f"{pick('токен', '令牌', 'トークン', '토큰', 'ключ_api', 'APIキー')}{pick('=', ': ', '：')}{s}",
    )),
    ("localized_error_message", "log", one(
        lambda: rnd(_r.randint(28, 40), ALNUM),
        lambda s: f"Ошибка авторизации: недействительный токен доступа «{s}»",
        lambda s: f"错误：访问令牌 \"{s}\" 已过期，请重新登录",
        lambda s: f"エラー: アクセストークン「{s}」は無効です",
        lambda s: f"Fehler: Zugriffstoken '{s}' ist abgelaufen",
    )),
    ("logfmt_credentials", "log", one(
        lambda: pick(fpw(), rnd(32, ALNUM)),
        lambda s: f"ts={ts().replace(' ', 'T')} level=error caller=db.go:88 msg=\"connect failed\" {pick('pg_pass', 'db_passwd', 'smtp_pw', 'redis_auth')}={s} retry=3",
        lambda s: f"level=warn svc=billing msg=\"upstream 401\" {pick('x_api_key', 'bearer', 'webhook_signing_secret', 'upstream_credential')}=\"{s}\" dur=120ms",
    )),
    # -- provider tokens in shapes a list may lack --------------------------------------------
    ("new_prefix_bare", "log", one(
        new_prefix_token,
        lambda s: f"{ts()} WARN deploy: credential {s} revoked upstream, rotating",
        lambda s: f"401 Unauthorized: {s} is not valid for this workspace",
    )),
    ("new_prefix_json", "json", one(
        new_prefix_token,
        lambda s: f'{{"error": "forbidden", "detail": "token rejected", "used": "{s}"}}',
        lambda s: f"[{s}]",
    )),
    ("new_prefix_cli_arg", "log", one(
        new_prefix_token,
        lambda s: f"+ curl -sf https://api.example.com/v1/deploy -d @payload.json -H 'X-Deploy: {s}'",
        lambda s: f"Running: deployctl push --registry ghcr.io/acme {s} --force",
    )),
    ("new_prefix_config_value", "log", one(
        new_prefix_token,
        lambda s: f"credentials.toml: line 3: unknown field `value` = \"{s}\"",
        lambda s: f"Invalid configuration entry: provider.{pick('doppler', 'pulumi', 'grafana', 'linear', 'tailscale', 'vault')}.value={s}",
    )),
]


def sha(n: int = 64) -> str:
    return rnd(n, HEX)


INFRA_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("configmap_binarydata", "log", lambda: pick(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: branding\nbinaryData:\n  logo.png: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
        f"kind: ConfigMap\ndata:\n  app.properties: |\n    feature.flags={b64s('beta,new-ui')}\n    cache.ttl=300",
        f"binaryData:\n  motd.txt: {b64s('Welcome to build host ' + str(_r.randint(1, 99)) + '. Authorized use only.')}",
        f"data:\n  ca.crt: {cert_b64()[:160]}",
    )),
    ("k8s_secret_refs_and_listing", "log", lambda: pick(
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds\n      key: password",
        f"NAME                  TYPE                                  DATA   AGE\ndb-creds              Opaque                                2      {_r.randint(1, 90)}d\ndefault-token-{rnd(5, LOWER_ALNUM)}   kubernetes.io/service-account-token   3      {_r.randint(1, 400)}d",
        "Data\n====\npassword:  24 bytes\nusername:  3 bytes",
        "envFrom:\n- secretRef:\n    name: api-env\n- configMapRef:\n    name: api-config",
        "- name: LOG_LEVEL\n  value: debug\n- name: DB_PASSWORD_FILE\n  value: /run/secrets/db-password",
    )),
    ("kubeconfig_public_parts", "log", lambda: pick(
        f"clusters:\n- cluster:\n    certificate-authority-data: {cert_b64()}\n    server: https://10.0.0.10:6443\n  name: prod",
        "users:\n- name: eks-prod\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [eks, get-token, --cluster-name, prod]",
        f"contexts:\n- context:\n    cluster: prod\n    namespace: payments\n    user: oidc-{rnd(6, LOWER_ALNUM)}\n  name: prod",
        f"    client-certificate-data: {cert_b64()}",
    )),
    ("image_digests", "log", lambda: pick(
        f"image: registry.example.com/api@sha256:{sha()}",
        f"Digest: sha256:{sha()}\nStatus: Downloaded newer image for ghcr.io/acme/worker:1.{_r.randint(0, 40)}.{_r.randint(0, 9)}",
        f"imageID: docker-pullable://ghcr.io/acme/api@sha256:{sha()}",
        f"containerID: containerd://{sha()}",
    )),
    ("aws_arns_and_ids", "log", lambda: pick(
        f"arn:aws:secretsmanager:us-east-1:{acct()}:secret:prod/db/password-{rnd(6, ALNUM)}",
        f"arn:aws:kms:eu-west-1:{acct()}:key/{uuid()}",
        f'{{"UserId": "AROA{rnd(17, UPPER_ALNUM)}:ci-session", "Account": "{acct()}", "Arn": "arn:aws:sts::{acct()}:assumed-role/ci-deploy/ci-session"}}',
        f"instance i-0{rnd(16, HEX)} in vpc-0{rnd(16, HEX)} sg-0{rnd(16, HEX)} subnet-0{rnd(16, HEX)}",
        f"arn:aws:iam::{acct()}:role/github-actions-deploy",
    )),
    ("aws_cli_masked", "log", lambda: pick(
        f"      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile                <not set>             None    None\naccess_key     ****************{rnd(4, UPPER_ALNUM)} shared-credentials-file\nsecret_key     ****************{rnd(4, ALNUM)} shared-credentials-file\n    region                us-east-1      config-file    ~/.aws/config",
        f'{{"ARN": "arn:aws:secretsmanager:us-east-1:{acct()}:secret:api-key-{rnd(6, ALNUM)}", "Name": "api-key", "VersionIdsToStages": {{"{uuid()}": ["AWSCURRENT"]}}}}',
        f"An error occurred (AccessDenied) when calling the GetSecretValue operation: User: arn:aws:sts::{acct()}:assumed-role/ci/ci is not authorized",
        f"X-Amzn-Trace-Id: Root=1-{rnd(8, HEX)}-{rnd(24, HEX)};Parent={rnd(16, HEX)};Sampled=1",
        f"x-amz-request-id: {rnd(16, UPPER_ALNUM)} x-amz-id-2: {rnd(76, B64)}",
    )),
    ("gcp_resource_names", "log", lambda: pick(
        f"projects/acme-prod/secrets/db-password/versions/{_r.randint(1, 40)}",
        "projects/acme-prod/locations/us-central1/keyRings/app/cryptoKeys/token-signing/cryptoKeyVersions/3",
        f"//iam.googleapis.com/projects/acme-prod/serviceAccounts/ci/keys/{sha(40)}",
        f"operation-{_r.randint(10**12, 10**13)}-{rnd(13, HEX)}-{rnd(8, HEX)}-{rnd(8, HEX)}",
        f"X-Cloud-Trace-Context: {sha(32)}/{_r.randint(10**15, 10**19)};o=1",
    )),
    ("azure_resource_ids", "log", lambda: pick(
        f"/subscriptions/{uuid()}/resourceGroups/rg-prod/providers/Microsoft.KeyVault/vaults/kv-prod/secrets/db-password",
        f"https://kv-prod.vault.azure.net/secrets/api-key/{sha(32)}",
        f'{{"id": "{uuid()}", "tenantId": "{uuid()}", "user": {{"name": "{uuid()}", "type": "servicePrincipal"}}, "state": "Enabled"}}',
        f"x-ms-request-id: {uuid()} x-ms-correlation-request-id: {uuid()}",
        f'{{"keyId": "{uuid()}", "displayName": "ci secret", "hint": "{rnd(3, ALNUM)}", "endDateTime": "2026-01-01T00:00:00Z"}}',
    )),
    ("oci_and_other_ids", "log", lambda: pick(
        f"ocid1.vault.oc1.iad.{rnd(60, LOWER_ALNUM)}",
        f"ocid1.instance.oc1.phx.{rnd(60, LOWER_ALNUM)}",
        f"droplet {_r.randint(10**8, 10**9)} uuid {uuid()} region fra1",
        f"Fly machine {rnd(14, HEX)} in app acme-api version {_r.randint(1, 400)}",
        f"heroku release v{_r.randint(2, 900)} by ci: Set STRIPE_SECRET_KEY config vars",
    )),
    ("terraform_sensitive", "log", lambda: pick(
        "  + password                    = (sensitive value)",
        "  ~ master_password = (sensitive value)",
        '"sensitive_attributes": [[{"type": "get_attr", "value": "password"}]],',
        'admin_password = <sensitive>',
        '          "password": null,\n          "password_wo": null,',
    )),
    ("terraform_state_ids", "json", lambda: pick(
        f'{{"version": 4, "terraform_version": "1.9.5", "serial": {_r.randint(1, 900)}, "lineage": "{uuid()}"}}',
        f'"etag": "\\"{sha(32)}\\"", "version_id": "{rnd(32, ALNUM)}"',
        f'"id": "sg-0{rnd(16, HEX)}", "owner_id": "{acct()}"',
        f'"kms_key_id": "arn:aws:kms:us-east-1:{acct()}:key/{uuid()}"',
        f'"source_code_hash": "{base64.b64encode(_r.randbytes(32)).decode()}"',
    )),
    ("helm_values_placeholders", "log", lambda: pick(
        "auth:\n  existingSecret: pg-creds\n  secretKeys:\n    adminPasswordKey: postgres-password\n    userPasswordKey: password",
        "  password: \"\"",
        "  password: {{ .Values.db.password | quote }}",
        "  token: <path:secret/data/ci#token>",
        "--set postgresql.auth.existingSecret=pg-creds --set image.tag=1.4.2",
    )),
    ("spring_placeholders", "log", lambda: pick(
        "spring.datasource.password=${DB_PASSWORD}",
        "spring.datasource.password=${vcap.services.orders-db.credentials.password}",
        f"spring.security.oauth2.client.registration.google.client-id={_r.randint(10**11, 10**12)}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com",
        "server.ssl.key-store-password=${KEYSTORE_PASS:}",
        "Failed to bind properties under 'spring.datasource.hikari.maximum-pool-size' to int:\n\n    Property: spring.datasource.hikari.maximum-pool-size\n    Value: \"many\"\n    Origin: class path resource [application.yml] - 9:28",
    )),
    ("appsettings_nonsecret", "json", lambda: pick(
        '"ConnectionStrings": { "Default": "Server=(localdb)\\\\mssqllocaldb;Database=app;Trusted_Connection=True;MultipleActiveResultSets=true" }',
        '"ConnectionStrings": { "Default": "Data Source=sql01;Initial Catalog=Orders;Integrated Security=SSPI;" }',
        '{"Jwt": {"Issuer": "https://auth.example.com", "Audience": "api", "ExpiryMinutes": 60}}',
        '{"KeyVault": {"VaultUri": "https://kv-prod.vault.azure.net/"}, "Logging": {"LogLevel": {"Default": "Information"}}}',
        '<add key="ClientValidationEnabled" value="true" />',
    )),
    ("env_and_unit_placeholders", "log", lambda: pick(
        "export DB_PASSWORD=",
        'export API_KEY="${API_KEY:?API_KEY must be set}"',
        "export TOKEN=$(cat /run/secrets/token)",
        "LoadCredential=db-password:/etc/credstore/db-password",
        "Environment=LOG_LEVEL=info PORT=8080 GOMAXPROCS=2",
    )),
    ("proxy_config_variables", "log", lambda: pick(
        "proxy_set_header Authorization $http_authorization;",
        "proxy_set_header X-Request-ID $request_id;",
        "ssl_certificate_key /etc/ssl/private/api.example.com.key;",
        'http-request set-header Authorization "Bearer %[var(txn.upstream_token)]"',
        '- header: {key: "x-request-id", value: "%REQ(X-REQUEST-ID)%"}',
    )),
    ("package_manager_configs", "log", lambda: pick(
        '{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}',
        f'{{"credHelpers": {{"{acct()}.dkr.ecr.us-east-1.amazonaws.com": "ecr-login"}}}}',
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        "Looking in indexes: https://pypi.org/simple, https://ci:****@artifactory.example.com/api/pypi/pypi/simple",
        '<add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />',
    )),
    ("windows_event_benign", "log", lambda: pick(
        f"An account was successfully logged on.\r\nSubject:\r\n\tSecurity ID:\t\tS-1-5-18\r\n\tLogon ID:\t\t0x3E7\r\nLogon GUID:\t\t{{{uuid()}}}\r\nAuthentication Package:\tNTLM\r\nPackage Name (NTLM only):\tNTLM V2\r\nKey Length:\t\t128",
        'Process Command Line:\t"C:\\Windows\\system32\\svchost.exe -k netsvcs -p -s Schedule"',
        f"Token Elevation Type:\t%%1936\r\nMandatory Label:\tS-1-16-12288\r\nNew Process ID:\t0x{rnd(4, HEX)}",
        "A Kerberos service ticket was requested. Ticket Options: 0x40810000 Ticket Encryption Type: 0x12 Failure Code: 0x0",
        f"Security ID: S-1-5-21-{_r.randint(10**9, 4*10**9)}-{_r.randint(10**9, 4*10**9)}-{_r.randint(10**8, 10**9)}-500 Account Name: Administrator",
    )),
    ("sysmon_hashes", "log", lambda: pick(
        f'<Data Name="Hashes">SHA1={sha(40).upper()},MD5={sha(32).upper()},SHA256={sha(64).upper()},IMPHASH={sha(32).upper()}</Data>',
        f'<Data Name="ProcessGuid">{{{uuid()}}}</Data><Data Name="ProcessId">{_r.randint(100, 9999)}</Data>',
        f"Hashes: SHA256={sha(64).upper()}",
        '<Data Name="CommandLine">"C:\\Program Files\\Git\\cmd\\git.exe" fetch --prune origin</Data>',
        f'<Data Name="LogonGuid">{{{uuid()}}}</Data><Data Name="LogonId">0x{rnd(6, HEX)}</Data>',
    )),
    ("registry_benign", "log", lambda: pick(
        "    AutoAdminLogon    REG_SZ    0\n    DefaultUserName    REG_SZ    kiosk",
        f"    ProductId    REG_SZ    00330-80000-00000-AA{_r.randint(100, 999)}",
        f"    MachineGuid    REG_SZ    {uuid()}",
        f"    InstallDate    REG_DWORD    0x{rnd(8, HEX)}",
        f"    DigitalProductId    REG_BINARY    {rnd(64, HEX).upper()}",
    )),
    ("sql_errors_benign", "log", lambda: pick(
        f'ERROR:  duplicate key value violates unique constraint "api_keys_key_hash_key"\nDETAIL:  Key (key_hash)=({sha()}) already exists.',
        'ERROR:  column "password" does not exist at character 8',
        "STATEMENT:  UPDATE users SET password_hash = $1, updated_at = now() WHERE id = $2",
        f"ERROR 1045 (28000): Access denied for user 'app'@'10.0.3.{_r.randint(2, 250)}' (using password: YES)",
        f"SELECT token_id, expires_at FROM sessions WHERE user_id = {_r.randint(1, 99999)}",
    )),
    ("nosql_errors_benign", "log", lambda: pick(
        f"MongoServerError: E11000 duplicate key error collection: app.orders index: _id_ dup key: {{ _id: ObjectId('{sha(24)}') }}",
        "WRONGPASS invalid username-password pair or user is disabled.",
        "(error) ERR AUTH <password> called without any password configured for the default user.",
        "AuthenticationFailed('Failed to authenticate to 10.0.0.5:9042: Error from server: code=0100 [Bad credentials] message=\"Provided username app and/or password are incorrect\"')",
        f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 10.0.3.7:51234] "HGETALL" "user:{_r.randint(1, 99999)}"',
    )),
    ("cloud_cli_benign", "log", lambda: pick(
        f"NAME             DIGEST            CREATED AT\nDATABASE_URL     {sha(16)}  2m ago\nSTRIPE_API_KEY   {sha(16)}  14d ago",
        f"Key                Value\n---                -----\nSeal Type          shamir\nUnseal Progress    0/3\nCluster ID         {uuid()}\nHA Enabled         false",
        f"Key              Value\n---              -----\ncreated_time     2025-03-04T10:11:12.{_r.randint(100000, 999999)}Z\ncurrent_version  {_r.randint(1, 30)}\nmax_versions     0",
        f"User UUID                               Team        Droplet Limit    Status\n{uuid()}    acme        25               active",
        f"ACTIVE  ACCOUNT\n*       ci-deployer (service account, key {sha(40)})",
    )),
    ("trace_request_ids", "header", lambda: pick(
        f"traceparent: 00-{sha(32)}-{sha(16)}-01",
        f"cf-ray: {sha(16)}-FRA",
        f"x-request-id: req_{rnd(24, LOWER_ALNUM)}",
        f"tracestate: dd=s:1;t.tid:{sha(16)},rojo=00f067aa0ba902b7",
        f"b3: {sha(32)}-{sha(16)}-1",
    )),
    ("commit_shas_checksums", "log", lambda: pick(
        f"commit {sha(40)}\nMerge: {sha(7)} {sha(7)}",
        f"GITHUB_SHA={sha(40)} CI_COMMIT_SHA={sha(40)}",
        f"{sha()}  terraform_1.9.5_linux_amd64.zip",
        f"pip install --require-hashes app==2.3.1 --hash=sha256:{sha()}",
        f"checksum: sha512-{base64.b64encode(_r.randbytes(64)).decode()}",
    )),
    ("version_strings", "log", lambda: pick(
        f"Microsoft Windows [Version 10.0.{_r.randint(17000, 26100)}.{_r.randint(100, 5000)}]",
        f"go1.22.5 linux/amd64 vcs.revision={sha(40)} vcs.time=2025-05-01T10:00:00Z vcs.modified=false",
        f'Client Version: version.Info{{Major:"1", Minor:"30", GitVersion:"v1.30.2", GitCommit:"{sha(40)}", GitTreeState:"clean"}}',
        f"build_id=20250301.{_r.randint(1, 40)}+sha.{sha(12)} release=2025.03.{_r.randint(1, 28)}-rc.{_r.randint(1, 9)}",
        f"Terraform v1.9.5 on linux_amd64\n+ provider registry.terraform.io/hashicorp/aws v5.{_r.randint(10, 90)}.0",
    )),
    ("logfmt_benign", "log", lambda: pick(
        f"level=info msg=\"token refreshed\" token_ttl=3600s token_type=bearer key_id=kid-2025-0{_r.randint(1, 9)}",
        f"auth=ok user=svc-ci duration={_r.randint(1, 900)}ms",
        "level=info password_changed=true password_policy=strong mfa=totp",
        f"secret_version={_r.randint(1, 40)} secret_name=db-password rotated=false",
        f"level=debug api_key_id={uuid()} scope=read:orders",
    )),
    ("non_english_benign", "log", lambda: pick(
        "パスワードは12文字以上で入力してください",
        "пароль успешно изменён для пользователя app",
        "contraseña: ********",
        "Passwort: <ausgeblendet>",
        "密码: [已隐藏]",
        "mot_de_passe = ${MOT_DE_PASSE}",
        "비밀번호 재설정 링크가 전송되었습니다",
        f"Token abgelaufen am 2025-03-{_r.randint(10, 28)}",
    )),
    ("base64_nonsecret_values", "log", lambda: pick(
        f"data:\n  nginx.conf: {b64s('worker_processes auto; events { worker_connections 1024; }')}",
        f'{{"kind": "ConfigMap", "binaryData": {{"banner.txt": "{b64s("Maintenance window: Sunday 02:00 UTC")}"}}}}',
        "userdata: " + b64s("#!/bin/bash\napt-get update && apt-get install -y nginx\n"),
        f"x-goog-hash: crc32c={b64s(rnd(3, ALNUM))[:6]}==,md5={base64.b64encode(_r.randbytes(16)).decode()}",
        f"Content-MD5: {base64.b64encode(_r.randbytes(16)).decode()}",
    )),
    ("long_identifiers", "log", lambda: pick(
        f"job_id=build-{_r.randint(10**5, 10**6)}-{sha(8)} pipeline=deploy-prod stage=migrate",
        f"/var/lib/kubelet/pods/{uuid()}/volumes/kubernetes.io~secret/default-token-{rnd(5, LOWER_ALNUM)}",
        f"PersistentVolumeClaim pvc-{uuid()} bound to volume vol-0{rnd(16, HEX)}",
        f"snapshot snap-0{rnd(16, HEX)} of ami-0{rnd(16, HEX)} completed",
        f"ETag: W/\"{sha(40)}\"",
    )),
]


def infra() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261201_6)
    return heldout._records(INFRA_SECRETS, INFRA_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = infra()
    heldout._write(HERE / "infra_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "infra_benign.jsonl.gz", benign_rows)
    print(f"infra: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
