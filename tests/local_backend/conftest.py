"""Fixtures for the DuckDB engine tests: a real engine over small in-memory and on-disk tables."""

from __future__ import annotations

import pytest

from gryph.local_backend import DuckDBEngine

from plan_helpers import Bench


@pytest.fixture
def engine():
    engine = DuckDBEngine()
    yield engine
    engine.close()


@pytest.fixture
def bench(engine) -> Bench:
    return Bench(engine)
