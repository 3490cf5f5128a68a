"""Dense integer keys are grouped through DuckDB's perfect hash table, within a memory budget."""

from __future__ import annotations

import contextlib
import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client.run.runner import load_suite, run
from gryph.compiler.plan import Aggregate, Distinct, Field, Named, Read, Sql, count_all
from gryph.compiler.plan.data_types import INTEGER, STRING, Column, Schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine
from gryph.local_backend.sql.relations import Aliases, relation_sql
from gryph.local_backend.tuning import perfect_hashing
from gryph.local_backend.tuning.perfect_hashing import (
    GroupingBudget,
    budget_bits,
    groups,
    memory_bits,
    perfect_slot_bytes,
    size_bytes,
)

PERFECT = "PERFECT_HASH_GROUP_BY"
IDS = Read("ids", Schema((Column("id", INTEGER),)))
COUNT_BY_ID = Aggregate(IDS, (Named(Field("id", INTEGER), "id"),), (Named(count_all(), "n"),))


def test_budget_worked_out_by_hand():
    # four slots per row over all threads: 10M rows on 2 threads allow 20M slots a thread;
    # 2^24 (16.8M) fit, 2^25 do not
    assert budget_bits(10_000_000, 2) == 24
    assert budget_bits(1000, 8) == 8  # 500 slots a thread: 256 fit, 512 do not
    assert budget_bits(0, 2) == 0
    assert budget_bits(10**12, 1) == 30  # capped whatever the rows


def test_only_grouping_relations_ask_for_it():
    assert groups(COUNT_BY_ID)
    assert groups(Distinct(IDS))
    assert groups(Sql("SELECT count(*) AS n FROM ids", ("ids",)))
    assert not groups(Aggregate(IDS, (), (Named(count_all(), "n"),)))
    assert not groups(IDS)


@pytest.fixture
def ids_file(tmp_path):
    """10,000 ids, five of them twice, and a NULL: 10,006 rows."""
    ids = [*range(10_000), 7, 70, 700, 7000, 9999, None]
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64())}), path)
    return path


SUITE = """
suite dense
source ids = parquet("{path}")
distinctness id_distinct on ids: id with duplication.array = "dup"
uniqueness id_unique on ids: id
"""


@pytest.fixture
def spied_plans(monkeypatch):
    """Physical plans of the grouping statements a run executes, captured inside gryph's setting."""
    plans: list[dict] = []
    real = GroupingBudget.applied

    @contextlib.contextmanager
    def spy(budget, relations):
        with real(budget, relations):
            for relation in filter(groups, relations):
                sql = relation_sql(relation, Aliases())
                plans.append(json.loads(budget._con.execute(f"EXPLAIN (FORMAT json) {sql}").fetchall()[0][1]))
            yield

    monkeypatch.setattr(GroupingBudget, "applied", spy)
    return plans


def _operators(plan) -> list[str]:
    out, stack = [], list(plan)
    while stack:
        node = stack.pop()
        out.append(node["name"])
        stack.extend(node.get("children", []))
    return out


def test_dense_ids_are_grouped_by_a_perfect_table(ids_file, spied_plans):
    con = duckdb.connect()
    con.execute("SET threads = 2")  # the budget depends on threads: 4 * 10,006 / 2 slots, 14 bits
    result = run(load_suite(SUITE.format(path=ids_file)), DuckDBEngine(con), record_sample=0)
    # worked out by hand: 10,000 ids and NULL are 10,001 values; 7, 70, 700, 7000 and 9999 twice
    assert result.metrics["id_distinct"] == {"total": 10_006, "distinct": 10_001, "dup": [{"dup": 1, "num": 5}]}
    assert result.metrics["id_unique"] == {"total": 10_006, "unique": 9_996}
    assert spied_plans and all(PERFECT in _operators(plan) for plan in spied_plans)
    # DuckDB's own threshold (12 bits) would hash them: 10,000 ids need 14
    assert current_threshold(con) == 12
    plain = relation_sql(COUNT_BY_ID, Aliases())
    con.execute(f"CREATE VIEW ids AS SELECT * FROM read_parquet('{ids_file}')")
    assert PERFECT not in _operators(json.loads(con.execute(f"EXPLAIN (FORMAT json) {plain}").fetchall()[0][1]))


