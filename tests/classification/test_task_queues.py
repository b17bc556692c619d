"""Task queues a tool hands work to, against a real ``redis-server`` as their broker (started for this module) or a
closed port: Celery (over kombu), kombu itself and RQ.

What a tool sees when it enqueues work: the broker down (kombu's ``OperationalError`` over redis-py's
``ConnectionError``: nothing was queued), a result that did not arrive in time (Celery's ``TimeoutError``: the task
was queued and may still run), and a job id the queue does not know (RQ's ``NoSuchJobError``, Celery's lookups).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import billiard.exceptions
import celery
import celery.exceptions
import kombu
import kombu.exceptions
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
import rq
import rq.exceptions
import rq.job

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.databases import redis_server
from tests.classification.upstreams import HOST, closed_port


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with redis_server() as server_port:
        admin = redis.Redis(host=HOST, port=server_port)
        # a user that may only read: its LPUSH (an enqueue) is refused with NOPERM
        admin.execute_command("ACL", "SETUSER", "reader", "on", ">corpus-pw", "~*", "&*", "-@all", "+@read",
                              "+ping", "+hello", "+client", "+info", "+select")
        yield server_port


def _celery(broker_port: int, backend_port: int | None = None) -> celery.Celery:
    backend = f"redis://{HOST}:{backend_port}/1" if backend_port else None
    app = celery.Celery("corpus", broker=f"redis://{HOST}:{broker_port}/0", backend=backend)
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 0
    app.conf.redis_socket_connect_timeout = 2
    return app


class TestCelery:
    def test_broker_down(self) -> None:
        # send_task with retry off: the producer cannot connect, no message was queued.
        app = _celery(closed_port())
        exc = raised(lambda: app.send_task("orders.refund", args=("ord_1",), retry=False))
        assert isinstance(exc, kombu.exceptions.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_result_not_ready_in_time(self, port: int) -> None:
        # The message is on the queue (no worker takes it here): waiting for its result times out, and the task
        # may still run.
        app = _celery(port, port)
        result = app.send_task("orders.refund", args=("ord_1",))
        exc = raised(lambda: result.get(timeout=0.3))
        app.close()
        assert isinstance(exc, celery.exceptions.TimeoutError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_result_backend_down(self, port: int) -> None:
        # The result backend cannot be reached to read the task's state: Celery's result consumer gives up
        # reconnecting with redis-py's ConnectionError, or (with redis-py before 6) a RuntimeError raised from it: the
        # refusal decides.
        app = _celery(port, backend_port=closed_port())
        app.conf.result_backend_transport_options = {
            "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0, "interval_max": 0}}
        exc = raised(lambda: app.AsyncResult("d7c1a1f2-0000-4000-8000-000000000001").get(timeout=1))
        app.close()
        refusal = exc.__cause__ if isinstance(exc, RuntimeError) else exc
        assert isinstance(refusal, redis.exceptions.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestKombu:
    def test_connection_refused(self) -> None:
        def run() -> None:
            with kombu.Connection(f"redis://{HOST}:{closed_port()}/0", connect_timeout=2) as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0)

        exc = raised(run)
        assert isinstance(exc, kombu.exceptions.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_publish_to_a_dead_broker(self) -> None:
        def run() -> None:
            with kombu.Connection(f"redis://{HOST}:{closed_port()}/0", connect_timeout=2) as conn:
                conn.Producer().publish({"order": "ord_1"}, routing_key="refunds", retry=False)

        exc = raised(run)
        assert isinstance(exc, kombu.exceptions.OperationalError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


class TestRq:
    def test_enqueue_with_redis_down(self) -> None:
        conn = redis.Redis(host=HOST, port=closed_port(), socket_connect_timeout=2, retry=Retry(NoBackoff(), 0))
        queue = rq.Queue("refunds", connection=conn)
        exc = raised(lambda: queue.enqueue("orders.refund", "ord_1"))
        assert isinstance(exc, redis.exceptions.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_job_not_there(self, port: int) -> None:
        conn = redis.Redis(host=HOST, port=port)
        exc = raised(lambda: rq.job.Job.fetch("no-such-job", connection=conn))
        assert isinstance(exc, rq.exceptions.NoSuchJobError)
        check(exc, C.NOT_FOUND, None)

    def test_requeue_a_job_that_did_not_fail(self, port: int) -> None:
        # requeue() is for failed jobs only: calling it on a queued one is the tool's own mistake (not the
        # model's input, though the type's name says "Invalid").
        conn = redis.Redis(host=HOST, port=port)
        job = rq.Queue("refunds", connection=conn).enqueue("orders.refund", "ord_1")
        exc = raised(job.requeue)
        assert isinstance(exc, rq.exceptions.InvalidJobOperation)
        check(exc, C.UNKNOWN, None)


def _failed_task(port: int, record: Any) -> BaseException:
    """Store a task's end in the real result backend the way Celery's worker does (``backend.mark_as_*``), then
    read it back as the tool does: ``AsyncResult.get()`` raises the task's exception, rebuilt from the backend."""
    app = _celery(port, port)
    task_id = str(uuid.uuid4())
    try:
        record(app.backend, task_id)
        return raised(lambda: app.AsyncResult(task_id).get(timeout=5))
    finally:
        app.close()


