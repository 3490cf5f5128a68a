"""What a contract asks that gryph does not check is refused at its element (CONTRACT_UNSUPPORTED,
the contract path, the YAML line of its key), never skipped: unknown formats, dates that do not
read, uniqueItems, relationships that name no object or pair up unevenly."""

from __future__ import annotations

import pytest

from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.errors import InvalidInput

HEAD = (
    "apiVersion: v3.1.0\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\n"
    "servers:\n  - server: files\n    type: local\n    format: parquet\n    path: '{model}.parquet'\n"
)


def _refusal(tmp_path, schema: str) -> tuple[InvalidInput, str]:
    path = tmp_path / "c.odcs.yaml"
    path.write_text(HEAD + schema, encoding="utf-8")
    with pytest.raises(InvalidInput) as error:
        load_contract(path)
    assert error.value.code == "CONTRACT_UNSUPPORTED"
    line = path.read_text(encoding="utf-8").splitlines()[error.value.location.line - 1]
    return error.value, line.strip()


def _options(logical_type: str, options: str) -> str:
    return (
        f"schema:\n  - name: t\n    properties:\n      - name: c\n        logicalType: {logical_type}\n"
        f"        logicalTypeOptions:\n{options}"
    )


def test_an_unknown_format_names_the_ones_checked(tmp_path):
    error, line = _refusal(tmp_path, _options("string", "          format: ipv6\n"))
    assert error.message == (
        "schema[0].properties[0].logicalTypeOptions.format: format 'ipv6' is not checked by gryph "
        "(it checks email, uuid, date, date-time)"
    )
    assert line == "format: ipv6"


def test_a_date_bound_that_is_no_date(tmp_path):
    error, line = _refusal(tmp_path, _options("date", "          minimum: '2024-02-30'\n"))
    assert error.message.startswith("schema[0].properties[0].logicalTypeOptions.minimum: '2024-02-30' is no ISO date")
    assert line == "minimum: '2024-02-30'"


def test_unique_items_is_refused_and_false_asks_nothing(tmp_path):
    error, line = _refusal(tmp_path, _options("array", "          uniqueItems: true\n"))
    assert "uniqueItems is not checked" in error.message
    assert line == "uniqueItems: true"
    path = tmp_path / "ok.odcs.yaml"
    path.write_text(HEAD + _options("array", "          uniqueItems: false\n"), encoding="utf-8")
    assert not load_contract(path).checks  # nothing but the schema statement


def test_a_relationship_to_an_object_the_contract_lacks(tmp_path):
    schema = (
        "schema:\n  - name: orders\n    properties:\n      - name: customer_id\n"
        "        relationships:\n          - to: clients.id\n"
    )
    error, line = _refusal(tmp_path, schema)
    assert error.message == (
        "schema[0].properties[0].relationships[0]: 'clients.id' names no object of this contract "
        "(write 'object.property', by their names)"
    )
    assert line == "- to: clients.id"


def test_a_relationship_to_a_property_the_object_lacks(tmp_path):
    schema = (
        "schema:\n  - name: orders\n    properties:\n      - name: customer_id\n"
        "        relationships:\n          - to: customers.key\n"
        "  - name: customers\n    properties:\n      - name: id\n"
    )
    error, _ = _refusal(tmp_path, schema)
    assert error.message.endswith("'customers.key': object 'customers' has no property 'key'")


def test_a_composite_relationship_pairs_its_columns(tmp_path):
    schema = (
        "schema:\n  - name: orders\n    properties:\n      - name: a\n      - name: b\n"
        "    relationships:\n      - from: [orders.a, orders.b]\n        to: [customers.id]\n"
        "  - name: customers\n    properties:\n      - name: id\n"
    )
    error, line = _refusal(tmp_path, schema)
    assert error.message == "schema[0].relationships[0]: 'from' names 2 properties and 'to' 1: they pair up"
    assert line == "- from: [orders.a, orders.b]"
