"""``drift(orders.status)`` of a text or boolean column: its categories' frequencies, not quantiles.

Once the column's type is known (the check pass), its sketch measure ``sketch(orders.status)``
becomes ``select status as category, count(*) as count from orders group by status``: one count
per distinct value, NULL included, counted by the engine. The run keeps the ``TOP_CATEGORIES``
most frequent values (ties: the value first in code-point order, so both engines keep the same),
the rest as one ``other`` count and NULL as ``null``; booleans are the categories "true" and "false".
A column with more than ``MAX_DISTINCT`` distinct values is an error (``compiler/lowering/measure.py``),
never a silent cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..language.ruletree import nodes as n
from ..plan.data_types import Kind, Schema
from ..results import Row
from .drift_sketches import COUNTED_AT, ROWS, ROWS_AT
from .suite import MeasureSpec

TOP_CATEGORIES = 50  # categories a run keeps by name; the rest are counted as "other"
MAX_DISTINCT = 100_000  # distinct values a run may count before its drift check is an error
SHAPE = "frequencies"
CATEGORY, COUNT = "category", "count"
NULLS, OTHER, CATEGORIES = "null", "other", "categories"
CATEGORICAL = (Kind.STRING, Kind.BOOLEAN)


def with_frequency_sketches(measures: Sequence[MeasureSpec], schemas: Mapping[str, Schema]) -> list[MeasureSpec]:
    """``measures`` with each sketch of a text or boolean column counting its categories instead."""
    return [_frequencies(m) if _is_categorical(m, schemas) else m for m in measures]


def _is_categorical(measure: MeasureSpec, schemas: Mapping[str, Schema]) -> bool:
    if not (measure.name.startswith("sketch(") and isinstance(measure.body, n.SelectQuery)):
        return False
    column = _column(measure.body)
    schema = schemas.get(measure.body.source or "")
    found = schema.get(column.name) if schema is not None and isinstance(column, n.Name) else None
    return found is not None and found.dtype.kind in CATEGORICAL


def _column(sketch: n.SelectQuery) -> n.Expr:
    """The column a sketch reads: the argument of its count(col)."""
    counted = sketch.items[COUNTED_AT].expr
    assert isinstance(counted, n.FunctionCall)  # as drift_sketches builds it
    return counted.args[0]


def _frequencies(measure: MeasureSpec) -> MeasureSpec:
    """``select col as category, count(*) as count from source group by col``."""
    sketch = measure.body
    assert isinstance(sketch, n.SelectQuery)  # a sketch measure is built as a query (drift_sketches)
    at = measure.location
    value, rows = _column(sketch), sketch.items[ROWS_AT].expr
    items = (
        n.SelectItem(expr=value, alias=CATEGORY, location=at, text=f"{value.text} as {CATEGORY}"),
        n.SelectItem(expr=rows, alias=COUNT, location=at, text=f"{rows.text} as {COUNT}"),
    )
    query = replace(sketch, items=items, groups=(value,))
    return replace(measure, body=query, shape=SHAPE)


def frequencies_row(rows: Sequence[Mapping[str, object]]) -> Row:
    """A frequency measure's counts (one row per distinct value) as its one stored value: ``rows``,
    ``null``, ``other`` and ``categories`` ([value, count] pairs, the most frequent first)."""
    counted = [(_category(row[CATEGORY]), int(row[COUNT] or 0)) for row in rows]  # type: ignore[call-overload]
    nulls = sum(count for category, count in counted if category is None)
    ranked = sorted(((c, count) for c, count in counted if c is not None), key=lambda pair: (-pair[1], pair[0]))
    kept = ranked[:TOP_CATEGORIES]
    other = sum(count for _, count in ranked[TOP_CATEGORIES:])
    total = nulls + other + sum(count for _, count in kept)
    return Row((ROWS, NULLS, OTHER, CATEGORIES), (total, nulls, other, [list(pair) for pair in kept]))


def _category(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    return None if value is None else str(value)
