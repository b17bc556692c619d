"""simple-salesforce (requests underneath) against a real HTTP server on 127.0.0.1 that answers as Salesforce's REST
API does: a JSON list of ``{"message", "errorCode"}`` with the status
(https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm).

simple-salesforce raises one class per status (``SalesforceMalformedRequest`` 400, ``SalesforceExpiredSession`` 401,
``SalesforceRefusedRequest`` 403, ``SalesforceResourceNotFound`` 404, ``SalesforceMoreThanOneRecord`` 300,
``SalesforceGeneralError`` else), each keeping ``status`` and the parsed body as ``content``; a dead peer is
requests' own exception. It always builds ``https://`` URLs from the instance: the session's adapter sends them
to the plain-HTTP loopback server instead (the only thing not real here: TLS).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import requests
from requests.adapters import HTTPAdapter
from simple_salesforce import Salesforce
from simple_salesforce import exceptions as sf

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, answering

SHORT = 0.5


class _PlainHttp(HTTPAdapter):
    """Sends simple-salesforce's ``https://`` requests over plain HTTP (the loopback server has no TLS)."""

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        request.url = "http://" + str(request.url).removeprefix("https://")
        return super().send(request, **kwargs)


def _salesforce(base: str) -> Salesforce:
    session = requests.Session()
    session.mount("https://", _PlainHttp(max_retries=0))
    host, _, path = base.removeprefix("http://").partition("/")
    client = Salesforce(instance_url=f"https://{host}", session_id="00Dxx!session", session=session)
    if path:  # the failing upstream's prefix (/drop, /stall): every path under it fails one way
        client.base_url = client.base_url.replace(f"https://{host}/", f"https://{host}/{path}/")
    return client


def _query(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = _salesforce(base)
    return lambda: client.query("SELECT Id FROM Account WHERE Name = 'Acme'", timeout=timeout)


def _get(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = _salesforce(base)
    return lambda: client.Account.get("001000000000001")


def _create(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = _salesforce(base)
    return lambda: client.Contact.create({"LastName": "Smith", "Email": "smith@example.com"})


CALLS = [pytest.param(_query, id="query"), pytest.param(_get, id="get"), pytest.param(_create, id="create")]


def _errors(code: str) -> str:
    return json.dumps([{"message": "the upstream said no", "errorCode": code}])


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("status", "code", "kind", "failure_class", "side_effect"), [
    (400, "MALFORMED_QUERY", sf.SalesforceMalformedRequest, C.INVALID_INPUT, False),
    (400, "INVALID_FIELD", sf.SalesforceMalformedRequest, C.INVALID_INPUT, False),
    (400, "DUPLICATE_VALUE", sf.SalesforceMalformedRequest, C.INVALID_INPUT, False),
    (401, "INVALID_SESSION_ID", sf.SalesforceExpiredSession, C.PERMISSION_DENIED, False),
    (403, "INSUFFICIENT_ACCESS_OR_READONLY", sf.SalesforceRefusedRequest, C.PERMISSION_DENIED, False),
    # the org's API request limit (a rolling 24 hours) answers 403 with its own code
    (403, "REQUEST_LIMIT_EXCEEDED", sf.SalesforceRefusedRequest, C.RATE_LIMITED, False),
    (404, "NOT_FOUND", sf.SalesforceResourceNotFound, C.NOT_FOUND, False),
    (500, "UNKNOWN_EXCEPTION", sf.SalesforceGeneralError, C.UPSTREAM_UNAVAILABLE, True),
    (503, "SERVER_UNAVAILABLE", sf.SalesforceGeneralError, C.UPSTREAM_UNAVAILABLE, False),
])
def test_refused(call: Callable[..., Callable[[], Any]], status: int, code: str, kind: type[Exception],
                 failure_class: C, side_effect: bool) -> None:
    with answering(status, _errors(code), {"Content-Type": "application/json"}) as port:
        exc = raised(call(f"http://{HOST}:{port}"))
    assert type(exc) is kind and exc.status == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None


def test_more_than_one_record() -> None:
    # a get by an external id that matches several records: 300 Multiple Choices with their URLs
    body = json.dumps(["/services/data/v59.0/sobjects/Account/001A", "/services/data/v59.0/sobjects/Account/001B"])
    with answering(300, body, {"Content-Type": "application/json"}) as port:
        client = _salesforce(f"http://{HOST}:{port}")
        exc = raised(lambda: client.Account.get_by_custom_id("External_Id__c", "acme"))
    assert isinstance(exc, sf.SalesforceMoreThanOneRecord)
    check(exc, C.INVALID_INPUT, False)


@pytest.mark.parametrize(("where", "side_effect"), [("refused", False), ("unresolvable", False), ("drop", True),
                                                    ("stall", True)])
def test_transport(upstream: HttpUpstream, where: str, side_effect: bool) -> None:
    check(raised(_query(upstream.failing(where), SHORT)), C.UPSTREAM_UNAVAILABLE, side_effect)
