"""Adversarial inputs against the server-side guarantees, in every server style and both eras.

Each test names the guarantee it attacks. Tools here are built for the attack (hostile ``__str__``,
non-finite retry hints, interleaving concurrent calls) and served by :func:`build`, which mirrors
``tests.servers.catalogue`` for an arbitrary tool list.
"""

from __future__ import annotations

import json
import random
import re
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import anyio
import pytest
from fastmcp import Context
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ListToolsResult, TextContent
from opentelemetry.trace import StatusCode
from pydantic import Field

import errscope
from errscope._refs import ERROR_REF_PATTERN
from errscope.testing import CapturedTelemetry
from tests.server.conftest import ERAS, STYLES, Served

pytestmark = pytest.mark.anyio


# -- hostile tools ---------------------------------------------------------------------------------


class StrRaises(Exception):
    """An exception whose ``__str__`` itself fails (a buggy ``__str__`` in a driver's error class)."""

    def __str__(self) -> str:
        raise ValueError("__str__ exploded with sk_live_FAKEFAKEFAKEFAKE1234")


class StrNotStr(Exception):
    """An exception whose ``__str__`` returns a non-str (``str()`` then raises TypeError)."""

    def __str__(self) -> str:
        return 42  # type: ignore[return-value]


class Fatal(BaseException):
    """A BaseException that is neither cancellation nor interpreter exit."""


async def str_raises() -> str:
    """Raise an exception whose __str__ raises."""
    raise StrRaises("FAKE-SECRET-IN-ARGS")


async def str_not_str() -> str:
    """Raise an exception whose __str__ returns an int."""
    raise StrNotStr("FAKE-SECRET-IN-ARGS")


async def rate_limited(hint: str) -> str:
    """Raise RateLimited with a retry_after built from ``hint`` (a float literal)."""
    raise errscope.RateLimited("slow down", retry_after=float(hint))


async def base_exception() -> str:
    """Raise a BaseException subclass."""
    raise Fatal("password=FAKE-BASE-EXC")


async def interleave(tag: str, mode: str) -> str:
    """Yield to other calls between recording an upstream and failing or succeeding as ``mode`` says."""
    for _ in range(random.randint(1, 4)):
        await anyio.sleep(random.random() / 200)
    errscope.record_upstream("http", "404" if mode == "not_found" else "429", f"{tag}.example:443")
    await anyio.sleep(random.random() / 200)
    if mode == "not_found":
        raise errscope.NotFound(f"no {tag}")
    if mode == "rate_limited":
        raise errscope.RateLimited(f"slow {tag}", retry_after=int(tag.split("-")[1]) + 1)
    return f"ok {tag}"


TOOLS: list[Callable[..., Any]] = [str_raises, str_not_str, rate_limited, base_exception, interleave]


