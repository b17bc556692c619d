"""Vendors' API errors: codes in a body (AWS, Slack, GraphQL), OAuth 2.0, Kafka, Trino, Dropbox, Reddit,
Telegram, Google Maps, Consul.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

from errscope._classify._builders import _status_named
from errscope._classify._core import Classification, Upstream, _UNKNOWN, delay_seconds
from errscope._classify._databases import _sqlstate
from errscope._classify._facts import (
    _attribute,
    _error_status,
    _message_of,
    _response_header,
    http_status_of,
)
from errscope._classify._http_errors import _error_document, _status_in_text, _success_status_of
from errscope._classify._names import _REASON_NAMES, _carried_delay, _reason_key
from errscope._foreign_text import acted_per_text, api_code_class as _code_family, classify_text, retry_after_from_text
from errscope._http import class_for_http_status, retry_after_from_headers, side_effect_for_http_status
from errscope._vocabulary import FailureClass


def _graphql_code(exc: BaseException) -> str | None:
    """The first error code of a GraphQL response's ``errors`` (GraphQL spec §7.1.2) the exception carries
    (gql's TransportQueryError): ``extensions.code`` (Apollo Server, Shopify, Hasura), else ``type`` (GitHub)."""
    errors = _attribute(exc, "errors")
    if not isinstance(errors, list):
        return None
    for error in errors:
        if isinstance(error, Mapping):
            extensions = error.get("extensions")
            code = extensions.get("code") if isinstance(extensions, Mapping) else None
            code = code if isinstance(code, str) and code else error.get("type")
            if isinstance(code, str) and code:
                return code
    return None


def _api_code(exc: BaseException) -> tuple[str, str, int | None] | None:
    """``(system, code, HTTP status)`` of an API error code the exception carries: an error envelope as its
    ``response`` (botocore's ``ClientError.response`` dict, slack_sdk's ``SlackApiError.response``), a GraphQL
    response's ``errors``, or an S3-style ``code`` beside an HTTP status (MinIO's ``S3Error``: ``SlowDown``
    comes as a 503) when the code's words name a class."""
    graphql = _graphql_code(exc)
    if graphql is not None:
        return "graphql", graphql, http_status_of(exc)
    # a value the SDK stored, not a computed alias (aiohttp's deprecated ``code`` is its status)
    code = None if isinstance(getattr(type(exc), "code", None), property) else _attribute(exc, "code")
    if isinstance(code, str) and not code.isdigit() and _sqlstate(exc) is None and _code_family(code) is not None:
        status = http_status_of(exc)
        if status is not None:
            return "http", code, status
    response = _attribute(exc, "response")
    if response is None:
        return None
    if isinstance(response, Mapping):
        error, metadata = response.get("Error"), response.get("ResponseMetadata")
        code = error.get("Code") if isinstance(error, Mapping) else None
        status = metadata.get("HTTPStatusCode") if isinstance(metadata, Mapping) else None
        return ("aws", code, _error_status(status)) if isinstance(code, str) and code else None
    data = _attribute(response, "data")
    if isinstance(data, Mapping) and data.get("ok") is False:
        code = data.get("error")
        status = _error_status(_attribute(response, "status_code"))
        return ("slack", code, status) if isinstance(code, str) and code else None
    return None


def _api_error(exc: BaseException) -> Classification | None:
    found = _api_code(exc)
    if found is None:
        return None
    return _api_error_of(exc, *found)


def _api_error_of(exc: BaseException, system: str, code: str, status: int | None) -> Classification:
    """An API's error ``code`` of ``system`` by its family, else by the HTTP ``status`` beside it."""
    upstream = Upstream(system, code)
    failure_class = _code_family(code)
    if failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
        sent = side_effect_for_http_status(status) if status is not None else not _REFUSING_CODE.search(code.lower())
        return Classification(failure_class, upstream=upstream, side_effect_possible=sent)
    if failure_class is not None:
        wait = None
        if failure_class is FailureClass.RATE_LIMITED:
            # the header's wait, else the one the answer's message states (OpenAI's ``rate_limit_exceeded`` "… Please
            # try again in 1h2m3.4s.": no Retry-After on a per-day limit)
            wait = retry_after_from_headers(lambda name: _response_header(exc, name))
            if wait is None:
                wait = retry_after_from_text(_message_of(exc))
        return Classification(failure_class, retry_after=wait, upstream=upstream, side_effect_possible=False)
    if status is None:
        return Classification(FailureClass.UNKNOWN, upstream=upstream)
    return Classification(class_for_http_status(status), upstream=upstream,
                          side_effect_possible=side_effect_for_http_status(status))


def _stream_error_code(exc: BaseException) -> str | None:
    """The error type an SDK raised an error event of a streamed answer with: the API's error object kept as
    ``body`` (the OpenAI SDK's ``APIError.body``, ``{"message", "type": "server_error"}``; the Anthropic SDK's
    ``APIStatusError.body``, ``{"type": "error", "error": {"type": "overloaded_error", ...}}``) on an exception with
    no error status: a 2xx one (the stream's, Anthropic's) or none (OpenAI's). Those APIs send a failure that comes
    after the answer began as an SSE ``error`` event in the 200 stream (https://docs.anthropic.com/en/api/messages-
    streaming, "Error events": an ``overloaded_error`` "would normally correspond to an HTTP 529"), so the status
    says nothing and the type is the only fact. ``None`` when the body names no type a code family knows."""
    body = _attribute(exc, "body")
    if not isinstance(body, Mapping):
        return None
    error = body.get("error") if isinstance(body.get("error"), Mapping) else body
    code = error.get("type") if isinstance(error.get("type"), str) else error.get("code")
    if not isinstance(code, str) or not _WORD_CODE.fullmatch(code) or _code_family(code) is None:
        return None
    return code if http_status_of(exc) is None or _success_status_of(exc) is not None else None


def _stream_error(exc: BaseException) -> Classification | None:
    """:func:`_stream_error_code` by its family (:func:`_api_error_of`): a server-side type came after the upstream
    had accepted the request and begun to answer, so it may have acted (``side_effect_possible``), unless the type
    says the service refused it before acting (``_REFUSING_CODE``: ``service_unavailable``)."""
    code = _stream_error_code(exc)
    return None if code is None else _api_error_of(exc, "http", code, None)


# A server-side code that says the service refused the request before acting (Slack's ``service_unavailable``,
# Hetzner Cloud's ``unavailable`` and ``maintenance``): as a 503, nothing done. Other server-side codes (an internal
# error, a timeout) may come after it acted.
_REFUSING_CODE: Final = re.compile(r"unavailable|maintenance")

# An API's error code as REST APIs spell theirs in an error body: lower-case words joined by ``_`` (Hetzner Cloud's
# ``{"error": {"code": "uniqueness_error", "message": ...}}``, Box's ``item_name_in_use``, Stripe's and Slack's).
_WORD_CODE: Final = re.compile(r"[a-z]+(?:_[a-z]+)*")


def _word_code(exc: BaseException) -> str | None:
    """The API error code an exception of no rule keeps as its ``code`` beside its ``message``, with no HTTP status
    (hcloud's ``APIException``, raised from the body ``{"error": {"code", "message", "details"}}``,
    https://docs.hetzner.cloud/#errors), when a code family knows it or it is an HTTP status's reason phrase
    (``bad_gateway``, ``conflict``: RFC 9110 §15); ``None`` otherwise."""
    code = None if isinstance(getattr(type(exc), "code", None), property) else _attribute(exc, "code")
    if not isinstance(code, str) or not _WORD_CODE.fullmatch(code) or _attribute(exc, "message") is None:
        return None
    known = _code_family(code) is not None or _REASON_NAMES.get(_reason_key(code)) is not None
    return code if known and http_status_of(exc) is None else None


def _word_code_error(exc: BaseException) -> Classification | None:
    """:func:`_word_code` by its family (:func:`_api_error`), else as the status its reason phrase names."""
    code = _word_code(exc)
    if code is None:
        return None
    status = _REASON_NAMES.get(_reason_key(code))
    if _code_family(code) is None and status is not None:
        return Classification(class_for_http_status(status), upstream=Upstream("http", code),
                              side_effect_possible=side_effect_for_http_status(status))
    return _api_error_of(exc, "http", code, status)


# OAuth 2.0 error codes (the IANA "OAuth Extensions Error Registry": RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1,
# RFC 8628 §3.5, OpenID Connect Core §3.1.2.6) -> (class, may it have been acted on). A token endpoint sends
# most of them with HTTP 400, yet the model's arguments were fine: the tool's grant or client was refused.
_OAUTH_CODES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("invalid_client", "invalid_grant", "unauthorized_client", "invalid_scope", "access_denied",
                     "invalid_token", "insufficient_scope", "expired_token", "login_required", "consent_required",
                     "interaction_required", "account_selection_required"), (FailureClass.PERMISSION_DENIED, False)),
    "slow_down": (FailureClass.RATE_LIMITED, False),
    "temporarily_unavailable": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "server_error": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    # the tool's own request or configuration: a bug, not the caller's
    **dict.fromkeys(("invalid_request", "unsupported_grant_type", "unsupported_response_type",
                     "unsupported_token_type"), (FailureClass.UNKNOWN, False)),
}


