"""A twenty-second held-out set: secrets that carry the escaping rules of the text around them.

    python -m tests.secret_corpus.escaped   # rewrites escaped_*.jsonl.gz here

The other sets hold encodings of a whole pair (``wrapped``: URL-encoding, JSON in JSON, HTML entities, reprs); this
one holds what an encoder does INSIDE a value and to the quotes AROUND it, written from the formats' own escaping
rules before reading the patterns. Kinds (each a family of formats):

- a value that holds its own container's quote, escaped by that container's rule, so that a scrubber stopping at the
  first quote leaks the tail: JSON's ``\\"``, a shell's ``\\"`` inside double quotes and ``'\\''`` / ``'"'"'`` inside
  single quotes, SQL's and YAML's doubled ``''``, ADO/ODBC's doubled ``""`` and ``}}``;
- a whole container quoted again by doubling: JSON or ``key="value"`` inside a CSV cell (``""password"": ""..""``), a
  Python dict or JSON inside an SQL string literal (``''password'': ''..''``);
- the separator or the quotes written as a code: nginx's ``\\x22`` of a logged request body, JavaScript's ``\\u0022``
  and ``\\u003d``, HTML's numeric references (``&#34;``, ``&#x22;``, ``&#61;``) in an echoed form,
  quoted-printable mail (``=3D``, ``=22``, ``=3A=20``) and RFC 2047 encoded words (``=?UTF-8?Q?..?=``),
  URL-encoded ``%3A%20`` and a URL nested in a parameter (``%3A`` userinfo, ``%2521``);
- shell and build-tool escaping inside a value: a backslash before a space or a special (``\\ ``, ``\\!``, ``\\$``),
  ANSI-C ``$'..\\x21..'``, cmd's ``^&``, make's and compose's ``$$``;
- markup that wraps a value: XML ``<![CDATA[..]]>``, TOML's ``'''..'''`` and ``\"\"\"..\"\"\"``;
- argv written with its NULs escaped (``\\x00``, ``\\0``, ``^@``, ``\\u0000``) as ``/proc/<pid>/cmdline`` is dumped.

Benign: the same escapes around no secret (JSON with escaped quotes in a message or an ETag, CSV cells with doubled
quotes, SQL literals holding JSON settings, nginx request bodies without a password, quoted-printable notices about
passwords, encoded-word subjects, shell-escaped paths, ``IFS=$'\\n'``, cmd ``echo ^<``, make's ``$$HOME``, CDATA
descriptions, TOML multi-line descriptions, argv with ``--password-file``), masked and placeholder values in each
container (``""password"": ""****""``, ``\\x22password\\x22:\\x22\\x22``, ``=3D"<your-password>"``).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). ``tests/test_scrub_escaped.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

from urllib.parse import quote

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import tok
from tests.secret_corpus.heldout import ALNUM, HERE, HEX, Maker, pick, rnd
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: escaped() seeds it


def n() -> str:
    return str(_r.randint(1, 999))


def ts() -> str:
    return f"2026-12-0{_r.randint(1, 3)}T0{_r.randint(0, 9)}:{_r.randint(10, 59)}:{_r.randint(10, 59)}Z"


def user() -> str:
    return pick("alice", "deploy", "svc_etl", "app", "backup", "ops", "reporting")


def host() -> str:
    return pick("db.internal", "10.0.3.7", "pg-prod-1", "mq.example.com", "smtp.example.net")


def pw_with(escape: str) -> str:
    """A human password whose middle holds ``escape`` (a quote as the container escapes it)."""
    base = fpw()
    cut = _r.randint(4, len(base) - 4)
    return base[:cut] + escape + base[cut:]


def pw_key() -> str:
    return pick("password", "db_password", "passwd", "smtp_password", "adminPassword", "pwd")


def tok_key() -> str:
    return pick("api_key", "token", "client_secret", "access_token", "apiKey", "secret_key", "auth_token")


def token() -> str:
    return pick(tok(24, 40), "sk_live_" + rnd(24), "ghp_" + rnd(36), rnd(32, HEX + "ABCDEF"))


def urlq(text: str) -> str:
    """Percent-encoding of a password as a URL's userinfo carries it (``@`` left out: a host would follow it)."""
    return quote(text.replace("@", "."), safe="")


