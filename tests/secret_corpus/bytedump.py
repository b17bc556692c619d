"""A twenty-seventh held-out set: secrets inside dumps of bytes (hex and ASCII columns, wire captures).

    python -m tests.secret_corpus.bytedump   # rewrites bytedump_*.jsonl.gz here

The other sets hold a secret as a run of characters of the text, however quoted, escaped, typed or marked up.
When a tool debugs a connection or a buffer it prints the bytes instead: an offset, the bytes in hex, and the
printable ones in an ASCII column of a fixed width (16 bytes a row, sometimes split in two halves of 8), with a
``.`` for every other byte. The secret is then cut into pieces at the column's edges, the key on one row and its
value on the next, or the key itself cut in two, and the separators a rule wants (``\\r\\n``, a space, a quote)
may be dots. MCP servers that proxy HTTP, gRPC, Redis or databases log such dumps at DEBUG, and their errors quote
them. Written from each tool's output format (checked against the tools where they are installed here: ``xxd``,
``hexdump``/``od``) before reading the rules. Kinds (each a family of formats, the payloads below inside them):

- hex dump programs: ``hexdump -C``/``hd`` and Go's ``hex.Dump`` (``|..|`` columns), ``xxd`` and Emacs hexl
  (two-byte groups), ``od -A x -t x1z`` (``>..<``), Python's ``hexdump``, PowerShell ``Format-Hex``, ``certutil``,
  commons-io ``HexDump``, ``hexyl`` (box drawing, the ASCII column split at 8 with ``┊``), Rust ``pretty-hex``;
- packet captures: ``tcpdump -X``/``-XX`` (the IP and TCP headers' bytes before the payload), ``tshark -x``,
  Wireshark's "Copy as Hex + ASCII" and "Follow TCP Stream" as a hex dump (the ASCII column split at 8 by a
  space, the server's side indented), scapy's ``hexdump``, ``tcpflow -D``;
- debuggers and TLS/HTTP client traces: ``lldb memory read``, WinDbg ``db`` (a ``-`` between the halves),
  ``openssl s_client -debug`` (``0000 - .. ..-.. ..``), the JDK's ``javax.net.debug`` plaintext dumps, ``curl
  --trace`` (16 bytes a row) and ``curl --trace-ascii`` (64 characters a row), Netty's ``ByteBufUtil.prettyHexDump``
  in Reactor Netty's wiretap, mitmproxy's hex view;
- dumps cut short: a capture's snap length or a logger's limit ends the dump inside the value.

Payloads: HTTP requests with ``Authorization`` (Bearer, Basic), ``X-Api-Key`` and cookies, form and JSON bodies
with passwords and client secrets, ``.env`` files, Redis ``AUTH`` in RESP, connection URLs with a password,
provider tokens (``ghp_``, ``xoxb-``, ``sk_live_``, AWS key pairs), JWTs. Benign: the same dumps of traffic and
files with no credential, each category saying why: plain requests and responses, TCP/DNS/TLS packets, ELF/PNG/PE
headers, pointers and offsets, digests and ids in hex and in text, masked and placeholder values, settings under
secret words (``password_min_length``), references, ``strings`` output of format strings.

The secret of a row is the whole value; the text holds it cut into pieces, so a row counts as found only when no
five characters of the value survive in a row of the ASCII column (``tests/corpus.py``: the literal rule, for a
secret the text does not hold in one piece). Same row format as ``../shared/corpus``; values are fake (random
bodies from a fixed seed; human passwords marked ``Fake``). No benign text holds an e-mail address. 50 secret
formats x 4 and 30 benign categories x 5. ``tests/test_scrub_bytedump.py`` scores ``errscope.scrub`` on it;
``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests import corpus
from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64URL, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw

_r = heldout._rng  # the helpers above draw from it: bytedump() seeds it

# --- payloads: (secret, bytes) ------------------------------------------------------------------------------------


def tok() -> str:
    return pick(rnd(_r.randint(28, 44)), rnd(40, HEX), rnd(43, B64URL))


def jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps({"sub": rnd(8), "exp": _r.randint(1_700_000_000, 1_900_000_000)}).encode()).decode().rstrip("=")
    return f"{head}.{body}.{rnd(43, B64URL)}"


def provider() -> str:
    return pick("ghp_" + rnd(36), "xoxb-" + f"{_r.randint(10**10, 10**11)}-{_r.randint(10**10, 10**11)}-" + rnd(24),
                "sk_live_" + rnd(32), "glpat-" + rnd(20, ALNUM + "-_"))


def host() -> str:
    return pick("api.example.com", "10.0.0.9", "auth.internal.example", "registry.example.com:5000", "billing.svc.cluster.local")


def path() -> str:
    return pick("/api/v1/orders", "/v2/_catalog", "/oauth/token", "/admin/users", "/metrics/job/batch", "/graphql")


def http_bearer() -> tuple[str, bytes]:
    s = pick(tok(), jwt(), provider())
    return s, (f"GET {path()} HTTP/1.1\r\nHost: {host()}\r\nAuthorization: Bearer {s}\r\n"
               f"Accept: */*\r\n\r\n").encode()


def http_basic() -> tuple[str, bytes]:
    cred = base64.b64encode(f"{pick('ops', 'ci', 'deploy', 'admin')}:{fpw()}".encode()).decode()
    return cred, f"GET {path()} HTTP/1.1\r\nHost: {host()}\r\nUser-Agent: curl/8.5.0\r\nAuthorization: Basic {cred}\r\n\r\n".encode()


def http_api_key() -> tuple[str, bytes]:
    s = tok()
    name = pick("X-Api-Key", "x-api-key", "Api-Key", "X-Auth-Token", "PRIVATE-TOKEN")
    return s, f"POST {path()} HTTP/1.1\r\nHost: {host()}\r\n{name}: {s}\r\nContent-Length: 0\r\n\r\n".encode()


def http_cookie() -> tuple[str, bytes]:
    s = rnd(_r.randint(32, 48), B64URL)
    name = pick("session", "sessionid", "connect.sid", "_app_session", "auth_token")
    return s, f"GET {path()} HTTP/1.1\r\nHost: {host()}\r\nCookie: theme=dark; {name}={s}\r\n\r\n".encode()


def form_body() -> tuple[str, bytes]:
    p = fpw()
    body = f"username={pick('ops', 'alice', 'svc-sync')}&password={p}&grant_type=password"
    return p, f"POST /login HTTP/1.1\r\nHost: {host()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode()


def json_body() -> tuple[str, bytes]:
    s = pick(tok(), fpw())
    key = pick("client_secret", "password", "api_key", "refresh_token", "secret")
    body = json.dumps({"client_id": pick("mcp-gw", "billing", "sync"), key: s, "scope": "read write"})
    return s, f"POST /oauth/token HTTP/1.1\r\nHost: {host()}\r\nContent-Type: application/json\r\n\r\n{body}".encode()


def env_file() -> tuple[str, bytes]:
    s = pick(fpw(), tok(), provider())
    key = pick("DB_PASSWORD", "API_KEY", "SLACK_BOT_TOKEN", "CLIENT_SECRET", "STRIPE_SECRET_KEY", "GITHUB_TOKEN")
    return s, f"APP_ENV=production\nLOG_LEVEL=debug\n{key}={s}\nPORT=8080\n".encode()


def redis_auth() -> tuple[str, bytes]:
    p = fpw()
    if _r.random() < 0.5:
        return p, f"*2\r\n$4\r\nAUTH\r\n${len(p)}\r\n{p}\r\n".encode()
    return p, f"*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n${len(p)}\r\n{p}\r\n".encode()


def dsn_payload() -> tuple[str, bytes]:
    p = fpw()
    url = pick(f"postgresql://app:{p}@db.internal:5432/orders", f"mongodb://svc:{p}@mongo-0.mongo:27017/admin",
               f"amqp://worker:{p}@rabbitmq:5672/%2F", f"redis://:{p}@cache:6379/0")
    return p, f"DATABASE_URL={url}\n".encode() if _r.random() < 0.5 else f'{{"dsn": "{url}", "pool": 10}}'.encode()


def bare_provider() -> tuple[str, bytes]:
    s = provider()
    return s, pick(f"token {s}\n", f"{s}\n", f"\"{s}\"").encode()


def aws_pair() -> tuple[str, bytes]:
    s = rnd(40, ALNUM + "/+")
    return s, (f"[default]\naws_access_key_id = AKIA{rnd(16, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ')}\n"
               f"aws_secret_access_key = {s}\n").encode()


PAYLOADS: dict[str, Callable[[], tuple[str, bytes]]] = {
    "bearer": http_bearer, "basic": http_basic, "api_key": http_api_key, "cookie": http_cookie, "form": form_body,
    "json": json_body, "env": env_file, "redis": redis_auth, "dsn": dsn_payload, "provider": bare_provider,
    "aws": aws_pair,
}

# --- dumpers: each renders bytes as its tool prints them --------------------------------------------------------


def _printable(b: int) -> str:
    return chr(b) if 0x20 <= b < 0x7F else "."


def _rows(data: bytes, width: int = 16) -> list[tuple[int, bytes]]:
    return [(i, data[i:i + width]) for i in range(0, len(data), width)]


def hexdump_c(data: bytes, base: int = 0) -> str:
    """``hexdump -C`` / ``hd`` / Go's ``hex.Dump``: two halves of 8, ``|ascii|``, then the length."""
    out = []
    for off, row in _rows(data):
        h = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        out.append(f"{base + off:08x}  {h:<48}  |{''.join(map(_printable, row))}|")
    out.append(f"{base + len(data):08x}")
    return "\n".join(out)


