"""Other wire protocols by their own reply codes: TLS alerts, FTP, SMTP, IMAP/POP, SSH/SFTP, MQTT, ZeroMQ, gRPC,
WebSocket close codes, XML-RPC and SOAP faults, curl, memcached's SERVER_ERROR.
"""

from __future__ import annotations

import enum
import errno
import re
import ssl
from collections.abc import Callable, Mapping
from typing import Any, Final

from errscope._classify._builders import (
    _NETWORK_ERRNOS,
    _UNAVAILABLE_MAYBE_SENT,
    _unavailable,
    _unavailable_unless_connecting,
)
from errscope._classify._core import Classification, Rule, Upstream, _MAX_CHAIN, _UNKNOWN
from errscope._classify._facts import (
    _attribute,
    _function_name,
    _message_of,
    _qualname,
    _raised_connecting,
    raised_in,
    raised_through,
)
from errscope._classify._mcp import _JSONRPC_SENT, class_for_jsonrpc_code
from errscope._foreign_text import GRPC_CODES as _GRPC_CODES, api_code_class as _code_family, smtp_reply_class
from errscope._foreign_text import grpc_code_reading as _grpc_code_reading
from errscope._http import class_for_http_status, side_effect_for_http_status
from errscope._vocabulary import FailureClass


# TLS alerts the peer sent (RFC 8446 §6.2, RFC 5246 §7.2), by OpenSSL's reason code for a received alert
# (``ssl.SSLError.reason``: "TLSV13_ALERT_CERTIFICATE_REQUIRED", "SSLV3_ALERT_HANDSHAKE_FAILURE"). The server
# refused the connection before it read a request, even when over TLS 1.3 the client had written it already.
# One about the client's certificate refuses the tool's credential; one about the protocol (no version, cipher
# or extension in common) leaves the upstream unusable. HTTP clients wrap the SSLError (httpx's ReadError,
# aiohttp's ClientOSError, requests' SSLError over urllib3's): what it says decides over the wrapper's type.
_TLS_ALERT: Final = re.compile(r"(?:SSLV3|TLSV1|TLSV13)_(?:ALERT_)?([A-Z_]+)")
_TLS_ALERT_CLASSES: Final = {
    **dict.fromkeys(("CERTIFICATE_REQUIRED", "NO_CERTIFICATE", "BAD_CERTIFICATE", "UNSUPPORTED_CERTIFICATE",
                     "CERTIFICATE_REVOKED", "CERTIFICATE_EXPIRED", "CERTIFICATE_UNKNOWN", "UNKNOWN_CA",
                     "ACCESS_DENIED", "UNKNOWN_PSK_IDENTITY"), FailureClass.PERMISSION_DENIED),
    **dict.fromkeys(("HANDSHAKE_FAILURE", "PROTOCOL_VERSION", "INSUFFICIENT_SECURITY", "INAPPROPRIATE_FALLBACK",
                     "UNRECOGNIZED_NAME", "NO_APPLICATION_PROTOCOL", "MISSING_EXTENSION", "UNSUPPORTED_EXTENSION",
                     "ILLEGAL_PARAMETER"), FailureClass.UPSTREAM_UNAVAILABLE),
}


def _peer_tls_alert(exc: BaseException) -> str | None:
    """The TLS alert (``_TLS_ALERT_CLASSES``) of an ``ssl.SSLError`` in or under ``exc``: its chain, exceptions
    among its arguments, its ``reason`` (urllib) or ``os_error`` (aiohttp)."""
    pending, seen = [exc], 0
    while pending and seen < _MAX_CHAIN:
        current = pending.pop()
        seen += 1
        if isinstance(current, ssl.SSLError):
            match = _TLS_ALERT.fullmatch(str(getattr(current, "reason", None) or ""))
            if match and match.group(1) in _TLS_ALERT_CLASSES:
                return match.group(1)
        elif _qualname(current) == "OpenSSL.SSL.Error" and current.args and isinstance(current.args[0], list):
            # pyOpenSSL's (urllib3 over it, once injected: py-trello does at import): OpenSSL's error queue as
            # (library, function, reason) tuples, the reason in words ("tlsv13 alert certificate required")
            for entry in current.args[0]:
                reason = str(entry[-1]).upper().replace(" ", "_") if isinstance(entry, tuple) and entry else ""
                match = _TLS_ALERT.fullmatch(reason)
                if match and match.group(1) in _TLS_ALERT_CLASSES:
                    return match.group(1)
        inner = [current.__cause__, current.__context__, _attribute(current, "reason"),
                 _attribute(current, "os_error"), *current.args]
        pending.extend(e for e in inner if isinstance(e, BaseException) and e is not current)
    return None


def _tls_refusal(exc: BaseException) -> Classification | None:
    alert = _peer_tls_alert(exc)
    if alert is None:
        return None
    return Classification(_TLS_ALERT_CLASSES[alert], upstream=Upstream("tls", alert), side_effect_possible=False)


