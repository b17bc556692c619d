"""``errscope._explain`` on small hand-built telemetry: which chains a query finds, and how they read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errscope._explain import MODEL_TEXT, ExplainError, QueryError, find_chains, render
from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_SERVER, Telemetry, load
from tests.test_otlp_json import TRACE, _kv, _span, _traces


def _log(ref: str, *, trace: str = "", body: str = "tool call failed", scope: str = "errscope", **extra: str) -> str:
    attributes = [_kv("errscope.error_ref", {"stringValue": ref})]
    attributes += [_kv(k, {"stringValue": v}) for k, v in extra.items()]
    record = {"timeUnixNano": "5", "severityText": "WARN", "body": {"stringValue": body}, "attributes": attributes}
    if trace:
        record["traceId"] = trace
    return json.dumps({"resourceLogs": [{"resource": {}, "scopeLogs": [{"scope": {"name": scope},
                                                                         "logRecords": [record]}]}]})


@pytest.fixture
def telemetry(tmp_path: Path) -> Telemetry:
    """Two sessions that both used request id 7: one failed upstream (404), one succeeded; plus a malformed frame."""
    failed = _span("b" * 16, "a" * 16, SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "7",
        "errscope.error_ref": "ERR-AAAAAAAA", "errscope.upstream.status": "404"})
    upstream = _span("c" * 16, "b" * 16, SPAN_KIND_CLIENT, "POST", **{"http.response.status_code": 404})
    client = _span("a" * 16, "", SPAN_KIND_CLIENT, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "7",
        "errscope.error_ref": "ERR-AAAAAAAA", "errscope.attempt": 1})
    other_trace = "0" * 31 + "1"
    ok = _span("d" * 16, "", SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "7"})
    ok["traceId"] = other_trace
    (tmp_path / "traces.json").write_text("\n".join([_traces("refunds", failed, upstream, ok), _traces("agent", client)]))
    (tmp_path / "logs.json").write_text("\n".join([
        _log("ERR-AAAAAAAA", trace=TRACE, **{"exception.type": "NotFound", "exception.message": "order not found"}),
        _log("ERR-AAAAAAAA", trace=TRACE, body="tool result shown to the model", scope="errscope.client",
             **{MODEL_TEXT: "refund_order failed."}),
        _log("ERR-BBBBBBBB", body="malformed frame answered", **{"rpc.response.status_code": "-32700"}),
    ]))
    return load(tmp_path)


def test_ref_gives_the_whole_chain(telemetry: Telemetry) -> None:
    """Model text, tool span with upstream status, upstream child, log record and client attempt."""
    [chain] = find_chains(telemetry, "err-aaaaaaaa")
    assert chain.tool is not None and chain.tool.span_id == "b" * 16
    assert [s.span_id for s in chain.upstream] == ["c" * 16]
    assert [s.span_id for s in chain.client] == ["a" * 16]
    assert [r.body for r in chain.logs] == ["tool call failed"]
    text = render(chain)
    assert text.startswith(f"ERR-AAAAAAAA  tool=refund_order  trace={TRACE}")
    assert "refund_order failed." in text and "status 404" in text and "exception.message=order not found" in text


def test_the_text_a_server_shaped_is_what_the_model_saw_and_stays_its_log_record(tmp_path: Path) -> None:
    """A server's (or ``errscope proxy``'s) failure record carries the text it shaped: section 1 shows it, marked as
    shaped by that service, when no host logged one; it is still the log record of section 4."""
    (tmp_path / "logs.json").write_text(_log("ERR-EEEEEEEE", trace=TRACE, **{
        MODEL_TEXT: "refund_order failed: the order was not found. Ref ERR-EEEEEEEE", "exception.type": "NotFound"}))
    [chain] = find_chains(load(tmp_path), "ERR-EEEEEEEE")
    assert [r.get(MODEL_TEXT) for r in chain.model] == ["refund_order failed: the order was not found. Ref ERR-EEEEEEEE"]
    assert [r.body for r in chain.logs] == ["tool call failed"]
    seen = render(chain).split("2. tool span")[0]
    assert "the order was not found" in seen and "shaped by " in seen and "not recorded" not in seen


def test_request_id_used_by_two_sessions_gives_both_chains(telemetry: Telemetry) -> None:
    """Request ids repeat across sessions: every SERVER span with that id is explained."""
    chains = find_chains(telemetry, "7")
    assert sorted(c.trace_id for c in chains) == sorted([TRACE, "0" * 31 + "1"])
    assert sorted(c.error_ref or "-" for c in chains) == ["-", "ERR-AAAAAAAA"]


def test_trace_id_of_a_success(telemetry: Telemetry) -> None:
    [chain] = find_chains(telemetry, "0" * 31 + "1")
    assert chain.error_ref is None and chain.tool is not None
    assert render(chain).startswith("(no error ref: the call succeeded or was not answered)")


def test_ref_only_in_a_log_record(telemetry: Telemetry) -> None:
    """A malformed frame has no span; its ref still finds the server's record."""
    [chain] = find_chains(telemetry, "ERR-BBBBBBBB")
    assert chain.tool is None and [r.body for r in chain.logs] == ["malformed frame answered"]
    assert "(none: the server never started a tool call" in render(chain)


