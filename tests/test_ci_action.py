"""The composite GitHub Action (action.yml): its run step as GitHub runs it, a bash script with the
inputs in its environment, $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT files. Its install step is the one
line checked here (installing would replace this checkout's editable install; tests/test_wheel.py
installs the package the same way, into a venv of its own)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def _step(name: str) -> dict:
    (step,) = [s for s in ACTION["runs"]["steps"] if s["name"] == name]
    return step


def _run_step(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """The run step in bash, ``inputs`` over the action's defaults, in a copy of examples/."""
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()} | inputs
    step = _step("Run the suite")
    env = {key: EXPRESSION.sub(lambda m: values[m.group(1)], value) for key, value in step["env"].items()}
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("# earlier step\n", encoding="utf-8")
    environment = dict(os.environ, **env, GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(output))
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"  # gryph installed
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    return done, summary, output


def test_the_action_installs_the_package_it_is_given_or_its_own_checkout():
    step = _step("Install gryph")
    assert step["run"] == 'python -m pip install --quiet "${GRYPH_PACKAGE:-$ACTION_PATH}"'
    assert step["env"] == {"GRYPH_PACKAGE": "${{ inputs.package }}", "ACTION_PATH": "${{ github.action_path }}"}
    assert ACTION["runs"]["using"] == "composite" and ACTION["inputs"]["suite"]["required"] is True


def test_a_passing_suite_passes_the_job_with_its_summary_and_junit(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    done, summary, output = _run_step(tmp_path, suite="examples/users.dq", args="--no-history")
    assert done.returncode == 0, done.stdout + done.stderr
    assert output.read_text(encoding="utf-8") == "exit-code=0\n"
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n## ✅ gryph: suite users\\_daily passed")  # appended, not replaced
    assert (tmp_path / "gryph-junit.xml").read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_a_failing_suite_fails_the_job_with_gryphs_exit_code(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    # users.csv has 50 rows (wc -l: 51 lines with the header): the check cannot hold
    (tmp_path / "gate.dq").write_text(
        'suite gate\nsource users = csv("examples/data/users.csv")\ncheck "many rows": rows(users) > 50\n',
        encoding="utf-8",
    )
    done, summary, output = _run_step(tmp_path, suite="gate.dq", args="--no-history", junit="out/j.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert output.read_text(encoding="utf-8") == "exit-code=1\n"
    assert "many rows" in summary.read_text(encoding="utf-8")
    assert (tmp_path / "out" / "j.xml").exists()
