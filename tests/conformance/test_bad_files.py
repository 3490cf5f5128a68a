"""Damaged and odd source files: each is a defined outcome, the same on both engines: rows, or an
``EngineError`` (exit 3) naming the file. Never an engine's guess, an internal error or a hang."""

from __future__ import annotations

import os
import threading

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.source_specs import SourceSpec
from tests.support.plan_helpers import read, run_one


def rows_of(engine, path, file_format: str = "csv") -> tuple[list[tuple[str, str]], list[dict]]:
    spec = SourceSpec("t", file_format, paths=(str(path),))
    relation = read(engine, spec)
    rows = run_one(engine, relation, {"t": spec})
    return [(c.name, c.dtype.kind.value) for c in relation.schema.columns], sorted(rows, key=str)


def refused(engine, path, file_format: str = "csv") -> EngineError:
    with pytest.raises(EngineError) as caught:
        rows_of(engine, path, file_format)
    assert caught.value.exit_code == 3 and caught.value.location.file == str(path)
    assert str(path) in str(caught.value)
    return caught.value


@pytest.mark.parametrize("name, file_format", [("empty.csv", "csv"), ("empty.tsv", "tsv"), ("empty.json", "json")])
def test_an_empty_text_file_is_an_error_saying_so(dq_engine, tmp_path, name, file_format):
    path = tmp_path / name
    path.write_bytes(b"")
    error = refused(dq_engine, path, file_format)
    assert error.code == "SOURCE_EMPTY" and "is empty" in error.message


def test_a_header_only_csv_has_its_columns_and_no_rows(dq_engine, tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("id,näme\n")
    assert rows_of(dq_engine, path) == ([("id", "string"), ("näme", "string")], [])


def test_fields_beyond_the_header_are_dropped_and_missing_ones_are_null(dq_engine, tmp_path):
    """As Spark reads a ragged CSV: the header decides the columns."""
    path = tmp_path / "ragged.csv"
    path.write_text("id,name\n1,a,extra\n2\n3,c,x,y\n4,\n")
    assert rows_of(dq_engine, path) == (
        [("id", "integer"), ("name", "string")],
        sorted(
            [{"id": 1, "name": "a"}, {"id": 2, "name": None}, {"id": 3, "name": "c"}, {"id": 4, "name": None}], key=str
        ),
    )


def test_a_byte_order_mark_is_not_part_of_the_first_name(dq_engine, tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffid,name\n1,é\n2,\n".encode("utf-8"))
    assert rows_of(dq_engine, path) == (
        [("id", "integer"), ("name", "string")],
        sorted([{"id": 1, "name": "é"}, {"id": 2, "name": None}], key=str),
    )


def test_a_binary_file_named_csv_is_refused(dq_engine, tmp_path):
    path = tmp_path / "image.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    error = refused(dq_engine, path)
    assert error.code == "SOURCE_NOT_TEXT"


def test_a_folder_of_part_files_is_one_source(dq_engine, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "part-0.csv").write_text("id\n1\n")
    (folder / "part-1.csv").write_text("id\n2\n")
    (folder / "_SUCCESS").write_text("")
    assert rows_of(dq_engine, folder) == ([("id", "integer")], [{"id": 1}, {"id": 2}])


@pytest.mark.parametrize("markers", [(), ("_SUCCESS", ".part-0.csv.crc")])
def test_a_folder_without_data_files_is_refused(dq_engine, tmp_path, markers):
    folder = tmp_path / "nothing"
    folder.mkdir()
    for marker in markers:
        (folder / marker).write_text("")
    error = refused(dq_engine, folder)
    assert error.code == "SOURCE_EMPTY" and "folder without data files" in error.message


def test_a_corrupt_file_among_good_ones_is_its_sources_error(dq_engine, tmp_path):
    """Both engines open the second file of a glob only when a query reaches it: the error still
    names the source and the file, not a query that failed."""
    pq.write_table(pa.table({"id": [1, 2]}), tmp_path / "a.parquet")
    (tmp_path / "b.parquet").write_text("this is not a data file")
    with pytest.raises(EngineError) as caught:
        rows_of(dq_engine, tmp_path / "*.parquet", "parquet")
    assert caught.value.code == "SOURCE_UNREADABLE" and caught.value.exit_code == 3
    assert f"source 't' (parquet(\"{tmp_path}/*.parquet\")) cannot be read" in caught.value.message
    assert f"{tmp_path}/b.parquet" in caught.value.message


def test_a_parquet_file_without_rows_is_an_empty_source(dq_engine, tmp_path):
    path = tmp_path / "zero.parquet"
    pq.write_table(pa.table({"id": pa.array([], pa.int64()), "s": pa.array([], pa.string())}), path)
    assert rows_of(dq_engine, path, "parquet") == ([("id", "integer"), ("s", "string")], [])


def test_a_pipe_is_refused_before_anything_reads_it(dq_engine, tmp_path):
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(_error_of(dq_engine, path)), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the reader so the test run itself does not hang
        with open(path, "w"):
            pass
        pytest.fail("reading a pipe with no writer hung")
    (error,) = outcome
    assert isinstance(error, EngineError) and error.code == "SOURCE_NOT_A_FILE"
    assert str(path) in str(error)


def _error_of(engine, path) -> object:
    try:
        return rows_of(engine, path)
    except Exception as error:  # the thread hands any outcome back to the test
        return error


def test_a_folder_without_read_permission(dq_engine, tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "part-0.csv").write_text("id\n1\n")
    folder.chmod(0)
    try:
        if os.geteuid() == 0:
            # permissions do not stop root (as CI runs): both engines read the folder
            _, rows = rows_of(dq_engine, folder)
            assert rows == [{"id": 1}]
        else:
            assert refused(dq_engine, folder).code == "SOURCE_UNREADABLE"
    finally:
        folder.chmod(0o755)


def test_a_source_deleted_between_validation_and_the_run(dq_engine, tmp_path):
    from gryph.client import runner

    path = tmp_path / "a.csv"
    path.write_text("id\n1\n2\n", encoding="utf-8")
    suite = runner.load_suite(f'source s = csv("{path}")\ncompleteness c on s: id')
    compiled = runner.compile_for(suite, dq_engine)
    path.unlink()
    with pytest.raises(EngineError) as caught:
        runner.execute(compiled, dq_engine, suite.sources)
    assert caught.value.exit_code == 3 and "a.csv" in str(caught.value)


@pytest.mark.parametrize("cut", ["head", "tail", "tiny"])
def test_a_damaged_parquet_file_names_its_source_and_file_alike(dq_engine, tmp_path, cut):
    """A parquet file cut short, or with its start overwritten, lacks the PAR1 marks: one message
    on both engines, never the engine's own text (DuckDB's quoted ``CREATE OR REPLACE TEMP VIEW``)."""
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"id": [1, 2, 3]}), good)
    data = good.read_bytes()
    damaged = {"head": b"XXXX" + data[4:], "tail": data[:-10], "tiny": b"PAR1"}[cut]
    path = tmp_path / "orders.parquet"
    path.write_bytes(damaged)
    with pytest.raises(EngineError) as caught:
        rows_of(dq_engine, path, "parquet")
    assert caught.value.code == "SOURCE_UNREADABLE" and caught.value.exit_code == 3
    assert caught.value.message == (
        f"source 't' (parquet(\"{path}\")) cannot be read: {path} is not a parquet file: "
        "it lacks the PAR1 marks at its start and end"
    )
    assert "write it again" in caught.value.hint


