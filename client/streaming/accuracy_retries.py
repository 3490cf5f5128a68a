"""Accuracy in a stream, as Griffin's streaming mode has it: a source row that finds no match is
matched again in later batches while it is younger than the rule's ``retry`` time (the target
may not have its row yet), and a later result for an earlier batch time replaces the earlier
one when its miss is lower, keeping the first total (Griffin's CacheResults).

The unmatched rows stay where the engine runs: each batch writes the rule's misses (with their
``__tmst``) as a record output into the stream's pending folder, and the next batch declares
that file as the rule's kept misses: the compiler has the rule read them with the batch's rows
(compiler/suites/kept_reads.py). The counts per batch time come from the same file, so no row
passes through the client on Spark.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import cast

from gryph.compiler.engine import Engine
from gryph.compiler.plan import Aggregate, Field, Named, Plan, Query, Read, count_all
from gryph.compiler.plan.data_types import INTEGER
from gryph.compiler.rule_kinds import metric_name
from gryph.compiler.safe_names import path_inside
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import TMST
from gryph.compiler.suites.kept_reads import KeptReader
from gryph.compiler.suites.suite import RuleSpec

MISS_OUTPUT = "missRecords"


def misses_export(retrying: KeptReader) -> str:
    """The record output a batch writes a retrying rule's misses to (``Options.export_only``)."""
    return f"{retrying.rule.name}__{retrying.rule.record_name or MISS_OUTPUT}"


def misses_file(folder: str, retrying: KeptReader) -> str:
    """Where a batch's misses of the rule are written (``Options.records_to`` is ``folder``)."""
    return path_inside(folder, misses_export(retrying), ".parquet")


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
    retrying: KeptReader, judged: int, earlier: dict[int, tuple[int, int]], misses: dict[int, int], tmst: int
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