def qp(text: str) -> str:
    """Quoted-printable (RFC 2045) of ASCII text: ``=``, ``"`` and ``:`` as some mailers write them."""
    return text.replace("=", "=3D").replace('"', "=22")


SECRETS: list[tuple[str, str, Maker]] = [
    # a value holding its container's own quote, escaped by the container's rule
    ("json_escaped_quote_in_password", "log", one(lambda: pw_with('\\"'),
        lambda s: f'{ts()} ERROR auth: login rejected body={{"user":"{user()}","{pw_key()}":"{s}"}}',
        lambda s: f'{{"level":"error","msg":"bad credentials","{pw_key()}":"{s}","attempt":{n()}}}',
        lambda s: f'ValidationError: {{"{pw_key()}": "{s}", "username": "{user()}"}}')),
    ("json_escaped_quote_in_secret", "log", one(lambda: rnd(14) + '\\"' + rnd(14, ALNUM + "!#%"),
        lambda s: f'{{"client_id":"web-{n()}","client_secret":"{s}"}}',
        lambda s: f'POST /oauth/token failed: {{"grant_type":"client_credentials","client_secret":"{s}"}}',
        lambda s: f'"api_key": "{s}",')),
    ("shell_double_quoted_escapes", "log", one(lambda: pw_with(pick('\\"', "\\$", "\\`")),
        lambda s: f'+ export DB_PASSWORD="{s}"',
        lambda s: f'$ psql "host={host()} user={user()} password=\\"{s}\\""',
        lambda s: f'RUN echo "SMTP_PASSWORD=\\"{s}\\"" >> /etc/app.env',
        lambda s: f'docker run -e "POSTGRES_PASSWORD={s}" postgres:16')),
    ("shell_single_quote_reopened", "log", one(lambda: pw_with(pick("'\\''", "'\"'\"'")),
        lambda s: f"$ mysql -u {user()} -p'{s}' -h {host()}",
        lambda s: f"+ export API_PASSWORD='{s}'",
        lambda s: f"ssh {host()} 'PGPASSWORD='\\''{s}'\\'' pg_dump app'",
        lambda s: f"sh -c 'curl -u {user()}:'\\''{s}'\\'' https://{host()}/'")),
    ("sql_doubled_single_quote", "log", one(lambda: pw_with("''"),
        lambda s: f"ERROR: syntax error at or near \"BY\"\nSTATEMENT: ALTER USER {user()} IDENTIFIED BY '{s}'",
        lambda s: f"LOG:  statement: CREATE ROLE {user()} LOGIN PASSWORD '{s}';",
        lambda s: f"Msg 15118: CREATE LOGIN [{user()}] WITH PASSWORD = N'{s}'",
        lambda s: f"INSERT INTO credentials (name, password) VALUES ('{user()}', '{s}');")),
    ("yaml_single_quoted_doubled", "log", one(lambda: pw_with("''"),
        lambda s: f"error parsing values.yaml line {n()}: password: '{s}'",
        lambda s: f"  db_password: '{s}'\n  db_user: {user()}",
        lambda s: f"- {{name: {user()}, password: '{s}'}}")),
    ("ado_doubled_quotes", "log", one(lambda: pw_with(pick('""', "}}")),
        lambda s: f'Server={host()};Database=app;User Id={user()};Password="{s}";' if '""' in s else f"Server={host()};Database=app;Uid={user()};Pwd={{{s}}};",
        lambda s: f'connectionString="Data Source={host()};User ID={user()};Password=""{s}"";"' if '""' in s else f"DRIVER={{ODBC Driver 18}};SERVER={host()};PWD={{{s}}};UID={user()}")),
    # a whole container quoted again by doubling its quotes
    ("csv_cell_json_doubled", "log", one(lambda: pick(fpw(), token()),
        lambda s: f'{n()},{user()},"{{""username"": ""{user()}"", ""password"": ""{s}""}}",{ts()}',
        lambda s: f'"{ts()}","connector","{{""host"":""{host()}"",""api_key"":""{s}""}}","failed"',
        lambda s: f'id,config\n{n()},"{{""client_secret"": ""{s}"", ""region"": ""eu-west-1""}}"')),
    ("csv_cell_kv_doubled", "log", one(lambda: pick(fpw(), token()),
        lambda s: f'{n()},"password=""{s}""",{host()}',
        lambda s: f'"{ts()}","ERROR","connect failed: user=""{user()}"" password=""{s}"""',
        lambda s: f'{user()};"--token ""{s}"" --verbose";exit 1')),
    ("sql_literal_dict_doubled", "log", one(lambda: pick(fpw(), token()),
        lambda s: f"INSERT INTO settings (name, value) VALUES ('smtp', '{{''password'': ''{s}'', ''port'': 587}}');",
        lambda s: f"UPDATE integrations SET config = '{{\"api_key\": \"{s}\"}}' WHERE id = {n()};",
        lambda s: f"ERROR:  invalid input syntax for type json\nDETAIL:  Token \"'\" is invalid.\nCONTEXT:  JSON data, line 1: {{''token'': ''{s}''...",
        lambda s: f"EXEC sp_set_config N'{{''client_secret'':''{s}''}}'")),
    # the separator or the quotes written as a code
    ("nginx_x22_body", "log", one(lambda: pick(fpw(), token()),
        lambda s: f'10.0.{n()}.7 - - [03/Dec/2026:07:01:02 +0000] "POST /api/login HTTP/1.1" 401 17 "-" "curl/8.5.0" "{{\\x22username\\x22:\\x22{user()}\\x22,\\x22password\\x22:\\x22{s}\\x22}}"',
        lambda s: f'request_body="{{\\x22{tok_key()}\\x22: \\x22{s}\\x22}}" status=403',
        lambda s: f'body:{{\\x22grant_type\\x22:\\x22password\\x22,\\x22password\\x22:\\x22{s}\\x22}}')),
    ("js_unicode_escaped_quotes", "log", one(lambda: pick(fpw(), token()),
        lambda s: f'payload: "{{\\u0022{pw_key()}\\u0022:\\u0022{s}\\u0022}}"',
        lambda s: f"data-config='{{\\u0022{tok_key()}\\u0022:\\u0022{s}\\u0022}}'",
        lambda s: f'"query":"password\\u003d{s}\\u0026user\\u003d{user()}"',
        lambda s: f"logged: {{\\u0027{pw_key()}\\u0027: \\u0027{s}\\u0027}}")),
    ("html_numeric_refs", "log", one(lambda: pick(fpw(), token()),
        lambda s: f"<pre>{{&#34;{pw_key()}&#34;:&#34;{s}&#34;}}</pre>",
        lambda s: f"<td>{{&#x22;{tok_key()}&#x22;: &#x22;{s}&#x22;}}</td>",
        lambda s: f"<p>Request: password&#61;{s}&#38;user&#61;{user()}</p>",
        lambda s: f"&lt;input type=&#34;hidden&#34; name=&#34;{tok_key()}&#34; value=&#34;{s}&#34;&gt;")),
    ("html_input_value", "log", one(lambda: pick(fpw(), token()),
        lambda s: f'<input type="password" name="password" value="{s}">',
        lambda s: f"<input name='{tok_key()}' type='hidden' value='{s}'/>",
        lambda s: f"&lt;input name=&quot;password&quot; value=&quot;{s}&quot;&gt;")),
    ("quoted_printable_mail", "log", one(lambda: pick(fpw(), token()),
        lambda s: "Content-Transfer-Encoding: quoted-printable\n\n" + qp(f'{pw_key()}="{s}"'),
        lambda s: "Content-Transfer-Encoding: quoted-printable\n\n" + qp(f"<a href=\"https://app.example.com/verify?token={s}\">Verify</a>"),
        lambda s: "Content-Transfer-Encoding: quoted-printable\n\nYour temporary password=3A=20" + s,
        lambda s: "Content-Transfer-Encoding: quoted-printable\n\n" + qp(f'<code data-key="api_key" data-value="x">api_key = "{s}"</code>'))),
    ("mime_encoded_word", "log", one(lambda: fpw().replace("?", "=3F").replace("_", "=5F"),
        lambda s: f"Subject: =?UTF-8?Q?Your_new_password_is_{s}?=",
        lambda s: f"Subject: =?utf-8?q?Passwort=3A_{s}?=",
        lambda s: f"X-Debug: =?UTF-8?Q?password=3D{s}?=")),
    ("url_encoded_colon_space", "log", one(lambda: pick(fpw(), token()),
        lambda s: f"GET /log?msg=invalid%20password%3A%20{s} HTTP/1.1",
        lambda s: f"error=invalid_client&error_description=client_secret%3A%20{s}%20rejected",
        lambda s: f"q=api_key%3A%20%22{s}%22")),
    ("url_nested_userinfo", "log", one(lambda: pick(urlq(fpw()), tok(16, 24)),
        lambda s: f"GET /login?next=https%3A%2F%2F{user()}%3A{s}%40{host()}%2Fadmin HTTP/1.1",
        lambda s: f"redirect_uri=amqp%3A%2F%2F{user()}%3A{s}%40{host()}%3A5672%2F",
        lambda s: f"Location: /sso?return=https%253A%252F%252F{user()}%253A{s.replace('%', '%25')}%2540{host()}%252F" if "%" not in s else f"Location: /sso?return=https%3A%2F%2F{user()}%3A{s}%40{host()}%2F")),
    # shell and build-tool escaping inside a value
    ("shell_backslash_escapes", "log", one(lambda: pw_with(pick("\\ ", "\\!", "\\&", "\\;", "\\(")),
        lambda s: f"+ docker run -e DB_PASSWORD={s} app:latest",
        lambda s: f"$ mysqldump --password={s} app > dump.sql",
        lambda s: f"+ export SMTP_PASSWORD={s}",
        lambda s: f"exec: psql --set=password={s} -h {host()}")),
    ("ansi_c_quoting", "log", one(lambda: pw_with(pick("\\x21", "\\'", "\\t", "\\044")),
        lambda s: f"+ export DB_PASSWORD=$'{s}'",
        lambda s: f"+ curl -H $'Authorization: Token {s}' https://api.example.com",
        lambda s: f"declare -x API_TOKEN=$'{s}'",
        lambda s: f"+ mysql -u {user()} --password=$'{s}' app")),
    ("cmd_caret_escapes", "log", one(lambda: pw_with(pick("^&", "^|", "^<", "^^")),
        lambda s: f"C:\\build> set DB_PASSWORD={s}",
        lambda s: f"C:\\> setx API_TOKEN {s}",
        lambda s: f"C:\\deploy> sqlcmd -S {host()} -U {user()} -P {s}")),
    ("make_compose_dollars", "log", one(lambda: pw_with("$$"),
        lambda s: f"Makefile:{n()}: DB_PASSWORD := {s}",
        lambda s: f"      - POSTGRES_PASSWORD={s}",
        lambda s: f"    environment:\n      REDIS_PASSWORD: \"{s}\"",
        lambda s: f"make: *** [deploy] Error 1 (ADMIN_PASSWORD={s})")),
    # markup that wraps a value
    ("xml_cdata_value", "log", one(lambda: pick(pw_with(pick("&", "<", "]")), token()),
        lambda s: f"<password><![CDATA[{s}]]></password>",
        lambda s: f"<entry key=\"{pick('api.token', 'db.password', 'smtp.secret')}\"><![CDATA[{s}]]></entry>",
        lambda s: f"<add key=\"ClientSecret\"><value><![CDATA[{s}]]></value></add>",
        lambda s: f"<apiKey><![CDATA[{s}]]></apiKey>")),
    ("toml_multiline_literal", "log", one(lambda: pick(fpw(), token()),
        lambda s: f"{pick('token', 'api_key', 'password')} = '''{s}'''",
        lambda s: f'{pick("client_secret", "password", "auth_token")} = """\n{s}\n"""',
        lambda s: f"invalid TOML at line {n()}: secret_key = '''{s}")),
    # argv with its NULs escaped
    ("cmdline_escaped_nul", "log", one(lambda: pick(fpw(), token()),
        lambda s: f"cmdline='pg_dump\\x00-h\\x00{host()}\\x00--password\\x00{s}\\x00app'",
        lambda s: f"/proc/{n()}/cmdline: redis-server\\0--requirepass\\0{s}\\0--port\\06379",
        lambda s: f"mysqld^@--user={user()}^@--password={s}^@--port=3306",
        lambda s: f'"cmdline": "java\\u0000-Dapi.token={s}\\u0000-jar\\u0000app.jar"',
        lambda s: f"b'node\\x00server.js\\x00--api-key\\x00{s}\\x00'")),
]


