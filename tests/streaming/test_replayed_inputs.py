"""A state file is input: the unfinished batch a crash left is checked against the suite before
it is read again. A batch whose intent was changed to name a file out of the folder (the issue's
/etc/passwd), an undeclared source, topic or partition, or kept files elsewhere is STREAM_STATE,
and nothing of it is read; put back as it was, the same batch runs and nothing is lost."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from tests.support.gryph_cli import gryph

from .kafka_topics import new_topic, produce

FOLDER_SUITE = """suite replayed
source landed = folder("in/", format = "json", schema = "id bigint, who string", settle = "1ms")
source known = csv("known.csv")
profiling rows on landed: count(*) as n, sum(id) as ids, max(who) as who
uniqueness ids on landed: id with window = 1h
accuracy known_ids on landed, known: landed.id = known.id with retry = 1h
"""
SECRET = "TOPSECRET-ROW"


def _cli(*args: str, cwd: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    return gryph(*args, cwd=cwd, env={"GRYPH_STREAM_CRASH_AT": crash_at} if crash_at else None)


def _arrive(path: Path, *ids: int, who: str = "u") -> Path:
    path.write_text("".join(json.dumps({"id": i, "who": who}) + "\n" for i in ids), encoding="utf-8")
    os.utime(path, (time.time() - 60,) * 2)
    return path


def _intent(state: Path) -> dict:
    with duckdb.connect(str(state)) as con:
        return json.loads(con.execute("select input from batches where status = 'intent'").fetchone()[0])


def _set_intent(state: Path, batch_input: dict) -> None:
    with duckdb.connect(str(state)) as con:
        con.execute("update batches set input = ? where status = 'intent'", [json.dumps(batch_input)])


def _folder_stream(tmp_path: Path) -> tuple[tuple[str, ...], dict]:
    """A folder stream killed after the intent of its batch 2 (batch 1 committed); the intent's input."""
    (tmp_path / "in").mkdir()
    (tmp_path / "replayed.dq").write_text(FOLDER_SUITE, encoding="utf-8")
    (tmp_path / "known.csv").write_text("id\n1\n2\n", encoding="utf-8")
    _arrive(tmp_path / "secret.json", 7, who=SECRET)
    args = ("stream", "replayed.dq", "--once", "--format", "json", "--state", "s.duckdb")
    _arrive(tmp_path / "in" / "a.json", 1)
    assert _cli(*args, cwd=tmp_path).returncode == 0
    _arrive(tmp_path / "in" / "b.json", 2, 3)
    assert _cli(*args, cwd=tmp_path, crash_at="intent").returncode == -9
    return args, _intent(tmp_path / "s.duckdb")


def _changed(original: dict, change: Callable[[dict], None]) -> dict:
    copy = json.loads(json.dumps(original))
    change(copy)
    return copy


FORGED = {
    "the issue's /etc/passwd": lambda i: i["files"].update(landed=[["/etc/passwd", 0, 0]]),
    "a file beside the folder": lambda i: i["files"]["landed"].append([str(Path(i["_root"]) / "secret.json"), 0, 0]),
    "a path out through ..": lambda i: i["files"].update(landed=[[str(Path(i["_root"]) / "in/../secret.json"), 0, 0]]),
    "a hidden file": lambda i: i["files"].update(landed=[[str(Path(i["_root"]) / "in" / ".b.json"), 0, 0]]),
    "an undeclared source": lambda i: i["files"].update(known=[[str(Path(i["_root"]) / "known.csv"), 0, 0]]),
    "rows kept elsewhere": lambda i: i["history"].update(landed=[str(Path(i["_root"]) / "batch-1.parquet")]),
    "a later batch's rows": lambda i: i["history"].update(landed=[i["history"]["landed"][0].replace("-1.", "-2.")]),
    "misses kept elsewhere": lambda i: i["pending"].update(known_ids=str(Path(i["_root"]) / "secret.json")),
    "an unknown rule's window": lambda i: i["cutoff"].update(other=0),
    "loss of no Kafka source": lambda i: i["lost"].update(landed=3),
}


