"""Cloud SDKs pointed at a real HTTP server on 127.0.0.1: google-cloud-storage (its errors are
google-api-core's, one class per status, ``code`` the HTTP status) and azure-core's pipeline (the
generic ``PipelineClient`` every Azure SDK is built on; a generated client maps statuses with
``map_error``). Transport failures: google-cloud's are requests' own; azure-core raises its
ServiceRequestError ("no request was sent") or ServiceResponseError ("the request was sent")
without a chain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import requests
from azure.core import PipelineClient
from azure.core import exceptions as azure_errors
from azure.core.rest import HttpRequest
from google.api_core import exceptions as google_errors
from google.api_core import retry as google_retry
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from errscope import FailureClass as C
from errscope._classify import explain
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream


def _get_bucket(base: str, timeout: float = 5, retry: object = None) -> Callable[[], Any]:
    client = storage.Client(project="p", credentials=AnonymousCredentials(), client_options={"api_endpoint": base})
    return lambda: client.get_bucket("orders", timeout=timeout, retry=retry)


def _google_body(status: int) -> str:
    return json.dumps({"error": {"code": status, "message": "upstream said no", "errors": [{"reason": "x"}]}})


class TestGoogleCloudStorage:
    @pytest.mark.parametrize(("status", "retry_after", "kind", "failure_class", "side_effect", "wait"), [
        (400, None, google_errors.BadRequest, C.INVALID_INPUT, False, None),
        (403, None, google_errors.Forbidden, C.PERMISSION_DENIED, False, None),
        (404, None, google_errors.NotFound, C.NOT_FOUND, False, None),
        (409, None, google_errors.Conflict, C.INVALID_INPUT, False, None),
        # ifGenerationMatch failed (RFC 9110 §15.5.13): refused as a whole, the caller's precondition is stale
        (412, None, google_errors.PreconditionFailed, C.INVALID_INPUT, False, None),
        (429, "6", google_errors.TooManyRequests, C.RATE_LIMITED, False, 6.0),
        (500, None, google_errors.InternalServerError, C.UPSTREAM_UNAVAILABLE, True, None),
        (503, None, google_errors.ServiceUnavailable, C.UPSTREAM_UNAVAILABLE, False, None),
        (504, None, google_errors.GatewayTimeout, C.UPSTREAM_UNAVAILABLE, True, None),
    ])
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, kind: type,
                    failure_class: C, side_effect: bool, wait: float | None) -> None:
        headers = {"Retry-After": retry_after} if retry_after else {}
        exc = raised(_get_bucket(upstream.scripted(status, _google_body(status), headers)))
        assert type(exc) is kind and exc.code == status
        result = check(exc, failure_class, side_effect)
        assert result.retry_after == wait
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"

    @pytest.mark.parametrize(("where", "kind", "side_effect"), [
        ("refused", requests.ConnectionError, False),
        ("drop", requests.ConnectionError, True),
        ("stall", requests.ReadTimeout, True),
    ])
    def test_connection(self, upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
        base = upstream.failing(where)
        exc = raised(_get_bucket(base, timeout=0.3))
        assert isinstance(exc, kind)
        check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)

    def test_retry_error_over_unavailable(self, upstream: HttpUpstream) -> None:
        retry = google_retry.Retry(initial=0.01, maximum=0.02, timeout=0.3)
        exc = raised(_get_bucket(upstream.scripted(503, _google_body(503)), retry=retry))
        assert isinstance(exc, google_errors.RetryError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
        assert type(explain(exc)[1]) is google_errors.ServiceUnavailable


def _azure(base: str, timeout: float = 5, generated: bool = False) -> Callable[[], None]:
    client = PipelineClient(base_url=base, policies=[])  # no RetryPolicy: one failure each

    def call() -> None:
        response = client.send_request(HttpRequest("GET", f"{base}/container/blob"),
                                       connection_timeout=timeout, read_timeout=timeout)
        if generated:  # what an AutoRest-generated client does with an error status
            azure_errors.map_error(status_code=response.status_code, response=response, error_map={
                401: azure_errors.ClientAuthenticationError, 404: azure_errors.ResourceNotFoundError,
                409: azure_errors.ResourceExistsError})
            raise azure_errors.HttpResponseError(response=response)
        response.raise_for_status()

    return call


class TestAzureCore:
    @pytest.mark.parametrize("generated", [False, True], ids=["raise_for_status", "map_error"])
    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
        (400, None, C.INVALID_INPUT, False, None),
        (401, None, C.PERMISSION_DENIED, False, None),
        (404, None, C.NOT_FOUND, False, None),
        (409, None, C.INVALID_INPUT, False, None),
        (429, "8", C.RATE_LIMITED, False, 8.0),
        (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
        (503, None, C.UPSTREAM_UNAVAILABLE, False, None),
    ])
    def test_status(self, upstream: HttpUpstream, generated: bool, status: int, retry_after: str | None,
                    failure_class: C, side_effect: bool, wait: float | None) -> None:
        headers = {"Retry-After": retry_after} if retry_after else {}
        body = json.dumps({"error": {"code": "BlobNotFound", "message": "upstream said no"}})
        exc = raised(_azure(upstream.scripted(status, body, {**headers, "x-ms-error-code": "BlobNotFound"}),
                            generated=generated))
        assert isinstance(exc, azure_errors.HttpResponseError) and exc.status_code == status
        assert check(exc, failure_class, side_effect).retry_after == wait

    @pytest.mark.parametrize(("where", "kind", "side_effect"), [
        ("refused", azure_errors.ServiceRequestError, False),
        ("unresolvable", azure_errors.ServiceRequestError, False),
        ("drop", azure_errors.ServiceResponseError, True),
        ("stall", azure_errors.ServiceResponseTimeoutError, True),
    ])
    def test_connection(self, upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
        base = upstream.failing(where)
        exc = raised(_azure(base, timeout=0.3))
        assert type(exc) is kind
        result = check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
        assert result.upstream is not None and result.upstream.status == kind.__name__