def go_hex_dump(data: bytes) -> str:
    return "\n".join(hexdump_c(data).split("\n")[:-1])


def xxd(data: bytes, upper: bool = False) -> str:
    """``xxd`` (and vim's ``:%!xxd``, Emacs hexl): two-byte groups, the ASCII after two spaces."""
    out = []
    for off, row in _rows(data):
        groups = " ".join(row[i:i + 2].hex() for i in range(0, len(row), 2))
        if upper:
            groups = groups.upper()
        out.append(f"{off:08x}: {groups:<39}  {''.join(map(_printable, row))}")
    return "\n".join(out)


def od_x1z(data: bytes) -> str:
    """``od -A x -t x1z -v``."""
    out = [f"{off:06x} {' '.join(f'{b:02x}' for b in row):<47}  >{''.join(map(_printable, row))}<" for off, row in _rows(data)]
    return "\n".join(out + [f"{len(data):06x}"])


def py_hexdump(data: bytes) -> str:
    """Python's ``hexdump`` package: upper-case bytes, halves of 8, the ASCII after two spaces."""
    out = []
    for off, row in _rows(data):
        h = " ".join(f"{b:02X}" for b in row[:8]) + "  " + " ".join(f"{b:02X}" for b in row[8:])
        out.append(f"{off:08X}: {h:<48}  {''.join(map(_printable, row))}")
    return "\n".join(out)


