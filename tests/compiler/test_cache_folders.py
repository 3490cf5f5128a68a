"""gryph's cache folder (compiler/support/cache_folders.py): moved by GRYPH_CACHE_DIR, turned off by
``off`` for the grammar's pickles, while fetched jars (client/spark/session/connector_jars.py) stay in
the default folder then."""

from __future__ import annotations

from pathlib import Path

import pytest

from gryph.client.spark.session.connector_jars import jar_cache
from gryph.compiler.support.cache_folders import cache_dir


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("GRYPH_CACHE_DIR", raising=False)
    return tmp_path / "home"


def test_nothing_set_is_the_home_cache(home: Path) -> None:
    assert cache_dir() == jar_cache() == home / ".cache" / "gryph"


def test_xdg_cache_home_moves_the_default(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == jar_cache() == tmp_path / "xdg" / "gryph"


def test_gryph_cache_dir_wins(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("GRYPH_CACHE_DIR", str(tmp_path / "mine é"))
    assert cache_dir() == jar_cache() == tmp_path / "mine é"


@pytest.mark.parametrize("xdg", [None, "xdg"])
def test_off_turns_off_the_grammar_cache_but_jars_keep_the_default(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg: str | None
) -> None:
    monkeypatch.setenv("GRYPH_CACHE_DIR", "off")
    if xdg:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / xdg))
    assert cache_dir() is None
    assert jar_cache() == (tmp_path / xdg if xdg else home / ".cache") / "gryph"


def test_an_empty_setting_is_no_setting(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRYPH_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert cache_dir() == jar_cache() == home / ".cache" / "gryph"
