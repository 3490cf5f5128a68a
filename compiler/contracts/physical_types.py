"""A property's ``physicalType`` as the type its column must have on the engine, by server type.

Each server type knows the names its own database (or file format) writes; every name is read as
one of gryph's logical types, the ones both engines agree on, so the schema check that compares
them gives one verdict on DuckDB and Spark. Parameters: a decimal's precision and scale are
compared; a text's length, a float's digits and a timestamp's precision and time zone are not (the
engines keep none of them). A length in brackets (``varchar[50]``, as ODCS's examples write it) reads
as one in parentheses. A name the server type's table does not hold (a domain, ``uuid``) is not
compared: the contract goes on, with a warning. Docs: docs/contracts.md ("physicalType").
"""

from __future__ import annotations

import difflib
import re

from .quality_rules import Unsupported


class UnknownType(Unsupported):
    """A physicalType naming no type of its server's table: its column's type is not compared."""


# names of every SQL database and of Spark's and DuckDB's SQL -> the gryph type a schema statement names
_SQL = {
    "boolean": "boolean", "bool": "boolean",
    "tinyint": "bigint", "smallint": "bigint", "int": "bigint", "integer": "bigint", "bigint": "bigint",
    "real": "double", "float": "double", "double": "double", "double precision": "double",
    "decimal": "decimal", "numeric": "decimal",
    "varchar": "string", "char": "string", "character": "string", "character varying": "string", "text": "string",
    "date": "date",
    "timestamp": "timestamp",
}  # fmt: skip
_SPARK = {"string": "string", "long": "bigint", "short": "bigint", "byte": "bigint", "binary": "binary",
          "timestamp_ntz": "timestamp", "timestamp_ltz": "timestamp"}  # fmt: skip
_DUCKDB = {"hugeint": "bigint", "utinyint": "bigint", "usmallint": "bigint", "uinteger": "bigint",
           "ubigint": "bigint", "int1": "bigint", "int2": "bigint", "int4": "bigint", "int8": "bigint",
           "float4": "double", "float8": "double", "string": "string", "blob": "binary",
           "timestamptz": "timestamp", "timestamp with time zone": "timestamp", "timestamp_s": "timestamp",
           "timestamp_ms": "timestamp", "timestamp_ns": "timestamp", "datetime": "timestamp"}  # fmt: skip
# a file's own types: parquet's and Arrow's names (int32, utf8, ...)
_FILES = {**_SPARK, **_DUCKDB, "int16": "bigint", "int32": "bigint", "int64": "bigint", "uint8": "bigint",
          "uint16": "bigint", "uint32": "bigint", "uint64": "bigint", "float32": "double", "float64": "double",
          "utf8": "string", "large_string": "string"}  # fmt: skip
_POSTGRES = {"int2": "bigint", "int4": "bigint", "int8": "bigint", "smallserial": "bigint", "serial": "bigint",
             "bigserial": "bigint", "float4": "double", "float8": "double", "bpchar": "string",
             "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamp",
             "timestamptz": "timestamp", "bytea": "binary"}  # fmt: skip
_MYSQL = {"mediumint": "bigint", "tinytext": "string", "mediumtext": "string", "longtext": "string",
          "datetime": "timestamp", "binary": "binary", "varbinary": "binary", "blob": "binary"}  # fmt: skip

# a server's type -> the names its physical types may have
_FILE_SERVERS = ("local", "s3", "gcs", "azure", "file")
TABLES: dict[str, dict[str, str]] = {
    **{server: {**_SQL, **_FILES} for server in _FILE_SERVERS},
    "duckdb": {**_SQL, **_DUCKDB},
    "databricks": {**_SQL, **_SPARK},
    "postgres": {**_SQL, **_POSTGRES},
    "postgresql": {**_SQL, **_POSTGRES},
    "mysql": {**_SQL, **_MYSQL},
}

# name, then (digits[, digits]), then words after them (timestamp(3) with time zone)
_FORM = re.compile(r"([a-z][a-z0-9_]*(?: [a-z][a-z0-9_]*)*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?((?: [a-z]+)*)")
# a length in brackets, as Bitol's examples write it (varchar[50]); PostgreSQL's array of text is
# written varchar(50)[] or varchar[], and stays no type of the table
_BRACKETS = re.compile(r"\[\s*(\d+)\s*(,\s*\d+\s*)?\]$")


def physical_type(text: object, server_type: str | None) -> str | None:
    """The gryph type the column of physical type ``text`` must have on a server of ``server_type``
    (None: no server, every table's names); None when only the column is compared (a decimal
    without its precision). Raises UnknownType for a name the table does not hold, Unsupported
    for a decimal no engine holds."""
    written = _BRACKETS.sub(lambda m: f"({m.group(1)}{m.group(2) or ''})", " ".join(str(text).lower().split()))
    form = _FORM.fullmatch(written)
    table = TABLES.get(str(server_type).lower()) if server_type else _every_name()
    if table is None:
        return None  # a server gryph does not read is refused where its source is made
    name = f"{form.group(1)}{form.group(4)}" if form else ""
    if name not in table:
        close = difflib.get_close_matches(name or written, table, n=1)
        hint = f" (closest: {close[0]!r})" if close else ""
        raise UnknownType(
            f"physicalType {text!r} is not a type gryph knows on servers of type {server_type or 'any'}{hint}, so "
            "its column's type is not compared: see the physicalType table of docs/contracts.md"
        )
    kind = table[name]
    if kind != "decimal":
        return kind
    if form is None or form.group(2) is None:
        return None  # each engine gives a bare decimal a precision of its own: the column only
    precision, scale = int(form.group(2)), int(form.group(3) or 0)
    if not 1 <= precision <= 38 or scale > precision:
        raise Unsupported(f"physicalType {text!r}: a decimal holds 1 to 38 digits, its scale at most its precision")
    return f"decimal({precision},{scale})"


def _every_name() -> dict[str, str]:
    return {name: kind for table in TABLES.values() for name, kind in table.items()}
