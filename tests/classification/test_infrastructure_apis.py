"""Infrastructure APIs a tool drives, through their Python clients against real sockets on 127.0.0.1: NetBox
(pynetbox), Proxmox VE (proxmoxer), Hetzner Cloud (hcloud), OpenStack (keystoneauth1's session, what openstacksdk
and every OpenStack client send through) and Linode (linode_api4), each over requests.

- pynetbox's ``RequestError`` (and ``AllocationError``, its 409 on a POST) keeps the requests ``Response`` as ``req``.
- proxmoxer's ``ResourceException`` keeps ``status_code`` and the reason, no headers. Its HTTPS backend builds an
  ``https://`` base URL: the tests point its resource at the plain-HTTP upstream (the TLS case uses it as built).
- hcloud's ``APIException`` keeps only the body's ``error.code`` (``"uniqueness_error"``) and ``message``, no status
  (https://docs.hetzner.cloud/#errors); the code decides.
- keystoneauth1 raises one ``HttpError`` class per status (``http_status``, ``response``, ``retry_after`` defaulting
  to 0), and its own ``ConnectFailure``/``ConnectTimeout``/``SSLError`` over requests' errors.
- linode_api4's ``ApiError`` keeps ``status`` and the response.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from errscope import FailureClass as C
from tests.classification.conftest import HTTP_STATUSES, check, raised
from tests.classification.upstreams import HOST, HttpUpstream, closing_listener, silent_listener

STATUSES = [*HTTP_STATUSES, (409, None, C.INVALID_INPUT, False, None), (422, None, C.INVALID_INPUT, False, None)]
# DRF's bodies (NetBox): {"detail": ...} for refusals, the fields' errors for a 400
DRF = {400: {"name": ["This field is required."]}, 401: {"detail": "Invalid token"},
       403: {"detail": "You do not have permission to perform this action."}, 404: {"detail": "Not found."},
       429: {"detail": "Request was throttled. Expected available in 7 seconds."}}


def _headers(retry_after: str | None) -> dict[str, str]:
    return {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}


def _netbox(url: str) -> Callable[[], Any]:
    pynetbox = pytest.importorskip("pynetbox")
    requests = pytest.importorskip("requests")

    class Timeout(requests.adapters.HTTPAdapter):  # pynetbox sends without a timeout: the session's adapter sets one
        def send(self, *args: Any, **kwargs: Any) -> Any:
            return super().send(*args, **{**kwargs, "timeout": 1})

    api = pynetbox.api(url, token="0123456789abcdef0123456789abcdef01234567")
    api.http_session = requests.Session()
    api.http_session.mount("http://", Timeout())
    api.http_session.mount("https://", Timeout())
    return lambda: api.dcim.devices.create(name="edge-01", role=1, device_type=1, site=1)


def _proxmox(url: str) -> Callable[[], Any]:
    proxmoxer = pytest.importorskip("proxmoxer")
    api = proxmoxer.ProxmoxAPI(HOST, user="root@pam", token_name="tools", token_value="secret", verify_ssl=False,
                               timeout=1)
    api._store["base_url"] = f"{url}/api2/json"  # the same path under the upstream's scheme, host and port
    return lambda: api.nodes("pve").qemu.post(vmid=100, name="web")


def _keystone(url: str) -> Callable[[], Any]:
    session = pytest.importorskip("keystoneauth1.session")
    return lambda: session.Session().get(f"{url}/v2.1/servers/17", timeout=1, connect_retries=0)


def _linode(url: str) -> Callable[[], Any]:
    linode_api4 = pytest.importorskip("linode_api4")
    client = linode_api4.LinodeClient("token", base_url=f"{url}/v4", retry=False)
    return lambda: client.linode.instance_create("g6-nanode-1", "us-east", image="linode/debian12",
                                                 root_pass="correct-Horse-battery-9")


def _hcloud(url: str) -> Callable[[], Any]:
    hcloud = pytest.importorskip("hcloud")
    client = hcloud.Client(token="x" * 64, api_endpoint=url, timeout=1)
    client._client._retry_max_retries = 0  # its own retries (rate limits, conflicts, timeouts) would only repeat
    return lambda: client.servers.get_by_id(17)


BODIES: dict[str, Callable[[int], str]] = {
    "netbox": lambda status: json.dumps(DRF.get(status, {"error": "upstream failed", "exception": "OperationalError"})),
    "proxmox": lambda status: json.dumps({"data": None, **({"errors": {"vmid": "invalid"}} if status == 400 else {})}),
    "keystone": lambda status: json.dumps({"itemNotFound" if status == 404 else "computeFault": {
        "message": "server 17 refused", "code": status}}),
    "linode": lambda status: json.dumps({"errors": [{"reason": "Linode refused the request"}]}),
}
CALLS = {"netbox": _netbox, "proxmox": _proxmox, "keystone": _keystone, "linode": _linode}
TYPES = {"netbox": "RequestError", "proxmox": "ResourceException", "linode": "ApiError"}
NO_HEADERS = {"proxmox"}  # ResourceException keeps the status and reason only


@pytest.mark.parametrize("api", list(CALLS))
@pytest.mark.parametrize(("status", "retry_after", "failure_class", "side_effect", "wait"), STATUSES)
def test_status(upstream: HttpUpstream, api: str, status: int, retry_after: str | None, failure_class: C,
                side_effect: bool, wait: float | None) -> None:
    exc = raised(CALLS[api](upstream.scripted(status, BODIES[api](status), _headers(retry_after))))
    if api == "netbox" and status == 409:
        assert type(exc).__name__ == "AllocationError"  # any 409 answering a POST
    else:
        assert type(exc).__name__ == TYPES.get(api, type(exc).__name__), repr(exc)
    result = check(exc, failure_class, side_effect)
    assert result.retry_after == (None if api in NO_HEADERS else wait)
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", str(status))


@pytest.mark.parametrize("api", [*CALLS, "hcloud"])
@pytest.mark.parametrize("where", ["refused", "unresolvable"])
def test_cannot_connect(upstream: HttpUpstream, api: str, where: str) -> None:
    call = _hcloud if api == "hcloud" else CALLS[api]
    check(raised(call(upstream.failing(where))), C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("api", ["netbox", "proxmox", "keystone", "hcloud"])  # linode_api4 sets no timeout
def test_no_answer(api: str) -> None:
    call = _hcloud if api == "hcloud" else CALLS[api]
    with silent_listener() as port:
        exc = raised(call(f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("api", [*CALLS, "hcloud"])
def test_closed_after_the_request(api: str) -> None:
    call = _hcloud if api == "hcloud" else CALLS[api]
    with closing_listener(read_first=True) as port:
        exc = raised(call(f"http://{HOST}:{port}"))
    check(exc, C.UPSTREAM_UNAVAILABLE, True)


@pytest.mark.parametrize("api", [*CALLS, "hcloud"])
def test_tls_to_a_plain_http_port(upstream: HttpUpstream, api: str) -> None:
    call = _hcloud if api == "hcloud" else CALLS[api]
    exc = raised(call(upstream.url.replace("http://", "https://")))
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize(("status", "code", "failure_class", "side_effect"), [
    # Hetzner Cloud's error codes (https://docs.hetzner.cloud/#errors), the status each comes with
    (400, "invalid_input", C.INVALID_INPUT, False),
    (401, "unauthorized", C.PERMISSION_DENIED, False),
    (403, "forbidden", C.PERMISSION_DENIED, False),
    (404, "not_found", C.NOT_FOUND, False),
    (409, "uniqueness_error", C.INVALID_INPUT, False),  # a name already taken
    (409, "conflict", C.INVALID_INPUT, False),  # the resource changed since the request began
    (429, "rate_limit_exceeded", C.RATE_LIMITED, False),
    (500, "server_error", C.UPSTREAM_UNAVAILABLE, True),
    (503, "unavailable", C.UPSTREAM_UNAVAILABLE, False),
    (503, "maintenance", C.UPSTREAM_UNAVAILABLE, False),
    (504, "timeout", C.UPSTREAM_UNAVAILABLE, True),
])
def test_hcloud_error_code(upstream: HttpUpstream, status: int, code: str, failure_class: C,
                           side_effect: bool) -> None:
    body = json.dumps({"error": {"code": code, "message": "server 17 refused", "details": {}}})
    exc = raised(_hcloud(upstream.scripted(status, body, _headers("7" if status in (429, 503) else None))))
    assert type(exc).__name__ == "APIException" and exc.code == code  # type: ignore[attr-defined]
    result = check(exc, failure_class, side_effect)
    assert result.retry_after is None  # APIException keeps no headers
    assert result.upstream is not None and (result.upstream.system, result.upstream.status) == ("http", code)


def test_hcloud_answer_that_is_no_json(upstream: HttpUpstream) -> None:
    """A proxy's HTML page: APIException keeps the status as its code and the reason as its message."""
    exc = raised(_hcloud(upstream.scripted(502, "<html>bad gateway</html>", {"Content-Type": "text/html"})))
    assert exc.code == 502  # type: ignore[attr-defined]
    result = check(exc, C.UPSTREAM_UNAVAILABLE, True)
    assert result.upstream is not None and result.upstream.status == "502"
