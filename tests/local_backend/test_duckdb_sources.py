"""Loading sources into DuckDB: every file format, catalog tables, frames, schemas and errors."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path

import duckdb
import fastavro
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.orc
import pyarrow.parquet as pq
import pytest

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.plan import Plan, Query, Read
from gryph.compiler.plan.data_types import (
    BINARY,
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    OTHER,
    STRING,
    TIMESTAMP,
    array,
    decimal,
    map_of,
    schema,
    struct,
)
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine

# Apache Griffin test data, copied into the repository (tests/data/griffin/README.md says from where)
GRIFFIN = Path(__file__).resolve().parents[1] / "data" / "griffin"
PEOPLE = [{"name": "Joey", "age": 14}, {"name": "Ivan", "age": 32}]


def load(engine, spec: SourceSpec) -> list[dict]:
    """All rows of a source, through a plan that reads it."""
    read = Read(spec.name, engine.schema_of(spec))
    return engine.run(Plan((), (Query("q", read),)), {spec.name: spec})["q"]


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- csv and tsv -------------------------------------------------------------------------------


def test_csv_with_header(engine, tmp_path):
    spec = SourceSpec("people", "csv", paths=(write(tmp_path / "p.csv", "name,age\nJoey,14\nIvan,32\n"),))
    assert engine.schema_of(spec) == schema(("name", STRING), ("age", INTEGER))
    assert load(engine, spec) == PEOPLE


MULTI_LINE = 'id,note\n1,"two\nlines"\n2,one\n'


def test_a_quoted_line_break_told_multiline_false_is_refused_with_its_reason(engine, tmp_path):
    """gryph finds quoted line breaks in a file's first MiB; told there are none (or holding one
    further on), the file is refused, not split inside its field."""
    spec = SourceSpec("m", "csv", paths=(write(tmp_path / "m.csv", MULTI_LINE),), options=(("multiLine", "false"),))
    with pytest.raises(EngineError) as err:
        load(engine, spec)
    assert err.value.code == "SOURCE_UNREADABLE" and "quoted field holds a line break" in err.value.message
    assert "multiLine = true" in err.value.hint


def test_multiline_csv_reads_a_quoted_line_break_as_part_of_its_field(engine, tmp_path):
    """Two records, the first over two lines (as Spark reads it with multiLine), whether the
    source says multiLine or gryph finds the quoted line break."""
    path = write(tmp_path / "m.csv", MULTI_LINE)
    for options in ((("multiLine", True),), ()):
        spec = SourceSpec("m", "csv", paths=(path,), options=options)
        assert load(engine, spec) == [{"id": 1, "note": "two\nlines"}, {"id": 2, "note": "one"}]


def test_inferred_csv_types_follow_the_file_as_it_changes(engine, tmp_path):
    """The inferred types are remembered between reads, and read again once the file changes."""
    path = write(tmp_path / "p.csv", "name,age\nJoey,14\n")
    spec = SourceSpec("people", "csv", paths=(path,))
    assert engine.schema_of(spec) == schema(("name", STRING), ("age", INTEGER))
    write(tmp_path / "p.csv", "name,age\nJoey,fourteen\n")
    assert engine.schema_of(spec) == schema(("name", STRING), ("age", STRING))
    assert load(engine, spec) == [{"name": "Joey", "age": "fourteen"}]


def test_the_header_follows_the_file_as_it_changes(engine, tmp_path):
    """The header's columns are remembered between reads (a stream reads a static csv for every
    batch), and read again once the file changes: a column added, a short header."""
    path = write(tmp_path / "p.csv", "name,age\nJoey,14\n")
    spec = SourceSpec("people", "csv", paths=(path,))
    assert load(engine, spec) == [{"name": "Joey", "age": 14}]
    write(tmp_path / "p.csv", "name,age,city\nJoey,14,Köln\n")
    assert load(engine, spec) == [{"name": "Joey", "age": 14, "city": "Köln"}]
    write(tmp_path / "p.csv", "name\nJoey,14\n")  # Spark drops the fields beyond the header's
    assert load(engine, spec) == [{"name": "Joey"}]


def test_a_header_spark_names_two_columns_alike_is_refused(engine, tmp_path):
    """Spark names a, a, a1 a0, a1, a1 and refuses to read the file (COLUMN_ALREADY_EXISTS, in any
    case): so does DuckDB, saying how to read it; a declared schema names the columns by position."""
    path = write(tmp_path / "p.csv", "a,A,a1\n1,2,3\n")
    with pytest.raises(EngineError) as err:
        load(engine, SourceSpec("p", "csv", paths=(path,)))
    assert err.value.code == "SOURCE_UNREADABLE"
    assert "its header gives two columns the name 'a1', as Spark names a header's columns" in err.value.message
    assert err.value.hint == 'declare its columns, which then name them by position: schema = "id bigint, ..."'
    declared = schema(("x", INTEGER), ("y", INTEGER), ("z", INTEGER))
    assert load(engine, SourceSpec("p", "csv", paths=(path,), schema=declared)) == [{"x": 1, "y": 2, "z": 3}]


def test_headerless_csv_takes_names_and_types_from_the_declared_schema(engine, tmp_path):
    path = write(tmp_path / "p.csv", "Joey,014\nIvan,32\n")
    declared = schema(("name", STRING), ("code", STRING))
    spec = SourceSpec("people", "csv", paths=(path,), options=(("header", "false"),), schema=declared)
    assert engine.schema_of(spec) == declared
    assert load(engine, spec) == [{"name": "Joey", "code": "014"}, {"name": "Ivan", "code": "32"}]


def test_declared_schema_replaces_the_header_names(engine, tmp_path):
    path = write(tmp_path / "p.csv", "name,age\nJoey,14\n")
    spec = SourceSpec("people", "csv", paths=(path,), schema=schema(("who", STRING), ("years", DOUBLE)))
    assert load(engine, spec) == [{"who": "Joey", "years": 14.0}]


def test_headerless_csv_without_a_schema_uses_spark_column_names(engine, tmp_path):
    path = write(tmp_path / "p.csv", "Joey,14\nIvan,32\n")
    spec = SourceSpec("people", "csv", paths=(path,), options=(("header", False),))
    assert load(engine, spec) == [{"_c0": "Joey", "_c1": 14}, {"_c0": "Ivan", "_c1": 32}]


def test_csv_options(engine, tmp_path):
    path = write(tmp_path / "p.csv", "name;note\n'Jo;ey';NA\nIvan;'it''s'\n")
    options = (("sep", ";"), ("quote", "'"), ("escape", "'"), ("nullValue", "NA"))
    spec = SourceSpec("people", "csv", paths=(path,), options=options)
    assert load(engine, spec) == [{"name": "Jo;ey", "note": None}, {"name": "Ivan", "note": "it's"}]


def test_csv_infer_schema_false_reads_strings(engine, tmp_path):
    path = write(tmp_path / "p.csv", "name,age\nJoey,14\n")
    spec = SourceSpec("people", "csv", paths=(path,), options=(("inferSchema", "false"),))
    assert load(engine, spec) == [{"name": "Joey", "age": "14"}]


def test_csv_bad_option_value(engine, tmp_path):
    path = write(tmp_path / "p.csv", "a\n1\n")
    with pytest.raises(InvalidInput) as err:
        engine.schema_of(SourceSpec("s", "csv", paths=(path,), options=(("header", "maybe"),)))
    assert err.value.code == "SOURCE_BAD_OPTION"


def test_tsv_and_unicode(engine, tmp_path):
    path = write(tmp_path / "p.tsv", "name\tcity\nJoëy\tZürich, CH\n")
    assert load(engine, SourceSpec("people", "tsv", paths=(path,))) == [{"name": "Joëy", "city": "Zürich, CH"}]


def test_several_files_globs_and_spark_directories(engine, tmp_path):
    folder = tmp_path / "people.csv"
    folder.mkdir()
    write(folder / "part-00000.csv", "name,age\nJoey,14\n")
    write(folder / "part-00001.csv", "name,age\nIvan,32\n")
    write(folder / "_SUCCESS", "")
    write(folder / ".part-00000.csv.crc", "junk")
    for paths in [
        (str(folder),),
        (str(folder / "part-*.csv"),),
        (str(folder / "part-00000.csv"), str(folder / "part-00001.csv")),
    ]:
        assert load(engine, SourceSpec("people", "csv", paths=paths)) == PEOPLE


# --- parquet, json, orc, avro ------------------------------------------------------------------


def test_parquet_and_declared_types(engine, tmp_path):
    pq.write_table(pa.table({"name": ["Joey"], "age": pa.array([14], pa.int32())}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"name": ["Ivan"], "age": pa.array([32], pa.int32())}), tmp_path / "b.parquet")
    spec = SourceSpec("people", "parquet", paths=(str(tmp_path / "*.parquet"),))
    assert engine.schema_of(spec) == schema(("name", STRING), ("age", INTEGER))
    assert load(engine, spec) == PEOPLE
    declared = SourceSpec("people", "parquet", paths=(str(tmp_path / "a.parquet"),), schema=schema(("age", STRING)))
    assert load(engine, declared) == [{"age": "14"}]


# DuckDB's plain forms over the file, each of which it got wrong before the scan said can_have_nan
NAN_FORMS = {
    "SELECT count(*) FROM {r} WHERE isnan(x)": 1,
    "SELECT count(*) FROM {r} WHERE x > 2.0": 1,
    "SELECT count(*) FROM {r} WHERE x = 'NaN'::DOUBLE": 1,
    "SELECT sum(CASE WHEN isnan(x) THEN 1 ELSE 0 END) FROM {r}": 1,
    "SELECT isnan(max(x)) FROM {r}": True,
}


def test_nan_outside_a_parquet_footers_min_max_is_read(tmp_path):
    """pyarrow's footer says min 1.0, max 2.0 for [1.0, NaN, 2.0] (the spec leaves NaN out):
    DuckDB must neither prune the NaN row nor answer max(x) from the footer (duckdb/duckdb#25521)."""
    from gryph.local_backend.sources.source_views import located_parquet, register_source

    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"x": pa.array([1.0, float("nan"), 2.0], pa.float64())}), path)
    footer = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert (footer.min, footer.max) == (1.0, 2.0)  # the case this test is about
    spec = SourceSpec("t", "parquet", paths=(str(path),))
    con = duckdb.connect()
    register_source(con, spec, "t")
    located = located_parquet(con, spec, "f", "row")
    assert located is not None
    for relation in ("t", located):
        for query, expected in NAN_FORMS.items():
            assert con.execute(query.format(r=relation)).fetchone()[0] == expected, (relation, query)


