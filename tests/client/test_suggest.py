"""``gryph suggest``: the suggested suite validates and passes on the data it was suggested from
(a property, on generated tables, on both engines), golden suggestions for bundled datasets, and
bad input (empty, one row, 2,000 columns, all NULL or NaN, text that is not UTF-8, odd names)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import re
import sqlite3
import string
import tempfile
import unicodedata
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gryph.client import run, validate
from gryph.client.cli.main import main
from gryph.client.run.engines import open_engine
from gryph.client.suggestions import suggest
from tests.support.gryph_cli import ROOT

GOLDEN = Path(__file__).parent / "golden_suggestions"
NOW = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.timezone.utc)  # a day after the bundled orders


def _write(table: pa.Table, path: Path) -> None:
    # without min/max statistics: DuckDB 2.0 reads `x is nan` as false from statistics that leave
    # NaN out (pyarrow's), so a profile would miss NaN there (a DuckDB bug, outside suggest)
    pq.write_table(table, path, write_statistics=False)


def _suggested(tmp: Path, table: pa.Table, engine="duckdb") -> tuple[str, Path]:
    _write(table, tmp / "t.parquet")
    suite = tmp / "suite.dq"
    text = suggest([str(tmp / "t.parquet")], engine, output=suite)
    suite.write_text(text, encoding="utf-8")
    return text, suite


def _passes_on_its_data(suite: Path, engine="duckdb") -> None:
    validate(suite, engine)
    result = run(suite, engine)
    failed = {c["name"]: c for c in result.to_dict()["check_details"] if c["status"] == "FAIL"}
    assert failed == {}
    assert result.passed


# --- the property: the suite passes on its own data -------------------------------------------

NAMES = st.text(alphabet=string.ascii_letters + " _`'\"ü$.{}-", min_size=1, max_size=8)
KINDS = ("int", "double", "text", "time", "bool")


@st.composite
def tables(draw) -> pa.Table:
    rows = draw(st.integers(0, 25))
    names = draw(st.lists(NAMES, min_size=1, max_size=5, unique_by=str.lower))
    columns = {}
    for name in names:
        kind = draw(st.sampled_from(KINDS))
        few = draw(st.booleans())  # values from a small pool: a column of few values
        if kind == "int":
            values = st.integers(-5, 5) if few else st.integers(-(2**40), 2**40)
            column = pa.array(draw(st.lists(st.none() | values, min_size=rows, max_size=rows)), pa.int64())
        elif kind == "double":
            values = st.sampled_from([0.5, -1.25, math.nan]) if few else st.floats(-1e6, 1e6) | st.just(math.nan)
            column = pa.array(draw(st.lists(st.none() | values, min_size=rows, max_size=rows)), pa.float64())
        elif kind == "text":
            values = st.sampled_from(["a", "b'", 'c"\\']) if few else st.text(max_size=6)
            column = pa.array(draw(st.lists(st.none() | values, min_size=rows, max_size=rows)), pa.string())
        elif kind == "time":
            seconds = st.integers(1_600_000_000, 1_800_000_000)
            moments = draw(st.lists(st.none() | seconds, min_size=rows, max_size=rows))
            column = pa.array(
                [
                    None if s is None else dt.datetime.fromtimestamp(s, dt.timezone.utc).replace(tzinfo=None)
                    for s in moments
                ],
                pa.timestamp("us"),
            )
        else:
            column = pa.array(draw(st.lists(st.none() | st.booleans(), min_size=rows, max_size=rows)), pa.bool_())
        columns[name] = column
    return pa.table(columns)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(table=tables())
def test_a_suggested_suite_passes_on_the_data_it_was_suggested_from(table: pa.Table):
    with tempfile.TemporaryDirectory() as folder:
        _, suite = _suggested(Path(folder), table)
        _passes_on_its_data(suite)


@pytest.mark.spark
def test_a_suite_suggested_on_spark_passes_there(spark_remote):
    engine = open_engine("spark", spark_remote)

    @settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(table=tables())
    def check(table: pa.Table) -> None:
        with tempfile.TemporaryDirectory() as folder:
            _, suite = _suggested(Path(folder), table, engine)
            _passes_on_its_data(suite, engine)

    try:
        check()
    finally:
        engine.close()


# --- what a profile turns into, derived by hand -----------------------------------------------


def test_each_kind_of_rule_from_a_small_table(tmp_path: Path):
    table = pa.table(
        {
            "id": [1, 2, 3, 4, 5, 6],  # unique, 1 .. 6
            "kind": ["a", "b", "a", "b", "a", None],  # 5 of 6 filled: 83%; values a, b
            "amount": [0.5, 2.0, 1.0, 1.0, math.nan, 3.5],  # one NaN, 0.5 .. 3.5
            "code": ["x1", "y2", "z3", "x1", "y2", "z3"],  # always 2 characters, 3 values
            "at": pa.array([dt.datetime(2026, 11, 1, 10)] * 6, pa.timestamp("us")),
        }
    )
    _write(table, tmp_path / "t.parquet")
    text = suggest([str(tmp_path / "t.parquet")], output=tmp_path / "s.dq", now=NOW)
    lines = set(text.splitlines())
    expected = [
        'source t = parquet("t.parquet")',
        "schema t: required(id integer, kind string, amount double, code string, at timestamp)",
        'check "t has rows": rows(t) > 0',
        "completeness t_complete on t: id, amount, code, at",
        'check "t complete": metrics["t_complete"]["incomplete"] == 0',
        'measure "t distinct per filled row" as map: select',
        "    count(distinct id) / count(id) as id",
        'check "t.id unique": measures["t distinct per filled row"]["id"] == 1',
        # 5 of 6 filled: at least 83%, so at most 17% NULL
        'check "t.kind filled in at least 83% of rows": 100 * rows(t where kind is null) <= 17 * rows(t)',
        # the values each row must hold: one validity rule, a condition a line, one check
        "validity t_valid on t:",
        "    id >= 0 as `id not negative`,",
        '    kind is null or kind in ("a", "b") as `kind is one of its 2 values`,',  # its NULL passes
        "    amount >= 0 as `amount not negative`,",  # 0.5 .. 3.5, and NaN is no negative number
        '    code in ("x1", "y2", "z3") as `code is one of its 3 values`',
        'check "t valid": metrics["t_valid"]["invalid"] == 0',
        # ranges as profiled: a second rule, its check a warning
        "validity t_as_profiled on t:",
        "    id between 1 and 6 as `id within 1 .. 6`,",
        "    amount is nan or amount between 0.5 and 3.5 as `amount within 0.5 .. 3.5`",  # it had a NaN
        'warn check "t as profiled": metrics["t_as_profiled"]["invalid"] == 0',
        # 2026-11-01 10:00 is 26 hours before NOW: 2 days, and a day more
        "freshness t_at_fresh on t: at with error = 3d",
        "pass when all",
    ]
    assert [line for line in expected if line not in lines] == []
    assert not any("amount has no NaN" in line for line in lines)  # it has one
    assert text.count("rows(t where") == 1  # the fill fraction's: every other constraint is a condition
    assert "t.kind nearly unique" not in text and "t.code unique" not in text


def test_historical_data_gets_no_hard_freshness_check(tmp_path: Path):
    # newest 2009-11-02 12:00: 6209 days before NOW (2026-11-02 12:00), over the 30 days of historical data
    table = pa.table({"at": pa.array([dt.datetime(2009, 1, 5), dt.datetime(2009, 11, 2, 12)], pa.timestamp("us"))})
    _write(table, tmp_path / "t.parquet")
    suite = tmp_path / "s.dq"
    text = suggest([str(tmp_path / "t.parquet")], output=suite, now=NOW)
    lines = text.splitlines()
    assert (
        "# newest 2009-11-02 12:00:00 UTC, 6209 days before the suggestion: historical data (older than 30 days), so no"
        in lines
    )
    assert "# freshness t_at_fresh on t: at with error = 6210d" in lines
    assert not any(line.startswith("freshness") for line in lines)
    suite.write_text(text, encoding="utf-8")
    _passes_on_its_data(suite)


def test_data_30_days_old_still_gets_its_freshness_check(tmp_path: Path):
    # exactly 30 days before NOW is not older than 30 days: 31 days allowed
    table = pa.table({"at": pa.array([dt.datetime(2026, 10, 3, 12)], pa.timestamp("us"))})
    _write(table, tmp_path / "t.parquet")
    text = suggest([str(tmp_path / "t.parquet")], output=tmp_path / "s.dq", now=NOW)
    assert "freshness t_at_fresh on t: at with error = 31d" in text.splitlines()


def test_odd_column_names_are_quoted(tmp_path: Path):
    table = pa.table({"a b": [1, 2, 3], "ünï": ["x", "y", "z"], "q\"t`o'": [1, 1, 1], "order": [4, 5, 6]})
    text, suite = _suggested(tmp_path, table)
    assert "schema t: required(`a b` integer, `ünï` string, `q\"t``o'` integer, `order` integer)" in text
    assert "    `q\"t``o'` in (1) as `q\"t``o' is always 1`" in text
    assert "    `order` between 4 and 6 as `order within 4 .. 6`" in text
    _passes_on_its_data(suite)


def test_a_dollar_brace_in_a_value_or_name_is_no_variable(tmp_path: Path):
    table = pa.table({"${x}": ["${y}", "${y}", "$", "$"], "k": [1, 1, 2, 2]})
    text, suite = _suggested(tmp_path, table)
    assert '`${x}` in ("$", "$${y}")' in text  # $${ is the text ${
    _passes_on_its_data(suite)


def test_escape_and_bidi_characters_from_the_data_are_written_as_escapes(tmp_path: Path):
    # ESC and CSI start a terminal's escape sequence; U+202E and U+2066..U+2069 reorder the text
    # an editor shows around them (Trojan Source): none may reach the suite's comments or strings
    values = ["\x1b[31mred\x1b[0m", "abc\u202edcba", "x\u2066y\u2069", "\x9bz"]
    table = pa.table({"label": values * 2, "k": [1, 2] * 4})
    text, suite = _suggested(tmp_path, table)
    hidden = {c for c in text if unicodedata.category(c) in ("Cc", "Cf") and c != "\n"}
    assert hidden == set()
    assert '"\\u001b[31mred\\u001b[0m"' in text and '"abc\\u202edcba"' in text and '"\\u009bz"' in text
    # the escapes read back as the values themselves: "one of its values" passes on them
    _passes_on_its_data(suite)


def test_a_column_whose_name_holds_escape_or_bidi_characters_gets_no_rule(tmp_path: Path):
    # a back-quoted name has no escapes: written, it would reach the suite raw, so it is left out
    # of every statement and a comment (escaped) says why
    table = pa.table({"id": [1, 2], "\x1b[2Jcol\u202e": ["a", "b"]})
    text, suite = _suggested(tmp_path, table)
    hidden = {c for c in text if unicodedata.category(c) in ("Cc", "Cf") and c != "\n"}
    assert hidden == set()
    assert "# \\x1b[2Jcol\\u202e" in text.replace("`", "")
    assert "# no rule: its name holds control or bidirectional characters; rename the column to check it" in text
    assert "schema t: required(id integer)" in text
    _passes_on_its_data(suite)


# --- bad input --------------------------------------------------------------------------------


def test_an_empty_table_gets_a_suite_saying_why(tmp_path: Path):
    text, suite = _suggested(tmp_path, pa.table({"id": pa.array([], pa.int64()), "s": pa.array([], pa.string())}))
    assert "# no row-count checks: the source was empty" in text
    assert text.count("# no rule: the source was empty: nothing to learn from") == 2
    _passes_on_its_data(suite)


def test_a_one_row_table(tmp_path: Path):
    text, suite = _suggested(tmp_path, pa.table({"id": [7], "s": ["x"], "f": [1.5]}))
    assert "unique" not in text  # one row tells nothing of a key
    assert "    length(s) = 1 as `s is 1 character long`" in text
    _passes_on_its_data(suite)


def test_columns_of_nothing_but_null_or_nan(tmp_path: Path):
    table = pa.table({"n": pa.array([None, None, None], pa.int64()), "d": [math.nan] * 3, "e": [None, math.nan, None]})
    text, suite = _suggested(tmp_path, table)
    assert "# n (integer): 0 of 3 filled, 0 distinct\n# no rule: every value is NULL" in text
    assert "# no rule: every value is NaN or NULL" in text
    # 1 of 3 filled (NaN is a value): at most 67% NULL, and 2 of 3 are
    assert 'check "t.e filled in at least 33% of rows": 100 * rows(t where e is null) <= 67 * rows(t)' in text
    _passes_on_its_data(suite)


def test_a_table_of_2000_columns(tmp_path: Path):
    table = pa.table({f"c{i}": [i % 7, 1, 2, 3] for i in range(2000)})
    text, suite = _suggested(tmp_path, table)
    # every column is a key, but only the first ten get a distinct count
    assert text.count('distinct per filled row" as map: select\n') == 1  # one measure of the keys
    assert text.count("count(distinct ") == 10
    assert "# no key check: the first 10 key columns of the source have one" in text
    _passes_on_its_data(suite)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["suggest", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("engine_name", ["duckdb", "spark"])
def test_a_suite_suggested_from_csv_files_reads_them_alike_on_both_engines(tmp_path: Path, engine_name, request):
    """Issue 40's case: a semicolon file (and R's NA, Latin-1) suggested on DuckDB, run on either
    engine: the declarations say the dialect found, and each engine reads the files by it."""
    (tmp_path / "semi.csv").write_bytes(b"id;name;amount\n1;Ann;10.5\n2;Bob;3\n3;Cy;7.25\n")
    (tmp_path / "na.csv").write_bytes(b"id,score\n1,NA\n2,3.5\n")
    (tmp_path / "old.csv").write_bytes(b"id;city\n1;K\xf6ln\n")
    suite = tmp_path / "files.dq"
    text = suggest([str(tmp_path / n) for n in ("semi.csv", "na.csv", "old.csv")], output=suite, now=NOW, cwd=tmp_path)
    suite.write_text(text, encoding="utf-8")
    # the dialect found, then the null marker and the types profiled (client/suggestions/declared_types.py)
    assert 'source semi = csv("semi.csv", delimiter = ";", schema = "id integer, name string, amount double")' in text
    assert 'source na = csv("na.csv", nullValue = "NA", schema = "id integer, score double")' in text
    assert (
        'source old = csv("old.csv", delimiter = ";", encoding = "latin-1", schema = "id integer, city string")' in text
    )
    engine = "duckdb" if engine_name == "duckdb" else open_engine("spark", request.getfixturevalue("spark_remote"))
    try:
        _passes_on_its_data(suite, engine)
        measures = run(suite, engine).to_dict()["measure"]
    finally:
        if engine != "duckdb":
            engine.close()
    assert (measures["rows(semi)"], measures["rows(na)"], measures["rows(old)"]) == (3, 2, 1)


def test_text_that_is_not_utf8_is_read_as_latin1_and_said_so(tmp_path: Path, capsys):
    """Bytes that are not UTF-8 are Latin-1 (as every byte is): the suite says so, both engines
    read it so; a source told UTF-8 is an engine error with the fix."""
    (tmp_path / "bad.csv").write_bytes(b"id,name\n1,caf\xe9\n")
    code, out, err = _cli(capsys, str(tmp_path / "bad.csv"))
    assert code == 0 and re.search(
        r'source bad = csv\("[^"]*bad.csv", encoding = "latin-1", schema = "id integer, name string"\)', out
    )
    assert "length(name) = 4 as `name is 4 characters long`" in out  # 'café', four characters as Latin-1 reads it
    code, out, err = _cli(capsys, f'csv("{tmp_path / "bad.csv"}", encoding = "utf-8")')
    assert (code, out) == (3, "")
    assert "SOURCE_UNREADABLE" in err and "byte 13: 0xE9 is not UTF-8" in err and 'encoding = "latin-1"' in err


def test_sources_it_cannot_read(tmp_path: Path, capsys):
    code, _, err = _cli(capsys, str(tmp_path / "nosuch.csv"))
    assert code == 3 and "error SOURCE_NOT_FOUND: no file or folder" in err
    (tmp_path / "notes.txt").write_text("hello\n")
    code, _, err = _cli(capsys, str(tmp_path / "notes.txt"))
    assert code == 2 and "BAD_SOURCE" in err and "(.txt)" in err and 'csv("' in err
    code, _, err = _cli(capsys, 'csv("x.csv", delimiter = )')
    assert code == 2 and "SOURCE:2:26: error SYNTAX_ERROR" in err


def test_a_griffin_connector_that_prepares_its_rows_is_refused(tmp_path: Path, capsys):
    job = json.loads((ROOT / "examples/griffin/accuracy.json").read_text())
    job["data.sources"][0]["connector"]["config"]["file.name"] = str(ROOT / "examples/data/users_info_src.avro")
    job["data.sources"][0]["connector"]["pre.proc"] = [{"dsl.type": "spark-sql", "rule": "select * from this"}]
    job["data.sources"] = job["data.sources"][:1]
    (tmp_path / "job.json").write_text(json.dumps(job))
    code, _, err = _cli(capsys, str(tmp_path / "job.json"))
    assert code == 2 and "BAD_SOURCE" in err and "prepares its rows" in err


# --- every kind of source ---------------------------------------------------------------------


def test_a_griffin_jobs_connectors(tmp_path: Path, capsys):
    output = tmp_path / "s.dq"
    code, _, err = _cli(capsys, str(ROOT / "examples/griffin/accuracy.json"), "-o", str(output))
    assert code == 0, err
    text = output.read_text()
    relative = os.path.relpath(ROOT / "examples/data", tmp_path)
    assert f'source source = avro("{relative}/users_info_src.avro")' in text
    assert f'source target = avro("{relative}/users_info_target.avro")' in text
    _passes_on_its_data(output)


def test_a_folder_a_sqlite_table_and_a_duckdb_table(tmp_path: Path, capsys):
    (tmp_path / "lake").mkdir()
    pq.write_table(pa.table({"id": [1, 2]}), tmp_path / "lake" / "part-0.parquet")
    pq.write_table(pa.table({"id": [3, 4]}), tmp_path / "lake" / "part-1.parquet")
    (tmp_path / "lake" / "_SUCCESS").write_text("")
    with sqlite3.connect(tmp_path / "shop.db") as db:
        db.execute("create table orders (id integer, country text)")
        db.executemany("insert into orders values (?, ?)", [(1, "FR"), (2, "FR"), (3, "US"), (4, "US")])
    with duckdb.connect(str(tmp_path / "w.duckdb")) as db:
        db.execute("create table items as select * from (values (1, 'a'), (2, 'b')) t(n, s)")
    output = tmp_path / "s.dq"
    sources = [str(tmp_path / "lake"), f'sqlite("{tmp_path / "shop.db"}", table = "orders")', 'table("main.items")']
    code, _, err = _cli(capsys, *sources, "--database", str(tmp_path / "w.duckdb"), "-o", str(output))
    assert code == 0, err
    text = output.read_text()
    assert 'source lake = parquet("lake")' in text
    assert 'source orders = sqlite("shop.db", table = "orders")' in text
    assert 'source items = table("main.items")' in text
    assert (
        'validity orders_valid on orders:\n    id >= 0 as `id not negative`,\n    country in ("FR", "US") as `country is one of its 2 values`'
        in text
    )
    assert "validity lake_as_profiled on lake:\n    id between 1 and 4 as `id within 1 .. 4`" in text
    assert main(["run", str(output), "--no-history", "--database", str(tmp_path / "w.duckdb")]) == 0


def _airports(path: Path) -> None:
    """A SQLite file named .db, with two tables (one of an odd name) and a view."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("create table airports (iata text, country text, elevation_ft integer)")
        rows = [("CDG", "FR", 392), ("ORY", "FR", 291), ("JFK", "US", 13), ("LAX", "US", 128)]
        db.executemany("insert into airports values (?, ?, ?)", rows)
        db.execute('create table "run ways" (iata text, length_m integer)')
        db.executemany('insert into "run ways" values (?, ?)', [("CDG", 4215), ("CDG", 2700), ("JFK", 4423)])
        db.execute("create view high as select * from airports where elevation_ft > 100")
        db.commit()