def build(style: str, tools: list[Callable[..., Any]] = TOOLS, name: str = "adversarial") -> Any:
    """Serve ``tools`` in ``style`` (low-level handlers dispatch by name, like the catalogue's)."""
    if style == "fastmcp":
        from fastmcp import FastMCP

        app = FastMCP(name)
        for tool in tools:
            app.tool(tool)
        return app
    from mcp.server.mcpserver import MCPServer

    reference = MCPServer(name)
    for tool in tools:
        reference.add_tool(tool)
    if style == "mcpserver":
        return reference
    from mcp.server.lowlevel.server import Server

    functions = {tool.__name__: tool for tool in tools}

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[t.model_copy(update={"output_schema": None}) for t in await reference.list_tools()])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        result = await functions[params.name](**dict(params.arguments or {}))
        if isinstance(result, CallToolResult):
            return result
        return CallToolResult(content=[TextContent(type="text", text=str(result))])

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture
async def adv(style: str, era: str, telemetry: CapturedTelemetry, request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    options = getattr(request, "param", {}) or {}
    server = build(style)
    errscope.instrument(server, **telemetry.providers, **options)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:  # type: ignore[arg-type]
        yield Served(server, telemetry, client)


def text_of(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if hasattr(block, "text"))


def tool_spans(served: Served) -> list[Any]:
    return [s for s in served.telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]


# -- exceptions that fight back ----------------------------------------------------------------------


class TestHostileExceptions:
    @pytest.mark.parametrize("tool", ["str_raises", "str_not_str"])
    async def test_unprintable_exception_is_an_ordinary_failure(self, adv: Served, tool: str) -> None:
        """An exception whose str() fails is still one isError result, one span, one log record.

        Before: on the low-level server the failure log raised from inside the middleware's
        ``finally``, so no span was exported and the SDK answered ``code 0`` with the text of the
        exception that ``__str__`` raised.
        """
        result = await adv.call(tool)
        assert isinstance(result, CallToolResult) and result.is_error, result
        text = text_of(result)
        assert text.startswith(f"{tool} failed: an unexpected error occurred.") and ERROR_REF_PATTERN.search(text)
        (span,) = tool_spans(adv)
        assert span.attributes["errscope.failure_class"] == "unknown"
        assert span.attributes["errscope.error_ref"] == result.meta["io.errscope/error_ref"]
        assert span.status.status_code is StatusCode.ERROR
        (record,) = adv.telemetry.log_records
        assert getattr(record, "errscope.error_ref") == result.meta["io.errscope/error_ref"]
        assert "sk_live_FAKE" not in json.dumps(result.model_dump(mode="json"))


class TestRetryHints:
    @pytest.mark.parametrize("hint", ["nan", "inf", "-inf", "-1"])
    async def test_meaningless_retry_after_is_dropped(self, adv: Served, hint: str) -> None:
        """RateLimited(retry_after=NaN/±inf/negative) is still an isError rate_limited result.

        Before: NaN and inf made the model text itself raise (round() of a non-finite float), so the
        low-level and FastMCP servers answered -32603 on the protocol channel and MCPServer sent
        ``cannot convert float NaN to integer`` to the model without a ref; -1 went out as
        ``retry_after: -1.0`` in ``_meta`` and on the span.
        """
        result = await adv.call("rate_limited", {"hint": hint})
        assert isinstance(result, CallToolResult) and result.is_error, result
        assert result.meta["io.errscope/failure_class"] == "rate_limited"
        assert "io.errscope/retry_after" not in result.meta
        assert text_of(result).startswith("rate_limited failed: rate limited by a backing service. Wait before calling again. Ref ERR-")
        (span,) = tool_spans(adv)
        assert "errscope.retry_after" not in span.attributes
        assert span.attributes["errscope.failure_class"] == "rate_limited"

    async def test_huge_retry_after_is_kept_finite(self, adv: Served) -> None:
        """A finite but absurd hint (1e12 s) is passed on as said: it is the upstream's word, and finite."""
        result = await adv.call("rate_limited", {"hint": "1e12"})
        assert isinstance(result, CallToolResult) and result.is_error
        assert result.meta["io.errscope/retry_after"] == 1e12
        assert "Wait about 1000000000000 s" in text_of(result)


def test_retry_after_header_with_400_digits() -> None:
    """An upstream's Retry-After of 400 digits parses to inf; it must not reach the model text as such."""
    from errscope._classify import Classification
    from errscope._http import parse_retry_after
    from errscope._messages import model_message
    from errscope._vocabulary import FailureClass

    hint = parse_retry_after("9" * 400)
    text = model_message("t", Classification(FailureClass.RATE_LIMITED, retry_after=hint), "ERR-00000000")
    assert "Wait" in text and Classification(FailureClass.RATE_LIMITED, retry_after=hint).retry_after is None


class TestConcurrentCalls:
    @pytest.mark.parametrize("adv", [{"capture_content": True}], indirect=True)
    async def test_three_hundred_calls_keep_their_own_context(self, adv: Served) -> None:
        """300 interleaved calls on one connection: each span carries its own ref, class, upstream.

        Every call records an upstream named after its tag, yields, then fails or succeeds; a
        ref, class or upstream from another call on a span would show as a mismatch here.
        """
        modes = ["not_found", "rate_limited", "ok"]
        calls = [(f"t-{i}", modes[i % 3]) for i in range(300)]
        results: dict[str, Any] = {}

        async def one(tag: str, mode: str) -> None:
            results[tag] = await adv.call("interleave", {"tag": tag, "mode": mode})

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for tag, mode in calls:
                    group.start_soon(one, tag, mode)
        spans = tool_spans(adv)
        assert len(spans) == 300
        by_tag = {json.loads(s.attributes["gen_ai.tool.call.arguments"])["tag"]: s for s in spans}
        refs = set()
        for tag, mode in calls:
            result, span = results[tag], by_tag[tag]
            attributes = span.attributes
            assert attributes["errscope.upstream.address"] == f"{tag}.example:443", (tag, dict(attributes))
            if mode == "ok":
                assert not result.is_error and text_of(result) == f"ok {tag}"
                assert "errscope.error_ref" not in attributes and attributes["errscope.outcome"] == "ok"
                continue
            ref = result.meta["io.errscope/error_ref"]
            refs.add(ref)
            assert attributes["errscope.error_ref"] == ref and ref in text_of(result)
            assert attributes["errscope.failure_class"] == mode == result.meta["io.errscope/failure_class"]
            if mode == "rate_limited":
                expected = int(tag.split("-")[1]) + 1
                assert attributes["errscope.retry_after"] == expected == result.meta["io.errscope/retry_after"]
        assert len(refs) == 200
        records = {getattr(r, "errscope.error_ref"): r for r in adv.telemetry.log_records}
        assert set(records) == refs
        for ref in refs:
            (span,) = [s for s in spans if s.attributes.get("errscope.error_ref") == ref]
            assert getattr(records[ref], "errscope.upstream.address") == span.attributes["errscope.upstream.address"]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("style", STYLES)
async def test_base_exception_is_the_calls_failure(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """A BaseException from a tool (not cancellation, not ``KeyboardInterrupt``) is that call's failure.

    A timeout library's ``BaseException`` (gevent's ``Timeout``) passes every ``except Exception``; left to
    propagate, the SDK lets it take the connection down (tests/heldout_cases.md J181). The call answers
    ``isError`` with a ref, the span and the log record say it failed, and the connection keeps serving.
    Before: outcome ``ok``, status unset, no failure class, no log record; then the connection died.
    """
    server = build(style)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    with anyio.fail_after(10):
        async with Client(target, mode=era) as client:  # type: ignore[arg-type]
            result = await client.call_tool("base_exception", {})
            after = await client.call_tool("interleave", {"tag": "after", "mode": "ok"})
    assert result.is_error and re.search(r"Ref ERR-[0-9A-Z]{8}", text_of(result)), result
    assert not after.is_error and text_of(after) == "ok after", after
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "base_exception"]
    assert span.attributes["errscope.outcome"] == "error"
    assert span.attributes["errscope.failure_class"] == "unknown"
    assert span.attributes["error.type"] == "tool_error"  # the execution channel, as every tool failure
    assert span.status.status_code is StatusCode.ERROR and span.status.description == "unknown"
    (record,) = telemetry.log_records
    assert getattr(record, "exception.type") == "tests.server.test_adversarial.Fatal"
    assert "FAKE-BASE-EXC" not in json.dumps({k: str(v) for k, v in record.__dict__.items()})


async def raw_request(served: Served, era: str, method: str, params: dict[str, Any]) -> dict[str, Any] | MCPError:
    """Send a request the typed client would refuse to build (malformed params), bypassing its checks."""
    from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

    if era != "legacy":
        envelope = {PROTOCOL_VERSION_META_KEY: era, CLIENT_CAPABILITIES_META_KEY: {}, CLIENT_INFO_META_KEY: {"name": "adv", "version": "1"}}
        params = {**params, "_meta": {**envelope, **params.get("_meta", {})}}
    try:
        return await served.client.session._dispatcher.send_raw_request(method, params)
    except MCPError as exc:
        return exc


class TestCardinality:
    async def test_malformed_call_of_an_unlisted_name_is_not_a_label(self, adv: Served, era: str) -> None:
        """tools/call with a made-up name and malformed params: no span name or metric label from the name.

        Before: ToolCall.known defaulted to True and only the seam cleared it, so a request the SDK
        rejected before the seam ran (-32602 from params validation) named the span
        ``tools/call <client's name>`` and put that name into the duration metric's labels.
        """
        for i in range(3):
            answer = await raw_request(adv, era, "tools/call", {"name": f"made-up-{i}", "arguments": "not an object"})
            assert isinstance(answer, MCPError) and answer.code == -32602
        spans = tool_spans(adv)
        assert [s.name for s in spans] == ["tools/call"] * 3
        assert spans[0].attributes["errscope.failure_class"] == "invalid_input"
        labels = {
            p.attributes.get("gen_ai.tool.name")
            for p in adv.telemetry.histogram_points("mcp.server.operation.duration")
            if p.attributes["mcp.method.name"] == "tools/call"
        }
        assert labels == {"_OTHER"}


def paged_lowlevel(*, page_size: int, list_delay: float = 0.0) -> Any:
    """A low-level server whose tools/list pages ``page_size`` tools at a time, after ``list_delay`` s."""
    from mcp.server.lowlevel.server import Server

    reference = build("mcpserver")
    plain = build("lowlevel")
    call_tool = plain.get_request_handler("tools/call").handler

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        await anyio.sleep(list_delay)  # a registry read from a database or a remote catalogue
        tools = [t.model_copy(update={"output_schema": None}) for t in await reference.list_tools()]
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


class TestLowLevelRegistry:
    @pytest.mark.parametrize("era", ERAS)
    async def test_concurrent_first_calls_wait_for_the_registry(self, era: str, telemetry: CapturedTelemetry) -> None:
        """Calls that arrive while the first registry read is in flight are checked against it too.

        Before: the first miss stamped ``refreshed_at`` and awaited tools/list; concurrent misses saw
        a fresh stamp and no registry, and served the call unchecked, so an unknown tool came back
        as an isError ``unknown`` result (channels crossed) and bad arguments reached the tool.
        """
        server = paged_lowlevel(page_size=100, list_delay=0.05)
        errscope.instrument(server, **telemetry.providers)
        async with Client(server, mode=era) as client:  # type: ignore[arg-type]
            served = Served(server, telemetry, client)
            answers: list[Any] = [None] * 10

            async def one(i: int) -> None:
                answers[i] = await served.call("no_such_tool" if i % 2 else "rate_limited", {} if i % 2 else {"hint": 5})

            async with anyio.create_task_group() as group:
                for i in range(10):
                    group.start_soon(one, i)
        for i, answer in enumerate(answers):
            if i % 2:
                assert isinstance(answer, MCPError) and answer.code == -32602, answer
            else:
                assert isinstance(answer, CallToolResult) and answer.is_error
                assert answer.meta["io.errscope/failure_class"] == "invalid_input", text_of(answer)

    @pytest.mark.parametrize("era", ERAS)
    async def test_tools_on_later_pages_are_known(self, era: str, telemetry: CapturedTelemetry) -> None:
        """A paginated tools/list (MCP spec, Pagination) is read to its end.

        Before: only the first page was read, so every tool on page two or later was answered
        ``Unknown tool`` (-32602) without running.
        """
        server = paged_lowlevel(page_size=2)
        errscope.instrument(server, **telemetry.providers)
        async with Client(server, mode=era) as client:  # type: ignore[arg-type]
            served = Served(server, telemetry, client)
            last = await served.call("interleave", {"tag": "t-1", "mode": "ok"})  # fifth tool: page three
            unknown = await served.call("no_such_tool", {})
        assert isinstance(last, CallToolResult) and text_of(last) == "ok t-1"
        assert isinstance(unknown, MCPError) and unknown.code == -32602


class TestInstrumentLifecycle:
    def test_uninstrumenting_one_fastmcp_app_keeps_the_other_instrumented(
        self, telemetry: CapturedTelemetry, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """FastMCP's own spans are switched off process-wide; removing errscope from one app must not
        switch them back on under another app errscope still serves (they would double every span and
        put ``str(e)`` into status). The mode from before errscope returns when the last app goes.

        Before: uninstrument_fastmcp set ``telemetry_mode = "native"`` unconditionally.
        """
        import fastmcp

        from errscope.server import _fastmcp

        # a process errscope never touched (earlier tests leave apps instrumented, some not yet collected)
        monkeypatch.setattr(_fastmcp, "_instrumented", weakref.WeakSet())
        monkeypatch.setattr(_fastmcp, "_mode_before", None)
        monkeypatch.setattr(fastmcp.settings, "telemetry_mode", "native")
        before = fastmcp.settings.telemetry_mode
        first, second = build("fastmcp", name="one"), build("fastmcp", name="two")
        errscope.instrument(first, **telemetry.providers)
        errscope.instrument(second, **telemetry.providers)
        errscope.instrument(second, **telemetry.providers)  # twice: still one app to remove
        errscope.uninstrument(first)
        assert fastmcp.settings.telemetry_mode == "off"
        errscope.uninstrument(second)
        assert fastmcp.settings.telemetry_mode == before

    @pytest.mark.parametrize("style", STYLES)
    async def test_instrument_twice_then_uninstrument(self, style: str, telemetry: CapturedTelemetry) -> None:
        """instrument() twice leaves one middleware and one seam; uninstrument() removes them all."""
        server = build(style)
        errscope.instrument(server, **telemetry.providers)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target) as client:  # type: ignore[arg-type]
            result = await client.call_tool("str_raises", {})
        assert result.is_error and text_of(result).count("Ref ERR-") == 1
        assert len(tool_spans(Served(server, telemetry, client))) == 1
        errscope.uninstrument(server)
        async with Client(target) as client:  # type: ignore[arg-type]
            bare = await Served(server, telemetry, client).call("rate_limited", {"hint": "5"})
        assert "Ref ERR-" not in (text_of(bare) if isinstance(bare, CallToolResult) else bare.message)
        assert len([s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]) == 1


def exported_spans(out: Any) -> list[dict[str, Any]]:
    return [
        span
        for line in (out / "traces.jsonl").read_text().splitlines()
        for resource in json.loads(line)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


class TestWireIds:
    @pytest.mark.parametrize("style", STYLES)
    def test_hostile_request_id_is_bounded_and_scrubbed_on_the_span(self, style: str, tmp_path: Any) -> None:
        """A 200 KB string id that starts like a GitHub token: answered under the same id, but the
        span's ``jsonrpc.request.id`` is scrubbed and bounded like any other client-supplied text.

        Before: the id went onto the span verbatim (200,041 characters, token included).
        """
        from tests.servers.wire import LEGACY, StdioPeer

        hostile = "ghp_" + "A" * 36 + "-" + "x" * 200_000
        peer = StdioPeer(style, LEGACY, env={"ERRSCOPE_OUT": str(tmp_path)})
        try:
            answer = peer.request("tools/call", {"name": "read_registry_key", "arguments": {"path": "x"}}, request_id=hostile)
            assert answer["id"] == hostile and answer["result"]["isError"] is True
            plain = peer.request("tools/call", {"name": "list_orders", "arguments": {}}, request_id=10**40)
            assert plain["id"] == 10**40 and plain["result"]["isError"] is False
        finally:
            peer.close()
        ids = {
            s["name"]: a["value"]["stringValue"]
            for s in exported_spans(tmp_path)
            for a in s["attributes"]
            if a["key"] == "jsonrpc.request.id"
        }
        assert ids["tools/call list_orders"] == str(10**40)
        hostile_id = ids["tools/call read_registry_key"]
        assert len(hostile_id) <= 128 and "ghp_AAAA" not in hostile_id
        assert "ghp_AAAA" not in (tmp_path / "traces.jsonl").read_text()


async def own_error_with_secrets() -> CallToolResult:
    """Return an isError result with secrets in every part a client receives."""
    from mcp_types import EmbeddedResource, TextResourceContents

    return CallToolResult(
        content=[
            TextContent(type="text", text="denied"),
            EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///cfg", text="dsn postgres://svc:FAKE-EMB-PW@db/x")),
        ],
        structured_content={"request_id": "password=FAKE-SAFEKEY", "nested": {"level": "api_key=FAKE-LEVEL"}},
        is_error=True,
        _meta={"debug": "postgres://svc:FAKE-META-PW@db/x", "io.errscope/failure_class": "permission_denied"},
    )


async def protocol_error_with_secrets() -> str:
    """Raise an MCPError whose data holds secrets, one under a key errscope trusts in its own records."""
    raise MCPError(-32099, "backend said password=FAKE-MSG", data={"request_id": "password=FAKE-DATA", "token": "api_key=FAKE-TOK"})


class TestToolPayloads:
    @pytest.mark.parametrize("era", ERAS)
    @pytest.mark.parametrize("style", STYLES)
    async def test_own_error_result_is_scrubbed_everywhere(self, style: str, era: str, telemetry: CapturedTelemetry) -> None:
        """A tool's own isError result: text, embedded resource text, structured content (whatever
        the keys are called) and ``_meta`` are scrubbed; the declared class is honoured.

        Before: the embedded resource and ``_meta`` passed unscrubbed, and structured content kept
        values under keys such as ``request_id``/``level`` (scrub_value's SAFE_KEYS, meant for
        errscope's own telemetry fields) verbatim.
        """
        server = build(style, [own_error_with_secrets])
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode=era) as client:  # type: ignore[arg-type]
            result = await client.call_tool("own_error_with_secrets", {})
        wire = json.dumps(result.model_dump(mode="json", by_alias=True))
        for secret in ("FAKE-EMB-PW", "FAKE-SAFEKEY", "FAKE-LEVEL", "FAKE-META-PW"):
            assert secret not in wire, secret
        assert result.is_error and result.meta["io.errscope/failure_class"] == "permission_denied"
        assert "file:///cfg" in wire and "denied" in text_of(result)

    @pytest.mark.parametrize("era", ERAS)
    @pytest.mark.parametrize("style", ["lowlevel", "mcpserver"])
    async def test_mcp_error_data_is_scrubbed_whatever_the_keys(self, style: str, era: str, telemetry: CapturedTelemetry) -> None:
        """An MCPError a tool raises keeps its code (protocol channel); message and data are scrubbed.

        (FastMCP masks an MCPError raised under a tool into an isError result by design, so it is
        not on the protocol channel there.)
        """
        server = build(style, [protocol_error_with_secrets])
        errscope.instrument(server, **telemetry.providers)
        async with Client(server, mode=era) as client:  # type: ignore[arg-type]
            error = await Served(server, telemetry, client).call("protocol_error_with_secrets")
        assert isinstance(error, MCPError) and error.code == -32099
        wire = json.dumps(error.error.model_dump(mode="json"))
        for secret in ("FAKE-MSG", "FAKE-DATA", "FAKE-TOK"):
            assert secret not in wire, secret
        assert ERROR_REF_PATTERN.search(error.message) and error.error.data["io.errscope/channel"] == "protocol"


@pytest.mark.parametrize("era", ERAS)
async def test_mcp_error_outside_a_tool_is_scrubbed(era: str, telemetry: CapturedTelemetry) -> None:
    """An MCPError from a resource handler (outside the tool seam) keeps its code; message and data are scrubbed.

    Before: the middleware re-raised it as it was, so the peer got the handler's raw text.
    """
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("resources")

    @server.resource("res://cfg")
    def cfg() -> str:
        raise MCPError(-32099, "cannot read postgres://svc:FAKE-RES-PW@db/x", data={"dsn": "password=FAKE-RES-DATA"})

    errscope.instrument(server, **telemetry.providers)
    async with Client(server, mode=era) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError) as caught:
            await client.read_resource("res://cfg")
    assert caught.value.code == -32099
    wire = json.dumps(caught.value.error.model_dump(mode="json"))
    for secret in ("FAKE-RES-PW", "FAKE-RES-DATA"):
        assert secret not in wire, secret
    assert "db/x" in caught.value.message
    [record] = telemetry.log_records
    assert re.fullmatch(r"request failed: resources/read unknown ERR-[0-9A-Z]{8}", record.getMessage())  # not a tool call