@pytest.mark.parametrize(
    "file_format,marks", [("avro", "the Obj mark at its start"), ("orc", "the ORC mark at its start")]
)
def test_a_file_of_another_format_is_not_an_avro_or_orc_file(dq_engine, tmp_path, file_format, marks):
    path = tmp_path / f"orders.{file_format}"
    path.write_text("id\n1\n")
    with pytest.raises(EngineError) as caught:
        rows_of(dq_engine, path, file_format)
    assert caught.value.message == (
        f"source 't' ({file_format}(\"{path}\")) cannot be read: {path} is not an {file_format} file: it lacks {marks}"
    )


def test_csv_files_of_one_folder_with_other_headers_name_the_file(dq_engine, tmp_path):
    """DuckDB refuses such a folder in words that name the wrong file; Spark reads the second
    file's columns by position under the first's names. Both now refuse it alike, naming both."""
    folder = tmp_path / "orders"
    folder.mkdir()
    (folder / "part-1.csv").write_text("id,name\n1,a\n")
    (folder / "part-2.csv").write_text("id,amount,é\n2,5,x\n")
    (folder / "part-3.csv").write_text("")  # an empty file has no header to differ
    with pytest.raises(EngineError) as caught:
        rows_of(dq_engine, folder)
    assert caught.value.code == "SOURCE_UNREADABLE"
    assert caught.value.message == (
        f"source 't' (csv(\"{folder}\")) cannot be read: {folder}/part-2.csv has the header id,amount,é "
        f"but {folder}/part-1.csv has id,name"
    )
    assert "Schema mismatch" not in str(caught.value)


def test_a_header_written_otherwise_is_refused_too(dq_engine, tmp_path):
    """The same names quoted: DuckDB would read both files, Spark would read the second header as
    a row (it drops only lines equal to the first file's header). Refused alike instead."""
    folder = tmp_path / "orders"
    folder.mkdir()
    (folder / "part-1.csv").write_text("id,name\n1,a\n")
    (folder / "part-2.csv").write_text('"id","name"\n2,b\n')
    with pytest.raises(EngineError) as caught:
        rows_of(dq_engine, folder)
    assert caught.value.message.endswith(
        f'{folder}/part-2.csv has the header "id","name" but {folder}/part-1.csv has id,name'
    )


def test_files_of_one_header_read_together(dq_engine, tmp_path):
    folder = tmp_path / "orders"
    folder.mkdir()
    (folder / "part-1.csv").write_text("id,name\n1,a\n")
    (folder / "part-2.csv").write_bytes(b"\xef\xbb\xbfid,name\n2,b\n")  # a byte-order mark is no difference
    assert rows_of(dq_engine, folder) == (
        [("id", "integer"), ("name", "string")],
        [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
    )