def _oauth_code(exc: BaseException) -> str | None:
    """The OAuth ``error`` code an exception carries: as its ``error`` beside a ``description`` (Authlib's
    OAuthError, oauthlib's OAuth2Error, whose ``status_code`` is a class default, not the response's), or in
    the token endpoint's JSON error body among its arguments (google-auth's RefreshError)."""
    code = _attribute(exc, "error")
    if isinstance(code, str) and code and hasattr(exc, "description"):
        return code
    code = _attribute(exc, "error_code")  # the token endpoint's error beside its status (auth0-python's Auth0Error)
    if isinstance(code, str) and code in _OAUTH_CODES:
        return code
    body = next((arg for arg in exc.args if isinstance(arg, Mapping)), None)
    code = body.get("error") if body is not None else None
    if isinstance(code, str) and code in _OAUTH_CODES:
        return code
    # the error response (RFC 6749 §5.2: ``error`` beside ``error_description``) kept as the raw body the SDK read
    # (python-keycloak's ``response_body``, bytes), or as its message
    for raw in (_attribute(exc, "response_body"), *exc.args[:1]):
        if isinstance(raw, bytes | str) and len(raw) <= _MAX_OAUTH_BODY and raw[:1] in ("{", b"{"):
            try:
                body = json.loads(raw)
            except ValueError:
                continue
            code = body.get("error") if isinstance(body, Mapping) and "error_description" in body else None
            if isinstance(code, str) and code in _OAUTH_CODES:
                return code
    return None


