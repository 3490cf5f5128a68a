"""``rows(orders where amount < 0)`` in a check: a constraint in one statement.

Each ``rows(...)`` becomes a measure of its own, named by its text as written
(``select count(*) from orders where amount < 0``), and the check reads that measure: so it joins
its source's one scan like any measure, is stored in the history under that name, and a failing
check shows the rows it counts (``compiler/lowering/failing_rows.py``).
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import Location, did_you_mean
from ..language.ruletree import check_nodes as c
from ..language.ruletree import nodes as n
from ..language.ruletree.nodes import located
from ..rule_kinds import RuleKind
from .suite import MeasureSpec


def with_row_counts(expr: c.CheckExpr, measures: dict[str, MeasureSpec], sources: list[str]) -> c.CheckExpr:
    """``expr`` reading a measure for each ``rows(...)`` in it; the measures are added to
    ``measures`` by name (the same text twice is one measure). A ``rows`` of none of ``sources``
    is an error located there."""

    def walk(node: c.CheckExpr) -> c.CheckExpr:
        if isinstance(node, c.CheckRows) and node.function == "rows":  # another name: the check refuses it
            known_source(node, node.source, sources, f"{node.text} counts the rows of unknown source {node.source!r}")
            measures.setdefault(node.text, _measure(node))
            return measure_read(node.text, node)
        if isinstance(node, c.CheckChain):
            return replace(node, operands=tuple(walk(o) for o in node.operands))
        if isinstance(node, c.CheckUnary):
            return replace(node, operand=walk(node.operand))
        if isinstance(node, c.CheckGroup):
            return replace(node, expr=walk(node.expr))
        if isinstance(node, c.CheckList):
            return replace(node, items=tuple(walk(i) for i in node.items))
        if isinstance(node, c.CheckCall):
            return replace(node, args=tuple(argument(a) for a in node.args))
        if isinstance(node, c.CheckAccess):
            subscripts = tuple(replace(s, index=walk(s.index)) for s in node.subscripts)
            return replace(node, base=walk(node.base), subscripts=subscripts)
        return node  # a literal or a name

    def argument(node: c.CheckExpr | c.CheckNamedArgument) -> c.CheckExpr | c.CheckNamedArgument:
        return replace(node, value=walk(node.value)) if isinstance(node, c.CheckNamedArgument) else walk(node)

    return walk(expr)


def known_source(node: c.CheckExpr, source: str, sources: list[str], problem: str) -> None:
    """Refuse, located at ``node``, a hidden measure's source that the suite does not declare."""
    if source not in sources:
        hint = did_you_mean(source, sources) or 'declare it first: source NAME = csv("path")'
        raise located("UNKNOWN_SOURCE", problem, node, hint)


def measure_read(name: str, node: c.CheckExpr) -> c.CheckAccess:
    """``measures["name"]``, standing where ``node`` was written (a check reads its hidden measure so)."""
    at, text = node.location, node.text
    key = c.CheckSubscript(c.CheckString(name, location=at, text=text), location=at, text=text)
    return c.CheckAccess(c.CheckName("measures", location=at, text=text), (key,), location=at, text=text)


def _measure(rows: c.CheckRows) -> MeasureSpec:
    """The measure counting what ``rows`` names: ``select count(*) from SOURCE [where ...]``."""
    at, text = rows.location, "count(*)"
    star = n.Star(location=at, text="*")
    count = n.FunctionCall(raw_name="count", name="count", distinct=False, args=(star,), location=at, text=text)
    items = (n.SelectItem(expr=count, alias=None, location=at, text=text),)
    return hidden_measure(rows.text, rows.source, items, rows.condition, rows.location, rows.text, "value")


def hidden_measure(
    name: str,
    source: str,
    items: tuple[n.SelectItem, ...],
    where: n.Expr | None,
    at: Location,
    text: str,
    shape: str,
) -> MeasureSpec:
    """A measure a check's expression stands for (``rows(...)``, a drift check's sketch): ``select
    ITEMS from SOURCE [where ...]``, named ``name`` and located where the check wrote it."""
    query = n.SelectQuery(
        location=at,
        text=text,
        distinct=False,
        items=items,
        source=source,
        where=where,
        groups=(),
        having=None,
        orders=(),
        limit=None,
    )
    return MeasureSpec(
        kind=RuleKind.MEASURE.value,
        name=name,
        source=None,
        target=None,
        body=query,
        details={},
        location=at,
        shape=shape,
    )
