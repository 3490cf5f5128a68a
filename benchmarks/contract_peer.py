"""gryph and datacontract-cli (https://pypi.org/project/datacontract-cli/) on the same ODCS contracts
over the same parquet file: one rule per contract, each rule's verdict from both tools side by side.

datacontract-cli pins a DuckDB older than gryph's (1.x against 2.x), so it runs from a venv of its
own (``~/.cache/gryph/datacontract-cli-VERSION``), made on first use with pip (``peer_executable``). The
table this prints is kept in docs/contracts.md ("datacontract-cli"), each difference named by its
semantics row.

    .venv/bin/python -m benchmarks.contract_peer [--peer PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

PEER_VERSION = "1.2.8"  # the version the kept table was made with
PEER_VENV = Path.home() / ".cache" / "gryph" / f"datacontract-cli-{PEER_VERSION}"  # outside the checkout: not linted


def peer_executable(venv: Path = PEER_VENV) -> Path:
    """``datacontract`` of the peer's venv, which is made (pip, datacontract-cli[duckdb,parquet]) if missing."""
    executable = venv / "bin" / "datacontract"
    if not executable.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, f"datacontract-cli[duckdb,parquet]=={PEER_VERSION}"], check=True, timeout=900)
    return executable


# UniqueID: 1, 2, NULL, 4, 4 -- DataValue: 10, 600, 20, 30, 0 -- status: good, '', n/a, NULL, bad
# note: NULL, NULL, a, b, c -- grp: x, x, x, y, NULL -- tags: [a, b], [a, a], NULL, [], [c, NULL, NULL]
# measured: 2020-01-01, 2020-06-30, NULL, 2021-01-01, 2020-03-01 (long past, so retention verdicts hold
# at any clock: both tools judge it at their run's start)
AIR_QUALITY = pa.table(
    {
        "UniqueID": pa.array([1, 2, None, 4, 4], pa.int64()),
        "DataValue": pa.array([10.0, 600.0, 20.0, 30.0, 0.0]),
        "status": pa.array(["good", "", "n/a", None, "bad"]),
        "note": pa.array([None, None, "a", "b", "c"]),
        "grp": pa.array(["x", "x", "x", "y", None]),
        "tags": pa.array([["a", "b"], ["a", "a"], None, [], ["c", None, None]], pa.list_(pa.string())),
        "measured": pa.array(
            [datetime(2020, 1, 1), datetime(2020, 6, 30), None, datetime(2021, 1, 1), datetime(2020, 3, 1)],
            pa.timestamp("us"),
        ),
    }
)

# (case, where the rule sits: None for the object or a property name, the rule or property fields,
#  the semantics row of docs/contracts.md it probes, the expected gryph verdict worked out by hand)
CASES: list[tuple[str, str | None, dict[str, object], str, str]] = [
    ("rowCount between [5, 10]", None, {"metric": "rowCount", "mustBeBetween": [5, 10]}, "mustBeBetween: [a, b]", "failed"),
    ("rowCount between [4, 6]", None, {"metric": "rowCount", "mustBeBetween": [4, 6]}, "mustBeBetween: [a, b]", "passed"),
    ("rowCount not between [5, 10]", None, {"metric": "rowCount", "mustNotBeBetween": [5, 10]}, "mustBeBetween: [a, b]",
     "passed"),
    ("rowCount > 4", None, {"metric": "rowCount", "mustBeGreaterThan": 4}, "-", "passed"),
    ("nullValues = 0", "UniqueID", {"metric": "nullValues", "mustBe": 0}, "-", "failed"),
    ("nullValues < 25 percent", "UniqueID", {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 25},
     "unit: percent", "passed"),
    ("nullValues < 20 percent", "UniqueID", {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 20},
     "unit: percent", "failed"),
    ("duplicateValues = 0", "UniqueID", {"metric": "duplicateValues", "mustBe": 0}, "what duplicateValues counts", "failed"),
    ("duplicateValues <= 1", "UniqueID", {"metric": "duplicateValues", "mustBeLessOrEqualTo": 1}, "what duplicateValues counts",
     "passed"),
    ("duplicateValues <= 1, a value 3 times", "grp", {"metric": "duplicateValues", "mustBeLessOrEqualTo": 1},
     "what duplicateValues counts", "failed"),
    ("invalidValues (validValues) < 3", "status",
     {"metric": "invalidValues", "arguments": {"validValues": ["good", "bad"]}, "mustBeLessThan": 3},
     "NULL in invalidValues", "passed"),
    ("invalidValues (validValues) = 0", "status",
     {"metric": "invalidValues", "arguments": {"validValues": ["good", "bad"]}, "mustBe": 0}, "-", "failed"),
    ("missingValues ['', 'n/a'] < 3", "status",
     {"metric": "missingValues", "arguments": {"missingValues": ["", "n/a"]}, "mustBeLessThan": 3},
     "NULL in missingValues", "passed"),
    ("missingValues [null, '', 'n/a'] < 3", "status",
     {"metric": "missingValues", "arguments": {"missingValues": [None, "", "n/a"]}, "mustBeLessThan": 3},
     "NULL in missingValues", "failed"),
    ("required", "status", {"required": True}, "-", "failed"),
    ("unique with NULLs", "note", {"unique": True}, "NULL and unique", "passed"),
    ("unique", "UniqueID", {"unique": True}, "-", "failed"),
    ("pattern ^[a-z/]+$", "status", {"logicalTypeOptions": {"pattern": "^[a-z/]+$"}}, "pattern (ECMA-262 in JSON Schema)", "failed"),
    ("maximum 500", "DataValue", {"logicalTypeOptions": {"maximum": 500}}, "NULL and logicalTypeOptions", "failed"),
    ("minimum 0", "DataValue", {"logicalTypeOptions": {"minimum": 0}}, "NULL and logicalTypeOptions", "passed"),
    ("sql: values over 100 = 0", None,
     {"type": "sql", "query": "SELECT count(*) FROM {object} WHERE DataValue > 100", "mustBe": 0}, "-", "failed"),
    # [a, a] and [c, NULL, NULL] repeat an element; NULL, [] and [a, b] do not
    ("uniqueItems", "tags", {"logicalTypeOptions": {"uniqueItems": True}}, "uniqueItems", "failed"),
    # the newest is 2021: oldest 2020-01-01 is under 100 years old, over 30 days
    ("retention 100 y", "measured", {"slaProperties": [{"property": "retention", "value": 100, "unit": "y"}]},
     "retention", "passed"),
    ("retention 30 d", "measured", {"slaProperties": [{"property": "retention", "value": 30, "unit": "d"}]},
     "retention", "failed"),
    # bigint is the type of an int64 column; int is not that of a text column (no logicalType beside it)
    ("physicalType bigint", "UniqueID", {"physicalType": "bigint"}, "physicalType", "passed"),
    ("physicalType int on text", "note", {"physicalType": "int"}, "physicalType", "failed"),
]  # fmt: skip

