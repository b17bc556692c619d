"""A thirteenth held-out set: credentials as log pipelines and event formats carry them.

    python -m tests.secret_corpus.logformats   # rewrites logformats_*.jsonl.gz here

Kinds the twelve earlier sets hold least of (checked against their docstrings and format names first:
``infra`` and ``wrapped`` have a few logfmt and RFC 5424 lines, ``captured`` Loki/Logstash/Splunk/Datadog
*ingest credentials*, ``dumped`` Serilog objects, ``infra`` Sysmon XML; none has the record formats
themselves): a secret as a field of a log or event record, written the way each shipper, logging
library or cloud audit log serializes it. logfmt (apps and Heroku's router), Go ``slog`` text and
``zap`` JSON, ``klog`` structured lines, hclog, structlog (JSON and console), pino, bunyan, winston,
Monolog's context JSON, Rails ``Parameters:``, Python logging's ``extra=`` dicts, python-json-logger and
a ``LogRecord``'s ``args``, Elixir Logger metadata, Rust ``tracing`` spans (``span{key=value}`` and JSON
``fields``), Java logback/log4j2 MDC ``{key=value}`` and log4j2's JSON ``contextMap``, Serilog's rendered
``{@Destructured}`` objects and compact JSON, .NET's JSON console ``State``; Elastic Common Schema,
GCP Cloud Logging ``jsonPayload``/``httpRequest``, AWS CloudTrail ``requestParameters``, CloudWatch Lambda
lines, Azure activity logs (``requestbody`` as escaped JSON), Datadog log JSON, Sentry events (``extra``,
``contexts``, ``request``, breadcrumbs), Splunk HEC events, Elasticsearch ``_source`` hits; GELF's
``_field``s, syslog RFC 5424 structured data ``[sd-id key="…"]`` and RFC 3164 lines, CEF (``csNLabel``/
``csN`` pairs, ``request=``), LEEF 1.0 (tab) and 2.0 (custom delimiter), Windows event XML ``<Data
Name="…">``; W3C extended/IIS rows (``cs-uri-query``, ``cs(Authorization)`` with ``+`` for spaces),
Apache/nginx combined lines (request, referer, a logged ``Authorization``), nginx key=value and
``escape=json`` formats, nginx's error log ``request:``, HAProxy captured headers ``{…|…}``, AWS ALB and
CloudFront rows, Envoy's default and JSON access logs; journald export format and ``journalctl -o
json``/``-o verbose``, the CRI container log format, Docker's json-file, Fluent Bit and Fluentd stdout,
Logstash's rubydebug ``=>`` output, Loki push JSON (lines and structured metadata), Kubernetes audit
events (``requestObject`` of a Secret, env, ``requestURI``), OTLP JSON log records (``attributes`` as
``{key, value: {stringValue}}``), the Collector's ``debug`` exporter (``-> key: Str(…)``); multi-line
records (indented header blocks, pino-pretty, config dumps).

Benign: the same formats without a credential, each category saying why: trace and span ids, request
ids and ULIDs, Elasticsearch ``_id``s, GCP ``insertId``s, journald cursors and boot ids, Logstash
fingerprints, hashes and digests, durations and sizes, ``token_count=``, ``auth=ok``,
``password_changed=true``, masks (``***``, ``[REDACTED]``, ``<hidden>``, Sentry's ``[Filtered]``,
CloudTrail's ``HIDDEN_DUE_TO_SECURITY_REASONS``), base64 payloads that are ordinary data, access log
lines with ordinary queries, sshd's ``Failed password for``, Windows logon events, audit events that name
a Secret without its data, OTLP attributes of ordinary values.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human
passwords marked ``Fake``). No benign line holds an e-mail address. 53 secret formats x 4 and
30 benign categories x 5. ``tests/test_scrub_logformats.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import B64URL, HERE, HEX, UPPER_ALNUM, ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: logformats() seeds it


# --- values -----------------------------------------------------------------------------------


def randtok() -> str:
    """An opaque credential: random alphanumerics, base64url, hex or a JWT."""
    return pick(tok(28, 44), rnd(40, B64URL), rnd(32, HEX), jwt())


def prefixed() -> str:
    """A provider-shaped token (invented bodies in the vendors' documented shapes)."""
    return pick(
        "ghp_" + rnd(36), "glpat-" + rnd(20, B64URL), "sk_live_" + rnd(24), "xoxb-" + f"{_r.randint(10**11, 10**12 - 1)}-"
        f"{_r.randint(10**11, 10**12 - 1)}-" + rnd(24), "npm_" + rnd(36), "SG." + rnd(22, B64URL) + "." + rnd(43, B64URL))


def anytok() -> str:
    return pick(randtok(), randtok(), prefixed())


def urltok() -> str:
    """A token safe in a query string unencoded."""
    return pick(tok(28, 44), rnd(40, B64URL), rnd(32, HEX), jwt())


def pwtok() -> str:
    return pick(fpw(), randtok())


def user() -> str:
    return pick("bob", "svc-billing", "deploy", "alice", "app", "ops-bot", "etl")


def host() -> str:
    return pick("api-7d9f8b6c5-x2k4p", "web-1", "ip-10-0-3-17", "worker-03", "gw.prod.internal")


def iso() -> str:
    return (f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d}T{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:"
            f"{_r.randint(0, 59):02d}.{_r.randint(100, 999)}Z")


def clf_ts() -> str:
    return f"{_r.randint(10, 28)}/{pick('Jan', 'Mar', 'Jun', 'Sep', 'Dec')}/2025:{_r.randint(10, 23)}:{_r.randint(10, 59)}:{_r.randint(10, 59)} +0000"


def ip() -> str:
    return f"{pick('203.0.113', '198.51.100', '10.0.4')}.{_r.randint(2, 250)}"


def unix_ns() -> str:
    return str(_r.randint(1_733_000_000, 1_765_000_000) * 10**9 + _r.randint(0, 10**9 - 1))


def unix_f() -> str:
    return f"{_r.randint(1_733_000_000, 1_765_000_000)}.{_r.randint(100000, 999999)}"


def trace() -> str:
    return rnd(32, HEX)


def span() -> str:
    return rnd(16, HEX)


def js(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"))


def fmt(*templates: Callable[[str], str], value: Callable[[], str] = pwtok) -> Maker:
    return one(value, *templates)


def otlp(attrs: list[tuple[str, str]], body: str = "request failed") -> str:
    record = {"timeUnixNano": unix_ns(), "severityNumber": 17, "severityText": "ERROR", "body": {"stringValue": body},
              "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs],
              "traceId": trace(), "spanId": span()}
    return js({"resourceLogs": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "api"}}]},
                                 "scopeLogs": [{"scope": {"name": "app"}, "logRecords": [record]}]}]})


# --- secrets ----------------------------------------------------------------------------------

