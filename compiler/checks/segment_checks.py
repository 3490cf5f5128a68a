"""Checks judged per segment (`check "rows" by country: ...`): the check is evaluated once per
value of the column, each time reading the segment's metrics and measure values in place of those
over all rows; it passes when every segment passes, and its failure names the failing segments.

Every measure and metric such a check reads must be split `by` the same column: a check that mixed
a segment's value with one over all rows would read as per-segment and not be.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidInput
from ..results import MeasureResult, Row, RuleResult
from ..suites.suite import CheckSpec, Suite
from .anomaly import Anomaly
from .check_bounds import reads

# per measure or rule split `by` a column: that column's name and each segment's value and metrics
SegmentValues = Mapping[str, tuple[str, list[tuple[Any, object]]]]


@dataclass(frozen=True)
class Segmented:
    """The run's measures and rule metrics split `by` a column, as checks read them per segment."""

    measures: SegmentValues
    metrics: SegmentValues


NO_SEGMENTS = Segmented({}, {})


@dataclass(frozen=True)
class SegmentedReads:
    """The column a check is judged by and what it reads: measures and rules by name."""

    column: str
    measures: tuple[str, ...]
    metrics: tuple[str, ...]


def segmented_reads(suite: Suite, check: CheckSpec, expr: object) -> SegmentedReads:
    """What a `by COLUMN` check reads, each of it checked to be split by that column."""
    segment = check.segment
    assert segment is not None  # called for a check with `by`
    where = f"check {check.name!r} by {segment.column}"
    if segment.top is not None:
        raise _refused(f"{where}: `top` belongs to the rules and measures it reads", segment, "write `by COLUMN` alone")
    split = {("measure", m.name): m.segment for m in suite.measures}
    split.update({("metric", r.name): r.segment for r in suite.rules})
    found = reads(expr)
    if not found:
        raise _refused(f"{where}: it reads no measure or metric", segment, _HINT)
    for reference in found:
        key = (str(reference["source"]), str(reference["name"]))
        by = split.get(key)
        if by is None or by.column.casefold() != segment.column.casefold():
            kind = "measures" if key[0] == "measure" else "metrics"
            raise _refused(f'{where}: {kind}["{key[1]}"] is not split by {segment.column}', segment, _HINT)
    names = [(str(r["source"]), str(r["name"])) for r in found]
    return SegmentedReads(
        segment.column,
        tuple(dict.fromkeys(n for s, n in names if s == "measure")),
        tuple(dict.fromkeys(n for s, n in names if s == "metric")),
    )


def _refused(message: str, segment: Any, hint: str) -> InvalidInput:
    return InvalidInput("BAD_SEGMENT_CHECK", message, location=segment.location, text=segment.text, hint=hint)


_HINT = 'every measure and rule it reads is written `by` the same column, e.g. measure "rows" by country: ...'


def segment_inputs(
    reading: SegmentedReads, measures: SegmentValues, metrics: SegmentValues
) -> list[tuple[Any, dict[str, object], dict[str, object]]]:
    """Each segment's value with the measures and metrics the check reads in it, in the order of
    the first thing it reads (the most rows first); a segment another read lacks (a cap kept it
    out) reads null there."""
    parts = [(measures, name, "m") for name in reading.measures] + [(metrics, name, "r") for name in reading.metrics]
    order: list[Any] = []
    by_part: list[dict[Any, object]] = []
    for table, name, _ in parts:
        values = dict(_keyed(table[name][1])) if name in table else {}
        order += [key for key in values if key not in order]
        by_part.append(values)
    segments = []
    for key in order:
        seg_measures: dict[str, object] = {}
        seg_metrics: dict[str, object] = {}
        for (_, name, kind), values in zip(parts, by_part, strict=True):
            (seg_measures if kind == "m" else seg_metrics)[name] = values.get(key)
        segments.append((key[1], seg_measures, seg_metrics))
    return segments


def _keyed(values: list[tuple[Any, object]]) -> list[tuple[tuple[str, Any], object]]:
    # 1 and True, or 1 and 1.0, are one dict key: keep a segment's value apart by its type too
    return [((type(value).__name__, value), metrics) for value, metrics in values]


def segment_key(value: object) -> str:
    """A segment's value as the history stores it, to find the same segment in earlier runs."""
    return json.dumps(value, ensure_ascii=False, default=str)


def segment_check(check: str, key: str) -> str:
    """The name a segment's anomaly findings are stored under (a unit separator no label holds
    unescaped keeps it from any check's name)."""
    return f"{check}\x1f{key}"


def segment_anomaly(check: Anomaly, key: str) -> Anomaly:
    """An anomaly check of one segment: its baseline that segment's earlier values, less the runs
    where the check found that segment anomalous."""
    query = replace(check.query, segment=key, check=segment_check(check.query.check, key))
    return replace(check, query=query)


VANISHED = "vanished"  # the value that marks a segment of the run before, gone from this one


def segment_label(value: object) -> str:
    """A segment's value: text in quotes (so "" and "NULL" are told from NULL), NULL, a number."""
    if value is None:
        return "NULL"
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def failing_summary(failed: list[Any], count: int) -> str:
    """How many segments of a check failed, and which."""
    return f"{len(failed)} of {count}: {', '.join(segment_label(v) for v in failed)}"


def segmented(rules: list[RuleResult], measures: list[MeasureResult]) -> Segmented:
    """The run's segments as checks read them: a rule's metric map per segment, and a measure's
    value per segment in the measure's own shape (one value, or a row)."""
    return Segmented(
        {
            m.name: (m.segments.column, [(v, _shaped(m.value, row)) for v, row in m.segments.values])
            for m in measures
            if m.segments is not None
        },
        {r.rule: (r.segments.column, list(r.segments.values)) for r in rules if r.segments is not None},
    )


def _shaped(whole: object, row: dict[str, object]) -> object:
    """A segment's row read as the measure over all rows is: a row, or its one value."""
    if isinstance(whole, Row):
        return Row(tuple(row), tuple(row.values()))
    return next(iter(row.values()))
