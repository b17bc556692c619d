"""A thirtieth held-out set: what clients print when asked to be verbose, to debug or to trace a failed call.

    python -m tests.secret_corpus.traced   # rewrites traced_*.jsonl.gz here

An MCP tool that failed often quotes what its client printed while it failed: the request as a verbose or trace mode
writes it, headers first. Every HTTP, cloud and RPC client has such a mode, and each writes the same few secrets
(an ``Authorization`` value, a cookie, an API-key header, a signed request's signature and session token, a form body
or a JSON body with credentials, a token endpoint's answer) in its own frame: a direction marker (``>``, ``=> Send
header:``, ``-->``, ``http-outgoing-0 >>``), a byte offset (``0045:``), a bytes repr with ``\\r\\n`` escapes, a Python
dict of bytes, an hpack field, a hex dump beside its text, a Go key=value field, a HAR name/value pair, a
websocket frame or an SSE ``data:`` line. Written from the tools' own output formats before reading the rules:
``curl -v`` and ``--trace-ascii``, httpie ``--verbose``, wget ``--debug``, git with ``GIT_TRACE_CURL`` and ``git
credential fill``, ``kubectl -v=8/9`` (round-tripper lines, the curl equivalent, response bodies), ``az --debug``,
``gcloud --log-http``, botocore's debug log (the prepared request, the canonical request, the signature) and
``aws --debug`` (its argv echo), ``TF_LOG=TRACE``, ``npm --loglevel silly``, ``pip -vvv``, ``docker --debug`` (the
``X-Registry-Auth`` header), ``helm --debug`` (user-supplied values, rendered manifests), OkHttp's
``HttpLoggingInterceptor``, Apache HttpClient's wire log, Spring's ``RestTemplate``, Go ``GODEBUG=http2debug=2``
and ``httputil.DumpRequestOut``, .NET ``HttpClient`` logging and ``HttpRequestMessage.ToString()``,
``http.client``'s ``debuglevel=1`` (``send: b'…'``), httpx/httpcore trace logging and header lists, gRPC core's
``GRPC_TRACE`` and Python metadata tuples, MCP SDK debug logs of JSON-RPC frames (``initialize`` with headers,
``params._meta``, server launch environments), SSE ``data:`` lines, websocket frame dumps and HAR excerpts.

Benign: the same outputs with nothing secret: request ids, ``x-amz-content-sha256`` and the string to sign, ETags
and digests, trace ids, CDN headers, TLS handshake lines, certificate fingerprints, HTTP/2 frame lines, redacted and
masked headers, placeholders, rate-limit headers, Kubernetes resource versions, git object ids, curl's info lines,
authentication challenges, cookies that authenticate nothing, and each tool's ordinary debug lines.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``). No benign line holds an e-mail address. 25 secret formats x 8 and
30 benign categories x 5. ``tests/test_scrub_traced.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the
others.
"""

from __future__ import annotations

import base64
import json

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: traced() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt() -> str:
    """A JWT whose signature holds FAKE."""
    head = _b64url(json.dumps({"alg": pick("RS256", "ES256", "HS256"), "typ": "JWT", "kid": hx(8)}).encode())
    body = _b64url(json.dumps({"sub": "fake-" + rnd(8, LOWER_ALNUM), "aud": "api", "exp": _r.randint(1764000000, 1799999999)}).encode())
    return f"{head}.{body}.{rnd(20, B64URL)}FAKE{rnd(19, B64URL)}"


def opaque() -> str:
    """An opaque token: random, sometimes with a provider's prefix."""
    return pick(
        "FAKE" + rnd(36), rnd(20) + "FAKE" + rnd(12), "ghp_FAKE" + rnd(32), "glpat-FAKE" + rnd(16), "sk-proj-FAKE" + rnd(44, B64URL),
        "xoxb-" + str(_r.randint(10**10, 10**11)) + "-FAKE" + rnd(20), "FAKE" + hx(36), "npm_FAKE" + rnd(32),
    )


def bearer() -> str:
    return jwt() if _r.random() < 0.4 else opaque()


def basic() -> str:
    user = pick("deploy", "ci", "svc-orders", "x-access-token", "admin", "build")
    return base64.b64encode(f"{user}:{fpw()}".encode()).decode()


def session() -> str:
    return pick("FAKE" + rnd(28), "s%3AFAKE" + rnd(28, B64URL) + "." + rnd(43, B64URL), "FAKE" + hx(28), rnd(12) + "FAKE" + rnd(20, B64URL))


def secret() -> str:
    """Half human passwords marked fake, half generated tokens."""
    return fpw() if _r.random() < 0.5 else opaque()


def akid() -> str:
    return pick("AKIA", "ASIA") + "FAKE" + rnd(12, UPPER_ALNUM)


def aws_secret() -> str:
    return "FAKE" + rnd(36, ALNUM + "/+")


def aws_session() -> str:
    return "IQoJb3JpZ2luX2VjEFAKE" + rnd(180, B64) + "=="


def sigv4() -> str:
    return hx(64)


def ident() -> str:
    return pick("deploy", "ci", "svc-orders", "app", "reporting", "build")


def date8() -> str:
    return f"2025{_r.randint(1, 12):02d}{_r.randint(1, 28):02d}"


def clock() -> str:
    return f"{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}.{_r.randint(0, 999999):06d}"


def klog() -> str:
    return f"I1204 {clock()}   {_r.randint(1000, 99999)}"


def iso() -> str:
    return f"2025-12-04T{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}.{_r.randint(0, 999):03d}Z"


def pyts() -> str:
    return f"2025-12-04 {_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d},{_r.randint(100, 999)}"


def host() -> str:
    return pick("api.example.com", "orders.internal.example.net", "registry.example.org", "auth.example.com", "10.96.0.1:443")


def sas_sig() -> str:
    raw = base64.b64encode(b"FAKE" + _r.randbytes(29)).decode()
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def storage_key() -> str:
    return "FAKE" + rnd(82, B64) + "=="


def hexdump(text: str) -> str:
    return " ".join(f"{ord(c):02x}" for c in text)


def akid_line(sig: str) -> str:
    return (f"AWS4-HMAC-SHA256 Credential={akid()}/{date8()}/{pick('us-east-1', 'eu-west-1')}/{pick('s3', 'sts', 'dynamodb')}/aws4_request, "
            f"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={sig}")


def registry_auth(password: str) -> str:
    doc = json.dumps({"username": ident(), "password": password, "serveraddress": "registry.example.org"})
    return base64.urlsafe_b64encode(doc.encode()).decode()


