"""Quarantine outputs on both engines: every row that fails a completeness, accuracy or uniqueness
rule is quarantined with the rules it failed, every other row is valid, and the two together are
the input exactly (NULL, NaN, duplicated rows and keys, unicode). Expected rows worked out by hand
from ORDERS, and for a generated table from its rows in Python."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

SUITE = """
completeness orders_complete on orders: customer
accuracy orders_known on orders, customers: orders.customer = customers.name
uniqueness orders_ids on orders: id
"""
CUSTOMERS = {"columns": [["name", "string"]], "rows": [["alice"], ["émile"]]}
ORDERS = {
    "columns": [["id", "int64"], ["customer", "string"], ["amount", "float64"]],
    "rows": [
        [1, "alice", 10.5],
        [2, None, 3.0],
        [2, None, 3.0],
        [3, "carol", "NaN"],
        [4, "émile", "NaN"],
        [5, "émile", None],
        [None, "alice", 1.0],
        [None, "bob", 2.0],
        [6, "", 0.0],
    ],
}
C, K, U = "orders_complete", "orders_known", "orders_ids"
# by hand: a NULL customer is incomplete (and never a miss: its only read value is NULL); '' is
# complete but names no customer; ids 2 and NULL occur twice (NULL is a key of its own)
QUARANTINED = [
    (2, None, 3.0, (C, U)),
    (2, None, 3.0, (C, U)),
    (3, "carol", "NaN", (K,)),
    (None, "alice", 1.0, (U,)),
    (None, "bob", 2.0, (K, U)),
    (6, "", 0.0, (K,)),
]
VALID = [(1, "alice", 10.5), (4, "émile", "NaN"), (5, "émile", None)]


def _key(value):
    """NaN as a marker, so rows compare as multisets."""
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def _split(engine, orders: dict, folder: Path, suite: str = SUITE) -> tuple[Counter, Counter, dict]:
    frames = {"orders": arrow_table(orders), "customers": arrow_table(CUSTOMERS)}
    data_time = "2026-11-24"
    result = run(load_suite(suite, frames), engine, quarantine_to=str(folder), data_time=data_time)
    read = {out: _read(folder / "orders" / out / f"data_time={data_time}") for out in ("quarantine", "valid")}
    quarantined = Counter(
        (*(_key(row[c]) for c in ("id", "customer", "amount")), tuple(e["rule"] for e in row["_dq_errors"]))
        for row in read["quarantine"]
    )
    valid = Counter(tuple(_key(row[c]) for c in ("id", "customer", "amount")) for row in read["valid"])
    return quarantined, valid, {"result": result, "rows": read}


def _read(folder: Path) -> list[dict]:
    files = sorted(folder.glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist() if files else []


def test_each_row_goes_where_its_failures_say(dq_engine, tmp_path):
    quarantined, valid, found = _split(dq_engine, ORDERS, tmp_path)
    assert quarantined == Counter(QUARANTINED)
    assert valid == Counter(VALID)
    row = next(r for r in found["rows"]["quarantine"] if r["customer"] == "bob")
    assert row["_dq_errors"] == [
        {"rule": K, "condition": "orders.customer = customers.name", "message": "no row of 'customers' matches"},
        {"rule": U, "condition": "uniqueness orders_ids on orders: id", "message": "its key occurs more than once"},
    ]
    assert row["_dq_run"]["data_time"] == "2026-11-24" and row["_dq_run"]["engine"] == found["result"].engine
    assert row["_dq_run"]["run_id"] == found["result"].outputs["orders"]["run_id"]
    outputs = found["result"].to_dict()["outputs"]["orders"]
    assert (outputs["quarantine"]["rows"], outputs["valid"]["rows"]) == (6, 3)


def _generated() -> list[list]:
    """300 rows drawn from few ids, names and amounts (NULL, NaN, -0.0, '', unicode), 25 repeated whole."""
    rng = random.Random(42)
    names = ["alice", "émile", "bob", "", None]
    rows = [
        [rng.choice([1, 2, 3, None, *range(10, 40)]), rng.choice(names), rng.choice([1.0, "NaN", None, -0.0])]
        for _ in range(300)
    ]
    return rows + rows[:25]


def _expected(rows: list[list]) -> tuple[Counter, Counter]:
    """The quarantined rows (with the rules each fails) and the valid ones, worked out in Python."""
    ids = Counter(row[0] for row in rows)
    expected_bad, expected_good = Counter(), Counter()
    for id_, customer, amount in rows:
        failed = tuple(
            rule
            for rule, fails in (
                (C, customer is None),
                (K, customer is not None and customer not in ("alice", "émile")),
                (U, ids[id_] > 1),
            )
            if fails
        )
        if failed:
            expected_bad[(id_, customer, amount, failed)] += 1
        else:
            expected_good[(id_, customer, amount)] += 1
    return expected_bad, expected_good


def test_valid_and_quarantined_are_the_input_exactly(dq_engine, tmp_path):
    rows = _generated()
    quarantined, valid, _ = _split(dq_engine, {**ORDERS, "rows": rows}, tmp_path)
    expected_bad, expected_good = _expected(rows)
    assert quarantined == expected_bad and valid == expected_good
    together = Counter(row[:3] for row in quarantined.elements()) + valid
    assert together == Counter(tuple(row) for row in rows)


def test_a_validity_rule_quarantines_a_row_per_condition_it_fails(dq_engine, tmp_path):
    suite = "validity orders_valid on orders: amount >= 0 as non_negative, customer != 'bob'"
    quarantined, valid, found = _split(dq_engine, ORDERS, tmp_path, suite)
    # by hand: NaN >= 0 holds (NaN is above every number), NULL fails; a NULL customer fails the
    # second condition, as does bob
    assert quarantined == Counter(
        {
            (2, None, 3.0, ("orders_valid",)): 2,
            (5, "émile", None, ("orders_valid",)): 1,
            (None, "bob", 2.0, ("orders_valid",)): 1,
        }
    )
    assert sum(valid.values()) == 5
    errors = sorted(e["condition"] for row in found["rows"]["quarantine"] for e in row["_dq_errors"])
    assert errors == ["customer != 'bob'", "customer != 'bob'", "customer != 'bob'", "non_negative"]


def _table_outputs(kind: str, folder: Path, postgres) -> str:
    """The suite's quarantine and valid statements writing ORDERS to two tables of ``kind``."""
    if kind == "delta":
        return 'quarantine orders to delta("bad")\nvalid orders to delta("good")\n'
    if kind == "iceberg":
        catalog = f'catalog.uri = "sqlite:///{folder}/catalog.db", catalog.warehouse = "file://{folder}"'
        name = _catalog_name(folder)
        return (
            f'quarantine orders to iceberg("{name}.q.bad", {catalog})\n'
            f'valid orders to iceberg("{name}.q.good", {catalog})\n'
        )
    url = postgres.url()
    return f'quarantine orders to postgres("{url}", table = "q.bad")\nvalid orders to postgres("{url}", table = "q.good")\n'


