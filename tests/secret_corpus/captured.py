"""An eighth held-out set, by another author: secrets in captured traffic and developer-tool exports.

    python -m tests.secret_corpus.captured   # rewrites captured_*.jsonl.gz here

Written before reading the scrubber's patterns, from what the seven earlier sets have least of: HAR
files (header, cookie, ``queryString`` and ``postData.params`` arrays of ``{"name", "value"}``
objects, JSON bodies escaped inside ``postData.text`` and ``content.text``); ``curl -v`` and
``--trace-ascii`` transcripts (``> Authorization:``, ``* Server auth using Basic``, offset-prefixed
header lines), httpie and ``wget --debug``; ``tcpdump -A`` and ``tshark -V`` (``Credentials:``,
``Form item:``/``Value:`` lines); mitmproxy, Charles, Fiddler and Burp exports; Postman collections
and environments (``{"key", "value", "type": "secret"}``, auth arrays whose ``key`` names the
field), Insomnia, Bruno ``.bru`` blocks and VS Code REST Client ``.http`` files (``@token =``,
``Basic user password``); VCR cassettes (vcrpy and Ruby VCR header lists, Polly.js, nock);
OpenTelemetry exporter headers (``OTEL_EXPORTER_OTLP_HEADERS`` with ``%20``, collector ``headers:``)
and observability vendors' keys in their contexts (Datadog API/app keys, Splunk HEC ``Splunk
<uuid>``, New Relic license keys, Honeycomb, Grafana Cloud ``glc_``, Sentry DSN secrets, Logz.io,
Elastic APM and API keys, Dynatrace ``Api-Token``, Prometheus ``credentials``); browser storage
dumps (localStorage with JSON nested in strings, MSAL session storage, ``document.cookie``,
IndexedDB); keychain and password-manager CLIs (``security -g``/``-w``, ``secret-tool``, ``op``,
``bw``, ``pass``/``gopass``, ``keepassxc-cli``) and their CSV exports; Windows ``.reg`` exports,
``cmdkey``/``net use`` and ``netsh wlan ... key=clear``; git (``remote -v``, ``http.extraheader``,
the credential-helper protocol, ``GIT_TRACE_CURL``); package managers' commands and auth files;
Android logcat (OkHttp, Retrofit) and iOS console lines (Swift dictionaries, ``Optional("...")``,
``NSHTTPCookie``); WebSocket frames and GraphQL arguments. Benign look-alikes from the same
contexts: HAR entries with public headers and timings, redacted values (``[REDACTED]``,
``<hidden>``, ``********``, ``██``, ``<private>``, ``{{token}}``), Postman variable references,
ETags, request ids, trace context (``traceparent``, ``sentry-trace``, ``baggage`` with a public
key), public client keys, hashes named as hashes, CSP nonces and SRI, consent and preference
cookies, transcripts and dumps without credentials, PKCE challenges, cursors.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed, human
passwords marked ``Fake``), format-valid where a format has structure (JWTs, Basic credentials,
NTLM type-3 messages, Grafana Cloud ``glc_`` JSON, New Relic ``NRAL`` keys, base32 TOTP seeds,
Elastic ``id:key`` API keys); 74 secret formats x 4 and 31 benign categories x 5.
``tests/test_scrub_captured.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import quote

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import b64s, fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: captured() seeds it

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def tok(lo: int = 24, hi: int = 44) -> str:
    return rnd(_r.randint(lo, hi), ALNUM)


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt() -> str:
    head = b64u(json.dumps({"alg": pick("RS256", "HS256", "ES256"), "typ": "JWT"}).encode())
    claims = {"sub": uuid(), "iat": _r.randint(1_700_000_000, 1_760_000_000), "scope": pick("openid profile", "orders:write", "api")}
    return f"{head}.{b64u(json.dumps(claims).encode())}.{b64u(_r.randbytes(_r.choice([32, 64, 256])))}"


def bearer() -> str:
    """An access token as APIs hand them out: a JWT or an opaque random string."""
    return pick(jwt(), tok(32, 64), rnd(40, B64URL))


def user() -> str:
    return pick("deploy", "ci-bot", "alice", "svc-sync", "admin", "ops")


def basic() -> str:
    return b64s(f"{user()}:{pick(fpw(), tok(20, 32))}")


def ntlm_type3() -> str:
    """An NTLMSSP AUTHENTICATE message (type 3): signature, type, then the NTLMv2 response bytes."""
    return base64.b64encode(b"NTLMSSP\0\x03\0\0\0" + _r.randbytes(_r.randint(180, 260))).decode()


def dd_api() -> str:
    return rnd(32, HEX)


def dd_app() -> str:
    return rnd(40, HEX)


def nr_license() -> str:
    return pick(rnd(36, HEX) + "NRAL", "eu01xx" + rnd(34, HEX))


def glc() -> str:
    body = {"o": str(_r.randint(100000, 999999)), "n": f"stack-{_r.randint(100000, 999999)}-{pick('otlp-write', 'hm-read', 'logs')}", "k": rnd(24, ALNUM), "m": {"r": pick("prod-eu-west-2", "prod-us-central-0")}}
    return "glc_" + base64.b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()


def honeycomb() -> str:
    return pick(rnd(22, ALNUM), "hcaik_01" + rnd(56, LOWER_ALNUM))


def totp_seed() -> str:
    return rnd(32, B32)


def elastic_key() -> tuple[str, str]:
    key_id, key = rnd(20, B64URL), rnd(22, B64URL)
    return key_id, key


def ts_ms() -> str:
    return f"2025-03-0{_r.randint(1, 9)}T1{_r.randint(0, 9)}:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{_r.randint(100, 999)}Z"


def har_header(name: str, value: str) -> str:
    return json.dumps({"name": name, "value": value})


def har_entry(request_headers: list[tuple[str, str]], url: str = "", method: str = "GET") -> str:
    url = url or f"https://api.{pick('example.com', 'acme.test', 'shop.example.net')}/v{_r.randint(1, 3)}/{pick('orders', 'me', 'items', 'session')}"
    entry = {
        "startedDateTime": ts_ms(),
        "time": round(_r.uniform(20, 900), 3),
        "request": {"method": method, "url": url, "httpVersion": "HTTP/2.0",
                    "headers": [{"name": n, "value": v} for n, v in request_headers], "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": 0},
    }
    return json.dumps(entry)


def _pub_headers() -> list[tuple[str, str]]:
    return [(":authority", "api.example.com"), ("accept", "application/json"), ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0")]


def logcat(tag: str, level: str = "D") -> str:
    return f"03-0{_r.randint(1, 9)} 1{_r.randint(0, 9)}:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{_r.randint(100, 999)}  {_r.randint(2000, 9999)}  {_r.randint(2000, 9999)} {level} {tag}: "


def ios() -> str:
    return f"default\t1{_r.randint(0, 9)}:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{_r.randint(100000, 999999)}+0100\tAcme\t[{_r.randint(100, 999)}:{rnd(5, HEX)}] "


# --- secrets ----------------------------------------------------------------------------------

def _har_cookie() -> tuple[str, str]:
    s = pick(tok(32, 48), rnd(40, HEX), "s%3A" + rnd(32, B64URL) + "." + rnd(43, B64URL))
    name = pick("sessionid", "connect.sid", "_session_id", "SESSION", "laravel_session", "__Host-auth")
    return s, pick(
        f'"cookies": [{{"name": "{name}", "value": "{s}", "path": "/", "domain": ".example.com", "expires": null, "httpOnly": true, "secure": true}}]',
        har_entry([*_pub_headers(), ("cookie", f"_ga=GA1.1.{_r.randint(10**8, 10**9)}.{_r.randint(10**8, 10**9)}; {name}={s}; theme=dark")]),
        f'{{"name": "Cookie", "value": "{name}={s}"}}',
        f'"cookies": [{{"name": "theme", "value": "dark"}}, {{"name": "{name}", "value": "{s}"}}], "headersSize": 812',
    )


def _har_postdata() -> tuple[str, str]:
    s = pick(fpw(), tok(24, 40))
    field = pick("password", "client_secret", "refresh_token", "pass", "passwd")
    return s, pick(
        f'"postData": {{"mimeType": "application/x-www-form-urlencoded", "params": [{{"name": "username", "value": "{user()}"}}, {{"name": "{field}", "value": "{s}"}}]}}',
        f'"postData": {{"mimeType": "application/x-www-form-urlencoded", "text": "grant_type=password&username={user()}&{field}={s}&scope=openid"}}',
        f'"params": [{{"name": "{field}", "value": "{s}"}}]',
        f'"postData": {{"mimeType": "application/x-www-form-urlencoded", "params": [{{"name": "grant_type", "value": "client_credentials"}}, {{"name": "client_id", "value": "web"}}, {{"name": "{field}", "value": "{s}"}}], "text": "grant_type=client_credentials&client_id=web&{field}={s}"}}',
    )


def _har_json_text() -> tuple[str, str]:
    s = pick(fpw(), tok(28, 48))
    key = pick("password", "clientSecret", "apiKey", "secret", "refreshToken", "token")
    inner = json.dumps({"email": "alice@example.com", key: s})
    return s, pick(
        json.dumps({"postData": {"mimeType": "application/json", "text": inner}}),
        json.dumps({"request": {"method": "POST", "url": "https://auth.example.com/api/login", "postData": {"mimeType": "application/json;charset=UTF-8", "text": inner}}}),
        json.dumps({"response": {"status": 200, "content": {"size": 412, "mimeType": "application/json", "text": json.dumps({key: s, "expires_in": 3600})}}}),
        json.dumps({"content": {"mimeType": "application/json", "text": json.dumps({"data": {"login": {key: s}}})}}),
    )


def _har_querystring() -> tuple[str, str]:
    s = pick(tok(32, 48), jwt(), rnd(40, HEX))
    name = pick("access_token", "api_key", "token", "apikey", "key", "sig", "auth")
    host = pick("api.example.com", "maps.acme.test", "cdn.example.net")
    return s, pick(
        f'"queryString": [{{"name": "page", "value": "1"}}, {{"name": "{name}", "value": "{s}"}}]',
        f'"request": {{"method": "GET", "url": "https://{host}/v1/tiles?{name}={s}&z=4", "httpVersion": "HTTP/1.1"}}',
        f'{{"name": "{name}", "value": "{s}"}}',
        f'"url": "wss://{host}/socket/websocket?{name}={s}&vsn=2.0.0"',
    )


def _curl_v_basic() -> tuple[str, str]:
    u, p = user(), pick(fpw(), tok(16, 28))
    s = b64s(f"{u}:{p}")
    return s, pick(
        f"*   Trying 10.0.4.12:443...\n* Connected to nexus.internal ({'10.0.4.12'}) port 443\n* Server auth using Basic with user '{u}'\n> GET /service/rest/v1/status HTTP/1.1\n> Host: nexus.internal\n> Authorization: Basic {s}\n> User-Agent: curl/8.5.0\n> Accept: */*\n>\n< HTTP/1.1 401 Unauthorized",
        f"* Server auth using Basic with user '{u}'\n> POST /api/v4/upload HTTP/2\n> host: registry.example.com\n> authorization: Basic {s}\n> content-length: 512",
        f"> GET /artifactory/api/repositories HTTP/1.1\r\n> Host: jfrog.example.com\r\n> Authorization: Basic {s}\r\n> Accept: */*\r\n",
        f"* Proxy auth using Basic with user '{u}'\n> CONNECT api.example.com:443 HTTP/1.1\n> Host: api.example.com:443\n> Proxy-Authorization: Basic {s}\n> Proxy-Connection: Keep-Alive",
    )


def _curl_trace() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 40))
    head = pick(f"Authorization: Bearer {s}", f"Authorization: Token {s}", f"X-Auth-Token: {s}", f"Private-Token: {s}")
    return s, pick(
        f"== Info: Connected to api.example.com (203.0.113.7) port 443\n=> Send header, 176 bytes (0xb0)\n0000: GET /v2/projects HTTP/1.1\n001b: Host: api.example.com\n0032: User-Agent: curl/8.5.0\n004c: Accept: */*\n0059: {head}\n00ae: \n<= Recv header, 13 bytes (0xd)\n0000: HTTP/1.1 403",
        f"=> Send header, 142 bytes (0x8e)\n0000: POST /deploy HTTP/1.1\n0017: Host: ci.example.com\n002d: {head}\n",
        f"10:0{_r.randint(0, 9)}:12.000000 [0-0] => Send header, 211 bytes (0xd3)\n10:0{_r.randint(0, 9)}:12.000000 [0-0] 0000: GET /me HTTP/2\n10:0{_r.randint(0, 9)}:12.000000 [0-0] 0010: {head}",
    )


def _curl_headers_out() -> tuple[str, str]:
    s = pick(tok(32, 48), rnd(40, B64URL))
    return s, pick(
        f"> GET /v1/me HTTP/2\n> Host: api.example.com\n> x-api-key: {s}\n> accept: */*",
        f"< HTTP/2 200\n< content-type: application/json\n< set-cookie: session={s}; Path=/; Secure; HttpOnly; SameSite=Lax\n< x-request-id: {uuid()}",
        f"> POST /graphql HTTP/1.1\n> Host: api.example.com\n> Cookie: sid={s}; lang=en\n> Content-Type: application/json",
        f"> GET /api/v1/query HTTP/1.1\n> X-Vault-Token: {s}\n> Accept: application/json",
    )


def _httpie() -> tuple[str, str]:
    s = pick(fpw(), tok(24, 40))
    u = user()
    return s, pick(
        f"$ http --auth {u}:{s} POST https://api.example.com/v1/deploy env=prod\nHTTP/1.1 401 Unauthorized",
        f"POST /v1/login HTTP/1.1\nAccept: application/json, */*;q=0.5\nContent-Type: application/json\nHost: api.example.com\nUser-Agent: HTTPie/3.2.2\n\n{{\n    \"username\": \"{u}\",\n    \"password\": \"{s}\"\n}}",
        f"$ https -A bearer -a {s} api.example.com/v1/me\nhttp: error: ConnectionError",
        f"GET /v1/me HTTP/1.1\nAccept: */*\nAuthorization: Bearer {s}\nHost: api.example.com\nUser-Agent: HTTPie/3.2.2",
    )


def _wget_debug() -> tuple[str, str]:
    u, p = user(), fpw()
    cred = b64s(f"{u}:{p}")
    return pick((cred, f"---request begin---\nGET /repo/pool/main/a/acme_1.2.0_amd64.deb HTTP/1.1\nUser-Agent: Wget/1.21.4\nAccept: */*\nAccept-Encoding: identity\nAuthorization: Basic {cred}\nHost: apt.example.com\nConnection: Keep-Alive\n\n---request end---"),
                (p, f"Setting --http-password (httppassword) to {p}\nSetting --http-user (httpuser) to {u}\nDEBUG output created by Wget 1.21.4 on linux-gnu."),
                (p, f"+ wget --user={u} --password={p} -q -O /tmp/pkg.tgz https://files.example.com/pkg.tgz"),
                (p, f"Setting --ftp-password (ftppassword) to {p}\n--2025-03-01 10:00:00--  ftp://files.example.com/dump.sql.gz"))


def _tcpdump_ascii() -> tuple[str, str]:
    scheme = pick("Basic", "Bearer")
    s = basic() if scheme == "Basic" else bearer()
    head = f"Authorization: {scheme} {s}"
    pre = f"10:00:0{_r.randint(0, 9)}.{_r.randint(100000, 999999)} IP 10.0.0.{_r.randint(2, 250)}.{_r.randint(30000, 60000)} > 10.0.0.9.80: Flags [P.], seq 1:{_r.randint(200, 900)}, ack 1, win 502, length {_r.randint(200, 900)}\nE..{rnd(3, ALNUM)}..@.@.{rnd(4, ALNUM)}\n....P.{rnd(6, ALNUM)}....\n"
    return s, pick(
        pre + f"GET /api/v1/status HTTP/1.1\nHost: 10.0.0.9\n{head}\nAccept: */*\n",
        pre + f"POST /metrics/job/batch HTTP/1.1\nHost: pushgateway:9091\n{head}\nContent-Length: 64",
        f"T 10.0.0.5:51234 -> 10.0.0.9:80 [AP] #12\n  GET /v2/_catalog HTTP/1.1..Host: registry:5000..{head}..Accept: */*....",
    )


def _tshark_v() -> tuple[str, str]:
    u, p = user(), fpw()
    cred = b64s(f"{u}:{p}")
    return p, pick(
        f"Hypertext Transfer Protocol\n    GET /admin HTTP/1.1\\r\\n\n    Host: 10.0.0.9\\r\\n\n    Authorization: Basic {cred}\\r\\n\n        Credentials: {u}:{p}\n    \\r\\n\n    [Full request URI: http://10.0.0.9/admin]",
        f"HTML Form URL Encoded: application/x-www-form-urlencoded\n    Form item: \"username\" = \"{u}\"\n        Key: username\n        Value: {u}\n    Form item: \"password\" = \"{p}\"\n        Key: password\n        Value: {p}",
        f"$ tshark -r login.pcap -Y http.authbasic -T fields -e ip.src -e http.authbasic\n10.0.0.5\t{u}:{p}",
        f"    Form item: \"pwd\" = \"{p}\"\n        Key: pwd\n        Value: {p}",
    )


def _mitmproxy() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48))
    h = pick(f"authorization: Bearer {s}", f"x-api-key: {s}", f"cookie: session={s}", f"x-access-token: {s}")
    return s, pick(
        f"127.0.0.1:52144: POST https://api.example.com/v1/sync\n    :authority: api.example.com\n    content-type: application/json\n    {h}\n    user-agent: okhttp/4.12.0\n << 401 Unauthorized 63b",
        f"[10:0{_r.randint(0, 9)}:11.482][127.0.0.1:52144] server connect api.example.com:443 (203.0.113.7:443)\n127.0.0.1:52144: GET https://api.example.com/v1/me\n    {h}",
        f"$ mitmdump -nr flows.mitm --flow-detail 2 '~u /login'\n10.0.2.15:40112: POST https://auth.example.com/oauth/token\n    content-type: application/x-www-form-urlencoded\n\n    grant_type:    refresh_token\n    refresh_token: {s}",
    )


def _charles_fiddler() -> tuple[str, str]:
    if _r.random() < 0.25:
        s = basic()
        return s, f"GET https://api.example.com/v2/account HTTP/1.1\r\nHost: api.example.com\r\nProxy-Authorization: Basic {s}\r\nConnection: keep-alive\r\n"
    s = pick(bearer(), tok(32, 48))
    return s, pick(
        json.dumps({"status": "COMPLETE", "method": "GET", "protocolVersion": "HTTP/1.1", "scheme": "https", "host": "api.example.com", "path": "/v2/account", "request": {"header": {"firstLine": "GET /v2/account HTTP/1.1", "headers": [{"name": "Host", "value": "api.example.com"}, {"name": pick("Authorization", "X-Auth-Token"), "value": ("Bearer " + s) if _r.random() < 0.5 else s}]}}}),
        f"<request base64=\"false\"><![CDATA[GET /v2/account HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer {s}\r\n\r\n]]></request>",
        f"Session #{_r.randint(10, 400)}: 401 https://api.example.com/v2/account\nRequest Headers:\n  Authorization: Bearer {s}\n  Accept: application/json",
    )


def _ntlm() -> tuple[str, str]:
    s = ntlm_type3()
    return s, pick(
        f"GET /sites/hr/_api/web HTTP/1.1\r\nHost: sp.corp.example\r\nAuthorization: NTLM {s}\r\n",
        f"> Authorization: NTLM {s}\n< HTTP/1.1 200 OK",
        f"{{\"name\": \"Authorization\", \"value\": \"NTLM {s}\"}}",
        f"Proxy-Authorization: NTLM {s}",
    )


def _burp() -> tuple[str, str]:
    s = pick(fpw(), tok(20, 32))
    return s, pick(
        f"<item>\n  <url><![CDATA[https://app.example.com/login]]></url>\n  <method><![CDATA[POST]]></method>\n  <request base64=\"false\"><![CDATA[POST /login HTTP/1.1\r\nHost: app.example.com\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nusername=admin&password={s}]]></request>\n</item>",
        f"POST /j_security_check HTTP/1.1\r\nHost: app.example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 44\r\n\r\nj_username={user()}&j_password={s}",
        f"POST /wp-login.php HTTP/1.1\nHost: blog.example.com\n\nlog=admin&pwd={s}&wp-submit=Log+In",
    )


def _postman_env() -> tuple[str, str]:
    s = pick(tok(32, 48), rnd(40, HEX), fpw())
    k = pick("apiKey", "api_key", "clientSecret", "password", "accessToken", "stripe_sk", "adminPass")
    return s, pick(
        json.dumps({"id": uuid(), "name": "prod", "values": [{"key": "baseUrl", "value": "https://api.example.com", "type": "default", "enabled": True}, {"key": k, "value": s, "type": "secret", "enabled": True}], "_postman_variable_scope": "environment"}),
        json.dumps({"key": k, "value": s, "type": "secret", "enabled": True}),
        json.dumps({"key": k, "value": s, "type": "default", "enabled": True}),
        json.dumps({"variable": [{"key": "host", "value": "api.example.com"}, {"key": k, "value": s}]}),
    )


def _postman_auth() -> tuple[str, str]:
    s = pick(bearer(), fpw(), tok(32, 40))
    return s, pick(
        json.dumps({"auth": {"type": "bearer", "bearer": [{"key": "token", "value": s, "type": "string"}]}}),
        json.dumps({"auth": {"type": "basic", "basic": [{"key": "password", "value": s, "type": "string"}, {"key": "username", "value": user(), "type": "string"}]}}),
        json.dumps({"auth": {"type": "apikey", "apikey": [{"key": "value", "value": s, "type": "string"}, {"key": "key", "value": "X-API-Key", "type": "string"}, {"key": "in", "value": "header", "type": "string"}]}}),
        json.dumps({"header": [{"key": "Authorization", "value": f"Bearer {s}", "type": "text"}]}),
    )


def _postman_api_key() -> tuple[str, str]:
    s = f"PMAK-{rnd(24, HEX)}-{rnd(34, HEX)}"
    return s, pick(
        f"$ postman collection run 12345-{uuid()} --postman-api-key {s}",
        f"newman run https://api.getpostman.com/collections/{uuid()}?apikey={s} -e prod.json",
        f"  x-api-key: {s}",
    )


def _insomnia() -> tuple[str, str]:
    s = pick(bearer(), fpw())
    return s, pick(
        json.dumps({"_id": "env_" + rnd(32, HEX), "_type": "environment", "name": "Production", "data": {"base_url": "https://api.example.com", "access_token": s}}),
        json.dumps({"_id": "req_" + rnd(32, HEX), "_type": "request", "method": "GET", "authentication": {"type": "bearer", "token": s, "prefix": ""}}),
        json.dumps({"_type": "request", "authentication": {"type": "basic", "useISO88591": False, "disabled": False, "username": user(), "password": s}}),
        f"- _id: req_{rnd(32, HEX)}\n  _type: request\n  authentication:\n    type: bearer\n    token: {s}",
    )


def _bruno() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48), fpw())
    return s, pick(
        f"auth:bearer {{\n  token: {s}\n}}",
        f"vars {{\n  baseUrl: https://api.example.com\n  apiToken: {s}\n}}",
        f"headers {{\n  Accept: application/json\n  x-api-key: {s}\n}}",
        f"auth:basic {{\n  username: {user()}\n  password: {s}\n}}",
    )


def _rest_client() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48), fpw())
    return s, pick(
        f"@baseUrl = https://api.example.com\n@token = {s}\n\n### list orders\nGET {{{{baseUrl}}}}/orders\nAuthorization: Bearer {{{{token}}}}",
        f"@apiKey = {s}\nGET https://api.example.com/v1/me\nX-Api-Key: {{{{apiKey}}}}",
        f"GET https://nexus.example.com/service/rest/v1/status\nAuthorization: Basic {user()} {s}",
        f"@password={s}\nPOST https://auth.example.com/login\nContent-Type: application/json",
    )


def _ide_http_env() -> tuple[str, str]:
    s = pick(bearer(), fpw(), tok(32, 40))
    k = pick("token", "password", "api-key", "client-secret", "auth")
    return s, pick(
        json.dumps({"dev": {"host": "localhost:8080", k: s}}, indent=2),
        json.dumps({"prod": {"host": "api.example.com", "Security": {"Auth": {"auth-id": {"Type": "OAuth2", "Client ID": "web", "Client Secret": s}}}}}),
        f"# http-client.private.env.json\n{{\"staging\": {{\"{k}\": \"{s}\"}}}}",
    )


def _vcrpy() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48), "sk_live_" + rnd(24, ALNUM))
    h = pick("Authorization", "authorization", "X-Api-Key", "api-key", "X-Auth-Token")
    val = f"Bearer {s}" if h.lower() == "authorization" else s
    return s, pick(
        f"interactions:\n- request:\n    body: null\n    headers:\n      Accept:\n      - '*/*'\n      {h}:\n      - {val}\n      User-Agent:\n      - python-requests/2.32.3\n    method: GET\n    uri: https://api.example.com/v1/charges",
        f"    headers:\n      {h}:\n      - {val}\n      Content-Type:\n      - application/json",
        f"vcr.errors.CannotOverwriteExistingCassetteException: Can't overwrite existing cassette ('tests/cassettes/test_sync.yaml') in your current record mode ('none').\nNo match for the request (<Request (GET) https://api.example.com/v1/charges>) was found.\nheaders: {{'{h}': ['{val}']}}",
    )


def _ruby_vcr() -> tuple[str, str]:
    kind = _r.randint(0, 2)
    if kind == 0:
        s = pick(bearer(), tok(32, 48))
        return s, f"http_interactions:\n- request:\n    method: get\n    uri: https://api.github.com/user\n    body:\n      encoding: US-ASCII\n      string: ''\n    headers:\n      Authorization:\n      - token {s}\n      Accept:\n      - application/vnd.github+json"
    if kind == 1:
        s = basic()
        return s, f"    headers:\n      Authorization:\n      - Basic {s}\n      User-Agent:\n      - Faraday v2.9.0"
    s = pick(fpw(), tok(32, 48))
    return s, f"    body:\n      encoding: UTF-8\n      string: '{{\"client_id\":\"web\",\"client_secret\":\"{s}\",\"grant_type\":\"client_credentials\"}}'"


def _polly_nock() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48))
    return s, pick(
        json.dumps({"_id": rnd(32, HEX), "request": {"headers": [{"_fromType": "array", "name": "authorization", "value": f"token {s}"}, {"name": "accept", "value": "application/json"}], "method": "GET", "url": "https://api.github.com/user"}}),
        json.dumps([{"scope": "https://api.stripe.com:443", "method": "POST", "path": "/v1/charges", "reqheaders": {"authorization": f"Bearer {s}"}, "status": 200}]),
        f"nock('https://api.example.com', {{ reqheaders: {{ 'x-api-key': '{s}' }} }}).get('/v1/me').reply(200)",
    )


def _otel_env() -> tuple[str, str]:
    kind = _r.randint(0, 3)
    if kind == 0:
        s = basic()
        return s, pick(f"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20{s}", f"export OTEL_EXPORTER_OTLP_HEADERS=\"Authorization=Basic {s}\"")
    if kind == 1:
        s = honeycomb()
        return s, f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={s},x-honeycomb-dataset=checkout"
    if kind == 2:
        s = nr_license()
        return s, pick(f"OTEL_EXPORTER_OTLP_HEADERS=api-key={s}", f"-Dotel.exporter.otlp.headers=api-key={s} -Dotel.service.name=orders")
    s = dd_api()
    return s, pick(f"OTEL_EXPORTER_OTLP_TRACES_HEADERS=dd-api-key={s}", f"env: OTEL_EXPORTER_OTLP_METRICS_HEADERS=\"DD-API-KEY={s},dd-protocol=otlp\"")


def _otel_collector() -> tuple[str, str]:
    kind = _r.randint(0, 3)
    if kind == 0:
        s = basic()
        return s, f"exporters:\n  otlphttp/grafana_cloud:\n    endpoint: https://otlp-gateway-prod-eu-west-2.grafana.net/otlp\n    headers:\n      Authorization: \"Basic {s}\""
    if kind == 1:
        s = honeycomb()
        return s, f"exporters:\n  otlp/honeycomb:\n    endpoint: api.honeycomb.io:443\n    headers:\n      \"x-honeycomb-team\": \"{s}\""
    if kind == 2:
        s = uuid()
        return s, f"exporters:\n  splunk_hec:\n    token: \"{s}\"\n    endpoint: \"https://splunk.example.com:8088/services/collector\"\n    source: \"otel\""
    s = dd_api()
    return s, f"exporters:\n  datadog:\n    api:\n      site: datadoghq.eu\n      key: {s}"


def _otel_sdk_log() -> tuple[str, str]:
    s = pick(dd_api(), honeycomb(), basic())
    return s, pick(
        f"DEBUG:opentelemetry.exporter.otlp.proto.http.trace_exporter:Exporting with headers={{'x-honeycomb-team': '{s}'}}",
        f"WARN io.opentelemetry.exporter.internal.http.HttpExporter - Failed to export spans. Server responded with HTTP status code 401. Headers: {{api-key=[{s}]}}",
        f"2025/03/01 10:00:00 otel: exporter config: OTLPEndpoint=ingest.example.com:443 Headers=map[api-key:{s}]",
    )


def _datadog_api() -> tuple[str, str]:
    s = dd_api()
    return s, pick(
        f"> POST /api/v2/series HTTP/2\n> host: api.datadoghq.eu\n> dd-api-key: {s}\n> content-type: application/json",
        f"# /etc/datadog-agent/datadog.yaml\napi_key: {s}\nsite: datadoghq.com",
        f"{{\"name\": \"DD-API-KEY\", \"value\": \"{s}\"}}",
        f"https://http-intake.logs.datadoghq.com/api/v2/logs?dd-api-key={s}&ddsource=nodejs",
    )


def _datadog_app() -> tuple[str, str]:
    s = dd_app()
    return s, pick(
        f"> GET /api/v1/monitor HTTP/1.1\n> DD-APPLICATION-KEY: {s}\n> Accept: application/json",
        f"provider \"datadog\" {{\n  api_key = var.dd_api_key\n  app_key = \"{s}\"\n}}",
        f"datadog-ci synthetics run-tests --appKey {s} --public-id abc-def-ghi",
        f"    headers:\n      DD-APPLICATION-KEY:\n      - {s}",
    )


def _splunk_hec() -> tuple[str, str]:
    s = uuid()
    return s, pick(
        f"curl -k https://splunk.example.com:8088/services/collector/event -H \"Authorization: Splunk {s}\" -d '{{\"event\": \"hello\"}}'",
        f"[http://k8s-logs]\ndisabled = 0\nindex = k8s\ntoken = {s}",
        f"> POST /services/collector/raw HTTP/1.1\n> Authorization: Splunk {s}\n> Content-Type: text/plain",
        f"    splunk_hec_token {s}\n    hec_host splunk.example.com",
    )


def _newrelic() -> tuple[str, str]:
    s = pick(nr_license(), f"NRII-{rnd(32, ALNUM + '_-')}", f"NRAK-{rnd(27, UPPER_ALNUM)}")
    return s, pick(
        f"common: &default_settings\n  license_key: '{s}'\n  app_name: Orders",
        f"> POST /log/v1 HTTP/1.1\n> Host: log-api.eu.newrelic.com\n> X-License-Key: {s}",
        f"  -H 'X-Insert-Key: {s}' \\\n  -d @events.json",
        f"> POST /graphql HTTP/2\n> api-key: {s}\n> content-type: application/json",
    )


def _grafana_cloud() -> tuple[str, str]:
    s = pick(glc(), f"glsa_{rnd(32, ALNUM)}_{rnd(8, HEX)}")
    inst = str(_r.randint(100000, 999999))
    return s, pick(
        f"loki.write \"default\" {{\n  endpoint {{\n    url = \"https://logs-prod-012.grafana.net/loki/api/v1/push\"\n    basic_auth {{\n      username = \"{inst}\"\n      password = \"{s}\"\n    }}\n  }}\n}}",
        f"GRAFANA_CLOUD_API_KEY={s}",
        f"level=error caller=client.go:430 msg=\"final error sending batch\" status=401 url=https://{inst}:{s}@logs-prod-eu-west-0.grafana.net/loki/api/v1/push",
        f"$ grafana-cli --token {s} dashboards import ./dash.json",
    )


def _prometheus_auth() -> tuple[str, str]:
    s = pick(glc(), tok(32, 48), fpw())
    return s, pick(
        f"remote_write:\n  - url: https://prometheus-prod-01-eu-west-0.grafana.net/api/prom/push\n    basic_auth:\n      username: {_r.randint(100000, 999999)}\n      password: {s}",
        f"scrape_configs:\n  - job_name: api\n    authorization:\n      type: Bearer\n      credentials: {s}",
        f"    bearer_token: {s}\n    static_configs:\n      - targets: ['api:9100']",
        f"  oauth2:\n    client_id: prometheus\n    client_secret: {s}\n    token_url: https://auth.example.com/token",
    )


def _sentry() -> tuple[str, str]:
    pub, sec = rnd(32, HEX), rnd(32, HEX)
    org, proj = _r.randint(10000, 999999), _r.randint(1000, 9999999)
    kind = _r.randint(0, 2)
    if kind == 2:
        s = f"sntrys_{b64s(json.dumps({'iat': _r.randint(1_700_000_000, 1_760_000_000), 'url': 'https://sentry.io', 'region_url': 'https://de.sentry.io', 'org': 'acme'}))}_{rnd(43, B64)}"
        return s, pick(f"SENTRY_AUTH_TOKEN={s}", f"[sentry-cli] auth token: {s}", f"sentry-cli --auth-token {s} releases new 1.4.2")
    return sec, pick(
        f"SENTRY_DSN=https://{pub}:{sec}@o{org}.ingest.sentry.io/{proj}",
        f"raven.conf: dsn = \"https://{pub}:{sec}@sentry.example.com/{proj % 100}\"",
        f"> X-Sentry-Auth: Sentry sentry_version=7, sentry_client=raven-python/6.10.0, sentry_key={pub}, sentry_secret={sec}",
    )


def _logzio() -> tuple[str, str]:
    s = "".join(_r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(32))  # letters only
    return s, pick(
        f"POST https://listener-eu.logz.io:8071/?token={s}&type=nginx",
        f"<match app.**>\n  @type logzio_buffered\n  endpoint_url https://listener.logz.io:8071?token={s}&type=app\n</match>",
        f"LOGZIO_LOGS_TOKEN={s}",
        f"output.logstash:\n  hosts: [\"listener.logz.io:5015\"]\nfields:\n  token: {s}",
    )


def _elastic_apm() -> tuple[str, str]:
    s = pick(tok(24, 32), rnd(32, B64URL))
    return s, pick(
        f"ELASTIC_APM_SECRET_TOKEN={s} ELASTIC_APM_SERVER_URL=https://apm.example.com:8200",
        f"apm-server:\n  auth:\n    secret_token: \"{s}\"",
        f"> POST /intake/v2/events HTTP/1.1\n> Authorization: Bearer {s}\n> Content-Type: application/x-ndjson",
        f"elasticapm.conf: {{'SERVICE_NAME': 'orders', 'SECRET_TOKEN': '{s}', 'SERVER_URL': 'https://apm:8200'}}",
    )


def _elastic_api_key() -> tuple[str, str]:
    key_id, key = elastic_key()
    encoded = b64s(f"{key_id}:{key}")
    kind = _r.randint(0, 3)
    if kind == 0:
        return key, json.dumps({"id": key_id, "name": "fleet-agent", "api_key": key, "encoded": encoded})
    if kind == 1:
        return encoded, f"> GET /_cluster/health HTTP/1.1\n> Authorization: ApiKey {encoded}"
    if kind == 2:
        return encoded, f"output.elasticsearch:\n  hosts: [\"https://es.example.com:9200\"]\n  api_key: \"{encoded}\""
    return key, f"filebeat: api_key: \"{key_id}:{key}\""


def _dynatrace() -> tuple[str, str]:
    s = f"dt0c01.{rnd(24, UPPER_ALNUM)}.{rnd(64, UPPER_ALNUM)}"
    return s, pick(
        f"> POST /api/v2/metrics/ingest HTTP/1.1\n> Authorization: Api-Token {s}",
        f"{{\"name\": \"Authorization\", \"value\": \"Api-Token {s}\"}}",
        f"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Api-Token%20{s}",
    )


def _vendor_headers() -> tuple[str, str]:
    s = pick(tok(32, 48), rnd(40, HEX), uuid())
    h = pick("lightstep-access-token", "X-SF-Token", "x-honeycomb-team", "Coralogix-Api-Key", "x-scope-orgid-token", "X-Insert-Key", "api-token")
    return s, pick(
        f"> {h}: {s}",
        f"{{\"name\": \"{h}\", \"value\": \"{s}\"}}",
        f"    headers:\n      {h}: {s}",
        f"OTEL_EXPORTER_OTLP_HEADERS={h.lower()}={s}",
    )


def _local_storage() -> tuple[str, str]:
    s = pick(jwt(), tok(40, 64))
    k = pick("accessToken", "access_token", "authToken", "id_token", "refreshToken", "jwt", "token")
    return s, pick(
        json.dumps({"theme": "dark", "i18nextLng": "en", f"auth.{k}": s}),
        json.dumps({"persist:root": json.dumps({"auth": json.dumps({k: s, "user": {"id": 12}}), "_persist": json.dumps({"version": -1, "rehydrated": True})})}),
        f"> Object.entries(localStorage)\n< (3) [Array(2), Array(2), Array(2)]\n  0: (2) ['okta-token-storage', '{{\"accessToken\":{{\"{k}\":\"{s}\",\"tokenType\":\"Bearer\"}}}}']",
        f"> localStorage.getItem('{k}')\n< '{s}'",
    )


def _msal_session() -> tuple[str, str]:
    s = pick("0.A" + rnd(_r.randint(300, 400), B64URL), jwt())
    home = f"{uuid()}.{uuid()}"
    kind = pick("refreshtoken", "accesstoken", "idtoken")
    cred = {"refreshtoken": "RefreshToken", "accesstoken": "AccessToken", "idtoken": "IdToken"}[kind]
    return s, pick(
        json.dumps({f"{home}-login.windows.net-{kind}-{uuid()}----": json.dumps({"homeAccountId": home, "environment": "login.windows.net", "credentialType": cred, "clientId": uuid(), "secret": s})}),
        json.dumps({"credentialType": cred, "secret": s, "realm": uuid()}),
        f"sessionStorage['{home}-login.windows.net-{kind}-{uuid()}--'] = '{{\"credentialType\":\"{cred}\",\"secret\":\"{s}\"}}'",
    )


def _document_cookie() -> tuple[str, str]:
    s = pick(tok(32, 48), "s%3A" + rnd(32, B64URL) + "." + rnd(43, B64URL), rnd(64, HEX))
    name = pick("sessionid", "connect.sid", "PHPSESSID", "remember_token", "_app_session", "auth")
    return s, pick(
        f"> document.cookie\n< '_ga=GA1.1.{_r.randint(10**8, 10**9)}.{_r.randint(10**8, 10**9)}; theme=dark; {name}={s}'",
        f"document.cookie = \"{name}={s}; path=/; secure\"",
        f"Cookies: [{{name: '{name}', value: '{s}', domain: 'app.example.com', httpOnly: true}}]",
    )


def _indexeddb() -> tuple[str, str]:
    s = pick("AMf-vB" + rnd(_r.randint(180, 260), B64URL), jwt())
    return s, pick(
        json.dumps({"fbase_key": f"firebase:authUser:AIza{rnd(35, B64URL)}:[DEFAULT]", "value": {"uid": rnd(28, ALNUM), "email": "alice@example.com", "stsTokenManager": {"refreshToken": s, "accessToken": jwt(), "expirationTime": _r.randint(10**12, 2 * 10**12)}}}),
        f"IndexedDB firebaseLocalStorageDb › firebaseLocalStorage › stsTokenManager: {{refreshToken: \"{s}\", expirationTime: {_r.randint(10**12, 2 * 10**12)}}}",
        json.dumps({"key": "auth0spajs@@::web::default::openid profile", "body": {"refresh_token": s, "token_type": "Bearer"}}),
    )


def _security_cli() -> tuple[str, str]:
    p = pick(fpw(), tok(20, 40))
    return p, pick(
        f"keychain: \"/Users/alice/Library/Keychains/login.keychain-db\"\nversion: 512\nclass: \"genp\"\nattributes:\n    \"acct\"<blob>=\"deploy\"\n    \"svce\"<blob>=\"{pick('npm-registry', 'github.com', 'Acme VPN')}\"\npassword: \"{p}\"",
        f"$ security find-generic-password -a deploy -s npm-registry -w\n{p}",
        f"$ security find-internet-password -s github.com -w\n{p}\n$ echo done",
        f"attributes:\n    \"srvr\"<blob>=\"nexus.internal\"\npassword: \"{p}\"",
    )


def _secret_tool() -> tuple[str, str]:
    p = pick(fpw(), tok(20, 40))
    return p, pick(
        f"$ secret-tool search --all --unlock service smtp\n[/org/freedesktop/secrets/collection/login/{_r.randint(2, 40)}]\nlabel = SMTP relay\nsecret = {p}\ncreated = 2025-03-01 10:00:00\nattribute.service = smtp",
        f"$ secret-tool lookup service {pick('github', 'smtp', 'vpn')} user {user()}\n{p}",
        f"keyring.get_password('{pick('pypi', 'twine', 'aws')}', '{user()}') -> '{p}'",
    )


def _onepassword() -> tuple[str, str]:
    kind = _r.randint(0, 3)
    if kind == 3:
        s = "ops_" + b64u(json.dumps({"signInAddress": "acme.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256", "iterations": 650000, "salt": rnd(22, B64URL)}, "email": rnd(26, LOWER_ALNUM) + "@1passwordserviceaccounts.com", "srpX": rnd(64, HEX), "muk": {"alg": "A256GCM", "ext": True, "k": rnd(43, B64URL), "key_ops": ["encrypt", "decrypt"], "kty": "oct", "kid": "mp"}, "secretKey": "A3-" + rnd(6, UPPER_ALNUM) + "-" + rnd(26, UPPER_ALNUM), "throttleSecret": {"seed": rnd(64, HEX), "uuid": rnd(26, UPPER_ALNUM)}, "deviceUuid": rnd(26, LOWER_ALNUM)}).encode())
        return s, f"OP_SERVICE_ACCOUNT_TOKEN={s}"
    p = pick(fpw(), tok(24, 40), "sk_live_" + rnd(24, ALNUM))
    if kind == 0:
        return p, json.dumps({"id": rnd(26, LOWER_ALNUM), "title": "Stripe", "category": "API_CREDENTIAL", "fields": [{"id": "username", "type": "STRING", "label": "username", "value": "acme"}, {"id": "credential", "type": "CONCEALED", "purpose": "PASSWORD" if _r.random() < 0.3 else None, "label": "credential", "value": p}]}, indent=2)
    if kind == 1:
        return p, f"$ op read \"op://Private/Prod DB/password\"\n{p}"
    return p, f"$ op item get \"Prod DB\" --fields label=password --reveal\n{p}"


def _bitwarden() -> tuple[str, str]:
    kind = _r.randint(0, 2)
    if kind == 2:
        s = b64s(rnd(64, ALNUM))[:88]
        return s, pick(f"export BW_SESSION=\"{s}\"", f"$ bw unlock\n? Master password: [hidden]\nYour vault is now unlocked!\n\nTo unlock your vault, set your session key to the `BW_SESSION` environment variable. ex:\n$ export BW_SESSION=\"{s}\"")
    p = pick(fpw(), tok(24, 40))
    if kind == 0:
        return p, json.dumps({"object": "item", "id": uuid(), "type": 1, "name": "Prod DB", "login": {"username": "app", "password": p, "totp": None, "uris": [{"match": None, "uri": "postgres://db.internal"}]}})
    return p, json.dumps({"object": "item", "name": "Stripe", "fields": [{"name": "api key", "value": p, "type": 1, "linkedId": None}]})


def _pass_gopass() -> tuple[str, str]:
    p = pick(fpw(), tok(20, 32))
    return p, pick(
        f"$ pass show prod/db\n{p}\nusername: app\nurl: postgres://db.internal:5432/orders",
        f"$ gopass show -o websites/github.com/deploy\n{p}",
        f"$ gopass show ops/vpn\nSecret: ops/vpn\n\n{p}\nuser: ops",
        f"$ pass -c prod/db && pass prod/api\n{p}",
    )


def _keepass() -> tuple[str, str]:
    p = pick(fpw(), tok(20, 32))
    return p, pick(
        f"$ keepassxc-cli show -s vault.kdbx Prod/DB\nEnter password to unlock vault.kdbx:\nTitle: DB\nUserName: app\nPassword: {p}\nURL: postgres://db.internal\nNotes: ",
        f"<Entry><String><Key>Title</Key><Value>VPN</Value></String><String><Key>Password</Key><Value ProtectInMemory=\"True\">{p}</Value></String></Entry>",
        f"$ kpcli\nkpcli:/> show -f Prod/DB\nPath: /Prod/\nTitle: DB\nUname: app\n Pass: {p}",
    )


def _pm_csv() -> tuple[str, str]:
    p = pick(fpw(), tok(16, 28))
    u, site = user(), pick("github.com", "app.example.com", "vpn.acme.test")
    return p, pick(
        f"name,url,username,password,note\n{site},https://{site}/login,{u},{p},",
        f"\"Title\",\"Url\",\"Username\",\"Password\",\"OTPAuth\",\"Favorite\",\"Archived\",\"Tags\",\"Notes\"\n\"{site}\",\"https://{site}\",\"{u}\",\"{p}\",\"\",\"false\",\"false\",\"\",\"\"",
        f"url,username,password,totp,extra,name,grouping,fav\nhttps://{site},{u},{p},,,{site},Work,0",
        f"folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\nWork,,login,{site},,,0,https://{site},{u},{p},",
    )


def _totp() -> tuple[str, str]:
    s = totp_seed()
    return s, pick(
        f"otpauth://totp/Acme:alice%40example.com?secret={s}&issuer=Acme&algorithm=SHA1&digits=6&period=30",
        json.dumps({"login": {"username": "alice", "password": None, "totp": s}}),
        f"TOTP_SECRET={s}",
        f"[Authenticator] exported 1 account: {{issuer: 'AWS', account: 'root', secret: '{s}'}}",
    )


def _reg_export() -> tuple[str, str]:
    p = pick(fpw(), tok(16, 32))
    return p, pick(
        f"Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\prod]\n\"HostName\"=\"jump.example.com\"\n\"ProxyUsername\"=\"corp\\\\svc\"\n\"ProxyPassword\"=\"{p}\"",
        f"[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\n\"AutoAdminLogon\"=\"1\"\n\"DefaultUserName\"=\"kiosk\"\n\"DefaultPassword\"=\"{p}\"",
        f"[HKEY_CURRENT_USER\\Software\\Acme\\Sync]\n\"ServerUrl\"=\"https://sync.example.com\"\n\"ApiToken\"=\"{p}\"",
        f"[HKEY_CURRENT_USER\\Software\\Martin Prikryl\\WinSCP 2\\Sessions\\deploy@web]\n\"HostName\"=\"web.example.com\"\n\"UserName\"=\"deploy\"\n\"Password\"=\"{p}\"",
    )


def _cmdkey_netuse() -> tuple[str, str]:
    p = fpw()
    return p, pick(
        f"C:\\> cmdkey /generic:TERMSRV/rdp01.corp.example /user:CORP\\admin /pass:{p}\nCMDKEY: Credential added successfully.",
        f"C:\\> net use Z: \\\\files.corp.example\\share /user:CORP\\svc-backup {p} /persistent:no",
        f"C:\\> cmdkey /add:git:https://dev.azure.com /user:build /pass:{p}",
        f"runas /user:CORP\\admin \"cmd /c echo {p} | sqlcmd -S db -U sa -P {p}\"",
    )


def _netsh_wlan() -> tuple[str, str]:
    p = pick(fpw(), tok(12, 20))
    return p, pick(
        f"Security settings\n-----------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : {p}",
        f"network={{\n\tssid=\"Corp-Guest\"\n\tpsk=\"{p}\"\n\tkey_mgmt=WPA-PSK\n}}",
        f"[wifi-security]\nkey-mgmt=wpa-psk\npsk={p}",
        f"$ nmcli device wifi show-password\nSSID: Corp-IoT\nSecurity: WPA\nPassword: {p}",
    )


def _git_remote() -> tuple[str, str]:
    s = pick(f"ghs_{rnd(36, ALNUM)}", f"glpat-{rnd(20, ALNUM + '_-')}", fpw(), tok(32, 40))
    u = pick("x-access-token", "oauth2", "gitlab-ci-token", "deploy", "x-token-auth")
    host = pick("github.com/acme/app.git", "gitlab.example.com/acme/app.git", "bitbucket.org/acme/app.git", "dev.azure.com/acme/app/_git/app")
    return s, pick(
        f"$ git remote -v\norigin\thttps://{u}:{s}@{host} (fetch)\norigin\thttps://{u}:{s}@{host} (push)",
        f"remote.origin.url=https://{u}:{s}@{host}",
        f"fatal: unable to access 'https://{u}:{s}@{host}/': The requested URL returned error: 403",
        f"Cloning into 'app'...\nremote: Invalid username or password.\nfatal: Authentication failed for 'https://{u}:{s}@{host}/'",
    )


def _git_extraheader() -> tuple[str, str]:
    tokn = pick(f"ghs_{rnd(36, ALNUM)}", tok(32, 40))
    kind = _r.randint(0, 3)
    if kind == 0:
        s = b64s(f"x-access-token:{tokn}")
        return s, f"$ git config -l\ncore.repositoryformatversion=0\nremote.origin.url=https://github.com/acme/app\nhttp.https://github.com/.extraheader=AUTHORIZATION: basic {s}"
    if kind == 1:
        return tokn, f"git -c http.extraHeader=\"Authorization: Bearer {tokn}\" clone https://dev.azure.com/acme/app/_git/app"
    if kind == 2:
        s = b64s(f"pat:{tokn}")
        return s, f"[http \"https://dev.azure.com/\"]\n\textraheader = AUTHORIZATION: Basic {s}"
    return tokn, f"git config --global http.https://gitlab.example.com/.extraheader \"PRIVATE-TOKEN: {tokn}\""


def _git_credential() -> tuple[str, str]:
    p = pick(f"ghp_{rnd(36, ALNUM)}", fpw(), tok(24, 40))
    return p, pick(
        f"$ printf 'protocol=https\\nhost=github.com\\n' | git credential fill\nprotocol=https\nhost=github.com\nusername={user()}\npassword={p}",
        f"10:00:00.000000 git.c:460               trace: built-in: git credential-store get\nprotocol=https\nhost=gitlab.example.com\nusername=oauth2\npassword={p}",
        f"$ cat ~/.git-credentials\nhttps://{user()}:{p}@github.com",
        f"credential-cache--daemon: stored https://{user()}@github.com password={p}",
    )


def _git_trace_curl() -> tuple[str, str]:
    scheme = pick("Basic", "token")
    s = basic() if scheme == "Basic" else f"ghs_{rnd(36, ALNUM)}"
    head = f"Authorization: {scheme} {s}"
    return s, pick(
        f"10:00:0{_r.randint(0, 9)}.123456 http.c:{_r.randint(600, 900)}              => Send header, 0000000{_r.randint(100, 400)} bytes (0x{rnd(8, HEX)})\n10:00:0{_r.randint(0, 9)}.123456 http.c:{_r.randint(600, 900)}              => Send header: GET /acme/app.git/info/refs?service=git-upload-pack HTTP/1.1\n10:00:0{_r.randint(0, 9)}.123456 http.c:{_r.randint(600, 900)}              => Send header: {head}",
        f"=> Send header: {head}\n=> Send header: Git-Protocol: version=2",
        f"18:02:11.120921 http.c:756              => Send header: {head}",
    )


def _pip_poetry() -> tuple[str, str]:
    p = pick(fpw(), tok(24, 40))
    return p, pick(
        f"+ poetry config http-basic.private {user()} {p}",
        f"+ pip install --index-url https://{user()}:{p}@pypi.internal.example/simple acme-core==2.1.0",
        f"POETRY_HTTP_BASIC_PRIVATE_PASSWORD={p}",
        f"+ uv pip install --extra-index-url https://__token__:{p}@gitlab.example.com/api/v4/projects/12/packages/pypi/simple acme",
    )


def _maven_nuget() -> tuple[str, str]:
    p = pick(fpw(), tok(24, 40), f"ghp_{rnd(36, ALNUM)}")
    return p, pick(
        f"[DEBUG] Reading user settings from /home/ci/.m2/settings.xml\n<server>\n  <id>nexus-releases</id>\n  <username>deploy</username>\n  <password>{p}</password>\n</server>",
        f"+ mvn -B deploy -Dnexus.password={p} -DskipTests",
        f"+ dotnet nuget add source https://nuget.pkg.github.com/acme/index.json --name github --username ci --password {p} --store-password-in-clear-text",
        f"+ ./gradlew publish -PmavenPassword={p} -PmavenUser=deploy",
    )


def _composer_cargo() -> tuple[str, str]:
    kind = _r.randint(0, 3)
    if kind == 0:
        s = f"ghp_{rnd(36, ALNUM)}"
        return s, json.dumps({"github-oauth": {"github.com": s}})
    if kind == 1:
        s = tok(32, 40)
        return s, json.dumps({"bearer": {"repo.packagist.example.com": s}})
    if kind == 2:
        s = f"cio{rnd(32, ALNUM)}"
        return s, pick(f"+ cargo login {s}", f"+ cargo publish --token {s}")
    s = f"glpat-{rnd(20, ALNUM + '_-')}"
    return s, json.dumps({"gitlab-token": {"gitlab.example.com": s}})


def _npm_yarn_logs() -> tuple[str, str]:
    s = pick(f"npm_{rnd(36, ALNUM)}", tok(32, 40))
    return s, pick(
        f"+ npm config set //npm.pkg.github.com/:_authToken {s}",
        f"+ yarn config set npmAuthToken {s}",
        f"npm verb config set //registry.example.com/:_authToken={s}",
        f"+ pnpm publish --//registry.npmjs.org/:_authToken={s}",
    )


def _okhttp_logcat() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48))
    return s, pick(
        f"{logcat('OkHttp')}--> GET https://api.example.com/v1/feed\n{logcat('OkHttp')}Authorization: Bearer {s}\n{logcat('OkHttp')}--> END GET",
        f"{logcat('okhttp.OkHttpClient', 'I')}x-api-key: {s}",
        f"{logcat('Retrofit')}<-- 200 https://auth.example.com/oauth/token (212ms)\n{logcat('Retrofit')}{{\"access_token\":\"{s}\",\"token_type\":\"bearer\",\"expires_in\":3600}}",
        f"{logcat('AuthRepository')}saved token={s}",
    )


def _logcat_login() -> tuple[str, str]:
    p = fpw()
    return p, pick(
        f"{logcat('OkHttp')}{{\"email\":\"alice@example.com\",\"password\":\"{p}\"}}",
        f"{logcat('LoginViewModel', 'V')}login(email=alice@example.com, password={p})",
        f"{logcat('chromium', 'I')}[INFO:CONSOLE(12)] \"login payload {{\"user\":\"alice\",\"pass\":\"{p}\"}}\", source: https://app.example.com/main.js (12)",
    )


def _ios_console() -> tuple[str, str]:
    s = pick(bearer(), tok(32, 48))
    return s, pick(
        f"{ios()}[Network] Request headers: [\"Accept\": \"application/json\", \"Authorization\": \"Bearer {s}\"]",
        f"{ios()}token: Optional(\"{s}\")",
        f"{ios()}<NSHTTPCookie version:1 name:session value:{s} expiresDate:'2025-04-01 10:00:00 +0000' created:'2025-03-01 10:00:00 +0000' sessionOnly:FALSE domain:api.example.com partition:none sameSite:lax path:/ isSecure:TRUE isHTTPOnly:TRUE>",
        f"{ios()}KeychainHelper.save(key: \"refreshToken\", value: \"{s}\")",
    )


def _websocket() -> tuple[str, str]:
    s = pick(jwt(), tok(32, 48))
    return s, pick(
        f"> {{\"type\":\"connection_init\",\"payload\":{{\"Authorization\":\"Bearer {s}\"}}}}\n< {{\"type\":\"connection_ack\"}}",
        f"[\"1\",\"1\",\"room:lobby\",\"phx_join\",{{\"token\":\"{s}\"}}]",
        f"42[\"authenticate\",{{\"token\":\"{s}\"}}]",
        f"Connected (press CTRL+C to quit)\n> {{\"op\":2,\"d\":{{\"token\":\"{s}\",\"intents\":513,\"properties\":{{\"os\":\"linux\"}}}}}}",
    )


def _graphql() -> tuple[str, str]:
    p = pick(fpw(), tok(24, 40))
    return p, pick(
        f"mutation {{\n  login(email: \"alice@example.com\", password: \"{p}\") {{\n    token\n  }}\n}}",
        json.dumps({"operationName": "Login", "variables": {"input": {"email": "alice@example.com", "password": p}}, "query": "mutation Login($input: LoginInput!) { login(input: $input) { token } }"}),
        f"GraphQL error: Variable \"$apiKey\" got invalid value \"{p}\"; Expected type \"UUID\".",
        json.dumps({"Authorization": f"Bearer {p}"}),
    )


def _aws_headers() -> tuple[str, str]:
    s = "IQoJb3JpZ2luX2VjE" + rnd(_r.randint(280, 360), B64)
    kind = _r.randint(0, 2)
    if kind == 0:
        return s, f"{{\"name\": \"x-amz-security-token\", \"value\": \"{s}\"}}"
    if kind == 1:
        return s, f"> X-Amz-Security-Token: {s}\n> X-Amz-Date: 20250301T100000Z"
    s = quote(s, safe="")  # a presigned URL carries it percent-encoded
    return s, f"https://bucket.s3.eu-west-1.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Security-Token={s}&X-Amz-Signature={rnd(64, HEX)}"


def _oauth_capture() -> tuple[str, str]:
    kind = _r.randint(0, 2)
    if kind == 0:
        s = rnd(_r.randint(32, 64), B64URL)
        return s, f"\"url\": \"https://app.example.com/callback?code={s}&state={rnd(16, ALNUM)}\""
    if kind == 1:
        s = rnd(40, B64URL)
        return s, f"Location: https://app.example.com/#access_token={s}&token_type=Bearer&expires_in=3600"
    s = tok(32, 48)
    return s, f"\"text\": \"grant_type=refresh_token&refresh_token={s}&client_id=web\""


CAPTURED_SECRETS: list[tuple[str, str, Maker]] = [
    # -- HAR ---------------------------------------------------------------------------------------
    ("har_request_authorization", "json", one(
        bearer,
        lambda s: har_entry([*_pub_headers(), ("authorization", f"Bearer {s}")]),
        lambda s: har_header("Authorization", f"Bearer {s}"),
        lambda s: f'"headers": [{{"name": "Host", "value": "api.example.com"}}, {{"name": "Authorization", "value": "Bearer {s}"}}]',
        lambda s: har_entry([("Authorization", f"token {s}")], method="POST"),
    )),
    ("har_request_api_key_header", "json", one(
        lambda: pick(tok(32, 48), rnd(40, HEX), uuid()),
        lambda s: har_header(pick("x-api-key", "X-API-KEY", "apikey", "api-key"), s),
        lambda s: har_header(pick("X-Auth-Token", "x-access-token", "X-Session-Token", "x-csrf-token-secret"), s),
        lambda s: har_entry([*_pub_headers(), (pick("x-api-key", "Ocp-Apim-Subscription-Key", "x-functions-key"), s)]),
    )),
    ("har_cookies", "json", _har_cookie),
    ("har_set_cookie", "json", one(
        lambda: pick(tok(32, 48), rnd(64, HEX), jwt()),
        lambda s: har_header("set-cookie", f"__Host-session={s}; Path=/; Secure; HttpOnly; SameSite=Lax"),
        lambda s: json.dumps({"response": {"status": 302, "headers": [{"name": "Location", "value": "/dashboard"}, {"name": "Set-Cookie", "value": f"auth_token={s}; Max-Age=86400; Path=/"}]}}),
        lambda s: f'"cookies": [{{"name": "jwt", "value": "{s}", "httpOnly": true, "secure": true, "sameSite": "Strict"}}]',
    )),
    ("har_postdata_params", "json", _har_postdata),
    ("har_escaped_json_text", "json", _har_json_text),
    ("har_querystring", "json", _har_querystring),
    ("har_amz_security_token", "json", _aws_headers),
    ("oauth_flow_capture", "json", _oauth_capture),
    # -- curl / httpie / wget / packet captures / proxies ------------------------------------------
    ("curl_verbose_basic", "log", _curl_v_basic),
    ("curl_verbose_bearer", "log", one(
        bearer,
        lambda s: f"> GET /v1/me HTTP/2\n> Host: api.example.com\n> authorization: Bearer {s}\n> user-agent: curl/8.5.0\n>\n< HTTP/2 401",
        lambda s: f"> POST /api/v1/jobs HTTP/1.1\r\n> Authorization: Bearer {s}\r\n> Content-Type: application/json\r\n",
        lambda s: f"+ curl -sS --oauth2-bearer {s} https://api.example.com/v1/me",
        lambda s: f"> Authorization: Token token=\"{s}\"\n> Accept: application/vnd.api+json",
    )),
    ("curl_trace_ascii", "log", _curl_trace),
    ("curl_verbose_other_headers", "log", _curl_headers_out),
    ("httpie", "log", _httpie),
    ("wget_debug", "log", _wget_debug),
    ("tcpdump_ascii", "log", _tcpdump_ascii),
    ("tshark_verbose", "log", _tshark_v),
    ("mitmproxy_flows", "log", _mitmproxy),
    ("charles_fiddler_exports", "log", _charles_fiddler),
    ("ntlm_authenticate", "header", _ntlm),
    ("burp_zap_requests", "log", _burp),
    # -- API clients -------------------------------------------------------------------------------
    ("postman_environment", "json", _postman_env),
    ("postman_auth_arrays", "json", _postman_auth),
    ("postman_api_key", "log", _postman_api_key),
    ("insomnia_export", "json", _insomnia),
    ("bruno_bru", "log", _bruno),
    ("vscode_rest_client", "log", _rest_client),
    ("ide_http_client_env", "json", _ide_http_env),
    # -- recorded fixtures -------------------------------------------------------------------------
    ("vcrpy_cassette", "log", _vcrpy),
    ("ruby_vcr_cassette", "log", _ruby_vcr),
    ("polly_nock_recordings", "json", _polly_nock),
    # -- OpenTelemetry and observability vendors ----------------------------------------------------
    ("otel_headers_env", "log", _otel_env),
    ("otel_collector_headers", "log", _otel_collector),
    ("otel_sdk_debug_headers", "log", _otel_sdk_log),
    ("datadog_api_key", "log", _datadog_api),
    ("datadog_app_key", "log", _datadog_app),
    ("splunk_hec_token", "log", _splunk_hec),
    ("newrelic_keys", "log", _newrelic),
    ("grafana_cloud_tokens", "log", _grafana_cloud),
    ("prometheus_auth_config", "log", _prometheus_auth),
    ("sentry_secrets", "log", _sentry),
    ("logzio_token", "log", _logzio),
    ("elastic_apm_secret_token", "log", _elastic_apm),
    ("elastic_api_key", "log", _elastic_api_key),
    ("dynatrace_api_token", "header", _dynatrace),
    ("vendor_ingest_headers", "header", _vendor_headers),
    # -- browser storage ---------------------------------------------------------------------------
    ("local_storage_dump", "json", _local_storage),
    ("msal_session_storage", "json", _msal_session),
    ("document_cookie", "log", _document_cookie),
    ("indexeddb_tokens", "json", _indexeddb),
    # -- keychains and password managers -------------------------------------------------------------
    ("macos_security_cli", "log", _security_cli),
    ("secret_tool_keyring", "log", _secret_tool),
    ("onepassword_cli", "json", _onepassword),
    ("bitwarden_cli", "json", _bitwarden),
    ("pass_gopass", "log", _pass_gopass),
    ("keepass_exports", "log", _keepass),
    ("password_manager_csv", "log", _pm_csv),
    ("totp_seeds", "log", _totp),
    # -- Windows -----------------------------------------------------------------------------------
    ("windows_reg_export", "log", _reg_export),
    ("cmdkey_net_use", "log", _cmdkey_netuse),
    ("wifi_profiles", "log", _netsh_wlan),
    # -- git and package managers --------------------------------------------------------------------
    ("git_remote_urls", "log", _git_remote),
    ("git_extraheader", "log", _git_extraheader),
    ("git_credential_protocol", "log", _git_credential),
    ("git_trace_curl", "log", _git_trace_curl),
    ("pip_poetry_auth", "log", _pip_poetry),
    ("maven_nuget_gradle_auth", "log", _maven_nuget),
    ("composer_cargo_tokens", "json", _composer_cargo),
    ("npm_yarn_auth_commands", "log", _npm_yarn_logs),
    # -- mobile logs, sockets, GraphQL ---------------------------------------------------------------
    ("android_okhttp_logcat", "log", _okhttp_logcat),
    ("android_logcat_login", "log", _logcat_login),
    ("ios_console", "log", _ios_console),
    ("websocket_frames", "log", _websocket),
    ("graphql_arguments", "json", _graphql),
]


# --- benign -----------------------------------------------------------------------------------

CAPTURED_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("har_public_headers", "json", lambda: pick(
        har_header("Content-Type", "application/json; charset=utf-8"),
        har_header("accept-encoding", "gzip, deflate, br, zstd"),
        har_header("sec-ch-ua", "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\""),
        har_entry(_pub_headers()),
        har_header("strict-transport-security", "max-age=63072000; includeSubDomains; preload"),
        har_header("access-control-allow-headers", "Authorization, X-Api-Key, Content-Type"),
    )),
    ("har_redacted_values", "json", lambda: pick(
        har_header("Authorization", "[REDACTED]"),
        har_header("cookie", "<hidden>"),
        har_header("X-Api-Key", "********"),
        '"cookies": [{"name": "sessionid", "value": "", "httpOnly": true}]',
        '"params": [{"name": "password", "value": "[FILTERED]"}]',
        har_header("authorization", "Bearer <redacted>"),
    )),
    ("har_timings_and_meta", "json", lambda: pick(
        json.dumps({"timings": {"blocked": round(_r.uniform(0, 5), 3), "dns": -1, "ssl": round(_r.uniform(5, 30), 3), "connect": round(_r.uniform(5, 40), 3), "send": 0.2, "wait": round(_r.uniform(20, 400), 3), "receive": 1.1}}),
        json.dumps({"pageref": f"page_{_r.randint(1, 9)}", "serverIPAddress": f"203.0.113.{_r.randint(2, 250)}", "connection": str(_r.randint(1000, 99999)), "_resourceType": "fetch"}),
        json.dumps({"creator": {"name": "WebInspector", "version": "537.36"}, "pages": [{"id": "page_1", "title": "https://app.example.com/", "startedDateTime": ts_ms()}]}),
        json.dumps({"_initiator": {"type": "script", "stack": {"callFrames": [{"functionName": "fetchJson", "url": "https://app.example.com/static/js/main.8c1d2e.js", "lineNumber": 1, "columnNumber": _r.randint(1000, 90000)}]}}}),
        json.dumps({"response": {"status": 200, "statusText": "", "httpVersion": "h3", "content": {"size": _r.randint(100, 9000), "mimeType": "application/json"}, "redirectURL": "", "_transferSize": _r.randint(100, 9000)}}),
    )),
    ("postman_references", "json", lambda: pick(
        json.dumps({"key": "Authorization", "value": "Bearer {{accessToken}}", "type": "text"}),
        json.dumps({"key": "apiKey", "value": "", "type": "secret", "enabled": True}),
        json.dumps({"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{bearerToken}}", "type": "string"}]}}),
        json.dumps({"listen": "test", "script": {"exec": ["const data = pm.response.json();", "pm.environment.set(\"token\", data.access_token);"], "type": "text/javascript"}}),
        json.dumps({"key": "password", "value": "{{adminPassword}}", "type": "default"}),
    )),
    ("postman_collection_meta", "json", lambda: pick(
        json.dumps({"info": {"_postman_id": uuid(), "name": "Orders API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json", "_exporter_id": str(_r.randint(10**7, 10**8))}}),
        json.dumps({"key": "baseUrl", "value": "https://api.example.com", "type": "default", "enabled": True}),
        json.dumps({"id": uuid(), "name": "staging", "_postman_variable_scope": "environment", "_postman_exported_at": ts_ms(), "_postman_exported_using": "Postman/11.2.0"}),
        json.dumps({"auth": {"type": "noauth"}, "url": {"raw": "{{baseUrl}}/orders?limit=20", "host": ["{{baseUrl}}"], "path": ["orders"]}}),
        json.dumps({"key": "tokenUrl", "value": "https://auth.example.com/oauth/token", "type": "string"}),
    )),
    ("http_file_references", "log", lambda: pick(
        "GET {{baseUrl}}/orders\nAuthorization: Bearer {{token}}",
        "# @name login\nPOST {{baseUrl}}/login\n\n###\n@token = {{login.response.body.$.access_token}}",
        "@baseUrl = https://api.example.com\n@contentType = application/json",
        "X-Api-Key: {{$dotenv API_KEY}}",
        "Authorization: Bearer {{$processEnv GITHUB_TOKEN}}",
        "auth:bearer {\n  token: {{accessToken}}\n}",
    )),
    ("etags_and_cache", "header", lambda: pick(
        f"ETag: W/\"{rnd(32, HEX)}\"",
        f"If-None-Match: \"{b64u(_r.randbytes(20))}\"",
        f"< etag: \"{rnd(8, HEX)}-{rnd(16, HEX)}\"\n< cache-control: public, max-age=300",
        f"{{\"name\": \"etag\", \"value\": \"\\\"{rnd(40, HEX)}\\\"\"}}",
        f"X-Cache-Key: /static/app.{rnd(8, HEX)}.js\ncf-cache-status: HIT\nage: {_r.randint(1, 900)}",
    )),
    ("request_ids", "header", lambda: pick(
        f"x-amzn-RequestId: {uuid()}",
        f"X-Amz-Cf-Id: {rnd(56, B64URL)}==",
        f"cf-ray: {rnd(16, HEX)}-{pick('FRA', 'AMS', 'IAD')}",
        f"x-github-request-id: {rnd(4, HEX).upper()}:{rnd(5, HEX).upper()}:{rnd(7, HEX).upper()}:{rnd(7, HEX).upper()}:{rnd(8, HEX).upper()}",
        f"{{\"name\": \"x-request-id\", \"value\": \"{uuid()}\"}}",
        f"X-Correlation-ID: req_{rnd(24, ALNUM)}",
    )),
    ("trace_context", "header", lambda: pick(
        f"traceparent: 00-{rnd(32, HEX)}-{rnd(16, HEX)}-01",
        f"tracestate: dd=s:1;o:rum;t.dm:-0,rojo={rnd(16, HEX)}",
        f"sentry-trace: {rnd(32, HEX)}-{rnd(16, HEX)}-1\nbaggage: sentry-environment=production,sentry-public_key={rnd(32, HEX)},sentry-trace_id={rnd(32, HEX)},sentry-sample_rate=0.1",
        f"X-Amzn-Trace-Id: Root=1-{rnd(8, HEX)}-{rnd(24, HEX)};Parent={rnd(16, HEX)};Sampled=1",
        f"uber-trace-id: {rnd(16, HEX)}:{rnd(16, HEX)}:0:1\nX-B3-TraceId: {rnd(32, HEX)}",
        f"{{\"name\": \"x-cloud-trace-context\", \"value\": \"{rnd(32, HEX)}/{_r.randint(10**17, 10**18)};o=1\"}}",
    )),
    ("public_client_keys", "log", lambda: pick(
        f"Sentry.init({{ dsn: \"https://{rnd(32, HEX)}@o{_r.randint(10000, 999999)}.ingest.sentry.io/{_r.randint(1000, 9999999)}\" }});",
        f"datadogRum.init({{ applicationId: '{uuid()}', clientToken: 'pub{rnd(32, HEX)}', site: 'datadoghq.eu' }})",
        f"posthog.init('phc_{rnd(43, ALNUM)}', {{ api_host: 'https://eu.posthog.com' }})",
        f"NEXT_PUBLIC_SENTRY_DSN=https://{rnd(32, HEX)}@o{_r.randint(10000, 999999)}.ingest.de.sentry.io/{_r.randint(1000, 9999999)}",
        f"<script src=\"https://js.stripe.com/v3/\"></script>\nconst stripe = Stripe('pk_live_{rnd(24, ALNUM)}');",
    )),
    ("hashes_named", "header", lambda: pick(
        f"x-amz-content-sha256: {sha(64)}",
        f"Content-Digest: sha-256=:{base64.b64encode(_r.randbytes(32)).decode()}:",
        f"Digest: SHA-256={base64.b64encode(_r.randbytes(32)).decode()}",
        f"{{\"name\": \"x-goog-hash\", \"value\": \"crc32c={base64.b64encode(_r.randbytes(4)).decode()},md5={base64.b64encode(_r.randbytes(16)).decode()}\"}}",
        f"\"sha1\": \"{sha(40)}\", \"size\": {_r.randint(1000, 10**7)}",
    )),
    ("csp_nonces_and_sri", "header", lambda: pick(
        f"content-security-policy: script-src 'nonce-{base64.b64encode(_r.randbytes(16)).decode()}' 'strict-dynamic'; object-src 'none'",
        f"<script nonce=\"{base64.b64encode(_r.randbytes(16)).decode()}\" src=\"/static/app.js\"></script>",
        f"<link rel=\"stylesheet\" href=\"https://cdn.example.com/app.css\" integrity=\"sha384-{base64.b64encode(_r.randbytes(48)).decode()}\" crossorigin=\"anonymous\">",
        f"< sec-websocket-accept: {base64.b64encode(_r.randbytes(20)).decode()}",
        f"{{\"name\": \"Content-Security-Policy\", \"value\": \"default-src 'self'; script-src 'self' 'sha256-{base64.b64encode(_r.randbytes(32)).decode()}'\"}}",
    )),
    ("consent_and_pref_cookies", "header", lambda: pick(
        f"Cookie: _ga=GA1.1.{_r.randint(10**8, 10**9)}.{_r.randint(1_700_000_000, 1_760_000_000)}; _gid=GA1.1.{_r.randint(10**8, 10**9)}.{_r.randint(1_700_000_000, 1_760_000_000)}; theme=dark",
        "Set-Cookie: OptanonConsent=isGpcEnabled=0&datestamp=Sat+Mar+01+2025&version=202401.1.0&groups=C0001%3A1%2CC0002%3A0; Path=/; Max-Age=31536000",
        f"> document.cookie\n< 'cookieconsent_status=dismiss; lang=en-US; _fbp=fb.1.{_r.randint(10**12, 2 * 10**12)}.{_r.randint(10**8, 10**9)}'",
        f"\"cookies\": [{{\"name\": \"ajs_anonymous_id\", \"value\": \"{uuid()}\"}}, {{\"name\": \"tz\", \"value\": \"Europe%2FBerlin\"}}]",
        "Set-Cookie: locale=de; Path=/; SameSite=Lax",
    )),
    ("curl_transcripts_no_credentials", "log", lambda: pick(
        f"*   Trying 203.0.113.{_r.randint(2, 250)}:443...\n* Connected to api.example.com (203.0.113.7) port 443\n* ALPN: curl offers h2,http/1.1\n* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS",
        "> GET /healthz HTTP/2\n> Host: api.example.com\n> User-Agent: curl/8.5.0\n> Accept: */*\n>\n< HTTP/2 200",
        "< HTTP/2 401\n< www-authenticate: Bearer realm=\"api\", error=\"invalid_token\"\n< content-type: application/json",
        "* Server certificate:\n*  subject: CN=api.example.com\n*  start date: Mar  1 00:00:00 2025 GMT\n*  issuer: C=US; O=Let's Encrypt; CN=R11",
        f"== Info: Connected to example.com (93.184.216.34) port 80\n=> Send header, 75 bytes (0x4b)\n0000: GET / HTTP/1.1\n0010: Host: example.com\n0023: User-Agent: curl/8.5.0\n<= Recv data, {_r.randint(100, 999)} bytes",
    )),
    ("packet_dumps_benign", "log", lambda: pick(
        f"10:00:00.{_r.randint(100000, 999999)} IP 10.0.0.5.{_r.randint(30000, 60000)} > 10.0.0.9.443: Flags [S], seq {_r.randint(10**8, 10**9)}, win 64240, options [mss 1460,sackOK,TS val {_r.randint(10**8, 10**9)} ecr 0,nop,wscale 7], length 0",
        f"\t0x0000:  4500 003c {rnd(4, HEX)} 4000 4006 {rnd(4, HEX)} 0a00 0005  E..<..@.@.......\n\t0x0010:  0a00 0009 {rnd(4, HEX)} 01bb {rnd(4, HEX)} {rnd(4, HEX)} 0000 0000  ................",
        f"Frame {_r.randint(1, 999)}: {_r.randint(60, 1500)} bytes on wire ({_r.randint(480, 12000)} bits)\nTransmission Control Protocol, Src Port: 443, Dst Port: {_r.randint(30000, 60000)}, Seq: 1, Ack: 1, Len: 0\n    [Stream index: {_r.randint(0, 40)}]",
        f"    Handshake Protocol: Client Hello\n        Random: {rnd(64, HEX)}\n        Cipher Suites Length: 34\n        Extension: server_name (len=20) name=api.example.com\n    [JA3: {rnd(32, HEX)}]",
        "    Form item: \"remember_me\" = \"on\"\n        Key: remember_me\n        Value: on\n    [Full request URI: http://10.0.0.9/login?next=%2Fdashboard]",
    )),
    ("proxy_tool_logs_benign", "log", lambda: pick(
        f"[10:0{_r.randint(0, 9)}:11.482][127.0.0.1:52144] client connect\n[10:0{_r.randint(0, 9)}:11.490][127.0.0.1:52144] server connect api.example.com:443 (203.0.113.7:443)",
        f"127.0.0.1:52144: GET https://example.com/ HTTP/2.0\n     << HTTP/2.0 200 OK {_r.randint(1, 90)}.{_r.randint(1, 9)}k",
        "mitmdump --set block_global=false --set stream_large_bodies=1m -s addons/filter.py",
        f"Session #{_r.randint(10, 400)}: 200 https://cdn.example.com/static/app.css ({_r.randint(1, 90)} KB)",
        "Charles: SSL Proxying enabled for *:443\nCharles: Recording started",
    )),
    ("vcr_filtered", "log", lambda: pick(
        "    headers:\n      Authorization:\n      - <API_KEY>\n      Accept:\n      - application/json",
        "    headers:\n      Authorization:\n      - Bearer <GITHUB_TOKEN>",
        "  recorded_at: Sat, 01 Mar 2025 10:00:00 GMT\nrecorded_with: VCR 6.2.0",
        "interactions:\n- request:\n    body: null\n    headers:\n      Accept:\n      - '*/*'\n    method: GET\n    uri: https://api.example.com/v1/items?page=2",
        "my_vcr = vcr.VCR(filter_headers=['authorization', 'x-api-key'], filter_query_parameters=['api_key'])",
    )),
    ("otel_config_benign", "log", lambda: pick(
        "OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318\nOTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
        "OTEL_RESOURCE_ATTRIBUTES=service.name=checkout,service.version=1.4.2,deployment.environment=prod",
        "OTEL_EXPORTER_OTLP_HEADERS=x-scope-orgid=tenant-1",
        "exporters:\n  otlphttp:\n    endpoint: https://otlp.example.com\n    headers:\n      Authorization: \"Bearer ${env:GRAFANA_CLOUD_TOKEN}\"",
        "extensions:\n  basicauth/grafana:\n    client_auth:\n      username: ${env:GRAFANA_INSTANCE_ID}\n      password: ${env:GRAFANA_CLOUD_API_KEY}",
        "exporters:\n  datadog:\n    api:\n      site: datadoghq.eu\n      key: ${env:DD_API_KEY}",
    )),
    ("observability_ids", "log", lambda: pick(
        f"dd.trace_id={_r.randint(10**18, 9 * 10**18)} dd.span_id={_r.randint(10**18, 9 * 10**18)} dd.service=orders dd.env=prod",
        f"entity.guid: {b64s(f'{_r.randint(1000000, 9999999)}|APM|APPLICATION|{_r.randint(10**8, 10**9)}')}",
        f"{{\"index\": \"main\", \"sourcetype\": \"_json\", \"host\": \"web-{_r.randint(1, 9)}\", \"time\": {_r.randint(1_700_000_000, 1_760_000_000)}.{_r.randint(100, 999)}}}",
        f"DD_SITE=datadoghq.eu DD_ENV=prod DD_SERVICE=orders DD_VERSION={_r.randint(1, 9)}.{_r.randint(0, 20)}.0",
        f"Sentry event {rnd(32, HEX)} sent (level=error, release=orders@1.{_r.randint(0, 40)}.0)",
        f"API Key ending with: {rnd(5, HEX)}\n  API key status: API Key valid",
    )),
    ("masked_manager_outputs", "log", lambda: pick(
        "password:    [use 'op item get 4h2k3j5l6m7n8p9q --reveal' to reveal]",
        json.dumps({"object": "item", "name": "Prod DB", "login": {"username": "app", "password": None, "totp": None}}),
        "Target: LegacyGeneric:target=git:https://github.com\nType: Generic\nUser: x-access-token\nLocal machine persistence",
        "Password Store\n├── prod\n│   ├── db\n│   └── api\n└── websites\n    └── github.com",
        "    Security key           : Present\n    Key Content            : ********",
        "Title: DB\nUserName: app\nPassword: PROTECTED\nURL: postgres://db.internal",
    )),
    ("keychain_listing", "log", lambda: pick(
        "keychain: \"/Library/Keychains/System.keychain\"\nversion: 512\nclass: \"genp\"\nattributes:\n    \"svce\"<blob>=\"com.apple.wifi.sync\"",
        f"    \"cdat\"<timedate>=0x{b'20250301100000Z'.hex().upper()}00  \"20250301100000Z\\000\"",
        "    0x00000007 <blob>=\"Slack Safe Storage\"\n    \"acct\"<blob>=\"Slack Key\"",
        f"[/org/freedesktop/secrets/collection/login/{_r.randint(2, 40)}]\nlabel = Chrome Safe Storage\ncreated = 2025-03-01 10:00:00\nattribute.application = chrome",
        "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.",
    )),
    ("git_benign", "log", lambda: pick(
        "$ git remote -v\norigin\tgit@github.com:acme/app.git (fetch)\norigin\tgit@github.com:acme/app.git (push)",
        "origin\thttps://github.com/acme/app.git (fetch)\nupstream\thttps://gitlab.example.com/acme/app.git (fetch)",
        f"credential.helper=osxkeychain\nuser.signingkey={rnd(16, HEX).upper()}\ncommit.gpgsign=true",
        "http.https://github.com/.extraheader=AUTHORIZATION: basic ***",
        f"{_r.randint(10, 23)}:02:11.120921 http.c:756              => Send header: Authorization: Basic <redacted>",
        f"Updating {sha(7)}..{sha(7)}\nFast-forward\n src/auth/token.py | 4 ++--",
    )),
    ("package_logs_benign", "log", lambda: pick(
        f"npm http fetch GET 200 https://registry.npmjs.org/lodash {_r.randint(10, 300)}ms (cache hit)",
        "Looking in indexes: https://__token__:****@gitlab.example.com/api/v4/projects/12/packages/pypi/simple",
        "[DEBUG] Using connector BasicRepositoryConnector with priority 0.0 for https://nexus.example.com/repository/releases/ with username=deploy, password=***",
        f"yarn install v1.22.{_r.randint(10, 22)}\n[1/4] Resolving packages...\n[2/4] Fetching packages...",
        "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access",
        f"    Updating crates.io index\n  Downloaded serde v1.0.{_r.randint(100, 219)}",
    )),
    ("mobile_logs_benign", "log", lambda: pick(
        f"{logcat('OkHttp')}--> GET https://api.example.com/v1/feed\n{logcat('OkHttp')}Authorization: ██\n{logcat('OkHttp')}--> END GET",
        f"{logcat('ActivityManager', 'I')}Start proc {_r.randint(2000, 9999)}:com.acme.app/u0a{_r.randint(100, 400)} for activity {{com.acme.app/com.acme.app.MainActivity}}",
        f"{ios()}[Network] Request headers: <private>",
        f"{ios()}nw_connection_report_state_with_handler_on_nw_queue [C{_r.randint(1, 40)}] reporting state ready",
        f"{logcat('FirebaseMessaging')}Token retrieval failed: SERVICE_NOT_AVAILABLE",
    )),
    ("browser_storage_benign", "json", lambda: pick(
        json.dumps({"theme": "dark", "i18nextLng": "en", "debug": "app:*", "lastVisited": "/dashboard"}),
        json.dumps({"persist:root": json.dumps({"ui": json.dumps({"sidebarOpen": True}), "_persist": json.dumps({"version": -1, "rehydrated": True})})}),
        f"> localStorage.getItem('ajs_user_id')\n< '\"u_{_r.randint(1000, 99999)}\"'",
        json.dumps({"loglevel": "WARN", "amplitude_unsent": "[]", "featureFlags": json.dumps({"newCheckout": True})}),
        json.dumps({"tokenExpiresAt": _r.randint(10**12, 2 * 10**12), "tokenType": "Bearer", "scopes": "openid profile email"}),
    )),
    ("windows_benign", "log", lambda: pick(
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Acme\\Agent]\n\"InstallPath\"=\"C:\\\\Program Files\\\\Acme\"\n\"LastUser\"=\"CORP\\\\alice\"",
        f"\"DigitalProductId\"=hex:a4,00,00,00,03,00,00,00,{_r.randbytes(12).hex(',')}",
        "\"PasswordExpiryWarning\"=dword:0000000e\n\"DisablePasswordChange\"=dword:00000000",
        "Currently stored credentials:\n\n    Target: Domain:target=TERMSRV/rdp01.corp.example\n    Type: Domain Password\n    User: CORP\\admin",
        "C:\\> net use Z: \\\\files.corp.example\\share /persistent:yes\nThe command completed successfully.",
    )),
    ("url_cursors_and_pagination", "url", lambda: pick(
        json.dumps({"queryString": [{"name": "page", "value": str(_r.randint(1, 40))}, {"name": "per_page", "value": "50"}]}),
        f"GET https://api.example.com/v1/events?cursor={b64u(json.dumps({'id': _r.randint(1000, 99999), 'ts': _r.randint(1_700_000_000, 1_760_000_000)}).encode())}&limit=100",
        f"https://shop.example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=spring-{_r.randint(2023, 2026)}",
        f"\"url\": \"https://api.example.com/v1/objects/{uuid()}/versions/{_r.randint(1, 40)}\"",
        f"next: https://api.example.com/v2/items?continuation={rnd(12, HEX)}&page_size=100",
    )),
    ("auth_flow_benign", "json", lambda: pick(
        json.dumps({"token_type": "Bearer", "expires_in": _r.choice([300, 3600]), "scope": "openid profile email", "ext_expires_in": 3600}),
        f"https://auth.example.com/authorize?response_type=code&client_id=web&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&code_challenge={b64u(_r.randbytes(32))}&code_challenge_method=S256",
        json.dumps({"error": "invalid_grant", "error_description": "Invalid refresh token"}),
        "WWW-Authenticate: Basic realm=\"Restricted\", charset=\"UTF-8\"",
        json.dumps({"grant_type": "client_credentials", "client_id": "reporting", "audience": "https://api.example.com"}),
        "> Authorization: Bearer\n< HTTP/1.1 401 Unauthorized",
    )),
    ("placeholders_in_exports", "json", lambda: pick(
        json.dumps({"key": "apiKey", "value": "<your-api-key>", "type": "secret"}),
        "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
        "Authorization: Bearer YOUR_TOKEN_HERE",
        json.dumps({"data": {"base_url": "https://api.example.com", "access_token": "{{ _.token }}"}}),
        "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20${GRAFANA_BASIC_AUTH}",
        "password: ${DB_PASSWORD}",
    )),
    ("secret_word_benign", "log", lambda: pick(
        "secret_tool_version: 0.20.1",
        f"{logcat('AuthRepository')}token refresh scheduled in {_r.randint(60, 3600)}s",
        "Password changed successfully. You will be signed out of other sessions.",
        json.dumps({"passwordPolicy": {"minLength": 12, "requireSymbols": True}, "sessionTimeoutSeconds": 1800}),
        "cookie_secure = true\nsession_cookie_samesite = \"Lax\"",
        f"Token usage: {_r.randint(100, 9999)} prompt tokens, {_r.randint(10, 999)} completion tokens",
    )),
    ("ids_and_hex_blobs", "log", lambda: pick(
        f"device_id={rnd(16, HEX)} install_id={uuid()}",
        f"\"_postman_id\": \"{uuid()}\", \"_exporter_id\": \"{_r.randint(10**7, 10**8)}\"",
        f"\"id\": \"{rnd(26, LOWER_ALNUM)}\", \"vault\": {{\"id\": \"{rnd(26, LOWER_ALNUM)}\", \"name\": \"Private\"}}",
        f"commit {sha(40)}\nAuthor: Alice <alice@example.com>",
        f"fid: {rnd(22, B64URL)}\nappInstanceId: {rnd(32, HEX)}",
    )),
]


def captured() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_8)
    return heldout._records(CAPTURED_SECRETS, CAPTURED_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = captured()
    heldout._write(HERE / "captured_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "captured_benign.jsonl.gz", benign_rows)
    print(f"captured: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
