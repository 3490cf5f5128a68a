"""PostgreSQL, MySQL and SQLite sources on DuckDB: read through ADBC (connectorx for MySQL,
mysql_reads.py) as a stream of Arrow batches.

Only the columns the run uses cross the wire (the others are typed NULLs in the view, which
nothing reads), with the plan's simple filters run by the database (database_filters.py). A
source the run scans once is a view over the stream itself, so the client holds one batch at a
time; a source scanned more than once (a join with itself, several statements) is first streamed
into a DuckDB temporary table, which DuckDB spills to disk past its memory limit.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.plan import reads
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.pruning import columns_read, prune_columns
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.databases import (
    Database,
    from_clause,
    mysql_columns_sql,
    mysql_type,
    query_text,
    quote_name,
    refused_by_database,
    resolve,
    sqlite_columns_sql,
    sqlite_type,
    statement_timed_out,
)
from gryph.compiler.sources.source_specs import SourceSpec

from ..sql.quoting import ident
from .database_filters import PushedFilter, pushed_filter
from .duck_types import schema_of_relation, to_duckdb
from .mysql_reads import MysqlConnection, load_connectorx
from .source_views import stamp_item

# a numeric without precision: Spark's JDBC reader makes it DECIMAL(38, 18) too
_NUMERIC_DEFAULT = (38, 18)


class DatabaseRead:
    """An open ADBC connection and the DuckDB names it fills; ``close`` releases both."""

    def __init__(self, spec: SourceSpec) -> None:
        self.spec = spec
        self.database = resolve(spec)
        self._connection = _connect(spec, self.database)
        self._names: list[tuple[str, str]] = []  # (kind, name) to drop in DuckDB
        self._cursors: list = []

    def arrow(self, sql: str, parameters: tuple = ()) -> pa.RecordBatchReader:
        """The rows of ``sql``, streamed from the database batch by batch."""
        try:
            cursor = self._connection.cursor()
            self._cursors.append(cursor)  # closing a cursor ends its stream: kept until the drop
            cursor.execute(sql, parameters=parameters or None)
            return cursor.fetch_record_batch()
        except Exception as exc:  # the drivers' DB-API errors
            raise source_error(self.spec, exc) from None

    def register(
        self, con: duckdb.DuckDBPyConnection, name: str, reader: pa.RecordBatchReader | pa.Table, staged: bool
    ) -> None:
        con.register(name, reader)
        self.made("arrow", name)
        if staged:
            table = f"{name}_staged"
            try:
                con.execute(f"CREATE TEMP TABLE {ident(table)} AS SELECT * FROM {ident(name)}")
            except duckdb.Error as exc:
                raise source_error(self.spec, exc) from None
            self.made("table", table)

    def made(self, kind: str, name: str) -> None:
        """Remember a DuckDB object (``arrow``, ``table``, ``view``) to drop with the source."""
        self._names.append((kind, name))

    def drop(self, con: duckdb.DuckDBPyConnection) -> None:
        """Drop the view, table and streams made for the source and close the connection."""
        for kind, name in reversed(self._names):
            if kind == "arrow":
                con.unregister(name)
            else:
                con.execute(f"DROP {kind} IF EXISTS {ident(name)}")
        for cursor in self._cursors:
            cursor.close()
        self._connection.close()


def _connect(spec: SourceSpec, database: Database):
    package = spec.kind.package("duckdb")
    assert package is not None, f"{spec.format} declares no Python driver"
    driver = _DRIVERS[spec.kind.kind]
    try:
        module = driver.load()
    except ImportError:
        raise EngineError(
            "DRIVER_MISSING",
            f"source {spec.name!r} ({spec.describe()}) needs the driver {package.provides}, which is not installed",
            location=spec.location,
            hint=f'pip install "gryph[{package.name}]"',
        ) from None
    try:
        return driver.connect(module, database)
    except Exception as exc:  # the drivers' DB-API errors
        raise source_error(spec, exc) from None


def source_error(spec: SourceSpec, exc: Exception) -> EngineError | InvalidInput:
    """A driver's error as gryph's, naming the source (gryph's errors never show a password)."""
    message = " ".join(str(exc).split())
    refused = refused_by_database(spec, message, str(getattr(exc, "sqlstate", "") or ""))
    return (
        statement_timed_out([spec], message)
        or refused
        or EngineError(
            "SOURCE_UNREADABLE",
            f"source {spec.name!r} ({spec.describe()}) cannot be read: {message}",
            location=spec.location,
            text=spec.as_written(),
        )
    )


_STREAM = re.compile(r"registered as '__gryph_db_(.+?)(?:_staged)?'")


def failed_read(exc: duckdb.Error, specs: Iterable[SourceSpec]) -> EngineError | InvalidInput | None:
    """The error of the database source whose stream failed a query (DuckDB reads the stream as
    the query reaches it: a statement timeout surfaces here); None when ``exc`` names none."""
    named = _STREAM.search(str(exc))
    spec = next((s for s in specs if named and s.name == named.group(1) and s.kind.family == "database"), None)
    return None if spec is None else source_error(spec, exc)


def _select(columns: Iterable[str] | None, spec: SourceSpec) -> str:
    names = ", ".join(quote_name(spec.format, c) for c in columns) if columns is not None else "*"
    return f"SELECT {names or '1 AS one'} FROM {from_clause(spec)}"


def _view_columns(described: pa.Schema, fetched: set[str], declared: dict[str, str | None]) -> str:
    """The view's columns, in the database's order: fetched ones as DuckDB types gryph knows,
    the others typed NULLs (the run never reads them). ``declared``: SQLite's and MySQL's declared types."""
    out = []
    for field in described:
        duck_type = declared.get(field.name) or _duck_type(field)
        value = ident(field.name) if field.name in fetched else "NULL"
        if duck_type is not None:
            value = f"CAST({value} AS {duck_type})"
        elif field.name not in fetched:
            value = f"CAST(NULL AS {_plain_type(field.type)})"
        out.append(f"{value} AS {ident(field.name)}")
    return ", ".join(out)


def _duck_type(field: pa.Field) -> str | None:
    """A cast for what ADBC hands over in a form of its own: PostgreSQL numerics come as text."""
    meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
    if meta.get("POSTGRESQL:type") == "numeric":
        typmod = int(meta.get("POSTGRESQL:typmod", "-1") or -1)
        precision, scale = ((typmod - 4) >> 16, (typmod - 4) & 0xFFFF) if typmod >= 4 else _NUMERIC_DEFAULT
        return f"DECIMAL({min(precision, 38)}, {min(scale, 38)})"
    if pa.types.is_floating(field.type):
        return "DOUBLE"
    return None


def _plain_type(arrow_type: pa.DataType) -> str:
    """The DuckDB type of an Arrow column (asked of DuckDB itself, from an empty table)."""
    return str(duckdb.from_arrow(pa.table({"c": pa.array([], type=arrow_type)})).types[0])


_PLACEHOLDERS = {"postgres": lambda n: f"${n}", "sqlite": lambda n: "?", "mysql": None}


def database_view(con: duckdb.DuckDBPyConnection, spec: SourceSpec, relations: list) -> DatabaseRead:
    """The source as a view named after it, reading what ``relations`` (a run's) need of it."""
    try:
        columns = columns_read([prune_columns(rel) for rel in relations]).get(spec.name)
    except TypeError:  # a relation pruning does not know: read every column
        columns = None
    pushed = pushed_filter(
        relations,
        spec.name,
        _PLACEHOLDERS[spec.format],
        quote=lambda name: quote_name(spec.format, name),
        strings=_DRIVERS[spec.kind.kind].pushes_strings,
    )
    scans = sum(reads(rel).count(spec.name) for rel in relations)
    return register_database(con, spec, spec.name, columns, pushed, staged=scans > 1)


def register_database(
    con: duckdb.DuckDBPyConnection,
    spec: SourceSpec,
    view: str,
    columns: frozenset[str] | None,
    pushed: PushedFilter | None,
    staged: bool,
) -> DatabaseRead:
    """The view ``view`` over the database's rows: ``columns`` of them (None: all), ``pushed`` run there."""
    read = DatabaseRead(spec)
    try:
        described, declared = _described(read)
        wanted = [f.name for f in described if columns is None or f.name in columns]
        sql = _select(wanted, spec)
        parameters: tuple = ()
        if spec.option("query") is not None and len(wanted) == len(described) and pushed is None:
            sql = query_text(spec)  # all of a query, as written (a native measure's SQL)
        elif pushed is not None:
            sql += f" WHERE {pushed.sql}"
            parameters = pushed.parameters
        stream = f"__gryph_db_{view}"
        read.register(con, stream, read.arrow(sql, parameters), staged)
        source = f"{stream}_staged" if staged else stream
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {ident(view)} AS SELECT "
            f"{_view_columns(described, set(wanted), declared)}{stamp_item(spec)} FROM {ident(source)}"
        )
        read.made("view", view)
    except BaseException:
        read.drop(con)
        raise
    return read


