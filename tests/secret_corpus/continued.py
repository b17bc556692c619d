"""A twenty-fourth held-out set: secrets that do not sit on their key's line, or are not its only value.

    python -m tests.secret_corpus.continued   # rewrites continued_*.jsonl.gz here

The other sets hold a value after its key on one line (and YAML's next-line value, ``quoted``'s block scalars and
TOML multi-line strings). This one holds the layouts a format uses to carry a value further, written from the
formats' own grammar before reading the patterns. Kinds (each a family of formats):

- a continuation line: configparser/INI's indented continuation after an empty ``key =`` (Python's ``configparser``,
  systemd and git config read it), Java ``.properties``' backslash before the line break, a shell assignment,
  Dockerfile ``ENV``/``ARG`` and a Makefile ``:=``/``?=`` continued with ``\\``;
- a here-document that holds the value: HCL/Terraform ``<<EOT`` and ``<<-EOT``, Ruby ``<<~``, PHP ``<<<'EOT'``,
  and a shell heredoc fed to a command that reads the value named by the key from its standard input (``password=-
  <<EOF``, ``--password-stdin <<EOF``);
- several values under one secret-named key: arrays and lists of keys and tokens (TOML, JSON, YAML flow and block
  lists, Python lists and sets, comma-separated environment and ``.properties`` values), where a rule that ends the
  value at the first separator leaks every other one.

Benign: the same layouts holding no credential, each category saying why: continuations and heredocs of
descriptions, policies and file references, a secret-named key whose continuation is a placeholder, a variable or a
file path, an empty secret key followed by the next key, lists of token ids, counts, key names, secret names,
checksums (PKGBUILD ``sha256sums``), GPG fingerprints, public SSH keys under ``ssh_authorized_keys``, and masked or
placeholder list items.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). No benign line holds an e-mail address. 18 secret formats x 12 and 30 benign categories x 5.
``tests/test_scrub_continued.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: continued() seeds it


def ind() -> str:
    return pick("  ", "    ", "\t", "        ")


def tok() -> str:
    return pick(rnd(_r.randint(24, 44)), rnd(43, ALNUM + "+/") + "=", rnd(40, ALNUM + "-_"), "sk_live_" + rnd(24))


def secret() -> str:
    return pick(fpw(), tok())


def pw_key() -> str:
    return pick("password", "db_password", "passwd", "smtp_password", "admin_pass", "bind_password")


def tok_key() -> str:
    return pick("api_key", "token", "client_secret", "access_token", "secret_key", "auth_token", "webhook_secret")


def env_key() -> str:
    return pick("DB_PASSWORD", "API_TOKEN", "NPM_TOKEN", "CLIENT_SECRET", "SMTP_PASS", "GITHUB_TOKEN", "SECRET_KEY")


def list_key() -> str:
    return pick("api_keys", "tokens", "access_tokens", "client_secrets", "allowed_api_keys", "webhook_secrets", "auth_tokens")


def env_list_key() -> str:
    return pick("API_KEYS", "VALID_TOKENS", "AUTH_TOKENS", "ALLOWED_API_KEYS", "SECRET_KEYS")


def section() -> str:
    return pick("[database]", "[smtp]", "[auth]", "[api]", "[client]", "[remote \"origin\"]", "[Service]")


def end() -> str:
    return pick("EOT", "EOF", "END", "SECRET", "KEY")


def listed(*layouts: Callable[[list[str]], str]) -> Maker:
    """A list format: 2-4 tokens, one of them (not always the first) is the row's secret."""

    def inner() -> tuple[str, str]:
        values = [tok() for _ in range(_r.randint(2, 4))]
        chosen = _r.randrange(1, len(values))  # a later item: the first is what a one-value rule already finds
        return values[chosen], _r.choice(layouts)(values)

    return inner


