"""Record samples of a join's rows of a kept source, fetched from the copy by row number.

An accuracy rule's record sample shows whole rows of the source that have no equal row in
the target. Spark ran it as an anti join of its own, every column of the source carried through
the shuffle and the sort of the join (the miss count's join carries only the compared columns):
at 10 million rows of the benchmark, the two accuracy samples made the run's one action 1.29x the
action without samples (143.9 s against 111.9 s).

A source the run keeps (read_once.py) is numbered as it is copied (``monotonically_increasing_id``,
fixed once the copy is made). Such a sample now joins only the compared columns and the row
numbers, takes its limit of numbers, and fetches those whole rows from the copy by number, in
one scan for all of the source's samples (fetched_rows.py).

The rule's count of those rows counts the same numbers: both read them through one shuffle
(shuffled.py), so the join runs once for the count and the sample. At 10 million rows the
action with samples then took 1.06-1.11x the executor CPU of the action without (171-180 s
against 162 s) where a join of its own for each sample took 1.24x (201 s), in one process;
another, noisier one gave 1.32x (benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from gryph.compiler.plan import (
    Aggregate,
    Field,
    Filter,
    Join,
    Limit,
    Named,
    Project,
    Query,
    Read,
    Relation,
    free_prefix,
)
from gryph.compiler.plan.data_types import INTEGER, Column
from gryph.compiler.plan.row_sources import addressed, column_names, on_spine, row_source
from gryph.compiler.plan.scalars import field_names

from .fetched_rows import Fetched
from .shared_shuffle import Shuffled


def number_samples(queries: Iterable[Query], kept: Mapping[str, object]) -> tuple[list[Query], dict[str, str]]:
    """``queries``, the samples of a join's rows of a ``kept`` source fetched by row number and
    each count of those rows counting their numbers; and the row-number column each of those
    sources' copies needs. ``queries`` are not pruned yet: a count and its sample then read
    equal relations.

    The samples of one read are answered by one query, named after the first of them, that
    fetches their whole rows in one scan of the copy (fetched_rows.py)."""
    queries = list(queries)
    samples = {q.name: found for q in queries if (found := _joined_sample_of(q, kept)) is not None}
    if not samples:
        return queries, {}
    row = free_prefix("__gryph_row", set().union(*(column_names(sample) for sample, _ in samples.values())))
    numbered = {read.source: row for _, read in samples.values()}
    # each sampled relation's row numbers, shuffled once for its samples and its counts
    numbers = {sample.input: _numbers(sample.input, read, row) for sample, read in samples.values()}
    out = [replace(q, relation=_counted_by_number(q.relation, numbers)) for q in queries if q.name not in samples]
    for read in dict.fromkeys(read for _, read in samples.values()):
        fetch = _fetch({name: found for name, found in samples.items() if found[1] == read}, numbers, row)
        out.append(Query(fetch.samples[0], fetch))
    return out, numbered


def _joined_sample_of(query: Query, kept: Mapping[str, object]) -> tuple[Limit, Read] | None:
    """The sample and the kept source whose rows ``query`` samples through a semi or anti join,
    if it does."""
    rel = query.relation
    if not isinstance(rel, Limit):
        return None
    read = row_source(rel.input)
    spine = rel.input
    while isinstance(spine, Filter):
        spine = spine.input
    return (rel, read) if read is not None and isinstance(spine, Join) and read.source in kept else None


def _numbered(read: Read, row: str) -> Read:
    """``read`` of the kept copy, with its row numbers."""
    return addressed(read, read.source, (Column(row, INTEGER, False),))


def _numbers(sampled: Relation, read: Read, row: str) -> Shuffled:
    """The row numbers of ``sampled``'s rows, shuffled once for every query of the action."""
    return Shuffled(Project(on_spine(sampled, _numbered(read, row)), (Named(Field(row, INTEGER), row),)), row)


def _fetch(samples: Mapping[str, tuple[Limit, Read]], numbers: Mapping[Relation, Relation], row: str) -> Fetched:
    """The whole rows of ``samples`` (all those of one read), by at most each one's limit of
    the sampled rows' numbers."""
    (sample, read), *_ = samples.values()
    number = Named(Field(row, INTEGER), row)
    wanted = tuple(Project(Limit(numbers[s.input], s.count), (number,)) for s, _ in samples.values())
    return Fetched(_numbered(read, row), row, wanted, tuple(samples), sample.schema.names)


def _counted_by_number(rel: Relation, numbers: Mapping[Relation, Relation]) -> Relation:
    """``rel`` with each aggregate that only counts the rows of a sampled relation counting its
    row numbers instead (the same rows, from the shuffle the sample reads)."""
    if isinstance(rel, Aggregate) and rel.input in numbers and not any(map(field_names, rel.expressions())):
        return replace(rel, input=numbers[rel.input])
    return rel.rebuilt(Relation, lambda child: _counted_by_number(child, numbers))
