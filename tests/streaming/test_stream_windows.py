"""Uniqueness and distinctness in a stream, on both engines: a batch's values counted against the
rows of the earlier batches inside the rule's window. The distinctness case is the example in
Griffin's own DistinctnessExpr2DQSteps.scala: new [A, A, B, B, C, D] against old [A, A, B, C]
gives dup A=2, B=2, C=1, D=0 and accu_dup A=3, B=2, C=1, D=0; only D is distinct."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gryph.client.streaming.stream_runner import stream

SUITE = """suite keys
source clicks = folder("incoming/", format = "json", schema = "k string", settle = "1ms")
uniqueness uniq on clicks: k with window = {window}
distinctness dist on clicks: k with window = {window}, duplication.array = "dups"
"""


def _arrive(folder: Path, name: str, keys: list[str | None], age_s: float) -> None:
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps({"k": k}) + "\n" for k in keys), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))


def _batch(folder: Path, engine: str, remote: str | None) -> dict:
    (result,) = stream(folder / "keys.dq", engine, remote=remote, once=True, state=folder / "state.duckdb")
    return result.to_dict()


@pytest.fixture(params=["duckdb", "spark"])
def engine(request) -> tuple[str, str | None]:
    remote = request.getfixturevalue("spark_remote") if request.param == "spark" else None
    return request.param, remote


def test_griffins_example_against_the_earlier_batch(tmp_path, engine):
    name, remote = engine
    (tmp_path / "incoming").mkdir()
    (tmp_path / "keys.dq").write_text(SUITE.format(window="1h"), encoding="utf-8")
    _arrive(tmp_path, "old.json", ["A", "A", "B", "C"], 60)
    first = _batch(tmp_path, name, remote)
    # alone: A twice, B and C once; three distinct values, B and C unique
    assert first["metrics"]["dist"] == {"total": 4, "distinct": 3, "dups": [{"dup": 1, "num": 1}]}
    assert first["metrics"]["uniq"] == {"total": 4, "unique": 2}
    _arrive(tmp_path, "new.json", ["A", "A", "B", "B", "C", "D"], 30)
    second = _batch(tmp_path, name, remote)
    assert second["metrics"]["dist"] == {
        "total": 6,
        "distinct": 1,  # D
        "dups": [{"dup": 1, "num": 1}, {"dup": 2, "num": 2}],  # C; A and B
    }
    records = sorted(second["records"]["dist"]["sample"], key=lambda r: r["k"])
    assert records == [
        {"k": "A", "dup": 2, "accu_dup": 3},
        {"k": "B", "dup": 2, "accu_dup": 2},
        {"k": "C", "dup": 1, "accu_dup": 1},
    ]
    # over old and new together: A 4 times, B 3, C 2, D once: only D is unique
    assert second["metrics"]["uniq"] == {"total": 6, "unique": 1}


def test_nulls_are_one_value_and_earlier_rows_beyond_the_window_are_not_counted(tmp_path):
    (tmp_path / "incoming").mkdir()
    (tmp_path / "keys.dq").write_text(SUITE.format(window="1ms"), encoding="utf-8")
    _arrive(tmp_path, "a.json", ["A", None], 60)
    _batch(tmp_path, "duckdb", None)
    time.sleep(0.01)  # the first batch is now outside the 1 ms window
    _arrive(tmp_path, "b.json", ["A", None, None], 30)
    second = _batch(tmp_path, "duckdb", None)
    # alone: A once, NULL twice (NULL is a value of its own, as GROUP BY has it)
    assert second["metrics"]["dist"] == {"total": 3, "distinct": 2, "dups": [{"dup": 1, "num": 1}]}
    assert second["metrics"]["uniq"] == {"total": 3, "unique": 1}
    kept = sorted(p.name for p in (tmp_path / "state.duckdb.pending" / "rows" / "clicks").iterdir())
    assert kept == ["batch-2.parquet"]  # the first batch's rows are read by no window any more


def test_a_window_that_is_not_a_time_is_a_located_error(tmp_path, capsys):
    from gryph.client.cli.main import main

    (tmp_path / "incoming").mkdir()
    (tmp_path / "keys.dq").write_text(SUITE.format(window="-5"), encoding="utf-8")
    assert main(["validate", str(tmp_path / "keys.dq")]) == 2
    assert "keys.dq:3:" in capsys.readouterr().err


def test_rows_no_window_reads_any_more_are_removed_on_both_engines(tmp_path, engine):
    """Spark keeps a batch's rows as a folder of parts (removing it as a file failed the batch
    after its commit, once the first batch fell out of the window)."""
    name, remote = engine
    (tmp_path / "incoming").mkdir()
    (tmp_path / "keys.dq").write_text(SUITE.format(window="1ms"), encoding="utf-8")
    _arrive(tmp_path, "a.json", ["A"], 60)
    _batch(tmp_path, name, remote)
    time.sleep(0.01)  # the first batch is now outside the 1 ms window
    _arrive(tmp_path, "b.json", ["A"], 30)
    assert _batch(tmp_path, name, remote)["metrics"]["uniq"] == {"total": 1, "unique": 1}
    kept = sorted(p.name for p in (tmp_path / "state.duckdb.pending" / "rows" / "clicks").iterdir())
    assert kept == ["batch-2.parquet"]