def test_a_parquet_columns_min_and_max_are_its_values_with_or_without_nan(tmp_path):
    """The scan's can_have_nan makes DuckDB take a column's footer max as NaN, and it answered
    max(x) from that alone: NaN for a column holding 1.0 and 10.0. By hand: max 10.0 and min 1.0;
    with a NaN beside them, max NaN (NaN is above every number) and min 1.0."""
    from gryph.client import run

    pq.write_table(pa.table({"x": pa.array([1.0, 10.0], pa.float64())}), tmp_path / "plain.parquet")
    pq.write_table(pa.table({"x": pa.array([1.0, float("nan"), 10.0], pa.float64())}), tmp_path / "nan.parquet")
    for name in ("plain", "nan"):
        (tmp_path / f"{name}.dq").write_text(
            f'source t = parquet("{tmp_path / name}.parquet")\n'
            "measure top: select max(x) from t\nmeasure bottom: select min(x) from t\n"
            "measure both: select max(x), count(*) from t\n"
        )
    plain = run(str(tmp_path / "plain.dq")).measures
    assert (plain["top"], plain["bottom"], plain["both"]) == (10.0, 1.0, {"max(x)": 10.0, "count(*)": 2})
    with_nan = run(str(tmp_path / "nan.dq")).measures
    assert math.isnan(with_nan["top"]) and with_nan["bottom"] == 1.0


