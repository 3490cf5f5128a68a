"""``gryph export odcs`` of a Griffin generation-B (``measures``) config: each measure a ``griffin``
statement in the contract's ``custom`` rule, so the contract, run, gives the config's metrics and
records, on DuckDB and on Spark."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from gryph.client import run
from gryph.client.cli.main import main
from gryph.client.run.engines import open_engine
from gryph.compiler.contracts.contract_suite import load_contract

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _engine(name, request):
    return open_engine("spark", request.getfixturevalue("spark_remote")) if name == "spark" else name


def _same(config, contract, engine):
    original, exported = run(str(config), engine).to_dict(), run(str(contract), engine).to_dict()
    for key in ("metrics", "records", "check", "pass"):
        assert original[key] == exported[key], key
    return exported


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_example_measures_config_exported_gives_its_metrics(tmp_path, engine, request):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    config = tmp_path / "examples" / "griffin" / "measures.json"
    contract = config.with_suffix(".odcs.yaml")
    assert main(["export", "odcs", str(config), "-o", str(contract)]) == 0
    load_contract(contract)  # validated against the ODCS v3.1.0 schema on the way
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    # the parquet copy is the server's object; the csv (its options) and the measures are suite text
    assert [obj["name"] for obj in written["schema"]] == ["users_copy"]
    lines = written["schema"][0]["quality"][0]["implementation"].splitlines()
    assert lines[0] == 'source users = csv("../data/users.csv", header = "true", inferSchema = "true")'
    assert [line.split(" ")[1] for line in lines[1:]] == [
        "completeness", "duplication", "profiling", "accuracy", "sparkSQL", "schemaConformance",
    ]  # fmt: skip
    metrics = _same(config, contract, _engine(engine, request))["metrics"]
    # by hand (examples/data/users.csv): user 10042 has no post_code; 10050 is there twice
    assert metrics["completeness_measure"] == {"total": 50, "complete": 49, "incomplete": 1}
    assert metrics["duplication_measure"]["duplicate"] == 1


PEOPLE = [
    {"id": 1, "näme": "Ann", "post code": "100"},
    {"id": 2, "näme": "Bo", "post code": "12a"},
    {"id": 3, "näme": None, "post code": None},
    {"id": 4, "näme": "Ann", "post code": "100"},
    {"id": 5, "näme": "Ann", "post code": "200"},
    {"id": 6, "näme": None, "post code": "300"},
]
REFERENCE = [{"id": 1, "näme": "Ann"}, {"id": 2, "näme": "Bo"}, {"id": 2, "näme": "Bo"}, {"id": 3, "näme": None},
             {"id": 9, "näme": "Cy"}]  # fmt: skip
METRIC, RECORD = {"type": "metric"}, {"type": "record"}
MEASURES = {
    "name": "edge_measures",
    "process.type": "batch",
    "data.sources": [
        {"name": "people", "connector": {"type": "file", "config": {"format": "json", "paths": ["people.json"]}}},
        {"name": "ref", "connector": {"type": "file", "config": {"format": "json", "paths": ["ref.json"]}}},
    ],
    "measures": [
        {"name": "named", "type": "completeness", "data.source": "people", "config": {"expr": "näme is not null"},
         "out": [RECORD]},
        {"name": "dups", "type": "duplication", "data.source": "people",
         "config": {"expr": "näme, post code", "bad.record.definition": "non_unique"}, "out": [METRIC, RECORD]},
        {"name": "rows", "type": "duplication", "data.source": "people",
         "config": {"bad.record.definition": "distinct"}, "out": [METRIC]},
        {"name": "known", "type": "accuracy", "data.source": "people",
         "config": {"ref.source": "ref", "expr": [{"source.col": "id", "ref.col": "id"},
                                                   {"source.col": "näme", "ref.col": "näme"}]},
         "out": [METRIC, RECORD]},
        {"name": "codes", "type": "schemaConformance", "data.source": "people",
         "config": {"expr": [{"source.col": "post code", "type": "int"}]}, "out": [METRIC, RECORD]},
        {"name": "groups", "type": "sparkSQL", "data.source": "people",
         "config": {"expr": "SELECT `näme`, count(*) AS n FROM people GROUP BY `näme`",
                    "bad.record.definition": "n > 1"}, "out": [METRIC, RECORD]},
        {"name": "ids", "type": "profiling", "data.source": "people",
         "config": {"expr": "id", "approx.distinct.count": False, "round.scale": 1}, "out": [METRIC]},
    ],
}  # fmt: skip


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_measures_of_nulls_duplicates_and_odd_names_exported_give_the_same_metrics(tmp_path, engine, request):
    for name, rows in (("people.json", PEOPLE), ("ref.json", REFERENCE)):
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    config = tmp_path / "edge.json"
    config.write_text(json.dumps(MEASURES), encoding="utf-8")
    contract = tmp_path / "edge.odcs.yaml"
    assert main(["export", "odcs", str(config), "-o", str(contract)]) == 0
    implementation = yaml.safe_load(contract.read_text(encoding="utf-8"))["schema"][-1]["quality"][0]["implementation"]
    assert "griffin duplication dups on people: näme, `post code` with bad.record.definition" in implementation
    exported = _same(config, contract, _engine(engine, request))
    metrics = exported["metrics"]
    # by hand: `named` has no metric output (its 2 NULL names are records); (Ann, 100) twice among the
    # keys, the all-NULL key row flags nothing; NULL keys are inaccurate and 4, 5 are not in ref; "12a" and
    # NULL do not read as int; the query's groups Ann 3, Bo 1, NULL 2
    assert "named" not in metrics and exported["records"]["named"]["count"] == 2
    assert metrics["dups"] == {"total": 6, "duplicate": 1, "unique": 3, "non_unique": 1, "distinct": 4}
    assert metrics["rows"] == {"total": 6, "duplicate": 0, "unique": 6, "non_unique": 0, "distinct": 6}
    assert "rows" not in exported["records"]
    assert metrics["known"] == {"total": 6, "accurate": 2, "inaccurate": 4}
    assert metrics["codes"] == {"total": 6, "complete": 4, "incomplete": 2}
    assert metrics["groups"] == {"total": 3, "complete": 1, "incomplete": 2}
    assert (metrics["ids"]["id"]["min"], metrics["ids"]["id"]["max"], metrics["ids"]["id"]["avg"]) == (1, 6, 3.5)