# --- secret formats: each a tool's verbose output, 8 instances -----------------------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("curl_verbose", "log", one(bearer,
        lambda s: f"> GET /v1/orders HTTP/2\n> Host: {host()}\n> User-Agent: curl/8.11.0\n> Accept: */*\n> Authorization: Bearer {s}\n>\n< HTTP/2 401",
        lambda s: f"> POST /graphql HTTP/1.1\r\n> Host: {host()}\r\n> X-Api-Key: {s}\r\n> Content-Type: application/json",
        lambda s: f"> Cookie: theme=dark; session={s}; lang=en",
        lambda s: f"< set-cookie: __Host-sid={s}; Path=/; Secure; HttpOnly; SameSite=Lax",
        lambda s: f"* [HTTP/2] [1] [authorization: Bearer {s}]")),
    ("curl_trace_ascii", "log", one(lambda: basic() if _r.random() < 0.4 else secret(),
        lambda s: f"=> Send header, 212 bytes (0xd4)\n0000: POST /oauth/token HTTP/1.1\n001c: Host: {host()}\n0038: Authorization: Basic {s}\n0075: Accept: */*",
        lambda s: f"=> Send data, 97 bytes (0x61)\n0000: grant_type=client_credentials&client_id={ident()}&client_secret={s}",
        lambda s: f"0000: grant_type=password&username={ident()}&password={s}&scope=openid",
        lambda s: f"<= Recv header, 91 bytes (0x5b)\n0000: set-cookie: connect.sid={s}; Path=/; HttpOnly")),
    ("httpie_verbose", "log", one(bearer,
        lambda s: f"GET /api/v4/projects HTTP/1.1\nAccept: */*\nAccept-Encoding: gzip, deflate\nConnection: keep-alive\nHost: gitlab.example.com\nPRIVATE-TOKEN: {s}\nUser-Agent: HTTPie/3.2.4",
        lambda s: f"POST /v1/charges HTTP/1.1\nAuthorization: Bearer {s}\nContent-Length: 41\nContent-Type: application/json",
        lambda s: f"GET /repos/acme/app HTTP/1.1\nAuthorization: token {s}\nHost: api.github.com",
        lambda s: f"POST /login HTTP/1.1\nContent-Type: application/json\n\n{{\n    \"password\": \"{s}\",\n    \"username\": \"{ident()}\"\n}}")),
    ("wget_debug", "log", one(lambda: basic() if _r.random() < 0.5 else fpw(),
        lambda s: f"---request begin---\nGET /artifacts/build-{_r.randint(100, 999)}.tar.gz HTTP/1.1\nUser-Agent: Wget/1.21.4\nAccept: */*\nAuthorization: Basic {s}\nHost: {host()}\nConnection: Keep-Alive\n\n---request end---",
        lambda s: f"Setting --http-password (httppassword) to {s}",
        lambda s: f"Setting --password (password) to {s}",
        lambda s: f"Stored cookie {host().split(':')[0]} -1 (ANY) / <session> <insecure> [expiry none] sessionid {s}")),
    ("git_trace_curl", "log", one(lambda: basic() if _r.random() < 0.4 else opaque(),
        lambda s: f"{clock()} http.c:845              => Send header: Authorization: Basic {s}",
        lambda s: f"{clock()} http.c:845              => Send header: Authorization: Bearer {s}",
        lambda s: f"$ git credential fill\nprotocol=https\nhost=github.com\nusername=x-access-token\npassword={s}",
        lambda s: f"{clock()} run-command.c:667       trace: run_command: git remote-https origin https://oauth2:{s}@gitlab.example.com/acme/app.git")),
    ("kubectl_verbose", "log", one(lambda: jwt() if _r.random() < 0.6 else base64.b64encode(fpw().encode()).decode(),
        lambda s: f"{klog()} round_trippers.go:466] curl -v -XGET  -H \"Accept: application/json, */*\" -H \"User-Agent: kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46\" -H \"Authorization: Bearer {s}\" 'https://10.96.0.1:443/api/v1/namespaces/default/pods?limit=500'",
        lambda s: f"{klog()} round_trippers.go:469] Request Headers:\n{klog()} round_trippers.go:473]     Accept: application/json, */*\n{klog()} round_trippers.go:473]     Authorization: Bearer {s}",
        lambda s: f"{klog()} request.go:1212] Response Body: {{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{{\"name\":\"db-creds\",\"namespace\":\"prod\",\"resourceVersion\":\"{_r.randint(10**5, 10**7)}\"}},\"data\":{{\"password\":\"{s}\"}},\"type\":\"Opaque\"}}",
        lambda s: f"{klog()} exec.go:302] exec plugin returned: {{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{{\"expirationTimestamp\":\"2025-12-04T11:00:00Z\",\"token\":\"{s}\"}}}}")),
    ("az_debug", "log", one(lambda: pick(jwt(), jwt(), sas_sig(), storage_key(), "FAKE" + rnd(3) + "~" + rnd(30, ALNUM + ".-_")),
        lambda s: f"DEBUG: cli.azure.cli.core.sdk.policies: Request headers:\nDEBUG: cli.azure.cli.core.sdk.policies:     'Accept': 'application/json'\nDEBUG: cli.azure.cli.core.sdk.policies:     'Authorization': 'Bearer {s}'",
        lambda s: f"DEBUG: cli.azure.cli.core.sdk.policies: Request URL: 'https://acct{_r.randint(1, 99)}.blob.core.windows.net/backups?restype=container&comp=list&sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00%3A00%3A00Z&sig={s}'",
        lambda s: f"DEBUG: cli.azure.cli.core.util: Response content: [{{\"keyName\": \"key1\", \"permissions\": \"FULL\", \"value\": \"{s}\"}}]",
        lambda s: f"DEBUG: msal.token_cache: event={{\"client_id\": \"{uuid()}\", \"data\": {{\"client_secret\": \"{s}\", \"scope\": [\"https://management.azure.com/.default\"]}}}}")),
    ("gcloud_log_http", "log", one(lambda: pick("ya29.a0FAKE" + rnd(120, B64URL), "1//0gFAKE" + rnd(90, B64URL), "GOCSPX-FAKE" + rnd(24, B64URL), jwt()),
        lambda s: f"=======================\n==== request start ====\nuri: https://compute.googleapis.com/compute/v1/projects/acme/zones?alt=json\nmethod: GET\n== headers start ==\nb'accept': b'application/json'\nb'authorization': b'Bearer {s}'\n== headers end ==",
        lambda s: f"== body start ==\ngrant_type=refresh_token&client_id=1{_r.randint(10**10, 10**11)}.apps.googleusercontent.com&client_secret=d-FAKE{rnd(20, B64URL)}&refresh_token={s}\n== body end ==",
        lambda s: f"---- response start ----\nstatus: 200\n-- body start --\n{{\n  \"access_token\": \"{s}\",\n  \"expires_in\": 3599,\n  \"token_type\": \"Bearer\"\n}}\n-- body end --",
        lambda s: f"client_secret={s}&grant_type=authorization_code&code=4%2F0AeanS0{rnd(20, B64URL)}")),
    ("botocore_debug", "log", one(lambda: pick(aws_session(), sigv4(), aws_secret()),
        lambda s: f"{pyts()} botocore.endpoint [DEBUG] Sending http request: <AWSPreparedRequest stream_output=False, method=POST, url=https://sts.amazonaws.com/, headers={{'Content-Type': b'application/x-www-form-urlencoded; charset=utf-8', 'User-Agent': b'Boto3/1.35.70', 'X-Amz-Date': b'{date8()}T101112Z', 'X-Amz-Security-Token': b'{s}', 'Content-Length': b'43'}}>",
        lambda s: f"{pyts()} botocore.endpoint [DEBUG] Sending http request: <AWSPreparedRequest stream_output=False, method=GET, url=https://acme-logs.s3.eu-west-1.amazonaws.com/?list-type=2, headers={{'Authorization': b'{akid_line(s)}'}}>",
        lambda s: f"{pyts()} botocore.auth [DEBUG] CanonicalRequest:\nGET\n/\nlist-type=2\nhost:acme-logs.s3.amazonaws.com\nx-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nx-amz-date:{date8()}T101112Z\nx-amz-security-token:{s}\n\nhost;x-amz-content-sha256;x-amz-date;x-amz-security-token",
        lambda s: f"{pyts()} botocore.auth [DEBUG] Signature:\n{s}",
        lambda s: f"{pyts()} botocore.parsers [DEBUG] Response body:\nb'{{\"Credentials\":{{\"AccessKeyId\":\"{akid()}\",\"Expiration\":1.7648E9,\"SecretAccessKey\":\"{s}\",\"SessionToken\":\"IQoJb3JpZ2lu\"}}}}'")),
    ("aws_cli_debug", "log", one(lambda: pick(aws_secret(), aws_secret(), base64.b64encode(b"AWS:" + json.dumps({"payload": "FAKE" + rnd(40)}).encode()).decode(), fpw()),
        lambda s: f"{pyts()} - MainThread - awscli.clidriver - DEBUG - Arguments entered to CLI: ['configure', 'set', 'aws_secret_access_key', '{s}', '--profile', 'ci']",
        lambda s: f"{pyts()} - MainThread - awscli.clidriver - DEBUG - Arguments entered to CLI: ['s3', 'cp', 'backup.tar', 's3://acme-backups/', '--sse-c', 'AES256', '--sse-c-key', '{s}']",
        lambda s: f"{pyts()} - MainThread - botocore.parsers - DEBUG - Response body:\nb'{{\"authorizationData\":[{{\"authorizationToken\":\"{s}\",\"expiresAt\":1.764E9,\"proxyEndpoint\":\"https://123456789012.dkr.ecr.eu-west-1.amazonaws.com\"}}]}}'",
        lambda s: f"{pyts()} - MainThread - awscli.clidriver - DEBUG - Arguments entered to CLI: ['rds', 'modify-db-instance', '--db-instance-identifier', 'orders', '--master-user-password', '{s}']")),
    ("terraform_trace", "log", one(lambda: pick(sigv4(), aws_session(), opaque(), fpw(), storage_key()),
        lambda s: f"{iso()} [DEBUG] provider.terraform-provider-aws_v5.80.0_x5: HTTP Request Sent: tf_provider_addr=registry.terraform.io/hashicorp/aws tf_rpc=ReadResource http.method=GET http.request.header.authorization=\"{akid_line(s)}\" http.request.header.x_amz_date={date8()}T101112Z",
        lambda s: f"{iso()} [DEBUG] provider.terraform-provider-aws_v5.80.0_x5: HTTP Request Sent: aws.region=eu-west-1 http.request.header.x_amz_security_token={s} http.user_agent=\"APN/1.0 HashiCorp/1.0 Terraform/1.10.0\"",
        lambda s: f"{iso()} [DEBUG] provider.terraform-provider-github_v6.4.0: 2025/12/04 10:11:12 [DEBUG] GitHub API Request Details:\n---[ REQUEST ]---------------------------------------\nGET /user HTTP/1.1\nHost: api.github.com\nAuthorization: Bearer {s}\nAccept: application/vnd.github.v3+json",
        lambda s: f"{iso()} [TRACE] Meta.Backend: merged backend config: {{\"access_key\": \"{s}\", \"container_name\": \"tfstate\", \"key\": \"prod.tfstate\", \"storage_account_name\": \"acmetf\"}}",
        lambda s: f"{iso()} [TRACE] provider.terraform-provider-postgresql: ConfigureProvider request: {{\"host\":\"db.internal\",\"port\":5432,\"username\":\"{ident()}\",\"password\":\"{s}\",\"sslmode\":\"require\"}}")),
    ("npm_silly", "log", one(lambda: pick("npm_FAKE" + rnd(32), "FAKE" + rnd(32), fpw(), base64.b64encode(f"{ident()}:{fpw()}".encode()).decode()),
        lambda s: f"npm verbose argv \"publish\" \"--//registry.npmjs.org/:_authToken={s}\"",
        lambda s: f"npm silly config:load:file:/home/ci/.npmrc //npm.pkg.github.com/:_authToken={s}",
        lambda s: f"npm silly fetch manifest @acme/ui@^4.2.0 headers: {{ 'npm-auth-type': 'web', authorization: 'Bearer {s}', 'user-agent': 'npm/10.9.0 node/v22.11.0 linux x64' }}",
        lambda s: f"npm error 403 403 Forbidden - GET https://{ident()}:{s}@npm.example.com/@acme%2fui",
        lambda s: f"npm verbose config set //npm.example.com/:_auth={s}")),
    ("pip_vvv", "log", one(lambda: pick("pypi-FAKE" + rnd(60, B64URL), fpw(), "glpat-FAKE" + rnd(16), "FAKE" + rnd(40)),
        lambda s: f"Looking in indexes: https://pypi.org/simple, https://__token__:{s}@pypi.example.com/simple",
        lambda s: f"Created temporary directory: /tmp/pip-build-tracker-{rnd(8, LOWER_ALNUM)}\n1 location(s) to search for versions of acme-client:\n* https://{ident()}:{s}@gitlab.example.com/api/v4/projects/42/packages/pypi/simple/acme-client/",
        lambda s: f"global.index-url='https://build:{s}@pkgs.example.org/simple'",
        lambda s: f"Fetching project page and analyzing links: https://pkgs.example.org/simple/acme/?token={s}")),
    ("docker_debug", "log", one(lambda: pick(registry_auth(fpw()), fpw(), "FAKE" + rnd(32), basic()),
        lambda s: f"DEBU[{iso()}] Calling POST /v1.47/images/create?fromImage=registry.example.org%2Facme%2Fapi&tag=1.4.2\nDEBU[{iso()}] X-Registry-Auth: {s}",
        lambda s: f"DEBU[0000] POST /v1.47/auth body: {{\"username\":\"{ident()}\",\"password\":\"{s}\",\"serveraddress\":\"registry.example.org\"}}",
        lambda s: f"DEBU[0001] GET /v2/acme/api/manifests/1.4.2 request headers: map[Accept:[application/vnd.oci.image.index.v1+json] Authorization:[Basic {s}] User-Agent:[docker/27.3.1]]",
        lambda s: f"DEBU[0002] container inspect: \"Env\": [\"PATH=/usr/local/bin:/usr/bin\", \"POSTGRES_PASSWORD={s}\", \"PGDATA=/var/lib/postgresql/data\"]")),
    ("helm_debug", "log", one(lambda: pick(fpw(), "FAKE" + rnd(32), base64.b64encode(fpw().encode()).decode()),
        lambda s: f"USER-SUPPLIED VALUES:\npostgresql:\n  auth:\n    database: orders\n    password: {s}\n    username: {ident()}",
        lambda s: f"MANIFEST:\n---\n# Source: api/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: api-secrets\ntype: Opaque\ndata:\n  api-key: {s}",
        lambda s: f"install.go:225: [debug] Original chart version: \"\"\nregistry_client.go:112: [debug] login to registry.example.org with username {ident()} password {s}",
        lambda s: f"COMPUTED VALUES:\nredis:\n  auth:\n    enabled: true\n    password: \"{s}\"\n  replicas: 3",
        lambda s: f"Error: INSTALLATION FAILED: template: api/templates/deploy.yaml:41:18: executing \"api/templates/deploy.yaml\" at <.Values.smtp.password>: value {s} is not a map")),
    ("jvm_http_logging", "log", one(lambda: pick(bearer(), basic(), session(), fpw()),
        lambda s: f"I/okhttp.OkHttpClient: --> POST https://{host()}/v1/token\nI/okhttp.OkHttpClient: Content-Type: application/json\nI/okhttp.OkHttpClient: Authorization: Bearer {s}\nI/okhttp.OkHttpClient: --> END POST (36-byte body)",
        lambda s: f"DEBUG org.apache.http.wire - http-outgoing-0 >> \"Authorization: Basic {s}[\\r][\\n]\"",
        lambda s: f"DEBUG org.apache.hc.client5.http.headers - http-outgoing-1 >> Cookie: JSESSIONID={s}",
        lambda s: f"DEBUG o.s.web.client.RestTemplate - Writing [{{grant_type=[client_credentials], client_id=[{ident()}], client_secret=[{s}]}}] as \"application/x-www-form-urlencoded\"",
        lambda s: f"DEBUG org.apache.http.wire - http-outgoing-2 >> \"{{\"username\":\"{ident()}\",\"password\":\"{s}\"}}\"")),
    ("go_http2debug", "log", one(lambda: pick(bearer(), session(), opaque()),
        lambda s: f"2025/12/04 10:11:12 http2: Transport encoding header \"authorization\" = \"Bearer {s}\"",
        lambda s: f"2025/12/04 10:11:12 http2: decoded hpack field header field \"set-cookie\" = \"session={s}; Path=/; HttpOnly; Secure\"",
        lambda s: f"2025/12/04 10:11:12 http2: Transport encoding header \"x-api-key\" = \"{s}\"",
        lambda s: f"2025/12/04 10:11:12 http2: Transport encoding header \"cookie\" = \"_oauth2_proxy={s}\"",
        lambda s: f"GET /v1/orders HTTP/1.1\r\nHost: {host()}\r\nUser-Agent: Go-http-client/1.1\r\nAuthorization: Bearer {s}\r\nAccept-Encoding: gzip\r\n\r\n")),
    ("dotnet_httpclient", "log", one(lambda: pick(bearer(), opaque(), fpw()),
        lambda s: f"trce: System.Net.Http.HttpClient.GitHub.ClientHandler[102]\n      Request Headers:\n      Authorization: Bearer {s}\n      User-Agent: Acme/1.0",
        lambda s: f"Method: GET, RequestUri: 'https://{host()}/v2/invoices', Version: 1.1, Content: <null>, Headers:\n{{\n  X-Api-Key: {s}\n  Accept: application/json\n}}",
        lambda s: f"dbug: Acme.Sync.TokenClient[0]\n      POST https://login.example.com/oauth2/token with body client_id={ident()}&client_secret={s}&grant_type=client_credentials",
        lambda s: f"trce: System.Net.Http.HttpClient.Default.LogicalHandler[102]\n      Request Headers:\n      Cookie: .AspNetCore.Session={s}")),
    ("http_client_send", "log", one(lambda: pick(bearer(), fpw(), session(), opaque()),
        lambda s: f"send: b'GET /v1/me HTTP/1.1\\r\\nHost: {host()}\\r\\nUser-Agent: python-requests/2.32.3\\r\\nAccept-Encoding: gzip, deflate\\r\\nAccept: */*\\r\\nConnection: keep-alive\\r\\nAuthorization: Bearer {s}\\r\\n\\r\\n'",
        lambda s: f"send: b'{{\"username\": \"{ident()}\", \"password\": \"{s}\"}}'",
        lambda s: f"send: b'grant_type=password&username={ident()}&password={s}&client_id=cli'",
        lambda s: f"reply: 'HTTP/1.1 200 OK\\r\\n'\nheader: Content-Type: application/json\nheader: Set-Cookie: sessionid={s}; Secure; HttpOnly; Path=/",
        lambda s: f"send: b'POST /v2/search HTTP/1.1\\r\\nHost: {host()}\\r\\nX-Api-Key: {s}\\r\\nContent-Length: 27\\r\\n\\r\\n'")),
    ("httpx_trace", "log", one(lambda: pick(bearer(), opaque()),
        lambda s: f"Request headers: Headers({{'host': '{host()}', 'accept': '*/*', 'x-api-key': '{s}', 'user-agent': 'python-httpx/0.28.1'}})",
        lambda s: f"DEBUG:httpx:HTTP Request: GET https://{host()}/v1/items?access_token={s} \"HTTP/1.1 401 Unauthorized\"",
        lambda s: f"DEBUG:httpcore.http11:send_request_headers.started request=<Request [b'GET']> headers=[(b'Host', b'{host()}'), (b'Authorization', b'Bearer {s}'), (b'Accept', b'*/*')]",
        lambda s: f"httpx.HTTPStatusError: Client error '403 Forbidden' for url 'https://{host()}/v1/search?q=refund&api_key={s}'")),
    ("grpc_trace", "log", one(lambda: pick(bearer(), opaque()),
        lambda s: f"{klog()} chttp2_transport.cc:1456] HTTP:1:HDR:CLI: authorization: {hexdump('Bearer ' + s[:12])} ... 'Bearer {s}'",
        lambda s: f"DEBUG:grpc._channel:call /acme.orders.v1.Orders/Get metadata=[('authorization', 'Bearer {s}'), ('x-goog-request-params', 'name=orders/42')]",
        lambda s: f"Request metadata to send:\nauthorization: Bearer {s}\nx-request-id: {uuid()}",
        lambda s: f"{klog()} hpack_parser.cc:852] HTTP:1:HDR:CLI: x-api-key: '{s}'")),
    ("mcp_jsonrpc_debug", "log", one(lambda: pick(bearer(), opaque(), fpw()),
        lambda s: f"DEBUG mcp.client.streamable_http: Sending client message: {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"acme-agent\",\"version\":\"1.3.0\"}}}}}} headers={{'Authorization': 'Bearer {s}', 'Accept': 'application/json, text/event-stream'}}",
        lambda s: f"[StreamableHTTPClientTransport] POST https://mcp.example.com/mcp headers: {{\"authorization\":\"Bearer {s}\",\"mcp-protocol-version\":\"2025-11-25\"}}",
        lambda s: f"DEBUG mcp.server.lowlevel.server: Received message: {{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"query_db\",\"arguments\":{{\"dsn\":\"postgresql://app:{s}@db.internal:5432/orders\"}},\"_meta\":{{\"progressToken\":7}}}}}}",
        lambda s: f"DEBUG mcp.client.stdio: Starting server: npx -y @modelcontextprotocol/server-github env={{'PATH': '/usr/bin', 'GITHUB_PERSONAL_ACCESS_TOKEN': '{s}'}}",
        lambda s: f"DEBUG mcp.shared.session: -> {{\"method\":\"tools/call\",\"params\":{{\"name\":\"send_mail\",\"arguments\":{{\"to\":\"ops\"}},\"_meta\":{{\"io.acme/apiKey\":\"{s}\",\"progressToken\":3}}}},\"jsonrpc\":\"2.0\",\"id\":12}}")),
    ("sse_frames", "log", one(lambda: pick(bearer(), "ek_FAKE" + rnd(32), opaque()),
        lambda s: f"event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{{\\\"access_token\\\":\\\"{s}\\\",\\\"token_type\\\":\\\"bearer\\\"}}\"}}],\"isError\":false}}}}",
        lambda s: f"data: {{\"type\":\"session.created\",\"session\":{{\"id\":\"sess_{rnd(16)}\",\"client_secret\":{{\"value\":\"{s}\",\"expires_at\":1764843072}}}}}}",
        lambda s: f"event: endpoint\ndata: /messages/?token={s}",
        lambda s: f"id: 17\nevent: credentials\ndata: {{\"apiKey\":\"{s}\",\"expiresIn\":3600}}")),
    ("websocket_frames", "log", one(lambda: pick(bearer(), opaque(), "FAKE" + rnd(59, B64URL)),
        lambda s: f"DEBUG:websockets.client:> TEXT '{{\"type\": \"auth\", \"access_token\": \"{s}\"}}' [{_r.randint(60, 400)} bytes]",
        lambda s: f"> TEXT '{{\"op\":2,\"d\":{{\"token\":\"{s}\",\"intents\":513,\"properties\":{{\"os\":\"linux\"}}}}}}' [140 bytes]",
        lambda s: f"↑ 42[\"authenticate\",{{\"token\":\"{s}\"}}]",
        lambda s: f"> GET /stream?apikey={s} HTTP/1.1\n> Upgrade: websocket\n> Sec-WebSocket-Version: 13",
        lambda s: f"[WS] sent: {{\"action\":\"auth\",\"params\":\"{s}\"}}")),
    ("har_excerpts", "log", one(lambda: pick(bearer(), session(), fpw()),
        lambda s: f"{{\"name\": \"Authorization\", \"value\": \"Bearer {s}\"}},",
        lambda s: f"\"cookies\": [{{\"name\": \"session\", \"value\": \"{s}\", \"path\": \"/\", \"httpOnly\": true, \"secure\": true}}]",
        lambda s: f"\"queryString\": [{{\"name\": \"api_key\", \"value\": \"{s}\"}}, {{\"name\": \"page\", \"value\": \"2\"}}]",
        lambda s: f"\"postData\": {{\"mimeType\": \"application/x-www-form-urlencoded\", \"text\": \"username={ident()}&password={s}\"}}")),
]


