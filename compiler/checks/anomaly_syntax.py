"""``anomaly(...)`` as written -> an ``Anomaly`` check, every parameter checked before data is read.

    check "rows steady": anomaly(measures["rows"], normal(k = 3, window = 14), direction = down, min_history = 5)

The first argument is what is watched: ``measures["m"]`` or ``metrics["rule"]["key"]``, with
constant subscripts (its earlier values come from the history); the second a strategy call;
then named options. Strategies take named parameters only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Protocol

from ..errors import InvalidInput, did_you_mean
from ..language.ruletree import check_nodes as c
from ..language.ruletree.nodes import Node
from ..language.time_literals import duration_ms
from ..plan.data_types import DataType
from .anomaly import (
    DIRECTIONS,
    AbsoluteChange,
    Anomaly,
    MinChange,
    Normal,
    OnlineNormal,
    RelativeChange,
    Seasonal,
    Strategy,
)
from .check_functions import BaselineQuery, is_number
from .holt_winters import HoltWinters, MissingExtra, exponential_smoothing
from .tree_nodes import Const, Index, MeasureRef, MetricRef, Traced, Unary

DEFAULT_WINDOW = 30  # baseline runs of ``normal`` when the check does not say
DEFAULT_K = 3.0
DEFAULT_RELEARN_AFTER = 3  # consecutive anomalies after which their level is the baseline (0: never)

# each strategy's parameters and their defaults (None: unbounded, or required below)
STRATEGY_PARAMETERS: dict[str, dict[str, object]] = {
    "normal": {"k": DEFAULT_K, "window": DEFAULT_WINDOW},
    "online_normal": {"k": DEFAULT_K},
    "absolute_change": {"max_increase": None, "max_decrease": None, "order": 1},
    "relative_change": {"max_increase": None, "max_decrease": None, "order": 1},
    "seasonal": {"period": None, "max_increase": None, "max_decrease": None},
    # a week of daily runs, fitted on the newest eight weeks
    "holt_winters": {"seasonal_periods": 7, "k": DEFAULT_K, "window": 56},
}
# every strategy's: how its baseline re-learns after a level shift
for _parameters in STRATEGY_PARAMETERS.values():
    _parameters["relearn_after"] = DEFAULT_RELEARN_AFTER
OPTIONS: dict[str, object] = {
    "direction": "both",
    "min_history": 0,
    "include_failed": False,
    "include_anomalies": False,
    "min_change": None,
}


class Builder(Protocol):
    """What ``check_tree``'s builder lends: building a sub-expression and located errors."""

    def build(self, node: c.CheckExpr) -> object: ...

    def error(self, code: str, message: str, node: Node, hint: str | None = None) -> InvalidInput: ...


# a measure's columns and their types, where the check pass knows them (a DSL query's)
MeasureTypes = Mapping[str, tuple[tuple[str, DataType], ...]]


def build_anomaly(builder: Builder, node: c.CheckCall, check: str, measure_types: MeasureTypes) -> Anomaly:
    def bad(message: str, at: Node, hint: str | None = None) -> InvalidInput:
        return builder.error("BAD_ANOMALY_CHECK", message, at, hint)

    positional = [arg for arg in node.args if not isinstance(arg, c.CheckNamedArgument)]
    named = [arg for arg in node.args if isinstance(arg, c.CheckNamedArgument)]
    if len(positional) != 2 or node.args[:2] != tuple(positional):
        raise bad(
            "anomaly() takes what it watches and a strategy, then named options",
            node,
            'e.g. anomaly(measures["rows"], normal(k = 3, window = 14), direction = down)',
        )
    subject_node, strategy_node = positional
    subject = builder.build(subject_node)
    query, path = _watched(builder, subject, subject_node, check, measure_types)
    options = _named(builder, named, OPTIONS, "anomaly()")
    direction = options["direction"]
    if direction not in DIRECTIONS:
        raise bad(f"direction must be up, down or both, got {direction!r}", _arg(named, "direction", node))
    min_history = _count(builder, options["min_history"], "min_history", 0, _arg(named, "min_history", node))
    for flag in ("include_failed", "include_anomalies"):
        if not isinstance(options[flag], bool):
            raise bad(f"{flag} must be true or false, got {options[flag]!r}", _arg(named, flag, node))
    strategy, relearn_after = _strategy(builder, strategy_node)
    if isinstance(strategy, (Normal, HoltWinters)) and strategy.window < min_history:
        raise bad(
            f"a window of {strategy.window} runs can never hold min_history = {min_history}",
            strategy_node,
            "make the window at least min_history",
        )
    if isinstance(strategy, (AbsoluteChange, RelativeChange, Seasonal)) and _unbounded(strategy, str(direction)):
        raise bad(
            f"{_strategy_name(strategy)}() bounds no change in direction {direction}",
            strategy_node,
            "give max_increase and/or max_decrease for the direction watched",
        )
    query = BaselineQuery(
        query.source,
        query.name,
        check,
        bool(options["include_failed"]),
        bool(options["include_anomalies"]),
        relearn_after,
    )
    min_change = _min_change(builder, options["min_change"], _arg(named, "min_change", node))
    return Anomaly(subject, query, path, strategy, str(direction), min_history, min_change)


