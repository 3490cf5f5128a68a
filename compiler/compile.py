"""From a checked suite to a plan and back: ``compile_suite`` checks and lowers, ``finish`` makes metrics
and ``finish_measures`` the measures' values."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from .analysis.check_pass import CheckedSuite, check_suite
from .checks.check_tree import CompiledCheck
from .errors import InvalidInput, ResultError
from .griffin.json_frames import json_column, json_frame
from .griffin.rule_tables import LateRules, blocked_by, late_rules, output_table_sql
from .lowering import LOWERINGS, Finisher, Options
from .lowering.failing_rows import CountedRows, counted_rows
from .lowering.measure import MeasureFinisher, MeasureLowering
from .lowering.query_collector import Collector, Results, ValueRef
from .lowering.row_counters import count_malformed, count_rows_read, rows_read
from .lowering.row_failures import SplitCounts, split_exports
from .plan import Export, Plan, Read, Sql, View
from .plan.data_types import Schema
from .plan.sharing import costly_parts
from .results import Failed, MeasureResult, ResultRow, RuleResult
from .sources.stream_sources import MALFORMED, TMST
from .spark_dialect.spark_names import quoted
from .suites.kept_rows import KeptView
from .suites.suite import RuleSpec, Suite, ViewSpec
from .support.gc_pause import without_cyclic_gc
from .support.recursion_room import recursion_room

Spec = TypeVar("Spec", bound=RuleSpec)
Out = TypeVar("Out")


@dataclass
class CompiledSuite:
    """A suite's plan, the finishing step of each of its rules and measures, and its checks."""

    suite: Suite
    plan: Plan
    finishers: list[Finisher]
    measure_finishers: list[MeasureFinisher] = field(default_factory=list)
    checks: list[CompiledCheck] = field(default_factory=list)
    # queries (record samples) that run only when a condition on the other results holds
    conditions: dict[str, Callable[[Results], bool]] = field(default_factory=dict)
    # Griffin's Spark SQL rules that read DSL rules' tables, run after the rest (rule_tables.py)
    late: LateRules | None = None
    # the rows of each source the rules aggregate, with Options(count_rows=True): the task
    # metrics' rowsCounter
    row_counters: dict[str, ValueRef] = field(default_factory=dict)
    # per stream source of a micro-batch, its malformed messages (Options.streams)
    malformed_counters: dict[str, ValueRef] = field(default_factory=dict)
    # the measures that count a source's rows under a condition: a failing check shows those rows
    counted_rows: dict[str, CountedRows] = field(default_factory=dict)
    # per source split into quarantined and valid rows (Options.splits), the counts of each
    splits: list[SplitCounts] = field(default_factory=list)

    def first_plan(self) -> Plan:
        """Everything but the conditional queries: views, value and row queries, exports."""
        return replace(self.plan, queries=tuple(q for q in self.plan.queries if q.name not in self.conditions))

    def second_plan(self, rows_by_query: dict[str, list[ResultRow]]) -> Plan | None:
        """The conditional queries the first plan's results call for, or None."""
        results = Results(rows_by_query)
        wanted = tuple(q for q in self.plan.queries if q.name in self.conditions and self.conditions[q.name](results))
        return replace(self.plan, queries=wanted, exports=()) if wanted else None

    def third_plan(self, rows_by_query: dict[str, list[ResultRow]]) -> Plan | None:
        """The late Spark SQL rules' plan, with the DSL rules they read as tables of their metrics;
        the rules that read a rule that failed are left out (they fail in ``finish``). None when
        there are no late rules, or none left."""
        late = self.late
        if late is None:
            return None
        finished, blocked = self._late_inputs(late, Results(rows_by_query))
        tables = tuple(
            View(self.suite.rules[index].name, Sql(output_table_sql(result, self.suite.timestamp_ms), ()))
            for index, result in finished.items()
        )
        left_out = {self.suite.rules[index].name for index in blocked}
        dropped = {name for index in blocked for name in late.queries[index]}
        queries = tuple(q for q in late.plan.queries if q.name not in dropped)
        if not queries:
            return None
        views = tuple(v for v in late.plan.views if v.name not in left_out)
        return replace(late.plan, views=self.plan.views + tables + views, queries=queries)

    def _late_inputs(self, late: LateRules, results: Results) -> tuple[dict[int, RuleResult], dict[int, str]]:
        """The finished DSL rules the late rules read, and the late rules that read (directly or
        not) one that failed, each with that rule's name."""
        finished, failed = {}, {}
        for index in late.inputs:
            try:
                finished[index] = self.finishers[index](results)
            except ResultError:
                failed[index] = self.suite.rules[index].name
        return finished, blocked_by(late.reads, failed)

    def finish(self, rows_by_query: dict[str, list[ResultRow]]) -> list[RuleResult]:
        """Each rule's result; a rule whose result breaks its contract fails alone, and so does a
        Spark SQL rule that reads it."""
        results = Results(rows_by_query)
        blocked = self._late_inputs(self.late, results)[1] if self.late is not None else {}
        finishers = [
            _reads_failed(rule, blocked[index]) if index in blocked else finish
            for index, (rule, finish) in enumerate(zip(self.suite.rules, self.finishers, strict=True))
        ]
        return _each_alone(
            results,
            zip(self.suite.rules, finishers, strict=True),
            lambda rule, error: RuleResult(rule.name, rule.kind, [], error=error),
        )

    def finish_measures(self, rows_by_query: dict[str, list[ResultRow]]) -> list[MeasureResult]:
        """Each measure's value; a measure that is not one row fails alone."""
        return _each_alone(
            Results(rows_by_query),
            zip(self.suite.measures, self.measure_finishers, strict=True),
            lambda measure, error: MeasureResult(measure.name, Failed(error), "value"),
        )

    def rows_read(self, rows_by_query: dict[str, list[ResultRow]]) -> dict[str, int]:
        return rows_read(self.row_counters, rows_by_query)

    def malformed_read(self, rows_by_query: dict[str, list[ResultRow]]) -> dict[str, int]:
        return rows_read(self.malformed_counters, rows_by_query)