def test_a_users_own_threshold_stays_and_is_restored(ids_file, spied_plans):
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("SET perfect_ht_threshold = 20")  # more than the budget (14 bits): kept
    run(load_suite(SUITE.format(path=ids_file)), DuckDBEngine(con), record_sample=0)
    assert current_threshold(con) == 20
    assert spied_plans and all(PERFECT in _operators(plan) for plan in spied_plans)


def test_sparse_keys_keep_the_hash_table(tmp_path, spied_plans):
    # a range of 2^40 over 4 rows: no table that size, whatever the budget
    path = tmp_path / "sparse.parquet"
    pq.write_table(pa.table({"id": pa.array([0, 2**40, 2**40, None], pa.int64())}), path)
    con = duckdb.connect()
    result = run(load_suite(SUITE.format(path=path)), DuckDBEngine(con), record_sample=0)
    assert result.metrics["id_distinct"] == {"total": 4, "distinct": 3, "dup": [{"dup": 1, "num": 1}]}
    assert spied_plans and not any(PERFECT in _operators(plan) for plan in spied_plans)
    assert current_threshold(con) == 12


def test_setting_restored_when_the_query_fails(ids_file):
    con = duckdb.connect()
    con.execute(f"CREATE VIEW ids AS SELECT * FROM read_parquet('{ids_file}')")
    budget = GroupingBudget(con, {"ids": SourceSpec("ids", "parquet", paths=(str(ids_file),))}, ())
    with pytest.raises(RuntimeError):
        with budget.applied([COUNT_BY_ID]):
            assert current_threshold(con) > 12
            raise RuntimeError("the query failed")
    assert current_threshold(con) == 12


def current_threshold(con) -> int:
    return int(con.execute("SELECT current_setting('perfect_ht_threshold')").fetchone()[0])


def test_the_planner_is_asked_once_per_source_and_only_where_statistics_tell_a_range(tmp_path, ids_file, monkeypatch):
    asked: list[str] = []
    real = perfect_hashing.rows_read
    monkeypatch.setattr(perfect_hashing, "rows_read", lambda con, sql: asked.append(sql) or real(con, sql))
    csv = tmp_path / "ids.csv"
    csv.write_text("id\n1\n2\n2\n")
    suite = (
        SUITE.format(path=ids_file)
        + f"""
source ids_csv = csv("{csv}")
distinctness csv_distinct on ids_csv: id
uniqueness csv_unique on ids_csv: id
"""
    )
    result = run(load_suite(suite), DuckDBEngine(), record_sample=0)
    assert result.metrics["csv_distinct"] == {"total": 3, "distinct": 2}
    # four grouping rules: the parquet source's rows asked for once, the CSV's never (no statistics)
    assert asked == ['SELECT * FROM "ids"']


def test_memory_budget_worked_out_by_hand():
    # 17 bytes a slot on 3 tables, half of 1 GiB: 536,870,912 / 51 = 10,526,880 slots; 2^23 fit, 2^24 not
    assert memory_bits(17, 3, 2**30) == 23
    assert memory_bits(17, 3, 0) == 0


def test_slot_bytes_count_only_groupings_a_perfect_table_can_serve():
    assert perfect_slot_bytes(COUNT_BY_ID) == 1 + 16  # the flag and one count
    assert perfect_slot_bytes(Distinct(IDS)) == 1 + 16
    names = Read("names", Schema((Column("name", STRING),)))
    assert (
        perfect_slot_bytes(Aggregate(names, (Named(Field("name", STRING), "name"),), (Named(count_all(), "n"),))) == 0
    )
    assert perfect_slot_bytes(Sql("SELECT count(*) AS n FROM ids", ("ids",))) == 1 + 16
    two = Aggregate(IDS, (Named(Field("id", INTEGER), "id"),), (Named(count_all(), "n"), Named(count_all(), "m")))
    assert perfect_slot_bytes(two) == 1 + 32


