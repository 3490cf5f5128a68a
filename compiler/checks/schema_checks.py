"""Schema checks: a ``schema`` statement against a source's columns now, and ``schema_changes``
against the columns stored with the previous run.

Columns are compared by name (exactly as the engine spells it) and logical type, the types both
engines agree on (``bigint`` and ``int`` are both ``integer``), so DuckDB and Spark give the same
result. Schemas come from the engine without a scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan.data_types import Schema
from ..suites.suite import SchemaSpec

Columns = dict[str, str]  # a source's columns: name -> logical type, in the source's order


def columns_of(schema: Schema) -> Columns:
    return {column.name: str(column.dtype) for column in schema.columns}


@dataclass(frozen=True)
class SchemaCheck:
    """A schema statement bound to its source's columns as the engine reports them now."""

    spec: SchemaSpec
    actual: Columns


def judge_schema(check: SchemaCheck) -> tuple[bool, dict[str, object]]:
    """Whether the source has the columns the statement asks for, and what differs (shown beside
    the check): missing columns, columns of another type, and for ``exact`` columns not asked for;
    beside them, the present columns whose stated type was not compared."""
    spec, actual = check.spec, check.actual
    expected = dict(spec.columns)
    found: dict[str, object] = {
        "missing columns": [name for name in expected if name not in actual],
        "wrong types": [
            f"{name}: {actual[name]}, expected {dtype}"
            for name, dtype in expected.items()
            if dtype is not None and name in actual and actual[name] != str(dtype)
        ],
        "unexpected columns": [name for name in actual if name not in expected] if spec.exact else [],
    }
    shown = {key: value for key, value in found.items() if value}
    # said whether the check passes or not: a type nobody compared is no pass of that type
    uncompared = [f"{name}: {stated} (found {actual[name]})" for name, stated in spec.uncompared if name in actual]
    return not shown, {**shown, **({"types not compared": uncompared} if uncompared else {})}


def schema_changes(previous: Columns | None, current: Columns) -> dict[str, list[Any]]:
    """What changed since ``previous`` (None: nothing stored yet, so nothing changed): columns
    added, removed, and changed type (``{"column", "was", "now"}``), each in column order."""
    if previous is None:
        previous = current
    return {
        "added": [name for name in current if name not in previous],
        "removed": [name for name in previous if name not in current],
        "changed": [
            {"column": name, "was": previous[name], "now": kind}
            for name, kind in current.items()
            if name in previous and previous[name] != kind
        ],
    }
