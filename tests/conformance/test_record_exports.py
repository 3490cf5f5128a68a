"""Full record outputs are written where the engine runs, and only their count comes back."""

from __future__ import annotations

import glob
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import run
from gryph.compiler.errors import EngineError

ORDERS = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
        "email": pa.array(["a@x", None, "c@x", None, None, "f@x"], pa.string()),
    }
)

SUITE = "completeness contact on orders: email\n"


def _rows_written(path: str) -> list[int]:
    # DuckDB writes one parquet file, Spark a folder of part files under the same name
    files = sorted(glob.glob(f"{path}/*.parquet")) or [path]
    return sorted(i for f in files for i in pq.read_table(f).column("id").to_pylist())


def test_record_outputs_are_written_in_full(dq_engine, tmp_path):
    result = run(SUITE, dq_engine, frames={"orders": ORDERS}, record_sample=1, records_to=str(tmp_path / "out"))
    record = result.records["contact"]
    # ids 2, 4 and 5 have no email: three incomplete rows, one of them in the sample
    assert record["count"] == 3 and len(record["sample"]) == 1
    assert record["written_to"] == f"{tmp_path}/out/contact__incompleteRecords.parquet"
    assert _rows_written(record["written_to"]) == [2, 4, 5]


def test_record_outputs_go_to_tables_of_the_engine(dq_engine):
    result = run(SUITE, dq_engine, frames={"orders": ORDERS}, records_to="table:dq_export_")
    assert result.records["contact"]["written_to"] == "table dq_export_contact__incompleteRecords"
    # the table lives in the engine's catalog: a later suite reads it back
    back = run(
        'source written = table("dq_export_contact__incompleteRecords")\n'
        "profiling back on written: count(*) as n, sum(id) as s\n",
        dq_engine,
    )
    assert back.metrics["back"] == [{"n": 3, "s": 11}]  # ids 2 + 4 + 5


def test_samples_are_fetched_only_where_records_exist(dq_engine):
    from gryph.client.run.runner import compile_for, load_suite

    suite = load_suite("completeness clean on orders: id\ncompleteness gaps on orders: email\n", {"orders": ORDERS})
    compiled = compile_for(suite, dq_engine)
    assert len(compiled.conditions) == 2  # one sample query per record output, both conditional
    rows = dq_engine.run(compiled.first_plan(), suite.sources)
    second = compiled.second_plan(rows)
    # no id is NULL, three emails are: only the second rule's sample is worth a query
    assert second is not None and len(second.queries) == 1
    result = run(suite, dq_engine)
    assert result.records["clean"]["count"] == 0 and result.records["clean"]["sample"] == []
    assert result.records["gaps"]["count"] == 3 and len(result.records["gaps"]["sample"]) == 3


def test_samples_over_a_grouping_or_a_join_come_with_the_metrics(dq_engine):
    """Their count's query computes what they read: no second query, on clean data nothing."""
    from gryph.client.run.runner import compile_for, load_suite

    copy = pa.table({"id": pa.array([1, 2, 3, 3], pa.int64())})
    suite = load_suite(
        "uniqueness ids on orders: id\n"
        "distinctness mails on orders: email\n"
        "accuracy copied on orders, copy: orders.id = copy.id\n"
        "accuracy covered on copy, orders: copy.id = orders.id\n",
        {"orders": ORDERS, "copy": copy},
    )
    compiled = compile_for(suite, dq_engine)
    assert compiled.conditions == {}
    assert compiled.second_plan(dq_engine.run(compiled.first_plan(), suite.sources)) is None
    result = run(suite, dq_engine)
    # ids are unique; NULL is an email three times; ids 4, 5 and 6 are not in the copy, and
    # every id of the copy is an order's
    assert result.records["ids"]["count"] == 0 and result.records["ids"]["sample"] == []
    assert result.records["mails"]["count"] == 1 and result.records["mails"]["sample"] == [{"email": None, "dup": 2}]
    assert result.records["copied"]["count"] == 3
    assert sorted(r["id"] for r in result.records["copied"]["sample"]) == [4, 5, 6]
    assert result.records["covered"]["count"] == 0 and result.records["covered"]["sample"] == []


def test_a_hostile_rule_name_writes_inside_records_to(dq_engine, tmp_path):
    suite = "completeness `../../x\ny` on orders: email\n"
    result = run(suite, dq_engine, frames={"orders": ORDERS}, records_to=str(tmp_path / "out"))
    # the spelling of docs/reliability.md: dots at the start, `/` and the newline percent-encoded
    written = f"{tmp_path}/out/%2E%2E%2F..%2Fx%0Ay__incompleteRecords.parquet"
    assert result.records["../../x\ny"]["written_to"] == written
    # DuckDB writes that one file, Spark a folder of that name: nothing anywhere else
    created = [os.path.join(root, f) for root, _, files in os.walk(tmp_path) for f in files]
    assert created and all(path == written or path.startswith(written + "/") for path in created)
    assert _rows_written(written) == [2, 4, 5]


def test_a_dot_in_a_rule_name_stays_in_its_records_table_name(dq_engine):
    suite = "completeness `x.y` on orders: email\n"
    if dq_engine.name == "spark":  # its session catalog takes letters, digits and _ only, and says so
        with pytest.raises(EngineError) as refused:
            run(suite, dq_engine, frames={"orders": ORDERS}, records_to="table:dq_")
        assert refused.value.code == "QUERY_FAILED" and "INVALID_SCHEMA_OR_RELATION_NAME" in str(refused.value)
        return
    result = run(suite, dq_engine, frames={"orders": ORDERS}, records_to="table:dq_")
    assert result.records["x.y"]["written_to"] == "table `dq_x.y__incompleteRecords`"
    back = run(
        'source written = table("\\"dq_x.y__incompleteRecords\\"")\nprofiling back on written: count(*) as n\n',
        dq_engine,
    )
    assert back.metrics["back"] == [{"n": 3}]  # ids 2, 4 and 5
