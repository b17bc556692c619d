"""Server side of tests/heldout_cases.md, tenth round (J199-J205, J211): what a tool's upstream says through TLS, IPv6, a
corporate proxy and worker threads, and a resource read beside the tools.

A certificate that expired or names another host; an upstream reached by an IPv6 literal; a 429 whose wait is only in
the IETF ``RateLimit`` fields; a forward proxy answering 407; the upstream's error raised in ``asyncio.to_thread``,
``loop.run_in_executor`` and a ``concurrent.futures`` pool, and a future's own timeout; a resource template whose
upstream says the record does not exist; an upstream that redirects in a loop.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process; every upstream is
a real server on the loopback interface (TLS by the standard library's ``ssl``, certificates made with
``cryptography``), read with httpx.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import re
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

import errscope
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HttpUpstream
from tests.conftest import require
from tests.server.test_heldout_cases import REF, everything_recorded, serving, text_of
from tests.server.test_heldout_cases_9 import assert_failed, ping, span_of
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


def make_certificate(tmp_path: Path, name: str, *, expired: bool) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` (and its key), valid now or expired yesterday; the file doubles as
    its own CA file."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    not_after = now - dt.timedelta(days=1) if expired else now + dt.timedelta(days=1)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=30)).not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / f"{name}-{expired}.pem", tmp_path / f"{name}-{expired}.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@contextmanager
def tls_upstream(cert: Path, key: Path) -> Iterator[int]:
    """A TLS listener on 127.0.0.1 serving ``cert``; the client's verification aborts the handshake."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(65536)
                    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.close()


