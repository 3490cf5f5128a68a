"""Links in a ``folder(...)`` source that lead out of the folder are skipped and named in the
batch's result (``linked_outside``), on DuckDB and on Spark alike, asked right before the batch
reads (a file swapped for a link after it was listed is skipped too); ``follow_links = true``
reads them. Links that stay inside the folder are read as files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from gryph.client.streaming.stream_runner import stream
from tests.support.gryph_cli import gryph

SUITE = """suite linked
source landed = folder("in/", format = "json", schema = "id bigint, who string", settle = "1ms"{extra})
profiling rows on landed: count(*) as n, sum(id) as ids
"""


def _suite(root: Path, extra: str = "") -> Path:
    (root / "in").mkdir(exist_ok=True)
    path = root / "linked.dq"
    path.write_text(SUITE.format(extra=extra), encoding="utf-8")
    return path


def _write(path: Path, *ids: int) -> Path:
    path.write_text("".join(json.dumps({"id": i, "who": f"w{i}"}) + "\n" for i in ids), encoding="utf-8")
    return path


def _settled(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (time.time() - 60,) * 2, follow_symlinks=False)


def _landing(root: Path) -> dict[str, Path]:
    """in/a.json (id 1); in/out.json, a link to ../secret.json (id 100); in/sub/ holds b.json (id 10),
    linked from in/inner.json; in/up.json, a link through ../in/ back into the folder (id 1000)."""
    inside = root / "in"
    secret = _write(root / "secret.json", 100)
    (inside / "sub").mkdir()
    paths = {
        "a": _write(inside / "a.json", 1),
        "b": _write(inside / "sub" / "b.json", 10),
        "c": _write(inside / "c.json", 1000),
        "out": inside / "out.json",
        "inner": inside / "inner.json",
        "up": inside / "up.json",
    }
    paths["out"].symlink_to("../secret.json")
    paths["inner"].symlink_to("sub/b.json")
    paths["up"].symlink_to("../in/c.json")
    _settled(secret, *paths.values())
    return paths


@pytest.fixture(params=["duckdb", "spark"])
def engine(request) -> tuple[str, str | None]:
    remote = request.getfixturevalue("spark_remote") if request.param == "spark" else None
    return request.param, remote


def test_links_out_of_the_folder_are_skipped_and_named_on_both_engines(tmp_path, engine):
    name, remote = engine
    suite = _suite(tmp_path)
    paths = _landing(tmp_path)
    (batch,) = [r.to_dict() for r in stream(suite, name, remote=remote, available_now=True, state=tmp_path / "s")]
    read = batch["stream"]["sources"]["landed"]
    assert read["linked_outside"] == [str(paths["out"])]
    # a.json, inner.json (sub/b.json), c.json and up.json (c.json again): never secret.json's 100
    assert batch["metrics"]["rows"] == [{"n": 4, "ids": 1 + 10 + 1000 + 1000}]
    assert read["rows"] == 4
    again = [r.to_dict() for r in stream(suite, name, remote=remote, available_now=True, state=tmp_path / "s")]
    assert again == []  # the skipped link is taken: named once, not in every batch


def test_follow_links_reads_them_on_both_engines(tmp_path, engine):
    name, remote = engine
    suite = _suite(tmp_path, extra=", follow_links = true")
    _landing(tmp_path)
    (batch,) = [r.to_dict() for r in stream(suite, name, remote=remote, available_now=True, state=tmp_path / "s")]
    assert "linked_outside" not in batch["stream"]["sources"]["landed"]
    assert batch["metrics"]["rows"] == [{"n": 5, "ids": 1 + 10 + 1000 + 1000 + 100}]


def test_a_file_swapped_for_a_link_after_it_was_listed_is_not_read(tmp_path):
    _suite(tmp_path)
    listed = _write(tmp_path / "in" / "a.json", 1)
    kept = _write(tmp_path / "in" / "b.json", 2)
    secret = _write(tmp_path / "secret.json", 100)
    _settled(listed, kept, secret)
    args = ("stream", "linked.dq", "--once", "--state", "s.duckdb")
    assert gryph(*args, cwd=tmp_path, env={"GRYPH_STREAM_CRASH_AT": "intent"}).returncode == -9
    listed.unlink()
    listed.symlink_to(secret)
    resumed = gryph(*args, "--format", "json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    batch = json.loads(resumed.stdout)
    assert batch["stream"]["sources"]["landed"]["linked_outside"] == [str(listed)]
    assert batch["metrics"]["rows"] == [{"n": 1, "ids": 2}]


def test_the_text_output_says_what_was_skipped(tmp_path, capsys):
    suite = _suite(tmp_path)
    _landing(tmp_path)
    assert main(["stream", str(suite), "--available-now", "--state", str(tmp_path / "s")]) == 0
    assert "landed 4 rows, 1 link out of its folder skipped, lag 0" in capsys.readouterr().out


def test_follow_links_is_true_or_false(tmp_path, capsys):
    suite = _suite(tmp_path, extra=', follow_links = "yes"')
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "linked.dq:2:1: error BAD_SOURCE" in err and "follow_links is true or false" in err
