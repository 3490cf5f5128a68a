"""Profiling a source for ``gryph suggest``: a suite of profiling measures, run like any suite.

Every column's statistics are aggregates of one measure each, and the compiler fuses the measures
of a run into one scan of the source: one scan for up to ``COLUMNS_PER_SCAN`` columns (DuckDB's time
for the distinct counts of one statement grows with their square: 400 take 20 s, 8 runs of 50 take
1 s). A column of few values then has its values listed (one grouped query per such column, in one
more run, only when some column has few values).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from gryph.compiler.engine import Engine
from gryph.compiler.plan.data_types import Column, DataType, Kind
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.native_suites import parse_suite
from gryph.compiler.suites.suite import Suite

from ..run import runner
from .dsl_text import dsl_name

COLUMNS_PER_SCAN = 50
MAX_LISTED_VALUES = 10  # a column of at most this many values gets an allowed-values check
NUMBERS = (Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL)
COUNTED = (*NUMBERS, Kind.STRING, Kind.BOOLEAN, Kind.DATE, Kind.TIMESTAMP)  # count(distinct) of these
LISTED = (Kind.INTEGER, Kind.STRING)  # whose few values are listed


@dataclass(frozen=True)
class ColumnProfile:
    """What one scan learnt of a column (None: not asked for its type, or no value to learn from)."""

    name: str
    dtype: DataType
    filled: int  # non-NULL values
    distinct: int | None = None  # distinct non-NULL values
    low: int | float | Decimal | None = None  # numbers: the smallest and largest, NaN left out
    high: int | float | Decimal | None = None
    nans: int = 0
    shortest: int | None = None  # text: lengths in characters
    longest: int | None = None
    newest: int | None = None  # dates and times: the latest, in epoch seconds
    values: tuple[object, ...] | None = None  # a column of few values: each of them, in order


@dataclass(frozen=True)
class SourceProfile:
    """A source's row count and its columns' profiles."""

    spec: SourceSpec
    rows: int
    columns: tuple[ColumnProfile, ...]


def profile_source(spec: SourceSpec, engine: Engine) -> SourceProfile:
    """Profile ``spec`` on ``engine``: one scan for the statistics, then the lists of few values."""
    schema = runner.source_schemas(Suite(spec.name, {spec.name: spec}, []), engine)[spec.name]
    columns = schema.columns
    measured: dict = {}
    for start in range(0, max(len(columns), 1), COLUMNS_PER_SCAN):
        text = _statistics_text(spec.name, columns, start, start + COLUMNS_PER_SCAN)
        measured.update(runner.run(_suite(spec, text), engine).measures)
    profiles = [_column(column, measured[f"c{index}"]) for index, column in enumerate(columns)]
    rows = int(measured["rows"])
    listed = [i for i, p in enumerate(profiles) if _has_few_values(p)]
    if listed:
        text = "\n".join(_values_query(spec.name, i, columns[i]) for i in listed)
        metrics = runner.run(_suite(spec, text), engine).metrics
        for index in listed:
            profiles[index] = replace(profiles[index], values=tuple(row["v"] for row in metrics[f"v{index}"]))
    return SourceProfile(spec, rows, tuple(profiles))


def _suite(spec: SourceSpec, text: str) -> Suite:
    """Profiling measures or rules over ``spec``, a suite of its own (no history, no checks)."""
    suite = parse_suite(text, None, Path.cwd(), known_sources=(spec.name,))
    return replace(suite, name=f"{spec.name} profile", sources={spec.name: spec})


def _statistics_text(source: str, columns: tuple[Column, ...], start: int, stop: int) -> str:
    """Measures of the columns from ``start`` to ``stop``; the row count with the first."""
    lines = [f'measure "rows" on {source}: count(*)'] if start == 0 else []
    for index, column in enumerate(columns[start:stop], start):
        items = ", ".join(f"{expression} as {alias}" for alias, expression in _statistics(column))
        lines.append(f'measure "c{index}" as map on {source}: {items}')
    return "\n".join(lines)


def _statistics(column: Column) -> list[tuple[str, str]]:
    """The aggregates profiling a column of its type, by alias."""
    name, kind = dsl_name(column.name), column.dtype.kind
    asked = [("filled", f"count({name})")]
    if kind in COUNTED:
        asked.append(("distinct_values", f"count(distinct {name})"))
    if kind is Kind.DOUBLE:  # NaN sorts above every number: its range is the numbers'
        number = f"if({name} is nan, null, {name})"
        asked += [("low", f"min({number})"), ("high", f"max({number})"), ("nans", f"count_if({name} is nan)")]
    elif kind in NUMBERS:
        asked += [("low", f"min({name})"), ("high", f"max({name})")]
    elif kind is Kind.STRING:
        asked += [("shortest", f"min(length({name}))"), ("longest", f"max(length({name}))")]
    elif kind in (Kind.DATE, Kind.TIMESTAMP):
        asked.append(("newest", f"unix_timestamp(max({name}))"))
    return asked


def _column(column: Column, measured: dict) -> ColumnProfile:
    return ColumnProfile(
        column.name,
        column.dtype,
        filled=int(measured["filled"]),
        distinct=measured.get("distinct_values"),
        low=measured.get("low"),
        high=measured.get("high"),
        nans=int(measured.get("nans") or 0),
        shortest=measured.get("shortest"),
        longest=measured.get("longest"),
        newest=measured.get("newest"),
    )


def _has_few_values(profile: ColumnProfile) -> bool:
    """Few values, each seen twice on average: a code or a category, not an identifier."""
    distinct = profile.distinct or 0
    return profile.dtype.kind in LISTED and 0 < distinct <= MAX_LISTED_VALUES and profile.filled >= 2 * distinct


def _values_query(source: str, index: int, column: Column) -> str:
    name = dsl_name(column.name)
    return (
        f"profiling v{index} on {source}: select distinct {name} as v from {source} "
        f"where {name} is not null order by v limit {MAX_LISTED_VALUES + 1}"
    )
