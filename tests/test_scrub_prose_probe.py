"""A probe of the prose and log-format rules with fresh eyes (written apart from both sets, after their rules):
ordinary text MCP tools return that uses the rules' words as ordinary words (``pass 3 of 5``, ``pin the version to
2.1.4``, ``the key is 3 levels deep``, ``token 42 of the stream``, ``Use HS256 as the token signing algorithm``, CLI
help, changelogs, test names, Markdown tables with ordinary columns), and credentials handed over in other verbs,
punctuation and word order than the sets hold (``became``, ``will be``, ``'s now``, ``it's``, words and an arrow,
``with .. as the password``, ``Use 582913 to verify``, a gate PIN ``changed to``).

Measured before the fixes (commit 73cb9ca): scrub altered 7/155 benign texts and missed 17/82 secrets; the RE2
patterns alone 22/155 and 17/82. After: scrub 2/155 and 2/82; RE2 alone 6/155 and 2/82. Then (the verb ``pass ..
as``, a code's validity, a corrected code): scrub 0/155 and 0/82; RE2 alone 6/155 and 0/82. What is still altered is
pinned below.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus

BENIGN = [
    'Pass 3 of 5 completed in 12.4s.',
    'pass 2/4: resolving imports',
    'Please pin the version to 2.1.4 until the regression is fixed.',
    'We pin requests to 2.31.0 in constraints.txt.',
    'The key is 3 levels deep in the config tree.',
    'PIN entry disabled after 3 failed attempts.',
    'token 42 of the stream was malformed',
    'Skipping token 17 (unexpected EOF)',
    'The token count is 4096 for this model.',
    'Max tokens: 8192',
    'The build id is 20240115.3',
    'The commit is 4f2a9c1e8b7d6a5f3c2e1d0b9a8f7e6d5c4b3a21',
    'The fix is in 9f8e7d6c.',
    'The release is v3.2.1-rc2 and ships Friday.',
    'The password policy requires 12 characters and 1 digit.',
    'Password must contain at least 8 characters, including 1 number.',
    'The password for the staging box is stored in Vault under secret/staging/db.',
    'The token is only valid for 60 minutes.',
    'Your API key is shown once; copy it to a safe place.',
    'The secret is mounted at /var/run/secrets/app/token.',
    'Set the API key in the env var OPENAI_API_KEY.',
    'Use the --token flag to pass credentials to the CLI.',
    'Use v2 as the default token format.',
    'Use HS256 as the token signing algorithm.',
    'Use RS256 for the JWT signing key.',
    'Use sha256 for the key derivation function.',
    'Use base64url as the token encoding.',
    'Use utf8mb4 for the password column collation.',
    'Use PBKDF2 with 600000 iterations for the password hash.',
    'Try python3.11 for the key rotation script.',
    'Use AES256 as the key type.',
    'Enter 2 as the key size multiplier.',
    'OAuth2 is the token protocol we support.',
    'TLS1.3 is the key exchange baseline.',
    'HS512 is the default token algorithm.',
    'bcrypt12 is the password hashing preset.',
    'v2 is the token format; v1 is deprecated.',
    'Argon2id is the password hashing algorithm we recommend.',
    'reason=token_expired user=alice',
    'reason=invalid_password attempts=3',
    'reason=key_not_found key=users:4711',
    'level=warn msg="token refresh failed" reason=timeout retry=2',
    'error: key 42 not found in table users',
    'key=users:4711 miss',
    'cache key user:1234:profile evicted',
    'primary key id is auto-incremented',
    'The partition key is tenant_id.',
    'The sort key is created_at.',
    'Idempotency-Key header is required for POST.',
    '| Name | Type | Description |\n|------|------|-------------|\n| key | string | The lookup key, e.g. users42 |',
    '| Column | Type | Default |\n|---|---|---|\n| password_hash | varchar(255) | NULL |',
    '| Env | Token TTL | Notes |\n|-----|-----------|-------|\n| prod | 3600s | rotated daily |',
    '| Test | Result | Duration |\n|------|--------|----------|\n| test_token_refresh | passed | 0.3s |',
    '| Setting | Value |\n|---|---|\n| token_ttl | 3600 |',
    'test_password_reset_flow PASSED',
    'test_api_key_rotation_v2 FAILED',
    'tests/test_auth.py::test_token_expiry_3600 PASSED',
    'The exit code is 137 (OOM killed).',
    'exit code 1',
    'Exit code: 2',
    'Status code 404 returned.',
    'error code 1045: access denied for user',
    'The response code was 5003 from the upstream.',
    'Port 5432 is the default for Postgres.',
    'The error code is 4001 when the token expires.',
    'Press any key to continue.',
    'The pin count is 40 on this connector.',
    'Pin 13 is the LED output on the Arduino.',
    'GPIO pin 18 is used for PWM.',
    'Set pin 7 to HIGH.',
    'Connector has pin 1 to 8 populated.',
    'Order 12345 is your confirmation reference.',
    'Booking ref 4711 is the one for Tuesday.',
    'Room 2041 is the meeting room for the sync.',
    'Ticket 8812 is the tracking issue for this.',
    'The code is open source and lives at github.com/acme/tool.',
    'The code is 3 years old and needs a refactor.',
    'The code for this is in src/auth/token.py.',
    'See code 200 for success.',
    'Dial-in code is posted in the calendar invite.',
    'Verification code expires after 10 minutes.',
    'Enter the code we sent to your phone.',
    'Use code review to catch these issues early.',
    'Changelog: token refresh now retries 3 times (#1234).',
    'v1.4.2: password reset emails now expire after 24h.',
    'Fixed: API key validation rejected keys with dashes (GH-4821).',
    'Bumped jsonwebtoken from 8.5.1 to 9.0.0.',
    'Pinned cryptography to 41.0.7 for the key wrapping fix.',
    'nit: rename token2 to refresh_token for clarity',
    'nit: this key should be keyed by user_id2, not email',
    'LGTM. The secret handling in auth2.py looks right now.',
    'Why does key3 need to be global here?',
    'Could we pass token_v2 as the second argument instead?',
    'Usage: mytool login [--token TOKEN] [--password-stdin]',
    '  --api-key KEY       API key to use (default: $MYTOOL_API_KEY)',
    '  --pin VERSION       pin the dependency to VERSION',
    '  -p, --pass N        number of passes (default: 3)',
    '  --key-size BITS     key size in bits (2048 or 4096)',
    'Options:',
    '  --secret-file PATH  read the secret from PATH',
    'Hi Dana, thanks for reaching out! Your password was reset; you will receive an email with a link.',
    'For security, we never send passwords by email.',
    'Please rotate the key every 90 days.',
    'The token you pasted has expired; please generate a new one in Settings > Tokens.',
    'Secret scanning found 0 alerts in main.',
    'Keys are rotated by the cron job at 02:00 UTC.',
    'The keystore is at /etc/pki/keystore.p12.',
    'key rotation: 3 of 5 done',
    'pass rate is 98% across 1200 tests',
    'Your passcode must be 6 digits.',
    'PIN must be 4-6 digits.',
    'PIN length: 4 to 8 digits',
    'The combination of flags is invalid.',
    'Combination 3 of 12 failed.',
    'The license is MIT-2.0 compatible.',
    'License key format: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX',
    'Serial number format is ABCD-EFGH-IJKL.',
    'Release ID: REL-2024-Q3-0042',
    'Activation requires a valid product key from the portal.',
    'Key features in 2.0: streaming, retries, and OTLP export.',
    'The key insight is that retries compound latency.',
    'Secret sauce v2 is caching at the edge.',
    'The seed is 42 for reproducible runs.',
    'Random seed: 1234',
    'Tokenizer vocab is 50257 tokens.',
    'The hash key is sha256 of the body.',
    'This token is a JWT signed with RS256.',
    'This key is an RSA-4096 key.',
    'The code snippet below uses asyncio.',
    'The new token endpoint is /oauth2/token.',
    'A fresh token is issued on every login.',
    'The secret manager is AWS Secrets Manager in us-east-1.',
    'user / group mapping is in roles.yaml',
    'read / write access to bucket logs2024',
    'admin / editor / viewer are the roles',
    'Compare input / output sizes: 4096 / 2048 bytes.',
    'Login page: https://example.com/login?next=/dashboard2',
    'creds are in 1Password under "Staging DB".',
    'Credentials: see the team vault (entry staging2).',
    "The password? It's in the vault.",
    'Where is the token? Check Settings > API.',
    'Which key? The one in config2.yaml.',
    "What's the pin count? 40.",
    'Auth header format: Basic base64(user:password)',
    'Basic authentication failed for user alice',
    'Basic Auth2 is not supported.',
    'The authorization uses Basic scheme with TLS 1.2.',
    'GET /search code=200&q=foo',
    'code=E4001&message=token+expired',
    'key=value&other=thing',
    'The code 2FA-SETUP-GUIDE explains the flow.',
    'Download the 2FA guide from docs/2fa-setup.md.',
    'Password reset: requested at 10:42, completed at 10:44.',
    'The old password was 6 months old when it was rotated.',
    'Pass-through mode is enabled for key2 routes.',
]
# (text, the secret in it)
SECRETS = [
    ("I've set the db password to Qw7rT9xLm2Vp for now.", 'Qw7rT9xLm2Vp'),
    ('The staging password has been changed to Hx93kPq7Lw2z.', 'Hx93kPq7Lw2z'),
    ("FYI the admin password's now Zr8Kq2mWv5Tn.", 'Zr8Kq2mWv5Tn'),
    ('Root password became Lp4Xn8Wq2Rz7 after the reset.', 'Lp4Xn8Wq2Rz7'),
    ('New password for the mailbox will be Tq6Vb3Nm9Kx2.', 'Tq6Vb3Nm9Kx2'),
    ('Password for the VPN box → Gh7Kd2Lq9Wm4', 'Gh7Kd2Lq9Wm4'),
    ('the wifi password = Fk8Mz3Qw7Lp2', 'Fk8Mz3Qw7Lp2'),
    ('Credentials for jenkins: admin / Ns4Vk9Tq2Lm7', 'Ns4Vk9Tq2Lm7'),
    ('login is backup / Wp5Rq8Zx3Kn6', 'Wp5Rq8Zx3Kn6'),
    ('creds: svc-deploy / Jm3Tx7Vq9Lk2', 'Jm3Tx7Vq9Lk2'),
    ('u/p deploy / Rb2Nx6Lq8Wz4', 'Rb2Nx6Lq8Wz4'),
    ('Set the API token to ghx7Kq2Lm9Vp4Rt8Wz3Nb6Yd', 'ghx7Kq2Lm9Vp4Rt8Wz3Nb6Yd'),
    ('Here is your API key: sk7Hq2Lm9Vp4Rt8Wz3Nb6YdKx', 'sk7Hq2Lm9Vp4Rt8Wz3Nb6YdKx'),
    ('api key for the sandbox is pk4Tq8Lm2Vx7Rb3Wz9Nh6Kd', 'pk4Tq8Lm2Vx7Rb3Wz9Nh6Kd'),
    ("I'll DM you the token but it's Ax9Lq3Vm7Tp2Wk8Rz4Nb6Hd", 'Ax9Lq3Vm7Tp2Wk8Rz4Nb6Hd'),
    ('the bot token (expires Friday): Bt7Kq3Lm9Vp2Rt8Wz4Nb6Yd', 'Bt7Kq3Lm9Vp2Rt8Wz4Nb6Yd'),
    ('Token - Ck8Lq2Vm7Tp3Wk9Rz4Nb6Hd', 'Ck8Lq2Vm7Tp3Wk9Rz4Nb6Hd'),
    ('Please use Dz4Kq8Lm2Vp7Rt3Wz9Nb6Yh as your token.', 'Dz4Kq8Lm2Vp7Rt3Wz9Nb6Yh'),
    ('Go ahead and paste Ef7Lq3Vm9Tp2Wk8Rz4Nb6Hc into the token field.', 'Ef7Lq3Vm9Tp2Wk8Rz4Nb6Hc'),
    ('Log in with Gh3Kq9Lm2Vp7Rt4Wz8Nb6Yx as the password.', 'Gh3Kq9Lm2Vp7Rt4Wz8Nb6Yx'),
    ('Fr8Kq2Lm7Vp3Rt9Wz4Nb6Yd would be the new API key.', 'Fr8Kq2Lm7Vp3Rt9Wz4Nb6Yd'),
    ("Jk3Lq8Vm2Tp7Wk4Rz9Nb6Hd — that's the deploy token.", 'Jk3Lq8Vm2Tp7Wk4Rz9Nb6Hd'),
    ('`Mn7Kq2Lm9Vp4Rt8Wz3Nb6Ys` is our staging token.', 'Mn7Kq2Lm9Vp4Rt8Wz3Nb6Ys'),
    ('Qp4Lq9Vm3Tp8Wk2Rz7Nb6Hx is the service account password', 'Qp4Lq9Vm3Tp8Wk2Rz7Nb6Hx'),
    ('Rs9Kq4Lm8Vp2Rt7Wz3Nb6Yc was the old secret, rotated now.', 'Rs9Kq4Lm8Vp2Rt7Wz3Nb6Yc'),
    ('Your verification code is 482913.', '482913'),
    ('Gate code 7734#', '7734'),
    ('The alarm code is now 5821.', '5821'),
    ('door code: 9146', '9146'),
    ('Keypad code = 3372', '3372'),
    ('Lockbox combo 2648', '2648'),
    ("Safe combination is 4-8-15 (just kidding) it's 31972", '31972'),
    ('Your login code: 839201', '839201'),
    ('Use 582913 to verify your account.', '582913'),
    ('Enter 770412 to finish signing in.', '770412'),
    ('Your OTP is 447120', '447120'),
    ('PIN for the card is 8842', '8842'),
    ('my pin = 5519', '5519'),
    ('SIM PIN 2281, PUK 84419572', '84419572'),
    ('Your sign-in code is 912384. It expires in 10 minutes.', '912384'),
    ('993021 is your Slack confirmation code.', '993021'),
    ('Code: 612094 (valid 5 min)', '612094'),
    ('Password: Vt8Kq2Lm7Np3', 'Vt8Kq2Lm7Np3'),
    ('password -> Wx4Lq9Vm2Tp7', 'Wx4Lq9Vm2Tp7'),
    ('pw: Yz7Kq3Lm8Vp2', 'Yz7Kq3Lm8Vp2'),
    ('pwd = Ab3Lq9Vm4Tp8', 'Ab3Lq9Vm4Tp8'),
    ('Passwd is Cd8Kq2Lm7Vp3', 'Cd8Kq2Lm7Vp3'),
    ('Secret key: Ef2Lq8Vm3Tp9Wk4Rz7', 'Ef2Lq8Vm3Tp9Wk4Rz7'),
    ('**Password:** Gh9Kq4Lm2Vp8', 'Gh9Kq4Lm2Vp8'),
    ('_Token_: Ij4Lq7Vm9Tp2Wk8Rz3Nb6Hd', 'Ij4Lq7Vm9Tp2Wk8Rz3Nb6Hd'),
    ('> password: Kl8Kq3Lm7Vp2', 'Kl8Kq3Lm7Vp2'),
    ('- password: Mn3Lq8Vm2Tp7 (temporary)', 'Mn3Lq8Vm2Tp7'),
    ('1. Token: Op7Kq2Lm9Vp4Rt8Wz3Nb6Yd', 'Op7Kq2Lm9Vp4Rt8Wz3Nb6Yd'),
    ('Recovery codes: 8f3k-2m9x, 7q4z-1p8w, 3n6v-9r2t', '8f3k-2m9x'),
    ('Backup codes\n  4829-1735\n  9921-0043\n  1187-5562', '1187-5562'),
    ('2FA secret: JBSW Y3DP EHPK 3PXP', 'Y3DP'),
    ('TOTP seed = KRSX G5CT MVRX EZLU', 'G5CT'),
    ('license key is 7HX4K-92MQT-3PLWZ-8NVR2-KD4XT', '7HX4K-92MQT-3PLWZ-8NVR2-KD4XT'),
    ('Product key: ABCD2-EFGH3-JKLM4-NPQR5-STUV6', 'ABCD2-EFGH3-JKLM4-NPQR5-STUV6'),
    ('activate using QX7P2-LM4RK-9TZW3-VB8NC', 'QX7P2-LM4RK-9TZW3-VB8NC'),
    ('seed phrase: orbit canyon velvet ladder pepper frozen window mystery cable harvest gentle fossil', 'velvet'),
    ('recovery phrase is "amber tiger noble quartz"', 'tiger'),
    ('wallet mnemonic — apple brave cousin drama eagle fabric galaxy harbor island jungle kitten lemon', 'cousin'),
    ('passphrase: correct horse battery staple', 'staple'),
    ("the vault passphrase was 'purple monkey dishwasher lantern'", 'dishwasher'),
    ("What's the root password?\nKq8Lm2Vp7Rt3", 'Kq8Lm2Vp7Rt3'),
    ("Anyone have the staging token? it's St4Kq9Lm2Vp7Rt3Wz8Nb6Yd", 'St4Kq9Lm2Vp7Rt3Wz8Nb6Yd'),
    ('GET /cb code=4/0AX4XfWh7Kq2Lm9Vp4Rt8Wz3&state=xyz', '4/0AX4XfWh7Kq2Lm9Vp4Rt8Wz3'),
    ('"url.query": "key=AIzaSyD7Kq2Lm9Vp4Rt8Wz3Nb6Yd1&alt=json"', 'AIzaSyD7Kq2Lm9Vp4Rt8Wz3Nb6Yd1'),
    ('"Basic ZGVwbG95OlMzY3JldFBAc3M="', 'ZGVwbG95OlMzY3JldFBAc3M='),
    ('Authorization=Basic YWRtaW46aHVudGVyMjAyNA==', 'YWRtaW46aHVudGVyMjAyNA=='),
    ('token=Tk7Lq2Vm9Tp4Wk8Rz3Nb6Hd reason=refresh', 'Tk7Lq2Vm9Tp4Wk8Rz3Nb6Hd'),
    ('reason=rotated old_key=Ok8Kq3Lm7Vp2Rt9Wz4Nb6Yd', 'Ok8Kq3Lm7Vp2Rt9Wz4Nb6Yd'),
    ('| Service | Username | Password |\n|---|---|---|\n| db | admin | Pw7Kq3Lm9Vp2 |', 'Pw7Kq3Lm9Vp2'),
    ('| Env | API Key |\n|-----|---------|\n| prod | Ak9Lq2Vm7Tp4Wk8Rz3Nb6Hd |', 'Ak9Lq2Vm7Tp4Wk8Rz3Nb6Hd'),
    ('Heads up: the SMTP password got changed to Mv3Qx8Lt2Wk7', 'Mv3Qx8Lt2Wk7'),
    ('Reset done — temp pw Hd8Kq2Lm7Vx3, change it at first login.', 'Hd8Kq2Lm7Vx3'),
    ('Secret for the webhook: whsec7Kq2Lm9Vp4Rt8Wz3', 'whsec7Kq2Lm9Vp4Rt8Wz3'),
    ('New API key (prod) → sk_live_7Kq2Lm9Vp4Rt8Wz3Nb6Y', 'sk_live_7Kq2Lm9Vp4Rt8Wz3Nb6Y'),
    ('His passcode is 7G4kLm2Q9x.', '7G4kLm2Q9x'),
    ('the gate pin was changed to 4417', '4417'),
    ("Password reset for bob, it's Qz7Lm3Vx8Kt2 now", 'Qz7Lm3Vx8Kt2'),
]

# Still altered by the RE2 patterns alone, what only Python's checks spare (a capitals metavariable, a one-letter one,
# ``RS256`` that a password shape check rejects, ``--token flag to ..``: a lower-case word with prose after it, ``pass
# token_v2 as ..``: prose_secret_handoff's bare ``pass ..`` is the verb, and RE2 has no lookahead to see the ``as`` that
# says so): the Collector redacts these. Nothing is altered by scrub, nothing missed.
ALTERED: set[str] = set()
REGEX_ONLY_ALTERED = {
    "Could we pass token_v2 as the second argument instead?",
    "Use the --token flag to pass credentials to the CLI.",
    "Use RS256 for the JWT signing key.",
    "Usage: mytool login [--token TOKEN] [--password-stdin]",
    "  --api-key KEY       API key to use (default: $MYTOOL_API_KEY)",
    "  -p, --pass N        number of passes (default: 3)",
}
# Missed once: a bare ``Code:`` (error codes are written so) before how long it is valid (prose_code_valid_for), and a
# combination given again after a joke (prose_code_corrected).
MISSED: set[str] = set()


def _params(items, pinned, reason):  # type: ignore[no-untyped-def]
    return [
        pytest.param(item, marks=pytest.mark.xfail(strict=True, reason=reason)) if (item[0] if isinstance(item, tuple) else item) in pinned else item
        for item in items
    ]


@pytest.mark.parametrize("text", _params(BENIGN, ALTERED, "pinned: altered (module constants say why)"))
def test_ordinary_text_stays(text: str) -> None:
    assert scrub(text) == text


_RE2_ONLY = "pinned: the RE2 patterns alone alter it; a Python check RE2 cannot express spares it (REGEX_ONLY_ALTERED)"


@pytest.mark.parametrize("text", _params(BENIGN, REGEX_ONLY_ALTERED, _RE2_ONLY))
def test_ordinary_text_stays_in_the_collector(text: str) -> None:
    assert corpus.regex_only(text) == text


@pytest.mark.parametrize("case", _params(SECRETS, MISSED, "pinned: missed (MISSED says why)"))
def test_handed_over_secret_goes(case: tuple[str, str]) -> None:
    text, secret = case
    out = scrub(text)
    assert REDACTED in out and secret not in out


@pytest.mark.parametrize("case", _params(SECRETS, MISSED, "pinned: missed (MISSED says why)"))
def test_handed_over_secret_goes_in_the_collector(case: tuple[str, str]) -> None:
    text, secret = case
    out = corpus.regex_only(text)
    assert REDACTED in out and secret not in out


def test_probe_size() -> None:
    assert len(BENIGN) == 155 and len(SECRETS) == 82


def test_triggers_and_guard_admit_every_match_here() -> None:
    corpus.assert_rules_admitted(BENIGN + [text for text, _ in SECRETS])
