"""``gryph export odcs``: a suite written as a contract that validates against the ODCS schema and,
run, gives the same metrics and verdict as the suite."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path

import pytest
import yaml

from gryph.client import run
from gryph.client.cli.export_command import exported_contract
from gryph.client.cli.main import main
from gryph.client.run.engines import open_engine
from gryph.compiler.contracts.contract_export import export_contract
from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.errors import InvalidInput
from tests.support.plan_helpers import multiset

SUITE = """suite people
source people = csv("people.csv")
schema people: required(id bigint, name string, score double)
completeness names on people: name
check "names complete": metrics["names"]["incomplete"] == 0   # one empty name
warn check "plenty": rows(people where score > 1) > 5
check "ids": rows(people where id is null) == 0
"""


def test_export_then_run_gives_the_suite_s_verdict(tmp_path, capsys):
    (tmp_path / "people.csv").write_text("id,name,score\n1,Ann,1.5\n2,,2\n3,Bo,\n", encoding="utf-8")
    suite = tmp_path / "people.dq"
    suite.write_text(SUITE, encoding="utf-8")
    contract = tmp_path / "people.odcs.yaml"
    assert main(["export", "odcs", str(suite), "-o", str(contract)]) == 0
    loaded = load_contract(contract)  # validated against the ODCS v3.1.0 schema on the way
    assert [(p["name"], p.get("logicalType")) for p in _properties(contract)] == [
        ("id", "integer"),
        ("name", "string"),
        ("score", "number"),
    ]
    assert sorted(loaded.sources) == ["people"]
    original, exported = run(str(suite), "duckdb"), run(str(contract), "duckdb")
    # by hand: one empty name of 3 (incomplete 1: fails); scores > 1: 1.5 and 2, not more than 5 (a warning);
    # no NULL id; the schema holds
    expected = {"names complete": False, "plenty": False, "ids": True, "schema people": True}
    assert original.to_dict()["check"] == expected == exported.to_dict()["check"]
    assert original.metrics == exported.metrics and original.to_dict()["pass"] is exported.to_dict()["pass"] is False


def _properties(contract):
    return yaml.safe_load(contract.read_text(encoding="utf-8"))["schema"][0]["properties"]


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def examples(tmp_path):
    """A copy of examples/: each contract is written beside its suite, as a user would."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    return tmp_path / "examples"


@pytest.mark.parametrize("name", sorted(path.name for path in EXAMPLES.glob("*.dq")))
def test_every_example_suite_exported_runs_to_the_same_metrics_and_verdict(examples, name):
    suite = examples / name
    contract = suite.with_suffix(".odcs.yaml")
    contract.write_text(export_contract(suite), encoding="utf-8")
    _same_run(run(str(suite), "duckdb"), run(str(contract), "duckdb"))


def _same_run(original, exported):
    first, second = original.to_dict(), exported.to_dict()
    for key in ("metrics", "measure", "check", "pass", "records"):
        assert first.get(key) == second.get(key), key


