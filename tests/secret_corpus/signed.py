"""A twenty-eighth held-out set: what proves a request, beside the token that names a caller.

    python -m tests.secret_corpus.signed   # rewrites signed_*.jsonl.gz here

The other sets hold credentials a client presents as they are (a password, a bearer token, an API key, Basic) and the
signed URLs of the big three clouds. A request is proved in more ways than that, and each prints its proof where an
MCP server's error or log quotes the request: a MAC or signature computed with a shared key, a session key, a token
in an authentication scheme the rules may not know. Written from the protocols' and vendors' documented formats
before reading the rules (grepped first in every generator: ``SharedKey``, ``Hawk``, ``Negotiate``, ``CLIENT_RANDOM``,
``Master-Key``, ``passcode:``, ``hmac=``, ``v1=``, ``v0=``, ``mac=``, ``CloudFront-Signature``, ``x-amz-signature``,
``oauth_token_secret``, ``PVEAPIToken``, ``GenieKey``, ``Zoho``, ``SharedAccessSignature``, ``sr=``, ``DKIM``, ``PGP
SIGNATURE``, ``MEUCI``, ``StringToSign`` appear in none). Kinds (each a family of formats):

- authentication schemes other than Bearer and Basic: Azure Storage ``SharedKey``, Hawk, OAuth 1.0a, SPNEGO
  ``Negotiate``, SIP Digest, S3-style ``AWS``/``OSS`` ``id:signature``, Azure ``HMAC-SHA256``, HTTP Signatures,
  Akamai EdgeGrid, Tencent ``TC3-HMAC-SHA256``, DPoP, Azure ``SharedAccessSignature`` tokens, and schemes whose
  token is a UUID or a vendor shape (``Splunk``, ``GenieKey``, ``PVEAPIToken=``, ``Zoho-oauthtoken``, Rails'
  ``Token token=``, ``Macaroon``);
- webhook signatures in headers and bodies (GitHub, Stripe, Slack, Shopify, Twilio, Standard Webhooks/Svix, Zoom,
  Paddle, LINE, Square, HubSpot, Mailgun, Pusher's channel auth) and shared webhook tokens (``X-Gitlab-Token``);
- signatures in URLs, forms and cookies: SAS in a connection string, S3 presigned POST fields, CloudFront signed
  cookies, Akamai ``hdnea``/``hdntl`` tokens, CDN ``sig=``/``signature=``/``wowzatokenhash=``, Backblaze B2 download
  authorizations, Alibaba Cloud's signed RPC query;
- session keys and symmetric keys: TLS key log lines, ``openssl s_client``'s ``Master-Key``/``Resumption PSK``,
  symmetric JWKs (``"kty":"oct"``), NetworkManager keyfiles and ``nmcli -s`` (WireGuard keys, Wi-Fi ``psk``), HMAC
  key names (``mac_key``, ``hmacSecret``), ``gsutil hmac create``'s output, PASETO and JWE session tokens;
- protocol frames that carry a password: STOMP ``passcode:``, ``mosquitto_pub -P``.

Benign: the same protocols' parts that prove nothing, each category saying why: challenges (``WWW-Authenticate``
Digest nonces, Negotiate without a token), content digests (``Digest:``, ``Content-Digest:``, ``x-amz-content-sha256``,
``x-goog-hash``), SigV4 canonical requests and strings to sign (hashes of public data), signing settings
(``SignatureMethod=HMAC-SHA1``, ``signature_version``), webhook delivery ids and timestamps, public signatures (DKIM,
ARC, PGP, minisign, npm registry ``sig`` and Sigstore ECDSA signatures, XML-DSig in IdP metadata), WebSocket
handshake keys, CSP nonces, OAuth ``state``/``nonce``, SCRAM salts, TLS session ids and randoms, WireGuard public
keys and ``(hidden)`` fields, STOMP and SIP frames without a password, CDN URLs without a token, signed URLs' other
parameters, UUIDs under auth words that are ids (``X-Splunk-Request-Channel``), key ids, public JWKs, masks,
placeholders, prose about signatures, ETags, trace ids, cookies that authenticate nothing.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). No benign line holds an e-mail address. 50 secret formats x 4 and 30 benign categories x 5.
``tests/test_scrub_signed.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: signed() seeds it

BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def b64b(n: int) -> str:
    """Base64 of ``n`` random bytes (a MAC or signature as most vendors print it)."""
    return base64.b64encode(_r.randbytes(n)).decode()


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64ub(n: int) -> str:
    return b64u(_r.randbytes(n))


def pct(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def epoch() -> str:
    return str(_r.randint(1_765_000_000, 1_800_000_000))


def amz_date() -> str:
    return f"2026{_r.randint(1, 12):02d}{_r.randint(1, 28):02d}T{_r.randint(0, 23):02d}{_r.randint(0, 59):02d}{_r.randint(0, 59):02d}Z"


def clock() -> str:
    return f"2026-12-{_r.randint(1, 28):02d}T{_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}.{_r.randint(100, 999)}Z"


def akia() -> str:
    return "AKIA" + rnd(16, BASE32)


def account() -> str:
    return pick("stprodorders", "acmelogs01", "tfstate7731", "mediaeu2")


def host() -> str:
    return pick("api.example.com", "hooks.internal.example.net", "orders.example.org", "edge.example.io")


def spnego() -> str:
    """A SPNEGO NegTokenInit as browsers and requests-kerberos send it: DER, tag 0x60, the SPNEGO OID, a Kerberos
    AP-REQ (random bytes here)."""
    body = _r.randbytes(_r.randint(300, 600))
    inner = b"\x06\x06\x2b\x06\x01\x05\x05\x02\xa0\x82" + struct.pack(">H", len(body)) + body
    return base64.b64encode(b"\x60\x82" + struct.pack(">H", len(inner)) + inner).decode()


def cf_b64(n: int) -> str:
    """CloudFront's URL-safe base64: ``+`` -> ``-``, ``=`` -> ``_``, ``/`` -> ``~``."""
    return b64b(n).replace("+", "-").replace("=", "_").replace("/", "~")


def macaroon() -> str:
    """A version-1 macaroon: packets of a 4-hex-digit length, ``key value\\n``; base64url."""

    def packet(key: str, value: bytes) -> bytes:
        body = key.encode() + b" " + value + b"\n"
        return f"{len(body) + 4:04x}".encode() + body

    raw = (packet("location", f"https://{host()}".encode()) + packet("identifier", hx(32).encode())
           + packet("cid", f"time-before {clock()}".encode()) + packet("signature", _r.randbytes(32)))
    return b64u(raw)


def paseto() -> str:
    if _r.random() < 0.5:
        return pick("v4.local.", "v2.local.") + b64ub(32 + _r.randint(40, 120) + 32)
    claims = json.dumps({"sub": uuid(), "exp": clock(), "aud": pick("orders", "billing")}, separators=(",", ":")).encode()
    return "v4.public." + b64u(claims + _r.randbytes(64))