_MAX_OAUTH_BODY: Final = 8192


def _oauth_error(exc: BaseException) -> Classification | None:
    code = _oauth_code(exc)
    if code is None:
        return None
    # A code outside the registry is the client library's own check (oauthlib's insecure_transport,
    # mismatching_state), raised before or instead of reading an answer.
    failure_class, sent = _OAUTH_CODES.get(code, (FailureClass.UNKNOWN, False))
    wait = None
    if failure_class is FailureClass.RATE_LIMITED:
        wait = retry_after_from_headers(lambda name: _response_header(exc, name))
    return Classification(failure_class, retry_after=wait, upstream=Upstream("oauth", code), side_effect_possible=sent)


# librdkafka's error names (rdkafka.h rd_kafka_resp_err_t: ``_``-prefixed local errors; the others are the Kafka
# protocol's error codes, https://kafka.apache.org/protocol#protocol_error_codes) -> (class, may it have acted).
_KAFKA_ERRORS: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("UNKNOWN_TOPIC_OR_PART", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION"), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys(("TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED",
                     "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "SASL_AUTHENTICATION_FAILED",
                     "DELEGATION_TOKEN_AUTHORIZATION_FAILED", "_AUTHENTICATION"), (FailureClass.PERMISSION_DENIED, False)),
    "THROTTLING_QUOTA_EXCEEDED": (FailureClass.RATE_LIMITED, False),
    # the record or the request's own values: a message over the size limit (checked before it is queued), an
    # invalid topic name, partition count or replication factor, a topic that exists already
    **dict.fromkeys(("MSG_SIZE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "TOPIC_EXCEPTION", "INVALID_PARTITIONS",
                     "INVALID_REPLICATION_FACTOR", "INVALID_CONFIG", "POLICY_VIOLATION", "TOPIC_ALREADY_EXISTS",
                     "INVALID_RECORD", "INVALID_TIMESTAMP"), (FailureClass.INVALID_INPUT, False)),
    # no broker to take it: not resolved, none up, TLS failed, no leader or coordinator yet, the local queue full
    **dict.fromkeys(("_RESOLVE", "_ALL_BROKERS_DOWN", "_SSL", "_QUEUE_FULL", "LEADER_NOT_AVAILABLE",
                     "NOT_LEADER_FOR_PARTITION", "BROKER_NOT_AVAILABLE", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR",
                     "COORDINATOR_LOAD_IN_PROGRESS", "NOT_ENOUGH_REPLICAS"), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    # the connection failed or the answer did not come in time: a message may have been written (librdkafka's
    # "possibly persisted")
    **dict.fromkeys(("_TRANSPORT", "_TIMED_OUT", "_MSG_TIMED_OUT", "REQUEST_TIMED_OUT", "NETWORK_EXCEPTION",
                     "_TIMED_OUT_QUEUE"), (FailureClass.UPSTREAM_UNAVAILABLE, None)),
    **dict.fromkeys(("NOT_ENOUGH_REPLICAS_AFTER_APPEND", "KAFKA_STORAGE_ERROR"), (FailureClass.UPSTREAM_UNAVAILABLE, True)),
    # the client's own configuration or state (an unknown property, a commit with no offset stored, a transaction
    # call out of order): our code, nothing sent
    **dict.fromkeys(("_INVALID_ARG", "_NO_OFFSET", "_STATE", "_NOT_IMPLEMENTED", "_UNSUPPORTED_FEATURE",
                     "_NOT_CONFIGURED"), (FailureClass.UNKNOWN, False)),
}


