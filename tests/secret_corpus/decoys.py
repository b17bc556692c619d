"""A held-out set, benign-heavy: what stands where a secret would go and is NOT one, beside the same shapes holding one.

    python -m tests.secret_corpus.decoys   # rewrites decoys_*.jsonl.gz here

Written from the config systems' own documentation of how a secret is referenced, not from errscope's rules: a
reference or a placeholder where the value goes (Kubernetes ``secretKeyRef``/``secretRef``/``envFrom``, Helm
``{{ .Values.x }}`` and ``existingSecret``, GitHub Actions ``${{ secrets.X }}``, Terraform ``var.``/``data.`` and
``random_password.x.result``, Ansible ``{{ vault_x }}`` and ``lookup('hashi_vault'|'env', ..)``, Spring
``${DB_PASSWORD}`` and ``${X:changeme}``, dotenv names without values, External Secrets' ``remoteRef``, Docker's
``/run/secrets`` and ``*_FILE``); the NAME of a secret in a secret manager (AWS ``--secret-id``/``SecretId``/ARNs,
``gcloud secrets``, ``az keyvault secret``, Vault paths, ``chamber``/``doppler`` commands, ``secretName:``); digests
and ids under key-like names (a CI cache key with its SHA-256, ``jti``/``kid``/``token_id``, idempotency and
deduplication keys as UUIDs, ULIDs and KSUIDs, W3C trace ids, git SHAs under ``*_sha``); public material (SSH public
keys under ``public_key``/``authorized_key``, JWK public members ``n``/``e``/``x``/``y``, GnuPG's ``--list-keys``,
certificate thumbprints and HPKP pins); masked and truncated values (``****1234``, ``last4``, ``sk-...abcd``,
``ghp_****``, bullets); ciphertext meant to be committed (SOPS ``ENC[AES256_GCM,...]``); documentation prose and
settings about passwords (``password_min_length=12``, ``token_expiry_seconds=900``, policies in sentences).

Secrets: the same shapes with a real (fake) value: a literal where the reference would be (``stringData``, a Helm
``--set``, a Terraform or Ansible literal, a Spring default that is a real password, a dotenv value), a secret
manager's output (``SecretString``, ``vault kv get``, ``sops -d``), a value piped into ``docker secret create`` or
``gcloud secrets create``, GitHub Actions' ``::add-mask::`` with the value, a JWK's private ``d``, a PGP private key
block, an unmasked provider key, a password given in a sentence.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed). 20 secret formats x 4 and
25 benign categories x 8. ``tests/test_scrub_decoys.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
import string

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, pick, pw, rnd, uuid

_r = heldout._rng  # the helpers above draw from it: decoys() seeds it

HEX_UP = "0123456789ABCDEF"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LOWER = string.ascii_lowercase


def b64u(n: int) -> str:
    return base64.urlsafe_b64encode(bytes(_r.randrange(256) for _ in range(n))).decode().rstrip("=")


def b64(n: int) -> str:
    return base64.b64encode(bytes(_r.randrange(256) for _ in range(n))).decode()


def app() -> str:
    return pick("api", "billing", "orders", "payments", "search", "checkout", "auth")


def env() -> str:
    return pick("prod", "staging", "dev", "eu-prod", "us-prod")


def secret_name() -> str:
    return pick("db-creds", "db-password", "api-token", "stripe-secret-key", "redis-auth", "smtp-credentials", "pg-superuser")


def var_name() -> str:
    return pick("DB_PASSWORD", "API_TOKEN", "STRIPE_SECRET_KEY", "REDIS_PASSWORD", "SMTP_PASSWORD", "JWT_SECRET", "OPENAI_API_KEY")


def ulid() -> str:
    return "01J" + "".join(_r.choice(CROCKFORD) for _ in range(23))


def ksuid() -> str:
    return "2" + rnd(26, ALNUM)


def date() -> str:
    return f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d}"


def token() -> str:
    return pick(f"ghp_{rnd(36, ALNUM)}", f"sk-proj-{rnd(48, ALNUM)}", f"xoxb-{_r.randint(10**10, 10**11)}-{rnd(24, ALNUM)}",
                f"glpat-{rnd(20, ALNUM)}", rnd(40, ALNUM))


# --- benign: where a secret would go, and what stands there is none -----------------------------------------------

DECOYS_BENIGN = [
    ("k8s_secret_key_ref", "log", lambda: pick(
        f"env:\n  - name: {var_name()}\n    valueFrom:\n      secretKeyRef:\n        name: {secret_name()}\n        key: {pick('password', 'token', 'api-key')}",
        f"envFrom:\n  - secretRef:\n      name: {app()}-{secret_name()}",
        f"- name: POSTGRES_PASSWORD\n  valueFrom: {{secretKeyRef: {{name: {secret_name()}, key: password}}}}",
        f'{{"name": "{var_name()}", "valueFrom": {{"secretKeyRef": {{"name": "{secret_name()}", "key": "token"}}}}}}',
    )),
    ("helm_values_refs", "log", lambda: pick(
        "password: {{ .Values.postgresql.auth.password | quote }}",
        'token: {{ required "a token is required" .Values.api.token }}',
        f"auth:\n  existingSecret: {app()}-{secret_name()}\n  secretKeys:\n    adminPasswordKey: postgres-password",
        "apiKey: {{ .Values.secrets.apiKey | b64enc }}",
        "password: {{ include \"common.secrets.passwords.manage\" (dict \"key\" \"password\" \"context\" $) }}",
    )),
    ("gha_secret_expressions", "log", lambda: pick(
        f"        env:\n          {var_name()}: ${{{{ secrets.{var_name()} }}}}",
        "          password: ${{ secrets.REGISTRY_PASSWORD }}",
        "          token: ${{ github.token }}",
        "      - run: ./deploy.sh --token \"${{ secrets.DEPLOY_TOKEN }}\"",
        "          api_key: ${{ vars.PUBLIC_API_BASE }}",
    )),
    ("terraform_refs", "log", lambda: pick(
        "  password = var.db_password",
        "  master_password = random_password.db.result",
        f"  value = data.azurerm_key_vault_secret.{pick('db', 'api')}.value",
        "  secret_data = google_secret_manager_secret_version.api_key.secret_data",
        "  password = sensitive(var.admin_password)",
        '  api_token = data.vault_generic_secret.app.data["token"]',
    )),
    ("ansible_refs", "log", lambda: pick(
        'ansible_become_password: "{{ vault_become_password }}"',
        "db_password: \"{{ lookup('hashi_vault', 'secret=secret/data/" + env() + "/db:password') }}\"",
        "api_token: \"{{ lookup('env', '" + var_name() + "') }}\"",
        "password: \"{{ lookup('community.general.onepassword', 'Prod DB', field='password') }}\"",
        "mysql_root_password: \"{{ mysql_root_password_vault }}\"",
    )),
    ("spring_placeholders", "log", lambda: pick(
        "spring.datasource.password=${DB_PASSWORD}",
        "spring.datasource.password=${DB_PASSWORD:changeme}",
        "  password: ${SPRING_DATASOURCE_PASSWORD:}",
        "jwt.secret=${JWT_SECRET:?JWT_SECRET must be set}",
        "spring.mail.password=${vcap.services.smtp.credentials.password}",
    )),
    ("dotenv_without_values", "log", lambda: pick(
        f"{var_name()}=",
        f"# copy to .env and fill in\n{var_name()}=\n{var_name()}=\nPORT=8080",
        f'export {var_name()}=""',
        f"{var_name()}=  # set in 1Password",
        f"{var_name()}=<your-{pick('password', 'token', 'api-key')}>",
    )),
    ("secret_manager_names", "log", lambda: pick(
        f"aws secretsmanager get-secret-value --secret-id {env()}/{app()}/{secret_name()}",
        f'{{"SecretId": "arn:aws:secretsmanager:eu-west-1:{_r.randint(10**11, 10**12 - 1)}:secret:{env()}/{secret_name()}-{rnd(6, ALNUM)}"}}',
        f"gcloud secrets versions access latest --secret={secret_name()} --project={app()}-{env()}",
        f"az keyvault secret show --vault-name kv-{env()} --name {secret_name()} --query id",
        f"chamber exec {app()}-{env()} -- ./server",
        f"doppler run --project {app()} --config prd -- npm start",
    )),
    ("vault_paths", "log", lambda: pick(
        f"vault kv get -field=password secret/{env()}/{app()}/db",
        f'secret_path: "secret/data/{env()}/{app()}"',
        f"VAULT_SECRET_PATH=kv/{app()}/{env()}/{secret_name()}",
        f"2025-11-04T10:{_r.randint(10, 59)}:00Z [INFO]  secrets: read path=secret/data/{app()} version={_r.randint(1, 40)}",
    )),
    ("external_secrets", "log", lambda: pick(
        f"  data:\n    - secretKey: password\n      remoteRef:\n        key: {env()}/{app()}/db\n        property: password",
        "  secretStoreRef:\n    name: vault-backend\n    kind: ClusterSecretStore",
        f"  target:\n    name: {secret_name()}\n    creationPolicy: Owner",
    )),
    ("docker_secret_files", "log", lambda: pick(
        f"docker secret create {pick('db_password', 'api_token')} ./secrets/{pick('db_password', 'api_token')}.txt",
        "POSTGRES_PASSWORD_FILE=/run/secrets/db_password",
        "    secrets:\n      - db_password\n      - api_token",
        "  password_file: /run/secrets/postgres-password",
    )),
    ("secret_name_fields", "log", lambda: pick(
        f"secretName: tls-{app()}-{env()}",
        f"secret_name: {secret_name()}",
        f'"SecretName": "{env()}/{secret_name()}"',
        f"token_secret_ref: {app()}-{secret_name()}",
        f"password_secret_key: {pick('password', 'postgres-password', 'admin-password')}",
    )),
    ("cache_keys_with_digests", "log", lambda: pick(
        f"Cache restored from key: Linux-pip-{rnd(64, HEX)}",
        f"Cache saved with key: node-modules-{rnd(64, HEX)}",
        "  key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}",
        f"cache key: gradle-{rnd(64, HEX)}",
    )),
    ("token_and_key_ids", "log", lambda: pick(
        f'{{"jti": "{uuid()}", "kid": "{rnd(16, HEX)}", "token_type": "Bearer"}}',
        f"token_id={uuid()} revoked=true",
        f'"keyId": "{uuid()}"',
        f"api_key_id: {uuid()}",
        f"KeyId=arn:aws:kms:eu-west-1:{_r.randint(10**11, 10**12 - 1)}:key/{uuid()}",
    )),
    ("idempotency_and_dedup_keys", "log", lambda: pick(
        f"Idempotency-Key: {uuid()}",
        f"idempotency_key={ulid()}",
        f'"dedup_key": "{ksuid()}"',
        f"partition_key={ulid()} sort_key={date()}#{_r.randint(1, 999)}",
    )),
    ("trace_ids_under_keys", "log", lambda: pick(
        f"traceparent: 00-{rnd(32, HEX)}-{rnd(16, HEX)}-01",
        f"trace_id={rnd(32, HEX)} span_id={rnd(16, HEX)} level=info",
        f"X-Amzn-Trace-Id: Root=1-{rnd(8, HEX)}-{rnd(24, HEX)}",
        f'"request_id": "{uuid()}", "session_id": "{uuid()}"',
    )),
    ("git_shas_under_keys", "log", lambda: pick(
        f'"head_sha": "{rnd(40, HEX)}"',
        f"GITHUB_SHA={rnd(40, HEX)}",
        f"  rev: {rnd(40, HEX)}",
        f"deployed commit_sha={rnd(40, HEX)} by {pick('ci', 'argo')}",
    )),
    ("public_keys_under_keys", "log", lambda: pick(
        f'  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} deploy@ci"',
        f"authorized_key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rnd(200, B64)}= ops",
        f"ssh_public_key: ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{rnd(87, B64)}=",
        f'"publicKey": "{b64(32)}"',
    )),
    ("jwk_public_members", "log", lambda: pick(
        json.dumps({"kty": "RSA", "kid": rnd(16, HEX), "use": "sig", "alg": "RS256", "n": b64u(256), "e": "AQAB"}),
        json.dumps({"kty": "EC", "crv": "P-256", "kid": rnd(8, HEX), "x": b64u(32), "y": b64u(32)}),
        json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": b64u(32), "kid": ulid()}]}),
    )),
    ("pgp_public_listing", "log", lambda: pick(
        f"pub   rsa4096 {date()} [SC]\n      {rnd(40, HEX_UP)}\nuid           [ultimate] Release Signing Key (2025)",
        f"gpg: key {rnd(16, HEX_UP)}: public key \"CI Bot\" imported",
        f"[user]\n\tsigningkey = {rnd(16, HEX_UP)}",
        f"Primary key fingerprint: {' '.join(rnd(4, HEX_UP) for _ in range(10))}",
    )),
    ("certificate_thumbprints", "log", lambda: pick(
        f'"thumbprint": "{rnd(40, HEX_UP)}"',
        f"sha256 Fingerprint={':'.join(rnd(2, HEX_UP) for _ in range(32))}",
        f'Public-Key-Pins: pin-sha256="{b64(32)}"; max-age=5184000',
        f"tls_cert_sha256: {rnd(64, HEX)}",
    )),
    ("masked_and_truncated", "log", lambda: pick(
        f"card ****{_r.randint(1000, 9999)} declined",
        f'{{"brand": "visa", "last4": "{_r.randint(1000, 9999)}", "exp_month": {_r.randint(1, 12)}}}',
        f"api_key: sk-...{rnd(4, ALNUM)}",
        f"token: ghp_{'*' * 32}{rnd(4, ALNUM)}",
        "password: ••••••••",
        f"key sk-proj-…{rnd(4, HEX)} was revoked",
        f"AWS_SECRET_ACCESS_KEY=****************{rnd(4, ALNUM)}",
    )),
    ("sops_ciphertext", "log", lambda: pick(
        f"password: ENC[AES256_GCM,data:{b64(18)},iv:{b64(32)},tag:{b64(16)},type:str]",
        f'"api_token": "ENC[AES256_GCM,data:{b64(30)},iv:{b64(32)},tag:{b64(16)},type:str]"',
    )),
    ("password_settings", "log", lambda: pick(
        f"password_min_length={_r.randint(8, 16)} password_require_digit=true",
        f"token_expiry_seconds={pick('900', '3600', '86400')}",
        f"secret_rotation_days={_r.randint(7, 90)}",
        "api_key_header=X-API-Key",
        f"max_tokens={pick('1024', '4096', '8192')} token_count={_r.randint(10, 9000)}",
        "password_policy=strict password_hash_algorithm=argon2id",
    )),
    ("password_docs_prose", "log", lambda: pick(
        f"Passwords must be at least {_r.randint(10, 16)} characters long and contain a digit.",
        "Set the password with --password-stdin so it never lands in your shell history.",
        f"The API key is read from the {var_name()} environment variable at startup.",
        "Token: see the team vault entry \"Prod API\".",
        "Secret: rotated automatically every 30 days",
        "If you forget your password, use the reset link on the sign-in page.",
    )),
]


# --- secrets: the same shapes holding a value ------------------------------------------------------------------------

def _s(secret: str, text: str) -> tuple[str, str]:
    return secret, text


def _k8s_string_data() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"stringData:\n  password: {v}", f"apiVersion: v1\nkind: Secret\nstringData:\n  {pick('password', 'db-password')}: \"{v}\""))


def _helm_literal() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"helm upgrade {app()} ./chart --set postgresql.auth.password={v}", f"postgresql:\n  auth:\n    password: {v}"))


def _gha_literal() -> tuple[str, str]:
    v = token()
    return _s(v, pick(f"        env:\n          API_TOKEN: {v}", f"          password: {v}"))


def _gha_add_mask() -> tuple[str, str]:
    v = token()
    return _s(v, pick(f'echo "::add-mask::{v}"', f"::add-mask::{v}"))


def _terraform_literal() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f'  password = "{v}"', f'  master_password = "{v}"', f'  admin_password = "{v}"'))


def _ansible_literal() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"ansible_become_password: {v}", f'db_password: "{v}"', f"mysql_root_password: '{v}'"))


def _spring_default() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"spring.datasource.password=${{DB_PASSWORD:{v}}}", f"  password: ${{SPRING_DATASOURCE_PASSWORD:{v}}}"))


def _dotenv_value() -> tuple[str, str]:
    v = pick(pw(), token())
    return _s(v, pick(f"{var_name()}={v}", f'export {var_name()}="{v}"', f"# prod\n{var_name()}={v}\nPORT=8080"))


def _secrets_manager_output() -> tuple[str, str]:
    v = pw()
    inner = json.dumps({"username": "app", "password": v})
    return _s(v, pick(json.dumps({"Name": f"{env()}/{secret_name()}", "SecretString": inner, "VersionId": uuid()}),
                      f"aws secretsmanager put-secret-value --secret-id {env()}/db --secret-string '{v}'"))


def _gcloud_create() -> tuple[str, str]:
    v = pw()
    return _s(v, f"echo -n '{v}' | gcloud secrets create {secret_name()} --data-file=-")


def _docker_secret_pipe() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"printf '{v}' | docker secret create db_password -", f"echo \"{v}\" | docker secret create api_token -"))


def _vault_kv_get() -> tuple[str, str]:
    v = pw()
    return _s(v, f"====== Data ======\nKey         Value\n---         -----\npassword    {v}\nusername    app")


def _sops_decrypted() -> tuple[str, str]:
    v = pw()
    return _s(v, f"$ sops -d secrets.{env()}.yaml\ndb:\n  password: {v}\n  user: app")


def _k8s_secret_data() -> tuple[str, str]:
    v = pw()
    enc = base64.b64encode(v.encode()).decode()
    return _s(enc, f"kind: Secret\nmetadata:\n  name: {secret_name()}\ndata:\n  password: {enc}")


def _jwk_private() -> tuple[str, str]:
    d = b64u(32)
    return _s(d, json.dumps({"kty": "EC", "crv": "P-256", "x": b64u(32), "y": b64u(32), "d": d}))


def _pgp_private_block() -> tuple[str, str]:
    body = b64(180)
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return _s(lines[1], "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGVh" + "\n".join(lines) + "\n=" + rnd(4, B64) + "\n-----END PGP PRIVATE KEY BLOCK-----")


def _unmasked_key() -> tuple[str, str]:
    v = pick(f"sk-proj-{rnd(48, ALNUM)}", f"ghp_{rnd(36, ALNUM)}", f"sk_live_{rnd(24, ALNUM)}")
    return _s(v, pick(f"api_key: {v}", f"Authorization: Bearer {v}", f"key {v} was revoked"))


def _password_in_sentence() -> tuple[str, str]:
    v = pw()
    return _s(v, pick(f"The password for the {env()} database is {v} until Friday.", f"Secret: {v}", f"Token: {v}"))


def _session_token_random() -> tuple[str, str]:
    v = rnd(40, ALNUM)
    return _s(v, pick(f'{{"session_token": "{v}"}}', f"session_token={v} user_id={_r.randint(1, 9999)}"))


def _idempotent_looking_secret() -> tuple[str, str]:
    v = rnd(32, B64URL)
    return _s(v, pick(f"client_secret: {v}", f'"webhook_secret": "{v}"'))


DECOYS_SECRETS = [
    ("k8s_string_data", "log", _k8s_string_data),
    ("k8s_secret_data_base64", "log", _k8s_secret_data),
    ("helm_literal", "log", _helm_literal),
    ("gha_literal", "log", _gha_literal),
    ("gha_add_mask", "log", _gha_add_mask),
    ("terraform_literal", "log", _terraform_literal),
    ("ansible_literal", "log", _ansible_literal),
    ("spring_default_value", "log", _spring_default),
    ("dotenv_value", "log", _dotenv_value),
    ("secrets_manager_output", "log", _secrets_manager_output),
    ("gcloud_secret_create", "log", _gcloud_create),
    ("docker_secret_pipe", "log", _docker_secret_pipe),
    ("vault_kv_get", "log", _vault_kv_get),
    ("sops_decrypted", "log", _sops_decrypted),
    ("jwk_private_member", "log", _jwk_private),
    ("pgp_private_block", "log", _pgp_private_block),
    ("unmasked_provider_key", "log", _unmasked_key),
    ("password_in_sentence", "log", _password_in_sentence),
    ("session_token_random", "log", _session_token_random),
    ("client_secret_random", "log", _idempotent_looking_secret),
]


def decoys() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_21)
    return heldout._records(DECOYS_SECRETS, DECOYS_BENIGN, 4, 8)


def main() -> None:
    secrets, benign_rows = decoys()
    heldout._write(HERE / "decoys_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "decoys_benign.jsonl.gz", benign_rows)
    print(f"decoys: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