def format_hex(data: bytes) -> str:
    """PowerShell 5 ``Format-Hex``."""
    head = "           00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F\n"
    rows = [f"{off:08X}   {' '.join(f'{b:02X}' for b in row):<47}  {''.join(map(_printable, row))}" for off, row in _rows(data)]
    return head + "\n" + "\n".join(rows)


def certutil(data: bytes) -> str:
    """``certutil -encodehex`` / ``certutil -dump``: halves of 8 with two spaces, three spaces before the ASCII."""
    out = []
    for off, row in _rows(data):
        h = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        out.append(f"{off:04x}  {h:<48}   {''.join(map(_printable, row))}")
    return "\n".join(out)


def commons_io(data: bytes) -> str:
    """Apache commons-io ``HexDump.dump``: upper-case, single spaces, the ASCII after one space."""
    out = [f"{off:08X} {' '.join(f'{b:02X}' for b in row)} {''.join(map(_printable, row))}" for off, row in _rows(data)]
    return "\n".join(out)


def hexyl(data: bytes) -> str:
    """``hexyl --color=never``: box drawing, halves of 8 split by ``┊`` in both columns."""
    top = "┌────────┬─────────────────────────┬─────────────────────────┬────────┬────────┐"
    bottom = "└────────┴─────────────────────────┴─────────────────────────┴────────┴────────┘"
    out = [top]
    for off, row in _rows(data):
        a, b = row[:8], row[8:]
        ha = " ".join(f"{x:02x}" for x in a)
        hb = " ".join(f"{x:02x}" for x in b)
        out.append(f"│{off:08x}│ {ha:<23} ┊ {hb:<23} │{''.join(map(_printable, a)):<8}┊{''.join(map(_printable, b)):<8}│")
    return "\n".join(out + [bottom])


def pretty_hex(data: bytes) -> str:
    """Rust ``pretty-hex``: groups of 4, the length first."""
    out = [f"Length: {len(data)} (0x{len(data):x}) bytes"]
    for off, row in _rows(data):
        groups = "  ".join(" ".join(f"{b:02x}" for b in row[i:i + 4]) for i in range(0, len(row), 4))
        out.append(f"{off:04x}:   {groups:<52}   {''.join(map(_printable, row))}")
    return "\n".join(out)


def _ip_tcp_header(n: int) -> bytes:
    return (bytes.fromhex("4500") + (n + 52).to_bytes(2, "big") + _r.randbytes(2) + bytes.fromhex("40004006")
            + _r.randbytes(2) + bytes([10, 0, 0, _r.randint(2, 250), 10, 0, 0, 9]) + _r.randint(30000, 60000).to_bytes(2, "big")
            + bytes.fromhex("0050") + _r.randbytes(8) + bytes.fromhex("8018") + _r.randbytes(2) + bytes.fromhex("0000")
            + bytes.fromhex("0101080a") + _r.randbytes(8))


def tcpdump_x(data: bytes, ether: bool = False) -> str:
    """``tcpdump -X`` (``-XX``: with the Ethernet header): the packet line, then ``0x0000:`` rows of 4-digit groups."""
    pkt = _ip_tcp_header(len(data)) + data
    if ether:
        pkt = _r.randbytes(12) + bytes.fromhex("0800") + pkt
    head = (f"10:0{_r.randint(0, 9)}:{_r.randint(10, 59)}.{_r.randint(100000, 999999)} IP 10.0.0.{_r.randint(2, 250)}."
            f"{_r.randint(30000, 60000)} > 10.0.0.9.http: Flags [P.], seq 1:{len(data) + 1}, ack 1, win 502, length {len(data)}")
    out = [head]
    for off, row in _rows(pkt):
        groups = " ".join(row[i:i + 2].hex() for i in range(0, len(row), 2))
        out.append(f"\t0x{off:04x}:  {groups:<39}  {''.join(map(_printable, row))}")
    return "\n".join(out)


