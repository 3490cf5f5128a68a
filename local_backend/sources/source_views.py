"""Loading a ``SourceSpec`` into DuckDB as a temporary view named after the source.

Formats DuckDB reads natively (csv, tsv, parquet, json) and catalog tables become views over
the files or tables themselves, so every query scans them and nothing is copied. ORC and Avro
are read with pyarrow and polars into Arrow tables that DuckDB then scans in place, as frames.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import duckdb

from gryph.compiler.errors import EngineError, did_you_mean
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.csv_dialects import CsvDialect, csv_dialect, flag_option
from gryph.compiler.sources.csv_whole_files import MULTI_LINE_HINT, NOT_UTF8_HINT, located_misread
from gryph.compiler.sources.in_memory_tables import frame_to_arrow
from gryph.compiler.sources.local_files import check_local_files, local_files
from gryph.compiler.sources.null_markers import null_markers as markers_of
from gryph.compiler.sources.parquet_footers import footer_error
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import TMST
from gryph.compiler.sources.table_names import split_qualified
from gryph.compiler.sources.typed_text import declared_text
from gryph.compiler.sources.unchanged_files import while_unchanged
from gryph.compiler.sources.unreadable_files import damaged_file, source_of_file, unreadable_source

from ..spark_emulation.csv_headers import spark_header
from ..sql.quoting import ident, string
from .csv_inference import spark_typed
from .csv_skipped_lines import without_skipped_lines
from .duck_types import to_duckdb
from .typed_json import typed_json
from .typed_text import null_markers, row_file_argument, text_columns, typed_from_text

if TYPE_CHECKING:  # pyarrow loads only for the sources read into Arrow
    import pyarrow as pa


class Loaded:
    """What registering a source left in the connection, so it can be removed again."""

    def __init__(self, view: str, arrow_names: tuple[str, ...] = ()) -> None:
        self.view = view
        self.arrow_names = arrow_names

    def drop(self, con: duckdb.DuckDBPyConnection) -> None:
        con.execute(f"DROP VIEW IF EXISTS {ident(self.view)}")
        for name in self.arrow_names:
            con.unregister(name)


class KeptTable:
    """A kept view's rows, computed once into a temporary table for the run."""

    def __init__(self, table: str) -> None:
        self.table = table

    def drop(self, con: duckdb.DuckDBPyConnection) -> None:
        con.execute(f"DROP TABLE IF EXISTS {ident(self.table)}")


def register_source(con: duckdb.DuckDBPyConnection, spec: SourceSpec, view: str) -> Loaded:
    """Create (or replace) the temporary view ``view`` over the data of ``spec``."""
    check_local_files(spec)
    relation, arrow_names = _READERS[spec.kind.kind](con, spec, f"__gryph_arrow_{view}")
    try:
        con.execute(f"CREATE OR REPLACE TEMP VIEW {ident(view)} AS SELECT *{stamp_item(spec)} FROM {relation}")
    except duckdb.Error as exc:
        for name in arrow_names:
            con.unregister(name)
        raise (footer_error(spec) or _unreadable(spec, exc)) from None
    return Loaded(view, arrow_names)


# Each reader gives the SQL relation of a source's rows and the Arrow names it registered for
# them (``arrow_name`` is the one it may take).
Reader = Callable[[duckdb.DuckDBPyConnection, SourceSpec, str], tuple[str, tuple[str, ...]]]