# Where the standard library's line-protocol clients raise a bare EOFError for a server that
# closed the connection (ftplib's getline, multiprocessing's Connection.recv): elsewhere an
# EOFError is no network failure (input(), a truncated pickle).
# Clients whose reader raises the bare EOFError when the server closed the stream: ftplib, multiprocessing's
# connections, clickhouse-driver's native-protocol reader ("Unexpected EOF while reading bytes", from its Cython buffer)
_EOF_CLIENTS: Final = ("ftplib", "multiprocessing.connection", "clickhouse_driver")


def _eof(exc: BaseException) -> Classification | None:
    module = next((name for name in _EOF_CLIENTS if raised_in(exc, name)), None)
    if module is None:
        return None
    package = module.partition(".")[0]
    return _unavailable_unless_connecting(package, package)(exc)


# Apache Thrift's TTransportException.type (thrift/transport/TTransport.py, the same numbers in every language's
# library): NOT_OPEN (1) no connection made, or none open ("Could not connect to any of [...]"), nothing sent;
# TIMED_OUT (3) no answer in time to a message written; END_OF_FILE (4) the server closed the stream while the client
# read its answer ("TSocket read 0 bytes"). UNKNOWN (0) wraps a socket error as ``inner`` (the chain's cause decides).
_THRIFT_TRANSPORT: Final = {1: False, 3: True, 4: True}


def _thrift_transport(exc: BaseException) -> Classification | None:
    kind = _attribute(exc, "type")
    if kind not in _THRIFT_TRANSPORT:
        return None
    sent = False if _raised_connecting(exc) else _THRIFT_TRANSPORT[kind]
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("thrift", type(exc).__name__),
                          side_effect_possible=sent)


def _xmlrpc_fault(exc: BaseException) -> Classification:
    # XML-RPC faults share JSON-RPC's reserved codes ("Specification for Fault Code Interoperability",
    # xmlrpc-epi): -32602 invalid params, -32601 method not found, ...; other codes are the server's own.
    code = getattr(exc, "faultCode", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return _UNKNOWN
    return Classification(class_for_jsonrpc_code(code), upstream=Upstream("xmlrpc", str(code)),
                          side_effect_possible=_JSONRPC_SENT.get(code))


def _ftp_class(code: int) -> FailureClass:
    """An FTP reply code's class (RFC 959 §4.2): a 4yz reply is transient, the action not taken."""
    if 400 <= code < 500:
        return FailureClass.UPSTREAM_UNAVAILABLE  # 421 closing, 425 no data connection, 450 file busy, 452 storage
    if code in (530, 532):
        return FailureClass.PERMISSION_DENIED  # not logged in, need an account
    if code == 550:
        return FailureClass.NOT_FOUND  # file unavailable
    if code in (501, 553):
        return FailureClass.INVALID_INPUT  # syntax error in parameters, file name not allowed
    if code == 552:
        return FailureClass.UPSTREAM_UNAVAILABLE  # storage allocation exceeded
    return FailureClass.UNKNOWN  # 500/502/503/504: a command we should not have sent


def _ftp_reply(reply: Callable[[Any], object]) -> Rule:
    """The class of an FTP client's error by the server's reply code (``"550"``) it carries. Every
    negative reply refused the command: nothing was done."""

    def rule(exc: BaseException) -> Classification | None:
        code = str(reply(exc))[:3]
        if not code.isdigit():
            return None
        return Classification(_ftp_class(int(code)), upstream=Upstream("ftp", code), side_effect_possible=False)

    return rule


# libcurl's error numbers (https://curl.se/libcurl/c/libcurl-errors.html), what pycurl.error
# carries as args[0] and curl_cffi's CurlError as .code -> (class, may the request have been acted on). CURLE_OPERATION_TIMEDOUT
# covers the whole transfer, connect included: like a bare socket timeout, it may have been sent.
_CURL_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    5: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_RESOLVE_PROXY
    6: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_RESOLVE_HOST
    7: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # COULDNT_CONNECT
    35: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # SSL_CONNECT_ERROR: the handshake failed
    60: (FailureClass.UPSTREAM_UNAVAILABLE, False),  # PEER_FAILED_VERIFICATION
    9: (FailureClass.PERMISSION_DENIED, False),  # REMOTE_ACCESS_DENIED
    67: (FailureClass.PERMISSION_DENIED, False),  # LOGIN_DENIED
    78: (FailureClass.NOT_FOUND, False),  # REMOTE_FILE_NOT_FOUND
    18: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # PARTIAL_FILE
    28: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # OPERATION_TIMEDOUT
    52: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # GOT_NOTHING: closed without an answer
    55: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # SEND_ERROR
    56: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # RECV_ERROR
    92: (FailureClass.UPSTREAM_UNAVAILABLE, True),  # HTTP2_STREAM
}