def test_a_suite_of_several_sources_is_one_object_per_served_file(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("id,v\n1,x\n2,\n2,y\n", encoding="utf-8")
    (data / "b.csv").write_text("id\n1\n3\n", encoding="utf-8")
    (data / "c.json").write_text('{"id": 1}\n', encoding="utf-8")
    suite = tmp_path / "three.dq"
    suite.write_text(
        "suite three\n"
        'source a = csv("data/a.csv")\n'
        'source b = csv("data/b.csv")\n'
        'source c = json("data/c.json")\n'
        'source d = csv("data/a.csv", delimiter = ",")\n'
        "schema a: required(id bigint, v string)\n"
        "schema b: required(id bigint)\n"
        "accuracy ab on a, b: a.id = b.id\n"
        'check "a in b": metrics["ab"]["matchedFraction"] == 1\n'
        'check "c": rows(c) == 1\n'
        'check "d": rows(d where v is null) == 1\n',
        encoding="utf-8",
    )
    contract = tmp_path / "three.odcs.yaml"
    assert main(["export", "odcs", str(suite), "-o", str(contract)]) == 0
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    assert written["servers"] == [{"server": "local", "type": "local", "format": "csv", "path": "data/{object}.csv"}]
    assert [(o["name"], [p["name"] for p in o["properties"]]) for o in written["schema"]] == [
        ("a", ["id", "v"]),
        ("b", ["id"]),
    ]
    assert "physicalName" not in written["schema"][0]  # the file is named as the object
    custom = written["schema"][1]["quality"][0]["implementation"]  # the last object: after every source
    assert custom.splitlines()[:2] == [
        'source c = json("data/c.json")',
        'source d = csv("data/a.csv", delimiter = ",")',
    ]
    original, exported = run(str(suite), "duckdb"), run(str(contract), "duckdb")
    # by hand: ids 1, 2, 2 of a; 1 of them in b (1/3 matched); c has 1 row; a's one empty v
    assert exported.to_dict()["check"] == {"a in b": False, "c": True, "d": True, "schema a": True, "schema b": True}
    assert exported.metrics["ab"]["matchedFraction"] == pytest.approx(1 / 3)
    _same_run(original, exported)


def test_files_of_other_names_or_folders_get_a_physical_name(tmp_path):
    for name in ("orders_2024.parquet", "items_2024.parquet"):
        shutil.copy(EXAMPLES / "data" / "users_copy.parquet", tmp_path / name)
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source orders = parquet("orders_2024.parquet")\nsource items = parquet("items_2024.parquet")\n'
        'check "same": rows(orders) == rows(items)\n',
        encoding="utf-8",
    )
    written = yaml.safe_load(export_contract(suite))
    assert written["servers"][0]["path"] == "{object}.parquet"
    assert [(o["name"], o["physicalName"]) for o in written["schema"]] == [
        ("orders", "orders_2024"),
        ("items", "items_2024"),
    ]
    contract = tmp_path / "s.odcs.yaml"
    contract.write_text(export_contract(suite), encoding="utf-8")
    assert run(str(contract), "duckdb").to_dict()["check"] == {"same": True}


def test_a_suite_without_a_file_a_server_reads_is_refused(tmp_path):
    suite = tmp_path / "two.dq"
    suite.write_text('source a = csv("a.csv", header = true)\ncheck "x": rows(a) > 0\n', encoding="utf-8")
    with pytest.raises(InvalidInput) as error:
        export_contract(suite)
    assert error.value.code == "CONTRACT_UNSUPPORTED"
    assert error.value.message.startswith("export needs a source a contract's server can read")


def test_a_griffin_config_exported_runs_to_the_same_metrics(examples):
    config = examples / "griffin" / "accuracy.json"
    contract = config.with_suffix(".odcs.yaml")
    assert main(["export", "odcs", str(config), "-o", str(contract)]) == 0
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    assert written["servers"][0] == {
        "server": "local",
        "type": "local",
        "format": "avro",
        "path": "../data/{object}.avro",
    }
    assert [(o["name"], o["physicalName"]) for o in written["schema"]] == [
        ("source", "users_info_src"),
        ("target", "users_info_target"),
    ]
    original, exported = run(str(config), "duckdb"), run(str(contract), "duckdb")
    # a Griffin job's metric document merges its rules' metrics; a suite keeps each under its rule's name
    assert original.metrics == exported.metrics["accu"]
    # by hand (docs/griffin.md's fixture): 4 of the 50 source users differ in the target
    assert (exported.metrics["accu"]["miss_count"], exported.metrics["accu"]["total_count"]) == (4, 50)


def test_a_griffin_config_with_pre_proc_steps_is_refused_at_their_key(examples):
    with pytest.raises(InvalidInput) as error:
        exported_contract(str(examples / "griffin" / "profiling.json"))
    assert error.value.code == "CONTRACT_UNSUPPORTED"
    assert error.value.message.startswith("export: pre.proc steps (Spark SQL over a connector's rows")
    assert (error.value.location.line, error.value.location.column) == (12, 9)  # "pre.proc" of data.sources[0]


