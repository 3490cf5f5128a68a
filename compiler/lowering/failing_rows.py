"""The rows behind a failing check. A measure that counts the rows of one source under a condition
(``select count(*) from orders where amount < 0``) names those rows, so a check that reads it and
fails can show a few of them and, when the condition reads one column, that column's most frequent
values among them with their counts (Soda's failed-rows samples, GX's ``partial_unexpected_list``).

Nothing here runs with the suite: the samples' plan is built once the checks are judged, for the
failing ones only, so a passing suite pays nothing. Rows come sorted by every column that can be
ordered, so both engines show the same rows in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..analysis.checked_rules import CheckedQuery, CheckedRule
from ..plan import Aggregate, AggregateCall, Field, Filter, Limit, Named, Plan, Query, Read, Relation, Sort, View
from ..plan.data_types import Kind, Schema
from ..plan.functions import AggFn
from ..plan.scalars import SortKey, count_all, field_names
from ..results import ResultRow

TOP_VALUES = 5  # a single column's most frequent values shown among the failing rows
_ORDERED = (Kind.BOOLEAN, Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.STRING, Kind.DATE, Kind.TIMESTAMP)
VALUE, COUNT = "value", "count"


@dataclass(frozen=True)
class CountedRows:
    """The rows measure ``measure`` counts: those of ``source`` where ``where`` (its text) holds."""

    measure: str
    source: str
    where: str
    rows: Relation  # the source's rows under the condition
    column: str | None  # the one column the condition reads (of a type to group by), else None


def counted_rows(measures: Iterable[CheckedRule], schemas: Mapping[str, Schema]) -> dict[str, CountedRows]:
    """Each measure of the form ``select count(*) from SOURCE where CONDITION``, by name."""
    found = {}
    for measure in measures:
        if not (isinstance(measure, CheckedQuery) and _counts_rows(measure)):
            continue
        assert measure.where is not None  # _counts_rows asks for a condition
        # the condition as the user wrote it: the parsed query's (a lowering reads no rule tree types)
        where = getattr(measure.spec.body, "where", None)
        read = Read(measure.source, schemas[measure.source])
        columns = field_names(measure.where) & set(read.schema.names)
        column = next(iter(columns)) if len(columns) == 1 else None
        if column is not None and read.schema.column(column).dtype.kind not in _ORDERED:
            column = None  # a map or list: not a value to group by on every engine
        found[measure.spec.name] = CountedRows(
            measure.spec.name, measure.source, str(getattr(where, "text", "")), Filter(read, measure.where), column
        )
    return found


def _counts_rows(query: CheckedQuery) -> bool:
    if query.where is None or query.grouping is not None or query.distinct or len(query.items) != 1:
        return False
    call = query.items[0][0]
    return isinstance(call, AggregateCall) and call.fn is AggFn.COUNT_ALL and call.filter is None


def samples_plan(counted: Iterable[CountedRows], views: tuple[View, ...], limit: int) -> Plan:
    """One query of up to ``limit`` rows per counted measure (``rows0``, ...) and, for a condition on
    one column, one of that column's most frequent values there (``top0``, ...)."""
    queries = []
    for index, each in enumerate(counted):
        keys = tuple(SortKey(Field(c.name, c.dtype)) for c in each.rows.schema.columns if c.dtype.kind in _ORDERED)
        ordered = Sort(each.rows, keys) if keys else each.rows
        queries.append(Query(f"rows{index}", Limit(ordered, limit)))
        if each.column is not None:
            queries.append(Query(f"top{index}", _top_values(each.rows, each.column)))
    return Plan(views, tuple(queries))


def _top_values(rows: Relation, column: str) -> Relation:
    """The column's values among ``rows``, the most frequent first (ties by value, NULL first)."""
    dtype = rows.schema.column(column).dtype
    counts = Aggregate(rows, (Named(Field(column, dtype), VALUE),), (Named(count_all(), COUNT),))
    keys = (SortKey(Field(COUNT, counts.schema.column(COUNT).dtype), ascending=False), SortKey(Field(VALUE, dtype)))
    return Limit(Sort(counts, keys), TOP_VALUES)


def failing_rows(
    counted: Iterable[CountedRows], counts: Mapping[str, object], rows_by_query: Mapping[str, list[ResultRow]]
) -> dict[str, dict[str, object]]:
    """Each counted measure's sample as reports show it, by measure name: the source, the
    condition, how many rows it holds (``counts``: the measures' values), the first of them, and
    for one column its top values with their counts."""
    out: dict[str, dict[str, object]] = {}
    for index, each in enumerate(counted):
        sample: dict[str, object] = {
            "source": each.source,
            "where": each.where,
            "count": counts[each.measure],
            "rows": rows_by_query[f"rows{index}"],
        }
        if each.column is not None:
            top = rows_by_query[f"top{index}"]
            sample["column"] = each.column
            sample["top_values"] = [{VALUE: row[VALUE], COUNT: row[COUNT]} for row in top]
        out[each.measure] = sample
    return out
