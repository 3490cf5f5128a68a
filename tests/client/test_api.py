"""The Python API over in-memory frames: Polars, pandas and Arrow give the same metrics."""

from __future__ import annotations

import math

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from gryph.client import RunResult, explain, run, validate
from gryph.compiler.errors import InvalidInput

SUITE = """
completeness c on people: name, age
distinctness d on people: name with duplication.array = "dup"
profiling p on people: count(*) as n, max(age) as oldest, count(distinct name) as names
accuracy a on people, ref: people.name = ref.name
"""

EXPECTED = {
    "c": {"total": 5, "incomplete": 2, "complete": 3},
    "d": {"total": 5, "distinct": 4, "dup": [{"dup": 1, "num": 1}]},
    "p": [{"n": 5, "oldest": 41, "names": 3}],
    "a": {"total": 5, "miss": 1, "matched": 4, "matchedFraction": 0.8},
}
# c: (NULL, 30) and ('eve', NULL) are incomplete; d: groups ann x2, bob, NULL, eve;
# p: names ann, bob, eve; a: 'bob' is not in ref, NULL matches ref's '' (coalesce)


def people_rows():
    return {"name": ["ann", "ann", "bob", None, "eve"], "age": [30, 41, 25, 30, None]}


def ref_rows():
    return {"name": ["ann", "", "eve"]}


def test_polars_frames():
    result = run(
        SUITE,
        frames={
            "people": pl.DataFrame(people_rows(), schema={"name": pl.Utf8, "age": pl.Int64}),
            "ref": pl.DataFrame(ref_rows()),
        },
    )
    assert isinstance(result, RunResult)
    assert result.metrics == EXPECTED
    assert result.records["c"]["count"] == 2


def test_pandas_frames():
    people = pd.DataFrame(people_rows()).astype({"age": "Int64"})
    result = run(SUITE, frames={"people": people, "ref": pd.DataFrame(ref_rows())})
    assert result.metrics == EXPECTED


def test_arrow_frames():
    people = pa.table(
        {"name": pa.array(people_rows()["name"], pa.string()), "age": pa.array(people_rows()["age"], pa.int64())}
    )
    result = run(SUITE, "duckdb", frames={"people": people, "ref": pa.table(ref_rows())})
    assert result.metrics == EXPECTED
    assert result.to_dict()["metrics"] == EXPECTED


def test_pandas_float_nan_is_null_after_conversion():
    # pandas stores a missing float as NaN; Arrow's from_pandas turns it into NULL
    frame = pd.DataFrame({"x": [1.0, math.nan, 2.0]})
    result = run("completeness c on t: x", frames={"t": frame})
    assert result.metrics["c"] == {"total": 3, "incomplete": 1, "complete": 2}


def test_frames_replace_declared_sources():
    text = 'source t = csv("nowhere.csv", schema = "x bigint")\ncompleteness c on t: x\n'
    result = run(text, frames={"t": pa.table({"x": pa.array([1, None], pa.int64())})})
    assert result.metrics["c"]["incomplete"] == 1


def test_validate_and_explain_do_not_need_data_rows():
    frames = {"t": pa.table({"x": pa.array([], pa.int64())})}
    compiled = validate("completeness c on t: x", frames=frames)
    assert [r.name for r in compiled.suite.rules] == ["c"]
    assert "Read t [x]" in explain("completeness c on t: x", frames=frames)


def test_errors_come_back_as_gryph_errors():
    with pytest.raises(InvalidInput) as info:
        run("completeness c on t: agee", frames={"t": pa.table({"age": [1]})})
    assert info.value.code == "UNKNOWN_COLUMN" and "did you mean 'age'" in info.value.hint


def test_unsupported_frame_type():
    with pytest.raises(InvalidInput) as info:
        run("completeness c on t: x", frames={"t": [1, 2, 3]})
    assert info.value.code == "BAD_FRAME"


def test_a_long_one_line_suite_is_text_not_a_path():
    import pyarrow as pa

    from gryph.client import run

    names = ", ".join(f"c{i}" for i in range(60))  # a line far longer than a file name may be
    table = pa.table({f"c{i}": pa.array([1, None], pa.int64()) for i in range(60)})
    result = run(f"completeness wide on t: {names}", frames={"t": table})
    assert result.metrics["wide"] == {"total": 2, "incomplete": 1, "complete": 1}
