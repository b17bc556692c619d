"""A sixteenth held-out set: secrets whose NAME is not beside the value but in a header, a column, a previous line
or a parent, as MCP tools return them when they query a database, list a cluster's or a cloud's resources, dump an
environment or read a spreadsheet.

    python -m tests.secret_corpus.tabular   # rewrites tabular_*.jsonl.gz here

Each text is what one tool prints (multi-line: an error body or a tool result, not a log line): CSV/TSV with a header
row (``user,password,api_key``), semicolon CSV as Excel writes it, spreadsheets pasted as tab-separated text,
Markdown, Org-mode, reStructuredText and ASCII (``+---+``) tables, box-drawn tables (ClickHouse's ``PrettyCompact``,
DuckDB), psql (aligned and ``\\x`` expanded), mysql (table and ``\\G``), sqlite3 (``.mode column``, ``list`` with
headers), SQL Server's sqlcmd, Oracle's SQL*Plus and cqlsh result tables, pandas ``DataFrame`` reprs, fixed-width
reports, SQL ``INSERT INTO t (cols) VALUES (..)`` (one and several rows), ``UPDATE .. SET (a, b) = (..)``,
``COPY .. FROM stdin`` data, kubectl ``custom-columns`` and go-template output, ``aws .. --output table`` (IAM access
keys, SSM parameters, ECS environment), ``az keyvault secret show -o table``, ``vault kv get``, PowerShell's
``Get-ChildItem Env:`` and ``Format-Table``, HTML tables and definition lists, JSON arrays of ``[name, value]``
pairs, ``{"name": .., "value": ..}`` lists (Kubernetes env, ECS task definitions, with the value first too),
CloudFormation ``ParameterKey``/``ParameterValue`` and tag ``Key``/``Value`` lists, XML ``<Name>``/``<Value>``
pairs, ``terraform output -json`` (the name is the parent object's key), redis-cli ``HGETALL`` and ``CONFIG GET``
(the name on the previous numbered line), ``etcdctl get`` (the key on one line, the value on the next), prompt-then-
answer transcripts (``Password:`` on one line, the value on the next), INI sections and YAML parents that name the
secret above generic keys, and key and value logged on separate lines.

Benign: the same layouts holding no secret (``password_changed_at``, ``token_count``, ``password_set`` booleans,
``sha256`` of a file, masked cells ``****``, ``NULL``/``DEFAULT``/``$1`` in SQL, header rows alone, schema
descriptions, counts and timestamps, references such as ``valueFrom``/``secretKeyRef``, ``gh secret list`` and
``az keyvault secret list`` without values, prompts that were not echoed).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). 55 secret formats x 4 and 32 benign categories x 5. ``tests/test_scrub_tabular.py`` scores
``errscope.scrub`` on it.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, Maker, pick, rnd
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: tabular() seeds it


def secret() -> str:
    return pick(fpw(), tok(24, 40), rnd(40, B64URL), f"sk_live_{rnd(24)}", rnd(32, HEX), jwt(), f"ghp_{rnd(36)}")


def pwd() -> str:
    return pick(fpw(), fpw(), tok(16, 24))


def user() -> str:
    return pick("alice", "bob", "svc_etl", "deploy", "ci-bot", "grafana", "reporting", "admin", "backup", "app")


def svc() -> str:
    return pick("stripe", "sendgrid", "github", "slack", "datadog", "twilio", "pagerduty", "sentry")


def date() -> str:
    return f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d}"


def ts() -> str:
    return f"{date()} {_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}"


def n() -> str:
    return str(_r.randint(1, 999))


def pad(cells: list[str], widths: list[int], sep: str = " | ", edge: str = "") -> str:
    return edge + sep.join(c.ljust(w) for c, w in zip(cells, widths)) + edge.rstrip()[::-1]


def grid(header: list[str], rows: list[list[str]], *, style: str) -> str:
    """A table in one CLI's layout: ``psql``, ``mysql``, ``md``, ``org``, ``rst``, ``fixed``, ``box``, ``duck``, ``cql``."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    cell = lambda r: [c.ljust(w) for c, w in zip(r, widths)]  # noqa: E731
    if style == "psql":
        lines = [" " + " | ".join(cell(header)), "-+-".join("-" * w for w in widths).join("--")[1:-1]]
        lines += [" " + " | ".join(cell(r)) for r in rows] + [f"({len(rows)} row{'s' if len(rows) > 1 else ''})"]
    elif style == "cql":
        lines = [" " + " | ".join(cell(header)), "-+-".join("-" * w for w in widths).join("--")[1:-1]]
        lines += [" " + " | ".join(cell(r)) for r in rows] + ["", f"({len(rows)} rows)"]
    elif style == "mysql":
        border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        lines = [border, "| " + " | ".join(cell(header)) + " |", border]
        lines += ["| " + " | ".join(cell(r)) + " |" for r in rows] + [border, f"{len(rows)} row{'s' if len(rows) > 1 else ''} in set (0.00 sec)"]
    elif style == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + ["| " + " | ".join(r) + " |" for r in rows]
    elif style == "org":
        lines = ["| " + " | ".join(cell(header)) + " |", "|" + "+".join("-" * (w + 2) for w in widths) + "|"]
        lines += ["| " + " | ".join(cell(r)) + " |" for r in rows]
    elif style == "rst":
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, "  ".join(cell(header)).rstrip(), rule] + ["  ".join(cell(r)).rstrip() for r in rows] + [rule]
    elif style == "fixed":
        lines = ["  ".join(cell(header)).rstrip(), "  ".join("-" * w for w in widths)] + ["  ".join(cell(r)).rstrip() for r in rows]
    elif style == "plain":  # pandas, column -t, sqlite .mode column without the rule
        lines = ["  ".join(cell(header)).rstrip()] + ["  ".join(cell(r)).rstrip() for r in rows]
    elif style == "box":  # ClickHouse PrettyCompact
        lines = ["┌─" + "─┬─".join(h.ljust(w, "─") for h, w in zip(header, widths)) + "─┐"]
        lines += ["│ " + " │ ".join(cell(r)) + " │" for r in rows] + ["└─" + "─┴─".join("─" * w for w in widths) + "─┘"]
    elif style == "duck":
        lines = ["┌─" + "─┬─".join("─" * w for w in widths) + "─┐", "│ " + " │ ".join(cell(header)) + " │",
                 "├─" + "─┼─".join("─" * w for w in widths) + "─┤"]
        lines += ["│ " + " │ ".join(cell(r)) + " │" for r in rows] + ["└─" + "─┴─".join("─" * w for w in widths) + "─┘"]
    elif style == "ascii":
        border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        lines = [border, "| " + " | ".join(cell(header)) + " |", border.replace("-", "=")]
        lines += ["| " + " | ".join(cell(r)) + " |" for r in rows] + [border]
    else:
        raise ValueError(style)
    return "\n".join(lines)


