"""Quarantine outputs: where a run writes each source's failing and valid rows, exactly once per
data time.

``--quarantine-to DIR`` gives every source a row-level rule reads two parquet folders,
``DIR/SOURCE/quarantine/data_time=KEY/`` and ``DIR/SOURCE/valid/data_time=KEY/``. The engine writes
them aside (``_staging-RUN``), the run marks them as its own, writes a journal of the swaps, then
exchanges each with the data time's folder in one ``renameat2(RENAME_EXCHANGE)``: a reader sees
the old folder or the new one, never neither or half. A run killed after the journal is finished
by the next run over the same folder (the swaps are idempotent); one killed before it leaves the
old rows, and its stage is removed.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gryph.compiler.errors import EngineError, InvalidInput, Location
from gryph.compiler.lowering.row_failures import DATA_TIME, OUTPUTS, Split
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.safe_names import safe_file_name
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.split_outputs import DATABASE_TABLE, row_level_sources
from gryph.compiler.suites.suite import Suite
from gryph.compiler.support.crash_points import QUARANTINE_CRASH_AT, crash_if_chosen

from . import quarantine_tables
from .output_shapes import OutputTable, check_shapes, delta_table
from .quarantine_database import DatabaseTable
from .quarantine_tables import RUN_PROPERTY

MARK = "_gryph_run"  # the run that wrote a folder (Spark and parquet readers skip names starting with _)
JOURNAL = "_swaps-{run}.json"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
TABLE_STAGES = Path(".gryph") / "outputs"  # where a table output's rows are staged before their commit


@dataclass(frozen=True)
class Staged:
    """One source's outputs (quarantine, and valid when asked for), each a folder of data times:
    written by the engine to ``staging``, then swapped into ``final``."""

    source: str
    folders: dict[str, Path]  # output -> its folder (the quarantine's holds the journal)
    staging: dict[str, Path]
    final: dict[str, Path]  # a parquet output's data time folder, a Delta output's table
    data_time: str  # the value of a Delta table's data_time partition
    delta: frozenset[str] = frozenset()  # the outputs that are Delta tables
    tables: dict[str, SourceSpec] = field(default_factory=dict)  # the outputs committed into tables
    # the outputs the engine writes into tables of its DuckDB file, in the run's own transaction
    in_database: dict[str, DatabaseTable] = field(default_factory=dict)


def new_run_id() -> str:
    """The id ``_dq_run`` carries and the stage folders are named by."""
    return uuid.uuid4().hex[:16]


def output_folders(suite: Suite, root: str | None) -> dict[str, dict[str, Path]]:
    """Per source, its outputs' folders: ``root/SOURCE/quarantine`` and ``.../valid`` for every
    source a row-level rule reads (``--quarantine-to``: at least one, or nothing would be
    written), else the suite's statements."""
    if root is not None:
        sources = row_level_sources(suite)
        if not sources:
            raise InvalidInput(
                "QUARANTINE_TARGET",
                f"quarantine folder {root!r} would stay empty: suite {suite.name!r} has no row-level rule",
                location=Location(suite.file),
                text=root,
                hint="a source's rows are quarantined by a completeness, validity, accuracy or uniqueness rule on it "
                "(in a contract: required, unique, primaryKey, logicalTypeOptions, relationships, or a nullValues, "
                "missingValues, invalidValues or duplicateValues rule); rowCount, sql and freshness judge no row",
            )
        if root.startswith(DATABASE_TABLE):
            return {}  # tables of the DuckDB file: written by the engine, never staged
        return {source: {out: Path(root) / safe_file_name(source) / out for out in OUTPUTS} for source in sources}
    found: dict[str, dict[str, Path]] = {}
    for (source, out), (folder, form) in suite.outputs.items():
        if form == "table":
            continue  # a table of the DuckDB file: written by the engine, never staged
        staged_at = TABLE_STAGES / safe_file_name(source) / out if (source, out) in suite.output_tables else None
        found.setdefault(source, {})[out] = staged_at or Path(folder)
    return found


