"""What the DuckDB engine does around a plan: temporary views, the caller's connection, join sides."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from gryph.compiler.plan import (
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Limit,
    Plan,
    Query,
    Read,
    Sql,
    View,
    and_all,
    not_,
)
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, STRING
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine

I, S, B = INTEGER, STRING, BOOLEAN


def test_run_returns_every_query_and_leaves_no_views(engine):
    frame = pa.table({"x": [1, 2]})
    spec = SourceSpec("s", "frame", frame=frame)
    read = Read("s", engine.schema_of(spec))
    plan = Plan((View("v", read),), (Query("a", read), Query("b", Read("v", read.schema))))
    assert engine.run(plan, {"s": spec, "unused": SourceSpec("unused", "csv", paths=("/missing.csv",))}) == {
        "a": [{"x": 1}, {"x": 2}],
        "b": [{"x": 1}, {"x": 2}],
    }
    assert engine.connection.execute(
        "SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal"
    ).fetchone() == (0,)


def test_callers_connection_stays_open_and_in_utc(tmp_path):
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    engine = DuckDBEngine(con)
    engine.close()
    assert con.execute("SELECT current_setting('TimeZone')").fetchone() == ("UTC",)
    con.close()


# -- join sides ------------------------------------------------------------------------------


def _record_sample_of_an_anti_join(bench, folder):
    """An accuracy rule's missed-records sample: source rows without a match in the target."""
    con = bench.engine.connection
    # parquet files, whose sizes DuckDB knows: a filter on the source then makes it look smaller
    con.execute(
        f"COPY (SELECT range AS id, 'n' || range AS note, range::DOUBLE AS more FROM range(100000)) "
        f"TO '{folder / 'src.parquet'}'"
    )
    con.execute(f"COPY (SELECT 2 * range AS tid FROM range(100000)) TO '{folder / 'tgt.parquet'}'")
    source = bench.add(SourceSpec("src", "parquet", paths=(str(folder / "src.parquet"),)))
    target = bench.add(SourceSpec("tgt", "parquet", paths=(str(folder / "tgt.parquet"),)))
    # the filter of an accuracy rule: rows whose compared columns are all NULL are not counted
    counted = not_(and_all([IsNull(Field("id", I)), IsNull(Field("note", S))]))
    missed = Join(JoinKind.ANTI, Filter(source, counted), target, Call(Fn.EQ, (Field("id", I), Field("tid", I)), B))
    return Plan((), (Query("q", Limit(missed, 20)),))


def _explained(con, plan) -> str:
    from gryph.local_backend.sql.relations import query_sql

    return "\n".join(row[1] for row in con.execute("EXPLAIN " + query_sql(plan.queries[0])).fetchall())


def test_gryph_joins_hash_the_right_side_and_the_setting_is_restored(bench, tmp_path):
    con = bench.engine.connection
    con.execute("SET disabled_optimizers = 'compressed_materialization'")  # the user's own
    plan = _record_sample_of_an_anti_join(bench, tmp_path)
    # DuckDB alone hashes the filtered source (every column of it) and streams the target past it
    with bench.engine._registered((), [q.relation for q in plan.queries], bench.sources):
        assert "RIGHT_ANTI" in _explained(con, plan)
        with bench.engine._joins_as_written([q.relation for q in plan.queries]):
            assert "RIGHT_ANTI" not in _explained(con, plan) and "ANTI" in _explained(con, plan)
    assert con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0] == "compressed_materialization"
    rows = bench.engine.run(plan, bench.sources)["q"]
    assert len(rows) == 20 and all(row["id"] % 2 == 1 for row in rows)
    assert con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0] == "compressed_materialization"


def test_joins_in_users_sql_keep_duckdbs_choice(bench):
    con = bench.engine.connection
    plan = Plan((), (Query("q", Sql("SELECT 1 AS s", (), "duckdb")),))
    with bench.engine._joins_as_written([q.relation for q in plan.queries]):
        assert con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0] == ""
