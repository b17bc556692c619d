"""A twenty-third held-out set: secrets as developer tools print them on a terminal or in a CI log.

    python -m tests.secret_corpus.toolout   # rewrites toolout_*.jsonl.gz here

The other sets hold files at rest (``infra``, ``atrest``), commands as they are handed a secret (``invoked``), traffic
captures (``captured``) and errors raised by libraries (``raised``); this one holds what a tool PRINTS when asked to
list, inspect, plan or debug, laid out as that tool lays it out (written from the tools' documented output before
reading the patterns). Kinds (each a family of formats):

- environment dumps: ``printenv``/``env``, bash ``set`` and ``declare -x``, PowerShell's ``Get-ChildItem Env:`` table,
  ``go env``;
- container and cluster inspection: ``docker inspect``'s ``Env`` array, ``docker history --no-trunc`` (``ENV`` and the
  build arguments ``|2 NPM_TOKEN=.. /bin/sh -c ..``), ``docker compose config``, ``kubectl describe pod``'s
  ``Environment:`` block, ``helm get values``;
- infrastructure plans and state: ``terraform plan`` (``+ password = ".."`` and ``~ token = ".." -> ".."``),
  ``terraform state show``, ``terraform output -json``, ``pulumi stack output --show-secrets`` and ``pulumi config
  --show-secrets`` tables, ``vault login``'s key/value table;
- package managers' and CLIs' config listings: ``aws configure export-credentials``, ``gh auth status --show-token``,
  ``npm config list`` (npm 6), ``pip config list``, ``poetry config --list``, ``git config -l``, ``conda config
  --show`` (a token as a URL path segment ``/t/<token>/``), ``bundle config`` (the value on the line after its key),
  ``composer config --list`` (``[key] value``), ``yarn config list`` (a JavaScript object);
- a getter's output on the line after its command (``$ gh auth token`` then the token alone);
- CI logs: shell xtrace (``+ curl -H 'PRIVATE-TOKEN: ..'``) under GitHub Actions' timestamps, a step's ``env:`` block,
  GitLab's ``$ cat .npmrc``, Jenkins' ``[Pipeline] sh`` with ``-D`` properties;
- HTTP client debug logs: OkHttp's ``HttpLoggingInterceptor`` in logcat, Feign, Ktor, Faraday, Go's
  ``httputil.DumpRequestOut``, .NET ``HttpClient`` logging, Spring ``RestTemplate``'s form body
  (``client_secret=[..]``), gRPC's ``HTTP:..:HDR:CLI:`` trace; vendor header names (``X-Vault-Token``,
  ``PRIVATE-TOKEN``, ``X-Shopify-Access-Token``, ..);
- ORM and driver debug logs: HikariCP's config dump (``jdbcUrl....`` with a password parameter), Sequelize and
  TypeORM with their bound parameters after the statement, ActiveRecord's ``[["col", ".."]]``, Ecto, knex's
  ``toSQL`` object, Mongoose, Django's ``django.db.backends``, Hibernate's ``binding parameter [2]``.

Benign: the same tools' output with no secret (plain environments, image digests and ids, commit SHAs, GPG key
fingerprints under ``GPG_KEY``, ``PYTHON_SHA256``), the tools' own masks (``(sensitive value)``, ``<sensitive>``,
``[secret]``, ``(protected)``, ``DATA+OMITTED``/``REDACTED``, ``****************ABCD``, ``gho_****``, GitHub's
``***``, GitLab's ``[MASKED]``, OkHttp's ``██``, .NET's ``*``, Hikari's ``<masked>``, Rails' ``[FILTERED]``,
``MongoCredential{.. password=<hidden>}``), references (``<set to the key 'password' in secret 'db'>``,
``existingSecret``, ``*_FILE`` paths), DSNs without a password, Vault token accessors and ids, getters that print
no secret (``aws configure get region``), ORM logs whose parameters are ids, e-mails and states.

Same row format as ``../shared/corpus``; values are fake (``FAKE`` inside every prefixed token and human password,
random bodies from a fixed seed elsewhere). ``tests/test_scrub_toolout.py`` scores ``errscope.scrub`` on it;
``score_all.py`` with the others.
"""

from __future__ import annotations

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt
from tests.secret_corpus.heldout import ALNUM, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: toolout() seeds it

LOWER_HEX = HEX
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def n(lo: int = 1, hi: int = 999) -> str:
    return str(_r.randint(lo, hi))


def ts() -> str:
    return f"2026-12-0{_r.randint(1, 3)}T{_r.randint(10, 23)}:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{rnd(7, '0123456789')}Z"


def user() -> str:
    return pick("app", "deploy", "ci", "svc_orders", "reporting", "admin", "etl")


def host() -> str:
    return pick("db.internal", "pg-primary.prod.svc", "10.20.3.14", "mysql-0.mysql", "orders-db.example.net")


def sha40() -> str:
    return rnd(40, LOWER_HEX)


def ftok(lo: int = 28, hi: int = 40) -> str:
    """An opaque random token with FAKE inside (the format allows any character there)."""
    body = rnd(_r.randint(lo, hi))
    cut = _r.randint(2, len(body) - 2)
    return body[:cut] + "FAKE" + body[cut:]


def prefixed() -> str:
    """A provider token with its documented prefix; FAKE right after the prefix."""
    return pick(
        "ghp_FAKE" + rnd(32),
        "github_pat_11FAKE" + rnd(18) + "_" + rnd(59),
        "glpat-FAKE" + rnd(16, ALNUM + "-_"),
        "npm_FAKE" + rnd(32),
        "sk_live_FAKE" + rnd(28),
        "xoxb-" + n(1000000000, 9999999999) + "-" + n(1000000000, 9999999999) + "-FAKE" + rnd(20),
        "hvs.FAKE" + rnd(86, ALNUM + "-_"),
        "SG.FAKE" + rnd(18, ALNUM + "-_") + "." + rnd(43, ALNUM + "-_"),
        "pypi-AgEIcHlwaS5vcmcFAKE" + rnd(60, ALNUM + "-_"),
    )


def secret_value() -> str:
    """A value a secret-named setting holds: a human password, an opaque token or a provider token."""
    return pick(fpw(), ftok(), prefixed(), rnd(40, LOWER_HEX), rnd(32, ALNUM))


def pw_var() -> str:
    return pick("DB_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "REDIS_PASS", "SMTP_PASSWORD",
                "RABBITMQ_DEFAULT_PASS", "ADMIN_PASSWD", "KEYSTORE_PASSWORD")