def test_a_sqlite_file_is_recognized_and_each_table_profiled(tmp_path: Path, capsys, monkeypatch):
    _airports(tmp_path / "airports.db")
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, "airports.db", "-o", "s.dq")
    assert code == 0, err
    text = (tmp_path / "s.dq").read_text()
    # tables and views by name, each a source of its own
    assert 'source airports = sqlite("airports.db", table = "airports")' in text
    assert 'source high = sqlite("airports.db", table = "high")' in text
    assert 'source run_ways = sqlite("airports.db", table = "run ways")' in text
    assert "# ---- airports: 4 rows, 3 columns" in text and "# ---- run_ways: 3 rows, 2 columns" in text
    # ORY 291, LAX 128, CDG 392 are above 100
    assert "# ---- high: 3 rows, 3 columns" in text
    assert '    country in ("FR", "US") as `country is one of its 2 values`' in text
    _passes_on_its_data(tmp_path / "s.dq")


def test_a_duckdb_file_is_recognized_and_read_through_database(tmp_path: Path, capsys, monkeypatch):
    with duckdb.connect(str(tmp_path / "w.db")) as db:
        db.execute("create table items as select * from (values (1, 'a'), (2, 'b'), (3, 'b')) t(n, s)")
        db.execute('create schema ops; create table ops."odd.name" as select 7 as k')
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, "w.db", "-o", "s.dq")
    assert code == 0, err
    assert "run it with gryph run s.dq --database w.db" in err
    text = (tmp_path / "s.dq").read_text()
    assert "# Run it:   gryph run s.dq --database w.db" in text
    assert 'source items = table("main.items")' in text
    assert 'source odd_name = table("ops.\\"odd.name\\"")' in text
    assert "# ---- items: 3 rows, 2 columns" in text and "# ---- odd_name: 1 row, 1 column" in text
    assert main(["run", "s.dq", "--no-history", "--database", "w.db"]) == 0