# Trino's error names (io.trino.spi.StandardErrorCode) whose class is not their errorType's, read as the SQLSTATE
# table reads PostgreSQL's: a role refused (42501), a value the statement's data cannot take (class 22), a limit that
# cancelled the statement (57014) or an operator's kill (57: what it had written may stay).
_TRINO_NAMES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "PERMISSION_DENIED": (FailureClass.PERMISSION_DENIED, False),
    **dict.fromkeys(("DIVISION_BY_ZERO", "INVALID_CAST_ARGUMENT", "INVALID_FUNCTION_ARGUMENT",
                     "NUMERIC_VALUE_OUT_OF_RANGE", "INVALID_LITERAL", "CONSTRAINT_VIOLATION"),
                    (FailureClass.INVALID_INPUT, False)),
    **dict.fromkeys(("EXCEEDED_TIME_LIMIT", "QUERY_REJECTED", "QUERY_HAS_TOO_MANY_STAGES"),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    "ADMINISTRATIVELY_KILLED": (FailureClass.UPSTREAM_UNAVAILABLE, True),
    # the coordinator could not start the query: no worker, starting up, shutting down
    **dict.fromkeys(("NO_NODES_AVAILABLE", "SERVER_STARTING_UP", "SERVER_SHUTTING_DOWN"),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
}
# ... else by its errorType (io.trino.spi.ErrorType): the statement as written (a missing table, a syntax error: the
# SQLSTATE table's class 42, the tool's own query); the cluster out of memory or queue slots (class 53, nothing run);
# the coordinator's own failure or a connector's source (a metastore, a JDBC database) failing under the query.
_TRINO_TYPES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    "USER_ERROR": (FailureClass.UNKNOWN, False),
    "INSUFFICIENT_RESOURCES": (FailureClass.UPSTREAM_UNAVAILABLE, False),
    "INTERNAL_ERROR": (FailureClass.UPSTREAM_UNAVAILABLE, None),
    "EXTERNAL": (FailureClass.UPSTREAM_UNAVAILABLE, None),
}


def _trino_error(exc: BaseException) -> Classification:
    """trino-python-client's ``TrinoQueryError`` (``TrinoUserError``, ``TrinoExternalError``, ...): the failed
    query's ``errorName`` (:data:`_TRINO_NAMES`), else its ``errorType`` (:data:`_TRINO_TYPES`); the name is the
    upstream status, system ``trino``."""
    name, error_type = _attribute(exc, "error_name"), _attribute(exc, "error_type")
    found = (_TRINO_NAMES.get(name) if isinstance(name, str) else None) or _TRINO_TYPES.get(str(error_type))
    if found is None:
        found = (FailureClass.UNKNOWN, None)
    return Classification(found[0], upstream=Upstream("trino", name) if isinstance(name, str) and name else None,
                          side_effect_possible=found[1])


