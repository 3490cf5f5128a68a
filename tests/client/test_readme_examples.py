"""The README's runnable examples: each `$ gryph ...` block is run, and what it shows must be what
the program prints; the suite shown just above it must be the example file the command names."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import pytest

from tests.support.gryph_cli import ROOT, gryph

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# `{ ..., "a": 1, ... }`: the shown document leaves keys out; what it shows must match exactly
ELLIPSIS = re.compile(r"\.\.\.\s*,|,\s*\.\.\.")


def readme_examples() -> list[tuple[str, str, str]]:
    """(suite block, command, shown output) for every block that starts with `$ gryph`."""
    blocks = FENCE.findall(ROOT.joinpath("README.md").read_text(encoding="utf-8"))
    examples = []
    for before, block in itertools.pairwise(blocks):
        if block.startswith("$ gryph "):
            command, _, shown = block.partition("\n")
            examples.append((before, command.removeprefix("$ "), shown))
    return examples


EXAMPLES = readme_examples()


def test_the_readme_has_its_measure_check_example():
    assert any("examples/seed.dq" in command for _, command, _ in EXAMPLES)


@pytest.mark.parametrize("suite,command,shown", EXAMPLES, ids=[command for _, command, _ in EXAMPLES])
def test_readme_example_runs_as_shown(tmp_path: Path, suite: str, command: str, shown: str):
    args = shlex.split(command)[1:]
    example = next(arg for arg in args if arg.endswith(".dq"))
    assert suite == ROOT.joinpath(example).read_text(encoding="utf-8"), f"the README's suite is not {example}"
    # run the snippet itself, from a file of its own beside the bundled data
    (tmp_path / "data").symlink_to(ROOT / "examples" / "data")
    (tmp_path / "example.dq").write_text(suite, encoding="utf-8")
    args[args.index(example)] = str(tmp_path / "example.dq")
    done = gryph(*args, "--no-history", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    expected = json.loads(ELLIPSIS.sub("", shown))
    assert {key: printed.get(key) for key in expected} == expected
