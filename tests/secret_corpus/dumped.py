"""A ninth held-out set: secrets in debug-printed objects and crash output.

    python -m tests.secret_corpus.dumped   # rewrites dumped_*.jsonl.gz here

What reaches an MCP error message when a tool's exception carries a repr of its config or request, written
before reading the scrubber's patterns, as each language's own printer writes it: Python ``repr`` of dataclasses,
pydantic models (v2 repr and v1 ``str``), attrs classes, NamedTuples, dicts, ``os.environ``, Flask's ``<Config
{...}>``; pydantic's ``ValidationError`` echoing ``input_value``; Rich traceback ``locals`` panels,
``better_exceptions`` and ``stackprinter`` variable dumps, ``traceback`` with ``capture_locals``; pytest
assertion diffs and ``--showlocals``; Django's debug page text (request POST/COOKIES/META) and Werkzeug's console;
Java ``toString()`` (Lombok, records, IntelliJ's generated form, Guava ``toStringHelper``, commons-lang
``ToStringBuilder``), Spring Boot actuator ``/env`` JSON, Kotlin data classes; Go ``%v``/``%+v``/``%#v`` struct
dumps, ``http.Header`` maps, ``*url.URL`` and panics; Rust ``{:?}``/``{:#?}`` Debug (``reqwest`` requests,
``Url``, ``Option``); Node ``util.inspect``/``console.log`` of objects, class instances and axios errors (the
``config.headers`` and ``_header`` request text); Ruby ``inspect`` of objects, Structs, ``Data`` and hashes in the
old (``=>``) and 3.4 (``key: ``) forms; PHP ``var_dump``, ``print_r``, ``var_export``; .NET record and anonymous
type ``ToString()``, Serilog's destructured ``Type { Prop: "..." }``; Elixir structs, maps and keyword lists,
Erlang maps with binaries and proplists; ``/proc/PID/environ`` (NUL- and space-separated), gdb's ``print`` of a
struct. Secrets of many kinds: provider tokens with prefixes, random keys with no prefix under secret-named
fields, human passwords (with quotes escaped the printer's way), PEM keys in a string with ``\\n`` escapes, JWTs,
connection strings inside a field, base64 Basic credentials, in varied nesting and quoting.

Benign: the same printers with look-alikes that must survive, each category saying why it is benign: values the
printer or the framework already masked (``SecretStr('**********')``, Django's ``'********************'``,
Spring's ``******``, ``[FILTERED]``, ``**redacted**``, ``Secret([REDACTED ...])``, ``Sensitive``), ids, hashes,
UUIDs, commit SHAs and trace ids under non-secret fields, settings under secret-sounding names
(``password_min_length=12``, ``max_tokens``, ``token_count``, ``key_id``), references to a secret by name or path
(``secret_name='prod-db'``), empty and null secret fields, public keys, object addresses.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed, human passwords
marked ``Fake``). E-mail addresses are PII the scrubber removes by design, so no benign line holds one. 69 secret
formats x 4 and 30 benign categories x 5. ``tests/test_scrub_dumped.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import b64u, jwt, tok, user
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import akid, aws_secret, b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: dumped() seeds it


# --- values -----------------------------------------------------------------------------------

def provider() -> str:
    """A provider token with its documented prefix (shapes after the vendors' docs; bodies random)."""
    return pick(
        "ghp_" + rnd(36, ALNUM),
        "github_pat_" + rnd(22, ALNUM) + "_" + rnd(59, ALNUM),
        "glpat-" + rnd(20, ALNUM + "-_"),
        "sk_live_" + rnd(24, ALNUM),
        "rk_live_" + rnd(24, ALNUM),
        f"xoxb-{_r.randint(10**10, 10**11)}-{_r.randint(10**12, 10**13)}-{rnd(24, ALNUM)}",
        "npm_" + rnd(36, ALNUM),
        "sk-proj-" + rnd(48, ALNUM + "-_"),
        "sk-ant-api03-" + rnd(93, ALNUM + "-_") + "AA",
        "SG." + rnd(22, B64URL) + "." + rnd(43, B64URL),
        "hf_" + rnd(34, ALNUM),
        "AIza" + rnd(35, ALNUM + "-_"),
        "pypi-AgEIcHlwaS5vcmc" + rnd(60, B64URL),
        "shpat_" + rnd(32, HEX),
        "dop_v1_" + rnd(64, HEX),
    )


def randkey() -> str:
    """A key with no prefix: hex, base64 or alphanumeric, as generated secrets are."""
    return pick(rnd(32, HEX), rnd(64, HEX), rnd(40, ALNUM), base64.b64encode(_r.randbytes(32)).decode(), rnd(43, B64URL))


def anysecret() -> str:
    return pick(provider(), randkey(), fpw(), jwt())


def qpw() -> str:
    """A password with a quote in it, so the printer escapes or switches quotes."""
    base = fpw()
    cut = _r.randint(4, len(base) - 2)
    return base[:cut] + pick("'", '"', "\\") + base[cut:]


def pem() -> str:
    body = "\n".join(rnd(64, B64) for _ in range(_r.randint(3, 6)))
    kind = pick("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY")
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"


def pem_line(key: str) -> str:
    """The body line a scorer checks (the armour lines are public text)."""
    return key.split("\n")[2]


def host() -> str:
    return pick("db.internal", "10.0.3.17", "pg-main.prod.svc.cluster.local", "mysql-eu.example.net", "redis.cache.local")


def dsn(password: str) -> str:
    h = host()
    return pick(
        f"postgresql://app:{password}@{h}:5432/orders",
        f"mysql+pymysql://svc_report:{password}@{h}/report?charset=utf8mb4",
        f"mongodb+srv://api:{password}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true",
        f"redis://:{password}@{h}:6379/0",
        f"amqp://worker:{password}@{h}:5672/%2F",
    )


def addr() -> str:
    return "0x7f" + rnd(10, "0123456789abcdef")


def py(value: str) -> str:
    return repr(value)


def js(value: str) -> str:
    """util.inspect's quoting: single quotes, double when the string has a single quote, backticks when both."""
    if "'" not in value:
        return "'" + value.replace("\\", "\\\\") + "'"
    if '"' not in value:
        return '"' + value.replace("\\", "\\\\") + '"'
    return "`" + value.replace("\\", "\\\\") + "`"


def goq(value: str) -> str:
    """strconv.Quote, as %#v and Rust's {:?} quote an ASCII string."""
    return json.dumps(value)


def rich_row(name: str, value: str, width: int = 74) -> str:
    return f"│ │ {name:>16} = {value}".ljust(width) + " │ │"


def sec(value: Callable[[], str], *templates: Callable[[str], str]) -> Maker:
    """A format whose text shows the secret escaped by the printer: the row's secret is what the text holds."""

    def make() -> tuple[str, str]:
        raw = value()
        text, shown = _r.choice(templates)(raw)
        return shown, text

    return make


def _pem_in(printer: Callable[[str], str]) -> Maker:
    def make() -> tuple[str, str]:
        key = pem()
        return pem_line(key), printer(key)

    return make


# --- secrets ----------------------------------------------------------------------------------

DUMPED_SECRETS: list[tuple[str, str, Maker]] = [
    # Python ------------------------------------------------------------------------------------
    ("py_dataclass_repr", "log", one(anysecret,
        lambda s: f"Settings(api_key={py(s)}, base_url='https://api.example.com/v1', timeout=30.0, retries=3)",
        lambda s: f"ValueError: cannot connect with DatabaseConfig(host={py(host())}, port=5432, user='app', password={py(s)}, sslmode='require')",
        lambda s: f"RuntimeError: upload failed for S3Settings(bucket='acme-artifacts', region='eu-west-1', access_key_id={py(akid())}, secret_access_key={py(s)})",
        lambda s: f"ClientConfig(endpoint='https://hooks.example.com', signing_secret={py(s)}, verify_ssl=True)",
    )),
    ("py_pydantic_v2_repr", "log", one(anysecret,
        lambda s: f"Settings(openai_api_key={py(s)}, model='gpt-4o-mini', debug=False, db_password=SecretStr('**********'))",
        lambda s: f"toolconfig=AppSettings(environment='prod', redis_url='redis://cache:6379/0', jwt_secret={py(s)}, cors_origins=['https://app.example.com'])",
        lambda s: f"GitHubSettings(app_id=31337, installation_id=4242, webhook_secret={py(s)}, private_key_path=PosixPath('/run/secrets/gh.pem'))",
        lambda s: f"StripeConfig(secret_key={py(s)}, publishable_key='pk_test_51HqLyjWDarjtT1zdp7dc', api_version='2024-06-20')",
    )),
    ("py_pydantic_v1_str", "log", one(anysecret,
        lambda s: f"settings: app_name='billing' api_token={py(s)} debug=False",
        lambda s: f"Loaded config: environment='staging' sentry_dsn=None smtp_password={py(s)} smtp_host='smtp.example.com'",
        lambda s: f"INFO  config  client_id='reporting' client_secret={py(s)} token_url='https://auth.example.com/oauth/token'",
    )),
    ("py_validation_error_input", "log", one(lambda: pick(provider(), randkey(), fpw()),
        lambda s: f"1 validation error for Settings\napi_key\n  String should have at most 40 characters [type=string_too_long, input_value={py(s)}, input_type=str]",
        lambda s: f"pydantic_core._pydantic_core.ValidationError: 1 validation error for Credentials\npassword\n  String should match pattern '^[A-Za-z0-9]+$' [type=string_pattern_mismatch, input_value={py(s)}, input_type=str]",
        lambda s: f"2 validation errors for ConnectRequest\nport\n  Input should be a valid integer [type=int_parsing, input_value='five', input_type=str]\ntoken\n  Value error, token expired [type=value_error, input_value={py(s)}, input_type=str]",
    )),
    ("py_attrs_namedtuple", "log", one(anysecret,
        lambda s: f"Credentials(username={py(user())}, token={py(s)})",
        lambda s: f"AuthPair(client_id='svc-sync', client_secret={py(s)})",
        lambda s: f"KeyError: ApiCreds(key_id={py(akid())}, secret={py(s)}, session_token=None)",
        lambda s: f"attrs: SmtpAuth(login='noreply@example.com', passwd={py(s)}, starttls=True)",
    )),
    ("py_dict_repr", "log", one(anysecret,
        lambda s: f"{{'auth': {{'client_id': 'web', 'client_secret': {py(s)}}}, 'retries': 3}}",
        lambda s: f"request kwargs: {{'url': 'https://api.example.com/v2/charges', 'headers': {{'Accept': 'application/json'}}, 'json': {{'amount': 1200}}, 'auth': ('api', {py(s)})}}",
        lambda s: f"headers={{'Content-Type': 'application/json', 'X-Api-Key': {py(s)}, 'User-Agent': 'python-httpx/0.27.0'}}",
        lambda s: f"KeyError: 'region' in {{'aws_access_key_id': {py(akid())}, 'aws_secret_access_key': {py(s)}}}",
    )),
    ("py_dict_bearer_header", "log", one(lambda: pick(jwt(), tok(32, 64), provider()),
        lambda s: f"httpx.HTTPStatusError: 401 for Request(headers={{'host': 'api.example.com', 'authorization': 'Bearer {s}', 'accept': '*/*'}})",
        lambda s: f"Headers({{'authorization': 'Bearer {s}', 'content-type': 'application/json'}})",
        lambda s: f"requests.exceptions.HTTPError: 403 Client Error; request.headers={{'User-Agent': 'python-requests/2.32.3', 'Authorization': 'token {s}'}}",
    )),
    ("py_quoted_password", "log", sec(qpw,
        lambda s: (f"DatabaseConfig(host='db', user='app', password={py(s)})", py(s)[1:-1]),
        lambda s: (f"{{'username': 'admin', 'password': {py(s)}, 'host': 'ldap.internal'}}", py(s)[1:-1]),
        lambda s: (f"Settings(smtp_password={py(s)}, smtp_port=587)", py(s)[1:-1]),
    )),
    ("py_pem_in_repr", "log", _pem_in(lambda k: pick(
        f"ServiceAccount(client_email='ci@acme-prod.iam.gserviceaccount.com', private_key={py(k)}, token_uri='https://oauth2.googleapis.com/token')",
        f"{{'type': 'service_account', 'project_id': 'acme-prod', 'private_key_id': '{sha(40)}', 'private_key': {py(k)}}}",
        f"SSHConfig(host='bastion', user='deploy', key={py(k)})",
    ))),
    ("py_dsn_field", "log", one(fpw,
        lambda s: f"EngineConfig(url={py(dsn(s))}, pool_size=10, echo=False)",
        lambda s: f"{{'DATABASE_URL': {py(dsn(s))}, 'DEBUG': False}}",
        lambda s: f"CeleryConfig(broker_url={py(dsn(s))}, result_backend='rpc://')",
    )),
    ("py_environ_repr", "log", one(lambda: pick(provider(), aws_secret(), randkey(), fpw()),
        lambda s: f"environ({{'PATH': '/usr/local/bin:/usr/bin', 'HOSTNAME': 'worker-7c9f', 'AWS_SECRET_ACCESS_KEY': {py(s)}, 'LANG': 'C.UTF-8'}})",
        lambda s: f"os.environ = environ({{'HOME': '/root', 'GITHUB_TOKEN': {py(s)}}})",
        lambda s: f"subprocess env={{'PGPASSWORD': {py(s)}, 'PGHOST': 'db', 'PATH': '/usr/bin'}}",
    )),
    ("flask_config_repr", "log", one(lambda: pick(randkey(), fpw(), provider()),
        lambda s: f"<Config {{'DEBUG': True, 'TESTING': False, 'SECRET_KEY': {py(s)}, 'SESSION_COOKIE_NAME': 'session', 'PERMANENT_SESSION_LIFETIME': datetime.timedelta(days=31)}}>",
        lambda s: f"app.config = <Config {{'ENV': 'production', 'MAIL_PASSWORD': {py(s)}, 'MAIL_SERVER': 'smtp.example.com'}}>",
        lambda s: f">>> app.config['SECRET_KEY']\n{py(s)}",
    )),
    ("rich_locals_panel", "log", one(anysecret,
        lambda s: "╭───────────────────────────── locals ──────────────────────────────╮\n" + rich_row("self", "<app.client.Client object at " + addr() + ">") + "\n" + rich_row("api_key", py(s)) + "\n" + rich_row("timeout", "30") + "\n╰────────────────────────────────────────────────────────────────────╯",
        lambda s: "│ │ password = " + py(s) + "                                    │ │\n│ │     user = 'app'                                           │ │",
        lambda s: "│ ╭──────────── locals ────────────╮ │\n│ │ client_secret = " + py(s) + " │ │\n│ │     client_id = 'web'          │ │",
    )),
    ("better_exceptions", "log", one(lambda: pick(fpw(), randkey(), provider()),
        lambda s: f"  File \"app/db.py\", line 12, in connect\n    return psycopg2.connect(host=host, password=password)\n           │                     │          └ {py(s)}\n           │                     └ 'db.internal'\n           └ <module 'psycopg2'>",
        lambda s: f"  File \"sync.py\", line 40, in push\n    resp = client.post(url, token=token)\n           │      │    │    └ {py(s)}\n           │      │    └ 'https://api.example.com/v1/push'\n           │      └ <function Client.post at {addr()}>",
        lambda s: f"    api.login(user, secret)\n    │         │     └ {py(s)}\n    │         └ 'svc-sync'\n    └ <Api object at {addr()}>",
    )),
    ("stackprinter_vars", "log", one(anysecret,
        lambda s: f"File \"app/client.py\", line 31, in fetch\n    27   def fetch(self, path, api_key):\n--> 31       r = http.get(BASE + path, headers={{'X-Api-Key': api_key}})\n    ..................................................\n     path = '/v1/items'\n     api_key = {py(s)}\n    ..................................................",
        lambda s: f"    ..................................................\n     self.token = {py(s)}\n     self.base = 'https://api.example.com'\n    ..................................................",
        lambda s: f"--> 8        conn = connect(dsn, password=db_password)\n    ..................................................\n     db_password = {py(s)}\n    ..................................................",
    )),
    ("traceback_capture_locals", "log", one(anysecret,
        lambda s: f"Traceback (most recent call last):\n  File \"/app/worker.py\", line 88, in run\n    client.auth(secret)\n    client = <Client at {addr()}>\n    secret = {py(s)}\n    retries = 3\nConnectionError: refused",
        lambda s: f"  File \"/srv/app/jobs.py\", line 14, in sync\n    raise SyncError(resp.status_code)\n    access_token = {py(s)}\n    resp = <Response [401]>",
        lambda s: f"  File \"/app/mail.py\", line 20, in send\n    smtp.login(user, pwd)\n    pwd = {py(s)}\n    user = 'noreply'",
    )),
    ("pytest_assert_diff", "log", one(lambda: pick(provider(), randkey(), jwt()),
        lambda s: f"E       AssertionError: assert {{'api_key': {py(s)}, 'region': 'eu'}} == {{'api_key': 'test-key', 'region': 'eu'}}\nE         Differing items:\nE         {{'api_key': {py(s)}}} != {{'api_key': 'test-key'}}",
        lambda s: f"E       AssertionError: assert 'Bearer {s}' == 'Bearer expected'\nE         - Bearer expected\nE         + Bearer {s}",
        lambda s: f"E       assert response.headers['x-auth-token'] == token\nE       AssertionError: assert 'stale' == {py(s)}",
    )),
    ("pytest_showlocals", "log", one(anysecret,
        lambda s: f"client     = <TestClient object at {addr()}>\npassword   = {py(s)}\nresp       = <Response [403 Forbidden]>",
        lambda s: f"api_token  = {py(s)}\nheaders    = {{'Accept': 'application/json'}}",
        lambda s: f"creds      = {{'user': 'svc', 'secret': {py(s)}}}\nurl        = 'https://api.example.com/v1/login'",
    )),
    ("django_debug_request", "log", one(lambda: pick(fpw(), tok(32, 32), randkey()),
        lambda s: f"Request information:\nUSER: AnonymousUser\n\nGET: No GET data\n\nPOST:\nusername = 'alice'\npassword = {py(s)}\ncsrfmiddlewaretoken = '{rnd(64, ALNUM)}'\n\nFILES: No FILES data",
        lambda s: f"COOKIES:\ncsrftoken = '{rnd(32, ALNUM)}'\nsessionid = {py(s)}",
        lambda s: f"POST:\nemail = 'alice@example.com'\nnew_password1 = {py(s)}\nnew_password2 = {py(s)}",
    )),
    ("werkzeug_console", "log", one(anysecret,
        lambda s: f"[console ready]\n>>> current_app.config['STRIPE_SECRET_KEY']\n{py(s)}",
        lambda s: f">>> request.headers\nEnvironHeaders([('Host', 'localhost:5000'), ('Authorization', 'Bearer {s}'), ('Accept', '*/*')])",
        lambda s: f">>> os.environ.get('SLACK_BOT_TOKEN')\n{py(s)}",
    )),
    # Java / Kotlin -----------------------------------------------------------------------------
    ("java_lombok_tostring", "log", one(anysecret,
        lambda s: f"java.lang.IllegalStateException: Failed to connect with DataSourceConfig(url=jdbc:postgresql://{host()}:5432/app, username=app, password={s}, maxPoolSize=10)",
        lambda s: f"ApiClientProperties(baseUrl=https://api.example.com, apiKey={s}, connectTimeout=PT5S)",
        lambda s: f"MailSettings(host=smtp.example.com, port=587, user=noreply, pass={s}, tls=true)",
        lambda s: f"OAuthClient(clientId=reporting, clientSecret={s}, scopes=[read, write])",
    )),
    ("java_record_tostring", "log", one(anysecret,
        lambda s: f"Creds[user=app, token={s}]",
        lambda s: f"java.lang.IllegalArgumentException: bad credentials: AwsCredentials[accessKeyId={akid()}, secretAccessKey={s}, sessionToken=null]",
        lambda s: f"WebhookConfig[url=https://hooks.example.com/in, secret={s}, retries=3]",
    )),
    ("java_intellij_tostring", "log", one(anysecret,
        lambda s: f"Config{{host='db.internal', password='{s}', port=5432}}",
        lambda s: f"SftpTarget{{host='files.example.com', username='upload', privateKeyPassphrase='{s}'}}",
        lambda s: f"TokenResponse{{accessToken='{s}', tokenType='Bearer', expiresIn=3600}}",
    )),
    ("java_tostringbuilder", "log", one(anysecret,
        lambda s: f"com.acme.Config@1b6d3586[host=db,password={s},port=5432]",
        lambda s: f"com.acme.sftp.Session@4e25154f[user=deploy,passphrase={s},timeout=30000]",
        lambda s: f"Config{{host=db, apiSecret={s}, region=eu-west-1}}",
    )),
    ("spring_actuator_env_raw", "json", one(anysecret,
        lambda s: json.dumps({"name": "systemEnvironment", "properties": {"DB_PASSWORD": {"value": s, "origin": 'System Environment Property "DB_PASSWORD"'}}}),
        lambda s: json.dumps({"property": {"source": "applicationConfig: [classpath:/application.yml]", "value": s}, "activeProfiles": ["prod"]}) + "  (GET /actuator/env/spring.datasource.password)",
        lambda s: json.dumps({"propertySources": [{"name": "Config resource 'class path resource [application.properties]'", "properties": {"stripe.api-key": {"value": s, "origin": "class path resource [application.properties] - 7:16"}}}]}),
        lambda s: json.dumps({"spring.mail.password": {"value": s}}),
    )),
    ("kotlin_data_class", "log", one(anysecret,
        lambda s: f"DbConfig(host=db, user=app, password={s})",
        lambda s: f"kotlin.IllegalStateException: refresh failed for Session(userId=42, refreshToken={s}, expiresAt=2025-03-01T10:00:00Z)",
        lambda s: f"FirebaseOptions(projectId=acme-prod, apiKey={s}, appId=1:{_r.randint(10**11, 10**12)}:android:{rnd(16, HEX)})",
    )),
    ("java_exception_props", "log", one(fpw,
        lambda s: f"org.springframework.boot.context.properties.bind.BindException: Failed to bind properties under 'spring.datasource' to DataSourceProperties(url=jdbc:mysql://db:3306/app?user=app&password={s})",
        lambda s: f"Caused by: java.sql.SQLException: Access denied; Properties {{user=app, password={s}, useSSL=false}}",
        lambda s: f"java.util.Properties: {{mail.smtp.host=smtp.example.com, mail.smtp.password={s}, mail.smtp.auth=true}}",
    )),
    # Go ----------------------------------------------------------------------------------------
    ("go_plus_v", "log", one(anysecret,
        lambda s: f"config: &{{User:app Password:{s} Host:{host()} Port:5432}}",
        lambda s: f"failed to start: invalid config {{Server:{{Addr::8080}} Auth:{{ClientID:web ClientSecret:{s}}}}}",
        lambda s: f"level=error msg=\"dial failed\" cfg=\"{{Endpoint:https://api.example.com Token:{s} Timeout:30s}}\"",
        lambda s: f"opts: {{APIKey:{s} Region:us-east-1 Debug:false}}",
    )),
    ("go_sharp_v", "log", one(anysecret,
        lambda s: f"main.Config{{APIKey:{goq(s)}, Timeout:30000000000}}",
        lambda s: f"&config.DB{{User:\"app\", Password:{goq(s)}, Host:\"db\", Port:5432}}",
        lambda s: f"github.Client{{BaseURL:\"https://api.github.com/\", Token:{goq(s)}}}",
        lambda s: f"aws.Credentials{{AccessKeyID:{goq(akid())}, SecretAccessKey:{goq(s)}, SessionToken:\"\", Source:\"EnvConfigCredentials\", CanExpire:false}}",
    )),
    ("go_plain_v", "log", one(lambda: pick(fpw(), randkey(), provider()),
        lambda s: f"connecting with {{app {s} db.internal 5432 disable}}",
        lambda s: f"creds: &{{svc-sync {s}}}",
    )),
    ("go_http_header_map", "log", one(lambda: pick(jwt(), tok(32, 64), provider()),
        lambda s: f"request headers: map[Accept:[application/json] Authorization:[Bearer {s}] User-Agent:[Go-http-client/1.1]]",
        lambda s: f"http.Header{{\"Authorization\":[]string{{\"Bearer {s}\"}}, \"Content-Type\":[]string{{\"application/json\"}}}}",
        lambda s: f"map[X-Api-Key:[{s}] Accept-Encoding:[gzip]]",
    )),
    ("go_url_struct", "log", one(fpw,
        lambda s: f"&{{Scheme:postgres Opaque: User:app:{s} Host:{host()}:5432 Path:/app RawPath: OmitHost:false ForceQuery:false RawQuery:sslmode=disable Fragment: RawFragment:}}",
        lambda s: f"url.URL{{Scheme:\"amqp\", User:url.UserPassword(\"worker\", {goq(s)}), Host:\"rabbit:5672\"}}",
    )),
    ("go_panic", "log", one(anysecret,
        lambda s: f"panic: dial tcp 10.0.3.17:5432: connect: connection refused (config: {{Host:db Password:{s}}})\n\ngoroutine 1 [running]:\nmain.mustConnect(...)\n\t/src/main.go:42 +0x1b4",
        lambda s: f"panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n\tpanic: auth failed for token={s}\n\ngoroutine 18 [running]:\ngithub.com/acme/sync.(*Client).Do(0xc000112000, {{0xc00001e0c0, 0x20}})",
        lambda s: f"panic: unexpected status 401 for main.Creds{{User:\"deploy\", Secret:{goq(s)}}}\n\ngoroutine 1 [running]:",
    )),
    # Rust --------------------------------------------------------------------------------------
    ("rust_debug", "log", one(anysecret,
        lambda s: f"Config {{ host: \"db\", user: \"app\", password: {goq(s)}, port: 5432 }}",
        lambda s: f"Error: failed to build client from ClientConfig {{ token: {goq(s)}, .. }}",
        lambda s: f"thread 'main' panicked at src/main.rs:31:10:\ncalled `Result::unwrap()` on an `Err` value: Unauthorized(Credentials {{ key_id: \"{akid()}\", secret: {goq(s)} }})",
        lambda s: f"settings = Settings {{ database_url: \"postgres://db/app\", api_key: Some({goq(s)}), log_level: Info }}",
    )),
    ("rust_pretty_debug", "log", one(anysecret,
        lambda s: f"Config {{\n    api_key: {goq(s)},\n    timeout: 30s,\n    retries: 3,\n}}",
        lambda s: f"AppState {{\n    db: Pool {{ .. }},\n    jwt_secret: {goq(s)},\n}}",
        lambda s: f"    auth: Auth {{\n        client_id: \"web\",\n        client_secret: Some(\n            {goq(s)},\n        ),\n    }},",
    )),
    ("rust_reqwest_request", "log", one(lambda: pick(jwt(), tok(32, 64), provider()),
        lambda s: f"Request {{ method: POST, url: Url {{ scheme: \"https\", cannot_be_a_base: false, username: \"\", password: None, host: Some(Domain(\"api.example.com\")), port: None, path: \"/v1/jobs\", query: None, fragment: None }}, headers: {{\"authorization\": \"Bearer {s}\", \"content-type\": \"application/json\"}} }}",
        lambda s: f"headers: {{\"x-api-key\": \"{s}\", \"accept\": \"*/*\"}}",
    )),
    ("rust_url_password", "log", one(fpw,
        lambda s: f"Url {{ scheme: \"postgres\", cannot_be_a_base: false, username: \"app\", password: Some({goq(s)}), host: Some(Domain(\"db\")), port: Some(5432), path: \"/app\", query: None, fragment: None }}",
        lambda s: f"ConnectOptions {{ host: \"db\", port: 5432, username: \"app\", password: Some({goq(s)}), database: Some(\"app\") }}",
    )),
    # Node --------------------------------------------------------------------------------------
    ("node_inspect_object", "log", one(anysecret,
        lambda s: f"{{ apiKey: {js(s)}, baseURL: 'https://api.example.com', timeout: 10000 }}",
        lambda s: f"Config {{\n  dbUrl: 'postgres://db:5432/app',\n  jwtSecret: {js(s)},\n  port: 3000\n}}",
        lambda s: f"{{\n  client: {{ id: 'web', secret: {js(s)} }},\n  scopes: [ 'read', 'write' ]\n}}",
        lambda s: f"Error: login failed {{ username: 'svc', password: {js(s)} }}",
    )),
    ("node_inspect_headers", "log", one(lambda: pick(jwt(), tok(32, 64), provider()),
        lambda s: f"{{ method: 'POST', headers: {{ authorization: 'Bearer {s}', 'content-type': 'application/json' }} }}",
        lambda s: f"headers: {{\n    Accept: 'application/json, text/plain, */*',\n    'X-API-Key': '{s}',\n    'User-Agent': 'node-fetch'\n  }}",
        lambda s: f"[Object: null prototype] {{ 'private-token': '{s}', host: 'gitlab.example.com' }}",
    )),
    ("node_axios_error", "log", one(lambda: pick(jwt(), tok(32, 64), provider()),
        lambda s: f"AxiosError: Request failed with status code 401\n    at settle (/app/node_modules/axios/dist/node/axios.cjs:1966:12) {{\n  code: 'ERR_BAD_REQUEST',\n  config: {{\n    headers: Object [AxiosHeaders] {{\n      Accept: 'application/json, text/plain, */*',\n      'Content-Type': 'application/json',\n      Authorization: 'Bearer {s}',\n      'User-Agent': 'axios/1.7.2'\n    }},\n    method: 'get',\n    url: 'https://api.example.com/v1/me'\n  }}",
        lambda s: f"    _header: 'GET /v1/me HTTP/1.1\\r\\nAccept: application/json, text/plain, */*\\r\\nAuthorization: Bearer {s}\\r\\nUser-Agent: axios/1.7.2\\r\\nHost: api.example.com\\r\\nConnection: keep-alive\\r\\n\\r\\n',",
        lambda s: f"  config: {{\n    auth: {{ username: 'api', password: '{s}' }},\n    baseURL: 'https://api.mailgun.net/v3'\n  }},",
    )),
    ("node_class_instance", "log", one(anysecret,
        lambda s: f"StripeClient {{ _api: {{ auth: 'Bearer {s}', host: 'api.stripe.com' }} }}",
        lambda s: f"Octokit {{ auth: {js(s)}, baseUrl: 'https://api.github.com' }}",
        lambda s: f"Redis {{ options: {{ host: 'cache', port: 6379, password: {js(s)}, db: 0 }}, status: 'connecting' }}",
    )),
    ("node_escaped_quotes", "log", sec(qpw,
        lambda s: (f"{{ user: 'admin', password: {js(s)} }}", js(s)[1:-1]),
        lambda s: (f"Error: bad login {{ pass: {js(s)}, host: 'ldap' }}", js(s)[1:-1]),
    )),
    ("node_pem_in_inspect", "log", _pem_in(lambda k: pick(
        "{ privateKey: '" + k.replace("\n", "\\n") + "', keyId: 'k1' }",
        "{\n  type: 'service_account',\n  private_key: '" + k.replace("\n", "\\n") + "',\n  client_email: 'ci@acme.iam.gserviceaccount.com'\n}",
    ))),
    # Ruby --------------------------------------------------------------------------------------
    ("ruby_object_inspect", "log", one(anysecret,
        lambda s: f"#<Config:0x000055d5c1a2b3c8 @host=\"db\", @password={goq(s)}, @port=5432>",
        lambda s: f"#<Octokit::Client:0x00007f8b1c0a2e10 @access_token={goq(s)}, @api_endpoint=\"https://api.github.com/\">",
        lambda s: f"NoMethodError: undefined method `fetch' for #<Slack::Web::Client token={goq(s)}>",
    )),
    ("ruby_struct_data", "log", one(anysecret,
        lambda s: f"#<struct Config host=\"db\", password={goq(s)}>",
        lambda s: f"#<data Creds user=\"app\", token={goq(s)}>",
        lambda s: f"#<struct Aws::Credentials access_key_id=\"{akid()}\", secret_access_key={goq(s)}>",
    )),
    ("ruby_hash_rocket", "log", one(anysecret,
        lambda s: f"{{\"token\"=>{goq(s)}, \"expires_in\"=>3600}}",
        lambda s: f"{{:api_key=>{goq(s)}, :region=>\"eu\"}}",
        lambda s: f"Faraday::UnauthorizedError: {{:status=>401, :request=>{{:headers=>{{\"Authorization\"=>\"Bearer {s}\"}}}}}}",
        lambda s: f"ActiveRecord::ConnectionNotEstablished {{\"adapter\"=>\"postgresql\", \"username\"=>\"app\", \"password\"=>{goq(s)}}}",
    )),
    ("ruby_hash_34", "log", one(anysecret,
        lambda s: f"{{token: {goq(s)}, expires_in: 3600}}",
        lambda s: f"{{\"api_key\" => {goq(s)}, \"region\" => \"eu\"}}",
        lambda s: f"{{client_id: \"web\", client_secret: {goq(s)}}}",
    )),
    # PHP ---------------------------------------------------------------------------------------
    ("php_var_dump", "log", one(anysecret,
        lambda s: f"object(App\\Config)#3 (2) {{\n  [\"host\"]=>\n  string(2) \"db\"\n  [\"password\"]=>\n  string({len(s)}) \"{s}\"\n}}",
        lambda s: f"array(2) {{\n  [\"api_key\"]=>\n  string({len(s)}) \"{s}\"\n  [\"timeout\"]=>\n  int(30)\n}}",
        lambda s: f"  [\"secret\":\"App\\Service\\Client\":private]=>\n  string({len(s)}) \"{s}\"",
    )),
    ("php_print_r", "log", one(anysecret,
        lambda s: f"Array\n(\n    [host] => db\n    [password] => {s}\n    [port] => 3306\n)",
        lambda s: f"App\\Mail\\Transport Object\n(\n    [username:protected] => noreply\n    [api_key:protected] => {s}\n)",
        lambda s: f"Stripe\\StripeClient Object ( [config:Stripe\\BaseStripeClient:private] => Array ( [api_key] => {s} [stripe_version] => 2024-06-20 ) )",
    )),
    ("php_var_export", "log", one(anysecret,
        lambda s: f"array (\n  'driver' => 'mysql',\n  'username' => 'app',\n  'password' => '{s}',\n)",
        lambda s: f"\\App\\Config::__set_state(array(\n   'token' => '{s}',\n))",
    )),
    # .NET --------------------------------------------------------------------------------------
    ("dotnet_record", "log", one(anysecret,
        lambda s: f"DbOptions {{ Host = db, User = app, Password = {s} }}",
        lambda s: f"System.InvalidOperationException: cannot authenticate with ApiOptions {{ BaseUrl = https://api.example.com/, ApiKey = {s}, Timeout = 00:00:30 }}",
        lambda s: f"{{ ClientId = web, ClientSecret = {s} }}",
    )),
    ("serilog_destructured", "log", one(anysecret,
        lambda s: f"[10:00:01 INF] Starting with SmtpOptions {{ Host: \"smtp.example.com\", Port: 587, Password: {goq(s)} }}",
        lambda s: f"[10:00:02 ERR] Request failed {{ Url: \"https://api.example.com\", Headers: {{ Authorization: \"Bearer {s}\" }} }}",
        lambda s: json.dumps({"@t": "2025-03-01T10:00:00Z", "@mt": "Loaded {@Options}", "Options": {"ApiKey": s, "Region": "westeurope", "_typeTag": "StorageOptions"}}),
    )),
    # Elixir / Erlang ---------------------------------------------------------------------------
    ("elixir_struct", "log", one(anysecret,
        lambda s: f"%MyApp.Config{{host: \"db\", password: {goq(s)}, port: 5432}}",
        lambda s: f"** (RuntimeError) auth failed: %Req.Request{{method: :get, headers: %{{\"authorization\" => [\"Bearer {s}\"]}}}}",
        lambda s: f"%{{\"token\" => {goq(s)}, \"expires_in\" => 3600}}",
    )),
    ("elixir_keyword", "log", one(anysecret,
        lambda s: f"[username: \"app\", password: {goq(s)}, hostname: \"db\", database: \"app_prod\", pool_size: 10]",
        lambda s: f"** (DBConnection.ConnectionError) connection not available; opts: [hostname: \"db\", password: {goq(s)}]",
        lambda s: f"config :my_app, MyApp.Mailer, adapter: Swoosh.Adapters.Sendgrid, api_key: {goq(s)}",
    )),
    ("erlang_map_binary", "log", one(anysecret,
        lambda s: f"#{{<<\"token\">> => <<{goq(s)}>>, <<\"expires_in\">> => 3600}}",
        lambda s: f"{{error, {{auth_failed, #{{client_id => <<\"web\">>, client_secret => <<{goq(s)}>>}}}}}}",
        lambda s: f"[{{host, \"db\"}}, {{password, {goq(s)}}}, {{port, 5432}}]",
        lambda s: f"#config{{host = \"db\", password = {goq(s)}}}",
    )),
    # process dumps -----------------------------------------------------------------------------
    ("proc_environ_nul", "log", one(lambda: pick(provider(), aws_secret(), randkey(), fpw()),
        lambda s: f"PATH=/usr/local/bin:/usr/bin\0HOSTNAME=api-5d8f\0DB_PASSWORD={s}\0HOME=/root\0",
        lambda s: f"HOME=/home/app\0STRIPE_SECRET_KEY={s}\0LANG=C.UTF-8\0",
        lambda s: f"AWS_ACCESS_KEY_ID={akid()}\0AWS_SECRET_ACCESS_KEY={s}\0AWS_REGION=eu-west-1\0",
    )),
    ("proc_environ_spaced", "log", one(lambda: pick(provider(), randkey(), fpw()),
        lambda s: f"$ cat /proc/1/environ | tr '\\0' ' '\nPATH=/usr/bin HOSTNAME=web-1 API_TOKEN={s} PORT=8080",
        lambda s: f"# strings /proc/4242/environ\nHOME=/root\nREDIS_PASSWORD={s}\nTERM=xterm",
        lambda s: f"environ: LANG=C.UTF-8 SECRET_KEY_BASE={s} RAILS_ENV=production",
    )),
    ("gdb_print_struct", "log", one(lambda: pick(fpw(), randkey(), provider()),
        lambda s: f"(gdb) print *cfg\n$1 = {{host = 0x5555555592a0 \"db\", port = 5432, password = 0x5555555592c0 \"{s}\"}}",
        lambda s: f"(gdb) p conn->auth\n$2 = {{user = \"app\", '\\000' <repeats 28 times>, token = \"{s}\"}}",
        lambda s: f"(gdb) x/s $rdi\n0x7fffffffe3c8:\t\"API_KEY={s}\"",
    )),
    ("core_strings", "log", one(lambda: pick(provider(), jwt(), randkey()),
        lambda s: f"$ strings core.4242 | grep -i authorization\nAuthorization: Bearer {s}",
        lambda s: f"$ strings -n 8 core.api.1733 | grep -i token\naccess_token={s}&token_type=bearer",
    )),
    # secrets of particular shapes in any printer -------------------------------------------------
    ("jwt_in_dump", "log", one(jwt,
        lambda s: f"Session(user_id=42, id_token={py(s)}, expires_at=1735689600)",
        lambda s: f"{{ accessToken: '{s}', tokenType: 'Bearer' }}",
        lambda s: f"AuthResult {{ access_token: \"{s}\", expires_in: 3600 }}",
        lambda s: f"&{{AccessToken:{s} TokenType:Bearer RefreshToken: Expiry:2025-03-01 10:00:00 +0000 UTC}}",
    )),
    ("basic_auth_in_dump", "log", one(lambda: b64s(f"{user()}:{fpw()}"),
        lambda s: f"{{'Authorization': 'Basic {s}', 'Accept': 'application/json'}}",
        lambda s: f"map[Authorization:[Basic {s}]]",
        lambda s: f"headers: {{ authorization: 'Basic {s}' }}",
        lambda s: f"#<Net::HTTP::Get GET> {{\"authorization\"=>[\"Basic {s}\"]}}",
    )),
    ("dsn_in_other_dumps", "log", one(fpw,
        lambda s: f"{{ databaseUrl: '{dsn(s)}', poolSize: 10 }}",
        lambda s: f"Config {{ database_url: \"{dsn(s)}\", workers: 4 }}",
        lambda s: f"&{{DSN:{dsn(s)} MaxConns:20}}",
        lambda s: f"DataSourceConfig(url={dsn(s)}, maxPoolSize=10)",
    )),
    ("pem_in_other_dumps", "log", _pem_in(lambda k: pick(
        "Config { tls_key: \"" + k.replace("\n", "\\n") + "\", tls_cert_path: \"/etc/tls/cert.pem\" }",
        "main.TLS{Key:\"" + k.replace("\n", "\\n") + "\", Cert:\"/etc/tls/cert.pem\"}",
        "{\"privateKey\"=>\"" + k.replace("\n", "\\n") + "\"}",
    ))),
    ("unprefixed_key_vendor_field", "log", one(lambda: pick(rnd(32, HEX), rnd(40, ALNUM), rnd(64, HEX)),
        lambda s: f"MailgunClient(domain='mg.example.com', api_key={py(s)})",
        lambda s: f"{{ appKey: '{s}', appId: 'acme-web' }}",
        lambda s: f"DatadogConfig {{ site: \"datadoghq.eu\", app_key: \"{s}\" }}",
        lambda s: f"&{{LicenseKey:{s} AppName:api}}",
    )),
    ("private_and_signing", "log", one(lambda: pick(randkey(), rnd(44, B64)),
        lambda s: f"Signer(algorithm='HS256', signing_key={py(s)})",
        lambda s: f"{{ hmacSecret: '{s}', header: 'X-Signature' }}",
        lambda s: f"WebhookVerifier {{ secret: \"{s}\", tolerance: 300 }}",
        lambda s: f"EncryptionConfig[masterKey={s}, cipher=AES/GCM/NoPadding]",
    )),
    ("cookie_in_dump", "log", one(lambda: pick(tok(32, 48), rnd(40, HEX), "s%3A" + rnd(32, B64URL) + "." + rnd(43, B64URL)),
        lambda s: f"{{'Cookie': 'sessionid={s}; csrftoken=abc'}}",
        lambda s: f"cookies: {{ 'connect.sid': '{s}' }}",
        lambda s: f"<RequestsCookieJar[<Cookie session={s} for api.example.com/>]>",
    )),
    ("aws_pair_in_dump", "log", one(aws_secret,
        lambda s: f"Credentials(access_key={py(akid())}, secret_key={py(s)}, token=None, method='env')",
        lambda s: f"{{ accessKeyId: '{akid()}', secretAccessKey: '{s}' }}",
        lambda s: f"BasicAWSCredentials[accessKey={akid()}, secretKey={s}]",
    )),
    ("provider_token_bare_field", "log", one(provider,
        lambda s: f"Client(base_url='https://api.example.com', credential={py(s)})",
        lambda s: f"{{ auth: '{s}' }}",
        lambda s: f"GitClient {{ pat: \"{s}\" }}",
        lambda s: f"&{{Key:{s} Org:acme}}",
    )),
    ("nested_secret_maps", "log", one(anysecret,
        lambda s: f"{{'providers': {{'openai': {{'api_key': {py(s)}, 'org': 'org-acme'}}}}, 'default': 'openai'}}",
        lambda s: f"{{ db: {{ primary: {{ host: 'db', credentials: {{ user: 'app', password: {js(s)} }} }} }} }}",
        lambda s: f"&{{Sinks:[{{Kind:splunk Settings:map[hec_token:{s} index:main]}}]}}",
    )),
]


# --- benign -----------------------------------------------------------------------------------

DUMPED_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # pydantic's SecretStr/SecretBytes repr is ten stars whatever the value; a missing field echoes the other inputs.
    ("pydantic_secretstr", "log", lambda: pick(
        "Settings(openai_api_key=SecretStr('**********'), model='gpt-4o-mini', debug=False)",
        "DatabaseSettings(host='db', user='app', password=SecretStr('**********'), port=5432)",
        "Credentials(client_id='web', client_secret=SecretBytes(b'**********'))",
        "api_key=SecretStr('**********') base_url='https://api.example.com'",
        "1 validation error for Settings\napi_key\n  Field required [type=missing, input_value={'model': 'gpt-4o'}, input_type=dict]",
    )),
    # Django's SafeExceptionReporterFilter replaces settings and META matching API|TOKEN|KEY|SECRET|PASS|SIGNATURE with 20 stars.
    ("django_hidden_settings", "log", lambda: pick(
        "SECRET_KEY = '********************'",
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db', 'NAME': 'app', 'PASSWORD': '********************', 'PORT': '5432', 'USER': 'app'}}",
        "POST:\nusername = 'alice'\npassword = '********************'",
        "HTTP_AUTHORIZATION = '********************'\nHTTP_HOST = 'api.example.com'",
        "STRIPE_API_KEY = '********************'\nSTATIC_URL = '/static/'",
    )),
    # Spring Boot's actuator sanitizes /env values to six stars (all values by default since 3.0).
    ("spring_actuator_masked", "json", lambda: pick(
        json.dumps({"DB_PASSWORD": {"value": "******", "origin": 'System Environment Property "DB_PASSWORD"'}}),
        json.dumps({"property": {"source": "systemEnvironment", "value": "******"}}),
        json.dumps({"name": "applicationConfig: [classpath:/application.yml]", "properties": {"spring.datasource.password": {"value": "******"}, "server.port": {"value": 8080}}}),
        json.dumps({"spring.security.oauth2.client.registration.github.client-secret": {"value": "******", "origin": "class path resource [application.yml] - 12:24"}}),
        json.dumps({"management.endpoint.env.show-values": {"value": "NEVER"}}),
    )),
    # the secrecy crate's Debug prints [REDACTED]; http's HeaderValue marked sensitive prints Sensitive.
    ("rust_secrecy_sensitive", "log", lambda: pick(
        "Config { api_key: Secret([REDACTED alloc::string::String]), timeout: 30s }",
        "Settings { token: SecretBox<str>([REDACTED]), region: \"eu-west-1\" }",
        "headers: {\"authorization\": Sensitive, \"content-type\": \"application/json\"}",
        "DbConfig { user: \"app\", password: \"[REDACTED]\", host: \"db\" }",
        "Credentials { key_id: \"k-2025-03\", secret: <redacted> }",
    )),
    # Rails' filter_parameters and Ecto's redact: true already replaced the value.
    ("framework_filtered", "log", lambda: pick(
        "Parameters: {\"user\"=>{\"login\"=>\"alice\", \"password\"=>\"[FILTERED]\"}, \"commit\"=>\"Sign in\"}",
        f"#<User id: {_r.randint(1, 9999)}, login: \"alice\", password_digest: [FILTERED], created_at: \"2025-03-01 10:00:00\">",
        "#Ecto.Changeset<action: :insert, changes: %{login: \"alice\", password: \"**redacted**\"}, errors: [], valid?: true>",
        "#MyApp.Accounts.User<id: 7, login: \"alice\", ...>",
        "{\"password\"=>\"[FILTERED]\", \"api_key\"=>\"[FILTERED]\"}",
    )),
    # a mask in the secret's place (stars, <hidden>, [REDACTED], Go's url.Redacted() xxxxx).
    ("masked_in_other_dumps", "log", lambda: pick(
        "DataSourceConfig(url=jdbc:postgresql://db:5432/app, username=app, password=****, maxPoolSize=10)",
        "&{User:app Password:<hidden> Host:db Port:5432}",
        "{ apiKey: '[REDACTED]', baseURL: 'https://api.example.com' }",
        "DbOptions { Host = db, User = app, Password = *** }",
        "%MyApp.Config{host: \"db\", password: \"<redacted>\", port: 5432}",
        "postgres://app:xxxxx@db:5432/app",
    )),
    # an Authorization header whose value a client library or logger already masked.
    ("redacted_headers", "log", lambda: pick(
        "headers: Object [AxiosHeaders] {\n  Accept: 'application/json',\n  Authorization: '<redacted>'\n}",
        "map[Authorization:[REDACTED] Content-Type:[application/json]]",
        "{'authorization': '[Filtered]', 'user-agent': 'python-httpx/0.27.0'}",
        "{\"Authorization\"=>\"[FILTERED]\", \"Accept\"=>\"*/*\"}",
        "Headers({'authorization': '***', 'host': 'api.example.com'})",
    )),
    # a secret field with nothing in it (None, NULL, "", undefined): nothing to hide.
    ("empty_secret_fields", "log", lambda: pick(
        "Settings(api_key=None, base_url='https://api.example.com', timeout=30.0)",
        "  [\"password\"]=>\n  NULL",
        "  [\"password\"]=>\n  string(0) \"\"",
        "&{User:app Password: Host:db Port:5432}",
        "Config { token: None, retries: 3 }",
        "{ apiKey: undefined, secret: null }",
        "aws.Credentials{AccessKeyID:\"\", SecretAccessKey:\"\", SessionToken:\"\", Source:\"\"}",
    )),
    # record, request and run ids under id fields: they name a record and grant nothing.
    ("ids_in_dumps", "log", lambda: pick(
        f"Order(id='ord_{rnd(24, LOWER_ALNUM)}', customer_id='{uuid()}', total=1200, currency='EUR')",
        f"{{ requestId: '{uuid()}', userId: {_r.randint(1, 99999)}, tenant: 'acme' }}",
        f"&{{ID:{uuid()} Name:api Replicas:3}}",
        f"Job {{ id: {_r.randint(1, 99999)}, run_id: \"{rnd(26, LOWER_ALNUM)}\", state: Running }}",
        f"#<Build id: {_r.randint(1, 99999)}, uuid: \"{uuid()}\", status: \"passed\">",
    )),
    # commit SHAs under commit/sha/revision fields: public build metadata.
    ("commit_shas", "log", lambda: pick(
        f"BuildInfo(commit='{sha(40)}', branch='main', dirty=False)",
        f"{{ sha: '{sha(40)}', ref: 'refs/heads/main' }}",
        f"&{{Revision:{sha(40)} Version:v1.8.2 GoVersion:go1.22.4}}",
        f"Version {{ git_sha: \"{sha(40)}\", semver: \"0.4.1\" }}",
        f"Release[tag=v2.3.0, commitId={sha(40)}]",
    )),
    # W3C trace and span ids (OpenTelemetry's own reprs): correlation ids, not credentials.
    ("trace_ids", "log", lambda: pick(
        f"SpanContext(trace_id=0x{sha(32)}, span_id=0x{sha(16)}, trace_flags=0x01, trace_state=[], is_remote=False)",
        f"{{ traceId: '{sha(32)}', spanId: '{sha(16)}', traceFlags: 1 }}",
        f"&{{TraceID:{sha(32)} SpanID:{sha(16)} TraceFlags:01 Remote:false}}",
        f"SpanContext {{ trace_id: {sha(32)}, span_id: {sha(16)}, trace_flags: TraceFlags(1), is_remote: false }}",
        f"{{\"traceparent\"=>\"00-{sha(32)}-{sha(16)}-01\"}}",
    )),
    # content hashes named as hashes (sha256, integrity, digest, md5, etag): they identify public bytes.
    ("hashes_and_digests", "log", lambda: pick(
        f"Artifact(name='app.tar.gz', sha256='{sha(64)}', size=18432211)",
        f"{{ integrity: 'sha512-{base64.b64encode(_r.randbytes(64)).decode()}', version: '4.17.21' }}",
        f"&{{Image:ghcr.io/acme/api Digest:sha256:{sha(64)}}}",
        f"FileMeta {{ path: \"/data/export.csv\", md5: \"{sha(32)}\", etag: \"\\\"{sha(32)}\\\"\" }}",
        f"Checksum[algorithm=SHA-1, value={sha(40)}]",
    )),
    # LLM token counts and limits and a rate limiter's tokens: numbers under a 'token' word.
    ("token_counts", "log", lambda: pick(
        f"Usage(prompt_tokens={_r.randint(10, 4000)}, completion_tokens={_r.randint(10, 900)}, total_tokens={_r.randint(4000, 5000)})",
        f"{{ maxTokens: {pick('1024', '4096', '8192')}, temperature: 0.2, model: 'claude-sonnet-4' }}",
        f"CompletionRequest {{ model: \"gpt-4o\", max_tokens: Some({_r.randint(256, 4096)}), stream: false }}",
        f"&{{InputTokens:{_r.randint(10, 9999)} OutputTokens:{_r.randint(10, 999)} CacheReadInputTokens:0}}",
        f"{{'token_count': {_r.randint(1, 9999)}, 'truncated': False}}",
        f"TokenBucket(capacity=100, tokens={_r.randint(1, 99)}.5, refill_rate=10.0)",
    )),
    # settings whose names hold a secret word but whose values are numbers, booleans, durations, modes or URLs.
    ("secret_named_settings", "log", lambda: pick(
        "PasswordPolicy(password_min_length=12, require_symbols=True, password_max_age_days=90)",
        "{ tokenExpiry: '15m', refreshTokenTtl: 604800, tokenType: 'Bearer' }",
        "&{PasswordAuth:false KeyAuth:true MaxAuthTries:3}",
        "Settings { secret_rotation_days: 30, auth_required: true, session_ttl: 3600s }",
        "AuthConfig(auth_method='oauth2', token_endpoint='https://auth.example.com/oauth/token', password_grant_enabled=False)",
        "[password_reset_url] => https://app.example.com/reset",
    )),
    # key ids (kid, KMS key id and alias, key ARN): they name a key held elsewhere, not the key.
    ("key_ids", "log", lambda: pick(
        "SigningKey(key_id='k-2025-03', algorithm='RS256', use='sig')",
        f"{{ kid: '{rnd(8, LOWER_ALNUM)}-{_r.randint(1, 9)}', alg: 'ES256', kty: 'EC' }}",
        f"KmsConfig {{ key_id: \"{uuid()}\", region: \"eu-west-1\" }}",
        "&{KeyID:alias/app-data Region:us-east-1}",
        f"EncryptionContext[keyArn=arn:aws:kms:eu-west-1:{_r.randint(10**11, 10**12)}:key/{uuid()}]",
    )),
    # a reference to a secret by name, path or file (secret_name='prod-db', secretKeyRef, a vault path): not its value.
    ("secret_references", "log", lambda: pick(
        "DbSecret(secret_name='prod-db', region='eu-west-1', version_stage='AWSCURRENT')",
        "{ valueFrom: { secretKeyRef: { name: 'api-credentials', key: 'token' } } }",
        "&{SecretRef:{Name:registry-creds Namespace:ci} Path:/run/secrets/registry}",
        "VaultSource { path: \"secret/data/prod/db\", field: \"password\" }",
        "KeyVaultReference[vaultUri=https://acme-prod.vault.azure.net/, secretName=SqlPassword]",
        "Settings(password_file='/run/secrets/db_password', user='app')",
    )),
    # an environment or config reference resolved at run time (${DB_PASSWORD}, process.env.X, %env(X)%).
    ("env_references", "log", lambda: pick(
        "{'password': '${DB_PASSWORD}', 'host': 'db'}",
        "DataSourceConfig(url=jdbc:postgresql://db/app, username=app, password=${SPRING_DATASOURCE_PASSWORD})",
        "{ apiKey: process.env.OPENAI_API_KEY }",
        "%{password: {:system, \"DB_PASSWORD\"}, hostname: \"db\"}",
        "[api_key] => %env(MAILER_API_KEY)%",
    )),
    # public keys, certificates and host keys: published by design.
    ("public_keys", "log", lambda: pick(
        "Jwk(kty='RSA', e='AQAB', n='" + rnd(86, B64URL) + "', use='sig')",
        "{ publicKey: '-----BEGIN PUBLIC KEY-----\\n" + rnd(64, B64) + "\\n-----END PUBLIC KEY-----\\n' }",
        "ServerCert { pem: \"-----BEGIN CERTIFICATE-----\\n" + rnd(64, B64) + "\\n-----END CERTIFICATE-----\\n\" }",
        "SshHostKey(type='ssh-ed25519', public='AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64) + "')",
        "&{PublicKey:ecdsa-sha2-nistp256 Fingerprint:SHA256:" + rnd(43, B64) + "}",
    )),
    # default reprs with a memory address or identity hash: no data at all.
    ("object_addresses", "log", lambda: pick(
        f"<app.client.Client object at {addr()}>",
        f"com.acme.api.TokenService@{rnd(8, HEX)}",
        f"#<Net::HTTP api.example.com:443 open=false> #<Config:0x0000{rnd(12, HEX)}>",
        f"&{{mu:{{state:0 sema:0}} conn:0xc000{rnd(6, HEX)} closed:false}}",
        f"<Session at {addr()} closed=False>",
    )),
    # a Rich locals panel of ordinary variables, one with a masked password.
    ("rich_locals_benign", "log", lambda: pick(
        rich_row("self", f"<Client object at {addr()}>") + "\n" + rich_row("retries", "3"),
        rich_row("url", "'https://api.example.com/v1/items?page=2'"),
        rich_row("token_type", "'Bearer'") + "\n" + rich_row("expires_in", "3600"),
        rich_row("password", "'**********'"),
        rich_row("exc", "ConnectionError('Max retries exceeded')"),
    )),
    # pytest failures about status codes, counts, missing keys and auth modes.
    ("pytest_benign", "log", lambda: pick(
        "E       assert 401 == 200\nE        +  where 401 = <Response [401 Unauthorized]>.status_code",
        f"E       AssertionError: assert {{'token_count': {_r.randint(1, 9)}}} == {{'token_count': {_r.randint(10, 19)}}}",
        "E       KeyError: 'api_key'",
        f"request_id = '{uuid()}'\nstatus     = 403",
        "E         {'auth': 'oauth2'} != {'auth': 'basic'}",
    )),
    # Django/Werkzeug debug text without credentials (or with Django's masks).
    ("debug_page_benign", "log", lambda: pick(
        "Request Method: POST\nRequest URL: http://localhost:8000/accounts/login/\nDjango Version: 5.0.6\nException Type: OperationalError",
        "GET:\npage = '2'\nsort = 'created'",
        "COOKIES:\ncsrftoken = '********************'\nsessionid = '********************'",
        "werkzeug.exceptions.BadRequestKeyError: 400 Bad Request: KeyError: 'password'",
        ">>> app.config['SESSION_COOKIE_SECURE']\nTrue",
    )),
    # Java toString()s naming a header, an encoder's strength, a key id, a null token, a <hidden> secret.
    ("java_benign", "log", lambda: pick(
        "ApiClientProperties(baseUrl=https://api.example.com, apiKeyHeader=X-API-Key, connectTimeout=PT5S)",
        "PasswordEncoderConfig[strength=12, algorithm=bcrypt]",
        "JwtProperties(issuer=https://auth.example.com, tokenValidity=PT15M, keyId=signing-2025)",
        "Creds[user=app, token=null]",
        "OAuthClient(clientId=reporting, clientSecret=<hidden>, scopes=[read, write])",
    )),
    # Go dumps with a masked password, nil TLS config, an empty key, public headers, a stack without arguments.
    ("go_benign", "log", lambda: pick(
        "config: &{User:app Password:******** Host:db Port:5432}",
        "{Addr::8080 ReadTimeout:5s TLSConfig:<nil> MaxHeaderBytes:1048576}",
        "main.Config{APIKey:\"\", Timeout:30000000000, BaseURL:\"https://api.example.com\"}",
        "map[Accept:[application/json] User-Agent:[Go-http-client/1.1] X-Request-Id:[" + uuid() + "]]",
        f"goroutine 1 [running]:\nmain.main()\n\t/src/main.go:42 +0x{rnd(3, HEX)}\nexit status 2",
    )),
    # util.inspect of token metadata, a 404 axios error, password rules, a Map and a pagination cursor.
    ("node_benign", "log", lambda: pick(
        "{ tokenType: 'Bearer', expiresIn: 3600, scope: 'openid profile' }",
        "AxiosError: Request failed with status code 404 {\n  code: 'ERR_BAD_REQUEST',\n  config: {\n    method: 'get',\n    url: '/v1/items/42'\n  }\n}",
        "{ passwordRules: { minLength: 12, requireDigit: true }, authMode: 'sso' }",
        "Map(2) { 'session' => [Object], 'theme' => 'dark' }",
        f"{{ cursor: '{b64u(json.dumps({'id': _r.randint(1, 9999)}).encode())}', hasMore: true }}",
    )),
    # Ruby and PHP dumps of token types, nil passwords, policy integers and auth modes.
    ("ruby_php_benign", "log", lambda: pick(
        "{:token_type=>\"Bearer\", :expires_in=>3600}",
        "#<struct Config host=\"db\", password=nil>",
        "Array\n(\n    [password_min_length] => 12\n    [password_require_symbols] => 1\n)",
        "  [\"max_tokens\"]=>\n  int(4096)",
        "{auth_method: \"token\", session_store: \"redis\"}",
    )),
    # .NET, Elixir and Erlang dumps of header names, lifetimes, pool settings and token types.
    ("dotnet_elixir_benign", "log", lambda: pick(
        "{ ApiKeyHeaderName = X-Api-Key, TokenLifetime = 01:00:00 }",
        "SmtpOptions { Host: \"smtp.example.com\", Port: 587, UseSsl: true }",
        "[hostname: \"db\", port: 5432, pool_size: 10, ssl: true]",
        "#{<<\"token_type\">> => <<\"Bearer\">>, <<\"expires_in\">> => 3600}",
        "%Plug.Conn{method: \"GET\", request_path: \"/health\", status: 200}",
    )),
    # process environments without secrets; *_FILE and askpass variables name files and programs.
    ("environ_benign", "log", lambda: pick(
        "PATH=/usr/local/bin:/usr/bin\0HOSTNAME=api-5d8f\0HOME=/root\0LANG=C.UTF-8\0",
        "DB_PASSWORD_FILE=/run/secrets/db_password\0PGHOST=db\0",
        "environ({'PATH': '/usr/bin', 'AWS_REGION': 'eu-west-1', 'PYTHONUNBUFFERED': '1'})",
        "$ cat /proc/1/environ | tr '\\0' ' '\nPATH=/usr/bin HOSTNAME=web-1 PORT=8080 NODE_ENV=production",
        "GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass\0SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42\0",
    )),
    # gdb output with a null password pointer, a backtrace, a key length, registers.
    ("gdb_benign", "log", lambda: pick(
        "(gdb) print *cfg\n$1 = {host = 0x5555555592a0 \"db\", port = 5432, password = 0x0}",
        f"(gdb) bt\n#0  0x00007ffff7e4a9fc in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x0000555555555{rnd(3, HEX)} in connect_db (cfg=0x7fffffffe3a0) at db.c:42",
        "(gdb) p key_len\n$3 = 32",
        "(gdb) info registers rip\nrip            0x555555555189      0x555555555189 <main+32>",
        "Core was generated by `/usr/local/bin/api --config /etc/api/config.yml'.\nProgram terminated with signal SIGSEGV, Segmentation fault.",
    )),
    # URLs without a password (a DSN with a user only, path ids, an empty Url username).
    ("urls_in_dumps", "log", lambda: pick(
        "EngineConfig(url='postgresql://app@db:5432/orders', pool_size=10)",
        "{ baseURL: 'https://api.example.com/v1/users/42/tokens?page=2' }",
        "&{Scheme:https Opaque: User: Host:api.example.com Path:/v1/keys RawQuery:limit=20}",
        "Url { scheme: \"https\", username: \"\", password: None, host: Some(Domain(\"api.example.com\")) }",
        "CeleryConfig(broker_url='redis://cache:6379/0', result_backend='rpc://')",
    )),
]


def dumped() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_9)
    return heldout._records(DUMPED_SECRETS, DUMPED_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = dumped()
    heldout._write(HERE / "dumped_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "dumped_benign.jsonl.gz", benign_rows)
    print(f"dumped: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