@pytest.mark.parametrize("name", ["seed.dq", "users.dq"])
def test_an_exported_suite_runs_alike_on_spark(examples, name, spark_remote):
    suite = examples / name
    contract = suite.with_suffix(".odcs.yaml")
    contract.write_text(export_contract(suite), encoding="utf-8")
    spark = open_engine("spark", spark_remote)
    _same_run(run(str(suite), spark), run(str(contract), spark))


BITOL = sorted((Path(__file__).resolve().parents[1] / "compiler" / "contracts" / "odcs_examples").glob("*.odcs.yaml"))
HAND_MADE = """kind: DataContract
apiVersion: v3.1.0
status: draft
version: 2.0.0
id: "ünïcode-ids"
description:
  purpose: |
    Two lines
    of purpose.
servers:
  - type: local
    server: here
    path: data/{object}.csv
    format: csv
schema:
  - name: t
    properties:
      - name: "col with space"
        logicalType: string
        examples: [2024-01-31, "x"]
        quality:
          - {metric: nullValues, mustBe: 0, unit: percent}
    quality:
      - type: sql
        query: "SELECT count(*) FROM {object}"
        mustBeGreaterThan: 0
"""


@pytest.mark.parametrize("example", [*BITOL, "hand-made"], ids=lambda e: getattr(e, "name", e))
def test_import_then_export_round_trips_a_contract(tmp_path, example):
    source = tmp_path / "in.odcs.yaml"
    source.write_text(HAND_MADE if example == "hand-made" else example.read_text(encoding="utf-8"), encoding="utf-8")
    written = export_contract(source)
    original = yaml.safe_load(source.read_text(encoding="utf-8"))
    # the one normalisation of data (docs/contracts.md): a date YAML reads unquoted is written as its text
    assert yaml.safe_load(written) == _dates_as_text(original)
    again = tmp_path / "again.odcs.yaml"
    again.write_text(written, encoding="utf-8")
    assert export_contract(again) == written  # and the written form is a fixed point


def _dates_as_text(value):
    if isinstance(value, dict):
        return {key: _dates_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_dates_as_text(item) for item in value]
    return value.isoformat() if isinstance(value, datetime.date) else value


def test_the_hand_made_contract_s_date_and_text_survive(tmp_path):
    source = tmp_path / "in.odcs.yaml"
    source.write_text(HAND_MADE, encoding="utf-8")
    written = yaml.safe_load(export_contract(source))
    assert written["schema"][0]["properties"][0]["examples"] == ["2024-01-31", "x"]
    assert written["description"]["purpose"] == "Two lines\nof purpose.\n"
    assert list(written)[:3] == ["kind", "apiVersion", "status"]  # the contract's own key order