def _watched(
    builder: Builder, subject: object, node: c.CheckExpr, check: str, measure_types: MeasureTypes
) -> tuple[BaselineQuery, tuple[str | int, ...]]:
    """What the history stores for the subject, and the subject's subscripts below that."""
    expr = subject.expr if isinstance(subject, Traced) else subject
    path: list[str | int] = []
    while isinstance(expr, Index) and isinstance(expr.index, Const) and isinstance(expr.index.value, (str, int)):
        path.insert(0, expr.index.value)
        expr = expr.base
    if isinstance(expr, MeasureRef):
        _numeric_measure(builder, expr.name, tuple(path), node, measure_types)
        return BaselineQuery("measure", expr.name, check), tuple(path)
    if isinstance(expr, MetricRef) and path:
        return BaselineQuery("metric", expr.rule, check), tuple(path)
    raise builder.error(
        "BAD_ANOMALY_CHECK",
        "anomaly() watches a measure or a rule's metric, with constant subscripts",
        node,
        'write measures["name"] or metrics["rule"]["key"]',
    )


def _numeric_measure(
    builder: Builder, name: str, path: tuple[str | int, ...], node: Node, measure_types: MeasureTypes
) -> None:
    columns = measure_types.get(name)
    if columns is None:
        return  # Spark SQL text: its type is known only when it runs
    if not path:
        found = columns[0] if len(columns) == 1 else None
    elif isinstance(path[0], str):
        found = next((column for column in columns if column[0] == path[0]), None)
    else:
        found = columns[path[0]] if -len(columns) <= path[0] < len(columns) else None
    if found is not None and len(path) <= 1 and not found[1].is_numeric:
        raise builder.error(
            "ANOMALY_NOT_NUMERIC",
            f"an anomaly check watches measure {name!r}, whose value is {found[1]}, not a number",
            node,
            "watch a count, sum, average or other number",
        )


def _strategy(builder: Builder, node: c.CheckExpr) -> tuple[Strategy, int]:
    """The strategy written, and its ``relearn_after``."""
    call = node.expr if isinstance(node, c.CheckGroup) else node
    if not isinstance(call, c.CheckCall) or call.name not in STRATEGY_PARAMETERS:
        name = call.name if isinstance(call, c.CheckCall) else None
        raise builder.error(
            "BAD_ANOMALY_CHECK",
            f"unknown anomaly strategy {name!r}" if name else "anomaly()'s second argument is a strategy",
            node,
            (did_you_mean(name, STRATEGY_PARAMETERS) if name else None)
            or "normal(...), online_normal(...), absolute_change(...), relative_change(...), seasonal(...) or "
            "holt_winters(...)",
        )
    positional = [arg for arg in call.args if not isinstance(arg, c.CheckNamedArgument)]
    if positional:
        raise builder.error(
            "BAD_ANOMALY_CHECK",
            f"{call.name}() takes named parameters only",
            positional[0],
            f"name it: {', '.join(STRATEGY_PARAMETERS[call.name])}",
        )
    named = [arg for arg in call.args if isinstance(arg, c.CheckNamedArgument)]
    values = _named(builder, named, STRATEGY_PARAMETERS[call.name], f"{call.name}()")

    def at(name: str) -> Node:
        return _arg(named, name, call)

    relearn_after = _count(builder, values["relearn_after"], "relearn_after", 0, at("relearn_after"))
    return _strategy_of(builder, call, values, at), relearn_after


def _strategy_of(builder: Builder, call: c.CheckCall, values: dict[str, object], at: Callable[[str], Node]) -> Strategy:
    if call.name == "online_normal":
        return OnlineNormal(_k(builder, values["k"], at("k")))
    if call.name == "normal":
        return Normal(_k(builder, values["k"], at("k")), _count(builder, values["window"], "window", 1, at("window")))
    if call.name == "holt_winters":
        return _holt_winters(builder, values, call, at)
    increase = _limit(builder, values["max_increase"], "max_increase", at("max_increase"))
    decrease = _limit(builder, values["max_decrease"], "max_decrease", at("max_decrease"))
    if call.name == "seasonal":
        return Seasonal(_period(builder, values["period"], at("period")), increase, decrease)
    order = _count(builder, values["order"], "order", 1, at("order"))
    return (AbsoluteChange if call.name == "absolute_change" else RelativeChange)(increase, decrease, order)


def _k(builder: Builder, k: object, at: Node) -> float:
    if not is_number(k) or not k > 0:  # type: ignore[operator]
        raise builder.error("BAD_ANOMALY_CHECK", f"k must be a number > 0, got {k!r}", at)
    return float(k)  # type: ignore[arg-type]


