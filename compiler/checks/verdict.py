"""Check -> pass: evaluate every check over the measures and metrics, then the pass policy.

A check that cannot be evaluated (wrong types, a missing key) fails with its error: one broken
check never hides the others. Warnings never count in the policy, nor does an anomaly check
without enough history yet (a WARN, even with --strict).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from ..suites.suite import CheckSpec, PassSpec, SchemaSpec
from .anomaly import Anomaly, judge_anomaly
from .check_bounds import bounds, reads
from .check_functions import CheckError, Clock
from .check_tree import CompiledCheck
from .interpreter import Env, evaluate
from .schema_checks import SchemaCheck, judge_schema

_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


@dataclass
class CheckOutcome:
    """One check's result, with the values it read (shown when it fails)."""

    name: str
    expression: str
    passed: bool
    warn: bool = False
    values: dict[str, object] = field(default_factory=dict)
    error: str | None = None
    anomaly: bool | None = None  # an anomaly check's finding (None: not one, or not enough history)
    not_enough_history: bool = False  # an anomaly check that could not judge yet: a WARN
    # what an anomaly check watches: {"source": "measure" | "metric", "name", "path"} (its trend)
    watches: dict[str, object] | None = None
    # what a check reads and the bounds it sets on them (check_bounds.py), for reports to place it
    reads: list[dict[str, object]] = field(default_factory=list)
    bounds: list[dict[str, object]] = field(default_factory=list)
    # a failing check's rows, per row-count measure it reads (compiler/lowering/failing_rows.py)
    failing_rows: dict[str, dict[str, object]] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """PASS, FAIL, or WARN for a failed warning or an anomaly check without enough history."""
        if self.passed:
            return "PASS"
        return "WARN" if self.warn or self.not_enough_history else "FAIL"


@dataclass
class Verdict:
    checks: list[CheckOutcome]
    passed: bool
    policy: PassSpec


def judge(
    checks: list[CompiledCheck], policy: PassSpec, measures: dict[str, object], metrics: dict[str, object], clock: Clock
) -> Verdict:
    outcomes = [_placed(check, _run(check, measures, metrics, clock)) for check in checks]
    return Verdict(outcomes, holds(policy, outcomes), policy)


def _placed(check: CompiledCheck, outcome: CheckOutcome) -> CheckOutcome:
    """``outcome`` with what its check reads and the bounds it sets (an anomaly check reads what
    it watches; its bounds are its own, shown in its values)."""
    if isinstance(check.expr, Anomaly):
        outcome.reads = [outcome.watches] if outcome.watches is not None else []
    elif not isinstance(check.expr, SchemaCheck):
        outcome.reads, outcome.bounds = reads(check.expr), bounds(check.expr)
    return outcome


def _run(check: CompiledCheck, measures: dict[str, object], metrics: dict[str, object], clock: Clock) -> CheckOutcome:
    env = Env(measures, metrics, clock)
    spec = check.spec
    if isinstance(check.expr, SchemaCheck):
        passed, differences = judge_schema(check.expr)
        return CheckOutcome(spec.name, _text(spec), passed, spec.warn, differences)
    assert isinstance(spec, CheckSpec)  # a schema statement is a SchemaCheck
    if isinstance(check.expr, Anomaly):
        return _anomaly(check.expr, spec, env)
    try:
        value = evaluate(check.expr, env)
    except CheckError as error:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, env.trace, str(error))
    if not (value is None or isinstance(value, bool)):
        return CheckOutcome(
            spec.name, _text(spec), False, spec.warn, env.trace, f"the check gives {value!r}, not true or false"
        )
    return CheckOutcome(spec.name, _text(spec), value is True, spec.warn, env.trace)


def _anomaly(check: Anomaly, spec: CheckSpec, env: Env) -> CheckOutcome:
    """An anomaly check: passed when the value is inside the bounds, with the bounds shown beside it."""
    watches: dict[str, object] = {"source": check.query.source, "name": check.query.name, "path": list(check.path)}
    try:
        finding = judge_anomaly(check, evaluate(check.subject, env), env.clock)
    except CheckError as error:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, env.trace, str(error), watches=watches)
    values = {**env.trace, **finding.shown}
    if finding.anomaly is None:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, values, not_enough_history=True, watches=watches)
    passed = not finding.anomaly
    return CheckOutcome(spec.name, _text(spec), passed, spec.warn, values, anomaly=finding.anomaly, watches=watches)


def _text(spec: CheckSpec | SchemaSpec) -> str:
    return spec.text if isinstance(spec, SchemaSpec) else spec.expr.text


def holds(policy: PassSpec, outcomes: list[CheckOutcome]) -> bool:
    """Whether the run passes under ``policy`` (warnings left out)."""
    deciding = [o for o in outcomes if not o.warn and not o.not_enough_history]
    if policy.kind == "always":
        return True
    if policy.kind == "all":
        return all(o.passed for o in deciding)
    if policy.kind == "any":
        return any(o.passed for o in deciding)
    if policy.kind == "checks":
        named = set(policy.names)
        return all(o.passed for o in deciding if o.name in named)
    assert policy.op is not None and policy.count is not None  # a `passed` policy compares a count
    return bool(_COMPARE[policy.op](sum(o.passed for o in deciding), policy.count))
