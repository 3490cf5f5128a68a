"""What a rule yields once its raw aggregates are finished: metric writes and record samples.

Metric writes follow Griffin's metric wrapper: each write is a list of rows with a flatten
mode, and ``merge_writes`` lays them out exactly as Griffin's ``MetricWriteStep`` would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# a row of a query's result, as an engine returns it: values of any type by column name
ResultRow = dict[str, Any]


@dataclass
class MetricWrite:
    """Rows destined for the metrics under ``name``; ``flatten`` as in Griffin's ``out``."""

    name: str
    rows: list[ResultRow]
    flatten: str = "default"  # default | entries | array | map


@dataclass
class RecordOutput:
    """Rows a rule flags (misses, incomplete or late rows, duplicates): a count and a sample."""

    name: str
    count: int | None
    sample: list[ResultRow]
    written_to: str | None = None  # where the full rows were written on the engine's side


@dataclass
class Segments:
    """A rule's metrics per value of its ``by`` column: ``values`` the most rows first, at most
    ``cap`` of them; ``capped`` when the column held more values than that."""

    column: str
    cap: int
    capped: bool
    values: list[tuple[Any, dict[str, Any]]]
    location: str  # where the `by` stands (file:line:col), for the warning of a capped rule


@dataclass
class RuleResult:
    """Everything one rule produced."""

    rule: str
    kind: str
    writes: list[MetricWrite]
    records: list[RecordOutput] = field(default_factory=list)
    rows_metric: bool = False  # profiling: the metric is the list of result rows
    error: dict[str, Any] | None = None  # the rule failed once the data had run (GryphError.to_dict())
    segments: Segments | None = None  # `by COLUMN`: its metrics per segment

    def metrics(self) -> object:
        """The rule's metrics in a native suite: a map, or a list of rows for profiling."""
        if self.error is not None:
            return {"error": self.error}
        if self.rows_metric:
            return self.writes[0].rows if self.writes else []
        return merge_writes(self.writes)


def normalize_write(write: MetricWrite) -> dict[str, Any]:
    """One write laid out as Griffin's ``normalizeMetric`` does."""
    rows = write.rows
    if write.flatten == "entries":
        return dict(rows[0]) if rows else {}
    if write.flatten == "array":
        return {write.name: list(rows)}
    if write.flatten == "map":
        return {write.name: dict(rows[0]) if rows else {}}
    if len(rows) > 1:
        return {write.name: list(rows)}
    return dict(rows[0]) if rows else {}


def merge_writes(writes: list[MetricWrite]) -> dict[str, Any]:
    """Merge writes into one map, later keys replacing earlier ones (Griffin's wrapper)."""
    merged: dict[str, Any] = {}
    for write in writes:
        merged.update(normalize_write(write))
    return merged


@dataclass(frozen=True)
class Row:
    """A measure's row: read by position (``row[0]``) or by column name (``row["c"]``)."""

    names: tuple[str, ...]
    values: tuple[object, ...]


@dataclass(frozen=True)
class Failed:
    """The value of a measure that failed: a check that reads it fails with ``error``."""

    error: dict[str, Any]


@dataclass(frozen=True)
class MeasureResult:
    """A measure's value as checks read it (one value, a ``Row``, or ``Failed``) and how it is reported."""

    name: str
    value: object
    shape: str  # value | list | map
    segments: Segments | None = None  # `by COLUMN`: its row per segment, by column name

    def report(self) -> object:
        """The value in the result document: the value, a list, a map by column name, or the error."""
        if isinstance(self.value, Failed):
            return {"error": self.value.error}
        if isinstance(self.value, Row) and self.shape == "list":
            return list(self.value.values)
        if isinstance(self.value, Row) and self.shape == "map":
            return dict(zip(self.value.names, self.value.values, strict=True))
        return self.value