def _curl_error(exc: BaseException) -> Classification:
    code = getattr(exc, "code", None)  # curl_cffi: a CurlECode (an IntEnum); pycurl: the first argument
    if not isinstance(code, int) or not code:
        code = exc.args[0] if exc.args else None
    if not isinstance(code, int) or code not in _CURL_CODES:
        return _UNKNOWN  # e.g. HTTP_RETURNED_ERROR: the status stays on the handle
    failure_class, sent = _CURL_CODES[code]
    return Classification(failure_class, upstream=Upstream("curl", str(int(code))), side_effect_possible=sent)


# c-ares' status codes (ares.h; https://c-ares.org/docs/ares_query.html), what aiodns' DNSError carries as args[0]
# (pycares' ``errno`` values) -> (class, may it have been acted on), read as dnspython's exceptions are: the name or
# the record does not exist (an answer); the servers failed or refused (an answer, of several servers perhaps);
# no server reached; a query sent and not answered, or answered with bytes that are no DNS reply.
_ARES_CODES: Final[dict[int, tuple[str, FailureClass, bool | None]]] = {
    1: ("ARES_ENODATA", FailureClass.NOT_FOUND, False),  # no record of that type
    2: ("ARES_EFORMERR", FailureClass.UPSTREAM_UNAVAILABLE, None),  # the server says the query was misformatted
    3: ("ARES_ESERVFAIL", FailureClass.UPSTREAM_UNAVAILABLE, None),
    4: ("ARES_ENOTFOUND", FailureClass.NOT_FOUND, False),  # NXDOMAIN
    5: ("ARES_ENOTIMP", FailureClass.UPSTREAM_UNAVAILABLE, None),
    6: ("ARES_EREFUSED", FailureClass.UPSTREAM_UNAVAILABLE, None),
    8: ("ARES_EBADNAME", FailureClass.INVALID_INPUT, False),  # the name asked for is no domain name
    10: ("ARES_EBADRESP", FailureClass.UPSTREAM_UNAVAILABLE, True),  # a reply that is no DNS message
    11: ("ARES_ECONNREFUSED", FailureClass.UPSTREAM_UNAVAILABLE, False),  # no server could be contacted
    12: ("ARES_ETIMEOUT", FailureClass.UPSTREAM_UNAVAILABLE, True),  # sent, not answered
    13: ("ARES_EOF", FailureClass.UPSTREAM_UNAVAILABLE, True),  # the server closed the connection
    26: ("ARES_ENOSERVER", FailureClass.UPSTREAM_UNAVAILABLE, False),  # no DNS server configured
}


def _ares_error(exc: BaseException) -> Classification:
    code = exc.args[0] if exc.args else None
    if not isinstance(code, int) or isinstance(code, bool) or code not in _ARES_CODES:
        return _UNKNOWN  # the resolver's own misuse (bad flags, family, hints), out of memory, cancelled
    name, failure_class, sent = _ARES_CODES[code]
    return Classification(failure_class, upstream=Upstream("dns", name), side_effect_possible=sent)


# SOAP fault codes. The code names the side at fault (SOAP 1.1 §4.4.1, SOAP 1.2 Part 1 §5.4.6): the message as sent
# (Client/Sender: a value the service refused, like a 400), the service while processing it (Server/Receiver: it
# may have acted), or the envelope the tool built (VersionMismatch, MustUnderstand, DataEncodingUnknown: a bug).
# A more specific code decides first: SOAP 1.2 subcodes (innermost first), a SOAP 1.1 code in another namespace.
# The standard ones: WS-Security's (OASIS WSS 1.1 SOAP Message Security §12) refuse the credential; WS-Addressing's
# (WS-Addressing 1.0 SOAP Binding §6.4) say the endpoint cannot now, or has no such action (the tool's bug).
_SOAP_SIDES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("Client", "Sender"), (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys(("Server", "Receiver"), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    **dict.fromkeys(("VersionMismatch", "MustUnderstand", "DataEncodingUnknown"), (FailureClass.UNKNOWN, False)),
}
_SOAP_STANDARD_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("UnsupportedSecurityToken", "UnsupportedAlgorithm", "InvalidSecurity", "InvalidSecurityToken",
                     "FailedAuthentication", "FailedCheck", "SecurityTokenUnavailable", "MessageExpired"),
                    (FailureClass.PERMISSION_DENIED, False)),
    "EndpointUnavailable": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    **dict.fromkeys(("ActionNotSupported", "InvalidAddressingHeader", "MessageAddressingHeaderRequired"),
                    (FailureClass.UNKNOWN, False)),
}


def _soap_local_name(code: object) -> str | None:
    """The local part of a fault code: a prefixed name as the envelope spells it (``soap:Client``), a
    ``{namespace}local`` text or an lxml ``QName`` (zeep's subcodes)."""
    local = _attribute(code, "localname")
    text = local if isinstance(local, str) else code if isinstance(code, str) else None
    if not text:
        return None
    return text.rpartition("}")[2].rpartition(":")[2].strip() or None