def _described(read: DatabaseRead) -> tuple[pa.Schema, dict[str, str | None]]:
    """The source's columns and types, from a query that returns no rows, and for a SQLite or
    MySQL table the DuckDB types of its declared ones the driver does not send (SQLite has none;
    connectorx loses DECIMAL's precision and MySQL's BOOLEAN)."""
    described = read.arrow(f"SELECT * FROM {from_clause(read.spec)} WHERE 1 = 0").schema
    declared_types = _DRIVERS[read.spec.kind.kind].declared_types
    if read.spec.option("table") is None or declared_types is None:
        return described, {}
    return described, declared_types(read)


def _mysql_declared(read: DatabaseRead) -> dict[str, str | None]:
    declared = read.arrow(mysql_columns_sql(read.spec)).read_all().to_pylist()
    return {row["name"]: to_duckdb(mysql_type(row["type"])) for row in declared}


def _sqlite_declared(read: DatabaseRead) -> dict[str, str | None]:
    sql, parameters = sqlite_columns_sql(read.spec)
    declared = read.arrow(sql, parameters).read_all().to_pylist()
    return {row["name"]: to_duckdb(sqlite_type(row["type"] or "")) for row in declared}


@dataclass(frozen=True)
class _Driver:
    """How DuckDB reaches one kind of database: its Python driver loaded, a connection opened
    with it, the declared types of a table's columns it does not send (None: it sends them), and
    whether string comparisons are pushed into its queries (MySQL's compare by its collation)."""

    load: Callable[[], Any]
    connect: Callable[[Any, Database], Any]
    declared_types: Callable[[DatabaseRead], dict[str, str | None]] | None
    pushes_strings: bool = True


def _adbc(module: str) -> Callable[[], Any]:
    return lambda: importlib.import_module(module)


_DRIVERS = {
    SourceKind.POSTGRES: _Driver(
        _adbc("adbc_driver_postgresql.dbapi"), lambda driver, db: driver.connect(db.adbc_uri()), None
    ),
    # SQLite sends no declared types; connectorx loses DECIMAL's precision and MySQL's BOOLEAN
    SourceKind.SQLITE: _Driver(
        _adbc("adbc_driver_sqlite.dbapi"), lambda driver, db: driver.connect(db.adbc_uri()), _sqlite_declared
    ),
    SourceKind.MYSQL: _Driver(
        load_connectorx, lambda driver, db: MysqlConnection(db), _mysql_declared, pushes_strings=False
    ),
}


def database_schema(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> Schema:
    """The schema the run will see, read from the database without fetching a row."""
    read = DatabaseRead(spec)
    try:
        described, declared = _described(read)
        name = "__gryph_db_schema"
        read.register(con, name, described.empty_table(), staged=False)
        columns = _view_columns(described, set(described.names), declared)
        relation = con.sql(f"SELECT {columns}{stamp_item(spec)} FROM {ident(name)}")
        return schema_of_relation(relation)
    finally:
        read.drop(con)
