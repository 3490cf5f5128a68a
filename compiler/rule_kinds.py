"""Every rule kind, declared once: how it is written (the DSL keyword and the grammar of its text,
Griffin's spellings), how many sources it reads, its metric keys and the options of its details.

The parsers, the Griffin loader, the check pass, lowering and the report read this table. The
stages that implement a kind key their own tables by ``RuleKind`` (the check pass's ``CHECKERS``,
lowering's ``LOWERINGS``, the report's charts), and tests hold each of them to this registry.
This module imports nothing of gryph, so every stage may read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Literal


class RuleKind(str, Enum):
    """A rule's or measure's kind: the value is ``RuleSpec.kind`` and the result document's ``kind``."""

    def __str__(self) -> str:
        return self.value  # what messages show, on every Python (3.12 formats mixed-in enums by str)

    ACCURACY = "accuracy"
    PROFILING = "profiling"
    UNIQUENESS = "uniqueness"
    DISTINCTNESS = "distinctness"
    TIMELINESS = "timeliness"
    COMPLETENESS = "completeness"
    FRESHNESS = "freshness"
    VALIDITY = "validity"
    # the older design's statement form (``@Key a === b; ...``): an accuracy rule whose body is
    # statements, checked and lowered on its own; never a ``RuleSpec.kind`` itself
    KEYED_ACCURACY = "keyed accuracy"
    SQL = "sql"  # a Griffin spark-sql rule: Spark SQL text
    MEASURE = "measure"  # a native suite's measure: a query returning one row
    # Griffin generation B's measures
    GRIFFIN_COMPLETENESS = "griffin.completeness"
    GRIFFIN_DUPLICATION = "griffin.duplication"
    GRIFFIN_PROFILING = "griffin.profiling"
    GRIFFIN_ACCURACY = "griffin.accuracy"
    GRIFFIN_SPARK_SQL = "griffin.sparksql"
    GRIFFIN_SCHEMA_CONFORMANCE = "griffin.schemaconformance"


# where a kind is written: a DSL rule (a native suite's statement or a griffin-dsl rule), a
# spark-sql rule, a native measure, or a Griffin generation-B measure
Family = Literal["rule", "sql", "measure", "griffin measure"]
# whether a rule names a target besides its source
Target = Literal["none", "optional", "required"]
# the metrics of a measure that counts good and bad rows
_ROW_OUTCOMES = ("total", "complete", "incomplete")


@dataclass(frozen=True)
class KindSpec:
    """One rule kind. ``metrics``: the keys of its metrics, each its default output name (a DSL
    rule's details rename them; none: the rows its query returns); ``options``: the other keys
    its details take; ``griffin_names``: Griffin's spellings of it (``dq.type`` for a rule, the
    measure's ``type``), read in any case, Griffin's own first."""

    kind: RuleKind
    family: Family
    grammar: str | None = None  # grammar/<grammar>.tx reads one rule's text (a DSL rule)
    griffin_names: tuple[str, ...] = ()
    target: Target = "none"
    metrics: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    form_of: RuleKind | None = None  # the kind whose rules are written in this form
    # ``on SOURCE`` may be left out of a native suite's rule: it reads the source of its own name
    named_source: bool = False
    # metric keys that name the columns of its row lists (the duplication array, the step
    # histogram) or its numbered metrics' prefix (``percentile_95``), never a metric of their own
    nested: tuple[str, ...] = ()

    @property
    def keyword(self) -> str | None:
        """The word that starts a native suite's rule of this kind (None: not written so)."""
        return self.kind.value if self.family == "rule" and self.form_of is None else None

    @property
    def details(self) -> tuple[str, ...]:
        """The keys its details take: renames of its metrics and its options."""
        return self.metrics + self.options if self.family == "rule" else self.options