LOGFORMATS_SECRETS: list[tuple[str, str, Maker]] = [
    # logfmt and key=value text loggers ---------------------------------------------------------
    ("logfmt_app_lines", "log", fmt(
        lambda s: f'time={iso()} level=error msg="db connect failed" user={user()} password={s} host=db-1',
        lambda s: f'ts={iso()} lvl=warn caller=auth.go:77 msg="upstream 401" api_key={s} attempt=2',
        lambda s: f'level=error component=mailer smtp_pass="{s}" err="535 5.7.8 auth failed"',
        lambda s: f'at=error msg="refresh failed" refresh_token={s} client=web duration=0.214s',
    )),
    ("logfmt_heroku_router", "log", fmt(
        lambda s: f'{iso()} heroku[router]: at=info method=GET path="/oauth/callback?code={s}&state=xyz" host=app.herokuapp.com fwd="{ip()}" status=302',
        lambda s: f'heroku[router]: at=info method=GET path="/api/v1/export?access_token={s}" host=app.herokuapp.com status=200 bytes=5120',
        lambda s: f'at=error code=H12 desc="Request timeout" method=POST path="/hooks/in?token={s}" service=30000ms status=503',
        lambda s: f'heroku[router]: at=info method=GET path="/download?sig={s}&exp=1767225600" status=200',
        value=urltok)),
    ("go_slog_text", "log", fmt(
        lambda s: f'time={iso()} level=ERROR msg="request failed" req.method=GET req.header.authorization="Bearer {s}"',
        lambda s: f'time={iso()} level=DEBUG msg="loaded config" config.db.password={s} config.db.host=pg',
        lambda s: f'time={iso()} level=WARN source=/app/oauth.go:51 msg="token exchange" client_id=web client_secret={s}',
        lambda s: f'time={iso()} level=ERROR msg="dial failed" db.dsn="postgres://app:{s}@pg:5432/app?sslmode=disable"',
        value=randtok)),
    ("zap_json", "json", fmt(
        lambda s: js({"level": "error", "ts": float(unix_f()), "caller": "db/pool.go:88", "msg": "connect failed", "password": s}),
        lambda s: js({"level": "warn", "ts": float(unix_f()), "logger": "http", "msg": "unauthorized", "headers": {"Authorization": [f"Bearer {s}"]}}),
        lambda s: js({"L": "ERROR", "T": iso(), "C": "client/client.go:120", "M": "call failed", "apiToken": s}),
        lambda s: js({"level": "debug", "msg": "settings", "settings": {"redis": {"addr": "cache:6379", "password": s}}}),
    )),
    ("klog_structured", "log", fmt(
        lambda s: f'E1202 12:00:{_r.randint(10, 59)}.{_r.randint(100000, 999999)}   {_r.randint(1000, 99999)} client.go:211] "Failed to authenticate" user="{user()}" token="{s}"',
        lambda s: f'I1202 08:14:03.118201       1 webhook.go:90] "Calling webhook" url="https://hooks.internal/validate" bearerToken="{s}"',
        lambda s: f'W1202 09:00:00.000001    4711 reflector.go:539] "Retrying" err="401" apiKey="{s}"',
        lambda s: f'E1202 10:10:10.101010     321 config.go:55] "Invalid registry credentials" registry="ghcr.io" password="{s}"',
    )),
    ("hclog_lines", "log", fmt(
        lambda s: f'{iso()} [ERROR] agent.http: Request error: method=GET url=/v1/kv/app?token={s} from={ip()}:51234',
        lambda s: f'{iso()} [DEBUG] vault.auth: login: role=web secret_id={s}',
        lambda s: js({"@level": "error", "@message": "acl token rejected", "@module": "agent", "@timestamp": iso(), "token": s}),
        lambda s: f'{iso()} [WARN]  nomad.client: failed to pull image: image=registry/app:1.4 auth_password={s}',
        value=randtok)),
    # language logging libraries -----------------------------------------------------------------
    ("structlog_json", "json", fmt(
        lambda s: js({"event": "login failed", "user": user(), "password": s, "level": "warning", "timestamp": iso()}),
        lambda s: js({"event": "webhook sent", "signing_secret": s, "logger": "hooks", "level": "info"}),
        lambda s: js({"event": "db.connect", "db_url": f"mysql://root:{s}@mysql:3306/app", "level": "error"}),
        lambda s: js({"event": "calling provider", "headers": {"x-api-key": s}, "level": "debug"}),
    )),
    ("structlog_console", "log", fmt(
        lambda s: f"{iso()} [warning  ] login failed                   password='{s}' user='{user()}'",
        lambda s: f"{iso()} [error    ] provider call failed           api_key={s} status=401",
        lambda s: f"{iso()} [info     ] session created                session_token='{s}' ttl=3600",
        lambda s: f"{iso()} [debug    ] settings                       smtp={{'host': 'mail', 'password': '{s}'}}",
    )),
    ("pino_json", "json", fmt(
        lambda s: js({"level": 50, "time": _r.randint(1733000000000, 1765000000000), "pid": 1, "hostname": host(),
                      "req": {"method": "GET", "url": "/v1/me", "headers": {"authorization": f"Bearer {s}"}}, "msg": "request errored"}),
        lambda s: js({"level": 40, "msg": "retrying", "req": {"url": f"/export?apiKey={s}"}}),
        lambda s: js({"level": 50, "msg": "login failed", "body": {"username": user(), "password": s}}),
        lambda s: js({"level": 30, "msg": "incoming", "req": {"headers": {"cookie": f"connect.sid={s}; theme=dark"}}}),
        value=urltok)),
    ("bunyan_winston_json", "json", fmt(
        lambda s: js({"name": "api", "hostname": host(), "pid": 31, "level": 50, "msg": "payment failed", "stripeKey": s, "v": 0}),
        lambda s: js({"level": "error", "message": "S3 upload failed", "awsSecretAccessKey": s, "timestamp": iso()}),
        lambda s: js({"level": "warn", "message": "auth", "meta": {"clientSecret": s}, "service": "gateway"}),
        lambda s: js({"level": "info", "message": "connected", "config": {"user": "app", "pass": s}}),
        value=anytok)),
    ("monolog_context", "log", fmt(
        lambda s: f'[{iso()}] production.ERROR: Login failed {js({"username": user(), "password": s})} []',
        lambda s: f'[{iso()}] app.WARNING: API call rejected {js({"api_key": s, "status": 403})} {js({"uid": "6f1c2"})}',
        lambda s: f'[{iso()}] security.INFO: Token issued {js({"token": s, "expires": 3600})} []',
        lambda s: f'[{iso()}] mailer.CRITICAL: SMTP auth {js({"transport": {"password": s}})} []',
    )),
    ("rails_parameters", "log", fmt(
        lambda s: f'Started POST "/users/sign_in" for {ip()}\nProcessing by SessionsController#create as HTML\n  Parameters: {{"user"=>{{"login"=>"{user()}", "password"=>"{s}"}}}}',
        lambda s: f'  Parameters: {{"api_token"=>"{s}", "format"=>"json"}}',
        lambda s: f'  Parameters: {{"account"=>{{"name"=>"acme", "stripe_secret"=>"{s}"}}, "commit"=>"Save"}}',
        lambda s: f'I, [{iso()} #1]  INFO -- : [req-{rnd(8, HEX)}]   Parameters: {{"auth_token"=>"{s}"}}',
    )),
    ("python_logging_extra", "log", fmt(
        lambda s: f"{iso()} ERROR app.db: connect failed extra={{'user': '{user()}', 'password': '{s}'}}",
        lambda s: f"ERROR:app.client:upstream rejected request extra={{'headers': {{'Authorization': 'Bearer {s}'}}}}",
        lambda s: f"<LogRecord: app.auth, 40, /srv/app/auth.py, 88, \"login with token %s failed\">, args=('{s}',)",
        lambda s: f"{iso()} WARNING [celery.worker] task retry: kwargs={{'api_key': '{s}', 'order_id': 12}}",
    )),
    ("python_json_logger", "json", fmt(
        lambda s: js({"asctime": iso(), "levelname": "ERROR", "name": "app", "message": "auth failed", "api_token": s}),
        lambda s: js({"levelname": "WARNING", "message": "provider error", "exc_info": f"requests.exceptions.HTTPError: 401 for url: https://api.example.com/v1?key={s}"}),
        lambda s: js({"levelname": "INFO", "message": "login", "extra": {"credentials": {"username": user(), "password": s}}}),
        lambda s: js({"levelname": "DEBUG", "message": "env", "DATABASE_PASSWORD": s}),
        value=urltok)),
    ("elixir_logger_metadata", "log", fmt(
        lambda s: f"12:00:{_r.randint(10, 59)}.{_r.randint(100, 999)} request_id=F{rnd(19, B64URL)} api_key={s} [error] upstream returned 401",
        lambda s: f"{iso()} [info] Sent 200 in 4ms user_id=42 token={s}",
        lambda s: f"{iso()} [warning] Postgrex.Protocol failed to connect: password={s} hostname=db",
        lambda s: f"12:00:01.003 [error] GenServer Billing terminating ** (RuntimeError) bad key\nLast message: {{:charge, %{{secret_key: \"{s}\"}}}}",
        value=randtok)),
    ("rust_tracing_spans", "log", fmt(
        lambda s: f"{iso()} ERROR request{{method=GET uri=/v1/items token={s}}}: api::handlers: upstream failed",
        lambda s: f"{iso()}  INFO connect{{host=\"db\" user=\"app\" password=\"{s}\"}}: sqlx::pool: acquired",
        lambda s: f"{iso()}  WARN http{{client_secret={s}}}:exchange: oauth: token endpoint returned 400",
        lambda s: f"  2025-12-02T12:00:01.123456Z ERROR api::auth: verify failed, api_key: {s}\n    at src/auth.rs:42\n    in api::auth::verify with key_id: 7",
    )),
    ("rust_tracing_json", "json", fmt(
        lambda s: js({"timestamp": iso(), "level": "ERROR", "fields": {"message": "auth failed", "api_key": s}, "target": "api::auth"}),
        lambda s: js({"timestamp": iso(), "level": "INFO", "fields": {"message": "request"}, "span": {"name": "request", "token": s}, "spans": []}),
        lambda s: js({"level": "WARN", "fields": {"message": "retry", "authorization": f"Bearer {s}"}, "target": "reqwest"}),
        lambda s: js({"level": "DEBUG", "fields": {"message": "cfg", "password": s}, "threadId": "ThreadId(4)"}),
    )),
    ("logback_mdc", "log", fmt(
        lambda s: f"2025-12-02 12:00:01.123 ERROR [http-nio-8080-exec-3] c.a.api.Client {{requestId={uuid()}, apiKey={s}, user={user()}}} - call failed",
        lambda s: f"12:00:01.123 [main] WARN  com.acme.Sync - MDC={{traceId={trace()}, authToken={s}}} retrying",
        lambda s: f"2025-12-02 12:00:01,123 INFO  [pool-2-thread-1] [accessToken={s}, tenant=acme] c.a.Worker: job done",
        lambda s: f"{iso()} ERROR o.a.c.c.C.[.[.[/].[dispatcherServlet] {{password={s}, username={user()}}} Servlet.service() threw exception",
    )),
    ("log4j2_json_layout", "json", fmt(
        lambda s: js({"instant": {"epochSecond": 1764676801, "nanoOfSecond": 123000000}, "thread": "main", "level": "ERROR",
                      "loggerName": "com.acme.Api", "message": "call failed", "contextMap": {"apiKey": s, "requestId": uuid()}}),
        lambda s: js({"level": "WARN", "loggerName": "com.acme.Db", "message": "pool init", "contextMap": {"jdbc.password": s}}),
        lambda s: js({"@timestamp": iso(), "log.level": "ERROR", "message": "auth", "mdc": {"bearer": s}}),
        lambda s: js({"level": "ERROR", "message": f"Request headers: {{Authorization=Bearer {s}, Accept=application/json}}"}),
    )),
    ("serilog_rendered", "log", fmt(
        lambda s: f"[12:00:01 ERR] Login failed for LoginRequest {{ UserName: \"{user()}\", Password: \"{s}\" }}",
        lambda s: f"[{iso()} WRN] Calling provider with ProviderOptions {{ BaseUrl: \"https://api.example.com\", ApiKey: \"{s}\", Retries: 3 }}",
        lambda s: f"[12:00:01 INF] Settings loaded {{\"Smtp\": {{\"Host\": \"mail\", \"Password\": \"{s}\"}}}}",
        lambda s: f"2025-12-02 12:00:01.123 +00:00 [ERR] Token refresh failed for TokenResponse {{ AccessToken: \"{s}\", ExpiresIn: 3600 }}",
    )),
    ("serilog_compact_json", "json", fmt(
        lambda s: js({"@t": iso(), "@mt": "Request {@Req} failed", "@l": "Error", "Req": {"User": user(), "ApiKey": s}}),
        lambda s: js({"@t": iso(), "@mt": "Connecting with {ConnectionString}", "ConnectionString": f"Server=db;Database=app;User Id=app;Password={s};"}),
        lambda s: js({"@t": iso(), "@mt": "Webhook {Url} signed", "Url": "https://hooks/x", "Secret": s}),
        lambda s: js({"@t": iso(), "@mt": "Auth header {Header}", "Header": f"Bearer {s}", "@tr": trace()}),
    )),
    ("dotnet_json_console", "json", fmt(
        lambda s: js({"EventId": 0, "LogLevel": "Error", "Category": "Acme.Api", "Message": "call failed",
                      "State": {"Message": "call failed", "apiKey": s, "{OriginalFormat}": "call failed with {apiKey}"}}),
        lambda s: js({"LogLevel": "Warning", "Category": "Acme.Db", "State": {"password": s, "{OriginalFormat}": "pw {password}"}}),
        lambda s: js({"LogLevel": "Information", "Scopes": [{"Message": "RequestId:1", "AccessToken": s}], "Message": "ok"}),
        lambda s: js({"LogLevel": "Error", "Exception": f"System.Net.Http.HttpRequestException: 401 (Unauthorized) token={s}"}),
    )),
    # cloud and vendor event JSON ---------------------------------------------------------------
    ("ecs_json", "json", fmt(
        lambda s: js({"@timestamp": iso(), "log.level": "error", "message": "request", "url.query": f"access_token={s}&page=1"}),
        lambda s: js({"@timestamp": iso(), "http.request.headers.authorization": f"Bearer {s}", "ecs.version": "8.11.0"}),
        lambda s: js({"@timestamp": iso(), "url": {"original": f"/login?user=bob&password={s}"}, "event": {"kind": "event"}}),
        lambda s: js({"@timestamp": iso(), "labels": {"api_key": s}, "service": {"name": "api"}}),
        value=urltok)),
    ("gcp_cloud_logging", "json", fmt(
        lambda s: js({"jsonPayload": {"message": "db connect failed", "password": s}, "severity": "ERROR", "logName": "projects/acme/logs/app"}),
        lambda s: js({"httpRequest": {"requestMethod": "GET", "requestUrl": f"https://api.acme.dev/cb?code={s}&state=q", "status": 302}, "severity": "INFO"}),
        lambda s: js({"jsonPayload": {"env": {"STRIPE_SECRET_KEY": s}}, "resource": {"type": "cloud_run_revision"}}),
        lambda s: js({"textPayload": f"Error: invalid credentials, token={s}", "severity": "ERROR", "insertId": rnd(14, "abcdefghijklmnopqrstuvwxyz0123456789")}),
        value=urltok)),
    ("cloudtrail_request_parameters", "json", fmt(
        lambda s: js({"eventName": "CreateDBInstance", "eventSource": "rds.amazonaws.com", "requestParameters": {"dBInstanceIdentifier": "prod", "masterUsername": "admin", "masterUserPassword": s}}),
        lambda s: js({"eventName": "PutSecretValue", "requestParameters": {"secretId": "prod/db", "secretString": s}}),
        lambda s: js({"eventName": "UpdateFunctionConfiguration20150331v2", "requestParameters": {"functionName": "api", "environment": {"variables": {"API_TOKEN": s}}}}),
        lambda s: js({"eventName": "CreateStack", "requestParameters": {"stackName": "app", "parameters": [{"parameterKey": "DBPassword", "parameterValue": s}]}}),
    )),
    ("cloudwatch_lambda", "log", fmt(
        lambda s: f"[ERROR]\t{iso()}\t{uuid()}\tHTTPError: 401 Client Error for url: https://api.example.com/v2/orders?api_key={s}",
        lambda s: f"{iso()}\t{uuid()}\tINFO\tevent: {js({'headers': {'X-Api-Key': s, 'Host': 'api.example.com'}})}",
        lambda s: f"{iso()}\t{uuid()}\tERROR\tInvoke Error \t{js({'errorType': 'AuthError', 'errorMessage': 'bad token', 'token': s})}",
        lambda s: js({"timestamp": _r.randint(1733000000000, 1765000000000), "message": f"START RequestId: {uuid()}\nAuthorization: Bearer {s}\n", "logStream": "2025/12/02/[$LATEST]" + rnd(32, HEX)}),
        value=urltok)),
    ("azure_activity_log", "json", fmt(
        lambda s: js({"operationName": {"value": "Microsoft.Web/sites/config/write"}, "properties": {"requestbody": js({"properties": {"appSettings": [{"name": "DB_PASSWORD", "value": s}]}})}}),
        lambda s: js({"operationName": {"value": "Microsoft.Sql/servers/write"}, "properties": {"requestbody": js({"properties": {"administratorLogin": "sqladmin", "administratorLoginPassword": s}})}}),
        lambda s: js({"category": "Administrative", "properties": {"requestbody": js({"properties": {"osProfile": {"adminUsername": "azureuser", "adminPassword": s}}})}}),
        lambda s: js({"operationName": "Microsoft.Storage/storageAccounts/listKeys/action", "properties": {"responseBody": js({"keys": [{"keyName": "key1", "value": s}]})}}),
    )),
    ("datadog_log_json", "json", fmt(
        lambda s: js({"service": "api", "ddsource": "python", "status": "error", "message": "upstream 401", "http": {"url": f"https://api.example.com/v1?api_key={s}"}}),
        lambda s: js({"service": "web", "message": "request", "http": {"headers": {"DD-APPLICATION-KEY": s}}, "ddtags": "env:prod"}),
        lambda s: js({"status": "warn", "message": "login", "usr": {"name": user(), "password": s}, "dd": {"trace_id": "1234567890123"}}),
        lambda s: js({"status": "error", "message": "connect", "network": {"client": {"ip": ip()}}, "db": {"connection_string": f"mongodb://app:{s}@mongo:27017/app"}}),
        value=urltok)),
    ("sentry_event_extra", "json", fmt(
        lambda s: js({"event_id": rnd(32, HEX), "level": "error", "platform": "python", "extra": {"db_password": s, "attempt": 3}}),
        lambda s: js({"event_id": rnd(32, HEX), "contexts": {"runtime": {"name": "CPython"}, "config": {"SECRET_KEY": s}}}),
        lambda s: js({"event_id": rnd(32, HEX), "request": {"url": "https://app/api", "headers": {"Authorization": f"Token {s}"}}}),
        lambda s: js({"event_id": rnd(32, HEX), "request": {"query_string": f"token={s}&page=2", "method": "GET"}}),
        value=urltok)),
    ("sentry_breadcrumbs", "json", fmt(
        lambda s: js({"breadcrumbs": {"values": [{"category": "http", "type": "http", "data": {"url": f"https://api.example.com/x?apikey={s}", "method": "GET", "status_code": 401}}]}}),
        lambda s: js({"breadcrumbs": {"values": [{"category": "query", "message": f"UPDATE users SET api_key = '{s}' WHERE id = 7"}]}}),
        lambda s: js({"breadcrumbs": [{"category": "console", "level": "info", "message": f"refreshed session, new token: {s}"}]}),
        lambda s: js({"breadcrumbs": {"values": [{"category": "navigation", "data": {"from": "/login", "to": f"/welcome#access_token={s}&token_type=bearer"}}]}}),
        value=urltok)),
    ("splunk_hec_and_es_source", "json", fmt(
        lambda s: js({"time": float(unix_f()), "host": host(), "sourcetype": "_json", "event": {"message": "login", "password": s}}),
        lambda s: js({"event": "auth failed", "fields": {"api_key": s, "env": "prod"}}),
        lambda s: js({"_index": "logs-2025.12.02", "_id": rnd(20, B64URL), "_source": {"message": "call", "url": {"query": f"apikey={s}"}}}),
        lambda s: js({"_index": "app", "_source": {"user": {"name": user(), "password": s}, "@timestamp": iso()}}),
        value=urltok)),
    # wire and syslog family --------------------------------------------------------------------
    ("gelf_additional_fields", "json", fmt(
        lambda s: js({"version": "1.1", "host": host(), "short_message": "login failed", "level": 3, "_password": s, "_user": user()}),
        lambda s: js({"version": "1.1", "host": host(), "short_message": "upstream", "_api_key": s, "_status": 401}),
        lambda s: js({"version": "1.1", "short_message": "job", "full_message": f"job failed\nenv AUTH_TOKEN={s}\n", "level": 3}),
        lambda s: js({"version": "1.1", "short_message": "db", "_db_pass": s, "timestamp": float(unix_f())}),
    )),
    ("syslog_5424_structured_data", "log", fmt(
        lambda s: f'<134>1 {iso()} {host()} app 1234 ID47 [meta password="{s}" user="{user()}"] login failed',
        lambda s: f'<131>1 {iso()} {host()} api - AUTH [auth@32473 token="{s}" result="denied"] request rejected',
        lambda s: f'<165>1 {iso()} {host()} evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" apiKey="{s}"] An application event',
        lambda s: f'<86>1 {iso()} {host()} sudo 4711 - [origin ip="{ip()}"][creds@18060 secret="{s}"] session opened',
    )),
    ("syslog_3164_lines", "log", fmt(
        lambda s: f"<38>Dec  2 12:00:01 {host()} app[4711]: connecting to db with password={s}",
        lambda s: f"Dec  2 12:00:01 {host()} sudo:    deploy : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/mysql -uroot -p{s}",
        lambda s: f"<30>Dec  2 12:00:01 {host()} backup.sh[99]: rclone sync --s3-secret-access-key {s} /data s3:bk",
        lambda s: f"Dec  2 12:00:01 {host()} cron[812]: (ops) CMD (curl -s -H 'X-Auth-Token: {s}' https://hc.internal/ping)",
    )),
    ("cef_events", "log", fmt(
        lambda s: f"CEF:0|Acme|Gateway|2.1|100|Login attempt|5|src={ip()} suser={user()} cs1Label=password cs1={s} outcome=failure",
        lambda s: f"CEF:0|Acme|WAF|4.0|2001|Request|3|request=https://app.acme.dev/api?api_key={s} requestMethod=GET cs2Label=rule cs2=none",
        lambda s: f"<134>{iso()} fw CEF:0|Acme|Proxy|1.0|300|Auth header|4|cs3Label=authorization cs3=Bearer {s} dst={ip()}",
        lambda s: f"CEF:0|Acme|IAM|1.0|10|Key created|2|duser=svc cs4Label=apiKey cs4={s} msg=key created",
        value=urltok)),
    ("leef_events", "log", fmt(
        lambda s: f"LEEF:1.0|Acme|Portal|1.0|LoginFailed|src={ip()}\tusrName={user()}\tpassword={s}\tsev=5",
        lambda s: f"LEEF:2.0|Acme|API|3.2|KeyUse|^|src={ip()}^apiKey={s}^url=/v1/orders",
        lambda s: f"<13>Dec  2 12:00:01 host LEEF:2.0|Acme|SSO|1.0|TokenIssued|x7C|usrName=bob|accessToken={s}|devTime=1764676801",
        lambda s: f"LEEF:1.0|Acme|DB|1.0|Connect|cat=auth\tdbUser=app\tdbPassword={s}",
    )),
    ("windows_event_xml", "log", fmt(
        lambda s: f'<EventData><Data Name="TargetUserName">{user()}</Data><Data Name="Password">{s}</Data></EventData>',
        lambda s: f'<Event><System><EventID>1000</EventID></System><EventData><Data Name="ApiKey">{s}</Data><Data Name="Endpoint">https://api</Data></EventData></Event>',
        lambda s: f'<Data Name="ServiceAccountPassword">{s}</Data>',
        lambda s: f'<Data Name="ConnectionString">Server=sql01;Database=app;User ID=app;Password={s};</Data>',
    )),
    # access logs -------------------------------------------------------------------------------
    ("w3c_iis_logs", "log", fmt(
        lambda s: f"2025-12-02 12:00:01 {ip()} GET /api/orders access_token={s} 443 - {ip()} Mozilla/5.0 - 200 0 0 12",
        lambda s: f"2025-12-02 12:00:01 W3SVC1 {ip()} POST /login.aspx user=bob&password={s} 443 - {ip()} - 302 0 0 31",
        lambda s: f"#Fields: date time cs-method cs-uri-stem cs(Authorization) sc-status\n2025-12-02 12:00:01 GET /api/v1/me Bearer+{s} 200",
        lambda s: f"2025-12-02 12:00:01 {ip()} GET /feed.ashx key={s}&fmt=rss 80 - {ip()} Feedly/1.0 - 200 0 0 4",
        value=urltok)),
    ("apache_combined", "log", fmt(
        lambda s: f'{ip()} - - [{clf_ts()}] "GET /download?token={s} HTTP/1.1" 200 51234 "-" "curl/8.5.0"',
        lambda s: f'{ip()} - - [{clf_ts()}] "GET /app/home HTTP/1.1" 200 3120 "https://app.acme.dev/reset?reset_token={s}" "Mozilla/5.0"',
        lambda s: f'{ip()} - {user()} [{clf_ts()}] "GET /api/v1/me HTTP/2.0" 401 19 "-" "python-requests/2.32" "Bearer {s}"',
        lambda s: f'{ip()} - - [{clf_ts()}] "POST /api/session?password={s} HTTP/1.1" 201 88 "-" "okhttp/4.12"',
        value=urltok)),
    ("nginx_kv_and_json", "log", fmt(
        lambda s: f'time="{iso()}" remote_addr={ip()} request="GET /ws?apikey={s} HTTP/1.1" status=101 rt=12.003',
        lambda s: f'time="{iso()}" request="GET /v1/me HTTP/1.1" status=200 http_authorization="Bearer {s}" ua="curl"',
        lambda s: js({"time": iso(), "remote_addr": ip(), "request_uri": f"/v1/data?key={s}", "status": "200"}),
        lambda s: js({"time": iso(), "status": "403", "http_x_api_key": s, "request": "GET /admin HTTP/1.1"}),
        value=urltok)),
    ("nginx_error_log", "log", fmt(
        lambda s: f'2025/12/02 12:00:01 [error] 31#31: *4512 upstream timed out (110: Connection timed out), client: {ip()}, server: api, request: "GET /v1/export?api_key={s} HTTP/1.1", upstream: "http://10.0.0.7:8080/v1/export?api_key={s}"',
        lambda s: f'2025/12/02 12:00:01 [warn] 31#31: *77 an upstream response is buffered, client: {ip()}, request: "POST /hook?token={s} HTTP/1.1", host: "hooks.acme.dev"',
        lambda s: f'2025/12/02 12:00:01 [error] 12#12: *9 open() "/srv/www/callback" failed (2: No such file), request: "GET /callback?code={s}&state=af0 HTTP/1.1", referrer: "https://id.acme.dev/"',
        lambda s: f'2025/12/02 12:00:01 [info] 8#8: *3 client sent invalid header, client: {ip()}, request: "GET /?access_token={s} HTTP/1.0"',
        value=urltok)),
    ("haproxy_captured_headers", "log", fmt(
        lambda s: f'haproxy[812]: {ip()}:51234 [{clf_ts()}] fe_https~ be_api/api1 0/0/1/12/13 200 512 - - ---- 1/1/0/0/0 0/0 {{api.acme.dev|Bearer {s}}} "GET /v1/me HTTP/1.1"',
        lambda s: f'haproxy[812]: {ip()}:443 [{clf_ts()}] fe be/s1 0/0/0/3/3 401 88 - - ---- 2/2/0/0/0 0/0 {{{s}|curl/8.5}} "GET /x HTTP/1.1"',
        lambda s: f'haproxy[812]: {ip()}:443 [{clf_ts()}] fe be/s1 0/0/0/3/3 200 88 - - ---- 2/2/0/0/0 0/0 "GET /api?token={s} HTTP/1.1"',
        lambda s: f'haproxy[9]: {ip()}:51000 [{clf_ts()}] fe be/s2 1/0/1/9/11 200 301 - - --NI 3/3/0/0/0 0/0 {{Token {s}|-}} "GET /metrics HTTP/1.1"',
        value=urltok)),
    ("aws_alb_cloudfront", "log", fmt(
        lambda s: f'https {iso()} app/api-lb/50dc6c495c0c9188 {ip()}:4000 10.0.0.7:80 0.001 0.012 0.000 200 200 34 366 "GET https://api.acme.dev:443/v1/items?access_token={s} HTTP/1.1" "curl/8.5" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2',
        lambda s: f'2025-12-02\t12:00:01\tIAD89-C1\t512\t{ip()}\tGET\td111111abcdef8.cloudfront.net\t/video.m3u8\t200\t-\tMozilla/5.0\ttoken={s}&exp=1767225600\t-\tHit',
        lambda s: f'h2 {iso()} app/web/7e1c {ip()}:52311 10.0.1.5:8080 0.000 0.004 0.000 302 302 512 128 "GET https://web.acme.dev:443/auth/callback?code={s}&state=x HTTP/2.0" "Mozilla/5.0" - -',
        lambda s: f'2025-12-02\t12:00:01\tFRA56-P3\t1024\t{ip()}\tGET\td2222.cloudfront.net\t/dl\t200\t-\tcurl\tsig={s}\t-\tMiss',
        value=urltok)),
    ("envoy_access_log", "log", fmt(
        lambda s: f'[{iso()}] "GET /api/v1/me?access_token={s} HTTP/1.1" 200 - 0 512 12 10 "{ip()}" "curl/8.5" "{uuid()}" "api.acme.dev" "10.0.0.7:8080"',
        lambda s: js({"start_time": iso(), "method": "GET", "path": f"/download?token={s}", "response_code": 200, "x_request_id": uuid()}),
        lambda s: f'[{iso()}] "POST /grpc.Auth/Login HTTP/2" 0 - 64 12 3 2 "-" "grpc-go/1.62" "{uuid()}" "auth:50051" "10.0.0.9:50051" authorization="Bearer {s}"',
        lambda s: js({"authority": "api.acme.dev", "x-api-key": s, "upstream_cluster": "outbound|8080||api", "response_flags": "-"}),
        value=urltok)),
    # shippers and collectors -------------------------------------------------------------------
    ("journald_export", "log", fmt(
        lambda s: f"__REALTIME_TIMESTAMP=1764676801123456\n_SYSTEMD_UNIT=app.service\nPRIORITY=3\nMESSAGE=connect failed: password={s}",
        lambda s: f"__CURSOR=s={rnd(32, HEX)};i=1a2b\n_PID=4711\nSYSLOG_IDENTIFIER=api\nAPI_TOKEN={s}\nMESSAGE=starting",
        lambda s: js({"MESSAGE": "boot", "_PID": "812", "_SYSTEMD_UNIT": "worker.service", "DB_PASSWORD": s, "PRIORITY": "6"}),
        lambda s: f"Tue 2025-12-02 12:00:01.123456 UTC [s=0f3a;i=9c1;b={rnd(32, HEX)}]\n    PRIORITY=6\n    SECRET_KEY={s}\n    MESSAGE=worker started",
    )),
    ("cri_and_docker_json_file", "log", fmt(
        lambda s: f'{iso()} stderr F {js({"level": "error", "msg": "auth", "token": s})}',
        lambda s: f"{iso()} stdout P level=info msg=boot redis_password={s}",
        lambda s: js({"log": f"DB_PASSWORD={s}\n", "stream": "stdout", "time": iso()}),
        lambda s: js({"log": f"Authorization: Bearer {s}\r\n", "stream": "stderr", "attrs": {"tag": "api"}, "time": iso()}),
    )),
    ("fluent_records", "log", fmt(
        lambda s: f'[0] kube.var.log.containers.api.log: [[{unix_f()}, {{}}], {{"log"=>"level=error token={s}", "stream"=>"stderr"}}]',
        lambda s: f"2025-12-02 12:00:01.123456789 +0000 app.access: {js({'user': user(), 'password': s, 'path': '/login'})}",
        lambda s: f'[1] app: [{unix_f()}, {{"message"=>"connect", "db_password"=>"{s}"}}]',
        lambda s: f"2025-12-02 12:00:01 +0000 docker.api: {js({'container_name': '/api', 'log': f'api_key={s}'})}",
    )),
    ("logstash_rubydebug", "log", fmt(
        lambda s: f'{{\n       "message" => "login failed",\n      "password" => "{s}",\n    "@timestamp" => {iso()},\n      "@version" => "1"\n}}',
        lambda s: f'{{\n    "api_key" => "{s}",\n       "host" => {{\n        "name" => "{host()}"\n    }}\n}}',
        lambda s: f'{{\n    "headers" => {{\n        "authorization" => "Bearer {s}",\n        "accept" => "*/*"\n    }}\n}}',
        lambda s: f'{{\n       "event" => {{\n        "original" => "user=bob secret={s}"\n    }}\n}}',
    )),
    ("loki_push_json", "json", fmt(
        lambda s: js({"streams": [{"stream": {"app": "api", "level": "error"}, "values": [[unix_ns(), f'level=error msg="login" password={s}']]}]}),
        lambda s: js({"streams": [{"stream": {"job": "worker"}, "values": [[unix_ns(), js({"msg": "auth", "api_key": s})]]}]}),
        lambda s: js({"streams": [{"stream": {"app": "web"}, "values": [[unix_ns(), "request failed", {"trace_id": trace(), "access_token": s}]]}]}),
        lambda s: js({"streams": [{"labels": '{app="api"}', "entries": [{"ts": iso(), "line": f"Authorization: Bearer {s}"}]}]}),
    )),
    ("k8s_audit_events", "json", fmt(
        lambda s: js({"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "verb": "create", "objectRef": {"resource": "secrets", "namespace": "prod", "name": "db"},
                      "requestObject": {"kind": "Secret", "apiVersion": "v1", "stringData": {"password": s}}}),
        lambda s: js({"kind": "Event", "verb": "patch", "objectRef": {"resource": "deployments", "name": "api"},
                      "requestObject": {"spec": {"template": {"spec": {"containers": [{"name": "api", "env": [{"name": "API_KEY", "value": s}]}]}}}}}),
        lambda s: js({"kind": "Event", "verb": "get", "requestURI": f"/api/v1/namespaces/prod/pods/api/exec?command=sh&command=-c&command=export+TOKEN%3D{s}", "responseStatus": {"code": 101}}),
        lambda s: js({"kind": "Event", "verb": "create", "objectRef": {"resource": "secrets"}, "requestObject": {"kind": "Secret", "data": {"token": s}}}),
        value=lambda: pick(tok(28, 44), rnd(32, HEX), rnd(40, B64URL), b64s(tok(24, 32))))),
    ("otlp_json_attributes", "json", fmt(
        lambda s: otlp([("http.request.header.authorization", f"Bearer {s}"), ("http.request.method", "GET")]),
        lambda s: otlp([("db.system", "postgresql"), ("db.password", s)]),
        lambda s: otlp([("api_key", s), ("user.id", "42")], body="provider call"),
        lambda s: otlp([("url.query", f"token={s}&limit=5"), ("url.path", "/v1/items")]),
        value=urltok)),
    ("otel_debug_exporter", "log", fmt(
        lambda s: f"LogRecord #0\nObservedTimestamp: {iso()}\nSeverityText: ERROR\nBody: Str(auth failed)\nAttributes:\n     -> http.request.header.authorization: Str(Bearer {s})\n     -> http.response.status_code: Int(401)",
        lambda s: f"Span #3\n    Trace ID       : {trace()}\n    Name           : SELECT\nAttributes:\n     -> db.connection_string: Str(Server=db;User Id=app;Password={s})",
        lambda s: f"Attributes:\n     -> api_key: Str({s})\n     -> service.name: Str(api)",
        lambda s: f"     -> url.full: Str(https://api.acme.dev/v1/items?access_token={s})",
        value=urltok)),
    # multi-line records ------------------------------------------------------------------------
    ("multiline_records", "log", fmt(
        lambda s: f"{iso()} ERROR [worker] request failed\n  url: https://api.acme.dev/v1/orders\n  headers:\n    Authorization: Bearer {s}\n    Accept: application/json",
        lambda s: f"{iso()} DEBUG effective configuration:\n  database.user     = app\n  database.password = {s}\n  database.pool     = 10",
        lambda s: f"[12:00:01.123] ERROR (4711): request errored\n    req: {{\n      \"headers\": {{\n        \"x-api-key\": \"{s}\"\n      }}\n    }}",
        lambda s: f"{iso()} WARN  retrying with credentials\n\tuser: {user()}\n\tsecret: {s}\n\tattempt: 2",
        value=randtok)),
]


