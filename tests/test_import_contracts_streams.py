"""pyproject.toml's contract that a stream imports no engine but Kafka's broker module, shown to
catch its slips: each slip is one import line added to a copy of the package, and lint-imports,
run on the copy, must break the contract; the copy as it is keeps it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = "streams-engines"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# (module file of the copy, the import line a slip adds): each engine module a stream must not name
SLIPS = {
    "duckdb engine": ("client/streaming/stream_runner.py", "import gryph.local_backend.engine"),
    "duckdb type names": ("client/streaming/empty_batches.py", "from gryph.local_backend.sources import duck_types"),
    "spark engine": ("client/streaming/batch_inputs.py", "import gryph.client.spark.engine"),
    # the broker module is allowed to kafka_stream.py only, and only the broker module
    "broker from another module": (
        "client/streaming/stream_control.py",
        "import gryph.local_backend.sources.kafka.broker",
    ),
    "kafka reader": ("client/streaming/kafka_stream.py", "import gryph.local_backend.sources.kafka.reader"),
}


def _copy(tmp_path: Path) -> Path:
    """The three packages laid out as ``gryph.*`` (setuptools' package-dir), and the contracts."""
    for folder in ("compiler", "client", "local_backend"):
        shutil.copytree(ROOT / folder, tmp_path / "gryph" / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(copy: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--contract", CONTRACT, "pyproject.toml"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    return _copy(tmp_path_factory.mktemp("contracts"))


def test_the_copy_as_it_is_keeps_the_contract(copy):
    done = _lint(copy)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Streams import no engine but the Kafka broker module KEPT" in done.stdout


@pytest.mark.parametrize("slip", SLIPS)
def test_each_slip_breaks_the_contract(copy, slip):
    module, line = SLIPS[slip]
    path = copy / "gryph" / module
    kept = path.read_text(encoding="utf-8")
    path.write_text(f"{kept}\n{line}\n", encoding="utf-8")
    try:
        done = _lint(copy)
    finally:
        path.write_text(kept, encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Streams import no engine but the Kafka broker module BROKEN" in done.stdout
    importer = "gryph." + module.removesuffix(".py").replace("/", ".")
    imported = line.split()[1] if line.startswith("import ") else f"{line.split()[1]}.{line.split()[3]}"
    assert f"{importer} -> {imported} (l." in " ".join(done.stdout.split())  # its report wraps long lines
