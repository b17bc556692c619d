"""zeep, the SOAP client, calling a service on 127.0.0.1 that answers SOAP faults as SOAP services send them.

The WSDL (document/literal, one operation) has a SOAP 1.1 and a SOAP 1.2 binding; the service's address is the
local HTTP server, whose every answer is a real fault envelope with the status the SOAP HTTP bindings give it
(SOAP 1.1 §6.2: 500 for every fault; SOAP 1.2 Part 2 §7.5.1.2: 400 for a ``Sender`` fault, 500 otherwise).

zeep raises ``Fault`` with the fault code as the envelope spells it (``soap:Client``, ``env:Sender``) and the SOAP 1.2
subcodes as qualified names; nothing else says what went wrong. The code names a side:

- ``Client`` (1.1) / ``Sender`` (1.2): the message was wrong as sent (an invalid argument, like a 400): nothing done;
- ``Server`` / ``Receiver``: the service failed while processing it (like a 500): it may have acted;
- ``VersionMismatch``, ``MustUnderstand``, ``DataEncodingUnknown``: the tool's own envelope: a bug, not the caller's;
- a standard subcode or vendor code decides over the side: WS-Security's (OASIS WSS 1.1 §12: ``FailedAuthentication``,
  ``InvalidSecurityToken``) refuse the credential; a throttling code (``REQUEST_LIMIT_EXCEEDED``) is a rate limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
import zeep
import zeep.exceptions
import zeep.transports

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port

WSDL = """<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:tns="urn:orders"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:orders">
  <types>
    <xsd:schema targetNamespace="urn:orders" elementFormDefault="qualified">
      <xsd:element name="GetOrder"><xsd:complexType><xsd:sequence>
        <xsd:element name="id" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="GetOrderResponse"><xsd:complexType><xsd:sequence>
        <xsd:element name="status" type="xsd:string"/></xsd:sequence></xsd:complexType></xsd:element>
    </xsd:schema>
  </types>
  <message name="GetOrderIn"><part name="parameters" element="tns:GetOrder"/></message>
  <message name="GetOrderOut"><part name="parameters" element="tns:GetOrderResponse"/></message>
  <portType name="Orders">
    <operation name="GetOrder"><input message="tns:GetOrderIn"/><output message="tns:GetOrderOut"/></operation>
  </portType>
  <binding name="Orders11" type="tns:Orders">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="GetOrder"><soap:operation soapAction="urn:orders#GetOrder"/>
      <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output></operation>
  </binding>
  <binding name="Orders12" type="tns:Orders">
    <soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="GetOrder"><soap12:operation soapAction="urn:orders#GetOrder"/>
      <input><soap12:body use="literal"/></input><output><soap12:body use="literal"/></output></operation>
  </binding>
  <service name="OrderService">
    <port name="Orders11" binding="tns:Orders11"><soap:address location="http://127.0.0.1:9/orders"/></port>
    <port name="Orders12" binding="tns:Orders12"><soap12:address location="http://127.0.0.1:9/orders"/></port>
  </service>
