"""Spark SQL types <-> gryph logical types."""

from __future__ import annotations

from pyspark.sql import types as T

from gryph.compiler.plan import data_types as G
from gryph.compiler.plan.data_types import DataType, Kind

_INTEGERS = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_SIMPLE = {
    Kind.BOOLEAN: T.BooleanType(),
    Kind.INTEGER: T.LongType(),
    Kind.DOUBLE: T.DoubleType(),
    Kind.STRING: T.StringType(),
    Kind.DATE: T.DateType(),
    Kind.TIMESTAMP: T.TimestampType(),
    Kind.BINARY: T.BinaryType(),
    Kind.NULL: T.NullType(),
    Kind.JSON: T.StringType(),  # JSON values are held as text
}


def to_logical(spark_type: T.DataType) -> DataType:
    """The logical type of a Spark type (narrow integers and floats widen)."""
    if isinstance(spark_type, T.BooleanType):
        return G.BOOLEAN
    if isinstance(spark_type, _INTEGERS):
        return G.INTEGER
    if isinstance(spark_type, (T.FloatType, T.DoubleType)):
        return G.DOUBLE
    if isinstance(spark_type, T.DecimalType):
        return G.decimal(spark_type.precision, spark_type.scale)
    if isinstance(spark_type, (T.StringType, T.VarcharType, T.CharType)):
        return G.STRING
    if isinstance(spark_type, T.DateType):
        return G.DATE
    if isinstance(spark_type, (T.TimestampType, T.TimestampNTZType)):
        return G.TIMESTAMP
    if isinstance(spark_type, T.BinaryType):
        return G.BINARY
    if isinstance(spark_type, T.NullType):
        return G.NULL
    if isinstance(spark_type, T.ArrayType):
        return G.array(to_logical(spark_type.elementType))
    if isinstance(spark_type, T.MapType):
        return G.map_of(to_logical(spark_type.keyType), to_logical(spark_type.valueType))
    if isinstance(spark_type, T.StructType):
        return G.struct(tuple((f.name, to_logical(f.dataType)) for f in spark_type.fields))
    return G.OTHER


def to_spark(dtype: DataType) -> T.DataType:
    """The Spark type a logical type is computed in."""
    if dtype.kind in _SIMPLE:
        return _SIMPLE[dtype.kind]
    if dtype.kind is Kind.DECIMAL:
        return T.DecimalType(*(dtype.args or (38, 18)))
    if dtype.kind is Kind.ARRAY:
        return T.ArrayType(to_spark(dtype.args[0]))
    if dtype.kind is Kind.MAP:
        return T.MapType(to_spark(dtype.args[0]), to_spark(dtype.args[1]))
    if dtype.kind is Kind.STRUCT:
        return T.StructType([T.StructField(n, to_spark(t)) for n, t in dtype.args])
    raise ValueError(f"no Spark type for {dtype}")


def schema_of(struct: T.StructType) -> G.Schema:
    """A gryph schema for a Spark schema."""
    return G.Schema(tuple(G.Column(f.name, to_logical(f.dataType), f.nullable) for f in struct.fields))


def to_spark_schema(schema: G.Schema) -> T.StructType:
    return T.StructType([T.StructField(c.name, to_spark(c.dtype), c.nullable) for c in schema.columns])


def needs_widening(spark_type: T.DataType) -> bool:
    """Whether a top-level column must be cast to compute like its logical type (int32 -> int64)."""
    return isinstance(spark_type, (T.ByteType, T.ShortType, T.IntegerType, T.FloatType))
