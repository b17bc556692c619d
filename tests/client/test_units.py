"""The client's policy modules on their own: breaker, retry policy, text classification, the -32602
note, keys, deadline, catalog."""

from __future__ import annotations

import contextlib
import json
import re
import reprlib
import secrets
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import AsyncIterator
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse, Tool, ToolAnnotations

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import META_ERROR_REF, META_IDEMPOTENCY_KEY_HONOURED
from errscope._messages import MAX_NAME
from errscope.client import (
    BreakerState,
    CircuitBreaker,
    RetryPolicy,
    TimeoutPolicy,
    ToolCallResult,
    ToolCatalog,
    ToolClient,
    classify_text,
    invalid_params_note,
    key_hash,
    new_idempotency_key,
)
from errscope.client._deadline import CallDeadline, TimeoutKind
from errscope.client._invalid_params import parse_argument_problems, unknown_tool_name
from errscope.client._answer import error_ref as _ref_of
from errscope._foreign_text import never_reached, retry_after_from_text, safe_excerpt, says_maybe_acted
from errscope.client._wire import CURRENT_ATTEMPT, WireAttempt, WireTap


class TestCircuitBreaker:
    """Consecutive transport failures open it; any answer closes it; half-open lets one trial through."""

    def test_opens_at_threshold_and_half_opens_after_reset(self) -> None:
        """Three failures open it; after reset_after exactly one trial is allowed."""
        now = [0.0]
        breaker = CircuitBreaker(failure_threshold=3, reset_after=10, clock=lambda: now[0])
        for _ in range(2):
            breaker.record_failure()
        assert breaker.state is BreakerState.CLOSED and breaker.allow()
        breaker.record_failure()
        assert breaker.state is BreakerState.OPEN and not breaker.allow()
        now[0] = 10.0
        assert breaker.state is BreakerState.HALF_OPEN
        assert breaker.allow() and not breaker.allow()

    def test_failed_trial_reopens_and_success_closes(self) -> None:
        """A failing trial re-opens for another reset period; an answer closes it."""
        now = [0.0]
        breaker = CircuitBreaker(failure_threshold=1, reset_after=5, clock=lambda: now[0])
        breaker.record_failure()
        now[0] = 5.0
        assert breaker.allow()
        breaker.record_failure()
        assert breaker.state is BreakerState.OPEN
        now[0] = 10.0
        assert breaker.allow()
        breaker.record_success()
        assert breaker.state is BreakerState.CLOSED

    def test_success_resets_the_count(self) -> None:
        """Failures must be consecutive."""
        breaker = CircuitBreaker(failure_threshold=2)
        breaker.record_failure()
        breaker.record_success()
        breaker.record_failure()
        assert breaker.state is BreakerState.CLOSED

    def test_threshold_must_be_positive(self) -> None:
        """A zero threshold is a configuration error."""
        with pytest.raises(ValueError):
            CircuitBreaker(failure_threshold=0)


def _result(cls: FailureClass | None, *, outcome: Outcome = Outcome.ERROR, channel: Channel | None = Channel.EXECUTION,
            retry_after: float | None = None) -> ToolCallResult:
    return ToolCallResult(tool="t", text="", outcome=outcome, channel=channel, failure_class=cls, retry_after=retry_after)


@dataclass
class ScriptedCall:
    """A logical call for :meth:`RetryPolicy.run` whose attempts all end with ``result``."""

    result: ToolCallResult
    safe: bool = True
    undelivered: bool = False
    held: bool = False
    seen: list[int] = field(default_factory=list)

    async def attempt(self, number: int) -> ToolCallResult:
        self.seen.append(number)
        return self.result

    def safe_to_repeat(self) -> bool:
        return self.safe


