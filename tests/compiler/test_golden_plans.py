"""Plan prints compared with golden files (``golden/NAME.dq`` -> ``golden/NAME.txt``).

The golden files are snapshots, reviewed by hand when written: fused_scan.txt was written from
the expected shape before the first run. Regenerate one after an intended change with
``GRYPH_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gryph.compiler.plan import format_plan
from tests.compiler.compiler_support import compile_text

GOLDEN = Path(__file__).parent / "golden"
SUITES = sorted(p.stem for p in GOLDEN.glob("*.dq"))


def test_every_golden_suite_has_a_print():
    assert SUITES
    assert {p.stem for p in GOLDEN.glob("*.txt")} == set(SUITES)


@pytest.mark.parametrize("name", SUITES)
def test_plan_print_matches_golden(name):
    text = (GOLDEN / f"{name}.dq").read_text(encoding="utf-8")
    printed = format_plan(compile_text(text, schemas={}).plan)
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("GRYPH_UPDATE_GOLDEN"):
        golden.write_text(printed, encoding="utf-8")
    assert printed == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", SUITES)
def test_plan_print_is_stable(name):
    text = (GOLDEN / f"{name}.dq").read_text(encoding="utf-8")
    assert format_plan(compile_text(text, schemas={}).plan) == format_plan(compile_text(text, schemas={}).plan)


def test_exports_are_part_of_the_printed_plan():
    from gryph.compiler.lowering import Options

    compiled = compile_text("completeness c on users: first_name\n", options=Options(records_to="out"))
    printed = format_plan(compiled.plan)
    assert "export c__incompleteRecords to out/c__incompleteRecords.parquet:\n  Filter (first_name IS NULL)" in printed
