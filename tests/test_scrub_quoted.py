"""errscope.scrub on an eleventh held-out set (tests/secret_corpus/quoted.py), written before reading the
rules, of kinds the ten earlier sets do not hold: a secret as a tool quotes it, with the tool's decoration
glued around it. Changes (unified diffs with ``+``/``-`` glued to the key, hunks in a JSON ``"patch"``,
``diff``'s normal, context and side-by-side forms, ``--word-diff`` brackets, Terraform plan changes,
``kubectl diff`` of a Secret, ``helm diff --show-secrets``, Ansible's ``--diff``); search hits and listings
(``grep -n`` and its context lines, ripgrep headings, vimgrep and ``--json``, ``git grep`` at a revision,
``git blame``, ``cat -n``, ``cat -A``); findings (rustc, tsc, ruff, bandit, semgrep, gitleaks, trufflehog,
SARIF, ``detect-secrets audit``); builds (Dockerfile ``ENV k v``, ``docker history`` build args, BuildKit,
Makefile ``?=``, CMake and ``-D`` defines, Bazel, Nix, Gradle/MSBuild/Maven properties, secret stores' set
commands); process traces (strace argv, env and I/O buffers, auditd ``EXECVE`` fields, ``/proc/PID/cmdline``
with NULs, an option and its value as consecutive list items, ``kubectl describe``); quoting (shell quotes
escaped inside a value, backslash continuations, concatenated literals, numeric HTML entities, ``\\x3d`` and
``\\u003d`` escapes, YAML block scalars, multi-line string literals). Benign: the same tools' output without a
credential (SHAs, masks, references, sizes, placeholders, code that reads the environment, MCP servers'
error texts about credentials).

Measured once before any fix: recall 156/200 (0.780), 6/150 benign lines altered (4.0 %); the RE2 patterns
alone (the Collector) 156/200, 13/150. The misses were argv items after an option (auditd's ``a2=``, NUL,
the next YAML list item or ``describe`` line, a continuation), escaped separators (``&#34;``, ``\\x3d``,
``\\u003d``, ``&lt;Password&gt;``), Make's ``?=``, word-diff brackets, escaped quotes inside a password,
concatenated literals, a backtick literal on its own line, scanners' finding fields (TruffleHog's ``Raw
result:``); the false positives helm-diff's masks and a
relative file path under ``--from-file=password=``. Fixed by kind (docs/scrubbing.md): 198/200, 0/150; RE2
alone 197/200, 13/150. What is still missed or altered is pinned here.
"""

from __future__ import annotations

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import quoted

