"""Fixtures for the DuckDB engine tests: a real engine over small in-memory and on-disk tables."""

from __future__ import annotations

import pytest

from gryph.local_backend.engine import DuckDBEngine
from tests.support.plan_helpers import Bench, Recorder


@pytest.fixture
def engine():
    engine = DuckDBEngine()
    yield engine
    engine.close()


@pytest.fixture
def bench(engine) -> Bench:
    return Bench(engine)


@pytest.fixture
def recording_engine():
    """An engine whose connection writes down every statement (``connection.statements``)."""
    engine = DuckDBEngine()
    engine._con = Recorder(engine.connection)
    yield engine
    engine.close()
