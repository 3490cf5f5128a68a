"""Reading ODCS contracts: Bitol's own examples against the v3.1.0 schema, errors located in the
YAML with the closest key named, servers picked by name, and checks named by contract path."""

from __future__ import annotations

from pathlib import Path

import pytest

from gryph.client import validate
from gryph.client.run.runner import load_suite
from gryph.compiler.contracts.contract_files import is_contract
from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.contracts.schema_validation import validate_contract
from gryph.compiler.contracts.yaml_document import read_yaml
from gryph.compiler.errors import InvalidInput

EXAMPLES = sorted((Path(__file__).parent / "odcs_examples").glob("*.odcs.yaml"))

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\n"
SERVERS = "servers:\n  - server: files\n    type: local\n    format: csv\n    path: t.csv\n  - server: db\n    type: postgres\n    host: localhost\n    port: 5432\n    database: shop\n    schema: public\n"


def _write(tmp_path, text: str) -> Path:
    path = tmp_path / "c.odcs.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _error(path: Path, server: str | None = None) -> InvalidInput:
    with pytest.raises(InvalidInput) as error:
        load_contract(path, server)
    return error.value


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_bitol_examples_validate_against_the_schema(example):
    assert len(EXAMPLES) == 18  # every example of bitol-io/open-data-contract-standard docs/examples at e6a1c66
    validate_contract(read_yaml(example.read_text(encoding="utf-8"), str(example)))
    assert is_contract(example)


def test_a_misspelt_key_is_located_with_the_closest_key(tmp_path):
    path = _write(
        tmp_path, HEAD + SERVERS + "schema:\n  - name: t\n    properties:\n      - name: id\n        requird: true\n"
    )
    error = _error(path)
    assert (error.code, error.location.line, error.location.column) == ("CONTRACT_INVALID", 21, 9)
    assert error.message == "schema[0].properties[0]: unknown key 'requird'"
    assert error.hint == "did you mean 'required'?"


def test_a_value_of_the_wrong_type_is_located_at_its_key(tmp_path):
    error = _error(_write(tmp_path, HEAD.replace("version: 1.0.0", "version: 1") + SERVERS))
    assert (error.location.line, error.location.column) == (4, 1)
    assert error.message == "version: 1 is not of type 'string'"


def test_yaml_syntax_is_located(tmp_path):
    error = _error(_write(tmp_path, HEAD + "schema:\n  - name: [t\n"))
    assert error.code == "SYNTAX_ERROR" and error.location.line == 8


def test_servers_by_name(tmp_path):
    text = (
        HEAD + SERVERS + "schema:\n  - name: t\n    quality:\n      - metric: rowCount\n        mustBeGreaterThan: 0\n"
    )
    path = _write(tmp_path, text)
    assert load_contract(path).sources["t"].format == "csv"  # the first
    assert load_contract(path, "db").sources["t"].format == "postgres"
    error = _error(path, "fils")
    assert error.message == "servers: the contract has no server 'fils'" and error.hint == "did you mean 'files'?"
    assert error.location.line == 6


def test_no_server_is_refused_at_the_root(tmp_path):
    error = _error(_write(tmp_path, HEAD + "schema:\n  - name: t\n"))
    assert error.code == "CONTRACT_UNSUPPORTED" and error.location.line == 1


def test_checks_are_named_by_contract_path_and_located_there(tmp_path):
    text = (
        HEAD
        + SERVERS
        + (
            "schema:\n  - name: t\n    properties:\n      - name: a\n      - name: b\n"
            "        quality:\n          - metric: nullValues\n            mustBe: 0\n            severity: info\n"
        )
    )
    suite = load_suite(_write(tmp_path, text))
    (check,) = suite.checks
    assert (check.name, check.warn, check.location.line) == ("schema[0].properties[1].quality[0]", True, 23)


def test_a_custom_gryph_rule_runs_its_dq_text_and_text_rules_are_not_run(tmp_path):
    text = (
        HEAD
        + SERVERS
        + (
            "schema:\n  - name: t\n    quality:\n      - type: text\n        description: rows are plenty\n"
            "      - type: custom\n        engine: gryph\n        implementation: |\n"
            '          check "has rows": rows(t) > 0\n'
            "      - type: custom\n        engine: soda\n        implementation: 'row_count > 0'\n"
        )
    )
    suite = load_suite(_write(tmp_path, text))
    assert [c.name for c in suite.checks] == ["has rows"]


def test_an_error_in_a_custom_rule_points_into_the_contract(tmp_path):
    text = (
        HEAD
        + SERVERS
        + (
            "schema:\n  - name: t\n    quality:\n      - type: custom\n        engine: gryph\n"
            '        implementation: |\n          check "x": rows(nope) > 0\n'
        )
    )
    with pytest.raises(InvalidInput) as error:
        load_suite(_write(tmp_path, text))
    assert error.value.message.startswith("schema[0].quality[0].implementation: ")
    assert error.value.location.line == 22  # the implementation key


def test_a_type_error_found_by_the_check_pass_points_into_the_contract(tmp_path):
    (tmp_path / "t.csv").write_text("n\n1\n2\n", encoding="utf-8")  # n is an integer column
    text = (
        HEAD
        + SERVERS
        + (
            "schema:\n  - name: t\n    properties:\n      - name: n\n        quality:\n"
            "          - metric: invalidValues\n            arguments:\n              validValues: ['1']\n"
            "            mustBe: 0\n"
        )
    )
    path = _write(tmp_path, text)
    with pytest.raises(InvalidInput) as error:
        validate(str(path), "duckdb")
    assert error.value.code == "TYPE_MISMATCH"
    assert (error.value.location.file, error.value.location.line) == (str(path), 22)  # the rule's `- metric`
