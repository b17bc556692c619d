"""cassandra-driver and the neo4j driver against real failure modes on 127.0.0.1 (neither server runs here: every
case fails while the driver opens its first connection, which is what a tool sees when its database is down,
unreachable, or something else listens on its port).

cassandra-driver raises ``NoHostAvailable`` with each contact point's own error in ``.errors`` (refused, timed
out, the peer's wrong protocol), and ``UnresolvableContactPoints`` when no contact point resolves; neo4j raises
``ServiceUnavailable`` over the socket's error. Either way no statement had been sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import neo4j
import pytest
from cassandra import UnresolvableContactPoints
from cassandra.cluster import Cluster, NoHostAvailable

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, closed_port, closing_listener, silent_listener

SHORT = 0.5


@pytest.fixture(params=["refused", "never_answers", "closes_at_once", "speaks_http"])
def dead_port(request: pytest.FixtureRequest) -> Iterator[int]:
    """A port where the database should be: nobody listens, a listener never answers the handshake, one
    closes at once, one answers in HTTP."""
    if request.param == "refused":
        yield closed_port()
        return
    peers = {"never_answers": silent_listener, "closes_at_once": closing_listener,
             "speaks_http": lambda: closing_listener(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                                     read_first=True)}
    with peers[request.param]() as port:
        yield port


def _cassandra(host: str, port: int) -> Callable[[], None]:
    def connect() -> None:
        cluster = Cluster([host], port=port, connect_timeout=SHORT, control_connection_timeout=SHORT,
                          protocol_version=4)
        try:
            cluster.connect().execute("SELECT release_version FROM system.local")
        finally:
            cluster.shutdown()

    return connect


def _neo4j(uri: str) -> Callable[[], None]:
    def query() -> None:
        with neo4j.GraphDatabase.driver(uri, auth=("neo4j", "corpus-pw"), connection_timeout=SHORT,
                                        connection_acquisition_timeout=SHORT,
                                        max_transaction_retry_time=0) as driver:
            driver.execute_query("MATCH (n:Order) RETURN count(n)")

    return query


class TestCassandra:
    def test_no_host_available(self, dead_port: int) -> None:
        exc = raised(_cassandra(HOST, dead_port))
        assert type(exc) is NoHostAvailable and exc.errors
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_contact_point_does_not_resolve(self) -> None:
        exc = raised(_cassandra(UNRESOLVABLE, 9042))
        assert type(exc) is UnresolvableContactPoints
        check(exc, C.UPSTREAM_UNAVAILABLE, False)


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])  # one server, or a cluster's routing table first
class TestNeo4j:
    def test_service_unavailable(self, dead_port: int, scheme: str) -> None:
        exc = raised(_neo4j(f"{scheme}://{HOST}:{dead_port}"))
        assert isinstance(exc, neo4j.exceptions.ServiceUnavailable)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self, scheme: str) -> None:
        exc = raised(_neo4j(f"{scheme}://{UNRESOLVABLE}:7687"))
        assert isinstance(exc, neo4j.exceptions.ServiceUnavailable)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)