def jwe() -> str:
    head = b64u(json.dumps({"alg": "dir", "enc": pick("A256GCM", "A256CBC-HS512")}, separators=(",", ":")).encode())
    return f"{head}..{b64ub(12)}.{b64ub(_r.randint(120, 360))}.{b64ub(16)}"


def cf_policy() -> str:
    statement = {"Statement": [{"Resource": "https://media.example.com/*", "Condition": {"DateLessThan": {"AWS:EpochTime": int(epoch())}}}]}
    return base64.b64encode(json.dumps(statement, separators=(",", ":")).encode()).decode().replace("+", "-").replace("=", "_").replace("/", "~")


def shopify_hmac() -> tuple[str, str]:
    """Shopify signs webhooks with base64 in a header and its OAuth callback with hex in the query."""
    if _r.random() < 0.5:
        s = b64b(32)
        return s, pick(f"X-Shopify-Hmac-Sha256: {s}\nX-Shopify-Topic: orders/create\nX-Shopify-Shop-Domain: acme-store.myshopify.com",
                       f"ShopifyAPI::Errors::InvalidWebhookError: HMAC {s} does not match for topic orders/paid")
    s = hx(64)
    return s, f"GET /auth/callback?code={hx(32)}&hmac={s}&host={b64u(b'acme-store.myshopify.com/admin')}&shop=acme-store.myshopify.com&timestamp={epoch()} 400"


def b2_auth() -> str:
    return f"3_2026{_r.randint(1, 12):02d}{_r.randint(10, 28)}{_r.randint(100000, 235959)}_{hx(24)}_{hx(40)}_000_20261230000000_0004_dnld"


