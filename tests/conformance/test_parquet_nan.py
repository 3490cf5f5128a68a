"""NaN in a Parquet file is a number above every other on both engines, in SQL text as in rules.

Parquet's min/max statistics leave NaN out, so a row group holding 1, NaN, 5 and NULL says its
largest value is 5: Spark pruned it for `amount > 1000` and counted 0 where DuckDB counts the NaN
(and where Spark itself counted it once the source was kept on the cluster, with no statistics).
The Delta log deltalake writes holds the same statistics: Spark skipped the file by them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from deltalake import write_deltalake
from pyiceberg.catalog.sql import SqlCatalog

from gryph.client import run

# SQL text (`sql "..."`) goes to the engine as written: its WHERE is what Spark pushed to the
# file. A measure gryph parses (at_most) is fused with the source's other rules into one
# aggregate, its condition a FILTER clause that Spark does not push.
SUITE = """suite nans
source t = parquet("t.parquet")
measure over: sql "select count(*) from t where amount > 1000"
"""
RULES = """measure at_most: select count(*) from t where amount <= 1000
validity bounded on t: amount <= 1000
"""


AMOUNTS = pa.table({"amount": [1.0, float("nan"), 5.0, None]})


def _suite(folder: Path, text: str = SUITE) -> str:
    pq.write_table(AMOUNTS, folder / "t.parquet")
    (folder / "nan.dq").write_text(text, encoding="utf-8")
    return str(folder / "nan.dq")


def _counts(result) -> tuple:
    return result.measures["over"], result.measures["at_most"], result.metrics["bounded"]["invalid"]


# by hand: NaN is above 1000 (over: 1); 1 and 5 are at most 1000 (at_most: 2); NULL is neither;
# validity fails a row unless its condition is true: NaN (false) and NULL (NULL), so 2 invalid
EXPECTED = (1, 2, 2)


def test_sql_text_counts_nan_above_a_bound(dq_engine, tmp_path):
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


def _lake_source(folder: Path, kind: str) -> str:
    """The amounts as a table of ``kind`` (its files' statistics written by deltalake or PyIceberg)."""
    if kind == "delta":
        write_deltalake(str(folder / "t"), AMOUNTS)
        return f'delta("{folder / "t"}")'
    uri = f"sqlite:///{folder}/catalog.db"
    # A catalog name of its own: a Spark session opens a name once, and other modules open "lake".
    catalog = SqlCatalog("nan_lake", uri=uri, warehouse=f"file://{folder}")
    catalog.create_namespace("shop")
    catalog.create_table("shop.t", schema=AMOUNTS.schema).append(AMOUNTS)
    return f'iceberg("nan_lake.shop.t", catalog.uri = "{uri}")'


@pytest.mark.parametrize("kind", ["delta", "iceberg"])
def test_sql_text_over_a_lake_table_counts_nan_above_a_bound(dq_engine, tmp_path, kind):
    source = _lake_source(tmp_path, kind)
    text = SUITE.replace('parquet("t.parquet")', source) + 'measure top: sql "select max(amount) from t"\n'
    measures = run(_suite(tmp_path, text), dq_engine).measures
    # by hand: NaN is above 1000, and the largest of 1, NaN, 5 (NULL aside)
    assert measures["over"] == 1
    assert math.isnan(measures["top"])