class TestRetryPolicy:
    """Only what is safe: a failure that may have run repeats only for a tool declared safe to repeat;
    one that never reached the tool repeats at the transport layer."""

    @pytest.mark.parametrize(
        ("result", "safe", "undelivered", "expected"),
        [
            (_result(FailureClass.PERMISSION_DENIED), True, False, False),
            (_result(FailureClass.NOT_FOUND), True, False, False),
            (_result(FailureClass.INVALID_INPUT), True, True, False),
            (_result(FailureClass.UNKNOWN), True, False, False),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE), True, False, True),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE), False, False, False),
            (_result(FailureClass.RATE_LIMITED, retry_after=2), False, False, False),
            (_result(FailureClass.RATE_LIMITED), False, False, False),
            (_result(FailureClass.RATE_LIMITED, retry_after=2), True, False, True),
            (_result(FailureClass.RATE_LIMITED), True, False, True),
            (_result(FailureClass.RATE_LIMITED, retry_after=30), True, False, False),
            # a JSON-RPC error repeats for any tool only when it proves nothing ran
            (_result(FailureClass.RATE_LIMITED, channel=Channel.PROTOCOL, retry_after=2), False, True, True),
            (_result(FailureClass.RATE_LIMITED, channel=Channel.PROTOCOL, retry_after=2), False, False, False),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=Channel.PROTOCOL), False, True, True),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=Channel.PROTOCOL), False, False, False),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, outcome=Outcome.TIMEOUT, channel=None), True, False, True),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, outcome=Outcome.TIMEOUT, channel=None), False, False, False),
            # no answer: lost after sending repeats only for a safe tool; never sent repeats for any tool
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=None), True, False, True),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=None), False, False, False),
            (_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=None), False, True, True),
            (_result(FailureClass.RATE_LIMITED, channel=None, retry_after=3600), False, True, False),
            (_result(None, outcome=Outcome.OK, channel=None), True, False, False),
        ],
    )
    def test_should_retry(self, result: ToolCallResult, safe: bool, undelivered: bool, expected: bool) -> None:
        """One row per class / channel / outcome / delivery of the policy table."""
        assert RetryPolicy().should_retry(result, safe_to_repeat=safe, undelivered=undelivered) is expected

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_run_stops_at_max_attempts_and_returns_the_last_result(self, anyio_backend: str) -> None:
        """A persistently unavailable idempotent call is tried max_attempts times, then returned."""
        policy = RetryPolicy(max_attempts=3, backoff_initial=0.001, backoff_max=0.002, jitter=0.001)
        call = ScriptedCall(_result(FailureClass.UPSTREAM_UNAVAILABLE))
        result, count = await policy.run(call)
        assert (call.seen, count, result.failure_class) == ([1, 2, 3], 3, FailureClass.UPSTREAM_UNAVAILABLE)

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_held_attempt_ends_the_retries(self, anyio_backend: str) -> None:
        """An attempt the open breaker held back is never repeated, safe tool or not."""
        call = ScriptedCall(_result(FailureClass.UPSTREAM_UNAVAILABLE, channel=None), undelivered=True, held=True)
        assert (await RetryPolicy().run(call))[1] == 1

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_budget_stops_long_waits(self, anyio_backend: str) -> None:
        """No new attempt starts once the next wait would pass the budget."""
        policy = RetryPolicy(max_attempts=10, budget=0.3, jitter=0)
        call = ScriptedCall(_result(FailureClass.RATE_LIMITED, retry_after=0.2))
        started = anyio.current_time()
        await policy.run(call)
        assert call.seen == [1, 2] and anyio.current_time() - started < 1.0


