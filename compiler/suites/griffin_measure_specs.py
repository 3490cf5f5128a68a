"""Griffin generation-B measures as the loader hands them to the lowering: each config read,
its column names and expressions kept with where they stand in the job config.

The column checks need the sources' schemas, known only when the suite is compiled; so the
loader keeps every name's location and the lowering reports unknown names there.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Location
from ..language.ruletree.nodes import Expr
from ..plan.data_types import DataType
from ..rule_kinds import griffin_names, griffin_spellings

# the RuleSpec kind of each measure type, by Griffin's MeasureTypes names (lower-cased)
MEASURE_KINDS = griffin_names("griffin measure")
TYPE_SPELLINGS = griffin_spellings("griffin measure")  # Griffin's spelling of each type, for hints
BAD_FLAGS = ("duplicate", "unique", "non_unique", "distinct")
# Spark's integer types narrower than gryph's 64-bit integers, and their widths
_NARROW_INTEGERS = {"tinyint": 8, "byte": 8, "smallint": 16, "short": 16, "int": 32, "integer": 32}


def integer_range(type_name: str) -> tuple[int, int] | None:
    """The range of Spark's integer type ``type_name`` when narrower than 64 bits (its cast is NULL
    outside it), else None."""
    bits = _NARROW_INTEGERS.get(type_name.strip().lower())
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if bits else None


@dataclass(frozen=True)
class ColumnRef:
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
