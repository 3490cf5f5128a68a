"""``drift(orders.amount)`` in a check: the column's distribution sketched in the source's scan.

Each column a drift check compares gets a hidden measure of its own, named ``sketch(orders.amount)``
and stored in the history with the run like any measure: the rows counted, the column's values
(NaN included), its NaN values, and 21 exact quantiles (``percentile_disc`` at 0, 5%, ..., 100%
over the values that are neither NULL nor NaN), which both engines compute alike. The check
(``compiler/checks/drift.py``) compares this run's sketch with the previous run's.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import InvalidInput
from ..language.ruletree import check_nodes as c
from ..language.ruletree import nodes as n
from .row_counts import hidden_measure, known_source, measure_read
from .suite import MeasureSpec, RuleSpec

QUANTILE_STEPS = 20  # quantiles at 0, 1/20, ..., 20/20 of the values
ROWS, VALUES, NANS = "rows", "values", "nan"
ROWS_AT, COUNTED_AT = 0, 1  # the sketch's items count(*) and count(col)


def quantile_name(step: int) -> str:
    """The sketch's column of quantile ``step`` / QUANTILE_STEPS: ``p000`` ... ``p100`` (percent)."""
    return f"p{step * 100 // QUANTILE_STEPS:03d}"


def sketch_name(column: c.CheckColumn) -> str:
    return f"sketch({column.text})"


def with_drift_sketches(expr: c.CheckExpr, measures: dict[str, MeasureSpec], sources: list[str]) -> c.CheckExpr:
    """``expr`` with a ``drift(source.column, ...)`` at its top reading the column's sketch measure,
    added to ``measures`` by name (the same column twice is one measure)."""
    top = expr
    while isinstance(top, c.CheckGroup):
        top = top.expr
    if not (isinstance(top, c.CheckCall) and top.name == "drift" and top.args):
        return expr
    column = top.args[0]
    if not isinstance(column, c.CheckColumn):
        return expr  # the check pass says what drift() compares
    known_source(column, column.source, sources, f"drift({column.text}) reads unknown source {column.source!r}")
    name = sketch_name(column)
    measures.setdefault(name, _measure(column, name))
    read = measure_read(name, column)
    return replace(top, args=(read, *top.args[1:]))


def as_drift_error(error: InvalidInput, measure: RuleSpec) -> InvalidInput:
    """A sketch measure's type error said as its drift check's: the column is not a number."""
    if not (isinstance(measure, MeasureSpec) and measure.name.startswith("sketch(") and error.code == "TYPE_MISMATCH"):
        return error
    column = measure.name.removeprefix("sketch(").removesuffix(")")
    return InvalidInput(
        "BAD_DRIFT_CHECK",
        f"drift() compares a column of numbers, text or booleans, and {column} is none of them",
        location=measure.location,
        text=f"drift({column})",
        hint="a date's drift: read it as a number of days (a database source's query = \"select ...\") and compare that",
    )


def _measure(column: c.CheckColumn, name: str) -> MeasureSpec:
    """``select count(*) as rows, count(col) as values, count_if(isnan(col)) as nan,
    percentile_approx(nanvl(col, null), 0.0) as p000, ... from source``."""
    at = column.location

    def call(fn: str, *args: n.Expr) -> n.FunctionCall:
        text = f"{fn}({', '.join(arg.text for arg in args)})"
        return n.FunctionCall(raw_name=fn, name=fn, distinct=False, args=args, location=at, text=text)

    def item(expr: n.Expr, alias: str) -> n.SelectItem:
        return n.SelectItem(expr=expr, alias=alias, location=at, text=f"{expr.text} as {alias}")

    value = n.Name(name=column.column, location=at, text=_quoted(column.column))
    kept = call("nanvl", value, n.NullLit(location=at, text="null"))
    fractions = [(step, f"{step / QUANTILE_STEPS}") for step in range(QUANTILE_STEPS + 1)]
    items = (
        item(call("count", n.Star(location=at, text="*")), ROWS),
        item(call("count", value), VALUES),
        item(call("count_if", call("isnan", value)), NANS),
        *(
            item(
                call("percentile_approx", kept, n.NumberLit(token=token, location=at, text=token)), quantile_name(step)
            )
            for step, token in fractions
        ),
    )
    return hidden_measure(name, column.source, items, None, at, column.text, "map")


def _quoted(name: str) -> str:
    return name if name.isidentifier() else "`" + name.replace("`", "``") + "`"