def table(style: str, header: list[str], secret_col: int, *, value: Callable[[], str] = secret, rows: int = 0) -> Maker:
    """A result table whose header names column ``secret_col``; the scored value in a random data row."""

    def make() -> tuple[str, str]:
        count = rows or _r.randint(1, 3)
        body = []
        for _ in range(count):
            row = []
            for i, h in enumerate(header):
                hl = h.lower()
                if i == secret_col:
                    row.append(value())
                elif "id" == hl or hl.endswith("_id") and "key" not in hl:
                    row.append(n())
                elif "user" in hl or "name" in hl or "login" in hl or "owner" in hl or "service" in hl:
                    row.append(pick(user(), svc()))
                elif "at" in hl.split("_") or "date" in hl or "created" in hl or "updated" in hl:
                    row.append(date())
                elif "host" in hl:
                    row.append(pick("db1.internal", "10.0.3.17", "pg-prod-2", "smtp.example.com"))
                else:
                    row.append(pick("active", "read", "write", "prod", "t", "admin", "eu-west-1"))
            body.append(row)
        pick_row = _r.randrange(count)
        return body[pick_row][secret_col], grid(header, body, style=style)

    return make


def fmt(*templates: Callable[[str], str], value: Callable[[], str] = secret) -> Maker:
    return one(value, *templates)


def csv_rows(header: str, sep: str, make_row: Callable[[str], str]) -> Maker:
    def make() -> tuple[str, str]:
        v = secret()
        rows = [make_row(secret()) for _ in range(_r.randint(0, 2))]
        rows.insert(_r.randint(0, len(rows)), make_row(v))
        return v, header + "\n" + "\n".join(rows)

    return make


def _redis_hgetall() -> tuple[str, str]:
    v = secret()
    field = pick("api_token", "password", "secret", "access_token", "refresh_token", "apiKey")
    pairs = [("name", user()), ("created", date()), (field, v)]
    _r.shuffle(pairs)
    out = [f"127.0.0.1:6379> HGETALL {pick('user', 'session', 'integration')}:{n()}"]
    i = 1
    for k, val in pairs:
        out += [f'{i}) "{k}"', f'{i + 1}) "{val}"']
        i += 2
    return v, "\n".join(out)


