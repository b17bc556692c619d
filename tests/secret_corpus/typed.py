"""A twenty-fifth held-out set: secrets inside a serializer's own type and length marks.

    python -m tests.secret_corpus.typed   # rewrites typed_*.jsonl.gz here

The other sets hold a value after its key and a separator (``=``, ``:``, ``=>``, a space, an XML element named for
it), however quoted, escaped or continued. Serializers that carry types put something else between the two, and
their output reaches an MCP error or a log whenever a cached object, a queued job, a stored document or an RPC's
arguments are printed. Written from each format's own specification before reading the patterns. Kinds (each a
family of formats):

- a length or type mark between key and value: PHP ``serialize()`` (``s:8:"password";s:14:"..";``, also inside a
  Laravel job's JSON payload, escaped), PHP session data (``api_token|s:40:"..";``), bencode (``8:password16:..``);
- a type-tagged wrapper one object below the key: DynamoDB's attribute values (``{"password": {"S": ".."}}``),
  Firestore's REST documents (``{"stringValue": ..}``), Avro JSON unions (``{"string": ..}``), protobuf's ``Struct``
  in JSON, text format and Go's ``%v`` (``fields { key: "token" value { string_value: ".." } }``), XML-RPC structs
  (``<member><name>password</name><value><string>..</string></value></member>``), PowerShell CLIXML
  (``<S N="Password">..</S>``), .NET DataContract dictionaries (``<a:Key>ClientSecret</a:Key><a:Value>..``);
- keyword-led data languages: EDN and Clojure's ``ex-info`` data (``:password ".."``, ``:db/password``), Lisp plists
  and alists (Emacs ``auth-source``'s ``:secret ".."``, ``(password . "..")``);
- binary encodings printed as text (a Python ``bytes`` repr, ``redis-cli``'s quoted reply): MessagePack
  (``\\xa8password\\xb0..``), BSON (``\\x02password\\x00\\x11\\x00\\x00\\x00..\\x00``), pickle (``\\x8c\\x08password\\x94
  \\x8c\\x10..``, the real ``pickle.dumps``), Java serialization (``t\\x00\\x08passwordt\\x00\\x10..``);
- a name in a part's header and the value as the part's body: ``multipart/form-data`` (``Content-Disposition:
  form-data; name="client_secret"`` then a blank line, then the value).

Benign: the same encodings holding no credential, each category saying why: ids, counts, locales, booleans and
timestamps under ordinary and secret-sounding names (``password_min_length``, ``token_ttl``, ``password_set``), empty
and null secret fields (``s:0:"";``, ``N;``, ``{"NULL": true}``, ``nil``), masks (``********``), a SecureString's
type name where PowerShell prints no value, auth-source's ``:secret`` as a function, digests, commit SHAs, UUIDs,
certificate thumbprints, public keys, torrent piece hashes, file uploads and form fields that are not credentials.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human passwords marked
``Fake``). No benign line holds an e-mail address. 20 secret formats x 10 and 30 benign categories x 5.
``tests/test_scrub_typed.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import json
import pickle
import struct

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: typed() seeds it


def tok() -> str:
    return pick(rnd(_r.randint(24, 40)), rnd(40, HEX), rnd(43, B64URL), rnd(32, ALNUM + "+/") + "==")


def secret() -> str:
    return pick(fpw(), tok(), tok())


def pw_key() -> str:
    return pick("password", "db_password", "passwd", "smtp_password", "admin_pass", "Password", "dbPassword")


def tok_key() -> str:
    return pick("api_key", "token", "client_secret", "access_token", "secret_key", "apiKey", "authToken",
                "webhook_secret", "refresh_token", "ClientSecret")


def key() -> str:
    return pick(pw_key(), tok_key())


# --- encoders, written from each format's specification ---------------------------------------------------------


def php(value: object) -> str:
    """PHP ``serialize()``: ``s:<bytes>:"..";``, ``i:<n>;``, ``b:<0|1>;``, ``N;``, ``a:<n>:{..}``."""
    if value is None:
        return "N;"
    if isinstance(value, bool):
        return f"b:{int(value)};"
    if isinstance(value, int):
        return f"i:{value};"
    if isinstance(value, dict):
        return f"a:{len(value)}:{{" + "".join(php(k) + php(v) for k, v in value.items()) + "}"
    text = str(value)
    return f's:{len(text.encode())}:"{text}";'


def php_object(cls: str, fields: dict[str, object]) -> str:
    return f'O:{len(cls)}:"{cls}":{len(fields)}:{{' + "".join(php(k) + php(v) for k, v in fields.items()) + "}"


def bencode(value: object) -> str:
    if isinstance(value, int):
        return f"i{value}e"
    if isinstance(value, dict):
        return "d" + "".join(bencode(k) + bencode(v) for k, v in sorted(value.items())) + "e"
    if isinstance(value, list):
        return "l" + "".join(bencode(v) for v in value) + "e"
    text = str(value)
    return f"{len(text.encode())}:{text}"


def msgpack(value: object) -> bytes:
    """MessagePack: fixmap/fixstr/str8, positive fixint, nil, true/false."""
    if value is None:
        return b"\xc0"
    if isinstance(value, bool):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        return bytes([value]) if value < 128 else b"\xcd" + struct.pack(">H", value)
    if isinstance(value, dict):
        return bytes([0x80 | len(value)]) + b"".join(msgpack(k) + msgpack(v) for k, v in value.items())
    data = str(value).encode()
    return (bytes([0xA0 | len(data)]) if len(data) < 32 else b"\xd9" + bytes([len(data)])) + data


def bson(fields: dict[str, object]) -> bytes:
    """BSON: a document of strings (0x02), int32 (0x10), booleans (0x08) and nulls (0x0A)."""
    body = b""
    for name, value in fields.items():
        cname = name.encode() + b"\x00"
        if value is None:
            body += b"\x0a" + cname
        elif isinstance(value, bool):
            body += b"\x08" + cname + (b"\x01" if value else b"\x00")
        elif isinstance(value, int):
            body += b"\x10" + cname + struct.pack("<i", value)
        else:
            data = str(value).encode() + b"\x00"
            body += b"\x02" + cname + struct.pack("<i", len(data)) + data
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def java_map(fields: dict[str, str]) -> bytes:
    """A ``java.util.HashMap`` as ``ObjectOutputStream`` writes it (keys and values as TC_STRING ``t``)."""
    head = (b"\xac\xed\x00\x05sr\x00\x11java.util.HashMap\x05\x07\xda\xc1\xc3\x16`\xd1\x03\x00\x02F\x00\nloadFactor"
            b"I\x00\tthresholdxp?@\x00\x00\x00\x00\x00\x0cw\x08\x00\x00\x00\x10\x00\x00\x00")
    body = bytes([len(fields)])
    for k, v in fields.items():
        body += b"t" + struct.pack(">H", len(k)) + k.encode() + b"t" + struct.pack(">H", len(v)) + v.encode()
    return head + body + b"x"


def redis_quoted(data: bytes) -> str:
    """``redis-cli``'s quoted reply of a binary value: printable bytes as is, others ``\\xNN``."""
    out = []
    for byte in data:
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append(f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def bytes_view(data: bytes) -> str:
    return pick(repr(data), redis_quoted(data))


def fill() -> dict[str, object]:
    return pick_dict({"host": pick("db.internal", "10.0.3.7", "cache-1"), "port": _r.choice([5432, 6379, 3306, 443])},
                     {"user": pick("app", "svc_orders", "deploy"), "region": pick("eu-west-1", "us-east-2")},
                     {"id": _r.randint(1, 9999), "enabled": True})


def pick_dict(*dicts: dict[str, object]) -> dict[str, object]:
    return dict(_r.choice(dicts))


def around(fields: dict[str, object], name: str, value: object) -> dict[str, object]:
    """``fields`` with ``name: value`` at a random place (not always last)."""
    items = list(fields.items())
    items.insert(_r.randint(0, len(items)), (name, value))
    return dict(items)


def ddb(value: object) -> dict[str, object]:
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int):
        return {"N": str(value)}
    return {"S": value}


