"""The README and docs/getting-started.md show one table of the package's extras, the same one,
naming every extra pyproject.toml declares (a new extra documented in one place only fails here)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _extras_table(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index("| extra | brings | for |")
    return text[start : text.index("\n\n", start)]


def test_readme_and_getting_started_show_the_same_extras_table():
    assert _extras_table(ROOT / "README.md") == _extras_table(ROOT / "docs" / "getting-started.md")


def test_the_table_names_every_declared_extra():
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named = set()
    for line in _extras_table(ROOT / "README.md").splitlines()[2:]:
        named |= set(re.findall(r"`([a-z-]+)`", line.split("|")[1]))
    assert named == declared