SECRETS: list[tuple[str, str, Maker]] = [
    # continuation lines
    ("ini_indented_continuation", "config", one(secret,
        lambda s: f"{section()}\nhost = db.internal\n{pw_key()} =\n{ind()}{s}\nport = 5432",
        lambda s: f"{section()}\n{tok_key()} =\n{ind()}{s}",
        lambda s: f"configparser read /etc/app/app.ini:\n{section()}\nuser = app\n{pw_key()} =\n{ind()}{s}\n",
        lambda s: f"[Service]\nEnvironment=\n{ind()}{env_key()}={s}")),
    ("ini_colon_continuation", "config", one(secret,
        lambda s: f"{section()}\n{pw_key()}:\n{ind()}{s}\ntimeout: 30",
        lambda s: f"{section()}\n{tok_key()} :\n{ind()}{s}")),
    ("properties_backslash_continuation", "config", one(secret,
        lambda s: f"spring.datasource.{pick('password', 'secret')}=\\\n{ind()}{s}",
        lambda s: f"app.{tok_key()} = \\\n{ind()}{s}\napp.timeout=30",
        lambda s: f"# application.properties\nmail.smtp.{pw_key()}:\\\n{ind()}{s}",
        lambda s: f"{tok_key()}=\\\n{s}")),
    ("shell_assignment_continuation", "log", one(secret,
        lambda s: f"+ export {env_key()}=\\\n{ind()}{s}",
        lambda s: f"$ {env_key()}=\\\n  {s} ./deploy.sh",
        lambda s: f"export {env_key()}=\"\\\n{s}\"",
        lambda s: f"declare -x {env_key()}=\\\n{ind()}'{s}'")),
    ("dockerfile_continuation", "config", one(secret,
        lambda s: f"ENV {env_key()}=\\\n    {s}",
        lambda s: f"ARG {env_key()}=\\\n    {s}\nRUN npm ci",
        lambda s: f"Step 4/9 : ENV APP_ENV=prod {env_key()}=\\\n    {s}",
        lambda s: f"FROM node:20\nENV {env_key()} \\\n    {s}")),
    ("makefile_continuation", "config", one(secret,
        lambda s: f"{env_key()} := \\\n\t{s}",
        lambda s: f"{env_key()} ?= \\\n  {s}",
        lambda s: f"override {env_key()} = \\\n    {s}")),
    # here-documents
    ("hcl_heredoc", "config", one(secret,
        lambda s: f'resource "vault_generic_secret" "db" {{\n  {pw_key()} = <<EOT\n{s}\nEOT\n}}',
        lambda s: f"{tok_key()} = <<-EOT\n    {s}\n  EOT",
        lambda s: f'Error: Invalid value for variable\n  on terraform.tfvars line 4:\n   4: {tok_key()} = <<{end()}\n   5: {s}',
        lambda s: f"{pw_key()} = <<{end()}\n{s}\n{end()}")),
    ("ruby_php_heredoc", "source", one(secret,
        lambda s: f"SECRET_KEY = <<~{end()}\n  {s}\n{end()}",
        lambda s: f"config.{tok_key()} = <<-KEY.strip\n  {s}\nKEY",
        lambda s: f"$apiKey = <<<'EOT'\n{s}\nEOT;",
        lambda s: f"$password = <<<EOT\n    {s}\n    EOT;")),
    ("shell_heredoc_stdin", "log", one(secret,
        lambda s: f"+ vault kv put secret/db {pw_key()}=- <<EOF\n{s}\nEOF",
        lambda s: f"$ docker login -u bot --password-stdin registry.example.com <<EOF\n{s}\nEOF",
        lambda s: f"+ gh secret set {env_key()} --body - <<'EOF'\n{s}\nEOF",
        lambda s: f"$ kubectl create secret generic app --from-file={tok_key()}=/dev/stdin <<EOF\n{s}\nEOF")),
    # several values under one key
    ("toml_array", "config", listed(
        lambda v: f"{list_key()} = [\n" + "".join(f'  "{x}",\n' for x in v) + "]",
        lambda v: f"{list_key()} = [" + ", ".join(f'"{x}"' for x in v) + "]",
        lambda v: f"[auth]\n{list_key()} = [" + ", ".join(f"'{x}'" for x in v) + "]")),
    ("json_array", "log", listed(
        lambda v: f'{{"{list_key()}": [' + ", ".join(f'"{x}"' for x in v) + "]}",
        lambda v: f'{{\n  "{list_key()}": [\n' + ",\n".join(f'    "{x}"' for x in v) + "\n  ]\n}",
        lambda v: f'config error: {{"service":"gw","{list_key()}":[' + ",".join(f'"{x}"' for x in v) + '],"port":8443}')),
    ("yaml_flow_list", "config", listed(
        lambda v: f"{list_key()}: [" + ", ".join(v) + "]",
        lambda v: f"{list_key()}: [" + ", ".join(f'"{x}"' for x in v) + "]",
        lambda v: f"auth:\n  {list_key()}: [" + ", ".join(f"'{x}'" for x in v) + "]")),
    ("yaml_block_list", "config", listed(
        lambda v: f"{list_key()}:\n" + "\n".join(f"  - {x}" for x in v),
        lambda v: f"auth:\n  {list_key()}:\n" + "\n".join(f"    - \"{x}\"" for x in v) + "\n  timeout: 30",
        lambda v: f"{list_key()}:\n" + "\n".join(f"- {x}" for x in v))),
    ("python_list", "source", listed(
        lambda v: f"{list_key().upper()} = [" + ", ".join(f"'{x}'" for x in v) + "]",
        lambda v: f"{list_key().upper()} = {{" + ", ".join(f'"{x}"' for x in v) + "}",
        lambda v: f"    {list_key()} = (" + ", ".join(f"'{x}'" for x in v) + ")",
        lambda v: f"settings.{list_key().upper()} = [\n" + "".join(f"    '{x}',\n" for x in v) + "]")),
    ("env_comma_list", "log", listed(
        lambda v: f"{env_list_key()}=" + ",".join(v),
        lambda v: f"export {env_list_key()}=\"" + ",".join(v) + "\"",
        lambda v: f"  - {env_list_key()}=" + ",".join(v),
        lambda v: f"{env_list_key()}: " + ",".join(v))),
    ("properties_list", "config", listed(
        lambda v: f"app.security.{list_key().replace('_', '-')}=" + ",".join(v),
        lambda v: f"gateway.{list_key()} = " + ", ".join(v),
        lambda v: f"-Dauth.{list_key()}=" + ",".join(v))),
    ("space_list", "log", listed(
        lambda v: f"{env_list_key()}=\"" + " ".join(v) + "\"",
        lambda v: f"{list_key()}: \"" + " ".join(v) + "\"")),
    ("semicolon_list", "config", listed(
        lambda v: f"{env_list_key()}=" + ";".join(v),
        lambda v: f"<add key=\"{list_key()}\" value=\"" + ";".join(v) + "\" />")),
]


