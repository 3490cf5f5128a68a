"""The DuckDB SQL of the golden suites (``tests/compiler/golden/NAME.dq`` -> ``golden_sql/NAME.sql``).

Snapshots, reviewed by hand when written: a change to the SQL the DuckDB engine generates shows
as a diff here. Refresh after an intended change with
``GRYPH_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/local_backend/test_golden_sql.py`` and
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gryph.local_backend.sql.relations import query_sql
from tests.compiler.compiler_support import compile_text

SUITES_DIR = Path(__file__).parents[1] / "compiler" / "golden"
GOLDEN = Path(__file__).parent / "golden_sql"
SUITES = sorted(p.stem for p in SUITES_DIR.glob("*.dq"))


def generated_sql(name: str) -> str:
    plan = compile_text((SUITES_DIR / f"{name}.dq").read_text(encoding="utf-8"), schemas={}).plan
    return "".join(f"-- query {query.name}\n{query_sql(query)};\n\n" for query in plan.queries)


def test_every_golden_suite_has_its_sql():
    assert SUITES and {p.stem for p in GOLDEN.glob("*.sql")} == set(SUITES)


@pytest.mark.parametrize("name", SUITES)
def test_duckdb_sql_matches_golden(name):
    sql = generated_sql(name)
    golden = GOLDEN / f"{name}.sql"
    if os.environ.get("GRYPH_UPDATE_GOLDEN"):
        golden.write_text(sql, encoding="utf-8")
    assert sql == golden.read_text(encoding="utf-8")