# --- secret formats: each a kind, 4 instances ------------------------------------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    # authentication schemes other than Bearer and Basic
    ("azure_sharedkey_header", "header", one(lambda: b64b(32),
        lambda s: f"Request headers:\n    'x-ms-version': '2025-01-05'\n    'x-ms-date': 'Fri, 04 Dec 2026 10:12:44 GMT'\n    'Authorization': 'SharedKey {account()}:{s}'",
        lambda s: f"> PUT /{pick('backups', 'exports')}/day.tar HTTP/1.1\n> Host: {account()}.blob.core.windows.net\n> Authorization: {pick('SharedKey', 'SharedKeyLite')} {account()}:{s}\n> x-ms-blob-type: BlockBlob",
        lambda s: f"AuthenticationFailed: Server failed to authenticate the request. request Authorization=SharedKey {account()}:{s} x-ms-request-id={uuid()}")),
    ("hawk_mac", "header", one(lambda: b64b(32),
        lambda s: f'Authorization: Hawk id="{rnd(12, LOWER_ALNUM)}", ts="{epoch()}", nonce="{rnd(6)}", ext="{pick("app", "sync")}", mac="{s}"',
        lambda s: f'{clock()} WARN hawk: stale timestamp for header Hawk id="{rnd(12, LOWER_ALNUM)}", ts="{epoch()}", nonce="{rnd(6)}", hash="{b64b(32)}", mac="{s}"',
        lambda s: f"headers={{'Authorization': 'Hawk id=\"{rnd(10, LOWER_ALNUM)}\", ts=\"{epoch()}\", nonce=\"{rnd(6)}\", mac=\"{s}\"'}}")),
    ("oauth1_signature", "header", one(lambda: pct(b64b(20)),
        lambda s: f'Authorization: OAuth oauth_consumer_key="{rnd(25)}", oauth_nonce="{rnd(32)}", oauth_signature="{s}", oauth_signature_method="HMAC-SHA1", oauth_timestamp="{epoch()}", oauth_version="1.0"',
        lambda s: f'requests_oauthlib: 401 for POST https://{host()}/1.1/statuses/update.json (Authorization: OAuth oauth_nonce="{rnd(40)}", oauth_timestamp="{epoch()}", oauth_version="1.0", oauth_signature_method="HMAC-SHA1", oauth_consumer_key="{rnd(25)}", oauth_signature="{s}")',
        lambda s: f"GET /api/v1/items?oauth_consumer_key={rnd(18)}&oauth_signature_method=HMAC-SHA1&oauth_timestamp={epoch()}&oauth_nonce={rnd(11)}&oauth_version=1.0&oauth_signature={s} HTTP/1.1\" 401")),
    ("oauth1_token_secret_response", "log", one(lambda: rnd(_r.choice([40, 45])),
        lambda s: f"request_token response body: oauth_token={rnd(27)}&oauth_token_secret={s}&oauth_callback_confirmed=true",
        lambda s: f"{clock()} DEBUG access token exchange -> 200 'oauth_token={_r.randint(10**8, 10**10)}-{rnd(40)}&oauth_token_secret={s}&user_id={_r.randint(10**6, 10**9)}'",
        lambda s: json.dumps({"provider": "garmin", "credentials": {"oauth_token": rnd(36), "oauth_token_secret": s}}))),
    ("negotiate_kerberos_token", "header", one(spnego,
        lambda s: f"DEBUG:requests_kerberos.kerberos_:authenticate_user(): Authorization header: Negotiate {s}",
        lambda s: f"> GET /ews/exchange.asmx HTTP/1.1\n> Host: mail.corp.example\n> Authorization: Negotiate {s}\n> User-Agent: curl/8.5.0",
        lambda s: f"{clock()} ERROR proxy: upstream 401 after Proxy-Authorization: Negotiate {s}")),
    ("sip_digest_response", "header", one(lambda: hx(32),
        lambda s: f'REGISTER sip:pbx.example.net SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.{_r.randint(2, 250)}:5060;branch=z9hG4bK{rnd(10)}\r\nFrom: <sip:1001@pbx.example.net>;tag={rnd(8)}\r\nAuthorization: Digest username="1001",realm="asterisk",nonce="{rnd(8, LOWER_ALNUM)}",uri="sip:pbx.example.net",response="{s}",algorithm=MD5\r\nCSeq: 2 REGISTER',
        lambda s: f'[{clock()}] NOTICE[2231] chan_sip.c: Registration from \'<sip:1002@pbx.example.net>\' failed, Authorization: Digest username="1002",realm="asterisk",nonce="{rnd(8, LOWER_ALNUM)}",uri="sip:pbx.example.net",response="{s}"',
        lambda s: f'pjsip: tx REGISTER Proxy-Authorization: Digest username="trunk-7", realm="sip.example.com", nonce="{hx(24)}", uri="sip:sip.example.com;transport=tls", response="{s}", algorithm=MD5, cnonce="{rnd(16)}", qop=auth, nc=00000001')),
    ("s3_style_id_signature_header", "header", one(lambda: b64b(20),
        lambda s: f"Authorization: AWS {akia()}:{s}",
        lambda s: f"oss2.exceptions.SignatureDoesNotMatch: {{'status': 403, 'Authorization': 'OSS LTAI{rnd(16)}:{s}', 'request-id': '{hx(24).upper()}'}}",
        lambda s: f"< 403 SignatureDoesNotMatch for PUT /b/obj; sent Authorization: AWS GOOG1E{rnd(55, UPPER_ALNUM)}:{s}")),
    ("azure_hmac_sha256_header", "header", one(lambda: b64b(32),
        lambda s: f"Authorization: HMAC-SHA256 Credential={rnd(4)}-l0-s0:{rnd(20)}&SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature={s}",
        lambda s: f"{clock()} appconfig: 401 Unauthorized {{ 'WWW-Authenticate': 'HMAC-SHA256 error=\"invalid_token\"', 'request': 'Authorization: HMAC-SHA256 Credential=xD3b-l9-s0:{rnd(20)}&SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature={s}' }}")),
    ("http_signature_hmac", "header", one(lambda: b64b(32),
        lambda s: f'Authorization: Signature keyId="hmac-key-{_r.randint(1, 9)}",algorithm="hmac-sha256",headers="(request-target) host date digest",signature="{s}"',
        lambda s: f'Signature: keyId="{pick("partner-7", "svc-billing")}",algorithm="hmac-sha256",created={epoch()},headers="(request-target) (created) digest",signature="{s}"',
        lambda s: f"{clock()} WARN http-sig: verification failed keyId=partner-{_r.randint(1, 99)} signature={s}")),
    ("splunk_hec_uuid", "header", one(lambda: pick(uuid(), uuid().upper()),
        lambda s: f'curl -k https://splunk.example.net:8088/services/collector/event -H "Authorization: Splunk {s}" -d \'{{"event": "deploy"}}\'',
        lambda s: f"{clock()} ERROR hec: 403 {{\"text\":\"Invalid token\",\"code\":4}} headers={{'Authorization': 'Splunk {s}'}}",
        lambda s: f"[OUTPUT]\n    Name        splunk\n    Host        splunk.example.net\n    Port        8088\n    Splunk_Token {s}\n    TLS         On")),
    ("proxmox_api_token", "header", one(uuid,
        lambda s: f"Authorization: PVEAPIToken={pick('root@pam', 'terraform@pve', 'backup@pbs')}!{pick('monitoring', 'tf', 'ci')}={s}",
        lambda s: f"Error: 401 Unauthorized: permission check failed for PVEAPIToken=terraform@pve!provider={s}",
        lambda s: f"export PM_API_TOKEN_ID='terraform@pve!provider'\nexport PM_API_TOKEN_SECRET='{s}'")),
    ("zoho_oauthtoken", "header", one(lambda: f"1000.{hx(32)}.{hx(32)}",
        lambda s: f"Authorization: Zoho-oauthtoken {s}",
        lambda s: f"{clock()} zoho-crm: INVALID_TOKEN for Zoho-oauthtoken {s} (org {_r.randint(10**8, 10**9)})",
        lambda s: f"headers = {{'Authorization': 'Zoho-oauthtoken {s}', 'Content-Type': 'application/json'}}")),
    ("opsgenie_geniekey", "header", one(uuid,
        lambda s: f"Authorization: GenieKey {s}",
        lambda s: f"{clock()} alertmanager notify opsgenie: 422 Unprocessable; request Authorization=GenieKey {s}",
        lambda s: f'curl -X POST https://api.eu.opsgenie.com/v2/alerts -H "Authorization: GenieKey {s}" -H "Content-Type: application/json"')),
    ("rails_token_scheme", "header", one(lambda: rnd(_r.choice([24, 32, 40])),
        lambda s: f'Authorization: Token token="{s}", user_id="{_r.randint(1, 9999)}"',
        lambda s: f'Started GET "/api/v2/orders" for 10.1.4.2 ... HTTP_AUTHORIZATION: Token token={s}',
        lambda s: f"ActionController::HttpAuthentication::Token: rejected 'Token token=\"{s}\"' (401)")),
    ("dpop_bound_token", "header", one(lambda: pick(b64ub(32), rnd(40, B64URL)),
        lambda s: f"Authorization: DPoP {s}\nDPoP: eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2In0.{b64ub(90)}.{b64ub(64)}",
        lambda s: f'{clock()} WARN rs: invalid_dpop_proof for access token; Authorization="DPoP {s}" htm=POST htu=https://{host()}/orders',
        lambda s: f"httpx.HTTPStatusError: 401 Unauthorized; request headers: {{'authorization': 'DPoP {s}', 'dpop': '<proof>'}}")),
    ("azure_sas_token_scheme", "header", one(lambda: pct(b64b(32)),
        lambda s: f"Authorization: SharedAccessSignature sr={pct('hub-prod.azure-devices.net/devices/sensor-' + str(_r.randint(1, 99)))}&sig={s}&se={epoch()}&skn=iothubowner",
        lambda s: f"SERVICEBUS_SAS=\"SharedAccessSignature sr={pct('sb://ns-orders.servicebus.windows.net/orders')}&sig={s}&se={epoch()}&skn=RootManageSharedAccessKey\"",
        lambda s: json.dumps({"event": "mqtt connect refused", "password": None, "sas": f"SharedAccessSignature sr=hub.azure-devices.net%2Fdevices%2Fd{_r.randint(1, 9)}&sig={s}&se={epoch()}"}))),
    ("akamai_edgegrid_signature", "header", one(lambda: b64b(32),
        lambda s: f"Authorization: EG1-HMAC-SHA256 client_token=akab-{rnd(16, LOWER_ALNUM)}-{rnd(16, LOWER_ALNUM)};access_token=akab-{rnd(16, LOWER_ALNUM)}-{rnd(16, LOWER_ALNUM)};timestamp=20261204T10:{_r.randint(10, 59)}:00+0000;nonce={uuid()};signature={s}",
        lambda s: f"edgegrid: 401 'The signature does not match' for signature={s} timestamp=20261204T09:00:00+0000")),
    ("tencent_tc3_signature", "header", one(lambda: hx(64),
        lambda s: f"Authorization: TC3-HMAC-SHA256 Credential=AKID{rnd(32)}/2026-12-04/cvm/tc3_request, SignedHeaders=content-type;host, Signature={s}",
        lambda s: f"[TencentCloudSDKException] code:AuthFailure.SignatureFailure message:The provided credentials could not be validated. requestId:{uuid()} Authorization=TC3-HMAC-SHA256 Credential=AKID{rnd(32)}/2026-12-04/cvm/tc3_request, SignedHeaders=content-type;host, Signature={s}")),
    ("macaroon_scheme", "header", one(macaroon,
        lambda s: f"Authorization: Macaroon {s}",
        lambda s: f"{clock()} snapd: cannot refresh: store rejected Authorization: Macaroon root=\"{s}\"",
        lambda s: f"lxc: Error: Get \"https://lxd.example.net:8443/1.0\": macaroon discharge failed (macaroon-bakery: {s})")),
    # webhook signatures and shared webhook tokens
    ("github_hub_signature", "header", one(lambda: pick("sha256=" + hx(64), "sha1=" + hx(40)),
        lambda s: f"X-GitHub-Event: push\nX-GitHub-Delivery: {uuid()}\nX-Hub-Signature{'-256' if s.startswith('sha256') else ''}: {s}\nContent-Type: application/json",
        lambda s: f"{clock()} WARN webhook: signature mismatch for delivery {uuid()}: got {s}",
        lambda s: f"request.headers={{'X-Hub-Signature-256': '{s}', 'X-GitHub-Hook-ID': '{_r.randint(10**8, 10**9)}'}}")),
    ("stripe_signature", "header", one(lambda: hx(64),
        lambda s: f"Stripe-Signature: t={epoch()},v1={s},v0={hx(64)}",
        lambda s: f"stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload; sig_header='t={epoch()},v1={s}'",
        lambda s: f"{clock()} ERROR billing.webhooks: rejected event (tolerance 300s) stripe-signature=t={epoch()},v1={s}")),
    ("slack_signature", "header", one(lambda: "v0=" + hx(64),
        lambda s: f"X-Slack-Request-Timestamp: {epoch()}\nX-Slack-Signature: {s}",
        lambda s: f"slack_bolt: Failed to verify the request signature: x-slack-signature={s} x-slack-request-timestamp={epoch()}",
        lambda s: json.dumps({"headers": {"x-slack-signature": s, "x-slack-request-timestamp": epoch()}, "status": 401}))),
    ("shopify_hmac", "header", shopify_hmac),
    ("twilio_signature", "header", one(lambda: b64b(20),
        lambda s: f"X-Twilio-Signature: {s}\nI-Twilio-Idempotency-Token: {uuid()}",
        lambda s: f"{clock()} WARN twilio: request validation failed url=https://{host()}/sms signature={s}",
        lambda s: f"twilio.request_validator: validate(uri, params, '{s}') -> False")),
    ("standard_webhooks_signature", "header", one(lambda: "v1," + b64b(32),
        lambda s: f"webhook-id: msg_{rnd(27)}\nwebhook-timestamp: {epoch()}\nwebhook-signature: {s}",
        lambda s: f"svix.webhooks.WebhookVerificationError: No matching signature found; svix-signature: {s} v1,{b64b(32)}",
        lambda s: json.dumps({"svix-id": f"msg_{rnd(27)}", "svix-timestamp": epoch(), "svix-signature": s}))),
    ("vendor_webhook_hex_signature", "header", one(lambda: hx(64),
        lambda s: f"x-zm-signature: v0={s}\nx-zm-request-timestamp: {epoch()}",
        lambda s: f"Paddle-Signature: ts={epoch()};h1={s}",
        lambda s: f"{clock()} WARN razorpay: SignatureVerificationError X-Razorpay-Signature={s} event=payment.captured",
        lambda s: f"X-Hook-Signature: {s}",
        lambda s: f"linear-signature: {s}\nlinear-delivery: {uuid()}",
        lambda s: f"X-Gitea-Signature: {s}\nX-Gitea-Event: push")),
    ("vendor_webhook_b64_signature", "header", one(lambda: b64b(32),
        lambda s: f"x-line-signature: {s}",
        lambda s: f"x-square-hmacsha256-signature: {s}\nsquare-environment: Production",
        lambda s: f"Typeform-Signature: sha256={s}",
        lambda s: f"X-HubSpot-Signature-v3: {s}\nX-HubSpot-Request-Timestamp: {epoch()}000",
        lambda s: f"{clock()} intuit webhook rejected: intuit-signature={s}")),
    ("mailgun_body_signature", "json", one(lambda: hx(64),
        lambda s: json.dumps({"signature": {"timestamp": epoch(), "token": rnd(50, LOWER_ALNUM), "signature": s}, "event-data": {"event": "delivered", "id": rnd(22)}}),
        lambda s: f"mailgun webhook: invalid signature timestamp={epoch()} token={rnd(50, LOWER_ALNUM)} signature={s}")),
    ("pusher_channel_auth", "json", one(lambda: hx(64),
        lambda s: json.dumps({"auth": f"{hx(20)}:{s}"}),
        lambda s: f'Pusher: Couldn\'t subscribe to private-orders-{_r.randint(1, 999)}: {{"auth":"{hx(20)}:{s}","channel_data":"{{\\"user_id\\":\\"{_r.randint(1, 999)}\\"}}"}}',
        lambda s: f"{clock()} DEBUG broadcasting/auth -> 200 auth={hx(20)}:{s}")),
    ("gitlab_webhook_token", "header", one(lambda: pick(fpw(), rnd(32)),
        lambda s: f"X-Gitlab-Event: Merge Request Hook\nX-Gitlab-Token: {s}\nX-Gitlab-Instance: https://gitlab.example.com",
        lambda s: f"{clock()} WARN hook: X-Gitlab-Token={s} does not match the configured secret",
        lambda s: f"headers={{'X-Gitlab-Token': '{s}', 'X-Gitlab-Event-UUID': '{uuid()}'}}")),
    # signatures in URLs, forms and cookies
    ("sas_in_connection_string", "log", one(lambda: pct(b64b(32)),
        lambda s: f"BlobEndpoint=https://{account()}.blob.core.windows.net/;SharedAccessSignature=sv=2025-01-05&ss=b&srt=co&sp=rwl&se=2026-12-31T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={s}",
        lambda s: f"AZURE_STORAGE_CONNECTION_STRING=QueueEndpoint=https://{account()}.queue.core.windows.net/;SharedAccessSignature=sv=2025-01-05&ss=q&srt=sco&sp=rau&se=2027-01-01T00:00:00Z&sig={s}",
        lambda s: json.dumps({"storage": {"sasToken": f"?sv=2025-01-05&ss=bf&srt=sco&sp=rl&se=2027-01-01&sig={s}"}}))),
    ("presigned_post_signature", "json", one(lambda: hx(64),
        lambda s: json.dumps({"url": "https://uploads-prod.s3.amazonaws.com/", "fields": {"key": f"u/{uuid()}.png", "x-amz-algorithm": "AWS4-HMAC-SHA256", "x-amz-date": amz_date(), "policy": base64.b64encode(json.dumps({"expiration": clock(), "conditions": [{"bucket": "uploads-prod"}]}).encode()).decode(), "x-amz-signature": s}}),
        lambda s: f'<form action="https://uploads-prod.s3.amazonaws.com/" method="post" enctype="multipart/form-data"><input type="hidden" name="x-amz-date" value="{amz_date()}"><input type="hidden" name="x-amz-signature" value="{s}"></form>',
        lambda s: f"botocore: generate_presigned_post -> fields={{'key': 'in/x.csv', 'x-amz-algorithm': 'AWS4-HMAC-SHA256', 'x-amz-signature': '{s}'}}")),
    ("cloudfront_signed_cookie", "header", one(lambda: cf_b64(_r.choice([128, 256])),
        lambda s: f"Set-Cookie: CloudFront-Signature={s}; Domain=.media.example.com; Path=/; Secure; HttpOnly",
        lambda s: f"Cookie: CloudFront-Policy={cf_policy()}; CloudFront-Signature={s}; CloudFront-Key-Pair-Id=K{rnd(13, UPPER_ALNUM)}",
        lambda s: json.dumps({"cookies": {"CloudFront-Key-Pair-Id": f"K{rnd(13, UPPER_ALNUM)}", "CloudFront-Signature": s, "CloudFront-Expires": epoch()}}))),
    ("akamai_edge_token", "url", one(lambda: hx(64),
        lambda s: f"https://vod.example.com/hls/master.m3u8?hdnea=exp={epoch()}~acl=/hls/*~hmac={s}",
        lambda s: f"Set-Cookie: hdntl=exp={epoch()}~acl=%2fhls%2f*~data=hdntl~hmac={s}; path=/hls/; domain=vod.example.com",
        lambda s: f"{clock()} player: 403 for segment_12.ts?hdnts=st={epoch()}~exp={epoch()}~acl=/*~hmac={s}")),
    ("cdn_signature_params", "url", one(lambda: pick(hx(32), b64ub(32), b64b(20).replace("+", "-").replace("/", "_")),
        lambda s: f"https://cdn.jwplayer.com/v2/media/{rnd(8)}?exp={epoch()}&sig={s}",
        lambda s: f"https://maps.googleapis.com/maps/api/staticmap?center=52.37,4.89&zoom=12&size=640x400&client=gme-acme&signature={s}",
        lambda s: f"rtmp://live.example.com/app/stream_{_r.randint(1, 99)}?wowzatokenstarttime={epoch()}&wowzatokenendtime={epoch()}&wowzatokenhash={s}",
        lambda s: f"GET /video/{rnd(10)}.mp4?token={s}&expires={epoch()} 403 (bunny)")),
    ("api_sig_query", "url", one(lambda: hx(32),
        lambda s: f"https://ws.audioscrobbler.com/2.0/?method=auth.getSession&token={rnd(32)}&api_sig={s}&format=json",
        lambda s: f"flickr: 96 Invalid signature for https://api.flickr.com/services/rest/?method=flickr.photos.search&format=json&api_sig={s}",
        lambda s: f"aws-chunked body: 10000;chunk-signature={hx(64)}\r\n... 0;chunk-signature={s}{hx(32)}")),
    ("b2_download_authorization", "url", one(b2_auth,
        lambda s: f"https://f003.backblazeb2.com/file/media-archive/2026/clip.mp4?Authorization={s}",
        lambda s: json.dumps({"bucketId": hx(24), "fileNamePrefix": "reports/", "authorizationToken": s}),
        lambda s: f"{clock()} b2: 401 expired_auth_token for download Authorization={s}")),
    ("aliyun_signed_query", "url", one(lambda: pct(b64b(20)),
        lambda s: f"https://ecs.aliyuncs.com/?AccessKeyId=LTAI{rnd(18)}&Action=DescribeInstances&Format=JSON&RegionId=cn-hangzhou&SignatureMethod=HMAC-SHA1&SignatureNonce={uuid()}&SignatureVersion=1.0&Timestamp=2026-12-04T10%3A00%3A00Z&Version=2014-05-26&Signature={s}",
        lambda s: f"aliyunsdkcore.acs_exception.exceptions.ServerException: HTTP Status: 400 Error:SignatureDoesNotMatch Specified signature is not matched with our calculation. server string to sign is:GET&%2F&... RequestId: {uuid().upper()} url=...&Signature={s}")),
    # session keys and symmetric keys
    ("jwk_oct_k", "json", one(lambda: b64ub(32),
        lambda s: json.dumps({"keys": [{"kty": "oct", "kid": f"hmac-{_r.randint(2024, 2026)}", "alg": "HS256", "k": s}]}),
        lambda s: f"jwcrypto.jwk: loaded {{\"k\":\"{s}\",\"kty\":\"oct\"}} for issuer https://{host()}",
        lambda s: f"JWK(kty='oct', kid='sess-{_r.randint(1, 9)}', k='{s}', use='sig')")),
    ("tls_keylog_secret", "log", one(lambda: hx(_r.choice([64, 96])),
        lambda s: f"# SSL/TLS secrets log file, generated by NSS\nCLIENT_RANDOM {hx(64)} {s}",
        lambda s: f"$ tail -n 3 $SSLKEYLOGFILE\nCLIENT_HANDSHAKE_TRAFFIC_SECRET {hx(64)} {hx(64)}\nSERVER_TRAFFIC_SECRET_0 {hx(64)} {hx(64)}\nCLIENT_TRAFFIC_SECRET_0 {hx(64)} {s}",
        lambda s: f"{clock()} DEBUG sslkeylog: EXPORTER_SECRET {hx(64)} {s}")),
    ("openssl_session_master_key", "log", one(lambda: hx(96).upper(),
        lambda s: f"SSL-Session:\n    Protocol  : TLSv1.2\n    Cipher    : ECDHE-RSA-AES256-GCM-SHA384\n    Session-ID: {hx(64).upper()}\n    Session-ID-ctx: \n    Master-Key: {s}\n    PSK identity: None",
        lambda s: f"SSL-Session:\n    Protocol  : TLSv1.3\n    Cipher    : TLS_AES_256_GCM_SHA384\n    Session-ID: {hx(64).upper()}\n    Session-ID-ctx: \n    Resumption PSK: {s}\n    PSK identity: None\n    PSK identity hint: None")),
    ("networkmanager_wireguard_keys", "log", one(lambda: b64b(32),
        lambda s: f"[wireguard]\nlisten-port=51820\nprivate-key={s}\n\n[wireguard-peer.{b64b(32)}]\nendpoint=vpn.example.net:51820\nallowed-ips=10.8.0.0/24;",
        lambda s: f"$ nmcli --show-secrets connection show wg0 | grep key\nwireguard.private-key:                  {s}\nwireguard.private-key-flags:            0 (none)",
        lambda s: f"[wireguard-peer.{b64b(32)}]\nendpoint=203.0.113.7:51820\npreshared-key={s}\npreshared-key-flags=0\nallowed-ips=0.0.0.0/0;")),
    ("networkmanager_wifi_psk", "log", one(fpw,
        lambda s: f"[wifi]\nmode=infrastructure\nssid=Office-5G\n\n[wifi-security]\nkey-mgmt=wpa-psk\npsk={s}",
        lambda s: f"$ nmcli -s -g 802-11-wireless-security.psk connection show Office-5G\n{s}\n$ nmcli -s connection show Lab | grep psk:\n802-11-wireless-security.psk:           {s}",
        lambda s: f"{clock()} NetworkManager[812]: <warn> device (wlan0): Activation: (wifi) secrets failed for psk={s}")),
    ("hmac_key_names", "log", one(lambda: pick(hx(64), b64b(32), rnd(40)),
        lambda s: f"ETL_HMAC_KEY={s}",
        lambda s: json.dumps({"session": {"macKey": s, "cipher": "aes-256-gcm"}}),
        lambda s: f"hmacSecret: {s}",
        lambda s: f'signing.sig_key = "{s}"',
        lambda s: f"mac_key => '{s}',")),
    ("gcs_hmac_secret_output", "log", one(lambda: b64b(30),
        lambda s: f"$ gsutil hmac create etl@acme-prod.iam.gserviceaccount.com\nAccess ID:   GOOG1E{rnd(55, UPPER_ALNUM)}\nSecret:      {s}",
        lambda s: f"metadata:\n  accessId: GOOG1E{rnd(55, UPPER_ALNUM)}\n  state: ACTIVE\n  timeCreated: '{clock()}'\nsecret: {s}")),
    ("paseto_token", "header", one(paseto,
        lambda s: f"Authorization: Bearer {s}",
        lambda s: f"{clock()} WARN auth: token expired: {s}",
        lambda s: f"Set-Cookie: session={s}; Path=/; HttpOnly; Secure; SameSite=Strict",
        lambda s: f"pyseto.exceptions.VerifyError: Failed to decrypt. token={s}")),
    ("jwe_session_cookie", "header", one(jwe,
        lambda s: f"Cookie: __Secure-next-auth.session-token={s}; __Host-next-auth.csrf-token={hx(64)}%7C{hx(64)}",
        lambda s: f"[auth][error] JWTSessionError: Read more at https://errors.authjs.dev#jwtsessionerror cookie authjs.session-token={s}",
        lambda s: f"{clock()} WARN gateway: cannot decrypt id_token {s}")),
    # protocol frames that carry a password
    ("stomp_passcode", "log", one(fpw,
        lambda s: f">>> CONNECT\naccept-version:1.2,1.1,1.0\nheart-beat:10000,10000\nlogin:svc-orders\npasscode:{s}\n\n\x00",
        lambda s: f"{clock()} ERROR stomp: ERROR frame after CONNECT host:/ login:guest passcode:{s} -> message:Bad CONNECT",
        lambda s: f"StompClient(host='mq.example.net', port=61613, login='svc', passcode='{s}')")),
    ("mosquitto_password_flag", "log", one(fpw,
        lambda s: f"+ mosquitto_pub -h mqtt.example.net -p 8883 --cafile /etc/ssl/ca.pem -u sensor-{_r.randint(1, 99)} -P '{s}' -t plant/temp -m 21.5",
        lambda s: f"Connection error: Connection Refused: not authorised.\ncommand: mosquitto_sub -h 10.0.4.2 -u dashboard -P {s} -t '#' -v",
        lambda s: f"Error: Connection refused\n$ mosquitto_rr -h broker -u api -P \"{s}\" -t req -e resp -m ping")),
    ("signature_named_values", "log", one(lambda: pick(hx(64), b64b(32), b64ub(32)),
        lambda s: f"{clock()} INFO outbound: POST /v2/payouts signed sig={s} kid=payout-2026 ts={epoch()}",
        lambda s: json.dumps({"request_id": uuid(), "hmac": s, "algorithm": "HMAC-SHA256"}),
        lambda s: f"X-Request-Signature: {s}\nX-Request-Timestamp: {epoch()}",
        lambda s: f"{clock()} DEBUG client: headers {{'X-Signature': '{s}', 'X-Api-Client': 'erp-sync'}}")),
]


