"""A twentieth held-out set: secrets as commands and tools are handed them, outside the ``--password x`` and
``key=value`` shapes the other sets cover.

    python -m tests.secret_corpus.invoked   # rewrites invoked_*.jsonl.gz here

Kinds (each a family of formats, written from the tools' own documentation and shell habits): a configuration
command that sets a credential-named key to a value separated by a space (``aws configure set
aws_secret_access_key ..``, ``git config .. sendemail.smtppass ..``, ``yarn config set npmAuthToken ..``, ``kubectl
config set users.x.token ..``, ``launchctl setenv GITHUB_TOKEN ..``, ``defaults write <domain> apiKey ..``,
``fw_setenv wifi_psk ..``, ``dotnet user-secrets set "Stripe:SecretKey" ..``, redis' ``CONFIG SET requirepass``);
a secret echoed or here-stringed into a command that reads a credential from its standard input (``echo .. |
docker login --password-stdin``, ``| sudo -S``, ``| kinit``, ``| passwd``, ``| gh auth login --with-token``,
``| vault login -``, ``| cryptsetup luksOpen``, ``| openssl .. -passin stdin``, ``| docker secret create``,
``podman login .. <<< ..``, ``echo .. > /run/secrets/db_password``); a password where one tool's syntax puts it
(``sshpass -p '..'``, ``zip -P``, ``7z -p``, PuTTY's ``-pw``, ``openssl enc -k``, ``lftp -u user,pw``, ``db2 connect
.. using``, ``wpa_passphrase <ssid> <psk>``, ``mosquitto_passwd -b``, ``mc alias set .. <access> <secret>``,
NickServ's ``IDENTIFY``, ``sp_addlogin``); a command's quoted word list as a monitor, a client or a trace prints it
(Redis ``MONITOR``'s ``"AUTH" "<pw>"`` and ``"CONFIG" "SET" "requirepass" "<pw>"``, an argument tuple ``('AUTH', ..)``,
strace's argv, the RESP wire form); Erlang and Elixir terms (``{password,<<"..">>}``, ``#{password => <<"..">>}``);
a dict's repr inside a single-quoted string (``'{\\'password\\': \\'..\\'}'``); cookies outside a ``Cookie:`` header (Netscape cookie jars, the
``http.cookiejar`` repr ``<Cookie name=value for host/>``, ``set_cookie``/``setcookie``/``res.cookie`` calls, a
``cookies`` dict, DevTools' table rows); daemons' credential files with a host before ``user:password`` (Postfix
``sasl_passwd``, squid's ``login=user:pw``).

Benign: the same commands and files without a secret (``$VAR``, ``$(cat file)``, ``--password-stdin < file``,
``-p 8080:80``, ``zip -r``, ``echo "deb .." | sudo tee``, ``config set`` of a non-secret key, ``signingkey``, field-name
lists, masked Erlang binaries,
cookies holding a language, a consent flag or a short id, ``sasl_passwd`` hashed lines and host maps).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). 50 secret formats x 5 and 38 benign categories x 5. ``tests/test_scrub_invoked.py`` scores ``errscope.scrub``
on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import tok
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, Maker, pick, rnd
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: invoked() seeds it


def pw() -> str:
    return pick(fpw(), fpw(), tok(16, 24))


def user() -> str:
    return pick("alice", "deploy", "svc_etl", "ci-bot", "backup", "admin", "ops")


def host() -> str:
    return pick("db.internal", "10.0.3.7", "pg-prod-1", "files.example.com", "sftp.corp.example.net")


def n() -> str:
    return str(_r.randint(1, 999))


def q(value: str) -> str:
    """The value as shells quote it: bare, single or double quotes."""
    return pick(value, f"'{value}'", f'"{value}"')


def prompt() -> str:
    return pick("$ ", "+ ", "", f"{user()}@web-{n()}:~$ ", f"  {_r.randint(100, 2000)}  ", f": {_r.randint(1_700_000_000, 1_760_000_000)}:0;")


def cookie_value() -> str:
    return pick(tok(26, 40), rnd(32, HEX + "ABCDEF"), "s%3A" + rnd(32, B64URL) + "." + rnd(43, ALNUM), rnd(48, B64URL))


SECRETS: list[tuple[str, str, Maker]] = [
    # a configuration command sets a credential-named key, the value after a space
    ("aws_configure_set", "log", one(lambda: rnd(40, ALNUM + "+/"),
        lambda s: f"{prompt()}aws configure set aws_secret_access_key {s}",
        lambda s: f"{prompt()}aws configure set aws_secret_access_key {s} --profile {pick('dev', 'prod', 'ci')}")),
    ("aws_configure_set_session", "log", one(lambda: "IQoJb3JpZ2luX2VjE" + rnd(120, ALNUM + "+/"),
        lambda s: f"{prompt()}aws configure set aws_session_token {s} --profile dev",
        lambda s: f"Command '['aws', 'configure', 'set', 'aws_session_token', '{s}']' returned non-zero exit status 255.")),
    ("npm_config_set_auth_token", "log", one(lambda: pick("npm_" + rnd(36), tok(30, 40)),
        lambda s: f"{prompt()}npm config set //npm.pkg.github.com/:_authToken {s}",
        lambda s: f"{prompt()}pnpm config set //registry.example.com/:_authToken {s}")),
    ("yarn_config_set_token", "log", one(lambda: tok(30, 40),
        lambda s: f"{prompt()}yarn config set npmAuthToken {s}",
        lambda s: f"{prompt()}yarn config set npmScopes.acme.npmAuthToken {s} -H")),
    ("git_config_credential_key", "log", one(pw,
        lambda s: f"{prompt()}git config --global sendemail.smtppass {q(s)}",
        lambda s: f"{prompt()}git config --global github.token {s}",
        lambda s: f"{prompt()}git config --local gitlab.example.com.token {s}")),
    ("kubectl_config_set_token", "log", one(lambda: tok(32, 48),
        lambda s: f"{prompt()}kubectl config set users.{user()}.token {s}",
        lambda s: f"{prompt()}kubectl config set users.{user()}.password {s}")),
    ("redis_config_set_requirepass", "log", one(pw,
        lambda s: f"127.0.0.1:6379> CONFIG SET requirepass {q(s)}\nOK",
        lambda s: f"{prompt()}redis-cli -h {host()} CONFIG SET masterauth {q(s)}")),
    ("setenv_credential", "log", one(lambda: pick("ghp_" + rnd(36), tok(28, 40), pw()),
        lambda s: f"{prompt()}launchctl setenv GITHUB_TOKEN {s}",
        lambda s: f"C:\\> setx API_TOKEN {q(s)}",
        lambda s: f"{prompt()}fw_setenv wifi_psk {s}")),
    ("defaults_write_key", "log", one(lambda: tok(24, 40),
        lambda s: f"{prompt()}defaults write com.example.sync apiKey {s}",
        lambda s: f"{prompt()}defaults write com.example.Agent authToken -string {q(s)}")),
    ("dotnet_user_secrets_set", "log", one(pw,
        lambda s: f"{prompt()}dotnet user-secrets set \"Stripe:SecretKey\" \"{s}\"",
        lambda s: f"PS C:\\src\\api> dotnet user-secrets set ConnectionStrings:DbPassword {s}")),
    ("rclone_config_create_pairs", "log", one(lambda: rnd(40, ALNUM + "+/"),
        lambda s: f"{prompt()}rclone config create s3remote s3 provider AWS access_key_id AKIAIOSFODNN7EXAMPLE secret_access_key {s}",
        lambda s: f"{prompt()}rclone config update b2 account 000{rnd(9, HEX)} key {s}")),
    ("poetry_config_token", "log", one(lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(50, B64URL),
        lambda s: f"{prompt()}poetry config pypi-token.pypi {s}",
        lambda s: f"{prompt()}poetry config pypi-token.private {s}")),
    # a secret echoed into a command that reads a credential from its standard input
    ("echo_docker_password_stdin", "log", one(pw,
        lambda s: f"{prompt()}echo {q(s)} | docker login --username {user()} --password-stdin",
        lambda s: f"{prompt()}echo {q(s)} | helm registry login registry.example.com -u {user()} --password-stdin",
        lambda s: f"{prompt()}printf '%s' {q(s)} | podman login quay.io -u {user()} --password-stdin")),
    ("echo_sudo_stdin", "log", one(pw,
        lambda s: f"{prompt()}echo {q(s)} | sudo -S systemctl restart app",
        lambda s: f"{prompt()}echo {q(s)} | sudo -k -S apt-get update")),
    ("echo_kinit", "log", one(pw,
        lambda s: f"{prompt()}echo {q(s)} | kinit {user()}@EXAMPLE.COM",
        lambda s: f"{prompt()}printf '%s\\n' {q(s)} | kinit -V svc_etl")),
    ("echo_passwd", "log", one(pw,
        lambda s: f"{prompt()}echo -e \"{s}\\n{s}\" | passwd {user()}",
        lambda s: f"{prompt()}echo {q(s)} | passwd --stdin {user()}")),
    ("echo_with_token", "log", one(lambda: pick("ghp_" + rnd(36), tok(30, 40), "hvs." + rnd(24)),
        lambda s: f"{prompt()}echo -n {s} | gh auth login --with-token",
        lambda s: f"{prompt()}echo {s} | vault login -",
        lambda s: f"{prompt()}echo {q(s)} | vault login -method=token token=-")),
    ("echo_luks", "log", one(pw,
        lambda s: f"{prompt()}echo -n {q(s)} | cryptsetup luksOpen /dev/sdb1 data -",
        lambda s: f"{prompt()}echo -n {q(s)} | cryptsetup luksFormat /dev/nvme1n1 -")),
    ("echo_openssl_passin", "log", one(pw,
        lambda s: f"{prompt()}echo {q(s)} | openssl rsa -in key.pem -passin stdin -out plain.pem",
        lambda s: f"{prompt()}echo {q(s)} | openssl pkcs12 -in cert.p12 -nodes -passin stdin")),
    ("echo_secret_create", "log", one(pw,
        lambda s: f"{prompt()}printf {q(s)} | docker secret create db_password -",
        lambda s: f"{prompt()}echo {q(s)} | gh secret set DB_PASSWORD",
        lambda s: f"{prompt()}echo {q(s)} | npx wrangler secret put API_KEY")),
    ("herestring_login", "log", one(pw,
        lambda s: f"{prompt()}podman login -u {user()} --password-stdin quay.io <<< {q(s)}",
        lambda s: f"{prompt()}smbpasswd -s -a {user()} <<< {q(s)}",
        lambda s: f"{prompt()}docker login ghcr.io -u {user()} --password-stdin <<< {q(s)}")),
    ("echo_to_secret_file", "log", one(pw,
        lambda s: f"{prompt()}echo {q(s)} > /run/secrets/db_password",
        lambda s: f"{prompt()}echo -n {q(s)} > ~/.config/app/api_token",
        lambda s: f"{prompt()}printf '%s' {q(s)} >> /etc/app/secrets.env")),
    ("yes_keytool", "log", one(pw,
        lambda s: f"{prompt()}yes {q(s)} | keytool -genkey -alias app -keystore app.jks",
        lambda s: f"{prompt()}yes {q(s)} | sudo -S true")),
    # a password where one tool's syntax puts it
    ("sshpass_quoted", "log", one(pw,
        lambda s: f"{prompt()}sshpass -p '{s}' ssh {user()}@{host()}",
        lambda s: f"{prompt()}sshpass -p \"{s}\" rsync -a /srv/ {host()}:/srv/",
        lambda s: f"{prompt()}sshpass -p {s} scp backup.tgz {host()}:")),
    ("short_p_quoted", "log", one(pw,
        lambda s: f"{prompt()}mysql -u root -p '{s}' -h {host()} shop",
        lambda s: f"{prompt()}mysqladmin -u root -p \"{s}\" status")),
    ("zip_password", "log", one(pw,
        lambda s: f"{prompt()}zip -r -P {q(s)} backup.zip /srv/data",
        lambda s: f"{prompt()}unzip -o -P {q(s)} export.zip -d /tmp/export",
        lambda s: f"{prompt()}7z x archive.7z -p{s} -o/tmp/out")),
    ("putty_pw", "log", one(pw,
        lambda s: f"C:\\> pscp -pw {q(s)} report.csv {user()}@{host()}:/tmp/",
        lambda s: f"C:\\> plink -ssh {user()}@{host()} -pw {q(s)} -batch uptime")),
    ("openssl_k", "log", one(pw,
        lambda s: f"{prompt()}openssl enc -aes-256-cbc -salt -k {q(s)} -in db.sql -out db.sql.enc",
        lambda s: f"{prompt()}openssl enc -d -aes-256-cbc -pbkdf2 -k {q(s)} -in a.enc")),
    ("lftp_user_comma", "log", one(pw,
        lambda s: f"{prompt()}lftp -u {user()},{q(s)} sftp://{host()}",
        lambda s: f"{prompt()}lftp -e 'mirror -R /out /in; quit' -u {user()},{s} {host()}")),
    ("db2_using", "log", one(pw,
        lambda s: f"{prompt()}db2 connect to SAMPLE user db2inst1 using {s}",
        lambda s: f"SQL30082N  Security processing failed. db2 CONNECT TO PROD USER etl USING {s}")),
    ("wpa_passphrase", "log", one(pw,
        lambda s: f"{prompt()}wpa_passphrase HomeNet {q(s)} >> /etc/wpa_supplicant.conf",
        lambda s: f"{prompt()}wpa_passphrase \"Office 5G\" {q(s)}")),
    ("mosquitto_passwd_b", "log", one(pw,
        lambda s: f"{prompt()}mosquitto_passwd -b /etc/mosquitto/passwd {user()} {q(s)}",
        lambda s: f"{prompt()}mosquitto_passwd -c -b passwd sensor-{n()} {s}")),
    ("minio_alias_set", "log", one(lambda: rnd(40, ALNUM),
        lambda s: f"{prompt()}mc alias set minio http://minio:9000 {rnd(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')} {s}",
        lambda s: f"{prompt()}mc config host add s3 https://s3.amazonaws.com AKIAIOSFODNN7EXAMPLE {s}")),
    ("nickserv_identify", "log", one(pw,
        lambda s: f"-> PRIVMSG NickServ :IDENTIFY {s}",
        lambda s: f"/msg NickServ IDENTIFY {user()} {s}",
        lambda s: f"[irc] >> PRIVMSG NickServ :identify {user()} {s}")),
    ("sp_addlogin", "log", one(pw,
        lambda s: f"EXEC sp_addlogin 'etl', '{s}';",
        lambda s: f"EXEC sp_addlogin @loginame = N'etl', @passwd = N'{s}';")),
    # cookies outside a Cookie: header
    ("netscape_cookie_jar", "log", one(cookie_value,
        lambda s: f"# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t{_r.randint(1_760_000_000, 1_800_000_000)}\t{pick('session', 'sessionid', '_app_session', 'auth_token')}\t{s}",
        lambda s: f"#HttpOnly_app.example.com\tFALSE\t/\tTRUE\t0\t{pick('JSESSIONID', 'PHPSESSID', 'connect.sid', 'laravel_session')}\t{s}")),
    ("cookiejar_repr", "exception", one(cookie_value,
        lambda s: f"<RequestsCookieJar[<Cookie {pick('sessionid', 'session', '_gh_sess', 'remember_token')}={s} for app.example.com/>]>",
        lambda s: f"<CookieJar[<Cookie lang=en for .example.com/>, <Cookie {pick('sid', 'JSESSIONID')}={s} for .example.com/>]>")),
    ("set_cookie_call", "log", one(cookie_value,
        lambda s: f"res.cookie('{pick('sid', 'session')}', '{s}', {{ httpOnly: true, secure: true }})",
        lambda s: f"setcookie(\"PHPSESSID\", \"{s}\", time() + 3600, \"/\");",
        lambda s: f"response.set_cookie('{pick('sessionid', 'remember_token')}', '{s}', max_age=86400, httponly=True)",
        lambda s: f"driver.add_cookie({{\"name\": \"session\", \"value\": \"{s}\"}})")),
    ("cookies_dict", "exception", one(cookie_value,
        lambda s: f"cookies={{'{pick('PHPSESSID', 'laravel_session', 'sessionid')}': '{s}'}}",
        lambda s: f"DEBUG response.cookies: {{\"{pick('connect.sid', '_session_id')}\": \"{s}\", \"lang\": \"en\"}}")),
    ("devtools_cookie_row", "log", one(cookie_value,
        lambda s: f"Name\tValue\tDomain\tPath\tExpires\n{pick('sessionid', 'session', '__Secure-session')}\t{s}\t.example.com\t/\t2026-01-01T00:00:00.000Z",
        lambda s: f"{pick('sessionid', 'JSESSIONID')}\t{s}\tapp.example.com\t/\tSession\t48\t✓\t✓")),
    ("session_cookie_prose", "log", one(cookie_value,
        lambda s: f"{heldout.ts()} WARN auth: session cookie '{s}' expired, redirecting to /login",
        lambda s: f"{heldout.ts()} DEBUG replaying cookie \"{s}\" for user {user()}")),
    # a command's words as a monitor, a driver or a trace prints them: a secret-named word, then the next
    ("redis_monitor_auth", "log", one(pw,
        lambda s: f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 10.0.0.{_r.randint(2, 254)}:{_r.randint(30000, 60000)}] "AUTH" "{s}"',
        lambda s: f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 10.0.0.{_r.randint(2, 254)}:{_r.randint(30000, 60000)}] "AUTH" "{user()}" "{s}"')),
    ("redis_monitor_config_set", "log", one(pw,
        lambda s: f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 127.0.0.1:{_r.randint(30000, 60000)}] "CONFIG" "SET" "requirepass" "{s}"',
        lambda s: f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 lua] "HSET" "user:{n()}" "password" "{s}"')),
    ("argv_list_auth", "exception", one(pw,
        lambda s: f"redis.exceptions.AuthenticationError: invalid username-password pair (command: ['AUTH', '{user()}', '{s}'])",
        lambda s: f"DEBUG redis: send_command args=('AUTH', '{s}')",
        lambda s: f'execve("/usr/bin/redis-cli", ["redis-cli", "CONFIG", "SET", "masterauth", "{s}"], 0x7ffd0 /* 24 vars */) = 0')),
    ("resp_wire_auth", "log", one(pw,
        lambda s: f"> *2\\r\\n$4\\r\\nAUTH\\r\\n${len(s)}\\r\\n{s}\\r\\n",
        lambda s: f"write(3, \"*3\\r\\n$4\\r\\nAUTH\\r\\n$7\\r\\ndefault\\r\\n${len(s)}\\r\\n{s}\\r\\n\", {30 + len(s)}) = {30 + len(s)}")),
    # Erlang and Elixir terms (RabbitMQ, ejabberd, EMQX crash reports)
    ("erlang_tuple_binary", "exception", one(pw,
        lambda s: f"{{error,{{auth_failure,[{{username,<<\"{user()}\">>}},{{password,<<\"{s}\">>}}]}}}}",
        lambda s: f"** Reason for termination ==\n** {{badmatch,{{password,<<\"{s}\">>}}}}",
        lambda s: f"[{{host,\"db.internal\"}},{{user,\"app\"}},{{password,\"{s}\"}},{{port,5432}}]")),
    ("erlang_map_binary", "exception", one(pw,
        lambda s: f"#{{password => <<\"{s}\">>,username => <<\"{user()}\">>}}",
        lambda s: f"crasher: initial call: emqx_auth:init/1, reason: #{{<<\"token\">> => <<\"{s}\">>}}")),
    # a secret-named pair whose quotes are backslash-escaped single quotes (a dict's repr inside a quoted string)
    ("escaped_single_quotes", "exception", one(pw,
        lambda s: f"ValueError('{{\\'user\\': \\'{user()}\\', \\'password\\': \\'{s}\\'}}')",
        lambda s: f"'{{\\'token\\': \\'{s}\\'}}'",
        lambda s: f"echo 'export DB_PASSWORD=\\'{s}\\'' >> .env")),
    # daemons' credential files: a host, then user:password
    ("postfix_sasl_passwd", "log", one(pw,
        lambda s: f"[smtp.{pick('example.com', 'sendgrid.net', 'mailgun.org')}]:587 {user()}:{s}",
        lambda s: f"# /etc/postfix/sasl_passwd\n[email-smtp.eu-west-1.amazonaws.com]:587 AKIA{rnd(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}:{s}",
        lambda s: f"smtp.gmail.com:587 {user()}:{s}")),
    ("squid_login", "log", one(pw,
        lambda s: f"cache_peer proxy.example.com parent 3128 0 no-query default login={user()}:{s}",
        lambda s: f"cache_peer 10.0.0.9 parent 8080 0 login={user()}:{s} connect-fail-limit=2")),
]

BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("config_set_non_secret", "log", lambda: pick(
        f"{prompt()}aws configure set region {pick('eu-west-1', 'us-east-1')}",
        f"{prompt()}aws configure set output json --profile dev",
        f"{prompt()}npm config set registry https://registry.example.com/",
        f"{prompt()}yarn config set npmRegistryServer https://npm.example.com",
        f"{prompt()}kubectl config set-context prod --namespace=shop",
        f"{prompt()}git config --global user.name \"{user().capitalize()} Example\"",
        f"{prompt()}git config --global pull.rebase true")),
    ("config_set_placeholder", "log", lambda: pick(
        f"{prompt()}aws configure set aws_secret_access_key \"$AWS_SECRET_ACCESS_KEY\"",
        f"{prompt()}npm config set //npm.pkg.github.com/:_authToken ${{NPM_TOKEN}}",
        f"{prompt()}yarn config set npmAuthToken \"$(cat ~/.npm_token)\"",
        f"{prompt()}redis-cli CONFIG SET requirepass \"\"",
        f"{prompt()}launchctl setenv GITHUB_TOKEN $GITHUB_TOKEN")),
    ("config_get_secret_key", "log", lambda: pick(
        f"{prompt()}aws configure get aws_secret_access_key --profile dev",
        "127.0.0.1:6379> CONFIG GET requirepass\n1) \"requirepass\"\n2) \"\"",
        f"{prompt()}git config --global --unset github.token",
        f"{prompt()}kubectl config unset users.{user()}.token",
        f"{prompt()}defaults delete com.example.sync apiKey")),
    ("config_set_signing_key_id", "log", lambda: pick(
        f"{prompt()}git config --global user.signingkey {rnd(16, HEX.upper())}",
        f"{prompt()}git config --global gpg.format ssh",
        f"{prompt()}git config --global commit.gpgsign true",
        f"{prompt()}defaults write com.apple.dock autohide -bool true",
        f"{prompt()}setx JAVA_HOME \"C:\\Program Files\\Java\\jdk-17\"")),
    ("config_set_token_settings", "log", lambda: pick(
        f"{prompt()}kubectl config set clusters.prod.server https://10.0.0.1:6443",
        f"{prompt()}redis-cli CONFIG SET maxmemory-policy allkeys-lru",
        f"{prompt()}redis-cli CONFIG SET timeout {_r.randint(0, 600)}",
        f"{prompt()}fw_setenv bootdelay 3",
        f"{prompt()}launchctl setenv LOG_LEVEL debug")),
    ("echo_to_pipe_plain", "log", lambda: pick(
        f"{prompt()}echo \"deb [signed-by=/usr/share/keyrings/docker.gpg] https://download.docker.com/linux/ubuntu jammy stable\" | sudo tee /etc/apt/sources.list.d/docker.list",
        f"{prompt()}echo 'export PATH=$HOME/.local/bin:$PATH' >> ~/.bashrc",
        f"{prompt()}echo hello-world-{n()} | grep world",
        f"{prompt()}printf '%s\\n' build-{n()} test-{n()} | xargs -n1 make",
        f"{prompt()}echo 3 | sudo tee /proc/sys/vm/drop_caches")),
    ("password_stdin_from_var", "log", lambda: pick(
        f"{prompt()}echo \"$CR_PAT\" | docker login ghcr.io -u {user()} --password-stdin",
        f"{prompt()}echo $DOCKER_PASSWORD | docker login -u {user()} --password-stdin",
        f"{prompt()}cat ~/.docker/token.txt | docker login --username {user()} --password-stdin",
        f"{prompt()}aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com",
        f"{prompt()}printf '%s' \"${{VAULT_TOKEN}}\" | vault login -",
        f"{prompt()}gh auth login --with-token < ~/.config/gh/token")),
    ("sudo_and_passwd_plain", "log", lambda: pick(
        f"{prompt()}sudo -S -v < /dev/null",
        f"{prompt()}sudo passwd -l {user()}",
        f"{prompt()}passwd --status {user()}",
        f"{prompt()}kinit -kt /etc/krb5.keytab HTTP/web-{n()}.example.com@EXAMPLE.COM",
        f"{prompt()}echo ok | sudo -S true 2>/dev/null || echo 'sudo needs a password'")),
    ("echo_to_file_plain", "log", lambda: pick(
        f"{prompt()}echo {n()} > /sys/class/backlight/intel/brightness",
        f"{prompt()}echo 'vm.max_map_count=262144' >> /etc/sysctl.conf",
        f"{prompt()}echo \"$(date) started\" > /var/log/app/start.log",
        f"{prompt()}echo -n production > /etc/app/env",
        f"{prompt()}printf 'nameserver 10.0.0.2\\n' > /etc/resolv.conf")),
    ("herestring_plain", "log", lambda: pick(
        f"{prompt()}bc <<< '2^{_r.randint(8, 64)}'",
        f"{prompt()}read -r a b <<< \"$line\"",
        f"{prompt()}grep -c error <<< \"$output\"",
        f"{prompt()}base64 -d <<< aGVsbG8K")),
    ("short_p_not_password", "log", lambda: pick(
        f"{prompt()}docker run -p 8080:80 -p 127.0.0.1:9090:9090 nginx:1.{_r.randint(20, 27)}",
        f"{prompt()}ssh -p {_r.randint(1024, 65000)} {user()}@{host()}",
        f"{prompt()}mkdir -p /srv/app-v2/logs",
        f"{prompt()}mysql -h {host()} -u root -p shop < dump.sql",
        f"{prompt()}psql -p 5433 -U postgres -d orders",
        f"{prompt()}python3 -m venv .venv && pip install -r requirements.txt")),
    ("sshpass_from_env", "log", lambda: pick(
        f"{prompt()}sshpass -e ssh {user()}@{host()}",
        f"{prompt()}sshpass -f ~/.ssh/pass.txt rsync -a /srv/ {host()}:/srv/",
        f"{prompt()}SSHPASS=\"$DEPLOY_PW\" sshpass -e scp build.tgz {host()}:",
        f"{prompt()}sshpass -p \"$SSH_PASSWORD\" ssh -o StrictHostKeyChecking=no {user()}@{host()}")),
    ("zip_without_password", "log", lambda: pick(
        f"{prompt()}zip -r backup-{n()}.zip /srv/data",
        f"{prompt()}unzip -o export-{n()}.zip -d /tmp/export",
        f"{prompt()}7z a -t7z archive-{n()}.7z docs/",
        f"{prompt()}zip -e secure.zip notes.txt   # prompts for a password",
        f"{prompt()}7z x archive.7z -o/tmp/out -y")),
    ("putty_keyfile", "log", lambda: pick(
        f"C:\\> pscp -i C:\\keys\\deploy.ppk report.csv {user()}@{host()}:/tmp/",
        f"C:\\> plink -ssh {user()}@{host()} -i key.ppk -batch uptime",
        f"C:\\> plink -ssh -P 2222 {user()}@{host()} -batch uptime")),
    ("openssl_without_k", "log", lambda: pick(
        f"{prompt()}openssl enc -aes-256-cbc -pbkdf2 -pass env:BACKUP_KEY -in db.sql -out db.sql.enc",
        f"{prompt()}openssl enc -d -aes-256-cbc -pass file:/run/secrets/backup_key -in a.enc",
        f"{prompt()}openssl rand -hex 32",
        f"{prompt()}openssl x509 -in cert.pem -noout -fingerprint -sha256")),
    ("lftp_without_password", "log", lambda: pick(
        f"{prompt()}lftp -u {user()} sftp://{host()}",
        f"{prompt()}lftp -e 'mirror /in /out; quit' {host()}",
        f"{prompt()}lftp -u {user()}, sftp://{host()}   # empty password: key auth")),
    ("db2_without_using", "log", lambda: pick(
        f"{prompt()}db2 connect to SAMPLE",
        f"{prompt()}db2 connect to SAMPLE user db2inst1",
        "SQL1032N  No start database manager command was issued.  SQLSTATE=57019",
        f"{prompt()}db2 \"select count(*) from syscat.tables using index\"")),
    ("wpa_passphrase_placeholder", "log", lambda: pick(
        f"{prompt()}wpa_passphrase HomeNet",
        "network={\n\tssid=\"HomeNet\"\n\tkey_mgmt=WPA-PSK\n\tpsk=\"...\"\n}",
        f"{prompt()}wpa_cli -i wlan0 status")),
    ("mosquitto_plain", "log", lambda: pick(
        f"{prompt()}mosquitto_passwd -D /etc/mosquitto/passwd {user()}",
        f"{prompt()}mosquitto_passwd -U /etc/mosquitto/passwd",
        f"{prompt()}mosquitto_sub -h {host()} -t 'sensors/#' -v")),
    ("minio_alias_plain", "log", lambda: pick(
        f"{prompt()}mc alias list",
        f"{prompt()}mc alias remove minio",
        f"{prompt()}mc ls minio/backups --recursive",
        f"{prompt()}mc alias set minio http://minio:9000")),
    ("irc_plain", "log", lambda: pick(
        "-> PRIVMSG NickServ :INFO alice",
        "<- :NickServ!services@irc.example.net NOTICE me :You are now identified for alice.",
        f"-> PRIVMSG #ops :deploy {n()} done",
        "/msg NickServ HELP IDENTIFY")),
    ("sp_plain", "log", lambda: pick(
        "EXEC sp_addrolemember 'db_datareader', 'etl';",
        "EXEC sp_droplogin 'etl';",
        f"EXEC sp_who2 {n()};",
        "EXEC sp_addlogin @loginame = N'etl', @passwd = NULL;")),
    ("redis_monitor_plain", "log", lambda: f'{_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100000, 999999)} [0 127.0.0.1:{_r.randint(30000, 60000)}] ' + pick(
        '"AUTH" "$REDIS_PASSWORD"', f'"GET" "session:{n()}"', '"CONFIG" "GET" "requirepass"', f'"HGET" "user:{n()}" "password_changed_at"',
        '"PING"', f'"HSET" "user:{n()}" "password" "(hidden)"')),
    ("argv_list_plain", "exception", lambda: pick(
        "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379 (command: ['AUTH', '<redacted>'])",
        "fields = ['username', 'password', 'email']",
        "DEBUG redis: send_command args=('AUTH', '********')",
        f"ValidationError: ('password', 'too short') at index {n()}",
        "required: [\"token\", \"expires_in\"]")),
    ("resp_plain", "log", lambda: pick(
        f"> *2\\r\\n$3\\r\\nGET\\r\\n$10\\r\\nsession:{_r.randint(10, 99)}\\r\\n",
        "< -NOAUTH Authentication required.\\r\\n",
        "> *1\\r\\n$4\\r\\nPING\\r\\n")),
    ("erlang_terms_plain", "exception", lambda: pick(
        f"{{error,{{auth_failure,[{{username,<<\"{user()}\">>}},{{password,<<\"******\">>}}]}}}}",
        f"[{{host,\"db.internal\"}},{{user,\"app\"}},{{port,5432}},{{pool_size,{_r.randint(5, 50)}}}]",
        "#{password_policy => <<\"strict\">>,min_length => 12}",
        "{token_ttl,3600}",
        "** {badmatch,{error,invalid_password}}")),
    ("escaped_quotes_plain", "exception", lambda: pick(
        "ValueError('{\\'user\\': \\'alice\\', \\'role\\': \\'admin\\'}')",
        "'{\\'password\\': \\'****\\'}'",
        "echo 'export DB_PASSWORD=\\'$DB_PASSWORD\\'' >> .env")),
    ("cookie_jar_non_session", "log", lambda: "# Netscape HTTP Cookie File\n" + pick(
        f".example.com\tTRUE\t/\tFALSE\t{_r.randint(1_760_000_000, 1_800_000_000)}\tlang\ten-US",
        ".example.com\tTRUE\t/\tFALSE\t0\tcookie_consent\ttrue",
        f".example.com\tTRUE\t/\tFALSE\t{_r.randint(1_760_000_000, 1_800_000_000)}\ttheme\tdark",
        f"app.example.com\tFALSE\t/\tFALSE\t0\tseen_banner\t{n()}")),
    ("cookiejar_repr_plain", "exception", lambda: pick(
        "<RequestsCookieJar[]>",
        "<RequestsCookieJar[<Cookie lang=en for app.example.com/>]>",
        f"<CookieJar[<Cookie tz=Europe/Berlin for .example.com/>, <Cookie visits={n()} for .example.com/>]>")),
    ("set_cookie_call_plain", "log", lambda: pick(
        "res.cookie('theme', 'dark', { maxAge: 31536000 })",
        "setcookie(\"lang\", \"de\", time() + 86400, \"/\");",
        "response.set_cookie('cookie_consent', 'accepted', max_age=31536000)",
        "res.clearCookie('sid')",
        "response.delete_cookie('sessionid')")),
    ("cookies_dict_plain", "exception", lambda: pick(
        "cookies={'lang': 'en', 'theme': 'dark'}",
        "cookies={}",
        f"DEBUG response.cookies: {{\"cookie_consent\": \"true\", \"visits\": \"{n()}\"}}")),
    ("devtools_plain", "log", lambda: pick(
        "Name\tValue\tDomain\tPath\tExpires\nlang\ten-US\t.example.com\t/\t2026-01-01T00:00:00.000Z",
        "theme\tdark\tapp.example.com\t/\tSession\t10\t\t")),
    ("cookie_prose_plain", "log", lambda: pick(
        f"{heldout.ts()} WARN auth: session cookie missing, redirecting to /login",
        f"{heldout.ts()} DEBUG cookie 'lang' not set, defaulting to en",
        f"{heldout.ts()} INFO session cookie expired for user {user()}")),
    ("sasl_passwd_hashed_and_maps", "log", lambda: pick(
        "[smtp.example.com]:587 $sasl_user:$sasl_pass",
        "smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd",
        "relayhost = [smtp.example.com]:587",
        f"[smtp.example.com]:587 {user()}:",
        "smtp_sasl_auth_enable = yes")),
    ("squid_plain", "log", lambda: pick(
        "cache_peer proxy.example.com parent 3128 0 no-query default login=PASSTHRU",
        "cache_peer 10.0.0.9 parent 8080 0 login=PROXYPASS connect-fail-limit=2",
        "cache_peer 10.0.0.9 parent 8080 0 no-digest")),
    ("hosts_and_addresses", "log", lambda: pick(
        f"{host()} 10.0.{_r.randint(0, 9)}.{_r.randint(1, 254)}:5432",
        f"db.internal:5432 {user()}:{n()}",
        f"[2001:db8::1]:443 web-{n()}:ok",
        f"10.0.0.{_r.randint(1, 254)} web-{n()}.example.com web-{n()}")),
    ("shell_history_plain", "log", lambda: f"{prompt()}" + pick(
        "docker compose up -d --build", f"kubectl rollout restart deploy/web-{n()}", "terraform plan -out=tfplan",
        "git push origin main", f"ssh {user()}@{host()}", "systemctl status nginx")),
    ("set_in_prose", "log", lambda: pick(
        f"{heldout.ts()} INFO set token_ttl 3600 for tenant {n()}",
        f"{heldout.ts()} INFO config set password_min_length 12",
        f"{heldout.ts()} DEBUG setenv LANG en_US.UTF-8",
        "Please set your token in the settings page, then retry.")),
]


def invoked() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_20)
    return heldout._records(SECRETS, BENIGN, 5, 5)


def main() -> None:
    secrets, benign_rows = invoked()
    heldout._write(HERE / "invoked_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "invoked_benign.jsonl.gz", benign_rows)
    print(f"invoked: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
