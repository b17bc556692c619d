"""The kubernetes client and the Docker SDK against a real HTTP server on 127.0.0.1 (a fake API
server / daemon port: every path answers one status).

kubernetes raises ApiException (and, since v30, a subclass per status) with ``status`` and the
response ``headers``; over urllib3 with ``retries = False`` a transport failure is urllib3's own.
docker raises APIError/NotFound from requests' HTTPError (``status_code`` via ``response``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import docker
import pytest
import requests
import urllib3
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closed_port


def _read_pod(base: str, timeout: float = 5) -> Callable[[], Any]:
    config = k8s.Configuration(host=base)
    config.retries = False
    api = k8s.CoreV1Api(k8s.ApiClient(config))
    return lambda: api.read_namespaced_pod("web", "default", _request_timeout=timeout)


def _k8s_status(status: int) -> str:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": status, "message": "no"})


class TestKubernetes:
    @pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), [
        (401, None, C.PERMISSION_DENIED, False, None),
        (403, None, C.PERMISSION_DENIED, False, None),  # RBAC forbids the verb
        (404, None, C.NOT_FOUND, False, None),
        (409, None, C.INVALID_INPUT, False, None),  # AlreadyExists / resourceVersion conflict
        (422, None, C.INVALID_INPUT, False, None),  # Invalid: the object fails validation
        (429, "2", C.RATE_LIMITED, False, 2.0),  # API priority and fairness
        (500, None, C.UPSTREAM_UNAVAILABLE, True, None),
        (503, None, C.UPSTREAM_UNAVAILABLE, False, None),
        (504, None, C.UPSTREAM_UNAVAILABLE, True, None),
    ])
    def test_status(self, upstream: HttpUpstream, status: int, retry_after: str | None, failure_class: C,
                    side_effect: bool, wait: float | None) -> None:
        headers = {"Retry-After": retry_after} if retry_after else {}
        exc = raised(_read_pod(upstream.scripted(status, _k8s_status(status), headers)))
        assert isinstance(exc, ApiException) and exc.status == status
        assert check(exc, failure_class, side_effect).retry_after == wait

    @pytest.mark.parametrize(("where", "kind", "side_effect"), [
        ("refused", urllib3.exceptions.NewConnectionError, False),
        ("drop", urllib3.exceptions.ProtocolError, True),
        ("stall", urllib3.exceptions.ReadTimeoutError, True),
    ])
    def test_connection(self, upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
        base = upstream.failing(where)
        exc = raised(_read_pod(base, timeout=0.3))
        assert isinstance(exc, kind)
        check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)


def _get_container(base: str, timeout: float = 5) -> Callable[[], Any]:
    client = docker.DockerClient(base_url=base.replace("http://", "tcp://"), version="1.44", timeout=timeout)
    return lambda: client.containers.get("web")


class TestDocker:
    @pytest.mark.parametrize(("status", "kind", "failure_class", "side_effect"), [
        (400, docker.errors.APIError, C.INVALID_INPUT, False),
        (404, docker.errors.NotFound, C.NOT_FOUND, False),  # no such container
        (409, docker.errors.APIError, C.INVALID_INPUT, False),  # name in use, container not running
        (500, docker.errors.APIError, C.UPSTREAM_UNAVAILABLE, True),
    ])
    def test_status(self, upstream: HttpUpstream, status: int, kind: type, failure_class: C,
                    side_effect: bool) -> None:
        exc = raised(_get_container(upstream.scripted(status, json.dumps({"message": "no such container: web"}))))
        assert type(exc) is kind and exc.status_code == status
        result = check(exc, failure_class, side_effect)
        assert result.upstream is not None and result.upstream.address == f"{HOST}:{upstream.port}"

    @pytest.mark.parametrize(("where", "kind", "side_effect"), [
        ("refused", requests.ConnectionError, False),
        ("drop", requests.ConnectionError, True),
        ("stall", requests.ReadTimeout, True),
    ])
    def test_connection(self, upstream: HttpUpstream, where: str, kind: type, side_effect: bool) -> None:
        base = upstream.failing(where)
        exc = raised(_get_container(base, timeout=0.3))
        assert isinstance(exc, kind)
        check(exc, C.UPSTREAM_UNAVAILABLE, side_effect)

    def test_daemon_unreachable_at_client_creation(self) -> None:
        # Without a pinned API version the client asks the daemon for it: DockerException over requests'.
        exc = raised(lambda: docker.DockerClient(base_url=f"tcp://{HOST}:{closed_port()}", timeout=5))
        assert type(exc) is docker.errors.DockerException
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
