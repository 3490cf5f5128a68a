"""A split's plan: the source's rows with what flags them are one kept view (computed once by the
engine), which both outputs and the split's counts read; the source itself is read by that view
and by the metrics, not by the outputs."""

from __future__ import annotations

from gryph.compiler.lowering import Options
from gryph.compiler.lowering.row_failures import Split, written_columns
from gryph.compiler.plan import format_plan, reads
from gryph.compiler.plan.data_types import BOOLEAN
from gryph.compiler.plan.scalars import field_names

from .compiler_support import ORDERS, USERS, compile_text

SUITE = """
completeness has_country on orders: country
uniqueness order_ids on orders: order_id
accuracy known_users on orders, users: orders.user_id = users.user_id
"""


def _compiled(valid: str | None):
    split = Split("orders", "q/part-0.parquet", valid, ("s", "run", None, "duckdb"))
    return compile_text(SUITE, options=Options(splits=(split,)))


def test_both_outputs_and_their_counts_read_one_kept_view():
    plan = _compiled("v/part-0.parquet").plan
    (view,) = plan.views
    assert view.kept and view.name == "__gryph_split_orders"
    assert sorted(set(reads(view.relation))) == ["orders", "users"]  # the accuracy target is joined in
    assert [reads(export.relation) for export in plan.exports] == [[view.name], [view.name]]
    counted = [q for q in plan.queries if view.name in reads(q.relation)]
    assert len(counted) == 1 and reads(counted[0].relation) == [view.name]  # one statement counts both outputs
    assert "view __gryph_split_orders (kept: computed once):" in format_plan(plan)


def test_a_source_named_like_the_view_keeps_its_own_name():
    text = SUITE.replace("users:", "__gryph_split_orders:").replace("users.user_id", "__gryph_split_orders.user_id")
    schemas = {"orders": ORDERS, "__gryph_split_orders": USERS}
    split = Split("orders", "q/part-0.parquet", None, ("s", "run", None, "duckdb"))
    plan = compile_text(text, schemas, Options(splits=(split,))).plan
    (view,) = plan.views
    assert view.name == "___gryph_split_orders"
    assert [reads(export.relation) for export in plan.exports] == [[view.name]]


def test_the_kept_view_holds_the_source_columns_and_one_bit_per_rule():
    # three rules, one flag each: no copy of a joined key, count or mark is kept beside the rows
    (view,) = _compiled("v/part-0.parquet").plan.views
    bits = ["__dq_flag0", "__dq_flag1", "__dq_flag2", "__dq_flagany"]
    assert [c.name for c in view.relation.schema.columns] == [*ORDERS.names, *bits]
    assert {str(c.dtype) for c in view.relation.schema.columns if c.name in bits} == {str(BOOLEAN)}


def test_the_outputs_filter_on_the_stored_bit():
    for export in _compiled("v/part-0.parquet").plan.exports:
        assert field_names(export.relation.input.condition) == {"__dq_flagany"}  # quarantined: it; valid: not it


def test_the_outputs_hold_the_columns_every_table_check_expects():
    # the one description of an output's columns (written_columns) is what the exports write
    quarantine, valid = _compiled("v/part-0.parquet").plan.exports
    assert quarantine.relation.schema.names == (*ORDERS.names, "_dq_errors", "_dq_run")
    assert valid.relation.schema.names == ORDERS.names
    for output, export in (("quarantine", quarantine), ("valid", valid)):
        assert export.relation.schema.names == written_columns(ORDERS.names, output, table=False)
        assert written_columns(ORDERS.names, output, table=True) == (*export.relation.schema.names, "data_time")