def tok_var() -> str:
    return pick("API_KEY", "STRIPE_SECRET_KEY", "GITHUB_TOKEN", "NPM_TOKEN", "SLACK_BOT_TOKEN", "SENTRY_AUTH_TOKEN",
                "OPENAI_API_KEY", "AZURE_CLIENT_SECRET", "JWT_SECRET", "SESSION_SECRET", "DATADOG_API_KEY",
                "WEBHOOK_SIGNING_SECRET", "ACCESS_TOKEN", "CI_DEPLOY_PASSWORD")


def any_var() -> str:
    return pick(pw_var(), tok_var())


def env_noise() -> list[str]:
    return [f"HOSTNAME={rnd(12, LOWER_HEX)}", "HOME=/root", "LANG=C.UTF-8", f"NODE_VERSION=20.{n(1, 18)}.{n(0, 9)}",
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TZ=UTC", "LOG_LEVEL=info",
            f"PORT={n(3000, 9000)}", "APP_ENV=production", f"GIT_COMMIT={sha40()}"]


def around(line: str, noise: list[str], k: int = 3) -> str:
    """``line`` among ``k`` noise lines, in a random place."""
    lines = _r.sample(noise, k)
    lines.insert(_r.randint(0, k), line)
    return "\n".join(lines)


def dots(name: str, width: int = 32) -> str:
    """HikariCP's config dump: the name padded with dots to a column."""
    return name + "." * max(1, width - len(name))


def xheader() -> str:
    return pick("X-Vault-Token", "PRIVATE-TOKEN", "X-Shopify-Access-Token", "X-Auth-Token", "X-API-Key", "Api-Key",
                "X-Consul-Token", "X-Figma-Token", "DD-API-KEY", "X-Goog-Api-Key", "X-Nomad-Token", "Circle-Token")


def credential() -> str:
    """What follows an ``Authorization`` scheme: a JWT, an opaque token or a provider token."""
    return pick(jwt(), ftok(32, 48), prefixed())


def scheme() -> str:
    return pick("Bearer", "Bearer", "token", "Bot", "SSWS", "ApiKey")


def url_path() -> str:
    return pick("/v1/orders", "/api/v4/projects/12/pipeline", "/v2/items?page=2", "/admin/api/2024-10/orders.json",
                "/v1/secret/data/app", "/oauth/token")


