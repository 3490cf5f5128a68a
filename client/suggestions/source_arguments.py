"""What ``gryph suggest`` reads: each SOURCE argument as named sources.

An argument is a data file or a folder of them (the format told by the files' extension), a
SQLite or DuckDB database file (told by its first bytes: each of its tables), a source as a native
suite declares it (``postgres("postgresql://...", table = "public.orders")``,
``csv("x.txt", delimiter = ";")``, ``table("main.t")``), or a Griffin job config (``.json``),
whose data sources' connectors are read.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.sources.csv_dialects import csv_dialect, default_dialect
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.suites.native_suites import parse_suite

from .dsl_text import dsl_string, identifier

EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".avro": "avro",
    ".orc": "orc",
}
SQLITE_HEADER = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # at bytes 8 to 11 of a DuckDB database file
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECLARATION = re.compile(r"\s*[A-Za-z]+\s*\(")
_GRIFFIN_KEYS = ("data.sources", "evaluate.rule", "measures")


def read_source_arguments(arguments: list[str], cwd: Path) -> list[SourceSpec]:
    """The sources the arguments name, each under a name of its own (a plain identifier)."""
    taken: set[str] = set()
    sources = []
    for argument in arguments:
        for name, spec in _sources_of(argument, cwd):
            if spec.kind.stream:
                raise InvalidInput(
                    "BAD_SOURCE",
                    f"source {spec.describe()}: a stream has no whole table to profile",
                    text=argument,
                    hint="suggest from files or a table holding a sample of its messages",
                )
            sources.append(replace(_with_dialect(spec), name=identifier(name, taken)))
    return sources


# a dialect option a source may give in Spark's spelling instead
_SPELLINGS = {"delimiter": "sep", "encoding": "charset"}


def _with_dialect(spec: SourceSpec) -> SourceSpec:
    """A CSV source with the options that say how its file was found to be written (delimiter,
    quote, encoding, ...) where they differ from what a
    source without options is read with: the suite says how to split its file, both engines read
    it so. Options the source gives are kept as given."""
    if not spec.kind.text:
        return spec
    dialect = csv_dialect(spec)
    found = dialect.source_options(default_dialect(spec))
    given = {key for key, _ in spec.options}
    added = tuple((key, value) for key, value in found if not {key, _SPELLINGS.get(key)} & given)
    return replace(spec, options=spec.options + added)


def _sources_of(argument: str, cwd: Path) -> list[tuple[str, SourceSpec]]:
    if _DECLARATION.match(argument) and not os.path.exists(argument):
        spec = parse_suite(f"source s =\n{argument}", "SOURCE", cwd).sources["s"]
        return [(_declared_name(spec), spec)]
    path = Path(argument)
    if not path.exists():
        raise EngineError(
            "SOURCE_NOT_FOUND",
            f"no file or folder {argument}",
            text=argument,
            hint="give a data file, a folder of them, a Griffin job config, or a source as a suite declares it: "
            'postgres("postgresql://...", table = "public.t")',
        )
    if path.suffix.lower() == ".json" and path.is_file() and _is_griffin_job(path):
        return _griffin_sources(path)
    database = database_kind(path)
    if database is not None:
        return _database_tables(path, database, cwd)
    fmt = _file_format(path)
    spec = SourceSpec("s", fmt, paths=(str(path.resolve()),), written=argument)  # an error quotes it as typed
    return [(path.stem if path.is_file() else path.name, spec)]


def database_kind(path: Path) -> str | None:
    """``sqlite`` or ``duckdb`` for a database file of that kind (by its header), else None."""
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head == SQLITE_HEADER:
        return "sqlite"
    return "duckdb" if head[8:12] == DUCKDB_MAGIC else None


def _database_tables(path: Path, kind: str, cwd: Path) -> list[tuple[str, SourceSpec]]:
    """Each table and view of a database file, as a source reading it: ``sqlite("f.db", table =
    "t")``, or ``table("main.t")`` of the DuckDB file the engine opens (``--database``)."""
    if kind == "sqlite":
        uri = f"{path.resolve().as_uri()}?mode=ro"  # read-only, as every gryph session is
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            query = "select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'"
            tables = [("", name) for (name,) in db.execute(query + " order by name")]
    else:
        import duckdb

        with duckdb.connect(str(path), read_only=True) as db:
            tables = db.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = current_database() "
                "union select schema_name, view_name from duckdb_views() "
                "where database_name = current_database() and not internal order by 1, 2"
            ).fetchall()
    if not tables:
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {path}: the {kind} database has no tables",
            text=str(path),
            hint="suggest from a database that holds the data",
        )
    sources = []
    for schema, table in tables:
        if kind == "sqlite":
            declared = f"sqlite({dsl_string(str(path))}, table = {dsl_string(table)})"
        else:
            declared = f"table({dsl_string(_table_part(schema) + '.' + _table_part(table))})"
        spec = parse_suite(f"source s =\n{declared}", "SOURCE", cwd).sources["s"]
        sources.append((table, spec))
    return sources


def _table_part(name: str) -> str:
    """A part of a qualified table name as ``table("...")`` reads it: double-quoted when it holds
    anything but letters, digits and ``_``."""
    return name if _PLAIN.match(name) else '"' + name.replace('"', '""') + '"'


def _declared_name(spec: SourceSpec) -> str:
    """A name for a declared source: its table's, else its file's."""
    table = spec.table or spec.option("table")
    if table:
        return str(table).rsplit(".", 1)[-1]
    return Path(spec.paths[0]).stem if spec.paths else spec.format


def _file_format(path: Path) -> str:
    """The format of a file, or of a folder's data files, by their extension."""
    files = [path] if path.is_file() else _data_files(path)
    formats = {EXTENSIONS.get(f.suffix.lower()) for f in files}
    if len(formats) == 1 and None not in formats:
        return formats.pop()  # type: ignore[return-value]
    seen = ", ".join(sorted({f.suffix or "(none)" for f in files})) or "no data files"
    raise InvalidInput(
        "BAD_SOURCE",
        f"source {path}: cannot tell its format from its file names ({seen})",
        text=str(path),
        hint=f'name its format as a suite declares a source, e.g. csv("{path}"); known extensions: '
        + ", ".join(EXTENSIONS)
        + " (SQLite and DuckDB database files are told by their contents)",
    )


def _data_files(folder: Path) -> list[Path]:
    """A folder's data files, partition folders included; Spark's markers and hidden files left out."""
    files = []
    for root, folders, names in os.walk(folder):
        folders[:] = [f for f in folders if not f.startswith((".", "_"))]
        files += [Path(root, n) for n in names if not n.startswith((".", "_")) and not n.endswith(".crc")]
    return files


def _is_griffin_job(path: Path) -> bool:
    """A JSON document that is a Griffin job config (not a JSON data file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (ValueError, OSError):
        return False
    return isinstance(document, dict) and any(key in document for key in _GRIFFIN_KEYS)


def _griffin_sources(path: Path) -> list[tuple[str, SourceSpec]]:
    """A Griffin job's data sources, each read through its connector."""
    from gryph.compiler.griffin import load_griffin_job

    suite = load_griffin_job(path)
    if suite.views:
        view = suite.views[0]
        raise InvalidInput(
            "BAD_SOURCE",
            f"source {view.name}: its connector prepares its rows (pre.proc, where or several connectors), "
            "which a native suite's source cannot say",
            location=view.location,
            text=view.name,
            hint="suggest from the connector's files or table directly",
        )
    return [(name, spec) for name, spec in suite.sources.items()]