def tshark_x(data: bytes) -> str:
    """``tshark -x`` (and Wireshark's "Copy as Hex + ASCII Dump"): 4-digit offsets, halves of 8."""
    pkt = _r.randbytes(12) + bytes.fromhex("0800") + _ip_tcp_header(len(data)) + data
    out = []
    for off, row in _rows(pkt):
        h = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        out.append(f"{off:04x}  {h:<48}   {''.join(map(_printable, row))}")
    return "\n".join(out)


def follow_stream(data: bytes, reply: bytes | None = None) -> str:
    """Wireshark "Follow TCP Stream" shown as a hex dump: the ASCII column split at 8 by a space, the server's
    bytes indented by four spaces."""
    def rows(d: bytes, indent: str) -> list[str]:
        out = []
        for off, row in _rows(d):
            h = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
            asc = "".join(map(_printable, row[:8])) + " " + "".join(map(_printable, row[8:]))
            out.append(f"{indent}{off:08x}  {h:<48}  {asc}")
        return out
    lines = rows(data, "")
    if reply:
        lines += rows(reply, "    ")
    return "\n".join(lines)


def scapy_hexdump(data: bytes) -> str:
    """scapy's ``hexdump(pkt)``: upper-case bytes, single spaces, the ASCII after two spaces."""
    pkt = _ip_tcp_header(len(data)) + data
    return "\n".join(f"{off:04X}  {' '.join(f'{b:02X}' for b in row):<47}  {''.join(map(_printable, row))}" for off, row in _rows(pkt))


def tcpflow_d(data: bytes) -> str:
    """``tcpflow -c -D``: the flow's name, then xxd-like rows with 4-digit offsets."""
    name = f"010.000.000.{_r.randint(2, 250):03d}.{_r.randint(30000, 60000):05d}-010.000.000.009.00080"
    out = [name + ":"]
    for off, row in _rows(data):
        groups = " ".join(row[i:i + 2].hex() for i in range(0, len(row), 2))
        out.append(f"{off:04x}: {groups:<39}  {''.join(map(_printable, row))}")
    return "\n".join(out)


def lldb_read(data: bytes) -> str:
    """``(lldb) memory read``: an address, the bytes, the ASCII after two spaces."""
    base = 0x16FDFF000 + _r.randint(0, 0xFFF) * 16
    return "(lldb) memory read --count {n} {a:#x}\n".format(n=len(data), a=base) + "\n".join(
        f"{base + off:#x}: {' '.join(f'{b:02x}' for b in row):<47}  {''.join(map(_printable, row))}" for off, row in _rows(data))


def windbg_db(data: bytes) -> str:
    """WinDbg ``db``: a backtick in the 64-bit address, a ``-`` between the halves."""
    base = 0x000000D4_1F7FE000 + _r.randint(0, 0xFFF) * 16
    out = [f"0:000> db {base >> 32:08x}`{base & 0xFFFFFFFF:08x} L{len(data):x}"]
    for off, row in _rows(data):
        a = base + off
        h = " ".join(f"{b:02x}" for b in row[:8]) + ("-" if len(row) > 8 else "") + " ".join(f"{b:02x}" for b in row[8:])
        out.append(f"{a >> 32:08x}`{a & 0xFFFFFFFF:08x}  {h:<47}  {''.join(map(_printable, row))}")
    return "\n".join(out)


def openssl_debug(data: bytes) -> str:
    """``openssl s_client -debug``/``-msg`` BIO dumps: ``0000 - .. ..-.. ..   ascii``."""
    out = [f"write to 0x{_r.randint(0x5555_0000_0000, 0x5555_ffff_ffff):x} [0x{_r.randint(0x5555_0000_0000, 0x5555_ffff_ffff):x}] ({len(data)} bytes => {len(data)} (0x{len(data):X}))"]
    for off, row in _rows(data):
        h = " ".join(f"{b:02x}" for b in row[:8]) + ("-" if len(row) > 8 else "") + " ".join(f"{b:02x}" for b in row[8:])
        out.append(f"{off:04x} - {h:<47}   {''.join(map(_printable, row))}")
    return "\n".join(out)


