"""Griffin generation-B measures as the loader hands them to the lowering: each config read,
its column names and expressions kept with where they stand in the job config.

The column checks need the sources' schemas, known only when the suite is compiled; so the
loader keeps every name's location and the lowering reports unknown names there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..errors import Location
from ..language.ruletree.nodes import Expr
from ..plan.data_types import DataType


class ColumnRef(NamedTuple):
    """A column named in a measure's config, and where the name stands."""

    name: str
    location: Location


@dataclass(frozen=True)
class CompletenessConfig:
    """What a complete row is: a condition over the source's columns."""

    condition: Expr


@dataclass(frozen=True)
class DuplicationConfig:
    """Key columns (none: every column) and the flag that marks a bad row."""

    columns: tuple[ColumnRef, ...]
    bad: str  # duplicate | unique | non_unique | distinct


@dataclass(frozen=True)
class ProfilingConfig:
    """Columns to profile (none: every column), how distinct values are named, rounding places."""

    columns: tuple[ColumnRef, ...]
    approximate_name: bool
    round_scale: int


@dataclass(frozen=True)
class AccuracyConfig:
    """Pairs of (source column, reference column) compared for equality."""

    pairs: tuple[tuple[ColumnRef, ColumnRef], ...]


@dataclass(frozen=True)
class TypeCheck:
    """One schemaConformance entry: the column, the type its text must read as, and that type's
    range when it is an integer narrower than 64 bits (Spark's cast is NULL outside it)."""

    column: ColumnRef
    dtype: DataType
    range: tuple[int, int] | None


@dataclass(frozen=True)
class SchemaConformanceConfig:
    """The columns whose text must read as a type, in config order."""

    checks: tuple[TypeCheck, ...]


@dataclass(frozen=True)
class SparkSqlConfig:
    """The view holding the measure's query, and the bad-record condition over its rows (parsed)."""

    view: str
    bad: Expr


# a measure's config as the lowering reads it
MeasureConfig = (
    CompletenessConfig | DuplicationConfig | ProfilingConfig | AccuracyConfig | SparkSqlConfig | SchemaConformanceConfig
)
