"""A csv's declared types on Spark: its columns read as text, then cast as the plan casts text
(compiler/sources/typed_text.py), so both engines make the same values NULL."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import types as T
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.window import Window

from gryph.compiler.plan import Cast, Field
from gryph.compiler.plan.data_types import INTEGER, STRING, Column, Kind, Schema
from gryph.compiler.sources.null_markers import null_markers
from gryph.compiler.sources.source_specs import SourceSpec

from ..compile.scalars import column, compile_scalar

_FILE = "__gryph_file"
_ORDER = "__gryph_order"


def text_struct(spec: SourceSpec) -> T.StructType:
    """The declared columns, every one text (Spark applies a csv schema by position)."""
    assert spec.schema is not None, "a source read into declared types"
    return T.StructType([T.StructField(c.name, T.StringType(), True) for c in spec.schema.columns])


def typed_from_text(df: DataFrame, spec: SourceSpec) -> tuple[DataFrame, Schema]:
    """``df`` (read with ``text_struct``) in the declared types, and each row's number in its file
    where ``spec`` asks for it; with its logical schema."""
    assert spec.schema is not None
    df = _without_markers(df, spec)
    items = [
        (column(c.name) if c.dtype.kind is Kind.STRING else compile_scalar(Cast(Field(c.name, STRING), c.dtype))).alias(
            c.name
        )
        for c in spec.schema.columns
    ]
    if spec.row_number is None:
        return df.select(*items), spec.schema
    # a file's splits are read in order, each numbered after the one before: ordered by that number
    # within their file, rows come in the file's order
    placed = df.select("*", F.input_file_name().alias(_FILE), F.monotonically_increasing_id().alias(_ORDER))
    in_file = Window.partitionBy(column(_FILE)).orderBy(column(_ORDER))
    numbered = placed.select(*items, F.row_number().over(in_file).cast(T.LongType()).alias(spec.row_number))
    return numbered, Schema((*spec.schema.columns, Column(spec.row_number, INTEGER)))


def _without_markers(df: DataFrame, spec: SourceSpec) -> DataFrame:
    """``df``'s text with each of several null markers NULL (one marker the reader was given)."""
    markers = null_markers(spec)
    if len(markers) < 2:
        return df
    assert spec.schema is not None
    return df.select(
        *(
            F.when(column(c.name).isin(*markers), F.lit(None)).otherwise(column(c.name)).alias(c.name)
            for c in spec.schema.columns
        )
    )
