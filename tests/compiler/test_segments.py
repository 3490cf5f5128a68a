"""`by COLUMN` on a rule: both parsers read it alike, the check pass locates what is wrong with it,
and rules segmented by the same column share one grouped query beside the source's shared scan."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language.ruletree.statements import SegmentBy
from gryph.compiler.plan import Aggregate, format_plan
from tests.compiler.compiler_support import compile_text
from tests.compiler.parser_outcomes import fast_outcome, textx_outcome


@pytest.mark.parametrize(
    "text,column,top",
    [
        ("completeness c on orders by country: order_id", "country", None),
        ("completeness c on orders by `ville natale` top 20: order_id", "ville natale", 20),
        ("completeness c on orders\n  by country\n  top 3 : order_id with incomplete = 'missing'", "country", 3),
        ("validity v on orders by country: order_id > 0 as positive", "country", None),
        ("uniqueness u on orders by country top 5: order_id", "country", 5),
        ("timeliness t on orders by country: ts, end_ts", "country", None),
        ("accuracy a on orders, users by country: orders.user_id = users.user_id", "country", None),
        ("freshness orders by country: ts with warn = 1h", "country", None),
        ("freshness f on orders by country: ts", "country", None),
        ("profiling p on orders by country: select count(*) from orders", "country", None),
    ],
)
def test_both_parsers_read_by(text, column, top, monkeypatch):
    fast = fast_outcome("suite", text)
    assert fast is not None, "left to textX"
    assert fast == textx_outcome("suite", text, monkeypatch)
    (rule,) = fast[1].statements
    assert isinstance(rule.segment, SegmentBy)
    assert (rule.segment.column, rule.segment.top) == (column, top)
    assert (
        rule.segment.text.startswith("by ") and rule.segment.location.line == text[: text.index("by")].count("\n") + 1
    )


def _error(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        compile_text(text)
    return caught.value


def test_unknown_segment_column_is_located_with_did_you_mean():
    error = _error("completeness c on orders by contry: order_id")
    assert (error.code, error.line, error.column) == ("UNKNOWN_COLUMN", 1, len("completeness c on orders ") + 1)
    assert error.text == "by contry"
    assert "'country'" in error.hint


def test_uniqueness_against_another_source_by_a_column_is_refused_where_it_stands():
    error = _error("uniqueness u on orders, users by country: user_id")
    assert (error.code, error.column) == ("UNSUPPORTED", len("uniqueness u on orders, users ") + 1)
    assert "uniqueness rule against another source (users)" in error.message


def test_a_grouped_profiling_query_by_a_column_is_refused_where_it_stands_naming_the_kind():
    error = _error("profiling p on orders by country: select country, count(*) as n from orders group by country")
    assert (error.code, error.column) == ("UNSUPPORTED", len("profiling p on orders ") + 1)
    assert error.message == "this profiling rule's query is not split by segment"
    assert "GROUP BY the column in the query itself" in error.hint


def test_by_on_keyed_accuracy_is_refused_naming_the_kind():
    error = _error("accuracy k on orders, users by country: @Key orders.user_id === users.user_id;")
    assert (error.code, error.column) == ("UNSUPPORTED", len("accuracy k on orders, users ") + 1)
    assert error.message == "a keyed accuracy rule's metrics are not split by segment"
    assert "accuracy (its condition form)" in error.hint


def test_top_zero_is_refused():
    error = _error("completeness c on orders by country top 0: order_id")
    assert (error.code, error.text) == ("BAD_NUMBER", "by country top 0")


def _aggregate(relation) -> Aggregate:
    """The aggregate a query reads."""
    while not isinstance(relation, Aggregate):
        relation = relation.input
    return relation


def _aggregate_queries(text: str) -> list:
    """The plan's queries of values (not its record samples' rows)."""
    return [q for q in compile_text(text).plan.queries if not q.name.startswith("rows")]


def test_rules_by_one_column_and_the_rest_share_one_query_of_grouping_sets():
    text = (
        "completeness a on orders by country: order_id\n"
        "completeness b on orders by country: user_id\n"
        "completeness c on orders: ts\n"
    )
    (query,) = _aggregate_queries(text)  # one read of orders: the totals and the segments
    aggregate = _aggregate(query.relation)
    assert [k.expr.name for k in aggregate.keys] == ["country"]
    assert aggregate.grouping is not None and aggregate.grouping.sets == ((), ("group_key0",))
    # the default cap and one more (to tell a capped column) ranks each grouping's groups
    assert "group_rank <= 1001" in format_plan(compile_text(text).plan)
    # another cap of the same column is the same grouping: each ref keeps its own number of groups
    text += 'completeness d on orders by country top 5: ts\nmeasure "r" by user_id: select count(*) from orders\n'
    (query,) = _aggregate_queries(text)
    aggregate = _aggregate(query.relation)
    assert [k.expr.name for k in aggregate.keys] == ["country", "user_id"]
    assert aggregate.grouping.sets == ((), ("group_key0",), ("group_key1",))


def test_a_measure_by_column_reads_alike_in_both_parsers(monkeypatch):
    text = 'measure "rows" on orders by country top 7: count(*)'
    fast = fast_outcome("suite", text)
    assert fast is not None and fast == textx_outcome("suite", text, monkeypatch)
    (measure,) = fast[1].statements
    assert (measure.segment.column, measure.segment.top) == ("country", 7)


@pytest.mark.parametrize(
    "measure",
    [
        'measure "m" by country: select country, count(*) from orders group by country',
        'measure "m" by country: select count(*) from orders limit 1',
        'measure "m" by country: sql "select count(*) from orders"',
    ],
)
def test_a_measure_that_cannot_join_the_grouped_query_is_refused_at_its_by(measure):
    error = _error(measure)
    assert (error.code, error.column) == ("UNSUPPORTED", measure.index("by country") + 1)
    assert "aggregates only" in error.hint


def test_a_measure_and_a_rule_by_one_column_share_the_grouped_query():
    text = 'measure "rows" by country: select count(*) from orders\ncompleteness c on orders by country: ts\n'
    (query,) = _aggregate_queries(text)
    assert [k.expr.name for k in _aggregate(query.relation).keys] == ["country"]
