"""Engines' declared refusals: validate reports them at the rule (offline for Spark), the engine
refuses with the same words at run time, and the docs' support matrix (docs/engines.md) is their table."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gryph.client import runner
from gryph.client.run.engines import support_matrix
from gryph.client.spark.capabilities import CAPABILITIES as SPARK
from gryph.compiler.errors import InvalidInput, UnsupportedError
from gryph.compiler.plan import Call, Field, Fn, Literal
from gryph.compiler.plan.data_types import DOUBLE, INTEGER, JSON, STRING
from tests.support.gryph_cli import ROOT, gryph

SUITE = """source t = csv("t.csv", schema = "x double, n int")

completeness plain on t: x
completeness rounded on t:
    round(x, n) > 1
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "t.csv").write_text("x,n\n2.345,2\n")
    path = tmp_path / "rounded.dq"
    path.write_text(SUITE)
    return path


def test_validate_on_spark_refuses_the_rule_without_a_server(suite):
    # no server anywhere: an unreachable URL would fail as SPARK_UNREACHABLE (exit 3)
    env = {**os.environ, "SPARK_REMOTE": "sc://127.0.0.1:1"}
    command = [str(ROOT / ".venv" / "bin" / "gryph"), "validate", str(suite), "--engine", "spark"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    # the rule starts on line 4, column 1; its round has a column (n) as its number of digits
    assert done.stderr.startswith(f"{suite}:4:1: error ENGINE_REFUSES: ")
    assert "round with a column scale is not supported on spark (not possible)" in done.stderr
    assert "near: round(x, n)" in done.stderr
    assert "constant only" in done.stderr and "Traceback" not in done.stderr


def test_validate_on_duckdb_runs_what_spark_refuses(suite):
    done = gryph("validate", str(suite), "--engine", "duckdb")
    assert done.returncode == 0, done.stderr
    assert "ok (2 rules" in done.stdout


def test_the_engine_refuses_in_the_words_validate_uses(suite):
    from gryph.client.spark.compile.scalars import compile_scalar  # builds expressions offline

    with pytest.raises(InvalidInput) as found:
        runner.validate(suite, "spark")
    scale = Call(Fn.ROUND, (Field("x", DOUBLE), Field("n", INTEGER)), DOUBLE)
    with pytest.raises(UnsupportedError) as refused:
        compile_scalar(scale)
    assert (
        refused.value.message
        == found.value.message
        == ("round with a column scale is not supported on spark (not possible)")
    )
    assert refused.value.code == "UNSUPPORTED_ON_ENGINE" and refused.value.exit_code == 3
    assert found.value.code == "ENGINE_REFUSES" and found.value.exit_code == 2


def test_a_declaration_finds_its_nodes_only():
    def doc(name: str) -> Call:
        return Call(Fn.JSON_FIELD, (Call(Fn.JSON_PARSE, (Field("d", STRING),), JSON), Literal(name, STRING)), JSON)

    json_gap = SPARK.refusal("json field name with quotes or brackets")
    assert json_gap.applies(doc("q['x']")) and json_gap.applies(doc('a"b'))
    assert not json_gap.applies(doc("x/y"))
    round_gap = SPARK.refusal("round with a column scale")
    assert not round_gap.applies(Call(Fn.ROUND, (Field("x", DOUBLE), Literal(2, INTEGER)), DOUBLE))
    assert not round_gap.applies(Call(Fn.ROUND, (Field("x", DOUBLE),), DOUBLE))


def test_docs_support_matrix_is_the_declarations():
    page = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    section = page.split("## What each engine runs\n", 1)[1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|")) + "\n"
    assert table == support_matrix()
    assert "| round with a column scale | runs | not possible: " in table


@pytest.mark.spark
def test_run_on_spark_refuses_before_any_scan(suite, spark_remote):
    from gryph.client.spark.engine import SparkEngine

    with SparkEngine(spark_remote) as engine, pytest.raises(InvalidInput) as found:
        runner.run(suite, engine)
    # ENGINE_REFUSES comes from the plan's check; the engine's own refusal is UNSUPPORTED_ON_ENGINE
    assert found.value.code == "ENGINE_REFUSES" and found.value.location.line == 4