def _delimited_text(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
    return _csv_relation(con, spec), ()


def _json(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
    if declared_text(spec):  # read as text, then in the declared types
        return typed_json(spec, _file_list(spec)), ()
    if spec.schema is None:
        return _json_as_spark_reads_it(con, spec, _json_files(spec)), ()
    return _declared(spec, _json_files(spec)), ()


def _native(read: Callable[[SourceSpec], str]) -> Reader:
    """A reader of files DuckDB reads itself, by the table function ``read`` gives."""
    return lambda con, spec, arrow_name: (_declared(spec, read(spec)), ())


def _catalog_table(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
    return _declared(spec, _table_name(con, spec)), ()


def _kafka(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
    from .kafka.reader import kafka_relation  # confluent-kafka loads only for suites that read Kafka

    return kafka_relation(con, spec, arrow_name), (arrow_name,)


def _arrow(read: Callable[[SourceSpec], object]) -> Reader:
    """A reader of what DuckDB reads as an Arrow table ``read`` gives (a frame, ORC and Avro files)."""

    def registered(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
        con.register(arrow_name, read(spec))
        return _declared(spec, ident(arrow_name)), (arrow_name,)

    return registered


def unreadable_file(exc: duckdb.Error, specs: Iterable[SourceSpec]) -> EngineError | None:
    """``SOURCE_UNREADABLE`` when ``exc``, raised by a query, names (quoted, as DuckDB does) a
    file of one of ``specs``; None when it names none of them."""
    for quoted in _QUOTED.findall(str(exc)):
        spec = source_of_file(specs, quoted)
        if spec is not None:
            damaged = spec.kind.footers and "Failed to read file" in str(exc)
            return _damaged_parquet(spec, quoted, exc) if damaged else _unreadable(spec, exc)
    return None


def _damaged_parquet(spec: SourceSpec, file: str, exc: Exception) -> EngineError:
    """A parquet file whose data DuckDB failed to decode: the file and what did not decode
    (``Snappy decompression failure``), never DuckDB's framing of it or the statement."""
    after = str(exc).split(file, 1)[1].lstrip("'\": ").splitlines()
    return damaged_file(spec, file, after[0].strip().rstrip(".") if after and after[0].strip() else None)


_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def stamp_item(spec: SourceSpec) -> str:
    """The select item that adds a stream batch's time as ``__tmst`` (64-bit), after a list of
    columns; nothing for a source without a stamp."""
    if spec.stamp is None:
        return ""
    return f", CAST({int(spec.stamp)} AS BIGINT) AS {ident(TMST)}"


def _unreadable(spec: SourceSpec, exc: Exception) -> EngineError:
    # DuckDB's CSV errors say where, then why, then list its reader's settings (indented): keep the
    # why, never the statement gryph made (``LINE 1: ... CREATE OR REPLACE TEMP VIEW ...``)
    lines = re.split(r"\n|\s*LINE \d+:", str(exc)) or [""]
    reason = " ".join([lines[0], *(line.strip() for line in lines[1:3] if line.strip() and not line.startswith("  "))])
    multi_line, not_utf8 = "quoted new lines" in reason, "not utf-8 encoded" in reason
    if spec.kind.text and (multi_line or not_utf8):
        # past what gryph judged the dialect from: located and told as on Spark, which reads the
        # file whole before it fails (csv_whole_files.py)
        file = _FAILED_FILE.search(str(exc))
        located = located_misread(spec, file.group(1)) if file and os.path.isfile(file.group(1)) else None
        if located is not None:
            return located
    if multi_line:
        return unreadable_source(spec, f"{lines[0]}: a quoted field holds a line break", MULTI_LINE_HINT)
    if _NOT_STANDARD in reason:
        # DuckDB's sniffer, told the dialect, finds lines it does not split by the CSV standard
        # (it then lists every setting it tried): say so, and how both engines read it alike
        return unreadable_source(spec, f"{lines[0].rstrip('.')}: {_NOT_STANDARD_WHY}", _NOT_STANDARD_HINT)
    return unreadable_source(spec, reason, NOT_UTF8_HINT if not_utf8 else None)


_NOT_STANDARD = "not possible to automatically detect the CSV parsing dialect"
_NOT_STANDARD_WHY = 'some lines do not split by the CSV standard with its delimiter and quote (a field quoted in part, as "w" v, is one)'
_NOT_STANDARD_HINT = 'quote = "" reads every quote as text, on both engines alike; or quote such fields whole'


_FAILED_FILE = re.compile(r"^\s*file = (.+)$", re.MULTILINE)  # how DuckDB's CSV errors name the file


# --- files ----------------------------------------------------------------------------------


def expand_paths(spec: SourceSpec) -> list[str]:
    """Every file of a source: globs expanded, directories read as Spark writes them."""
    files: list[str] = []
    for path in spec.paths:
        if "://" in path:  # a URL: DuckDB resolves it itself
            files.append(path)
            continue
        found = local_files(spec, path)
        if not found:
            raise EngineError("SOURCE_NOT_FOUND", f"source {spec.name!r}: no file found at {path!r}")
        files.extend(found)
    return files


def _file_list(spec: SourceSpec, files: list[str] | None = None) -> str:
    """The SQL list of ``spec``'s files (or of ``files`` read in their stead)."""
    return "[" + ", ".join(string(p) for p in (files or expand_paths(spec))) + "]"


def _csv_relation(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> str:
    dialect = csv_dialect(spec)
    copies = without_skipped_lines(expand_paths(spec), dialect)
    if copies is not None:  # DuckDB would end a line at a comment character after a value
        dialect = replace(dialect, comment="")
    args = [_file_list(spec, copies), *(f"{name} = {value}" for name, value in _dialect_arguments(dialect))]
    args += null_markers(spec)
    if markers_of(spec):
        args.append("allow_quoted_nulls = false")  # '""' is empty text, as on Spark: see _quoted_markers_null
    if dialect.multi_line:
        args.append("parallel = false")  # DuckDB's parallel reader cannot pad rows and cross lines at once
    if spec.schema is not None:  # read as text, then in the declared types: typed_text.py
        args.append(f"columns = {text_columns(spec.schema)}")
        return typed_from_text(
            _quoted_markers_null(spec, f"read_csv({', '.join([*args, *row_file_argument(spec)])})"), spec
        )
    # read as text: Spark's types are inferred from it (or every column stays a string, as in
    # Spark, when told not to infer); a row with fewer fields than the header is padded with NULLs
    args = [*args, "all_varchar = true", "null_padding = true"]
    relation = f"read_csv({', '.join(args)})"
    relation = _header_columns(con, spec, args) if dialect.header else _spark_column_names(con, spec, relation)
    relation = _quoted_markers_null(spec, relation)
    if not flag_option(spec, "inferSchema", True):
        return relation
    try:
        return spark_typed(con, relation, expand_paths(spec))
    except duckdb.Error as exc:
        raise _unreadable(spec, exc) from None


def _quoted_markers_null(spec: SourceSpec, relation: str) -> str:
    """``relation`` (a CSV read as text) with a quoted null marker (``"NA"``) NULL too. Spark reads
    a quoted field as its text, then a text equal to ``nullValue`` as NULL: a quoted empty field is
    empty text, a quoted marker NULL. DuckDB's ``allow_quoted_nulls`` treats both alike, so it is
    turned off and the markers are matched here."""
    markers = markers_of(spec)
    if not markers:
        return relation
    listed = ", ".join(string(marker) for marker in markers)
    return f"(SELECT CASE WHEN COLUMNS(*) IN ({listed}) THEN NULL ELSE COLUMNS(*) END FROM {relation})"


def _dialect_arguments(dialect: CsvDialect) -> list[tuple[str, str]]:
    """read_csv's arguments for ``dialect``, all of it: DuckDB sniffs what it is not told."""
    line_break = dialect.line_break.encode("unicode_escape").decode()  # read_csv takes it escaped: '\\r\\n'
    return [
        ("header", "true" if dialect.header else "false"),
        ("delim", string(dialect.delimiter)),
        ("quote", string(dialect.quote)),
        ("escape", string(dialect.escape)),
        ("comment", string(dialect.comment)),
        ("new_line", string(line_break)),
        ("encoding", string(dialect.encoding)),
    ]


def _header_columns(con: duckdb.DuckDBPyConnection, spec: SourceSpec, args: list[str]) -> str:
    """The header's columns only, named as Spark names them (csv_headers.py). Spark drops the fields
    of a row beyond the header's, where DuckDB would add columns for them (or, without padding,
    take the longest row for the header)."""
    # the header as read: an empty field '' (a field never equals a line break), a padded one NULL
    raw = [arg for arg in args if not arg.startswith(("header", "nullstr", "allow_quoted_nulls"))]
    raw += ["header = false", f"nullstr = {string(chr(10))}", "allow_quoted_nulls = false"]
    relation = f"read_csv({', '.join(args)})"

    def header() -> tuple[list[str], tuple]:  # two sniffs of the file: kept while it is unchanged
        try:
            columns = con.sql(f"SELECT * FROM {relation}").columns
            first = (con.execute(f"SELECT * FROM read_csv({', '.join(raw)}) LIMIT 1").fetchall() or [()])[0]
        except duckdb.Error as exc:
            raise _unreadable(spec, exc) from None
        return columns, first

    columns, first = while_unchanged(f"header of {relation}", expand_paths(spec), header)
    fields = [field for field in first if field is not None]
    if not fields:  # no header row (an empty file): DuckDB's names for what it found
        return relation
    names = spark_header(fields, markers_of(spec))
    taken = _named_twice(names)
    if taken is not None:  # Spark refuses to read such a file (COLUMN_ALREADY_EXISTS)
        raise unreadable_source(
            spec,
            f"its header gives two columns the name {taken!r}, as Spark names a header's columns",
            'declare its columns, which then name them by position: schema = "id bigint, ..."',
        )
    renamed = ", ".join(f"{ident(column)} AS {ident(name)}" for column, name in zip(columns, names, strict=False))
    return f"(SELECT {renamed} FROM {relation})"


def _named_twice(names: list[str]) -> str | None:
    """A name found twice among ``names``, in any case (Spark resolves names so), or None."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            return name
        seen.add(name.lower())
    return None


def _spark_column_names(con: duckdb.DuckDBPyConnection, spec: SourceSpec, relation: str) -> str:
    """A headerless CSV's columns named as Spark names them (_c0, _c1, ...), not DuckDB's column0."""
    try:
        names = con.sql(f"SELECT * FROM {relation}").columns
    except duckdb.Error as exc:
        raise _unreadable(spec, exc) from None
    renamed = ", ".join(f"{ident(name)} AS {ident(f'_c{i}')}" for i, name in enumerate(names))
    return f"(SELECT {renamed} FROM {relation})"


def _declared(spec: SourceSpec, relation: str, extra: tuple[str, ...] = ()) -> str:
    """A self-describing source narrowed to the declared schema: those columns, those types
    (and the ``extra`` select items after them)."""
    if spec.schema is None:
        return f"(SELECT {', '.join(('*', *extra))} FROM {relation})" if extra else relation
    columns = []
    for column in spec.schema.columns:
        duck_type = to_duckdb(column.dtype)
        value = ident(column.name) if duck_type is None else f"CAST({ident(column.name)} AS {duck_type})"
        columns.append(f"{value} AS {ident(column.name)}")
    return f"(SELECT {', '.join(columns + list(extra))} FROM {relation})"


# the number of a row in its parquet file: a virtual column DuckDB adds unless a file has its own
_FILE_ROW_NUMBER = "file_row_number"


def located_parquet(con: duckdb.DuckDBPyConnection, spec: SourceSpec, file_column: str, row_column: str) -> str | None:
    """The rows of a parquet source as ``register_source`` reads them, each with its location:
    its file in ``file_column`` and its number in that file in ``row_column``.

    None for other sources, and for files with a column of the name DuckDB gives the row number
    (the file's own column would hide it); ``file_column`` must not be a column of the files.
    """
    if not spec.kind.footers:  # parquet: the files DuckDB numbers rows of
        return None
    files = _file_list(spec)
    columns = {
        row[0].lower() for row in con.execute(f"DESCRIBE SELECT * FROM {read_parquet_sql(con, files)}").fetchall()
    }
    if _FILE_ROW_NUMBER in columns or file_column.lower() in columns:
        return None
    relation = read_parquet_sql(con, files, f"filename = {string(file_column)}", virtual=(_FILE_ROW_NUMBER,))
    # without a declared schema, ``*`` holds the file column already
    file = (ident(file_column),) if spec.schema is not None else ()
    return _declared(spec, relation, (*file, f"{_FILE_ROW_NUMBER} AS {ident(row_column)}"))


def read_parquet_sql(con: duckdb.DuckDBPyConnection, files: str, *options: str, virtual: tuple[str, ...] = ()) -> str:
    """A scan of parquet ``files`` whose answers never come from the footers' min/max.

    Writers such as pyarrow leave NaN out of a column's min/max, as the parquet spec asks, but
    DuckDB reads that range as holding every value unless told ``can_have_nan`` (default false
    since duckdb/duckdb#17883): it then prunes ``x > max``, ``x = 'NaN'`` and ``isnan(x)`` to no
    rows and answers ``max(x)`` from the footer, dropping the NaN Spark counts (duckdb/duckdb#25521).
    Told ``can_have_nan``, DuckDB 2.0.1 takes the footer's max as NaN and still answers ``max(x)``
    from it: NaN over 1.0 and 10.0. So each float column is also read through an expression that
    keeps its value and hides the footer's range (the scan's own bounds on other columns stay);
    the ``virtual`` columns DuckDB adds on request (``file_row_number``) are kept beside them.
    """
    scan = f"read_parquet({', '.join((files, *options, 'can_have_nan = true'))})"
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()
    except duckdb.Error:  # a file that cannot be read: reading the scan itself says why, located
        return scan
    floats = [row[0] for row in described if row[1] in _FLOAT_TYPES]
    if not floats:
        return scan
    kept = ", ".join(f"CASE WHEN {ident(n)} IS NULL THEN NULL ELSE {ident(n)} END AS {ident(n)}" for n in floats)
    return f"(SELECT {', '.join((f'* REPLACE ({kept})', *virtual))} FROM {scan})"


_FLOAT_TYPES = frozenset({"FLOAT", "DOUBLE"})


def _parquet(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> tuple[str, tuple[str, ...]]:
    return _declared(spec, read_parquet_sql(con, _file_list(spec))), ()


def _json_files(spec: SourceSpec) -> str:
    # format 'auto' reads both JSON lines and a top-level JSON array
    return f"read_json({_file_list(spec)}, format = 'auto')"


_LINE_BREAK = string("\r\n|\r|\n")


def _text_lines(spec: SourceSpec) -> str:
    """One ``value`` row per line, as Spark's text reader reads a file: a final line break ends the
    last line (it starts no empty one), an empty file has no rows, and CR LF, CR and LF all break."""
    last_break = string("(\r\n|\r|\n)$")
    lines = f"regexp_split_to_array(regexp_replace(content, {last_break}, ''), {_LINE_BREAK})"
    return (
        f"(SELECT unnest(CASE WHEN content = '' THEN []::VARCHAR[] ELSE {lines} END) AS value "
        f"FROM read_text({_file_list(spec)}))"
    )


def _json_as_spark_reads_it(con: duckdb.DuckDBPyConnection, spec: SourceSpec, relation: str) -> str:
    """Fields in name order, as Spark infers them. A field whose values differ in type is text (a
    string as itself, anything else as its JSON); a field that is always null is text too. DuckDB
    would keep the file's order, JSON text ('"a"') and a NULL type.
    """
    try:
        described = con.sql(f"SELECT * FROM {relation}")
    except duckdb.Error as exc:
        raise _unreadable(spec, exc) from None
    columns = []
    for name, duck_type in sorted(zip(described.columns, described.types, strict=True), key=lambda column: column[0]):
        value = ident(name)
        if str(duck_type) == "JSON":
            value = f"json_extract_string({value}, '$')"
        elif duck_type.id == "null":
            value = "CAST(NULL AS VARCHAR)"
        columns.append(f"{value} AS {ident(name)}")
    return f"(SELECT {', '.join(columns)} FROM {relation})"


# --- catalog tables -------------------------------------------------------------------------


def _table_name(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> str:
    """The fully qualified, quoted name of a catalog table or view.

    Qualifying it fully keeps the source's temporary view (which may bear the same name) from
    shadowing the table it reads.
    """
    parts = split_qualified(spec.table_name)
    rows = con.execute(
        "SELECT table_catalog, table_schema, table_name FROM information_schema.tables "
        "WHERE table_catalog <> 'temp' ORDER BY table_catalog = current_database() DESC, "
        "table_schema = current_schema() DESC, table_catalog, table_schema"
    ).fetchall()
    matches = [row for row in rows if _names_table(parts, row)]
    if not matches:
        in_memory = con.execute("SELECT current_database()").fetchone() == ("memory",)
        raise EngineError(
            "SOURCE_NOT_FOUND",
            f"source {spec.name!r}: no table {spec.table!r} in the DuckDB database",
            # a suite of a database file's tables run without the file reads an empty database
            hint="give the DuckDB file that holds it: gryph run SUITE --database FILE.duckdb"
            if in_memory and not rows
            else did_you_mean(parts[-1], (r[2] for r in rows)),
        )
    return ".".join(ident(part) for part in matches[0])


def _names_table(parts: list[str], row: tuple[str, str, str]) -> bool:
    catalog, schema, table = (p.lower() for p in row)
    wanted = [p.lower() for p in parts]
    if wanted[-1] != table:
        return False
    if len(wanted) == 3:
        return wanted[:2] == [catalog, schema]
    if len(wanted) == 2:  # schema.table, or database.table in its main schema, as DuckDB reads it;
        # Hive's database "default" is DuckDB's schema "main"
        return wanted[0] in (schema, "default" if schema == "main" else schema) or (
            wanted[0] == catalog and schema == "main"
        )
    return True


# --- what DuckDB cannot read: into Arrow ---------------------------------------------------


def _frame(spec: SourceSpec) -> pa.Table:
    import pyarrow as pa

    try:
        return frame_to_arrow(spec.frame)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise _unreadable(spec, exc) from None


def _read_files(spec: SourceSpec, read_one) -> pa.Table:
    import pyarrow as pa

    tables = []
    for path in expand_paths(spec):
        try:
            tables.append(read_one(path))
        except Exception as exc:  # each reader raises its own types for damaged files
            raise EngineError(
                "SOURCE_UNREADABLE", f"source {spec.name!r}: cannot read {path!r} as {spec.format}: {exc}"
            ) from None
    try:
        return pa.concat_tables(tables, promote_options="default")
    except pa.ArrowException as exc:
        raise _unreadable(spec, exc) from None


def _orc(path: str) -> pa.Table:
    import pyarrow.orc  # imported when needed: ORC support is optional in some pyarrow builds

    return pyarrow.orc.read_table(path)


def _avro(path: str) -> pa.Table:
    import polars  # DuckDB's avro extension needs a download; polars reads Avro natively

    return polars.read_avro(path).to_arrow()


# how DuckDB reads each kind it registers as a view (databases and lake tables have modules of their own)
_READERS: dict[SourceKind, Reader] = {
    SourceKind.CSV: _delimited_text,
    SourceKind.TSV: _delimited_text,
    SourceKind.JSON: _json,
    SourceKind.PARQUET: _parquet,
    SourceKind.TEXT: _native(lambda spec: _text_lines(spec)),
    SourceKind.TABLE: _catalog_table,
    SourceKind.KAFKA: _kafka,
    SourceKind.FRAME: _arrow(_frame),
    SourceKind.ORC: _arrow(lambda spec: _read_files(spec, _orc)),
    SourceKind.AVRO: _arrow(lambda spec: _read_files(spec, _avro)),
}
# the kinds whose files DuckDB opens itself (ORC and Avro come through Arrow): the sandbox allows them
OPENED_BY_DUCKDB = frozenset({SourceKind.CSV, SourceKind.TSV, SourceKind.JSON, SourceKind.PARQUET, SourceKind.TEXT})
