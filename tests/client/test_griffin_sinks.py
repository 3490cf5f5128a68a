"""Griffin's env.json sinks named by a job: console to standard error, hdfs as Griffin's folder
layout on a local path, anything else refused by name before the run."""

from __future__ import annotations

import json

from gryph.client.cli.main import main

STAMP = 1700000000000


def setup_job(tmp_path, sinks: list[str], env_sinks: list[dict]) -> tuple[str, str]:
    (tmp_path / "ids.csv").write_text('id\n1\n""\n3\n', encoding="utf-8")
    job = {
        "name": "ids_job",
        "timestamp": STAMP,
        "sinks": sinks,
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "paths": ["ids.csv"], "options": {"header": "true"}},
                },
            }
        ],
        "evaluate.rule": {
            "rules": [{"dsl.type": "griffin-dsl", "dq.type": "completeness", "out.dataframe.name": "c", "rule": "id"}]
        },
    }
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    (tmp_path / "env.json").write_text(json.dumps({"spark": {"config": {}}, "sinks": env_sinks}), encoding="utf-8")
    return str(tmp_path / "job.json"), str(tmp_path / "env.json")


def test_console_and_hdfs_sinks(tmp_path, capsys):
    persist = tmp_path / "persist"
    job, env = setup_job(
        tmp_path,
        ["consoleSink", "HDFS"],
        [
            {"name": "consoleSink", "type": "CONSOLE"},
            {"name": "hdfs", "type": "HDFS", "config": {"path": f"file://{persist}"}},
        ],
    )
    assert main(["run", job, "--env", env, "--no-history", "--format", "json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)  # the report on stdout stays one JSON document
    # rows 1, (empty: NULL), 3: three rows, one incomplete
    metrics = {"total": 3, "incomplete": 1, "complete": 2}
    printed = json.loads(captured.err.split("\n", 1)[1].strip())
    assert (printed["job_name"], printed["tmst"], printed["metrics"]) == ("ids_job", STAMP, metrics)
    folder = persist / "ids_job" / str(STAMP)
    assert sorted(p.name for p in folder.iterdir()) == ["_FINISH", "_METRICS", "_START"]
    assert json.loads((folder / "_METRICS").read_text())["metrics"] == metrics


def test_a_sink_gryph_cannot_write_fails_before_the_run(tmp_path, capsys):
    job, env = setup_job(tmp_path, ["es"], [{"name": "es", "type": "ELASTICSEARCH", "config": {"api": "x"}}])
    assert main(["run", job, "--env", env, "--no-history"]) == 2
    err = capsys.readouterr().err
    assert "UNSUPPORTED" in err and "'es'" in err and "env.json:1:" in err


def test_a_sink_the_env_does_not_define(tmp_path, capsys):
    job, env = setup_job(tmp_path, ["missing"], [{"name": "consoleSink", "type": "CONSOLE"}])
    assert main(["run", job, "--env", env, "--no-history"]) == 2
    assert "'missing'" in capsys.readouterr().err


def test_measures_write_one_document_each(tmp_path, capsys):
    (tmp_path / "ids.csv").write_text('id\n1\n1\n""\n', encoding="utf-8")
    job = {
        "name": "m_job",
        "timestamp": STAMP,
        "sinks": ["hdfs"],
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "paths": ["ids.csv"], "options": {"header": "true"}},
                },
            }
        ],
        "measures": [
            {
                "name": "comp",
                "type": "completeness",
                "data.source": "src",
                "config": {"expr": "id is not null"},
                "out": [{"type": "metric"}],
            },
            {
                "name": "dup",
                "type": "duplication",
                "data.source": "src",
                "config": {"expr": "id", "bad.record.definition": "duplicate"},
                "out": [{"type": "metric"}],
            },
        ],
    }
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    (tmp_path / "env.json").write_text(
        json.dumps({"sinks": [{"name": "hdfs", "type": "hdfs", "config": {"path": str(tmp_path / "out")}}]}),
        encoding="utf-8",
    )
    assert main(["run", str(tmp_path / "job.json"), "--env", str(tmp_path / "env.json"), "--no-history"]) == 0
    lines = (tmp_path / "out" / "m_job" / str(STAMP) / "_METRICS").read_text().splitlines()
    documents = {d["measure_name"]: d for d in map(json.loads, lines)}
    assert (documents["comp"]["measure_type"], documents["comp"]["data_source"]) == ("Completeness", "src")
    # rows 1, 1, NULL: two complete; one duplicate (the second 1), the NULL key flags nothing
    assert {m["metric_name"]: m["metric_value"] for m in documents["comp"]["metrics"]} == {
        "total": 3,
        "complete": 2,
        "incomplete": 1,
    }
    assert {m["metric_name"]: m["metric_value"] for m in documents["dup"]["metrics"]}["duplicate"] == 1


def test_an_hdfs_sink_path_through_a_file_fails_before_the_run(tmp_path, capsys):
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    job, env = setup_job(
        tmp_path,
        ["hdfs"],
        [{"name": "hdfs", "type": "HDFS", "config": {"path": str(tmp_path / "blocker" / "persist")}}],
    )
    assert main(["run", job, "--env", env, "--no-history"]) == 2
    assert "BAD_OUTPUT_PATH" in capsys.readouterr().err
