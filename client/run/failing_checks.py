"""A failing check's rows: fetched once the checks are judged, for the failing checks only (a
passing suite runs no query for them), from the measures they read that count a source's rows
under a condition (``compiler/lowering/failing_rows.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from gryph.compiler.checks.check_functions import is_number
from gryph.compiler.checks.verdict import CheckOutcome
from gryph.compiler.compile import CompiledSuite
from gryph.compiler.engine import Engine
from gryph.compiler.lowering.failing_rows import CountedRows, failing_rows, samples_plan
from gryph.compiler.results import RuleResult
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.suite import Suite

from .progress import Phase, no_progress


def fetch_failing_rows(
    outcomes: list[CheckOutcome],
    compiled: CompiledSuite,
    measures: Mapping[str, object],
    engine: Engine,
    sources: Mapping[str, SourceSpec],
    limit: int,
    phase: Phase = no_progress,
) -> None:
    """Give each failing check (a warning's too) up to ``limit`` of the rows each row-count measure
    it reads counts; a measure that counted none has nothing to show and costs nothing."""
    if limit <= 0:
        return
    wanted: dict[str, CountedRows] = {}
    for outcome in _failing(outcomes):
        for name in _counted_reads(outcome, compiled):
            if is_number(measures.get(name)) and measures[name] > 0:  # type: ignore[operator]
                wanted.setdefault(name, compiled.counted_rows[name])
    if not wanted:
        return
    counted = list(wanted.values())
    plan = samples_plan(counted, compiled.plan.views, limit)
    phase(f"fetching the failing checks' rows: {len(plan.queries)} statement{'' if len(plan.queries) == 1 else 's'}")
    samples = failing_rows(counted, measures, engine.run(plan, sources))
    for outcome in _failing(outcomes):
        outcome.failing_rows = {name: samples[name] for name in _counted_reads(outcome, compiled) if name in samples}


def attach_rule_records(outcomes: list[CheckOutcome], results: list[RuleResult], suite: Suite) -> None:
    """Give each failing check that reads a rule's metric the rows that rule flagged (the sample
    of its record output: invalid, incomplete, duplicated or unmatched rows), shown under the check
    as a row-count measure's rows are; they were sampled with the run, so this costs nothing."""
    flagged = {r.rule: r.records[0] for r in results if r.records and r.records[0].count}
    sources = {rule.name: rule.source for rule in suite.rules}
    for outcome in _failing(outcomes):
        for ref in outcome.reads:
            name = str(ref.get("name"))
            if ref.get("source") != "metric" or name not in flagged or name in outcome.failing_rows:
                continue
            record = flagged[name]
            outcome.failing_rows = {
                **outcome.failing_rows,
                name: {
                    "source": sources.get(name) or name,
                    "where": f"{name} flags them ({record.name})",
                    "count": record.count,
                    "rows": record.sample,
                },
            }


def _failing(outcomes: list[CheckOutcome]) -> list[CheckOutcome]:
    """The checks that judged and failed (a skipped check judged nothing)."""
    return [o for o in outcomes if not o.passed and o.skipped is None]


def _counted_reads(outcome: CheckOutcome, compiled: CompiledSuite) -> list[str]:
    return [
        str(ref["name"])
        for ref in outcome.reads
        if ref.get("source") == "measure" and ref.get("name") in compiled.counted_rows
    ]