def table_outputs(suite: Suite, root: str | None) -> dict[str, dict[str, SourceSpec]]:
    """Per source, its outputs the suite commits into tables (none with ``--quarantine-to``),
    each reached (and writable) before any scan."""
    found: dict[str, dict[str, SourceSpec]] = {}
    for (source, out), spec in suite.output_tables.items() if root is None else ():
        if spec.kind.family == "catalog":
            continue  # a table of the DuckDB file (quarantine_database.py)
        quarantine_tables.check_table(spec)
        found.setdefault(source, {})[out] = spec
    return found


def delta_outputs(suite: Suite, root: str | None) -> dict[str, frozenset[str]]:
    """Per source, its outputs the suite writes as Delta tables (none with ``--quarantine-to``)."""
    if root is not None:
        return {}
    found: dict[str, set[str]] = {}
    for (source, out), (_, form) in suite.outputs.items():
        if form == "delta":
            found.setdefault(source, set()).add(out)
    return {source: frozenset(outs) for source, outs in found.items()}


def plan_outputs(
    folders: dict[str, dict[str, Path]],
    run: tuple[str | None, ...],
    engine: str,
    delta: dict[str, frozenset[str]] | None = None,
    key: str | None = None,
    tables_of: dict[str, dict[str, SourceSpec]] | None = None,
    in_database: dict[str, dict[str, DatabaseTable]] | None = None,
) -> tuple[list[Staged], tuple[Split, ...]]:
    """The staged outputs, and the splits the compiler exports to them (DuckDB writes one file,
    Spark a folder of parts: both read as ``KEY/*.parquet``). ``key`` names a parquet output's
    folder (a stream's batch: ``batch=N``), by default the data time's: ``data_time=...``. Spark
    commits a Delta or Iceberg output itself (no row comes to the client): it is written to the
    table, not staged."""
    run_id, data_time = run[1], run[2] or "none"
    key = key or "data_time=" + data_time.replace(":", "-")
    staged, splits = [], []
    for source, tables_in_file in sorted((in_database or {}).items()):
        staged.append(Staged(source, {}, {}, {}, data_time, in_database=tables_in_file))
        parts = tuple((out, table.parts) for out, table in tables_in_file.items())
        splits.append(Split(source, None, None, run, tables=parts))
    for source, outs in sorted(folders.items()):
        tables = (delta or {}).get(source, frozenset())
        catalogs = (tables_of or {}).get(source, {})
        # the outputs Spark commits itself: its Delta tables, and Iceberg's through its runtime
        iceberg = {out: spec for out, spec in catalogs.items() if quarantine_tables.spark_commits(spec)}
        by_engine = tables | iceberg.keys() if engine == "spark" else frozenset()
        # absolute: a local Spark server's working folder is not the client's
        stage = {
            out: (folder / f"_staging-{run_id}").absolute() for out, folder in outs.items() if out not in by_engine
        }
        final = {out: folder if out in tables else folder / key for out, folder in outs.items()}
        staged.append(Staged(source, outs, stage, final, data_time, tables, catalogs))
        paths = {out: str(path / "part-0.parquet") if engine == "duckdb" else str(path) for out, path in stage.items()}
        paths.update({out: str(final[out].absolute()) for out in by_engine})
        on_spark = tuple(sorted(iceberg.items())) if engine == "spark" else ()
        splits.append(Split(source, paths["quarantine"], paths.get("valid"), run, tables & by_engine, on_spark))
    return staged, tuple(splits)


def check_targets(root: str | None, folders: dict[str, dict[str, Path]], location: Location) -> None:
    """``--quarantine-to``'s folder, else every folder the suite names, one the run can write,
    found before any scan."""
    for folder in [Path(root)] if root is not None else [f for outs in folders.values() for f in outs.values()]:
        _check_target(folder, location)


def check_output_tables(staged: Sequence[Staged], schemas: dict[str, Schema], location: Location) -> None:
    """Before the scan, once the sources' schemas are known: each Delta, Iceberg and PostgreSQL
    output already there holds the columns the run writes (output_shapes.py)."""
    tables: list[OutputTable] = []
    for each in staged:
        for out in sorted(each.delta):
            tables.append(
                OutputTable(each.source, out, repr(str(each.final[out])), location, delta_table(each.final[out]))
            )
        tables.extend(
            quarantine_tables.output_table(each.source, out, spec) for out, spec in sorted(each.tables.items())
        )
    check_shapes(tables, schemas)


