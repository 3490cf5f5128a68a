"""Record samples of a shared join over a parquet source, fetched by where their rows are.

An accuracy rule's miss count and its record sample read one anti join, which the run's
statement computes once (together.py). The sample shows whole source rows, so that join
carried every column of the source through every row it probed, where the count needs only
the compared ones: at 10 million rows of the benchmark, the two accuracy samples made the
statement 1.22x the metrics alone. A parquet row has a location: its file and its number in
that file. The shared join now carries the locations instead of the other columns (DuckDB
reads only the columns a reader of a materialised CTE reads), and a sample fetches the whole
rows of at most its limit of locations, for which DuckDB skips every row group outside their
row numbers: the statement took 1.03-1.06x the metrics alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import duckdb

from gryph.compiler.plan import (
    Call,
    Field,
    Fn,
    Join,
    JoinKind,
    Limit,
    Named,
    Project,
    Read,
    Relation,
    and_all,
    free_prefix,
)
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, STRING, Column, Schema
from gryph.compiler.plan.row_sources import addressed, column_names, on_spine, row_source
from gryph.compiler.sources.source_specs import SourceSpec

from ..sources.source_views import located_parquet
from ..sql.quoting import ident


@dataclass(frozen=True)
class Located:
    """A view of a source's rows with each row's file and its number in that file."""

    view: str
    file: str
    row: str


# The view of a source's located rows, its location columns named from the given prefix;
# None where the source's rows have no location.
Locate = Callable[[str, str], Located | None]


@dataclass(frozen=True)
class LocatedWork:
    """A shared relation computed with its rows' locations, from which samples fetch whole rows."""

    computed: Relation
    source: Read  # the source's rows, with their locations
    located: Located
    columns: Schema  # the shared relation's own columns
    keys: str  # a prefix no column of ``computed`` or ``source`` starts with

    def fetch(self, shared: str, limit: int) -> Relation:
        """Whole rows of at most ``limit`` rows of the shared relation (materialised as ``shared``),
        fetched from the source by their locations."""
        file, row = Field(self.located.file, STRING), Field(self.located.row, INTEGER)
        key_file, key_row = Field(self.keys + "file", STRING), Field(self.keys + "row", INTEGER)
        wanted = Project(
            Limit(Read(shared, self.computed.schema), limit),
            (Named(file, key_file.name), Named(row, key_row.name)),
        )
        on = and_all([Call(Fn.EQ, (file, key_file), BOOLEAN), Call(Fn.EQ, (row, key_row), BOOLEAN)])
        rows = Join(JoinKind.SEMI, self.source, wanted, on)
        return Project(rows, tuple(Named(Field(c.name, c.dtype), c.name) for c in self.columns.columns))


def locate_shared(rel: Relation, locate: Locate) -> LocatedWork | None:
    """``rel`` computed with its rows' locations, if its rows are rows of a source that has them."""
    read = row_source(rel)
    if read is None:
        return None
    prefix = free_prefix("__gryph_at_", column_names(rel))
    located = locate(read.source, prefix)
    if located is None:
        return None
    source = addressed(read, located.view, (Column(located.file, STRING, False), Column(located.row, INTEGER, False)))
    return LocatedWork(on_spine(rel, source), source, located, rel.schema, prefix + "key_")


def fetched_samples(rel: Relation, work: Mapping[str, LocatedWork]) -> Relation:
    """``rel`` with every limited read of a located shared relation (named as in ``work``)
    replaced by a fetch of its whole rows."""
    if isinstance(rel, Limit) and isinstance(rel.input, Read) and rel.input.source in work:
        return work[rel.input.source].fetch(rel.input.source, rel.count)
    return rel.rebuilt(Relation, lambda child: fetched_samples(child, work))


class Locations:
    """Views of sources' rows with their locations, each made when a statement first needs it."""

    def __init__(self, con: duckdb.DuckDBPyConnection, sources: Mapping[str, SourceSpec], taken: Iterable[str]):
        """``taken``: names the views must not take (sources, the plan's views)."""
        self._con, self._sources = con, sources
        self._prefix = free_prefix("__gryph_located", taken)
        self._made: dict[tuple[str, str], Located | None] = {}

    def __call__(self, source: str, prefix: str) -> Located | None:
        if (source, prefix) not in self._made:
            self._made[source, prefix] = self._make(source, prefix)
        return self._made[source, prefix]

    def _make(self, source: str, prefix: str) -> Located | None:
        spec = self._sources.get(source)
        if spec is None:  # a view of the plan: its rows have no location
            return None
        located = Located(f"{self._prefix}{len(self._made)}", prefix + "file", prefix + "row")
        try:
            relation = located_parquet(self._con, spec, located.file, located.row)
            if relation is None:
                return None
            self._con.execute(f"CREATE OR REPLACE TEMP VIEW {ident(located.view)} AS SELECT * FROM {relation}")
        except duckdb.Error:
            # unreadable now: the statement reads the source as it is and says what is wrong
            return None
        return located

    def drop(self) -> None:
        """Drop every view made."""
        for located in self._made.values():
            if located is not None:
                self._con.execute(f"DROP VIEW IF EXISTS {ident(located.view)}")
        self._made.clear()
