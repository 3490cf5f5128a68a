"""The built wheel works on its own: installed into a fresh venv outside the checkout, gryph runs the example,
validates, suggests and writes the HTML reports from what the wheel holds (grammar, connectors pom).

Slow (a build and a full install from the package index, ~1 min with a warm pip cache): marked ``wheel``, which
``make test`` runs and ``make test-fast`` leaves out.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheel


def _run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # nothing of the checkout's environment leaks in: no PYTHONPATH, no venv of ours
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["GRYPH_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build`: the sdist, then the wheel built from that sdist (so the sdist is complete too)."""
    out = tmp_path_factory.mktemp("dist")
    done = _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the checkout with the wheel and its dependencies from the package index."""
    home = tmp_path_factory.mktemp("user")
    venv.create(home / "venv", with_pip=True)
    (wheel,) = dist.glob("gryph-*.whl")
    done = _run([str(home / "venv" / "bin" / "pip"), "install", "-q", str(wheel)], cwd=home)
    assert done.returncode == 0, done.stderr[-3000:]
    shutil.copytree(ROOT / "examples", home / "examples")
    return home


def _gryph(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([str(home / "venv" / "bin" / "gryph"), *args], cwd=home)


def test_the_wheel_holds_every_file_read_at_run_time(dist: Path):
    (wheel,) = dist.glob("gryph-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    grammar = sorted((ROOT / "compiler" / "language" / "grammar").glob("*.tx"))
    assert grammar
    for tx in grammar:
        assert f"gryph/compiler/language/grammar/{tx.name}" in names
    assert "gryph/client/spark/session/connectors/pom.xml" in names
    assert "gryph-0.1.0.dist-info/licenses/LICENSE" in names
    assert not any(name.startswith(("tests/", "compiler/", "client/")) for name in names)


def test_metadata_is_ready_for_pypi(dist: Path):
    files = sorted(str(f) for f in dist.iterdir())
    assert len(files) == 2  # the sdist and the wheel
    done = _run([sys.executable, "-m", "twine", "check", "--strict", *files], cwd=dist)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = dist.glob("gryph-*.whl")
    metadata = zipfile.ZipFile(wheel).read("gryph-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert "Requires-Python: >=3.10" in metadata
    assert "Classifier: Programming Language :: Python :: 3 :: Only" in metadata


def test_the_installed_gryph_is_the_wheels(installed: Path):
    code = "import gryph.compiler.language.textx_parser as p; print(p.GRAMMAR_DIR)"
    done = _run([str(installed / "venv" / "bin" / "python"), "-c", code], cwd=installed)
    assert done.returncode == 0, done.stderr
    grammar = Path(done.stdout.strip())
    assert grammar.is_relative_to(installed / "venv")
    assert not grammar.is_relative_to(ROOT)


def test_the_example_runs_from_the_wheel(installed: Path):
    with (installed / "examples" / "data" / "users.csv").open(newline="", encoding="utf-8") as f:
        rows = sum(1 for _ in csv.DictReader(f))
    done = _gryph(installed, "run", "examples/users.dq", "--html", "run.html")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "suite users_daily on duckdb" in done.stdout
    totals = [
        line.split() for line in done.stdout.splitlines() if line.startswith("users_match (accuracy)  total_count")
    ]
    assert totals == [["users_match", "(accuracy)", "total_count", str(rows)]]
    html = (installed / "run.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "<svg" in html


def test_the_history_report_from_the_wheel(installed: Path):
    assert _gryph(installed, "run", "examples/users.dq").returncode == 0
    done = _gryph(installed, "report", "users_daily", "-o", "history.html")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (installed / "history.html").read_text(encoding="utf-8")
    assert "users_daily" in html and "<svg" in html


def test_validate_from_the_wheel(installed: Path):
    for suite in ("examples/users.dq", "examples/griffin/measures.json"):
        done = _gryph(installed, "validate", suite)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{suite}: ok" in done.stdout
    (installed / "broken.dq").write_text("suite broken\nsource t = csv(\n", encoding="utf-8")
    done = _gryph(installed, "validate", "broken.dq")
    assert done.returncode != 0
    assert "broken.dq:" in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_suggest_from_the_wheel_gives_a_suite_that_validates(installed: Path):
    done = _gryph(installed, "suggest", "examples/data/users.csv", "-o", "suggested.dq")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "suite suggested" in (installed / "suggested.dq").read_text(encoding="utf-8")
    done = _gryph(installed, "validate", "suggested.dq")
    assert done.returncode == 0, done.stdout + done.stderr
