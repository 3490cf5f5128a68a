"""A ``--history`` gryph can never write is refused before the scan (exit 2, at the history's path);
one whose write fails after the run still gets the run's outputs written (exit 4, or 1 when the run
failed), and every history error names the history file."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gryph.client.store.history import HistoryStore
from gryph.compiler.errors import EngineError
from tests.support.gryph_cli import limited
from tests.support.result_documents import result_document

ROOT = Path(__file__).resolve().parents[2]
GRYPH = ROOT / ".venv" / "bin" / "gryph"


def gryph(
    *args: str, cwd: Path, prefix: tuple[str, ...] = (), file_size: int | None = None
) -> subprocess.CompletedProcess:
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    return subprocess.run(
        limited([*prefix, *command, *args], file_size=file_size),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,  # a history that hangs the run (a pipe) fails here instead of hanging the tests
    )


@pytest.fixture
def workdir(tmp_path) -> Path:
    """The example suite with its data, as relative paths expect them."""
    shutil.copy(ROOT / "examples" / "users.dq", tmp_path)
    shutil.copytree(ROOT / "examples" / "data", tmp_path / "data")
    return tmp_path


def _history_file(path: Path) -> None:
    HistoryStore(path).record(
        result_document("users_daily", {"n": 1}), dt.datetime(2026, 11, 18, tzinfo=dt.timezone.utc), {"n": 1}
    )


def _fifo(folder: Path) -> str:
    os.mkfifo(folder / "h")
    return "h"


def _folder(folder: Path) -> str:
    (folder / "h").mkdir()
    return "h"


def _through_a_file(folder: Path) -> str:
    (folder / "somefile").write_text("x\n")
    return "somefile/h.duckdb"


def _text_file(folder: Path) -> str:
    (folder / "h.txt").write_text("started,pass\n2026-11-18,true\n")
    return "h.txt"


def _sqlite_file(folder: Path) -> str:
    with sqlite3.connect(folder / "h.db") as con:
        con.execute("create table runs (suite text)")
    return "h.db"


def _empty_file(folder: Path) -> str:
    (folder / "h.duckdb").touch()
    return "h.duckdb"


def _truncated(folder: Path) -> str:
    _history_file(folder / "h.duckdb")
    whole = (folder / "h.duckdb").read_bytes()
    (folder / "h.duckdb").write_bytes(whole[: len(whole) // 2])
    return "h.duckdb"


def _header_only(folder: Path) -> str:
    """Cut inside DuckDB's headers, as a write that ran out of space leaves a new file."""
    _history_file(folder / "h.duckdb")
    (folder / "h.duckdb").write_bytes((folder / "h.duckdb").read_bytes()[:8192])
    return "h.duckdb"


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (_fifo, "is not a regular file"),
        (_folder, "is a folder, not a file"),
        (_through_a_file, "cannot be created: somefile is a file, not a folder"),
        (_text_file, "is no DuckDB database"),
        (_sqlite_file, "is no DuckDB database"),
        (_empty_file, "is no DuckDB database"),
        (_truncated, "DuckDB cannot read it: IO Error: Could not read enough bytes"),
        (_header_only, "Could not read"),
    ],
)
def test_an_unusable_history_is_refused_before_the_scan(workdir, make, problem):
    history = make(workdir)
    done = gryph("run", "users.dq", "--history", history, "--output", "out.json", "--junit", "j.xml", cwd=workdir)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{history}: error BAD_OUTPUT_PATH: --history {history} ")
    assert problem in done.stderr
    assert not (workdir / "out.json").exists() and not (workdir / "j.xml").exists()


