"""A relation Spark computes once for several queries of one action, through one shuffle.

Spark shares no subplan between the queries of an action except a shuffle: two identical
exchanges are written once and the second reads the first's files (``ReusedExchange``). A
relation wrapped in ``Shuffled`` is hash-partitioned by a column, so every query over the same
``Shuffled`` relation reads the rows its first use computed, instead of computing them again.

This is Spark's physical choice: the node exists only in plans the Spark engine rewrites
(numbered_rows.py) and changes no row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark.sql import DataFrame

from gryph.compiler.plan import Relation
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.printer import quote_name
from gryph.compiler.plan.pruning import Needed, prune_columns

from ..compile.relations import Context, compile_relation
from ..compile.scalars import column


@dataclass(frozen=True, slots=True)
class Shuffled(Relation):
    """``input``'s rows, hash-partitioned by its column ``by``."""

    input: Relation
    by: str

    @property
    def schema(self) -> Schema:
        return self.input.schema

    def prune(self, needed: Needed) -> Relation:
        return replace(self, input=prune_columns(self.input, None if needed is None else needed | {self.by}))

    def describe(self) -> str:
        return f"Shuffled by {quote_name(self.by)}"


@compile_relation.register
def _shuffled(rel: Shuffled, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).repartition(column(rel.by))
