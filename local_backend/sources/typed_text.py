"""A csv's null marker and declared types on DuckDB: its columns read as text, then cast as the plan casts text
(compiler/sources/typed_text.py), so a value that does not parse is NULL rather than a failed read."""

from __future__ import annotations

from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import Cast, Field
from gryph.compiler.plan.data_types import STRING, Kind, Schema
from gryph.compiler.sources.null_markers import null_markers as markers_of
from gryph.compiler.sources.source_specs import SourceSpec

from ..sql.quoting import ident, string
from ..sql.scalars import scalar_sql
from .duck_types import to_duckdb

ROW_FILE = "__gryph_file"  # the column of each row's file, where rows are numbered in their files
_ORDER = "__gryph_order"


def text_columns(schema: Schema) -> str:
    """A read_csv ``columns`` argument: the declared names, every one text."""
    return "{" + ", ".join(f"{string(c.name)}: 'VARCHAR'" for c in schema.columns) + "}"


def null_markers(spec: SourceSpec) -> list[str]:
    """The read_csv argument of ``nullValue``: those texts are NULL, and an empty field stays NULL as
    on Spark (given a null string of its own, DuckDB would read an empty field as '')."""
    markers = markers_of(spec)
    return [f"nullstr = [{', '.join(string(m) for m in (*markers, ''))}]"] if markers else []


def row_file_argument(spec: SourceSpec) -> list[str]:
    """The read_csv argument naming each row's file, where rows are numbered in their files."""
    return [f"filename = {string(ROW_FILE)}"] if spec.row_number is not None else []


def typed_from_text(relation: str, spec: SourceSpec) -> str:
    """``relation`` (a read_csv of ``text_columns`` and ``row_file_argument``) in the declared
    types, and each row's number in its file where ``spec`` asks for it."""
    assert spec.schema is not None, "a source read into declared types"
    for column in spec.schema.columns:
        if to_duckdb(column.dtype) is None:
            raise InvalidInput(
                "SOURCE_BAD_SCHEMA", f"column {column.name!r} has a type ({column.dtype}) a source cannot declare"
            )
    items = [
        f"{ident(c.name) if c.dtype.kind is Kind.STRING else scalar_sql(Cast(Field(c.name, STRING), c.dtype))}"
        f" AS {ident(c.name)}"
        for c in spec.schema.columns
    ]
    if spec.row_number is None:
        return f"(SELECT {', '.join(items)} FROM {relation})"
    # read_csv keeps a file list's rows in order, files one after the other (preserve_insertion_order):
    # a row's number in its file is its place in the read less that of its file's first row
    items.append(f"{_ORDER} - min({_ORDER}) OVER (PARTITION BY {ident(ROW_FILE)}) + 1 AS {ident(spec.row_number)}")
    return f"(SELECT {', '.join(items)} FROM (SELECT *, row_number() OVER () AS {_ORDER} FROM {relation}))"