_PROPERTIES = {"UniqueID": "integer", "DataValue": "number", "status": "string", "note": "string", "grp": "string",
               "tags": "array", "measured": "timestamp"}  # fmt: skip


def typed(case: tuple[str, str | None, dict[str, object], str, str]) -> bool:
    """Whether the case's rule is a column's type: judged by the type checks both tools otherwise leave aside."""
    return "physicalType" in case[2]


def contract(case: tuple[str, str | None, dict[str, object], str, str]) -> dict[str, object]:
    """The contract of one case: the Air_Quality object, the case's rule on it or on its property."""
    _, where, rule, _, _ = case
    properties: list[dict[str, object]] = []
    for name, logical in _PROPERTIES.items():
        prop: dict[str, object] = {"name": name, "logicalType": logical}
        if logical == "array":
            prop["items"] = {"logicalType": "string"}
        if name == where and "physicalType" in rule:
            prop = {"name": name, **rule}  # its type alone, no logicalType to contradict it
        elif name == where and "slaProperties" not in rule:
            prop |= rule if "metric" not in rule and "type" not in rule else {"quality": [rule]}
        properties.append(prop)
    obj: dict[str, object] = {"name": "Air_Quality", "physicalName": "Air_Quality", "properties": properties}
    if where is None:
        obj["quality"] = [rule]
    sla = [{**item, "element": f"Air_Quality.{where}"} for item in rule.get("slaProperties", [])]
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "air_quality",
        "name": "air_quality",
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "local", "type": "local", "format": "parquet", "path": "./Air_Quality.parquet"}],
        "schema": [obj],
        **({"slaProperties": sla} if sla else {}),
    }


def gryph_verdict(path: Path, types: bool = False) -> str:
    """failed when a check of the case's rule failed (the schema check aside unless ``types``), else passed."""
    from gryph.client import run

    checks = run(str(path), "duckdb").to_dict()["check"]
    ruled = {name: ok for name, ok in checks.items() if types or not name.startswith("schema Air_Quality")}
    return "passed" if all(ruled.values()) else "failed"


def peer_verdict(path: Path, peer: Path, types: bool = False) -> str:
    """datacontract-cli's verdict on the case's rule: its checks but the schema's (field present, and
    type unless ``types``)."""
    out = path.with_suffix(".peer.json")
    subprocess.run(
        [str(peer), "test", str(path), "--output", str(out), "--output-format", "json"],
        cwd=path.parent,
        capture_output=True,
        check=False,
        timeout=300,
    )
    checks = json.loads(out.read_text(encoding="utf-8"))["checks"]
    left_aside = ("field_is_present",) if types else ("field_is_present", "field_type")
    ruled = [c["result"] for c in checks if c["type"] not in left_aside]
    if not ruled:
        return "not run"
    if "error" in ruled:
        return "error"
    return "failed" if "failed" in ruled else ("warning" if "warning" in ruled else "passed")


def compare(peer: Path) -> list[tuple[str, str, str, str, str]]:
    """Per case: name, gryph's verdict, datacontract-cli's, the semantics row, gryph's expected verdict."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        pq.write_table(AIR_QUALITY, base / "Air_Quality.parquet")
        for index, case in enumerate(CASES):
            path = base / f"case_{index}.odcs.yaml"
            path.write_text(yaml.safe_dump(contract(case), sort_keys=False), encoding="utf-8")
            ours, theirs = gryph_verdict(path, typed(case)), peer_verdict(path, peer, typed(case))
            rows.append((case[0], ours, theirs, case[3], case[4]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--peer", type=Path, help="the datacontract executable (default: the venv made in ~/.cache/gryph)"
    )
    args = parser.parse_args(argv)
    print("| rule | gryph | datacontract-cli | semantics row |")
    print("| --- | --- | --- | --- |")
    for name, ours, theirs, row, _ in compare(args.peer or peer_executable()):
        print(f"| {name} | {ours} | {theirs} | {row if ours != theirs else ''} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
