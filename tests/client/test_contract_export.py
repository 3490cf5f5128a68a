"""``gryph export odcs``: a suite written as a contract that validates against the ODCS schema and,
run, gives the same metrics and verdict as the suite."""

from __future__ import annotations

import pytest
import yaml

from gryph.client import run
from gryph.client.cli.main import main
from gryph.compiler.contracts.contract_export import export_contract
from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.errors import InvalidInput

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


def test_a_suite_of_two_sources_is_refused(tmp_path):
    suite = tmp_path / "two.dq"
    suite.write_text('source a = csv("a.csv")\nsource b = csv("b.csv")\ncheck "x": rows(a) > 0\n', encoding="utf-8")
    with pytest.raises(InvalidInput) as error:
        export_contract(suite)
    assert error.value.code == "CONTRACT_UNSUPPORTED"
    assert error.value.message == "export writes a suite of one source (this one has 2)"
