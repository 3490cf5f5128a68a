"""What a check reads, held to what the suite writes, before any data is read: the metric keys
each rule writes (``metrics["r"]["matchedFraction"]``) and comparisons of a measure with a
literal of another type (``measures["rows"] > "9000"``). Warning checks are held to it too: a
mistake in a check is an error of that check (exit 2), never a warning that fails at run time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidInput, did_you_mean, with_article
from ..language.ruletree import check_nodes as c
from ..language.ruletree.nodes import Node, SelectList, StatementRule, located
from ..plan.data_types import DataType, Kind
from ..rule_kinds import RULE_KINDS, RuleKind, metric_name
from ..sources.typed_text import METRIC_KEYS, metrics_name, typed_sources
from ..suites.suite import CheckSpec, MeasureSpec, RuleSpec, Suite
from .anomaly_syntax import MeasureTypes

COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})
# what a check's value is, where the check pass knows it: the classes the interpreter compares
Shape = str  # "number" | "string" | "boolean"


def check_reads(suite: Suite, measure_types: MeasureTypes) -> None:
    """Raise a located ``InvalidInput`` for the first check that reads a metric its rule does
    not write, or compares a measure with a literal of another type."""
    written = {rule.name: names for rule in suite.rules if (names := written_metrics(rule)) is not None}
    written.update((metrics_name(s), WrittenMetrics(METRIC_KEYS, (), {})) for s in typed_sources(suite.sources))
    shapes = {m.name: m.shape for m in suite.measures if isinstance(m, MeasureSpec)}
    for check in suite.checks:
        _Reads(check, written, measure_types, shapes).walk(check.expr)


@dataclass(frozen=True)
class WrittenMetrics:
    """The top-level metric names a rule writes, the prefixes of its numbered ones (timeliness's
    ``percentile_95``) and its renamed keys (``miss`` -> ``miss_count``)."""

    names: tuple[str, ...]
    prefixes: tuple[str, ...]
    renamed: dict[str, str]


def written_metrics(rule: RuleSpec) -> WrittenMetrics | None:
    """What a rule writes at the top of its metric map; None when its keys are its query's
    columns or a Griffin ``out`` entry reshapes them."""
    kind = RuleKind(rule.kind)
    if kind is RuleKind.ACCURACY and isinstance(rule.body, StatementRule):
        kind = RuleKind.KEYED_ACCURACY  # the older design's statement form
    spec = RULE_KINDS[kind]
    if not spec.metrics or rule.metric is not None:
        return None
    names = [metric_name(key, rule.details) for key in spec.metrics if key not in spec.nested]
    if kind is RuleKind.VALIDITY and isinstance(rule.body, SelectList):
        names.extend(item.label for item in rule.body.items)  # each condition's failing rows
    array = rule.details.get("duplication.array")
    if array not in (None, ""):
        names.append(str(array))
    prefixes = (f"{metric_name('percentile', rule.details)}_",) if "percentile" in spec.metrics else ()
    renamed = {key: metric_name(key, rule.details) for key in spec.metrics if metric_name(key, rule.details) != key}
    return WrittenMetrics(tuple(dict.fromkeys(names)), prefixes, renamed)


class _Reads:
    def __init__(
        self,
        check: CheckSpec,
        written: Mapping[str, WrittenMetrics],
        measure_types: MeasureTypes,
        shapes: Mapping[str, str | None],
    ) -> None:
        self.check = check
        self.written = written
        self.measure_types = measure_types
        self.shapes = shapes

    def walk(self, root: c.CheckExpr | c.CheckNamedArgument) -> None:
        stack: list[object] = [root]  # iterative: a check may nest 64 levels
        while stack:
            node = stack.pop()
            if isinstance(node, c.CheckAccess):
                self.metric_key(node)
            if isinstance(node, c.CheckChain) and len(node.ops) == 1 and node.ops[0] in COMPARISONS:
                self.comparison(node)
            stack.extend(_children(node))

    def error(self, code: str, message: str, node: Node, hint: str | None) -> InvalidInput:
        kind = "warn check" if self.check.warn else "check"
        return located(code, f"{kind} {self.check.name!r}: {message}", node, hint)

    def metric_key(self, node: c.CheckAccess) -> None:
        if not (_names(node.base, "metrics") and len(node.subscripts) >= 2):
            return
        rule, key = (_string(s.index) for s in node.subscripts[:2])
        if rule is None or key is None or rule not in self.written:
            return
        written = self.written[rule]
        if key in written.names or key.startswith(written.prefixes):
            return
        new = written.renamed.get(key)
        raise self.error(
            "UNKNOWN_METRIC",
            f"rule {rule!r} writes no metric {key!r}",
            node.subscripts[1],
            f"the rule's details rename it: {new!r}" if new else did_you_mean(key, written.names),
        )

    def comparison(self, node: c.CheckChain) -> None:
        left, right = node.operands
        if _is_literal(left) == _is_literal(right):
            return  # only a measure against a literal has two known types
        measure, literal = (right, left) if _is_literal(left) else (left, right)
        measure_shape, literal_shape = self.shape(measure), self.shape(literal)
        if measure_shape is None or literal_shape is None or measure_shape == literal_shape:
            return
        quoted = _string(literal)
        raise self.error(
            "TYPE_MISMATCH",
            f"{node.ops[0]} compares {measure.text}, {with_article(measure_shape)}, with {literal.text}, "
            f"{with_article(literal_shape)}: "
            "values of different types are never equal or ordered",
            node,
            f"write the number without quotes: {quoted}"
            if measure_shape == "number" and quoted is not None and _is_number(quoted)
            else f"compare with {with_article(measure_shape)}",
        )

    def shape(self, node: c.CheckExpr) -> Shape | None:
        """A literal's class, or a measure's where its query's types are known."""
        while isinstance(node, c.CheckGroup):
            node = node.expr
        if isinstance(node, c.CheckNumber):
            return "number"
        if isinstance(node, c.CheckUnary) and set(node.ops) <= {"-", "+"} and isinstance(node.operand, c.CheckNumber):
            return "number"
        if isinstance(node, c.CheckString):
            return "string"
        if isinstance(node, c.CheckBoolean):
            return "boolean"
        if isinstance(node, c.CheckAccess) and _names(node.base, "measures") and len(node.subscripts) <= 2:
            name = _string(node.subscripts[0].index)
            columns = self.measure_types.get(name) if name is not None else None
            if name is None or columns is None:
                return None
            return _shape_of(_column(columns, self.shapes.get(name), node.subscripts[1:]))
        return None