def _soap_fault(exc: BaseException) -> Classification:
    subcodes = _attribute(exc, "subcodes")
    names = [_soap_local_name(code) for code in (*reversed(subcodes if isinstance(subcodes, list) else []),
                                                 _attribute(exc, "code"))]
    codes = [name for name in names if name]
    if not codes:
        return _UNKNOWN
    upstream = Upstream("soap", codes[0])
    side = _SOAP_SIDES.get(codes[-1].partition(".")[0])
    for code in codes:
        found = _SOAP_STANDARD_CODES.get(code) or _SOAP_SIDES.get(code)
        if found is None and code.partition(".")[0] not in _SOAP_SIDES:
            family = _code_family(code)  # a vendor's code: REQUEST_LIMIT_EXCEEDED, INVALID_SESSION_ID
            if family is not None:
                sent = (side or (family, None))[1] if family is FailureClass.UPSTREAM_UNAVAILABLE else False
                found = family, sent
        if found is not None:
            return Classification(found[0], upstream=upstream, side_effect_possible=found[1])
    failure_class, sent = side or (FailureClass.UNKNOWN, None)
    return Classification(failure_class, upstream=upstream, side_effect_possible=sent)


# MQTT 5.0 reason codes (MQTT 5.0 §2.4, table 2-6) a broker refuses with (CONNACK) or ends a session with
# (DISCONNECT); paho maps an MQTT 3.1.1 CONNACK return code onto the one that means the same. The protocol's, the
# tool's own settings (client id, topic alias, QoS, retained messages not supported): unknown.
_MQTT_REASONS: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((0x86, 0x87, 0x8A, 0x8C), FailureClass.PERMISSION_DENIED),  # bad login, not authorized,
    # banned, bad authentication method
    **dict.fromkeys((0x84, 0x88, 0x89, 0x8B, 0x8D, 0x8E, 0x98, 0x9C, 0x9D, 0xA0), FailureClass.UPSTREAM_UNAVAILABLE),
    # unsupported protocol version, server unavailable, busy, shutting down, keep alive timeout, session taken over,
    # administrative action, use another server, server moved, maximum connect time
    **dict.fromkeys((0x93, 0x96, 0x97, 0x9F), FailureClass.RATE_LIMITED),  # receive maximum exceeded, message rate
    # too high, quota exceeded, connection rate exceeded
    **dict.fromkeys((0x8F, 0x90, 0x95, 0x99), FailureClass.INVALID_INPUT),  # topic filter or name invalid, packet
    # too large, payload format invalid
}
# paho-mqtt's own error codes (paho.mqtt.enums.MQTTErrorCode), for what failed on its side of the socket
_PAHO_ERRORS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((4, 5, 8, 15), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # NO_CONN, CONN_REFUSED, TLS,
    # QUEUE_SIZE: the packet was never written
    **dict.fromkeys((7, 14, 16), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # CONN_LOST, ERRNO, KEEPALIVE
    **dict.fromkeys((11, 12), (FailureClass.PERMISSION_DENIED, False)),  # AUTH, ACL_DENIED
    9: (FailureClass.INVALID_INPUT, False),  # PAYLOAD_SIZE
}
_MQTT_CONNACK: Final = 2  # MQTT control packet type (MQTT 5.0 §2.1.2)


def _mqtt_code(exc: BaseException) -> Classification:
    """aiomqtt's ``MqttCodeError``: its ``rc`` is a paho ``ReasonCode`` the broker sent (it has a ``packetType``)
    or one of paho's own ``MQTTErrorCode``s. A CONNACK refusal came before any message: nothing done; a
    DISCONNECT refuses what the session sent, or, for a broker going away, does not say."""
    rc = _attribute(exc, "rc")
    value = _attribute(rc, "value") if not isinstance(rc, int) else int(rc)
    if not isinstance(value, int) or isinstance(value, bool):
        return _UNKNOWN
    packet_type = _attribute(rc, "packetType")
    if packet_type is None:
        failure_class, sent = _PAHO_ERRORS.get(value, (FailureClass.UNKNOWN, None))
        return Classification(failure_class, side_effect_possible=sent)  # paho's, not the broker's: no status
    failure_class = _MQTT_REASONS.get(value, FailureClass.UNKNOWN)
    sent = None if packet_type != _MQTT_CONNACK and failure_class is FailureClass.UPSTREAM_UNAVAILABLE else False
    return Classification(failure_class, upstream=Upstream("mqtt", str(value)), side_effect_possible=sent)


def _mqtt_error(exc: BaseException) -> Classification | None:
    """aiomqtt's base ``MqttError`` (a timeout, a connection lost, over paho's failure): raised while entering the
    client (``async with Client(...)``: ``Client.__aenter__`` sends CONNECT and waits for the CONNACK), the session
    never opened and nothing of the tool's was sent: its messages go out only in the ``async with`` body, after
    ``__aenter__`` returned (aiomqtt docs, "Connecting to the broker"). Elsewhere its cause decides (``None``)."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if _function_name(frame) == "__aenter__" and str(frame.f_globals.get("__name__", "")).startswith("aiomqtt."):
            return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("mqtt"), side_effect_possible=False)
        tb = tb.tb_next
    return None


# ZeroMQ's own errnos beyond POSIX's (zmq.h: ZMQ_HAUSNUMERO + 51...): EFSM, a socket used out of its pattern's order
# (a REQ sending twice), is the tool's bug; nothing was sent.
_ZMQ_EFSM: Final = 156384712 + 51


def _zmq_error(exc: BaseException) -> Classification:
    """pyzmq's ``ZMQError`` by its POSIX ``errno``: ``EAGAIN`` is a socket timeout (RCVTIMEO/SNDTIMEO) or a queue
    no peer takes from: raised by a send, the message was never queued; else it waited for an answer to one that
    left. A network errno (``EHOSTUNREACH``: a ROUTER with no such peer) as a socket's."""
    code = _attribute(exc, "errno")
    name = errno.errorcode.get(code, "EFSM" if code == _ZMQ_EFSM else None) if isinstance(code, int) else None
    upstream = Upstream("zeromq", name)
    if code == errno.EAGAIN:
        sending = False
        tb = exc.__traceback__
        while tb is not None:
            sending = sending or _function_name(tb.tb_frame).lstrip("_").startswith("send")
            tb = tb.tb_next
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream, side_effect_possible=not sending)
    if code in _NETWORK_ERRNOS:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=upstream,
                              side_effect_possible=_NETWORK_ERRNOS[code])
    if code == _ZMQ_EFSM:
        return Classification(FailureClass.UNKNOWN, upstream=upstream, side_effect_possible=False)
    return _UNKNOWN


