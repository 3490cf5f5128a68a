"""Output paths the CLI cannot use: a clear error naming the path (exit 2 when the argument can never
work, 3 when writing fails), never an internal error, no partial file, earlier files intact."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.support.gryph_cli import GRYPH, gryph, limited

SUITE = 'source t = csv("t.csv")\ncompleteness c on t: id\n'


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "t.csv").write_text('id\n1\n""\n')
    (tmp_path / "s.dq").write_text(SUITE)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("earlier\n")
    return tmp_path


def run_in(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return gryph("run", "s.dq", "--no-history", *args, cwd=workdir)


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--output", "folder"], "--output folder is a folder, not a file"),
        (["--junit", "folder"], "--junit folder is a folder, not a file"),
        (["--markdown", "folder"], "--markdown folder is a folder, not a file"),
        (["--output", "file/out.json"], "--output file/out.json cannot be created: file is a file, not a folder"),
        (["--junit", "file/deeper/j.xml"], "cannot be created: file is a file, not a folder"),
        (["--records-to", "file"], "--records-to file is a file, not a folder"),
        # checked before the run: the report that would come first is not written either
        (["--output", "report.txt", "--markdown", "folder"], "--markdown folder is a folder"),
        # a name past the file system's 255 bytes, here or below a folder still to be made
        (["--output", "x" * 300], "cannot be written: a name in it is longer than 255 bytes"),
        (["--junit", f"new/{'y' * 300}/j.xml"], "cannot be written: a name in it is longer than 255 bytes"),
        (["--markdown", "loop/s.md"], "--markdown loop/s.md cannot be written: Too many levels of symbolic links"),
    ],
)
def test_a_path_that_can_never_be_written_is_refused_before_the_run(workdir, args, message):
    os.symlink("loop", workdir / "loop")  # a link to itself: no path through it resolves
    before = names(workdir)
    done = run_in(workdir, *args)
    assert done.returncode == 2, done.stderr
    assert "error BAD_OUTPUT_PATH" in done.stderr and message in done.stderr
    assert "internal error" not in done.stderr
    assert names(workdir) == before and names(workdir / "folder") == set()
    assert (workdir / "file").read_text() == "earlier\n"


@pytest.mark.parametrize("content", [b"", b"not a database\x00\xff" * 100])
def test_a_database_file_duckdb_cannot_open_is_an_engine_error(workdir, content):
    (workdir / "my.db").write_bytes(content)
    done = run_in(workdir, "--database", "my.db")
    assert done.returncode == 3, done.stderr
    assert "my.db: error DATABASE_UNREADABLE: cannot open the DuckDB database my.db" in done.stderr
    assert "internal error" not in done.stderr
    assert (workdir / "my.db").read_bytes() == content


def test_a_write_failing_half_way_leaves_the_earlier_file_and_no_partial_one(workdir):
    """The file size limit (which binds root too) stops the report half-way, as a full disk would."""

    command = [str(GRYPH), "run", "s.dq", "--no-history", "--format", "json", "--output", "file"]
    # a write past 64 bytes fails, not the process
    done = subprocess.run(limited(command, file_size=64), cwd=workdir, capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stderr
    assert "file: error OUTPUT_NOT_WRITTEN: cannot write file: File too large" in done.stderr
    assert (workdir / "file").read_text() == "earlier\n"
    assert not [name for name in names(workdir) if name.startswith(".")]  # no temporary file left


def test_a_pipe_is_written_in_place_and_a_link_stays_a_link(workdir):
    (workdir / "link.json").symlink_to("file")
    assert run_in(workdir, "--format", "json", "--output", "link.json").returncode == 0
    assert (workdir / "link.json").is_symlink() and '"name": "s"' in (workdir / "file").read_text()
    pipe = workdir / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # open without waiting for a writer
    try:
        assert run_in(workdir, "--output", "pipe").returncode == 0
        assert stat.S_ISFIFO(pipe.lstat().st_mode)  # not replaced by a file
        assert os.read(reader, 65536).decode().startswith("suite s on duckdb")
    finally:
        os.close(reader)


def test_records_to_on_a_full_disk_is_exit_3_without_a_partial_file(tmp_path):
    """The file size limit stops the record export half-way, as a full disk would."""

    # 30,000 incomplete rows: their parquet export is well over the 64 KiB limit
    rows = "".join(f"{i},\n" if i % 2 else f"{i},user{i}@example.org\n" for i in range(60000))
    (tmp_path / "d.csv").write_text("id,email\n" + rows, encoding="utf-8")
    (tmp_path / "s.dq").write_text('source s = csv("d.csv")\ncompleteness c on s: email\n', encoding="utf-8")
    done = subprocess.run(
        limited([str(GRYPH), "run", "s.dq", "--no-history", "--records-to", "out"], file_size=65536),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 3 and "File too large" in done.stderr, done.stderr
    assert list((tmp_path / "out").iterdir()) == []
