"""Parquet files whose PAR1 marks are intact but whose inside is damaged, and folders of parquet
files that disagree on a column: on both engines a ``SOURCE_UNREADABLE`` at the source's
declaration naming the file (and the column), never the engine's text or the SQL gryph made."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import load_suite, run
from gryph.compiler.errors import EngineError

ROWS = 1000
GOOD = pa.table({"id": list(range(ROWS)), "name": [f"n{i}" for i in range(ROWS)]})
# sum(id) and max(name) decode every page of both columns; count(*) would read the footer only
SUITE = (
    'source s = parquet("{path}")\n'
    'measure "n": select count(*) as n, sum(id) as total, max(name) as last from s\n'
    'check "rows": measures["n"]["n"] > 0\n'
)


def _failure(engine, folder, path: str) -> EngineError:
    suite = folder / "s.dq"
    suite.write_text(SUITE.format(path=path), encoding="utf-8")
    with pytest.raises(EngineError) as caught:
        run(load_suite(str(suite)), engine)
    error = caught.value
    assert (error.code, error.exit_code) == ("SOURCE_UNREADABLE", 3)
    assert (error.location.file, error.location.line, error.location.column) == (str(suite), 1, 1)
    assert f"source 's' (parquet(\"{folder}/{path}\")) cannot be read: " in error.message
    for engine_text in ("SELECT", "LINE 1", "SQLSTATE", "FAILED_READ_FILE", "file://", "__gryph"):
        assert engine_text not in str(error)
    return error


def _plain(path) -> bytes:
    """GOOD written without compression or dictionary: each column one plain data page."""
    pq.write_table(GOOD, path, compression="none", use_dictionary=False)
    return path.read_bytes()


def test_a_data_page_that_does_not_decode(dq_engine, tmp_path):
    data = bytearray(_plain(tmp_path / "f.parquet"))
    start = pq.read_metadata(tmp_path / "f.parquet").row_group(0).column(0).data_page_offset
    data[start : start + 16] = b"\xff" * 16  # the page header of column id: not thrift any more
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    error = _failure(dq_engine, tmp_path, "f.parquet")
    assert f"{tmp_path}/f.parquet is damaged" in error.message
    assert error.hint == "the file is damaged, cut short while written, or of another format: write it again"


def test_a_compressed_page_that_does_not_decompress(dq_engine, tmp_path):
    # found by hand: snappy pages (the default) overwritten past the header fail to decompress,
    # which DuckDB reported in its own words ("Invalid Input Error: Failed to read file ...")
    pq.write_table(GOOD, tmp_path / "f.parquet", compression="snappy", use_dictionary=False)
    data = bytearray((tmp_path / "f.parquet").read_bytes())
    start = pq.read_metadata(tmp_path / "f.parquet").row_group(0).column(0).data_page_offset
    data[start + 40 : start + 240] = b"\xab" * 200  # inside the compressed body of id's first page
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    error = _failure(dq_engine, tmp_path, "f.parquet")
    assert f"{tmp_path}/f.parquet is damaged" in error.message
    assert "Error" not in error.message and "Failed to read" not in error.message
    assert error.hint == "the file is damaged, cut short while written, or of another format: write it again"


def test_a_footer_length_beyond_the_file(dq_engine, tmp_path):
    data = bytearray(_plain(tmp_path / "f.parquet"))
    data[-8:-4] = (len(data) * 10).to_bytes(4, "little")  # the footer would start before the file
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    error = _failure(dq_engine, tmp_path, "f.parquet")
    assert f"{tmp_path}/f.parquet is damaged: its footer cannot be read (" in error.message


def test_a_footer_that_is_not_thrift(dq_engine, tmp_path):
    data = bytearray(_plain(tmp_path / "f.parquet"))
    length = int.from_bytes(data[-8:-4], "little")
    footer = len(data) - 8 - length
    data[footer : footer + 32] = b"\xff" * 32
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    error = _failure(dq_engine, tmp_path, "f.parquet")
    assert f"{tmp_path}/f.parquet is damaged: its footer cannot be read (" in error.message


def test_a_column_chunk_cut_short(dq_engine, tmp_path):
    """The file was cut inside column name's chunk and its footer written after the cut."""
    data = _plain(tmp_path / "f.parquet")
    length = int.from_bytes(data[-8:-4], "little")
    footer = data[-(length + 8) :]
    name = pq.read_metadata(tmp_path / "f.parquet").row_group(0).column(1)
    (tmp_path / "f.parquet").write_bytes(data[: name.data_page_offset + 100] + footer)
    error = _failure(dq_engine, tmp_path, "f.parquet")
    assert error.message.endswith(
        f"{tmp_path}/f.parquet is damaged: its column 'name' runs past the end of its data (cut short)"
    )


def _folder(tmp_path, second: pa.Table) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(pa.table({"id": [1, 2], "name": ["a", "b"]}), folder / "a.parquet")
    pq.write_table(second, folder / "b.parquet")


HINT = (
    "the files of one source need the same columns and types: move the other files to a source of their own, "
    "or write them again alike"
)


@pytest.mark.parametrize("path", ["parts/*.parquet", "parts"])
def test_a_folder_whose_files_differ_in_a_column_type(dq_engine, tmp_path, path):
    _folder(tmp_path, pa.table({"id": [3], "name": [5]}))
    error = _failure(dq_engine, tmp_path, path)
    assert error.message.endswith(
        f"column 'name' is int64 in {tmp_path}/parts/b.parquet but string in {tmp_path}/parts/a.parquet"
    )
    assert error.hint == HINT


def test_a_folder_whose_second_file_lacks_a_column(dq_engine, tmp_path):
    _folder(tmp_path, pa.table({"id": [3]}))
    error = _failure(dq_engine, tmp_path, "parts/*.parquet")
    assert error.message.endswith(
        f"{tmp_path}/parts/b.parquet has no column 'name', which {tmp_path}/parts/a.parquet has"
    )


def test_a_folder_whose_second_file_has_another_column(dq_engine, tmp_path):
    _folder(tmp_path, pa.table({"id": [3], "name": ["c"], "extra": [1.5]}))
    error = _failure(dq_engine, tmp_path, "parts/*.parquet")
    assert error.message.endswith(
        f"{tmp_path}/parts/b.parquet has a column 'extra' that {tmp_path}/parts/a.parquet has not"
    )


def test_a_folder_of_files_alike_reads_whole(dq_engine, tmp_path):
    # a large string is a string: the same column to both engines
    _folder(tmp_path, pa.table({"id": [3], "name": pa.array(["c"], pa.large_string())}))
    suite = tmp_path / "s.dq"
    suite.write_text(SUITE.format(path="parts"), encoding="utf-8")
    assert run(load_suite(str(suite)), dq_engine).measures["n"] == {"n": 3, "total": 6, "last": "c"}
