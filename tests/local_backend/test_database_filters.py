"""Which of a plan's filters DuckDB hands to the database, and that the rows stay the same."""

from __future__ import annotations

import math

from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Literal,
    Named,
    Plan,
    Query,
    Read,
    count_all,
    not_,
)
from gryph.compiler.plan import data_types as G
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine
from gryph.local_backend.sources.database_filters import pushed_filter

SCHEMA = G.schema(("id", G.INTEGER), ("amount", G.DOUBLE), ("note", G.STRING), ("odd name", G.BOOLEAN))
READ = Read("orders", SCHEMA)


def _field(name: str) -> Field:
    return Field(name, next(c.dtype for c in SCHEMA.columns if c.name == name))


def _call(fn: Fn, *args) -> Call:
    return Call(fn, tuple(args), G.BOOLEAN)


def _postgres(n: int) -> str:
    return f"${n}"


def test_comparisons_and_null_tests_are_pushed_with_bound_values():
    condition = _call(
        Fn.AND,
        _call(Fn.GT, _field("id"), Literal(2, G.INTEGER)),
        _call(
            Fn.AND,
            _call(Fn.EQ, Literal("x'; drop table t; --", G.STRING), _field("note")),
            not_(IsNull(_field("odd name"))),
        ),
    )
    pushed = pushed_filter([Filter(READ, condition)], "orders", _postgres)
    assert pushed.sql == '("id" > $1 AND "note" = $2 AND "odd name" IS NOT NULL)'
    assert pushed.parameters == (2, "x'; drop table t; --")


def test_literal_on_the_left_is_mirrored():
    pushed = pushed_filter(
        [Filter(READ, _call(Fn.LT, Literal(1.5, G.DOUBLE), _field("amount")))], "orders", lambda n: "?"
    )
    assert (pushed.sql, pushed.parameters) == ('("amount" > ?)', (1.5,))


def test_what_could_differ_between_databases_stays_in_duckdb():
    """String order (collations), NaN and any function are not pushed; an unpushable part of an AND is
    left out, the rest still pushed."""
    for condition in (
        _call(Fn.LT, _field("note"), Literal("b", G.STRING)),
        _call(Fn.GT, _field("amount"), Literal(math.nan, G.DOUBLE)),
        _call(Fn.GT, Call(Fn.ABS, (_field("amount"),), G.DOUBLE), Literal(1, G.INTEGER)),
    ):
        assert pushed_filter([Filter(READ, condition)], "orders", _postgres) is None
    both = _call(Fn.AND, _call(Fn.LT, _field("note"), Literal("b", G.STRING)), IsNull(_field("amount")))
    assert pushed_filter([Filter(READ, both)], "orders", _postgres).sql == '("amount" IS NULL)'


def test_a_read_without_filter_pushes_nothing_and_two_filters_push_either():
    count = Aggregate(READ, (), (Named(count_all(), "n"),))
    filtered = Filter(READ, IsNull(_field("note")))
    assert pushed_filter([count, filtered], "orders", _postgres) is None
    other = Filter(READ, _call(Fn.EQ, _field("id"), Literal(1, G.INTEGER)))
    pushed = pushed_filter([filtered, other], "orders", _postgres)
    assert (pushed.sql, pushed.parameters) == ('("note" IS NULL) OR ("id" = $1)', (1,))


def test_filtered_rows_from_postgres_match_the_rows(postgres):
    """Ids 1..5 with amounts 1, NaN, NULL, 4, 5: amount > 2 keeps NaN (the largest double on every
    engine), 4 and 5; the database and DuckDB apply the same filter."""
    postgres.execute('CREATE TABLE filtered (id bigint, amount double precision, note text, "odd name" boolean)')
    postgres.execute(
        "INSERT INTO filtered VALUES (1, 1, 'a', true), (2, 'NaN', 'b', NULL), (3, NULL, NULL, false), "
        "(4, 4, 'a', true), (5, 5, 'a', NULL)"
    )
    spec = SourceSpec("orders", "postgres", paths=(postgres.url(),), options=(("table", "filtered"),))
    relation = Aggregate(
        Filter(READ, _call(Fn.GT, _field("amount"), Literal(2, G.INTEGER))),
        (),
        (Named(count_all(), "n"), Named(AggregateCall(AggFn.SUM, (_field("id"),), G.INTEGER), "ids")),
    )
    engine = DuckDBEngine()
    try:
        rows = engine.run(Plan((), (Query("q", relation),)), {"orders": spec})
    finally:
        engine.close()
    assert rows["q"] == [{"n": 3, "ids": 11}]


def _backticked(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def test_mysql_gets_numbers_and_booleans_as_literals_and_no_string():
    """connectorx binds no parameters: a number or boolean is written by Python (a float as a
    double literal), a string comparison stays in DuckDB (MySQL's collations ignore case)."""
    condition = _call(
        Fn.AND,
        _call(Fn.GT, _field("amount"), Literal(2.5, G.DOUBLE)),
        _call(
            Fn.AND,
            _call(Fn.NE, _field("note"), Literal("x'; drop table t; --", G.STRING)),
            _call(
                Fn.AND,
                _call(Fn.LE, Literal(7, G.INTEGER), _field("id")),
                _call(Fn.EQ, _field("odd name"), Literal(True, G.BOOLEAN)),
            ),
        ),
    )
    pushed = pushed_filter([Filter(READ, condition)], "orders", None, quote=_backticked, strings=False)
    assert pushed.sql == "(`amount` > 2.5e0 AND `id` >= 7 AND `odd name` = TRUE)"
    assert pushed.parameters == ()
    only_text = _call(Fn.EQ, _field("note"), Literal("x", G.STRING))
    assert pushed_filter([Filter(READ, only_text)], "orders", None, quote=_backticked, strings=False) is None