def _catalog_name(folder: Path) -> str:
    """A catalog name of the test's own: Spark opens a catalog once per session, and the
    conformance engine's session is shared by every test (another catalog is named lake too)."""
    return "lake_" + folder.name


def _table_rows(kind: str, folder: Path, postgres, name: str) -> list[dict]:
    """A table output's rows as dicts, read back with that table's own library."""
    if kind == "delta":
        from deltalake import DeltaTable

        return DeltaTable(str(folder / name)).to_pyarrow_table().to_pylist()
    if kind == "iceberg":
        from pyiceberg.catalog import load_catalog

        catalog = load_catalog(
            _catalog_name(folder), uri=f"sqlite:///{folder}/catalog.db", warehouse=f"file://{folder}"
        )
        return catalog.load_table(("q", name)).scan().to_arrow().to_pylist()
    import json

    import adbc_driver_postgresql.dbapi as pg

    with pg.connect(postgres.url()) as con, con.cursor() as cursor:
        cursor.execute(f"select * from q.{name}")
        rows = cursor.fetch_arrow_table().to_pylist()
    return [{**r, "_dq_errors": json.loads(r["_dq_errors"])} if "_dq_errors" in r else r for r in rows]


@pytest.mark.parametrize("kind", ["delta", "iceberg", "postgres"])
def test_each_table_kind_holds_the_hand_worked_rows(kind, dq_engine, tmp_path, monkeypatch, request):
    postgres = request.getfixturevalue("postgres") if kind == "postgres" else None
    if postgres is not None:
        postgres.execute("drop schema if exists q cascade")
    monkeypatch.chdir(tmp_path)  # the suite's folder: a Delta folder and the tables' stage are inside it
    frames = {"orders": arrow_table(ORDERS), "customers": arrow_table(CUSTOMERS)}
    suite = load_suite(SUITE + _table_outputs(kind, tmp_path, postgres), frames)
    run(suite, dq_engine, data_time="2026-11-24")
    bad, good = (_table_rows(kind, tmp_path, postgres, name) for name in ("bad", "good"))
    columns = ("id", "customer", "amount")
    quarantined = Counter((*(_key(r[c]) for c in columns), tuple(e["rule"] for e in r["_dq_errors"])) for r in bad)
    assert quarantined == Counter(QUARANTINED)
    assert Counter(tuple(_key(r[c]) for c in columns) for r in good) == Counter(VALID)
    assert {r["data_time"] for r in bad + good} == {"2026-11-24"}


def test_iceberg_tables_hold_the_same_generated_rows_on_both_engines(
    duckdb_engine, spark_conformance_engine, tmp_path, monkeypatch
):
    """The generated rows into Iceberg tables, committed by PyIceberg on DuckDB and by the cluster
    through Iceberg's Spark runtime on Spark: the same multisets, each row with its errors in full
    (rule, condition, message), and the ones worked out in Python."""
    rows = _generated()
    frames = {"orders": arrow_table({**ORDERS, "rows": rows}), "customers": arrow_table(CUSTOMERS)}
    columns = ("id", "customer", "amount")
    found = {}
    for engine in (duckdb_engine, spark_conformance_engine):
        folder = tmp_path / f"{tmp_path.name}_{engine.name}"
        folder.mkdir()
        monkeypatch.chdir(folder)
        run(load_suite(SUITE + _table_outputs("iceberg", folder, None), frames), engine, data_time="2026-11-24")
        bad, good = (_table_rows("iceberg", folder, None, name) for name in ("bad", "good"))
        assert {r["_dq_run"]["engine"] for r in bad} == {engine.name}
        found[engine.name] = (
            Counter((*(_key(r[c]) for c in columns), tuple(tuple(e.values()) for e in r["_dq_errors"])) for r in bad),
            Counter(tuple(_key(r[c]) for c in columns) for r in good),
        )
    assert found["duckdb"] == found["spark"]
    expected_bad, expected_good = _expected(rows)
    bad, good = found["spark"]
    by_rules: Counter = Counter()
    for row, times in bad.items():
        by_rules[(*row[:3], tuple(error[0] for error in row[3]))] += times
    assert by_rules == expected_bad
    assert good == expected_good