# Dropbox's route errors (https://www.dropbox.com/developers/documentation/http/documentation, "Errors": 409
# "Endpoint-specific error", its tags in each route's error union): the innermost tag a class is known for decides.
_DROPBOX_TAGS: Final[dict[str, FailureClass]] = {
    "not_found": FailureClass.NOT_FOUND,
    # a path or name the call gave that cannot be used, or that collides with what is there (HTTP 409's class)
    **dict.fromkeys(("malformed_path", "not_file", "not_folder", "conflict", "disallowed_name",
                     "unsupported_content_type", "cant_copy_shared_folder", "cant_nest_shared_folder",
                     "cant_move_folder_into_itself", "duplicated_or_nested_paths", "cant_transfer_ownership",
                     "invalid_path_root", "invalid_cursor", "reset"), FailureClass.INVALID_INPUT),
    # the account may not write there or read that (content restricted by policy, a team folder, a scope)
    **dict.fromkeys(("no_write_permission", "no_permission", "restricted_content", "team_folder", "access_denied",
                     "email_not_verified", "insufficient_permissions"), FailureClass.PERMISSION_DENIED),
    "too_many_write_operations": FailureClass.RATE_LIMITED,  # the namespace's write lock contended: retry later
}


def _stone_tags(value: object, depth: int = 0) -> list[str]:
    """The tags of a Stone union (Dropbox's SDKs: ``_tag``, its value in ``_value``) and of the unions its structs'
    fields hold, outermost first (``path`` / ``not_found``, as Dropbox's ``error_summary`` reads)."""
    if depth > 6 or value is None:
        return []
    tag = _attribute(value, "_tag")
    if isinstance(tag, str):
        return [tag, *_stone_tags(_attribute(value, "_value"), depth + 1)]
    fields = _attribute(value, "_all_field_names_")
    if isinstance(fields, (set, frozenset, list, tuple)):
        return [tag for name in sorted(fields) for tag in _stone_tags(_attribute(value, name), depth + 1)]
    return []


def _dropbox_api_error(exc: BaseException) -> Classification:
    """Dropbox's ``ApiError``: a route's own refusal (answered 409, or 403/404), with no status kept, only its
    error union. The innermost tag :data:`_DROPBOX_TAGS` or an API code family knows decides; nothing was done (a
    refusal of the request as a whole). The tags are the upstream status, system ``dropbox``."""
    tags = _stone_tags(_attribute(exc, "error"))
    upstream = Upstream("dropbox", "/".join(tags)) if tags else None
    for tag in reversed(tags):
        failure_class = _DROPBOX_TAGS.get(tag) or _code_family(tag)
        if failure_class is not None and failure_class is not FailureClass.UNKNOWN:
            return Classification(failure_class, upstream=upstream, side_effect_possible=False)
    return Classification(FailureClass.UNKNOWN, upstream=upstream, side_effect_possible=False)


def _reddit_redirect(exc: BaseException) -> Classification:
    """prawcore's ``Redirect`` (a 301/302 where an API answer was due): Reddit answers a subreddit that does not
    exist by redirecting to its search (``/subreddits/search``), and a write from a read-only session by
    redirecting to ``/login/``; any other redirect says no failure class."""
    path = _attribute(exc, "path")
    if isinstance(path, str) and path.startswith("/subreddits/search"):
        return Classification(FailureClass.NOT_FOUND, side_effect_possible=False)
    if isinstance(path, str) and path.startswith("/login"):
        return Classification(FailureClass.PERMISSION_DENIED, side_effect_possible=False)
    return _UNKNOWN


def _kafka_error(exc: BaseException) -> Classification:
    """confluent-kafka's ``KafkaException``: the ``KafkaError`` it holds (``args[0]``) by its name, else by whether
    librdkafka calls it retriable (a transient broker state: upstream_unavailable)."""
    error = exc.args[0] if exc.args else None
    try:
        name, retriable = error.name(), error.retriable()  # type: ignore[union-attr]
    except Exception:  # not a KafkaError: a message of its own
        return _UNKNOWN
    found = _KAFKA_ERRORS.get(name) if isinstance(name, str) else None
    if found is None:
        found = (FailureClass.UPSTREAM_UNAVAILABLE, None) if retriable is True else (FailureClass.UNKNOWN, None)
    return Classification(found[0], upstream=Upstream("kafka", str(name)), side_effect_possible=found[1])