def _children(node: object) -> Sequence[object]:
    if isinstance(node, c.CheckChain):
        return node.operands
    if isinstance(node, (c.CheckUnary,)):
        return (node.operand,)
    if isinstance(node, (c.CheckGroup,)):
        return (node.expr,)
    if isinstance(node, c.CheckList):
        return node.items
    if isinstance(node, c.CheckCall):
        return node.args
    if isinstance(node, c.CheckNamedArgument):
        return (node.value,)
    if isinstance(node, c.CheckAccess):
        return (node.base, *(s.index for s in node.subscripts))
    return ()


def _names(node: c.CheckExpr, name: str) -> bool:
    return isinstance(node, c.CheckName) and node.name == name


def _string(node: c.CheckExpr) -> str | None:
    return node.value if isinstance(node, c.CheckString) else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_literal(node: c.CheckExpr) -> bool:
    while isinstance(node, c.CheckGroup):
        node = node.expr
    if isinstance(node, c.CheckUnary):
        node = node.operand
    return isinstance(node, (c.CheckNumber, c.CheckString, c.CheckBoolean))


def _column(
    columns: tuple[tuple[str, DataType], ...], shape: str | None, subscripts: Sequence[c.CheckSubscript]
) -> DataType | None:
    """The type of ``measures["m"]`` (a one-column value) or ``measures["m"][i]`` (a column)."""
    if not subscripts:
        one_value = shape == "value" or (shape is None and len(columns) == 1)
        return columns[0][1] if one_value and len(columns) == 1 else None
    index = subscripts[0].index
    if isinstance(index, c.CheckString):
        return next((dtype for name, dtype in columns if name == index.value), None)
    if isinstance(index, c.CheckNumber) and index.token.isdigit() and int(index.token) < len(columns):
        return columns[int(index.token)][1]
    return None


def _shape_of(dtype: DataType | None) -> Shape | None:
    if dtype is None or dtype.kind is Kind.NULL:
        return None
    if dtype.is_numeric:
        return "number"
    return {Kind.STRING: "string", Kind.BOOLEAN: "boolean"}.get(dtype.kind)
