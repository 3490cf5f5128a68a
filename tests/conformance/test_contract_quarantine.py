"""A contract's row-level clauses quarantine their rows, on both engines: each row failing
``required``, ``unique``, a primary key, a ``logicalTypeOptions`` bound, a library null, missing,
invalid or duplicate count, or a relationship goes to quarantine with the clauses' contract paths;
the others are valid, and the two together are the input exactly (NULL, NaN, duplicated keys,
unicode). Expected rows worked out by hand from ORDERS, and for a generated table in Python."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from gryph.client import run
from gryph.compiler.errors import InvalidInput, InvalidInputs
from tests.conformance.conformance_support import arrow_table

COLUMNS = [["id", "int64"], ["email", "string"], ["code", "string"], ["amount", "float64"], ["customer", "string"]]
ORDERS = [
    [1, "a@x.io", "A", 10.0, "ann"],
    [2, None, "B", 5.0, "émile"],
    [3, "bad", "A", 1.0, "ann"],
    [4, "é@ü.de", "Z", 2.0, "ann"],
    [5, "d@x.io", "N/A", 3.0, "ann"],
    [6, "e@x.io", None, 4.0, "ann"],
    [7, "long@x.io", "B", -1.0, "ann"],
    [8, "g@x.io", "A", "NaN", "ann"],
    [9, "h@x.io", "A", 6.0, "bob"],
    [10, "i@x.io", "B", 7.0, None],
    [11, "j@x.io", "A", 8.0, ""],
    [12, "k@x.io", "A", 9.0, "ann"],
    [12, "l@x.io", "B", 9.0, "émile"],
    [None, "m@x.io", "A", 1.5, "ann"],
    [None, "n@x.io", "B", 2.5, "ann"],
    [16, "a@x.io", "A", 11.0, "ann"],
    [17, "z@x.io", "B", 0.0, "émile"],
    [18, "ü@ß.de", "A", None, "émile"],
]
CUSTOMERS = {"columns": [["name", "string"]], "rows": [["ann"], ["émile"], [None]]}
PROPERTIES = [
    {"name": "id", "logicalType": "integer", "primaryKey": True},
    {
        "name": "email",
        "logicalType": "string",
        "required": True,
        "unique": True,
        "logicalTypeOptions": {"pattern": "@", "maxLength": 8},
    },
    {
        "name": "code",
        "logicalType": "string",
        "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": ["A", "B"]}, "mustBe": 0},
            {"metric": "missingValues", "arguments": {"missingValues": ["N/A", None]}, "mustBe": 0},
        ],
    },
    {
        "name": "amount",
        "logicalType": "number",
        "logicalTypeOptions": {"minimum": 0},
        "quality": [{"metric": "duplicateValues", "mustBe": 0}],
    },
    {
        "name": "customer",
        "logicalType": "string",
        "relationships": [{"to": "customers.name"}],
        "quality": [{"metric": "nullValues", "unit": "percent", "mustBeLessThan": 50, "severity": "warning"}],
    },
]
OBJECT_QUALITY = [
    {"metric": "rowCount", "mustBeGreaterThan": 0},
    {"type": "sql", "query": "select count(*) from {object} where amount > 1000", "mustBe": 0},
]
P = "schema[0].properties"
REQUIRED, UNIQUE = f"{P}[1].required", f"{P}[1].unique"
PATTERN, MAX_LENGTH = f"{P}[1].logicalTypeOptions.pattern", f"{P}[1].logicalTypeOptions.maxLength"
INVALID, MISSING = f"{P}[2].quality[0]", f"{P}[2].quality[1]"
MINIMUM, AMOUNT_TWICE = f"{P}[3].logicalTypeOptions.minimum", f"{P}[3].quality[0]"
NULL_CUSTOMER, KNOWN_CUSTOMER = f"{P}[4].quality[0]", f"{P}[4].relationships[0]"
KEY = "schema[0].primaryKey"
# by hand, each row's failed clauses in the contract's order (relationships last, as stated after
# every object): NULL breaks no bound, is never invalid, and is no key to repeat (two NULL ids break
# the key's required part, not its uniqueness); NaN is above every number, so not under the minimum;
# a NULL customer is not judged by the relationship (but counted by nullValues), '' matches no one
FAILED = {
    1: (UNIQUE,),
    2: (REQUIRED,),
    3: (PATTERN,),
    4: (INVALID,),
    5: (INVALID, MISSING),
    6: (MISSING,),
    7: (MAX_LENGTH, MINIMUM),
    9: (KNOWN_CUSTOMER,),
    10: (NULL_CUSTOMER,),
    11: (KNOWN_CUSTOMER,),
    12: (AMOUNT_TWICE, KEY),
    13: (AMOUNT_TWICE, KEY),
    14: (KEY,),
    15: (KEY,),
    16: (UNIQUE,),
}  # by row number (1-based); rows 8, 17 and 18 fail nothing


def _contract(folder: Path, rows: list[list], properties=PROPERTIES, quality=OBJECT_QUALITY) -> Path:
    pq.write_table(arrow_table({"columns": COLUMNS, "rows": rows}), folder / "orders.parquet")
    pq.write_table(arrow_table(CUSTOMERS), folder / "customers.parquet")
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "shop",
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "files", "type": "local", "format": "parquet", "path": str(folder / "{model}.parquet")}],
        "schema": [
            {"name": "orders", "properties": list(properties), "quality": list(quality)},
            {"name": "customers", "properties": [{"name": "name", "logicalType": "string"}]},
        ],
    }
    path = folder / "shop.odcs.yaml"
    path.write_text(yaml.safe_dump(contract, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _key(value):
    """NaN as a marker, so rows compare as multisets."""
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def _split(engine, folder: Path, rows: list[list], **contract) -> tuple[Counter, Counter, dict]:
    out = folder / "q"
    result = run(str(_contract(folder, rows, **contract)), engine, quarantine_to=str(out), data_time="2026-11-01")
    read = {kind: _read(out / "orders" / kind / "data_time=2026-11-01") for kind in ("quarantine", "valid")}
    names = [name for name, _ in COLUMNS]
    quarantined = Counter(
        (*(_key(row[c]) for c in names), tuple(e["rule"] for e in row["_dq_errors"])) for row in read["quarantine"]
    )
    valid = Counter(tuple(_key(row[c]) for c in names) for row in read["valid"])
    return quarantined, valid, {"result": result, "rows": read}


def _read(folder: Path) -> list[dict]:
    files = sorted(folder.glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist() if files else []


def test_each_row_failing_a_clause_is_quarantined_under_its_contract_path(dq_engine, tmp_path):
    quarantined, valid, found = _split(dq_engine, tmp_path, ORDERS)
    expected = Counter((*map(_key, ORDERS[n - 1]), rules) for n, rules in FAILED.items())
    assert quarantined == expected
    assert valid == Counter(tuple(map(_key, ORDERS[n - 1])) for n in (8, 17, 18))
    row = next(r for r in found["rows"]["quarantine"] if r["email"] == "long@x.io")
    clause = "the contract counts this row against the clause"
    assert row["_dq_errors"] == [
        {"rule": MAX_LENGTH, "condition": "length(`email`) > 8", "message": clause},
        {"rule": MINIMUM, "condition": "`amount` < 0", "message": clause},
    ]
    twice = next(r for r in found["rows"]["quarantine"] if r["email"] == "l@x.io")
    assert [(e["condition"], e["message"]) for e in twice["_dq_errors"]] == [
        ("unique(`amount`)", "its key occurs more than once"),
        ("unique(`id`)", "its key occurs more than once"),
    ]
    unknown = next(r for r in found["rows"]["quarantine"] if r["customer"] == "bob")
    assert unknown["_dq_errors"] == [
        {
            "rule": KNOWN_CUSTOMER,
            "condition": "orders.`customer` = customers.`name`",
            "message": "no row of 'customers' matches",
        }
    ]
    null_key = next(r for r in found["rows"]["quarantine"] if r["email"] == "m@x.io")
    assert null_key["_dq_errors"][0]["condition"] == "`id` is null"
    outputs = found["result"].to_dict()["outputs"]
    assert sorted(outputs) == ["orders"]  # customers: no clause judges its rows
    assert (outputs["orders"]["quarantine"]["rows"], outputs["orders"]["valid"]["rows"]) == (15, 3)


def test_the_contract_gives_the_same_checks_with_a_quarantine(dq_engine, tmp_path):
    # the quarantine adds outputs, never a check, a measure or a metric
    plain = run(str(_contract(tmp_path, ORDERS)), dq_engine)
    _, _, found = _split(dq_engine, tmp_path, ORDERS)
    split = found["result"]
    assert [(c.name, c.status, c.values) for c in split.checks] == [(c.name, c.status, c.values) for c in plain.checks]
    assert split.measures == plain.measures and split.metrics == plain.metrics


def test_a_format_a_maximum_and_a_composite_duplicate_count_quarantine_their_rows(dq_engine, tmp_path):
    properties = [
        {"name": "id"},
        {"name": "email", "logicalType": "string", "logicalTypeOptions": {"format": "email"}},
        {"name": "code"},
        {"name": "amount", "logicalType": "number", "logicalTypeOptions": {"maximum": 9.5}},
        {"name": "customer"},
    ]
    quality = [{"metric": "duplicateValues", "arguments": {"properties": ["code", "customer"]}, "mustBe": 0}]
    quarantined, valid, _ = _split(dq_engine, tmp_path, ORDERS, properties=properties, quality=quality)
    email, maximum, twice = (
        f"{P}[1].logicalTypeOptions.format",
        f"{P}[3].logicalTypeOptions.maximum",
        "schema[0].quality[0]",
    )
    # by hand: only 'bad' is no email (é@ü.de and ü@ß.de are); 10, 11 and NaN (above every number)
    # are over 9.5, NULL is not; (code, customer) pairs held twice or more: (A, ann) rows 1, 3, 8,
    # 12, 14, 16; (B, émile) rows 2, 13, 17; (B, ann) rows 7, 15 -- a pair with a NULL is no key
    failed = {1: (maximum, twice), 3: (email, twice), 8: (maximum, twice), 16: (maximum, twice)}
    failed |= {n: (twice,) for n in (2, 7, 12, 13, 14, 15, 17)}
    assert quarantined == Counter((*map(_key, ORDERS[n - 1]), rules) for n, rules in failed.items())
    assert valid == Counter(tuple(map(_key, ORDERS[n - 1])) for n in (4, 5, 6, 9, 10, 11, 18))


def test_valid_and_quarantined_are_the_input_exactly(dq_engine, tmp_path):
    rng = random.Random(43)
    rows = [
        [
            rng.choice([1, 2, 3, None, *range(10, 60)]),
            rng.choice(["a@x.io", "ü@ß.de", "plain", "", None, *(f"u{i}@x.io" for i in range(40))]),
            rng.choice(["A", "B", "N/A", None]),
            rng.choice([1.0, -2.0, "NaN", None, 0.0]),
            rng.choice(["ann", "émile", "bob", "", None]),
        ]
        for _ in range(300)
    ]
    rows += rows[:20]  # whole rows repeated
    properties = [
        {"name": "id", "primaryKey": True},
        {"name": "email", "logicalType": "string", "required": True, "logicalTypeOptions": {"pattern": "@"}},
        {"name": "customer", "relationships": [{"to": "customers.name"}]},
    ]
    quarantined, valid, _ = _split(dq_engine, tmp_path, rows, properties=properties, quality=())
    ids = Counter(row[0] for row in rows if row[0] is not None)
    expected_bad, expected_good = Counter(), Counter()
    for row in rows:
        id_, email, _, _, customer = row
        failed = tuple(
            rule
            for rule, fails in (
                (f"{P}[1].required", email is None),
                (f"{P}[1].logicalTypeOptions.pattern", email is not None and "@" not in email),
                (KEY, id_ is None),  # the key's required part
                (KEY, id_ is not None and ids[id_] > 1),  # its duplicates, every copy
                (f"{P}[2].relationships[0]", customer is not None and customer not in ("ann", "émile")),
            )
            if fails
        )
        if failed:
            expected_bad[(*map(_key, row), failed)] += 1
        else:
            expected_good[tuple(map(_key, row))] += 1
    assert quarantined == expected_bad and valid == expected_good
    together = Counter(row[:5] for row in quarantined.elements()) + valid
    assert together == Counter(tuple(map(_key, row)) for row in rows)


def test_a_contract_with_no_row_level_clause_refuses_a_quarantine(tmp_path):
    # rowCount, sql and freshness judge the object, never a row: nothing could be quarantined
    path = _contract(tmp_path, ORDERS, properties=[{"name": "id", "logicalType": "integer"}])
    with pytest.raises(InvalidInput) as raised:
        run(str(path), "duckdb", quarantine_to=str(tmp_path / "q"))
    assert raised.value.code == "QUARANTINE_TARGET"
    assert "suite 'shop' has no row-level rule" in raised.value.message
    assert "required, unique, primaryKey" in raised.value.hint
    assert not (tmp_path / "q").exists()


def _unknown_columns(tmp_path: Path, properties: list[dict]) -> list[tuple[str, str, str | None, list[str]]]:
    """Running the orders' contract with ``properties`` after PROPERTIES without their key:
    each error's message, text, hint and the contract's lines up to the one it is at (from the
    property's first)."""
    unkeyed = [{k: v for k, v in p.items() if not k.startswith("primaryKey")} for p in PROPERTIES]
    path = _contract(tmp_path, ORDERS, properties=[*unkeyed, *properties])
    with pytest.raises(InvalidInput) as raised:
        run(str(path), "duckdb")
    errors = raised.value.errors if isinstance(raised.value, InvalidInputs) else [raised.value]
    assert {e.code for e in errors} == {"UNKNOWN_COLUMN"}
    lines = path.read_text("utf-8").splitlines()
    stated = []
    for error in errors:
        first = max(n for n in range(error.location.line) if lines[n].lstrip().startswith("- "))
        stated.append([line.strip() for line in lines[first : error.location.line]])
    return [(e.message, e.text, e.hint, at) for e, at in zip(errors, stated, strict=True)]


KNOWN = "known names: amount, code, customer, email, id"  # the hint when no orders' column is close


def test_a_unique_column_the_data_lacks_is_located_at_its_property(tmp_path):
    assert _unknown_columns(tmp_path, [{"name": "sku", "unique": True}]) == [
        (f"{P}[5]: unknown column 'sku' in orders", "sku", KNOWN, ["- name: sku"]),
    ]


def test_a_key_column_the_data_lacks_is_one_error_at_its_property(tmp_path):
    # the key's "no part NULL" and "no duplicate" clauses both read idd: one error, not one each
    assert _unknown_columns(tmp_path, [{"name": "idd", "primaryKey": True}]) == [
        (f"{P}[5]: unknown column 'idd' in orders", "idd", "did you mean 'id'?", ["- name: idd"]),
    ]


def test_every_key_column_the_data_lacks_is_one_error_with_its_hint(tmp_path):
    # a composite primaryKey of two columns the orders lack (id is known: it is not the key here),
    # positions against the properties' order
    properties = [
        {"name": "emial", "primaryKey": True, "primaryKeyPosition": 2},
        {"name": "idd", "primaryKey": True, "primaryKeyPosition": 1},
    ]
    assert _unknown_columns(tmp_path, properties) == [
        (f"{P}[5]: unknown column 'emial' in orders", "emial", "did you mean 'email'?", ["- name: emial"]),
        (f"{P}[6]: unknown column 'idd' in orders", "idd", "did you mean 'id'?", ["- name: idd"]),
    ]


def test_a_column_the_data_lacks_is_one_error_for_all_its_property_states(tmp_path):
    # required, unique, a part of the key and a bound: four clauses derived from one property;
    # a physicalName is the column, and the error is at its line
    prop = {
        "name": "sku",
        "physicalName": "cod",
        "logicalType": "string",
        "required": True,
        "unique": True,
        "primaryKey": True,
        "logicalTypeOptions": {"maxLength": 4},
    }
    assert _unknown_columns(tmp_path, [prop]) == [
        (
            f"{P}[5]: unknown column 'cod' in orders",
            "cod",
            "did you mean 'code'?",
            ["- name: sku", "physicalName: cod"],
        ),
    ]


def test_each_quality_rule_on_a_column_the_data_lacks_is_its_own_error(tmp_path):
    # rules the user wrote about the column are errors of their own, after the property's
    prop = {
        "name": "sku",
        "required": True,
        "quality": [
            {"metric": "duplicateValues", "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"validValues": ["A"]}, "mustBe": 0},
        ],
    }
    dup, invalid = ["- metric: duplicateValues"], ["- metric: invalidValues"]
    assert _unknown_columns(tmp_path, [prop]) == [
        (f"{P}[5]: unknown column 'sku' in orders", "sku", KNOWN, ["- name: sku"]),
        ("unknown column 'sku'", "`sku`", KNOWN, invalid),
        (f"{P}[5].quality[0]: unknown column 'sku' in orders", "sku", KNOWN, dup),
    ]