def _aws_iam_keys() -> tuple[str, str]:
    v = rnd(40, ALNUM + "+/")
    akid = "AKIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    title = "|                                           CreateAccessKey                                           |"
    return v, (
        "-" * len(title) + "\n" + title + "\n" + "+" + "-" * (len(title) - 2) + "+\n"
        "||                                             AccessKey                                            ||\n"
        "|+----------------------+------------------------------+--------------------------------------------+----------+-----------+|\n"
        "||      AccessKeyId     |         CreateDate           |             SecretAccessKey                |  Status  | UserName  ||\n"
        "|+----------------------+------------------------------+--------------------------------------------+----------+-----------+|\n"
        f"||  {akid}  |  {date()}T10:21:44+00:00   |  {v}  |  Active  |  {user()}  ||\n"
        "|+----------------------+------------------------------+--------------------------------------------+----------+-----------+|"
    )


def _aws_ssm_table() -> tuple[str, str]:
    v = secret()
    name = pick("/prod/db/password", "/app/stripe/secret_key", "/ci/github/token", "/prod/api/API_KEY")
    return v, (
        "--------------------------------------------------------------------------------------\n"
        "|                                   GetParameters                                    |\n"
        "+------------------------------------------------------------------------------------+\n"
        "||                                    Parameters                                    ||\n"
        "|+------------------------------+---------------+-------------------------+----------+|\n"
        "||             Name             |     Type      |          Value          | Version  ||\n"
        "|+------------------------------+---------------+-------------------------+----------+|\n"
        f"||  {name}  |  SecureString  |  {v}  |  {_r.randint(1, 9)}  ||\n"
        f"||  /prod/db/host  |  String  |  db1.internal  |  1  ||\n"
        "|+------------------------------+---------------+-------------------------+----------+|"
    )


def _aws_ecs_env_table() -> tuple[str, str]:
    v = secret()
    name = pick("DB_PASSWORD", "STRIPE_SECRET_KEY", "GITHUB_TOKEN", "JWT_SECRET", "API_KEY")
    return v, (
        "|||                                environment                                 |||\n"
        "||+-----------------------------+---------------------------------------------+||\n"
        "|||            name             |                    value                    |||\n"
        "||+-----------------------------+---------------------------------------------+||\n"
        f"|||  LOG_LEVEL                  |  info                                       |||\n"
        f"|||  {name.ljust(27)}|  {v.ljust(43)}|||\n"
        "||+-----------------------------+---------------------------------------------+||"
    )


def _ps_env() -> tuple[str, str]:
    v = secret()
    name = pick("DB_PASSWORD", "NPM_TOKEN", "AZURE_CLIENT_SECRET", "OPENAI_API_KEY", "SLACK_BOT_TOKEN")
    rows = [("HOMEDRIVE", "C:"), (name, v), ("PROCESSOR_ARCHITECTURE", "AMD64"), ("USERNAME", user())]
    _r.shuffle(rows)
    return v, "PS C:\\> Get-ChildItem Env:\n\nName                           Value\n----                           -----\n" + "\n".join(
        f"{k.ljust(31)}{val}" for k, val in rows)


def _vault_kv() -> tuple[str, str]:
    v = secret()
    key = pick("password", "api_key", "token", "client_secret", "private_key")
    return v, (
        f"$ vault kv get secret/{svc()}\n======= Secret Path =======\nsecret/data/{svc()}\n\n======= Metadata =======\n"
        f"Key                Value\n---                -----\ncreated_time       {date()}T09:12:44.1Z\nversion            {_r.randint(1, 9)}\n\n"
        f"====== Data ======\nKey         Value\n---         -----\n{key.ljust(12)}{v}\nusername    {user()}"
    )


def _az_keyvault() -> tuple[str, str]:
    v = secret()
    name = pick("db-password", "stripe-api-key", "sp-client-secret", "github-token")
    return v, (
        f"$ az keyvault secret show --vault-name kv-prod --name {name} -o table\n"
        "ContentType    Name              Value\n-------------  ----------------  ----------------------------------------\n"
        f"               {name}  {v}"
    )


def _terraform_json() -> tuple[str, str]:
    v = secret()
    name = pick("db_password", "admin_token", "api_key", "client_secret")
    return v, (
        '{\n  "db_host": {\n    "sensitive": false,\n    "type": "string",\n    "value": "db1.internal"\n  },\n'
        f'  "{name}": {{\n    "sensitive": true,\n    "type": "string",\n    "value": "{v}"\n  }}\n}}'
    )


