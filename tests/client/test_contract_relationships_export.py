"""``gryph export odcs``: an accuracy rule that states a foreign key is written as an ODCS 3.1
``relationships`` entry, and the contract run misses the same rows with the same verdict, on DuckDB and
on Spark; any other accuracy rule stays ``custom`` text."""

from __future__ import annotations

import json

import pytest
import yaml

from gryph.client import run
from gryph.client.cli.main import main
from gryph.client.run.engines import open_engine
from gryph.compiler.contracts.contract_export import export_contract
from gryph.compiler.contracts.contract_suite import load_contract

ORDERS = [{"id": 1, "cust": "a"}, {"id": 2, "cust": "b"}, {"id": 3, "cust": None}, {"id": 4, "cust": ""},
          {"id": 5, "cust": "z"}, {"id": 6, "cust": "a"}]  # fmt: skip
CUSTOMERS = [{"cid": "a"}, {"cid": "b"}, {"cid": None}, {"cid": "b"}]
LINES = [{"order_id": 1, "sku": "x"}, {"order_id": 1, "sku": "y"}, {"order_id": 2, "sku": "x"},
         {"order_id": None, "sku": "x"}, {"order_id": 3, "sku": None}, {"order_id": None, "sku": None},
         {"order_id": 1, "sku": ""}]  # fmt: skip
ITEMS = [{"order_id": 1, "sku": "x"}, {"order_id": 2, "sku": "x"}, {"order_id": 2, "sku": "x"},
         {"order_id": 3, "sku": None}, {"order_id": 1, "sku": None}]  # fmt: skip

SUITE = """suite keys
source orders = json("orders.json")
source customers = json("customers.json")
source lines = json("lines.json")
source items = json("items.json")
schema customers: required(cid string)
accuracy has_customer on orders, customers:
    orders.cust = customers.cid
    when customers.cid is not null   # NULL there matches nothing, not even ''
check "every order has a customer": metrics["has_customer"]["miss"] == 0
accuracy line_items on lines, items: lines.order_id = items.order_id and items.sku = lines.sku
    when items.sku is not null and lines.order_id is not null and lines.sku is not null
    and items.order_id is not null
check "every line is an item": metrics["line_items"]["matchedFraction"] == 1.0
check "orders": rows(orders) == 6
"""


