"""Record samples of a join's rows of a kept source, fetched from the copy by row number.

An accuracy rule's record sample shows whole rows of the source that have no equal row in
the target. Spark ran it as an anti join of its own, every column of the source carried through
the shuffle and the sort of the join (the miss count's join carries only the compared columns):
at 10 million rows of the benchmark, the two accuracy samples made the run's one action 1.29x the
action without samples (143.9 s against 111.9 s).

A source the run keeps (read_once.py) is numbered as it is copied (``monotonically_increasing_id``,
fixed once the copy is made). Such a sample now joins only the compared columns and the row
numbers, takes its limit of numbers, and fetches those whole rows from the copy: a semi join
with at most that many numbers, which Spark broadcasts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from gryph.compiler.plan import Call, Field, Filter, Fn, Join, JoinKind, Limit, Named, Project, Query, Read, free_prefix
from gryph.compiler.plan.row_sources import column_names, on_spine, row_source
from gryph.compiler.types import BOOLEAN, INTEGER, Column, Schema


def number_samples(queries: Iterable[Query], kept: Mapping[str, object]) -> tuple[list[Query], dict[str, str]]:
    """``queries``, each sample of a join's rows of a ``kept`` source fetched by row number; and
    the row-number column each of those sources' copies needs."""
    queries = list(queries)
    sampled = {q.name: read for q in queries if (read := _joined_sample_of(q, kept)) is not None}
    if not sampled:
        return queries, {}
    row = free_prefix("__gryph_row", set().union(*(column_names(q.relation) for q in queries if q.name in sampled)))
    numbered = {read.source: row for read in sampled.values()}
    out = [
        replace(q, relation=_fetched_by_number(q.relation, sampled[q.name], row))
        if q.name in sampled and isinstance(q.relation, Limit)
        else q
        for q in queries
    ]
    return out, numbered


def _joined_sample_of(query: Query, kept: Mapping[str, object]) -> Read | None:
    """The kept source whose rows ``query`` samples through a semi or anti join, if it does."""
    rel = query.relation
    if not isinstance(rel, Limit):
        return None
    read = row_source(rel.input)
    spine = rel.input
    while isinstance(spine, Filter):
        spine = spine.input
    return read if read is not None and isinstance(spine, Join) and read.source in kept else None


def _fetched_by_number(sample: Limit, read: Read, row: str) -> Project:
    """At most ``sample.count`` row numbers of the sampled relation, then those whole rows."""
    numbered = Read(read.source, Schema(read.source_schema.columns + (Column(row, INTEGER, False),)))
    number, wanted_number = Field(row, INTEGER), Field(row + "_wanted", INTEGER)
    wanted = Project(Limit(on_spine(sample.input, numbered), sample.count), (Named(number, wanted_number.name),))
    rows = Join(JoinKind.SEMI, numbered, wanted, Call(Fn.EQ, (number, wanted_number), BOOLEAN))
    return Project(rows, tuple(Named(Field(c.name, c.dtype), c.name) for c in sample.schema.columns))