class TestClassifyText:
    """Foreign text-only errors land on the closed set; unrecognised text is unknown."""

    TABLE = [
        ("403 Forbidden: token lacks repo:write", FailureClass.PERMISSION_DENIED),
        ("HTTP 401 Unauthorized", FailureClass.PERMISSION_DENIED),
        ("Access is denied", FailureClass.PERMISSION_DENIED),
        ("404 Not Found", FailureClass.NOT_FOUND),
        ("No such file or directory", FailureClass.NOT_FOUND),
        ("429 Too Many Requests, retry after 30s", FailureClass.RATE_LIMITED),
        ("Rate limit exceeded for client", FailureClass.RATE_LIMITED),
        ("503 Service Unavailable", FailureClass.UPSTREAM_UNAVAILABLE),
        ("connection refused (ECONNREFUSED)", FailureClass.UPSTREAM_UNAVAILABLE),
        # A Python server's OSError, a Node socket error, a Go dial error: the words or the errno name.
        ("Error executing tool pay: [Errno 111] payments API refused the connection", FailureClass.UPSTREAM_UNAVAILABLE),
        ("read ECONNRESET", FailureClass.UPSTREAM_UNAVAILABLE),
        ("dial tcp: lookup api.internal: EAI_AGAIN", FailureClass.UPSTREAM_UNAVAILABLE),
        ("the connection was reset by the ledger", FailureClass.UPSTREAM_UNAVAILABLE),
        ("upstream timed out", FailureClass.UPSTREAM_UNAVAILABLE),
        ("400 Bad Request", FailureClass.INVALID_INPUT),
        ("start must be an ISO-8601 date-time", FailureClass.INVALID_INPUT),
        ("something odd happened", FailureClass.UNKNOWN),
        ("order 12345 failed", FailureClass.UNKNOWN),
        # git's and curl's own words, as a git or shell tool relays its stderr
        ("fatal: could not read Username for 'https://git.example.com': terminal prompts disabled",
         FailureClass.PERMISSION_DENIED),
        ("error: pathspec 'feature-x' did not match any file(s) known to git", FailureClass.NOT_FOUND),
        ("fatal: ambiguous argument 'v9.9': unknown revision or path not in the working tree.", FailureClass.NOT_FOUND),
        ("fatal: not a git repository (or any of the parent directories): .git", FailureClass.NOT_FOUND),
        ("fatal: a branch named 'main' already exists", FailureClass.INVALID_INPUT),
        (" ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs", FailureClass.INVALID_INPUT),
        ("curl: (7) Failed to connect to api.internal port 443 after 3 ms: Couldn't connect to server",
         FailureClass.UPSTREAM_UNAVAILABLE),
        # a usage quota spent, in OpenAI's and Tavily's words; MediaWiki's maxlag
        ("You exceeded your current quota, please check your plan and billing details.", FailureClass.RATE_LIMITED),
        ("This request exceeds your plan's set usage limit.", FailureClass.RATE_LIMITED),
        ("Waiting for 10.64.48.35: 7 seconds lagged.", FailureClass.UPSTREAM_UNAVAILABLE),
    ]

    @pytest.mark.parametrize(("text", "expected"), TABLE)
    def test_table(self, text: str, expected: FailureClass) -> None:
        """Each example lands on its class."""
        assert classify_text(text) is expected

    @pytest.mark.parametrize(
        ("text", "seconds"),
        [
            ("429 Too Many Requests, retry after 30s", 30.0),
            ("Retry-After: 12", 12.0),
            ("slow down; try again in 2 minutes", 120.0),
            ("retry after 250ms", 0.25),
            ("no hint here", None),
        ],
    )
    def test_retry_after(self, text: str, seconds: float | None) -> None:
        """Retry hints in prose become seconds."""
        assert retry_after_from_text(text) == seconds

    @pytest.mark.parametrize(
        ("text", "maybe"),
        [
            # the answer never came in time, or the connection dropped once the request was out: may have acted
            ("The operation was aborted due to timeout", True),  # Node's AbortSignal.timeout
            ("fetch failed", True),  # undici, no cause given: before or after the request was written
            ("fetch failed (other side closed)", True),
            ("request to https://api.example.com/v1/refunds failed, reason: socket hang up", True),  # node-fetch
            ("read ETIMEDOUT", True),
            ("HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout=10)", True),
            ("('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", True),
            ('Post "https://api.example.com/v1/refunds": context deadline exceeded', True),  # Go
            ('Post "https://api.example.com/v1/refunds": EOF', True),
            ("error sending request for url (https://api.example.com/): connection closed before message completed",
             True),  # reqwest
            ("payments API answered 500 Internal Server Error", True),
            ("upstream returned 504 Gateway Timeout", True),
            ("java.net.SocketTimeoutException: Read timed out", True),
            ("java.io.IOException: unexpected end of stream on http://ledger.internal/...", True),  # OkHttp
            ("The response ended prematurely. (ResponseEnded)", True),  # .NET HttpClient
            ("curl: (52) Empty reply from server", True),
            ("Connection terminated unexpectedly", True),  # node-postgres under a statement
            ("Can't reach database server at `db.internal:5432`", False),  # Prisma P1001
            # nothing reached the upstream, a refusal as a whole, a crash, or nothing said
            ("fetch failed (connect ECONNREFUSED 127.0.0.1:5432)", False),
            ("getaddrinfo ENOTFOUND api.example.com", False),
            ("connect ETIMEDOUT 10.0.0.7:443", False),
            ("HTTPSConnectionPool(host='x', port=443): Max retries exceeded (Caused by ConnectTimeoutError(...))", False),
            ('Post "https://api.example.com": dial tcp 10.0.0.7:443: connect: connection refused', False),
            ("x509: certificate has expired or is not yet valid", False),
            ("503 Service Unavailable", False),
            ("408 Request Timeout", False),
            ("Order ORD-1 not found (404)", False),
            ("panic: runtime error: invalid memory address or nil pointer dereference (timeout)", False),
            ("the ledger is closed for the day", False),
        ],
    )
    def test_says_maybe_acted(self, text: str, maybe: bool) -> None:
        """Whether a foreign text says the upstream may have acted before the failure (DESIGN: one hop further down)."""
        assert says_maybe_acted(text) is maybe

    @pytest.mark.parametrize(
        ("text", "reached"),
        [
            # JSSE's and OkHttp's SSLPeerUnverifiedException, Java's HostnameChecker: the certificate, before the
            # request
            ("javax.net.ssl.SSLPeerUnverifiedException: peer not authenticated", False),
            ("javax.net.ssl.SSLPeerUnverifiedException: Hostname api.example.com not verified:\n    certificate: "
             "sha256/AAAA=", False),
            ("No subject alternative names matching IP address 10.0.0.5 found", False),
            # a pool that gave no connection in time: Apache HttpClient 5, Reactor Netty
            ("org.apache.hc.client5.http.impl.ConnectionRequestTimeoutException: "
             "Deadline: 2026-05-01T10:00:00.000+0000, 3 MILLISECONDS overdue", False),
            ("reactor.netty.internal.shaded.reactor.pool.PoolAcquireTimeoutException: Pool#acquire(Pool) has been "
             "pending for more than the configured timeout of 45000ms", False),
            # Apache HttpCore reading an answer the peer ended
            ("org.apache.hc.core5.http.ConnectionClosedException: Premature end of chunk coded message body: closing "
             "chunk expected", True),
            ("org.apache.hc.core5.http.ConnectionClosedException: Connection closed by peer", True),
            ("org.apache.hc.core5.http.NoHttpResponseException: api.example.com:443 failed to respond", True),
        ],
    )
    def test_jvm_client_words(self, text: str, reached: bool) -> None:
        """JVM HTTP clients' messages the runtime probes cannot provoke on 127.0.0.1 (a trusted certificate for
        another name, an exhausted pool; tests/foreign/test_runtime_failures.py has the rest), quoted from the
        libraries' sources: an upstream out of reach, never reached or maybe acted on as the text says."""
        assert classify_text(text) is FailureClass.UPSTREAM_UNAVAILABLE
        assert (never_reached(text), says_maybe_acted(text)) == (not reached, reached)

    def test_excerpt_is_scrubbed_short_and_path_free(self) -> None:
        """Credentials, paths and stack fragments never survive into the model's excerpt."""
        text = (
            "could not connect to postgres://admin:s3cret-FAKE@db:5432/x at /srv/app/FAKE/db.py:12\n"
            "Traceback (most recent call last): ..."
        )
        excerpt = safe_excerpt(text)
        assert "s3cret-FAKE" not in excerpt and "/srv/app" not in excerpt and "Traceback" not in excerpt
        assert len(safe_excerpt("x" * 500)) <= 160