def b_tokids() -> str:
    return ", ".join(str(_r.randint(100, 50000)) for _ in range(_r.randint(3, 6)))


def b_ssh() -> str:
    return f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, ALNUM + '+/')} {pick('deploy', 'ops', 'ci')}@{pick('bastion', 'laptop', 'build')}"


BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("ini_continuation_prose", "config", lambda: pick(
        f"{section()}\ndescription =\n{ind()}Primary database for the orders service,\n{ind()}replicated to two regions.",
        "[metadata]\nclassifiers =\n    Programming Language :: Python :: 3\n    License :: OSI Approved :: MIT License",
        "[options]\ninstall_requires =\n    requests>=2.31\n    pydantic>=2",
        "[flake8]\nexclude =\n    .git,\n    __pycache__")),
    ("ini_empty_secret_then_key", "config", lambda: pick(
        f"{section()}\n{pw_key()} =\nport = 5432",
        f"{section()}\n{tok_key()} =\n\n[logging]\nlevel = INFO",
        f"{section()}\n{pw_key()}:\ntimeout: 30",
        f"{section()}\n{tok_key()} =\n# set by the operator\nregion = eu-west-1")),
    ("ini_secret_continuation_placeholder", "config", lambda: pick(
        f"{section()}\n{pw_key()} =\n{ind()}${{DB_PASSWORD}}",
        f"{section()}\n{tok_key()} =\n{ind()}%(api_token)s",
        f"{section()}\n{pw_key()} =\n{ind()}<set-me>",
        f"{section()}\n{tok_key()} =\n{ind()}********")),
    ("properties_continuation_plain", "config", lambda: pick(
        "app.description=Order service \\\n    for the EU region",
        "spring.datasource.url=\\\n    jdbc:postgresql://db.internal:5432/orders",
        "logging.pattern.console=%d{HH:mm:ss} \\\n    %-5level %logger{36} - %msg%n",
        "app.banner=\\\n    Welcome to the admin console")),
    ("properties_secret_placeholder", "config", lambda: pick(
        f"spring.datasource.password=\\\n{ind()}${{DB_PASSWORD}}",
        f"app.{tok_key()}=\\\n{ind()}${{vault.api.token}}",
        f"mail.smtp.password = \\\n{ind()}<changeme>",
        f"app.{tok_key()}=\\\n{ind()}{{cipher}}")),
    ("shell_continuation_plain", "log", lambda: pick(
        "+ docker run --rm \\\n    -p 8080:80 \\\n    nginx:1.27",
        f"+ export {env_key()}=\\\n    \"$(cat /run/secrets/{pick('db', 'api')})\"",
        f"export {env_key()}=\\\n  \"${{VAULT_{pick('TOKEN', 'SECRET')}}}\"",
        "$ PATH=\\\n  /usr/local/bin:/usr/bin ./configure")),
    ("dockerfile_continuation_plain", "config", lambda: pick(
        "ENV PYTHONDONTWRITEBYTECODE=1 \\\n    PYTHONUNBUFFERED=1",
        f"ENV {env_key()}_FILE=\\\n    /run/secrets/{pick('db_password', 'api_token')}",
        f"ARG {env_key()}\nRUN --mount=type=secret,id={pick('npm', 'db')} \\\n    npm ci",
        "ENV NODE_ENV=production \\\n    PORT=3000")),
    ("makefile_plain", "config", lambda: pick(
        f"{env_key()} := \\\n\t$(shell cat .secrets/{pick('db', 'api')})",
        f"{env_key()} ?= \\\n  $(VAULT_{pick('TOKEN', 'SECRET')})",
        "SOURCES := \\\n\tmain.c \\\n\tutil.c",
        "CFLAGS += \\\n  -O2 -Wall")),
    ("hcl_heredoc_policy", "config", lambda: pick(
        'policy = <<EOT\n{\n  "Version": "2012-10-17",\n  "Statement": []\n}\nEOT',
        f"description = <<-{end()}\n    Managed by Terraform. Do not edit.\n  {end()}",
        'user_data = <<EOF\n#!/bin/bash\napt-get update\nEOF',
        "token_policies = <<EOT\nread-only\nEOT")),
    ("hcl_heredoc_reference", "config", lambda: pick(
        f"{pw_key()} = <<EOT\n${{var.db_password}}\nEOT",
        f"{tok_key()} = <<-EOT\n    ${{data.vault_generic_secret.api.data[\"token\"]}}\n  EOT",
        'private_key = <<EOT\n${file("~/.ssh/id_ed25519")}\nEOT',
        f"{pw_key()} = <<EOT\n<redacted>\nEOT")),
    ("ruby_heredoc_plain", "source", lambda: pick(
        "MESSAGE = <<~TEXT\n  Your password was changed.\nTEXT",
        "$sql = <<<'SQL'\nSELECT id FROM users WHERE token_hash = ?\nSQL;",
        "HELP = <<~EOS\n  Usage: app --token-file PATH\nEOS",
        f"SECRET_KEY = <<~{end()}\n  #{{ENV.fetch('SECRET_KEY')}}\n{end()}")),
    ("shell_heredoc_plain", "log", lambda: pick(
        "+ cat <<EOF > /etc/motd\nWelcome to bastion-1\nEOF",
        f"+ vault kv put secret/db {pw_key()}=- <<EOF\n$DB_PASSWORD\nEOF",
        "$ docker login -u bot --password-stdin registry.example.com < /run/secrets/registry",
        "+ psql <<SQL\nSELECT count(*) FROM sessions;\nSQL")),
    ("token_id_lists", "log", lambda: pick(
        f"token_ids = [{b_tokids()}]",
        f'{{"input_tokens": [{b_tokids()}], "model": "m-small"}}',
        f"max_tokens: [{b_tokids()}]",
        f"TOKEN_COUNTS={b_tokids().replace(', ', ',')}")),
    ("key_name_lists", "config", lambda: pick(
        'keys = ["id", "name", "created_at"]',
        "sort_keys: [updated_at, name]",
        'primary_keys = ("tenant_id", "order_id")',
        "SECRET_NAMES=db-creds,api-creds,smtp-creds")),
    ("secret_name_lists", "config", lambda: pick(
        'secrets = ["prod/db/password", "prod/api/token"]',
        "imagePullSecrets: [regcred, ghcr-pull]",
        "secret_refs:\n  - db-credentials\n  - api-token",
        'required_secrets = ["GITHUB_TOKEN", "NPM_TOKEN"]')),
    ("checksum_lists", "config", lambda: pick(
        f"sha256sums=('{rnd(64, HEX)}'\n            '{rnd(64, HEX)}')",
        f"md5sums=('{rnd(32, HEX)}' 'SKIP')",
        f'checksums = ["{rnd(64, HEX)}", "{rnd(64, HEX)}"]',
        f"b2sums=('{rnd(128, HEX)}')")),
    ("gpg_fingerprint_lists", "config", lambda: pick(
        f"validpgpkeys=('{rnd(40, '0123456789ABCDEF')}'\n              '{rnd(40, '0123456789ABCDEF')}')",
        f"trusted_keys = [\"{rnd(40, '0123456789ABCDEF')}\", \"{rnd(40, '0123456789ABCDEF')}\"]",
        f"GPG_KEYS={rnd(40, '0123456789ABCDEF')} {rnd(40, '0123456789ABCDEF')}")),
    ("public_key_lists", "config", lambda: pick(
        f"ssh_authorized_keys:\n  - {b_ssh()}\n  - {b_ssh()}",
        f"authorized_keys = [\n  \"{b_ssh()}\",\n]",
        f"public_keys: [\"{b_ssh()}\"]")),
    ("masked_list_items", "log", lambda: pick(
        'api_keys = ["****", "****"]',
        '{"tokens": ["[REDACTED]", "[REDACTED]"]}',
        "API_KEYS=***,***,***",
        "auth_tokens: [<hidden>, <hidden>]")),
    ("placeholder_list_items", "config", lambda: pick(
        'api_keys = ["${API_KEY_1}", "${API_KEY_2}"]',
        "tokens: [\"{{ vault_token_a }}\", \"{{ vault_token_b }}\"]",
        "VALID_TOKENS=$TOKEN_A,$TOKEN_B",
        "client_secrets = [\"<your-client-secret>\", \"<second-secret>\"]")),
    ("uuid_lists", "log", lambda: pick(
        f'key_ids = ["{heldout.uuid()}", "{heldout.uuid()}"]',
        f"tenant_ids: [{heldout.uuid()}, {heldout.uuid()}]",
        f"KEY_IDS={heldout.uuid()},{heldout.uuid()}")),
    ("commit_lists", "log", lambda: pick(
        f'commits = ["{rnd(40, HEX)}", "{rnd(40, HEX)}"]',
        f"revisions: [{rnd(40, HEX)}, {rnd(40, HEX)}]",
        f"SKIP_SHAS={rnd(40, HEX)},{rnd(40, HEX)}")),
    ("setting_lists", "config", lambda: pick(
        "token_scopes = [\"repo\", \"read:org\", \"workflow\"]",
        "allowed_hosts: [api.example.com, cdn.example.com]",
        "TOKEN_AUDIENCES=api://orders,api://billing",
        "password_rules = [\"min:12\", \"upper\", \"digit\"]")),
    ("config_prose", "log", lambda: pick(
        "Hint: continue a long value on the next line with a backslash.",
        "configparser: values may span lines when the next line is indented.",
        "Use <<EOT to write a multi-line string in HCL.",
        "Lists of API keys are read from the API_KEYS variable, comma-separated.")),
    ("error_messages", "log", lambda: pick(
        "configparser.ParsingError: Source contains parsing errors: '/etc/app.ini'\n\t[line  7]: 'password\\n'",
        "Error: Unterminated template string\n  on main.tf line 12: token = <<EOT",
        "java.lang.IllegalArgumentException: Malformed \\uxxxx encoding.",
        "yaml: line 4: did not find expected '-' indicator")),
    ("ci_listings", "log", lambda: pick(
        "Secrets: GITHUB_TOKEN, NPM_TOKEN, DOCKER_PASSWORD (3 masked)",
        "env:\n  API_KEYS: ${{ secrets.API_KEYS }}",
        "Found 2 tokens: tok_1 (expired), tok_2 (active)",
        "tokens:\n  - name: ci\n    scopes: [read]")),
    ("version_lists", "config", lambda: pick(
        "python_versions = [\"3.11\", \"3.12\", \"3.13\"]",
        f"image_tags: [v1.{_r.randint(0, 9)}.{_r.randint(0, 30)}, latest]",
        "NODE_VERSIONS=18,20,22")),
    ("credential_settings_lists", "config", lambda: pick(
        'token_types = ["access_token", "refresh_token"]',
        "key_usages: [digitalSignature, keyEncipherment]",
        "password_algorithms = [argon2id, bcrypt, scrypt]",
        "TOKEN_ENDPOINTS=https://auth.example.com/token,https://auth2.example.com/token")),
    ("base64_text_lists", "config", lambda: pick(
        'banners = ["SGVsbG8gd29ybGQ=", "V2VsY29tZSBiYWNr"]',
        "messages: [VGhhbmsgeW91, U2VlIHlvdSBzb29u]")),
    ("upper_ids", "log", lambda: pick(
        f"REQUEST_IDS={rnd(26, UPPER_ALNUM)},{rnd(26, UPPER_ALNUM)}",
        f'order_ids = ["{rnd(12, UPPER_ALNUM)}", "{rnd(12, UPPER_ALNUM)}"]')),
]


def continued() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_24)
    return heldout._records(SECRETS, BENIGN, 12, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = continued()
    heldout._write(HERE / "continued_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "continued_benign.jsonl.gz", benign_rows)
    print(f"continued: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
