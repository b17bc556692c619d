"""The Docker SDK (docker-py) over a Unix socket, the way a container-managing MCP server reaches
``/var/run/docker.sock``: a real HTTP server on a socket file in a temporary directory, answering as dockerd does (its
Engine API error body ``{"message": ...}`` and status), one that reads the request and never answers, and one that
closes the connection after reading it.

docker-py raises ``NotFound``/``ImageNotFound``/``APIError`` from requests' ``HTTPError`` (the status via the
response): the status decides as RFC 9110 §15 says. 404 (no such image, container, network): ``not_found``. 409 (a
name in use, a container not running, a running one removed): a conflict with the object's state, ``invalid_input``.
500 (the daemon failed: a port already allocated, a storage driver error): ``upstream_unavailable``, it may have acted.
No answer in time (requests' ``ReadTimeout``): sent, maybe acted on. The session dropped after the request was read:
the same. (The socket file missing or nobody listening: test_unix_sockets.)
"""

from __future__ import annotations

import json
import re
import shutil
import socketserver
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

docker = pytest.importorskip("docker")

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402

API = "1.45"
# (method, path under /v1.45, status, dockerd's message): what a daemon answers each refused call with
ANSWERS: list[tuple[str, str, int, str]] = [
    ("GET", r"/images/ghost(?::latest)?/json", 404, "No such image: ghost:latest"),
    ("GET", r"/containers/ghost/json", 404, "No such container: ghost"),
    ("GET", r"/networks/ghost", 404, "network ghost not found"),
    ("POST", r"/containers/create\?name=web", 409, 'Conflict. The container name "/web" is already in use by container '
     '"4f9e0c7b2a11". You have to remove (or rename) that container to be able to reuse that name.'),
    ("POST", r"/containers/create\?name=api", 404, "No such image: registry.local/api:2026.1"),
    ("POST", r"/containers/idle/kill", 409, "Container idle is not running"),
    ("DELETE", r"/containers/busy(?:\?.*)?", 409, "You cannot remove a running container busy. Stop the container "
     "before attempting removal or force remove"),
    ("POST", r"/containers/web/start", 500, "driver failed programming external connectivity on endpoint web: Bind "
     "for 0.0.0.0:8080 failed: port is already allocated"),
]


class _Daemon(BaseHTTPRequestHandler):
    mode = "answer"

    def log_message(self, *args: Any) -> None:
        pass

    def address_string(self) -> str:  # a Unix socket's peer has no host
        return "unix"

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.server.mode == "stall":  # type: ignore[attr-defined]
            time.sleep(3)
            return
        if self.server.mode == "drop":  # type: ignore[attr-defined]
            self.close_connection = True
            return
        path = self.path.removeprefix(f"/v{API}")
        for method, pattern, status, message in ANSWERS:
            if method == self.command and re.fullmatch(pattern, path):
                break
        else:
            status, message = 404, f"page not found: {self.command} {path}"
        body = json.dumps({"message": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Api-Version", API)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _handle


@pytest.fixture
def daemon(request: pytest.FixtureRequest) -> Iterator[str]:
    directory = Path(tempfile.mkdtemp(prefix="errscope-docker-"))  # sun_path holds 108 bytes: a short path
    server = socketserver.ThreadingUnixStreamServer(str(directory / "docker.sock"), _Daemon)
    server.daemon_threads = True
    server.mode = getattr(request, "param", "answer")  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"unix://{directory / 'docker.sock'}"
    server.shutdown()
    server.server_close()
    shutil.rmtree(directory, ignore_errors=True)


def _client(base_url: str, timeout: float = 5) -> Any:
    return docker.DockerClient(base_url=base_url, version=API, timeout=timeout)


CALLS: dict[str, Callable[[Any], Any]] = {
    "image_missing": lambda client: client.images.get("ghost"),
    "container_missing": lambda client: client.containers.get("ghost"),
    "network_missing": lambda client: client.networks.get("ghost"),
    "name_in_use": lambda client: client.containers.create("nginx:1.27", name="web"),
    "image_not_pulled": lambda client: client.containers.create("registry.local/api:2026.1", name="api"),
    "kill_not_running": lambda client: client.api.kill("idle"),
    "remove_running": lambda client: client.api.remove_container("busy"),
    "port_already_allocated": lambda client: client.api.start("web"),
}


@pytest.mark.parametrize(("call", "exc_name", "status", "failure_class", "side_effect"), [
    ("image_missing", "ImageNotFound", 404, C.NOT_FOUND, False),
    ("container_missing", "NotFound", 404, C.NOT_FOUND, False),
    ("network_missing", "NotFound", 404, C.NOT_FOUND, False),
    ("name_in_use", "APIError", 409, C.INVALID_INPUT, False),
    ("image_not_pulled", "ImageNotFound", 404, C.NOT_FOUND, False),
    ("kill_not_running", "APIError", 409, C.INVALID_INPUT, False),
    ("remove_running", "APIError", 409, C.INVALID_INPUT, False),
    ("port_already_allocated", "APIError", 500, C.UPSTREAM_UNAVAILABLE, True),
])
def test_daemon_refuses(daemon: str, call: str, exc_name: str, status: int, failure_class: C,
                        side_effect: bool) -> None:
    exc = raised(lambda: CALLS[call](_client(daemon)))
    assert type(exc).__name__ == exc_name and exc.status_code == status, repr(exc)
    result = check(exc, failure_class, side_effect)
    assert result.upstream is not None and result.upstream.status == str(status)


@pytest.mark.parametrize("daemon", ["stall"], indirect=True)
def test_daemon_never_answers(daemon: str) -> None:
    exc = raised(lambda: _client(daemon, timeout=0.5).containers.get("web"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("daemon", ["drop"], indirect=True)
def test_daemon_drops_the_request(daemon: str) -> None:
    exc = raised(lambda: _client(daemon).containers.get("web"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)