def _each_alone(
    results: Results,
    finishers: Iterable[tuple[Spec, Callable[[Results], Out]]],
    failed: Callable[[Spec, dict[str, Any]], Out],
) -> list[Out]:
    """Every finisher's result over ``results``; one whose result breaks its contract becomes
    ``failed(spec, error document)`` and the others still finish."""
    out = []
    for spec, finish in finishers:
        try:
            out.append(finish(results))
        except ResultError as error:
            out.append(failed(spec, error.to_dict()))
    return out


def _reads_failed(rule: RuleSpec, failed: str) -> Callable[[Results], RuleResult]:
    """The finisher of a Spark SQL rule that reads the table of a rule whose result failed."""

    def finish(_results: Results) -> RuleResult:
        raise ResultError(
            "INPUT_RULE_FAILED",
            f"sql rule {rule.name!r} reads rule {failed!r}, whose result failed",
            location=rule.location,
            text=failed,
            hint=f"see the error of rule {failed!r}",
        )

    return finish


@without_cyclic_gc
def compile_suite(suite: Suite, schemas: dict[str, Schema], options: Options | None = None) -> CompiledSuite:
    """Check every rule, measure and check against the schemas and lower the suite into one fused plan.

    ``schemas`` holds the schema of every source and pre-processing view by name.
    """
    options = options or Options()
    views = view_plans(suite, schemas)
    checked = check_suite(suite, schemas, options.now_ms)
    with recursion_room():
        return _lower(checked, views, schemas, options)


