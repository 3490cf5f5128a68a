"""The physicalType table (docs/contracts.md): each server type's names read as gryph's types,
what of their parameters is compared and what is not."""

from __future__ import annotations

import pytest

from gryph.compiler.contracts.physical_types import UnknownType, physical_type


@pytest.mark.parametrize(
    ("server", "written", "compared"),
    [
        ("local", "INT32", "bigint"),  # parquet's names; every integer width is an integer on both engines
        ("local", "int64", "bigint"),
        ("local", "utf8", "string"),
        ("local", "FLOAT32", "double"),
        ("s3", "VARCHAR(40)", "string"),  # a text's length is not compared
        ("local", "decimal(10, 2)", "decimal(10,2)"),  # precision and scale are
        ("local", "NUMERIC(12)", "decimal(12,0)"),  # no scale: 0, as SQL says
        ("local", "decimal", None),  # no precision: each engine has its own default, so the column only
        ("local", "float(3,2)", "double"),  # a float's digits are not compared
        ("postgres", "int4", "bigint"),
        ("postgres", "character varying(15)", "string"),
        ("postgres", "timestamp(3) with time zone", "timestamp"),  # neither precision nor zone
        ("postgres", "Double  Precision", "double"),  # case and blanks do not matter
        ("postgres", "bytea", "binary"),
        ("mysql", "datetime", "timestamp"),
        ("mysql", "longtext", "string"),
        ("duckdb", "HUGEINT", "bigint"),
        ("duckdb", "TIMESTAMPTZ", "timestamp"),
        ("databricks", "timestamp_ntz", "timestamp"),
        ("databricks", "string", "string"),
        (None, "bpchar", "string"),  # no server (validate): any server's name
        ("postgres", "varchar[50]", "string"),  # a length in brackets, as Bitol's examples write it
        ("local", "NUMERIC[10, 2]", "decimal(10,2)"),
    ],
)
def test_physical_types_read_as_gryph_types(server, written, compared):
    assert physical_type(written, server) == compared


@pytest.mark.parametrize(
    ("server", "written"),
    [
        ("postgres", "serial4x"),
        ("postgres", "string"),  # Spark's name, not PostgreSQL's
        ("databricks", "bytea"),  # PostgreSQL's, not Spark's
        ("mysql", "int4"),
        ("postgres", "varchar(50)[]"),  # an array in PostgreSQL
        ("postgres", "Name"),  # a domain: its base type is not in the contract
        ("local", "time"),  # a time of day: no gryph type holds it alike on both engines
        ("local", "uuid"),
        ("local", "array<string>"),
        ("local", "varchar(40) not null"),
    ],
)
def test_names_outside_the_server_types_table_are_not_compared(server, written):
    with pytest.raises(UnknownType, match=r"is not a type gryph knows .*so its column's type is not compared"):
        physical_type(written, server)