def test_content_capture_never_raises() -> None:
    """Opt-in content capture is telemetry: a value it cannot render becomes a placeholder.

    Before: json.dumps raised RecursionError on deep nesting and str() fallbacks raised with the
    value's own __str__; on the result path that turned a successful call into -32603, on the
    arguments path (outside the middleware's try) into the SDK's code 0 with the error's text.
    """
    from errscope._telemetry import MAX_CONTENT, content_attribute

    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    for value in (deep, cyclic, {"a": StrRaises()}, StrNotStr(), {"huge": "y" * 1_000_000}):
        text = content_attribute(value)
        assert isinstance(text, str) and len(text) <= MAX_CONTENT


@pytest.mark.parametrize("era", ERAS)
async def test_failing_tools_list_serves_unchecked_but_unlabelled(era: str, telemetry: CapturedTelemetry) -> None:
    """When a low-level server's tools/list fails, calls are served unchecked (by design: a broken
    listing must not turn every call into "unknown tool"), but an unverified name is not a span
    name or a metric label value.

    Before: every client-chosen name became ``tools/call <name>`` and a label value.
    """
    from mcp.server.lowlevel.server import Server

    plain = build("lowlevel")

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        raise RuntimeError("catalogue database down")

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        if params.name != "interleave":
            raise ValueError(f"Unknown tool: {params.name}")
        return await plain.get_request_handler("tools/call").handler(ctx, params)

    server = Server("broken-list", on_list_tools=list_tools, on_call_tool=call_tool)
    errscope.instrument(server, **telemetry.providers)
    async with Client(server, mode=era) as client:  # type: ignore[arg-type]
        served = Served(server, telemetry, client)
        # raw requests: the SDK client itself lists tools after a call (output schema check)
        ok = await raw_request(served, era, "tools/call", {"name": "interleave", "arguments": {"tag": "t-1", "mode": "ok"}})
        for i in range(3):
            await raw_request(served, era, "tools/call", {"name": f"made-up-{i}", "arguments": {}})
    assert isinstance(ok, dict) and ok["content"][0]["text"] == "ok t-1"
    assert {s.name for s in tool_spans(served)} == {"tools/call"}
    labels = {
        p.attributes.get("gen_ai.tool.name")
        for p in telemetry.histogram_points("mcp.server.operation.duration")
        if p.attributes["mcp.method.name"] == "tools/call"
    }
    assert labels == {"_OTHER"}


