"""DuckDB's memory cap: set through gryph, honoured by spilling to disk, refused values are the user's error."""

from __future__ import annotations

import duckdb
import pytest

from gryph.client import run
from gryph.compiler.errors import EngineError, InvalidInput
from gryph.local_backend.engine import DuckDBEngine
from tests.client.test_cli import gryph

# 3,001,000 rows: key i % 3,000,000 (keys 0..999 twice, the rest once) and an md5 text per row
ROWS, KEYS = 3_001_000, 3_000_000


@pytest.fixture(scope="module")
def wide_keys(tmp_path_factory):
    path = tmp_path_factory.mktemp("spill") / "keys.parquet"
    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT i % {KEYS} AS k, md5(i::VARCHAR) AS s FROM range({ROWS}) t(i)) TO '{path}' (FORMAT parquet)"
        )
    return path


def _suite(path) -> str:
    return f'source d = parquet("{path}")\nuniqueness u on d: k\ndistinctness x on d: s\n'


def test_groupings_larger_than_the_memory_limit_spill_and_count_right(wide_keys, tmp_path):
    spill = tmp_path / "spill"
    engine = DuckDBEngine(memory_limit="150MB", temp_directory=str(spill))
    result = run(_suite(wide_keys), engine, record_sample=0)
    # 1,000 keys appear twice, so 3,000,000 - 1,000 keys appear once; every md5 text is distinct
    assert result.metrics == {
        "u": {"total": ROWS, "unique": KEYS - 1000},
        "x": {"total": ROWS, "distinct": ROWS},
    }
    # DuckDB creates its spill folder only when it writes there: the grouping did not fit in 150 MB
    assert spill.is_dir()


def test_a_split_larger_than_the_memory_limit_spills_and_writes_every_row_once(wide_keys, tmp_path):
    spill = tmp_path / "spill"
    engine = DuckDBEngine(memory_limit="150MB", temp_directory=str(spill))
    suite = f'source d = parquet("{wide_keys}")\nuniqueness u on d: k\n'
    result = run(suite, engine, record_sample=0, quarantine_to=str(tmp_path / "q"))
    # keys 0..999 twice: their 2,000 rows fail, the other 2,999,000 rows are valid
    rows = {kind: result.outputs["d"][kind]["rows"] for kind in ("quarantine", "valid")}
    assert rows == {"quarantine": 2_000, "valid": ROWS - 2_000}
    for kind, expected in rows.items():
        written = str(tmp_path / "q" / "d" / kind / "data_time=none" / "*.parquet")
        counted = duckdb.sql(f"SELECT count(*), count(DISTINCT s) FROM read_parquet('{written}')").fetchall()
        assert counted == [(expected, expected)]  # every md5 text is distinct: no row twice
    assert spill.is_dir()  # the run did not fit in 150 MB
    # the kept rows are the run's: dropped with it
    assert engine.connection.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchone() == (0,)


def test_the_limit_is_the_connection_setting(tmp_path):
    engine = DuckDBEngine(memory_limit="64MB", temp_directory=str(tmp_path / "t"))
    limit, folder = engine.connection.execute(
        "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
    ).fetchone()
    # DuckDB's MB is 10^6 bytes and it prints MiB: 64,000,000 / 2^20 = 61.04
    assert limit == "61.0 MiB" and folder == str(tmp_path / "t")


def test_a_size_duckdb_refuses_is_bad_input():
    with pytest.raises(InvalidInput) as caught:
        DuckDBEngine(memory_limit="lots")
    assert caught.value.code == "BAD_OPTION" and caught.value.text == "lots" and "8GB" in caught.value.hint


def test_a_callers_connection_keeps_its_own_settings():
    with duckdb.connect() as con, pytest.raises(ValueError):
        DuckDBEngine(con, memory_limit="1GB")


def test_running_out_of_memory_names_the_option_to_raise(wide_keys):
    engine = DuckDBEngine(memory_limit="10MB")
    with pytest.raises(EngineError) as caught:
        run(_suite(wide_keys), engine, record_sample=0)
    error = caught.value
    assert error.code == "QUERY_FAILED" and "Out of Memory" in str(error)
    assert "--memory-limit" in error.hint and "SET threads" not in str(error)


def test_cli_options(wide_keys, tmp_path):
    suite = tmp_path / "keys.dq"
    suite.write_text(_suite(wide_keys))
    done = gryph("run", str(suite), "--memory-limit", "150MB", "--temp-directory", str(tmp_path / "s"), "--no-history")
    assert done.returncode == 0, done.stderr
    assert "unique    2999000" in done.stdout  # (DuckDB removes its spill folder when the process ends)
    refused = gryph("validate", str(suite), "--memory-limit", "ten")
    assert refused.returncode == 2 and "BAD_OPTION" in refused.stderr and "--memory-limit ten" in refused.stderr
    on_spark = gryph("validate", str(suite), "--engine", "spark", "--memory-limit", "1GB")
    assert on_spark.returncode == 2 and "goes with the duckdb engine" in on_spark.stderr
