"""What a contract asks that gryph does not check is refused at its element (CONTRACT_UNSUPPORTED,
the contract path, the YAML line of its key), never skipped: unknown formats, dates that do not
read, relationships that name no object or pair up unevenly. A physicalType outside the server's
table (a domain) is the one exception: a warning at its line, and that column's type not compared."""

from __future__ import annotations

import pytest

from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.errors import InvalidInput, LocatedWarning

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


def test_unique_items_false_asks_nothing(tmp_path):
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


def _physical(physical_type: str, logical_type: str = "string") -> str:
    return (
        f"schema:\n  - name: t\n    properties:\n      - name: c\n        logicalType: {logical_type}\n"
        f"        physicalType: {physical_type}\n"
    )


def test_a_physical_type_the_table_does_not_know_is_a_located_warning_and_not_compared(tmp_path):
    path = tmp_path / "c.odcs.yaml"
    path.write_text(
        HEAD + _physical("'varchar(9)[]'") + "      - name: d\n        physicalType: Name\n", encoding="utf-8"
    )
    with pytest.warns(LocatedWarning) as caught:
        suite = load_contract(path)
    errors = [w.message.error for w in caught if isinstance(w.message, LocatedWarning)]
    assert [(e.code, e.location.line) for e in errors] == [("TYPE_NOT_COMPARED", 16), ("TYPE_NOT_COMPARED", 18)]
    assert errors[0].message == (
        "schema[0].properties[0].physicalType: physicalType 'varchar(9)[]' is not a type gryph knows on servers "
        "of type local (closest: 'varchar'), so its column's type is not compared: see the physicalType table "
        "of docs/contracts.md"
    )
    # c keeps its logicalType's type, d (a PostgreSQL domain, its base type unknown) only its presence
    (schema,) = suite.schemas
    assert [(name, dtype and dtype.kind.value) for name, dtype in schema.columns] == [("c", "string"), ("d", None)]


def test_a_v3_0_date_may_be_a_timestamp_and_a_string_bytes(tmp_path):
    # ODCS v3.0's date is any date or time, and ODCS has no binary type (Bitol's adventureworks)
    path = tmp_path / "c.odcs.yaml"
    also = "      - name: d\n        logicalType: string\n        physicalType: blob\n"
    path.write_text(HEAD + _physical("timestamp", "date") + also, encoding="utf-8")
    (schema,) = load_contract(path).schemas
    assert [dtype.kind.value for _, dtype in schema.columns] == ["timestamp", "binary"]


def test_a_physical_type_of_another_kind_than_the_logical_type_is_refused(tmp_path):
    error, line = _refusal(tmp_path, _physical("BIGINT", "string"))
    assert error.message == (
        "schema[0].properties[0].physicalType: physicalType 'BIGINT' is of type integer, logicalType 'string' of "
        "type string: no column is both"
    )
    assert line == "physicalType: BIGINT"


def test_a_decimal_of_more_than_38_digits_is_refused(tmp_path):
    error, _ = _refusal(tmp_path, _physical("'DECIMAL(40,2)'", "number"))
    assert error.message.endswith("a decimal holds 1 to 38 digits, its scale at most its precision")


def test_a_retention_in_m_is_refused_as_ambiguous(tmp_path):
    # m is minutes for a latency and months for datacontract-cli's retention: gryph asks for mo or min
    schema = (
        "schema:\n  - name: t\n    properties:\n      - name: ts\n        logicalType: timestamp\n"
        "slaProperties:\n  - property: retention\n    value: 6\n    unit: m\n    element: t.ts\n"
    )
    error, line = _refusal(tmp_path, schema)
    assert error.message == (
        "slaProperties[0]: a retention SLA needs element 'object.property', a whole number value and a unit of "
        "y, mo or d (a year of 365 days, a month of 30)"
    )
    assert line == "- property: retention"