def _check_target(path: Path, location: Location) -> None:
    root = str(path)
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    problem = None
    if not existing.is_dir():
        problem = "is a file, not a folder" if existing == path else f"is inside the file {str(existing)!r}"
    elif not os.access(existing, os.W_OK | os.X_OK):
        problem = f"cannot be written ({str(existing)!r} is read-only)"
    if problem is not None:
        raise InvalidInput(
            "QUARANTINE_TARGET",
            f"output folder {root!r} {problem}",
            location=location,
            text=root,
            hint="give --quarantine-to (or the suite's quarantine and valid statements) a folder this user can write",
        )


def finish_pending(folders: dict[str, dict[str, Path]]) -> None:
    """Complete the swaps of a run killed after writing its journal (the old rows or the new,
    never both): each swap is done once, whatever step the run died at."""
    for outs in folders.values():
        for journal in sorted(outs["quarantine"].glob(JOURNAL.format(run="*"))):
            try:
                _swap_all(json.loads(journal.read_text("utf-8")))
            except DeltaNotWritten:
                pass  # that run's rows are dropped; this run writes its own
            journal.unlink()
        for folder in outs.values():
            for stage in folder.glob("_staging-*"):  # a run killed before its journal: its rows never count
                shutil.rmtree(stage, ignore_errors=True)


def discard(staged: Sequence[Staged]) -> None:
    """Drop what a run staged and will not publish (a stream's batch that read no rows)."""
    for each in staged:
        for folder in each.staging.values():
            shutil.rmtree(folder, ignore_errors=True)


def publish(staged: Sequence[Staged], run_id: str) -> dict[tuple[str, str], dict[str, object]]:
    """Swap every staged output into its data time's folder, as one journaled step, then commit
    each table output; what each table's commit made (its snapshot)."""
    committed: dict[tuple[str, str], dict[str, object]] = {}
    for each in staged:
        for folder in each.staging.values():
            if not folder.is_dir():  # a remote Spark server writes to its own file system
                raise EngineError(
                    "QUARANTINE_NOT_WRITTEN",
                    f"output folder {str(folder.parent)!r} was not written where this client can see it",
                    hint="on a remote Spark server, write outputs to storage both share; a local server works",
                )
            (folder / MARK).write_text(run_id, "utf-8")
    crash_if_chosen(QUARANTINE_CRASH_AT, "staged")
    for each in staged:
        if each.in_database:
            continue  # written in the engine's DuckDB file, in the run's own transaction
        swaps = {
            "run": run_id,
            "swaps": [
                [str(each.staging[o]), str(each.final[o]), each.data_time if o in each.delta else None]
                for o in each.staging
                if o not in each.tables
            ],
        }
        if swaps["swaps"]:  # none when every output is a table
            _journaled(swaps, each.folders["quarantine"] / JOURNAL.format(run=run_id))
        for out, spec in each.tables.items():
            if out not in each.staging:  # committed by the engine during the run
                committed[(each.source, out)] = quarantine_tables.committed_by_engine(spec)
        staged_tables = {out: spec for out, spec in each.tables.items() if out in each.staging}
        try:  # a source's tables, together where their kind allows (quarantine_tables.py)
            made = quarantine_tables.commit(staged_tables, each.staging, each.data_time, run_id)
        finally:
            for out in staged_tables:
                shutil.rmtree(each.staging[out], ignore_errors=True)
        committed.update(((each.source, out), info) for out, info in made.items())
    return committed


def _journaled(swaps: dict, journal: Path) -> None:
    """Do the swaps, kept in ``journal`` (in the quarantine's folder, made if Spark committed the
    quarantine into a table) until they are done."""
    journal.parent.mkdir(parents=True, exist_ok=True)
    partial = journal.with_suffix(".partial")
    partial.write_text(json.dumps(swaps), "utf-8")
    os.replace(partial, journal)
    try:
        _swap_all(swaps, crash_between=True)
    finally:
        if sys.exc_info()[0] in (None, DeltaNotWritten):
            journal.unlink()


