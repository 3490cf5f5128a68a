"""Record samples of grouped counts, taken by the aggregate of the histogram that reads them.

A uniqueness or distinctness rule reports a histogram of its grouped counts (how many values
occur once, twice, ...) and samples the duplicated values: both read the same grouped counts.
In one action Spark shares the shuffle under the grouping but not the grouping's final
aggregate: the sample's ``LIMIT`` could only stop it after its whole hash table was built, so
every such sample grouped the rows a second time (4-5 s of task time each at 10M rows of the
benchmark, a quarter of what samples cost there).

Here the histogram's aggregate collects the samples itself: grouped by count, it keeps, for
each sample, the smallest ``limit`` of the rows the sample selects (``min_by`` with a ``k``,
Spark 4.2 and later), and one more aggregate of the histogram's few rows keeps the smallest
``limit`` of all of those. One row comes back, split into the histogram's rows and each
sample's. Which rows a sample shows is unspecified on every engine; this one shows the
smallest, so it shows the same ones every run. A server older than 4.2 keeps such a sample a
query of its own (a second grouping), ordered by its columns, so it shows the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql.connect import functions as F

from gryph.compiler.engine import Rows
from gryph.compiler.plan import (
    Field,
    Filter,
    Limit,
    Literal,
    Named,
    Project,
    Query,
    Relation,
    Scalar,
    Sort,
    SortKey,
    and_all,
)
from gryph.compiler.plan.data_types import BOOLEAN, DataType, Kind
from gryph.compiler.plan.histograms import COUNT, VALUES, is_key_histogram
from gryph.compiler.plan.node import Part
from gryph.compiler.plan.pruning import Needed, prune_columns
from gryph.compiler.plan.scalars import contains_window, field_names, substitute

from ..compile.relations import Context, compile_relation
from ..compile.scalars import column, compile_scalar
from ..session.connect import major_minor
from .action_answers import SeveralAnswers, row_values

# the largest ``k`` Spark's ``min_by`` takes; a larger sample stays a query of its own
MOST_ROWS = 100_000
# kinds Spark cannot order (or gryph cannot tell): a sample with such a column stays a query of its own
_UNORDERED = (Kind.MAP, Kind.OTHER)


@dataclass(frozen=True, slots=True)
class TakenSample(Part):
    """A sample the histogram collects: at most ``limit`` rows of ``columns`` of the counted
    rows that meet ``condition``, answering the query ``name``."""

    name: str
    condition: Scalar
    columns: tuple[Named, ...]
    limit: int


@dataclass(frozen=True, slots=True)
class SampledHistogram(SeveralAnswers):
    """The key histogram of ``counted`` (answering the query ``name``) with ``samples`` of the
    counted rows; one row."""

    counted: Relation
    name: str
    samples: tuple[TakenSample, ...]

    def split(self, row: Row) -> dict[str, Rows]:
        out = {self.name: [row_values(r) for r in row[VALUES]]}  # structs of COUNT and VALUES
        for i, sample in enumerate(self.samples):
            out[sample.name] = [row_values(r) for r in row[_array(i)]]
        return out

    def prune(self, needed: Needed) -> Relation:
        exprs = (e for s in self.samples for e in (s.condition, *(c.expr for c in s.columns)))
        used = {COUNT}.union(*(field_names(e) for e in exprs))
        return replace(self, counted=prune_columns(self.counted, frozenset(used)))

    def describe(self) -> str:
        return "Histogram of counts with samples " + ", ".join(repr(s.name) for s in self.samples)


def _array(i: int) -> str:
    """The column of the ``i``-th sample's rows (a name no counted relation holds: COUNT's)."""
    return f"{COUNT}_sample{i}"


def take_samples(queries: Iterable[Query], server_version: str) -> list[Query]:
    """``queries`` with each sample of a histogram's counted rows answered by that histogram's
    query (``SampledHistogram``), where the server has ``min_by`` with a ``k`` (Spark 4.2+);
    on an older server, such a sample ordered by its columns (the same smallest rows).
    ``queries`` are not pruned yet: a histogram and its samples read equal relations."""
    queries = list(queries)
    histograms = {q.relation.input: q for q in queries if q.limit is None and is_key_histogram(q.relation)}
    if major_minor(server_version) < (4, 2):
        return [_smallest_first(q) if q.limit is None and _sample_of(q, histograms) else q for q in queries]
    taken: dict[str, list[TakenSample]] = {}
    absorbed = set()
    for query in queries:
        found = _sample_of(query, histograms) if query.limit is None else None
        if found is not None:
            histogram, sample = found
            taken.setdefault(histogram.name, []).append(sample)
            absorbed.add(query.name)
    out = []
    for query in queries:
        if query.name in taken:
            assert is_key_histogram(query.relation)
            out.append(
                replace(query, relation=SampledHistogram(query.relation.input, query.name, tuple(taken[query.name])))
            )
        elif query.name not in absorbed:
            out.append(query)
    return out


def _smallest_first(query: Query) -> Query:
    """A sample (a ``LIMIT``) of its smallest rows, as ``min_by`` orders them: column by column,
    NULL first, NaN last."""
    rel = query.relation
    assert isinstance(rel, Limit)
    keys = tuple(SortKey(Field(c.name, c.dtype)) for c in rel.input.schema.columns)
    return replace(query, relation=Limit(Sort(rel.input, keys), rel.count))


def _sample_of(query: Query, histograms: dict[Relation, Query]) -> tuple[Query, TakenSample] | None:
    """The histogram whose counted rows ``query`` samples (a ``LIMIT`` over filters and
    projections of them), and the sample as that histogram takes it."""
    rel = query.relation
    if not isinstance(rel, Limit) or not 0 < rel.count <= MOST_ROWS:
        return None
    chain: list[Relation] = []
    base = rel.input
    while isinstance(base, Filter | Project) and base not in histograms:
        chain.append(base)
        base = base.input
    if base not in histograms:
        return None
    columns = tuple(Named(Field(c.name, c.dtype), c.name) for c in base.schema.columns)
    conditions: list[Scalar] = []
    for step in reversed(chain):  # from the counted rows up: each step reads the one below
        inline = _inliner(columns)
        if isinstance(step, Filter):
            conditions.append(substitute(step.condition, inline))
        else:
            assert isinstance(step, Project)
            columns = tuple(Named(substitute(c.expr, inline), c.name) for c in step.columns)
    if any(contains_window(c.expr) or _unordered(c.expr.dtype) for c in columns):
        return None
    condition = and_all(conditions) if conditions else Literal(True, BOOLEAN)
    return histograms[base], TakenSample(query.name, condition, columns, rel.count)


def _inliner(columns: tuple[Named, ...]):
    """Replaces a field by the expression of the column it names in ``columns``."""
    by_name = {c.name: c.expr for c in columns}
    return lambda node: by_name[node.name] if isinstance(node, Field) else None


def _unordered(dtype: DataType) -> bool:
    """Whether Spark could not order values of ``dtype``."""
    if dtype.kind in _UNORDERED:
        return True
    if dtype.kind is Kind.ARRAY:
        return _unordered(dtype.args[0])
    if dtype.kind is Kind.STRUCT:
        return any(_unordered(t) for _, t in dtype.args)
    return False


@compile_relation.register
def _sampled(rel: SampledHistogram, ctx: Context) -> DataFrame:
    counted = compile_relation(rel.counted, ctx)
    per_count = counted.groupBy(column(COUNT)).agg(
        F.count(F.lit(1)).alias(VALUES), *(_smallest(s).alias(_array(i)) for i, s in enumerate(rel.samples))
    )
    # the histogram's few rows in one row; of each sample's (at most limit per count), the smallest
    return per_count.agg(
        F.collect_list(F.struct(column(COUNT), column(VALUES))).alias(VALUES),
        *(
            F.slice(F.array_sort(F.flatten(F.collect_list(column(_array(i))))), 1, s.limit).alias(_array(i))
            for i, s in enumerate(rel.samples)
        ),
    )


def _smallest(sample: TakenSample) -> Column:
    """The smallest ``limit`` rows of one count's rows that ``sample`` selects (NULL: none)."""
    chosen = F.when(
        compile_scalar(sample.condition), F.struct(*(compile_scalar(c.expr).alias(c.name) for c in sample.columns))
    )
    # min_by leaves out the rows whose ordering value is NULL: those the condition drops
    return F.call_function("min_by", chosen, chosen, F.lit(sample.limit))
