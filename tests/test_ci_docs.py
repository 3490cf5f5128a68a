"""docs/ci-gate.md's GitHub Actions, GitLab CI and pre-commit examples parse, and use the inputs,
hook and options that action.yml, .pre-commit-hooks.yaml and `gryph run` have."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from gryph.client.cli.main import _parser

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.compile(r"^```yaml\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _examples() -> list[dict]:
    return [yaml.safe_load(block) for block in BLOCKS.findall((ROOT / "docs" / "ci-gate.md").read_text("utf-8"))]


def test_the_github_job_gives_the_action_its_inputs():
    github = next(e for e in _examples() if "jobs" in e)
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in github["jobs"]["gate"]["steps"] if s["uses"].startswith("OWNER/gryph@")]
    assert set(step["with"]) <= set(action["inputs"])
    assert {name for name, spec in action["inputs"].items() if spec.get("required")} <= set(step["with"])
    _parser().parse_args(["run", step["with"]["suite"], *shlex.split(step["with"]["args"])])


def test_the_gitlab_job_reports_the_junit_file_gryph_writes():
    gitlab = next(e for e in _examples() if "data-quality" in e)["data-quality"]
    (command,) = [line for line in gitlab["script"] if line.startswith("gryph run ")]
    args = _parser().parse_args(shlex.split(command)[1:])
    assert gitlab["artifacts"]["reports"]["junit"] == args.junit
    assert gitlab["artifacts"]["paths"] == [args.markdown]


def test_the_pre_commit_example_names_the_hook():
    config = next(e for e in _examples() if "repos" in e)
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in config["repos"][0]["hooks"]] == [h["id"] for h in hooks] == ["gryph-validate"]