BENIGN: list[tuple[str, str, object]] = [
    ("json_escaped_quotes_messages", "log", lambda: pick(
        '{"level":"error","msg":"expected \\"password\\" to be a string","field":"password"}',
        '{"error":"unknown option \\"--token\\"","hint":"see \\"app --help\\""}',
        f'{ts()} ERROR parse: {{"query":"SELECT \\"user\\" FROM \\"accounts\\" WHERE id = {n()}"}}',
        '{"title":"Reset your \\"password\\"","lang":"en"}')),
    ("json_etag_escaped", "log", lambda: pick(
        f'{{"ETag":"\\"{rnd(32, HEX)}\\"","status":304}}',
        f'{{"headers":{{"If-None-Match":"W/\\"{rnd(16, HEX)}\\""}}}}',
        f'"etag": "\\"{rnd(8, HEX)}-{rnd(8, HEX)}\\""')),
    ("json_masked_escaped", "log", lambda: pick(
        '{"user":"alice","password":"\\"********\\""}',
        '{"password":"","password_confirmation":""}',
        '{"client_secret":"\\u002a\\u002a\\u002a\\u002a","client_id":"web"}',
        '"api_key": "\\"<your-api-key>\\"",')),
    ("shell_escaped_paths", "log", lambda: pick(
        "+ cd /Users/alice/My\\ Documents/password\\ manager",
        "+ cp report\\ \\(final\\).pdf /mnt/share/",
        "$ export PS1=\"\\[\\e[32m\\]\\u@\\h\\[\\e[0m\\] \\$ \"",
        "+ echo \"DB_PASSWORD=\\\"$DB_PASSWORD\\\"\" >> .env",
        "+ export DB_PASSWORD=\"${DB_PASSWORD:?missing}\"")),
    ("shell_quote_reopened_plain", "log", lambda: pick(
        "sh -c 'echo '\\''hello world'\\'''",
        "+ alias ll='ls -la'\\''s'",
        "$ git commit -m 'don'\\''t log the password'",
        "ssh web-1 'grep -c '\\''password'\\'' /var/log/auth.log'")),
    ("sql_doubled_quotes_plain", "log", lambda: pick(
        "LOG:  statement: UPDATE users SET note = 'it''s done' WHERE id = 7;",
        "INSERT INTO messages (body) VALUES ('Your password couldn''t be changed');",
        "ERROR:  role \"app\" does not exist\nSTATEMENT: ALTER ROLE app PASSWORD NULL",
        "LOG:  statement: ALTER USER report PASSWORD '********';",
        "CREATE USER app WITH PASSWORD 'md5' || 'x'; -- placeholder")),
    ("csv_doubled_quotes_plain", "log", lambda: pick(
        f'{n()},{user()},"{{""username"": ""{user()}"", ""role"": ""admin""}}",{ts()}',
        f'id,config\n{n()},"{{""password"": """", ""region"": ""eu-west-1""}}"',
        f'"{ts()}","connector","{{""host"":""{host()}"",""api_key"":""****""}}","failed"',
        f'{n()},"password=""${{DB_PASSWORD}}""",{host()}',
        '"name","note"\n"alice","said ""reset my password"" twice"')),
    ("sql_literal_settings_plain", "log", lambda: pick(
        "INSERT INTO settings (name, value) VALUES ('smtp', '{''host'': ''smtp.example.com'', ''port'': 587}');",
        f"UPDATE integrations SET config = '{{\"region\": \"eu-west-1\", \"retries\": {n()}}}' WHERE id = {n()};",
        "INSERT INTO settings VALUES ('policy', '{''password_min_length'': 12, ''password_history'': 5}');",
        "UPDATE integrations SET config = '{''api_key'': ''${API_KEY}''}' WHERE id = 3;")),
    ("nginx_x22_plain", "log", lambda: pick(
        f'10.0.{n()}.7 - - [03/Dec/2026:07:01:02 +0000] "POST /api/login HTTP/1.1" 401 17 "-" "curl/8.5.0" "{{\\x22username\\x22:\\x22{user()}\\x22}}"',
        'request_body="{\\x22password\\x22: \\x22\\x22}" status=400',
        'body:{\\x22grant_type\\x22:\\x22client_credentials\\x22,\\x22scope\\x22:\\x22orders:read\\x22}',
        'request_body="{\\x22token\\x22: \\x22[FILTERED]\\x22}" status=403')),
    ("js_unicode_plain", "log", lambda: pick(
        'payload: "{\\u0022user\\u0022:\\u0022alice\\u0022,\\u0022remember\\u0022:true}"',
        "data-config='{\\u0022theme\\u0022:\\u0022dark\\u0022}'",
        f'"query":"page\\u003d{n()}\\u0026sort\\u003dname"',
        "logged: {\\u0027password\\u0027: \\u0027\\u2022\\u2022\\u2022\\u2022\\u0027}")),
    ("html_refs_plain", "log", lambda: pick(
        "<pre>{&#34;user&#34;:&#34;alice&#34;,&#34;password&#34;:&#34;&#34;}</pre>",
        "<p>Request: page&#61;2&#38;sort&#61;name</p>",
        "&lt;input type=&#34;password&#34; name=&#34;password&#34; autocomplete=&#34;current-password&#34;&gt;",
        '<input type="password" name="password" value="" required>',
        '<input type="password" name="password" placeholder="Enter your password">')),
    ("quoted_printable_plain", "log", lambda: "Content-Transfer-Encoding: quoted-printable\n\n" + pick(
        "Your password was changed on 3 December.=20If this wasn=E2=80=99t you, reset it.",
        '<a href=3D"https://app.example.com/settings?tab=3Dsecurity">Security settings</a>',
        "Content-Type: text/html; charset=3D\"utf-8\"",
        "==================================================",
        'password=3D"<your-password>"')),
    ("mime_encoded_word_plain", "log", lambda: pick(
        "Subject: =?UTF-8?Q?Password_reset_requested?=",
        "Subject: =?UTF-8?B?UGFzc3dvcmQgcmVzZXQgcmVxdWVzdGVk?=",
        "Subject: =?utf-8?q?Ihr_Passwort_wurde_ge=C3=A4ndert?=",
        "Reply-To: =?UTF-8?Q?Security_Team?= <no-reply>")),
    ("url_encoded_plain", "log", lambda: pick(
        "GET /log?msg=invalid%20password%3A%20too%20short HTTP/1.1",
        "error=invalid_client&error_description=client_secret%3A%20missing",
        f"GET /login?next=https%3A%2F%2Fapp.example.com%2Forders%2F{n()} HTTP/1.1",
        "redirect_uri=amqp%3A%2F%2Fguest%40mq.example.com%3A5672%2F")),
    ("ansi_c_plain", "log", lambda: pick(
        "+ IFS=$'\\n'", "+ printf $'\\e[1m%s\\e[0m\\n' done", "declare -x PS4=$'+ \\t'",
        "+ read -r -d $'\\0' line", "+ export DB_PASSWORD=$'$DB_PASSWORD_FILE'")),
    ("cmd_caret_plain", "log", lambda: pick(
        "C:\\build> echo ^<html^>",
        "C:\\> set PATH=%PATH%;C:\\tools",
        "C:\\> set DB_PASSWORD=%DB_PASSWORD%",
        "C:\\> echo a ^& b")),
    ("make_dollars_plain", "log", lambda: pick(
        "Makefile:12: DB_PASSWORD := $(shell cat .secrets/db)",
        "      - POSTGRES_PASSWORD=$${POSTGRES_PASSWORD}",
        "\tcd $$HOME && ./deploy.sh",
        "      - POSTGRES_PASSWORD_FILE=/run/secrets/db_password")),
    ("cdata_plain", "log", lambda: pick(
        "<description><![CDATA[Reset your password & sign in again]]></description>",
        "<password><![CDATA[]]></password>",
        "<password><![CDATA[${DB_PASSWORD}]]></password>",
        "<entry key=\"api.timeout\"><![CDATA[30s]]></entry>",
        "<script><![CDATA[var token = document.querySelector('meta').content;]]></script>")),
    ("toml_multiline_plain", "log", lambda: pick(
        "description = '''Rotate the password every 90 days.'''",
        'help = """\nSet token via the APP_TOKEN environment variable.\n"""',
        "regex = '''[A-Za-z0-9]{32}'''",
        'password_policy = """\nmin_length = 12\n"""')),
    ("cmdline_plain", "log", lambda: pick(
        "cmdline='nginx\\x00-g\\x00daemon off;\\x00'",
        f"/proc/{n()}/cmdline: postgres\\0-D\\0/var/lib/postgresql/data",
        "mysqld^@--user=mysql^@--password-file=/run/secrets/pw^@--port=3306",
        '"cmdline": "java\\u0000-Dapi.timeout=30\\u0000-jar\\u0000app.jar"',
        "b'node\\x00server.js\\x00--port\\x008080\\x00'")),
    ("hashes_in_escaped_json", "log", lambda: pick(
        f'{{\\"sha256\\":\\"{rnd(64, HEX)}\\",\\"size\\":{n()}}}',
        f'"integrity": "sha512-{rnd(86, ALNUM + "+/")}=="',
        f'{{\\x22commit\\x22:\\x22{rnd(40, HEX)}\\x22}}',
        f'&#34;request_id&#34;:&#34;{heldout.uuid()}&#34;')),
    ("shell_escaped_plain_values", "log", lambda: pick(
        "+ docker run -e TZ=Europe/Berlin -e LANG=C.UTF-8 app:latest",
        "$ mysqldump --single-transaction app > dump.sql",
        "+ export GREETING=Hello\\ World\\!",
        "+ export PASSWORD_FILE=/run/secrets/db\\ password")),
    ("yaml_quoted_plain", "log", lambda: pick(
        "  db_password: ''\n  db_user: app",
        "  message: 'it''s fine'",
        "- {name: alice, password: '********'}",
        "  password: '{{ vault_db_password }}'")),
    ("ado_plain", "log", lambda: pick(
        "Server=db.internal;Database=app;Integrated Security=True;",
        'connectionString="Data Source=db.internal;Initial Catalog=app;Integrated Security=SSPI"',
        "DRIVER={ODBC Driver 18};SERVER=db.internal;Trusted_Connection=yes",
        'Server=db.internal;User Id=app;Password="";')),
    ("csv_header_rows_plain", "log", lambda: pick(
        'username,password_changed_at,"last ""login"""\nalice,2026-11-30,2026-12-01',
        '"field","type"\n"password","string"\n"token","string"',
        f'{n()},"--token-file ""/run/secrets/tok""",ok')),
    ("escaped_json_placeholders", "log", lambda: pick(
        '{\\"password\\":\\"${DB_PASSWORD}\\"}',
        '{\\"api_key\\":\\"<your-api-key>\\"}',
        '{\\"token\\":null,\\"expires_in\\":3600}',
        '{\\u0022password\\u0022:\\u0022changeme\\u0022}')),
    ("escaped_prose", "log", lambda: pick(
        "Hint: passwords may contain \\\" and \\\\ when quoted in JSON.",
        "To include a quote in a password, write it as '' in SQL or \\\" in JSON.",
        "Note: the token is sent as \\u0022Authorization: Bearer \\u003ctoken\\u003e\\u0022.",
        "Use =3D for '=' in quoted-printable bodies.")),
    ("qp_headers_plain", "log", lambda: pick(
        "Content-Type: multipart/alternative; boundary=3D\"b1_7f3a\"",
        "X-Mailer: =?UTF-8?Q?Acme_Mailer_2=2E1?=",
        "Content-Transfer-Encoding: quoted-printable\n\nTo reset your token, visit=\n https://app.example.com/tokens",
        "Content-Transfer-Encoding: quoted-printable\n\napi_key=3D<set in dashboard>")),
    ("nul_argv_with_file_refs", "log", lambda: pick(
        "cmdline='pg_dump\\x00-h\\x00db.internal\\x00--no-password\\x00app'",
        "/proc/1/cmdline: vault\\0server\\0-config=/etc/vault.hcl",
        "redis-server^@/etc/redis/redis.conf^@--port^@6379",
        "b'app\\x00--token-file\\x00/var/run/secrets/token\\x00'")),
    ("cdata_hashes", "log", lambda: pick(
        f"<checksum><![CDATA[{rnd(64, HEX)}]]></checksum>",
        f"<etag><![CDATA[\"{rnd(32, HEX)}\"]]></etag>",
        f"<requestId><![CDATA[{heldout.uuid()}]]></requestId>")),
]


def escaped() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_22)
    return heldout._records(SECRETS, BENIGN, 9, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = escaped()
    heldout._write(HERE / "escaped_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "escaped_benign.jsonl.gz", benign_rows)
    print(f"escaped: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
