"""Measures: a query that returns exactly one row, lowered as a profiling query.

A query of aggregates only joins its source's shared scan like any profiling rule; other
queries, ``sql "..."`` text and ``native "..."`` database SQL fetch at most two rows, enough to
tell one row from several.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..analysis.checked_rules import CheckedQuery
from ..errors import ResultError
from ..plan import Read, Relation, Sql
from ..results import MeasureResult, ResultRow, Row, Segments
from ..rule_kinds import RuleKind
from ..suites.drift_frequencies import CATEGORY, COUNT, MAX_DISTINCT, frequencies_row
from ..suites.drift_frequencies import SHAPE as FREQUENCIES
from ..suites.suite import MeasureSpec, NativeSql
from .profiling import QueryLowering, fused_items
from .query_collector import Results

MeasureFinisher = Callable[[Results], MeasureResult]


class MeasureLowering(QueryLowering):
    kinds = (RuleKind.MEASURE,)
    row_limit = 1

    def lower(self) -> MeasureFinisher:
        if self._counts_categories():
            return self._frequencies()
        by_segment: Callable[[Results], Segments] | None = None
        if not isinstance(self.checked, CheckedQuery):
            body = self.rule.body
            relation: Relation
            if isinstance(body, NativeSql):  # the database ran it: its rows are a source's
                relation = Read(body.source, self.schemas[body.source])
            else:  # sql "...": Spark SQL, translated for DuckDB
                assert isinstance(body, str)  # the check pass gives a measure's text as it is
                relation = Sql(body, tuple(self.schemas))
            ref = self.collector.rows(relation, self.row_limit + 1)

            def rows_of(results: Results) -> list[ResultRow]:
                rows = results.rows(ref)
                if len(rows) > self.row_limit:
                    raise self.too_many_rows()
                return rows
        else:
            finish_query = self.lower_query(self.checked)
            by_segment = self.by_segment(self.checked)

            def rows_of(results: Results) -> list[ResultRow]:
                return finish_query(results).writes[0].rows

        def finish(results: Results) -> MeasureResult:
            rows = rows_of(results)
            if not rows:
                raise ResultError(
                    "MEASURE_NOT_ONE_ROW",
                    f"measure {self.rule.name!r} returns no rows; a measure must return exactly one row",
                    location=self.rule.location,
                    text=None,
                    hint="aggregate the query, e.g. count(*) or max(x)",
                )
            result = self._result(rows[0])
            return result if by_segment is None else replace(result, segments=by_segment(results))

        return finish

    def _counts_categories(self) -> bool:
        return isinstance(self.rule, MeasureSpec) and self.rule.shape == FREQUENCIES

    def _frequencies(self) -> MeasureFinisher:
        """A drift check's counts of a column's categories (``compiler/suites/drift_frequencies.py``):
        one count per distinct value, kept as one value. They are a grouping of the source's own
        aggregate query, so the suite reads the source once for them and its other values."""
        query = self.checked
        assert isinstance(query, CheckedQuery) and query.grouping is not None  # built as a grouped query
        (key,), (counted,) = query.grouping.keys, query.grouping.aggregates
        counts = fused_items(replace(query, items=((counted.expr, COUNT),)))[0]  # its WHERE a filter
        ref = self.collector.grouped_value(self.read(query.source), key.expr, counts, MAX_DISTINCT + 1)
        name = self.rule.name

        def finish(results: Results) -> MeasureResult:
            groups = [(value, n) for value, n in results.groups(ref) if n]  # a group its WHERE left empty is none
            if len(groups) > MAX_DISTINCT:
                raise self.too_many_rows()
            rows = [{CATEGORY: value, COUNT: n} for value, n in groups]
            return MeasureResult(name, frequencies_row(rows), "map")

        return finish

    def too_many_rows(self) -> ResultError:
        if self._counts_categories():
            return ResultError(
                "MEASURE_NOT_ONE_ROW",
                f"{self.rule.name} counts more than {MAX_DISTINCT} distinct values: too many to compare as categories",
                location=self.rule.location,
                text=None,
                hint="drift() a column with fewer distinct values",
            )
        return ResultError(
            "MEASURE_NOT_ONE_ROW",
            f"measure {self.rule.name!r} returns more than one row; a measure must return exactly one row",
            location=self.rule.location,
            text=None,
            hint="aggregate the query or add a WHERE that selects one row",
        )

    def _result(self, row: ResultRow) -> MeasureResult:
        assert isinstance(self.rule, MeasureSpec)  # measures are lowered by this class only
        shape = self.rule.shape or ("value" if len(row) == 1 else "map")
        if shape == "value":
            if len(row) != 1:
                raise ResultError(
                    "MEASURE_NOT_ONE_VALUE",
                    f"measure {self.rule.name!r} is a value but returns {len(row)} columns",
                    location=self.rule.location,
                    text=None,
                    hint="select one column, or write 'as list' or 'as map'",
                )
            return MeasureResult(self.rule.name, next(iter(row.values())), shape)
        return MeasureResult(self.rule.name, Row(tuple(row), tuple(row.values())), shape)
