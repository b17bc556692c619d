"""boto3 against a real AWS API emulator on 127.0.0.1: moto's server (``ThreadedMotoServer``), whose services
decide the error themselves from the state the test built (a key that is not there, a condition that fails, a
queue that was deleted, a bucket that is not empty, an IAM user without the permission). test_aws.py scripts
the error bodies moto cannot produce (throttling); here each is the service's own answer to a real request,
in its own protocol: S3's REST-XML (a HEAD without a body), DynamoDB's, SQS's and Secrets Manager's JSON (SQS
keeps its old query-protocol code, ``AWS.SimpleQueueService.NonExistentQueue``). botocore's retries are off, so the first failure is the one raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from moto import settings as moto_settings
from moto.server import ThreadedMotoServer

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST

KEYS = {"aws_access_key_id": "AKIDMOTOTEST", "aws_secret_access_key": "moto-secret"}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address=HOST, port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    _seed(url)
    yield url
    server.stop()


def _client(service: str, endpoint: str, **keys: str) -> Any:
    config = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=5,
                    s3={"addressing_style": "path"})
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1", config=config, **(keys or KEYS))


def _seed(endpoint: str) -> None:
    s3 = _client("s3", endpoint)
    s3.create_bucket(Bucket="invoices")
    s3.put_object(Bucket="invoices", Key="inv-1.pdf", Body=b"%PDF-1.7")
    dynamodb = _client("dynamodb", endpoint)
    dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    dynamodb.put_item(TableName="orders", Item={"id": {"S": "o1"}, "total": {"N": "10"}})
    sqs = _client("sqs", endpoint)
    gone = sqs.create_queue(QueueName="gone")["QueueUrl"]
    sqs.delete_queue(QueueUrl=gone)
    sqs.create_queue(QueueName="jobs")


def _dynamodb_put_if_absent(dynamodb: Any) -> Any:
    return dynamodb.put_item(TableName="orders", Item={"id": {"S": "o1"}},
                             ConditionExpression="attribute_not_exists(id)")


def _dynamodb_transaction(dynamodb: Any) -> Any:
    return dynamodb.transact_write_items(TransactItems=[{"Put": {
        "TableName": "orders", "Item": {"id": {"S": "o1"}}, "ConditionExpression": "attribute_not_exists(id)"}}])


CASES = [
    # (service, call, the service's error code, class)
    ("s3", lambda s3: s3.get_object(Bucket="invoices", Key="inv-404.pdf"), "NoSuchKey", C.NOT_FOUND),
    ("s3", lambda s3: s3.get_object(Bucket="receipts", Key="r-1.pdf"), "NoSuchBucket", C.NOT_FOUND),
    ("s3", lambda s3: s3.head_object(Bucket="invoices", Key="inv-404.pdf"), "404", C.NOT_FOUND),  # no body
    ("s3", lambda s3: s3.delete_bucket(Bucket="invoices"), "BucketNotEmpty", C.INVALID_INPUT),
    ("s3", lambda s3: s3.put_object(Bucket="invoices", Key="inv-1.pdf", Body=b"x", IfNoneMatch="*"),
     "PreconditionFailed", C.INVALID_INPUT),
    ("s3", lambda s3: s3.get_bucket_policy(Bucket="invoices"), "NoSuchBucketPolicy", C.NOT_FOUND),
    ("s3", lambda s3: s3.copy_object(Bucket="invoices", Key="copy.pdf",
                                     CopySource={"Bucket": "invoices", "Key": "inv-404.pdf"}), "NoSuchKey", C.NOT_FOUND),
    ("dynamodb", lambda db: db.get_item(TableName="customers", Key={"id": {"S": "c1"}}),
     "ResourceNotFoundException", C.NOT_FOUND),
    ("dynamodb", _dynamodb_put_if_absent, "ConditionalCheckFailedException", C.INVALID_INPUT),
    ("dynamodb", _dynamodb_transaction, "TransactionCanceledException", C.INVALID_INPUT),
    ("dynamodb", lambda db: db.put_item(TableName="orders", Item={"total": {"N": "1"}}), "ValidationException",
     C.INVALID_INPUT),
    ("dynamodb", lambda db: db.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST"),
     "ResourceInUseException", C.INVALID_INPUT),
    ("sqs", lambda sqs: sqs.get_queue_url(QueueName="gone"), None, C.NOT_FOUND),
    ("sqs", lambda sqs: sqs.receive_message(QueueUrl=sqs.get_queue_url(QueueName="jobs")["QueueUrl"],
                                            MaxNumberOfMessages=20), None, C.INVALID_INPUT),
    ("secretsmanager", lambda sm: sm.get_secret_value(SecretId="payments/api-key"), "ResourceNotFoundException",
     C.NOT_FOUND),
]


@pytest.mark.parametrize(("service", "call", "code", "failure_class"), [
    pytest.param(*case, id=f"{case[0]}-{index}-{case[2] or case[3].value}") for index, case in enumerate(CASES)])
def test_service_refuses(endpoint: str, service: str, call: Callable[[Any], Any], code: str | None,
                         failure_class: C) -> None:
    exc = raised(lambda: call(_client(service, endpoint)))
    assert isinstance(exc, ClientError)
    if code is not None:
        assert exc.response["Error"]["Code"] == code
    check(exc, failure_class, False)


class TestAuthentication:
    """moto checks the request's signature and IAM policies once told to (``INITIAL_NO_AUTH_ACTION_COUNT``)."""

    @pytest.fixture
    def enforced(self, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
        iam = _client("iam", endpoint)
        iam.create_user(UserName="reporting")
        iam.put_user_policy(UserName="reporting", PolicyName="s3-read", PolicyDocument=(
            '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject",'
            ' "Resource": "*"}]}'))
        key = iam.create_access_key(UserName="reporting")["AccessKey"]
        monkeypatch.setattr(moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        yield {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}
        monkeypatch.undo()
        iam.delete_access_key(UserName="reporting", AccessKeyId=key["AccessKeyId"])
        iam.delete_user_policy(UserName="reporting", PolicyName="s3-read")
        iam.delete_user(UserName="reporting")

    @pytest.mark.parametrize(("service", "call"), [
        pytest.param("s3", lambda s3: s3.get_object(Bucket="invoices", Key="inv-1.pdf"), id="s3"),
        pytest.param("dynamodb", lambda db: db.get_item(TableName="orders", Key={"id": {"S": "o1"}}),
                     id="dynamodb"),
        pytest.param("sqs", lambda sqs: sqs.list_queues(), id="sqs"),
    ])
    def test_unknown_access_key(self, endpoint: str, enforced: dict[str, str], service: str,
                                call: Callable[[Any], Any]) -> None:
        stranger = {"aws_access_key_id": "AKIDUNKNOWN0000", "aws_secret_access_key": "not-a-secret"}
        exc = raised(lambda: call(_client(service, endpoint, **stranger)))
        assert isinstance(exc, ClientError)
        check(exc, C.PERMISSION_DENIED, False)

    def test_wrong_secret(self, endpoint: str, enforced: dict[str, str]) -> None:
        forged = {**enforced, "aws_secret_access_key": "rotated-away"}
        exc = raised(lambda: _client("s3", endpoint, **forged).get_object(Bucket="invoices", Key="inv-1.pdf"))
        assert isinstance(exc, ClientError)
        check(exc, C.PERMISSION_DENIED, False)

    @pytest.mark.parametrize(("service", "call"), [
        pytest.param("s3", lambda s3: s3.delete_object(Bucket="invoices", Key="inv-1.pdf"), id="s3"),
        pytest.param("dynamodb", lambda db: db.get_item(TableName="orders", Key={"id": {"S": "o1"}}),
                     id="dynamodb"),
    ])
    def test_not_allowed_by_policy(self, endpoint: str, enforced: dict[str, str], service: str,
                                   call: Callable[[Any], Any]) -> None:
        exc = raised(lambda: call(_client(service, endpoint, **enforced)))
        assert isinstance(exc, ClientError)
        check(exc, C.PERMISSION_DENIED, False)
