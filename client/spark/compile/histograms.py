"""Key histograms over one input in one Spark job: GROUPING SETS instead of a scan per key set.

Uniqueness and distinctness rules each ask for a histogram of key counts (plan/histograms.py).
Spark reads the input once for all of them, groups every key set in the same aggregate and
reduces each to its histogram on the server; the rows come back tagged with their key set.
Measured at 1M rows, five key sets: 2.1 s instead of 3.0 s for five separate group-bys.
The engine uses it when it reads a source per scan (``read_once=False``); a source kept for the
run is cheaper to group once per key set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F

from gryph.compiler.engine import Rows
from gryph.compiler.plan import Named, Query, Relation, free_prefix, histogram_parts
from gryph.compiler.plan.histograms import COUNT, VALUES
from gryph.compiler.plan.pruning import prune_columns
from gryph.compiler.plan.result_values import normalize
from gryph.compiler.plan.scalars import field_names

from .relations import Context, compile_relation
from .scalars import column, compile_scalar


@dataclass
class SharedHistograms:
    """One job for the histograms of several queries over the same input."""

    input: Relation
    queries: list[Query]
    keys_of: list[tuple[Named, ...]]  # the keys of each query's histogram

    def pruned(self) -> SharedHistograms:
        """The same job reading only the columns its keys use."""
        used = frozenset().union(*(field_names(k.expr) for keys in self.keys_of for k in keys))
        return replace(self, input=prune_columns(self.input, used))

    def dataframe(self, ctx: Context) -> tuple[DataFrame, Callable[[Sequence[tuple]], dict[str, Rows]]]:
        """The job, and how its rows (set id, count, values) answer each query."""
        keys_of = self.keys_of
        prefix = free_prefix("__set", self.input.schema)
        columns: dict[object, str] = {}  # each distinct key expression once
        for keys in keys_of:
            for key in keys:
                columns.setdefault(key.expr, f"{prefix}_key{len(columns)}")
        names = list(columns.values())
        sets = [frozenset(columns[k.expr] for k in keys) for keys in keys_of]
        projected = compile_relation(self.input, ctx).select(
            *(compile_scalar(expr).alias(name) for expr, name in columns.items())
        )
        # a set listed twice would be grouped twice: (a, b) and (b, a) are one set
        distinct_sets = [[column(n) for n in names if n in s] for s in dict.fromkeys(sets)]
        counted = projected.groupingSets(distinct_sets, *(column(n) for n in names)).agg(
            F.count(F.lit(1)).alias(COUNT), F.grouping_id().alias(f"{prefix}_id")
        )
        histogram = counted.groupBy(f"{prefix}_id", COUNT).agg(F.count(F.lit(1)).alias(VALUES))
        # grouping_id has one bit per column, the first column highest: 1 where the set lacks it
        answers: dict[int, list[str]] = {}
        for query, s in zip(self.queries, sets, strict=True):
            set_id = sum(1 << (len(names) - 1 - i) for i, name in enumerate(names) if name not in s)
            answers.setdefault(set_id, []).append(query.name)

        def split(rows: Sequence[tuple]) -> dict[str, Rows]:
            out: dict[str, Rows] = {q.name: [] for q in self.queries}
            for set_id, count, values in rows:
                for name in answers[set_id]:
                    out[name].append({COUNT: normalize(count), VALUES: normalize(values)})
            return out

        return histogram, split


def shared_histograms(queries) -> list[SharedHistograms]:
    """Histogram queries gathered by input, where two or more share one."""
    by_input: dict[Relation, list[tuple[Query, tuple[Named, ...]]]] = {}
    for query in queries:
        parts = histogram_parts(query.relation) if query.limit is None else None
        if parts is not None and parts[1]:
            by_input.setdefault(parts[0], []).append((query, parts[1]))
    return [
        SharedHistograms(rel, [q for q, _ in members], [keys for _, keys in members])
        for rel, members in by_input.items()
        if len(members) > 1
    ]
