"""Every error compiling raises, validate raises too: the check pass catches what lowering used to.

The fuzzer's fixed-seed cases and its regression corpus run through both ``validate`` (the check
pass only) and a full compile; each input must fare the same way in both: checked and compiled,
or refused with the same code, message, location, offending text and hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz_support import Case, Workspace, cases, REPO
from gryph.client import validate
from gryph.client.runner import compile_source
from gryph.compiler.errors import GryphError
from gryph.local_backend.engine import DuckDBEngine

REGRESSIONS = Path(__file__).parent / "regressions"
SEED, CASES = 20261124, 400


@pytest.fixture(scope="module")
def bench():
    engine, workspace = DuckDBEngine(), Workspace()
    yield engine, workspace
    workspace.close()
    engine.close()


def fate(step, path: Path, engine) -> tuple | None:
    """None when ``step`` accepts the input, else what its error says."""
    try:
        step(path, engine)
        return None
    except GryphError as error:
        return error.code, error.message, error.location, error.text, error.hint


def corpus() -> list[Case]:
    found = list(cases(SEED, CASES))
    for path in sorted(p for p in REGRESSIONS.iterdir() if p.suffix in (".dq", ".json")):
        seed = REPO / path.name.split("__fuzzfail")[0].replace("__", "/")
        found.append(Case(seed, "regression", path.read_bytes()))
    return found


def test_validate_and_compile_refuse_the_same_inputs_the_same_way(bench):
    engine, workspace = bench
    differences, refused = [], 0
    for number, case in enumerate(corpus()):
        path = workspace.place(case)
        checked, compiled = fate(validate, path, engine), fate(compile_source, path, engine)
        refused += checked is not None
        if checked != compiled:
            differences.append(f"case {number} ({case.seed.name}, {case.mutation}): {checked} vs {compiled}")
    assert not differences, "\n".join(differences[:20])
    assert 50 < refused < number  # the corpus holds bad inputs and good ones
