"""A run's OpenLineage events (issue 45 item 1-2): START, then COMPLETE or FAIL, valid against the
kept spec of the client's version, with the data-quality metrics and assertions of each input
worked out by hand from the CSV (tests/lineage/lineage_support.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gryph.client.cli.main import main
from tests.lineage.lineage_support import Collector, people, read_events, validate


@pytest.fixture
def collector():
    server = Collector()
    yield server
    server.close()


def _run(suite, *args: str) -> int:
    return main(["run", str(suite), "--no-history", "--quiet", *args])


def _only_input(event: dict) -> dict:
    (dataset,) = event["inputs"]
    return dataset


def test_a_failed_blocking_check_ends_the_run_with_fail(tmp_path, capsys):
    suite, events = people(tmp_path), tmp_path / "events.jsonl"
    assert _run(suite, "--openlineage", str(events)) == 1  # the verdict, as without lineage
    start, end = read_events(events)
    for event in (start, end):
        validate(event)
    assert (start["eventType"], end["eventType"]) == ("START", "FAIL")
    assert start["run"]["runId"] == end["run"]["runId"]
    assert end["job"] == {**end["job"], "namespace": "gryph", "name": "people_daily"}
    dataset = _only_input(end)
    assert (dataset["namespace"], dataset["name"]) == ("file", str(tmp_path / "people.csv"))
    assert _only_input(start)["name"] == dataset["name"]
    metrics = dataset["inputFacets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 5
    columns = {name: {k: v for k, v in m.items() if k != "quantiles"} for name, m in metrics["columnMetrics"].items()}
    assert columns == {
        "name": {"nullCount": 1, "distinctCount": 3},  # Ann, Bob, Émile
        "id": {"distinctCount": 4},
        "score": {"count": 4, "min": -3, "max": 20, "sum": 32.5},
    }
    # the same facets as dataset facets, as dbt's integration emits them
    assert dataset["facets"]["dataQualityMetrics"]["columnMetrics"] == metrics["columnMetrics"]
    assertions = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert dataset["facets"]["dataQualityAssertions"]["assertions"] == assertions
    by_name = {a["name"]: a for a in assertions}
    assert by_name["names complete"] == {
        **by_name["names complete"],
        "assertion": "completeness",
        "success": False,
        "column": "name",
        "severity": "error",
        "expected": "== 0",
        "actual": "1",
    }
    assert by_name["enough rows"] == {
        **by_name["enough rows"],
        "success": False,
        "severity": "warn",
        "expected": ">= 10",
        "actual": "5",
    }
    tests = {t["name"]: t for t in end["run"]["facets"]["test"]["tests"]}
    assert {name: (t["status"], t["severity"]) for name, t in tests.items()} == {
        "names complete": ("fail", "error"),
        "enough rows": ("fail", "warn"),
    }


def test_a_run_whose_only_failure_is_a_warning_completes(tmp_path, capsys):
    suite, events = people(tmp_path, op=">="), tmp_path / "events.jsonl"
    assert _run(suite, "--openlineage", str(events)) == 0
    start, end = read_events(events)
    validate(end)
    assert (start["eventType"], end["eventType"]) == ("START", "COMPLETE")
    tests = {t["name"]: t["status"] for t in end["run"]["facets"]["test"]["tests"]}
    assert tests == {"names complete": "pass", "enough rows": "fail"}


def test_strict_makes_a_failed_warning_fail_the_run_and_its_event(tmp_path, capsys):
    suite, events = people(tmp_path, op=">="), tmp_path / "events.jsonl"
    assert _run(suite, "--strict", "--openlineage", str(events)) == 1
    assert read_events(events)[-1]["eventType"] == "FAIL"


def test_a_run_that_breaks_ends_with_fail_and_its_error(tmp_path, capsys):
    suite, events = people(tmp_path), tmp_path / "events.jsonl"
    (tmp_path / "people.csv").unlink()
    code = _run(suite, "--openlineage", str(events))
    assert code not in (0, 1)
    start, end = read_events(events)
    validate(end)
    assert (start["eventType"], end["eventType"]) == ("START", "FAIL")
    error = end["run"]["facets"]["errorMessage"]
    assert error["programmingLanguage"] == "python" and "people.csv" in error["message"]
    assert "dataQualityMetrics" not in _only_input(end)["inputFacets"]


def test_events_reach_a_collector_by_url_and_by_openlineage_url(tmp_path, collector, capsys, monkeypatch):
    suite = people(tmp_path)
    assert _run(suite, "--openlineage", collector.url, "--openlineage-namespace", "nightly") == 1
    assert collector.paths == ["/api/v1/lineage"] * 2
    assert [e["eventType"] for e in collector.events] == ["START", "FAIL"]
    assert {e["job"]["namespace"] for e in collector.events} == {"nightly"}
    for event in collector.events:
        validate(event)
    # the client's own configuration: OPENLINEAGE_URL, the namespace from OPENLINEAGE_NAMESPACE
    monkeypatch.setenv("OPENLINEAGE_URL", collector.url)
    monkeypatch.setenv("OPENLINEAGE_NAMESPACE", "from-env")
    assert _run(suite) == 1
    assert [e["eventType"] for e in collector.events[2:]] == ["START", "FAIL"]
    assert {e["job"]["namespace"] for e in collector.events[2:]} == {"from-env"}


def test_openlineage_config_names_the_clients_file_transport(tmp_path, capsys, monkeypatch):
    suite, events = people(tmp_path, op=">="), tmp_path / "from-config.jsonl"
    config = tmp_path / "openlineage.yml"
    config.write_text(f"transport:\n  type: file\n  log_file_path: {events}\n  append: true\n", encoding="utf-8")
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(config))
    assert _run(suite) == 0
    assert [e["eventType"] for e in read_events(events)] == ["START", "COMPLETE"]


@pytest.mark.parametrize("content", [None, "transport: ["], ids=["missing", "not YAML"])
def test_an_openlineage_config_without_a_transport_is_refused_before_the_run(tmp_path, capsys, monkeypatch, content):
    config = tmp_path / "openlineage.yml"
    if content is not None:
        config.write_text(content, encoding="utf-8")
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(config))
    assert _run(people(tmp_path)) == 2
    assert "configures no OpenLineage transport" in capsys.readouterr().err


def test_without_configuration_nothing_is_sent_and_the_client_is_not_loaded(tmp_path):
    people(tmp_path)
    environment = {name: value for name, value in os.environ.items() if not name.startswith("OPENLINEAGE")}
    program = (
        "import sys; from gryph.client.cli.main import main; "
        "code = main(['run', 'people.dq', '--no-history', '--quiet']); "
        "sys.exit(10 + code if 'openlineage' in sys.modules else code)"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=environment, capture_output=True)
    assert done.returncode == 1, done.stderr


def test_a_bad_openlineage_option_is_refused_before_the_run(tmp_path, capsys):
    suite = people(tmp_path)
    assert _run(suite, "--openlineage", "kafka://broker:9092") == 2
    assert "--openlineage takes an http(s) URL or a file" in capsys.readouterr().err
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    assert _run(suite, "--openlineage", str(tmp_path / "a-file" / "events.jsonl")) == 2


def test_the_clients_environment_variables_do_not_outlive_it(monkeypatch, tmp_path):
    # openlineage-python writes OPENLINEAGE__TRANSPORT__* into the process's environment when
    # OPENLINEAGE_URL is set: left there, every later run in the process (and every process it
    # starts) read as configured by them (the full test run's stream tests broke so)
    from gryph.client.lineage.emitter import lineage_target

    before = {k for k in os.environ if k.startswith("OPENLINEAGE")}
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9")
    assert lineage_target(None) is not None
    monkeypatch.delenv("OPENLINEAGE_URL")
    assert {k for k in os.environ if k.startswith("OPENLINEAGE")} == before
    assert lineage_target(None) is None