SECRETS: list[tuple[str, str, Maker]] = [
    # environment dumps
    ("printenv_password", "log", one(fpw,
        lambda s: around(f"{pw_var()}={s}", env_noise()),
        lambda s: "$ printenv | sort\n" + around(f"{pw_var()}={s}", env_noise(), 4))),
    ("printenv_token", "log", one(lambda: pick(ftok(), prefixed(), rnd(40, LOWER_HEX)),
        lambda s: around(f"{tok_var()}={s}", env_noise()),
        lambda s: "root@" + rnd(12, LOWER_HEX) + ":/app# env\n" + around(f"{tok_var()}={s}", env_noise(), 4))),
    ("printenv_vendor_named", "log", one(lambda: pick(ftok(30, 40), rnd(32, LOWER_HEX), rnd(40, ALNUM)),
        lambda s: around(f"{pick('ALGOLIA_ADMIN', 'MAILGUN_PRIVATE', 'TWILIO_AUTH', 'CLOUDFLARE_API', 'LINEAR_API', 'PAGERDUTY_ROUTING')}"
                         f"{pick('_KEY', '_TOKEN', '_SECRET')}={s}", env_noise()),
        lambda s: around(f"{pick('POSTMARK_SERVER_TOKEN', 'HONEYCOMB_WRITEKEY', 'ROLLBAR_ACCESS_TOKEN', 'NEW_RELIC_LICENSE_KEY')}={s}", env_noise()))),
    ("bash_set_and_declare", "log", one(secret_value,
        lambda s: f"$ set | grep -i -E 'pass|token|key'\n{any_var()}='{s}'",
        lambda s: f"declare -x HOME=\"/home/{user()}\"\ndeclare -x {any_var()}=\"{s}\"\ndeclare -x LANG=\"C.UTF-8\"",
        lambda s: f"$ export -p\nexport {any_var()}='{s}'\nexport PWD='/app'")),
    ("powershell_env_table", "log", one(secret_value,
        lambda s: "PS C:\\app> Get-ChildItem Env:\n\nName                           Value\n----                           -----\n"
                  f"ALLUSERSPROFILE                C:\\ProgramData\n{any_var():<31}{s}\nCOMPUTERNAME                   BUILD-{n()}",
        lambda s: f"PS> dir env:{any_var()}\n\nName                           Value\n----                           -----\n{any_var():<31}{s}")),
    ("go_env_proxy_userinfo", "log", one(lambda: pick(fpw(), prefixed(), ftok()),
        lambda s: f"GOOS='linux'\nGOPRIVATE='git.corp.example'\nGOPROXY='https://{user()}:{s}@goproxy.corp.example,direct'\nGOROOT='/usr/local/go'",
        lambda s: f'set GOPROXY=https://{user()}:{s}@athens.corp.example\nset GOSUMDB=off')),
    # containers and clusters
    ("docker_inspect_env", "json", one(secret_value,
        lambda s: '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",\n'
                  f'    "{any_var()}={s}",\n    "NODE_ENV=production"\n],',
        lambda s: f'$ docker inspect -f "{{{{json .Config.Env}}}}" api-{n()}\n["{any_var()}={s}","TZ=UTC"]')),
    ("docker_history_build_args", "log", one(lambda: pick(prefixed(), ftok(), fpw()),
        lambda s: f"<missing>      3 weeks ago   RUN |2 {pick('NPM_TOKEN', 'GITHUB_TOKEN', 'PIP_INDEX_PASSWORD', 'BUNDLE_GITHUB__COM')}={s} "
                  f"APP_ENV=prod /bin/sh -c npm ci --omit=dev   {n(10, 300)}MB   buildkit.dockerfile.v0",
        lambda s: f"IMAGE          CREATED       CREATED BY                                      SIZE\n{rnd(12, LOWER_HEX)}   "
                  f"2 days ago    ENV {any_var()}={s}                  0B")),
    ("docker_compose_config", "log", one(secret_value,
        lambda s: f"services:\n  api:\n    environment:\n      {any_var()}: {s}\n      LOG_LEVEL: info\n    image: api:1.{n(1, 9)}",
        lambda s: f"name: shop\nservices:\n  db:\n    environment:\n      POSTGRES_USER: {user()}\n      POSTGRES_PASSWORD: {s}")),
    ("kubectl_describe_env", "log", one(secret_value,
        lambda s: f"    Environment:\n      DATABASE_HOST:      {host()}\n      {any_var() + ':':<20}{s}\n      LOG_LEVEL:          info\n    Mounts:",
        lambda s: f"Containers:\n  worker:\n    Image:  worker:{n()}\n    Environment:\n      {any_var()}:  {s}")),
    ("helm_get_values", "log", one(secret_value,
        lambda s: f"$ helm get values shop -n prod\nUSER-SUPPLIED VALUES:\npostgresql:\n  auth:\n    password: {s}\n    username: {user()}",
        lambda s: f"USER-SUPPLIED VALUES:\nstripe:\n  secretKey: {s}\nreplicaCount: 3")),
    # plans and state
    ("terraform_plan_create", "log", one(secret_value,
        lambda s: f'  # aws_db_instance.main will be created\n  + resource "aws_db_instance" "main" {{\n      + engine   = "postgres"\n'
                  f'      + password = "{s}"\n      + username = "{user()}"',
        lambda s: f'  + resource "github_actions_secret" "deploy" {{\n      + plaintext_value = "{s}"\n      + secret_name     = "DEPLOY_KEY"')),
    ("terraform_plan_update", "log", one(secret_value,
        lambda s: f'  ~ resource "kubernetes_secret" "api" {{\n      ~ data = {{\n          ~ "token" = "{ftok()}" -> "{s}"\n        }}',
        lambda s: f'      ~ master_password = "{fpw()}" -> "{s}"')),
    ("terraform_state_show", "log", one(lambda: rnd(40, ALNUM + "+/"),
        lambda s: f'# aws_iam_access_key.ci:\nresource "aws_iam_access_key" "ci" {{\n    id     = "AKIA{rnd(16, UPPER + "234567")}"\n'
                  f'    secret = "{s}"\n    status = "Active"\n    user   = "ci"\n}}',
        lambda s: f'$ terraform state show random_password.db\n# random_password.db:\nresource "random_password" "db" {{\n    id     = "none"\n    result = "{s}"\n}}')),
    ("terraform_output_json", "json", one(secret_value,
        lambda s: f'{{\n  "db_password": {{\n    "sensitive": true,\n    "type": "string",\n    "value": "{s}"\n  }}\n}}',
        lambda s: f'{{"api_token":{{"sensitive":true,"type":"string","value":"{s}"}},"region":{{"sensitive":false,"type":"string","value":"eu-west-1"}}}}')),
    ("pulumi_stack_output_secrets", "log", one(secret_value,
        lambda s: f"Current stack outputs (3):\n    OUTPUT          VALUE\n    dbEndpoint      {host()}\n    {pick('dbPassword', 'apiKey', 'adminToken'):<16}{s}",
        lambda s: f"$ pulumi config --show-secrets\nKEY                    VALUE\naws:region             us-east-1\n"
                  f"{pick('shop:dbPassword', 'shop:stripeKey', 'shop:githubToken'):<23}{s}")),
    ("vault_login_table", "log", one(lambda: pick("hvs.FAKE" + rnd(86, ALNUM + "-_"), "s.FAKE" + rnd(20)),
        lambda s: "Success! You are now authenticated.\n\nKey                  Value\n---                  -----\n"
                  f"token                {s}\ntoken_accessor       {rnd(24)}\ntoken_duration       768h",
        lambda s: f"Key                Value\n---                -----\naccessor           {rnd(24)}\nid                 {s}\npolicies           [default]")),
    # package managers' and CLIs' config listings
    ("aws_export_credentials", "log", one(lambda: rnd(40, ALNUM + "+/"),
        lambda s: f"$ aws configure export-credentials --format env\nexport AWS_ACCESS_KEY_ID=ASIA{rnd(16, UPPER + '234567')}\n"
                  f"export AWS_SECRET_ACCESS_KEY={s}\nexport AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEFAKE{rnd(120, ALNUM + '+/')}",
        lambda s: f'{{"Version": 1, "AccessKeyId": "ASIA{rnd(16, UPPER + "234567")}", "SecretAccessKey": "{s}", "Expiration": "2026-12-03T12:00:00+00:00"}}')),
    ("gh_auth_status_show_token", "log", one(lambda: pick("gho_FAKE" + rnd(32), "ghp_FAKE" + rnd(32), "github_pat_11FAKE" + rnd(18) + "_" + rnd(59)),
        lambda s: f"github.com\n  ✓ Logged in to github.com account octocat (keyring)\n  - Active account: true\n"
                  f"  - Git operations protocol: https\n  - Token: {s}\n  - Token scopes: 'gist', 'read:org', 'repo'",
        lambda s: f"github.example.com\n  ✓ Logged in to github.example.com as ci-bot (GH_ENTERPRISE_TOKEN)\n  ✓ Token: {s}")),
    ("npm_config_list_legacy", "log", one(lambda: pick("npm_FAKE" + rnd(32), ftok(), uuid()),
        lambda s: f'; userconfig /home/{user()}/.npmrc\n//registry.npmjs.org/:_authToken = "{s}"\nregistry = "https://registry.npmjs.org/"',
        lambda s: f'; "project" config from /app/.npmrc\n\n@corp:registry = "https://npm.pkg.github.com/"\n//npm.pkg.github.com/:_authToken = "{s}"')),
    ("pip_config_list", "log", one(lambda: pick(fpw(), "pypi-AgEIcHlwaS5vcmcFAKE" + rnd(60, ALNUM + "-_"), ftok()),
        lambda s: f"$ pip config list\nglobal.index-url='https://{user()}:{s}@pypi.corp.example/simple'\nglobal.timeout='60'",
        lambda s: f"site.extra-index-url='https://__token__:{s}@pkgs.dev.azure.com/corp/_packaging/feed/pypi/simple/'")),
    ("poetry_config_list", "log", one(lambda: pick(fpw(), "pypi-AgEIcHlwaS5vcmcFAKE" + rnd(60, ALNUM + "-_"), ftok()),
        lambda s: f'cache-dir = "/root/.cache/pypoetry"\nhttp-basic.corp.password = "{s}"\nhttp-basic.corp.username = "{user()}"',
        lambda s: f'installer.parallel = true\npypi-token.pypi = "{s}"\nvirtualenvs.create = true')),
    ("git_config_list", "log", one(lambda: pick(prefixed(), ftok(), fpw()),
        lambda s: f"$ git config -l\ncore.bare=false\nremote.origin.url=https://x-access-token:{s}@github.com/corp/api.git\nbranch.main.remote=origin",
        lambda s: f"url.https://oauth2:{s}@gitlab.corp.example/.insteadof=https://gitlab.corp.example/\nuser.name=CI")),
    ("conda_channel_token", "log", one(lambda: pick(f"{pick('it', 'ab', 'cx')}-{rnd(8, LOWER_HEX)}-FAKE-{rnd(4, LOWER_HEX)}-{rnd(12, LOWER_HEX)}", ftok(30, 34)),
        lambda s: f"$ conda config --show channels\nchannels:\n  - https://conda.anaconda.org/t/{s}/corp\n  - conda-forge",
        lambda s: f"channel_alias: https://repo.anaconda.cloud/t/{s}\ndefault_channels:\n  - https://repo.anaconda.cloud/t/{s}/main")),
    ("bundle_config_next_line", "log", one(lambda: pick(f"{user()}:{pick(prefixed(), ftok())}", f"{rnd(8, LOWER_HEX)}:{rnd(8, LOWER_HEX)}"),
        lambda s: f"Settings are listed in order of priority. The top value will be used.\nrubygems.pkg.github.com\n"
                  f"Set for your local app (/app/.bundle/config): \"{s}\"\n\njobs\nSet for the current user (/root/.bundle/config): 4",
        lambda s: f"BUNDLE_GEMS__CONTRIBSYS__COM\nSet via BUNDLE_GEMS__CONTRIBSYS__COM: \"{s}\"")),
    ("composer_config_list", "log", one(lambda: pick(prefixed(), ftok(), fpw()),
        lambda s: f"[repositories.corp.url] https://repo.packagist.com/corp/\n[http-basic.repo.packagist.com.password] {s}\n[process-timeout] 300",
        lambda s: f"[github-oauth.github.com] {s}\n[gitlab-token.gitlab.com] glpat-FAKE{rnd(20)}\n[vendor-dir] vendor")),
    ("yarn_config_list", "log", one(lambda: pick("npm_FAKE" + rnd(32), ftok(), uuid()),
        lambda s: f"info npm config\n{{ '//registry.npmjs.org/:_authToken': '{s}',\n  'strict-ssl': true,\n  'user-agent': 'npm/10.2.4 node/v20.11.1 linux x64' }}",
        lambda s: f"npmRegistries:\n  //npm.pkg.github.com:\n    npmAuthToken: {s}\nnpmScopes: {{}}")),
    # a getter's output on the line after its command
    ("getter_output_next_line", "log", one(lambda: pick(prefixed(), ftok(), rnd(40, ALNUM + "+/"), fpw()),
        lambda s: f"$ {pick('gh auth token', 'heroku auth:token', 'doctl auth token', 'npm config get //registry.npmjs.org/:_authToken')}\n{s}",
        lambda s: f"$ {pick('aws configure get aws_secret_access_key', 'vault kv get -field=password secret/db', 'op read op://prod/db/password')}\n{s}\n$ ",
        lambda s: f"ci@runner:~$ kubectl get secret {pick('db', 'api')} -o jsonpath='{{.data.{pick('password', 'token')}}}' | base64 -d\n{s}")),
    ("ci_xtrace_header", "log", one(lambda: pick(prefixed(), ftok()),
        lambda s: f"{ts()} + curl -sSf -H 'PRIVATE-TOKEN: {s}' https://gitlab.corp.example/api/v4/projects/{n()}/jobs",
        lambda s: f"{ts()} + curl -fsS -H \"{xheader()}: {s}\" https://api.example.com{url_path()}",
        lambda s: f"+ wget --header='{xheader()}: {s}' -qO- https://api.example.com/v1/health")),
    ("ci_xtrace_assignment", "log", one(secret_value,
        lambda s: f"{ts()} ++ vault kv get -field=value secret/ci/{pick('npm', 'sonar', 'pypi')}\n{ts()} + {tok_var()}={s}",
        lambda s: f"+ {any_var()}={s}\n+ ./deploy.sh --env prod",
        lambda s: f"+ docker login -u {user()} -p {s} registry.corp.example")),
    ("gha_step_env_block", "log", one(secret_value,
        lambda s: f"{ts()} ##[group]Run ./scripts/release.sh\n{ts()} ./scripts/release.sh\n{ts()} shell: /usr/bin/bash -e {{0}}\n"
                  f"{ts()} env:\n{ts()}   AWS_REGION: us-east-1\n{ts()}   {any_var()}: {s}\n{ts()} ##[endgroup]",
        lambda s: f"##[group]Run actions/setup-node@v4\nwith:\n  node-version: 20\n  registry-url: https://npm.pkg.github.com\nenv:\n  NODE_AUTH_TOKEN: {s}\n##[endgroup]")),
    ("gitlab_cat_config", "log", one(lambda: pick("npm_FAKE" + rnd(32), ftok(), fpw()),
        lambda s: f"$ cat .npmrc\n//registry.npmjs.org/:_authToken={s}\nalways-auth=true",
        lambda s: f"$ cat ~/.pypirc\n[pypi]\nusername = __token__\npassword = {s}",
        lambda s: f"$ cat ~/.netrc\nmachine gitlab.corp.example login {user()} password {s}")),
    ("jenkins_sh_properties", "log", one(lambda: pick(fpw(), ftok()),
        lambda s: f"[Pipeline] sh\n+ mvn -B deploy -Dnexus.user={user()} -Dnexus.pass={s} -DskipTests",
        lambda s: f"[Pipeline] sh\n+ ./gradlew publish -PsigningPassword={s} -PossrhUsername={user()}",
        lambda s: f"[Pipeline] sh\n+ sonar-scanner -Dsonar.login={s} -Dsonar.host.url=https://sonar.corp.example")),
    # HTTP client debug logs
    ("okhttp_logcat", "log", one(credential,
        lambda s: f"12-03 10:{n(10, 59)}:{n(10, 59)}.{n(100, 999)}  {n(1000, 9999)}  {n(1000, 9999)} I okhttp.OkHttpClient: --> POST https://api.example.com{url_path()}\n"
                  f"12-03 10:11:12.345  4242  4290 I okhttp.OkHttpClient: Authorization: {scheme()} {s}\n12-03 10:11:12.345  4242  4290 I okhttp.OkHttpClient: --> END POST",
        lambda s: f"D/OkHttp: --> GET https://api.example.com{url_path()}\nD/OkHttp: Authorization: {scheme()} {s}\nD/OkHttp: --> END GET")),
    ("feign_full_logger", "log", one(credential,
        lambda s: f"[OrdersClient#create] ---> POST https://orders.internal{url_path()} HTTP/1.1\n[OrdersClient#create] Authorization: {scheme()} {s}\n"
                  f"[OrdersClient#create] Content-Type: application/json\n[OrdersClient#create] ---> END HTTP (0-byte body)",
        lambda s: f"DEBUG c.c.p.c.BillingClient : [BillingClient#charge] Authorization: {scheme()} {s}")),
    ("ktor_logging", "log", one(credential,
        lambda s: f"REQUEST: https://api.example.com{url_path()}\nMETHOD: HttpMethod(value=GET)\nCOMMON HEADERS\n-> Accept: application/json\n-> Authorization: {scheme()} {s}",
        lambda s: f"HttpClient: REQUEST: https://api.example.com/v1/me\nHttpClient: METHOD: HttpMethod(value=POST)\nHttpClient: COMMON HEADERS\nHttpClient: -> {xheader()}: {s}")),
    ("faraday_logger", "log", one(credential,
        lambda s: f"I, [2026-12-03T10:00:00.{n(100000, 999999)} #{n()}]  INFO -- request: GET https://api.example.com{url_path()}\n"
                  f"D, [2026-12-03T10:00:00.{n(100000, 999999)} #{n()}] DEBUG -- request: Authorization: \"{pick('Token token=', 'Bearer ', 'token ')}{s}\"\nUser-Agent: \"Faraday v2.7.4\"",
        lambda s: f"DEBUG -- request: {xheader()}: \"{s}\"\nAccept: \"application/json\"")),
    ("go_dump_request", "log", one(lambda: pick(prefixed(), ftok()),
        lambda s: f"2026/12/03 10:00:00 GET /v1/sys/health HTTP/1.1\r\nHost: vault.internal:8200\r\nUser-Agent: Go-http-client/1.1\r\n{xheader()}: {s}\r\nAccept-Encoding: gzip\r\n",
        lambda s: f"httputil.DumpRequestOut:\nPOST /api/v1/query HTTP/1.1\nHost: consul.internal\n{xheader()}: {s}\nContent-Length: 42")),
    ("dotnet_httpclient_trace", "log", one(credential,
        lambda s: f"trce: System.Net.Http.HttpClient.GitHub.ClientHandler[102]\n      Request Headers:\n      Accept: application/vnd.github+json\n      Authorization: {scheme()} {s}",
        lambda s: f"info: System.Net.Http.HttpClient.Default.LogicalHandler[100]\n      Start processing HTTP request GET https://api.example.com/v1/search?api-key={ftok()}&q=x\n"
                  f"trce: System.Net.Http.HttpClient.Default.ClientHandler[102]\n      {xheader()}: {s}")),
    ("spring_form_body", "log", one(lambda: pick(ftok(), fpw(), rnd(40, ALNUM)),
        lambda s: f"DEBUG o.s.web.client.RestTemplate : HTTP POST https://auth.example.com/oauth/token\n"
                  f"DEBUG o.s.web.client.RestTemplate : Writing [{{grant_type=[client_credentials], client_id=[billing], client_secret=[{s}]}}] as \"application/x-www-form-urlencoded\"",
        lambda s: f"DEBUG o.s.w.r.f.client.ExchangeFunctions : [6f1c2a] HTTP POST https://login.example.com/token, "
                  f"body={{grant_type=[password], username=[{user()}], password=[{s}]}}")),
    ("grpc_header_trace", "log", one(lambda: pick(f"ya29.a0FAKE{rnd(120, ALNUM + '-_')}", jwt(), prefixed()),
        lambda s: f"I1203 10:00:00.{n(100000, 999999)}   {n(100, 999)} chttp2_transport.cc:{n()}] ipv4:10.0.0.7:443 HTTP:1:HDR:CLI: authorization: Bearer {s}",
        lambda s: f"D1203 10:00:00.123456 {n()} parsing.cc:{n()}] HTTP:3:HDR:CLI: x-goog-api-key: {s}")),
    # ORM and driver debug logs
    ("hikari_config_dump", "log", one(fpw,
        lambda s: f"DEBUG com.zaxxer.hikari.HikariConfig - HikariPool-1 - configuration:\n"
                  f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('jdbcUrl')}jdbc:postgresql://{host()}:5432/app?user={user()}&password={s}\n"
                  f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('password')}<masked>",
        lambda s: f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('jdbcUrl')}jdbc:sqlserver://{host()}:1433;databaseName=app;user=sa;password={s};encrypt=true",
        lambda s: f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('dataSourceProperties')}{{password={s}, sslmode=require}}")),
    ("sequelize_bound_params", "log", one(secret_value,
        lambda s: f'Executing (default): INSERT INTO "api_keys" ("id","name","secret","createdAt") VALUES (DEFAULT,$1,$2,$3) RETURNING *; '
                  f'"ci-deploy", "{s}", "2026-12-03 10:00:00.000 +00:00"',
        lambda s: f'Executing (default): UPDATE "users" SET "apiToken"=$1,"updatedAt"=$2 WHERE "id" = $3; "{s}", "2026-12-03 10:00:00.000 +00:00", {n()}')),
    ("typeorm_parameters", "log", one(secret_value,
        lambda s: f'query: INSERT INTO "user"("email", "password") VALUES ($1, $2) RETURNING "id" -- PARAMETERS: ["{user()}@example.com","{s}"]',
        lambda s: f'query: UPDATE "integration" SET "accessToken" = $1 WHERE "id" IN ($2) -- PARAMETERS: ["{s}",{n()}]')),
    ("activerecord_binds", "log", one(secret_value,
        lambda s: f'  ApiKey Create (0.6ms)  INSERT INTO "api_keys" ("name", "token", "created_at") VALUES ($1, $2, $3) RETURNING "id"  '
                  f'[["name", "ci"], ["token", "{s}"], ["created_at", "2026-12-03 10:00:00"]]',
        lambda s: f'  User Update (0.4ms)  UPDATE "users" SET "otp_secret" = $1 WHERE "users"."id" = $2  [["otp_secret", "{s}"], ["id", {n()}]]')),
    ("ecto_query_params", "log", one(secret_value,
        lambda s: f'[debug] QUERY OK source="users" db=1.{n(0, 9)}ms\nINSERT INTO "users" ("email","password","inserted_at") VALUES ($1,$2,$3) RETURNING "id" '
                  f'["{user()}@example.com", "{s}", ~N[2026-12-03 10:00:00]]',
        lambda s: f'[debug] QUERY OK source="tokens" db=0.8ms\nUPDATE "tokens" SET "secret" = $1 WHERE "id" = $2 ["{s}", {n()}]')),
    ("knex_tosql", "log", one(secret_value,
        lambda s: f"  knex:query {{ method: 'insert', options: {{}}, bindings: [ '{user()}', '{s}' ], sql: 'insert into \"users\" (\"name\", \"password\") values (?, ?)' }}",
        lambda s: f"{{ method: 'update', bindings: [ '{s}', {n()} ], sql: 'update \"integrations\" set \"api_key\" = ? where \"id\" = ?' }}")),
    ("mongoose_debug", "log", one(secret_value,
        lambda s: f"Mongoose: users.insertOne({{ email: '{user()}@example.com', password: '{s}', _id: ObjectId(\"{rnd(24, LOWER_HEX)}\"), __v: 0 }}, {{}})",
        lambda s: f"Mongoose: integrations.updateOne({{ _id: ObjectId(\"{rnd(24, LOWER_HEX)}\") }}, {{ '$set': {{ accessToken: '{s}' }} }}, {{}})")),
    ("django_db_backends", "log", one(lambda: rnd(40, LOWER_HEX),
        lambda s: f'(0.001) SELECT "authtoken_token"."key", "authtoken_token"."user_id" FROM "authtoken_token" WHERE "authtoken_token"."key" = \'{s}\' LIMIT 21; '
                  f"args=('{s}',); alias=default",
        lambda s: f"DEBUG django.db.backends (0.002) UPDATE \"accounts_apikey\" SET \"secret\" = '{s}' WHERE \"accounts_apikey\".\"id\" = {n()}; args=('{s}', {n()})")),
    ("hibernate_binding", "log", one(fpw,
        lambda s: f"Hibernate: insert into app_user (email, password, id) values (?, ?, ?)\n"
                  f"TRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [1] as [VARCHAR] - [{user()}@example.com]\n"
                  f"TRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [2] as [VARCHAR] - [{s}]",
        lambda s: f"org.hibernate.orm.jdbc.bind - binding parameter (2:VARCHAR) <- [{s}]")),
]