def _websocket_close_class(code: int) -> tuple[FailureClass, bool | None]:
    """A WebSocket close code's class (RFC 6455 §7.4.1; the IANA WebSocket Close Code registry): 3000/3003
    (Unauthorized, Forbidden) and the 4400-4599 codes subprotocols mirror HTTP statuses with (graphql-ws's
    4401, 4403, 4429) by their status; 1008 (policy violation) refuses access, 1007/1009 (invalid payload, too
    big) the message, 1003 (unsupported data) the tool's frame type; 1012/1013 (service restart, try again
    later) refuse for now; any other close under a waiting call (going away, internal error, bad gateway) may
    have come after the message was acted on."""
    if 4400 <= code <= 4599:
        return class_for_http_status(code - 4000), side_effect_for_http_status(code - 4000)
    if code in (3000, 3003, 1008):  # 1008 policy violation: the generic refusal, what servers send a bad credential
        return FailureClass.PERMISSION_DENIED, False
    if code in (1007, 1009):  # a payload that is not what its type promises; a message too big (like a 413)
        return FailureClass.INVALID_INPUT, False
    if code == 1003:  # a frame type the endpoint cannot take: the tool's choice, not the caller's
        return FailureClass.UNKNOWN, False
    return FailureClass.UPSTREAM_UNAVAILABLE, code not in (1012, 1013)


def _websocket_closed(close_code: Callable[[Any], object]) -> Rule:
    def rule(exc: BaseException) -> Classification:
        code = close_code(exc)
        if not isinstance(code, int) or isinstance(code, bool):
            return _unavailable(True, "websocket")(exc)
        failure_class, sent = _websocket_close_class(code)
        return Classification(failure_class, upstream=Upstream("websocket", str(int(code))), side_effect_possible=sent)

    return rule


def _socket_stream_end(exc: BaseException) -> Classification | None:
    # anyio's EndOfStream: the peer closed while we waited to receive. Memory object streams raise
    # it too (a task's channel closed): no upstream there.
    return None if raised_in(exc, "anyio.streams.memory") else _UNAVAILABLE_MAYBE_SENT(exc)


# Mail-retrieval response codes, in brackets after the status: IMAP's (RFC 5530 §3, RFC 9051
# §7.1) after NO/BAD/BYE, POP3's extended ones (RFC 2449 §8, RFC 3206) after -ERR. A refusal
# carrying one did not run the command.
_IMAP_CODES: Final = {
    **dict.fromkeys(("AUTHENTICATIONFAILED", "AUTHORIZATIONFAILED", "EXPIRED", "PRIVACYREQUIRED", "NOPERM"),
                    FailureClass.PERMISSION_DENIED),
    **dict.fromkeys(("UNAVAILABLE", "INUSE", "SERVERBUG", "OVERQUOTA"), FailureClass.UPSTREAM_UNAVAILABLE),
    "LIMIT": FailureClass.RATE_LIMITED,
    **dict.fromkeys(("NONEXISTENT", "TRYCREATE"), FailureClass.NOT_FOUND),
    **dict.fromkeys(("ALREADYEXISTS", "CANNOT"), FailureClass.INVALID_INPUT),
}
_POP_CODES: Final = {
    "AUTH": FailureClass.PERMISSION_DENIED,
    "IN-USE": FailureClass.UPSTREAM_UNAVAILABLE,
    "SYS/TEMP": FailureClass.UPSTREAM_UNAVAILABLE,
    "SYS/PERM": FailureClass.UPSTREAM_UNAVAILABLE,
    "LOGIN-DELAY": FailureClass.RATE_LIMITED,
}
_BRACKETED: Final = re.compile(r"^(?:\* [A-Z]+ |-ERR )?\[([A-Z][A-Z/-]*)[\] ]")