@pytest.mark.parametrize(("query", "message"), [
    ("ERR-ZZZZZZZZ", "error ref ERR-ZZZZZZZZ not found (4 spans and 3 log records of agent, refunds, 1970-01-01 00:00:00"
                     " to 1970-01-01 00:00:00 UTC, searched)"),
    ("f" * 32, f"trace id {'f' * 32} not found"),
    ("8", "JSON-RPC request id 8 not found"),
    ("ERR-UUUUUUUU", "ERR-UUUUUUUU is no error ref: ERR- and 8 characters"),  # not read as a request id
    ("", "give an error ref"),
    # a sentence without its ref: not "JSON-RPC request id the bot said … not found"
    ("the bot said it could not find my order", "no error ref (ERR-XXXXXXXX), trace id or JSON-RPC request id in"
                                                " 'the bot said it could not find my order'; paste the whole message"),
])
def test_nothing_found(telemetry: Telemetry, query: str, message: str) -> None:
    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, query)
    assert str(caught.value).startswith(message)


def test_not_found_names_the_collectors_decision_wait(telemetry: Telemetry) -> None:
    """Read from a Collector's file exporter (``make stack``), a trace appears only after tail sampling's decision
    wait: the message says so, as it says exporters write in batches."""
    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, "8")
    assert "a Collector's tail sampling holds a trace for its decision wait, 10 s by default" in str(caught.value)


def test_a_ref_not_found_points_at_the_request_id(telemetry: Telemetry) -> None:
    """A ref a host made for its own timeout is not in a server's or a proxy's telemetry, which did record the call:
    the message says where else to look."""
    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, "ERR-ZZZZZZZZ")
    assert str(caught.value).endswith("is only in the host's telemetry: find the server's record of that call by its"
                                      " JSON-RPC request id")
    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, "8")
    assert "host made" not in str(caught.value)


