"""The check language's syntax tree, built from parsed checks with every name checked.

Checks are validated before any data is read: ``measures["x"]`` must name a measure of the
suite and ``metrics["r"]`` a rule, with a string literal; a function must exist and get the
right number of arguments; nesting is bounded. Errors carry the line and column (exit 2).
An ``anomaly(...)`` is a whole check (``anomaly_syntax``), as is a ``drift(...)`` (``drift_syntax``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ErrorList, InvalidInput, Location, did_you_mean
from ..language.number_literals import number_from_text
from ..language.ruletree import check_nodes as c
from ..language.ruletree.nodes import Node, located
from ..plan.data_types import Schema
from ..sources.typed_text import metrics_name, typed_sources
from ..suites.drift_frequencies import SHAPE as FREQUENCIES
from ..suites.suite import CheckSpec, NotifySpec, PassSpec, SchemaSpec, Suite
from .anomaly import Anomaly
from .anomaly_syntax import STRATEGY_PARAMETERS, MeasureTypes, build_anomaly
from .check_functions import FUNCTIONS
from .drift_syntax import build_drift
from .schema_checks import SchemaCheck, columns_of
from .segment_checks import SegmentedReads, segmented_reads
from .tree_nodes import Binary, Call, Const, Index, ListOf, MeasureRef, MetricRef, Traced, Unary

MAX_DEPTH = 64  # nesting of a check expression; deeper is an error, not a stack overflow
# functions of checks read before a call is built (rows(...) by the parser, as a measure; anomaly
# and drift as whole checks): a name near one of them is most likely it
_FORMS = ("rows", "anomaly", "drift")


@dataclass(frozen=True)
class CompiledCheck:
    spec: CheckSpec | SchemaSpec
    expr: object
    by_segment: SegmentedReads | None = None  # `check ... by COLUMN`: judged per segment


class _Builder:
    def __init__(self, suite: Suite, measure_types: MeasureTypes) -> None:
        self.suite = suite
        self.measures = [m.name for m in suite.measures]
        # a rule's metrics, and the counts of each source read into declared types (typed_text.py)
        self.rules = [r.name for r in suite.rules] + [metrics_name(s) for s in typed_sources(suite.sources)]
        self.measure_types = measure_types

    error = staticmethod(located)

    def check(self, check: CheckSpec) -> CompiledCheck:
        compiled = self._check(check)
        if check.segment is None:
            return compiled
        read = compiled.expr.subject if isinstance(compiled.expr, Anomaly) else compiled.expr
        return replace(compiled, by_segment=segmented_reads(self.suite, check, read))

    def _check(self, check: CheckSpec) -> CompiledCheck:
        top = check.expr
        while isinstance(top, c.CheckGroup):
            top = top.expr
        if isinstance(top, c.CheckCall) and top.name == "anomaly":
            return CompiledCheck(check, build_anomaly(self, top, check.name, self.measure_types))
        if isinstance(top, c.CheckCall) and top.name == "drift":
            categorical = {m.name for m in self.suite.measures if m.shape == FREQUENCIES}
            return CompiledCheck(check, build_drift(self, top, check.name, categorical))
        expr = self.build(check.expr)
        # operator chains fold into nested nodes: bound the depth of the result, not only of the text
        if _too_deep(expr):
            raise self.too_deep(check.expr)
        return CompiledCheck(check, expr)

    def too_deep(self, node: Node) -> InvalidInput:
        return self.error(
            "CHECK_TOO_DEEP", f"the check nests deeper than {MAX_DEPTH} levels", node, "split it into several checks"
        )

    def build(self, node: c.CheckExpr) -> object:
        if isinstance(node, c.CheckChain):
            expr = self.build(node.operands[0])
            for op, operand in zip(node.ops, node.operands[1:], strict=True):
                expr = Binary(op, expr, self.build(operand))
            return expr
        if isinstance(node, c.CheckUnary):
            expr = self.build(node.operand)
            for op in node.ops:
                expr = Unary(op, expr)
            return expr
        if isinstance(node, c.CheckAccess):
            return self.access(node)
        if isinstance(node, c.CheckGroup):
            return self.build(node.expr)
        if isinstance(node, c.CheckList):
            return ListOf(tuple(self.build(item) for item in node.items))
        if isinstance(node, c.CheckCall):
            return self.call(node)
        if isinstance(node, c.CheckNumber):
            value = number_from_text(node.token)
            if isinstance(value, float) and math.isinf(value):
                raise self.error("BAD_NUMBER", f"the number {node.token} is too large", node)
            return Const(value)
        if isinstance(node, (c.CheckString, c.CheckBoolean)):
            return Const(node.value)
        if isinstance(node, c.CheckNull):
            return Const(None)
        if isinstance(node, c.CheckRows):  # a source and a condition given to another name than rows
            raise self.misnamed_rows(node)
        if isinstance(node, c.CheckColumn):
            raise self.error(
                "BAD_DRIFT_CHECK",
                f"{node.text} is a column: only drift(...) reads one",
                node,
                'e.g. check "steady": drift(orders.amount)',
            )
        assert isinstance(node, c.CheckName)  # a bare name: a rows(...) is a measure since native_suites.py
        raise self.variable_error(node)

    def variable_error(self, node: c.CheckName) -> InvalidInput:
        name = node.name
        if name in ("measures", "metrics"):
            return self.error("BAD_SUBSCRIPT", f'{name} must be followed by ["name"]', node, f'write {name}["name"]')
        return self.error(
            "UNKNOWN_NAME",
            f"unknown name {name!r}",
            node,
            did_you_mean(name, ["measures", "metrics"]) or "checks read measures[...] and metrics[...]",
        )

    def access(self, node: c.CheckAccess) -> object:
        subscripts = list(node.subscripts)
        base_node = node.base
        if not isinstance(base_node, c.CheckName):
            expr = self.build(base_node)
            for subscript in subscripts:
                expr = Index(expr, self.build(subscript.index))
            return expr
        if base_node.name not in ("measures", "metrics"):
            raise self.variable_error(base_node)
        first = subscripts.pop(0)
        key = self.build(first.index)
        if not (isinstance(key, Const) and isinstance(key.value, str)):
            raise self.error(
                "BAD_SUBSCRIPT",
                f"{base_node.name}[...] takes a name in quotes",
                first,
                f'write {base_node.name}["name"]',
            )
        expr = self.reference(base_node.name, key.value, first)
        for subscript in subscripts:
            expr = Index(expr, self.build(subscript.index))
        return Traced(node.text, expr)

    def reference(self, kind: str, name: str, node: Node) -> MeasureRef | MetricRef:
        if kind == "measures":
            if name not in self.measures:
                raise self.error(
                    "UNKNOWN_MEASURE",
                    f"unknown measure {name!r}",
                    node,
                    did_you_mean(name, self.measures) or 'declare it: measure "name": select ...',
                )
            return MeasureRef(name)
        if name not in self.rules:
            raise self.error(
                "UNKNOWN_RULE",
                f"unknown rule {name!r}",
                node,
                did_you_mean(name, self.rules) or "metrics[...] names a rule of this suite",
            )
        return MetricRef(name)

    def unknown_function(self, name: str, node: Node) -> InvalidInput:
        return self.error(
            "UNKNOWN_FUNCTION", f"unknown function {name!r}", node, did_you_mean(name, [*FUNCTIONS, *_FORMS])
        )

    def misnamed_rows(self, node: c.CheckRows) -> InvalidInput:
        """``rowz(orders where ...)``: an unknown name is refused as any unknown function is, with
        the one meant; a known function takes values, not a source and a condition."""
        if node.function not in (*FUNCTIONS, *_FORMS):
            return self.unknown_function(node.function, node)
        return self.error(
            "SYNTAX_ERROR",
            f"{node.function}(...) takes values, not a source and a condition",
            node,
            f"rows({node.source} where ...) counts the rows that hold the condition",
        )

    def call(self, node: c.CheckCall) -> Traced:
        name = node.name
        if name == "drift":
            raise self.error(
                "BAD_DRIFT_CHECK",
                "drift(...) is not a value: a drift check is a check of its own",
                node,
                'write check "name": drift(orders.amount)',
            )
        if name == "anomaly" or name in STRATEGY_PARAMETERS:
            raise self.error(
                "BAD_ANOMALY_CHECK",
                f"{name}(...) is not a value: an anomaly check is a check of its own",
                node,
                'write check "name": anomaly(measures["m"], normal(k = 3))',
            )
        function = FUNCTIONS.get(name)
        if function is None:
            raise self.unknown_function(name, node)
        keyword = next((arg for arg in node.args if isinstance(arg, c.CheckNamedArgument)), None)
        if keyword is not None:
            raise self.error("NAMED_ARGUMENT", f"{name}() takes no named argument {keyword.name!r}", keyword)
        count = len(node.args)
        if count < function.min_args or (function.max_args is not None and count > function.max_args):
            raise self.error("WRONG_ARITY", f"{name}() takes {function.arity()}, got {count}", node)
        args = tuple(self.build(arg) for arg in node.args if not isinstance(arg, c.CheckNamedArgument))
        if function.measure_arg is not None:
            named = args[function.measure_arg]
            if isinstance(named, Const) and named.value not in self.measures:
                raise self.error(
                    "UNKNOWN_MEASURE",
                    f"unknown measure {named.value!r}",
                    node.args[function.measure_arg],
                    did_you_mean(str(named.value), self.measures),
                )
        if function.source_arg is not None:
            named = args[function.source_arg]
            sources = list(self.suite.sources)
            if isinstance(named, Const) and named.value not in sources:
                raise self.error(
                    "UNKNOWN_SOURCE",
                    f"unknown source {named.value!r}",
                    node.args[function.source_arg],
                    did_you_mean(str(named.value), sources) or "name a source of this suite",
                )
        if function.rule_arg is not None:
            named = args[function.rule_arg]
            if isinstance(named, Const) and named.value not in self.rules:
                raise self.error(
                    "UNKNOWN_RULE",
                    f"unknown rule {named.value!r}",
                    node.args[function.rule_arg],
                    did_you_mean(str(named.value), self.rules) or "name a rule of this suite",
                )
        return Traced(node.text, Call(name, args))


def compile_checks(
    suite: Suite,
    measure_types: MeasureTypes | None = None,
    schemas: Mapping[str, Schema] | None = None,
    errors: ErrorList | None = None,
) -> list[CompiledCheck]:
    """Every check of the suite as a syntax tree, then its schema statements bound to the sources'
    ``schemas``, and the pass policy checked against them; ``measure_types``: the columns of the
    measures whose types the check pass knows. With ``errors``, a check in error is left out and
    its error kept there (the caller raises them); without, the first error is raised."""
    collected = errors if errors is not None else ErrorList()
    builder = _Builder(suite, measure_types or {})
    compiled = []
    for check in suite.checks:
        with collected.statement():
            compiled.append(builder.check(check))
    compiled += [
        CompiledCheck(spec, SchemaCheck(spec, columns_of((schemas or {})[spec.source]))) for spec in suite.schemas
    ]
    with collected.statement():
        _check_policy(suite.policy, [*suite.checks, *suite.schemas])
    for target in suite.notify:
        with collected.statement():
            _known_checks(target.checks, [*suite.checks, *suite.schemas], "notify", target.location)
            _segment_route(target, suite.checks)
    if errors is None:
        collected.raise_any()
    return compiled


def _too_deep(expr: object) -> bool:
    """Whether the tree is deeper than ``MAX_DEPTH`` (walked without recursion: it may be very deep)."""
    stack: list[tuple[Any, int]] = [(expr, 1)]  # check nodes: slotted dataclasses
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for name in node.__slots__:
            value = getattr(node, name)
            for child in value if isinstance(value, tuple) else (value,):
                if not isinstance(child, (str, int, float, bool, type(None))):
                    stack.append((child, depth + 1))
    return False


def _known_checks(
    names: tuple[str, ...], checks: list[CheckSpec | SchemaSpec], what: str, location: Location | None
) -> dict[str, CheckSpec | SchemaSpec]:
    """The suite's checks by name; ``UNKNOWN_CHECK`` at ``location`` for a name ``what`` gives
    that is none of them (the pass policy's, or a ``notify ... for``)."""
    by_name = {check.name: check for check in checks}
    for name in names:
        if name not in by_name:
            raise InvalidInput(
                "UNKNOWN_CHECK",
                f"{what} names unknown check {name!r}",
                location=location,
                text=name,
                hint=did_you_mean(name, by_name),
            )
    return by_name


def _segment_route(target: NotifySpec, checks: list[CheckSpec]) -> None:
    """A ``notify ... for segments`` watches some check judged by a column, else it could never be told."""
    if target.segments and not any(
        c.segment is not None and (not target.checks or c.name in target.checks) for c in checks
    ):
        raise InvalidInput(
            "BAD_NOTIFY",
            "notify ... for segments: no check it watches is judged by a column",
            location=target.location,
            text="for segments",
            hint='judge a check per segment: check "rows" by country: measures["rows"] >= 1',
        )


def _check_policy(policy: PassSpec, checks: list[CheckSpec | SchemaSpec]) -> None:
    by_name = _known_checks(policy.names, checks, "the pass policy", policy.location)
    for name in policy.names:
        if by_name[name].warn:
            raise InvalidInput(
                "WARNING_IN_POLICY",
                f"check {name!r} is a warning: it never decides the run",
                location=policy.location,
                text=name,
                hint="drop 'warn' from the check or the name from the policy",
            )