def fs(value: object) -> dict[str, object]:
    if value is None:
        return {"nullValue": None}
    if isinstance(value, bool):
        return {"booleanValue": value}
    if isinstance(value, int):
        return {"integerValue": str(value)}
    return {"stringValue": value}


def jdump(obj: object) -> str:
    return pick(json.dumps(obj), json.dumps(obj, indent=2), json.dumps(obj, separators=(",", ":")))


def pb_struct_text(fields: dict[str, object], indent: bool) -> str:
    parts = []
    for name, value in fields.items():
        member = f"number_value: {value}" if isinstance(value, int) else f'string_value: "{value}"'
        parts.append(f'fields {{ key: "{name}" value {{ {member} }} }}' if not indent else
                     f'fields {{\n  key: "{name}"\n  value {{\n    {member}\n  }}\n}}')
    return ("\n" if indent else " ").join(parts)


def pb_struct_go(fields: dict[str, object]) -> str:
    parts = []
    for name, value in fields.items():
        member = f"number_value:{value}" if isinstance(value, int) else f'string_value:"{value}"'
        parts.append(f'fields:{{key:"{name}" value:{{{member}}}}}')
    return " ".join(parts)


def xmlrpc_struct(fields: dict[str, object], typed: bool) -> str:
    members = []
    for name, value in fields.items():
        if isinstance(value, int):
            inner = f"<int>{value}</int>"
        else:
            inner = f"<string>{value}</string>" if typed else str(value)
        members.append(f"<member><name>{name}</name><value>{inner}</value></member>")
    return "<struct>" + "".join(members) + "</struct>"


