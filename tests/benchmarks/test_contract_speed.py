"""The contract speed benchmark's contract (benchmarks/contract_speed.py): 20 rules that hold on the
generated orders, so both tools do the whole work and pass."""

from __future__ import annotations

from benchmarks.contract_speed import contract, prepare
from gryph.client import run


def _rules(stated):
    obj = stated["schema"][0]
    per_property = sum(
        len(p.get("quality", []))
        + len(p.get("logicalTypeOptions", {}))
        + bool(p.get("required"))
        + bool(p.get("unique"))
        for p in obj["properties"]
    )
    return per_property + len(obj["quality"])


def test_the_contract_states_20_rules():
    assert _rules(contract("orders.parquet", 1000)) == 20


def test_every_rule_holds_on_the_generated_orders(tmp_path):
    result = run(str(prepare(2000, tmp_path)), "duckdb").to_dict()
    # the 20 rules and the schema check (the logical types), each by its contract path
    assert len(result["check"]) == 21 and all(result["check"].values())
    assert (tmp_path / "rows_2000" / "orders.parquet").exists()  # generated where it is told, once