def jsse_plaintext(data: bytes) -> str:
    """The JDK's ``-Djavax.net.debug=ssl:record:plaintext``: ``Plaintext before ENCRYPTION (`` then rows."""
    out = [f'javax.net.ssl|DEBUG|{_r.randint(10, 99)}|main|2026-12-04 04:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{_r.randint(100, 999)} UTC|SSLSocketOutputRecord.java:331|WRITE: TLSv1.3 application_data, length = {len(data)}',
           'javax.net.ssl|DEBUG|... |Plaintext before ENCRYPTION (']
    for off, row in _rows(data):
        h = " ".join(f"{b:02X}" for b in row[:8]) + "   " + " ".join(f"{b:02X}" for b in row[8:])
        out.append(f"  {off:04X}: {h:<49}  {''.join(map(_printable, row))}")
    return "\n".join(out + [")"])


def curl_trace(data: bytes) -> str:
    """``curl --trace -``: ``=> Send header``, then 16 bytes a row with no space before the ASCII column's end."""
    out = [f"=> Send header, {len(data)} bytes (0x{len(data):x})"]
    for off, row in _rows(data):
        out.append(f"{off:04x}: {' '.join(f'{b:02x}' for b in row):<48}{''.join(map(_printable, row))}")
    return "\n".join(out)


def curl_trace_ascii(data: bytes) -> str:
    """``curl --trace-ascii -``: a line of the payload a row, its CR LF not printed but counted in the next
    offset; a row holds at most 64 bytes, so a longer line goes on in the next row (curl's ``dump``)."""
    out = [f"=> Send header, {len(data)} bytes (0x{len(data):x})"]
    i = 0
    while i < len(data):
        c = 0
        while c < 64 and i + c < len(data):
            if data[i + c:i + c + 2] == b"\r\n":
                break
            c += 1
        out.append(f"{i:04x}: {''.join(map(_printable, data[i:i + c]))}")
        i += c + 2 if data[i + c:i + c + 2] == b"\r\n" else c
    return "\n".join(out)


def netty_pretty(data: bytes) -> str:
    """Netty's ``ByteBufUtil.prettyHexDump`` (what ``LoggingHandler``/Reactor Netty's wiretap print)."""
    out = ["         +-------------------------------------------------+",
           "         |  0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f |",
           "+--------+-------------------------------------------------+----------------+"]
    for off, row in _rows(data):
        h = " ".join(f"{b:02x}" for b in row)
        out.append(f"|{off:08x}| {h:<47} |{''.join(map(_printable, row)):<16}|")
    out.append("+--------+-------------------------------------------------+----------------+")
    return "\n".join(out)


def reactor_wiretap(data: bytes) -> str:
    cid = rnd(8, HEX)
    head = (f"2026-12-04 04:{_r.randint(10, 59)}:{_r.randint(10, 59)}.{_r.randint(100, 999)} DEBUG 1 --- [ctor-http-nio-{_r.randint(1, 8)}] "
            f"reactor.netty.http.client.HttpClient     : [{cid}-1, L:/10.0.0.5:{_r.randint(30000, 60000)} - R:{pick('api.example.com', 'auth.internal.example')}/10.0.0.9:443] WRITE: {len(data)}B")
    return head + "\n" + netty_pretty(data)


def mitmproxy_hex(data: bytes) -> str:
    """mitmproxy's hex view: 10-digit offsets, single spaces, two before the ASCII."""
    return "\n".join(f"{off:010x} {' '.join(f'{b:02x}' for b in row):<47}  {''.join(map(_printable, row))}" for off, row in _rows(data))


def snap(data: bytes, at: int) -> bytes:
    """A capture or logger cut at ``at`` bytes."""
    return data[:at]


# --- secrets: (dumper, payloads) -----------------------------------------------------------------------------------


