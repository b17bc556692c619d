"""A real SSH server for the corpus: asyncssh's, on its own event loop in a thread, on a free port of 127.0.0.1."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import asyncssh

from tests.classification.upstreams import HOST


class PasswordLogin(asyncssh.SSHServer):
    """Password logins only; ``password`` is the one that works (``None``: none does)."""

    password: str | None = None

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return self.password is not None and password == self.password


@contextmanager
def asyncssh_server(password: str | None, **options: Any) -> Iterator[int]:
    """Serve SSH (``options`` go to ``asyncssh.create_server``: algorithms, an ``sftp_factory``) and yield its port."""
    login = type("Login", (PasswordLogin,), {"password": password})
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def start() -> None:
        key = asyncssh.generate_private_key("ssh-ed25519")
        server = await asyncssh.create_server(login, HOST, 0, server_host_keys=[key], **options)
        state["server"], state["port"] = server, server.sockets[0].getsockname()[1]
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield int(state["port"])
    finally:
        loop.call_soon_threadsafe(state["server"].close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