_SPECS = (
    KindSpec(
        RuleKind.ACCURACY,
        "rule",
        "accuracy",
        ("accuracy",),
        "required",
        metrics=("total", "miss", "matched", "matchedFraction"),
        # in a stream: how long an unmatched source row is matched again in later batches, and how
        # far back a streaming target's rows are matched
        options=("retry", "lookback"),
    ),
    KindSpec(RuleKind.PROFILING, "rule", "profiling", ("profiling",)),
    KindSpec(
        RuleKind.UNIQUENESS,
        "rule",
        "selections",
        ("uniqueness", "duplicate"),
        "optional",
        metrics=("total", "unique", "dup", "num"),
        # in a stream: how far back a batch's values are counted (its earlier batches' rows)
        options=("duplication.array", "window"),
        nested=("dup", "num"),
    ),
    KindSpec(
        RuleKind.DISTINCTNESS,
        "rule",
        "selections",
        ("distinct", "distinctness"),
        metrics=("total", "distinct", "dup", "num"),
        options=("duplication.array", "accu_dup", "with.accumulate", "record.enable", "window"),
        nested=("dup", "num"),
    ),
    KindSpec(
        RuleKind.TIMELINESS,
        "rule",
        "selections",
        ("timeliness",),
        metrics=("total", "avg", "step", "count", "percentile", "latency"),
        options=("threshold", "step.size", "percentile.values"),
        nested=("count", "percentile", "latency"),  # latency: the late records' column
    ),
    KindSpec(
        RuleKind.COMPLETENESS,
        "rule",
        "selections",
        ("completeness",),
        metrics=("total", "incomplete", "complete"),
        options=("error.confs",),
    ),
    # a native kind (Griffin has none): the newest time of one column (`of = oldest`: the oldest) and
    # its age at the run's data time; its warn and error durations become checks of that age
    # (compiler/analysis/freshness.py)
    KindSpec(
        RuleKind.FRESHNESS,
        "rule",
        "selections",
        metrics=("total", "newest", "oldest", "age_ms"),
        options=("warn", "error", "of"),
        named_source=True,
    ),
    # a native kind: named conditions each row must meet; besides these metrics, one per condition
    # (its name: its alias or its text) counts the rows that fail it (compiler/lowering/validity.py)
    KindSpec(RuleKind.VALIDITY, "rule", "selections", metrics=("total", "valid", "invalid")),
    KindSpec(
        RuleKind.KEYED_ACCURACY,
        "rule",
        "accuracy",
        target="required",
        metrics=("total", "matched", "miss", "mismatch", "invalid", "mismatches"),
        form_of=RuleKind.ACCURACY,
    ),
    KindSpec(RuleKind.SQL, "sql"),
    KindSpec(RuleKind.MEASURE, "measure"),
    KindSpec(RuleKind.GRIFFIN_COMPLETENESS, "griffin measure", None, ("completeness",), metrics=_ROW_OUTCOMES),
    KindSpec(
        RuleKind.GRIFFIN_DUPLICATION,
        "griffin measure",
        None,
        ("duplication",),
        metrics=("total", "duplicate", "unique", "non_unique", "distinct"),
    ),
    # one metric per profiled column, each a map of the column's statistics
    KindSpec(RuleKind.GRIFFIN_PROFILING, "griffin measure", None, ("profiling",)),
    KindSpec(
        RuleKind.GRIFFIN_ACCURACY,
        "griffin measure",
        None,
        ("accuracy",),
        "required",
        metrics=("total", "accurate", "inaccurate"),
    ),
    KindSpec(RuleKind.GRIFFIN_SPARK_SQL, "griffin measure", None, ("sparkSQL",), metrics=_ROW_OUTCOMES),
    KindSpec(
        RuleKind.GRIFFIN_SCHEMA_CONFORMANCE, "griffin measure", None, ("schemaConformance",), metrics=_ROW_OUTCOMES
    ),
)

RULE_KINDS: dict[RuleKind, KindSpec] = {spec.kind: spec for spec in _SPECS}


def spec_of(kind: str) -> KindSpec:
    """The registry's entry for ``kind`` (a ``RuleKind`` or its value)."""
    return RULE_KINDS[RuleKind(kind)]


def dsl_keywords() -> tuple[str, ...]:
    """The words that start a native suite's rule, one per kind written in the DSL."""
    return tuple(spec.keyword for spec in _SPECS if spec.keyword is not None)


def griffin_names(family: Family) -> dict[str, RuleKind]:
    """Griffin's spellings of the kinds of ``family``, lower-cased, to the kind each names:
    ``rule`` gives the ``dq.type`` values of generation A, ``griffin measure`` the measure types."""
    return {name.lower(): spec.kind for spec in _SPECS if spec.family == family for name in spec.griffin_names}


def griffin_spellings(family: Family) -> tuple[str, ...]:
    """Griffin's own spellings of the kinds of ``family`` (for hints)."""
    return tuple(name for spec in _SPECS if spec.family == family for name in spec.griffin_names)


def metric_name(key: str, details: Mapping[str, object]) -> str:
    """A metric's name in the output: renamed in the rule's details, else the key itself
    (Griffin's getStringOrKey)."""
    value = details.get(key)
    return str(value) if value not in (None, "") else key


def metric_keys(kind: str) -> tuple[str, ...]:
    """Every metric key a rule of ``kind`` may write, its other forms' included (none: the rows
    of its query)."""
    keys = [key for spec in _SPECS if kind in (spec.kind, spec.form_of) for key in spec.metrics]
    return tuple(dict.fromkeys(keys))