class TestMalformedFrames:
    @pytest.mark.parametrize("style", STYLES)
    def test_invalid_request_with_a_readable_id_is_answered_under_that_id(self, style: str) -> None:
        """A request whose id can be read but whose shape is wrong (params a string, method a number)
        gets -32600 under its own id (JSON-RPC 2.0 §5: null only when the id cannot be detected).

        Before: it was answered with ``"id": null``, so a client waiting on id 6 waited forever.
        """
        from tests.servers.wire import LEGACY, StdioPeer

        peer = StdioPeer(style, LEGACY)
        try:
            peer.send_raw(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"x"}\n')
            answer = peer.expect(lambda m: "error" in m)
            assert answer["id"] == 6 and answer["error"]["code"] == -32600
            peer.send_raw(b'{"jsonrpc":"2.0","id":"req-7","method":5}\n')
            answer = peer.expect(lambda m: "error" in m)
            assert answer["id"] == "req-7" and answer["error"]["code"] == -32600
            peer.send_raw(b'{"jsonrpc":"2.0","id":true,"method":5}\n')  # not an id JSON-RPC allows
            answer = peer.expect(lambda m: "error" in m)
            assert answer["id"] is None and answer["error"]["code"] == -32600
            peer.send_raw(b"x" * 2_000_000 + b"\n")
            assert peer.expect(lambda m: "error" in m)["error"]["code"] == -32700
            assert tool_call_ok(peer)
        finally:
            peer.close()


