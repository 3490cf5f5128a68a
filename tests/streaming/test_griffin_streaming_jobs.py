"""Griffin's own streaming job configs (measure/src/test/resources/_*-streaming-griffindsl.json and
env-streaming.json, copied unchanged into tests/data/griffin/streaming/), run with ``gryph stream``
against the test broker: only their brokers and topics are changed. The expected metrics are
counted by hand from the messages each test produces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from gryph.client.streaming.stream_runner import stream

from .kafka_topics import new_topic, produce

CONFIGS = Path(__file__).parents[1] / "data" / "griffin" / "streaming"
ENV = str(CONFIGS / "env-streaming.json")


def _configured(kind: str, bootstrap: str, folder: Path) -> tuple[Path, dict[str, str]]:
    """The job with its Kafka connectors pointed at the test broker, each topic a fresh one."""
    job = json.loads((CONFIGS / f"_{kind}-streaming-griffindsl.json").read_text(encoding="utf-8"))
    topics: dict[str, str] = {}
    for source in job["data.sources"]:
        connector = source.get("connector")
        if not connector:
            continue
        config = connector["config"]
        config["kafka.config"]["bootstrap.servers"] = bootstrap
        old = config["topics"]
        topics.setdefault(old, new_topic(bootstrap))
        config["topics"] = topics[old]
    path = folder / f"{kind}.json"
    path.write_text(json.dumps(job, indent=2), encoding="utf-8")
    return path, topics


def _people(*rows: tuple) -> list[tuple[bytes | None, bytes | None]]:
    return [(None, json.dumps(dict(zip(("name", "age"), row, strict=False))).encode()) for row in rows]


def _batch(job: Path, engine: str = "duckdb", remote: str | None = None) -> dict:
    (result,) = stream(job, engine, remote=remote, once=True, state=job.parent / f"{job.stem}.state")
    return result.to_dict()


@pytest.fixture(params=["duckdb", "spark"])
def engine(request) -> tuple[str, str | None]:
    remote = request.getfixturevalue("spark_remote") if request.param == "spark" else None
    return request.param, remote


def test_accuracy_retries_its_misses_against_a_streaming_target(kafka, tmp_path, engine):
    name, remote = engine
    job, topics = _configured("accuracy", kafka.bootstrap, tmp_path)
    source, target = topics["sss"], topics["ttt"]
    produce(kafka.bootstrap, source, _people(("a", 1), ("b", 2), ("c", 3)))
    produce(kafka.bootstrap, target, _people(("a", 1), ("b", 9)))
    first = _batch(job, name, remote)
    # a matches; b (another age) and c do not: 3 rows, 2 missed (the rule's renamed metrics)
    assert first["metrics"] == {"total_count": 3, "miss_count": 2, "matched_count": 1, "matchedFraction": 1 / 3}
    produce(kafka.bootstrap, target, _people(("c", 3), ("d", 4)))
    produce(kafka.bootstrap, source, _people(("d", 4)))
    second = _batch(job, name, remote)
    # d matches this batch's target; c, retried (updatable, time.range -2m), matches it too; b never
    assert second["metrics"] == {"total_count": 1, "miss_count": 0, "matched_count": 1, "matchedFraction": 1.0}
    t1 = str(first["stream"]["tmst"])
    assert second["stream"]["updates"] == {
        "accu": {t1: {"total_count": 3, "miss_count": 1, "matched_count": 2, "matchedFraction": 2 / 3}}
    }


def test_completeness_per_batch(kafka, tmp_path):
    job, topics = _configured("completeness", kafka.bootstrap, tmp_path)
    produce(kafka.bootstrap, topics["test"], _people(("a", 1), (None, 2), ("c",)))
    # name or age missing in two of three messages
    assert _batch(job)["metrics"] == {"total": 3, "incomplete": 2, "complete": 1}


def test_profiling_per_batch(kafka, tmp_path):
    job, topics = _configured("profiling", kafka.bootstrap, tmp_path)
    produce(kafka.bootstrap, topics["test"], _people(("a", 30), ("b", 20), ("a", 40), (None, 10)))
    metrics = _batch(job)["metrics"]
    assert metrics["cnt"] == 3 and metrics["max"] == 40 and metrics["min"] == 10  # count(name) skips NULL
    groups = sorted(metrics["name_group"], key=lambda row: (row["name"] is None, row["name"] or ""))
    assert groups == [{"name": "a", "cnt": 2}, {"name": "b", "cnt": 1}, {"name": None, "cnt": 1}]


def test_distinctness_is_griffins_example_against_the_old_data(kafka, tmp_path, engine):
    name, remote = engine
    job, topics = _configured("distinctness", kafka.bootstrap, tmp_path)
    a, b, c, d = ("A", 1), ("B", 2), ("C", 3), ("D", 4)
    produce(kafka.bootstrap, topics["ttt"], _people(a, a, b, c))
    first = _batch(job, name, remote)
    assert first["metrics"]["total"] == 4 and first["metrics"]["distinct"] == 3
    produce(kafka.bootstrap, topics["ttt"], _people(a, a, b, b, c, d))
    second = _batch(job, name, remote)
    # DistinctnessExpr2DQSteps.scala's comment: dup A=2, B=2, C=1, D=0; only D is distinct
    assert second["metrics"] == {"total": 6, "distinct": 1, "dup": [{"dup": 1, "num": 1}, {"dup": 2, "num": 2}]}


def test_uniqueness_counts_over_the_last_day_of_the_same_topic(kafka, tmp_path):
    job, topics = _configured("uniqueness", kafka.bootstrap, tmp_path)
    produce(kafka.bootstrap, topics["ttt"], _people(("a", 1), ("b", 2), ("b", 2)))
    first = _batch(job)
    assert first["metrics"]["total"] == 3 and first["metrics"]["unique"] == 1  # a
    produce(kafka.bootstrap, topics["ttt"], _people(("a", 1), ("c", 3)))
    second = _batch(job)
    # over both batches a twice, c once: of this batch's values only c is unique
    assert second["metrics"]["total"] == 2 and second["metrics"]["unique"] == 1


def test_timeliness_names_the_columns_its_pre_proc_dropped(kafka, tmp_path, capsys):
    """Griffin's own timeliness config reads ts and end_ts after a pre.proc that keeps only
    name and age: a located error at validation, before anything is read."""
    job, topics = _configured("timeliness", kafka.bootstrap, tmp_path)
    produce(kafka.bootstrap, topics["fff"], _people(("a", 1)))  # validation learns the JSON's columns from it
    assert main(["validate", str(job)]) == 2
    err = capsys.readouterr().err
    assert "UNKNOWN_COLUMN" in err and "ts" in err


def test_the_env_gives_the_trigger_and_says_what_it_does_not_apply(kafka, tmp_path, capsys):
    job, topics = _configured("completeness", kafka.bootstrap, tmp_path)
    produce(kafka.bootstrap, topics["test"], _people(("a", 1)))
    state = str(tmp_path / "s.duckdb")
    assert main(["stream", str(job), "--env", ENV, "--once", "--format", "json", "--state", state]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["metrics"] == {"total": 1, "incomplete": 0, "complete": 1}
    # ZooKeeper, Spark checkpoints, the process loop: reported once, not applied
    assert "spark.checkpoint.dir, spark.process.interval, spark.init.clear, griffin.checkpoint" in captured.err
    assert "data.sources[0].connector.config.kafka.config.group.id" in captured.err


def test_an_empty_topic_cannot_say_what_its_json_holds(kafka, tmp_path, capsys):
    job, _ = _configured("completeness", kafka.bootstrap, tmp_path)
    assert main(["validate", str(job)]) == 2
    assert "EMPTY_JSON" in capsys.readouterr().err


def test_run_refuses_a_streaming_job_and_names_stream(kafka, tmp_path, capsys):
    job, _ = _configured("completeness", kafka.bootstrap, tmp_path)
    assert main(["run", str(job)]) == 2
    assert "gryph stream" in capsys.readouterr().err
