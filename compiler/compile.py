"""From a checked suite to a plan and back: ``compile_suite`` lowers, ``finish`` makes metrics
and ``finish_measures`` the measures' values."""

from __future__ import annotations

from dataclasses import dataclass, field

from .checks import CompiledCheck, compile_checks
from .collect import Collector, Results
from .lowering import LOWERINGS, Finisher, Options
from .lowering.measure import MeasureFinisher
from .plan import Plan, Sql, View
from .results import MeasureResult, RuleResult
from .suite import Suite
from .types import Schema


@dataclass
class CompiledSuite:
    """A suite's plan, the finishing step of each of its rules and measures, and its checks."""

    suite: Suite
    plan: Plan
    finishers: list[Finisher]
    measure_finishers: list[MeasureFinisher] = field(default_factory=list)
    checks: list[CompiledCheck] = field(default_factory=list)

    def finish(self, rows_by_query: dict[str, list[dict]]) -> list[RuleResult]:
        results = Results(rows_by_query)
        return [finish(results) for finish in self.finishers]

    def finish_measures(self, rows_by_query: dict[str, list[dict]]) -> list[MeasureResult]:
        results = Results(rows_by_query)
        return [finish(results) for finish in self.measure_finishers]


def compile_suite(suite: Suite, schemas: dict[str, Schema], options: Options | None = None) -> CompiledSuite:
    """Check every rule, measure and check against the schemas and lower the suite into one fused plan.

    ``schemas`` holds the schema of every source and pre-processing view by name.
    """
    options = options or Options()
    collector = Collector()
    for view in view_plans(suite, schemas):
        collector.view(view.name, view.relation)
    finishers = [LOWERINGS[rule.kind](rule, schemas, collector, options).lower() for rule in suite.rules]
    # measures go through the same collector: aggregate-only measures join the rules' scans
    measures = [LOWERINGS["measure"](m, schemas, collector, options).lower() for m in suite.measures]
    return CompiledSuite(suite, collector.plan(), finishers, measures, compile_checks(suite))


def view_plans(suite: Suite, schemas: dict[str, Schema] | None = None) -> tuple[View, ...]:
    """The suite's pre-processing steps as plan views, with their schemas where known."""
    schemas = schemas or {}
    return tuple(View(view.name, Sql(view.sql, tuple(suite.sources), output_schema=schemas.get(view.name)))
                 for view in suite.views)