def tool_call_ok(peer: Any) -> bool:
    answer = peer.request("tools/call", {"name": "get_order", "arguments": {"order_id": "A-1"}})
    return answer["result"]["isError"] is False


class TestEchoedNames:
    async def test_control_and_bidi_characters_are_not_echoed(self, adv: Served) -> None:
        """An unknown tool name with an ANSI escape, a NUL, a bidi override and a newline: the
        -32602 message and the span attribute carry one printable line.

        Before: only whitespace was normalised; ESC/NUL/U+202E reached the model text, the span and
        (through the log record) terminals that render them.
        """
        name = "get\x1b[31m\x00order\u202eevil\nnext"
        error = await adv.call(name, {})
        assert isinstance(error, MCPError) and error.code == -32602
        (span,) = tool_spans(adv)
        for text in (error.message, span.attributes["gen_ai.tool.name"]):
            assert text.replace(" ", "").isprintable() and "\n" not in text, repr(text)
            assert "order" in text and "evil" in text

    def test_public_message_is_one_printable_line(self) -> None:
        """An author's public_message is clipped to one printable line too."""
        from errscope._classify import Classification
        from errscope._messages import model_message
        from errscope._vocabulary import FailureClass

        text = model_message("t", Classification(FailureClass.NOT_FOUND, public_message="no\x1b[2J order\u202e"), "ERR-00000000")
        assert text.replace(" ", "").isprintable(), repr(text)


