"""The plan side of samples fetched by row address (compiler/plan/row_sources.py)."""

from __future__ import annotations

from gryph.compiler.plan import Call, Field, Fn, Join, JoinKind, Read
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, STRING, Column, schema
from gryph.compiler.plan.row_sources import addressed, on_spine, row_source

T = schema(("id", INTEGER), ("name", STRING))
U = schema(("key", INTEGER))


def test_the_addressed_read_has_the_source_columns_then_the_address_from_the_engines_rows():
    address = (Column("at_file", STRING, False), Column("at_row", INTEGER, False))
    got = addressed(Read("t", T), "located_t", address)
    assert got.source == "located_t"
    assert got.schema.names == ("id", "name", "at_file", "at_row")
    assert got.schema.columns[:2] == T.columns and got.schema.columns[2:] == address


def test_a_join_sample_is_rebuilt_over_the_addressed_rows():
    on = Call(Fn.EQ, (Field("id", INTEGER), Field("key", INTEGER)), BOOLEAN)
    anti = Join(JoinKind.ANTI, Read("t", T), Read("u", U), on)
    assert row_source(anti) == Read("t", T)
    numbered = addressed(Read("t", T), "t", (Column("n", INTEGER, False),))
    assert on_spine(anti, numbered) == Join(JoinKind.ANTI, numbered, Read("u", U), on)
