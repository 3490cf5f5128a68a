"""Shared fixtures. The Spark server is started lazily: only tests that ask for it pay for it."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: runs on a standalone Spark cluster it starts itself (slow, never skipped)")


@pytest.fixture(scope="session")
def spark_remote() -> str:
    """The ``sc://`` URL of one Spark Connect server shared by the whole test run.

    A server that cannot start fails the tests that need it: it is never a skip, in CI or not.
    """
    from gryph.client.spark.local_server import start_local_server

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
    from postgres_server import PostgresServer

    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()
