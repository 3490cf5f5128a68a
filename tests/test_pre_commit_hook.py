"""The pre-commit hook (.pre-commit-hooks.yaml) as another repository uses it, through
`pre-commit try-repo`: pre-commit installs this checkout into a hook environment of its own (from
the package index: marked ``wheel``, run by `make test`), then validates the changed suites."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheel


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_the_hook_validates_changed_suites_and_griffin_configs(tmp_path):
    repo = tmp_path / "repo"
    (repo / "griffin").mkdir(parents=True)
    shutil.copytree(ROOT / "examples" / "data", repo / "data")  # what the Griffin config reads
    (repo / "good.dq").write_text(
        'suite good\nsource users = csv("data/users.csv")\ncompleteness ids on users: user_id\n', encoding="utf-8"
    )
    (repo / "bad.dq").write_text('suite bad\nsource users = csv("data/users.csv"\n', encoding="utf-8")  # no ")"
    shutil.copy(ROOT / "examples" / "griffin" / "measures.json", repo / "griffin" / "measures.json")
    (repo / "package.json").write_text("{not a griffin config", encoding="utf-8")  # not the hook's: left alone
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    env.pop("VIRTUAL_ENV", None)
    pre_commit = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "gryph-validate", "--verbose"]
    done = subprocess.run([*pre_commit, "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "gryph validate" in out and "Failed" in out
    assert "good.dq: ok" in out and "griffin/measures.json: ok" in out
    assert "bad.dq:3:" in out or "bad.dq:2:" in out  # the located syntax error
    assert "package.json" not in out

    (repo / "bad.dq").unlink()
    _git(repo, "add", "-A")
    done = subprocess.run([*pre_commit, "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