class TestInvalidParamsNote:
    """The -32602 crossing: which argument, what it must be, nothing else."""

    def test_zod_message(self) -> None:
        """D18's message becomes the expected note."""
        message = (
            "Input validation error: Invalid arguments for tool create_label: color: Expected string, received "
            "number; trace at /srv/app/FAKE/handlers.py:88"
        )
        assert invalid_params_note("create_label", message) == (
            "create_label was rejected: invalid arguments — `color` must be a string. Fix the arguments and call again."
        )

    def test_pydantic_message_does_not_echo_input(self) -> None:
        """pydantic's input_value is dropped; the field and expectation stay."""
        message = (
            "1 validation error for addArguments\na\n  Input should be a valid integer, unable to parse string as "
            "an integer [type=int_parsing, input_value='forty', input_type=str]"
        )
        note = invalid_params_note("add", message)
        assert "`a` must be a valid integer" in note and "forty" not in note

    def test_parsed_expectation_is_scrubbed(self) -> None:
        """A secret inside a parsed "must be ..." clause does not reach the model."""
        token = "ghp_" + "Q7" + "x4" * 17  # built at run time: no token-shaped literal in the file
        note = invalid_params_note("t", f"amount must be at most {token}")
        assert "`amount` must be at most [REDACTED]" in note and token not in note

    def test_several_fields_and_required(self) -> None:
        """Multiple problems are listed; required properties are named."""
        message = "'start' is a required property; duration_min: Expected integer, received string"
        problems = parse_argument_problems(message)
        assert [(p.field, p.expected) for p in problems] == [("duration_min", "an integer"), ("start", "required")]

    def test_bare_message_and_length_bound(self) -> None:
        """Nothing structured: a generic note; everything stays under 300 characters."""
        assert invalid_params_note("t", "Invalid request parameters") == (
            "t was rejected: invalid arguments. Fix the arguments and call again."
        )
        long = "; ".join(f"f{i}: Expected string, received number" for i in range(50))
        assert len(invalid_params_note("t" * 40, long)) <= 300

    @pytest.mark.parametrize(
        ("schema", "value"),
        [
            ({"maxLength": 8}, secrets.token_urlsafe(24)),  # a secret: "'<token>' is too long"
            ({"maxLength": 8}, "Q" * 10_240),  # a 10 KB nested string
            ({"minLength": 64}, secrets.token_hex(10)),  # "'<hex>' is too short"
            ({"anyOf": [{"type": "string"}, {"maximum": 10}]}, 4111111111111111),  # a number, "... any of ..."
        ],        ids=["secret", "10KB", "too-short", "number"],
    )
    def test_nested_values_are_never_quoted(self, schema: dict[str, Any], value: Any) -> None:
        """A value the model sent, at any depth and of any type, is cut out of the note (jsonschema's real text)."""
        properties = {"auth": {"type": "object", "properties": {"token": schema}}}
        arguments = {"mode": "live", "auth": {"token": value, "scopes": [value]}}
        with pytest.raises(jsonschema.ValidationError) as raised:
            jsonschema.validate(arguments, {"type": "object", "properties": properties})
        message = f"Input validation error: {raised.value.message}"
        assert str(value) in message  # the validator did echo it: the cut is what keeps it out
        note = invalid_params_note("sign_in", message, arguments)
        assert str(value)[:12] not in note and len(note) <= 300
        assert note.startswith("sign_in was rejected: invalid arguments")

    def test_shortened_echo_is_cut(self) -> None:
        """A validator that prints a long value cut short (``reprlib``, pydantic's ``'abc...xyz'``) still echoes
        part of it: every long run of a sent string is cut, whatever its depth."""
        token = secrets.token_hex(32)
        arguments = {"request": {"headers": [{"name": "X-Key", "value": token}]}}
        message = f"Invalid params: header value {reprlib.repr(token)} was refused by policy"
        note = invalid_params_note("fetch", message, arguments)
        assert token[:12] not in note and token[-12:] not in note
        assert "was refused by policy" in note

    def test_a_struct_report_of_one_long_word_is_read_fast(self) -> None:
        """A Go ``%+v`` report (``/user: {Missing:[name]}``) whose braces hold one long word: its field names are looked
        for at word starts only, not at each letter (each start read the rest of the word: quadratic)."""
        assert [(p.field, p.expected) for p in parse_argument_problems("/user: {Missing:[name] Want:x}")] == [
            ("user.name", "required")]
        started = time.perf_counter()
        problems = parse_argument_problems("/user: {" + "A" * 40_000 + "}")
        assert time.perf_counter() - started < 2.0  # ~5 ms here; it took ~7 s
        assert [(p.field, p.expected) for p in problems] == [("user", None)]

    def test_parsed_expectation_cut_and_bounded(self) -> None:
        """An expectation parsed out of prose is cut of sent values and bounded; so is an argument name."""
        token = secrets.token_hex(16)
        note = invalid_params_note("t", f"auth.token must be {token} or later", {"auth": {"token": token}})
        assert "`auth.token` must be" in note and token not in note
        issues = [{"code": "invalid_type", "expected": "string", "received": "number", "path": ["f" * 5000]}]
        note = invalid_params_note("t", json.dumps(issues), {})
        assert "must be a string" in note and "f" * (MAX_NAME + 1) not in note and len(note) <= 300

    @pytest.mark.parametrize(
        ("message", "name"),
        [
            ("Unknown tool: get_ordr", "get_ordr"),
            ("MCP error -32602: Tool get_ordr not found", ""),
            ("Unknown tool: 'nope'", "nope"),
            ("Invalid params", None),
        ],
    )
    def test_unknown_tool_detection(self, message: str, name: str | None) -> None:
        """Unknown-tool phrasing is recognised whatever the SDK's wording."""
        found = unknown_tool_name(message)
        assert (found is not None) == (name is not None)
        if name:
            assert found == name