def test_json_lines_and_json_array(engine, tmp_path):
    lines = write(tmp_path / "p.jsonl", "\n".join(json.dumps(p) for p in PEOPLE) + "\n")
    whole = write(tmp_path / "p.json", json.dumps(PEOPLE))
    for path in (lines, whole):
        spec = SourceSpec("people", "json", paths=(path,))
        # fields in name order, as Spark infers a JSON schema
        assert engine.schema_of(spec) == schema(("age", INTEGER), ("name", STRING))
        assert load(engine, spec) == PEOPLE


def test_orc(engine, tmp_path):
    pyarrow.orc.write_table(pa.table({"name": ["Joey", "Ivan"], "age": [14, 32]}), str(tmp_path / "p.orc"))
    assert load(engine, SourceSpec("people", "orc", paths=(str(tmp_path / "p.orc"),))) == PEOPLE


def test_avro_written_with_fastavro(engine, tmp_path):
    avro_schema = {
        "type": "record",
        "name": "person",
        "fields": [
            {"name": "name", "type": "string"},
            {"name": "age", "type": ["null", "long"]},
            {"name": "score", "type": "double"},
        ],
    }
    records = [{"name": "Jöey", "age": 14, "score": float("nan")}, {"name": "Ivan", "age": None, "score": 1.5}]
    with open(tmp_path / "p.avro", "wb") as out:
        fastavro.writer(out, fastavro.parse_schema(avro_schema), records)
    spec = SourceSpec("people", "avro", paths=(str(tmp_path / "p.avro"),))
    assert engine.schema_of(spec) == schema(("name", STRING), ("age", INTEGER), ("score", DOUBLE))
    rows = load(engine, spec)
    assert rows[1] == {"name": "Ivan", "age": None, "score": 1.5}
    assert rows[0]["name"] == "Jöey" and rows[0]["score"] != rows[0]["score"]


