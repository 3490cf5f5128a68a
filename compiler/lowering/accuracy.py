"""Accuracy: how many source rows find a matching target row.

Griffin's semantics, kept on purpose: equalities compare ``coalesce(x, '')`` (so NULL matches
NULL and ''), a source row whose referenced source columns are all NULL is never a miss, and
``matchedFraction`` is 1.0 on an empty source. A miss is a source row for which no target row
satisfies the rule: one anti join per rule, whose rows are also the miss records.
"""

from __future__ import annotations

from ..collect import Results
from ..plan import (
    Call,
    Cast,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Literal,
    Read,
    Scalar,
    and_all,
    count_all,
    not_,
    free_prefix,
)
from ..plan.scalars import field_names
from ..resolve import Resolver, Side
from ..results import RuleResult
from ..ruletree.nodes import ConditionRule, IndexHint
from ..types import BOOLEAN, STRING, Kind
from .common import Finisher, RuleLowering, positive, rename_all


def conjuncts(expr: Scalar) -> list[Scalar]:
    if isinstance(expr, Call) and expr.fn is Fn.AND:
        return conjuncts(expr.args[0]) + conjuncts(expr.args[1])
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
    return Call(
        Fn.EQ if as_text else Fn.EQ_NULL_SAFE, (comparison_key(left, as_text), comparison_key(right, as_text)), BOOLEAN
    )


class AccuracyLowering(RuleLowering):
    """``rule [WHEN cond]`` and ``IF (cond) rule``: a miss is a judged source row without a match.

    The conjuncts of the condition that read only the source choose the rows the rule judges
    (the others are not counted at all); the conjuncts that read the target join with the rule,
    so a judged row matches when one target row satisfies both.
    """

    kinds = ("accuracy",)
    details_allowed = ("miss", "total", "matched", "matchedFraction")

    def two_sides(self) -> tuple[Read, Read, str, Resolver]:
        """The source and target reads, the prefix of target columns and a resolver over both."""
        source, target = self.rule.source, self.rule.target
        source_read, target_read = self.read(source), self.read(target)
        prefix = free_prefix("__target_", source_read.schema)
        target_key = target if target != source else f"{target} (target)"
        sides = [Side(source, source_read.schema), Side(target_key, target_read.schema, lambda n: prefix + n)]
        resolver = Resolver(self.scope_for(sides, {"source": source, "target": target_key}))
        resolver.strings_compare_as_text = True
        return source_read, target_read, prefix, resolver

    def lower(self) -> Finisher:
        rule = self.rule
        body = self.body_as(ConditionRule)
        source, target = rule.source, rule.target
        source_read, target_read, prefix, resolver = self.two_sides()
        terms = [
            griffin_equality(*term.args) if isinstance(term, Call) and term.fn is Fn.EQ else term
            for term in conjuncts(resolver.condition(body.rule))
        ]
        used = set().union(*(field_names(t) for t in terms))
        source_fields = [c for c in source_read.schema.columns if c.name in used]
        if not source_fields:
            raise self.error(
                "NO_SOURCE_COLUMN",
                f"accuracy rule {rule.name!r} never mentions a column of {source}",
                hint=f"compare {source}.<column> with {target}.<column>",
            )
        if not any(name.startswith(prefix) for name in used):
            raise self.error(
                "NO_TARGET_COLUMN",
                f"accuracy rule {rule.name!r} never mentions a column of {target}",
                hint=f"compare {source}.<column> with {target}.<column>",
            )
        if body.index is not None:
            terms = self.keys_first(terms, body.index, prefix)
        judged, joined = source_read, []
        if body.condition is not None:
            restrict = conjuncts(resolver.condition(body.condition))
            on_source = [t for t in restrict if not any(n.startswith(prefix) for n in field_names(t))]
            joined = [t for t in restrict if t not in on_source]
            if on_source:
                judged = Filter(source_read, and_all(on_source))
        condition = and_all(terms + joined)
        target_used = {name[len(prefix) :] for name in field_names(condition) if name.startswith(prefix)}
        target_rel = rename_all(target_read, lambda name: prefix + name, keep=target_used)
        all_null = and_all([IsNull(Field(c.name, c.dtype)) for c in source_fields])
        misses = Filter(Join(JoinKind.ANTI, judged, target_rel, condition), not_(all_null))

        total_ref = self.collector.value(judged, count_all())
        miss_ref = self.collector.value(misses, count_all())
        sample_ref = self.sample(misses, "missRecords", positive(miss_ref))
        names = {key: self.name_of(key) for key in self.details_allowed}

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            miss = results.value(miss_ref) or 0
            matched = total - miss
            row = {
                names["total"]: total,
                names["miss"]: miss,
                names["matched"]: matched,
                names["matchedFraction"]: matched / total if total else 1.0,
            }
            return RuleResult(
                rule.name, rule.kind, [self.write([row])], [self.record(results, "missRecords", miss, sample_ref)]
            )

        return finish

    def keys_first(self, terms: list[Scalar], hint: IndexHint, prefix: str) -> list[Scalar]:
        """The equalities the ``index`` hint names, first: they are the join's keys.

        Each named column must be compared between source and target by an equality of the
        rule; the hint orders the join, it never changes the result.
        """
        keys = []
        for name in hint.columns:
            key = next((t for t in terms if t not in keys and field_names(t) == {name, prefix + name}), None)
            if key is None:
                raise self.error(
                    "INDEX_NOT_A_KEY",
                    f"the index hint names {name!r}, which the rule does not compare between source and target",
                    hint,
                    f"add $source.{name} = $target.{name} to the rule, or drop it from the hint",
                )
            keys.append(key)
        return keys + [t for t in terms if t not in keys]