@pytest.mark.parametrize("forged", list(FORGED))
def test_a_replayed_folder_batch_names_only_what_the_stream_plans(tmp_path, forged):
    args, original = _folder_stream(tmp_path)
    assert original["history"]["landed"] and original["pending"]["known_ids"]  # both kinds of kept files named
    state = tmp_path / "s.duckdb"
    _set_intent(
        state, {k: v for k, v in _changed({**original, "_root": str(tmp_path)}, FORGED[forged]).items() if k != "_root"}
    )
    refused = _cli(*args, cwd=tmp_path)
    assert refused.returncode == 3 and refused.stdout == ""
    assert "STREAM_STATE" in refused.stderr and "s.duckdb" in refused.stderr and "unfinished batch 2" in refused.stderr
    assert SECRET not in refused.stderr and "root:" not in refused.stderr
    _set_intent(state, original)  # as gryph wrote it: the batch runs, b.json read once
    resumed = _cli(*args, cwd=tmp_path)
    (batch,) = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert batch["stream"]["batch"] == 2 and batch["metrics"]["rows"] == [{"n": 2, "ids": 5, "who": "u"}]


@pytest.mark.spark
def test_the_issues_case_is_refused_on_spark_too(tmp_path, spark_remote):
    args, original = _folder_stream(tmp_path)
    _set_intent(tmp_path / "s.duckdb", _changed(original, FORGED["the issue's /etc/passwd"]))
    refused = _cli(*args, "--engine", "spark", "--remote", spark_remote, cwd=tmp_path)
    assert refused.returncode == 3 and refused.stdout == ""
    assert "STREAM_STATE" in refused.stderr and "/etc/passwd, which is not a file of the folder" in refused.stderr


KAFKA_SUITE = """suite replayed_kafka
source clicks = kafka("{bootstrap}", topic = "{topic}", format = "json", schema = "id bigint, who string")
profiling rows on clicks: count(*) as n, sum(id) as ids, max(who) as who
"""


def test_a_replayed_kafka_batch_reads_only_partitions_of_its_topics(kafka, tmp_path):
    topic, other = new_topic(kafka.bootstrap), new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(None, json.dumps({"id": i, "who": "u"}).encode()) for i in (1, 2)])
    produce(kafka.bootstrap, other, [(None, json.dumps({"id": 9, "who": SECRET}).encode())])
    (tmp_path / "k.dq").write_text(KAFKA_SUITE.format(bootstrap=kafka.bootstrap, topic=topic), encoding="utf-8")
    args = ("stream", "k.dq", "--once", "--format", "json", "--state", "s.duckdb")
    assert _cli(*args, cwd=tmp_path, crash_at="intent").returncode == -9
    state = tmp_path / "s.duckdb"
    original = _intent(state)
    assert original["kafka"]["clicks"] == [[topic, 0, 0, 2]]
    for forged, problem in (
        ([[other, 0, 0, 1]], "a topic source 'clicks' does not read"),
        ([[topic, 3, 0, 2]], "a partition the broker at"),
        ([[topic, 0, 2, 0]], "which are not a range of offsets"),
        ([[topic, 0, -5, 2]], "item 1's start is -5, below 0"),
        ([[topic, 0, 0, 10**15]], "beyond the offsets the broker holds"),
    ):
        _set_intent(state, {**original, "kafka": {"clicks": forged}})
        refused = _cli(*args, cwd=tmp_path)
        assert refused.returncode == 3 and refused.stdout == "", refused.stderr
        assert "STREAM_STATE" in refused.stderr and problem in refused.stderr and SECRET not in refused.stderr
    _set_intent(state, original)
    resumed = _cli(*args, cwd=tmp_path)
    (batch,) = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert batch["metrics"]["rows"] == [{"n": 2, "ids": 3, "who": "u"}]