def _telegram_wait(exc: BaseException) -> float | None:
    # its timedelta as stored: the public ``retry_after`` warns (PTBDeprecationWarning) on each read since v22.2
    stored = delay_seconds(_attribute(exc, "_retry_after"))
    return stored if stored is not None else _carried_delay(exc)


# Google Maps Platform web services' ``status`` of a refused request (the Geocoding, Directions, Distance Matrix, Places
# APIs' "Status codes" tables), which googlemaps' ApiError keeps as ``status`` over an HTTP 200. OVER_DAILY_LIMIT is,
# by Google's list, a key missing or invalid, billing not enabled, a self-imposed cap or a payment method gone: the
# account, not the rate; UNKNOWN_ERROR is the server's own failure ("may succeed if you try again").
_MAPS_STATUSES: Final[dict[str, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys(("NOT_FOUND", "ZERO_RESULTS"), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys(("INVALID_REQUEST", "MAX_ELEMENTS_EXCEEDED", "MAX_DIMENSIONS_EXCEEDED", "MAX_WAYPOINTS_EXCEEDED",
                     "MAX_ROUTE_LENGTH_EXCEEDED"), (FailureClass.INVALID_INPUT, False)),
    "OVER_QUERY_LIMIT": (FailureClass.RATE_LIMITED, False),
    **dict.fromkeys(("REQUEST_DENIED", "OVER_DAILY_LIMIT"), (FailureClass.PERMISSION_DENIED, False)),
    "UNKNOWN_ERROR": (FailureClass.UPSTREAM_UNAVAILABLE, True),
}


def _maps_status(exc: BaseException) -> Classification:
    status = _attribute(exc, "status")
    failure_class, sent = _MAPS_STATUSES.get(status, (FailureClass.UNKNOWN, None)) if isinstance(status, str) else (
        FailureClass.UNKNOWN, None)
    upstream = Upstream("google_maps", status) if isinstance(status, str) else None
    return Classification(failure_class, upstream=upstream, side_effect_possible=sent)


# python-consul (py-consul) raises BadRequest, ClientError and its base ConsulException as f"{code} {body}": the
# status is the message's first word (its ACLDisabled, ACLPermissionDenied and NotFound stand for 401, 403, 404)
_LEADING_STATUS: Final = re.compile(r"([1-5]\d\d) ")


def _consul_status(exc: BaseException) -> Classification | None:
    match = _LEADING_STATUS.match(_message_of(exc))
    return _status_named(int(match.group(1)), "http")(exc) if match else None


_MARKUP_DOCUMENT: Final = re.compile(r"\s*<(?:!doctype\s|\?xml\s|[a-z][\w:-]*[\s>/])", re.I)
"""The start of an HTML or XML document (a doctype, an XML declaration or an element's tag)."""


def _google_refresh_error(exc: BaseException) -> Classification | None:
    """google-auth's ``RefreshError``: the token endpoint's answer decides (a status or an error document in its
    words, as for any rule-less type). One text and nothing under it is google-auth's own words (an access token
    without a refresh token, "Reauthentication is needed"), raised when the upstream refused the token (401) or before
    sending with an expired one: a credential it cannot renew. Unless that text is a markup document: google-auth
    keeps an answer that is no JSON as its one text (``_handle_error_response``, ``reauth.refresh_grant``), and an
    HTML or XML page is a gateway's or the server's error page (RFC 6749 §5.2 error responses are JSON), never the
    library's own sentence: it is read as a foreign server's text."""
    one_text = len(exc.args) == 1 and isinstance(exc.args[0], str) and exc.__cause__ is None and exc.__context__ is None
    if one_text and not _MARKUP_DOCUMENT.match(exc.args[0]):
        return Classification(FailureClass.PERMISSION_DENIED, side_effect_possible=False)
    found = _status_in_text(exc) or _error_document(exc)
    if found is not None or not one_text:
        return found
    text = exc.args[0]
    failure_class = classify_text(text)
    if failure_class is FailureClass.UNKNOWN:
        return None
    return Classification(failure_class, side_effect_possible=acted_per_text(text))