def _response_code(codes: Mapping[str, FailureClass], system: str) -> Rule:
    """The class of a mail client's error by the bracketed response code the server's reply
    (``args[0]``) starts with; without one, no rule answers."""

    def rule(exc: BaseException) -> Classification | None:
        text = exc.args[0] if exc.args else ""
        words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        match = _BRACKETED.match(words.strip())
        if match is None or match.group(1) not in codes:
            return None
        return Classification(codes[match.group(1)], upstream=Upstream(system, match.group(1)),
                              side_effect_possible=False)

    return rule


# IMAP commands that change the mailbox (RFC 9051 §6.3-6.4; RFC 6851 MOVE; RFC 4314 ACL; RFC 2087 QUOTA): their
# tagged completion lost, the server may have carried them out. Others (LOGIN, SELECT, SEARCH, LIST) leave it open.
_IMAP_CHANGING: Final = frozenset({"APPEND", "STORE", "COPY", "MOVE", "EXPUNGE", "CREATE", "DELETE", "RENAME",
                                   "SUBSCRIBE", "UNSUBSCRIBE", "SETACL", "DELETEACL", "SETQUOTA"})


def _imap_abort(exc: BaseException) -> Classification:
    """imaplib's ``abort``: the connection failed. Raised while a command awaited its tagged completion
    (``_command_complete``, its ``name``) that changes the mailbox (:data:`_IMAP_CHANGING`: an APPEND whose message
    went out), the server may have done it; otherwise open (while connecting: not sent, ``_entry._while_connecting``)."""
    name = next((frame.f_locals.get("name") for frame in raised_through(exc)
                 if _function_name(frame) == "_command_complete"), None)
    changing = isinstance(name, str) and name.upper() in _IMAP_CHANGING
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("imap", "abort"),
                          side_effect_possible=True if changing else None)


def _pop3_error(exc: BaseException) -> Classification | None:
    """poplib's ``error_proto``: the server's ``-ERR`` reply by its response code (:func:`_response_code`), or poplib's
    own "-ERR EOF" (its ``_getline`` read the end of the stream): the connection closed. A POP3 session that ends
    without the client's QUIT never enters the UPDATE state, so no message marked by DELE is removed (RFC 1939 §6):
    nothing done, unless it was the QUIT whose answer was lost."""
    found = _response_code(_POP_CODES, "pop3")(exc)
    if found is not None or _message_of(exc) != "-ERR EOF" or not raised_in(exc, "poplib"):
        return found
    quitting = any(_function_name(frame) == "quit" for frame in raised_through(exc))
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("pop3", "EOF"),
                          side_effect_possible=quitting)


def _grpc_error(exc: BaseException) -> Classification:
    # grpc.RpcError raised by a call is also a grpc.Call: .code() is a grpc.StatusCode member, .details() its text.
    name = getattr(exc.code(), "name", None)  # type: ignore[attr-defined]
    details = exc.details() if callable(getattr(exc, "details", None)) else None  # type: ignore[attr-defined]
    failure_class, side_effect = _grpc_code_reading(str(name), details if isinstance(details, str) else "")
    return Classification(failure_class, upstream=Upstream("grpc", name), side_effect_possible=side_effect)


def _grpc_status_name(exc: BaseException) -> str | None:
    """The gRPC status an exception keeps as an enum member named as google/rpc/code.proto names the codes, in its
    ``status`` or ``code`` (grpclib's ``GRPCError.status``, a ``grpclib.const.Status``) or its ``grpc_status_code``
    (google-api-core's ``GoogleAPICallError``): read by the name, so every gRPC library's enum lands where grpcio's
    ``StatusCode`` does. ``OK`` is no error. Only an enum named for a status or code (``Status``, ``StatusCode``): a
    job's ``State.UNKNOWN`` is none."""
    for attribute in ("status", "code", "grpc_status_code"):
        value = _attribute(exc, attribute)
        is_status = isinstance(value, enum.Enum) and re.search(r"Status|Code", type(value).__name__) is not None
        name = value.name if is_status else None
        if name in _GRPC_CODES:
            return name
    return None


def _grpc_status_beside_http(exc: BaseException) -> bool:
    """Whether ``exc`` carries a gRPC status of its own beside the HTTP status derived from it: google-api-core's
    exceptions raised over a gRPC error (``from_grpc_error``) keep the code in ``grpc_status_code`` and put in ``code``
    the HTTP status google/rpc/code.proto maps it to, which several codes share (409: ABORTED and ALREADY_EXISTS; 400:
    INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE; 500: INTERNAL, UNKNOWN, DATA_LOSS). The gRPC code says more and
    decides. Only one raised over a gRPC error (its ``response`` is grpcio's call): one made from an HTTP answer
    (``from_http_response``: its ``response`` is the HTTP client's) also names a gRPC code, derived from the HTTP
    status (its class's), and its status decides."""
    value = _attribute(exc, "grpc_status_code")
    if not (isinstance(value, enum.Enum) and value.name in _GRPC_CODES and value.name != "OK"):
        return False
    response = _attribute(exc, "response")
    return response is not None and type(response).__module__.split(".", 1)[0] == "grpc"


