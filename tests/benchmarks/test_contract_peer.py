"""The datacontract-cli comparison (benchmarks/contract_peer.py): gryph's verdict on every case is the
one worked out by hand, and the table kept in docs/contracts.md is what both tools say today."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from benchmarks.contract_peer import AIR_QUALITY, CASES, contract, gryph_verdict, peer_executable, peer_verdict, typed

DOCS = Path(__file__).resolve().parents[2] / "docs" / "contracts.md"


@pytest.fixture
def folder(tmp_path):
    pq.write_table(AIR_QUALITY, tmp_path / "Air_Quality.parquet")
    return tmp_path


def _write(folder, case):
    path = folder / f"case_{CASES.index(case)}.odcs.yaml"
    path.write_text(yaml.safe_dump(contract(case), sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_gryph_gives_the_verdict_worked_out_by_hand(folder, case):
    assert gryph_verdict(_write(folder, case), typed(case)) == case[4]


def _kept_table() -> dict[str, tuple[str, str, str]]:
    """docs/contracts.md's peer table: rule -> (gryph, datacontract-cli, semantics row)."""
    section = DOCS.read_text(encoding="utf-8").split("## datacontract-cli")[1]
    rows = re.findall(r"^\| ([^|]+) \| (\w+) \| ([\w ]+) \| ([^|]*) \|$", section, re.MULTILINE)
    return {name: (ours, theirs, row.strip()) for name, ours, theirs, row in rows if name != "rule"}


def test_the_kept_table_covers_every_case_and_names_a_row_for_every_difference():
    kept = _kept_table()
    assert list(kept) == [case[0] for case in CASES]
    semantics = DOCS.read_text(encoding="utf-8").split("## Semantics")[1].split("##")[0]
    for name, (ours, theirs, row) in kept.items():
        assert ours == next(case[4] for case in CASES if case[0] == name)
        if ours != theirs:  # each difference is explained by a row of the semantics table
            assert row and f"| {row} |" in semantics.replace("`", ""), name


# one case of each kind of difference and two of agreement: the peer takes ~3 s per contract
PEER_SAMPLE = ["rowCount between [5, 10]", "duplicateValues <= 1, a value 3 times", "missingValues ['', 'n/a'] < 3",
               "nullValues < 20 percent", "unique with NULLs", "retention 30 d", "physicalType bigint"]  # fmt: skip


@pytest.mark.parametrize("name", PEER_SAMPLE)
def test_datacontract_cli_says_what_the_kept_table_says(folder, name):
    peer = peer_executable()  # its own venv: it pins DuckDB 1.x, gryph runs on 2.x
    case = next(case for case in CASES if case[0] == name)
    assert peer_verdict(_write(folder, case), peer, typed(case)) == _kept_table()[name][1]
