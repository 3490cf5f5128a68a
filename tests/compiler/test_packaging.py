"""Every sub-package is listed in pyproject.toml, or it vanishes from real installs."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_packages_list_matches_the_folders():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    package_dir = setuptools["package-dir"]
    assert package_dir == {
        "gryph.compiler": "compiler",
        "gryph.client": "client",
        "gryph.local_backend": "local_backend",
    }
    found = set()
    for package, folder in package_dir.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join((package, *relative.parts)))
    # the folders of data files only are packages too, each with its package data
    assert set(setuptools["packages"]) == found | set(setuptools["package-data"])


def test_grammar_files_are_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]["gryph.compiler.language.grammar"]
    assert "*.tx" in data
    assert list((ROOT / "compiler" / "language" / "grammar").glob("*.tx"))


def test_no_bare_top_level_packages_importable_from_the_installed_gryph():
    import gryph.compiler

    assert Path(gryph.compiler.__file__).resolve().parent == (ROOT / "compiler").resolve()
