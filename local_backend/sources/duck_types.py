"""Mapping between DuckDB's types and gryph's logical types, both ways."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import duckdb

from gryph.compiler.plan.data_types import (
    BINARY,
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    OTHER,
    STRING,
    TIMESTAMP,
    Column,
    DataType,
    Kind,
    Schema,
    array,
    decimal,
    map_of,
    struct,
)

if TYPE_CHECKING:  # the type's home moved between DuckDB releases (typing, then sqltypes)
    from duckdb.sqltypes import DuckDBPyType
from ..sql.quoting import ident

_INTEGERS = {
    "tinyint",
    "smallint",
    "integer",
    "bigint",
    "hugeint",
    "utinyint",
    "usmallint",
    "uinteger",
    "ubigint",
    "uhugeint",
}
_TIMESTAMPS = {"timestamp", "timestamp_s", "timestamp_ms", "timestamp_ns", "timestamp with time zone"}
_SIMPLE = {
    "float": DOUBLE,
    "double": DOUBLE,
    "varchar": STRING,
    "date": DATE,
    "boolean": BOOLEAN,
    "blob": BINARY,
    "null": NULL,
    '"null"': NULL,
    # an enum is text with a closed set of values (pandas categoricals arrive as enums)
    "enum": STRING,
}


def to_logical(duck_type: DuckDBPyType) -> DataType:
    """The gryph type of a DuckDB column type; what gryph cannot reason about is OTHER."""
    type_id = duck_type.id
    if type_id in _INTEGERS:
        return INTEGER
    if type_id in _TIMESTAMPS:
        return TIMESTAMP
    if type_id in _SIMPLE:
        return _SIMPLE[type_id]
    children = dict(duck_type.children) if type_id in ("decimal", "list", "array", "map") else {}
    if type_id == "decimal":
        return decimal(_number(children["precision"]), _number(children["scale"]))
    if type_id in ("list", "array"):
        return array(to_logical(_nested(children["child"])))
    if type_id == "map":
        return map_of(to_logical(_nested(children["key"])), to_logical(_nested(children["value"])))
    if type_id == "struct":
        return struct(tuple((name, to_logical(_nested(child))) for name, child in duck_type.children))
    return OTHER


# A type's children are named: nested types, and numbers (a decimal's digits, an array's size).
_Child = Union["DuckDBPyType", int, list[str]]


def _nested(child: _Child) -> DuckDBPyType:
    assert not isinstance(child, (int, list)), f"not a type: {child!r}"
    return child


def _number(child: _Child) -> int:
    assert isinstance(child, int), f"not a number: {child!r}"
    return child


def schema_of_relation(relation: duckdb.DuckDBPyRelation) -> Schema:
    """The gryph schema of a DuckDB relation (no rows are read)."""
    return Schema(tuple(Column(name, to_logical(t)) for name, t in zip(relation.columns, relation.types, strict=True)))


_NAMES = {
    Kind.BOOLEAN: "BOOLEAN",
    Kind.INTEGER: "BIGINT",
    Kind.DOUBLE: "DOUBLE",
    Kind.STRING: "VARCHAR",
    Kind.DATE: "DATE",
    Kind.TIMESTAMP: "TIMESTAMP",
    Kind.BINARY: "BLOB",
    Kind.JSON: "VARCHAR",  # JSON values are held as text
}


def to_duckdb(dtype: DataType) -> str | None:
    """DuckDB type text for a gryph type; None for NULL and OTHER, which name no DuckDB type."""
    if dtype.kind in _NAMES:
        return _NAMES[dtype.kind]
    if dtype.kind is Kind.DECIMAL:
        precision, scale = dtype.args or (38, 18)
        return f"DECIMAL({int(precision)}, {int(scale)})"
    if dtype.kind is Kind.ARRAY:
        element = to_duckdb(dtype.args[0])
        return None if element is None else element + "[]"
    if dtype.kind is Kind.MAP:
        key, value = (to_duckdb(t) for t in dtype.args)
        return None if key is None or value is None else f"MAP({key}, {value})"
    if dtype.kind is Kind.STRUCT:
        fields = [(name, to_duckdb(t)) for name, t in dtype.args]
        if any(t is None for _, t in fields):
            return None
        return "STRUCT(" + ", ".join(f"{ident(name)} {t}" for name, t in fields) + ")"
    return None
