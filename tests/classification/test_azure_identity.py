"""azure-identity's credentials against real sockets on 127.0.0.1: the App Service managed-identity endpoint
(``IDENTITY_ENDPOINT``/``IDENTITY_HEADER``, plain HTTP) served by a local HTTP server, a dead address, and a
credential with nothing configured.

azure-identity raises ``CredentialUnavailableError`` ("required data or state is unavailable": it did not get a
token, and no protected service was called), for an environment with no credential configured and for any refusal of
the App Service endpoint (the status is not kept, only folded into its text); a transport failure is azure-core's
``ServiceRequestError``.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("azure.identity")

from azure.core.exceptions import ServiceRequestError  # noqa: E402
from azure.identity import CredentialUnavailableError, EnvironmentCredential, ManagedIdentityCredential  # noqa: E402

from errscope import FailureClass as C  # noqa: E402
from tests.classification.conftest import check, raised  # noqa: E402
from tests.classification.upstreams import HOST, answering, closed_port  # noqa: E402

SCOPE = "https://storage.azure.com/.default"


@pytest.fixture
def app_service(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("AZURE_CLIENT_ID", "MSI_ENDPOINT", "MSI_SECRET", "IDENTITY_SERVER_THUMBPRINT", "IMDS_ENDPOINT",
                 "AZURE_POD_IDENTITY_AUTHORITY_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("IDENTITY_HEADER", "the-identity-header")
    return monkeypatch


@pytest.mark.parametrize(("status", "body"), [
    (400, {"statusCode": 400, "message": "Unable to load the proper Managed Identity."}),
    (404, {"statusCode": 404, "message": "No managed identity found for the client id."}),
])
def test_identity_endpoint_refuses(app_service: pytest.MonkeyPatch, status: int, body: object) -> None:
    with answering(status, json.dumps(body)) as port:
        app_service.setenv("IDENTITY_ENDPOINT", f"http://{HOST}:{port}/msi/token")
        exc = raised(lambda: ManagedIdentityCredential().get_token(SCOPE))
    assert type(exc) is CredentialUnavailableError
    check(exc, C.PERMISSION_DENIED, False)


def test_identity_endpoint_refused(app_service: pytest.MonkeyPatch) -> None:
    app_service.setenv("IDENTITY_ENDPOINT", f"http://{HOST}:{closed_port()}/msi/token")
    exc = raised(lambda: ManagedIdentityCredential().get_token(SCOPE))
    assert type(exc) is ServiceRequestError
    check(exc, C.UPSTREAM_UNAVAILABLE, False)


def test_nothing_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH",
                 "AZURE_USERNAME", "AZURE_PASSWORD", "AZURE_FEDERATED_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    exc = raised(lambda: EnvironmentCredential().get_token(SCOPE))
    assert type(exc) is CredentialUnavailableError
    check(exc, C.PERMISSION_DENIED, False)