def _holt_winters(
    builder: Builder, values: dict[str, object], call: c.CheckCall, at: Callable[[str], Node]
) -> HoltWinters:
    season = _count(builder, values["seasonal_periods"], "seasonal_periods", 2, at("seasonal_periods"))
    k = _k(builder, values["k"], at("k"))
    window = _count(builder, values["window"], "window", 1, at("window"))
    if window < 2 * season:
        raise builder.error(
            "BAD_ANOMALY_CHECK",
            f"a window of {window} runs is less than two seasons of {season} runs",
            at("window"),
            f"make the window at least {2 * season}",
        )
    try:
        exponential_smoothing()
    except MissingExtra as missing:
        raise builder.error("ANOMALY_EXTRA_MISSING", str(missing), call, 'pip install "gryph[anomaly]"') from None
    return HoltWinters(season, k, window)


def _named(builder: Builder, args: list[c.CheckNamedArgument], known: dict[str, object], fn: str) -> dict[str, object]:
    """The named arguments' constant values over their defaults."""
    values = dict(known)
    seen: set[str] = set()
    for arg in args:
        if arg.name not in known:
            strategy_parameter = fn == "anomaly()" and arg.name == "relearn_after"
            raise builder.error(
                "BAD_ANOMALY_CHECK",
                f"{fn} has no parameter {arg.name!r}",
                arg,
                "relearn_after is the strategy's: normal(window = 14, relearn_after = 3)"
                if strategy_parameter
                else did_you_mean(arg.name, known) or f"its parameters: {', '.join(known)}",
            )
        if arg.name in seen:
            raise builder.error("BAD_ANOMALY_CHECK", f"{arg.name} is given twice", arg)
        seen.add(arg.name)
        values[arg.name] = constant_argument(builder, arg)
    return values


def constant_argument(builder: Builder, arg: c.CheckNamedArgument) -> object:
    """A parameter's value: a number (signed), string, boolean, or a bare word (``down``)."""
    if isinstance(arg.value, c.CheckName):
        return arg.value.name.lower()
    built = builder.build(arg.value)
    if isinstance(built, Const):
        return built.value
    if isinstance(built, Unary) and built.op in "+-" and isinstance(built.operand, Const):
        value = built.operand.value
        if is_number(value):
            return -value if built.op == "-" else value  # type: ignore[operator]
    raise builder.error("NOT_CONSTANT", f"{arg.name} must be a constant", arg.value)


def _arg(args: list[c.CheckNamedArgument], name: str, default: Node) -> Node:
    """Where the named argument is written (the call, when it is left to its default)."""
    return next((arg for arg in args if arg.name == name), default)


def _min_change(builder: Builder, value: object, at: Node) -> MinChange | None:
    """``min_change = 5`` (in the value's units) or ``min_change = "1%"`` (of the expected value)."""
    if value is None:
        return None
    if isinstance(value, str):
        percent = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", value)
        if percent is not None:
            return MinChange(float(percent[1]) / 100, relative=True)
    elif is_number(value) and math.isfinite(value) and value >= 0:  # type: ignore[arg-type,operator]
        return MinChange(float(value), relative=False)  # type: ignore[arg-type]
    raise builder.error(
        "BAD_ANOMALY_CHECK",
        f"min_change must be a number >= 0 or a percentage, got {value!r}",
        at,
        'e.g. min_change = "1%" (of the expected value) or min_change = 5 (in the value\'s units)',
    )


def _count(builder: Builder, value: object, name: str, least: int, at: Node) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise builder.error(
            "BAD_ANOMALY_CHECK",
            f"{name} must be a whole number >= {least}, got {value!r}",
            at,
            f"e.g. {name} = {max(least, 5)}",
        )
    return value


def _limit(builder: Builder, value: object, name: str, at: Node) -> float | None:
    if value is None:
        return None
    if not is_number(value) or not value >= 0:  # type: ignore[operator]
        raise builder.error(
            "BAD_ANOMALY_CHECK", f"{name} must be a number >= 0 (the size of a change), got {value!r}", at
        )
    return float(value)  # type: ignore[arg-type]


def _period(builder: Builder, value: object, at: Node) -> int:
    try:
        ms = duration_ms(value) if isinstance(value, str) else None
    except ValueError as error:
        raise builder.error("BAD_ANOMALY_CHECK", f"period {error}", at) from None
    if ms is None:
        raise builder.error("BAD_ANOMALY_CHECK", f'seasonal() needs a period such as "7d", got {value!r}', at)
    return ms


def _strategy_name(strategy: Strategy) -> str:
    names: dict[type, str] = {
        AbsoluteChange: "absolute_change",
        RelativeChange: "relative_change",
        Seasonal: "seasonal",
    }
    return names[type(strategy)]


def _unbounded(strategy: AbsoluteChange | RelativeChange | Seasonal, direction: str) -> bool:
    """Whether no limit applies to the direction watched (so nothing could ever be an anomaly)."""
    up = strategy.max_increase is not None and direction in ("up", "both")
    down = strategy.max_decrease is not None and direction in ("down", "both")
    return not (up or down)