def test_sizes_as_duckdb_prints_them():
    assert size_bytes("1000.0 KiB") == 1_024_000
    assert size_bytes("117.7 MiB") == int(117.7 * 2**20)
    assert size_bytes("18.8 GiB") == int(18.8 * 2**30)
    assert size_bytes("512 bytes") == 512
    assert size_bytes("") is None


def test_tables_within_the_memory_limit_which_is_lowered_for_them(ids_file):
    con = duckdb.connect()
    con.execute("SET threads = 2")  # rows allow 14 bits: 4 * 10,006 / 2 = 20,012 slots a thread
    con.execute(f"CREATE VIEW ids AS SELECT * FROM read_parquet('{ids_file}')")
    con.execute("SET memory_limit = '1200000B'")  # as gryph sets a --memory-limit
    budget = GroupingBudget(con, {"ids": SourceSpec("ids", "parquet", paths=(str(ids_file),))}, (), "1200000B")
    printed = current_limit(con)
    assert printed == "1.1 MiB"  # 1.144 MiB, printed to one decimal
    # 14 bits would take 3 tables * 17 bytes * 16,384 = 835,584 bytes; half of 1.1 MiB allows 13
    with budget.applied([COUNT_BY_ID]):
        assert current_threshold(con) == 13
        # the limit left beside the tables: 1.1 MiB less 3 * 17 * 8,192 = 417,792 bytes
        assert abs(size_bytes(current_limit(con)) - (int(1.1 * 2**20) - 417_792)) < 1024
    assert current_threshold(con) == 12 and current_limit(con) == printed


def test_a_limit_gryph_did_not_set_bounds_the_tables_and_stays(ids_file):
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"CREATE VIEW ids AS SELECT * FROM read_parquet('{ids_file}')")
    con.execute("SET memory_limit = '1200000B'")
    printed = current_limit(con)
    budget = GroupingBudget(con, {"ids": SourceSpec("ids", "parquet", paths=(str(ids_file),))}, ())
    with budget.applied([COUNT_BY_ID]):
        assert current_threshold(con) == 13
        # printed rounded, it could not be set back exactly: left as it is
        assert current_limit(con) == printed
    assert current_limit(con) == printed


def test_dense_ids_under_a_tight_limit_keep_the_hash_table(tmp_path, spied_plans):
    # a million ids and two of them again: rows allow 20 bits, which the ids need; a perfect table
    # of 2^20 slots takes 3 * 17 bytes * 2^20 = 53 MB, more than half of a 64 MB limit
    path = tmp_path / "million.parquet"
    pq.write_table(pa.table({"id": pa.array([*range(1_000_000), 5, 6], pa.int64())}), path)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("SET memory_limit = '64MB'")
    con.execute(f"SET temp_directory = '{tmp_path / 'spill'}'")
    suite = f'suite dense\nsource ids = parquet("{path}")\ndistinctness id_distinct on ids: id with duplication.array = "dup"\n'
    result = run(load_suite(suite), DuckDBEngine(con), record_sample=0)
    assert result.metrics["id_distinct"] == {"total": 1_000_002, "distinct": 1_000_000, "dup": [{"dup": 1, "num": 2}]}
    assert spied_plans and not any(PERFECT in _operators(plan) for plan in spied_plans)


def current_limit(con) -> str:
    return str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])


def test_a_grouping_no_perfect_table_can_serve_changes_no_setting(ids_file):
    # grouped by a string: DuckDB would never use a perfect table, so nothing is raised or lowered
    con = duckdb.connect()
    con.execute(f"CREATE VIEW ids AS SELECT CAST(id AS VARCHAR) AS name FROM read_parquet('{ids_file}')")
    con.execute("SET memory_limit = '1GB'")
    printed = current_limit(con)
    budget = GroupingBudget(con, {"ids": SourceSpec("ids", "parquet", paths=(str(ids_file),))}, (), "1GB")
    names = Read("ids", Schema((Column("name", STRING),)))
    by_name = Aggregate(names, (Named(Field("name", STRING), "name"),), (Named(count_all(), "n"),))
    with budget.applied([by_name]):
        assert current_threshold(con) == 12 and current_limit(con) == printed
