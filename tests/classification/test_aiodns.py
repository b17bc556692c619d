"""aiodns (c-ares; aiohttp's ``AsyncResolver``) against a real UDP DNS responder on 127.0.0.1, and against a port
nobody answers on.

aiodns raises one ``DNSError`` whose ``args[0]`` is c-ares' status code (ares.h: ``ARES_ENOTFOUND`` 4 is the
NXDOMAIN answer, ``ARES_ESERVFAIL`` 3, ``ARES_ETIMEOUT`` 12, ``ARES_ECONNREFUSED`` 11 the ICMP port unreachable).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

aiodns = pytest.importorskip("aiodns")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, closed_port, dns_responder  # noqa: E402


@pytest.fixture(scope="module")
def dns_port() -> Iterator[int]:
    with dns_responder() as port:
        yield port


async def _query(port: int, name: str) -> object:
    resolver = aiodns.DNSResolver(nameservers=[f"{HOST}:{port}"], timeout=0.5, tries=1)
    return await resolver.query_dns(f"{name}.corp.test", "A")


def test_answers(dns_port: int) -> None:
    assert asyncio.run(_query(dns_port, "api")) is not None  # the responder itself works


@pytest.mark.parametrize(("name", "code", "failure_class", "side_effect"), [
    ("missing", 4, C.NOT_FOUND, False),  # ARES_ENOTFOUND
    ("empty", 1, C.NOT_FOUND, False),  # ARES_ENODATA
    ("broken", 3, C.UPSTREAM_UNAVAILABLE, None),  # ARES_ESERVFAIL, as dnspython's NoNameservers
    ("refusing", 6, C.UPSTREAM_UNAVAILABLE, None),  # ARES_EREFUSED
    ("garbage", 10, C.UPSTREAM_UNAVAILABLE, True),  # ARES_EBADRESP
    ("silent", 12, C.UPSTREAM_UNAVAILABLE, True),  # ARES_ETIMEOUT
])
def test_answer(dns_port: int, name: str, code: int, failure_class: C, side_effect: bool | None) -> None:
    exc = raised(lambda: _query(dns_port, name))
    assert type(exc) is aiodns.error.DNSError and exc.args[0] == code
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.system == "dns" and result.upstream.status.startswith("ARES_E")


def test_name_that_is_no_domain_name(dns_port: int) -> None:
    exc = raised(lambda: _query(dns_port, "a..b"))  # an empty label: c-ares refuses it before sending
    assert type(exc) is aiodns.error.DNSError and exc.args[0] == 8  # ARES_EBADNAME
    check(exc, C.INVALID_INPUT, False)


def test_nobody_listening() -> None:
    exc = raised(lambda: _query(closed_port(), "api"))
    assert type(exc) is aiodns.error.DNSError and exc.args[0] == 11  # ARES_ECONNREFUSED
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