</definitions>
"""

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"


def fault11(code: str, text: str = "the order service said no", ns: str = "") -> str:
    return (f'<soap:Envelope xmlns:soap="{SOAP11}"{ns}><soap:Body><soap:Fault><faultcode>{code}</faultcode>'
            f"<faultstring>{text}</faultstring></soap:Fault></soap:Body></soap:Envelope>")


def fault12(code: str, subcode: str | None = None, ns: str = "") -> str:
    sub = f"<env:Subcode><env:Value>{subcode}</env:Value></env:Subcode>" if subcode else ""
    return (f'<env:Envelope xmlns:env="{SOAP12}"{ns}><env:Body><env:Fault><env:Code><env:Value>{code}</env:Value>{sub}'
            '</env:Code><env:Reason><env:Text xml:lang="en">the order service said no</env:Text></env:Reason>'
            "</env:Fault></env:Body></env:Envelope>")


@pytest.fixture(scope="module")
def wsdl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("soap") / "orders.wsdl"
    path.write_text(WSDL)
    yield str(path)


def _call(wsdl: str, binding: str, address: str, timeout: float = 5) -> Callable[[], Any]:
    client = zeep.Client(wsdl, transport=zeep.transports.Transport(timeout=5, operation_timeout=timeout))
    service = client.create_service(f"{{urn:orders}}{binding}", address)
    return lambda: service.GetOrder(id="A-17")


XML = {"Content-Type": "text/xml; charset=utf-8"}
XML12 = {"Content-Type": "application/soap+xml; charset=utf-8"}


@pytest.mark.parametrize(("code", "ns", "failure_class", "side_effect"), [
    ("soap:Client", "", C.INVALID_INPUT, False),
    ("soap:Client.InvalidOrderId", "", C.INVALID_INPUT, False),  # SOAP 1.1 §4.4.1: a more specific Client fault
    ("soap:Server", "", C.UPSTREAM_UNAVAILABLE, True),
    ("soap:VersionMismatch", "", C.UNKNOWN, False),
    ("soap:MustUnderstand", "", C.UNKNOWN, False),
    ("wsse:FailedAuthentication", f' xmlns:wsse="{WSSE}"', C.PERMISSION_DENIED, False),
    ("wsse:InvalidSecurityToken", f' xmlns:wsse="{WSSE}"', C.PERMISSION_DENIED, False),
    # a vendor's own fault codes (Salesforce's SOAP API, urn:fault.partner.soap.sforce.com)
    ("sf:REQUEST_LIMIT_EXCEEDED", ' xmlns:sf="urn:fault.partner.soap.sforce.com"', C.RATE_LIMITED, False),
    ("sf:INVALID_SESSION_ID", ' xmlns:sf="urn:fault.partner.soap.sforce.com"', C.PERMISSION_DENIED, False),
])
def test_soap11_fault(upstream: HttpUpstream, wsdl: str, code: str, ns: str, failure_class: C,
                      side_effect: bool) -> None:
    exc = raised(_call(wsdl, "Orders11", upstream.scripted(500, fault11(code, ns=ns), XML)))
    assert isinstance(exc, zeep.exceptions.Fault) and exc.code == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == (
        "soap", code.partition(":")[2])


@pytest.mark.parametrize(("status", "code", "subcode", "ns", "failure_class", "side_effect"), [
    (400, "env:Sender", None, "", C.INVALID_INPUT, False),
    (500, "env:Receiver", None, "", C.UPSTREAM_UNAVAILABLE, True),
    (500, "env:VersionMismatch", None, "", C.UNKNOWN, False),
    (500, "env:DataEncodingUnknown", None, "", C.UNKNOWN, False),
    (400, "env:Sender", "wsse:FailedAuthentication", f' xmlns:wsse="{WSSE}"', C.PERMISSION_DENIED, False),
    (400, "env:Sender", "wsse:SecurityTokenUnavailable", f' xmlns:wsse="{WSSE}"', C.PERMISSION_DENIED, False),
    # WS-Addressing 1.0 SOAP Binding §6.4: the endpoint cannot process the message now (a Receiver fault)
    (500, "env:Receiver", "wsa:EndpointUnavailable", ' xmlns:wsa="http://www.w3.org/2005/08/addressing"',
     C.UPSTREAM_UNAVAILABLE, False),
    # ... and the action the tool called is not one the endpoint has: the tool's bug
    (400, "env:Sender", "wsa:ActionNotSupported", ' xmlns:wsa="http://www.w3.org/2005/08/addressing"',
     C.UNKNOWN, False),
])
def test_soap12_fault(upstream: HttpUpstream, wsdl: str, status: int, code: str, subcode: str | None, ns: str,
                      failure_class: C, side_effect: bool) -> None:
    exc = raised(_call(wsdl, "Orders12", upstream.scripted(status, fault12(code, subcode, ns), XML12)))
    assert isinstance(exc, zeep.exceptions.Fault) and exc.code == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.system == "soap"
    assert result.upstream.status == (subcode or code).partition(":")[2]


@pytest.mark.parametrize(("status", "failure_class", "side_effect"), [
    (401, C.PERMISSION_DENIED, False),
    (404, C.NOT_FOUND, False),
    (503, C.UPSTREAM_UNAVAILABLE, False),
])
def test_http_error_without_an_envelope(upstream: HttpUpstream, wsdl: str, status: int, failure_class: C,
                                        side_effect: bool) -> None:
    """A gateway's HTML error page in front of the service (nginx's, not well-formed XML): zeep's TransportError
    keeps the status."""
    page = (f"<html>\r\n<head><title>{status}</title></head>\r\n<body>\r\n<center><h1>{status}</h1></center>\r\n"
            "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
    exc = raised(_call(wsdl, "Orders11", upstream.scripted(status, page, {"Content-Type": "text/html"})))
    assert isinstance(exc, zeep.exceptions.TransportError) and exc.status_code == status
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


def test_a_200_that_is_no_soap(upstream: HttpUpstream, wsdl: str) -> None:
    """A maintenance page with a 200: the service answered, zeep cannot read it, nothing says why."""
    page = "<html><body><h1>Down for maintenance</h1></body></html>"
    exc = raised(_call(wsdl, "Orders11", upstream.scripted(200, page, {"Content-Type": "text/html"})))
    assert isinstance(exc, zeep.exceptions.Error)
    check(exc, C.UNKNOWN, None)


def test_service_refused(wsdl: str) -> None:
    exc = raised(_call(wsdl, "Orders11", f"http://{HOST}:{closed_port()}/orders"))
    assert isinstance(exc, requests.ConnectionError)
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_operation_timeout(upstream: HttpUpstream, wsdl: str) -> None:
    exc = raised(_call(wsdl, "Orders11", f"{upstream.url}/stall/orders", timeout=0.3))
    assert isinstance(exc, requests.ReadTimeout)
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


def test_wsdl_not_there(upstream: HttpUpstream) -> None:
    """Loading the service description from a URL that answers 404: the tool's configuration names a service
    description that is not there."""
    exc = raised(lambda: zeep.Client(f"{upstream.url}/status/404", transport=zeep.transports.Transport(timeout=5)))
    assert isinstance(exc, requests.HTTPError)
    check(exc, C.NOT_FOUND, False)