def clixml(fields: dict[str, object]) -> str:
    props = []
    for name, value in fields.items():
        if isinstance(value, bool):
            props.append(f'<B N="{name}">{str(value).lower()}</B>')
        elif isinstance(value, int):
            props.append(f'<I32 N="{name}">{value}</I32>')
        else:
            props.append(f'<S N="{name}">{value}</S>')
    return '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04"><Obj RefId="0"><MS>' + "".join(props) + "</MS></Obj></Objs>"


def datacontract(fields: dict[str, str]) -> str:
    pairs = "".join(f"<a:KeyValueOfstringstring><a:Key>{k}</a:Key><a:Value>{v}</a:Value></a:KeyValueOfstringstring>"
                    for k, v in fields.items())
    return ('<Settings xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><a:Values>' + pairs
            + "</a:Values></Settings>")


def edn_key(name: str) -> str:
    return name.replace("_", "-").lower()


def edn(fields: dict[str, object]) -> str:
    parts = []
    for name, value in fields.items():
        rendered = "nil" if value is None else str(value).lower() if isinstance(value, bool) else str(value) if isinstance(value, int) else f'"{value}"'
        parts.append(f":{edn_key(name)} {rendered}")
    return "{" + pick(", ", " ").join(parts) + "}"


def multipart(fields: dict[str, str], boundary: str, crlf: bool) -> str:
    nl = "\r\n" if crlf else "\n"
    out = ""
    for name, value in fields.items():
        out += f"--{boundary}{nl}Content-Disposition: form-data; name=\"{name}\"{nl}{nl}{value}{nl}"
    return out + f"--{boundary}--{nl}"


def boundary() -> str:
    return pick("----WebKitFormBoundary" + rnd(16), "------------------------" + rnd(16, HEX), "=-=-=" + rnd(12))


# --- secrets ------------------------------------------------------------------------------------------------------


