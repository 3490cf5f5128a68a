"""NaN in a Parquet file is a number above every other on both engines, in SQL text as in rules.

Parquet's min/max statistics leave NaN out, so a row group holding 1, NaN, 5 and NULL says its
largest value is 5: Spark pruned it for `amount > 1000` and counted 0 where DuckDB counts the NaN
(and where Spark itself counted it once the source was kept on the cluster, with no statistics).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from gryph.client import run

SUITE = """suite nans
source t = parquet("t.parquet")
measure over: select count(*) from t where amount > 1000
"""
# the measure alone, as a query of its own: with other rules of `t` it is fused into their
# aggregate (a FILTER clause), which Spark does not push to the file
RULES = """measure at_most: select count(*) from t where amount <= 1000
validity bounded on t: amount <= 1000
"""


def _suite(folder: Path, text: str = SUITE) -> str:
    pq.write_table(pa.table({"amount": [1.0, float("nan"), 5.0, None]}), folder / "t.parquet")
    (folder / "nan.dq").write_text(text, encoding="utf-8")
    return str(folder / "nan.dq")


def _counts(result) -> tuple:
    return result.measures["over"], result.measures["at_most"], result.metrics["bounded"]["invalid"]


# by hand: NaN is above 1000 (over: 1); 1 and 5 are at most 1000 (at_most: 2); NULL is neither;
# validity fails a row unless its condition is true: NaN (false) and NULL (NULL), so 2 invalid
EXPECTED = (1, 2, 2)


def test_a_query_of_its_own_counts_nan_above_a_bound(dq_engine, tmp_path):
    assert run(_suite(tmp_path), dq_engine).measures["over"] == 1


def test_nan_in_parquet_compares_above_every_number(dq_engine, tmp_path):
    assert _counts(run(_suite(tmp_path, SUITE + RULES), dq_engine)) == EXPECTED


def test_nan_in_parquet_on_spark_reading_per_scan(spark_rereading_engine, tmp_path):
    # no copy kept on the cluster: every scan reads the file, with its statistics
    assert run(_suite(tmp_path), spark_rereading_engine).measures["over"] == 1
    assert _counts(run(_suite(tmp_path, SUITE + RULES), spark_rereading_engine)) == EXPECTED


def test_a_contract_sql_rule_counts_nan_above_a_bound(dq_engine, tmp_path):
    # a contract declares its columns, so its source is read with their types (the path that
    # pruned the NaN's row group on Spark)
    _suite(tmp_path)
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "nans",
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "files", "type": "local", "format": "parquet", "path": str(tmp_path / "t.parquet")}],
        "schema": [
            {
                "name": "t",
                "properties": [{"name": "amount", "logicalType": "number"}],
                "quality": [{"type": "sql", "query": "select count(*) from {object} where amount > 1000", "mustBe": 0}],
            }
        ],
    }
    path = tmp_path / "nans.odcs.yaml"
    path.write_text(yaml.safe_dump(contract, sort_keys=False), encoding="utf-8")
    assert run(str(path), dq_engine).measures["schema[0].quality[0]"] == 1


def test_a_contract_sql_rule_on_spark_reading_per_scan(spark_rereading_engine, tmp_path):
    test_a_contract_sql_rule_counts_nan_above_a_bound(spark_rereading_engine, tmp_path)
