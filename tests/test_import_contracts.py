"""The import contracts (`[tool.importlinter]` in pyproject.toml) catch the slips they are there for.

Each slip is one import line added to a copy of the three folders, laid out as the installed package
(``gryph/compiler``, ``gryph/client``, ``gryph/local_backend``); `lint-imports` runs on the copy with
the project's own contracts and must fail naming the contract the slip breaks. The copy untouched
must pass, so a failure is the slip's and not the copy's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tests.support.gryph_cli import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
FOLDERS = ("compiler", "client", "local_backend")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]

ENGINES_APART = "The engines never import each other"
NO_FRONT_END = "Engines import no front end"
STAGES = "The compiler's stages, each importing only those below it"

# (file the line is added to, the module it imports, the contract that must refuse it)
SLIPS = {
    "spark engine -> DuckDB's scalars": ("client/spark/engine.py", "gryph.local_backend.sql.scalars", ENGINES_APART),
    "DuckDB engine -> spark engine": ("local_backend/engine.py", "gryph.client.spark.engine", ENGINES_APART),
    "DuckDB scalars -> the rule tree": (
        "local_backend/sql/scalars.py",
        "gryph.compiler.language.ruletree.nodes",
        NO_FRONT_END,
    ),
    "spark engine -> lowering": ("client/spark/compile/scalars.py", "gryph.compiler.lowering", NO_FRONT_END),
    "DuckDB engine -> the check pass": ("local_backend/engine.py", "gryph.compiler.analysis.check_pass", NO_FRONT_END),
    "spark engine -> rule kinds": ("client/spark/engine.py", "gryph.compiler.rule_kinds", NO_FRONT_END),
    "Griffin loader -> lowering": ("compiler/griffin/job.py", "gryph.compiler.lowering", STAGES),
    "Griffin loader -> the check pass": ("compiler/griffin/job.py", "gryph.compiler.analysis", STAGES),
    "Griffin loader -> checks": ("compiler/griffin/job.py", "gryph.compiler.checks.check_tree", STAGES),
    "Spark dialect -> the language": (
        "compiler/spark_dialect/user_sql.py",
        "gryph.compiler.language.textx_parser",
        STAGES,
    ),
    "support -> the Spark dialect": ("compiler/support/text_files.py", "gryph.compiler.spark_dialect.user_sql", STAGES),
    "plan -> sources": ("compiler/plan/printer.py", "gryph.compiler.sources.source_specs", STAGES),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three folders as the package ``gryph`` lays them out, and the project's contracts."""
    root = tmp_path_factory.mktemp("tree")
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, root / "gryph" / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _broken(root: Path) -> tuple[int, set[str], str]:
    """lint-imports' exit code on ``root``, the contracts it reports broken, and its output."""
    # the copy comes first on the path: the editable install's finder is consulted only after it
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    output = done.stdout + done.stderr
    return done.returncode, set(re.findall(r"^(.+?) BROKEN\b", output, re.MULTILINE)), output


def test_the_copy_keeps_every_contract(pristine: Path) -> None:
    code, broken, output = _broken(pristine)
    assert (code, broken) == (0, set()), output
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in output


@pytest.mark.parametrize("slip", SLIPS)
def test_a_slip_is_refused_by_its_contract(pristine: Path, tmp_path: Path, slip: str) -> None:
    path, imported, contract = SLIPS[slip]
    root = tmp_path / "tree"
    shutil.copytree(pristine, root)
    target = root / "gryph" / path
    target.write_text(target.read_text(encoding="utf-8") + f"\nimport {imported}  # the slip\n", encoding="utf-8")
    code, broken, output = _broken(root)
    assert code != 0, output
    assert contract in broken, output
    assert f"gryph.{path.removesuffix('.py').replace('/', '.')} -> {imported}" in output


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
    }
    parts = {p.stem for p in (ROOT / "compiler").iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    parts.discard("__init__")
    assert {m.removeprefix("gryph.compiler.") for m in front_end} == parts - engines_read
    assert engines_read <= parts
