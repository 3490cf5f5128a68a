"""Accuracy in a stream, as Griffin's streaming mode has it: a source row that finds no match is
matched again in later batches while it is younger than the rule's ``retry`` time (the target
may not have its row yet), and a later result for an earlier batch time replaces the earlier
one when its miss is lower, keeping the first total (Griffin's CacheResults).

The unmatched rows stay where the engine runs: each batch writes the rule's misses (with their
``__tmst``) as a record output into the stream's pending folder, and the next batch's rule reads
the new rows together with those still inside the retry window (a view over both). The counts
per batch time come from the same file, so no row passes through the client on Spark.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import cast

from gryph.compiler.engine import Engine
from gryph.compiler.language.time_literals import duration_ms
from gryph.compiler.plan import Aggregate, Field, Named, Plan, Query, Read, count_all
from gryph.compiler.plan.data_types import INTEGER
from gryph.compiler.rule_kinds import RuleKind, metric_name
from gryph.compiler.safe_names import path_inside
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import TMST
from gryph.compiler.suites.suite import RuleSpec, Suite, ViewSpec

from .kept_rows import batch_and_rows_since, changed_rule

MISS_OUTPUT = "missRecords"
PENDING_PREFIX = "__pending_"
RETRY_PREFIX = "__retry_"


@dataclass(frozen=True)
class Retrying:
    """An accuracy rule over a stream whose misses are matched again for ``window_ms``."""

    rule: RuleSpec
    window_ms: int

    @property
    def export(self) -> str:
        """The record output the batch writes its misses to (``Options.export_only``)."""
        return f"{self.rule.name}__{self.rule.record_name or MISS_OUTPUT}"


def retrying_rules(suite: Suite) -> list[Retrying]:
    """The suite's accuracy rules that read a stream and retry their misses."""
    found = []
    for rule in suite.rules:
        window = duration_ms(rule.details.get("retry")) if rule.kind == RuleKind.ACCURACY else None
        if window and rule.source in suite.streamed:
            found.append(Retrying(rule, window))
    return found


def misses_file(folder: str, retrying: Retrying) -> str:
    """Where a batch's misses of the rule are written (``Options.records_to`` is ``folder``)."""
    return path_inside(folder, retrying.export, ".parquet")


def with_retries(suite: Suite, retries: list[Retrying], pending: dict[str, str], cutoff: dict[str, int]) -> Suite:
    """``suite`` whose retrying rules read their batch and the earlier misses in ``pending``
    (a file per rule) whose ``__tmst`` is at least the rule's ``cutoff``."""
    sources, views, rules = dict(suite.sources), list(suite.views), list(suite.rules)
    for retrying in retries:
        rule = retrying.rule
        if rule.name not in pending or not os.path.exists(pending[rule.name]):
            continue
        assert rule.source is not None  # retrying_rules took only rules that read a stream
        pending_name, retry_name = PENDING_PREFIX + rule.name, RETRY_PREFIX + rule.name
        sources[pending_name] = SourceSpec(pending_name, "parquet", (pending[rule.name],))
        sql = batch_and_rows_since(rule.source, pending_name, cutoff[rule.name])
        views.append(ViewSpec(retry_name, sql, rule.location))
        reads = next(r.reads for r in rules if r.name == rule.name)
        changed_rule(rules, rule.name, reads={**reads, rule.source: retry_name})
    return replace(suite, sources=sources, views=views, rules=rules)


def misses_by_time(active: Engine, path: str) -> dict[int, int]:
    """How many misses the file holds per ``__tmst`` (a query on the engine, where the file is)."""
    if not os.path.exists(path) and "://" not in path:
        return {}
    spec = SourceSpec("__misses", "parquet", (path,))
    read = Read("__misses", active.schema_of(spec))
    grouped = Aggregate(read, (Named(Field(TMST, INTEGER), TMST),), (Named(count_all(), "miss"),))
    rows = active.run(Plan((), (Query("misses", grouped),)), {"__misses": spec})["misses"]
    return {cast(int, row[TMST]): cast(int, row["miss"]) for row in rows}


def accuracy_row(rule: RuleSpec, total: int, miss: int) -> dict[str, object]:
    """An accuracy rule's metrics from its counts, under the names its details give them."""
    matched = total - miss
    values = {"total": total, "miss": miss, "matched": matched, "matchedFraction": matched / total if total else 1.0}
    return {metric_name(key, rule.details): value for key, value in values.items()}


@dataclass
class Settled:
    """One retrying rule after a batch: its result for the batch's time, and every earlier time
    whose miss fell (Griffin's rule: a lower miss replaces the earlier result, the first total stays)."""

    times: dict[int, tuple[int, int]]  # batch time -> (total, miss), to commit
    updates: dict[str, dict[str, object]]  # earlier batch time -> its metrics now


def settle(
    retrying: Retrying, judged: int, earlier: dict[int, tuple[int, int]], misses: dict[int, int], tmst: int
) -> Settled:
    """``judged``: the rows the rule judged in this batch, the batch's and the earlier misses it
    matched again (``earlier``: their batch times' results); ``misses``: what is left unmatched,
    per batch time."""
    fed = sum(miss for _, miss in earlier.values())
    times = {tmst: (judged - fed, misses.get(tmst, 0))}
    updates = {}
    for when, (total, miss) in sorted(earlier.items()):
        now = misses.get(when, 0)
        if now < miss:
            times[when] = (total, now)
            updates[str(when)] = accuracy_row(retrying.rule, total, now)
    return Settled(times, updates)
