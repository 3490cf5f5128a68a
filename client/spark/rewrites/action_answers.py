"""The rows each query of a Spark action gets: most get the rows of their own DataFrame; a
relation that answers several queries at once (fetched_rows.py, histogram_samples.py) computes
one row and splits it into theirs."""

from __future__ import annotations

from pyspark.sql import Row

from gryph.compiler.engine import Rows
from gryph.compiler.plan import Query, Relation
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.result_values import normalize


class SeveralAnswers(Relation):
    """A relation Spark computes once, as one row, for the rows of several queries.

    Only plans the Spark engine rewrites hold one; its columns are not plan columns."""

    __slots__ = ()

    @property
    def schema(self) -> Schema:
        return Schema(())

    def split(self, row: Row) -> dict[str, Rows]:
        """Each query's rows, from the one row this relation computes."""
        raise NotImplementedError


def answers(query: Query, got: list[Row]) -> dict[str, Rows]:
    """The rows of ``query``, or of the queries it answers at once."""
    rel = query.relation
    if not isinstance(rel, SeveralAnswers):
        return {query.name: [row_values(row) for row in got]}
    (one,) = got  # an aggregate without keys: one row
    return rel.split(one)


def row_values(row: Row) -> dict[str, object]:
    """A Spark row (or struct) as a result row, by column name."""
    return {name: normalize(value) for name, value in zip(row.__fields__, row, strict=True)}