# --- benign -----------------------------------------------------------------------------------


def _b64_text() -> str:
    return b64s(pick(js({"order_id": _r.randint(1000, 9999), "items": 3, "currency": "EUR"}),
                     "hello from the batch worker, nothing to see here",
                     js({"event": "page_view", "path": "/pricing", "ref": "newsletter"})))


def _ulid() -> str:
    return "01J" + rnd(23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")


LOGFORMATS_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # ids that look random but identify a record, a trace or a request.
    ("logfmt_trace_ids", "log", lambda: pick(
        f"time={iso()} level=info msg=done trace_id={trace()} span_id={span()} duration=12ms",
        f'level=error msg="upstream 503" request_id={rnd(20)} attempt=3',
        f"ts={iso()} msg=ok traceparent=00-{trace()}-{span()}-01",
        f"level=info msg=enqueued job_id={_ulid()} queue=default",
        f"at=info method=GET path=/ request_id={uuid()} status=200 bytes=512")),
    ("token_counts_and_usage", "log", lambda: pick(
        f"level=info msg=completion model=gpt-4o token_count={_r.randint(10, 9999)} prompt_tokens={_r.randint(10, 999)}",
        js({"event": "llm.usage", "input_tokens": _r.randint(10, 999), "output_tokens": _r.randint(10, 999), "total_tokens": 1234}),
        f"time={iso()} level=INFO msg=ratelimit tokens_remaining={_r.randint(0, 100)} token_bucket_size=100",
        f"{iso()}  INFO tokenizer{{vocab=50257}}: tokens=812",
        "level=debug msg=refresh max_tokens=4096 token_limit_exceeded=false")),
    ("auth_outcomes", "log", lambda: pick(
        f"time={iso()} level=info msg=login user={user()} auth=ok mfa=true",
        f"level=info msg=\"user updated\" password_changed=true user_id={_r.randint(1, 9999)}",
        js({"event": "auth", "authenticated": True, "auth_method": "password", "password_expired": False}),
        f"level=warn msg=\"login failed\" reason=invalid_password attempts={_r.randint(1, 5)}",
        f"ts={iso()} token_valid=true token_type=bearer scope=\"read write\"")),
    ("masked_logfmt", "log", lambda: pick(
        "level=error msg=\"db connect failed\" user=app password=*** host=db-1",
        "level=warn msg=upstream api_key=[REDACTED] status=401",
        "level=info msg=config smtp_pass=<hidden> smtp_host=mail",
        "time=2025-12-02T12:00:01Z level=debug authorization=\"Bearer ***\" path=/v1/me",
        "level=info msg=boot secret=REDACTED token=[FILTERED]")),
    ("masked_json_logs", "json", lambda: pick(
        js({"event": "login failed", "password": "[FILTERED]", "user": user()}),
        js({"level": "error", "msg": "call", "api_key": "********"}),
        js({"level": "info", "msg": "cfg", "token": None, "password": ""}),
        js({"request": {"headers": {"Authorization": "[Filtered]", "Cookie": "[Filtered]"}}}),
        js({"eventName": "GetSessionToken", "responseElements": {"credentials": {"sessionToken": "HIDDEN_DUE_TO_SECURITY_REASONS"}}}))),
    ("request_ids_random", "log", lambda: pick(
        f"X-Request-Id: {uuid()}",
        f"{iso()} [info] Sent 200 in 4ms request_id=F{rnd(19, B64URL)}",
        f"x-amzn-RequestId: {uuid()} x-amz-id-2: {base64.b64encode(_r.randbytes(48)).decode()}",
        f"correlation_id={rnd(26, UPPER_ALNUM)} tenant=acme",
        f"X-Amzn-Trace-Id: Root=1-{rnd(8, HEX)}-{rnd(24, HEX)}")),
    ("durations_and_sizes", "log", lambda: pick(
        f"level=info msg=request duration={_r.randint(1, 999)}.{_r.randint(0, 9)}ms bytes={_r.randint(100, 99999)}",
        f"upstream_response_time=0.0{_r.randint(10, 99)} request_time=0.1{_r.randint(10, 99)} body_bytes_sent={_r.randint(100, 9999)}",
        js({"latency_ms": _r.randint(1, 999), "size": _r.randint(1, 99999), "status": 200}),
        f"{iso()} [DEBUG] agent: synced in {_r.randint(1, 999)}µs",
        f"elapsed={_r.randint(1, 60)}s ttl=3600 timeout=30s")),
    ("hashes_and_digests", "log", lambda: pick(
        f"level=info msg=uploaded sha256={sha(64)} size=5120",
        f'etag="{sha(32)}" last_modified={iso()}',
        f"commit={sha(40)} branch=main msg=deployed",
        f"image=ghcr.io/acme/api@sha256:{sha(64)}",
        js({"file.hash.sha1": sha(40), "file.hash.md5": sha(32)}))),
    ("base64_payloads", "json", lambda: pick(
        js({"event": "pubsub.message", "data": _b64_text(), "messageId": str(_r.randint(10**15, 10**16))}),
        js({"short_message": "payload", "_payload_b64": _b64_text(), "version": "1.1"}),
        f"level=debug msg=frame body={_b64_text()}",
        js({"records": [{"kinesis": {"data": _b64_text(), "sequenceNumber": str(_r.randint(10**20, 10**21))}}]}),
        js({"streams": [{"stream": {"app": "api"}, "values": [[unix_ns(), "payload=" + _b64_text()]]}]}))),
    ("otlp_ordinary_attributes", "json", lambda: pick(
        otlp([("http.request.header.content-type", "application/json"), ("http.response.status_code", "200")], body="ok"),
        otlp([("user.id", "u_4711"), ("session.id", uuid())], body="page view"),
        otlp([("exception.type", "PermissionError"), ("exception.message", "token expired")], body="auth"),
        otlp([("code.function", "verify_password"), ("code.lineno", "88")], body="verify"),
        otlp([("messaging.message.id", rnd(24, HEX)), ("messaging.system", "kafka")], body="consumed"))),
    ("access_logs_ordinary", "log", lambda: pick(
        f'{ip()} - - [{clf_ts()}] "GET /search?q=password+reset&page=2 HTTP/1.1" 200 3120 "-" "Mozilla/5.0"',
        f'{ip()} - - [{clf_ts()}] "POST /account/reset-password HTTP/1.1" 302 0 "https://app.acme.dev/login" "Mozilla/5.0"',
        f'{ip()} - - [{clf_ts()}] "GET /api/v1/tokens?limit=20&sort=created HTTP/1.1" 200 88 "-" "curl/8.5.0"',
        f'{ip()} - - [{clf_ts()}] "GET /static/app.{sha(8)}.js HTTP/1.1" 200 51234 "-" "Mozilla/5.0"',
        f'time="{iso()}" request="GET /healthz HTTP/1.1" status=200 http_authorization="-" rt=0.001')),
    ("w3c_iis_ordinary", "log", lambda: pick(
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) sc-status",
        f"2025-12-02 12:00:01 {ip()} GET /default.aspx id=123&lang=en 443 - {ip()} Mozilla/5.0 - 200 0 0 12",
        f"2025-12-02 12:00:01 {ip()} GET /api/health - 80 - {ip()} kube-probe/1.30 - 200 0 0 1",
        "#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0",
        f"2025-12-02\t12:00:01\tIAD89-C1\t512\t{ip()}\tGET\td111.cloudfront.net\t/index.html\t200\t-\tMozilla\tutm_source=mail&utm_medium=x\t-\tHit")),
    ("envoy_haproxy_ordinary", "log", lambda: pick(
        f'[{iso()}] "GET /api/v1/items HTTP/1.1" 200 - 0 512 12 10 "{ip()}" "curl/8.5" "{uuid()}" "api.acme.dev" "10.0.0.7:8080"',
        js({"authority": "api.acme.dev", "x_request_id": uuid(), "upstream_cluster": "outbound|8080||api", "response_code": 200}),
        f'haproxy[812]: {ip()}:51234 [{clf_ts()}] fe be/s1 0/0/1/12/13 200 512 - - ---- 1/1/0/0/0 0/0 {{api.acme.dev|Mozilla/5.0}} "GET / HTTP/1.1"',
        f'h2 {iso()} app/api-lb/50dc6c495c0c9188 {ip()}:4000 10.0.0.7:80 0.001 0.012 0.000 200 200 34 366 "GET https://api.acme.dev:443/v1/items?page=3 HTTP/2.0" "curl/8.5" - - "Root=1-{rnd(8, HEX)}-{rnd(24, HEX)}"',
        f'2025/12/02 12:00:01 [error] 31#31: *4512 connect() failed (111: Connection refused), client: {ip()}, request: "GET /v1/items?page=2 HTTP/1.1"')),
    ("cef_leef_ordinary", "log", lambda: pick(
        f"CEF:0|Acme|Gateway|2.1|100|Login|3|src={ip()} suser={user()} act=login outcome=success",
        "CEF:0|Acme|WAF|4.0|2001|Block|7|cs1Label=policyName cs1=Block-Malware cs2Label=ruleId cs2=942100",
        f"CEF:0|Acme|IAM|1.0|4724|Password reset|5|duser={user()} msg=Password changed for user by admin",
        f"LEEF:1.0|Acme|Portal|1.0|Login|src={ip()}\tusrName={user()}\tauthResult=success\tsev=2",
        f"LEEF:2.0|Acme|API|3.2|KeyUse|^|src={ip()}^keyId=key-{_r.randint(100, 999)}^url=/v1/orders")),
    ("windows_logon_events", "log", lambda: pick(
        f'<Data Name="TargetUserName">{user()}</Data><Data Name="LogonType">3</Data><Data Name="TargetLogonId">0x{rnd(6, HEX)}</Data>',
        '<Data Name="SubjectUserSid">S-1-5-18</Data><Data Name="Status">0xc000006d</Data><Data Name="SubStatus">0xc000006a</Data>',
        '<EventID>4724</EventID><Data Name="TargetUserName">bob</Data><Message>An attempt was made to reset an account\'s password.</Message>',
        f'<Data Name="PasswordLastSet">{iso()}</Data><Data Name="LogonGuid">{{{uuid()}}}</Data>',
        f'<Data Name="AuthenticationPackageName">NTLM</Data><Data Name="KeyLength">128</Data><Data Name="ProcessId">0x{rnd(4, HEX)}</Data>')),
    ("syslog_ordinary", "log", lambda: pick(
        f'<165>1 {iso()} {host()} app - ID47 [meta sequenceId="{_r.randint(1, 999)}" sysUpTime="37"][origin ip="{ip()}" software="rsyslogd"] started',
        f"Dec  2 12:00:01 {host()} sshd[4711]: Failed password for invalid user admin from {ip()} port {_r.randint(1024, 65535)} ssh2",
        f"Dec  2 12:00:01 {host()} sshd[4711]: Accepted publickey for deploy from {ip()} port 51234 ssh2: ED25519 SHA256:{rnd(43, ALNUM + '+/')}",
        f'<134>1 {iso()} {host()} app 1 - [timeQuality tzKnown="1" isSynced="1"] password policy updated',
        f"Dec  2 12:00:01 {host()} passwd[812]: pam_unix(passwd:chauthtok): password changed for {user()}")),
    ("journald_ids_and_cursors", "log", lambda: pick(
        f"__CURSOR=s={rnd(32, HEX)};i={rnd(4, HEX)};b={rnd(32, HEX)};m={rnd(6, HEX)};t={rnd(13, HEX)};x={rnd(16, HEX)}",
        f"_BOOT_ID={rnd(32, HEX)}\n_MACHINE_ID={rnd(32, HEX)}\n_HOSTNAME={host()}",
        f"_SYSTEMD_INVOCATION_ID={rnd(32, HEX)}\nSYSLOG_IDENTIFIER=sshd\nMESSAGE=Server listening on 0.0.0.0 port 22.",
        js({"__CURSOR": f"s={rnd(32, HEX)};i=9c1", "_PID": "812", "MESSAGE": "started", "_STREAM_ID": rnd(32, HEX)}),
        f"MESSAGE_ID={rnd(32, HEX)}\nCODE_FILE=src/core/unit.c\nUNIT=app.service")),
    ("k8s_audit_without_data", "json", lambda: pick(
        js({"kind": "Event", "level": "Metadata", "auditID": uuid(), "verb": "get", "objectRef": {"resource": "secrets", "namespace": "prod", "name": "db-creds"}}),
        js({"kind": "Event", "user": {"username": "system:serviceaccount:prod:api", "uid": uuid()}, "verb": "list", "objectRef": {"resource": "secrets"}}),
        js({"kind": "Event", "annotations": {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "RBAC: allowed by ClusterRoleBinding \"ops\""}}),
        js({"kind": "Event", "verb": "create", "requestObject": {"kind": "ServiceAccount", "metadata": {"name": "api"}, "automountServiceAccountToken": False}}),
        js({"kind": "Event", "verb": "create", "objectRef": {"resource": "serviceaccounts", "subresource": "token"}, "responseStatus": {"code": 201}}))),
    ("sentry_ordinary", "json", lambda: pick(
        js({"event_id": rnd(32, HEX), "level": "error", "contexts": {"trace": {"trace_id": trace(), "span_id": span(), "op": "http.server"}}}),
        js({"event_id": rnd(32, HEX), "extra": {"password_length": 14, "token_type": "bearer", "retries": 2}}),
        js({"sdk": {"name": "sentry.python", "version": "2.19.0"}, "release": f"api@{sha(12)}"}),
        js({"breadcrumbs": {"values": [{"category": "http", "data": {"url": "https://api.acme.dev/v1/orders?page=2", "status_code": 200}}]}}),
        js({"breadcrumbs": {"values": [{"category": "ui.click", "message": "button#forgot-password"}]}}))),
    ("cloud_audit_ordinary", "json", lambda: pick(
        js({"eventName": "CreateLoginProfile", "requestParameters": {"userName": user(), "passwordResetRequired": True}, "eventID": uuid()}),
        js({"eventName": "GetSecretValue", "requestParameters": {"secretId": "prod/db"}, "requestID": uuid()}),
        js({"operationName": {"value": "Microsoft.Web/sites/write"}, "correlationId": uuid(), "resourceId": f"/subscriptions/{uuid()}/resourceGroups/rg/providers/Microsoft.Web/sites/app"}),
        js({"insertId": rnd(14, "abcdefghijklmnopqrstuvwxyz0123456789"), "trace": f"projects/acme/traces/{trace()}", "spanId": span(), "severity": "INFO"}),
        js({"protoPayload": {"methodName": "google.iam.admin.v1.CreateServiceAccountKey", "resourceName": "projects/-/serviceAccounts/" + str(_r.randint(10**20, 10**21))}}))),
    ("datadog_ordinary", "json", lambda: pick(
        js({"service": "api", "dd": {"trace_id": str(_r.randint(10**18, 10**19)), "span_id": str(_r.randint(10**18, 10**19))}, "message": "ok"}),
        js({"ddtags": "env:prod,version:1.2.3,team:billing", "ddsource": "python", "status": "info"}),
        js({"usr": {"id": f"u_{_r.randint(1, 99999)}", "name": user()}, "message": "checkout"}),
        js({"http": {"url": "https://api.acme.dev/v1/items?page=2", "status_code": 200, "method": "GET"}, "duration": 12000000}),
        js({"network": {"client": {"ip": ip()}}, "evt": {"name": "authentication", "outcome": "success"}}))),
    ("mdc_ordinary", "log", lambda: pick(
        f"2025-12-02 12:00:01.123 INFO  [main] c.a.Api {{requestId={uuid()}, traceId={trace()}, spanId={span()}}} - ok",
        "12:00:01.123 [main] INFO  com.acme.Sync - MDC={tokenType=Bearer, authMethod=oauth2, userId=4711} synced",
        js({"level": "INFO", "contextMap": {"requestId": uuid(), "tenant": "acme"}, "message": "ok"}),
        f"2025-12-02 12:00:01,123 WARN  [pool-2-thread-1] [tenant=acme, jobId={_r.randint(1, 9999)}] c.a.Worker: retry",
        f"{iso()} INFO  c.a.Login {{username={user()}, passwordExpired=false}} - login ok")),
    ("serilog_dotnet_ordinary", "log", lambda: pick(
        js({"@t": iso(), "@mt": "Login for {User} succeeded in {Elapsed:0.0} ms", "User": user(), "Elapsed": 12.3, "@tr": trace(), "@sp": span()}),
        "[12:00:01 INF] Login succeeded for LoginRequest { UserName: \"bob\", Password: \"***\" }",
        js({"LogLevel": "Information", "Category": "Acme.Auth", "State": {"Message": "Token validated", "{OriginalFormat}": "Token validated"}}),
        f"[12:00:01 WRN] Token {{TokenId}} expires in {{Minutes}} min TokenId={uuid()} Minutes=5",
        js({"@t": iso(), "@mt": "Password policy {@Policy}", "Policy": {"MinLength": 12, "RequireDigit": True}}))),
    ("tracing_spans_ordinary", "log", lambda: pick(
        f"{iso()}  INFO request{{method=GET uri=/v1/items id={uuid()}}}: api: done in 12ms",
        f"{iso()} DEBUG token_bucket{{capacity=100 remaining=42}}: limiter: ok",
        f'{iso()}  INFO auth{{method="api_key" result=ok}}: api::auth: verified',
        js({"level": "INFO", "fields": {"message": "auth ok", "key_id": "k-7"}, "span": {"name": "request", "request_id": rnd(20)}}),
        f"{iso()}  WARN session{{id={rnd(26, UPPER_ALNUM)}}}: api: idle")),
    ("gelf_ordinary", "json", lambda: pick(
        js({"version": "1.1", "host": host(), "short_message": "done", "_request_id": rnd(20), "_trace_id": trace()}),
        js({"version": "1.1", "short_message": "reset mail sent", "_password_reset": "requested", "_user": user()}),
        js({"version": "1.1", "short_message": "issued", "_token_ttl": 3600, "_token_type": "refresh"}),
        js({"version": "1.1", "short_message": "login", "_auth": "ok", "level": 6}),
        js({"version": "1.1", "short_message": "upload", "_sha256": sha(64), "_bytes": 5120}))),
    ("python_extra_ordinary", "log", lambda: pick(
        f"{iso()} INFO app.auth: login ok extra={{'user_id': 42, 'password_set': True, 'token_expires_in': 3600}}",
        js({"levelname": "INFO", "message": "token refreshed", "token_expires_at": iso(), "request_id": uuid()}),
        f"<LogRecord: app.auth, 20, /srv/app/auth.py, 41, \"login ok for %s\">, args=('{user()}',)",
        f"{iso()} WARNING [celery.worker] task retry: kwargs={{'order_id': 12, 'attempt': 2}}",
        "  Parameters: {\"page\"=>\"2\", \"q\"=>\"password\"}")),
    ("rubydebug_fluent_ordinary", "log", lambda: pick(
        f'{{\n       "message" => "ok",\n    "fingerprint" => "{sha(40)}",\n    "@version" => "1"\n}}',
        f'{{\n    "_id" => "{rnd(20, B64URL)}",\n    "host" => {{\n        "name" => "{host()}"\n    }}\n}}',
        f'[0] app: [{unix_f()}, {{"message"=>"done", "duration_ms"=>"12"}}]',
        f"2025-12-02 12:00:01.123456789 +0000 app.access: {js({'user': user(), 'path': '/login', 'status': 200})}",
        js({"log": "listening on :8080\n", "stream": "stdout", "time": iso()}))),
    ("otel_debug_ordinary", "log", lambda: pick(
        f"Span #0\n    Trace ID       : {trace()}\n    Parent ID      : {span()}\n    ID             : {span()}",
        "Attributes:\n     -> http.response.status_code: Int(401)\n     -> enduser.id: Str(u_4711)",
        "     -> error.type: Str(InvalidTokenError)\n     -> errscope.class: Str(auth)",
        f"ResourceLog #0\nResource SchemaURL: https://opentelemetry.io/schemas/1.26.0\n     -> service.instance.id: Str({uuid()})",
        f"     -> messaging.message.id: Str({rnd(24, HEX)})")),
    ("loki_k8s_ordinary", "json", lambda: pick(
        js({"streams": [{"stream": {"app": "api", "level": "info"}, "values": [[unix_ns(), "level=info msg=ok duration=3ms"]]}]}),
        js({"streams": [{"stream": {"job": "web"}, "values": [[unix_ns(), "done", {"trace_id": trace()}]]}]}),
        f'{iso()} stdout F level=info msg="listening" addr=:8080',
        f"{iso()} stderr F {js({'level': 'warn', 'msg': 'slow', 'elapsed_ms': 812})}",
        js({"kind": "Event", "requestURI": "/api/v1/namespaces/prod/pods?limit=500", "verb": "list", "responseStatus": {"code": 200}}))),
    ("multiline_ordinary", "log", lambda: pick(
        f"{iso()} ERROR [worker] request failed\n  url: https://api.acme.dev/v1/orders\n  headers:\n    Accept: application/json\n    X-Request-Id: {uuid()}",
        f"{iso()} DEBUG effective configuration:\n  database.user     = app\n  database.password = ********\n  database.pool     = 10",
        f"[12:00:01.123] ERROR (4711): request errored\n    req: {{\n      \"id\": {_r.randint(1, 999)},\n      \"method\": \"GET\"\n    }}",
        "Traceback (most recent call last):\n  File \"/srv/app/auth.py\", line 41, in verify\n    raise InvalidToken(\"token expired\")\napp.errors.InvalidToken: token expired",
        f"{iso()} WARN  retrying\n\tuser: {user()}\n\tattempt: 2\n\tbackoff: 1.5s")),
]


def logformats() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_13)
    return heldout._records(LOGFORMATS_SECRETS, LOGFORMATS_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = logformats()
    heldout._write(HERE / "logformats_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "logformats_benign.jsonl.gz", benign_rows)
    print(f"logformats: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
