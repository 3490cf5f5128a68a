"""Which of a suite's sources lack the Python reader DuckDB reads them through (a database's
driver, deltalake, pyiceberg, confluent-kafka: ``compiler/source_kinds.py`` declares them, each
with gryph's extra that installs it), asked before a run without importing any of them."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.source_specs import SourceSpec


def missing_readers(sources: Sequence[SourceSpec]) -> list[EngineError]:
    """An error per source whose kind's reader module is not installed."""
    errors = []
    for spec in sources:
        package = spec.kind.package("duckdb")
        if package is not None and importlib.util.find_spec(package.provides) is None:
            errors.append(
                EngineError(
                    "DRIVER_MISSING",
                    f"source {spec.name!r} ({spec.format}) needs {package.provides}, which is not installed",
                    location=spec.location,
                    text=spec.as_written(),
                    hint=f'pip install "gryph[{package.name}]"',
                )
            )
    return errors
