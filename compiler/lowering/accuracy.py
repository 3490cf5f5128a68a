"""Accuracy: how many source rows find a matching target row.

Griffin's semantics, kept on purpose: equalities compare ``coalesce(x, '')`` (so NULL matches
NULL and ''), a source row whose referenced source columns are all NULL is never a miss, and
``matchedFraction`` is 1.0 on an empty source. A miss is a source row for which no target row
satisfies the rule: one anti join per rule, whose rows are also the miss records.
"""

from __future__ import annotations

from ..collect import Results
from ..plan import (
    Call, Cast, Field, Filter, Fn, IsNull, Join, JoinKind, Literal, Scalar, and_all, count_all,
    not_,
)
from ..plan.scalars import field_names
from ..resolve import Resolver, Side
from ..results import RuleResult
from ..types import BOOLEAN, STRING, Kind
from .common import Finisher, RuleLowering, free_prefix, rename_all


def _conjuncts(expr: Scalar) -> list[Scalar]:
    if isinstance(expr, Call) and expr.fn is Fn.AND:
        return _conjuncts(expr.args[0]) + _conjuncts(expr.args[1])
    return [expr]


def _as_text(value: Scalar) -> Scalar:
    return value if value.dtype.kind in (Kind.STRING, Kind.NULL) else Cast(value, STRING)


def compared_as_text(left: Scalar, right: Scalar) -> bool:
    """Griffin compares two values as text when either is text."""
    return Kind.STRING in (left.dtype.kind, right.dtype.kind)


def comparison_key(value: Scalar, as_text: bool) -> Scalar:
    """What Griffin's equality really compares: ``coalesce(x, '')`` for text, else the value."""
    if not as_text:
        return value
    return Call(Fn.COALESCE, (_as_text(value), Literal("", STRING)), STRING)


def griffin_equality(left: Scalar, right: Scalar) -> Scalar:
    """``left = right`` as Griffin compares: NULL equals NULL, and NULL equals '' for text."""
    as_text = compared_as_text(left, right)
    return Call(Fn.EQ if as_text else Fn.EQ_NULL_SAFE,
                (comparison_key(left, as_text), comparison_key(right, as_text)), BOOLEAN)


class AccuracyLowering(RuleLowering):
    kinds = ("accuracy",)
    details_allowed = ("miss", "total", "matched", "matchedFraction")

    def lower(self) -> Finisher:
        rule = self.rule
        source, target = rule.source, rule.target
        source_read, target_read = self.read(source), self.read(target)
        prefix = free_prefix("__target_", source_read.schema)
        rename = lambda name: prefix + name  # noqa: E731
        target_key = target if target != source else f"{target} (target)"
        sides = [Side(source, source_read.schema), Side(target_key, target_read.schema, rename)]
        roles = {"source": source, "target": target_key}
        resolver = Resolver(self.scope_for(sides, roles))
        resolver.strings_compare_as_text = True
        condition = resolver.condition(rule.body)

        terms = [griffin_equality(*term.args) if isinstance(term, Call) and term.fn is Fn.EQ else term
                 for term in _conjuncts(condition)]
        condition = and_all(terms)
        used = field_names(condition)
        source_fields = [c for c in source_read.schema.columns if c.name in used]
        if not source_fields:
            raise self.error("NO_SOURCE_COLUMN", f"accuracy rule {rule.name!r} never mentions a column of "
                             f"{source}", hint=f"compare {source}.<column> with {target}.<column>")
        target_used = {name[len(prefix):] for name in used if name.startswith(prefix)}
        if not target_used:
            raise self.error("NO_TARGET_COLUMN", f"accuracy rule {rule.name!r} never mentions a column of "
                             f"{target}", hint=f"compare {source}.<column> with {target}.<column>")
        target_rel = rename_all(target_read, rename, keep=target_used)
        all_null = and_all([IsNull(Field(c.name, c.dtype)) for c in source_fields])
        misses = Filter(Join(JoinKind.ANTI, source_read, target_rel, condition), not_(all_null))

        total_ref = self.collector.value(source_read, count_all())
        miss_ref = self.collector.value(misses, count_all())
        sample_ref = self.sample(misses, "missRecords")
        names = {key: self.name_of(key) for key in self.details_allowed}

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            miss = results.value(miss_ref) or 0
            matched = total - miss
            row = {names["total"]: total, names["miss"]: miss, names["matched"]: matched,
                   names["matchedFraction"]: matched / total if total else 1.0}
            return RuleResult(rule.name, rule.kind, [self.write([row])],
                              [self.record(results, "missRecords", miss, sample_ref)])

        return finish