def _swap_all(journal: dict, crash_between: bool = False) -> None:
    run_id = journal["run"]
    for index, (stage, final, partition) in enumerate(journal["swaps"]):
        if partition is None:
            _swap_in(Path(stage), Path(final), run_id)
        else:
            _commit_delta(Path(stage), Path(final), partition, run_id)
        if crash_between and index == 0:
            crash_if_chosen(QUARANTINE_CRASH_AT, "swapped")


def _swap_in(stage: Path, final: Path, run_id: str) -> None:
    """Put the run's folder at ``final`` (once: a folder already marked by the run is left), and
    remove what was there before."""
    if _mark(final) == run_id:
        shutil.rmtree(stage, ignore_errors=True)
        return
    if not stage.exists():
        return  # nothing staged and nothing swapped: the journal was written for it, so it was swapped
    if final.exists():
        _exchange(stage, final)  # stage now holds the old rows
        shutil.rmtree(stage)
    else:
        os.rename(stage, final)


def _commit_delta(stage: Path, table: Path, data_time: str, run_id: str) -> None:
    """Replace the table's ``data_time`` partition with the staged rows in one Delta commit (done
    again after a kill, it writes the same rows), then drop the stage. The commit's metadata
    names the run (``gryph.run_id``, as ``_dq_run`` does), so the table's history says which
    version holds which run's rows."""
    if not stage.exists():
        return  # committed, and its stage removed
    import pyarrow as pa
    import pyarrow.dataset as ds
    from deltalake import CommitProperties, write_deltalake

    rows = ds.dataset(str(stage), format="parquet").to_table()  # _gryph_run: skipped as bookkeeping
    rows = rows.append_column(DATA_TIME, pa.array([data_time] * rows.num_rows, pa.string()))
    quoted = data_time.replace("'", "''")
    try:
        write_deltalake(
            str(table),
            rows,
            mode="overwrite",
            partition_by=[DATA_TIME],
            predicate=f"{DATA_TIME} = '{quoted}'",
            commit_properties=CommitProperties(custom_metadata={RUN_PROPERTY: run_id}),
        )
    except Exception as error:  # delta-rs raises its own classes: a table of another shape, a lost lock
        shutil.rmtree(stage)  # never retried by a later run: the table keeps its rows
        raise DeltaNotWritten(
            "QUARANTINE_NOT_WRITTEN",
            f"output folder {str(table)!r} was not written: {error}",
            text=str(table),
            hint=f"a Delta output must be a table of the columns {', '.join(rows.column_names)}, partitioned by "
            f"{DATA_TIME} (a new path makes one)",
        ) from None
    shutil.rmtree(stage)


class DeltaNotWritten(EngineError):
    """A Delta commit that failed: its journal and stage are dropped, the table is unchanged."""


def _mark(folder: Path) -> str | None:
    try:
        return (folder / MARK).read_text("utf-8")
    except OSError:
        return None


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders in one step (Linux's renameat2)."""
    import ctypes  # loaded for a run that writes outputs, not at every start

    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"exchanging {a} with {b}: {os.strerror(errno)}")


def described(
    staged: Iterable[Staged],
    counted: dict[str, dict],
    run_id: str,
    committed: dict[tuple[str, str], dict[str, object]] | None = None,
) -> dict[str, dict[str, object]]:
    """What the result document and the history keep of the outputs: per source, each folder
    written with its rows (``counted``: the run's counts of the quarantined and valid rows), and
    the run that wrote them."""
    out: dict[str, dict[str, object]] = {}
    for each in staged:
        rows = dict(zip(OUTPUTS, counted[each.source]["rows"], strict=True))
        out[each.source] = {
            **{
                kind: {"path": str(path), "rows": rows[kind], **_version(path, kind in each.delta)}
                for kind, path in each.final.items()
                if kind not in each.tables
            },
            **{
                kind: {"path": spec.describe(), "rows": rows[kind], **(committed or {}).get((each.source, kind), {})}
                for kind, spec in each.tables.items()
            },
            **{
                kind: {"path": f"table {table.label}", "rows": rows[kind], "format": "duckdb"}
                for kind, table in each.in_database.items()
            },
            "run_id": run_id,
        }
    return out


def _version(path: Path, delta: bool) -> dict[str, object]:
    """A Delta output's version after the run's commit."""
    if not delta:
        return {}
    from deltalake import DeltaTable

    return {"format": "delta", "version": DeltaTable(str(path)).version()}