KNOWN_GAPS = {
    # ``github_actions_secret``'s ``plaintext_value``: the resource type says secret, the key (``plaintext``,
    # ``value``) names nothing.
    "terraform_plan_changes",
    # a hunk of ``kubectl diff`` that shows ``data:`` but not ``kind: Secret`` (a ConfigMap's ``data`` looks the same).
    "kubectl_diff_secret_data",
}
KNOWN_FALSE_POSITIVES: set[str] = set()
# The Collector (one leftmost pass) takes ``authToken := "..."`` from ``auth`` as a compound key's first literal
# before the concatenated pieces' rule can read them all.
REGEX_ONLY_GAPS = KNOWN_GAPS | {"concatenated_string_literals"}
# ... and alters what only Python's checks spare: helm-diff's masks (``'++++++++ # (16 bytes)'``), a masked scanner
# finding (``"REDACTED"``, ``"AKIA**********"``), a Secret's name in a kubelet event. (Code that reads the environment,
# ``token: process.env.API_TOKEN``, and a relative file path left when a value without a digit stopped holding ``.``.)
REGEX_ONLY_ALTERED = {"helm_diff_masked", "scanner_reports_masked", "kubectl_describe_benign"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("quoted_secrets.jsonl.gz"), corpus.held_out("quoted_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = quoted.quoted()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 200 and len(benign) == 150
    assert len({line["format"] for line in secrets}) == 50 and len({line["category"] for line in benign}) == 30


def test_quoted_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 2 and len(result.altered) == 0  # recall 198/200, FP 0/150


def test_quoted_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 3 and len(result.altered) == 7  # 197/200, 7/150


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


SECRET = "Q7rT9xLm2wZkP4vB8nC3"
PASSWORD = "Wren#4471gale"


def test_argv_items_after_an_option_go() -> None:
    """An option naming a secret, then its value as the next argv item however the trace separates them."""
    for text, expected in (
        (f'type=EXECVE msg=audit(1.2:3): argc=3 a0="app" a1="--password" a2="{PASSWORD}"',
         f'type=EXECVE msg=audit(1.2:3): argc=3 a0="app" a1="--password" a2="{REDACTED}"'),
        (f"redis-server\x00--requirepass\x00{SECRET}\x00", f"redis-server\x00--requirepass\x00{REDACTED}\x00"),
        (f"    args:\n    - --api-token\n    - \"{SECRET}\"\n", f"    args:\n    - --api-token\n    - \"{REDACTED}\"\n"),
        (f"    Args:\n      --client-secret\n      {PASSWORD}\n", f"    Args:\n      --client-secret\n      {REDACTED}\n"),
        (f"app serve \\\n  --api-key \\\n  {SECRET}", f"app serve \\\n  --api-key \\\n  {REDACTED}"),
        (f"mysqldump \\\n  --password \\\n  {PASSWORD} shop", f"mysqldump \\\n  --password \\\n  {REDACTED} shop"),
        (f"['java', '-jar', 'app.jar', '--spring.datasource.password', '{PASSWORD}']",
         f"['java', '-jar', 'app.jar', '--spring.datasource.password', '{REDACTED}']"),
        (f'execve("/usr/bin/redis-cli", ["redis-cli", "-a", "{PASSWORD}", "PING"], 0x7fff /* 9 vars */) = 0',
         f'execve("/usr/bin/redis-cli", ["redis-cli", "-a", "{REDACTED}", "PING"], 0x7fff /* 9 vars */) = 0'),
        (f'type=EXECVE msg=audit(1.2:3): argc=3 a0="curl" a1="-u" a2="deploy:{PASSWORD}"',
         f'type=EXECVE msg=audit(1.2:3): argc=3 a0="curl" a1="-u" a2="deploy:{REDACTED}"'),
    ):
        assert scrub(text) == expected, text


def test_argv_files_and_ports_stay() -> None:
    for text in (
        "    args:\n    - --token-file\n    - /var/run/secrets/tokens/api",
        "    args:\n    - --port\n    - \"8080\"",
        "app serve \\\n    --port \\\n    8080",
        "kubectl create secret generic db \\\n  --from-file=password=./pw.txt",
    ):
        assert scrub(text) == text, text


def test_escaped_and_marked_separators() -> None:
    for text, expected in (
        (f"&#34;password&#34;: &#34;{PASSWORD}&#34;", f"&#34;password&#34;: &#34;{REDACTED}&#34;"),
        (f"&lt;Password&gt;{PASSWORD}&lt;/Password&gt;", f"&lt;Password&gt;{REDACTED}&lt;/Password&gt;"),
        (f"\"url\": \"https://x.test/v1?access_token\\u003d{SECRET}\\u0026v\\u003d2\"",
         f"\"url\": \"https://x.test/v1?access_token\\u003d{REDACTED}\\u0026v\\u003d2\""),
        (f"var c = JSON.parse('{{\\x22apiKey\\x22:\\x22{SECRET}\\x22}}');", f"var c = JSON.parse('{{\\x22apiKey\\x22:\\x22{REDACTED}\\x22}}');"),
        (f"DB_PASSWORD ?= {PASSWORD}", f"DB_PASSWORD ?= {REDACTED}"),
        (f"SECRET_KEY ?= {SECRET}", f"SECRET_KEY ?= {REDACTED}"),
        (f"DB_PASSWORD=[-changeme-]{{+{PASSWORD}+}}", f"DB_PASSWORD=[-{REDACTED}}}"),
    ):
        assert scrub(text) == expected, text
    for text in ("&#34;password&#34;: &#34;&#34;", "&lt;Password&gt;${DB_PASSWORD}&lt;/Password&gt;",
                 "API_TOKEN ?= $(shell cat .token)", "\\x22apiKey\\x22:\\x22\\x22", "token: [-1]"):
        assert scrub(text) == text, text


def test_quotes_escaped_inside_a_password() -> None:
    for text, expected in (
        ("export DB_PASSWORD='Fake'\\''Marble#4471'", f"export DB_PASSWORD='{REDACTED}'"),
        ("mysql --password='Fake'\"'\"'Marble#4471' shop", f"mysql --password='{REDACTED}' shop"),
        ("ALTER USER app WITH PASSWORD 'Fake''Marble#4471';", f"ALTER USER app WITH PASSWORD '{REDACTED}';"),
    ):
        assert scrub(text) == expected, text


def test_multi_line_literals() -> None:
    assert scrub(f"const secret = `\n  {SECRET}\n`.trim();") == f"const secret = `\n  {REDACTED}\n`.trim();"
    assert scrub("String apiKey = \"Q7rT9xLm2wZk\"\n        + \"P4vB8nC3zQ1w\";") == f"String apiKey = {REDACTED};"
    message = "msg = (\"The password you entered \"\n       \"does not match our records.\")"
    assert scrub(message) == message
    assert scrub('password = """\n"""') == 'password = """\n"""'  # the literal's closer is no value


def test_scanner_findings_go_and_masked_ones_stay() -> None:
    assert scrub(f"Raw result: {SECRET}\nFile: .env") == f"Raw result: {REDACTED}\nFile: .env"
    assert scrub(f'{{"DetectorName":"Github","Raw":"{SECRET}","RawV2":""}}') == f'{{"DetectorName":"Github","Raw":"{REDACTED}","RawV2":""}}'
    for text in ("Raw result: ****\nRedacted: ghp_****", '"Raw":"","Redacted":"ghp_****"', '"Raw": "GET / HTTP/1.1"'):
        assert scrub(text) == text, text


def test_helm_diff_masks_stay() -> None:
    for text in ("+   password: '++++++++ # (16 bytes)'", "-   token: '-------- # (24 bytes)'"):
        assert scrub(text) == text, text
