"""The Spark Connect engine: runs a plan on a remote (or locally started) Spark server."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Mapping, Sequence

from pyspark.sql import DataFrame

from gryph.compiler.engine import Rows
from gryph.compiler.errors import EngineError
from gryph.compiler.plan import Export, Plan, Query, View, reads
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.printer import table_label
from gryph.compiler.sources.lake_tables import TableLog
from gryph.compiler.sources.source_specs import SourceSpec

from .capabilities import CAPABILITIES
from .compile.relations import Context, compile_relation, has_sql, wide_codegen
from .compile.scalars import quoted
from .compile.type_mapping import schema_of
from .rewrites.action_answers import answers
from .rewrites.one_action import Part, collect_together
from .rewrites.passes import PASSES, RunState
from .rewrites.read_once import Copies, keep, keep_all
from .rewrites.small_sources import reads_only_small, restore, set_for_small_run
from .session.connect import Connection, connect
from .session.failures import read_failures, spark_errors
from .sources.lake_outputs import lake_commit
from .sources.lake_sources import lake_log
from .sources.source_loading import load_source
from .sources.source_packages import missing_packages


class SparkEngine:
    """Runs plans over Spark Connect; sources and views live as temporary views during a run
    that runs Spark SQL text."""

    name = "spark"
    capabilities = CAPABILITIES

    def __init__(
        self, remote: str | None = None, *, connection: Connection | None = None, read_once: bool = True
    ) -> None:
        """Connect to ``remote`` (an ``sc://`` URL, ``"local"``, or None for ``SPARK_REMOTE``).

        ``read_once`` keeps a source that several queries scan on the cluster for the run, so
        it is read from storage once (see read_once.py); False reads it once per scan.
        """
        self.read_once = read_once
        self._owns_session = connection is None  # stopped with this engine, seen by no one else
        self.connection = connection if connection is not None else connect(remote)
        self.spark = self.connection.session
        # each source's DataFrame and schema, by the identity of its spec: a run asks for a
        # schema when it compiles and reads the source when it runs, one schema request for both
        self._loaded: dict[int, tuple[DataFrame, Schema]] = {}
        self.refused_settings: list[str] = []  # settings configure() left for the cluster

    def configure(self, settings: dict[str, str]) -> list[str]:
        """Set session settings; returns those Spark refuses at run time (cluster settings)."""
        refused = []
        with spark_errors("setting the session's configuration"):
            for key, value in settings.items():
                # Spark would accept a cluster setting here and ignore it: ask first
                if self.spark.conf.isModifiable(key):
                    self.spark.conf.set(key, value)
                else:
                    refused.append(key)
        self.refused_settings = refused
        return refused

    def schema_of(self, source: SourceSpec) -> Schema:
        with spark_errors(f"reading the schema of source {source.name!r}"):
            return self._load(source)[1]

    def _load(self, spec: SourceSpec) -> tuple[DataFrame, Schema]:
        """``spec``'s DataFrame and schema, asked of the server once while ``spec`` lives."""
        key = id(spec)
        if key not in self._loaded:
            self._loaded[key] = load_source(self.spark, spec)
            weakref.finalize(spec, self._loaded.pop, key, None)  # an id is unique while its object lives
        return self._loaded[key]

    def missing_packages(self, sources: Sequence[SourceSpec]) -> list[EngineError]:
        """The sources whose package (spark-avro, Kafka, Delta, Iceberg) this server lacks."""
        with spark_errors("asking the server for its source packages"):
            return missing_packages(self.spark, sources)

    def table_log(self, source: SourceSpec) -> TableLog:
        """A Delta source's log, or an Iceberg source's snapshot, as its package on the server reads it."""
        return lake_log(self.spark, source)

    def schema_of_view(self, views: tuple[View, ...], sources: Mapping[str, SourceSpec]) -> Schema:
        """The schema of the last view (Spark analyses it without running it)."""
        with self._registered(views, [], sources) as ctx:
            with spark_errors(f"reading the schema of view {views[-1].name!r}"):
                return schema_of(ctx.tables[views[-1].name].schema)

    def run(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> dict[str, Rows]:
        # the rewrite passes, in the order capabilities.py declares them (passes.py)
        state = RunState.start(plan, sources, self.read_once, self.connection.server_version)
        for name in self.capabilities.rewrites:
            state = PASSES[name](state)
        shared, alone = state.shared, state.queries
        relations = (
            [q.relation for q in plan.queries] + [e.relation for e in plan.exports] + [v.relation for v in plan.views]
        )
        read = {name for relation in relations for name in reads(relation)}
        with (
            read_failures(spec for name, spec in sources.items() if name in read),
            self._small_run(state.small),
            self._registered(plan.views, state.relations, sources, state.copies) as ctx,
        ):
            for export in state.exports:
                self._export(ctx, export)
            jobs = [s.dataframe(ctx) for s in shared]
            parts = [
                Part("queries " + ", ".join(repr(q.name) for q in s.queries), df)
                for s, (df, _) in zip(shared, jobs, strict=True)
            ]
            parts += [Part(f"query {q.name!r}", self._dataframe(ctx, q)) for q in alone]
            with wide_codegen(ctx):
                results = collect_together(parts, one_task=state.small)
            rows: dict[str, Rows] = {}
            for (_, split), got in zip(jobs, results, strict=False):  # the rest of results: `alone`'s
                rows.update(split(got))
            for query, got in zip(alone, results[len(jobs) :], strict=True):
                rows.update(answers(query, got))
        return {query.name: rows[query.name] for query in plan.queries}

    def one_step(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> bool:
        """When the plan reads small local files only: a second action then costs more (a round
        trip, a job) than the record samples of clean data it would spare."""
        relations = [q.relation for q in plan.queries] + [e.relation for e in plan.exports]
        return reads_only_small(relations, plan.views, sources)

    def _export(self, ctx: Context, export: Export) -> None:
        """Write a relation in full on the cluster: nothing comes back to the client."""
        where = export.path if export.table is None else f"table {table_label(export.table)}"
        with spark_errors(f"writing {export.name!r} to {where}"):
            frame = compile_relation(export.relation, ctx)
            # a lake table's data time replaced in one commit, or a whole folder or table written
            commit = lake_commit(self.spark, frame, export) if export.replace is not None else None
            writer = frame.write.mode("overwrite")
            with wide_codegen(ctx):
                if commit is not None:
                    commit()
                elif export.table is not None:
                    writer.saveAsTable(".".join(quoted(part) for part in export.table))
                else:
                    assert export.path is not None  # an Export names exactly one of the two
                    writer.parquet(export.path)

    @contextlib.contextmanager
    def _small_run(self, small: bool):
        """A run over small sources only runs without generated code, in one partition
        (small_runs.py). On a session this engine opened, the settings stay for its next small
        plan (two requests less each) and go back before a plan that is not small; on a session
        it was given, they go back after every plan."""
        connection = self.connection
        if small and connection.small_run_put_back is None:
            with spark_errors("setting the session's configuration"):
                connection.small_run_put_back = set_for_small_run(self.spark)
        elif not small:
            self._put_back_settings()
        try:
            yield
        except BaseException:
            # the failure is the one to report; a server that is gone has no settings to put back
            if not self._owns_session and connection.reachable():
                with contextlib.suppress(EngineError):
                    self._put_back_settings()
            raise
        if not self._owns_session:
            self._put_back_settings()

    def _put_back_settings(self) -> None:
        """The session's own settings again, if a small run changed them."""
        previous, self.connection.small_run_put_back = self.connection.small_run_put_back, None
        if previous is not None:
            with spark_errors("setting the session's configuration"):
                restore(self.spark, previous)

    @contextlib.contextmanager
    def _registered(self, views, relations, sources: Mapping[str, SourceSpec], copies: Copies | None = None):
        """Sources the views and relations read, then the views, registered for the block.

        Sources ``copies`` keeps are read once, with the columns it names, and kept for the
        block (read_once.py); so is a kept view's relation.
        They are temporary views (a request to create and one to drop each) only when Spark SQL
        text runs, which may name any of them; other relations read the DataFrames themselves.
        """
        ctx = Context(self.spark, {})
        registered: list[str] = []
        everything = [view.relation for view in views] + list(relations)
        names = [n for rel in everything for n in reads(rel)]
        as_views = registered if has_sql(everything) else None
        try:
            loaded = {name: self._load(sources[name])[0] for name in dict.fromkeys(names) if name in sources}
            for name, df in keep_all(loaded, copies or Copies()).items():
                with spark_errors(f"reading source {name!r}"):
                    self._register(ctx, name, df, as_views)
            small = copies is not None and copies.small
            for view in views:
                with spark_errors(f"building view {view.name!r}"):
                    df = compile_relation(view.relation, ctx)
                    # a kept view (a split's flagged rows) computed once: both outputs and their counts read it
                    self._register(ctx, view.name, keep(df, None, view.name, small) if view.kept else df, as_views)
            yield ctx
        except BaseException as failure:
            # the failure that ended the block is the one to report; cleaning up after it must
            # not replace it, nor wait out the retry budget on a server that is gone
            if self.connection.reachable():
                with contextlib.suppress(EngineError):
                    self._drop(registered)
            elif isinstance(failure, EngineError) and failure.code != "SPARK_UNREACHABLE":
                raise self.connection.lost(failure) from failure
            raise
        self._drop(registered)

    def close(self) -> None:
        self._loaded.clear()
        self.connection.close()

    def __enter__(self) -> SparkEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _register(self, ctx: Context, name: str, df: DataFrame, registered: list[str] | None) -> None:
        """``df`` as ``name`` for Read relations; also as a temporary view when ``registered``
        is given (the views that Sql relations name), which lists it for dropping."""
        if registered is not None:
            df.createOrReplaceTempView(quoted(name))  # the name is parsed here (not when dropped)
            registered.append(name)
        ctx.tables[name] = df

    def _dataframe(self, ctx: Context, query: Query) -> DataFrame:
        with spark_errors(f"query {query.name!r}"):
            df = compile_relation(query.relation, ctx)
            return df.limit(query.limit) if query.limit is not None else df

    def _drop(self, names: list[str]) -> None:
        with spark_errors("dropping temporary views"):
            for name in dict.fromkeys(names):
                self.spark.catalog.dropTempView(name)