async def subscribe(email: Annotated[str, Field(pattern=r"^([a-z0-9]+)*@example\.com$")]) -> str:
    """Subscribe an address; the schema carries a pattern with a nested quantifier."""
    return f"subscribed {email}"


class TestSchemaValidationCost:
    @pytest.mark.parametrize("era", ERAS)
    @pytest.mark.parametrize("style", STYLES)
    async def test_nested_quantifier_pattern_is_not_a_denial_of_service(self, style: str, era: str, telemetry: CapturedTelemetry) -> None:
        """A schema ``pattern`` with a nested quantifier against 40 hostile characters is answered
        at once (invalid_input), and a matching value still passes.

        Before: jsonschema's ``pattern`` keyword ran Python's backtracking ``re`` on the client's
        string: 24 characters took about a second, 40 would take days, with the event loop (every
        other call) blocked. pydantic's own validation of the same pattern is linear (Rust regex).
        """
        server = build(style, [subscribe])
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode=era) as client:  # type: ignore[arg-type]
            served = Served(server, telemetry, client)
            with anyio.fail_after(5):
                bad = await served.call("subscribe", {"email": "a" * 40 + "!"})
            good = await served.call("subscribe", {"email": "jane@example.com"})
        assert isinstance(bad, CallToolResult) and bad.is_error
        assert bad.meta["io.errscope/failure_class"] == "invalid_input"
        assert isinstance(good, CallToolResult) and not good.is_error