class TestServerRef:
    """A server's ref reaches the model text and the span only when it has the ref's shape."""

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("ERR-SRVREF01", "ERR-SRVREF01"),
            ("ERR-SRVREF01 password=hunter2", None),
            ("see https://internal.example/x", None),
            (42, None),
        ],
    )
    def test_ref_shape(self, value: object, expected: str | None) -> None:
        """Only ``ERR-`` plus 8 Crockford characters is taken from ``_meta``/``data``."""
        assert _ref_of({META_ERROR_REF: value}) == expected


class TestKeys:
    """Idempotency keys and their hashes."""

    def test_keys_are_uuid4_and_hash_is_stable_prefix(self) -> None:
        """Fresh UUID4 per call; 16 hex chars of SHA-256 on spans."""
        a, b = new_idempotency_key(), new_idempotency_key()
        assert a != b and re.fullmatch(r"[0-9a-f-]{36}", a)
        for key in (new_idempotency_key() for _ in range(200)):  # version and variant bits set on every draw
            parsed = uuid.UUID(key)
            assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, key)
        assert key_hash(a) == key_hash(a) and re.fullmatch(r"[0-9a-f]{16}", key_hash(a)) and a not in key_hash(a)


@contextlib.asynccontextmanager
async def _running(deadline: CallDeadline) -> AsyncIterator[None]:
    """Run the body under ``deadline`` as an attempt does: the asyncio timer's own ``TimeoutError`` is caught."""
    try:
        if deadline.timer is not None:
            async with deadline.timer:
                yield
        else:
            assert deadline.scope is not None
            with deadline.scope:
                yield
    except TimeoutError as exc:
        if not deadline.caught(exc):
            raise


class TestDeadline:
    """Idle timer and hard ceiling."""

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
    async def test_touch_extends_idle_but_not_past_ceiling(self, anyio_backend: str) -> None:
        """Progress moves the deadline forward, capped by the ceiling; after finish it does nothing."""
        deadline = CallDeadline(TimeoutPolicy(idle=1.0, ceiling=1.5))
        assert (deadline.timer is not None) == (anyio_backend == "asyncio")
        async with _running(deadline):
            first = deadline.deadline
            await anyio.sleep(0.1)
            deadline.touch()
            assert deadline.deadline > first
            await anyio.sleep(0.6)
            deadline.touch()
            assert deadline.deadline == pytest.approx(deadline.ceiling_at)
            deadline.finish()
            before = deadline.deadline
            deadline.touch()
            assert deadline.deadline == before and deadline.progress_events == 2
        assert deadline.fired is None

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
    async def test_idle_timer_fires_and_says_which(self, anyio_backend: str) -> None:
        """A call that outlives the idle timer is cancelled and the deadline names the idle timer; one that outlives
        the ceiling names the ceiling."""
        for policy, expected in ((TimeoutPolicy(idle=0.05, ceiling=5.0), TimeoutKind.IDLE),
                                 (TimeoutPolicy(idle=0.05, ceiling=0.05), TimeoutKind.CEILING)):
            deadline = CallDeadline(policy)
            async with _running(deadline):
                await anyio.sleep(5)
            deadline.finish()
            assert deadline.fired is expected
            assert deadline.cancel_reason() == (
                "timeout after 0.05s (hard limit)" if expected is TimeoutKind.CEILING else "timeout after 0.05s")

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_a_timeout_error_of_the_call_is_not_the_timer(self, anyio_backend: str) -> None:
        """A ``TimeoutError`` the call raises itself (a transport's bounded write) is not the timer firing."""
        deadline = CallDeadline(TimeoutPolicy(idle=5.0))
        assert deadline.timer is not None
        with pytest.raises(TimeoutError) as raised:
            async with deadline.timer:
                raise TimeoutError("write timed out")
        assert deadline.caught(raised.value) is False and deadline.fired is None

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_the_host_cancelling_is_not_the_timer(self, anyio_backend: str) -> None:
        """The host's own cancellation while the timer runs propagates and is not counted as a timeout."""
        deadline = CallDeadline(TimeoutPolicy(idle=5.0))
        with anyio.move_on_after(0.05) as outer:
            async with _running(deadline):
                await anyio.sleep(5)
        assert outer.cancelled_caught and deadline.fired is None

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
    async def test_progress_after_the_host_cancelled_touches_nothing(self, anyio_backend: str) -> None:
        """The SDK runs each progress callback in a task of its own, so one can run after the host's cancellation
        ended the attempt (``finish`` is never reached on that path): it must change nothing and raise nothing."""
        deadline = CallDeadline(TimeoutPolicy(idle=5.0))
        with anyio.move_on_after(0.05) as outer:
            async with _running(deadline):
                await anyio.sleep(5)
        assert outer.cancelled_caught
        before = deadline.deadline
        deadline.touch()  # asyncio.Timeout.reschedule on an exited timer raises RuntimeError
        assert deadline.fired is None
        if anyio_backend == "asyncio":
            assert deadline.deadline == before

    def test_default_ceiling_is_ten_idles(self) -> None:
        """Without an explicit ceiling the hard limit is ten idle periods."""
        assert TimeoutPolicy(idle=3).hard_ceiling == 30


