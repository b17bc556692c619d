"""Upstream capture: HTTP calls a tool makes through ``httpx`` become child CLIENT spans
(``opentelemetry-instrumentation-httpx``) and put their status on the tool call being served.

If your application instruments httpx itself, pass :func:`response_hook` /
:func:`async_response_hook` to your ``HTTPXClientInstrumentor().instrument(...)`` call instead.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from opentelemetry.metrics import MeterProvider
from opentelemetry.semconv.attributes.http_attributes import HTTP_RESPONSE_STATUS_CODE
from opentelemetry.semconv.attributes.server_attributes import SERVER_ADDRESS, SERVER_PORT
from opentelemetry.semconv.attributes.url_attributes import URL_FULL
from opentelemetry.trace import Span, Status, TracerProvider

from errscope._call import current_call, record_upstream
from errscope._classify import http_address
from errscope._scrubbing import scrub

__all__ = ["async_request_hook", "async_response_hook", "instrument_httpx", "request_hook", "response_hook"]


def _url(request: Any) -> httpx.URL | None:
    url = getattr(request, "url", None)
    if isinstance(url, httpx.URL):
        return url
    if isinstance(url, tuple) and len(url) == 4:  # raw transport form: (scheme, host, port, target)
        scheme, host, port, target = url
        return httpx.URL(scheme=scheme.decode(), host=host.decode(), port=port, path=target.decode().split("?")[0])
    return None


def _scrubbing_failure_records(span: Span) -> None:
    """Scrub what the SDK records on ``span`` when the request raises: the ``exception`` event (its message and stack
    trace) and the status description ``"{type}: {exception}"`` (``use_span``). An HTTP library's exception can quote
    what it refused to send: h11's "Illegal header value b'Bearer <key>\\n'" for a key read with its newline (J353).
    DESIGN: status descriptions and exception records carry only scrubbed text."""
    add_event, set_status = span.add_event, span.set_status

    def scrubbed_event(name: str, attributes: Any = None, timestamp: int | None = None) -> None:
        if attributes:
            attributes = {key: scrub(value) if isinstance(value, str) else value for key, value in attributes.items()}
        add_event(name, attributes, timestamp)

    def scrubbed_status(status: Any, description: str | None = None) -> None:
        if isinstance(status, Status) and status.description:
            status = Status(status.status_code, scrub(status.description))
        set_status(status, scrub(description) if description else description)

    span.add_event = scrubbed_event  # type: ignore[method-assign]
    span.set_status = scrubbed_status  # type: ignore[method-assign]


def request_hook(span: Span, request: Any) -> None:
    """Keep ``url.full`` and every other URL-carrying attribute (``http.url``) free of credentials
    (query values too), set ``server.address``/``server.port``, and scrub the exception the request may raise
    as the span records it (:func:`_scrubbing_failure_records`).

    The stable HTTP attribute names are set whatever ``OTEL_SEMCONV_STABILITY_OPT_IN`` says: the
    triage dashboard queries them.
    """
    if not span.is_recording():
        return
    _scrubbing_failure_records(span)
    # Any attribute that carries a URL (old ``http.url``, ``url.full``, whatever the semconv mode)
    for key, value in list((getattr(span, "attributes", None) or {}).items()):
        if isinstance(value, str) and "://" in value:
            span.set_attribute(key, scrub(value))
    url = _url(request)
    if url is not None:
        span.set_attribute(URL_FULL, scrub(str(url.copy_with(username=None, password=None))))
        span.set_attribute(SERVER_ADDRESS, url.host)
        if url.port:
            span.set_attribute(SERVER_PORT, url.port)


def response_hook(span: Span, request: Any, response: Any) -> None:
    """Record ``http`` + status + ``host:port`` on the current tool call (see :func:`errscope.record_upstream`)."""
    status = getattr(response, "status_code", None)
    if status is not None and span.is_recording():
        span.set_attribute(HTTP_RESPONSE_STATUS_CODE, status)
    if current_call() is None:
        return
    url = _url(request)
    record_upstream("http", status, None if url is None else http_address(url))


async def async_request_hook(span: Span, request: Any) -> None:
    request_hook(span, request)


async def async_response_hook(span: Span, request: Any, response: Any) -> None:
    response_hook(span, request, response)


_installed_with: tuple[object, object] | None = None


def instrument_httpx(*, tracer_provider: TracerProvider | None = None, meter_provider: MeterProvider | None = None) -> None:
    """Instrument httpx globally with errscope's hooks.

    Calling it again with other providers re-instruments (the last call decides where httpx spans
    go); if something else instrumented httpx first, errscope leaves it alone.
    """
    global _installed_with
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    instrumentor = HTTPXClientInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        if _installed_with is None:
            logging.getLogger(__name__).debug("httpx already instrumented; errscope hooks not installed")
            return
        if _installed_with == (tracer_provider, meter_provider):
            return
        instrumentor.uninstrument()
    instrumentor.instrument(
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        request_hook=request_hook,
        response_hook=response_hook,
        async_request_hook=async_request_hook,
        async_response_hook=async_response_hook,
    )
    _installed_with = (tracer_provider, meter_provider)
