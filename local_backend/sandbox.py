"""DuckDB's own guard around a run that holds users' SQL: the connection reaches the files of the
run's sources and the folders its exports write to, and nothing else.

The compiler already refuses SQL that names a file, a table function or a catalog table
(compiler/analysis/sql_reads.py); this holds the same line for any plan, however it was built. DuckDB
cannot loosen these settings once external access is off, so a guarded run gets a connection of
its own (engine.py) and the engine's connection stays as it was. ``lock_configuration`` stays
off: gryph itself changes optimizer and memory settings between statements, and users' SQL,
always one query, has no way to change a setting.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import duckdb

from gryph.compiler.plan import Export, Sql, walk_relations
from gryph.compiler.sources.source_specs import SourceSpec

from .sources.source_views import OPENED_BY_DUCKDB, expand_paths
from .sql.quoting import string


def holds_user_sql(relations: Iterable) -> bool:
    """Whether any of ``relations`` runs SQL text (a user's query, or a step built from one)."""
    return any(isinstance(node, Sql) for rel in relations for node in walk_relations(rel))


def guard(con: duckdb.DuckDBPyConnection, sources: Iterable[SourceSpec], exports: Iterable[Export]) -> None:
    """From now on ``con`` reads only the files of ``sources`` and writes only where ``exports``
    go: no other file, no network, no extension installed or loaded."""
    files = [path for spec in sources if spec.kind.kind in OPENED_BY_DUCKDB for path in expand_paths(spec)]
    folders = [str(Path(e.path).parent) + "/" for e in exports if e.path is not None]
    if any("://" in path for path in files):
        con.execute("LOAD httpfs")  # a source's URL: its reader is loaded now, while loading still works
    # the allowed lists first: DuckDB refuses to change them once external access is off
    con.execute(f"SET allowed_paths = [{', '.join(string(f) for f in files)}]")
    con.execute(f"SET allowed_directories = [{', '.join(string(f) for f in folders)}]")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