def _lower(
    checked: CheckedSuite, views: tuple[View, ...], schemas: dict[str, Schema], options: Options
) -> CompiledSuite:
    suite = checked.suite
    collector = Collector()
    for view in views:
        collector.view(view.name, view.relation)
    late_reads = late_rules(suite)
    late_collector = Collector(prefix="late_")
    finishers: list[Finisher] = []
    late_queries: dict[int, frozenset[str]] = {}
    for index, rule in enumerate(checked.rules):
        target = late_collector if index in late_reads else collector
        before = target.query_names()
        finishers.append(LOWERINGS[rule.kind](rule, schemas, target, options).lower())
        if index in late_reads:
            late_queries[index] = target.query_names() - before
    # measures go through the same collector: aggregate-only measures join the rules' scans
    measures = [MeasureLowering(m, schemas, collector, options).lower() for m in checked.measures]
    late = (
        LateRules(
            late_collector.plan(),
            late_reads,
            late_queries,
            tuple(sorted({r for reads in late_reads.values() for r in reads} - set(late_reads))),
        )
        if late_reads
        else None
    )
    for source, path in options.keep_rows:
        collector.export(Export(f"{source}__rows", Read(source, schemas[source]), path))
    splits = [split_exports(checked.rules, checked.row_clauses, schemas, split, collector) for split in options.splits]
    counters = count_rows_read(suite.sources, schemas, collector, options.streams) if options.count_rows else {}
    malformed = count_malformed(options.streams, schemas, collector, MALFORMED)
    plan = collector.plan()
    return CompiledSuite(
        suite,
        plan,
        finishers,
        measures,
        list(checked.checks),
        _later(plan, collector.conditions()),
        late,
        counters,
        malformed,
        counted_rows(checked.measures, schemas),
        splits,
    )


def _later(plan: Plan, conditions: dict[str, Callable[[Results], bool]]) -> dict[str, Callable[[Results], bool]]:
    """The conditional queries left for a second step: a record sample over a join or grouping
    that another query computes anyway runs with it (the engine computes it once) instead of
    again afterwards. Its rows are empty exactly when its condition fails."""
    if not conditions:
        return conditions
    computed = {part for query in plan.queries if query.name not in conditions for part in costly_parts(query.relation)}
    return {
        query.name: conditions[query.name]
        for query in plan.queries
        if query.name in conditions and computed.isdisjoint(costly_parts(query.relation))
    }


def view_plans(suite: Suite, schemas: dict[str, Schema]) -> tuple[View, ...]:
    """The suite's pre-processing steps as plan views, with their schemas where known."""
    return tuple(view_plan(suite, view, schemas) for view in suite.views)


def _kept_rows_sql(view: KeptView) -> str:
    """The kept rows a batch reads (at least as recent as ``since``), after the batch's own; made
    of quoted names and an integer, nothing a user wrote."""
    kept = f"SELECT * FROM {quoted(view.kept)} WHERE {quoted(TMST)} >= {int(view.since)}"
    return kept if view.batch is None else f"SELECT * FROM {quoted(view.batch)} UNION ALL {kept}"


def view_plan(suite: Suite, view: ViewSpec, schemas: dict[str, Schema]) -> View:
    """One pre-processing step as a plan view; a union needs the schemas of what it unites, a JSON
    table the schema inferred from its documents."""
    if view.json_of is not None:
        source, _ = view.json_of
        return View(
            view.name, json_frame(source, schemas[source], json_column(view, schemas[source]), schemas[view.name])
        )
    text = view.sql
    if view.stamp_of is not None:
        stamped = quoted(view.stamp_of)
        text = (
            f"SELECT * FROM {stamped}"
            if TMST in schemas.get(view.stamp_of, Schema(()))
            else f"SELECT *, CAST({int(suite.timestamp_ms or 0)} AS BIGINT) AS {quoted(TMST)} FROM {stamped}"
        )
    if view.kept is not None:
        text = _kept_rows_sql(view.kept)
    if view.union_of:
        missing = [name for name in view.union_of if name not in schemas]
        if missing:
            raise ValueError(f"view {view.name!r} unites {missing[0]!r}, whose schema is not known yet")
        columns = [c for c in schemas[view.union_of[0]].names if all(c in schemas[name] for name in view.union_of[1:])]
        if not columns:
            source = view.name.removesuffix("__union")
            raise InvalidInput(
                "BAD_CONFIG",
                f"the connectors of data source {source!r} have no column in common",
                location=view.location,
            )
        select = ", ".join(quoted(c) for c in columns)
        text = " UNION ALL ".join(f"SELECT {select} FROM {quoted(name)}" for name in view.union_of)
    return View(view.name, Sql(text, tuple(suite.sources), output_schema=schemas.get(view.name)))
