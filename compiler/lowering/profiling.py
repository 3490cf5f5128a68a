"""Profiling: a SQL-like query over one source; its result rows are the metric.

A query of aggregates only (no group by, having, order or limit) joins the source's shared
scan: its ``where`` becomes the aggregates' filter. Anything else is a query of its own,
brought back whole up to ``ROW_LIMIT`` rows (more is an error, never a silent cut).
"""

from __future__ import annotations

from ..collect import Results
from ..errors import ResultError
from ..numbers import number_from_text
from ..plan import (
    AggregateCall,
    Aggregate,
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
    children,
    contains_aggregate,
    substitute,
    walk,
)
from ..resolve import INT64_MAX, Context, Resolver
from ..results import RuleResult
from ..ruletree.nodes import Expr, Name, OrderItem, SelectQuery, Selection, Star, StarStep
from .common import Finisher, RuleLowering

ROW_LIMIT = 10_000


class ProfilingLowering(RuleLowering):
    kinds = ("profiling",)
    row_limit = ROW_LIMIT  # rows a query may return before it is an error

    def lower(self) -> Finisher:
        rule, query = self.rule, self.body_as(SelectQuery)
        source = self._source()
        read = self.read(source)
        self.resolver = Resolver(self.source_scope(source))
        where = self.resolver.condition(query.where, Context(clause="where")) if query.where else None
        items = self._items(query)
        groups = [self.resolver.expression(g, Context(clause="group by")) for g in query.groups]
        # HAVING may name select aliases, as Spark SQL allows (columns of the source win)
        self.resolver.scope.aliases = {name: expr for expr, name in items}
        having = (
            self.resolver.condition(query.having, Context(aggregates=True, clause="having")) if query.having else None
        )
        aggregated = bool(groups) or having is not None or any(contains_aggregate(e) for e, _ in items)
        names = [name for _, name in items]

        if (
            aggregated
            and not (groups or having or query.orders or query.limit or query.distinct)
            and not any(_outside_aggregates(expr) for expr, _ in items)
        ):
            refs = [
                self.collector.value(
                    read,
                    substitute(
                        expr,
                        lambda n: (
                            AggregateCall(n.fn, n.args, n.dtype, n.distinct, where)
                            if isinstance(n, AggregateCall)
                            else None
                        ),
                    ),
                )
                for expr, _ in items
            ]

            def finish_fused(results: Results) -> RuleResult:
                row = {name: results.value(ref) for name, ref in zip(names, refs)}
                return RuleResult(rule.name, rule.kind, [self.write([row])], rows_metric=True)

            return finish_fused

        base: Relation = Filter(read, where) if where is not None else read
        if aggregated:
            base, items, order_scope = self._aggregate(base, items, groups, having, query)
        else:
            order_scope = None
        relation = self._order_and_limit(base, items, query, order_scope)
        ref = self.collector.rows(relation, self.row_limit + 1)

        def finish(results: Results) -> RuleResult:
            rows = results.rows(ref)
            if len(rows) > self.row_limit:
                raise self.too_many_rows()
            return RuleResult(rule.name, rule.kind, [self.write(rows)], rows_metric=True)

        return finish

    def too_many_rows(self) -> ResultError:
        return ResultError(
            "TOO_MANY_ROWS",
            f"profiling rule {self.rule.name!r} returns more than {self.row_limit} rows",
            location=self.rule.location,
            text=None,
            hint="add a LIMIT or a GROUP BY",
        )

    def _source(self) -> str:
        named = self.body_as(SelectQuery).source
        if named and self.rule.source and named != self.rule.source and not self.rule.details.get("source"):
            raise self.error(
                "CONFLICTING_SOURCE",
                f"{self.rule.kind} {self.rule.name!r} is on {self.rule.source} but reads from {named}",
                hint="drop the FROM clause or the ON clause",
            )
        source = named or self.rule.source
        if source is None:
            if len(self.schemas) == 1:
                return next(iter(self.schemas))
            raise self.error(
                "MISSING_SOURCE",
                f"{self.rule.kind} {self.rule.name!r} names no source",
                hint="add FROM <source> to the query",
            )
        return source

    def _items(self, query: SelectQuery) -> list[tuple[Scalar, str]]:
        """Select items as (expression, output name); ``*`` and ``src.*`` expand to columns.

        ``self.item_nodes`` holds, for each item, the select item it came from (for errors).
        """
        items: list[tuple[Scalar, str]] = []
        self.item_nodes = []
        ctx = Context(aggregates=True, clause="select")
        for item in query.items:
            columns = self._star_columns(item.expr)
            if columns is not None:
                expanded = [(Field(c.name, c.dtype), c.name) for c in columns]
            else:
                expr = self.resolver.expression(item.expr, ctx)
                expanded = [(expr, self.output_name(item, expr))]
            items.extend(expanded)
            self.item_nodes.extend(item for _ in expanded)
        seen: set[str] = set()
        for (_, name), item in zip(items, self.item_nodes):
            if name in seen:
                raise self.resolver.scope.error(
                    "DUPLICATE_NAME", f"two columns are named {name!r}", item, "give one an alias with AS"
                )
            seen.add(name)
        return items

    def _star_columns(self, node: Expr):
        """The columns ``*`` or ``source.*`` stands for, None for any other item."""
        scope = self.resolver.scope
        side = scope.sides[scope.default[0]]
        if isinstance(node, Star):
            return side.schema.columns
        if (
            isinstance(node, Selection)
            and isinstance(node.base, Name)
            and len(node.steps) == 1
            and isinstance(node.steps[0], StarStep)
        ):
            head = scope.side_of_head(node.base.name)
            if head is None:
                raise scope.error("UNKNOWN_SOURCE", f"unknown data source {node.base.text!r}", node)
            return head.schema.columns
        return None

    def _aggregate(self, base: Relation, items, groups, having, query):
        """Group, compute aggregates and filter with HAVING; items refer to the results."""
        keys = [Named(g, f"__group{i}") for i, g in enumerate(groups)]
        measures: dict[AggregateCall, str] = {}

        def rewrite(expr: Scalar, node) -> Scalar:
            def replace(sub):
                for key in keys:
                    if sub == key.expr:
                        return Field(key.name, key.expr.dtype)
                if isinstance(sub, AggregateCall):
                    name = measures.setdefault(sub, f"__agg{len(measures)}")
                    return Field(name, sub.dtype)
                return None

            result = substitute(expr, replace)
            loose = [
                n.name
                for n in walk(result)
                if isinstance(n, Field) and n.name not in measures.values() and not n.name.startswith("__group")
            ]
            if loose:
                raise self.resolver.scope.error(
                    "NOT_GROUPED",
                    f"column {loose[0]!r} is neither grouped nor aggregated",
                    node,
                    f"add it to GROUP BY or use an aggregate such as max({loose[0]})",
                )
            return result

        rewritten = [(rewrite(expr, node), name) for (expr, name), node in zip(items, self.item_nodes)]
        having_expr = rewrite(having, query.having) if having is not None else None
        order_scope = (rewrite, {name: expr for expr, name in rewritten})
        # order keys may add aggregates: resolve them before the Aggregate node is built
        self._order_exprs = [self._order_expr(o, order_scope) for o in query.orders]
        relation: Relation = Aggregate(base, tuple(keys), tuple(Named(c, n) for c, n in measures.items()))
        if having_expr is not None:
            relation = Filter(relation, having_expr)
        return relation, rewritten, order_scope

    def _order_expr(self, order: OrderItem, order_scope) -> Scalar:
        node = order.expr
        if isinstance(node, Name):
            aliases = order_scope[1] if order_scope else {}
            if node.name in aliases:
                return aliases[node.name]
        expr = self.resolver.expression(node, Context(aggregates=order_scope is not None, clause="order by"))
        return order_scope[0](expr, node) if order_scope else expr

    def _order_and_limit(self, relation: Relation, items, query, order_scope) -> Relation:
        outputs = tuple(Named(expr, name) for expr, name in items)
        if query.orders:
            order_exprs = self._order_exprs if order_scope else [self._order_expr(o, None) for o in query.orders]
            hidden = tuple(Named(e, f"__order{i}") for i, e in enumerate(order_exprs))
            relation = Project(relation, outputs + hidden)
            if query.distinct:
                relation = Distinct(relation)
            relation = Sort(
                relation,
                tuple(
                    SortKey(Field(h.name, h.expr.dtype), ascending, nulls_first=ascending)
                    for h, ascending in zip(hidden, [not o.descending for o in query.orders])
                ),
            )
            if query.limit:
                relation = Limit(relation, self._limit(query))
            return Project(relation, tuple(Named(Field(o.name, o.expr.dtype), o.name) for o in outputs))
        relation = Project(relation, outputs)
        if query.distinct:
            relation = Distinct(relation)
        if query.limit:
            relation = Limit(relation, self._limit(query))
        return relation

    def _limit(self, query: SelectQuery) -> int:
        """The LIMIT count: a row count both engines take (64 bits at most)."""
        count = number_from_text(str(query.limit))
        if not count <= INT64_MAX:
            raise self.error(
                "LIMIT_TOO_LARGE",
                f"LIMIT {str(query.limit)[:24]} is beyond what an engine takes",
                hint=f"use at most {INT64_MAX}",
            )
        return int(count)


def _outside_aggregates(expr: Scalar) -> bool:
    """Whether a column is read outside every aggregate of ``expr`` (it needs grouping)."""
    if isinstance(expr, AggregateCall):
        return False
    if isinstance(expr, Field):
        return True
    return any(_outside_aggregates(child) for child in children(expr))
