"""A layering slip made on purpose: one import line added to a module of a copy of the three
source folders, and the import contracts (``[tool.importlinter]`` in pyproject.toml) run there."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("compiler", "client", "local_backend")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def broken_contracts(module: str, import_line: str) -> list[str]:
    """The contracts ``lint-imports`` reports broken once ``import_line`` is added at the end of
    ``module`` (a path from the repo's root, e.g. ``client/outputs/text.py``)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        for folder in FOLDERS:  # laid out as the installed package, gryph/<folder>
            shutil.copytree(ROOT / folder, copy / "gryph" / folder, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "pyproject.toml", copy)
        target = copy / "gryph" / module
        target.write_text(target.read_text(encoding="utf-8") + f"\n{import_line}  # the slip\n", encoding="utf-8")
        done = subprocess.run(
            [str(LINT_IMPORTS), "--config", "pyproject.toml", "--no-cache"],
            cwd=copy,
            env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"lint-imports failed to run:\n{done.stdout}\n{done.stderr}")
    return re.findall(r"^(.+?) BROKEN\b", done.stdout, re.MULTILINE)