@pytest.mark.parametrize("case", ["expired", "wrong-name"])
@pytest.mark.parametrize("style", STYLES)
async def test_j199_a_tool_upstream_whose_certificate_expired_or_names_another_host(
        style: str, case: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J199 (AuraFriday/Fusion-360-MCP-Server #6: "certificate has expired — mcp-remote fails with CERT_HAS_EXPIRED";
    connet-dev/connet #30: "x509: certificate has expired or is not yet valid"; google/mcp-security #198: a corporate
    proxy's certificate in place of the API's). A tool's billing API presents a certificate that expired yesterday, or
    one for another host name, to a client that trusts its issuer. The handshake fails before any request byte:
    ``upstream_unavailable``, not run upstream; the span names the upstream's host and port; the model text quotes no
    OpenSSL internals."""
    expired = case == "expired"
    cert, key = make_certificate(tmp_path, "localhost" if expired else "billing.internal.example", expired=expired)
    verify = ssl.create_default_context(cafile=str(cert))
    with tls_upstream(cert, key) as port:

        async def get_invoice(invoice: str) -> str:
            """Read an invoice from the billing API."""
            async with httpx.AsyncClient(verify=verify, timeout=5) as client:
                return (await client.get(f"https://localhost:{port}/invoices/{invoice}")).text

        async with serving(style, "legacy", telemetry, get_invoice, ping) as served:
            result = await served.call("get_invoice", {"invoice": "INV-9"})
            after = await served.call("ping")
    text = assert_failed(result, after)
    attributes = span_of(telemetry, "get_invoice").attributes
    assert attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(attributes)
    assert attributes.get("errscope.upstream.address") == f"localhost:{port}", dict(attributes)
    for fragment in ("_ssl.c", "CERTIFICATE_VERIFY_FAILED", "[SSL"):
        assert fragment not in text, text


class _Ipv6Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b'{"error": "maintenance"}'
        self.send_response(503)
        self.send_header("Retry-After", "12")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Ipv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@contextmanager
def ipv6_upstream() -> Iterator[int]:
    try:
        server = _Ipv6Server(("::1", 0), _Ipv6Handler)
    except OSError as exc:  # a host without IPv6 on its loopback interface: skipped, or failed in CI
        require(False, f"no IPv6 loopback: {exc}")
        raise
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("style", STYLES)
async def test_j200_an_upstream_reached_by_an_ipv6_literal(style: str, telemetry: CapturedTelemetry) -> None:
    """J200 (hexchat/hexchat #710 and ooni/explorer PR #1036: ``1234:beef::5678:6667`` cannot say where the address
    ends and the port begins; RFC 3986 §3.2.2 brackets an IPv6 literal in a URL; kafka-python PR #615). A tool's
    upstream at ``http://[::1]:PORT`` answers 503 ``Retry-After: 12``: ``upstream_unavailable`` with its wait, and
    ``errscope.upstream.address`` is ``[::1]:PORT``, which names one host and one port."""
    with ipv6_upstream() as port:

        async def check_stock(sku: str) -> str:
            """Stock level from the warehouse API."""
            async with httpx.AsyncClient(timeout=5) as client:
                response = await client.get(f"http://[::1]:{port}/stock/{sku}")
                response.raise_for_status()
                return response.text

        async with serving(style, "legacy", telemetry, check_stock, ping) as served:
            result = await served.call("check_stock", {"sku": "A-1"})
            after = await served.call("ping")
    assert_failed(result, after)
    attributes = span_of(telemetry, "check_stock").attributes
    assert attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(attributes)
    assert attributes.get("errscope.upstream.status") == "503"
    assert attributes.get("errscope.upstream.address") == f"[::1]:{port}", dict(attributes)
    assert attributes.get("errscope.retry_after") == 12.0, dict(attributes)


@pytest.mark.parametrize("style", STYLES)
async def test_j201_an_upstream_429_whose_wait_is_only_in_ratelimit_fields(style: str, telemetry: CapturedTelemetry) -> None:
    """J201 (modelcontextprotocol/typescript-sdk #1892: the IETF ``RateLimit-*`` fields are not read; auth0/go-auth0
    #258: the reset the API sent was ignored). A tool's search API answers 429 with ``RateLimit: "default";r=0;t=40``
    and no ``Retry-After``; a second API answers 403 with ``RateLimit-Remaining: 0`` and ``RateLimit-Reset: 15`` (a
    spent quota, GitHub's way of saying it with 403). Both are ``rate_limited`` with the wait the fields give, on the
    span and in the model's text."""
    with HttpUpstream() as upstream:
        structured = upstream.scripted(429, '{"message": "quota"}', {"RateLimit": '"default";r=0;t=40',
                                                                     "RateLimit-Policy": '"default";q=60;w=60'})
        drafted = upstream.scripted(403, '{"message": "quota"}', {"RateLimit-Limit": "60", "RateLimit-Remaining": "0",
                                                                  "RateLimit-Reset": "15"})

        async def search_docs(query: str) -> str:
            """Search the docs API."""
            async with httpx.AsyncClient(timeout=5) as client:
                response = await client.get(f"{structured}/search", params={"q": query})
                response.raise_for_status()
                return response.text

        async def search_code(query: str) -> str:
            """Search the code API."""
            async with httpx.AsyncClient(timeout=5) as client:
                response = await client.get(f"{drafted}/search", params={"q": query})
                response.raise_for_status()
                return response.text

        async with serving(style, "legacy", telemetry, search_docs, search_code, ping) as served:
            docs = await served.call("search_docs", {"query": "retry"})
            code = await served.call("search_code", {"query": "retry"})
            after = await served.call("ping")
    for tool, result, wait in (("search_docs", docs, 40.0), ("search_code", code, 15.0)):
        text = assert_failed(result, after)
        attributes = span_of(telemetry, tool).attributes
        assert attributes[ERRSCOPE_FAILURE_CLASS] == "rate_limited", (tool, dict(attributes))
        assert attributes.get("errscope.retry_after") == wait, (tool, dict(attributes))
        assert f"{wait:g} s" in text, text


PROXY_PASSWORD = "FAKE-proxy-pw-3141"


@contextmanager
def refusing_proxy() -> Iterator[str]:
    """A forward proxy on 127.0.0.1 that answers every request, ``CONNECT`` included, with 407."""
    with HttpUpstream() as proxy:
        proxy.answer_all = (407, ['Proxy-Authenticate: Basic realm="FAKE corp proxy"'], b"<html>407 Proxy "
                            b"Authentication Required</html>")
        yield f"http://jdoe:{PROXY_PASSWORD}@127.0.0.1:{proxy.port}"


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("style", STYLES)
async def test_j202_a_corporate_proxy_answering_407_to_a_tool(style: str, scheme: str, telemetry: CapturedTelemetry) -> None:
    """J202 (google/mcp-security #198: MCP servers on a corporate proxy, ``HTTP_PROXY``/``HTTPS_PROXY`` in the server's
    env; sooperset/mcp-atlassian #260; RFC 9110 §15.5.8: 407 asks the client to authenticate *to the proxy*). The
    tool's client goes through a proxy whose credentials are wrong: for ``http://`` the proxy answers the request
    407, for ``https://`` it refuses the ``CONNECT`` (httpx raises ``ProxyError``). Either way ``permission_denied``
    (a setting to fix, not an outage), and the proxy's password is in no answer, span or log record."""
    with refusing_proxy() as proxy_url:

        async def fetch_rates(currency: str) -> str:
            """Exchange rates from the treasury API."""
            async with httpx.AsyncClient(proxy=proxy_url, timeout=5) as client:
                response = await client.get(f"{scheme}://rates.example.com/v1/{currency}")
                response.raise_for_status()
                return response.text

        async with serving(style, "legacy", telemetry, fetch_rates, ping) as served:
            result = await served.call("fetch_rates", {"currency": "EUR"})
            after = await served.call("ping")
    text = assert_failed(result, after)
    attributes = span_of(telemetry, "fetch_rates").attributes
    assert attributes[ERRSCOPE_FAILURE_CLASS] == "permission_denied", dict(attributes)
    assert PROXY_PASSWORD not in text and PROXY_PASSWORD not in everything_recorded(telemetry)


def test_j202_the_same_refusal_through_requests_and_urllib3() -> None:
    """J202, the other HTTP clients a tool may use: requests and urllib3 word the refused tunnel "Tunnel connection
    failed: 407 Proxy Authentication Required" inside their ``ProxyError``; the class is the same, never sent."""
    import requests
    import urllib3

    from errscope import FailureClass, classify

    with refusing_proxy() as proxy_url:
        with pytest.raises(requests.exceptions.ProxyError) as by_requests:
            requests.get("https://rates.example.com/v1/EUR", proxies={"https": proxy_url}, timeout=5)
        pool = urllib3.ProxyManager(proxy_url, retries=False, timeout=5)
        with pytest.raises(urllib3.exceptions.ProxyError) as by_urllib3:
            pool.request("GET", "https://rates.example.com/v1/EUR")
    for raised in (by_requests.value, by_urllib3.value):
        classification = classify(raised)
        assert classification.failure_class is FailureClass.PERMISSION_DENIED, (type(raised), str(raised))
        assert classification.side_effect_possible is False
        assert PROXY_PASSWORD not in str(classification)


def lookup_customer(url: str) -> str:
    """The blocking half of a tool: a sync HTTP client (as in a vendor SDK)."""
    response = httpx.get(url, timeout=5)
    response.raise_for_status()
    return response.text


@pytest.mark.parametrize("how", ["to_thread", "run_in_executor", "pool"])
@pytest.mark.parametrize("style", STYLES)
async def test_j203_an_upstream_error_raised_in_a_worker_thread(style: str, how: str, telemetry: CapturedTelemetry) -> None:
    """J203 (python/cpython #120508 and agronholm/pythonfutures #26: what a worker thread raised is only seen where
    ``result()`` re-raises it; enthought/encore #108: the worker's part of the traceback lost; xorbitsai/xagent PR
    #2207: the underlying error of an MCP tool call never logged). An async tool hands a blocking lookup to a thread
    (``asyncio.to_thread``, ``loop.run_in_executor``, a ``ThreadPoolExecutor``'s future); the CRM answers 404. The
    class is the upstream's, ``not_found`` with status 404 on the span, whichever way the thread was started."""
    with HttpUpstream() as upstream:
        url = upstream.scripted(404, '{"error": "no customer C-7"}') + "/customers/C-7"

        async def get_customer(customer: str) -> str:
            """A customer record from the CRM."""
            if how == "to_thread":
                return await asyncio.to_thread(lookup_customer, url)
            if how == "run_in_executor":
                return await asyncio.get_running_loop().run_in_executor(None, lookup_customer, url)
            with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
                return await asyncio.wrap_future(pool.submit(lookup_customer, url))

        async with serving(style, "legacy", telemetry, get_customer, ping) as served:
            result = await served.call("get_customer", {"customer": "C-7"})
            after = await served.call("ping")
    assert_failed(result, after)
    attributes = span_of(telemetry, "get_customer").attributes
    assert attributes[ERRSCOPE_FAILURE_CLASS] == "not_found", dict(attributes)
    assert attributes.get("errscope.upstream.status") == "404", dict(attributes)


@pytest.mark.parametrize("style", STYLES)
async def test_j204_a_futures_own_timeout_on_a_stalled_upstream(style: str, telemetry: CapturedTelemetry) -> None:
    """J204 (the same reports, and Python 3.11's ``concurrent.futures.TimeoutError`` becoming the builtin
    ``TimeoutError``). A sync tool fans its upstream call out to a pool and waits ``future.result(timeout=0.3)``;
    the upstream read the request and never answers. The wait's ``TimeoutError`` is a stalled upstream:
    ``upstream_unavailable``, never the mapping gap, and the server answers the next call."""
    with HttpUpstream() as upstream:
        url = upstream.failing("stall") + "/reports/weekly"
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)

        def build_report(name: str) -> str:
            """Build a report from the analytics API."""
            return pool.submit(lookup_customer, url).result(timeout=0.3)

        try:
            async with serving(style, "legacy", telemetry, build_report, ping) as served:
                result = await served.call("build_report", {"name": "weekly"})
                after = await served.call("ping")
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    assert_failed(result, after)
    assert span_of(telemetry, "build_report").attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"


@pytest.mark.parametrize("style", STYLES)
async def test_j205_a_resource_whose_upstream_has_no_such_record(style: str, telemetry: CapturedTelemetry) -> None:
    """J205 (modelcontextprotocol/python-sdk #1579 and PrefectHQ/fastmcp #3038: a resource that does not exist answered
    as an internal error; MCP 2025-11-25, Resources > Error Handling: "Resource not found: -32002"). A resource
    template ``orders://{id}`` reads an order API that answers 404 for ``FAKE-404``: the read fails as not found
    (-32002, or -32602 after SEP-2164) with a ref the span carries, the span's class is ``not_found``, and a tool
    call on the same connection still works. The answer quotes none of the exception's text (FastMCP, unmasked,
    appends ``str(e)``: here the upstream's internal URL)."""
    with HttpUpstream() as upstream:
        base = upstream.scripted(404, '{"error": "no such order"}')
        server = BUILDERS[style]()

        @server.resource("orders://{order_id}")
        def order(order_id: str) -> str:
            return lookup_customer(f"{base}/orders/{order_id}")

        (server.tool if style == "fastmcp" else server.add_tool)(ping)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.read_resource("orders://FAKE-404")
            after = await client.call_tool("ping", {})
    assert raised.value.code in (-32002, -32602), (raised.value.code, raised.value.message)
    for fragment in ("127.0.0.1", "Client error", "404 Upstream", "scripted"):  # FastMCP's unmasked f"...: {e}"
        assert fragment not in raised.value.message, raised.value.message
    (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "resources/read"]
    assert span.attributes.get(ERRSCOPE_FAILURE_CLASS) == "not_found", dict(span.attributes)
    ref = re.search(REF, raised.value.message)
    assert ref and span.attributes.get("errscope.error_ref") == ref.group(0)[4:], (raised.value.message, dict(span.attributes))
    assert text_of(after) == "pong"


@pytest.mark.parametrize("style", STYLES)
async def test_j211_a_tool_upstream_that_redirects_in_a_loop(style: str, telemetry: CapturedTelemetry) -> None:
    """J211 (elastic/docs-builder PR #2728: a ``301`` from ``/docs/_mcp/`` to ``/docs/_mcp`` and back, "an infinite 301
    loop", Cursor stuck on "fetch failed"; nasa/earthdata-mcp #50: a documented endpoint answering only redirects). A
    tool's API answers every request with ``301`` to itself; httpx follows until ``TooManyRedirects``, as requests
    and aiohttp do with their own ``TooManyRedirects``. Each is the upstream out of reach at that URL
    (``upstream_unavailable``), never sent (every answer was a redirect), with the upstream's address on the span;
    never the mapping gap."""
    import aiohttp
    import requests

    from errscope import FailureClass, classify

    with HttpUpstream() as upstream:
        url = upstream.scripted(301, "", {"Location": f"{upstream.url}/scripted/0/v1/rates"}) + "/v1/rates"

        async def fetch_rates(currency: str) -> str:
            """Exchange rates from the treasury API."""
            async with httpx.AsyncClient(follow_redirects=True, timeout=5) as client:
                response = await client.get(url, params={"c": currency})
                response.raise_for_status()
                return response.text

        async with serving(style, "legacy", telemetry, fetch_rates, ping) as served:
            result = await served.call("fetch_rates", {"currency": "EUR"})
            after = await served.call("ping")
        with pytest.raises(requests.exceptions.TooManyRedirects) as by_requests:
            requests.get(url, timeout=5)

        async def through_aiohttp() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.get(url, max_redirects=5):
                    pass

        with pytest.raises(aiohttp.TooManyRedirects) as by_aiohttp:
            await through_aiohttp()
    assert_failed(result, after)
    attributes = span_of(telemetry, "fetch_rates").attributes
    assert attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(attributes)
    assert attributes.get("errscope.upstream.address") == f"127.0.0.1:{upstream.port}", dict(attributes)
    for raised in (by_requests.value, by_aiohttp.value):
        classification = classify(raised)
        assert classification.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, type(raised)
        assert classification.side_effect_possible is False, type(raised)
