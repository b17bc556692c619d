"""A thirty-second held-out set: audit trails and access logs that record a request's parameters, headers or command line.

    python -m tests.secret_corpus.audited   # rewrites audited_*.jsonl.gz here

What an on-call engineer pastes into an MCP tool ("why did this call fail? here is the audit event"), or what a
tool's error quotes: AWS CloudTrail events (``requestParameters``/``responseElements``), GCP audit logs
(``protoPayload.request``/``response``), Azure activity logs (``requestbody`` as escaped JSON), Kubernetes API audit
events (``requestObject`` of a Secret or a ConfigMap), Linux auditd ``type=EXECVE``/``PROCTITLE`` records (arguments
hex-encoded when they hold a space, a quote or a control character), sudo and journald lines, bash history with
``HISTTIMEFORMAT`` or ``#<epoch>`` lines, nginx/Apache combined access logs with a token in the query or the referer,
Envoy/Istio access logs with headers, Kong/Traefik/HAProxy logs, Keycloak/Okta/Auth0 event logs, database audit logs
(pgaudit ``AUDIT: SESSION,..``, MySQL/MariaDB audit plugins), Git server audit logs and Vault audit entries written
with ``log_raw`` or ``hmac_accessor=false``. Written from the products' documented record formats before reading the
rules.

Benign: the same records with nothing secret: request ids, ARNs, principal ids (``AIDA..``), resource names of secrets, Vault's ``hmac-sha256:`` values
(HMACed with the audit device's salt: benign by design), ``HIDDEN_DUE_TO_SECURITY_REASONS``, ``[REDACTED]``,
MySQL's ``<secret>`` rewrite, ``<not logged>``, auditd's hex of ordinary arguments, commit SHAs, session and trace ids. No AWS access key id stands alone in a benign line: earlier sets (``bare``,
``quoted``) score a key id alone as a secret and the scrubber masks it (the first draft had two; see the README).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``). 17 secret formats x 8 and 15 benign categories x 5.
``tests/test_scrub_audited.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: audited() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def opaque() -> str:
    return pick(
        "FAKE" + rnd(36), rnd(20) + "FAKE" + rnd(12), "sk_live_FAKE" + rnd(44), "ghp_FAKE" + rnd(32),
        "glpat-FAKE" + rnd(16, B64URL), "FAKE" + hx(36), "xoxb-" + str(_r.randint(10**10, 10**11)) + "-FAKE" + rnd(20),
    )


def secret() -> str:
    """Half human passwords marked fake, half generated tokens."""
    return fpw() if _r.random() < 0.5 else opaque()


def akid(prefix: str = "AKIA") -> str:
    return prefix + "FAKE" + rnd(12, UPPER_ALNUM)


def aws_secret() -> str:
    return "FAKE" + rnd(36, ALNUM + "/+")


def session_token() -> str:
    return "IQoJb3JpZ2luX2VjEFAKE" + rnd(200, B64)


def b64v(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def vault_token() -> str:
    return "hvs.CAESIFAKE" + rnd(80, B64URL)


def storage_key() -> str:
    return base64.b64encode(b"FAKE" + _r.randbytes(60)).decode()


def epoch() -> int:
    return _r.randint(1733000000, 1764000000)


def ip() -> str:
    return f"{pick('10.0', '172.16', '192.168')}.{_r.randint(0, 9)}.{_r.randint(2, 250)}"


def acct() -> str:
    return str(_r.randint(10**11, 10**12 - 1))


def who() -> str:
    return pick("deploy", "alice", "ci-runner", "svc_orders", "ops", "root", "bob")


def clf_time() -> str:
    return f"{_r.randint(1, 28):02d}/Dec/2025:{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d} +0000"


def iso() -> str:
    return f"2025-12-{_r.randint(1, 28):02d}T{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}Z"


def hexarg(text: str) -> str:
    """auditd's encoding of an argument holding a space, a quote or a control character: uppercase hex of its bytes."""
    return text.encode().hex().upper()


def js(obj: object) -> str:
    return json.dumps(obj)


