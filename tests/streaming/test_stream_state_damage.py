"""A stream state is a valid DuckDB file whose rows may be damaged or edited: a missing key, a
NULL, another type or JSON of another shape in any row is STREAM_STATE naming the file and the
value, for `gryph stream` and `gryph stream status` alike, never a traceback (these were
KeyError 'stream_id' / 'kafka' / 'engine', TypeError, ValueError)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import duckdb
import pytest

from gryph.client.cli.main import main
from gryph.client.store.stream_state import StreamState
from gryph.compiler.errors import EngineError

SUITE = """suite land
source landed = folder("incoming/", format = "json", schema = "id bigint, user string", settle = "1ms")
completeness users on landed: user
"""
GOOD_INPUT = {"kafka": {}, "files": {}, "lost": {}, "pending": {}, "cutoff": {}, "history": {}}


def _input(**changed: object) -> str:
    return json.dumps({key: value for key, value in {**GOOD_INPUT, **changed}.items() if value is not ...})


# (the damage, an SQL statement on a state holding one published batch; what the error names)
DAMAGES = [
    ("no stream id", "delete from meta where key = 'stream_id'", "its meta table has no stream_id"),
    ("input without kafka", f"update batches set status = 'intent', input = '{_input(kafka=...)}'", "has no 'kafka'"),
    ("input NULL", "update batches set status = 'intent', input = null", "batch 1's input is NULL, not a text"),
    ("input cut short", "update batches set status = 'intent', input = '{\"kafka\": {'", "batch 1's input is no JSON"),
    ("input a list", "update batches set status = 'intent', input = '[1]'", "is list [1], not a JSON object"),
    ("a file of one value", f"update batches set status = 'intent', input = '{_input(files={'landed': [[1]]})}'",
     "files of 'landed', item 1 is [1], not a list of 3 values"),
    ("a size as text", f"update batches set status = 'intent', input = '{_input(files={'landed': [['a', 1, 'x']]})}'",
     "is str 'x', not an integer"),
    ("a range of text", f"update batches set status = 'intent', input = '{_input(kafka={'k': [['t', '0', 0, 1]]})}'",
     "not an integer"),
    ("result without engine", "update batches set status = 'committed', document = '{\"name\": \"land\"}'",
     "batch 1's result has no 'engine'"),
    ("result NULL", "update batches set status = 'committed', document = null", "batch 1's result is NULL"),
    ("result a list", "update batches set status = 'committed', document = '[]'", "is list [], not a JSON object"),
    ("time NULL", "update batches set tmst = null", "batch 1's time is NULL, not an integer"),
    ("an unknown status", "update batches set status = 'done?'", "batch 1's status is 'done?'"),
    ("no format", "delete from meta where key = 'format'", "its meta table has no format"),
    ("a format not a number", "update meta set value = '1.0' where key = 'format'",
     "its format is '1.0', not a format number (1 or more)"),
    ("format 0", "update meta set value = '0' where key = 'format'", "its format is '0', not a format number"),
    ("no suite", "delete from meta where key = 'suite'", "its meta table has no suite"),
    ("a batch number below 1", "update batches set batch = 0", "a batch's number is 0, not 1 or more"),
    ("a negative file size", f"update batches set input = '{_input(files={'landed': [['a', 5, -1]]})}'",
     "batch 1's input's files of 'landed', item 1's size is -1, below 0"),
    ("a negative partition", f"update batches set input = '{_input(kafka={'k': [['t', -1, 0, 1]]})}'",
     "batch 1's input's kafka of 'k', item 1's partition is -1, below 0"),
    ("a negative offset", f"update batches set input = '{_input(kafka={'k': [['t', 0, -5, 2]]})}'",
     "batch 1's input's kafka of 'k', item 1's start is -5, below 0"),
    ("offsets out of order", f"update batches set input = '{_input(kafka={'k': [['t', 0, 5, 2]]})}'",
     "batch 1's input's kafka of 'k', item 1 is offsets 5 to 2 of t/0, which are not a range of offsets"),
    ("a negative lost count", f"update batches set input = '{_input(lost={'k': -3})}'",
     "batch 1's input's lost of 'k' is -3, below 0"),
]  # fmt: skip


@pytest.fixture(scope="module")
def published_state(tmp_path_factory) -> Path:
    """A state holding one published batch of one file, made by a real stream."""
    folder = tmp_path_factory.mktemp("stream")
    (folder / "incoming").mkdir()
    (folder / "land.dq").write_text(SUITE, encoding="utf-8")
    (folder / "incoming" / "a.json").write_text('{"id": 1, "user": "a"}\n', encoding="utf-8")
    moment = time.time() - 60
    os.utime(folder / "incoming" / "a.json", (moment, moment))
    assert main(["stream", str(folder / "land.dq"), "--once", "--state", str(folder / "s.duckdb")]) == 0
    return folder


@pytest.mark.parametrize("command", [["--once"], ["status"]], ids=["stream", "status"])
@pytest.mark.parametrize(("name", "damage", "named"), DAMAGES, ids=[d[0] for d in DAMAGES])
def test_a_damaged_row_is_a_stream_state_error_naming_the_file(
    published_state, tmp_path, capsys, command, name, damage, named
):
    state = tmp_path / "damaged.duckdb"
    shutil.copy(published_state / "s.duckdb", state)
    with duckdb.connect(str(state)) as con:
        con.execute(damage)
    suite = str(published_state / "land.dq")
    argv = ["stream", "status", suite] if command == ["status"] else ["stream", suite, *command]
    capsys.readouterr()
    assert main([*argv, "--state", str(state)]) == 3
    err = capsys.readouterr().err
    assert f"error STREAM_STATE: the stream state {state} cannot be used: " in err
    assert named in err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("part", "offset", "named"),
    [
        (0, "null", "on t/0 is NULL, not an integer"),
        (0, "-5", "on t/0 is -5, below 0"),
        (-1, "5", "on t/-1 is -1, below 0"),
    ],
)
def test_a_damaged_kafka_position_is_a_stream_state_error(tmp_path, part, offset, named):
    state = StreamState(tmp_path / "s.duckdb", "clicks")
    try:
        state._con.execute(f"insert into kafka_positions values ('clicks', 't', {part}, {offset})")
        with pytest.raises(EngineError) as caught:
            state.kafka_positions("clicks")
    finally:
        state.close()
    assert caught.value.code == "STREAM_STATE"
    assert caught.value.location.file == str(tmp_path / "s.duckdb")
    assert f"the position of 'clicks' {named}" in caught.value.message


def test_a_damaged_accuracy_time_is_a_stream_state_error(tmp_path):
    state = StreamState(tmp_path / "s.duckdb", "clicks")
    try:
        state._con.execute("insert into accuracy_times values ('matched', -60000, 4, 1)")
        with pytest.raises(EngineError) as caught:
            state.accuracy_times("matched", -120000)
    finally:
        state.close()
    assert caught.value.code == "STREAM_STATE"
    assert "accuracy rule 'matched''s batch time is -60000, not epoch milliseconds of years 1970 to 9999" in (
        caught.value.message
    )


@pytest.mark.parametrize("command", [["--once"], ["status"], ["reset", "--yes"]], ids=["stream", "status", "reset"])
def test_a_state_of_a_newer_format_is_refused_and_left_as_it_is(published_state, tmp_path, capsys, command):
    """A state written by a newer gryph (format 99) was run as this one's; it is STREAM_STATE
    naming the format found and the formats read, and its file is not written."""
    folder = tmp_path / "stream"
    shutil.copytree(published_state, folder)
    (folder / "incoming" / "b.json").write_text('{"id": 2, "user": "b"}\n', encoding="utf-8")
    moment = time.time() - 60
    os.utime(folder / "incoming" / "b.json", (moment, moment))
    state = folder / "s.duckdb"
    with duckdb.connect(str(state)) as con:  # the copy's own suite file, so only its format is strange
        con.execute("update meta set value = ? where key = 'suite_file'", [str((folder / "land.dq").resolve())])
        con.execute("update meta set value = '99' where key = 'format'")
    before = state.read_bytes()
    suite = str(folder / "land.dq")
    argv = ["stream", suite, *command] if command == ["--once"] else ["stream", command[0], suite, *command[1:]]
    capsys.readouterr()
    assert main([*argv, "--state", str(state)]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        f"error STREAM_STATE: the stream state {state} cannot be used: it is of state format 99, and this gryph "
        "reads formats up to 1" in captured.err
    )
    assert "hint: it was written by a newer gryph: upgrade gryph to run this stream" in captured.err
    assert state.read_bytes() == before
