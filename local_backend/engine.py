"""The DuckDB engine: runs plans on an embedded (or the user's own) DuckDB database."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from gryph.compiler.engine import Rows
from gryph.compiler.errors import EngineError, InvalidInput, Location
from gryph.compiler.plan import Export, Plan, Query, View, free_prefix, reads
from gryph.compiler.plan.batches import in_batches
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.printer import table_label
from gryph.compiler.plan.result_values import normalize
from gryph.compiler.sources.databases import is_database
from gryph.compiler.sources.lake_tables import TableLog, is_lake_table
from gryph.compiler.sources.source_specs import SourceSpec

from . import output_tables
from .capabilities import CAPABILITIES
from .sandbox import guard, holds_user_sql
from .sources.csv_inference import while_unchanged
from .sources.damaged_parquet import damaged_parquet
from .sources.database_sources import failed_read
from .sources.duck_types import schema_of_relation
from .sources.python_readers import missing_readers
from .sources.source_views import KeptTable, Loaded, expand_paths, register_source, unreadable_file
from .sql.quoting import ident, string
from .sql.relations import Aliases, query_sql, relation_sql
from .tuning.located_rows import Locate, Locations
from .tuning.one_statement import in_order, split_rows, union_sql
from .tuning.perfect_hashing import GroupingBudget
from .tuning.settings import current_setting, setting

# DuckDB's optimizer that may swap the build and probe sides of a hash join
_BUILD_SIDE_FLIP = "build_side_probe_side"


class DuckDBEngine:
    """Runs plans on DuckDB; sources become temporary views for the length of one run."""

    name = "duckdb"
    capabilities = CAPABILITIES

    def __init__(
        self,
        database: duckdb.DuckDBPyConnection | str | None = None,
        *,
        memory_limit: str | None = None,
        temp_directory: str | None = None,
        read_only: bool = False,
    ) -> None:
        """Use an open connection, open a database file, or (by default) an in-memory database.

        ``memory_limit`` (e.g. ``"8GB"``) caps the memory DuckDB takes; beyond it, joins,
        groupings and sorts spill to ``temp_directory`` (DuckDB's default: ``.tmp`` here).
        ``read_only`` opens the database file so that nothing can change it.
        These apply to a connection the engine opens; a caller's own connection keeps its settings.
        A run that holds users' SQL runs on a connection of its own that reaches only the run's
        files (sandbox.py), when the engine opened the database itself.
        """
        if isinstance(database, duckdb.DuckDBPyConnection):
            if memory_limit is not None or temp_directory is not None or read_only:
                raise ValueError("memory_limit, temp_directory and read_only apply to a connection the engine opens")
            self._con, self._owned = database, False
            _session(self._con)
        else:
            self._database, self._read_only = database, read_only
            self._temp_directory = temp_directory
            self._con, self._owned = self._open(memory_limit), True
        # as given: a statement that lowers the limit sets it back exactly (see perfect_hashing)
        self._memory_limit = memory_limit
        self._scratch = itertools.count(1)

    def _open(self, memory_limit: str | None) -> duckdb.DuckDBPyConnection:
        """A connection to the engine's database, with the engine's settings."""
        con = _connect(self._database, self._read_only)
        _limit_memory(con, memory_limit, self._temp_directory)
        _session(con)
        return con

    def open_for_writes(self) -> bool:
        """Reopen the database file writable, before a run writes tables into it; False when the
        engine opened no file (an in-memory database's tables end with the run). A file another
        process holds, or this user may not write, is DATABASE_UNREADABLE, before any scan."""
        if not self._owned:
            return True  # a caller's own connection: written as it was opened
        if self._database is None:
            return False
        if self._read_only:
            self._con.close()
            self._read_only = False
            self._con = self._open(self._memory_limit)
        return True

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        return self._con

    def schema_of(self, source: SourceSpec) -> Schema:
        """The schema of a source; DuckDB reads only what it needs to know the columns."""
        if is_database(source):
            from .sources.database_sources import database_schema  # loads pyarrow: only suites with a database pay it

            return database_schema(self._con, source)
        if is_lake_table(source):
            from .sources.lake_tables import lake_schema  # loads pyarrow: only suites with such a table pay it

            return lake_schema(self._con, source)
        if source.kind.family == "file" and source.stamp is None:
            # a stream binds its static files for every batch (about 25 ms a csv): learnt once while unchanged
            return while_unchanged(f"schema of {source!r}", expand_paths(source), lambda: self._read_schema(source))
        return self._read_schema(source)

    def _read_schema(self, source: SourceSpec) -> Schema:
        loaded = register_source(self._con, source, f"__gryph_schema_{next(self._scratch)}")
        try:
            return schema_of_relation(self._con.sql(f"SELECT * FROM {ident(loaded.view)}"))
        finally:
            loaded.drop(self._con)

    def missing_packages(self, sources: Sequence[SourceSpec]) -> list[EngineError]:
        """The sources whose Python reader (gryph's extra for the kind) is not installed."""
        return missing_readers(sources)

    def table_log(self, source: SourceSpec) -> TableLog:
        """What a Delta or Iceberg source's log says, read on the client by its Python reader."""
        from .sources.lake_tables import lake_log

        return lake_log(source)

    def schema_of_view(self, views: tuple[View, ...], sources: Mapping[str, SourceSpec]) -> Schema:
        """The schema of the last view, with the views before it registered; no data is scanned."""
        with self._guarded([v.relation for v in views], sources, ()), self._registered(views, [], sources):
            return schema_of_relation(self._con.sql(f"SELECT * FROM {ident(views[-1].name)}"))

    def run(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> dict[str, Rows]:
        """Register the sources the plan reads and its views, run every query, then drop them again."""
        relations = [q.relation for q in plan.queries] + [e.relation for e in plan.exports]
        output_tables.check_shapes(self._con, plan.exports)  # before the scan
        in_tables = output_tables.replacing(plan.exports)
        with (
            self._guarded([v.relation for v in plan.views] + relations, sources, plan.exports),
            self._registered(plan.views, relations, sources, frozenset(plan.read_once)),
            self._joins_as_written([v.relation for v in plan.views] + relations),
        ):
            budget = GroupingBudget(self._con, sources, plan.views, self._memory_limit)
            for export in plan.exports:
                if export not in in_tables:
                    self._export(export, budget)
            if in_tables:
                output_tables.write_all(self._con, in_tables, lambda sql, export: self._into_table(sql, export, budget))
            together = [q for q in plan.queries if not in_order(q.relation)]
            # a source read once has no file to locate rows in: its samples carry whole rows
            located = {name: spec for name, spec in sources.items() if name not in plan.read_once}
            locations = Locations(self._con, located, list(sources) + [view.name for view in plan.views])
            try:
                batched = in_batches(
                    together,
                    lambda queries: self._together(queries, budget, locations),
                    lambda query: self._alone(query, budget, sources),
                    duckdb.Error,
                )
                rows = dict(zip((q.name for q in together), batched, strict=True))
            finally:
                locations.drop()
            return {q.name: rows[q.name] if q.name in rows else self._alone(q, budget, sources) for q in plan.queries}

    def one_step(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> bool:
        """Never: a second statement costs DuckDB no round trip, and a sample of clean data would
        scan its source for nothing."""
        return False

    def _together(self, queries: Sequence[Query], budget: GroupingBudget, locate: Locate) -> list[Rows]:
        """The rows of each of several queries, from one statement (see ``union_sql``)."""
        sql = union_sql(list(queries), locate)
        try:
            names, rows = self._fetch(sql, [q.relation for q in queries], budget)
        except duckdb.InterruptException as exc:
            # cancelled, not failed: running each query alone would undo the cancel
            raise _failed(f"queries {', '.join(repr(q.name) for q in queries)}", exc, sql) from None
        # a duckdb.Error other than a cancel: each query runs alone, to say which failed (in_batches)
        return split_rows(names, rows, len(queries))

    def _alone(self, query: Query, budget: GroupingBudget, sources: Mapping[str, SourceSpec]) -> Rows:
        sql = query_sql(query)
        try:
            names, rows = self._fetch(sql, [query.relation], budget)
        except duckdb.Error as exc:
            raise self._read_failure(exc, sources, f"query {query.name!r}", sql) from None
        # column order kept: dicts preserve insertion order
        return [{name: normalize(value) for name, value in zip(names, row, strict=True)} for row in rows]

    def _read_failure(
        self, exc: duckdb.Error, sources: Mapping[str, SourceSpec], what: str, sql: str
    ) -> EngineError | InvalidInput:
        """The source a failed statement could not read, located; else the statement's failure."""
        unreadable = (
            unreadable_file(exc, sources.values())
            or failed_read(exc, sources.values())
            or damaged_parquet(self._con, exc, sources.values())
        )
        return _failed(what, exc, sql) if unreadable is None else unreadable

    def _fetch(self, sql: str, relations: list, budget: GroupingBudget) -> tuple[list[str], list[tuple]]:
        """The column names and rows of a statement that computes ``relations``."""
        with budget.applied(relations):
            cursor = self._con.execute(sql)
            return [d[0] for d in cursor.description], cursor.fetchall()

    def _export(self, export: Export, budget: GroupingBudget) -> None:
        """Write a relation in full: a parquet file, or a table of the database."""
        sql = relation_sql(export.relation, Aliases())
        if export.table is not None:
            statement = f"CREATE OR REPLACE TABLE {'.'.join(ident(p) for p in export.table)} AS {sql}"
            what = f"writing {export.name!r} to table {table_label(export.table)}"
        else:
            assert export.path is not None  # an Export names exactly one of the two
            Path(export.path).parent.mkdir(parents=True, exist_ok=True)
            statement = f"COPY ({sql}) TO {string(export.path)} (FORMAT parquet)"
            what = f"writing {export.name!r} to {export.path}"
        self._execute(statement, what, budget.applied([export.relation]))

    def _into_table(self, sql: str, export: Export, budget: GroupingBudget) -> None:
        """One statement writing an export's rows into its table (output_tables.py)."""
        assert export.table is not None
        self._execute(
            sql, f"writing {export.name!r} to table {table_label(export.table)}", budget.applied([export.relation])
        )

    @contextlib.contextmanager
    def _guarded(self, relations: list, sources: Mapping[str, SourceSpec], exports):
        """For the block, when ``relations`` hold users' SQL: a new connection that reaches only the
        files of the sources they read and the folders ``exports`` write to (see sandbox.py)."""
        read = [sources[name] for name in _read_by(relations, sources)]
        # an in-memory database's tables live in its one connection: a run that reads or writes
        # them stays there, as does a caller's own connection (the compiler's check still holds)
        in_catalog = any(spec.kind.family == "catalog" for spec in read) or any(e.table is not None for e in exports)
        if not self._owned or not holds_user_sql(relations) or (self._database is None and in_catalog):
            yield
            return
        outer = self._con
        if self._database is not None:  # one DuckDB per file in a process: the engine's makes way
            outer.close()
        self._con = self._open(self._memory_limit)
        try:
            guard(self._con, read, exports)
            yield
        finally:
            self._con.close()
            self._con = outer if self._database is None else self._open(self._memory_limit)

    @contextlib.contextmanager
    def _registered(self, views, relations, sources: Mapping[str, SourceSpec], read_once: frozenset[str] = frozenset()):
        """Sources the relations read and the views, registered for the block, dropped after;
        the sources ``read_once`` are copied into temporary tables that every statement reads."""
        everything = [v.relation for v in views] + list(relations)
        wanted = _read_by(everything, sources)
        registered: list = []  # Loaded, DatabaseRead and LakeRead: each drops what it made
        try:
            for name in wanted:
                if name in read_once:
                    registered.append(self._read_once(name, sources, everything))
                    continue
                spec = sources[name]
                if is_database(spec):
                    from .sources.database_sources import database_view

                    registered.append(database_view(self._con, spec, everything))
                elif is_lake_table(spec):
                    from .sources.lake_tables import lake_view

                    registered.append(lake_view(self._con, spec, everything))
                else:
                    registered.append(register_source(self._con, spec, name))
            for view in views:
                kind = "TABLE" if view.kept else "VIEW"  # a kept view's rows: computed once, spilling
                self._execute(
                    f"CREATE OR REPLACE TEMP {kind} {ident(view.name)} AS {relation_sql(view.relation, Aliases())}",
                    f"view {view.name!r}",
                )
                registered.append(KeptTable(view.name) if view.kept else Loaded(view.name))
                if view.kept and view.rows_of in read_once:
                    registered.append(self._read_from(view.rows_of, view.name, registered))
            yield
        finally:
            for loaded in reversed(registered):
                loaded.drop(self._con)

    def _read_once(self, name: str, sources: Mapping[str, SourceSpec], everything: list) -> KeptTable:
        """The source's rows, read from its files into a temporary table named after it (spilling
        beyond the memory limit), so that its metrics, its split's joins and its outputs read its
        files once in all."""
        files = free_prefix(f"__gryph_read_{name}", [*sources, *(n for rel in everything for n in reads(rel))])
        loaded = register_source(self._con, sources[name], files)
        sql = f"CREATE OR REPLACE TEMP TABLE {ident(name)} AS SELECT * FROM {ident(files)}"
        try:
            self._con.execute(sql)
        except duckdb.Error as exc:
            raise self._read_failure(exc, sources, f"reading source {name!r}", sql) from None
        finally:
            loaded.drop(self._con)
        return KeptTable(name)

    def _read_from(self, source: str, kept: str, registered: list) -> Loaded:
        """The source read from a kept view that holds each of its rows once: its copy is dropped
        and a view of the kept rows' source columns takes its name, so that one copy of the rows
        is held for the run (DuckDB spills what exceeds its memory limit)."""
        columns = [row[0] for row in self._con.execute(f"DESCRIBE {ident(source)}").fetchall()]
        registered[:] = [each for each in registered if not (isinstance(each, KeptTable) and each.table == source)]
        self._con.execute(f"DROP TABLE {ident(source)}")
        items = ", ".join(ident(c) for c in columns)
        self._con.execute(f"CREATE TEMP VIEW {ident(source)} AS SELECT {items} FROM {ident(kept)}")
        return Loaded(source)

    @contextlib.contextmanager
    def _joins_as_written(self, relations: list):
        """Hash tables on the right side of gryph's joins, for the block (the setting is restored).

        gryph puts the side to look up on the right (the target of an accuracy rule, its keys).
        DuckDB swaps sides on estimates that a filter on the left skews, and then hashes every
        column of the source for a record sample (1.9 s instead of 0.5 s at 10 million rows).
        Joins in users' SQL keep DuckDB's choice.
        """
        before = current_setting(self._con, "disabled_optimizers")
        if holds_user_sql(relations):
            yield
            return
        names = [name.strip() for name in before.split(",")] + [_BUILD_SIDE_FLIP]
        disabled = list(dict.fromkeys(filter(None, names)))
        with setting(self._con, "disabled_optimizers", ",".join(disabled)):
            yield

    def _execute(self, sql: str, what: str, around: contextlib.AbstractContextManager | None = None) -> None:
        """Run a statement (inside ``around``, e.g. a setting for it)."""
        try:
            with around or contextlib.nullcontext():
                self._con.execute(sql)
        except duckdb.Error as exc:
            raise _failed(what, exc, sql) from None

    def close(self) -> None:
        """Close the connection if the engine opened it; a caller's connection stays open."""
        if self._owned:
            self._con.close()


def _read_by(relations: list, sources: Mapping[str, SourceSpec]) -> list[str]:
    """The sources ``relations`` read, each once, in the order they first read them."""
    return list(dict.fromkeys(name for rel in relations for name in reads(rel) if name in sources))


def _session(con: duckdb.DuckDBPyConnection) -> None:
    """The settings every run relies on, whoever opened the connection."""
    # Timestamps with a zone read and print in UTC, as the contract says, whatever the machine's zone.
    con.execute("SET TimeZone = 'UTC'")
    # Table names in users' SQL must mean sources and tables, never Python variables in scope.
    con.execute("SET python_enable_replacements = false")
    # a long query would draw a progress bar on the user's terminal, inside gryph's output
    con.execute("SET enable_progress_bar = false")


def _failed(what: str, exc: duckdb.Error, sql: str) -> EngineError:
    if isinstance(exc, duckdb.OutOfMemoryException):
        # DuckDB's own advice names SQL settings; the user sets them through gryph's options
        return EngineError(
            "QUERY_FAILED",
            f"{what} failed on duckdb: {str(exc).splitlines()[0]}",
            text=sql,
            hint="give DuckDB more memory with --memory-limit (its default is 80% of RAM); "
            "work beyond the limit spills to --temp-directory",
        )
    return EngineError("QUERY_FAILED", f"{what} failed on duckdb: {exc}", text=sql)


def _limit_memory(con: duckdb.DuckDBPyConnection, memory_limit: str | None, temp_directory: str | None) -> None:
    """DuckDB's memory cap and spill folder; a value DuckDB refuses is the user's error."""
    for name, option, value, hint in (
        ("memory_limit", "--memory-limit", memory_limit, "a size such as 8GB, 512MB or 4GiB"),
        ("temp_directory", "--temp-directory", temp_directory, "a folder DuckDB may create and write"),
    ):
        if value is None:
            continue
        try:
            con.execute(f"SET {name} = {string(value)}")
        except duckdb.Error as exc:
            con.close()
            raise InvalidInput(
                "BAD_OPTION", f"{option} {value}: {str(exc).splitlines()[0]}", text=value, hint=hint
            ) from None


def _connect(database: str | None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory database, or the user's file: one that is no DuckDB database (empty, another
    format) or is locked by another process is an error naming the file."""
    try:
        return duckdb.connect(database or ":memory:", read_only=read_only and database is not None)
    except duckdb.Error as exc:
        raise EngineError(
            "DATABASE_UNREADABLE",
            f"cannot open the DuckDB database {database}: {str(exc).splitlines()[0]}",
            location=Location(file=database),
            text=database,
        ) from None
