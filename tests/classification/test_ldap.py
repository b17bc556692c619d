"""ldap3 against real failure modes on 127.0.0.1 (no LDAP server runs here): the socket cannot be
opened (refused, a name that does not resolve): LDAPSocketOpenError, nothing was sent.

(A peer that closes or never answers makes ldap3 2.9 fail in its BER decoder with a bare
``struct.error``: not an exception any rule can read, so not a case here.)
"""

from __future__ import annotations

import ldap3
import pytest
from ldap3.core.exceptions import LDAPSocketOpenError

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port


@pytest.mark.parametrize("where", ["refused", "unresolvable"])
def test_socket_cannot_open(where: str) -> None:
    host, port = (HOST, closed_port()) if where == "refused" else (UNRESOLVABLE, 389)
    server = ldap3.Server(host, port=port, connect_timeout=1)
    exc = raised(lambda: ldap3.Connection(server, "cn=tool,dc=example,dc=org", "secret", auto_bind=True))
    assert isinstance(exc, LDAPSocketOpenError)  # ldap3 subclasses it with the socket error's type on the fly
    result = check(exc, C.UPSTREAM_UNAVAILABLE, False)
    assert result.upstream is not None and result.upstream.system == "ldap"
