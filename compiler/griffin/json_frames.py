"""Griffin's ``from_json`` data-frame operation: a column of JSON documents read as a table.

Griffin hands the strings to Spark's ``read.json``, which infers one schema from every document.
gryph infers it by Spark's rules (fields by name; integers as bigint, with decimals as double;
a field of mixed kinds as text; a field that is always null as text), then reads each field
with the plan's JSON functions, so both engines give the same table. Nested objects and arrays
stay JSON values (the DSL selects into them: ``t.payload.name``, ``t.items[0]``), where Spark
would make structs and arrays; documents that are not JSON objects give NULL fields.
"""

from __future__ import annotations

import json

from ..errors import InvalidInput, did_you_mean
from ..plan import Call, Cast, Field, Fn, Literal, Named, Plan, Project, Query, Read, Relation, View
from ..plan.data_types import BOOLEAN, DOUBLE, INTEGER, JSON, STRING, Column, DataType, Schema
from ..results import ResultRow
from ..suites.suite import ViewSpec

_LONG = 2**63


def infer_json_schema(documents: list[object]) -> Schema:
    """The schema Spark's ``read.json`` would infer for ``documents`` (JSON text per row)."""
    fields: dict[str, DataType | None] = {}
    for document in documents:
        try:
            value = json.loads(document) if isinstance(document, str) else None
        except (ValueError, RecursionError):
            continue
        if not isinstance(value, dict):
            continue
        for name, member in value.items():
            fields[name] = _merge(fields.get(name), _kind(member)) if name in fields else _kind(member)
    return Schema(tuple(Column(name, STRING if dtype is None else dtype) for name, dtype in sorted(fields.items())))


def _kind(value: object) -> DataType | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER if -_LONG <= value < _LONG else DOUBLE
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, str):
        return STRING
    return JSON  # an object or an array


def _merge(left: DataType | None, right: DataType | None) -> DataType | None:
    if left is None or left == right:
        return right if left is None else left
    if right is None:
        return left
    if {left, right} == {INTEGER, DOUBLE}:
        return DOUBLE
    return STRING


def json_frame(source: str, source_schema: Schema, column: str, schema: Schema) -> Relation:
    """The table of the JSON documents in ``column`` of ``source``, with fields typed as ``schema``."""
    document = Call(Fn.JSON_PARSE, (Field(column, source_schema.column(column).dtype),), JSON)
    columns = []
    for field in schema.columns:
        value = Call(Fn.JSON_FIELD, (document, Literal(field.name, STRING)), JSON)
        columns.append(Named(value if field.dtype == JSON else Cast(value, field.dtype), field.name))
    return Project(Read(source, source_schema), tuple(columns))


def json_column(view: ViewSpec, source_schema: Schema) -> str:
    """The column whose JSON documents a ``from_json`` view reads: the named one, else the first."""
    assert view.json_of is not None  # a from_json view
    source, column = view.json_of
    if column is None:
        return source_schema.names[0]
    if column not in source_schema:
        raise InvalidInput(
            "UNKNOWN_COLUMN",
            f"from_json reads unknown column {column!r} of {source!r}",
            location=view.location,
            text=column,
            hint=did_you_mean(column, source_schema.names),
        )
    return column


def json_documents_plan(view: ViewSpec, views: tuple[View, ...], schemas: dict[str, Schema]) -> Plan:
    """The plan whose one query, ``json_documents``, reads every document of a ``from_json`` view
    (a scan, as in Spark): the engine runs it, ``json_view_schema`` reads the schema from its rows."""
    assert view.json_of is not None  # a from_json view
    source = view.json_of[0]
    if source not in schemas:
        raise InvalidInput(
            "UNKNOWN_SOURCE",
            f"from_json reads unknown data frame {source!r}",
            location=view.location,
            text=source,
            hint=did_you_mean(source, schemas),
        )
    column = json_column(view, schemas[source])
    documents = Query(
        "json_documents",
        Project(Read(source, schemas[source]), (Named(Field(column, schemas[source].column(column).dtype), "doc"),)),
    )
    return Plan(views, (documents,))


def json_view_schema(view: ViewSpec, schemas: dict[str, Schema], rows: dict[str, list[ResultRow]]) -> Schema:
    """The schema of a ``from_json`` view, inferred from the rows of its ``json_documents_plan``."""
    assert view.json_of is not None  # a from_json view
    source = view.json_of[0]
    column = json_column(view, schemas[source])
    schema = infer_json_schema([row["doc"] for row in rows["json_documents"]])
    if not schema.columns:
        raise InvalidInput(
            "EMPTY_JSON",
            f"from_json found no JSON object in column {column!r} of {source!r}",
            location=view.location,
            text=column,
        )
    return schema