def test_a_database_file_it_cannot_suggest_from(tmp_path: Path, capsys):
    with contextlib.closing(sqlite3.connect(tmp_path / "empty.db")) as db:
        db.execute("create table t (a)")
        db.execute("drop table t")
    code, _, err = _cli(capsys, str(tmp_path / "empty.db"))
    assert code == 2 and "error BAD_SOURCE" in err and "the sqlite database has no tables" in err
    with duckdb.connect(str(tmp_path / "w.duckdb")) as db:
        db.execute("create table t as select 1 as a")
    code, _, err = _cli(capsys, str(tmp_path / "w.duckdb"), "--remote", "sc://127.0.0.1:1")
    assert code == 2 and "is a DuckDB database file: its tables are read by the duckdb engine" in err
    (tmp_path / "x.db").write_text("id\n1\n")  # neither: told by neither its name nor its contents
    code, _, err = _cli(capsys, str(tmp_path / "x.db"))
    assert code == 2 and "cannot tell its format from its file names (.db)" in err


# --- golden suggestions for bundled datasets ---------------------------------------------------


@pytest.mark.parametrize("dataset", ["users.csv", "orders.jsonl", "order_items.csv", "users_copy.parquet"])
def test_golden_suggestions(dataset: str):
    """The suggestion for a bundled dataset, as if kept in examples/ (GRYPH_UPDATE_GOLDEN=1 writes
    them anew: review the diff by hand)."""
    text = suggest([f"examples/data/{dataset}"], output="examples/suggested.dq", now=NOW, cwd=ROOT)
    golden = GOLDEN / (dataset.split(".")[0] + ".dq")
    if os.environ.get("GRYPH_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