# --- benign categories: the same protocols' parts that prove nothing, 5 lines each --------------------------------


def _masked() -> str:
    return pick("[REDACTED]", "***", "****************", "<redacted>", "xxxxxxxxxxxxxxxx", "(hidden)", "••••••••")


BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # challenges: a server's nonce proves nothing
    ("digest_challenges", "header", lambda: pick(
        f'WWW-Authenticate: Digest realm="api@{host()}", qop="auth", algorithm=SHA-256, nonce="{hx(32)}", opaque="{hx(32)}"',
        f'SIP/2.0 401 Unauthorized\r\nWWW-Authenticate: Digest realm="asterisk",nonce="{rnd(8, LOWER_ALNUM)}",algorithm=MD5\r\nCall-ID: {hx(32)}@10.0.0.{_r.randint(2, 250)}',
        f'Proxy-Authenticate: Digest realm="sip.example.com", nonce="{hx(24)}", stale=TRUE, qop="auth"')),
    ("other_challenges", "header", lambda: pick(
        "WWW-Authenticate: Negotiate", 'WWW-Authenticate: Bearer realm="api", error="invalid_token", error_description="The access token expired"',
        f'WWW-Authenticate: Hawk ts="{epoch()}", error="Stale timestamp"', 'WWW-Authenticate: DPoP algs="ES256 PS256"',
        'WWW-Authenticate: Basic realm="registry", charset="UTF-8"', "WWW-Authenticate: SharedKey realm=\"storage\"")),
    ("content_digests", "header", lambda: pick(
        f"Digest: SHA-256={b64b(32)}", f"Content-Digest: sha-256=:{b64b(32)}:", f"Repr-Digest: sha-512=:{b64b(64)}:",
        f"Content-MD5: {b64b(16)}", f"x-goog-hash: crc32c={b64b(4)},md5={b64b(16)}", f"x-amz-checksum-sha256: {b64b(32)}",
        f"x-ms-content-crc64: {b64b(8)}")),
    ("sigv4_canonical_request", "log", lambda: pick(
        f"DEBUG:botocore.auth:StringToSign:\nAWS4-HMAC-SHA256\n{amz_date()}\n20261204/eu-west-1/s3/aws4_request\n{hx(64)}",
        f"DEBUG:botocore.auth:CanonicalRequest:\nGET\n/reports/q4.csv\n\nhost:reports.s3.eu-west-1.amazonaws.com\nx-amz-content-sha256:{hx(64)}\nx-amz-date:{amz_date()}\n\nhost;x-amz-content-sha256;x-amz-date\n{hx(64)}",
        f"x-amz-content-sha256: {pick(hx(64), 'UNSIGNED-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD')}")),
    ("signing_settings", "log", lambda: pick(
        "signature_version: s3v4", 'oauth_signature_method="HMAC-SHA1", oauth_version="1.0"',
        f"SignatureMethod=HMAC-SHA1&SignatureVersion=1.0&SignatureNonce={uuid()}", 'algorithm="hmac-sha256",headers="(request-target) host date"',
        "SignedHeaders=content-type;host;x-amz-date", 'jwt: {"alg": "HS256", "typ": "JWT"}', "webhook.signature.tolerance_seconds=300",
        "signatureAlgorithm=SHA256withRSA", "STRIPE_SIGNATURE_HEADER=Stripe-Signature")),
    ("webhook_delivery_ids", "header", lambda: pick(
        f"X-GitHub-Delivery: {uuid()}\nX-GitHub-Event: {pick('push', 'pull_request', 'workflow_run')}\nX-GitHub-Hook-ID: {_r.randint(10**8, 10**9)}",
        f"webhook-id: msg_{rnd(27)}\nwebhook-timestamp: {epoch()}", f"X-Slack-Request-Timestamp: {epoch()}\nX-Slack-Retry-Num: 1",
        f"received Stripe event evt_{rnd(24)} type=invoice.paid livemode=true", f"X-Shopify-Webhook-Id: {uuid()}\nX-Shopify-Topic: orders/create")),
    ("public_mail_signatures", "log", lambda: pick(
        f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=sel{_r.randint(1, 9)}; t={epoch()}; h=from:to:subject:date; bh={b64b(32)}; b={b64b(256)}",
        f"ARC-Seal: i=1; a=rsa-sha256; t={epoch()}; cv=none; d=example.net; s=arc-2026; b={b64b(256)}",
        f"ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=example.net; s=arc-2026; h=to:from:subject; bh={b64b(32)}; b={b64b(128)}")),
    ("public_artifact_signatures", "json", lambda: pick(
        json.dumps({"dist": {"shasum": hx(40), "integrity": "sha512-" + b64b(64), "signatures": [{"keyid": "SHA256:" + b64b(32).rstrip("="), "sig": "MEUCIQ" + b64b(66)[:90]}]}}),
        f"-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE{b64b(45)}\n{b64b(48)}\n={b64b(3)}\n-----END PGP SIGNATURE-----",
        f"untrusted comment: signature from minisign secret key\nRUQ{b64b(71)}\ntrusted comment: timestamp:{epoch()}\tfile:release.tar.gz\n{b64b(64)}",
        json.dumps({"SignedEntryTimestamp": "MEQCI" + b64b(66)[:88], "logIndex": _r.randint(10**6, 10**8)}))),
    ("xmldsig_in_metadata", "log", lambda: pick(
        f"<ds:Reference URI=\"#_{hx(32)}\"><ds:DigestMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"/><ds:DigestValue>{b64b(32)}</ds:DigestValue></ds:Reference>",
        f"<ds:SignatureValue>{b64b(256)}</ds:SignatureValue>",
        f"<md:KeyDescriptor use=\"signing\"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIC{b64b(180)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>")),
    ("websocket_handshake", "header", lambda: pick(
        f"GET /ws HTTP/1.1\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Key: {b64b(16)}\nSec-WebSocket-Version: 13",
        f"HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nSec-WebSocket-Accept: {b64b(20)}")),
    ("csp_nonces", "log", lambda: pick(
        f"Content-Security-Policy: script-src 'nonce-{b64b(16)}' 'strict-dynamic'; object-src 'none'",
        f'<script nonce="{b64b(16)}" src="/static/app.{hx(8)}.js"></script>', f"style-src 'self' 'nonce-{rnd(22)}'")),
    ("oauth_flow_params", "url", lambda: pick(
        f"https://login.example.com/authorize?response_type=code&client_id={uuid()}&state={b64ub(24)}&nonce={b64ub(24)}&code_challenge={b64ub(32)}&code_challenge_method=S256",
        f"oauth_callback_confirmed=true&oauth_expires_in={_r.randint(300, 3600)}", f"openid: nonce mismatch for state={b64ub(16)} (expected another login)")),
    ("scram_server_first", "log", lambda: pick(
        f"r={b64b(18)}{b64b(18)},s={b64b(16)},i={pick('4096', '15000')}",
        f"{clock()} LOG:  connection authenticated: identity=\"app\" method=scram-sha-256", "SASL mechanisms offered: SCRAM-SHA-256-PLUS SCRAM-SHA-256",
        f"mongo: saslStart mechanism=SCRAM-SHA-256 conversationId={_r.randint(1, 9)} done=false")),
    ("tls_session_summaries", "log", lambda: pick(
        f"SSL-Session:\n    Protocol  : TLSv1.3\n    Cipher    : TLS_AES_128_GCM_SHA256\n    Session-ID: {hx(64).upper()}\n    Session-ID-ctx: \n    PSK identity: None\n    Start Time: {epoch()}\n    Verify return code: 0 (ok)",
        f"sha256 Fingerprint={':'.join(hx(2).upper() for _ in range(32))}", "New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384\nServer public key is 2048 bit",
        f"    TLS session ticket lifetime hint: 7200 (seconds)\n    Session-ID: {hx(64).upper()}")),
    ("tls_handshake_randoms", "log", lambda: pick(
        f"    Random: {hx(64)}\n    Session ID Length: 32\n    Session ID: {hx(64)}\n    Cipher Suite: TLS_AES_128_GCM_SHA256 (0x1301)",
        f"tls.handshake.random == {hx(64)}", f"ja3={hx(32)} ja4=t13d1516h2_{hx(12)}_{hx(12)}")),
    ("wireguard_public", "log", lambda: pick(
        f"interface: wg0\n  public key: {b64b(32)}\n  private key: (hidden)\n  listening port: 51820\n\npeer: {b64b(32)}\n  preshared key: (hidden)\n  endpoint: 203.0.113.{_r.randint(2, 250)}:51820\n  allowed ips: 10.8.0.2/32",
        f"[Peer]\nPublicKey = {b64b(32)}\nAllowedIPs = 10.8.0.{_r.randint(2, 250)}/32\nPersistentKeepalive = 25")),
    ("networkmanager_without_secrets", "log", lambda: pick(
        "802-11-wireless-security.key-mgmt:      wpa-psk\n802-11-wireless-security.psk:           <hidden>",
        "[wifi-security]\nkey-mgmt=wpa-psk\npsk-flags=1", "wireguard.private-key:                  <hidden>\nwireguard.private-key-flags:            1 (agent-owned)",
        f"[wireguard-peer.{b64b(32)}]\nendpoint=vpn.example.net:51820\nallowed-ips=10.8.0.0/24;")),
    ("stomp_frames", "log", lambda: pick(
        f"<<< CONNECTED\nversion:1.2\nheart-beat:10000,10000\nsession:ID:broker-{_r.randint(1, 9)}-{_r.randint(10**4, 10**5)}\nserver:ActiveMQ/6.1.0",
        f">>> SEND\ndestination:/queue/orders\ncontent-type:application/json\nreceipt:{_r.randint(1, 99)}\n\n{{\"order\": {_r.randint(1, 9999)}}}",
        f"<<< MESSAGE\nsubscription:sub-0\nmessage-id:ID:{rnd(20, LOWER_ALNUM)}-1:1:1:1:{_r.randint(1, 99)}\ndestination:/topic/prices")),
    ("sip_messages", "log", lambda: pick(
        f"INVITE sip:2001@pbx.example.net SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.{_r.randint(2, 250)}:5060;branch=z9hG4bK{rnd(10)}\r\nFrom: <sip:1001@pbx.example.net>;tag={rnd(8)}\r\nCall-ID: {hx(32)}\r\nCSeq: 1 INVITE",
        f"SIP/2.0 200 OK\r\nContact: <sip:1001@10.0.0.{_r.randint(2, 250)}:5060>;expires=3600\r\nCSeq: 2 REGISTER")),
    ("cdn_urls_without_tokens", "url", lambda: pick(
        f"https://images.example.com/p/{hx(12)}.jpg?w=800&h=600&fit=crop&auto=format&q=75",
        f"https://static.example.com/app.js?v={hx(8)}", f"https://vod.example.com/hls/{uuid()}/segment_{_r.randint(1, 400)}.ts?bitrate=2400000",
        f"https://cdn.jwplayer.com/v2/media/{rnd(8)}/poster.jpg?width=720")),
    ("signed_url_other_params", "log", lambda: pick(
        "presign params: X-Amz-Algorithm=AWS4-HMAC-SHA256 X-Amz-Expires=900 X-Amz-SignedHeaders=host",
        f"Set-Cookie: CloudFront-Key-Pair-Id=K{rnd(13, UPPER_ALNUM)}; Domain=.media.example.com; Path=/; Secure",
        f"sas policy: sv=2025-01-05 sp=rl se=2026-12-31T00:00:00Z spr=https signedResource=b", "hdnea token window: exp=+3600 acl=/hls/*",
        f"Expires={epoch()}&Key-Pair-Id=K{rnd(13, UPPER_ALNUM)}")),
    ("ids_under_auth_words", "header", lambda: pick(
        f"X-Splunk-Request-Channel: {uuid().upper()}", f'{{"text":"Success","code":0,"ackId":{_r.randint(1, 999)}}}',
        f"pveum user token list terraform@pve: tokenid=provider expire=0 privsep=1 comment=\"{pick('tf', 'ci')}\"",
        f"Idempotency-Key: {uuid()}", f"{{\"result\":\"Request will be processed\",\"took\":0.{_r.randint(1, 99)},\"requestId\":\"{uuid()}\"}}")),
    ("key_ids", "log", lambda: pick(
        f'Signature-Input: sig1=("@method" "@authority" "content-digest");created={epoch()};keyid="{pick("partner-7", "hmac-key-2")}"',
        f'{{"kid": "{hx(16)}", "alg": "RS256", "use": "sig"}}', f"x-ms-key-id: {uuid()}", f"gpg: using RSA key {hx(40).upper()}",
        f"keyId=payout-{_r.randint(2024, 2026)} algorithm=hmac-sha256")),
    ("public_jwks", "json", lambda: pick(
        json.dumps({"kty": "EC", "crv": "P-256", "kid": hx(8), "x": b64ub(32), "y": b64ub(32)}),
        json.dumps({"kty": "OKP", "crv": "Ed25519", "x": b64ub(32), "use": "sig"}),
        json.dumps({"keys": [{"kty": "RSA", "e": "AQAB", "kid": hx(16), "n": b64ub(256)}]}))),
    ("masked_proofs", "header", lambda: pick(
        f"X-Hub-Signature-256: sha256={_masked()}", f'Authorization: Hawk id="{rnd(10, LOWER_ALNUM)}", mac="{_masked()}"',
        f"Stripe-Signature: t={epoch()},v1={_masked()}", f"Authorization: Splunk {_masked()}", f"sig={_masked()}&se={epoch()}",
        f"Master-Key: {_masked()}", f"passcode:{_masked()}", f"Authorization: SharedKey {account()}:{_masked()}")),
    ("placeholder_proofs", "header", lambda: pick(
        "X-Hub-Signature-256: sha256=<signature>", "Authorization: SharedKey {account}:{signature}", "sig=${SAS_SIGNATURE}",
        "Authorization: Splunk <hec-token>", "passcode:${STOMP_PASSWORD}", "Authorization: GenieKey YOUR_API_KEY",
        "mosquitto_pub -h broker -u user -P <password> -t topic -m msg", "CLIENT_RANDOM <client_random> <master_secret>",
        "Authorization: PVEAPIToken=USER@REALM!TOKENID=UUID")),
    ("prose_about_signatures", "log", lambda: pick(
        "Compute an HMAC with SHA-256 of the raw body using your webhook secret and compare it with X-Hub-Signature-256 in constant time.",
        "SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your key and signing method.",
        "stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload",
        "The mac attribute is a base64 HMAC of the normalized request string; ts and nonce prevent replays.",
        "Set SSLKEYLOGFILE to let Wireshark decrypt TLS; never enable it in production.")),
    ("etags_and_digests", "header", lambda: pick(
        f'ETag: "{hx(32)}"', f'If-None-Match: W/"{hx(8)}-{rnd(27, ALNUM + "+/")}"', f"image: registry.example.com/app@sha256:{hx(64)}",
        f"commit {hx(40)}", f'integrity="sha384-{b64b(48)}"')),
    ("trace_and_request_ids", "header", lambda: pick(
        f"traceparent: 00-{hx(32)}-{hx(16)}-01", f"X-Amzn-Trace-Id: Root=1-{hx(8)}-{hx(24)};Parent={hx(16)};Sampled=1",
        f"x-ms-request-id: {uuid()}", f"cf-ray: {hx(16)}-AMS", f"X-Cloud-Trace-Context: {hx(32)}/{_r.randint(10**15, 10**18)};o=1")),
    ("cookies_without_credentials", "header", lambda: pick(
        "Cookie: theme=dark; lang=en-GB; tz=Europe%2FAmsterdam", f"Set-Cookie: _ga=GA1.2.{_r.randint(10**8, 10**9)}.{epoch()}; Max-Age=63072000",
        f"Set-Cookie: OptanonConsent=isGpcEnabled=0&datestamp={epoch()}&version=202409.1.0; Path=/",
        f"Set-Cookie: consent={pick('all', 'necessary')}; Path=/; SameSite=Lax", f"Cookie: recently_viewed={_r.randint(100, 999)}%2C{_r.randint(100, 999)}")),
]


def signed() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_28)
    return heldout._records(SECRETS, BENIGN, 4, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = signed()
    heldout._write(HERE / "signed_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "signed_benign.jsonl.gz", benign_rows)
    print(f"signed: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