def test_unique_items_of_objects_is_linear() -> None:
    """``uniqueItems`` over 8,000 small objects is checked in well under a second, with JSON
    Schema's equality (1 == 1.0, true != 1, key order irrelevant).

    Before: jsonschema compared unhashable items pairwise: 2,000 objects took ~6 s, 8,000 ~80 s,
    on the event loop.
    """
    import time

    from errscope._validation import ArgumentValidator

    validator = ArgumentValidator()
    schema = {"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True}}}
    started = time.perf_counter()
    assert validator.problems(schema, {"xs": [{"a": i, "b": [i]} for i in range(8000)]}) == ()
    assert time.perf_counter() - started < 1.0
    assert validator.problems(schema, {"xs": [{"a": 1, "b": 2}, {"b": 2, "a": 1.0}]})
    assert validator.problems(schema, {"xs": [[1, {"x": None}], [1.0, {"x": None}]]})
    assert validator.problems(schema, {"xs": [True, 1]}) == ()
    assert validator.problems(schema, {"xs": [{"a": True}, {"a": 1}]}) == ()


@pytest.mark.parametrize("era", ["legacy"])  # session-scoped visibility needs a session
async def test_fastmcp_unknown_answer_is_not_shared_across_sessions(era: str, telemetry: CapturedTelemetry) -> None:
    """FastMCP resolves a tool per session (session visibility, per-user auth). One session's
    "no such tool" must not become another session's answer.

    Before: ErrscopeToolMiddleware cached the lookup for 1 s by name alone, so after session B
    (tool hidden) asked, session A (tool enabled for it) got -32602 Unknown tool for a tool it can
    list and call.
    """
    from fastmcp import FastMCP

    app = FastMCP("visibility")

    @app.tool()
    async def unlock(ctx: Context) -> str:
        """Enable the hidden tool for this session."""
        await ctx.enable_components(names={"hidden"})
        return "unlocked"

    @app.tool()
    async def hidden() -> str:
        """Only for sessions that unlocked it."""
        return "found"

    app.disable(names={"hidden"})
    errscope.instrument(app, **telemetry.providers)
    async with Client(app._mcp_server, mode=era) as a, Client(app._mcp_server, mode=era) as b:  # type: ignore[arg-type]
        await a.call_tool("unlock", {})
        with pytest.raises(MCPError) as denied:
            await b.call_tool("hidden", {})
        assert denied.value.code == -32602
        result = await a.session.call_tool("hidden", {})
    assert not result.is_error and text_of(result) == "found"


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("outer_style", "inner_style"), [("lowlevel", "mcpserver"), ("mcpserver", "fastmcp"), ("fastmcp", "lowlevel")])
async def test_tool_calling_another_instrumented_server(outer_style: str, inner_style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """A tool that is itself a client of another instrumented server: two SERVER spans, the inner
    one a child of the outer, each with its own ref and upstream; nothing of the inner call lands
    on the outer span.
    """
    inner = build(inner_style, [interleave], name="inner")
    errscope.instrument(inner, **telemetry.providers)
    inner_target = inner._mcp_server if inner_style == "fastmcp" else inner

    async def relay(mode: str) -> str:
        """Call the inner server's interleave tool."""
        errscope.record_upstream("mcp", "X", "outer-upstream:1")
        async with Client(inner_target, mode=era) as nested:  # type: ignore[arg-type]
            answer = await nested.call_tool("interleave", {"tag": "t-7", "mode": mode})
        if answer.is_error:
            raise errscope.UpstreamUnavailable("inner tool failed")
        return text_of(answer)

    outer = build(outer_style, [relay], name="outer")
    errscope.instrument(outer, **telemetry.providers)
    async with Client(outer._mcp_server if outer_style == "fastmcp" else outer, mode=era) as client:  # type: ignore[arg-type]
        result = await client.call_tool("relay", {"mode": "not_found"})
    assert result.is_error and result.meta["io.errscope/failure_class"] == "upstream_unavailable"
    spans = {s.name: s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"}
    outer_span, inner_span = spans["tools/call relay"], spans["tools/call interleave"]
    assert inner_span.parent is not None and inner_span.parent.span_id == outer_span.context.span_id
    assert outer_span.attributes["errscope.error_ref"] == result.meta["io.errscope/error_ref"]
    assert inner_span.attributes["errscope.error_ref"] != outer_span.attributes["errscope.error_ref"]
    assert inner_span.attributes["errscope.failure_class"] == "not_found"
    assert outer_span.attributes["errscope.upstream.address"] == "outer-upstream:1"
    assert inner_span.attributes["errscope.upstream.address"] == "t-7.example:443"


def test_pattern_keys_are_matched_in_linear_time() -> None:
    """patternProperties / additionalProperties match the caller's keys with RE2 too (pydantic emits
    patternProperties for ``dict[Annotated[str, Field(pattern=...)], V]``), with unchanged results.
    """
    import time

    from errscope._validation import ArgumentValidator

    validator = ArgumentValidator()
    counts = {"type": "object", "patternProperties": {r"^([a-z0-9]+)*-x$": {"type": "integer"}}}
    closed = {**counts, "additionalProperties": False}
    schema = {"type": "object", "properties": {"counts": counts, "closed": closed}}
    started = time.perf_counter()
    assert validator.problems(schema, {"counts": {"a" * 40 + "!": 1}, "closed": {"ab-x": 2}}) == ()
    assert validator.problems(schema, {"closed": {"a" * 40 + "!": 1}})
    assert time.perf_counter() - started < 1.0
    (problem,) = validator.problems(schema, {"counts": {"ab-x": "two"}})
    assert problem.path == "counts.ab-x" and problem.expected == "an integer"
    # a key its pattern accepts is not named as "not accepted" next to one that is
    (problem,) = validator.problems(schema, {"closed": {"ab-x": 2, "other": 3}})
    assert problem.path == "closed.other" and problem.expected == "absent"


async def cause_cycle(kind: str) -> str:
    """Raise an exception whose __cause__ chain loops back on itself."""
    if kind == "failures":
        first, second = errscope.NotFound("a"), errscope.RateLimited("b", retry_after=3)
    else:
        first, second = ValueError("a"), TypeError("b")
    first.__cause__, second.__cause__ = second, first
    raise first


async def exception_group() -> str:
    """Raise an ExceptionGroup as a TaskGroup in a tool would."""
    raise ExceptionGroup("tasks failed", [errscope.PermissionDenied("x"), ValueError("y")])


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("style", STYLES)
async def test_cycles_and_groups_land_on_one_class(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """A __cause__ loop terminates on one class (the outermost rule decides); a group is classified
    by its first leaf. Both are ordinary isError results with one span each."""
    server = build(style, [cause_cycle, exception_group])
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:  # type: ignore[arg-type]
        served = Served(server, telemetry, client)
        with anyio.fail_after(10):
            failures = await served.call("cause_cycle", {"kind": "failures"})
            plain = await served.call("cause_cycle", {"kind": "plain"})
            group = await served.call("exception_group")
    classes = [r.meta["io.errscope/failure_class"] for r in (failures, plain, group)]  # type: ignore[union-attr]
    assert classes == ["not_found", "unknown", "permission_denied"]
    assert len(tool_spans(served)) == 3
