"""azure-storage-blob against a real HTTP server on 127.0.0.1, synchronous and asyncio (aiohttp).

The server answers in Blob Storage's documented error shape (an XML ``<Error><Code>`` body and the same code in the
``x-ms-error-code`` header). azure-storage-blob's ``process_storage_error`` raises azure-core's classes by that code
(``ResourceNotFoundError``, ``ClientAuthenticationError``, ``ResourceExistsError``, ``ResourceModifiedError``, else
``HttpResponseError``), ``status_code`` the HTTP status and ``error_code`` the storage code; a dead peer is
azure-core's ``ServiceRequestError`` (nothing sent) or ``ServiceResponseError`` (sent, no answer). Retries are off
(``retry_total=0``): one request, one answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from azure.core import exceptions as azure_errors
from azure.storage.blob import BlobClient
from azure.storage.blob.aio import BlobClient as AsyncBlobClient

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

SHORT = 0.5


def _download(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = BlobClient(account_url=base, container_name="reports", blob_name="q3.csv", retry_total=0,
                        connection_timeout=timeout, read_timeout=timeout)
    return lambda: client.download_blob().readall()


def _download_async(base: str, timeout: float = 5) -> Callable[[], Any]:
    async def call() -> bytes:
        async with AsyncBlobClient(account_url=base, container_name="reports", blob_name="q3.csv", retry_total=0,
                                   connection_timeout=timeout, read_timeout=timeout) as client:
            return await (await client.download_blob()).readall()
    return call


def _upload(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = BlobClient(account_url=base, container_name="reports", blob_name="q3.csv", retry_total=0,
                        connection_timeout=timeout, read_timeout=timeout)
    return lambda: client.upload_blob(b"a,b\n1,2\n", overwrite=False)


CALLS = [pytest.param(_download, id="sync"), pytest.param(_download_async, id="async")]


def _error(code: str) -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?><Error><Code>{code}</Code>'
            f"<Message>the storage service said no\nRequestId:0f3c</Message></Error>")


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "code", "azure_class", "failure_class", "side_effect"), [
    (404, "BlobNotFound", azure_errors.ResourceNotFoundError, C.NOT_FOUND, False),
    (404, "ContainerNotFound", azure_errors.ResourceNotFoundError, C.NOT_FOUND, False),
    (403, "AuthenticationFailed", azure_errors.ClientAuthenticationError, C.PERMISSION_DENIED, False),
    (403, "AuthorizationPermissionMismatch", azure_errors.HttpResponseError, C.PERMISSION_DENIED, False),
    (403, "AuthorizationFailure", azure_errors.HttpResponseError, C.PERMISSION_DENIED, False),
    (400, "InvalidQueryParameterValue", azure_errors.HttpResponseError, C.INVALID_INPUT, False),
    (412, "ConditionNotMet", azure_errors.ResourceModifiedError, C.INVALID_INPUT, False),
    # a range past the blob's end (RFC 9110 §15.5.17): the argument, not the service
    (416, "InvalidRange", azure_errors.HttpResponseError, C.INVALID_INPUT, False),
    (500, "InternalError", azure_errors.HttpResponseError, C.UPSTREAM_UNAVAILABLE, True),
    # Blob Storage throttles with 503 ServerBusy (its "scalability targets" guide), not 429
    (503, "ServerBusy", azure_errors.HttpResponseError, C.UPSTREAM_UNAVAILABLE, False),
    (503, "ServerBusy", azure_errors.HttpResponseError, C.UPSTREAM_UNAVAILABLE, False),
    (504, "OperationTimedOut", azure_errors.HttpResponseError, C.UPSTREAM_UNAVAILABLE, True),
])
def test_storage_error(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], status: int, code: str,
                       azure_class: type[BaseException], failure_class: C, side_effect: bool) -> None:
    headers = {"x-ms-error-code": code, "Content-Type": "application/xml", "x-ms-request-id": "0f3c"}
    exc = raised(call(upstream.scripted(status, _error(code), headers)))
    assert type(exc) is azure_class and exc.status_code == status and exc.error_code == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)
    assert result.upstream.address == f"127.0.0.1:{upstream.port}"


@pytest.mark.parametrize("call", CALLS)
def test_server_busy_says_when(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]]) -> None:
    headers = {"x-ms-error-code": "ServerBusy", "Content-Type": "application/xml", "Retry-After": "12"}
    exc = raised(call(upstream.scripted(503, _error("ServerBusy"), headers)))
    assert check(exc, C.UPSTREAM_UNAVAILABLE, False).retry_after == 12.0


@pytest.mark.parametrize(("status", "code", "azure_class", "failure_class"), [
    (409, "BlobAlreadyExists", azure_errors.ResourceExistsError, C.INVALID_INPUT),
    (409, "LeaseIdMissing", azure_errors.ResourceExistsError, C.INVALID_INPUT),
    (413, "RequestBodyTooLarge", azure_errors.HttpResponseError, C.INVALID_INPUT),
    (403, "AuthenticationFailed", azure_errors.ClientAuthenticationError, C.PERMISSION_DENIED),
])
def test_upload_refused(upstream: HttpUpstream, status: int, code: str, azure_class: type[BaseException],
                        failure_class: C) -> None:
    headers = {"x-ms-error-code": code, "Content-Type": "application/xml"}
    exc = raised(_upload(upstream.scripted(status, _error(code), headers)))
    assert type(exc) is azure_class and exc.status_code == status
    result = check(exc, failure_class, False)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("call", CALLS)
def test_html_error_page(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]]) -> None:
    # a gateway's page, no storage code: the status alone decides
    exc = raised(call(upstream.scripted(502, "<html>Bad Gateway</html>", {"Content-Type": "text/html"})))
    assert isinstance(exc, azure_errors.HttpResponseError) and exc.status_code == 502
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize(("call", "where", "azure_class", "side_effect"), [
    *[pytest.param(call, where, azure_class, sent, id=f"{where}-{name}")
      for call, name in ((_download, "sync"), (_download_async, "async"))
      for where, azure_class, sent in (("refused", azure_errors.ServiceRequestError, False),
                                       ("unresolvable", azure_errors.ServiceRequestError, False),
                                       ("stall", azure_errors.ServiceResponseError, True))],
    pytest.param(_download, "drop", azure_errors.ServiceResponseError, True, id="drop-sync"),
    # azure-core's aiohttp transport files aiohttp's ClientOSError (a reset after the request went out) under
    # ServiceRequestError, raised from it: the reset, not the class, says the request may have been acted on
    pytest.param(_download_async, "drop", azure_errors.ServiceRequestError, True, id="drop-async"),
])
def test_transport(upstream: HttpUpstream, call: Callable[..., Callable[[], Any]], where: str,
                   azure_class: type[BaseException], side_effect: bool) -> None:
    exc = raised(call(upstream.failing(where), SHORT))
    assert isinstance(exc, azure_class), repr(exc)
    check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)