class TestCatalog:
    """The tool cache: single-flight refresh, debounce, retired names, idempotent hints."""

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_concurrent_refreshes_share_one_fetch(self, anyio_backend: str) -> None:
        """Ten callers refreshing at once cost one tools/list."""
        catalog = ToolCatalog()
        fetches = 0

        async def fetch() -> list[Tool]:
            nonlocal fetches
            fetches += 1
            await anyio.sleep(0.05)
            return [Tool(name="a", input_schema={"type": "object"})]

        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(catalog.refresh, fetch)
        assert fetches == 1 and catalog.names == ["a"]

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_retired_names_and_hints(self, anyio_backend: str) -> None:
        """A name that disappears is remembered as retired; idempotentHint is read from annotations."""
        catalog = ToolCatalog(debounce=0)
        hinted = Tool(name="put", input_schema={"type": "object"}, annotations=ToolAnnotations(idempotent_hint=True))

        async def first() -> list[Any]:
            return [Tool(name="get_doc", input_schema={"type": "object"}), hinted]

        async def second() -> list[Any]:
            return [hinted]

        await catalog.refresh(first)
        catalog.mark_stale()
        await catalog.refresh_if_stale(second)
        assert catalog.names == ["put"] and "get_doc" in catalog.retired
        assert catalog.is_safe_to_repeat("put", keyed=False) and not catalog.is_safe_to_repeat("get_doc", keyed=True)

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_honoured_key_declaration_makes_a_tool_safe_to_repeat(self, anyio_backend: str) -> None:
        """errscope's _meta declaration counts for keyed calls; a truthy non-boolean or a false hint does not."""
        catalog = ToolCatalog()
        schema = {"type": "object"}

        async def fetch() -> list[Any]:
            return [
                Tool(name="keyed", input_schema=schema, _meta={META_IDEMPOTENCY_KEY_HONOURED: True}),
                Tool(name="stringly", input_schema=schema, _meta={META_IDEMPOTENCY_KEY_HONOURED: "yes"}),
                Tool(name="unhinted", input_schema=schema, annotations=ToolAnnotations(idempotent_hint=False)),
            ]

        await catalog.refresh(fetch)
        names = ("keyed", "stringly", "unhinted", "absent")
        assert [catalog.is_safe_to_repeat(n, keyed=True) for n in names] == [True, False, False, False]
        assert not catalog.is_safe_to_repeat("keyed", keyed=False)  # a declaration about keys needs a key

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_annotation_combinations(self, anyio_backend: str) -> None:
        """MCP ToolAnnotations: read-only or idempotent is safe to repeat, destructive or not; nothing else is."""
        hints = {
            "read_only": ToolAnnotations(read_only_hint=True),
            "read_only_not_idempotent": ToolAnnotations(read_only_hint=True, idempotent_hint=False),
            "idempotent_destructive": ToolAnnotations(destructive_hint=True, idempotent_hint=True),
            "destructive": ToolAnnotations(destructive_hint=True),
            "writes_not_idempotent": ToolAnnotations(read_only_hint=False, idempotent_hint=False),
            "no_hints": ToolAnnotations(),
        }
        catalog = ToolCatalog()

        async def fetch() -> list[Tool]:
            return [Tool(name=n, input_schema={"type": "object"}, annotations=a) for n, a in hints.items()]

        await catalog.refresh(fetch)
        safe = {name: catalog.is_safe_to_repeat(name, keyed=False) for name in hints}
        assert safe == {
            "read_only": True,
            "read_only_not_idempotent": True,
            "idempotent_destructive": True,
            "destructive": False,
            "writes_not_idempotent": False,
            "no_hints": False,
        }

    @pytest.mark.anyio
    @pytest.mark.parametrize("anyio_backend", ["asyncio"])
    async def test_unknown_tool_refreshes_back_off(self, anyio_backend: str) -> None:
        """Re-lists after unknown-tool errors wait 1, 2, 4 s while nothing changes; a change resets the wait."""
        now = [0.0]
        catalog = ToolCatalog(clock=lambda: now[0])
        listing = [[Tool(name="a", input_schema={"type": "object"})]]
        fetches = 0

        async def fetch() -> list[Tool]:
            nonlocal fetches
            fetches += 1
            return listing[0]

        ran = []
        for t in (0.0, 0.5, 1.0, 2.0, 3.0, 7.0):
            now[0] = t
            ran.append(await catalog.refresh_after_unknown(fetch))
        assert ran == [True, False, True, False, True, True] and fetches == 4
        listing[0] = [*listing[0], Tool(name="b", input_schema={"type": "object"})]
        now[0] = 16.0
        assert await catalog.refresh_after_unknown(fetch)
        now[0] = 17.0
        assert await catalog.refresh_after_unknown(fetch)  # the list changed: back to the first wait