BENIGN: list[tuple[str, str, object]] = [
    ("printenv_plain", "log", lambda: "\n".join(_r.sample(env_noise(), 5))),
    ("printenv_references", "log", lambda: around(pick(
        "DB_PASSWORD_FILE=/run/secrets/db_password", "API_KEY=", "GITHUB_TOKEN_PATH=/var/run/secrets/github/token",
        "VAULT_ADDR=https://vault.internal:8200", "PASSWORD_MIN_LENGTH=12", "TOKEN_TTL_SECONDS=3600",
        "SECRET_KEY_BASE_DUMMY=1", "AWS_SHARED_CREDENTIALS_FILE=/root/.aws/credentials"), env_noise())),
    ("docker_inspect_plain", "json", lambda: pick(
        '"Env": [\n    "PATH=/usr/local/bin:/usr/bin:/bin",\n    "NODE_VERSION=20.11.1",\n    "YARN_VERSION=1.22.19"\n],',
        f'"Id": "{rnd(64, LOWER_HEX)}",\n"Image": "sha256:{rnd(64, LOWER_HEX)}",',
        f'"RepoDigests": [\n    "registry.corp.example/api@sha256:{rnd(64, LOWER_HEX)}"\n],',
        f'"Labels": {{"org.opencontainers.image.revision": "{sha40()}", "org.opencontainers.image.version": "1.4.2"}}')),
    ("docker_history_plain", "log", lambda: pick(
        f"<missing>      5 weeks ago   ENV GPG_KEY={rnd(40, '0123456789ABCDEF')}   0B   buildkit.dockerfile.v0",
        f"<missing>      5 weeks ago   ENV PYTHON_SHA256={rnd(64, LOWER_HEX)}   0B",
        f"<missing>      2 weeks ago   RUN |1 APP_VERSION=1.{n(1, 9)}.{n(0, 20)} /bin/sh -c pip install -r requirements.txt   {n(10, 300)}MB",
        f"{rnd(12, LOWER_HEX)}   2 days ago    COPY dir:{rnd(64, LOWER_HEX)} in /app   12.3MB")),
    ("kubectl_describe_secret", "log", lambda: pick(
        f"Name:         db-credentials\nNamespace:    prod\nType:  Opaque\n\nData\n====\npassword:  {n(8, 40)} bytes\nusername:  {n(3, 9)} bytes",
        f"Type:  kubernetes.io/dockerconfigjson\n\nData\n====\n.dockerconfigjson:  {n(100, 400)} bytes",
        f"Type:  kubernetes.io/service-account-token\n\nData\n====\nca.crt:     1099 bytes\nnamespace:  7 bytes\ntoken:      {n(800, 1200)} bytes")),
    ("kubectl_env_references", "log", lambda: pick(
        "    Environment:\n      DB_PASSWORD:  <set to the key 'password' in secret 'db-credentials'>  Optional: false",
        "    Environment:\n      API_TOKEN:    <set to the key 'token' in secret 'api'>  Optional: false\n      LOG_LEVEL:    info",
        "    Environment Variables from:\n      app-secrets  Secret     Optional: false\n      app-config   ConfigMap  Optional: false",
        "      SMTP_PASSWORD:  <set to the key 'smtp' of config map 'mail'>  Optional: true")),
    ("kubectl_config_view", "log", lambda: pick(
        "- cluster:\n    certificate-authority-data: DATA+OMITTED\n    server: https://10.0.0.1:6443\n  name: prod",
        "- name: admin\n  user:\n    client-certificate-data: DATA+OMITTED\n    client-key-data: DATA+OMITTED",
        "- name: ci\n  user:\n    token: REDACTED",
        "users:\n- name: oidc\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: kubelogin")),
    ("helm_values_references", "log", lambda: pick(
        "USER-SUPPLIED VALUES:\npostgresql:\n  auth:\n    existingSecret: db-credentials\n    secretKeys:\n      adminPasswordKey: postgres-password",
        "USER-SUPPLIED VALUES:\nredis:\n  auth:\n    enabled: false\n    password: \"\"",
        "stripe:\n  secretKeyRef:\n    name: stripe\n    key: secret-key")),
    ("terraform_plan_sensitive", "log", lambda: pick(
        '      + password = (sensitive value)\n      + username = "app"',
        '      ~ master_password = (sensitive value)',
        '      + secret  = (sensitive value)\n      + id      = (known after apply)',
        '  # random_password.db will be created\n  + resource "random_password" "db" {\n      + result = (sensitive value)\n      + length = 32',
        '          ~ "token" = (sensitive value)')),
    ("terraform_output_sensitive", "log", lambda: pick(
        "db_password = <sensitive>\nendpoint = \"db.internal:5432\"",
        '{"db_password":{"sensitive":true,"type":"string"},"region":{"sensitive":false,"type":"string","value":"eu-west-1"}}',
        "api_token = <sensitive>",
        f'kms_key_id = "arn:aws:kms:eu-west-1:{n(100000000000, 999999999999)}:key/{uuid()}"')),
    ("terraform_state_ids", "log", lambda: pick(
        f'    id                   = "i-0{rnd(16, LOWER_HEX)}"\n    ami                  = "ami-0{rnd(16, LOWER_HEX)}"',
        f'    id            = "{uuid()}"\n    etag          = "{rnd(32, LOWER_HEX)}"',
        f'    key_id        = "{uuid()}"\n    key_usage     = "ENCRYPT_DECRYPT"',
        f'    secret_string = (sensitive value)\n    version_id    = "{uuid()}"')),
    ("pulumi_secrets_masked", "log", lambda: pick(
        "KEY                    VALUE\naws:region             us-east-1\nshop:dbPassword        [secret]",
        "Current stack outputs (2):\n    OUTPUT          VALUE\n    apiKey          [secret]\n    url             https://shop.example.com",
        "    + password: [secret]")),
    ("vault_token_metadata", "log", lambda: pick(
        f"Key                  Value\n---                  -----\naccessor             {rnd(24)}\ncreation_ttl         768h\npolicies             [default ci]",
        f"token_accessor       {rnd(24)}\ntoken_duration       768h\ntoken_renewable      true\ntoken_policies       [\"default\"]",
        f"entity_id            {uuid()}\nidentity_policies    []")),
    ("aws_configure_list_masked", "log", lambda: pick(
        "      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n"
        f"   profile                <not set>             None    None\naccess_key     ****************{rnd(4, UPPER + '0123456789')} shared-credentials-file\n"
        f"secret_key     ****************{rnd(4, ALNUM)} shared-credentials-file\n    region                eu-west-1      config-file    ~/.aws/config",
        "$ aws configure get region\neu-west-1",
        f'{{"UserId": "AIDA{rnd(17, UPPER + "234567")}", "Account": "{n(100000000000, 999999999999)}", "Arn": "arn:aws:iam::123456789012:user/ci"}}')),
    ("gh_auth_status_masked", "log", lambda: pick(
        "github.com\n  ✓ Logged in to github.com account octocat (keyring)\n  - Active account: true\n  - Git operations protocol: https\n"
        "  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo'",
        "github.com\n  X Failed to log in to github.com using token (GH_TOKEN)\n  - The token in GH_TOKEN is invalid.",
        "  - Token: ghp_************************************")),
    ("npm_config_protected", "log", lambda: pick(
        '; "user" config from /home/app/.npmrc\n\n//registry.npmjs.org/:_authToken = (protected)\nregistry = "https://registry.npmjs.org/"',
        "; node bin location = /usr/local/bin/node\n; node version = v20.11.1\n; npm local prefix = /app",
        '$ npm config get registry\nhttps://registry.npmjs.org/',
        "npmAuthToken: ********\nnpmRegistryServer: \"https://registry.yarnpkg.com\"")),
    ("pip_git_config_plain", "log", lambda: pick(
        "global.index-url='https://pypi.corp.example/simple'\nglobal.trusted-host='pypi.corp.example'",
        f"core.repositoryformatversion=0\nremote.origin.url=git@github.com:corp/api.git\nuser.signingkey={rnd(16, '0123456789ABCDEF')}",
        "credential.helper=osxkeychain\nhttp.https://github.com/.extraheader=AUTHORIZATION: basic ***",
        'http-basic.corp.username = "deploy"\nvirtualenvs.in-project = true',
        "[http-basic.repo.packagist.com.username] token\n[process-timeout] 300")),
    ("ci_masked_output", "log", lambda: pick(
        f"{ts()} + curl -sSf -H 'PRIVATE-TOKEN: ***' https://gitlab.corp.example/api/v4/projects/{n()}",
        f"{ts()} env:\n{ts()}   DEPLOY_KEY: ***\n{ts()}   AWS_REGION: us-east-1",
        "$ echo $CI_REGISTRY_PASSWORD\n[MASKED]",
        "[Pipeline] withCredentials\nMasking supported pattern matches of $NEXUS_PASS\n[Pipeline] sh\n+ mvn -Dnexus.pass=**** deploy",
        "+ docker login -u ci --password-stdin registry.corp.example\nLogin Succeeded")),
    ("ci_commit_and_cache_lines", "log", lambda: pick(
        f"HEAD is now at {rnd(7, LOWER_HEX)} Merge pull request #{n()} from corp/fix",
        f"{ts()} Checking out the ref\n{ts()} /usr/bin/git checkout --progress --force -B main refs/remotes/origin/main\n{ts()} Switched to a new branch 'main'",
        f"GITHUB_SHA={sha40()}\nGITHUB_RUN_ID={n(1000000000, 9999999999)}",
        f"Received {n(1000000, 9999999)} of {n(10000000, 99999999)} (21.3%), 5.1 MBs/sec",
        f"Restored cache key: node-modules-{rnd(64, LOWER_HEX)}")),
    ("http_debug_redacted", "log", lambda: pick(
        f"I/okhttp.OkHttpClient: --> GET https://api.example.com{url_path()}\nI/okhttp.OkHttpClient: Authorization: ██\nI/okhttp.OkHttpClient: --> END GET",
        "trce: System.Net.Http.HttpClient.Default.ClientHandler[102]\n      Request Headers:\n      Authorization: *\n      Accept: application/json",
        "[OrdersClient#list] ---> GET https://orders.internal/v1/orders HTTP/1.1\n[OrdersClient#list] Authorization: [REDACTED]",
        "-> Authorization: ***\n-> Accept: application/json",
        "DEBUG -- request: Authorization: \"<redacted>\"")),
    ("http_debug_plain_headers", "log", lambda: pick(
        f"[OrdersClient#get] <--- HTTP/1.1 200 OK ({n()}ms)\n[OrdersClient#get] x-request-id: {uuid()}\n[OrdersClient#get] etag: W/\"{rnd(32, LOWER_HEX)}\"",
        f"D/OkHttp: <-- 200 https://api.example.com/v1/me ({n()}ms)\nD/OkHttp: traceparent: 00-{rnd(32, LOWER_HEX)}-{rnd(16, LOWER_HEX)}-01",
        f"GET /v1/sys/health HTTP/1.1\r\nHost: vault.internal:8200\r\nUser-Agent: Go-http-client/1.1\r\nX-Request-Id: {uuid()}\r\n",
        f"I1203 10:00:00.123456   42 chttp2_transport.cc:12] HTTP:1:HDR:CLI: grpc-trace-bin: {rnd(40, ALNUM)}",
        f"D1203 10:00:00.123456 7 parsing.cc:1] HTTP:1:HDR:CLI: x-goog-request-params: name=projects/acme-{n()}/secrets/db-password")),
    ("spring_form_no_secret", "log", lambda: pick(
        "DEBUG o.s.web.client.RestTemplate : Writing [{grant_type=[client_credentials], scope=[orders.read]}] as \"application/x-www-form-urlencoded\"",
        "DEBUG o.s.web.client.RestTemplate : HTTP POST https://auth.example.com/oauth/token\nDEBUG o.s.web.client.RestTemplate : Response 200 OK",
        "DEBUG o.s.w.r.f.client.ExchangeFunctions : [6f1c2a] HTTP POST https://login.example.com/token, body={grant_type=[refresh_token], client_id=[web]}")),
    ("hikari_config_masked", "log", lambda: pick(
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('password')}<masked>",
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('jdbcUrl')}jdbc:postgresql://{host()}:5432/app",
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('username')}\"{user()}\"",
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('dataSourceProperties')}{{password=<masked>}}",
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('maximumPoolSize')}{n(5, 50)}")),
    ("orm_params_not_secret", "log", lambda: pick(
        f'Executing (default): SELECT "id", "email" FROM "users" AS "User" WHERE "User"."id" = $1; {n()}',
        f'query: SELECT "user"."id" FROM "user" WHERE "user"."login" = $1 -- PARAMETERS: ["{user()}"]',
        f'  User Load (0.3ms)  SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2  [["id", {n()}], ["LIMIT", 1]]',
        '[debug] QUERY OK source="orders" db=0.4ms\nSELECT o0."id" FROM "orders" AS o0 WHERE (o0."state" = $1) ["pending"]',
        f"Mongoose: sessions.find({{ userId: ObjectId(\"{rnd(24, LOWER_HEX)}\") }}, {{ projection: {{ token: 0 }} }})",
        f"TRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [1] as [BIGINT] - [{n()}]")),
    ("orm_filtered_params", "log", lambda: pick(
        '  User Update (0.4ms)  UPDATE "users" SET "password_digest" = $1 WHERE "users"."id" = $2  [["password_digest", "[FILTERED]"], ["id", 7]]',
        'Parameters: {"user"=>{"login"=>"alice", "password"=>"[FILTERED]"}}',
        '[info] Parameters: %{"password" => "[FILTERED]", "username" => "alice"}',
        f"(0.001) SELECT \"authtoken_token\".\"key\" FROM \"authtoken_token\" WHERE \"authtoken_token\".\"user_id\" = {n()} LIMIT 21; args=({n()},); alias=default")),
    ("driver_masked_conninfo", "log", lambda: pick(
        f"failed to connect to `host={host()} user={user()} database=app`: server error (FATAL: password authentication failed for user \"{user()}\" (SQLSTATE 28P01))",
        "MongoCredential{mechanism=SCRAM-SHA-256, userName='app', source='admin', password=<hidden>, mechanismProperties=<hidden>}",
        f"Engine(postgresql+psycopg://{user()}:***@{host()}:5432/app)",
        f"cannot parse `host={host()} user={user()} password=xxxxx`: failed to parse as keyword/value (invalid keyword/value)")),
    ("dsn_without_password", "log", lambda: pick(
        f"DATABASE_URL=postgresql://{user()}@{host()}:5432/app",
        f"DEBUG com.zaxxer.hikari.HikariConfig - {dots('jdbcUrl')}jdbc:mysql://{host()}:3306/app?user={user()}&useSSL=true",
        "MONGODB_URI=mongodb://db1.internal,db2.internal/?replicaSet=rs0&authSource=admin",
        f"global.index-url='https://{user()}@pypi.corp.example/simple'",
        "GOPROXY='https://goproxy.corp.example,direct'")),
    ("getter_output_not_secret", "log", lambda: pick(
        "$ gcloud config get-value project\nacme-prod-4821",
        f"$ kubectl get secret db -o jsonpath='{{.metadata.resourceVersion}}'\n{n(10000, 99999)}",
        "$ gh auth status --hostname github.com\ngithub.com\n  ✓ Logged in to github.com account octocat (keyring)",
        f"$ git rev-parse HEAD\n{sha40()}",
        f"$ aws sts get-caller-identity --query Account --output text\n{n(100000000000, 999999999999)}")),
    ("docker_compose_plain", "log", lambda: pick(
        "services:\n  api:\n    environment:\n      LOG_LEVEL: info\n      DB_PASSWORD_FILE: /run/secrets/db_password\n    secrets:\n      - db_password",
        "secrets:\n  db_password:\n    file: ./secrets/db_password.txt",
        "services:\n  db:\n    environment:\n      POSTGRES_HOST_AUTH_METHOD: trust\n      POSTGRES_DB: app")),
    ("powershell_env_plain", "log", lambda: pick(
        "Name                           Value\n----                           -----\nALLUSERSPROFILE                C:\\ProgramData\n"
        f"COMPUTERNAME                   BUILD-{n()}\nPROCESSOR_IDENTIFIER           Intel64 Family 6 Model 85 Stepping 7",
        f"Name                           Value\n----                           -----\nBUILD_SOURCEVERSION            {sha40()}\nAGENT_ID                       {n()}")),
]


def toolout() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_23)
    return heldout._records(SECRETS, BENIGN, 4, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = toolout()
    heldout._write(HERE / "toolout_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "toolout_benign.jsonl.gz", benign_rows)
    print(f"toolout: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
