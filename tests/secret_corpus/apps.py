"""A thirty-first held-out set: what application frameworks, self-hosted apps and devices keep and print.

    python -m tests.secret_corpus.apps   # rewrites apps_*.jsonl.gz here

An MCP tool that reads a project or a host often quotes one of its config or state files in an error ("could not
parse config/database.yml line 12: ..."), or the file itself when asked to. Each framework keeps its credentials in
its own file and syntax: WordPress ``wp-config.php`` (``define('DB_PASSWORD', ..)`` and the eight salts), Laravel
``.env`` and ``config/*.php`` arrays (``env('X', 'default')``), Rails ``database.yml`` (with ERB) and decrypted
``credentials.yml``, Django ``settings.py``, Spring ``application.yml``/``.properties`` with ``${VAR:default}``,
ASP.NET ``appsettings.json`` and ``web.config`` (``<add key value>``, connection strings), Symfony ``.env``, Phoenix
``config/runtime.exs``, Streamlit ``secrets.toml``, Airflow connection URIs and ``AIRFLOW__SECTION__KEY``
variables, ``terraform.tfstate`` resource attributes, Pulumi stack files with a value set without ``--secret``,
Home Assistant ``secrets.yaml`` and long-lived tokens, camera stream URLs, MQTT brokers and device firmware configs
(mosquitto, zigbee2mqtt, Tasmota, ESPHome), crontab lines, Jupyter server configs and URLs, Grafana/Gitea/Nextcloud
server configs, Android ``gradle.properties``/``build.gradle`` signing passwords. Written from the frameworks' own
documented file formats before reading the rules.

Benign: the same files with nothing secret: environment references (``env('DB_PASSWORD')``, ``${DB_PASSWORD}``,
``ENV.fetch("SECRET_KEY_BASE")``, ``System.get_env``, ``!secret name``, ``%env(APP_SECRET)%``,
``$__env{..}``), empty values, the frameworks' shipped placeholders (``put your unique phrase here``,
``!ChangeMe!``, ``changeme`` in a comment), Pulumi ``secure:`` ciphertext, tfstate ``sensitive_attributes`` lists and
ARNs, public keys, asset hashes and integrity digests, version pins, and settings named after credentials that hold
none (``token_ttl``, ``password_min_length: 12``).

**Pulumi ``secure:`` values are benign here, on purpose.** ``pulumi config set --secret`` stores the value encrypted
with the stack's key (``v1:<nonce>:<ciphertext>`` for a passphrase or cloud KMS provider, ``AAABA..`` for the Pulumi
service), and Pulumi's docs tell users to commit ``Pulumi.<stack>.yaml``: the ciphertext is meant to be public, and
reading it needs the stack's key, which is never in that file. Masking it costs a reader the one thing that says
*this value is kept as a secret*; the plaintext value under the same key (set without ``--secret``) is the leak.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``). 20 secret formats x 8 and 20 benign categories x 5.
``tests/test_scrub_apps.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: apps() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt() -> str:
    """A JWT whose signature holds FAKE (Home Assistant's long-lived tokens are HS256 JWTs)."""
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64url(json.dumps({"iss": hx(32), "iat": _r.randint(1700000000, 1760000000), "exp": _r.randint(2000000000, 2100000000)}).encode())
    return f"{head}.{body}.{rnd(20, B64URL)}FAKE{rnd(19, B64URL)}"


def opaque() -> str:
    return pick(
        "FAKE" + rnd(36), rnd(20) + "FAKE" + rnd(12), "sk_live_FAKE" + rnd(44), "sk-proj-FAKE" + rnd(44, B64URL),
        "FAKE" + hx(36), "SG.FAKE" + rnd(18, B64URL) + "." + rnd(43, B64URL), "xoxb-" + str(_r.randint(10**10, 10**11)) + "-FAKE" + rnd(20),
    )


def secret() -> str:
    """Half human passwords marked fake, half generated tokens."""
    return fpw() if _r.random() < 0.5 else opaque()


def salt64() -> str:
    """A WordPress salt as api.wordpress.org/secret-key/1.1/salt/ deals them: 64 printable characters, no quote or
    backslash."""
    alphabet = ALNUM + "!#$%&()*+,-./:;<=>?@[]^_`{|}~ "
    body = "".join(_r.choice(alphabet) for _ in range(60))
    at = _r.randint(0, 60)
    return body[:at] + "FAKE" + body[at:]


def django_key() -> str:
    """Django's ``get_random_secret_key()``: 50 characters of a-z, 0-9 and ``!@#$%^&*(-_=+)``."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
    return pick("django-insecure-", "") + "FAKE" + "".join(_r.choice(alphabet) for _ in range(46))


def app_key() -> str:
    """Laravel's ``php artisan key:generate``: base64 of 32 random bytes."""
    return "base64:" + base64.b64encode(b"FAKE" + _r.randbytes(28)).decode()


def key_base() -> str:
    """Rails' ``secret_key_base``: 128 hex digits."""
    return "FAKE" + hx(124)


def ident() -> str:
    return pick("app", "deploy", "wp_user", "laravel", "rails", "django", "svc_orders", "airflow", "grafana", "nextcloud")


def ip() -> str:
    return f"192.168.{_r.randint(0, 9)}.{_r.randint(2, 250)}"


def akid() -> str:
    return "AKIAFAKE" + rnd(12, UPPER_ALNUM)


def aws_secret() -> str:
    return "FAKE" + rnd(36, ALNUM + "/+")


def fernet() -> str:
    return base64.urlsafe_b64encode(b"FAKE" + _r.randbytes(28)).decode()


# --- secret formats: each an app's file or printout, 8 instances ---------------------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("wordpress_wp_config", "config", one(lambda: pick(fpw(), salt64(), salt64()),
        lambda s: f"/** Database password */\ndefine( 'DB_PASSWORD', '{s}' );",
        lambda s: f"define('AUTH_KEY',         '{s}');",
        lambda s: f"define( 'SECURE_AUTH_SALT', '{s}' );",
        lambda s: f"PHP Warning:  Constant NONCE_KEY already defined in /var/www/html/wp-config.php on line 58\ndefine( 'NONCE_KEY',        '{s}' );")),
    ("laravel_env_and_config", "config", one(lambda: pick(fpw(), app_key(), opaque()),
        lambda s: f"APP_NAME=Laravel\nAPP_ENV=production\nAPP_KEY={s}\nAPP_DEBUG=false",
        lambda s: f"DB_CONNECTION=mysql\nDB_HOST=127.0.0.1\nDB_PORT=3306\nDB_DATABASE=laravel\nDB_USERNAME={ident()}\nDB_PASSWORD={s}",
        lambda s: f"        'mysql' => [\n            'driver' => 'mysql',\n            'username' => env('DB_USERNAME', 'forge'),\n            'password' => env('DB_PASSWORD', '{s}'),",
        lambda s: f"    'stripe' => [\n        'key' => env('STRIPE_KEY'),\n        'secret' => '{s}',\n    ],",
        lambda s: f"MAIL_MAILER=smtp\nMAIL_HOST=smtp.mailgun.org\nMAIL_PORT=587\nMAIL_PASSWORD=\"{s}\"")),
    ("rails_database_yml", "config", one(secret,
        lambda s: f"production:\n  <<: *default\n  database: app_production\n  username: {ident()}\n  password: {s}",
        lambda s: f"production:\n  adapter: postgresql\n  url: postgres://{ident()}:{s}@db.internal:5432/app_production",
        lambda s: f"  password: <%= ENV.fetch(\"DATABASE_PASSWORD\") {{ \"{s}\" }} %>",
        lambda s: f"YAML syntax error occurred while parsing config/database.yml. Error: (<unknown>): found character that cannot start any token while scanning for the next token at line 14 column 13\n  password: {s}")),
    ("rails_credentials", "config", one(lambda: pick(key_base(), key_base(), aws_secret(), opaque()),
        lambda s: f"# aws:\n#   access_key_id: 123\naws:\n  access_key_id: {akid()}\n  secret_access_key: {s}",
        lambda s: f"secret_key_base: {s}",
        lambda s: f"stripe:\n  publishable_key: pk_live_{rnd(24)}\n  secret_key: {s}",
        lambda s: f"Rails.application.configure do\n  config.secret_key_base = \"{s}\"\nend")),
    ("django_settings", "code", one(lambda: pick(django_key(), django_key(), fpw()),
        lambda s: f"# SECURITY WARNING: keep the secret key used in production secret!\nSECRET_KEY = '{s}'",
        lambda s: f"DATABASES = {{\n    'default': {{\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'shop',\n        'USER': '{ident()}',\n        'PASSWORD': '{s}',\n        'HOST': 'db',",
        lambda s: f"EMAIL_HOST = 'smtp.sendgrid.net'\nEMAIL_HOST_USER = 'apikey'\nEMAIL_HOST_PASSWORD = '{s}'",
        lambda s: f"SECRET_KEY = os.environ.get(\"DJANGO_SECRET_KEY\", \"{s}\")")),
    ("spring_application_config", "config", one(secret,
        lambda s: f"spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/orders\n    username: {ident()}\n    password: ${{DB_PASSWORD:{s}}}",
        lambda s: f"spring.datasource.password={s}",
        lambda s: f"spring:\n  security:\n    oauth2:\n      client:\n        registration:\n          github:\n            client-id: Iv1.{hx(16)}\n            client-secret: {s}",
        lambda s: f"app:\n  jwt:\n    secret: {s}\n    expiration-ms: 86400000")),
    ("aspnet_config", "config", one(secret,
        lambda s: f"  \"ConnectionStrings\": {{\n    \"DefaultConnection\": \"Server=sql.internal;Database=Orders;User Id=sa;Password={s};TrustServerCertificate=True\"\n  }},",
        lambda s: f"    <add key=\"StripeSecretKey\" value=\"{s}\" />",
        lambda s: f"  \"AzureAd\": {{\n    \"Instance\": \"https://login.microsoftonline.com/\",\n    \"ClientId\": \"{uuid()}\",\n    \"ClientSecret\": \"{s}\"\n  }}",
        lambda s: f"  <connectionStrings>\n    <add name=\"OrdersDb\" connectionString=\"Data Source=sql01;Initial Catalog=Orders;User ID={ident()};Password={s}\" providerName=\"System.Data.SqlClient\" />")),
    ("symfony_env", "config", one(lambda: pick(hx(32), fpw(), fpw()),
        lambda s: f"###> symfony/framework-bundle ###\nAPP_ENV=prod\nAPP_SECRET={s}\n###< symfony/framework-bundle ###",
        lambda s: f"DATABASE_URL=\"mysql://{ident()}:{s}@127.0.0.1:3306/app?serverVersion=8.0.32&charset=utf8mb4\"",
        lambda s: f"MAILER_DSN=smtp://{ident()}:{s}@smtp.example.com:587",
        lambda s: f"###> lexik/jwt-authentication-bundle ###\nJWT_SECRET_KEY=%kernel.project_dir%/config/jwt/private.pem\nJWT_PASSPHRASE={s}")),
    ("phoenix_runtime_exs", "code", one(lambda: pick(rnd(64, B64), rnd(64, B64), fpw(), "sk_live_FAKE" + rnd(40)),
        lambda s: f"config :shop, ShopWeb.Endpoint,\n  url: [host: \"shop.example.com\", port: 443],\n  secret_key_base: \"{s}\"",
        lambda s: f"config :shop, Shop.Repo,\n  username: \"postgres\",\n  password: \"{s}\",\n  hostname: \"db\",\n  pool_size: 10",
        lambda s: f"config :shop, ShopWeb.Endpoint,\n  live_view: [signing_salt: \"{s}\"]",
        lambda s: f"config :stripity_stripe, api_key: \"{s}\"")),
    ("streamlit_secrets_toml", "config", one(secret,
        lambda s: f"[connections.snowflake]\naccount = \"xy12345.eu-central-1\"\nuser = \"{ident()}\"\npassword = \"{s}\"\nwarehouse = \"COMPUTE_WH\"",
        lambda s: f"OPENAI_API_KEY = \"{s}\"",
        lambda s: f"# .streamlit/secrets.toml\ndb_username = \"{ident()}\"\ndb_password = \"{s}\"",
        lambda s: f"[passwords]\n# Follow the rule: username = \"password\"\nalice_foo = \"{s}\"")),
    ("airflow_connections", "env", one(lambda: pick(fpw(), fpw(), fernet(), opaque()),
        lambda s: f"AIRFLOW_CONN_POSTGRES_DEFAULT='postgresql://{ident()}:{s}@pg.internal:5432/analytics'",
        lambda s: f"AIRFLOW__CORE__FERNET_KEY={s}",
        lambda s: f"AIRFLOW__WEBSERVER__SECRET_KEY={s}",
        lambda s: f"airflow connections add 'warehouse' --conn-type 'postgres' --conn-host 'wh.internal' --conn-login '{ident()}' --conn-password '{s}' --conn-port 5432")),
    ("terraform_tfstate", "json", one(lambda: pick(fpw(), opaque(), aws_secret()),
        lambda s: f"          \"attributes\": {{\n            \"allocated_storage\": 20,\n            \"engine\": \"postgres\",\n            \"password\": \"{s}\",\n            \"username\": \"{ident()}\",",
        lambda s: f"            \"master_password\": \"{s}\",",
        lambda s: f"          \"attributes\": {{\n            \"id\": \"{akid()}\",\n            \"secret\": \"{s}\",\n            \"ses_smtp_password_v4\": \"B{rnd(43, B64)}\",",
        lambda s: f"            \"administrator_login\": \"sqladmin\",\n            \"administrator_login_password\": \"{s}\",")),
    ("pulumi_plaintext_config", "config", one(secret,
        lambda s: f"config:\n  aws:region: eu-west-1\n  shop:dbPassword: {s}",
        lambda s: f"config:\n  shop:stripeSecretKey: {s}\n  shop:replicas: \"3\"",
        lambda s: f"  gcp:project: acme-prod\n  shop:apiToken: {s}",
        lambda s: f"  cloudflare:apiToken: {s}")),
    ("home_assistant", "config", one(lambda: pick(jwt(), jwt(), fpw(), opaque()),
        lambda s: f"# secrets.yaml\nmqtt_password: {s}",
        lambda s: f"rest_command:\n  notify_hub:\n    url: http://{ip()}:8123/api/services/notify/mobile\n    headers:\n      authorization: \"Bearer {s}\"",
        lambda s: f"ha_long_lived_token: \"{s}\"",
        lambda s: f"2025-12-04 10:11:12.345 ERROR (MainThread) [homeassistant.components.http.ban] Login attempt or request with invalid authentication from {ip()}. Requested URL: '/api/states?access_token={s}'")),
    ("camera_streams", "config", one(fpw,
        lambda s: f"rtsp://admin:{s}@{ip()}:554/Streaming/Channels/101",
        lambda s: f"cameras:\n  front_door:\n    ffmpeg:\n      inputs:\n        - path: rtsp://viewer:{s}@{ip()}:554/cam/realmonitor?channel=1&subtype=0",
        lambda s: f"[rtsp @ 0x55d3c8a1f2c0] method DESCRIBE failed: 401 Unauthorized\nrtsp://admin:{s}@{ip()}/h264Preview_01_main: Server returned 401 Unauthorized (authorization failed)",
        lambda s: f"go2rtc:\n  streams:\n    garage: onvif://admin:{s}@{ip()}:2020")),
    ("mqtt_device_config", "config", one(lambda: pick(fpw(), fpw(), base64.b64encode(b"FAKE" + _r.randbytes(28)).decode()),
        lambda s: f"connection bridge-01\naddress broker.example.org:8883\nremote_username {ident()}\nremote_password {s}",
        lambda s: f"mqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://{ip()}:1883\n  user: {ident()}\n  password: {s}",
        lambda s: f"ota:\n  - platform: esphome\n    password: \"{s}\"",
        lambda s: f"api:\n  encryption:\n    key: \"{s}\"",
        lambda s: f"Backlog MqttHost {ip()}; MqttUser tasmota; MqttPassword {s}; Topic kitchen_plug")),
    ("crontab_tokens", "config", one(lambda: pick(opaque(), fpw(), jwt()),
        lambda s: f"*/5 * * * * curl -fsS -H \"Authorization: Bearer {s}\" https://api.example.com/v1/heartbeat > /dev/null",
        lambda s: f"0 3 * * * PGPASSWORD='{s}' pg_dump -h db.internal -U {ident()} shop | gzip > /backup/shop.sql.gz",
        lambda s: f"@daily /usr/local/bin/restic backup /srv --password '{s}'",
        lambda s: f"15 2 * * * /opt/app/bin/sync --api-token {s} --quiet")),
    ("jupyter_server", "config", one(lambda: pick("FAKE" + hx(44), "FAKE" + hx(44), opaque()),
        lambda s: f"c.ServerApp.token = '{s}'",
        lambda s: f"[I 2025-12-04 10:11:12.345 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2025-12-04 10:11:12.345 ServerApp] http://127.0.0.1:8888/lab?token={s}",
        lambda s: f"Currently running servers:\nhttp://localhost:8888/?token={s} :: /home/dev/notebooks",
        lambda s: f"c.NotebookApp.token = \"{s}\"\nc.NotebookApp.ip = \"0.0.0.0\"")),
    ("selfhosted_server_config", "config", one(lambda: pick(fpw(), opaque(), jwt(), rnd(43, B64URL)),
        lambda s: f"[security]\nadmin_user = admin\nadmin_password = {s}",
        lambda s: f"[security]\nINSTALL_LOCK = true\nSECRET_KEY = {s}\nINTERNAL_TOKEN = {jwt()}",
        lambda s: f"[database]\nDB_TYPE = postgres\nHOST = 127.0.0.1:5432\nNAME = gitea\nUSER = gitea\nPASSWD = {s}",
        lambda s: f"  'dbtype' => 'pgsql',\n  'dbname' => 'nextcloud',\n  'dbuser' => 'oc_admin',\n  'dbpassword' => '{s}',",
        lambda s: f"  'passwordsalt' => '{s}',\n  'secret' => '{rnd(48, B64)}',")),
    ("android_signing", "config", one(lambda: pick(fpw(), fpw(), "AIzaSyFAKE" + rnd(29, B64URL)),
        lambda s: f"MYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=my-key-alias\nMYAPP_UPLOAD_STORE_PASSWORD={s}",
        lambda s: f"storePassword={s}\nkeyPassword={s}\nkeyAlias=upload\nstoreFile=/home/dev/upload-keystore.jks",
        lambda s: f"    signingConfigs {{\n        release {{\n            storeFile file('release.jks')\n            storePassword '{s}'\n            keyAlias 'release'",
        lambda s: f"sdk.dir=/home/dev/Android/Sdk\nMAPS_API_KEY={s}")),
]


