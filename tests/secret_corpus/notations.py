"""A twenty-ninth held-out set: secrets in the notations the other sets do not write them in.

    python -m tests.secret_corpus.notations   # rewrites notations_*.jsonl.gz here

The other sets hold credentials as JSON, YAML, INI/TOML, properties, env files, HCL, the mainstream languages' source
and debug printers, command lines and credential files. An MCP server that reads a repository, a dotfile, a build or a
legacy system quotes config and source in many more notations, and each puts something of its own between a key and
its value. Written from the languages' and formats' own grammars before reading the rules (grepped first in every
generator: ``{:password``, ``setq``, ``dhall``, ``jsonnet``, ``HOCON``, ``KDL``, ``Starlark``, ``Pkl``, ``libconfig``,
``json5``, ``(def ``, ``Prolog``, ``Smalltalk``, ``PIC X``, ``As String``, ``?=``, ``<entry key=`` appear in none).
Kinds (each a family of formats):

- Lisp-family maps and assignments: EDN and Clojure keyword maps (``{:db/password "..."}``), ``(def api-token ..)``,
  Emacs Lisp ``setq``/``customize-set-variable``, property lists (``:password "..."``) and association lists
  (``("password" . "...")``), Erlang tuples and maps (``{password, <<"...">>}``, ``#{api_key => ..}``), Prolog facts;
- configuration languages: Nix attribute sets (``admin_password = "...";``), Dhall records and ``Some``, Jsonnet
  hidden and merged fields (``apiKey:: '..'``, ``password+: '..'``), HOCON (unquoted and triple-quoted values), KDL
  nodes (``password "..."``, ``password=".."`` properties, raw strings), RON (``password: Some("..")``), JSON5 and
  Hjson (unquoted keys, single quotes, quote-less values), NeXTSTEP plists, ``defaults read`` and libconfig
  (``apiToken = ..;``), Windows ``.reg`` exports, Java's ``Properties`` XML and ``<property name= value=>``;
- declarations with something between the name and the value: a type (``val apiKey: String = ..``, ``Const API_KEY As
  String = ..``, ``Password : constant String := ..``, COBOL's ``PIC X(20) VALUE``, Fortran's ``parameter ::``), an
  operator other than ``=`` (Makefile ``?=``/``:=``/``::=``, R's ``<-``, Tcl's ``set``), Lua's long brackets
  (``[[..]]``, ``[==[..]==]``), records as Haskell, OCaml and F# print them;
- calls that hand a value over: Java/Kotlin builders (``.apiKey("..")``), setters, Groovy's command syntax
  (``password '..'``), Smalltalk keyword messages, Objective-C ``setApiKey:@".."``.

Benign: the same notations' shapes that hold no secret, each category saying why: environment and file references
(``#env``, ``${?X}``, ``builtins.getEnv``, ``std.extVar``, ``passwordFile``), nil/null/None/empty, declarations
without a value and type signatures, policy settings under secret words, function names and keyword accesses,
masks and placeholders, Nix store paths and SRI hashes, commit revisions, UUIDs, public keys, base64 images, token
counts, versions, booleans, credential-free URLs, secret names and vault paths, comments about secrets, builders
handed an environment variable.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). No benign line holds an e-mail address. 25 secret formats x 8 and 30 benign categories x 5.
``tests/test_scrub_notations.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, HERE, HEX, LOWER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: notations() seeds it

NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def tok() -> str:
    """A generated credential: a random token, sometimes with a vendor-neutral prefix."""
    return pick(rnd(32), rnd(40), "FAKE" + rnd(28), rnd(24, LOWER_ALNUM) + rnd(8), hx(40))


def secret() -> str:
    """Half human passwords marked fake, half generated tokens."""
    return fpw() if _r.random() < 0.5 else tok()


def ident() -> str:
    return pick("app", "svc-orders", "reporting", "deploy", "grafana", "etl")


def nixhash() -> str:
    return "sha256-" + base64.b64encode(_r.randbytes(32)).decode()


def _masked() -> str:
    return pick("[REDACTED]", "***", "********", "<redacted>", "xxxxxxxx", "(hidden)")


def _placeholder() -> str:
    return pick("<your-api-key>", "YOUR_API_KEY", "REPLACE_ME", "...", "<password>", "TODO")


# --- secret formats: each a kind, 8 instances ------------------------------------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    # Lisp-family maps and assignments
    ("edn_keyword_map", "config", one(secret,
        lambda s: f'{{:db {{:host "db.internal" :port 5432 :user "{ident()}" :password "{s}"}}}}',
        lambda s: f'{{:openai/api-key "{s}" :openai/model "gpt-4o"}}',
        lambda s: f'clojure.lang.ExceptionInfo: connect failed {{:dbtype "postgresql", :dbname "orders", :user "{ident()}", :password "{s}"}}',
        lambda s: f':app/stripe {{:secret-key "{s}" :webhook-path "/hooks/stripe"}}')),
    ("clojure_def", "source", one(secret,
        lambda s: f'(def ^:private api-token "{s}")',
        lambda s: f'(defonce secret-key "{s}")',
        lambda s: f'  12: (def db-password "{s}")\n  13: (def db-spec {{:dbtype "mysql" :dbname "shop"}})',
        lambda s: f'(let [client-secret "{s}"] (oauth/exchange code client-secret))')),
    ("elisp_setq", "source", one(secret,
        lambda s: f'(setq gptel-api-key "{s}")',
        lambda s: f"(setq-default smtpmail-auth-password \"{s}\")",
        lambda s: f"(customize-set-variable 'jiralib-token \"{s}\")",
        lambda s: f'(setq org-gcal-client-id "{_r.randint(10**11, 10**12)}-{rnd(12, LOWER_ALNUM)}.apps.example.com"\n      org-gcal-client-secret "{s}")')),
    ("lisp_plist_alist", "config", one(secret,
        lambda s: f'(:host "imap.example.org" :port 993 :user "{ident()}" :password "{s}")',
        lambda s: f"'((\"username\" . \"{ident()}\") (\"password\" . \"{s}\"))",
        lambda s: f'((host . "db.internal") (token . "{s}"))',
        lambda s: f'(make-connection :host "cache.internal" :auth-token "{s}" :tls t)')),
    ("erlang_terms", "config", one(secret,
        lambda s: f'{{password, "{s}"}}',
        lambda s: f'[{{kernel, []}}, {{my_app, [{{db_user, "{ident()}"}}, {{db_password, "{s}"}}]}}].',
        lambda s: f'#{{api_key => <<"{s}">>, region => <<"eu-west-1">>}}',
        lambda s: f'** exception error: bad auth {{auth, [{{username, <<"{ident()}">>}}, {{secret, <<"{s}">>}}]}}')),
    ("prolog_facts", "source", one(secret,
        lambda s: f"password(db, '{s}').",
        lambda s: f'api_key("{s}").',
        lambda s: f"credential(smtp, user('{ident()}'), password('{s}')).",
        lambda s: f"secret_token(prod, '{s}').")),
    # configuration languages
    ("nix_attrs", "config", one(secret,
        lambda s: f'  services.grafana.settings.security.admin_password = "{s}";',
        lambda s: f'environment.variables.OPENAI_API_KEY = "{s}";',
        lambda s: f'{{ user = "{ident()}"; password = "{s}"; host = "db.internal"; }}',
        lambda s: f"error: attribute 'hashedPassword' missing, at /etc/nixos/users.nix:14:5 (initialPassword = \"{s}\";)")),
    ("dhall_records", "config", one(secret,
        lambda s: f'{{ apiToken = "{s}", user = "{ident()}" }}',
        lambda s: f'let dbPassword = "{s}" in {{ db = {{ host = "db.internal", password = dbPassword }} }}',
        lambda s: f', password = Some "{s}"',
        lambda s: f'{{ clientSecret = Some "{s}", clientId = "{ident()}" }}')),
    ("jsonnet_fields", "config", one(secret,
        lambda s: f"local apiKey = '{s}';",
        lambda s: f"  apiKey:: '{s}',",
        lambda s: f"  password+: '{s}',",
        lambda s: f'{{ secretKey::: "{s}", region: "eu-west-1" }}')),
    ("hocon_values", "config", one(secret,
        lambda s: f'akka.persistence.jdbc.password = "{s}"',
        lambda s: f"api-key = {s}",
        lambda s: f'slick.dbs.default.db {{ user = {ident()}, password = "{s}" }}',
        lambda s: f'secret: """{s}"""')),
    ("kdl_nodes", "config", one(secret,
        lambda s: f'password "{s}"',
        lambda s: f'database host="db.internal" user="{ident()}" password="{s}"',
        lambda s: f'token r#"{s}"#',
        lambda s: f'provider "openai" {{\n    api-key "{s}"\n}}')),
    ("ron_values", "config", one(secret,
        lambda s: f'Config(api_key: "{s}", retries: 3)',
        lambda s: f'    password: Some("{s}"),',
        lambda s: f'(database: (user: "{ident()}", password: "{s}"), port: 5432)',
        lambda s: f'auth: Token(r"{s}"),')),
    ("json5_hjson", "config", one(secret,
        lambda s: f"{{apiKey: '{s}', region: 'eu',}}",
        lambda s: f"  password: {s}",
        lambda s: f"  token: '''{s}'''",
        lambda s: f"{{\n  // prod\n  secretKey: \"{s}\",\n}}")),
    ("plist_libconfig", "config", one(secret,
        lambda s: f"    apiToken = {s};",
        lambda s: f'{{ password = "{s}"; user = {ident()}; }}',
        lambda s: f'database: {{ host = "db.internal"; password = "{s}"; }};',
        lambda s: f'$ defaults read com.example.sync\n{{\n    accountName = {ident()};\n    accessToken = "{s}";\n}}')),
    ("reg_export", "config", one(secret,
        lambda s: f'[HKEY_CURRENT_USER\\Software\\Example\\Sync]\n"ApiKey"="{s}"',
        lambda s: f'"Password"="{s}"',
        lambda s: f'[HKEY_LOCAL_MACHINE\\SOFTWARE\\Vendor\\Agent]\n"Server"="agent.example.net"\n"AuthToken"="{s}"',
        lambda s: f'reg query output:    ClientSecret    REG_SZ    {s}')),
    ("xml_named_entries", "config", one(secret,
        lambda s: f'<entry key="db.password">{s}</entry>',
        lambda s: f'<property name="password" value="{s}"/>',
        lambda s: f'<setting name="ApiToken" serializeAs="String">\n    <value>{s}</value>\n</setting>',
        lambda s: f'<param name="token">{s}</param>')),
    # declarations with something between the name and the value
    ("typed_declarations", "source", one(secret,
        lambda s: f'val apiKey: String = "{s}"',
        lambda s: f'let apiKey: String = "{s}"',
        lambda s: f"  private readonly clientSecret: string = '{s}';",
        lambda s: f'const DB_PASSWORD: &str = "{s}";')),
    ("basic_pascal_ada", "source", one(secret,
        lambda s: f'Const API_KEY As String = "{s}"',
        lambda s: f'Dim password As String = "{s}"',
        lambda s: f'   Password : constant String := "{s}";',
        lambda s: f"  FPassword := '{s}';")),
    ("cobol_fortran", "source", one(secret,
        lambda s: f"       05 WS-PASSWORD     PIC X(24) VALUE '{s}'.",
        lambda s: f"  character(len=*), parameter :: api_key = '{s}'",
        lambda s: f"       01 WS-API-TOKEN PIC X(40) VALUE \"{s}\".",
        lambda s: f"      CHARACTER*32 PASSWD\n      DATA PASSWD /'{s}'/")),
    ("operator_assignments", "source", one(lambda: tok() if _r.random() < 0.6 else fpw(),
        lambda s: f"API_TOKEN ?= {s}",
        lambda s: f"export REGISTRY_PASSWORD := {s}",
        lambda s: f'api_key <- "{s}"',
        lambda s: f"set password \"{s}\"")),
    ("lua_tables", "source", one(secret,
        lambda s: f'  api_key = "{s}",',
        lambda s: f"config.token = [[{s}]]",
        lambda s: f"local SECRET = [==[{s}]==]",
        lambda s: f'return {{ user = "{ident()}", password = \'{s}\' }}')),
    ("ml_records", "log", one(secret,
        lambda s: f'Config {{dbHost = "db.internal", dbPassword = "{s}", dbPort = 5432}}',
        lambda s: f'- : config = {{host = "db.internal"; password = "{s}"; port = 5432}}',
        lambda s: f'val it: Settings = {{ ApiKey = "{s}"\n                     Region = "eu" }}',
        lambda s: f'Left (AuthError (Credentials {{user = "{ident()}", secret = "{s}"}}))')),
    # calls that hand a value over
    ("builder_calls", "source", one(secret,
        lambda s: f'OpenAIOkHttpClient.builder().apiKey("{s}").build()',
        lambda s: f'  .password("{s}")',
        lambda s: f'client.setClientSecret("{s}");',
        lambda s: f'HttpClient(CIO) {{ install(Auth) {{ bearer {{ loadTokens {{ BearerTokens("{s}", "") }} }} }} }}')),
    ("command_syntax_calls", "source", one(secret,
        lambda s: f"    credentials {{\n        username '{ident()}'\n        password '{s}'\n    }}",
        lambda s: f"client apiKey: '{s}'; connect.",
        lambda s: f'[client setApiKey:@"{s}"];',
        lambda s: f'token "{s}"')),
    ("tcl_r_env", "source", one(secret,
        lambda s: f"set ::env(API_TOKEN) {s}",
        lambda s: f'Sys.setenv(OPENAI_API_KEY = "{s}")',
        lambda s: f'array set cfg {{user {ident()} password "{s}"}}',
        lambda s: f'options(github.pat = "{s}")')),
]

# --- benign categories: 5 instances each -------------------------------------------------------------------------

BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # a reference names where the secret is, not what it is
    ("env_references", "config", lambda: pick(
        '{:password #env DB_PASSWORD}', 'password = ${?DB_PASSWORD}', 'apiKey = builtins.getEnv "API_KEY";',
        "local apiKey = std.extVar('api_key');", 'api_key = os.getenv("API_KEY"),', 'api_key <- Sys.getenv("OPENAI_API_KEY")',
        '(setq gptel-api-key (getenv "OPENAI_API_KEY"))', 'let token = env:API_TOKEN as Text', '{password, {env, "DB_PASSWORD"}}')),
    ("file_references", "config", lambda: pick(
        'passwordFile = "/run/secrets/db-password";', ':password-file "/etc/app/db.pass"', 'tokenFile = config.age.secrets.api.path;',
        'password_file = "/run/keys/smtp"', 'environmentFile = "/var/lib/app/env";', 'api-key-file "/run/secrets/openai"')),
    ("null_and_empty", "config", lambda: pick(
        ":password nil", "password = null;", "api_key: None,", 'password = "";', "(setq gptel-api-key nil)",
        "{password, undefined}", "password: Option<String> = None", "apiKey = undefined", 'Dim password As String = ""')),
    ("declarations_without_values", "source", lambda: pick(
        "apiKey: String", "Dim password As String", "       05 WS-PASSWORD PIC X(24).", "  character(len=64) :: token_buffer",
        "private val clientSecret: String", "password : Text", "(declare api-token)", "var password: String?")),
    ("type_signatures", "source", lambda: pick(
        "checkPassword :: Text -> Text -> Bool", "val verifyToken : string -> bool", "(s/def ::password string?)",
        "token: string & =~\"^[A-Za-z0-9]+$\"", "#[serde(skip_serializing)] api_key: String,", "apiKey : Optional Text",
        "-spec check_password(binary(), binary()) -> boolean().")),
    ("policy_settings", "config", lambda: pick(
        f":password-min-length {_r.randint(8, 16)}", f"passwordMinLength = {_r.randint(8, 16)};", 'token_ttl = "1h"',
        'api_key_header = "X-API-Key"', f"password.max-age-days = {_r.randint(30, 365)}", 'secretRotation = "monthly";',
        f"{{token_expiry, {_r.randint(60, 3600)}}}")),
    ("function_names", "source", lambda: pick(
        "(defn check-password [user pw] (bcrypt/check pw (:hash user)))", "fun verifyToken(token: String): Boolean",
        "local function get_api_key() return os.getenv('API_KEY') end", "proc reset_password {user} { notify $user }",
        "password_ok(User, Pw) :- stored_hash(User, H), check(Pw, H).", "Function GetToken() As String")),
    ("keyword_accesses", "source", lambda: pick(
        "(get-in config [:db :password])", "(:api-key opts)", "cfg.password", "config[:token]", "proplists:get_value(password, Opts)",
        "$cfg(password)", "settings$api_key", "self.apiKey")),
    ("masked_values", "config", lambda: pick(
        f':password "{_masked()}"', f'password = "{_masked()}";', f"apiKey: '{_masked()}'", f'Password = "{_masked()}"',
        f'{{password, "{_masked()}"}}', f'"ApiKey"="{_masked()}"', f'<entry key="db.password">{_masked()}</entry>')),
    ("placeholders", "config", lambda: pick(
        f':api-key "{_placeholder()}"', f'apiKey = "{_placeholder()}";', f"password: '{_placeholder()}'",
        f'.apiKey("{_placeholder()}")', f'Const API_KEY As String = "{_placeholder()}"', f'<property name="password" value="{_placeholder()}"/>')),
    ("nix_store_paths", "log", lambda: pick(
        f"/nix/store/{rnd(32, NIX32)}-openssl-3.0.13", f"building '/nix/store/{rnd(32, NIX32)}-app-1.4.2.drv'...",
        f"copying path '/nix/store/{rnd(32, NIX32)}-python3-3.12.4' from 'https://cache.nixos.org'",
        f"error: builder for '/nix/store/{rnd(32, NIX32)}-source.drv' failed with exit code 1")),
    ("sri_and_source_hashes", "config", lambda: pick(
        f'  hash = "{nixhash()}";', f'sha256 = "{rnd(52, NIX32)}";', f'  sha256 = "{hx(64)}",', f'vendorHash = "{nixhash()}";',
        f'integrity = "sha512-{base64.b64encode(_r.randbytes(64)).decode()}"')),
    ("commit_revisions", "config", lambda: pick(
        f'  rev = "{hx(40)}";', f'io.github.example/lib {{:git/sha "{hx(40)}"}}', f'    commit = "{hx(40)}",',
        f"{{dep, {{git, \"https://github.com/example/dep.git\", {{ref, \"{hx(40)}\"}}}}}}")),
    ("uuids_and_ids", "config", lambda: pick(
        f':tenant-id #uuid "{uuid()}"', f'tenantId = "{uuid()}";', f'client-id = "{ident()}"', f"request_id: \"{uuid()}\",",
        f'"InstallId"="{{{uuid().upper()}}}"', f'<entry key="app.instance.id">{uuid()}</entry>')),
    ("public_keys", "config", lambda: pick(
        f'openssh.authorizedKeys.keys = [ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} {ident()}@laptop" ];',
        f'publicKey = "{base64.b64encode(_r.randbytes(32)).decode()}";', f":public-key \"{base64.b64encode(_r.randbytes(32)).decode()}\"",
        f'<entry key="signing.public.key.fingerprint">{hx(40).upper()}</entry>')),
    ("base64_images", "config", lambda: pick(
        f'icon = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{rnd(60, B64)}";',
        f':logo "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci{rnd(40, B64)}"',
        f"favicon: 'data:image/x-icon;base64,AAABAAEAEBAAAAEAIABoBAAAFgAAACgAAAAQAAAAIAAAAAEAIAAAAAAAAAQAAA{rnd(30, B64)}'")),
    ("token_counts", "config", lambda: pick(
        f":max-tokens {_r.choice([1024, 2048, 4096])}", f"max_tokens = {_r.choice([256, 512, 1024])}", f"tokenCount := {_r.randint(1, 999)};",
        f"{{token_limit, {_r.choice([8192, 32768])}}}", f"  prompt_tokens: {_r.randint(10, 5000)},", f"set max_tokens {_r.randint(100, 900)}")),
    ("versions_and_pins", "config", lambda: pick(
        f'org.clojure/clojure {{:mvn/version "1.{_r.randint(10, 12)}.{_r.randint(0, 4)}"}}', f'version = "{_r.randint(1, 9)}.{_r.randint(0, 20)}.{_r.randint(0, 9)}";',
        f'{{vsn, "{_r.randint(1, 5)}.{_r.randint(0, 9)}.{_r.randint(0, 9)}"}}', f"token-lib = \"{_r.randint(0, 3)}.{_r.randint(0, 30)}\"")),
    ("boolean_auth_settings", "config", lambda: pick(
        ":auth true", "auth = false;", "require_token = yes", "passwordAuthentication = false;", "{use_password, false}",
        "Const USE_TOKEN As Boolean = True", "services.openssh.settings.PasswordAuthentication = false;")),
    ("credential_free_urls", "config", lambda: pick(
        'token_url = "https://auth.example.com/oauth/token"', ':auth-url "https://login.example.org/authorize"',
        'passwordResetUrl = "https://app.example.net/reset";', "{token_endpoint, \"https://idp.example.com/token\"}",
        '.tokenUri("https://auth.example.com/oauth2/token")')),
    ("secret_names_and_paths", "config", lambda: pick(
        'secretName = "db-credentials";', ':secret-ref "prod/orders/db"', 'vault_path = "secret/data/app"',
        f'sops.secrets."grafana/admin_password" = {{ owner = "grafana"; }};', 'age.secrets.api-token.file = ../secrets/api-token.age;',
        "{secret_name, <<\"stripe-webhook\">>}")),
    ("comments_about_secrets", "source", lambda: pick(
        ";; the api key is read from the environment, never committed", "-- TODO: rotate the password every quarter",
        "% password must be at least 12 characters", "(* the token expires after one hour *)", "' API key goes in the registry, see README",
        "      * PASSWORD IS READ FROM THE VAULT AT START-UP", "# set the token with `make login`")),
    ("makefile_references", "source", lambda: pick(
        "TOKEN_FILE ?= .token", "SECRET_DIR := secrets/", 'curl -H "Authorization: Bearer $(API_TOKEN)" $(URL)',
        "API_TOKEN ?= $(shell cat .token)", "export REGISTRY_PASSWORD := $(REGISTRY_PASSWORD)", "password <- readline(prompt = \"Password: \")")),
    ("builders_with_references", "source", lambda: pick(
        '.apiKey(System.getenv("OPENAI_API_KEY"))', ".password(props.getPassword())", '.tokenType("Bearer")',
        ".passwordEncoder(new BCryptPasswordEncoder())", "client.setClientSecret(secrets.get(\"client\"));", '.withToken(tokenProvider.get())')),
    ("lua_long_strings", "source", lambda: pick(
        "description = [[The password must be at least 12 characters long.]]", "local help = [==[Set your API key with :Login]==]",
        "usage = [[token <name> creates a token]]", "config.banner = [[Welcome to the staging box]]")),
    ("cobol_fortran_lengths", "source", lambda: pick(
        f"       05 WS-PASSWORD-LEN PIC 9(2) VALUE {_r.randint(8, 24)}.", "       05 WS-TOKEN-STATUS PIC X VALUE 'N'.",
        f"  integer, parameter :: key_len = {_r.choice([16, 32, 64])}", "       01 WS-PASSWORD-OK PIC X VALUE 'Y'.")),
    ("key_words_not_credentials", "config", lambda: pick(
        'key_color = "#1e90ff";', f"primary_key = {_r.randint(1, 99)}", f":keyframe {_r.randint(1, 9)}", 'keyboard_layout = "us"',
        'tokenizer = "cl100k_base"', "passwordless = true;", '(def secret-santa-pairs (shuffle people))', 'secretary = "Ms. Lee"')),
    ("key_ids_and_arns", "config", lambda: pick(
        f'kms_key_id = "arn:aws:kms:eu-west-1:{_r.randint(10**11, 10**12 - 1)}:key/{uuid()}"', ':key-id "alias/app-data"',
        f'keyId = "{hx(16)}";', f'signing_key_id = "{hx(8).upper()}"', f"{{kid, <<\"{hx(12)}\">>}}")),
    ("typed_non_secret_values", "source", lambda: pick(
        'val apiKeyHeader: String = "X-API-Key"', 'let tokenType: String = "Bearer"', 'Const PASSWORD_PROMPT As String = "Password: "',
        "   Token_Length : constant Natural := 32;", 'const TOKEN_PREFIX: &str = "tok_";', "private readonly passwordField: string = 'password';")),
    ("records_without_secrets", "log", lambda: pick(
        'Config {dbHost = "db.internal", dbPort = 5432, dbName = "orders"}', '- : config = {host = "db.internal"; port = 5432}',
        f'Config(retries: 3, timeout_ms: {_r.randint(100, 9000)})', '{ user = "app"; host = "db.internal"; }',
        '{:db {:host "db.internal" :port 5432 :user "app"}}', f'#{{region => <<"eu-west-1">>, pool_size => {_r.randint(1, 50)}}}')),
]


def notations() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_29)
    return heldout._records(SECRETS, BENIGN, 8, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = notations()
    heldout._write(HERE / "notations_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "notations_benign.jsonl.gz", benign_rows)
    print(f"notations: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