# --- benign categories: 5 instances each ----------------------------------------------------------------------------


def sha256() -> str:
    return hx(64)


def b64digest(n: int) -> str:
    return base64.b64encode(_r.randbytes(n)).decode()


def trace_id() -> str:
    return hx(32)


BENIGN: list[tuple[str, str, object]] = [
    ("request_ids", "log", lambda: pick(
        f"< x-request-id: {uuid()}", f"< x-amz-request-id: {rnd(16, UPPER_ALNUM)}", f"'x-ms-request-id': '{uuid()}'",
        f"< x-github-request-id: {hx(4).upper()}:{hx(5).upper()}:{hx(7).upper()}:{hx(7).upper()}:{hx(8).upper()}",
        f"< x-amz-id-2: {b64digest(54)}", f"< X-Amz-Cf-Id: {rnd(40, B64URL)}==")),
    ("amz_content_sha_and_string_to_sign", "log", lambda: pick(
        f"x-amz-content-sha256:{sha256()}",
        f"botocore.auth [DEBUG] StringToSign:\nAWS4-HMAC-SHA256\n{date8()}T101112Z\n{date8()}/eu-west-1/s3/aws4_request\n{sha256()}",
        f"> x-amz-content-sha256: UNSIGNED-PAYLOAD", f"'X-Amz-Date': b'{date8()}T101112Z', 'x-amz-content-sha256': b'{sha256()}'",
        f"http.request.header.x_amz_content_sha256={sha256()}")),
    ("etags_and_digests", "log", lambda: pick(
        f"< etag: \"{hx(32)}\"", f"< ETag: W/\"{hx(8)}-{rnd(27, B64URL)}\"", f"< content-md5: {b64digest(16)}",
        f"< x-goog-hash: crc32c={b64digest(4)},md5={b64digest(16)}", f"> Digest: sha-256={b64digest(32)}",
        f"npm silly tarball no local data for @acme/ui@4.2.1. Extracting by manifest. integrity sha512-{b64digest(64)}")),
    ("trace_ids", "log", lambda: pick(
        f"> traceparent: 00-{trace_id()}-{hx(16)}-01", f"< x-cloud-trace-context: {trace_id()}/{_r.randint(10**17, 10**18)};o=1",
        f"X-B3-TraceId: {hx(16)}", f"uber-trace-id: {hx(16)}:{hx(16)}:0:1", f"\"_meta\":{{\"traceparent\":\"00-{trace_id()}-{hx(16)}-01\"}}")),
    ("cdn_headers", "log", lambda: pick(
        f"< cf-ray: {hx(16)}-{pick('FRA', 'AMS', 'IAD')}", f"< x-served-by: cache-fra-{rnd(4, UPPER_ALNUM)}{_r.randint(1000, 9999)}-FRA",
        f"< x-cache: Miss from cloudfront", f"< via: 1.1 {hx(32)}.cloudfront.net (CloudFront)", f"< age: {_r.randint(0, 9000)}",
        f"< x-amz-cf-pop: {pick('FRA56-P4', 'IAD89-C1')}")),
    ("tls_handshake_lines", "log", lambda: pick(
        "* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS",
        "* TLSv1.3 (OUT), TLS handshake, Client hello (1):", "* TLSv1.3 (IN), TLS handshake, Newsession Ticket (4):",
        "javax.net.ssl|DEBUG|0E|main|2025-12-04 10:11:12.345 UTC|ClientHello.java:641|Produced ClientHello handshake message",
        f"javax.net.ssl|DEBUG|0E|main|2025-12-04 10:11:12.401 UTC|SSLSocketOutputRecord.java:331|WRITE: TLSv1.3 application_data, length = {_r.randint(80, 900)}",
        "http: TLS handshake error from 10.0.3.7:51422: remote error: tls: bad certificate")),
    ("cert_fingerprints", "log", lambda: pick(
        "*  subject: CN=api.example.com", "*  issuer: C=US; O=Let's Encrypt; CN=R11",
        "SHA256 Fingerprint=" + ":".join(hx(2).upper() for _ in range(32)), "*  expire date: Mar  3 10:11:12 2026 GMT",
        f"X509v3 Subject Key Identifier: {':'.join(hx(2).upper() for _ in range(20))}",
        f"git: http.sslCAInfo=/etc/ssl/certs/ca-certificates.crt; server certificate sha256 {sha256()}")),
    ("http2_frames", "log", lambda: pick(
        f"http2: Framer 0xc000{hx(6)}: wrote HEADERS flags=END_STREAM|END_HEADERS stream={_r.randint(1, 99) * 2 - 1} len={_r.randint(20, 200)}",
        f"http2: Framer 0xc000{hx(6)}: read SETTINGS len=18, settings: MAX_CONCURRENT_STREAMS=250, INITIAL_WINDOW_SIZE=1048576",
        f"* [HTTP/2] [1] OPENED stream for https://{host()}/v1/orders", "* [HTTP/2] [1] [:method: GET]",
        f"http2: Framer 0xc000{hx(6)}: wrote WINDOW_UPDATE len=4 (conn) incr={_r.randint(1000, 99999)}",
        "http2: Transport received GOAWAY len=8 LastStreamID=0 ErrCode=NO_ERROR Debug=\"\"")),
    ("redacted_headers", "log", lambda: pick(
        "> Authorization: Bearer [REDACTED]", "=> Send header: Authorization: Basic <redacted>",
        f"{klog()} round_trippers.go:473]     Authorization: Bearer <masked>", "      Authorization: *",
        "Headers({'host': 'api.example.com', 'authorization': '[secure]'})", "b'authorization': b'--- Token Redacted ---'",
        "http.request.header.authorization=\"AWS4-HMAC-SHA256 Credential=*****/20251204/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=*****\"")),
    ("placeholder_headers", "log", lambda: pick(
        "> Authorization: Bearer <token>", "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/me",
        "Authorization: Bearer ${GITHUB_TOKEN}", "X-Api-Key: YOUR_API_KEY", "{\"name\": \"Authorization\", \"value\": \"Bearer {{access_token}}\"}",
        "-H 'Authorization: token <your-personal-access-token>'")),
    ("rate_limit_headers", "log", lambda: pick(
        f"< x-ratelimit-limit: {_r.choice([60, 5000, 15000])}", f"< x-ratelimit-remaining: {_r.randint(0, 4999)}",
        f"< x-ratelimit-reset: {_r.randint(1764000000, 1765000000)}", f"< retry-after: {_r.randint(1, 120)}",
        f"'x-ms-ratelimit-remaining-subscription-reads': '{_r.randint(1, 11999)}'", "< x-ratelimit-used: 41")),
    ("k8s_resource_versions", "log", lambda: pick(
        f"{klog()} round_trippers.go:553] GET https://10.96.0.1:443/api/v1/namespaces/default/pods?limit=500&resourceVersion=0 200 OK in {_r.randint(3, 90)} milliseconds",
        f"\"metadata\":{{\"name\":\"api-7d9f\",\"uid\":\"{uuid()}\",\"resourceVersion\":\"{_r.randint(10**5, 10**8)}\",\"generation\":{_r.randint(1, 9)}}}",
        f"{klog()} round_trippers.go:560] Response Status: 401 Unauthorized in {_r.randint(2, 40)} milliseconds",
        f"{klog()} loader.go:395] Config loaded from file:  /home/ci/.kube/config",
        f"{klog()} request.go:1212] Response Body: {{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}}")),
    ("git_object_ids", "log", lambda: pick(
        f"{clock()} pkt-line.c:80           packet:        fetch< {hx(40)} refs/heads/main", f"{clock()} pkt-line.c:80           packet:        fetch> want {hx(40)}",
        f"{hx(40)}\trefs/tags/v1.{_r.randint(0, 9)}.{_r.randint(0, 9)}", f"From https://github.com/acme/app\n * branch            main       -> FETCH_HEAD\n   {hx(7)}..{hx(7)}  main       -> origin/main",
        f"{clock()} http.c:845              => Send data: 0032have {hx(40)}")),
    ("curl_info_lines", "log", lambda: pick(
        f"* Connected to api.example.com (93.184.{_r.randint(0, 255)}.{_r.randint(1, 254)}) port 443", "* ALPN: server accepted h2",
        "* Server auth using Basic with user 'deploy'", "< HTTP/2 401", "* Connection #0 to host api.example.com left intact",
        f"=> Send header, {_r.randint(100, 400)} bytes (0x{_r.randint(100, 400):x})")),
    ("auth_challenges", "log", lambda: pick(
        "< www-authenticate: Bearer realm=\"api\", error=\"invalid_token\", error_description=\"The access token expired\"",
        "< WWW-Authenticate: Basic realm=\"Artifactory Realm\"", "< WWW-Authenticate: Negotiate",
        f"< WWW-Authenticate: Digest realm=\"ops\", qop=\"auth\", nonce=\"{hx(32)}\", opaque=\"{hx(32)}\"",
        "< x-amzn-ErrorType: UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
        "< www-authenticate: Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\",scope=\"repository:library/nginx:pull\"")),
    ("cookies_without_secrets", "log", lambda: pick(
        "> Cookie: theme=dark; lang=en-US", f"< set-cookie: locale=de; Path=/; Max-Age={_r.randint(86400, 31536000)}",
        "< set-cookie: session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/", "> Cookie: consent=accepted; tz=Europe%2FBerlin",
        "{\"name\": \"theme\", \"value\": \"dark\"}")),
    ("botocore_ordinary", "log", lambda: pick(
        f"{pyts()} botocore.hooks [DEBUG] Event choose-signer.s3.ListObjectsV2: calling handler <function set_operation_specific_signer at 0x7f{hx(10)}>",
        f"{pyts()} botocore.endpoint [DEBUG] Making request for OperationModel(name=GetCallerIdentity) with params: {{'url_path': '/', 'query_string': '', 'method': 'POST', 'headers': {{'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8', 'User-Agent': 'aws-cli/2.22.10'}}, 'body': {{'Action': 'GetCallerIdentity', 'Version': '2011-06-15'}}}}",
        f"{pyts()} botocore.credentials [INFO] Found credentials in environment variables.",
        f"{pyts()} botocore.parsers [DEBUG] Response headers: {{'x-amzn-RequestId': '{uuid()}', 'Content-Type': 'text/xml', 'Content-Length': '{_r.randint(300, 900)}'}}",
        f"{pyts()} botocore.auth [DEBUG] CanonicalRequest:\nGET\n/\nlist-type=2\nhost:acme-logs.s3.amazonaws.com\nx-amz-content-sha256:{sha256()}\nx-amz-date:{date8()}T101112Z\n\nhost;x-amz-content-sha256;x-amz-date\n{sha256()}")),
    ("terraform_ordinary", "log", lambda: pick(
        f"{iso()} [TRACE] provider.stdio: waiting for stdio data", f"{iso()} [DEBUG] ReferenceTransformer: \"aws_instance.web\" references: []",
        f"{iso()} [INFO]  Terraform version: 1.10.{_r.randint(0, 5)}", f"{iso()} [TRACE] GRPCProvider: ConfigureProvider",
        f"{iso()} [DEBUG] provider.terraform-provider-aws_v5.80.0_x5: HTTP Response Received: http.status_code=403 http.response.header.x_amzn_requestid={uuid()}",
        f"{iso()} [WARN]  Provider \"registry.terraform.io/hashicorp/aws\" produced an invalid plan for aws_s3_bucket.logs, but we are tolerating it")),
    ("npm_pip_ordinary", "log", lambda: pick(
        f"npm http fetch GET 401 https://npm.example.com/@acme%2fui {_r.randint(20, 900)}ms (cache skip)", "npm silly reify mark deleted [ '/app/node_modules/left-pad' ]",
        f"Found link https://files.pythonhosted.org/packages/{hx(2)}/{hx(2)}/{hx(60)}/requests-2.32.3-py3-none-any.whl#sha256={sha256()} (from https://pypi.org/simple/requests/), version: 2.32.3",
        "1 location(s) to search for versions of acme-client:", "Skipping link: not a file: https://pypi.org/simple/acme-client/",
        "npm verbose cli /usr/local/bin/node /usr/local/bin/npm")),
    ("docker_helm_ordinary", "log", lambda: pick(
        f"DEBU[{iso()}] Calling HEAD /_ping", f"DEBU[0003] pulling blob \"sha256:{sha256()}\"", f"Digest: sha256:{sha256()}",
        f"install.go:225: [debug] CHART PATH: /home/ci/.cache/helm/repository/api-{_r.randint(1, 9)}.{_r.randint(0, 20)}.0.tgz",
        f"NAME: api\nLAST DEPLOYED: Thu Dec  4 10:11:12 2025\nNAMESPACE: prod\nSTATUS: failed\nREVISION: {_r.randint(1, 40)}",
        f"client.go:142: [debug] creating 1 resource(s)")),
    ("jvm_ordinary", "log", lambda: pick(
        f"I/okhttp.OkHttpClient: --> GET https://{host()}/v1/orders\nI/okhttp.OkHttpClient: --> END GET",
        f"I/okhttp.OkHttpClient: <-- 401 Unauthorized https://{host()}/v1/orders ({_r.randint(20, 900)}ms)",
        "DEBUG org.apache.http.wire - http-outgoing-0 << \"HTTP/1.1 200 OK[\\r][\\n]\"", f"DEBUG org.apache.http.wire - http-outgoing-0 << \"Content-Length: {_r.randint(10, 9000)}[\\r][\\n]\"",
        "javax.net.ssl|DEBUG|0E|main|2025-12-04 10:11:12.455 UTC|Finished.java:917|Consuming server Finished handshake message",
        "DEBUG o.s.web.client.RestTemplate - Response 401 UNAUTHORIZED")),
    ("go_dotnet_ordinary", "log", lambda: pick(
        "http2: Transport encoding header \":authority\" = \"api.example.com\"", "http2: decoded hpack field header field \"content-type\" = \"application/json\"",
        f"info: System.Net.Http.HttpClient.Default.LogicalHandler[101]\n      End processing HTTP request after {_r.randint(10, 900)}.{_r.randint(0, 9)}ms - 401",
        "trce: System.Net.Http.HttpClient.Default.ClientHandler[102]\n      Request Headers:\n      User-Agent: Acme/1.0\n      Accept: application/json",
        f"2025/12/04 10:11:12 http2: Transport received HEADERS flags=END_HEADERS stream={_r.randint(1, 50) * 2 - 1} len={_r.randint(10, 90)}")),
    ("http_client_send_ordinary", "log", lambda: pick(
        f"send: b'GET /health HTTP/1.1\\r\\nHost: {host()}\\r\\nAccept: */*\\r\\n\\r\\n'", "reply: 'HTTP/1.1 401 Unauthorized\\r\\n'",
        "header: Content-Type: application/json", f"header: X-Request-Id: {uuid()}", f"DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): {host()}",
        f"DEBUG:urllib3.connectionpool:https://api.example.com:443 \"POST /v1/token HTTP/1.1\" 401 {_r.randint(20, 300)}")),
    ("httpx_httpcore_ordinary", "log", lambda: pick(
        "DEBUG:httpcore.connection:connect_tcp.started host='api.example.com' port=443 local_address=None timeout=5.0 socket_options=None",
        f"DEBUG:httpcore.connection:start_tls.complete return_value=<httpcore._backends.sync.SyncStream object at 0x7f{hx(10)}>",
        "DEBUG:httpcore.http11:receive_response_headers.complete return_value=(b'HTTP/1.1', 401, b'Unauthorized', [(b'Content-Type', b'application/json'), (b'WWW-Authenticate', b'Bearer error=\"invalid_token\"')])",
        f"INFO:httpx:HTTP Request: GET https://api.example.com/v1/items?page={_r.randint(2, 40)} \"HTTP/1.1 200 OK\"",
        "DEBUG:httpcore.http11:send_request_headers.started request=<Request [b'POST']>")),
    ("grpc_ordinary", "log", lambda: pick(
        "grpc-status: 16", "grpc-message: Request had invalid authentication credentials.",
        "metadata=[('x-goog-request-params', 'name=projects/acme/secrets/db-password')]",
        f"{klog()} chttp2_transport.cc:1456] HTTP:1:HDR:SVR: :status: 32 30 30 '200'", "content-type: application/grpc",
        f"grpc-timeout: {_r.randint(100, 9999)}m")),
    ("mcp_frames_ordinary", "log", lambda: pick(
        "DEBUG mcp.client.streamable_http: Sending client message: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"acme-agent\",\"version\":\"1.3.0\"}}}",
        f"{{\"jsonrpc\":\"2.0\",\"id\":{_r.randint(1, 99)},\"method\":\"tools/call\",\"params\":{{\"name\":\"search\",\"arguments\":{{\"query\":\"reset password\"}},\"_meta\":{{\"progressToken\":{_r.randint(1, 99)}}}}}}}",
        f"{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{_r.randint(1, 99)},\"reason\":\"timeout\"}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Invalid params: missing required field 'token'\"}}",
        f"{{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Token expired; re-authenticate. Ref ERR-{rnd(8, UPPER_ALNUM)}\"}}],\"isError\":true}}}}")),
    ("sse_ordinary", "log", lambda: pick(
        "event: message", f"id: {_r.randint(10**12, 10**13)}-{_r.randint(0, 9)}", "retry: 3000",
        f"data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{_r.randint(1, 99)},\"progress\":{_r.randint(0, 100)},\"total\":100}}}}",
        ": keep-alive", "data: [DONE]")),
    ("websocket_ordinary", "log", lambda: pick(
        f"> Sec-WebSocket-Key: {b64digest(16)}", f"< Sec-WebSocket-Accept: {b64digest(20)}",
        f"DEBUG:websockets.client:> TEXT '{{\"type\": \"ping\", \"id\": {_r.randint(1, 999)}}}' [{_r.randint(20, 40)} bytes]",
        "DEBUG:websockets.client:= connection is OPEN", "DEBUG:websockets.client:< CLOSE 1000 (OK) [2 bytes]",
        f"↓ 42[\"order.updated\",{{\"id\":\"ord_{_r.randint(1000, 9999)}\",\"status\":\"paid\"}}]")),
    ("har_ordinary", "log", lambda: pick(
        "{\"name\": \"Accept\", \"value\": \"application/json\"},", f"{{\"name\": \"x-request-id\", \"value\": \"{uuid()}\"}},",
        f"\"timings\": {{\"blocked\": 1.2, \"dns\": -1, \"connect\": {_r.randint(5, 90)}.4, \"send\": 0.1, \"wait\": {_r.randint(20, 900)}.7, \"receive\": 0.9}}",
        "{\"name\": \"authorization\", \"value\": \"[REDACTED]\"}", "\"queryString\": [{\"name\": \"page\", \"value\": \"2\"}]",
        f"{{\"name\": \"etag\", \"value\": \"\\\"{hx(32)}\\\"\"}}")),
    ("az_gcloud_ordinary", "log", lambda: pick(
        f"DEBUG: cli.azure.cli.core.sdk.policies: Request URL: 'https://management.azure.com/subscriptions/{uuid()}/resourceGroups?api-version=2022-09-01'",
        f"DEBUG: cli.azure.cli.core.sdk.policies:     'x-ms-client-request-id': '{uuid()}'",
        "== headers start ==\nb'x-goog-api-client': b'cred-type/u gl-python/3.12.7'\n== headers end ==",
        "uri: https://compute.googleapis.com/compute/v1/projects/acme/zones?alt=json", f"---- response end ----\n----------------------\nResponse latency: 0.{_r.randint(10, 99)}s",
        f"DEBUG: cli.azure.cli.core.sdk.policies:     'x-ms-correlation-request-id': '{uuid()}'")),
]


def traced() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_30)
    return heldout._records(SECRETS, BENIGN, 8, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = traced()
    heldout._write(HERE / "traced_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "traced_benign.jsonl.gz", benign_rows)
    print(f"traced: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
