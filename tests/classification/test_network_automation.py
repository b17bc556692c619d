"""Network-automation clients a tool drives over SSH, against real sockets and asyncssh's SSH server on 127.0.0.1:
netmiko (device CLIs, over paramiko) and ncclient (NETCONF, over paramiko).

- netmiko raises ``NetmikoTimeoutException`` for every failure to set up the session (a refused port, a server that
  closes or never sends its banner) with a help text, chained to paramiko's or the socket's error, and
  ``NetmikoAuthenticationException`` for a refused login.
- ncclient raises ``SSHError`` ("Could not open socket to ...", "Negotiation failed: ...") over paramiko's error, and
  ``AuthenticationError``; a server without the ``netconf`` subsystem lets paramiko's ``ChannelException`` out.
All of these happen inside the library's connecting call, before any command or RPC is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.ssh_server import asyncssh_server
from tests.classification.upstreams import HOST, closed_port, closing_listener, silent_listener


def _netmiko(port: int, password: str = "secret") -> Callable[[], Any]:
    netmiko = pytest.importorskip("netmiko")
    return lambda: netmiko.ConnectHandler(device_type="linux", host=HOST, port=port, username="admin",
                                          password=password, conn_timeout=1, auth_timeout=2, banner_timeout=1,
                                          use_keys=False, allow_agent=False)


def _ncclient(port: int, password: str = "secret") -> Callable[[], Any]:
    manager = pytest.importorskip("ncclient.manager")
    return lambda: manager.connect(host=HOST, port=port, username="admin", password=password, hostkey_verify=False,
                                   timeout=1, look_for_keys=False, allow_agent=False)


CALLS = {"netmiko": _netmiko, "ncclient": _ncclient}


@pytest.mark.parametrize("client", list(CALLS))
def test_refused(client: str) -> None:
    check(raised(CALLS[client](closed_port())), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", list(CALLS))
@pytest.mark.parametrize("read_first", [False, True])
def test_closed_before_the_banner(client: str, read_first: bool) -> None:
    with closing_listener(read_first=read_first) as port:
        exc = raised(CALLS[client](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", list(CALLS))
def test_no_banner(client: str) -> None:
    with silent_listener() as port:
        exc = raised(CALLS[client](port))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("client", list(CALLS))
def test_login_refused(client: str) -> None:
    with asyncssh_server("right") as port:
        exc = raised(CALLS[client](port, "wrong"))
    check(exc, C.PERMISSION_DENIED, False)


def test_netconf_subsystem_not_served() -> None:
    """An SSH server that logs the tool in but serves no NETCONF: the channel ncclient opens is refused."""
    with asyncssh_server("right") as port:
        exc = raised(_ncclient(port, "right"))
    assert type(exc).__name__ == "ChannelException"
    check(exc, C.UPSTREAM_UNAVAILABLE, False)
