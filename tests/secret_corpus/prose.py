"""A fourteenth held-out set: credentials in human-written text, as MCP tools return it when they read tickets,
chat, e-mail, wikis, commit messages, PR comments, support transcripts, calendar notes and Markdown docs.

    python -m tests.secret_corpus.prose   # rewrites prose_*.jsonl.gz here

Kinds the earlier sets hold least of (``polyglot`` and ``localized`` have a few copulas in prose, ``atrest`` one
Markdown table; listed against their docstrings and format names first): English sentences that hand over a
credential ("the password is …", "use … as the token", "creds are user / …", "here's the new key … (rotate
after)", "changed the root pw to …", "ssh in as root with password …"), short labels people type (``pw: …``,
``pass - …``), inline code spans and fenced code blocks, Markdown tables with a secret column, bullet and numbered
lists (``- API key — …``), bold labels (``**Password:** …``), quoted e-mail replies (``> password: …``), Slack and
Teams messages with mentions and emoji around the secret, forwarded e-mail headers above the credentials, HTML
e-mail bodies, Markdown links and autolinks whose URL carries a password or a token, one-time codes in
messages, recovery and backup code lists, TOTP setup keys in groups, Wi-Fi passwords, door, alarm, gate and SIM
PINs in context, BIP-39 seed phrases (12 and 24 words, inline and numbered), license and product keys,
passphrases of several words, VPN pre-shared keys, meeting passcodes, a chat answer on the line after the
question, a secret in parentheses or smart quotes.

Benign: prose ABOUT passwords and tokens with no secret (resets, expiry, policies, events, LLM token counts,
UI steps), references to where a secret is kept (1Password, Vault, Bitwarden, "ask ops"), placeholders
(``<your-token>``, ``YOUR_API_KEY``, ``xxxx``, ``$TOKEN``), masked values, ordinary words after "key",
"token", "secret" and "pass" ("the key insight", "token budget", "keynote", "pass the tests"), commit hashes,
ticket ids, version strings, quoted product names, booking references and tracking numbers, docs links, chat
and e-mail about credentials without one, safety advice about seed phrases and recovery codes.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords
marked ``Fake``). No benign line holds an e-mail address. 52 secret formats x 4 and 30 benign categories x 5.
``tests/test_scrub_prose.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd
from tests.secret_corpus.infra import fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: prose() seeds it


def randtok() -> str:
    return pick(tok(28, 44), rnd(40, B64URL), rnd(32, HEX), jwt())


def pwtok() -> str:
    return pick(fpw(), fpw(), randtok())


def apikey() -> str:
    """Vendor-looking keys and plain random ones."""
    return pick(tok(32, 40), rnd(32, HEX), f"sk_test_{rnd(24)}", f"ghp_{rnd(36)}", f"xoxb-{_r.randint(10**10, 10**11)}-{_r.randint(10**10, 10**11)}-{rnd(24)}",
                rnd(40, B64URL), f"key-{rnd(32, HEX)}")


def person() -> str:
    return pick("Dana", "Priya", "Tom", "Lukas", "Mei", "Carlos", "Aisha", "Jonas", "Sofia", "Ravi")


def user() -> str:
    return pick("admin", "deploy", "svc_ci", "root", "qa", "app", "jdoe", "backup", "grafana", "reporting")


def host() -> str:
    return pick("grafana.internal.example.com", "db-staging.example.net", "10.20.0.14", "jenkins.corp.example.com", "kibana.ops.example.org")


def digits(n: int) -> str:
    while True:
        value = "".join(str(_r.randint(0, 9)) for _ in range(n))
        if len(set(value)) > 2:
            return value


BIP39 = ("canyon lizard orbit velvet harvest margin tribe oxygen shallow glimpse fossil jungle pledge quantum ripple "
         "salmon tunnel useful vintage wagon zebra bronze cactus dolphin eagle fabric gadget hybrid island jacket "
         "kitten ladder magnet napkin object palace rabbit saddle table umbrella valley walnut youth zone absorb "
         "artist battle candy desert echo forest giant habit invest jelly kingdom lemon mercy noble olympic").split()
WORDS = ("tidal", "ember", "quokka", "marble", "copper", "lantern", "violet", "granite", "sparrow", "nimbus", "otter",
         "basil", "harbor", "saffron", "pylon", "zephyr")


def seed(n: int) -> str:
    return " ".join(_r.choice(BIP39) for _ in range(n))


def passphrase() -> str:
    words = [_r.choice(WORDS) for _ in range(_r.randint(4, 5))]
    return pick(" ".join(words), "-".join(words), " ".join(words) + f" {_r.randint(10, 99)}")


def license_key() -> str:
    return pick("-".join(rnd(5, UPPER_ALNUM) for _ in range(5)), "-".join(rnd(4, UPPER_ALNUM) for _ in range(4)),
                "-".join(rnd(6, UPPER_ALNUM) for _ in range(4)))


def base32_grouped() -> str:
    raw = rnd(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    return pick(" ".join(raw[i:i + 4] for i in range(0, 32, 4)), raw.lower() if _r.random() < 0.3 else raw)


L = Callable[[str], str]


def fmt(*templates: L, value: Callable[[], str] = pwtok) -> Maker:
    return one(value, *templates)


def _recovery_codes() -> tuple[str, str]:
    kind = _r.randint(0, 3)
    if kind == 0:  # GitHub: ten 5-5 hex pairs
        codes = [f"{rnd(5, HEX)}-{rnd(5, HEX)}" for _ in range(6)]
    elif kind == 1:  # Google: 8 digits in two groups
        codes = [f"{digits(4)} {digits(4)}" for _ in range(5)]
    elif kind == 2:  # lower-case alnum 10
        codes = [rnd(10, "abcdefghjkmnpqrstuvwxyz23456789") for _ in range(6)]
    else:
        codes = [f"{rnd(4, UPPER_ALNUM)}-{rnd(4, UPPER_ALNUM)}" for _ in range(5)]
    secret = _r.choice(codes)
    layout = _r.randint(0, 3)
    if layout == 0:
        text = "Your recovery codes (each works once):\n" + "\n".join(f"  {c}" for c in codes)
    elif layout == 1:
        text = "backup codes for the shared admin account: " + ", ".join(codes)
    elif layout == 2:
        text = "## 2FA backup codes\n\n" + "\n".join(f"- `{c}`" for c in codes)
    else:
        text = f"{person()}: saving these here for the on-call laptop\n```\n" + "\n".join(codes) + "\n```"
    return secret, text


def _seed_numbered() -> tuple[str, str]:
    n = pick("12", "24")
    words = seed(int(n)).split()
    secret = " ".join(words)
    layout = _r.randint(0, 2)
    if layout == 0:
        numbered = " ".join(f"{i + 1}. {w}" for i, w in enumerate(words))  # the numbers are part of what leaks
        return numbered, "Recovery phrase for the treasury wallet:\n" + numbered
    if layout == 1:
        return secret, f"```\n{secret}\n```\n^ {n}-word seed for the test wallet, do not fund it"
    return secret, f"Mnemonic ({n} words): {secret}"


def _table() -> tuple[str, str]:
    s = pwtok()
    layout = _r.randint(0, 3)
    if layout == 0:
        return s, f"| env | user | password |\n|---|---|---|\n| staging | {user()} | {s} |"
    if layout == 1:
        return s, f"| Service | API key | Owner |\n| --- | --- | --- |\n| Mailgun sandbox | `{s}` | @{person().lower()} |"
    if layout == 2:
        return s, f"| Host | Login | Pass |\n|:-----|:------|:-----|\n| {host()} | {user()} | {s} |\n| backup01 | backup | (same as above) |"
    return s, f"Service | Token\n------- | -----\nCI bot | {s}"


def _forwarded() -> tuple[str, str]:
    s = pwtok()
    return s, pick(
        f"---------- Forwarded message ---------\nFrom: IT Service Desk\nDate: Mon, 3 Mar 2025 at 09:12\nSubject: Your new account\n\nUsername: {user()}\nPassword: {s}",
        f"Begin forwarded message:\n\n> From: Platform Team\n> Subject: Staging credentials\n>\n> user: {user()}\n> pass: {s}",
        f"-----Original Message-----\nFrom: Helpdesk\nSent: Tuesday, March 4, 2025 10:01 AM\nSubject: RE: VPN access\n\nTemporary password: {s}\nYou will be asked to change it.",
        f"Fwd: API access\n\n-------- Forwarded Message --------\nSubject: API access\n\nHere is your API key: {s}",
    )


# --- secrets ----------------------------------------------------------------------------------

PROSE_SECRETS: list[tuple[str, str, Maker]] = [
    # sentences ---------------------------------------------------------------------------------
    ("sentence_password_is", "log", fmt(
        lambda s: f"the password is {s}",
        lambda s: f"FYI the admin password for {host()} is now {s}",
        lambda s: f"Password for the staging box is {s} until we move it to Vault.",
        lambda s: f"ok so the db password is {s} — don't paste it anywhere else",
    )),
    ("sentence_use_as", "log", fmt(
        lambda s: f"use {s} as the token",
        lambda s: f"Use {s} as the API key when you call the sandbox.",
        lambda s: f"just use {s} for the password, I'll rotate it tomorrow",
        lambda s: f"You can use {s} as bearer token for now",
    )),
    ("short_labels", "log", fmt(
        lambda s: f"pw: {s}",
        lambda s: f"{user()} pw {s}",
        lambda s: f"pwd = {s}",
        lambda s: f"pass - {s}",
    )),
    ("creds_user_slash", "log", fmt(
        lambda s: f"creds are {user()} / {s}",
        lambda s: f"login: {user()} / {s}",
        lambda s: f"user/pass: {user()} / {s}",
        lambda s: f"credentials for {host()}: {user()}/{s}",
    )),
    ("heres_the_new_key", "log", fmt(
        lambda s: f"here's the new key {s} (rotate after)",
        lambda s: f"Here is the new API key: {s} — rotate after the demo",
        lambda s: f"new token: {s} (expires Friday)",
        lambda s: f"Generated a fresh key for you {s} please don't commit it",
        value=apikey)),
    ("changed_to", "log", fmt(
        lambda s: f"I rotated the token, new one is {s}",
        lambda s: f"Changed the root pw to {s}",
        lambda s: f"reset {user()}'s password to {s} and asked them to change it at first login",
        lambda s: f"updated the webhook secret to {s} in the dashboard",
    )),
    ("login_with_password", "log", fmt(
        lambda s: f"ssh root@{host()} with password {s}",
        lambda s: f"log in as {user()} with pw {s}",
        lambda s: f"you can sign in with {user()} and password {s}",
        lambda s: f"connect as {user()} using the password {s}",
    )),
    ("user_and_password_sentence", "log", fmt(
        lambda s: f"user is {user()} and the password is {s}",
        lambda s: f"The username is {user()}, password {s}.",
        lambda s: f"account {user()}, password is {s}",
        lambda s: f"username {user()} password {s}",
    )),
    ("api_key_sentence", "log", fmt(
        lambda s: f"The API key for Mailgun is {s}, don't share it",
        lambda s: f"Sandbox secret key = {s}",
        lambda s: f"our Stripe test key is {s}",
        lambda s: f"the access token I used was {s}",
        value=apikey)),
    ("secret_in_parentheses", "log", fmt(
        lambda s: f"I tested with the staging token ({s}) and it worked",
        lambda s: f"credentials ({user()}/{s}) are only valid today",
        lambda s: f"Deployed using the old key ({s}), need to switch",
        lambda s: f"password (temporary): {s}",
    )),
    ("smart_and_plain_quotes", "log", fmt(
        lambda s: f'the password is "{s}"',
        lambda s: f"password is '{s}'",
        lambda s: f"password: \u201c{s}\u201d",
        lambda s: f"the token is \u2018{s}\u2019",
    )),
    # Markdown ----------------------------------------------------------------------------------
    ("inline_code_span", "log", fmt(
        lambda s: f"The token is `{s}`",
        lambda s: f"set `API_TOKEN` to `{s}`",
        lambda s: f"password: `{s}`",
        lambda s: f"run it with `--token {s}`",
    )),
    ("fenced_code_block", "log", fmt(
        lambda s: f"```\nexport API_KEY={s}\n```",
        lambda s: f"```bash\ncurl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me\n```",
        lambda s: f"```yaml\ndatabase:\n  user: {user()}\n  password: {s}\n```",
        lambda s: "```json\n" + json.dumps({"token": s}) + "\n```",
    )),
    ("markdown_table", "log", _table),
    ("bullet_list_dash", "log", fmt(
        lambda s: f"- API key \u2014 {s}",
        lambda s: f"* Password: {s}",
        lambda s: f"- token \u2013 {s}",
        lambda s: f"\u2022 Secret: {s}",
    )),
    ("numbered_steps", "log", fmt(
        lambda s: f"1. Log in as `{user()}`\n2. Password: {s}\n3. Change it under Settings",
        lambda s: f"1) open {host()}\n2) enter the token {s}\n3) click Save",
        lambda s: f"Steps:\n  1. export TOKEN={s}\n  2. make deploy",
        lambda s: f"3. When prompted for the passphrase, type {s}",
    )),
    ("bold_labels", "log", fmt(
        lambda s: f"**Password:** {s}",
        lambda s: f"**API key**: `{s}`",
        lambda s: f"__Secret__: {s}",
        lambda s: f"*Token:* {s}",
    )),
    ("wiki_access_section", "log", fmt(
        lambda s: f"## Staging access\n\nUser: `{user()}`\nPassword: `{s}`",
        lambda s: f"### Service account\n| | |\n|---|---|\n| login | {user()} |\n| password | {s} |",
        lambda s: f"h3. Credentials\n* username: {user()}\n* password: {s}",
        lambda s: f"> **Note**: the sandbox key is `{s}`",
    )),
    ("markdown_link_credentials", "log", fmt(
        lambda s: f"[dashboard](https://{user()}:{s}@{host()}/d/overview)",
        lambda s: f"<https://{user()}:{s}@{host()}/>",
        lambda s: f"see [the export](https://files.example.com/dl?token={s})",
        lambda s: f"[Grafana]({'https'}://{host()}/?auth_token={s})",
    )),
    # e-mail --------------------------------------------------------------------------------------
    ("quoted_email_reply", "log", fmt(
        lambda s: f"> password: {s}",
        lambda s: f"> > the token is {s}",
        lambda s: f"On Tue, 4 Mar 2025, {person()} wrote:\n> the password is {s}\nThanks, got it.",
        lambda s: f"Thanks!\n\n> On Mon {person()} wrote:\n> Your API key: {s}\n> Let me know if it works.",
    )),
    ("forwarded_email", "log", _forwarded),
    ("account_created_email", "log", fmt(
        lambda s: f"Hi {person()},\n\nYour account has been created.\nUsername: {user()}\nTemporary password: {s}\n\nPlease change it at first login.",
        lambda s: f"Welcome aboard! Your initial password is {s}",
        lambda s: f"Dear customer, your one-time password is {s}. It expires in 24 hours.",
        lambda s: f"Your temporary login: {user()} / {s}",
    )),
    ("html_email_body", "log", fmt(
        lambda s: f"<p>Your password: <strong>{s}</strong></p>",
        lambda s: f"<tr><td>Password</td><td>{s}</td></tr>",
        lambda s: f"<p>API key: <code>{s}</code></p>",
        lambda s: f"<li><b>Token:</b> {s}</li>",
    )),
    # chat --------------------------------------------------------------------------------------
    ("slack_mentions_emoji", "log", fmt(
        lambda s: f"@{person().lower()} :key: {s} :pray:",
        lambda s: f"<@U02AB3CD9> here you go \U0001F511 {s}",
        lambda s: f"hey @ops-team \U0001F44B new token \u2192 {s} \U0001F64F",
        lambda s: f":lock: pass for the demo acct is {s} :lock:",
    )),
    ("teams_message", "log", fmt(
        lambda s: f"[10:42] {person()} Doe\npassword for the VM: {s}",
        lambda s: f"{person()} Smith 9:15 AM\nhere's the token {s}",
        lambda s: f"[{_r.randint(1, 12)}:{_r.randint(10, 59)} PM] {person()}: the wifi pw is {s}",
        lambda s: f"{person()} (External) 2:03 PM: key is {s} btw",
    )),
    ("chat_answer_next_line", "log", fmt(
        lambda s: f"{person()}: what's the db password?\n{person()}: {s}",
        lambda s: f"> what's the token for the sandbox?\n{s}",
        lambda s: f"Q: password for the kiosk account?\nA: {s}",
        lambda s: f"{person()} 10:01 anyone have the jenkins admin pw?\n{person()} 10:02 {s}",
    )),
    ("emoji_arrow_labels", "log", fmt(
        lambda s: f"\U0001F511 {s}",
        lambda s: f"\U0001F510 password \u2192 {s}",
        lambda s: f"key \u27A1\uFE0F {s}",
        lambda s: f"token => {s}",
    )),
    # dev text ------------------------------------------------------------------------------------
    ("commit_message", "log", fmt(
        lambda s: f"commit {sha(40)}\nAuthor: {person()} <redacted>\n\n    temp: hardcode token {s} for CI",
        lambda s: f"{sha(7)} fix: rotate leaked key (old one was {s})",
        lambda s: f"wip: use password {s} for local db",
        lambda s: f"Revert \"add api key {s}\"",
    )),
    ("pr_review_comment", "log", fmt(
        lambda s: f"Nit: don't commit `{s}`, that's the real prod key",
        lambda s: f"> +API_KEY = \"{s}\"\n\nPlease move this to secrets before merging.",
        lambda s: f"**{person().lower()}** commented on `config.py` line 12:\n> password = \"{s}\"\nThis is a live credential!",
        lambda s: f"LGTM once the token ({s}) is removed from the fixture",
        value=apikey)),
    ("ticket_body", "log", fmt(
        lambda s: f"OPS-{_r.randint(100, 9999)}: Customer can't log in. Temp password set to {s}",
        lambda s: f"#{_r.randint(1000, 9999)} [Access] Please grant staging access. Current key: {s}",
        lambda s: f"Resolution: reset password to {s}, user notified by phone.",
        lambda s: f"Steps to reproduce:\n1. call /v1/orders with token {s}\n2. observe 500",
    )),
    ("support_transcript", "log", fmt(
        lambda s: f"Agent: I've reset it. Your temporary password is {s}\nCustomer: thanks!",
        lambda s: f"[Chat] Customer: my API key is {s} and it keeps failing\n[Chat] Agent: I'll take a look",
        lambda s: f"Support (Priya): Please try again with this code: {s}",
        lambda s: f"Me: here's my token {s}\nBot: Thanks, checking your account...",
    )),
    # codes -------------------------------------------------------------------------------------
    ("one_time_codes", "log", fmt(
        lambda s: f"Your verification code is {s}. It expires in 10 minutes.",
        lambda s: f"Acme: {s} is your login code. Don't share it with anyone.",
        lambda s: f"Use code {s} to sign in",
        lambda s: f"Your one-time code: {s}",
        value=lambda: digits(6))),
    ("recovery_codes", "log", _recovery_codes),
    ("totp_setup_key", "log", fmt(
        lambda s: f"Can't scan the QR code? Enter this key instead: {s}",
        lambda s: f"2FA secret for the shared account: {s}",
        lambda s: f"authenticator setup key: {s}",
        lambda s: f"TOTP seed (for the bot) \u2014 {s}",
        value=base32_grouped)),
    ("meeting_passcode", "log", fmt(
        lambda s: f"Join Zoom Meeting\nhttps://us02web.zoom.us/j/8{digits(9)}?pwd={s}",
        lambda s: f"Meeting ID: 8{digits(2)} {digits(4)} {digits(4)}\nPasscode: {s}",
        lambda s: f"Webex access code {digits(9)}, meeting password {s}",
        lambda s: f"Dial-in PIN: {s}#",
        value=lambda: pick(digits(6), rnd(32, ALNUM), rnd(8, ALNUM)))),
    # home and office ---------------------------------------------------------------------------
    ("wifi_password", "log", fmt(
        lambda s: f"Wi-Fi: GuestNet / password {s}",
        lambda s: f"WiFi password is {s}",
        lambda s: f"SSID: Office-5G, key: {s}",
        lambda s: f"wifi for the offsite: network \"Barn\", pass {s}",
        value=lambda: pick(fpw(), passphrase().replace(" ", "-"), rnd(12, ALNUM)))),
    ("door_alarm_pin", "log", fmt(
        lambda s: f"door code is {s}#",
        lambda s: f"alarm PIN: {s}",
        lambda s: f"the gate code is {s}, the key box is by the garage",
        lambda s: f"lockbox combo {s}",
        value=lambda: digits(_r.choice([4, 5, 6])))),
    ("sim_and_card_pins", "log", fmt(
        lambda s: f"SIM PIN {digits(4)}, PUK {s}",
        lambda s: f"new corporate card PIN: {s}",
        lambda s: f"PUK code is {s} if the phone locks",
        lambda s: f"the safe combination is {s}",
        value=lambda: digits(_r.choice([6, 8])))),
    # crypto, licenses, passphrases -------------------------------------------------------------
    ("seed_phrase_inline", "log", fmt(
        lambda s: f"seed phrase: {s}",
        lambda s: f"here's the 12 words for the test wallet: {s}",
        lambda s: f"recovery phrase is \"{s}\"",
        lambda s: f"BIP39: {s}",
        value=lambda: seed(12))),
    ("seed_phrase_blocks", "log", _seed_numbered),
    ("license_keys", "log", fmt(
        lambda s: f"License key: {s}",
        lambda s: f"your serial number is {s}",
        lambda s: f"Product key \u2014 {s} (Windows 11 Pro, desk 14)",
        lambda s: f"Activate with {s} before Friday",
        value=license_key)),
    ("multi_word_passphrase", "log", fmt(
        lambda s: f"the vault passphrase is '{s}'",
        lambda s: f"passphrase: {s}",
        lambda s: f"GPG key passphrase is {s}",
        lambda s: f"the unlock phrase for the laptop is \"{s}\"",
        value=passphrase)),
    ("vpn_shared_secret", "log", fmt(
        lambda s: f"IPsec PSK: {s}",
        lambda s: f"RADIUS shared secret is {s}",
        lambda s: f"pre-shared key for the site-to-site tunnel = {s}",
        lambda s: f"the VPN group password is {s}",
    )),
    ("ssh_key_passphrase", "log", fmt(
        lambda s: f"ssh key passphrase: {s}",
        lambda s: f"the deploy key's passphrase is {s}",
        lambda s: f"keystore password {s}, key password same",
        lambda s: f"unlock the .p12 with {s}",
    )),
    # notes and mixed ---------------------------------------------------------------------------
    ("notes_arrows", "log", fmt(
        lambda s: f"Prod DB \u2192 user: app, pw: {s}",
        lambda s: f"Redis: {s} (no user)",
        lambda s: f"jenkins -> admin / {s}",
        lambda s: f"grafana admin pass={s}",
    )),
    ("calendar_note", "log", fmt(
        lambda s: f"Demo w/ ACME 3pm \u2014 login {user()} / {s}",
        lambda s: f"Reminder: rotate the staging key tomorrow (current: {s})",
        lambda s: f"Event: Pen-test kickoff\nNotes: test account pw {s}",
        lambda s: f"Location: Room 4B\nDescription: WiFi pass {s}",
    )),
    ("prose_url_token", "log", fmt(
        lambda s: f"Grab the report here: https://files.example.com/share?token={s}",
        lambda s: f"webhook URL is https://hooks.example.com/in?key={s}",
        lambda s: f"connect with postgres://{user()}:{s}@{host()}:5432/app",
        lambda s: f"the invite link https://app.example.com/join?invite_token={s} works for 7 days",
    )),
    ("secret_with_trailing_punctuation", "log", fmt(
        lambda s: f"Password is {s}.",
        lambda s: f"The token is {s}; it expires at noon.",
        lambda s: f"Key: {s}!",
        lambda s: f"(password: {s})",
    )),
    ("prefixed_keys_in_chat", "log", fmt(
        lambda s: f"@{person().lower()} try this one {s}",
        lambda s: f"new one \u2192 {s}",
        lambda s: f"{s} \u2190 that's the bot token",
        lambda s: f"pasted by mistake: {s}",
        value=lambda: pick(f"ghp_{rnd(36)}", f"xoxb-{_r.randint(10**10, 10**11)}-{_r.randint(10**10, 10**11)}-{rnd(24)}", f"sk_live_{rnd(24)}", f"glpat-{rnd(20, B64URL)}"))),
    ("secret_word_after_value", "log", fmt(
        lambda s: f"{s} is the password",
        lambda s: f"{s} is the new admin pw, change it after login",
        lambda s: f"`{s}` is the API key for the sandbox",
        lambda s: f"{s} - that's the token for CI",
    )),
    ("heres_it_colon_less", "log", fmt(
        lambda s: f"password for the shared mailbox? it's {s}",
        lambda s: f"the token? {s}",
        lambda s: f"if it asks for a password, enter {s}",
        lambda s: f"when prompted, paste {s} as the API key",
    )),
    ("admin_credentials_block", "log", fmt(
        lambda s: f"Admin credentials\n-----------------\nURL: https://{host()}/admin\nUser: {user()}\nPass: {s}",
        lambda s: f"Host: {host()}\nLogin: {user()}\nPassword: {s}\nNotes: rotate monthly",
        lambda s: f"account: {user()}\nsecret: {s}",
        lambda s: f"Credentials:\n  username \u2014 {user()}\n  password \u2014 {s}",
    )),
]


# --- benign -----------------------------------------------------------------------------------

PROSE_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("password_reset_prose", "log", lambda: pick(
        "reset your password via the link", "Forgot your password? Click \"Reset password\" on the login page.",
        "We sent a password reset link to your inbox.", "If you didn't request a password reset, ignore this message.",
        "To change your password, go to Settings > Security.", "Password reset requested for account " + user())),
    ("token_expired_prose", "log", lambda: pick(
        "the token expired, please re-auth", "Your session token has expired. Please sign in again.",
        "Token refresh failed: 401 Unauthorized", "the access token is only valid for 60 minutes",
        "invalid token, try logging out and in again", "I think the token expired overnight, re-running now")),
    ("llm_token_counts", "log", lambda: pick(
        "max 4096 tokens", f"used {_r.randint(1000, 99999):,} tokens (${_r.randint(1, 99) / 100:.2f})",
        "context window of 200k tokens", "set max_tokens to 1024 and temperature to 0.2",
        f"prompt: {_r.randint(100, 9999)} tokens, completion: {_r.randint(10, 999)} tokens",
        "we're hitting the token budget on long threads")),
    ("password_policy", "log", lambda: pick(
        "password must have 12 characters", "Passwords must include a number and a symbol.",
        "minimum password length: 12", "Passwords expire every 90 days.",
        "password must not contain your username", "Use at least 3 of: upper case, lower case, digits, symbols.")),
    ("where_the_secret_lives", "log", lambda: pick(
        "see the key in 1Password item 'Prod DB'", "API key: stored in Vault at secret/data/x",
        "the password is in the team's Bitwarden under \"Staging SSH\"", "token: ask @ops in #secrets",
        "password: see LastPass (shared folder Infra)", "creds are in the vault, path kv/ci/deploy")),
    ("placeholders", "log", lambda: pick(
        "`<your-token>`", "export API_KEY=YOUR_API_KEY", "password: xxxx", "token = \"<TOKEN>\"",
        "Authorization: Bearer $TOKEN", "use `--password <password>` to pass it non-interactively",
        "pw: ********", "API_KEY=changeme")),
    ("masked_values", "log", lambda: pick(
        f"key ending in ...{rnd(4, HEX)}", f"sk_live_****************{rnd(4)}", "password: ********",
        "token: ghp_\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022", f"API key {rnd(4, HEX)}\u2026 (hidden)",
        "secret: [REDACTED]")),
    ("ordinary_words_after_key", "log", lambda: pick(
        "the key insight is that retries must be idempotent", "the token budget for this sprint is tight",
        "keynote at 9am in the main hall", "key takeaways from the retro", "the primary key is user_id",
        "Key: press Esc to close", "secret sauce is the caching layer", "the pass rate is 98%")),
    ("commit_hashes", "log", lambda: pick(
        f"Fixed in {rnd(7, HEX)}", f"commit {sha(40)}", f"merged {rnd(7, HEX)} into main",
        f"cherry-picked {rnd(12, HEX)} onto release/2.4", f"bisect points at {sha(40)}")),
    ("ticket_ids", "log", lambda: pick(
        f"OPS-{_r.randint(100, 9999)}", f"see #{_r.randint(100, 9999)} for context", f"INC{_r.randint(1000000, 9999999)}",
        f"Linked to JIRA SEC-{_r.randint(10, 999)}: rotate credentials", f"duplicate of PROJ-{_r.randint(100, 9999)}")),
    ("version_strings", "log", lambda: pick(
        f"v{_r.randint(1, 9)}.{_r.randint(0, 30)}.{_r.randint(0, 30)}", "Release 2025.06.1-rc2", "node 20.11.1, npm 10.2.4",
        f"bumped jsonwebtoken to 9.0.{_r.randint(0, 9)}", "python-keycloak 3.9.1 released")),
    ("quoted_product_names", "log", lambda: pick(
        "we moved everything to 'Secret Manager'", "\"Key Vault\" is the Azure one", "Password Manager Pro renewal due",
        "the 'Token Studio' plugin for Figma", "\"Passkeys\" rollout starts next week", "Keychain Access won't open")),
    ("ui_steps", "log", lambda: pick(
        "Click 'Generate new token' and copy it somewhere safe", "go to Settings \u2192 API keys \u2192 Create key",
        "Select the scopes, then press Create token.", "Under Developer settings, choose Personal access tokens (classic).",
        "Paste your API key into the field labelled 'API key' and hit Save")),
    ("password_events", "log", lambda: pick(
        "Password changed successfully", f"{user()} changed their password on 2025-03-0{_r.randint(1, 9)}",
        "3 failed password attempts, account locked for 15 minutes", "password updated \u2705",
        "Your password was changed. If this wasn't you, contact support.")),
    ("docs_about_keys", "log", lambda: pick(
        "API keys are passed in the `X-API-Key` header.", "Set the `OPENAI_API_KEY` environment variable.",
        "The token must be sent as `Authorization: Bearer <token>`.", "Keys are scoped per project and can be revoked at any time.",
        "Secrets are injected at deploy time, never baked into the image.")),
    ("code_spans_without_secret", "log", lambda: pick(
        "`password = os.environ['DB_PASSWORD']`", "`token = get_token()`", "```python\napi_key = settings.API_KEY\n```",
        "call `client.auth(token=token)`", "```bash\nexport GITHUB_TOKEN=$(gh auth token)\n```")),
    ("chat_about_credentials", "log", lambda: pick(
        f"@{person().lower()} :key: rotated the prod key, new one is in Vault \U0001F389",
        "<@U02AB3CD9> did you rotate the token? \U0001F64F", "can someone DM me the staging password? \U0001F64F",
        f"{person()}: token works now, thanks!", "\U0001F512 creds moved to 1Password, deleting this thread")),
    ("quoted_replies_without_secret", "log", lambda: pick(
        "> Can you send me the password?\nSent via 1Password share link.", "> What's the token?\nCheck the vault.",
        f"On Tue, {person()} wrote:\n> password doesn't work\nReset it, try now.", "> > API key rejected\n> which one?\nthe new one",
        "> password: see ticket\nok")),
    ("tables_without_secret", "log", lambda: pick(
        "| Setting | Value |\n|---|---|\n| password_min_length | 12 |", "| Secret | Location |\n|---|---|\n| DB password | vault:secret/db |",
        "| Token type | Lifetime |\n| --- | --- |\n| access | 1h |\n| refresh | 30d |",
        "| Key | Description |\n|---|---|\n| `timeout` | request timeout in seconds |")),
    ("bullets_without_secret", "log", lambda: pick(
        "- API key \u2014 in Vault (`secret/data/stripe`)", "- Password \u2014 ask IT", "- Token: rotated monthly",
        "* Secret: managed by External Secrets", "\u2022 Key rotation: every 90 days")),
    ("recovery_code_advice", "log", lambda: pick(
        "Store your recovery codes somewhere safe.", f"You have {_r.randint(1, 9)} backup codes left.",
        "Generate new recovery codes in Settings > Security.", "Each backup code can be used only once.",
        "Lost your recovery codes? Contact an org owner.")),
    ("wifi_without_password", "log", lambda: pick(
        "Wi-Fi network: Guest (password at reception)", "the wifi password is on the fridge",
        "WiFi is down on floor 3 again", "connect to Office-5G, the password is on the whiteboard", "no wifi at the offsite, bring a hotspot")),
    ("seed_phrase_advice", "log", lambda: pick(
        "Never share your 12-word seed phrase.", "Write down your recovery phrase on paper and keep it offline.",
        "No one from support will ever ask for your seed phrase.", "BIP39 defines a list of 2048 words.",
        "A 24-word mnemonic encodes 256 bits of entropy.")),
    ("license_prose", "log", lambda: pick(
        "License: MIT", "licensed under Apache-2.0", "License key required for Pro features.",
        "Your license expires on 2026-01-31.", "See LICENSE for details.")),
    ("links_without_credentials", "log", lambda: pick(
        f"[dashboard](https://{host()}/d/{rnd(9, ALNUM)}/overview)", "see https://docs.example.com/auth#tokens",
        "<https://status.example.com/>", f"[PR #{_r.randint(100, 999)}](https://github.com/acme/api/pull/{_r.randint(100, 999)})",
        "[Rotate keys runbook](https://wiki.example.com/ops/rotate-keys)")),
    ("pin_and_code_prose", "log", lambda: pick(
        "door code changed \u2014 ask facilities", "PIN must be 4-6 digits", "alarm code: ask the front desk",
        "the gate code will be texted to you", "Your verification code has expired, request a new one.")),
    ("booking_and_tracking_refs", "log", lambda: pick(
        f"Booking reference: {rnd(6, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')}", f"Order #{_r.randint(100000, 999999)}",
        f"Invoice INV-2025-{_r.randint(1, 999):04d}", f"Flight LH{_r.randint(100, 999)} at 07:40, gate B{_r.randint(1, 40)}",
        f"Room {_r.randint(100, 599)}, floor {_r.randint(1, 5)}")),
    ("forwarded_without_secret", "log", lambda: pick(
        "---------- Forwarded message ---------\nFrom: IT Service Desk\nSubject: Password expiry notice\n\nYour password expires in 5 days.",
        "Begin forwarded message:\n\n> From: Platform Team\n> Subject: Token rotation\n>\n> All tokens will be rotated on Friday.",
        "-----Original Message-----\nFrom: Helpdesk\nSubject: RE: VPN access\n\nAccess granted, use your normal SSO login.")),
    ("commit_subjects", "log", lambda: pick(
        "fix(auth): refresh token before expiry", f"{rnd(7, HEX)} chore: bump jsonwebtoken to 9.0.2",
        "feat: add password strength meter", "refactor: move secrets loading into config module",
        "docs: explain how to create an API key", "test: cover expired token path")),
    ("calendar_without_secret", "log", lambda: pick(
        "Standup 10:00, Zoom link in the invite", "Event: Key handover with landlord, 3pm",
        "Description: agenda \u2014 token rotation, password policy review", "Location: Room 4B\nDescription: bring laptop",
        f"Meeting ID: {_r.randint(800, 899)} {digits(4)} {digits(4)}")),
]


def prose() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_14)
    return heldout._records(PROSE_SECRETS, PROSE_BENIGN, 4, 5)


def main() -> None:
    secrets, benign_rows = prose()
    heldout._write(HERE / "prose_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "prose_benign.jsonl.gz", benign_rows)
    print(f"prose: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