def _without_root_powers() -> tuple[str, ...]:
    """A prefix that makes the command obey file permissions: root ignores them (as CI runs), so
    root runs it without the capabilities that override them."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores file permissions, and setpriv is not there to drop that power")
    caps = "-dac_override,-dac_read_search"
    return (setpriv, "--bounding-set", caps, "--inh-caps", caps, "--")


@pytest.mark.parametrize(
    "where", ["read-only file", "existing file in a read-only folder", "new file in a read-only folder"]
)
def test_a_history_without_write_permission_is_refused_before_the_scan(workdir, where):
    (workdir / "locked").mkdir()
    history = "h.duckdb" if where == "read-only file" else "locked/h.duckdb"
    if where != "new file in a read-only folder":
        _history_file(workdir / history)
    if where == "read-only file":
        (workdir / history).chmod(0o444)
    (workdir / "locked").chmod(0o555)
    try:
        done = gryph(
            "run", "users.dq", "--history", history, "--output", "out.json", cwd=workdir, prefix=_without_root_powers()
        )
    finally:
        (workdir / "locked").chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{history}: error BAD_OUTPUT_PATH: --history {history} ")
    assert ("the file is not writable" if where == "read-only file" else "locked is not writable") in done.stderr
    assert not (workdir / "out.json").exists()


# a disk that fills at 8 KiB, before DuckDB's headers (12 KiB) are written: the reports fit
_SMALL_DISK = 8192


def test_a_history_write_that_fails_after_the_run_keeps_its_outputs(workdir):
    # no record samples: the reports stay under the small disk's 8 KiB, the history's headers do not
    outputs = ["--output", "out.json", "--format", "json", "--junit", "j.xml", "--markdown", "m.md", "--sample", "0"]
    done = gryph("run", "users.dq", "--history", "h.duckdb", *outputs, cwd=workdir, file_size=_SMALL_DISK)
    assert done.returncode == 4, done.stderr  # the example passes: 4 says only the history is missing
    assert done.stderr.startswith("h.duckdb: error HISTORY_NOT_WRITTEN: the run was not stored in the history h.duckdb")
    assert "File too large" in done.stderr and done.stderr.rstrip().endswith("the run passed")
    assert json.loads((workdir / "out.json").read_text())["name"] == "users_daily"
    assert ET.parse(workdir / "j.xml").getroot().tag == "testsuites"
    assert (workdir / "m.md").read_text().strip()


def test_a_failed_run_whose_history_write_fails_still_exits_1(tmp_path):
    (tmp_path / "t.csv").write_text("a\n1\n2\n")
    (tmp_path / "s.dq").write_text(
        'source t = csv("t.csv", schema = "a bigint")\nmeasure "n": count(*)\ncheck "empty": measures["n"] == 0\n'
        "pass when all\n"
    )
    done = gryph("run", "s.dq", "--history", "h.duckdb", "--junit", "j.xml", cwd=tmp_path, file_size=_SMALL_DISK)
    assert done.returncode == 1, done.stderr  # the data's verdict comes first
    assert "error HISTORY_NOT_WRITTEN" in done.stderr and done.stderr.rstrip().endswith("the run failed")
    assert "<failure" in (tmp_path / "j.xml").read_text()


def test_history_errors_name_the_history_file(workdir):
    _text_file(workdir)
    done = gryph("history", "users_daily", "--history", "h.txt", cwd=workdir)
    assert done.returncode == 3 and done.stderr.startswith(
        "h.txt: error HISTORY_UNREADABLE: h.txt is not a gryph run history"
    )
    fifo = _fifo(workdir)
    done = gryph("history", "users_daily", "--history", fifo, cwd=workdir)  # read, not waited on
    assert done.returncode == 3 and done.stderr.startswith(f"{fifo}: error HISTORY_UNREADABLE: {fifo} is not a gryph")
    truncated = workdir / "data" / _truncated(workdir / "data")
    with pytest.raises(EngineError) as raised:
        HistoryStore(truncated).runs("users_daily")
    assert raised.value.code == "HISTORY_UNREADABLE" and raised.value.location.file == str(truncated)
    done = gryph("history", "users_daily", "--history", "/", cwd=workdir)  # a folder with no name
    assert done.returncode == 3 and done.stderr.startswith(
        "/: error HISTORY_UNREADABLE: / is not a gryph run history: it is a folder, not a file"
    )


@pytest.mark.parametrize(
    "path, problem",
    [("h" * 300, "it cannot be looked up: File name too long"), ("loop/h", "Too many levels of symbolic links")],
)
def test_a_history_the_system_cannot_look_up_is_an_error_at_its_path(workdir, path, problem):
    # found by the command-line fuzzer: `gryph history` on such a path was an internal OSError
    os.symlink("loop", workdir / "loop")
    done = gryph("history", "users_daily", "--history", path, cwd=workdir)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith(f"{path}: error HISTORY_UNREADABLE: {path} is not a gryph run history")
    assert problem in done.stderr and "internal error" not in done.stderr
