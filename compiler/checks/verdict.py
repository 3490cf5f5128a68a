"""Check -> pass: evaluate every check over the measures and metrics, then the pass policy.

A check that cannot be evaluated (wrong types, a missing key) fails with its error: one broken
check never hides the others. A check that cannot judge yet is SKIP, neither passed nor failed:
an anomaly check without enough history, or a check left unknown (null) or in error by a history
function that found no earlier run (``value_ago`` on the first week's runs). Warnings and skipped
checks never fail the run, even with --strict.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field, replace

from ..suites.suite import CheckSpec, PassSpec, SchemaSpec
from .anomaly import Anomaly, judge_anomaly
from .check_bounds import bounds, reads
from .check_functions import CheckError, Clock
from .check_tree import CompiledCheck
from .drift import Drift, judge_drift
from .interpreter import Env, evaluate
from .schema_checks import SchemaCheck, judge_schema
from .segment_checks import (
    NO_SEGMENTS,
    VANISHED,
    Segmented,
    SegmentedReads,
    failing_summary,
    segment_anomaly,
    segment_inputs,
    segment_key,
    segment_label,
)

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
    skipped: str | None = None  # why the check could not judge yet (SKIP): neither passed nor failed
    # what an anomaly check watches: {"source": "measure" | "metric", "name", "path"} (its trend)
    watches: dict[str, object] | None = None
    # what a check reads and the bounds it sets on them (check_bounds.py), for reports to place it
    reads: list[dict[str, object]] = field(default_factory=list)
    bounds: list[dict[str, object]] = field(default_factory=list)
    # a failing check's rows, per row-count measure it reads (compiler/lowering/failing_rows.py)
    failing_rows: dict[str, dict[str, object]] = field(default_factory=dict)
    # a `by COLUMN` check: each segment's value and outcome, in the order of what it reads
    segments: list[tuple[object, CheckOutcome]] = field(default_factory=list)

    @property
    def status(self) -> str:
        """PASS, FAIL, WARN for a failed warning, or SKIP for a check that could not judge yet."""
        if self.skipped is not None:
            return "SKIP"
        if self.passed:
            return "PASS"
        return "WARN" if self.warn else "FAIL"


@dataclass
class Verdict:
    checks: list[CheckOutcome]
    passed: bool
    policy: PassSpec


def judge(
    checks: list[CompiledCheck],
    policy: PassSpec,
    measures: dict[str, object],
    metrics: dict[str, object],
    clock: Clock,
    segments: Segmented = NO_SEGMENTS,
) -> Verdict:
    outcomes = [
        _placed(
            check,
            _run(check, measures, metrics, clock)
            if check.by_segment is None
            else _by_segment(check, check.by_segment, measures, metrics, clock, segments),
        )
        for check in checks
    ]
    return Verdict(outcomes, holds(policy, outcomes), policy)


def _by_segment(
    check: CompiledCheck,
    reading: SegmentedReads,
    measures: dict[str, object],
    metrics: dict[str, object],
    clock: Clock,
    segments: Segmented,
) -> CheckOutcome:
    """A `by COLUMN` check: judged per segment, passed when no segment failed; SKIP when no
    segment could be judged (or there was none). An anomaly check learns each segment's baseline
    from that segment's history: a segment new since the run before is not evaluated (SKIP, saying
    so), and one of the run before that is gone is a warning row naming it."""
    assert isinstance(check.spec, CheckSpec)  # only a check statement takes `by`
    spec, whole = check.spec, replace(check, by_segment=None)
    anomaly = check.expr if isinstance(check.expr, Anomaly) else None
    earlier = None if anomaly is None else clock.history.segments(clock.suite, anomaly.query.source, anomaly.query.name)
    judged = []
    for value, seg_measures, seg_metrics in segment_inputs(reading, segments.measures, segments.metrics):
        key = segment_key(value)
        one = whole if anomaly is None else replace(whole, expr=segment_anomaly(anomaly, key))
        judged.append((value, _run(one, {**measures, **seg_measures}, {**metrics, **seg_metrics}, clock)))
        skipped = judged[-1][1].skipped
        if skipped is not None and earlier is not None and key not in earlier:
            judged[-1][1].skipped = f"a new segment, not in the run before: not evaluated ({skipped})"
    outcome = CheckOutcome(spec.name, _text(spec), True, spec.warn)
    failed = [(value, o) for value, o in judged if o.skipped is None and not o.passed]
    if failed:
        # a failing segment is a failure of the check; one whose evaluation broke is its error
        outcome.passed = False
        outcome.values = {
            "segments failed": failing_summary([value for value, _ in failed], len(judged)),
            **{segment_label(value): o.values for value, o in failed},
        }
        broken = [f"in segment {segment_label(value)}: {o.error}" for value, o in failed if o.error is not None]
        outcome.error = "; ".join(broken) or None
    elif all(o.skipped is not None for _, o in judged):
        outcome.skipped = f"no segment of {reading.column} could be judged" if judged else "no segment to judge"
    gone = [json.loads(key) for key in earlier or () if key not in {segment_key(v) for v, _ in judged}]
    if gone:
        outcome.values = {**outcome.values, "segments vanished": ", ".join(map(segment_label, gone))}
    vanished: dict[str, object] = {VANISHED: f"in the run before, not in this one's {reading.column}"}
    outcome.segments = judged + [(value, CheckOutcome(spec.name, _text(spec), False, True, vanished)) for value in gone]
    return outcome


def _placed(check: CompiledCheck, outcome: CheckOutcome) -> CheckOutcome:
    """``outcome`` with what its check reads and the bounds it sets (an anomaly check reads what
    it watches; its bounds are its own, shown in its values)."""
    if isinstance(check.expr, Anomaly):
        outcome.reads = [outcome.watches] if outcome.watches is not None else []
    elif not isinstance(check.expr, (SchemaCheck, Drift)):
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
    if isinstance(check.expr, Drift):
        return _drift(check.expr, spec, env)
    try:
        value = evaluate(check.expr, env)
    except CheckError as error:
        if env.no_history:  # e.g. get_previous_measure_values("rows", 1)[0] before any run
            return _skipped(spec, env)
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, env.trace, str(error))
    if value is None and env.no_history:
        return _skipped(spec, env)
    if not (value is None or isinstance(value, bool)):
        return CheckOutcome(
            spec.name, _text(spec), False, spec.warn, env.trace, f"the check gives {value!r}, not true or false"
        )
    return CheckOutcome(spec.name, _text(spec), value is True, spec.warn, env.trace)


def _skipped(spec: CheckSpec, env: Env) -> CheckOutcome:
    """A check a history function left without a value to judge: it found no earlier run."""
    reason = "no earlier run yet: " + ", ".join(f"{text} found none" for text in env.no_history)
    return CheckOutcome(spec.name, _text(spec), False, spec.warn, env.trace, skipped=reason)


def _anomaly(check: Anomaly, spec: CheckSpec, env: Env) -> CheckOutcome:
    """An anomaly check: passed when the value is inside the bounds, with the bounds shown beside it."""
    watches: dict[str, object] = {"source": check.query.source, "name": check.query.name, "path": list(check.path)}
    try:
        finding = judge_anomaly(check, evaluate(check.subject, env), env.clock)
    except CheckError as error:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, env.trace, str(error), watches=watches)
    values = {**env.trace, **finding.shown}
    if finding.anomaly is None:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, values, skipped=finding.unjudged, watches=watches)
    passed = not finding.anomaly
    return CheckOutcome(spec.name, _text(spec), passed, spec.warn, values, anomaly=finding.anomaly, watches=watches)


def _drift(check: Drift, spec: CheckSpec, env: Env) -> CheckOutcome:
    """A drift check: passed when the statistic is at most the threshold, with both distributions shown."""
    try:
        finding = judge_drift(check, evaluate(check.sketch, env), env.clock)
    except CheckError as error:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, {}, str(error))
    if finding.drifted is None:
        return CheckOutcome(spec.name, _text(spec), False, spec.warn, finding.shown, skipped=finding.unjudged)
    return CheckOutcome(spec.name, _text(spec), not finding.drifted, spec.warn, finding.shown)


def _text(spec: CheckSpec | SchemaSpec) -> str:
    return spec.text if isinstance(spec, SchemaSpec) else spec.expr.text


def holds(policy: PassSpec, outcomes: list[CheckOutcome]) -> bool:
    """Whether the run passes under ``policy`` (warnings left out). A skipped check fails no
    policy: it counts as whichever of passed or failed lets the policy hold."""
    deciding = [o for o in outcomes if not o.warn and o.skipped is None]
    skipped = sum(1 for o in outcomes if not o.warn and o.skipped is not None)
    if policy.kind == "always":
        return True
    if policy.kind == "all":
        return all(o.passed for o in deciding)
    if policy.kind == "any":
        return skipped > 0 or any(o.passed for o in deciding)
    if policy.kind == "checks":
        named = set(policy.names)
        return all(o.passed for o in deciding if o.name in named)
    assert policy.op is not None and policy.count is not None  # a `passed` policy compares a count
    passing = sum(o.passed for o in deciding)
    return any(_COMPARE[policy.op](passing + extra, policy.count) for extra in range(skipped + 1))