def test_griffin_person_table_in_every_format(engine):
    for fmt, name in [
        ("csv", "files_person_table.csv"),
        ("tsv", "files_person_table.tsv"),
        ("parquet", "files_person_table.snappy.parquet"),
        ("orc", "files_person_table.snappy.orc"),
    ]:
        assert load(engine, SourceSpec("person", fmt, paths=(str(GRIFFIN / name),))) == PEOPLE, fmt


def test_griffin_users_avro(engine):
    spec = SourceSpec("src", "avro", paths=(str(GRIFFIN / "users_info_src.avro"),))
    names = [f["name"] for f in json.loads((GRIFFIN / "users_info_src.avsc.json").read_text())["fields"]]
    assert engine.schema_of(spec) == schema(("user_id", INTEGER), *((n, STRING) for n in names[1:]))
    rows = load(engine, spec)
    assert len(rows) == 50
    assert [r["user_id"] for r in rows].count(10050) == 2 and 10049 not in {r["user_id"] for r in rows}
    assert [r["user_id"] for r in rows if r["post_code"] is None] == [10042]
    assert rows[0] == {
        "user_id": 10001,
        "first_name": "Tom001",
        "last_name": "Jerrya",
        "address": "201 DisneyCity",
        "email": "tomajerrya001@dc.org",
        "phone": "10000001",
        "post_code": "94022",
    }


def test_griffin_users_csv_with_declared_schema_matches_the_avro(engine):
    declared = schema(
        ("user_id", INTEGER),
        ("first_name", STRING),
        ("last_name", STRING),
        ("address", STRING),
        ("email", STRING),
        ("phone", STRING),
        ("post_code", STRING),
    )
    csv = SourceSpec("src", "csv", paths=(str(GRIFFIN / "users_info_src.from_avro.csv"),), schema=declared)
    avro = SourceSpec("src", "avro", paths=(str(GRIFFIN / "users_info_src.avro"),))
    assert engine.schema_of(csv) == declared
    rows = load(engine, csv)
    assert rows[0]["phone"] == "10000001" and rows[0]["post_code"] == "94022"
    assert rows == load(engine, avro)


# --- catalog tables ----------------------------------------------------------------------------


@pytest.fixture
def database(tmp_path) -> str:
    path = str(tmp_path / "warehouse.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE users (id BIGINT, name VARCHAR)")
    con.execute("INSERT INTO users VALUES (1, 'Ann'), (2, NULL)")
    con.execute('CREATE SCHEMA "sales dept"')
    con.execute('CREATE TABLE "sales dept"."order.s" (total DECIMAL(10, 2))')
    con.execute('INSERT INTO "sales dept"."order.s" VALUES (12.50)')
    con.execute("CREATE VIEW named AS SELECT name FROM users WHERE name IS NOT NULL")
    con.close()
    return path


@pytest.mark.parametrize("table", ["users", "main.users", "warehouse.main.users", "WAREHOUSE.MAIN.USERS"])
def test_table_of_a_database_file(database, table):
    engine = DuckDBEngine(database)
    try:
        # the source's view bears the table's own name: it must still read the table, not itself
        assert load(engine, SourceSpec("users", "table", table=table)) == [
            {"id": 1, "name": "Ann"},
            {"id": 2, "name": None},
        ]
    finally:
        engine.close()