def _grpc_status(exc: BaseException) -> Classification:
    name = _grpc_status_name(exc)
    message = _attribute(exc, "message")  # grpclib's GRPCError.message: the status's details
    failure_class, side_effect = _grpc_code_reading(name or "", message if isinstance(message, str) else str(exc))
    return Classification(failure_class, upstream=Upstream("grpc", name), side_effect_possible=side_effect)


# SFTP status codes (draft-ietf-secsh-filexfer-13 §9.1; v3 defines 0-8) -> class. A status answers a request
# the server refused or could not carry out: nothing was done, except where the connection went away under it.
_SFTP_STATUSES: Final[dict[int, FailureClass]] = {
    **dict.fromkeys((2, 10), FailureClass.NOT_FOUND),  # NO_SUCH_FILE, NO_SUCH_PATH
    **dict.fromkeys((3, 12, 22), FailureClass.PERMISSION_DENIED),  # PERMISSION_DENIED, WRITE_PROTECT, CANNOT_DELETE
    # a path or argument that does not fit what is there: FILE_ALREADY_EXISTS, UNKNOWN_PRINCIPAL, DIR_NOT_EMPTY,
    # NOT_A_DIRECTORY, INVALID_FILENAME, LINK_LOOP, INVALID_PARAMETER, FILE_IS_A_DIRECTORY, OWNER_INVALID,
    # GROUP_INVALID, NO_MATCHING_BYTE_RANGE_LOCK
    **dict.fromkeys((11, 16, 18, 19, 20, 21, 23, 24, 29, 30, 31), FailureClass.INVALID_INPUT),
    # the server cannot now: NO_CONNECTION, CONNECTION_LOST, NO_MEDIA, NO_SPACE_ON_FILESYSTEM, QUOTA_EXCEEDED,
    # LOCK_CONFLICT, BYTE_RANGE_LOCK_CONFLICT, BYTE_RANGE_LOCK_REFUSED, DELETE_PENDING, FILE_CORRUPT
    **dict.fromkeys((6, 7, 13, 14, 15, 17, 25, 26, 27, 28), FailureClass.UPSTREAM_UNAVAILABLE),
    # EOF (read past the end), FAILURE (no reason given), BAD_MESSAGE, OP_UNSUPPORTED, INVALID_HANDLE: unknown
}
_SFTP_CONNECTION_LOST: Final = 7


def _sftp_status(exc: BaseException) -> Classification:
    code = getattr(exc, "code", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return _UNKNOWN
    return Classification(_SFTP_STATUSES.get(code, FailureClass.UNKNOWN), upstream=Upstream("sftp", str(code)),
                          side_effect_possible=code == _SFTP_CONNECTION_LOST)


# SSH disconnect reason codes (RFC 4253 §11.1), what asyncssh's DisconnectError keeps as ``code``. The host, the
# login or the key exchange refused come before any session: nothing was sent; nor was it for anything raised
# while the client connects.
_SSH_DISCONNECT_REASONS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((1, 13, 14, 15), (FailureClass.PERMISSION_DENIED, False)),  # HOST_NOT_ALLOWED_TO_CONNECT,
    # AUTH_CANCELLED_BY_USER, NO_MORE_AUTH_METHODS_AVAILABLE, ILLEGAL_USER_NAME
    **dict.fromkeys((3, 8, 9), (FailureClass.UPSTREAM_UNAVAILABLE, False)),  # KEY_EXCHANGE_FAILED,
    # PROTOCOL_VERSION_NOT_SUPPORTED, HOST_KEY_NOT_VERIFIABLE
    **dict.fromkeys((2, 5, 6, 7, 10, 11, 12), (FailureClass.UPSTREAM_UNAVAILABLE, None)),  # PROTOCOL_ERROR,
    # MAC_ERROR, COMPRESSION_ERROR, SERVICE_NOT_AVAILABLE, CONNECTION_LOST, BY_APPLICATION, TOO_MANY_CONNECTIONS
}


def _ssh_disconnect(exc: BaseException) -> Classification:
    code = getattr(exc, "code", None)
    failure_class, sent = _SSH_DISCONNECT_REASONS.get(code, (FailureClass.UPSTREAM_UNAVAILABLE, None))  # type: ignore[arg-type]
    if _raised_connecting(exc):
        sent = False
    return Classification(failure_class, upstream=Upstream("ssh", str(code)), side_effect_possible=sent)


# SMTP reply codes (RFC 5321 §4.2.2-4.2.3; AUTH: RFC 4954 §6; the enhanced code's class 7, security
# or policy: RFC 3463 §3.8). A 4yz reply is transient ("the action was not taken"), a 5yz one
# permanent; every negative reply refused the command, so nothing was sent on.


