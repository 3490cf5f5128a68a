"""Each batch of `gryph stream` is an OpenLineage run of its own: START and COMPLETE, or FAIL for
a batch that fails its policy, its input the stream's folder, its job of processing type
STREAMING; the run id is the batch's."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gryph.client.cli.main import main
from tests.lineage.lineage_support import read_events, validate

SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, user string",
                       settle = "1ms", max_files_per_batch = 1)
completeness users on landed: user
check "users present": metrics["users"]["incomplete"] == 0
"""


def _arrive(folder: Path, name: str, rows: list[dict], age_s: float) -> None:
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))


def test_each_batch_is_a_run_with_its_own_events(tmp_path, capsys):
    (tmp_path / "incoming").mkdir()
    suite = tmp_path / "landed.dq"
    suite.write_text(SUITE, encoding="utf-8")
    _arrive(tmp_path, "1.json", [{"id": 1, "user": "ä"}, {"id": 2, "user": "b"}], age_s=20)
    _arrive(tmp_path, "2.json", [{"id": 3, "user": None}], age_s=10)
    events = tmp_path / "events.jsonl"
    state = str(tmp_path / "state.duckdb")
    code = main(["stream", str(suite), "--state", state, "--available-now", "--openlineage", str(events)])
    assert code == 1  # the second batch failed its check
    written = read_events(events)
    for event in written:
        validate(event)
    assert [e["eventType"] for e in written] == ["START", "COMPLETE", "START", "FAIL"]
    first, second = written[:2], written[2:]
    assert first[0]["run"]["runId"] == first[1]["run"]["runId"] != second[0]["run"]["runId"]
    assert {e["job"]["facets"]["jobType"]["processingType"] for e in written} == {"STREAMING"}
    (dataset,) = first[1]["inputs"]
    assert (dataset["namespace"], dataset["name"]) == ("file", str(tmp_path / "incoming"))
    metrics = [e["inputs"][0]["inputFacets"]["dataQualityMetrics"] for e in (first[1], second[1])]
    assert [(m["rowCount"], m["columnMetrics"]["user"]["nullCount"]) for m in metrics] == [(2, 0), (1, 1)]
