"""The docs' Development page (its "Tests, lint and recipes" section), followed as a newcomer would: every file it names is there, and
every name a recipe (a rule type, a plan node, a function, an engine, a source kind) gives is
defined in a file that recipe names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gryph.compiler.engine import Engine
from gryph.compiler.language.ruletree.fast_suite import SOURCE_FORMAT
from gryph.compiler.source_kinds import dsl_keywords

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
SECTION = PAGE.split("\n## Tests, lint and recipes\n", 1)[1].split("\n## ", 1)[0]
RECIPES = dict(re.findall(r"^- \*\*([^*]+)\*\*:?(.*?)(?=^- \*\*|\Z)", SECTION, re.MULTILINE | re.DOTALL))
PATH = re.compile(r"`((?:compiler|client|local_backend|tests)/[\w/.*]*)`")
# `name`, `name()`, `name(args)` or `Class.name`; not a file (`x.py`) nor a config key (`dq.type`)
NAME = re.compile(r"`(?:([A-Z]\w*)\.)?([A-Za-z_]\w*)(?:\([^`]*\))?`")


def _files(text: str) -> list[Path]:
    """The files a recipe names: files as named, folders as all their modules and grammars."""
    out = []
    for named in PATH.findall(text):
        for path in ROOT.glob(named):
            out += [p for p in path.rglob("*") if p.suffix in (".py", ".tx")] if path.is_dir() else [path]
    return out


def _defines(path: Path, name: str) -> bool:
    """Whether ``path`` defines ``name`` at any depth: a class, a function, an assignment or an
    annotated field (a protocol's member), or a grammar rule."""
    pattern = rf"^\s*(?:class|def)\s+{name}\b|^\s*{name}\s*(?::|=|\+=)"
    return re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE) is not None


def test_every_file_the_section_names_exists():
    named = PATH.findall(SECTION)
    assert len(named) > 40
    assert [p for p in named if not list(ROOT.glob(p))] == []


@pytest.mark.parametrize("recipe", ["A rule type", "A plan node", "A function", "An engine", "A source kind"])
def test_each_name_a_recipe_gives_is_defined_in_a_file_it_names(recipe):
    text = RECIPES[recipe]
    files = _files(text)
    names = NAME.findall(text)
    assert files and len(names) >= 5
    undefined = [
        f"{owner}.{name}" if owner else name
        for owner, name in names
        if not any(_defines(f, name) and (not owner or _defines(f, owner)) for f in files)
    ]
    assert undefined == [], f"{recipe}: not defined in the files it names"


def test_the_engine_recipe_names_every_member_of_the_protocol():
    members = {n for n in vars(Engine) if not n.startswith("_")} | set(Engine.__annotations__)
    named = {name for _, name in NAME.findall(RECIPES["An engine"])}
    assert members - named == set()


def test_the_source_keywords_are_the_declared_formats():
    grammar = (ROOT / "compiler/language/grammar/suite.tx").read_text(encoding="utf-8")
    keywords = re.search(r"^SourceFormat: /\(\?ai:([\w|]+)\)", grammar, re.MULTILINE).group(1).split("|")
    fast = re.fullmatch(r"\(\?ai:([\w|]+)\)\\b", SOURCE_FORMAT.pattern).group(1).split("|")
    assert set(keywords) == set(fast) == set(dsl_keywords())