def _write(folder, name, rows):
    (folder / name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.fixture
def suite(tmp_path):
    for name, rows in (("orders", ORDERS), ("customers", CUSTOMERS), ("lines", LINES), ("items", ITEMS)):
        _write(tmp_path, f"{name}.json", rows)
    path = tmp_path / "keys.dq"
    path.write_text(SUITE, encoding="utf-8")
    return path


def test_a_foreign_key_is_written_as_relationships(suite):
    contract = suite.with_suffix(".odcs.yaml")
    assert main(["export", "odcs", str(suite), "-o", str(contract)]) == 0
    load_contract(contract)  # validated against the ODCS v3.1.0 schema on the way
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    objects = {obj["name"]: obj for obj in written["schema"]}
    # one column: on the property; a composite key: on the object, its parts in the rule's order
    assert objects["orders"]["properties"] == [{"name": "cust", "relationships": [{"to": "customers.cid"}]}]
    assert objects["lines"]["relationships"] == [
        {"from": ["lines.order_id", "lines.sku"], "to": ["items.order_id", "items.sku"]}
    ]
    # the referenced columns are properties the relationships can name (the schema statement's type kept)
    assert objects["customers"]["properties"] == [{"name": "cid", "logicalType": "string"}]
    assert [p["name"] for p in objects["items"]["properties"]] == ["order_id", "sku"]
    implementation = objects["items"]["quality"][0]["implementation"]
    assert implementation.splitlines() == ['check "orders": rows(orders) == 6']  # the rules and checks left


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_exported_foreign_keys_miss_the_same_rows(suite, engine, request):
    contract = suite.with_suffix(".odcs.yaml")
    contract.write_text(export_contract(suite), encoding="utf-8")
    chosen = open_engine("spark", request.getfixturevalue("spark_remote")) if engine == "spark" else engine
    original, exported = run(str(suite), chosen), run(str(contract), chosen)
    # by hand, orders: "" finds no customer (the NULL cid matches nothing) nor does "z"; NULL is not judged
    # lines: (1, y) and (1, "") have no item (not (1, NULL) either); a NULL part is not judged; (2, x) twice
    # in items is one match
    assert original.metrics["has_customer"]["miss"] == exported.metrics["rel_0_0_0"]["miss"] == 2
    assert original.metrics["line_items"]["miss"] == exported.metrics["rel_2_0"]["miss"] == 2
    assert exported.metrics["rel_2_0"]["total"] == 4  # the rows with no part NULL
    checks = exported.to_dict()["check"]
    assert original.to_dict()["check"] == {"every order has a customer": False, "every line is an item": False,
                                           "orders": True, "schema customers": True}  # fmt: skip
    # each object whose columns a relationship names has them as properties: a schema check that they exist
    assert checks == {"schema[0].properties[0].relationships[0]": False, "schema[2].relationships[0]": False,
                      "orders": True, "schema orders": True, "schema customers": True, "schema lines": True,
                      "schema items": True}  # fmt: skip
    assert original.to_dict()["pass"] is exported.to_dict()["pass"] is False


def test_a_foreign_key_without_misses_passes_as_before(tmp_path):
    _write(tmp_path, "orders.json", [{"cust": "a"}, {"cust": None}, {"cust": "b"}])
    _write(tmp_path, "customers.json", CUSTOMERS)
    suite = tmp_path / "ok.dq"
    suite.write_text(
        'source orders = json("orders.json")\nsource customers = json("customers.json")\n'
        "accuracy fk on orders, customers: customers.cid = orders.cust when orders.cust is not null "
        "and customers.cid is not null\n"
        'check "fk": 0 == metrics["fk"]["miss"]\n',
        encoding="utf-8",
    )
    contract = tmp_path / "ok.odcs.yaml"
    contract.write_text(export_contract(suite), encoding="utf-8")
    assert "relationships" in yaml.safe_load(contract.read_text(encoding="utf-8"))["schema"][0]["properties"][0]
    original, exported = run(str(suite), "duckdb"), run(str(contract), "duckdb")
    # by hand: a and b are customers, the NULL is not judged
    assert original.metrics["fk"]["miss"] == exported.metrics["rel_0_0_0"]["miss"] == 0
    assert original.to_dict()["pass"] is exported.to_dict()["pass"] is True


KEPT = {
    "an expression": ("upper(orders.cust) = upper(customers.cid) when customers.cid is not null", "miss", "== 0"),
    "a filter": ("orders.cust = customers.cid when orders.id > 1 and customers.cid is not null", "miss", "== 0"),
    "Griffin's NULLs (no when)": ("orders.cust = customers.cid", "miss", "== 0"),
    "a composite key's NULL parts": (
        "orders.cust = customers.cid and orders.id = customers.n when customers.cid is not null "
        "and customers.n is not null",
        "miss",
        "== 0",
    ),
    "a threshold": ("orders.cust = customers.cid when customers.cid is not null", "matchedFraction", ">= 0.5"),
    "a count of misses": ("orders.cust = customers.cid when customers.cid is not null", "miss", "<= 1"),
    "options": ('orders.cust = customers.cid when customers.cid is not null with miss = "m"', "m", "== 0"),
}


@pytest.mark.parametrize("case", KEPT, ids=list(KEPT))
def test_an_accuracy_rule_that_is_no_foreign_key_stays_custom(tmp_path, case):
    rule, metric, threshold = KEPT[case]
    _write(tmp_path, "orders.json", ORDERS)
    _write(tmp_path, "customers.json", [dict(row, n=1) for row in CUSTOMERS])
    suite = tmp_path / "kept.dq"
    suite.write_text(
        'source orders = json("orders.json")\nsource customers = json("customers.json")\n'
        f"accuracy fk on orders, customers: {rule}\n"
        f'check "fk": metrics["fk"]["{metric}"] {threshold}\n',
        encoding="utf-8",
    )
    _kept_custom(suite, f"accuracy fk on orders, customers: {rule}")


@pytest.mark.parametrize(
    "extra",
    [
        'warn check "fk": metrics["fk"]["miss"] == 0',  # a warning: a relationship's check blocks
        'check "fk": metrics["fk"]["miss"] == 0\npass when checks("fk")',  # the check's name is read
        'check "fk": metrics["fk"]["miss"] == 0\ncheck "few": metrics["fk"]["total"] > 1',  # its metrics are read
        'check "fk": metrics["fk"]["miss"] == 0\npass when passed >= 1',  # the key's schema check would count
    ],
)
def test_a_foreign_key_whose_check_or_metrics_are_read_otherwise_stays_custom(tmp_path, extra):
    _write(tmp_path, "orders.json", ORDERS)
    _write(tmp_path, "customers.json", CUSTOMERS)
    suite = tmp_path / "kept.dq"
    rule = "accuracy fk on orders, customers: orders.cust = customers.cid when customers.cid is not null"
    suite.write_text(
        f'source orders = json("orders.json")\nsource customers = json("customers.json")\n{rule}\n{extra}\n',
        encoding="utf-8",
    )
    _kept_custom(suite, rule)


def _kept_custom(suite, rule):
    contract = suite.with_suffix(".odcs.yaml")
    contract.write_text(export_contract(suite), encoding="utf-8")
    written = yaml.safe_load(contract.read_text(encoding="utf-8"))
    assert "relationships" not in json.dumps(written)
    assert rule in written["schema"][-1]["quality"][0]["implementation"].splitlines()
    original, exported = run(str(suite), "duckdb"), run(str(contract), "duckdb")
    for key in ("metrics", "check", "pass"):
        assert original.to_dict()[key] == exported.to_dict()[key], key


def test_a_foreign_key_to_an_object_the_server_does_not_read_stays_custom(tmp_path):
    _write(tmp_path, "orders.json", ORDERS)
    (tmp_path / "customers.csv").write_text("cid\na\nb\n", encoding="utf-8")
    suite = tmp_path / "kept.dq"
    rule = "accuracy fk on orders, customers: orders.cust = customers.cid when customers.cid is not null"
    suite.write_text(
        'source orders = json("orders.json")\nsource customers = csv("customers.csv")\n'  # not the server's format
        f'{rule}\ncheck "fk": metrics["fk"]["miss"] == 0\n',
        encoding="utf-8",
    )
    _kept_custom(suite, rule)
