"""Checker of profiling queries and measures: the source, every clause resolved, the grouping
decided (a column outside GROUP BY and aggregates is an error here), ORDER BY and LIMIT."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..language.number_literals import number_from_text
from ..language.ruletree.nodes import (
    Expr,
    Name,
    Node,
    OrderItem,
    Selection,
    SelectItem,
    SelectQuery,
    Star,
    StarStep,
    located,
)
from ..plan import AggregateCall, Field, Named, Scalar, contains_aggregate, substitute, walk
from ..plan.data_types import Column
from ..plan.scalars import children
from ..rule_kinds import RuleKind
from ..suites.suite import NativeSql
from .checked_rules import CheckedQuery, CheckedRule, Grouping, OrderKey
from .resolve import INT64_MAX, Context, Resolver
from .rule_checker import RuleChecker, output_name

Items = list[tuple[Scalar, str]]
# rewrites an expression over a grouping's names (the node says where a loose column stands)
Rewrite = Callable[[Scalar, Node], Scalar]


class QueryChecker(RuleChecker):
    kind = RuleKind.PROFILING
    segmented = True

    def check(self) -> CheckedRule:
        return self.segmented_query(self.check_query(self.body_as(SelectQuery)))

    def segmented_query(self, checked: CheckedQuery) -> CheckedQuery:
        """The checked query with its `by COLUMN`: a query of aggregates only, split per segment."""
        segment = self.rule.segment
        if segment is not None and not checked.fused:
            what = "measure" if self.kind is RuleKind.MEASURE else f"{self.kind} rule"
            raise located("UNSUPPORTED", f"this {what}'s query is not split by segment", segment, NOT_SEGMENTED_HINT)
        # a column of the source, never a name the query gives
        return replace(checked, segment=self.segment_field(Resolver(self.source_scope(checked.source))))

    def check_query(self, query: SelectQuery) -> CheckedQuery:
        source = self._source(query)
        self.schema(source)
        self.resolver = Resolver(self.source_scope(source))
        where = self.resolver.condition(query.where, Context(clause="where")) if query.where else None
        items, item_nodes = self._items(query)
        groups = [self.resolver.expression(g, Context(clause="group by")) for g in query.groups]
        # HAVING may name select aliases, as Spark SQL allows (columns of the source win)
        self.resolver.scope.aliases = {name: expr for expr, name in items}
        having = (
            self.resolver.condition(query.having, Context(aggregates=True, clause="having")) if query.having else None
        )
        aggregated = bool(groups) or having is not None or any(contains_aggregate(e) for e, _ in items)
        fused = (
            aggregated
            and not (groups or having or query.orders or query.limit or query.distinct)
            and not any(_outside_aggregates(expr) for expr, _ in items)
        )
        grouping: Grouping | None = None
        orders: tuple[OrderKey, ...] = ()
        if fused:
            pass
        elif aggregated:
            items, grouping, orders = self._aggregate(items, item_nodes, groups, having, query)
        else:
            orders = tuple(self._order_key(o, None, {}) for o in query.orders)
        limit = self._limit(query) if query.limit else None
        return CheckedQuery(self.rule, source, where, tuple(items), fused, grouping, orders, query.distinct, limit)

    def _source(self, query: SelectQuery) -> str:
        named = query.source
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

    def _items(self, query: SelectQuery) -> tuple[Items, list[SelectItem]]:
        """Select items as (expression, output name), with the select item each came from (for
        errors); ``*`` and ``src.*`` expand to columns."""
        items: Items = []
        item_nodes: list[SelectItem] = []
        ctx = Context(aggregates=True, clause="select")
        for item in query.items:
            columns = self._star_columns(item.expr)
            if columns is not None:
                expanded: Items = [(Field(c.name, c.dtype), c.name) for c in columns]
            else:
                expr = self.resolver.expression(item.expr, ctx)
                expanded = [(expr, output_name(item, expr))]
            items.extend(expanded)
            item_nodes.extend(item for _ in expanded)
        seen: set[str] = set()
        for (_, name), item in zip(items, item_nodes, strict=True):
            if name in seen:
                raise self.resolver.scope.error(
                    "DUPLICATE_NAME", f"two columns are named {name!r}", item, "give one an alias with AS"
                )
            seen.add(name)
        return items, item_nodes

    def _star_columns(self, node: Expr) -> tuple[Column, ...] | None:
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

    def _aggregate(
        self,
        items: Items,
        item_nodes: list[SelectItem],
        groups: list[Scalar],
        having: Scalar | None,
        query: SelectQuery,
    ) -> tuple[Items, Grouping, tuple[OrderKey, ...]]:
        """Group keys and aggregates; items, HAVING and ORDER BY rewritten over their names."""
        keys = [Named(g, f"__group{i}") for i, g in enumerate(groups)]
        measures: dict[AggregateCall, str] = {}

        def rewrite(expr: Scalar, node: Node) -> Scalar:
            def replace(sub: Scalar) -> Scalar | None:
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

        rewritten = [(rewrite(expr, node), name) for (expr, name), node in zip(items, item_nodes, strict=True)]
        having_expr = rewrite(having, query.having) if having is not None and query.having is not None else None
        aliases = {name: expr for expr, name in rewritten}
        # order keys may add aggregates: resolve them before the aggregates are listed
        orders = tuple(self._order_key(o, rewrite, aliases) for o in query.orders)
        aggregates = tuple(Named(call, name) for call, name in measures.items())
        return rewritten, Grouping(tuple(keys), aggregates, having_expr), orders

    def _order_key(self, order: OrderItem, rewrite: Rewrite | None, aliases: dict[str, Scalar]) -> OrderKey:
        node = order.expr
        ascending = not order.descending
        if isinstance(node, Name) and node.name in aliases:
            return OrderKey(aliases[node.name], ascending)
        expr = self.resolver.expression(node, Context(aggregates=rewrite is not None, clause="order by"))
        return OrderKey(rewrite(expr, node) if rewrite is not None else expr, ascending)

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


class MeasureChecker(QueryChecker):
    """A measure: a query checked like a profiling query, or SQL text that runs as is."""

    kind = RuleKind.MEASURE
    segmented = True

    def check(self) -> CheckedRule:
        segment = self.rule.segment
        if isinstance(self.rule.body, (str, NativeSql)):
            if segment is not None:
                raise located(
                    "UNSUPPORTED", "a measure's SQL text is not split by segment", segment, NOT_SEGMENTED_HINT
                )
            return CheckedRule(self.rule)
        return self.segmented_query(self.check_query(self.body_as(SelectQuery)))


# what a measure `by COLUMN` may be: aggregates that join the source's shared scan
NOT_SEGMENTED_HINT = (
    "a measure or profiling query by a column is of aggregates only: no GROUP BY, ORDER BY, LIMIT or DISTINCT "
    "(or GROUP BY the column in the query itself, without `by`)"
)


def _outside_aggregates(expr: Scalar) -> bool:
    """Whether a column is read outside every aggregate of ``expr`` (it needs grouping)."""
    if isinstance(expr, AggregateCall):
        return False
    if isinstance(expr, Field):
        return True
    return any(_outside_aggregates(child) for child in children(expr))