def test_quoted_table_names_views_and_a_callers_connection(database):
    con = duckdb.connect(database)
    engine = DuckDBEngine(con)
    spec = SourceSpec("orders", "table", table='"sales dept"."order.s"')
    assert engine.schema_of(spec) == schema(("total", decimal(10, 2)))
    assert load(engine, spec) == [{"total": 12.5}]
    assert load(engine, SourceSpec("n", "table", table="named")) == [{"name": "Ann"}]
    engine.close()
    assert con.execute("SELECT count(*) FROM users").fetchone() == (2,)
    con.close()


def test_unknown_table(database):
    engine = DuckDBEngine(database)
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("u", "table", table="main.usres"))
    engine.close()
    assert err.value.code == "SOURCE_NOT_FOUND" and "main.usres" in err.value.message
    assert "users" in err.value.hint


def test_a_table_asked_of_no_database_file_names_the_option_that_gives_one(tmp_path):
    # a suite `gryph suggest shop.duckdb` wrote, run without --database: an empty in-memory database
    engine = DuckDBEngine()
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("o", "table", table="main.orders"))
    engine.close()
    assert err.value.code == "SOURCE_NOT_FOUND"
    assert err.value.hint == "give the DuckDB file that holds it: gryph run SUITE --database FILE.duckdb"


def test_bad_table_name(engine):
    with pytest.raises(InvalidInput):
        engine.schema_of(SourceSpec("u", "table", table="a.b.c.d"))


# --- frames ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: pa.table({"name": ["Joey", "Ivan"], "age": [14, 32]}),
        lambda: pl.DataFrame({"name": ["Joey", "Ivan"], "age": [14, 32]}),
        lambda: pl.LazyFrame({"name": ["Joey", "Ivan"], "age": [14, 32]}),
        lambda: pd.DataFrame({"name": ["Joey", "Ivan"], "age": [14, 32]}, index=[7, 8]),
    ],
)
def test_frames_of_every_kind(engine, make):
    assert load(engine, SourceSpec("people", "frame", frame=make())) == PEOPLE


def test_frame_types_map_to_logical_types(engine):
    frame = pa.table(
        {
            "i8": pa.array([1], pa.int8()),
            "u64": pa.array([1], pa.uint64()),
            "f32": pa.array([1.5], pa.float32()),
            "dec": pa.array([Decimal("1.25")], pa.decimal128(5, 2)),
            "s": pa.array(["a"], pa.large_string()),
            "d": pa.array([dt.date(2020, 1, 1)]),
            "ts": pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("ns")),
            "tz": pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("s", tz="UTC")),
            "b": [True],
            "bin": pa.array([b"\x01"], pa.binary()),
            "xs": pa.array([[1]], pa.list_(pa.int16())),
            "st": pa.array([{"k": "v"}]),
            "m": pa.array([[("k", 1.0)]], pa.map_(pa.string(), pa.float64())),
            "t": pa.array([dt.time(1, 2)], pa.time64("us")),
        }
    )
    assert engine.schema_of(SourceSpec("f", "frame", frame=frame)) == schema(
        ("i8", INTEGER),
        ("u64", INTEGER),
        ("f32", DOUBLE),
        ("dec", decimal(5, 2)),
        ("s", STRING),
        ("d", DATE),
        ("ts", TIMESTAMP),
        ("tz", TIMESTAMP),
        ("b", BOOLEAN),
        ("bin", BINARY),
        ("xs", array(INTEGER)),
        ("st", struct((("k", STRING),))),
        ("m", map_of(STRING, DOUBLE)),
        ("t", OTHER),
    )
    (row,) = load(engine, SourceSpec("f", "frame", frame=frame))
    assert row["tz"] == "2020-01-01 00:00:00" and row["bin"] == "01" and row["m"] == {"k": 1.0}


def test_a_frame_that_is_not_a_table(engine):
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("f", "frame", frame=42))
    assert err.value.code == "SOURCE_UNREADABLE"


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "json", "orc", "avro"])
def test_missing_file_names_the_source_and_path(engine, tmp_path, fmt):
    path = str(tmp_path / f"nowhere.{fmt}")
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("lost", fmt, paths=(path,)))
    assert err.value.code == "SOURCE_NOT_FOUND"
    assert path in err.value.message and "lost" in err.value.message


