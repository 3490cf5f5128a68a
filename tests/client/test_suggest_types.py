"""``gryph suggest`` writes a text file's types into its declaration and finds its null marker:
penguins.csv as R exports it (every numeric column holds ``NA``), and small files written here."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gryph.client import run
from gryph.client.run.engines import open_engine
from gryph.client.suggestions import suggest

PENGUINS = Path(__file__).resolve().parents[1] / "data" / "penguins" / "penguins.csv"
# the columns as R wrote them, with NA read as no value: measurements with a fraction are doubles,
# whole ones integers (tests/data/penguins/README.md)
PENGUIN_TYPES = (
    "species string, island string, bill_length_mm double, bill_depth_mm double, "
    "flipper_length_mm integer, body_mass_g integer, sex string, year integer"
)


def _declaration(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("source "))


def _suggested(tmp_path: Path, csv: Path, engine="duckdb") -> tuple[str, Path]:
    suite = tmp_path / "suite.dq"
    text = suggest([str(csv)], engine, output=suite)
    suite.write_text(text, encoding="utf-8")
    return text, suite


def test_penguins_get_their_null_marker_and_numeric_columns(tmp_path):
    text, suite = _suggested(tmp_path, PENGUINS)
    where = Path(os.path.relpath(PENGUINS, tmp_path)).as_posix()
    assert _declaration(text) == f'source penguins = csv("{where}", nullValue = "NA", schema = "{PENGUIN_TYPES}")'
    # numbers are profiled as numbers: 2 of 344 bill lengths are NA, the rest 32.1 .. 59.6
    assert "# bill_length_mm (double): 342 of 344 filled, 164 distinct, 32.1 .. 59.6" in text
    assert not re.search(r"# (bill|flipper|body)\w+ \(string\)", text)
    result = run(suite)
    assert result.passed and not result.malformed_values


@pytest.mark.spark
def test_penguins_suggested_on_spark_read_alike(spark_remote, tmp_path):
    engine = open_engine("spark", spark_remote)
    try:
        text, suite = _suggested(tmp_path, PENGUINS, engine)
        assert 'nullValue = "NA"' in _declaration(text) and f'schema = "{PENGUIN_TYPES}"' in _declaration(text)
        result = run(suite, engine)
        assert result.passed and not result.malformed_values
    finally:
        engine.close()


@pytest.mark.parametrize("marker", ["NA", "N/A", "n/a", "NULL", "null", "-"])
def test_each_null_marker_among_numbers_is_found(tmp_path, marker):
    csv = tmp_path / "d.csv"
    csv.write_text(f"id,amount,when\n1,2.5,2024-01-02\n2,{marker},{marker}\n3,{marker},2024-01-04\n", encoding="utf-8")
    text, _ = _suggested(tmp_path, csv)
    assert _declaration(text) == (
        f'source d = csv("d.csv", nullValue = "{marker}", schema = "id integer, amount double, when date")'
    )


# 'NA' among amounts, 'n/a' and '-' among counts and days; names are words, no evidence
SEVERAL = "name,amount,n,day\nann,1.5,n/a,2024-01-02\nbob,NA,2,-\ncid,3,-,2024-01-04\n"
SEVERAL_DECLARED = 'source d = csv("d.csv", nullValue = ["NA", "n/a", "-"], schema = "name string, amount double, n integer, day date")'


def test_several_markers_are_found_and_declared_with_the_types_they_hide(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text(SEVERAL, encoding="utf-8")
    text, suite = _suggested(tmp_path, csv)
    assert _declaration(text) == SEVERAL_DECLARED
    result = run(suite)
    assert result.passed and not result.malformed_values


@pytest.mark.spark
def test_several_markers_suggested_on_spark_alike(spark_remote, tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text(SEVERAL, encoding="utf-8")
    engine = open_engine("spark", spark_remote)
    try:
        text, suite = _suggested(tmp_path, csv, engine)
        assert _declaration(text) == SEVERAL_DECLARED
        result = run(suite, engine)
        assert result.passed and not result.malformed_values
    finally:
        engine.close()


def test_no_marker_when_a_column_of_numbers_holds_words(tmp_path):
    csv = tmp_path / "d.csv"
    # 'NA' among amounts, but 'none' beside 'n/a' among counts: no evidence of what is no value
    csv.write_text("name,amount,n\nann,1.5,n/a\nbob,NA,2\ncid,2,none\n", encoding="utf-8")
    text, _ = _suggested(tmp_path, csv)
    assert _declaration(text) == 'source d = csv("d.csv", schema = "name string, amount string, n string")'


def test_a_marker_given_is_kept(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("a,b\n1,?\n2,3\n", encoding="utf-8")
    suite = tmp_path / "suite.dq"
    text = suggest([f'csv("{csv}", nullValue = "?")'], output=suite)
    assert _declaration(text) == 'source d = csv("d.csv", nullValue = "?", schema = "a integer, b integer")'


def test_names_with_blanks_commas_and_back_quotes_are_declared_back_quoted(tmp_path):
    """penguins-raw.csv names its columns `Sample Number`, `Culmen Length (mm)`: the declared
    schema quotes such names as the suite language does, and the suite reads them back."""
    csv = tmp_path / "odd.csv"
    csv.write_text('"a b","x,y","q`r",n\nu,v,w,1\ns,t,o,2\n', encoding="utf-8")
    text, suite = _suggested(tmp_path, csv)
    assert (
        _declaration(text)
        == 'source odd = csv("odd.csv", schema = "`a b` string, `x,y` string, `q``r` string, n integer")'
    )
    result = run(suite)
    assert result.passed and result.to_dict()["metrics"]["odd_complete"]["total"] == 2  # both rows read


@pytest.mark.parametrize(
    ("schema", "columns"),
    [
        ("id bigint, amount decimal(10,2)", [("id", "integer"), ("amount", "decimal(10, 2)")]),
        (" `a b`  string ,n integer ", [("a b", "string"), ("n", "integer")]),
        ("`x,y` double,`q``r` string", [("x,y", "double"), ("q`r", "string")]),
    ],
)
def test_a_declared_schema_reads_back_quoted_names(schema, columns):
    from gryph.compiler.sources.declared_schemas import parse_schema

    assert [(c.name, str(c.dtype)) for c in parse_schema(schema).columns] == columns


@pytest.mark.parametrize("schema", ["id", "id bigint,", "`a b`", "id bigint,, n integer", "`open string"])
def test_a_schema_column_without_a_name_and_a_type_is_bad_schema(schema):
    from gryph.compiler.errors import InvalidInput
    from gryph.compiler.sources.declared_schemas import parse_schema

    with pytest.raises(InvalidInput) as raised:
        parse_schema(schema)
    assert raised.value.code == "BAD_SCHEMA"