def _cloudtrail(s: str) -> str:
    head = f'{{"eventVersion":"1.09","userIdentity":{{"type":"IAMUser","arn":"arn:aws:iam::{acct()}:user/{who()}","accessKeyId":"{akid()}"}},"eventTime":"{iso()}",'
    return head + pick(
        f'"eventSource":"iam.amazonaws.com","eventName":"CreateLoginProfile","requestParameters":{{"userName":"{who()}","password":"{s}","passwordResetRequired":false}}',
        f'"eventSource":"lambda.amazonaws.com","eventName":"UpdateFunctionConfiguration20150331v2","requestParameters":{{"functionName":"orders-api","environment":{{"variables":{{"DB_PASSWORD":"{s}","LOG_LEVEL":"info"}}}}}}',
        f'"eventSource":"secretsmanager.amazonaws.com","eventName":"PutSecretValue","requestParameters":{{"secretId":"prod/db","secretString":"{s}"}}',
        f'"eventSource":"rds.amazonaws.com","eventName":"ModifyDBInstance","requestParameters":{{"dBInstanceIdentifier":"shop-prod","masterUserPassword":"{s}","applyImmediately":true}}',
    ) + "}"


def _sts(s: str) -> str:
    return (f'"eventSource":"sts.amazonaws.com","eventName":"AssumeRole","responseElements":{{"credentials":{{"accessKeyId":"{akid("ASIA")}",'
            f'"secretAccessKey":"{s}","sessionToken":"{session_token()}","expiration":"Dec 4, 2025, 11:11:12 AM"}}}}')


