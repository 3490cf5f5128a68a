"""Profiling: a SQL-like query over one source; its result rows are the metric.

A query of aggregates only (no group by, having, order or limit) joins the source's shared
scan: its ``where`` becomes the aggregates' filter. Anything else is a query of its own,
brought back whole up to ``ROW_LIMIT`` rows (more is an error, never a silent cut).
"""

from __future__ import annotations

from collections.abc import Callable

from ..analysis.checked_rules import CheckedQuery, CheckedRule
from ..errors import ResultError
from ..plan import (
    Aggregate,
    AggregateCall,
    Distinct,
    Field,
    Filter,
    Limit,
    Named,
    Project,
    Relation,
    Scalar,
    Sort,
    SortKey,
    substitute,
)
from ..results import RuleResult, Segments
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering
from .query_collector import Results
from .segments import SegmentRefs

ROW_LIMIT = 10_000


class QueryLowering(RuleLowering[CheckedRule]):
    """A checked query as a plan query; profiling rules and measures finish its rows each their way."""

    row_limit = ROW_LIMIT  # rows a query may return before it is an error

    def lower_query(self, query: CheckedQuery) -> Finisher:
        rule = self.rule
        read = self.read(query.source)
        names = [name for _, name in query.items]
        if query.fused:
            refs = [self.collector.value(read, expr) for expr in fused_items(query)]
            by_segment = self.by_segment(query)

            def finish_fused(results: Results) -> RuleResult:
                row = {name: results.value(ref) for name, ref in zip(names, refs, strict=True)}
                segments = None if by_segment is None else by_segment(results)
                return RuleResult(rule.name, rule.kind, [self.write([row])], rows_metric=True, segments=segments)

            return finish_fused

        relation: Relation = Filter(read, query.where) if query.where is not None else read
        grouping = query.grouping
        if grouping is not None:
            relation = Aggregate(relation, grouping.keys, grouping.aggregates)
            if grouping.having is not None:
                relation = Filter(relation, grouping.having)
        ref = self.collector.rows(_order_and_limit(relation, query), self.row_limit + 1)

        def finish(results: Results) -> RuleResult:
            rows = results.rows(ref)
            if len(rows) > self.row_limit:
                raise self.too_many_rows()
            return RuleResult(rule.name, rule.kind, [self.write(rows)], rows_metric=True)

        return finish

    def by_segment(self, query: CheckedQuery) -> Callable[[Results], Segments] | None:
        """A query of aggregates `by COLUMN`: its items again per segment, in the grouped query of its source."""
        if query.segment is None:
            return None
        segments = SegmentRefs(self, self.read(query.source), query.segment)
        refs = [(name, segments.value(expr)) for (_, name), expr in zip(query.items, fused_items(query), strict=True)]
        return lambda results: segments.finish(results, lambda get: {name: get(ref) for name, ref in refs})

    def too_many_rows(self) -> ResultError:
        return ResultError(
            "TOO_MANY_ROWS",
            f"profiling rule {self.rule.name!r} returns more than {self.row_limit} rows",
            location=self.rule.location,
            text=None,
            hint="add a LIMIT or a GROUP BY",
        )


def fused_items(query: CheckedQuery) -> list[Scalar]:
    """A fused query's items, its WHERE moved into each aggregate's filter (the scan is shared)."""
    where = query.where
    return [
        substitute(
            expr,
            lambda n: AggregateCall(n.fn, n.args, n.dtype, n.distinct, where) if isinstance(n, AggregateCall) else None,
        )
        for expr, _ in query.items
    ]


class ProfilingLowering(QueryLowering):
    kinds = (RuleKind.PROFILING,)

    def lower(self) -> Finisher:
        assert isinstance(self.checked, CheckedQuery)  # the check pass gives profiling rules as queries
        return self.lower_query(self.checked)


def _order_and_limit(relation: Relation, query: CheckedQuery) -> Relation:
    outputs = tuple(Named(expr, name) for expr, name in query.items)
    if query.orders:
        hidden = tuple(Named(o.expr, f"__order{i}") for i, o in enumerate(query.orders))
        relation = Project(relation, outputs + hidden)
        if query.distinct:
            relation = Distinct(relation)
        relation = Sort(
            relation,
            tuple(
                SortKey(Field(h.name, h.expr.dtype), o.ascending, nulls_first=o.ascending)
                for h, o in zip(hidden, query.orders, strict=True)
            ),
        )
        if query.limit is not None:
            relation = Limit(relation, query.limit)
        return Project(relation, tuple(Named(Field(o.name, o.expr.dtype), o.name) for o in outputs))
    relation = Project(relation, outputs)
    if query.distinct:
        relation = Distinct(relation)
    if query.limit is not None:
        relation = Limit(relation, query.limit)
    return relation
