"""Shared fixtures. The Spark server is started lazily: only tests that ask for it pay for it."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: needs the Spark Connect server (deselected by `make test-fast`)")
    config.addinivalue_line(
        "markers", "cluster: runs on a standalone Spark cluster it starts itself (slow, never skipped)"
    )


def needs_spark(item: pytest.Item) -> bool:
    """Whether a test talks to a Spark server: it asks for the shared one (directly or through
    another fixture), runs with an engine parameter set to spark, or lives in tests/spark."""
    if "spark_remote" in getattr(item, "fixturenames", ()) or "spark" in item.path.parent.parts[-1:]:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(value == "spark" for value in params.values() if isinstance(value, str))


# As each test is collected: before any pytest_collection_modifyitems, where `-m` deselects and
# pytest-xdist reads the xdist_group markers (``--dist loadgroup``).
def pytest_itemcollected(item: pytest.Item) -> None:
    if needs_spark(item) or item.get_closest_marker("cluster"):
        item.add_marker(pytest.mark.spark)
    if item.get_closest_marker("spark"):  # added above, or by the test itself
        # under xdist every Spark test goes to one worker: one server for the run, not one per worker
        item.add_marker(pytest.mark.xdist_group("spark"))


@pytest.fixture(scope="session")
def spark_remote() -> str:
    """The ``sc://`` URL of one Spark Connect server shared by the whole test run.

    A server that cannot start fails the tests that need it: it is never a skip, in CI or not.
    """
    from gryph.client.spark.session.local_server import start_local_server

    server = start_local_server()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server for the run (Debian's initdb and pg_ctl, a free loopback port).

    A server that cannot start fails the tests that need it: never a skip.
    """
    from tests.postgres_server import PostgresServer

    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def kafka():
    """One Kafka broker for the run (KRaft, from Maven Central's jars, a free loopback port).

    A broker that cannot start fails the tests that need it: never a skip.
    """
    from tests.kafka_server import KafkaServer

    server = KafkaServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def mariadb():
    """One MariaDB server for the run (Debian's mariadb-install-db and mariadbd, a free loopback port).

    A server that cannot start fails the tests that need it: never a skip.
    """
    from tests.mariadb_server import MariaDBServer

    server = MariaDBServer()
    try:
        yield server
    finally:
        server.stop()