def _php_array(s: str) -> str:
    return php(around(fill(), key(), s))


def _php_obj(s: str) -> str:
    return php_object(pick("App\\Config\\Database", "DbConfig", "Stripe\\Client", "MailSettings"), around(fill(), key(), s))


SECRETS: list[tuple[str, str, Maker]] = [
    ("php_serialize", "log", one(secret,
        lambda s: f"cache hit config:db => {_php_array(s)}",
        lambda s: f"unserialize(): Error at offset 31 of 212 bytes in {_php_obj(s)}",
        lambda s: _php_obj(s),
        lambda s: f"$ redis-cli GET laravel_cache:settings\n\"{_php_array(s)}\"")),
    ("php_session", "log", one(secret,
        lambda s: f"user_id|i:{_r.randint(1, 9999)};{key()}|{php(s)}locale|s:2:\"en\";",
        lambda s: f"sess_{rnd(26, 'abcdefghijklmnopqrstuv0123456789')}: {key()}|{php(s)}",
        lambda s: f"session data: login_ok|b:1;{key()}|{php(s)}")),
    ("php_serialize_in_json", "log", one(secret,
        lambda s: json.dumps({"uuid": uuid(), "displayName": "App\\Jobs\\SyncCustomer",
                              "data": {"commandName": "App\\Jobs\\SyncCustomer",
                                       "command": php_object("App\\Jobs\\SyncCustomer", around(fill(), key(), s))}}),
        lambda s: "failed_jobs.payload = " + json.dumps({"command": php_object("App\\Jobs\\Deploy", {key(): s, "tries": 3})}))),
    ("bencode", "log", one(secret,
        lambda s: bencode(around({"host": "rpc.internal", "port": 9091}, key(), s)),
        lambda s: f"tracker response: {bencode({'failure reason': 'unregistered torrent', key(): s})}",
        lambda s: f"settings.resume: {bencode({'rpc-' + pick('password', 'secret'): s, 'rpc-port': 9091})}")),
    ("dynamodb_json", "log", one(secret,
        lambda s: jdump({"Item": {k: ddb(v) for k, v in around({"pk": "TENANT#42", "sk": "CONFIG"}, key(), s).items()}}),
        lambda s: "NewImage: " + json.dumps({k: ddb(v) for k, v in around({"id": "svc-7"}, key(), s).items()}),
        lambda s: "ConditionalCheckFailedException: Item " + json.dumps({k: ddb(v) for k, v in around({"pk": "USER#9"}, key(), s).items()}))),
    ("firestore_rest", "log", one(secret,
        lambda s: jdump({"name": "projects/demo/databases/(default)/documents/integrations/slack",
                         "fields": {k: fs(v) for k, v in around({"enabled": True}, key(), s).items()}}),
        lambda s: "document.fields = " + json.dumps({k: fs(v) for k, v in around({"owner": "team-a"}, key(), s).items()}))),
    ("avro_union_json", "log", one(secret,
        lambda s: json.dumps({"id": _r.randint(1, 999), key(): {"string": s}, "note": None}),
        lambda s: "org.apache.avro.AvroTypeException: Expected record-start. Got: " + json.dumps({key(): {"string": s}}),
        lambda s: jdump({"type": "connector", "config": {key(): {"string": s}, "retries": {"int": 3}}}))),
    ("protobuf_struct", "log", one(secret,
        lambda s: pb_struct_text(around({"host": "db"}, key(), s), False),
        lambda s: "details: " + pb_struct_text(around({"port": 5432}, key(), s), True),
        lambda s: "params: " + pb_struct_go(around({"region": "eu"}, key(), s)),
        lambda s: json.dumps({"fields": {k: ({"numberValue": v} if isinstance(v, int) else {"stringValue": v}) for k, v in around({"port": 443}, key(), s).items()}}))),
    ("protobuf_text", "log", one(secret,
        lambda s: f'config {{\n  endpoint: "api.internal:443"\n  {key().lower()}: "{s}"\n}}',
        lambda s: f'rpc error: code = InvalidArgument desc = bad request: endpoint:"api.internal" {key().lower()}:"{s}"',
        lambda s: f'&{{state:{{}} sizeCache:0 unknownFields:[] Endpoint:api.internal {pick("ApiKey", "Password", "Token", "ClientSecret")}:{s}}}',
        lambda s: f'credentials {{ {key().lower()}: "{s}" }}')),
    ("xmlrpc_member", "log", one(secret,
        lambda s: f'<?xml version="1.0"?><methodCall><methodName>login</methodName><params><param><value>{xmlrpc_struct(around({"user": "app"}, key(), s), True)}</value></param></params></methodCall>',
        lambda s: f"xmlrpc.client.Fault: <Fault 1: 'bad args'>\n{xmlrpc_struct(around({'db': 'prod'}, key(), s), False)}",
        lambda s: "<member>\n  <name>" + key() + "</name>\n  <value><string>" + s + "</string></value>\n</member>")),
    ("powershell_clixml", "log", one(secret,
        lambda s: clixml(around({"UserName": "svc_backup", "Port": 443}, pick("Password", "ApiKey", "ClientSecret", "Token", "AccessKey"), s)),
        lambda s: f'<S N="{pick("Password", "ApiKey", "ClientSecret", "Token", "PlainPassword")}">{s}</S>')),
    ("datacontract_dictionary", "log", one(secret,
        lambda s: datacontract(around({"Endpoint": "https://api.example.com", "Region": "westeurope"}, pick("ClientSecret", "Password", "ApiKey", "StorageAccountKey", "SasToken"), s)),
        lambda s: f"<a:KeyValueOfstringstring>\n  <a:Key>{pick('ClientSecret', 'Password', 'ApiKey', 'SharedAccessKey')}</a:Key>\n  <a:Value>{s}</a:Value>\n</a:KeyValueOfstringstring>")),
    ("edn_ex_info", "log", one(secret,
        lambda s: f"clojure.lang.ExceptionInfo: Connection refused {{:type :db/unavailable, :db {edn(around({'host': 'db', 'port': 5432}, key(), s))}}}",
        lambda s: f"#error {{:cause \"auth failed\" :data {edn(around({'user': 'app'}, key(), s))}}}",
        lambda s: f"{{:db/user \"app\" :db/{edn_key(pw_key())} \"{s}\"}}",
        lambda s: edn(around(fill(), key(), s)))),
    ("lisp_plist", "log", one(secret,
        lambda s: f'auth-source-search: found 1 results: ((:host "smtp.example.com" :port 587 :user "me" :secret "{s}"))',
        lambda s: f'(:host "imap.example.com" :user "ops" :{pick("password", "secret", "token")} "{s}")',
        lambda s: f'(("host" . "db") ("{key()}" . "{s}"))',
        lambda s: f'((host . "db") ({key()} . "{s}") (port . 5432))')),
    ("msgpack_bytes", "log", one(lambda: pick(fpw(), rnd(_r.randint(24, 31)), rnd(40, HEX)),
        lambda s: bytes_view(msgpack(around(fill(), key(), s))),
        lambda s: f"msgpack.unpackb failed: ExtraData: unpack(b) received extra data. payload={msgpack(around({'v': 1}, key(), s))!r}")),
    ("bson_bytes", "log", one(secret,
        lambda s: bytes_view(bson(around(fill(), key(), s))),
        lambda s: f"bson.errors.InvalidBSON: objsize too large; raw={bson(around({'v': 1}, key(), s))!r}")),
    ("pickle_bytes", "log", one(secret,
        lambda s: "$ redis-cli GET session:" + rnd(16, HEX) + "\n" + redis_quoted(pickle.dumps(around(fill(), key(), s), protocol=_r.choice([4, 5]))),
        lambda s: f"cache value: {pickle.dumps(around(fill(), key(), s), protocol=2)!r}",
        lambda s: f"_pickle.UnpicklingError: invalid load key. data={pickle.dumps({key(): s}, protocol=4)!r}")),
    ("java_serialized", "log", one(secret,
        lambda s: bytes_view(java_map({"url": "jdbc:postgresql://db/app", key(): s})),
        lambda s: f"java.io.StreamCorruptedException: invalid type code: 00 in {redis_quoted(java_map({key(): s, 'user': 'app'}))}")),
    ("multipart_form", "log", one(secret,
        lambda s: "POST /oauth/token HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=" + (b := boundary()) + "\r\n\r\n"
        + multipart({"grant_type": "client_credentials", "client_id": "svc-" + rnd(8, HEX), "client_secret": s}, b, True),
        lambda s: "send: b'" + multipart({"username": "ops", pw_key(): s}, boundary(), True).replace("\r\n", "\\r\\n") + "'",
        lambda s: multipart(around({"file_id": str(_r.randint(1, 99))}, key(), s), boundary(), False))),
    ("yaml_typed_scalar", "config", one(secret,
        lambda s: f"{key()}: !!str {s}",
        lambda s: f"db:\n  host: db.internal\n  {pw_key()}: !!str \"{s}\"",
        lambda s: f"--- !ruby/object:AppConfig\n{key()}: !!str {s}\nport: !!int 5432")),
]


