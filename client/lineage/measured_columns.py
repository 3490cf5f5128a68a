"""What a run measured of each source, as OpenLineage's data-quality metrics: the rows it read, and
per column the counts and bounds a rule or measure computed over the whole source. Only what the
suite measured is said: a completeness rule of one column is its null count, a distinctness rule
of one column its distinct count, and a profiling rule or a measure of a source without WHERE,
GROUP BY or LIMIT gives ``count(*)``, ``count(col)``, ``count(distinct col)``, ``min``, ``max``
and ``sum`` of a column (min, max and sum where they are numbers)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeGuard

from gryph.compiler.language.ruletree.nodes import FunctionCall, Name, SelectItem, SelectList, SelectQuery, Star
from gryph.compiler.rule_kinds import RuleKind
from gryph.compiler.suites.suite import MeasureSpec, RuleSpec, Suite

from ..results.document import ResultDocument


@dataclass
class SourceMetrics:
    """One source's measured metrics: its row count and, per column, OpenLineage's metric names."""

    row_count: int | None = None
    columns: dict[str, dict[str, int | float]] = field(default_factory=dict)

    def column(self, name: str, metric: str, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return  # a timestamp's min, a NULL sum: not a number this facet can hold
        if isinstance(value, float) and not math.isfinite(value):
            return  # NaN and infinities are not JSON numbers
        self.columns.setdefault(name, {})[metric] = value


def measured(suite: Suite, document: ResultDocument) -> dict[str, SourceMetrics]:
    """Per source of ``suite`` the run read, what ``document`` says it measured of it."""
    found = {
        name: SourceMetrics(row_count=count) for name, count in document.rows_read.items() if name in suite.sources
    }
    for rule in suite.rules:
        metrics = document.metrics.get(rule.name)
        if rule.source in found and metrics is not None:
            _rule_metrics(rule, metrics, found[rule.source])
    for measure in suite.measures:
        if measure.name in document.measures:
            _measure_metrics(measure, document.measures[measure.name], found)
    return found


def _rule_metrics(rule: RuleSpec, metrics: object, into: SourceMetrics) -> None:
    renamed = {key: str(value) for key, value in rule.details.items() if isinstance(value, str)}
    column = one_column(rule.body)
    if isinstance(metrics, Mapping) and column is not None:
        if rule.kind == RuleKind.COMPLETENESS.value and "error.confs" not in rule.details:
            into.column(column, "nullCount", metrics.get(renamed.get("incomplete", "incomplete")))
        elif rule.kind == RuleKind.DISTINCTNESS.value:
            into.column(column, "distinctCount", metrics.get(renamed.get("distinct", "distinct")))
    elif rule.kind == RuleKind.PROFILING.value and isinstance(metrics, list) and len(metrics) == 1:
        row = metrics[0]
        if isinstance(row, Mapping) and _whole_source(rule.body):
            for item in rule.body.items:
                if item.alias is not None and item.alias in row:
                    _aggregate(item, row[item.alias], into)


def _measure_metrics(measure: MeasureSpec, value: object, found: dict[str, SourceMetrics]) -> None:
    body = measure.body
    if not _whole_source(body) or body.source not in found:  # a native or Spark SQL measure: not parsed here
        return
    for item, item_value in _item_values(body.items, value):
        _aggregate(item, item_value, found[body.source])


def _item_values(items: tuple[SelectItem, ...], value: object) -> Iterator[tuple[SelectItem, object]]:
    """Each item of a measure's query with its value, in the shape the measure reports (one value,
    a list in item order, a map by alias)."""
    if isinstance(value, Mapping):
        yield from ((item, value[item.alias]) for item in items if item.alias in value)
    elif isinstance(value, list) and len(value) == len(items):
        yield from zip(items, value, strict=True)
    elif len(items) == 1:
        yield items[0], value


def _aggregate(item: SelectItem, value: object, into: SourceMetrics) -> None:
    call = item.expr
    if not isinstance(call, FunctionCall) or len(call.args) != 1:
        return
    argument = call.args[0]
    if call.name == "count" and isinstance(argument, Star) and not call.distinct:
        if isinstance(value, int) and into.row_count is None:
            into.row_count = value
        return
    if not isinstance(argument, Name):
        return
    metric = {("count", True): "distinctCount", ("count", False): "count"}.get((call.name, call.distinct))
    if metric is None and not call.distinct:
        metric = {"min": "min", "max": "max", "sum": "sum"}.get(call.name)
    if metric is not None:
        into.column(argument.name, metric, value)


def one_column(body: object) -> str | None:
    """The column a rule of one plain column reads (completeness on users: email)."""
    if isinstance(body, SelectList) and len(body.items) == 1 and isinstance(body.items[0].expr, Name):
        return body.items[0].expr.name
    return None


def _whole_source(body: object) -> TypeGuard[SelectQuery]:
    """A query over every row of one source: what it gives is the source's."""
    return (
        isinstance(body, SelectQuery)
        and body.where is None
        and not body.groups
        and body.having is None
        and body.limit is None
        and not body.distinct
    )