# --- benign categories: 5 instances each ----------------------------------------------------------------------------


def sha256() -> str:
    return hx(64)


def b64digest(n: int) -> str:
    return base64.b64encode(_r.randbytes(n)).decode()


def pulumi_cipher() -> str:
    return pick(f"v1:{b64digest(12)}:{b64digest(_r.randint(20, 40))}", "AAABA" + b64digest(_r.randint(40, 60)))


BENIGN: list[tuple[str, str, object]] = [
    ("wordpress_ordinary", "config", lambda: pick(
        "define( 'DB_NAME', 'wordpress' );", "define( 'DB_HOST', 'localhost' );",
        "define( 'AUTH_KEY',         'put your unique phrase here' );", "define( 'WP_DEBUG', false );",
        "define( 'DB_PASSWORD', getenv_docker('WORDPRESS_DB_PASSWORD', '') );", "$table_prefix = 'wp_';")),
    ("laravel_references", "config", lambda: pick(
        "            'password' => env('DB_PASSWORD', ''),", "DB_PASSWORD=", "APP_KEY=",
        "    'key' => env('APP_KEY'),\n    'cipher' => 'AES-256-CBC',", "SESSION_LIFETIME=120\nMAIL_PASSWORD=null",
        "        'secret' => env('STRIPE_SECRET'),")),
    ("rails_references", "config", lambda: pick(
        "  password: <%= ENV[\"DATABASE_PASSWORD\"] %>", "secret_key_base: <%= ENV.fetch(\"SECRET_KEY_BASE\") %>",
        "  pool: <%= ENV.fetch(\"RAILS_MAX_THREADS\") { 5 } %>", "  config.require_master_key = true",
        "default: &default\n  adapter: postgresql\n  encoding: unicode")),
    ("django_references", "code", lambda: pick(
        "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]", "        'PASSWORD': os.getenv('POSTGRES_PASSWORD'),",
        "    {'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator', 'OPTIONS': {'min_length': 12}},",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']", "SESSION_COOKIE_AGE = 1209600",
        "SECRET_KEY = env('SECRET_KEY')")),
    ("spring_placeholders", "config", lambda: pick(
        "    password: ${DB_PASSWORD}", "            client-secret: ${OAUTH_CLIENT_SECRET:}",
        "spring.datasource.password=${SPRING_DATASOURCE_PASSWORD}", "app:\n  jwt:\n    expiration-ms: 86400000",
        "server.servlet.session.timeout=30m\nsecurity.token-validity-seconds=3600")),
    ("aspnet_ordinary", "config", lambda: pick(
        "    \"DefaultConnection\": \"Server=(localdb)\\\\mssqllocaldb;Database=App;Trusted_Connection=True;MultipleActiveResultSets=true\"",
        "    <add key=\"webpages:Version\" value=\"3.0.0.0\" />", "    \"ClientSecret\": \"\"",
        "  \"Logging\": {\n    \"LogLevel\": {\n      \"Default\": \"Information\"\n    }\n  },",
        "    <add key=\"ClientValidationEnabled\" value=\"true\" />")),
    ("symfony_ordinary", "config", lambda: pick(
        "APP_ENV=prod", "DATABASE_URL=\"postgresql://app:!ChangeMe!@127.0.0.1:5432/app?serverVersion=16&charset=utf8\"",
        "framework:\n    secret: '%env(APP_SECRET)%'", "MESSENGER_TRANSPORT_DSN=doctrine://default?auto_setup=0",
        "MAILER_DSN=null://null")),
    ("phoenix_references", "code", lambda: pick(
        "  secret_key_base =\n    System.get_env(\"SECRET_KEY_BASE\") ||\n      raise \"environment variable SECRET_KEY_BASE is missing.\"",
        "config :shop, ShopWeb.Endpoint, url: [host: \"shop.example.com\", port: 443]",
        "  pool_size: String.to_integer(System.get_env(\"POOL_SIZE\") || \"10\")", "  password: System.fetch_env!(\"DB_PASSWORD\"),",
        "config :shop, Shop.Repo, username: System.get_env(\"PGUSER\"), hostname: \"localhost\", pool_size: 10")),
    ("streamlit_ordinary", "config", lambda: pick(
        "[server]\nport = 8501\nheadless = true", "[theme]\nprimaryColor = \"#F63366\"",
        "# .streamlit/secrets.toml (not committed)\n# db_password = \"your-password-here\"",
        "password = st.secrets[\"db_password\"]", "[connections.postgresql]\ndialect = \"postgresql\"\nhost = \"localhost\"\nport = \"5432\"")),
    ("airflow_ordinary", "env", lambda: pick(
        "AIRFLOW__CORE__EXECUTOR=CeleryExecutor", "AIRFLOW_CONN_HTTP_DEFAULT='http://api.example.com'",
        "AIRFLOW__CORE__FERNET_KEY_CMD=cat /run/secrets/fernet_key",
        "AIRFLOW__SECRETS__BACKEND=airflow.providers.hashicorp.secrets.vault.VaultBackend",
        "AIRFLOW__WEBSERVER__SECRET_KEY_SECRET=airflow/config/webserver_secret_key")),
    ("tfstate_ordinary", "json", lambda: pick(
        "          \"sensitive_attributes\": [\n            [\n              {\n                \"type\": \"get_attr\",\n                \"value\": \"password\"\n              }\n            ]\n          ],",
        f"  \"serial\": {_r.randint(3, 400)},\n  \"lineage\": \"{uuid()}\",",
        f"            \"arn\": \"arn:aws:secretsmanager:eu-west-1:{_r.randint(10**11, 10**12)}:secret:prod/db-{rnd(6)}\",",
        "            \"password_wo_version\": 1,", f"            \"id\": \"terraform-{_r.randint(10**25, 10**26)}\",")),
    ("pulumi_secure_values", "config", lambda: pick(
        f"config:\n  shop:dbPassword:\n    secure: {pulumi_cipher()}", f"encryptionsalt: v1:{b64digest(8)}:v1:{b64digest(12)}:{b64digest(24)}",
        "config:\n  aws:region: us-east-1", "secretsprovider: awskms://alias/pulumi-stacks?region=us-east-1",
        f"  shop:stripeSecretKey:\n    secure: {pulumi_cipher()}")),
    ("home_assistant_references", "config", lambda: pick(
        "  password: !secret mqtt_password", "http:\n  server_port: 8123\n  use_x_forwarded_for: true",
        "homeassistant:\n  name: Home\n  latitude: 52.3731\n  unit_system: metric", "    token: !secret ha_token",
        "# secrets.yaml\n# mqtt_password: changeme  # replace before first start")),
    ("camera_ordinary", "config", lambda: pick(
        f"rtsp://{ip()}:554/Streaming/Channels/101", f"        - path: rtsp://admin:{{FRIGATE_RTSP_PASSWORD}}@{ip()}:554/cam/realmonitor?channel=1&subtype=0",
        f"ffmpeg -rtsp_transport tcp -i rtsp://{ip()}/live -c copy out.mp4",
        "[rtsp @ 0x55d3c8a1f2c0] method DESCRIBE failed: 401 Unauthorized", "    detect:\n      width: 1280\n      height: 720\n      fps: 5")),
    ("mqtt_ordinary", "config", lambda: pick(
        "listener 1883\nallow_anonymous false", "password_file /etc/mosquitto/passwd", "mqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://localhost",
        "  password: '!secret mqtt_password'", "ota:\n  - platform: esphome\n    password: !secret ota_password")),
    ("cron_ordinary", "config", lambda: pick(
        "0 3 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1", "MAILTO=\"\"", "0 4 * * * certbot renew --quiet",
        "@reboot PGPASSFILE=/root/.pgpass pg_dump -h db.internal -U app shop > /backup/boot.sql",
        "15 2 * * * . /etc/app/env && /opt/app/bin/rotate-token --ttl 3600")),
    ("jupyter_ordinary", "config", lambda: pick(
        "c.ServerApp.token = ''", "c.ServerApp.ip = '0.0.0.0'\nc.ServerApp.open_browser = False", "c.ServerApp.password_required = False",
        "[I 2025-12-04 10:11:12.345 ServerApp] Jupyter Server 2.14.2 is running at:", "c.ServerApp.token = os.environ.get(\"JUPYTER_TOKEN\", \"\")")),
    ("selfhosted_ordinary", "config", lambda: pick(
        "[security]\nadmin_user = admin\nadmin_password = $__env{GF_SECURITY_ADMIN_PASSWORD}", "[server]\nHTTP_PORT = 3000\nROOT_URL = https://git.example.com/",
        "  'trusted_domains' =>\n  array (\n    0 => 'cloud.example.com',\n  ),", "  'version' => '29.0.4.1',",
        "[security]\nINSTALL_LOCK = true\nMIN_PASSWORD_LENGTH = 12\nPASSWORD_COMPLEXITY = lower,upper,digit")),
    ("android_ordinary", "config", lambda: pick(
        "sdk.dir=/home/dev/Android/Sdk", "org.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8\nandroid.useAndroidX=true",
        "            storePassword System.getenv(\"KEYSTORE_PASSWORD\")", "keyAlias=upload\nstoreFile=upload-keystore.jks",
        "            keyPassword keystoreProperties['keyPassword']")),
    ("knobs_hashes_and_public_keys", "config", lambda: pick(
        "token_ttl: 3600", "password_min_length: 12", f"  \"integrity\": \"sha384-{b64digest(48)}\"",
        f"<script src=\"/assets/application-{sha256()}.js\" defer></script>", "\"laravel/framework\": \"^11.9\",",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64digest(32)[:43]} deploy@ci", "session_secret_rotation_days: 30")),
]


def apps() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_31)
    return heldout._records(SECRETS, BENIGN, 8, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = apps()
    heldout._write(HERE / "apps_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "apps_benign.jsonl.gz", benign_rows)
    print(f"apps: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