def _smtp_class(code: int, text: str) -> FailureClass:
    # one reading of a reply for the exception and for its text relayed by another server (J339, J346)
    return smtp_reply_class(code, text)


def _smtp_reply(reply: Callable[[Any], tuple[object, object]]) -> Rule:
    """The class of an SMTP client's error by the server's reply ``(code, text)`` it carries."""

    def rule(exc: BaseException) -> Classification | None:
        code, text = reply(exc)
        if not isinstance(code, int) or isinstance(code, bool):
            return None
        words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        upstream = Upstream("smtp", str(code))
        return Classification(_smtp_class(code, words), upstream=upstream, side_effect_possible=False)

    return rule


def _smtp_connect(exc: BaseException) -> Classification:
    reply = _smtp_reply(lambda error: (error.smtp_code, error.smtp_error))(exc)
    if reply is not None and reply.failure_class is not FailureClass.UNKNOWN:
        return reply
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=reply.upstream if reply else Upstream("smtp", None),
                          side_effect_possible=False)


def _smtp_lost(exc: BaseException) -> Classification:
    """An SMTP session the server ended with no reply (smtplib's and aiosmtplib's ``SMTPServerDisconnected``): raised
    while the message data went out or its reply was awaited (the client's ``data``) the server may have taken the
    mail, as RFC 1047 describes (a reply lost after the final dot: the message is delivered, and a resend duplicates
    it); while connecting, nothing was sent (see ``_entry._while_connecting``); elsewhere (an envelope command: no mail
    is taken before the data's reply, RFC 5321 §4.1.1.4) open."""
    sent = True if any(_function_name(frame) == "data" for frame in raised_through(exc)) else None
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream("smtp", type(exc).__name__),
                          side_effect_possible=sent)


# W3C WebDriver's error codes (https://www.w3.org/TR/webdriver2/#errors: the remote end's JSON ``value.error``), by
# what each failure is. A WebDriver client keeps the code only as its exception class, named after it (Selenium's
# ``SessionNotCreatedException`` for "session not created", ``StaleElementReferenceException``; Appium's Python client
# reuses them), with no status and no response. Not "timeout", "unknown error" and "invalid argument": other libraries
# name classes so too, and their generic words read them already.
# - session not created: the remote end (a driver, a Grid with no free node) could not start a browser: nothing done.
# - invalid session id: the session the call names ended (closed, its browser crashed, the Grid timed it out): 404.
# - an element, window or frame gone from the page (stale, detached): not there any more, as a 404.
# - an element the page will not let the action reach, a selector or coordinates that are not valid: the call's own.
# - insecure certificate: the page's TLS certificate not trusted, as certificate verification failing.
_WEBDRIVER_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "session not created": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "invalid session id": (FailureClass.NOT_FOUND, False),
    **dict.fromkeys(("no such element", "stale element reference", "detached shadow root", "no such window", "no such frame",
                     "no such alert", "no such shadow root", "no such cookie"), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys(("element not interactable", "element click intercepted", "invalid element state",
                     "invalid selector", "move target out of bounds", "invalid coordinates"),
                    (FailureClass.INVALID_INPUT, False)),
    "insecure certificate": (FailureClass.UPSTREAM_UNAVAILABLE, False),
}
_CAMEL_WORD: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+")


def _webdriver_code(exc: BaseException) -> str | None:
    """The W3C WebDriver error code ``exc``'s class (or a base class) is named after (:data:`_WEBDRIVER_CODES`)."""
    for klass in type(exc).__mro__:
        if klass.__module__ == "builtins":
            return None
        name = re.sub(r"(?:Error|Exception)$", "", klass.__name__)
        code = " ".join(word.lower() for word in _CAMEL_WORD.findall(name))
        if code in _WEBDRIVER_CODES:
            return code
    return None


def _webdriver_error(exc: BaseException) -> Classification | None:
    code = _webdriver_code(exc)
    if code is None:
        return None
    failure_class, sent = _WEBDRIVER_CODES[code]
    return Classification(failure_class, upstream=Upstream("webdriver", code), side_effect_possible=sent)


# memcached's SERVER_ERROR ("some sort of server error prevents the server from carrying out the command",
# protocol.txt): nothing was stored. Its text is the server's own and tells an item over the item size limit
# (``-I``; "object too large for cache", proto_text.c) from a server out of memory ("out of memory storing object")
# or of connections: the first is the call's value, as HTTP 413 (a smaller one fits), the others the server's state.
_TOO_LARGE: Final = re.compile(r"\btoo (?:large|big)\b", re.I)


def _memcached_server_error(exc: BaseException) -> Classification:
    cls = FailureClass.INVALID_INPUT if _TOO_LARGE.search(_message_of(exc)) else FailureClass.UPSTREAM_UNAVAILABLE
    return Classification(cls, upstream=Upstream("memcached", type(exc).__name__), side_effect_possible=False)
