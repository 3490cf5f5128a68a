"""Freshness: the newest time of one column (``of = oldest``: the oldest, a retention), and the
checks its ``warn`` and ``error`` ages imply.

The rule measures (its lowering writes ``newest`` and ``age_ms``); the thresholds are checks of
that age as a user would write them (``metrics["orders"]["age_ms"] <= 24h``), so they judge like
every other check: shown with the value they read in every output, named in the pass policy,
stored in the history.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import InvalidInput, Location
from ..language.ruletree import check_nodes as c
from ..language.ruletree.nodes import SelectList
from ..language.time_literals import duration_literal
from ..plan import Field, IsNull, Scalar, not_
from ..rule_kinds import RuleKind, metric_name
from ..suites.suite import CheckSpec, RuleSpec
from .checked_rules import CheckedRule
from .resolve import Resolver
from .row_rules import epoch_millis
from .rule_checker import RuleChecker

# the threshold options, each with whether its check is a warning
THRESHOLDS = (("warn", True), ("error", False))


@dataclass(frozen=True)
class CheckedFreshness(CheckedRule):
    """``time``: the selected column in epoch milliseconds, present where ``valid`` holds;
    ``age_checks``: the checks of its ``warn`` and ``error`` ages; ``oldest``: the age is the
    oldest time's, not the newest's."""

    source: str
    time: Scalar
    valid: Scalar
    age_checks: tuple[CheckSpec, ...]
    oldest: bool = False
    segment: Field | None = None  # `by COLUMN`: the metrics per value of this column, each segment's age checked

    def implied_checks(self) -> tuple[CheckSpec, ...]:
        return self.age_checks


class FreshnessChecker(RuleChecker):
    kind = RuleKind.FRESHNESS
    segmented = True

    def check(self) -> CheckedFreshness:
        source = self.rule.source
        self.schema(source)
        assert source is not None  # the schema of None is an error
        resolver = Resolver(self.source_scope(source))
        selections = self.selections(self.body_as(SelectList).items, resolver)
        segment = self.segment_field(resolver)  # before the time is judged: its name is checked with the time's
        if len(selections) != 1:
            raise self.error(
                "WRONG_ARITY",
                f"freshness reads one time column, got {len(selections)}",
                selections[1][2] if len(selections) > 1 else None,
                hint="e.g. freshness orders: created_ts with warn = 6h, error = 24h",
            )
        expr, _, item = selections[0]
        limits = {key: self.duration(key) for key, _ in THRESHOLDS}
        warn, error = limits["warn"], limits["error"]
        if warn is not None and error is not None and warn > error:
            raise InvalidInput(
                "BAD_DETAIL",
                f"warn = {duration_literal(warn)} is longer than error = {duration_literal(error)}: a warning "
                "comes before the error",
                location=_value_location(self.rule, "warn"),
                text=duration_literal(warn),
                hint=f"e.g. warn = {duration_literal(error)}, error = {duration_literal(warn)}",
            )
        checks = tuple(
            age_check(self.rule, key, limit, is_warning)
            for key, is_warning in THRESHOLDS
            if (limit := limits[key]) is not None
        )
        time, valid = epoch_millis(expr, item, self.kind), not_(IsNull(expr))
        return CheckedFreshness(self.rule, source, time, valid, checks, self._of() == "oldest", segment)

    def _of(self) -> str:
        """Which end of the column's times the age is of: ``newest`` (the default) or ``oldest``."""
        end = str(self.rule.details.get("of", "newest"))
        if end not in ("newest", "oldest"):
            raise self.detail_error("of", "BAD_DETAIL", f"of is newest or oldest, not {end!r}", "e.g. of = oldest")
        return end


def age_check(rule: RuleSpec, key: str, limit_ms: int, warn: bool) -> CheckSpec:
    """``metrics["orders"]["age_ms"] <= 24h``, named ``freshness orders (error)``, located at the
    threshold's value; an age that is unknown (no row has a time) fails it."""
    at = _value_location(rule, key)
    rule_key = c.CheckString(location=at, text=_quoted(rule.name), value=rule.name)
    age_name = metric_name("age_ms", rule.details)
    age_key = c.CheckString(location=at, text=_quoted(age_name), value=age_name)
    age_text = f"metrics[{rule_key.text}][{age_key.text}]"
    age = c.CheckAccess(
        location=at,
        text=age_text,
        base=c.CheckName(location=at, text="metrics", name="metrics"),
        subscripts=tuple(c.CheckSubscript(location=at, text=f"[{k.text}]", index=k) for k in (rule_key, age_key)),
    )
    limit_text = duration_literal(limit_ms)
    limit = c.CheckNumber(location=at, text=limit_text, token=str(limit_ms))
    expr = c.CheckChain(location=at, text=f"{age_text} <= {limit_text}", operands=(age, limit), ops=("<=",))
    # a rule by a column checks each segment's age (the rule's `top N` caps its segments, not the check)
    segment = None if rule.segment is None else replace(rule.segment, top=None)
    return CheckSpec(f"freshness {rule.name} ({key})", expr, at, warn, segment)


def _value_location(rule: RuleSpec, key: str) -> Location:
    """Where the value of detail ``key`` stands (else the rule)."""
    return rule.detail_locations[key][1] if key in rule.detail_locations else rule.location


def _quoted(text: str) -> str:
    """``text`` as a check's string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