class TestCeleryTaskEnds:
    """What a Celery task's end says once the result backend hands it back (the worker's reason for it)."""

    def test_hard_time_limit(self, port: int) -> None:
        # The worker killed the task at its hard time limit: it ran for that long and may have acted.
        exc = _failed_task(port, lambda backend, task_id: backend.mark_as_failure(
            task_id, billiard.exceptions.TimeLimitExceeded(30.0)))
        assert isinstance(exc, billiard.exceptions.TimeLimitExceeded)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_soft_time_limit(self, port: int) -> None:
        exc = _failed_task(port, lambda backend, task_id: backend.mark_as_failure(
            task_id, celery.exceptions.SoftTimeLimitExceeded()))
        assert isinstance(exc, billiard.exceptions.SoftTimeLimitExceeded)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_worker_lost(self, port: int) -> None:
        # The worker's process died under the task (killed, out of memory): it may have acted.
        exc = _failed_task(port, lambda backend, task_id: backend.mark_as_failure(
            task_id, billiard.exceptions.WorkerLostError("Worker exited prematurely: signal 9 (SIGKILL).")))
        assert isinstance(exc, billiard.exceptions.WorkerLostError)
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_revoked(self, port: int) -> None:
        # Revoked (cancelled) by someone: before it started, or terminated while it ran: its fate is open.
        exc = _failed_task(port, lambda backend, task_id: backend.mark_as_revoked(task_id, "revoked"))
        assert isinstance(exc, celery.exceptions.TaskRevokedError)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)

    def test_task_hit_a_refused_connection(self, port: int) -> None:
        # The task's own failure comes back as its class (Celery rebuilds it by module and name): its rule decides.
        exc = _failed_task(port, lambda backend, task_id: backend.mark_as_failure(
            task_id, redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6380. Connection refused.")))
        assert isinstance(exc, redis.exceptions.ConnectionError)
        check(exc, C.UPSTREAM_UNAVAILABLE, None)


class TestBrokerRefusesTheUser:
    @pytest.mark.parametrize(("user", "password", "kind"), [
        pytest.param("reader", "not-it", redis.exceptions.AuthenticationError, id="wrong-password"),
        pytest.param("reader", "corpus-pw", redis.exceptions.NoPermissionError, id="no-permission"),
    ])
    def test_celery(self, port: int, user: str, password: str, kind: type) -> None:
        app = celery.Celery("corpus", broker=f"redis://{user}:{password}@{HOST}:{port}/0")
        app.conf.broker_connection_retry_on_startup = False
        exc = raised(lambda: app.send_task("orders.refund", args=("ord_1",), retry=False))
        app.close()
        assert isinstance(exc, kombu.exceptions.OperationalError | kind)
        check(exc, C.PERMISSION_DENIED, False)

    @pytest.mark.parametrize(("user", "password"), [
        pytest.param("reader", "not-it", id="wrong-password"),
        pytest.param("reader", "corpus-pw", id="no-permission"),
    ])
    def test_rq(self, port: int, user: str, password: str) -> None:
        conn = redis.Redis(host=HOST, port=port, username=user, password=password, retry=Retry(NoBackoff(), 0))
        exc = raised(lambda: rq.Queue("refunds", connection=conn).enqueue("orders.refund", "ord_1"))
        check(exc, C.PERMISSION_DENIED, False)
