"""The checker of validity rules: named conditions every row of one source must meet."""

from __future__ import annotations

from ..language.ruletree.nodes import SelectList
from ..plan import Call, Fn, Literal, not_
from ..plan.data_types import BOOLEAN, Kind
from ..rule_kinds import RuleKind, metric_name, spec_of
from .checked_rules import CheckedValidity, RowCondition
from .resolve import Context, Resolver
from .rule_checker import RuleChecker


class ValidityChecker(RuleChecker):
    """Each selection is a condition, named by its alias or its text. A row fails a condition
    unless the condition is true: NULL fails (``x > 0`` fails a NULL ``x``; ``x is null or x > 0``
    lets it pass)."""

    kind = RuleKind.VALIDITY
    segmented = True

    def check(self) -> CheckedValidity:
        source = self.rule.source
        self.schema(source)
        assert source is not None  # the schema of None is an error
        resolver = Resolver(self.source_scope(source))
        metrics = {metric_name(key, self.rule.details) for key in spec_of(self.kind).metrics}
        conditions: list[RowCondition] = []
        for item in self.body_as(SelectList).items:
            expr = resolver.expression(item.expr, Context(clause="validity rule"))
            name = item.label
            if expr.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
                raise self.error(
                    "TYPE_MISMATCH",
                    f"a validity condition must be true or false, got {expr.dtype}",
                    item,
                    "compare it with something, e.g. amount >= 0",
                )
            if name in metrics:
                raise self.error(
                    "DUPLICATE_NAME",
                    f"the condition {name!r} has the name of the rule's metric {name!r}",
                    item,
                    "give it another alias with AS",
                )
            if any(name == earlier.name for earlier in conditions):
                raise self.error(
                    "DUPLICATE_NAME", f"two conditions are named {name!r}", item, "give one an alias with AS"
                )
            conditions.append(RowCondition(name, not_(Call(Fn.COALESCE, (expr, Literal(False, BOOLEAN)), BOOLEAN))))
        return CheckedValidity(self.rule, source, tuple(conditions), self.segment_field(resolver))
