"""The engines' and the compiler stages' import contracts (`[tool.importlinter]` in pyproject.toml)
catch the slips they are there for: each import added to a copy of the tree breaks its contract
(tests/test_client_import_contracts.py holds the client's, and the unchanged tree keeping them all)."""

from __future__ import annotations

import pytest
import tomllib

from tests.support.import_slips import ROOT, broken_contracts

CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]

ENGINES_APART = "The engines never import each other"
NO_FRONT_END = "Engines import no front end"
STAGES = "The compiler's stages, each importing only those below it"

SLIPS = [
    # (module, added import, the contract that must break); the first five are issue 41's
    ("client/spark/engine.py", "import gryph.local_backend.sql.scalars", ENGINES_APART),
    ("local_backend/engine.py", "import gryph.client.spark.engine", ENGINES_APART),
    ("local_backend/sql/scalars.py", "import gryph.compiler.language.ruletree.nodes", NO_FRONT_END),
    ("client/spark/compile/scalars.py", "import gryph.compiler.lowering", NO_FRONT_END),
    ("compiler/griffin/job.py", "import gryph.compiler.lowering", STAGES),  # the Griffin loader
    ("local_backend/engine.py", "import gryph.compiler.analysis.check_pass", NO_FRONT_END),
    ("client/spark/engine.py", "import gryph.compiler.rule_kinds", NO_FRONT_END),
    ("compiler/griffin/job.py", "import gryph.compiler.analysis", STAGES),
    ("compiler/griffin/job.py", "import gryph.compiler.checks.check_tree", STAGES),
    ("compiler/spark_dialect/user_sql.py", "import gryph.compiler.language.textx_parser", STAGES),
    ("compiler/support/text_files.py", "import gryph.compiler.spark_dialect.user_sql", STAGES),
    ("compiler/plan/printer.py", "import gryph.compiler.sources.source_specs", STAGES),
]


@pytest.mark.parametrize(("module", "line", "contract"), SLIPS, ids=[f"{m}:{line[13:]}" for m, line, _ in SLIPS])
def test_a_slip_breaks_its_contract(module: str, line: str, contract: str) -> None:
    assert contract in broken_contracts(module, line)


def test_an_engine_reads_only_the_named_parts_of_the_compiler() -> None:
    """Every part of the compiler is either one an engine may read or a front end it may not: a new
    package has to be placed on one side before the contract says anything about it."""
    (front_end,) = [c["forbidden_modules"] for c in CONTRACTS if c["name"] == NO_FRONT_END]
    engines_read = {
        "plan",
        "sources",
        "spark_dialect",
        "support",
        "engine",
        "errors",
        "error_codes",
        "redaction",
        "safe_names",
        "results",
        "source_kinds",
    }
    parts = {p.stem for p in (ROOT / "compiler").iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    parts.discard("__init__")
    assert {m.removeprefix("gryph.compiler.") for m in front_end} == parts - engines_read
    assert engines_read <= parts