# --- secret formats: each a product's audit or access record, 8 instances ------------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("cloudtrail_request_parameters", "json", one(secret,
        _cloudtrail, _cloudtrail,
        lambda s: f'"requestParameters": {{\n    "name": "/prod/orders/api-key",\n    "type": "String",\n    "value": "{s}",\n    "overwrite": true\n  }},')),
    ("cloudtrail_response_credentials", "json", one(lambda: pick(aws_secret(), session_token()),
        lambda s: "{" + _sts(s) + "}",
        lambda s: f'"responseElements": {{\n    "accessKey": {{\n      "userName": "{who()}",\n      "accessKeyId": "{akid()}",\n      "status": "Active",\n      "secretAccessKey": "{s}"\n    }}\n  }}',
        lambda s: f'"responseElements":{{"credentials":{{"accessKeyId":"{akid("ASIA")}","sessionToken":"{s}","expiration":"{iso()}"}}}}')),
    ("gcp_audit_payload", "json", one(lambda: pick(fpw(), opaque(), b64v("FAKE-" + fpw()), b64v('{"type":"service_account","private_key_id":"' + hx(40) + '"}') + "FAKE" + rnd(40, B64)),
        lambda s: f'{{"protoPayload":{{"@type":"type.googleapis.com/google.cloud.audit.AuditLog","methodName":"cloudsql.users.update","request":{{"@type":"type.googleapis.com/google.cloud.sql.v1beta4.SqlUsersUpdateRequest","body":{{"name":"{who()}","password":"{s}"}},"project":"shop-prod"}}}}}}',
        lambda s: f'  protoPayload:\n    methodName: google.cloud.secretmanager.v1.SecretManagerService.AddSecretVersion\n    request:\n      parent: projects/shop-prod/secrets/stripe-key\n      payload:\n        data: {s}',
        lambda s: f'"methodName": "google.iam.admin.v1.CreateServiceAccountKey",\n    "response": {{\n      "@type": "type.googleapis.com/google.iam.admin.v1.ServiceAccountKey",\n      "privateKeyData": "{s}"\n    }}')),
    ("azure_activity_body", "json", one(lambda: pick(fpw(), storage_key(), opaque()),
        lambda s: f'"properties": {{"statusCode": "Created", "requestbody": "{{\\"location\\":\\"westeurope\\",\\"properties\\":{{\\"administratorLogin\\":\\"sqladmin\\",\\"administratorLoginPassword\\":\\"{s}\\",\\"version\\":\\"12.0\\"}}}}"}}',
        lambda s: f'"operationName": "Microsoft.Storage/storageAccounts/listKeys/action",\n"responseBody": "{{\\"keys\\":[{{\\"keyName\\":\\"key1\\",\\"value\\":\\"{s}\\",\\"permissions\\":\\"FULL\\"}}]}}"',
        lambda s: f'"operationName": {{"value": "Microsoft.Web/sites/config/write"}}, "properties": {{"requestbody": "{{\\"properties\\":{{\\"appSettings\\":[{{\\"name\\":\\"API_TOKEN\\",\\"value\\":\\"{s}\\"}}]}}}}"}}')),
    ("k8s_audit_request_object", "json", one(lambda: pick(fpw(), opaque(), b64v(fpw()), b64v(opaque())),
        lambda s: f'{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"{uuid()}","verb":"create","objectRef":{{"resource":"secrets","namespace":"prod","name":"db-creds"}},"requestObject":{{"kind":"Secret","apiVersion":"v1","metadata":{{"name":"db-creds"}},"type":"Opaque","data":{{"password":"{s}"}}}}}}',
        lambda s: f'"requestObject":{{"kind":"Secret","apiVersion":"v1","metadata":{{"name":"api","namespace":"shop"}},"stringData":{{"API_TOKEN":"{s}"}}}}',
        lambda s: f'"requestObject":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"orders-env"}},"data":{{"DATABASE_URL":"postgres://{who()}:{s}@db.internal:5432/orders","LOG_LEVEL":"info"}}}}',
        lambda s: f'"responseObject":{{"kind":"Secret","metadata":{{"name":"registry","annotations":{{"kubectl.kubernetes.io/last-applied-configuration":"{{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"Secret\\",\\"stringData\\":{{\\"token\\":\\"{s}\\"}}}}\\n"}}}}}}')),
    ("auditd_execve", "log", one(lambda: pick(fpw(), opaque()),
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=4 a0="mysql" a1="-uroot" a2="-p{s}" a3="shop"',
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=5 a0="curl" a1="-H" a2="Authorization: Bearer {s}" a3="-s" a4="https://api.example.com/v1/orders"',
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=3 a0="vault" a1="login" a2="{s}"',
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=4 a0="psql" a1="-h" a2="db.internal" a3="--password={s}"')),
    ("auditd_hex_arguments", "log", one(lambda: pick(
            hexarg("Authorization: Bearer " + opaque()), hexarg("-p" + fpw() + " x"), hexarg(f"PGPASSWORD={fpw()} psql")),
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=3 a0="curl" a1="-H" a2={s}',
        lambda s: f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=2 a0="sh" a1={s}',
        lambda s: f'type=PROCTITLE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): proctitle={s}')),
    ("sudo_journald", "log", one(lambda: pick(fpw(), opaque()),
        lambda s: f'Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]:   {who()} : TTY=pts/0 ; PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/mysql -u root -p{s}',
        lambda s: f'Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]:   {who()} : TTY=pts/1 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/env PGPASSWORD={s} /usr/bin/pg_dump -h db.internal shop',
        lambda s: f'Dec 04 10:11:12 web1 sudo[{_r.randint(100, 99999)}]: {who()} : PWD=/root ; USER=root ; COMMAND=/usr/local/bin/registry-login --username ci --password {s}',
        lambda s: f'Dec 04 10:11:12 web1 systemd[1]: Started backup.service - nightly backup (restic -r s3:https://s3.example.com/bk --password-command "echo {s}").',
        lambda s: f'__REALTIME_TIMESTAMP={epoch()}123456\n_COMM=sudo\nMESSAGE=   {who()} : TTY=pts/0 ; PWD=/opt ; USER=root ; COMMAND=/usr/bin/curl -u admin:{s} http://localhost:15672/api/queues')),
    ("bash_history", "shell", one(lambda: pick(fpw(), opaque(), aws_secret()),
        lambda s: f'#{epoch()}\nexport GITHUB_TOKEN={s}\n#{epoch()}\ngh repo list',
        lambda s: f'  {_r.randint(100, 2000)}  2025-12-04 10:11:12 mysql -uroot -p\'{s}\' shop',
        lambda s: f'  {_r.randint(100, 2000)}  2025-12-04 10:11:12 export AWS_SECRET_ACCESS_KEY={s}',
        lambda s: f'#{epoch()}\ndocker login -u ci -p {s} registry.example.com',
        lambda s: f'  {_r.randint(100, 2000)}  12/04/25 10:11:12 curl -H "X-Api-Key: {s}" https://api.example.com/v2/status')),
    ("access_log_query_referer", "log", one(lambda: pick(opaque(), "FAKE" + rnd(40, B64URL)),
        lambda s: f'{ip()} - - [{clf_time()}] "GET /api/v1/export?format=csv&access_token={s} HTTP/1.1" 200 5123 "-" "curl/8.5.0"',
        lambda s: f'{ip()} - - [{clf_time()}] "GET /dashboard HTTP/2.0" 200 812 "https://app.example.com/callback#access_token={s}&token_type=Bearer&expires_in=3600" "Mozilla/5.0 (X11; Linux x86_64)"',
        lambda s: f'{ip()} - - [{clf_time()}] "GET /v2/report.json?api_key={s}&from=2025-12-01 HTTP/1.1" 403 153 "-" "python-requests/2.32.3"',
        lambda s: f'{ip()} - {who()} [{clf_time()}] "POST /hooks/deploy?token={s} HTTP/1.1" 204 0 "-" "GitHub-Hookshot/5c1f2b3"',
        lambda s: f'{ip()} - - [{clf_time()}] "GET /reset?key={s}&user=17 HTTP/1.1" 302 0 "https://mail.example.com/" "Mozilla/5.0"')),
    ("envoy_istio_headers", "log", one(lambda: pick(opaque(), "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.FAKE" + rnd(39, B64URL)),
        lambda s: f'{{"start_time":"{iso()}","method":"GET","path":"/v1/orders","response_code":401,"x_request_id":"{uuid()}","authorization":"Bearer {s}","upstream_cluster":"outbound|8080||orders.prod.svc.cluster.local"}}',
        lambda s: f'[{iso()}] "POST /api/charge HTTP/1.1" 200 - via_upstream - "-" 512 31 28 27 "{ip()}" "okhttp/4.12.0" "{uuid()}" "payments:8080" "{ip()}:8080" x-api-key={s}',
        lambda s: f'{{"request_headers":{{"cookie":"sessionid={s}; csrftoken={rnd(32)}","user-agent":"Mozilla/5.0"}},"response_code":"302","authority":"shop.example.com"}}',
        lambda s: f'"req_headers": {{"x-auth-token": "{s}", "x-request-id": "{uuid()}"}}')),
    ("gateway_logs", "log", one(lambda: pick(opaque(), b64v("admin:" + fpw())),
        lambda s: f'{{"request":{{"method":"GET","uri":"/orders","headers":{{"host":"api.example.com","apikey":"{s}","accept":"*/*"}}}},"response":{{"status":401}},"route":{{"name":"orders"}}}}',
        lambda s: f'{{"ClientHost":"{ip()}","RequestMethod":"GET","RequestPath":"/admin","DownstreamStatus":200,"request_Authorization":"Basic {s}","request_User-Agent":"curl/8.5.0"}}',
        lambda s: f'Dec  4 10:11:12 lb1 haproxy[{_r.randint(100, 9999)}]: {ip()}:51234 [04/Dec/2025:10:11:12.123] fe_https~ be_api/api1 0/0/1/12/13 200 512 - - ---- 1/1/0/0/0 0/0 {{Bearer {s}|curl/8.5.0}} "GET /v1/me HTTP/1.1"',
        lambda s: f'{ip()} - - [{clf_time()}] "GET /api/items?apikey={s} HTTP/1.1" 200 91 "-" "Go-http-client/1.1" 42 "items@docker" "http://172.18.0.5:80" 3ms')),
    ("idp_event_logs", "log", one(lambda: pick(fpw(), opaque()),
        lambda s: f'type=ADMIN_EVENT, operationType=ACTION, realmId=shop, resourcePath=users/{uuid()}/reset-password, representation={{"type":"password","value":"{s}","temporary":false}}',
        lambda s: f'{{"eventType":"app.oauth2.token.grant","debugContext":{{"debugData":{{"requestUri":"/oauth2/v1/token","url":"/oauth2/v1/token?grant_type=client_credentials&client_id=0oa{rnd(17)}&client_secret={s}"}}}}}}',
        lambda s: f'{{"type":"feccft","description":"Unauthorized","details":{{"body":{{"grant_type":"client_credentials","client_id":"{rnd(32)}","client_secret":"{s}","audience":"https://api.example.com/"}}}}}}',
        lambda s: f'{{"type":"fp","description":"Wrong email or password.","details":{{"body":{{"username":"{who()}","password":"{s}","connection":"Username-Password-Authentication"}}}}}}')),
    ("pgaudit", "log", one(fpw,
        lambda s: f"2025-12-04 10:11:12.345 UTC [{_r.randint(100, 99999)}] LOG:  AUDIT: SESSION,1,1,ROLE,ALTER ROLE,,,ALTER ROLE {who()} WITH PASSWORD '{s}',<not logged>",
        lambda s: f"2025-12-04 10:11:12.345 UTC [{_r.randint(100, 99999)}] LOG:  AUDIT: SESSION,2,1,ROLE,CREATE ROLE,,,CREATE USER report WITH LOGIN ENCRYPTED PASSWORD '{s}' VALID UNTIL '2026-06-30',<not logged>",
        lambda s: f"LOG:  AUDIT: SESSION,4,1,DDL,CREATE USER MAPPING,,,\"CREATE USER MAPPING FOR app SERVER legacy OPTIONS (user 'etl', password '{s}')\",<not logged>",
        lambda s: f"LOG:  AUDIT: SESSION,5,1,FUNCTION,EXECUTE,FUNCTION,public.dblink_connect,\"SELECT dblink_connect('legacy', 'host=10.0.0.9 dbname=old user=etl password={s}')\",<not logged>")),
    ("mysql_audit", "json", one(fpw,
        lambda s: f'{{"timestamp":"2025-12-04 10:11:12","id":1,"class":"general","event":"status","connection_id":{_r.randint(10, 9999)},"account":{{"user":"root","host":"localhost"}},"general_data":{{"command":"Query","sql_command":"create_user","query":"CREATE USER \'{who()}\'@\'%\' IDENTIFIED BY \'{s}\'","status":0}}}}',
        lambda s: f"20251204 10:11:12,db1,root,localhost,{_r.randint(10, 999)},{_r.randint(10, 9999)},QUERY,mysql,'SET PASSWORD FOR \\'app\\'@\\'%\\' = PASSWORD(\\'{s}\\')',0",
        lambda s: f'<AUDIT_RECORD NAME="Query" RECORD="{_r.randint(10, 9999)}_2025-12-04T10:11:12" TIMESTAMP="2025-12-04T10:11:12Z" COMMAND_CLASS="alter_user" SQLTEXT="ALTER USER \'app\'@\'%\' IDENTIFIED BY \'{s}\'" USER="root[root] @ localhost []" STATUS="0"/>',
        lambda s: f'{{"class":"general","general_data":{{"command":"Query","query":"CHANGE REPLICATION SOURCE TO SOURCE_HOST=\'db1\', SOURCE_USER=\'repl\', SOURCE_PASSWORD=\'{s}\'"}}}}')),
    ("git_server_audit", "json", one(lambda: pick(opaque(), "ghs_FAKE" + rnd(32), fpw()),
        lambda s: f'{{"action":"hook.config_changed","actor":"{who()}","repo":"shop/orders","config":{{"url":"https://ci.example.com/hooks/github","content_type":"json","secret":"{s}"}}}}',
        lambda s: f'{{"severity":"info","time":"{iso()}","author_name":"{who()}","entity_type":"Project","target_details":"mirror https://oauth2:{s}@gitlab.example.com/shop/orders.git","custom_message":"Added push mirror"}}',
        lambda s: f'{iso()} router: completed GET /api/v1/repos/shop/orders/archive/main.zip?token={s} for {ip()}:51234, 200 OK in 12.3ms @ repo/repo.go:123(repo.Download)',
        lambda s: f'remote_url=https://x-access-token:{s}@github.com/shop/orders.git action=git.fetch')),
    ("vault_audit_raw", "json", one(lambda: pick(vault_token(), fpw(), opaque()),
        lambda s: f'{{"time":"{iso()}","type":"response","auth":{{"client_token":"{s}","accessor":"hmac-sha256:{hx(64)}","display_name":"approle","policies":["default","orders"]}},"request":{{"id":"{uuid()}","operation":"update","path":"auth/approle/login"}}}}',
        lambda s: f'{{"type":"request","request":{{"id":"{uuid()}","operation":"create","path":"secret/data/prod/db","data":{{"data":{{"password":"{s}","username":"app"}}}}}}}}',
        lambda s: f'{{"type":"response","response":{{"data":{{"access_key":"{akid()}","secret_key":"{s}","security_token":null}}}},"request":{{"path":"aws/creds/deploy"}}}}')),
]


BENIGN: list[tuple[str, str, object]] = [
    ("cloudtrail_ordinary", "json", lambda: pick(
        f'"userIdentity":{{"type":"IAMUser","principalId":"AIDA{rnd(17, UPPER_ALNUM)}","arn":"arn:aws:iam::{acct()}:user/{who()}","accountId":"{acct()}","userName":"{who()}"}}',
        f'"eventName":"GetObject","requestParameters":{{"bucketName":"shop-logs","key":"2025/12/04/app.log.gz","Host":"shop-logs.s3.eu-west-1.amazonaws.com"}},"responseElements":null,"requestID":"{rnd(16, UPPER_ALNUM)}"',
        f'"eventName":"GetSecretValue","requestParameters":{{"secretId":"arn:aws:secretsmanager:eu-west-1:{acct()}:secret:prod/db-{rnd(6)}"}},"responseElements":null',
        f'"eventName":"AssumeRole","responseElements":{{"credentials":{{"sessionToken":"HIDDEN_DUE_TO_SECURITY_REASONS","expiration":"Dec 4, 2025, 11:11:12 AM"}}}}',
        f'"eventName":"CreateLoginProfile","requestParameters":{{"userName":"{who()}","passwordResetRequired":true}},"responseElements":{{"loginProfile":{{"userName":"{who()}","createDate":"Dec 4, 2025, 10:11:12 AM"}}}}',
        '"eventName":"PutParameter","requestParameters":{"name":"/prod/orders/api-key","type":"SecureString","keyId":"alias/aws/ssm","overwrite":true},"responseElements":{"version":4,"tier":"Standard"}')),
    ("gcp_audit_ordinary", "json", lambda: pick(
        '"methodName":"google.cloud.secretmanager.v1.SecretManagerService.AccessSecretVersion","resourceName":"projects/shop-prod/secrets/db-password/versions/3"',
        '"request":{"@type":"type.googleapis.com/google.cloud.secretmanager.v1.AccessSecretVersionRequest","name":"projects/shop-prod/secrets/db-password/versions/latest"}',
        '"status":{"code":7,"message":"Permission \'secretmanager.versions.access\' denied for resource \'projects/shop-prod/secrets/api-token\'"}',
        f'"response":{{"@type":"type.googleapis.com/google.iam.admin.v1.ServiceAccountKey","name":"projects/shop-prod/serviceAccounts/{_r.randint(10**20, 10**21)}/keys/{hx(40)}","keyAlgorithm":"KEY_ALG_RSA_2048"}}',
        f'"insertId":"{rnd(12).lower()}","logName":"projects/shop-prod/logs/cloudaudit.googleapis.com%2Factivity","severity":"NOTICE"')),
    ("azure_activity_ordinary", "json", lambda: pick(
        f'"operationName": "Microsoft.KeyVault/vaults/secrets/write", "correlationId": "{uuid()}", "status": "Succeeded"',
        f'"resourceId": "/subscriptions/{uuid()}/resourceGroups/shop-rg/providers/Microsoft.Sql/servers/shop-sql"',
        '"properties": {"statusCode": "OK", "requestbody": "{\\"properties\\":{\\"administratorLogin\\":\\"sqladmin\\",\\"version\\":\\"12.0\\"}}"}',
        f'"claims": {{"appid": "{uuid()}", "http://schemas.microsoft.com/identity/claims/objectidentifier": "{uuid()}"}}',
        '"operationName": "Microsoft.Storage/storageAccounts/listKeys/action", "status": {"value": "Succeeded"}, "subStatus": {"value": ""}')),
    ("k8s_audit_ordinary", "json", lambda: pick(
        f'{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"{uuid()}","verb":"get","objectRef":{{"resource":"secrets","namespace":"prod","name":"db-creds"}},"responseStatus":{{"code":200}}}}',
        '"requestObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"orders-env"},"data":{"LOG_LEVEL":"info","DB_HOST":"db.internal","DB_PORT":"5432"}}',
        f'"user":{{"username":"system:serviceaccount:ci:deployer","uid":"{uuid()}","groups":["system:serviceaccounts","system:authenticated"]}}',
        '"requestObject":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db-creds","labels":{"app":"orders"}},"type":"Opaque"}',
        '"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \\"ci-deployer\\""}')),
    ("auditd_ordinary", "log", lambda: pick(
        f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=3 a0="ls" a1="-la" a2="/var/log"',
        f'type=SYSCALL msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): arch=c000003e syscall=59 success=yes exit=0 ppid=2231 pid=2240 auid=1000 uid=0 comm="sudo" exe="/usr/bin/sudo" key="privileged"',
        f'type=PROCTITLE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): proctitle={hexarg("python3")}002D6D00{hexarg("http.server")}',
        f'type=EXECVE msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): argc=2 a0="cat" a1={hexarg("/srv/my reports/q4.csv")}',
        f"type=USER_AUTH msg=audit({epoch()}.{_r.randint(100, 999)}:{_r.randint(100, 99999)}): pid=2231 uid=0 auid=1000 ses=3 msg='op=PAM:authentication grantors=pam_unix acct=\"{who()}\" exe=\"/usr/sbin/sshd\" hostname={ip()} addr={ip()} terminal=ssh res=success'")),
    ("sudo_ordinary", "log", lambda: pick(
        f"Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]:   {who()} : TTY=pts/0 ; PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/systemctl restart nginx",
        f"Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]: pam_unix(sudo:session): session opened for user root(uid=0) by {who()}(uid=1000)",
        f"Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]:   {who()} : 3 incorrect password attempts ; TTY=pts/1 ; PWD=/home/{who()} ; USER=root ; COMMAND=/usr/bin/passwd app",
        f"Dec  4 10:11:12 web1 sudo[{_r.randint(100, 99999)}]:   {who()} : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/kubectl get secret db-creds -n prod",
        "Dec 04 10:11:12 web1 systemd[1]: Started backup.service - nightly backup (restic -r s3:https://s3.example.com/bk --password-file /etc/restic/pass).")),
    ("bash_history_ordinary", "shell", lambda: pick(
        f"#{epoch()}\ngit pull --rebase\n#{epoch()}\nmake test",
        f"  {_r.randint(100, 2000)}  2025-12-04 10:11:12 kubectl get secret db-creds -o jsonpath='{{.data.password}}' | base64 -d",
        f"  {_r.randint(100, 2000)}  2025-12-04 10:11:12 export VAULT_ADDR=https://vault.internal:8200",
        f"#{epoch()}\nread -rs DB_PASSWORD && export DB_PASSWORD",
        f"  {_r.randint(100, 2000)}  2025-12-04 10:11:12 mysql -uroot -p shop")),
    ("access_log_ordinary", "log", lambda: pick(
        f'{ip()} - - [{clf_time()}] "GET /api/v1/orders?page=2&per_page=50 HTTP/1.1" 200 5123 "-" "curl/8.5.0"',
        f'{ip()} - - [{clf_time()}] "GET /login?next=%2Fdashboard HTTP/2.0" 200 812 "https://app.example.com/" "Mozilla/5.0 (X11; Linux x86_64)"',
        f'{ip()} - - [{clf_time()}] "POST /oauth/token HTTP/1.1" 200 431 "-" "python-requests/2.32.3"',
        f'{ip()} - - [{clf_time()}] "GET /reset?key=[FILTERED]&user=17 HTTP/1.1" 302 0 "-" "Mozilla/5.0"',
        f'{ip()} - {who()} [{clf_time()}] "GET /static/app.{hx(8)}.js HTTP/1.1" 304 0 "https://app.example.com/" "Mozilla/5.0"')),
    ("envoy_ordinary", "log", lambda: pick(
        f'{{"start_time":"{iso()}","method":"GET","path":"/healthz","response_code":200,"x_request_id":"{uuid()}","authorization":"-","upstream_cluster":"outbound|8080||orders.prod.svc.cluster.local"}}',
        f'[{iso()}] "GET /v1/orders HTTP/1.1" 503 UH no_healthy_upstream - "-" 0 19 0 - "{ip()}" "okhttp/4.12.0" "{uuid()}" "orders:8080" "-"',
        f'"req_headers": {{"traceparent": "00-{hx(32)}-{hx(16)}-01", "x-request-id": "{uuid()}"}}',
        '{"request_headers":{"user-agent":"Mozilla/5.0","accept":"text/html"},"response_code":"200","authority":"shop.example.com"}',
        f'"downstream_remote_address":"{ip()}:51234","response_flags":"-","connection_termination_details":null')),
    ("gateway_ordinary", "log", lambda: pick(
        f'{{"consumer":{{"username":"mobile-app","id":"{uuid()}"}},"authenticated_entity":{{"id":"{uuid()}"}},"route":{{"name":"orders"}}}}',
        f'{{"ClientHost":"{ip()}","RequestMethod":"GET","RequestPath":"/api/health","DownstreamStatus":200,"request_User-Agent":"kube-probe/1.30"}}',
        f'Dec  4 10:11:12 lb1 haproxy[{_r.randint(100, 9999)}]: {ip()}:51234 [04/Dec/2025:10:11:12.123] fe_https~ be_api/api1 0/0/1/12/13 200 512 - - ---- 1/1/0/0/0 0/0 {{-|curl/8.5.0}} "GET /v1/me HTTP/1.1"',
        '{"request":{"method":"GET","uri":"/orders","headers":{"host":"api.example.com","apikey":"[REDACTED]"}},"response":{"status":200}}',
        f'{ip()} - - [{clf_time()}] "GET /api/items?page=3 HTTP/1.1" 200 91 "-" "Go-http-client/1.1" 42 "items@docker" "http://172.18.0.5:80" 3ms')),
    ("idp_ordinary", "log", lambda: pick(
        f"type=LOGIN, realmId=shop, clientId=web, userId={uuid()}, ipAddress={ip()}, auth_method=openid-connect, code_id={uuid()}, username={who()}",
        f"type=LOGIN_ERROR, realmId=shop, clientId=web, userId=null, ipAddress={ip()}, error=invalid_user_credentials, auth_method=openid-connect, username={who()}",
        '{"eventType":"user.session.start","outcome":{"result":"FAILURE","reason":"INVALID_CREDENTIALS"},"transaction":{"type":"WEB","id":"' + rnd(27) + '"}}',
        '{"type":"fp","description":"Wrong email or password.","details":{"error":{"message":"Wrong email or password."}},"connection":"Username-Password-Authentication"}',
        f"type=ADMIN_EVENT, operationType=ACTION, realmId=shop, resourcePath=users/{uuid()}/reset-password, representation={{\"type\":\"password\",\"temporary\":true}}")),
    ("pgaudit_ordinary", "log", lambda: pick(
        f'2025-12-04 10:11:12.345 UTC [{_r.randint(100, 99999)}] LOG:  AUDIT: SESSION,3,1,READ,SELECT,TABLE,public.orders,"SELECT id, total FROM orders WHERE id = $1",<not logged>',
        f"2025-12-04 10:11:12.345 UTC [{_r.randint(100, 99999)}] LOG:  AUDIT: SESSION,1,1,ROLE,ALTER ROLE,,,ALTER ROLE {who()} VALID UNTIL '2026-01-01',<not logged>",
        "LOG:  AUDIT: SESSION,2,1,ROLE,ALTER ROLE,,,ALTER ROLE report PASSWORD NULL,<not logged>",
        "LOG:  AUDIT: SESSION,6,1,ROLE,GRANT,,,GRANT pg_read_all_data TO report,<not logged>",
        "FATAL:  password authentication failed for user \"report\"\nDETAIL:  Connection matched pg_hba.conf line 99: \"host all all 0.0.0.0/0 scram-sha-256\"")),
    ("mysql_audit_ordinary", "json", lambda: pick(
        '{"class":"general","general_data":{"command":"Query","sql_command":"select","query":"SELECT * FROM orders LIMIT 10","status":0}}',
        '{"class":"general","general_data":{"command":"Query","sql_command":"create_user","query":"CREATE USER \'app\'@\'%\' IDENTIFIED BY <secret>","status":0}}',
        '{"class":"connection","event":"connect","connection_data":{"connection_type":"ssl","status":1045,"db":"shop"},"login":{"user":"app","ip":"10.0.3.7"}}',
        "20251204 10:11:12,db1,app,10.0.3.7,12,0,FAILED_CONNECT,shop,,1045",
        '<AUDIT_RECORD NAME="Connect" RECORD="17_2025-12-04T10:11:12" TIMESTAMP="2025-12-04T10:11:12Z" CONNECTION_ID="12" STATUS="0" USER="app" PRIV_USER="app" DB="shop"/>')),
    ("git_audit_ordinary", "json", lambda: pick(
        f'{{"action":"repo.create","actor":"{who()}","repo":"shop/orders","visibility":"private","created_at":{epoch()}000}}',
        f'{{"action":"git.clone","actor":"{who()}","repository":"shop/orders","transport_protocol_name":"ssh","_document_id":"{rnd(22, B64URL)}"}}',
        '{"action":"hook.config_changed","repo":"shop/orders","config":{"url":"https://ci.example.com/hooks/github","content_type":"json","insecure_ssl":"0","secret":"********"}}',
        f'{{"action":"git.push","repo":"shop/orders","after":"{hx(40)}","before":"{hx(40)}","ref":"refs/heads/main"}}',
        'remote_url=https://github.com/shop/orders.git action=git.fetch')),
    ("vault_hmac", "json", lambda: pick(
        f'{{"type":"response","auth":{{"client_token":"hmac-sha256:{hx(64)}","accessor":"hmac-sha256:{hx(64)}","display_name":"approle","policies":["default"]}}}}',
        f'{{"type":"request","request":{{"id":"{uuid()}","operation":"create","path":"secret/data/prod/db","data":{{"data":{{"password":"hmac-sha256:{hx(64)}"}}}}}}}}',
        f'{{"type":"response","response":{{"data":{{"access_key":"hmac-sha256:{hx(64)}","secret_key":"hmac-sha256:{hx(64)}"}}}}}}',
        f'{{"time":"{iso()}","type":"request","request":{{"id":"{uuid()}","operation":"read","path":"sys/mounts","remote_address":"{ip()}"}}}}',
        '{"type":"response","error":"permission denied","request":{"path":"secret/data/prod/db","operation":"read"}}')),
]


def audited() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_32)
    return heldout._records(SECRETS, BENIGN, 8, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = audited()
    heldout._write(HERE / "audited_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "audited_benign.jsonl.gz", benign_rows)
    print(f"audited: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
