"""Checked rules: what the check pass hands to lowering, one frozen dataclass per rule shape.

Every name is bound to a data source and every expression is a typed plan scalar; what a rule
reads is decided (its sources, output names, durations, row limits). Lowering builds plan
relations from these and never resolves a name again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..plan import Field, Named, Scalar
from ..rule_kinds import RuleKind
from ..suites.suite import CheckSpec, RowClause, RuleSpec


@dataclass(frozen=True)
class CheckedRule:
    """A rule (or measure) that passed the check pass; on its own: Spark SQL text, which runs as is."""

    spec: RuleSpec

    @property
    def kind(self) -> RuleKind:
        """The kind whose lowering reads it."""
        return RuleKind(self.spec.kind)

    def implied_checks(self) -> tuple[CheckSpec, ...]:
        """Checks the rule states besides its metrics (a freshness rule's warn and error ages)."""
        return ()


@dataclass(frozen=True)
class CheckedCompleteness(CheckedRule):
    """A row of ``source`` is incomplete where ``incomplete`` holds."""

    source: str
    incomplete: Scalar
    segment: Field | None = None  # `by COLUMN`: the metrics per value of this column too


@dataclass(frozen=True)
class RowCondition:
    """One named condition of a row-level rule and the predicate of a row that fails it."""

    name: str
    fails: Scalar  # true for a row that fails: the condition false or NULL


@dataclass(frozen=True)
class CheckedValidity(CheckedRule):
    """A row of ``source`` is invalid where any of ``conditions`` fails."""

    source: str
    conditions: tuple[RowCondition, ...]
    segment: Field | None = None  # `by COLUMN`: the metrics per value of this column too

    def failures(self) -> dict[str, Scalar]:
        """Each condition's name with its predicate of a failing row, in the rule's order."""
        return {condition.name: condition.fails for condition in self.conditions}


@dataclass(frozen=True)
class CheckedDuplicates(CheckedRule):
    """The selected values of ``source`` (``keys``) and their output names; ``target_keys``: the
    same selections read from ``target`` — for uniqueness the rows values are counted in (None:
    the source itself), for distinctness a stream's earlier rows (Griffin's streaming mode)."""

    source: str
    keys: tuple[Scalar, ...]
    names: tuple[str, ...]
    target: str | None = None
    target_keys: tuple[Scalar, ...] = ()
    segment: Field | None = None  # `by COLUMN`: the metrics per value of this column too


@dataclass(frozen=True)
class CheckedDistinctness(CheckedDuplicates):
    pass


@dataclass(frozen=True)
class CheckedUniqueness(CheckedDuplicates):
    pass


@dataclass(frozen=True)
class CheckedTimeliness(CheckedRule):
    """Begin and end times in epoch milliseconds; ``valid`` holds where both are present."""

    source: str
    begin: Scalar
    end: Scalar
    valid: Scalar
    threshold_ms: int | None
    step_ms: int | None
    fractions: tuple[float, ...]
    segment: Field | None = None  # `by COLUMN`: the metrics per value of this column too


@dataclass(frozen=True)
class CheckedAccuracy(CheckedRule):
    """Target columns are renamed with ``prefix``; ``terms`` (index keys first) join a judged row
    with the target together with ``joined``; ``judged`` chooses the rows judged at all;
    ``source_fields`` are the source columns the rule reads."""

    source: str
    target: str
    prefix: str
    terms: tuple[Scalar, ...]
    judged: tuple[Scalar, ...]
    joined: tuple[Scalar, ...]
    source_fields: tuple[Field, ...]
    segment: Field | None = None  # `by COLUMN` of the source: the metrics per value of this column too


@dataclass(frozen=True)
class CheckedKeyedAccuracy(CheckedRule):
    """``@Key`` equalities, (mapping test, its text) pairs and ``@Invalid`` conditions."""

    source: str
    target: str
    prefix: str
    keys: tuple[Scalar, ...]
    mappings: tuple[tuple[Scalar, str], ...]
    invalid: tuple[Scalar, ...]

    @property
    def kind(self) -> RuleKind:
        return RuleKind.KEYED_ACCURACY


@dataclass(frozen=True)
class Grouping:
    """A query's GROUP BY keys, the aggregates it computes (named) and its HAVING over them."""

    keys: tuple[Named, ...]
    aggregates: tuple[Named, ...]
    having: Scalar | None


@dataclass(frozen=True)
class OrderKey:
    expr: Scalar
    ascending: bool


@dataclass(frozen=True)
class CheckedQuery(CheckedRule):
    """A profiling query (or a measure's): ``items`` as (expression, output name), over the
    grouping's names when there is one; ``fused`` queries are aggregates only and join the
    source's shared scan, with ``where`` as the aggregates' filter."""

    source: str
    where: Scalar | None
    items: tuple[tuple[Scalar, str], ...]
    fused: bool
    grouping: Grouping | None
    orders: tuple[OrderKey, ...]
    distinct: bool
    limit: int | None
    segment: Field | None = None  # a measure's `by COLUMN`: its values per value of this column too


@dataclass(frozen=True)
class CheckedRowCondition(CheckedRule):
    """A Griffin measure whose bad rows are the rows of ``source`` where ``bad`` holds."""

    source: str
    bad: Scalar


@dataclass(frozen=True)
class CheckedMeasureAccuracy(CheckedRule):
    """Griffin's accuracy measure: ``equalities`` between source values and the reference's
    ``reference_keys`` (renamed)."""

    source: str
    reference: str
    equalities: tuple[Scalar, ...]
    reference_keys: tuple[Named, ...]
    source_values: tuple[Field, ...]


@dataclass(frozen=True)
class CheckedMeasureDuplication(CheckedRule):
    """Griffin's duplication measure: the key columns and the flag of a bad row."""

    source: str
    fields: tuple[Field, ...]
    flag: str


@dataclass(frozen=True)
class CheckedMeasureProfiling(CheckedRule):
    """Griffin's profiling measure: the columns profiled and how the statistics are written."""

    source: str
    columns: tuple[Field, ...]
    approximate_name: bool
    round_scale: int


@dataclass(frozen=True)
class CheckedRowClause:
    """A row clause (``RowClause``) read against its source: a row fails it where ``fails``
    holds (the condition its measure counts under), or where its ``keys``, no part NULL, are
    another row's too; a clause of a ``rule`` fails the rows that rule fails."""

    clause: RowClause
    fails: Scalar | None = None
    keys: tuple[Field, ...] = ()