def test_an_exported_contract_that_breaks_the_schema_is_refused(tmp_path):
    source = tmp_path / "bad.odcs.yaml"
    source.write_text("apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1\nstatus: active\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as error:
        export_contract(source)
    assert error.value.code == "CONTRACT_INVALID"
    assert (error.value.location.line, error.value.location.column) == (4, 1)  # at the key `version`


def test_the_docs_contract_exported_runs_to_the_same_checks(tmp_path):
    contract = tmp_path / "users.odcs.yaml"
    docs = (Path(__file__).resolve().parents[2] / "docs" / "contracts.md").read_text(encoding="utf-8")
    contract.write_text(docs.split("<!-- file: users.odcs.yaml -->\n```\n")[1].split("```")[0], encoding="utf-8")
    shutil.copytree(EXAMPLES / "data", tmp_path / "examples" / "data")
    exported = tmp_path / "exported.odcs.yaml"
    exported.write_text(export_contract(contract), encoding="utf-8")
    _same_run(run(str(contract), "duckdb"), run(str(exported), "duckdb"))


HAND_MADE_GRIFFIN = {
    "name": "users_rules",
    "process.type": "batch",
    "data.sources": [
        {"name": "users", "connector": {"type": "file", "config": {"format": "parquet", "paths": ["data/users_copy.parquet"]}}},
        {"name": "orders", "connector": {"type": "file", "config": {"format": "json", "paths": ["data/orders.jsonl"]}}},
    ],
    "evaluate.rule": {
        "rules": [
            {"dsl.type": "griffin-dsl", "dq.type": "completeness", "out.dataframe.name": "contact", "rule": "email, post_code"},
            {"dsl.type": "griffin-dsl", "dq.type": "uniqueness", "out.dataframe.name": "ids", "rule": "user_id",
             "details": {"source": "users", "target": "users", "duplication.array": "dup"}},
            {"dsl.type": "griffin-dsl", "dq.type": "distinct", "out.dataframe.name": "names", "rule": "first_name",
             "details": {"source": "users"}},
            {"dsl.type": "griffin-dsl", "dq.type": "profiling", "out.dataframe.name": "by_country",
             "rule": "country, count(*) as cnt from orders group by country"},
            {"dsl.type": "griffin-dsl", "dq.type": "timeliness", "out.dataframe.name": "delivery",
             "rule": "created_ts, shipped_ts", "details": {"source": "orders", "threshold": "3m",
                                                           "percentile.values": [0.5, 0.95]}},
        ]
    },
}  # fmt: skip


def test_a_griffin_spark_sql_rule_is_refused_as_an_sql_rule(examples):
    config = {**HAND_MADE_GRIFFIN, "evaluate.rule": {"rules": [
        {"dsl.type": "spark-sql", "out.dataframe.name": "n", "rule": "select count(*) as n from users"},
    ]}}  # fmt: skip
    path = examples / "sql.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(InvalidInput) as error:
        exported_contract(str(path))
    assert (error.value.code, error.value.message) == (
        "CONTRACT_UNSUPPORTED",
        "export: an sql rule has no suite statement of the same metrics",
    )


def test_a_hand_made_griffin_config_of_every_rule_kind_runs_to_the_same_metrics(examples):
    config = examples / "rules.json"
    config.write_text(json.dumps(HAND_MADE_GRIFFIN), encoding="utf-8")
    contract = examples / "rules.odcs.yaml"
    contract.write_text(exported_contract(str(config)), encoding="utf-8")
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    assert [o["name"] for o in written["schema"]] == ["users"]  # orders (json) stays a source statement
    original, exported = run(str(config), "duckdb"), run(str(contract), "duckdb")
    assert set(exported.metrics) == {"contact", "ids", "names", "by_country", "delivery"}
    # a Griffin job's metric document merges its rules' metrics in order (a later "total" wins); a
    # profiling rule's rows stay under its name
    merged: dict[str, object] = {}
    for name, metrics in exported.metrics.items():
        merged |= metrics if isinstance(metrics, dict) else {name: metrics}
    # a GROUP BY with no ORDER BY yields its rows in no defined order (design.md): a multiset
    grouped = ("by_country",)
    assert {k: v for k, v in original.metrics.items() if k not in grouped} == {
        k: v for k, v in merged.items() if k not in grouped
    }
    assert multiset(original.metrics["by_country"]) == multiset(merged["by_country"])
    assert exported.metrics["contact"]["total"] == 50  # by hand: the 50 users of users_copy.parquet


def test_a_file_of_unicode_and_spaces_in_its_name_is_read_by_its_physical_name(tmp_path):
    folder = tmp_path / "dätä"
    folder.mkdir()
    shutil.copy(EXAMPLES / "data" / "users_copy.parquet", folder / "üsers copy.parquet")
    shutil.copy(EXAMPLES / "data" / "users_copy.parquet", folder / "b.parquet")
    suite = tmp_path / "u.dq"
    suite.write_text(
        'source u = parquet("dätä/üsers copy.parquet")\nsource b = parquet("dätä/b.parquet")\n'
        'check "same rows": rows(u) == rows(b)\ncheck "no null id": rows(u where user_id is null) == 0\n',
        encoding="utf-8",
    )
    contract = tmp_path / "u.odcs.yaml"
    contract.write_text(export_contract(suite), encoding="utf-8")
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    assert written["servers"][0]["path"] == "dätä/{object}.parquet"
    assert [(o["name"], o.get("physicalName")) for o in written["schema"]] == [("u", "üsers copy"), ("b", None)]
    assert run(str(contract), "duckdb").to_dict()["check"] == {"same rows": True, "no null id": True}