def test_an_unknown_tool_message_about_another_tool_is_the_tool_failing() -> None:
    """Only a message naming the called tool (or none) is a stale name; one naming another is the tool's failure."""
    from errscope.client._invalid_params import names_this_tool_unknown

    assert names_this_tool_unknown("Tool get-sum not found", "get-sum")
    assert names_this_tool_unknown("Unknown tool", "get-sum")
    assert not names_this_tool_unknown("Tool wrench not found in inventory", "find_part")
    assert not names_this_tool_unknown("order 17 not found", "get_order")


class TestWireTapLateAnswers:
    """Which attempts the wire tap remembers for a late answer, driven with the SDK's own frame types."""

    @staticmethod
    def _send(tap: WireTap, request_id: int) -> tuple[WireAttempt, list[int]]:
        attempt = WireAttempt()
        late: list[int] = []
        attempt.on_late = lambda: late.append(request_id)
        token = CURRENT_ATTEMPT.set(attempt)
        try:
            request = JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params={"name": "echo"})
            tap.on_send(SessionMessage(message=request))
        finally:
            CURRENT_ATTEMPT.reset(token)
        return attempt, late

    @staticmethod
    def _answer(tap: WireTap, request_id: int) -> None:
        tap.on_receive(SessionMessage(message=JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"content": []})))

    def test_only_an_unanswered_attempt_is_remembered_and_its_late_answer_is_recorded(self) -> None:
        """An answered attempt leaves no entry (a second answer to it is stray); one that ended without
        its answer is remembered, and its answer, when it comes, is late: counted once, never stray."""
        tap = WireTap()
        answered, answered_late = self._send(tap, 1)
        self._answer(tap, 1)
        tap.forget(answered)
        assert answered.response_frames == 1 and len(tap.recent) == 0 and len(tap.outstanding) == 0

        timed_out, timed_out_late = self._send(tap, 2)
        tap.forget(timed_out)  # ended without its answer (a timer fired)
        assert 2 in tap.recent and len(tap.outstanding) == 0
        self._answer(tap, 2)
        assert timed_out.late_frames == 1 and timed_out_late == [2] and tap.stray_responses == 0

        self._answer(tap, 1)  # a duplicate answer to the answered attempt: nobody asked for it
        assert tap.stray_responses == 1 and answered.late_frames == 0 and answered_late == []


def test_an_sdk_wrapper_sentence_is_not_repeated_to_the_model() -> None:
    """MCPServer answers a crashed tool with "Error executing tool x": "x failed: Error executing tool x." says
    nothing twice; a text with a fact in it is kept."""
    from mcp_types import CallToolResult, TextContent

    from errscope.client import _shaping as shape

    def head(text: str) -> str:
        raw = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        shaped = shape.from_result("db_query", raw, {}, max_text=1000)
        assert shaped is not None
        return shaped.text.split(" Don't")[0]

    assert head("Error executing tool db_query") == "db_query failed."
    assert head("Error executing tool db_query: deadlock detected").startswith(
        "db_query failed: Error executing tool db_query: deadlock detected.")  # then the class's advice


def test_a_frame_nested_too_deep_to_read_is_garbage_not_a_crash() -> None:
    """json's RecursionError is no ValueError: a hostile server's deep frame must not escape the SDK's parser."""
    from errscope.client._wire import stand_in_for_broken_response

    assert stand_in_for_broken_response("[" * 100_000) is None
    assert stand_in_for_broken_response(b'{"id": 1, "result": ' + b"[" * 100_000) is None