SECRETS: list[tuple[str, str, Maker]] = [
    # --- CSV / TSV / spreadsheets
    ("csv_header_password", "log", csv_rows("id,username,password,email", ",", lambda v: f"{n()},{user()},{v},{user()}@example.com")),
    ("csv_header_api_key_middle", "log", csv_rows("service,api_key,created_at,scopes", ",", lambda v: f"{svc()},{v},{date()},read")),
    ("csv_quoted_cells", "log", csv_rows('"Service","Username","Token","Notes"', ",", lambda v: f'"{svc()}","{user()}","{v}","rotate Q3"')),
    ("csv_semicolon_excel", "log", csv_rows("Login;Password;Role;Last change", ";", lambda v: f"{user()};{v};admin;{date()}")),
    ("tsv_header", "log", csv_rows("user\thost\tpassword", "\t", lambda v: f"{user()}\tdb1.internal\t{v}")),
    ("spreadsheet_paste", "log", csv_rows("Account\tURL\tUsername\tPassword\tNotes", "\t",
                                          lambda v: f"{svc().title()}\thttps://{svc()}.com/login\t{user()}\t{v}\tshared")),
    ("csv_secret_first_column", "log", csv_rows("client_secret,client_id,redirect_uri", ",",
                                                lambda v: f"{v},{rnd(12, HEX)},https://app.example.com/cb")),
    ("csv_crlf_export", "log", lambda: (lambda v: (v, f"Name,Secret Key,Region\r\n{svc()},{v},eu-west-1\r\n"))(secret())),
    # --- Markdown / Org / rst / ASCII / boxes
    ("markdown_table_later_row", "log", table("md", ["env", "user", "DB password"], 2, rows=3)),
    ("markdown_table_token_col", "log", table("md", ["Service", "API token", "Owner"], 1, rows=2)),
    ("org_table", "log", table("org", ["host", "user", "pass"], 2, value=pwd)),
    ("rst_simple_table", "log", table("rst", ["user", "password", "role"], 1, value=pwd)),
    ("ascii_grid_table", "log", table("ascii", ["name", "secret", "created_at"], 1)),
    ("clickhouse_pretty_compact", "log", table("box", ["name", "api_key", "created"], 1)),
    ("duckdb_box", "log", table("duck", ["service", "token", "expires_at"], 1)),
    # --- database CLIs
    ("psql_aligned", "log", table("psql", ["id", "name", "api_token"], 2)),
    ("psql_password_hash_col", "log", table("psql", ["usename", "passwd"], 1,
                                          value=lambda: f"SCRAM-SHA-256$4096:{rnd(24, B64URL)}=${rnd(44, B64URL)}")),
    ("psql_expanded", "log", fmt(lambda v: f"-[ RECORD 1 ]-----------------------------\nid         | {n()}\nname       | {svc()}\nsecret_key | {v}\ncreated_at | {ts()}")),
    ("mysql_table", "log", table("mysql", ["id", "user", "password", "host"], 2, value=pwd)),
    ("mysql_vertical", "log", fmt(lambda v: f"*************************** 1. row ***************************\n       id: {n()}\n     name: {svc()}\n  api_key: {v}\n  created: {ts()}\n1 row in set (0.00 sec)")),
    ("sqlite_column_mode", "log", table("fixed", ["name", "token", "scope"], 1)),
    ("sqlite_list_headers", "log", csv_rows("id|service|secret", "|", lambda v: f"{n()}|{svc()}|{v}")),
    ("sqlcmd_result", "log", lambda: (lambda s, t: (s, t + "\n\n(1 rows affected)"))(*table("fixed", ["name", "secret_value", "modified"], 1, rows=1)())),
    ("sqlplus_result", "log", table("fixed", ["USERNAME", "PASSWORD", "ACCOUNT_STATUS"], 1, value=pwd)),
    ("cqlsh_result", "log", table("cql", ["user_id", "auth_token", "expires"], 1)),
    ("pandas_repr", "log", lambda: (lambda s, t: (s, "\n".join(f"{i - 1 if i else ' '} {line}" for i, line in enumerate(t.split("\n")))))(
        *table("plain", ["user", "password", "active"], 1, value=pwd, rows=3)())),
    ("column_t_output", "log", table("plain", ["KEY", "SECRET", "UPDATED"], 1)),
    ("fixed_width_report", "log", table("fixed", ["USER", "HOST", "PASSWD", "LAST_LOGIN"], 2, value=pwd)),
    # --- SQL statements
    ("sql_insert_columns", "log", fmt(
        lambda v: f"INSERT INTO users (name, email, password_hash, api_token) VALUES ('{user()}', '{user()}@example.com', '$2b$12${rnd(53, ALNUM + './')}', '{v}');",
        lambda v: f"INSERT INTO `api_keys` (`id`, `owner`, `key`, `created_at`) VALUES ({n()}, '{user()}', '{v}', '{ts()}');",
        lambda v: f'insert into integrations (service, secret, enabled) values (\'{svc()}\', \'{v}\', true)')),
    ("sql_insert_multirow", "log", lambda: (lambda v, w: (v, f"INSERT INTO service_tokens (id, service, token)\nVALUES\n  ({n()}, '{svc()}', '{w}'),\n  ({n()}, '{svc()}', '{v}');"))(secret(), secret())),
    ("sql_insert_error_body", "log", fmt(
        lambda v: f"ERROR:  duplicate key value violates unique constraint \"credentials_pkey\"\nDETAIL:  Key (id)=({n()}) already exists.\nSTATEMENT:  INSERT INTO credentials (id, username, password) VALUES ({n()}, '{user()}', '{v}')",
        lambda v: f"sqlalchemy.exc.IntegrityError: (psycopg2.errors.NotNullViolation) null value in column \"owner\"\n[SQL: INSERT INTO webhooks (url, signing_secret, owner) VALUES (%(url)s, %(signing_secret)s, %(owner)s)]\n[parameters: {{'url': 'https://hooks.example.com/x', 'signing_secret': '{v}', 'owner': None}}]")),
    ("sql_update_tuple", "log", fmt(lambda v: f"UPDATE accounts SET (password, salt) = ('{v}', '{rnd(16, HEX)}') WHERE id = {n()};",
                                     lambda v: f"UPDATE oauth_clients SET (client_id, client_secret) = ('{rnd(12, HEX)}', '{v}') WHERE name = '{svc()}';")),
    ("sql_update_set", "log", fmt(lambda v: f"UPDATE service_accounts\n   SET api_token = '{v}',\n       updated_at = now()\n WHERE name = '{user()}';")),
    ("copy_from_stdin", "log", lambda: (lambda v: (v, f"COPY public.credentials (id, service, username, secret) FROM stdin;\n{n()}\t{svc()}\t{user()}\t{v}\n{n()}\t{svc()}\t{user()}\t{secret()}\n\\."))(secret())),
    # --- cluster / cloud CLIs
    ("kubectl_custom_columns", "log", fmt(lambda v: f"NAME          TOKEN\n{user()}-token   {v}", value=lambda: b64s(rnd(32, ALNUM)))),
    ("kubectl_go_template", "log", lambda: (lambda v: (v, f"$ kubectl get secret db-creds -o go-template='{{{{range $k,$v := .data}}}}{{{{$k}}}}{{{{\"\\t\"}}}}{{{{$v|base64decode}}}}{{{{\"\\n\"}}}}{{{{end}}}}'\n"
                                                        f"{pick('password', 'token', 'api-key')}\t{v}\nusername\t{user()}"))(secret())),
    ("aws_iam_access_key_table", "log", _aws_iam_keys),
    ("aws_ssm_parameters_table", "log", _aws_ssm_table),
    ("aws_ecs_environment_table", "log", _aws_ecs_env_table),
    ("az_keyvault_show_table", "log", _az_keyvault),
    ("vault_kv_get", "log", _vault_kv),
    ("powershell_env", "log", _ps_env),
    ("powershell_format_table", "log", table("fixed", ["Name", "UserName", "Password"], 2, value=pwd)),
    # --- HTML / XML
    ("html_table", "log", fmt(lambda v: f"<table>\n  <tr><th>User</th><th>Password</th></tr>\n  <tr><td>{user()}</td><td>{v}</td></tr>\n</table>",
                              lambda v: f"<table><thead><tr><th>Service</th><th>API key</th></tr></thead>\n<tbody><tr><td>{svc()}</td><td>{v}</td></tr></tbody></table>")),
    ("html_definition_list", "log", fmt(lambda v: f"<dl>\n  <dt>Username</dt>\n  <dd>{user()}</dd>\n  <dt>Password</dt>\n  <dd>{v}</dd>\n</dl>")),
    ("xml_name_value", "log", fmt(lambda v: f"<Parameter>\n  <Name>{pick('DbPassword', 'ApiToken', 'ClientSecret')}</Name>\n  <Value>{v}</Value>\n</Parameter>")),
    # --- name/value lists
    ("json_pair_arrays", "log", fmt(lambda v: f'[["DB_USER", "{user()}"], ["{pick("DB_PASSWORD", "API_TOKEN", "SECRET_KEY")}", "{v}"]]',
                                    lambda v: f'{{"rows": [["region", "eu-west-1"], ["{pick("password", "access_token", "webhook_secret")}", "{v}"]]}}')),
    ("k8s_env_json", "log", fmt(lambda v: f'"env": [\n  {{"name": "LOG_LEVEL", "value": "info"}},\n  {{"name": "{pick("DB_PASSWORD", "REDIS_PASSWORD", "API_TOKEN")}", "value": "{v}"}}\n]')),
    ("ecs_value_before_name", "log", fmt(lambda v: f'"environment": [\n    {{\n        "value": "{v}",\n        "name": "{pick("STRIPE_SECRET_KEY", "DB_PASSWORD", "GITHUB_TOKEN")}"\n    }}\n]')),
    ("cloudformation_parameters", "log", fmt(lambda v: f'[\n  {{"ParameterKey": "{pick("DBPassword", "MasterUserPassword", "ApiToken")}", "ParameterValue": "{v}"}},\n  {{"ParameterKey": "Env", "ParameterValue": "prod"}}\n]')),
    ("k8s_env_yaml", "log", fmt(lambda v: f"env:\n- name: {pick('DB_PASSWORD', 'API_KEY', 'SESSION_SECRET')}\n  value: {v}\n- name: PORT\n  value: \"8080\"")),
    ("terraform_output_json", "log", _terraform_json),
    # --- a name on the previous line
    ("redis_hgetall", "log", _redis_hgetall),
    ("redis_config_get", "log", fmt(lambda v: f'127.0.0.1:6379> CONFIG GET {pick("requirepass", "masterauth")}\n1) "{pick("requirepass", "masterauth")}"\n2) "{v}"', value=pwd)),
    ("etcdctl_get", "log", fmt(lambda v: f"$ etcdctl get {pick('/config/db/password', '/services/api/token', '/app/secret_key')}\n{pick('/config/db/password', '/services/api/token', '/app/secret_key')}\n{v}")),
    ("prompt_then_answer", "log", fmt(lambda v: f"Password:\n{v}", lambda v: f"Enter API token:\n> {v}", lambda v: f"? Paste your access token\n{v}",
                                      lambda v: f"Enter passphrase for key '/home/{user()}/.ssh/id_ed25519':\n{v}", value=pwd)),
    ("kv_separate_log_lines", "log", fmt(lambda v: f"{ts()} DEBUG config key: {pick('db.password', 'auth.token', 'smtp.secret')}\n{ts()} DEBUG config value: {v}",
                                         lambda v: f"field: {pick('password', 'client_secret', 'api_key')}\nvalue: {v}")),
    ("ini_section_names_secret", "log", fmt(lambda v: f"[secrets]\n{svc()} = {v}\n{svc()} = {secret()}",
                                            lambda v: f"[credentials]\n{svc()}={v}", lambda v: f"[tokens]\nci = {v}\nrelease = {secret()}")),
    ("yaml_parent_names_secret", "log", fmt(lambda v: f"secrets:\n  {svc()}: {v}\n  {svc()}: {secret()}",
                                            lambda v: f"api_keys:\n  - {v}\n  - {secret()}", lambda v: f"passwords:\n  {user()}: {v}")),
]

BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("csv_password_timestamps", "log", lambda: "id,username,password_changed_at,password_expires_at\n" + "\n".join(
        f"{n()},{user()},{ts()},{date()}" for _ in range(2))),
    ("csv_token_counts", "log", lambda: "model,prompt_tokens,completion_tokens,total_tokens\n" + "\n".join(
        f"{pick('gpt-4o', 'claude-3-5-sonnet', 'llama-3-70b')},{n()},{n()},{n()}" for _ in range(2))),
    ("csv_header_only", "log", lambda: pick("id,username,password_hash,api_token,created_at", "user\tpassword\thost",
                                            "Service;Login;Password;Notes", '"name","secret","updated"', "client_id,client_secret,redirect_uri")),
    ("csv_masked_cells", "log", lambda: "service,api_key,owner\n" + "\n".join(
        f"{svc()},{pick('********', '****', '<redacted>', '[REDACTED]', 'xxxxxxxx')},{user()}" for _ in range(2))),
    ("csv_null_and_empty", "log", lambda: pick(f"user,password,role\n{user()},,admin\n{user()},NULL,read",
                                               f"name\tsecret\tenabled\n{svc()}\t\\N\ttrue", f"login;password\n{user()};")),
    ("markdown_file_checksums", "log", lambda: "| file | sha256 | size |\n|---|---|---|\n" + "\n".join(
        f"| {pick('app.tar.gz', 'cli-linux-amd64', 'checksums.txt')} | {sha()} | {n()} KB |" for _ in range(2))),
    ("markdown_password_policy", "log", lambda: pick(
        "| Setting | Value |\n|---|---|\n| password min length | 12 |\n| password expiry | 90 days |\n| token ttl | 3600 |",
        "| Column | Type | Notes |\n|---|---|---|\n| password_hash | text | bcrypt |\n| api_token | varchar(64) | unique |",
        "| User | MFA | Password set |\n|---|---|---|\n| alice | yes | true |\n| bob | no | false |")),
    ("psql_booleans", "log", lambda: grid(["usename", "usesuper", "passwd"], [[user(), pick("t", "f"), "********"] for _ in range(2)], style="psql")),
    ("psql_describe_table", "log", lambda: (
        '                 Table "public.users"\n    Column     |           Type           | Nullable | Default\n'
        '---------------+--------------------------+----------+---------\n id            | bigint                   | not null |\n'
        ' password_hash | text                     | not null |\n api_token     | character varying(64)    |          |\n'
        ' created_at    | timestamp with time zone | not null | now()')),
    ("mysql_masked", "log", lambda: grid(["User", "Host", "authentication_string"], [[user(), "%", pick("", "****")] for _ in range(2)], style="mysql")),
    ("mysql_counts", "log", lambda: grid(["service", "token_count", "last_used"], [[svc(), n(), date()] for _ in range(2)], style="mysql")),
    ("sqlite_password_dates", "log", lambda: grid(["name", "password_changed", "tokens_issued"], [[user(), date(), n()] for _ in range(2)], style="fixed")),
    ("sql_insert_placeholders", "log", lambda: pick(
        "INSERT INTO users (name, password_hash, api_token) VALUES ($1, $2, $3)",
        "INSERT INTO users (name, password, token) VALUES (?, ?, ?);",
        "INSERT INTO api_keys (owner, key, created_at) VALUES (%s, %s, now())",
        "INSERT INTO users (name, password) VALUES (:name, :password)",
        "INSERT INTO accounts (name, password, api_token) VALUES ('alice', NULL, DEFAULT);")),
    ("sql_update_null", "log", lambda: pick(
        f"UPDATE users SET password = NULL, password_reset_at = now() WHERE id = {n()};",
        "UPDATE sessions SET token = DEFAULT WHERE expires_at < now();",
        f"UPDATE users SET (password_changed_at, failed_logins) = (now(), 0) WHERE id = {n()};",
        "UPDATE api_keys SET revoked = true WHERE last_used < now() - interval '90 days';")),
    ("sql_ddl", "log", lambda: pick(
        "CREATE TABLE users (\n  id bigserial PRIMARY KEY,\n  password_hash text NOT NULL,\n  api_token varchar(64) UNIQUE\n);",
        "ALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
        "CREATE INDEX idx_tokens_owner ON tokens (owner_id);")),
    ("copy_checksums", "log", lambda: f"COPY public.artifacts (id, name, sha256, size) FROM stdin;\n{n()}\tapp.tar.gz\t{sha()}\t{n()}\n\\."),
    ("kubectl_get_secrets", "log", lambda: "NAME                  TYPE                                  DATA   AGE\n" + "\n".join(
        f"{pick('db-creds', 'default-token-x7k2p', 'regcred', 'tls-cert')}   {pick('Opaque', 'kubernetes.io/tls', 'kubernetes.io/dockerconfigjson')}   {_r.randint(1, 4)}      {_r.randint(1, 90)}d" for _ in range(3))),
    ("kubectl_env_refs", "log", lambda: pick(
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds\n      key: password",
        '"env": [{"name": "API_TOKEN", "valueFrom": {"secretKeyRef": {"name": "api", "key": "token"}}}]',
        '"secrets": [{"name": "DB_PASSWORD", "valueFrom": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"}]')),
    ("aws_table_without_secret", "log", lambda: (
        "-------------------------------------------------\n|               DescribeInstances               |\n+---------------------+------------+------------+\n"
        "|     InstanceId      |   State    |   Type     |\n+---------------------+------------+------------+\n"
        f"|  i-0{rnd(16, HEX)}  |  running   |  t3.micro  |\n+---------------------+------------+------------+")),
    ("aws_ssm_metadata", "log", lambda: (
        "||             Name             |     Type      |   Version  |   LastModifiedDate   ||\n"
        f"||  /prod/db/password  |  SecureString  |  {_r.randint(1, 9)}  |  {date()}T10:00:00Z  ||")),
    ("env_listing_plain", "log", lambda: "\n".join(pick(*x) for x in (
        ("PATH=/usr/local/sbin:/usr/local/bin:/usr/bin",), ("HOME=/home/" + user(),), ("LANG=en_US.UTF-8", "LANG=C.UTF-8"),
        ("TERM=xterm-256color",), ("HOSTNAME=web-7f9c", "SHLVL=1")))),
    ("env_listing_masked", "log", lambda: pick(
        "DB_PASSWORD=********\nDB_USER=app\nLOG_LEVEL=info", "  env:\n    NPM_TOKEN: ***\n    NODE_VERSION: 20",
        "Name                           Value\n----                           -----\nAPI_KEY                        ****\nPATH                           C:\\Windows")),
    ("powershell_env_plain", "log", lambda: "Name                           Value\n----                           -----\n" + "\n".join(
        f"{k.ljust(31)}{v}" for k, v in (("COMPUTERNAME", "WIN-" + rnd(7, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")), ("USERNAME", user()), ("NUMBER_OF_PROCESSORS", "8")))),
    ("vault_kv_metadata", "log", lambda: (
        "====== Metadata ======\nKey                Value\n---                -----\n"
        f"created_time       {date()}T09:12:44.1Z\ncustom_metadata    <nil>\ndeletion_time      n/a\ndestroyed          false\nversion            {_r.randint(1, 9)}")),
    ("secret_listings_without_values", "log", lambda: pick(
        "NAME                UPDATED\nNPM_TOKEN           about 2 months ago\nDOCKERHUB_PASSWORD  about 1 year ago",
        "Name              Enabled    Expires\n----------------  ---------  ----------\ndb-password       True       2026-01-01\nstripe-api-key    True",
        '{"total_count": 2, "secrets": [{"name": "NPM_TOKEN", "created_at": "2025-01-10T10:00:00Z"}, {"name": "PYPI_PASSWORD", "created_at": "2025-02-01T09:00:00Z"}]}')),
    ("html_table_without_secret", "log", lambda: pick(
        f"<table>\n  <tr><th>User</th><th>Password changed</th></tr>\n  <tr><td>{user()}</td><td>{date()}</td></tr>\n</table>",
        "<table><tr><th>Token</th><th>Scopes</th></tr><tr><td>****</td><td>repo, workflow</td></tr></table>",
        f"<dl>\n  <dt>Password</dt>\n  <dd>Last changed {date()}</dd>\n</dl>")),
    ("name_value_non_secret", "log", lambda: pick(
        '[["DB_HOST", "db1.internal"], ["DB_PORT", "5432"]]', '{"name": "TOKEN_TTL", "value": "3600"}',
        '[{"ParameterKey": "Env", "ParameterValue": "prod"}, {"ParameterKey": "DBPassword", "ParameterValue": "****"}]',
        "- name: PASSWORD_MIN_LENGTH\n  value: \"12\"", '{"Key": "TokenRotationDays", "Value": "30"}')),
    ("redis_non_secret", "log", lambda: f'127.0.0.1:6379> HGETALL user:{n()}\n1) "name"\n2) "{user()}"\n3) "password_changed_at"\n4) "{date()}"\n5) "token_count"\n6) "{n()}"'),
    ("etcd_non_secret", "log", lambda: pick(f"$ etcdctl get /config/db/password_rotation_days\n/config/db/password_rotation_days\n{_r.randint(7, 90)}",
                                           "$ etcdctl get /services/api/token_ttl\n/services/api/token_ttl\n3600s")),
    ("prompt_not_echoed", "log", lambda: pick("Password:\nLogin successful", "Password: \nSorry, try again.", "Enter API token:\n> (hidden)",
                                              f"Enter passphrase for key '/home/{user()}/.ssh/id_ed25519':\nIdentity added: /home/{user()}/.ssh/id_ed25519",
                                              "Password:\n\nsu: Authentication failure")),
    ("ini_yaml_policy_sections", "log", lambda: pick(
        "[password_policy]\nmin_length = 12\nrequire_symbols = true\nmax_age_days = 90",
        "[tokens]\nttl = 3600\nrefresh = true", "secrets:\n  provider: vault\n  mount: kv/\n  refresh_interval: 1h",
        "passwords:\n  min_length: 12\n  history: 5", "[credentials]\nsource = environment\nprofile = default")),
    ("log_kv_non_secret", "log", lambda: pick(
        f"{ts()} DEBUG config key: auth.token_ttl\n{ts()} DEBUG config value: 3600",
        "field: password\nvalue: <redacted>", "field: password_expires_at\nvalue: 2026-03-01T00:00:00Z",
        f"{ts()} INFO rotated secret: db-password\n{ts()} INFO new version: {_r.randint(2, 9)}")),
]


def tabular() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_16)
    return heldout._records(SECRETS, BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = tabular()
    heldout._write(HERE / "tabular_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "tabular_benign.jsonl.gz", benign_rows)
    print(f"tabular: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