def fmt(dumper: Callable[[bytes], str], *payloads: str, cut: bool = False) -> Maker:
    def make() -> tuple[str, str]:
        secret, data = PAYLOADS[_r.choice(payloads)]()
        if cut:
            start = data.index(secret.encode()) if secret.encode() in data else 0
            data = snap(data, start + _r.randint(len(secret) // 2 + 5, len(secret) - 3))
            return secret, dumper(data) + pick("\n... (truncated)", "\n[dump truncated at {} bytes]".format(len(data)), "")
        return secret, dumper(data)
    return make


SECRETS: list[tuple[str, str, Maker]] = [
    ("hexdump_c_bearer", "log", fmt(hexdump_c, "bearer")),
    ("hexdump_c_basic", "log", fmt(hexdump_c, "basic", "api_key")),
    ("hexdump_c_form_json", "log", fmt(hexdump_c, "form", "json")),
    ("hexdump_c_env_file", "log", fmt(hexdump_c, "env", "aws")),
    ("hexdump_c_redis_dsn", "log", fmt(hexdump_c, "redis", "dsn")),
    ("go_hex_dump_http", "log", fmt(go_hex_dump, "bearer", "cookie", "api_key")),
    ("go_hex_dump_body", "log", fmt(go_hex_dump, "json", "provider")),
    ("xxd_bearer_basic", "log", fmt(xxd, "bearer", "basic")),
    ("xxd_env_aws", "log", fmt(xxd, "env", "aws")),
    ("xxd_form_json", "log", fmt(xxd, "form", "json", "dsn")),
    ("xxd_upper_hexl", "log", fmt(lambda d: xxd(d, upper=True), "bearer", "env", "cookie")),
    ("od_x1z_http", "log", fmt(od_x1z, "bearer", "api_key", "form")),
    ("od_x1z_files", "log", fmt(od_x1z, "env", "aws", "dsn")),
    ("python_hexdump", "log", fmt(py_hexdump, "bearer", "json", "redis")),
    ("powershell_format_hex", "log", fmt(format_hex, "env", "basic", "provider")),
    ("certutil_dump", "log", fmt(certutil, "aws", "dsn", "api_key")),
    ("commons_io_hexdump", "log", fmt(commons_io, "bearer", "form", "json")),
    ("hexyl_box", "log", fmt(hexyl, "bearer", "env", "form")),
    ("hexyl_box_tokens", "log", fmt(hexyl, "provider", "aws", "cookie")),
    ("pretty_hex_rust", "log", fmt(pretty_hex, "bearer", "json", "env")),
    ("tcpdump_x_bearer", "log", fmt(tcpdump_x, "bearer", "basic")),
    ("tcpdump_x_form", "log", fmt(tcpdump_x, "form", "json", "api_key")),
    ("tcpdump_x_redis", "log", fmt(tcpdump_x, "redis", "cookie")),
    ("tcpdump_xx_ether", "log", fmt(lambda d: tcpdump_x(d, ether=True), "bearer", "basic", "form")),
    ("tshark_x_http", "log", fmt(tshark_x, "bearer", "api_key", "cookie")),
    ("tshark_x_body", "log", fmt(tshark_x, "json", "form", "redis")),
    ("wireshark_follow_stream", "log", fmt(follow_stream, "bearer", "basic", "form")),
    ("wireshark_follow_stream_body", "log", fmt(follow_stream, "json", "cookie", "api_key")),
    ("wireshark_follow_two_sides", "log", fmt(lambda d: follow_stream(d, b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"), "bearer", "basic")),
    ("scapy_hexdump", "log", fmt(scapy_hexdump, "bearer", "form", "redis")),
    ("tcpflow_hex", "log", fmt(tcpflow_d, "bearer", "json", "basic")),
    ("lldb_memory_read", "log", fmt(lldb_read, "env", "dsn", "provider")),
    ("lldb_memory_read_http", "log", fmt(lldb_read, "bearer", "api_key")),
    ("windbg_db", "log", fmt(windbg_db, "env", "json", "aws")),
    ("windbg_db_http", "log", fmt(windbg_db, "basic", "bearer")),
    ("openssl_s_client_debug", "log", fmt(openssl_debug, "bearer", "basic", "api_key")),
    ("openssl_s_client_body", "log", fmt(openssl_debug, "json", "form")),
    ("jsse_plaintext", "log", fmt(jsse_plaintext, "bearer", "basic", "json")),
    ("curl_trace_hex", "log", fmt(curl_trace, "bearer", "basic", "cookie")),
    ("curl_trace_hex_body", "log", fmt(curl_trace, "json", "form", "api_key")),
    ("curl_trace_ascii_wrapped", "log", fmt(curl_trace_ascii, "bearer", "cookie")),
    ("netty_pretty_hex_dump", "log", fmt(netty_pretty, "bearer", "basic", "api_key")),
    ("reactor_netty_wiretap", "log", fmt(reactor_wiretap, "bearer", "json", "form")),
    ("mitmproxy_hex_view", "log", fmt(mitmproxy_hex, "bearer", "cookie", "json")),
    ("hexdump_c_cut_short", "log", fmt(hexdump_c, "bearer", "env", "api_key", cut=True)),
    ("xxd_cut_short", "log", fmt(xxd, "bearer", "basic", "json", cut=True)),
    ("tcpdump_x_snaplen", "log", fmt(tcpdump_x, "bearer", "form", "cookie", cut=True)),
    ("netty_cut_short", "log", fmt(netty_pretty, "bearer", "api_key", cut=True)),
    ("hexdump_c_offset_base", "log", fmt(lambda d: hexdump_c(d, base=_r.randint(1, 400) * 16 + _r.choice([0, 3, 7, 11])), "bearer", "env", "json")),
    ("wireshark_bare_provider", "log", fmt(follow_stream, "provider", "aws")),
]


# --- benign -------------------------------------------------------------------------------------------------------


def _plain_request() -> bytes:
    return (f"GET {path()}?page={_r.randint(1, 40)} HTTP/1.1\r\nHost: {host()}\r\nUser-Agent: {pick('curl/8.5.0', 'python-httpx/0.28.1', 'Go-http-client/1.1')}\r\n"
            f"Accept: application/json\r\ntraceparent: 00-{rnd(32, HEX)}-{rnd(16, HEX)}-01\r\n\r\n").encode()


def _plain_response() -> bytes:
    return (f"HTTP/1.1 {pick('200 OK', '404 Not Found', '503 Service Unavailable')}\r\nContent-Type: application/json\r\n"
            f"ETag: \"{rnd(32, HEX)}\"\r\nX-Request-Id: {uuid()}\r\nContent-Length: {_r.randint(2, 900)}\r\n\r\n").encode()


def _masked_request() -> bytes:
    mask = pick("****", "[REDACTED]", "********", "<redacted>", "xxxxxxxx")
    return pick(f"GET {path()} HTTP/1.1\r\nHost: {host()}\r\nAuthorization: Bearer {mask}\r\n\r\n",
                f"username=ops&password={mask}&grant_type=password",
                f"{{\"client_id\": \"mcp-gw\", \"client_secret\": \"{mask}\"}}",
                f"DB_PASSWORD={mask}\nAPI_KEY={mask}\n").encode()


def _placeholder_file() -> bytes:
    return pick("DB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=<your-api-key>\n", "password: {{ .Values.db.password }}\n",
                "STRIPE_SECRET_KEY=\nGITHUB_TOKEN=\n", "api_key = \"YOUR_API_KEY\"\ntoken = \"changeme\"\n").encode()


def _settings() -> bytes:
    return pick(f"password_min_length={_r.randint(8, 16)}\ntoken_ttl={_r.randint(60, 86400)}\n",
                f"{{\"token_count\": {_r.randint(1, 9000)}, \"max_tokens\": 4096, \"key_id\": \"{uuid()}\"}}",
                f"session_timeout=1800\npassword_reset_enabled=true\nkey_rotation_days=90\n",
                f"Keep-Alive: timeout=5, max=100\r\nX-RateLimit-Remaining: {_r.randint(0, 5000)}\r\n").encode()


def _reference() -> bytes:
    return pick("DB_PASSWORD_FILE=/run/secrets/db_password\n", "api_key: vault:secret/data/stripe#key\n",
                "password: !secret db_password\n", "token_ref=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/api\n").encode()


def _ids() -> bytes:
    return pick(f"order={_r.randint(10**6, 10**7)} trace={rnd(32, HEX)} span={rnd(16, HEX)}\n",
                f"{{\"id\": \"{uuid()}\", \"commit\": \"{rnd(40, HEX)}\", \"status\": \"ok\"}}",
                f"tree {rnd(40, HEX)}\nparent {rnd(40, HEX)}\nauthor ci-bot 1764820000 +0000\n",
                f"sha256:{rnd(64, HEX)}\n").encode()


def _binary(n: int) -> bytes:
    return _r.randbytes(n)


def _elf() -> bytes:
    return bytes.fromhex("7f454c4602010100000000000000000003003e0001000000") + _r.randbytes(_r.randint(24, 40))


def _png() -> bytes:
    return bytes.fromhex("89504e470d0a1a0a0000000d49484452") + _r.randbytes(_r.randint(16, 40))


def _pe() -> bytes:
    return b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"This program cannot be run in DOS mode.\r\r\n$" + _r.randbytes(8)


def _dns_query() -> bytes:
    name = pick("api.example.com", "auth.internal.example", "registry.example.com")
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
    return _r.randbytes(2) + bytes.fromhex("01000001000000000000") + labels + bytes.fromhex("00010001")


def _tls_hello() -> bytes:
    return bytes.fromhex("160301") + _r.randint(200, 512).to_bytes(2, "big") + bytes.fromhex("0100") + _r.randbytes(2) + bytes.fromhex("0303") + _r.randbytes(32) + b"\x00\x0fapi.example.com"


def _resp_get() -> bytes:
    k = pick(f"user:{_r.randint(1000, 9999)}", f"cart:{uuid()}", "feature_flags", f"rate:{rnd(8, HEX)}")
    return f"*2\r\n$3\r\nGET\r\n${len(k)}\r\n{k}\r\n".encode()


def _protobuf() -> bytes:
    return b"\x0a\x24" + uuid().encode() + b"\x12\x06orders\x18" + bytes([_r.randint(1, 127)]) + b"\x22\x09eu-west-1"


def _gdb_pointers() -> str:
    base = 0x7FFFFFFFE000 + _r.randint(0, 0xFF) * 16
    return "(gdb) x/8xg {:#x}\n".format(base) + "\n".join(
        f"{base + i * 16:#x}:\t0x{_r.randint(0x5555_5555_0000, 0x5555_5555_ffff):016x}\t0x{_r.randint(0x7fff_f7d0_0000, 0x7fff_f7ff_ffff):016x}" for i in range(4))


def _od_c(data: bytes) -> str:
    esc = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
    out = []
    for off, row in _rows(data):
        cells = "".join(f"{esc.get(b, chr(b) if 0x20 <= b < 0x7F else f'{b:03o}'):>4}" for b in row)
        out.append(f"{off:07o}{cells}")
    return "\n".join(out + [f"{len(data):07o}"])


def _xxd_p(data: bytes) -> str:
    h = data.hex()
    return "\n".join(h[i:i + 60] for i in range(0, len(h), 60))


def _strings_out() -> str:
    return pick("libssl.so.3\nlibcrypto.so.3\npassword: %s\nInvalid token: %s\nGLIBC_2.34\n_ITM_registerTMCloneTable",
                "usage: %s [-p password] [-k keyfile]\nerror: token expired\nAuthorization: Bearer %s\nsecret_key_base\n.rodata",
                f"Go build ID: \"{rnd(20, ALNUM)}/{rnd(20, ALNUM)}\"\nruntime.gopanic\nnet/http.(*Client).Do\napi_key\n")


BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("hexdump_c_plain_request", "log", lambda: hexdump_c(_plain_request())),
    ("hexdump_c_plain_response", "log", lambda: pick(hexdump_c(_plain_response()), go_hex_dump(_plain_response()))),
    ("xxd_plain_http", "log", lambda: xxd(pick(_plain_request(), _plain_response()))),
    ("xxd_ids_and_digests", "log", lambda: xxd(_ids())),
    ("od_x1z_settings", "log", lambda: od_x1z(_settings())),
    ("tcpdump_x_handshake", "log", lambda: tcpdump_x(b"")),
    ("tcpdump_x_plain_request", "log", lambda: tcpdump_x(_plain_request())),
    ("tshark_x_dns_query", "log", lambda: tshark_x(_dns_query())),
    ("tshark_x_tls_client_hello", "log", lambda: tshark_x(_tls_hello())),
    ("follow_stream_plain", "log", lambda: follow_stream(_plain_request(), _plain_response())),
    ("netty_plain_request", "log", lambda: reactor_wiretap(pick(_plain_request(), _plain_response()))),
    ("hexyl_file_headers", "log", lambda: hexyl(pick(_elf(), _png(), _pe()))),
    ("od_c_text_file", "log", lambda: _od_c(pick(_settings(), _ids(), _plain_response()))),
    ("masked_values_dumped", "log", lambda: pick(hexdump_c, xxd, netty_pretty, follow_stream)(_masked_request())),
    ("masked_values_in_capture", "log", lambda: pick(tcpdump_x, tshark_x, openssl_debug)(_masked_request())),
    ("placeholders_dumped", "log", lambda: pick(hexdump_c, xxd, od_x1z, py_hexdump)(_placeholder_file())),
    ("settings_dumped", "log", lambda: pick(hexdump_c, xxd, certutil, commons_io)(_settings())),
    ("references_dumped", "log", lambda: pick(hexdump_c, xxd, lldb_read, windbg_db)(_reference())),
    ("xxd_plain_digests", "log", lambda: _xxd_p(pick(_binary(32), _binary(64), _binary(20)))),
    ("binary_random_dumped", "log", lambda: pick(hexdump_c, xxd, mitmproxy_hex, scapy_hexdump)(_binary(_r.randint(24, 64)))),
    ("gdb_pointers", "log", _gdb_pointers),
    ("lldb_struct_pointers", "log", lambda: lldb_read(b"".join(_r.randint(0x5555_5555_0000, 0x7fff_ffff_ffff).to_bytes(8, "little") for _ in range(4)))),
    ("windbg_pe_header", "log", lambda: windbg_db(_pe())),
    ("openssl_tls_records", "log", lambda: openssl_debug(_tls_hello())),
    ("jsse_plain_request", "log", lambda: jsse_plaintext(_plain_request())),
    ("curl_trace_response", "log", lambda: pick(curl_trace, curl_trace_ascii)(_plain_response())),
    ("curl_trace_ascii_long_headers", "log", lambda: curl_trace_ascii(_plain_request())),
    ("redis_resp_get", "log", lambda: pick(hexdump_c, tcpdump_x, xxd)(_resp_get())),
    ("protobuf_dumped", "log", lambda: pick(go_hex_dump, hexdump_c, pretty_hex, format_hex)(_protobuf())),
    ("strings_output", "log", _strings_out),
]


def _records() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    secrets: list[dict[str, str]] = []
    for name, context, make in SECRETS:
        for _ in range(4):
            secret, text = make()
            # the line must leak the secret unscrubbed (five characters in one piece of a row), or it tests nothing
            assert corpus.leaked_literal(secret, text), (name, text)
            secrets.append({"format": name, "secret": secret, "text": text, "context": context})
    benign = [{"category": name, "text": make_benign(), "context": context}
              for name, context, make_benign in BENIGN for _ in range(5)]
    return secrets, benign


def bytedump() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_27)
    return _records()


def main() -> None:
    secrets, benign_rows = bytedump()
    heldout._write(HERE / "bytedump_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "bytedump_benign.jsonl.gz", benign_rows)
    print(f"bytedump: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
