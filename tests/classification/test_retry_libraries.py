"""Retry libraries around the vendor SDKs' real failures: backoff and stamina re-raise the last
failure as it was; tenacity's RetryError, urllib3's MaxRetryError and requests' RetryError wrap it.
Either way the class comes from the failure inside (see also test_wrappers, test_cloud_sdks)."""

from __future__ import annotations

import json

import backoff
import requests
import stamina
import stripe
import tenacity
import urllib3
from azure.core import PipelineClient
from azure.core.exceptions import ServiceRequestError
from azure.core.rest import HttpRequest
from requests.adapters import HTTPAdapter
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from errscope import FailureClass as C
from errscope._classify import explain
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def test_backoff_reraises_stripe_rate_limit(upstream: HttpUpstream) -> None:
    body = json.dumps({"error": {"type": "rate_limit_error", "message": "slow"}})
    base = upstream.scripted(429, body, {"Retry-After": "3"})
    client = stripe.StripeClient("sk_test_errscope", base_addresses={"api": base}, max_network_retries=0)

    @backoff.on_exception(backoff.constant, stripe.RateLimitError, max_tries=2, interval=0, jitter=None)
    def call() -> object:
        return client.v1.customers.retrieve("cus_1")

    exc = raised(call)
    assert type(exc) is stripe.RateLimitError
    assert check(exc, C.RATE_LIMITED, False).retry_after == 3.0


def test_stamina_reraises_azure_request_error() -> None:
    client = PipelineClient(base_url=f"http://{HOST}:{closed_port()}", policies=[])

    @stamina.retry(on=ServiceRequestError, attempts=2, wait_initial=0, wait_max=0, wait_jitter=0)
    def call() -> object:
        return client.send_request(HttpRequest("GET", f"{client._base_url}/c/b"), connection_timeout=5)

    exc = raised(call)
    assert type(exc) is ServiceRequestError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_tenacity_retry_error_over_slack_rate_limit(upstream: HttpUpstream) -> None:
    base = upstream.scripted(200, json.dumps({"ok": False, "error": "ratelimited"}))
    client = WebClient(token="xoxb-errscope", base_url=base + "/")
    client.retry_handlers.clear()

    @tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none())
    def call() -> object:
        return client.chat_postMessage(channel="C1", text="hi")

    exc = raised(call)
    assert isinstance(exc, tenacity.RetryError)
    check(exc, C.RATE_LIMITED, False)
    assert type(explain(exc)[1]) is SlackApiError


def test_urllib3_max_retry_over_read_timeouts(upstream: HttpUpstream) -> None:
    http = urllib3.PoolManager(retries=urllib3.Retry(total=1, read=1, backoff_factor=0, allowed_methods=None))
    exc = raised(lambda: http.request("POST", f"{upstream.url}/stall", body=b"{}",
                                      timeout=urllib3.Timeout(connect=5, read=0.2)))
    assert isinstance(exc, urllib3.exceptions.MaxRetryError)
    assert isinstance(exc.reason, urllib3.exceptions.ReadTimeoutError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_urllib3_max_retry_over_dropped_connections(upstream: HttpUpstream) -> None:
    http = urllib3.PoolManager(retries=urllib3.Retry(total=1, backoff_factor=0, allowed_methods=None))
    exc = raised(lambda: http.request("POST", f"{upstream.url}/drop", body=b"{}", timeout=5))
    assert isinstance(exc, urllib3.exceptions.MaxRetryError)
    assert isinstance(exc.reason, urllib3.exceptions.ProtocolError)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_requests_retry_error_over_error_statuses(upstream: HttpUpstream) -> None:
    # urllib3's ResponseError carries the status in its own fixed words only ("too many 503 error
    # responses", ResponseError.SPECIFIC_ERROR): read there, a 503 refused every try (nothing done).
    session = requests.Session()
    retries = urllib3.Retry(total=1, status_forcelist=[503], backoff_factor=0, respect_retry_after_header=False)
    session.mount("http://", HTTPAdapter(max_retries=retries))
    exc = raised(lambda: session.get(f"{upstream.url}/status/503", timeout=5))
    assert isinstance(exc, requests.exceptions.RetryError)
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.status == "503"
