"""An eleventh held-out set: secrets as tools quote them: changes, search hits, findings, builds and traces.

    python -m tests.secret_corpus.quoted   # rewrites quoted_*.jsonl.gz here

Kinds the ten earlier sets do not hold, written before reading the scrubber's patterns (listed against the
other sets' module docstrings, their format names and docs/scrubbing.md's "Kinds covered" first): a line of source or
config as a tool quotes it, with the tool's own decoration glued in front or around it. Changes: unified diffs
(``+``/``-`` glued to the key, hunks inside a JSON ``"patch"`` string after an escaped ``\\n``), ``diff``'s normal
(``<``/``>``), context (``!``) and side-by-side forms, ``--word-diff`` brackets (``{+…+}``), Terraform plan
changes (``"old" -> "new"``), ``kubectl diff`` of a Secret's ``data``, ``helm diff --show-secrets``, Ansible's
``--diff``. Search and listings: ``grep -n`` hits and context lines (``path-12-``), ripgrep headings, vimgrep
and ``--json``, ``git grep`` at a revision, ``git blame``, ``cat -n``/``nl`` numbering, ``cat -A`` markers. Findings:
compiler excerpts (rustc, tsc), linters (ruff, bandit, semgrep), secret scanners' reports that echo what they
found (gitleaks, trufflehog, SARIF snippets, ``detect-secrets audit``). Builds: Dockerfile ``ENV k v``, ``docker
history`` build args, BuildKit logs, Makefile ``?=``/``:=``, CMake ``set()`` and ``-D`` defines, Bazel and Nix,
Gradle ``-P``/MSBuild ``/p:`` properties, secret stores' set commands whose value option names nothing
(``gh secret set --body``, ``az keyvault secret set --value``) or that read the value from a pipe. Process
traces: strace ``execve`` argv and env arrays and I/O buffers, auditd ``EXECVE`` ``aN=`` fields, ``/proc/PID/cmdline``
with NUL separators, an option and its value as consecutive list items (Kubernetes ``args``, ``kubectl
describe``), ``kubectl describe`` env values. Quoting: shell quotes escaped inside a value (``'\\''``,
``'"'"'``), an option and its value split by a backslash continuation, a value continued as a concatenated
string literal, numeric HTML entities (``&#34;``) and escaped markup (``&lt;Password&gt;``), JavaScript ``\\x3d``/
``\\u003d`` escapes, YAML block scalars (``|-``, ``>``) and multi-line string literals.

Benign: the same tools' output without a credential, each category saying why: diff and commit headers (SHAs,
``index a..b``, ``Change-Id``), diffs of placeholders and settings, Terraform ``(sensitive value)``, helm
diff's masks, grep and blame hits of code that reads a secret, compiler errors naming secret variables, linters
and scanners that name or mask (gitleaks ``--redact``, trivy stars, push-protection notices), scanner metadata
(``hashed_secret``, fingerprints, entropy), SARIF metadata, Dockerfiles with secret mounts and ``_FILE``
variables, ``docker history`` without arguments, build files that read the environment, secret-store commands
that read a file, strace/auditd lines without credentials (hex ``proctitle``), ``args`` with ports and file
options, ``kubectl describe`` references and sizes, escaped placeholders, block scalars of prose, shell quoting
and continuations without secrets, concatenated messages, numbered code that reads the environment, MCP
servers' error texts about credentials (Stripe's masked key, GitHub's ``Bad credentials``), CI log lines with
action SHAs, and binary or image data in diffs.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``; provider bodies carry ``FAKE`` where the shape allows). No benign line holds an e-mail address (PII
the scrubber removes by design). 50 secret formats x 4 and 30 benign categories x 5.
``tests/test_scrub_quoted.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: quoted() seeds it


# --- values -----------------------------------------------------------------------------------

def provider() -> str:
    """A provider token in its published shape (bodies random, marked FAKE where the shape allows)."""
    return pick(
        "ghp_" + rnd(36, ALNUM),
        "github_pat_11" + rnd(20, UPPER_ALNUM) + "_" + rnd(59, ALNUM),
        "xoxb-" + str(_r.randint(10**10, 10**11)) + "-" + str(_r.randint(10**12, 10**13)) + "-" + rnd(24, ALNUM),
        "sk_live_51" + rnd(22, ALNUM) + "FAKE" + rnd(68, ALNUM),
        "sk-proj-" + rnd(48, ALNUM + "-_") + "T3BlbkFJ" + rnd(48, ALNUM + "-_"),
        "glpat-" + rnd(20, ALNUM + "-_"),
        "ntn_" + rnd(11, "0123456789") + rnd(35, ALNUM),
        "lin_api_" + rnd(40, ALNUM),
        "sntrys_eyJ" + rnd(60, B64),
        "AKIA" + rnd(16, UPPER_ALNUM),
    )


def randtok() -> str:
    """A token without a prefix: random base62, base64url, hex or a JWT."""
    return pick(tok(28, 44), rnd(40, B64URL), rnd(32, HEX), rnd(64, HEX), jwt())


def anysecret() -> str:
    return pick(fpw(), randtok(), provider())


def pwtok() -> str:
    return pick(fpw(), randtok())


def key_name(kind: str = "any") -> str:
    pw_names = ["DB_PASSWORD", "POSTGRES_PASSWORD", "SMTP_PASS", "REDIS_PASSWORD", "MYSQL_ROOT_PASSWORD", "ADMIN_PASSWD"]
    tok_names = ["API_KEY", "STRIPE_SECRET_KEY", "GITHUB_TOKEN", "SLACK_BOT_TOKEN", "JWT_SECRET", "CLIENT_SECRET", "AUTH_TOKEN", "SENTRY_AUTH_TOKEN"]
    return _r.choice({"pw": pw_names, "tok": tok_names}.get(kind, pw_names + tok_names))


def camel(name: str) -> str:
    parts = name.lower().split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


def sha40() -> str:
    return rnd(40, HEX)


def short() -> str:
    return rnd(7, HEX)


def ln() -> int:
    return _r.randint(2, 240)


def path(kind: str = "env") -> str:
    return _r.choice({
        "env": [".env", ".env.production", "deploy/prod.env", "config/.env.staging"],
        "yaml": ["config/app.yaml", "helm/values-prod.yaml", "deploy/secrets.yml", "docker-compose.override.yml"],
        "py": ["app/settings.py", "src/config.py", "scripts/sync.py", "backend/core/settings/prod.py"],
        "js": ["src/config.ts", "lib/client.js", "server/index.mjs", "packages/api/src/env.ts"],
    }[kind])


def hunk() -> str:
    a = ln()
    return f"@@ -{a},{_r.randint(3, 7)} +{a},{_r.randint(3, 8)} @@"


def diff_head(p: str) -> str:
    return f"diff --git a/{p} b/{p}\nindex {short()}..{short()} 100644\n--- a/{p}\n+++ b/{p}\n{hunk()}"


def shown(value: Callable[[], str], templates: list[Callable[[str], str]]) -> Maker:
    return one(value, *templates)


# --- secrets ----------------------------------------------------------------------------------

def _side_by_side() -> tuple[str, str]:
    old, new, k = pwtok(), pwtok(), key_name()
    left = f"{k}={old}"
    return new, pick(
        f"{left:<48}|\t{k}={new}",
        f"{'  ' + camel(k) + ': ' + old:<50}|   {camel(k)}: {new}",
        f"$ diff -y old.env new.env\nAPP_ENV=production\t\t\t\t\tAPP_ENV=production\n{left:<56}|\t{k}={new}",
    )


def _concat() -> tuple[str, str]:
    a, b = rnd(_r.randint(20, 28), ALNUM), rnd(_r.randint(20, 28), ALNUM)
    k = key_name("tok")
    return b, pick(
        f"{k} = (\n    \"{a}\"\n    \"{b}\"\n)",
        f"const {camel(k)} =\n  \"{a}\" +\n  \"{b}\";",
        f"String {camel(k)} = \"{a}\"\n        + \"{b}\";",
        f"{camel(k)} := \"{a}\" +\n\t\"{b}\"",
    )


def _escaped_quotes() -> tuple[str, str]:
    """A password holding a quote, quoted for a shell or SQL: the part after the escaped quote is scored."""
    head = "Fake" + pick("harbor", "Quokka", "zephyr")
    tail = pick("Marble", "tundra", "Pylon") + pick("-", "#", "!") + str(_r.randint(1000, 9999)) + pick("ember", "saffron")
    return tail, _r.choice([
        "export DB_PASSWORD='" + head + "'\\''" + tail + "'",
        "mysql -u app --password='" + head + "'\"'\"'" + tail + "' shop",
        "docker run -e 'SMTP_PASSWORD=" + head + "'\\''" + tail + "' mailer",
        "ALTER USER app WITH PASSWORD '" + head + "''" + tail + "';",
    ])


def _trufflehog() -> tuple[str, str]:
    s = pick(rnd(32, HEX), rnd(40, ALNUM), "key-" + rnd(32, HEX), provider())
    det = pick("Mailgun", "Datadogtoken", "SendGrid", "Github", "Stripe", "Algolia", "Twilio")
    return s, pick(
        f"Found verified result 🐷🔑\nDetector Type: {det}\nDecoder Type: PLAIN\nRaw result: {s}\nFile: {path()}\nLine: {ln()}",
        f"Found unverified result 🐷🔑❓\nDetector Type: {det}\nDecoder Type: BASE64\nRaw result: {s}\nCommit: {sha40()}\nFile: {path('py')}",
        f"{{\"SourceMetadata\":{{\"Data\":{{\"Git\":{{\"commit\":\"{sha40()}\",\"file\":\"{path()}\",\"line\":{ln()}}}}}}},\"DetectorName\":\"{det}\",\"Verified\":true,\"Raw\":\"{s}\",\"RawV2\":\"\",\"Redacted\":\"\"}}",
        f"{{\"DetectorType\":17,\"DetectorName\":\"{det}\",\"DecoderName\":\"PLAIN\",\"Verified\":false,\"Raw\":\"{s}\",\"ExtraData\":null}}",
    )


QUOTED_SECRETS: list[tuple[str, str, Maker]] = [
    # changes: diffs and plans ---------------------------------------------------------------------
    ("git_diff_env_lines", "log", one(pwtok,
        lambda s: f"{diff_head(path())}\n APP_ENV=production\n-{key_name()}=changeme\n+{key_name()}={s}\n LOG_LEVEL=info",
        lambda s: f"{diff_head(path())}\n-{key_name()}={s}\n+{key_name()}=${{{key_name()}}}",
        lambda s: f"+{key_name()}={s}",
        lambda s: f"{hunk()}\n PORT=8080\n+export {key_name()}=\"{s}\"",
    )),
    ("git_diff_config_lines", "log", one(anysecret,
        lambda s: f"{diff_head(path('yaml'))}\n database:\n   host: db01.internal\n-  password: old\n+  password: {s}",
        lambda s: f"{hunk()}\n   \"db\": {{\n-    \"password\": \"\",\n+    \"password\": \"{s}\",",
        lambda s: f"+  apiKey: \"{s}\"",
        lambda s: f"--- a/config.ini\n+++ b/config.ini\n{hunk()}\n [smtp]\n-password =\n+password = {s}",
    )),
    ("git_diff_source_lines", "log", one(lambda: pick(randtok(), provider()),
        lambda s: f"{diff_head(path('py'))}\n-client = OpenAI()\n+client = OpenAI(api_key=\"{s}\")",
        lambda s: f"{diff_head(path('js'))}\n+const {camel(key_name('tok'))} = '{s}';",
        lambda s: f"+    headers = {{\"Authorization\": \"Bearer {s}\"}}",
        lambda s: f"-SECRET_KEY = os.environ[\"SECRET_KEY\"]\n+SECRET_KEY = \"{s}\"",
    )),
    ("diff_normal_and_context", "log", one(pwtok,
        lambda s: f"$ diff old.env new.env\n3c3\n< {key_name()}=hunter2old\n---\n> {key_name()}={s}",
        lambda s: f"12a13\n> {key_name()}={s}",
        lambda s: f"*** settings.py.orig\n--- settings.py\n***************\n*** 12,14 ****\n! SECRET_KEY = 'dev'\n--- 12,14 ----\n! SECRET_KEY = '{s}'",
        lambda s: f"5d4\n< {camel(key_name())}: {s}",
    )),
    ("diff_side_by_side", "log", _side_by_side),
    ("word_diff", "log", one(pwtok,
        lambda s: f"{key_name()}=[-changeme-]{{+{s}+}}",
        lambda s: f"  password: [-\"\"-]{{+\"{s}+}}\"",
        lambda s: f"@@ -4 +4 @@ smtp:\n    pass: {{+{s}+}}[-TODO-]",
        lambda s: f"api_key = [-{s}-]{{+os.environ[\"API_KEY\"]+}}",
    )),
    ("diff_in_json_patch", "json", one(pwtok,
        lambda s: json.dumps({"filename": path(), "status": "modified", "additions": 1, "deletions": 1,
                              "patch": f"{hunk()}\n APP_ENV=production\n-{key_name()}=\n+{key_name()}={s}\n LOG_LEVEL=info"}),
        lambda s: json.dumps({"path": path("yaml"), "diff_hunk": f"{hunk()}\n database:\n+  password: {s}", "body": "please move this to the vault"}),
        lambda s: json.dumps({"type": "text", "text": f"diff --git a/{path()} b/{path()}\n{hunk()}\n+{key_name()}={s}\n"}),
        lambda s: json.dumps({"old_path": path(), "diff": f"{hunk()}\n-{key_name()}=x\n+{key_name()}={s}\n"}),
    )),
    ("git_log_patch", "log", one(lambda: pick(provider(), randtok()),
        lambda s: f"commit {sha40()}\nAuthor: Alice Doe\nDate:   Thu Jan 9 10:22:31 2025 +0000\n\n    wip\n\n{diff_head(path())}\n+{key_name('tok')}={s}",
        lambda s: f"{short()} wip: local config\n {path()} | 1 +\n{hunk()}\n+{key_name('tok')}={s}",
        lambda s: f"From {sha40()} Mon Sep 17 00:00:00 2001\nSubject: [PATCH] add ci token\n---\n{diff_head('.github/workflows/ci.yml')}\n+      {key_name('tok')}: {s}",
        lambda s: f"stash@{{0}}: WIP on main: {short()} fix\n{hunk()}\n+{camel(key_name('tok'))} = \"{s}\"",
    )),
    ("terraform_plan_changes", "log", one(pwtok,
        lambda s: f"  # aws_db_instance.main will be updated in-place\n  ~ resource \"aws_db_instance\" \"main\" {{\n      ~ password = \"old-{_r.randint(10, 99)}\" -> \"{s}\"\n    }}",
        lambda s: f"      ~ environment = {{\n          + \"{key_name()}\" = \"{s}\"\n        }}",
        lambda s: f"      - token    = \"{s}\" -> null",
        lambda s: f"  + resource \"github_actions_secret\" \"deploy\" {{\n      + plaintext_value = \"{s}\"\n      + secret_name     = \"DEPLOY_KEY\"\n    }}",
    )),
    ("kubectl_diff_secret_data", "log", shown(lambda: b64s(pwtok()), [
        lambda s: f"diff -u -N /tmp/LIVE-123/v1.Secret.prod.db-creds /tmp/MERGED-456/v1.Secret.prod.db-creds\n--- /tmp/LIVE-123/v1.Secret.prod.db-creds\n+++ /tmp/MERGED-456/v1.Secret.prod.db-creds\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  password: {b64s('old')}\n+  password: {s}\n kind: Secret",
        lambda s: f" data:\n+  token: {s}\n kind: Secret",
        lambda s: f"@@ -3,7 +3,7 @@\n data:\n-  config.json: {b64s('{}')}\n+  config.json: {s}",
        lambda s: f"+  api-key: {s}",
    ])),
    ("helm_diff_show_secrets", "log", one(pwtok,
        lambda s: f"default, db-creds, Secret (v1) has changed:\n  # Source: app/templates/secret.yaml\n  apiVersion: v1\n  kind: Secret\n  stringData:\n-   DB_PASSWORD: 'old'\n+   DB_PASSWORD: '{s}'",
        lambda s: f"default, api, Secret (v1) has been added:\n+ stringData:\n+   token: {s}",
        lambda s: f"-   {key_name()}: \"x\"\n+   {key_name()}: \"{s}\"",
        lambda s: f"  data:\n+   password: '{s}'",
    )),
    ("ansible_diff_output", "log", one(pwtok,
        lambda s: f"--- before: /etc/app/app.conf\n+++ after: /tmp/ansible-tmp/app.conf.j2\n@@ -1,3 +1,3 @@\n [db]\n-password = old\n+password = {s}",
        lambda s: "changed: [web1] => " + json.dumps({"diff": [{"after": f"db_password: {s}\n", "before": "db_password: old\n", "after_header": "/etc/app.yml"}]}),
        lambda s: f"TASK [app : render env] ****\n--- before\n+++ after\n@@ -2 +2 @@\n-{key_name()}=\n+{key_name()}={s}",
        lambda s: f"--- before: /etc/redis/redis.conf (content)\n+++ after: /etc/redis/redis.conf (content)\n@@ -480 +480 @@\n-# requirepass foobared\n+requirepass {s}",
    )),
    # search hits and listings -----------------------------------------------------------------------
    ("grep_hits", "log", one(anysecret,
        lambda s: f"$ grep -rn PASSWORD .\n./{path()}:{ln()}:{key_name('pw')}={s}",
        lambda s: f"{path('py')}:{ln()}:    'PASSWORD': '{s}',",
        lambda s: f"{path('yaml')}:{ln()}:  secret: {s}",
        lambda s: f"Binary file .git/index matches\n{path('js')}:{ln()}:export const apiKey = \"{s}\";",
    )),
    ("grep_context_lines", "log", one(pwtok,
        lambda s: f"{path('py')}-{ln()}-DATABASES = {{\n{path('py')}:{ln()}:    'default': {{\n{path('py')}-{ln()}-        'PASSWORD': '{s}',",
        lambda s: f"{path()}-{ln()}-{key_name()}={s}\n{path()}:{ln()}:DEBUG=true",
        lambda s: f"--\n{path('yaml')}-{ln()}-  token: {s}\n{path('yaml')}:{ln()}:  url: https://api.example.com",
        lambda s: f"{path('js')}-{ln()}-  clientSecret: '{s}',",
    )),
    ("ripgrep_forms", "log", one(anysecret,
        lambda s: f"{path()}\n{ln()}:{key_name()}={s}\n{ln()}:LOG_LEVEL=debug",
        lambda s: f"{path('py')}:{ln()}:{_r.randint(1, 20)}:    api_key=\"{s}\",",
        lambda s: f"{path('yaml')}\n{ln()}:    password: {s}",
        lambda s: f"{path('js')}:{ln()}:{_r.randint(1, 20)}:const token = `{s}`;",
    )),
    ("ripgrep_json", "json", one(anysecret,
        lambda s: json.dumps({"type": "match", "data": {"path": {"text": path()}, "lines": {"text": f"{key_name()}={s}\n"}, "line_number": ln(), "absolute_offset": 812, "submatches": [{"match": {"text": key_name()}, "start": 0, "end": 11}]}}),
        lambda s: json.dumps({"type": "match", "data": {"path": {"text": path("py")}, "lines": {"text": f"    password=\"{s}\",\n"}, "line_number": ln()}}),
        lambda s: json.dumps({"type": "context", "data": {"path": {"text": path("yaml")}, "lines": {"text": f"  token: {s}\n"}, "line_number": ln()}}),
        lambda s: json.dumps({"type": "match", "data": {"path": {"text": path("js")}, "lines": {"text": f"const secret = '{s}';\n"}, "line_number": ln()}}),
    )),
    ("git_grep_revision", "log", one(anysecret,
        lambda s: f"HEAD~3:{path()}:{ln()}:{key_name()}={s}",
        lambda s: f"{sha40()}:{path('yaml')}:{ln()}:  api_key: {s}",
        lambda s: f"origin/main:{path('py')}:{ln()}:SECRET_KEY = '{s}'",
        lambda s: f"v1.4.2:{path('js')}:{ln()}:  token: \"{s}\",",
    )),
    ("git_blame_lines", "log", one(anysecret,
        lambda s: f"^{short()} ({pick('Alice Doe', 'Bob Ray', 'ci-bot')} 2024-03-0{_r.randint(1, 9)} 10:11:12 +0000 {ln()}) {key_name()}={s}",
        lambda s: f"{short()}{short()[:1]} {path('py')} (Alice Doe 2024-11-20 09:01:02 +0100 {ln()})     password=\"{s}\",",
        lambda s: f"{sha40()} {ln()} {ln()} 1\nauthor Alice Doe\nauthor-time 1700000000\nsummary add config\nfilename {path('yaml')}\n\tsecret: {s}",
        lambda s: f"{short()} (Bob Ray 2023-07-14 {ln():>4})   apiKey: '{s}',",
    )),
    ("numbered_listing", "log", one(anysecret,
        lambda s: f"$ cat -n {path()}\n     1\tAPP_ENV=production\n     2\t{key_name()}={s}",
        lambda s: f"{ln():>6}\t    password = \"{s}\"",
        lambda s: f"  {ln()} |   api_key: {s}",
        lambda s: f"{ln():>4}  SECRET_KEY = '{s}'",
    )),
    ("cat_show_all", "log", one(pwtok,
        lambda s: f"$ cat -A {path()}\nAPP_ENV=production$\n{key_name()}={s}$",
        lambda s: f"{key_name()}={s}^M$",
        lambda s: f"password:^I{s}$",
        lambda s: f"export {key_name()}=\"{s}\"^M$\nexport PORT=8080^M$",
    )),
    # findings: compilers, linters, scanners ---------------------------------------------------------
    ("rustc_excerpt", "exception", one(randtok,
        lambda s: f"error[E0308]: mismatched types\n  --> src/main.rs:{ln()}:24\n   |\n{ln()} |     let api_key: u32 = \"{s}\";\n   |                  ---   ^^^^ expected `u32`, found `&str`",
        lambda s: f"warning: unused variable: `token`\n --> src/lib.rs:{ln()}:9\n  |\n{ln()} |     let token = \"{s}\";\n  |         ^^^^^ help: if this is intentional, prefix it with an underscore: `_token`",
        lambda s: f"error: expected `;`, found `let`\n  --> build.rs:{ln()}:57\n   |\n{ln()} |     const SECRET: &str = \"{s}\"\n   |                                                         ^ help: add `;` here",
        lambda s: f"   |\n{ln()} |         .bearer_auth(\"{s}\")\n   |          ^^^^^^^^^^^ method not found in `RequestBuilder`",
    )),
    ("tsc_excerpt", "exception", one(randtok,
        lambda s: f"{path('js')}:{ln()}:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n{ln()} const apiKey: number = \"{s}\";\n         ~~~~~~",
        lambda s: f"src/client.ts({ln()},5): error TS2353: Object literal may only specify known properties, and 'token' does not exist in type 'Options'.\n\n{ln()}     token: '{s}',\n         ~~~~~",
        lambda s: f"error TS1005: ',' expected.\n\n{ln()}   clientSecret: \"{s}\"\n                                                  ~",
        lambda s: f"{path('js')}({ln()},14): error TS2304: Cannot find name 'secretKey'.\n{ln()} const k = secretKey || \"{s}\";",
    )),
    ("ruff_excerpt", "log", one(pwtok,
        lambda s: f"S105 Possible hardcoded password assigned to: \"password\"\n --> {path('py')}:{ln()}:12\n  |\n{ln()} | password = \"{s}\"\n  |            ^^^^^^^^^^^^^^^^^^",
        lambda s: f"{path('py')}:{ln()}:20: S106 Possible hardcoded password assigned to argument: \"passwd\"\n   |\n{ln()} | db = connect(user=\"app\", passwd=\"{s}\")\n   |                              ^^^^^^^^^^^^^ S106",
        lambda s: f"S107 Possible hardcoded password assigned to function default: \"token\"\n  |\n{ln()} | def login(user, token=\"{s}\"):\n  |                       ^^^^^^^^^^^",
        lambda s: f"   |\n{ln()} |     SECRET_KEY = \"{s}\"  # noqa: S105\n   |                  ^^^^",
    )),
    ("bandit_issue", "log", one(fpw,
        lambda s: f">> Issue: [B105:hardcoded_password_string] Possible hardcoded password: '{s}'\n   Severity: Low   Confidence: Medium\n   CWE: CWE-259 (https://cwe.mitre.org/data/definitions/259.html)\n   Location: ./{path('py')}:{ln()}:11",
        lambda s: f">> Issue: [B106:hardcoded_password_funcarg] Possible hardcoded password: '{s}'\n   Location: ./scripts/sync.py:{ln()}:4\n{ln()}\t    conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"{s}\")",
        lambda s: f"{{\"code\": \"{ln()} DB_PASS = '{s}'\\n\", \"filename\": \"./{path('py')}\", \"issue_text\": \"Possible hardcoded password: '{s}'\", \"test_id\": \"B105\"}}",
        lambda s: f"[B107:hardcoded_password_default] Possible hardcoded password: '{s}'",
    )),
    ("semgrep_excerpt", "log", one(anysecret,
        lambda s: f"  {path('py')}\n   ❯❱ python.django.security.audit.django-secret-key\n          Hardcoded Django SECRET_KEY\n\n           {ln()}┆ SECRET_KEY = '{s}'",
        lambda s: f"  {path('js')}\n    ❯❯❱ javascript.jsonwebtoken.security.jwt-hardcode.hardcoded-jwt-secret\n\n           {ln()}┆ const token = jwt.sign(payload, \"{s}\");",
        lambda s: f"          {ln()}┆ password: {s}",
        lambda s: f"           {ln()}┆ client = Client(api_key=\"{s}\")\n            ⋮┆----------------------------------------",
    )),
    ("gitleaks_finding", "log", one(lambda: pick(randtok(), provider(), fpw()),
        lambda s: f"Finding:     {key_name()}={s}\nSecret:      {s}\nRuleID:      generic-api-key\nEntropy:     4.{_r.randint(10, 99)}\nFile:        {path()}\nLine:        {ln()}\nCommit:      {sha40()}",
        lambda s: json.dumps({"Description": "Generic API Key", "StartLine": ln(), "Match": f"api_key = \"{s}\"", "Secret": s, "File": path("py"), "RuleID": "generic-api-key"}),
        lambda s: f"Finding:     token: \"{s}\"\nSecret:      {s}\nRuleID:      generic-api-key",
        lambda s: f"{path()}:{key_name()}:{ln()} Secret={s} RuleID=generic-api-key",
    )),
    ("trufflehog_finding", "log", _trufflehog),
    ("sarif_snippet", "json", one(anysecret,
        lambda s: json.dumps({"ruleId": "py/hardcoded-credentials", "locations": [{"physicalLocation": {"artifactLocation": {"uri": path("py")}, "region": {"startLine": ln(), "snippet": {"text": f"password = \"{s}\""}}}}]}),
        lambda s: json.dumps({"region": {"startLine": ln(), "snippet": {"text": f"{key_name()}={s}"}}}),
        lambda s: json.dumps({"message": {"text": "Hard-coded credential"}, "contextRegion": {"snippet": {"text": f"  token: {s}\n  url: https://api.example.com\n"}}}),
        lambda s: json.dumps({"snippet": {"text": f"const apiKey = '{s}';"}, "ruleId": "js/hardcoded-credentials"}),
    )),
    ("detect_secrets_audit", "log", one(anysecret,
        lambda s: f"Secret:      1 of 3\nFilename:    {path()}\nSecret Type: Secret Keyword\n----------\n{ln()}:APP_ENV=production\n{ln()}:{key_name()}={s}\n----------\nIs this a secret that should be committed to this repository? (y)es, (n)o, (s)kip, (q)uit:",
        lambda s: f"Secret Type: Base64 High Entropy String\n----------\n{ln()}:  token: {s}\n----------",
        lambda s: f"----------\n{ln()}:    password=\"{s}\",\n----------",
        lambda s: f"Secret Type: Hex High Entropy String\n----------\n{ln()}:SECRET = '{s}'\n----------",
    )),
    # builds ------------------------------------------------------------------------------------------
    ("dockerfile_env_forms", "log", one(pwtok,
        lambda s: f"FROM python:3.12-slim\nENV {key_name()} {s}",
        lambda s: f"ENV {key_name()}={s} NODE_ENV=production",
        lambda s: f"ARG {key_name('tok')}={s}",
        lambda s: f"Step 5/11 : ENV {key_name()} {s}\n ---> Running in {rnd(12, HEX)}",
    )),
    ("docker_history_build_args", "log", one(lambda: pick(provider(), randtok()),
        lambda s: f"<missing>  3 days ago  |1 NPM_TOKEN={s} /bin/sh -c npm ci --omit=dev  212MB  buildkit.dockerfile.v0",
        lambda s: f"sha256:{sha(64)[:12]}  2 weeks ago  /bin/sh -c #(nop)  ENV {key_name('tok')}={s}  0B",
        lambda s: f"RUN |2 GITHUB_TOKEN={s} PIP_INDEX_URL=https://pypi.org/simple /bin/sh -c pip install -r requirements.txt # buildkit",
        lambda s: f"\"created_by\": \"ENV {key_name('tok')}={s}\",",
    )),
    ("buildkit_log_lines", "log", one(lambda: pick(provider(), randtok(), fpw()),
        lambda s: f"#8 [build 4/7] RUN echo \"//registry.npmjs.org/:_authToken={s}\" > .npmrc",
        lambda s: f"#11 [stage-1 3/6] RUN curl -fsSL -H \"PRIVATE-TOKEN: {s}\" https://gitlab.example.com/api/v4/projects/7/packages",
        lambda s: f"#5 [2/5] RUN pip install --index-url https://__token__:{s}@pypi.example.org/simple app",
        lambda s: f"#9 0.412 + export {key_name()}={s}",
    )),
    ("makefile_assignments", "log", one(pwtok,
        lambda s: f"{key_name()} ?= {s}",
        lambda s: f"export {key_name('tok')} := {s}",
        lambda s: f"REGISTRY_PASSWORD ::= {s}\n\ndeploy:\n\tdocker login -u ci --password-stdin <<< \"$(REGISTRY_PASSWORD)\"",
        lambda s: f"make[1]: Entering directory '/src'\ncurl -H \"X-Api-Key: {s}\" https://api.example.com/v1/deploy\nmake[1]: *** [Makefile:12: deploy] Error 22",
    )),
    ("cmake_compiler_defines", "log", one(randtok,
        lambda s: f"set({key_name('tok')} \"{s}\")",
        lambda s: f"cc -O2 -DAPI_SECRET=\\\"{s}\\\" -c src/client.c -o build/client.o",
        lambda s: f"cmake -S . -B build -DLICENSE_KEY={s} -DCMAKE_BUILD_TYPE=Release",
        lambda s: f"add_compile_definitions(SERVICE_TOKEN=\"{s}\")",
    )),
    ("bazel_nix_settings", "log", one(lambda: pick(randtok(), fpw()),
        lambda s: f"build --action_env=NPM_TOKEN={s}",
        lambda s: f"bazel build //app:image --define=api_key={s}",
        lambda s: f"  services.grafana.settings.security.admin_password = \"{s}\";",
        lambda s: f"  environment.variables.{key_name('tok')} = \"{s}\";",
    )),
    ("build_tool_properties", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"./gradlew publish -PmavenPassword={s} -PmavenUser=ci",
        lambda s: f"msbuild App.sln /p:DeployOnBuild=true /p:Password={s} /p:UserName=deploy",
        lambda s: f"mvn -B deploy -Dgpg.passphrase={s} -DskipTests",
        lambda s: f"dotnet nuget push bin/App.1.2.0.nupkg -k {s} -s https://api.nuget.org/v3/index.json",
    )),
    ("secret_store_set_commands", "log", one(lambda: pick(fpw(), randtok(), provider()),
        lambda s: f"gh secret set {key_name('tok')} --body \"{s}\" --repo acme/api",
        lambda s: f"az keyvault secret set --vault-name kv-prod --name db-password --value '{s}'",
        lambda s: f"echo -n '{s}' | gcloud secrets versions add db-password --data-file=-",
        lambda s: f"printf '%s' '{s}' | docker secret create db_pw -",
    )),
    # process traces ----------------------------------------------------------------------------------
    ("strace_execve_arrays", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"execve(\"/usr/bin/mysql\", [\"mysql\", \"-h\", \"db01\", \"-u\", \"app\", \"--password={s}\"], 0x7ffd5c2b8e10 /* 23 vars */) = 0",
        lambda s: f"execve(\"/usr/bin/psql\", [\"psql\", \"-h\", \"db01\"], [\"PATH=/usr/bin\", \"PGPASSWORD={s}\", \"HOME=/root\"]) = 0",
        lambda s: f"[pid 4121] execve(\"/usr/local/bin/app\", [\"app\", \"--api-key\", \"{s}\"], 0x55d0c8a2 /* 12 vars */) = 0",
        lambda s: f"execve(\"/usr/bin/redis-cli\", [\"redis-cli\", \"-a\", \"{s}\", \"PING\"], 0x7fff0a1b /* 9 vars */) = 0",
    )),
    ("strace_io_buffers", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"write(5, \"AUTH {s}\\r\\n\", {_r.randint(20, 60)}) = {_r.randint(20, 60)}",
        lambda s: f"sendto(3, \"POST /oauth/token HTTP/1.1\\r\\nHost: id.example.com\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\n\\r\\ngrant_type=client_credentials&client_id=app&client_secret={s}\", 211, MSG_NOSIGNAL, NULL, 0) = 211",
        lambda s: f"read(7, \"{{\\\"access_token\\\":\\\"{s}\\\",\\\"token_type\\\":\\\"Bearer\\\"\"..., 4096) = 512",
        lambda s: f"write(3, \"GET /v1/me HTTP/1.1\\r\\nAuthorization: Bearer {s}\\r\\n\\r\\n\", 77) = 77",
    )),
    ("auditd_execve_args", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"type=EXECVE msg=audit(1736418151.204:8812): argc=6 a0=\"mysql\" a1=\"-h\" a2=\"db01\" a3=\"-u\" a4=\"app\" a5=\"-p{s}\"",
        lambda s: f"type=EXECVE msg=audit(1736418151.204:8813): argc=4 a0=\"app\" a1=\"--password\" a2=\"{s}\" a3=\"--verbose\"",
        lambda s: f"type=EXECVE msg=audit(1736418151.377:8820): argc=3 a0=\"curl\" a1=\"-u\" a2=\"deploy:{s}\"",
        lambda s: f"type=EXECVE msg=audit(1736418152.001:8825): argc=4 a0=\"vault\" a1=\"login\" a2=\"-method=token\" a3=\"token={s}\"",
    )),
    ("proc_cmdline_nul", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"/proc/2211/cmdline: redis-server\x00*:6379\x00--requirepass\x00{s}\x00",
        lambda s: f"cmdline=app\x00--db-password\x00{s}\x00--port\x008080",
        lambda s: f"$ cat /proc/4121/cmdline\nnode\x00server.js\x00--token={s}\x00",
        lambda s: f"cmdline: ['/usr/bin/java', '-jar', 'app.jar', '--spring.datasource.password', '{s}']",
    )),
    ("k8s_args_next_item", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"    args:\n    - --db-password\n    - {s}\n    - --port\n    - \"8080\"",
        lambda s: f"        command:\n        - /app/server\n        - --api-token\n        - \"{s}\"",
        lambda s: f"    Args:\n      --client-secret\n      {s}\n      --log-level=info",
        lambda s: f"    Command:\n      /bin/agent\n      -token\n      {s}",
    )),
    ("kubectl_describe_env", "log", one(lambda: pick(fpw(), randtok(), provider()),
        lambda s: f"    Environment:\n      APP_ENV:        production\n      {key_name()}:    {s}\n      REDIS_HOST:     redis",
        lambda s: f"    Environment:\n      {key_name('tok')}:  {s}",
        lambda s: f"      {key_name('pw')}:      {s}\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7x2kq (ro)",
        lambda s: f"    Environment Variables from:\n      app-config  ConfigMap  Optional: false\n    Environment:\n      SECRET_KEY_BASE:  {s}",
    )),
    # quoting and continuation ------------------------------------------------------------------------
    ("shell_escaped_quotes", "log", _escaped_quotes),
    ("continued_command_lines", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"mysql -h db01 -u app \\\n  --password \\\n  {s} \\\n  shop",
        lambda s: f"app serve \\\n    --api-key \\\n    {s}",
        lambda s: f"+ vault login -method=userpass username=ci \\\n    password={s}",
        lambda s: f"docker login registry.example.com \\\n  --username ci \\\n  --password \\\n  '{s}'",
    )),
    ("concatenated_string_literals", "log", _concat),
    ("numeric_html_entities", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"&#34;password&#34;: &#34;{s}&#34;",
        lambda s: f"&lt;Password&gt;{s}&lt;/Password&gt;",
        lambda s: f"<pre>{{&#x22;api_key&#x22;:&#x22;{s}&#x22;}}</pre>",
        lambda s: f"<td>token=&#39;{s}&#39;</td>",
    )),
    ("js_hex_unicode_escapes", "log", one(randtok,
        lambda s: f"var cfg = JSON.parse('{{\\x22apiKey\\x22:\\x22{s}\\x22}}');",
        lambda s: f"\"url\": \"https://api.example.com/v1?access_token\\u003d{s}\\u0026v\\u003d2\"",
        lambda s: f"window.__INIT__ = \"token\\x3d{s}\\x26lang\\x3den\";",
        lambda s: f"\\u0022client_secret\\u0022: \\u0022{s}\\u0022",
    )),
    ("yaml_block_scalars", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"db:\n  password: |-\n    {s}\n  host: db01",
        lambda s: f"api_token: >\n  {s}",
        lambda s: f"stringData:\n  SMTP_PASSWORD: |\n    {s}",
        lambda s: f"secrets:\n  client_secret: >-\n    {s}\n  client_id: app",
    )),
    ("multiline_string_literals", "log", one(lambda: pick(fpw(), randtok()),
        lambda s: f"password = \"\"\"\n{s}\"\"\"",
        lambda s: f"API_TOKEN = '''\n{s}\n'''.strip()",
        lambda s: f"const secret = `\n  {s}\n`.trim();",
        lambda s: f"[smtp]\npassword = '''\n{s}'''",
    )),
]


# --- benign -------------------------------------------------------------------------------------

QUOTED_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # diff and commit headers: SHAs and blob ids name objects, not credentials.
    ("diff_headers", "log", lambda: pick(
        f"diff --git a/{path()} b/{path()}\nindex {short()}..{short()} 100644",
        f"index {rnd(12, HEX)}..{rnd(12, HEX)}",
        f"{hunk()} class Settings(BaseSettings):",
        f"similarity index 92%\nrename from {path()}\nrename to {path()}",
        "--- a/.env.example\n+++ b/.env.example",
    )),
    # commit and review metadata.
    ("commit_metadata", "log", lambda: pick(
        f"commit {sha40()}",
        f"Change-Id: I{sha40()}",
        f"Merge: {short()} {short()}",
        f"Reviewed-on: https://review.example.org/c/app/+/{_r.randint(10000, 99999)}",
        f"{short()} (HEAD -> main, origin/main) rotate credentials via vault",
    )),
    # diffs whose values are placeholders or environment references.
    ("diffs_of_placeholders", "log", lambda: pick(
        f"+{key_name()}=${{{key_name()}}}",
        "+  password: \"{{ .Values.db.password }}\"",
        "-API_KEY=<your-api-key>\n+API_KEY=",
        "+SECRET_KEY = os.environ[\"SECRET_KEY\"]",
        "+      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    )),
    # diffs of settings under secret-sounding keys.
    ("diffs_of_settings", "log", lambda: pick(
        "-password_min_length: 8\n+password_min_length: 12",
        "-token_ttl_seconds = 3600\n+token_ttl_seconds = 7200",
        "+  secretName: db-creds",
        "   ~ password_reset_timeout = 3600 -> 7200",
        "+api_key_header: X-API-Key",
    )),
    # Terraform plans that hide sensitive values.
    ("terraform_sensitive", "log", lambda: pick(
        "      ~ password = (sensitive value)",
        "      + master_password = (sensitive value)",
        "        # (12 unchanged attributes hidden)",
        "      + id       = (known after apply)",
        "      ~ token    = (sensitive value) -> (sensitive value)",
    )),
    # helm diff's masks of secret values (without --show-secrets).
    ("helm_diff_masked", "log", lambda: pick(
        "+   password: '++++++++ # (16 bytes)'",
        "-   token: '-------- # (24 bytes)'",
        "    api-key: '******** # (32 bytes)'",
        "default, db-creds, Secret (v1) has changed:",
        "+   DB_PASSWORD: '++++++++ # (20 bytes)'",
    )),
    # grep hits of code that reads or checks a secret.
    ("grep_hits_no_secret", "log", lambda: pick(
        f"src/auth.py:{ln()}:    password = request.form[\"password\"]",
        f"lib/token.go:{ln()}:func ParseToken(raw string) (*Token, error) {{",
        f"README.md:{ln()}:Set API_KEY in your environment before running.",
        f"{path('py')}:{ln()}:SECRET_KEY = os.getenv(\"SECRET_KEY\")",
        f"{path('js')}-{ln()}-  const token = await getToken(scope);",
    )),
    # blame lines of code without a credential.
    ("blame_no_secret", "log", lambda: pick(
        f"^{short()} (Alice Doe 2024-03-02 10:11:12 +0000 {ln()}) password_hash = bcrypt.hashpw(pw, salt)",
        f"{sha40()} {ln()} {ln()} 1\nauthor Alice Doe\nsummary read token from env",
        f"{short()} (Bob Ray 2023-07-14 {ln():>4})   token: process.env.API_TOKEN,",
        f"{short()} (ci-bot 2025-01-09 09:00:00 +0000 {ln()}) # password rotation runs nightly",
        f"^{short()} (Alice Doe 2024-03-02 10:11:12 +0000 {ln()}) def check_secret(value: str) -> bool:",
    )),
    # compiler errors that name secret variables.
    ("compiler_errors_about_secrets", "exception", lambda: pick(
        "error[E0425]: cannot find value `api_key` in this scope",
        "src/config.ts:12:5 - error TS2339: Property 'apiToken' does not exist on type 'Config'.",
        f"   |\n{ln()} |     let token = env::var(\"API_TOKEN\")?;\n   |                 ^^^^^^^^^^^^^^^^^^^^^^^^ expected `String`",
        "error TS2554: Expected 2 arguments, but got 1.\n\n12   const secret = getSecret(name);\n                  ~~~~~~~~~~~~~~~",
        "warning: field `password` is never read\n  --> src/db.rs:8:5",
    )),
    # linter messages that name the variable, not the value.
    ("linter_messages", "log", lambda: pick(
        f"{path('py')}:{ln()}:12: S105 Possible hardcoded password assigned to: \"password\"",
        f"{path('py')}:{ln()}:1: S106 Possible hardcoded password assigned to argument: \"token_type\"",
        ">> Issue: [B105:hardcoded_password_string] Possible hardcoded password: ''",
        "   Severity: Low   Confidence: Medium\n   CWE: CWE-259",
        "no-secrets/no-secrets  Found a string with entropy 4.8 : Make sure this is not a secret",
    )),
    # scanners that mask what they found.
    ("scanner_reports_masked", "log", lambda: pick(
        "Finding:     api_key = \"REDACTED\"\nSecret:      REDACTED\nRuleID:      generic-api-key",
        f".env:3 (secrets)\n   3 [ AWS_SECRET_ACCESS_KEY={'*' * 40}",
        f"\t\t{ln()} | api_key = \"AKIA**********\"",
        f"—— GitHub Personal Access Token ——————————————————————\n       locations:\n         - commit: {sha40()}\n           path: .env:3",
        "Raw result: ****\nRedacted: ghp_****",
    )),
    # scanner metadata: hashes of secrets, fingerprints, rule ids, entropy.
    ("scanner_metadata", "log", lambda: pick(
        f"\"hashed_secret\": \"{sha40()}\",",
        f"Fingerprint: {sha40()}:.env:generic-api-key:{ln()}",
        "\"type\": \"Secret Keyword\", \"is_verified\": false, \"line_number\": 14",
        "Entropy:     4.52\nRuleID:      generic-api-key",
        "\"DetectorName\":\"Github\",\"Verified\":false,\"Raw\":\"\",\"Redacted\":\"ghp_****\"",
    )),
    # SARIF metadata.
    ("sarif_metadata", "json", lambda: pick(
        json.dumps({"ruleId": "py/hardcoded-credentials", "level": "error"}),
        json.dumps({"partialFingerprints": {"primaryLocationLineHash": rnd(16, HEX) + ":1"}}),
        json.dumps({"artifactLocation": {"uri": path("py"), "uriBaseId": "%SRCROOT%"}}),
        json.dumps({"snippet": {"text": "password = os.environ[\"DB_PASSWORD\"]"}}),
        json.dumps({"tool": {"driver": {"name": "CodeQL", "semanticVersion": "2.19.3"}}}),
    )),
    # Dockerfiles that mount secrets or point at files.
    ("dockerfile_benign", "log", lambda: pick(
        "ARG NPM_TOKEN",
        "RUN --mount=type=secret,id=npm_token,env=NPM_TOKEN npm ci",
        "ENV DB_PASSWORD_FILE=/run/secrets/db_password",
        f"FROM node@sha256:{sha(64)} AS build",
        f"#8 sha256:{sha(64)} 12.3MB / 45.1MB 2.1s",
    )),
    # docker history without arguments.
    ("docker_history_benign", "log", lambda: pick(
        "<missing>  2 weeks ago  /bin/sh -c #(nop)  CMD [\"node\" \"server.js\"]  0B",
        f"sha256:{sha(64)[:12]}  2 weeks ago  /bin/sh -c #(nop)  ENV NODE_ENV=production  0B",
        "<missing>  3 days ago  RUN /bin/sh -c npm ci --omit=dev # buildkit  212MB  buildkit.dockerfile.v0",
        "IMAGE          CREATED        CREATED BY                                      SIZE      COMMENT",
        f"\"created_by\": \"COPY dir:{sha(64)} in /app \",",
    )),
    # build files that read the environment or a file.
    ("build_file_refs", "log", lambda: pick(
        "API_TOKEN ?= $(shell cat .token)",
        "export TOKEN := $(TOKEN)",
        "set(API_KEY \"$ENV{API_KEY}\")",
        "build --action_env=NPM_TOKEN",
        "  services.grafana.settings.security.admin_password = \"$__file{/run/keys/grafana}\";",
    )),
    # secret-store commands that read a file or list names.
    ("secret_cli_refs", "log", lambda: pick(
        "gh secret set API_TOKEN < token.txt",
        "API_TOKEN        Updated 2025-01-09",
        "az keyvault secret set --vault-name kv-prod --name db-password --file ./secret.txt",
        "gcloud secrets versions add db-password --data-file=./pw.txt",
        "✓ Set Actions secret API_TOKEN for acme/api",
    )),
    # strace lines without credentials.
    ("strace_benign", "log", lambda: pick(
        "openat(AT_FDCWD, \"/etc/ssl/certs/ca-certificates.crt\", O_RDONLY|O_CLOEXEC) = 3",
        "read(3, \"\\177ELF\\2\\1\\1\\0\\0\\0\\0\\0\\0\\0\\0\\0\\3\\0>\\0\\1\\0\\0\\0\"..., 832) = 832",
        "write(1, \"password accepted\\n\", 18) = 18",
        f"execve(\"/usr/bin/git\", [\"git\", \"push\", \"origin\", \"main\"], 0x7ffd{rnd(8, HEX)} /* 34 vars */) = 0",
        "connect(3, {sa_family=AF_INET, sin_port=htons(5432), sin_addr=inet_addr(\"10.0.0.5\")}, 16) = 0",
    )),
    # auditd records without credentials (proctitle is hex of the command line).
    ("auditd_benign", "log", lambda: pick(
        "type=EXECVE msg=audit(1736418151.204:8812): argc=3 a0=\"ls\" a1=\"-la\" a2=\"/etc\"",
        "type=PROCTITLE msg=audit(1736418151.204:8812): proctitle=2F7573722F62696E2F707974686F6E33002D6D0068747470",
        "type=USER_AUTH msg=audit(1736418151.377:8820): pid=912 uid=1000 auid=1000 ses=3 msg='op=PAM:authentication grantors=pam_unix acct=\"alice\" exe=\"/usr/bin/sudo\" hostname=? addr=? terminal=/dev/pts/0 res=success'",
        f"type=SYSCALL msg=audit(1736418151.204:8812): arch=c000003e syscall=59 success=yes exit=0 a0=55d0{rnd(8, HEX)} a1=55d0{rnd(8, HEX)}",
        "type=EXECVE msg=audit(1736418152.001:8825): argc=3 a0=\"app\" a1=\"--password-file\" a2=\"/run/secrets/pw\"",
    )),
    # container args that are ports, files and levels.
    ("k8s_args_benign", "log", lambda: pick(
        "    args:\n    - --port\n    - \"8080\"",
        "    - --token-file\n    - /var/run/secrets/tokens/api",
        "    Args:\n      --config=/etc/app/config.yaml\n      --log-level=debug",
        "    args:\n    - --password-file=/run/secrets/pw\n    - --tls-cert=/certs/tls.crt",
        "    Command:\n      /bin/agent\n      -config\n      /etc/agent.hcl",
    )),
    # kubectl describe: references, sizes, events.
    ("kubectl_describe_benign", "log", lambda: pick(
        "      DB_PASSWORD:  <set to the key 'password' in secret 'db-creds'>  Optional: false",
        "token:      32 bytes",
        "Type:  kubernetes.io/service-account-token",
        "  Warning  FailedMount  3m  kubelet  MountVolume.SetUp failed for volume \"creds\" : secret \"db-creds\" not found",
        f"  Normal   Pulled   12s  kubelet  Successfully pulled image \"ghcr.io/acme/api@sha256:{sha(64)}\"",
    )),
    # escaped placeholders and empty values.
    ("escaped_benign", "log", lambda: pick(
        "&#34;password&#34;: &#34;&#34;",
        "&lt;Password&gt;${DB_PASSWORD}&lt;/Password&gt;",
        "\\x22apiKey\\x22:\\x22\\x22",
        "\"url\": \"https://api.example.com/v1?page\\u003d2\\u0026limit\\u003d50\"",
        "\\u0022client_id\\u0022: \\u0022web-app\\u0022",
    )),
    # block scalars of prose and references.
    ("block_scalars_benign", "log", lambda: pick(
        "description: >-\n  The token used to authenticate to the API.",
        "password: |-\n  {{ .Values.db.password }}",
        "help: |\n  Paste your API key from the dashboard.",
        "token: >\n  ${API_TOKEN}",
        "notes: |\n  Rotate the secret every 90 days.",
    )),
    # shell quoting without secrets.
    ("shell_quoting_benign", "log", lambda: pick(
        "export PS1='\\u@\\h:\\w\\$ '",
        "mysql -u app --password=\"$(cat /run/secrets/db)\" shop",
        "echo 'it'\"'\"'s fine'",
        "ssh web1 'cd /srv && git pull'",
        "docker run -e 'LOG_LEVEL=debug' -e DB_PASSWORD app",
    )),
    # continued command lines without secrets.
    ("continuation_benign", "log", lambda: pick(
        "docker run \\\n  --rm \\\n  -e DB_PASSWORD \\\n  -p 8080:80 app",
        "curl -sS \\\n  -H \"Content-Type: application/json\" \\\n  https://api.example.com/v1/items",
        "app serve \\\n    --port \\\n    8080",
        "helm upgrade api ./chart \\\n  --set image.tag=1.4.2 \\\n  --reuse-values",
        "kubectl create secret generic db \\\n  --from-file=password=./pw.txt",
    )),
    # concatenated strings of messages, URLs and keys built from ids.
    ("string_concat_benign", "log", lambda: pick(
        "msg = (\"The password you entered \"\n       \"does not match our records.\")",
        "const url = base +\n  \"/api/v1/tokens\";",
        "key = \"user:\" + str(user_id)",
        "String q = \"SELECT id, name \"\n        + \"FROM users WHERE active\";",
        "label := \"token \" +\n\t\"expired\"",
    )),
    # numbered code that reads the environment.
    ("numbered_source_benign", "log", lambda: pick(
        f"{ln():>6}\tdef verify_password(raw: str) -> bool:",
        f"   {ln()} | let token = env::var(\"API_TOKEN\")?;",
        f"           {ln()}┆ SECRET_KEY = os.environ[\"SECRET_KEY\"]",
        f"{ln():>4}  password = getpass.getpass()",
        "     1\tAPP_ENV=production\n     2\tLOG_LEVEL=info",
    )),
    # MCP servers' error texts about credentials (the Stripe key masked by Stripe).
    ("mcp_server_auth_errors", "log", lambda: pick(
        f"Invalid API Key provided: sk_test_{'*' * 20}{rnd(4, ALNUM)}",
        "GET https://api.github.com/user: 401 Bad credentials []",
        "An API error occurred: invalid_auth",
        "error: password authentication failed for user \"postgres\"",
        "APIResponseError: API token is invalid.",
    )),
    # CI log lines with action SHAs and masks.
    ("ci_log_ids", "log", lambda: pick(
        f"Download action repository 'actions/setup-node@v4' (SHA:{sha40()})",
        f"##[group]Run actions/checkout@{sha40()}",
        "::add-mask::***",
        f"2025-01-09T10:22:31.{rnd(7, '0123456789')}Z Runner: 2.311.0",
        f"Job ID: {uuid()}",
    )),
    # binary and image data in diffs, lockfile integrity.
    ("binary_in_diffs", "log", lambda: pick(
        "Binary files a/logo.png and b/logo.png differ",
        f"+  \"image/png\": \"iVBORw0KGgoAAAANSUhEUgAAA{rnd(60, B64)}\"",
        f"+      integrity: sha512-{base64.b64encode(_r.randbytes(64)).decode()}",
        f"GIT binary patch\nliteral {_r.randint(100, 9999)}\nzcmeH{rnd(50, B64)}",
        f"+resolved \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz#{sha40()}\"",
    )),
]


def quoted() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_11)
    return heldout._records(QUOTED_SECRETS, QUOTED_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = quoted()
    heldout._write(HERE / "quoted_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "quoted_benign.jsonl.gz", benign_rows)
    print(f"quoted: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
