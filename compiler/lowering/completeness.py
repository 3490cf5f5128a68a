"""Completeness: how many source rows have every selected value present.

A row is incomplete when any selection is NULL or, with Griffin's ``error.confs``, when any
configured column matches its regex or its enumeration (``hive_none`` meaning NULL).
"""

from __future__ import annotations

from ..collect import Results
from ..plan import Cast, Field, Filter, In, IsNull, Literal, RLike, Scalar, count_all, or_all
from ..resolve import Resolver
from ..results import RuleResult
from ..types import STRING, Kind
from ..ruletree.nodes import SelectList
from .common import Finisher, RuleLowering, positive


class CompletenessLowering(RuleLowering):
    kinds = ("completeness",)
    details_allowed = ("total", "incomplete", "complete", "error.confs")

    def lower(self) -> Finisher:
        rule = self.rule
        read = self.read(rule.source)
        resolver = Resolver(self.source_scope(rule.source))
        selections = self.selections(self.body_as(SelectList).items, resolver)
        confs = rule.details.get("error.confs")
        if confs:
            incomplete = or_all([self._error_condition(conf, selections, read.schema) for conf in confs])
        else:
            incomplete = or_all([IsNull(expr) for expr, _, _ in selections])

        total_ref = self.collector.value(read, count_all())
        incomplete_ref = self.collector.value(read, count_all(filter=incomplete))
        sample_ref = self.sample(Filter(read, incomplete), "incompleteRecords", positive(incomplete_ref))
        names = {key: self.name_of(key) for key in ("total", "incomplete", "complete")}

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            missing = results.value(incomplete_ref) or 0
            row = {names["total"]: total, names["incomplete"]: missing, names["complete"]: total - missing}
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([row])],
                [self.record(results, "incompleteRecords", missing, sample_ref)],
            )

        return finish

    def _error_condition(self, conf: dict, selections, schema) -> Scalar:
        """Griffin's error.confs entry: ``{column.name, type: regex|enumeration, values}``."""
        column = conf.get("column.name")
        by_alias = {name: expr for expr, name, _ in selections}
        if column in by_alias:
            value = by_alias[column]
        elif column in schema:
            value = Field(column, schema.get(column).dtype)
        else:
            raise self.error(
                "UNKNOWN_COLUMN",
                f"error.confs names unknown column {column!r}",
                hint=f"columns: {', '.join(schema.names)}",
            )
        text = value if value.dtype.kind in (Kind.STRING, Kind.NULL) else Cast(value, STRING)
        kind = str(conf.get("type", "")).lower()
        values = [str(v) for v in conf.get("values") or []]
        if kind == "regex":
            if len(values) != 1:
                raise self.error("BAD_ERROR_CONF", "a regex error.conf takes exactly one value")
            return RLike(text, Literal(values[0], STRING))
        if kind == "enumeration":
            terms: list[Scalar] = []
            listed = [v for v in values if v != "hive_none"]
            if listed:
                terms.append(In(text, tuple(Literal(v, STRING) for v in listed)))
            if "hive_none" in values:
                terms.append(IsNull(value))
            if not terms:
                raise self.error("BAD_ERROR_CONF", "an enumeration error.conf needs values")
            return or_all(terms)
        raise self.error("BAD_ERROR_CONF", f"error.confs type {kind!r} is not regex or enumeration")