@pytest.mark.parametrize(("query", "bad_input"), [
    ("ERR-ZZZZZZZZ", False), ("8", False), ("ERR-UUUUUUUU", True), ("", True), ("ERR-TRAP99", True),
    ("the bot said it could not find my order", True),
])
def test_a_query_that_is_no_id_is_bad_input(
    telemetry: Telemetry, tmp_path: Path, query: str, bad_input: bool, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query no ref, trace id or request id can be read from is bad input (exit 2, as ``errscope.cli`` documents);
    a well-formed one that matches nothing is "not found" (exit 1). Both exited 1."""
    from errscope._setup import OTLP_VARIABLES
    from errscope.cli import main

    for name in OTLP_VARIABLES:  # an endpoint in this shell adds where the telemetry went instead
        monkeypatch.delenv(name, raising=False)

    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, query)
    assert isinstance(caught.value, QueryError) is bad_input
    assert main(["explain", query, "--from", str(tmp_path)]) == (2 if bad_input else 1)
    err = capsys.readouterr().err
    assert err == f"errscope explain: {caught.value}\n"


def test_a_ref_retyped_with_letters_for_digits_is_found(tmp_path: Path) -> None:
    """Crockford base32, which refs are spelled in, reads O as 0 and I, L as 1: a ref copied from a
    screenshot by hand (``ERR-9RZSQ1CY`` typed ``err-9rzsqicy``) still finds its call."""
    failed = _span("b" * 16, "", SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "errscope.error_ref": "ERR-A0A1AAAA"})
    (tmp_path / "traces.json").write_text(_traces("refunds", failed))
    telemetry = load(tmp_path)
    for typed in ("ERR-AOAIAAAA", "err-aoalaaaa", " ERR-A0A1AAAA "):
        [chain] = find_chains(telemetry, typed)
        assert chain.error_ref == "ERR-A0A1AAAA" and chain.tool is not None, typed


@pytest.mark.parametrize(("typed", "bad_input"), [
    ("ERR-AAAAAAAB", False),  # one character changed
    ("ERR-ABBBBBBB", False),  # ERR-BBBBBBBB, its first character changed (the log-only ref)
    ("Ref ERR-AAAAABAA.", False),
    ("ERR-AAAAAAAAA", True),  # one added
])
def test_a_ref_one_keystroke_off_names_the_ref_it_may_be(
    telemetry: Telemetry, tmp_path: Path, typed: str, bad_input: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ref retyped from a screenshot with one character wrong, swapped, left out or added: "not found" (or "no
    error ref") names the refs in the folder one keystroke away, where it gave the generic reasons alone."""
    from errscope.cli import main

    with pytest.raises(ExplainError) as caught:
        find_chains(telemetry, typed)
    near = "ERR-BBBBBBBB" if "ABBB" in typed else "ERR-AAAAAAAA"
    assert str(caught.value).endswith(f"; did you mean {near}?")
    assert isinstance(caught.value, QueryError) is bad_input
    assert main(["explain", typed, "--from", str(tmp_path)]) == (2 if bad_input else 1)
    assert capsys.readouterr().err == f"errscope explain: {caught.value}\n"


def test_a_ref_missing_its_last_character_is_completed_not_guessed(telemetry: Telemetry) -> None:
    """One character left out reads as a ref cut short (7 of its 8 characters), completed from the refs here: the
    rule for a preview's cut, which also answers the keystroke left out."""
    [chain] = find_chains(telemetry, "ERR-AAAAAAA")
    assert (chain.error_ref, chain.cut_short) == ("ERR-AAAAAAAA", "ERR-AAAAAAA")


def test_a_swapped_pair_is_one_keystroke(tmp_path: Path) -> None:
    """Two neighbours swapped is one slip of the fingers; two characters changed apart is not, nor is the same ref."""
    from errscope._explain import _one_keystroke

    assert _one_keystroke("7K3M9QXZ", "7K3M9QZX") and _one_keystroke("K73M9QXZ", "7K3M9QXZ")
    assert not _one_keystroke("7K3M9QXZ", "7K3M9QXZ")
    assert not _one_keystroke("XK3M9QX7", "7K3M9QXZ") and not _one_keystroke("7K3M9", "7K3M9QXZ")


def test_explain_reads_the_demo_folder_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``errscope explain ERR-…`` right after ``make demo``: ``--from`` defaults to ./errscope-out."""
    from errscope.cli import main

    folder = tmp_path / "errscope-out"
    folder.mkdir()
    failed = _span("b" * 16, "", SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "errscope.error_ref": "ERR-A0A1AAAA"})
    (folder / "traces.json").write_text(_traces("refunds", failed))
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "ERR-A0A1AAAA"]) == 0
    assert capsys.readouterr().out.startswith("ERR-A0A1AAAA  tool=refund_order")


def test_a_server_ref_after_the_client_gave_up_is_named(tmp_path: Path) -> None:
    """The client timed out (its own ref) and the server then failed under its own ref (an httpx ReadTimeout at the
    same second): the log record under the server's ref is said to be this call's, and a multi-line root-cause
    message stays indented inside its section."""
    client = _span("a" * 16, "", SPAN_KIND_CLIENT, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "10",
        "errscope.error_ref": "ERR-CCCCCCCC", "errscope.outcome": "timeout", "errscope.attempt": 1})
    server = _span("b" * 16, "a" * 16, SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "10",
        "errscope.error_ref": "ERR-DDDDDDDD", "errscope.upstream.status": "ReadTimeout"})
    (tmp_path / "traces.json").write_text("\n".join([_traces("refunds", server), _traces("agent", client)]))
    (tmp_path / "logs.json").write_text(_log("ERR-DDDDDDDD", trace=TRACE, **{
        "exception.type": "httpx.HTTPStatusError", "exception.message": "Server error '503'\nFor more information"}))
    [chain] = find_chains(load(tmp_path), "ERR-CCCCCCCC")
    text = render(chain)
    assert "the server's own ref for this call: ERR-DDDDDDDD (the host's ERR-CCCCCCCC is the client's" in text, text
    assert "ref=ERR-DDDDDDDD" in text and "\n      For more information" in text, text


def _one_failure(tmp_path: Path, *refs: str) -> Telemetry:
    spans = [_span(f"{n:016x}", "", SPAN_KIND_SERVER, "tools/call refund_order", **{
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "errscope.error_ref": ref})
        for n, ref in enumerate(refs, 1)]
    (tmp_path / "traces.json").write_text(_traces("refunds", *spans))
    return load(tmp_path)


@pytest.mark.parametrize("pasted", [
    # a host's JSON log line: the ref on a line of its own, the escape glued to it
    r'{"level":"info","tool_result":"refund_order failed: order ord_2 was not found.\nERR-7K3M9QXZ"}',
    r'{"msg":"Ref ERR\u20117K3M9QXZ"}',  # a non-breaking hyphen the model wrote, ASCII-escaped by json.dumps
    r'{"event":"{\"text\": \"Ref\\u00a0ERR\\u20117K3M9QXZ\"}"}',  # a JSON string inside a JSON log line
    "https://support.example.com/search?q=%22ERR-7K3M9QXZ%22",  # a link someone shared
    "<p>refund_order failed. Ref&nbsp;ERR&#8209;7K3M9QXZ</p>",  # the chat's HTML
    r"refund\_order failed\. Ref ERR\-7K3M9QXZ\.",  # Markdown escaped for a Telegram bot (MarkdownV2)
])
def test_a_ref_escaped_by_the_formats_a_message_passed_through_is_found(tmp_path: Path, pasted: str) -> None:
    """The message reaches on-call through JSON logs, URLs, HTML and Markdown: each escape undone, the ref is read."""
    [chain] = find_chains(_one_failure(tmp_path, "ERR-7K3M9QXZ"), pasted)
    assert chain.error_ref == "ERR-7K3M9QXZ" and chain.tool is not None


@pytest.mark.parametrize("pasted", ["Ref ERR-7K3M9…", "refund_order failed … Ref err-7k3m9q", '"Ref ERR-7K3M..."'])
def test_a_ref_cut_short_is_completed_from_the_telemetry(tmp_path: Path, pasted: str) -> None:
    """A host's preview, a notification or a screenshot cut the ref: the refs here that start so are explained, and
    the output says the ref was completed."""
    [chain] = find_chains(_one_failure(tmp_path, "ERR-7K3M9QXZ", "ERR-AAAAAAAA"), pasted)
    assert chain.error_ref == "ERR-7K3M9QXZ" and chain.tool is not None
    assert "cut short: ERR-7K3M9QXZ is a ref here that starts so" in render(chain).splitlines()[1]


def test_a_ref_cut_short_that_two_refs_start_with_gives_both(tmp_path: Path) -> None:
    telemetry = _one_failure(tmp_path, "ERR-7K3M9QXZ", "ERR-7K3MAAAA", "ERR-AAAAAAAA")
    assert [c.error_ref for c in find_chains(telemetry, "ERR-7K3M…")] == ["ERR-7K3M9QXZ", "ERR-7K3MAAAA"]


def test_a_ref_cut_short_that_matches_nothing_says_so(tmp_path: Path) -> None:
    """Not "no error ref" (it is the start of one) and not "not found" (no whole ref was given)."""
    with pytest.raises(QueryError) as caught:
        find_chains(_one_failure(tmp_path, "ERR-AAAAAAAA"), "Ref ERR-7K3M9…")
    assert str(caught.value).startswith(f"ERR-7K3M9 is cut short (5 of a ref's 8 characters: a host, a preview or a"
                                        f" screenshot cut it) and no ref in {tmp_path} starts with it")


def test_not_found_says_when_this_shell_exports_to_an_otlp_endpoint(
    telemetry: Telemetry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The services started from this shell sent their telemetry to the endpoint (``configure_telemetry`` prefers it
    to files): "not found" in a folder, or a folder that does not exist, says where it went instead."""
    from errscope.cli import main

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    hint = ("; OTEL_EXPORTER_OTLP_ENDPOINT is set here (http://collector:4318): processes that see it export there, not"
            " to files, so look the ref up where that endpoint leads (the triage dashboard), or give --from its"
            " Collector's file exporter folder\n")
    assert main(["explain", "ERR-ZZZZZZZZ", "--from", str(tmp_path)]) == 1
    assert capsys.readouterr().err.endswith(hint)
    assert main(["explain", "ERR-ZZZZZZZZ", "--from", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err.endswith(hint)
    assert main(["explain", "", "--from", str(tmp_path)]) == 2  # bad input: no hint about where telemetry went
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in capsys.readouterr().err


def test_a_call_relayed_to_an_errscope_server_is_one_chain(tmp_path: Path) -> None:
    """``errscope proxy`` adopts the ref of the errscope server behind it and continues its trace: the host's CLIENT
    span, the relay's SERVER span and the server's SERVER span carry one ref. By ref and by request id that is one call:
    the server's span is the tool span (its upstream), the relay's is its hop."""
    common = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "refund_order", "jsonrpc.request.id": "7",
              "errscope.error_ref": "ERR-AAAAAAAA"}
    host = _span("a" * 16, "", SPAN_KIND_CLIENT, "tools/call refund_order", **common)
    relay = _span("b" * 16, "a" * 16, SPAN_KIND_SERVER, "tools/call refund_order", **common, **{
        "errscope.upstream.system": "mcp", "errscope.upstream.status": "isError"})
    server = _span("c" * 16, "b" * 16, SPAN_KIND_SERVER, "tools/call refund_order", **common, **{
        "errscope.upstream.system": "http", "errscope.upstream.status": "404", "errscope.upstream.address": "db:80"})
    upstream = _span("d" * 16, "c" * 16, SPAN_KIND_CLIENT, "GET", **{"http.response.status_code": 404})
    (tmp_path / "traces.json").write_text("\n".join([_traces("agent", host), _traces("errscope-proxy", relay),
                                                     _traces("refunds", server, upstream)]))
    telemetry = load(tmp_path)
    for query in ("ERR-AAAAAAAA", "7", TRACE):
        [chain] = find_chains(telemetry, query)
        assert chain.tool is not None and chain.tool.span_id == "c" * 16, query
        assert [s.span_id for s in chain.relays] == ["b" * 16] and [s.span_id for s in chain.client] == ["a" * 16]
        assert [s.span_id for s in chain.upstream] == ["d" * 16]
    text = render(chain)
    assert "errscope.upstream.system=http  errscope.upstream.status=404  errscope.upstream.address=db:80" in text
    assert ("   relayed by errscope-proxy: tools/call refund_order  [SERVER]  3.0 ms  status=ERROR not_found  "
            "errscope.upstream.system=mcp  errscope.upstream.status=isError\n") in text, text
