"""Vendor SDKs refusing a call before any request leaves, with a real service address on 127.0.0.1 configured.

botocore signs every request, so without credentials it raises ``NoCredentialsError`` (half a key pair:
``PartialCredentialsError``) before it connects: the tool has no credential to present, as a 401 without one
would say (``permission_denied``); it validates the parameters against the service model first
(``ParamValidationError``: the tool built them wrongly) and needs a region (``NoRegionError``: configuration).
Stripe's client checks its key the same way (``AuthenticationError``, "No API key provided"). Nothing was sent in
any case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import botocore.config
import botocore.exceptions
import pytest
import stripe

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HttpUpstream

NO_RETRIES = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"})


@pytest.fixture
def no_aws_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[None]:
    # No credentials anywhere botocore looks: the environment, the shared files, the instance metadata service.
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION",
                 "AWS_DEFAULT_REGION", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                 "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    yield


def test_aws_without_credentials(upstream: HttpUpstream, no_aws_config: None) -> None:
    s3 = boto3.client("s3", region_name="us-east-1", endpoint_url=upstream.url, config=NO_RETRIES)
    exc = raised(lambda: s3.get_object(Bucket="orders", Key="ord_1.json"))
    assert isinstance(exc, botocore.exceptions.NoCredentialsError)
    check(exc, C.PERMISSION_DENIED, False)


def test_aws_with_half_a_key_pair(upstream: HttpUpstream, no_aws_config: None,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    exc = raised(lambda: boto3.client("s3", region_name="us-east-1", endpoint_url=upstream.url, config=NO_RETRIES)
                 .get_object(Bucket="orders", Key="ord_1.json"))
    assert isinstance(exc, botocore.exceptions.PartialCredentialsError)
    check(exc, C.PERMISSION_DENIED, False)


@pytest.mark.parametrize("params", [
    pytest.param({"Bucket": "orders"}, id="missing-key"),
    pytest.param({"Bucket": "orders", "Key": "ord_1.json", "Range": 5}, id="wrong-type"),
    pytest.param({"Bucket": "orders", "Key": "ord_1.json", "Colour": "blue"}, id="unknown-parameter"),
])
def test_aws_parameters_refused_by_the_service_model(upstream: HttpUpstream, params: dict[str, Any]) -> None:
    s3 = boto3.client("s3", region_name="us-east-1", endpoint_url=upstream.url, aws_access_key_id="AKIDEXAMPLE",
                      aws_secret_access_key="secret", config=NO_RETRIES)
    exc = raised(lambda: s3.get_object(**params))
    assert isinstance(exc, botocore.exceptions.ParamValidationError)
    check(exc, C.UNKNOWN, False)


def test_aws_without_a_region(no_aws_config: None) -> None:
    exc = raised(lambda: boto3.client("sqs", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret"))
    assert isinstance(exc, botocore.exceptions.NoRegionError)
    check(exc, C.UNKNOWN, False)


def test_stripe_without_a_key(upstream: HttpUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stripe, "api_key", None)
    monkeypatch.setattr(stripe, "api_base", upstream.url)
    exc = raised(lambda: stripe.Customer.retrieve("cus_1"))
    assert isinstance(exc, stripe.AuthenticationError)
    check(exc, C.PERMISSION_DENIED, False)