# --- benign -------------------------------------------------------------------------------------------------------


def _ordinary() -> dict[str, object]:
    return around(fill(), pick("password_min_length", "token_ttl", "session_timeout", "max_tokens"), _r.randint(8, 3600))


def _masked() -> str:
    return pick("********", "[REDACTED]", "***", "<redacted>", "xxxxxxxx")


BENIGN: list[tuple[str, str, object]] = [
    ("php_settings", "log", lambda: php(_ordinary())),
    ("php_empty_secret", "log", lambda: php(around(fill(), key(), pick("", None, _masked())))),
    ("php_ids_and_hashes", "log", lambda: php_object("App\\Models\\Upload", {"id": _r.randint(1, 9999), "sha1": rnd(40, HEX), "uuid": uuid()})),
    ("php_session_plain", "log", lambda: f"user_id|i:{_r.randint(1, 9999)};locale|s:2:\"{pick('en', 'de', 'fr')}\";last_seen|i:{_r.randint(1700000000, 1760000000)};"),
    ("laravel_job_plain", "log", lambda: json.dumps({"uuid": uuid(), "command": php_object("App\\Jobs\\SendReceipt", {"orderId": _r.randint(1, 99999), "locale": "en"})})),
    ("bencode_torrent", "log", lambda: bencode({"announce": "http://tracker.example.org/announce", "info": {"length": _r.randint(1000, 99999), "name": pick("file.bin", "ubuntu.iso"), "piece length": 262144, "pieces": rnd(40, HEX)}})),
    ("bencode_rpc_settings", "log", lambda: bencode({"rpc-port": 9091, "rpc-authentication-required": 1, "rpc-username": "transmission", "download-dir": "/data"})),
    ("dynamodb_plain_item", "log", lambda: jdump({"Item": {"pk": {"S": f"USER#{_r.randint(1, 999)}"}, "sk": {"S": "PROFILE"}, "etag": {"S": rnd(32, HEX)}, "version": {"N": str(_r.randint(1, 40))}}})),
    ("dynamodb_secret_settings", "log", lambda: json.dumps({k: ddb(v) for k, v in around({"password_set": True, "token_ttl": 3600}, pick("password", "api_key"), pick(None, _masked())).items()})),
    ("firestore_plain", "log", lambda: jdump({"fields": {"apiKeyId": {"stringValue": uuid()}, "tokenExpiry": {"timestampValue": "2026-01-02T03:04:05Z"}, "enabled": {"booleanValue": True}}})),
    ("avro_schema", "log", lambda: json.dumps({"type": "record", "name": "Credentials", "fields": [{"name": key(), "type": ["null", "string"], "default": None}]})),
    ("avro_plain_union", "log", lambda: json.dumps({"id": _r.randint(1, 999), "token_id": {"string": uuid()}, "commit": {"string": rnd(40, HEX)}})),
    ("protobuf_struct_plain", "log", lambda: pb_struct_text({"request_id": uuid(), "token_type": "Bearer", "expires_in": 3600}, pick("a", "b") == "a")),
    ("protobuf_text_plain", "log", lambda: f'commit_sha: "{rnd(40, HEX)}"\nkey_id: "{uuid()}"\ntoken_count: {_r.randint(1, 4000)}\ndigest: "sha256:{rnd(64, HEX)}"'),
    ("protobuf_public_key", "log", lambda: f'public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(43, B64)} ops@bastion"'),
    ("xmlrpc_plain", "log", lambda: xmlrpc_struct({"user": "app", "checksum": rnd(32, HEX), "count": _r.randint(1, 99)}, True)),
    ("xmlrpc_empty_password", "log", lambda: f"<member><name>{pw_key()}</name><value><string>{pick('', _masked())}</string></value></member>"),
    ("clixml_securestring", "log", lambda: clixml({"UserName": "svc_backup", "Password": "System.Security.SecureString", "PasswordLastSet": "2026-01-02T03:04:05"})),
    ("clixml_thumbprint", "log", lambda: clixml({"Thumbprint": rnd(40, HEX).upper(), "Subject": "CN=api.example.com", "NotAfter": "2027-01-01"})),
    ("datacontract_plain", "log", lambda: datacontract({"ClientSecretExpiry": "2026-09-30", "Thumbprint": rnd(40, HEX).upper(), "TenantId": uuid()})),
    ("edn_settings", "log", lambda: edn({"password_min_length": 12, "token_ttl": 3600, "commit": rnd(40, HEX)})),
    ("edn_masked", "log", lambda: edn(around({"user": "app"}, key(), pick(None, _masked())))),
    ("lisp_secret_function", "log", lambda: '((:host "smtp.example.com" :port 587 :user "me" :secret '
        + pick("#<subr auth-source-netrc-create>", '#[0 "\\300\\207" [v] 1]', "#<interpreted-function nil>") + "))"),
    ("lisp_plain", "log", lambda: f'(:host "imap.example.com" :port 993 :user "ops" :id "{uuid()}")'),
    ("msgpack_plain", "log", lambda: bytes_view(msgpack({"id": _r.randint(1, 99), "name": pick("alice", "orders"), "ok": True}))),
    ("bson_plain", "log", lambda: bytes_view(bson({"name": pick("alice", "orders-api"), "count": _r.randint(1, 999), "password": None}))),
    ("pickle_plain", "log", lambda: repr(pickle.dumps({"user": pick("alice", "ops"), "etag": rnd(32, HEX), "token_count": _r.randint(1, 512)}, protocol=4))),
    ("java_serialized_plain", "log", lambda: redis_quoted(java_map({"user": "app", "commit": rnd(40, HEX)}))),
    ("multipart_upload", "log", lambda: multipart({"file_id": uuid(), "sha256": rnd(64, HEX), "description": "quarterly report"}, boundary(), True)),
    ("yaml_secret_reference", "config", lambda: pick(f"{key()}: !secret {pick('db_password', 'api_key')}", f"{key()}: !Ref {pick('DbPassword', 'ApiToken')}", f"{key()}: !!null", "checksum: !!str " + rnd(64, HEX))),
]


def typed() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261203_25)
    return heldout._records(SECRETS, BENIGN, 10, 5)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = typed()
    heldout._write(HERE / "typed_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "typed_benign.jsonl.gz", benign_rows)
    print(f"typed: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