def test_glob_matching_nothing(engine, tmp_path):
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("lost", "parquet", paths=(str(tmp_path / "*.parquet"),)))
    assert err.value.code == "SOURCE_NOT_FOUND"


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_unreadable_file(engine, tmp_path, fmt):
    path = write(tmp_path / f"broken.{fmt}", "this is not a data file")
    with pytest.raises(EngineError) as err:
        engine.schema_of(SourceSpec("broken", fmt, paths=(path,)))
    assert err.value.code == "SOURCE_UNREADABLE" and "broken" in err.value.message


def test_run_reports_a_missing_source_file(engine, tmp_path):
    path = str(tmp_path / "gone.csv")
    plan = Plan((), (Query("q", Read("s", schema(("a", STRING)))),))
    with pytest.raises(EngineError) as err:
        engine.run(plan, {"s": SourceSpec("s", "csv", paths=(path,))})
    assert path in str(err.value)


def test_declared_schema_with_an_unnameable_type(engine, tmp_path):
    path = write(tmp_path / "p.csv", "a\n1\n")
    with pytest.raises(InvalidInput):
        engine.schema_of(SourceSpec("s", "csv", paths=(path,), schema=schema(("a", OTHER))))


def test_csv_types_behind_a_url_are_inferred_without_looking_at_the_file_system(tmp_path):
    """A URL has no local size or time to tell a change: the types are inferred on every read."""
    from gryph.local_backend.sources.csv_inference import spark_typed

    path = write(tmp_path / "p.csv", "name,age\nJoey,14\n")
    relation = f"read_csv(['{path}'], all_varchar = true)"
    con = duckdb.connect()
    typed = spark_typed(con, relation, ["https://example.invalid/p.csv"])
    assert con.sql(f"SELECT * FROM {typed}").fetchall() == [("Joey", 14)]


def test_a_files_schema_is_learnt_once_while_the_file_is_unchanged(engine, tmp_path, monkeypatch):
    """A stream asks a static file's schema every batch: DuckDB binds the file once while its size
    and modification time stay, and again once it changed (or is gone: the usual error)."""
    calls = []
    real = engine._read_schema
    monkeypatch.setattr(engine, "_read_schema", lambda source: calls.append(source.name) or real(source))
    path = write(tmp_path / "ref.csv", "id,name\n1,ann\n")
    spec = SourceSpec("ref", "csv", paths=(path,))
    assert engine.schema_of(spec) == engine.schema_of(spec) == schema(("id", INTEGER), ("name", STRING))
    assert calls == ["ref"]
    assert engine.schema_of(SourceSpec("ref", "csv", paths=(path,), options=(("header", "false"),))) == schema(
        ("_c0", STRING), ("_c1", STRING)
    )  # other options: another schema, learnt apart
    assert calls == ["ref", "ref"]
    write(tmp_path / "ref.csv", "id,name,score\n1,ann,2.5\n")
    assert engine.schema_of(spec) == schema(("id", INTEGER), ("name", STRING), ("score", DOUBLE))
    assert calls == ["ref", "ref", "ref"]
    Path(path).unlink()
    with pytest.raises(EngineError) as err:
        engine.schema_of(spec)
    assert err.value.code == "SOURCE_NOT_FOUND"


def test_a_wide_csv_infers_every_column(engine, tmp_path):
    """3,000 columns: inference takes one query whatever the width, and each column its own type."""
    patterns = [
        (INTEGER, "7", "-3"),
        (DOUBLE, "1.5", "2"),
        (BOOLEAN, "true", "FALSE"),
        (DATE, "2024-01-05", "2024-02-29"),
        (STRING, "a", "1"),
        (STRING, "", ""),
    ]
    names = ["größe", 'say "hi"', "a b"] + [f"c{i}" for i in range(3, 3000)]
    quoted = ['"say ""hi"""' if '"' in name else name for name in names]
    rows = [[patterns[i % 6][r] for i in range(3000)] for r in (1, 2)]
    path = write(tmp_path / "wide.csv", "\n".join(",".join(row) for row in [quoted, *rows]) + "\n")
    inferred = engine.schema_of(SourceSpec("wide", "csv", paths=(path,)))
    assert inferred == schema(*((name, patterns[i % 6][0]) for i, name in enumerate(names)))