@pytest.mark.parametrize("padding", [
    " " * 40_000,  # a column-aligned table's padding, a blank-padded buffer
    "\n" * 40_000,
    "a." * 20_000,  # a dotted run (a field path's look-alike, a scheme's)
    "a[0]." * 8_000,
    "/a" * 20_000,  # a JSON pointer's look-alike
    "Error: " * 6_000,
    "Aa" + "B" * 40_000 + "(",  # a capital run before "(": an error-code reader's backtracking was exponential
    ":" + "a_b" * 13_000,  # a snake-case run after a colon, where a code may stand
    "SQLSTATE " * 4_000,
])
def test_foreign_error_readers_are_linear_on_long_runs(padding: str) -> None:
    """A server's error text is read with Python's re (not RE2): a pattern entered at every character of a
    long run and scanning to its end was quadratic (40,000 spaces: minutes of a blocked event loop). Each
    reader now takes well under a second for 40 KB; the bound is ~100x what it takes, and far below the
    quadratic time."""
    from errscope.client._invalid_params import invalid_params_note, is_argument_rejection
    from errscope._foreign_text import classify_text, safe_excerpt

    text = "Invalid arguments: " + padding + " amount must be a number"
    started = time.perf_counter()
    safe_excerpt(text)
    classify_text(text)
    is_argument_rejection(text, {"amount"})
    note = invalid_params_note("refund", text, {"amount": "40"})
    assert time.perf_counter() - started < 5.0
    assert "`amount` must be a number" in note


def test_a_json_issue_list_nested_too_deep_is_no_issue_list() -> None:
    from errscope.client._invalid_params import parse_argument_problems

    assert parse_argument_problems('Invalid arguments: [{"path": ' + "[" * 50_000) == []


@pytest.mark.parametrize(("frame", "expected", "dropped"), [
    ({"id": 1, "error": {"code": -32602.0, "message": "m"}}, {"id": 1, "error": {"code": -32602, "message": "m"}}, False),
    ({"id": 1, "error": {"code": " -32602", "message": "m"}}, {"id": 1, "error": {"code": -32602, "message": "m"}}, False),
    ({"id": 1, "error": {"code": -32602.5, "message": "m"}}, {"id": 1, "error": {"code": -32602.5, "message": "m"}}, False),
    ({"id": 1, "error": {"code": "RATE_LIMITED"}}, {"id": 1, "error": {"code": "RATE_LIMITED"}}, False),
    ({"id": 1, "error": {"code": True}}, {"id": 1, "error": {"code": True}}, False),
    ({"id": 1, "result": {"isError": "TRUE"}}, {"id": 1, "result": {"isError": True}}, False),
    ({"id": 1, "result": {"isError": "false"}}, {"id": 1, "result": {"isError": False}}, False),
    ({"id": 1, "result": {"isError": "yes"}}, {"id": 1, "result": {"isError": "yes"}}, False),
    ({"id": 1, "result": {"content": []}, "error": None}, {"id": 1, "result": {"content": []}}, False),
    ({"id": 1, "result": None, "error": {"code": -1}}, {"id": 1, "error": {"code": -1}}, False),
    ({"id": 1, "result": {"content": []}, "error": {"code": -1}}, {"id": 1, "error": {"code": -1}}, True),
    ({"id": 1, "result": None}, {"id": 1, "result": None}, False),  # a null result alone is the peer's answer
])
def test_strict_response_reads_what_a_lax_reader_reads(frame: dict[str, Any], expected: dict[str, Any], dropped: bool) -> None:
    """J159, J160, J173-J175: the JSON types a strict host requires, from what a lax reader accepts; nothing else changed."""
    from errscope.client._answer import strict_response

    assert strict_response(frame) == (expected, dropped)


def test_strict_response_returns_an_unchanged_answer_itself() -> None:
    """The proxy writes an answer it did not change byte for byte (identity says "unchanged"): a 330 KB non-ASCII
    result re-encoded with escapes outgrew the SDK's 1 MiB event limit."""
    from errscope.client._answer import strict_response

    frame = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ü" * 10}], "isError": False}}
    assert strict_response(frame)[0] is frame


@pytest.mark.parametrize("server", ["127.0.0.1:8000/mcp", "ftp://127.0.0.1/mcp", "http:///mcp", "",
                                    "admin:hunter2pass@db.internal:8000/mcp"])
def test_a_server_url_no_connection_can_reach_is_refused_where_it_is_written(server: str) -> None:
    """A URL without http(s) or a host raises ``ValueError`` naming the form wanted, never the string: it was accepted and each
    call told the model "Tool server ://127.0.0.1:8000/mcp is unavailable", the host's code never told why."""
    with pytest.raises(ValueError, match=r"http://127\.0\.0\.1:8000/mcp") as refused:
        ToolClient(server)
    assert "hunter2pass" not in str(refused.value)


def test_a_server_of_no_known_kind_is_a_type_error() -> None:
    """Anything but a URL, ``StdioServerParameters`` or a transport factory (a ``Path`` to a server script, say) raises
    ``TypeError`` at construction rather than failing each call."""
    with pytest.raises(TypeError, match="StdioServerParameters"):
        ToolClient(Path("server.py"))  # type: ignore[arg-type]
